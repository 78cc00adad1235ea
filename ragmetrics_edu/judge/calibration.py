r"""Valid intervals from a cheap judge and a few human labels: prediction-powered inference.

A judge labels every item; people label a few. The judge's mean alone is
biased by however far the judge errs, and the people's mean alone has a wide
interval. Prediction-powered inference (PPI, Angelopoulos et al. 2023) uses
both: the judge's mean over many items, *rectified* by the judge's mean error
measured on the items people labelled,

.. math::

    \hat\theta_\lambda = \underbrace{\frac{1}{N}\sum_{i=1}^{N} \lambda \hat Y^u_i}_{\text{judge, many items}}
    + \underbrace{\frac{1}{n}\sum_{i=1}^{n} \bigl(Y_i - \lambda \hat Y_i\bigr)}_{\text{rectifier, labelled items}}

whose interval stays valid however biased the judge is, and is narrower than
the people-only interval when the judge is good. ``lam`` (:math:`\lambda`)
scales how much the judge is trusted: 1 is plain PPI, 0 the classical mean
of the human labels, ``None`` the value that makes the interval narrowest
(PPI++, Angelopoulos, Duchi and Zrnic 2023).

* :func:`ppi_mean_pointestimate` and :func:`ppi_mean_ci` - PPI and PPI++;
* :func:`classical_mean_ci` - the interval on the human labels alone;
* :func:`ppi_tuned_lambda` - the :math:`\hat\lambda` PPI++ uses.

The names, arguments and conventions are those of the ``ppi-python``
package (``ppi_py``), and the numbers equal its own to 1e-9 (a test
checks it on random inputs): normal (z) intervals, variances with divisor
:math:`n` (NumPy's ``std``, ``ddof=0``), :math:`\hat\lambda` clipped to
[0, 1]. Only the one-dimensional, unweighted mean is offered here (no ``w``,
``coord``); see Notes of :func:`ppi_mean_ci` for where this module differs
from ``ppi_py`` on purpose. Plain NumPy and the standard library.

These are estimates of a mean (for example a system's precision@10) and
intervals around it; "higher is better" is a property of that mean, not of
these functions.
"""

import math
import numbers
import statistics

import numpy as np

from .._deprecation import formerly_positional
from .._scaling import exponent
from .._texts import cut_repr as _cut
from .._validation import check_choice, check_min_alpha, check_real, upper_normal_quantile

__all__ = [
    "ALTERNATIVES",
    "classical_mean_ci",
    "ppi_mean_ci",
    "ppi_mean_pointestimate",
    "ppi_tuned_lambda",
]

#: The intervals offered, by the name ``ppi_py`` and statsmodels give them.
ALTERNATIVES = ("two-sided", "larger", "smaller")


# ----------------------------------------------------------------- checks

def _values(x, name, min_len=1):
    """``x`` as a 1-D float64 array of finite numbers, or raise naming ``name``."""
    if isinstance(x, (str, bytes)) or not hasattr(x, "__len__"):
        raise TypeError(f"{name} must be a sequence of numbers, got {_cut(x)}")
    array = np.asarray(x)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got an array of shape {array.shape}")
    if array.dtype == object or array.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold numbers (or booleans), got {_cut(x)}")
    array = array.astype(np.float64)
    if len(array) < min_len:
        raise ValueError(f"{name} must hold at least {min_len} value{'s' * (min_len > 1)}, "
                         f"got {len(array)}")
    bad = np.flatnonzero(~np.isfinite(array))
    if bad.size:
        raise ValueError(f"{name} must be finite numbers, got {array[bad[0]]!r} at index {bad[0]}")
    return array


def _labelled(Y, Yhat, min_len=1):
    y = _values(Y, "Y", min_len=0)
    yhat = _values(Yhat, "Yhat", min_len=0)
    if len(y) != len(yhat):
        raise ValueError(f"Y and Yhat must describe the same labelled items, got lengths "
                         f"{len(y)} and {len(yhat)}")
    if len(y) < min_len:
        raise ValueError(f"Y must hold at least {min_len} value{'s' * (min_len > 1)}, got {len(y)}")
    return y, yhat


def _check_alpha(alpha):
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not 0 < alpha < 1:
        raise ValueError(f"alpha must be a number strictly between 0 and 1, got {_cut(alpha)}")
    return check_min_alpha(float(alpha))


