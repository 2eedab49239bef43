"""Spooled answers survive the recovery being killed: a process killed -9 while it stores a
spool (after taking the file aside, before committing) leaves it for the next open, which
stores every answer; a spool stored again (killed between commit and delete) adds nothing."""
from __future__ import annotations

import shutil
import subprocess
import sys
import time

from mathprobe.items import Completion
from mathprobe.store import close_all, open_store, spool
from tests.conftest import REPO

N = 4000            # answers spooled: about 0.2-0.5 s of storing, the window to kill in


def spool_answers(db, n: int = N) -> list:
    """n answers of run `r` spooled for the store `db` (every tenth a failed call), in batches
    of 64 as the writer spools them."""
    rows = [(f"i{i}", f"h{i}", Completion(text=f"answer {i}") if i % 10 else
             Completion(text="", status="infra_failed", error="HTTP 503", attempts=6))
            for i in range(n)]
    for start in range(0, n, 64):
        spool.write(db, [("r", rows[start:start + 64])])
    return rows


def counts(store) -> tuple:
    return store.query("SELECT count(*), count(DISTINCT item_id), count(*) FILTER "
                       "(status = 'infra_failed') FROM responses")[0]


def test_a_kill_while_a_spool_is_stored_then_a_rerun_stores_every_answer(tmp_path):
    """Killed in the recovery's window (the spool renamed `<spool>.<pid>.storing`, its answers
    not yet committed), the next open finds that file and stores all of it. (Before, nothing
    looked for the renamed file: 0 of 1,740 spooled answers stored, all asked again.)"""
    for attempt in range(6):        # the window is short: tried again if the kill missed it
        db = tmp_path / f"s{attempt}.duckdb"
        open_store(db)
        close_all()
        spool_answers(db)
        opener = subprocess.Popen([sys.executable, "-c", "import sys; from mathprobe."
                                   "store import open_store; open_store(sys.argv[1])", str(db)],
                                  cwd=REPO)
        deadline = time.monotonic() + 60
        while not list(tmp_path.glob(f"{db.name}.spool.jsonl.*.storing")):
            assert opener.poll() is None and time.monotonic() < deadline, "never took it"
            time.sleep(0.0005)
        opener.kill()
        opener.wait(timeout=30)
        left = list(tmp_path.glob(f"{db.name}.spool.jsonl.*"))
        if left:                           # killed before the spool was deleted
            break
    assert left, "the kill never fell inside the recovery"
    store = open_store(db)
    try:
        assert store.recovered[0] in (0, N)          # (0: the killed one had committed)
        assert counts(store) == (N, N, N // 10)                   # every answer, once
        assert spool.pending(db) == [] and not list(tmp_path.glob(f"{db.name}.spool*"))
    finally:
        close_all()


def test_a_spool_stored_again_adds_nothing(tmp_path):
    """A spool file still there after its answers were committed (the process killed between
    the commit and the delete) is stored again at the next open: nothing is added, the failed
    calls included, and the file is deleted then."""
    db = tmp_path / "s.duckdb"
    open_store(db)
    close_all()
    spool_answers(db, 200)
    path = spool.paths(db)[0]
    copy = shutil.copy(path, tmp_path / "copy")
    store = open_store(db)
    assert store.recovered == (200, [path]) and counts(store) == (200, 200, 20)
    close_all()
    shutil.move(copy, path.with_name(path.name + ".999999.storing"))   # a dead process's
    store = open_store(db)
    try:
        assert store.recovered[0] == 0 and counts(store) == (200, 200, 20)
        assert spool.pending(db) == []
    finally:
        close_all()


def test_a_spool_being_stored_by_a_live_process_is_left_to_it(tmp_path):
    db = tmp_path / "s.duckdb"
    open_store(db)
    close_all()
    spool_answers(db, 10)
    path = spool.paths(db)[0]
    sleeper = subprocess.Popen(["sleep", "30"])
    try:
        busy = path.with_name(f"{path.name}.{sleeper.pid}.storing")
        path.rename(busy)
        assert spool.pending(db) == []                 # its own process stores it
        sleeper.kill()
        sleeper.wait()
        assert spool.pending(db) == [busy]             # dead: a leftover to store
    finally:
        sleeper.kill()
