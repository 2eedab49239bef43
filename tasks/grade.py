"""The `grade` task: a run's answers turned into verdicts by every grader of its benchmark."""
from __future__ import annotations

from prefect import get_run_logger, task
from prefect.cache_policies import NO_CACHE

from mathprobe import registry
from mathprobe.registry import resolve_data_dir
from mathprobe.runs import grade_run
from mathprobe.runs.config import RunConfig
from mathprobe.store import open_store


@task(name="grade", cache_policy=NO_CACHE)
def grade_task(cfg: RunConfig) -> dict[str, int]:
    bench = registry.get(cfg.benchmark)
    store = open_store(cfg.db)
    dataset = bench.load(resolve_data_dir(cfg.data_dir))
    graded = grade_run(store, bench, dataset, cfg.run_id)
    get_run_logger().info("graded: %s", graded)
    return graded
