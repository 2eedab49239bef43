"""A full disk in the middle of a run: no answer the server sent is lost, the user gets one line
saying what happened and how to continue, the resumed run asks only what was never answered,
and `report` works on the full disk and on a read-only mount.

The disk is a real small tmpfs (we are root in CI and here). Where mounting is not allowed the
test falls back to a real write failure of another kind: the command runs under RLIMIT_FSIZE,
so the kernel refuses to let the store's write-ahead log grow (EFBIG instead of ENOSPC).
"""
from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
from pathlib import Path

import duckdb
import pytest

from mathprobe.benchmarks import wemath
from mathprobe.runs import prepare
from mathprobe.store import close_all, open_store
from tests.support.cli import cli_env, error_lines, mathprobe
from tests.support.fake_api import FakeAPI

pytestmark = pytest.mark.usefixtures("prefect_harness")
LIMIT = 120
ANSWER = "x" * 3000 + " <Answer>: <<A>>"          # 3 KB answers fill the disk fast
FREE = 160 * 1024                                  # what the run finds free on the disk


def try_mount(path: Path, *options: str) -> bool:
    return subprocess.run(["mount", *options, path], capture_output=True).returncode == 0


@pytest.fixture
def small_disk(tmp_path):
    """(folder, kind): a 16 MB tmpfs ('tmpfs') or, where mounting is refused, a plain folder
    whose writers are limited by RLIMIT_FSIZE ('rlimit')."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if not os.environ.get("MATHPROBE_TEST_NO_MOUNT") and \
            try_mount(disk, "-t", "tmpfs", "-o", "size=16m", "tmpfs"):
        yield disk, "tmpfs"
        close_all()
        subprocess.run(["umount", "-l", disk], capture_output=True)
    else:
        yield disk, "rlimit"


def fill(disk: Path, leave: int) -> Path:
    """A ballast file taking all but `leave` bytes of the disk."""
    st = os.statvfs(disk)
    ballast = disk / "ballast"
    ballast.write_bytes(b"\0" * max(0, st.f_bavail * st.f_frsize - leave))
    return ballast


def limit_file_size(max_bytes: int):
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)      # a failed write, not a killed process
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_bytes, max_bytes))
    return apply


def stored(db: Path) -> list[tuple]:
    close_all()
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute("SELECT item_id, status FROM responses ORDER BY item_id").fetchall()
    finally:
        con.close()


def spooled(*folders: Path) -> list[dict]:
    return [json.loads(line) for folder in folders for f in sorted(folder.glob("*.spool.jsonl"))
            for line in f.read_text().splitlines()]


# ~20 s: three or four `mathprobe` processes (each imports Prefect, 3-4 s), as a user meets it.
def test_full_disk_keeps_every_answer_and_resumes(small_disk, tmp_path, data_dir):
    disk, kind = small_disk
    db = disk / "runs.duckdb"
    spool_dir = tmp_path / "spool-fallback"             # on the real disk
    store = open_store(db)                               # the store with its items, then close
    prepare(store, wemath.benchmark, data_dir)
    close_all()
    api = FakeAPI(latency=0.02, reply=lambda payload, prompt: ANSWER).start()
    env = cli_env(api, MATHPROBE_SPOOL_DIR=str(spool_dir))
    args = ["run", "--benchmark", "wemath", "--model", "openai:m", "--run-id", "full",
            "--db", str(db), "--data-dir", str(data_dir), "--limit", str(LIMIT),
            "--concurrency", "4"]
    n = len(wemath.select(wemath.load(data_dir).items, LIMIT))
    try:
        if kind == "tmpfs":
            ballast = fill(disk, FREE)
            first = mathprobe(*args, env=env)
        else:
            ballast = None
            first = mathprobe(*args, env=env, preexec_fn=limit_file_size(FREE))  # the WAL

        # one line, what happened and how to continue; no traceback; its own exit status
        assert first.returncode == 5, first.stderr[-3000:]
        lines = error_lines(first.stderr)
        assert len(lines) == 1, first.stderr[-3000:]
        assert "Traceback" not in first.stderr
        assert f"writing to {db} failed" in lines[0] and "stopped asking at once" in lines[0]
        assert "run the same command again" in lines[0]

        # every answer the server sent is in the store or in the spool, none twice
        served = api.served
        in_store = stored(db)
        in_spool = spooled(disk, spool_dir)
        assert 0 < len(in_spool) and served < n            # it stopped asking
        assert len(in_store) + len(in_spool) == served
        ids = [r[0] for r in in_store] + [r["item_id"] for r in in_spool]
        assert len(set(ids)) == len(ids)
        for spool in [*disk.glob("*.spool.jsonl"), *spool_dir.glob("*.spool.jsonl")]:
            assert str(spool) in lines[0]                  # says where the answers went

        # the report works on the full disk (it opens the store read-only)
        report = mathprobe("report", "--run-id", "full", "--db", str(db), "--json", env=env)
        assert report.returncode == 0, report.stderr[-2000:]
        assert json.loads(report.stdout)["run"]["n_ok"] == len(in_store)

        # still full: the next run says so at once, keeping the spool
        if kind == "tmpfs":
            again = mathprobe(*args, env=env)
            assert again.returncode == 5 and len(error_lines(again.stderr)) == 1
            assert "answers saved by an earlier run wait in" in error_lines(again.stderr)[0]
            assert api.served == served and spooled(disk, spool_dir) == in_spool

        # space again: the same command stores the spool first and asks only the rest
        if ballast is not None:
            ballast.unlink()
        done = mathprobe(*args, "--json", env=env)
        assert done.returncode == 0, done.stderr[-3000:]
        assert api.served == n                              # every item asked exactly once
        final = stored(db)
        assert len(final) == len({r[0] for r in final}) == n
        assert {r[1] for r in final} == {"ok"}
        assert spooled(disk, spool_dir) == []
        assert json.loads(done.stdout)["run"]["status"] == "completed"
    finally:
        api.stop()


def test_report_on_a_read_only_mount(small_disk, data_dir):
    """`report` and `sql` write nothing. The disk is remounted read-only; without mount, the
    commands run where no file may grow (RLIMIT_FSIZE 0)."""
    disk, kind = small_disk
    db = disk / "ro.duckdb"
    env = cli_env()
    made = mathprobe("run", "--benchmark", "wemath", "--model", "baseline:random", "--run-id",
                     "ro", "--db", str(db), "--data-dir", str(data_dir), "--limit", "30",
                     env=env)
    assert made.returncode == 0, made.stderr[-2000:]
    close_all()
    read_only = None
    if kind == "tmpfs":
        assert try_mount(disk, "-o", "remount,ro")
        with pytest.raises(OSError):
            (disk / "probe").write_text("x")
    else:
        read_only = limit_file_size(0)
    try:
        report = mathprobe("report", "--run-id", "ro", "--db", str(db), "--json", env=env,
                           preexec_fn=read_only)
        assert report.returncode == 0, report.stderr[-2000:]
        assert json.loads(report.stdout)["run"]["n_ok"] == 30
        query = mathprobe("sql", "--db", str(db), "SELECT count(*) AS n FROM responses",
                          env=env, preexec_fn=read_only)
        assert query.returncode == 0 and "30" in query.stdout, query.stderr[-2000:]
    finally:
        if kind == "tmpfs":
            try_mount(disk, "-o", "remount,rw")


def test_no_room_anywhere_asks_nothing(small_disk, tmp_path, data_dir):
    """The store's disk nearly full and the spool's fallback unwritable: the answers about to
    be paid for could be kept nowhere, so the run asks nothing and says so in one line (exit
    5). (Before, a re-run went on asking and lost 99 more paid answers.)"""
    disk, kind = small_disk
    if kind != "tmpfs":
        pytest.skip("needs a disk that is really full (tmpfs)")
    db = disk / "runs.duckdb"
    store = open_store(db)
    prepare(store, wemath.benchmark, data_dir)
    close_all()
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the spool folder would be")
    api = FakeAPI(latency=0.02, reply=lambda payload, prompt: ANSWER).start()
    try:
        fill(disk, 300 * 1024)          # room to open the store, none for a second of answers
        run = mathprobe("run", "--benchmark", "wemath", "--model", "openai:m", "--run-id",
                        "nowhere", "--db", str(db), "--data-dir", str(data_dir), "--limit", "30",
                        env=cli_env(api, MATHPROBE_SPOOL_DIR=str(blocked / "spool")))
        assert run.returncode == 5, run.stderr[-3000:]
        lines = error_lines(run.stderr)
        assert len(lines) == 1 and "Traceback" not in run.stderr, run.stderr[-3000:]
        assert "no room to keep answers" in lines[0] and "nothing was asked" in lines[0]
        assert api.served == 0
    finally:
        api.stop()
