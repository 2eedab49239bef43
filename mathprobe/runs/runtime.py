"""One event loop per process for all model calls.

Shard tasks run on Prefect's worker threads, but their requests all run here: one loop, one
connection pool per backend, and limits that really bound what is in flight across shards
(a run's adaptive window, a provider's semaphore). Several loops in several threads would
fight over the GIL and each open its own pool, for less throughput.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

_loop: asyncio.AbstractEventLoop | None = None
_lock = threading.Lock()
_semaphores: dict[tuple[str, str], tuple[int, asyncio.Semaphore]] = {}


def loop() -> asyncio.AbstractEventLoop:
    with _lock:
        if _loop is None or _loop.is_closed():
            ready = threading.Event()

            def run() -> None:
                global _loop
                _loop = asyncio.new_event_loop()
                asyncio.set_event_loop(_loop)
                ready.set()
                _loop.run_forever()

            threading.Thread(target=run, name="mathprobe-requests", daemon=True).start()
            ready.wait()
        assert _loop is not None       # the thread set it before `ready`
        return _loop


def run(coro: Coroutine[Any, Any, T], group: str | None = None) -> T:
    """Run `coro` on the shared loop and wait for it from this (non-loop) thread; `group`
    (e.g. a run id) lets `cancel_group` stop it."""
    if group is not None:
        coro = _tracked(coro, group)
    return asyncio.run_coroutine_threadsafe(coro, loop()).result()


_groups: dict[str, set[asyncio.Task]] = {}


def this_task() -> asyncio.Task:
    """The task that runs the calling coroutine (asyncio.current_task is None only outside
    one, where this is never called)."""
    task = asyncio.current_task()
    if task is None:
        raise RuntimeError("this_task() called outside an asyncio task")
    return task


async def _tracked(coro: Coroutine[Any, Any, T], group: str) -> T:
    task = this_task()
    _groups.setdefault(group, set()).add(task)
    try:
        return await coro
    finally:
        _groups[group].discard(task)


async def cancel_group(group: str) -> None:
    """Cancel what runs under `group` and wait until it has ended. An interrupted run's calls
    still in flight are dropped this way, before its client closes: closing first made each of
    them fail ("client has been closed") and be stored as a failed call, which a plain re-run
    then did not ask again."""
    tasks = list(_groups.get(group, ()))
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def start(coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
    """Start `coro` on the shared loop without waiting for it (e.g. a lookup whose answer is
    cached for later, made while this thread does other work)."""
    return asyncio.run_coroutine_threadsafe(coro, loop())


def semaphore(scope: str, key: str, limit: int) -> asyncio.Semaphore:
    """A semaphore on the shared loop, the same object for everyone asking for (scope, key).
    Call it from coroutines running on that loop."""
    with _lock:
        entry = _semaphores.get((scope, key))
        if entry is None or entry[0] != limit:
            entry = _semaphores[(scope, key)] = (limit, asyncio.Semaphore(max(1, limit)))
        return entry[1]


_windows: dict[str, Any] = {}


def window(run_id: str, ceiling: int):
    """The run's adaptive window (mathprobe.runs.adaptive_limit), the same object for all of its
    shards; a resumed run in this process starts where the last one left off, under its new
    ceiling. Call from coroutines running on the shared loop."""
    from mathprobe.runs.adaptive_limit import AdaptiveLimit

    with _lock:
        limit = _windows.get(run_id)
        if limit is None:
            limit = _windows[run_id] = AdaptiveLimit(ceiling)
    if limit.ceiling != ceiling:
        limit.set_ceiling(ceiling)
    return limit


_backends: dict[str, Any] = {}


def backend(key: str, factory):
    """The backend cached under `key` (one SDK client and connection pool for all of a run's
    shards), made by `factory` on first use. Call from coroutines on the shared loop."""
    if key not in _backends:
        _backends[key] = factory()
    return _backends[key]


async def close_backend(key: str) -> None:
    b = _backends.pop(key, None)
    if b is not None:
        await b.aclose()


def give_back_memory() -> None:
    """Return the memory the C allocator holds free to the system (glibc's malloc_trim; a
    no-op elsewhere). A run's requests are built and answered on this loop's thread, whose
    allocator arena the grading and report threads do not reuse: trimmed when the asking
    ends, a WE-MATH run's peak memory is 14-16 MB lower (benchmarks/startup.py --inspect)."""
    import ctypes

    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (AttributeError, OSError):
        pass

