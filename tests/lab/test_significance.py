"""Significance tests, checked against scipy on many random inputs and on hand arithmetic."""

import itertools
import math
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special, stats

from ragmetrics_edu.lab.significance import (
    _betainc,
    _randomization_reference,
    bootstrap_ci,
    compare_systems,
    paired_t_test,
    randomization_test,
    student_t_cdf,
)


def _scipy_permutation_p(a, b, n_resamples=np.inf, rng=None):
    res = stats.permutation_test(
        (a, b), lambda x, y, axis: np.mean(x - y, axis=axis), vectorized=True,
        permutation_type="samples", alternative="two-sided",
        n_resamples=n_resamples, rng=rng,
    )
    return res.pvalue


# ---------------------------------------------------------------- Student t

def test_betainc_matches_scipy():
    rng = np.random.default_rng(0)
    for _ in range(500):
        x = rng.random()
        a = rng.uniform(0.05, 400)
        b = rng.uniform(0.05, 40)
        assert _betainc(x, a, b) == pytest.approx(special.betainc(a, b, x), rel=1e-10, abs=1e-13)


def test_student_t_cdf_matches_scipy():
    rng = np.random.default_rng(1)
    for _ in range(500):
        t = float(rng.normal(0, 4))
        df = float(rng.choice([1, 2, 3, 5, 10, 24, 49, 224, 1000]) if rng.random() < 0.5
                   else rng.uniform(0.5, 300))
        assert student_t_cdf(t, df) == pytest.approx(stats.t.cdf(t, df), rel=1e-10, abs=1e-13)


DFS = (1e-3, 0.5, 1, 2, 7, 30, 1e3, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e12, 1e15, 1e20, 1e100, 1e300)
TS = (-40.0, -12.0, -8.0, -3.0, -1.96, -1.7, -1.0, -0.3, -1e-3, 0.5, 1.5, 1.75, 2.5, 5.0, 12.0,
      37.0)


@pytest.mark.parametrize("df", DFS)
def test_student_t_cdf_over_a_sweep_of_df(df):
    """Issue 34: the CDF drifted from scipy as df grew (4e-7 at df = 1e9, the wrong sign of
    a tail from 1e15 on). The smaller tail, min(F, 1 - F), is compared relatively, so that
    a tail of 1e-300 counts as much as one of 0.3."""
    worst = 0.0
    for t in TS:
        ours, theirs = student_t_cdf(t, df), float(stats.t.cdf(t, df))
        tail_ours, tail_theirs = (ours, theirs) if t < 0 else (1 - ours, 1 - theirs)
        if tail_theirs < 1e-300:  # below a float's normal numbers: compared absolutely
            assert tail_ours < 1e-290, (t, df, ours, theirs)
            continue
        worst = max(worst, abs(tail_ours - tail_theirs) / tail_theirs)
    assert worst < 1e-11, worst


@pytest.mark.parametrize("df", DFS)
def test_student_t_cdf_near_zero_is_one_half_plus_t_times_the_density_at_zero(df):
    """F(t) = 1/2 + t f(0) + O(t^3), f(0) = Gamma((df + 1)/2) / (sqrt(df pi) Gamma(df/2)).
    (scipy's t.cdf(1e-9, 1) is exactly 0.5, 3e-10 below the truth 1/2 + atan(1e-9)/pi.)"""
    if df < 1e6:
        density = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    else:  # the lgamma difference loses digits there: its series, 1 - 1/(4 df) + ...
        density = (1 - 1 / (4 * df) + 1 / (32 * df * df)) / math.sqrt(2 * math.pi)
    for t in (1e-9, -1e-9, 1e-7):
        assert student_t_cdf(t, df) - 0.5 == pytest.approx(t * density, rel=1e-6)


def test_student_t_cdf_of_huge_df_is_the_normal_cdf():
    normal = stats.norm
    for t in TS:
        assert student_t_cdf(t, 1e300) == pytest.approx(float(normal.cdf(t)), rel=1e-13,
                                                         abs=1e-300)


