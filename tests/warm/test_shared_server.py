"""Commands that find no Prefect server share one local server (issue 38 item 10).

Before, each such command started Prefect's temporary server of its own, which had to answer
within Prefect's fixed 20 s: three `mathprobe run` started together on one store (the team
example, a DuckLake store) all failed after 20 s with a 40-line traceback ("Timed out while
attempting to connect to ephemeral Prefect API server"), and a single run on a loaded machine
did too. Now the first command starts the local server (as `mathprobe server start` does: in
the background, its runs in its UI), the others wait for that start and use it, the start
waits long enough for a loaded 2-core machine, and the server stops once unused.

Every command runs as a user types it, in a subprocess, with no Prefect server configured and a
state folder, Prefect home and server port of its own (tests/support/servers.py), never 4200.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from mathprobe.store import open_store
from tests.conftest import REPO
from tests.support import servers
from tests.support.cli import error_lines, mathprobe
from tests.support.fake_api import FakeAPI

STARTED = "no Prefect server was running: started one for this command and the next"
# a busy core for as long as the test needs it, and never longer
BURN = "import time\nend = time.monotonic() + 420\nwhile time.monotonic() < end:\n    pass\n"


def run_args(run_id: str, db: str, data_dir: Path, *more: str) -> list[str]:
    return [sys.executable, "-m", "mathprobe", "run", "--benchmark", "wemath", "--model",
            "baseline:random", "--run-id", run_id, "--db", db, "--data-dir", str(data_dir),
            "--limit", "30", *more]


@pytest.mark.timeout(900)
def test_three_runs_started_together_on_a_loaded_machine_share_one_server(no_server, tmp_path,
                                                                         data_dir):
    lake = f"ducklake:sqlite:{tmp_path / 'team.sqlite'}"
    burners = [subprocess.Popen([sys.executable, "-c", BURN]) for _ in range(os.cpu_count() or 2)]
    try:
        procs = [subprocess.Popen(run_args(f"r{i}", lake, data_dir), cwd=tmp_path, env=no_server,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for i in range(3)]
        done = [p.communicate(timeout=600) for p in procs]
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
    for proc, (out, err) in zip(procs, done):
        assert proc.returncode == 0, err[-3000:]
        assert "Traceback" not in err and not error_lines(err), err[-3000:]
        assert "status=completed" in out
    assert sum(err.count(STARTED) for _, err in done) == 1        # one server, said once
    record = servers.recorded(no_server)
    url = f"http://127.0.0.1:{record['port']}/api"
    assert record["port"] == int(no_server["PREFECT_SERVER_API_PORT"]) != 4200
    flow_runs = httpx.post(f"{url}/flow_runs/filter", timeout=30, json={}).json()
    assert sorted((f["name"], f["state_type"]) for f in flow_runs) == [
        (f"wemath:baseline:random:r{i}", "COMPLETED") for i in range(3)]   # in its UI
    status = mathprobe("server", "status", env=no_server)
    assert f"mathprobe server: running (pid {record['pid']}), healthy, stops once unused for " \
           "1800 s" in status.stdout, status.stdout
    store = open_store(lake, read_only=True)
    assert store.query("SELECT run_id, status, n_ok FROM run_summary ORDER BY run_id") == [
        (f"r{i}", "completed", 30) for i in range(3)]


def test_the_server_a_killed_run_started_serves_the_next_then_stops_once_unused(
        no_server, tmp_path, data_dir):
    """kill -9 of the command that started the server leaves the server for the next command
    (no second start, no note), which resumes the run; once no command uses it for
    MATHPROBE_SERVER_IDLE_TIMEOUT seconds, it stops (its warm runner with it)."""
    env = dict(no_server, MATHPROBE_SERVER_IDLE_TIMEOUT="4")
    api = FakeAPI(latency=0.3).start()
    env.update(OPENAI_BASE_URL=api.openai_url, OPENAI_API_KEY="sk-test-shared")
    args = [sys.executable, "-m", "mathprobe", "run", "--benchmark", "wemath", "--model",
            "openai:m", "--run-id", "k", "--db", str(tmp_path / "k.duckdb"), "--data-dir",
            str(data_dir), "--limit", "30", "--concurrency", "1"]
    try:
        first = subprocess.Popen(args, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 240
        while api.served < 3:
            assert first.poll() is None and time.monotonic() < deadline, first.stderr.read()
            time.sleep(0.05)
        first.kill()
        first.wait(timeout=30)
        record = servers.recorded(env)
        assert record is not None and not servers.gone(record["pid"], timeout=2)
        again = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True,
                               timeout=240)
        assert again.returncode == 0, again.stderr[-3000:]
        assert STARTED not in again.stderr                      # it found the server
        assert servers.recorded(env)["pid"] == record["pid"]
        assert servers.gone(record["pid"], timeout=45), "the unused server did not stop"
    finally:
        api.stop()
    status = mathprobe("server", "status", env=env)
    assert status.stdout.startswith("No Prefect server: the next run starts one"), status.stdout
    assert servers.recorded(env) is None


def test_a_bad_idle_timeout_is_one_line_before_any_server(no_server, tmp_path, data_dir):
    for value, why in (("abc", "must be a number"), ("0", "must be at least 1"),
                       ("nan", "must be a finite number")):
        env = dict(no_server, MATHPROBE_SERVER_IDLE_TIMEOUT=value)
        done = subprocess.run(run_args("x", str(tmp_path / "x.duckdb"), data_dir), cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 2, done.stderr[-2000:]
        assert error_lines(done.stderr) == [
            f"error: MATHPROBE_SERVER_IDLE_TIMEOUT={value}: {why} (seconds unused before the "
            "server stops)"], done.stderr[-2000:]
        assert servers.recorded(env) is None


def test_kill_9_of_a_flow_run_from_python_leaves_no_temporary_server(tmp_path, data_dir):
    """The flows called from Python with no Prefect server (a notebook, a script) still get
    Prefect's temporary server, which goes with the process, kill -9 included (issue 25)."""
    api = FakeAPI(latency=0.3).start()
    env = servers.own_state(tmp_path, OPENAI_BASE_URL=api.openai_url,
                            OPENAI_API_KEY="sk-test-kill")
    script = ("from mathprobe.flows.eval import eval_flow\n"
              f"eval_flow(benchmark='wemath', model='openai:m', run_id='k', "
              f"db={str(tmp_path / 'k.duckdb')!r}, data_dir={str(data_dir)!r}, limit=60, "
              "concurrency=1)\n")
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=REPO, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    found: list[int] = []
    try:
        deadline = time.monotonic() + 180
        while api.served < 2:
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
            time.sleep(0.05)
        found = [int(p.parent.name) for p in Path("/proc").glob("[0-9]*/cmdline")
                 if _is_temporary_server_of(p, proc.pid)]
        assert len(found) == 1, "no temporary server found"
        proc.kill()
        proc.wait(timeout=30)
        assert servers.gone(found[0], timeout=20), "the temporary server outlived its process"
    finally:
        api.stop()
        proc.kill()
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _is_temporary_server_of(cmdline: Path, parent: int) -> bool:
    try:
        args = cmdline.read_bytes().split(b"\0")
        ppid = int((cmdline.parent / "stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return False
    return ppid == parent and b"prefect.server.api.server:create_app" in args
