"""Provider caps shared by every worker: Prefect global concurrency limits.

`MATHPROBE_MAX_CONCURRENCY_<KIND>` (e.g. `..._OPENAI`) caps one provider's requests in flight.
Inside one process an asyncio semaphore enforces it (`mathprobe.runs.runtime`). Ten workers each
with that cap would send ten times as much to one account, so the deploy scripts create a
Prefect global concurrency limit per provider, `mathprobe-<kind>` (`python -m
mathprobe.runs.limits`), and where one exists on the run's Prefect server every request also holds
one of its slots for the time of the call (`GlobalSlots`: slots leased by the process and lent
to its requests, not asked of the server per request). A local run without a server, or
without the limit, keeps the in-process cap alone.

No wait here is without a bound, and no slot is forgotten: every wait for a slot re-checks
this process's own slots and the server at least every POLL_S; a slot this process stops using
goes back to the server (unless the server said it no longer has it); a killed process's slots
return LEASE_S after its last renewal, where the server runs Prefect's lease repossessor (every
`prefect server start`; not Prefect's ephemeral or test-harness server, which runs no services).
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from mathprobe.backends import provider_limit, registry
from mathprobe.runs.runtime import this_task

LEASE_S = 60.0   # a killed process's slots return to the limit this long after its last renewal
                 # (the least Prefect 3.8.8's server accepts)
HOLD_S = 30.0    # a slot held longer goes back to the server when its request ends ...
POLL_S = 1.0     # the longest wait between two asks for a slot while the limit is full
ROTATE_PAUSE = 1.25   # ... and this process asks again after this many POLL_S, so that
                      # another one polling the full limit gets it (costs this process at
                      # most ~4% of a slot's time when no one else waits)
SAY_WAIT_S = 60.0     # a request waiting this long for a slot says so in the log (and again)

log = logging.getLogger(__name__)
_exists: dict[tuple[str, str], bool] = {}
_pools: dict[tuple[str, str], GlobalSlots] = {}


def limit_name(kind: str) -> str:
    return f"mathprobe-{kind}"


def configured_cap(kind: str) -> int:
    """The provider's cap: $MATHPROBE_MAX_CONCURRENCY_<KIND>, else the built-in default."""
    return provider_limit(f"{kind}:any")


def _server_url() -> str | None:
    """The Prefect server this process talks to; None for the ephemeral, in-process API."""
    from prefect.settings import PREFECT_API_URL

    return PREFECT_API_URL.value() or None


@dataclass(eq=False)
class _Lease:
    id: UUID | None          # None: the server holds no such limit (deleted or inactive)
    since: float
    renewed: float = 0.0     # when the server last confirmed it (monotonic)
    lapsed: bool = False     # given back, gone on the server, or expired: not lent again

    def expired(self, now: float) -> bool:
        """Past its lease by this process's clock: the server may take it back any moment."""
        return self.id is not None and now - (self.renewed or self.since) >= LEASE_S


