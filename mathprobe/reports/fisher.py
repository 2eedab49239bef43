"""Fisher's exact test of independence of a 2 x k table (error analysis: do two runs' answers
fail in the same proportions of error types?).

2 x 2: exact, as scipy.stats.fisher_exact computes it (the hypergeometric probabilities of
every table with the observed margins, computed in exact integers, summed over those no more
likely than the one observed, with scipy's relative tolerance 1e-7); tests/reports/
test_error_report.py holds it to scipy's. 2 x k: the same statistic over `resamples` tables with
the observed margins drawn at random (numpy's multivariate hypergeometric, seeded), a Monte
Carlo p-value (count + 1) / (resamples + 1), as scipy's MonteCarloMethod gives one. scipy did
both before; for these two tests it was 143 MB of the core install (issue 38).
"""
from __future__ import annotations

import math

import numpy as np

TOLERANCE = 1 + 1e-7      # scipy's: tables as likely as the observed one within rounding count


def fisher_2x2(table: np.ndarray) -> float:
    """Two-sided p-value of a 2 x 2 table of counts."""
    (a, b), (c, d) = (int(x) for x in table[0]), (int(x) for x in table[1])
    row, col, n = a + b, a + c, a + b + c + d

    def weight(x: int) -> int:           # C(col, x) C(n - col, row - x): P(x) times C(n, row)
        return math.comb(col, x) * math.comb(n - col, row - x)

    observed = weight(a)
    support = range(max(0, row + col - n), min(row, col) + 1)
    extreme = sum(w for w in map(weight, support) if w <= observed * TOLERANCE)
    return min(1.0, extreme / math.comb(n, row))


def fisher_2xk(table: np.ndarray, resamples: int, seed: int) -> float:
    """Monte Carlo p-value of a 2 x k table of counts: the share of `resamples` random tables
    with its margins that are no more likely than it."""
    table = np.asarray(table, dtype=np.int64)
    cols = table.sum(axis=0)
    row = int(table[0].sum())
    drawn = np.random.default_rng(seed).multivariate_hypergeometric(cols, row, size=resamples)
    observed = _log_weight(table[0], cols)
    tables = _log_weight(drawn, cols)
    hits = int(np.count_nonzero(tables <= observed + math.log(TOLERANCE)))
    return (hits + 1) / (resamples + 1)


def _log_weight(first_row: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """The log of a 2 x k table's probability given its margins, prod_j C(cols_j, x_j) /
    C(n, row), up to what the margins fix: for tables whose first row is `first_row`."""
    x = np.asarray(first_row, dtype=np.float64)
    c = cols.astype(np.float64)
    lg = np.vectorize(math.lgamma, otypes=[np.float64])
    return (-lg(x + 1) - lg(c - x + 1)).sum(axis=-1)
