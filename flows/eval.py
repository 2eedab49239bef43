"""The `eval` flow: load -> prompt -> respond (sharded, bounded) -> store -> grade -> report.

Work is split into a Prefect task per shard of items, not per request, so Prefect's own
bookkeeping stays small next to the model calls. Re-running with the same run id resumes: items
that already have an answer are not asked again.
"""
from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import Any

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_table_artifact
from prefect.cache_policies import NO_CACHE
from prefect.task_runners import ThreadPoolTaskRunner

from tasks import pipeline, reports
from tasks.backends import get_backend, parse_spec
from tasks.benchmarks import get_adapter, resolve_data_dir
from tasks.errors import MathprobeError
from tasks.store import RunSpec, open_store

SHARD_SIZE = 250
SHARD_WORKERS = 4


@dataclass(frozen=True)
class RunConfig:
    benchmark: str
    model: str
    setting: str
    run_id: str
    db: str
    data_dir: str
    params: dict[str, Any]
    concurrency: int


def default_run_id(benchmark: str, model: str, setting: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", f"{benchmark}-{model}-{setting}")


@task(name="prepare", cache_policy=NO_CACHE)
def prepare_task(cfg: RunConfig, limit: int | None) -> list[str]:
    """Load the benchmark, store items, open the run; return the ids still to be answered."""
    adapter = get_adapter(cfg.benchmark)
    store = open_store(cfg.db)
    dataset = pipeline.prepare(store, adapter, resolve_data_dir(cfg.data_dir))
    chosen = adapter.select(dataset.items, limit)
    kind, _ = parse_spec(cfg.model)
    store.start_run(RunSpec(cfg.run_id, cfg.benchmark, cfg.model, kind, cfg.setting, cfg.params),
                    n_items=len(chosen))
    done = store.answered_item_ids(cfg.run_id)
    todo = [it.item_id for it in chosen if it.item_id not in done]
    get_run_logger().info("%s: %d items selected, %d already answered, %d to ask",
                          cfg.run_id, len(chosen), len(chosen) - len(todo), len(todo))
    return todo


@task(name="respond-shard", cache_policy=NO_CACHE)
def respond_shard(cfg: RunConfig, item_ids: list[str], concurrency: int) -> dict[str, int]:
    adapter = get_adapter(cfg.benchmark)
    store = open_store(cfg.db)
    by_id = adapter.load(resolve_data_dir(cfg.data_dir)).by_id()
    requests = [pipeline.build_request(adapter, by_id[i], cfg.model, cfg.setting, cfg.params)
                for i in item_ids]

    async def go() -> dict[str, int]:
        backend = get_backend(cfg.model)
        try:
            return await pipeline.respond(
                backend, requests, lambda rows: store.append_responses(cfg.run_id, rows),
                concurrency=concurrency)
        finally:
            await backend.aclose()

    counts = asyncio.run(go())
    get_run_logger().info("shard of %d: %s", len(item_ids),
                          ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
    return counts


@task(name="grade", cache_policy=NO_CACHE)
def grade_task(cfg: RunConfig) -> dict[str, int]:
    adapter = get_adapter(cfg.benchmark)
    store = open_store(cfg.db)
    dataset = adapter.load(resolve_data_dir(cfg.data_dir))
    graded = pipeline.grade_run(store, adapter, dataset, cfg.run_id)
    get_run_logger().info("graded: %s", graded)
    return graded


def _publish(report: dict[str, Any]) -> None:
    run = report["run"]
    rows = [{"figure": k, "value": v} for k, v in run.items()]
    acc = report.get("accuracy", {})
    rows += [{"figure": k.upper(), "value": reports.pct(acc.get(k))} for k in ("s1", "s2", "s3")]
    rows += [{"figure": c, "value": reports.pct(v)} for c, v in acc.get("categories", {}).items()]
    for rule, f in report.get("four_dimensional", {}).items():
        rows.append({"figure": f"score ({rule})", "value": reports.pct(f["score"])})
        rows += [{"figure": f"{k.upper()} ({rule})", "value": f"{reports.pct(f[k + '_rate'])} ({f[k]})"}
                 for k in ("ik", "ig", "cm", "rm")]
    key = re.sub(r"[^a-z0-9-]+", "-", f"report-{run['run_id']}".lower())[:100]
    create_table_artifact(key=key, table=rows,
                          description=f"mathprobe report for run {run['run_id']} "
                                      f"({run['benchmark']}, {run['model']})")


@flow(name="eval", log_prints=True,
      task_runner=ThreadPoolTaskRunner(max_workers=SHARD_WORKERS))
def eval_flow(benchmark: str = "wemath", model: str = "baseline:random",
              setting: str | None = None, run_id: str | None = None,
              db: str = "mathprobe.duckdb", data_dir: str | None = None,
              limit: int | None = None, concurrency: int = 16) -> dict[str, Any]:
    """Evaluate `model` on `benchmark`, store every response in `db`, return the report."""
    adapter = get_adapter(benchmark)
    setting = setting or adapter.DEFAULT_SETTING
    if setting not in adapter.SETTINGS:
        raise MathprobeError(f"--setting {setting!r}: {benchmark} has {', '.join(adapter.SETTINGS)}")
    get_backend(model)   # fail fast on a bad --model, before any work
    cfg = RunConfig(benchmark=benchmark, model=model, setting=setting,
                    run_id=run_id or default_run_id(benchmark, model, setting), db=db,
                    data_dir=str(resolve_data_dir(data_dir)), params=dict(adapter.DEFAULT_PARAMS),
                    concurrency=concurrency)
    store = open_store(cfg.db)
    todo = prepare_task(cfg, limit)
    shards = [todo[i:i + SHARD_SIZE] for i in range(0, len(todo), SHARD_SIZE)]
    workers = max(1, min(SHARD_WORKERS, len(shards)))
    per_shard = max(1, concurrency // workers)
    try:
        futures = [respond_shard.submit(cfg, shard, per_shard) for shard in shards]
        for future in futures:
            future.result()
        grade_task(cfg)
    except BaseException:
        store.finish_run(cfg.run_id, "interrupted")
        raise
    run = store.run(cfg.run_id)
    store.finish_run(cfg.run_id, "completed" if run["n_infra_failed"] == 0 else "incomplete")
    report = reports.build(store, cfg.run_id)
    _publish(report)
    return report

