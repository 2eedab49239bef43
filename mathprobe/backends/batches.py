"""Batch APIs behind one small async interface (docs/batches.md).

OpenAI's Batch API and Anthropic's Message Batches answer the same requests as a direct call,
within 24 hours, at half the price. A kind that has one declares it (`BackendKind.batches`: a
factory of a `BatchClient`), and its client is built around the kind's direct backend, so a
batch sends exactly the body a direct call sends (the backend's `body`) and reads each answer
exactly as a direct call does (its `reply`): reasoning parameters, `truncated` and the
reasoning included. What is batch-specific is only the envelope: how requests are handed in
(`entry`, `submit`), how the batch's state is read (`state`) and how its results come back
(`outcomes`), each in the service's own words.

The run that uses a client (mathprobe/runs/batching.py) stores every batch id before it waits,
so a killed command resumes polling instead of submitting again.
"""
from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from types import ModuleType
from typing import Any, Protocol, TypeVar

from mathprobe.backends.retry import (
    PermanentError,
    RetryPolicy,
    call_with_retries,
    classify_sdk_error,
)
from mathprobe.items import Completion, Request

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class Limits:
    """The most one batch may hold: requests, and bytes of what is handed in."""
    requests: int
    bytes: int


@dataclass(frozen=True)
class BatchState:
    """A batch as the service last described it."""
    status: str                  # the service's word (OpenAI: validating, in_progress,
    #                              finalizing, completed, expired, failed, cancelling,
    #                              cancelled; Anthropic: in_progress, canceling, ended)
    ended: bool                  # no request of it will be answered any more
    total: int                   # requests in it
    done: int                    # answered (OpenAI: completed; Anthropic: succeeded)
    failed: int                  # not answered (errored, expired, canceled), as far as known
    error: str | None = None     # why the batch failed as a whole (OpenAI: its validation)

    def line(self) -> str:
        """e.g. `in_progress, 40 of 60 done, 2 failed`."""
        failed = f", {self.failed} failed" if self.failed else ""
        return f"{self.status}, {self.done} of {self.total} done{failed}"


@dataclass(frozen=True)
class Outcome:
    """One request's result in a batch: its reply (the SDK's object, read by `read`) or why it
    has none, and whether a new batch can answer it (`again`: expired, canceled, the service
    overloaded) or not (a request the service refuses, e.g. HTTP 400)."""
    custom_id: str
    reply: Any = None
    error: str | None = None
    again: bool = False


class BatchClient(Protocol):
    kind: str                    # the backend kind, e.g. 'openai'
    model: str
    endpoint: str                # the service's base URL: a resumed run must ask the same one
    limits: Limits

    def entry(self, custom_id: str, request: Request) -> tuple[Any, int]:
        """What one request becomes in a batch (a JSONL line, a request object) and its size in
        bytes, to split a run's requests under `limits`."""

    async def submit(self, entries: list[Any], key: str) -> tuple[str, str | None]:
        """Hand `entries` in as one batch; its id, and the id of the file that holds them (if
        the service takes a file). `key` is mathprobe's name for this submission, which `find`
        looks for where the service keeps it."""

    async def find(self, key: str, since: datetime, n: int) -> str | None:
        """The id of a batch submitted under `key` (at or after `since`, holding `n` requests)
        whose id was never stored (the command died while the service accepted it), or None."""

    async def state(self, batch_id: str) -> BatchState: ...

    def outcomes(self, batch_id: str) -> AsyncIterator[Outcome]:
        """The results of an ended batch, in any order, as they are read."""

    def read(self, reply: Any, params: dict[str, Any]) -> Completion:
        """A reply as the direct call reads it (the backend's `reply`)."""

    async def aclose(self) -> None: ...


def custom_id(item_id: str, request_hash: str) -> str:
    """A request's name in a batch: a digest of its item id, then its request hash, 49
    characters of [0-9a-f-] (Anthropic takes ^[a-zA-Z0-9_-]{1,64}$, which item ids such as
    `2steps_17/2steps_multi` break). Unique per item and request; the 15 characters left leave
    room for a sample index (`-s3`) when one item is asked several times."""
    return f"{hashlib.sha256(item_id.encode()).hexdigest()[:16]}-{request_hash[:32]}"


def limits_of(service: Limits) -> Limits:
    """The service's limits, or fewer requests per batch where MATHPROBE_BATCH_MAX_REQUESTS
    says so (smaller batches end sooner, and a run's first answers come back earlier)."""
    from mathprobe import settings

    value = settings.get("MATHPROBE_BATCH_MAX_REQUESTS")
    if value is None:
        return service
    return Limits(min(service.requests, value), service.bytes)


def chunked(entries: Iterable[tuple[T, int]], limits: Limits) -> Iterator[list[T]]:
    """(entry, size) pairs cut into batches under `limits`, each batch handed out as soon as it
    is full (so only one batch's entries are in memory). An entry larger than the byte limit
    goes alone (the service says what it thinks of it)."""
    batch: list[T] = []
    size = 0
    for entry, n in entries:
        if batch and (len(batch) + 1 > limits.requests or size + n > limits.bytes):
            yield batch
            batch, size = [], 0
        batch.append(entry)
        size += n
    if batch:
        yield batch


class ServiceError(ConnectionError):
    """A call of a batch endpoint that failed for good (after retries): `refused` when the
    service refused it (HTTP 4xx: sending it again changes nothing), else the service or the
    network failed (it may have been done all the same)."""

    def __init__(self, message: str, refused: bool):
        super().__init__(message)
        self.refused = refused


async def service_call(fetch: Callable[[], Awaitable[R]], policy: RetryPolicy,
                       sdk: ModuleType) -> R:
    """`fetch()` (one call of a batch endpoint through `sdk`, openai or anthropic) under the
    retry policy of direct calls: what can succeed later is retried, with the server's
    Retry-After; a call that still fails raises ServiceError with the reason, in the words of
    a failed direct call."""
    box: list[Any] = []
    refused: list[bool] = [False]

    async def attempt() -> Completion:
        try:
            box[:] = [await fetch()]
        except Exception as exc:
            error = classify_sdk_error(sdk, exc)
            refused[0] = isinstance(error, PermanentError)
            raise error from exc
        return Completion(text="")

    done = await call_with_retries(attempt, policy)
    if done.status != "ok":
        raise ServiceError(done.error or "failed", refused[0])
    return box[0]
