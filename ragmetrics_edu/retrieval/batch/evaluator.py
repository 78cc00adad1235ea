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
   stores a C ``double`` instead: ``conventions="trec_eval_10"`` compares
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

Under ``conventions="trec_eval_10"`` a recall level becomes a number of
relevant documents as trec_eval 10.0 rounds it (``iprec``, ``11pt``).
``err`` and graded ``rbp`` refuse a ``max_grade`` below the largest grade of
the qrels (retrieved or not).

How the fast path works
-----------------------
Python dictionaries are slow to loop over one document at a time, so
:func:`evaluate` works on flat NumPy arrays, in five steps that each read
as one function: which queries are scored (:func:`select_queries`); the
dictionaries checked and turned into columns, a chunk of whole queries at
a time, each document with its score and, if it is judged, its grade
(:func:`dict_chunks`); each query sorted once, as trec_eval orders it
(rules 1-3), into one frozen :class:`~ragmetrics_edu.retrieval.batch.kernels.Ranked`
form: the judged documents at their ranks, and the judgements
(:func:`~ragmetrics_edu.retrieval.batch._engine.rank`); one kernel per
metric (:mod:`~ragmetrics_edu.retrieval.batch.kernels`); the values per
query and their means (:func:`report`).  Only the judged documents can
change a metric, so the ranked form keeps them alone: with the ranks
:math:`r_1 < r_2 < \dots` of the relevant documents of a query,

* P@k = #{i : r_i <= k} / k,  recall@k = #{i : r_i <= k} / R,
* RR = 1 / r_1,  AP = (1 / R) * sum_i i / r_i,
* DCG@k = sum_{r_i <= k} gain_i / log2(r_i + 1),

which NumPy computes for every query at once with ``np.bincount``.  The
sorting is engine (:mod:`~ragmetrics_edu.retrieval.batch._engine`): one
``argsort`` of 64-bit keys holding the query and the score, ties ordered by
id after it, or, for short ids and few distinct scores, the id packed in
the key too.  :func:`~ragmetrics_edu.evaluate_files` runs the same steps
on TREC files read as columns, a block of queries at a time.  Each metric's
readable one-query function (its declaration in
:mod:`~ragmetrics_edu.retrieval.batch.registry`) is the reference the
tests compare this path with.

