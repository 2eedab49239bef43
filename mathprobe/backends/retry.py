"""Retries for model calls (tenacity): what is worth retrying, how long to wait, when to give up.

Only failures that can succeed later are retried: 429, 408/409, 5xx, timeouts, dropped
connections and malformed bodies. The server's `retry-after-ms` / `Retry-After` is honoured;
otherwise the wait is exponential with full jitter. A call that still fails comes back as an
`infra_failed` Completion carrying the reason, never as an exception and never as an answer.

Whoever sends the request may watch its attempts (`watching`): told of each answer and each
retryable failure, and asked to do the wait before the next attempt. The run's adaptive window
(mathprobe/runs/adaptive_limit.py) learns from that how many requests the server takes, and gives
the request's slot back while it waits.
"""
from __future__ import annotations

import email.utils
import functools
import inspect
import json
import socket
import ssl
import time
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Protocol

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception_type,
    stop_after_attempt,
    stop_after_delay,
    wait_random_exponential,
)

from mathprobe.backends.secrets import redact
from mathprobe.items import Completion

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
OVERLOAD_STATUS = frozenset({429, 503, 529})   # "too many requests": send fewer


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 6
    max_total_s: float = 600.0     # give up on one request after this long, waits included
    base_wait_s: float = 1.0
    max_wait_s: float = 60.0
    timeout_s: float = 120.0       # one attempt

    @classmethod
    def from_env(cls, **overrides) -> RetryPolicy:
        """Defaults, then MATHPROBE_RETRY_* / MATHPROBE_REQUEST_TIMEOUT_S (checked as their
        flags are: mathprobe.settings), then `overrides`."""
        from mathprobe import settings

        env = {"max_attempts": "MATHPROBE_RETRY_MAX_ATTEMPTS",
               "max_total_s": "MATHPROBE_RETRY_MAX_TOTAL_S",
               "base_wait_s": "MATHPROBE_RETRY_BASE_WAIT_S",
               "max_wait_s": "MATHPROBE_RETRY_MAX_WAIT_S",
               "timeout_s": "MATHPROBE_REQUEST_TIMEOUT_S"}
        values = {k: v for k, var in env.items() if (v := settings.get(var)) is not None}
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)


class TransientError(Exception):
    """A failure worth retrying; `retry_after` is the server's hint in seconds; `overloaded`:
    the server said it has too many requests (429, 503, 529; Triton's RESOURCE_EXHAUSTED)."""

    def __init__(self, message: str, retry_after: float | None = None, overloaded: bool = False):
        super().__init__(message)
        self.retry_after = retry_after
        self.overloaded = overloaded


class Attempts(Protocol):
    """Watches one request's attempts (see the module's docstring)."""

    def answered(self) -> None: ...

    def failed(self, exc: TransientError) -> None: ...

    async def wait(self, seconds: float) -> None: ...


watching: ContextVar[Attempts | None] = ContextVar("mathprobe_attempts", default=None)


class PermanentError(Exception):
    """A failure that retrying will not fix (bad request, auth): recorded, re-drivable later."""


def retry_after_s(headers) -> float | None:
    """Seconds to wait from `retry-after-ms` or `Retry-After` (seconds or an HTTP date)."""
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value) if value else None
        return max(0.0, parsed.timestamp() - time.time()) if parsed else None


class EmptyCompletion(TransientError):
    """A 200 whose completion is empty with no refusal and no length stop: a fault of the
    server, not the model's answer (it would be graded wrong). Retried; stored `infra_failed`
    with this reason if it persists, so --retry-failed can re-drive it."""

    def __init__(self, stop: str | None):
        super().__init__(f"empty completion (stop reason {stop!r}, no refusal)")


def check_not_empty(text: str | None, stop: str | None, length_stops: tuple[str, ...]) -> None:
    """Raise EmptyCompletion for an empty answer (no text, or ""), unless the model ran out of
    tokens (`stop` in `length_stops`): that is the model's own, truncated, answer."""
    if not text and stop not in length_stops:
        raise EmptyCompletion(stop)


# What happened on the wire, by the exception that says it, most specific first: the SDKs wrap
# these (OpenAI's aiohttp client even reports a refused connection as a timeout), so the reason
# is read from the chain of causes, not from the SDK's own class.
_NETWORK = ((ConnectionRefusedError, "connection refused"),
            (ConnectionResetError, "connection reset by the server"),
            (ConnectionAbortedError, "connection aborted"),
            (BrokenPipeError, "connection broken"),
            (socket.gaierror, "host name not resolved"),
            (ssl.SSLError, "TLS failure"))
# ... and by the class names of httpx's / aiohttp's errors (not imported here)
_NAMED = {"ServerDisconnectedError": "connection closed by the server before it answered",
          "RemoteProtocolError": "connection closed by the server before it answered",
          "ConnectTimeout": "timed out connecting",
          "ReadTimeout": "timed out waiting for the answer",
          "WriteTimeout": "timed out sending the request",
          "PoolTimeout": "timed out waiting for a free connection",
          "ServerTimeoutError": "timed out waiting for the answer",
          "SocketTimeoutError": "timed out waiting for the answer",
          "ConnectionTimeoutError": "timed out connecting"}


