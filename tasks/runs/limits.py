"""Provider caps shared by every worker: Prefect global concurrency limits.

`MATHPROBE_MAX_CONCURRENCY_<KIND>` (e.g. `..._OPENAI`) caps one provider's requests in flight.
Inside one process an asyncio semaphore enforces it (`tasks.runs.runtime`). Ten workers each
with that cap would send ten times as much to one account, so the deploy scripts create a
Prefect global concurrency limit per provider, `mathprobe-<kind>` (`python -m
tasks.runs.limits`), and where one exists on the run's Prefect server every request also holds
one of its slots for the time of the call. A local run without a server, or without the limit,
keeps the in-process cap alone.
"""
from __future__ import annotations

import asyncio
from typing import Any

from tasks.backends import provider_limit

# Providers reached over the network: the ones an account limit applies to.
NETWORK_PROVIDERS = ("openai", "anthropic", "triton")

_exists: dict[tuple[str, str], bool] = {}


def limit_name(kind: str) -> str:
    return f"mathprobe-{kind}"


def configured_cap(kind: str) -> int:
    """The provider's cap: $MATHPROBE_MAX_CONCURRENCY_<KIND>, else the built-in default."""
    return provider_limit(f"{kind}:any")


def _server_url() -> str | None:
    """The Prefect server this process talks to; None for the ephemeral, in-process API."""
    from prefect.settings import PREFECT_API_URL

    return PREFECT_API_URL.value() or None


class GlobalSlot:
    """An async context manager holding one slot of a Prefect global concurrency limit while
    in use; one object serves every request (each request runs in its own asyncio task)."""

    def __init__(self, name: str):
        self.name = name
        self._held: dict[asyncio.Task, Any] = {}

    async def __aenter__(self) -> "GlobalSlot":
        from prefect.concurrency.asyncio import concurrency

        cm = concurrency(self.name, occupy=1, strict=True)
        await cm.__aenter__()
        self._held[asyncio.current_task()] = cm
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self._held.pop(asyncio.current_task()).__aexit__(*exc)


async def global_slot(kind: str) -> GlobalSlot | None:
    """The provider's global limit, if this process talks to a Prefect server that has one
    (looked up once per process and server)."""
    url = _server_url()
    if url is None:
        return None
    key = (url, kind)
    if key not in _exists:
        from prefect.client.orchestration import get_client
        from prefect.exceptions import ObjectNotFound

        try:
            async with get_client() as client:
                await client.read_global_concurrency_limit_by_name(limit_name(kind))
            _exists[key] = True
        except ObjectNotFound:
            _exists[key] = False
    return GlobalSlot(limit_name(kind)) if _exists[key] else None


async def create_limits(kinds: tuple[str, ...] = NETWORK_PROVIDERS) -> dict[str, int]:
    """Create or update `mathprobe-<kind>` on the configured Prefect server from the caps."""
    from prefect.client.orchestration import get_client

    caps = {limit_name(k): configured_cap(k) for k in kinds}
    async with get_client() as client:
        for name, cap in caps.items():
            await client.upsert_global_concurrency_limit_by_name(name, cap)
    return caps


if __name__ == "__main__":
    if _server_url() is None:
        raise SystemExit("set PREFECT_API_URL to the Prefect server that should hold the limits")
    for name, cap in asyncio.run(create_limits()).items():
        print(f"global concurrency limit {name}: {cap}")