def test_student_t_cdf_at_its_smallest_df_matches_scipy():
    for t in (-1e100, -10.0, -0.5, 1e-6, 0.5, 10.0, 1e100):
        assert student_t_cdf(t, 1e-6) == pytest.approx(stats.t.cdf(t, 1e-6), rel=1e-12)


def test_student_t_cdf_hand_values():
    # t(1) is the Cauchy distribution: F(t) = 1/2 + atan(t)/pi; F(1) = 0.75
    assert student_t_cdf(1.0, 1) == pytest.approx(0.75, abs=1e-14)
    # t(2): F(t) = 1/2 + t / (2 sqrt(2 + t^2)); F(1) = 1/2 + 1/(2 sqrt 3)
    assert student_t_cdf(1.0, 2) == pytest.approx(0.5 + 1 / (2 * math.sqrt(3)), abs=1e-14)
    assert student_t_cdf(0.0, 7) == 0.5
    assert student_t_cdf(math.inf, 3) == 1.0 and student_t_cdf(-math.inf, 3) == 0.0


@pytest.mark.parametrize("t, df, msg", [
    (1.0, 0, "df must be a positive number, got 0"),
    (1.0, -2, "df must be a positive number"),
    (math.nan, 3, "t must be a real number"),
    ("1", 3, "t must be a real number"),
    # the probe: below about 1e-8 the continued fraction did not converge (RuntimeError)
    (0.5, 1e-8, r"df must be at least 1e-06 \(MIN_DF: .*\), got 1e-08"),
    (0.5, 5e-324, r"df must be at least 1e-06"),
])
def test_student_t_cdf_rejects(t, df, msg):
    with pytest.raises(TypeError if isinstance(t, str) else ValueError, match=msg):
        student_t_cdf(t, df)


# ---------------------------------------------------------------- paired t-test

def test_paired_t_test_matches_scipy_on_random_inputs():
    rng = np.random.default_rng(2)
    for _ in range(400):
        n = int(rng.integers(2, 250))
        a = rng.random(n)
        b = np.clip(a + rng.normal(rng.normal(0, 0.1), rng.uniform(0.01, 0.5), n), 0, 1)
        ours = paired_t_test(a, b)
        ref = stats.ttest_rel(a, b)
        # our t follows b - a, scipy's a - b
        assert ours.statistic == pytest.approx(-ref.statistic, rel=1e-10, abs=1e-12)
        assert ours.p_value == pytest.approx(ref.pvalue, rel=1e-10, abs=1e-14)
        assert ours.df == n - 1
        assert isinstance(ours.p_value, float)


def test_paired_t_test_hand_example():
    # d = 0.1, 0.2, 0.1, 0.2: mean 0.15, s_d = sqrt(4 * 0.05**2 / 3) = 0.057735,
    # t = 0.15 / (0.057735 / 2) = 5.196152
    r = paired_t_test([0.1, 0.2, 0.3, 0.4], [0.2, 0.4, 0.4, 0.6])
    assert r.mean_difference == pytest.approx(0.15)
    assert r.statistic == pytest.approx(0.15 / (math.sqrt(0.01 / 3) / 2), rel=1e-12)


def test_paired_t_test_degenerate_differences():
    same = paired_t_test([0.1, 0.5, 0.9], [0.1, 0.5, 0.9])
    ref = stats.ttest_rel([0.1, 0.5, 0.9], [0.1, 0.5, 0.9])
    assert math.isnan(same.statistic) and math.isnan(same.p_value)
    assert math.isnan(ref.pvalue)
    shifted = paired_t_test([0.0, 0.25, 0.5], [0.5, 0.75, 1.0])  # every d = 0.5 exactly
    assert shifted.statistic == math.inf and shifted.p_value == 0.0


