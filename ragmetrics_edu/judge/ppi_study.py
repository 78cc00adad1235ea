r"""How prediction-powered inference behaves over repeated draws, and what a judge is worth.

:mod:`.calibration` computes one PPI interval from one labelled sample.
Whether an interval method keeps its promise is a question about many
samples: draw :math:`n` items for people to label, again and again, and
count how often the interval covers the true mean (its **coverage**) and
how wide it is on average.  :func:`ppi_repeated` does that, all draws at
once, for plain PPI (:math:`\lambda = 1`), PPI++ (:math:`\lambda` tuned on
each draw) or any fixed :math:`\lambda`, beside the classical interval of
the same human labels.

How much narrower can PPI be?  Over a population where the human labels
have variance :math:`\sigma^2_Y`, the judge's :math:`\sigma^2_{\hat Y}` and
their correlation is :math:`\rho`, the variance of the PPI estimate with
:math:`n` labelled and :math:`N` unlabelled items, relative to the human
labels' alone (:math:`\sigma^2_Y / n`), is

.. math::

    r_{\mathrm{PPI}} = \frac{\sigma^2_{Y - \hat Y} + \sigma^2_{\hat Y}\, n/N}{\sigma^2_Y},
    \qquad
    r_{\mathrm{PPI{+}{+}}} = 1 - \rho^2 \frac{N}{n + N}

(the second with the best :math:`\lambda`, which PPI++ estimates):
:func:`ppi_variance_ratio`.  The interval's width scales as
:math:`\sqrt{r}`, and :math:`n` labels with the judge are worth
:math:`n / r` labels without it.  A judge that agrees with people as
:math:`\rho = 0.45` does gives :math:`r \approx 0.8`: about 10% narrower,
worth 25% more labels.  The estimates use the same conventions as
:mod:`.calibration` and ``ppi-python`` (normal intervals, variances with
divisor :math:`n`).  Plain NumPy and the standard library.
"""

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from .._deprecation import formerly_positional
from .._scaling import exponent, scaled
from .._validation import (check_min_alpha, check_real, check_seed, describe,
                           upper_normal_quantile)
from .calibration import check_lam

__all__ = ["PPIRepeated", "ppi_repeated", "ppi_variance_ratio"]


@dataclass(frozen=True)
class PPIRepeated:
    """The intervals of repeated PPI experiments on one population.

    Attributes
    ----------
    truth : float
        The population mean of the human labels, which every interval aims at.
    n, N : int
        Labelled items per draw, and the others (labelled by the judge only).
    low, high : numpy.ndarray
        The PPI interval of each draw.
    lam : numpy.ndarray
        The :math:`\\lambda` of each draw (tuned, for PPI++).
    classical_low, classical_high : numpy.ndarray
        The interval of the same draw's human labels alone.
    alpha : float
    method : str
        ``"PPI"``, ``"PPI++"`` or ``"lambda=..."``.
    seed : int or None
    """

    truth: float
    n: int
    N: int
    low: np.ndarray
    high: np.ndarray
    lam: np.ndarray
    classical_low: np.ndarray
    classical_high: np.ndarray
    alpha: float
    method: str
    seed: object

    @property
    def width(self):
        """Mean width of the PPI intervals."""
        return _mean_width(self.low, self.high)

    @property
    def coverage(self):
        """Share of the draws whose PPI interval contains the truth."""
        return float(np.mean((self.low <= self.truth) & (self.truth <= self.high)))

    @property
    def classical_width(self):
        """Mean width of the intervals of the human labels alone."""
        return _mean_width(self.classical_low, self.classical_high)

    @property
    def classical_coverage(self):
        return float(np.mean((self.classical_low <= self.truth)
                             & (self.truth <= self.classical_high)))

    def __str__(self):
        return (f"{self.method}, n={self.n} labelled of {self.n + self.N}, {len(self.low)} draws: "
                f"mean width {self.width:.4f} (human labels alone {self.classical_width:.4f}), "
                f"coverage {self.coverage:.3f} (alone {self.classical_coverage:.3f}) at "
                f"{1 - self.alpha:.0%}")


