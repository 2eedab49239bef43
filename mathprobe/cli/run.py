"""`mathprobe run`: the `eval` flow run here, its report printed. Everything that can be checked
without Prefect is checked first (`mathprobe.runs.preflight`), and a run with nothing left to do
prints its stored report without starting Prefect at all."""
from __future__ import annotations

from typing import Annotated

import typer
from rich.text import Text

from mathprobe.cli.common import (
    MODELS_HELP,
    SETTINGS_HELP,
    Batch,
    Benchmark,
    Concurrency,
    DataDir,
    DataPath,
    Db,
    RunId,
    Samples,
    emit,
    err,
    importing,
    load_flow,
    progress_bar,
    with_backend_options,
)
from mathprobe.errors import run_exit_code


@with_backend_options
def run(
    benchmark: Benchmark,
    model: Annotated[str, typer.Option("--model", help=MODELS_HELP + ".")],
    run_id: RunId,
    db: Db,
    data_dir: DataDir = None,
    limit: Annotated[int | None, typer.Option("--limit", help="Evaluate about N questions: a "
                                                 "seeded stratified sample over the benchmark's "
                                                 "strata (whole WE-MATH problems only); a larger "
                                                 "N selects a superset.")] = None,
    setting: Annotated[str | None, typer.Option("--setting", help="Prompt setting; "
                                                   f"{SETTINGS_HELP}.")] = None,
    concurrency: Concurrency = None,
    retry_failed: Annotated[bool, typer.Option("--retry-failed", help="Re-drive only the "
                                               "calls that failed (infra_failed) or were cut "
                                               "at the token cap (truncated).")] = False,
    max_cost: Annotated[float | None, typer.Option("--max-cost", help="Stop issuing "
                                                      "requests once the run cost this (USD).")] = None,
    temperature: Annotated[float | None, typer.Option("--temperature", help="Sampling "
                                                     "temperature, 0..2 (default: the "
                                                     "paper's).")] = None,
    max_tokens: Annotated[int | None, typer.Option("--max-tokens", help="Most new tokens per "
                                                     "answer, a reasoning model's reasoning "
                                                     "included (default: the paper's; for a "
                                                     "reasoning model, its own).")] = None,
    request_timeout: Annotated[float | None, typer.Option("--request-timeout",
                                                             help="Seconds per attempt.")] = None,
    triton_url: Annotated[str | None, typer.Option("--triton-url", help="HOST:PORT of the "
                                                      "Triton gRPC endpoint (triton: models).")] = None,
    judge: Annotated[str | None, typer.Option("--judge", help="BACKEND:NAME of a judge (CMMaTH: "
                                                 "for what the rules leave undecided; WE-MATH: "
                                                 "VLMEvalKit's judged extractor beside the "
                                                 "official one). See mathprobe judge.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    data_path: DataPath = None,
    batch: Batch = False,
    samples: Samples = None,
    seed: Annotated[int | None, typer.Option("--seed", help="The chance baseline's draws "
                                                "(baseline:random; they also depend on the "
                                                "setting): the same seed, the same answers "
                                                "(default 0; recorded with the run).")] = None,
    backend_options: dict | None = None,
) -> None:
    """Run the `eval` flow locally and print the report. The same --run-id resumes."""
    from mathprobe.runs import preflight

    options = {k: v for k, v in (backend_options or {}).items() if v is not None} or None
    plan = preflight.check_eval(benchmark=benchmark, model=model, setting=setting,
                                run_id=run_id, db=db, data_dir=data_dir, limit=limit,
                                concurrency=concurrency, max_cost=max_cost,
                                temperature=temperature, max_tokens=max_tokens,
                                request_timeout=request_timeout, judge=judge, data_path=data_path,
                                backend_options=options, batch=batch, samples=samples,
                                seed=seed)
    stored = _stored_report(db, plan, limit, retry_failed, judge, data_path)
    if stored is not None:                 # nothing left to do: no Prefect at all
        emit(stored, as_json)
        raise typer.Exit(run_exit_code(stored))
    from mathprobe.backends import MODULES, parse_spec

    eval_flow = load_flow("eval", "eval_flow")
    with importing(MODULES[parse_spec(model)[0]]), progress_bar():
        report = eval_flow(benchmark=benchmark, model=model, setting=setting,
                           run_id=run_id, db=str(db),
                           data_dir=str(data_dir) if data_dir else None, limit=limit,
                           concurrency=concurrency, retry_failed=retry_failed,
                           max_cost=max_cost, temperature=temperature, max_tokens=max_tokens,
                           request_timeout=request_timeout, triton_url=triton_url,
                           judge=judge, data_path=data_path, backend_options=options,
                           batch=batch, samples=samples,
                           seed=seed)
    emit(report, as_json)
    raise typer.Exit(run_exit_code(report))


def _stored_report(db: str, plan, limit: int | None, retry_failed: bool,
                   judge: str | None, data_path: str | None) -> dict | None:
    """The stored report of a run with nothing left to do (`mathprobe.runs.finished`), or None."""
    from mathprobe import reports
    from mathprobe.runs.finished import finished

    store = finished(db, plan.bench, plan.data_dir, plan.run_id, limit, retry_failed, judge,
                     data_path, params=plan.params, samples=plan.samples)
    if store is None:
        return None
    err.print(Text(f"run {plan.run_id}: nothing left to ask or grade; its stored report:",
                   style="dim"), soft_wrap=True)
    return reports.build(store, plan.run_id)
