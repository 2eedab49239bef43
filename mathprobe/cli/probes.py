"""The `mathprobe` probe commands (registered on the app by mathprobe.cli.main): `contamination` and
`classify` run a benchmark's probes (ConceptMath's contamination and concept classification)."""
from __future__ import annotations

import json
import sys
from typing import Annotated

import typer
from rich.console import Console
from rich.text import Text

from mathprobe.cli.common import (
    BENCHMARKS_HELP,
    MODELS_HELP,
    Concurrency,
    DataDir,
    Db,
    err,
    load_flow,
    progress_bar,
)
from mathprobe.errors import Exit

ProbeModel = Annotated[str, typer.Option("--model", help=MODELS_HELP + ".")]
Limit = Annotated[int | None, typer.Option("--limit", help="About N questions: a seeded "
                                              "stratified sample over the benchmark's strata "
                                              "(ConceptMath: system and concept).")]
OptionalRunId = Annotated[str | None, typer.Option("--run-id", help="Run id; reuse it to "
                                                   "resume (default: BENCHMARK-MODEL-SETTING, "
                                                   "the probe's setting; with both methods, "
                                                   "ID-METHOD each).")]
RetryFailed = Annotated[bool, typer.Option("--retry-failed", help="Re-drive only the calls "
                                           "that failed.")]
TritonUrl = Annotated[str | None, typer.Option("--triton-url", help="HOST:PORT of the Triton "
                                                  "gRPC endpoint (triton: models).")]
AsJson = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]
ProbeBenchmark = Annotated[str | None, typer.Option(
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
    from mathprobe.runs import preflight

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

    from mathprobe.reports.notes import failure_lines

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
