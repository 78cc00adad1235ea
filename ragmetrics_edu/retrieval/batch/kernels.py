"""Step 4 of :func:`~ragmetrics_edu.retrieval.batch.evaluate`: one kernel per metric family.

Read this file next to notebooks 01-03 (and 09 for bpref and judged@k).
Each kernel takes the hits of every query at once (the ranks of the
relevant retrieved documents, worked out by the steps before it; see
:class:`~ragmetrics_edu.retrieval.batch.evaluator._Hits`), the parsed
metric (its cut-off ``metric.k``, its parameters) and the conventions, and
returns one value per query as a NumPy array.  Most are two to four lines:
with :math:`r_1 < r_2 < \\dots` the ranks of a query's hits and :math:`R`
its number of relevant documents, P@k = #{i : r_i <= k} / k,
recall@k = #{i : r_i <= k} / R, RR = 1 / r_1, AP = (1 / R) sum_i i / r_i,
DCG@k = sum_{r_i <= k} gain_i / log2(r_i + 1), each summed per query with
``np.bincount``.  The readable one-query functions of
:mod:`ragmetrics_edu.retrieval.order_unaware`,
:mod:`~ragmetrics_edu.retrieval.order_aware`,
:mod:`~ragmetrics_edu.retrieval.graded`,
:mod:`~ragmetrics_edu.retrieval.user_models` and
:mod:`~ragmetrics_edu.retrieval.incomplete` define the same numbers; the
tests compare the two.
"""

import numpy as np

from ..._validation import shorten
from ..graded import dcg_overflow_error, gain_values
from ..order_aware import ELEVEN_POINTS


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
    gains = gain_values(grades[used].astype(np.float64), gain, where=lambda j: name(used[j]))
    terms[used] = gains / np.log2(ranks[used] + 1.0)
    return terms


def _check_finite(hits, sums, gain):
    """Raise if a query's sum of finite gains overflowed (graded.py refuses it too)."""
    bad = np.flatnonzero(np.isinf(sums))
    if len(bad):
        q = int(bad[0])
        raise dcg_overflow_error(hits.ideal_grade[hits.ideal_query == q], gain,
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

    Judged non-relevant means a grade from 0 to below the relevance level
    (``m_bpref.c``: ``0 <= rel < relevance_level``; a negative grade is
    skipped, as an unjudged document is); N counts them in the qrels,
    retrieved or not.
    """
    ranked, n_queries, level = hits.judged, hits.n_queries, hits.level
    data = hits.data
    is_nonrelevant = (ranked.grade >= 0) & (ranked.grade < level)
    n_nonrelevant = np.bincount(data.judged_query[(data.grades >= 0) & (data.grades < level)],
                                minlength=n_queries)
    # judged non-relevant documents above each entry (a cumulative count
    # restarted at every query)
    count = np.cumsum(is_nonrelevant)
    per_query = np.bincount(ranked.query, minlength=n_queries)
    before_query = np.concatenate(([0], count))[np.cumsum(per_query) - per_query]
    above = (count - is_nonrelevant) - before_query[ranked.query]
    relevant = ranked.grade >= level
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
    depth = hits.run_sizes if metric.k is None else np.minimum(hits.run_sizes, metric.k)
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


KERNELS = {
    "P": _precision, "recall": _recall, "f1": _f1, "hit_rate": _hit_rate,
    "mrr": _reciprocal_rank, "map": _average_precision, "dcg": _dcg, "ndcg": _ndcg,
    "rprec": _r_precision, "iprec": _interpolated_precision, "11pt": _eleven_point,
    "bpref": _bpref, "judged": _judged, "err": _err, "rbp": _rbp,
    "rbp_residual": _rbp_residual,
}
"""The kernel of each metric family of :data:`~ragmetrics_edu.retrieval.batch.registry.METRICS`."""
