"""The `eval` flow: load -> prompt -> respond (sharded, bounded; or in batches at half the
price, --batch; each item K times with --samples K) -> store -> grade -> report.

Work is split into a Prefect task per shard of items, not per request, so Prefect's own
bookkeeping stays small next to the model calls. Re-running with the same run id resumes: items
that already have an answer are not asked again.
"""
from __future__ import annotations

from typing import Any

from prefect import flow, get_run_logger
from prefect.task_runners import ThreadPoolTaskRunner

from mathprobe import reports
from mathprobe.backends import parse_spec
from mathprobe.errors import StoreWriteError
from mathprobe.flows.artifacts import (
    BenchmarkParam,
    ProgressArtifact,
    SettingParam,
    flow_run_name,
    html_path,
    key_mapping,
    publish,
)
from mathprobe.flows.common import LogProgress, fail_cleanly, repair_dead_runs
from mathprobe.runs import (
    Budget,
    check_backend,
    judging,
    output_paths,
    preflight,
    progress,
    runtime,
)
from mathprobe.runs.asking import check_writes, ended, room_for
from mathprobe.runs.batching import check_none_waiting
from mathprobe.runs.config import RunConfig
from mathprobe.runs.finished import ended_status, not_asked
from mathprobe.runs.limits import global_slot
from mathprobe.runs.samples import Ask
from mathprobe.store import open_store, run_lease
from mathprobe.store.location import parse as parse_location
from mathprobe.store.owned_paths import input_paths, store_paths
from mathprobe.tasks.batches import respond_batches
from mathprobe.tasks.grade import grade_task
from mathprobe.tasks.judge import judge_task
from mathprobe.tasks.prepare import prepare_task
from mathprobe.tasks.respond import BUDGETS, respond_shard

SHARD_WORKERS = 4          # shard tasks running at once (threads of this process)
MAX_SHARD = 2000           # items per shard at most


default_run_id = preflight.default_run_id


def mark_ended(store, run_id: str, exc: BaseException, lease) -> None:
    """The status of a run this flow stops on `exc`, once it has opened it (`running`): an
    interruption (Ctrl-C, SIGTERM, a cancelled or paused flow run: not an Exception) leaves it
    `interrupted`, an error (bad data found only now, a bug) `failed`; both resume with the same
    command. A store that could not be written (StoreWriteError: check_writes marked the run
    and closed it, or the one small write `ended` tries) and a run another process may have
    taken over (its claim lost) get nothing more."""
    if lease is not None and lease.lost.is_set():
        return
    if isinstance(exc, StoreWriteError):
        if store.con is not None:
            ended(store, run_id, "interrupted")
        return
    store.finish_run(run_id, "failed" if isinstance(exc, Exception) else "interrupted",
                     only_running=True)


