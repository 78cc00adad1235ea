r"""Step 4 of :func:`~ragmetrics_edu.retrieval.batch.evaluate`: one kernel per metric family.

Read this file next to notebooks 01-03 (and 09 for bpref and judged@k).
Every kernel reads one thing, a :class:`Ranked`: the judged documents of
every query at their ranks (ranked by the step before it, as trec_eval
orders a run), and each query's judgements.  It takes the parsed metric
(its cut-off ``metric.k``, its parameters) and the conventions, and returns
one value per query as a NumPy array.  Most are two to four lines: with
:math:`r_1 < r_2 < \dots` the ranks of a query's relevant retrieved
documents (its *hits*) and :math:`R` its number of relevant documents,

* P@k = #{i : r_i <= k} / k,  recall@k = #{i : r_i <= k} / R,
* RR = 1 / r_1,  AP = (1 / R) sum_i i / r_i,
* DCG@k = sum_{r_i <= k} gain_i / log2(r_i + 1),

each summed per query with ``np.bincount``, which adds in rank order, the
order in which trec_eval sums.  Each family's readable one-query function
(:mod:`~ragmetrics_edu.retrieval.order_unaware`,
:mod:`~ragmetrics_edu.retrieval.order_aware`,
:mod:`~ragmetrics_edu.retrieval.graded`,
:mod:`~ragmetrics_edu.retrieval.user_models`,
:mod:`~ragmetrics_edu.retrieval.incomplete`) defines the same number; the
tests compare the two on every declared family.
"""

import dataclasses
from functools import cached_property

import numpy as np

from ..._validation import shorten
from ..graded import dcg_overflow_error, gain_values
from ..order_aware import ELEVEN_POINTS

__all__ = ["Ranked", "precision", "recall", "f1", "hit_rate", "reciprocal_rank",
           "average_precision", "dcg", "ndcg", "r_precision", "interpolated_precision",
           "eleven_point", "bpref", "judged", "err", "rbp", "rbp_residual"]


@dataclasses.dataclass(frozen=True)
class Ranked:
    """Some queries' rankings, kept to what the metrics read: what every kernel takes.

    ``query``, ``rank`` and ``grade`` describe the judged documents each
    query retrieved (the relevant ones only, grade 1 or more, unless a
    metric's declaration says it reads the others), sorted by query, then rank (1 is the best; ties
    broken as trec_eval breaks them; only the top ``depth`` if trec_eval's
    ``-M`` cut the ranking); ``n_ranked`` is the number of documents
    ranked per query, judged or not.  ``judged_query`` and ``judged_grade``
    are every judgement of each query, retrieved or not, each query's best
    grade first (the ideal ranking of nDCG).  A document is relevant from
    grade ``level`` up (trec_eval's ``-l``; 1 for the measures it does not
    apply to).  ``name_ranked(i)`` and ``name_judged(q, grade)`` say
    ``"document 'd3' of query 'q1'"`` in error messages.  ``hits`` and
    ``n_relevant`` are worked out once, for every kernel that reads them.
    """

    qids: list
    query: np.ndarray
    rank: np.ndarray
    grade: np.ndarray
    n_ranked: np.ndarray
    judged_query: np.ndarray
    judged_grade: np.ndarray
    name_ranked: object
    name_judged: object
    level: int = 1

    @property
    def n_queries(self):
        return len(self.qids)

    def per_query(self, query, values):
        """Sum ``values`` by query (in the order given: rank order here).

        Parameters
        ----------
        query : numpy.ndarray of int
            The query (its index in ``qids``) of each value.
        values : numpy.ndarray
            The values to add up (booleans count 1), in the order they are summed.
        """
        return np.bincount(query, weights=values, minlength=self.n_queries)

    @cached_property
    def n_relevant(self):
        """R of each query: its judged documents of grade ``level`` or more."""
        return np.bincount(self.judged_query[self.judged_grade >= self.level],
                           minlength=self.n_queries)

    @cached_property
    def hits(self):
        """The relevant ranked documents: their query, rank, grade and ``i`` = 1, 2, ... in their query."""
        keep = self.grade >= self.level
        query = self.query[keep]
        count = np.bincount(query, minlength=self.n_queries)
        i = np.arange(1, len(query) + 1) - (np.cumsum(count) - count)[query]
        return query, self.rank[keep], self.grade[keep], i


