"""Progress events from the pipeline to whoever shows them (the CLI's rich bar, Prefect logs),
and what a run's requests are doing now (`activity`: in flight, waiting to retry, rate-limited),
so that a run the server holds back shows it instead of looking hung.

Shards run on worker threads, so listeners must be thread-safe; rich's Progress is.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Listener = Callable[..., Any]   # listener(event, run_id, **data)
# the `extra` of a Prefect log line saying what an event already says (a note, a stop), so a
# console that shows the events (the command line's bar) leaves it out (mathprobe.cli.console_logs)
SHOWN = {"mathprobe_shown": True}
_listeners: list[Listener] = []
_lock = threading.Lock()


def subscribe(listener: Listener) -> None:
    with _lock:
        _listeners.append(listener)


def unsubscribe(listener: Listener) -> None:
    with _lock:
        if listener in _listeners:
            _listeners.remove(listener)


def emit(event: str, run_id: str, **data: Any) -> None:
    """event: 'start' (total=; the run's `activity` starts afresh), 'done' (status=, item_id=,
    error=), 'stopped' (reason=), 'note' (message=: a line worth showing, e.g. what a --limit
    subset is)."""
    with _lock:
        if event == "start":
            _activities[run_id] = Activity()
        listeners = list(_listeners)
    for listener in listeners:
        listener(event, run_id, **data)


def note(run_id: str, message: str) -> None:
    emit("note", run_id, message=message)


@dataclass
class Activity:
    """What a run's requests are doing now (or its batches: the state the service last gave).
    Written on the request loop (mathprobe.runs.
    request_slots), read whenever progress is drawn (the bar ten times a second, the Prefect
    artifact every second): plain counters, no event per change."""
    in_flight: int = 0          # attempts the server is answering now
    retries: int = 0            # attempts after a request's first
    overloaded: int = 0         # answers 429 / 503 / 529: the server wants fewer requests
    window: Any = None          # the run's AdaptiveLimit (its window and ceiling), if any
    batch: str = ""             # its open batches and their state (--batch: runs/batching.py)
    waits: dict[int, float] = field(default_factory=dict)   # request -> when its wait ends

    @property
    def waiting(self) -> int:
        """Requests waiting out a Retry-After or a backoff before their next attempt."""
        return len(self.waits)

    def line(self) -> str:
        """One short line, e.g. `96 in flight (limit 96 of 256) · 40 rate-limited · 12 waiting
        to retry (up to 8 s)`; empty before any request."""
        parts = [self.batch] if self.batch else []
        if self.in_flight or self.window is not None:
            limit = ("" if self.window is None else
                     f" (limit {self.window.window} of {self.window.ceiling})")
            parts.append(f"{self.in_flight} in flight{limit}")
        if self.overloaded:
            parts.append(f"{self.overloaded} rate-limited")
        if self.retries:
            parts.append(f"{self.retries} retries")
        waits = list(self.waits.values())
        if waits:
            left = max(0.0, max(waits) - time.monotonic())
            digits = 0 if left >= 10 else 1
            parts.append(f"{len(waits)} waiting to retry (up to {left:.{digits}f} s)")
        return " · ".join(parts)


_activities: dict[str, Activity] = {}


def activity(run_id: str) -> Activity:
    """The run's Activity (the same object until its next 'start' event)."""
    with _lock:
        return _activities.setdefault(run_id, Activity())
