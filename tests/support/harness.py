"""The session's one `prefect_test_harness`, started as soon as collection shows a test needs
it and held in a thread of its own until the session ends.

Starting the harness's API server takes 10-25 s on 2 cores, most of it a subprocess coming up;
entered by the first test that needs it, the whole session waited for it. Entered here in a
background thread while the tests that need no Prefect run, it is usually up before it is
needed. The harness sets Prefect's process-global settings context (that is how it reaches
contexts copied before it started), so flows and clients in the test thread use its server as
if it had been entered there; it is left in the thread that entered it (its settings tokens
belong to that thread's context)."""
from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_ready = threading.Event()
_leave = threading.Event()
_thread: threading.Thread | None = None
_failure: BaseException | None = None


def _hold() -> None:
    global _failure
    try:
        from prefect.testing.utilities import prefect_test_harness

        with prefect_test_harness(server_startup_timeout=120):
            _up()
            _leave.wait()
    except BaseException as exc:           # noqa: BLE001 - handed to the fixture that waits
        _failure = exc
    finally:
        _up()


def _up() -> None:
    """Up (or failed): the fixture may go on."""
    _ready.set()


class _LoggerDict(dict):
    """logging's name -> logger dict, iterated over a snapshot. pytest (9.2,
    `catching_logs.__enter__`, at every test's set-up) walks `loggerDict.values()` without
    logging's lock; the harness thread creates loggers (`getLogger`, under the lock) while it
    starts, and once made a test's set-up fail with "dictionary changed size during
    iteration". A copy of the values is taken in one step under the GIL."""

    def values(self):
        return list(super().values())

    def items(self):
        return list(super().items())

    def keys(self):
        return list(super().keys())

    def __iter__(self):
        return iter(list(super().keys()))


def start() -> None:
    """Start entering the harness in the background (once a session)."""
    global _thread
    if _thread is None:
        manager = logging.Logger.manager
        with logging._lock:         # noqa: SLF001 - the lock getLogger takes
            if not isinstance(manager.loggerDict, _LoggerDict):
                manager.loggerDict = _LoggerDict(manager.loggerDict)
        _thread = threading.Thread(target=_hold, name="prefect-harness", daemon=True)
        _thread.start()


@contextmanager
def held() -> Iterator[None]:
    """The harness for the length of a session fixture (started now if it was not)."""
    start()
    _ready.wait()
    if _failure is not None:
        raise RuntimeError("the Prefect test harness did not start") from _failure
    try:
        yield
    finally:
        stop()


def stop() -> None:
    """Leave the harness (drains Prefect's log and event workers, stops its server)."""
    if _thread is not None and _thread.is_alive():
        _leave.set()
        _thread.join(timeout=120)
