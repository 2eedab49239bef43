"""What the `mathprobe` command modules share (mathprobe.cli.*): the option types
and their help, the stderr console, the --debug flag, importing a flow only when a command
needs it (after its checks: importing Prefect takes seconds), the progress bar, printing a
report."""
from __future__ import annotations

import json
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.text import Text

from mathprobe.backends import registry as backends
from mathprobe.cli.exits import quiet_user_error_tracebacks
from mathprobe.errors import MathprobeError
from mathprobe.warm import server

err = Console(stderr=True)
DEBUG = threading.Event()      # --debug: show tracebacks of user errors
VERBOSE = threading.Event()    # --verbose: Prefect's own log lines on the console too


def _choices() -> tuple[str, str]:
    """The benchmarks and their settings, for --help (a broken plug-in must not break it)."""
    from mathprobe import registry

    try:
        benches = registry.all_benchmarks()
    except Exception:                      # noqa: BLE001  (the command reports it when used)
        return ", ".join(registry.names()), "see each benchmark"
    return (", ".join(b.name for b in benches),
            "; ".join(f"{b.name}: {', '.join(b.settings)} (default {b.default_setting})"
                      for b in benches))


BENCHMARKS_HELP, SETTINGS_HELP = _choices()
MODELS_HELP = backends.models_help()


DataDir = Annotated[Path | None, typer.Option(
    "--data-dir", help="Folder holding one folder per benchmark (default: $MATHPROBE_DATA_DIR).")]
Db = Annotated[str, typer.Option("--db", help="DuckDB file (created if absent), or a shared "
                                  "DuckLake store: ducklake:sqlite:FILE or "
                                  "'ducklake:postgres:dbname=NAME host=HOST'.")]
ExistingDb = Annotated[str, typer.Option("--db", help="The store to read: a DuckDB file, or a "
                                          "DuckLake store (ducklake:sqlite:FILE or "
                                          "'ducklake:postgres:dbname=NAME host=HOST'); it must "
                                          "exist, and is only read.")]
DataPath = Annotated[str | None, typer.Option(
    "--data-path", help="Where a new DuckLake store keeps its Parquet files (a folder or an "
    "object store URL; default for ducklake:sqlite:FILE: FILE.files/).")]
Concurrency = Annotated[int | None, typer.Option(
    "--concurrency", help="Requests in flight at most: a ceiling, under which the run finds how "
    "many the server takes (more while it answers, fewer on 429/503) (default: the provider's "
    "cap, e.g. 256 for openai).")]
RunId = Annotated[str, typer.Option("--run-id", help="Run id; reuse it to resume a run.")]
Batch = Annotated[bool, typer.Option(
    "--batch", help="Ask through the service's batch API (openai:, anthropic:): half the price, "
    "answers within 24 h; the command waits, and run again after a stop it resumes, submitting "
    "nothing twice (docs/batches.md).")]
Samples = Annotated[int | None, typer.Option(
    "--samples", help="Ask each item K times (1 to 100): independent samples, each answer "
    "stored with its index; the report adds the mean accuracy over samples, pass@k, maj@k and "
    "the spread between samples (the paper's figures stay those of sample 0). K > 1 needs "
    "--temperature above 0 where the benchmark's is 0. A resumed run may raise K: only the "
    "missing samples are asked (docs/sampling.md).", metavar="K")]
Benchmark = Annotated[str, typer.Option("--benchmark", help=f"One of: {BENCHMARKS_HELP}.")]

def with_backend_options(command):
    """`command` with every backend kind's own options on its command line (`BackendKind.
    options`: openai:'s --reasoning-effort, anthropic:'s --thinking-budget, a plug-in kind's),
    handed to it together as one dict, `backend_options` (None: not given). The options are
    declared once, by the kind that takes them; whether the model's kind takes the ones given is
    checked before the run (`mathprobe.runs.preflight.check_eval`)."""
    import functools
    import inspect
    from typing import get_type_hints

    signature = inspect.signature(command, eval_str=True)
    hints = get_type_hints(command, include_extras=True)
    own = [p for p in signature.parameters.values() if p.name != "backend_options"]
    added = []
    for option in backends.all_options().values():
        if option.name in signature.parameters:
            continue
        takers = ", ".join(k.usage for k in backends.takers(option.name))
        helptext = option.help.rstrip(".") + f" ({takers} models)."
        added.append(inspect.Parameter(
            option.name, inspect.Parameter.KEYWORD_ONLY, default=None,
            annotation=Annotated[option.type | None, typer.Option(option.flag, help=helptext)]))
    names = [p.name for p in added]

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        given = {name: kwargs.pop(name, None) for name in names}
        return command(*args, backend_options=given, **kwargs)

    # typer reads the command's parameters from __signature__, which typeshed's function type
    # does not declare
    wrapper.__signature__ = signature.replace(parameters=own + added)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {**{k: v for k, v in hints.items() if k != "backend_options"},
                               **{p.name: p.annotation for p in added}}
    return wrapper


