"""Two changes to Prefect 3.8's client side, each measured, both here so a Prefect upgrade has one
module to check.

1. A flow run that ends ends at once: Prefect 3.8's flow engine joins its heartbeat thread when
the run finishes, and that thread sleeps in whole seconds between its checks of the stop flag, so
every flow run (every `mathprobe run`, every judge sub-run) waited up to a second, 0.5 s on
average, after its work was done (measured: 0.48 s of a 1.2 s run of 30 chance-baseline
items). The thread is a daemon that emits nothing once stopped, so the engine is asked not to
wait for it, as Prefect's own async engine already does. Heartbeats still go out every
`PREFECT_FLOWS_HEARTBEAT_FREQUENCY` seconds while a run is under way (the server's crash
detection is unchanged).

2. A Prefect client is made without building a TLS context: every `get_client()` (the flow engine's,
its event loop's, the progress artifact's, the run's global concurrency slot: four to six
before a run's first model request) built a verified context from certifi's bundle, 44 ms of
CPU each on this workplace's machines, about a quarter of a warm command's time to its first
request, and more on a loaded machine where those threads contend for the cores. The client's
module now makes the verified context once per CA file (the warm runner makes it before it
serves, so each command's copy inherits it). Only that call is kept: a context Prefect changes
after making it (PREFECT_API_TLS_INSECURE_SKIP_VERIFY) is made afresh each time, as before; the
one kept is never changed by Prefect, and its clients all share Prefect's one HTTP/2 setting.

Imported by the modules that define flows (a module is imported once: each change is made
once)."""
from __future__ import annotations

import functools
import ssl
import types
from collections.abc import Generator
from contextlib import contextmanager
from typing import Any

from prefect import flow_engine
from prefect.client import orchestration

_joined = flow_engine._send_heartbeats


@contextmanager
def _send_heartbeats(engine: Any, join_on_exit: bool = True) -> Generator[None, None, None]:
    with _joined(engine, join_on_exit=False):
        yield


flow_engine._send_heartbeats = _send_heartbeats


@functools.lru_cache(maxsize=8)
def verified_context(cafile: str) -> ssl.SSLContext:
    """The verified TLS context for `cafile`, made once."""
    return ssl.create_default_context(cafile=cafile)


def _create_default_context(*args: Any, **kwargs: Any) -> ssl.SSLContext:
    if not args and set(kwargs) == {"cafile"} and kwargs["cafile"]:
        return verified_context(str(kwargs["cafile"]))
    return ssl.create_default_context(*args, **kwargs)


# the client module's view of `ssl`: the module itself, but for its one call that makes contexts
orchestration.ssl = types.SimpleNamespace(  # type: ignore[assignment]
    **{**{name: getattr(ssl, name) for name in dir(ssl) if not name.startswith("__")},
       "create_default_context": _create_default_context})