def check_lam(lam):
    """Return PPI's weight ``lam`` as a float (None kept), or raise a ``ValueError``.

    Parameters
    ----------
    lam : float or None
        The weight of the judge's labels (None: tuned, PPI++; 1: plain PPI); a bool, a
        non-number, NaN or an infinity is refused.
    """
    if lam is None:
        return None
    if isinstance(lam, numbers.Real) and not isinstance(lam, bool):
        lam = check_real(lam, name="lam")            # 10**400: named, not an OverflowError
    if isinstance(lam, bool) or not isinstance(lam, numbers.Real) or not math.isfinite(lam):
        raise ValueError(f"lam must be None (tuned, PPI++) or a finite number (1: plain PPI), "
                         f"got {_cut(lam)}")
    return float(lam)


def _z_interval(mean, std_error, alpha, alternative):
    """The normal interval of ``mean``: two-sided, or one-sided ("larger": a lower bound)."""
    if alternative == "two-sided":
        z = upper_normal_quantile(alpha / 2.0)
        return float(mean - z * std_error), float(mean + z * std_error)
    z = upper_normal_quantile(alpha)
    if alternative == "larger":
        return float(mean - z * std_error), math.inf
    return -math.inf, float(mean + z * std_error)


def _scaled_terms(y, yhat, yhat_u, lam):
    r"""``(lam Yhat_u, Y - lam Yhat, e)``, both arrays divided by :math:`2^e` (exactly).

    :math:`2^e` is above every :math:`|Y_i|` and :math:`|\lambda \hat Y_i|`, so
    that the means, differences and squares of the interval never overflow
    (``lam=1e308`` with labels of 1e200 made ``nan``), even when
    :math:`\lambda \hat Y` itself is beyond a float; dividing by a power of
    two changes no digit, so ordinary inputs give exactly the numbers of the
    plain formulas (and ``ppi_py``'s).
    """
    if lam == 0.0:  # the people alone: the judge's labels play no part, nor their scale
        e = exponent(y)
        return np.zeros(len(yhat_u)), np.ldexp(y, -e), e
    e_lam = math.frexp(lam)[1]
    e = max(exponent(y), e_lam + exponent(np.concatenate([yhat, yhat_u])))
    lam_scaled = math.ldexp(lam, -e_lam)
    imputed = lam_scaled * np.ldexp(yhat_u, e_lam - e)
    rectifier = np.ldexp(y, -e) - lam_scaled * np.ldexp(yhat, e_lam - e)
    return imputed, rectifier, e


def _unscaled(x, e, lam):
    """``x * 2**e`` as a float; a ValueError if it is beyond a float's range (infinities pass)."""
    x = float(x)
    if not math.isfinite(x) or x == 0.0:
        return x
    mantissa, exponent = math.frexp(x)
    if exponent + e > 1024:
        raise ValueError(
            f"the estimate or a bound is beyond the range of a float (about {mantissa:.3g} * "
            f"2**{exponent + e}): the labels, or lam={lam!r} times the judge's labels, are too "
            "large; rescale Y and Yhat (to [0, 1], say) or use a smaller lam")
    return math.ldexp(x, e)


# ----------------------------------------------------------------- PPI

def _tuned_lambda(y, yhat, yhat_u):
    n, N = len(y), len(yhat_u)
    judge = np.concatenate([yhat, yhat_u])
    if np.all(judge == judge[0]):
        # the judge says one thing everywhere: every lambda gives the same estimate. Tested
        # as such, not by a zero variance: 0.3 ten times has a NumPy variance of 3e-33
        return 0.0
    if np.all(y == y[0]):
        # the people give one label: their covariance with the judge is exactly 0 (NumPy's is
        # a rounding, 7e-33 for 0.1 seven times), so lambda is 0
        return 0.0
    # lambda is a ratio of the people's scale to the judge's: each is divided by a power of
    # two (exactly) first, so that no product or square overflows or underflows
    ey, eh = exponent(y), exponent(judge)
    y, yhat, judge = np.ldexp(y, -ey), np.ldexp(yhat, -eh), np.ldexp(judge, -eh)
    covariance = float(((y - y.mean()) * (yhat - yhat.mean())).mean())  # divisor n
    variance = float(np.var(judge, ddof=1))                             # divisor n + N - 1
    ratio = covariance / ((1.0 + n / N) * variance)
    if ratio <= 0.0:
        return 0.0
    if math.frexp(ratio)[1] + ey - eh > 1:  # ratio * 2**(ey - eh) is 2 or more: clipped to 1
        return 1.0
    return min(math.ldexp(ratio, ey - eh), 1.0)


