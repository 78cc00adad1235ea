r"""A graded relevance judge held against assessors: every agreement at once, with intervals.

Notebook 12 measures real judges (the 33 LLM judges of LLMJudge, on TREC's
scale 0-3) against NIST's assessors.  For one judge, :func:`grade_agreement`
reports

* **binary kappa** at the collection's relevance level (TREC DL: grades 2
  and 3 are relevant);
* **kappa over the grades**, unweighted, and with **linear** and
  **quadratic** weights (a 2 against a 3 costs less than a 0 against a 3);
* the **true-positive rate** (of the pairs the assessors call relevant, the
  share the judge calls relevant) and the **true-negative rate**, the two
  numbers a practitioner reads before trusting a yes/no judge;
* **leniency**: the judge's mean grade minus the assessors';
* **where it errs**: for each of the assessors' grades, the share of its
  pairs the judge calls relevant (the confusion matrix's rows, collapsed at
  the relevance level);

each with a percentile bootstrap interval.  The pairs of one query are not
independent (a judge that misreads a query misreads all its pairs), so the
intervals resample **queries** with all their pairs.

Every statistic is a function of one confusion matrix, so the bootstrap
works on tables, not on pairs: one table per query (:func:`confusion_by_group`),
and a resample is the sum of the tables of the queries drawn (a query drawn
twice counts twice), which is what resampling the pairs themselves gives,
without building any resample's list of pairs.

**Unmeasured replies.**  A judge's reply that is not a grade of the scale
(a call that failed, a reply the parser refused, a grade of 5 on a 0-3
scale) is not a grade: it is never read as 0 and never clipped.
``unmeasured="raise"`` (the default) refuses it, naming the pair;
``unmeasured="exclude"`` leaves it out of every statistic and reports it,
with its count, in the result.  The assessors' grades must all be on the
scale.

The point values are :func:`~ragmetrics_edu.judge.cohen_kappa` (equal to
``sklearn.metrics.cohen_kappa_score``); higher is better for kappa and the
two rates.  Plain NumPy.
"""

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .._deprecation import formerly_positional
from .._validation import check_bootstrap, check_choice, check_group_labels, describe
from ._bootstrap import bootstrap_method, group_counts, percentile_bounds
from .agreement import cohen_kappa, kappa_from_confusion, kappa_weights
from .assessors import AgreementInterval

__all__ = ["GradeAgreement", "Unmeasured", "auc_ci", "binary_confusion", "confusion_by_group",
           "grade_agreement", "kappa_difference_ci", "kappa_from_confusion", "unmeasured_replies"]

KAPPAS = ("binary", "graded", "linear", "quadratic")
"""The kappas :func:`grade_agreement` reports, by the name :func:`kappa_difference_ci` takes."""

UNMEASURED = ("raise", "exclude")

_MAX_CELLS = 4_000_000
"""Resamples are drawn in chunks of at most this many (resample, group) cells."""


@dataclass(frozen=True)
class Unmeasured:
    """A judge's reply that is not a grade of the scale.

    Attributes
    ----------
    pair : object
        The pair's id (``(qid, pid)``), or its position when none was given.
    value : object
        What the judge gave (``None`` for no reply).
    reason : str
        ``"no reply"``, ``"outside the scale"`` or ``"not a grade"``.
    """

    pair: object
    value: object
    reason: str

    def __str__(self):
        return f"pair {self.pair!r}: {self.reason} ({describe(self.value)})"