def _causes(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    link: BaseException | None = exc
    while link is not None and link not in out:
        out.append(link)
        link = link.__cause__ or link.__context__
    return out


def network_failure(exc: BaseException) -> str | None:
    """What went wrong on the connection, named by what happened ('connection refused',
    'connection reset by the server', 'timed out waiting for the answer', ...), with the
    innermost error's text; None when the chain names nothing of the kind."""
    chain = _causes(exc)
    for kind, label in _NETWORK:
        found = next((e for e in chain if isinstance(e, kind)), None)
        if found is not None:
            return f"{label}: {found}"
    for e in reversed(chain):                   # the innermost says what happened
        named = _NAMED.get(type(e).__name__)
        if named is not None:
            inner = chain[-1]
            return f"{named}" + (f": {inner}" if str(inner) else "")
    return None


def classify_sdk_error(sdk: ModuleType, exc: BaseException) -> Exception:
    """Map an OpenAI / Anthropic SDK exception (same shapes in both) to Transient or Permanent,
    its message naming what happened (`network_failure`, or the HTTP status)."""
    if isinstance(exc, (TransientError, PermanentError)):
        return exc
    if isinstance(exc, (sdk.APITimeoutError, sdk.APIConnectionError)):
        reason = network_failure(exc)
        if reason is not None:
            return TransientError(reason)
        if isinstance(exc, sdk.APITimeoutError):
            return TransientError("timed out")
        cause = exc.__cause__ or exc
        return TransientError(f"connection error: {type(cause).__name__}: {cause}")
    if isinstance(exc, sdk.APIStatusError):
        status = exc.status_code
        message = f"HTTP {status}: {exc.message}"
        if status in RETRYABLE_STATUS:
            return TransientError(message, retry_after_s(exc.response.headers),
                                  overloaded=status in OVERLOAD_STATUS)
        return PermanentError(message)
    if isinstance(exc, (sdk.APIResponseValidationError, json.JSONDecodeError, KeyError, IndexError,
                        TypeError, ValueError, AttributeError)):
        return TransientError(f"malformed response body: {type(exc).__name__}: {exc}")
    return PermanentError(f"{type(exc).__name__}: {exc}")


@functools.lru_cache(maxsize=32)
def _parameter_names(func: Callable) -> frozenset[str]:
    return frozenset(inspect.signature(func).parameters)


def sdk_kwargs(method: Callable, params: dict) -> dict:
    """Generation params as SDK keyword arguments; those this SDK version does not name (e.g.
    `temperature` in newer Anthropic SDKs) travel in `extra_body`, so they still reach the API."""
    known = _parameter_names(getattr(method, "__func__", method))
    kwargs = {k: v for k, v in params.items() if k in known}
    extra = {k: v for k, v in params.items() if k not in known}
    if extra:
        kwargs["extra_body"] = extra
    return kwargs


def _wait(policy: RetryPolicy) -> Callable[[RetryCallState], float]:
    backoff = wait_random_exponential(multiplier=policy.base_wait_s, max=policy.max_wait_s)

    def wait(state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        hint = getattr(exc, "retry_after", None)
        return min(hint, policy.max_wait_s) if hint is not None else backoff(state)

    return wait


async def call_with_retries(attempt: Callable[[], Awaitable[Completion]],
                            policy: RetryPolicy) -> Completion:
    """Run `attempt` (which raises Transient/PermanentError) until it succeeds or gives up,
    telling the request's watcher (`watching`), if any, of each attempt."""
    tries = 0
    started = time.perf_counter()
    watcher = watching.get()
    sleep: dict[str, Any] = {"sleep": watcher.wait} if watcher is not None else {}
    try:
        async for state in AsyncRetrying(
                stop=stop_after_attempt(policy.max_attempts) | stop_after_delay(policy.max_total_s),
                wait=_wait(policy), retry=retry_if_exception_type(TransientError), reraise=True,
                **sleep):
            with state:
                tries += 1
                try:
                    completion = await attempt()
                except TransientError as exc:
                    if watcher is not None:
                        watcher.failed(exc)
                    raise
                if watcher is not None:
                    watcher.answered()
    except (TransientError, PermanentError) as exc:
        kind = "gave up" if isinstance(exc, TransientError) else "not retryable"
        return Completion(text=None, status="infra_failed", attempts=tries,
                          error=redact(f"{exc} ({kind} after {tries} attempt(s))"),
                          latency_s=time.perf_counter() - started)
    completion.attempts = tries
    completion.latency_s = time.perf_counter() - started
    return completion


async def retried(fetch: Callable[[], Awaitable[Any]], policy: RetryPolicy) -> Any:
    """`fetch()`'s value under the same retry policy, for calls that are not completions (e.g.
    scoring a text); a call that still fails raises ConnectionError with the reason."""
    box: list[Any] = []

    async def attempt() -> Completion:
        box[:] = [await fetch()]
        return Completion(text="")

    done = await call_with_retries(attempt, policy)
    if done.status != "ok":
        raise ConnectionError(done.error)
    return box[0]