@pytest.mark.parametrize("a, b, exc, msg", [
    ([0.1], [0.2], ValueError, "a must hold at least 2 values, got 1"),
    ([0.1, 0.2], [0.2], ValueError, "b must hold at least 2 values, got 1"),
    ([0.1, 0.2, 0.3], [0.2, 0.3], ValueError, r"a and b must be paired \(same length\), got 3 and 2"),
    ([0.1, math.nan], [0.2, 0.3], ValueError, "a must be finite, got nan at position 1"),
    ([0.1, "x"], [0.2, 0.3], TypeError, "a must hold numbers, got 'x' at position 1"),
    ("0.1", [0.2], TypeError, "a must be a sequence of numbers"),
])
def test_paired_t_test_rejects(a, b, exc, msg):
    with pytest.raises(exc, match=msg):
        paired_t_test(a, b)


# ---------------------------------------------------------------- randomization

def _exact_p_integers(a_int, b_int):
    """Exact two-sided sign-flip p-value in integer arithmetic (no rounding at all)."""
    d = [y - x for x, y in zip(a_int, b_int)]
    observed = abs(sum(d))
    count = sum(abs(sum(s * x for s, x in zip(signs, d))) >= observed
                for signs in itertools.product((1, -1), repeat=len(d)))
    return count / 2 ** len(d)


def test_randomization_exact_matches_scipy_exactly():
    rng = np.random.default_rng(3)
    n_zero = 0
    for _ in range(300):
        n = int(rng.integers(2, 11))
        k = int(rng.choice([1, 3, 5, 10]))
        # grades on a grid of 1/k, like P@10 or graded nDCG pieces: ties are common
        a_int, b_int = rng.integers(0, k + 1, n), rng.integers(0, k + 1, n)
        a, b = a_int / k, b_int / k
        ours = randomization_test(a, b)
        assert ours.test == "randomization (exact)" and ours.n_resamples == 2 ** n
        assert ours.p_value == _exact_p_integers(a_int, b_int)
        if (b_int - a_int).sum() != 0:
            assert ours.p_value == _scipy_permutation_p(a, b)
        else:
            # equal means: the true p is 1; scipy's float mean of the differences may be
            # +-1e-17 instead of 0, and then its p-value falls below 1
            n_zero += 1
            assert ours.p_value == 1.0
    assert n_zero > 10


def test_randomization_zero_mean_deviation_from_scipy():
    # b - a = -0.2, -0.4, 0.4, 0.2 sums to 0; in floating point the mean is 4e-17, not 0
    a, b = np.array([0.6, 0.6, 0.4, 0.2]), np.array([0.4, 0.2, 0.8, 0.4])
    assert np.mean(a - b) != 0.0
    # every one of the 16 patterns is at least as extreme as 0, so p = 16/16
    assert randomization_test(a, b).p_value == 1.0
    assert _exact_p_integers([3, 3, 2, 1], [2, 1, 4, 2]) == 1.0
    # scipy counts by the rounded mean and gives 14/16
    assert _scipy_permutation_p(a, b) == 0.875


def test_randomization_exact_matches_reference_loop():
    rng = np.random.default_rng(4)
    for _ in range(60):
        n = int(rng.integers(1, 10))
        a = rng.integers(0, 4, n) / 3
        b = rng.integers(0, 4, n) / 3
        assert randomization_test(a, b, exact=True).p_value == _randomization_reference(b - a)


def test_randomization_hand_example():
    # d = 0.2, 0.2, 0.2: of the 8 sign patterns only (+,+,+) and (-,-,-) give |mean| = 0.2
    r = randomization_test([0.1, 0.2, 0.3], [0.3, 0.4, 0.5])
    assert r.p_value == 2 / 8
    # d = 0.3, -0.1: |mean| of the four patterns: 0.1, 0.2, 0.2, 0.1; >= 0.1 for all 4
    assert randomization_test([0.0, 0.1], [0.3, 0.0]).p_value == 1.0
    # identical systems: every pattern ties with the observed 0
    assert randomization_test([0.2, 0.4], [0.2, 0.4]).p_value == 1.0


