"""Two test processes on two cores (pytest-xdist: `make test` runs `pytest -n 2`), with the
session's slow set-ups still made once.

Run in one process the suite was two phases: the tests that need no server, both cores busy with
them and with the servers starting in the background, then the tests on the servers, which
mostly wait on subprocesses (a core and a half busy at best). xdist's own schedulers would hand
a server's test to any worker, and each worker would start its own Prefect harness,
tritonserver and team (tens of seconds of CPU each, on two cores).

Here each slow set-up (a job of tests/support/early.py) belongs to one worker (`OWNERS`): only
that worker starts it at collection, and every test that needs it is sent there, a module at
a time, in collection order, once the set-up has said it is up (a file in a folder the
controller hands the workers). Until then, and after, the tests that need none are handed out a
module at a time (a module's fixtures made once) to whichever worker asks. Which jobs a test
needs is decided where fixtures are known, in the workers' collection (tests/conftest.py), and
reaches the controller's scheduler through the same folder. Without xdist everything belongs
to the one process, as before."""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

import pytest

# The Prefect harness's tests are the longest chain (~200 s of flows, API faults and CLI
# subprocesses): they and the tritonservers (whose tests also run flows) get the second worker;
# the team, PostgreSQL and `mathprobe server` (and the jobs built on them) the first.
OWNERS = {"harness": 1, "triton": 1, "doomed-triton": 1}
_KEY = "mathprobe_xdist_dir"
_input: Mapping = {}
_folder: Path | None = None          # the controller's


def configure(config: pytest.Config) -> None:
    """Worker side: remember what the controller handed this worker."""
    global _input
    _input = getattr(config, "workerinput", None) or {}


def _worker() -> tuple[int, int]:
    """(this worker's number, how many workers); (0, 1) without xdist."""
    if not _input:
        return 0, 1
    return int(_input["workerid"].removeprefix("gw")), int(_input["workercount"])


def owner(job: str, count: int) -> int:
    return OWNERS.get(job, 0) if count > 1 else 0


def owns(job: str) -> bool:
    """Whether this process starts the job at collection (it runs the tests that need it)."""
    me, count = _worker()
    return owner(job, count) == me


def announce(job: str) -> None:
    """The job has ended (up, or failed: its tests then say why): its tests may be sent."""
    if _input.get(_KEY):
        ready = Path(_input[_KEY]) / "ready"
        try:
            ready.mkdir(exist_ok=True)
            (ready / job).touch()
        except OSError:              # the session is over (the controller removed the folder)
            pass


def publish(needs: Mapping[str, list[str]]) -> None:
    """The jobs each collected test needs (tests needing none left out), for the scheduler."""
    if _input.get(_KEY) and _worker()[0] == 0:
        path = Path(_input[_KEY]) / "needs.json"
        tmp = path.with_suffix(f".{os.getpid()}")
        tmp.write_text(json.dumps(needs))
        tmp.replace(path)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:
    """Controller: the folder where workers say what their tests need and what is up."""
    global _folder
    if _folder is None:
        _folder = Path(tempfile.mkdtemp(prefix="mathprobe-xdist-"))
    node.workerinput[_KEY] = str(_folder)


def clean_up() -> None:
    """Controller: the folder goes at the session's end."""
    if _folder is not None:
        shutil.rmtree(_folder, ignore_errors=True)


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    from tests.support._scheduler import SetUpsOnTheirWorker

    return SetUpsOnTheirWorker(config, log, _folder, owner)
