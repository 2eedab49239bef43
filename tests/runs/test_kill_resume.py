"""kill -9 at any moment, then the same command: the run finishes with nothing lost or doubled."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import duckdb
import pytest

from tests.conftest import REPO
from tests.support.fake_api import FakeAPI

pytestmark = pytest.mark.usefixtures("prefect_harness")
LIMIT = 120


def cli_env(api: FakeAPI) -> dict[str, str]:
    from prefect.settings import PREFECT_API_URL

    env = dict(os.environ, OPENAI_BASE_URL=api.openai_url, OPENAI_API_KEY="sk-test-kill",
               PREFECT_API_URL=PREFECT_API_URL.value(), PYTHONUNBUFFERED="1")
    return env


def counts(db) -> tuple[int, int, int]:
    con = duckdb.connect(str(db), read_only=True)      # the file must open after a kill -9
    try:
        return con.execute("SELECT count(*), count(DISTINCT item_id), "
                           "count(*) FILTER (status = 'ok') FROM responses").fetchone()
    finally:
        con.close()


@pytest.mark.parametrize("kill_after", [5, 60])
def test_kill_9_then_resume(kill_after, data_dir, db):
    api = FakeAPI(latency=0.05).start()
    try:
        cmd = [sys.executable, "-m", "flows.cli", "run", "--benchmark", "wemath", "--model",
               "openai:m", "--run-id", "k", "--db", str(db), "--data-dir", str(data_dir),
               "--limit", str(LIMIT), "--concurrency", "4"]
        proc = subprocess.Popen(cmd, cwd=REPO, env=cli_env(api), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        deadline = time.time() + 120
        while api.served < kill_after and proc.poll() is None and time.time() < deadline:
            time.sleep(0.01)
        assert proc.poll() is None, "the run ended before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()

        stored, distinct, ok = counts(db)
        assert stored == distinct == ok                 # nothing doubled, nothing half-written
        from tasks.benchmarks import wemath
        chosen = wemath.select(wemath.load(data_dir).items, LIMIT)   # whole problems: <= LIMIT
        n = len(chosen)
        assert stored < n
        served_before = api.served

        done = subprocess.run(cmd + ["--json"], cwd=REPO, env=cli_env(api), capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        assert counts(db) == (n, n, n)
        # only what had not been stored was asked again
        assert api.served - served_before == n - stored
        import json
        report = json.loads(done.stdout)
        assert report["run"]["status"] == "completed"
        assert report["four_dimensional"]["strict"]["n"] == len({it.group_id for it in chosen})
    finally:
        api.stop()
