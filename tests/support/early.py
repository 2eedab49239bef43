"""Slow set-ups started in the background, once per test process, and taken by their fixtures.

A session's slow set-ups (the Prefect test harness, PostgreSQL, the team's Prefect server and
workers, tritonserver, the server `mathprobe server start` makes, the team sweep) are mostly
subprocesses starting: the test process waits on them with a core to spare. A job started here
runs in a background thread; the fixture then takes what it made (waiting for the rest, or
starting it then if nothing did), so set-ups that do not depend on each other come up side by
side (PostgreSQL beside the team's server, the sweep while the team's other tests wait). The
fixture that takes a job is the only user of its result. What no fixture took (a session stopped
early, a job that failed) is handed to its `stop` at the end of the session.

With pytest-xdist the tests that share a set-up form one `xdist_group` (tests/conftest.py), so
`--dist loadgroup` runs them in one process, which makes the set-up once.
"""
from __future__ import annotations

import concurrent.futures
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

_jobs: dict[str, concurrent.futures.Future] = {}
_stops: dict[str, Callable[[Any], None]] = {}
_taken: set[str] = set()
_pool = concurrent.futures.ThreadPoolExecutor(max_workers=8, thread_name_prefix="early")


def start(name: str, job: Callable[[], Any], stop: Callable[[Any], None] | None = None) -> None:
    """Start `job` in the background unless it was started already; `stop` cleans up its
    result if no fixture takes it."""
    if name not in _jobs:
        _jobs[name] = _pool.submit(job)
        if stop is not None:
            _stops[name] = stop


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
