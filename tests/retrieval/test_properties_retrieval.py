"""Properties every ranking must satisfy, on random rankings (hypothesis)."""

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from ragmetrics_edu.retrieval.graded import cumulative_gain, dcg_at_k, idcg_at_k, ndcg_at_k
from ragmetrics_edu.retrieval.order_aware import (
    average_precision,
    mean_average_precision,
    mean_reciprocal_rank,
    reciprocal_rank,
)
from ragmetrics_edu.retrieval.order_unaware import f1_at_k, hit_rate_at_k, precision_at_k, recall_at_k

SETTINGS = settings(max_examples=150, deadline=None)

grades = st.lists(st.integers(min_value=0, max_value=4), max_size=12)
real_grades = st.lists(
    st.floats(min_value=0, max_value=5, allow_nan=False, allow_infinity=False), max_size=12
)
ks = st.integers(min_value=1, max_value=15)
extra_relevant = st.integers(min_value=0, max_value=6)  # relevant documents not retrieved
gains = st.sampled_from(["linear", "exponential"])


def n_rel(rels, extra):
    return sum(1 for g in rels if g > 0) + extra


def in_unit(x):
    return isinstance(x, float) and 0.0 <= x <= 1.0 + 1e-12


@SETTINGS
@given(grades, ks, extra_relevant)
def test_binary_metrics_in_unit_interval(rels, k, extra):
    n = n_rel(rels, extra)
    for value in (
        precision_at_k(rels, k),
        precision_at_k(rels, k, denominator="retrieved"),
        recall_at_k(rels, k, n_relevant=n),
        f1_at_k(rels, k, n_relevant=n),
        hit_rate_at_k(rels, k),
        reciprocal_rank(rels, k),
        average_precision(rels, n, k=k),
        average_precision(rels, n, k=k, denominator="retrieved_relevant"),
        average_precision(rels, n, k=k, denominator="min_k_relevant"),
    ):
        assert in_unit(value)


@SETTINGS
@given(st.lists(st.tuples(grades, extra_relevant), min_size=1, max_size=6),
       st.one_of(st.none(), ks))
def test_mean_metrics_in_unit_interval(queries, k):
    list_of_rels = [rels for rels, _ in queries]
    n_relevants = [n_rel(rels, extra) for rels, extra in queries]
    for denominator in ("all_relevant", "retrieved_relevant", "min_k_relevant"):
        assert in_unit(mean_average_precision(list_of_rels, n_relevants, k=k,
                                              denominator=denominator))
    assert in_unit(mean_reciprocal_rank(list_of_rels, k))


@SETTINGS
@given(real_grades, ks, gains)
def test_ndcg_in_unit_interval_and_dcg_bounded_by_idcg(rels, k, gain):
    assert in_unit(ndcg_at_k(rels, k, gain=gain))
    assert dcg_at_k(rels, k, gain=gain) <= idcg_at_k(rels, k, gain=gain) * (1 + 1e-12) + 1e-12
    assert dcg_at_k(rels, k, gain=gain) >= 0.0
    if gain == "linear":  # each discount is >= 1, so DCG <= CG
        assert dcg_at_k(rels, k) <= cumulative_gain(rels, k) + 1e-12


@SETTINGS
@given(grades, gains, st.one_of(st.none(), ks))
def test_ndcg_is_one_at_the_ideal_order(rels, gain, k):
    ideal = sorted(rels, reverse=True)
    expected = 1.0 if any(g > 0 for g in rels[: len(rels)]) else 0.0
    if k is not None and not any(g > 0 for g in ideal[:k]):
        expected = 0.0
    assert math.isclose(ndcg_at_k(ideal, k, gain=gain), expected, abs_tol=1e-12)


@SETTINGS
@given(st.lists(st.integers(-2, 4), max_size=12), st.integers(0, 12), gains,
       st.one_of(st.none(), ks))
def test_ndcg_is_one_at_the_ideal_order_of_the_judged_grades(judged, extra, gain, k):
    # retrieved: the best judged grades, in order, down to rank k at least
    # (a negative judged grade is junk: retrieved, it is a 0)
    best = sorted(judged, reverse=True)
    depth = len(best) if k is None else min(len(best), k + extra)
    rels = [max(g, 0) for g in best[:depth]]
    top = best if k is None else best[:k]
    expected = 1.0 if any(g > 0 for g in top) else 0.0
    assert math.isclose(ndcg_at_k(rels, k, gain=gain, ideal=judged), expected, abs_tol=1e-12)


@SETTINGS
@given(grades, st.lists(st.integers(-2, 4), max_size=6), ks, gains)
def test_judged_ideal_never_raises_ndcg(rels, unretrieved, k, gain):
    # adding judged, unretrieved documents can only raise IDCG
    judged = list(rels) + unretrieved
    with_judged = ndcg_at_k(rels, k, gain=gain, ideal=judged)
    assert in_unit(with_judged)
    assert with_judged <= ndcg_at_k(rels, k, gain=gain) + 1e-12
    assert idcg_at_k(rels, k, gain=gain, ideal=judged) >= idcg_at_k(rels, k, gain=gain) - 1e-12


