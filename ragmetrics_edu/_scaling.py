"""Scaling by a power of two: exact, so a statistic that is a ratio of sums (a correlation, a
t statistic, a standardized effect) is the same to the last bit, while the sums of squares of
values of 1e-200 or 1e200 neither underflow to 0 nor overflow to inf."""

import math

import numpy as np


def exponent(values):
    """The ``e`` with ``max |values|`` in ``[2**(e - 1), 2**e)``; 0 for zeros only or nothing.

    Parameters
    ----------
    values : numpy.ndarray
        Finite numbers.

    Returns
    -------
    int

    Examples
    --------
    >>> exponent(np.array([0.75, -3.0])), exponent(np.array([0.0]))
    (2, 0)
    """
    largest = float(np.max(np.abs(values))) if len(values) else 0.0
    return math.frexp(largest)[1] if largest else 0


def scaled(values):
    """``values`` times ``2**-e``, their largest magnitude in [0.5, 1), and ``e``: exact both
    ways (``numpy.ldexp(scaled, e)`` gives the values back) unless a value more than 2**1022
    times smaller than the largest lands below the normal floats and loses digits.

    Parameters
    ----------
    values : numpy.ndarray
        Finite numbers.

    Returns
    -------
    (numpy.ndarray, int)

    Examples
    --------
    >>> x, e = scaled(np.array([1e-200, -3e-200]))
    >>> float(np.abs(x).max()) < 1 <= 2 * float(np.abs(x).max()), float(np.ldexp(x, e)[1])
    (True, -3e-200)
    """
    e = exponent(values)
    return np.ldexp(values, -e), e
