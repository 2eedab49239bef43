"""The suite's two processes (tests/support/workers.py): a slow set-up is started once, by the
worker that owns it, and its tests all run there; the other tests go a module at a time. Checked
on a small suite of its own run by `pytest -n 2` in a subprocess, with a set-up that takes a
second and says which process started it."""
from __future__ import annotations

import os
import re
import subprocess
import sys

from tests.conftest import REPO

CONFTEST = '''
import os, time
from pathlib import Path
import pytest
from tests.support import early, workers
from tests.support.workers import pytest_configure_node, pytest_xdist_make_scheduler

STARTS = Path(os.environ["STARTS"])

def _slow():
    time.sleep(1)
    with STARTS.open("a") as f:
        f.write(os.environ.get("PYTEST_XDIST_WORKER", "-") + "\\n")
    return "up"

def pytest_configure(config):
    workers.configure(config)

def pytest_collection_modifyitems(session, config, items):
    workers.publish({i.nodeid: ["harness"] for i in items if "slow" in i.fixturenames})
    if any("slow" in i.fixturenames for i in items):
        early.begin("harness", _slow)

@pytest.fixture(scope="session")
def slow():
    return early.take("harness", _slow)
'''


def test_a_set_up_starts_once_on_its_worker_and_modules_stay_whole(tmp_path):
    (tmp_path / "conftest.py").write_text(CONFTEST)
    for m in range(4):
        (tmp_path / f"test_plain{m}.py").write_text("".join(
            f"def test_{t}():\n    pass\n" for t in range(3)))
    (tmp_path / "test_needs_it.py").write_text("".join(
        f"def test_{t}(slow):\n    assert slow == 'up'\n" for t in range(3)))
    starts = tmp_path / "starts"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "-v", "-p", "no:cacheprovider",
         "--rootdir", str(tmp_path), str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO), "STARTS": str(starts)})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    ran = re.findall(r"\[(gw\d)\] .*?PASSED (\S+?)::", done.stdout)
    assert len(ran) == 15
    by_module: dict[str, set[str]] = {}
    for worker, module in ran:
        by_module.setdefault(module, set()).add(worker)
    assert by_module.pop("test_needs_it.py") == {"gw1"}        # where the set-up is
    assert all(len(w) == 1 for w in by_module.values()), by_module
    assert starts.read_text().split() == ["gw1"]               # once, by its owner