def test_randomization_monte_carlo():
    rng = np.random.default_rng(5)
    a = rng.random(60)
    b = np.clip(a + rng.normal(0.05, 0.2, 60), 0, 1)
    mc = randomization_test(a, b, n_resamples=20_000, seed=7)
    assert mc.test == "randomization (Monte Carlo)" and mc.seed == 7
    # seeded: the same call, the same answer; (c + 1) / (R + 1) is never 0
    assert randomization_test(a, b, n_resamples=20_000, seed=7).p_value == mc.p_value
    assert mc.p_value * 20_001 == pytest.approx(round(mc.p_value * 20_001))
    ref = _scipy_permutation_p(a, b, n_resamples=20_000, rng=0)
    # two independent estimates of the same p: within 5 standard errors
    se = math.sqrt(ref * (1 - ref) / 20_000)
    assert abs(mc.p_value - ref) < 5 * se + 1e-4
    # the t-test agrees roughly with 60 queries
    assert abs(mc.p_value - paired_t_test(a, b).p_value) < 0.05


def test_randomization_monte_carlo_close_to_exact():
    rng = np.random.default_rng(6)
    a = np.round(rng.random(14), 2)
    b = np.round(rng.random(14), 2)
    exact = randomization_test(a, b, exact=True).p_value
    mc = randomization_test(a, b, exact=False, n_resamples=40_000, seed=1).p_value
    assert abs(exact - mc) < 5 * math.sqrt(exact * (1 - exact) / 40_000) + 1e-4


def test_randomization_exact_switch():
    a, b = np.zeros(14), np.linspace(0, 1, 14)
    assert randomization_test(a, b, n_resamples=10_000).test.endswith("(Monte Carlo)")  # 2**14 > 10000
    assert randomization_test(a, b, n_resamples=20_000).test.endswith("(exact)")
    with pytest.raises(ValueError, match="exact enumeration of 2\\*\\*n sign patterns needs n <= 24, got n = 30"):
        randomization_test(np.zeros(30), np.ones(30), exact=True)
    with pytest.raises(ValueError, match="exact must be None, True or False"):
        randomization_test(a, b, exact="yes")
    with pytest.raises(ValueError, match="n_resamples must be a positive integer, got 0"):
        randomization_test(a, b, n_resamples=0)
    with pytest.raises(ValueError, match="seed must be None or a non-negative integer"):
        randomization_test(a, b, seed=-1)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=9))
def test_randomization_properties(pairs):
    a = np.array([p[0] for p in pairs]) / 3
    b = np.array([p[1] for p in pairs]) / 3
    r = randomization_test(a, b)
    assert 0 < r.p_value <= 1
    # the p-value does not depend on which system is called A
    assert randomization_test(b, a).p_value == r.p_value
    # at least the observed pattern and its mirror image are as extreme
    assert r.p_value >= 2 / 2 ** len(pairs) or r.p_value == 1.0


# ---------------------------------------------------------------- bootstrap

def test_bootstrap_is_seeded_and_follows_its_recipe():
    values = np.array([0.0, 0.1, 0.5, 0.7, 1.0, 0.3])
    ci = bootstrap_ci(values, confidence=0.9, n_resamples=2000, seed=3)
    assert ci == bootstrap_ci(values, confidence=0.9, n_resamples=2000, seed=3)
    # the recipe written out: resample indices, mean of each row, 5% and 95% quantiles
    idx = np.random.default_rng(3).integers(0, 6, size=(2000, 6))
    means = values[idx].mean(axis=1)
    assert ci.low == pytest.approx(np.quantile(means, 0.05), abs=1e-15)
    assert ci.high == pytest.approx(np.quantile(means, 0.95), abs=1e-15)
    assert ci.mean == pytest.approx(2.6 / 6)  # (0 + .1 + .5 + .7 + 1 + .3) / 6
    assert "percentile bootstrap, 2000 resamples, seed 3" in str(ci)


