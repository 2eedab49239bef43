"""The `label` task: the wrong answers of a stored run labelled with its benchmark's error types
(rules, then a labeller model; every call cached by content)."""
from __future__ import annotations

from typing import Any

from prefect import get_run_logger, task
from prefect.cache_policies import NO_CACHE

from mathprobe.runs import labelling


@task(name="label", cache_policy=NO_CACHE)
def label_task(db: str, run_id: str, labeller: str, *, data_dir: str | None, grader: str | None,
               sample: int | None, retry_failed: bool, concurrency: int,
               request_timeout: float | None, triton_url: str | None,
               max_cost: float | None) -> dict[str, Any]:
    """Label the run's wrong answers with `labeller` and store the labels (error_labels)."""
    c = labelling.check(db, run_id, labeller, data_dir=data_dir, grader=grader, sample=sample,
                        concurrency=concurrency, request_timeout=request_timeout,
                        max_cost=max_cost)
    result = labelling.label_run(c.store, c.bench, c.items, c.run, labeller, c.grader,
                                 sample=sample, retry_failed=retry_failed,
                                 concurrency=concurrency, timeout_s=request_timeout,
                                 triton_url=triton_url, max_cost=max_cost)
    if result.get("write_failed"):              # the flow says it (check_writes)
        return result
    get_run_logger().info(
        "%s: %d answers wrong under %s, %d to label; %d labelled (%d by rule), %d label_failed, "
        "%d failed calls; %d sent, %d from the cache; cost $%.4f", labeller, result["wrong"],
        result["grader"], result["chosen"], result["labelled"], result["by_rule"],
        result["label_failed"], result["infra_failed"], result["asked"], result["cached_now"],
        result["cost_usd"])
    return result
