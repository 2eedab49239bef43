"""The authors' CMMaTH figures (their tool/statics_acc.py) from a judged result file in their
format (`output_correct` Yes/No): imported as grader `authors_judge`, the views
cmmath_official_scores / cmmath_official_ssr give what their script computes on that file, here
recomputed from their logic by `authors_statics` below."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from mathprobe import reports, runs
from mathprobe.benchmarks import cmmath
from mathprobe.errors import DataError
from mathprobe.reports import terminal
from mathprobe.store import Store
from tests.benchmarks.cmmath.test_data import make_cmmath_dir, record
from tests.support.report import figure

# Their script's groups, in its order.
SUBJECTS = ["Flow Chart", "Bar Chart", "Scatter Plot", "Line Plot", "Fan Chart", "LiDAR Chart",
            "Visual-Table", "Three View", "Folded Image", "Analytic Geometry", "Solid Geometry",
            "Plane Geometry", "Venn diagram", "Abtract Analogy diagram", "UnKnown"]
GRADES = [*range(1, 13), "UnKnown"]
TYPES = ["choice", "free_form", "single_choice", "multi_choice", "UnKnown"]


def _groups(rows, keys, label):
    """statics_acc's per-group scores and its total, for one labelling of the records."""
    count, right = Counter(), Counter()
    for r in rows:
        key = label(r)
        count[key if key in keys else "UnKnown"] += 1
        if key in keys and r["output_correct"] == "Yes":
            right[key] += 1
    scores = {k: round(right[k] / (count[k] + 1) * 100, 1) for k in keys}
    return scores, round(sum(right.values()) / sum(count.values()) * 100, 1)


def _qtype(r):
    if r["answer_type"] == "choice":
        return "single_choice" if r["answer"] in {"A\n", "B\n", "C\n", "D\n"} else "multi_choice"
    return r["answer_type"]


def _point(text):
    """Their SSR point: walk the brackets; at the first ')' take the text between the '(' it
    closes and the nearest '(' before that ('' without one); raise where the walk fails."""
    stack = []
    for i, ch in enumerate(text):
        if ch == "(":
            stack.append(i)
        elif ch == ")":
            if not stack:
                raise ValueError("unmatched")
            start = stack.pop()
            before = text.rfind("(", 0, start)
            return text[before + 1:start] if before >= 0 else ""
    raise ValueError("no bracket")


def authors_statics(rows):
    """What statics_acc.py computes from a judged result file's records."""
    out = {"subject": _groups(rows, SUBJECTS, lambda r: r["metadata"]["multimodal-category"]),
           "grade_id": _groups(rows, GRADES, lambda r: r["grade_id"]),
           "question_type": _groups(rows, TYPES, _qtype)}
    counts, right = Counter(), Counter()
    for r in rows:
        if r["knowledge_point"] is None:
            continue
        try:
            p = _point(r["knowledge_point"])
        except ValueError:
            continue
        counts[p] += 1
        right[p] += r["output_correct"] == "Yes"
    rates = {p: right[p] / (counts[p] + 1) for p in counts}
    ssr = {a: sum(v > a for v in rates.values()) / len(counts)
           for a in (0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)}
    overall = round(sum(r["output_correct"] == "Yes" for r in rows) / len(rows) * 100, 1)
    return out, ssr, overall


