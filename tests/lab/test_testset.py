"""The test-set health report: by hand, against ranx, and on our QA set and its paraphrases."""

import math

import numpy as np
import pytest

import ragmetrics_edu as rm
from ragmetrics_edu.lab.qa_annotations import load_cranfield_paraphrases
from ragmetrics_edu.lab.testset import retrieval_difficulty, testset_report

ITEMS = [
    {"id": "q1", "question": "Which gas cooled best?", "answers": ["helium"], "doc_ids": ["d1"]},
    {"id": "q2", "question": "which gas cooled best", "answers": ["helium"], "doc_ids": ["d1"]},
    {"id": "q3", "question": "Did helium cool best at Mach 6?", "answers": ["mach 6", "helium"],
     "doc_ids": ["d2"]},
    {"id": "q4", "question": "How long is the orbit's lifetime?", "answers": ["about 6"], "doc_ids": ["d3"]},
]


def _fake_embed(texts):
    """Unit vectors: questions about gases point one way, the others elsewhere."""
    rows = []
    for t in texts:
        t = t.lower()
        v = np.array([1.0, 0.0, 0.0]) if "gas" in t else np.array([0.8, 0.6, 0.0]) if "helium" in t \
            else np.array([0.0, 0.0, 1.0])
        rows.append(v / np.linalg.norm(v))
    return np.array(rows)


def test_hand_example():
    run = {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d2": 2.0, "d1": 1.0},
           "q3": {"d1": 3.0, "d3": 2.0, "d4": 1.0, "d2": 0.5}, "q4": {}}
    r = testset_report(ITEMS, run=run, k=2, embed=_fake_embed, threshold=0.75)
    # first relevant ranks: 1, 2, 4, none -> HitRate@2 = 2/4, MRR = (1 + 1/2 + 1/4 + 0) / 4
    assert r.hit_rate == 0.5 and r.trivial == ["q1", "q2"]
    assert r.mrr == pytest.approx(1.75 / 4)
    assert r.duplicates == [("q1", "q2", 1.0)]       # equal once normalised
    # cosines: gas/gas 1.0 (the duplicate, not repeated), gas/helium 0.8 >= 0.75
    assert [(p.a, p.b) for p in r.near_duplicates] == [("q1", "q3"), ("q2", "q3")]
    assert r.near_duplicates[0].cosine == pytest.approx(0.8)
    assert r.answer_in_question == ["q3"]             # "mach 6" is in its question; "about 6" is not in q4
    assert r.question_types == {"which": 2, "did": 1, "how": 1}
    assert r.lengths == {"min": 4, "median": 5.0, "mean": 5.25, "max": 7}   # 4, 4, 6, 7 words
    text = str(r)
    assert "HitRate@2 = 0.500" in text and "answer written in the question: 1 (q3)" in text


def test_no_embeddings_without_a_threshold():
    def boom(texts):
        raise AssertionError("no embedding wanted")
    r = testset_report(ITEMS, run={}, threshold=None, embed=boom)
    assert r.near_duplicates == [] and math.isnan(r.threshold)
    assert r.hit_rate == 0.0 and r.mrr == 0.0


def test_bad_input():
    with pytest.raises(ValueError, match=r"items\[0\] needs a string 'id'"):
        testset_report([{"question": "x?"}], run={}, threshold=None)
    with pytest.raises(ValueError, match=r"repeats the id 'q1'"):
        testset_report([ITEMS[0], ITEMS[0]], run={}, threshold=None)
    with pytest.raises(ValueError, match="at least one question"):
        testset_report([], run={}, threshold=None)
    with pytest.raises(ValueError, match="retriever must be 'bm25' or 'dense'"):
        testset_report(ITEMS, docs={"d1": "x"}, retriever="tfidf", threshold=None)
    with pytest.raises(ValueError, match="k must be a positive integer"):
        testset_report(ITEMS, run={}, k=0, threshold=None)


@pytest.mark.parametrize("kwargs, error, rule", [
    # before: AttributeError "'list' object has no attribute 'get'"
    (dict(run=["x"]), TypeError, r"run must be a dict \{qid: \{docid: score\}\}, got list"),
    (dict(run={"q1": ["d1"]}), TypeError, r"run\['q1'\] must be a dict \{docid: score\}"),
    (dict(run={"q1": {"d1": "high"}}), TypeError, r"run\['q1'\]\['d1'\] must be a number"),
    (dict(run={"q1": {"d1": math.nan}}), ValueError, r"run\['q1'\]\['d1'\] is NaN"),
    # before: a string threshold was accepted, and NaN compared false everywhere
    (dict(run={}, threshold="0.9"), TypeError, "threshold must be None or a cosine in "
                                               r"\[-1, 1\], got '0.9'"),
    (dict(run={}, threshold=math.nan), ValueError, r"threshold must be .*, got nan"),
    (dict(run={}, threshold=1.5), ValueError, r"threshold must be .*, got 1.5"),
    (dict(run={}, threshold=True), TypeError, r"threshold must be .*, got True"),
    # before: TypeError "'int' object is not callable"
    (dict(run={}, embed=3), TypeError, "embed must be a callable embed.texts. -> "
                                       r"\(n, dim\) vectors, got 3"),
    (dict(run={}, embed=lambda texts: [[1.0, 0.0]]), ValueError,
     r"embed returned an array of shape \(1, 2\) for 4 questions"),
    (dict(run={}, embed=lambda texts: [[math.nan, 1.0]] * len(texts)), ValueError,
     "embed returned vectors that are not finite"),
    (dict(run={}, embed=lambda texts: ["a"] * len(texts)), ValueError,
     "embed must return numbers"),
])
def test_bad_run_threshold_and_embed_are_named(kwargs, error, rule):
    with pytest.raises(error, match=rule):
        testset_report(ITEMS, **kwargs)


@pytest.fixture(scope="module")
def cranfield_runs():
    pytest.importorskip("bm25s")
    from ragmetrics_edu.lab.retrievers import bm25_run
    docs = rm.load_cranfield().docs
    original = rm.load_cranfield_qa()
    twins = load_cranfield_paraphrases()
    runs = {name: bm25_run(docs, {i.id: i.question for i in items}, depth=100)
            for name, items in (("original", original), ("twins", twins))}
    return original, twins, runs


def test_our_set_is_trivial_for_bm25_and_its_twins_are_not(cranfield_runs):
    original, twins, runs = cranfield_runs
    before = testset_report(original, run=runs["original"], threshold=None)
    after = testset_report(twins, run=runs["twins"], threshold=None)
    assert before.hit_rate == 1.0 and len(before.trivial) == 68      # the flaw
    assert after.hit_rate < 0.5 and after.mrr < before.mrr
    assert before.answer_in_question == [] and before.duplicates == []


def test_difficulty_equals_ranx(cranfield_runs):
    ranx = pytest.importorskip("ranx")
    original, twins, runs = cranfield_runs
    for items, name in ((original, "original"), (twins, "twins")):
        qrels = {i.id: {d: 1 for d in i.doc_ids} for i in items}
        hit, mrr, _ = retrieval_difficulty(runs[name], qrels, k=3)
        theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(runs[name]), ["hit_rate@3", "mrr"])
        assert hit == pytest.approx(theirs["hit_rate@3"], abs=1e-12)
        assert mrr == pytest.approx(theirs["mrr"], abs=1e-12)
