"""Four-dimensional metric, step and category accuracy on hand-made problems (hand-computed)."""
import json
from pathlib import Path

import pytest

from mathprobe import runs
from mathprobe.benchmarks import wemath
from mathprobe.store import Store
from tests.benchmarks.wemath.helpers import make_wemath_dir, responses_for
from tests.support.report import figure

# Seven problems; the comment gives the class under the strict / loose rule.
PROBLEMS = {  # subs..., multi
    "2steps_1": [True, True, True],          # CM / CM
    "2steps_2": [True, False, True],         # RM / CM
    "2steps_3": [False, False, True],        # RM / RM
    "3steps_1": [True, True, True, False],   # IG / IG
    "3steps_2": [False, True, False, False], # IK / IK
    "3steps_3": [False, False, False, False],# IK / IK
    "3steps_4": [True, False, True, True],   # RM / CM
}


def concepts(pid: str, n_subs: int) -> list[str]:
    # One-step questions: 'Leaf One' thrice in 3steps_1 and once in 2steps_1, 'Leaf Two' on the
    # second question of 2steps_1, everything else 'Leaf Three'.
    table = {"2steps_1": ["Leaf One", "Leaf Two"], "3steps_1": ["Leaf One"] * 3}
    subs = table.get(pid, ["Leaf Three"] * n_subs)
    return subs + [";".join(dict.fromkeys(subs))]


@pytest.fixture
def hand_made(tmp_path: Path) -> tuple[Path, Path]:
    spec = {pid: {"gold": ["A"] * len(c), "concepts": concepts(pid, len(c) - 1)}
            for pid, c in PROBLEMS.items()}
    root = make_wemath_dir(tmp_path / "data", spec)
    wemath.load.cache_clear()
    results = tmp_path / "results.json"
    results.write_text(json.dumps(responses_for(root, PROBLEMS)))
    return root, results


def imported(db: Path, root: Path, results: Path, run_id: str = "hand") -> Store:
    store = Store(db)
    runs.import_official(store, wemath.benchmark, root, results, run_id)
    return store


def test_strict_and_loose_rules(hand_made, db):
    store = imported(db, *hand_made)
    rows = {r["rule"]: r for r in store.query_dicts(
        "SELECT * FROM wemath_four_dimensional WHERE run_id = 'hand'")}
    s, lo = rows["strict"], rows["loose"]
    assert (s["n"], s["ik"], s["ig"], s["cm"], s["rm"]) == (7, 2, 1, 1, 3)
    assert (lo["n"], lo["ik"], lo["ig"], lo["cm"], lo["rm"]) == (7, 2, 1, 3, 1)
    assert s["ik_rate"] == pytest.approx(2 / 7) and s["cm_rate"] == pytest.approx(1 / 7)
    assert s["rm_rate"] == pytest.approx(3 / 4) and lo["rm_rate"] == pytest.approx(1 / 4)
    assert s["score"] == pytest.approx((0.5 * 1 + 1) / 7)
    assert lo["score"] == pytest.approx((0.5 * 1 + 3) / 7)
    assert s["grader"] == "official"


def test_score_weights_are_parameters(hand_made, db):
    store = imported(db, *hand_made)
    (score,), = store.query("SELECT score FROM wemath_four_dimensional_scored(alpha := 0.2, "
                            "beta := 0.6) WHERE run_id = 'hand' AND rule = 'strict'")
    assert score == pytest.approx((0.2 * 2 + 0.6 * 1 + 1) / 7)


def test_step_and_category_accuracy(hand_made, db):
    store = imported(db, *hand_made)
    (s1, s2, s3), = store.query("SELECT s1, s2, s3 FROM wemath_step_accuracy")
    assert s1 == pytest.approx(9 / 18)     # one-step questions right: 2+1+0+3+1+0+2
    assert s2 == pytest.approx(3 / 3)
    assert s3 == pytest.approx(1 / 4)
    concept = {r[0]: (r[1], r[2]) for r in store.query(
        "SELECT concept, n, correct FROM wemath_concept_accuracy")}
    assert concept == {"Leaf One": (4, 4), "Leaf Two": (1, 1), "Leaf Three": (13, 4)}
    cats = dict(store.query("SELECT category, accuracy FROM wemath_category_accuracy"))
    # Cat A is the unweighted mean of its leaves (1.0 and 1.0); Cat B has one leaf.
    assert cats == pytest.approx({"Cat A": 1.0, "Cat B": 4 / 13})


def test_macro_average_over_leaves(tmp_path, db):
    # Leaf One: 1 of 3 right; Leaf Two: 1 of 1 right -> category 2/3 (micro would be 1/2).
    spec = {"3steps_1": {"gold": ["A"] * 4, "concepts": ["Leaf One"] * 3 + ["Leaf One"]},
            "2steps_1": {"gold": ["A"] * 3, "concepts": ["Leaf Two", "Leaf Three",
                                                         "Leaf Two;Leaf Three"]}}
    correct = {"3steps_1": [True, False, False, False], "2steps_1": [True, False, False]}
    root = make_wemath_dir(tmp_path / "d", spec)
    wemath.load.cache_clear()
    results = tmp_path / "r.json"
    results.write_text(json.dumps(responses_for(root, correct)))
    store = imported(db, root, results)
    (acc,), = store.query("SELECT accuracy FROM wemath_category_accuracy WHERE category='Cat A'")
    assert acc == pytest.approx((1 / 3 + 1) / 2)