def judged_records() -> list[dict]:
    """A result set with the cases that tell the two definitions apart: a subject outside
    their list, grade groups of 15 with 1 right (6.25 -> 6.2 as Python rounds), multi-answer
    and '暂无' choices, knowledge points their walk gives '' or skips, a point with rate
    exactly 0.1 (1 right of 9: not above 0.1)."""
    rows = []
    def add(pid, verdict, **kw):
        rows.append({**record(pid, **kw), "model_response": f"答案：{pid}", "output_correct": verdict})
    for k in range(15):                                     # grade 7: 1 right of 15
        add(f"g7-{k:02d}", "Yes" if k == 0 else "No", grade_id=7, category="Plane Geometry",
            knowledge_point="几何(三角形(全等))")
    for k in range(9):                                      # point 统计图表: 1 right of 9
        add(f"st-{k}", "Yes" if k == 0 else "No", grade_id=12, category="Bar Chart",
            answer_type="choice", answer="C", knowledge_point="统计(统计图表(茎叶图))")
    add("pie-1", "Yes", grade_id=11, category="Pie Chart", knowledge_point="统计(扇形图)")
    add("pie-2", "No", grade_id=11, category="Pie Chart", knowledge_point=None)
    add("mc-1", "Yes", grade_id=10, category="Venn diagram", answer_type="choice",
        answer="A\nC", knowledge_point="集合(交集,并集)")
    add("na-1", "Yes", grade_id=10, category="Venn diagram", answer_type="choice",
        answer="暂无", knowledge_point="集合")                # no bracket: skipped by the walk
    add("ab-1", "Yes", grade_id=3, category="Abtract Analogy diagram", knowledge_point=None,
        skill="推理能力")
    add("fc-1", "Yes", grade_id=1, category="Flow Chart", knowledge_point="算法(程序框图)")
    add("fc-2", "Yes", grade_id=1, category="Flow Chart", knowledge_point="算法(程序框图)")
    return rows


@pytest.fixture
def judged(tmp_path: Path) -> tuple[Path, Path, list[dict]]:
    rows = judged_records()
    records = [{k: v for k, v in r.items() if k not in ("model_response", "output_correct")}
               for r in rows]
    root = make_cmmath_dir(tmp_path / "data", records)
    cmmath.load.cache_clear()
    # their result files: the records (as loaded back from cmmath.json) plus the two fields
    loaded = json.loads((root / "cmmath" / "cmmath.json").read_text(encoding="utf-8"))
    result = [{**rec, "model_response": r["model_response"], "output_correct": r["output_correct"]}
              for rec, r in zip(loaded, rows)]
    path = tmp_path / "gpt4_correct_report_0.json"
    path.write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")
    return root, path, result


def test_the_authors_figures_from_their_logic(judged, db):
    root, path, result = judged
    store = Store(db)
    counts = runs.import_official(store, cmmath.benchmark, root, path, "authors")
    assert counts["imported_authors_judge"] == len(result)
    groups, ssr, overall = authors_statics(result)
    got = {(b, k): (n, c, s) for b, k, n, c, s in store.query(
        "SELECT breakdown, key, n, correct, score FROM cmmath_official_scores "
        "WHERE run_id = 'authors' AND grader = 'authors_judge'")}
    assert got[("overall", "all")][2] == overall
    for breakdown, (scores, total) in groups.items():
        assert {k: got[(breakdown, str(k))][2] for k in scores} == scores, breakdown
        assert got[(breakdown, "(total)")][2] == total
    # the cases that matter, spelled out
    assert got[("grade_id", "7")] == (15, 1, 6.2)           # 1/16 = 6.25: Python rounds to 6.2
    assert got[("subject", "UnKnown")] == (2, 0, 0.0)       # Pie Chart: counted, never right
    assert got[("subject", "Flow Chart")] == (2, 2, 66.7)    # 2 of 2 right scores 66.7
    assert got[("question_type", "choice")] == (0, 0, 0.0)
    assert got[("question_type", "single_choice")][0] == 9
    assert got[("question_type", "multi_choice")][0] == 2   # "A\nC\n" and "暂无\n"
    assert got[("subject", "(total)")][2] < overall         # Pie Chart's right answer not counted
    official = dict(store.query("SELECT alpha, ssr FROM cmmath_official_ssr "
                                "WHERE run_id = 'authors' AND grader = 'authors_judge'"))
    assert official == pytest.approx(ssr, abs=0)
    (n_points,), = set(store.query("SELECT n_points FROM cmmath_official_ssr WHERE run_id = "
                                   "'authors' AND grader = 'authors_judge'"))
    assert n_points == 3            # 三角形, 统计图表 and '' (no '(' before the innermost)
    points = dict(store.query("SELECT item_id, official_point FROM cmmath_items"))
    assert points["g7-00"] == "三角形" and points["st-0"] == "统计图表" and points["pie-1"] == ""
    assert points["mc-1"] == "" and points["na-1"] is None and points["ab-1"] is None
    assert points["pie-2"] is None and points["fc-1"] == ""


