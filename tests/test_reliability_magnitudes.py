"""Numbers at the edges of a float's range: the third held-out probe of issue 34.

Every statistic below is the same for values scaled by any power of two (a
correlation, a t statistic, a standardized effect, an interval's coverage), so
values of 1e-200 or 1e200 are valid input with an answer; before, the sums of
their squares or products underflowed to 0 or overflowed to inf and the
functions returned 0.0, NaN, +-inf or wrong p-values without a word. Expected
values come from scipy (or from the same input at ordinary magnitudes, which
scipy agrees with), and integers beyond a float (10**400) must be named.
"""

import math

import numpy as np
import pytest
import scipy.stats

import ragmetrics_edu as rm
from ragmetrics_edu.judge import agreement, meta_eval, ppi_study
from ragmetrics_edu.lab import power as lab_power
from ragmetrics_edu.lab import significance

X = [1.0, 0.0, 2.0, 5.0, 3.0, 3.5]
Y = [0.0, 1.0, 3.0, 1.0, 2.5, 4.0]


# ---------------------------------------------------------------- 1. Pearson

@pytest.mark.parametrize("scale", [1e77, 1e150, 1e300, 1e-150, 1e-300, 5e-324 * 2**20])
def test_pearson_is_scipys_at_any_magnitude(scale):
    x, y = [v * scale for v in X], [v * scale for v in Y]
    want = scipy.stats.pearsonr(X, Y).statistic
    assert meta_eval.pearson(x, y) == pytest.approx(want, abs=1e-12)
    # the probe's own case: 0.0 before (the product of the variances overflowed)
    assert meta_eval.pearson([1e77, 0, 2e77, 5e77], [0, 1e77, 3e77, 1e77]) == pytest.approx(
        scipy.stats.pearsonr([1, 0, 2, 5], [0, 1, 3, 1]).statistic, abs=1e-12)


def test_pearson_of_mixed_magnitudes_and_through_correlation_ci():
    x, y = [1e-300, 3e300, 2e300, 0.0], [5e-300, 1e-300, 3e-300, 4e-300]
    want = scipy.stats.pearsonr(np.array(x) / 1e300, np.array(y) / 1e-300).statistic
    assert meta_eval.pearson(x, y) == pytest.approx(want, abs=1e-12)
    ci = meta_eval.correlation_ci([v * 1e-300 for v in X], Y, method="pearson", n_resamples=200)
    assert ci.value == pytest.approx(scipy.stats.pearsonr(X, Y).statistic, abs=1e-12)
    assert ci.n_undefined == meta_eval.correlation_ci(X, Y, method="pearson", n_resamples=200).n_undefined


def test_pearson_of_a_constant_is_nan_even_when_its_mean_rounds():
    # 0.1 * 10 / 10 is not 0.1 in floats: the deviations are ~1e-17, not 0
    assert math.isnan(meta_eval.pearson([0.1] * 10, list(range(10))))
    assert math.isnan(meta_eval.pearson(list(range(10)), [1e-300] * 10))


def test_pearson_is_unchanged_bit_for_bit_on_ordinary_input():
    rng = np.random.default_rng(3)
    for _ in range(200):
        x, y = rng.normal(size=30), rng.normal(size=30)
        dx, dy = x - x.mean(), y - y.mean()
        before = float(np.clip(float(dx @ dy) / np.sqrt(float(dx @ dx) * float(dy @ dy)), -1, 1))
        assert meta_eval.pearson(x, y) == before


# ---------------------------------------------------------------- 2. paired statistics

@pytest.mark.parametrize("scale", [1e-200, 1e-300, 1e100, 1e140])
def test_paired_t_test_at_any_magnitude(scale):
    a, b = [0.2, 0.4, 0.3, 0.5, 0.1], [0.3, 0.35, 0.45, 0.7, 0.15]
    want = scipy.stats.ttest_rel(b, a)
    got = rm.paired_t_test([v * scale for v in a], [v * scale for v in b])
    assert got.statistic == pytest.approx(want.statistic, rel=1e-12)
    assert got.p_value == pytest.approx(want.pvalue, rel=1e-9)
    assert got.mean_difference == pytest.approx(np.mean(np.subtract(b, a)) * scale, rel=1e-12)


