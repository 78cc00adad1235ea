"""bpref and judged@k, for queries whose rankings hold unjudged documents.

bpref is cross-checked against pytrec_eval (trec_eval's C code) and
trec_eval's own expected output; judged@k against ir_measures' ``judged``
provider; both on hundreds of random queries with tied scores, grades
-2..4, unjudged documents and queries without a relevant document.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragmetrics_edu.retrieval.incomplete import bpref, judged_at_k

from tests._random_judged import graded_ranking, random_collection, trec_eval_order

pytrec_eval = pytest.importorskip("pytrec_eval")


def _bpref_inputs(judgements, ranked_ids):
    rels = graded_ranking(judgements, ranked_ids)
    n_rel = sum(g >= 1 for g in judgements.values())
    n_nonrel = sum(0 <= g < 1 for g in judgements.values())
    return rels, n_rel, n_nonrel


def test_bpref_equals_trec_eval():
    qrels, run = random_collection(seed=7, n_queries=400)
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"bpref"}).evaluate(run)
    unjudged = 0
    for qid in run:
        rels, n_rel, n_nonrel = _bpref_inputs(qrels[qid], trec_eval_order(run[qid]))
        unjudged += any(g is None for g in rels)
        assert bpref(rels, n_rel, n_nonrelevant=n_nonrel) == pytest.approx(
            expected[qid]["bpref"], abs=1e-12), qid
    assert unjudged >= 100


def test_bpref_many_relevant():
    # R > N and N > R, long rankings: both branches of min(N, R)
    qrels, run = random_collection(seed=8, n_queries=150, min_retrieved=20,
                                   max_retrieved=45, min_grade=-1)
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"bpref"}).evaluate(run)
    for qid in run:
        rels, n_rel, n_nonrel = _bpref_inputs(qrels[qid], trec_eval_order(run[qid]))
        assert bpref(rels, n_rel, n_nonrelevant=n_nonrel) == pytest.approx(
            expected[qid]["bpref"], abs=1e-12), qid


# trec_eval's own expected values (https://github.com/usnistgov/trec_eval,
# test/out.test.aq and test/out.test, identical in versions 9.0.4 and 10.0):
# bpref of `trec_eval -q test/qrels.test test/results.test`, 4 decimals.
TREC_EVAL_BPREF = {"301": 0.1230, "302": 0.4712, "303": 0.0000, "all": 0.1981}


def test_bpref_trec_eval_test_collection():
    from .test_pr_curve import read_trec_eval_test_collection

    qrels, run = read_trec_eval_test_collection()
    got = {}
    for qid in ("301", "302", "303"):
        got[qid] = bpref(*_bpref_inputs(qrels[qid], trec_eval_order(run[qid])))
        assert round(got[qid], 4) == TREC_EVAL_BPREF[qid], qid
    assert round(math.fsum(got.values()) / 3, 4) == TREC_EVAL_BPREF["all"]


def test_bpref_by_hand():
    # R = 2, N = 3: relevant at 1 (nothing above), relevant after one non-relevant
    assert bpref([1, None, 0, 1], 2, n_nonrelevant=3) == pytest.approx((1 + (1 - 1 / 2)) / 2)
    # a relevant document not retrieved adds 0
    assert bpref([1], 3, n_nonrelevant=5) == pytest.approx(1 / 3)
    # N = 0: no preference can be broken
    assert bpref([1, 2], 2, n_nonrelevant=0) == 1.0
    # n_r capped at R: 3 non-relevant above, R = 1, N = 5: 1 - min(3, 1) / min(5, 1) = 0
    assert bpref([0, 0, 0, 1], 1, n_nonrelevant=5) == 0.0
    # min(N, R) with N < R: 1 non-relevant above each of 2 relevant, R = 3, N = 1
    assert bpref([0, 1, 1], 3, n_nonrelevant=1) == 0.0
    # a negative grade is unjudged for trec_eval: skipped, and not in N
    assert bpref([-1, 1], 1, n_nonrelevant=0) == 1.0
    assert bpref([1, -2, 0, 1], 2, n_nonrelevant=1) == bpref([1, 0, 1], 2, n_nonrelevant=1) == 0.5
    # grade 0.5 is judged non-relevant (relevance level 1)
    assert bpref([0.5, 1], 1, n_nonrelevant=1) == 0.0
    assert bpref([], 2, n_nonrelevant=2) == 0.0
    assert bpref([0, 0], 0, n_nonrelevant=2) == 0.0  # R = 0
    assert bpref(np.array([1.0, np.nan, 0.0, 1.0]), 2, n_nonrelevant=3) == bpref([1, None, 0, 1], 2, n_nonrelevant=3)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(st.none(), st.integers(-2, 3)), max_size=25),
       st.integers(0, 5), st.integers(0, 5))
def test_bpref_properties(rels, extra_rel, extra_nonrel):
    n_rel = sum(g is not None and g >= 1 for g in rels) + extra_rel
    n_nonrel = sum(g is not None and 0 <= g < 1 for g in rels) + extra_nonrel
    value = bpref(rels, n_rel, n_nonrelevant=n_nonrel)
    assert 0.0 <= value <= 1.0
    # unjudged documents (None, negative) change nothing
    judged_only = [g for g in rels if g is not None and g >= 0]
    assert value == bpref(judged_only, n_rel, n_nonrelevant=n_nonrel)
    # moving every relevant document to the top gives the largest bpref
    best = sorted(judged_only, key=lambda g: g >= 1, reverse=True)
    assert bpref(best, n_rel, n_nonrelevant=n_nonrel) >= value
    if n_rel and extra_rel == 0:
        assert bpref(best, n_rel, n_nonrelevant=n_nonrel) == 1.0


def test_bpref_bad_input():
    with pytest.raises(ValueError, match=r"bpref: n_relevant .* \(2\), got 1"):
        bpref([1, 1], 1, n_nonrelevant=0)
    with pytest.raises(ValueError, match=r"bpref: n_nonrelevant .* \(1\), got 0"):
        bpref([0, 1], 1, n_nonrelevant=0)
    with pytest.raises(TypeError, match="n_relevant"):
        bpref([1], 1.0, n_nonrelevant=0)
    with pytest.raises(TypeError, match="rank 2"):
        bpref([1, "0"], 1, n_nonrelevant=1)
    with pytest.raises(ValueError, match="finite"):
        bpref([1, float("inf")], 1, n_nonrelevant=1)
    with pytest.raises(TypeError):
        bpref({1, 0}, 1, n_nonrelevant=1)


# ------------------------------------------------------------ judged@k

def ir_measures_order(scores):
    """ir_measures' judged provider: score descending, ties by id ascending."""
    return sorted(scores, key=lambda d: (-scores[d], d))


