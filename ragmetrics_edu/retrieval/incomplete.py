r"""Measures for incomplete judgements: bpref and judged@k.

Test collections are judged by *pooling*: only the documents that the
systems of the time ranked near the top were read by assessors.  A new system
(say a dense retriever) brings up documents nobody judged, and the usual
measures count them as non-relevant.  Two answers:

* **judged@k** says how much of the top k was judged at all: a low value
  warns that the other measures are underestimates.
* **bpref** (Buckley and Voorhees 2004) is computed from the *judged*
  documents only: an unjudged document is skipped, neither good nor bad.

Every score here is in [0, 1] and higher is better.

``rels`` is the grades of the retrieved documents in rank order, with
``None`` (or ``nan``) for a document that has no judgement, e.g.
``[2, None, 0, 1]``.  Ties in the scores must be broken before calling
(:func:`ragmetrics_edu.evaluate` breaks them as trec_eval does).

What a negative judgement means differs between the references, and each
function follows its own:

* :func:`bpref` follows trec_eval: a negative grade marks a document that
  is "in the pool but unjudged" (``form_res_rels.c``), so it is skipped like
  an unjudged one and is not counted among the judged non-relevant.
* :func:`judged_at_k` follows ir_measures: a document with *any* entry in
  the qrels, negative or not, is judged.
"""

import math
import numbers

import numpy as np

from .._deprecation import formerly_positional
from .._validation import check_choice, check_count_limit, check_judged_rels, check_k

__all__ = ["bpref", "judged_at_k", "BPREF_VARIANTS", "JUDGED_DENOMINATORS"]

JUDGED_DENOMINATORS = ("retrieved", "k")
"""What judged@k divides by (see :func:`judged_at_k`)."""

BPREF_VARIANTS = ("trec_eval", "paper", "old_bpref", "bpref10")
"""The bpref formulas :func:`bpref` computes (its ``variant=``); the first is the default."""


