"""One live writer per run id on a DuckLake store (mathprobe/store/run_lease.py): two processes on
one run ask each item once in total; a killed holder's claim expires so the run can be resumed;
a holder stopped past its claim's life finds it taken over and stops asking."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from mathprobe.store import close_all, open_store, run_lease
from tests.conftest import REPO
from tests.support.cli import cli_env
from tests.support.fake_api import FakeAPI

LIMIT = 60

# A process holding a claim on run `r` of the lake argv[1], with a claim life of 2 s renewed
# every 0.3 s; it says `holding`, then `lost` if its claim was taken over.
HOLDER = textwrap.dedent("""
    import sys, time
    from mathprobe.store import open_store, run_lease
    run_lease.TTL_S, run_lease.BEAT_S = 2.0, 0.3
    store = open_store(sys.argv[1])
    with run_lease.holding(store, "r") as lease:
        print("holding", flush=True)
        while not lease.lost.wait(0.1):
            pass
        print("lost", store.writer().halt.is_set(), flush=True)
""")


def holder(lake: str) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, lake], cwd=REPO, text=True,
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
    """Stopped past its claim's life (a laptop lid, SIGSTOP), the holder's run was taken over
    by another process; continued, it must not go on asking beside that one."""
    lake = f"ducklake:sqlite:{tmp_path / 'lake.sqlite'}"
    proc = holder(lake)
    try:
        proc.send_signal(signal.SIGSTOP)
        store = open_store(lake)
        taker = run_lease.RunLease(store, "r")
        deadline = time.monotonic() + 20
        while taker.try_take() is not None:
            assert time.monotonic() < deadline
            time.sleep(0.2)
        close_all()                              # the holder's renewal needs the catalog
        proc.send_signal(signal.SIGCONT)
        out, err = proc.communicate(timeout=60)
        assert out.split() == ["lost", "True"], err   # its writer halted: nothing more asked
    finally:
        proc.send_signal(signal.SIGCONT)
        proc.kill()
        close_all()
