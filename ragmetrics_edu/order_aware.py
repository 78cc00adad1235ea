r"""Order-aware binary retrieval metrics: reciprocal rank, MRR, AP, MAP.

These metrics still see each document as relevant or not (a grade > 0 is
relevant), but they reward putting the relevant documents early.  Every
score here is in [0, 1] and higher is better.

trec_eval (``-l 1``, its default relevance level) and ranx count a grade
>= 1 as relevant: the same rule for integer grades, but a fractional grade
in (0, 1) counts as relevant here and not there.

``rels`` is the grades of the retrieved documents in rank order, e.g.
``[1, 0, 1, 0, 1]``; ``k=None`` means the whole ranking.  An empty ranking is
valid and scores 0.

The conventions that differ between libraries:

* **The denominator of Average Precision.**  The slides, trec_eval
  (``map``) and ranx (``map@k``) divide by *all* relevant documents of the
  query, found or not: ``denominator="all_relevant"`` (default).  ragas and
  DeepEval's "context precision" divide by the relevant documents retrieved
  in the top ``k``: ``denominator="retrieved_relevant"``.  Some AP@k code
  (e.g. the Kaggle-style ``apk``) divides by ``min(k, n_relevant)``:
  ``denominator="min_k_relevant"``.  The three agree when every relevant
  document is retrieved within the top ``k`` and ``n_relevant <= k``.
* **A query with no relevant document** has AP = 0.0 and RR = 0.0
  (trec_eval and ranx agree).
* **"MAP" for a single query.**  MAP is the *mean* of AP over queries; the
  slides' "MAP = 0.226" is the AP of one query (see
  :mod:`ragmetrics_edu.examples`).
"""

import math

import numpy as np

from ._validation import check_choice, check_k, check_n_relevant, check_rels

__all__ = [
    "reciprocal_rank",
    "mean_reciprocal_rank",
    "average_precision",
    "mean_average_precision",
]

AP_DENOMINATORS = ("all_relevant", "retrieved_relevant", "min_k_relevant")
"""Names of the Average Precision conventions (see :func:`average_precision`)."""


def _check_queries(list_of_rels, name="list_of_rels"):
    """Return ``list_of_rels`` as a list of rankings, or raise if it is empty or a single ranking."""
    if isinstance(list_of_rels, (str, bytes)) or not hasattr(list_of_rels, "__len__"):
        raise TypeError(
            f"{name} must be a list of rankings (one list of grades per query), "
            f"got {list_of_rels!r}"
        )
    queries = list(list_of_rels)
    if len(queries) == 0:
        raise ValueError(
            f"{name} must hold at least one query (the mean over 0 queries is "
            f"undefined), got {list_of_rels!r}"
        )
    for q in queries:
        if not hasattr(q, "__len__") or isinstance(q, (str, bytes)):
            raise TypeError(
                f"{name} must be a list of rankings (one list of grades per "
                f"query), got the element {q!r}"
            )
    return queries


def reciprocal_rank(rels, k=None):
    r"""Reciprocal rank: 1 / (rank of the first relevant document).

    Parameters
    ----------
    rels : sequence of float
        Grades of the retrieved documents in rank order; a grade > 0 is
        relevant.
    k : int or None, default None
        Only the top ``k`` documents are looked at (RR@k); None means the
        whole ranking.

    Returns
    -------
    float
        :math:`1 / rank_1`, in (0, 1]; 0.0 if no relevant document is in the
        top ``k``.

    See Also
    --------
    mean_reciprocal_rank : its mean over queries.
    ragmetrics_edu.order_unaware.hit_rate_at_k

    Notes
    -----
    .. math::

        RR = \frac{1}{rank_1}, \qquad
        rank_1 = \min\{i \le k : rel_i > 0\}

    The number of relevant documents does not matter, only where the first
    one is.

    References
    ----------
    .. [1] E. M. Voorhees, "The TREC-8 Question Answering Track Report",
       TREC 1999.

    Examples
    --------
    >>> from ragmetrics_edu.order_aware import reciprocal_rank
    >>> reciprocal_rank([1, 0, 1, 0, 1])  # the first document is relevant
    1.0
    >>> reciprocal_rank([0, 0, 0, 0, 1])  # first relevant at rank 5: 1/5
    0.2
    >>> reciprocal_rank([0, 0, 0, 0, 1], k=3)  # not in the top 3
    0.0
    """
    rels = check_rels(rels)
    k = check_k(k, allow_none=True)
    top = rels if k is None else rels[:k]
    relevant_ranks = np.flatnonzero(top > 0) + 1  # ranks start at 1
    if len(relevant_ranks) == 0:  # no relevant document in the top k
        return 0.0
    return float(1.0 / relevant_ranks[0])


