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
  * shrinks by BACKOFF at a 429 / 503 / 529, at most once per round trip and for a request
    sent after the last cut (one sent before it says nothing new); each further 429 to the
    round that was cut counts one request more than the server takes (after a round that
    overshot by many, the window lands where the server's limit is, not a mere 10% lower;
    a quota that is used up drives it to the floor within a few fast 429s);
  * undoes a cut that did not help: a round trip after it, if the share of attempts refused
    went on as before, the 429s were not about capacity (random ones, one per request, a
    quota shared with others: mathprobe.runs.overload_signs) and cutting for each had
    collapsed the window to 1-8 of 64 (issue 33); their share becomes the background that
    later 429s must clearly exceed before they cut again;
  * holds new requests back, the whole run's, for the server's Retry-After when the server
    refuses most of what it is sent (or nothing is answered) and at the floor (a
    time-based quota: sending more only collects more 429s).
A request waiting out a retry gives its slot back (so the server sees the window, not fewer),
and takes one again before the round of new requests (`acquire(retry=True)`), so started
items finish first.

It only decides how many; `mathprobe.runs.asking` holds the slot around each attempt, and
`mathprobe.backends.retry` reports each attempt's outcome. One window per run, shared by its shards
on the process's event loop; the provider's semaphore and Prefect global limit still bound
what all runs send together (perf/adaptive.py measures it against fixed concurrencies,
and what 429s that are not about capacity cost).
"""
from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import math
import time
from collections import deque
from collections.abc import Iterator

from mathprobe.runs.overload_signs import Outcomes

START = 16        # the first window (or the ceiling, if lower): inspect_ai starts at 20
BACKOFF = 0.9     # the window after an overload, as a fraction of what it was
MAX_STEP = 32     # the most the window grows in one round trip
PLATEAU = 0.25    # growth a round trip near the window that was overloaded last
FLOOR = 1
JUDGE_AFTER = 16  # attempts sent after a cut before the cut is judged ...
JUDGE_BY = 4      # ... and round trips after it within which no other cut comes unjudged
BACKGROUND_MARGIN = 0.15   # refused beyond the background that cuts again
REFUSING = 0.5    # refused of what was sent since the last cut: cut again, and wait out the
STORM = 6         # Retry-After (the whole run), once this many are


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
        self.undone = 0                  # cuts found not about capacity, and undone
        self._cut_at = float("-inf")     # when it was cut last (monotonic seconds)
        self._cut_from = 0.0             # the window before the last cut ...
        self._refused = 0                # ... and the 429s to requests sent under it
        self._judged: tuple[int, float, float | None] | None = None  # the last cut, to judge
        self._unhelped: tuple[float, float | None] | None = None  # before a cut that did not help
        self.background = 0.0            # the share refused that is not about capacity
        self.signs = Outcomes()          # the attempts' outcomes (mathprobe.runs.overload_signs)
        self.paused_until = 0.0          # new requests wait until then (monotonic seconds)
        self._held_back = False          # ... because the server answered nothing lately
        self._sent = self._refused_now = 0   # attempts sent since the last cut, and refused
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
            self._sent += 1
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
                self._sent += 1
                fut.set_result(None)
        while self._new and self._new[0][2].done():
            heapq.heappop(self._new)
        while not self._retries and self._new and self._free(False):
            fut = heapq.heappop(self._new)[2]    # new requests wait behind the retries
            if not fut.done():
                self.held += 1
                self._sent += 1
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
    def answered(self, epoch: int | None = None, sent_at: float | None = None) -> None:
        """An attempt was answered (not overloaded): its slot began in `epoch`, it was sent at
        `sent_at` (monotonic). Noted (the round trip, what the server takes); then grow, if the
        window is what holds the run back (a sender has requests left, requests wait for a
        slot, or all slots are taken) and the run is not waiting out a Retry-After."""
        now = time.monotonic()
        self.signs.add(self.epoch if epoch is None else epoch, sent_at, False, now)
        self._judge_cut(now)
        if not self.adaptive or now < self.paused_until or not (
                self.senders or self._new or self._retries or self.held >= self.window):
            return
        if self._held_back:            # answered again after a quota's wait: what the window
            self._held_back = False    # learned then is no capacity; find it again
            self.peak = None
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

    def overloaded(self, epoch: int, retry_after: float | None = None,
                   sent_at: float | None = None) -> bool:
        """A 429 / 503 / 529 to an attempt whose slot began in `epoch`, sent at `sent_at`.

        Cut the window by BACKOFF for the first sign from a request sent since the last cut,
        at most once per round trip and not before the last cut is judged (`_judge_cut`; at
        most JUDGE_BY round trips), and, while refusals that are not about capacity come
        (`background`), only when clearly more are refused than those (BACKGROUND_MARGIN);
        but at once when most of what was sent since the last cut is refused (a server that
        is full, or a used-up quota: a storm of 429s).
        Until the round that was cut is judged, each further refusal of it counts one request
        more than the server takes (a round that overshot by many lands where the server's
        limit is). Hold new requests for the server's Retry-After (the whole run, not only the
        request) when it refuses most of what it is sent, or at the floor. Returns whether
        the window was cut."""
        now = time.monotonic()
        self.signs.add(epoch, sent_at, True, now)
        self._judge_cut(now)
        if not self.adaptive:
            return False
        cut = False
        if epoch == self.epoch:
            self._refused_now += 1
        # most of what was sent since the last cut refused at once: the server is full (or
        # its quota used up), whatever the round trip says
        storm = self._refused_now >= STORM and self._refused_now >= REFUSING * self._sent
        trips = (now - self._cut_at) / self.signs.trip()
        if epoch == self.epoch and (storm or trips >= 1 and (
                self._judged is None or trips >= JUDGE_BY) and self._above_background(now)):
            self._judged = (self.epoch, self.limit, self.peak)
            self._cut_from, self._refused = self.limit, 1
            self.peak = self.limit
            self.limit = max(float(FLOOR), self.limit * BACKOFF)
            self.epoch += 1
            self.cuts += 1
            self._cut_at = now
            self._sent = self._refused_now = 0
            cut = True
        elif epoch == self.epoch - 1 and self._judged is not None and not self.background:
            self._refused += 1                # more refused of the round that was cut
            taken = self._cut_from - self._refused
            self.peak = max(float(FLOOR), taken + 1)
            self.limit = max(float(FLOOR), min(self.limit, taken))
        taking = self.signs.rtt is None or self.signs.answered_since(now - 2 * self.signs.trip())
        if retry_after and (self.window <= FLOOR or storm or not taking):
            self.paused_until = max(self.paused_until, now + retry_after)
            self._held_back = self._held_back or not taking
        return cut

    def _above_background(self, now: float) -> bool:
        """Whether the last round trip's share refused is clearly above the background: by
        BACKGROUND_MARGIN, and by three standard errors of a share of that many attempts."""
        base = self.background
        if base == 0.0:
            return True
        recent = self.signs.recent(now)
        noise = 3 * math.sqrt(base * (1 - base) / max(1, recent.n))
        return recent.fraction > base + max(BACKGROUND_MARGIN, noise)

    def _judge_cut(self, now: float) -> None:
        """Once JUDGE_AFTER attempts sent since the last cut have all come back: did the cut
        lower the share refused (beyond the background) against the round trip before it?
        Two cuts in a row that did not (one may have been too small to get under what the
        server takes) say the refusals were not about capacity: both are undone, and their
        share becomes the background, which later cuts must clearly exceed. A round whose
        attempts were all refused is never undone (a used-up quota: the window stays down and
        the run waits out the Retry-After)."""
        if self._judged is None:
            return
        epoch, limit, peak = self._judged
        after = self.signs.complete(now, epoch + 1)
        if after.n < JUDGE_AFTER:
            return
        before = self.signs.complete(now, epoch, since=self._cut_at - self.signs.trip())
        self._judged = None
        base = self.background
        pooled = (after.refused + before.refused) / max(1, after.n + before.n)
        noise = 2 * math.sqrt(pooled * (1 - pooled) * (1 / after.n + 1 / max(1, before.n)))
        if after.refused < 2 or after.refused == after.n or after.fraction >= REFUSING or \
                after.fraction < before.fraction - noise:
            self._unhelped = None                 # it helped (or all refused): about capacity
            if after.fraction < base:
                self.background = after.fraction
            return
        if self._unhelped is None:                # once: perhaps too small a cut
            self._unhelped = (limit, peak)
            return
        limit, peak = self._unhelped
        self._unhelped = None
        self.limit = max(self.limit, min(float(self.ceiling), limit))
        self.peak = peak
        self.background = max(base, after.fraction)
        self.undone += 1
        self._hand_over()