Examples
--------
>>> import ragmetrics_edu as rm
>>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1}}
>>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.7}, "q2": {"d5": 0.3, "d4": 0.1}}
>>> report = rm.evaluate(qrels, run, metrics=["P@2", "mrr", "map"])
>>> report.per_query["q1"]["map"]  # relevant at ranks 1 and 3: (1/1 + 2/3) / 2
0.8333333333333333
>>> round(report.mean["mrr"], 4)  # (1/1 + 1/2) / 2
0.75
"""

import dataclasses
import math
from itertools import chain, compress, repeat

import numpy as np

from ..._deprecation import formerly_positional
from ..conventions import PRESETS, evaluate_as, get_preset
from ..frames import from_frames
from ..trec import read_qrels, read_run
from ._checks import _as_dicts, _check_grades, _check_nested, _check_scores, _joined_ids
from ._columns import NotGrouped, QrelsColumns, Unusual, path_of, run_chunks
from ._engine import Chunk, joined_entries, rank, utf8_ids
from .registry import check_metrics, uses_relevance_level
from .report import Report

__all__ = ["evaluate", "select_queries"]


@formerly_positional("metrics")
def evaluate(qrels, run, *, metrics, missing=None, gain=None, conventions=None,
             relevance_level=None, depth=None):
    r"""Score a run of many queries against relevance judgements, as trec_eval does.

    Parameters
    ----------
    qrels : dict of str to dict of str to int, path or data frame
        Relevance judgements, ``{qid: {docid: grade}}``.  Grades are
        integers; a grade >= 1 is relevant, 0 or negative is not.  Or a
        TREC qrels file, or a data frame with ir_measures' columns
        ``query_id``, ``doc_id``, ``relevance`` (pandas; polars and Arrow
        tables through their ``to_pandas``).
    run : dict of str to dict of str to float, path or data frame
        Retrieval scores, ``{qid: {docid: score}}``; higher is better.
        Scores are converted as ``float()`` does (``"0.5"`` is read as in a
        run file).  The order of the dictionaries does not matter (see the
        module docstring for how scores and ties are ordered).  Or a data
        frame with the columns ``query_id``, ``doc_id``, ``score``, or a
        TREC run file, read query by query (:func:`evaluate_files`: the
        memory held is that of its largest query) when the lines of each
        query are together, as in every TREC run, and read whole first when
        they are not (the same numbers).
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
        p = 0.8; ``"rbp(p=0.8, relevance=graded, max_grade=4)"`` the graded
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
        ``"trec_eval_c"``, ``"trec_eval_10"``, ``"ranx"``, ``"sklearn"``,
        ``"seeds"``, ``"gdeval"``, ``"ragas"``) or a
        :class:`ragmetrics_edu.retrieval.conventions.Conventions`.  ``missing`` and
        ``gain``, if given too, override the preset's.  Conventions that
        differ from trec_eval's only in ``missing``, ``gain`` and
        ``scores`` (``"trec_eval_10"``: doubles) take this function's fast
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
    >>> report = evaluate(qrels, run, metrics=["P@2", "map", "ndcg@3"])
    >>> # the tie between a and b: "b" > "a", so b is ranked first: b, a, c
    >>> report.per_query["q1"]["P@2"]  # one of b, a is relevant
    0.5
    >>> round(report.per_query["q1"]["map"], 4)  # (1/2 + 2/3) / 2
    0.5833
    >>> report.missing_queries  # judged but not in the run
    ('q3',)
    >>> round(report.mean["map"], 4)  # q3 ignored: (0.5833 + 1) / 2
    0.7917
    >>> zero = evaluate(qrels, run, metrics=["map"], missing="zero")
    >>> round(zero.mean["map"], 4)  # q3 counts as 0: (0.5833 + 1 + 0) / 3
    0.5278
    >>> # scikit-learn gives tied documents the average of their gains instead
    >>> sk = evaluate(qrels, run, metrics=["ndcg@3"], conventions="sklearn")
    >>> round(report.per_query["q1"]["ndcg@3"], 4), round(sk.per_query["q1"]["ndcg@3"], 4)
    (0.6199, 0.69)
    >>> # trec_eval: b, a, c = (0 + 1/log2(3) + 2/2) / (2 + 1/log2(3)) = 1.6309 / 2.6309;
    >>> # sklearn: a and b share ranks 1-2, gain 0.5 each: (0.5 + 0.5/log2(3) + 1) / 2.6309
    >>> # trec_eval 9.x compares scores as floats, trec_eval 10.0 as doubles
    >>> near = {"q": {"a": 1.0000000001, "b": 1.0}}
    >>> evaluate({"q": {"a": 1}}, near, metrics=["mrr"]).mean["mrr"]  # a tie as floats: b first
    0.5
    >>> evaluate({"q": {"a": 1}}, near, metrics=["mrr"], conventions="trec_eval_10").mean["mrr"]
    1.0
    >>> # trec_eval -l2: only grade 2 is relevant to MAP; nDCG keeps c's gain (grade 2) and a's (1)
    >>> dl = evaluate(qrels, run, metrics=["map", "ndcg@3"], relevance_level=2)
    >>> round(dl.per_query["q1"]["map"], 4), round(dl.per_query["q1"]["ndcg@3"], 4)  # c at rank 3
    (0.3333, 0.6199)
    >>> # trec_eval -M2: only b, a of q1 are read; c is still one of the 2 relevant documents
    >>> round(evaluate(qrels, run, metrics=["map"], depth=2).per_query["q1"]["map"], 4)  # (1/2) / 2
    0.25
    """
    conv = _chosen_conventions(conventions, missing, gain, relevance_level, depth)
    if path_of(run) is not None and _takes_the_fast_path(conv):  # a run file: a stream of columns
        return evaluate_files(qrels, path_of(run), check_metrics(metrics, conv.metrics,
                                                                 who=conv.library), conv)
    qrels, run = from_frames(qrels, run)
    if not _takes_the_fast_path(conv):
        return evaluate_as(qrels, run, metrics=metrics, conventions=conv)
    parsed = check_metrics(metrics, conv.metrics, who=conv.library)
    _check_nested(qrels, "qrels", "grade")
    _check_nested(run, "run", "score")

    queries = select_queries(qrels, run)                        # 1. which queries are scored
    chunks = dict_chunks(qrels, run, queries.scored, conv.scores,  # 2. checked, as columns
                         any(m.declaration.judged for m in parsed))
    scored, values, n_relevant = score_chunks(chunks, parsed, conv)  # 3. rank, 4. kernels
    return report(scored, values, n_relevant, queries, conv,     # 5. per query and means
                  lambda qid: qrels[qid].values())


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
class Queries:
    """Step 1: which queries are scored, and which are left out and why."""

    scored: list      # judged and in the run, in the run's order
    unjudged: tuple   # in the run without judgements, or judged with {}
    missing: tuple    # judged, absent from the run


def select_queries(qrels, run):
    """Split the query ids into scored, unjudged and missing ones (rule 9).

    A query with an empty judgement dict has no judgements: a TREC qrels
    file cannot even express it, pytrec_eval treats it as absent, and
    trec_eval -c does not count it.  It is listed with the unjudged
    queries, in the run or not, so that no query is dropped silently.

    Parameters
    ----------
    qrels : dict
        ``{qid: {docid: grade}}``, the relevance judgements.
    run : dict
        ``{qid: {docid: score}}``, the system's ranked documents.
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
    return Queries(scored, unjudged, missing_queries)


