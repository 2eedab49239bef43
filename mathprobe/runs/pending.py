"""Which of a run's requests to ask now, as (item, sample) pairs (a run of one sample has sample
0 only; --samples K: docs/sampling.md): what was never asked; with --retry-failed, what failed
or was cut at the token cap; and, whatever the flags, what was cut at a cap the run has since
raised (a larger --max-tokens), because that reply is no answer to the request the run now
makes (docs/reasoning-models.md)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mathprobe.backends.reasoning import TRUNCATED
from mathprobe.contract import Benchmark
from mathprobe.items import Item
from mathprobe.runs.asking import build_request
from mathprobe.runs.samples import Ask, asks
from mathprobe.store import Store

FAILED = "infra_failed"
RETRIED = (FAILED, TRUNCATED)          # what --retry-failed asks again


@dataclass(frozen=True)
class Pending:
    todo: list[Ask]                    # (item id, sample) pairs to ask now, sample by sample
    answered: int                      # requests with an answer that counts
    failed: int                        # requests whose call failed for good
    truncated: int                     # requests whose reply was cut at the token cap
    recut: int                         # of those, asked again now under a raised cap


def pending(store: Store, bench: Benchmark, chosen: Sequence[Item], run_id: str, model: str,
            setting: str, params: dict[str, Any], retry_failed: bool,
            samples: int = 1) -> Pending:
    """The requests of `chosen` (each item's `samples` samples) to ask now. A truncated reply is
    asked again when the request the run makes now differs from the one that was cut (its
    content hash: a raised cap); its request is built only for that comparison (the few cut
    ones, not the run)."""
    statuses = store.sample_statuses(run_id)
    wanted = {(it.item_id, s) for it in chosen for s in range(samples)}
    found = {k: v for k, v in statuses.items() if k in wanted}
    cut = [k for k, v in found.items() if v == TRUNCATED]
    recut: set[Ask] = set()
    if cut and not retry_failed:
        hashes = {(i, s): h for i, s, h in store.query(
            "SELECT item_id, sample, request_hash FROM current_sample_responses "
            "WHERE run_id = ? AND status = ?", [run_id, TRUNCATED])}
        by_id = {it.item_id: it for it in chosen}
        recut = {(i, s) for i, s in cut if hashes.get((i, s)) != build_request(
            bench, by_id[i], model, setting, params, sample=s).request_hash}
    todo = asks([it.item_id for it in chosen], samples, found, recut,
                         RETRIED if retry_failed else ())
    failed = sum(1 for v in found.values() if v == FAILED)
    return Pending(todo, len(found) - failed - len(cut), failed, len(cut), len(recut))
