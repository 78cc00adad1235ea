"""Tests of rm.evaluate and its Report.

Three kinds of expected values: hand arithmetic (written in the comments),
the readable one-query functions of order_unaware / order_aware / graded on
many random queries, and (in test_crosscheck_trec_eval.py) pytrec_eval.
"""

import math
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ragmetrics_edu as rm
from ragmetrics_edu.retrieval.batch import METRICS, evaluate
from ragmetrics_edu.retrieval.conventions import evaluate_as
from ragmetrics_edu.retrieval.graded import dcg_at_k, ndcg_at_k
from ragmetrics_edu.retrieval.order_aware import average_precision, reciprocal_rank
from ragmetrics_edu.retrieval.order_unaware import (
    f1_at_k,
    hit_rate_at_k,
    precision_at_k,
    recall_at_k,
)

# ---------------------------------------------------------------------------
# The fast path against the readable functions, on many random queries
# ---------------------------------------------------------------------------


def _trec_ranked_grades(ranking, judgements):
    """Grades in trec_eval's order, written independently of the library.

    Sort by float32 score descending, ties by docid descending; a grade
    below 1 or an unjudged document gives 0 (not relevant, no gain).
    """
    keyed = sorted(
        ranking.items(),
        key=lambda item: (float(np.float32(item[1])), item[0]),
        reverse=True,
    )
    return [max(judgements.get(docid, 0), 0) for docid, _ in keyed]


def _random_collection(seed, n_queries=200):
    rng = np.random.default_rng(seed)
    pool = [str(i) for i in range(40)] + list("abcdefghijklmnop")
    qrels, run = {}, {}
    for q in range(n_queries):
        qid = f"q{q}"
        n_ret = int(rng.integers(0, 30))
        docs = [pool[i] for i in rng.choice(len(pool), n_ret, replace=False)]
        # half the queries use coarse scores, so ties are common
        if rng.random() < 0.5:
            run[qid] = {d: float(rng.integers(0, 5)) for d in docs}
        else:
            run[qid] = {d: float(rng.normal()) for d in docs}
        n_judged = int(rng.integers(1, 15))
        judged = [pool[i] for i in rng.choice(len(pool), n_judged, replace=False)]
        qrels[qid] = {d: int(rng.integers(-1, 4)) for d in judged}
    return qrels, run


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("gain", ["linear", "exponential"])
def test_matches_the_readable_functions(seed, gain):
    qrels, run = _random_collection(seed)
    ks = [1, 3, 5, 10, 40]
    metrics = ["mrr", "map", "ndcg"]
    for k in ks:
        metrics += [f"{m}@{k}" for m in ("P", "recall", "f1", "hit_rate", "mrr", "map", "ndcg", "dcg")]
    report = evaluate(qrels, run, metrics=metrics, gain=gain)
    assert set(report.per_query) == set(run)
    for qid, values in report.per_query.items():
        rels = _trec_ranked_grades(run[qid], qrels[qid])
        judged_grades = list(qrels[qid].values())  # negative grades count as 0 in ideal=
        n_rel = sum(g >= 1 for g in qrels[qid].values())
        expected = {
            "mrr": reciprocal_rank(rels),
            "map": average_precision(rels, n_rel),
            "ndcg": ndcg_at_k(rels, None, gain=gain, ideal=judged_grades),
        }
        for k in ks:
            expected[f"P@{k}"] = precision_at_k(rels, k)
            expected[f"recall@{k}"] = recall_at_k(rels, k, n_relevant=n_rel)
            expected[f"f1@{k}"] = f1_at_k(rels, k, n_relevant=n_rel)
            expected[f"hit_rate@{k}"] = hit_rate_at_k(rels, k)
            expected[f"mrr@{k}"] = reciprocal_rank(rels, k=k)
            expected[f"map@{k}"] = average_precision(rels, n_rel, k=k)
            expected[f"ndcg@{k}"] = ndcg_at_k(rels, k, gain=gain, ideal=judged_grades)
            expected[f"dcg@{k}"] = dcg_at_k(rels, k, gain=gain)
        for name, value in expected.items():
            assert values[name] == pytest.approx(value, abs=1e-12), (qid, name)


