"""ConceptMath's targeted improvement (paper Sec. 2.4, Table 5) on hand-made runs: the weakest
concepts of a run ranked with n, interval and the warning where their place is not established
(conceptmath_lowest_k), and Table 5 from a run before and a run after
(conceptmath_targeted), each figure computed by hand here."""
from __future__ import annotations

from pathlib import Path

import pytest

from mathprobe import runs
from mathprobe.benchmarks import conceptmath
from mathprobe.store import Store
from tests.benchmarks.conceptmath.test_views import _live_run, make_conceptmath_dir, row

# element_en: four concepts of 5 problems and one of 2 (too few to be ranked); middle_en: two
CONCEPTS = {"Cones": 5, "Spheres": 5, "Polygons": 5, "Angles": 5, "Tiny": 2}


def targeted_data(root: Path) -> Path:
    element, idx = [], 0
    for leaf, n in CONCEPTS.items():
        for _ in range(n):
            idx += 1
            element.append(row("element_en", idx, "geometry", "solids", leaf, str(idx + 10),
                               f"A question about {leaf.lower()} number {idx}?"))
    middle = [row("middle_en", i, "algebra", "eq", "Linear" if i <= 5 else "Quadratic",
                  str(i + 10)) for i in range(1, 11)]
    return make_conceptmath_dir(root, {"element_en": element, "middle_en": middle})


def ids(leaf: str) -> list[str]:
    start = 1 + sum(n for name, n in list(CONCEPTS.items())[:list(CONCEPTS).index(leaf)])
    return [f"element_en/{i}" for i in range(start, start + CONCEPTS[leaf])]


# which problems of each concept are right: before, after
BEFORE = {"Cones": [], "Spheres": [0], "Polygons": [0, 1, 2], "Angles": [0, 1, 2, 3, 4],
          "Tiny": []}
AFTER = {"Cones": [0, 1], "Spheres": [1, 2, 3, 4], "Polygons": [2, 3, 4],
         "Angles": [0, 1, 2, 3], "Tiny": [0, 1]}
MIDDLE_BEFORE = {1, 6, 7}            # Linear 1/5, Quadratic 2/5
MIDDLE_AFTER = {1, 2, 6}


def verdicts(pattern: dict[str, list[int]], middle: set[int]) -> dict[str, bool]:
    out = {iid: k in pattern[leaf] for leaf in CONCEPTS for k, iid in enumerate(ids(leaf))}
    out.update({f"middle_en/{i}": i in middle for i in range(1, 11)})
    return out


@pytest.fixture
def before_after(tmp_path: Path, db: Path):
    root = targeted_data(tmp_path / "data")
    store = Store(db)
    dataset = runs.prepare(store, conceptmath.benchmark, root)
    _live_run(store, dataset, "before", "m", "zs", verdicts(BEFORE, MIDDLE_BEFORE), "2024-01-01")
    _live_run(store, dataset, "after", "m-tuned", "zs", verdicts(AFTER, MIDDLE_AFTER),
              "2024-02-01")
    return store, root


