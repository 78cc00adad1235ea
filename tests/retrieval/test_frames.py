"""Data frames in: ``evaluate``, ``evaluate_as`` and ``compare`` take tables with ir_measures' columns.

A qrels frame has the columns ``query_id``, ``doc_id``, ``relevance``; a run
frame ``query_id``, ``doc_id``, ``score`` (ir_measures' names).  A pandas
DataFrame, a polars DataFrame or an Arrow table (anything with
``to_pandas``) gives the numbers the nested dicts give.  pandas stays
optional: ``tests/test_package.py`` imports every module without it.
"""

import numpy as np
import pytest

import ragmetrics_edu as rm
from ragmetrics_edu.retrieval.conventions import compare, evaluate_as

pd = pytest.importorskip("pandas")

METRICS = ["P@5", "map", "ndcg@10", "mrr", "bpref", "err@5"]


def _collection(seed=0, n_queries=30, lowest=-1):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        docs = [f"d{i}" for i in rng.permutation(200)[:int(rng.integers(1, 40))]]
        run[f"q{q}"] = {d: float(rng.integers(0, 6)) / 2 for d in docs}  # ties
        judged = docs[: len(docs) // 2] + [f"x{i}" for i in range(3)]
        qrels[f"q{q}"] = {d: int(rng.integers(lowest, 4)) for d in judged}
    qrels["only judged"] = {"d1": 1}
    run["only run"] = {"d1": 1.0}
    return qrels, run


def _frame(nested, value):
    rows = [(q, d, v) for q, docs in nested.items() for d, v in docs.items()]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", value])


class _Table:
    """A table that is not pandas but has ``to_pandas``, as polars and Arrow tables do."""

    def __init__(self, frame):
        self.frame = frame

    def to_pandas(self):
        return self.frame


def test_pandas_frames_give_the_dict_numbers():
    qrels, run = _collection()
    want = rm.evaluate(qrels, run, metrics=METRICS)
    for q, r in ((_frame(qrels, "relevance"), _frame(run, "score")),
                 (qrels, _frame(run, "score")), (_frame(qrels, "relevance"), run),
                 (_Table(_frame(qrels, "relevance")), _Table(_frame(run, "score")))):
        got = rm.evaluate(q, r, metrics=METRICS)
        assert got.per_query == want.per_query and got.mean == want.mean
        assert got.unjudged_queries == want.unjudged_queries
        assert got.missing_queries == want.missing_queries


def test_evaluate_as_and_compare_take_frames():
    qrels, run = _collection(1, lowest=0)  # (scikit-learn's ndcg refuses a negative grade)
    frames = _frame(qrels, "relevance"), _frame(run, "score")
    for preset in ("trec_eval", "ranx", "sklearn", "seeds"):
        metrics = ["map", "ndcg@5"]
        assert (evaluate_as(*frames, metrics=metrics, conventions=preset).per_query
                == evaluate_as(qrels, run, metrics=metrics, conventions=preset).per_query)
    assert compare(*frames, metrics=["map", "P@5"]) == compare(qrels, run, metrics=["map", "P@5"])
    # ranx keeps the order of the rows for tied scores, as it keeps a dict's
    assert rm.evaluate(*frames, metrics=["map"], conventions="ranx").mean == rm.evaluate(
        qrels, run, metrics=["map"], conventions="ranx").mean


@pytest.mark.parametrize("library", ["polars", "pyarrow"])
def test_polars_and_arrow_tables(library):
    module = pytest.importorskip(library)
    qrels, run = _collection(2)
    if library == "polars":
        table = module.from_pandas
    else:
        table = module.Table.from_pandas
    got = rm.evaluate(table(_frame(qrels, "relevance")), table(_frame(run, "score")), metrics=METRICS)
    want = rm.evaluate(qrels, run, metrics=METRICS)
    assert got.per_query == want.per_query and got.mean == want.mean


def test_frames_that_do_not_fit_are_refused_naming_what_is_wrong():
    qrels, run = _collection(3)
    frame = _frame(run, "score").rename(columns={"score": "sim"})
    with pytest.raises(ValueError, match=r"run as a data frame needs the columns 'query_id', "
                                         r"'doc_id', 'score' .* 'score' missing"):
        rm.evaluate(qrels, frame, metrics=["map"])
    twice = pd.concat([_frame(run, "score").iloc[:1]] * 2)
    with pytest.raises(ValueError, match=r"run: document 'd\d+' of query 'q0' is on two rows"):
        rm.evaluate(qrels, twice, metrics=["map"])
    ints = _frame(run, "score")
    ints = ints.assign(doc_id=range(len(ints)))  # ids must be strings, as in a TREC file
    with pytest.raises(TypeError, match="run document ids must be strings"):
        rm.evaluate(qrels, ints, metrics=["map"])
