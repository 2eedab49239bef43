"""A small HTTP/1.1 server on loopback that speaks the OpenAI chat-completions and text
completions (with echo: prompt log-probabilities) and the Anthropic messages wire formats, with
scripted faults. Tests and perf/fanout.py point the real SDKs at it; nothing of
mathprobe's own code is replaced.

Faults are scripted per prompt: `faults={"2steps_1 question 1": ["429", "503"]}` makes the first
two requests whose prompt contains that text fail that way; later ones succeed. Kinds:
  429      rate limited, with `Retry-After: <retry_after>`
  429ms    rate limited, with `retry-after-ms`
  500/503  server errors
  400/401  client errors (not retryable)
  slow     answers after `slow_s` seconds (past the client's timeout)
  malformed  200 with a body that is not JSON
  empty    200 with valid JSON but no choices / content
  blank    200 with an empty completion: OpenAI `content: ""`, Anthropic `content: []`, both
           with a normal stop (finish_reason 'stop' / stop_reason 'end_turn')
  blank_length  the same, but stopped by the token limit ('length' / 'max_tokens')
  drop     closes the connection without answering
  refuse   a refusal (OpenAI `refusal`, Anthropic stop_reason 'refusal')
`always={"text": "503"}` fails every request containing the text. `usage=False` leaves the
token counts out of every reply (a server that reports no usage).

A model that samples (`sampled={"text": ["B", "C", "D"]}`): a request whose prompt contains the
text is answered one of those letters, as a model decoding at the request's `temperature`
(absent: the services' default, 1): at temperature 0 always the first (greedy decoding);
above 0 one drawn at random, from the request's `seed` where it sends one (the same seed, the
same answer, as OpenAI and vLLM promise for a seeded request), else from the double's own
generator (`sample_seed`), so unseeded requests vary from call to call.

Reasoning models, as the services' documentation describes them. A scripted reply (`answers`,
`reply`) may hold its reasoning as `<think>REASONING</think>ANSWER`; the reply is then cut at
the request's token cap (`max_completion_tokens` or `max_tokens`; Anthropic's `max_tokens`),
counting whitespace-separated words as tokens, reasoning first, as a model generates it:
  OpenAI reasoning models (`reasoning_models`: o1, o3, o4-mini, gpt-5, ...) refuse `max_tokens`
    and any temperature but 1 with the API's 400 bodies, take `reasoning_effort`, hide their
    reasoning (made up of `reasoning_words` words when the reply has none) and report it in
    `usage.completion_tokens_details.reasoning_tokens`; cut inside it, `content` is "" and
    `finish_reason` 'length'. Other models refuse `reasoning_effort`.
  Anthropic with `thinking={type: enabled, budget_tokens: N}` refuses N < 1024, `max_tokens` <= N
    and a temperature but 1 (400 invalid_request_error); the reply is `thinking` blocks (with a
    `signature`) then `text` blocks, `stop_reason` 'max_tokens' when cut, inside the thinking
    or after it; `thinking_tokens_reported` adds `usage.output_tokens_details.thinking_tokens`.
    Without `thinking`, only the answer comes back.
  An open model behind an OpenAI-compatible server (any other model name) returns the reply as
    scripted: with `reasoning_parser` (vLLM / SGLang started with one) the reasoning in
    `message.reasoning_content` and the answer in `content` (None when cut inside the
    reasoning); without, `<think>...</think>` in `content`, unclosed when cut inside it.
Batch APIs (OpenAI's Batch API, Anthropic's Message Batches): tests/support/fake_batches.py,
with scripted delays (`batch_delay_s`), batches held in progress (`batch_hold`) and expiry
(`batch_expire`); each request of a batch is answered as a direct call, faults included.
`max_in_flight=K` answers 429 (with `Retry-After: <retry_after>`, at once) to a request that
arrives while K others are being answered, as a provider's concurrency cap does;
`first_429=P` answers the same to a share P of first attempts (a body not seen before, drawn
with `seed`), whatever is in flight: 429s that are not about capacity; `rejected` counts them.
`hold(n)` holds every request after the next n until `release()` (or 120 s), as a service that
stalls: a test can then look at a run half-written for as long as it needs.

Run standalone for benchmarks: python -m tests.support.fake_api --port 0 --latency 0.05
[--max-in-flight K --retry-after S --first-429 P]
"""
from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import random
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from tests.support.fake_batches import BatchEndpoints


