"""The `mathprobe` command line.

Everything that can be checked without Prefect (arguments, benchmark, setting, model, API key,
data files, the store file) is checked before a flow module is imported (`tasks.runs.preflight`):
starting Prefect takes 10-20 s, a typo must not wait for it. A user error ends the command with
one `error:` line (a traceback only with --debug) and a documented exit status (`tasks.errors.Exit`).
"""
from __future__ import annotations

import json
import os
import sys
import threading
import traceback
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.text import Text

from flows import results_cli, server, triton_cli
from flows.exits import (EXIT_CODES, quiet_user_error_tracebacks, release_frames,
                         run_exit_code)
from tasks.errors import Exit, MathprobeError

# The ephemeral Prefect server's telemetry heartbeat races its own SQLite file and logs a
# spurious "database is locked" traceback on every local run; nothing here needs telemetry.
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")

def _choices() -> tuple[str, str]:
    """The benchmarks and their settings, for --help (a broken plug-in must not break it)."""
    from tasks import registry

    try:
        benches = registry.all_benchmarks()
    except Exception:                      # noqa: BLE001  (the command reports it when used)
        return ", ".join(registry.names()), "see each benchmark"
    return (", ".join(b.name for b in benches),
            "; ".join(f"{b.name}: {', '.join(b.settings)} (default {b.default_setting})"
                      for b in benches))


BENCHMARKS_HELP, SETTINGS_HELP = _choices()
MODELS_HELP = ("BACKEND:NAME, one of: baseline:random (offline chance baseline), openai:MODEL, "
               "anthropic:MODEL, triton:MODEL, replay:FILE")

app = typer.Typer(help="mathprobe: concept-wise math benchmark evaluation.", epilog=EXIT_CODES,
                  invoke_without_command=True, pretty_exceptions_enable=False,
                  rich_markup_mode=None)
err = Console(stderr=True)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"mathprobe {version('mathprobe')}")
        raise typer.Exit()


@app.callback()
def _options(
    ctx: typer.Context,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
    debug: Annotated[bool, typer.Option("--debug", help="Show the traceback of an error "
                                        "(also accepted after the command).")] = False,
) -> None:
    """mathprobe: concept-wise math benchmark evaluation."""
    if debug:
        _DEBUG.set()
    if ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help())
        raise typer.Exit()


_DEBUG = threading.Event()

DataDir = Annotated[Optional[Path], typer.Option(
    "--data-dir", help="Folder holding one folder per benchmark (default: $MATHPROBE_DATA_DIR).")]
Db = Annotated[str, typer.Option("--db", help="DuckDB file (created if absent), or a shared "
                                  "DuckLake store: ducklake:sqlite:FILE or "
                                  "'ducklake:postgres:dbname=NAME host=HOST'.")]
DataPath = Annotated[Optional[str], typer.Option(
    "--data-path", help="Where a new DuckLake store keeps its Parquet files (a folder or an "
    "object store URL; default for ducklake:sqlite:FILE: FILE.files/).")]
RunId = Annotated[str, typer.Option("--run-id", help="Run id; reuse it to resume a run.")]
Benchmark = Annotated[str, typer.Option("--benchmark", help=f"One of: {BENCHMARKS_HELP}.")]

DEMO_DB = "out/demo.duckdb"

app.command("compare")(results_cli.compare)


@app.command("import")
def import_(
    file: Annotated[Path, typer.Argument(help="Response file in the authors' result format.")],
    benchmark: Benchmark,
    run_id: RunId,
    db: Db,
    fmt: Annotated[str, typer.Option("--format", help="Only 'official' for now.")] = "official",
    data_dir: DataDir = None,
    data_path: DataPath = None,
) -> None:
    """Load responses produced elsewhere, grade them, and fill every view."""
    from tasks import registry
    from tasks.runs import import_official, preflight
    from tasks.store import open_store

    if fmt != "official":
        raise MathprobeError(f"--format {fmt!r}: only 'official' (the authors' result format)")
    preflight.check_run_id(run_id)
    bench = preflight.benchmark(benchmark)
    preflight.store_path(db, data_path)
    store = open_store(db, data_path)
    counts = import_official(store, bench, registry.resolve_data_dir(data_dir), file, run_id)
    err.print(f"imported {file} into run {run_id}: {counts['new']} new responses, "
              f"{counts['already_stored']} already stored, {counts['missing']} without a response")


