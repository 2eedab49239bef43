"""The `respond-shard` task: one shard of a run's questions asked and their answers stored."""
from __future__ import annotations

from prefect import get_run_logger, task
from prefect.cache_policies import NO_CACHE

from mathprobe import registry
from mathprobe.registry import resolve_data_dir
from mathprobe.runs import Budget, LazyRequests, progress, runtime, send
from mathprobe.runs.config import RunConfig
from mathprobe.runs.samples import Ask
from mathprobe.store import open_store

# the run's spending, shared by its shards (the flow sets it before submitting them)
BUDGETS: dict[str, Budget] = {}


@task(name="respond-shard", cache_policy=NO_CACHE)
def respond_shard(cfg: RunConfig, asks: list[Ask], in_flight: int | None,
                  max_cost: float | None) -> dict[str, int]:
    """Ask one shard's questions ((item id, sample) pairs). The requests run on the process's
    shared event loop, under the run's adaptive window (at most `in_flight`) and the
    provider's cap, so shards together respect both; each request is built as it is sent."""
    bench = registry.get(cfg.benchmark)
    store = open_store(cfg.db)
    by_id = bench.load(resolve_data_dir(cfg.data_dir)).by_id()
    requests = LazyRequests(bench, [by_id[i] for i, _ in asks], cfg.model, cfg.setting,
                            cfg.params, samples=[s for _, s in asks])
    budget = BUDGETS.get(cfg.run_id) or Budget(max_cost, store.spent(cfg.run_id))
    counts = send(
        store, cfg.run_id, cfg.model,
        lambda: runtime.backend(cfg.run_id, cfg.backend),       # shared by the shards
        requests, in_flight=in_flight, close=False, budget=budget,
        on_done=lambda item_id, c: progress.emit("done", cfg.run_id, status=c.status,
                                                 item_id=item_id, error=c.error))
    get_run_logger().info("shard of %d: %s", len(asks),
                          ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
    return counts