@dataclass(frozen=True)
class GradeAgreement:
    """A judge's agreement with the assessors, every statistic with its interval.

    Attributes
    ----------
    binary, graded, linear, quadratic : AgreementInterval
        Cohen's kappa at the relevance level, over the grades unweighted,
        with linear and with quadratic weights.
    tpr, tnr : AgreementInterval
        True-positive and true-negative rates of the binary judge
        (grade >= ``relevance_level``) against the assessors'.
    leniency : AgreementInterval
        The judge's mean grade minus the assessors' (positive: lenient).
    by_grade : tuple of AgreementInterval
        One per grade of the scale: of the pairs the assessors gave that
        grade, the share the judge calls relevant (grade >=
        ``relevance_level``); its ``n`` is the number of such pairs.  The
        rows of the confusion matrix collapsed at the level: where the judge
        errs.
    judge_mean, human_mean : float
        Mean grades on the measured pairs.
    judge_relevant, human_relevant : float
        Share of the measured pairs at or above the relevance level.
    confusion : numpy.ndarray
        Rows the assessors' grade, columns the judge's, over the measured pairs.
    n : int
        Pairs measured.
    unmeasured : tuple of Unmeasured
        The replies left out (``unmeasured="exclude"``); empty otherwise.
    scale : tuple
    relevance_level : int
    n_groups : int
        Queries (or pairs, without groups) the intervals resample.
    confidence, n_resamples, seed
        How the intervals were made.
    """

    binary: AgreementInterval
    graded: AgreementInterval
    linear: AgreementInterval
    quadratic: AgreementInterval
    tpr: AgreementInterval
    tnr: AgreementInterval
    leniency: AgreementInterval
    by_grade: tuple
    judge_mean: float
    human_mean: float
    judge_relevant: float
    human_relevant: float
    confusion: np.ndarray
    n: int
    unmeasured: tuple
    scale: tuple
    relevance_level: int
    n_groups: int
    confidence: float
    n_resamples: int
    seed: object

    def __str__(self):
        unit = "queries" if self.binary.unit == "groups" else "pairs"
        level = f"grade >= {self.relevance_level}"
        lines = [f"{self.n} pairs measured, {len(self.unmeasured)} unmeasured"
                 + (f" ({_reasons(self.unmeasured)})" if self.unmeasured else "")]
        for label, s in ((f"binary kappa ({level})", self.binary),
                         (f"kappa, {len(self.scale)} grades", self.graded),
                         ("kappa, linear weights", self.linear),
                         ("kappa, quadratic weights", self.quadratic),
                         (f"true-positive rate ({level})", self.tpr),
                         ("true-negative rate", self.tnr),
                         ("leniency (mean grade, judge - assessors)", self.leniency),
                         *((f"called relevant, of the assessors' {grade}s", s)
                           for grade, s in zip(self.scale, self.by_grade))):
            lines.append(f"  {label:<42}{s.value:+.4f} [{s.low:+.4f}, {s.high:+.4f}]")
        lines.append(f"  mean grade: judge {self.judge_mean:.3f}, assessors {self.human_mean:.3f};"
                     f" share relevant: judge {self.judge_relevant:.3f}, assessors "
                     f"{self.human_relevant:.3f}")
        lines.append(f"  ({bootstrap_method(self.confidence, f'{self.n_groups} {unit}', self.n_resamples)},"
                     f" seed={self.seed})")
        return "\n".join(lines)


def _reasons(unmeasured):
    counts = {}
    for u in unmeasured:
        counts[u.reason] = counts.get(u.reason, 0) + 1
    return ", ".join(f"{n} {reason}" for reason, n in counts.items())


# ----------------------------------------------------------------- inputs

_MISSING = object()


def _check_scale(scale):
    if isinstance(scale, (str, bytes)) or not hasattr(scale, "__iter__"):
        raise TypeError(f"scale must be a sequence of whole-number grades, got {scale!r}")
    scale = tuple(scale)
    if len(scale) < 2 or any(isinstance(g, bool) or not isinstance(g, numbers.Integral)
                             for g in scale):
        raise ValueError(f"scale must hold at least 2 whole-number grades, got {scale!r}")
    if list(scale) != sorted(set(scale)):
        raise ValueError(f"scale must be increasing, each grade once, got {scale!r}")
    return tuple(int(g) for g in scale)


def _check_level(level, scale):
    if isinstance(level, bool) or not isinstance(level, numbers.Integral) or level not in scale \
            or level == scale[0]:
        raise ValueError(f"relevance_level must be a grade of the scale {scale} above its lowest "
                         f"(the lowest grade counted relevant), got {level!r}")
    return int(level)


def _is_grade(x, scale):
    return (not isinstance(x, bool) and isinstance(x, numbers.Integral) and int(x) in scale)


def _flatten(human, judge, groups):
    """``(human, judge, pairs, groups)`` as lists, from two nested qrels or two sequences."""
    if isinstance(human, Mapping) or isinstance(judge, Mapping):
        if not (isinstance(human, Mapping) and isinstance(judge, Mapping)):
            raise TypeError("human and judge must both be {qid: {pid: grade}} mappings, or both "
                            "sequences of grades")
        if groups is not None:
            raise ValueError("groups= is for sequences of grades: with {qid: {pid: grade}} "
                             "mappings the intervals resample the queries")
        pairs, h, j = [], [], []
        for qid, docs in human.items():
            if not isinstance(docs, Mapping):
                raise TypeError(f"human[{qid!r}] must be a {{pid: grade}} mapping, got "
                                f"{repr(docs)[:80]}")
            judged = judge.get(qid, {})
            if not isinstance(judged, Mapping):
                raise TypeError(f"judge[{qid!r}] must be a {{pid: grade}} mapping, got "
                                f"{repr(judged)[:80]}")
            for pid, grade in docs.items():
                pairs.append((qid, pid))
                h.append(grade)
                j.append(judged.get(pid, _MISSING))
        if not pairs:
            raise ValueError("human must grade at least one pair")
        return h, j, pairs, [q for q, _ in pairs]
    for x, name in ((human, "human"), (judge, "judge")):
        if isinstance(x, (str, bytes)) or not hasattr(x, "__len__"):
            raise TypeError(f"{name} must be a sequence of grades or a {{qid: {{pid: grade}}}} "
                            f"mapping, got {repr(x)[:80]}")
    h, j = list(human), list(judge)
    if len(h) != len(j):
        raise ValueError(f"human and judge must grade the same pairs, got {len(h)} and {len(j)} "
                         "grades")
    if not h:
        raise ValueError("human and judge must not be empty")
    if groups is not None:
        groups = check_group_labels(groups, len(h), per="pair")
    return h, j, None, groups


