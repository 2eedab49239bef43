"""The `judge` task: a judge model asked about the answers its benchmark's judge asks about."""
from __future__ import annotations

from typing import Any

from prefect import get_run_logger, task
from prefect.cache_policies import NO_CACHE

from mathprobe import registry
from mathprobe.registry import resolve_data_dir
from mathprobe.runs import judging
from mathprobe.runs.config import RunConfig
from mathprobe.store import open_store
from mathprobe.tasks.batches import FlowRunPaused


@task(name="judge", cache_policy=NO_CACHE)
def judge_task(cfg: RunConfig, judge: str, retry_failed: bool,
               in_flight: int | None) -> dict[str, Any]:
    """Ask `judge` about the answers its benchmark's judge asks about (those the rules left
    undecided, by default; the content cache answers what was asked before), through its batch
    API with --batch (the flow run paused while it waits); write judge and cascade verdicts."""
    bench = registry.get(cfg.benchmark)
    store = open_store(cfg.db)
    items = bench.load(resolve_data_dir(cfg.data_dir)).by_id()
    result = judging.judge_run(store, bench, items, cfg.run_id, judge, retry_failed=retry_failed,
                               concurrency=in_flight, timeout_s=cfg.request_timeout,
                               triton_url=cfg.triton_url, batch=cfg.batch,
                               waiting=FlowRunPaused(cfg.run_id) if cfg.batch else None)
    if result.get("write_failed"):              # the flow says it (check_writes)
        return {}
    get_run_logger().info(
        "judge %s: %d asked about, %d answered from the cache, %d sent (%s); %d verdicts, "
        "%d judge_failed, %d failed calls", judge, result["asked_about"], result["cached_now"],
        result["asked"], ", ".join(f"{v} {k}" for k, v in sorted(result["counts"].items()))
        or "none", result["judged"], result["judge_failed"], result["infra_failed"])
    return result
