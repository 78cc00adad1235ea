"""scikit-learn's tied scores: every measure averaged over the orders of a tie.

The ``ties="average"`` conventions of
:class:`~ragmetrics_edu.retrieval.conventions.Conventions` (scikit-learn's
``ndcg_score`` with ``ignore_ties=False`` and ``average_precision_score``):
a ranking's scores, sorted best first, split it into tie groups, and each
measure is computed on the groups instead of an order of the documents
(McSherry and Najork 2008).  :func:`~ragmetrics_edu.retrieval.conventions.evaluate_as`
calls :func:`tie_averaged` and :func:`tie_averaged_dcg`; the tests compare
them with scikit-learn and with the mean over every order of a tie.
"""

import math

__all__ = ["tie_averaged", "tie_averaged_dcg"]


def _tie_groups(scores):
    """Lengths of the runs of equal scores in a list sorted best first."""
    groups = []
    for i, s in enumerate(scores):
        if i > 0 and s == scores[i - 1]:
            groups[-1] += 1
        else:
            groups.append(1)
    return groups


def tie_averaged_dcg(grades, scores, k, gain):
    r"""DCG@k where tied documents share the mean gain of their tie group.

    .. math::

        DCG@k = \sum_{groups\ G} \overline{gain}(G)
                \sum_{i \in G,\, i \le k} \frac{1}{\log_2(i + 1)}

    (McSherry & Najork 2008; scikit-learn's ``ignore_ties=False``).
    """
    cutoff = len(grades) if k is None else k
    total, start = [], 0
    for size in _tie_groups(scores):
        group = grades[start:start + size]
        mean_gain = math.fsum(
            (g if gain == "linear" else 2.0 ** g - 1.0) for g in group
        ) / size
        discount = math.fsum(
            1.0 / math.log2(i + 1) for i in range(start + 1, start + size + 1) if i <= cutoff
        )
        total.append(mean_gain * discount)
        start += size
    return math.fsum(total)


def _tie_windows(scores, k):
    """``(start, size, inside)`` of each tie group, best first: where it starts, its
    length, and how many of its places are in the top ``k`` (``k=None``: all)."""
    cutoff = len(scores) if k is None else k
    windows, start = [], 0
    for size in _tie_groups(scores):
        windows.append((start, size, max(0, min(size, cutoff - start))))
        start += size
    return windows


def _expected_hits(relevant, scores, k):
    """Relevant documents in the top ``k``, each tied place counting its group's share.

    A tie group of ``size`` documents, ``h`` of them relevant, with ``inside``
    places in the top ``k`` adds ``h * inside / size``: the mean over every
    order of the tie.
    """
    return math.fsum(sum(relevant[start:start + size]) * inside / size
                     for start, size, inside in _tie_windows(scores, k))


def _thresholded_average_precision(relevant, scores, k, n_relevant, denominator):
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
    that.  Without ties each group is one document and this is
    :func:`~ragmetrics_edu.retrieval.order_aware.average_precision`.
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


def _tie_averaged_first_hit(relevant, scores, k, family):
    """Reciprocal rank (``"mrr"``) or hit rate of the top ``k``, averaged over every
    order of the tie group holding the first relevant document.

    In a group of ``size`` documents starting after ``start`` others, ``h``
    relevant, the first relevant one is at place ``j`` with probability
    ``comb(size - j, h - 1) / comb(size, h)``.
    """
    cutoff = len(scores) if k is None else k
    for start, size, inside in _tie_windows(scores, k):
        h = sum(relevant[start:start + size])
        if h == 0:
            continue
        if family == "hit_rate":  # 1 - P(no relevant document in the places inside)
            return 1.0 - math.comb(size - h, inside) / math.comb(size, inside)
        return math.fsum(math.comb(size - j, h - 1) / math.comb(size, h) / (start + j)
                         for j in range(1, size - h + 2) if start + j <= cutoff)
    return 0.0


def tie_averaged(family, relevant, scores, k, n_relevant, conv):
    """A binary-relevance metric under ``ties="average"`` (see :class:`Conventions`)."""
    if family == "map":
        return _thresholded_average_precision(relevant, scores, k, n_relevant,
                                              conv.ap_denominator)
    if family in ("mrr", "hit_rate"):
        return _tie_averaged_first_hit(relevant, scores, k, family)
    hits = _expected_hits(relevant, scores, k)
    if conv.precision_denominator == "k":
        precision = hits / k
    else:  # "retrieved": over the places in the top k
        precision = hits / min(k, len(scores)) if scores else 0.0
    recall = hits / n_relevant if n_relevant else 0.0
    if family == "P":
        return precision
    if family == "recall":
        return recall
    return 0.0 if hits == 0 else 2 * precision * recall / (precision + recall)  # f1
