"""The team set-up, shared by the tests of this folder: a PostgreSQL server of their own
(deploy/postgres.sh), a loopback OpenAI-compatible server, and ONE Prefect server with the
process work pool, the provider limits, the deployments and two workers
(`deploy/local.sh up --workers 2`), started once and shut down at the end."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from mathprobe.ports import free_port
from tests.conftest import REPO, shared_data_dir
from tests.support import early
from tests.support.fake_api import FakeAPI

BIN = Path(sys.executable).parent
LOCAL = str(REPO / "deploy" / "local.sh")
POSTGRES = str(REPO / "deploy" / "postgres.sh")
LAKE_DATABASES = ("lake_writers", "lake_sweep")


@dataclass
class Postgres:
    port: int

    def lake(self, database: str) -> str:
        return f"ducklake:postgres:dbname={database} host=127.0.0.1 port={self.port} user=postgres"


@dataclass
class Team:
    env: dict[str, str]
    api: FakeAPI
    state: Path

    @property
    def api_url(self) -> str:
        return self.env["PREFECT_API_URL"]

    def run(self, *args: str, cwd: Path | str = REPO, timeout: float = 240,
            **env: str) -> subprocess.CompletedProcess:
        return subprocess.run(list(args), env={**self.env, **env}, cwd=cwd, capture_output=True,
                              text=True, timeout=timeout)

    def mathprobe(self, *args: str, **kw) -> subprocess.CompletedProcess:
        return self.run(str(BIN / "mathprobe"), *args, **kw)

    def popen(self, *args: str) -> subprocess.Popen:
        return subprocess.Popen([str(BIN / "mathprobe"), *args], env=self.env, cwd=REPO,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def worker_logs(self) -> dict[str, str]:
        return {p.stem: p.read_text() for p in sorted(self.state.glob("worker-*.log"))}


def _start_postgres() -> tuple[str, subprocess.CompletedProcess, int]:
    """A real PostgreSQL server (Debian's package, `make postgres`) in a temporary folder under
    /tmp (as root it runs as the `postgres` user, who must reach the folder)."""
    folder = tempfile.mkdtemp(prefix="mathprobe-pg-")
    port = free_port()
    started = subprocess.run([POSTGRES, "start", folder, str(port), *LAKE_DATABASES],
                             capture_output=True, text=True, timeout=120)
    return folder, started, port


def _team_env(state: Path, port: int, api: FakeAPI) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PREFECT_", "MATHPROBE_MAX_CONCURRENCY_", "OPENAI_"))
           and k not in ("MATHPROBE_REPO", "MATHPROBE_DB")}
    env.update(STATE_DIR=str(state), PREFECT_HOME=str(state / "home"),
               PREFECT_API_URL=f"http://127.0.0.1:{port}/api",
               PREFECT_SERVER_ANALYTICS_ENABLED="false",
               PREFECT_WORKER_QUERY_SECONDS="1", WORKER_LIMIT="2",
               OPENAI_BASE_URL=api.openai_url, OPENAI_API_KEY="sk-test-local",
               MATHPROBE_DATA_DIR=str(shared_data_dir()), PYTHONUNBUFFERED="1",
               MATHPROBE_DB=str(state / "team.duckdb"))      # the deployments' default store
    return env


def _start_team() -> tuple[dict[str, str], FakeAPI, Path, subprocess.CompletedProcess]:
    api = FakeAPI(latency=0.05).start()
    state = Path(tempfile.mkdtemp(prefix="mathprobe-team-"))
    port = free_port()
    env = _team_env(state, port, api)
    up = subprocess.run([LOCAL, "up", "--port", str(port), "--workers", "2"], env=env,
                        capture_output=True, text=True, timeout=240)
    return env, api, state, up


def _begin() -> None:
    """The team's set-ups side by side, once, when its first test needs them: PostgreSQL and the
    team's server at once; the sweep once both are up, the four writers (tests/team/writers.py)
    once the sweep ended (tests/team/sweep.py)."""
    from tests.team.sweep import run_sweep
    from tests.team.writers import run_writers

    early.start("postgres", _start_postgres, lambda made: _stop_postgres(made[0]))
    early.start("team", _start_team, lambda made: _stop_team(*made[:3]))
    early.start("sweep", run_sweep)
    early.start("writers", run_writers)


def _stop_postgres(folder: str) -> None:
    subprocess.run([POSTGRES, "stop", folder], capture_output=True, timeout=60)
    shutil.rmtree(folder, ignore_errors=True)


def _stop_team(env: dict[str, str], api: FakeAPI, state: Path) -> None:
    subprocess.run([LOCAL, "down"], env=env, capture_output=True, timeout=60)
    api.stop()
    shutil.rmtree(state, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres():
    _begin()
    folder, started, port = early.take("postgres", _start_postgres)
    try:
        assert started.returncode == 0, started.stderr
        yield Postgres(port)
    finally:
        _stop_postgres(folder)


@pytest.fixture(scope="session")
def team():
    """~30 s once (beside PostgreSQL, see tests/support/early.py): `deploy/local.sh up` as a
    user runs it (a Prefect server of its own, with the work pool, limits and deployments it
    creates: the session's server stays free of them). The team's tests run one at a time: the
    sweep and the four writers started in the background (tests/team/sweep.py, writers.py) end
    before any of them begins."""
    _begin()
    env, api, state, up = early.take("team", _start_team)
    early.wait("sweep")
    early.wait("writers")
    try:
        assert up.returncode == 0, up.stdout[-2000:] + up.stderr[-3000:]
        yield Team(env, api, state)
    finally:
        _stop_team(env, api, state)
