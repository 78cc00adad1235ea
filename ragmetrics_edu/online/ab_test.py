r"""A/B tests on click-through rates: sample size, the z test, and what peeking costs.

Two systems, A and B, are shown to two random groups of users; each group's
session CTR is a proportion (clicks / sessions), and the question is
whether they differ.  Everything here is plain :mod:`math` and NumPy; the
tests check it against statsmodels.

Conventions, named rather than picked silently:

* **Differences are B - A**: a positive z statistic or difference means
  the second system (B) has the higher CTR.
* **Two-sided tests** throughout.
* **Sample size.**  :func:`ab_sample_size` is statsmodels' power analysis
  (``proportion_effectsize`` then ``NormalIndPower().solve_power``): the
  effect is Cohen's :math:`h = 2\arcsin\sqrt{p_B} - 2\arcsin\sqrt{p_A}`
  and the power counts both tails.  It returns the exact real number of
  users per group, as statsmodels does; an experiment needs
  ``math.ceil`` of it (``round_up=True`` returns that integer).
  ``method="pooled"`` is the textbook formula on the proportions
  themselves (Fleiss, without continuity correction), which gives slightly
  different numbers.
* **The z test** pools the two groups under the null hypothesis
  (statsmodels' ``proportions_ztest``, ``prop_var=False``); its interval
  for :math:`p_B - p_A` is the Wald interval, unpooled (statsmodels'
  ``confint_proportions_2indep(..., method="wald")``), so the interval
  can exclude 0 when the test is just above ``alpha``, or the reverse.
* **Seeds.**  Every simulation takes ``seed`` (default 0).
"""

import math
import numbers
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from .._deprecation import formerly_positional, renamed_attribute
from .._validation import check_choice, check_min_alpha, check_real, describe, upper_normal_quantile
from .._validation import (INT64_MAX, check_count, check_flag, check_probability, check_simulated,
                           rng_from)

__all__ = ["ab_sample_size", "SAMPLE_SIZE_METHODS", "ZTest", "two_proportion_z_test",
           "Peeking", "peeking_false_positive_rate"]

SAMPLE_SIZE_METHODS = ("arcsine", "pooled")
"""Names of the sample-size formulas of :func:`ab_sample_size`."""

_NORMAL = NormalDist()


def _normal_sf(z):
    """P(Z > z) for a standard normal Z, accurate in the far tail too."""
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def check_alpha_power(alpha, power):
    """``(alpha, power)`` of a two-sided test, or raise: both in (0, 1), and ``power > alpha``.

    A two-sided test at level ``alpha`` rejects with probability ``alpha``
    when there is no difference at all, so every sample size has at least
    that power: a power of ``alpha`` or less asks for no users (statsmodels'
    solver returns ``nan`` below ``alpha``).
    """
    alpha = check_min_alpha(check_probability(alpha, name="alpha", open_low=True,
                                              open_high=True))
    power = check_probability(power, name="power", open_low=True, open_high=True)
    if power <= alpha:
        raise ValueError(
            f"power must exceed alpha: a two-sided test at level alpha={alpha!r} already "
            f"rejects with probability alpha when there is no difference, so any number of "
            f"users (even none) has power >= alpha; got power={power!r}"
        )
    return alpha, power


def cohens_h(p_a, p_b):
    r"""Cohen's effect size of two proportions, :math:`h = 2\arcsin\sqrt{p_B} - 2\arcsin\sqrt{p_A}`.

    statsmodels' ``proportion_effectsize(p_b, p_a)``.

    Examples
    --------
    >>> from ragmetrics_edu.online.ab_test import cohens_h
    >>> round(cohens_h(0.10, 0.12), 4)
    0.064
    """
    p_a = check_probability(p_a, name="p_a")
    p_b = check_probability(p_b, name="p_b")
    return 2.0 * math.asin(math.sqrt(p_b)) - 2.0 * math.asin(math.sqrt(p_a))