@dataclass
class FakeAPI(BatchEndpoints):
    latency: float = 0.0
    answer: str = "A"                          # letter answered when no rule matches
    answers: dict[str, str] = field(default_factory=dict)   # prompt text -> letter
    sampled: dict[str, list[str]] = field(default_factory=dict)   # prompt text -> letters drawn
    sample_seed: int = 0            # the generator of unseeded draws (see the docstring)
    faults: dict[str, list[str]] = field(default_factory=dict)
    always: dict[str, str] = field(default_factory=dict)
    retry_after: float = 0.05
    slow_s: float = 3.0
    record: bool = True
    reply: Any = None             # optional reply(payload, prompt) -> text (None: the default)
    served_model: str | None = None   # the `model` its replies report (None: the one asked)
    usage: bool = True            # False: replies carry no token counts (`usage` left out)
    requests: list[dict[str, Any]] = field(default_factory=list)
    served: int = 0
    in_flight: int = 0            # requests being answered now, and the most there ever were
    peak_in_flight: int = 0
    max_in_flight: int | None = None   # more at once are answered 429
    rejected: int = 0
    first_429: float = 0.0        # this share of first attempts (a body not seen before) is
    seed: int = 0                 # ... answered 429 at once, drawn with this seed
    port: int = 0
    # reasoning models (see the module's docstring)
    reasoning_models: frozenset[str] = field(default_factory=lambda: OPENAI_REASONING)
    reasoning_words: int = 40       # an OpenAI reasoning model's reasoning when none is scripted
    reasoning_parser: bool = False  # an open model's server splits its reasoning out (vLLM, SGLang)
    thinking_tokens_reported: bool = False   # Anthropic usage.output_tokens_details
    # batch APIs (tests/support/fake_batches.py)
    batch_delay_s: float = 0.0      # a batch ends this long after it was created
    batch_hold: bool = False        # batches stay in progress while this is set
    batch_expire: dict[str, int] = field(default_factory=dict)   # text -> batches it expires in
    batch_seed: int = 0             # the order results come back in
    batch_api: bool = True          # False: no batch endpoints (404), as vLLM's server
    files: dict[str, dict] = field(default_factory=dict)
    batches: dict[str, dict] = field(default_factory=dict)
    batch_submissions: list[dict] = field(default_factory=list)   # every accepted batch
    batch_lines: list[dict] = field(default_factory=list)         # every request in one
    hold_after: int | None = None   # requests arriving after this many wait (see hold())

    def __post_init__(self):
        self._lock = threading.RLock()     # (a batch runs its requests under it)
        self._draws = random.Random(self.sample_seed)
        self._refusals = random.Random(self.seed)      # first_429's draws
        self._bodies: set[bytes] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.base_events.Server | None = None
        self._thread: threading.Thread | None = None
        self._released = threading.Event()

    def hold(self, n: int) -> None:
        """Answer the next n requests, then hold every later one until release()."""
        with self._lock:
            self._released.clear()
            self.hold_after = self.served + n

    def release(self) -> None:
        """Let the requests `hold_after` holds (and every later one) through."""
        self._released.set()

    # -- lifecycle ------------------------------------------------------------------------
    def start(self) -> FakeAPI:
        ready = threading.Event()

        def run() -> None:
            self._loop = asyncio.new_event_loop()
            asyncio.set_event_loop(self._loop)
            self._server = self._loop.run_until_complete(
                asyncio.start_server(self._handle, "127.0.0.1", self.port, backlog=1024))
            self.port = self._server.sockets[0].getsockname()[1]
            ready.set()
            self._loop.run_forever()

        self._thread = threading.Thread(target=run, daemon=True, name="fake-api")
        self._thread.start()
        ready.wait(10)
        return self

    def stop(self) -> None:
        if self._loop is None:
            return

        async def shutdown() -> None:
            self._server.close()
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()

        asyncio.run_coroutine_threadsafe(shutdown(), self._loop).result(5)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    @property
    def openai_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # -- protocol -------------------------------------------------------------------------
    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                headers = {}
                for line in lines[1:]:
                    if ":" in line:
                        k, v = line.split(":", 1)
                        headers[k.strip().lower()] = v.strip()
                if headers.get("transfer-encoding", "").lower() == "chunked":
                    body = await _read_chunked(reader)
                else:
                    body = await reader.readexactly(int(headers.get("content-length", 0)))
                keep = await self._respond(method, path, headers, body, writer)
                if not keep:
                    break
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    async def _respond(self, method: str, path: str, headers: dict, body: bytes,
                       writer: asyncio.StreamWriter) -> bool:
        with self._lock:
            first = False
            if self.first_429:
                key = hashlib.sha256(body).digest()
                first = key not in self._bodies and self._refusals.random() < self.first_429
                self._bodies.add(key)
            if first or (self.max_in_flight is not None and
                         self.in_flight >= self.max_in_flight):
                self.rejected += 1
                self.served += 1
                over = True
            else:
                over = False
                self.in_flight += 1
                self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
        if over:
            anthropic = path.rstrip("/").endswith("/messages")
            return await self._send(writer, 429, _error(anthropic, "rate_limit_error",
                                                        "too many requests in flight"),
                                    {"retry-after": f"{self.retry_after}"})
        try:
            return await self._answer(method, path, headers, body, writer)
        finally:
            with self._lock:
                self.in_flight -= 1

    async def _answer(self, method: str, path: str, headers: dict, body: bytes,
                      writer: asyncio.StreamWriter) -> bool:
        batch = self._batch_endpoint(method, path, headers, body)    # tests/support/fake_batches.py
        if batch is not None:
            return await self._send(writer, *batch)
        payload = json.loads(body) if body else {}
        prompt = _prompt_text(payload) or payload.get("prompt", "")
        fault = self._next_fault(prompt)
        with self._lock:
            self.served += 1
            arrival = self.served
            if self.record:
                self.requests.append({"method": method, "path": path, "headers": headers,
                                      "body": payload, "prompt": prompt, "fault": fault,
                                      "at": time.time()})
        if self.latency:
            await asyncio.sleep(self.latency)
        if self.hold_after is not None and arrival > self.hold_after:
            held_until = time.monotonic() + 120          # a forgotten release() ends, bounded
            while not self._released.is_set() and time.monotonic() < held_until:
                await asyncio.sleep(0.02)
        if fault == "drop":
            writer.transport.abort()
            return False
        if fault == "slow":
            await asyncio.sleep(self.slow_s)
        return await self._send(writer, *self._reply(path, payload, prompt, fault))

    def _reply(self, path: str, payload: dict, prompt: str,
               fault: str | None) -> tuple[int, bytes, dict[str, str] | None]:
        """(status, body, headers) of the answer to one request (a direct call, or a line of a
        batch), its scripted fault applied."""
        anthropic = path.rstrip("/").endswith("/messages")
        if fault in ("429", "429ms"):
            hdr = ({"retry-after": f"{self.retry_after}"} if fault == "429"
                   else {"retry-after-ms": f"{self.retry_after * 1000:.0f}"})
            return 429, _error(anthropic, "rate_limit_error", "slow down"), hdr
        if fault in ("500", "503", "400", "401"):
            kind = {"500": "api_error", "503": "overloaded_error", "400": "invalid_request_error",
                    "401": "authentication_error"}[fault]
            return int(fault), _error(anthropic, kind, f"fault {fault}"), None
        if fault == "malformed":
            return 200, b'{"id": "x", "choices": [ {"mess', None
        if path.rstrip("/").endswith("/v1/completions"):
            if payload.get("echo"):          # prompt log-probabilities (MIN-K%, scoring)
                return 200, json.dumps(_echo_logprobs(payload)).encode(), None
            text = (self.reply(payload, prompt) if self.reply is not None else None) or " more text"
            return 200, json.dumps(_text_completion(payload, text)).encode(), None
        letter = next((v for k, v in self.answers.items() if k in prompt), self.answer)
        choices = next((v for k, v in self.sampled.items() if k in prompt), None)
        if choices:
            letter = self._draw(choices, payload)
        text = f"<Thought process>: <<looked at it>> <Answer>: <<{letter}>>"
        if fault == "refuse":
            text = "I can't help with that."
        elif fault in ("blank", "blank_length"):
            text = ""
        elif self.reply is not None:
            text = self.reply(payload, prompt) or text
        refused = self._refuse_parameters(anthropic, payload)
        if refused is not None:
            return 400, refused, None
        usage_in = max(1, len(prompt.split()))
        if anthropic:
            msg = self._anthropic_message(payload, fault, text, usage_in)
        else:
            msg = self._openai_completion(payload, fault, text, usage_in)
        if not self.usage:
            msg.pop("usage")
        return 200, json.dumps(msg).encode(), None

    # -- replies --------------------------------------------------------------------------
    def _refuse_parameters(self, anthropic: bool, payload: dict) -> bytes | None:
        """The 400 body a service gives a request its model does not take, or None."""
        temperature = payload.get("temperature")
        if anthropic:
            thinking = payload.get("thinking")
            if not thinking or thinking.get("type") != "enabled":
                return None
            budget = thinking.get("budget_tokens", 0)
            if budget < 1024:
                return _error(True, "invalid_request_error", "thinking.enabled.budget_tokens: "
                              "Input should be greater than or equal to 1024")
            if payload.get("max_tokens", 0) <= budget:
                return _error(True, "invalid_request_error",
                              "`max_tokens` must be greater than `thinking.budget_tokens`. "
                              "Please consult our documentation at https://docs.claude.com/en/"
                              "docs/build-with-claude/extended-thinking#max-tokens-and-context-"
                              "window-size")
            if temperature is not None and temperature != 1:
                return _error(True, "invalid_request_error",
                              "`temperature` may only be set to 1 when thinking is enabled. "
                              "Please consult our documentation at https://docs.claude.com/en/"
                              "docs/build-with-claude/extended-thinking#feature-compatibility")
            return None
        effort = payload.get("reasoning_effort")
        if payload.get("model") not in self.reasoning_models:
            if effort is not None:
                return _openai_error("Unsupported parameter: 'reasoning_effort' is not "
                                     "supported with this model.", "reasoning_effort",
                                     "unsupported_parameter")
            return None
        if "max_tokens" in payload:
            return _openai_error("Unsupported parameter: 'max_tokens' is not supported with "
                                 "this model. Use 'max_completion_tokens' instead.",
                                 "max_tokens", "unsupported_parameter")
        if temperature is not None and temperature != 1:
            return _openai_error(f"Unsupported value: 'temperature' does not support "
                                 f"{temperature:g} with this model. Only the default (1) value "
                                 "is supported.", "temperature", "unsupported_value")
        efforts = (("minimal", "low", "medium", "high") if payload["model"].startswith("gpt-5")
                   else ("low", "medium", "high"))
        if effort is not None and effort not in efforts:
            return _openai_error(f"Unsupported value: 'reasoning_effort' does not support "
                                 f"'{effort}' with this model. Supported values are: "
                                 + ", ".join(f"'{e}'" for e in efforts[:-1])
                                 + f", and '{efforts[-1]}'.", "reasoning_effort",
                                 "unsupported_value")
        return None

    def _openai_completion(self, payload: dict, fault: str | None, text: str,
                           usage_in: int) -> dict:
        cap = payload.get("max_completion_tokens", payload.get("max_tokens"))
        thought, answer = split_think(text)
        message: dict[str, Any] = {"role": "assistant"}
        details = None
        if payload.get("model") in self.reasoning_models:      # reasoning hidden, counted
            thought = thought if thought is not None else " ".join(["hmm"] * self.reasoning_words)
            (r, a), cut = generate([words(thought), words(answer)], cap)
            message["content"] = "".join(a)
            details = {"reasoning_tokens": len(r)}
            used = len(r) + len(a)
        elif thought is not None and self.reasoning_parser:
            (r, a), cut = generate([words(thought), words(answer)], cap)
            message["reasoning_content"] = "".join(r).strip()
            message["content"] = "".join(a) if a or not cut else None
            used = len(r) + len(a)
        else:
            (t,), cut = generate([words(text)], cap)
            message["content"] = "".join(t)
            used = len(t)
        if fault == "refuse":
            message = {"role": "assistant", "content": None, "refusal": "I can't help."}
        usage = {"prompt_tokens": usage_in, "completion_tokens": used,
                 "total_tokens": usage_in + used}
        if details is not None:
            usage["completion_tokens_details"] = details
        return {"id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()),
                "model": self.served_model or payload.get("model"),
                "choices": [] if fault == "empty" else [
                    {"index": 0, "message": message,
                     "finish_reason": "length" if fault == "blank_length" or cut else "stop"}],
                "usage": usage}

    def _anthropic_message(self, payload: dict, fault: str | None, text: str,
                           usage_in: int) -> dict:
        thought, answer = split_think(text)
        thinking = (payload.get("thinking") or {}).get("type") == "enabled"
        blocks: list[dict[str, Any]] = []
        if thinking:
            thought = thought if thought is not None else " ".join(["hmm"] * self.reasoning_words)
            (r, a), cut = generate([words(thought), words(answer)], payload.get("max_tokens"))
            blocks.append({"type": "thinking", "thinking": "".join(r).strip(),
                           "signature": "EqQBCgIYAhIM" + "x" * 24})
            if a:
                blocks.append({"type": "text", "text": "".join(a)})
        else:
            (a,), cut = generate([words(answer)], payload.get("max_tokens"))
            r = []
            blocks.append({"type": "text", "text": "".join(a)})
        if fault in ("empty", "blank", "blank_length"):
            blocks = []
        usage: dict[str, Any] = {"input_tokens": usage_in, "output_tokens": len(r) + len(a)}
        if thinking and self.thinking_tokens_reported:
            usage["output_tokens_details"] = {"thinking_tokens": len(r)}
        msg = {"id": "msg_fake", "type": "message", "role": "assistant",
               "model": self.served_model or payload.get("model"), "content": blocks,
               "stop_reason": "refusal" if fault == "refuse" else
               "max_tokens" if fault == "blank_length" or cut else "end_turn",
               "stop_sequence": None, "usage": usage}
        if fault == "refuse":
            msg["content"] = [{"type": "text", "text": text}]
        if fault == "empty":
            msg.pop("content")
        return msg

    def _draw(self, choices: list[str], payload: dict) -> str:
        """What a sampling model answers: greedy at temperature 0, else a draw (seeded by the
        request's seed where it sends one)."""
        if payload.get("temperature", 1) == 0:
            return choices[0]
        if "seed" in payload:
            return random.Random(f"{payload['seed']}:{_prompt_text(payload)}").choice(choices)
        with self._lock:
            return self._draws.choice(choices)

    def _next_fault(self, prompt: str) -> str | None:
        with self._lock:
            for text, kind in self.always.items():
                if text in prompt:
                    return kind
            for text, queue in self.faults.items():
                if text in prompt and queue:
                    return queue.pop(0)
        return None

    @staticmethod
    async def _send(writer: asyncio.StreamWriter, status: int, body: bytes,
                    headers: dict[str, str] | None = None) -> bool:
        reason = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found",
                  413: "Request Entity Too Large", 429: "Too Many Requests",
                  500: "Internal Server Error", 503: "Service Unavailable"}.get(status, "X")
        headers = {"content-type": "application/json", **(headers or {})}
        head = [f"HTTP/1.1 {status} {reason}", f"content-length: {len(body)}",
                "connection: keep-alive"]
        head += [f"{k}: {v}" for k, v in headers.items()]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
        await writer.drain()
        return True


