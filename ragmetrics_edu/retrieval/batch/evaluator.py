r"""Evaluate many queries at once, with trec_eval's conventions.

:func:`evaluate` takes relevance judgements and a run in the dictionary
format that trec_eval's Python binding (pytrec_eval) and ranx share::

    qrels = {"q1": {"d1": 2, "d7": 0, "d9": 1}}      # qid -> docid -> grade
    run   = {"q1": {"d1": 0.9, "d3": 0.8, "d9": 0.5}}  # qid -> docid -> score

and returns a :class:`Report` with one value per query and metric, their
means, and the list of queries that could not be scored.  Every score is
"higher is better"; ``dcg@k`` is an unbounded gain, the others are in [0, 1].

The conventions of trec_eval
----------------------------
The numbers equal trec_eval's (``P_k``, ``recall_k``, ``ndcg``,
``ndcg_cut_k``, ``map``, ``map_cut_k``, ``recip_rank``, ``success_k``), which
is what papers report.  That is only true if every one of the following rules
is followed; each one has been checked against pytrec_eval, which runs
trec_eval's own C code.

1. **Order.**  Documents are ranked by score, highest first.  The rank column
   of a run file is ignored: only the scores count.
2. **Scores are compared as 32-bit floats.**  trec_eval 9.x (9.0.8, the
   version pytrec_eval 0.5 runs) stores a score in a C ``float``, so ``1.0``
   and ``1.0 + 1e-12`` are the *same* score for it (a tie), and so are
   ``1e300`` and ``1e301`` (both overflow to infinity).  trec_eval 10.0
   stores a C ``double`` instead: ``conventions="trec_eval10"`` compares
   scores as 64-bit floats, as it does (with a = 1.0000000001 and b = 1.0,
   a relevant a has reciprocal rank 0.5 under trec_eval 9.x, 1.0 under
   10.0); nothing else differs for these measures.
3. **Ties are broken by document id, in descending string order.**  Among
   equal scores, ``"b"`` comes before ``"a"`` and ``"9"`` before ``"10"``
   (strings are compared character by character: ``"9" > "1"``).  The order
   in which the documents were written does not matter.  (Two ids equal but
   for trailing ``"\0"``, such as ``"a"`` and ``"a\0"``, are ordered as
   Python's ``sorted`` orders them; C's ``strcmp`` finds them equal, so
   trec_eval's order for them is whatever its sort leaves.)
4. **Relevant means grade >= 1**, unless a relevance level says otherwise
   (``relevance_level=2`` is ``trec_eval -l2``, the rule of TREC Deep
   Learning's binary measures: grades 2 and 3 are relevant, 0 and 1 are
   judged not relevant).  Grades are integers.  Grade 0 is judged not
   relevant; a negative grade (some TREC collections use -1 or -2 for spam
   or junk) is also not relevant and brings no gain to DCG.  A document
   that is not in the qrels is not relevant either.  The level applies to
   the measures that see a document as relevant or not (P, recall, MAP,
   MRR, R-precision, interpolated precision, bpref, success, binary RBP):
   trec_eval's ``m_ndcg.c`` never reads it, so nDCG and DCG keep the gain of
   every grade above 0 (and so do ERR and graded RBP).  bpref counts a
   judged grade below the level among the non-relevant documents
   (``m_bpref.c``).
5. **nDCG** uses the grade itself as the gain (``gain="linear"``) and
   :math:`\log_2(rank + 1)` as the discount.  The ideal DCG is built from
   *all* the judged documents of the query, retrieved or not, sorted by
   grade; ``ndcg@k`` cuts both the run and the ideal ranking at ``k``.
6. **AP** divides by *all* the relevant documents of the query in the qrels,
   retrieved or not; ``map@k`` only sums over the top ``k`` but keeps that
   denominator.  ``recall@k`` uses the same denominator.
7. **P@k** divides by ``k``, even when fewer than ``k`` documents were
   retrieved.
8. **Depth.**  ``depth=M`` is ``trec_eval -M M``: each query's ranking
   is ranked by rules 1-3 first, then cut after its top M documents
   (``form_res_rels.c`` sorts, then keeps ``max_num_docs_per_topic``), so a
   tie straddling the cut is split by document id, and unjudged documents
   take their places like the others.  The qrels are not cut: a relevant
   document below the cut still counts in R (recall, AP) and in the ideal
   DCG.  By default every document is read (trec_eval's ``MAXLONG``).
   TREC runs are usually evaluated with ``-M 1000``.
9. **Which queries are scored.**  Only the queries that are both in the
   qrels and in the run.  A query without judgements is skipped (trec_eval
   cannot score it); it is listed in :attr:`Report.unjudged_queries`.  That
   is a query of the run absent from the qrels, and a query whose judgement
   dictionary is empty, ``{}``, whether it is in the run or not (a TREC
   qrels file cannot even write it; pytrec_eval treats it as absent, and
   ``trec_eval -c`` does not count it).  A judged query missing from the run is
   listed in :attr:`Report.missing_queries`; by default (``missing="ignore"``)
   it is left out of the means, as trec_eval does; ``missing="zero"``
   scores it 0 for every metric and counts it in the means, as
   ``trec_eval -c`` does.
10. **A judged query without any relevant document** scores 0 for every
    binary metric (recall and AP would be 0/0) and *is* counted in the means, as
    trec_eval does; it is listed in :attr:`Report.queries_without_relevant`
    (under gdeval's conventions, ``conventions="gdeval"``, it is left out of
    the scores and the means instead: gdeval scores only the topics with a
    grade above 0).
    (A query judged only with negative grades is one of them; trec_eval's
    own rules give it 0, but pytrec_eval 0.5.x has undefined behaviour on it
    in ``ndcg``: it hangs or crashes, or returns 0.)

``mrr@k`` (reciprocal rank, 0 if the first relevant document is below rank
``k``), ``f1@k`` and ``dcg@k`` are not trec_eval measures; they follow the
same rules.

The measures of notebooks 02, 03 and 09 follow the same ranking and are
defined by the readable one-query functions, which the tests compare this
path with:

* ``rprec``: :func:`ragmetrics_edu.retrieval.order_aware.r_precision`, trec_eval ``Rprec``;
* ``iprec@0.5``: :func:`ragmetrics_edu.retrieval.order_aware.interpolated_precision`,
  trec_eval ``iprec_at_recall_0.50``.  For an empty ranking, ``{}``,
  trec_eval starts from the precision of the whole ranking, 0 relevant of
  0 retrieved, NaN, and gives it at every level it counts as reached with
  no relevant document found (level 0 always, where ``int(level * R +
  0.9)`` is 0), 0 at the others; 0 at every level here, as for ``11pt``, so
  that a mean over queries stays a number and ``11pt`` stays the average
  of the eleven levels (a TREC run file cannot write an empty ranking);
* ``11pt``: :func:`ragmetrics_edu.retrieval.order_aware.eleven_point_average_precision`,
  trec_eval ``11pt_avg`` (which gives NaN, 0/0, for an empty ranking; 0 here);
* ``bpref``: :func:`ragmetrics_edu.retrieval.incomplete.bpref`, trec_eval ``bpref``;
* ``judged@k``: :func:`ragmetrics_edu.retrieval.incomplete.judged_at_k`, ir_measures
  ``Judged@k``;
* ``err@k``: :func:`ragmetrics_edu.retrieval.user_models.err_at_k`, gdeval's ``err@k``;
* ``rbp(p=0.8)``: :func:`ragmetrics_edu.retrieval.user_models.rank_biased_precision`,
  cwl-eval's RBP, and ``rbp_residual(p=0.8)``:
  :func:`ragmetrics_edu.retrieval.user_models.rbp_residual`.

Under ``conventions="trec_eval10"`` a recall level becomes a number of
relevant documents as trec_eval 10.0 rounds it (``iprec``, ``11pt``).
``err`` and graded ``rbp`` refuse a ``max_grade`` below the largest grade of
the qrels (retrieved or not).

How the fast path works
-----------------------
Python dictionaries are slow to loop over one document at a time, so the code
works on flat NumPy arrays.  It uses one observation: only the *relevant*
retrieved documents contribute to P, recall, AP, RR and DCG, so it is enough
to know the rank of each of them.  The rank of a document is

.. math::

    rank(d) = 1 + \#\{d' : s'_{32} > s_{32}\}
                + \#\{d' : s'_{32} = s_{32} \text{ and } d' > d\}

over the documents :math:`d'` of the same query (rules 2 and 3).  The first
count comes from sorting the scores of each query (the rows of a matrix,
one query per row: NumPy sorts short rows much faster than one long array)
and a binary search; the second only has to look at the few groups of tied
scores.  With
the ranks :math:`r_1 < r_2 < \dots` of the relevant documents of a query:

* P@k = #{i : r_i <= k} / k,  recall@k = #{i : r_i <= k} / R,
* RR = 1 / r_1,  AP = (1 / R) * sum_i i / r_i,
* DCG@k = sum_{r_i <= k} gain_i / log2(r_i + 1),

which NumPy computes for every query at once with ``np.bincount``.  (A run
with few distinct scores and short ids, where ties are many, is ranked
another way, with the same result: score and id are packed in one 64-bit
number and each query's numbers are sorted once.)  The
readable one-query functions of :mod:`ragmetrics_edu.retrieval.order_unaware`,
:mod:`~ragmetrics_edu.retrieval.order_aware` and :mod:`~ragmetrics_edu.retrieval.graded` are
the reference the tests compare this path with.

Examples
--------
>>> import ragmetrics_edu as rm
>>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1}}
>>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.7}, "q2": {"d5": 0.3, "d4": 0.1}}
>>> report = rm.evaluate(qrels, run, ["P@2", "mrr", "map"])
>>> report.per_query["q1"]["map"]  # relevant at ranks 1 and 3: (1/1 + 2/3) / 2
0.8333333333333333
>>> round(report.mean["mrr"], 4)  # (1/1 + 1/2) / 2
0.75
"""

