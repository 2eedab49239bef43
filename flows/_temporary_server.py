"""Prefect's temporary server dies with the command that started it.

Without a Prefect server, the first Prefect client of a `mathprobe` command starts Prefect's
temporary one (`SubprocessASGIServer`: a uvicorn subprocess, about 200 MB), which stops it at
exit. A command killed -9 runs no exit code: the server went on listening (a minute later and
beyond, issue 25). Each server process Prefect starts here gets a watchdog that stops it when
the command's process ends, however it ends (`tasks.processes.outlived_by_none`).

Imported by the modules that define flows, before any client starts a server (a module is
imported once: the method is wrapped once).
"""
from __future__ import annotations

from typing import Any

from prefect.server.api.server import SubprocessASGIServer

from mathprobe.tasks.processes import outlived_by_none

_start = SubprocessASGIServer._run_uvicorn_command


def _run_uvicorn_command(self: SubprocessASGIServer) -> Any:
    proc = _start(self)
    outlived_by_none(proc.pid)
    return proc


SubprocessASGIServer._run_uvicorn_command = _run_uvicorn_command
