r"""Meta-evaluation: how well does a metric agree with people?

A metric (BLEU, chrF, token F1, BERTScore, a judge's rating) is only worth
reporting if it orders answers roughly as people do. To measure that, score
a labelled set with the metric and correlate the scores with the human
ratings, item by item:

* :func:`correlation_ci` - Kendall's tau-b or Spearman's rho between one
  metric and the ratings, with a paired bootstrap confidence interval;
* :func:`meta_evaluate` - the same for several metrics at once, every metric
  resampled with the *same* items, so their intervals can be compared;
* :func:`correlation_difference_ci` - the correlation of one metric minus
  another's, with the paired interval (both on the same draws).

Beside the two rank correlations, ``method="pearson"`` gives Pearson's
linear correlation (for two 0/1 labels the phi coefficient; for a score
against 0/1 labels the point-biserial one): the correlation that
prediction-powered inference rests on (:mod:`.ppi_study`).

The point values are :func:`~ragmetrics_edu.judge.kendall_tau`,
:func:`~ragmetrics_edu.judge.spearman` and :func:`pearson` (equal to
``scipy.stats.kendalltau``, ``scipy.stats.spearmanr`` and
``scipy.stats.pearsonr``). Higher is better: 1 means the metric orders
the items exactly as the people did.

On a set of sixty answers the interval is wide, often wider than the gap
between two metrics: the ranking of metrics by their point correlation is
then not a finding. Read the intervals first.
"""

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .._deprecation import formerly_positional
from .._scaling import scaled
from .._validation import check_bootstrap, check_choice, check_group_labels, describe
from ._bootstrap import bootstrap_method, interval_text, percentile_bounds
from .agreement import check_number_pairs, kendall_tau, spearman

__all__ = ["CORRELATIONS", "Correlation", "MetaEvaluation", "correlation_ci",
           "correlation_difference_ci", "meta_evaluate", "pearson"]


def pearson(x, y):
    r"""Pearson's linear correlation of two sequences of numbers.

    .. math::

        r = \frac{\sum_i (x_i - \bar x)(y_i - \bar y)}
                 {\sqrt{\sum_i (x_i - \bar x)^2 \, \sum_i (y_i - \bar y)^2}}

    ``nan`` when either sequence is constant (no variance: undefined). The
    values are scaled by a power of two first (exact: the same ``r``), so
    that scores of any magnitude, 1e-300 to 1e300, give scipy's ``r``.

    Parameters
    ----------
    x, y : sequence of float
        The two sequences, item by item (finite numbers).

    >>> # deviations (.5, -.5, -.5, .5) and (.25, -.75, .25, .25): 0.5 / sqrt(1 * 0.75)
    >>> round(pearson([1, 0, 0, 1], [1, 0, 1, 1]), 4)
    0.5774
    """
    x, y = check_number_pairs(x, y, "x", "y")
    if np.all(x == x[0]) or np.all(y == y[0]):
        return float("nan")
    # each scaled by a power of two to a largest magnitude in [0.5, 1): exact, and r is the
    # same to the last bit, but the sums of squares no longer overflow (values of 1e200) or
    # underflow (1e-200) to inf or 0
    (x, _), (y, _) = scaled(x), scaled(y)
    dx, dy = x - x.mean(), y - y.mean()
    sxx, syy = float(dx @ dx), float(dy @ dy)
    if sxx == 0.0 or syy == 0.0:
        return float("nan")
    return float(np.clip(float(dx @ dy) / np.sqrt(sxx * syy), -1.0, 1.0))


#: The correlations offered, by name: two rank correlations and Pearson's linear one.
CORRELATIONS = {"kendall": kendall_tau, "spearman": spearman, "pearson": pearson}


