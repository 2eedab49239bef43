"""Uncertainty of figures: a seeded bootstrap over a benchmark's units, and paired tests.

Every figure is a function of per-unit sums (`mathprobe.contract.Stat`): a ratio sum(num) / sum(den)
of one cell (an accuracy, a rate, a score), the mean of several cells' ratios (WE-MATH's
categories), or the share of cells whose ratio is above alpha (CMMaTH's SSR). So one bootstrap
resample is one weight per unit (how often the unit was drawn), and every figure of every run
comes out of a sparse matrix product: the resamples of a run cost about one pass over its rows.

- Resamples: Efron's nonparametric bootstrap, `RESAMPLES` draws of n units with replacement
  (numpy's PCG64 seeded with (`SEED`, n)), so the same units are drawn the same way in every run
  and every report: results are reproducible, and runs over the same units are resampled jointly
  (their differences are paired by construction).
- Interval (`Compiled.intervals`, docs/intervals.md): a share of independent right/wrong units
  (each unit one item, or none, of the figure) gets the Wilson score interval
  (`mathprobe.reports.intervals`); any other figure the percentile interval at `CONFIDENCE`. A
  non-smooth figure (a share above a threshold) can have a bootstrap distribution that sits to
  one side of the estimate; then the interval is widened to include the estimate, and never
  reported without it. Where every resample gives the same value (0 right of 12 questions
  clustered in problems, one unit), the bootstrap says nothing: a figure in [0, 1] then gets the
  Wilson interval at its estimate over its m units, each counted once; an unbounded one none.
  Each estimate names its method (`ci_method`).
- Paired test of two runs: an exact McNemar test (scipy's binomial test on the discordant pairs)
  where the figure is a share of right/wrong items both runs answered; otherwise the paired
  bootstrap of the difference, with a two-sided p-value from the resampled differences.
"""
from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy import sparse

from mathprobe.contract import Stat
from mathprobe.reports import intervals

RESAMPLES = 1000
SEED = 20240611
CONFIDENCE = 0.95
SIGNIFICANCE = 0.05


# how an interval was made (`Estimate.ci_method`; the glossary and docs/intervals.md say more)
WILSON = "wilson"                 # Wilson score interval of k right of n independent units
BOOTSTRAP = "bootstrap"           # percentile bootstrap over the units
WILSON_UNITS = "wilson-units"     # the bootstrap collapsed: Wilson at the estimate over m units
NO_INTERVAL = "none"              # an unbounded figure whose resamples are all equal


@dataclass(frozen=True)
class Estimate:
    """A figure with its interval. `n`: the rows it is over (questions, problems; for a share
    of cells, the cells with rows); `count`: sum(num) where it is a count; `ci_method`: how the
    interval was made."""
    value: float | None
    ci_low: float | None
    ci_high: float | None
    n: int
    count: float | None = None
    ci_method: str = BOOTSTRAP

    def as_dict(self) -> dict:
        return {"value": self.value, "ci_low": self.ci_low, "ci_high": self.ci_high, "n": self.n,
                **({"count": self.count} if self.count is not None else {}),
                "ci_method": self.ci_method}


