"""ERR and RBP (with its residual), the user-model metrics.

ERR is cross-checked against gdeval (the TREC Web track's script, run by
perl through ir_measures' gdeval provider), RBP against the cwl-eval package
(through ir_measures' cwl_eval provider, and its residual through cwl-eval
directly), on hundreds of random queries with grades -2..4 and unjudged
documents.  gdeval breaks score ties like trec_eval but in double precision,
which the tests reproduce; cwl-eval keeps tied documents in input order, so
its queries get distinct scores.
"""

import math
import shutil

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragmetrics_edu.retrieval.user_models import err_at_k, rank_biased_precision, rbp_residual

from tests._random_judged import graded_ranking, random_collection, score_order

ir_measures = pytest.importorskip("ir_measures")


def gdeval_order(scores):
    """gdeval.pl's runOrder: score descending (as doubles), ties by id descending."""
    return sorted(scores, key=lambda d: (scores[d], d), reverse=True)


# ------------------------------------------------------------ ERR

@pytest.fixture(scope="module")
def gdeval_collection():
    if shutil.which("perl") is None:
        pytest.skip("gdeval needs perl")
    return random_collection(seed=21, n_queries=300, numeric_qids=True)


@pytest.mark.parametrize("k", [1, 5, 10, 20])
def test_err_equals_gdeval(gdeval_collection, k):
    qrels, run = gdeval_collection
    got = {m.query_id: m.value
           for m in ir_measures.gdeval.iter_calc([ir_measures.ERR @ k], qrels, run)}
    assert len(got) >= 200  # gdeval leaves out queries without a positive grade
    for qid in run:
        rels = graded_ranking(qrels[qid], gdeval_order(run[qid]))
        ours = err_at_k(rels, k)
        if qid in got:
            # gdeval prints 5 decimals
            assert ours == pytest.approx(got[qid], abs=5.0001e-6), qid
        else:
            assert not any(g > 0 for g in qrels[qid].values())
            assert ours == 0.0


def test_err_by_hand():
    # R = (2**g - 1) / 16: grade 4 -> 15/16, 3 -> 7/16, 1 -> 1/16
    assert err_at_k([3]) == pytest.approx(7 / 16)
    want = 1 / 16 + (1 / 2) * (15 / 16) * (7 / 16)
    assert err_at_k([1, 3]) == pytest.approx(want)
    assert err_at_k([1, 3], k=1) == pytest.approx(1 / 16)
    # unjudged and negative grades gain nothing, but still take a rank
    assert err_at_k([None, -2, 3]) == pytest.approx((1 / 3) * 7 / 16)
    assert err_at_k([]) == 0.0
    assert err_at_k([0, 0]) == 0.0
    # max_grade 3: grade 3 -> 7/8
    assert err_at_k([3], max_grade=3) == pytest.approx(7 / 8)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.none(), st.integers(-2, 4)), max_size=25), st.integers(1, 30))
def test_err_properties(rels, k):
    value = err_at_k(rels, k)
    assert 0.0 <= value < 1.0
    # ERR@k grows with k, and sorting the grades best first never lowers it
    assert err_at_k(rels, k + 1) >= value
    known = [0 if g is None else max(g, 0) for g in rels]
    assert err_at_k(sorted(known, reverse=True), k) >= value - 1e-15
    # a larger max_grade lowers every stopping probability's ERR
    assert err_at_k(rels, k, max_grade=5) <= value + 1e-15


def test_err_bad_input():
    with pytest.raises(ValueError, match=r"ERR: max_grade=3 is below the largest grade .* 4"):
        err_at_k([1, 4], max_grade=3)
    with pytest.raises(ValueError, match="ERR: max_grade must be a positive number, got 0"):
        err_at_k([0], max_grade=0)
    with pytest.raises(ValueError, match="k must be a positive integer"):
        err_at_k([1], k=0)
    with pytest.raises(TypeError, match="rank 2"):
        err_at_k([1, "2"])


# ------------------------------------------------------------ RBP

@pytest.fixture(scope="module")
def cwl_collection():
    pytest.importorskip("cwl")
    return random_collection(seed=31, n_queries=300, ties=False)


@pytest.mark.parametrize("p", [0.5, 0.8, 0.95])
def test_rbp_equals_cwl_eval(cwl_collection, p):
    qrels, run = cwl_collection
    measure = ir_measures.RBP(p=p, rel=1)
    got = {m.query_id: m.value for m in ir_measures.cwl_eval.iter_calc([measure], qrels, run)}
    assert set(got) == set(run)
    for qid in run:
        rels = graded_ranking(qrels[qid], score_order(run[qid]))
        assert rank_biased_precision(rels, p) == pytest.approx(got[qid], abs=1e-12), qid


