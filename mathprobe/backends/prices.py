"""The price table: token counts in, dollars out. A request answered through a service's batch
API (`--batch`, docs/batches.md) costs half: OpenAI's Batch API and Anthropic's Message Batches
both bill batched tokens at 50% of the direct price, so the one table serves both."""
from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path

from mathprobe.errors import MathprobeError

DEFAULT = Path(__file__).with_name("prices.toml")
BATCH_DISCOUNT = 0.5        # a batched request's share of the direct price (OpenAI, Anthropic)


@lru_cache(maxsize=8)
def load(extra: str | None) -> dict[str, dict[str, dict[str, float]]]:
    table = tomllib.loads(DEFAULT.read_text())
    if extra:
        path = Path(extra)
        try:
            more = tomllib.loads(path.read_text())
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise MathprobeError(f"{path}: cannot read the price table ({exc})") from exc
        for kind, models in more.items():
            table.setdefault(kind, {}).update(_checked(path, kind, models))
    return table


def _checked(path: Path, kind: str, models) -> dict[str, dict[str, float]]:
    """A user's price table, entry by entry: a price that is not two finite amounts (input,
    output) would fail every answer's cost mid-run, or keep --max-cost from ever counting."""
    import math

    if not isinstance(models, dict):
        raise MathprobeError(f"{path}: [{kind}] must be a table of models, e.g. [{kind}] "
                             '"my-model" = { input = 0.5, output = 1.5 }')
    for model, entry in models.items():
        for field in ("input", "output"):
            value = entry.get(field) if isinstance(entry, dict) else None
            if (isinstance(value, bool) or not isinstance(value, int | float)
                    or not math.isfinite(value) or value < 0):
                raise MathprobeError(
                    f"{path}: [{kind}] {model!r}: field {field!r} must be a number of US "
                    f"dollars per million tokens, at least 0 (got {value!r}); e.g. "
                    f'"{model}" = {{ input = 0.5, output = 1.5 }}')
    return models


def price(kind: str, model: str) -> dict[str, float] | None:
    from mathprobe import settings

    return load(settings.get("MATHPROBE_PRICES")).get(kind, {}).get(model)


def cost(kind: str, model: str, input_tokens: int | None, output_tokens: int | None,
         batch: bool = False) -> float | None:
    """Dollars for one call, or None when the model has no price (or the call no token counts).
    A reasoning model's reasoning tokens are output tokens (OpenAI counts them in
    completion_tokens, Anthropic its thinking in output_tokens): priced as such, once. `batch`:
    the call was answered through a batch, at BATCH_DISCOUNT of the table's price."""
    p = price(kind, model)
    if p is None or input_tokens is None or output_tokens is None:
        return None
    dollars = (input_tokens * p["input"] + output_tokens * p["output"]) / 1_000_000
    return dollars * BATCH_DISCOUNT if batch else dollars


def is_priced(spec: str) -> bool:
    """Whether the cost of BACKEND:NAME is known: a kind whose calls cost nothing here (its
    `priced` is false, or it is not installed here to say) is; a priced kind's model only with
    an entry in the price table."""
    from mathprobe.backends import reasoning, registry

    kind, _, model = spec.partition(":")
    model = reasoning.unmarked(model)
    found = registry.find(kind)
    return found is None or not found.priced or price(kind, model) is not None