def unmeasured_replies(judge, scale=(0, 1, 2, 3), *, pairs=None):
    """The replies of a judge that are not grades of ``scale``, each with its reason.

    Parameters
    ----------
    judge : sequence or mapping
        The judge's grades, one per pair (``None`` where no reply came), or
        ``{qid: {pid: grade}}``.
    scale : sequence of int, default (0, 1, 2, 3)
    pairs : sequence, optional
        The pairs' ids, for the report (default their positions); with a
        mapping, the ``(qid, pid)`` pairs it holds.

    Returns
    -------
    list of Unmeasured

    Examples
    --------
    >>> for u in unmeasured_replies([0, 3, 5, None, 2.5]):
    ...     print(u.pair, u.value, u.reason)
    2 5 outside the scale
    3 None no reply
    4 2.5 not a grade
    """
    scale = _check_scale(scale)
    if isinstance(judge, Mapping):
        pairs = [(q, p) for q, docs in judge.items() for p in docs]
        values = [judge[q][p] for q, p in pairs]
    else:
        values = list(judge)
        if pairs is not None:
            pairs = list(pairs)
            if len(pairs) != len(values):
                raise ValueError(f"pairs must name each of the {len(values)} replies, got "
                                 f"{len(pairs)}")
    return [u for u in (_classify(v, i if pairs is None else pairs[i], scale)
                        for i, v in enumerate(values)) if u is not None]


def _classify(value, pair, scale):
    if _is_grade(value, scale):
        return None
    if value is None or value is _MISSING:
        return Unmeasured(pair, None, "no reply")
    if isinstance(value, numbers.Real) and not isinstance(value, bool) \
            and float(value).is_integer():
        return Unmeasured(pair, value, "outside the scale")
    return Unmeasured(pair, value, "not a grade")


def _prepare(human, judges, scale, groups, unmeasured, pairs_given=None):
    """Codes of the measured pairs: ``(h_codes, [j_codes], group_codes, n_groups, unmeasured)``."""
    check_choice(unmeasured, UNMEASURED, name="unmeasured")
    flat = [_flatten(human, j, groups) for j in judges]
    h, _, pairs, groups = flat[0]
    if pairs is None:
        pairs = list(range(len(h))) if pairs_given is None else list(pairs_given)
    index = {g: i for i, g in enumerate(scale)}
    for pair, grade in zip(pairs, h):
        if not _is_grade(grade, scale):
            raise ValueError(f"the assessors' grade of pair {pair!r} is {grade!r}, not a grade of "
                             f"the scale {scale}")
    keep = np.ones(len(h), dtype=bool)
    found = []
    for _, j, _, _ in flat:
        for i, value in enumerate(j):
            u = _classify(value, pairs[i], scale)
            if u is not None:
                keep[i] = False
                found.append(u)
    if found and unmeasured == "raise":
        u = found[0]
        shown = "no grade" if u.value is None else f"{u.value!r}"
        raise ValueError(f"the judge's reply for pair {u.pair!r} is {shown} ({u.reason}; "
                         f"{len(found)} such repl{'y' if len(found) == 1 else 'ies'} in all): "
                         f"pass unmeasured='exclude' to leave them out and count them; never "
                         f"read them as 0")
    if not keep.any():
        raise ValueError("no pair has a grade of the scale from the judge: nothing to measure")
    h_codes = np.array([index[int(g)] for g, k in zip(h, keep) if k], dtype=np.int64)
    j_codes = [np.array([index[int(g)] for g, k in zip(j, keep) if k], dtype=np.int64)
               for _, j, _, _ in flat]
    if groups is None:
        group_codes = np.arange(int(keep.sum()), dtype=np.int64)
    else:
        labels = {}
        codes = [labels.setdefault(g, len(labels)) for g in groups]
        group_codes = np.array([c for c, k in zip(codes, keep) if k], dtype=np.int64)
        # renumber so that a group whose pairs are all unmeasured does not count
        _, group_codes = np.unique(group_codes, return_inverse=True)
        group_codes = group_codes.astype(np.int64)
    n_groups = int(group_codes.max()) + 1
    if groups is not None and n_groups < 2:
        raise ValueError(f"groups must hold at least 2 distinct groups to resample, got {n_groups}")
    return h_codes, j_codes, group_codes, n_groups, tuple(found), groups is not None