def _two_tailed_shift(z, power):
    r"""The shift :math:`s \ge 0` with :math:`\Phi(s - z) + \Phi(-s - z) = 1 - \beta`.

    The left side grows from :math:`\alpha = 2\Phi(-z)` at :math:`s = 0`
    (``power`` is above it) and reaches ``power`` by
    :math:`s = z + \Phi^{-1}(1 - \beta)`: Newton's method kept inside that
    bracket (a step that would leave it is a bisection) converges from any
    ``power`` in :math:`(\alpha, 1)`.
    """
    low, high = 0.0, z + _NORMAL.inv_cdf(power)
    s = high  # the one-tail solution: the other tail is usually negligible
    for _ in range(200):
        excess = _normal_sf(z - s) + _normal_sf(z + s) - power
        if excess > 0:
            high = s
        else:
            low = s
        slope = _NORMAL.pdf(z - s) - _NORMAL.pdf(z + s)
        step = excess / slope if slope > 0 else math.inf
        nxt = s - step
        if not low < nxt < high:
            nxt = (low + high) / 2.0
        if abs(nxt - s) <= 1e-15 * max(s, 1e-300) or high - low <= 1e-15 * high:
            return nxt
        s = nxt
    return s


def one_sample_size(effect, alpha=0.05, power=0.8):
    r"""Observations for a two-sided z test to detect a mean of ``effect`` standard deviations.

    Solves :math:`\Phi(e\sqrt{n} - z) + \Phi(-e\sqrt{n} - z) = 1 - \beta`
    (both tails, :math:`z = \Phi^{-1}(1 - \alpha/2)`) for the shift
    :math:`s = e\sqrt{n}` by Newton's method inside a bracket, from the
    one-tail solution :math:`s = z + z_{1-\beta}`; then :math:`n = (s / e)^2`.

    Examples
    --------
    >>> from ragmetrics_edu.online.ab_test import one_sample_size
    >>> round(one_sample_size(0.1), 4)  # ((1.96 + 0.8416) / 0.1)**2, the other tail is tiny
    784.8861
    """
    alpha, power = check_alpha_power(alpha, power)
    if isinstance(effect, bool) or not isinstance(effect, numbers.Real):
        raise TypeError(f"effect must be a number (of standard deviations), got {describe(effect)}")
    e = abs(check_real(effect, name="effect"))
    if e == 0.0 or not math.isfinite(e):
        raise ValueError(f"effect must be a finite non-zero number, got {effect!r}")
    return _users(_two_tailed_shift(upper_normal_quantile(alpha / 2.0), power) / e, "effect",
                  f"effect={effect!r}")


def _users(root, name, what):
    """``root ** 2`` (a number of users), or raise naming ``what`` if no float can hold it."""
    n = root * root
    if not math.isfinite(n):
        raise ValueError(
            f"{name} is too small to detect ({what}): the users needed, about {root:.3g} "
            f"squared, are more than a float can hold"
        )
    return n


