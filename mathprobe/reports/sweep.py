"""A sweep's comparison table: one row per (cell, figure), read from each cell's report (the
views). Kept small and apart so `mathprobe compare` can take its place when it exists."""
from __future__ import annotations

from typing import Any

from mathprobe.errors import MathprobeError
from mathprobe.reports.summary import build, figure_pairs
from mathprobe.store import Store


def cell_rows(store: Store, cells: list[tuple[str, str, str, str, str]]) -> list[dict[str, Any]]:
    """(run_id, benchmark, model, setting, state) cells -> rows of their headline figures: the
    answers counted, then the benchmark's own figures."""
    rows: list[dict[str, Any]] = []
    for run_id, benchmark, model, setting, state in cells:
        cell = {"run_id": run_id, "benchmark": benchmark, "model": model, "setting": setting,
                "state": state}
        try:
            report = build(store, run_id)
        except MathprobeError as exc:            # a cell that failed before storing anything
            rows.append({**cell, "figure": "error", "value": str(exc)})
            continue
        run = report["run"]
        figures = [("answered", f"{run['n_ok'] + run['n_refused']} of {run['n_items']}"),
                   ("failed calls", str(run["n_infra_failed"])),
                   *figure_pairs(report)]
        rows += [{**cell, "figure": f, "value": v} for f, v in figures]
    return rows
