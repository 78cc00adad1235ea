"""Tiny error levels (issue 34): the normal quantile is taken from the tail, and an alpha below
MIN_ALPHA is refused naming alpha and the bound (before: statistics.StatisticsError "p must be
in the range 0.0 < p < 1.0", naming nothing)."""
import math

import pytest

scipy_stats = pytest.importorskip("scipy.stats")

import ragmetrics_edu as rm  # noqa: E402
from ragmetrics_edu._validation import MIN_ALPHA, upper_normal_quantile  # noqa: E402
from ragmetrics_edu.judge.calibration import classical_mean_ci, ppi_mean_ci  # noqa: E402
from ragmetrics_edu.judge.ppi_study import ppi_repeated  # noqa: E402
from ragmetrics_edu.online.ab_test import (ab_sample_size, one_sample_size,  # noqa: E402
                                           two_proportion_z_test)


@pytest.mark.parametrize("tail", [0.3, 0.025, 1e-8, 9.9e-9, 1e-17, 1e-100, 5e-301])
def test_upper_quantile_matches_scipy_in_the_tail(tail):
    # from 1e-8 up, 1 - tail is computed as always (it keeps the tail to 1e-8 relative);
    # below, the quantile comes from the tail itself, to scipy's precision
    rel = 1e-9 if tail >= 1e-8 else 1e-13
    assert upper_normal_quantile(tail) == pytest.approx(scipy_stats.norm.isf(tail), rel=rel)


def test_the_usual_levels_keep_their_numbers():
    from statistics import NormalDist

    for tail in (0.05, 0.025, 0.005, 0.0005, 1e-8):
        assert upper_normal_quantile(tail) == NormalDist().inv_cdf(1.0 - tail)


@pytest.mark.parametrize("alpha", [1e-17, 1e-300])
def test_tiny_alpha_is_computed_from_the_tail(alpha):
    z = scipy_stats.norm.isf(alpha / 2)
    low, high = classical_mean_ci([0, 1, 1], alpha=alpha)
    se = math.sqrt((2 / 9) / 3)
    assert (low, high) == pytest.approx((2 / 3 - z * se, 2 / 3 + z * se), rel=1e-12)
    low, high = ppi_mean_ci([0, 1, 1], [0, 1, 1], [1, 0], alpha=alpha, alternative="larger")
    assert high == math.inf and math.isfinite(low)
    # one-sample size: n = ((z_{a/2} + z_power) / effect)^2 to the power's precision
    n = one_sample_size(0.1, alpha=alpha)
    assert n == pytest.approx(((z + scipy_stats.norm.ppf(0.8)) / 0.1) ** 2, rel=1e-6)
    assert math.isfinite(ab_sample_size(0.1, 0.12, alpha=alpha))
    assert ppi_repeated([0, 1] * 20, [0, 1] * 20, n=10, repeats=5, alpha=alpha).alpha == alpha


def test_confidence_near_one():
    t = two_proportion_z_test(1, 100, 5, 100, confidence=1 - 1e-16)
    z = scipy_stats.norm.isf((1 - (1 - 1e-16)) / 2)
    assert t.high - t.difference == pytest.approx(
        z * math.sqrt(0.01 * 0.99 / 100 + 0.05 * 0.95 / 100), rel=1e-12)


@pytest.mark.parametrize("call", [
    lambda a: classical_mean_ci([0, 1, 1], alpha=a),
    lambda a: ppi_mean_ci([0, 1, 1], [0, 1, 1], [1, 0], alpha=a),
    lambda a: one_sample_size(0.1, alpha=a),
    lambda a: ab_sample_size(0.1, 0.12, alpha=a),
    lambda a: ppi_repeated([0, 1] * 20, [0, 1] * 20, n=10, repeats=5, alpha=a),
    lambda a: rm.impressions_needed({"q": ["a", "b"]}, {"q": ["b", "a"]}, {"q": {"a": 2}},
                                    depth=2, n_per_query=20, alpha=a),
])
@pytest.mark.parametrize("alpha", [1e-301, 5e-324])
def test_alpha_below_the_bound_is_refused_naming_it(call, alpha):
    assert MIN_ALPHA == 1e-300
    with pytest.raises(ValueError, match=r"alpha must be at least 1e-300 \(MIN_ALPHA.*got "
                       + repr(alpha).replace("-", r"\-")):
        call(alpha)
