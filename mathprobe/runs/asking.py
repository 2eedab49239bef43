"""Asking a model: the request of an item, and sending a run's requests on the process's shared
event loop, bounded per run (an adaptive window under the run's --concurrency:
mathprobe/runs/adaptive_limit.py) and per provider, answers handed to the store's single writer in
batches (so an interrupted run loses at most its last second of answers). Requests are built
as they are sent (`LazyRequests`), so the first goes out at once and memory holds only the
images of requests in flight. When the writer fails (a full disk), no new request is sent; the
answers in flight are spooled by the writer and `check_writes` turns the failure into one line
for the user."""
from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence, Sized
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from mathprobe.backends import Backend, get_backend, prices
from mathprobe.backends.retry import watching
from mathprobe.contract import Benchmark
from mathprobe.errors import StoreWriteError
from mathprobe.items import Chat, Completion, Item, Request
from mathprobe.runs import runtime
from mathprobe.runs.adaptive_limit import AdaptiveLimit
from mathprobe.runs.progress import Activity
from mathprobe.runs.request_slots import RequestSlots
from mathprobe.store import Store, spool

ResponseRow = tuple[str, str, Completion]    # item_id, request_hash, completion
# Answers wait at most this long before they go to the writer. With the commit behind it
# (tenths of a second), it keeps the loss on kill -9 under a second at any concurrency up to
# 512 (perf/kill_loss.py); a flush every second lost answers 1.3-1.5 s old there.
FLUSH_S = 0.25


def read_image(path: str) -> bytes:
    """Image bytes, read when the request that sends them is built. Not cached: each WE-MATH
    item has an image of its own (1,740 images, 42 MB), and a request's image is released
    once it is answered."""
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


class LazyRequests:
    """The requests of `items`, each built (its prompt made, its image read) only as it is
    about to be sent; a sized iterable, as `respond` takes."""

    def __init__(self, bench: Benchmark, items: Sequence[Item], model: str, setting: str,
                 params: dict[str, Any]):
        self.bench, self.items, self.model, self.setting, self.params = (
            bench, items, model, setting, params)

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[Request]:
        for item in self.items:
            yield build_request(self.bench, item, self.model, self.setting, self.params)


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


async def respond(backend: Backend, requests: Iterable[Request],
                  submit: Callable[[list[ResponseRow]], Future], *,
                  concurrency: int | None = None, limits: Sequence[Any] = (),
                  window: AdaptiveLimit | None = None, activity: Activity | None = None,
                  budget: Budget | None = None, batch_size: int = 64, flush_s: float = FLUSH_S,
                  on_done: Callable[[str, Completion], Any] | None = None,
                  halt: threading.Event | None = None) -> dict[str, int]:
    """Send requests, each attempt holding a slot of `window` (the run's adaptive limit) and
    of every limit in `limits` (shared with other shards: the provider's cap, its global
    limit); without a window, at most `concurrency` in flight, or as `limits` allow. Hand
    results to the writer in batches.

    A request is built (`requests` may be lazy, e.g. `LazyRequests`) only when a slot is free
    for it, so the first one goes out at once and an image is held only while its request
    runs. Batches go out every `batch_size` results or `flush_s` seconds, whichever comes first
    (a timer, not the next answer, decides the latter), so an interrupted run loses at most the
    answers of the last second. Returns counts by status, plus `not_asked` for requests held
    back because the budget ran out or `halt` was set (the writer failed). Returns once every
    batch is committed (or spooled).
    """
    total = len(requests) if isinstance(requests, Sized) else None
    if window is None:
        window = AdaptiveLimit.fixed((total or 1 << 20) if limits else (concurrency or 1))
    activity = activity if activity is not None else Activity()
    counts: dict[str, int] = {}
    buffer: list[ResponseRow] = []
    commits: list[Future] = []
    last_flush = time.monotonic()
    running: set[asyncio.Task] = set()
    reserved: set[RequestSlots] = set()      # slots of requests started (given back at the end)
    failures: list[BaseException] = []

    def held_back() -> bool:
        return (budget is not None and budget.exhausted) or (halt is not None and halt.is_set())

    def flush() -> None:
        nonlocal buffer, last_flush
        if buffer:
            commits.append(submit(buffer))
            buffer = []
        last_flush = time.monotonic()

    def record(req: Request, completion: Completion | None) -> None:
        if completion is None:
            counts["not_asked"] = counts.get("not_asked", 0) + 1
            return
        counts[completion.status] = counts.get(completion.status, 0) + 1
        buffer.append((req.item_id, req.request_hash, completion))
        if on_done is not None:
            on_done(req.item_id, completion)
        if len(buffer) >= batch_size or time.monotonic() - last_flush >= flush_s:
            flush()

    async def one(req: Request, slots: RequestSlots) -> None:
        watching.set(slots)                  # this task's attempts: told to its slots
        completion = None
        try:
            await slots.take()
            if not held_back():
                started = time.perf_counter()
                completion = await backend.complete(req)
                if completion.latency_s is None:
                    completion.latency_s = time.perf_counter() - started
                if completion.cost_usd is None:
                    completion.cost_usd = prices.cost(backend.kind, backend.model,
                                                      completion.input_tokens,
                                                      completion.output_tokens)
                if budget is not None:
                    budget.add(completion.cost_usd)
        finally:
            await slots.give_back()
            reserved.discard(slots)
        record(req, completion)

    def ended(task: asyncio.Task) -> None:
        running.discard(task)
        if not task.cancelled() and task.exception() is not None:
            failures.append(task.exception())

    async def every_flush_s() -> None:
        while True:
            await asyncio.sleep(flush_s)
            if time.monotonic() - last_flush >= flush_s:
                flush()

    sent = 0
    ticker = asyncio.ensure_future(every_flush_s())
    try:
        with window.sending() as sender:
            for req in requests:           # built now, as its slot is about to be free
                slots = RequestSlots(window, limits, activity, sender)
                reserved.add(slots)
                await slots.reserve()
                if failures:
                    raise failures[0]
                if held_back():            # nothing more is asked: count the rest
                    rest = total - sent if total is not None else 1 + sum(1 for _ in requests)
                    counts["not_asked"] = counts.get("not_asked", 0) + rest
                    break
                sent += 1
                task = asyncio.ensure_future(one(req, slots))
                running.add(task)
                task.add_done_callback(ended)
        while running:
            await asyncio.wait(set(running))
            if failures:
                raise failures[0]
    finally:        # cancelled or failed: the requests not done would be answered to no one
        ticker.cancel()
        for task in list(running):
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)  # ended before a client closes
        for slots in list(reserved):         # (a request cancelled before it began)
            await slots.give_back()
        flush()     # the answers already back are stored, also when the run is interrupted
    for fut in commits:
        await asyncio.wrap_future(fut)
    return counts


