"""`mathprobe deploy up|down|status`: the team set-up of deploy/local.sh, from wherever mathprobe
is installed (a checkout or a wheel): the script and prefect.yaml travel as package data, and
the script runs with this installation's python, prefect and mathprobe (BIN)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import typer

from mathprobe.paths import DEPLOY

app = typer.Typer(help="A Prefect server, work pool, provider limits, the deployments "
                  "eval/full and eval/sweep, and workers, on this machine (deploy/local.sh).",
                  no_args_is_help=True)


def _local(*args: str) -> None:
    env = {**os.environ, "BIN": os.environ.get("BIN") or str(Path(sys.executable).parent)}
    done = subprocess.run(["bash", str(DEPLOY / "local.sh"), *args], env=env)
    raise typer.Exit(done.returncode)


@app.command("up")
def up(
    data_dir: Annotated[Path | None, typer.Option(
        "--data-dir", help="The benchmark data every run reads unless told otherwise (default: "
        "$MATHPROBE_DATA_DIR).")] = None,
    db: Annotated[str | None, typer.Option(
        "--db", help="The store runs write unless told otherwise (default: $MATHPROBE_DB, else "
        "mathprobe.duckdb here).")] = None,
    workers: Annotated[int, typer.Option("--workers", min=1, help="Workers to start on this "
                                         "machine (each runs flow runs of the pool).")] = 1,
    postgres: Annotated[bool, typer.Option("--postgres", help="Prefect's database on a "
                                           "PostgreSQL server of its own.")] = False,
    port: Annotated[int | None, typer.Option("--port", help="The server's port on 127.0.0.1 "
                                             "(default 4200; one in use is refused at "
                                             "once).")] = None,
) -> None:
    """Start the server, the pool and the workers; deploy eval/full and eval/sweep."""
    from mathprobe.runs.preflight import check_counts

    check_counts(port=port)
    args = ["up", "--workers", str(workers)] + (["--postgres"] if postgres else [])
    args += ["--port", str(port)] if port is not None else []
    args += (["--data-dir", str(data_dir)] if data_dir else []) + (["--db", db] if db else [])
    _local(*args)


@app.command("down")
def down() -> None:
    """Stop the workers and the server."""
    _local("down")


@app.command("status")
def status(
    api_url: Annotated[bool, typer.Option("--api-url", help="Print only the server's API URL, "
                                          "e.g. for export PREFECT_API_URL=$(mathprobe deploy "
                                          "status --api-url).")] = False,
) -> None:
    """Which of the server and workers run, and the server's address."""
    _local("status", *(["--api-url"] if api_url else []))