def _mean_width(low, high):
    """``mean(high - low)``, the bounds scaled by a power of two first: bounds near 1e308
    would overflow the differences or their sum (inf only if the width itself is)."""
    e = max(exponent(low), exponent(high)) + 1
    width = np.mean(np.ldexp(high, -e) - np.ldexp(low, -e))
    with np.errstate(over="ignore"):
        return float(np.ldexp(width, e))


def _labels(x, name):
    """``x`` as a flat float64 array of finite numbers, or raise naming ``name``.

    TypeError for what is not a sequence of numbers (a dict, a string, a
    scalar, text or None among the labels), ValueError for numbers out of
    range (``nan``, ``10**400``) or the wrong shape; the value is shown cut
    short (a megabyte string is not echoed).
    """
    if isinstance(x, (str, bytes, Mapping)) or not hasattr(x, "__len__") \
            or (isinstance(x, np.ndarray) and x.ndim == 0):
        raise TypeError(f"{name} must be a sequence of numbers (one per item), got {describe(x)}")
    try:
        array = np.asarray(x)
    except ValueError:   # a ragged nesting
        raise ValueError(f"{name} must be a flat sequence of finite numbers, one per item, "
                         f"got {describe(x)}") from None
    if array.dtype == object and array.ndim == 1:
        for i, v in enumerate(array):   # Python ints beyond a float, or not numbers at all
            if isinstance(v, numbers.Real) and not isinstance(v, bool):
                check_real(v, name=name, where=f" at index {i}")
            elif not isinstance(v, bool):
                break
        else:
            array = array.astype(np.float64)
    if array.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold numbers (or booleans), one per item, got {describe(x)}")
    array = array.astype(np.float64)
    if array.ndim != 1 or not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be a flat sequence of finite numbers, one per item, "
                         f"got {describe(x)}")
    return array


def _population(Y, Yhat):
    y, yhat = _labels(Y, "Y"), _labels(Yhat, "Yhat")
    if len(y) != len(yhat):
        raise ValueError(f"Y and Yhat must label the same items, got {len(y)} and {len(yhat)}")
    if len(y) < 4:
        raise ValueError(f"the population needs at least 4 items, got {len(y)}")
    return y, yhat


def _unscaled(values, e):
    """``values * 2**e`` (exact), refused if beyond a float's range."""
    out = np.ldexp(values, e)
    if not np.all(np.isfinite(out)):
        raise ValueError("an interval's bound is beyond the range of a float (about 1.8e308): "
                         "rescale Y and Yhat (to [0, 1], say)")
    return out


def _check_n(n, total):
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or not 2 <= n <= total - 2:
        raise ValueError(f"n must be a whole number of labelled items from 2 to {total - 2} "
                         f"(the others are the judge's), got {n!r}")
    return int(n)


