"""`mathprobe deploy up --port` (issue 38 item 9): the team server's port is an option (it was an
undocumented PORT variable), a port in use is refused at once in one line (it was a server that
never answered, two minutes later), and `deploy status --api-url` gives PREFECT_API_URL, so the
README's commands name no port. The server started on the port given: tests/team/test_deploy.py
(the team's set-up is `local.sh up --port N`)."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

from tests.conftest import REPO
from tests.support.cli import error_lines


def deploy(*args: str, env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mathprobe", "deploy", *args], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=timeout)


def test_a_port_in_use_is_refused_at_once_in_one_line(tmp_path, data_dir):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update(STATE_DIR=str(tmp_path / "team"), MATHPROBE_DATA_DIR=str(data_dir))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        started = time.monotonic()
        done = deploy("up", "--port", str(port), env=env, timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    assert error_lines(done.stderr) == [
        f"error: --port {port}: already in use on 127.0.0.1 (another Prefect server?); choose "
        "another with --port"], done.stderr
    assert time.monotonic() - started < 30
    assert not (tmp_path / "team" / "server.pid").exists()             # nothing started
    bad = deploy("up", "--port", "70000", env=env, timeout=60)
    assert bad.returncode == 2 and error_lines(bad.stderr) == [
        "error: --port 70000: must be at most 65535 (a TCP port)"], bad.stderr
    none = deploy("status", "--api-url", env=env, timeout=60)
    assert none.returncode == 1 and len(error_lines(none.stderr)) == 1, none.stderr
