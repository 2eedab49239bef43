"""Figures stored per run are the run's figures, never stale ones: WE-MATH's Table 1/2 figures
read stored rows for runs whose data has not changed since they were stored, and compute the
others live. A user sees the same numbers either way, and sees a change at once when a judge
adds verdicts, a retry answers failed calls, the data is reloaded, the store is copied, or an
old store is opened by this version (mathprobe/store/run_data.py)."""
from __future__ import annotations

import duckdb
import pytest

from mathprobe import registry
from mathprobe.items import Completion
from mathprobe.runs import grade_run, prepare
from mathprobe.store import RunSpec, Store
from mathprobe.store.copy import copy_runs
from mathprobe.store.location import parse

FIGURES = ("wemath_four_dimensional", "wemath_step_accuracy", "wemath_concept_accuracy",
           "wemath_category_accuracy", "wemath_figure_units")


def _answer(item, right: bool) -> str:
    return f"<Answer>: <<{item.gold if right else 'E'}>>"


def _run(store: Store, bench, dataset, run_id: str, seed: int, fail_every: int = 0) -> None:
    """A finished WE-MATH run over every item; every `fail_every`-th call failed."""
    items = dataset.items
    store.start_run(RunSpec(run_id, "wemath", "m:x", "m", bench.default_setting, {}), len(items))
    store.append_responses(run_id, [
        (it.item_id, "h", Completion(text=None, status="infra_failed", error="HTTP 503")
         if fail_every and n % fail_every == 0 else Completion(text=_answer(it, (n + seed) % 3 != 0)))
        for n, it in enumerate(items)])
    grade_run(store, bench, dataset, run_id)
    store.finish_run(run_id, "completed")


def figures(store: Store, run_id: str) -> dict[str, list[tuple]]:
    return {v: store.query(f"SELECT * FROM {v} WHERE run_id = ? ORDER BY ALL", [run_id])
            for v in FIGURES}


def live(store: Store, run_id: str) -> dict[str, list[tuple]]:
    """The same figures computed from the verdicts, whatever is stored."""
    q = {"wemath_four_dimensional": "wemath_four_dimensional_scored()",
         "wemath_step_accuracy": "wemath_step_accuracy_of('run_data')",
         "wemath_concept_accuracy": "wemath_concept_accuracy_of('run_data')",
         "wemath_figure_units": "wemath_figure_units_of('run_data')"}
    out = {v: store.query(f"SELECT * FROM {m} WHERE run_id = ? ORDER BY ALL", [run_id])
           for v, m in q.items()}
    out["wemath_category_accuracy"] = figures(store, run_id)["wemath_category_accuracy"]
    return out


def stored(store: Store, run_id: str) -> bool:
    return bool(store.query("SELECT 1 FROM stored_runs WHERE run_id = ?", [run_id]))


@pytest.fixture(scope="module")
def wemath(data_dir):
    bench = registry.get("wemath")
    return bench, data_dir


@pytest.fixture
def store(tmp_path, wemath):
    bench, data_dir = wemath
    s = Store(tmp_path / "s.duckdb")
    dataset = prepare(s, bench, data_dir)
    _run(s, bench, dataset, "a", 0)
    _run(s, bench, dataset, "b", 1, fail_every=5)
    yield s, bench, dataset
    s.close()


def test_a_finished_run_reads_stored_figures_equal_to_live_ones(store):
    s, *_ = store
    for run_id in ("a", "b"):
        assert stored(s, run_id)
        assert s.query("SELECT count(*) FROM wemath_step_accuracy_stored WHERE run_id = ?",
                       [run_id])[0][0] == 1
        # compare's units: each complete problem's ten problem cells and its questions' cells
        assert s.query("SELECT count(*) FROM wemath_figure_units_stored WHERE run_id = ?",
                       [run_id])[0][0] == len(figures(s, run_id)["wemath_figure_units"]) > 5250
        assert figures(s, run_id) == live(s, run_id)
    (n,), = s.query("SELECT n FROM wemath_four_dimensional WHERE run_id = 'a' LIMIT 1")
    assert n == 525                               # every problem of testmini, complete
    # all runs at once: stored rows only, the same as computing every run
    whole = s.query("SELECT * FROM wemath_step_accuracy ORDER BY ALL")
    s.write(lambda con: con.execute("UPDATE run_data SET figures_version = NULL"))
    assert not stored(s, "a")
    assert s.query("SELECT * FROM wemath_step_accuracy ORDER BY ALL") == whole


def test_a_judges_verdicts_change_the_figures_at_once(store):
    """New verdicts on a finished run (a judge, a re-grade) are its figures from the moment
    they are written: the stored ones no longer count."""
    s, *_ = store
    before = figures(s, "a")
    flipped = s.query("SELECT item_id, response_id, extracted, NOT correct FROM verdicts "
                      "WHERE run_id = 'a' AND grader = 'official' ORDER BY item_id LIMIT 300")
    s.write_verdicts("a", "official", flipped)
    assert not stored(s, "a")
    after = figures(s, "a")
    assert after != before and after == live(s, "a")
    assert figures(s, "b") == live(s, "b") and stored(s, "b")     # other runs keep theirs
    s.finish_run("a", "completed")
    assert stored(s, "a") and figures(s, "a") == after