@formerly_positional("n")
def ppi_repeated(Y, Yhat, *, n, repeats=200, alpha=0.1, lam=1, seed=0):
    r"""Draw ``repeats`` labelled samples of ``n`` items and compute PPI's interval on each.

    Each draw picks ``n`` of the population's items at random without
    replacement: their human labels ``Y`` and judge labels ``Yhat`` are
    the labelled sample, the judge's labels of the other :math:`N` items the
    unlabelled one.  The interval is
    :func:`~ragmetrics_edu.judge.calibration.ppi_mean_ci` of that draw, and
    the classical one is
    :func:`~ragmetrics_edu.judge.calibration.classical_mean_ci` of its
    human labels; the truth is ``Y``'s mean over the whole population.

    Parameters
    ----------
    Y : sequence of float
        The human label of every item of the population.
    Yhat : sequence of float
        The judge's label (or score in [0, 1]) of every item.
    n : int
        Human labels per draw.
    repeats : int, default 200
    alpha : float, default 0.1
        The intervals aim at coverage :math:`1 - \alpha`.
    lam : float or None, default 1
        1: plain PPI; ``None``: PPI++ (:math:`\lambda` tuned on each draw as
        :func:`~ragmetrics_edu.judge.calibration.ppi_tuned_lambda` does);
        0: the human labels alone.
    seed : int or None, default 0
        Draw ``r`` labels the ``n`` items with the smallest values in row
        ``r`` of ``default_rng(seed).random((repeats, len(Y)))``.

    Returns
    -------
    PPIRepeated

    Examples
    --------
    A judge that copies the people: PPI's interval is the judge's interval
    over all items, narrower than the human labels alone, and covers.

    >>> Y = [0, 1] * 50
    >>> r = ppi_repeated(Y, Y, n=10, repeats=50, seed=0)
    >>> r.coverage, r.width < r.classical_width
    (1.0, True)
    """
    y_all, yhat_all = _population(Y, Yhat)
    total = len(y_all)
    n = _check_n(n, total)
    if not isinstance(repeats, bool) and isinstance(repeats, numbers.Integral):
        repeats = int(repeats)   # np.int64(2**62) * total would wrap around and pass the bound
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1 \
            or repeats * total > 50_000_000:
        raise ValueError(f"repeats must be a whole number from 1 to {50_000_000 // total} for "
                         f"{total} items, got {repeats!r}")
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not 0 < alpha < 1:
        raise ValueError(f"alpha must be a number strictly between 0 and 1, got {alpha!r}")
    check_min_alpha(alpha)
    lam_fixed = check_lam(lam)
    seed = check_seed(seed)
    N = total - n
    # both scaled by one power of two (exact) to a largest magnitude in [0.5, 1): the squares
    # below neither overflow (labels of 1e200) nor underflow (1e-200); lam, the coverage and
    # the bounds (scaled back) are those of the labels as given
    e = max(exponent(y_all), exponent(yhat_all))
    y_all, yhat_all = np.ldexp(y_all, -e), np.ldexp(yhat_all, -e)
    truth = float(_unscaled(y_all.mean(), e))
    # the n smallest of each row of uniforms: a uniform draw of n items without replacement
    # (argpartition finds the same set as argsort[:, :n], faster; order does not matter)
    idx = np.argpartition(np.random.default_rng(seed).random((int(repeats), total)), n - 1,
                          axis=1)[:, :n]
    y, yhat = y_all[idx], yhat_all[idx]
    mean_u = (yhat_all.sum() - yhat.sum(axis=1)) / N
    var_u = np.maximum((np.sum(yhat_all ** 2) - (yhat ** 2).sum(axis=1)) / N - mean_u ** 2, 0.0)
    if lam_fixed is None:
        covariance = ((y - y.mean(axis=1, keepdims=True))
                      * (yhat - yhat.mean(axis=1, keepdims=True))).mean(axis=1)
        variance = float(np.var(yhat_all, ddof=1))   # labelled and unlabelled: every item
        lam_ = (np.zeros(len(idx)) if variance == 0.0
                else np.clip(covariance / ((1.0 + n / N) * variance), 0.0, 1.0))
        method = "PPI++"
    else:
        lam_ = np.full(len(idx), lam_fixed)
        method = "PPI" if lam_fixed == 1 else f"lambda={lam_fixed:g}"
    rectifier = y - lam_[:, None] * yhat
    estimate = lam_ * mean_u + rectifier.mean(axis=1)
    se = np.sqrt(lam_ ** 2 * var_u / N + rectifier.var(axis=1) / n)
    z = upper_normal_quantile(alpha / 2)
    centre, spread = y.mean(axis=1), z * y.std(axis=1) / math.sqrt(n)
    return PPIRepeated(truth=truth, n=n, N=N, low=_unscaled(estimate - z * se, e),
                       high=_unscaled(estimate + z * se, e), lam=lam_,
                       classical_low=_unscaled(centre - spread, e),
                       classical_high=_unscaled(centre + spread, e), alpha=float(alpha),
                       method=method, seed=seed)