def test_subset_of_problems_takes_n_from_the_data(hand_made, db, tmp_path):
    root, results = hand_made
    rows = json.loads(results.read_text())
    subset = [r for r in rows if r["ID"] in ("2steps_2", "3steps_1", "3steps_2")]
    part = tmp_path / "subset.json"
    part.write_text(json.dumps(subset))
    store = imported(db, root, part, run_id="subset")
    s = store.query_dicts("SELECT * FROM wemath_four_dimensional WHERE rule = 'strict'")[0]
    assert (s["n"], s["ik"], s["ig"], s["cm"], s["rm"]) == (3, 1, 1, 0, 1)
    assert s["score"] == pytest.approx(0.5 / 3)


def test_missing_response_counts_wrong_but_is_visible(hand_made, db, tmp_path):
    root, results = hand_made
    rows = json.loads(results.read_text())
    del rows[0]["response"]          # 2steps_1's first one-step question (was right)
    part = tmp_path / "holes.json"
    part.write_text(json.dumps(rows))
    store = imported(db, root, part)
    s = store.query_dicts("SELECT * FROM wemath_four_dimensional WHERE rule = 'strict'")[0]
    assert (s["n"], s["cm"], s["rm"]) == (7, 0, 4)    # 2steps_1 moves from CM to RM
    (n_missing,), = store.query("SELECT n_missing FROM run_summary")
    assert n_missing == 1


def _figures(store: Store, run_id: str) -> dict:
    """Every WE-MATH figure of a run: N and the four dimensions, S1-S3, categories, concepts."""
    args = [run_id]
    return {
        "four": store.query("SELECT rule, n, ik, ig, cm, rm, score FROM wemath_four_dimensional "
                            "WHERE run_id = ? ORDER BY rule", args),
        "steps": store.query("SELECT s1, s2, s3 FROM wemath_step_accuracy WHERE run_id = ?", args),
        "categories": store.query("SELECT category, accuracy, n FROM wemath_category_accuracy "
                                  "WHERE run_id = ? ORDER BY category", args),
        "concepts": store.query("SELECT concept, n, correct FROM wemath_concept_accuracy "
                                "WHERE run_id = ? ORDER BY concept", args),
    }


def test_an_infra_failure_is_left_out_not_counted_wrong(hand_made, db):
    """A failed call leaves its whole problem out of EVERY figure (N, S1-S3, categories,
    concepts) until retried, exactly as if the problem had not been evaluated; the report says
    how many; a later answer completes it."""
    from mathprobe import reports
    from mathprobe.items import Completion

    root, results = hand_made
    store = Store(db)
    dataset = runs.prepare(store, wemath.benchmark, root)
    rows = [r for r in json.loads(results.read_text())]
    first, rest = rows[0], rows[1:]            # 2steps_1's first one-step question fails
    part = results.with_name("rest.json")
    part.write_text(json.dumps(rest))
    runs.import_official(store, wemath.benchmark, root, part, "hand")
    iid = wemath.item_id(first)
    store.append_responses("hand", [(iid, "h", Completion(text=None, status="infra_failed",
                                                          error="HTTP 503"))])
    without = results.with_name("without.json")          # the same run without problem 2steps_1
    without.write_text(json.dumps([r for r in rows if r["ID"] != first["ID"]]))
    runs.import_official(store, wemath.benchmark, root, without, "without")

    failed = _figures(store, "hand")
    assert failed == _figures(store, "without")
    assert failed["four"][1][1] == 6                                   # strict N
    assert failed["steps"] == [(pytest.approx(7 / 16), 1.0, pytest.approx(1 / 4))]
    assert [c for c, *_ in failed["concepts"]] == ["Leaf One", "Leaf Three"]   # Leaf Two: 2steps_1 only
    assert ("Leaf One", 3, 3) in failed["concepts"]
    report = reports.build(store, "hand")
    n525, left_out = report["notes"]                      # a hand-made set of 7 problems
    assert n525.startswith("N = 6 problems (from the data)")
    assert left_out.startswith("1 problem(s) left out of every figure") \
        and "1 with a failed call (1 question(s), infra_failed;" in left_out
    assert figure(report, "score.strict")["n"] == 6
    from rich.console import Console
    console = Console(record=True, width=200)
    console.print(reports.render(report, 200))
    assert "1 problem(s) left out of every figure" in console.export_text()

    store.append_responses("hand", [(iid, "h", Completion(text=first["response"]))])
    runs.grade_run(store, wemath.benchmark, dataset, "hand")
    s = store.query_dicts("SELECT * FROM wemath_four_dimensional WHERE rule = 'strict' "
                          "AND run_id = 'hand'")[0]
    assert (s["n"], s["cm"]) == (7, 1)
    assert _figures(store, "hand")["steps"] == [(pytest.approx(9 / 18), 1.0, pytest.approx(1 / 4))]
    assert [n[:30] for n in reports.build(store, "hand")["notes"]] == \
        ["N = 7 problems (from the data)"]
