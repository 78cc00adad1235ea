r"""User-model metrics: Expected Reciprocal Rank (ERR) and Rank-Biased Precision (RBP).

NDCG discounts rank i by :math:`1/\log_2(i + 1)` because "lower ranks
matter less"; these two metrics say *why*, with a model of a user who
reads the ranking from the top and stops at some point.

* **RBP** (Moffat and Zobel 2008): after each document the user goes on to
  the next one with probability p (patience) and stops with probability
  1 - p.  p = 0.5 is an impatient user who reads 2 documents on average,
  p = 0.95 a patient one who reads 20 (the expected depth is 1 / (1 - p)).
* **ERR** (Chapelle et al. 2009): the user stops once *satisfied*; a
  highly relevant document satisfies with high probability, so what comes
  after a perfect answer barely counts ("cascade" model).

Both scores are in [0, 1] and higher is better.  ``rels`` is the grades of
the retrieved documents in rank order, with ``None`` (or ``nan``) for a
document that has no judgement, e.g. ``[3, None, 0, 1]``.  Ties in the
scores must be broken before calling.  An empty ranking scores 0.

The conventions that differ between libraries:

* **ERR's maximum grade.**  The stopping probability of grade g is
  :math:`(2^g - 1) / 2^{g_{max}}`.  ``max_grade=4`` is gdeval's
  ``$MAX_JUDGMENT`` (TREC Web track, grades 0-4, and ir_measures' gdeval
  provider); other code uses the largest grade of the collection or of the
  query, which changes every value.  A grade above ``max_grade`` is an
  error (gdeval stops with a format error too).
* **RBP's relevance.**  Binary by default, a grade >= 1 is relevant: the
  ``cwl-eval`` package through ir_measures (``RBP(p=0.8, rel=1)``).
  ``relevance="graded"`` uses grade / ``max_grade`` (Moffat and Zobel's
  graded form; cwl-eval scales grades in the same way).  (``gain`` names
  DCG's gain function, linear or exponential, in :mod:`.graded`; ``gain=``,
  the old name of this argument, still works with a DeprecationWarning.)
* **RBP's residual.**  Moffat and Zobel report RBP as "score + residual":
  the weight of the ranks whose relevance is unknown, the unjudged ones and
  every rank beyond the end of the ranking.  The true RBP of the run lies
  between score and score + residual.  ``cwl-eval`` computes the same
  residual, but up to rank 1000 only.
* **Negative and missing grades** bring no gain.  A negative grade is a
  judgement (of a useless document): it does not count in the residual.
"""

import math
import numbers

import numpy as np

from .._deprecation import renamed_arguments, warn_renamed
from .._validation import check_choice, check_judged_rels, check_k, check_real, describe

__all__ = ["err_at_k", "rank_biased_precision", "rbp_residual", "RBP_RELEVANCE",
           "check_persistence", "check_max_grade", "MAX_GRADE_LIMIT"]

RBP_RELEVANCE = ("binary", "graded")
"""How RBP reads a grade: relevant or not, or graded (see :func:`rank_biased_precision`)."""


def __getattr__(name):
    if name == "RBP_GAINS":  # the old name of RBP_RELEVANCE
        warn_renamed("RBP_GAINS is renamed RBP_RELEVANCE")
        return RBP_RELEVANCE
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


MAX_GRADE_LIMIT = 1023
"""The largest ``max_grade`` of ERR: :math:`2^{g_{max}}` must be a finite double."""


