"""Values near the float limit in the significance functions (issue 34).

Before: ``bootstrap_ci([1e308, 1e308, -1e308])`` gave an infinite mean and a NaN interval with
RuntimeWarnings only."""
import warnings

import numpy as np
import pytest

from ragmetrics_edu.lab.significance import bootstrap_ci


def test_bootstrap_of_values_near_the_float_limit_is_finite_and_exact():
    x = np.array([1e308, 1e308, -1e308])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ci = bootstrap_ci(x, n_resamples=200)
        # scaling by a power of two is exact: the same interval as of the values / 2**64
        small = bootstrap_ci(x / 2.0 ** 64, n_resamples=200)
    assert ci.mean == pytest.approx(1e308 / 3, rel=1e-15)
    assert (ci.low, ci.mean, ci.high) == (small.low * 2.0 ** 64, small.mean * 2.0 ** 64,
                                          small.high * 2.0 ** 64)
    # a mean of the values lies within their range
    assert -1e308 <= ci.low <= ci.high <= 1e308 and ci.low < ci.mean < ci.high


def test_bootstrap_of_a_constant_near_the_float_limit_is_that_constant():
    ci = bootstrap_ci([1.7e308] * 4, n_resamples=10)
    assert ci.low == ci.mean == ci.high == 1.7e308


def test_ordinary_values_are_not_scaled():
    x = [0.2, 0.4, 0.6, 0.8, 1.0]
    assert bootstrap_ci(x, n_resamples=100).low == bootstrap_ci(np.array(x), n_resamples=100).low