# ----------------------------------------------------------------- tables and kappa

@formerly_positional("n_labels")
def confusion_by_group(human_codes, judge_codes, group_codes, *, n_labels):
    """One confusion matrix per group: ``tables[g, i, j]`` counts group g's pairs graded (i, j).

    Parameters
    ----------
    human_codes, judge_codes : array of int
        Each pair's grade as its position on the scale (0 .. n_labels - 1).
    group_codes : array of int
        Each pair's group, 0 .. G - 1.
    n_labels : int

    Returns
    -------
    numpy.ndarray
        ``(G, n_labels, n_labels)`` int64; summed over groups, the confusion
        matrix of :func:`~ragmetrics_edu.judge.confusion_matrix`.

    Examples
    --------
    >>> t = confusion_by_group([0, 1, 1], [0, 1, 0], [0, 0, 1], n_labels=2)
    >>> t[0].tolist(), t[1].tolist()
    ([[1, 0], [0, 1]], [[0, 0], [1, 0]])
    """
    h = np.asarray(human_codes, dtype=np.int64)
    j = np.asarray(judge_codes, dtype=np.int64)
    g = np.asarray(group_codes, dtype=np.int64)
    n_groups = int(g.max()) + 1 if g.size else 0
    cells = (g * n_labels + h) * n_labels + j
    counts = np.bincount(cells, minlength=n_groups * n_labels * n_labels)
    return counts.reshape(n_groups, n_labels, n_labels)


def binary_confusion(table, level_index):
    """Collapse confusion matrices to 2 x 2 at a threshold: positions >= ``level_index`` are 1.

    Works on one table or on a stack (``(..., K, K)``).

    Parameters
    ----------
    table : array_like of int, shape (..., K, K)
        Confusion matrices over the K grades of a scale, in the scale's order.
    level_index : int
        The position in the scale of the lowest grade counted relevant.

    Examples
    --------
    >>> # rows and columns 0-1 against 2: [[5+1+2+3, 0+1], [0+1, 4]]
    >>> binary_confusion(np.array([[5, 1, 0], [2, 3, 1], [0, 1, 4]]), 2).tolist()
    [[11, 1], [1, 4]]
    """
    t = np.asarray(table)
    low, high = slice(None, level_index), slice(level_index, None)
    out = np.empty(t.shape[:-2] + (2, 2), dtype=t.dtype)
    out[..., 0, 0] = t[..., low, low].sum(axis=(-1, -2))
    out[..., 0, 1] = t[..., low, high].sum(axis=(-1, -2))
    out[..., 1, 0] = t[..., high, low].sum(axis=(-1, -2))
    out[..., 1, 1] = t[..., high, high].sum(axis=(-1, -2))
    return out


def _rates(binary):
    with np.errstate(invalid="ignore", divide="ignore"):
        tpr = binary[..., 1, 1] / binary[..., 1, :].sum(axis=-1)
        tnr = binary[..., 0, 0] / binary[..., 0, :].sum(axis=-1)
    return tpr, tnr


def _means(tables, scale):
    s = np.asarray(scale, dtype=np.float64)
    n = tables.sum(axis=(-1, -2))
    with np.errstate(invalid="ignore", divide="ignore"):
        human = (tables.sum(axis=-1) * s).sum(axis=-1) / n
        judge = (tables.sum(axis=-2) * s).sum(axis=-1) / n
    return judge, human


def _resampled_tables(tables_list, n_resamples, seed):
    """Yield, chunk by chunk, each judge's resampled tables ``(b, K, K)`` on the same draws.

    A resample sums the tables of the groups drawn (:func:`~._bootstrap.group_counts`).
    """
    n_groups, k = tables_list[0].shape[0], tables_list[0].shape[1]
    flat = [t.reshape(n_groups, k * k).astype(np.float64) for t in tables_list]
    for counts in group_counts(n_groups, n_resamples, seed, width=k * k * len(flat),
                               max_cells=_MAX_CELLS):
        yield [(counts @ f).reshape(len(counts), k, k) for f in flat]


def _linear_maps(scale, level_index):
    """The ``(K*K, M)`` matrix whose columns are the sums :func:`_flat_statistics` needs.

    Columns: the K row totals, the K column totals, the weighted disagreement
    (unweighted, linear, quadratic), the four cells of the 2 x 2 collapse at
    the relevance level (00, 01, 10, 11), and for each row the pairs the judge
    calls relevant.
    """
    k = len(scale)
    i, j = np.divmod(np.arange(k * k), k)          # cell (i, j) of the flattened table
    to_rows = (i[:, None] == np.arange(k)).astype(np.float64)
    to_cols = (j[:, None] == np.arange(k)).astype(np.float64)
    weights = [kappa_weights(k, w).reshape(k * k, 1) for w in (None, "linear", "quadratic")]
    h_rel, j_rel = i >= level_index, j >= level_index
    cells = [((h_rel == x) & (j_rel == y)).astype(np.float64)[:, None]
             for x in (False, True) for y in (False, True)]
    said = to_rows * j_rel[:, None]
    return np.hstack([to_rows, to_cols, *weights, *cells, said])


