"""Model backends behind one small async interface.

A backend turns a `Request` into a `Completion` and never raises for a failed call: failures come
back as `Completion(status='infra_failed', error=...)` so they are stored, excluded from metrics
and retried later instead of being graded as wrong answers.
"""
from __future__ import annotations

from typing import Protocol

from tasks.errors import MathprobeError
from tasks.items import Completion, Request


class Backend(Protocol):
    kind: str      # 'baseline', 'openai', ...
    model: str     # the part after the colon

    async def complete(self, request: Request) -> Completion: ...

    async def aclose(self) -> None: ...


def parse_spec(spec: str) -> tuple[str, str]:
    kind, sep, model = spec.partition(":")
    if not sep or not kind or not model:
        raise MathprobeError(f"--model {spec!r}: expected BACKEND:NAME, e.g. baseline:random")
    return kind, model


def get_backend(spec: str, **options) -> Backend:
    kind, model = parse_spec(spec)
    if kind == "baseline":
        from tasks.backends.baseline import RandomBaseline
        if model != "random":
            raise MathprobeError(f"--model {spec!r}: the only baseline is baseline:random")
        return RandomBaseline(seed=options.get("seed", 0))
    raise MathprobeError(f"--model {spec!r}: unknown backend {kind!r} (available: baseline)")
