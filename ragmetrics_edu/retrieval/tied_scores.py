"""scikit-learn's tied scores: a measure averaged over every order of a tie.

The readable functions take ``scores=`` (the ranked documents' scores, best
first) and then give tied documents no order: a ranking's scores split it
into tie groups, and each measure is computed on the groups instead of an
order of the documents (McSherry and Najork 2008), as scikit-learn's
``ndcg_score`` (``ignore_ties=False``, its ``_tie_averaged_dcg``) and
``average_precision_score`` do.  This module holds that arithmetic, one
helper per measure, which :func:`~ragmetrics_edu.retrieval.order_unaware.precision_at_k`,
:func:`~ragmetrics_edu.retrieval.order_aware.average_precision`,
:func:`~ragmetrics_edu.retrieval.graded.dcg_at_k` and the others call when
``scores`` is given; the ``ties="average"`` conventions of
:class:`~ragmetrics_edu.retrieval.conventions.Conventions` pass it.  The
tests compare them with scikit-learn and with the mean over every order of
a tie.
"""

import math
import numbers

from .._deprecation import formerly_positional

__all__ = ["check_tie_scores", "expected_hits", "thresholded_average_precision",
           "tie_averaged_reciprocal_rank", "tie_averaged_hit_rate", "tie_averaged_dcg"]


def check_tie_scores(scores, n):
    """``scores`` as a list of ``n`` floats in rank order (non-increasing), or raise.

    Parameters
    ----------
    scores : sequence of numbers
        The ranked documents' scores, in rank order (non-increasing); not a
        string, not a bool, not NaN.
    n : int
        The number of ranked documents, which ``scores`` must have.
    """
    if isinstance(scores, (str, bytes)) or not hasattr(scores, "__len__"):
        raise TypeError(f"scores must be a sequence of numbers in rank order, got {scores!r}")
    values = list(scores)
    if len(values) != n:
        raise ValueError(f"scores must have one score per ranked document ({n}), "
                         f"got {len(values)}")
    for i, s in enumerate(values):
        if isinstance(s, bool) or not isinstance(s, numbers.Real) or math.isnan(s):
            raise TypeError(f"scores must be numbers, got {s!r} at rank {i + 1}")
        if i and s > values[i - 1]:
            raise ValueError(f"scores must be in rank order, best first: {s!r} at rank "
                             f"{i + 1} is above {values[i - 1]!r} at rank {i}")
    return [float(s) for s in values]


def _tie_windows(scores, k):
    """``(start, size, inside)`` of each tie group, best first: where it starts, its
    length, and how many of its places are in the top ``k`` (``k=None``: all)."""
    cutoff = len(scores) if k is None else k
    windows, start = [], 0
    for i, s in enumerate(scores):
        if i > 0 and s == scores[i - 1]:
            continue
        size = 1
        while i + size < len(scores) and scores[i + size] == s:
            size += 1
        windows.append((start, size, max(0, min(size, cutoff - start))))
        start += size
    return windows


@formerly_positional("k")
def expected_hits(relevant, scores, *, k):
    """Relevant documents in the top ``k``, each tied place counting its group's share.

    A tie group of ``size`` documents, ``h`` of them relevant, with ``inside``
    places in the top ``k`` adds ``h * inside / size``: the mean over every
    order of the tie.

    Parameters
    ----------
    relevant : sequence of bool
        Whether each ranked document is relevant, in rank order (1 and 0 count
        as True and False).
    scores : list of float
        The ranked documents' scores, best first (:func:`check_tie_scores`);
        equal scores make a tie group.
    k : int or None
        The cut-off; None means the whole ranking.
    """
    return math.fsum(sum(relevant[start:start + size]) * inside / size
                     for start, size, inside in _tie_windows(scores, k))


