r"""Is system B really better than system A? Bootstrap, paired t-test, randomization.

Two retrieval systems run on the same queries give two lists of per-query
scores (say nDCG@10), paired by query. Their means differ; these functions
say how much that difference could be chance. Everything is plain NumPy and
:mod:`math`; the Student t distribution is computed here too (scipy is only
used by the tests, to check us).

=========================  ==================================================
function                   what it gives
=========================  ==================================================
``bootstrap_ci``           a percentile bootstrap interval of a mean
``paired_t_test``          Student's paired t-test, two-sided p-value
``randomization_test``     the paired randomization (sign-flip permutation)
                           test, exact or Monte Carlo
``compare_systems``        both systems' means, the difference and a test,
                           from two Reports aligned by query id
``student_t_cdf``          the Student t cumulative distribution function
=========================  ==================================================

After the test, :mod:`ragmetrics_edu.lab.power`: many comparisons
(``adjust_p_values``), effect sizes (``paired_effect_size``) and the number
of queries a difference needs (``queries_needed``).

Conventions, named rather than picked silently:

* **Differences are B - A** (``b - a``): a positive difference means the
  second system scores higher.
* **Two-sided p-values:** every test counts a difference in either direction.
* **Identical systems in the t-test.** When every difference is zero the t
  statistic is 0/0: we return ``nan`` for both statistic and p-value, as
  ``scipy.stats.ttest_rel`` does. (The randomization test gives p = 1.)
* **Monte Carlo p-values** count the observed assignment among the random
  ones, :math:`(c + 1) / (R + 1)`, so they are never 0 (Phipson and Smyth,
  2010; ``scipy.stats.permutation_test`` does the same). Exact enumeration
  divides by :math:`2^n`.
* **Ties** in the randomization test: a resampled mean within
  :math:`100\,\epsilon \sum_i |d_i|` (:math:`\epsilon` the machine epsilon)
  of the observed one counts as "at least as extreme". The rounding error of
  a mean of :math:`n` terms is below :math:`\epsilon \sum_i |d_i|`, so
  rounding never decides a tie (two systems with equal means get p = 1, not
  a p-value decided by a last-bit error).
* **Seeds.** Every random function takes ``seed`` (default 0): the same call
  gives the same answer. Pass ``seed=None`` for fresh randomness.
* **Resamples are bounded.** ``n_resamples`` (and ``n_simulations``) may
  not exceed ``MAX_RESAMPLES`` (1,000,000): a ``ValueError`` says so, rather
  than a run that never ends.

References
----------
M. D. Smucker, J. Allan and B. Carterette, "A comparison of statistical
significance tests for information retrieval evaluation", CIKM 2007.

T. Sakai, *Statistical Significance Testing in Information Retrieval:
Theory and Practice*, Springer, 2016.
"""

import itertools
import math
import numbers
from dataclasses import dataclass, field

import numpy as np

from .._deprecation import formerly_positional
from .._scaling import scaled
from .._validation import (MAX_RESAMPLES, MIN_DF, check_bootstrap, check_choice,
                           check_group_labels, check_resamples, check_real, check_seed,
                           check_t_df, describe)
from ._result_text import comparison_text, interval_text, significance_text

__all__ = [
    "bootstrap_ci", "paired_t_test", "randomization_test", "compare_systems",
    "student_t_cdf", "ConfidenceInterval", "SignificanceResult", "Comparison",
    "TESTS", "MAX_RESAMPLES",
]

TESTS = ("t", "randomization")
"""Names of the paired tests :func:`compare_systems` runs."""

# ties: resampled means within _TIE_RTOL * sum(|d|) of the observed one
_TIE_RTOL = 100 * np.finfo(np.float64).eps
# at most this many numbers in one block of resampled rows (memory bound)
RESAMPLE_BLOCK = 1 << 20
# exact enumeration of 2**n sign patterns is refused above this n
_MAX_EXACT_N = 24


# ----------------------------------------------------------------- results

@dataclass(frozen=True)
class ConfidenceInterval:
    """A confidence interval of a mean, and how it was made.

    Attributes
    ----------
    mean : float
        The mean of the values (the point estimate); ``float()`` of the result.
    low, high : float
        The interval's ends.
    confidence : float
        Its nominal coverage, e.g. 0.95.
    n_resamples : int
        Number of bootstrap resamples.
    seed : int or None
        The seed of the random generator.
    method : str
        ``"percentile"``.
    """

    mean: float
    low: float
    high: float
    confidence: float
    n_resamples: int
    seed: object
    method: str = "percentile"

    def __float__(self):
        return float(self.mean)

    def __str__(self):
        return interval_text(f"{self.mean:.4f}", self.low, self.high, self.confidence,
                             f"{self.method} bootstrap", self.n_resamples, self.seed)