def ppi_tuned_lambda(Y, Yhat, Yhat_unlabeled):
    r"""The power-tuning weight :math:`\hat\lambda` of PPI++ for a mean.

    .. math::

        \hat\lambda = \operatorname{clip}_{[0, 1]}\;
        \frac{\widehat{\mathrm{Cov}}(Y, \hat Y)}
             {\bigl(1 + \frac{n}{N}\bigr)\,\widehat{\mathrm{Var}}(\hat Y \cup \hat Y^u)}

    the :math:`\lambda` that minimises the variance of
    :math:`\hat\theta_\lambda` (estimated): the covariance of the human labels
    and the judge's on the :math:`n` labelled items (divisor :math:`n`), over
    the variance of the judge's labels on all :math:`n + N` items (divisor
    :math:`n + N - 1`), as ``ppi_py`` computes them.

    Parameters
    ----------
    Y : sequence of float
        Human labels of the :math:`n` labelled items.
    Yhat : sequence of float
        The judge's labels of the same items.
    Yhat_unlabeled : sequence of float
        The judge's labels of the :math:`N` other items.

    Returns
    -------
    float
        In [0, 1]; 0 when the judge gives every item the same label (then
        every :math:`\lambda` gives the same estimate and interval; ``ppi_py``
        returns ``nan`` there). "The same label" is tested as such: NumPy's
        variance of ten labels of 0.3 is about 3e-33, not 0, and would give a
        lambda made of rounding errors.

    Examples
    --------
    A judge that copies the people, with 100 more items: Cov = Var(Y) = 1/4
    (divisor 4), the variance of its 104 labels (52 ones) is
    :math:`\tfrac14 \cdot \tfrac{104}{103}`, and :math:`1 + n/N = 1.04`:

    >>> round(ppi_tuned_lambda([0, 1, 1, 0], [0, 1, 1, 0], [1, 0] * 50), 4)   # 103 / 104 / 1.04
    0.9523
    >>> # a judge unrelated to the people gets none
    >>> ppi_tuned_lambda([0, 1, 0, 1], [0, 0, 1, 1], [1, 0, 1, 0])
    0.0
    """
    y, yhat = _labelled(Y, Yhat)
    yhat_u = _values(Yhat_unlabeled, "Yhat_unlabeled")
    return _tuned_lambda(y, yhat, yhat_u)


@formerly_positional("lam")
def ppi_mean_pointestimate(Y, Yhat, Yhat_unlabeled, *, lam=None):
    r"""The prediction-powered estimate of a mean (PPI, or PPI++ when ``lam=None``).

    .. math::

        \hat\theta_\lambda = \frac{1}{N}\sum_{i=1}^{N} \lambda \hat Y^u_i
        + \frac{1}{n}\sum_{i=1}^{n} \bigl(Y_i - \lambda \hat Y_i\bigr)

    Parameters
    ----------
    Y : sequence of float
        Human (gold) labels of the :math:`n` labelled items, e.g. 1 if the
        assessor judged the document relevant, else 0.
    Yhat : sequence of float
        The judge's labels of the same items, in the same order.
    Yhat_unlabeled : sequence of float
        The judge's labels of the :math:`N` items no person labelled.
    lam : float or None, default None
        :math:`\lambda`. ``None``: :func:`ppi_tuned_lambda` (PPI++); 1: plain
        PPI; 0: the mean of ``Y`` alone.

    Returns
    -------
    float

    See Also
    --------
    ppi_mean_ci, ppi_tuned_lambda

    Notes
    -----
    Equal to ``ppi_py.ppi_mean_pointestimate(Y, Yhat, Yhat_unlabeled,
    lam=lam)`` (which returns a one-element array). The estimate is unbiased
    for any fixed :math:`\lambda`: the rectifier subtracts, on average, the
    judge's bias.

    References
    ----------
    A. N. Angelopoulos, S. Bates, C. Fannjiang, M. I. Jordan and T. Zrnic,
    "Prediction-powered inference", Science 382(6671), 2023.
    A. N. Angelopoulos, J. C. Duchi and T. Zrnic, "PPI++: Efficient
    prediction-powered inference", arXiv:2311.01453, 2023.

    Examples
    --------
    A judge that says "relevant" too often: 3 of 4 on the labelled items,
    where people said 2 of 4; on 6 more items it says 4 of 6.

    >>> Y = [1, 0, 1, 0]
    >>> Yhat = [1, 1, 1, 0]
    >>> Yhat_unlabeled = [1, 1, 0, 1, 0, 1]
    >>> # plain PPI: judge mean 4/6, minus the judge's excess on labelled items (3/4 - 2/4)
    >>> round(ppi_mean_pointestimate(Y, Yhat, Yhat_unlabeled, lam=1), 4)
    0.4167
    >>> round(ppi_mean_pointestimate(Y, Yhat, Yhat_unlabeled, lam=0), 4)   # people only
    0.5
    """
    y, yhat = _labelled(Y, Yhat)
    yhat_u = _values(Yhat_unlabeled, "Yhat_unlabeled")
    lam = check_lam(lam)
    if lam is None:
        lam = _tuned_lambda(y, yhat, yhat_u)
    imputed, rectifier, e = _scaled_terms(y, yhat, yhat_u, lam)
    return _unscaled(imputed.mean() + rectifier.mean(), e, lam)


