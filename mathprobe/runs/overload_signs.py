"""What a run's recent attempts say about the server: the round trip, and how many it refused.

The adaptive window (mathprobe/runs/adaptive_limit.py) must tell a 429 about capacity (the
window is larger than what the server takes) from one that is not (a random 429, one per
request, a quota shared with others): cutting for the latter collapsed the window to 1-8 of
64 and a WE-MATH run took 260 s instead of 15 (issue 33). Capacity refusals stop when the
window is cut below what the server takes; the others go on at the same rate whatever the
window. So each attempt's outcome is kept with when it was sent and in which of the window's
epochs (cuts so far), and the window compares the share refused before and after a cut.

A share is counted over attempts sent at least COMPLETE_TRIPS round trips ago (`complete`):
refusals come back at once and answers only after the server's time, so the share over what
came back lately counts the refusals of the last round trip and not yet its answers.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass

FIRST_TRIP_S = 1.0        # the round trip until one is measured
COMPLETE_TRIPS = 2.0      # attempts sent this many round trips ago have all come back
KEEP = 4096               # outcomes kept (the last ones)


@dataclass(frozen=True)
class Share:
    """Attempts counted, how many were refused."""
    n: int = 0
    refused: int = 0

    @property
    def fraction(self) -> float:
        return self.refused / self.n if self.n else 0.0


class Outcomes:
    """The last KEEP attempts' outcomes: (epoch, sent at, came back at, refused), oldest
    first; and the smoothed round trip of the answered ones. On the window's event loop
    only."""

    def __init__(self):
        self.rtt: float | None = None
        self._log: deque[tuple[int, float, float, bool]] = deque(maxlen=KEEP)

    def trip(self) -> float:
        return self.rtt if self.rtt is not None else FIRST_TRIP_S

    def add(self, epoch: int, sent_at: float | None, refused: bool, now: float) -> None:
        sent = now if sent_at is None else sent_at
        if not refused and sent_at is not None:
            took = max(0.0, now - sent_at)
            self.rtt = took if self.rtt is None else 0.8 * self.rtt + 0.2 * took
        self._log.append((epoch, sent, now, refused))

    def complete(self, now: float, epoch: int | None = None, since: float | None = None
                 ) -> Share:
        """The share refused of the attempts sent COMPLETE_TRIPS round trips before `now` or
        earlier (and, given, in `epoch`, or sent at `since` or later)."""
        until = now - COMPLETE_TRIPS * self.trip()
        n = refused = 0
        for e, sent, _, was_refused in self._log:
            if sent > until or (since is not None and sent < since) or (
                    epoch is not None and e != epoch):
                continue
            n += 1
            refused += was_refused
        return Share(n, refused)

    def recent(self, now: float) -> Share:
        """The share refused of the last round trip's attempts that have all come back."""
        return self.complete(now, since=now - (COMPLETE_TRIPS + 1) * self.trip())

    def answered_since(self, since: float) -> bool:
        return any(not refused and back >= since for _, _, back, refused in self._log)
