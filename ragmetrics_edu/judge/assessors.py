r"""A judge held against human assessors: kappa with an interval, and system rankings.

Two questions, two units:

* **Does the judge label pairs as the assessors did?** :func:`kappa_ci` -
  Cohen's kappa (binary, or weighted for graded labels) of the judge's and
  the assessors' labels of the same (query, document) pairs, with a
  percentile bootstrap interval over pairs, or over queries when
  ``groups=`` names each pair's query (pairs of one query are not
  independent).
* **Does the judge rank systems as the assessors' labels do?**
  :func:`system_ranking_tau` - score every system twice (once with the
  assessors' qrels, once with the judge's), and compare the two orders of
  the systems by Kendall's tau, with a bootstrap interval over queries.

What matters for evaluation is the second (Voorhees 2000: assessors who
disagree on many documents still rank systems alike). A judge with modest
kappa can rank systems well; a judge with high kappa can still favour its
own kind of system.

The point values are :func:`~ragmetrics_edu.judge.cohen_kappa` (equal to
``sklearn.metrics.cohen_kappa_score``) and
:func:`~ragmetrics_edu.judge.kendall_tau` (tau-b, equal to
``scipy.stats.kendalltau``). Higher is better: 1 is perfect agreement.
Plain NumPy.
"""

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .._deprecation import formerly_positional, renamed_attribute
from .._validation import check_bootstrap, check_choice, check_real
from ._bootstrap import bootstrap_method, group_counts, interval_text, percentile_bounds
from .agreement import check_label_pairs, cohen_kappa, kappa_weights
from .meta_eval import index_groups

__all__ = ["AgreementInterval", "RankingAgreement", "kappa_ci", "system_ranking_tau"]


@dataclass(frozen=True)
class AgreementInterval:
    """An agreement statistic with its percentile bootstrap interval.

    Attributes
    ----------
    method : str
        What was measured, e.g. ``"Cohen's kappa (quadratic weights)"`` (as
        :class:`~ragmetrics_edu.judge.meta_eval.Correlation` names it; a
        ``statistic`` is always a number.  ``statistic``, this field's old
        name, still reads, with a DeprecationWarning).
    value : float
        On the data as given (``nan`` if undefined); ``float()`` of the result.
    low, high : float
        The percentile bootstrap interval (``nan`` if every resample was undefined).
    n : int
        Items (pairs) measured.
    confidence : float
    n_resamples : int
    n_undefined : int
        Resamples on which the statistic was undefined, left out of the quantiles.
    unit : str
        What was resampled: ``"pairs"`` or ``"groups"``.
    seed : int or None
    """

    method: str
    value: float
    low: float
    high: float
    n: int
    confidence: float
    n_resamples: int
    n_undefined: int
    unit: str
    seed: object

    statistic = renamed_attribute("statistic", "method")

    def __float__(self):
        return float(self.value)

    def __str__(self):
        return interval_text(self.method, self.value, self.low, self.high,
                             confidence=self.confidence, unit=self.unit,
                             n_resamples=self.n_resamples,
                             details=(f"seed={self.seed}", f"n={self.n}"))


@dataclass(frozen=True)
class RankingAgreement:
    """Two orders of the same systems, and Kendall's tau between them.

    Attributes
    ----------
    systems : tuple of str
        The systems, in the order given.
    mean_a, mean_b : tuple of float
        Each system's mean score over the queries under ``a`` and ``b``
        (e.g. the assessors' qrels and a judge's).
    tau : float
        Kendall's tau-b between ``mean_a`` and ``mean_b``; ``float()`` of the result.
    low, high : float
        Percentile bootstrap interval of tau, resampling queries.
    discordant : tuple of (str, str)
        The pairs of systems that ``a`` and ``b`` order differently, each
        written ``(better under a, better under b)``.
    n_queries, confidence, n_resamples, n_undefined, seed
        How the interval was made.
    """

    systems: tuple
    mean_a: tuple
    mean_b: tuple
    tau: float
    low: float
    high: float
    discordant: tuple
    n_queries: int
    confidence: float
    n_resamples: int
    n_undefined: int
    seed: object

    def __float__(self):
        return float(self.tau)

    def __str__(self):
        method = bootstrap_method(self.confidence, f"{self.n_queries} queries", self.n_resamples)
        return (f"Kendall's tau-b {self.tau:.4f} [{self.low:.4f}, {self.high:.4f}] between two "
                f"rankings of {len(self.systems)} systems ({method}, seed={self.seed}); "
                f"{len(self.discordant)} pairs of systems swapped")


