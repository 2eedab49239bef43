"""The local Prefect server of `mathprobe server start|stop|status` (the commands:
mathprobe.cli.server), which every command that runs a flow finds, or starts.

`mathprobe server start` starts a real `prefect server start` once, in the background, on the
user's own Prefect database (PREFECT_HOME, so Secret blocks and earlier runs are there); every
later command that runs a flow finds it (`use_running`) and connects in milliseconds, and its
runs stay in its UI. A server named by PREFECT_API_URL (the environment or the active Prefect
profile) is used as it is, so a `prefect server start` of one's own serves as well.

A command that finds none starts the same server itself (`ensure_running`), once for all: the
commands started meanwhile wait for that start (a lock), then use it. Before, each started
Prefect's temporary server of its own (a uvicorn subprocess per command, whose runs vanished
with it), which must answer within Prefect's fixed 20 s: three `mathprobe run` at once on 2
cores, or one on a loaded machine, all failed with a 40-line traceback. This start waits
START_TIMEOUT_S (a loaded 2-core machine takes 20-60 s) and fails in one line. A server a
command started stops itself once no command has used it for AUTO_IDLE_S (30 min, or
$MATHPROBE_SERVER_IDLE_TIMEOUT seconds; its warm runner watches, mathprobe/warm/runner.py);
one `server start` started, or kept, stays until `server stop` (or its --idle-timeout). The
port: PREFECT_SERVER_API_PORT, Prefect's own setting, else 4200, else a free one.

Who uses the server: each command that runs a flow on it holds a shared lock on `users.lock`
(`hold_use`) for its lifetime, released by the kernel however it ends (kill -9 too); the
server is idle when the lock can be taken exclusively (`unused`).

Its record: $MATHPROBE_STATE_DIR/server (default ~/.local/state/mathprobe/server):
`server.json` (pid, port, idle_s), `server.log`. A record whose process is gone (the machine
restarted, the process was killed) is stale: it is ignored, said so by `status`, and replaced by
`start`. A pid that now belongs to another program is never signalled.
Nothing here imports Prefect: finding the server must cost less than what it saves.
"""
from __future__ import annotations

import fcntl
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from mathprobe import processes
from mathprobe.backends.secrets import prefect_setting
from mathprobe.errors import MathprobeError
from mathprobe.ports import free_port
from mathprobe.warm import control
from mathprobe.warm.control import state_dir

DEFAULT_PORT = 4200
START_TIMEOUT_S = 120.0     # measured: 17 s on 2 cores at load 4, 40-60 s beside a CPU burner
STOP_TIMEOUT_S = 10.0
AUTO_IDLE_S = 1800.0        # a server a command started stops once unused this long ...
IDLE_ENV = "MATHPROBE_SERVER_IDLE_TIMEOUT"    # ... or this many seconds
USERS = "users.lock"


@dataclass(frozen=True)
class Server:
    pid: int
    port: int
    home: str
    log: str
    idle_s: float | None = None      # stops itself once unused this long; None: never

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


def configured() -> str | None:
    """The Prefect API this process is told to use: PREFECT_API_URL (the environment or the
    active profile), or, once Prefect is imported, its current settings' (a test harness's)."""
    url = prefect_setting("PREFECT_API_URL")
    if url or "prefect.settings" not in sys.modules:
        return url
    from prefect.settings import get_current_settings

    return get_current_settings().api.url


def use_running() -> str | None:
    """The API URL of a Prefect server to use, if there is one: the one configured
    (`configured`) as it is, else the mathprobe server if it answers, which is then put in this
    process's PREFECT_API_URL (before Prefect is imported: its settings read it; flow-run
    subprocesses inherit it) and held for use (`hold_use`). None: no server (`ensure_running`
    starts one)."""
    url = configured()
    if url:
        return url
    hold_use()                  # first: a server stopping for idleness is then gone, not going
    server = recorded()
    if server is None or not server.alive() or not server.healthy():
        return None
    os.environ["PREFECT_API_URL"] = server.api_url
    return server.api_url