@formerly_positional("alpha", "power")
def ab_sample_size(p_a, p_b, *, alpha=0.05, power=0.8, method="arcsine", round_up=False):
    r"""Users per group for a two-sided test of two proportions to detect ``p_a`` against ``p_b``.

    Parameters
    ----------
    p_a, p_b : float
        The CTRs of A and B to tell apart, in [0, 1], different.
    alpha : float, default 0.05
        The false-positive rate of the two-sided test.
    power : float, default 0.8
        The probability of finding the difference when it is there.
    method : {"arcsine", "pooled"}, default "arcsine"
        ``"arcsine"``: statsmodels' ``NormalIndPower`` on Cohen's :math:`h`
        (see Notes); ``"pooled"``: the textbook formula on the proportions.
    round_up : bool, default False
        False returns the exact real solution, as statsmodels does; True
        returns ``math.ceil`` of it, the users an experiment needs.

    Returns
    -------
    float, or int with ``round_up=True``
        Users in **each** group.

    Raises
    ------
    ValueError
        If a probability is outside its range or ``p_a == p_b`` (no
        difference to detect: infinitely many users).

    See Also
    --------
    two_proportion_z_test : the test this sample size is for.

    Notes
    -----
    With :math:`z = \Phi^{-1}(1 - \alpha/2)` and :math:`n` users per group,
    the z statistic of the difference has mean :math:`h\sqrt{n/2}` on the
    arcsine scale, and the power counts both tails:

    .. math::

        \Phi\bigl(|h|\sqrt{n/2} - z\bigr) + \Phi\bigl(-|h|\sqrt{n/2} - z\bigr) = 1 - \beta

    Without the second (tiny) tail the solution is the familiar
    :math:`n = 2\,(z + z_{1-\beta})^2 / h^2`, our starting point; Newton's
    method then solves the equation itself.  ``"pooled"`` is

    .. math::

        n = \frac{\bigl(z \sqrt{2 \bar p \bar q} + z_{1-\beta}
        \sqrt{p_A q_A + p_B q_B}\bigr)^2}{(p_B - p_A)^2}

    with :math:`\bar p = (p_A + p_B)/2` and :math:`q = 1 - p`.

    References
    ----------
    .. [1] J. Cohen, *Statistical Power Analysis for the Behavioral
       Sciences*, 2nd ed., 1988, chapter 6.
    .. [2] R. Kohavi, D. Tang, Y. Xu, *Trustworthy Online Controlled
       Experiments*, Cambridge University Press, 2020.

    Examples
    --------
    >>> from ragmetrics_edu.online.ab_test import ab_sample_size
    >>> round(ab_sample_size(0.10, 0.12), 4)  # a 2-point lift on a 10% CTR
    3834.5957
    >>> ab_sample_size(0.10, 0.12, round_up=True)  # users in each group
    3835
    >>> round(ab_sample_size(0.10, 0.12, method="pooled"), 4)
    3840.8475
    """
    check_choice(method, SAMPLE_SIZE_METHODS, name="method")
    alpha, power = check_alpha_power(alpha, power)
    check_flag(round_up, name="round_up")
    h = cohens_h(p_a, p_b)
    pair = f"p_a={p_a!r} and p_b={p_b!r}"
    if p_a == p_b:
        raise ValueError(
            f"p_a and p_b must differ (no difference needs infinitely many users), got {pair}")
    z = upper_normal_quantile(alpha / 2.0)
    if method == "pooled":
        p_bar = (p_a + p_b) / 2.0
        spread = z * math.sqrt(2.0 * p_bar * (1.0 - p_bar)) + _NORMAL.inv_cdf(power) * math.sqrt(
            p_a * (1.0 - p_a) + p_b * (1.0 - p_b))
        n = _users(spread / (p_b - p_a), "the difference of p_a and p_b", pair)
    else:
        if h == 0.0:  # the arcsines of two different floats can round to one
            raise ValueError(
                f"p_a and p_b are too close to tell apart: Cohen's h of {pair} rounds to 0 "
                f"(their arcsines are equal in floating point), so no number of users suffices")
        # the mean of z is h sqrt(n / 2)
        shift = _two_tailed_shift(z, power)
        n = _users(shift / (abs(h) / math.sqrt(2.0)), "the difference of p_a and p_b", pair)
    return math.ceil(n) if round_up else float(n)


@dataclass(frozen=True)
class ZTest:
    """The result of :func:`two_proportion_z_test`.

    ``difference`` is :math:`p_B - p_A`; ``low`` and ``high`` its Wald
    interval at ``confidence``.  (``pvalue``, ``ci_low`` and ``ci_high``,
    the old names of ``p_value``, ``low`` and ``high``, still read, with a
    DeprecationWarning.)
    """

    p_a: float
    p_b: float
    difference: float
    statistic: float
    p_value: float
    low: float
    high: float
    confidence: float

    pvalue = renamed_attribute("pvalue", "p_value")
    ci_low = renamed_attribute("ci_low", "low")
    ci_high = renamed_attribute("ci_high", "high")

    def __str__(self):
        return (f"CTR A {self.p_a:.4f}, B {self.p_b:.4f}: B - A = {self.difference:+.4f} "
                f"[{self.low:+.4f}, {self.high:+.4f}] ({self.confidence:.0%} Wald), "
                f"z = {self.statistic:.3f}, p = {self.p_value:.4g} (two-sided, pooled)")


