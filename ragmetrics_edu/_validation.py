"""Small ``_check_*`` helpers shared by every metric.

Each one states the rule and the value it got, and raises; none uses
``assert`` (assertions vanish under ``python -O``).
"""

import collections.abc
import math
import numbers

import numpy as np


def check_k(k, *, name="k", allow_none=False):
    """Return ``k`` as an int, or raise if it is not a positive integer.

    ``k=None`` means "the whole ranking" where ``allow_none`` is true.
    """
    if k is None and allow_none:
        return None
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"{name} must be a positive integer, got {k!r}")
    if k < 1:
        raise ValueError(f"{name} must be a positive integer, got {k!r}")
    return int(k)


def check_rels(rels, *, name="rels", allow_negative=False):
    """Return the grades ``rels`` as a 1-D float64 array, or raise.

    Grades are the relevance of the retrieved documents in rank order. They
    must be real numbers, finite and non-negative; an empty ranking is valid.
    ``allow_negative=True`` accepts negative grades too, for the judged
    grades of a query (in TREC qrels, -1 or -2 mark junk); the caller says
    what they mean.
    """
    if isinstance(rels, (str, bytes)) or not hasattr(rels, "__len__"):
        raise TypeError(
            f"{name} must be a sequence of grades in rank order, got {rels!r}"
        )
    if isinstance(rels, (collections.abc.Set, collections.abc.Mapping)):
        # a set has no rank order (and merges equal grades); a dict would be
        # read by its keys
        raise TypeError(
            f"{name} must be a sequence of grades in rank order, got a "
            f"{type(rels).__name__}: {rels!r}"
        )
    if isinstance(rels, np.ndarray) and rels.ndim != 1:
        raise ValueError(
            f"{name} must be a 1-D sequence of grades in rank order, got a "
            f"{rels.ndim}-D array of shape {rels.shape}: {rels!r}"
        )
    values = list(rels.tolist() if isinstance(rels, np.ndarray) else rels)
    for i, g in enumerate(values):
        if isinstance(g, bool) or not isinstance(g, numbers.Real):
            raise TypeError(
                f"{name} must hold numbers, got {g!r} at rank {i + 1}"
            )
        if math.isnan(g) or math.isinf(g):
            raise ValueError(f"{name} must be finite, got {g!r} at rank {i + 1}")
        if g < 0 and not allow_negative:
            raise ValueError(
                f"{name} must be non-negative grades, got {g!r} at rank {i + 1}"
            )
    return np.asarray(values, dtype=np.float64).reshape(-1)


def check_n_relevant(n_relevant, *, found=0, name="n_relevant"):
    """Return ``n_relevant`` as an int, or raise.

    ``found`` is the number of relevant documents present in the ranking; the
    query cannot have fewer relevant documents than were retrieved.
    """
    if isinstance(n_relevant, bool) or not isinstance(n_relevant, numbers.Integral):
        raise TypeError(f"{name} must be a non-negative integer, got {n_relevant!r}")
    if n_relevant < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {n_relevant!r}")
    if n_relevant < found:
        raise ValueError(
            f"{name} must be at least the number of relevant documents "
            f"retrieved ({found}), got {n_relevant!r}"
        )
    return int(n_relevant)


def check_choice(value, choices, *, name):
    """Raise unless ``value`` is one of ``choices`` (listing them)."""
    if value not in choices:
        known = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {known}, got {value!r}")
    return value
