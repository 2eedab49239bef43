"""Asking a model: the request of an item, and sending a run's requests on the process's shared
event loop, bounded per run and per provider, answers handed to the store's single writer in
batches (so an interrupted run loses at most its last second of answers). When the writer
fails (a full disk), no new request is sent; the answers in flight are spooled by the writer
and `check_writes` turns the failure into one line for the user."""
from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from mathprobe.tasks.backends import Backend, get_backend, prices
from mathprobe.tasks.contract import Benchmark
from mathprobe.tasks.errors import StoreWriteError
from mathprobe.tasks.items import Chat, Completion, Item, Request
from mathprobe.tasks.runs import runtime
from mathprobe.tasks.store import Store, spool

ResponseRow = tuple[str, str, Completion]    # item_id, request_hash, completion
# Answers wait at most this long before they go to the writer. With the commit behind it
# (tenths of a second), it keeps the loss on kill -9 under a second at any concurrency up to
# 512 (perf/kill_loss.py); a flush every second lost answers 1.3-1.5 s old there.
FLUSH_S = 0.25


@functools.lru_cache(maxsize=4096)
def read_image(path: str) -> bytes:
    """Image bytes, read once per process (WE-MATH testmini's images total about 45 MB)."""
    return Path(path).read_bytes()


def build_request(bench: Benchmark, item: Item, model: str, setting: str,
                  params: dict[str, Any]) -> Request:
    """The request for an item: the benchmark's prompt (a string, or a chat whose prior turns
    travel with the request) and the image it sends with it."""
    prompt = bench.prompt(item, setting)
    turns: tuple = ()
    if isinstance(prompt, Chat):
        prompt, turns = prompt.prompt, prompt.turns
    path = bench.request_image(item, setting)
    return Request(item_id=item.item_id, model=model, prompt=prompt, params=params,
                   image=read_image(path) if path else None, choices=item.choices, turns=turns,
                   chance=bench.chance_answer(item, setting))


def check_backend(spec: str) -> None:
    """Fail now, before any work, on a bad BACKEND:NAME or a missing API key."""
    runtime.run(get_backend(spec).aclose())


class Budget:
    """A run's spending cap, shared by its shards: once reached, no new request is issued."""

    def __init__(self, max_cost: float | None, spent: float = 0.0):
        self.max_cost, self.spent = max_cost, spent
        self._lock = threading.Lock()

    def add(self, cost: float | None) -> None:
        if cost:
            with self._lock:
                self.spent += cost

    @property
    def exhausted(self) -> bool:
        return self.max_cost is not None and self.spent >= self.max_cost


async def respond(backend: Backend, requests: Sequence[Request],
                  submit: Callable[[list[ResponseRow]], Future], *,
                  concurrency: int | None = None, limits: Sequence[asyncio.Semaphore] = (),
                  budget: Budget | None = None, batch_size: int = 64, flush_s: float = FLUSH_S,
                  on_done: Callable[[str, Completion], Any] | None = None,
                  halt: threading.Event | None = None) -> dict[str, int]:
    """Send requests, each holding every semaphore of `limits` (shared with other shards: the
    run's and the provider's cap) or, without them, at most `concurrency` in flight; hand
    results to the writer in batches.

    Batches go out every `batch_size` results or `flush_s` seconds, whichever comes first (a
    timer, not the next answer, decides the latter), so an interrupted run loses at most the
    answers of the last second. Returns counts by status, plus
    `not_asked` for requests held back because the budget ran out or `halt` was set (the
    writer failed). Returns once every batch is committed (or spooled).
    """
    sems = list(limits) or [asyncio.Semaphore(max(1, concurrency or 1))]
    counts: dict[str, int] = {}
    buffer: list[ResponseRow] = []
    commits: list[Future] = []
    last_flush = time.monotonic()

    async def one(req: Request) -> tuple[Request, Completion | None]:
        async with contextlib.AsyncExitStack() as held:
            for sem in sems:                     # always in the same order: no deadlock
                await held.enter_async_context(sem)
            if (budget is not None and budget.exhausted) or (halt is not None and halt.is_set()):
                return req, None
            started = time.perf_counter()
            completion = await backend.complete(req)
            if completion.latency_s is None:
                completion.latency_s = time.perf_counter() - started
            if completion.cost_usd is None:
                completion.cost_usd = prices.cost(backend.kind, backend.model,
                                                  completion.input_tokens, completion.output_tokens)
            if budget is not None:
                budget.add(completion.cost_usd)
            return req, completion

    def flush() -> None:
        nonlocal buffer, last_flush
        if buffer:
            commits.append(submit(buffer))
            buffer = []
        last_flush = time.monotonic()

    async def every_flush_s() -> None:
        while True:
            await asyncio.sleep(flush_s)
            if time.monotonic() - last_flush >= flush_s:
                flush()

    pending = [asyncio.ensure_future(one(r)) for r in requests]
    ticker = asyncio.ensure_future(every_flush_s())
    try:
        for next_done in asyncio.as_completed(pending):
            req, completion = await next_done
            if completion is None:
                counts["not_asked"] = counts.get("not_asked", 0) + 1
                continue
            counts[completion.status] = counts.get(completion.status, 0) + 1
            buffer.append((req.item_id, req.request_hash, completion))
            if on_done is not None:
                on_done(req.item_id, completion)
            if len(buffer) >= batch_size or time.monotonic() - last_flush >= flush_s:
                flush()
    finally:        # cancelled or failed: the requests not done would be answered to no one
        ticker.cancel()
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)   # ended before a client closes
        flush()     # the answers already back are stored, also when the run is interrupted
    for fut in commits:
        await asyncio.wrap_future(fut)
    return counts


def send(store: Store, run_id: str, spec: str, make_backend: Callable[[], Backend],
         requests: Sequence[Request], *, in_flight: int, close: bool = True,
         budget: Budget | None = None,
         on_done: Callable[[str, Completion], Any] | None = None) -> dict[str, int]:
    """Send a run's requests from any thread: on the process's shared event loop, under the
    run's cap (`in_flight`) and the provider's, answers stored by the store's single writer.
    `make_backend` runs on that loop; `close` closes the backend afterwards."""
    from mathprobe.tasks.backends import parse_spec, provider_limit
    from mathprobe.tasks.runs.limits import global_slot

    kind, _ = parse_spec(spec)
    spool.check_room(store)          # answers that could be kept nowhere: ask nothing
    writer = store.writer()

    async def go() -> dict[str, int]:
        backend = make_backend()
        limits = [runtime.semaphore("run", run_id, in_flight),
                  runtime.semaphore("provider", kind, provider_limit(spec))]
        shared = await global_slot(kind)        # the provider's cap across all workers
        if shared is not None:
            limits.append(shared)
        try:
            async with shared.batch() if shared is not None else contextlib.nullcontext():
                return await respond(backend, requests, lambda rows: writer.submit(run_id, rows),
                                     limits=limits, budget=budget, on_done=on_done,
                                     halt=writer.halt)
        finally:
            if close:
                await backend.aclose()

    try:
        return runtime.run(go(), group=run_id)
    except concurrent.futures.CancelledError:
        # the run was interrupted (runtime.cancel_group): what came back is stored, the rest
        # is asked when the same command runs again; nothing to report but that
        return {"interrupted": len(requests)}


def check_writes(store: Store) -> None:
    """Raise StoreWriteError (one line: what failed, where the answers went, what to do) if the
    store's writer failed; the store is closed, so the next open stores the spooled answers."""
    message = store.write_failure()
    if message:
        store.close()
        raise StoreWriteError(message)
