"""Uncertainty of figures: a seeded bootstrap over a benchmark's units, and paired tests.

Every figure is a function of per-unit sums (`mathprobe.contract.Stat`): a ratio sum(num) / sum(den)
of one cell (an accuracy, a rate, a score), the mean of several cells' ratios (WE-MATH's
categories) or their standard deviation (the spread between repeated samples), or the share of
cells whose ratio is above alpha (CMMaTH's SSR). So one bootstrap
resample is one weight per unit (how often the unit was drawn), and every figure of every run
comes out of one product of the weights with the run's sums per (unit, cell), taken over their
nonzero entries (mathprobe.reports.unit_sums): the resamples of a run cost about one pass over
its rows.

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
- Paired test of two runs: an exact McNemar test (the binomial test on the discordant pairs,
  computed in exact integers; tests/reports/test_compare.py holds it to scipy's) where the
  figure is a share of right/wrong items both runs answered; otherwise the paired bootstrap of
  the difference, with a two-sided p-value from the resampled differences.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from mathprobe.contract import Stat
from mathprobe.reports import intervals
from mathprobe.reports.unit_sums import UnitSums

RESAMPLES = 1000
SEED = 20240611
CONFIDENCE = 0.95
SIGNIFICANCE = 0.05


def fewest_pairs(alpha: float = SIGNIFICANCE) -> int:
    """The fewest discordant pairs with which the exact two-sided binomial test at 1/2 (McNemar's,
    the sign test) can give p < alpha: all k one way gives p = 2 * 0.5**k (6 for alpha = 0.05:
    0.031; 5 give 0.0625)."""
    k = 1
    while 2 * 0.5 ** k >= alpha:
        k += 1
    return k


# The tests of a difference between two runs (docs/intervals.md) and the fewest units each needs
# before its p-value can mark a difference at SIGNIFICANCE: for McNemar's test the discordant
# items, for the sign test and the paired bootstrap the units whose figure moved (up or down).
# The two exact tests need no rule of their own (below it their p-value is at least 0.0625);
# the bootstrap's p-value is the share of resamples on the far side of 0, which says nothing
# of few moved units (one unit gives p = 0: every resample moves the same way), so below the
# fewest the exact sign test over the moved units is used in its place.
MCNEMAR = "mcnemar"               # exact McNemar: paired right/wrong items
SIGN = "sign"                     # exact sign test: the units whose figure went up vs down
BOOTSTRAP_TEST = "bootstrap"      # the paired bootstrap's two-sided p-value
MIN_N = {MCNEMAR: fewest_pairs(), SIGN: fewest_pairs(), BOOTSTRAP_TEST: fewest_pairs()}


def star_rule() -> str:
    """What a `*` means, in the words every output prints beside its differences."""
    return (f"* = significant: the adjusted p below {SIGNIFICANCE:g} and the 95% interval "
            "clear of 0")


def tests_note() -> str:
    """Which test gave each p-value, in the words every output prints beside its differences."""
    return ("p: the exact McNemar test (McNemar k/l, McN on the terminal: items right only in "
            "the baseline / only in the run), the paired bootstrap, or where fewer than "
            f"{MIN_N[BOOTSTRAP_TEST]} units moved the exact sign test (sign k/l: units whose "
            "figure is higher in the baseline / in the run)")


def significant(p_adjusted: float | None,
                interval: tuple[float | None, float | None] | None = None) -> bool:
    """The one rule for marking a difference significant, which every output shows (the `*` of
    the terminal, the Markdown artifact and the HTML report, `significant` in JSON and CSV): its
    test's multiplicity-adjusted p-value is below SIGNIFICANCE, and its interval, where it has
    one, does not hold 0 (a score interval and an exact test can disagree at the edge: no mark
    then). The tests' minimum n (MIN_N) is kept by the choice of test (compare.py)."""
    if p_adjusted is None or not p_adjusted < SIGNIFICANCE:
        return False
    if interval is None or interval[0] is None or interval[1] is None:
        return True
    return not interval[0] <= 0 <= interval[1]


# how an interval was made (`Estimate.ci_method`; the glossary and docs/intervals.md say more)
WILSON = "wilson"                 # Wilson score interval of k right of n independent units
BOOTSTRAP = "bootstrap"           # percentile bootstrap over the units
WILSON_UNITS = "wilson-units"     # the bootstrap collapsed: Wilson at the estimate over m units
NO_INTERVAL = "none"              # an unbounded figure whose resamples are all equal
TANGO = "tango"                   # a difference: Tango's score interval of paired items
TANGO_UNITS = "tango-units"       # a difference whose paired bootstrap collapsed: Tango, units

# each method's name as the reports print it beside an interval (short, in full): one source
METHODS = {
    WILSON: ("Wilson", "Wilson score interval"),
    BOOTSTRAP: ("bootstrap", f"percentile bootstrap over the units ({RESAMPLES} resamples)"),
    WILSON_UNITS: ("Wilson, units", "Wilson interval over the units (the bootstrap collapsed)"),
    TANGO: ("Tango", "Tango's score interval of paired items"),
    TANGO_UNITS: ("Tango, units", "Tango's interval over the units (the bootstrap collapsed)"),
    NO_INTERVAL: ("none", "no interval (an unbounded figure whose resamples all agree)"),
}