def test_weakest_concepts_ranked_with_n_interval_and_warning(before_after):
    store, _ = before_after
    got = store.query_dicts(
        "SELECT system, rank, concept, n, correct, accuracy, ci_low, ci_high, next_accuracy, "
        "uncertain, n_eligible, n_too_few FROM conceptmath_lowest_k(2) WHERE run_id = 'before' "
        "AND grader = 'official' ORDER BY system, rank")
    assert [(r["system"], r["rank"], r["concept"], r["n"], r["correct"]) for r in got] == [
        ("element_en", 1, "geometry/solids/Cones", 5, 0),
        ("element_en", 2, "geometry/solids/Spheres", 5, 1),
        ("middle_en", 1, "algebra/eq/Linear", 5, 1),
        ("middle_en", 2, "algebra/eq/Quadratic", 5, 2)]
    cones, spheres, linear, quadratic = got
    # Wilson 95%: 0 of 5 -> [0, z^2 / (5 + z^2)]; 1 of 5 -> (1 + z^2/2 +- z sqrt(4/5 + z^2/4))
    # / (5 + z^2)
    z = 1.959963984540054
    assert cones["ci_low"] == 0 and cones["ci_high"] == pytest.approx(z * z / (5 + z * z))
    half = z * (4 / 5 + z * z / 4) ** 0.5 / (5 + z * z)
    assert spheres["ci_low"] == pytest.approx((1 + z * z / 2) / (5 + z * z) - half)
    assert spheres["ci_high"] == pytest.approx((1 + z * z / 2) / (5 + z * z) + half)
    # the first concept outside the 2 weakest: Polygons at 3/5. Cones' interval stays below it
    # (its place is established), Spheres' reaches it (0.62 >= 0.6: it may belong outside)
    assert cones["next_accuracy"] == spheres["next_accuracy"] == pytest.approx(0.6)
    assert (cones["uncertain"], spheres["uncertain"]) == (False, True)
    # Tiny (2 problems) is never ranked: counted as too few
    assert (cones["n_eligible"], cones["n_too_few"]) == (4, 1)
    # middle_en has only the two: nothing outside them, no warning from a next concept
    assert linear["next_accuracy"] is None and not quadratic["uncertain"]


def test_table5_from_two_runs_equals_the_hand_computation(before_after):
    store, _ = before_after
    rows = store.query_dicts("SELECT * FROM conceptmath_targeted('before', 'after', 2) "
                             "WHERE system = 'element_en' ORDER BY ord")
    shown = [(r["row"], r["before_acc"], r["after_acc"]) for r in rows]
    assert shown == [
        ("Cones", 0.0, 0.4),
        ("Spheres", 0.2, 0.8),
        ("Avg Acc. (over 2 concepts)", pytest.approx(0.1), pytest.approx(0.6)),
        # every level-3 concept both runs graded, Tiny included: means of concept accuracies
        ("Avg Acc. (over 5 concepts)", pytest.approx((0 + .2 + .6 + 1 + 0) / 5),
         pytest.approx((.4 + .8 + .6 + .8 + 1) / 5)),
        ("Overall Acc.", pytest.approx(9 / 22), pytest.approx(15 / 22)),
    ]
    cones, spheres, weak, every, overall = rows
    assert (cones["before_n"], cones["before_correct"], cones["after_correct"]) == (5, 0, 2)
    assert cones["concept"] == "geometry/solids/Cones" and cones["kind"] == "concept"
    # McNemar's counts over the problems both graded: right before only / after only
    assert (cones["only_before"], cones["only_after"], cones["n_paired"]) == (0, 2, 5)
    assert (spheres["only_before"], spheres["only_after"]) == (1, 4)
    assert (weak["only_before"], weak["only_after"], weak["n_paired"]) == (1, 6, 10)
    # all 22: Polygons 2 lost (0, 1) and 2 gained (3, 4); Angles 1 lost; Tiny 2 gained
    assert (overall["only_before"], overall["only_after"], overall["n_paired"]) == (4, 10, 22)
    assert every["n_concepts"] == 5 and weak["n_concepts"] == 2
    assert (overall["before_n"], overall["before_correct"], overall["after_correct"]) == \
        (22, 9, 15)
    # intervals: Wilson for a concept and overall, none for a mean of concept accuracies
    assert cones["before_low"] == 0 and cones["after_low"] < 0.4 < cones["after_high"]
    assert weak["before_low"] is None and overall["after_low"] < 15 / 22 < overall["after_high"]
    middle = store.query("SELECT row, before_acc, after_acc FROM conceptmath_targeted("
                         "'before', 'after', 2) WHERE system = 'middle_en' ORDER BY ord")
    assert middle == [("Linear", 0.2, 0.4), ("Quadratic", 0.4, 0.2),
                      ("Avg Acc. (over 2 concepts)", pytest.approx(0.3), pytest.approx(0.3)),
                      ("Avg Acc. (over 2 concepts)", pytest.approx(0.3), pytest.approx(0.3)),
                      ("Overall Acc.", pytest.approx(0.3), pytest.approx(0.3))]


