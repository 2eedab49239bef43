"""The HTML report's error analysis, opened in a real headless browser (Debian's chromium driven
by playwright): the distribution's numbers on the page are the view's, the Figure 11 heat map
and the agreement tables are there, and the item browser's error-type filter lists exactly the
answers with that type."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mathprobe import registry
from mathprobe.cli.main import app
from mathprobe.store import close_all, open_store
from tests.reports.test_html_report import CHROMIUM, FLAGS
from tests.support.labeller import Labeller, wemath_subset

LABELLER = "openai:fake-labeller"
pytestmark = pytest.mark.timeout(600)


def invoke(*args: str) -> str:
    out = CliRunner().invoke(app, list(args))
    close_all()
    assert out.exit_code == 0, out.output + repr(out.exception)
    return out.stdout


@pytest.fixture(scope="module")
def labelled(tmp_path_factory, data_dir):
    """A WE-MATH subset imported and labelled, people's labels imported beside the model's,
    and its HTML report."""
    from tests.support.fake_api import FakeAPI

    tmp = tmp_path_factory.mktemp("errors-html")
    db = tmp / "store.duckdb"
    wemath_subset(data_dir, tmp / "r.json")
    invoke("import", str(tmp / "r.json"), "--benchmark", "wemath", "--format", "official",
           "--run-id", "we", "--db", str(db), "--data-dir", str(data_dir))
    api = FakeAPI(reply=Labeller(list(registry.get("wemath").error_taxonomy.names),
                                 unreadable_every=None)).start()
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("OPENAI_BASE_URL", api.openai_url)
            mp.setenv("OPENAI_API_KEY", "sk-test-local")
            invoke("errors", "we", "--judge", LABELLER, "--db", str(db), "--json")
    finally:
        api.stop()
    sheet = tmp / "sheet.csv"
    invoke("errors", "export-sheet", "we", "--db", str(db), "--out", str(sheet), "--sample", "20")
    with sheet.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r["error_type"] = "Visual Error"
    with (tmp / "filled.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    invoke("errors", "import-sheet", str(tmp / "filled.csv"), "--labeler", "people:ann",
           "--db", str(db))
    invoke("report", "--db", str(db), "--html", str(tmp / "report.html"), "--runs", "we",
           "--data-dir", str(data_dir))
    return tmp, db


@pytest.fixture(scope="module")
def page(labelled):
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).is_file(), "chromium is installed by `make test`"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        context.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file://")
                      else r.abort())
        pg = context.new_page()
        pg.goto((labelled[0] / "report.html").as_uri())
        pg.wait_for_load_state("load")
        yield pg
        browser.close()


def test_the_error_section_shows_the_views_numbers(page, labelled):
    _, db = labelled
    store = open_store(db, read_only=True)
    rows = store.query("SELECT error_type, n, share FROM error_types_distribution WHERE "
                       "run_id = 'we' AND grader = 'official' AND labeler = ?", [LABELLER])
    close_all()
    table = page.locator(f'table.error-distribution[data-labeler="{LABELLER}"]')
    assert table.count() == 1
    for error_type, n, share in rows:
        row = table.locator(f'tr[data-type="{error_type}"] td')
        assert row.nth(1).inner_text() == f"{100 * share:.2f}"
        assert row.nth(3).inner_text() == str(n)
    # Figure 11 as a heat map, drawn and visible; the distribution as bars
    for key in ("errors-figure11-we-openai-fake-labeller", "errors-wemath-openai-fake-labeller"):
        box = page.locator(f'figure[data-plot="{key}"] svg').first.bounding_box()
        assert box and box["width"] > 300 and box["height"] > 100, key
    # the people's labels against the model's: kappa and the confusion table on the page
    section = page.locator('div.errors[data-errors="wemath"]')
    assert "Cohen's kappa" in section.inner_text()
    assert section.locator("table.error-confusion").count() == 1
    assert "not audited against people" not in section.inner_text()


def test_the_item_browser_filters_by_error_type(page, labelled):
    _, db = labelled
    store = open_store(db, read_only=True)
    (total,), = store.query("SELECT count(*) FROM current_responses WHERE run_id = 'we'")
    (visual,), = store.query("SELECT count(DISTINCT item_id) FROM error_labels_current WHERE "
                             "run_id = 'we' AND error_type = 'Visual Error'")
    (any_label,), = store.query("SELECT count(DISTINCT item_id) FROM error_labels_current "
                                "WHERE run_id = 'we'")
    close_all()
    page.select_option("#f-error", "Visual Error")
    assert page.locator("#f-count").inner_text() == f"{visual} of {total} answers"
    badges = page.locator("#item-table tbody tr.item").first.locator("span.badge.error")
    assert "Visual Error" in [badges.nth(k).get_attribute("data-error-type")
                              for k in range(badges.count())]
    page.select_option("#f-error", "*")
    assert page.locator("#f-count").inner_text() == f"{any_label} of {total} answers"
    page.select_option("#f-error", "")
    assert page.locator("#f-count").inner_text() == f"{total} of {total} answers"
    data = json.loads(page.locator("#items-data").inner_text())
    assert all(len(row) == 11 for row in data["rows"])