def shard(asks: list[Ask], workers: int) -> list[list[Ask]]:
    """Equal shards, as many as the workers (more when large), so none idles at the end. With
    --samples K the requests come sample by sample and each shard takes every n-th of them, so
    the shards running at once ask the first sample before the later ones (what --max-cost
    stops leaves the paper's figures as whole as it can)."""
    if not asks:
        return []
    n = max(workers, -(-len(asks) // MAX_SHARD))
    n = -(-n // workers) * workers                 # a multiple of the workers
    if any(sample for _, sample in asks):
        return [part for part in (asks[i::n] for i in range(n)) if part]
    size = -(-len(asks) // n)
    return [asks[i:i + size] for i in range(0, len(asks), size)]


@flow(name="eval", log_prints=True, flow_run_name=flow_run_name,
      # Prefect types task_runner as TaskRunner[PrefectFuture[Any]], an invariant generic its
      # own ThreadPoolTaskRunner (a TaskRunner[PrefectConcurrentFuture]) does not match
      task_runner=ThreadPoolTaskRunner(max_workers=SHARD_WORKERS))  # type: ignore[arg-type]
@fail_cleanly
def eval_flow(benchmark: BenchmarkParam, model: str = "baseline:random",
              setting: SettingParam = None, run_id: str | None = None,
              db: str = "mathprobe.duckdb", data_dir: str | None = None,
              limit: int | None = None, concurrency: int | None = None, retry_failed: bool = False,
              max_cost: float | None = None, temperature: float | None = None,
              max_tokens: int | None = None, request_timeout: float | None = None,
              triton_url: str | None = None, judge: str | None = None,
              data_path: str | None = None, html_report: str | None = None,
              backend_options: dict[str, Any] | None = None,
              batch: bool = False, samples: int | None = None,
              seed: int | None = None) -> dict[str, Any]:
    """Evaluate `model` on `benchmark`, store every response in `db`, return the report.

    `db` is a DuckDB file or a shared DuckLake store (`ducklake:sqlite:FILE`,
    `ducklake:postgres:dbname=... host=...`); `data_path` is where a new lake keeps its files.

    Re-running the same run id resumes it; `retry_failed` re-drives only failed calls;
    `max_cost` (USD) stops issuing requests once the run has spent that much; `triton_url`
    (HOST:PORT, default $MATHPROBE_TRITON_URL) is where `triton:` models are served; `judge`
    (BACKEND:NAME) grades what the benchmark's judge is asked about (CMMaTH: what the rules
    leave undecided; WE-MATH: what the official regex finds no letter in), cached by content.

    Args:
        benchmark: The benchmark, one of those registered (plug-ins included).
        setting: Prompt setting (empty: the benchmark's default); the choices are every
            benchmark's settings, and a setting the chosen benchmark lacks is refused.
        model: BACKEND:NAME of the model: baseline:random, openai:MODEL, anthropic:MODEL,
            triton:MODEL, replay:FILE.
        run_id: Run id; the same id resumes the run (default: benchmark-model-setting).
        db: The store: a DuckDB file (an absolute path on the worker) or a shared DuckLake
            store, ducklake:sqlite:FILE or ducklake:postgres:dbname=... host=...
        data_dir: Folder holding one folder per benchmark (default: $MATHPROBE_DATA_DIR).
        limit: Evaluate about N questions (a seeded sample, whole WE-MATH problems; empty: all).
        concurrency: Requests in flight at most: a ceiling, under which the run finds how many
            the server takes (more while it answers, fewer on 429/503; empty: the provider's
            cap, e.g. 256 for openai).
        retry_failed: Re-ask only the calls that failed before (infra_failed) or were cut at
            the token cap (truncated).
        max_cost: Stop issuing requests once the run has cost this much (USD).
        temperature: Sampling temperature (empty: the paper's).
        max_tokens: Most new tokens per answer, reasoning included (empty: the paper's; a
            reasoning model's own). A resumed run may raise it: what was cut is asked again.
        request_timeout: Seconds per attempt of a request.
        triton_url: HOST:PORT of the Triton gRPC endpoint, for triton: models.
        judge: BACKEND:NAME of a judge (CMMaTH: for what the rules leave undecided; WE-MATH:
            VLMEvalKit's judged extractor, beside the official grader).
        data_path: Where a new DuckLake store keeps its Parquet files (a folder or an object
            store URL).
        html_report: Write the run's HTML report to this file; 'auto': beside the store's
            file, in <file stem>-reports/<run id>.html; empty: none.
        backend_options: The model's backend's own options, e.g. {"reasoning_effort": "low"}
            (openai: reasoning models) or {"thinking_budget": 2048} (anthropic: extended
            thinking); see docs/reasoning-models.md.
        batch: Ask through the service's batch API (openai, anthropic: half the price, answers
            within 24 h), the judge's calls too; the flow run is paused while it waits, and
            the same parameters again resume it, submitting nothing twice (docs/batches.md).
        samples: Ask each item this many times (1 to 100; independent samples, each stored
            with its index: pass@k, maj@k and the spread between samples in the report; K > 1
            needs a temperature above 0); empty: the run's own (1 for a new run). A resumed
            run may raise it: only the missing samples are asked (docs/sampling.md).
        seed: The draws of a seeded model (baseline:random), which also depend on the setting
            (empty: 0); recorded as a parameter of the run, so a run id keeps its seed.
    """
    plan = preflight.check_eval(              # the command line ran these before Prefect
        benchmark=benchmark, model=model, setting=setting, run_id=run_id, db=db,
        data_dir=data_dir, limit=limit, concurrency=concurrency, max_cost=max_cost,
        temperature=temperature, max_tokens=max_tokens, request_timeout=request_timeout,
        judge=judge, data_path=data_path, backend_options=backend_options, batch=batch,
        samples=samples, seed=seed)
    report_file = html_path(db, plan.run_id, html_report)
    if report_file is not None:                # written at the end: checked before any work
        output_paths.output_file("html_report", report_file,
                                 store_paths(parse_location(db, data_path))
                                 + input_paths(plan.data_dir, what="the benchmark data folder"))
    cfg = RunConfig(benchmark=benchmark, model=model, setting=plan.setting, run_id=plan.run_id,
                    db=db, data_dir=str(plan.data_dir), params=plan.params,
                    concurrency=concurrency, request_timeout=request_timeout,
                    triton_url=triton_url, max_cost=max_cost, judge=judge, batch=batch,
                    samples=samples)
    check_backend(model, keep=(cfg.run_id, cfg.backend))   # the run's client, made once now
    try:
        runtime.start(global_slot(parse_spec(model)[0]))   # looked up while the store is prepared
        if judge is not None:
            check_backend(judging.backend_spec(judge))
        store = open_store(cfg.db, data_path)
    except BaseException:
        runtime.run(runtime.close_backend(cfg.run_id))
        raise
    # notes, counts and failures in the Prefect log; the run claimed (one live writer per run
    # id: a second process on it waits for the first to end, then asks only what is left)
    with LogProgress(cfg.run_id), run_lease.holding(
            store, cfg.run_id, say=lambda message: progress.note(cfg.run_id, message)) as lease:
        mapped = key_mapping(cfg.run_id, cfg.db)
        if mapped:
            progress.note(cfg.run_id, mapped)
        repair_dead_runs(store, cfg.run_id)
        if not batch:
            check_none_waiting(store, cfg.run_id)        # an earlier --batch's, not yet back
        shown = None
        try:
            todo = prepare_task(cfg, limit, retry_failed)
            budget = BUDGETS[cfg.run_id] = Budget(max_cost, store.spent(cfg.run_id))
            progress.emit("start", cfg.run_id, total=len(todo))
            shown = ProgressArtifact(cfg.run_id, cfg.db, len(todo))    # the UI's progress bar
            progress.subscribe(shown)
            room_for(store, cfg.run_id, len(todo))    # the whole run's answers, up front
            if batch:                          # one task: the service splits the work
                respond_batches(cfg, todo)
            else:
                futures = [respond_shard.submit(cfg, s, concurrency, max_cost)
                           for s in shard(todo, SHARD_WORKERS)]
                for future in futures:
                    future.result()
            check_writes(store, cfg.run_id, len(todo))   # a full disk: stop here, answers kept
            run_lease.check(lease)             # a claim it could not renew: stop here too
            grade_task(cfg)
            if judge is not None:
                judge_task(cfg, judge, retry_failed, concurrency)
                check_writes(store, cfg.run_id)
        except BaseException as exc:
            runtime.run(runtime.cancel_group(cfg.run_id))     # calls in flight: not failures
            mark_ended(store, cfg.run_id, exc, lease)
            raise
        finally:
            if shown is not None:
                progress.unsubscribe(shown)
                shown.close()
            BUDGETS.pop(cfg.run_id, None)
            runtime.run(runtime.close_backend(cfg.run_id))
    run = store.stored_run(cfg.run_id)
    if budget.exhausted and not_asked(run):
        status = "stopped_max_cost"
        what = "item(s)" if run.get("sampled") is None else "answer(s) of the samples"
        message = budget.stopped(not_asked(run), what)
        get_run_logger().warning(message, extra=progress.SHOWN)
        progress.emit("stopped", cfg.run_id, reason=message)
    else:
        status = ended_status(run)
    store.finish_run(cfg.run_id, status)
    report = reports.build(store, cfg.run_id)
    return publish(store, report, cfg.db, html_report)
