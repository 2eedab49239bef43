from __future__ import annotations

import os
from pathlib import Path

import pytest

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
    """One ephemeral Prefect API for the whole session (10-20 s to start on 2 cores); every
    test that runs a flow, in this process or as a `mathprobe` subprocess (tests/support/cli.py
    passes its PREFECT_API_URL), uses it rather than starting one of its own."""
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=120):
        yield


@pytest.fixture(scope="session")
def tiny_vlm(tmp_path_factory) -> Path:
    """A tiny random image-text-to-text model, built offline (tasks/serving/tiny_model.py)."""
    from tasks.serving import tiny_model

    return tiny_model.build(tmp_path_factory.mktemp("tiny") / "vlm", kind="vlm")


@pytest.fixture(scope="session")
def triton_server(tiny_vlm, tmp_path_factory):
    """One real tritonserver (CPU) serving the tiny model for the session (~25 s to start)."""
    from tasks.serving.triton_server import TritonServer

    srv = TritonServer(tiny_vlm, log_file=tmp_path_factory.mktemp("triton") / "server.log")
    try:
        yield srv.start()
    finally:
        srv.kill()          # nothing is in flight at the end: not the 8 s of a graceful stop


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
