"""Model backends behind one small async interface.

A backend turns a `Request` into a `Completion` and never raises for a failed call: failures come
back as `Completion(status='infra_failed', error=...)` so they are stored, excluded from metrics
and retried later instead of being graded as wrong answers.
"""
from __future__ import annotations

from typing import Protocol

from mathprobe.tasks.errors import MathprobeError
from mathprobe.tasks.items import Completion, Request


class Backend(Protocol):
    kind: str      # 'baseline', 'openai', ...
    model: str     # the part after the colon

    async def complete(self, request: Request) -> Completion: ...

    async def aclose(self) -> None: ...


# Every backend, as --model names it (the command line's help lists these).
BACKENDS = {"baseline": "baseline:random", "openai": "openai:MODEL",
            "anthropic": "anthropic:MODEL", "triton": "triton:MODEL", "replay": "replay:FILE"}
# The API key each backend needs: the environment variable, else the Prefect Secret block named
# after it (tasks.backends.secrets).
KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}


def parse_spec(spec: str, option: str = "--model") -> tuple[str, str]:
    """BACKEND:NAME -> (backend, name) for a backend that exists; a MathprobeError otherwise.
    Builds no client, so it is instant (the command line checks --model before anything)."""
    kind, sep, model = spec.partition(":")
    if not sep or not kind or not model:
        raise MathprobeError(f"{option} {spec!r}: expected BACKEND:NAME, one of "
                             f"{', '.join(BACKENDS.values())}")
    if kind not in BACKENDS:
        raise MathprobeError(f"{option} {spec!r}: unknown backend {kind!r} "
                             f"(available: {', '.join(BACKENDS.values())})")
    if kind == "baseline" and model != "random":
        raise MathprobeError(f"{option} {spec!r}: the only baseline is baseline:random")
    return kind, model


# Default simultaneous requests per provider; the run's --concurrency is capped by these.
PROVIDER_CONCURRENCY = {"openai": 256, "anthropic": 64, "triton": 64, "baseline": 1024,
                        "replay": 1024}


def provider_limit(spec: str) -> int:
    """The per-provider cap, overridable as MATHPROBE_MAX_CONCURRENCY_<KIND> (e.g. ..._OPENAI)."""
    import os

    kind, _ = parse_spec(spec)
    env = os.environ.get(f"MATHPROBE_MAX_CONCURRENCY_{kind.upper()}")
    return int(env) if env else PROVIDER_CONCURRENCY.get(kind, 64)


# The module of each backend (imported by `get_backend` when first used: an SDK takes 0.3-0.8 s).
MODULES = {"baseline": "mathprobe.tasks.backends.baseline",
           "openai": "mathprobe.tasks.backends.openai_chat",
           "anthropic": "mathprobe.tasks.backends.anthropic_messages",
           "triton": "mathprobe.tasks.backends.triton_grpc",
           "replay": "mathprobe.tasks.backends.replay"}


def get_backend(spec: str, *, seed: int = 0, timeout_s: float | None = None,
                triton_url: str | None = None) -> Backend:
    """The backend for BACKEND:NAME. Raises MathprobeError for an unknown or unusable one."""
    from mathprobe.tasks.backends.retry import RetryPolicy

    kind, model = parse_spec(spec)
    policy = RetryPolicy.from_env(timeout_s=timeout_s)
    if kind == "baseline":
        from mathprobe.tasks.backends.baseline import RandomBaseline
        return RandomBaseline(seed=seed)
    if kind == "openai":
        from mathprobe.tasks.backends.openai_chat import OpenAIChat
        return OpenAIChat(model, policy=policy)
    if kind == "anthropic":
        from mathprobe.tasks.backends.anthropic_messages import AnthropicMessages
        return AnthropicMessages(model, policy=policy)
    if kind == "triton":
        from mathprobe.tasks.backends.triton_grpc import TritonGenerate
        return TritonGenerate(model, url=triton_url, policy=policy)
    from mathprobe.tasks.backends.replay import Replay
    return Replay(model)
