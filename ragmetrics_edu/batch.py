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
4. **Relevant means grade >= 1.**  Grades are integers.  Grade 0 is judged
   not relevant; a negative grade (some TREC collections use -1 or -2 for
   spam or junk) is also not relevant and brings no gain to DCG.  A document
   that is not in the qrels is not relevant either.
5. **nDCG** uses the grade itself as the gain (``gain="linear"``) and
   :math:`\log_2(rank + 1)` as the discount.  The ideal DCG is built from
   *all* the judged documents of the query, retrieved or not, sorted by
   grade; ``ndcg@k`` cuts both the run and the ideal ranking at ``k``.
6. **AP** divides by *all* the relevant documents of the query in the qrels,
   retrieved or not; ``map@k`` only sums over the top ``k`` but keeps that
   denominator.  ``recall@k`` uses the same denominator.
7. **P@k** divides by ``k``, even when fewer than ``k`` documents were
   retrieved.
8. **Which queries are scored.**  Only the queries that are both in the
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
9. **A judged query without any relevant document** scores 0 for every
   metric (recall and AP would be 0/0) and *is* counted in the means, as
   trec_eval does; it is listed in :attr:`Report.queries_without_relevant`.
   (A query judged only with negative grades is one of them; trec_eval's
   own rules give it 0, but pytrec_eval 0.5.x has undefined behaviour on it
   in ``ndcg``: it hangs or crashes, or returns 0.)

``mrr@k`` (reciprocal rank, 0 if the first relevant document is below rank
``k``), ``f1@k`` and ``dcg@k`` are not trec_eval measures; they follow the
same rules.

The measures of notebooks 02, 03 and 07 follow the same ranking and are
defined by the readable one-query functions, which the tests compare this
path with:

* ``rprec``: :func:`ragmetrics_edu.order_aware.r_precision`, trec_eval ``Rprec``;
* ``iprec@0.5``: :func:`ragmetrics_edu.order_aware.interpolated_precision`,
  trec_eval ``iprec_at_recall_0.50``;
* ``11pt``: :func:`ragmetrics_edu.order_aware.eleven_point_average_precision`,
  trec_eval ``11pt_avg`` (which gives NaN, 0/0, for an empty ranking; 0 here);
* ``bpref``: :func:`ragmetrics_edu.incomplete.bpref`, trec_eval ``bpref``;
* ``judged@k``: :func:`ragmetrics_edu.incomplete.judged_at_k`, ir_measures
  ``Judged@k``;
* ``err@k``: :func:`ragmetrics_edu.user_models.err_at_k`, gdeval's ``err@k``;
* ``rbp(p=0.8)``: :func:`ragmetrics_edu.user_models.rank_biased_precision`,
  cwl-eval's RBP, and ``rbp_residual(p=0.8)``:
  :func:`ragmetrics_edu.user_models.rbp_residual`.

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

which NumPy computes for every query at once with ``np.bincount``.  The
readable one-query functions of :mod:`ragmetrics_edu.order_unaware`,
:mod:`~ragmetrics_edu.order_aware` and :mod:`~ragmetrics_edu.graded` are
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
import numbers
import re
from collections.abc import Mapping
from itertools import chain, compress, islice, repeat
from operator import itemgetter

import numpy as np

from ._report import Report
from ._validation import check_choice, check_k_text, describe_int, shorten
from ._words import id_words as _id_words
from ._words import ranges as _ranges
from .conventions import PRESETS, evaluate_as, get_preset
from .graded import _dcg_overflow, _gains
from .order_aware import ELEVEN_POINTS
from .user_models import RBP_GAINS

__all__ = ["evaluate", "Report", "METRICS"]

METRICS = {
    # name: (cut-off "required" / "optional" / "none" / "level", what it is,
    #        the reference's name)
    "P": ("required", "precision at k", "P_k"),
    "recall": ("required", "recall at k", "recall_k"),
    "f1": ("required", "harmonic mean of P@k and recall@k", None),
    "hit_rate": ("required", "1 if a relevant document is in the top k", "success_k"),
    "mrr": ("optional", "reciprocal rank of the first relevant document", "recip_rank"),
    "map": ("optional", "average precision", "map / map_cut_k"),
    "ndcg": ("optional", "normalized discounted cumulative gain", "ndcg / ndcg_cut_k"),
    "dcg": ("required", "discounted cumulative gain at k", None),
    "rprec": ("none", "R-precision: precision at rank R", "Rprec"),
    "iprec": ("level", "interpolated precision at a recall level in [0, 1]",
              "iprec_at_recall_0.50 (for iprec@0.5)"),
    "11pt": ("none", "11-point interpolated average precision", "11pt_avg"),
    "bpref": ("none", "binary preference: relevant above judged non-relevant", "bpref"),
    "judged": ("optional", "fraction of the top k that has a judgement",
               "ir_measures Judged@k"),
    "err": ("optional", "expected reciprocal rank (Chapelle et al. 2009)",
            "gdeval err@k (ir_measures ERR@k)"),
    "rbp": ("none", "rank-biased precision (Moffat & Zobel 2008)",
            "cwl-eval RBP (ir_measures RBP(p=0.8, rel=1))"),
    "rbp_residual": ("none", "weight of the ranks RBP could not judge",
                     "cwl-eval's RBP residual"),
}
"""The metric families :func:`evaluate` knows, by the name written before ``@``."""

PARAMETERS = {
    "err": {"max_grade": 4},
    "rbp": {"p": 0.8, "gain": "binary", "max_grade": 4},
    "rbp_residual": {"p": 0.8},
}
"""The named parameters of a family and their defaults: ``"rbp(p=0.9)"``, ``"err(max_grade=3)@20"``."""

_NEEDS_JUDGED = {"bpref", "judged", "rbp_residual"}
"""Families that need the ranks of every judged document, not only the relevant ones."""

MISSING_POLICIES = ("ignore", "zero")
"""What :func:`evaluate` does with judged queries missing from the run."""

GAINS = ("linear", "exponential")
"""Gain of a grade ``g`` in DCG: ``g`` (trec_eval) or ``2**g - 1`` (Burges et al.)."""


def _known_metrics():
    """Return the list of metric name patterns, for error messages."""
    names = []
    for base, (cut, _, _) in METRICS.items():
        if base in PARAMETERS:
            defaults = ", ".join(f"{key}={value}" for key, value in PARAMETERS[base].items())
            base = f"{base}, {base}({defaults})"
        names.append({"required": f"{base}@k", "optional": f"{base}, {base}@k",
                      "none": base, "level": f"{base}@r (r in [0, 1])"}[cut])
    return ", ".join(names)


