r"""Order-unaware retrieval metrics: Precision@k, Recall@k, F1@k, HitRate@k.

These metrics look at the *set* of the top ``k`` retrieved documents: which
of them are relevant, not in which order.  Reordering the documents inside
the top ``k`` never changes them.  Every score here is in [0, 1] and higher
is better.

Every function takes ``rels``, the grades of the retrieved documents in rank
order, the way the seeds write an example: ``[1, 0, 1, 0, 1]`` means the
documents at ranks 1, 3 and 5 are relevant.  Graded lists such as
``[5, 3, 5, 0, 2]`` are accepted too: for these binary metrics a grade
greater than 0 counts as relevant.  trec_eval (``-l 1``, its default
relevance level) and ranx count a grade >= 1 as relevant: the same rule for
integer grades, but a fractional grade in (0, 1) counts as relevant here
and not there.  An empty ranking is valid and scores 0.

Two conventions differ between libraries and are named here, never picked
silently:

* **Precision@k when fewer than k documents were retrieved.**  trec_eval's
  ``P_k`` and ranx's ``precision@k`` divide by ``k`` (missing ranks count as
  not relevant); some libraries divide by the number of documents actually
  shown, ``min(k, len(rels))``.  ``denominator="k"`` (default) or
  ``denominator="retrieved"``.
* **Recall when the query has no relevant document.**  Recall is 0/0; we
  return 0.0, as trec_eval and ranx do.
"""

import numpy as np

from .._deprecation import formerly_positional
from .._validation import check_choice, check_k, check_n_relevant, check_rels
from .tied_scores import check_tie_scores, expected_hits, tie_averaged_hit_rate

__all__ = ["precision_at_k", "recall_at_k", "f1_at_k", "hit_rate_at_k"]

PRECISION_DENOMINATORS = ("k", "retrieved")
"""Names of the two Precision@k conventions (see :func:`precision_at_k`)."""


def _relevant_in_top_k(rels, k, scores=None):
    """The number of relevant documents (grade > 0) among the top ``k``.

    With ``scores`` (tied documents in no order), a tie group that the
    cut-off splits counts its share of the relevant documents
    (:func:`~ragmetrics_edu.retrieval.tied_scores.expected_hits`).
    """
    if scores is not None:
        return expected_hits((rels > 0).tolist(), check_tie_scores(scores, len(rels)), k=k)
    return int(np.count_nonzero(rels[:k] > 0))


def precision_at_k(rels, k, *, denominator="k", scores=None):
    r"""Precision@k: the fraction of the top ``k`` documents that are relevant.

    Parameters
    ----------
    rels : sequence of float
        Grades of the retrieved documents in rank order; a grade > 0 is
        relevant.
    k : int
        Cut-off, a positive integer.
    denominator : {"k", "retrieved"}, default "k"
        ``"k"`` divides by ``k``: ranks beyond the end of the ranking count as
        not relevant (trec_eval's ``P_k``, ranx's ``precision@k``).
        ``"retrieved"`` divides by the number of documents actually in the
        top ``k``, ``min(k, len(rels))``; an empty ranking scores 0.
    scores : sequence of float, optional
        The scores of the ranked documents, best first.  When given, documents
        with equal scores are a tie with no order, and the value is the mean
        over every order of each tie (scikit-learn's ``ignore_ties=False``;
        :mod:`~ragmetrics_edu.retrieval.tied_scores`): a tie group that the
        cut-off splits counts its share of relevant documents.

    Returns
    -------
    float
        Precision@k, in [0, 1].

    See Also
    --------
    recall_at_k : the fraction of all relevant documents found in the top k.
    f1_at_k : harmonic mean of the two.

    Notes
    -----
    .. math::

        \mathrm{Precision@}k = \frac{|\{i \le k : rel_i > 0\}|}{k}

    The two denominators agree whenever at least ``k`` documents were
    retrieved.

    References
    ----------
    .. [1] C. D. Manning, P. Raghavan, H. Schütze, *Introduction to
       Information Retrieval*, ch. 8, Cambridge University Press, 2008.

    Examples
    --------
    The slides' example: 5 documents retrieved, relevant at ranks 1, 3, 5.

    >>> from ragmetrics_edu.retrieval.order_unaware import precision_at_k
    >>> rels = [1, 0, 1, 0, 1]
    >>> round(precision_at_k(rels, 2), 4)  # 1 of the top 2 is relevant
    0.5
    >>> round(precision_at_k(rels, 5), 4)  # 3 of the top 5 are relevant
    0.6

    Only 5 documents were retrieved; at k = 10 the 5 missing ranks count as
    not relevant, unless we divide by what was retrieved:

    >>> round(precision_at_k(rels, 10), 4)  # 3 / 10
    0.3
    >>> round(precision_at_k(rels, 10, denominator="retrieved"), 4)  # 3 / 5
    0.6

    Ranks 2 and 3 tie: either one may be second, so the top 2 hold 1.5
    relevant documents on average:

    >>> precision_at_k(rels, 2, scores=[0.9, 0.5, 0.5, 0.3, 0.1])  # (1 + 1/2) / 2
    0.75
    """
    rels = check_rels(rels)
    k = check_k(k)
    check_choice(denominator, PRECISION_DENOMINATORS, name="denominator")
    hits = _relevant_in_top_k(rels, k, scores)
    if denominator == "k":
        return float(hits / k)
    shown = min(k, len(rels))
    if shown == 0:  # nothing retrieved: no document is relevant
        return 0.0
    return float(hits / shown)


