"""A full disk in the middle of a run: no answer the server sent is lost, the user gets one line
saying what happened and how to continue, the resumed run asks only what was never answered,
and `report` works on the full disk and on a read-only mount.

The disk is a real small tmpfs (we are root in CI and here). Where mounting is not allowed the
test falls back to a real write failure of another kind: the command runs under RLIMIT_FSIZE,
so the kernel refuses to let the store's write-ahead log grow (EFBIG instead of ENOSPC).
"""
from __future__ import annotations

import errno
import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from mathprobe.benchmarks import wemath
from mathprobe.items import Request
from mathprobe.runs import prepare
from mathprobe.store import close_all, open_store
from tests.conftest import REPO
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
    """A ballast file taking all but `leave` bytes of the disk. A run writing to the disk
    meanwhile may take some of that room first: the ballast then stops where the disk is full
    (ENOSPC is what was wanted; raised, it had failed the request whose reply filled the disk,
    and the run finished on a disk never full)."""
    st = os.statvfs(disk)
    ballast = disk / "ballast"
    with ballast.open("wb") as out:
        try:
            out.write(b"\0" * max(0, st.f_bavail * st.f_frsize - leave))
            out.flush()
        except OSError as exc:
            if exc.errno != errno.ENOSPC:
                raise
    return ballast


@pytest.fixture
def full_store(small_disk, data_dir) -> tuple[Path, Path]:
    """(disk, store) on a disk that can really be filled (tmpfs; skipped elsewhere): the store
    made, with its items, and closed."""
    disk, kind = small_disk
    if kind != "tmpfs":
        pytest.skip("needs a disk that is really full (tmpfs)")
    db = disk / "runs.duckdb"
    store = open_store(db)
    prepare(store, wemath.benchmark, data_dir)
    close_all()
    return disk, db


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


def test_no_room_anywhere_asks_nothing(full_store, tmp_path, data_dir):
    """The store's disk nearly full and the spool's fallback unwritable: the answers about to
    be paid for could be kept nowhere, so the run asks nothing and says so in one line (exit
    5). (Before, a re-run went on asking and lost 99 more paid answers.)"""
    disk, db = full_store
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


@pytest.fixture
def second_disk(tmp_path):
    """A 4 MB tmpfs of its own, for the spool (skipped where mounting is refused)."""
    disk = tmp_path / "spool-disk"
    disk.mkdir()
    if os.environ.get("MATHPROBE_TEST_NO_MOUNT") or \
            not try_mount(disk, "-t", "tmpfs", "-o", "size=4m", "tmpfs"):
        pytest.skip("needs a second small disk (tmpfs)")
    yield disk
    subprocess.run(["umount", "-l", disk], capture_output=True)


