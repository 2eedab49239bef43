"""How many of a run's requests may be in flight, found while it runs: an AIMD-style window.

A fixed `--concurrency` is either too low (a fast server idles) or too high (a rate-limited
account answers 429 after 429, each request sleeping out its Retry-After while the run looks
hung). Users of other evaluators tune it by hand per provider and tier. Here the run's
`--concurrency` (default: the provider's cap) is only a ceiling; the window under it starts
small and
  * grows while the server answers: by one per answer until the first sign of overload (so it
    doubles every round trip, as TCP's slow start), then back towards one below the window
    that was overloaded last, by half the gap per round trip; then slowly (PLATEAU a round
    trip) up to that window, where the server said no before, and beyond it faster while it
    keeps being answered (BIC's binary search, a plateau, and max probing): each probe costs a
    429 and a request that waits out its Retry-After, so they are rare near the known limit;
  * shrinks by BACKOFF at a 429 / 503 / 529, once per round of requests (a sign from a request
    sent after the last cut cuts again: a quota that is used up drives the window to the
    floor within a few fast 429s); each further 429 to the round that was cut counts one
    request more than the server takes (after a round that overshot by many, the window
    lands where the server's limit is, not a mere 10% lower);
  * holds new requests back for the server's Retry-After when it answers 429 even at the
    floor (a time-based quota: sending more only collects more 429s).
A request waiting out a retry gives its slot back (so the server sees the window, not fewer),
and takes one again before the round of new requests (`acquire(retry=True)`), so started
items finish first.

It only decides how many; `mathprobe.runs.asking` holds the slot around each attempt, and
`mathprobe.backends.retry` reports each attempt's outcome. One window per run, shared by its shards
on the process's event loop; the provider's semaphore and Prefect global limit still bound
what all runs send together (benchmarks/adaptive.py measures it against fixed concurrencies).
"""
from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import time
from collections import deque
from collections.abc import Iterator

START = 16        # the first window (or the ceiling, if lower): inspect_ai starts at 20
BACKOFF = 0.9     # the window after an overload, as a fraction of what it was
MAX_STEP = 32     # the most the window grows in one round trip
PLATEAU = 0.25    # growth a round trip near the window that was overloaded last
FLOOR = 1


