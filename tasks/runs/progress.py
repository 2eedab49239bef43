"""Progress events from the pipeline to whoever shows them (the CLI's rich bar, Prefect logs).

Shards run on worker threads, so listeners must be thread-safe; rich's Progress is.
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

Listener = Callable[..., Any]   # listener(event, run_id, **data)
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
    """event: 'start' (total=), 'done' (status=, item_id=, error=), 'stopped' (reason=),
    'note' (message=: a line worth showing, e.g. what a --limit subset is)."""
    with _lock:
        listeners = list(_listeners)
    for listener in listeners:
        listener(event, run_id, **data)


def note(run_id: str, message: str) -> None:
    emit("note", run_id, message=message)
