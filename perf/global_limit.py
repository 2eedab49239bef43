"""What a provider's Prefect global concurrency limit costs while asking.

N requests (OpenAI SDK, loopback server answering after 50 ms, tests/support/fake_api.py) sent
by `mathprobe.runs.asking.respond` from P processes' worth of callers at once, each wanting 8 in
flight, under a global limit of 2 slots on a real Prefect server (a `prefect_test_harness`
subprocess server), three ways:
  none       no global limit (the in-process caps alone; the limit is not respected)
  local-2    one asyncio semaphore of 2 shared by all callers: the floor for 2 in flight
  per-call   Prefect's `concurrency(name)` around every request (what mathprobe did before)
  leased     `mathprobe.runs.limits.GlobalSlots`: slots leased per process and lent to requests
It prints wall time, requests per second and the peak the server saw (the limit is 2).

    python perf/global_limit.py [--requests 60] [--processes 2] [--latency 0.05]
"""
from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from concurrent.futures import Future
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")

from mathprobe.backends import get_backend  # noqa: E402
from mathprobe.items import Request  # noqa: E402
from mathprobe.runs import limits, runtime  # noqa: E402
from mathprobe.runs.asking import respond  # noqa: E402
from tests.support.fake_api import FakeAPI  # noqa: E402

NAME = "mathprobe-benchmark"


class PerCall:
    """The old way: one `concurrency()` (acquire + release, 423 retries) per request."""

    def __init__(self) -> None:
        self._held: dict[asyncio.Task, object] = {}

    async def __aenter__(self):
        from prefect.concurrency.asyncio import concurrency

        cm = concurrency(NAME, occupy=1, strict=True)
        await cm.__aenter__()
        self._held[asyncio.current_task()] = cm

    async def __aexit__(self, *exc):
        await self._held.pop(asyncio.current_task()).__aexit__(*exc)


def stored(rows) -> Future:
    done: Future = Future()
    done.set_result(None)
    return done


async def one_process(way: str, n: int, tag: str, shared: asyncio.Semaphore) -> dict:
    backend = get_backend("openai:m")
    requests = [Request(item_id=f"{tag}{i}", model="m", prompt=f"{tag} q {i}") for i in range(n)]
    sems = [asyncio.Semaphore(8)]
    try:
        if way == "none":
            return await respond(backend, requests, stored, limits=sems)
        if way == "local-2":
            return await respond(backend, requests, stored, limits=[*sems, shared])
        if way == "per-call":
            return await respond(backend, requests, stored, limits=[*sems, PerCall()])
        slots = limits.GlobalSlots(NAME)
        async with slots.batch():
            return await respond(backend, requests, stored, limits=[*sems, slots])
    finally:
        await backend.aclose()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=60, help="in all, split over the processes")
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--latency", type=float, default=0.05)
    args = ap.parse_args()
    from prefect.client.orchestration import get_client
    from prefect.testing.utilities import prefect_test_harness

    api = FakeAPI(latency=args.latency, record=False).start()
    os.environ.update(OPENAI_BASE_URL=api.openai_url, OPENAI_API_KEY="sk-bench")
    per = args.requests // args.processes
    with prefect_test_harness(server_startup_timeout=120):
        async def upsert():
            async with get_client() as client:
                await client.upsert_global_concurrency_limit_by_name(NAME, 2)
        runtime.run(upsert())
        print(f"{args.requests} requests, {args.processes} processes x 8 in flight wanted, "
              f"global limit 2, server latency {args.latency * 1000:.0f} ms")
        print(f"{'way':<10} {'wall s':>7} {'req/s':>7} {'peak':>5}")
        for way in ("none", "local-2", "per-call", "leased"):
            api.peak_in_flight = 0

            async def go(way=way):
                shared = asyncio.Semaphore(2)
                return await asyncio.gather(*(one_process(way, per, f"{way}{p}-", shared)
                                              for p in range(args.processes)))
            started = time.perf_counter()
            counts = runtime.run(go())
            wall = time.perf_counter() - started
            assert all(c == {"ok": per} for c in counts), counts
            print(f"{way:<10} {wall:7.2f} {per * args.processes / wall:7.1f} "
                  f"{api.peak_in_flight:5d}")
    api.stop()


if __name__ == "__main__":
    main()