def _safe_divide(num, den):
    """num / den, and 0 where the denominator is 0 (no relevant document): trec_eval's rule."""
    out = np.zeros(len(den))
    np.divide(num, den, out=out, where=den > 0)
    return out


def _in_top(ranks, k):
    """Which ranks are within the cut-off (all of them if k is None)."""
    return np.ones(len(ranks), bool) if k is None else ranks <= k


def _found(ranked, k):
    """The number of relevant documents in the top k of each query."""
    query, rank, _, _ = ranked.hits
    return ranked.per_query(query, _in_top(rank, k))


def precision(ranked, metric, conv):
    """P@k of every query: the relevant documents in the top k, over k.

    Parameters
    ----------
    ranked : Ranked
        The judged documents every query retrieved, at their ranks, and each
        query's judgements.
    metric : Metric
        The parsed metric; ``metric.k`` is its cut-off.
    conv : Conventions
        The conventions; not read here (every kernel takes them).
    """
    return _found(ranked, metric.k) / metric.k


def recall(ranked, metric, conv):
    """Recall@k of every query: the relevant documents in the top k, over R (0 if R is 0).

    Parameters
    ----------
    ranked : Ranked
        The judged documents every query retrieved, at their ranks, and each
        query's judgements.
    metric : Metric
        The parsed metric; ``metric.k`` is its cut-off.
    conv : Conventions
        The conventions; not read here (every kernel takes them).
    """
    return _safe_divide(_found(ranked, metric.k), ranked.n_relevant)


def f1(ranked, metric, conv):
    """F1@k of every query: the harmonic mean of P@k and recall@k (0 if both are 0).

    Parameters
    ----------
    ranked : Ranked
        The judged documents every query retrieved, at their ranks, and each
        query's judgements.
    metric : Metric
        The parsed metric; ``metric.k`` is its cut-off.
    conv : Conventions
        The conventions; not read here (every kernel takes them).
    """
    p, r = precision(ranked, metric, conv), recall(ranked, metric, conv)
    return _safe_divide(2 * p * r, p + r)


def hit_rate(ranked, metric, conv):
    """Hit rate@k of every query: 1 if a relevant document is in the top k, else 0.

    Parameters
    ----------
    ranked : Ranked
        The judged documents every query retrieved, at their ranks, and each
        query's judgements.
    metric : Metric
        The parsed metric; ``metric.k`` is its cut-off.
    conv : Conventions
        The conventions; not read here (every kernel takes them).
    """
    return (_found(ranked, metric.k) > 0).astype(np.float64)


def reciprocal_rank(ranked, metric, conv):
    """RR@k of every query: 1 / the rank of its first relevant document (0 if none in the top k).

    Parameters
    ----------
    ranked : Ranked
        The judged documents every query retrieved, at their ranks, and each
        query's judgements.
    metric : Metric
        The parsed metric; its cut-off ``metric.k`` (None: the whole ranking).
    conv : Conventions
        The conventions; not read here (every kernel takes them).
    """
    query, rank, _, i = ranked.hits
    first = (i == 1) & _in_top(rank, metric.k)  # each query's first hit, if in the top k
    return ranked.per_query(query[first], 1.0 / rank[first])


def average_precision(ranked, metric, conv):
    """AP@k of every query: the precision at each hit in the top k, summed, over R.

    Parameters
    ----------
    ranked : Ranked
        The judged documents every query retrieved, at their ranks, and each
        query's judgements.
    metric : Metric
        The parsed metric; its cut-off ``metric.k`` (None: the whole ranking).
    conv : Conventions
        The conventions; not read here (every kernel takes them).
    """
    query, rank, _, i = ranked.hits
    precisions = (i / rank) * _in_top(rank, metric.k)
    return _safe_divide(ranked.per_query(query, precisions), ranked.n_relevant)


def _dcg_terms(grades, ranks, used, gain, name):
    """gain / log2(rank + 1) of the entries used (0 for the others).

    The gain comes from graded.py's function: it refuses a grade whose
    2**grade overflows a float (1024 and more), naming ``name(i)`` of the
    entry.
    """
    terms = np.zeros(len(ranks))
    used = np.flatnonzero(used)
    gains = gain_values(grades[used].astype(np.float64), gain, where=lambda j: name(used[j]))
    terms[used] = gains / np.log2(ranks[used] + 1.0)
    return terms