@app.command()
def run(
    benchmark: Benchmark,
    model: Annotated[str, typer.Option("--model", help=MODELS_HELP + ".")],
    run_id: RunId,
    db: Db,
    data_dir: DataDir = None,
    limit: Annotated[Optional[int], typer.Option("--limit", help="Evaluate about N questions: a "
                                                 "seeded stratified sample over the benchmark's "
                                                 "strata (whole WE-MATH problems only); a larger "
                                                 "N selects a superset.")] = None,
    setting: Annotated[Optional[str], typer.Option("--setting", help="Prompt setting; "
                                                   f"{SETTINGS_HELP}.")] = None,
    concurrency: Annotated[int, typer.Option("--concurrency", help="Requests in flight.")] = 16,
    retry_failed: Annotated[bool, typer.Option("--retry-failed", help="Re-drive only the "
                                               "calls that failed (infra_failed).")] = False,
    max_cost: Annotated[Optional[float], typer.Option("--max-cost", help="Stop issuing "
                                                      "requests once the run cost this (USD).")] = None,
    temperature: Annotated[Optional[float], typer.Option("--temperature")] = None,
    max_tokens: Annotated[Optional[int], typer.Option("--max-tokens")] = None,
    request_timeout: Annotated[Optional[float], typer.Option("--request-timeout",
                                                             help="Seconds per attempt.")] = None,
    triton_url: Annotated[Optional[str], typer.Option("--triton-url", help="HOST:PORT of the "
                                                      "Triton gRPC endpoint (triton: models).")] = None,
    judge: Annotated[Optional[str], typer.Option("--judge", help="BACKEND:NAME of a judge for "
                                                 "what the rules leave undecided (CMMaTH).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    data_path: DataPath = None,
) -> None:
    """Run the `eval` flow locally and print the report. The same --run-id resumes."""
    from tasks.runs import preflight

    plan = preflight.check_eval(benchmark=benchmark, model=model, setting=setting,
                                run_id=run_id, db=db, data_dir=data_dir, limit=limit,
                                concurrency=concurrency, max_cost=max_cost,
                                temperature=temperature, max_tokens=max_tokens,
                                request_timeout=request_timeout, judge=judge, data_path=data_path)
    stored = _stored_report(db, plan, limit, retry_failed, judge, data_path)
    if stored is not None:                 # nothing left to do: no Prefect at all
        _emit(stored, as_json)
        raise typer.Exit(run_exit_code(stored))
    eval_flow = _flow("eval", "eval_flow")
    with progress_bar():
        report = eval_flow(benchmark=benchmark, model=model, setting=setting, run_id=run_id,
                           db=str(db), data_dir=str(data_dir) if data_dir else None,
                           limit=limit, concurrency=concurrency, retry_failed=retry_failed,
                           max_cost=max_cost, temperature=temperature, max_tokens=max_tokens,
                           request_timeout=request_timeout, triton_url=triton_url,
                           judge=judge, data_path=data_path)
    _emit(report, as_json)
    raise typer.Exit(run_exit_code(report))


def _stored_report(db: str, plan, limit: int | None, retry_failed: bool,
                   judge: str | None, data_path: str | None) -> dict | None:
    """The stored report of a run with nothing left to do (`tasks.runs.finished`), or None."""
    from tasks import reports
    from tasks.runs.finished import finished

    store = finished(db, plan.bench, plan.data_dir, plan.run_id, limit, retry_failed, judge,
                     data_path)
    if store is None:
        return None
    err.print(Text(f"run {plan.run_id}: nothing left to ask or grade; its stored report:",
                   style="dim"), soft_wrap=True)
    return reports.build(store, plan.run_id)


_NOTED = threading.Event()


def _flow(module: str, name: str):
    """A flow, imported only now (importing Prefect takes seconds; checks come first). The
    console shows a user error's message without its traceback (the Prefect API keeps it).
    Without a Prefect server the flow starts a temporary one: said once, with the remedy."""
    import importlib

    if server.use_running() is None and not _NOTED.is_set():     # before Prefect is imported
        _NOTED.set()
        err.print(Text(server.temporary_note(), style="dim"), soft_wrap=True)
    flow = getattr(importlib.import_module(f"flows.{module}"), name)
    if not _DEBUG.is_set():
        quiet_user_error_tracebacks()
    return flow


@contextmanager
def progress_bar():
    """A rich progress bar on stderr, fed by the pipeline's progress events."""
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)

    from tasks.runs import progress as events

    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("{task.fields[counts]}"), TimeElapsedColumn(),
                   TimeRemainingColumn(), console=err, transient=False)
    tasks: dict[str, int] = {}
    counts: dict[str, dict[str, int]] = {}

    def listener(event: str, run_id: str, **data) -> None:
        if event == "start":
            counts[run_id] = {}
            tasks[run_id] = bar.add_task(f"{run_id}", total=data["total"], counts="")
        elif event == "done" and run_id in tasks:
            c = counts[run_id]
            c[data["status"]] = c.get(data["status"], 0) + 1
            bar.update(tasks[run_id], advance=1,
                       counts=", ".join(f"{v} {k}" for k, v in sorted(c.items())))
        elif event == "stopped":
            bar.console.print(Text(data["reason"], style="yellow"), soft_wrap=True)
        elif event == "note":
            bar.console.print(Text(data["message"], style="dim"), soft_wrap=True)

    events.subscribe(listener)
    bar.start()
    try:
        yield bar
    finally:
        bar.stop()
        events.unsubscribe(listener)


