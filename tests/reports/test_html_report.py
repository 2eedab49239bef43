"""The HTML report opened in a real headless browser (Debian's chromium driven by playwright):
it loads with the network cut off, shows its plots, shows the numbers of the views (read from
the rendered page, not from the HTML source), its tables of many figures are long and sort, and
its item browser filters and diffs two runs. A screenshot of each section is kept as a test
artifact in $MATHPROBE_TEST_ARTIFACTS (default tests/artifacts/, git-ignored); with
MATHPROBE_UPDATE_SCREENSHOT=1 the top of the page also becomes docs/report.png, the README's
screenshot."""
from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mathprobe.cli.main import app
from tests.reports.conftest import N_RIGHT, N_WRONG

CHROMIUM = "/usr/bin/chromium"
# without these Chromium tries the network (component updates, sync) and fails here
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
RUNS = "v1,v1-perturbed,cm-zs,cm-fs,cmm-a"
REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("MATHPROBE_TEST_ARTIFACTS") or REPO / "tests" / "artifacts")
MAX_PLOT = (1200, 1000)      # CSS pixels: no plot is thousands of pixels wide or tall

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def report(results, tmp_path_factory):
    out = tmp_path_factory.mktemp("html")
    done = CliRunner().invoke(app, ["report", "--db", str(results.db), "--html",
                                    str(out / "report.html"), "--runs", RUNS,
                                    "--figures", str(out / "figures"),
                                    "--data-dir", str(results.data_dir)])
    assert done.exit_code == 0, done.output
    return out


@pytest.fixture(scope="module")
def page(report):
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).is_file(), "chromium is installed by `make test` (apt-get install chromium)"
    requests: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})

        def route(r):                       # offline: only the file itself may load
            requests.append(r.request.url)
            if r.request.url.startswith("file://"):
                r.continue_()
            else:
                r.abort()
        context.route("**/*", route)
        pg = context.new_page()
        pg.goto((report / "report.html").as_uri())
        pg.wait_for_load_state("load")
        pg.requests = requests
        yield pg
        browser.close()


def text(page, selector: str) -> str:
    return page.locator(selector).first.inner_text().strip()


def cell(run: str, stat: str) -> str:
    return f'table.figures td.fig[data-run="{run}"][data-stat="{stat}"] .v'


def test_it_is_self_contained_and_shows_its_plots(page, report):
    assert [u for u in page.requests if not u.startswith("file://")] == []
    assert page.requests == [(report / "report.html").as_uri()]        # nothing else loaded
    plots = page.locator("figure.plot")
    keys = [plots.nth(k).get_attribute("data-plot") for k in range(plots.count())]
    for key in ("wemath-4d-strict", "wemath-4d-loose", "wemath-table1", "wemath-concepts",
                "conceptmath-systems", "conceptmath-concepts-l1", "conceptmath-concepts-l3",
                "cmmath-subjects", "cmmath-grades", "cmmath-ssr", "cmmath-official-ssr"):
        assert key in keys, key
        box = page.locator(f'figure[data-plot="{key}"] svg').first.bounding_box()
        assert box and box["width"] > 300 and box["height"] > 100, key
    # the stacked bars carry the runs' shares as text: the plot is of these runs
    assert "v1-perturbed" in text(page, 'figure[data-plot="wemath-4d-strict"]')
    files = sorted(p.name for p in (report / "figures").iterdir())
    assert {"wemath-4d-strict.png", "wemath-4d-strict.svg", "cmmath-ssr.png"} <= set(files)
    # every plot fits: none thousands of pixels (the ConceptMath level-3 dots were 5,316 px)
    sizes = page.evaluate("""() => Array.from(document.querySelectorAll('figure.plot svg'))
        .map(s => [s.closest('figure').dataset.part, s.width.baseVal.value,
                   s.height.baseVal.value])""")
    for part, w, h in sizes:
        assert w <= MAX_PLOT[0] and h <= MAX_PLOT[1], (part, w, h)
    # and the page itself is no wider than the window
    assert page.evaluate("document.documentElement.scrollWidth") <= 1400