CHUNK = 1 << 17
"""Documents ranked at a time (whole queries): enough to make each NumPy call
worth it, few enough that its arrays stay in the processor's caches."""


def dict_chunks(qrels, run, scored, scores, every_judged=True):
    """Step 2: every id, score and grade of the scored queries checked, then :class:`Chunk` s.

    No Python statement runs once per document: ``chain``, ``map`` and
    ``np.fromiter`` loop in C.  Every check runs before the first chunk is
    ranked, so an error is the same whichever query holds it.  Each
    judged document is looked up in its query's run (``dict.get``): its
    score there, or NaN if it was not retrieved.

    Parameters
    ----------
    qrels : dict
        ``{qid: {docid: grade}}``, the relevance judgements.
    run : dict
        ``{qid: {docid: score}}``, the system's ranked documents.
    scored : list of str
        The ids of the queries to score (:attr:`Queries.scored`), in that order.
    scores : {"float32", "float64"}
        The precision a score is kept at (:attr:`Conventions.scores`): ``"float32"``
        rounds each score to a C ``float`` first, as trec_eval 9.x reads a run.
    every_judged : bool, default True
        Look every judged document up in the run (the metrics that read
        non-relevant judgements need it: bpref, judged@k, the RBP residual); if
        False, only the relevant ones are looked up when at most half are.
    """
    rankings = _as_dicts([run[qid] for qid in scored])
    judgements = _as_dicts([qrels[qid] for qid in scored])
    run_sizes = np.fromiter(map(len, rankings), dtype=np.int64, count=len(scored))
    judged_sizes = np.fromiter(map(len, judgements), dtype=np.int64, count=len(scored))
    run_starts = np.cumsum(run_sizes) - run_sizes
    judged_starts = np.cumsum(judged_sizes) - judged_sizes

    def where(starts, dicts):
        return _where(scored, starts, dicts)

    # ids must be strings, as in a TREC file: a run's 7 would never match a judged "7"
    judged_ids = _joined_ids(judgements, scored, "qrels")
    grades = _check_grades(list(chain.from_iterable(map(dict.values, judgements))),
                           where(judged_starts, judgements))
    run_ids = _joined_ids(rankings, scored, "run")
    values = _check_scores(rankings, run_starts, run_sizes, where(run_starts, rankings),
                           np.float64)
    if scores == "float32":  # read as a double, kept as a float: as trec_eval 9.x reads a run
        with np.errstate(over="ignore"):
            values = values.astype(np.float32)
    looked_up = _looked_up(rankings, judgements, grades, judged_sizes, every_judged)
    judged_query = np.repeat(np.arange(len(scored)), judged_sizes)
    run_utf8 = _utf8_of(run_ids, rankings, run_starts, len(values))
    judged_utf8 = _utf8_of(judged_ids, judgements, judged_starts, len(grades))
    name = where(judged_starts, judgements)

    query_ends = np.cumsum(run_sizes)
    firsts = [0, *(np.flatnonzero(np.diff(run_starts // CHUNK) > 0) + 1).tolist(), len(scored)]
    for lo, hi in zip(firsts[:-1], firsts[1:]):
        first, last = int(run_starts[lo]), int(query_ends[hi - 1])
        jfirst, jlast = int(judged_starts[lo]), int(judged_starts[hi - 1] + judged_sizes[hi - 1])
        yield Chunk(
            qids=scored[lo:hi], sizes=run_sizes[lo:hi], scores=values[first:last],
            ids=lambda entries, first=first: run_utf8(_shifted(entries, first)),
            judged_query=judged_query[jfirst:jlast] - lo, judged_grades=grades[jfirst:jlast],
            judged_scores=looked_up[jfirst:jlast],
            judged_ids=lambda j, jfirst=jfirst: judged_utf8(_shifted(j, jfirst)),
            name_judged=lambda j, jfirst=jfirst: "document {1!r} of query {0!r}".format(
                *name(j + jfirst)))


def _where(qids, starts, dicts):
    """``at(i)``: the (qid, docid) of entry ``i`` of the dicts, read back from them (for errors)."""
    def at(i):
        q = int(np.searchsorted(starts, i, side="right") - 1)
        return qids[q], list(dicts[q])[i - starts[q]]
    return at


def _looked_up(rankings, judgements, grades, judged_sizes, every_judged):
    """The run's score of each judged document (NaN: not retrieved, or not looked up)."""
    getters = map(getattr, rankings, repeat("get"))
    relevant = grades >= 1  # (only these change the other metrics, at any relevance level)
    if every_judged or 2 * np.count_nonzero(relevant) > len(grades):  # (most: look all up)
        return np.fromiter(chain.from_iterable(map(map, getters, judgements,
                                                   repeat(repeat(math.nan)))),
                           dtype=np.float64, count=len(grades))
    picked = list(compress(chain.from_iterable(judgements), relevant.tolist()))
    query = np.repeat(np.arange(len(judged_sizes)), judged_sizes)[relevant]
    ends = np.cumsum(np.bincount(query, minlength=len(judged_sizes))).tolist()
    per_query = map(picked.__getitem__, map(slice, [0, *ends[:-1]], ends))
    out = np.full(len(grades), math.nan)
    out[relevant] = np.fromiter(chain.from_iterable(map(map, getters, per_query,
                                                        repeat(repeat(math.nan)))),
                                dtype=np.float64, count=len(picked))
    return out


def _shifted(entries, first):
    """Indices (or a slice of them) of a chunk, as indices of the whole run."""
    if isinstance(entries, slice):
        return slice(entries.start + first, entries.stop + first)
    return entries + first


def _utf8_of(joined, dicts, starts, count):
    """``utf8(entries)``: the UTF-8 of some of the ``count`` ids of the dicts (:func:`utf8_ids`).

    Read for ties only: many entries (heavy ties) are cut out of every id
    encoded once; a few are read back from their dicts.
    """
    every = []

    def utf8(entries):  # (entries: indices, or a slice of them)
        size = entries.stop - entries.start if isinstance(entries, slice) else len(entries)
        if not every and (8 * size > count or size > 4096):
            every.append(utf8_ids(joined, count, lambda: joined_entries(dicts)))
        if every:
            raw, first, lengths = every[0]
            return raw, first[entries], lengths[entries]
        if isinstance(entries, slice):
            entries = np.arange(entries.start, entries.stop)
        query = np.searchsorted(starts, entries, side="right") - 1
        keys = {}
        picked = [(keys.get(q) or keys.setdefault(q, list(dicts[q])))[e - starts[q]]
                  for q, e in zip(query.tolist(), entries.tolist())]
        return utf8_ids("\0".join(picked), len(picked), lambda: picked)
    return utf8


def score_chunks(chunks, parsed, conv):
    """Steps 3 and 4: each chunk ranked once, then one kernel per metric on it.

    Returns the scored query ids, ``{metric name: values per query}`` and R
    of each query at the relevance level.  A metric the relevance level
    applies to sees a document as relevant from ``conv.relevance_level`` up;
    the graded ones (nDCG, DCG, ERR, graded RBP) from grade 1 up, so they keep
    every grade's gain (rule 4).

    Parameters
    ----------
    chunks : iterable of Chunk
        The checked blocks of whole queries (from :func:`dict_chunks` or a run file).
    parsed : list of Metric
        The parsed metrics, each scored by its family's kernel.
    conv : Conventions
        The conventions: ``conv.depth`` cuts each ranking, ``conv.relevance_level``
        is the lowest relevant grade; the kernels read the rest.
    """
    qids, n_relevant = [], []
    parts = {m.name: [] for m in parsed}
    for chunk in chunks:
        ranked = rank(chunk, conv.depth)  # 3. each query sorted once
        binary = dataclasses.replace(ranked, level=conv.relevance_level)
        for m in parsed:                  # 4. one kernel per metric
            parts[m.name].append(m.declaration.kernel(
                binary if uses_relevance_level(m) else ranked, m, conv))
        qids += chunk.qids
        n_relevant.append(binary.n_relevant)
    empty = [np.zeros(0)]  # (a run file may share no query with the qrels)
    return (qids, {name: np.concatenate(v or empty) for name, v in parts.items()},
            np.concatenate(n_relevant or empty))


def evaluate_files(qrels, run_path, parsed, conv):
    """Steps 1-5 on a TREC run file, read as a stream of columns (:func:`~ragmetrics_edu.evaluate`).

    ``qrels`` is a qrels file (read as columns), a dict or a data frame.
    The run is read a block of whole queries at a time
    (:func:`~ragmetrics_edu.retrieval.batch._columns.run_chunks`), each
    block ranked and scored before the next is read, so that the memory
    held is that of one block and of the largest query, however long the
    run.  That needs the lines of each query together, as TREC runs write
    them; a run whose queries are interleaved, or a file that is not
    plainly written (an error, a rare spelling such as ``inf``), is read
    whole by :func:`~ragmetrics_edu.retrieval.trec.read_run` (which names
    the line of an error) and scored as a dict: the same numbers.

    Parameters
    ----------
    qrels : str, path, dict or DataFrame
        The relevance judgements: a qrels file, ``{qid: {docid: grade}}``, or a
        data frame (:func:`~ragmetrics_edu.retrieval.frames.from_frames`).
    run_path : str or path
        The TREC run file.
    parsed : list of Metric
        The parsed metrics.
    conv : Conventions
        The conventions the numbers follow.
    """
    qrels_path = path_of(qrels)
    columns = None
    if qrels_path is not None:
        try:
            columns = QrelsColumns.read(qrels_path)
        except Unusual:
            qrels = read_qrels(qrels_path)  # (names the line of an error)
    else:
        qrels = from_frames(qrels, {})[0]
    if columns is None:  # (checked as in dict_chunks)
        _check_nested(qrels, "qrels", "grade")
        judgements = _as_dicts(list(qrels.values()))
        sizes = np.fromiter(map(len, judgements), dtype=np.int64, count=len(judgements))
        _joined_ids(judgements, list(qrels), "qrels")
        _check_grades(list(chain.from_iterable(map(dict.values, judgements))),
                      _where(list(qrels), np.cumsum(sizes) - sizes, judgements))
        columns = QrelsColumns.from_dict(dict(zip(qrels, judgements)))
    seen = []
    try:
        chunks = run_chunks(run_path, columns, conv.scores, seen)  # 2. a block at a time
        scored, values, n_relevant = score_chunks(chunks, parsed, conv)  # 3, 4
    except (Unusual, NotGrouped):
        qrels = read_qrels(qrels_path) if qrels_path is not None else qrels
        run = read_run(run_path)  # an error is named here, with its line
        if not any(qrels.get(q) for q in run):  # (said as the stream says it, files named)
            raise _nothing_to_score(run_path, qrels_path, list(run),
                                    sum(1 for docs in qrels.values() if docs), list(qrels))
        queries = select_queries(qrels, run)
        chunks = dict_chunks(qrels, run, queries.scored, conv.scores,
                             any(m.declaration.judged for m in parsed))
        scored, values, n_relevant = score_chunks(chunks, parsed, conv)
        return report(scored, values, n_relevant, queries, conv, lambda q: qrels[q].values())
    judged = {q for q, size in zip(columns.qids, columns.sizes.tolist()) if size}
    in_run = set(seen)
    queries = Queries(  # 1. (known at the end)
        scored, tuple(chain((q for q in seen if q not in judged),
                            (q for q in columns.qids if q not in judged and q not in in_run))),
        tuple(q for q in columns.qids if q in judged and q not in in_run))
    if not scored:
        raise _nothing_to_score(run_path, qrels_path, seen, len(judged), columns.qids)

    def grades_of(qid):
        i = columns.index[qid]
        return columns.grades[columns.starts[i]:columns.starts[i] + columns.sizes[i]].tolist()

    return report(scored, values, n_relevant, queries, conv, grades_of)  # 5


def _nothing_to_score(run_path, qrels_path, run_ids, n_judged, qrels_ids):
    """The error of a run file that shares no judged query with the qrels, both named."""
    return ValueError(
        f"{run_path} shares no query with {qrels_path or 'the qrels'} ({len(run_ids)} queries in "
        f"the run, {n_judged} judged; run ids such as {_some(run_ids)}, judged ids such as "
        f"{_some(list(qrels_ids))}): there is nothing to score")


def _some(ids, n=3):
    return ", ".join(repr(i) for i in ids[:n]) + (", ..." if len(ids) > n else "")


def report(scored, values, n_relevant, queries, conv, grades_of):
    """Step 5: the :class:`Report`: values per query, and their means as trec_eval takes them.

    A query without a relevant document (at the relevance level) is listed,
    and left out under ``without_relevant="skip"`` (gdeval), as is a missing
    one whose grades (``grades_of(qid)``) hold no relevant document.

    Parameters
    ----------
    scored : list of str
        The scored query ids, in the order of ``values``.
    values : dict
        ``{metric name: numpy array of one value per scored query}``.
    n_relevant : numpy.ndarray
        R of each scored query at the relevance level.
    queries : Queries
        The scored, unjudged and missing queries (:func:`select_queries`).
    conv : Conventions
        The conventions: ``conv.missing`` (``"zero"``: a judged query absent from
        the run scores 0 and counts in the means, as trec_eval -c), and
        ``conv.without_relevant`` (``"skip"``: a query without a relevant
        document is left out, as gdeval does) decide the means.
    grades_of : callable
        ``grades_of(qid)``: the grades of a query's judgements, read for a missing
        query under ``without_relevant="skip"``.
    """
    names = list(values)
    missing = queries.missing if conv.missing == "zero" else ()
    without = np.flatnonzero(n_relevant == 0)
    without_relevant = tuple(scored[q] for q in without.tolist())
    if conv.without_relevant == "skip" and (len(without) or missing):
        kept = np.flatnonzero(n_relevant > 0)
        scored = [scored[q] for q in kept.tolist()]
        values = {name: v[kept] for name, v in values.items()}
        level = conv.relevance_level
        missing = tuple(qid for qid in missing if any(g >= level for g in grades_of(qid)))
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
        per_query=per_query, mean=mean, metrics=tuple(names),
        missing_queries=queries.missing, unjudged_queries=queries.unjudged,
        queries_without_relevant=without_relevant, missing=conv.missing, gain=conv.gain,
        scores=conv.scores, relevance_level=conv.relevance_level, depth=conv.depth,
        without_relevant=conv.without_relevant,
    )