def check_max_grade(max_grade, metric, *, limit=None):
    """``max_grade`` as a float: a positive number, at most ``limit`` if one is given.

    The bounds of the parameter, written once: the readable functions and
    the metric names of :func:`~ragmetrics_edu.evaluate` (``"err(max_grade=3)"``)
    both check it here; ``metric`` names the measure in the message.

    Parameters
    ----------
    max_grade : float
        The top of the grading scale: a finite number above 0 (not a bool).
    metric : str
        The measure's name, named in the message (``"ERR"``).
    limit : float or None, default None
        The largest value allowed (ERR and the metric names pass
        :data:`MAX_GRADE_LIMIT`, 1023, so that 2**max_grade fits in a float); None
        sets no limit.
    """
    if isinstance(max_grade, bool) or not isinstance(max_grade, numbers.Real):
        raise ValueError(f"{metric}: max_grade must be a positive number, got {describe(max_grade)}")
    check_real(max_grade, name=f"{metric}: max_grade")
    if not math.isfinite(max_grade) or max_grade <= 0:
        raise ValueError(
            f"{metric}: max_grade must be a positive number, got {max_grade!r}"
        )
    if limit is not None and max_grade > limit:
        raise ValueError(f"{metric}: max_grade must be at most {limit} (2**max_grade must fit "
                         f"in a float), got {max_grade!r}")
    return float(max_grade)


def _check_max_grade(max_grade, grades, metric, limit=None):
    """``max_grade`` checked (:func:`check_max_grade`), and at least every grade of the ranking."""
    max_grade = check_max_grade(max_grade, metric, limit=limit)
    judged = grades[~np.isnan(grades)]
    if len(judged) and judged.max() > max_grade:
        raise ValueError(
            f"{metric}: max_grade={max_grade:g} is below the largest grade in the "
            f"ranking, {judged.max():g}; pass max_grade >= {judged.max():g} "
            "(the top of the grading scale)"
        )
    return max_grade


def check_persistence(p, metric="RBP"):
    """The persistence ``p`` of RBP as a float, strictly between 0 and 1 (its bounds, written once).

    Parameters
    ----------
    p : float
        The persistence: a number strictly between 0 and 1 (not a bool).
    metric : str, default "RBP"
        The measure's name, named in the message.
    """
    if isinstance(p, bool) or not isinstance(p, numbers.Real) or not 0 < p < 1:
        raise ValueError(
            f"{metric}: the persistence p must be strictly between 0 and 1, got p={p!r}"
        )
    return float(p)


