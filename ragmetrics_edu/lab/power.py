r"""After a significance test: many comparisons, effect sizes, and how many queries are needed.

A p-value alone says little. Several comparisons at once need their
p-values adjusted; a difference has a size, which a p-value does not give;
and before running an experiment one asks how many queries a difference of
that size needs to be found (the power of the test). These functions build
on the tests of :mod:`ragmetrics_edu.lab.significance` and follow its
conventions (differences are B - A, seeds default to 0, resamples bounded
by ``MAX_RESAMPLES``).

=========================  ==================================================
function                   what it gives
=========================  ==================================================
``adjust_p_values``        Bonferroni, Holm and Benjamini-Hochberg
                           adjusted p-values for several comparisons
``paired_effect_size``     Cohen's d_z and its bootstrap interval
``queries_needed``         how many queries a t-test needs for 80% power,
                           by simulation (Sakai's topic set size question)
=========================  ==================================================

References
----------
T. Sakai, *Statistical Significance Testing in Information Retrieval:
Theory and Practice*, Springer, 2016.
"""

import math
import numbers
from dataclasses import dataclass

import numpy as np

from .._deprecation import formerly_positional, renamed_arguments, warn_renamed
from .._scaling import scaled
from .._validation import (check_bootstrap, check_choice, check_k, check_resamples, check_seed,
                           check_simulated)
from .significance import RESAMPLE_BLOCK, check_pairs, check_values, interval_text, t_two_sided_p

__all__ = [
    "adjust_p_values", "adjust_pvalues", "paired_effect_size", "queries_needed",
    "EffectSize", "QueriesNeeded", "ADJUST_METHODS",
]


# ----------------------------------------------------------------- many tests

ADJUST_METHODS = ("bonferroni", "holm", "fdr_bh")
"""Names of the multiple-comparison corrections of :func:`adjust_p_values`."""


@renamed_arguments(pvalues="p_values")
def adjust_p_values(p_values, method="holm"):
    r"""Adjust p-values for multiple comparisons (Bonferroni, Holm, Benjamini-Hochberg).

    Three systems compared pairwise are three tests: at level 0.05 each,
    the chance that at least one of them is "significant" by luck is up to
    :math:`1 - 0.95^3 \approx 0.14`.  An adjusted p-value is compared with
    the level as usual, and the correction keeps the overall error at that
    level.

    Parameters
    ----------
    p_values : sequence of float
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
    >>> adjust_p_values(p, "bonferroni").round(4).tolist()  # each times 3
    [0.03, 0.12, 0.09]
    >>> adjust_p_values(p).round(4).tolist()  # Holm: 3 * 0.01, then 2 * 0.03, then 1 * 0.04 -> max 0.06
    [0.03, 0.06, 0.06]
    >>> adjust_p_values(p, "fdr_bh").round(4).tolist()  # 3/1 * 0.01, min(3/2 * 0.03, 3/3 * 0.04)
    [0.03, 0.04, 0.04]
    """
    check_choice(method, ADJUST_METHODS, name="method")
    p = check_values(p_values, name="p_values", min_len=1)
    outside = np.flatnonzero((p < 0) | (p > 1))
    if len(outside):
        i = int(outside[0])
        raise ValueError(f"p_values must be in [0, 1], got {float(p[i])!r} at position {i}")
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


def adjust_pvalues(*args, **kwargs):
    """Deprecated: the old name of :func:`adjust_p_values`, until ragmetrics_edu 0.3.0.

    Parameters
    ----------
    *args, **kwargs
        Those of :func:`adjust_p_values`, passed on after a ``DeprecationWarning``.
    """
    warn_renamed("the function adjust_pvalues is renamed adjust_p_values")
    return adjust_p_values(*args, **kwargs)


# ----------------------------------------------------------------- effect size

@dataclass(frozen=True)
class EffectSize:
    """A paired effect size (Cohen's d_z) and its bootstrap interval.

    Attributes
    ----------
    d_z : float
        Mean of the differences ``b - a`` divided by their standard
        deviation; ``float()`` of the result.
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

    def __float__(self):
        return float(self.d_z)

    def __str__(self):
        return interval_text(f"d_z = {self.d_z:.4f}", self.low, self.high, self.confidence,
                             self.method, self.n_resamples, self.seed)


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


@formerly_positional("confidence", "n_resamples", "seed")
def paired_effect_size(a, b, *, confidence=0.95, n_resamples=10_000, seed=0):
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
    a, b = check_pairs(a, b, min_len=2)
    confidence, n_resamples, seed = check_bootstrap(confidence, n_resamples, seed)
    d, e = scaled(b - a)   # d_z is the same for b - a times any power of two
    n = len(d)
    mean = float(d.mean())
    sd = float(d.std(ddof=1))
    d_z = _d_z(mean, sd)
    mean, sd = math.ldexp(mean, e), math.ldexp(sd, e)
    rng = np.random.default_rng(seed)
    values = np.empty(n_resamples, dtype=np.float64)
    rows = max(1, RESAMPLE_BLOCK // n)
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
    while t_two_sided_p(high, df) > alpha:
        high *= 2.0
    for _ in range(200):
        mid = (low + high) / 2.0
        if t_two_sided_p(mid, df) > alpha:
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
    rows = max(1, RESAMPLE_BLOCK // n)
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


@formerly_positional("power", "alpha", "n_simulations", "seed", "max_queries")
def queries_needed(a, b, *, power=0.8, alpha=0.05, n_simulations=2000, seed=0,
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
    a, b = check_pairs(a, b, min_len=2)
    for name, value in (("power", power), ("alpha", alpha)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real) \
                or not 0 < value < 1:
            raise ValueError(
                f"{name} must be a number strictly between 0 and 1, got {value!r}"
            )
    n_simulations = check_resamples(n_simulations, name="n_simulations")
    seed = check_seed(seed)
    max_queries = check_k(max_queries, name="max_queries")
    if max_queries < 2:
        raise ValueError(f"max_queries must be at least 2 (a t-test needs 2), got {max_queries}")
    # each simulated power draws n_simulations experiments of up to max_queries queries
    check_simulated(max_queries, name="max_queries", per=n_simulations, what="n_simulations")
    d, e = scaled(b - a)   # the t-tests' power is the same for the scaled d
    mean = float(d.mean())
    d_z = _d_z(mean, float(d.std(ddof=1)))
    mean = math.ldexp(mean, e)

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
