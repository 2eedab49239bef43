"""Graders side by side: the same stored answers of a run graded by each of its graders (rules,
a judge, the cascade, verdicts imported from the authors' or a peer's files such as
VLMEvalKit's), each grader's headline figure with its bootstrap interval, and how far each agrees
with the grader the run is reported under (agreement, Cohen's kappa, the confusion table:
views `grader_agreement`, `grader_disagreements`). Generic: any benchmark, any graders.

`mathprobe compare` shows the table of every compared run that has more than one grader;
`mathprobe judge-audit --run` one pair in full, with the answers they disagree on.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mathprobe.contract import Benchmark, Stat
from mathprobe.reports import stats, units
from mathprobe.store import Store

AGREEMENT_COLUMNS = ("n_a", "n_b", "n_both", "both_right", "only_a_right", "only_b_right",
                     "both_wrong", "agreement", "kappa", "accuracy_a", "accuracy_b")


@dataclass
class GraderFigure:
    """One grader of one run: how many answers it decided, its headline figure, and its
    agreement with the grader the run is reported under (None for that grader itself)."""
    run_id: str
    grader: str
    reported: bool
    n_graded: int
    figure: stats.Estimate | None
    agreement: dict[str, Any] | None

    def as_dict(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "grader": self.grader, "reported": self.reported,
                "n_graded": self.n_graded,
                "figure": self.figure.as_dict() if self.figure is not None else None,
                "agreement": self.agreement}


def graders_of(store: Store, run_ids: Sequence[str]) -> dict[str, dict[str, int]]:
    """run id -> {grader: answers it decided} (verdicts on the responses that count)."""
    out: dict[str, dict[str, int]] = {r: {} for r in run_ids}
    for run_id, grader, n in store.query(
            "SELECT run_id, grader, count(*) FROM item_verdicts WHERE list_contains(?, run_id) "
            "GROUP BY run_id, grader ORDER BY run_id, grader", [list(run_ids)]):
        out[run_id][grader] = n
    return out


def agreement(store: Store, run_id: str, grader_a: str, grader_b: str) -> dict[str, Any] | None:
    """The `grader_agreement` row of two graders of a run; None when no answer has both."""
    rows = store.query_dicts(
        f"SELECT {', '.join(AGREEMENT_COLUMNS)} FROM grader_agreement WHERE run_id = ? AND "
        "grader_a = ? AND grader_b = ?", [run_id, grader_a, grader_b])
    return rows[0] if rows else None


def disagreements(store: Store, run_id: str, grader_a: str, grader_b: str,
                  limit: int | None = None) -> list[dict[str, Any]]:
    """The answers two graders of a run decide differently (`grader_disagreements`), by item."""
    return store.query_dicts(
        "SELECT item_id, response_id, correct_a, correct_b, extracted_a, extracted_b, gold, "
        "response FROM grader_disagreements WHERE run_id = ? AND grader_a = ? AND grader_b = ? "
        "ORDER BY item_id" + (f" LIMIT {int(limit)}" if limit else ""),
        [run_id, grader_a, grader_b])


def _estimate(store: Store, view: str, run_id: str, grader: str, stat: Stat,
              resamples: int, seed: int) -> stats.Estimate | None:
    """`stat` of one run under one grader, with its bootstrap interval."""
    frame = units.read(store, view, [(run_id, grader)])
    ru = frame.runs.get(run_id)
    if ru is None or not any(c in frame.cell_index for c in stat.cells):
        return None
    compiled = stats.Compiled([stat], frame.cell_index)
    n_sum, d_sum = stats.full_sums(ru.sums)
    point = compiled.evaluate(n_sum[None, :], d_sum[None, :])[0]
    if np.isnan(point[0]):
        return None
    reps = compiled.evaluate(*stats.resample_sums(ru.sums, resamples, seed))
    lo, hi = stats.interval(point, reps)
    n, count = compiled.sizes(n_sum, d_sum)[0]
    return stats.Estimate(float(point[0]), float(lo[0]), float(hi[0]), n, count)


def compare_graders(store: Store, bench: Benchmark, runs: Sequence[dict[str, Any]],
                    headline: Stat | None, resamples: int = stats.RESAMPLES,
                    seed: int = stats.SEED) -> list[GraderFigure]:
    """Per run with more than one grader: each grader's headline figure and its agreement with
    the grader the run is reported under (`run["grader"]`)."""
    by_run = graders_of(store, [r["run_id"] for r in runs])
    out = []
    for r in runs:
        graders = by_run.get(r["run_id"], {})
        if len(graders) < 2:
            continue
        reported = r["grader"]
        for grader in sorted(graders, key=lambda g: (g != reported, g)):
            figure = (_estimate(store, bench.comparison.units, r["run_id"], grader, headline,
                                resamples, seed) if headline is not None else None)
            out.append(GraderFigure(
                r["run_id"], grader, grader == reported, graders[grader], figure,
                None if grader == reported else agreement(store, r["run_id"], reported, grader)))
    return out