def invocation() -> str:
    """How to call mathprobe from the user's shell, for hints meant to be pasted: `mathprobe`
    when that name on PATH is this installation, else this installation's script by its path
    (e.g. `.venv/bin/mathprobe` after `make demo` without activating the virtualenv)."""
    import os
    import shutil

    script = Path(sys.executable).parent / "mathprobe"
    found = shutil.which("mathprobe")
    if not script.exists() or (found and Path(found).resolve() == script.resolve()):
        return "mathprobe"
    try:
        return str(script.relative_to(Path.cwd()))
    except ValueError:
        return str(script) if os.sep in str(script) else f"./{script}"


def existing(db: str):
    """The location of a store that must already exist (commands that only read)."""
    from mathprobe.store.location import parse

    loc = parse(db)
    if not loc.exists():
        raise MathprobeError(f"{db}: no such DuckDB file")
    return loc


def reads(db: str, data_dir: Path | None = None, *files: Path | None) -> list:
    """What a command reads and so must never write (mathprobe/store/owned_paths.py): the store's
    files, the benchmark data folder (when there is one) and any input `files`."""
    import os

    from mathprobe.store.location import parse
    from mathprobe.store.owned_paths import input_paths, store_paths

    folder = data_dir or os.environ.get("MATHPROBE_DATA_DIR")
    return (store_paths(parse(db)) + input_paths(folder, what="the benchmark data folder")
            + input_paths(*files, what="an input file"))


def open_existing(db: str):
    """An existing store, opened read-only: showing results writes nothing (a read-only mount
    or a full disk is fine)."""
    from mathprobe.store import open_store

    existing(db)
    return open_store(db, read_only=True)


_NOTED = threading.Event()


def load_flow(module: str, name: str):
    """A flow, imported only now (importing Prefect takes seconds; checks come first), as a
    function of its parameters that runs it (flows.common.call_flow). The Prefect server is
    found before anything imports Prefect, whose settings read it once; without one, the local
    server is started for this command and the next (mathprobe.warm.server.ensure_running),
    said once. The console shows a user error's message without its traceback (the Prefect API
    keeps it), and of Prefect's own lines what the command does not show itself
    (mathprobe.cli.console_logs)."""
    import functools
    import importlib

    from mathprobe.cli import console_logs

    _, started = server.ensure_running()
    if started is not None and not _NOTED.is_set():
        _NOTED.set()
        err.print(Text(started_note(started), style="dim"), soft_wrap=True)
    flow = getattr(importlib.import_module(f"mathprobe.flows.{module}"), name)
    from mathprobe.flows.common import call_flow

    if not DEBUG.is_set():
        quiet_user_error_tracebacks()
    console_logs.install(verbose=VERBOSE.is_set())
    return functools.partial(call_flow, flow)


def started_note(started: server.Server) -> str:
    """What a command says when it started the local Prefect server itself."""
    minutes = (started.idle_s or 0) / 60
    return (f"note: no Prefect server was running: started one for this command and the next "
            f"(pid {started.pid}, UI {started.ui_url}); it stops once unused for {minutes:.0f} "
            f"min (`{invocation()} server stop` stops it now, `{invocation()} server start` "
            "keeps it)")


@contextmanager
def importing(*modules: str):
    """Import `modules` in a thread of their own while the body runs, e.g. the model's SDK
    (0.3-0.8 s) while the flow starts, which mostly waits on the Prefect API. Call after the
    flow's module is imported, so the two threads share no module being imported (no import
    lock to contend for); whoever needs a module first simply waits for its import. A failed
    import here is left for the code that needs the module to raise."""
    import importlib

    def run() -> None:
        for name in modules:
            try:
                importlib.import_module(name)
            except Exception:                 # noqa: BLE001  (raised again where it is used)
                pass

    thread = threading.Thread(target=run, name="mathprobe-import", daemon=True)
    thread.start()
    try:
        yield
    finally:
        thread.join(timeout=60)


@contextmanager
def progress_bar():
    """A rich progress bar on stderr, fed by the pipeline's progress events, with what the
    requests are doing now beside it (in flight, rate-limited, waiting to retry: read from the
    run's activity each time the bar is drawn, so a run the server holds back never looks
    hung)."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        TaskID,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from mathprobe.runs import progress as events

    class Activity(ProgressColumn):
        def render(self, task) -> Text:
            return Text(events.activity(task.fields["run_id"]).line(), style="cyan")

    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("{task.fields[counts]}"), TimeElapsedColumn(),
                   TimeRemainingColumn(), Activity(), console=err, transient=False)
    tasks: dict[str, TaskID] = {}
    counts: dict[str, dict[str, int]] = {}

    def listener(event: str, run_id: str, **data) -> None:
        if event == "start":
            counts[run_id] = {}
            tasks[run_id] = bar.add_task(f"{run_id}", total=data["total"], counts="",
                                         run_id=run_id)
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


def emit(report: dict, as_json: bool) -> None:
    if as_json:
        sys.stdout.write(json.dumps(report, indent=2, default=str) + "\n")
    else:
        from mathprobe.reports import print_report
        print_report(report)