@formerly_positional("n")
def ppi_variance_ratio(Y, Yhat, *, n, lam=1):
    r"""The variance of PPI's estimate over the human labels' alone, from the population.

    .. math::

        r_{\lambda=1} = \frac{\sigma^2_{Y - \hat Y} + \sigma^2_{\hat Y}\, n/N}{\sigma^2_Y},
        \qquad
        r_{\mathrm{PPI{+}{+}}} = 1 - \rho^2 \frac{N}{n + N}

    with :math:`N = ` ``len(Y) - n`` and the variances and the correlation
    :math:`\rho` of the whole population (divisor its size).  The second is
    the smallest variance over :math:`\lambda`, reached at
    :math:`\lambda^* = \mathrm{Cov}(Y, \hat Y) / ((1 + n/N)\,\sigma^2_{\hat Y})`,
    which PPI++ estimates; for a fixed :math:`\lambda` the ratio is
    :math:`(\sigma^2_Y - 2\lambda\,\mathrm{Cov} + \lambda^2\sigma^2_{\hat Y}(1 + n/N)) / \sigma^2_Y`.

    Parameters
    ----------
    Y, Yhat : sequence of float
        Human and judge labels of every item of the population.
    n : int
        Human labels.
    lam : float or None, default 1
        1: plain PPI; ``None``: the best :math:`\lambda` (PPI++'s target).

    Returns
    -------
    float
        The ratio :math:`r`: the interval's width is :math:`\sqrt{r}` times
        the human-only one, and :math:`n` labels with the judge are worth
        :math:`n / r` without it.

    Examples
    --------
    >>> Y = [0, 0, 1, 1] * 25
    >>> round(ppi_variance_ratio(Y, Y, n=20), 4)   # a perfect judge: only the n/N term is left
    0.25
    >>> round(ppi_variance_ratio(Y, Y, n=20, lam=None), 4)   # 1 - 1 * 80 / 100
    0.2
    """
    y, yhat = _population(Y, Yhat)
    n = _check_n(n, len(y))
    lam = lam_given = check_lam(lam)
    N = len(y) - n
    if np.all(y == y[0]):
        raise ValueError("the human labels Y are all equal: their variance is 0, so no ratio")
    # each scaled by its own power of two (exact) to a largest magnitude in [0.5, 1), so
    # that no variance overflows (labels of 1e300) or underflows (1e-200); lam * Yhat is
    # then lam * 2**(e_f - e_y) times the scaled Yhat, relative to the scaled Y
    (y, e_y), (yhat, e_f) = scaled(y), scaled(yhat)
    if lam is not None:
        try:
            lam = math.ldexp(lam, e_f - e_y)
        except OverflowError:
            raise ValueError(f"lam={lam!r} times the judge's labels Yhat is beyond the range "
                             "of a float, relative to the human labels Y: rescale Yhat") from None
    var_y = float(np.var(y))
    var_f = float(np.var(yhat))
    cov = float(np.mean((y - y.mean()) * (yhat - yhat.mean())))
    if lam is None:
        rho2 = 0.0 if var_f == 0.0 else cov ** 2 / (var_y * var_f)
        return 1.0 - rho2 * N / (n + N)
    # lam * sqrt(...) squared, never lam ** 2 (a float's ** raises OverflowError): lam = 1e160
    # squares beyond a float, yet with var_f = 2**-82 the term is 1e295; a term past a float
    # gives inf (or nan, inf - inf), which is refused below
    with np.errstate(over="ignore", invalid="ignore"):
        a = lam * math.sqrt(var_f * (1 + n / N))
        ratio = (var_y - lam * (2 * cov) + a * a) / var_y
    if not math.isfinite(ratio):
        raise ValueError(f"lam={lam_given!r} gives a variance ratio beyond the range of a float "
                         "(about 1.8e308): take a smaller lam")
    return ratio