@pytest.mark.parametrize("k", [1, 3, 5, 10, 20, 50])
def test_judged_equals_ir_measures(k):
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = random_collection(seed=11, n_queries=300)
    measure = ir_measures.Judged @ k
    expected = {m.query_id: m.value
                for m in ir_measures.judged.iter_calc([measure], qrels, run)}
    assert set(expected) == set(run)
    for qid in run:
        rels = graded_ranking(qrels[qid], ir_measures_order(run[qid]))
        assert judged_at_k(rels, k) == pytest.approx(expected[qid], abs=1e-12), qid


def test_judged_whole_ranking_equals_ir_measures():
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = random_collection(seed=12, n_queries=100)
    expected = {m.query_id: m.value
                for m in ir_measures.judged.iter_calc([ir_measures.Judged], qrels, run)}
    for qid in run:
        rels = graded_ranking(qrels[qid], ir_measures_order(run[qid]))
        assert judged_at_k(rels) == pytest.approx(expected[qid], abs=1e-12), qid


def test_judged_by_hand():
    rels = [2, None, 0, None, -1]
    assert judged_at_k(rels, 1) == 1.0
    assert judged_at_k(rels, 2) == 0.5
    assert judged_at_k(rels, 5) == pytest.approx(3 / 5)  # -1 is a judgement
    assert judged_at_k(rels, 10) == pytest.approx(3 / 5)  # of the 5 retrieved
    assert judged_at_k(rels, 10, denominator="k") == pytest.approx(3 / 10)
    assert judged_at_k(rels) == pytest.approx(3 / 5)
    assert judged_at_k([], 10) == 0.0
    assert judged_at_k([None, None], 2) == 0.0
    assert judged_at_k([np.nan, 1.0], 2) == 0.5


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.none(), st.integers(-2, 4)), max_size=30), st.integers(1, 40))
def test_judged_properties(rels, k):
    value = judged_at_k(rels, k)
    assert 0.0 <= value <= 1.0
    assert judged_at_k(rels, k, denominator="k") <= value
    # judging every document makes it 1 (for a non-empty ranking)
    if rels:
        assert judged_at_k([0 if g is None else g for g in rels], k) == 1.0


