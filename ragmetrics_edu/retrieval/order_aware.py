r"""Order-aware binary retrieval metrics: RR, MRR, AP, MAP, R-precision, the PR curve.

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
  :mod:`ragmetrics_edu.course.examples`).
"""

import math
import numbers
from dataclasses import dataclass

import numpy as np

from .._deprecation import formerly_positional
from .._validation import check_choice, check_count_limit, check_k, check_n_relevant, check_rels
from .tied_scores import check_tie_scores, thresholded_average_precision, tie_averaged_reciprocal_rank

__all__ = [
    "reciprocal_rank",
    "mean_reciprocal_rank",
    "average_precision",
    "mean_average_precision",
    "r_precision",
    "interpolated_precision",
    "eleven_point_average_precision",
    "precision_recall_curve",
    "PrecisionRecallCurve",
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


def reciprocal_rank(rels, k=None, *, scores=None):
    r"""Reciprocal rank: 1 / (rank of the first relevant document).

    Parameters
    ----------
    rels : sequence of float
        Grades of the retrieved documents in rank order; a grade > 0 is
        relevant.
    k : int or None, default None
        Only the top ``k`` documents are looked at (RR@k); None means the
        whole ranking.
    scores : sequence of float, optional
        The ranked documents' scores, best first.  When given, documents with
        equal scores are a tie with no order, and RR is its mean over every
        order of the tie that holds the first relevant document
        (scikit-learn's way with ties; :mod:`~ragmetrics_edu.retrieval.tied_scores`).

    Returns
    -------
    float
        :math:`1 / rank_1`, in (0, 1]; 0.0 if no relevant document is in the
        top ``k``.

    See Also
    --------
    mean_reciprocal_rank : its mean over queries.
    ragmetrics_edu.retrieval.order_unaware.hit_rate_at_k

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
    >>> from ragmetrics_edu.retrieval.order_aware import reciprocal_rank
    >>> reciprocal_rank([1, 0, 1, 0, 1])  # the first document is relevant
    1.0
    >>> reciprocal_rank([0, 0, 0, 0, 1])  # first relevant at rank 5: 1/5
    0.2
    >>> reciprocal_rank([0, 0, 0, 0, 1], k=3)  # not in the top 3
    0.0
    """
    rels = check_rels(rels)
    k = check_k(k, allow_none=True)
    if scores is not None:
        return tie_averaged_reciprocal_rank((rels > 0).tolist(),
                                            check_tie_scores(scores, len(rels)), k=k)
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

    >>> from ragmetrics_edu.retrieval.order_aware import mean_reciprocal_rank
    >>> round(mean_reciprocal_rank([[1, 0, 1, 0, 1], [0, 1, 0, 0, 0]]), 4)  # (1/1 + 1/2) / 2
    0.75
    """
    queries = _check_queries(list_of_rels)
    k = check_k(k, allow_none=True)
    scores = [reciprocal_rank(rels, k) for rels in queries]
    return math.fsum(scores) / len(scores)


@formerly_positional("k")
def average_precision(rels, n_relevant, *, k=None, denominator="all_relevant", scores=None):
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
    scores : sequence of float, optional
        The ranked documents' scores, best first.  When given, documents with
        equal scores are a tie with no order: one precision per tie group, at
        its last place (scikit-learn's ``average_precision_score``, a step
        per distinct score), the group's relevant documents counted in full
        or, if the cut-off splits it, by their share of its places
        (:func:`~ragmetrics_edu.retrieval.tied_scores.thresholded_average_precision`).

    Returns
    -------
    float
        AP in [0, 1]; 0.0 when the denominator is 0 (no relevant document).

    See Also
    --------
    mean_average_precision : its mean over queries.
    ragmetrics_edu.retrieval.order_unaware.precision_at_k

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

    >>> from ragmetrics_edu.retrieval.order_aware import average_precision
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
    check_count_limit(n_relevant, name="n_relevant")
    if scores is not None:
        return thresholded_average_precision(relevant.tolist(), check_tie_scores(scores, len(rels)),
                                             k=k, n_relevant=n_relevant, denominator=denominator)

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


@formerly_positional("k")
def mean_average_precision(list_of_rels, n_relevants, *, k=None, denominator="all_relevant"):
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

    >>> from ragmetrics_edu.retrieval.order_aware import mean_average_precision
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
        average_precision(rels, n, k=k, denominator=denominator)
        for rels, n in zip(queries, n_relevants)
    ]
    return math.fsum(scores) / len(scores)


# ------------------------------------------------ R-precision, the PR curve

PR_CONVENTIONS = ("trec_eval_9", "trec_eval_10", "textbook")
"""How a recall level becomes a point of the ranking (see :func:`interpolated_precision`)."""

ELEVEN_POINTS = tuple(i / 10 for i in range(11))
"""The recall levels 0.0, 0.1, ..., 1.0 of the 11-point average."""


def _check_recall_level(recall, metric):
    """Return ``recall`` as a float in [0, 1], or raise naming ``metric``."""
    if isinstance(recall, bool) or not isinstance(recall, numbers.Real):
        raise TypeError(
            f"{metric}: the recall level must be a number in [0, 1], got {recall!r}"
        )
    if not 0.0 <= recall <= 1.0:  # also refuses nan
        raise ValueError(
            f"{metric}: the recall level must be in [0, 1], got {recall!r}"
        )
    return float(recall)


def _hits(rels, n_relevant):
    """Relevance flags and the checked ``n_relevant`` of one ranking."""
    rels = check_rels(rels)
    relevant = rels > 0
    n_relevant = check_n_relevant(n_relevant, found=int(np.count_nonzero(relevant)))
    return relevant, n_relevant


def r_precision(rels, n_relevant):
    r"""R-precision: the precision of the top R documents, R = the query's relevant documents.

    Parameters
    ----------
    rels : sequence of float
        Grades of the retrieved documents in rank order; a grade > 0 is
        relevant.  Unjudged documents count as not relevant (grade 0).
    n_relevant : int
        R, how many relevant documents the query has in the whole collection
        (at least the number of relevant documents in ``rels``).

    Returns
    -------
    float
        R-precision in [0, 1]; 0.0 when ``n_relevant`` is 0 or the ranking
        is empty.

    See Also
    --------
    ragmetrics_edu.retrieval.order_unaware.precision_at_k : P@k for a fixed k.
    average_precision

    Notes
    -----
    .. math::

        R\text{-}prec = \frac{1}{R} \sum_{i=1}^{R} rel_i
        = P@R = Recall@R

    A ranking shorter than R is not padded: the missing ranks count as not
    relevant, the denominator stays R (trec_eval's ``Rprec``).  At rank R
    precision equals recall, so R-precision is also the break-even point of
    the precision-recall curve when the curve passes through it.  Ties in the
    scores must be broken before calling (:func:`ragmetrics_edu.evaluate`
    breaks them as trec_eval does).

    References
    ----------
    .. [1] C. Buckley, E. M. Voorhees, "Retrieval System Evaluation", in
       *TREC: Experiment and Evaluation in Information Retrieval*, MIT Press,
       2005.
    .. [2] C. D. Manning, P. Raghavan, H. Schütze, *Introduction to
       Information Retrieval*, sec. 8.4, Cambridge University Press, 2008.

    Examples
    --------
    >>> from ragmetrics_edu.retrieval.order_aware import r_precision
    >>> r_precision([1, 0, 1, 0, 1], n_relevant=3)  # 2 of the top 3 are relevant
    0.6666666666666666
    >>> r_precision([1, 0, 1, 0, 1], n_relevant=10)  # 3 of the top 10 (only 5 retrieved)
    0.3
    >>> r_precision([0, 0], n_relevant=0)  # nothing to find
    0.0
    """
    relevant, n_relevant = _hits(rels, n_relevant)
    if n_relevant == 0:  # R = 0: precision of the top 0 documents is defined as 0
        return 0.0
    return float(np.count_nonzero(relevant[:n_relevant]) / n_relevant)


@dataclass(frozen=True)
class PrecisionRecallCurve:
    """The precision-recall points of one ranking, raw and interpolated.

    Attributes
    ----------
    ranks : numpy.ndarray of int
        1, 2, ..., n: one point per retrieved document.
    recall : numpy.ndarray of float
        Recall@i, the fraction of the R relevant documents in the top i.
    precision : numpy.ndarray of float
        P@i, the fraction of the top i that is relevant (the "sawtooth").
    interpolated : numpy.ndarray of float
        The interpolated precision at each rank, the highest P@j at any
        rank j >= i (the "staircase" above the sawtooth).
    relevant : numpy.ndarray of bool
        Whether the document at rank i is relevant; AP is the sum of
        ``precision[relevant]`` divided by R.
    levels : tuple of float
        The 11 standard recall levels 0.0, 0.1, ..., 1.0.
    interpolated_at_levels : numpy.ndarray of float
        :func:`interpolated_precision` at each of ``levels``.
    n_relevant : int
        R.
    convention : str
        The recall-level convention behind ``interpolated_at_levels``
        (see :func:`interpolated_precision`).
    """

    ranks: np.ndarray
    recall: np.ndarray
    precision: np.ndarray
    interpolated: np.ndarray
    relevant: np.ndarray
    levels: tuple
    interpolated_at_levels: np.ndarray
    n_relevant: int
    convention: str

    def __str__(self):
        found = int(np.count_nonzero(self.relevant))
        levels = " ".join(f"{p:.4f}" for p in self.interpolated_at_levels)
        return (f"precision-recall curve of {len(self.ranks)} ranks, {found} of R = "
                f"{self.n_relevant} relevant found; interpolated precision at recall "
                f"0.0, 0.1, ..., 1.0 ({self.convention}): {levels}")


def _interpolated_at(precision, hits, n_relevant, recall, convention):
    """Interpolated precision at one recall level (arguments already checked).

    ``precision`` and ``hits`` are P@i and the number of relevant documents
    in the top i, for i = 1..n.
    """
    if n_relevant == 0 or len(precision) == 0:
        return 0.0
    x = recall * n_relevant  # the level as a number of relevant documents
    if convention == "trec_eval_9":
        # trec_eval 9 (pytrec_eval): add 0.9, then cut the fraction off
        needed = int(x + 0.9)
        reached = hits >= needed
    elif convention == "trec_eval_10":
        # trec_eval 10: round half up (C's lround of a non-negative number)
        needed = math.floor(x)
        if x - needed >= 0.5:
            needed += 1
        reached = hits >= needed
    else:  # "textbook": every rank whose recall is at least the level
        reached = hits / n_relevant >= recall
    if not np.any(reached):  # the level is never reached: precision 0
        return 0.0
    return float(np.max(precision[reached]))


def precision_recall_curve(rels, n_relevant, *, convention="trec_eval_9"):
    r"""The precision-recall curve of one ranking, raw and interpolated, for plotting.

    Parameters
    ----------
    rels : sequence of float
        Grades of the retrieved documents in rank order; a grade > 0 is
        relevant, unjudged documents count as not relevant.
    n_relevant : int
        R, the number of relevant documents of the query (found or not).
    convention : {"trec_eval_9", "trec_eval_10", "textbook"}, default "trec_eval_9"
        How the 11 standard recall levels are read (see
        :func:`interpolated_precision`).

    Returns
    -------
    PrecisionRecallCurve
        ``recall``, ``precision`` and ``interpolated`` at every rank, the
        ``relevant`` flags, and the interpolated precision at the 11 levels.
        An empty ranking gives empty arrays (and zeros at the levels); with
        R = 0 recall is 0 at every rank.

    See Also
    --------
    interpolated_precision, eleven_point_average_precision, average_precision

    Notes
    -----
    .. math::

        P@i = \frac{1}{i} \sum_{j \le i} rel_j, \qquad
        Recall@i = \frac{1}{R} \sum_{j \le i} rel_j, \qquad
        P_{interp}@i = \max_{j \ge i} P@j

    Raw precision falls at every non-relevant document and jumps at every
    relevant one (a sawtooth); interpolation replaces each point by the best
    precision still to come, a non-increasing staircase.  Plot ``recall``
    on the x-axis; AP is the area under the raw curve taken as steps at
    the relevant ranks, :math:`\frac{1}{R}\sum_i P@i \cdot rel_i`.

    References
    ----------
    .. [1] C. D. Manning, P. Raghavan, H. Schütze, *Introduction to
       Information Retrieval*, sec. 8.4 (figure 8.2), Cambridge University
       Press, 2008.

    Examples
    --------
    >>> from ragmetrics_edu.retrieval.order_aware import precision_recall_curve
    >>> c = precision_recall_curve([1, 0, 1, 0, 1], n_relevant=4)
    >>> c.recall.tolist()  # 1, 1, 2, 2, 3 of 4 found
    [0.25, 0.25, 0.5, 0.5, 0.75]
    >>> c.precision.round(4).tolist()  # 1/1, 1/2, 2/3, 2/4, 3/5
    [1.0, 0.5, 0.6667, 0.5, 0.6]
    >>> c.interpolated.round(4).tolist()  # the best precision from here on
    [1.0, 0.6667, 0.6667, 0.6, 0.6]
    """
    relevant, n_relevant = _hits(rels, n_relevant)
    check_choice(convention, PR_CONVENTIONS, name="convention")
    ranks = np.arange(1, len(relevant) + 1)
    hits = np.cumsum(relevant)
    precision = hits / ranks if len(ranks) else np.zeros(0)
    recall = hits / n_relevant if n_relevant > 0 else np.zeros(len(ranks))
    # running maximum from the bottom of the ranking up
    interpolated = np.maximum.accumulate(precision[::-1])[::-1]
    at_levels = np.array([
        _interpolated_at(precision, hits, n_relevant, level, convention)
        for level in ELEVEN_POINTS
    ])
    return PrecisionRecallCurve(
        ranks=ranks, recall=recall.astype(np.float64), precision=precision,
        interpolated=interpolated, relevant=relevant, levels=ELEVEN_POINTS,
        interpolated_at_levels=at_levels, n_relevant=n_relevant,
        convention=convention,
    )


@formerly_positional("recall")
def interpolated_precision(rels, n_relevant, *, recall, convention="trec_eval_9"):
    r"""Interpolated precision at a recall level: the best precision once that recall is reached.

    Parameters
    ----------
    rels : sequence of float
        Grades of the retrieved documents in rank order; a grade > 0 is
        relevant, unjudged documents count as not relevant.
    n_relevant : int
        R, the number of relevant documents of the query (found or not).
    recall : float
        The recall level, in [0, 1] (e.g. 0.5).
    convention : {"trec_eval_9", "trec_eval_10", "textbook"}, default "trec_eval_9"
        Which ranks count as "having reached" the level:

        * ``"trec_eval_9"`` (default): trec_eval 9 and pytrec_eval 0.5
          (``iprec_at_recall``), what :func:`ragmetrics_edu.evaluate` and
          most published numbers match.  The level is first turned into a
          number of relevant documents, :math:`c = \lfloor rR + 0.9
          \rfloor`, and the ranks with at least :math:`c` relevant
          documents count.
        * ``"trec_eval_10"``: trec_eval 10.0 (December 2023) rounds
          instead, :math:`c = \lfloor rR + 1/2 \rfloor`.
        * ``"textbook"`` (Manning et al. 2008, eq. 8.7): the ranks whose
          recall :math:`h_i / R` is at least :math:`r`, i.e.
          :math:`c = \lceil rR \rceil`.

        They differ when :math:`rR` is not a whole number: with R = 8,
        level 0.3 is 2.4 relevant documents, which trec_eval 9 and the
        textbook read as 3 and trec_eval 10 as 2; with R = 21, level 0.05
        is 1.05: 2 for the textbook, 1 for both trec_evals.

    Returns
    -------
    float
        In [0, 1]; 0.0 if the level is never reached, if R = 0, or if the
        ranking is empty (where trec_eval's ``iprec_at_recall`` gives NaN
        at level 0, the 0/0 precision of nothing retrieved).

    Raises
    ------
    ValueError
        If ``recall`` is outside [0, 1].

    See Also
    --------
    precision_recall_curve, eleven_point_average_precision

    Notes
    -----
    .. math::

        P_{interp}(r) = \max \{\, P@i : h_i \ge c(r) \,\},
        \qquad h_i = \sum_{j \le i} rel_j

    with :math:`c(r) = \lfloor rR + 0.9 \rfloor` (``"trec_eval_9"``),
    :math:`\lfloor rR + 1/2 \rfloor` (``"trec_eval_10"``), or
    :math:`\max\{P@i : h_i / R \ge r\}` (``"textbook"``, which compares
    the recall itself, so that :math:`0.3 \cdot 10 = 3.0000000000000004`
    still needs 3 relevant documents).

    References
    ----------
    .. [1] C. D. Manning, P. Raghavan, H. Schütze, *Introduction to
       Information Retrieval*, sec. 8.4, Cambridge University Press, 2008.
    .. [2] NIST, trec_eval, ``m_iprec_at_recall.c``,
       https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> from ragmetrics_edu.retrieval.order_aware import interpolated_precision
    >>> rels = [1, 0, 1, 0, 1]
    >>> round(interpolated_precision(rels, 4, recall=0.5), 4)  # recall 0.5 at rank 3: max(2/3, 2/4, 3/5)
    0.6667
    >>> interpolated_precision(rels, 4, recall=1.0)  # the 4th relevant document is never found
    0.0

    The conventions, R = 4 and level 0.6 (2.4 relevant documents):

    >>> round(interpolated_precision(rels, 4, recall=0.6), 4)  # int(2.4 + 0.9) = 3: from rank 5 on
    0.6
    >>> round(interpolated_precision(rels, 4, recall=0.6, convention="trec_eval_10"), 4)  # round(2.4) = 2
    0.6667
    >>> round(interpolated_precision(rels, 4, recall=0.6, convention="textbook"), 4)  # recall 0.75 >= 0.6
    0.6
    """
    recall = _check_recall_level(recall, "interpolated precision")
    check_choice(convention, PR_CONVENTIONS, name="convention")
    relevant, n_relevant = _hits(rels, n_relevant)
    hits = np.cumsum(relevant)
    precision = hits / np.arange(1, len(hits) + 1) if len(hits) else np.zeros(0)
    return _interpolated_at(precision, hits, n_relevant, recall, convention)


def eleven_point_average_precision(rels, n_relevant, *, convention="trec_eval_9"):
    r"""11-point interpolated average precision: the mean of P_interp at recall 0, 0.1, ..., 1.

    Parameters
    ----------
    rels : sequence of float
        Grades of the retrieved documents in rank order; a grade > 0 is
        relevant, unjudged documents count as not relevant.
    n_relevant : int
        R, the number of relevant documents of the query (found or not).
    convention : {"trec_eval_9", "trec_eval_10", "textbook"}, default "trec_eval_9"
        How a recall level is read (see :func:`interpolated_precision`).

    Returns
    -------
    float
        In [0, 1]; 0.0 when R = 0 or the ranking is empty.

    See Also
    --------
    interpolated_precision, precision_recall_curve, average_precision

    Notes
    -----
    .. math::

        11pt = \frac{1}{11} \sum_{r \in \{0, 0.1, \dots, 1\}} P_{interp}(r)

    Equal to trec_eval's ``11pt_avg`` (of trec_eval 9 and pytrec_eval by
    default; ``convention="trec_eval_10"`` for trec_eval 10).  Like AP it estimates the area under
    the (interpolated) precision-recall curve; trec_eval calls it obsolete
    and recommends MAP, but older papers and textbooks report it.

    References
    ----------
    .. [1] C. D. Manning, P. Raghavan, H. Schütze, *Introduction to
       Information Retrieval*, sec. 8.4, Cambridge University Press, 2008.
    .. [2] G. Salton, M. J. McGill, *Introduction to Modern Information
       Retrieval*, McGraw-Hill, 1983.

    Examples
    --------
    >>> from ragmetrics_edu.retrieval.order_aware import eleven_point_average_precision
    >>> # R = 2, relevant at ranks 1 and 2: precision 1 at every level
    >>> eleven_point_average_precision([1, 1, 0], n_relevant=2)
    1.0
    >>> # relevant at ranks 2 and 4: every level reads 1/2 (rank 2) or 2/4 (rank 4)
    >>> round(eleven_point_average_precision([0, 1, 0, 1], n_relevant=2), 4)
    0.5
    """
    check_choice(convention, PR_CONVENTIONS, name="convention")
    relevant, n_relevant = _hits(rels, n_relevant)
    hits = np.cumsum(relevant)
    precision = hits / np.arange(1, len(hits) + 1) if len(hits) else np.zeros(0)
    values = [
        _interpolated_at(precision, hits, n_relevant, level, convention)
        for level in ELEVEN_POINTS
    ]
    return math.fsum(values) / len(values)
