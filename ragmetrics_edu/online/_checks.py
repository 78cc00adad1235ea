"""Input checks of the online part that ``_validation`` does not hold.

Each one names the argument and the value it got, and raises.
"""

import math
import numbers

import numpy as np


def _shown(value, limit=80):
    """``repr(value)`` cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def check_probability(p, *, name, open_low=False, open_high=False):
    """Return ``p`` as a float in [0, 1] (or an open end), or raise naming ``name``."""
    if isinstance(p, bool) or not isinstance(p, numbers.Real) or math.isnan(p):
        raise TypeError(f"{name} must be a probability (a number in [0, 1]), got {_shown(p)}")
    low_bad = p <= 0 if open_low else p < 0
    high_bad = p >= 1 if open_high else p > 1
    if low_bad or high_bad:
        interval = ("(" if open_low else "[") + "0, 1" + (")" if open_high else "]")
        raise ValueError(f"{name} must be a probability in {interval}, got {_shown(p)}")
    return float(p)


def check_probabilities(values, *, name, n=None):
    """Return ``values`` as a 1-D float array of probabilities in [0, 1], or raise.

    A single number is repeated ``n`` times when ``n`` is given.
    """
    if n is not None and isinstance(values, numbers.Real) and not isinstance(values, bool):
        return np.full(n, check_probability(values, name=name))
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise TypeError(f"{name} must be a sequence of probabilities, got {_shown(values)}")
    objects = np.asarray(values, dtype=object)
    if objects.ndim != 1:
        raise ValueError(f"{name} must be a 1-D sequence of probabilities, got shape "
                         f"{objects.shape}: {_shown(values)}")
    out = []
    for i, v in enumerate(objects.tolist()):
        out.append(check_probability(v, name=f"{name}[{i}]"))
    arr = np.asarray(out, dtype=np.float64)
    if n is not None and len(arr) < n:
        raise ValueError(
            f"{name} must give a probability for each of the {n} ranks, got {len(arr)}: "
            f"{_shown(values)}"
        )
    return arr if n is None else arr[:n]


def check_count(n, *, name, minimum=1):
    """Return ``n`` as an int of at least ``minimum``, or raise."""
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {_shown(n)}")
    if n < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {_shown(n)}")
    return int(n)


def rng_from(seed):
    """A ``numpy.random.Generator`` from ``seed`` (an int >= 0, None, or a Generator)."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)
                             or seed < 0):
        raise ValueError(
            f"seed must be None, a non-negative integer or a numpy Generator, got {_shown(seed)}"
        )
    return np.random.default_rng(seed)