@SETTINGS
@given(grades, extra_relevant)
def test_recall_never_decreases_in_k(rels, extra):
    n = n_rel(rels, extra)
    values = [recall_at_k(rels, k, n_relevant=n) for k in range(1, len(rels) + 3)]
    assert all(a <= b for a, b in zip(values, values[1:]))
    assert values[-1] == (0.0 if n == 0 else sum(g > 0 for g in rels) / n)


@SETTINGS
@given(grades, gains)
def test_dcg_and_cg_never_decrease_in_k(rels, gain):
    dcgs = [dcg_at_k(rels, k, gain=gain) for k in range(1, len(rels) + 3)]
    cgs = [cumulative_gain(rels, k) for k in range(1, len(rels) + 3)]
    assert all(a <= b for a, b in zip(dcgs, dcgs[1:]))
    assert all(a <= b for a, b in zip(cgs, cgs[1:]))


@SETTINGS
@given(grades, ks, extra_relevant, st.randoms(use_true_random=False))
def test_set_metrics_ignore_order_inside_top_k(rels, k, extra, rnd):
    n = n_rel(rels, extra)
    top, rest = list(rels[:k]), list(rels[k:])
    rnd.shuffle(top)
    shuffled = top + rest
    for f in (
        lambda r: precision_at_k(r, k),
        lambda r: precision_at_k(r, k, denominator="retrieved"),
        lambda r: recall_at_k(r, k, n_relevant=n),
        lambda r: f1_at_k(r, k, n_relevant=n),
        lambda r: hit_rate_at_k(r, k),
        lambda r: cumulative_gain(r, k),
    ):
        assert math.isclose(f(rels), f(shuffled), abs_tol=1e-12)


@SETTINGS
@given(grades, ks, extra_relevant)
def test_ap_bounds(rels, k, extra):
    n = n_rel(rels, extra)
    ap = average_precision(rels, n, k=k)
    # AP <= recall@k (each summed precision is <= 1) and AP <= 1
    assert ap <= recall_at_k(rels, k, n_relevant=n) + 1e-12
    # the all-relevant denominator is never larger than the other two's results
    assert ap <= average_precision(rels, n, k=k, denominator="retrieved_relevant") + 1e-12
    assert ap <= average_precision(rels, n, k=k, denominator="min_k_relevant") + 1e-12 or n == 0
    # the first relevant document in the top k gives AP >= 1/(rank * n)
    rr = reciprocal_rank(rels, k)
    if rr > 0:
        assert ap >= rr / n - 1e-12


@SETTINGS
@given(grades, ks)
def test_perfect_ranking_scores_one(rels, k):
    ideal = sorted(rels, reverse=True)
    n = n_rel(rels, 0)
    if n == 0:
        return
    assert average_precision(ideal, n) == 1.0
    assert reciprocal_rank(ideal) == 1.0
    assert hit_rate_at_k(ideal, k) == 1.0
    assert math.isclose(recall_at_k(ideal, max(k, n), n_relevant=n), 1.0)


@SETTINGS
@given(grades, ks, extra_relevant)
def test_f1_between_and_harmonic(rels, k, extra):
    n = n_rel(rels, extra)
    p, r, f = precision_at_k(rels, k), recall_at_k(rels, k, n_relevant=n), f1_at_k(rels, k, n_relevant=n)
    assert min(p, r) - 1e-12 <= f <= max(p, r) + 1e-12
    if p + r > 0:
        assert math.isclose(f, 2 * p * r / (p + r), rel_tol=1e-12)


@SETTINGS
@given(grades, ks)
def test_hit_rate_is_rr_positive(rels, k):
    assert hit_rate_at_k(rels, k) == (1.0 if reciprocal_rank(rels, k) > 0 else 0.0)


@SETTINGS
@given(grades, ks)
def test_binary_metrics_only_see_relevant_or_not(rels, k):
    binary = [1 if g > 0 else 0 for g in rels]
    n = n_rel(rels, 1)
    assert precision_at_k(rels, k) == precision_at_k(binary, k)
    assert average_precision(rels, n, k=k) == average_precision(binary, n, k=k)
    assert reciprocal_rank(rels, k) == reciprocal_rank(binary, k)


@SETTINGS
@given(st.lists(st.integers(0, 1), max_size=10))
def test_exponential_equals_linear_for_binary_grades(rels):
    # 2**1 - 1 = 1 and 2**0 - 1 = 0
    assert math.isclose(dcg_at_k(rels, None, gain="exponential"), dcg_at_k(rels, None), abs_tol=1e-12)
