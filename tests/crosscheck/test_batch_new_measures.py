"""rm.evaluate's measures of issue 12: rprec, iprec@r, 11pt, bpref, judged@k, err@k, rbp.

Three kinds of expected values:

* the readable single-query functions (order_aware.r_precision,
  interpolated_precision, eleven_point_average_precision; incomplete.bpref,
  judged_at_k; user_models.err_at_k, rank_biased_precision, rbp_residual),
  which define the measures, on hundreds of random queries with ties,
  grades -2..4, unjudged documents and queries without relevant documents;
  the ranking is built here, independently of the library (score as a
  32-bit float descending, ties by document id descending);
* pytrec_eval (trec_eval's C code) for Rprec, iprec_at_recall, 11pt_avg
  and bpref; ir_measures' judged provider for Judged@k, its gdeval provider
  (gdeval.pl) for ERR@k and its cwl_eval provider (cwl-eval) for RBP;
* hand arithmetic for the bad-input messages.
"""

import math
import shutil

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ragmetrics_edu as rm
from ragmetrics_edu.retrieval.incomplete import bpref, judged_at_k
from ragmetrics_edu.retrieval.order_aware import (
    eleven_point_average_precision,
    interpolated_precision,
    r_precision,
)
from ragmetrics_edu.retrieval.user_models import err_at_k, rank_biased_precision, rbp_residual

POOL = [str(i) for i in range(1, 40)] + list("abcdefgh") + ["A", "B", "d1", "d10", "d9"]
LEVELS = [0.0, 0.05, 0.1, 0.3, 0.5, 0.75, 1.0]


def collection(seed, n_queries=300, *, ties=True, negative_only=True):
    """Random qrels and run: ties, grades -2..4, unjudged documents, empty rankings."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        qid = str(q + 1)
        n_ret = int(rng.integers(1 if q % 37 else 0, 30))  # a few empty rankings
        docs = [POOL[i] for i in rng.choice(len(POOL), n_ret, replace=False)]
        if ties and rng.random() < 0.5:
            scores = rng.integers(0, 4, n_ret).astype(float)  # many ties
        else:
            scores = rng.permutation(n_ret) + 0.5  # distinct, exact as float32
        run[qid] = {d: float(s) for d, s in zip(docs, scores)}
        judged = [POOL[i] for i in rng.choice(len(POOL), int(rng.integers(1, 25)), replace=False)]
        high = 1 if rng.random() < 0.15 else 5  # some queries: nothing relevant
        qrels[qid] = {d: int(g) for d, g in zip(judged, rng.integers(-2, high, len(judged)))}
        if not negative_only and max(qrels[qid].values()) < 0:
            qrels[qid][judged[0]] = 0  # pytrec_eval 0.5 misbehaves on negative-only queries
    return qrels, run


def ranked(judgements, scores, precision="float32"):
    """Grades in trec_eval's order (None for unjudged), written apart from the library."""
    cast = np.float32 if precision == "float32" else float
    order = sorted(scores, key=lambda d: (cast(scores[d]), d), reverse=True)
    return [judgements.get(d) for d in order]


def binary(rels):
    """Grades for the PR-curve functions: unjudged and negative count as 0."""
    return [0 if g is None else max(g, 0) for g in rels]


def expected_values(judgements, rels, convention="trec_eval_9"):
    """Every new measure of one query, by the readable functions."""
    n_rel = sum(g >= 1 for g in judgements.values())
    n_nonrel = sum(g == 0 for g in judgements.values())
    flat = binary(rels)
    out = {"rprec": r_precision(flat, n_rel), "bpref": bpref(rels, n_rel, n_nonrelevant=n_nonrel),
           "11pt": eleven_point_average_precision(flat, n_rel, convention=convention),
           "judged": judged_at_k(rels)}
    for level in LEVELS:
        out[f"iprec@{level}"] = interpolated_precision(flat, n_rel, recall=level, convention=convention)
    for k in (1, 3, 10, 50):
        out[f"judged@{k}"] = judged_at_k(rels, k)
        out[f"err@{k}"] = err_at_k(rels, k)
    out["err"] = err_at_k(rels)
    out["err(max_grade=6)@10"] = err_at_k(rels, 10, max_grade=6)
    for p in (0.5, 0.8, 0.95):
        out[f"rbp(p={p})"] = rank_biased_precision(rels, p)
        out[f"rbp_residual(p={p})"] = rbp_residual(rels, p)
        out[f"rbp(p={p}, relevance=graded)"] = rank_biased_precision(rels, p, relevance="graded")
    out["rbp"] = rank_biased_precision(rels)
    out["rbp(relevance=graded,max_grade=5)"] = rank_biased_precision(rels, relevance="graded", max_grade=5)
    return out


