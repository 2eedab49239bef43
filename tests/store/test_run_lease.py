"""One live writer per run id on a DuckLake store (mathprobe/store/run_lease.py): two processes on
one run ask each item once in total; a killed holder's claim expires so the run can be resumed;
a holder stopped past its claim's life finds it taken over and stops asking."""
from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import json
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from mathprobe.store import close_all, open_store, run_lease
from mathprobe.store.lake import connect as connect_lake
from mathprobe.store.location import parse
from mathprobe.store.one_row import one_row
from tests.conftest import REPO
from tests.support.cli import cli_env
from tests.support.fake_api import FakeAPI

LIMIT = 60

# A process holding a claim on run `r` of the lake argv[1], with a claim life of 2 s renewed
# every 0.3 s; it says `holding`, then `lost` if its claim was taken over. argv[2]: the machine
# it says it runs on ('-': this one's name).
HOLDER = textwrap.dedent("""
    import socket, sys, time
    if sys.argv[2] != "-":
        socket.gethostname = lambda: sys.argv[2]
    from mathprobe.store import open_store, run_lease
    run_lease.TTL_S, run_lease.BEAT_S = 2.0, 0.3
    store = open_store(sys.argv[1])
    with run_lease.holding(store, "r") as lease:
        print("holding", flush=True)
        while not lease.lost.wait(0.1):
            pass
        print("lost", store.writer().halt.is_set(), flush=True)
""")

# `mathprobe run ARGS...` (argv[2:]) with a claim life of 3 s renewed every 0.5 s, a waiting
# process looking every 0.2 s; argv[1]: the machine it says it runs on ('-': this one's name).
RUNNER = textwrap.dedent("""
    import socket, sys
    if sys.argv[1] != "-":
        socket.gethostname = lambda: sys.argv[1]
    from mathprobe.store import run_lease
    run_lease.TTL_S, run_lease.BEAT_S, run_lease.FRESH_S, run_lease.POLL_S = 3.0, 0.5, 1.0, 0.2
    from mathprobe.cli.main import main
    main(sys.argv[2:])
""")
TTL = 3.0


def holder(lake: str, host: str = "-") -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, lake, host], cwd=REPO, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline().strip() == "holding", proc.stderr.read()
    return proc


