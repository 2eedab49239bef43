"""Prefect's temporary server dies with the command that started it.

Without a Prefect server, the first Prefect client of a `mathprobe` command starts Prefect's
temporary one (`SubprocessASGIServer`: a uvicorn subprocess, about 200 MB), which stops it at
exit. A command killed -9 runs no exit code: the server went on listening (a minute later and
beyond, issue 25). Each server process Prefect starts here gets a watchdog that stops it when
the command's process ends, however it ends (`mathprobe.processes.outlived_by_none`).

Imported by the modules that define flows, before any client starts a server (a module is
imported once: the method is wrapped once). Only where no Prefect API is configured: Prefect's
server package (sqlalchemy, fastapi, its ORM) costs about 1.3 s and 90 MB to import, which a
command handed to a running server never needs.
"""
from __future__ import annotations

from typing import Any

from prefect.settings import get_current_settings

from mathprobe.processes import outlived_by_none


def _watched(start: Any) -> Any:
    def _run_uvicorn_command(self: Any) -> Any:
        proc = start(self)
        outlived_by_none(proc.pid)
        return proc
    return _run_uvicorn_command


if get_current_settings().api.url is None:      # a client would start the temporary server
    from prefect.server.api.server import SubprocessASGIServer

    SubprocessASGIServer._run_uvicorn_command = _watched(SubprocessASGIServer._run_uvicorn_command)