@formerly_positional("alpha")
def ppi_mean_ci(Y, Yhat, Yhat_unlabeled, *, alpha=0.1, alternative="two-sided", lam=None):
    r"""The prediction-powered confidence interval of a mean (PPI, or PPI++ when ``lam=None``).

    .. math::

        \hat\theta_\lambda \pm z_{1-\alpha/2}\,
        \sqrt{\frac{\hat\sigma^2_{\lambda \hat Y^u}}{N} + \frac{\hat\sigma^2_{Y - \lambda \hat Y}}{n}}

    with :math:`\hat\theta_\lambda` of :func:`ppi_mean_pointestimate`,
    :math:`z_q` the standard normal quantile, and :math:`\hat\sigma^2` the
    variances (divisor :math:`n` or :math:`N`) of the judge's scaled labels on
    the unlabelled items and of the rectifier on the labelled ones.

    Parameters
    ----------
    Y, Yhat, Yhat_unlabeled, lam
        As in :func:`ppi_mean_pointestimate`; ``Y`` and ``Yhat`` need at least
        2 items.
    alpha : float, default 0.1
        Error level: the interval aims at coverage :math:`1 - \alpha`.
        Strictly between 0 and 1.
    alternative : {"two-sided", "larger", "smaller"}, default "two-sided"
        "larger" gives a lower bound ``(low, inf)`` (with :math:`z_{1-\alpha}`),
        "smaller" an upper bound ``(-inf, high)``. Keyword only.

    Returns
    -------
    (float, float)
        The interval's lower and upper bounds.

    See Also
    --------
    classical_mean_ci : the same interval from the human labels alone (``lam=0``).

    Notes
    -----
    Equal to ``ppi_py.ppi_mean_ci(Y, Yhat, Yhat_unlabeled, alpha=alpha,
    alternative=alternative, lam=lam)`` (which returns one-element arrays),
    with two differences on purpose:

    * with ``lam=None``, ``ppi_py`` (0.2.3) ignores ``alternative`` and
      always returns the two-sided interval; this function honours it;
    * when the judge gives every item the same label, ``ppi_py`` returns
      ``nan``; here :math:`\hat\lambda = 0` and the classical interval comes
      back (which every :math:`\lambda` gives then).

    Any finite inputs give finite bounds: the labels are divided by a power of
    two before the sums and squares (exactly: ordinary inputs give the same
    digits), so ``lam=1e308`` or labels of 1e200 do not overflow into
    ``nan``; a bound that no float can hold raises ``ValueError``.

    ``alternative`` and ``lam`` are keyword-only, so that no call can mix up
    the positional orders of ``ppi_py``'s signature and this one.

    The interval is asymptotic (normal): with a handful of human labels its
    coverage falls short of :math:`1 - \alpha`, as the classical one's does.
    With ``lam=None``, :math:`\hat\lambda` is estimated on the same data; the
    interval stays asymptotically valid (Angelopoulos, Duchi and Zrnic 2023).

    References
    ----------
    A. N. Angelopoulos, S. Bates, C. Fannjiang, M. I. Jordan and T. Zrnic,
    "Prediction-powered inference", Science 382(6671), 2023.
    A. N. Angelopoulos, J. C. Duchi and T. Zrnic, "PPI++: Efficient
    prediction-powered inference", arXiv:2311.01453, 2023.
    J. Saad-Falcon, O. Khattab, C. Potts and M. Zaharia, "ARES: An automated
    evaluation framework for retrieval-augmented generation systems",
    NAACL 2024 (PPI for RAG metrics).

    Examples
    --------
    A judge that agrees with people on 9 of 10 labelled items, and labels 200
    more items, half of them "relevant":

    >>> Y = [1, 1, 0, 0, 1, 0, 1, 0, 0, 1]
    >>> Yhat = [1, 1, 0, 0, 1, 0, 1, 1, 0, 1]
    >>> Yhat_unlabeled = [0, 1] * 100
    >>> low, high = ppi_mean_ci(Y, Yhat, Yhat_unlabeled, alpha=0.1, lam=1)
    >>> # estimate 0.5 - 0.1 = 0.4; se = sqrt(0.5**2 / 200 + 0.3**2 / 10) = 0.1012; z = 1.6449
    >>> round(low, 4), round(high, 4)
    (0.2335, 0.5665)
    >>> low, high = classical_mean_ci(Y, alpha=0.1)   # the people alone: wider
    >>> # 0.5 -+ 1.6449 * 0.5 / sqrt(10)
    >>> round(low, 4), round(high, 4)
    (0.2399, 0.7601)
    """
    y, yhat = _labelled(Y, Yhat, min_len=2)
    yhat_u = _values(Yhat_unlabeled, "Yhat_unlabeled")
    alpha = _check_alpha(alpha)
    check_choice(alternative, ALTERNATIVES, name="alternative")
    lam = check_lam(lam)
    if lam is None:
        lam = _tuned_lambda(y, yhat, yhat_u)
    imputed, rectifier, e = _scaled_terms(y, yhat, yhat_u, lam)
    estimate = imputed.mean() + rectifier.mean()
    imputed_se = np.std(imputed) / math.sqrt(len(yhat_u))
    rectifier_se = np.std(rectifier) / math.sqrt(len(y))
    low, high = _z_interval(estimate, math.sqrt(imputed_se**2 + rectifier_se**2), alpha,
                            alternative)
    return _unscaled(low, e, lam), _unscaled(high, e, lam)


