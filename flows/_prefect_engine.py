"""A flow run that ends ends at once: Prefect 3.8's flow engine joins its heartbeat thread when
the run finishes, and that thread sleeps in whole seconds between its checks of the stop flag, so
every flow run (every `mathprobe run`, every judge sub-run) waited up to a second, 0.5 s on
average, after its work was done (measured: 0.48 s of a 1.2 s run of 30 chance-baseline
items). The thread is a daemon that emits nothing once stopped, so the engine is asked not to
wait for it, as Prefect's own async engine already does. Heartbeats still go out every
`PREFECT_FLOWS_HEARTBEAT_FREQUENCY` seconds while a run is under way (the server's crash
detection is unchanged).

Imported by the modules that define flows (a module is imported once: the engine's function is
wrapped once)."""
from __future__ import annotations

from collections.abc import Generator
from contextlib import contextmanager
from typing import Any

from prefect import flow_engine

_joined = flow_engine._send_heartbeats


@contextmanager
def _send_heartbeats(engine: Any, join_on_exit: bool = True) -> Generator[None, None, None]:
    with _joined(engine, join_on_exit=False):
        yield


flow_engine._send_heartbeats = _send_heartbeats