def _flat_statistics(flat, scale, level_index):
    """Every statistic of :func:`grade_agreement` for a stack of flattened tables ``(b, K*K)``.

    Each is a linear map of the K*K counts (row and column totals, the 2 x 2
    collapse, weighted sums: one matrix product, :func:`_linear_maps`) followed
    by a few products and divisions, so a hundred thousand resampled tables
    take no loop.  Returns a dict of ``(b,)`` arrays (``"by_grade"``:
    ``(b, K)``), ``nan`` where undefined.
    """
    k = len(scale)
    sums = flat @ _linear_maps(scale, level_index)
    rows, cols = sums[:, :k], sums[:, k:2 * k]
    observed = sums[:, 2 * k:2 * k + 3]
    b00, b01, b10, b11 = (sums[:, 2 * k + 3 + c] for c in range(4))
    said = sums[:, 2 * k + 7:]
    n = rows.sum(axis=1)
    out = {}
    with np.errstate(invalid="ignore", divide="ignore"):
        for c, (name, weights) in enumerate((("graded", None), ("linear", "linear"),
                                             ("quadratic", "quadratic"))):
            expected = ((rows @ kappa_weights(k, weights)) * cols).sum(axis=1) / n
            out[name] = np.where(expected == 0.0, np.nan, 1.0 - observed[:, c] / expected)
        h1, j1 = b10 + b11, b01 + b11
        h0, j0 = n - h1, n - j1
        expected = (h0 * j1 + h1 * j0) / n            # expected disagreement of the 2 x 2
        out["binary"] = np.where(expected == 0.0, np.nan, 1.0 - (b01 + b10) / expected)
        out["tpr"] = b11 / h1
        out["tnr"] = b00 / h0
        s = np.asarray(scale, dtype=np.float64)
        out["leniency"] = (cols @ s - rows @ s) / n
        out["by_grade"] = said / rows
    return out


def _interval(name, value, stats, n, confidence, n_resamples, grouped, seed):
    low, high, undefined = percentile_bounds(np.asarray(stats, dtype=np.float64), confidence)
    return AgreementInterval(name, float(value), low, high, n, confidence, n_resamples,
                             undefined, "groups" if grouped else "pairs", seed)


# ----------------------------------------------------------------- public