@pytest.mark.parametrize("sizes", [
    [20] * 40,  # a run of fixed depth: the scores of all queries form one matrix
    [20] * 10 + [3] * 10 + [20] * 10 + [0, 1, 2] * 3 + [17, 33, 64, 65, 200],  # mixed
])
def test_every_query_is_sorted_whatever_the_depths(sizes):
    # the scores are sorted query by query, in rows grouped by size; every
    # grouping must give the readable functions' values
    rng = np.random.default_rng(len(sizes))
    qrels, run = {}, {}
    for q, size in enumerate(sizes):
        docs = [f"d{i}" for i in rng.permutation(400)[:size]]
        run[f"q{q}"] = {d: float(rng.integers(0, 50)) for d in docs}  # ties too
        judged = [f"d{i}" for i in rng.permutation(400)[:30]] + docs[: size // 2]
        qrels[f"q{q}"] = {d: int(rng.integers(-1, 4)) for d in judged}
    report = evaluate(qrels, run, metrics=["map", "ndcg@10", "mrr", "P@5"])
    for qid, values in report.per_query.items():
        rels = _trec_ranked_grades(run[qid], qrels[qid])
        n_rel = sum(g >= 1 for g in qrels[qid].values())
        judged = list(qrels[qid].values())
        assert values["map"] == pytest.approx(average_precision(rels, n_rel), abs=1e-12), qid
        assert values["ndcg@10"] == pytest.approx(ndcg_at_k(rels, 10, ideal=judged), abs=1e-12), qid
        assert values["mrr"] == pytest.approx(reciprocal_rank(rels), abs=1e-12), qid
        assert values["P@5"] == pytest.approx(precision_at_k(rels, 5), abs=1e-12), qid


@pytest.mark.parametrize("chunk, matrix_bytes", [(1 << 17, 1 << 26), (50, 1 << 26), (50, 0)])
def test_tie_resolution_in_small_chunks(monkeypatch, chunk, matrix_bytes):
    # the queries are ranked a chunk at a time, and tied ids sorted as byte
    # strings by NumPy or, past a memory budget, by Python's sorted: chunks
    # of about 50 documents and either way must give the readable path's ranks
    from ragmetrics_edu.retrieval.batch import _engine, evaluator

    monkeypatch.setattr(evaluator, "CHUNK", chunk)
    monkeypatch.setattr(_engine, "_MATRIX_BYTES", matrix_bytes)
    monkeypatch.setattr(_engine, "_PACKED_ID_BYTES", 0)  # no packed keys: the tie step runs
    qrels, run = _random_collection(11, n_queries=60)
    run = {q: {d: float(int(s) % 2) for d, s in r.items()} for q, r in run.items()}
    report = evaluate(qrels, run, metrics=["map", "ndcg"])
    for qid, values in report.per_query.items():
        rels = _trec_ranked_grades(run[qid], qrels[qid])
        n_rel = sum(g >= 1 for g in qrels[qid].values())
        assert values["map"] == pytest.approx(average_precision(rels, n_rel), abs=1e-12)
        judged = list(qrels[qid].values())
        assert values["ndcg"] == pytest.approx(ndcg_at_k(rels, None, ideal=judged), abs=1e-12)


_AWKWARD_IDS = [
    "", "a", "ab", "abc", "b", "9", "10",                   # prefixes, digits as text
    "document-00000001", "document-000000010",              # longer than one 8-byte word,
    "document-000000011", "document-00000001-part-2",       # alike in their first 16 bytes
    "é", "e\u0301", "z", "日本", "日本語", "\U0001f600", "\uffff",  # UTF-8 of 2 to 4 bytes
    "\ud800", "\ue000",                                     # a lone surrogate, then U+E000
]


@pytest.mark.parametrize("extra", [[], ["x\0y", "x\0z", "x", "x\0"]])  # ids holding "\0"
@pytest.mark.parametrize("tied_share", [1.0, 0.2])  # ties in every query, or in a few
def test_ties_among_long_and_non_ascii_ids(extra, tied_share):
    # tied documents are ordered by id, descending, byte by byte as C's
    # strcmp compares their UTF-8 (the order of code points, which Python's
    # sort of strings follows): ids longer than 8 bytes, prefixes of one
    # another and multi-byte characters must all be ordered as sorted() does
    pool = _AWKWARD_IDS + extra
    rng = np.random.default_rng(7)
    qrels, run = {}, {}
    for q in range(80):
        docs = [pool[i] for i in rng.permutation(len(pool))[: rng.integers(1, len(pool) + 1)]]
        if rng.random() < tied_share:
            run[f"q{q}"] = {d: float(rng.integers(0, 2)) for d in docs}  # two scores: big ties
        else:
            run[f"q{q}"] = {d: float(rng.normal()) for d in docs}
        judged = [pool[i] for i in rng.permutation(len(pool))[:8]]
        qrels[f"q{q}"] = {d: int(rng.integers(0, 4)) for d in judged}
    report = evaluate(qrels, run, metrics=["map", "ndcg", "mrr", "bpref"])
    for qid, values in report.per_query.items():
        rels = _trec_ranked_grades(run[qid], qrels[qid])
        n_rel = sum(g >= 1 for g in qrels[qid].values())
        judged = list(qrels[qid].values())
        assert values["map"] == pytest.approx(average_precision(rels, n_rel), abs=1e-12), qid
        assert values["ndcg"] == pytest.approx(ndcg_at_k(rels, None, ideal=judged), abs=1e-12), qid
        assert values["mrr"] == pytest.approx(reciprocal_rank(rels), abs=1e-12), qid
        # bpref ranks the judged non-relevant documents too (unjudged: None)
        graded = [qrels[qid].get(d) for d, _ in sorted(
            run[qid].items(), key=lambda item: (item[1], item[0]), reverse=True)]
        n_nonrel = sum(g == 0 for g in judged)
        assert values["bpref"] == pytest.approx(rm.bpref(graded, n_rel, n_nonrelevant=n_nonrel), abs=1e-12), qid


_TREC_NAMES = {
    "P@10": "P_10", "recall@10": "recall_10", "ndcg@10": "ndcg_cut_10", "map": "map",
    "mrr": "recip_rank", "rprec": "Rprec", "iprec@0.5": "iprec_at_recall_0.50",
    "11pt": "11pt_avg", "bpref": "bpref",
}


@pytest.mark.parametrize("fixed_depth", [True, False])
def test_heavy_ties_equal_pytrec_eval(fixed_depth):
    # integer scores 0-4, so about a fifth of every ranking shares each
    # score (the benchmark's --heavy-ties run): every value of every query
    # must be trec_eval's, as pytrec_eval computes it with trec_eval's C
    # code, for a run of one depth (one matrix) and for rankings of many
    # depths; short ids, and ids longer than one 8-byte word that share
    # their first bytes
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(15)
    qrels, run = {}, {}
    for q in range(300):
        depth = 60 if fixed_depth else int(rng.integers(0, 90))
        ids = [f"d{d}" if d % 3 else f"clueweb-{d:09d}"
               for d in rng.choice(5000, size=depth + 12, replace=False).tolist()]
        run[f"q{q}"] = {d: float(rng.integers(0, 5)) for d in ids[:depth]}
        judged = [ids[i] for i in rng.choice(len(ids), size=12, replace=False).tolist()]
        qrels[f"q{q}"] = {d: int(rng.integers(0, 4)) for d in judged}
    measures = {"P_10", "recall_10", "ndcg_cut_10", "map", "recip_rank", "Rprec",
                "iprec_at_recall", "11pt_avg", "bpref"}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    ours = evaluate(qrels, run, metrics=list(_TREC_NAMES))
    assert set(ours.per_query) == set(theirs) and len(theirs) == 300
    for qid, values in theirs.items():
        for name, measure in _TREC_NAMES.items():
            if name == "11pt" and not run[qid]:
                # trec_eval's 11pt_avg of an empty ranking is 0/0, NaN; ours is 0
                assert math.isnan(values[measure]) and ours.per_query[qid][name] == 0.0
                continue
            assert ours.per_query[qid][name] == pytest.approx(
                values[measure], abs=1e-12), (qid, name)


# ---------------------------------------------------------------------------
# Hand arithmetic
# ---------------------------------------------------------------------------


def test_hand_example_every_metric():
    qrels = {"q": {"d1": 1, "d2": 0, "d3": 2, "d9": 3}}  # d9 relevant, never retrieved
    run = {"q": {"d1": 0.9, "d2": 0.8, "d3": 0.7, "d4": 0.6}}
    # order d1 (1), d2 (0), d3 (2), d4 (unjudged); R = 3 relevant: d1, d3, d9
    r = evaluate(qrels, run, metrics=["P@2", "recall@3", "f1@2", "hit_rate@1", "mrr",
                               "map", "map@1", "dcg@3", "ndcg@3", "ndcg"]).per_query["q"]
    assert r["P@2"] == 0.5  # 1 relevant of 2
    assert r["recall@3"] == pytest.approx(2 / 3)  # d1, d3 of 3 relevant
    assert r["f1@2"] == pytest.approx(2 * 0.5 * (1 / 3) / (0.5 + 1 / 3))  # P=1/2, R=1/3
    assert r["hit_rate@1"] == 1.0
    assert r["mrr"] == 1.0
    assert r["map"] == pytest.approx((1 / 1 + 2 / 3) / 3)  # d9 counts in the denominator
    assert r["map@1"] == pytest.approx(1 / 3)  # (1/1) / 3
    dcg3 = 1 / math.log2(2) + 2 / math.log2(4)  # 1 + 2/2 = 2
    assert r["dcg@3"] == pytest.approx(dcg3)
    idcg3 = 3 / math.log2(2) + 2 / math.log2(3) + 1 / math.log2(4)  # grades 3, 2, 1
    assert r["ndcg@3"] == pytest.approx(dcg3 / idcg3)
    assert r["ndcg"] == pytest.approx(dcg3 / idcg3)  # nothing relevant after rank 3


def test_exponential_gain_by_hand():
    qrels = {"q": {"a": 3, "b": 1}}
    run = {"q": {"b": 2.0, "a": 1.0}}
    r = evaluate(qrels, run, metrics=["dcg@2", "ndcg@2"], gain="exponential").per_query["q"]
    dcg = (2**1 - 1) / 1 + (2**3 - 1) / math.log2(3)  # b then a
    idcg = (2**3 - 1) / 1 + (2**1 - 1) / math.log2(3)  # a then b
    assert r["dcg@2"] == pytest.approx(dcg)
    assert r["ndcg@2"] == pytest.approx(dcg / idcg)


@pytest.mark.parametrize(
    "first, second",
    [("b", "a"), ("9", "10"), ("z", "Z"), ("10", "1"), ("d2", "d10")],
)
def test_ties_go_to_the_larger_document_id(first, second):
    # equal scores: trec_eval ranks the larger string first; the dict order
    # (second written first) must not matter
    qrels = {"q": {second: 1}}
    run = {"q": {second: 1.0, first: 1.0}}
    assert first > second  # string order, e.g. "9" > "10"
    assert evaluate(qrels, run, metrics=["mrr"]).per_query["q"]["mrr"] == 0.5  # relevant at rank 2


@settings(max_examples=300, deadline=None)
@given(ids=st.lists(st.text(alphabet="ab\0\xe9\U0001f600", max_size=20), min_size=1,
                    max_size=30, unique=True),
       pick=st.integers(min_value=0))
def test_every_tied_rank_follows_sorted(ids, pick):
    # one score for every document: the relevant one's rank is its place in
    # the ids sorted descending, whatever their bytes: ids of 0 to 80 bytes
    # (several 8-byte words, the last id of the run included), prefixes of
    # one another, and ids that differ only by trailing "\0" ("a" < "a\0")
    relevant = ids[pick % len(ids)]
    run = {"q": dict.fromkeys(ids, 1.0)}
    expected = sorted(ids, reverse=True).index(relevant) + 1
    report = evaluate({"q": {relevant: 1}}, run, metrics=["mrr"])
    assert report.per_query["q"]["mrr"] == 1 / expected


def test_scores_equal_as_float32_are_ties():
    # trec_eval keeps scores in a C float: 1 + 1e-12 == 1.0, so "b" goes first
    qrels = {"q": {"a": 1}}
    assert evaluate(qrels, {"q": {"a": 1.0 + 1e-12, "b": 1.0}}, metrics=["mrr"]).mean["mrr"] == 0.5
    # 1e301 and 1e300 both overflow to inf: a tie again
    assert evaluate(qrels, {"q": {"a": 1e301, "b": 1e300}}, metrics=["mrr"]).mean["mrr"] == 0.5
    # -0.0 and 0.0 are the same score
    assert evaluate(qrels, {"q": {"a": 0.0, "b": -0.0}}, metrics=["mrr"]).mean["mrr"] == 0.5
    # 1 + 1e-6 is a different float32: a is ahead
    assert evaluate(qrels, {"q": {"a": 1.0 + 1e-6, "b": 1.0}}, metrics=["mrr"]).mean["mrr"] == 1.0


def test_infinite_scores_are_ordered():
    qrels = {"q": {"c": 1}}
    run = {"q": {"a": -math.inf, "b": math.inf, "c": 0.0}}
    # b (inf), c (0), a (-inf): the relevant c is second
    assert evaluate(qrels, run, metrics=["mrr"]).mean["mrr"] == 0.5


def test_negative_and_zero_grades_are_not_relevant():
    qrels = {"q": {"a": -1, "b": 0, "c": 2}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    r = evaluate(qrels, run, metrics=["P@3", "map", "ndcg", "dcg@3"]).per_query["q"]
    assert r["P@3"] == pytest.approx(1 / 3)  # only c
    assert r["map"] == pytest.approx(1 / 3)  # c at rank 3: (1/3) / 1
    assert r["dcg@3"] == pytest.approx(2 / math.log2(4))  # -1 brings no (negative) gain
    assert r["ndcg"] == pytest.approx((2 / 2) / 2)  # ideal: c first, 2/1


def test_query_judged_only_with_negative_grades_scores_zero():
    # nothing relevant (-1 and -2 are junk), no gain: every metric is 0, the
    # query counts in the means and is listed.  (pytrec_eval's ndcg has
    # undefined behaviour on such a query: it may hang, crash or return 0.)
    qrels = {"q1": {"a": -1, "b": -2}}
    run = {"q1": {"a": 1.0, "b": 0.5}}
    metrics = ["P@1", "recall@2", "f1@2", "hit_rate@2", "mrr", "map", "map@2",
               "ndcg", "ndcg@2", "dcg@2"]
    for gain in ("linear", "exponential"):
        report = evaluate(qrels, run, metrics=metrics, gain=gain)
        assert report.per_query == {"q1": dict.fromkeys(metrics, 0.0)}
        assert report.mean == dict.fromkeys(metrics, 0.0)
        assert report.queries_without_relevant == ("q1",)


def test_query_without_relevant_document_scores_zero_and_counts():
    qrels = {"q1": {"a": 0, "b": -2}, "q2": {"x": 1}}
    run = {"q1": {"a": 1.0}, "q2": {"x": 1.0}}
    report = evaluate(qrels, run, metrics=["P@1", "recall@1", "map", "ndcg", "mrr"])
    assert report.per_query["q1"] == dict.fromkeys(report.metrics, 0.0)
    assert report.queries_without_relevant == ("q1",)
    assert report.mean["map"] == 0.5  # (0 + 1) / 2: q1 counts
    assert "no_rel_q:1" in report.signature


def test_missing_queries_ignore_and_zero():
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
    run = {"q1": {"a": 1.0}, "q2": {"z": 1.0, "b": 0.5}}
    ignore = evaluate(qrels, run, metrics=["mrr"])
    assert ignore.missing_queries == ("q3",)
    assert set(ignore.per_query) == {"q1", "q2"}
    assert ignore.mean["mrr"] == pytest.approx((1 + 0.5) / 2)
    zero = evaluate(qrels, run, metrics=["mrr"], missing="zero")  # trec_eval -c
    assert zero.missing_queries == ("q3",)
    assert zero.per_query["q3"] == {"mrr": 0.0}
    assert zero.mean["mrr"] == pytest.approx((1 + 0.5 + 0) / 3)
    assert "missing:zero" in zero.signature


def test_unjudged_queries_are_listed_not_scored():
    qrels = {"q1": {"a": 1}, "q2": {}}  # an empty dict: no judgements
    run = {"q1": {"a": 1.0}, "q2": {"a": 1.0}, "q9": {"a": 1.0}}
    report = evaluate(qrels, run, metrics=["map"], missing="zero")
    assert report.unjudged_queries == ("q2", "q9")
    assert report.missing_queries == ()
    assert set(report.per_query) == {"q1"}
    assert "unjudged_q:2" in report.signature


def test_empty_judgements_missing_from_the_run_are_listed():
    # q2 is judged with {} and not run: it has no judgements, like a query
    # absent from the qrels (pytrec_eval ignores it; a qrels file cannot
    # write it, so trec_eval -c does not count it); it is listed, not dropped
    qrels = {"q1": {"a": 1}, "q2": {}}
    run = {"q1": {"a": 1.0}}
    for missing in ("ignore", "zero"):
        report = evaluate(qrels, run, metrics=["map"], missing=missing)
        assert report.unjudged_queries == ("q2",)
        assert report.missing_queries == ()
        assert report.per_query == {"q1": {"map": 1.0}}
        assert report.mean == {"map": 1.0}  # q2 is not counted, even as 0
        assert "unjudged_q:1" in report.signature
        assert "without judgements (not scored): 'q2'" in str(report)
    # in the run and judged {}: listed too, after the run's unjudged queries
    report = evaluate({"q1": {"a": 1}, "q2": {}, "q3": {}},
                      {"q9": {"a": 1.0}, "q2": {"a": 1.0}, "q1": {"a": 1.0}}, metrics=["map"])
    assert report.unjudged_queries == ("q9", "q2", "q3")


def test_empty_ranking_of_a_judged_query_scores_zero():
    report = evaluate({"q1": {"a": 1}, "q2": {"b": 1}}, {"q1": {}, "q2": {"b": 1.0}}, metrics=["map", "P@5"])
    assert report.per_query["q1"] == {"map": 0.0, "P@5": 0.0}
    assert report.mean["map"] == 0.5


def test_k_larger_than_the_ranking():
    r = evaluate({"q": {"a": 1, "b": 1}}, {"q": {"a": 1.0}}, metrics=["P@10", "recall@10", "ndcg@10"]).per_query["q"]
    assert r["P@10"] == 0.1  # 1 / 10: trec_eval divides by k
    assert r["recall@10"] == 0.5
    assert r["ndcg@10"] == pytest.approx(1 / (1 + 1 / math.log2(3)))


def test_dict_order_does_not_matter():
    qrels, run = _random_collection(7, n_queries=30)
    metrics = ["map", "ndcg@5", "mrr", "P@3"]
    base = evaluate(qrels, run, metrics=metrics).per_query
    rng = np.random.default_rng(0)
    shuffled_run = {}
    for qid in reversed(list(run)):
        items = list(run[qid].items())
        rng.shuffle(items)
        shuffled_run[qid] = dict(items)
    again = evaluate(qrels, shuffled_run, metrics=metrics).per_query
    assert again == base


def test_any_mapping_is_accepted():
    from collections import OrderedDict
    from types import MappingProxyType

    qrels = MappingProxyType({"q": OrderedDict(a=1, b=2)})
    run = {"q": MappingProxyType({"a": 1.0, "b": 0.5})}
    # a then b, both relevant: AP = (1/1 + 2/2) / 2
    assert evaluate(qrels, run, metrics=["map"]).mean["map"] == 1.0


def test_grades_as_integer_floats_and_numpy_numbers():
    qrels = {"q": {"a": 1.0, "b": np.int64(2)}}
    run = {"q": {"a": np.float32(0.5), "b": 2}}
    assert evaluate(qrels, run, metrics=["map"]).mean["map"] == 1.0  # b then a, both relevant


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

QRELS = {"q": {"a": 1}}
RUN = {"q": {"a": 1.0}}


def test_unknown_metric_lists_the_known_ones():
    with pytest.raises(ValueError) as info:
        evaluate(QRELS, RUN, metrics=["precision@10"])
    message = str(info.value)
    assert "precision@10" in message
    for base in METRICS:
        assert base in message


@pytest.mark.parametrize("name", ["P@0", "P@-1", "P@1.5", "P@x", "ndcg@", "map@00"])
def test_bad_cutoff(name):
    with pytest.raises(ValueError, match="k must be a positive integer"):
        evaluate(QRELS, RUN, metrics=[name])


@pytest.mark.parametrize("digits", [20, 401, 5000])
def test_huge_cutoffs_are_named_not_converted(digits):
    # 5,000 digits: int() would raise "Exceeds the limit (4300 digits)"; 401
    # digits: "int too large to convert to float"; 20: beyond a C long
    name = "P@1" + "0" * (digits - 1)
    with pytest.raises(ValueError, match=rf"k must be a positive integer of at most 2\*\*63 - 1, "
                                         rf"got a number of {digits} digits in metric 'P@10"):
        evaluate(QRELS, RUN, metrics=[name])


def test_largest_cutoff_and_huge_k_in_the_readable_functions():
    assert evaluate(QRELS, RUN, metrics=[f"P@{2**63 - 1}"]).mean[f"P@{2**63 - 1}"] < 1e-18
    with pytest.raises(ValueError, match=r"at most 2\*\*63 - 1, got an integer of about 10\*\*400"):
        precision_at_k([1, 0], 10**400)
    with pytest.raises(ValueError, match=r"got an integer of about 10\*\*4999"):
        precision_at_k([1, 0], 10**4999)


@pytest.mark.parametrize("grade", [10**400, -10**4999, 2**63], ids=["1e400", "-1e4999", "2**63"])
def test_huge_integer_grades_are_named(grade):
    with pytest.raises(ValueError, match="qrels grades must be integers from -2\\*\\*63 to "
                                         "2\\*\\*63 - 1, got .* for document 'a' of query 'q'"):
        evaluate({"q": {"a": grade}}, {"q": {"a": 1.0}}, metrics=["map"])


@pytest.mark.parametrize("name", ["P", "recall", "f1", "hit_rate", "dcg"])
def test_metrics_that_need_a_cutoff(name):
    with pytest.raises(ValueError, match="needs a cut-off"):
        evaluate(QRELS, RUN, metrics=[name])


def test_nan_score_names_query_and_document():
    with pytest.raises(ValueError, match=r"NaN.*'d2'.*'q7'"):
        evaluate({"q7": {"d1": 1}}, {"q7": {"d1": 1.0, "d2": math.nan}}, metrics=["map"])


def test_bad_grades_and_scores():
    with pytest.raises(ValueError, match=r"integers.*0.5.*'a'.*'q'"):
        evaluate({"q": {"a": 0.5}}, RUN, metrics=["map"])
    with pytest.raises(TypeError, match="grades must be integers"):
        evaluate({"q": {"a": "1"}}, RUN, metrics=["map"])
    with pytest.raises(TypeError, match="grades must be integers"):
        evaluate({"q": {"a": True}}, RUN, metrics=["map"])
    with pytest.raises(TypeError, match=r"scores must be numbers, got 'high'.*'b'.*'q'"):
        evaluate(QRELS, {"q": {"a": 0.5, "b": "high"}}, metrics=["map"])
    # a numeric string reads as float() reads it, as in a run file
    assert evaluate(QRELS, {"q": {"b": "0.75", "a": "1e3"}}, metrics=["mrr"]).mean["mrr"] == 1.0
    with pytest.raises(TypeError, match="scores must be numbers"):
        evaluate(QRELS, {"q": {"a": None}}, metrics=["map"])


def test_ids_must_be_strings():
    with pytest.raises(TypeError, match="query ids must be strings"):
        evaluate({1: {"a": 1}}, RUN, metrics=["map"])
    with pytest.raises(TypeError, match="document ids must be strings"):
        evaluate({"q": {1: 1}}, {"q": {1: 1.0}}, metrics=["map"])
    with pytest.raises(TypeError, match="document ids must be strings"):
        evaluate(QRELS, {"q": {7: 1.0}}, metrics=["map"])  # would never match "a"


def test_every_document_id_is_checked_not_only_the_first():
    # a 7 after string ids, in the second query, with a distinct score (no
    # tie): it would silently never match a judged "7"
    qrels = {"q1": {"a": 1}, "q2": {"7": 1}}
    run = {"q1": {"a": 1.0}, "q2": {"b": 0.9, "c": 0.5, 7: 0.1}}
    with pytest.raises(TypeError, match=r"run document ids must be strings.*got 7 in query 'q2'"):
        evaluate(qrels, run, metrics=["map"])
    qrels = {"q1": {"a": 1}, "q2": {"b": 0, 7: 1}}
    with pytest.raises(TypeError, match=r"qrels document ids must be strings.*got 7 in query 'q2'"):
        evaluate(qrels, {"q1": {"a": 1.0}, "q2": {"b": 1.0}}, metrics=["map"])


def test_booleans_are_neither_grades_nor_scores():
    # True == 1 and False == 0 for Python, but a grade of True is a mistake
    # (e.g. a column of "is relevant" flags): refused even among integers
    with pytest.raises(TypeError,
                       match=r"grades must be integers, got True for document 'a' of query 'q'"):
        evaluate({"q": {"a": True, "b": 1}}, {"q": {"a": 1.0}}, metrics=["map"])
    with pytest.raises(TypeError, match=r"grades must be integers, got np.False_ for document 'b'"):
        evaluate({"q": {"a": 1, "b": np.False_}}, {"q": {"a": 1.0}}, metrics=["map"])
    with pytest.raises(TypeError, match=r"not booleans, got True for document 'b' of query 'q2'"):
        evaluate({"q1": {"a": 1}, "q2": {"a": 1}},
                 {"q1": {"a": 0.5}, "q2": {"a": 1.0, "b": True, "c": 0.0}}, metrics=["map"])
    with pytest.raises(TypeError, match=r"not booleans, got False for document 'a' of query 'q'"):
        evaluate(QRELS, {"q": {"a": False}}, metrics=["map"])
    # 1.0 and 0 as scores are numbers, not booleans
    assert evaluate(QRELS, {"q": {"a": 0, "b": 1.0}}, metrics=["mrr"]).mean["mrr"] == 0.5


def test_a_boolean_after_many_float_scores_is_refused():
    # floats are read in one pass that stops at the first score that is no
    # float; a boolean or None met late in the run is still named
    run = {f"q{i}": {"a": 1.0, "b": 0.0, "c": 0.5} for i in range(50)}
    qrels = {qid: {"a": 1} for qid in run}
    for late, shown in ((True, "True"), (np.False_, "np.False_")):
        run["q49"]["c"] = late
        with pytest.raises(TypeError,
                           match=rf"not booleans, got {shown} for document 'c' of query 'q49'"):
            evaluate(qrels, run, metrics=["map"])
    run["q49"]["c"] = None
    with pytest.raises(TypeError, match=r"got None for document 'c' of query 'q49'"):
        evaluate(qrels, run, metrics=["map"])
    run["q49"]["c"] = math.nan
    with pytest.raises(ValueError, match=r"not be NaN, got NaN for document 'c' of query 'q49'"):
        evaluate(qrels, run, metrics=["map"])
    # a numeric string met late is read as float() reads it, as before
    run["q49"]["c"] = "0.5"
    assert evaluate(qrels, run, metrics=["mrr"]).per_query["q49"]["mrr"] == 1.0  # a, c, b
    # np.float64 is a float: read by its value, like a float (1.0 = 1.0 ties)
    run["q49"] = {"a": np.float64(1.0), "b": 1.0, "c": 0.5}
    assert evaluate(qrels, run, metrics=["mrr"]).per_query["q49"]["mrr"] == 0.5  # b, a, c


def test_grades_beyond_64_bits_are_refused():
    # astype(int64) would wrap 10**30 around silently
    for grade, shown in ((10**30, "an integer of about 10**30"),
                         (-(10**40), "an integer of about -10**40"),
                         (2**63, repr(2**63)), (1e30, "1e+30"), (float("inf"), "inf")):
        with pytest.raises(ValueError, match=rf"grades must be integers.*got {re.escape(shown)} "
                                             rf"for document 'b' of query 'q'"):
            evaluate({"q": {"a": 1, "b": grade}}, RUN, metrics=["map"])
    # the 64-bit limits themselves are fine: a very negative grade is junk,
    # a huge one relevant (linear gain)
    qrels = {"q": {"a": 2**63 - 1, "b": -(2**63)}}
    assert evaluate(qrels, {"q": {"b": 2.0, "a": 1.0}}, metrics=["map"]).mean["map"] == 0.5
    # an integer-valued float beyond 2**53 is still exact: 2.0**60 is the grade 2**60
    r = evaluate({"q": {"a": 2.0**60, "b": np.int64(3)}}, {"q": {"a": 1.0}}, metrics=["dcg@1"])
    assert r.mean["dcg@1"] == 2.0**60


def test_a_bad_score_or_id_met_while_looking_up_the_relevant_documents_is_named():
    # the relevant documents are looked up in the run while its ids are
    # read, before the scores are checked: what fails there is named too
    with pytest.raises(TypeError, match=r"scores must be numbers, got 'high' for document 'a' "
                                        r"of query 'q'"):
        evaluate(QRELS, {"q": {"b": 0.5, "a": "high"}}, metrics=["map"])
    with pytest.raises(ValueError, match=r"fit in a float, .* for document 'a' of query 'q'"):
        evaluate(QRELS, {"q": {"b": 0.5, "a": 10**400}}, metrics=["map"])
    with pytest.raises(TypeError, match=r"run document ids must be strings .*got 7 in query 'q'"):
        evaluate(QRELS, {"q": {"a": 1.0, 7: 0.5}}, metrics=["map"])


def test_huge_integer_score_names_the_document():
    # float(10**400) raises OverflowError; a float string "1e400" reads as inf
    with pytest.raises(ValueError, match=r"scores must fit in a float, got an integer of about "
                                         r"10\*\*400 for document 'b' of query 'q'"):
        evaluate(QRELS, {"q": {"a": 1.0, "b": 10**400}}, metrics=["map"])
    # "1e400" is inf, above the relevant a: rank 2
    assert evaluate(QRELS, {"q": {"a": 1.0, "b": "1e400"}}, metrics=["mrr"]).mean["mrr"] == 0.5


def test_exponential_gain_overflow_names_query_document_and_grade():
    # 2**2000 overflows a float: it was nan with a RuntimeWarning; the
    # single-query ndcg_at_k([2000], 1, gain="exponential") refuses it too
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning either
        with pytest.raises(ValueError, match=r"grade 2000 \(document 'a' of query 'q'\)"):
            evaluate({"q": {"a": 2000}}, {"q": {"a": 2.0}}, metrics=["ndcg"], gain="exponential")
        # not retrieved, it is still in the ideal ranking of ndcg
        with pytest.raises(ValueError, match=r"grade 1024 \(document 'z' of query 'q2'\)"):
            evaluate({"q1": {"a": 1}, "q2": {"a": 1, "z": 1024}},
                     {"q1": {"a": 1.0}, "q2": {"a": 1.0}}, metrics=["ndcg@5"], gain="exponential")
        # three gains of 2**1023 - 1 with discounts 1, 1.585, 2 sum to about
        # 2**1023 * 2.13 > 2**1024: the sum overflows
        qrels = {"q": {"a": 1023, "b": 1023, "c": 1023}}
        run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
        for metric in ("dcg@3", "ndcg@3", "ndcg"):
            with pytest.raises(ValueError, match=r"DCG overflows a float.*\(query 'q'\)"):
                evaluate(qrels, run, metrics=[metric], gain="exponential")
        # what never enters a sum is no error: 2**1023 - 1 at rank 1 alone,
        # and map ignores gains
        assert evaluate(qrels, run, metrics=["dcg@1"], gain="exponential").mean["dcg@1"] == 2.0**1023
        assert evaluate({"q": {"a": 2000}}, {"q": {"a": 2.0}}, metrics=["map"],
                        gain="exponential").mean["map"] == 1.0
        # linear gain: 2000 is just 2000
        assert evaluate({"q": {"a": 2000}}, {"q": {"a": 2.0}}, metrics=["dcg@1", "ndcg"]).mean == {
            "dcg@1": 2000.0, "ndcg": 1.0}


def test_bad_options_and_inputs():
    with pytest.raises(ValueError, match="missing must be one of"):
        evaluate(QRELS, RUN, metrics=["map"], missing="drop")
    with pytest.raises(ValueError, match="gain must be one of"):
        evaluate(QRELS, RUN, metrics=["ndcg"], gain="log")
    with pytest.raises(ValueError, match="nothing to score"):
        evaluate({"q1": {"a": 1}}, {"q2": {"a": 1.0}}, metrics=["map"])
    with pytest.raises(ValueError, match="at least one metric"):
        evaluate(QRELS, RUN, metrics=[])
    with pytest.raises(TypeError, match="qrels must be a dict"):
        evaluate([("q", "a", 1)], RUN, metrics=["map"])
    with pytest.raises(TypeError, match=r"run\['q'\] must be a dict"):
        evaluate(QRELS, {"q": ["a"]}, metrics=["map"])


# ---------------------------------------------------------------------------
# The report
# ---------------------------------------------------------------------------


def _small_report():
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}, "q3": {"d": 1}}
    run = {"q1": {"a": 0.2, "b": 0.9}, "q2": {"c": 0.5}, "q4": {"x": 1.0}}
    return evaluate(qrels, run, metrics=["P@1", "mrr"])


