"""A question about one run reads that run's rows only: every view with a run_id column, asked
for one run (a report, `mathprobe sql ... WHERE run_id = ...`), scans only that run's rows of
responses, verdicts and probe scores, on a store holding runs of all three benchmarks (with
retried failures, probes, a judge's cascade) beside a large run of other rows. And the response
that counts is still the newest answer, else the newest failure. (perf/views.py compares
every view's whole output with an earlier version's SQL on a store of a million responses.)

"Only that run's rows" allows one vector per thread: a join whose other side turns out empty
(nothing of the run is live, or the run is of another benchmark) stops its scan after the first
vector of rows, whatever the store holds; the large run makes any scan that does not stop, or
is not pruned to the run, read far more than that."""
from __future__ import annotations

import json

import pytest

from mathprobe import registry
from mathprobe.items import Completion
from mathprobe.runs import grade_run, prepare
from mathprobe.store import RunSpec, Store

# Tables with a run_id column whose scans must keep to the run asked for.
PER_RUN_TABLES = ("responses", "verdicts", "probe_scores")
# Cross-run by definition: paper Fig. 5 chooses, per model, one zero-shot run among ALL runs of
# that model; its run_id names the run chosen, so which rows it holds depends on other runs.
CROSS_RUN = {"conceptmath_mean_concept_runs"}
ITEMS = 24
# DuckDB's vector (rows a scan hands on at a time), and the threads the store is given here.
VECTOR, THREADS = 2048, 2
# Rows of responses, verdicts and probe scores of a run no question here asks about.
OTHER_ROWS = 10 * VECTOR * THREADS


def _answer(bench: str, item, right: bool) -> str:
    if bench == "wemath":
        return f"<Answer>: <<{item.gold if right else 'E'}>>"
    if bench == "conceptmath":
        return f"Some working. Therefore, the answer is {item.gold if right else 999}."
    if item.part == "choice":
        return f"故选：{item.gold.strip() if right else 'A'}"
    return f"答案：{item.gold if right else '我认为可能是五'}"


@pytest.fixture(scope="module")
def store(tmp_path_factory, data_dir):
    """Three runs of each benchmark over a stratified sample of its items: every third item
    failed first and was answered on a retry, the last item only failed; ConceptMath's three
    probe runs; a judge's cascade on a CMMaTH run; error labels of two runs of each benchmark."""
    s = Store(tmp_path_factory.mktemp("runs") / "many.duckdb")
    s.query(f"SET threads = {THREADS}")
    s.start_run(RunSpec("other", "wemath", "m:9", "m", "zs", {}), OTHER_ROWS)
    s.append_responses("other", [(f"other-{i}", "h", Completion(text="x"))
                                 for i in range(OTHER_ROWS)])
    s.write_verdicts("other", "rules", s.query(
        "SELECT item_id, response_id, NULL, true FROM responses WHERE run_id = 'other'"))
    s.write_probe_scores("other", "rouge_l", [(f"other-{i}", 0.5, None)
                                              for i in range(OTHER_ROWS)])
    s.finish_run("other", "completed")
    for name in ("wemath", "conceptmath", "cmmath"):
        bench = registry.get(name)
        dataset = prepare(s, bench, data_dir)
        items = bench.select(dataset.items, ITEMS)
        for r in range(3):
            run_id = f"{name}-{r}"
            setting = "zs" if name == "conceptmath" else bench.default_setting
            s.start_run(RunSpec(run_id, name, f"m:{r % 2}", "m", setting, {}), len(items))
            failed = [it for n, it in enumerate(items) if n % 3 == 0 or it is items[-1]]
            s.append_responses(run_id, [(it.item_id, "h", Completion(
                text=None, status="infra_failed", error="HTTP 503")) for it in failed])
            s.append_responses(run_id, [(it.item_id, "h", Completion(
                text=_answer(name, it, (n + r) % 3 != 0))) for n, it in enumerate(items[:-1])])
            grade_run(s, bench, dataset, run_id)
            s.finish_run(run_id, "incomplete")
    decided = s.query("SELECT item_id, response_id, extracted, correct FROM verdicts "
                      "WHERE run_id = 'cmmath-0' AND grader = 'rules'")
    s.write_verdicts("cmmath-0", "cascade:j", decided)
    from mathprobe.benchmarks.conceptmath._probes import SETTINGS

    ids = [it.item_id for it in registry.get("conceptmath").select(
        registry.get("conceptmath").load(data_dir).items, ITEMS)]
    for probe in ("rouge", "mink", "classify"):
        for r in range(2):
            run_id = f"probe-{probe}-{r}"
            s.start_run(RunSpec(run_id, "conceptmath", "m:0", "m", SETTINGS[probe], {}), len(ids))
            s.append_responses(run_id, [(i, "h", Completion(
                text="x", logprob_kind="prompt",
                token_logprobs=[(f"t{p}", p, -0.1 * (p + n)) for p in range(12)]))
                for n, i in enumerate(ids)])
            if probe != "mink":
                s.write_probe_scores(run_id, "rouge_l" if probe == "rouge" else "reciprocal_rank",
                                     [(i, 1 / (1 + n % 3), None) for n, i in enumerate(ids)])
            s.finish_run(run_id, "completed")
    # error labels (mathprobe errors) on the wrong answers of one run of each benchmark, by a
    # model and, on some, by people: the error views must keep to the run asked for too
    from mathprobe.error_taxonomy import Label
    from mathprobe.runs import labelling

    for name in ("wemath", "conceptmath", "cmmath"):
        bench = registry.get(name)
        labelling.write_types(s, bench)
        for r in (0, 1):
            run_id = f"{name}-{r}"
            grader = bench.graders[0]
            wrong = labelling.wrong_answers(s, run_id, grader)
            types = bench.error_taxonomy.names
            for labeler, every in (("m:label", 1), ("people", 2)):
                labelling.store_labels(s, run_id, labeler, grader, [
                    (w.item_id, w.response_id, Label(types[n % len(types)]), "model", None)
                    for n, w in enumerate(wrong) if n % every == 0])
    yield s
    s.close()