def err_at_k(rels, k=None, *, max_grade=4):
    r"""Expected Reciprocal Rank (ERR@k): 1 / the rank where a cascade user stops, expected.

    Parameters
    ----------
    rels : sequence of float or None
        Grades of the retrieved documents in rank order.  ``None`` (or
        ``nan``, unjudged) and negative grades count as 0, as in gdeval.
    k : int or None, default None
        Only the top ``k`` documents are read (ERR@k); None means the whole
        ranking.
    max_grade : float, default 4
        :math:`g_{max}`, the top of the grading scale: gdeval's default
        (``$MAX_JUDGMENT = 4``).  It must be at least the largest grade in
        ``rels``.

    Returns
    -------
    float
        ERR@k in [0, 1); 0.0 with no positive grade in the top ``k``.

    Raises
    ------
    ValueError
        If ``max_grade`` is below a grade of ``rels``, not positive, or above
        1023 (:math:`2^{g_{max}}` must be a finite double).

    See Also
    --------
    rank_biased_precision
    ragmetrics_edu.retrieval.graded.ndcg_at_k
    ragmetrics_edu.retrieval.order_aware.reciprocal_rank : ERR with binary grades and
        a user always satisfied by a relevant document.

    Notes
    -----
    The user reads from rank 1 and, at rank i, is satisfied (and stops) with
    probability :math:`R_i`:

    .. math::

        R_i = \frac{2^{g_i} - 1}{2^{g_{max}}}, \qquad
        ERR@k = \sum_{i=1}^{k} \frac{1}{i} \, R_i \prod_{j=1}^{i-1} (1 - R_j)

    :math:`\prod_{j<i}(1 - R_j)` is the probability of reaching rank i
    unsatisfied.  Equal to gdeval's ``err@k`` (TREC Web track 2010-2014, and
    ir_measures' ``ERR@k`` through its gdeval provider), which prints 5
    decimals.  gdeval breaks score ties by document id, descending (like
    trec_eval), but compares scores as double-precision numbers.

    References
    ----------
    .. [1] O. Chapelle, D. Metzler, Y. Zhang, P. Grinspan, "Expected
       Reciprocal Rank for Graded Relevance", CIKM 2009.
    .. [2] gdeval.pl, TREC Web track evaluation script (version 1.2a), as
       shipped with ir_measures.

    Examples
    --------
    >>> from ragmetrics_edu.retrieval.user_models import err_at_k
    >>> round(err_at_k([4]), 4)  # (2**4 - 1) / 2**4
    0.9375
    >>> # a grade-2 then a grade-4: 3/16 + (1/2) * 15/16 * (1 - 3/16)
    >>> round(err_at_k([2, 4]), 4)
    0.5684
    >>> round(err_at_k([4, 2]), 4)  # the perfect document first
    0.9434
    >>> round(err_at_k([4, 2], max_grade=5), 4)  # 15/32 + (1/2) * 17/32 * 3/32
    0.4937
    """
    grades = check_judged_rels(rels)
    k = check_k(k, allow_none=True)
    max_grade = _check_max_grade(max_grade, grades, "ERR", limit=MAX_GRADE_LIMIT)
    top = grades if k is None else grades[:k]
    top = np.where(np.isnan(top) | (top < 0), 0.0, top)  # no gain
    stop = (np.power(2.0, top) - 1.0) / 2.0 ** max_grade  # R_i
    # probability of reaching rank i unsatisfied: prod_{j < i} (1 - R_j)
    reach = np.cumprod(np.concatenate(([1.0], 1.0 - stop[:-1])))
    ranks = np.arange(1, len(top) + 1)
    return math.fsum((reach * stop / ranks).tolist())


def _rbp_weights(n, p):
    """(1 - p) p**(i - 1) for the ranks i = 1..n: the chance the user reads rank i, times 1 - p."""
    return (1.0 - p) * np.power(p, np.arange(n, dtype=np.float64))


