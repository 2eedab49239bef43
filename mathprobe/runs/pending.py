"""Which of a run's items to ask now: what was never asked; with --retry-failed, what failed or
was cut at the token cap; and, whatever the flags, what was cut at a cap the run has since
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
from mathprobe.store import Store

FAILED = "infra_failed"
RETRIED = (FAILED, TRUNCATED)          # what --retry-failed asks again


@dataclass(frozen=True)
class Pending:
    todo: list[str]                    # item ids to ask now, in the run's order
    answered: int                      # items with an answer that counts
    failed: int                        # items whose call failed for good
    truncated: int                     # items whose reply was cut at the token cap
    recut: int                         # of those, asked again now under a raised cap


def pending(store: Store, bench: Benchmark, chosen: Sequence[Item], run_id: str, model: str,
            setting: str, params: dict[str, Any], retry_failed: bool) -> Pending:
    """The items of `chosen` to ask now. A truncated reply is asked again when the request the
    run makes now differs from the one that was cut (its content hash: a raised cap); its
    request is built only for that comparison (the few cut items, not the run)."""
    statuses = store.item_statuses(run_id)
    cut = [it for it in chosen if statuses.get(it.item_id) == TRUNCATED]
    recut: set[str] = set()
    if cut and not retry_failed:
        hashes = dict(store.query(
            "SELECT item_id, request_hash FROM current_responses WHERE run_id = ? "
            "AND status = ?", [run_id, TRUNCATED]))
        recut = {it.item_id for it in cut if hashes.get(it.item_id) != build_request(
            bench, it, model, setting, params).request_hash}
    if retry_failed:
        todo = [it.item_id for it in chosen if statuses.get(it.item_id) in RETRIED]
    else:
        todo = [it.item_id for it in chosen
                if it.item_id not in statuses or it.item_id in recut]
    failed = sum(1 for it in chosen if statuses.get(it.item_id) == FAILED)
    answered = sum(1 for it in chosen if it.item_id in statuses) - failed - len(cut)
    return Pending(todo, answered, failed, len(cut), len(recut))