def grade_agreement(human, judge, *, scale=(0, 1, 2, 3), relevance_level=2, groups=None,
                    pairs=None, unmeasured="raise", confidence=0.95, n_resamples=1000, seed=0):
    r"""A graded judge against the assessors: four kappas, two rates and leniency, with intervals.

    With :math:`O` the confusion matrix (rows the assessors' grade, columns
    the judge's) and :math:`B` its 2 x 2 collapse at the relevance level
    :math:`\ell` (grade :math:`\ge \ell` is relevant):

    * kappa (binary) of :math:`B`; kappa of :math:`O` unweighted, linear and
      quadratic (:func:`kappa_from_confusion`);
    * :math:`\mathrm{TPR} = B_{11} / (B_{10} + B_{11})`,
      :math:`\mathrm{TNR} = B_{00} / (B_{00} + B_{01})`;
    * leniency :math:`\bar g_{\text{judge}} - \bar g_{\text{assessors}}`;
    * for each grade :math:`i`, :math:`\sum_{j \ge \ell} O_{ij} / \sum_j O_{ij}`
      (``by_grade``).

    The intervals are percentile bootstrap intervals: draw as many groups
    (queries) as there are, with replacement, keeping all their pairs
    (:func:`confusion_by_group` and a sum of tables), recompute every
    statistic on the same draw, repeat ``n_resamples`` times.

    Parameters
    ----------
    human, judge : sequence of int, or mapping
        The assessors' and the judge's grades of the same pairs, as two
        sequences (then ``groups=`` names each pair's query), or as two
        ``{qid: {pid: grade}}`` mappings (then every pair of ``human`` is
        measured, a pair the judge did not grade is a reply missing, and the
        intervals resample the queries).
    scale : sequence of int, default (0, 1, 2, 3)
        The grades, worst to best.  The weights use each grade's position.
    relevance_level : int, default 2
        The lowest grade counted relevant for the binary kappa and the rates
        (TREC DL: 2; trec_eval ``-l``).
    groups : sequence, optional
        With sequences: one label per pair (its query); whole groups are
        resampled.  Default: pairs are resampled one by one.
    pairs : sequence, optional
        With sequences: the pairs' ids, named in messages and in
        ``unmeasured``.  Default: their positions.
    unmeasured : {"raise", "exclude"}, default "raise"
        What to do with a judge's reply that is not a grade of ``scale``
        (``None``, a missing pair, 5 on a 0-3 scale, 2.5): refuse it, naming
        the pair, or leave the pair out of every statistic and list it in
        the result's ``unmeasured``.  Never read as 0, never clipped.
    confidence : float, default 0.95
    n_resamples : int, default 1000
    seed : int or None, default 0

    Returns
    -------
    GradeAgreement

    Raises
    ------
    ValueError
        An assessors' grade off the scale, or (``unmeasured="raise"``) a
        judge's reply off the scale; the message names the pair.

    See Also
    --------
    ragmetrics_edu.kappa_ci : one kappa with its interval, resampling pairs or groups.
    kappa_difference_ci : two judges compared on the same draws.

    Notes
    -----
    Each kappa equals ``sklearn.metrics.cohen_kappa_score`` on the measured
    pairs (``labels=scale``, and ``weights=``), the binary one on the
    grades thresholded at ``relevance_level``.  The intervals resample with
    ``numpy.random.default_rng(seed).integers(0, G, size=(B, G))`` (in
    chunks for large G): groups are numbered in order of first appearance.
    A resample where a statistic is undefined (no relevant pair drawn, for
    the true-positive rate) is left out of its interval and counted in its
    ``n_undefined``.

    Examples
    --------
    Four queries, three pairs each, a judge one grade too lenient on three pairs:

    >>> human = [0, 1, 2, 3, 0, 1, 2, 3, 0, 0, 3, 2]
    >>> judge = [0, 2, 2, 3, 1, 1, 2, 3, 0, 1, 3, 2]
    >>> queries = ["a"] * 3 + ["b"] * 3 + ["c"] * 3 + ["d"] * 3
    >>> r = grade_agreement(human, judge, groups=queries, n_resamples=200)
    >>> r.n, len(r.unmeasured)
    (12, 0)
    >>> # binary at >= 2: B = [[5, 1], [0, 6]]; p_o = 11/12, p_e = (6*5 + 6*7)/144 = 0.5
    >>> round(r.binary.value, 4)   # (11/12 - 1/2) / (1/2)
    0.8333
    >>> round(r.tpr.value, 4), round(r.tnr.value, 4)   # 6 of 6 relevant, 5 of 6 not
    (1.0, 0.8333)
    >>> round(r.leniency.value, 4)   # three grades one higher over 12 pairs
    0.25
    >>> grade_agreement([0, 1, 2], [0, 5, 2])
    Traceback (most recent call last):
    ...
    ValueError: the judge's reply for pair 1 is 5 (outside the scale; 1 such reply in all): pass unmeasured='exclude' to leave them out and count them; never read them as 0
    """
    scale = _check_scale(scale)
    relevance_level = _check_level(relevance_level, scale)
    confidence, n_resamples, seed = check_bootstrap(confidence, n_resamples, seed)
    h, (j,), g, n_groups, found, grouped = _prepare(human, [judge], scale, groups, unmeasured,
                                                    pairs)
    level_index = scale.index(relevance_level)
    full = confusion_by_group(h, j, np.zeros_like(h), n_labels=len(scale))[0]
    human_bin = (h >= level_index).astype(int)
    judge_bin = (j >= level_index).astype(int)
    values = {
        "binary": cohen_kappa(human_bin, judge_bin, labels=[0, 1]),
        "graded": cohen_kappa(h, j, labels=range(len(scale))),
        "linear": cohen_kappa(h, j, weights="linear", labels=range(len(scale))),
        "quadratic": cohen_kappa(h, j, weights="quadratic", labels=range(len(scale))),
    }
    tpr, tnr = _rates(binary_confusion(full, level_index))
    judge_mean, human_mean = _means(full, scale)
    values.update(tpr=tpr, tnr=tnr, leniency=judge_mean - human_mean)

    k = len(scale)
    rows = full.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        by_grade = full[:, level_index:].sum(axis=1) / rows

    flat = confusion_by_group(h, j, g, n_labels=k).reshape(-1, k * k).astype(np.float64)
    chunks = [_flat_statistics(counts @ flat, scale, level_index)
              for counts in group_counts(len(flat), n_resamples, seed, width=3 * k * k,
                                         max_cells=_MAX_CELLS)]
    stats = {name: np.concatenate([c[name] for c in chunks]) for name in chunks[0]}
    names = {
        "binary": f"Cohen's kappa (binary, grade >= {relevance_level})",
        "graded": f"Cohen's kappa ({k} grades)",
        "linear": "Cohen's kappa (linear weights)",
        "quadratic": "Cohen's kappa (quadratic weights)",
        "tpr": f"true-positive rate (grade >= {relevance_level})",
        "tnr": f"true-negative rate (grade < {relevance_level})",
        "leniency": "mean grade, judge minus assessors",
    }
    n = len(h)
    out = {name: _interval(names[name], values[name], stats[name], n,
                           confidence, n_resamples, grouped, seed) for name in values}
    out["by_grade"] = tuple(
        _interval(f"share called relevant (grade >= {relevance_level}) of the assessors' "
                  f"grade {grade}", by_grade[i], stats["by_grade"][:, i], int(rows[i]),
                  confidence, n_resamples, grouped, seed)
        for i, grade in enumerate(scale))
    return GradeAgreement(**out, judge_mean=float(judge_mean), human_mean=float(human_mean),
                          judge_relevant=float(judge_bin.mean()),
                          human_relevant=float(human_bin.mean()), confusion=full, n=n,
                          unmeasured=found, scale=scale, relevance_level=relevance_level,
                          n_groups=n_groups, confidence=confidence, n_resamples=n_resamples,
                          seed=seed)