@pytest.mark.parametrize("seed", [0, 5])
def test_bootstrap_with_groups_resamples_whole_groups(seed):
    """Each resample: draw as many groups as there are, keep all their values, take the mean."""
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, 9, 70).tolist()
    values = rng.random(70).round(2)
    ci = bootstrap_ci(values, n_resamples=500, seed=seed, groups=groups)
    order = list(dict.fromkeys(groups))
    members = [[i for i, g in enumerate(groups) if g == o] for o in order]
    picks = np.random.default_rng(seed).integers(0, len(order), size=(500, len(order)))
    means = [np.mean([values[i] for g in row for i in members[g]]) for row in picks]
    assert (ci.low, ci.high) == pytest.approx(tuple(np.quantile(means, [0.025, 0.975])),
                                              abs=1e-12)
    assert ci.mean == pytest.approx(values.mean())
    with pytest.raises(ValueError, match="at least 2 distinct groups"):
        bootstrap_ci([0.1, 0.2], groups=["q", "q"])
    with pytest.raises(ValueError, match="one label per value"):
        bootstrap_ci([0.1, 0.2], groups=["q"])


def test_bootstrap_close_to_scipy_percentile():
    rng = np.random.default_rng(8)
    values = rng.beta(2, 5, 200)
    ours = bootstrap_ci(values, n_resamples=20_000, seed=0)
    ref = stats.bootstrap((values,), np.mean, method="percentile", n_resamples=20_000,
                          rng=1).confidence_interval
    width = ref.high - ref.low
    # different random resamples: ends agree to a few percent of the width
    assert abs(ours.low - ref.low) < 0.05 * width
    assert abs(ours.high - ref.high) < 0.05 * width


def test_bootstrap_coverage():
    # 95% intervals of the mean of 40 normal draws cover the true mean about 95% of the time
    rng = np.random.default_rng(9)
    hits = 0
    for i in range(200):
        ci = bootstrap_ci(rng.normal(0.5, 0.2, 40), n_resamples=1000, seed=i)
        hits += ci.low <= 0.5 <= ci.high
    assert 170 <= hits <= 200  # binomial(200, ~0.94): mean 188, sd 3.4


def test_bootstrap_edge_cases():
    assert bootstrap_ci([0.3, 0.3]).low == bootstrap_ci([0.3, 0.3]).high == 0.3
    # one value: no spread to resample, so no interval (scipy refuses it too)
    with pytest.raises(ValueError, match="values must hold at least 2 values, got 1"):
        bootstrap_ci([0.3])
    with pytest.raises(ValueError, match="values must hold at least 2 values, got 0"):
        bootstrap_ci([])
    with pytest.raises(ValueError, match="confidence must be a number strictly between 0 and 1, got 95"):
        bootstrap_ci([0.1, 0.2], confidence=95)
    with pytest.raises(TypeError, match="n_resamples must be a positive integer"):
        bootstrap_ci([0.1, 0.2], n_resamples=1.5)


# ---------------------------------------------------------------- compare_systems

@dataclass
class _FakeReport:
    per_query: dict


def test_compare_systems_aligns_by_qid():
    a = {"1": {"ndcg@10": 0.2, "map": 0.1}, "2": {"ndcg@10": 0.5, "map": 0.3},
         "10": {"ndcg@10": 0.4, "map": 0.2}}
    # the same queries listed in another order
    b = {"10": {"ndcg@10": 0.9}, "1": {"ndcg@10": 0.4}, "2": {"ndcg@10": 0.6}}
    c = compare_systems(_FakeReport(a), _FakeReport(b), metric="ndcg@10")
    # pairs (0.2, 0.4), (0.5, 0.6), (0.4, 0.9): differences 0.2, 0.1, 0.5
    assert c.qids == ("1", "2", "10")
    assert c.mean_a == pytest.approx(1.1 / 3)
    assert c.mean_b == pytest.approx(1.9 / 3)
    assert c.difference == pytest.approx(0.8 / 3)
    ref = stats.ttest_rel([0.4, 0.6, 0.9], [0.2, 0.5, 0.4])
    assert c.p_value == pytest.approx(ref.pvalue, rel=1e-10)
    assert c.result.test == "paired t-test"
    assert c.ci.low <= c.difference <= c.ci.high
    r = compare_systems(a, b, metric="ndcg@10", test="randomization")
    # all three differences positive: 2 of the 8 sign patterns are as extreme
    assert r.p_value == 0.25


