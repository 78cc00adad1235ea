r"""Graded relevance metrics: CG, DCG, IDCG and NDCG.

A document is not just relevant or not: it has a grade, e.g. 0 (useless) to
5 (perfect).  ``rels`` is the grades of the retrieved documents in rank order,
as the seeds write them (``[5, 3, 5, 0, 2]``).  ``k`` is a positive integer,
or None for the whole ranking.  An empty ranking is valid and scores 0.

NDCG is in [0, 1] and higher is better; CG, DCG and IDCG are unbounded sums
of gains (higher is better too, but they are not comparable across queries).

The conventions that differ between libraries, each a keyword away:

* **Gain.**  ``gain="linear"`` uses the grade itself (Järvelin & Kekäläinen
  2002; the seeds, trec_eval's ``ndcg``, ranx's ``ndcg``, scikit-learn's
  ``ndcg_score``).  ``gain="exponential"`` uses :math:`2^{rel} - 1` (Burges
  et al. 2005; ranx's ``ndcg_burges``), which rewards the top grades more.
* **Discount.**  Always :math:`1/\log_2(i + 1)` at rank ``i``: rank 1 is not
  discounted.  This form is Burges et al. 2005 ("Learning to rank using
  gradient descent", ICML), used by trec_eval, ranx and scikit-learn.
  Järvelin & Kekäläinen's original DCG (2002) discounts by
  :math:`\log_b(i)` only from rank ``b`` on (ranks below ``b`` are not
  discounted; ``b = 2`` in their examples), which differs from rank 2 on.
* **The ideal ranking behind IDCG.**  By default it is the *given* grades
  sorted best first: the seeds' convention, and scikit-learn's, which sees
  only the items it is passed.  With ``ideal=`` you pass the grades of *all*
  judged documents of the query, retrieved or not (trec_eval's and ranx's
  convention); then a system that misses a highly relevant document is
  penalised, which the default cannot notice.  Those judged grades may be
  negative, as in TREC qrels (-1 or -2 for junk); they count as 0.
* **IDCG = 0** (no document with a positive grade): NDCG is 0.0, as in
  trec_eval, ranx and scikit-learn.
"""

import math

import numpy as np

from .._deprecation import formerly_positional
from .._validation import check_choice, check_k, check_rels, describe
from .tied_scores import check_tie_scores, tie_averaged_dcg
__all__ = ["cumulative_gain", "dcg_at_k", "idcg_at_k", "ndcg_at_k", "GAINS"]

GAINS = ("linear", "exponential")
"""Gain of a grade ``g`` in DCG: ``g`` (trec_eval) or ``2**g - 1`` (Burges et al.)."""


def _top(rels, k):
    """The first ``k`` grades (all of them when ``k`` is None)."""
    return rels if k is None else rels[:k]


def gain_values(grades, gain, where=None):
    """Gain of each grade: the grade (linear) or 2**grade - 1 (exponential).

    ``grades`` is a float array.  2**grade overflows a float from grade 1024
    on: that raises a ``ValueError`` naming the grade, and, if ``where`` is
    given, ``where(i)`` of its index (``rm.evaluate`` says which document
    of which query).
    """
    if gain == "linear":
        return grades
    with np.errstate(over="ignore"):
        gains = np.power(2.0, grades) - 1.0
    overflow = np.flatnonzero(~np.isfinite(gains))
    if len(overflow):
        i = int(overflow[0])
        of = f" ({where(i)})" if where is not None else ""
        raise ValueError(
            f"gain='exponential' overflows a float for grade {grades[i]:g}{of}: "
            "2**grade exceeds 1.8e308 for grades of 1024 and more; use gain='linear'"
        )
    return gains


def dcg_overflow_error(grades, gain, where=None):
    """The ``ValueError`` for a DCG whose sum of finite gains overflows a float."""
    of = f" ({where})" if where is not None else ""
    return ValueError(
        f"DCG overflows a float: the sum of the {gain} gains of the grades "
        f"{np.asarray(grades).tolist()}{of} exceeds 1.8e308"
    )


def rank_discounts(n):
    """log2(i + 1) for the ranks i = 1..n: 1, 1.585, 2, 2.322, 2.585, ..."""
    return np.log2(np.arange(2, n + 2, dtype=np.float64))


