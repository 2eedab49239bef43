"""A star means a test at 5% supports it, by one rule (`stats.significant`) that the terminal,
JSON, the Markdown artifact and the HTML report all show: a one-problem difference is never
starred (it was: `CCF B -100.00* [-100.0, 58.7] <0.001 <0.001 bootstrap worse*`, a bootstrap
p-value of 0 from one pair), no test marks a difference with fewer moved units than it needs
(`stats.MIN_N`: below it the bootstrap gives way to the exact sign test), and no star sits on an
interval that holds 0.

The runs: WE-MATH two-step problems of one category (Calculation of Plane Figures, whose
one-step questions are all of that category), all right in the baseline; each other run answers
every question of its first m problems wrong. The category's figure (the mean of its leaves) is
tested by the paired bootstrap over problems."""
from __future__ import annotations

import json
import re

import pytest
from rich.console import Console
from scipy import stats as sps
from typer.testing import CliRunner

from mathprobe import registry
from mathprobe.cli.main import app
from mathprobe.reports import compare, compare_render, html, markdown, stats
from mathprobe.runs import import_official
from mathprobe.store import open_store

CATEGORY = "Calculation of Plane Figures"
N_PROBLEMS = 12


@pytest.fixture(scope="module")
def store(tmp_path_factory, data_dir):
    tmp = tmp_path_factory.mktemp("significance")
    rows = json.loads((data_dir / "wemath" / "testmini.json").read_text())
    nodes = json.loads((data_dir / "wemath" / "knowledge_structure_nodes.json").read_text())
    category = {n["full node"].split("_")[-1]: n["root2"] for n in nodes}
    cats: dict[str, set[str]] = {}
    for r in rows:
        if r["ID"].startswith("2steps") and not r["key"].endswith("multi"):
            cats.setdefault(r["ID"], set()).add(category[r["knowledge concept"]])
    chosen = [p for p, c in cats.items() if c == {CATEGORY}][:N_PROBLEMS]
    assert len(chosen) == N_PROBLEMS
    problems = [r for r in rows if r["ID"] in chosen]
    store = open_store(tmp / "runs.duckdb")

    def load(run_id: str, wrong: set[str], only: int = N_PROBLEMS) -> None:
        answers = [{**r, "response": "<Answer>: <<" + (next(c for c in "ABCDE" if c != r["answer"])
                                                      if r["ID"] in wrong else r["answer"])
                    + ">>"} for r in problems if r["ID"] in chosen[:only]]
        path = tmp / f"{run_id}.json"
        path.write_text(json.dumps(answers))
        import_official(store, registry.get("wemath"), data_dir, path, run_id)

    load("all-right", set())
    for m in (1, 5, 6):
        load(f"wrong-{m}", set(chosen[:m]))
    load("one-right", set(), only=1)               # one problem: the n = 1
    load("one-wrong", {chosen[0]}, only=1)
    return store


def _diffs(store, a: str, b: str) -> dict[str, dict]:
    out = CliRunner().invoke(app, ["compare", "--db", str(store.path), "--json", a, b])
    assert out.exit_code == 0, out.output
    return {d["stat"]: d for d in json.loads(out.stdout)["differences"]}


def test_the_fewest_pairs_each_test_needs_are_declared():
    """Six: with five discordant pairs all one way the exact test gives 0.0625 (scipy)."""
    k = stats.MIN_N[stats.BOOTSTRAP_TEST]
    assert stats.MIN_N == {"mcnemar": k, "sign": k, "bootstrap": k}
    assert sps.binomtest(k, k).pvalue < stats.SIGNIFICANCE <= sps.binomtest(k - 1, k - 1).pvalue
    assert stats.fewest_pairs(0.01) == 8 and sps.binomtest(7, 7).pvalue >= 0.01


