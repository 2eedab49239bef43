from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from mathprobe.ports import free_port
from tests.support import early, harness, servers

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
# A command that finds no Prefect server starts the local one on PREFECT_SERVER_API_PORT, else
# 4200 (mathprobe/warm/server.py): never the README's port, which a person or another test may
# use; tests that start one take a port (and a state folder) of their own (tests/support/servers.py)
os.environ.setdefault("PREFECT_SERVER_API_PORT", str(free_port()))

REPO = Path(__file__).resolve().parent.parent
# The benchmark data for commands the tests run without --data-dir, as `make test` exports it
# (../shared/data beside the checkout); a run of pytest alone behaves the same.
if (REPO.parent / "shared" / "data").is_dir():
    os.environ.setdefault("MATHPROBE_DATA_DIR", str((REPO.parent / "shared" / "data").resolve()))


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
    """The tiny model, built offline (mathprobe/serving/tiny_model.py), and one real tritonserver
    (CPU) serving it; in a folder of its own under /tmp (the job starts before any fixture)."""
    from mathprobe.serving import tiny_model
    from mathprobe.serving.triton_server import TritonServer

    folder = Path(tempfile.mkdtemp(prefix="mathprobe-triton-"))
    model = tiny_model.build(folder / "vlm", kind="vlm")
    return model, TritonServer(model, log_file=folder / "server.log").start()


def _start_doomed():
    """A second tritonserver on the same model, for the one test that kills a server mid-run
    (~10 s to start: begun in the background once the session's server is up). It loads only
    the model that test asks (each model is a Python stub importing torch: ~5 s of CPU)."""
    from mathprobe.serving.triton_server import TritonServer

    model = early.result("triton")[0]
    return TritonServer(model, models=("lmm_generate",),
                        log_file=model.parent / "doomed.log").start()


def _stop_triton(made) -> None:
    model, srv = made
    srv.kill()          # nothing is in flight at the end: not the 8 s of a graceful stop
    shutil.rmtree(model.parent, ignore_errors=True)


# The tests that share a slow set-up run in one process (`pytest -n 2 --dist loadgroup`, stock
# pytest-xdist): each set-up is made once, by the first of its tests, and its tests run one after
# another (the team's tests share one Prefect server and store; the tritonserver test kills a
# server; the install tests build the wheel in the checkout; the lease tests share a Prefect
# server). The fixture names that put a test in a group, first match wins; the Prefect harness is
# not a group: each process that runs a flow test has one, started at collection in the
# background (10-25 s), so flow tests spread over both processes.
GROUPS = (("team", ("team", "postgres")), ("server", ("started", "no_server")),
          ("triton", ("triton_made", "triton_server", "tiny_vlm", "doomed_triton")),
          ("install", ("installed",)), ("lease", ("real_server",)))
# The first test of these groups also waits for its group's set-up, which is real work: the
# team's is PostgreSQL, a Prefect server and two workers, then a whole sweep and four writers
# into one lake (100-150 s on an idle 2-core machine, 300 s when it is loaded); the install's
# builds the wheel and installs it into a new virtualenv (70 s idle). Their bound (pytest-timeout)
# leaves that room; every other test keeps pyproject.toml's.
GROUP_TIMEOUT_S = {"team": 900, "install": 600}


# The tiers: a test that needs one of these real parts carries its marker, so that
# `make test-fast` (pytest -m "not slow_parts") runs the rest in the inner loop; `make test`, CI
# and the README run everything. Decided by the fixtures a test uses.
TIERS = {"postgres": ("team", "postgres"),                # a PostgreSQL server of its own
         "browser": ("page",),                            # Debian's chromium via playwright
         "triton": ("triton_made", "triton_server", "tiny_vlm", "doomed_triton"),
         "wheel": ("installed", "arith", "site"),         # builds and pip-installs packages
         "server": ("started", "real_server", "no_server")}   # a real `prefect server start`


def group_of(item) -> str | None:
    names = getattr(item, "fixturenames", ())
    return next((g for g, fixtures in GROUPS if any(f in names for f in fixtures)), None)


@pytest.hookimpl(tryfirst=True)          # before xdist reads the marks (it renames the nodeids)
def pytest_collection_modifyitems(session, config, items):
    groups = {}
    for item in items:
        names = getattr(item, "fixturenames", ())
        for tier, fixtures in TIERS.items():
            if any(f in names for f in fixtures):
                item.add_marker(getattr(pytest.mark, tier))
        if (group := group_of(item)) is not None:
            item.add_marker(pytest.mark.xdist_group(group))
            groups[item.nodeid] = group
            if group in GROUP_TIMEOUT_S and item.get_closest_marker("timeout") is None:
                item.add_marker(pytest.mark.timeout(GROUP_TIMEOUT_S[group]))
    # the flow tests after those that need no Prefect (the harness starts meanwhile), the
    # grouped set-ups' tests last and in their modules' order (a module's tests may build on
    # each other: the server's are started, used, then stopped)
    items.sort(key=lambda item: (item.nodeid in groups, item.nodeid not in groups
                                 and "prefect_harness" in getattr(item, "fixturenames", ())))
    if not config.option.collectonly and early.needed(items, "prefect_harness"):
        harness.start()                                           # 10-25 s, in the background


_UNGROUPED: set[str] = set()     # grouped tests whose group pytest-xdist did not take


def pytest_collection_finish(session):
    """A group pytest-xdist did not take splits its set-up over both processes, each making it
    (the team's, 5-6 minutes on 2 loaded cores, twice at once): its tests then fail at once
    saying so, rather than show only in the timings. xdist's loadgroup renames a grouped test's
    node id to `id@group`; pytest 9.2 keeps the id elsewhere, and the renaming is lost
    (pyproject.toml keeps pytest below 9.2)."""
    if os.environ.get("PYTEST_XDIST_WORKER") and session.config.option.loadgroup:
        _UNGROUPED.update(item.nodeid for item in session.items
                          if (group := group_of(item)) is not None
                          and not item.nodeid.endswith("@" + group))


def pytest_runtest_setup(item):
    if item.nodeid in _UNGROUPED:
        pytest.fail(f"pytest-xdist's --dist loadgroup did not put {item.nodeid} in its group "
                    f"({group_of(item)}), so its set-up would be made in each process: install "
                    "the pytest of constraints.txt", pytrace=False)


def pytest_sessionfinish(session, exitstatus):
    early.stop_untaken()
    harness.stop()
    servers.stop_all()              # a local server a test's command started and left


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
    """A tiny random image-text-to-text model, built offline (mathprobe/serving/tiny_model.py)."""
    return triton_made[0]


@pytest.fixture(scope="session")
def triton_server(triton_made):
    """One real tritonserver (CPU) serving the tiny model for the session (~20 s to start,
    begun in the background at collection: tests/support/early.py)."""
    return triton_made[1]


@pytest.fixture
def no_server():
    """An environment with no Prefect server configured, whose commands start the local one
    in a state folder, Prefect home and port of their own (tests/support/servers.py): stopped at
    the end, whatever happens. Its tests carry the `server` marker."""
    env = servers.own_state()
    try:
        yield env
    finally:
        servers.stop(env)
        shutil.rmtree(Path(env["MATHPROBE_STATE_DIR"]).parent, ignore_errors=True)


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