def send(store: Store, run_id: str, spec: str, make_backend: Callable[[], Backend],
         requests: Sequence[Request] | LazyRequests, *, in_flight: int | None = None,
         close: bool = True, budget: Budget | None = None,
         on_done: Callable[[str, Completion], Any] | None = None) -> dict[str, int]:
    """Send a run's requests from any thread: on the process's shared event loop, under the
    run's adaptive window (at most `in_flight`, default the provider's cap; shared by the
    run's shards) and the provider's cap, answers stored by the store's single writer.
    `make_backend` runs on that loop; `close` closes the backend afterwards."""
    from mathprobe.backends import parse_spec, provider_limit
    from mathprobe.runs import progress
    from mathprobe.runs.limits import global_slot

    kind, _ = parse_spec(spec)
    cap = provider_limit(spec)
    spool.check_room(store)          # answers that could be kept nowhere: ask nothing
    writer = store.writer()
    activity = progress.activity(run_id)

    async def go() -> dict[str, int]:
        backend = make_backend()
        window = activity.window = runtime.window(run_id, min(in_flight or cap, cap))
        limits = [runtime.semaphore("provider", kind, cap)]
        shared = await global_slot(kind)        # the provider's cap across all workers
        if shared is not None:
            limits.append(shared)
        try:
            async with shared.batch() if shared is not None else contextlib.nullcontext():
                return await respond(backend, requests, lambda rows: writer.submit(run_id, rows),
                                     window=window, limits=limits, activity=activity,
                                     budget=budget, on_done=on_done, halt=writer.halt)
        finally:
            if close:
                await backend.aclose()

    try:
        return runtime.run(go(), group=run_id)
    except concurrent.futures.CancelledError:
        # the run was interrupted (runtime.cancel_group): what came back is stored, the rest
        # is asked when the same command runs again; nothing to report but that
        return {"interrupted": len(requests)}
    finally:
        runtime.give_back_memory()         # the requests' images and bodies, now freed


def check_writes(store: Store) -> None:
    """Raise StoreWriteError (one line: what failed, where the answers went, what to do) if the
    store's writer failed; the store is closed, so the next open stores the spooled answers."""
    message = store.write_failure()
    if message:
        store.close()
        raise StoreWriteError(message)