def test_retried_failures_count_before_the_run_finishes(store):
    """--retry-failed answers the failed calls: their problems enter N while the run goes on."""
    s, bench, dataset = store
    (n_before,), = s.query("SELECT n FROM wemath_four_dimensional WHERE run_id = 'b' LIMIT 1")
    failed = {i for (i,) in s.query("SELECT item_id FROM current_responses "
                                    "WHERE run_id = 'b' AND status = 'infra_failed'")}
    s.start_run(RunSpec("b", "wemath", "m:x", "m", bench.default_setting, {}), len(dataset.items))
    s.append_responses("b", [(it.item_id, "h", Completion(text=_answer(it, True)))
                             for it in dataset.items if it.item_id in failed])
    grade_run(s, bench, dataset, "b")
    (n_after,), = s.query("SELECT n FROM wemath_four_dimensional WHERE run_id = 'b' LIMIT 1")
    assert n_before < n_after == 525
    assert figures(s, "b") == live(s, "b")


def test_reloaded_data_leaves_no_stored_figure_standing(store):
    s, *_ = store
    s.replace_table("wemath_knowledge", {"leaf": ("VARCHAR", [])})    # as a reload starts
    assert not stored(s, "a") and not stored(s, "b")
    assert s.store_figures() == ["a", "b"]
    assert stored(s, "a") and figures(s, "a") == live(s, "a")


def test_an_old_store_is_migrated_when_this_version_opens_it(store, tmp_path):
    """A store written before per-run spans and stored figures existed, or written meanwhile by
    an older mathprobe (responses past the stored span): opening it rebuilds both."""
    s, bench, dataset = store
    want = {r: figures(s, r) for r in ("a", "b")}
    path = s.path
    # what an older version leaves: no run_data, no stored figures, its own SQL hash, and a
    # response it appended to run b (the answer to a failed call) that no span covers
    item = s.query("SELECT item_id FROM current_responses WHERE run_id = 'b' "
                   "AND status = 'infra_failed' ORDER BY item_id LIMIT 1")[0][0]
    s.close()
    con = duckdb.connect(path)
    con.execute("INSERT INTO responses (response_id, run_id, item_id, request_hash, response, "
                "status) VALUES (nextval('response_seq'), 'b', ?, 'h', 'x', 'ok')", [item])
    for table in ("run_data", "wemath_four_dimensional_stored", "wemath_step_accuracy_stored",
                  "wemath_concept_accuracy_stored"):
        con.execute(f"DROP TABLE {table}")
    con.execute("UPDATE store_meta SET value = 'an older version' WHERE key = 'sql_layer'")
    con.close()
    s2 = Store(path)
    try:
        assert stored(s2, "a") and stored(s2, "b")
        assert figures(s2, "a") == want["a"]
        assert s2.query("SELECT status FROM current_responses WHERE run_id = 'b' AND item_id = ?",
                        [item]) == [("ok",)]                   # the old version's answer counts
        assert figures(s2, "b") == live(s2, "b")
    finally:
        s2.close()


def test_a_copied_run_has_the_same_figures(store, tmp_path):
    s, *_ = store
    want = figures(s, "b")
    s.close()
    dst = Store(tmp_path / "copy.duckdb")
    try:
        copy_runs(parse(s.path), dst, ["b"])
        assert stored(dst, "b")
        assert figures(dst, "b") == want == live(dst, "b")
        (first, last), = dst.query("SELECT first_response_id, last_response_id FROM run_data "
                                   "WHERE run_id = 'b'")
        assert (first, last) == dst.query("SELECT min(response_id), max(response_id) "
                                          "FROM responses WHERE run_id = 'b'")[0]
    finally:
        dst.close()