def test_report_table_dict_and_signature():
    report = _small_report()
    # q1: b then a -> P@1 = 0, RR = 1/2; q2: c first -> P@1 = 1, RR = 1
    assert report.per_query == {"q1": {"P@1": 0.0, "mrr": 0.5}, "q2": {"P@1": 1.0, "mrr": 1.0}}
    assert report.mean == {"P@1": 0.5, "mrr": 0.75}
    table = report.to_table()
    assert table.splitlines()[0].split() == ["qid", "P@1", "mrr"]
    assert table.splitlines()[2].split() == ["q1", "0.0000", "0.5000"]
    assert table.splitlines()[-1].split() == ["mean", "0.5000", "0.7500"]
    assert len(report.to_table(per_query=False).splitlines()) == 3
    d = report.to_dict()
    assert d["missing_queries"] == ["q3"] and d["unjudged_queries"] == ["q4"]
    assert d["mean"] == report.mean and d["signature"] == report.signature
    for convention in ("float32", "docid desc", "grade>=1", "gain:linear",
                       "idcg:all judged", "ap:all relevant", "missing:ignore"):
        assert convention in report.signature
    text = str(report)
    assert "'q3'" in text and "'q4'" in text and report.signature in text
    assert "2 metrics over 2 queries" in repr(report)


