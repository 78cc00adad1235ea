"""What the judge's bootstrap intervals share: their percentile ends and how they print.

:mod:`.meta_eval` (a metric against human ratings) and :mod:`.assessors`
(a judge against the assessors) both report a statistic with a percentile
bootstrap interval.  The ends are computed by :func:`percentile_bounds`, and
the line a result prints is written by :func:`interval_text` (the method
itself, "95% percentile bootstrap over items, 1000 resamples", by
:func:`bootstrap_method`), so every interval of the part is read the same
way.  Plain NumPy; imports nothing of the package.
"""

import math

import numpy as np

__all__ = ["bootstrap_method", "group_counts", "interval_text", "percentile_bounds"]


def percentile_bounds(stats, confidence):
    r"""``(low, high, n_undefined)``: the percentile interval of resampled statistics.

    The ends are the :math:`\alpha/2` and :math:`1 - \alpha/2` quantiles
    (NumPy's default linear interpolation), :math:`\alpha = 1 -`
    ``confidence``, of the statistics that are defined; the ``nan`` ones
    (a resample on which the statistic is undefined) are left out and
    counted.  Both ends are ``nan`` when no resample is defined.

    Parameters
    ----------
    stats : numpy.ndarray
        One statistic per resample, ``nan`` where undefined.
    confidence : float
        Nominal coverage, strictly between 0 and 1 (already checked).

    Returns
    -------
    tuple of (float, float, int)

    Examples
    --------
    >>> low, high, undefined = percentile_bounds(np.array([0.1, 0.2, np.nan, 0.3, 0.4]), 0.5)
    >>> round(low, 4), round(high, 4), undefined   # quartiles of the 4 defined values
    (0.175, 0.325, 1)
    """
    defined = stats[~np.isnan(stats)]
    if defined.size == 0:
        return math.nan, math.nan, int(stats.size)
    alpha = 1.0 - confidence
    low, high = np.quantile(defined, [alpha / 2.0, 1.0 - alpha / 2.0])
    return float(low), float(high), int(stats.size - defined.size)


def group_counts(n_groups, n_resamples, seed, *, width=0, max_cells=4_000_000):
    """Yield, chunk by chunk, how many times each group is drawn: ``(b, G)`` floats.

    A resample draws G groups with replacement (``rng.integers(0, G, (B, G))``
    with ``rng = numpy.random.default_rng(seed)``, drawn a chunk of rows at a
    time: the same draws whatever the chunk size).  A statistic that is a sum
    over groups (a confusion matrix, a count) is then ``counts @ per_group``
    for every resample at once.  ``width`` is the number of values the caller
    computes per resample (the cells of a table): a chunk holds at most
    ``max_cells`` groups or values per row times its rows.

    >>> chunks = list(group_counts(3, 5, seed=0, max_cells=6))   # 2 rows a chunk
    >>> [c.shape for c in chunks], all(c.sum() == 3 * len(c) for c in chunks)
    ([(2, 3), (2, 3), (1, 3)], True)
    """
    rng = np.random.default_rng(seed)
    step = max(1, max_cells // max(n_groups, width))
    done = 0
    while done < n_resamples:
        b = min(step, n_resamples - done)
        picks = rng.integers(0, n_groups, size=(b, n_groups))
        rows = picks + n_groups * np.arange(b)[:, None]
        counts = np.bincount(rows.ravel(), minlength=b * n_groups).reshape(b, n_groups)
        yield counts.astype(np.float64)
        done += b


def bootstrap_method(confidence, unit, n_resamples, *, paired=False):
    """How an interval was made: ``"95% percentile bootstrap over items, 1000 resamples"``.

    Parameters
    ----------
    confidence : float
        Nominal coverage, printed as a whole percentage.
    unit : str
        What was resampled (``"items"``, ``"pairs"``, ``"groups"``, ``"40 queries"``).
    n_resamples : int
    paired : bool, default False
        Say ``"paired resamples"`` (several statistics computed on the same draws).

    Examples
    --------
    >>> bootstrap_method(0.95, "items", 1000, paired=True)
    '95% percentile bootstrap over items, 1000 paired resamples'
    """
    resamples = "paired resamples" if paired else "resamples"
    return f"{confidence:.0%} percentile bootstrap over {unit}, {n_resamples} {resamples}"


def interval_text(name, value, low, high, *, confidence, unit, n_resamples, details=()):
    """One line: the statistic, its value, its interval and how the interval was made.

    Parameters
    ----------
    name : str
        What was measured.
    value, low, high : float
        Printed with 4 decimals.
    confidence, unit, n_resamples
        As in :func:`bootstrap_method`.
    details : sequence of str, optional
        Further notes after the method, in order (``"seed=0"``, ``"n=40"``).

    Examples
    --------
    >>> interval_text("kendall", 0.5, 0.25, 0.75, confidence=0.9, unit="items",
    ...               n_resamples=200, details=("n=12",))
    'kendall 0.5000 [0.2500, 0.7500] (90% percentile bootstrap over items, 200 resamples, n=12)'
    """
    notes = ", ".join([bootstrap_method(confidence, unit, n_resamples), *details])
    return f"{name} {value:.4f} [{low:.4f}, {high:.4f}] ({notes})"