import dataclasses
import math
from itertools import chain, compress, islice, repeat
from operator import itemgetter

import numpy as np

from ..conventions import PRESETS, evaluate_as, get_preset
from ._checks import (_as_dicts, _check_all_docids, _check_grades, _check_nested,
                      _check_scores, _joined_ids)
from ._engine import (_PACKED_ID_BYTES, _count_larger_ids, _packed_ranks, _sort_each_query,
                      _sortable, _to_float32, _unique)
from .kernels import KERNELS
from .registry import NEEDS_JUDGED, check_metrics, uses_relevance_level
from .report import Report

__all__ = ["evaluate"]


def evaluate(qrels, run, metrics, *, missing=None, gain=None, conventions=None,
             relevance_level=None, depth=None):
    r"""Score a run of many queries against relevance judgements, as trec_eval does.

    Parameters
    ----------
    qrels : dict of str to dict of str to int
        Relevance judgements, ``{qid: {docid: grade}}``.  Grades are
        integers; a grade >= 1 is relevant, 0 or negative is not.
    run : dict of str to dict of str to float
        Retrieval scores, ``{qid: {docid: score}}``; higher is better.
        Scores are converted as ``float()`` does (``"0.5"`` is read as in a
        run file).  The order of the dictionaries does not matter (see the
        module docstring for how scores and ties are ordered).
    metrics : list of str
        Names among ``"P@k"``, ``"recall@k"``, ``"f1@k"``, ``"hit_rate@k"``,
        ``"mrr"``, ``"mrr@k"``, ``"map"``, ``"map@k"``, ``"ndcg"``,
        ``"ndcg@k"``, ``"dcg@k"``, with ``k`` a positive integer written in
        the name (``"ndcg@10"``); and the measures of the precision-recall
        curve, incomplete judgements and user models: ``"rprec"``
        (trec_eval ``Rprec``), ``"iprec@r"`` with a recall level ``r`` in
        [0, 1] (``"iprec@0.5"`` = trec_eval ``iprec_at_recall_0.50``),
        ``"11pt"`` (``11pt_avg``), ``"bpref"``, ``"judged"`` /
        ``"judged@k"`` (ir_measures ``Judged@k``), ``"err"`` / ``"err@k"``
        (gdeval's ERR; ``"err(max_grade=4)@20"`` names gdeval's default
        top grade), ``"rbp(p=0.8)"`` (cwl-eval's binary RBP; ``"rbp"`` is
        p = 0.8; ``"rbp(p=0.8, gain=graded, max_grade=4)"`` the graded
        form) and ``"rbp_residual(p=0.8)"`` (the weight of the unjudged
        ranks and of those beyond the ranking).  Each is defined by the
        readable function of its module (see the module docstring).  A
        single string is accepted too.
    missing : {"ignore", "zero"}, optional
        A query judged in ``qrels`` but absent from ``run``: ``"ignore"``
        leaves it out of the means (trec_eval's default, and the default
        here unless ``conventions`` says otherwise); ``"zero"`` gives it 0
        for every metric and counts it in the means (``trec_eval -c``).
        Either way it is listed in :attr:`Report.missing_queries`.
    gain : {"linear", "exponential"}, optional
        Gain of a relevant grade ``g`` in DCG and nDCG: ``g`` (trec_eval,
        ranx's ``ndcg``; the default unless ``conventions`` says otherwise)
        or ``2**g - 1`` (Burges et al. 2005, ranx's ``ndcg_burges``).  Only
        DCG and nDCG depend on it.
    conventions : str or Conventions, optional
        Score as another library does: a preset name (``"trec_eval"``,
        ``"trec_eval_c"``, ``"trec_eval10"``, ``"ranx"``, ``"sklearn"``,
        ``"seeds"``, ``"gdeval"``, ``"ragas"``) or a
        :class:`ragmetrics_edu.retrieval.conventions.Conventions`.  ``missing`` and
        ``gain``, if given too, override the preset's.  Conventions that
        differ from trec_eval's only in ``missing``, ``gain`` and
        ``scores`` (``"trec_eval10"``: doubles) take this function's fast
        path; the others are computed by
        :func:`ragmetrics_edu.retrieval.conventions.evaluate_as` (query by query,
        readable, slower), which returns a
        :class:`~ragmetrics_edu.retrieval.conventions.ConventionReport`, a
        :class:`Report` that also carries the conventions.
        ``"gdeval"`` (gdeval.pl's ``ndcg@k`` and ``err@k``: gain
        :math:`2^g - 1`, scores compared as doubles, queries without a
        grade above 0 left out) takes the fast path too.
    relevance_level : int, optional
        The grade from which a document is relevant to the binary measures:
        ``trec_eval -l``, pytrec_eval's ``relevance_level``, ir_measures'
        ``rel=``.  Default 1 (the preset's).  nDCG, DCG, ERR and graded RBP
        keep the gain of every grade, as in trec_eval (rule 4); under
        ``conventions="ranx"`` (``rel_lvl``) the grades below it lose their
        gain too.
    depth : int, optional
        Read only the top ``depth`` documents of each query, after ranking
        (``trec_eval -M``, rule 8).  Default: all of them.

    Returns
    -------
    Report
        ``per_query`` ``{qid: {metric: float}}``, ``mean`` ``{metric:
        float}``, the lists of missing, unjudged and relevant-less queries,
        and a ``signature`` saying which conventions produced the numbers.

    Raises
    ------
    ValueError
        Unknown metric name or bad cut-off (the message lists the known
        metrics), or a metric the conventions' library does not compute; a
        relevance level or depth that is not a positive integer; a NaN score, or an integer score too large for a float;
        a grade that is not an integer or does not fit in 64 bits; with
        ``gain="exponential"``, a grade of 1024 or more, or a DCG sum that
        overflows a float (2**grade - 1 exceeds 1.8e308); no query both
        judged and run.  Each message names the query, the document and the
        value.
    TypeError
        Query or document ids that are not strings (every one is checked),
        scores or grades that are not numbers, or are booleans (``True`` is
        not the grade 1).

    See Also
    --------
    ragmetrics_edu.retrieval.order_unaware.precision_at_k : P@k of one ranking, readable.
    ragmetrics_edu.retrieval.order_aware.average_precision : AP of one ranking, readable.
    ragmetrics_edu.retrieval.graded.ndcg_at_k : nDCG of one ranking, readable.
    ragmetrics_edu.retrieval.trec.read_qrels, ragmetrics_edu.retrieval.trec.read_run : TREC files.

    Notes
    -----
    With :math:`r_1 < r_2 < \dots < r_m` the ranks of the relevant retrieved
    documents of a query (ties ordered as trec_eval does) and :math:`R` the
    number of relevant documents in its qrels:

    .. math::

        P@k = \frac{|\{i : r_i \le k\}|}{k}, \quad
        recall@k = \frac{|\{i : r_i \le k\}|}{R}, \quad
        RR = \frac{1}{r_1}, \quad
        AP = \frac{1}{R} \sum_{i} \frac{i}{r_i},

    .. math::

        DCG@k = \sum_{r_i \le k} \frac{gain(g_i)}{\log_2(r_i + 1)}, \quad
        nDCG@k = \frac{DCG@k}{IDCG@k},

    where IDCG@k is the DCG@k of all judged documents of the query sorted by
    grade.  Metrics whose denominator is 0 (no relevant document) are 0.

    References
    ----------
    .. [1] NIST, trec_eval, https://github.com/usnistgov/trec_eval
    .. [2] C. Van Gysel and M. de Rijke, "Pytrec_eval: An Extremely Fast
       Python Interface to trec_eval", SIGIR 2018.
    .. [3] K. Järvelin and J. Kekäläinen, "Cumulated gain-based evaluation of
       IR techniques", ACM TOIS 20(4), 2002.

    Examples
    --------
    >>> from ragmetrics_edu.retrieval.batch import evaluate
    >>> qrels = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"x": 1}, "q3": {"y": 1}}
    >>> run = {"q1": {"a": 0.5, "b": 0.5, "c": 0.1}, "q2": {"x": 1.0}}
    >>> report = evaluate(qrels, run, ["P@2", "map", "ndcg@3"])
    >>> # the tie between a and b: "b" > "a", so b is ranked first: b, a, c
    >>> report.per_query["q1"]["P@2"]  # one of b, a is relevant
    0.5
    >>> round(report.per_query["q1"]["map"], 4)  # (1/2 + 2/3) / 2
    0.5833
    >>> report.missing_queries  # judged but not in the run
    ('q3',)
    >>> round(report.mean["map"], 4)  # q3 ignored: (0.5833 + 1) / 2
    0.7917
    >>> zero = evaluate(qrels, run, ["map"], missing="zero")
    >>> round(zero.mean["map"], 4)  # q3 counts as 0: (0.5833 + 1 + 0) / 3
    0.5278
    >>> # scikit-learn gives tied documents the average of their gains instead
    >>> sk = evaluate(qrels, run, ["ndcg@3"], conventions="sklearn")
    >>> round(report.per_query["q1"]["ndcg@3"], 4), round(sk.per_query["q1"]["ndcg@3"], 4)
    (0.6199, 0.69)
    >>> # trec_eval: b, a, c = (0 + 1/log2(3) + 2/2) / (2 + 1/log2(3)) = 1.6309 / 2.6309;
    >>> # sklearn: a and b share ranks 1-2, gain 0.5 each: (0.5 + 0.5/log2(3) + 1) / 2.6309
    >>> # trec_eval 9.x compares scores as floats, trec_eval 10.0 as doubles
    >>> near = {"q": {"a": 1.0000000001, "b": 1.0}}
    >>> evaluate({"q": {"a": 1}}, near, ["mrr"]).mean["mrr"]  # a tie as floats: b first
    0.5
    >>> evaluate({"q": {"a": 1}}, near, ["mrr"], conventions="trec_eval10").mean["mrr"]
    1.0
    >>> # trec_eval -l2: only grade 2 is relevant to MAP; nDCG keeps c's gain (grade 2) and a's (1)
    >>> dl = evaluate(qrels, run, ["map", "ndcg@3"], relevance_level=2)
    >>> round(dl.per_query["q1"]["map"], 4), round(dl.per_query["q1"]["ndcg@3"], 4)  # c at rank 3
    (0.3333, 0.6199)
    >>> # trec_eval -M2: only b, a of q1 are read; c is still one of the 2 relevant documents
    >>> round(evaluate(qrels, run, ["map"], depth=2).per_query["q1"]["map"], 4)  # (1/2) / 2
    0.25
    """
    conv = _chosen_conventions(conventions, missing, gain, relevance_level, depth)
    if not _takes_the_fast_path(conv):
        return evaluate_as(qrels, run, metrics, conv)
    parsed = check_metrics(metrics, conv.metrics, who=conv.library)
    _check_nested(qrels, "qrels", "grade")
    _check_nested(run, "run", "score")

    queries = _select_queries(qrels, run)            # 1. which queries are scored
    judged = any(m.base in NEEDS_JUDGED for m in parsed)  # rank every judged document?
    data = _flatten(qrels, run, queries, conv.scores, judged)  # 2. validate, into flat arrays
    hits = _rank_relevant(data, judged, conv.depth)  # 3. rank the relevant (or judged) documents
    at_level = _at_level(hits, conv.relevance_level)  # (the binary measures' relevant documents)
    values = {m.name: KERNELS[m.base](at_level if uses_relevance_level(m) else hits, m, conv)
              for m in parsed}                       # 4. one kernel per metric
    return _aggregate(values, queries, at_level, conv, qrels)  # 5. per query and means


