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
from mathprobe.errors import DataError, StoreWriteError
from mathprobe.items import Chat, Completion, Item, Request
from mathprobe.runs import runtime
from mathprobe.runs.adaptive_limit import AdaptiveLimit
from mathprobe.runs.progress import Activity
from mathprobe.runs.request_slots import Claim, NotAsked, RequestSlots
from mathprobe.runs.samples import params_of as sample_params
from mathprobe.store import Store, run_lease, spool

ResponseRow = tuple[str, str, Completion]    # item_id, request_hash, completion
# Answers wait at most this long before they go to the writer. With the commit behind it
# (tenths of a second), it keeps the loss on kill -9 under a second at any concurrency up to
# 512 (perf/kill_loss.py); a flush every second lost answers 1.3-1.5 s old there.
FLUSH_S = 0.25


def read_image(path: str, item_id: str = "") -> bytes:
    """Image bytes, read when the request that sends them is built. Not cached: each WE-MATH
    item has an image of its own (1,740 images, 42 MB), and a request's image is released
    once it is answered. One that went away since the run's checks (`mathprobe.runs.
    setting_data`) is a DataError naming it: the run ends `failed`, its answers kept."""
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise DataError(path, f"cannot read the image of question {item_id} "
                        f"({exc.strerror or exc}); the run stopped here: put it back and run the "
                        "same command again", item=item_id or None, field="image") from None


def build_request(bench: Benchmark, item: Item, model: str, setting: str,
                  params: dict[str, Any], sample: int = 0) -> Request:
    """The request for an item: the benchmark's prompt (a string, or a chat whose prior turns
    travel with the request) and the image it sends with it; for sample s >= 1 of an item
    asked --samples K times, with its index (and its seed, where the backend takes one:
    mathprobe/runs/samples.py)."""
    asked = bench.prompt(item, setting)
    turns: tuple = ()
    if isinstance(asked, Chat):
        prompt, turns = asked.prompt, asked.turns
    else:
        prompt = asked
    path = bench.request_image(item, setting)
    return Request(item_id=item.item_id, model=model, prompt=prompt,
                   params=sample_params(model, params, sample) if sample else params,
                   image=read_image(path, item.item_id) if path else None, choices=item.choices,
                   turns=turns, chance=bench.chance_answer(item, setting), sample=sample)


class LazyRequests:
    """The requests of `items` (of sample `samples[k]` for the k-th, where given: the
    (item, sample) pairs a run asks), each built (its prompt made, its image read) only as it
    is about to be sent; a sized iterable, as `respond` takes."""

    def __init__(self, bench: Benchmark, items: Sequence[Item], model: str, setting: str,
                 params: dict[str, Any], samples: Sequence[int] | None = None):
        self.bench, self.items, self.model, self.setting, self.params = (
            bench, items, model, setting, params)
        self.samples = samples if samples is not None else [0] * len(items)

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[Request]:
        for item, sample in zip(self.items, self.samples):
            yield build_request(self.bench, item, self.model, self.setting, self.params,
                                sample)


def check_backend(spec: str, keep: tuple[str, Callable[[], Backend]] | None = None) -> None:
    """Fail now, before any work, on a bad BACKEND:NAME or a missing API key (a Secret block is
    read as the client is made). `keep`: (run id, factory): the client made is kept as that
    run's (`runtime.backend`), which its shards then use, instead of being closed and made again
    (making an SDK client took 0.1-0.2 s of a run's start, twice); the caller closes it
    (`runtime.close_backend`)."""
    if keep is None:
        runtime.run(get_backend(spec).aclose())
        return

    async def make() -> None:
        runtime.backend(*keep)

    runtime.run(make())


def _billed(kind: str) -> bool:
    """Whether a kind's answers cost money (an answer without a cost is then one not counted)."""
    from mathprobe.backends import registry

    found = registry.find(kind)
    return found is not None and found.priced


class Budget:
    """A run's spending cap, shared by its shards: once reached, no new request is issued.

    A cap is never kept blind: preflight refuses --max-cost for a model without a price
    (`preflight.check_priced`), and an answer the server sent without token counts (a priced
    model behind a server that reports no usage) leaves the run's cost unknown, so it stops
    the run as the cap would (`unknown`), rather than letting it spend on uncounted."""

    def __init__(self, max_cost: float | None, spent: float = 0.0):
        self.max_cost, self.spent = max_cost, spent
        self.unknown = 0                 # answers whose cost could not be counted
        self._lock = threading.Lock()

    def add(self, cost: float | None, answered: bool = False) -> None:
        """Count one call's cost; `answered`: the server answered it (so it was billed)."""
        with self._lock:
            if cost:
                self.spent += cost
            elif cost is None and answered and self.max_cost is not None:
                self.unknown += 1

    @property
    def exhausted(self) -> bool:
        return self.max_cost is not None and (self.spent >= self.max_cost or self.unknown > 0)

    def stopped(self, not_asked: int, what: str = "item(s)") -> str:
        """The line that says why the run stopped with `not_asked` items (or `what`) left."""
        if self.max_cost is None:
            return (f"{not_asked} {what} not asked (interrupted); the same command "
                    "continues")
        if self.unknown:
            return (f"--max-cost ${self.max_cost:.4f}: {self.unknown} answer(s) came without "
                    f"token counts, so the cost is unknown (${self.spent:.4f} counted): stopped "
                    f"asking, {not_asked} {what} not asked; the server must report usage for "
                    "a cap to be kept: leave --max-cost out to continue without one")
        return (f"--max-cost ${self.max_cost:.4f} reached (spent ${self.spent:.4f}): "
                f"{not_asked} {what} not asked; run again with a higher --max-cost to continue")