@dataclass(frozen=True)
class SignificanceResult:
    """The outcome of a paired significance test.

    Attributes
    ----------
    statistic : float
        The t statistic (t-test) or the mean difference (randomization).
    p_value : float
        Two-sided p-value.
    mean_difference : float
        Mean of ``b - a``.
    n : int
        Number of pairs (queries).
    test : str
        ``"paired t-test"`` or ``"randomization (exact)"`` /
        ``"randomization (Monte Carlo)"``.
    df : int or None
        Degrees of freedom of the t-test, ``n - 1``.
    n_resamples : int or None
        Sign patterns looked at by the randomization test (``2**n`` when
        exact).
    seed : int or None
        Seed of the Monte Carlo randomization test.
    """

    statistic: float
    p_value: float
    mean_difference: float
    n: int
    test: str
    df: object = None
    n_resamples: object = None
    seed: object = None

    __str__ = significance_text


@dataclass(frozen=True)
class Comparison:
    """Two systems compared on one metric, query by query.

    Attributes
    ----------
    metric : str
        The metric compared, e.g. ``"ndcg@10"``.
    mean_a, mean_b : float
        Each system's mean over the shared queries.
    difference : float
        ``mean_b - mean_a``.
    p_value : float
        Two-sided p-value of ``result.test``.
    result : SignificanceResult
        The full test result.
    ci : ConfidenceInterval
        Percentile bootstrap interval of the mean difference ``b - a``.
    qids : tuple of str
        The queries compared, in sorted order.
    """

    metric: str
    mean_a: float
    mean_b: float
    difference: float
    p_value: float
    result: SignificanceResult
    ci: ConfidenceInterval
    qids: tuple = field(repr=False, default=())

    __str__ = comparison_text


# ----------------------------------------------------------------- checks

def check_values(values, *, name, min_len=1):
    """A 1-D float64 array of finite numbers with at least ``min_len`` items."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise TypeError(f"{name} must be a sequence of numbers, got {values!r}")
    items = values.tolist() if isinstance(values, np.ndarray) else list(values)
    for i, v in enumerate(items):
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise TypeError(f"{name} must hold numbers, got {describe(v)} at position {i}")
        if not math.isfinite(check_real(v, name=name, where=f" at position {i}")):
            raise ValueError(f"{name} must be finite, got {v!r} at position {i}")
    if len(items) < min_len:
        raise ValueError(
            f"{name} must hold at least {min_len} value"
            f"{'s' if min_len > 1 else ''}, got {len(items)}"
        )
    return np.asarray(items, dtype=np.float64).reshape(-1)


def check_pairs(a, b, *, min_len):
    a = check_values(a, name="a", min_len=min_len)
    b = check_values(b, name="b", min_len=min_len)
    if a.shape != b.shape:
        raise ValueError(
            f"a and b must be paired (same length), got {len(a)} and {len(b)}"
        )
    with np.errstate(over="ignore", invalid="ignore"):
        d = np.abs(b - a)
    if not np.all(d <= MAX_DIFFERENCE):
        i = int(np.flatnonzero(~(d <= MAX_DIFFERENCE))[0])
        raise ValueError(
            f"b - a must stay within {MAX_DIFFERENCE:g} (MAX_DIFFERENCE: the squares of the "
            f"differences must not overflow), got b[{i}] - a[{i}] = {b[i]!r} - {a[i]!r}"
        )
    return a, b


MAX_DIFFERENCE = 1e150
"""The largest ``|b - a|`` of a paired test: sums of squared differences stay finite."""



# ----------------------------------------------------------------- bootstrap

def _group_codes(groups, n):
    """Each value's group as 0 .. G - 1, numbered in order of first appearance."""
    codes = {}
    labels = check_group_labels(groups, n, per="value")
    out = np.array([codes.setdefault(g, len(codes)) for g in labels], dtype=np.int64)
    if len(codes) < 2:
        raise ValueError(f"groups must hold at least 2 distinct groups to resample, got "
                         f"{len(codes)}")
    return out