def _check_counts(clicks, n, which):
    n = check_count(n, name=f"n_{which}")
    clicks = check_count(clicks, name=f"clicks_{which}", minimum=0)
    if clicks > n:
        raise ValueError(
            f"clicks_{which} must be at most n_{which}={n} (sessions with a click), got {clicks}"
        )
    return clicks, n


@formerly_positional("confidence")
def two_proportion_z_test(clicks_a, n_a, clicks_b, n_b, *, confidence=0.95):
    r"""The two-sided z test of two proportions (CTRs), with the interval of their difference.

    Parameters
    ----------
    clicks_a, n_a : int
        Sessions with a click, and sessions, in group A (``n_a`` >= 1).
    clicks_b, n_b : int
        The same in group B.
    confidence : float, default 0.95
        The interval's level, :math:`1 - \alpha`.

    Returns
    -------
    ZTest
        ``statistic`` and ``pvalue`` (pooled, two-sided), ``difference``
        :math:`\hat p_B - \hat p_A` and its Wald interval.

    Raises
    ------
    ValueError
        If a group has no session (zero impressions) or more clicks than
        sessions.

    Notes
    -----
    .. math::

        z = \frac{\hat p_B - \hat p_A}{\sqrt{\bar p (1 - \bar p)
            (1/n_A + 1/n_B)}}, \qquad
        \bar p = \frac{x_A + x_B}{n_A + n_B}, \qquad
        p = 2\,(1 - \Phi(|z|))

    The interval is :math:`\hat p_B - \hat p_A \pm z_{1-\alpha/2}
    \sqrt{\hat p_A \hat q_A / n_A + \hat p_B \hat q_B / n_B}`.  When
    every session or none clicks in both groups, the statistic is 0/0:
    ``nan`` for it and the p-value, as statsmodels gives.

    Examples
    --------
    >>> from ragmetrics_edu.online.ab_test import two_proportion_z_test
    >>> t = two_proportion_z_test(100, 1000, 130, 1000)
    >>> round(t.difference, 4), round(t.statistic, 4), round(t.p_value, 4)
    (0.03, 2.1027, 0.0355)
    >>> round(t.low, 4), round(t.high, 4)
    (0.0021, 0.0579)
    """
    clicks_a, n_a = _check_counts(clicks_a, n_a, "a")
    clicks_b, n_b = _check_counts(clicks_b, n_b, "b")
    confidence = check_probability(confidence, name="confidence", open_low=True,
                                   open_high=True)
    p_a, p_b = clicks_a / n_a, clicks_b / n_b
    diff = p_b - p_a
    pooled = (clicks_a + clicks_b) / (n_a + n_b)
    se_null = math.sqrt(pooled * (1.0 - pooled) * (1.0 / n_a + 1.0 / n_b))
    if se_null == 0.0:
        statistic = pvalue = math.nan
    else:
        statistic = diff / se_null
        pvalue = 2.0 * _normal_sf(abs(statistic))
    z = upper_normal_quantile((1.0 - confidence) / 2.0)
    half = z * math.sqrt(p_a * (1.0 - p_a) / n_a + p_b * (1.0 - p_b) / n_b)
    return ZTest(p_a=p_a, p_b=p_b, difference=diff, statistic=statistic, p_value=pvalue,
                 low=diff - half, high=diff + half, confidence=confidence)