@renamed_arguments(gain="relevance")
def rank_biased_precision(rels, p=0.8, *, relevance="binary", max_grade=4):
    r"""Rank-biased precision (RBP): the gain per document read by a user of patience p.

    Parameters
    ----------
    rels : sequence of float or None
        Grades of the retrieved documents in rank order; ``None`` (or
        ``nan``) for an unjudged document, which brings no gain (its weight
        goes to :func:`rbp_residual`).
    p : float, default 0.8
        Persistence, strictly between 0 and 1: the probability of going on
        to the next document.  The user reads :math:`1 / (1 - p)` documents
        on average (5 for p = 0.8).
    relevance : {"binary", "graded"}, default "binary"
        How a grade gains: ``"binary"``, a grade >= 1 gains 1, anything else
        0 (``cwl-eval``'s RBP, ir_measures ``RBP(p=0.8, rel=1)``);
        ``"graded"``, grade / ``max_grade``, negative grades 0.  (Its old
        name ``gain=`` still works, with a DeprecationWarning.)
    max_grade : float, default 4
        The top of the grading scale, for ``relevance="graded"``; it must be at
        least the largest grade in ``rels``.

    Returns
    -------
    float
        RBP in [0, 1], a lower bound of the run's RBP: unjudged documents
        and the ranks beyond the ranking count as 0.

    Raises
    ------
    ValueError
        If ``p`` is not strictly between 0 and 1, or (graded) ``max_grade`` is
        below a grade of ``rels``.

    See Also
    --------
    rbp_residual : how much RBP could still grow.
    err_at_k

    Notes
    -----
    .. math::

        RBP = (1 - p) \sum_{i=1}^{n} g_i \, p^{i-1}

    :math:`p^{i-1}` is the probability that the user reads rank i; the
    weights :math:`(1 - p)p^{i-1}` of all ranks sum to 1, so a ranking of
    infinitely many relevant documents scores 1.  Unlike NDCG there is no
    ideal ranking and no number of relevant documents: RBP does not depend
    on documents that were not retrieved.  ``cwl-eval`` stops at rank 1000
    and divides by :math:`1 - p^{1000}`, a difference below :math:`10^{-22}`
    for p <= 0.95.

    References
    ----------
    .. [1] A. Moffat, J. Zobel, "Rank-biased precision for measurement of
       retrieval effectiveness", ACM TOIS 27(1), 2008.
    .. [2] L. Azzopardi, P. Thomas, A. Moffat, "cwl_eval: An evaluation
       tool for information retrieval", SIGIR 2019.

    Examples
    --------
    >>> from ragmetrics_edu.retrieval.user_models import rank_biased_precision
    >>> rels = [1, 0, 1, None]
    >>> round(rank_biased_precision(rels, p=0.5), 4)  # 0.5 * (1 + 0.5**2)
    0.625
    >>> round(rank_biased_precision(rels, p=0.8), 4)  # 0.2 * (1 + 0.8**2)
    0.328
    >>> round(rank_biased_precision([4, 2], p=0.5, relevance="graded"), 4)  # 0.5 * (4/4 + 0.5 * 2/4)
    0.625
    """
    grades = check_judged_rels(rels)
    p = check_persistence(p)
    check_choice(relevance, RBP_RELEVANCE, name="relevance")
    if relevance == "binary":
        gains = (grades >= 1).astype(np.float64)  # nan >= 1 is False
    else:
        max_grade = _check_max_grade(max_grade, grades, "RBP")
        gains = np.where(np.isnan(grades) | (grades < 0), 0.0, grades) / max_grade
    return math.fsum((_rbp_weights(len(grades), p) * gains).tolist())


def rbp_residual(rels, p=0.8):
    r"""RBP's residual: the weight of the ranks whose relevance is unknown.

    Parameters
    ----------
    rels : sequence of float or None
        Grades in rank order, ``None`` (or ``nan``) for an unjudged
        document.  Only which documents are unjudged matters.
    p : float, default 0.8
        Persistence, strictly between 0 and 1.

    Returns
    -------
    float
        In (0, 1]: the RBP of the run is between
        :func:`rank_biased_precision` and that plus this residual.

    See Also
    --------
    rank_biased_precision

    Notes
    -----
    .. math::

        residual = (1 - p) \sum_{i \le n,\ d_i \text{ unjudged}} p^{i-1}
        \; + \; p^{n}

    The second term is the weight of every rank beyond the n retrieved,
    :math:`(1 - p)\sum_{i > n} p^{i-1} = p^n`: a user may read on past the
    end of a ranking.  Moffat and Zobel report RBP as "score + residual",
    e.g. 0.328 + 0.136.  ``cwl-eval`` (option ``-r``) gives the same up to
    rank 1000.

    References
    ----------
    .. [1] A. Moffat, J. Zobel, "Rank-biased precision for measurement of
       retrieval effectiveness", ACM TOIS 27(1), 2008, sec. 4.

    Examples
    --------
    >>> from ragmetrics_edu.retrieval.user_models import rbp_residual
    >>> round(rbp_residual([1, 0, 1, None], p=0.8), 4)  # 0.2 * 0.8**3 + 0.8**4
    0.512
    >>> round(rbp_residual([1, 0, 1, 0], p=0.8), 4)  # only the tail beyond rank 4
    0.4096
    >>> rbp_residual([], p=0.8)  # nothing known
    1.0
    """
    grades = check_judged_rels(rels)
    p = check_persistence(p, "RBP residual")
    unjudged = np.isnan(grades)
    weights = _rbp_weights(len(grades), p)
    return math.fsum(weights[unjudged].tolist() + [p ** len(grades)])
