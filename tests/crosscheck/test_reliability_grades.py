"""Grades under every preset (issue 23, item 2): each library's reading of a grade, and its refusals.

scikit-learn takes real gains as given (``ndcg_score``, ``dcg_score``),
refuses an infinite grade, and a negative one in ``ndcg_score`` only;
ranx stores grades as 64-bit integers, cut toward zero, and drops those
below 1; trec_eval reads integer relevance levels.  The references are the
libraries themselves, on random real-valued and negative grades; a refused
grade must name its query, its document and the grade.
"""

import math
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ragmetrics_edu as rm
from ragmetrics_edu.retrieval import conventions
from ragmetrics_edu.retrieval.conventions import PRESETS, Conventions, evaluate_as

skm = pytest.importorskip("sklearn.metrics")

_GRADES = st.one_of(
    st.floats(min_value=-3, max_value=4, allow_nan=False),
    st.sampled_from([0.999, 1.0, 0.5, 2.5, -0.5, -1.0, 0.0]),
    st.integers(-2, 3),
)


@st.composite
def _queries(draw, min_docs=2, max_docs=12, distinct=False):
    """Qrels and run of a few queries: real grades, some documents unjudged, ties unless ``distinct``."""
    qrels, run = {}, {}
    for q in range(draw(st.integers(1, 4))):
        n = draw(st.integers(min_docs, max_docs))
        docs = [f"d{i}" for i in range(n)]
        if distinct:
            scores = draw(st.permutations(range(n)))
        else:
            scores = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
        run[f"q{q}"] = {d: float(s) for d, s in zip(docs, scores)}
        judged = draw(st.lists(st.sampled_from(docs), min_size=1, max_size=n, unique=True))
        qrels[f"q{q}"] = {d: draw(_GRADES) for d in judged}
    return qrels, run


def test_the_issue_s_reproduction():
    # grades 2.5, 0.5, 1 ranked b, c, a: scikit-learn's ndcg_score gives
    # real gains (0.7042); truncating them gave 0.6199
    qrels = {"q": {"a": 2.5, "b": 0.5, "c": 1}}
    run = {"q": {"a": 0.1, "b": 0.9, "c": 0.5}}
    theirs = skm.ndcg_score([[2.5, 0.5, 1]], [[0.1, 0.9, 0.5]], k=3)
    assert round(theirs, 4) == 0.7042
    assert rm.evaluate(qrels, run, metrics=["ndcg@3"], conventions="sklearn").mean["ndcg@3"] == \
        pytest.approx(theirs, abs=1e-12)
    # 0.999 is a gain of 0.999 for scikit-learn, not 0
    qrels = {"q": {"a": 0.999, "b": 1}}
    run = {"q": {"a": 0.9, "b": 0.1}}
    ours = evaluate_as(qrels, run, metrics=["dcg@2"], conventions="sklearn").mean["dcg@2"]
    assert ours == pytest.approx(skm.dcg_score([[0.999, 1]], [[0.9, 0.1]], k=2, log_base=2))
    assert ours > 1.0


def _sklearn_inputs(qrels, run, qid):
    docs = list(run[qid])
    return [qrels[qid].get(d, 0) for d in docs], [run[qid][d] for d in docs]


@settings(max_examples=200, deadline=None)
@given(data=_queries(), k=st.sampled_from([1, 3, 5, None]))
def test_sklearn_preset_equals_scikit_learn_on_real_and_negative_grades(data, k):
    qrels, run = data
    ndcg, dcg = ("ndcg" if k is None else f"ndcg@{k}"), f"dcg@{k or 20}"
    for qid in run:
        y_true, y_score = _sklearn_inputs(qrels, run, qid)
        # dcg: negative grades are negative gains
        theirs = skm.dcg_score([y_true], [y_score], k=k or 20, log_base=2)
        ours = evaluate_as({qid: qrels[qid]}, {qid: run[qid]}, metrics=[dcg], conventions="sklearn").mean[dcg]
        assert ours == pytest.approx(theirs, rel=1e-9, abs=1e-12)
        # ndcg: refused by both if a grade it reads is negative
        if min(y_true) < 0:
            with pytest.raises(ValueError, match="negative"):
                skm.ndcg_score([y_true], [y_score], k=k)
            with pytest.raises(ValueError, match=f"negative.*of query {qid!r}") as error:
                evaluate_as({qid: qrels[qid]}, {qid: run[qid]}, metrics=[ndcg], conventions="sklearn")
            named = re.search(r"got (\S+) for document '(\w+)'", str(error.value))
            assert qrels[qid][named[2]] == float(named[1]) < 0  # the document and its grade
        else:
            theirs = skm.ndcg_score([y_true], [y_score], k=k)
            ours = evaluate_as({qid: qrels[qid]}, {qid: run[qid]}, metrics=[ndcg], conventions="sklearn").mean[ndcg]
            assert ours == pytest.approx(theirs, rel=1e-9, abs=1e-12)
        # AP: relevant means a grade >= 1 (average_precision_score wants labels)
        with warnings.catch_warnings():  # no positive label: a warning and 0
            warnings.simplefilter("ignore")
            theirs = skm.average_precision_score([int(g >= 1) for g in y_true], y_score)
        ours = evaluate_as({qid: qrels[qid]}, {qid: run[qid]}, metrics=["map"], conventions="sklearn").mean["map"]
        assert ours == pytest.approx(theirs, rel=1e-9, abs=1e-12)


