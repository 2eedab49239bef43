"""Two team tests' slow parts, run in the background after the sweep (tests/team/sweep.py) like
it, while the tests before the team's run in the test process: four `mathprobe run` processes
into one lake (test_shared_store: 20-50 s, four processes starting Prefect at once on 2 cores is
the point), then `prefect deploy` and a deployment run through a worker (test_deploy: 10-20 s,
each a process importing Prefect). They run one after another, never beside the team's other
tests (the `team` fixture waits for them); each test then checks what its job left."""
from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

from tests.conftest import REPO, shared_data_dir
from tests.support import early
from tests.team.conftest import BIN, Postgres, Team

WRITER_RUNS = ["first", "second", "shared", "shared"]     # two of them on the same run
WRITER_LIMIT = 60


def _team() -> Team:
    env, api, state, up = early.result("team")
    if up.returncode != 0:
        raise RuntimeError("the team set-up failed; see the team's tests")
    return Team(env, api, state)


def _folder(prefix: str) -> Path:
    folder = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, folder, True)
    return Path(folder)


def run_writers() -> dict:
    """Four `mathprobe run` processes at once into one PostgreSQL-catalogued lake."""
    early.wait("sweep")
    team = _team()
    folder, started, port = early.result("postgres")
    if started.returncode != 0:
        raise RuntimeError("PostgreSQL did not start; see the team's tests")
    lake = Postgres(port).lake("lake_writers")
    work = _folder("mathprobe-writers-")
    procs = [team.popen("run", "--benchmark", "wemath", "--model", "baseline:random",
                        "--run-id", run_id, "--db", lake, "--data-path", str(work / "parquet"),
                        "--limit", str(WRITER_LIMIT), "--json")
             for run_id in WRITER_RUNS]
    ended = []
    for p in procs:
        out, errs = p.communicate(timeout=150)
        ended.append((p.returncode, out, errs))
    return {"lake": lake, "work": work, "ended": ended}


def run_deploy() -> dict:
    """`prefect deploy --all` of deploy/prefect.yaml, then `prefect deployment run eval/full
    --watch` of a 60-item chance-baseline run into a file store."""
    early.wait("writers")
    team = _team()
    work = _folder("mathprobe-deployed-")
    deployed = team.run(str(BIN / "prefect"), "--no-prompt", "deploy", "--prefect-file",
                        "deploy/prefect.yaml", "--all", cwd=REPO)
    if deployed.returncode != 0:
        return {"deployed": deployed, "run": None, "work": work}
    run = team.run(str(BIN / "prefect"), "deployment", "run", "eval/full",
                   "--param", "model=baseline:random", "--param", f"db={work / 'deployed.duckdb'}",
                   "--param", f"data_dir={shared_data_dir()}", "--param", "limit=60",
                   "--param", "run_id=deployed", "--watch", "--watch-timeout", "180",
                   cwd=work, timeout=240)
    return {"deployed": deployed, "run": run, "work": work}