def classical_mean_ci(Y, *, alpha=0.1, alternative="two-sided"):
    r"""The classical (central limit theorem) interval of a mean, from the human labels alone.

    .. math::

        \bar Y \pm z_{1-\alpha/2}\, \frac{\hat\sigma_Y}{\sqrt{n}}

    with :math:`\hat\sigma_Y` the standard deviation of ``Y`` with divisor
    :math:`n` (``ddof=0``) and :math:`z_q` the standard normal quantile.

    Parameters
    ----------
    Y : sequence of float
        The :math:`n \ge 2` labels.
    alpha : float, default 0.1
        Error level, strictly between 0 and 1. Keyword only (``ppi_py``'s
        second positional argument is a weight vector ``w``).
    alternative : {"two-sided", "larger", "smaller"}, default "two-sided"
        As in :func:`ppi_mean_ci`.

    Returns
    -------
    (float, float)

    See Also
    --------
    ppi_mean_ci : narrower when a judge's labels of more items are at hand.
    ragmetrics_edu.lab.significance.bootstrap_ci : a bootstrap interval of a mean.

    Notes
    -----
    Equal to ``ppi_py.classical_mean_ci(Y, alpha=alpha,
    alternative=alternative)``, and to :func:`ppi_mean_ci` with ``lam=0``.
    It is a z interval with the ``ddof=0`` standard deviation, so slightly
    narrower than Student's t interval on few labels.

    Examples
    --------
    >>> low, high = classical_mean_ci([1, 0, 1, 1], alpha=0.1)
    >>> # mean 0.75, sd sqrt(0.75 * 0.25) = 0.433, z = 1.6449: 0.75 -+ 1.6449 * 0.433 / 2
    >>> round(low, 4), round(high, 4)
    (0.3939, 1.1061)
    """
    y = _values(Y, "Y", min_len=2)
    alpha = _check_alpha(alpha)
    check_choice(alternative, ALTERNATIVES, name="alternative")
    e = exponent(y)
    y = np.ldexp(y, -e)
    low, high = _z_interval(y.mean(), np.std(y) / math.sqrt(len(y)), alpha, alternative)
    return _unscaled(low, e, None), _unscaled(high, e, None)