# ---------------------------------------------------------------------------
# The steps of evaluate, in order
# ---------------------------------------------------------------------------

_FAST_PATH_FREE = ("missing", "gain", "scores", "relevance_level", "depth", "without_relevant")
"""The fields of a :class:`~ragmetrics_edu.retrieval.conventions.Conventions` the fast path can vary."""

_DESCRIPTIVE = ("name", "library", "where", "options", "metrics")
"""The fields that describe a preset rather than change a number (``metrics``
limits the names accepted, checked before scoring)."""


def _chosen_conventions(conventions, missing, gain, relevance_level=None, depth=None):
    """The :class:`~ragmetrics_edu.retrieval.conventions.Conventions` asked for.

    trec_eval's preset unless ``conventions`` names another; ``missing``,
    ``gain``, ``relevance_level`` and ``depth``, when given, override the
    preset's (and are checked by it).
    """
    conv = PRESETS["trec_eval"] if conventions is None else get_preset(conventions)
    overrides = {name: value for name, value in (("missing", missing), ("gain", gain),
                                                 ("relevance_level", relevance_level),
                                                 ("depth", depth))
                 if value is not None}
    return conv.replace(**overrides) if overrides else conv


def _takes_the_fast_path(conv):
    """True if ``conv`` makes trec_eval's choices except perhaps those of :data:`_FAST_PATH_FREE`."""
    reference = PRESETS["trec_eval"]
    return all(getattr(conv, field.name) == getattr(reference, field.name)
               for field in dataclasses.fields(conv)
               if field.name not in (*_FAST_PATH_FREE, *_DESCRIPTIVE))