def mean_reciprocal_rank(list_of_rels, k=None):
    r"""Mean reciprocal rank (MRR) over queries.

    Parameters
    ----------
    list_of_rels : sequence of sequences of float
        One ranking of grades per query.
    k : int or None, default None
        Cut-off applied to every query (MRR@k); None means whole rankings.

    Returns
    -------
    float
        The mean of :func:`reciprocal_rank` over the queries, in [0, 1].

    See Also
    --------
    reciprocal_rank

    Notes
    -----
    .. math::

        MRR = \frac{1}{|Q|} \sum_{q=1}^{|Q|} \frac{1}{rank_q}

    Examples
    --------
    The slides: the first query's first relevant document is at rank 1,
    the second query's at rank 2.

    >>> from ragmetrics_edu.order_aware import mean_reciprocal_rank
    >>> round(mean_reciprocal_rank([[1, 0, 1, 0, 1], [0, 1, 0, 0, 0]]), 4)  # (1/1 + 1/2) / 2
    0.75
    """
    queries = _check_queries(list_of_rels)
    k = check_k(k, allow_none=True)
    scores = [reciprocal_rank(rels, k) for rels in queries]
    return math.fsum(scores) / len(scores)


def average_precision(rels, n_relevant, k=None, *, denominator="all_relevant"):
    r"""Average Precision (AP, or AP@k): Precision@i averaged over the relevant ranks i.

    Parameters
    ----------
    rels : sequence of float
        Grades of the retrieved documents in rank order; a grade > 0 is
        relevant.
    n_relevant : int
        How many relevant documents the query has in the whole collection.
        It cannot be smaller than the number of relevant documents in
        ``rels`` (the whole given ranking).
    k : int or None, default None
        Only ranks ``i <= k`` are summed (AP@k); None means the whole ranking.
    denominator : {"all_relevant", "retrieved_relevant", "min_k_relevant"}
        What the sum of precisions is divided by:

        * ``"all_relevant"`` (default): ``n_relevant``, every relevant
          document of the query, found or not.  The slides, trec_eval's
          ``map``, ranx's ``map@k``; a relevant document never retrieved
          contributes a precision of 0.
        * ``"retrieved_relevant"``: the number of relevant documents in the
          top ``k``, the mean of the precisions actually summed (ragas and
          DeepEval's context precision).  Needs no ``n_relevant`` beyond
          validation; it can be 1 with relevant documents missing.
        * ``"min_k_relevant"``: ``min(k, n_relevant)`` (``k`` is
          ``len(rels)`` when None), so that a perfect top ``k`` scores 1 even
          when the query has more than ``k`` relevant documents.

    Returns
    -------
    float
        AP in [0, 1]; 0.0 when the denominator is 0 (no relevant document).

    See Also
    --------
    mean_average_precision : its mean over queries.
    ragmetrics_edu.order_unaware.precision_at_k

    Notes
    -----
    .. math::

        AP@k = \frac{1}{n_{relevant}} \sum_{i=1}^{k} P@i \cdot rel_i,
        \qquad rel_i = \mathbb{1}[grade_i > 0]

    References
    ----------
    .. [1] C. D. Manning, P. Raghavan, H. Schütze, *Introduction to
       Information Retrieval*, sec. 8.4, Cambridge University Press, 2008.

    Examples
    --------
    The slides: relevant at ranks 1, 3 and 5, and 10 relevant documents.

    >>> from ragmetrics_edu.order_aware import average_precision
    >>> rels = [1, 0, 1, 0, 1]
    >>> round(average_precision(rels, n_relevant=10), 4)  # (1/1 + 2/3 + 3/5) / 10
    0.2267
    >>> round(average_precision([1, 1, 1, 0, 0], n_relevant=10), 4)  # (1 + 1 + 1) / 10
    0.3

    The other denominators, on the same ranking:

    >>> round(average_precision(rels, 10, denominator="retrieved_relevant"), 4)  # / 3
    0.7556
    >>> round(average_precision(rels, 10, k=3, denominator="min_k_relevant"), 4)  # (1 + 2/3) / 3
    0.5556
    """
    rels = check_rels(rels)
    k = check_k(k, allow_none=True)
    check_choice(denominator, AP_DENOMINATORS, name="denominator")
    relevant = rels > 0
    n_relevant = check_n_relevant(n_relevant, found=int(np.count_nonzero(relevant)))

    top = relevant if k is None else relevant[:k]
    ranks = np.arange(1, len(top) + 1)
    precision_at_i = np.cumsum(top) / ranks  # P@1, P@2, ..., P@k
    total = math.fsum(precision_at_i[top].tolist())  # only at relevant ranks

    if denominator == "all_relevant":
        norm = n_relevant
    elif denominator == "retrieved_relevant":
        norm = int(np.count_nonzero(top))
    else:  # "min_k_relevant"
        cutoff = len(rels) if k is None else k
        norm = min(cutoff, n_relevant)
    if norm == 0:  # no relevant document to average over
        return 0.0
    return float(total / norm)


