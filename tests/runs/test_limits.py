"""A provider's Prefect global concurrency limit across processes (tasks/runs/limits.py): slots
leased by each process and lent to its requests, on the session's real Prefect server, with
real requests over loopback. Two `GlobalSlots` stand for two workers' processes (each process
has one per provider); tests/team/test_sweep.py checks the same across real workers."""
from __future__ import annotations

import asyncio
from concurrent.futures import Future

import pytest

from mathprobe.tasks.backends import get_backend
from mathprobe.tasks.items import Request
from mathprobe.tasks.runs import limits, runtime
from mathprobe.tasks.runs.asking import respond

pytestmark = pytest.mark.usefixtures("prefect_harness")


@pytest.fixture
def limit():
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


def test_two_processes_never_exceed_the_limit_and_lease_few_slots(limit, fake_openai):
    fake_openai.latency = 0.05

    async def go():
        first, second = limits.GlobalSlots(limit), limits.GlobalSlots(limit)
        counts = await asyncio.gather(ask(first, 30, "a"), ask(second, 30, "b"))
        return counts, first.leased + second.leased

    counts, leased = runtime.run(go())
    assert counts == [{"ok": 30}, {"ok": 30}]
    # 16 requests wanted to be in flight; the server never saw more than the limit's 2
    assert fake_openai.peak_in_flight == 2
    # slots are leased per process, not asked of the Prefect server per request
    assert leased <= 8, leased
    assert active_slots(limit) == 0                     # all given back at the end


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
    assert fake_openai.peak_in_flight == 2
    # every slot back once the cancelled batch has ended: also one the server granted to a
    # request cancelled while it asked (which once came back only after this was read)
    assert active_slots(limit) == 0