def _check_finite(ranked, sums, gain):
    """Raise if a query's sum of finite gains overflowed (graded.py refuses it too)."""
    bad = np.flatnonzero(np.isinf(sums))
    if len(bad):
        q = int(bad[0])
        grades = ranked.judged_grade[ranked.judged_query == q]
        raise dcg_overflow_error(grades[grades >= ranked.level], gain,
                                 where=f"query {ranked.qids[q]!r}")
    return sums


def dcg(ranked, metric, conv):
    """DCG@k of every query: the gain of each relevant document in the top k / log2(rank + 1).

    Parameters
    ----------
    ranked : Ranked
        The judged documents every query retrieved, at their ranks, and each
        query's judgements.
    metric : Metric
        The parsed metric; ``metric.k`` is its cut-off.
    conv : Conventions
        The conventions; ``conv.gain`` is the gain of a grade g (``"linear"``: g;
        ``"exponential"``: 2**g - 1).
    """
    gained = np.flatnonzero(ranked.grade >= ranked.level)  # (level 1: a grade above 0)
    terms = _dcg_terms(ranked.grade[gained], ranked.rank[gained],
                       _in_top(ranked.rank[gained], metric.k), conv.gain,
                       lambda j: ranked.name_ranked(gained[j]))
    return _check_finite(ranked, ranked.per_query(ranked.query[gained], terms), conv.gain)


def ndcg(ranked, metric, conv):
    """nDCG@k of every query: DCG@k over the DCG@k of its ideal ranking (0 if that is 0).

    Parameters
    ----------
    ranked : Ranked
        The judged documents every query retrieved, at their ranks, and each
        query's judgements.
    metric : Metric
        The parsed metric; its cut-off ``metric.k`` (None: the whole ranking).
    conv : Conventions
        The conventions; ``conv.gain`` is the gain of a grade g (``"linear"``: g;
        ``"exponential"``: 2**g - 1).
    """
    ideal = np.flatnonzero(ranked.judged_grade >= ranked.level)  # each query's best first
    query, grade = ranked.judged_query[ideal], ranked.judged_grade[ideal]
    count = np.bincount(query, minlength=ranked.n_queries)
    rank = np.arange(1, len(query) + 1) - (np.cumsum(count) - count)[query]
    terms = _dcg_terms(grade, rank, _in_top(rank, metric.k), conv.gain,
                       lambda j: ranked.name_judged(query[j], grade[j]))
    idcg = _check_finite(ranked, ranked.per_query(query, terms), conv.gain)
    return _safe_divide(dcg(ranked, metric, conv), idcg)


# --- the measures of the precision-recall curve and of incomplete judgements

def r_precision(ranked, metric, conv):
    """Relevant documents in the top R, over R (trec_eval's Rprec).

    Parameters
    ----------
    ranked : Ranked
        The judged documents every query retrieved, at their ranks, and each
        query's judgements.
    metric : Metric
        The parsed metric; not read (R-precision takes no cut-off).
    conv : Conventions
        The conventions; not read here (every kernel takes them).
    """
    query, rank, _, _ = ranked.hits
    n_relevant = ranked.n_relevant
    return _safe_divide(ranked.per_query(query, rank <= n_relevant[query]), n_relevant)


def _interpolated_precision_at(ranked, levels, convention):
    """Interpolated precision at recall levels, for every query: an array (level, query).

    A level becomes a number c of relevant documents (trec_eval 9:
    ``int(level * R + 0.9)``; trec_eval 10: ``level * R`` rounded half up);
    the value is the best precision ``i / r_i`` of the i-th hit for i >= c
    (precision only rises at a hit), 0 if fewer than c were found or R = 0.
    Every level of every query is done in one ``np.maximum.reduceat``.
    """
    query, rank, _, i = ranked.hits
    n_relevant = ranked.n_relevant
    x = np.asarray(levels, dtype=np.float64)[:, None] * n_relevant
    if convention == "trec_eval_10":
        needed = np.floor(x)
        needed += (x - needed) >= 0.5
    else:
        needed = np.floor(x + 0.9)
    needed = np.maximum(needed.astype(np.int64), 1)
    n_hits = np.bincount(query, minlength=ranked.n_queries)
    reached = (n_hits >= needed) & (n_relevant > 0)
    out = np.zeros(reached.shape)
    if not reached.any():
        return out
    # the maximum of precision[start + needed - 1 : start + n_hits] of each
    # (level, query) reached: np.maximum.reduceat over (from, to) pairs,
    # whose every other result (to, next from) is dropped
    starts = np.cumsum(n_hits) - n_hits
    precision_at_hit = np.append(i / rank, 0.0)  # one extra: "to" may be the end
    level, q = np.nonzero(reached)
    bounds = np.empty(2 * len(q), dtype=np.int64)
    bounds[0::2] = starts[q] + needed[level, q] - 1
    bounds[1::2] = starts[q] + n_hits[q]
    out[level, q] = np.maximum.reduceat(precision_at_hit, bounds)[0::2]
    return out