def kappa_difference_ci(human, judge_a, judge_b, *, kappa="binary", scale=(0, 1, 2, 3),
                        relevance_level=2, groups=None, pairs=None, unmeasured="raise",
                        confidence=0.95, n_resamples=1000, seed=0):
    r"""Kappa of judge a minus kappa of judge b, with a paired interval (the same draws).

    Two judges graded the same pairs; is one better?  Their two intervals
    overlap easily even when one is better on almost every resample.  The
    paired interval draws the queries once per resample and computes both
    kappas on that draw, so what the two judges share (hard queries, easy
    ones) cancels out of the difference.

    Parameters
    ----------
    human, judge_a, judge_b
        As ``human`` and ``judge`` of :func:`grade_agreement` (all three
        sequences, or all three mappings).
    kappa : {"binary", "graded", "linear", "quadratic"}, default "binary"
    scale, relevance_level, groups, pairs, unmeasured, confidence, n_resamples, seed
        As in :func:`grade_agreement`; a pair unmeasured by either judge is
        left out for both (``unmeasured="exclude"``).

    Returns
    -------
    AgreementInterval
        The difference, a minus b, and its interval.

    Examples
    --------
    >>> human = [0, 0, 1, 1, 0, 1, 0, 1]
    >>> a = [0, 0, 1, 1, 0, 1, 1, 1]    # one error
    >>> b = [0, 1, 1, 0, 0, 1, 1, 1]    # three errors
    >>> d = kappa_difference_ci(human, a, b, scale=(0, 1), relevance_level=1, n_resamples=200)
    >>> # a: p_o 7/8, p_e 1/2 -> 0.75; b: p_o 5/8, p_e (4*3 + 4*5)/64 = 1/2 -> 0.25
    >>> round(d.value, 4)
    0.5
    """
    check_choice(kappa, KAPPAS, name="kappa")
    scale = _check_scale(scale)
    relevance_level = _check_level(relevance_level, scale)
    confidence, n_resamples, seed = check_bootstrap(confidence, n_resamples, seed)
    h, (a, b), g, _, _, grouped = _prepare(human, [judge_a, judge_b], scale, groups, unmeasured,
                                           pairs)
    level_index = scale.index(relevance_level)

    def statistic(tables):
        if kappa == "binary":
            return kappa_from_confusion(binary_confusion(tables, level_index))
        return kappa_from_confusion(tables, None if kappa == "graded" else kappa)

    zeros = np.zeros_like(h)
    full_a = confusion_by_group(h, a, zeros, n_labels=len(scale))[0]
    full_b = confusion_by_group(h, b, zeros, n_labels=len(scale))[0]
    value = statistic(full_a) - statistic(full_b)
    diffs = []
    for ra, rb in _resampled_tables([confusion_by_group(h, a, g, n_labels=len(scale)),
                                     confusion_by_group(h, b, g, n_labels=len(scale))], n_resamples, seed):
        diffs.append(statistic(ra) - statistic(rb))
    name = f"Cohen's kappa ({kappa}), a minus b"
    return _interval(name, value, np.concatenate(diffs), len(h), confidence, n_resamples,
                     grouped, seed)


_MAX_AUC_GROUPS = 2000


