"""The HTML report opened in a real headless browser (Debian's chromium driven by playwright):
it loads with the network cut off, shows its plots, shows the numbers of the views (read from
the rendered page, not from the HTML source), and its item browser filters. The screenshot it
takes is kept under pytest's temporary directory (the path is printed)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mathprobe.flows.cli import app
from tests.reports.conftest import N_RIGHT, N_WRONG

CHROMIUM = "/usr/bin/chromium"
# without these Chromium tries the network (component updates, sync) and fails here
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
RUNS = "v1,v1-perturbed,cm-zs,cm-fs,cmm-a"


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
        box = page.locator(f'figure[data-plot="{key}"] svg').bounding_box()
        assert box and box["width"] > 300 and box["height"] > 100, key
    # the stacked bars carry the runs' shares as text: the plot is of these runs
    assert "v1-perturbed" in text(page, 'figure[data-plot="wemath-4d-strict"]')
    files = sorted(p.name for p in (report / "figures").iterdir())
    assert {"wemath-4d-strict.png", "wemath-4d-strict.svg", "cmmath-ssr.png"} <= set(files)
    shot = report / "report.png"
    page.screenshot(path=str(shot), full_page=True)
    keep = Path(report).parent / "report-screenshot.png"
    shutil.copy(shot, keep)
    print(f"\nscreenshot of the HTML report: {keep}")
    assert shot.stat().st_size > 50_000


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
    assert browser.locator("tbody tr.item").count() == 50                  # a page at a time
    page.select_option("#f-run", label="v1")
    page.select_option("#f-verdict", "wrong")
    (wrong,), = q("SELECT count(*) FROM item_verdicts WHERE run_id = 'v1' AND grader = "
                  "'official' AND NOT correct")
    assert page.locator("#f-count").inner_text() == f"{wrong} of {total} answers"
    first = browser.locator("tbody tr.item").first
    assert "official: wrong" in first.inner_text()
    link = first.locator("a").get_attribute("href")
    assert link.startswith("file://") and Path(link[len("file://"):]).is_file()
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
