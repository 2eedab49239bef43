"""Two graders of one run, answer by answer (views grader_pairs, grader_agreement,
grader_disagreements; mathprobe/reports/graders.py): the confusion table counts every answer both
decided once, the agreement and Cohen's kappa are the textbook formulas on it, answers one
grader left undecided are no disagreement, and compare shows each run's graders side by side
with their agreement (any grader: here one written as a peer's imported verdicts would be)."""
from __future__ import annotations

import pytest

from mathprobe import registry
from mathprobe.items import Completion
from mathprobe.reports import compare, graders
from mathprobe.runs import prepare
from mathprobe.store import RunSpec, Store

# (official, peer) per answer: 30 both right, 6 official only, 4 peer only, 20 both wrong,
# then 5 the peer left undecided
PATTERN = ([(True, True)] * 30 + [(True, False)] * 6 + [(False, True)] * 4
           + [(False, False)] * 20 + [(True, None)] * 5)


def kappa(a: int, b: int, c: int, d: int) -> float:
    """Cohen's kappa of a 2x2 table [[a, b], [c, d]] (rows: first rater right / wrong)."""
    n = a + b + c + d
    p_o = (a + d) / n
    p_e = ((a + b) * (a + c) + (c + d) * (b + d)) / n ** 2
    return (p_o - p_e) / (1 - p_e)


@pytest.fixture(scope="module")
def store(tmp_path_factory, data_dir):
    bench = registry.get("wemath")
    s = Store(tmp_path_factory.mktemp("graders") / "g.duckdb")
    dataset = prepare(s, bench, data_dir)
    # whole problems (every figure of WE-MATH is over complete problems)
    items = sorted(dataset.items, key=lambda it: (it.group_id, it.part))[:len(PATTERN)]
    s.start_run(RunSpec("r", "wemath", "m", "m", "plain", {}), len(items))
    s.append_responses("r", [(it.item_id, f"h{k}", Completion(text=f"answer {k}"))
                             for k, it in enumerate(items)])
    ids = dict(s.query("SELECT item_id, response_id FROM current_responses WHERE run_id = 'r'"))
    s.write_verdicts("r", "official", [(it.item_id, ids[it.item_id], "A", a)
                                       for it, (a, _) in zip(items, PATTERN)])
    s.write_verdicts("r", "peer_judge", [(it.item_id, ids[it.item_id], "B", b)
                                         for it, (_, b) in zip(items, PATTERN) if b is not None])
    yield s
    s.close()


def test_agreement_and_kappa(store):
    a = graders.agreement(store, "r", "official", "peer_judge")
    assert (a["n_a"], a["n_b"], a["n_both"]) == (65, 60, 60)
    assert (a["both_right"], a["only_a_right"], a["only_b_right"], a["both_wrong"]) == (30, 6, 4, 20)
    assert a["agreement"] == pytest.approx(50 / 60)
    assert a["kappa"] == pytest.approx(kappa(30, 6, 4, 20))
    assert a["kappa"] == pytest.approx(0.6575, abs=1e-4)
    assert a["accuracy_a"] == pytest.approx(36 / 60) and a["accuracy_b"] == pytest.approx(34 / 60)
    # the other order is the same table, transposed
    b = graders.agreement(store, "r", "peer_judge", "official")
    assert (b["only_a_right"], b["only_b_right"], b["kappa"]) == (4, 6, pytest.approx(a["kappa"]))


def test_disagreements_are_listed_for_reading(store):
    rows = graders.disagreements(store, "r", "official", "peer_judge")
    assert len(rows) == 10                      # undecided by one grader: not a disagreement
    assert sum(r["correct_a"] for r in rows) == 6
    assert all(r["response"].startswith("answer ") and r["gold"] for r in rows)
    assert len(graders.disagreements(store, "r", "official", "peer_judge", limit=3)) == 3


def test_kappa_is_undefined_when_both_say_the_same_of_everything(store):
    (n,), = store.query("SELECT count(*) FROM verdicts WHERE run_id = 'r' AND grader = 'official'")
    ids = store.query("SELECT item_id, response_id FROM verdicts WHERE run_id = 'r' AND "
                      "grader = 'official'")
    store.write_verdicts("r", "all_right_1", [(i, rid, "A", True) for i, rid in ids])
    store.write_verdicts("r", "all_right_2", [(i, rid, "A", True) for i, rid in ids])
    a = graders.agreement(store, "r", "all_right_1", "all_right_2")
    assert a["n_both"] == n and a["agreement"] == 1.0 and a["kappa"] is None


def test_compare_shows_each_graders_figure_and_agreement(store):
    result = compare.compare(store, ["r"], resamples=200)
    (b,) = result.benchmarks
    rows = {g.grader: g for g in b.graders}
    assert {"official", "peer_judge"} <= set(rows)
    assert rows["official"].reported and rows["official"].agreement is None
    assert rows["peer_judge"].agreement["kappa"] == pytest.approx(kappa(30, 6, 4, 20))
    assert rows["peer_judge"].n_graded == 60 and rows["official"].n_graded == 65
    assert b.headline.key == "score.strict"
    assert rows["official"].figure is not None and rows["peer_judge"].figure is not None
    assert 0 <= rows["peer_judge"].figure.ci_low <= rows["peer_judge"].figure.value
