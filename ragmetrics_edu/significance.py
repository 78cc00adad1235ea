r"""Is system B really better than system A? Bootstrap, paired t-test, randomization.

Two retrieval systems run on the same queries give two lists of per-query
scores (say nDCG@10), paired by query. Their means differ; these functions
say how much that difference could be chance. Everything is plain NumPy and
:mod:`math`; the Student t distribution is computed here too (scipy is only
used by the tests, to check us).

=========================  ==================================================
function                   what it gives
=========================  ==================================================
``bootstrap_ci``           a percentile bootstrap confidence interval of a
                           mean
``paired_t_test``          Student's paired t-test, two-sided p-value
``randomization_test``     the paired randomization (sign-flip permutation)
                           test, exact or Monte Carlo
``compare_systems``        both systems' means, the difference and a test,
                           from two Reports aligned by query id
``student_t_cdf``          the Student t cumulative distribution function
``adjust_pvalues``         Bonferroni, Holm and Benjamini-Hochberg
                           adjusted p-values for several comparisons
``paired_effect_size``     Cohen's d_z and its bootstrap interval
``queries_needed``         how many queries a t-test needs for 80% power,
                           by simulation (Sakai's topic set size question)
=========================  ==================================================

Conventions, named rather than picked silently:

* **Differences are B - A** (``b - a``): a positive difference means the
  second system scores higher.
* **Two-sided p-values.** Every test asks "is there a difference in either
  direction?".
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

from ._validation import check_choice, check_k

__all__ = [
    "bootstrap_ci", "paired_t_test", "randomization_test", "compare_systems",
    "student_t_cdf", "ConfidenceInterval", "SignificanceResult", "Comparison",
    "TESTS", "adjust_pvalues", "paired_effect_size", "queries_needed",
    "EffectSize", "QueriesNeeded", "ADJUST_METHODS", "MAX_RESAMPLES",
]

TESTS = ("t", "randomization")
"""Names of the paired tests :func:`compare_systems` runs."""

# ties: resampled means within _TIE_RTOL * sum(|d|) of the observed one
_TIE_RTOL = 100 * np.finfo(np.float64).eps
# at most this many numbers in one block of resampled rows (memory bound)
_BLOCK = 1 << 20
# exact enumeration of 2**n sign patterns is refused above this n
_MAX_EXACT_N = 24

MAX_RESAMPLES = 1_000_000
"""The largest ``n_resamples`` (and ``n_simulations``) accepted: a bound on time."""


# ----------------------------------------------------------------- results

@dataclass(frozen=True)
class ConfidenceInterval:
    """A confidence interval of a mean, and how it was made.

    Attributes
    ----------
    mean : float
        The mean of the values (the point estimate).
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

    def __str__(self):
        pct = f"{100 * self.confidence:g}%"
        return (f"{self.mean:.4f} [{pct} CI {self.low:.4f}, {self.high:.4f}] "
                f"({self.method} bootstrap, {self.n_resamples} resamples, "
                f"seed {self.seed})")


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


# ----------------------------------------------------------------- checks