def test_the_probes_paired_t_test():
    """t = -0.5, p = 0.67 (scipy), not t = -inf and p = 0."""
    got = rm.paired_t_test([1e-200, 0, 1e-200], [0, 1e-200, 0])
    want = scipy.stats.ttest_rel([0, 1, 0], [1, 0, 1])     # scipy itself underflows at 1e-200
    assert got.statistic == pytest.approx(want.statistic, rel=1e-12) == -0.5
    assert got.p_value == pytest.approx(want.pvalue, rel=1e-9)


@pytest.mark.parametrize("scale", [1e-200, 1e-300, 1e140])
def test_paired_effect_size_and_queries_needed_at_any_magnitude(scale):
    a = [0.2, 0.4, 0.3, 0.5, 0.1, 0.6, 0.2, 0.3]
    b = [0.3, 0.35, 0.45, 0.7, 0.15, 0.55, 0.3, 0.45]
    small_a, small_b = [v * scale for v in a], [v * scale for v in b]
    want = lab_power.paired_effect_size(a, b, n_resamples=500)
    got = lab_power.paired_effect_size(small_a, small_b, n_resamples=500)
    assert got.d_z == pytest.approx(want.d_z, rel=1e-12)
    assert (got.low, got.high) == pytest.approx((want.low, want.high), rel=1e-12)
    assert got.sd_difference == pytest.approx(want.sd_difference * scale, rel=1e-12)
    need = lab_power.queries_needed(a, b, n_simulations=300)
    got_need = lab_power.queries_needed(small_a, small_b, n_simulations=300)
    assert (got_need.n_queries, got_need.achieved_power) == (need.n_queries, need.achieved_power)
    assert got_need.d_z == pytest.approx(need.d_z, rel=1e-12)


# ---------------------------------------------------------------- 3. the t distribution's limits

@pytest.mark.parametrize("t, df", [(1e156, 1e4), (1e52, 1e156), (1e308, 1e308), (1e200, 3.0),
                                   (1e160, 1e300), (-1e308, 2.0), (1e300, 1e100)])
def test_t_p_values_for_huge_t(t, df):
    want = 2 * scipy.stats.t.sf(abs(t), df)
    got = significance.t_two_sided_p(t, df)
    assert not math.isnan(got)
    assert got == pytest.approx(want, rel=1e-9, abs=1e-300)
    cdf = significance.student_t_cdf(t, df)
    assert cdf == pytest.approx(scipy.stats.t.cdf(t, df), rel=1e-9, abs=1e-300)


# ---------------------------------------------------------------- 6. integers beyond a float

@pytest.mark.parametrize("fn", [agreement.kendall_tau, agreement.spearman, meta_eval.pearson])
def test_an_integer_beyond_a_float_is_named(fn):
    with pytest.raises(ValueError, match=r"about 10\*\*400"):
        fn([1, 2, 10**400], [1, 2, 3])
    with pytest.raises(ValueError, match=r"about -10\*\*400 at position 1"):
        fn([1, 2, 3], [1, -10**400, 3])


@pytest.mark.parametrize("fn", [ppi_study.ppi_variance_ratio, ppi_study.ppi_repeated])
def test_an_integer_lam_beyond_a_float_is_named(fn):
    y, yhat = [0, 1, 1, 0, 1, 0, 1, 1] * 3, [0, 1, 0, 0, 1, 1, 1, 1] * 3
    with pytest.raises(ValueError, match=r"lam.*about 10\*\*400"):
        fn(y, yhat, n=8, lam=10**400)