class GlobalSlots:
    """This process's share of a Prefect global concurrency limit, lent to its requests.

    Holding a slot per request through Prefect's `concurrency()` costs two API calls per
    request, and more while the limit is full (the server answers 423 and a Retry-After to sleep
    out): 60 requests at 2 in flight took 15.5 s of asking instead of 3.5 s. Here the process
    leases slots (one lease per slot, renewed in the background) and lends them: a request takes
    an idle leased slot; else asks the server for one more (without waiting when the process
    already holds some, waiting when it holds none); else waits for a lent one to come back.
    The process never holds more slots than it has requests in flight, so the limit holds over
    all workers together.

    Slots go back to the server when the last batch of requests of this process ends (`batch`,
    on every exit path, which ends once they are back; a request cancelled while asking hands
    a slot granted meanwhile on, or back when no batch runs, and stops asking),
    and a slot held longer than HOLD_S goes back when its request ends, this process asking
    again only after one poll interval, so workers waiting on a full limit get their turn
    during a long run. A killed process's leases lapse LEASE_S after their last renewal. Used
    on the process's shared event loop only.

    A slot counts as held from the moment the server grants it (`_leases`), not from when its
    request resumes: counted late, a request could ask the server in the waiting mode while its
    process already had a slot on the way, and then wait on the server while that slot sat
    idle. Two processes in that state each held one slot of a limit of 2, idle, and waited for
    the other's: a deadlock (issue 25, seen in `make test`). An ask waits on the server only
    while the process holds no slot, and every wait re-checks at least every POLL_S.
    """

    def __init__(self, name: str):
        self.name = name
        self.loop = asyncio.get_running_loop()
        self.leased = 0                   # leases taken so far (what the server was asked for)
        self._leases: set[_Lease] = set()  # held now: granted, not yet given back or gone
        self._idle: list[_Lease] = []
        self._lent: dict[asyncio.Task, _Lease] = {}
        self._batches = 0
        self._asking = False
        self._retry_at = 0.0
        self._changed = asyncio.Event()
        self._renewer: asyncio.Task | None = None
        self._talking: set[asyncio.Future] = set()   # asks and give-backs under way

    def _track(self, fut: asyncio.Future) -> asyncio.Future:
        """Keep a reference to work that outlives its caller (the loop holds tasks weakly)
        until it ends, for `settled`."""
        self._talking.add(fut)
        fut.add_done_callback(self._talking.discard)
        return fut

    async def settled(self) -> None:
        """While no batch runs: until no ask for a slot is under way and every slot given back
        has reached the server (a request cancelled while asking leaves its ask running, and
        a slot the server grants it then goes straight back)."""
        while self._talking and self._batches == 0:
            await asyncio.gather(*self._talking, return_exceptions=True)

    @property
    def held(self) -> int:
        return len(self._leases)

    @contextlib.asynccontextmanager
    async def batch(self) -> AsyncIterator[GlobalSlots]:
        """Hold the process's slots while a batch of requests runs; give them back at the end
        of the last one."""
        self._batches += 1
        try:
            yield self
        finally:
            self._batches -= 1
            if self._batches == 0:
                idle, self._idle = self._idle, []
                await self._give_back(idle)
                await self.settled()             # a cancelled request's ask, too

    async def __aenter__(self) -> GlobalSlots:
        self._lent[this_task()] = await self._take()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        task = this_task()
        lease = self._lent[task]
        try:
            if lease.expired(time.monotonic()):
                await self._give_back([lease])          # the server may have taken it back
            elif not lease.lapsed:
                rotate = time.monotonic() - lease.since > HOLD_S
                if self._batches == 0 or rotate:
                    await self._give_back([lease])      # on the server when this returns
                    if rotate and self._batches:
                        self._retry_at = max(self._retry_at,
                                             time.monotonic() + ROTATE_PAUSE * POLL_S)
                else:
                    self._idle.append(lease)
        finally:
            del self._lent[task]
            self._wake()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def _take(self) -> _Lease:
        """A slot for the current request: an idle one of this process, else one more from the
        server, else the next one a request of this process gives back. Every wait ends within
        POLL_S to look again (no wait here depends on a wake-up alone)."""
        waiting_since = time.monotonic()
        said = waiting_since
        while True:
            now = time.monotonic()
            if self._idle:
                lease = self._idle.pop()
                if not lease.expired(now):
                    return lease
                await self._give_back([lease])         # its renewals failed: the server's now
                continue
            if not self._asking and now >= self._retry_at:
                self._asking = True
                asking = self._track(asyncio.ensure_future(self._lease(wait=self.held == 0)))
                asking.add_done_callback(self._asked)
                try:      # a cancelled request does not lose a slot the server then grants
                    lease = await asyncio.shield(asking)
                except asyncio.CancelledError:
                    asking.add_done_callback(self._orphaned)
                    raise
                if lease is not None:
                    return lease
                continue
            if now - said >= SAY_WAIT_S:
                said = now
                self._track(asyncio.ensure_future(self._say_waiting(now - waiting_since)))
            changed = self._changed
            timeout = POLL_S if self._asking else min(POLL_S, max(0.0, self._retry_at - now))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), timeout)

    async def _say_waiting(self, waited: float) -> None:
        """A request that has waited long for a slot says so, with the server's count."""
        from prefect.client.orchestration import get_client

        try:
            async with get_client() as client:
                limit = await client.read_global_concurrency_limit_by_name(self.name)
            seen = f"the server counts {limit.active_slots} of {limit.limit} in use"
        except Exception as exc:         # noqa: BLE001 - only what the log line says
            seen = f"the server could not be read: {exc}"
        log.warning("a request has waited %.0f s for a slot of %s (this process holds %d; %s)",
                    waited, self.name, self.held, seen)

    def _asked(self, asking: asyncio.Future) -> None:
        self._asking = False
        self._wake()

    def _orphaned(self, asking: asyncio.Future) -> None:
        """A slot granted to a request that was cancelled meanwhile: lent to the next one,
        or given back when no batch is running."""
        if asking.cancelled() or asking.exception() is not None or asking.result() is None:
            return
        if self._batches and not asking.result().lapsed:
            self._idle.append(asking.result())
            self._wake()
        else:
            self._track(asyncio.ensure_future(self._give_back([asking.result()])))

    async def _lease(self, wait: bool) -> _Lease | None:
        """One more slot from the server; when it is full, None (wait=False) or ask again
        after its Retry-After (at most POLL_S) until a slot is free, or until this process
        holds one after all (a request gave one back meanwhile): then None, and the request
        takes that one."""
        import httpx
        from prefect.client.orchestration import get_client

        async with get_client() as client:
            while True:
                try:
                    response = await client.increment_concurrency_slots_with_lease(
                        names=[self.name], slots=1, mode="concurrency", lease_duration=LEASE_S)
                except httpx.HTTPStatusError as exc:
                    if exc.response.status_code != 423:
                        raise
                    pause = min(float(exc.response.headers.get("Retry-After", POLL_S)), POLL_S)
                    if not wait or self._batches == 0 or self.held:   # (or no one needs it)
                        self._retry_at = time.monotonic() + pause
                        return None
                    await asyncio.sleep(pause)
                    if self._batches == 0 or self.held:   # the batch ended meanwhile (no one
                        return None                       # waits for this slot), or a slot
                    continue                              # of this process is free
                body = response.json()
                self.leased += 1
                now = time.monotonic()
                lease = _Lease(UUID(body["lease_id"]) if body.get("limits") else None, now, now)
                self._leases.add(lease)               # held from now on (see the class doc)
                if lease.id is not None and (self._renewer is None or self._renewer.done()):
                    self._renewer = asyncio.get_running_loop().create_task(self._renew())
                return lease

    async def _renew(self) -> None:
        """Renew every held lease well before it lapses, while any is held. A lease the server
        no longer has (404/410: revoked after it expired) is gone, its slot already back in
        the limit; any other failure (the server busy or restarting; Prefect's client has
        retried it) is tried again next round, and a lease past LEASE_S without a renewal is
        not lent again and goes back to the server."""
        import httpx
        from prefect.client.orchestration import get_client

        async with get_client() as client:
            while self.held:
                await asyncio.sleep(LEASE_S / 4)
                for lease in [*self._idle, *self._lent.values()]:
                    if lease.id is None or lease.lapsed:
                        continue
                    try:
                        await client.renew_concurrency_lease(lease.id, lease_duration=LEASE_S)
                        lease.renewed = time.monotonic()
                    except httpx.HTTPStatusError as exc:
                        if exc.response.status_code not in (404, 410):
                            self._renew_failed(lease, exc)
                            continue
                        log.warning("lease on %s lapsed (the server took it back); holding one "
                                    "slot fewer", self.name)
                        lease.lapsed = True
                        self._leases.discard(lease)
                        if lease in self._idle:
                            self._idle.remove(lease)
                    except Exception as exc:       # noqa: BLE001 - tried again next round
                        self._renew_failed(lease, exc)

    def _renew_failed(self, lease: _Lease, exc: BaseException) -> None:
        log.warning("could not renew a lease on %s (%s); trying again", self.name, exc)
        if lease.expired(time.monotonic()) and lease in self._idle:
            self._idle.remove(lease)
            self._track(asyncio.ensure_future(self._give_back([lease])))

    async def _give_back(self, leases: list[_Lease]) -> None:
        """Release leases on the server (also one past its time: the server may still count
        it); a cancelled caller does not stop the release. Prefect's client retries a busy or
        unreachable server; a release that still fails is said, and that slot comes back when
        the server's repossessor finds its lease expired."""
        ids = [lease.id for lease in leases if lease.id is not None and lease in self._leases]
        for lease in leases:
            lease.lapsed = True                 # no longer lent or renewed
            self._leases.discard(lease)
        if not ids:
            return

        async def release() -> None:
            from prefect.client.orchestration import get_client

            async with get_client() as client:
                for lease_id in ids:
                    try:
                        await client.release_concurrency_slots_with_lease(lease_id)
                    except Exception as exc:    # noqa: BLE001 - said; the server expires it
                        log.warning("could not release a slot of %s (%s): it returns to the "
                                    "limit when its lease expires (LEASE_S)", self.name, exc)

        await asyncio.shield(self._track(asyncio.ensure_future(release())))


async def global_slot(kind: str) -> GlobalSlots | None:
    """The provider's global limit, if this process talks to a Prefect server that has one
    (looked up once per process and server): the process's one `GlobalSlots` for it."""
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
    if not _exists[key]:
        return None
    pool = _pools.get(key)
    if pool is None or pool.loop is not asyncio.get_running_loop():   # (a test's new loop)
        pool = _pools[key] = GlobalSlots(limit_name(kind))
    return pool


async def create_limits(kinds: tuple[str, ...] | None = None) -> dict[str, int]:
    """Create or update `mathprobe-<kind>` on the configured Prefect server from the caps, for
    `kinds` (default: every kind reached over the network, where an account limit applies)."""
    from prefect.client.orchestration import get_client

    caps = {limit_name(k): configured_cap(k) for k in kinds or registry.network_kinds()}
    async with get_client() as client:
        for name, cap in caps.items():
            await client.upsert_global_concurrency_limit_by_name(name, cap)
    return caps


if __name__ == "__main__":
    if _server_url() is None:
        raise SystemExit("set PREFECT_API_URL to the Prefect server that should hold the limits")
    for name, cap in asyncio.run(create_limits()).items():
        print(f"global concurrency limit {name}: {cap}")