@dataclasses.dataclass(frozen=True)
class _Metric:
    """A parsed metric name: ``"err(max_grade=3)@20"`` is family ``err``, k 20, max_grade 3."""

    name: str
    base: str
    k: object = None            # int, None (whole ranking), or the recall level of iprec
    params: tuple = ()          # ((key, value), ...) of the named parameters

    def __getitem__(self, key):
        return dict(self.params)[key]


_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+")
"""A parameter's number: ASCII digits with an optional decimal point (no sign, no exponent)."""


def _parse_number(text, what, name):
    """``text`` as a float, if it is a plain decimal number; else a ValueError naming the metric."""
    if len(text) > 40 or not _NUMBER.fullmatch(text):
        raise ValueError(
            f"{what} must be a decimal number such as 0.8, got {shorten(text)} "
            f"in metric {shorten(name)}"
        )
    return float(text)


def _parse_parameters(text, base, name):
    """The ``key=value`` pairs written between parentheses, checked, with the defaults."""
    values = dict(PARAMETERS[base])
    for item in text.split(","):
        key, equals, value = (part.strip() for part in item.partition("="))
        if not equals or key not in values:
            known = ", ".join(f"{k}=..." for k in values)
            raise ValueError(
                f"metric {shorten(name)}: {base} takes the parameters {known}, "
                f"got {shorten(item.strip())}"
            )
        if key == "gain":
            check_choice(value, RBP_GAINS, name=f"the gain of {shorten(name)}")
            values[key] = value
        else:
            values[key] = _parse_number(value, key, name)
    if "p" in values and not 0.0 < values["p"] < 1.0:
        raise ValueError(
            f"{base}: the persistence p must be strictly between 0 and 1, got "
            f"p={values['p']!r} in metric {shorten(name)}"
        )
    if "max_grade" in values:
        if not values["max_grade"] > 0:
            raise ValueError(
                f"{base}: max_grade must be a positive number, got "
                f"{values['max_grade']!r} in metric {shorten(name)}"
            )
        if values["max_grade"] > 1023:  # 2**max_grade must be a finite float
            raise ValueError(
                f"{base}: max_grade must be at most 1023 (2**max_grade must fit in a "
                f"float), got {values['max_grade']!r} in metric {shorten(name)}"
            )
    return tuple(values.items())


def _parse_metric(name):
    """Parse a metric name such as ``"ndcg@10"``, ``"iprec@0.5"`` or ``"rbp(p=0.9)"``.

    Returns a :class:`_Metric`; its cut-off is None when the name has none
    (``"map"``).
    """
    if not isinstance(name, str):
        raise TypeError(f"metric names must be strings, got {name!r}")
    head, at, k_text = name.partition("@")
    base, parenthesis, inside = head.partition("(")
    if base not in METRICS:
        raise ValueError(
            f"unknown metric {shorten(name)}; the known metrics are: {_known_metrics()} "
            f"(k a positive integer, e.g. 'ndcg@10')"
        )
    params = tuple(PARAMETERS.get(base, {}).items())
    if parenthesis:
        if base not in PARAMETERS:
            raise ValueError(
                f"metric {shorten(name)}: {base} takes no parameters (only "
                f"{', '.join(PARAMETERS)} do)"
            )
        if not inside.endswith(")"):
            raise ValueError(
                f"metric {shorten(name)}: the parameters must end with ')', e.g. 'rbp(p=0.9)'"
            )
        params = _parse_parameters(inside[:-1], base, name)
    cut = METRICS[base][0]
    if cut == "level":  # "iprec@0.5": a recall level
        if not at:
            raise ValueError(f"metric {shorten(name)} needs a recall level, e.g. '{base}@0.5'")
        level = _parse_number(k_text, "the recall level", name)
        if not 0.0 <= level <= 1.0:
            raise ValueError(
                f"{base}: the recall level must be in [0, 1], got {k_text} in metric "
                f"{shorten(name)}"
            )
        return _Metric(name, base, level, params)
    if not at:
        if cut == "required":
            raise ValueError(
                f"metric {shorten(name)} needs a cut-off k, e.g. '{base}@10'"
            )
        return _Metric(name, base, None, params)
    if cut == "none":
        raise ValueError(f"metric {shorten(name)} takes no cut-off, write '{base}'")
    # "P@10": the cut-off must be written as a positive integer
    return _Metric(name, base, check_k_text(k_text, metric=name), params)


def _check_metrics(metrics):
    """Return the metric names as a list of :class:`_Metric`, without repeats."""
    if isinstance(metrics, str):
        metrics = [metrics]
    if not hasattr(metrics, "__iter__"):
        raise TypeError(f"metrics must be a list of metric names, got {metrics!r}")
    parsed = []
    seen = set()
    for name in metrics:
        metric = _parse_metric(name)
        if name not in seen:
            seen.add(name)
            parsed.append(metric)
    if not parsed:
        raise ValueError(
            f"metrics must name at least one metric; the known metrics are: "
            f"{_known_metrics()}"
        )
    return parsed


def _check_nested(mapping, name, what):
    """Raise unless ``mapping`` is a dict ``{str: dict}``.

    The common case is checked in C (the set of the types met); the loop
    that names the culprit only runs when something is wrong.
    """
    if not isinstance(mapping, Mapping):
        raise TypeError(
            f"{name} must be a dict {{qid: {{docid: {what}}}}}, got {type(mapping).__name__}"
        )
    key_types = set(map(type, mapping))
    inner_types = set(map(type, mapping.values()))
    if all(issubclass(t, str) for t in key_types) and all(
        issubclass(t, Mapping) for t in inner_types
    ):
        return
    for qid, inner in mapping.items():
        if not isinstance(qid, str):
            raise TypeError(
                f"{name} query ids must be strings (as in a TREC file), got {qid!r}"
            )
        if not isinstance(inner, Mapping):
            raise TypeError(
                f"{name}[{qid!r}] must be a dict {{docid: {what}}}, got {inner!r}"
            )


def _check_docids(docids, qid_of, name):
    """Raise unless every document id of the list ``docids`` is a string.

    ``"".join(docids)`` refuses anything but strings and loops in C, so it
    checks every id for the price of copying them; the slow loop only runs
    to name the culprit.  ``qid_of(i)`` is the query of the i-th id.
    """
    try:
        "".join(docids)
        return
    except TypeError:
        pass
    for i, d in enumerate(docids):
        if not isinstance(d, str):
            raise TypeError(
                f"{name} document ids must be strings (as in a TREC file), "
                f"got {d!r} in query {qid_of(i)!r}"
            )