def test_report_dataframe():
    pd = pytest.importorskip("pandas")
    frame = _small_report().to_dataframe()
    assert list(frame.columns) == ["P@1", "mrr"]
    assert list(frame.index) == ["q1", "q2", "mean"]
    assert frame.loc["mean", "mrr"] == 0.75
    assert frame.loc[["q1", "q2"]].mean().to_dict() == {"P@1": 0.5, "mrr": 0.75}
    assert isinstance(_small_report().to_dataframe(mean_row=False), pd.DataFrame)


def test_public_names():
    assert rm.evaluate is evaluate
    assert rm.Report is type(_small_report())


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------

_ids = st.sampled_from(["a", "b", "c", "9", "10", "d1", "d10"])
_ranking = st.dictionaries(_ids, st.sampled_from([0.0, 0.5, 1.0, 2.5, -1.0]), max_size=7)
_judgements = st.dictionaries(_ids, st.integers(-1, 3), min_size=0, max_size=7)


@settings(max_examples=150, deadline=None)
@given(
    qrels=st.dictionaries(st.sampled_from(["q1", "q2", "q3"]), _judgements, min_size=1),
    run=st.dictionaries(st.sampled_from(["q1", "q2", "q3", "q4"]), _ranking, min_size=1),
    missing=st.sampled_from(["ignore", "zero"]),
)
def test_properties(qrels, run, missing):
    metrics = ["P@3", "recall@2", "f1@2", "hit_rate@1", "mrr", "mrr@2", "map", "map@3", "ndcg", "ndcg@2"]
    if not {qid for qid, docs in qrels.items() if docs} & set(run):
        with pytest.raises(ValueError):
            evaluate(qrels, run, metrics=metrics, missing=missing)
        return
    report = evaluate(qrels, run, metrics=metrics, missing=missing)
    # nothing dropped silently: every query is accounted for
    accounted = set(report.per_query) | set(report.unjudged_queries) | set(report.missing_queries)
    assert accounted == set(qrels) | set(run)
    for name in metrics:
        column = [v[name] for v in report.per_query.values()]
        assert all(0.0 <= x <= 1.0 for x in column)
        assert report.mean[name] == pytest.approx(sum(column) / len(column))
    for qid in report.queries_without_relevant:
        assert set(report.per_query[qid].values()) == {0.0}
    # mrr@k <= mrr and map@k <= map
    for v in report.per_query.values():
        assert v["mrr@2"] <= v["mrr"]
        assert v["map@3"] <= v["map"] + 1e-15


