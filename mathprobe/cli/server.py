"""`mathprobe server start|stop|status`: the local Prefect server and the warm runner that
commands use (the machinery: mathprobe.warm.server and mathprobe.warm.control)."""
from __future__ import annotations

import time
from typing import Annotated

import typer

from mathprobe.backends.secrets import prefect_setting
from mathprobe.warm import control
from mathprobe.warm.control import state_dir
from mathprobe.warm.server import (
    AUTO_IDLE_S,
    DEFAULT_PORT,
    healthy,
    recorded,
    stale,
    start,
    stop,
)

app = typer.Typer(help="The local Prefect server mathprobe runs use: the first run starts it "
                       "(it stops once unused), `start` starts it for good; every run then "
                       "connects in well under a second and shows in its UI.",
                  no_args_is_help=True)


@app.command("start")
def start_command(
    port: Annotated[int | None, typer.Option("--port", help="Port on 127.0.0.1 (default "
                                                "$PREFECT_SERVER_API_PORT, else "
                                                f"{DEFAULT_PORT}; a free one where that is "
                                                "taken).")] = None,
    idle_timeout: Annotated[float | None, typer.Option(
        "--idle-timeout", help="Stop the server once no command has used it for this many "
        f"seconds (default: never; a server a run started itself: {AUTO_IDLE_S:.0f}).")] = None,
) -> None:
    """Start a Prefect server in the background (on your Prefect database, PREFECT_HOME; its
    record and log under $MATHPROBE_STATE_DIR/server) and wait until it answers. One a run
    started is kept from now on (or given --idle-timeout)."""
    from mathprobe.runs.preflight import check_counts

    check_counts(port=port, idle_timeout=idle_timeout)
    t = time.monotonic()
    before = recorded()
    was_stale = before is not None and not before.alive()
    server, started = start(port, idle_s=idle_timeout)
    say = typer.echo
    if was_stale and before is not None:
        say(f"({stale(before)}; starting a new one)")
    if started:
        say(f"Prefect server started in {time.monotonic() - t:.1f} s (pid {server.pid}).")
    else:
        say(f"Prefect server already running (pid {server.pid}).")
    say(_warm_line(control.start(server.api_url)))
    say(f"  UI:  {server.ui_url}\n  API: {server.api_url}\n  log: {server.log}\n"
        f"mathprobe commands use it from now on; other Prefect tools: "
        f"export PREFECT_API_URL={server.api_url}")
    configured = prefect_setting("PREFECT_API_URL")
    if configured and configured != server.api_url:
        say(f"note: PREFECT_API_URL={configured} is set, and commands use that server first.")


def _warm_line(pid: int) -> str:
    """Start-up's word on the warm runner (mathprobe/warm/), once it is ready or not."""
    if control.wait_ready(pid):
        return (f"Warm runner ready (pid {pid}): commands start in a fraction of a second "
                f"(MATHPROBE_NO_WARM=1 runs one in its own process).")
    return (f"note: the warm runner (pid {pid}) did not start (see {state_dir() / 'control.log'}); "
            "commands run in their own process, about 2 s slower to start.")


@app.command("stop")
def stop_command() -> None:
    """Stop the server `mathprobe server start` started."""
    server, stopped = stop()
    if stopped and server is not None:
        typer.echo(f"Prefect server stopped (pid {server.pid}).")
    elif server is not None:
        typer.echo(f"Nothing to stop: {stale(server)}; its record is removed.")
    else:
        typer.echo("No mathprobe Prefect server was running.")


@app.command("status")
def status_command() -> None:
    """Which Prefect server mathprobe commands use now."""
    configured = prefect_setting("PREFECT_API_URL")
    server = recorded()
    live = server if server is not None and server.alive() else None
    running = live is not None
    if configured and not (live is not None and configured == live.api_url):
        typer.echo(f"PREFECT_API_URL={configured}: commands use that server "
                   f"({'answering' if healthy(configured) else 'NOT answering'}).")
    if live is not None:
        typer.echo(f"mathprobe server: running (pid {live.pid}), "
                   f"{'healthy' if live.healthy() else 'NOT answering'}"
                   + (f", stops once unused for {live.idle_s:.0f} s" if live.idle_s else "")
                   + "\n"
                   f"  UI:  {live.ui_url}\n  API: {live.api_url}\n  log: {live.log}")
        runner = control.ask_status()
        typer.echo(f"warm runner: ready (pid {runner['pid']}), {runner['served']} command(s) "
                   f"served, {runner['running']} running" if runner else
                   "warm runner: not running (commands start in their own process, about 2 s "
                   "slower); `mathprobe server start` starts it")
    elif server is not None:
        typer.echo(f"Stale record: {stale(server)}. "
                   "`mathprobe server start` starts a new one (and replaces the record).")
    if not configured and not running:
        typer.echo("No Prefect server: the next run starts one (10-20 s; it stops once unused "
                   f"for {AUTO_IDLE_S / 60:.0f} min). `mathprobe server start` starts it now, "
                   "for good.")