def _as_dicts(mappings):
    """The list of mappings, with any that is not a plain dict copied into one."""
    if all(type(m) is dict for m in mappings):
        return mappings
    return [m if type(m) is dict else dict(m) for m in mappings]


def _to_float32(scores):
    """Round scores to 32-bit floats, as trec_eval stores them (1e300 -> inf)."""
    with np.errstate(over="ignore"):
        return np.asarray(scores).astype(np.float32)


def _sortable(scores32):
    """Map float32 scores to uint32 keys whose integer order is the float order.

    ``+ 0`` turns ``-0.0`` into ``0.0`` (the two are equal scores).  Then the
    IEEE bit pattern is made sortable as an unsigned integer: a negative
    float has all its bits flipped, a positive one only its sign bit.
    """
    bits = (scores32 + np.float32(0.0)).view(np.uint32)
    # sign bit 1 -> mask 0xFFFFFFFF, sign bit 0 -> mask 0x80000000
    # (computed in place: with a million scores, every temporary is 4 MB)
    mask = bits >> np.uint32(31)
    np.negative(mask, out=mask)
    mask |= np.uint32(0x80000000)
    bits ^= mask
    return bits


def evaluate(qrels, run, metrics, *, missing=None, gain=None, conventions=None):
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
        ``"seeds"``, ``"ragas"``) or a
        :class:`ragmetrics_edu.conventions.Conventions`.  ``missing`` and
        ``gain``, if given too, override the preset's.  Conventions that
        differ from trec_eval's only in ``missing``, ``gain`` and
        ``scores`` (``"trec_eval10"``: doubles) take this function's fast
        path; the others are computed by
        :func:`ragmetrics_edu.conventions.evaluate_as` (query by query,
        readable, slower), which returns a
        :class:`~ragmetrics_edu.conventions.ConventionReport`, a
        :class:`Report` that also carries the conventions.

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
        metrics); a NaN score, or an integer score too large for a float;
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
    ragmetrics_edu.order_unaware.precision_at_k : P@k of one ranking, readable.
    ragmetrics_edu.order_aware.average_precision : AP of one ranking, readable.
    ragmetrics_edu.graded.ndcg_at_k : nDCG of one ranking, readable.
    ragmetrics_edu.trec.read_qrels, ragmetrics_edu.trec.read_run : TREC files.

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
    >>> from ragmetrics_edu.batch import evaluate
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
    """
    conv = _chosen_conventions(conventions, missing, gain)
    if not _takes_the_fast_path(conv):
        return evaluate_as(qrels, run, metrics, conv)
    parsed = _check_metrics(metrics)
    _check_nested(qrels, "qrels", "grade")
    _check_nested(run, "run", "score")

    queries = _select_queries(qrels, run)            # 1. which queries are scored
    judged = any(m.base in _NEEDS_JUDGED for m in parsed)  # rank every judged document?
    data = _flatten(qrels, run, queries, conv.scores, judged)  # 2. validate, into flat arrays
    hits = _rank_relevant(data, judged)              # 3. rank the relevant (or judged) documents
    values = {m.name: _KERNELS[m.base](hits, m, conv)  # 4. one kernel per metric
              for m in parsed}
    return _aggregate(values, queries, hits, conv)   # 5. per query and means


# ---------------------------------------------------------------------------
# The steps of evaluate, in order
# ---------------------------------------------------------------------------

_FAST_PATH_FREE = ("missing", "gain", "scores")
"""The fields of a :class:`~ragmetrics_edu.conventions.Conventions` the fast path can vary."""


def _chosen_conventions(conventions, missing, gain):
    """The :class:`~ragmetrics_edu.conventions.Conventions` asked for.

    trec_eval's preset unless ``conventions`` names another; ``missing`` and
    ``gain``, when given, override the preset's (and are checked by it).
    """
    conv = PRESETS["trec_eval"] if conventions is None else get_preset(conventions)
    overrides = {name: value for name, value in (("missing", missing), ("gain", gain))
                 if value is not None}
    return conv.replace(**overrides) if overrides else conv


def _takes_the_fast_path(conv):
    """True if ``conv`` makes trec_eval's choices except perhaps ``missing``, ``gain``, ``scores``."""
    reference = PRESETS["trec_eval"]
    return all(getattr(conv, field.name) == getattr(reference, field.name)
               for field in dataclasses.fields(conv)
               if field.name not in (*_FAST_PATH_FREE, "name", "library", "where"))


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
    data.run_ids, data.looked_up, data.looked_up_scores = _join_and_look_up(data, looked_up)
    values = _check_scores(rankings, data.run_starts, run_sizes, data.run_where,
                           np.float32 if scores == "float32" else np.float64)
    data.score_keys, data.key_of = _score_keys(values, scores)
    return data


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


def _rank_relevant(data, judged=False):
    r"""The rank of every relevant retrieved document, as trec_eval orders a run.

    One uint64 key per document: its query in the high 32 bits, its score
    key in the low 32 bits.  Sorting the scores inside each query
    (ascending) sorts the keys: by query, then by score.  A hit's rank is
    1 + the number of documents of its query with a larger key (two binary
    searches), + the number of tied documents with a larger id
    (:func:`_count_larger_ids`, only for hits that tie).  With
    ``judged=True`` every judged document is ranked, not only the relevant
    ones (bpref, judged@k and RBP's residual need them).
    """
    n_queries, grades, judged_query = data.n_queries, data.grades, data.judged_query
    relevant = np.flatnonzero(grades >= 1)  # trec_eval's default relevance level
    n_relevant = np.bincount(judged_query[relevant], minlength=n_queries)
    # the judged documents looked up in the run (:func:`_join_and_look_up`)
    positions, scores = data.looked_up, data.looked_up_scores

    sorted_keys = data.score_keys.copy()
    _sort_each_query(sorted_keys, data.run_starts, data.run_sizes)
    query_bits = np.arange(n_queries, dtype=np.uint64) << np.uint64(32)
    run_keys = np.repeat(query_bits, data.run_sizes)
    run_keys |= sorted_keys
    del sorted_keys

    # The retrieved ones are put in key order: binary searches with sorted
    # needles are much faster.  ``which`` is their index among those looked up.
    which = np.flatnonzero(~np.isnan(scores))
    found_score_keys = data.key_of(scores[which])
    found_keys = query_bits[judged_query[positions[which]]] | found_score_keys
    order = np.argsort(found_keys, kind="stable")
    which, found_keys = which[order], found_keys[order]
    found_positions = positions[which]
    found_query = judged_query[found_positions]
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
                 starts=hit_starts, judged=ranked_judged)