@pytest.mark.usefixtures("prefect_harness")
def test_two_processes_on_one_run_of_a_lake_ask_each_item_once(tmp_path, data_dir):
    """Two `mathprobe run` processes started together on one run id of a lake (a re-run while
    the first still runs, a sweep started twice): one asks, the other waits for it, saying
    so, then resumes the run and asks nothing; each item is asked once in total (both used to
    ask every question: 5,025 requests for 1,740 items), both end with the whole report."""
    lake = f"ducklake:sqlite:{tmp_path / 'lake.sqlite'}"
    api = FakeAPI(latency=0.3).start()          # 60 answers, 2 at a time: 9 s of asking
    try:
        cmd = [sys.executable, "-m", "mathprobe", "run", "--benchmark", "wemath", "--model",
               "openai:m", "--run-id", "shared", "--db", lake, "--data-dir", str(data_dir),
               "--limit", str(LIMIT), "--concurrency", "2", "--json"]
        procs = [subprocess.Popen(cmd, cwd=REPO, env=cli_env(api), stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for _ in range(2)]
        done = [p.communicate(timeout=240) for p in procs]
    finally:
        api.stop()
    for proc, (out, err) in zip(procs, done):
        assert proc.returncode == 0, err[-3000:]
        assert json.loads(out)["run"]["n_ok"] == LIMIT
    waited = [err for _, err in done if "is being asked by another process" in err]
    assert len(waited) == 1, [err[-1500:] for _, err in done]
    assert api.served == LIMIT                    # each item asked once, by one of them
    store = open_store(lake)
    try:
        assert store.query("SELECT count(*), count(DISTINCT item_id) FROM responses") == \
            [(LIMIT, LIMIT)]
        assert store.query("SELECT count(*) FROM run_leases") == [(0,)]   # both given up
    finally:
        close_all()


def test_a_killed_holders_claim_expires_and_the_run_can_be_taken(tmp_path):
    lake = f"ducklake:sqlite:{tmp_path / 'lake.sqlite'}"
    proc = holder(lake)
    try:
        store = open_store(lake)
        mine = run_lease.RunLease(store, "r")
        other = mine.try_take()
        assert other is not None and other.pid == proc.pid     # refused while it lives
        proc.kill()
        proc.wait(timeout=30)
        deadline = time.monotonic() + 20
        while (other := mine.try_take()) is not None:          # its claim lives 2 s more
            assert time.monotonic() < deadline, other
            time.sleep(0.2)
        assert store.query("SELECT holder FROM run_leases WHERE run_id = 'r'") == \
            [(mine.holder,)]
        mine.release()
        assert store.query("SELECT count(*) FROM run_leases") == [(0,)]
    finally:
        proc.kill()
        close_all()


def test_a_stopped_holder_finds_its_claim_taken_and_stops_asking(tmp_path):
    """Stopped past its claim's life (a laptop lid, SIGSTOP) on another machine, the holder's
    run was taken over by another process; continued, it must not go on asking beside that
    one. (On this machine its claim is not taken: the next test.)"""
    lake = f"ducklake:sqlite:{tmp_path / 'lake.sqlite'}"
    proc = holder(lake, host="laptop")
    try:
        stop_between_writes(proc, tmp_path / "lake.sqlite")
        stopped = time.monotonic()
        store = open_store(lake)
        opened = time.monotonic() - stopped      # 0.3-2 s: its views made, on a loaded machine
        taker = run_lease.RunLease(store, "r")
        deadline = time.monotonic() + 20
        while taker.try_take() is not None:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        took = time.monotonic() - stopped        # the claim's life, as documented: 2 s here
        assert 2.0 - 0.3 - 0.1 <= took <= max(2.0, opened) + 2.0, (took, opened)
        close_all()                              # the holder's renewal needs the catalog
        proc.send_signal(signal.SIGCONT)
        out, err = proc.communicate(timeout=60)
        assert out.split() == ["lost", "True"], err   # its writer halted: nothing more asked
    finally:
        proc.send_signal(signal.SIGCONT)
        proc.kill()
        close_all()


def test_a_stopped_holder_on_this_machine_keeps_its_claim_until_it_ends(tmp_path):
    """A stopped process of this machine is not a dead one: its claim outlives its life (the
    taker is told the holder is stopped, and how to resume or end it); once the process is
    gone, the claim is taken at once."""
    lake = f"ducklake:sqlite:{tmp_path / 'lake.sqlite'}"
    proc = holder(lake)
    try:
        proc.send_signal(signal.SIGSTOP)
        store = open_store(lake)
        taker = run_lease.RunLease(store, "r")
        time.sleep(3)                            # past its claim's life of 2 s
        other = taker.try_take()
        assert other is not None and other.stopped and other.pid == proc.pid
        assert f"kill -CONT {proc.pid}" in other.describe()
        proc.kill()
        proc.wait(timeout=30)
        assert taker.try_take() is None          # gone: taken at once
        taker.release()
    finally:
        proc.kill()
        close_all()


def asked_once(api) -> list[str]:
    """The prompts the server answered more than once."""
    seen: dict[str, int] = {}
    for r in api.requests:
        seen[r["prompt"]] = seen.get(r["prompt"], 0) + 1
    return [p[:60] for p, n in seen.items() if n > 1]


def run_command(lake: str, data_dir, api, host: str, log) -> subprocess.Popen:
    args = ["run", "--benchmark", "wemath", "--model", "openai:m", "--run-id", "paused",
            "--db", lake, "--data-dir", str(data_dir), "--limit", str(LIMIT),
            "--concurrency", "2", "--json"]
    return subprocess.Popen([sys.executable, "-c", RUNNER, host, *args], cwd=REPO,
                            env=cli_env(api), stdout=subprocess.PIPE, stderr=log, text=True)


def stop_between_writes(proc: subprocess.Popen, catalog: Path) -> None:
    """SIGSTOP `proc` at a moment it holds neither the SQLite catalog's write lock nor the
    lake's writers' queue: stopped in the middle of a catalog write, a process holds the lock
    every other writer of the lake then waits for (a limit of SQLite catalogs, one machine's,
    not of claims)."""
    for _ in range(200):
        proc.send_signal(signal.SIGSTOP)
        time.sleep(0.05)
        free = True
        with open(f"{catalog}.lock", "a") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.flock(f, fcntl.LOCK_UN)
            except BlockingIOError:
                free = False
        if free:
            try:
                with sqlite3.connect(catalog, timeout=0.2) as db:
                    db.execute("BEGIN IMMEDIATE")
                    db.rollback()
                return
            except sqlite3.OperationalError:
                pass
        proc.send_signal(signal.SIGCONT)
        time.sleep(0.03)
    raise AssertionError("could not stop the command between two writes")


@dataclasses.dataclass(frozen=True)
class Stop:
    at: float                   # time.monotonic() when the command was stopped
    unstored: int               # the answers the server gave it that were not in the store


def stored_answers(catalog: Path) -> int:
    """The answers of run `paused` in the lake, read while its writer is stopped."""
    con = connect_lake(parse(f"ducklake:sqlite:{catalog}"), read_only=True)
    try:
        return one_row(con, "SELECT count(*) FROM responses "
                            "WHERE run_id = 'paused' AND status = 'ok'")[0]
    finally:
        con.close()


def wait_for(check, what: str, limit: float = 120) -> None:
    deadline = time.monotonic() + limit
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


@contextlib.contextmanager
def a_stopped_command(tmp_path: Path, data_dir, host: str):
    """A `mathprobe run` on a lake, claiming it as a process of `host` ('-': this machine),
    stopped between two writes once it has asked 10 items; yields (api, procs, second, stop),
    where `second()` starts the same command as this machine's and `stop` says when it was
    stopped and how many answers it had back (or in flight) but not in the store then. Their
    stderr goes to first.txt and second.txt; both are ended, and the server stopped,
    afterwards."""
    lake = f"ducklake:sqlite:{tmp_path / 'lake.sqlite'}"
    api = FakeAPI(latency=0.3).start()
    logs = [(tmp_path / f"{name}.txt").open("w+") for name in ("first", "second")]
    procs: list[subprocess.Popen] = []

    def second() -> subprocess.Popen:
        procs.append(run_command(lake, data_dir, api, "-", logs[1]))
        return procs[1]
    try:
        procs.append(run_command(lake, data_dir, api, host, logs[0]))
        wait_for(lambda: api.served >= 10, "the first command asks")
        stop_between_writes(procs[0], tmp_path / "lake.sqlite")
        stopped = time.monotonic()
        time.sleep(1.0)                              # what it had in flight is answered
        unstored = api.served - stored_answers(tmp_path / "lake.sqlite")
        yield api, procs, second, Stop(stopped, unstored)
    finally:
        for p in procs:
            p.send_signal(signal.SIGCONT)
            p.kill()
        for log in logs:
            log.close()
        api.stop()


@pytest.mark.usefixtures("prefect_harness")
def test_a_paused_then_resumed_holder_pays_nothing_twice(tmp_path, data_dir):
    """`mathprobe run` on a lake, stopped (SIGSTOP) with requests in flight; a second command
    on the same run waits for it past its claim's life, asking nothing (it had taken the run
    over while the first slept, and the first, resumed, went on asking: 52 items paid twice);
    resumed (SIGCONT), the first renews its claim before it sends anything more and finishes
    the run, the second then finds nothing left: every item was paid for once."""
    with a_stopped_command(tmp_path, data_dir, "-") as (api, procs, second, _):
        stopped_at = api.served
        second()
        wait_for(lambda: "but is still running" in (tmp_path / "second.txt").read_text(),
                 "the second command says it waits for the stopped one")
        time.sleep(2 * TTL)
        assert api.served == stopped_at and procs[1].poll() is None   # it asked nothing
        procs[0].send_signal(signal.SIGCONT)
        outs = [p.communicate(timeout=240)[0] for p in procs]
    texts = [(tmp_path / f"{name}.txt").read_text() for name in ("first", "second")]
    for proc, out, text in zip(procs, outs, texts):
        assert proc.returncode == 0, text[-3000:]
        assert json.loads(out)["run"]["n_ok"] == len(set(r["prompt"] for r in api.requests))
    assert asked_once(api) == [] and api.served == json.loads(outs[0])["run"]["n_items"]


@pytest.mark.usefixtures("prefect_harness")
def test_a_holder_of_another_machine_resumed_after_a_takeover_sends_nothing(tmp_path, data_dir):
    """The holder says it runs on another machine, so its claim dies after its life (3 s here,
    60 s by default): the second command takes the run over and finishes it, asking again only
    what the first had in flight, or back but not yet stored, when it stopped; resumed, the first finds its claim gone
    before it sends anything more, and says so (exit 2). (It had gone on asking: 7 of 60
    paid twice here.)"""
    with a_stopped_command(tmp_path, data_dir, "laptop") as (api, procs, second, stop):
        out, _ = second().communicate(timeout=240)
        took = time.monotonic() - stop.at
        done_at, resumed_at = api.served, time.time()
        procs[0].send_signal(signal.SIGCONT)
        procs[0].communicate(timeout=120)
    texts = [(tmp_path / f"{name}.txt").read_text() for name in ("first", "second")]
    assert procs[1].returncode == 0, texts[1][-3000:]
    report = json.loads(out)["run"]
    assert report["n_ok"] == report["n_items"] and took >= TTL - 1 and done_at >= report["n_items"]
    # asked twice: only what the first had back but not yet stored when it stopped (its
    # answers go to the store every 0.25 s, a lake's commit can take a second on a loaded
    # machine: 0-8 seen) and what was stopped half-written and goes out when it resumes (2 at
    # most, its window), nothing it would have sent after
    paid_twice = api.served - report["n_items"]
    assert paid_twice <= stop.unstored + 2 and len(asked_once(api)) <= stop.unstored + 2, \
        (paid_twice, stop.unstored, texts[0][-3000:])
    assert len([r for r in api.requests if r["at"] >= resumed_at]) <= 2
    assert procs[0].returncode == 2 and "lost its claim on the run" in texts[0], texts[0][-3000:]
