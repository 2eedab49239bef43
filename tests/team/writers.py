"""Four writers into one lake (tests/team/test_shared_store.py), started in the background
once the team's sweep has ended (tests/support/early.py): four `mathprobe run` processes, each
importing Python and Prefect and starting a run at once (40-60 s of CPU on 2 cores), run while
the tests before the team's run in the test process, whose core is often idle then (waiting on
servers and subprocesses). The team's tests begin after it ended, as after the sweep."""
from __future__ import annotations

import atexit
import shutil
import subprocess
import tempfile
from pathlib import Path

from tests.support import early
from tests.team.conftest import Postgres, Team

RUNS = ("first", "second", "shared", "shared")       # two of them on the same run
LIMIT = 60


def run_writers() -> dict:
    """The four processes' (returncode, stdout, stderr), the lake they wrote and a folder of
    their own for what the test makes next."""
    env, api, state, up = early.result("team")
    folder, started, port = early.result("postgres")
    if up.returncode != 0 or started.returncode != 0:
        raise RuntimeError("the team set-up failed; see the team's tests")
    early.wait("sweep")                 # not on top of the sweep's processes: both would crawl
    work = Path(tempfile.mkdtemp(prefix="mathprobe-writers-"))
    atexit.register(shutil.rmtree, work, True)
    lake = Postgres(port).lake("lake_writers")
    team = Team(env, api, state)
    procs = [team.popen("run", "--benchmark", "wemath", "--model", "baseline:random",
                        "--run-id", run_id, "--db", lake, "--data-path", str(work / "parquet"),
                        "--limit", str(LIMIT), "--json")
             for run_id in RUNS]
    done = []
    for p in procs:
        try:
            out, errs = p.communicate(timeout=240)
        except subprocess.TimeoutExpired:
            p.kill()
            out, errs = p.communicate()
            errs += "\n(killed after 240 s)"
        done.append((p.returncode, out, errs))
    return {"lake": lake, "work": work, "done": done}
