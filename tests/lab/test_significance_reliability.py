"""Values near the float limit and integers beyond it in the significance functions (issue 34).

Before: ``bootstrap_ci([1e308, 1e308, -1e308])`` gave an infinite mean and a NaN interval with
RuntimeWarnings only; 10**400 as ``t`` or ``df`` of ``student_t_cdf`` or ``t_two_sided_p`` gave
a bare OverflowError; ``t_two_sided_p`` checked nothing (df inf gave NaN, NaN a RuntimeError,
0 or -3 "math domain error")."""
import math
import warnings

import numpy as np
import pytest
from scipy import stats

from ragmetrics_edu.lab.significance import bootstrap_ci, student_t_cdf, t_two_sided_p


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


CHECKED = [student_t_cdf, t_two_sided_p]


@pytest.mark.parametrize("f", CHECKED)
@pytest.mark.parametrize("t, df, message", [
    (10 ** 400, 3, r"t must be numbers a float can hold .*, got an integer of about 10\*\*400"),
    (2.0, 10 ** 400, r"df must be numbers a float can hold .*, got an integer of about 10\*\*400"),
    (2.0, math.inf, "df must be a positive number, got inf"),
    (2.0, math.nan, "df must be a positive number, got nan"),
    (2.0, 0, "df must be a positive number, got 0"),
    (2.0, -3, "df must be a positive number, got -3"),
    (2.0, 1e-9, r"df must be at least 1e-06 \(MIN_DF"),
    (math.nan, 3, "t must be a real number, got nan"),
    ("2", 3, "t must be a real number, got '2'"),
    (2.0, True, "df must be a positive number, got True"),
])
def test_t_and_df_are_checked_naming_the_argument(f, t, df, message):
    wrong_type = isinstance(t, str) or isinstance(df, bool)      # TypeError; a value: ValueError
    with pytest.raises(TypeError if wrong_type else ValueError, match=message):
        f(t, df)


def test_the_message_does_not_print_400_digits():
    with pytest.raises(ValueError) as info:
        t_two_sided_p(10 ** 400, 3)
    assert len(str(info.value)) < 200


@pytest.mark.parametrize("t, df", [(2.0, 5), (-1.3, 2.5), (0.0, 7), (math.inf, 3), (30, 1e6)])
def test_t_two_sided_p_is_scipys(t, df):
    assert t_two_sided_p(t, df) == pytest.approx(2 * stats.t.sf(abs(t), df), rel=1e-10, abs=1e-300)