@dataclasses.dataclass
class _Queries:
    """Step 1: which queries are scored, and which are left out and why."""

    scored: list      # judged and in the run, in the run's order
    unjudged: tuple   # in the run without judgements, or judged with {}
    missing: tuple    # judged, absent from the run


def _select_queries(qrels, run):
    """Split the query ids into scored, unjudged and missing ones (rule 8).

    A query with an empty judgement dict has no judgements: a TREC qrels
    file cannot even express it, pytrec_eval treats it as absent, and
    trec_eval -c does not count it.  It is listed with the unjudged
    queries, in the run or not, so that no query is dropped silently.
    """
    empty = [qid for qid, docs in qrels.items() if len(docs) == 0]
    judged = qrels.keys() - empty if empty else qrels.keys()
    scored = [qid for qid in run if qid in judged]
    unjudged = tuple(chain(
        (qid for qid in run if qid not in judged) if len(scored) < len(run) else (),
        (qid for qid in empty if qid not in run),
    ))
    missing_queries = tuple(
        qid for qid in qrels if qid in judged and qid not in run
    ) if len(scored) < len(judged) else ()
    if not scored:
        raise ValueError(
            f"no query is both in qrels ({len(judged)} judged queries) and in "
            f"run ({len(run)} queries): there is nothing to score (trec_eval "
            f"stops with the same error)"
        )
    return _Queries(scored, unjudged, missing_queries)


