"""What the reports say about their numbers is true: each interval is named by the method that
made it, from one source (`stats.METHODS`; the Prefect artifact called a Wilson interval
"bootstrap"); each benchmark's differences say which of its own figures are better lower (the
ConceptMath and CMMaTH notes said "lower IK, IG, RM are better", WE-MATH's figures); and a
run's report is that run's figures alone (ConceptMath's Table 2 row pulled in the model's other
runs)."""
from __future__ import annotations

import html as htmllib
import json
import re

from rich.console import Console
from typer.testing import CliRunner

from mathprobe.cli.main import app
from mathprobe.reports import compare, compare_render, html, markdown, stats, summary


def _metrics_rows(md: str) -> dict[str, list[str]]:
    """figure label -> its cells, from the artifact's figure tables."""
    body = md.split("## Metrics", 1)[1].split("\n## ", 1)[0]
    return {cells[0]: cells for line in body.splitlines() if line.startswith("| ")
            and not line.startswith("| figure") and (cells := [c.strip() for c in
                                                               line.strip("|").split(" | ")])}


def test_the_artifact_names_each_interval_by_its_method(results):
    store = results.store
    for run_id, headline_method in (("cm-zs", "wilson"), ("v1", "bootstrap")):
        report = summary.build(store, run_id)
        md, _ = markdown.run_markdown(store, report)
        (b,) = compare.compare(store, [run_id]).benchmarks
        figures = b.figures[run_id]
        assert figures[b.headline.key].ci_method == headline_method
        head = md.split("## Headline", 1)[1].split("\n## ", 1)[0]
        assert ("Wilson" in head) is (headline_method == "wilson")      # it said "bootstrap"
        assert ("bootstrap" in head) is (headline_method == "bootstrap")
        assert f"(95% interval: {stats.method_name(headline_method, full=True)})" in head
        rows = _metrics_rows(md)
        checked = 0
        for t in b.tables:
            for s in t.stats:
                if t.detail or s.key not in figures or s.label not in rows:
                    continue
                assert rows[s.label][3] == stats.method_name(figures[s.key].ci_method), s.key
                checked += 1
        assert checked >= 2
    # WE-MATH holds both kinds: each named as it is
    assert {"Wilson", "bootstrap"} <= {r[3] for r in _metrics_rows(md).values()}


def _footnote(result) -> str:
    console = Console(width=100, record=True)
    console.print(compare_render.render(result, 100))
    text = " ".join(console.export_text().split())
    return text[text.index("change: better or worse"):]


def test_each_benchmarks_differences_name_its_own_figures(results, tmp_path):
    store = results.store
    cm = _footnote(compare.compare(store, ["cm-zs", "cm-fs"]))
    assert cm.startswith("change: better or worse for that figure (higher is better for every "
                         "figure)")
    assert "IK" not in cm and "RM" not in cm
    we = _footnote(compare.compare(store, ["v1", "v1-perturbed"]))
    assert we.startswith("change: better or worse for that figure (lower IK, IG, RM are better; "
                         "higher is better for the others)")
    # the HTML report's note over each benchmark's differences says the same
    out = tmp_path / "report.html"
    html.write(store, ["v1", "v1-perturbed", "cm-zs", "cm-fs"], out)
    page = htmllib.unescape(out.read_text(encoding="utf-8"))
    notes = dict(re.findall(r'<section id="bench-(\w+)".*?<h3>Differences from the baseline '
                            r'[^<]*</h3>\s*<p class="note">(.*?)</p>', page, re.S))
    assert "(lower IK, IG, RM are better; higher is better for the others)" in notes["wemath"]
    assert "(higher is better for every figure)" in notes["conceptmath"]
    assert "IK" not in notes["conceptmath"]
    # and the page never calls every interval a bootstrap one
    assert "bootstrap interval" not in page.split("</header>", 1)[0]
    titles = set(re.findall(r'<td class="fig"[^>]* title="[^"]*n=\d+ ([^"]+)"', page))
    assert titles <= {stats.method_name(m, full=True) for m in stats.METHODS}
    assert {stats.method_name(m, full=True) for m in ("wilson", "bootstrap")} <= titles


def test_a_runs_report_is_that_runs_figures(results):
    """cm-fs and cm-zs are one model's few-shot and zero-shot runs: the report of cm-fs shows
    its few-shot cells alone."""
    done = CliRunner().invoke(app, ["report", "--db", str(results.db), "--run-id", "cm-fs",
                                    "--json"])
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    (t2,) = [t for t in report["tables"] if t["key"] == "table2"]
    assert {f.get("run_id") for f in t2["figures"] if f["key"] != "average"} == {"cm-fs"}
    assert {f.get("setting") for f in t2["figures"] if f["key"] != "average"} == {"fs"}
    (acc,) = [f for t in report["tables"] if t["key"] == "accuracy" for f in t["figures"]
              if f["key"] == "all"]
    (avg,) = [f for f in t2["figures"] if f["key"] == "average"]
    assert avg["value"] == acc["value"]           # one system, one setting: the run's accuracy
    text = CliRunner().invoke(app, ["report", "--db", str(results.db), "--run-id", "cm-fs"],
                              env={"COLUMNS": "200"}).output
    assert " ZS " not in text and "ZS-CoT" not in text