def test_it_shows_the_views_numbers(page, results):
    q = results.store.query_dicts
    for row in q("SELECT * FROM wemath_four_dimensional WHERE run_id IN ('v1', 'v1-perturbed')"):
        run, rule = row["run_id"], row["rule"]
        assert text(page, cell(run, f"score.{rule}")) == f"{100 * row['score']:.2f}"
        assert text(page, cell(run, f"cm.{rule}")) == f"{100 * row['cm_rate']:.2f} ({row['cm']})"
        assert text(page, cell(run, "ik")) == f"{100 * row['ik_rate']:.2f} ({row['ik']})"
        n = page.locator(cell(run, f"score.{rule}").replace(" .v", " .n")).first.inner_text()
        assert n == f"n={row['n']}"
    (steps,) = q("SELECT s1, s2, s3 FROM wemath_step_accuracy WHERE run_id = 'v1'")
    assert text(page, cell("v1", "s1")).startswith(f"{100 * steps['s1']:.2f} (")
    (cat,) = q("SELECT category, accuracy FROM wemath_category_accuracy WHERE run_id = 'v1' "
               "AND category = 'Angles and Length'")
    assert text(page, cell("v1", "category:Angles and Length")) == f"{100 * cat['accuracy']:.2f}"
    (cm,) = q("SELECT accuracy, correct FROM conceptmath_accuracy WHERE run_id = 'cm-zs' "
              "AND grader = 'official'")
    assert text(page, cell("cm-zs", "system:element_en")) == \
        f"{100 * cm['accuracy']:.2f} ({cm['correct']})"
    (ssr,) = q("SELECT ssr FROM cmmath_paper_ssr WHERE run_id = 'cmm-a' AND alpha = 0.6")
    assert text(page, cell("cmm-a", "ssr@0.6")) == f"{100 * ssr['ssr']:.2f}"
    (theirs,) = q("SELECT score, correct FROM cmmath_official_scores WHERE run_id = 'cmm-a' AND "
                  "breakdown = 'question_type' AND key = 'single_choice'")
    assert text(page, cell("cmm-a", "official:question_type:single_choice")) == \
        f"{theirs['score']:.1f} ({theirs['correct']})"
    # the differences from the baseline, with the McNemar counts of the perturbation
    s1 = page.locator('table.differences td[data-run="v1-perturbed"][data-stat="s1"]').first
    assert f"McNemar {N_WRONG}/{N_RIGHT}" in s1.inner_text()
    # coloured by what the change means: a lower IK is better, a lower score worse
    compared = json.loads(CliRunner().invoke(app, ["compare", "--db", str(results.db), "v1",
                                                   "v1-perturbed", "--json"]).stdout)
    diffs = {d["stat"]: d for d in compared["differences"] if d["run_b"] == "v1-perturbed"}
    for stat in ("ik", "score.strict", "s1"):
        d = diffs[stat]
        way = {True: "better", False: "worse"}.get(d["improved"])
        classes = page.locator(f'table.differences td[data-run="v1-perturbed"]'
                               f'[data-stat="{stat}"]').first.get_attribute("class").split()
        assert (way in classes) if way else not {"better", "worse"} & set(classes), (stat, d)
        color = page.locator(f'table.differences td[data-run="v1-perturbed"][data-stat="{stat}"]'
                             ' .v').first.evaluate("e => getComputedStyle(e).color")
        assert color == {"better": "rgb(27, 127, 59)", "worse": "rgb(179, 38, 30)"}.get(
            way, color), (stat, color)
    # the KCA transition matrix and the run details apart from the metrics
    assert "v1 (plain, rows) to v1-perturbed (kca, columns)" in page.inner_text("body")
    details = page.locator('section#runs tr[data-run="cmm-a"]').inner_text()
    assert "cmmath" in details and "rules" in details and "1000" not in details


def test_the_glossary_spells_out_every_metric(page):
    glossary = page.locator("section#glossary").inner_text()
    for term in ("IK (Insufficient Knowledge)", "IG (Inadequate Generalization)",
                 "CM (Complete Mastery)", "RM (Rote Memorization)", "Score (WE-MATH)",
                 "SSR@alpha", "McNemar test", "95% CI", "MIN-K%"):
        assert term in glossary, term
    assert "Chance" in glossary and "S1 " in glossary