NAMES = list(expected_values({"a": 1}, [1]))


@pytest.mark.parametrize("seed", [0, 1])
def test_fast_path_equals_the_readable_functions(seed):
    qrels, run = collection(seed)
    report = rm.evaluate(qrels, run, metrics=NAMES + ["map", "ndcg@10"])
    assert set(report.per_query) == set(run)
    for qid, values in report.per_query.items():
        want = expected_values(qrels[qid], ranked(qrels[qid], run[qid]))
        for name in NAMES:
            assert values[name] == pytest.approx(want[name], rel=1e-12, abs=1e-12), (qid, name)


def test_trec_eval10_reads_recall_levels_as_trec_eval_10():
    # near-equal doubles, and levels where trec_eval 9 and 10 count differently
    qrels, run = collection(5, n_queries=200)
    rng = np.random.default_rng(6)
    run = {q: {d: s + float(rng.choice([0.0, 1e-12, 2e-12])) for d, s in docs.items()}
           for q, docs in run.items()}
    report = rm.evaluate(qrels, run, metrics=NAMES, conventions="trec_eval_10")
    differs = 0
    for qid, values in report.per_query.items():
        rels = ranked(qrels[qid], run[qid], precision="float64")
        want = expected_values(qrels[qid], rels, convention="trec_eval_10")
        for name in NAMES:
            assert values[name] == pytest.approx(want[name], rel=1e-12, abs=1e-12), (qid, name)
        nine = expected_values(qrels[qid], ranked(qrels[qid], run[qid]))
        differs += any(abs(nine[n] - want[n]) > 1e-9 for n in NAMES)
    assert differs >= 20  # the collection tells trec_eval 9 and 10 apart


# ------------------------------------------------------------ the references

pytrec_eval = pytest.importorskip("pytrec_eval")


def test_equal_to_pytrec_eval():
    qrels, run = collection(11, negative_only=False)
    measures = {"Rprec", "iprec_at_recall", "11pt_avg", "bpref"}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    names = {"rprec": "Rprec", "11pt": "11pt_avg", "bpref": "bpref"}
    names.update({f"iprec@{level / 10}": f"iprec_at_recall_{level / 10:.2f}" for level in range(11)})
    ours = rm.evaluate(qrels, run, metrics=list(names))
    assert len(theirs) >= 250
    for qid, values in theirs.items():
        for name, measure in names.items():
            if name == "11pt" and not run[qid]:
                # trec_eval divides 0 relevant retrieved by 0 retrieved: NaN;
                # we (and order_aware.eleven_point_average_precision) say 0
                assert math.isnan(values[measure]) and ours.per_query[qid][name] == 0.0
                continue
            assert ours.per_query[qid][name] == pytest.approx(
                values[measure], abs=1e-12), (qid, name)


ir_measures = pytest.importorskip("ir_measures")


def test_judged_equals_ir_measures():
    # distinct scores: ir_measures' judged provider has its own order of ties
    qrels, run = collection(12, ties=False)
    run = {q: docs for q, docs in run.items() if docs}  # ir_measures divides by 0 on {}
    ks = [1, 5, 10, 20]
    got = {}
    for m in ir_measures.judged.iter_calc([ir_measures.Judged @ k for k in ks], qrels, run):
        got.setdefault(m.query_id, {})[f"judged@{m.measure.params['cutoff']}"] = m.value
    ours = rm.evaluate(qrels, run, metrics=[f"judged@{k}" for k in ks])
    assert set(got) == set(ours.per_query)
    for qid, values in got.items():
        for name, value in values.items():
            assert ours.per_query[qid][name] == pytest.approx(value, abs=1e-12), (qid, name)


