"""The `mathprobe` probe commands (registered on the app by flows.cli): `contamination` and
`classify` run a benchmark's probes (ConceptMath's contamination and concept classification);
`judge-audit` measures graders against reference verdicts."""
from __future__ import annotations

import json
import sys
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.text import Text

from mathprobe.flows.cli_common import (BENCHMARKS_HELP, MODELS_HELP, Concurrency, DataDir, Db, err,
                                        load_flow, progress_bar)
from mathprobe.tasks.errors import Exit


ProbeModel = Annotated[str, typer.Option("--model", help=MODELS_HELP + ".")]
Limit = Annotated[Optional[int], typer.Option("--limit", help="About N questions: a seeded "
                                              "stratified sample over the benchmark's strata "
                                              "(ConceptMath: system and concept).")]
OptionalRunId = Annotated[Optional[str], typer.Option("--run-id")]
RetryFailed = Annotated[bool, typer.Option("--retry-failed", help="Re-drive only the calls "
                                           "that failed.")]
TritonUrl = Annotated[Optional[str], typer.Option("--triton-url", help="HOST:PORT of the Triton "
                                                  "gRPC endpoint (triton: models).")]
AsJson = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]
ProbeBenchmark = Annotated[Optional[str], typer.Option(
    "--benchmark", help="The benchmark whose probe to run (default: the one that has it); one "
    f"of: {BENCHMARKS_HELP}.")]


def contamination(
    model: ProbeModel,
    db: Db,
    method: Annotated[str, typer.Option("--method", help="rouge, mink or both")] = "both",
    run_id: OptionalRunId = None,
    data_dir: DataDir = None,
    limit: Limit = None,
    concurrency: Concurrency = None,
    retry_failed: RetryFailed = False,
    triton_url: TritonUrl = None,
    benchmark: ProbeBenchmark = None,
    as_json: AsJson = False,
) -> None:
    """ConceptMath contamination (paper Table 3): Rouge-L of continuations, MIN-K% (K=10)."""
    _run_probe("contamination", None if method == "both" else [method], as_json, method=method,
               model=model, benchmark=benchmark, run_id=run_id, db=db, data_dir=data_dir,
               limit=limit, concurrency=concurrency, retry_failed=retry_failed,
               triton_url=triton_url)


def classify(
    model: ProbeModel,
    db: Db,
    run_id: OptionalRunId = None,
    data_dir: DataDir = None,
    limit: Limit = None,
    concurrency: Concurrency = None,
    retry_failed: RetryFailed = False,
    triton_url: TritonUrl = None,
    benchmark: ProbeBenchmark = None,
    as_json: AsJson = False,
) -> None:
    """ConceptMath concept classification (paper Tables 6/8/9): MRR and top-1 per system."""
    _run_probe("classify", None, as_json, model=model, benchmark=benchmark, run_id=run_id,
               db=db, data_dir=data_dir, limit=limit, concurrency=concurrency,
               retry_failed=retry_failed, triton_url=triton_url)


def _run_probe(family: str, methods: list[str] | None, as_json: bool, **params) -> None:
    """Check the probe's arguments (before Prefect), run its flow (`<family>_flow` in
    flows/probes.py) with a progress bar, and print what it found."""
    from mathprobe.tasks.runs import preflight

    preflight.check_probe(family=family, benchmark=params["benchmark"], methods=methods,
                          model=params["model"], run_id=params["run_id"], db=params["db"],
                          data_dir=params["data_dir"], limit=params["limit"],
                          concurrency=params["concurrency"])
    probe_flow = load_flow("probes", f"{family}_flow")
    with progress_bar():
        out = probe_flow(**{**params, "db": str(params["db"]),
                            "data_dir": str(params["data_dir"]) if params["data_dir"] else None})
    _emit_probe(out, as_json)


def _emit_probe(out: dict, as_json: bool) -> None:
    """The probes' tables (or JSON), each run's failure reasons, and the exit status: 3 when
    a probe run has calls that failed for good."""
    from rich.table import Table

    from mathprobe.tasks.reports.summary import failure_lines

    if as_json:
        sys.stdout.write(json.dumps(out, indent=2, default=str) + "\n")
    for probe, result in out.items():
        rows = result["rows"]
        if not as_json:
            table = Table(title=f"{probe}: run {result['run_id']}", title_justify="left")
            for col in (rows[0].keys() if rows else ["(no answers)"]):
                table.add_column(col, justify="left" if col in ("run_id", "system") else "right")
            for r in rows:
                table.add_row(*(f"{v:.4f}" if isinstance(v, float) else str(v)
                                for v in r.values()))
            Console().print(table)
        run = result.get("run") or {}
        if run.get("n_infra_failed"):
            err.print(Text(f"{probe}: {run['n_infra_failed']} of {run['n_items']} call(s) "
                           "failed (infra_failed), not scored; re-drive them with "
                           "--retry-failed", style="yellow"), soft_wrap=True)
            for line in failure_lines(result.get("failures", []), run["n_infra_failed"]):
                err.print(Text(f"  {line}", style="yellow"), soft_wrap=True)
    if any((r.get("run") or {}).get("n_infra_failed") for r in out.values()):
        raise typer.Exit(Exit.INCOMPLETE)


def judge_audit(
    db: Db,
    data_dir: DataDir = None,
    judge: Annotated[Optional[str], typer.Option("--judge", help="BACKEND:NAME of a judge to "
                                                 "audit as well (alone and as the cascade).")] = None,
    audit_id: Annotated[str, typer.Option("--audit-id")] = "gradegpt-sample",
    concurrency: Concurrency = None,
    limit: Annotated[Optional[int], typer.Option("--limit", help="Judge only the first N "
                                                 "records.")] = None,
    benchmark: Annotated[Optional[str], typer.Option(
        "--benchmark", help="The benchmark whose judge to audit (default: the one with an "
        "audit).")] = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Measure graders against reference verdicts (CMMaTH: GPT-4's on the GradeGPT judgment
    sample): the rule stage, and with --judge a judge backend and the cascade (view
    judge_agreement)."""
    from rich.table import Table

    from mathprobe.tasks import registry
    from mathprobe.tasks.runs import preflight
    from mathprobe.tasks.store import open_store

    preflight.check_counts(limit=limit, concurrency=concurrency)
    bench = registry.with_judge_audit(preflight.benchmark(benchmark).name if benchmark else None)
    if judge is not None:
        preflight.check_judge(bench, judge)
    preflight.store_path(db)
    preflight.data(bench, data_dir)
    store = open_store(db)
    rows = bench.judge.audit(store, registry.resolve_data_dir(data_dir), audit_id=audit_id,
                             judge=judge, concurrency=concurrency, limit=limit)
    if as_json:
        sys.stdout.write(json.dumps(rows, indent=2, default=str) + "\n")
        return
    table = Table(title=f"{bench.title} graders vs reference verdicts (view judge_agreement, "
                        f"audit {audit_id})", title_justify="left")
    cols = {"grader": "grader", "n": "n", "undecided_share": "undecided",
            "agreement": "agree", "balanced_accuracy": "bal.acc", "precision_yes": "P(Yes)",
            "recall_yes": "R(Yes)", "tp": "tp", "fp": "fp", "tn": "tn", "fn": "fn"}
    for c, label in cols.items():
        table.add_column(label, justify="left" if c == "grader" else "right")
    for r in rows:
        table.add_row(*(f"{r[c]:.3f}" if isinstance(r[c], float) else str(r[c]) for c in cols))
    Console().print(table)
