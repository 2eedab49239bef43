"""The local Prefect server of `mathprobe server start|stop|status` (the commands:
mathprobe.cli.server): a Prefect server that is already there.

Without a Prefect server, every command that runs a flow starts a temporary one (Prefect's
ephemeral API: about 6 s to start, most of it waiting for it to answer, and 2 s to stop), and
its flow runs vanish with it. `mathprobe server start` starts a real `prefect server start`
once, in the background, on the user's own Prefect database (PREFECT_HOME: the one the
temporary servers use, so Secret blocks and earlier runs are there); every later command that
runs a flow finds it (`use_running`) and connects in milliseconds, and its runs stay in its UI.
A server named by PREFECT_API_URL (the environment or the active Prefect profile) is used as it
is, so a `prefect server start` of one's own serves as well.

Its record: $MATHPROBE_STATE_DIR/server (default ~/.local/state/mathprobe/server):
`server.json` (pid, port), `server.log`. A record whose process is gone (the machine restarted,
the process was killed) is stale: it is ignored, said so by `status`, and replaced by `start`.
A pid that now belongs to another program is never signalled.
Nothing here imports Prefect: finding the server must cost less than what it saves.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from mathprobe import processes
from mathprobe.backends.secrets import prefect_setting
from mathprobe.errors import MathprobeError
from mathprobe.ports import free_port
from mathprobe.warm import control
from mathprobe.warm.control import state_dir

DEFAULT_PORT = 4200
START_TIMEOUT_S = 90.0
STOP_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Server:
    pid: int
    port: int
    home: str
    log: str

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api"

    @property
    def ui_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def alive(self) -> bool:
        """Whether the recorded process still runs and is a Prefect server (not another
        program that got the pid after a restart)."""
        try:
            cmdline = Path(f"/proc/{self.pid}/cmdline").read_bytes().split(b"\0")
        except FileNotFoundError:
            return False
        except OSError:                              # no /proc here: the pid alone
            return _exists(self.pid)
        return b"prefect" in b" ".join(cmdline) and b"server" in cmdline

    def healthy(self, timeout: float = 1.0) -> bool:
        return healthy(self.api_url, timeout)

    def owns_port(self) -> bool:
        """Whether what listens on the port is this server (its process group), not another
        program (another user's server, started first on the same port)."""
        group = processes.process_group(self.pid)
        if group is None:
            return self.alive()                      # no /proc here: the pid alone
        held = processes.listening_pids(self.port, processes.group_members(group))
        return bool(held) if held is not None else self.alive()


def healthy(api_url: str, timeout: float = 1.0) -> bool:
    """Whether the Prefect API at `api_url` answers its health check."""
    try:
        with urllib.request.urlopen(f"{api_url.rstrip('/')}/health", timeout=timeout) as r:
            return r.status == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False


def recorded() -> Server | None:
    """The server `mathprobe server start` recorded, if any (running or not)."""
    try:
        return Server(**json.loads((state_dir() / "server.json").read_text()))
    except (OSError, ValueError, TypeError):
        return None


def stale(server: Server) -> str:
    """What to say about a record whose process is gone."""
    return (f"the Prefect server recorded in {state_dir() / 'server.json'} (pid {server.pid}, "
            f"port {server.port}) is no longer running (killed, or the machine restarted)")


def use_running() -> str | None:
    """The API URL of a Prefect server to use, if there is one: PREFECT_API_URL (the environment
    or the active Prefect profile) as it is, else the mathprobe server if it answers, which is
    then put in this process's PREFECT_API_URL (before Prefect is imported: its settings read
    it; flow-run subprocesses inherit it). None: a flow will start Prefect's temporary server
    (`temporary_note` says why and what to do)."""
    configured = prefect_setting("PREFECT_API_URL")
    if configured:
        return configured
    server = recorded()
    if server is None or not server.alive() or not server.healthy():
        return None
    os.environ["PREFECT_API_URL"] = server.api_url
    return server.api_url


TEMPORARY_NOTE = ("note: no Prefect server running, so this command starts a temporary one "
                  "(about 10 s, and its runs vanish with it); `mathprobe server start` once makes "
                  "every run connect in well under a second and keeps them in the Prefect UI")


def temporary_note() -> str:
    """The note a command prints before it starts a temporary server: why, and the remedy."""
    server = recorded()
    if server is None:
        return TEMPORARY_NOTE
    if not server.alive():
        return f"note: {stale(server)}; `mathprobe server start` starts it again. " \
               "This command starts a temporary Prefect server (about 10 s)."
    return (f"note: the mathprobe Prefect server (pid {server.pid}, {server.api_url}) does not "
            f"answer (see {server.log}); this command starts a temporary one (about 10 s). "
            "`mathprobe server stop` then `mathprobe server start` restarts it.")


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def start(port: int | None = None, timeout: float = START_TIMEOUT_S) -> tuple[Server, bool]:
    """Start the server in the background and wait until it answers; (server, started now).
    An already running one is returned as it is."""
    server = recorded()
    if server is not None and server.alive():
        if _wait_healthy(server, 5.0) and server.owns_port():   # perhaps still starting
            return server, False
        _terminate(server.pid)                  # up but not answering: start afresh
    folder = state_dir()
    folder.mkdir(parents=True, exist_ok=True)
    home = prefect_setting("PREFECT_HOME") or str(Path.home() / ".prefect")
    if port is None:
        port = DEFAULT_PORT if _free(DEFAULT_PORT) else free_port()
    elif not _free(port):
        raise MathprobeError(f"--port {port}: already in use; choose another (or leave --port "
                             "out for a free one)")
    log = folder / "server.log"
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env.update(PREFECT_SERVER_ANALYTICS_ENABLED="false",
               PREFECT_UI_API_URL=f"http://127.0.0.1:{port}/api")
    prefect = Path(sys.executable).with_name("prefect")
    with open(log, "ab") as out:
        proc = subprocess.Popen([str(prefect), "server", "start", "--host", "127.0.0.1",
                                 "--port", str(port)], env=env, stdout=out,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)     # survives this command, and Ctrl-C
    server = Server(proc.pid, port, home, str(log))
    (folder / "server.json").write_text(json.dumps(server.__dict__))
    control.start(server.api_url)                  # warms up while the server starts
    deadline = time.monotonic() + timeout
    # its own server answering: another program on the port answers too (a server started
    # on it first, whose port ours then found taken: "Port ... is already in use")
    while not (server.healthy(timeout=0.5) and server.owns_port()):
        if proc.poll() is not None:
            (folder / "server.json").unlink(missing_ok=True)
            control.stop()                         # it was pointed at this server
            raise MathprobeError(f"the Prefect server exited at start (status {proc.returncode}); "
                                 f"see {log}: {_tail(log)}")
        if time.monotonic() > deadline:
            _terminate(proc.pid)
            (folder / "server.json").unlink(missing_ok=True)
            control.stop()
            raise MathprobeError(f"the Prefect server did not answer within {timeout:.0f} s; "
                                 f"see {log}")
        time.sleep(0.1)
    return server, True


def _wait_healthy(server: Server, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not server.healthy(timeout=0.5):
        if time.monotonic() > deadline or not server.alive():
            return False
        time.sleep(0.1)
    return True


def stop() -> tuple[Server | None, bool]:
    """Stop the recorded server (SIGTERM to its process group, SIGKILL after a grace period)
    and remove its record; (the record or None, whether a process was stopped)."""
    server = recorded()
    control.stop()
    (state_dir() / "server.json").unlink(missing_ok=True)
    if server is None or not server.alive():
        return server, False
    _terminate(server.pid)
    return server, True


def _terminate(pid: int) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + STOP_TIMEOUT_S
        while time.monotonic() < deadline:
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)      # our child: reap it
            except ChildProcessError:
                done = 0 if _exists(pid) else pid
            if done:
                return
            time.sleep(0.05)


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _tail(path: Path, lines: int = 3) -> str:
    try:
        text = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return " | ".join(line.strip() for line in text[-lines:])