@pytest.mark.skipif(shutil.which("perl") is None, reason="gdeval needs perl")
def test_err_equals_gdeval():
    # gdeval orders ties by id descending too, with scores as doubles: the
    # generated scores are exact in float32, so the orders agree
    qrels, run = collection(13, negative_only=False)
    run = {q: docs for q, docs in run.items() if docs}
    ks = [1, 5, 20]
    got = {}
    for m in ir_measures.gdeval.iter_calc([ir_measures.ERR @ k for k in ks], qrels, run):
        got.setdefault(m.query_id, {})[f"err@{m.measure.params['cutoff']}"] = m.value
    ours = rm.evaluate(qrels, run, metrics=[f"err@{k}" for k in ks])
    assert len(got) >= 200  # gdeval leaves out queries without a positive grade
    for qid, values in ours.per_query.items():
        for name, value in values.items():
            if qid in got:  # gdeval prints 5 decimals
                assert value == pytest.approx(got[qid][name], abs=5.0001e-6), (qid, name)
            else:
                assert value == 0.0


def test_rbp_equals_cwl_eval():
    pytest.importorskip("cwl")
    qrels, run = collection(14, ties=False)
    run = {q: docs for q, docs in run.items() if docs}
    for p in (0.5, 0.8, 0.95):
        got = {m.query_id: m.value for m in ir_measures.cwl_eval.iter_calc(
            [ir_measures.RBP(p=p, rel=1)], qrels, run)}
        ours = rm.evaluate(qrels, run, metrics=[f"rbp(p={p})"])
        assert set(got) == set(ours.per_query)
        for qid, value in got.items():
            assert ours.per_query[qid][f"rbp(p={p})"] == pytest.approx(value, abs=1e-12), qid


# ------------------------------------------------------------ by hand

def test_by_hand():
    qrels = {"q": {"a": 1, "b": 0, "c": 2, "z": 3, "n": -1}}
    run = {"q": {"a": 0.5, "b": 0.5, "u": 0.3, "c": 0.1}}
    # trec_eval's order: b, a (tie, "b" > "a"), u (unjudged), c; R = 3, N = 1
    r = rm.evaluate(qrels, run, metrics=["rprec", "iprec@0.5", "bpref", "judged@3", "err@2",
                                 "rbp(p=0.5)", "rbp_residual(p=0.5)"]).per_query["q"]
    assert r["rprec"] == pytest.approx(1 / 3)  # a in the top 3
    assert r["iprec@0.5"] == pytest.approx(1 / 2)  # 2 relevant needed: c at rank 4, 2/4
    assert r["bpref"] == pytest.approx((0 + 0) / 3)  # b (non-relevant) above a and c; N = 1
    assert r["judged@3"] == pytest.approx(2 / 3)  # b, a judged; u not
    assert r["err@2"] == pytest.approx((1 / 2) * (2**1 - 1) / 2**4)  # a at rank 2
    assert r["rbp(p=0.5)"] == pytest.approx(0.5 * (0.5 + 0.5**3))  # a, c at ranks 2, 4
    # unjudged: u (rank 3), and everything beyond rank 4
    assert r["rbp_residual(p=0.5)"] == pytest.approx(0.5 * 0.5**2 + 0.5**4)


def test_names_with_parameters_and_defaults():
    qrels, run = collection(3, n_queries=50)
    r = rm.evaluate(qrels, run, metrics=["rbp", "rbp(p=0.8)", "rbp( p = 0.80 , relevance = binary )",
                                 "err@10", "err(max_grade=4)@10", "iprec@0.50", "iprec@.5"])
    for values in r.per_query.values():
        assert values["rbp"] == values["rbp(p=0.8)"] == values["rbp( p = 0.80 , relevance = binary )"]
        assert values["err@10"] == values["err(max_grade=4)@10"]
        assert values["iprec@0.50"] == values["iprec@.5"]
    assert r.metrics[0] == "rbp"


