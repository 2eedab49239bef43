"""CMMaTH's views, the paper's definitions, against hand-computed figures on a hand-made data
set: accuracy over all answers (the undecided counted, shown apart) by answer type, grade group
and visual subject, per knowledge point, SSR@alpha, coverage; stored and graded through the
real Store and mathprobe.runs. The authors' figures: test_official.py."""
from pathlib import Path

import pytest

from mathprobe import reports, runs
from mathprobe.benchmarks import cmmath
from mathprobe.items import Completion
from mathprobe.reports import terminal
from mathprobe.reports.format import fmt_value
from mathprobe.store import Store
from tests.benchmarks.cmmath.test_data import make_cmmath_dir, record, results_file
from tests.support.report import figure, value

# (id, answer_type, grade_id, category, knowledge_point, skill, gold, response, rules' verdict)
QUESTIONS = [
    ("q01", "choice", 12, "Bar Chart", "统计(统计图表(茎叶图,频率分布直方图))", None,
     "C", "故选：C", True),
    ("q02", "choice", 11, "Bar Chart", "统计(统计图表(频率分布直方图))", None,
     "A\nC", "答案：C", False),
    ("q03", "free_form", 8, "Plane Geometry", "三角形(全等三角形(全等三角形的判定(SAS,AAS)))", None,
     "$$60{}^\\circ $$", "所以∠ABC = 60°。", True),
    ("q04", "free_form", 8, "Plane Geometry", "三角形(全等三角形(全等三角形的判定(SAS)),勾股定理)",
     "推理论证能力", "$$\\frac{1}{2}$$", "答案：0.5", True),
    ("q05", "choice", 3, "Flow Chart", None, "运算能力", "B", "故选：A", False),
    ("q06", "free_form", 10, "Flow Chart", "算法(程序框图)", None,
     "$$2\\sqrt{3}$$", "答案：$$\\sqrt{12}$$", True),
    ("q07", "free_form", 12, "Bar Chart", "统计(统计图表(茎叶图))", None,
     "$$5$$", "答案：我认为可能是五", None),                       # the rules cannot read it
    ("q08", "free_form", 5, "Venn diagram", "集合(集合的基本运算(交集,并集,交集))", None,
     "$$\\left\\{ 1,2 \\right\\}$$", "答案：$$\\{2, 1\\}$$", True),
    ("q09", "choice", 9, "Venn diagram", "集合(集合的基本运算(交集))", None,
     "D", "答案：A、D", False),
    ("q10", "free_form", 12, "Solid Geometry", "立体几何（初步）(三视图（含直观图）,体积)", None,
     "$$3\\pi $$", "答案：9", False),
    ("q11", "free_form", 7, "Line Plot", "数列(等差数列)", None, "$$7$$", "答案：7", True),
    *[(f"q1{k}", "free_form", 7, "Line Plot", "数列(等差数列)", None, "$$7$$", "答案：8", False)
      for k in range(2, 6)],
]


@pytest.fixture
def hand_made(tmp_path: Path) -> tuple[Path, Path]:
    rows = [record(pid, answer_type=t, grade_id=g, category=cat, knowledge_point=kp, skill=sk,
                   answer=gold) for pid, t, g, cat, kp, sk, gold, _, _ in QUESTIONS]
    root = make_cmmath_dir(tmp_path / "data", rows)
    cmmath.load.cache_clear()
    results = results_file(tmp_path / "results.json", root,
                           {pid: resp for pid, *_, resp, _ in QUESTIONS})
    return root, results


def imported(db: Path, root: Path, results: Path, run_id: str = "hand") -> Store:
    store = Store(db)
    runs.import_official(store, cmmath.benchmark, root, results, run_id)
    return store


def test_verdicts_are_as_designed(hand_made, db):
    store = imported(db, *hand_made)
    got = dict(store.query("SELECT item_id, correct FROM cmmath_answers "
                           "WHERE run_id = 'hand' AND grader = 'rules'"))
    want = {pid: v for pid, *_, v in QUESTIONS}
    assert got == want                   # q07 undecided: an answer with no verdict (NULL)
    (n_answers, n_decided, n_undecided, coverage), = store.query(
        "SELECT n_answers, n_decided, n_undecided, coverage FROM cmmath_coverage "
        "WHERE run_id = 'hand' AND grader = 'rules'")
    assert (n_answers, n_decided, n_undecided) == (15, 14, 1)
    assert coverage == pytest.approx(14 / 15)