# ---------------------------------------------------------------- 7. PPI's study at any magnitude

def _population(seed=5, size=60):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 5, size).astype(float)
    return y, np.clip(y + rng.integers(-1, 2, size), 0, 4)


@pytest.mark.parametrize("scale", [1e200, 3e307, 1e-200, 1e-300])
def test_ppi_repeated_at_any_magnitude(scale):
    """Before: [1e200, 0] * 20 gave width nan and coverage 0 (the squares overflowed)."""
    y, yhat = _population()
    for lam in (1, None, 0.5):
        want = ppi_study.ppi_repeated(y, yhat, n=12, repeats=40, lam=lam, seed=1)
        got = ppi_study.ppi_repeated(y * scale, yhat * scale, n=12, repeats=40, lam=lam, seed=1)
        assert got.coverage == want.coverage and got.classical_coverage == want.classical_coverage
        assert got.width == pytest.approx(want.width * scale, rel=1e-9)
        assert got.classical_width == pytest.approx(want.classical_width * scale, rel=1e-9)
        assert got.truth == pytest.approx(want.truth * scale, rel=1e-12)
        np.testing.assert_allclose(got.lam, want.lam, rtol=1e-9, atol=1e-12)
    got = ppi_study.ppi_repeated([1e200, 0] * 20, [1e200, 0] * 20, n=10, repeats=20)
    assert math.isfinite(got.width) and got.coverage == 1.0


@pytest.mark.parametrize("scale", [1.7e308 / 4, 1e200, 1e-200, 1e-300])
def test_ppi_variance_ratio_at_any_magnitude(scale):
    """Before: 1.7e308 gave nan, and 1e-200 "human labels all equal" (the variance underflowed)."""
    y, yhat = _population()
    for lam in (1, None, 0.25):
        want = ppi_study.ppi_variance_ratio(y, yhat, n=12, lam=lam)
        assert ppi_study.ppi_variance_ratio(y * scale, yhat * scale, n=12, lam=lam) == \
            pytest.approx(want, rel=1e-9)
    # the judge's labels on another scale than the people's: the ratio for lam=None does not move
    assert ppi_study.ppi_variance_ratio(y, yhat * 1e-250, n=12, lam=None) == pytest.approx(
        ppi_study.ppi_variance_ratio(y, yhat, n=12, lam=None), rel=1e-9)
    with pytest.raises(ValueError, match="all equal"):
        ppi_study.ppi_variance_ratio([0.1] * 10, yhat[:10], n=4)


# ---------------------------------------------------------------- 8. the fourth probe: lam, repeats, Y

PPI_Y, PPI_YHAT = [0., 1., 0., 1.] * 3, [0., 1., 1., 1.] * 3


@pytest.mark.parametrize("lam", [1e200, 1e308, -1e308])
def test_ppi_variance_ratio_beyond_a_float_names_lam(lam):
    """Before: a bare OverflowError (34, 'Numerical result out of range') from lam ** 2.

    By hand: var(Y) = 1/4, var(Yhat) = 3/16, cov = 1/8, n/N = 4/8; the ratio is
    (1/4 - lam/4 + lam**2 * 9/32) / (1/4), about 1.1 lam**2: over 1e400 here.
    """
    with pytest.raises(ValueError, match=r"lam=.*beyond the range of a float"):
        ppi_study.ppi_variance_ratio(PPI_Y, PPI_YHAT, n=4, lam=lam)


def test_ppi_variance_ratio_is_computed_when_lam_squared_alone_overflows():
    """lam**2 = 1e320 is beyond a float, but var(Yhat) = 2**-82 brings the ratio back to 1e295."""
    from fractions import Fraction as F
    d = 2.0 ** -40
    y, yhat, lam, n = [0., 1.] * 6, [1., 1. + d] * 6, 1e160, 4
    N = len(y) - n
    # by hand: var(Y) = 1/4, var(Yhat) = d**2/4, cov(Y, Yhat) = d/4
    var_y, var_f, cov = F(1, 4), F(d) ** 2 / 4, F(d) / 4
    want = (var_y - 2 * F(lam) * cov + F(lam) ** 2 * var_f * (1 + F(n, N))) / var_y
    assert ppi_study.ppi_variance_ratio(y, yhat, n=n, lam=lam) == pytest.approx(float(want),
                                                                              rel=1e-12)