@formerly_positional("n_relevant")
def recall_at_k(rels, k, *, n_relevant, scores=None):
    r"""Recall@k: the fraction of the query's relevant documents in the top ``k``.

    Parameters
    ----------
    rels : sequence of float
        Grades of the retrieved documents in rank order; a grade > 0 is
        relevant.
    k : int
        Cut-off, a positive integer.
    n_relevant : int
        How many relevant documents the query has in the whole collection
        (retrieved or not).  It cannot be smaller than the number of relevant
        documents in ``rels`` (the whole given ranking, not only its top
        ``k``: every document of ``rels`` was retrieved, so each relevant one
        is a relevant document of the query).
    scores : sequence of float, optional
        The ranked documents' scores, best first: ties averaged over, as in
        :func:`precision_at_k`.

    Returns
    -------
    float
        Recall@k, in [0, 1].  0.0 when ``n_relevant`` is 0 (recall is then
        0/0; trec_eval and ranx also give 0).

    See Also
    --------
    precision_at_k, f1_at_k, hit_rate_at_k

    Notes
    -----
    .. math::

        \mathrm{Recall@}k = \frac{|RD \cap Top_k|}{|RD|}
        = \frac{|\{i \le k : rel_i > 0\}|}{n_{relevant}}

    Recall@k never decreases as ``k`` grows.

    References
    ----------
    .. [1] C. D. Manning, P. Raghavan, H. Schütze, *Introduction to
       Information Retrieval*, ch. 8, Cambridge University Press, 2008.

    Examples
    --------
    The slides' example: the query has 10 relevant documents.

    >>> from ragmetrics_edu.retrieval.order_unaware import recall_at_k
    >>> rels = [1, 0, 1, 0, 1]
    >>> round(recall_at_k(rels, 3, n_relevant=10), 4)  # 2 of the 10 are in the top 3
    0.2

    The article's "cat in a box": relevant at ranks 2, 4, 5 and 7 of 8.

    >>> cats = [0, 1, 0, 1, 1, 0, 1, 0]
    >>> [recall_at_k(cats, k, n_relevant=4) for k in range(1, 9)]  # never decreases in k
    [0.0, 0.25, 0.25, 0.5, 0.75, 0.75, 1.0, 1.0]
    """
    rels = check_rels(rels)
    k = check_k(k)
    found = _relevant_in_top_k(rels, len(rels))
    n_relevant = check_n_relevant(n_relevant, found=found)
    if n_relevant == 0:  # no relevant document exists: 0/0, defined as 0
        return 0.0
    return float(_relevant_in_top_k(rels, k, scores) / n_relevant)