class AdaptiveLimit:
    """A window of requests in flight between FLOOR and `ceiling`, tuned by what the server
    answers (see the module's docstring). Used on one event loop only."""

    def __init__(self, ceiling: int, start: int = START, adaptive: bool = True):
        self.adaptive = adaptive
        self.ceiling = max(FLOOR, int(ceiling))
        self.limit = float(min(self.ceiling, max(FLOOR, start)))
        self.peak: float | None = None   # the window at the last overload; None: slow start
        self.held = 0
        self.epoch = 0                   # cuts so far: a slot remembers the epoch it began in
        self.cuts = 0
        self._cut_from = 0.0             # the window before the last cut ...
        self._refused = 0                # ... and the 429s to requests sent under it
        self.paused_until = 0.0          # new requests wait until then (monotonic seconds)
        self.senders = 0                 # senders with requests still to start (`sending`)
        self._new: list[tuple[int, int, asyncio.Future]] = []   # a heap: (sender, seq, ...)
        self._seq = itertools.count()
        self._senders = itertools.count()
        self._retries: deque[asyncio.Future] = deque()
        self._resume: asyncio.TimerHandle | None = None

    @classmethod
    def fixed(cls, limit: int) -> AdaptiveLimit:
        """Exactly `limit` in flight, whatever the server answers (a plain semaphore)."""
        return cls(limit, start=limit, adaptive=False)

    @property
    def window(self) -> int:
        return max(FLOOR, int(self.limit))

    def set_ceiling(self, ceiling: int) -> None:
        """A new ceiling (a resumed run with another --concurrency); the window stays under it."""
        self.ceiling = max(FLOOR, int(ceiling))
        self.limit = min(self.limit, self.ceiling)
        self._hand_over()

    # -- slots -------------------------------------------------------------------------------
    async def acquire(self, retry: bool = False, sender: int = 0) -> int:
        """Wait for a slot; returns the epoch it began in (for `overloaded`). Retries go first,
        then new requests of the earliest sender (`sending`): a run's shards then finish, and
        have their answers committed, one after the other, not all at the very end."""
        if self._free(retry) and not self._retries and (retry or not self._new):
            self.held += 1
            return self.epoch
        fut = asyncio.get_running_loop().create_future()
        if retry:
            self._retries.append(fut)
        else:
            heapq.heappush(self._new, (sender, next(self._seq), fut))
        self._schedule_resume()
        try:
            await fut                    # `_hand_over` counted the slot as held
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():
                self.release()           # handed over as it was cancelled: pass it on
            else:                        # out of the queue (so `waiting` counts only waiters)
                fut.cancel()
                self._forget(fut, retry)
            raise
        return self.epoch

    def _forget(self, fut: asyncio.Future, retry: bool) -> None:
        if retry:
            with contextlib.suppress(ValueError):
                self._retries.remove(fut)
        else:
            self._new = [entry for entry in self._new if entry[2] is not fut]
            heapq.heapify(self._new)

    def release(self) -> None:
        self.held -= 1
        self._hand_over()

    def _free(self, retry: bool) -> bool:
        paused = not retry and time.monotonic() < self.paused_until
        return self.held < self.window and not paused

    def _hand_over(self) -> None:
        while self._retries and self._retries[0].done():
            self._retries.popleft()              # (cancelled while waiting)
        while self._retries and self._free(True):
            fut = self._retries.popleft()
            if not fut.done():
                self.held += 1
                fut.set_result(None)
        while self._new and self._new[0][2].done():
            heapq.heappop(self._new)
        while not self._retries and self._new and self._free(False):
            fut = heapq.heappop(self._new)[2]    # new requests wait behind the retries
            if not fut.done():
                self.held += 1
                fut.set_result(None)
        self._schedule_resume()

    def _schedule_resume(self) -> None:
        """Wake the new requests when a pause ends (no release may come to do it)."""
        wait = self.paused_until - time.monotonic()
        if self._new and wait > 0 and self._resume is None:
            def resume() -> None:
                self._resume = None
                self._hand_over()
            self._resume = asyncio.get_running_loop().call_later(wait, resume)

    @property
    def waiting(self) -> int:
        """Requests waiting for a slot."""
        return len(self._new) + len(self._retries)

    @contextlib.contextmanager
    def sending(self) -> Iterator[int]:
        """Around a sender's loop that starts requests: while any sender has requests left,
        the window is what holds the run back (a sender woken for a free slot may not have
        asked for the next one yet when the answers of a round come in together); once all
        are started, the window stops growing (no probe whose 429 would only delay the end)."""
        self.senders += 1
        try:
            yield next(self._senders)            # the sender's place: earlier ones go first
        finally:
            self.senders -= 1

    # -- what the server answered --------------------------------------------------------------
    def answered(self) -> None:
        """An attempt was answered (not overloaded): grow, if the window is what holds the run
        back (a sender has requests left, requests wait for a slot, or all slots are taken)."""
        if not self.adaptive or not (self.senders or self._new or self._retries
                                     or self.held >= self.window):
            return
        w = self.limit
        if self.peak is None:
            step = 1.0                                          # doubles per round trip
        else:                                                   # per round trip, then / w
            below = self.peak - 1
            trip = ((below - w) / 2 if w < below else PLATEAU if w < self.peak
                    else w - self.peak)                         # past the peak: doubling
            step = min(MAX_STEP, max(PLATEAU, trip)) / w
        self.limit = min(float(self.ceiling), w + step)
        self._hand_over()

    def overloaded(self, epoch: int, retry_after: float | None = None) -> bool:
        """A 429 / 503 / 529 to an attempt whose slot began in `epoch`: cut the window, once
        per epoch; one more for the epoch just cut lowers it to what the server took then. At
        the floor, also hold new requests for the server's Retry-After. Returns whether the
        window was cut."""
        if not self.adaptive or epoch < self.epoch - 1:
            return False
        cut = epoch == self.epoch
        if cut:                               # the first sign since the last cut
            self._cut_from, self._refused = self.limit, 1
            self.peak = self.limit
            self.limit = max(float(FLOOR), self.limit * BACKOFF)
            self.epoch += 1
            self.cuts += 1
        else:                                 # more refused of the round that was cut
            self._refused += 1
            taken = self._cut_from - self._refused
            self.peak = max(float(FLOOR), taken + 1)
            self.limit = max(float(FLOOR), min(self.limit, taken))
        if self.window <= FLOOR and retry_after:
            self.paused_until = max(self.paused_until, time.monotonic() + retry_after)
        return cut
