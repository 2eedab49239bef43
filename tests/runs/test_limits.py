"""A provider's Prefect global concurrency limit across processes (mathprobe/runs/limits.py): slots
leased by each process and lent to its requests, on the session's real Prefect server, with
real requests over loopback. Two `GlobalSlots` stand for two workers' processes (each process
has one per provider); tests/team/test_sweep.py checks the same across real workers."""
from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import Future
from pathlib import Path

import httpx
import pytest

from mathprobe.backends import get_backend
from mathprobe.items import Request
from mathprobe.ports import free_port
from mathprobe.runs import limits, runtime
from mathprobe.runs.asking import respond
from tests.conftest import REPO
from tests.support import early


@pytest.fixture
def limit(prefect_harness):
    """A global concurrency limit of 2 slots on the session's Prefect server (a name no run
    uses), deleted afterwards."""
    from prefect.client.orchestration import get_client

    name = "mathprobe-leasetest"

    async def upsert():
        async with get_client() as client:
            await client.upsert_global_concurrency_limit_by_name(name, 2)

    async def delete():
        async with get_client() as client:
            await client.delete_global_concurrency_limit_by_name(name)

    runtime.run(upsert())
    yield name
    runtime.run(delete())


def active_slots(name: str) -> int:
    from prefect.client.orchestration import get_client

    async def read():
        async with get_client() as client:
            return (await client.read_global_concurrency_limit_by_name(name)).active_slots
    return runtime.run(read())


def stored(rows) -> Future:
    done: Future = Future()
    done.set_result(None)
    return done


async def ask(slots: limits.GlobalSlots, n: int, tag: str, in_flight: int = 8) -> dict:
    """n requests through `respond`, as `asking.send` sends a batch: `in_flight` at most in
    this process, each also holding a slot of the global limit."""
    backend = get_backend("openai:m")
    requests = [Request(item_id=f"{tag}{i}", model="m", prompt=f"{tag} question {i}")
                for i in range(n)]
    try:
        async with slots.batch():
            return await respond(backend, requests, stored,
                                 limits=[asyncio.Semaphore(in_flight), slots])
    finally:
        await backend.aclose()


async def bounded(slots: list[limits.GlobalSlots], batches, within: float) -> list:
    """The batches' results, or a failure within `within` seconds showing each process's
    slots as they were (a deadlock is a failure with its state, not a test that never ends)."""
    tasks = [asyncio.ensure_future(b) for b in batches]
    _, pending = await asyncio.wait(tasks, timeout=within)
    if pending:
        state = [f"held {s.held} (idle {len(s._idle)}, lent {len(s._lent)}), asking "
                 f"{s._asking}" for s in slots]
        for task in pending:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise AssertionError(f"no progress within {within} s: {state}")
    return [task.result() for task in tasks]


def test_two_processes_never_exceed_the_limit_and_lease_few_slots(limit, fake_openai):
    fake_openai.latency = 0.05

    async def go():
        first, second = limits.GlobalSlots(limit), limits.GlobalSlots(limit)
        counts = await bounded([first, second], [ask(first, 30, "a"), ask(second, 30, "b")], 60)
        return counts, first.leased + second.leased

    counts, leased = runtime.run(go())
    assert counts == [{"ok": 30}, {"ok": 30}]
    # 16 requests wanted to be in flight; the server never saw more than the limit's 2
    assert fake_openai.peak_in_flight == 2
    # slots are leased per process, not asked of the Prefect server per request
    assert leased <= 8, leased
    assert active_slots(limit) == 0                     # all given back at the end