def _dcg(grades, gain):
    """DCG of grades already cut at k: sum of gain_i / log2(i + 1).

    ``math.fsum`` adds the terms without rounding error, so the result does
    not depend on how the terms are grouped (the batch path is tested
    against it).
    """
    terms = (gain_values(grades, gain) / rank_discounts(len(grades))).tolist()
    try:
        return math.fsum(terms)
    except OverflowError:
        raise dcg_overflow_error(grades, gain) from None


def ideal_grades(rels, ideal):
    """The grades behind IDCG, best first: ``rels`` sorted, or ``ideal`` sorted.

    ``ideal`` holds the grades of all judged documents of the query, so it
    must contain at least the grades retrieved: after sorting both best
    first, the i-th best retrieved grade may not exceed the i-th best ideal
    grade (otherwise DCG could exceed IDCG and NDCG exceed 1).  A negative
    judged grade (TREC's -1 or -2 for junk) is not relevant and brings no
    gain, as in trec_eval: it counts as 0.
    """
    if ideal is None:
        return np.sort(rels)[::-1]
    judged = check_rels(ideal, name="ideal", allow_negative=True)
    ideal = np.sort(np.maximum(judged, 0.0))[::-1]
    got = np.sort(rels[rels > 0])[::-1]
    if len(got) > np.count_nonzero(ideal > 0) or np.any(got > ideal[: len(got)]):
        raise ValueError(
            "ideal must hold the grades of all judged documents of the query, "
            f"including the retrieved ones; the retrieved grades {got.tolist()} "
            f"do not fit in ideal {np.sort(judged)[::-1].tolist()}"
        )
    return ideal


def cumulative_gain(rels, k):
    r"""Cumulative gain CG@k: the sum of the top ``k`` grades, order ignored.

    Parameters
    ----------
    rels : sequence of float
        Grades of the retrieved documents in rank order.
    k : int or None
        Cut-off, a positive integer; None means the whole ranking.

    Returns
    -------
    float
        CG@k, a non-negative sum (not normalised).

    See Also
    --------
    dcg_at_k : the same sum with a discount for lower ranks.

    Notes
    -----
    .. math::

        CG@k = \sum_{i=1}^{k} rel_i

    Examples
    --------
    The article: the first two images have grades 0 and 4.

    >>> from ragmetrics_edu.retrieval.graded import cumulative_gain
    >>> cumulative_gain([0, 4], 2)  # 0 + 4
    4.0
    >>> cumulative_gain([4, 0], 2)  # swapped: CG does not see the order
    4.0
    """
    rels = check_rels(rels)
    k = check_k(k, allow_none=True)
    try:
        return math.fsum(_top(rels, k).tolist())
    except OverflowError:  # finite grades whose sum is not
        raise ValueError(
            f"CG overflows a float: the sum of the grades rels={describe(_top(rels, k).tolist())} "
            "exceeds 1.8e308"
        ) from None


def _tie_averaged(rels, k, gain, scores):
    """DCG@k with ties averaged (:func:`~ragmetrics_edu.retrieval.tied_scores.tie_averaged_dcg`)."""
    try:
        return tie_averaged_dcg(rels.tolist(), check_tie_scores(scores, len(rels)), k=k, gain=gain)
    except OverflowError:
        raise dcg_overflow_error(rels, gain) from None


