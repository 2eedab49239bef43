"""Intervals that stay honest at the edges, and p-values adjusted for testing many figures.

A percentile bootstrap collapses to a point where every resample gives the same value: a concept
with 0 right of 12 shows [0, 0], a run of one question [100, 100], two identical runs differ by
[0, 0]. A reader takes that for certainty. So:

- `wilson`: the Wilson score interval of a share of independent right/wrong items (k of n), the
  interval Brown, Cai & DasGupta (2001) recommend for a binomial proportion: never zero width
  for n > 0 (0 of n gives [0, z^2 / (n + z^2)]), always inside [0, 1], and it contains the
  share. `k` may be fractional: the fallback below uses it at an estimate over n units.
- `tango`: Tango's (1998) score interval of the difference of two paired shares (the same items
  answered by two runs), the interval Fagerland, Lydersen & Laake (2013) recommend: it depends
  on the discordant pairs (right in one run only) and on n, and is never zero width for n > 0
  (no discordant pair of n gives +-(z^2 / (n + z^2)), the Wilson bound of 0 of n).
- `adjust`: Benjamini-Hochberg adjusted p-values (scipy.stats.false_discovery_control) of one
  family of tests (the figures of one table, one run against the baseline).

docs/intervals.md says which interval each figure gets and why.
"""
from __future__ import annotations

from statistics import NormalDist

import numpy as np


def z_of(confidence: float) -> float:
    """The standard normal quantile of a two-sided `confidence` (1.96 for 0.95)."""
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson(k, n, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of k successes of n (vectorised; n > 0; k may be fractional)."""
    k, n = np.asarray(k, dtype=np.float64), np.asarray(n, dtype=np.float64)
    z2 = z_of(confidence) ** 2
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        centre = (k + z2 / 2) / (n + z2)
        half = np.sqrt(z2) * np.sqrt(n * p * (1 - p) + z2 / 4) / (n + z2)
    lo, hi = np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)
    # rounding must not put the share outside its own interval (at 0 and 1 they meet)
    return np.fmin(lo, p), np.fmax(hi, p)


def _tango_score(delta: np.ndarray, b: np.ndarray, c: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Tango's score statistic of 'the difference is delta', with the restricted maximum
    likelihood estimate of P(right in the second run only) under it."""
    big_a = 2 * n
    big_b = -b - c + (2 * n - b + c) * delta
    big_c = -c * delta * (1 - delta)
    with np.errstate(invalid="ignore", divide="ignore"):
        q21 = (np.sqrt(np.maximum(big_b ** 2 - 4 * big_a * big_c, 0.0)) - big_b) / (2 * big_a)
        var = n * (2 * q21 + delta * (1 - delta))
        return (b - c - n * delta) / np.sqrt(np.maximum(var, 1e-300))


def tango(only_first, only_second, n, confidence: float, steps: int = 60
          ) -> tuple[np.ndarray, np.ndarray]:
    """Tango's score interval of P(first right) - P(second right) over n pairs, `only_first`
    of them right in the first only, `only_second` right in the second only (vectorised;
    n > 0). The bounds solve |score| = z; the score falls as the difference grows, so each is
    found by bisection on its side of the estimate (`steps` halvings: 1e-18 of the range)."""
    b = np.asarray(only_first, dtype=np.float64)
    c = np.asarray(only_second, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    z = z_of(confidence)
    est = (b - c) / n
    edge = 1.0 - 1e-12

    def solve(lo: np.ndarray, hi: np.ndarray, target: float) -> np.ndarray:
        for _ in range(steps):
            mid = (lo + hi) / 2
            above = _tango_score(mid, b, c, n) > target
            lo, hi = np.where(above, mid, lo), np.where(above, hi, mid)
        return (lo + hi) / 2

    lower = solve(np.full_like(est, -edge), est.copy(), z)
    upper = solve(est.copy(), np.full_like(est, edge), -z)
    return np.fmin(lower, est), np.fmax(upper, est)


def adjust(p_values) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values of one family (as scipy.stats.
    false_discovery_control(p, method="bh"), which tests/reports/test_intervals.py holds it
    to): p_(i) m / i over the sorted p-values, made monotone from the largest down, at most 1;
    NaN stays NaN."""
    p = np.asarray(p_values, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if ok.any():
        given = p[ok]
        order = np.argsort(given)
        m = len(given)
        scaled = given[order] * m / np.arange(1, m + 1)
        adjusted = np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])
        back = np.empty(m)
        back[order] = adjusted
        out[ok] = back
    return out
