"""Multiple-comparison corrections, paired effect size, power by simulation, resample bounds.

adjust_p_values is compared with statsmodels' multipletests; d_z with the
paired t statistic of scipy (t = d_z * sqrt(n)); the number of queries
needed with the closed-form power of the paired t-test (statsmodels'
TTestPower, the noncentral t behind Sakai's topic set size design).
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragmetrics_edu.lab.power import adjust_p_values, paired_effect_size, queries_needed
from ragmetrics_edu.lab.significance import (
    MAX_RESAMPLES,
    bootstrap_ci,
    compare_systems,
    randomization_test,
)

multitest = pytest.importorskip("statsmodels.stats.multitest")


def _random_pvalues(rng):
    m = int(rng.integers(1, 60))
    kind = rng.integers(0, 3)
    if kind == 0:
        return rng.uniform(0, 1, m)
    if kind == 1:  # many ties, zeros and ones
        return rng.choice([0.0, 0.001, 0.01, 0.04, 0.05, 0.5, 1.0], m)
    return rng.uniform(0, 0.1, m) ** 3  # tiny values


@pytest.mark.parametrize("method", ["bonferroni", "holm", "fdr_bh"])
def test_adjust_equals_statsmodels(method):
    rng = np.random.default_rng(5)
    # statsmodels 0.15 takes about 0.2 s per Holm call: fewer, longer vectors
    n_sets = 12 if method == "holm" else 300
    for _ in range(n_sets):
        p = _random_pvalues(rng)
        want = multitest.multipletests(p, method=method)[1]
        np.testing.assert_allclose(adjust_p_values(p, method), want, rtol=0, atol=1e-12)


def test_adjust_by_hand():
    p = [0.01, 0.04, 0.03, 0.005]
    # Holm: sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04
    # running max: 0.02, 0.03, 0.06, 0.06
    np.testing.assert_allclose(adjust_p_values(p), [0.03, 0.06, 0.06, 0.02])
    # BH: times 4/1, 4/2, 4/3, 4/4 = 0.02, 0.02, 0.04, 0.04; running min from the end
    np.testing.assert_allclose(adjust_p_values(p, "fdr_bh"), [0.02, 0.04, 0.04, 0.02])
    np.testing.assert_allclose(adjust_p_values(p, "bonferroni"), [0.04, 0.16, 0.12, 0.02])
    assert adjust_p_values([0.6, 0.9], "bonferroni").tolist() == [1.0, 1.0]
    assert adjust_p_values([0.03]).tolist() == [0.03]  # one test: nothing to adjust


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=20))
def test_adjust_properties(p):
    raw = np.asarray(p)
    holm = adjust_p_values(p, "holm")
    bonf = adjust_p_values(p, "bonferroni")
    bh = adjust_p_values(p, "fdr_bh")
    # never below the raw p-value, never above 1; BH <= Holm <= Bonferroni
    assert np.all(raw <= bh + 1e-15) and np.all(bonf <= 1)
    assert np.all(bh <= holm + 1e-15) and np.all(holm <= bonf + 1e-15)
    # the order of the p-values is kept
    order = np.argsort(raw, kind="stable")
    assert np.all(np.diff(holm[order]) >= -1e-15)


def test_adjust_bad_input():
    with pytest.raises(ValueError, match=r"p_values must be in \[0, 1\], got 1.5 at position 1"):
        adjust_p_values([0.1, 1.5])
    with pytest.raises(ValueError, match="method must be one of"):
        adjust_p_values([0.1], "sidak")
    with pytest.raises(ValueError, match="at least 1"):
        adjust_p_values([])
    with pytest.raises(ValueError, match="finite"):
        adjust_p_values([float("nan")])


# ------------------------------------------------------------ effect size

def test_effect_size_equals_t_over_sqrt_n():
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(3)
    for _ in range(50):
        n = int(rng.integers(3, 60))
        a = rng.uniform(0, 1, n)
        b = np.clip(a + rng.normal(0.05, 0.2, n), 0, 1)
        es = paired_effect_size(a, b, n_resamples=200)
        t = stats.ttest_rel(b, a).statistic
        assert es.d_z == pytest.approx(t / math.sqrt(n), rel=1e-12)
        d = b - a
        assert es.d_z == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)
        assert es.low <= es.d_z <= es.high or abs(es.d_z) > 3  # skewed when large


def test_effect_size_interval_matches_scipy_bootstrap():
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(4)
    a = rng.uniform(0, 1, 50)
    b = np.clip(a + rng.normal(0.05, 0.2, 50), 0, 1)
    es = paired_effect_size(a, b, n_resamples=20_000)
    ref = stats.bootstrap((a, b), lambda x, y: np.mean(y - x) / np.std(y - x, ddof=1),
                          paired=True, method="percentile", n_resamples=20_000,
                          rng=np.random.default_rng(0), vectorized=False)
    # different random draws: the ends agree to Monte Carlo error
    assert es.low == pytest.approx(ref.confidence_interval.low, abs=0.03)
    assert es.high == pytest.approx(ref.confidence_interval.high, abs=0.03)


def test_effect_size_edge_cases():
    same = paired_effect_size([0.1, 0.2], [0.1, 0.2])
    assert math.isnan(same.d_z) and math.isnan(same.low)
    shifted = paired_effect_size([0.0, 0.5], [0.25, 0.75])  # every difference 0.25
    assert shifted.d_z == math.inf and shifted.low == shifted.high == math.inf
    es = paired_effect_size([0.2, 0.4, 0.3, 0.5], [0.3, 0.6, 0.4, 0.7], seed=1)
    assert es == paired_effect_size([0.2, 0.4, 0.3, 0.5], [0.3, 0.6, 0.4, 0.7], seed=1)
    assert "d_z = " in str(es)
    with pytest.raises(ValueError, match="at least 2"):
        paired_effect_size([0.1], [0.2])


# ------------------------------------------------------------ power

@pytest.mark.parametrize("d_z", [0.3, 0.5, 0.8])
def test_queries_needed_close_to_closed_form(d_z):
    power_mod = pytest.importorskip("statsmodels.stats.power")
    rng = np.random.default_rng(int(d_z * 10))
    d = rng.normal(0, 1, 400)
    d = (d - d.mean()) / d.std(ddof=1) * 0.1 + d_z * 0.1  # exactly this d_z
    a = np.zeros(400)
    r = queries_needed(a, d, n_simulations=2000)
    want = power_mod.TTestPower().solve_power(effect_size=d_z, alpha=0.05, power=0.8)
    assert r.d_z == pytest.approx(d_z)
    assert r.achieved_power >= 0.8
    # Monte Carlo error of the power (about 0.01) moves n by a few percent
    assert abs(r.n_queries - want) <= max(2, 0.1 * want), (r.n_queries, want)


def test_queries_needed_edge_cases():
    a = [0.1, 0.2, 0.3, 0.4]
    none = queries_needed(a, a, max_queries=64, n_simulations=200)
    assert none.n_queries is None and none.achieved_power == 0.0
    assert "not reached" in str(none)
    big = queries_needed([0.0, 0.0, 0.0], [0.5, 0.6, 0.7], n_simulations=500)
    assert big.n_queries <= 4
    assert "bootstrap simulation" in big.method
    with pytest.raises(ValueError, match="power must be .* got 1.2"):
        queries_needed(a, a, power=1.2)
    with pytest.raises(ValueError, match="alpha must be .* got 0"):
        queries_needed(a, a, alpha=0)
    with pytest.raises(ValueError, match="max_queries must be at least 2"):
        queries_needed(a, a, max_queries=1)


# ------------------------------------------------------------ resample bound

def test_n_resamples_bounded():
    msg = rf"n_resamples must be at most {MAX_RESAMPLES:,}.*got 1,000,001"
    with pytest.raises(ValueError, match=msg):
        bootstrap_ci([0.1, 0.2], n_resamples=MAX_RESAMPLES + 1)
    with pytest.raises(ValueError, match=msg):
        randomization_test([0.1, 0.2], [0.3, 0.1], n_resamples=MAX_RESAMPLES + 1)
    with pytest.raises(ValueError, match=msg):
        paired_effect_size([0.1, 0.2], [0.3, 0.1], n_resamples=MAX_RESAMPLES + 1)
    with pytest.raises(ValueError, match=r"n_simulations must be at most"):
        queries_needed([0.1, 0.2], [0.3, 0.1], n_simulations=10**9)
    with pytest.raises(ValueError, match=msg):
        compare_systems({"q1": 0.1, "q2": 0.2}, {"q1": 0.2, "q2": 0.4}, metric="x",
                        n_resamples=MAX_RESAMPLES + 1)
    # the bound itself is accepted (a cheap call: 2 pairs, exact test)
    assert randomization_test([0.1, 0.2], [0.3, 0.1], n_resamples=MAX_RESAMPLES).n_resamples == 4
