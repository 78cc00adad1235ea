"""Paired tests on differences that overflow (issue 34): before, randomization_test gave
p_value 0.0 with statistic nan, paired_t_test nan, paired_effect_size -inf bounds, with
RuntimeWarnings only."""
import pytest

from ragmetrics_edu.lab.power import paired_effect_size
from ragmetrics_edu.lab.significance import paired_t_test, randomization_test


@pytest.mark.parametrize("call", [
    lambda a, b: randomization_test(a, b, n_resamples=100),
    lambda a, b: paired_t_test(a, b),
    lambda a, b: paired_effect_size(a, b, n_resamples=100),
])
@pytest.mark.parametrize("a, b", [([1e308, -1e308, 0.0], [-1e308, 1e308, 1.0]),
                                  ([0.0, 1e200, 0.5], [0.0, 0.0, 0.25])])
def test_overflowing_differences_are_refused(call, a, b):
    with pytest.raises(ValueError, match=r"b - a must stay within 1e\+150 \(MAX_DIFFERENCE"):
        call(a, b)


def test_large_finite_differences_still_work():
    r = paired_t_test([0.0, 1e100, 2e100], [1e100, 2e100, 4e100])
    assert r.statistic == pytest.approx((4e100 / 3) / ((1e100 / 3 ** 0.5) / 3 ** 0.5), rel=1e-12)