def test_a_process_finishes_on_the_slot_it_has_while_another_holds_the_rest(limit,
                                                                           fake_openai):
    """Another process holds one slot of the limit of 2 (a lease taken here, as a long batch
    of another worker holds it) for the whole test. This process gets the other slot and must
    finish its batch on it. A granted slot was counted only once its request resumed, so the
    next request asked the server in the waiting mode and waited there for a second slot while
    the process's own slot went idle: the batch could not end before the other process's did,
    and two processes in that state (one slot each) waited for each other for ever (`make test`
    hung on the test above)."""
    from prefect.client.orchestration import get_client

    fake_openai.latency = 0.02

    async def other(take: bool, lease_id=None):
        async with get_client() as client:
            if take:
                got = await client.increment_concurrency_slots_with_lease(
                    names=[limit], slots=1, mode="concurrency", lease_duration=limits.LEASE_S)
                return got.json()["lease_id"]
            await client.release_concurrency_slots_with_lease(lease_id)

    async def go():
        slots = limits.GlobalSlots(limit)
        return await bounded([slots], [ask(slots, 12, "one", in_flight=4)], 30)

    held = runtime.run(other(True))
    try:
        assert active_slots(limit) == 1
        assert runtime.run(go()) == [{"ok": 12}]
        assert fake_openai.peak_in_flight == 1            # the one slot left, used throughout
    finally:
        runtime.run(other(False, held))
    assert active_slots(limit) == 0


def test_slots_come_back_when_a_batch_is_cancelled(limit, fake_openai):
    fake_openai.latency = 0.5

    async def go():
        slots = limits.GlobalSlots(limit)
        batch = asyncio.ensure_future(ask(slots, 20, "c"))
        while fake_openai.in_flight < 2:
            await asyncio.sleep(0.01)
        held = slots.held
        batch.cancel()
        with pytest.raises(asyncio.CancelledError):
            await batch
        return held

    assert runtime.run(go()) == 2
    # back on the server when the cancelled batch has ended, not when a lease lapses (LEASE_S)
    assert active_slots(limit) == 0


def test_a_long_batch_lets_another_process_in(limit, fake_openai, monkeypatch):
    """A slot held longer than HOLD_S goes back to the server when its request ends: a second
    process's short batch finishes while the first's long one (60 answers of 200 ms, 2 at a
    time: 6 s at least, so the second has many hand-backs to catch even on a loaded machine:
    with 20 it missed them all once, at load 2) is still asking. The long batch is then
    cancelled (a batch that runs to its end is the first test's; this one took 12 s)."""
    monkeypatch.setattr(limits, "HOLD_S", 0.3)
    monkeypatch.setattr(limits, "POLL_S", 0.2)
    fake_openai.latency = 0.2

    async def go():
        first, second = limits.GlobalSlots(limit), limits.GlobalSlots(limit)
        long = asyncio.ensure_future(ask(first, 60, "long", in_flight=2))
        while first.held < 2:
            await asyncio.sleep(0.01)
        short = await ask(second, 2, "short", in_flight=2)
        still_asking = not long.done()
        long.cancel()
        with pytest.raises(asyncio.CancelledError):
            await long
        return short, still_asking

    short, still_asking = runtime.run(go())
    assert short == {"ok": 2}
    assert still_asking                    # the second did not wait for the first's end
    # never over the limit (not "exactly 2": on a starved machine, with every 0.2 s request
    # taking over HOLD_S, each slot goes back at its request's end and two requests may never
    # overlap; seen once in 50 rounds beside CPU hogs at load 13)
    assert fake_openai.peak_in_flight <= 2
    # every slot back once the cancelled batch has ended: also one the server granted to a
    # request cancelled while it asked (which once came back only after this was read)
    assert active_slots(limit) == 0


# -- processes killed or stopped while they hold slots: a real `prefect server start` ----------
SERVICES_OFF = ("cancellation_cleanup", "db_vacuum", "event_persister", "event_logger",
                "foreman", "late_runs", "scheduler", "pause_expirations", "cleanup_reconciler",
                "task_run_recorder", "triggers")