def test_min_k_of_a_probe_run_is_stored_and_follows_a_retry(tmp_path, data_dir):
    """ConceptMath's MIN-K% per question is stored when the probe run finishes; a question
    answered later (a retried call) is in the contamination figures at once."""
    from mathprobe.benchmarks.conceptmath._probes import SETTINGS

    bench = registry.get("conceptmath")
    s = Store(tmp_path / "p.duckdb")
    try:
        ids = [it.item_id for it in bench.select(prepare(s, bench, data_dir).items, 40)]
        s.start_run(RunSpec("mink", "conceptmath", "m:0", "m", SETTINGS["mink"], {}), len(ids))

        def answer(n: int, i: str):
            return (i, "h", Completion(text="x", logprob_kind="prompt", token_logprobs=[
                (f"t{p}", p, -0.1 * ((p * 7 + n) % 23)) for p in range(12 + n % 9)]))
        s.append_responses("mink", [answer(n, i) for n, i in enumerate(ids[:-1])])
        s.append_responses("mink", [(ids[-1], "h", Completion(text=None, status="infra_failed"))])
        s.write_probe_scores("mink", "rouge_l", [(i, (n % 7) / 7, None)
                                                 for n, i in enumerate(ids[:-1])])
        s.finish_run("mink", "incomplete")
        assert stored(s, "mink")
        rows = "SELECT * FROM conceptmath_mink_items WHERE run_id = 'mink' ORDER BY ALL"
        want = s.query("SELECT * FROM conceptmath_mink_items_of('run_data') ORDER BY ALL")
        assert s.query(rows) == want and len(want) == len(ids) - 1
        concepts = {v: f"SELECT * FROM {v} WHERE run_id = 'mink' ORDER BY ALL"
                    for v in ("contamination_mink_concept", "contamination_rouge_concept",
                              "conceptmath_figure_units")}

        def live_concepts() -> dict[str, list[tuple]]:
            return {v: s.query(f"SELECT * FROM {v}_of('run_data') ORDER BY ALL") for v in concepts}
        assert {v: s.query(q) for v, q in concepts.items()} == live_concepts()
        assert s.query("SELECT count(*) FROM contamination_rouge_concept_stored")[0][0] > 0
        # compare's units of the probe run: each question's rouge, mink and mink_prob once
        assert s.query("SELECT count(*) FROM conceptmath_figure_units_stored")[0][0] == \
            3 * (len(ids) - 1)
        (n_before,), = s.query("SELECT sum(n) FROM contamination_mink WHERE run_id = 'mink'")
        s.append_responses("mink", [answer(99, ids[-1])])               # --retry-failed
        assert not stored(s, "mink")
        assert len(s.query(rows)) == len(ids)
        (n_after,), = s.query("SELECT sum(n) FROM contamination_mink WHERE run_id = 'mink'")
        assert n_after == n_before + 1
        s.write_probe_scores("mink", "rouge_l", [(ids[-1], 1.0, None)])
        now = {v: s.query(q) for v, q in concepts.items()}
        assert now == live_concepts()                     # the new question counts at once
        assert sum(r[4] for r in now["contamination_rouge_concept"]) == \
            3 * len(ids)                                  # each question at three levels
    finally:
        s.close()


# Per benchmark: views whose rows are stored per run, each with its live macro (None: a view
# built on a stored one), and the grader whose verdicts the test flips.
STORED_ELSEWHERE = {
    "conceptmath": ({"conceptmath_concept_accuracy": "conceptmath_concept_accuracy_of",
                     "conceptmath_figure_units": "conceptmath_figure_units_of",
                     "conceptmath_unmastered": None}, "official"),
    "cmmath": ({"cmmath_official_scores": "cmmath_official_scores_of",
                "cmmath_figure_units": "cmmath_figure_units_of"}, "rules"),
}


@pytest.mark.parametrize("benchmark", sorted(STORED_ELSEWHERE))
def test_stored_figures_of_other_benchmarks_equal_live_ones_and_follow_new_verdicts(
        benchmark, tmp_path, data_dir):
    """ConceptMath's per-concept accuracy (and the unmastered ranking built on it) and its
    units for compare, and CMMaTH's official scores and units, are stored when a run's grading
    finishes: the same rows as computed from the verdicts, and new verdicts are the figures at
    once."""
    views, grader = STORED_ELSEWHERE[benchmark]
    bench = registry.get(benchmark)
    s = Store(tmp_path / "c.duckdb")
    try:
        dataset = prepare(s, bench, data_dir)
        items = bench.select(dataset.items, 120)
        s.start_run(RunSpec("c", benchmark, "m:x", "m", bench.default_setting, {}), len(items))
        s.append_responses("c", [(it.item_id, "h", Completion(
            text=f"The answer is {it.gold if n % 3 else 'nothing'}")) for n, it in enumerate(items)])
        grade_run(s, bench, dataset, "c")
        s.finish_run("c", "completed")

        def shown() -> dict[str, list[tuple]]:
            return {v: s.query(f"SELECT * FROM {v} WHERE run_id = 'c' ORDER BY ALL") for v in views}

        def live() -> dict[str, list[tuple]]:
            return {v: s.query(f"SELECT * FROM {m}('run_data') ORDER BY ALL")
                    for v, m in views.items() if m}
        assert stored(s, "c")
        as_stored = shown()
        assert all(as_stored.values())
        assert {v: as_stored[v] for v in live()} == live()
        s.write(lambda con: con.execute("UPDATE run_data SET figures_version = NULL"))
        assert shown() == as_stored                       # computed live: the same rows
        s.store_figures()
        flipped = s.query("SELECT item_id, response_id, extracted, NOT coalesce(correct, false) "
                          "FROM verdicts WHERE run_id = 'c' AND grader = ? ORDER BY item_id "
                          "LIMIT 40", [grader])
        s.write_verdicts("c", grader, flipped)
        assert not stored(s, "c")
        after = shown()
        assert after != as_stored
        assert {v: after[v] for v in live()} == live()
    finally:
        s.close()
