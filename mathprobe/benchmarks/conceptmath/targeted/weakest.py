"""A run's weakest concepts, honestly ranked: per system, the k level-3 concepts with the lowest
accuracy (view macro `conceptmath_lowest_k`: ties to the concept with more problems, then by
name; concepts with fewer than `conceptmath_unmastered_min_n()` graded problems left out and
counted), each with n, its 95% Wilson interval and a warning where that interval reaches the
accuracy of the first concept outside the k, so its place among them is not established.

The first step of the paper's targeted improvement (Sec. 2.4): `select-data` pulls training data
for these concepts, `conceptmath_targeted` measures them again. Error analysis reads the same
ranking (`weakest`)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mathprobe.figures import Ranked, Ranking
from mathprobe.reports.format import pct
from mathprobe.store import Store

K = 10          # the paper's: "the 10 concepts with the lowest accuracy"
LEVEL = 3


def weakest(store: Store, run_id: str, grader: str, k: int = K, level: int = LEVEL,
            systems: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """The rows of conceptmath_lowest_k for one run and grader: system, rank, concept, n,
    correct, accuracy, ci_low, ci_high, next_accuracy, uncertain, n_eligible, n_too_few;
    by system, then rank."""
    rows = store.query_dicts(
        "SELECT system, rank, concept, n, correct, accuracy, ci_low, ci_high, next_accuracy, "
        "uncertain, n_eligible, n_too_few FROM conceptmath_lowest_k(?, lvl := ?) "
        "WHERE run_id = ? AND grader = ? ORDER BY system, rank", [k, level, run_id, grader])
    return [r for r in rows if systems is None or r["system"] in systems]


def warning(row: Mapping[str, Any], k: int) -> str:
    """Why a ranked concept's place among the k weakest is not established, or ''."""
    if not row["uncertain"]:
        return ""
    return (f"n={row['n']}: its interval reaches {pct(row['next_accuracy'])}%, the accuracy of "
            f"the first concept outside the {k} weakest; its place among them is not "
            "established")


def rankings(store: Store, runs: Sequence[Mapping[str, Any]], labels: Mapping[str, str],
             k: int = K) -> list[Ranking]:
    """One `Ranking` per run and system (`labels`: system -> its name in reports)."""
    out = []
    for run in runs:
        by_system: dict[str, list[dict[str, Any]]] = {}
        for r in weakest(store, run["run_id"], run["grader"], k):
            by_system.setdefault(r["system"], []).append(r)
        order = {s: i for i, s in enumerate(labels)}
        for system in sorted(by_system, key=lambda s: (order.get(s, len(order)), s)):
            rows = by_system[system]
            too_few = rows[0]["n_too_few"]
            out.append(Ranking(
                f"weakest:{system}",
                f"Weakest concepts, {labels.get(system, system)}: the {len(rows)} lowest of "
                f"{rows[0]['n_eligible']} level-3 concepts",
                run["run_id"],
                tuple(Ranked(r["rank"], r["concept"], r["accuracy"], r["ci_low"], r["ci_high"],
                             r["n"], r["correct"], warning(r, k)) for r in rows),
                note=("lowest accuracy first; ties: the concept with more problems, then by "
                      "name; 95% Wilson intervals; ! = the interval reaches the accuracy of the "
                      "first concept outside the ranking"
                      + (f"; {too_few} concept(s) with fewer than "
                         f"{int(store.query('SELECT conceptmath_unmastered_min_n()')[0][0])} "
                         "graded problems left out" if too_few else "")
                      + " (view macro conceptmath_lowest_k)")))
    return out