# --- Step 4: the per-metric kernels ------------------------------------------
# Each takes the hits, the cut-off k (None: the whole ranking) and the gain,
# and returns one value per query (numpy array), every query at once.

def _safe_divide(num, den):
    """num / den, and 0 where the denominator is 0 (no relevant document): trec_eval's rule."""
    out = np.zeros(len(den))
    np.divide(num, den, out=out, where=den > 0)
    return out


def _in_top(ranks, k):
    """Which ranks are within the cut-off (all of them if k is None)."""
    return np.ones(len(ranks), bool) if k is None else ranks <= k


def _found(hits, k):
    """The number of relevant documents in the top k of each query."""
    return hits.per_query_sum(hits.query, _in_top(hits.rank, k))


def _precision(hits, metric, conv):
    return _found(hits, metric.k) / metric.k


def _recall(hits, metric, conv):
    return _safe_divide(_found(hits, metric.k), hits.n_relevant)


def _f1(hits, metric, conv):
    p, r = _precision(hits, metric, conv), _recall(hits, metric, conv)
    return _safe_divide(2 * p * r, p + r)


def _hit_rate(hits, metric, conv):
    return (_found(hits, metric.k) > 0).astype(np.float64)


def _reciprocal_rank(hits, metric, conv):
    v = 1.0 / hits.first_rank  # 1 / inf = 0 when nothing relevant was found
    if metric.k is not None:
        v[hits.first_rank > metric.k] = 0.0
    return v


def _average_precision(hits, metric, conv):
    precisions = (hits.index / hits.rank) * _in_top(hits.rank, metric.k)
    return _safe_divide(hits.per_query_sum(hits.query, precisions), hits.n_relevant)


def _dcg_terms(grades, ranks, used, gain, name):
    """gain / log2(rank + 1) of the entries used (0 for the others).

    The gain comes from graded.py's function: it refuses a grade whose
    2**grade overflows a float (1024 and more), naming ``name(i)`` of the
    entry.
    """
    terms = np.zeros(len(ranks))
    used = np.flatnonzero(used)
    gains = _gains(grades[used].astype(np.float64), gain, where=lambda j: name(used[j]))
    terms[used] = gains / np.log2(ranks[used] + 1.0)
    return terms


def _check_finite(hits, sums, gain):
    """Raise if a query's sum of finite gains overflowed (graded.py refuses it too)."""
    bad = np.flatnonzero(np.isinf(sums))
    if len(bad):
        q = int(bad[0])
        raise _dcg_overflow(hits.ideal_grade[hits.ideal_query == q], gain,
                            where=f"query {hits.data.qids[q]!r}")
    return sums


def _dcg(hits, metric, conv):
    terms = _dcg_terms(hits.grade, hits.rank, _in_top(hits.rank, metric.k), conv.gain,
                       lambda i: hits.document(hits.position[i]))
    return _check_finite(hits, hits.per_query_sum(hits.query, terms), conv.gain)


def _ndcg(hits, metric, conv):
    def ideal_document(i):  # one document of the i-th ideal entry's query and grade
        q, g = hits.ideal_query[i], hits.ideal_grade[i]
        same = (hits.ideal_query == q) & (hits.data.grades[hits.relevant] == g)
        return hits.document(hits.relevant[np.flatnonzero(same)[0]])

    terms = _dcg_terms(hits.ideal_grade, hits.ideal_rank, _in_top(hits.ideal_rank, metric.k),
                       conv.gain, ideal_document)
    idcg = _check_finite(hits, hits.per_query_sum(hits.ideal_query, terms), conv.gain)
    return _safe_divide(_dcg(hits, metric, conv), idcg)


# --- the measures of the precision-recall curve and of incomplete judgements

def _r_precision(hits, metric, conv):
    """Relevant documents in the top R, over R (trec_eval's Rprec)."""
    in_top_r = hits.rank <= hits.n_relevant[hits.query]
    return _safe_divide(hits.per_query_sum(hits.query, in_top_r), hits.n_relevant)


def _interpolated_precision_at(hits, levels, convention):
    """Interpolated precision at recall levels, for every query: an array (level, query).

    A level becomes a number c of relevant documents (trec_eval 9:
    ``int(level * R + 0.9)``; trec_eval 10: ``level * R`` rounded half up);
    the value is the best precision ``i / r_i`` of the i-th hit for i >= c
    (precision only rises at a hit), 0 if fewer than c were found or R = 0.
    Every level of every query is done in one ``np.maximum.reduceat``.
    """
    x = np.asarray(levels, dtype=np.float64)[:, None] * hits.n_relevant
    if convention == "trec_eval_10":
        needed = np.floor(x)
        needed += (x - needed) >= 0.5
    else:
        needed = np.floor(x + 0.9)
    needed = np.maximum(needed.astype(np.int64), 1)
    n_hits = np.bincount(hits.query, minlength=hits.n_queries)
    reached = (n_hits >= needed) & (hits.n_relevant > 0)
    out = np.zeros(reached.shape)
    if not reached.any():
        return out
    # the maximum of precision[start + needed - 1 : start + n_hits] of each
    # (level, query) reached: np.maximum.reduceat over (from, to) pairs,
    # whose every other result (to, next from) is dropped
    precision = np.append(hits.index / hits.rank, 0.0)  # one extra: "to" may be the end
    level, q = np.nonzero(reached)
    bounds = np.empty(2 * len(q), dtype=np.int64)
    bounds[0::2] = hits.starts[q] + needed[level, q] - 1
    bounds[1::2] = hits.starts[q] + n_hits[q]
    out[level, q] = np.maximum.reduceat(precision, bounds)[0::2]
    return out


def _iprec_convention(conv):
    """trec_eval 10.0 rounds a recall level to relevant documents differently from 9.x."""
    return "trec_eval_10" if conv.scores == "float64" else "trec_eval_9"


def _interpolated_precision(hits, metric, conv):
    return _interpolated_precision_at(hits, [metric.k], _iprec_convention(conv))[0]


def _eleven_point(hits, metric, conv):
    total = np.zeros(hits.n_queries)
    for at_level in _interpolated_precision_at(hits, ELEVEN_POINTS, _iprec_convention(conv)):
        total += at_level  # level after level, in trec_eval's order of summing
    return total / len(ELEVEN_POINTS)