@app.command()
def report(
    db: Db,
    run_id: Annotated[Optional[str], typer.Option("--run-id", help="The run to report.")] = None,
    grader: Annotated[Optional[str], typer.Option("--grader")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    html: Annotated[Optional[Path], typer.Option(
        "--html", help="Write a self-contained HTML report (plots, intervals, glossary, item "
        "browser) to this file.")] = None,
    runs: Annotated[Optional[str], typer.Option(
        "--runs", help="With --html: the runs to compare, A,B,... (the first is the "
        "baseline).")] = None,
    figures: Annotated[Optional[Path], typer.Option(
        "--figures", help="With --html: also write each plot as PNG and SVG here.")] = None,
    data_dir: DataDir = None,
) -> None:
    """Print the paper-style tables of a stored run, or write the HTML report of one run or
    several (--html FILE [--runs A,B,...])."""
    from tasks import reports
    from tasks.store import open_store
    from tasks.store.location import parse

    if not parse(db).exists():
        raise MathprobeError(f"{db}: no such DuckDB file")
    if html is not None:
        from flows.results_cli import write_html

        write_html(db, run_id, runs, html, grader=grader, figures=figures, data_dir=data_dir)
        return
    if runs or figures:
        raise MathprobeError("--runs and --figures go with --html FILE")
    if run_id is None:
        raise MathprobeError("name the run: --run-id ID (or --html FILE --runs A,B,...)")
    store = open_store(db, read_only=True)      # writes nothing: a read-only or full disk is fine
    if store.stale_views:
        err.print(Text(f"note: {db} holds views of an older mathprobe and cannot be written "
                       "now; the figures come from those views", style="yellow"), soft_wrap=True)
    _emit(reports.build(store, run_id, grader), as_json)


@app.command()
def sql(
    query: Annotated[str, typer.Argument(help="SQL to run, e.g. 'FROM wemath_four_dimensional', "
                                         "or COPY (FROM view) TO 'file.csv' to export.")],
    db: Db,
) -> None:
    """Query the store read-only (the same as the duckdb CLI, without installing it)."""
    import duckdb

    from tasks.store.errors import connect
    from tasks.store.lake import connect as connect_lake
    from tasks.store.location import parse

    loc = parse(db)
    if not loc.exists():
        raise MathprobeError(f"{db}: no such DuckDB file")
    if loc.is_lake:
        con = connect_lake(loc, read_only=True)
    else:
        con = connect(loc.target, read_only=True)   # another process writing it: one clear line
    try:
        rel = con.sql(query)
        if rel is not None:              # None: a statement with no result, e.g. COPY ... TO
            rel.show(max_width=10_000, max_rows=200)
    except duckdb.Error as exc:
        raise MathprobeError(f"query failed: {' '.join(str(exc).split())}") from None
    finally:
        con.close()


@app.command()
def demo(
    db: Db = DEMO_DB,
    data_dir: DataDir = None,
) -> None:
    """The main job on embedded defaults: each benchmark's demo run (the chance baseline on all
    of WE-MATH testmini), printed as the paper's tables."""
    from tasks import registry
    from tasks.runs import preflight

    preflight.store_path(db)
    for bench in registry.all_benchmarks():
        if bench.demo is not None:
            preflight.data(bench, data_dir)
    eval_flow = _flow("eval", "eval_flow")
    queries = []
    for bench in registry.all_benchmarks():
        if bench.demo is None:
            continue
        run_id = f"demo-{bench.name}-{bench.demo['model'].replace(':', '-')}"
        with progress_bar():
            report = eval_flow(benchmark=bench.name, model=bench.demo["model"],
                               setting=bench.demo.get("setting"), run_id=run_id, db=str(db),
                               data_dir=str(data_dir) if data_dir else None)
        _emit(report, False)
        if bench.demo.get("query"):
            queries.append(bench.demo["query"].format(run_id=run_id))
    Console().print(f"\nStored in {db}. Query it by hand, e.g.:\n"
                    + "\n".join(f'  mathprobe sql --db {db} "{q}"' for q in queries),
                    soft_wrap=True)


ProbeModel = Annotated[str, typer.Option("--model", help=MODELS_HELP + ".")]
Limit = Annotated[Optional[int], typer.Option("--limit", help="About N questions: a seeded "
                                              "stratified sample over the benchmark's strata "
                                              "(ConceptMath: system and concept).")]
OptionalRunId = Annotated[Optional[str], typer.Option("--run-id")]
Concurrency = Annotated[int, typer.Option("--concurrency", help="Requests in flight.")]
RetryFailed = Annotated[bool, typer.Option("--retry-failed", help="Re-drive only the calls "
                                           "that failed.")]
TritonUrl = Annotated[Optional[str], typer.Option("--triton-url", help="HOST:PORT of the Triton "
                                                  "gRPC endpoint (triton: models).")]
AsJson = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]
ProbeBenchmark = Annotated[Optional[str], typer.Option(
    "--benchmark", help="The benchmark whose probe to run (default: the one that has it); one "
    f"of: {BENCHMARKS_HELP}.")]