@formerly_positional("k", "n_relevant", "denominator")
def thresholded_average_precision(relevant, scores, *, k, n_relevant, denominator):
    r"""AP with one precision per tie group (scikit-learn's step function), any denominator.

    .. math::

        AP@k = \frac{1}{D} \sum_{t} h_t \, \frac{H_t}{S_t}

    over the tie groups :math:`t` with places in the top :math:`k`, best
    first: :math:`h_t` is the group's relevant documents times the share of
    its places that are in the top :math:`k` (all of them unless the cut-off
    splits the group), :math:`H_t` the sum of the :math:`h` up to :math:`t`
    and :math:`S_t` the places up to :math:`t`, so :math:`H_t / S_t` is the
    precision at the group's last place.  :math:`D` is ``n_relevant``
    (``"all_relevant"``), :math:`\sum_t h_t` (``"retrieved_relevant"``) or
    :math:`\min(k, n_{relevant})` (``"min_k_relevant"``, :math:`k` the
    ranking's length when None); 0.0 when :math:`D = 0`.

    With ``"retrieved_relevant"`` and no cut-off this is scikit-learn's
    ``average_precision_score``: recall steps by :math:`h_t / D` at each
    distinct score, times the precision of everything scoring at least
    that.  Without ties each group is one document and this is AP.

    Parameters
    ----------
    relevant : sequence of bool
        Whether each ranked document is relevant, in rank order (1 and 0 count
        as True and False).
    scores : list of float
        The ranked documents' scores, best first (:func:`check_tie_scores`);
        equal scores make a tie group.
    k : int or None
        The cut-off; None means the whole ranking.
    n_relevant : int
        R, the query's number of relevant documents (read by ``"all_relevant"``
        and ``"min_k_relevant"``).
    denominator : {"all_relevant", "retrieved_relevant", "min_k_relevant"}
        D above (any other value is read as ``"min_k_relevant"``: the calling
        metric checks it).
    """
    total, hits, places = [], 0.0, 0
    for start, size, inside in _tie_windows(scores, k):
        if inside == 0:
            break
        h = sum(relevant[start:start + size]) * inside / size
        hits += h
        places += inside
        if h:
            total.append(h * hits / places)
    if denominator == "all_relevant":
        norm = n_relevant
    elif denominator == "retrieved_relevant":
        norm = hits
    else:  # "min_k_relevant"
        norm = min(len(relevant) if k is None else k, n_relevant)
    return 0.0 if norm == 0 else math.fsum(total) / norm


@formerly_positional("k")
def tie_averaged_reciprocal_rank(relevant, scores, *, k):
    """Reciprocal rank within the top ``k``, averaged over every order of the tie group
    holding the first relevant document.

    In a group of ``size`` documents starting after ``start`` others, ``h``
    relevant, the first relevant one is at place ``j`` with probability
    ``comb(size - j, h - 1) / comb(size, h)``.

    Parameters
    ----------
    relevant : sequence of bool
        Whether each ranked document is relevant, in rank order (1 and 0 count
        as True and False).
    scores : list of float
        The ranked documents' scores, best first (:func:`check_tie_scores`);
        equal scores make a tie group.
    k : int or None
        The cut-off; None means the whole ranking.
    """
    cutoff = len(scores) if k is None else k
    for start, size, _ in _tie_windows(scores, k):
        h = sum(relevant[start:start + size])
        if h:
            return math.fsum(math.comb(size - j, h - 1) / math.comb(size, h) / (start + j)
                             for j in range(1, size - h + 2) if start + j <= cutoff)
    return 0.0


@formerly_positional("k")
def tie_averaged_hit_rate(relevant, scores, *, k):
    """1 - the probability, over every order of the ties, that no relevant document is in the top ``k``.

    Parameters
    ----------
    relevant : sequence of bool
        Whether each ranked document is relevant, in rank order (1 and 0 count
        as True and False).
    scores : list of float
        The ranked documents' scores, best first (:func:`check_tie_scores`);
        equal scores make a tie group.
    k : int or None
        The cut-off; None means the whole ranking.
    """
    for start, size, inside in _tie_windows(scores, k):
        h = sum(relevant[start:start + size])
        if h:
            return 1.0 - math.comb(size - h, inside) / math.comb(size, inside)
    return 0.0


@formerly_positional("k", "gain")
def tie_averaged_dcg(grades, scores, *, k, gain):
    r"""DCG@k where tied documents share the mean gain of their tie group.

    .. math::

        DCG@k = \sum_{groups\ G} \overline{gain}(G)
                \sum_{i \in G,\, i \le k} \frac{1}{\log_2(i + 1)}

    (McSherry & Najork 2008; scikit-learn's ``_tie_averaged_dcg``).

    Parameters
    ----------
    grades : sequence of int or float
        The ranked documents' grades, in rank order.
    scores : list of float
        The ranked documents' scores, best first (:func:`check_tie_scores`);
        equal scores make a tie group.
    k : int or None
        The cut-off; None means the whole ranking.
    gain : {"linear", "exponential"}
        The gain of a grade g: g, or 2**g - 1 (any value but ``"linear"`` is read
        as exponential: the calling metric checks it).
    """
    total = []
    for start, size, inside in _tie_windows(scores, k):
        group = grades[start:start + size]
        mean_gain = math.fsum(
            (g if gain == "linear" else 2.0 ** g - 1.0) for g in group
        ) / size
        discount = math.fsum(1.0 / math.log2(i + 1) for i in range(start + 1, start + inside + 1))
        total.append(mean_gain * discount)
    return math.fsum(total)