def ensure_running() -> tuple[str, Server | None]:
    """(the API URL to use, the server if this call started it): `use_running`'s, else the
    mathprobe server started now, in the background, stopping itself after AUTO_IDLE_S unused.
    Commands calling this at once start one server: the first starts it, the others wait for
    it (the start lock), then use it. A start that fails is the one-line MathprobeError."""
    idle_s = auto_idle_s()                    # a bad value is said whether or not it is needed
    url = use_running()
    if url:
        return url, None
    with _locked("start.lock", START_TIMEOUT_S + 30.0, "another command's start of the "
                 "local Prefect server"):
        url = use_running()                   # started meanwhile by the command before us
        if url:
            return url, None
        server, _ = start(idle_s=idle_s)
    os.environ["PREFECT_API_URL"] = server.api_url
    return server.api_url, server


def auto_idle_s() -> float:
    """How long a server a command started waits unused before it stops: $IDLE_ENV seconds,
    checked as `server start --idle-timeout` is (its declaration in mathprobe.settings), else
    AUTO_IDLE_S."""
    from mathprobe import settings

    value = settings.get(IDLE_ENV)
    return AUTO_IDLE_S if value is None else value


_held_use = None      # this process's shared lock on USERS (the file stays open till it ends)


def hold_use() -> None:
    """Count this process as a user of the server for as long as it runs (a shared lock)."""
    global _held_use
    if _held_use is not None:
        return
    folder = state_dir()
    folder.mkdir(parents=True, exist_ok=True)
    lock = open(folder / USERS, "a+b")       # noqa: SIM115 - held until the process ends
    fcntl.flock(lock, fcntl.LOCK_SH)
    _held_use = lock


@contextmanager
def unused() -> Iterator[bool]:
    """Whether no command uses the server, holding that so while the body runs (a command
    arriving meanwhile waits, then finds the server gone: it starts a new one)."""
    folder = state_dir()
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / USERS, "a+b") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True


@contextmanager
def _locked(name: str, timeout: float, what: str) -> Iterator[None]:
    """An exclusive lock on `name` in the state folder, waited for at most `timeout` s."""
    folder = state_dir()
    folder.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + timeout
    with open(folder / name, "a+b") as lock:
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise MathprobeError(f"waited {timeout:.0f} s for {what} ({folder / name}); "
                                         f"see {folder / 'server.log'}") from None
                time.sleep(0.1)
        yield


def default_port() -> int:
    """The port a server is started on unless told: Prefect's own setting for it,
    PREFECT_SERVER_API_PORT (the environment or the profile), else DEFAULT_PORT (4200)."""
    value = prefect_setting("PREFECT_SERVER_API_PORT")
    if not value:
        return DEFAULT_PORT
    try:
        port = int(value)
    except ValueError:
        port = 0
    if not 1 <= port <= 65_535:
        raise MathprobeError(f"PREFECT_SERVER_API_PORT={value!r}: must be a TCP port, "
                             "1..65535 (the port the local Prefect server is started on)")
    return port


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def start(port: int | None = None, timeout: float = START_TIMEOUT_S,
          idle_s: float | None = None) -> tuple[Server, bool]:
    """Start the server in the background and wait until it answers; (server, started now).
    `idle_s`: it stops itself once unused this long (None: never). An already running one is
    returned as it is, kept for good where `idle_s` is None (`server start` keeps one a
    command started)."""
    server = recorded()
    if server is not None and server.alive():
        if _wait_healthy(server, 5.0) and server.owns_port():   # perhaps still starting
            if idle_s is None and server.idle_s is not None:
                server = Server(server.pid, server.port, server.home, server.log)
                _write_record(server)
            return server, False
        _terminate(server.pid)                  # up but not answering: start afresh
    folder = state_dir()
    folder.mkdir(parents=True, exist_ok=True)
    home = prefect_setting("PREFECT_HOME") or str(Path.home() / ".prefect")
    if port is None:
        port = default_port()
        port = port if _free(port) else free_port()
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
    server = Server(proc.pid, port, home, str(log), idle_s)
    _write_record(server)
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


def _write_record(server: Server) -> None:
    tmp = state_dir() / f"server.json.{os.getpid()}"
    tmp.write_text(json.dumps(server.__dict__))
    tmp.replace(state_dir() / "server.json")


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
    return server, retire(server)


def retire(server: Server | None) -> bool:
    """Remove the record of `server` and stop its process, not its warm runner (the runner
    itself retires an idle server); whether a process was stopped."""
    (state_dir() / "server.json").unlink(missing_ok=True)
    if server is None or not server.alive():
        return False
    _terminate(server.pid)
    return True


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