@formerly_positional("gain")
def dcg_at_k(rels, k, *, gain="linear", scores=None):
    r"""Discounted cumulative gain DCG@k.

    Parameters
    ----------
    rels : sequence of float
        Grades of the retrieved documents in rank order.
    k : int or None
        Cut-off, a positive integer; None means the whole ranking.  Ranks
        beyond the end of ``rels`` add nothing.
    gain : {"linear", "exponential"}, default "linear"
        ``"linear"``: the grade :math:`rel_i` (the seeds, ranx ``dcg``).
        ``"exponential"``: :math:`2^{rel_i} - 1` (ranx ``dcg_burges``); a
        ``ValueError`` for grades of 1024 and more, where it overflows a float.
    scores : sequence of float, optional
        The ranked documents' scores, best first.  When given, tied documents
        share the mean gain of their tie group (scikit-learn's ``dcg_score``
        and its ``_tie_averaged_dcg``, McSherry & Najork 2008), and, as in
        ``dcg_score``, a negative grade is a negative gain.

    Returns
    -------
    float
        DCG@k, a non-negative sum (not normalised).

    See Also
    --------
    idcg_at_k, ndcg_at_k, cumulative_gain

    Notes
    -----
    .. math::

        DCG@k = \sum_{i=1}^{k} \frac{rel_i}{\log_2(i + 1)}
        \qquad\text{or}\qquad
        \sum_{i=1}^{k} \frac{2^{rel_i} - 1}{\log_2(i + 1)}

    The discounts :math:`\log_2(i+1)` are 1, 1.585, 2, 2.322, 2.585 for
    ranks 1 to 5.  This discount is the one of Burges et al. [2]_, used by
    trec_eval; Järvelin and Kekäläinen's original DCG [1]_ divides by
    :math:`\log_b(i)` from rank :math:`i = b` on and leaves the ranks
    before ``b`` undiscounted (with ``b = 2``: 1, 1, 1.585, 2, 2.322).

    References
    ----------
    .. [1] K. Järvelin, J. Kekäläinen, "Cumulated gain-based evaluation of
       IR techniques", ACM TOIS 20(4), 2002.
    .. [2] C. Burges et al., "Learning to rank using gradient descent",
       ICML 2005.

    Examples
    --------
    The slides' example, grades [5, 3, 5, 0, 2]:

    >>> from ragmetrics_edu.retrieval.graded import dcg_at_k
    >>> rels = [5, 3, 5, 0, 2]
    >>> round(dcg_at_k(rels, 3), 4)  # 5/1 + 3/1.585 + 5/2
    9.3928
    >>> round(dcg_at_k(rels, 5), 4)  # ... + 0/2.322 + 2/2.585
    10.1665

    Order matters: the article's grades 0, 4 and the same two swapped.

    >>> round(dcg_at_k([0, 4], 2), 4)  # 0/1 + 4/1.585
    2.5237
    >>> round(dcg_at_k([4, 0], 2), 4)  # 4/1 + 0/1.585
    4.0
    >>> round(dcg_at_k([3, 2], 2, gain="exponential"), 4)  # (2**3 - 1)/1 + (2**2 - 1)/1.585
    8.8928
    >>> round(dcg_at_k([0, 4], 2, scores=[0.5, 0.5]), 4)  # a tie: each place gains 2
    3.2619
    """
    rels = check_rels(rels, allow_negative=scores is not None)
    k = check_k(k, allow_none=True)
    check_choice(gain, GAINS, name="gain")
    if scores is not None:
        return _tie_averaged(rels, k, gain, scores)
    return _dcg(_top(rels, k), gain)


@formerly_positional("gain", "ideal")
def idcg_at_k(rels, k, *, gain="linear", ideal=None):
    r"""Ideal DCG@k: the DCG@k of the best possible ordering.

    Parameters
    ----------
    rels : sequence of float
        Grades of the retrieved documents in rank order.
    k : int or None
        Cut-off, a positive integer; None means the whole ranking (with
        ``ideal=``, all judged documents).
    gain : {"linear", "exponential"}, default "linear"
        See :func:`dcg_at_k`.
    ideal : sequence of float or None, default None
        None (the seeds' and scikit-learn's convention): the ideal ordering is
        ``rels`` sorted best first.  Otherwise the grades of *all* judged
        documents of the query, retrieved or not, in any order (trec_eval's
        and ranx's convention); they are sorted best first.  They must
        include the retrieved grades (a ``ValueError`` says which do not
        fit).  Negative grades are valid here, as in TREC qrels (-1 or -2
        for junk): like trec_eval, they count as 0, not relevant and no
        gain.

    Returns
    -------
    float
        IDCG@k, a non-negative sum.

    See Also
    --------
    dcg_at_k, ndcg_at_k

    Notes
    -----
    .. math::

        IDCG@k = \sum_{i=1}^{k} \frac{rel^{*}_i}{\log_2(i + 1)},
        \qquad rel^{*} = \text{the grades sorted in decreasing order}

    Examples
    --------
    The slides: [5, 3, 5, 0, 2] sorted is [5, 5, 3, 2, 0].

    >>> from ragmetrics_edu.retrieval.graded import idcg_at_k
    >>> rels = [5, 3, 5, 0, 2]
    >>> round(idcg_at_k(rels, 3), 4)  # 5/1 + 5/1.585 + 3/2
    9.6546
    >>> round(idcg_at_k(rels, 5), 4)  # ... + 2/2.322 + 0/2.585
    10.516

    If the collection holds a judged document of grade 5 that was not
    retrieved, the ideal ranking starts 5, 5, 5:

    >>> round(idcg_at_k(rels, 3, ideal=[5, 5, 5, 3, 2]), 4)  # 5/1 + 5/1.585 + 5/2
    10.6546

    A judged grade of -1 (junk) counts as 0, as in trec_eval:

    >>> round(idcg_at_k([2, 0], 2, ideal=[2, 1, -1]), 4)  # 2/1 + 1/1.585
    2.6309
    """
    rels = check_rels(rels)
    k = check_k(k, allow_none=True)
    check_choice(gain, GAINS, name="gain")
    return _dcg(_top(ideal_grades(rels, ideal), k), gain)


