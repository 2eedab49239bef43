"""Local Prefect servers the tests' commands start, and stopping every one of them.

With no Prefect server configured, a `mathprobe run` starts the local server itself and leaves
it for the next command (it stops once unused for 30 min: mathprobe/warm/server.py). A test
must never leave one behind, nor start one on the README's port 4200 (another test, or a person
on this machine, may use it): `own_state` gives a test an environment of its own (state folder,
Prefect home, a free PREFECT_SERVER_API_PORT) and records its state folder; `stop` stops the
server recorded there (and its warm runner); `stop_all` stops any a test left, at the end of
the session (tests/conftest.py).
"""
from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mathprobe.ports import free_port

REPO = Path(__file__).resolve().parents[2]
_states: list[Path] = []


def own_state(root: Path | None = None, **extra: str) -> dict[str, str]:
    """The user's environment with no Prefect server configured, and a state folder, Prefect
    home and server port of its own (under `root`, default a new folder under /tmp: the warm
    runner's socket path must stay short)."""
    root = Path(root or tempfile.mkdtemp(prefix="mathprobe-server-"))
    _states.append(root / "state")
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env.update(MATHPROBE_STATE_DIR=str(root / "state"), PREFECT_HOME=str(root / "home"),
               PREFECT_SERVER_ANALYTICS_ENABLED="false", PREFECT_SERVER_API_PORT=str(free_port()),
               PYTHONUNBUFFERED="1", COLUMNS="200", **extra)
    return env


def recorded(env: dict[str, str]) -> dict | None:
    try:
        return json.loads(Path(env["MATHPROBE_STATE_DIR"], "server", "server.json").read_text())
    except (OSError, ValueError):
        return None


def stop(env: dict[str, str]) -> None:
    """`mathprobe server stop` in that environment, then SIGKILL to whatever it recorded that
    still runs."""
    state = Path(env["MATHPROBE_STATE_DIR"])
    pids = [r["pid"] for r in (recorded(env), _runner(state)) if r]
    subprocess.run([sys.executable, "-m", "mathprobe", "server", "stop"], cwd=REPO, env=env,
                   capture_output=True, timeout=60)
    for pid in pids:
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def stop_all() -> None:
    for state in _states:
        if (state / "server" / "server.json").exists() or _runner(state):
            stop({**os.environ, "MATHPROBE_STATE_DIR": str(state)})


def _runner(state: Path) -> dict | None:
    try:
        return json.loads((state / "server" / "warm.json").read_text())
    except (OSError, ValueError):
        return None


def gone(pid: int, timeout: float = 15.0) -> bool:
    """Whether `pid` ends (or is a zombie: not ours to reap) within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if "\nState:\tZ" in Path(f"/proc/{pid}/status").read_text():
                return True
        except OSError:
            return True
        time.sleep(0.1)
    return False