def _scans(node: dict, out: list[tuple[str, int]]) -> list[tuple[str, int]]:
    if "SCAN" in (node.get("operator_name") or ""):
        table = (node.get("extra_info") or {}).get("Table", "").split(".")[-1]
        out.append((table, node.get("operator_cardinality", 0)))
    for child in node.get("children", []):
        _scans(child, out)
    return out


def test_every_view_asked_for_one_run_reads_only_that_runs_rows(store):
    views = [v for (v,) in store.query(
        "SELECT DISTINCT v.view_name FROM duckdb_views() v JOIN duckdb_columns() c "
        "ON c.table_name = v.view_name AND c.database_name = v.database_name "
        "WHERE NOT v.internal AND v.database_name = current_database() AND c.column_name = "
        "'run_id' ORDER BY 1")]
    assert {"current_responses", "item_verdicts", "wemath_four_dimensional",
            "conceptmath_concept_accuracy", "contamination_mink", "cmmath_official_scores",
            "cmmath_paper_ssr"} <= set(views)
    runs = [r for (r,) in store.query("SELECT run_id FROM runs ORDER BY run_id")]
    own = {t: dict(store.query(f"SELECT run_id, count(*) FROM {t} GROUP BY run_id"))
           for t in PER_RUN_TABLES}
    leaks = []
    for view in (v for v in views if v not in CROSS_RUN):
        for run_id in ("wemath-1", "conceptmath-2", "cmmath-0", "probe-mink-1", "probe-rouge-0"):
            plan = json.loads(store.query(f"EXPLAIN (ANALYZE, FORMAT JSON) SELECT * FROM {view} "
                                          "WHERE run_id = ?", [run_id])[0][1])
            for table, rows in _scans(plan, []):
                if table in own and rows > own[table].get(run_id, 0) + VECTOR * THREADS:
                    leaks.append(f"{view} for {run_id}: {rows} rows of {table}")
    assert len(runs) == 16
    assert not leaks, "\n".join(leaks)


def test_the_response_that_counts_is_the_newest_answer_else_the_newest_failure(store):
    by_key: dict[tuple[str, str], list[tuple[int, str]]] = {}
    for run_id, item_id, rid, status in store.query(
            "SELECT run_id, item_id, response_id, status FROM responses"):
        by_key.setdefault((run_id, item_id), []).append((rid, status))
    expected = {}
    for key, rows in by_key.items():
        answers = [rid for rid, st in rows if st in ("ok", "refused", "missing")]
        expected[key] = max(answers) if answers else max(rid for rid, _ in rows)
    got = {(r, i): rid for r, i, rid in store.query(
        "SELECT run_id, item_id, response_id FROM current_responses")}
    assert got == expected
    # the retried items count their answer, the item that only failed its failure
    assert {st for (st,) in store.query(
        "SELECT status FROM current_responses WHERE run_id = 'wemath-0'")} == {"ok", "infra_failed"}
    retried = {k for k, rows in by_key.items() if len(rows) == 2}      # failed, then answered
    assert len(retried) >= 3 * 3 * 4
    statuses = {(r, i): st for r, i, st in store.query(
        "SELECT run_id, item_id, status FROM current_responses")}
    assert {statuses[k] for k in retried} == {"ok"}


def test_a_verdict_on_another_runs_response_is_refused(store):
    """The views find a verdict by the response it grades, so a grader that names the wrong
    response is stopped at the write, with what it named, and nothing is written."""
    before = store.query("SELECT count(*) FROM verdicts")
    item, rid = store.query("SELECT item_id, response_id FROM current_responses "
                            "WHERE run_id = 'cmmath-0' AND status = 'ok' LIMIT 1")[0]
    with pytest.raises(ValueError, match=rf"run 'cmmath-1'.*{item}.*{rid}.*run 'cmmath-0'"):
        store.write_verdicts("cmmath-1", "rules", [(item, rid, "A", True)])
    with pytest.raises(ValueError, match=r"is no response"):
        store.write_verdicts("cmmath-1", "rules", [(item, 10**12, "A", True)])
    assert store.query("SELECT count(*) FROM verdicts") == before
