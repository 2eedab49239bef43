"""Asking a run's requests through a service's batch API (--batch, docs/batches.md): half the
price, answers within 24 hours.

The run's requests are built as for direct calls (the same `Request`s, the same bodies:
mathprobe.backends.batches), cut into batches under the service's limits and submitted; every
submission is written to the store before the service is asked, and its batch id as soon as
the service answers (`batches`, `batch_requests`). Then the run waits: it looks at its open
batches, ever less often (from FIRST_POLL_S up to MATHPROBE_BATCH_POLL_S, 60 s by default),
and stores each ended batch's results as it reads them, in the transaction that marks their
requests answered. Requests a batch did not answer (it expired, was canceled, or the service
failed on them) go in a new batch, up to MAX_ATTEMPTS batches; what a service refuses (HTTP
400) is stored `infra_failed`, as a direct call's would be, for --retry-failed.

Whatever stops the command (Ctrl-C, kill -9, a reboot), the same command later finds the
run's open batches in the store: it submits none of their requests again, looks for a
submission whose id it never stored (the service's list), and resumes waiting. While it
waits, the flow run is paused (`Waiting`: tasks/batches.py), which the Prefect UI shows."""
from __future__ import annotations

import asyncio
import concurrent.futures
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from mathprobe.backends import get_batches, prices
from mathprobe.backends.batches import (
    BatchState,
    ServiceError,
    chunked,
    custom_id,
    limits_of,
)
from mathprobe.backends.secrets import redact
from mathprobe.errors import MathprobeError
from mathprobe.items import Completion, Request
from mathprobe.runs import progress, runtime
from mathprobe.runs.samples import Ask
from mathprobe.store import Store

FIRST_POLL_S = 1.0         # the first look at a batch, doubled each time up to ...
POLL_S = 60.0              # ... this (MATHPROBE_BATCH_POLL_S)
MAX_ATTEMPTS = 4           # batches one request goes in before it is stored infra_failed
STORE_EVERY = 500          # results stored per transaction as they are read


class Waiting(Protocol):
    """Whoever shows that the run waits on the service (the flow run, paused)."""

    def begin(self, message: str) -> None: ...

    def end(self) -> None: ...

    def stopped(self) -> str | None:
        """Why to stop waiting now (the flow run was cancelled), or None."""


class NotShown:
    """No one to tell (the command line's `judge`: its progress bar says it)."""

    def begin(self, message: str) -> None:
        pass

    def end(self) -> None:
        pass

    def stopped(self) -> str | None:
        return None


class StoppedWaiting(MathprobeError):
    """The run stopped waiting for its batches (they stay at the service)."""


def check_none_waiting(store: Store, run_id: str) -> None:
    """A run asked directly must not ask again what waits in its batches (paid for already):
    the one-line error, saying how to collect them."""
    waiting = store.pending_in_batches(run_id)
    if waiting:
        raise MathprobeError(still_waiting(run_id, len(waiting)))


def still_waiting(run_id: str, n: int) -> str:
    return (f"run {run_id}: {n} request(s) wait in its batches at the service (paid for "
            "already); run the same command with --batch to collect them, then without it if "
            "you like")


def poll_s() -> float:
    from mathprobe import settings

    value = settings.get("MATHPROBE_BATCH_POLL_S")
    return value if value is not None else POLL_S