def pr_convention(conv):
    """trec_eval 10.0 (scores as doubles) rounds a recall level to relevant documents differently."""
    return "trec_eval_10" if conv.scores == "float64" else "trec_eval_9"


def interpolated_precision(ranked, metric, conv):
    """Interpolated precision at recall level ``metric.k`` (trec_eval's iprec_at_recall).

    Parameters
    ----------
    ranked : Ranked
        The judged documents every query retrieved, at their ranks, and each
        query's judgements.
    metric : Metric
        The parsed metric; ``metric.k`` is the recall level, in [0, 1].
    conv : Conventions
        The conventions; ``conv.scores`` picks the rounding of a recall level to a
        number of relevant documents (``"float64"``: trec_eval 10's, else trec_eval 9's).
    """
    return _interpolated_precision_at(ranked, [metric.k], pr_convention(conv))[0]


def eleven_point(ranked, metric, conv):
    """The mean interpolated precision at the recall levels 0, 0.1, ..., 1 of every query.

    Parameters
    ----------
    ranked : Ranked
        The judged documents every query retrieved, at their ranks, and each
        query's judgements.
    metric : Metric
        The parsed metric; not read (the levels are 0, 0.1, ..., 1).
    conv : Conventions
        The conventions; ``conv.scores`` picks the rounding of a recall level to a
        number of relevant documents (``"float64"``: trec_eval 10's, else trec_eval 9's).
    """
    total = np.zeros(ranked.n_queries)
    for at_level in _interpolated_precision_at(ranked, ELEVEN_POINTS, pr_convention(conv)):
        total += at_level  # level after level, in trec_eval's order of summing
    return total / len(ELEVEN_POINTS)


def bpref(ranked, metric, conv):
    """trec_eval's bpref: each relevant hit loses min(n, R) / min(N, R) for n judged non-relevant above it.

    Judged non-relevant means a grade from 0 to below the relevance level
    (``m_bpref.c``: ``0 <= rel < relevance_level``; a negative grade is
    skipped, as an unjudged document is); N counts them in the qrels,
    retrieved or not.

    Parameters
    ----------
    ranked : Ranked
        The judged documents every query retrieved, at their ranks, and each
        query's judgements.
    metric : Metric
        The parsed metric; not read (bpref takes no cut-off).
    conv : Conventions
        The conventions; not read here (every kernel takes them).
    """
    level, n_queries = ranked.level, ranked.n_queries
    is_nonrelevant = (ranked.grade >= 0) & (ranked.grade < level)
    judged = ranked.judged_grade
    n_nonrelevant = np.bincount(ranked.judged_query[(judged >= 0) & (judged < level)],
                                minlength=n_queries)
    # judged non-relevant documents above each entry (a cumulative count
    # restarted at every query)
    count = np.cumsum(is_nonrelevant)
    per_query = np.bincount(ranked.query, minlength=n_queries)
    before_query = np.concatenate(([0], count))[np.cumsum(per_query) - per_query]
    above = (count - is_nonrelevant) - before_query[ranked.query]
    relevant = ranked.grade >= level
    query, above = ranked.query[relevant], above[relevant]
    n_relevant = ranked.n_relevant
    r = n_relevant[query]
    denominator = np.minimum(n_nonrelevant[query], r)
    terms = np.ones(len(query))
    some = above > 0  # then N >= 1 and the denominator is at least 1
    terms[some] = 1.0 - np.minimum(above[some], r[some]) / denominator[some]
    return _safe_divide(ranked.per_query(query, terms), n_relevant)