def _opt(path: Path | None) -> str | None:
    return str(path) if path else None


@app.command()
def contamination(
    model: ProbeModel,
    db: Db,
    method: Annotated[str, typer.Option("--method", help="rouge, mink or both")] = "both",
    run_id: OptionalRunId = None,
    data_dir: DataDir = None,
    limit: Limit = None,
    concurrency: Concurrency = 16,
    retry_failed: RetryFailed = False,
    triton_url: TritonUrl = None,
    benchmark: ProbeBenchmark = None,
    as_json: AsJson = False,
) -> None:
    """ConceptMath contamination (paper Table 3): Rouge-L of continuations, MIN-K% (K=10)."""
    from tasks.runs import preflight

    preflight.check_probe(family="contamination", benchmark=benchmark,
                          methods=None if method == "both" else [method], model=model,
                          run_id=run_id, db=db, data_dir=data_dir, limit=limit,
                          concurrency=concurrency)
    contamination_flow = _flow("probes", "contamination_flow")
    with progress_bar():
        out = contamination_flow(model=model, method=method, benchmark=benchmark,
                                 run_id=run_id, db=str(db),
                                 data_dir=_opt(data_dir), limit=limit,
                                 concurrency=concurrency, retry_failed=retry_failed,
                                 triton_url=triton_url)
    _emit_probe(out, as_json)


@app.command()
def classify(
    model: ProbeModel,
    db: Db,
    run_id: OptionalRunId = None,
    data_dir: DataDir = None,
    limit: Limit = None,
    concurrency: Concurrency = 16,
    retry_failed: RetryFailed = False,
    triton_url: TritonUrl = None,
    benchmark: ProbeBenchmark = None,
    as_json: AsJson = False,
) -> None:
    """ConceptMath concept classification (paper Tables 6/8/9): MRR and top-1 per system."""
    from tasks.runs import preflight

    preflight.check_probe(family="classify", benchmark=benchmark, methods=None, model=model,
                          run_id=run_id, db=db, data_dir=data_dir, limit=limit,
                          concurrency=concurrency)
    classify_flow = _flow("probes", "classify_flow")
    with progress_bar():
        out = classify_flow(model=model, benchmark=benchmark, run_id=run_id, db=str(db),
                            data_dir=_opt(data_dir), limit=limit,
                            concurrency=concurrency, retry_failed=retry_failed,
                            triton_url=triton_url)
    _emit_probe(out, as_json)