def _bpref(hits, metric, conv):
    """trec_eval's bpref: each relevant hit loses min(n, R) / min(N, R) for n judged non-relevant above it.

    Judged non-relevant means grade 0 (a negative grade is skipped, as an
    unjudged document is); N counts them in the qrels, retrieved or not.
    """
    ranked, n_queries = hits.judged, hits.n_queries
    data = hits.data
    is_nonrelevant = ranked.grade == 0
    n_nonrelevant = np.bincount(data.judged_query[data.grades == 0], minlength=n_queries)
    # judged non-relevant documents above each entry (a cumulative count
    # restarted at every query)
    count = np.cumsum(is_nonrelevant)
    per_query = np.bincount(ranked.query, minlength=n_queries)
    before_query = np.concatenate(([0], count))[np.cumsum(per_query) - per_query]
    above = (count - is_nonrelevant) - before_query[ranked.query]
    relevant = ranked.grade >= 1
    query, above = ranked.query[relevant], above[relevant]
    r = hits.n_relevant[query]
    denominator = np.minimum(n_nonrelevant[query], r)
    terms = np.ones(len(query))
    some = above > 0  # then N >= 1 and the denominator is at least 1
    terms[some] = 1.0 - np.minimum(above[some], r[some]) / denominator[some]
    return _safe_divide(hits.per_query_sum(query, terms), hits.n_relevant)


def _judged(hits, metric, conv):
    """Judged documents in the top k over the documents in the top k (ir_measures' Judged@k)."""
    ranked = hits.judged
    found = hits.per_query_sum(ranked.query, _in_top(ranked.rank, metric.k))
    depth = hits.data.run_sizes if metric.k is None else np.minimum(hits.data.run_sizes, metric.k)
    return _safe_divide(found, depth)


def _check_max_grade(hits, metric):
    """Raise unless the metric's max_grade is at least every grade of the qrels."""
    max_grade, grades = metric["max_grade"], hits.data.grades
    if len(grades) and grades.max() > max_grade:
        worst = int(np.argmax(grades))
        raise ValueError(
            f"{metric.base}: max_grade={max_grade:g} is below the largest grade in the "
            f"qrels, {int(grades[worst])} ({hits.document(worst)}), in metric "
            f"{shorten(metric.name)}; write max_grade={int(grades[worst])} or more"
        )
    return max_grade


def _err(hits, metric, conv):
    r"""gdeval's ERR@k: :math:`\sum_i \frac{R_i}{r_i} \prod_{j < i} (1 - R_j)`, R = (2^g - 1) / 2^max.

    Only relevant documents have R > 0, so the product runs over the hits
    above; it is built hit by hit (the i-th hits of every query at once),
    multiplying in the same order as the readable function.
    """
    max_grade = _check_max_grade(hits, metric)
    used = _in_top(hits.rank, metric.k)
    stop = (np.power(2.0, hits.grade.astype(np.float64)) - 1.0) / 2.0 ** max_grade
    reach = np.ones(len(stop))  # prod_{j < i} (1 - R_j)
    for i in range(2, int(hits.index.max(initial=0)) + 1):
        now = np.flatnonzero(hits.index == i)
        reach[now] = reach[now - 1] * (1.0 - stop[now - 1])
    terms = np.where(used, reach * stop / hits.rank, 0.0)
    return hits.per_query_sum(hits.query, terms)


def _rbp_weights(ranks, p):
    """(1 - p) p**(rank - 1): the weight of a rank for a user of persistence p."""
    return (1.0 - p) * np.power(p, ranks - 1.0)


def _rbp(hits, metric, conv):
    """cwl-eval's RBP: binary gain (grade >= 1), or grade / max_grade."""
    weights = _rbp_weights(hits.rank, metric["p"])
    if metric["gain"] == "graded":
        weights = weights * (hits.grade / _check_max_grade(hits, metric))
    return hits.per_query_sum(hits.query, weights)


def _rbp_residual(hits, metric, conv):
    """1 - the weight of the judged ranks: the unjudged ranks and those beyond the ranking."""
    ranked = hits.judged
    return 1.0 - hits.per_query_sum(ranked.query, _rbp_weights(ranked.rank, metric["p"]))


_KERNELS = {
    "P": _precision, "recall": _recall, "f1": _f1, "hit_rate": _hit_rate,
    "mrr": _reciprocal_rank, "map": _average_precision, "dcg": _dcg, "ndcg": _ndcg,
    "rprec": _r_precision, "iprec": _interpolated_precision, "11pt": _eleven_point,
    "bpref": _bpref, "judged": _judged, "err": _err, "rbp": _rbp,
    "rbp_residual": _rbp_residual,
}
"""The kernel of each metric family of :data:`METRICS`."""


def _aggregate(values, queries, hits, conv):
    """Step 5: the :class:`Report`: values per query, and their means as trec_eval takes them."""
    names = list(values)
    scored = queries.scored
    # Every query's dict starts as a copy of one template (a copy shares the
    # template's key table: much faster than building each dict key by key),
    # then is filled metric by metric.
    template = dict.fromkeys(names, 0.0)
    rows = [template.copy() for _ in scored]
    for name in names:
        for row, value in zip(rows, values[name].tolist()):
            row[name] = value
    per_query = dict(zip(scored, rows))
    if conv.missing == "zero":
        for qid in queries.missing:
            per_query[qid] = dict.fromkeys(names, 0.0)
        denominator = len(scored) + len(queries.missing)
    else:
        denominator = len(scored)
    # trec_eval sums the per-query values and divides by the number of queries
    mean = {name: float(np.sum(values[name]) / denominator) for name in names}
    without_relevant = tuple(scored[q] for q in np.flatnonzero(hits.n_relevant == 0).tolist())
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
    )


def _check_all_docids(dicts, qids, name):
    """Raise unless every document id (key of the dicts ``{docid: ...}``) is a string.

    As :func:`_check_docids`, one query at a time: ``"".join(ranking)``
    reads the keys of the dict in C (a Python ``for`` loop over a million
    ids would cost a third of the whole evaluation).
    """
    for qid, docs in zip(qids, dicts):
        try:
            "".join(docs)
        except TypeError:
            _check_docids(list(docs), lambda i: qid, name)