def auc_ci(labels, scores, *, groups=None, confidence=0.95, n_resamples=1000, seed=0):
    r"""Area under the ROC curve of a judge's scores against binary labels, with an interval.

    The AUC is the chance that a relevant pair (label 1) gets a higher score
    than a non-relevant one (label 0), ties counting one half:

    .. math::

        \mathrm{AUC} = \frac{1}{PN} \sum_{i: y_i = 1} \sum_{j: y_j = 0}
        \Bigl([s_i > s_j] + \tfrac12 [s_i = s_j]\Bigr)

    It needs no threshold: it asks whether the judge's score *orders* the
    pairs as the labels do.  0.5 is chance, 1 a perfect order.  The interval
    resamples the groups (queries) as :func:`grade_agreement` does; a
    resample's AUC weighs each pair by how many times its group was drawn.

    Parameters
    ----------
    labels : sequence of {0, 1}
    scores : sequence of float
        The judge's score of each pair (a cosine, P(yes), an expected grade).
    groups : sequence, optional
        One label per pair (its query).  Without it pairs are resampled one
        by one (at most 2,000 of them).
    confidence, n_resamples, seed
        As in :func:`grade_agreement`.

    Returns
    -------
    AgreementInterval

    Notes
    -----
    Equal to ``sklearn.metrics.roc_auc_score(labels, scores)`` (the
    Mann-Whitney form).  The interval uses one ``G x G`` table: entry
    :math:`(g, h)` sums the comparisons of group :math:`g`'s relevant pairs
    with group :math:`h`'s non-relevant ones, and a resample drawing the
    groups :math:`c_g` times has AUC :math:`c^\top A c / ((c \cdot P)(c \cdot N))`.

    Examples
    --------
    >>> # relevant pairs score 0.9 and 0.4, non-relevant 0.5, 0.2 and 0.4
    >>> r = auc_ci([1, 1, 0, 0, 0], [0.9, 0.4, 0.5, 0.2, 0.4], n_resamples=100)
    >>> round(r.value, 4)   # (3 + (1 + 0.5)) / 6: 0.9 beats all three; 0.4 beats 0.2, ties 0.4
    0.75
    """
    confidence, n_resamples, seed = check_bootstrap(confidence, n_resamples, seed)
    for x, name in ((labels, "labels"), (scores, "scores")):
        if isinstance(x, (str, bytes)) or not hasattr(x, "__len__"):
            raise TypeError(f"{name} must be a sequence, got {repr(x)[:80]}")
    y = list(labels)
    if any(v not in (0, 1) or isinstance(v, float) and not float(v).is_integer() for v in y):
        bad = next(v for v in y if v not in (0, 1))
        raise ValueError(f"labels must be 0 or 1 (1 = relevant), got {bad!r}")
    y = np.asarray(y, dtype=np.int64)
    s = np.asarray(list(scores), dtype=np.float64)
    if len(s) != len(y):
        raise ValueError(f"labels and scores must cover the same pairs, got {len(y)} and {len(s)}")
    if not np.all(np.isfinite(s)):
        raise ValueError("scores must be finite numbers")
    if not (y == 1).any() or not (y == 0).any():
        raise ValueError("labels must hold both relevant (1) and non-relevant (0) pairs")
    if groups is None:
        if len(y) > _MAX_AUC_GROUPS:
            raise ValueError(f"without groups= the interval resamples pairs one by one, at most "
                             f"{_MAX_AUC_GROUPS} of them; got {len(y)}: pass groups= (the queries)")
        g = np.arange(len(y))
    else:
        if isinstance(groups, (str, bytes)) or not hasattr(groups, "__len__") \
                or len(groups) != len(y):
            raise ValueError(f"groups must give one label per pair ({len(y)})")
        codes = {}
        g = np.array([codes.setdefault(x, len(codes)) for x in groups], dtype=np.int64)
        if len(codes) < 2:
            raise ValueError(f"groups must hold at least 2 distinct groups to resample, got "
                             f"{len(codes)}")
    n_groups = int(g.max()) + 1
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    table = np.zeros((n_groups, n_groups))
    for start in range(0, len(pos), 256):
        p = pos[start:start + 256]
        wins = (s[p][:, None] > s[neg][None, :]) + 0.5 * (s[p][:, None] == s[neg][None, :])
        per_neg_group = np.zeros((len(p), n_groups))
        np.add.at(per_neg_group.T, g[neg], wins.T)
        np.add.at(table, g[p], per_neg_group)
    n_pos = np.bincount(g[pos], minlength=n_groups).astype(np.float64)
    n_neg = np.bincount(g[neg], minlength=n_groups).astype(np.float64)
    ones = np.ones(n_groups)
    value = float(ones @ table @ ones / (n_pos.sum() * n_neg.sum()))
    stats = []
    for c in group_counts(n_groups, n_resamples, seed, max_cells=_MAX_CELLS):
        with np.errstate(invalid="ignore", divide="ignore"):
            stats.append(np.einsum("bg,gh,bh->b", c, table, c) / ((c @ n_pos) * (c @ n_neg)))
    return _interval("AUC", value, np.concatenate(stats), len(y), confidence, n_resamples,
                     groups is not None, seed)