# ----------------------------------------------------------------- kappa

RESAMPLE_BLOCK = 1 << 22
"""Indices drawn at once (4 Mi, 32 MB): resamples come in chunks of this many indices."""


def _resamples(n, n_resamples, seed, groups):
    """The item indices of each resample, drawn chunk by chunk (a generator).

    The same draws as :func:`~ragmetrics_edu.judge.meta_eval.resample_indices`
    (``default_rng(seed).integers`` of ``n_resamples`` rows, taken a few rows at
    a time), without its whole ``n_resamples x n`` matrix: 1000 resamples of
    a million pairs would be 8 GB at once.
    """
    rng = np.random.default_rng(seed)
    units = n if groups is None else len(groups)
    rows = max(1, RESAMPLE_BLOCK // units)
    for start in range(0, n_resamples, rows):
        for row in rng.integers(0, units, size=(min(rows, n_resamples - start), units)):
            yield row if groups is None else np.concatenate([groups[g] for g in row])


def _kappas(codes_a, codes_b, n_labels, w, resamples):
    """Kappa of each resample: one confusion matrix per array of indices."""
    out = []
    for idx in resamples:
        cells = codes_a[idx] * n_labels + codes_b[idx]
        observed = np.bincount(cells, minlength=n_labels * n_labels).reshape(n_labels, n_labels)
        observed = observed.astype(np.float64)
        expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / observed.sum()
        disagreement_expected = float((w * expected).sum())
        out.append(math.nan if disagreement_expected == 0.0 else
                   1.0 - float((w * observed).sum()) / disagreement_expected)
    return np.array(out, dtype=np.float64)


def _grouped_kappas(codes_a, codes_b, n_labels, weights, group_index, n_resamples, seed):
    """Kappa of each resample of whole groups, from one confusion matrix per group.

    A resample's confusion matrix is the sum of the matrices of the groups it
    draws (a group drawn twice counts twice): the kappa of the resampled
    pairs, from the same draws as :func:`_resamples`, without building any
    resample's list of pairs.
    """
    from .agreement import kappa_from_confusion

    n_groups, k = len(group_index), n_labels
    members = np.concatenate(group_index)
    group_of = np.repeat(np.arange(n_groups), [len(m) for m in group_index])
    cells = group_of * (k * k) + codes_a[members] * k + codes_b[members]
    flat = np.bincount(cells, minlength=n_groups * k * k).reshape(n_groups, k * k)
    flat = flat.astype(np.float64)
    kappas = [kappa_from_confusion((counts @ flat).reshape(-1, k, k), weights)
              for counts in group_counts(n_groups, n_resamples, seed, width=3 * k * k)]
    return np.atleast_1d(np.concatenate(kappas))


@formerly_positional("weights", "labels", "confidence", "n_resamples", "seed", "groups")
def kappa_ci(a, b, *, weights=None, labels=None, confidence=0.95, n_resamples=1000, seed=0,
             groups=None):
    r"""Cohen's kappa between two raters, with a percentile bootstrap interval.

    The value is :func:`~ragmetrics_edu.judge.cohen_kappa`,

    .. math::

        \kappa = 1 - \frac{\sum_{ij} w_{ij} O_{ij}}{\sum_{ij} w_{ij} E_{ij}}

    (:math:`O` the confusion matrix, :math:`E` its expectation under
    independence, :math:`w` 0/1, :math:`|i-j|` or :math:`(i-j)^2`). The
    interval: draw :math:`n` pairs with replacement (or, with ``groups``,
    as many groups as there are, keeping all their pairs), compute
    :math:`\kappa^*_b`, repeat :math:`B` times, and take the
    :math:`\alpha/2` and :math:`1-\alpha/2` quantiles.

    Parameters
    ----------
    a, b : sequence
        The two raters' labels of the same items (e.g. the assessors' grades
        and a judge's).
    weights : {None, "linear", "quadratic"}, default None
    labels : sequence, optional
        The labels in order; default the sorted labels seen in ``a`` and
        ``b``. Every resample uses the same labels, so a grade missing from
        a resample keeps its place in the weights.
    confidence : float, default 0.95
    n_resamples : int, default 1000
    seed : int or None, default 0
        Seed of ``numpy.random.default_rng``.
    groups : sequence, optional
        One label per item (its query): whole groups are resampled.

    Returns
    -------
    AgreementInterval

    See Also
    --------
    ragmetrics_edu.judge.cohen_kappa, ragmetrics_edu.judge.correlation_ci

    Notes
    -----
    Resamples where kappa is undefined (both raters used one and the same
    label) are left out and counted in ``n_undefined``. The percentile
    interval of kappa is the usual choice for a few hundred pairs; with
    few pairs, or kappa near 1, it is too narrow.

    References
    ----------
    J. Cohen, "A coefficient of agreement for nominal scales", 1960;
    "Weighted kappa", 1968. B. Efron and R. J. Tibshirani, *An Introduction
    to the Bootstrap*, 1993.

    Examples
    --------
    >>> human = [0, 0, 1, 1, 1, 0, 1, 0, 1, 1]
    >>> judge = [0, 1, 1, 1, 1, 0, 1, 0, 0, 1]
    >>> k = kappa_ci(human, judge, n_resamples=200, seed=0)
    >>> # p_o = 8/10; p_e = 0.4 * 0.4 + 0.6 * 0.6 = 0.52; (0.8 - 0.52) / 0.48
    >>> round(k.value, 4)
    0.5833
    >>> k.low < k.value < k.high
    True
    """
    check_choice(weights, (None, "linear", "quadratic"), name="weights")
    confidence, n_resamples, seed = check_bootstrap(confidence, n_resamples, seed)
    a, b = check_label_pairs(a, b)
    if labels is not None and not isinstance(labels, (str, bytes)) and not hasattr(labels, "__len__"):
        labels = list(labels)      # an iterator is read once, here: cohen_kappa would consume it
    value = cohen_kappa(a, b, weights=weights, labels=labels)  # checks labels too
    if labels is None:
        labels = sorted(set(a) | set(b))
    index = {lab: i for i, lab in enumerate(labels)}
    codes_a = np.array([index[x] for x in a], dtype=np.int64)
    codes_b = np.array([index[x] for x in b], dtype=np.int64)
    w = kappa_weights(len(labels), weights)
    group_index = None if groups is None else index_groups(groups, len(a))
    if group_index is None:
        kappas = _kappas(codes_a, codes_b, len(labels), w,
                         _resamples(len(a), n_resamples, seed, None))
    else:
        kappas = _grouped_kappas(codes_a, codes_b, len(labels), weights, group_index,
                                 n_resamples, seed)
    low, high, undefined = percentile_bounds(kappas, confidence)
    name = "Cohen's kappa" + ("" if weights is None else f" ({weights} weights)")
    return AgreementInterval(name, value, low, high, len(a), confidence, n_resamples,
                             undefined, "pairs" if groups is None else "groups", seed)


# ----------------------------------------------------------------- rankings

TIE_TOLERANCE = 1e-12
"""Relative tolerance within which two systems' means tie (see :func:`system_ranking_tau`)."""

_SCALE_ABOVE = 2.0 ** 900


def _scaled(table):
    """``(table * 2**-e, e)``: scores too large to sum without overflow scaled by a power of two.

    Scaling by a power of two is exact, so signs and ties are unchanged;
    tables whose scores are below 2**900 (all the usual ones) are left as they are.
    """
    top = float(np.abs(table).max())
    if top < _SCALE_ABOVE:
        return table, 0
    e = math.frexp(top)[1] + 1 + math.frexp(float(table.shape[1]))[1]
    return np.ldexp(table, -e), e


def _tie_tolerance(n_queries):
    """The relative tolerance on sums of ``n_queries`` scores: :data:`TIE_TOLERANCE`, or more
    than the floating-point error of such sums when there are many queries."""
    return max(TIE_TOLERANCE, 16.0 * (n_queries + 2) * np.finfo(np.float64).eps)


def _means(table):
    """Each row's mean, from its correctly rounded sum (``math.fsum``)."""
    scaled, e = _scaled(table)
    return np.ldexp(np.array([math.fsum(row) for row in scaled.tolist()]) / table.shape[1], e)


def _order_signs(table, means=None):
    r"""``sign(mean_i - mean_j)`` of every pair of rows, with ties within the tolerance.

    Rows :math:`i, j` tie when :math:`|\sum_q x_{iq} - \sum_q x_{jq}| \le
    t\,(\sum_q |x_{iq}| + \sum_q |x_{jq}|)` (:math:`t` of :func:`_tie_tolerance`),
    the sums taken exactly (``math.fsum``).
    """
    scaled, _ = _scaled(table)
    rows = scaled.tolist()
    tol = _tie_tolerance(table.shape[1])
    n = len(rows)
    signs = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            difference = math.fsum(rows[i] + [-v for v in rows[j]])
            size = math.fsum([abs(v) for v in rows[i]] + [abs(v) for v in rows[j]])
            signs[i, j] = 0.0 if abs(difference) <= tol * size else math.copysign(1.0, difference)
            signs[j, i] = -signs[i, j]
    return signs


def _tau_from_signs(sa, sb):
    """Kendall's tau-b of two orders given as pairwise sign matrices (as :func:`kendall_tau`)."""
    upper = np.triu_indices(len(sa), k=1)
    sx, sy = sa[upper], sb[upper]
    both = sx * sy
    untied = float((both != 0).sum())
    t_a = float(((sx == 0) & (sy != 0)).sum())
    t_b = float(((sy == 0) & (sx != 0)).sum())
    denom = math.sqrt((untied + t_a) * (untied + t_b))
    if denom == 0.0:
        return math.nan
    return float(np.clip(float(both.sum()) / denom, -1.0, 1.0))


def _resampled_signs(counts, table, upper):
    r"""``sign(mean_i - mean_j)`` of every pair of systems on every resample: ``(b, P)``.

    A resample's sums are ``counts @ table.T`` (a query drawn twice counts
    twice); two systems tie when their sums differ by at most the tolerance
    of :func:`_order_signs` times the sum of their absolute scores.  The
    floating-point error of these sums is far below that tolerance
    (:func:`_tie_tolerance` grows with the number of queries), so the
    signs are those of the exact sums, ties included, without a loop over
    tied pairs.
    """
    scaled, _ = _scaled(table)
    sums = counts @ scaled.T
    bound = counts @ np.abs(scaled).T
    i, j = upper
    diff = sums[:, i] - sums[:, j]
    tol = _tie_tolerance(table.shape[1])
    return np.where(np.abs(diff) <= tol * (bound[:, i] + bound[:, j]), 0.0, np.sign(diff))


def _resampled_taus(x, y, n_resamples, seed):
    """Kendall's tau-b of the two orders of systems on each resample of the queries.

    The same draws as :func:`_resamples` (``default_rng(seed).integers(0, Q, (B, Q))``),
    each resample's means from the query counts by matrix products, and tau-b
    from the signs as :func:`_tau_from_signs` computes it.
    """
    n_systems, n_queries = x.shape
    upper = np.triu_indices(n_systems, k=1)
    rng = np.random.default_rng(seed)
    rows = max(1, RESAMPLE_BLOCK // max(n_queries, len(upper[0])))
    out = []
    for start in range(0, n_resamples, rows):
        b = min(rows, n_resamples - start)
        picks = rng.integers(0, n_queries, size=(b, n_queries))
        cells = picks + n_queries * np.arange(b)[:, None]
        counts = np.bincount(cells.ravel(), minlength=b * n_queries).reshape(b, n_queries)
        counts = counts.astype(np.float64)
        sx = _resampled_signs(counts, x, upper)
        sy = _resampled_signs(counts, y, upper)
        both = sx * sy
        untied = (both != 0).sum(axis=1)
        t_a = ((sx == 0) & (sy != 0)).sum(axis=1)
        t_b = ((sy == 0) & (sx != 0)).sum(axis=1)
        denom = np.sqrt((untied + t_a) * (untied + t_b).astype(np.float64))
        with np.errstate(invalid="ignore", divide="ignore"):
            tau = np.clip(both.sum(axis=1) / denom, -1.0, 1.0)
        out.append(np.where(denom == 0.0, np.nan, tau))
    return np.concatenate(out)


def _from_report(value, metric, name):
    """``{qid: score}`` of one metric from an ``evaluate`` report; other values as they are."""
    if not hasattr(value, "per_query"):
        return value
    if metric is None:
        raise ValueError(f"{name} holds evaluate() reports: pass metric= to say which "
                         "measure ranks the systems (e.g. metric='P@10')")
    per_query = value.per_query
    missing = [q for q, row in per_query.items() if metric not in row]
    if missing:
        raise ValueError(f"{name}: a report has no {metric!r} for query {missing[0]!r}")
    return {q: row[metric] for q, row in per_query.items()}


def _score_table(scores, name, metric=None):
    """``(systems, queries or None, matrix systems x queries)`` of per-query scores."""
    if not isinstance(scores, Mapping) or not scores:
        raise TypeError(f"{name} must be a non-empty dict of system -> per-query scores, "
                        f"got {repr(scores)[:80]}")
    scores = {s: _from_report(v, metric, f"{name}[{s!r}]") for s, v in scores.items()}
    systems = list(scores)
    first = scores[systems[0]]
    if isinstance(first, Mapping):
        queries = list(first)
        rows = []
        for s in systems:
            per_query = scores[s]
            if not isinstance(per_query, Mapping) or set(per_query) != set(queries):
                raise ValueError(f"{name}[{s!r}] must score the same queries as "
                                 f"{name}[{systems[0]!r}] ({len(queries)} queries)")
            rows.append([per_query[q] for q in queries])
    else:
        queries = None
        rows = [scores[s] for s in systems]
    table = []
    for s, row in zip(systems, rows):
        if isinstance(row, (str, bytes)) or not hasattr(row, "__len__"):
            raise TypeError(f"{name}[{s!r}] must be per-query scores, got {repr(row)[:80]}")
        try:
            values = np.asarray(row, dtype=np.float64)
        except OverflowError:          # an integer beyond a float's range (10**400)
            for q, v in enumerate(row):
                check_real(v, name=f"{name}[{s!r}]", where=f" (query {q})")
            raise
        if values.ndim != 1 or not np.all(np.isfinite(values)):
            raise ValueError(f"{name}[{s!r}] must be a flat sequence of finite scores, "
                             f"got {repr(row)[:80]}")
        table.append(values)
    lengths = {len(v) for v in table}
    if len(lengths) != 1:
        raise ValueError(f"every system of {name} must be scored on the same queries, got "
                         f"{sorted(lengths)} scores")
    if 0 in lengths:
        raise ValueError(f"{name} must score at least one query")
    return systems, queries, np.vstack(table)


@formerly_positional("metric", "confidence", "n_resamples", "seed")
def system_ranking_tau(scores_a, scores_b, *, metric=None, confidence=0.95, n_resamples=1000,
                       seed=0):
    r"""Kendall's tau between two rankings of the same systems, with an interval over queries.

    Each system :math:`s` has a score per query under two sets of labels,
    :math:`x_{sq}` (e.g. the assessors' qrels) and :math:`y_{sq}` (a judge's).
    The systems are ordered by their means :math:`\bar x_s` and
    :math:`\bar y_s`, and the two orders compared by Kendall's tau-b,

    .. math::

        \tau_b = \frac{P - Q}{\sqrt{(P + Q + T_a)(P + Q + T_b)}}

    over the pairs of systems (:math:`P` ordered alike, :math:`Q` swapped,
    :math:`T` tied in one order only). The interval resamples **queries**:
    draw as many queries as there are, with replacement, recompute every
    system's two means on them, then tau; repeat :math:`B` times and take the
    percentile interval. Systems are fixed (they are the ones compared);
    the queries are the sample.

    Parameters
    ----------
    scores_a, scores_b : dict of str to sequence of float, dict, or Report
        ``{system: per-query scores}``, the same systems in both. The
        per-query scores are either sequences in one query order (the same
        for every system and for both dicts), ``{query id: score}`` dicts
        over the same queries (aligned by id), or the reports of
        :func:`ragmetrics_edu.evaluate` (with ``metric=``).
    metric : str, optional
        The measure to read from reports (``"P@10"``, ``"ndcg_cut_10"``).
        Every report must score the same queries: a query that has no
        relevant document under a judge's labels, and that ``evaluate``
        leaves out, must be left out of the other reports too.
    confidence : float, default 0.95
    n_resamples : int, default 1000
    seed : int or None, default 0

    Returns
    -------
    RankingAgreement
        ``tau``, ``low``, ``high``, the means (for a scatter of one ranking
        against the other) and the swapped pairs of systems.

    See Also
    --------
    ragmetrics_edu.judge.kendall_tau, kappa_ci

    Notes
    -----
    ``tau`` equals ``scipy.stats.kendalltau`` of the systems' exact mean
    scores, with a stated tolerance: two systems **tie** when their sums of
    scores (one per query, the same queries) differ by at most
    ``TIE_TOLERANCE`` (1e-12) times the sum of their absolute scores (a
    larger tolerance, 16 (Q + 2) times the machine epsilon, with more than
    about 2800 queries). The sums are taken exactly (``math.fsum``). So
    scores that are decimals (0.1 + 0.5 and 0.3 + 0.3) tie as their
    decimal means do, whatever their binary rounding and the order of the
    additions; plain floating-point means would order
    ``(0.1 + 0.2 + 0.3) / 3`` above ``(0.3 + 0.2 + 0.1) / 3`` and count a
    pair of equal systems as concordant or swapped by accident. Means
    that truly differ by less than the tolerance are counted as tied.
    Every resample uses the same rule.
    A tau of 0.9 between two rankings is the usual threshold below which
    the two are taken to be different (Voorhees 2000); with ten systems one
    swapped pair already costs 0.04. Resamples where tau is undefined (all
    means tied under one set of labels) are left out and counted.

    References
    ----------
    E. M. Voorhees, "Variations in relevance judgments and the measurement
    of retrieval effectiveness", Information Processing & Management 36(5),
    2000. P. Thomas, S. Spielman, N. Craswell and B. Mitra, "Large language
    models can accurately predict searcher preferences", SIGIR 2024.

    Examples
    --------
    Three systems on four queries; the judge's labels swap the two weaker:

    >>> human = {"bm25": [0.6, 0.4, 0.8, 0.6], "dense": [0.4, 0.2, 0.4, 0.6],
    ...          "weak": [0.2, 0.4, 0.2, 0.4]}
    >>> judge = {"bm25": [0.8, 0.6, 0.8, 0.6], "dense": [0.4, 0.4, 0.4, 0.4],
    ...          "weak": [0.4, 0.6, 0.4, 0.6]}
    >>> r = system_ranking_tau(human, judge, n_resamples=200, seed=0)
    >>> r.discordant
    (('dense', 'weak'),)
    >>> round(r.tau, 4)     # 2 pairs alike, 1 swapped: (2 - 1) / 3
    0.3333
    """
    confidence, n_resamples, seed = check_bootstrap(confidence, n_resamples, seed)
    systems, queries_a, x = _score_table(scores_a, "scores_a", metric)
    systems_b, queries_b, y = _score_table(scores_b, "scores_b", metric)
    if set(systems_b) != set(systems):
        missing = sorted(set(systems) ^ set(systems_b), key=repr)
        raise ValueError(f"scores_a and scores_b must score the same systems; only in one: "
                         f"{repr(missing)[:80]}")
    order = [systems_b.index(s) for s in systems]
    y = y[order]
    if (queries_a is None) != (queries_b is None):
        raise TypeError("scores_a and scores_b must both give per-query scores as sequences, "
                        "or both as {query id: score} dicts")
    if queries_a is not None:
        if set(queries_a) != set(queries_b):
            raise ValueError("scores_a and scores_b must score the same queries")
        y = y[:, [queries_b.index(q) for q in queries_a]]
    elif x.shape[1] != y.shape[1]:
        raise ValueError(f"scores_a and scores_b must score the same queries, got "
                         f"{x.shape[1]} and {y.shape[1]} scores per system")
    if len(systems) < 2:
        raise ValueError(f"scores_a must hold at least 2 systems to rank, got {len(systems)}")
    mean_a, mean_b = _means(x), _means(y)
    sign_a, sign_b = _order_signs(x), _order_signs(y)
    tau = _tau_from_signs(sign_a, sign_b)
    discordant = tuple(
        (s, t) if sign_a[i, j] > 0 else (t, s)
        for i, s in enumerate(systems) for j, t in enumerate(systems)
        if i < j and sign_a[i, j] * sign_b[i, j] < 0
    )
    stats = _resampled_taus(x, y, n_resamples, seed)
    low, high, undefined = percentile_bounds(stats, confidence)
    return RankingAgreement(tuple(systems), tuple(float(v) for v in mean_a),
                            tuple(float(v) for v in mean_b), tau, low, high, discordant,
                            x.shape[1], confidence, n_resamples, undefined, seed)