def _joined_ids(dicts, qids, name):
    """Every document id of the dicts, ``"\\0"`` between two; or raise naming one that is no string.

    One string does two jobs: ``str.join`` refuses anything but strings
    (every id checked, in C), and tied documents read their ids from it
    (:func:`_utf8_ids`) instead of from the dicts again.  Each query is
    joined on its own first: faster than one join over a chain of a
    million ids.  (An empty query is left out: it would add a separator.)
    """
    try:
        return "\0".join(["\0".join(docs) for docs in dicts if docs])
    except TypeError:
        _check_all_docids(dicts, qids, name)  # names the culprit
        raise


def _check_scores(rankings, run_starts, run_sizes, where, dtype=np.float32):
    """Return all run scores, query after query, as ``dtype``; or raise naming the bad one.

    Scores are converted as ``float()`` converts them (a numeric string such
    as ``"0.5"`` reads as in a run file), then, for float32, rounded to
    32-bit floats as trec_eval 9.x stores them (``1e300`` becomes inf).
    NaN is refused, and so are booleans, which NumPy would read as 1.0 and
    0.0.  Only the queries holding a 0 or a 1 need their types looked at
    (:func:`_refuse_bool_scores`); when most queries hold one (integer
    scores) and every score is a float, one pass reads the scores and
    proves that none is a boolean instead (:func:`_read_float_scores`).
    """
    count = int(run_sizes.sum())
    if _most_queries_hold_0_or_1(rankings):
        array = _read_float_scores(rankings, count, dtype)
        if array is not None:
            _refuse_nan_scores(rankings, array, where)
            return array  # floats only: no boolean among them
    values = chain.from_iterable(map(dict.values, rankings))
    try:
        with np.errstate(over="ignore"):
            array = np.fromiter(values, dtype=dtype, count=count)
    except (TypeError, ValueError, OverflowError):
        # find the culprit, to name it (the slow loop only runs on error)
        for i, s in enumerate(chain.from_iterable(map(dict.values, rankings))):
            try:
                float(s)
            except (TypeError, ValueError):
                qid, docid = where(i)
                raise TypeError(
                    f"run scores must be numbers, got {s!r} for document "
                    f"{docid!r} of query {qid!r}"
                ) from None
            except OverflowError:
                qid, docid = where(i)
                raise ValueError(
                    f"run scores must fit in a float, got {describe_int(s)} for "
                    f"document {docid!r} of query {qid!r} (a float such as "
                    f"1e400 is read as infinity, as trec_eval reads it)"
                ) from None
        raise
    _refuse_nan_scores(rankings, array, where)
    _refuse_bool_scores(rankings, array, run_starts, run_sizes, where)
    return array


def _most_queries_hold_0_or_1(rankings, sample=10):
    """True if most of the first ``sample`` queries hold a float score equal to 0 or 1.

    Only a guess at which way of refusing booleans is faster (either one is
    exact): :func:`_refuse_bool_scores` looks at the type of every score of
    the queries holding a 0 or a 1, which costs more than the one-pass read
    of :func:`_read_float_scores` once most queries hold one.  A score that
    is no float makes the guess False (the general path reads it).
    """
    holding = 0
    for ranking in islice(rankings, sample):
        try:
            first = np.fromiter(map(float.conjugate, ranking.values()), dtype=np.float64,
                                count=len(ranking))
        except TypeError:
            return False
        holding += bool(np.any((first == 0) | (first == 1)))
    return 2 * holding > min(len(rankings), sample)


def _read_float_scores(rankings, count, dtype):
    """All run scores as ``dtype`` if every one is a float, else None.

    ``float.conjugate`` returns its float unchanged, and raises TypeError
    for anything that is not a float: an int, a string, and so ``True``
    and ``False`` (``bool`` is a subclass of ``int``, not of ``float``).
    Mapped over the scores inside ``np.fromiter``, it checks the type of
    every score in the same C loop that reads its value, instead of a
    second loop over a million scores for the types alone.  (A float
    subclass such as ``np.float64`` is read by its float value.)
    """
    floats = map(float.conjugate, chain.from_iterable(map(dict.values, rankings)))
    try:
        with np.errstate(over="ignore"):
            return np.fromiter(floats, dtype=dtype, count=count)
    except TypeError:  # a score that is no float: the general path reads it
        return None


def _refuse_nan_scores(rankings, array, where):
    """Raise if a score read into ``array`` is NaN, or was None (NumPy reads it as NaN)."""
    nan = np.flatnonzero(np.isnan(array))
    if len(nan):
        i = int(nan[0])
        qid, docid = where(i)
        value = next(islice(chain.from_iterable(map(dict.values, rankings)), i, None))
        if value is None:  # NumPy reads None as NaN; say what it really was
            raise TypeError(
                f"run scores must be numbers, got None for document {docid!r} "
                f"of query {qid!r}"
            )
        raise ValueError(
            f"run scores must not be NaN, got NaN for document {docid!r} "
            f"of query {qid!r} ({len(nan)} NaN scores in all)"
        )


def _refuse_bool_scores(rankings, array, run_starts, run_sizes, where):
    """Raise if a score is ``True`` or ``False`` (NumPy read them as 1.0 and 0.0).

    Only a score equal to 0 or 1 can be a boolean, so only the queries
    holding one have the types of their scores looked at (in C).
    """
    is_candidate = (array == 0) | (array == 1)
    # the queries holding a candidate: one "or" over each query's entries
    # (the entries of the next query that has any end each one's segment)
    filled = np.flatnonzero(run_sizes > 0)
    queries = filled[np.logical_or.reduceat(is_candidate, run_starts[filled])].tolist()
    if not queries:
        return
    values = chain.from_iterable(map(dict.values, map(rankings.__getitem__, queries)))
    if not any(issubclass(t, (bool, np.bool_)) for t in set(map(type, values))):
        return
    for q in queries:  # name the first one
        for j, score in enumerate(rankings[q].values()):
            if isinstance(score, (bool, np.bool_)):
                qid, docid = where(int(run_starts[q]) + j)
                raise TypeError(
                    f"run scores must be numbers, not booleans, got {score!r} for "
                    f"document {docid!r} of query {qid!r}"
                )


_INT64_RANGE = (-2**63, 2**63 - 1)
"""Grades must fit in a 64-bit integer (trec_eval reads them as a C ``long``)."""


def _grade_problem(g):
    """``(exception class, rule)`` saying why ``g`` is no qrels grade, or None."""
    if isinstance(g, (bool, np.bool_)) or not isinstance(g, numbers.Real):
        return TypeError, "qrels grades must be integers"
    if not isinstance(g, numbers.Integral):
        try:
            f = float(g)
        except OverflowError:
            f = math.inf
        if not math.isfinite(f) or f != math.floor(f):
            return ValueError, "qrels grades must be integers (trec_eval's relevance levels)"
        g = int(f)
    if not _INT64_RANGE[0] <= int(g) <= _INT64_RANGE[1]:
        return ValueError, "qrels grades must be integers from -2**63 to 2**63 - 1"
    return None


