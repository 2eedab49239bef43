"""Model backends behind one small async interface.

A backend turns a `Request` into a `Completion` and never raises for a failed call: failures come
back as `Completion(status='infra_failed', error=...)` so they are stored, excluded from metrics
and retried later instead of being graded as wrong answers. Which kinds exist, and what each
needs, is the registry's (`mathprobe.backends.registry`, the `mathprobe.backends` entry point).
"""
from __future__ import annotations

from typing import Protocol

from mathprobe.backends import registry
from mathprobe.backends.registry import parse_spec
from mathprobe.items import Completion, Request

__all__ = ["Backend", "check_batches", "get_backend", "get_batches", "parse_spec",
           "provider_limit", "registry"]


class Backend(Protocol):
    kind: str      # 'baseline', 'openai', ...
    model: str     # the part after the colon

    async def complete(self, request: Request) -> Completion: ...

    async def aclose(self) -> None: ...


def provider_limit(spec: str) -> int:
    """The per-provider cap (the kind's `concurrency`), overridable as
    MATHPROBE_MAX_CONCURRENCY_<KIND> (e.g. ..._OPENAI)."""
    from mathprobe import settings

    kind = registry.kind_of(spec)
    cap = settings.get(f"MATHPROBE_MAX_CONCURRENCY_{kind.name.upper()}")
    return cap if cap is not None else kind.concurrency


def get_backend(spec: str, *, seed: int = registry.DEFAULT_SEED, setting: str = "",
                timeout_s: float | None = None, triton_url: str | None = None) -> Backend:
    """The backend for BACKEND:NAME. Raises MathprobeError for an unknown or unusable one.
    `seed`, `setting`: what a seeded kind draws from (the run's `seed` parameter and prompt
    setting); `triton_url`: the server of a kind named by an option (its `url_option`,
    --triton-url)."""
    from mathprobe.backends.retry import RetryPolicy

    _, model = parse_spec(spec)
    found = registry.kind_of(spec)     # parse_spec refused a kind that is not installed
    settings = registry.Settings(seed=seed, policy=RetryPolicy.from_env(timeout_s=timeout_s),
                                 url=triton_url if found.url_option else None,
                                 traits=registry.traits_of(spec), setting=setting)
    return found.make(model, settings)


def get_batches(spec: str, *, timeout_s: float | None = None):
    """The batch API client (mathprobe.backends.batches.BatchClient) for BACKEND:NAME; a
    MathprobeError for a kind that has none (checked before a run: `check_batches`)."""
    from mathprobe.backends.retry import RetryPolicy

    kind, model = parse_spec(spec)
    found = check_batches(spec)
    assert found.batches is not None   # check_batches refused a kind without a batch API
    settings = registry.Settings(seed=0, policy=RetryPolicy.from_env(timeout_s=timeout_s),
                                 traits=registry.traits_of(spec))
    return found.batches(model, settings)


def check_batches(spec: str, option: str = "--model") -> registry.BackendKind:
    """The kind of BACKEND:NAME, if it has a batch API (--batch); else the one-line error."""
    from mathprobe.errors import MathprobeError

    found = registry.kind_of(spec, option)
    if found.batches is None:
        takers = ", ".join(k.usage for k in registry.kinds() if k.batches is not None)
        raise MathprobeError(f"--batch: {option} {spec} has no batch API (batches are sent to "
                             f"{takers or 'no installed backend'})")
    return found


def __getattr__(name: str):
    # MODULES is computed when asked for, so a kind installed after this import is in it
    if name == "MODULES":
        return registry.slow_imports()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