def method_name(method: str | None, full: bool = False) -> str:
    """How an interval was made, as a report names it (`METHODS`); '' for none given."""
    if not method:
        return ""
    return METHODS.get(method, (method, method))[1 if full else 0]


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
    `sums` its num, den per (unit, cell) (rows: the units' places in `units`); `rows`: the raw
    rows (unit, item, cell, num, den codes and values) for paired tests."""
    units: np.ndarray
    sums: UnitSums
    rows: dict[str, np.ndarray]

    @classmethod
    def build(cls, unit: np.ndarray, item: np.ndarray, cell: np.ndarray, num: np.ndarray,
              den: np.ndarray, n_cells: int) -> RunUnits:
        units, local = np.unique(unit, return_inverse=True)
        return cls(units, UnitSums.of(local, cell, num, den, len(units), n_cells),
                   {"unit": unit, "item": item, "cell": cell, "num": num, "den": den})

    def binary_cells(self) -> np.ndarray:
        """Per cell: is it a share of independent right/wrong units here, i.e. does every unit
        contribute num, den in {0, 1} with num <= den (one item of the figure, or none)?
        WE-MATH's S1 is not (a problem holds 2 or 3 one-step questions), nor is a leaf concept
        with two questions in one problem: their units are clusters."""
        return self.sums.binary_cells()

    def units_with_rows(self, cells: np.ndarray) -> int:
        """How many units have a row (den > 0) in any of `cells`."""
        return self.sums.units_with_rows(cells)

    def on(self, universe: np.ndarray) -> UnitSums:
        """The sums re-indexed to the rows of `universe` (sorted unit codes): units it lacks
        contribute nothing; its units outside the universe are dropped."""
        if len(universe) == len(self.units) and np.array_equal(universe, self.units):
            return self.sums
        pos = np.searchsorted(universe, self.units)
        inside = (pos < len(universe)) & (universe[np.minimum(pos, len(universe) - 1)] == self.units)
        return self.sums.reindexed(np.where(inside, pos, -1), len(universe))


class Compiled:
    """Stats turned into index arrays over cells, evaluated on (resamples x cells) sums."""

    def __init__(self, stats: Sequence[Stat], cell_index: dict[str, int]):
        self.stats = list(stats)
        self.offsets = np.array([s.den_offset for s in stats], dtype=np.float64)
        self.ratio = [(k, cell_index[s.cells[0]]) for k, s in enumerate(stats)
                      if s.how == "ratio" and s.cells[0] in cell_index]
        # (stat, how, its cells, a share_above's alpha as numerator, denominator)
        self.others: list[tuple[int, str, np.ndarray, tuple[int, int] | None]] = []
        for k, s in enumerate(stats):
            if s.how == "ratio":
                continue
            cells = np.array([cell_index[c] for c in s.cells if c in cell_index], dtype=np.int64)
            if s.how == "share_above":
                if s.alpha is None:
                    raise ValueError(f"stat {s.key}: share_above needs its alpha")
                frac = Fraction(s.alpha).limit_denominator(10_000)
                self.others.append((k, s.how, cells, (frac.numerator, frac.denominator)))
            elif s.how in ("macro", "sd"):
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
                if how in ("macro", "sd"):
                    r = np.where(has, n / np.where(has, d + plus, 1), 0.0)
                    mean = r.sum(axis=1) / np.maximum(count, 1)
                    if how == "macro":
                        out[:, k] = np.where(count > 0, mean, np.nan)
                    else:       # the sample SD of the cells' ratios (n - 1), over 2 or more
                        dev = np.where(has, r - mean[:, None], 0.0)
                        var = (dev * dev).sum(axis=1) / np.maximum(count - 1, 1)
                        out[:, k] = np.where(count > 1, np.sqrt(var), np.nan)
                else:   # share_above, compared exactly: num * q > p * den (integer sums)
                    assert alpha is not None           # __init__ gave every share_above one
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
        n_sum, d_sum = run.sums.totals()
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


def resample_sums(sums: UnitSums, resamples: int = RESAMPLES, seed: int = SEED
                  ) -> tuple[np.ndarray, np.ndarray]:
    """(resamples x cells) sums of num and den under the bootstrap weights of the units."""
    return sums.resampled(weights(sums.n_units, resamples, seed))


def full_sums(sums: UnitSums) -> tuple[np.ndarray, np.ndarray]:
    return sums.totals()


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
    2 P(X <= min(only_a, only_b)), at most 1; 1 when there are none. Vectorised; each in exact
    integers, Python's (the sum of binomial coefficients over 2^n)."""
    a, b = np.asarray(only_a), np.asarray(only_b)
    low, n = np.minimum(a, b).ravel(), (a + b).ravel()
    p = [1.0 if m == 0 else min(1.0, 2 * _binomial_half_cdf(int(k), int(m)))
         for k, m in zip(low, n)]
    out = np.asarray(p, dtype=np.float64).reshape(np.shape(a + b))
    return float(out) if out.ndim == 0 else out


def _binomial_half_cdf(k: int, n: int) -> float:
    """P(X <= k) for X ~ Binomial(n, 1/2)."""
    return sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n


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
