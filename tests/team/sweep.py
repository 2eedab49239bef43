"""The team sweep (tests/team/test_sweep.py), started in the background as soon as the team's
Prefect server, workers and PostgreSQL are up (tests/support/early.py): its cells are flow-run
processes that the workers start, each importing Python, Prefect and the flow (60-100 s in all
on 2 cores), so they run while the tests before the team's run in the test process. The team's
other tests wait for it to end (the `team` fixture): they share its server, workers and
loopback API, whose peak it measures."""
from __future__ import annotations

import atexit
import json
import shutil
import tempfile

from tests.support import early
from tests.team.conftest import BIN, Postgres, Team

MODELS = ["baseline:random", "openai:gpt-4o-mini"]
BENCHMARKS = ["wemath", "conceptmath"]
LIMIT = 30


def run_sweep() -> dict:
    """One sweep of 2 models x 2 benchmarks, with the OpenAI limit set to 2 slots for all
    workers together (each worker alone would allow 256): the parent flow run and its four
    cells each start as a fresh process from a worker, write into a PostgreSQL-catalogued lake,
    and every OpenAI request holds a slot of the server's global limit."""
    env, api, state, up = early.result("team")
    folder, started, port = early.result("postgres")
    if up.returncode != 0 or started.returncode != 0:
        raise RuntimeError("the team set-up failed; see the team's tests")
    team = Team(env, api, state)
    made = team.run(str(BIN / "python"), "-m", "mathprobe.runs.limits",
                    MATHPROBE_MAX_CONCURRENCY_OPENAI="2")
    assert made.returncode == 0 and "mathprobe-openai: 2" in made.stdout, made.stderr
    data_path = tempfile.mkdtemp(prefix="mathprobe-sweep-parquet-")
    atexit.register(shutil.rmtree, data_path, True)
    team.api.peak_in_flight = 0
    served_before = team.api.served
    lake = Postgres(port).lake("lake_sweep")
    params = {"models": MODELS, "benchmarks": BENCHMARKS, "sweep_id": "grid", "db": lake,
              "data_path": data_path, "limit": LIMIT, "concurrency": 8, "poll_s": 1}
    try:
        done = team.run(str(BIN / "prefect"), "deployment", "run", "eval/sweep",
                        "--params", json.dumps(params), "--watch", "--watch-timeout", "420",
                        timeout=480)   # 240 s was too short: a fresh-clone run at load 4-6
        # answered all 60 requests and finished the sweep 3.7 min after it started running
        return {"done": done, "lake": lake, "served": team.api.served - served_before,
                "peak": team.api.peak_in_flight}
    finally:
        team.run(str(BIN / "python"), "-m", "mathprobe.runs.limits")  # back to the default
