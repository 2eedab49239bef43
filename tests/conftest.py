from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.support import early, harness, workers
from tests.support.workers import (  # noqa: F401 - xdist's hooks, in the controller
    pytest_configure_node, pytest_xdist_make_scheduler)

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")

REPO = Path(__file__).resolve().parent.parent


def shared_data_dir() -> Path:
    path = Path(os.environ.get("MATHPROBE_DATA_DIR") or REPO.parent / "shared" / "data")
    if not (path / "wemath" / "testmini.json").is_file():
        pytest.fail(f"benchmark data not found in {path}: set MATHPROBE_DATA_DIR")
    return path.resolve()


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return shared_data_dir()


@pytest.fixture(scope="session")
def prefect_harness():
    """One ephemeral Prefect API for the whole session (10-25 s to start on 2 cores: begun in
    the background at collection, tests/support/harness.py); every test that runs a flow, in
    this process or as a `mathprobe` subprocess (tests/support/cli.py passes its
    PREFECT_API_URL), uses it rather than starting one of its own."""
    with harness.held():
        yield


def _start_triton():
    """The tiny model, built offline (tasks/serving/tiny_model.py), and one real tritonserver
    (CPU) serving it; in a folder of its own under /tmp (the job starts before any fixture)."""
    from mathprobe.tasks.serving import tiny_model
    from mathprobe.tasks.serving.triton_server import TritonServer

    folder = Path(tempfile.mkdtemp(prefix="mathprobe-triton-"))
    model = tiny_model.build(folder / "vlm", kind="vlm")
    return model, TritonServer(model, log_file=folder / "server.log").start()


def _start_doomed():
    """A second tritonserver on the same model, for the one test that kills a server mid-run
    (~10 s to start: begun in the background once the session's server is up). It loads only
    the model that test asks (each model is a Python stub importing torch: ~5 s of CPU)."""
    from mathprobe.tasks.serving.triton_server import TritonServer

    model = early.result("triton")[0]
    return TritonServer(model, models=("lmm_generate",),
                        log_file=model.parent / "doomed.log").start()


def _stop_triton(made) -> None:
    model, srv = made
    srv.kill()          # nothing is in flight at the end: not the 8 s of a graceful stop
    shutil.rmtree(model.parent, ignore_errors=True)


# Fixtures made in the background (tests/support/early.py, tests/support/harness.py) and the
# jobs each waits for (the team's tests begin after the sweep and the writers ended:
# tests/team/conftest.py). The tests using them run after those that need none, the team's
# last (LATENESS), so that their servers had the run of the others to come up; with xdist, the
# worker owning a job runs the tests that need it once it is up (tests/support/workers.py).
JOBS = {"prefect_harness": ("harness",), "triton_made": ("triton",),
        "doomed_triton": ("triton", "doomed-triton"), "started": ("mathprobe-server",),
        "postgres": ("postgres",), "team": ("postgres", "team", "sweep", "writers"),
        "real_server": ("lease-server",)}
LATENESS = {"harness": 1, "triton": 2, "doomed-triton": 2, "mathprobe-server": 2,
            "lease-server": 2,
            "postgres": 3, "team": 3, "sweep": 3, "writers": 3}


def _jobs(item) -> list[str]:
    names = getattr(item, "fixturenames", ())
    return list(dict.fromkeys(j for f, jobs in JOBS.items() if f in names for j in jobs))


def _lateness(item) -> int:
    return max((LATENESS[j] for j in _jobs(item)), default=0)


def pytest_configure(config):
    workers.configure(config)


def pytest_collection_modifyitems(session, config, items):
    """Slow servers start in the background as soon as a collected test needs them."""
    items.sort(key=_lateness)                      # stable: otherwise in the usual order
    workers.publish({item.nodeid: jobs for item in items if (jobs := _jobs(item))})
    if config.option.collectonly:
        return
    if early.needed(items, "prefect_harness") and workers.owns("harness"):
        harness.start()                                           # 10-25 s
    if early.needed(items, "triton_server"):
        early.begin("triton", _start_triton, _stop_triton)        # ~20 s
    if early.needed(items, "doomed_triton"):
        early.begin("doomed-triton", _start_doomed, lambda srv: srv.kill())
    if any(getattr(getattr(item, "module", None), "__name__", "") == "tests.flows.test_server"
           and "started" in getattr(item, "fixturenames", ()) for item in items):
        from tests.flows.test_server import start_server, stop_server

        early.begin("mathprobe-server", start_server, stop_server)  # ~10 s
    if any(getattr(getattr(item, "module", None), "__name__", "") == "tests.runs.test_limits"
           and "real_server" in getattr(item, "fixturenames", ()) for item in items):
        from tests.runs.test_limits import start_lease_server, stop_lease_server

        early.begin("lease-server", start_lease_server, stop_lease_server)  # 10-40 s


def pytest_sessionfinish(session, exitstatus):
    early.stop_untaken()
    workers.clean_up()
    harness.stop()


@pytest.fixture(scope="session")
def triton_made():
    with early.held("triton", _start_triton, _stop_triton) as made:
        yield made


@pytest.fixture
def doomed_triton(triton_made):
    """A tritonserver of its own for a test to kill (tests/backends/test_triton.py)."""
    with early.held("doomed-triton", _start_doomed, lambda srv: srv.kill()) as srv:
        yield srv


@pytest.fixture(scope="session")
def tiny_vlm(triton_made) -> Path:
    """A tiny random image-text-to-text model, built offline (tasks/serving/tiny_model.py)."""
    return triton_made[0]


@pytest.fixture(scope="session")
def triton_server(triton_made):
    """One real tritonserver (CPU) serving the tiny model for the session (~20 s to start,
    begun in the background at collection: tests/support/early.py)."""
    return triton_made[1]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "store.duckdb"


@pytest.fixture
def fake_openai(monkeypatch):
    """A loopback OpenAI-compatible server (tests/support/fake_api.py), with the SDK pointed at
    it."""
    from tests.support.fake_api import FakeAPI

    server = FakeAPI().start()
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-local")
    yield server
    server.stop()