@dataclass
class BatchRun:
    """One run's requests asked through its model's batch API. `requests_for(asks)` builds the
    requests of those (item id, sample) pairs (lazily: images are read as each batch is cut;
    a run of one sample asks sample 0 only); `params` are
    what every request of the run is sent (to read replies as a direct call does); `adjust`
    turns a read reply into what is stored (a judge's: no verdict -> judge_failed)."""
    store: Store
    run_id: str
    spec: str                                        # BACKEND:NAME
    params: dict[str, Any]
    requests_for: Callable[[list[Ask]], Iterable[Request]]
    adjust: Callable[[Request, Completion], Completion] | None = None
    waiting: Waiting = field(default_factory=NotShown)
    on_done: Callable[[str, Completion], Any] | None = None
    timeout_s: float | None = None
    counts: dict[str, int] = field(default_factory=dict)

    def ask(self, asks: list[Ask]) -> dict[str, int]:
        """Submit what is not in a batch yet, wait for every open batch of the run, store the
        results; counts by status (plus `rebatched`). From any thread: on the shared loop."""
        try:
            return runtime.run(self._ask(asks), group=self.run_id)
        except concurrent.futures.CancelledError:
            return {"interrupted": len(asks)}

    async def _ask(self, asks: list[Ask]) -> dict[str, int]:
        client = get_batches(self.spec, timeout_s=self.timeout_s)
        if hasattr(client, "claimed"):
            client.claimed = self.store.batch_ids
        try:
            return await self._ask_with(client, asks)
        except ServiceError as exc:      # the service unreachable for the whole retry policy
            raise MathprobeError(f"--batch: {client.kind} did not answer ({redact(str(exc))}); "
                                 "nothing is lost: run the same command again to carry "
                                 "on") from None
        finally:
            await asyncio.to_thread(self.waiting.end)
            progress.activity(self.run_id).batch = ""
            await client.aclose()

    async def _ask_with(self, client, asks: list[Ask]) -> dict[str, int]:
        self._same_service(client)
        await self._recover(client)
        waiting = self.store.pending_in_batches(self.run_id)
        if waiting:
            self._note(f"{len(waiting)} request(s) already in batches at {client.kind}: "
                       "waiting for them, submitting none of them again")
        await self._submit(client, [a for a in asks if a not in waiting], attempt=1)
        await self._wait(client)
        return self.counts

    # -- submitting ---------------------------------------------------------------------------
    def _same_service(self, client) -> None:
        for b in self.store.open_batches(self.run_id):
            if b["endpoint"] != client.endpoint:
                raise MathprobeError(
                    f"run {self.run_id}: its batch {b['batch_id'] or b['submission']} was sent "
                    f"to {b['endpoint']}, but this command would ask {client.endpoint}: set the "
                    "base URL back (OPENAI_BASE_URL, ANTHROPIC_BASE_URL) to collect it")

    async def _recover(self, client) -> None:
        """Submissions whose batch id was never stored (the command stopped while the service
        took them): found at the service, or void (their requests asked again)."""
        for b in self.store.open_batches(self.run_id):
            if b["batch_id"] is not None:
                continue
            since = b["submitted_at"].replace(tzinfo=UTC)
            found = await client.find(b["submission"], since, b["n_requests"])
            if found is not None:
                self.store.submission_accepted(b["submission"], found, None)
                self._note(f"batch {found}: found at {client.kind}, submitted by a command that "
                           "stopped before it stored the id; waiting for it")
            else:
                self.store.submission_void(b["submission"], "not accepted by the service: the "
                                           "command stopped while submitting it")
                self._note(f"a submission of {b['n_requests']} request(s) that a stopped "
                           f"command never completed is not at {client.kind}: asked again")

    async def _submit(self, client, asks: list[Ask], attempt: int,
                      replaces: dict[Ask, tuple[str, str]] | None = None) -> None:
        """Submit the requests of `asks` in batches under the client's limits, each written to
        the store first; `replaces`: (item, sample) -> (submission, custom_id) it is asked
        again for. (A sample's request hash differs from every other's, and so its custom_id.)"""
        if not asks:
            return

        def entries():
            for req in self.requests_for(asks):
                cid = custom_id(req.item_id, req.request_hash)
                entry, size = client.entry(cid, req)
                yield (entry, (cid, req.item_id, req.request_hash, req.sample)), size

        for chunk in chunked(entries(), limits_of(client.limits)):
            rows = [row for _, row in chunk]
            key = uuid.uuid4().hex
            old: dict[str, list[str]] = {}
            for _, item_id, _, sample in rows:
                if replaces and (item_id, sample) in replaces:
                    sub, cid = replaces[item_id, sample]
                    old.setdefault(sub, []).append(cid)
            self.store.open_submission(key, self.run_id, client.kind, self.spec,
                                       client.endpoint, attempt, rows, old)
            try:
                batch_id, file_id = await client.submit([e for e, _ in chunk], key)
            except ServiceError as exc:
                if exc.refused:           # refused for certain: nothing was taken
                    self.store.submission_void(key, f"refused: {exc}")
                raise MathprobeError(
                    f"--batch: submitting a batch of {len(rows)} request(s) to {client.kind} "
                    f"failed: {redact(str(exc))}" + ("" if exc.refused else
                                                     "; run the same command again: it looks "
                                                     "for the batch before submitting it again")
                ) from None
            self.store.submission_accepted(key, batch_id, file_id)
            again = f" (again: attempt {attempt} of {MAX_ATTEMPTS})" if attempt > 1 else ""
            self._note(f"batch {batch_id}: {len(rows)} request(s) submitted to "
                       f"{client.kind}{again}")

    # -- waiting and collecting ---------------------------------------------------------------
    async def _wait(self, client) -> None:
        interval, longest = min(FIRST_POLL_S, poll_s()), poll_s()
        paused = False
        said: dict[str, str] = {}             # batch -> the status last said
        while True:
            still: list[tuple[dict, BatchState]] = []
            moved = False
            open_batches = self.store.open_batches(self.run_id)
            if not open_batches:
                return
            for b in open_batches:
                try:
                    st = await client.state(b["batch_id"])
                except ServiceError as exc:
                    self._note(f"batch {b['batch_id']}: could not ask {client.kind} how it "
                               f"stands ({redact(str(exc))}); asking again in {interval:.0f} s")
                    still.append((b, BatchState(b["status"], False, b["n_requests"],
                                                b["n_done"] or 0, b["n_failed"] or 0)))
                    continue
                self.store.batch_polled(b["submission"], st.status, st.done, st.failed,
                                        st.ended, st.error)
                if said.get(b["batch_id"]) != st.status:
                    said[b["batch_id"]] = st.status
                    self._note(f"batch {b['batch_id']}: {st.line()}"
                               + (f" ({st.error})" if st.error else ""))
                if st.ended:
                    progress.activity(self.run_id).batch = (f"storing batch {b['batch_id']}'s "
                                                            "results")
                    try:
                        await self._collect(client, b, st)
                        moved = True
                        continue
                    except ServiceError as exc:     # what was stored stays; read the rest later
                        self._note(f"batch {b['batch_id']}: could not read its results "
                                   f"({redact(str(exc))}); reading them again in "
                                   f"{interval:.0f} s")
                still.append((b, st))
            if not still:
                continue                  # all ended; any batched again is polled now
            line = shown(still)
            progress.activity(self.run_id).batch = line
            if moved and paused:          # a new batch was submitted: a new wait begins
                await asyncio.to_thread(self.waiting.end)
                paused = False
            if not paused:                # (the waiting's calls block: off the loop)
                await asyncio.to_thread(
                    self.waiting.begin,
                    f"waiting for {line} at {client.kind} (answers within 24 h at half the "
                    "price); this flow run resumes by itself when they end. If its process "
                    "stops, run the same command again: it collects them, submitting nothing "
                    "twice")
                paused = True
            why = await asyncio.to_thread(self.waiting.stopped)
            if why:
                raise StoppedWaiting(f"run {self.run_id}: stopped waiting for its batches "
                                     f"({why}); they stay at {client.kind}: run the same "
                                     "command again to collect them")
            await asyncio.sleep(interval)
            interval = min(interval * 2, longest)

    async def _collect(self, client, b: dict, st: BatchState) -> None:
        """Store an ended batch's results as they are read; batch again what it did not
        answer; then mark it collected. Safe to run again (a command stopped half-way): only
        requests still pending are taken."""
        pending = self.store.batch_pending(b["submission"])
        started = b["submitted_at"].replace(tzinfo=UTC)
        took = (datetime.now(UTC) - started).total_seconds()
        again: dict[str, tuple[Ask, str]] = {}         # custom_id -> ((item, sample), why)
        batch: list[tuple[str, str, str, Completion]] = []
        seen: set[str] = set()

        def keep(cid: str, completion: Completion) -> None:
            item_id, sample, request_hash = pending[cid]
            completion.attempts = b["attempt"]
            completion.sample = sample
            completion.latency_s = took
            if completion.cost_usd is None:
                completion.cost_usd = prices.cost(client.kind, client.model,
                                                  completion.input_tokens,
                                                  completion.output_tokens, batch=True)
            if self.adjust is not None:
                completion = self.adjust(self._request(item_id), completion)
            batch.append((cid, item_id, request_hash, completion))

        async for o in client.outcomes(b["batch_id"]):
            if o.custom_id not in pending or o.custom_id in seen:
                continue                   # stored before, or not this submission's
            seen.add(o.custom_id)
            if o.reply is not None:
                try:
                    keep(o.custom_id, client.read(o.reply, self.params))
                except Exception as exc:   # the reply is the server's fault (empty, malformed)
                    again[o.custom_id] = (pending[o.custom_id][:2], str(exc))
            elif o.again:
                again[o.custom_id] = (pending[o.custom_id][:2], o.error or "not answered")
            else:
                keep(o.custom_id, failed(f"{o.error} (in batch {b['batch_id']})"))
            if len(batch) >= STORE_EVERY:
                self._store(b, batch)
                batch = []
        for cid in pending.keys() - seen:        # no result at all
            if st.error:                         # the batch failed as a whole (its validation)
                keep(cid, failed(f"batch {b['batch_id']} {st.status}: {st.error}"))
            else:
                again[cid] = (pending[cid][:2], f"no result in batch {b['batch_id']} "
                                                f"({st.status})")
        self._store(b, batch)
        batch = []
        for cid, (_, why) in again.items():
            if b["attempt"] >= MAX_ATTEMPTS:
                keep(cid, failed(f"not answered in {MAX_ATTEMPTS} batches; the last: {why}"))
        self._store(b, batch)
        retry = {ask: (b["submission"], cid) for cid, (ask, _) in again.items()
                 if b["attempt"] < MAX_ATTEMPTS}
        if retry:
            self.counts["rebatched"] = self.counts.get("rebatched", 0) + len(retry)
            reasons = sorted({why.split(" (")[0] for _, why in again.values()})
            self._note(f"batch {b['batch_id']} {st.status}: {len(retry)} request(s) not "
                       f"answered ({'; '.join(reasons)[:200]}): batched again")
            await self._submit(client, list(retry), b["attempt"] + 1, retry)
        self.store.batch_collected(b["submission"])

    def _store(self, b: dict, rows: list[tuple[str, str, str, Completion]]) -> None:
        if not rows:
            return
        self.store.store_batch_answers(self.run_id, b["submission"], rows)
        for _, item_id, _, c in rows:
            self.counts[c.status] = self.counts.get(c.status, 0) + 1
            if self.on_done is not None:
                self.on_done(item_id, c)

    def _request(self, item_id: str) -> Request:
        """What a reply is checked against (`adjust`): its item and the run's params (no
        prompt or image needs building to read a reply)."""
        return Request(item_id=item_id, model=self.spec, prompt="", params=self.params)

    def _note(self, message: str) -> None:
        progress.note(self.run_id, message)


def failed(error: str) -> Completion:
    """A request the batch did not answer and no new batch will: stored like a direct call
    that failed for good, for --retry-failed."""
    return Completion(text=None, status="infra_failed", error=redact(error), attempts=1)


def shown(open_batches: list[tuple[dict, BatchState]]) -> str:
    """The open batches in a few words, e.g. `batch batch_abc in_progress, 40 of 60 done`."""
    parts = [f"batch {b['batch_id']} {st.line()}" for b, st in open_batches[:3]]
    more = len(open_batches) - 3
    return "; ".join(parts) + (f" and {more} more batch(es)" if more > 0 else "")