def test_the_paper_figures_beside_them(judged, db):
    """The same verdicts under the paper's definitions: plain accuracies."""
    root, path, result = judged
    store = Store(db)
    runs.import_official(store, cmmath.benchmark, root, path, "authors")
    (n, correct, acc), = store.query("SELECT n, correct, accuracy FROM cmmath_paper_accuracy "
                                     "WHERE run_id = 'authors' AND grader = 'authors_judge' "
                                     "AND answer_type = 'all'")
    yes = sum(r["output_correct"] == "Yes" for r in result)
    assert (n, correct) == (len(result), yes) and acc == pytest.approx(yes / len(result))
    (fc,), = store.query("SELECT accuracy FROM cmmath_paper_category_accuracy WHERE run_id = "
                         "'authors' AND grader = 'authors_judge' AND category = 'Flow Chart'")
    assert fc == 1.0                 # the authors' 66.7 for the same two right answers


def test_report_of_an_authors_judged_import(judged, db):
    root, path, _ = judged
    store = Store(db)
    runs.import_official(store, cmmath.benchmark, root, path, "authors")
    rep = reports.build(store, "authors")
    assert rep["grader"] == "authors_judge"                  # the file's verdicts by default
    assert "none undecided" in rep["notes"][0]
    grade7 = figure(rep, "official:grade_id:7")                  # 1 right of 15, their 6.2
    assert (grade7["n"], grade7["count"], grade7["value"]) == (15, 1, pytest.approx(1 / 16))
    rules = reports.build(store, "authors", grader="rules")  # ours on the same answers
    assert rules["grader"] == "rules"
    from rich.console import Console

    console = Console(width=200, record=True)
    console.print(reports.render(rep, 200))
    text = console.export_text()
    assert "Table 4 (paper)" in text and "the authors' scores" in text
    assert "count + 1" in text and "6.2" in text and "authors_judge" in text
    figs = dict(terminal.flat(rep))
    assert figs["grade 7"] == "6.2 (1)" and figs["CMMaTH, the authors' scores (statics_acc.py): "
                                             "overall and question types: Overall"]


def test_a_verdict_other_than_yes_or_no_is_left_out_and_listed(judged):
    root, path, result = judged
    result[1]["output_correct"] = "yes"
    path.write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")
    got = cmmath.read_official_results(path, cmmath.load(root))
    (skipped,) = got.skipped
    assert skipped.row == 2 and "'Yes' or 'No'" in skipped.reason
    assert len(got.rows) == len(result) - 1


@pytest.mark.parametrize("mutate, row, message", [
    (lambda rows: rows[2].pop("output_correct"), 3, "lacks the judge's verdict"),
    (lambda rows: rows[0].pop("output_correct"), 2, "has the judge's verdict"),
])
def test_bad_judged_files(judged, mutate, row, message):
    root, path, result = judged
    mutate(result)
    path.write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(DataError, match=message) as exc:
        cmmath.read_official_results(path, cmmath.load(root))
    assert (exc.value.row, exc.value.field) == (row, "output_correct")


def test_reimporting_the_judged_file_adds_nothing(judged, db):
    root, path, result = judged
    store = Store(db)
    runs.import_official(store, cmmath.benchmark, root, path, "authors")
    again = runs.import_official(store, cmmath.benchmark, root, path, "authors")
    assert again["new"] == 0
    assert store.query("SELECT count(*) FROM verdicts WHERE run_id = 'authors' AND "
                       "grader = 'authors_judge'") == [(len(result),)]
