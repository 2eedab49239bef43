"""Slow set-ups started in the background as soon as the tests that need them are collected.

A session's slow set-ups (the team's Prefect server and workers, PostgreSQL, tritonserver, the
server `mathprobe server start` makes, the team sweep) are mostly subprocesses starting: the
test process waits on them with a core to spare. Each is started here in a background thread
once collection shows a test needs it, so it comes up while other tests run; the fixture then
takes what it made (waiting for the rest, or starting it then if nothing did). Whatever was
started stays one per session: the fixture that takes a job is the only user of its result.
What no fixture took (a session stopped early, a job that failed) is handed to its `stop` at
the end of the session. With xdist (`pytest -n 2`) a job is begun at collection only by the
worker that owns it, which also runs its tests (tests/support/workers.py): still one per session.
"""
from __future__ import annotations

import concurrent.futures
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from tests.support import workers

_jobs: dict[str, concurrent.futures.Future] = {}
_stops: dict[str, Callable[[Any], None]] = {}
_taken: set[str] = set()
_pool = concurrent.futures.ThreadPoolExecutor(max_workers=8, thread_name_prefix="early")


def start(name: str, job: Callable[[], Any], stop: Callable[[Any], None] | None = None) -> None:
    """Start `job` in the background unless it was started already; `stop` cleans up its
    result if no fixture takes it."""
    if name not in _jobs:
        _jobs[name] = _pool.submit(_announced, name, job)
        if stop is not None:
            _stops[name] = stop


def begin(name: str, job: Callable[[], Any], stop: Callable[[Any], None] | None = None) -> None:
    """`start`, at collection, in the process that runs the tests needing the job (with xdist,
    the worker that owns it: tests/support/workers.py); elsewhere nothing."""
    if workers.owns(name):
        start(name, job, stop)


def _announced(name: str, job: Callable[[], Any]) -> Any:
    try:
        return job()
    finally:
        workers.announce(name)


def started(name: str) -> bool:
    return name in _jobs


def take(name: str, job: Callable[[], Any]) -> Any:
    """The result of the job (started now if it was not); the caller owns it from here."""
    start(name, job)
    _taken.add(name)
    return _jobs[name].result()


@contextmanager
def held(name: str, job: Callable[[], Any], stop: Callable[[Any], None]) -> Iterator[Any]:
    """`take` the job's result for the length of a fixture, then `stop` it whatever happens."""
    made = take(name, job)
    try:
        yield made
    finally:
        stop(made)


def wait(name: str) -> None:
    """Wait for a job that was started (its result and errors stay for whoever takes it)."""
    if name in _jobs:
        concurrent.futures.wait([_jobs[name]])


def result(name: str) -> Any:
    """A started job's result, without taking it (another job building on it)."""
    return _jobs[name].result()


def needed(items, fixture: str) -> bool:
    """Whether a collected test uses the fixture (directly or through others)."""
    return any(fixture in getattr(item, "fixturenames", ()) for item in items)


def stop_untaken() -> None:
    for name, job in _jobs.items():
        if name in _taken or name not in _stops:
            continue
        try:
            result = job.result()
        except Exception:               # nothing was made, or it failed half-way
            continue
        _stops[name](result)
