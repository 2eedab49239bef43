"""One request's places in the limits it runs under, held around each attempt, not each request.

A request takes a slot of the run's window (mathprobe/runs/adaptive_limit.py) and then one of each
other limit (the provider's semaphore, its Prefect global limit across workers), always in that
order, so no two requests can wait on each other. While it waits out a Retry-After or a
backoff it holds none of them: the server sees as many requests as the window allows, other
workers get the global slots, and the wait shows in the run's `Activity` rather than as a
request that is "in flight" for minutes. It is also the request's watcher
(mathprobe.backends.retry.Attempts): each answer or overload goes to the window, each wait and
retry to the activity counters that the progress bar and artifact draw.
"""
from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Sequence
from typing import Any, Protocol

from mathprobe.backends.retry import TransientError
from mathprobe.runs.adaptive_limit import AdaptiveLimit
from mathprobe.runs.progress import Activity


class Claim(Protocol):
    """The run's claim of one live writer (mathprobe.store.run_lease.RunLease)."""

    def valid(self) -> bool: ...

    def confirm(self) -> bool: ...


class NotAsked(Exception):
    """The request may not be sent: the run's claim was lost (another process asks it now)."""


class RequestSlots:
    """The slots of one request: `reserve` (the window's, taken by whoever starts requests, so
    no more requests are started than the window lets run), `take` (the others, in the
    request's own task: a Prefect global slot belongs to the task that took it), `give_back`
    (all; safe to call twice)."""

    def __init__(self, window: AdaptiveLimit, limits: Sequence[Any], activity: Activity,
                 sender: int = 0, claim: Claim | None = None):
        self.window, self.limits, self.activity = window, list(limits), activity
        self.sender, self.claim = sender, claim
        self.epoch = 0
        self.sent_at: float | None = None    # when its current attempt went out (monotonic)
        self._window_held = False
        self._others: contextlib.AsyncExitStack | None = None

    async def reserve(self, retry: bool = False) -> None:
        self.epoch = await self.window.acquire(retry, self.sender)
        self._window_held = True

    async def take(self) -> None:
        stack = contextlib.AsyncExitStack()
        try:
            for limit in self.limits:       # always in the same order: no deadlock
                await stack.enter_async_context(limit)
        except BaseException:
            await stack.aclose()
            raise
        self._others = stack
        self.activity.in_flight += 1
        self.sent_at = time.monotonic()

    async def cleared(self) -> bool:
        """Whether the run's claim lets this attempt be sent (checked before each attempt: a
        process resumed after a stop renews its claim first, and one taken over sends
        nothing)."""
        if self.claim is None or self.claim.valid():
            return True
        return await asyncio.to_thread(self.claim.confirm)

    async def give_back(self) -> None:
        others, self._others = self._others, None
        try:
            if others is not None:
                self.activity.in_flight -= 1
                await others.aclose()
        finally:
            if self._window_held:
                self._window_held = False
                self.window.release()

    # -- mathprobe.backends.retry.Attempts ----------------------------------------------------------
    def answered(self) -> None:
        self.window.answered(self.epoch, self.sent_at)

    def failed(self, exc: TransientError) -> None:
        if exc.overloaded:
            self.activity.overloaded += 1
            self.window.overloaded(self.epoch, exc.retry_after, self.sent_at)

    async def wait(self, seconds: float) -> None:
        """The pause before the next attempt, holding no slot; then the slots again (the
        window's before any new request's)."""
        self.activity.retries += 1
        await self.give_back()
        key = id(self)
        self.activity.waits[key] = asyncio.get_running_loop().time() + seconds
        try:
            await asyncio.sleep(seconds)
        finally:
            self.activity.waits.pop(key, None)
        await self.reserve(retry=True)
        await self.take()
        if not await self.cleared():
            raise NotAsked(f"the run's claim was lost while this request waited {seconds:g} s")