def _check_count(value, name, *, found):
    """A non-negative integer count that is at least ``found``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"bpref: {name} must be a non-negative integer, got {value!r}")
    if value < found:
        raise ValueError(
            f"bpref: {name} must be at least the number of such documents "
            f"retrieved ({found}), got {value!r}"
        )
    return int(value)


@formerly_positional("n_nonrelevant")
def bpref(rels, n_relevant, *, n_nonrelevant, variant="trec_eval"):
    r"""Binary preference (bpref): how often judged relevant documents beat judged non-relevant ones.

    Parameters
    ----------
    rels : sequence of float or None
        Grades of the retrieved documents in rank order.  A grade >= 1 is
        relevant, a grade in [0, 1) is judged non-relevant, and ``None``,
        ``nan`` or a negative grade is unjudged and skipped (trec_eval's
        rule, relevance level 1).
    n_relevant : int
        R, the number of judged relevant documents of the query (grade
        >= 1), retrieved or not.
    n_nonrelevant : int
        N, the number of judged non-relevant documents of the query (grade
        in [0, 1); negative grades are not counted), retrieved or not.
    variant : {"trec_eval", "paper", "old_bpref", "bpref10"}, default "trec_eval"
        Which formula (see Notes): ``"trec_eval"``, trec_eval's ``bpref``
        since 8.0 (= pytrec_eval, ir_measures); ``"paper"``, Buckley and
        Voorhees' formula, denominator R; ``"old_bpref"``, trec_eval 7.3's,
        denominator :math:`\min(N_{ret}, R)`; ``"bpref10"``, bpref-10 as
        trec_eval 8 corrected it (``bpref_top10pRnonrel``).

    Returns
    -------
    float
        bpref in [0, 1]; 0.0 when R = 0 (as trec_eval) or the ranking is
        empty.

    See Also
    --------
    judged_at_k : how much of the ranking was judged.
    ragmetrics_edu.retrieval.order_aware.average_precision : AP, which counts unjudged
        documents as non-relevant.

    Notes
    -----
    For each retrieved relevant document :math:`r`, let :math:`n_r` be the
    number of judged non-relevant documents ranked above it.  Then

    .. math::

        bpref = \frac{1}{R} \sum_{r} \left(1 -
        \frac{\min(n_r, R)}{\min(N, R)}\right)

    where a term is 1 when :math:`n_r = 0` (no judged non-relevant document
    above it, even if N = 0).  Relevant documents that were not retrieved add
    0.  Unjudged documents change nothing: removing them from the ranking
    gives the same bpref.  This is trec_eval's ``bpref`` (since version 8.0,
    ``m_bpref.c``), equal to pytrec_eval's.

    The variants found in papers and code (``variant=``); each term is 1
    when no judged non-relevant document is above :math:`r`, in every one:

    * ``"paper"``, **Buckley & Voorhees 2004** (the paper's formula):
      :math:`\frac{1}{R}\sum_r (1 - \frac{|n \text{ ranked higher than }
      r|}{R})`, counting only the first R judged non-relevant documents;
      with :math:`N \ge R` it is the formula above.  When N < R it can never
      reach 0 for a relevant document ranked below all of them, which the
      :math:`\min(N, R)` denominator fixes (Soboroff's correction).
    * ``"old_bpref"`` (trec_eval 7.3, kept in trec_eval 8 as ``old_bpref``):
      :math:`\min(N_{ret}, R)` in the denominator, the judged non-relevant
      documents *retrieved*; it scored a ranking of one non-relevant then
      four relevant documents 0 however many non-relevant documents were
      never retrieved (trec_eval's ``bpref_bug`` note, 2005).
    * ``"bpref10"``, **bpref-10**: :math:`\frac{1}{R}\sum_r (1 -
      \frac{\min(n_r, 10 + R)}{\min(N, 10 + R)})`, the top 10 + R judged
      non-relevant documents, for queries with very few relevant ones (the
      paper's version divided by 10 + R; trec_eval 8's
      ``bpref_top10pRnonrel`` by :math:`\min(N, 10 + R)`, as here).
    * **ir_measures' ``Bpref``** is trec_eval's through pytrec_eval.

    References
    ----------
    .. [1] C. Buckley, E. M. Voorhees, "Retrieval Evaluation with Incomplete
       Information", SIGIR 2004.
    .. [2] NIST, trec_eval, ``m_bpref.c`` and ``bpref_bug``,
       https://github.com/usnistgov/trec_eval
    .. [3] I. Soboroff, "Dynamic test collections: measuring search
       effectiveness on the live web", SIGIR 2006.

    Examples
    --------
    >>> from ragmetrics_edu.retrieval.incomplete import bpref
    >>> # R = 2 relevant, N = 3 judged non-relevant; one unjudged document
    >>> round(bpref([1, None, 0, 1], n_relevant=2, n_nonrelevant=3), 4)  # (1 + (1 - 1/2)) / 2
    0.75
    >>> bpref([1, 0, 1], 2, n_nonrelevant=3) == bpref([1, None, None, 0, 1], 2, n_nonrelevant=3)  # unjudged: skipped
    True
    >>> # trec_eval's bpref_bug example: 1 non-relevant then 4 relevant retrieved,
    >>> # R = 6 and N = 4 judged in all: (4 * (1 - 1/4) + 2 * 0) / 6
    >>> bpref([0, 1, 1, 1, 1], n_relevant=6, n_nonrelevant=4)
    0.5
    >>> bpref([0, 1, 1, 1, 1], 6, n_nonrelevant=4, variant="old_bpref")  # min(N_ret, R) = 1: 4 * (1 - 1/1) / 6
    0.0
    >>> round(bpref([0, 1, 1, 1, 1], 6, n_nonrelevant=4, variant="paper"), 4)  # 4 * (1 - 1/6) / 6
    0.5556
    """
    check_choice(variant, BPREF_VARIANTS, name="bpref: variant")
    grades = check_judged_rels(rels)
    judged = ~np.isnan(grades) & (grades >= 0)  # negative: in the pool, unjudged
    relevant = judged & (grades >= 1)
    nonrelevant = judged & (grades < 1)
    n_relevant = _check_count(n_relevant, "n_relevant",
                              found=int(np.count_nonzero(relevant)))
    n_nonrelevant = _check_count(n_nonrelevant, "n_nonrelevant",
                                 found=int(np.count_nonzero(nonrelevant)))
    check_count_limit(n_relevant, name="bpref: n_relevant")
    check_count_limit(n_nonrelevant, name="bpref: n_nonrelevant")
    if n_relevant == 0:  # nothing to prefer: 0, as trec_eval
        return 0.0
    # judged non-relevant documents above each rank
    nonrelevant_above = np.cumsum(nonrelevant) - nonrelevant
    n_r = nonrelevant_above[relevant]
    cap, denominator = _bpref_cap_and_denominator(
        variant, n_relevant, n_nonrelevant, n_retrieved=int(np.count_nonzero(nonrelevant)))
    terms = np.ones(len(n_r))
    some_above = n_r > 0  # then N and N_ret >= 1, so the denominator is at least 1
    terms[some_above] = 1.0 - np.minimum(n_r[some_above], cap) / denominator
    return math.fsum(terms.tolist()) / n_relevant


def _bpref_cap_and_denominator(variant, n_relevant, n_nonrelevant, n_retrieved):
    """``(cap, denominator)`` of a term ``1 - min(n_r, cap) / denominator`` of bpref.

    ``n_retrieved`` is :math:`N_{ret}`, the judged non-relevant documents retrieved.
    """
    if variant == "paper":
        return n_relevant, n_relevant
    if variant == "old_bpref":
        return n_relevant, min(n_retrieved, n_relevant)
    if variant == "bpref10":
        return 10 + n_relevant, min(n_nonrelevant, 10 + n_relevant)
    return n_relevant, min(n_nonrelevant, n_relevant)


def judged_at_k(rels, k=None, *, denominator="retrieved"):
    r"""judged@k: the fraction of the top k documents that have a judgement.

    Parameters
    ----------
    rels : sequence of float or None
        Grades of the retrieved documents in rank order, ``None`` (or
        ``nan``) for a document without a judgement.  Any grade, negative
        too, is a judgement (ir_measures' rule: the document is in the
        qrels).
    k : int or None, default None
        Cut-off; None means the whole ranking.
    denominator : {"retrieved", "k"}, default "retrieved"
        ``"retrieved"``: the documents actually in the top k,
        :math:`\min(k, n)` for a ranking of n documents (ir_measures'
        ``Judged@k``).  ``"k"``: always k, so a ranking shorter than k
        counts its missing ranks as unjudged.

    Returns
    -------
    float
        In [0, 1]; 0.0 for an empty ranking (ir_measures would divide by
        zero).

    See Also
    --------
    bpref

    Notes
    -----
    .. math::

        judged@k = \frac{|\{i \le k : d_i \text{ is judged}\}|}{\min(k, n)}

    judged@10 near 1 means the top of the ranking was (almost) fully judged
    and P@10, nDCG@10 and AP can be trusted; a low value means they
    undercount the relevant documents the system found, since an unjudged
    document counts as non-relevant for them.  It is not a quality score of
    the system: it measures the test collection's coverage of this run.

    References
    ----------
    .. [1] S. MacAvaney, C. Macdonald, I. Ounis, "Streamlining Evaluation
       with ir-measures", ECIR 2022 (its ``Judged`` measure).
    .. [2] C. Buckley, E. M. Voorhees, "Retrieval Evaluation with Incomplete
       Information", SIGIR 2004.

    Examples
    --------
    >>> from ragmetrics_edu.retrieval.incomplete import judged_at_k
    >>> rels = [2, None, 0, None, 1]
    >>> judged_at_k(rels, 4)  # 2 of the top 4 are judged
    0.5
    >>> judged_at_k(rels, 10)  # 3 of the 5 retrieved
    0.6
    >>> judged_at_k(rels, 10, denominator="k")  # 3 of 10 ranks
    0.3
    """
    grades = check_judged_rels(rels)
    k = check_k(k, allow_none=True)
    check_choice(denominator, JUDGED_DENOMINATORS, name="denominator")
    top = grades if k is None else grades[:k]
    n_judged = int(np.count_nonzero(~np.isnan(top)))
    if denominator == "retrieved":
        norm = len(top)
    else:
        norm = len(grades) if k is None else k
    if norm == 0:  # an empty ranking
        return 0.0
    return n_judged / norm
