"""OpenAI's Batch API for `openai:` models (docs/batches.md), through the official SDK.

A batch is a JSONL file uploaded with purpose `batch`, one line per request (`custom_id`,
`method`, `url`, `body`: the body `OpenAIChat.body` builds for a direct call), then
`POST /v1/batches` on it with `completion_window` `24h`. Its status goes validating ->
in_progress -> finalizing -> completed (or expired, failed, cancelling -> cancelled); an ended
batch names an output file (lines with `custom_id` and `response.body`, a chat completion read
by `OpenAIChat.reply`) and an error file (lines whose `error` or non-200 `response` says why a
request has no answer). Each submission carries mathprobe's key in the batch's `metadata`, so a
batch whose id a killed command never stored is found again instead of being submitted twice.

Works against any server that implements these endpoints (OPENAI_BASE_URL); vLLM serves the
same JSONL offline with `vllm run-batch`, not these endpoints (docs/batches.md)."""
from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final

from mathprobe.backends.batches import BatchState, Limits, Outcome, service_call
from mathprobe.backends.retry import RETRYABLE_STATUS
from mathprobe.items import Completion, Request

if TYPE_CHECKING:        # the backend module builds this client (its make_batches)
    from mathprobe.backends.openai_chat import OpenAIChat

URL: Final = "/v1/chat/completions"   # Final: the SDK takes only the endpoints it names
ENDED = ("completed", "expired", "failed", "cancelled")
KEY = "mathprobe_submission"         # the metadata key naming mathprobe's submission
AGAIN_CODES = ("batch_expired", "batch_cancelled")   # error file codes a new batch can answer
UPLOAD_TIMEOUT_S = 900.0             # a 200 MB file takes longer than one request's timeout
FIND_PAGES = 10                      # batches listed (100 a page) when looking for a lost id


class OpenAIBatches:
    """The Batch API around an `OpenAIChat` (its client, key, base URL, body and reader)."""

    kind = "openai"
    limits = Limits(requests=50_000, bytes=200 * 1000 * 1000)

    def __init__(self, chat: OpenAIChat):
        self.chat, self.model, self.client = chat, chat.model, chat.client
        self.endpoint = str(self.client.base_url).rstrip("/")

    def entry(self, custom_id: str, request: Request) -> tuple[bytes, int]:
        line = json.dumps({"custom_id": custom_id, "method": "POST", "url": URL,
                           "body": self.chat.body(request)}, ensure_ascii=False).encode() + b"\n"
        return line, len(line)

    async def submit(self, entries: list[bytes], key: str) -> tuple[str, str | None]:
        since = datetime.now(UTC)

        async def upload() -> str:
            made = await self.client.files.create(
                file=("mathprobe-batch.jsonl", b"".join(entries), "application/jsonl"),
                purpose="batch", timeout=max(UPLOAD_TIMEOUT_S, self.chat.policy.timeout_s))
            return made.id

        file_id = await self._call(upload)
        tried = False

        async def create() -> str:
            nonlocal tried
            if tried:                  # the last try may have been accepted before it failed
                found = await self.find(key, since, len(entries))
                if found is not None:
                    return found
            tried = True
            batch = await self.client.batches.create(
                input_file_id=file_id, endpoint=URL, completion_window="24h",
                metadata={KEY: key})
            return batch.id

        return await self._call(create), file_id

    async def find(self, key: str, since: datetime, n: int) -> str | None:
        """A batch whose metadata names `key`, among the most recent ones."""
        async def look() -> str | None:
            pages = 0
            page = await self.client.batches.list(limit=100)
            while True:
                for batch in page.data:
                    if (batch.metadata or {}).get(KEY) == key:
                        return batch.id
                    if batch.created_at < since.timestamp() - 3600:
                        return None                      # older than the submission
                pages += 1
                if not page.has_next_page() or pages >= FIND_PAGES:
                    return None
                page = await page.get_next_page()
        return await self._call(look)

    async def state(self, batch_id: str) -> BatchState:
        batch = await self._call(lambda: self.client.batches.retrieve(batch_id))
        counts = batch.request_counts
        errors = [f"{e.code}: {e.message}" + (f" (line {e.line})" if e.line else "")
                  for e in (batch.errors.data if batch.errors and batch.errors.data else [])]
        return BatchState(status=batch.status, ended=batch.status in ENDED,
                          total=counts.total if counts else 0,
                          done=counts.completed if counts else 0,
                          failed=counts.failed if counts else 0,
                          error="; ".join(errors[:3]) + (f" and {len(errors) - 3} more"
                                                         if len(errors) > 3 else "") or None)

    async def outcomes(self, batch_id: str) -> AsyncIterator[Outcome]:
        batch = await self._call(lambda: self.client.batches.retrieve(batch_id))
        for file_id in (batch.output_file_id, batch.error_file_id):
            if not file_id:
                continue
            content = await self._call(lambda f=file_id: self.client.files.content(f))
            for line in content.content.splitlines():
                if line.strip():
                    yield outcome(json.loads(line))

    async def _call(self, fetch):
        import openai

        return await service_call(fetch, self.chat.policy, openai)

    def read(self, reply: Any, params: dict[str, Any]) -> Completion:
        return self.chat.reply(reply, params)

    async def aclose(self) -> None:
        await self.chat.aclose()


def outcome(line: dict[str, Any]) -> Outcome:
    """One line of an output or error file: a chat completion (status 200), or why there is
    none: a refused request (`response.status_code` 4xx, its `body.error`), the service's
    failure (5xx, 429: a new batch may answer it) or the batch's (`error.code`, e.g.
    batch_expired)."""
    from openai.types.chat import ChatCompletion

    cid = line["custom_id"]
    response, error = line.get("response"), line.get("error")
    if response and response.get("status_code") == 200:
        return Outcome(cid, reply=ChatCompletion.construct(**response["body"]))
    if response:
        status = response.get("status_code")
        body = response.get("body") or {}
        detail = body.get("error") if isinstance(body, dict) else None
        message = detail.get("message") if isinstance(detail, dict) else body
        return Outcome(cid, error=f"HTTP {status}: {message}", again=status in RETRYABLE_STATUS)
    error = error or {}
    return Outcome(cid, error=f"{error.get('code')}: {error.get('message')}",
                   again=error.get("code") in AGAIN_CODES)
