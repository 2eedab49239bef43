"""Sampled repeats (--samples K, docs/sampling.md): each item asked K times, as K independent
requests, every answer stored with its sample index (responses.sample).

Sample 0 is exactly the request a run of one sample makes (the same content hash), so the
paper's figures, which read sample 0, are those of a run without --samples, and a run resumed
with a larger K keeps what it has and asks only the missing samples. Sample s >= 1 is the same
request with its index in the content hash (so sample 2 is never served sample 1's cached or
stored answer) and, where the backend takes a seed (`BackendKind.sample_seed`: openai:, which
vLLM and SGLang serve too), the seed s sent with it, so a server that honours seeds gives the
same samples again. The chance baseline draws a guess per item and sample.

Asking K times at temperature 0 on a model that decodes greedily gives K copies of one answer:
pass@k and maj@k would then say nothing. Such a run is refused before anything is asked
(`check`), as is K > 1 on a backend with one answer per item (replay:).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from mathprobe.errors import MathprobeError

Ask = tuple[str, int]          # (item_id, sample): one request of a run


def seed_param(spec: str) -> str | None:
    """The request parameter a sample's seed goes in for BACKEND:NAME, or None."""
    from mathprobe.backends import registry

    return registry.kind_of(spec).sample_seed


def params_of(spec: str, params: dict[str, Any], sample: int) -> dict[str, Any]:
    """What sample `sample` of an item sends: the run's params, with the seed `sample` where
    the backend takes one (sample 0 sends the run's params as they are)."""
    name = seed_param(spec) if sample else None
    return {**params, name: sample} if name else params


def check(samples: int | None, spec: str, params: Mapping[str, Any]) -> None:
    """--samples K against the model: K > 1 needs a backend whose answers vary
    (`BackendKind.repeats`) and, where they vary with the temperature, a temperature above 0.
    (That a resumed run is never lowered is the store's check: runs_table.check_samples.)
    `samples` None: the run's own (1 for a new run)."""
    from mathprobe.backends import registry

    if samples is None or samples == 1:
        return
    kind = registry.kind_of(spec)
    if kind.repeats == "none":
        raise MathprobeError(f"--samples {samples}: {spec} has one answer per item (every "
                             "sample would be the same); use --samples 1")
    if kind.repeats == "temperature" and params.get("temperature") == 0:
        raise MathprobeError(
            f"--samples {samples}: {spec} is asked at temperature 0 (the benchmark's default, "
            "the paper's greedy decoding), which gives the same answer every time; give "
            "--temperature above 0 (e.g. --temperature 1) to draw independent samples")


def seeds(spec: str, samples: int) -> str | None:
    """What the run card records of the samples' seeds, or None for a run of one sample."""
    if samples <= 1:
        return None
    name = seed_param(spec)
    return (f"sample s >= 1 is sent {name}={{s}}; sample 0 sends none" if name
            else "the backend takes no seed; samples differ by sampling alone")


def asks(item_ids: Sequence[str], samples: int, statuses: Mapping[Ask, str],
         again: Iterable[Ask] = (), retried: tuple[str, ...] = ()) -> list[Ask]:
    """The (item, sample) pairs to ask now, sample by sample (every item's sample 0 first, so
    an interrupted or --max-cost-stopped run has its first sample, the paper's figures, as
    whole as it can): those never asked and those in `again`; with `retried` (--retry-failed)
    only those whose response that counts has one of those statuses."""
    again = set(again)

    def now(ask: Ask) -> bool:
        status = statuses.get(ask)
        return status in retried if retried else status is None or ask in again

    return [(item_id, s) for s in range(samples) for item_id in item_ids if now((item_id, s))]