@formerly_positional("n_relevant")
def f1_at_k(rels, k, *, n_relevant, denominator="k", scores=None):
    r"""F1@k: the harmonic mean of Precision@k and Recall@k.

    Parameters
    ----------
    rels : sequence of float
        Grades of the retrieved documents in rank order; a grade > 0 is
        relevant.
    k : int
        Cut-off, a positive integer.
    n_relevant : int
        How many relevant documents the query has (see :func:`recall_at_k`).
    denominator : {"k", "retrieved"}, default "k"
        The Precision@k convention (see :func:`precision_at_k`).
    scores : sequence of float, optional
        The ranked documents' scores, best first: ties averaged over, as in
        :func:`precision_at_k`.

    Returns
    -------
    float
        F1@k, in [0, 1]; 0.0 when Precision@k + Recall@k = 0.

    See Also
    --------
    precision_at_k, recall_at_k

    Notes
    -----
    .. math::

        F_1@k = \frac{2 \cdot P@k \cdot R@k}{P@k + R@k}

    With ``denominator="k"`` this equals
    :math:`2\,|\{i \le k: rel_i > 0\}| / (k + n_{relevant})`.

    References
    ----------
    .. [1] C. J. van Rijsbergen, *Information Retrieval*, 2nd ed., ch. 7,
       Butterworths, 1979.

    Examples
    --------
    The slides' F1@3 example (10 relevant documents):

    >>> from ragmetrics_edu.retrieval.order_unaware import f1_at_k
    >>> rels = [1, 0, 1, 0, 1]
    >>> # P@3 = 2/3 (2 of the top 3), R@3 = 2/10; the slide used P@3 = 0.5
    >>> round(f1_at_k(rels, 3, n_relevant=10), 4)  # 2*(2/3)*0.2 / (2/3 + 0.2)
    0.3077
    >>> f1_at_k([0, 0, 0], 3, n_relevant=4)  # nothing relevant: P = R = 0
    0.0
    """
    p = precision_at_k(rels, k, denominator=denominator, scores=scores)
    r = recall_at_k(rels, k, n_relevant=n_relevant, scores=scores)
    if p + r == 0:  # both zero: F1 is defined as 0
        return 0.0
    return float(2 * p * r / (p + r))


def hit_rate_at_k(rels, k, *, scores=None):
    r"""HitRate@k: 1.0 if at least one of the top ``k`` documents is relevant, else 0.0.

    Parameters
    ----------
    rels : sequence of float
        Grades of the retrieved documents in rank order; a grade > 0 is
        relevant.
    k : int
        Cut-off, a positive integer.
    scores : sequence of float, optional
        The ranked documents' scores, best first: ties averaged over (the
        probability that a relevant document is in the top k, over every
        order of the ties).

    Returns
    -------
    float
        1.0 or 0.0 (a probability with ``scores``).  Averaged over queries
        it is the fraction of queries
        with a hit (ranx's ``hit_rate@k``, also called success@k).

    See Also
    --------
    recall_at_k
    ragmetrics_edu.retrieval.order_aware.reciprocal_rank : also looks only for the
        first relevant document, but rewards finding it early.

    Notes
    -----
    .. math::

        \mathrm{HitRate@}k = \mathbb{1}\left[\exists\, i \le k : rel_i > 0\right]

    Examples
    --------
    >>> from ragmetrics_edu.retrieval.order_unaware import hit_rate_at_k
    >>> hit_rate_at_k([0, 1, 0, 1, 1], 1)  # the top document is not relevant
    0.0
    >>> hit_rate_at_k([0, 1, 0, 1, 1], 2)  # rank 2 is relevant
    1.0
    """
    rels = check_rels(rels)
    k = check_k(k)
    if scores is not None:
        return tie_averaged_hit_rate((rels > 0).tolist(), check_tie_scores(scores, len(rels)), k=k)
    return 1.0 if _relevant_in_top_k(rels, k) > 0 else 0.0