def test_the_item_browser_filters(page, results):
    q = results.store.query
    browser = page.locator("section#items")
    (total,), = q("SELECT count(*) FROM current_responses WHERE run_id IN "
                  "('v1', 'v1-perturbed', 'cm-zs', 'cm-fs', 'cmm-a')")
    assert page.locator("#f-count").inner_text() == f"{total} of {total} answers"
    assert browser.locator("tbody tr.item").count() == 25                  # a page at a time
    page.select_option("#f-run", label="v1")
    page.select_option("#f-verdict", "wrong")
    (wrong,), = q("SELECT count(*) FROM item_verdicts WHERE run_id = 'v1' AND grader = "
                  "'official' AND NOT correct")
    assert page.locator("#f-count").inner_text() == f"{wrong} of {total} answers"
    first = browser.locator("tbody tr.item").first
    assert "official: wrong" in first.inner_text()
    # the image travels inside the file: a thumbnail, not a file:// link
    img = first.locator("td.img img")
    assert img.get_attribute("src").startswith("data:image/jpeg;base64,")
    size = img.evaluate("i => [i.naturalWidth, i.naturalHeight]")
    assert 0 < max(size) <= 240
    assert "file://" not in page.content()
    concept = "Area of Circles"
    page.select_option("#f-concept", concept)
    (n,), = q("SELECT count(*) FROM item_verdicts v JOIN items i ON i.benchmark = 'wemath' AND "
              "i.item_id = v.item_id WHERE v.run_id = 'v1' AND v.grader = 'official' AND NOT "
              "v.correct AND list_contains(string_split(i.concept, ';'), ?)", [concept])
    assert 0 < n < wrong
    assert page.locator("#f-count").inner_text() == f"{n} of {total} answers"
    page.select_option("#f-concept", "")
    page.select_option("#f-verdict", "")
    page.select_option("#f-run", "")
    page.select_option("#f-status", "ok")
    (ok,), = q("SELECT count(*) FROM current_responses WHERE status = 'ok' AND run_id IN "
               "('v1', 'v1-perturbed', 'cm-zs', 'cm-fs', 'cmm-a')")
    assert page.locator("#f-count").inner_text() == f"{ok} of {total} answers"


def test_concept_tables_are_long_and_sort(page, results):
    """WE-MATH's 67 leaves: one row per concept (the table was 16,962 px wide), sortable by a
    run's accuracy; the box it scrolls in stays on the page."""
    page.locator('details[data-table="concepts"] > summary').click()
    table = page.locator('table.figures[data-table="concepts"]')
    rows = table.locator("tbody tr")
    assert rows.count() == 67
    box = page.locator('details[data-table="concepts"] .long-wrap').bounding_box()
    assert box["width"] <= 1400 and box["height"] <= 600
    header = [t.strip() for t in table.locator("thead th").all_inner_texts()]
    assert header[:3] == ["figure", "v1", "v1-perturbed"]
    table.locator("thead th").nth(1).click()                    # v1, ascending
    values = [float(v) for v in table.locator('tbody td.fig[data-run="v1"]').evaluate_all(
        "cells => cells.map(c => c.dataset.value)")]
    assert values == sorted(values)
    low = rows.first.locator("td").first.inner_text().strip()
    (acc_low,), = results.store.query("SELECT accuracy FROM wemath_concept_accuracy WHERE "
                                      "run_id = 'v1' AND grader = 'official' AND concept = ?",
                                      [low])
    (acc_min,), = results.store.query("SELECT min(accuracy) FROM wemath_concept_accuracy WHERE "
                                      "run_id = 'v1' AND grader = 'official'")
    assert acc_low == acc_min
    table.locator("thead th").nth(1).click()                    # descending
    first = float(table.locator('tbody td.fig[data-run="v1"]').first.get_attribute("data-value"))
    assert first == max(values)
    page.locator('details[data-table="concepts"] > summary').click()


def test_items_sort_naturally_and_show_the_options(page, results):
    page.select_option("#f-run", label="v1")
    ids = []
    for _ in range(3):                                    # three pages of 25
        ids += page.locator("#item-table tbody tr.item").evaluate_all(
            "rows => rows.map(r => r.dataset.item)")
        page.click("#p-next")
    problems = list(dict.fromkeys(i.split("/")[0] for i in ids))
    assert problems[:10] == [f"2steps_{k}" for k in range(1, 11)]     # not 2steps_1, _10, _100
    page.select_option("#f-run", label="v1")              # back to the first page
    first = page.locator("#item-table tbody tr.item").first.inner_text()
    option = results.store.query("SELECT payload->>'option' FROM items WHERE benchmark = "
                                 "'wemath' AND item_id = ?", [ids[0]])[0][0]
    assert "Option: " + option.split(";")[0] in first
    page.select_option("#f-run", "")


