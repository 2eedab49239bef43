"""Prefect's temporary server, for flows called from Python with no Prefect server: it dies with
the process that started it, and it is given time to start on a loaded machine.

The `mathprobe` command never starts one (it finds or starts the local server:
mathprobe/warm/server.py); a flow called from Python (a notebook, a script) with no Prefect API
configured makes its first Prefect client start Prefect's temporary server
(`SubprocessASGIServer`: a uvicorn subprocess, about 200 MB), stopped at exit. Two things are
added to it here:
- a process killed -9 runs no exit code: the server went on listening (a minute later and
  beyond, issue 25). Each server process Prefect starts here gets a watchdog that stops it when
  the process ends, however it ends (`mathprobe.processes.outlived_by_none`);
- Prefect waits 20 s for it to answer, which a loaded 2-core machine does not always give it
  ("Timed out while attempting to connect to ephemeral Prefect API server", issue 38): unless
  PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS says otherwise, it waits STARTUP_TIMEOUT_S.

Imported by the modules that define flows, before any client starts a server (a module is
imported once: the methods are wrapped once). Only where no Prefect API is configured: Prefect's
server package (sqlalchemy, fastapi, its ORM) costs about 1.3 s and 90 MB to import, which a
command handed to a running server never needs.
"""
from __future__ import annotations

from typing import Any

from prefect.settings import get_current_settings

from mathprobe.backends.secrets import prefect_setting
from mathprobe.processes import outlived_by_none

STARTUP_TIMEOUT_S = 120         # as the local server's start (mathprobe/warm/server.py)


def _watched(start: Any) -> Any:
    def _run_uvicorn_command(self: Any) -> Any:
        proc = start(self)
        outlived_by_none(proc.pid)
        return proc
    return _run_uvicorn_command


def _patient(start: Any) -> Any:
    def start_(self: Any, timeout: int | None = None) -> None:
        if timeout is None and not prefect_setting(
                "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS"):
            timeout = STARTUP_TIMEOUT_S
        return start(self, timeout)
    return start_


if get_current_settings().api.url is None:      # a client would start the temporary server
    from prefect.server.api.server import SubprocessASGIServer

    # this module's purpose: Prefect's temporary-server launcher patched (methods replaced)
    SubprocessASGIServer._run_uvicorn_command = _watched(  # type: ignore[method-assign]
        SubprocessASGIServer._run_uvicorn_command)
    SubprocessASGIServer.start = _patient(  # type: ignore[method-assign]
        SubprocessASGIServer.start)
