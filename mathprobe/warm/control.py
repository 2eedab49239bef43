"""The warm runner: one process that has imported everything a command needs, forking a copy of
itself per `mathprobe` command.

A `mathprobe run` spends about 2 s importing Prefect, the flows and the model SDK before it can
ask its first question (issue 14 wants the first request within 2 s of the command starting).
`mathprobe server start` therefore also starts this runner (mathprobe/warm/runner.py), which
imports all of that once. The `mathprobe` entry point (mathprobe/warm/launch.py) hands it each
command over a Unix socket; the runner forks, the copy takes the command's stdin/stdout/stderr,
arguments, working directory and environment and runs `mathprobe.cli.main.main` as the command
itself would have; the runner sends back the copy's exit status. A client that goes away (killed)
gets its copy interrupted as Ctrl-C would (answers kept; the same command resumes).

It only serves a command that would have imported what it imported (otherwise the command runs
in its own process, as before):
- the same code: mathprobe's sources, the installed packages (a `pip install`) and the Prefect
  profiles unchanged since the runner started (`fingerprint`, checked per command), and the
  same interpreter and mathprobe. On a change it declines, starts its successor (which warms up
  in the background) and exits once its running commands end;
- the same Prefect settings (Prefect reads PREFECT_* when imported) and a server that answers.

Nothing at this module's top level imports more than the standard library:
mathprobe/warm/launch.py imports it on every command. Its record: `warm.json` (pid, socket) in
the server's state folder (mathprobe/warm/server.py); its log: `warm.log` there.
"""
from __future__ import annotations

import json
import os
import socket
import sys
import time
from pathlib import Path
from typing import TypeGuard

PROTOCOL = 1
NO_WARM = "MATHPROBE_NO_WARM"          # set (to anything) to run every command in its own process
RECORD = "warm.json"
RUNNER = "mathprobe.warm.runner"     # the runner's module, run with `python -m`
READY_TIMEOUT_S = 60.0
# the root package's folder: the checkout's mathprobe/, or site-packages/mathprobe
_PROJECT = Path(__file__).resolve().parent.parent


def state_dir() -> Path:
    """$MATHPROBE_STATE_DIR/server, default $XDG_STATE_HOME/mathprobe/server (i.e.
    ~/.local/state/mathprobe/server, beside the writer's spool): the local server's record and
    log, and the warm runner's."""
    root = os.environ.get("MATHPROBE_STATE_DIR")
    base = Path(root) if root else \
        Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state") / "mathprobe"
    return base.expanduser() / "server"


def recorded() -> dict | None:
    """The runner's record ({pid, socket, api_url}), if any (running or not)."""
    try:
        record = json.loads((state_dir() / RECORD).read_text())
        return record if isinstance(record, dict) and "socket" in record else None
    except (OSError, ValueError):
        return None


def connect(timeout: float = 2.0) -> socket.socket | None:
    """A connection to the recorded runner, or None (no runner, or it does not accept)."""
    record = recorded()
    if record is None:
        return None
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.settimeout(timeout)
        conn.connect(record["socket"])
        conn.settimeout(None)
    except (OSError, TypeError):
        conn.close()
        return None
    return conn


def identity() -> dict:
    """What a command and the runner must share: the interpreter and the mathprobe it runs."""
    return {"executable": sys.executable, "project": str(_PROJECT)}


def fingerprint() -> str:
    """Changes when anything the runner imported may have: a source file of mathprobe (edited,
    added, removed), the installed packages (site-packages' own folder changes with any
    install), or the Prefect profiles. A few milliseconds of stat calls."""
    sources: set[str] = set()
    # the root package's folder, with the folders linked into it in a checkout (flows/, tasks/)
    for folder, dirs, files in os.walk(_PROJECT, followlinks=True):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        sources.update(os.path.join(folder, name) for name in files if name.endswith(".py"))
    newest = max((os.stat(path).st_mtime_ns for path in sources), default=0)
    marks = [str(newest), str(len(sources))]
    home = os.environ.get("PREFECT_HOME") or str(Path.home() / ".prefect")
    for path in [p for p in sys.path if p.endswith("-packages")] + [home + "/profiles.toml"]:
        try:
            marks.append(str(os.stat(path).st_mtime_ns))
        except OSError:
            marks.append("-")
    return "/".join(marks)


def alive(record: dict | None) -> TypeGuard[dict]:
    """Whether the recorded runner's process still runs (and is a runner, not a reused pid)."""
    if not record:
        return False
    try:
        cmdline = Path(f"/proc/{int(record['pid'])}/cmdline").read_bytes()
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return RUNNER.encode() in cmdline


def ask_status() -> dict | None:
    """The running runner's own account ({pid, served, running, ready_s}), or None."""
    conn = connect()
    if conn is None:
        return None
    try:
        payload = json.dumps({"protocol": PROTOCOL, "status": True}).encode()
        conn.sendall(len(payload).to_bytes(4, "big") + payload)
        conn.settimeout(2.0)
        return json.loads(conn.makefile("rb").readline() or b"null")
    except (OSError, ValueError):
        return None
    finally:
        conn.close()


def start(api_url: str) -> int:
    """Start a runner for the Prefect server at `api_url` in the background, unless one runs;
    its pid. It warms up (a few seconds) while the caller goes on: `wait_ready`."""
    import subprocess

    record = recorded()
    if alive(record) and record.get("api_url") == api_url:
        return int(record["pid"])
    folder = state_dir()
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "warm.log", "ab") as log:
        proc = subprocess.Popen([sys.executable, "-m", RUNNER, "--api-url", api_url],
                                cwd=folder, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True,
                                env={k: v for k, v in os.environ.items() if k != NO_WARM})
    # a record now, so another `start` meanwhile finds it; the socket comes once it is warm
    (folder / RECORD).write_text(json.dumps({"pid": proc.pid, "socket": None, "api_url": api_url}))
    return proc.pid


def wait_ready(pid: int, timeout: float = READY_TIMEOUT_S) -> bool:
    """Whether runner `pid` accepts commands within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        record = recorded()
        if record and record.get("pid") == pid and ask_status() is not None:
            return True
        if not running(pid):
            return False
        time.sleep(0.05)
    return False


def stop(timeout: float = 10.0) -> int | None:
    """Stop the recorded runner (its running commands are interrupted as by Ctrl-C and it waits
    for them) and remove its record; the pid stopped, or None."""
    import signal

    record = recorded()
    (state_dir() / RECORD).unlink(missing_ok=True)
    if record is None or not alive(record):
        return None
    pid = int(record["pid"])
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while running(pid):
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            break
        time.sleep(0.05)
    return pid


def running(pid: int) -> bool:
    """Whether process `pid` exists and has not ended (a zombie has: this command's own child
    is reaped here, another's is its parent's to reap)."""
    try:
        if os.waitpid(pid, os.WNOHANG)[0]:
            return False
    except ChildProcessError:
        pass
    try:
        return "\nState:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False

