"""Fisher's exact test of the error analysis (mathprobe/reports/fisher.py, numpy alone: scipy
left the core install, issue 38) gives scipy's p-values: exactly for 2 x 2 tables, within
Monte Carlo error for 2 x k."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from mathprobe.reports import fisher


@pytest.mark.parametrize("table", [[[3, 1], [1, 3]], [[10, 2], [3, 15]], [[0, 5], [5, 0]],
                                   [[7, 7], [7, 7]], [[1, 0], [0, 0]], [[40, 12], [25, 30]],
                                   [[0, 0], [3, 4]], [[120, 80], [95, 110]]])
def test_a_2x2_table_is_scipys_exact_test(table):
    want = sps.fisher_exact(table).pvalue
    assert fisher.fisher_2x2(np.array(table)) == pytest.approx(want, rel=1e-9, abs=1e-300)


@pytest.mark.parametrize("table", [[[12, 5, 3], [4, 9, 8]], [[20, 20, 20, 1], [18, 22, 19, 9]],
                                   [[5, 0, 1], [0, 6, 1]]])
def test_a_2xk_table_is_scipys_monte_carlo_test_within_its_error(table):
    ours = fisher.fisher_2xk(np.array(table), 9999, 20240611)
    method = sps.MonteCarloMethod(n_resamples=9999, rng=np.random.default_rng(0))
    theirs = sps.fisher_exact(np.array(table), method=method).pvalue
    assert ours == pytest.approx(theirs, abs=0.015)
    assert ours == fisher.fisher_2xk(np.array(table), 9999, 20240611)   # seeded
