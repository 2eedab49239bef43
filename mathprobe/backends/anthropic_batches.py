"""Anthropic's Message Batches for `anthropic:` models (docs/batches.md), through the official
SDK.

A batch is `POST /v1/messages/batches` with `requests: [{custom_id, params}]`, each `params`
the body `AnthropicMessages.body` builds for a direct call. Its `processing_status` goes
in_progress -> ended (or canceling -> ended); `request_counts` tallies processing, succeeded,
errored, canceled and expired. An ended batch's results stream as JSONL from its
`results_url`, in any order: `succeeded` (a message, read by `AnthropicMessages.reply`),
`errored` (an error: invalid_request_error is the request's fault, api_error or
overloaded_error the service's), `canceled` and `expired` (never processed).

The API keeps no metadata of the submitter's, so a batch whose id a killed command never
stored is looked for by what it can be told by: created since the submission, holding as many
requests, and claimed by no other submission of the store (`find`). A wrong guess costs no
answer: results whose custom_ids are not the submission's are not taken, and its requests are
batched again."""
from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from mathprobe.backends.batches import BatchState, Limits, Outcome, ServiceError, service_call
from mathprobe.backends.retry import classify_sdk_error
from mathprobe.items import Completion, Request

if TYPE_CHECKING:        # the backend module builds this client (its make_batches)
    from mathprobe.backends.anthropic_messages import AnthropicMessages

AGAIN_ERRORS = ("api_error", "overloaded_error", "rate_limit_error", "timeout_error")
SUBMIT_TIMEOUT_S = 900.0          # up to 256 MB of requests in one body
FIND_PAGES = 5


class AnthropicBatches:
    """Message Batches around an `AnthropicMessages` (its client, key, base URL, body and
    reader). `claimed` says which batch ids the store already holds (for `find`)."""

    kind = "anthropic"
    limits = Limits(requests=100_000, bytes=256 * 1000 * 1000)

    def __init__(self, messages: AnthropicMessages):
        self.messages, self.model, self.client = messages, messages.model, messages.client
        self.endpoint = str(self.client.base_url).rstrip("/")
        self.claimed: Callable[[], set[str]] = set

    def entry(self, custom_id: str, request: Request) -> tuple[dict, int]:
        entry = {"custom_id": custom_id, "params": self.messages.body(request)}
        return entry, len(json.dumps(entry, ensure_ascii=False).encode())

    async def submit(self, entries: list[dict], key: str) -> tuple[str, str | None]:
        since = datetime.now().astimezone()
        tried = False

        async def create() -> str:
            nonlocal tried
            if tried:                  # the last try may have been accepted before it failed
                found = await self.find(key, since, len(entries))
                if found is not None:
                    return found
            tried = True
            batch = await self.client.messages.batches.create(
                # entries are entry()'s dicts, the shape the SDK types as its Request TypedDict
                requests=entries,  # type: ignore[arg-type]
                timeout=max(SUBMIT_TIMEOUT_S, self.messages.policy.timeout_s))
            return batch.id

        return await self._call(create), None

    async def find(self, key: str, since: datetime, n: int) -> str | None:
        """A batch created since `since` (a minute of clock skew allowed) with `n` requests
        whose id no submission of the store holds; None if there is none."""
        claimed = self.claimed()

        async def look() -> str | None:
            pages = 0
            page = await self.client.messages.batches.list(limit=100)
            while True:
                for batch in page.data:          # newest first
                    if batch.created_at < since - timedelta(minutes=1):
                        return None
                    c = batch.request_counts
                    total = c.processing + c.succeeded + c.errored + c.canceled + c.expired
                    if total == n and batch.id not in claimed:
                        return batch.id
                pages += 1
                if not page.has_next_page() or pages >= FIND_PAGES:
                    return None
                page = await page.get_next_page()
        return await self._call(look)

    async def state(self, batch_id: str) -> BatchState:
        batch = await self._call(lambda: self.client.messages.batches.retrieve(batch_id))
        c = batch.request_counts
        return BatchState(status=batch.processing_status,
                          ended=batch.processing_status == "ended",
                          total=c.processing + c.succeeded + c.errored + c.canceled + c.expired,
                          done=c.succeeded, failed=c.errored + c.canceled + c.expired)

    async def outcomes(self, batch_id: str) -> AsyncIterator[Outcome]:
        import anthropic

        results = await self._call(lambda: self.client.messages.batches.results(batch_id))
        try:
            async for one in results:
                yield outcome(one)
        except (anthropic.APIError, OSError) as exc:    # the stream broke off: read it again
            raise ServiceError(str(classify_sdk_error(anthropic, exc)), refused=False) from exc

    def read(self, reply: Any, params: dict[str, Any]) -> Completion:
        return self.messages.reply(reply, params)

    async def _call(self, fetch):
        import anthropic

        return await service_call(fetch, self.messages.policy, anthropic)

    async def aclose(self) -> None:
        await self.messages.aclose()


def outcome(one: Any) -> Outcome:
    """One result line (the SDK's MessageBatchIndividualResponse) as an Outcome."""
    result = one.result
    if result.type == "succeeded":
        return Outcome(one.custom_id, reply=result.message)
    if result.type == "errored":
        error = getattr(result.error, "error", None)
        kind = getattr(error, "type", None)
        return Outcome(one.custom_id, error=f"{kind}: {getattr(error, 'message', '')}",
                       again=kind in AGAIN_ERRORS)
    return Outcome(one.custom_id, error=f"{result.type} in the batch", again=True)
