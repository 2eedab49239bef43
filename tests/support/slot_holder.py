"""A process holding slots of a Prefect global concurrency limit through mathprobe's own
`GlobalSlots` (mathprobe/runs/limits.py), for tests that kill it, stop it or make it wait
(tests/runs/test_limits.py). Its Prefect server is PREFECT_API_URL; its model API the loopback
OpenAI-compatible server of OPENAI_BASE_URL.

    python -m tests.support.slot_holder LIMIT --hold N --then M

takes N slots and says `holding N` (then waits for a line on stdin, or none with --hold 0),
gives them back, sends M requests (2 in flight), each holding a slot, and prints its answers'
counts as JSON.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import sys

from mathprobe.backends import get_backend
from mathprobe.items import Request
from mathprobe.runs import limits
from mathprobe.runs.asking import respond


async def main(name: str, hold: int, then: int) -> dict:
    slots = limits.GlobalSlots(name)
    loop = asyncio.get_running_loop()
    go = asyncio.Event()

    async def holding() -> None:
        async with slots:
            await go.wait()

    async with slots.batch():
        if hold:
            holders = [asyncio.ensure_future(holding()) for _ in range(hold)]
            while slots.held < hold:
                await asyncio.sleep(0.05)
            print(f"holding {hold}", flush=True)
            await loop.run_in_executor(None, sys.stdin.readline)
            go.set()
            await asyncio.gather(*holders)
        print("asking", flush=True)
        backend = get_backend("openai:m")
        try:
            requests = [Request(item_id=f"q{i}", model="m", prompt=f"holder question {i}")
                        for i in range(then)]
            return await respond(backend, requests, _stored,
                                 limits=[asyncio.Semaphore(2), slots])
        finally:
            await backend.aclose()


def _stored(rows):
    from concurrent.futures import Future

    done: Future = Future()
    done.set_result(None)
    return done


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("limit")
    parser.add_argument("--hold", type=int, default=0)
    parser.add_argument("--then", type=int, default=0)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main(args.limit, args.hold, args.then))), flush=True)
