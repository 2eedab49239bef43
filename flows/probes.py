"""The probe flows: `contamination` and `classify` (ConceptMath's, paper Sec. 4.3, today).

A probe is a `mathprobe.contract.Probe` of a benchmark, grouped in families: `contamination`
(`rouge`: Rouge-L of the model's continuation of each question's first half; `mink`: MIN-K% of
the question's token log-probabilities) and `classify` (the model ranks the concepts a question
tests). The benchmark is the one that offers the family, unless `benchmark` names one. Each probe
is a run in the store; re-running the same run id resumes it.
"""
from __future__ import annotations

from typing import Any

from prefect import flow, get_run_logger

from mathprobe import registry
from mathprobe.errors import Exit
from mathprobe.flows.common import LogProgress, fail_cleanly, not_completed, repair_dead_runs
from mathprobe.runs import check_backend, preflight
from mathprobe.runs.asking import check_writes
from mathprobe.runs.probing import probe_run_id
from mathprobe.store import open_store, run_lease
from mathprobe.tasks.probe import probe_task


def _probe_family(family: str, methods: list[str] | None, model: str, benchmark: str | None,
                  run_id: str | None, **kwargs: Any) -> dict[str, Any]:
    """Run the probes `methods` of `family` (all of them with None); one run per probe, `run_id`
    being the prefix of the run ids when there are several."""
    bench = preflight.check_probe(family=family, benchmark=benchmark, methods=methods,
                                  model=model, run_id=run_id, db=kwargs["db"],
                                  data_dir=kwargs["data_dir"], limit=kwargs["limit"],
                                  concurrency=kwargs["concurrency"],
                                  request_timeout=kwargs["request_timeout"])
    offered = bench.probe_family(family)
    methods = methods or list(offered)
    check_backend(model)                     # builds the client: a Secret block is read here
    data_dir = str(registry.resolve_data_dir(kwargs.pop("data_dir")))
    store = open_store(kwargs["db"])
    out = {}
    for m in methods:
        probe = offered[m]
        rid = (f"{run_id}-{m}" if run_id and len(methods) > 1 else run_id) \
            or probe_run_id(bench, model, probe)
        # one live writer per run id: a second process on it waits for the first to end
        with run_lease.holding(store, rid, say=get_run_logger().warning) as lease:
            with LogProgress(rid):
                repair_dead_runs(store, rid)
            out[m] = probe_task(bench.name, m, model, rid, data_dir=data_dir, **kwargs)
        check_writes(store)
        run_lease.check(lease)
    failed = {m: r for m, r in out.items() if (r.get("run") or {}).get("n_infra_failed")}
    if failed:                          # not a green Completed: say which calls failed, and why
        parts = []
        for r in failed.values():
            first = r["failures"][0] if r.get("failures") else None
            parts.append(f"{r['run_id']}: {r['run']['n_infra_failed']} of {r['run']['n_items']} "
                         "calls failed" + (f" ({first['n']} x {first['reason']})" if first else ""))
        name = f"Incomplete: {family} " + "; ".join(parts)
        return not_completed(name, name + "; re-drive them with --retry-failed", out,
                             Exit.INCOMPLETE)
    return out


@flow(name="contamination", log_prints=True)
@fail_cleanly
def contamination_flow(model: str, method: str = "both", benchmark: str | None = None,
                       run_id: str | None = None, db: str = "mathprobe.duckdb",
                       data_dir: str | None = None, limit: int | None = None,
                       concurrency: int | None = None, retry_failed: bool = False,
                       triton_url: str | None = None,
                       request_timeout: float | None = None) -> dict[str, Any]:
    """Contamination probes: `rouge`, `mink` or `both`; one run per method (`run_id` is the
    prefix of the run ids when both)."""
    return _probe_family("contamination", None if method == "both" else [method], model,
                         benchmark, run_id, db=db, data_dir=data_dir, limit=limit,
                         concurrency=concurrency, retry_failed=retry_failed,
                         triton_url=triton_url, request_timeout=request_timeout)


@flow(name="classify", log_prints=True)
@fail_cleanly
def classify_flow(model: str, benchmark: str | None = None, run_id: str | None = None,
                  db: str = "mathprobe.duckdb", data_dir: str | None = None,
                  limit: int | None = None, concurrency: int | None = None,
                  retry_failed: bool = False,
                  triton_url: str | None = None,
                  request_timeout: float | None = None) -> dict[str, Any]:
    """Concept classification: MRR and top-1 of the true concept, per system."""
    return _probe_family("classify", None, model, benchmark, run_id, db=db, data_dir=data_dir,
                         limit=limit, concurrency=concurrency, retry_failed=retry_failed,
                         triton_url=triton_url, request_timeout=request_timeout)