def test_the_weakest_concepts_in_the_report_json_terminal_markdown_and_html(
        before_after, tmp_path, monkeypatch):
    """The ranking is declared once (ConceptMathComparison.rankings) and drawn by every output.
    (The reports rank 10; here 2 of the 4 concepts, so that one is outside.)"""
    from rich.console import Console

    from mathprobe import reports
    from mathprobe.benchmarks.conceptmath import figures
    from mathprobe.reports import html, markdown

    store, root = before_after
    report = reports.build(store, "before")
    element = next(k for k in report["rankings"] if k["key"] == "weakest:element_en")
    assert len(element["entries"]) == 4 and not any(e["warning"] for e in element["entries"])
    monkeypatch.setattr(figures, "N_UNMASTERED", 2)
    report = reports.build(store, "before")
    element = next(k for k in report["rankings"] if k["key"] == "weakest:element_en")
    assert [(e["rank"], e["label"], e["n"], e["count"]) for e in element["entries"]] == [
        (1, "geometry/solids/Cones", 5, 0), (2, "geometry/solids/Spheres", 5, 1)]
    assert [bool(e["warning"]) for e in element["entries"]] == [False, True]
    assert "1 concept(s) with fewer than 5 graded problems left out" in element["note"]
    console = Console(width=160, record=True)
    reports.print_report(report, console)
    text = console.export_text()
    assert "Weakest concepts, Elementary-EN: the 2 lowest of 4 level-3 concepts" in text
    flat = " ".join(text.replace("│", " ").split())
    assert "2! geometry/solids/Spheres" in flat and "reaches 60.00%, the accuracy of" in flat
    md, _ = markdown.run_markdown(store, report)
    assert "| 1 | geometry/solids/Cones | 0.00% | [0.00, 43.45] | 5 |" in md
    page = tmp_path / "r.html"
    html.write(store, ["before", "after"], page, data_dir=root)
    body = page.read_text()
    assert body.count('<table class="extra ranking" data-ranking="weakest:element_en"') == 2
    assert "its place among them is not established" in body


def test_compare_baseline_shows_table5_with_mcnemar(before_after, db, tmp_path):
    """`compare --baseline before after`: the targeted-improvement section (Table 5) with the
    exact McNemar p-value of each row; the HTML report shows it too."""
    import json

    from scipy.stats import binomtest
    from typer.testing import CliRunner

    from mathprobe.cli.main import app
    from mathprobe.reports import html

    store, root = before_after
    page = tmp_path / "r.html"
    html.write(store, ["before", "after"], page, data_dir=root)
    store.close()
    out = CliRunner().invoke(app, ["compare", "--db", str(db), "after", "--baseline", "before",
                                   "--json"])
    assert out.exit_code == 0, out.output
    sections = [s for s in json.loads(out.stdout)["sections"]
                if s["title"].startswith("Targeted improvement")]
    assert [s["title"] for s in sections] == [
        "Targeted improvement (paper Table 5): before -> after"]
    rows = {(r[0], r[1]): r for r in sections[0]["rows"]}
    cones = rows[("Elementary-EN", "Cones")]
    assert cones[2].startswith("0.00 [0.00, 43.45]") and cones[3].startswith("40.00")
    assert cones[4] == "+40.00" and cones[6] == "0 / 2 of 5"
    assert cones[7] == f"{binomtest(0, 2, 0.5).pvalue:.3f}"                # 0.500
    overall = rows[("Elementary-EN", "Overall Acc.")]
    assert overall[6] == "4 / 10 of 22" and overall[7] == f"{binomtest(4, 14, 0.5).pvalue:.3f}"
    # compare ranks the paper's 10: here all 4 eligible concepts are the weakest
    assert rows[("Elementary-EN", "Avg Acc. (over 4 concepts)")][2] == "45.00"
    # the first run named is the baseline without --baseline: after -> before
    out = CliRunner().invoke(app, ["compare", "--db", str(db), "after", "before", "--json"])
    titles = [s["title"] for s in json.loads(out.stdout)["sections"]]
    assert "Targeted improvement (paper Table 5): after -> before" in titles
    assert "Targeted improvement (paper Table 5): before -&gt; after" in page.read_text()
