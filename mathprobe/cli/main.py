"""The `mathprobe` command line.

Everything that can be checked without Prefect (arguments, benchmark, setting, model, API key,
data files, the store file) is checked before a flow module is imported (`tasks.runs.preflight`):
starting Prefect takes 10-20 s, a typo must not wait for it. A user error ends the command with
one `error:` line (a traceback only with --debug) and a documented exit status (`tasks.errors.Exit`).
Command groups live in their own modules (results_cli, probes_cli, server, triton_cli);
what they share (option types, console, lazy flow import, progress bar) is in cli_common.
"""
from __future__ import annotations

import os
import signal
import sys
import threading
import traceback
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.text import Text

from mathprobe.flows import (deploy_cli, export_cli, judge_audit_cli, judge_cli, probes_cli,
                            results_cli, server, triton_cli)
from mathprobe.flows.cli_common import (DEBUG, MODELS_HELP, SETTINGS_HELP, Benchmark, DataDir,
                                        DataPath, Db, RunId, emit, err, existing, importing,
                                        invocation, load_flow, open_existing, progress_bar)
from mathprobe.flows.exits import EXIT_CODES, release_frames, run_exit_code
from mathprobe.tasks.errors import Exit, MathprobeError

# The ephemeral Prefect server's telemetry heartbeat races its own SQLite file and logs a
# spurious "database is locked" traceback on every local run; nothing here needs telemetry.
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")

app = typer.Typer(help="mathprobe: concept-wise math benchmark evaluation.", epilog=EXIT_CODES,
                  invoke_without_command=True, pretty_exceptions_enable=False,
                  rich_markup_mode=None)


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
        DEBUG.set()
    if ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help())
        raise typer.Exit()


DEMO_DB = "out/demo.duckdb"



@app.command("import")
def import_(
    file: Annotated[Path, typer.Argument(help="Response file: the authors' result format, or "
                                         "another toolkit's (see --format).")],
    benchmark: Benchmark,
    run_id: RunId,
    db: Db,
    fmt: Annotated[str, typer.Option("--format", help="official (the benchmark authors' result "
                                     "format); WE-MATH also vlmevalkit (VLMEvalKit's "
                                     "{model}_WeMath[_{judge}].xlsx/.tsv/.csv) and lmms-eval "
                                     "(its *_samples_<task>.jsonl).")] = "official",
    data_dir: DataDir = None,
    data_path: DataPath = None,
) -> None:
    """Load responses produced elsewhere, grade them, and fill every view. Rows that cannot be
    imported are counted and listed; problems the local data lacks are taken from the file
    where it defines them (CMMaTH authors' records)."""
    from mathprobe.tasks import registry
    from mathprobe.tasks.runs import import_results, preflight
    from mathprobe.tasks.store import open_store

    preflight.check_run_id(run_id)
    bench = preflight.benchmark(benchmark)
    if not file.is_file():                   # before the store is made, not after
        raise MathprobeError(f"{file}: no such file" if not file.exists() else
                             f"{file}: not a file")
    if fmt not in bench.result_formats():
        raise MathprobeError(f"--format {fmt!r}: {bench.title} results are imported from "
                             f"{', '.join(sorted(bench.result_formats()))}")
    preflight.store_path(db, data_path)
    if not file.is_file():                     # before the store is created
        raise MathprobeError(f"{file}: no such file")
    store = open_store(db, data_path)
    counts = import_results(store, bench, registry.resolve_data_dir(data_dir), file, run_id, fmt)
    err.print(import_summary(file, run_id, counts), soft_wrap=True, highlight=False)


