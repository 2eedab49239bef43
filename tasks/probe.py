"""The `probe` task: one probe run of a benchmark (a contamination or classification probe)."""
from __future__ import annotations

from typing import Any

from prefect import get_run_logger, task
from prefect.cache_policies import NO_CACHE

from mathprobe import registry
from mathprobe.reports.notes import failure_reasons
from mathprobe.runs.probing import run_probe
from mathprobe.store import open_store
from mathprobe.tasks.run_log import LogProgress, current_flow_run_id


@task(name="probe", cache_policy=NO_CACHE)
def probe_task(benchmark: str, probe: str, model: str, run_id: str, db: str, data_dir: str,
               limit: int | None, concurrency: int | None, retry_failed: bool,
               triton_url: str | None, request_timeout: float | None) -> dict[str, Any]:
    """One probe run: its view's rows, its summary (answered, failed) and the first failure
    reasons (empty when the store could not be written: the flow says so)."""
    bench = registry.get(benchmark)
    store = open_store(db)
    with LogProgress(run_id):
        counts, rows = run_probe(store, bench, bench.probes[probe], model=model,
                                 run_id=run_id, data_dir=registry.resolve_data_dir(data_dir),
                                 limit=limit, concurrency=concurrency,
                                 retry_failed=retry_failed, triton_url=triton_url,
                                 request_timeout=request_timeout,
                                 flow_run_id=current_flow_run_id())
    get_run_logger().info("%s: %d asked: %s", run_id, sum(counts.values()),
                          ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) or "none")
    if store.write_failure():
        return {"run_id": run_id, "rows": []}
    run = store.stored_run(run_id)
    return {"run_id": run_id, "rows": rows,
            "run": {k: run[k] for k in ("status", "n_items", "n_ok", "n_infra_failed",
                                        "n_not_asked")},
            "failures": failure_reasons(store, run_id)}