@dataclass(frozen=True)
class Peeking:
    """The result of :func:`peeking_false_positive_rate`.

    ``false_positive_rate`` (``float()`` of the result) stops at the first day
    with p < alpha; ``fixed_horizon_rate`` tests once, on the last day; ``first_significant_day``
    counts, for days 1, 2, ..., the experiments first significant on that day.
    """

    false_positive_rate: float
    fixed_horizon_rate: float
    alpha: float
    days: int
    n_experiments: int
    first_significant_day: np.ndarray

    def __float__(self):
        return float(self.false_positive_rate)

    def __str__(self):
        return (f"A/A tests, {self.days} daily looks, alpha {self.alpha}: "
                f"{self.false_positive_rate:.1%} false positives when stopping at the first "
                f"p < alpha, {self.fixed_horizon_rate:.1%} with one test at the end "
                f"({self.n_experiments} experiments)")


@formerly_positional("days", "alpha", "n_experiments", "seed")
def peeking_false_positive_rate(p=0.1, users_per_day=1000, *, days=14, alpha=0.05,
                                n_experiments=2000, seed=0):
    """Simulate A/A tests looked at every day; the share declared significant.

    Both groups have the same CTR ``p``, so every significant result is a
    false positive.  Each day ``users_per_day`` new users join each group;
    the z test (:func:`two_proportion_z_test`) runs on everything so far,
    and an experimenter who stops at the first day with p < ``alpha``
    declares a winner far more often than ``alpha``; one test at the end
    keeps ``alpha``.

    Parameters
    ----------
    p : float, default 0.1
        The CTR of both groups.
    users_per_day : int, default 1000
        New users per group per day.
    days : int, default 14
        Looks at the data, one a day.
    alpha : float, default 0.05
        The significance level of every look.
    n_experiments : int, default 2000
        Simulated A/A experiments.
    seed : int, None or numpy.random.Generator, default 0

    Returns
    -------
    Peeking
        ``false_positive_rate`` (stopping at the first p < alpha),
        ``fixed_horizon_rate`` (one look on the last day), and the
        experiments' first significant days.

    References
    ----------
    .. [1] R. Johari, P. Koomen, L. Pekelis, D. Walsh, "Peeking at A/B
       tests: why it matters, and what to do about it", KDD 2017.

    Examples
    --------
    >>> from ragmetrics_edu.online.ab_test import peeking_false_positive_rate
    >>> r = peeking_false_positive_rate(days=14, n_experiments=2000, seed=0)
    >>> round(r.fixed_horizon_rate, 2), round(r.false_positive_rate, 2)  # 0.05 vs far more
    (0.05, 0.21)
    """
    p = check_probability(p, name="p", open_low=True, open_high=True)
    days = check_simulated(check_count(days, name="days"), name="days")
    users_per_day = check_count(users_per_day, name="users_per_day", maximum=INT64_MAX // days,
                                why=f" over {days} days (the clicks of a group are counted in "
                                    "64-bit integers)")
    alpha = check_probability(alpha, name="alpha", open_low=True, open_high=True)
    n_experiments = check_simulated(check_count(n_experiments, name="n_experiments"),
                                    name="n_experiments", per=2 * days, what="2 groups x days")
    rng = rng_from(seed)
    daily = rng.binomial(users_per_day, p, size=(2, n_experiments, days))
    clicks_a, clicks_b = np.cumsum(daily, axis=2)
    n = users_per_day * np.arange(1, days + 1)
    pooled = (clicks_a + clicks_b) / (2.0 * n)
    se = np.sqrt(pooled * (1.0 - pooled) * (2.0 / n))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (clicks_b - clicks_a) / n / se
    pvalues = np.array([2.0 * _normal_sf(abs(v)) if np.isfinite(v) else 1.0
                        for v in z.ravel()]).reshape(z.shape)
    significant = pvalues < alpha
    ever = significant.any(axis=1)
    first_day = np.where(ever, significant.argmax(axis=1) + 1, 0)
    return Peeking(
        false_positive_rate=float(ever.mean()),
        fixed_horizon_rate=float(significant[:, -1].mean()),
        alpha=alpha, days=days, n_experiments=n_experiments,
        first_significant_day=np.bincount(first_day, minlength=days + 1)[1:],
    )