def test_compare_systems_names_mismatched_queries():
    a = {"1": {"map": 0.1}, "2": {"map": 0.2}, "3": {"map": 0.3}}
    b = {"1": {"map": 0.1}, "2": {"map": 0.2}, "4": {"map": 0.3}}
    with pytest.raises(ValueError, match="only in report_a: '3'; only in report_b: '4'"):
        compare_systems(a, b, metric="map")


def test_compare_systems_rejects():
    a = {"1": {"map": 0.1}, "2": {"map": 0.2}}
    with pytest.raises(ValueError, match=r"metric 'ndcg' is not in report_a \(query '1' has: map\)"):
        compare_systems(a, a, metric="ndcg")
    with pytest.raises(ValueError, match="test must be one of 't', 'randomization', got 'wilcoxon'"):
        compare_systems(a, a, metric="map", test="wilcoxon")
    with pytest.raises(TypeError, match="report_a must be a Report"):
        compare_systems(3, a, metric="map")
    one = {"1": {"map": 0.1}}
    with pytest.raises(ValueError, match="needs at least 2 queries .*, got 1"):
        compare_systems(one, one, metric="map", test="randomization")


def test_compare_systems_on_reports_of_evaluate():
    import ragmetrics_edu as rm

    qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}, "q3": {"d": 2}}
    run_a = {"q1": {"x": 0.9, "a": 0.5}, "q2": {"c": 0.3}, "q3": {"y": 0.8, "z": 0.7, "d": 0.1}}
    run_b = {"q1": {"a": 0.9, "b": 0.5}, "q2": {"c": 0.3}, "q3": {"d": 0.9}}
    a = rm.evaluate(qrels, run_a, metrics=["mrr"])
    b = rm.evaluate(qrels, run_b, metrics=["mrr"])
    c = compare_systems(a, b, metric="mrr", test="randomization")
    # RR of A: 1/2, 1, 1/3; of B: 1, 1, 1; differences 1/2, 0, 2/3
    assert c.mean_a == pytest.approx((0.5 + 1 + 1 / 3) / 3)
    assert c.difference == pytest.approx((0.5 + 2 / 3) / 3)
    # sign patterns of (1/2, 0, 2/3): |sum| >= 7/6 only for (+, ., +) and (-, ., -),
    # each with either sign on the 0: 4 of 8
    assert c.p_value == 0.5
    partial = rm.evaluate(qrels, {"q1": run_b["q1"]}, metrics=["mrr"])
    with pytest.raises(ValueError, match="only in report_a: 'q2', 'q3'"):
        compare_systems(a, partial, metric="mrr")



def test_compare_systems_refuses_qids_that_collide_as_text():
    # 1 and "1" both become "1": one score would silently replace the other
    a = {1: {"ap": 0.2}, "1": {"ap": 0.3}, "q2": {"ap": 0.1}}
    b = {"1": {"ap": 0.4}, "q2": {"ap": 0.5}}
    with pytest.raises(ValueError, match=r"report_a has two query ids .*1 and '1'"):
        compare_systems(a, b, metric="ap")
    with pytest.raises(ValueError, match=r"report_b has two query ids .*1 and '1'"):
        compare_systems(b, a, metric="ap")


@pytest.mark.parametrize("call", [
    lambda a, b: paired_t_test(a, b),
    lambda a, b: __import__("ragmetrics_edu").judge.meta_eval.correlation_ci(a, b, n_resamples=10),
])
def test_an_integer_beyond_a_floats_range_is_named(call):
    """The probe: 10**400 among the scores raised a bare 'int too large to convert to float'."""
    # correlation_ci names its own argument, scores (not meta_evaluate's metrics['metric'])
    with pytest.raises(ValueError, match=r"(a|scores) must be numbers a float can "
                                         r"hold .* got an integer of about 10\*\*400 at position 2"):
        call([1, 2, 10 ** 400], [1, 2, 3])