# The OpenAI reasoning models the service knows (its documentation, 2025): they refuse
# max_tokens and any temperature but 1.
OPENAI_REASONING = frozenset({"o1", "o3", "o3-mini", "o4-mini", "gpt-5", "gpt-5-mini",
                              "gpt-5-nano"})


def split_think(text: str) -> tuple[str | None, str]:
    """A scripted reply's (reasoning, answer): `<think>R</think>A` -> (R, A); else (None, text)."""
    stripped = text.lstrip()
    if not stripped.startswith("<think>"):
        return None, text
    thought, _, answer = stripped[len("<think>"):].partition("</think>")
    return thought, answer


def words(text: str) -> list[str]:
    """The fake's tokens: each word with the whitespace before it."""
    return re.findall(r"\s*\S+", text)


def generate(parts: list[list[str]], cap: int | None) -> tuple[list[list[str]], bool]:
    """`parts` generated in order until `cap` tokens: what was generated of each, and whether
    the cap cut it."""
    left = cap if cap is not None else sum(map(len, parts))
    out = []
    for part in parts:
        out.append(part[:max(0, left)])
        left -= len(part)
    return out, left < 0


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    """A request body sent with `transfer-encoding: chunked` (how an SDK may upload a file)."""
    parts = []
    while True:
        size = int((await reader.readuntil(b"\r\n")).split(b";")[0].strip(), 16)
        if size == 0:
            await reader.readuntil(b"\r\n")           # no trailers are sent
            return b"".join(parts)
        parts.append(await reader.readexactly(size))
        await reader.readexactly(2)