@formerly_positional("gain", "ideal")
def ndcg_at_k(rels, k, *, gain="linear", ideal=None, scores=None):
    r"""Normalized DCG@k: DCG@k divided by the ideal DCG@k.

    Parameters
    ----------
    rels : sequence of float
        Grades of the retrieved documents in rank order.
    k : int or None
        Cut-off, a positive integer; None means the whole ranking.
    gain : {"linear", "exponential"}, default "linear"
        See :func:`dcg_at_k`.
    ideal : sequence of float or None, default None
        The ideal ordering's grades (see :func:`idcg_at_k`): None sorts
        ``rels`` (the seeds, scikit-learn), a list gives all judged grades of
        the query (trec_eval, ranx); negative judged grades count as 0.
    scores : sequence of float, optional
        The ranked documents' scores, best first: tied documents share the
        mean gain of their tie group in DCG (scikit-learn's ``ndcg_score``
        with ``ignore_ties=False``); the ideal ranking has no ties.

    Returns
    -------
    float
        NDCG@k in [0, 1]; 0.0 when IDCG@k is 0 (no positive grade).

    See Also
    --------
    dcg_at_k, idcg_at_k

    Notes
    -----
    .. math::

        NDCG@k = \frac{DCG@k}{IDCG@k}

    With the default ``ideal=None`` NDCG judges only the *order* of what was
    retrieved: a ranking of three irrelevant documents and one of grade 1
    scores 1.0 if the grade-1 document comes first.  Pass ``ideal=`` to also
    judge *what* was retrieved.

    References
    ----------
    .. [1] K. Järvelin, J. Kekäläinen, "Cumulated gain-based evaluation of
       IR techniques", ACM TOIS 20(4), 2002.
    .. [2] Y. Wang et al., "A Theoretical Analysis of NDCG Ranking Measures",
       COLT 2013.

    Examples
    --------
    >>> from ragmetrics_edu.retrieval.graded import ndcg_at_k
    >>> rels = [5, 3, 5, 0, 2]
    >>> round(ndcg_at_k(rels, 3), 4)  # 9.3928 / 9.6546
    0.9729
    >>> round(ndcg_at_k(rels, 5), 4)  # 10.1665 / 10.516
    0.9668
    >>> ndcg_at_k([5, 5, 3, 2, 0], 5)  # already the ideal order
    1.0
    >>> ndcg_at_k([0, 0, 0], 3)  # nothing relevant: IDCG = 0, NDCG defined as 0
    0.0
    """
    rels = check_rels(rels)
    k = check_k(k, allow_none=True)
    check_choice(gain, GAINS, name="gain")
    dcg = _dcg(_top(rels, k), gain) if scores is None else _tie_averaged(rels, k, gain, scores)
    idcg = _dcg(_top(ideal_grades(rels, ideal), k), gain)
    if idcg == 0.0:  # no positive grade at all: nothing to normalise by
        return 0.0
    return float(dcg / idcg)