def _emit_probe(out: dict, as_json: bool) -> None:
    """The probes' tables (or JSON), each run's failure reasons, and the exit status: 3 when
    a probe run has calls that failed for good."""
    from rich.table import Table

    from tasks.reports.summary import failure_lines

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


@app.command("judge-audit")
def judge_audit(
    db: Db,
    data_dir: DataDir = None,
    judge: Annotated[Optional[str], typer.Option("--judge", help="BACKEND:NAME of a judge to "
                                                 "audit as well (alone and as the cascade).")] = None,
    audit_id: Annotated[str, typer.Option("--audit-id")] = "gradegpt-sample",
    concurrency: Annotated[int, typer.Option("--concurrency")] = 16,
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

    from tasks import registry
    from tasks.runs import preflight
    from tasks.store import open_store

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


store_app = typer.Typer(help="Stores: move runs between a DuckDB file and a DuckLake.",
                        no_args_is_help=True)
app.add_typer(store_app, name="store")


@store_app.command("copy")
def store_copy(
    src: Annotated[str, typer.Argument(help="The store to copy from (file or ducklake:...).")],
    dst: Annotated[str, typer.Argument(help="The store to copy into (created if absent).")],
    run_ids: Annotated[Optional[list[str]], typer.Option("--run-id", help="Only this run "
                                                         "(repeatable); default: every run.")] = None,
    data_path: DataPath = None,
) -> None:
    """Copy runs (responses, verdicts, log-probabilities, probe scores, and the items and
    reference tables their views need) from SRC to DST. Runs DST already has are skipped."""
    from tasks.store import open_store
    from tasks.store.copy import copy_runs
    from tasks.store.location import parse

    out = copy_runs(parse(src), open_store(dst, data_path), run_ids)
    err.print(f"copied {len(out['copied'])} run(s) ({out['responses']} responses) from {src} "
              f"to {dst}" + (f"; skipped {len(out['skipped'])} already there: "
                             f"{', '.join(out['skipped'])}" if out["skipped"] else ""))


app.add_typer(server.app, name="server")
app.add_typer(triton_cli.app, name="triton")

def _emit(report: dict, as_json: bool) -> None:
    if as_json:
        sys.stdout.write(json.dumps(report, indent=2, default=str) + "\n")
    else:
        from tasks.reports import print_report
        print_report(report)


def main(argv: list[str] | None = None) -> None:
    """The `mathprobe` entry point: exit statuses as documented (EXIT_CODES), a user error as
    one `error:` line, a traceback only with --debug (anywhere on the line) or for a bug."""
    args = list(sys.argv[1:] if argv is None else argv)
    if "--debug" in args[1:]:               # accepted after the command too
        args.remove("--debug")
        args.insert(0, "--debug")
    if "--debug" in args or os.environ.get("MATHPROBE_DEBUG"):
        _DEBUG.set()
    try:
        code = app(args=args, prog_name="mathprobe", standalone_mode=False)
    except MathprobeError as exc:
        _error(exc, str(exc))
        code = exc.exit_code
    except typer.Abort:
        code = Exit.INTERRUPTED
    except KeyboardInterrupt as exc:
        _error(exc, "interrupted; run the same command again to resume")
        code = Exit.INTERRUPTED
    except typer.TyperException as exc:     # a bad option: click's usage error
        message = " ".join(exc.format_message().split())
        ctx = getattr(exc, "ctx", None)
        _error(exc, message + (f" (see: {ctx.command_path} --help)" if ctx else ""))
        code = Exit.USER_ERROR
    except Exception as exc:                # a bug
        traceback.print_exc()
        release_frames(exc)
        code = Exit.INTERNAL
    sys.exit(int(code or 0))


def _error(exc: BaseException, message: str) -> None:
    """The one `error:` line (after the traceback with --debug)."""
    if _DEBUG.is_set():
        traceback.print_exception(exc)
    err.print(Text.assemble(("error: ", "bold red"), message), highlight=False, soft_wrap=True)
    release_frames(exc)


if __name__ == "__main__":
    main()
