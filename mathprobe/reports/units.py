"""Reading a benchmark's figure-units view for a set of runs, coded as integers for numpy.

Units and items are coded by a 64-bit hash of their name, cells by their place in the sorted
list of cells, so the same unit has the same code in every run and every report (the bootstrap
draws it the same way everywhere) and a pair of runs is matched item by item without strings.
"""
from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mathprobe.reports.stats import RunUnits
from mathprobe.store import Store


@dataclass
class Frame:
    cells: list[str]
    runs: dict[str, RunUnits]       # run_id -> its rows (runs without rows are absent)

    @property
    def cell_index(self) -> dict[str, int]:
        return {c: i for i, c in enumerate(self.cells)}


def read(store: Store, view: str, selection: Sequence[tuple[str, str]]) -> Frame:
    """The rows of `view` (run_id, grader, unit, item, cell, num, den) for each (run, grader) of
    `selection`; a row with grader NULL (a figure no grader decides, e.g. a probe's score)
    belongs to its run whatever the grader."""
    if not selection:
        return Frame([], {})
    values = ", ".join(f"({k}, ?, ?)" for k in range(len(selection)))
    params = [x for pair in selection for x in pair]
    # a temporary table of this connection (any store, read-only ones too, a lake's included),
    # named for this call: the view is computed once, then read twice
    temp = f"_figure_units_{uuid.uuid4().hex[:12]}"
    store.query(f"""
        CREATE TEMP TABLE {temp} AS
        WITH sel(r, run_id, grader) AS (VALUES {values})
        SELECT sel.r, v.unit, v.item, v.cell, v.num, v.den
        FROM {view} v JOIN sel ON v.run_id = sel.run_id
        WHERE coalesce(v.grader, sel.grader) = sel.grader
          AND v.cell IS NOT NULL AND v.num IS NOT NULL AND v.den IS NOT NULL""", params)
    try:
        cells = [c for (c,) in store.query(f"SELECT DISTINCT cell FROM {temp} ORDER BY cell")]
        # units and items by a 64-bit hash of their name (the same in every run and report:
        # the bootstrap's order of units), cells by their place in `cells`
        cols = store.query_numpy(f"""
            WITH codes AS (SELECT unnest($cells::VARCHAR[]) AS cell,
                                  generate_subscripts($cells::VARCHAR[], 1) - 1 AS code)
            SELECT r, hash(unit) AS unit, hash(item) AS item, codes.code AS cell, num, den
            FROM {temp} JOIN codes USING (cell) ORDER BY r""", {"cells": cells})
    finally:
        store.query(f"DROP TABLE IF EXISTS {temp}")
    r = np.asarray(cols["r"])
    bounds = np.searchsorted(r, np.arange(len(selection) + 1))
    runs = {}
    for k, (run_id, _) in enumerate(selection):
        lo, hi = bounds[k], bounds[k + 1]
        if hi > lo:
            unit, item, cell, num, den = (np.asarray(cols[c][lo:hi]) for c in
                                          ("unit", "item", "cell", "num", "den"))
            runs[run_id] = RunUnits.build(unit, item, cell, num, den, n_cells=len(cells))
    return Frame(cells, runs)