@dataclass(frozen=True)
class Correlation:
    """A correlation between a metric and human ratings (or a difference of two), with its interval.

    Attributes
    ----------
    method : str
        ``'kendall'`` (Kendall's tau-b), ``'spearman'`` (Spearman's rho) or
        ``'pearson'``; ``'<method>, a minus b'`` for a difference
        (:func:`correlation_difference_ci`).
    value : float
        The correlation on the items as given (``nan`` if undefined);
        ``float()`` of the result.
    low, high : float
        The percentile bootstrap interval.
    n : int
        Number of items.
    confidence : float
        Nominal coverage of the interval.
    n_resamples : int
        Bootstrap resamples drawn.
    n_undefined : int
        Resamples on which the correlation was undefined (every resampled
        score, or every resampled rating, equal); they are left out of the
        quantiles.
    unit : str
        What was resampled: ``"items"``, or ``"groups"`` (whole groups of
        items, see ``groups=``).
    """

    method: str
    value: float
    low: float
    high: float
    n: int
    confidence: float
    n_resamples: int
    n_undefined: int
    unit: str = "items"

    def __float__(self):
        return float(self.value)

    def __str__(self):
        return interval_text(self.method, self.value, self.low, self.high,
                             confidence=self.confidence, unit=self.unit,
                             n_resamples=self.n_resamples, details=(f"n={self.n}",))


@dataclass(frozen=True)
class MetaEvaluation:
    """The correlations of several metrics with the same human ratings.

    Attributes
    ----------
    rows : dict of str to dict of str to Correlation
        ``{metric name: {method: Correlation}}``, metrics in the order given.
    methods : tuple of str
    n, n_resamples, confidence, seed, unit
        How the intervals were made (shared by every row).
    """

    rows: dict
    methods: tuple
    n: int
    n_resamples: int
    confidence: float
    seed: object
    unit: str

    def table(self):
        """The rows as plain tuples ``(metric, method, value, low, high)``."""
        return [(name, m, c.value, c.low, c.high)
                for name, row in self.rows.items() for m, c in row.items()]

    def __str__(self):
        width = max([len("metric")] + [len(name) for name in self.rows])
        head = f"{'metric':<{width}}" + "".join(
            f"  {m + ' [interval]':<27}" for m in self.methods)
        lines = [head]
        for name, row in self.rows.items():
            cells = "".join(f"  {c.value:7.4f} [{c.low:7.4f}, {c.high:7.4f}]" for c in row.values())
            lines.append(f"{name:<{width}}{cells}")
        method = bootstrap_method(self.confidence, self.unit, self.n_resamples, paired=True)
        lines.append(f"n={self.n} items; {method}, seed={self.seed}")
        return "\n".join(lines)


# ----------------------------------------------------------------- checks

def _check_methods(methods):
    if isinstance(methods, str):
        methods = (methods,)
    methods = tuple(methods)
    if not methods:
        raise ValueError("methods must name at least one correlation, got an empty sequence")
    for m in methods:
        check_choice(m, tuple(CORRELATIONS), name="methods")
    return methods


def index_groups(groups, n):
    """``(list of index arrays, one per group)`` from one group label per item."""
    groups = check_group_labels(groups, n)
    members = {}
    for i, g in enumerate(groups):
        members.setdefault(g, []).append(i)
    if len(members) < 2:
        raise ValueError(f"groups must hold at least 2 distinct groups to resample, got {len(members)}")
    return [np.asarray(v, dtype=np.int64) for v in members.values()]


RESAMPLE_BLOCK = 1 << 22
"""Indices drawn at once (4 Mi, 32 MB): resamples come in chunks of rows of at most this many."""


