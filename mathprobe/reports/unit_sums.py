"""A run's figure units as sums per (unit, cell), kept as their nonzero entries, and the few
products the bootstrap and the paired tests take of them.

A run's rows of its benchmark's figure-units view sum to a few entries per unit (a unit's
questions fall in a handful of cells: 7,512 entries for WE-MATH's 525 problems x 80 cells,
20,055 for ConceptMath's 4,011 questions x 307 cells). Kept as dense (units x cells) arrays,
the bootstrap's product with the (units x resamples) weights took 15-20 times longer than over
the entries (1.6 s against 0.07 s for ConceptMath); scipy's sparse matrices did this before,
and scipy, for these few products, was 143 MB of the 919 MB core install (issue 38). numpy does
them here over the entries: a sum per cell is a weighted `bincount`, the resampled sums of a
cell one small product of its entries' values with their units' weights (as fast as scipy's
sparse product: 0.09 s for ConceptMath's 20,055 entries and 1,000 resamples, where gathering
every entry's weights and reducing them per cell took 1.2 s), at most `_CHUNK` entries at a
time so the gathered weights stay small.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_CHUNK = 2048         # entries whose weights are gathered at a time (2048 x resamples x 8 bytes)


@dataclass(frozen=True)
class UnitSums:
    """num and den per (unit, cell) where either is nonzero, one entry per pair, sorted by cell:
    `unit` and `cell` are row and column indexes into (n_units x n_cells)."""
    unit: np.ndarray
    cell: np.ndarray
    num: np.ndarray
    den: np.ndarray
    n_units: int
    n_cells: int

    @classmethod
    def of(cls, unit: np.ndarray, cell: np.ndarray, num: np.ndarray, den: np.ndarray,
           n_units: int, n_cells: int) -> UnitSums:
        """The sums of rows (unit, cell, num, den), the rows of one pair added up."""
        key = np.asarray(cell, dtype=np.int64) * max(n_units, 1) + np.asarray(unit, np.int64)
        pairs, at = np.unique(key, return_inverse=True)
        n = np.bincount(at, weights=np.asarray(num, dtype=np.float64), minlength=len(pairs))
        d = np.bincount(at, weights=np.asarray(den, dtype=np.float64), minlength=len(pairs))
        keep = (n != 0) | (d != 0)
        pairs = pairs[keep]
        return cls(pairs % max(n_units, 1), pairs // max(n_units, 1), n[keep], d[keep],
                   n_units, n_cells)

    def totals(self) -> tuple[np.ndarray, np.ndarray]:
        """(num, den) summed over all units, per cell."""
        return (np.bincount(self.cell, weights=self.num, minlength=self.n_cells),
                np.bincount(self.cell, weights=self.den, minlength=self.n_cells))

    def resampled(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(num, den), each (resamples x cells), summed under `weights` (units x resamples):
        resample r weighs unit u by weights[u, r]."""
        out = np.zeros((2, self.n_cells, weights.shape[1]))
        values = np.stack([self.num, self.den])                  # 2 x entries
        starts = np.flatnonzero(np.r_[True, self.cell[1:] != self.cell[:-1]])
        for lo, end in zip(starts, np.r_[starts[1:], len(self.cell)]):
            for at in range(lo, end, _CHUNK):
                to = min(at + _CHUNK, end)
                out[:, self.cell[lo]] += values[:, at:to] @ weights[self.unit[at:to]]
        return out[0].T, out[1].T

    def binary_cells(self) -> np.ndarray:
        """Per cell: does every unit contribute num, den in {0, 1} with num <= den?"""
        bad = ((self.num != 0) & (self.num != 1)) | ((self.den != 0) & (self.den != 1)) \
            | (self.num > self.den)
        return np.bincount(self.cell[bad], minlength=self.n_cells) == 0

    def per_unit(self, cells: np.ndarray, values: np.ndarray) -> np.ndarray:
        """`values` (one per entry) summed per unit over `cells`."""
        mask = np.isin(self.cell, cells)
        return np.bincount(self.unit[mask], weights=values[mask], minlength=self.n_units)

    def units_with_rows(self, cells: np.ndarray) -> int:
        """How many units have a row (den > 0) in any of `cells`."""
        if not len(cells):
            return 0
        return int(np.count_nonzero(self.per_unit(cells, (self.den > 0).astype(np.float64))))

    def reindexed(self, rows: np.ndarray, n_units: int) -> UnitSums:
        """The sums with unit u moved to row rows[u] of (n_units x cells); rows[u] < 0 drops
        it."""
        new = rows[self.unit]
        keep = new >= 0
        return UnitSums(new[keep], self.cell[keep], self.num[keep], self.den[keep], n_units,
                        self.n_cells)