def test_judged_bad_input():
    with pytest.raises(ValueError, match="k must be a positive integer"):
        judged_at_k([1], 0)
    with pytest.raises(ValueError, match="denominator"):
        judged_at_k([1], 1, denominator="all")
    with pytest.raises(TypeError, match="rank 1"):
        judged_at_k(["x"], 1)


def test_bpref_variants_by_hand():
    # trec_eval's bpref_bug ranking: one judged non-relevant, then four relevant; R = 6, N = 4
    rels, R, N = [0, 1, 1, 1, 1], 6, 4
    assert bpref(rels, R, n_nonrelevant=N, variant="trec_eval") == pytest.approx(4 * (1 - 1 / 4) / 6)
    assert bpref(rels, R, n_nonrelevant=N, variant="paper") == pytest.approx(4 * (1 - 1 / 6) / 6)
    # N_ret = 1 judged non-relevant retrieved: min(1, 6) = 1, every term 1 - 1/1
    assert bpref(rels, R, n_nonrelevant=N, variant="old_bpref") == 0.0
    # bpref-10: min(1, 16) / min(4, 16)
    assert bpref(rels, R, n_nonrelevant=N, variant="bpref10") == pytest.approx(4 * (1 - 1 / 4) / 6)
    # where bpref-10 and trec_eval part: R = 1, N = 5, three non-relevant above the relevant one
    assert bpref([0, 0, 0, 1], 1, n_nonrelevant=5) == 0.0                                 # 1 - min(3, 1)/min(5, 1)
    assert bpref([0, 0, 0, 1], 1, n_nonrelevant=5, variant="bpref10") == pytest.approx(1 - 3 / 5)  # min(3, 11)/min(5, 11)
    assert bpref([0, 0, 0, 1], 1, n_nonrelevant=5, variant="paper") == 0.0                # 1 - min(3, 1)/1
    # no judged non-relevant document above: 1 in every variant, even with N = 0
    for variant in ("trec_eval", "paper", "old_bpref", "bpref10"):
        assert bpref([1, None, 1], 2, n_nonrelevant=0, variant=variant) == 1.0
    # R = 2, N = 1, the non-relevant one between the two relevant: the second term differs
    assert bpref([1, 0, 1], 2, n_nonrelevant=1, variant="trec_eval") == pytest.approx((1 + (1 - 1 / 1)) / 2)
    assert bpref([1, 0, 1], 2, n_nonrelevant=1, variant="paper") == pytest.approx((1 + (1 - 1 / 2)) / 2)
    assert bpref([1, 0, 1], 2, n_nonrelevant=1, variant="old_bpref") == pytest.approx((1 + (1 - 1 / 1)) / 2)
    assert bpref([1, 0, 1], 2, n_nonrelevant=1, variant="bpref10") == pytest.approx((1 + (1 - 1 / 1)) / 2)
    # unjudged documents are skipped in every variant
    assert bpref([0, None, 1, -1, 1], 3, n_nonrelevant=2, variant="old_bpref") == \
        bpref([0, 1, 1], 3, n_nonrelevant=2, variant="old_bpref") == pytest.approx(2 * (1 - 1 / 1) / 3)


def test_bpref_unknown_variant_is_named():
    with pytest.raises(ValueError, match=r"bpref: variant must be one of .*'trec_eval'.*got 'trec'"):
        bpref([1, 0], 1, n_nonrelevant=1, variant="trec")