def _pick_chunks(units, n_resamples, seed):
    """``default_rng(seed).integers(0, units, (n_resamples, units))``, a chunk of rows at a time.

    The same draws whatever the chunk size (the generator's stream is consumed
    in the same order), without the whole ``n_resamples x units`` matrix:
    a million resamples of 3000 items would be 22 GiB at once.
    """
    rng = np.random.default_rng(seed)
    rows = max(1, RESAMPLE_BLOCK // max(1, units))
    for start in range(0, n_resamples, rows):
        yield rng.integers(0, units, size=(min(rows, n_resamples - start), units))


def resample_indices(n, n_resamples, seed, groups):
    """The item indices of every resample, one index array at a time (a generator).

    With ``groups``, each resample draws as many groups as there are, with
    replacement, and keeps all their items (its size varies).
    """
    units = n if groups is None else len(groups)
    for chunk in _pick_chunks(units, n_resamples, seed):
        for row in chunk:
            yield row if groups is None else np.concatenate([groups[g] for g in row])


class _Resamples:
    """The draws of one bootstrap, and each correlation computed on them.

    The units each resample draws are item indices, or group numbers with
    ``groups`` (the draws of :func:`resample_indices`), drawn again from the
    seed, a chunk at a time, for every correlation: the same draws each time,
    and never the whole matrix of them.  A rank correlation is computed on each
    resample's items; Pearson's, with groups, from each group's sums of
    :math:`1, x, y, x^2, y^2, xy` weighted by how many times the resample drew
    the group: matrix products, no loop.
    """

    def __init__(self, n, n_resamples, seed, groups):
        if seed is None:        # fresh entropy, fixed once: every correlation sees the same draws
            seed = np.random.SeedSequence().entropy
        self.n, self.n_resamples, self.seed, self.groups = n, n_resamples, seed, groups

    def indices(self):
        return resample_indices(self.n, self.n_resamples, self.seed, self.groups)

    def correlations(self, method, x, y):
        """``(B,)`` the correlation of each resample, ``nan`` where undefined."""
        if method == "pearson" and self.groups is not None:
            return self._pearson_by_group(x, y)
        fn = CORRELATIONS[method]
        return np.array([fn(x[idx], y[idx]) for idx in self.indices()], dtype=np.float64)

    def _pearson_by_group(self, x, y):
        groups = self.groups
        n_groups = len(groups)
        code = np.empty(len(x), dtype=np.int64)
        for g, members in enumerate(groups):
            code[members] = g
        dx, dy = x - x.mean(), y - y.mean()            # centred: no cancellation in the sums
        moments = np.stack([np.bincount(code, weights=w, minlength=n_groups)
                            for w in (np.ones_like(dx), dx, dy, dx * dx, dy * dy, dx * dy)],
                           axis=1)
        out = []
        for rows in _pick_chunks(n_groups, self.n_resamples, self.seed):
            cells = rows + n_groups * np.arange(len(rows))[:, None]
            counts = np.bincount(cells.ravel(), minlength=len(rows) * n_groups)
            sums = counts.reshape(len(rows), n_groups).astype(np.float64) @ moments
            m, sx, sy, sxx, syy, sxy = sums.T
            var_x, var_y = m * sxx - sx * sx, m * syy - sy * sy
            flat = (var_x <= 1e-12 * m * sxx) | (var_y <= 1e-12 * m * syy)   # one value only
            with np.errstate(invalid="ignore", divide="ignore"):
                r = np.clip((m * sxy - sx * sy) / np.sqrt(var_x * var_y), -1.0, 1.0)
            out.append(np.where(flat, np.nan, r))
        return np.concatenate(out)


# ----------------------------------------------------------------- public

@formerly_positional("method", "confidence", "n_resamples", "seed", "groups")
def correlation_ci(scores, ratings, *, method="kendall", confidence=0.95, n_resamples=1000,
                   seed=0, groups=None):
    r"""A correlation between a metric and human ratings, with a bootstrap interval.

    The point value is Kendall's tau-b (:func:`~ragmetrics_edu.judge.kendall_tau`),
    Spearman's rho (:func:`~ragmetrics_edu.judge.spearman`) or Pearson's r
    (:func:`pearson`) of the pairs :math:`(s_i, h_i)`. The interval is the paired percentile bootstrap:
    draw :math:`n` item indices with replacement, keep each item's score
    *and* rating together, compute the correlation :math:`r^*_b` of the
    resample; repeat :math:`B` times and report

    .. math::

        \left[\, Q_{\alpha/2}(r^*_1, \dots, r^*_B),\;
        Q_{1-\alpha/2}(r^*_1, \dots, r^*_B) \,\right],
        \qquad \alpha = 1 - \text{confidence}.

    Parameters
    ----------
    scores : sequence of float
        The metric's score of each item.
    ratings : sequence of float
        The human rating of the same items, in the same order.
    method : {'kendall', 'spearman', 'pearson'}, default 'kendall'
    confidence : float, default 0.95
        Nominal coverage, strictly between 0 and 1.
    n_resamples : int, default 1000
        Bootstrap resamples :math:`B`.
    seed : int or None, default 0
        Seed of ``numpy.random.default_rng``.
    groups : sequence, optional
        One label per item (for example the question an answer belongs
        to). When given, whole groups are resampled (a cluster bootstrap),
        since answers to the same question are not independent items.

    Returns
    -------
    Correlation
        ``value``, ``low``, ``high`` and how they were made.

    See Also
    --------
    meta_evaluate : several metrics resampled together.
    ragmetrics_edu.lab.significance.bootstrap_ci : the same interval for a mean.

    Notes
    -----
    Resamples on which the correlation is undefined (all resampled ratings
    equal) are dropped and counted in ``n_undefined``; on a set with varied
    ratings they are rare. Quantiles use NumPy's default linear
    interpolation. ``scipy.stats.bootstrap`` defaults to the BCa interval;
    pass it ``method="percentile", paired=True`` to get this one (with its
    own random draws, so not the same digits). The percentile interval of a
    correlation is not centred on the point value (the bootstrap
    distribution of a correlation near 1 is skewed) and, with a few dozen
    items, it is too narrow rather than too wide.

    References
    ----------
    B. Efron and R. J. Tibshirani, *An Introduction to the Bootstrap*,
    Chapman & Hall, 1993, chapter 13. M. Deutsch, R. Dror and D. Roth, "A
    Statistical Analysis of Summarization Evaluation Metrics using
    Resampling Methods", TACL 9, 2021 (bootstrap intervals of metric-human
    correlations, and how wide they are).

    Examples
    --------
    The metric swaps one neighbouring pair of the eight items:

    >>> human = [1, 2, 3, 4, 5, 6, 7, 8]
    >>> metric = [0.1, 0.2, 0.4, 0.3, 0.5, 0.6, 0.7, 0.8]
    >>> c = correlation_ci(metric, human, method="spearman", seed=0)
    >>> round(c.value, 4)    # 1 - 6 * (1 + 1) / (8 * (64 - 1))
    0.9762
    >>> c.low <= c.value <= c.high <= 1
    True
    >>> tau = correlation_ci(metric, human, method="kendall", seed=0)
    >>> round(tau.value, 4)  # 27 concordant, 1 discordant pair: (27 - 1) / 28
    0.9286
    """
    check_choice(method, tuple(CORRELATIONS), name="method")
    # checked here, so that a message names scores (meta_evaluate would say metrics['metric'])
    for values, name in ((scores, "scores"), (ratings, "ratings")):
        if isinstance(values, (str, bytes, Mapping)) or not hasattr(values, "__len__"):
            raise TypeError(f"{name} must be a sequence of numbers, got {describe(values)}")
    scores, ratings = check_number_pairs(scores, ratings, "scores", "ratings")
    result = meta_evaluate({"metric": scores}, ratings, methods=(method,), confidence=confidence,
                           n_resamples=n_resamples, seed=seed, groups=groups)
    return result.rows["metric"][method]


@formerly_positional("methods", "confidence", "n_resamples", "seed", "groups")
def meta_evaluate(metrics, ratings, *, methods=("kendall", "spearman"), confidence=0.95,
                  n_resamples=1000, seed=0, groups=None):
    """Correlate several metrics with the same human ratings, with paired intervals.

    Every metric and every method uses the same bootstrap resamples of the
    items, so the intervals of two metrics are computed on the same draws
    (a difference between them is not a difference of random draws).

    Parameters
    ----------
    metrics : dict of str to sequence of float
        ``{metric name: one score per item}``.
    ratings : sequence of float
        The human rating of each item.
    methods : sequence of {'kendall', 'spearman', 'pearson'}, default the two rank correlations
    confidence, n_resamples, seed, groups
        As in :func:`correlation_ci`.

    Returns
    -------
    MetaEvaluation
        ``rows[name][method]`` is a :class:`Correlation`; ``print`` it for a
        table, ``.table()`` for plain tuples.

    See Also
    --------
    correlation_ci

    Examples
    --------
    >>> human = [1, 1, 2, 3, 3, 4, 5, 5]
    >>> result = meta_evaluate({"good": [0.1, 0.2, 0.2, 0.5, 0.4, 0.7, 0.8, 0.9],
    ...                         "noisy": [0.5, 0.1, 0.9, 0.3, 0.6, 0.2, 0.8, 0.4]},
    ...                        human, methods=("kendall",), seed=1)
    >>> round(result.rows["good"]["kendall"].value, 4)   # scipy.stats.kendalltau: 0.9238
    0.9238
    >>> result.rows["good"]["kendall"].low > result.rows["noisy"]["kendall"].value
    True
    """
    if not isinstance(metrics, dict) or not metrics:
        raise TypeError(f"metrics must be a non-empty dict of name -> scores, got {metrics!r}")
    methods = _check_methods(methods)
    confidence, n_resamples, seed = check_bootstrap(confidence, n_resamples, seed)
    columns = {}
    y = None
    for name, scores in metrics.items():
        x, y = check_number_pairs(scores, ratings, f"metrics[{name!r}]", "ratings")
        columns[name] = x
    n = len(y)
    if n < 2:
        raise ValueError(f"ratings must hold at least 2 items to correlate, got {n}")
    group_index = None if groups is None else index_groups(groups, n)
    resamples = _Resamples(n, n_resamples, seed, group_index)
    unit = "items" if groups is None else "groups"
    rows = {}
    for name, x in columns.items():
        rows[name] = {}
        for m in methods:
            low, high, undefined = percentile_bounds(resamples.correlations(m, x, y), confidence)
            rows[name][m] = Correlation(m, CORRELATIONS[m](x, y), low, high, n, confidence,
                                        n_resamples, undefined, unit)
    return MetaEvaluation(rows, methods, n, n_resamples, confidence, seed, unit)


@formerly_positional("method", "confidence", "n_resamples", "seed", "groups")
def correlation_difference_ci(scores_a, scores_b, ratings, *, method="kendall", confidence=0.95,
                              n_resamples=1000, seed=0, groups=None):
    """The correlation of metric a with the ratings minus metric b's, with a paired interval.

    Two metrics (or judges) scored the same items: does one follow the
    ratings more closely?  Their two intervals overlap easily even when one
    is ahead on almost every resample; the paired interval computes both
    correlations on each resample of the items (or of whole groups) and
    keeps their difference, so what the two share cancels out.

    Parameters
    ----------
    scores_a, scores_b : sequence of float
        The two metrics' scores of the same items.
    ratings : sequence of float
        The human rating of each item.
    method : {'kendall', 'spearman', 'pearson'}, default 'kendall'
    confidence, n_resamples, seed, groups
        As in :func:`correlation_ci`.

    Returns
    -------
    Correlation
        ``value`` is correlation a minus correlation b; ``method`` reads
        ``"<method>, a minus b"``.  A resample on which either correlation is
        undefined is left out and counted in ``n_undefined``.

    Examples
    --------
    >>> human = [0, 0, 1, 1, 0, 1, 0, 1]
    >>> a = [0.1, 0.2, 0.9, 0.8, 0.3, 0.7, 0.2, 0.6]    # follows the ratings
    >>> b = [0.5, 0.1, 0.9, 0.2, 0.6, 0.7, 0.3, 0.4]    # less so
    >>> d = correlation_difference_ci(a, b, human, method="pearson", n_resamples=200)
    >>> round(d.value, 4) == round(pearson(a, human) - pearson(b, human), 4)
    True
    """
    check_choice(method, tuple(CORRELATIONS), name="method")
    confidence, n_resamples, seed = check_bootstrap(confidence, n_resamples, seed)
    x_a, y = check_number_pairs(scores_a, ratings, "scores_a", "ratings")
    x_b, _ = check_number_pairs(scores_b, ratings, "scores_b", "ratings")
    n = len(y)
    if n < 2:
        raise ValueError(f"ratings must hold at least 2 items to correlate, got {n}")
    group_index = None if groups is None else index_groups(groups, n)
    resamples = _Resamples(n, n_resamples, seed, group_index)
    fn = CORRELATIONS[method]
    diffs = resamples.correlations(method, x_a, y) - resamples.correlations(method, x_b, y)
    low, high, undefined = percentile_bounds(diffs, confidence)
    return Correlation(f"{method}, a minus b", fn(x_a, y) - fn(x_b, y), low, high, n,
                       confidence, n_resamples, undefined,
                       "items" if groups is None else "groups")