async def respond(backend: Backend, requests: Iterable[Request],
                  submit: Callable[[list[ResponseRow]], Future], *,
                  concurrency: int | None = None, limits: Sequence[Any] = (),
                  window: AdaptiveLimit | None = None, activity: Activity | None = None,
                  budget: Budget | None = None, batch_size: int = 64, flush_s: float = FLUSH_S,
                  on_done: Callable[[str, Completion], Any] | None = None,
                  halt: threading.Event | None = None,
                  claim: Claim | None = None) -> dict[str, int]:
    """Send requests, each attempt holding a slot of `window` (the run's adaptive limit) and
    of every limit in `limits` (shared with other shards: the provider's cap, its global
    limit); without a window, at most `concurrency` in flight, or as `limits` allow. Hand
    results to the writer in batches.

    A request is built (`requests` may be lazy, e.g. `LazyRequests`) only when a slot is free
    for it, so the first one goes out at once and an image is held only while its request
    runs. Batches go out every `batch_size` results or `flush_s` seconds, whichever comes first
    (a timer, not the next answer, decides the latter), so an interrupted run loses at most the
    answers of the last second. Returns counts by status, plus `not_asked` for requests held
    back because the budget ran out or `halt` was set (the writer failed, or the run's claim
    was lost). With `claim` (the run's claim on a lake: mathprobe.store.run_lease), every
    attempt, first or retry, is sent only once the claim is known to be this process's
    (`RequestSlots.cleared`). Returns once every batch is committed (or spooled).
    """
    total = len(requests) if isinstance(requests, Sized) else None
    if window is None:
        window = AdaptiveLimit.fixed((total or 1 << 20) if limits else (concurrency or 1))
    activity = activity if activity is not None else Activity()
    billed = _billed(backend.kind)
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
        completion.sample = req.sample          # stored with the answer (responses.sample)
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
            if not held_back() and await slots.cleared():
                started = time.perf_counter()
                completion = await backend.complete(req)
                if completion.latency_s is None:
                    completion.latency_s = time.perf_counter() - started
                if completion.cost_usd is None:
                    completion.cost_usd = prices.cost(backend.kind, backend.model,
                                                      completion.input_tokens,
                                                      completion.output_tokens)
                if budget is not None:
                    budget.add(completion.cost_usd,
                               billed and completion.status != "infra_failed")
        except NotAsked:                     # a retry the run's lost claim kept from going
            completion = None
        finally:
            await slots.give_back()
            reserved.discard(slots)
        record(req, completion)

    def ended(task: asyncio.Task) -> None:
        running.discard(task)
        failure = None if task.cancelled() else task.exception()
        if failure is not None:
            failures.append(failure)

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
                slots = RequestSlots(window, limits, activity, sender, claim)
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
    writer = store.writer()
    writer.say = lambda message: progress.note(run_id, message)
    try:
        spool.check_room(store, run_id=run_id)   # answers that could be kept nowhere
    except StoreWriteError as exc:     # ask nothing more (other shards stop too): said after
        writer.no_room(exc)
        return {"not_asked": len(requests)}
    activity = progress.activity(run_id)

    async def go() -> dict[str, int]:
        backend = make_backend()
        window = activity.window = runtime.window(run_id, min(in_flight or cap, cap))
        limits: list[Any] = [runtime.semaphore("provider", kind, cap)]  # RequestSlots' limits
        shared = await global_slot(kind)        # the provider's cap across all workers
        if shared is not None:
            limits.append(shared)
        try:
            async with shared.batch() if shared is not None else contextlib.nullcontext():
                return await respond(backend, requests, lambda rows: writer.submit(run_id, rows),
                                     window=window, limits=limits, activity=activity,
                                     budget=budget, on_done=on_done, halt=writer.halt,
                                     claim=run_lease.current(store.path, run_id))
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


def check_writes(store: Store, run_id: str | None = None, todo: int | None = None) -> None:
    """Raise StoreWriteError (one line: what failed, what this command's answers became, what
    to do; with `todo`, how many of the run's items to ask were not asked) if the store's
    writer failed. `run_id` is marked `interrupted` (tried: a full disk may refuse even that;
    the next open marks it then), and the store is closed, so the next open stores the
    spooled answers."""
    message = store.write_failure()
    if message:
        if todo is not None and run_id is not None:
            asked = store.writer().received.get(run_id, 0)
            message += f" ({todo - asked} of the {todo} item(s) to ask were not asked)"
        if run_id is not None:
            ended(store, run_id, "interrupted")
        store.close()
        raise StoreWriteError(message)


def room_for(store: Store, run_id: str, answers: int) -> None:
    """Before a run asks anything: room to keep all `answers` it is about to ask (an estimate,
    `spool.room_needed`, plus a second's answers to spare), in the store or in the store and a
    spool together; else the one line (StoreWriteError, exit 5), nothing asked."""
    spool.check_room(store, spool.room_needed(store, answers) + spool.ROOM_PROBE, run_id)


def ended(store: Store, run_id: str, status: str) -> None:
    """Record a run's end status without its figures (one small write, tried where a write has
    just failed: a run must not be left `running`); a store that refuses it is left as it is."""
    with contextlib.suppress(Exception):
        store.end_run(run_id, status)