@formerly_positional("n_resamples", "seed", "groups")
def bootstrap_ci(values, confidence=0.95, *, n_resamples=10_000, seed=0, groups=None):
    r"""Percentile bootstrap confidence interval of a mean.

    Draw ``n_resamples`` samples of size :math:`n` from the values with
    replacement, take the mean :math:`\bar x^*_r` of each, and report the
    :math:`\alpha/2` and :math:`1 - \alpha/2` quantiles of those means,
    :math:`\alpha = 1 - \text{confidence}`:

    .. math::

        \left[\, Q_{\alpha/2}(\bar x^*_1, \dots, \bar x^*_R),\;
        Q_{1-\alpha/2}(\bar x^*_1, \dots, \bar x^*_R) \,\right]

    Parameters
    ----------
    values : sequence of float
        One value per query (at least two).
    confidence : float, default 0.95
        Nominal coverage, strictly between 0 and 1.
    n_resamples : int, default 10000
        Number of bootstrap resamples :math:`R`.
    seed : int or None, default 0
        Seed of ``numpy.random.default_rng``; the same seed gives the same
        interval.
    groups : sequence, optional
        One label per value (the query of a pair, when the values are pairs'):
        each resample draws as many groups as there are, with replacement,
        and takes the mean of all the values of the groups drawn (a group
        drawn twice counts twice).  Values of one query are not independent;
        this resamples what was sampled.  At least two groups.

    Returns
    -------
    ConfidenceInterval
        ``mean``, ``low``, ``high`` (Python floats) and how they were made.

    See Also
    --------
    paired_t_test, randomization_test

    Notes
    -----
    Quantiles use NumPy's default linear interpolation between order
    statistics. The percentile interval is the simplest bootstrap interval;
    ``scipy.stats.bootstrap`` defaults to the BCa interval, which corrects
    for bias and skew (pass ``method="percentile"`` there to compare). With
    few queries every bootstrap interval is too narrow.

    References
    ----------
    B. Efron and R. J. Tibshirani, *An Introduction to the Bootstrap*,
    Chapman & Hall, 1993, chapter 13.

    Examples
    --------
    >>> ci = bootstrap_ci([0.2, 0.4, 0.6, 0.8, 1.0], seed=0)
    >>> round(ci.mean, 4)   # (0.2 + 0.4 + 0.6 + 0.8 + 1.0) / 5
    0.6
    >>> ci.low < ci.mean < ci.high
    True
    >>> bootstrap_ci([0.5, 0.5, 0.5]).low   # no spread, no uncertainty
    0.5
    """
    # one value has no spread to resample: its "interval" would be a point
    # that looks certain (scipy.stats.bootstrap refuses it too)
    x = check_values(values, name="values", min_len=2)
    confidence, n_resamples, seed = check_bootstrap(confidence, n_resamples, seed)
    rng = np.random.default_rng(seed)
    n = len(x)
    # values near the float limit (1e308) overflow a sum: scale them by a power of two
    # (exact), take every mean, scale back; below 2**1000 nothing is scaled
    scale = 2.0 ** 64 if np.abs(x).max() > 2.0 ** 1000 else 1.0
    x = x / scale
    means = np.empty(n_resamples, dtype=np.float64)
    if groups is None:
        rows = max(1, RESAMPLE_BLOCK // n)
        for start in range(0, n_resamples, rows):
            stop = min(start + rows, n_resamples)
            idx = rng.integers(0, n, size=(stop - start, n))
            means[start:stop] = x[idx].mean(axis=1)
    else:
        code = _group_codes(groups, n)
        n_groups = int(code.max()) + 1
        sums = np.bincount(code, weights=x, minlength=n_groups)
        sizes = np.bincount(code, minlength=n_groups).astype(np.float64)
        rows = max(1, RESAMPLE_BLOCK // n_groups)
        for start in range(0, n_resamples, rows):
            stop = min(start + rows, n_resamples)
            picks = rng.integers(0, n_groups, size=(stop - start, n_groups))
            cells = picks + n_groups * np.arange(stop - start)[:, None]
            counts = np.bincount(cells.ravel(), minlength=(stop - start) * n_groups)
            counts = counts.reshape(stop - start, n_groups).astype(np.float64)
            means[start:stop] = (counts @ sums) / (counts @ sizes)
    alpha = 1 - confidence
    low, high = np.quantile(means, [alpha / 2, 1 - alpha / 2]) * scale
    # a constant sample gives exactly its value (no rounding of the mean)
    mean = float(x.mean()) * scale
    if np.all(x == x[0]):
        low = high = mean = float(x[0]) * scale
    return ConfidenceInterval(
        mean=mean, low=float(low), high=float(high), confidence=confidence,
        n_resamples=n_resamples, seed=seed,
    )


# ----------------------------------------------------------------- Student t

def _betainc_cf(x, a, b):
    """Continued fraction of the regularized incomplete beta (modified Lentz).

    Converges fast for ``x < (a + 1) / (a + b + 2)``.
    """
    tiny = 1e-300
    c = 1.0
    d = 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10_000):
        # even step: d_{2m} = m (b - m) x / ((a + 2m - 1)(a + 2m))
        num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
        d = 1.0 + num * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + num / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        # odd step: d_{2m+1} = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1))
        num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
        d = 1.0 + num * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + num / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            return h
    raise RuntimeError(f"incomplete beta did not converge for x={x}, a={a}, b={b}")


def _betainc(x, a, b, x_complement=None):
    r"""Regularized incomplete beta function :math:`I_x(a, b)`.

    .. math::

        I_x(a, b) = \frac{x^a (1-x)^b}{a\,B(a, b)} \cdot
        \cfrac{1}{1 + \cfrac{d_1}{1 + \cfrac{d_2}{1 + \cdots}}}

    (DLMF 8.17.22), using :math:`I_x(a, b) = 1 - I_{1-x}(b, a)` where the
    fraction would converge slowly. ``x_complement`` is :math:`1 - x` when
    the caller knows it more precisely than ``1 - x``.
    """
    y = 1.0 - x if x_complement is None else x_complement
    if x <= 0.0:
        return 0.0
    if y <= 0.0:
        return 1.0
    log_front = (a * math.log(x) + b * math.log(y)
                 + math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _betainc_cf(x, a, b) / a
    return 1.0 - math.exp(log_front) * _betainc_cf(y, b, a) / b


# Stirling's series for log Gamma: B_2k / (2k (2k - 1) z^(2k - 1)), k = 1..5
_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188)


def _log_gamma_half_ratio(a):
    r""":math:`\ln\Gamma(a + \tfrac12) - \ln\Gamma(a)`, without the cancellation of two lgammas.

    For large :math:`a` both logarithms are about :math:`a \ln a` (2e10 at
    :math:`a = 10^9`) and their difference about :math:`\tfrac12 \ln a`: the
    subtraction keeps only the digits of the difference, and ``lgamma(a + 0.5)
    - lgamma(a)`` is off by 1e-6 there. From Stirling's series
    :math:`\ln\Gamma(z) = (z - \tfrac12)\ln z - z + \tfrac12\ln 2\pi + S(z)`,

    .. math::

        \ln\Gamma(a + \tfrac12) - \ln\Gamma(a) = \tfrac12 \ln a
        + \bigl(a \ln(1 + \tfrac{1}{2a}) - \tfrac12\bigr) + S(a + \tfrac12) - S(a)

    every term of which is computed to full precision (``log1p``); the series
    is cut after five terms, exact to 2e-16 from :math:`a = 20` on.
    """
    if a < 20.0:
        return math.lgamma(a + 0.5) - math.lgamma(a)

    def series(z):
        return sum(c / z ** (2 * k + 1) for k, c in enumerate(_STIRLING))

    return 0.5 * math.log(a) + (a * math.log1p(0.5 / a) - 0.5) + (series(a + 0.5) - series(a))


LARGE_DF = 1e4
"""From this many degrees of freedom on, :func:`t_two_sided_p` uses Hill's normal transform."""


def _hill_two_sided_p(t2, df):
    r"""``P(|T| >= t)`` for large ``df`` by Hill's transform of :math:`t` to a normal deviate.

    With :math:`a = \nu - \tfrac12`, :math:`b = 48a^2` and
    :math:`y = a \ln(1 + t^2/\nu)` (``log1p``: no digit lost to
    :math:`1 + t^2/\nu` rounding to 1),

    .. math::

        z = \sqrt{y}\left(1 + \frac{1}{b}\left(y + 3 +
            \frac{((-0.4y - 3.3)y - 24)y - 85.5}{0.8y^2 + 100 + b}\right)\right),
        \qquad p = \operatorname{erfc}(z / \sqrt 2)

    whose error falls as a power of :math:`1/\nu` (below 1e-12 of the tail
    from :math:`\nu = 10^4`, far tails included; a test holds it to scipy).
    As :math:`\nu \to \infty`, :math:`z \to |t|`: the normal limit.
    """
    a = df - 0.5
    b = 48.0 * a * a  # inf beyond 1e154: the corrections vanish, z = sqrt(y)
    y = a * math.log1p(t2 / df)
    if y >= 1600.0:  # the bracket below is at least 1, so z >= sqrt(y) = 40 and erfc(z / sqrt 2)
        return 0.0   # is below 1e-340: 0 in floats (and its cubic would overflow: inf / inf)
    z = (((((-0.4 * y - 3.3) * y - 24.0) * y - 85.5) / (0.8 * y * y + 100.0 + b) + y + 3.0)
         / b + 1.0) * math.sqrt(y)
    return math.erfc(z / math.sqrt(2.0))


def t_two_sided_p(t, df):
    """``P(|T| >= |t|)`` for Student's t with ``df`` degrees of freedom, checked as
    :func:`student_t_cdf` checks them (:func:`_t_two_sided_p` computes it)."""
    return _t_two_sided_p(*check_t_df(t, df))


def _t_two_sided_p(t, df):
    r"""``P(|T| >= |t|)`` for Student's t with ``df`` degrees of freedom, unchecked (NaN t: NaN).

    .. math:: p = I_{\nu/(\nu + t^2)}\left(\tfrac{\nu}{2}, \tfrac{1}{2}\right)

    Up to :data:`LARGE_DF` degrees of freedom, by the continued fraction of
    :func:`_betainc`, its front factor :math:`x^a y^b / B(a, b)`
    (:math:`x = \nu/(\nu + t^2)`, :math:`y = t^2/(\nu + t^2)`,
    :math:`a = \nu/2`, :math:`b = 1/2`) computed in a form that keeps its
    digits: :math:`a \ln x = -a\,\mathrm{log1p}(t^2/\nu)` and
    :func:`_log_gamma_half_ratio`. Beyond, the continued fraction itself
    loses digits (its terms :math:`1 - x d` cancel when :math:`x` is within
    :math:`1/\nu` of 1: 4e-7 of the tail at :math:`\nu = 10^9`, every digit
    from :math:`10^{15}`), and Hill's transform to a normal deviate takes
    over (:func:`_hill_two_sided_p`), which tends to the normal distribution.

    References
    ----------
    G. W. Hill, "Algorithm 395: Student's t-distribution", Communications of
    the ACM 13(10), 1970.
    """
    if math.isnan(t):
        return math.nan
    if math.isinf(t):
        return 0.0
    t2 = t * t
    if t2 == 0.0:
        return 1.0
    if df >= LARGE_DF:
        return _hill_two_sided_p(t2, df)
    a, b = df / 2.0, 0.5
    log_beta = _log_gamma_half_ratio(a) - math.lgamma(b)  # -ln B(a, b)
    if math.isinf(t2):  # |t| beyond 1e154: x = df / t^2, and I_x(a, b) = x^a / (a B(a, b))
        return math.exp(a * (math.log(df) - 2.0 * math.log(abs(t))) + log_beta) / a
    x, y = df / (df + t2), t2 / (df + t2)
    log_front = -a * math.log1p(t2 / df) + b * (math.log(t2) - math.log(df + t2)) + log_beta
    if x < (a + 1.0) / (a + b + 2.0):
        p = math.exp(log_front) * _betainc_cf(x, a, b) / a
    else:
        p = 1.0 - math.exp(log_front) * _betainc_cf(y, b, a) / b
    return min(1.0, max(p, 0.0))


def student_t_cdf(t, df):
    r"""Cumulative distribution function of Student's t distribution.

    .. math::

        F_\nu(t) = 1 - \tfrac{1}{2} I_{\nu/(\nu+t^2)}
        \left(\tfrac{\nu}{2}, \tfrac{1}{2}\right) \quad (t \ge 0),
        \qquad F_\nu(-t) = 1 - F_\nu(t)

    where :math:`I_x(a, b)` is the regularized incomplete beta function,
    computed here with its continued fraction.

    Parameters
    ----------
    t : float
        The point.
    df : float
        Degrees of freedom :math:`\nu`, at least :data:`MIN_DF` (1e-6).

    Returns
    -------
    float
        :math:`P(T \le t)`.

    Examples
    --------
    >>> student_t_cdf(0.0, 5)
    0.5
    >>> round(student_t_cdf(2.015, 5), 4)   # the 95% point of t(5) is 2.015
    0.95
    >>> round(student_t_cdf(-1.0, 1), 4)    # Cauchy: 1/2 + atan(-1)/pi
    0.25
    """
    t, df = check_t_df(t, df)
    half_tail = _t_two_sided_p(t, df) / 2.0
    return float(1.0 - half_tail if t >= 0 else half_tail)


# ----------------------------------------------------------------- t-test

def paired_t_test(a, b):
    r"""Student's paired t-test: two-sided p-value for a mean difference of 0.

    With :math:`d_i = b_i - a_i` over :math:`n` queries,

    .. math::

        t = \frac{\bar d}{s_d / \sqrt{n}}, \qquad
        s_d^2 = \frac{1}{n - 1} \sum_i (d_i - \bar d)^2, \qquad
        p = P(|T_{n-1}| \ge |t|)

    Parameters
    ----------
    a, b : sequence of float
        Paired scores of systems A and B, one per query, in the same query
        order (at least two).

    Returns
    -------
    SignificanceResult
        ``statistic`` (t), ``p_value``, ``mean_difference`` (of b - a),
        ``df = n - 1``.

    See Also
    --------
    randomization_test : the same question without assuming normality.
    compare_systems : run it on two Reports.

    Notes
    -----
    The test assumes the differences are roughly normal; per-query IR
    scores are bounded and often skewed, yet with 50 or more queries the
    t-test agrees well with the randomization test (Smucker et al., 2007).
    The sign of t follows ``b - a``; ``scipy.stats.ttest_rel(a, b)`` uses
    ``a - b`` (same p-value, opposite sign). If every difference is zero, t
    is 0/0 and both statistic and p-value are ``nan``, as in scipy; if the
    differences are equal but not zero, :math:`t = \pm\infty` and p = 0.

    References
    ----------
    Student (W. S. Gosset), "The probable error of a mean", Biometrika 6,
    1908, 1-25.

    Examples
    --------
    >>> r = paired_t_test([0.1, 0.2, 0.3, 0.4], [0.2, 0.4, 0.4, 0.6])
    >>> round(r.mean_difference, 4)   # differences 0.1, 0.2, 0.1, 0.2
    0.15
    >>> round(r.statistic, 4)         # 0.15 / (0.057735 / 2)
    5.1962
    >>> round(r.p_value, 4)
    0.0138
    """
    a, b = check_pairs(a, b, min_len=2)
    d, e = scaled(b - a)   # t is the same for b - a times any power of two; its squares
    n = len(d)             # do not underflow (differences of 1e-200 gave t = -inf)
    df = n - 1
    mean = float(d.mean())
    sd = float(d.std(ddof=1))
    if sd == 0.0:
        if mean == 0.0:
            t = math.nan
        else:
            t = math.copysign(math.inf, mean)
    else:
        t = mean / (sd / math.sqrt(n))
    p = _t_two_sided_p(t, df)
    return SignificanceResult(
        statistic=float(t), p_value=float(p), mean_difference=math.ldexp(mean, e), n=n,
        test="paired t-test", df=df,
    )


# ----------------------------------------------------------------- randomization

def _sign_patterns(n, start, stop):
    """Rows ``start .. stop-1`` of all 2**n sign patterns (+1/-1), as floats.

    Row ``r`` flips pair ``i`` when bit ``i`` of ``r`` is set; row 0 is the
    observed assignment.
    """
    rows = np.arange(start, stop, dtype=np.int64)[:, None]
    bits = (rows >> np.arange(n, dtype=np.int64)) & 1
    return 1.0 - 2.0 * bits


def _randomization_reference(d):
    """Exact two-sided p-value, one sign pattern at a time (readable, slow)."""
    n = len(d)
    observed = abs(sum(d) / n)
    tol = _TIE_RTOL * sum(abs(x) for x in d)
    extreme = 0
    total = 0
    for signs in itertools.product((1.0, -1.0), repeat=n):
        flipped = sum(s * x for s, x in zip(signs, d)) / n
        if abs(flipped) >= observed - tol:
            extreme += 1
        total += 1
    return extreme / total


@formerly_positional("n_resamples", "seed", "exact")
def randomization_test(a, b, *, n_resamples=10_000, seed=0, exact=None):
    r"""Paired randomization (sign-flip permutation) test of a mean difference.

    If A and B were interchangeable, each query's difference
    :math:`d_i = b_i - a_i` would be as likely to have the other sign. The
    test flips signs at random (or in every possible way) and counts how
    often the mean of the flipped differences is at least as far from 0 as
    the observed mean:

    .. math::

        p = \frac{\#\{\, s \in \{-1, +1\}^n : |\tfrac{1}{n}\sum_i s_i d_i|
        \ge |\bar d| \,\}}{2^n}

    Parameters
    ----------
    a, b : sequence of float
        Paired scores of systems A and B, one per query, in the same order.
    n_resamples : int, default 10000
        Random sign patterns for the Monte Carlo test :math:`R`.
    seed : int or None, default 0
        Seed of the Monte Carlo test.
    exact : bool, optional
        ``True`` enumerates all :math:`2^n` patterns (refused for
        :math:`n > 24`); ``False`` always samples; ``None`` (default)
        enumerates when :math:`2^n \le` ``n_resamples``.

    Returns
    -------
    SignificanceResult
        ``statistic`` (the mean difference of b - a), ``p_value``,
        ``n_resamples`` (:math:`2^n` when exact) and the test's name.

    See Also
    --------
    paired_t_test

    Notes
    -----
    Monte Carlo: :math:`R` patterns drawn uniformly, :math:`p = (c + 1) /
    (R + 1)` where :math:`c` counts the extreme ones. This is
    ``scipy.stats.permutation_test`` with ``permutation_type="samples"``
    and ``alternative="two-sided"`` (its two-sided rule, twice the smaller
    tail, is the same thing for this symmetric null distribution), and the
    exact p-values are equal, with one difference: when the mean difference
    is zero but rounds to :math:`\pm 10^{-17}`, scipy can return less than
    1; our tie rule returns 1, the exact answer.

    References
    ----------
    R. A. Fisher, *The Design of Experiments*, Oliver & Boyd, 1935,
    section 21.

    Examples
    --------
    >>> r = randomization_test([0.1, 0.2, 0.3], [0.3, 0.4, 0.5])
    >>> r.test, r.n_resamples
    ('randomization (exact)', 8)
    >>> round(r.p_value, 4)   # only "all +" and "all -" reach |mean| = 0.2: 2/8
    0.25
    """
    a, b = check_pairs(a, b, min_len=1)
    n_resamples = check_resamples(n_resamples)
    seed = check_seed(seed)
    if exact not in (None, True, False):
        raise ValueError(f"exact must be None, True or False, got {exact!r}")
    d = b - a
    n = len(d)
    if exact is None:
        exact = n <= _MAX_EXACT_N and 2 ** n <= n_resamples
    if exact and n > _MAX_EXACT_N:
        raise ValueError(
            f"exact enumeration of 2**n sign patterns needs n <= {_MAX_EXACT_N}, "
            f"got n = {n}; use exact=False (Monte Carlo)"
        )
    observed = float(d.mean())
    threshold = abs(observed) - _TIE_RTOL * float(np.abs(d).sum())
    rows = max(1, RESAMPLE_BLOCK // n)
    extreme = 0
    if exact:
        total = 2 ** n
        for start in range(0, total, rows):
            signs = _sign_patterns(n, start, min(start + rows, total))
            extreme += int(np.count_nonzero(np.abs(signs @ d / n) >= threshold))
        p = extreme / total
        name = "randomization (exact)"
    else:
        rng = np.random.default_rng(seed)
        total = n_resamples
        for start in range(0, total, rows):
            size = min(rows, total - start)
            signs = rng.choice(np.array([-1.0, 1.0]), size=(size, n))
            extreme += int(np.count_nonzero(np.abs(signs @ d / n) >= threshold))
        p = (extreme + 1) / (total + 1)
        name = "randomization (Monte Carlo)"
    return SignificanceResult(
        statistic=observed, p_value=float(min(p, 1.0)), mean_difference=observed,
        n=n, test=name, n_resamples=total, seed=None if exact else seed,
    )


# ----------------------------------------------------------------- two Reports

def _per_query(report, metric, name):
    """``{qid: value}`` of one metric from a Report or a plain mapping."""
    per_query = getattr(report, "per_query", report)
    if not hasattr(per_query, "items"):
        raise TypeError(
            f"{name} must be a Report or a {{qid: {{metric: value}}}} mapping, "
            f"got {type(report).__name__}"
        )
    out = {}
    for qid, scores in per_query.items():
        if hasattr(scores, "items"):
            if metric not in scores:
                known = ", ".join(sorted(scores)) or "none"
                raise ValueError(
                    f"metric {metric!r} is not in {name} (query {qid!r} has: {known})"
                )
            value = scores[metric]
        else:
            value = scores
        key = str(qid)
        if key in out:
            other = next(q for q in per_query if q != qid and str(q) == key)
            raise ValueError(
                f"{name} has two query ids that read the same as text, {other!r} and "
                f"{qid!r}; query ids are compared as strings, so give each query one id"
            )
        out[key] = value
    return out


def _describe(qids, limit=10):
    qids = sorted(qids, key=lambda q: (len(q), q))
    shown = ", ".join(repr(q) for q in qids[:limit])
    more = f" and {len(qids) - limit} more" if len(qids) > limit else ""
    return f"{shown}{more}"


@formerly_positional("metric", "test", "n_resamples", "seed", "confidence")
def compare_systems(report_a, report_b, *, metric, test="t", n_resamples=10_000,
                    seed=0, confidence=0.95):
    r"""Compare two systems' per-query scores on one metric, with a paired test.

    Parameters
    ----------
    report_a, report_b : Report or dict
        The evaluations of systems A and B (from :func:`ragmetrics_edu.evaluate`),
        or plain ``{qid: {metric: value}}`` mappings. They must hold the same
        queries; scores are paired by query id.
    metric : str
        The metric to compare, e.g. ``"ndcg@10"``.
    test : {"t", "randomization"}, default "t"
        :func:`paired_t_test` or :func:`randomization_test`.
    n_resamples : int, default 10000
        Resamples of the randomization test and of the bootstrap interval.
    seed : int or None, default 0
        Seed of both.
    confidence : float, default 0.95
        Coverage of the bootstrap interval of the difference.

    Returns
    -------
    Comparison
        ``mean_a``, ``mean_b``, ``difference`` (B - A), ``p_value``, the test
        ``result`` and a bootstrap ``ci`` of the mean difference.

    Raises
    ------
    ValueError
        If the two reports do not hold the same queries (the message names
        the queries only one of them has), a query lacks ``metric``, or a
        report has two query ids with the same text (``1`` and ``"1"``:
        query ids are compared as strings).

    Notes
    -----
    Comparing over different query sets would compare different things, so
    this is an error, not a silent intersection. Evaluate both runs with the
    same qrels and the same treatment of missing queries
    (``evaluate(..., missing="zero")``) to get equal query sets.

    Examples
    --------
    >>> a = {"q1": {"ap": 0.2}, "q2": {"ap": 0.5}, "q3": {"ap": 0.4}}
    >>> b = {"q1": {"ap": 0.4}, "q2": {"ap": 0.6}, "q3": {"ap": 0.7}}
    >>> c = compare_systems(a, b, metric="ap", test="randomization")
    >>> round(c.mean_a, 4), round(c.mean_b, 4), round(c.difference, 4)
    (0.3667, 0.5667, 0.2)
    >>> round(c.p_value, 4)   # all three differences positive: 2 of 8 patterns
    0.25
    """
    check_choice(test, TESTS, name="test")
    if not isinstance(metric, str):
        raise TypeError(f"metric must be a metric name, got {metric!r}")
    a = _per_query(report_a, metric, "report_a")
    b = _per_query(report_b, metric, "report_b")
    only_a = set(a) - set(b)
    only_b = set(b) - set(a)
    if only_a or only_b:
        parts = []
        if only_a:
            parts.append(f"only in report_a: {_describe(only_a)}")
        if only_b:
            parts.append(f"only in report_b: {_describe(only_b)}")
        raise ValueError(
            "report_a and report_b must hold the same queries; "
            + "; ".join(parts)
        )
    if len(a) < 2:
        raise ValueError(
            "comparing two systems needs at least 2 queries (one query has no "
            f"spread to test), got {len(a)}"
        )
    qids = tuple(sorted(a, key=lambda q: (len(q), q)))
    va = check_values([a[q] for q in qids], name=f"{metric} of report_a")
    vb = check_values([b[q] for q in qids], name=f"{metric} of report_b")
    if test == "t":
        result = paired_t_test(va, vb)
    else:
        result = randomization_test(va, vb, n_resamples=n_resamples, seed=seed)
    ci = bootstrap_ci(vb - va, confidence=confidence, n_resamples=n_resamples,
                      seed=seed)
    mean_a = float(va.mean())
    mean_b = float(vb.mean())
    return Comparison(
        metric=metric, mean_a=mean_a, mean_b=mean_b,
        difference=float((vb - va).mean()), p_value=result.p_value,
        result=result, ci=ci, qids=qids,
    )