def test_accuracy_is_over_all_answers(hand_made, db):
    """The undecided answer (q07, free-form) is in n, not in correct: accuracy is never over
    the decided answers only; accuracy_max is the figure were it right."""
    store = imported(db, *hand_made)
    rows = {r[0]: r[1:] for r in store.query(
        "SELECT answer_type, n, n_undecided, correct, accuracy, accuracy_max "
        "FROM cmmath_paper_accuracy WHERE run_id = 'hand'")}
    assert rows["all"][:3] == (15, 1, 6) and rows["all"][3] == pytest.approx(6 / 15)
    assert rows["all"][4] == pytest.approx(7 / 15)
    assert rows["choice"][:3] == (4, 0, 1) and rows["choice"][3] == pytest.approx(1 / 4)
    assert rows["free_form"][:3] == (11, 1, 5) and rows["free_form"][3] == pytest.approx(5 / 11)


def test_grade_and_category_accuracy(hand_made, db):
    store = imported(db, *hand_made)
    grades = {g: (n, u, c) for g, n, u, c in store.query(
        "SELECT grade_group, n, n_undecided, correct FROM cmmath_paper_grade_accuracy "
        "WHERE run_id = 'hand'")}
    # elementary: q05 F, q08 T; junior: q03 T, q04 T, q09 F, q11 T, q12-q15 F;
    # senior: q01 T, q02 F, q06 T, q07 undecided, q10 F
    assert grades == {1: (2, 0, 1), 2: (8, 0, 3), 3: (5, 1, 2)}
    cats = {c: (n, k, a) for c, n, k, a in store.query(
        "SELECT category, n, correct, accuracy FROM cmmath_paper_category_accuracy "
        "WHERE run_id = 'hand'")}
    assert {c: v[:2] for c, v in cats.items()} == {
        "Bar Chart": (3, 1), "Plane Geometry": (2, 2), "Flow Chart": (2, 1),
        "Venn diagram": (2, 1), "Solid Geometry": (1, 0), "Line Plot": (5, 1)}
    assert cats["Line Plot"][2] == pytest.approx(0.2)
    assert cats["Bar Chart"][2] == pytest.approx(1 / 3)


def test_point_accuracy_counts_a_question_for_each_leaf(hand_made, db):
    store = imported(db, *hand_made)
    points = {p: (n, c) for p, n, c in store.query(
        "SELECT point, n, correct FROM cmmath_paper_point_accuracy WHERE run_id = 'hand'")}
    assert points == {
        "茎叶图": (2, 1),                 # q01 T, q07 undecided (counted, not right)
        "频率分布直方图": (2, 1),          # q01 T, q02 F
        "SAS": (2, 2), "AAS": (1, 1),     # q03 has both, q04 has SAS
        "勾股定理": (1, 1),               # q04 (its skill is not used: it has knowledge points)
        "运算能力": (1, 0),               # q05: no knowledge_point, so its skill
        "程序框图": (1, 1),
        "交集": (2, 1), "并集": (1, 1),    # q08 lists 交集 twice: counted once
        "三视图（含直观图）": (1, 0), "体积": (1, 0),   # full-width brackets inside names
        "等差数列": (5, 1),               # accuracy 0.2 exactly
    }


def test_ssr_is_strictly_greater_than_alpha(hand_made, db):
    """Point accuracies: 1 x 5 (SAS, AAS, 勾股定理, 程序框图, 并集), 0.5 x 3 (茎叶图,
    频率分布直方图, 交集), 0.2, 0 x 3 -> of 12 points, > 0.1: 9; > 0.2: 8 (0.2 itself is not
    counted); > 0.3: 8; > 0.6: 5."""
    store = imported(db, *hand_made)
    ssr = {round(a, 1): (n, s) for a, n, s in store.query(
        "SELECT alpha, n_points, ssr FROM cmmath_paper_ssr WHERE run_id = 'hand' AND grader = 'rules'")}
    assert set(ssr) == {0.1, 0.2, 0.3, 0.6}
    assert all(n == 12 for n, _ in ssr.values())
    assert ssr[0.1][1] == pytest.approx(9 / 12)
    assert ssr[0.2][1] == pytest.approx(8 / 12)
    assert ssr[0.3][1] == pytest.approx(8 / 12)
    assert ssr[0.6][1] == pytest.approx(5 / 12)


