"""iprec and 11pt on an empty ranking (issue 23, item 3): trec_eval gives NaN, this library 0, and says so.

trec_eval's ``iprec_at_recall`` starts from the precision of the whole
ranking, ``num_rel_ret / num_ret``: 0/0, NaN, for a ranking ``{}``, which
it gives at the levels it counts as reached (level 0 always), 0 at the
others; ``11pt_avg``, their average, is NaN.  (pytrec_eval's value at level
0 depends on the measures asked with it: its C code divides 0 by 0.)  The
library gives 0, as the readable functions do, and documents it where
``iprec`` and ``11pt`` are documented.  Everywhere else the values are
pytrec_eval's.
"""

import math

import numpy as np
import pytest

import ragmetrics_edu as rm
from ragmetrics_edu.retrieval import order_aware
from ragmetrics_edu.retrieval.batch import evaluate, evaluator

pytrec_eval = pytest.importorskip("pytrec_eval")

_LEVELS = [i / 10 for i in range(11)]


def _collection(seed, n_queries=60):
    """Random qrels and run with empty rankings, queries without relevant documents, ties."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        ids = [f"d{i}" for i in rng.choice(200, size=40, replace=False).tolist()]
        depth = 0 if q % 4 == 0 else int(rng.integers(1, 30))
        run[f"q{q}"] = {d: float(rng.integers(0, 6)) for d in ids[:depth]}
        top = 1 if q % 5 else 0  # a fifth judged with grade 0 only
        qrels[f"q{q}"] = {d: int(rng.integers(0, top + 2)) if top else 0
                          for d in ids[int(rng.integers(0, 20)):][:15]}
    return qrels, run


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_iprec_and_11pt_equal_pytrec_eval_but_on_empty_rankings(seed):
    qrels, run = _collection(seed)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall", "11pt_avg"}).evaluate(run)
    names = [f"iprec@{level}" for level in _LEVELS] + ["11pt"]
    ours = evaluate(qrels, run, metrics=names)
    empty = [qid for qid in theirs if not run[qid]]
    assert empty, "the collection must hold empty rankings"
    for qid, values in theirs.items():
        trec = [values[f"iprec_at_recall_{level:.2f}"] for level in _LEVELS] + [values["11pt_avg"]]
        mine = [ours.per_query[qid][name] for name in names]
        if qid in empty:
            # trec_eval: 0 relevant of 0 retrieved, NaN (or 0 at a level
            # not reached), and NaN for 11pt; documented 0 here
            assert all(math.isnan(v) or v == 0.0 for v in trec) and math.isnan(trec[-1]), qid
            assert mine == [0.0] * len(names), qid
        else:
            assert mine == pytest.approx(trec, abs=1e-12), qid
    # the mean counts an empty ranking as 0 (trec_eval's mean would be NaN)
    for name in names:
        assert ours.mean[name] == pytest.approx(
            sum(ours.per_query[q][name] for q in theirs) / len(theirs), abs=1e-12)
        assert not math.isnan(ours.mean[name])


def test_the_issue_s_reproduction():
    # one empty ranking, one perfect: trec_eval's mean would be NaN, ours 0.5
    qrels = {"q": {"a": 1, "b": 0}, "r": {"a": 1}}
    run = {"q": {}, "r": {"a": 1.0}}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"11pt_avg"}).evaluate(run)
    assert math.isnan(theirs["q"]["11pt_avg"]) and theirs["r"]["11pt_avg"] == 1.0
    report = evaluate(qrels, run, metrics=["iprec@0", "iprec@0.5", "11pt"])
    for name in ("iprec@0", "iprec@0.5", "11pt"):
        assert report.per_query["q"][name] == 0.0
        assert report.mean[name] == 0.5
    # the readable function agrees with the batch path
    assert rm.interpolated_precision([], 1, recall=0.5) == 0.0


def test_the_choice_is_documented_where_iprec_is():
    # the batch evaluator's list of measures and interpolated_precision's
    # Returns name trec_eval's NaN and the 0 given here
    entry = evaluator.__doc__.split("* ``iprec@0.5``")[1].split("* ``11pt``")[0]
    assert "NaN" in entry and "empty ranking" in entry and "0 at every level here" in entry
    returns = order_aware.interpolated_precision.__doc__.split("Returns")[1].split("Raises")[0]
    assert "NaN" in returns and "empty" in returns
