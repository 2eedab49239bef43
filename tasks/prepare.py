"""The `prepare` task: the benchmark loaded, its items stored, the run opened with its card;
returns the (item, sample) pairs to ask now."""
from __future__ import annotations

from prefect import get_run_logger, task
from prefect.cache_policies import NO_CACHE

from mathprobe import registry
from mathprobe.backends import parse_spec
from mathprobe.registry import resolve_data_dir
from mathprobe.runs import card, prepare, progress
from mathprobe.runs.config import RunConfig
from mathprobe.runs.pending import pending
from mathprobe.runs.samples import Ask
from mathprobe.sampling import describe
from mathprobe.store import RunSpec, open_store
from mathprobe.tasks.run_log import current_flow_run_id


@task(name="prepare", cache_policy=NO_CACHE)
def prepare_task(cfg: RunConfig, limit: int | None, retry_failed: bool) -> list[Ask]:
    """Load the benchmark, store items, open the run; return the (item id, sample) pairs to
    ask now (sample 0 only, for a run of one sample).

    A normal run asks what was never asked (and what was cut at a token cap it has since
    raised); `retry_failed` asks only what failed or was cut before.
    """
    bench = registry.get(cfg.benchmark)
    store = open_store(cfg.db)
    dataset = prepare(store, bench, resolve_data_dir(cfg.data_dir))
    chosen = bench.select(dataset.items, limit)
    if limit is not None:
        progress.note(cfg.run_id, f"--limit {limit}: " + describe(
            dataset.items, chosen, strata=bench.strata, names=bench.strata_names,
            unit=bench.sample_unit))
    kind, _ = parse_spec(cfg.model)
    store.start_run(RunSpec(cfg.run_id, cfg.benchmark, cfg.model, kind, cfg.setting, cfg.params,
                            current_flow_run_id(), samples=cfg.samples), n_items=len(chosen))
    samples = store.run_samples(cfg.run_id)          # --samples K, or the run's own
    store.set_card(cfg.run_id, card.run_facts(
        bench, resolve_data_dir(cfg.data_dir), model=cfg.model, kind=kind, setting=cfg.setting,
        params=cfg.params, items=chosen, limit=limit, concurrency=cfg.concurrency,
        retry_failed=retry_failed, max_cost=cfg.max_cost, request_timeout=cfg.request_timeout,
        triton_url=cfg.triton_url, judge=cfg.judge, flow_run_id=current_flow_run_id(),
        batch=cfg.batch, samples=samples))
    left = pending(store, bench, chosen, cfg.run_id, cfg.model, cfg.setting, cfg.params,
                   retry_failed, samples)
    if left.recut:
        progress.note(cfg.run_id, f"{left.recut} answer(s) cut at the token cap before: asked "
                                  "again under the larger cap")
    get_run_logger().info(
        "%s: %d items selected%s, %d answered, %d failed before, %d cut at the token cap, "
        "%d to ask%s", cfg.run_id, len(chosen),
        f" x {samples} samples" if samples > 1 else "", left.answered, left.failed,
        left.truncated, len(left.todo),
        "" if retry_failed or not (left.failed or left.truncated - left.recut)
        else " (use --retry-failed to re-drive the failed and the cut)")
    return left.todo
