"""Check cells refuse the wrong answers a student is likely to give.

Each test takes a check cell's code from the student notebook, runs it in a
namespace holding the imports the notebook made and a wrong answer, and
asserts that the check refuses it with a message that names the mistake
(and does not give the right answer away).  The right answer, run the same
way, passes, so each refusal is the check's doing.
"""

import math
from pathlib import Path

import nbformat
import numpy as np
import pytest

import ragmetrics_edu as rm
from ragmetrics_edu.course.exercises import ExerciseFailed

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"


def _check_cell(notebook, docstring_start):
    """The source of the code cell of ``notebook`` that starts with ``docstring_start``."""
    nb = nbformat.read(next(NOTEBOOKS.glob(notebook)), as_version=4)
    found = [c.source for c in nb.cells
             if c.cell_type == "code" and c.source.startswith('"""' + docstring_start)]
    assert len(found) == 1, f"{notebook}: {len(found)} check cells start with {docstring_start!r}"
    return found[0]


def _run(source, **names):
    namespace = {"rm": rm, "math": math, "np": np, **names}
    exec(compile(source, "<check cell>", "exec"), namespace)
    return namespace


# --- 03, exercise 2: NDCG with the ideal from all judged documents -----------------------

def _ndcg(ideal_cut_at_k):
    def my_ndcg_at_k(rels, judged, k):
        def dcg(grades, cut=True):
            grades = grades[:k] if cut else grades
            return sum(g / math.log2(i + 1) for i, g in enumerate(grades, start=1))
        ideal = dcg(sorted(judged, reverse=True), cut=ideal_cut_at_k)
        return 0.0 if ideal == 0 else dcg(rels) / ideal
    return my_ndcg_at_k


def test_03_ex2_an_ideal_not_cut_at_k_gets_the_hint_that_names_it():
    source = _check_cell("03_*.ipynb", "Check exercise 2")
    _run(source, my_ndcg_at_k=_ndcg(ideal_cut_at_k=True))
    with pytest.raises(ExerciseFailed) as refused:
        _run(source, my_ndcg_at_k=_ndcg(ideal_cut_at_k=False))
    message = str(refused.value)
    assert "ideal ranking is cut at k" in message, message
    assert "log2(2)" not in message, message  # not the discount's hint


# --- 07, exercise 3: reciprocal rank fusion ------------------------------------------------

def _rrf(tie_by_id):
    def my_rrf(rankings, k=60):
        scores = {}
        for ranking in rankings:
            for rank, doc in enumerate(ranking, start=1):
                scores[doc] = scores.get(doc, 0.0) + 1 / (k + rank)
        if tie_by_id:
            return sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))
        return sorted(scores.items(), key=lambda pair: -pair[1])  # stable: first seen first
    return my_rrf


def test_07_ex3_ties_in_insertion_order_are_refused():
    source = _check_cell("07_*.ipynb", "Check exercise 3")
    _run(source, my_rrf=_rrf(tie_by_id=True))
    with pytest.raises(ExerciseFailed, match="by id"):
        _run(source, my_rrf=_rrf(tie_by_id=False))


# --- 07, exercise 4: tune BM25 on the odd queries only -------------------------------------

@pytest.fixture(scope="module")
def lab():
    from ragmetrics_edu.lab import retrievers as rr
    from ragmetrics_edu.lab.datasets import load_cranfield

    return {"rr": rr, "cran": load_cranfield()}


def test_07_ex4_tuning_on_every_query_is_refused(lab):
    rr, cran = lab["rr"], lab["cran"]

    def tune_bm25(grid):  # the mistake the exercise warns against: all 225 queries
        scores = {kb: rm.evaluate(cran.qrels, rr.bm25_run(cran.docs, cran.queries, k1=kb[0], b=kb[1],
                                                          top_k=100), ["ndcg@10"]).mean["ndcg@10"]
                  for kb in grid}
        return max(grid, key=scores.get)

    real_evaluate = rm.evaluate
    with pytest.raises(ExerciseFailed, match="held-out") as refused:
        _run(_check_cell("07_*.ipynb", "Check exercise 4"), tune_bm25=tune_bm25, **lab)
    assert rm.evaluate is real_evaluate, "the check left rm.evaluate patched"
    assert "(2.0, 0.75)" not in str(refused.value)


def test_07_ex4_a_wrong_pick_is_refused_without_printing_the_answer(lab):
    def tune_bm25(grid):  # scores nothing, returns the last pair
        return grid[-1]

    with pytest.raises(ExerciseFailed) as refused:
        _run(_check_cell("07_*.ipynb", "Check exercise 4"), tune_bm25=tune_bm25, **lab)
    message = str(refused.value)
    assert "(0.9, 0.75)" not in message and "(2.0, 0.75)" not in message, message
    assert "higher mean NDCG@10" in message, message


# --- 07, exercise 5: significant, yet tiny -------------------------------------------------

def test_07_ex5_a_zero_variance_difference_is_refused():
    from ragmetrics_edu.lab import significance as sig

    source = _check_cell("07_*.ipynb", "Check exercise 5")
    a = [0.05 * i for i in range(1, 11)]
    _run(source, sig=sig, scores_a=a, scores_b=[s + 0.005 + 0.0001 * (i % 2) for i, s in enumerate(a)])
    for wrong_a, wrong_b in ((a, [s + 0.005 for s in a]),   # the same gain, up to rounding noise
                             ([0.5] * 10, [0.505] * 10)):     # exactly the same gain
        with pytest.raises(ExerciseFailed, match="s_d = 0"):
            _run(source, sig=sig, scores_a=wrong_a, scores_b=wrong_b)


# --- 04, exercise 3: sentence BLEU's reference length ----------------------------------------

def _sentence_bleu(pick_r):
    def sentence_bleu(candidate, references, max_n=4):
        precisions = [rm.modified_precision(candidate, references, n) for n in range(1, max_n + 1)]
        if min(precisions) == 0:
            return 0.0
        c = len(candidate.split())
        r = pick_r(c, [len(ref.split()) for ref in references])
        bp = 1.0 if c >= r else math.exp(1 - r / c)
        return bp * math.exp(sum(math.log(p) for p in precisions) / max_n)
    return sentence_bleu


def test_04_ex3_the_shortest_reference_length_is_refused():
    source = _check_cell("04_*.ipynb", "Check exercise 3")
    _run(source, sentence_bleu=_sentence_bleu(
        lambda c, lengths: min(lengths, key=lambda length: (abs(length - c), length))))
    # r = the shortest reference: right whenever the shortest is also the closest
    with pytest.raises(ExerciseFailed) as refused:
        _run(source, sentence_bleu=_sentence_bleu(lambda c, lengths: min(lengths)))
    message = str(refused.value)
    assert "CLOSEST" in message and "need not be the shortest" in message, message