def test_table_shows_control_characters_in_query_ids_escaped():
    qrels = {"\x1b[31mq": {"d1": 1}, "\ufeffq2": {"d1": 1}}
    run = {"\x1b[31mq": {"d1": 1.0}, "\ufeffq2": {"d1": 1.0}}
    table = rm.evaluate(qrels, run, metrics=["P@1"]).to_table()
    assert "\x1b" not in table and "\ufeff" not in table
    assert "'\\x1b[31mq'" in table and "'\\ufeffq2'" in table


def test_a_repeated_parameter_is_refused_naming_it():
    """'rbp(p=.5,p=.6)' was once read as p=.6 without a word."""
    for name, key in (("rbp(p=.5,p=.6)", "p"), ("err(max_grade=3, max_grade=3)@5", "max_grade"),
                      ("rbp(relevance=graded,p=0.9,relevance=binary)", "relevance")):
        with pytest.raises(ValueError, match=rf"the parameter {key} is given twice"):
            evaluate(QRELS, RUN, metrics=[name])


def test_the_unknown_metric_message_lists_each_name_once():
    with pytest.raises(ValueError) as info:
        evaluate(QRELS, RUN, metrics=["precision@10"])
    listed = str(info.value).split("the known metrics are: ")[1].split(" (k a positive")[0]
    names = [n.strip() for n in re.split(r",\s(?![^()]*\))", listed)]
    assert len(names) == len(set(names)), names
    assert "err" in names and "err@k" in names and "err(max_grade=4)@k" in names


def test_evaluate_and_evaluate_as_parse_names_with_one_parser():
    """The same bad name gets the same message from both evaluators."""
    for name in ("P", "ndcg@0", "map(p=1)", "P@1.5", "mrr@" + "9" * 30):
        with pytest.raises(ValueError) as fast:
            evaluate(QRELS, RUN, metrics=[name])
        with pytest.raises(ValueError) as readable:
            evaluate_as(QRELS, RUN, metrics=[name], conventions="seeds")
        assert str(fast.value) == str(readable.value)
    with pytest.raises(ValueError, match="unknown metric 'precision@10'; the known metrics "
                                         "are: P@k, recall@k, f1@k, hit_rate@k, mrr, mrr@k, "
                                         "map, map@k, ndcg, ndcg@k, dcg@k [(]k a positive"):
        evaluate_as(QRELS, RUN, metrics=["precision@10"], conventions="seeds")