def judged(ranked, metric, conv):
    """Judged documents in the top k over the documents in the top k (ir_measures' Judged@k).

    Parameters
    ----------
    ranked : Ranked
        The judged documents every query retrieved, at their ranks, and each
        query's judgements.
    metric : Metric
        The parsed metric; its cut-off ``metric.k`` (None: the whole ranking).
    conv : Conventions
        The conventions; not read here (every kernel takes them).
    """
    found = ranked.per_query(ranked.query, _in_top(ranked.rank, metric.k))
    depth = ranked.n_ranked if metric.k is None else np.minimum(ranked.n_ranked, metric.k)
    return _safe_divide(found, depth)


def _check_max_grade(ranked, metric):
    """Raise unless the metric's max_grade is at least every grade of the qrels."""
    max_grade, grades = metric["max_grade"], ranked.judged_grade
    if len(grades) and grades.max() > max_grade:
        worst = int(np.argmax(grades))
        grade = int(grades[worst])
        raise ValueError(
            f"{metric.base}: max_grade={max_grade:g} is below the largest grade in the "
            f"qrels, {grade} ({ranked.name_judged(ranked.judged_query[worst], grade)}), in "
            f"metric {shorten(metric.name)}; write max_grade={grade} or more"
        )
    return max_grade


def err(ranked, metric, conv):
    r"""gdeval's ERR@k: :math:`\sum_i \frac{R_i}{r_i} \prod_{j < i} (1 - R_j)`, R = (2^g - 1) / 2^max.

    Only relevant documents have R > 0, so the product runs over the hits
    above; it is built hit by hit (the i-th hits of every query at once),
    multiplying in the same order as the readable function.

    Parameters
    ----------
    ranked : Ranked
        The judged documents every query retrieved, at their ranks, and each
        query's judgements.
    metric : Metric
        The parsed metric; its cut-off ``metric.k`` (None: the whole ranking)
        and ``metric["max_grade"]``, the largest grade the qrels may hold.
    conv : Conventions
        The conventions; not read here (every kernel takes them).
    """
    max_grade = _check_max_grade(ranked, metric)
    query, rank, grade, i = ranked.hits
    stop = (np.power(2.0, grade.astype(np.float64)) - 1.0) / 2.0 ** max_grade
    reach = np.ones(len(stop))  # prod_{j < i} (1 - R_j)
    for n in range(2, int(i.max(initial=0)) + 1):
        now = np.flatnonzero(i == n)
        reach[now] = reach[now - 1] * (1.0 - stop[now - 1])
    return ranked.per_query(query, np.where(_in_top(rank, metric.k), reach * stop / rank, 0.0))


def _rbp_weights(ranks, p):
    """(1 - p) p**(rank - 1): the weight of a rank for a user of persistence p."""
    return (1.0 - p) * np.power(p, ranks - 1.0)


def rbp(ranked, metric, conv):
    """cwl-eval's RBP: binary gain (relevant from the level up), or grade / max_grade.

    Parameters
    ----------
    ranked : Ranked
        The judged documents every query retrieved, at their ranks, and each
        query's judgements.
    metric : Metric
        The parsed metric (RBP takes no cut-off): ``metric["p"]`` is the persistence,
        ``metric["relevance"]`` ``"binary"`` or ``"graded"``, and a graded RBP divides
        each grade by ``metric["max_grade"]``.
    conv : Conventions
        The conventions; not read here (every kernel takes them).
    """
    query, rank, grade, _ = ranked.hits
    weights = _rbp_weights(rank, metric["p"])
    if metric["relevance"] == "graded":
        weights = weights * (grade / _check_max_grade(ranked, metric))
    return ranked.per_query(query, weights)


def rbp_residual(ranked, metric, conv):
    """1 - the weight of the judged ranks: the unjudged ranks and those beyond the ranking.

    Parameters
    ----------
    ranked : Ranked
        The judged documents every query retrieved, at their ranks, and each
        query's judgements.
    metric : Metric
        The parsed metric (no cut-off): ``metric["p"]`` is the persistence.
    conv : Conventions
        The conventions; not read here (every kernel takes them).
    """
    return 1.0 - ranked.per_query(ranked.query, _rbp_weights(ranked.rank, metric["p"]))