def test_a_judge_verdict_fills_in_the_undecided(hand_made, db):
    """A later stage writes its verdicts under its own grader name; the rules' figures stay."""
    store = imported(db, *hand_made)
    rid = store.query("SELECT response_id FROM current_responses WHERE run_id = 'hand' "
                      "AND item_id = 'q07'")[0][0]
    store.write_verdicts("hand", "judge", [("q07", rid, "五", True)])
    (n, u, c), = store.query("SELECT n, n_undecided, correct FROM cmmath_paper_accuracy "
                             "WHERE run_id = 'hand' AND grader = 'judge' AND answer_type = 'all'")
    assert (n, u, c) == (15, 14, 1)
    (n, u, c), = store.query("SELECT n, n_undecided, correct FROM cmmath_paper_accuracy "
                             "WHERE run_id = 'hand' AND grader = 'rules' AND answer_type = 'all'")
    assert (n, u, c) == (15, 1, 6)
    cov = dict(store.query("SELECT grader, n_undecided FROM cmmath_coverage "
                           "WHERE run_id = 'hand'"))
    assert cov == {"rules": 1, "judge": 14}


def test_missing_response_is_wrong_and_failed_call_is_left_out(hand_made, db, tmp_path):
    root, _ = hand_made
    results = results_file(tmp_path / "part.json", root, {"q01": None, "q11": "答案：7"})
    store = imported(db, root, results, run_id="part")
    assert dict(store.query("SELECT item_id, correct FROM cmmath_answers "
                            "WHERE run_id = 'part'")) == {"q01": False, "q11": True}
    store.append_responses("part", [("q02", "h", Completion(text=None, status="infra_failed",
                                                            error="HTTP 503"))])
    (n,), = store.query("SELECT n FROM cmmath_paper_accuracy WHERE run_id = 'part' "
                        "AND answer_type = 'all'")
    assert n == 2
    (n_answers,), = store.query("SELECT n_answers FROM cmmath_coverage WHERE run_id = 'part'")
    assert n_answers == 2


def test_reimport_adds_nothing(hand_made, db):
    root, results = hand_made
    store = imported(db, root, results)
    again = runs.import_official(store, cmmath.benchmark, root, results, "hand")
    # nothing new; only the answer the rules left undecided (q07) is looked at again
    assert again["new"] == 0 and again["graded_rules"] == 1
    assert store.query("SELECT count(correct) FROM cmmath_answers")[0][0] == 14


def test_report(hand_made, db):
    store = imported(db, *hand_made)
    rep = reports.build(store, "hand")
    assert rep["grader"] == "rules"
    assert rep["notes"][0].startswith("grader 'rules': decided 14 of 15 answers (coverage "
                                      "93.33%); 1 undecided, counted as not right")
    assert figure(rep, "all", "table4")["value"] == pytest.approx(6 / 15)
    assert [f["label"] for f in rep["tables"][0]["figures"]] == [
        "Overall", "Choice", "Free-form", "Elementary", "Junior", "Senior"]
    assert figure(rep, "ssr@0.6")["value"] == pytest.approx(5 / 12)
    figs = dict(terminal.flat(rep))          # the sweep's (figure, value) pairs
    assert figs["CMMaTH Table 4 (paper): accuracy overall, by answer type and grade group: "
                "Overall"] == "40.00 (6)"
    assert figs["Choice"] == "25.00 (1)" and figs["Free-form"] == "45.45 (5)"
    assert figs["Elementary"] == "50.00 (1)"
    # a label two tables share is named with its table's title
    assert figs["CMMaTH accuracy by visual subject (paper): Line Plot"] == "20.00 (1)"
    assert figs["CMMaTH, the authors' scores by visual subject: Line Plot"] == "16.7 (1)"
    assert figure(rep, "ssr@0.2")["value"] == pytest.approx(2 / 3)
    assert value(rep, "official:overall") == pytest.approx(6 / 15)       # their 40.0
    assert fmt_value(value(rep, "official:subject:Line Plot"), "percent1") == "16.7"  # 1 / (5 + 1)
    from rich.console import Console

    for width in (160, 60):
        console = Console(width=width, record=True)
        console.print(reports.render(rep, width))
        text = " ".join(console.export_text().split())
        assert "rules" in text and "1 undecided, counted as not right" in text
        assert "--judge" in text and "SSR@0.6" in text and "Venn diagram" in text
        assert "would be 46.67% instead of 40.00%" in text
        assert "Table 4 (paper)" in text and "the authors' scores" in text