def mean_average_precision(list_of_rels, n_relevants, k=None, *, denominator="all_relevant"):
    r"""Mean Average Precision (MAP, or MAP@k) over queries.

    Parameters
    ----------
    list_of_rels : sequence of sequences of float
        One ranking of grades per query.
    n_relevants : sequence of int
        The number of relevant documents of each query, in the same order.
    k : int or None, default None
        Cut-off applied to every query; None means whole rankings.
    denominator : {"all_relevant", "retrieved_relevant", "min_k_relevant"}
        The AP convention (see :func:`average_precision`).

    Returns
    -------
    float
        The mean of :func:`average_precision` over the queries, in [0, 1].

    See Also
    --------
    average_precision

    Notes
    -----
    .. math::

        MAP = \frac{1}{|Q|} \sum_{q=1}^{|Q|} AP_q

    Examples
    --------
    The article's "cat in a box" queries, 8 results each:

    >>> from ragmetrics_edu.order_aware import mean_average_precision
    >>> queries = [
    ...     [0, 1, 0, 1, 1, 0, 1, 0],  # relevant at 2, 4, 5, 7: AP = 0.5429
    ...     [1, 0, 0, 1, 1, 0, 1, 0],  # relevant at 1, 4, 5, 7: AP = 0.6679
    ...     [0, 0, 0, 0, 1, 0, 0, 1],  # relevant at 5, 8:       AP = 0.225
    ... ]
    >>> round(mean_average_precision(queries, [4, 4, 2], k=8), 4)
    0.4786
    """
    queries = _check_queries(list_of_rels)
    if isinstance(n_relevants, (str, bytes)) or not hasattr(n_relevants, "__len__"):
        raise TypeError(
            f"n_relevants must be a sequence with one count per query, got {n_relevants!r}"
        )
    n_relevants = list(n_relevants)
    if len(n_relevants) != len(queries):
        raise ValueError(
            f"n_relevants must have one count per query ({len(queries)}), "
            f"got {len(n_relevants)}"
        )
    k = check_k(k, allow_none=True)
    scores = [
        average_precision(rels, n, k, denominator=denominator)
        for rels, n in zip(queries, n_relevants)
    ]
    return math.fsum(scores) / len(scores)