def start_lease_server() -> tuple[subprocess.Popen, str, Path]:
    """A real `prefect server start` (the session's test harness is Prefect's ephemeral
    server, which runs no services: an expired lease is never taken back there), its lease
    repossessor looking every second, the other services off, on a Prefect home of its own
    under /tmp; begun in the background when this module is collected (tests/conftest.py:
    10-40 s of a server starting, while other tests run)."""
    folder = Path(tempfile.mkdtemp(prefix="mathprobe-leases-"))
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update(PREFECT_HOME=str(folder / "home"), PREFECT_SERVER_ANALYTICS_ENABLED="false",
               PREFECT_UI_ENABLED="false", PREFECT_SERVER_SERVICES_REPOSSESSOR_LOOP_SECONDS="1",
               **{f"PREFECT_SERVER_SERVICES_{s.upper()}_ENABLED": "false" for s in SERVICES_OFF})
    with open(folder / "server.log", "wb") as log:
        proc = subprocess.Popen([str(Path(sys.executable).with_name("prefect")), "server",
                                 "start", "--host", "127.0.0.1", "--port", str(port)], env=env,
                                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
    url = f"http://127.0.0.1:{port}/api"
    deadline = time.monotonic() + 120
    while not _answers(url) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    return proc, url, folder


def stop_lease_server(made) -> None:
    proc, _, folder = made
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def real_server():
    """The API URL of the module's real Prefect server (`start_lease_server`)."""
    with early.held("lease-server", start_lease_server, stop_lease_server) as (proc, url, folder):
        assert _answers(url), (folder / "server.log").read_text()[-2000:]
        yield url


@pytest.fixture
def killtest_limit(real_server) -> tuple[str, str]:
    """A limit of 2 on the real server; (its API URL, the limit's name)."""
    name = "mathprobe-killtest"
    httpx.post(f"{real_server}/v2/concurrency_limits/", json={"name": name, "limit": 2},
               timeout=30).raise_for_status()
    yield real_server, name
    httpx.delete(f"{real_server}/v2/concurrency_limits/{name}", timeout=30)


def _answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/health", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


def server_slots(url: str, name: str) -> int:
    return httpx.get(f"{url}/v2/concurrency_limits/{name}", timeout=30).json()["active_slots"]


def test_slots_of_killed_and_stopped_holders_come_back(killtest_limit, fake_openai):
    """One process holding a slot is killed (-9), another is stopped (SIGSTOP: starved, it
    cannot renew), and together they held the whole limit. A third process asking then gets
    the slots once their leases expire (LEASE_S after their last renewal) and ends its batch;
    the stopped one, continued, finds its lease gone, asks again and finishes too; the model
    API never sees more requests at once than the limit, and no slot is left counted.
    (75-115 s: Prefect's shortest lease is 60 s, so a killed holder's slot returns no sooner.)"""
    url, name = killtest_limit
    fake_openai.latency = 0.25
    env = dict(os.environ, PREFECT_API_URL=url, PYTHONUNBUFFERED="1")

    def holder(*args: str) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-m", "tests.support.slot_holder", name, *args],
                                cwd=REPO, env=env, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    killed, stopped = holder("--hold", "1"), holder("--hold", "1", "--then", "8")
    waiter = None
    try:
        for proc in (killed, stopped):
            assert proc.stdout.readline().strip() == "holding 1", proc.stderr.read()
        assert server_slots(url, name) == 2
        killed.kill()
        stopped.send_signal(signal.SIGSTOP)
        gone = time.monotonic()
        waiter = holder("--then", "16")
        assert waiter.stdout.readline().strip() == "asking"
        deadline = gone + limits.LEASE_S + 45
        while fake_openai.served == 0:                 # nothing free until the leases expire
            assert time.monotonic() < deadline and waiter.poll() is None, \
                "the waiting process got no slot after the holders' leases expired"
            time.sleep(0.2)
        assert time.monotonic() - gone > limits.LEASE_S - 20   # (its last renewal, at most
        stopped.send_signal(signal.SIGCONT)                  #  LEASE_S/4 before the kill)
        stopped.stdin.write("go\n")
        stopped.stdin.flush()
        out, err = waiter.communicate(timeout=120)
        assert waiter.returncode == 0 and json.loads(out.splitlines()[-1]) == {"ok": 16}, err
        out, err = stopped.communicate(timeout=120)
        assert stopped.returncode == 0 and json.loads(out.splitlines()[-1]) == {"ok": 8}, err
        assert fake_openai.peak_in_flight == 2
        assert server_slots(url, name) == 0
    finally:
        for proc in (killed, stopped, waiter):
            if proc is not None and proc.poll() is None:
                proc.send_signal(signal.SIGCONT)
                proc.kill()
                proc.wait(timeout=30)