def import_summary(file: Path, run_id: str, counts: dict, shown: int = 20) -> str:
    """What an import did, in a few lines: rows stored, those the file defined itself, the
    rows left out (each with its reason, the first `shown` of them)."""
    lines = [f"imported {file} into run {run_id}: {counts['rows']} rows ({counts['new']} new "
             f"responses, {counts['already_stored']} already stored, {counts['missing']} without "
             f"a response" + (f", {counts['failed']} failed calls" if counts.get("failed") else "")
             + ")"]
    if counts.get("from_file"):
        lines.append(f"{counts['from_file']} problem(s) not in the local data were taken from "
                     "the file itself")
    skipped = counts.get("skipped") or []
    if skipped:
        lines.append(f"{len(skipped)} row(s) left out:")
        lines += [f"  {s.line()}" for s in skipped[:shown]]
        if len(skipped) > shown:
            lines.append(f"  ... and {len(skipped) - shown} more (all counted in the run card)")
    return "\n".join(lines)


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
    judge: Annotated[Optional[str], typer.Option("--judge", help="BACKEND:NAME of a judge (CMMaTH: "
                                                 "for what the rules leave undecided; WE-MATH: "
                                                 "VLMEvalKit's judged extractor beside the "
                                                 "official one). See mathprobe judge.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    data_path: DataPath = None,
) -> None:
    """Run the `eval` flow locally and print the report. The same --run-id resumes."""
    from mathprobe.tasks.runs import preflight

    plan = preflight.check_eval(benchmark=benchmark, model=model, setting=setting,
                                run_id=run_id, db=db, data_dir=data_dir, limit=limit,
                                concurrency=concurrency, max_cost=max_cost,
                                temperature=temperature, max_tokens=max_tokens,
                                request_timeout=request_timeout, judge=judge, data_path=data_path)
    stored = _stored_report(db, plan, limit, retry_failed, judge, data_path)
    if stored is not None:                 # nothing left to do: no Prefect at all
        emit(stored, as_json)
        raise typer.Exit(run_exit_code(stored))
    from mathprobe.tasks.backends import MODULES, parse_spec

    from mathprobe.flows.common import call_flow

    eval_flow = load_flow("eval", "eval_flow")
    with importing(MODULES[parse_spec(model)[0]]), progress_bar():
        report = call_flow(eval_flow, benchmark=benchmark, model=model, setting=setting,
                           run_id=run_id, db=str(db),
                           data_dir=str(data_dir) if data_dir else None, limit=limit,
                           concurrency=concurrency, retry_failed=retry_failed,
                           max_cost=max_cost, temperature=temperature, max_tokens=max_tokens,
                           request_timeout=request_timeout, triton_url=triton_url,
                           judge=judge, data_path=data_path)
    emit(report, as_json)
    raise typer.Exit(run_exit_code(report))


def _stored_report(db: str, plan, limit: int | None, retry_failed: bool,
                   judge: str | None, data_path: str | None) -> dict | None:
    """The stored report of a run with nothing left to do (`tasks.runs.finished`), or None."""
    from mathprobe.tasks import reports
    from mathprobe.tasks.runs.finished import finished

    store = finished(db, plan.bench, plan.data_dir, plan.run_id, limit, retry_failed, judge,
                     data_path)
    if store is None:
        return None
    err.print(Text(f"run {plan.run_id}: nothing left to ask or grade; its stored report:",
                   style="dim"), soft_wrap=True)
    return reports.build(store, plan.run_id)


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
    from mathprobe.tasks import reports

    existing(db)
    if html is not None:
        from mathprobe.flows.results_cli import write_html

        write_html(db, run_id, runs, html, grader=grader, figures=figures, data_dir=data_dir)
        return
    if runs or figures:
        raise MathprobeError("--runs and --figures go with --html FILE")
    if run_id is None:
        raise MathprobeError("name the run: --run-id ID (or --html FILE --runs A,B,...)")
    store = open_existing(db)
    if store.stale_views:
        err.print(Text(f"note: {db} holds views of an older mathprobe and cannot be written "
                       "now; the figures come from those views", style="yellow"), soft_wrap=True)
    emit(reports.build(store, run_id, grader), as_json)


@app.command()
def sql(
    query: Annotated[str, typer.Argument(help="SQL to run, e.g. 'FROM wemath_four_dimensional', "
                                         "or COPY (FROM view) TO 'file.csv' to export.")],
    db: Db,
) -> None:
    """Query the store read-only (the same as the duckdb CLI, without installing it)."""
    import duckdb

    from mathprobe.tasks.store.errors import connect
    from mathprobe.tasks.store.lake import connect as connect_lake
    loc = existing(db)
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
    from mathprobe.tasks import registry
    from mathprobe.tasks.runs import preflight

    if db == DEMO_DB:                          # the demo's own folder; a --db given must exist
        Path(DEMO_DB).parent.mkdir(exist_ok=True)
    preflight.store_path(db)
    for bench in registry.all_benchmarks():
        if bench.demo is not None:
            preflight.data(bench, data_dir)
    from mathprobe.flows.common import call_flow

    eval_flow = load_flow("eval", "eval_flow")
    queries = []
    for bench in registry.all_benchmarks():
        if bench.demo is None:
            continue
        run_id = f"demo-{bench.name}-{bench.demo['model'].replace(':', '-')}"
        with progress_bar():
            report = call_flow(eval_flow, benchmark=bench.name, model=bench.demo["model"],
                               setting=bench.demo.get("setting"), run_id=run_id, db=str(db),
                               data_dir=str(data_dir) if data_dir else None)
        emit(report, False)
        if bench.demo.get("query"):
            queries.append(bench.demo["query"].format(run_id=run_id))
    Console().print(f"\nStored in {db}. Query it by hand, e.g.:\n"
                    + "\n".join(f'  {invocation()} sql --db {db} "{q}"' for q in queries),
                    soft_wrap=True)


app.command("compare")(results_cli.compare)
app.command("card")(export_cli.card)
app.command("export")(export_cli.export)
app.command("contamination")(probes_cli.contamination)
app.command("classify")(probes_cli.classify)
app.command("judge")(judge_cli.judge)
app.command("judge-audit")(judge_audit_cli.judge_audit)

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
    from mathprobe.tasks.runs import preflight
    from mathprobe.tasks.store import open_store
    from mathprobe.tasks.store.copy import copy_runs
    from mathprobe.tasks.store.location import parse

    existing(src)
    preflight.store_path(dst, data_path)
    out = copy_runs(parse(src), open_store(dst, data_path), run_ids)
    err.print(f"copied {len(out['copied'])} run(s) ({out['responses']} responses) from {src} "
              f"to {dst}" + (f"; skipped {len(out['skipped'])} already there: "
                             f"{', '.join(out['skipped'])}" if out["skipped"] else ""))


app.add_typer(server.app, name="server")
app.add_typer(triton_cli.app, name="triton")
app.add_typer(deploy_cli.app, name="deploy")

def main(argv: list[str] | None = None) -> None:
    """The `mathprobe` entry point: exit statuses as documented (EXIT_CODES), a user error as
    one `error:` line, a traceback only with --debug (anywhere on the line) or for a bug."""
    args = list(sys.argv[1:] if argv is None else argv)
    if "--debug" in args[1:]:               # accepted after the command too
        args.remove("--debug")
        args.insert(0, "--debug")
    if "--debug" in args or _env_flag("MATHPROBE_DEBUG"):
        DEBUG.set()
    # a closed terminal stops a command as SIGTERM does (a run in a flow: marked interrupted,
    # its answers kept); by default SIGHUP killed it on the spot, its run left `running`
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGHUP, _as_sigterm)
    from mathprobe.tasks.store.duckdb_store import pandas_hidden

    try:
        with pandas_hidden():
            code = app(args=args, prog_name="mathprobe", standalone_mode=False)
        if code == Exit.INTERRUPTED:            # typer turns Ctrl-C into this exit status
            _error(None, INTERRUPTED)
    except MathprobeError as exc:
        _error(exc, str(exc))
        code = exc.exit_code
    except (typer.Abort, KeyboardInterrupt) as exc:     # Ctrl-C outside a command's body
        _error(exc, INTERRUPTED)
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


INTERRUPTED = "interrupted; run the same command again to resume"


def _as_sigterm(signum: int, frame) -> None:
    os.kill(os.getpid(), signal.SIGTERM)


def _env_flag(name: str) -> bool:
    """An environment switch as people write one: set and not 0/false/no/off."""
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no", "off")


def _error(exc: BaseException | None, message: str) -> None:
    """The one `error:` line (after the traceback with --debug)."""
    if exc is not None and DEBUG.is_set():
        traceback.print_exception(exc)
    err.print(Text.assemble(("error: ", "bold red"), message), highlight=False, soft_wrap=True)
    release_frames(exc)


if __name__ == "__main__":
    main()