def test_the_item_browser_diffs_two_runs(page, results):
    """v1-perturbed got N_WRONG one-step questions wrong that v1 got right, and N_RIGHT the
    other way: the browser finds exactly those, and the per-concept regressions add up."""
    page.select_option("#d-a", label="v1")
    page.select_option("#d-b", label="v1-perturbed")
    page.select_option("#d-rel", "rw")
    shown = page.locator("#item-table tbody tr.item")
    assert page.locator("#f-count").inner_text().startswith(f"{N_WRONG} of ")
    ids = shown.evaluate_all("rows => rows.map(r => r.dataset.item)")
    assert sorted(ids) == sorted(results.flipped_to_wrong)
    assert "A v1: right" in shown.first.inner_text()
    assert "official: wrong" in shown.first.inner_text()
    page.select_option("#d-rel", "wr")
    assert page.locator("#f-count").inner_text().startswith(f"{N_RIGHT} of ")
    page.select_option("#d-rel", "diff")
    assert page.locator("#f-count").inner_text().startswith(f"{N_WRONG + N_RIGHT} of ")
    # per concept: right -> wrong and back, the concepts of the flipped questions
    page.locator("#regressions-box > summary").click()
    rows = page.locator("#regressions tbody tr")
    cells = rows.evaluate_all("rows => rows.map(r => Array.from(r.cells).map(c => c.innerText))")
    concepts = dict(results.store.query(
        "SELECT item_id, concept FROM items WHERE benchmark = 'wemath' AND list_contains(?, "
        "item_id)", [results.flipped_to_wrong + results.flipped_to_right]))
    want: dict[str, list[int]] = {}
    for item in results.flipped_to_wrong + results.flipped_to_right:
        for c in concepts[item].split(";"):
            want.setdefault(c, [0, 0])[item in results.flipped_to_right] += 1
    got = {c[0]: [int(c[2]), int(c[3])] for c in cells if int(c[2]) or int(c[3])}
    assert got == want
    nets = [int(c[4]) for c in cells]
    assert nets == sorted(nets)                       # the worst regressions first
    # a concept's regressions, one click away
    worst = rows.first
    name = worst.locator("td").first.inner_text()
    worst.click()
    assert page.locator("#f-concept").input_value() == name
    assert page.locator("#f-count").inner_text().startswith(f"{want[name][0]} of ")
    page.locator("#regressions-box > summary").click()
    for sel, v in (("#d-rel", ""), ("#f-concept", "")):
        page.select_option(sel, v)


def test_a_screenshot_of_each_section_is_kept(page):
    """One PNG per section (the nav pinned to the top so it does not cover them), and the top of
    the page as the README's screenshot; each looked at by a person before a release."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for sel in ("#f-run", "#f-concept", "#f-verdict", "#f-status", "#d-rel"):
        page.select_option(sel, "")                   # the browser as it opens
    page.add_style_tag(content="nav { position: static !important; }")
    ids = page.locator("section").evaluate_all("s => s.map(x => x.id)")
    assert ids[0] == "runs" and "glossary" in ids and "items" in ids
    for section in ids:
        path = ARTIFACTS / f"report-{section}.png"
        page.locator(f"section#{section}").screenshot(path=str(path))
        assert path.stat().st_size > 10_000, section
        w, h = _png_size(path)
        assert w <= 1400, (section, w)
    top = ARTIFACTS / "report-top.png"
    page.set_viewport_size({"width": 1280, "height": 1500})
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(top))
    page.set_viewport_size({"width": 1400, "height": 1000})
    assert _png_size(top) == (1280, 1500)
    if os.environ.get("MATHPROBE_UPDATE_SCREENSHOT") == "1":
        shutil.copy(top, REPO / "docs" / "report.png")
    print(f"\nscreenshots of the HTML report's sections: {ARTIFACTS}")


def _png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[16:24]
    return int.from_bytes(head[:4], "big"), int.from_bytes(head[4:], "big")


def test_images_past_the_thumbnail_cap_are_linked_relative_to_the_report(results, tmp_path):
    """Two thumbnails embedded, every other image a link relative to the report's folder that
    finds its file from there (never an absolute file:// link)."""
    import json

    from mathprobe.reports import html

    out = tmp_path / "shared" / "report.html"
    html.write(results.store, ["v1"], out, data_dir=results.data_dir, max_thumbnails=2)
    page = out.read_text(encoding="utf-8")
    data = json.loads(re.search(r'<script type="application/json" id="items-data">(.*?)</script>',
                                page, re.S)[1].replace("<\\/", "</"))
    embedded = [s for s in data["images"] if s.startswith("data:image/jpeg;base64,")]
    linked = [s for s in data["images"] if not s.startswith("data:")]
    assert len(embedded) == 2 and len(linked) > 500            # distinct images of testmini
    assert "file://" not in page
    for src in linked[:50]:
        assert not Path(src).is_absolute() and (out.parent / src).resolve().is_file(), src
    rows = data["rows"]
    assert all(r[7] >= 0 for r in rows)                        # every WE-MATH item has one