def _check_grades(grades, where):
    """Return the list of qrels grades as int64, or raise naming the bad one.

    The type of every grade is checked (``set(map(type, ...))`` loops in
    C): ``True`` is no grade, even among integers.  An integer-valued float
    (``2.0``) is read as the integer; NaN, 2.5 and grades beyond 64 bits are
    refused.  The loop that names the culprit only runs on error.
    """
    types = set(map(type, grades))
    if all(t is int for t in types):  # the usual case, as read_qrels gives them
        try:
            return np.array(grades, dtype=np.int64).reshape(-1)
        except OverflowError:  # an int beyond 64 bits
            pass
    elif all(issubclass(t, numbers.Real) and not issubclass(t, (bool, np.bool_))
             for t in types):
        try:
            as_float = np.array(grades, dtype=np.float64).reshape(-1)
        except OverflowError:  # an int too large even for a float
            as_float = np.array([math.nan])
        with np.errstate(invalid="ignore"):
            fine = (np.isfinite(as_float) & (as_float == np.round(as_float))
                    & (np.abs(as_float) <= 2.0**63))
        if fine.all():
            try:  # int() of each is exact, even beyond 2**53
                return np.fromiter(map(int, grades), dtype=np.int64, count=len(grades))
            except OverflowError:  # 2**63 itself
                pass
    for i, g in enumerate(grades):
        problem = _grade_problem(g)
        if problem:
            error, rule = problem
            qid, docid = where(i)
            raise error(f"{rule}, got {describe_int(g)} for document {docid!r} of query {qid!r}")
    raise ValueError("qrels grades must be integers from -2**63 to 2**63 - 1")


def _sort_each_query(values, starts, sizes):
    """Sort ``values[start : start + size]`` of every query, in place.

    NumPy cannot sort many segments of one array in one call, but it sorts
    every row of a matrix in one call, and fast: a short row fits in the
    cache and is sorted with SIMD instructions (10,000 rows of 100 in about
    1 ms, against about 50 ms for one sort of the million values).
    So queries are put in rows, those of similar sizes together (sizes
    2 to 2, 3 to 4, 5 to 8, ...: at most 2x padding), short rows padded with
    the largest value, which sorts to their end.  A run of fixed depth (100
    documents for every query) is one matrix already: no copy at all.
    """
    size_class = np.frexp(np.maximum(sizes, 1) - 1)[1]  # bit length of size - 1
    size_class[sizes < 2] = -1  # 0 or 1 document: already sorted
    for c in np.flatnonzero(np.bincount(size_class + 1)[1:]).tolist():
        queries = np.flatnonzero(size_class == c)
        lengths = sizes[queries]
        width = int(lengths.max())
        if (lengths == width).all() and queries[-1] - queries[0] + 1 == len(queries):
            # consecutive queries of one size (a run of fixed depth): their
            # values are already a matrix, sorted where they lie
            first = int(starts[queries[0]])
            values[first:first + len(queries) * width].reshape(-1, width).sort(axis=1)
            continue
        columns = np.arange(width)
        is_real = columns < lengths[:, None]  # row r holds lengths[r] documents
        positions = (starts[queries][:, None] + columns)[is_real]
        largest = np.inf if values.dtype.kind == "f" else np.iinfo(values.dtype).max
        rows = np.full((len(queries), width), largest, dtype=values.dtype)
        rows[is_real] = values[positions]
        rows.sort(axis=1)
        values[positions] = rows[is_real]


def _unique(values):
    """Sorted distinct values and, for each value, the index of its distinct value.

    What ``np.unique(values, return_inverse=True)`` returns; written out
    because ``np.unique`` imports ``numpy.ma`` on first use (20 ms).
    """
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    is_new = np.ones(len(values), dtype=bool)
    is_new[1:] = ordered[1:] != ordered[:-1]
    inverse = np.empty(len(values), dtype=np.int64)
    inverse[order] = np.cumsum(is_new) - 1
    return ordered[is_new], inverse