def test_answers_no_disk_takes_are_held_until_room_comes_back(full_store, second_disk,
                                                             tmp_path, data_dir):
    """The store's disk fills mid-run and so does the spool's: the answers on their way are not
    lost (119 had been, 'could not be saved anywhere'): they are held in memory, the command
    says so with the time it waits, and room made meanwhile saves them; the line at the end
    says what was asked and where it is kept, the run is not left `running`, and the same
    command later asks only what was never answered."""
    disk, db = full_store
    ballasts: list[Path] = []

    def reply(payload, prompt):
        if api.served >= 30 and not ballasts:    # both disks fill while the run asks
            spool_full = fill(second_disk, 0)      # (the spool's first: no commit fails before)
            ballasts.extend([fill(disk, 0), spool_full])
        return ANSWER
    api = FakeAPI(latency=0.05, reply=reply).start()
    env = cli_env(api, MATHPROBE_SPOOL_DIR=str(second_disk / "spool"),
                  MATHPROBE_FULL_DISK_WAIT_S="120")
    args = ["run", "--benchmark", "wemath", "--model", "openai:m", "--run-id", "held",
            "--db", str(db), "--data-dir", str(data_dir), "--limit", str(LIMIT),
            "--concurrency", "4"]
    n = len(wemath.select(wemath.load(data_dir).items, LIMIT))
    log = tmp_path / "stderr.txt"
    try:
        with log.open("w") as out:
            proc = subprocess.Popen([sys.executable, "-m", "mathprobe", *args], cwd=REPO,
                                    env=env, stdout=subprocess.DEVNULL, stderr=out, text=True)
            try:
                deadline = time.monotonic() + 120
                while "held in memory" not in log.read_text():
                    assert proc.poll() is None, log.read_text()[-3000:]
                    assert time.monotonic() < deadline, log.read_text()[-3000:]
                    time.sleep(0.2)
                held = " ".join(log.read_text().split())
                assert "within 120 s and they are saved" in held, held[-2000:]
                ballasts[1].unlink()             # room on the spool's disk again
                proc.wait(timeout=120)
            finally:
                proc.kill()
        text = log.read_text()
        assert proc.returncode == 5, text[-3000:]
        lines = error_lines(text)
        assert len(lines) == 1 and "Traceback" not in text, text[-3000:]
        served = api.served
        in_spool = spooled(second_disk / "spool")
        assert served < n
        assert "could not be saved anywhere" not in lines[0] and "lost" not in lines[0]
        assert f"of the {served} answer(s) this command received," in lines[0], lines[0]
        # what was held goes to the first place that takes it, tried in turn: the store (its
        # file may find room again, e.g. once a failed commit's blocks are freed: on a loaded
        # machine the retry can come then) or the spool, whose room the test made
        if in_spool:
            assert f"{len(in_spool)} saved to {second_disk / 'spool'}" in lines[0], lines[0]
        else:
            assert "once room came back" in lines[0], lines[0]
        assert f"({n - served} of the {n} item(s) to ask were not asked)" in lines[0], lines[0]
        in_store = stored(db)
        assert len(in_store) + len(in_spool) == served              # nothing lost
        con = duckdb.connect(str(db), read_only=True)
        try:
            assert con.execute("SELECT status FROM runs WHERE run_id = 'held'").fetchall() \
                == [("interrupted",)]
        finally:
            con.close()

        ballasts[0].unlink()                      # room again: asked once in all
        done = mathprobe(*args, "--json", env=env)
        assert done.returncode == 0, done.stderr[-3000:]
        assert api.served == n and len({r[0] for r in stored(db)}) == n
    finally:
        api.stop()


def test_no_room_for_a_later_shard_says_what_was_asked(small_disk, tmp_path, data_dir,
                                                       fake_openai, monkeypatch):
    """A shard that starts when the disk has no room left (the run's first shards filled it):
    it asks nothing, the other shards stop, and the line says how many answers this command
    got and stored and how many items were not asked, not 'nothing was asked' (1,305 had
    been); the run is marked `interrupted`, not left `running`."""
    from mathprobe.backends import get_backend
    from mathprobe.errors import StoreWriteError
    from mathprobe.runs.asking import check_writes, send
    from mathprobe.store import RunSpec

    disk, kind = small_disk
    if kind != "tmpfs":
        pytest.skip("needs a disk that is really full (tmpfs)")
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the spool folder would be")
    monkeypatch.setenv("MATHPROBE_SPOOL_DIR", str(blocked / "spool"))
    try:
        db = disk / "runs.duckdb"
        store = open_store(db)
        items = wemath.select(prepare(store, wemath.benchmark, data_dir).items, 40)
        store.start_run(RunSpec("r", "wemath", "openai:m", "openai", "plain",
                                dict(wemath.DEFAULT_PARAMS)), n_items=len(items))
        requests = [Request(item_id=i.item_id, model="m", prompt=i.question) for i in items]
        half = len(requests) // 2
        first = send(store, "r", "openai:m", lambda: get_backend("openai:m"), requests[:half])
        assert first == {"ok": half}
        fill(disk, 300 * 1024)               # no room for the next shard's answers
        later = send(store, "r", "openai:m", lambda: get_backend("openai:m"), requests[half:])
        assert later == {"not_asked": len(requests) - half}
        assert fake_openai.served == half
        with pytest.raises(StoreWriteError) as raised:
            check_writes(store, "r", len(requests))
        said = str(raised.value)
        assert "no room to keep answers" in said and "nothing was asked" not in said, said
        assert f"of the {half} answer(s) this command received, {half} stored" in said, said
        assert f"({len(requests) - half} of the {len(requests)} item(s) to ask were not " \
               "asked)" in said, said
        assert len(stored(db)) == half
        con = duckdb.connect(str(db), read_only=True)
        try:
            assert con.execute("SELECT status FROM runs WHERE run_id = 'r'").fetchall() == \
                [("interrupted",)]
        finally:
            con.close()
    finally:
        close_all()
