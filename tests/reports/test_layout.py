"""The HTML report's layout, measured in a real browser (Debian's chromium via playwright) on
the reports a user makes of whole benchmarks: a WE-MATH run holding every problem, with every
image embedded and a model name that cannot wrap, and each benchmark's full chance runs from
the real eval flow (ConceptMath's in its three settings: a three-run legend was cut at the left,
"ance" for "chance"). Read from the page's geometry, not from its source:

- no text of a plot outside its SVG's box (a cut legend, a cut title);
- no two texts of a table row, or of a plot, on top of each other (a long model name ran over
  the Score interval of WE-MATH's Table 2);
- no table wider than the window, at 1400 and at 1280 px (the Runs table was 1,672 px, Table 1
  1,537 px, the run-card differences past the page);
- no id used twice (matplotlib numbers each plot's ids from 1: 81-322 duplicates a report, so a
  clip path could bind to another plot's), and every reference to an id finds it.

A screenshot of each report's sections is kept in $MATHPROBE_TEST_ARTIFACTS (tests/artifacts/)."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from mathprobe.flows.eval import eval_flow
from mathprobe.registry import get
from mathprobe.reports import html
from mathprobe.runs import import_official
from mathprobe.store import close_all, open_store
from tests.reports.test_html_report import ARTIFACTS, CHROMIUM, FLAGS

pytestmark = [pytest.mark.usefixtures("prefect_harness"), pytest.mark.timeout(1200)]
LONG_NAME = "Qwen2_VL_72B_Instruct_AWQ_wemath_testmini_responses_20251130.json"   # no break
CHANCE = {"wemath": ("plain", "kca"), "conceptmath": ("zs", "zs-cot", "fs"),
          "cmmath": ("text", "text+ocr")}
WIDTHS = (1400, 1280)


def _run_id(bench: str, setting: str) -> str:
    return f"chance-{bench}-{setting.replace('+', '-')}"


@pytest.fixture(scope="module")
def reports(tmp_path_factory, data_dir):
    """name -> the HTML file: 'wemath-all' (two imports of the reference answers, all 525
    problems, every image a thumbnail) and 'chance-<benchmark>' (its chance runs)."""
    tmp = tmp_path_factory.mktemp("layout")
    db = tmp / "runs.duckdb"
    for bench, settings in CHANCE.items():
        for setting in settings:
            eval_flow(benchmark=bench, model="baseline:random", setting=setting,
                      run_id=_run_id(bench, setting), db=str(db), data_dir=str(data_dir))
    close_all()
    store = open_store(db)
    reference = data_dir / "wemath" / "reference_cases" / "v1_responses.json"
    shutil.copy(reference, tmp / LONG_NAME)
    import_official(store, get("wemath"), data_dir, reference, "v1")
    import_official(store, get("wemath"), data_dir, tmp / LONG_NAME, "v1-long-name")
    out = {}
    out["wemath-all"] = tmp / "wemath-all.html"
    html.write(store, ["v1", "v1-long-name"], out["wemath-all"], data_dir=data_dir,
               max_thumbnails=10_000)
    for bench, settings in CHANCE.items():
        out[f"chance-{bench}"] = tmp / f"chance-{bench}.html"
        html.write(store, [_run_id(bench, s) for s in settings], out[f"chance-{bench}"],
                   data_dir=data_dir)
    store.close()
    return out


@pytest.fixture(scope="module")
def page():
    """open(file, width) -> the report in headless Chromium, offline, every <details> open
    (their tables are measured too)."""
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).is_file(), "chromium is installed by `make chromium`"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        opened = []

        def open_(path, width: int = WIDTHS[0]):
            context = browser.new_context(viewport={"width": width, "height": 1000})
            context.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file://")
                          else r.abort())
            pg = context.new_page()
            pg.goto(path.as_uri())
            pg.wait_for_load_state("load")
            pg.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
            opened.append(context)
            return pg
        yield open_
        for context in opened:
            context.close()
        browser.close()


# boxes as the page lays them out: [what, detail...] for each fault found
GEOMETRY = """() => {
  const box = r => ({l: r.left, r: r.right, t: r.top, b: r.bottom, w: r.width});
  const cross = (a, b) => Math.min(a.r, b.r) - Math.max(a.l, b.l) > 1
                       && Math.min(a.b, b.b) - Math.max(a.t, b.t) > 1;
  const out = {cut: [], overlaps: [], wide: [], legends: 0, plots: 0};
  const page = document.documentElement.clientWidth;
  document.querySelectorAll('figure.plot svg').forEach(svg => {
    out.plots++;
    const s = box(svg.getBoundingClientRect()), part = svg.closest('figure').dataset.part;
    const texts = Array.from(svg.querySelectorAll('text')).map(t => [t, box(t.getBoundingClientRect())])
      .filter(([, r]) => r.w > 0);
    for (const [t, r] of texts) {
      if (t.closest('g[id$="legend_1"]')) out.legends++;
      if (r.l < s.l - 0.5 || r.r > s.r + 0.5 || r.t < s.t - 0.5 || r.b > s.b + 0.5)
        out.cut.push([part, t.textContent, Math.round(r.l - s.l), Math.round(s.r - r.r)]);
    }
    for (let i = 0; i < texts.length; i++) for (let j = i + 1; j < texts.length; j++)
      if (cross(texts[i][1], texts[j][1]))
        out.overlaps.push([part, texts[i][0].textContent, texts[j][0].textContent]);
  });
  const lines = cell => { const rs = [], walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let n; (n = walk.nextNode());) { if (!n.textContent.trim()) continue;
      const range = document.createRange(); range.selectNodeContents(n);
      for (const r of range.getClientRects()) if (r.width > 0) rs.push(box(r)); }
    return rs; };
  document.querySelectorAll('tr').forEach(tr => {
    const cells = Array.from(tr.cells).map(c => [c, lines(c)]);
    for (let i = 0; i < cells.length; i++) for (let j = i + 1; j < cells.length; j++)
      if (cells[i][1].some(a => cells[j][1].some(b => cross(a, b))))
        out.overlaps.push([tr.closest('table').className, cells[i][0].innerText.slice(0, 60),
                           cells[j][0].innerText.slice(0, 60)]);
  });
  document.querySelectorAll('table').forEach(t => {
    const r = t.getBoundingClientRect();
    if (r.width > page) out.wide.push([t.className, t.dataset.table || '', Math.round(r.width), page]);
  });
  return out;
}"""


@pytest.mark.parametrize("name", ["wemath-all", "chance-wemath", "chance-conceptmath",
                                  "chance-cmmath"])
def test_nothing_is_cut_overlaps_or_runs_off_the_page(reports, page, name):
    for width in WIDTHS:
        found = page(reports[name], width).evaluate(GEOMETRY)
        assert found["plots"] >= 3 and found["legends"] >= found["plots"], (name, found)
        assert found["cut"] == [], (name, width, found["cut"][:5])
        assert found["overlaps"] == [], (name, width, found["overlaps"][:5])
        assert found["wide"] == [], (name, width, found["wide"])


def test_the_long_model_name_wraps_inside_its_cell(reports, page):
    """The model name of an import from a file named without a break ran over the Score."""
    row = page(reports["wemath-all"]).locator(
        'table.figures[data-table="table2.strict"] tbody tr', has_text="v1-long-name")
    assert "Qwen2_VL_72B" in row.inner_text()
    ends = row.locator("td.l .sub").evaluate(
        "e => { const r = document.createRange(); r.selectNodeContents(e); "
        "return Array.from(r.getClientRects()).map(x => x.right); }")
    assert len(ends) >= 2                                          # wrapped, not run on
    assert max(ends) <= row.locator("td.fig").first.bounding_box()["x"] + 1


@pytest.mark.parametrize("name", ["wemath-all", "chance-wemath", "chance-conceptmath",
                                  "chance-cmmath"])
def test_no_id_is_used_twice_and_every_reference_finds_its_own(reports, page, name):
    text = reports[name].read_text(encoding="utf-8")
    ids = re.findall(r'\sid="([^"]+)"', text)
    assert len(ids) > 100 and len(ids) == len(set(ids)), sorted(
        i for i in set(ids) if ids.count(i) > 1)[:10]
    found = page(reports[name]).evaluate("""() => {
      const bad = [];
      document.querySelectorAll('figure.plot svg').forEach(svg => {
        svg.querySelectorAll('[clip-path], use, [fill^="url("]').forEach(e => {
          const ref = (e.getAttribute('clip-path') || e.getAttribute('fill') || '').match(/#([^)]+)/)
                      || [null, (e.getAttribute('xlink:href') || e.getAttribute('href') || '').slice(1)];
          if (ref[1] && !svg.querySelector('[id="' + ref[1] + '"]')) bad.push(ref[1]);
        });
      });
      return bad;
    }""")
    assert found == []


def test_every_image_of_every_problem_is_embedded(reports):
    """The WE-MATH run holding all 525 problems: every distinct image a thumbnail (palette ones
    included), every item pointing at one."""
    text = reports["wemath-all"].read_text(encoding="utf-8")
    data = json.loads(re.search(r'<script type="application/json" id="items-data">(.*?)</script>',
                                text, re.S)[1].replace("<\\/", "</"))
    assert len(data["rows"]) == 2 * 1740 and all(row[7] >= 0 for row in data["rows"])
    assert len(data["images"]) > 1000
    assert all(src.startswith("data:image/jpeg;base64,") for src in data["images"])


def test_a_screenshot_of_each_report_is_kept(reports, page):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for name, path in reports.items():
        pg = page(path)
        pg.add_style_tag(content="nav { position: static !important; }")
        for section in pg.locator("section").evaluate_all("s => s.map(x => x.id)"):
            if section == "glossary":
                continue
            shot = ARTIFACTS / f"layout-{name}-{section}.png"
            pg.locator(f"section#{section}").screenshot(path=str(shot))
            assert shot.stat().st_size > 5_000, shot
