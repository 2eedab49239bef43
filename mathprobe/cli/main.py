"""The `mathprobe` command line: the typer app that assembles the commands (one module each in
this package), and the entry point that ends every command as documented.

Everything that can be checked without Prefect (arguments, benchmark, setting, model, API key,
data files, the store file) is checked before a flow module is imported (`mathprobe.runs.preflight`):
starting Prefect takes 10-20 s, a typo must not wait for it. A user error ends the command with
one `error:` line (a traceback only with --debug) and a documented exit status
(`mathprobe.errors.Exit`).
What the commands share (option types, console, lazy flow import, progress bar) is in
mathprobe.cli.common.
"""
from __future__ import annotations

import os
import signal
import sys
import threading
import traceback
from typing import Annotated

import typer
from rich.text import Text

from mathprobe.cli import (
    card,
    compare,
    demo,
    deploy,
    errors,
    export,
    import_,
    judge,
    judge_audit,
    probes,
    report,
    run,
    select_data,
    server,
    sql,
    store,
    triton,
)
from mathprobe.cli.common import DEBUG, VERBOSE, err
from mathprobe.cli.exits import EXIT_CODES, release_frames
from mathprobe.errors import Exit, MathprobeError

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
    verbose: Annotated[bool, typer.Option("--verbose", help="Show Prefect's own log lines on "
                                          "the console, in a terminal too (where they are left "
                                          "out by default: the progress bar and report say the "
                                          "same; the Prefect UI keeps them); also accepted "
                                          "after the command.")] = False,
) -> None:
    """mathprobe: concept-wise math benchmark evaluation."""
    if debug:
        DEBUG.set()
    if verbose:
        VERBOSE.set()
    if ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help())
        raise typer.Exit()


# in this order in --help
app.command("import")(import_.import_)
app.command("run")(run.run)
app.command("report")(report.report)
app.command("sql")(sql.sql)
app.command("demo")(demo.demo)
app.command("compare")(compare.compare)
app.command("card")(card.card)
app.command("export")(export.export)
app.command("contamination")(probes.contamination)
app.command("classify")(probes.classify)
app.command("judge")(judge.judge)
app.command("judge-audit")(judge_audit.judge_audit)
app.add_typer(errors.app, name="errors")
app.command("select-data")(select_data.select_data)
app.add_typer(store.app, name="store")
app.add_typer(server.app, name="server")
app.add_typer(triton.app, name="triton")
app.add_typer(deploy.app, name="deploy")

def main(argv: list[str] | None = None) -> None:
    """The `mathprobe` entry point: exit statuses as documented (EXIT_CODES), a user error as
    one `error:` line, a traceback only with --debug (anywhere on the line) or for a bug."""
    args = list(sys.argv[1:] if argv is None else argv)
    for flag in ("--debug", "--verbose"):   # accepted after the command too
        if flag in args[1:]:
            args.remove(flag)
            args.insert(0, flag)
    if "--debug" in args or _env_flag("MATHPROBE_DEBUG"):
        DEBUG.set()
    # a closed terminal stops a command as SIGTERM does (a run in a flow: marked interrupted,
    # its answers kept); by default SIGHUP killed it on the spot, its run left `running`
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGHUP, _as_sigterm)
    from mathprobe.runs.preflight import check_environment
    from mathprobe.store.duckdb_store import pandas_hidden

    try:
        if not {"--help", "-h", "--version"} & set(args):
            check_environment()                 # every MATHPROBE_* setting, as its flag is
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