@functools.lru_cache(maxsize=16)
def weights(n_units: int, resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """(n_units x resamples): how many times each unit is drawn in each resample (resample b
    draws n_units units uniformly with replacement)."""
    rng = np.random.default_rng([seed, n_units])
    out = np.empty((n_units, resamples), dtype=np.float64)
    # drawn a block of resamples at a time (the same stream as one call): one call's draws
    # and counts are three (resamples x n_units) int64 copies, a spike at the end of every run
    for lo in range(0, resamples, _BLOCK):
        hi = min(lo + _BLOCK, resamples)
        draws = rng.integers(0, n_units, size=(hi - lo, n_units))
        draws += (np.arange(hi - lo) * n_units)[:, None]
        out[:, lo:hi] = np.bincount(draws.ravel(), minlength=(hi - lo) * n_units
                                    ).reshape(hi - lo, n_units).T
    out.setflags(write=False)
    return out


_BLOCK = 100


@dataclass
class RunUnits:
    """One run's rows of the figure-units view, coded: `units` the sorted unit codes it has;
    `num`, `den` (len(units) x n_cells) sums per unit and cell; `rows`: the raw rows (unit,
    item, cell, num, den codes and values) for paired tests."""
    units: np.ndarray
    num: sparse.csr_matrix
    den: sparse.csr_matrix
    rows: dict[str, np.ndarray]

    @classmethod
    def build(cls, unit: np.ndarray, item: np.ndarray, cell: np.ndarray, num: np.ndarray,
              den: np.ndarray, n_cells: int) -> RunUnits:
        units, local = np.unique(unit, return_inverse=True)
        shape = (len(units), n_cells)
        return cls(units,
                   sparse.csr_matrix((num, (local, cell)), shape=shape),
                   sparse.csr_matrix((den, (local, cell)), shape=shape),
                   {"unit": unit, "item": item, "cell": cell, "num": num, "den": den})

    def binary_cells(self) -> np.ndarray:
        """Per cell: is it a share of independent right/wrong units here, i.e. does every unit
        contribute num, den in {0, 1} with num <= den (one item of the figure, or none)?
        WE-MATH's S1 is not (a problem holds 2 or 3 one-step questions), nor is a leaf concept
        with two questions in one problem: their units are clusters."""
        def bad(m: sparse.csr_matrix) -> np.ndarray:
            flags = m.copy()
            flags.data = ((flags.data != 0) & (flags.data != 1)).astype(np.float64)
            return np.asarray(flags.sum(axis=0)).ravel() > 0

        over = self.num - self.den
        over.data = (over.data > 0).astype(np.float64)
        return ~(bad(self.num) | bad(self.den) | (np.asarray(over.sum(axis=0)).ravel() > 0))

    def units_with_rows(self, cells: np.ndarray) -> int:
        """How many units have a row (den > 0) in any of `cells`."""
        if not len(cells):
            return 0
        return int(np.count_nonzero(np.asarray((self.den[:, cells] > 0).sum(axis=1)).ravel()))

    def on(self, universe: np.ndarray) -> tuple[sparse.csr_matrix, sparse.csr_matrix]:
        """num, den re-indexed to the rows of `universe` (sorted unit codes): units it lacks
        contribute nothing; its units outside the universe are dropped."""
        if len(universe) == len(self.units) and np.array_equal(universe, self.units):
            return self.num, self.den
        pos = np.searchsorted(universe, self.units)
        inside = (pos < len(universe)) & (universe[np.minimum(pos, len(universe) - 1)] == self.units)
        pick = sparse.csr_matrix((np.ones(inside.sum()), (pos[inside], np.flatnonzero(inside))),
                                 shape=(len(universe), len(self.units)))
        return pick @ self.num, pick @ self.den


class Compiled:
    """Stats turned into index arrays over cells, evaluated on (resamples x cells) sums."""

    def __init__(self, stats: Sequence[Stat], cell_index: dict[str, int]):
        self.stats = list(stats)
        self.offsets = np.array([s.den_offset for s in stats], dtype=np.float64)
        self.ratio = [(k, cell_index[s.cells[0]]) for k, s in enumerate(stats)
                      if s.how == "ratio" and s.cells[0] in cell_index]
        self.others = []
        for k, s in enumerate(stats):
            if s.how == "ratio":
                continue
            cells = np.array([cell_index[c] for c in s.cells if c in cell_index], dtype=np.int64)
            if s.how == "share_above":
                frac = Fraction(s.alpha).limit_denominator(10_000)
                self.others.append((k, s.how, cells, (frac.numerator, frac.denominator)))
            elif s.how == "macro":
                self.others.append((k, s.how, cells, None))
            else:
                raise ValueError(f"stat {s.key}: unknown how {s.how!r}")

    def evaluate(self, num: np.ndarray, den: np.ndarray) -> np.ndarray:
        """(resamples x stats) values from (resamples x cells) sums; NaN where undefined."""
        out = np.full((num.shape[0], len(self.stats)), np.nan)
        with np.errstate(invalid="ignore", divide="ignore"):
            if self.ratio:
                at, cells = map(np.array, zip(*self.ratio))
                d = den[:, cells]
                plus = self.offsets[at]
                out[:, at] = np.where(d > 0, num[:, cells] / np.where(d > 0, d + plus, 1), np.nan)
            for k, how, cells, alpha in self.others:
                if not len(cells):
                    continue
                n, d = num[:, cells], den[:, cells]
                has = d > 0
                count = has.sum(axis=1)
                plus = self.offsets[k]
                if how == "macro":
                    r = np.where(has, n / np.where(has, d + plus, 1), 0.0)
                    out[:, k] = np.where(count > 0, r.sum(axis=1) / np.maximum(count, 1), np.nan)
                else:   # share_above, compared exactly: num * q > p * den (integer sums)
                    p, q = alpha
                    above = has & (n * q > p * (d + plus))
                    out[:, k] = np.where(count > 0, above.sum(axis=1) / np.maximum(count, 1), np.nan)
        return out

    def cells_of(self, k: int) -> np.ndarray:
        """The cell indexes stat k is computed over."""
        ratio = dict(self.ratio)
        if k in ratio:
            return np.array([ratio[k]], dtype=np.int64)
        return next((c for j, _, c, _ in self.others if j == k), np.array([], dtype=np.int64))

    def intervals(self, point: np.ndarray, reps: np.ndarray, run: RunUnits,
                  confidence: float = CONFIDENCE) -> tuple[np.ndarray, np.ndarray, list[str]]:
        """(ci_low, ci_high, method) of every stat of one run: Wilson for a share of
        independent right/wrong units, else the bootstrap's percentile interval, and where that
        collapsed to a point, Wilson at the estimate over the stat's m units (a figure in
        [0, 1]) or no interval (an unbounded one). See the module's docstring."""
        lo, hi = interval(point, reps, confidence)
        methods = [BOOTSTRAP] * len(self.stats)
        binary = run.binary_cells()
        n_sum, d_sum = full_sums(run.num, run.den)
        for k, s in enumerate(self.stats):
            if np.isnan(point[k]):
                continue
            cells = self.cells_of(k)
            if (s.how == "ratio" and not s.den_offset and s.bounded and len(cells)
                    and binary[cells[0]] and d_sum[cells[0]] > 0):
                lo[k], hi[k] = intervals.wilson(n_sum[cells[0]], d_sum[cells[0]], confidence)
                methods[k] = WILSON
            elif not hi[k] > lo[k]:                  # collapsed (or undefined)
                m = (int((d_sum[cells] > 0).sum()) if s.how == "share_above"
                     else run.units_with_rows(cells))
                if s.bounded and m > 0:
                    lo[k], hi[k] = intervals.wilson(point[k] * m, m, confidence)
                    methods[k] = WILSON_UNITS
                else:
                    lo[k], hi[k], methods[k] = np.nan, np.nan, NO_INTERVAL
        return lo, hi, methods

    def sizes(self, num: np.ndarray, den: np.ndarray) -> list[tuple[int, float | None]]:
        """(n, count) of each stat from one row of sums (the full sample); a count for the
        ratios whose numerator counts things (`Stat.counted`)."""
        out: list[tuple[int, float | None]] = [(0, None)] * len(self.stats)
        for k, c in self.ratio:
            counted = self.stats[k].counted
            out[k] = (int(round(den[c])), float(num[c]) if counted else None)
        for k, how, cells, _ in self.others:
            d = den[cells] if len(cells) else np.array([])
            out[k] = (int((d > 0).sum()) if how == "share_above" else int(round(d.sum())), None)
        return out


def resample_sums(num: sparse.csr_matrix, den: sparse.csr_matrix,
                  resamples: int = RESAMPLES, seed: int = SEED) -> tuple[np.ndarray, np.ndarray]:
    """(resamples x cells) sums of num and den under the bootstrap weights of num's units."""
    w = weights(num.shape[0], resamples, seed)
    both = (sparse.hstack([num, den], format="csr").T @ w).T     # one pass for both
    return both[:, :num.shape[1]], both[:, num.shape[1]:]


def full_sums(num: sparse.csr_matrix, den: sparse.csr_matrix) -> tuple[np.ndarray, np.ndarray]:
    return np.asarray(num.sum(axis=0)).ravel(), np.asarray(den.sum(axis=0)).ravel()


def interval(point: np.ndarray, reps: np.ndarray,
             confidence: float = CONFIDENCE) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval of each column of `reps` (NaN resamples left out; numpy's 'linear'
    quantile, computed for all columns at once), widened to include `point`."""
    tail = (1 - confidence) / 2
    ordered = np.sort(reps, axis=0)                  # NaNs sort last
    valid = (~np.isnan(reps)).sum(axis=0)
    cols = np.arange(reps.shape[1])

    def quantile(q: float) -> np.ndarray:
        pos = np.maximum(valid - 1, 0) * q
        lo = np.floor(pos).astype(np.int64)
        hi = np.minimum(lo + 1, np.maximum(valid - 1, 0))
        frac = pos - lo
        out = ordered[lo, cols] * (1 - frac) + ordered[hi, cols] * frac
        return np.where(valid > 0, out, np.nan)

    return np.fmin(quantile(tail), point), np.fmax(quantile(1 - tail), point)


def bootstrap_p(diffs: np.ndarray) -> np.ndarray:
    """Two-sided p-value of 'no difference' from resampled differences (per column): twice the
    smaller share of resamples on either side of 0, at most 1."""
    with np.errstate(invalid="ignore"):
        valid = ~np.isnan(diffs)
        n = np.maximum(valid.sum(axis=0), 1)
        below = (np.where(valid, diffs, np.inf) <= 0).sum(axis=0) / n
        above = (np.where(valid, diffs, -np.inf) >= 0).sum(axis=0) / n
    return np.minimum(1.0, 2 * np.minimum(below, above))


def mcnemar(only_a: np.ndarray | int, only_b: np.ndarray | int) -> np.ndarray | float:
    """Exact McNemar p-value: under H0 the discordant pairs split 50/50, so the two-sided
    binomial test (scipy.stats.binomtest(only_a, only_a + only_b, 0.5)), which at p = 0.5 is
    2 P(X <= min(only_a, only_b)), at most 1; 1 when there are none. Vectorised.
    (scipy.stats is imported here, not with the module: it takes 0.9 s, and a single run's
    report, e.g. the artifact every eval flow publishes, compares no runs.)"""
    from scipy.stats import binom

    a, b = np.asarray(only_a), np.asarray(only_b)
    n = a + b
    p = np.minimum(1.0, 2 * binom.cdf(np.minimum(a, b), np.maximum(n, 1), 0.5))
    out = np.where(n == 0, 1.0, p)
    return float(out) if out.ndim == 0 else out


def binary_outcomes(rows: dict[str, np.ndarray], n_cells: int) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """cell -> (sorted item codes, 0/1 outcomes) for the cells whose every row in this run is one
    right/wrong item (den 1, num 0 or 1): the cells a McNemar test applies to."""
    cell, num, den = rows["cell"], rows["num"], rows["den"]
    bad = np.zeros(n_cells, dtype=bool)
    bad[cell[(den != 1) | ((num != 0) & (num != 1))]] = True
    order = np.lexsort((rows["item"], cell))
    cell_o = cell[order]
    bounds = np.searchsorted(cell_o, np.arange(n_cells + 1))
    out = {}
    for c in range(n_cells):
        lo, hi = bounds[c], bounds[c + 1]
        if hi > lo and not bad[c]:
            at = order[lo:hi]
            out[c] = (rows["item"][at], num[at])
    return out


def discordant(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]
               ) -> tuple[int, int, int]:
    """(items both have, right only in a, right only in b) of one cell's binary outcomes."""
    common, ia, ib = np.intersect1d(a[0], b[0], assume_unique=True, return_indices=True)
    xa, xb = a[1][ia], b[1][ib]
    return len(common), int(((xa == 1) & (xb == 0)).sum()), int(((xa == 0) & (xb == 1)).sum())