def _openai_error(message: str, param: str, code: str) -> bytes:
    return json.dumps({"error": {"message": message, "type": "invalid_request_error",
                                 "param": param, "code": code}}).encode()


def _error(anthropic: bool, kind: str, message: str) -> bytes:
    if anthropic:
        return json.dumps({"type": "error", "error": {"type": kind, "message": message}}).encode()
    return json.dumps({"error": {"message": message, "type": kind, "code": None}}).encode()


def fake_logprob(word: str) -> float:
    """A deterministic stand-in log-probability of a word (rarer-looking words lower)."""
    return -0.5 - (sum(map(ord, word)) % 97) / 10


def fake_tokens(text: str) -> list[str]:
    """The fake server's tokenizer: each CJK character, or a run of other non-space characters,
    with the whitespace before it."""
    import re as _re

    return [m.group() for m in _re.finditer(r"\s*(?:[\u3400-\u9fff]|[^\s\u3400-\u9fff]+)", text)]


def _echo_logprobs(payload: dict) -> dict:
    """The completions API with echo and logprobs: the prompt's tokens (fake_tokens), their
    offsets and log-probabilities (None for the first), then one generated token."""
    prompt = payload.get("prompt", "")
    tokens = fake_tokens(prompt)
    offsets, at = [], 0
    for t in tokens:
        offsets.append(at)
        at += len(t)
    lps = [None] + [fake_logprob(t.strip()) for t in tokens[1:]]
    return {"id": "cmpl-fake", "object": "text_completion", "created": int(time.time()),
            "model": payload.get("model"),
            "choices": [{"index": 0, "text": prompt + " x", "finish_reason": "length",
                         "logprobs": {"tokens": tokens + [" x"], "token_logprobs": lps + [-1.0],
                                      "text_offset": offsets + [len(prompt)],
                                      "top_logprobs": None}}],
            "usage": {"prompt_tokens": len(tokens), "completion_tokens": 1,
                      "total_tokens": len(tokens) + 1}}