@pytest.mark.parametrize("name, message", [
    ("iprec@1.5", r"iprec: the recall level must be in \[0, 1\], got 1.5 in metric 'iprec@1.5'"),
    ("iprec@-0.1", "the recall level must be a decimal number such as 0.8, got '-0.1'"),
    ("iprec@nan", "the recall level must be a decimal number such as 0.8, got 'nan'"),
    ("iprec", r"needs a recall level, e.g. 'iprec@0.5'"),
    ("rbp(p=1)", r"rbp: the persistence p must be strictly between 0 and 1, got p=1.0"),
    ("rbp(p=0)", r"strictly between 0 and 1, got p=0.0 in metric 'rbp\(p=0\)'"),
    ("rbp_residual(p=1.5)", r"rbp_residual: the persistence p .* got p=1.5"),
    ("rbp(p=0.8, relevance=linear)", "the relevance of 'rbp.*' must be one of 'binary', 'graded'"),
    ("rbp(q=0.8)", r"rbp takes the parameters p=..., relevance=..., max_grade=..., got 'q=0.8'"),
    ("err(max_grade=0)@10", "err: max_grade must be a positive number, got 0.0"),
    ("err(max_grade=2000)@10", "err: max_grade must be at most 1023"),
    ("err(max_grade=1" + "0" * 400 + ")@10", r"max_grade must be a decimal number .*\(4\d\d characters\)"),
    ("map(p=0.8)", r"map takes no parameters"),
    ("rbp(p=0.8", r"the parameters must end with '\)'"),
    ("rprec@10", "takes no cut-off, write 'rprec'"),
    ("bpref@10", "takes no cut-off"),
    ("judged@0", "k must be a positive integer, got 0 in metric 'judged@0'"),
])
def test_bad_names_say_the_metric_and_the_value(name, message):
    with pytest.raises(ValueError, match=message):
        rm.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, metrics=[name])


@pytest.mark.parametrize("name", ["err@10", "rbp(relevance=graded)", "err(max_grade=3)"])
def test_max_grade_below_a_grade_of_the_qrels(name):
    # grade 5 is in the qrels but not retrieved: still above the scale's top
    qrels = {"q": {"a": 1, "z": 5}}
    with pytest.raises(ValueError, match=r"max_grade=[34] is below the largest grade in the "
                                         r"qrels, 5 \(document 'z' of query 'q'\)"):
        rm.evaluate(qrels, {"q": {"a": 1.0}}, metrics=[name])
    rm.evaluate(qrels, {"q": {"a": 1.0}}, metrics=["rbp"])  # binary RBP has no scale


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(POOL[:12]), st.integers(0, 3)), max_size=12,
                unique_by=lambda t: t[0]),
       st.dictionaries(st.sampled_from(POOL[:15]), st.integers(-2, 4), min_size=1, max_size=10))
def test_properties_one_query(scored, judgements):
    run = {"q": {d: float(s) for d, s in scored}}
    report = rm.evaluate({"q": judgements}, run, metrics=NAMES).per_query["q"]
    want = expected_values(judgements, ranked(judgements, run["q"]))
    for name in NAMES:
        assert report[name] == pytest.approx(want[name], rel=1e-12, abs=1e-12), name
        assert 0.0 <= report[name] <= 1.0 + 1e-12
    # RBP and its residual bound the RBP of any judging of the rest; with
    # every retrieved document judged, the residual is the weight beyond
    # the ranking alone
    assert report["rbp(p=0.5)"] + report["rbp_residual(p=0.5)"] <= 1.0 + 1e-12
    if all(d in judgements for d in run["q"]):
        assert math.isclose(report["rbp_residual(p=0.5)"], 0.5 ** len(run["q"]), abs_tol=1e-12)