_RANX_NAMES = {"ndcg@5": "ndcg@5", "ndcg": "ndcg", "map": "map", "P@3": "precision@3",
               "recall@5": "recall@5", "mrr": "mrr"}


@settings(max_examples=60, deadline=None)
@given(data=_queries(max_docs=15, distinct=True))
def test_ranx_preset_equals_ranx_on_real_and_negative_grades(data):
    # ranx's Qrels cut grades toward zero (2.5 is 2, 0.999 is 0, -1.5 is
    # -1) and its metrics drop those below 1
    ranx = pytest.importorskip("ranx")
    qrels, run = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (ranx warns about queries without relevant documents)
        theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), list(_RANX_NAMES.values()),
                               return_mean=False, make_comparable=True)
    ours = evaluate_as(qrels, run, metrics=list(_RANX_NAMES), conventions="ranx").per_query
    qids = sorted(run)  # ranx's order of queries
    for name, ranx_name in _RANX_NAMES.items():
        values = np.atleast_1d(theirs[ranx_name])
        for qid, value in zip(qids, values):
            assert ours[qid][name] == pytest.approx(float(value), abs=1e-12), (qid, name)


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("grade", [math.inf, -math.inf, 1e300, 2**70])
def test_a_grade_no_library_takes_is_refused_by_name(preset, grade):
    # inf raised a bare OverflowError (int(inf)); now every preset names
    # the query, the document and the grade (scikit-learn takes 1e300 and
    # 2**70 as real gains, and trec_eval-like presets as integer levels)
    qrels = {"q": {"doc-a": grade, "b": 1}}
    run = {"q": {"doc-a": 0.5, "b": 0.4}}
    conv = PRESETS[preset]
    metric = "map" if "map" in conv.metrics else "ndcg"  # (gdeval scores no map)
    takes = (conv.grades == "real" and math.isfinite(grade)) or (
        conv.grades == "integer" and math.isfinite(grade))
    if takes and conv.gain == "exponential":  # 2**grade is no float: refused, naming the grade
        with pytest.raises(ValueError, match="overflows a float for grade"):
            evaluate_as(qrels, run, metrics=[metric], conventions=preset)
        return
    if takes:
        evaluate_as(qrels, run, metrics=[metric], conventions=preset)
        return
    with pytest.raises(ValueError, match=r"'doc-a' of query 'q'") as error:
        evaluate_as(qrels, run, metrics=[metric], conventions=preset)
    assert f"got {grade!r} for" in str(error.value)


def test_ranx_refuses_what_it_cannot_store():
    ranx = pytest.importorskip("ranx")
    for grade in (math.inf, 1e300, 2**70):
        with pytest.raises(OverflowError):
            ranx.Qrels({"q": {"a": grade}})


@pytest.mark.parametrize("preset", ["trec_eval", "trec_eval_c", "trec_eval_10", "seeds", "ragas"])
def test_integer_presets_refuse_a_fractional_grade_and_read_2_0_as_2(preset):
    # pytrec_eval refuses 2.5 ("Expected relevance to be integer"); these
    # presets used to cut it to 2 silently
    run = {"q": {"a": 0.9, "b": 0.1}}
    with pytest.raises(ValueError, match=r"2\.5 for document 'a' of query 'q'"):
        evaluate_as({"q": {"a": 2.5, "b": 1}}, run, metrics=["map"], conventions=preset)
    as_float = evaluate_as({"q": {"a": 2.0, "b": 0.0}}, run, metrics=["map"], conventions=preset).mean
    assert as_float == evaluate_as({"q": {"a": 2, "b": 0}}, run, metrics=["map"], conventions=preset).mean


def test_every_preset_says_how_it_reads_grades():
    assert {name: conv.grades for name, conv in PRESETS.items()} == {
        "trec_eval": "integer", "trec_eval_c": "integer", "trec_eval_10": "integer",
        "ranx": "truncated", "sklearn": "real", "seeds": "integer", "gdeval": "integer",
        "ragas": "integer"}
    # where each library does it, said where the presets are documented
    documented = Conventions.__doc__.split("grades :")[1]
    assert "np.array(scores, dtype=int)" in documented and "clean_qrels" in documented
    assert "ndcg_score" in documented and "dcg_score" in documented
    assert "``grades``" in conventions.__doc__.split("Examples")[0]  # the table of choices
