"""kill -9 at any moment, then the same command: the run finishes with nothing lost or doubled,
and what the dead process left `running` (the run in DuckDB, its Prefect flow run) is marked
interrupted / Crashed."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import duckdb
import pytest

from tests.conftest import REPO
from tests.support.cli import cli_env, mathprobe
from tests.support.fake_api import FakeAPI
from tests.support.report import figure

pytestmark = pytest.mark.usefixtures("prefect_harness")
LIMIT = 120


def flow_run_state(flow_run_id: str) -> str:
    import asyncio

    from prefect.client.orchestration import get_client

    async def read():
        async with get_client() as client:
            return (await client.read_flow_run(flow_run_id)).state.type.value
    return asyncio.run(read())


def counts(db) -> tuple[int, int, int]:
    con = duckdb.connect(str(db), read_only=True)      # the file must open after a kill -9
    try:
        return con.execute("SELECT count(*), count(DISTINCT item_id), "
                           "count(*) FILTER (status = 'ok') FROM responses").fetchone()
    finally:
        con.close()


def test_kill_9_then_resume(data_dir, db):
    """Killed early (5 answers in), then killed again while resuming (60 answers in), then
    resumed to the end: each time nothing doubled or half-written, the dead run shown
    interrupted, its flow run Crashed, and only what was not stored asked again."""
    api = FakeAPI(latency=0.05).start()
    try:
        cmd = [sys.executable, "-m", "mathprobe", "run", "--benchmark", "wemath", "--model",
               "openai:m", "--run-id", "k", "--db", str(db), "--data-dir", str(data_dir),
               "--limit", str(LIMIT), "--concurrency", "4"]
        from mathprobe.benchmarks import wemath
        chosen = wemath.select(wemath.load(data_dir).items, LIMIT)   # whole problems: <= LIMIT
        n = len(chosen)
        dead_flow_runs = []
        for kill_after in (5, 60):
            proc = subprocess.Popen(cmd, cwd=REPO, env=cli_env(api), stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
            deadline = time.time() + 120
            while api.served < kill_after and proc.poll() is None and time.time() < deadline:
                time.sleep(0.01)
            assert proc.poll() is None, "the run ended before it could be killed"
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()

            stored, distinct, ok = counts(db)
            assert stored == distinct == ok             # nothing doubled, nothing half-written
            assert stored < n
            con = duckdb.connect(str(db), read_only=True)
            status, flow_run_id = con.execute("SELECT status, flow_run_id FROM runs").fetchone()
            con.close()
            assert status == "running" and flow_run_state(flow_run_id) == "RUNNING"
            assert flow_run_id not in dead_flow_runs    # the resumed run's own flow run
            dead_flow_runs.append(flow_run_id)
            if kill_after == 5:
                # no process holds the file, so a report knows the run is not running any more
                shown = mathprobe("report", "--run-id", "k", "--db", str(db), "--json",
                                  env=cli_env(api))
                assert json.loads(shown.stdout)["run"]["status"] == "interrupted"
        served_before = api.served

        done = subprocess.run(cmd + ["--json"], cwd=REPO, env=cli_env(api), capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        assert "left running by a process that died, now interrupted: k" in done.stderr
        assert [flow_run_state(f) for f in dead_flow_runs] == ["CRASHED", "CRASHED"]
        assert counts(db) == (n, n, n)
        # only what had not been stored was asked again
        assert api.served - served_before == n - stored
        report = json.loads(done.stdout)
        assert report["run"]["status"] == "completed"
        assert figure(report, "score.strict")["n"] == len({it.group_id for it in chosen})
    finally:
        api.stop()


@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGTERM])
def test_a_closed_terminal_stops_a_run_as_sigterm_does(sig, data_dir, db):
    """SIGHUP (the terminal closed) ends a run as SIGTERM does: the run is marked interrupted
    at once, its flow run no longer running; before, SIGHUP killed the process on the spot and
    left the run `running` (on a lake, where no write lock tells a dead run, for good)."""
    api = FakeAPI(latency=0.2).start()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "mathprobe", "run", "--benchmark", "wemath", "--model",
             "openai:m", "--run-id", "h", "--db", str(db), "--data-dir", str(data_dir),
             "--limit", "60", "--concurrency", "2"], cwd=REPO, env=cli_env(api),
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 120
        while api.served < 3 and proc.poll() is None and time.time() < deadline:
            time.sleep(0.01)
        assert proc.poll() is None, proc.stderr.read()[-3000:]
        proc.send_signal(sig)
        proc.communicate(timeout=60)
        assert proc.returncode != 0
    finally:
        api.stop()
    con = duckdb.connect(str(db), read_only=True)      # as the killed process left it
    try:
        status, flow_run_id = con.execute("SELECT status, flow_run_id FROM runs").fetchone()
    finally:
        con.close()
    assert status == "interrupted"
    assert flow_run_state(flow_run_id) != "RUNNING"
