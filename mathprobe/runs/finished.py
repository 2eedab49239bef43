"""Whether a run has anything left to do, decided from the store alone (no Prefect).

Running the same command again resumes a run; when the run has already finished, that asks
nothing and grades nothing, yet going through the flow costs Prefect's start (seconds without
a server). The command line asks `finished` first and, when nothing is left, prints the stored
report instead (the same report and exit status the flow would give).

Nothing is left when all of these hold (anything else goes through the flow, which repairs,
asks, grades and judges as needed):
  * the run exists and ended (`completed`, or `incomplete` because of failed calls), with the
    status the flow would give it again (completed exactly when no call failed for good);
    a run still `running` (its process may have died) or `interrupted` needs the flow;
  * the store holds this very version of the benchmark's data (its fingerprint), and no
    answers wait in a spool (a full disk) to be stored;
  * every item the run selects now (`--limit`) has a response (every sample of it, with
    --samples K, and no more samples are asked for), and with `--retry-failed` none
    of them failed or was cut at the token cap (`truncated`); the run is asked with the
    parameters it holds (a raised --max-tokens re-asks what was cut); every grader of the
    benchmark has graded the run (a run ends only after grading, so a grader with no verdict at
    all is one added since);
  * with `--judge`: its judge run ended, and every answer the judge is asked about (by
    default those the rules left undecided) has the judge's reply (with `--retry-failed`: one
    that did not fail).
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mathprobe.contract import Benchmark
from mathprobe.errors import MathprobeError
from mathprobe.store import Store, open_store, spool
from mathprobe.store.duckdb_store import peek
from mathprobe.store.location import parse

ENDED = ("completed", "incomplete")
FAILED = ("infra_failed", "judge_failed", "truncated")     # what --retry-failed asks again


def ended_status(run: Mapping[str, Any]) -> str:
    """The status a run that asked everything ends with (its `Store.run` row): `completed`
    when every item (every sample of it, with --samples K) has an answer, `incomplete` when
    calls failed for good or replies were cut at the token cap (their items are in no figure
    until asked again)."""
    sampled = run.get("sampled") or {}
    failed = (run["n_infra_failed"] or run.get("n_truncated") or sampled.get("n_infra_failed")
              or sampled.get("n_truncated"))
    return "completed" if not failed else "incomplete"


def not_asked(run: Mapping[str, Any]) -> int:
    """Requests the run has not asked yet: items, or with --samples K (item, sample) pairs."""
    sampled = run.get("sampled")
    return sampled["n_not_asked"] if sampled else run["n_not_asked"]


def finished(db: str | Path, bench: Benchmark, data_dir: Path, run_id: str,
             limit: int | None, retry_failed: bool = False, judge: str | None = None,
             data_path: str | None = None,
             params: Mapping[str, Any] | None = None,
             samples: int | None = None) -> Store | None:
    """The store (opened read-only) if run `run_id` has nothing left to do, else None. Call
    after the run's arguments were checked (`preflight.check_eval`)."""
    loc = parse(db, data_path)
    if not loc.exists() or spool.pending(loc.key):
        return None
    if not loc.is_lake and not peek(loc.key, "SELECT 1 FROM runs WHERE run_id = ? AND status "
                                    "IN ?", [run_id, list(ENDED)]):
        return None       # new, or not ended: without opening the store (a read-only open,
        #                   closed again before the flow's write open: 0.2-0.4 s before asking)
    try:
        store = open_store(db, data_path, read_only=True)
    except MathprobeError:          # e.g. a PostgreSQL-catalogued lake not created yet: the
        return None                 # flow creates it, or says what is wrong
    run = store.run(run_id)
    if run is None or run["status"] not in ENDED or run["benchmark"] != bench.name:
        return None
    if run["status"] != ended_status(run):
        return None
    if params is not None:
        (stored,), = store.query("SELECT params FROM runs WHERE run_id = ?", [run_id])
        if json.loads(stored or "{}") != dict(params):        # e.g. a raised --max-tokens
            return None
    dataset = bench.load(data_dir)
    if store.dataset_fingerprint(bench.name) != dataset.fingerprint:
        return None
    chosen = [it.item_id for it in bench.select(dataset.items, limit)]
    if len(chosen) > (run["n_items"] or 0):
        return None
    if samples is not None and samples > (run.get("samples") or 1):
        return None                 # more samples asked for: the flow asks them
    pairs = [(i, s) for s in range(run.get("samples") or 1) for i in chosen]
    statuses = store.sample_statuses(run_id)
    if any(p not in statuses or (retry_failed and statuses[p] in FAILED) for p in pairs):
        return None
    graded = {g for (g,) in store.query("SELECT DISTINCT grader FROM verdicts WHERE run_id = ?",
                                        [run_id])}
    answered = run["n_responses"] - run["n_infra_failed"] - run.get("n_truncated", 0)
    if answered > 0 and not set(bench.graders) <= graded:
        return None
    if judge is not None and not _judged(store, bench, run_id, judge, retry_failed):
        return None
    return store


def _judged(store: Store, bench: Benchmark, run_id: str, judge: str, retry_failed: bool) -> bool:
    """The judge run ended, and every answer the judge is asked about has its reply."""
    from mathprobe.runs import judging

    jrun = store.run(judging.judge_run_id(run_id, judge))
    if jrun is None or jrun["status"] not in ENDED:
        return False
    statuses = store.item_statuses(judging.judge_run_id(run_id, judge))
    asked = judging.to_ask(store, judging.judge_of(bench, judge), run_id)
    return not any(item_id not in statuses or (retry_failed and statuses[item_id] in FAILED)
                   for _, item_id, _ in asked)