def _count_larger_ids(data, hit_query, first_equal, after_equal, hit_positions,
                      max_pairs=200_000):
    """For each tied hit, count the documents of its query with the same score and a larger id.

    A *tie group* is the set of documents of one query with one score key;
    in the sorted run keys of :func:`_rank_relevant` it fills the slots
    ``first_equal`` to ``after_equal`` of each of its hits.  The hits come
    in key order, so the hits of one group are next to each other.  Steps:
    learn which run entry fills each slot of those groups
    (:func:`_slot_entries`); cut their ids and the hits' ids out of the
    joined ids as 8-byte words (:func:`_member_ids`, :func:`_id_words`);
    compare each hit's id with the ids of its group as C's ``strcmp`` does
    (:func:`_larger_ids`), ``max_pairs`` comparisons at a time to bound
    the memory.
    """
    # 1. the groups, each known by its first slot: a new group starts
    # where the first slot changes
    is_first_hit = np.empty(len(first_equal), dtype=bool)
    is_first_hit[:1] = True
    np.not_equal(first_equal[1:], first_equal[:-1], out=is_first_hit[1:])
    group_of_hit = np.cumsum(is_first_hit) - 1
    group_first = first_equal[is_first_hit]
    group_size = after_equal[is_first_hit] - group_first
    group_query = hit_query[is_first_hit]
    queries = group_query[np.r_[True, group_query[1:] != group_query[:-1]]]

    # 2. the run entries that fill those slots, group after group: the
    # members of group g are members group_start[g] to group_start[g] + size - 1
    member_entry = _slot_entries(data, queries, group_first, group_size, group_query)
    group_start = np.cumsum(group_size) - group_size

    # 3. their ids and the hits' ids, as rows of 8-byte words
    raw, starts, lengths = _member_ids(data, queries, member_entry)
    hit_raw, hit_starts, hit_lengths = _utf8_ids(
        data.judged_ids, len(data.grades), lambda: chain.from_iterable(data.judgements),
        hit_positions)
    longest = max(int(lengths.max(initial=0)), int(hit_lengths.max(initial=0)))
    n_words = max(-(-longest // 8), 1)
    member_words = _id_words(raw, starts, lengths, n_words)
    hit_words = _id_words(hit_raw, hit_starts, hit_lengths, n_words)
    del raw, starts, lengths

    # 4. each hit against each member of its group (itself included: not
    # larger), hits [lo, hi) together, about max_pairs pairs at a time
    counts = np.zeros(len(first_equal), dtype=np.int64)
    pairs_of_hit = group_size[group_of_hit]
    bounds = np.searchsorted(np.cumsum(pairs_of_hit),
                             np.arange(max_pairs, pairs_of_hit.sum(), max_pairs)).tolist()
    for lo, hi in zip([0, *bounds], [*bounds, len(first_equal)]):
        if lo == hi:
            continue
        n = pairs_of_hit[lo:hi]
        member = _ranges(group_start[group_of_hit[lo:hi]], n)
        larger = _larger_ids(member_words, member, hit_words, np.repeat(np.arange(lo, hi), n))
        # the pairs of one hit are consecutive: add them up segment by segment
        counts[lo:hi] = np.add.reduceat(larger, np.cumsum(n) - n, dtype=np.int64)
    return counts


_CHUNK = 1 << 16
"""Entries filled at a time where a temporary array would otherwise be as long as the run."""


def _slot_entries(data, queries, group_first, group_size, group_query):
    """The run entry (index in the run arrays) in each slot of the groups, group after group.

    The ``queries`` holding the groups are sorted again, each score key
    carrying its entry's index in its low 32 bits (a run has fewer than
    2**32 documents): the sort puts every entry in the slot of its key in
    the sorted run keys (tied entries in entry order, which is all one
    here).  If those queries hold most of the run, the whole run is sorted
    in place of gathering them.
    """
    sizes = data.run_sizes[queries]
    n_run = len(data.score_keys)
    if 2 * int(sizes.sum()) > n_run:
        carried = data.score_keys.astype(np.uint64)
        np.left_shift(carried, np.uint64(32), out=carried)
        for lo in range(0, n_run, _CHUNK):  # (no second array of the run's size)
            carried[lo:lo + _CHUNK] |= np.arange(lo, min(lo + _CHUNK, n_run), dtype=np.uint64)
        _sort_each_query(carried, data.run_starts, data.run_sizes)
        slot = _ranges(group_first, group_size)
    else:
        entries = _ranges(data.run_starts[queries], sizes)
        carried = data.score_keys[entries].astype(np.uint64)
        np.left_shift(carried, np.uint64(32), out=carried)
        carried |= entries.astype(np.uint64)
        local_starts = np.cumsum(sizes) - sizes
        _sort_each_query(carried, local_starts, sizes)
        # slot s of query q is slot s - run_starts[q] of q among ``queries``
        shift = local_starts[np.searchsorted(queries, group_query)] - data.run_starts[group_query]
        slot = _ranges(group_first + shift, group_size)
    entries = carried[slot]
    entries &= np.uint64(0xFFFFFFFF)
    return entries.view(np.int64)  # (below 2**32: the same number)


def _member_ids(data, queries, entries):
    """The UTF-8 ids of run ``entries`` (of ``queries``): bytes, each one's first byte and length.

    They are cut out of the run's joined ids if ``queries`` hold most of
    the run (heavy ties), else out of those queries' ids joined again.
    """
    sizes = data.run_sizes[queries]
    n_run = len(data.score_keys)
    if 2 * int(sizes.sum()) > n_run:
        return _utf8_ids(data.run_ids, n_run, lambda: chain.from_iterable(data.rankings),
                         entries)
    dicts = [data.rankings[q] for q in queries.tolist()]  # each has 2 documents or more
    # an entry's place among the entries of ``queries`` (sorted)
    local = np.searchsorted(_ranges(data.run_starts[queries], sizes), entries)
    return _utf8_ids("\0".join(map("\0".join, dicts)), int(sizes.sum()),
                     lambda: chain.from_iterable(dicts), local)


def _utf8_ids(joined, count, ids, entries=None):
    """The UTF-8 of ``count`` ids joined by ``"\\0"``: bytes, first byte and length of ``entries``.

    The ``"\\0"`` bytes give where the ids end (UTF-8 writes no other
    zero byte).  If an id holds a ``"\\0"`` itself, there are too many of
    them: then every id is encoded on its own (``ids()`` gives them again).
    ``"surrogatepass"`` encodes a lone surrogate too, in code point order.
    ``entries`` (indices of ids, all of them if None) saves working out
    the places of ids that are not needed.
    """
    raw = joined.encode("utf-8", "surrogatepass")
    # id i is raw[bounds[i] + 1 : bounds[i + 1]]: the separators, found a
    # piece of the bytes at a time (no bool array as long as the bytes)
    bounds = np.empty(count + 1, dtype=np.int64)
    bounds[0], bounds[count] = -1, len(raw)
    found, octets = 0, np.frombuffer(raw, dtype=np.uint8)
    for lo in range(0, len(raw), _SCAN):
        separators = np.flatnonzero(octets[lo:lo + _SCAN] == 0)
        if found + len(separators) > count - 1:
            break
        np.add(separators, lo, out=bounds[1 + found:1 + found + len(separators)])
        found += len(separators)
    else:
        if found == count - 1:
            return _places(raw, bounds, entries)
    encoded = [d.encode("utf-8", "surrogatepass") for d in ids()]
    raw = b"\0".join(encoded)
    ends = np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=count) + 1) - 1
    bounds[1:count] = ends[:-1]
    bounds[count] = len(raw)
    return _places(raw, bounds, entries)


_SCAN = 1 << 20
"""Bytes looked at a time for the separators of joined ids."""


def _places(raw, bounds, entries):
    """``raw``, and the first byte and length of ids ``entries`` (all if None) from their bounds."""
    if entries is None:
        starts = bounds[:-1] + 1
        return raw, starts, bounds[1:] - starts
    starts = bounds[entries] + 1
    return raw, starts, bounds[1:][entries] - starts


def _larger_ids(a, a_columns, b, b_columns):
    """``a[:, i] > b[:, j]`` for each pair ``i, j`` of columns of two word tables (:func:`_id_words`).

    The first unequal row decides.  Most pairs of ids differ in their first
    8 bytes, so each further row is read for the pairs still equal only.
    """
    first_a, first_b = a[0, a_columns], b[0, b_columns]
    larger = first_a > first_b
    undecided = np.flatnonzero(first_a == first_b)
    for row in range(1, len(a)):
        if not len(undecided):
            break
        a_word, b_word = a[row, a_columns[undecided]], b[row, b_columns[undecided]]
        larger[undecided] = a_word > b_word
        undecided = undecided[a_word == b_word]
    return larger