def _check_values(values, *, name, min_len=1):
    """A 1-D float64 array of finite numbers with at least ``min_len`` items."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise TypeError(f"{name} must be a sequence of numbers, got {values!r}")
    items = values.tolist() if isinstance(values, np.ndarray) else list(values)
    for i, v in enumerate(items):
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise TypeError(f"{name} must hold numbers, got {v!r} at position {i}")
        if not math.isfinite(v):
            raise ValueError(f"{name} must be finite, got {v!r} at position {i}")
    if len(items) < min_len:
        raise ValueError(
            f"{name} must hold at least {min_len} value"
            f"{'s' if min_len > 1 else ''}, got {len(items)}"
        )
    return np.asarray(items, dtype=np.float64).reshape(-1)


def _check_pairs(a, b, *, min_len):
    a = _check_values(a, name="a", min_len=min_len)
    b = _check_values(b, name="b", min_len=min_len)
    if a.shape != b.shape:
        raise ValueError(
            f"a and b must be paired (same length), got {len(a)} and {len(b)}"
        )
    return a, b


def _check_confidence(confidence):
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real) \
            or not 0 < confidence < 1:
        raise ValueError(
            f"confidence must be a number strictly between 0 and 1, got {confidence!r}"
        )
    return float(confidence)


def _check_resamples(n_resamples, name="n_resamples"):
    """A positive integer no larger than ``MAX_RESAMPLES``."""
    n_resamples = check_k(n_resamples, name=name)
    if n_resamples > MAX_RESAMPLES:
        raise ValueError(
            f"{name} must be at most {MAX_RESAMPLES:,} (MAX_RESAMPLES; more "
            f"resamples change the result by less than its rounding), got {n_resamples:,}"
        )
    return n_resamples


def _check_seed(seed):
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"seed must be None or a non-negative integer, got {seed!r}")
    return int(seed)


# ----------------------------------------------------------------- bootstrap

def bootstrap_ci(values, confidence=0.95, n_resamples=10_000, seed=0):
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
    x = _check_values(values, name="values", min_len=2)
    confidence = _check_confidence(confidence)
    n_resamples = _check_resamples(n_resamples)
    seed = _check_seed(seed)
    rng = np.random.default_rng(seed)
    n = len(x)
    means = np.empty(n_resamples, dtype=np.float64)
    rows = max(1, _BLOCK // n)
    for start in range(0, n_resamples, rows):
        stop = min(start + rows, n_resamples)
        idx = rng.integers(0, n, size=(stop - start, n))
        means[start:stop] = x[idx].mean(axis=1)
    alpha = 1 - confidence
    low, high = np.quantile(means, [alpha / 2, 1 - alpha / 2])
    # a constant sample gives exactly its value (no rounding of the mean)
    mean = float(x.mean())
    if np.all(x == x[0]):
        low = high = mean = float(x[0])
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


def _t_two_sided_p(t, df):
    r"""P(|T| >= |t|) for Student's t with ``df`` degrees of freedom.

    .. math:: p = I_{\nu/(\nu + t^2)}\left(\tfrac{\nu}{2}, \tfrac{1}{2}\right)
    """
    if math.isnan(t):
        return math.nan
    if math.isinf(t):
        return 0.0
    t2 = t * t
    x = df / (df + t2)
    return min(1.0, _betainc(x, df / 2.0, 0.5, x_complement=t2 / (df + t2)))


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
        Degrees of freedom :math:`\nu > 0`.

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
    if isinstance(t, bool) or not isinstance(t, numbers.Real) or math.isnan(t):
        raise ValueError(f"t must be a real number, got {t!r}")
    if isinstance(df, bool) or not isinstance(df, numbers.Real) \
            or not math.isfinite(df) or df <= 0:
        raise ValueError(f"df must be a positive number, got {df!r}")
    half_tail = _t_two_sided_p(float(t), float(df)) / 2.0
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
    a, b = _check_pairs(a, b, min_len=2)
    d = b - a
    n = len(d)
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
        statistic=float(t), p_value=float(p), mean_difference=mean, n=n,
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


def randomization_test(a, b, n_resamples=10_000, seed=0, exact=None):
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
    a, b = _check_pairs(a, b, min_len=1)
    n_resamples = _check_resamples(n_resamples)
    seed = _check_seed(seed)
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
    rows = max(1, _BLOCK // n)
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


def compare_systems(report_a, report_b, metric, test="t", n_resamples=10_000,
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
    >>> c = compare_systems(a, b, "ap", test="randomization")
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
    va = _check_values([a[q] for q in qids], name=f"{metric} of report_a")
    vb = _check_values([b[q] for q in qids], name=f"{metric} of report_b")
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


# ----------------------------------------------------------------- many tests

ADJUST_METHODS = ("bonferroni", "holm", "fdr_bh")
"""Names of the multiple-comparison corrections of :func:`adjust_pvalues`."""


def adjust_pvalues(pvalues, method="holm"):
    r"""Adjust p-values for multiple comparisons (Bonferroni, Holm, Benjamini-Hochberg).

    Three systems compared pairwise are three tests: at level 0.05 each,
    the chance that at least one of them is "significant" by luck is up to
    :math:`1 - 0.95^3 \approx 0.14`.  An adjusted p-value is compared with
    the level as usual, and the correction keeps the overall error at that
    level.

    Parameters
    ----------
    pvalues : sequence of float
        The raw p-values of the m tests, each in [0, 1], in any order.
    method : {"holm", "bonferroni", "fdr_bh"}, default "holm"
        * ``"bonferroni"``: :math:`\min(1, m p_i)`; controls the
          family-wise error rate (the chance of any false positive).
        * ``"holm"`` (default): Holm's step-down version of Bonferroni,
          the same guarantee and never less powerful.
        * ``"fdr_bh"``: Benjamini and Hochberg; controls the false
          discovery rate (the expected share of false positives among the
          rejections), a weaker and more powerful guarantee.

    Returns
    -------
    numpy.ndarray
        The adjusted p-values, in the order given, each in [0, 1].

    See Also
    --------
    compare_systems, paired_t_test, randomization_test

    Notes
    -----
    With the p-values sorted, :math:`p_{(1)} \le \dots \le p_{(m)}`:

    .. math::

        \text{Holm: } \tilde p_{(i)} = \max_{j \le i}
        \min\bigl(1, (m - j + 1)\, p_{(j)}\bigr), \qquad
        \text{BH: } \tilde p_{(i)} = \min_{j \ge i}
        \min\Bigl(1, \frac{m}{j}\, p_{(j)}\Bigr)

    Equal (to 1e-12) to ``statsmodels.stats.multitest.multipletests`` with
    ``method="bonferroni"``, ``"holm"`` and ``"fdr_bh"`` (its
    ``pvals_corrected``).  Tied p-values get the same adjusted value.

    References
    ----------
    .. [1] S. Holm, "A simple sequentially rejective multiple test
       procedure", Scandinavian Journal of Statistics 6(2), 1979.
    .. [2] Y. Benjamini, Y. Hochberg, "Controlling the false discovery rate",
       JRSS B 57(1), 1995.
    .. [3] T. Sakai, *Statistical Significance Testing in Information
       Retrieval*, Springer, 2018, chapter 6.

    Examples
    --------
    >>> p = [0.01, 0.04, 0.03]
    >>> adjust_pvalues(p, "bonferroni").round(4).tolist()  # each times 3
    [0.03, 0.12, 0.09]
    >>> adjust_pvalues(p).round(4).tolist()  # Holm: 3 * 0.01, then 2 * 0.03, then 1 * 0.04 -> max 0.06
    [0.03, 0.06, 0.06]
    >>> adjust_pvalues(p, "fdr_bh").round(4).tolist()  # 3/1 * 0.01, min(3/2 * 0.03, 3/3 * 0.04)
    [0.03, 0.04, 0.04]
    """
    check_choice(method, ADJUST_METHODS, name="method")
    p = _check_values(pvalues, name="pvalues", min_len=1)
    outside = np.flatnonzero((p < 0) | (p > 1))
    if len(outside):
        i = int(outside[0])
        raise ValueError(f"pvalues must be in [0, 1], got {float(p[i])!r} at position {i}")
    m = len(p)
    if method == "bonferroni":
        return np.minimum(1.0, p * m)
    order = np.argsort(p, kind="stable")
    ranked = p[order]
    if method == "holm":
        # (m - j + 1) p_(j) for j = 1..m, then a running maximum from the top
        adjusted = np.maximum.accumulate(ranked * np.arange(m, 0, -1))
    else:  # "fdr_bh": m / j p_(j), then a running minimum from the bottom
        adjusted = np.minimum.accumulate((ranked * m / np.arange(1, m + 1))[::-1])[::-1]
    adjusted = np.minimum(adjusted, 1.0)
    out = np.empty(m, dtype=np.float64)
    out[order] = adjusted
    return out


# ----------------------------------------------------------------- effect size

@dataclass(frozen=True)
class EffectSize:
    """A paired effect size (Cohen's d_z) and its bootstrap interval.

    Attributes
    ----------
    d_z : float
        Mean of the differences ``b - a`` divided by their standard
        deviation.
    low, high : float
        The ends of the percentile bootstrap interval of ``d_z``.
    mean_difference, sd_difference : float
        The numerator and the denominator (``ddof=1``).
    n : int
        Number of pairs (queries).
    confidence, n_resamples, seed
        How the interval was made.
    method : str
        ``"percentile bootstrap"``.
    """

    d_z: float
    low: float
    high: float
    mean_difference: float
    sd_difference: float
    n: int
    confidence: float
    n_resamples: int
    seed: object
    method: str = "percentile bootstrap"

    def __str__(self):
        pct = f"{100 * self.confidence:g}%"
        return (f"d_z = {self.d_z:.4f} [{pct} CI {self.low:.4f}, {self.high:.4f}] "
                f"({self.method}, {self.n_resamples} resamples, seed {self.seed})")


def _d_z(mean, sd):
    """mean / sd, with the 0/0 and x/0 cases made explicit (as paired_t_test)."""
    if sd == 0.0:
        return math.nan if mean == 0.0 else math.copysign(math.inf, mean)
    return mean / sd


def _quantile(sorted_values, q):
    """NumPy's default (linear) quantile of sorted values, where +-inf may appear.

    Between two equal neighbours (two infinities too) it is that value,
    instead of the ``inf - inf = nan`` of the interpolation formula.
    """
    n = len(sorted_values)
    if n == 0:
        return math.nan
    position = q * (n - 1)
    i = int(math.floor(position))
    if i >= n - 1:
        return float(sorted_values[-1])
    lo, hi = float(sorted_values[i]), float(sorted_values[i + 1])
    frac = position - i
    if lo == hi or frac == 0.0:
        return lo
    return lo + frac * (hi - lo)


def paired_effect_size(a, b, confidence=0.95, n_resamples=10_000, seed=0):
    r"""Cohen's d_z, the paired effect size of B over A, with a bootstrap interval.

    A p-value says whether a difference could be chance; it shrinks as
    queries are added even when the difference stays tiny.  The effect size
    says how large the difference is compared to how much it varies from
    query to query, whatever the number of queries.

    Parameters
    ----------
    a, b : sequence of float
        Paired scores of systems A and B, one per query (at least 2).
    confidence : float, default 0.95
        Coverage of the interval, strictly between 0 and 1.
    n_resamples : int, default 10000
        Bootstrap resamples (at most ``MAX_RESAMPLES``).
    seed : int or None, default 0
        Seed of the bootstrap.

    Returns
    -------
    EffectSize
        ``d_z``, its interval ``low``, ``high`` and how it was made.

    See Also
    --------
    paired_t_test : its statistic is :math:`d_z \sqrt{n}`.
    queries_needed

    Notes
    -----
    With :math:`d_i = b_i - a_i`:

    .. math::

        d_z = \frac{\bar d}{s_d}, \qquad
        s_d = \sqrt{\tfrac{1}{n - 1} \textstyle\sum_i (d_i - \bar d)^2}

    Cohen's rough guide: 0.2 small, 0.5 medium, 0.8 large (for d_z these
    are not the same as for the unpaired d, which divides by the spread of
    the scores, not of the differences).  The interval resamples the
    queries (the pairs) with replacement and takes the percentiles of
    :math:`d_z^*`.  When every difference is 0, d_z is ``nan`` (0/0); when
    all are equal and non-zero, :math:`\pm\infty`; resamples in which all
    differences are 0 are left out of the interval.

    References
    ----------
    .. [1] J. Cohen, *Statistical Power Analysis for the Behavioral
       Sciences*, 2nd ed., Erlbaum, 1988, sec. 2.3.5.
    .. [2] T. Sakai, "Statistical reform in information retrieval?", SIGIR
       Forum 48(1), 2014.

    Examples
    --------
    >>> a = [0.2, 0.4, 0.3, 0.5]
    >>> b = [0.3, 0.6, 0.4, 0.7]   # differences 0.1, 0.2, 0.1, 0.2
    >>> es = paired_effect_size(a, b)
    >>> round(es.d_z, 4)   # 0.15 / 0.057735
    2.5981
    >>> es.low <= es.d_z <= es.high
    True
    """
    a, b = _check_pairs(a, b, min_len=2)
    confidence = _check_confidence(confidence)
    n_resamples = _check_resamples(n_resamples)
    seed = _check_seed(seed)
    d = b - a
    n = len(d)
    mean = float(d.mean())
    sd = float(d.std(ddof=1))
    d_z = _d_z(mean, sd)
    rng = np.random.default_rng(seed)
    values = np.empty(n_resamples, dtype=np.float64)
    rows = max(1, _BLOCK // n)
    for start in range(0, n_resamples, rows):
        stop = min(start + rows, n_resamples)
        sample = d[rng.integers(0, n, size=(stop - start, n))]
        means = sample.mean(axis=1)
        sds = sample.std(axis=1, ddof=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            values[start:stop] = means / sds
        # a constant resample: its own sd is 0 (rounding could leave ~1e-17)
        constant = np.all(sample == sample[:, :1], axis=1)
        values[start:stop][constant] = np.where(
            means[constant] == 0, np.nan, np.copysign(np.inf, means[constant]))
    values = np.sort(values[~np.isnan(values)])
    alpha = 1 - confidence
    low = _quantile(values, alpha / 2)
    high = _quantile(values, 1 - alpha / 2)
    return EffectSize(
        d_z=float(d_z), low=float(low), high=float(high), mean_difference=mean,
        sd_difference=sd, n=n, confidence=confidence, n_resamples=n_resamples,
        seed=seed,
    )


# ----------------------------------------------------------------- power

@dataclass(frozen=True)
class QueriesNeeded:
    """How many queries a paired t-test needs to detect a difference.

    Attributes
    ----------
    n_queries : int or None
        The smallest number of queries whose simulated power reaches
        ``power``; None if even ``max_queries`` does not.
    achieved_power : float
        The simulated power at ``n_queries`` (or at ``max_queries``).
    power, alpha : float
        The target power and the test's level.
    mean_difference, d_z : float
        The observed difference ``b - a`` and its effect size.
    n_observed : int
        The number of queries the differences came from.
    n_simulations : int
        Simulated experiments per number of queries.
    seed : int or None
        Seed of the simulation.
    method : str
        What was simulated.
    """

    n_queries: object
    achieved_power: float
    power: float
    alpha: float
    mean_difference: float
    d_z: float
    n_observed: int
    n_simulations: int
    seed: object
    method: str = ("bootstrap simulation: resample the observed per-query "
                   "differences, two-sided paired t-test")

    def __str__(self):
        if self.n_queries is None:
            return (f"power {self.power:g} not reached (power {self.achieved_power:.3f} "
                    f"at the largest number of queries tried); {self.method}")
        return (f"{self.n_queries} queries for power {self.power:g} at alpha "
                f"{self.alpha:g} (simulated power {self.achieved_power:.3f}; "
                f"{self.method}, {self.n_simulations} simulations, seed {self.seed})")


def _t_critical(df, alpha):
    """The two-sided critical value t with P(|T| >= t) = alpha, by bisection."""
    low, high = 0.0, 1.0
    while _t_two_sided_p(high, df) > alpha:
        high *= 2.0
    for _ in range(200):
        mid = (low + high) / 2.0
        if _t_two_sided_p(mid, df) > alpha:
            low = mid
        else:
            high = mid
        if high - low <= 1e-14 * high:
            break
    return high


def _simulated_power(d, n, alpha, n_simulations, seed):
    """Share of n-query bootstrap experiments whose paired t-test rejects at alpha."""
    rng = np.random.default_rng(seed)
    t_crit = _t_critical(n - 1, alpha)
    rejected = 0
    rows = max(1, _BLOCK // n)
    for start in range(0, n_simulations, rows):
        size = min(rows, n_simulations - start)
        sample = d[rng.integers(0, len(d), size=(size, n))]
        mean = sample.mean(axis=1)
        sd = sample.std(axis=1, ddof=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = mean / (sd / math.sqrt(n))
        # sd = 0: |t| is infinite (rejects) unless the mean is 0 too
        t = np.where(sd == 0, np.where(mean == 0, 0.0, np.inf), t)
        rejected += int(np.count_nonzero(np.abs(t) >= t_crit))
    return rejected / n_simulations


def queries_needed(a, b, power=0.8, alpha=0.05, n_simulations=2000, seed=0,
                   max_queries=5000):
    r"""How many queries would detect the observed difference, with the given power? (by simulation)

    Sakai's "topic set size" question: the difference between B and A seen
    on these queries may be real but too small for this many queries.  How
    many queries would a new experiment need for the paired t-test to find
    it, with probability ``power`` (80% by convention)?

    Parameters
    ----------
    a, b : sequence of float
        Paired per-query scores of systems A and B (at least 2 queries).
    power : float, default 0.8
        The wanted probability of rejecting "no difference".
    alpha : float, default 0.05
        The level of the two-sided paired t-test.
    n_simulations : int, default 2000
        Simulated experiments per number of queries tried (at most
        ``MAX_RESAMPLES``); the power estimate has a standard error of
        about :math:`\sqrt{0.8 \cdot 0.2 / 2000} \approx 0.009`.
    seed : int or None, default 0
        Seed of the simulation; every number of queries uses the same seed
        (common random numbers), so the search is reproducible.
    max_queries : int, default 5000
        The largest number of queries tried.

    Returns
    -------
    QueriesNeeded
        ``n_queries`` (None if not reached by ``max_queries``), the
        simulated power there, and the method.

    See Also
    --------
    paired_effect_size, paired_t_test

    Notes
    -----
    **Method: bootstrap simulation.**  For a candidate number of queries
    :math:`n`, draw :math:`n` differences with replacement from the observed
    :math:`d_i = b_i - a_i` (the observed queries stand for the population
    of queries, and their difference for the true one), run the two-sided
    paired t-test at level :math:`\alpha`, and repeat ``n_simulations``
    times; the share of rejections estimates the power at :math:`n`.  The
    answer is the smallest :math:`n \ge 2` whose estimate reaches
    ``power``, found by doubling then bisection (power grows with
    :math:`n`).

    Sakai's topic set size design [1]_ answers the same question in closed
    form, from the effect size :math:`d_z` and the noncentral t
    distribution (``statsmodels``' ``TTestPower.solve_power`` computes
    it); roughly

    .. math::

        n \approx \left(\frac{z_{1-\alpha/2} + z_{power}}{d_z}\right)^2 + \frac{z_{1-\alpha/2}^2}{2}

    The simulation needs no normality and uses the observed shape of the
    differences (skewed, bounded scores); for normal-looking differences
    both agree to a few queries.  Both treat the observed difference as the
    true one, which is optimistic when it was itself chosen because it
    looked large.

    References
    ----------
    .. [1] T. Sakai, "Topic set size design", Information Retrieval Journal
       19(3), 2016.
    .. [2] T. Sakai, *Statistical Significance Testing in Information
       Retrieval*, Springer, 2018, chapter 7.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> a = rng.uniform(0.2, 0.6, 30)
    >>> b = a + rng.normal(0.05, 0.1, 30)
    >>> r = queries_needed(a, b)
    >>> round(r.d_z, 2)   # this sample's effect size
    0.81
    >>> r.n_queries   # the closed form gives 13.9 (statsmodels' TTestPower)
    14
    >>> round(r.achieved_power, 3)
    0.815
    """
    a, b = _check_pairs(a, b, min_len=2)
    for name, value in (("power", power), ("alpha", alpha)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real) \
                or not 0 < value < 1:
            raise ValueError(
                f"{name} must be a number strictly between 0 and 1, got {value!r}"
            )
    n_simulations = _check_resamples(n_simulations, name="n_simulations")
    seed = _check_seed(seed)
    max_queries = check_k(max_queries, name="max_queries")
    if max_queries < 2:
        raise ValueError(f"max_queries must be at least 2 (a t-test needs 2), got {max_queries}")
    d = b - a
    mean = float(d.mean())
    d_z = _d_z(mean, float(d.std(ddof=1)))

    def simulate(n):
        return _simulated_power(d, n, float(alpha), n_simulations, seed)

    result = dict(power=float(power), alpha=float(alpha), mean_difference=mean,
                  d_z=float(d_z), n_observed=len(d), n_simulations=n_simulations,
                  seed=seed)
    # doubling: the first n (2, 4, 8, ...) whose power is enough
    low, high = 1, 2
    power_high = simulate(high)
    while power_high < power:
        if high == max_queries:
            return QueriesNeeded(n_queries=None, achieved_power=power_high, **result)
        low, high = high, min(2 * high, max_queries)
        power_high = simulate(high)
    # bisection between low (not enough, or 1) and high (enough)
    while high - low > 1:
        mid = (low + high) // 2
        power_mid = simulate(mid)
        if power_mid >= power:
            high, power_high = mid, power_mid
        else:
            low = mid
    return QueriesNeeded(n_queries=high, achieved_power=power_high, **result)