@dataclasses.dataclass
class _Flat:
    """Step 2: the scored queries' dictionaries, checked, as flat arrays.

    Query ``q``'s run documents are entries ``run_starts[q]`` to
    ``run_starts[q] + run_sizes[q]`` of the run arrays, in dict order; its
    judged documents likewise in the judged arrays.
    """

    qids: list
    rankings: list          # the run's {docid: score} of each query
    judgements: list        # the qrels' {docid: grade} of each query
    run_sizes: np.ndarray
    run_starts: np.ndarray
    judged_starts: np.ndarray
    judged_query: np.ndarray  # the query of each judged entry
    grades: np.ndarray        # int64, one per judged entry
    score_keys: np.ndarray    # uint32, one per run entry: sorts as the scores
    key_of: object            # maps more scores of this run to their keys
    scores: str               # "float32" or "float64"
    run_ids: str = ""         # every run document id, "\0" between two, in entry order
    judged_ids: str = ""      # every judged document id, likewise
    looked_up: np.ndarray = None         # judged entries looked up in the run
    looked_up_scores: np.ndarray = None  # their scores in the run, NaN if not retrieved
    packed: tuple = None  # or, found by packed keys: (retrieved judged entries, their ranks)

    @property
    def n_queries(self):
        return len(self.qids)

    def run_where(self, i):
        """(qid, docid) of the i-th run entry, read back from the dicts (for errors)."""
        q = int(np.searchsorted(self.run_starts, i, side="right") - 1)
        return self.qids[q], list(self.rankings[q])[i - self.run_starts[q]]

    def judged_where(self, i):
        """(qid, docid) of the i-th judged entry (for errors)."""
        q = int(np.searchsorted(self.judged_starts, i, side="right") - 1)
        return self.qids[q], list(self.judgements[q])[i - self.judged_starts[q]]