@pytest.mark.parametrize("fn", ["ppi_mean_ci", "ppi_mean_pointestimate"])
@pytest.mark.parametrize("lam", [10**400, -10**400], ids=["1e400", "-1e400"])
def test_calibration_names_an_integer_lam_beyond_a_float(fn, lam):
    """Before: OverflowError: int too large to convert to float."""
    from ragmetrics_edu.judge import calibration
    with pytest.raises(ValueError, match=r"lam must be numbers a float can hold.*about -?10\*\*400"):
        getattr(calibration, fn)([0., 1., 0., 1.], [0., 1., 1., 1.], [1., 1., 0.], lam=lam)


def test_ppi_repeated_refuses_a_numpy_repeats_that_wraps_around():
    """Before: repeats * total wrapped in int64, passed, and NumPy said "array is too big"."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for repeats in (np.int64(2**62), np.int64(2**61 + 1), np.uint64(2**63)):
            with pytest.raises(ValueError, match=r"repeats must be a whole number from 1 to "
                                                 r"2500000 for 20 items, got"):
                ppi_study.ppi_repeated(PPI_Y[:4] * 5, PPI_YHAT[:4] * 5, n=6, repeats=repeats)
    r = ppi_study.ppi_repeated(PPI_Y[:4] * 5, PPI_YHAT[:4] * 5, n=6, repeats=np.int64(3))
    assert len(r.low) == 3


@pytest.mark.parametrize("scores, error, match", [
    (None, TypeError, r"^scores must be a sequence of numbers, got None"),
    ("x" * 10**6, TypeError, r"^scores must be a sequence of numbers, got 'xxx"),
    ({"a": 1, "b": 2, "c": 3}, TypeError, r"^scores must be a sequence of numbers"),
    ([1, 2], ValueError, r"^scores and ratings must label the same items"),
    ([1, 2, float("nan")], ValueError, r"^scores must be a flat sequence of finite numbers"),
])
def test_correlation_ci_names_scores(scores, error, match):
    """Before: "metrics['metric'] must be a sequence of labels": meta_evaluate's name, not ours."""
    with pytest.raises(error, match=match) as caught:
        meta_eval.correlation_ci(scores, [1, 2, 3], n_resamples=10)
    assert "metrics" not in str(caught.value) and len(str(caught.value)) < 200
    with pytest.raises(TypeError, match=r"^ratings must be a sequence of numbers"):
        meta_eval.correlation_ci([1, 2, 3], None, n_resamples=10)
    # meta_evaluate's own argument is metrics: its message stays
    with pytest.raises(TypeError, match=r"metrics\['m'\]"):
        meta_eval.meta_evaluate({"m": None}, [1, 2, 3], n_resamples=10)


def _ppi_study_calls():
    return [lambda y, yhat: ppi_study.ppi_variance_ratio(y, yhat, n=4),
            lambda y, yhat: ppi_study.ppi_repeated(y, yhat, n=4, repeats=5)]