def _text_completion(payload: dict, text: str) -> dict:
    """The completions API without echo: `text` continues the prompt."""
    n_in, n_out = len(fake_tokens(payload.get("prompt", ""))), len(fake_tokens(text))
    return {"id": "cmpl-fake", "object": "text_completion", "created": int(time.time()),
            "model": payload.get("model"),
            "choices": [{"index": 0, "text": text, "finish_reason": "stop", "logprobs": None}],
            "usage": {"prompt_tokens": n_in, "completion_tokens": n_out,
                      "total_tokens": n_in + n_out}}


def _prompt_text(payload: dict) -> str:
    parts = []
    for m in payload.get("messages", []):
        content = m.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [c.get("text", "") for c in content if c.get("type") == "text"]
    return "\n".join(parts)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--latency", type=float, default=0.05)
    ap.add_argument("--max-in-flight", type=int, default=None)
    ap.add_argument("--retry-after", type=float, default=0.05)
    ap.add_argument("--first-429", type=float, default=0.0)
    args = ap.parse_args()
    api = FakeAPI(latency=args.latency, record=False, port=args.port,
                  max_in_flight=args.max_in_flight, retry_after=args.retry_after,
                  first_429=args.first_429).start()
    print(api.port, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        api.stop()


if __name__ == "__main__":
    main()