def _flatten(qrels, run, queries, scores, judged=False):
    """Check every id, score and grade of the scored queries; return a :class:`_Flat`.

    No Python statement runs once per document: ``chain``, ``map`` and
    ``np.fromiter`` loop in C.  Document ids are read straight from the
    dicts when needed, never kept in one long list (a list of many strings
    costs time to build, to free, and to the garbage collector).  The
    relevant judged documents (every judged one if ``judged``) are looked
    up in the run here too, while its ids are read (:func:`_join_and_look_up`).
    """
    scored = queries.scored
    n_queries = len(scored)
    # (plain dicts: ``dict.get`` and ``dict.values`` below need them)
    rankings = _as_dicts([run[qid] for qid in scored])
    judgements = _as_dicts([qrels[qid] for qid in scored])
    run_sizes = np.fromiter(map(len, rankings), dtype=np.int64, count=n_queries)
    judged_sizes = np.fromiter(map(len, judgements), dtype=np.int64, count=n_queries)
    data = _Flat(
        qids=scored, rankings=rankings, judgements=judgements,
        run_sizes=run_sizes, run_starts=np.cumsum(run_sizes) - run_sizes,
        judged_starts=np.cumsum(judged_sizes) - judged_sizes,
        judged_query=np.repeat(np.arange(n_queries), judged_sizes),
        grades=None, score_keys=None, key_of=None, scores=scores,
    )
    # Document ids must be strings, as in a TREC file: a run's 7 would
    # silently never match a judged "7".  Every id is checked.
    # (both kept: ties are broken by comparing the ids of a hit and of the
    # documents that share its score)
    data.judged_ids = _joined_ids(judgements, scored, "qrels")
    data.grades = _check_grades(list(chain.from_iterable(map(dict.values, judgements))),
                                data.judged_where)
    # Only relevant documents can change most metrics, so the (often many)
    # non-relevant judgements are looked up only if needed.
    looked_up = np.ones(len(data.grades), dtype=bool) if judged else data.grades >= 1
    # A run that its first queries say has few distinct scores and short ids
    # may be packed (:func:`_packed_ranks`): then the judged documents are
    # found among its sorted ids, not looked up in its dicts one by one.
    may_pack = _may_pack(rankings)
    if may_pack:
        data.run_ids = _joined_ids(rankings, scored, "run")
    else:
        data.run_ids, data.looked_up, data.looked_up_scores = _join_and_look_up(data, looked_up)
    values = _check_scores(rankings, data.run_starts, run_sizes, data.run_where,
                           np.float32 if scores == "float32" else np.float64)
    data.score_keys, data.key_of = _score_keys(values, scores)
    if may_pack:
        data.packed = _packed_ranks(data, np.flatnonzero(looked_up))
        if data.packed is None:  # it does not fit after all: look them up
            _, data.looked_up, data.looked_up_scores = _join_and_look_up(data, looked_up)
    return data


def _may_pack(rankings, sample=1000):
    """True if the run's first ``sample`` documents have ids of 7 characters or less, and 16 scores.

    Only a guess at whether the run fits in packed keys (:func:`_packed_ranks`
    decides, on the whole run): either way the ranks are the same.
    """
    try:
        return (max(map(len, islice(chain.from_iterable(rankings), sample)), default=0)
                <= _PACKED_ID_BYTES
                and len(set(islice(chain.from_iterable(map(dict.values, rankings)), sample)))
                <= 16)
    except TypeError:  # an id or a score of another kind: the general path names it
        return False