@pytest.mark.parametrize("call", _ppi_study_calls())
@pytest.mark.parametrize("bad, error, match", [
    ({"a": 1}, TypeError, r"must be a sequence of numbers \(one per item\), got \{'a': 1\}"),
    ("x" * 10**6, TypeError, r"must be a sequence of numbers \(one per item\), got 'xxx"),
    (b"0101", TypeError, r"must be a sequence of numbers"),
    (10**400, TypeError, r"must be a sequence of numbers \(one per item\), got an integer of "
                         r"about 10\*\*400"),
    (None, TypeError, r"must be a sequence of numbers \(one per item\), got None"),
    (3.5, TypeError, r"must be a sequence of numbers \(one per item\), got 3.5"),
    (["0", "1"] * 6, TypeError, r"must hold numbers"),
    ([None, 1.] * 6, TypeError, r"must hold numbers"),
    ([1j, 1.] * 6, TypeError, r"must hold numbers"),
    ([10**400] + [0.] * 11, ValueError, r"must be numbers a float can hold.*about 10\*\*400 "
                                        r"at index 0"),
    ([[0., 1.]] * 6, ValueError, r"must be a flat sequence"),
    ([[0.], [1., 0.]] + [[0.]] * 10, ValueError, r"must be a flat sequence"),
    ([float("nan")] + [0.] * 11, ValueError, r"must be a flat sequence of finite numbers"),
], ids=["dict", "megabyte", "bytes", "1e400", "None", "float", "strings", "Nones", "complex",
        "int1e400", "2d", "ragged", "nan"])
def test_ppi_study_names_y_and_yhat(call, bad, error, match):
    """Before: "float() argument must be ...", a megabyte echoed, or a bare OverflowError."""
    for y, yhat, name in ((bad, PPI_YHAT, "Y"), (PPI_Y, bad, "Yhat")):
        with pytest.raises(error, match="^" + name + " " + match) as caught:
            call(y, yhat)
        assert len(str(caught.value)) < 300
    # booleans and NumPy arrays of any real dtype are labels
    assert call(np.array(PPI_Y, dtype=np.float32), [bool(v) for v in PPI_YHAT]) is not None


# ---------------------------------------------------------------- 9. the fifth probe

def test_kappa_from_confusion_names_a_table_that_is_not_counts():
    from ragmetrics_edu.judge import agreement

    for table in ([[10**400, 0], [0, 1]], [[1, 2], [3]], [["1", "0"], ["0", "1"]]):
        with pytest.raises(TypeError, match="table must be a square array of counts"):
            agreement.kappa_from_confusion(table)


def test_correlations_name_values_that_are_not_real_numbers():
    for fn in (agreement.kendall_tau, agreement.spearman, meta_eval.pearson):
        with pytest.raises(TypeError, match="must be sequences of real numbers"):
            fn([1 + 2j, 2, 3], [1, 2, 3])


def test_top_p_filter_and_softmax_check_their_input():
    from ragmetrics_edu.models.sampling import softmax, top_p_filter

    for probs in ([0.0, 0.0], [math.nan, 1.0], [-1.0, 2.0], [], [[0.5, 0.5], [0.9, 0.1]]):
        with pytest.raises(ValueError, match="probs must be a non-empty 1-D array"):
            top_p_filter(probs, 0.9)
    np.testing.assert_allclose(top_p_filter([1e308] * 3, 0.9), [1 / 3] * 3)
    assert top_p_filter([0.5, 0.3, 0.2], 0.7).tolist() == pytest.approx([0.625, 0.375, 0.0])
    with pytest.raises(ValueError, match="non-empty array"):
        softmax(np.array(3.0))
    with pytest.raises(TypeError, match="ragged"):
        softmax([[1, 2], [3]])
    with np.errstate(all="raise"):
        np.testing.assert_allclose(softmax([1.7e308, -1.7e308]), [1.0, 0.0])


def test_a_nan_probability_is_a_value_error():
    from decimal import Decimal

    from ragmetrics_edu.online.counterfactual import ranking_value
    from ragmetrics_edu.online.interleaving import team_draft_interleave

    with pytest.raises(ValueError, match=r"alpha_by_doc\['a'\] must be a probability"):
        ranking_value({"a": math.nan}, ["a"], weights=[1.0])
    with pytest.raises(ValueError, match="NaN document id"):
        team_draft_interleave([Decimal("sNaN"), "b"], ["a", "b"])