def _cwl_rbp(gains, p):
    """RBP and its residual from cwl-eval itself: gains with nan for unjudged."""
    from cwl.ruler.measures.cwl_rbp import RBPCWLMetric
    from cwl.ruler.ranking import Ranking

    ranking = Ranking("q", np.asarray(gains, dtype=float), np.full(len(gains), np.nan))
    metric = RBPCWLMetric(p)
    metric.residuals = True
    value = metric.measure(ranking)
    return value, metric.residual_expected_utility


@pytest.mark.parametrize("p", [0.5, 0.8, 0.95])
def test_rbp_residual_and_graded_equal_cwl_eval(cwl_collection, p):
    qrels, run = cwl_collection
    for qid in list(run)[:150]:
        rels = graded_ranking(qrels[qid], score_order(run[qid]))
        binary = [np.nan if g is None else float(g >= 1) for g in rels]
        _, residual = _cwl_rbp(binary, p)
        assert rbp_residual(rels, p) == pytest.approx(residual, abs=1e-12), qid
        graded = [np.nan if g is None else max(g, 0) / 4 for g in rels]
        value, _ = _cwl_rbp(graded, p)
        assert rank_biased_precision(rels, p, relevance="graded") == pytest.approx(
            value, abs=1e-12), qid


def test_rbp_by_hand():
    # p = 0.5: weights 1/2, 1/4, 1/8, ...
    assert rank_biased_precision([1, 1, 1], 0.5) == pytest.approx(7 / 8)
    assert rbp_residual([1, 1, 1], 0.5) == pytest.approx(1 / 8)
    assert rank_biased_precision([0, 3, None], 0.5) == pytest.approx(1 / 4)
    assert rbp_residual([0, 3, None], 0.5) == pytest.approx(1 / 8 + 1 / 8)
    # a negative grade is judged: no gain, not in the residual
    assert rank_biased_precision([-1, 1], 0.5) == pytest.approx(1 / 4)
    assert rbp_residual([-1, 1], 0.5) == pytest.approx(1 / 4)
    # binary: a grade of 0.5 is not relevant; graded: 0.5 / 4 of a relevant one
    assert rank_biased_precision([0.5], 0.5) == 0.0
    assert rank_biased_precision([0.5], 0.5, relevance="graded") == pytest.approx(0.5 * 0.5 / 4)
    assert rank_biased_precision([2, 1], 0.5, relevance="graded", max_grade=2) == pytest.approx(
        0.5 * 1 + 0.25 * 0.5)
    assert rank_biased_precision([], 0.8) == 0.0
    assert rbp_residual([], 0.8) == 1.0
    # the patient user (p = 0.95) weighs rank 10 far more than the impatient one
    late = [0] * 9 + [1]
    assert rank_biased_precision(late, 0.95) > 10 * rank_biased_precision(late, 0.5)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.none(), st.integers(-2, 4)), max_size=30),
       st.floats(0.01, 0.99))
def test_rbp_properties(rels, p):
    value = rank_biased_precision(rels, p)
    residual = rbp_residual(rels, p)
    assert 0.0 <= value <= 1.0
    assert 0.0 < residual <= 1.0
    assert value + residual <= 1.0 + 1e-12
    # judging every unjudged document relevant reaches the upper bound
    best = [4 if g is None else g for g in rels]
    assert rank_biased_precision(best, p) == pytest.approx(value + residual - p ** len(rels),
                                                           abs=1e-12)
    graded = rank_biased_precision(rels, p, relevance="graded")
    assert 0.0 <= graded <= 1.0


@pytest.mark.parametrize("p", [0, 1, -0.5, 1.5, float("nan")])
def test_rbp_p_outside_0_1(p):
    with pytest.raises(ValueError, match=r"RBP: the persistence p must be strictly between 0 and 1"):
        rank_biased_precision([1], p)
    with pytest.raises(ValueError, match=r"RBP residual: .*got"):
        rbp_residual([1], p)


def test_rbp_bad_input():
    with pytest.raises(ValueError, match=r"RBP: max_grade=3 is below the largest grade .* 4"):
        rank_biased_precision([4], 0.8, relevance="graded", max_grade=3)
    rank_biased_precision([4], 0.8, max_grade=3)  # binary: max_grade is not used
    with pytest.raises(ValueError, match="relevance must be one of .binary., .graded."):
        rank_biased_precision([1], 0.8, relevance="exponential")
    with pytest.raises(ValueError, match="finite"):
        rank_biased_precision([math.inf], 0.8)


def test_err_refuses_a_max_grade_whose_power_overflows():
    from ragmetrics_edu.retrieval.user_models import err_at_k

    with pytest.raises(ValueError, match="max_grade must be at most 1023"):
        err_at_k([1, 2], max_grade=2000)
    # 2**1023 is still a double: (2**1 - 1) / 2**1023 at rank 1
    assert err_at_k([1], max_grade=1023) == pytest.approx(2.0 ** -1023, rel=1e-12, abs=0)