def _join_and_look_up(data, looked_up):
    """Join the run's ids (:func:`_joined_ids`) and look judged documents up in the run.

    Returns the joined ids, the indices of the ``looked_up`` judged entries,
    and their scores in their query's run (NaN if not retrieved).  The two
    passes are made together, query after query, in C: ``zip`` pulls the
    join of query q, then ``chain`` runs q's lookups, which find q's keys
    still in the processor's cache (on a run of a million documents, a
    fifth faster than a pass for each).  Empty rankings add no separator.
    """
    rankings = data.rankings
    positions = np.flatnonzero(looked_up)
    ids = list(compress(chain.from_iterable(data.judgements), looked_up.tolist()))
    n_looked_up = np.bincount(data.judged_query[positions], minlength=data.n_queries)
    ends = np.cumsum(n_looked_up)
    # the ids to look up in each query's ranking, with NaN for a miss
    per_query = map(list.__getitem__, repeat(ids),
                    map(slice, (ends - n_looked_up).tolist(), ends.tolist()))
    lookups = map(map, map(getattr, rankings, repeat("get")), per_query, repeat(repeat(math.nan)))
    parts = []
    joins = map(parts.append, map("\0".join, rankings))
    try:
        # (no count: every join must run, after the last lookup too)
        scores = np.fromiter(chain.from_iterable(map(itemgetter(1), zip(joins, lookups))),
                             dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        # an id that is no string, or a score that is no number: name it
        _check_all_docids(rankings, data.qids, "run")
        _check_scores(rankings, data.run_starts, data.run_sizes, data.run_where)
        raise
    return "\0".join(compress(parts, data.run_sizes.tolist())), positions, scores


def _score_keys(values, scores):
    """uint32 keys whose integer order is the order of the scores, and a key function.

    ``"float32"`` (trec_eval 9.x, pytrec_eval): the score's 32 bits, made
    sortable (:func:`_sortable`).  ``"float64"`` (trec_eval 10.0): a double
    has 64 bits, so its key is its place among the distinct scores of the
    run (at most one per document: it fits in 32 bits).  ``key_of(s)``
    gives the key of scores ``s`` (float64) that occur in the run.
    """
    if scores == "float32":
        return _sortable(values), lambda s: _sortable(_to_float32(s))  # (values unchanged)
    distinct, keys = _unique(values + 0.0)  # + 0.0: -0.0 and 0.0 are one score
    return keys.astype(np.uint32), lambda s: np.searchsorted(distinct, s + 0.0).astype(np.uint32)


@dataclasses.dataclass
class _Ranked:
    """Judged retrieved documents, sorted by query then rank."""

    query: np.ndarray
    rank: np.ndarray
    grade: np.ndarray


@dataclasses.dataclass
class _Hits:
    """Step 3: the ranks of the relevant retrieved documents ("hits").

    Hits are sorted by query, then rank.  ``index`` is the position of a
    hit among its query's hits (1, 2, ...); ``ideal_*`` describe the ideal
    ranking (the relevant grades of each query, best first).
    """

    data: _Flat
    n_relevant: np.ndarray    # R of each query
    query: np.ndarray
    rank: np.ndarray
    grade: np.ndarray
    index: np.ndarray
    position: np.ndarray      # each hit's entry in the judged arrays
    first_rank: np.ndarray    # rank of each query's first hit, inf if none
    relevant: np.ndarray      # judged entries with grade >= 1
    ideal_query: np.ndarray
    ideal_rank: np.ndarray
    ideal_grade: np.ndarray
    starts: np.ndarray        # where each query's hits start
    judged: object            # a _Ranked of every judged retrieved document, or None
    run_sizes: np.ndarray = None  # the documents read per query (cut to the depth)
    level: int = 1            # relevant means a grade >= level

    @property
    def n_queries(self):
        return self.data.n_queries

    def per_query_sum(self, query, weights):
        """Sum ``weights`` by query (bincount adds them in order: rank order here)."""
        return np.bincount(query, weights=weights, minlength=self.n_queries)

    def document(self, position):
        """``"document 'd3' of query 'q1'"`` for an entry of the judged arrays."""
        qid, docid = self.data.judged_where(int(position))
        return f"document {docid!r} of query {qid!r}"


def _rank_relevant(data, judged=False, depth=None):
    r"""The rank of every relevant retrieved document, as trec_eval orders a run.

    A run with few distinct scores and short ids (heavy ties) is ranked by
    one sort of keys that hold both the score and the id
    (:func:`_packed_ranks`).  Any other run (:func:`_rank_found`): one
    uint64 key per document, its query in the high 32 bits, its score key
    in the low 32 bits.  Sorting the scores inside each query (ascending)
    sorts the keys: by query, then by score.  A hit's rank is 1 + the
    number of documents of its query with a larger key (two binary
    searches), + the number of tied documents with a larger id
    (:func:`_count_larger_ids`, only for hits that tie).  With
    ``judged=True`` every judged document is ranked, not only the relevant
    ones (bpref, judged@k and RBP's residual need them).  With a ``depth``
    (``trec_eval -M``), the documents ranked below it are dropped: a
    document's rank is the same in the whole ranking and in its top
    ``depth``, so cutting after ranking is trec_eval's cut.
    """
    n_queries, grades, judged_query = data.n_queries, data.grades, data.judged_query
    relevant = np.flatnonzero(grades >= 1)  # trec_eval's default relevance level
    n_relevant = np.bincount(judged_query[relevant], minlength=n_queries)
    if data.packed is not None:  # found and ranked by :func:`_flatten` already
        found_positions, found_ranks = data.packed
        found_query = judged_query[found_positions]
    else:
        # the judged documents looked up in the run (:func:`_join_and_look_up`)
        positions, scores = data.looked_up, data.looked_up_scores
        which = np.flatnonzero(~np.isnan(scores))  # the retrieved ones
        found_score_keys = data.key_of(scores[which])
        found_positions = positions[which]
        # Few distinct scores and short ids (heavy ties): one sort of packed keys
        packed = _packed_ranks(data, found_positions, found_score_keys)
        if packed is not None:
            found_positions, found_ranks = packed
            found_query = judged_query[found_positions]
        else:
            found_query, found_ranks, found_positions = _rank_found(
                data, judged_query[found_positions], found_score_keys, found_positions)

    run_sizes = data.run_sizes
    if depth is not None:  # trec_eval -M: ranked first, then cut
        kept = found_ranks <= depth
        found_query, found_ranks, found_positions = (
            found_query[kept], found_ranks[kept], found_positions[kept])
        run_sizes = np.minimum(run_sizes, depth)

    # Sort by (query, rank): bincount then adds them in rank order, the
    # order in which trec_eval sums, so even the rounding is the same.
    # (One stable sort of query * (largest rank + 1) + rank: faster than
    # np.lexsort on the two.)
    order = np.argsort(found_query * (int(data.run_sizes.max()) + 1) + found_ranks,
                       kind="stable")
    found_query, found_ranks, found_positions = (
        found_query[order], found_ranks[order], found_positions[order])
    ranked_judged = None
    if judged:
        ranked_judged = _Ranked(found_query, found_ranks, grades[found_positions])
        keep = ranked_judged.grade >= 1
        found_query, found_ranks, found_positions = (
            found_query[keep], found_ranks[keep], found_positions[keep])
    hit_query, hit_ranks, hit_positions = found_query, found_ranks, found_positions
    # i = 1, 2, ... : the position of each hit among its query's hits
    hits_per_query = np.bincount(hit_query, minlength=n_queries)
    hit_starts = np.cumsum(hits_per_query) - hits_per_query
    hit_index = np.arange(len(hit_query)) - hit_starts[hit_query] + 1
    first_rank = np.full(n_queries, np.inf)
    first_rank[hit_query[hit_index == 1]] = hit_ranks[hit_index == 1]

    # Ideal ranking: the relevant grades of each query (grouped by query
    # already), sorted best first.  (All are >= 1: negating them is safe.)
    ideal_query = judged_query[relevant]
    ideal_starts = np.cumsum(n_relevant) - n_relevant
    ideal_ranks = np.arange(len(ideal_query)) - ideal_starts[ideal_query] + 1
    ideal_grades = -grades[relevant]
    _sort_each_query(ideal_grades, ideal_starts, n_relevant)
    np.negative(ideal_grades, out=ideal_grades)

    return _Hits(data=data, n_relevant=n_relevant, query=hit_query, rank=hit_ranks,
                 grade=grades[hit_positions], index=hit_index, position=hit_positions,
                 first_rank=first_rank, relevant=relevant, ideal_query=ideal_query,
                 ideal_rank=ideal_ranks, ideal_grade=ideal_grades,
                 starts=hit_starts, judged=ranked_judged, run_sizes=run_sizes)


def _at_level(hits, level):
    """The hits of the documents relevant from ``level`` up (``trec_eval -l``).

    ``hits`` holds every retrieved document of grade >= 1, which DCG and
    nDCG need whatever the level; the binary measures see only those of
    grade >= ``level``, and R counts only them.  Every array is filtered
    and the positions among a query's hits counted again; with level 1
    ``hits`` itself is returned.
    """
    if level == 1:
        return hits
    n_queries = hits.n_queries
    keep = hits.grade >= level
    query, rank, grade, position = (hits.query[keep], hits.rank[keep], hits.grade[keep],
                                    hits.position[keep])
    per_query = np.bincount(query, minlength=n_queries)
    starts = np.cumsum(per_query) - per_query
    index = np.arange(len(query)) - starts[query] + 1
    first_rank = np.full(n_queries, np.inf)
    first_rank[query[index == 1]] = rank[index == 1]
    relevant = hits.relevant[hits.data.grades[hits.relevant] >= level]
    n_relevant = np.bincount(hits.data.judged_query[relevant], minlength=n_queries)
    ideal = hits.ideal_grade >= level  # (each query's grades stay sorted, best first)
    ideal_query, ideal_grade = hits.ideal_query[ideal], hits.ideal_grade[ideal]
    ideal_starts = np.cumsum(n_relevant) - n_relevant
    ideal_rank = np.arange(len(ideal_query)) - ideal_starts[ideal_query] + 1
    return dataclasses.replace(
        hits, n_relevant=n_relevant, query=query, rank=rank, grade=grade, index=index,
        position=position, first_rank=first_rank, relevant=relevant, ideal_query=ideal_query,
        ideal_rank=ideal_rank, ideal_grade=ideal_grade, starts=starts, level=level)




def _rank_found(data, found_query, found_score_keys, found_positions):
    """The ranks of the found documents by their scores, then by the ids of the tied ones.

    Returns the found documents' queries, ranks and positions, in key order.
    """
    n_queries = data.n_queries
    sorted_keys = data.score_keys.copy()
    _sort_each_query(sorted_keys, data.run_starts, data.run_sizes)
    query_bits = np.arange(n_queries, dtype=np.uint64) << np.uint64(32)
    run_keys = np.repeat(query_bits, data.run_sizes)
    run_keys |= sorted_keys
    del sorted_keys

    # The found ones are put in key order: binary searches with sorted
    # needles are much faster.
    found_keys = query_bits[found_query] | found_score_keys
    order = np.argsort(found_keys, kind="stable")
    found_keys, found_query, found_positions = (
        found_keys[order], found_query[order], found_positions[order])
    first_equal = np.searchsorted(run_keys, found_keys, side="left")
    after_equal = np.searchsorted(run_keys, found_keys, side="right")
    del run_keys  # (8 bytes a document: not kept through the tie step)
    query_end = data.run_starts[found_query] + data.run_sizes[found_query]
    found_ranks = 1 + (query_end - after_equal)  # 1 + number of higher scores
    # Tied scores: documents with a larger id come first (trec_eval).
    tied = (after_equal - first_equal) > 1
    if tied.any():
        found_ranks[tied] += _count_larger_ids(
            data, found_query[tied], first_equal[tied], after_equal[tied],
            found_positions[tied],
        )
    return found_query, found_ranks, found_positions


def _aggregate(values, queries, hits, conv, qrels):
    """Step 5: the :class:`Report`: values per query, and their means as trec_eval takes them.

    ``hits`` are those of the relevance level: a query with none relevant
    is listed, and left out under ``without_relevant="skip"`` (gdeval).
    """
    names = list(values)
    scored = queries.scored
    missing = queries.missing if conv.missing == "zero" else ()
    without = np.flatnonzero(hits.n_relevant == 0)
    without_relevant = tuple(scored[q] for q in without.tolist())
    if conv.without_relevant == "skip" and (len(without) or missing):
        kept = np.flatnonzero(hits.n_relevant > 0)
        scored = [scored[q] for q in kept.tolist()]
        values = {name: v[kept] for name, v in values.items()}
        level = conv.relevance_level
        missing = tuple(qid for qid in missing  # (a missing query is in the qrels)
                        if any(g >= level for g in qrels[qid].values()))
    # Every query's dict starts as a copy of one template (a copy shares the
    # template's key table: much faster than building each dict key by key),
    # then is filled metric by metric.
    template = dict.fromkeys(names, 0.0)
    rows = [template.copy() for _ in scored]
    for name in names:
        for row, value in zip(rows, values[name].tolist()):
            row[name] = value
    per_query = dict(zip(scored, rows))
    for qid in missing:
        per_query[qid] = dict.fromkeys(names, 0.0)
    denominator = len(scored) + len(missing)
    # trec_eval sums the per-query values and divides by the number of
    # queries (gdeval prints 0 when it scores none)
    mean = {name: float(np.sum(values[name]) / denominator) if denominator else 0.0
            for name in names}
    return Report(
        per_query=per_query,
        mean=mean,
        metrics=tuple(names),
        missing_queries=queries.missing,
        unjudged_queries=queries.unjudged,
        queries_without_relevant=without_relevant,
        missing=conv.missing,
        gain=conv.gain,
        scores=conv.scores,
        relevance_level=conv.relevance_level,
        depth=conv.depth,
        without_relevant=conv.without_relevant,
    )