def test_a_one_problem_difference_carries_no_star(store, tmp_path):
    """The issue's n = 1: every figure of one problem, right and then wrong: the category is
    tested by the sign test of its one moved problem (p = 1), nothing is significant."""
    diffs = _diffs(store, "one-right", "one-wrong")
    cat = diffs[f"category:{CATEGORY}"]
    assert cat["n"] == 1 and cat["diff"] == -1
    assert (cat["test"], cat["only_a"], cat["only_b"], cat["p_value"]) == ("sign", 1, 0, 1.0)
    assert cat["ci_low"] <= 0 <= cat["ci_high"]
    assert not [d for d in diffs.values() if d["significant"]]
    result = compare.compare(store, ["one-right", "one-wrong"])
    assert _starred(store, result, tmp_path) == {"json": set(), "terminal": set(),
                                                 "markdown": set(), "html": set()}


@pytest.mark.parametrize("m, test, p, marked", [(5, "sign", 2 * 0.5 ** 5, False),
                                                (6, "bootstrap", None, True)])
def test_below_its_minimum_a_test_marks_nothing(store, m, test, p, marked):
    """Five problems moved, all down: the bootstrap's p-value (about 0.003) had starred it;
    the exact sign test gives 0.0625. Six: the bootstrap's, small, and a star."""
    cat = _diffs(store, "all-right", f"wrong-{m}")[f"category:{CATEGORY}"]
    assert cat["n"] == N_PROBLEMS and cat["test"] == test
    if p is not None:
        assert (cat["only_a"], cat["only_b"]) == (m, 0) and cat["p_value"] == pytest.approx(p)
    assert cat["ci_high"] < 0            # the bootstrap's interval clear of 0 both times,
    assert cat["significant"] is marked  # but five moved problems are too few for a mark


def test_no_star_where_the_interval_holds_zero():
    assert stats.significant(0.01, (-0.2, -0.01))
    assert not stats.significant(0.01, (-0.2, 0.0)) and not stats.significant(0.01, (-0.2, 0.3))
    assert not stats.significant(0.05, (0.1, 0.2)) and not stats.significant(None, (0.1, 0.2))
    assert stats.significant(0.01)                 # a test without an interval: its p alone


def test_every_output_stars_what_json_calls_significant(store, tmp_path):
    result = compare.compare(store, ["all-right", "wrong-1", "wrong-5", "wrong-6"])
    starred = _starred(store, result, tmp_path)
    (label,) = {s.label for t in result.benchmarks[0].tables for s in t.stats
                if s.key == f"category:{CATEGORY}"}
    assert ("wrong-6", label) in starred["json"] and ("wrong-5", label) not in starred["json"]
    assert starred["terminal"] == starred["markdown"] == starred["html"] == starred["json"]


def _starred(store, result, tmp) -> dict[str, set[tuple[str, str]]]:
    """(run, figure label) of the starred differences of the shown tables, per output."""
    (b,) = result.benchmarks
    shown = {s.key: s.label for t in b.tables if not t.detail and t.rows == "run"
             for s in t.stats}
    out = {"json": {(d["run_b"], shown[d["stat"]]) for d in compare_render.to_json(result)
                    ["differences"] if d["significant"] and d["stat"] in shown}}
    console = Console(width=200, record=True)
    console.print(compare_render.render(result, 200))
    labels = compare_render.run_labels(b, 200)
    by_label = {v: k for k, v in labels.items()}
    out["terminal"] = set()
    for line in console.export_text().splitlines():
        cells = line.split()
        if len(cells) > 3 and cells[1] in by_label and re.fullmatch(r"[+-]\d+\.\d+\*",
                                                                  cells[2]):
            out["terminal"].add((by_label[cells[1]], cells[0]))
    text = markdown.comparison_markdown(result, "runs")
    out["markdown"] = {(m[1], m[2]) for m in re.finditer(
        r"^\| `([^`]+)` \| ([^|]+) \| [+-][\d.]+\* \|", text, re.M)}
    out["markdown"] = {(r, label.strip()) for r, label in out["markdown"]}
    page = tmp / "report.html"
    html.write(store, result.run_ids(), page)
    cells = re.findall(r'<td class="diff sig[^"]*" data-run="([^"]+)" data-stat="([^"]+)"',
                       page.read_text(encoding="utf-8"))
    out["html"] = {(run, shown[stat]) for run, stat in cells if stat in shown}
    return out
