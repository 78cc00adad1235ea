"""rm.evaluate against pytrec_eval (trec_eval's own C code) on random runs.

Every per-query value must equal trec_eval's to 1e-12 (in practice they are
bit-for-bit equal: the sums are done in the same order).

Note: on a query whose only judgements are negative grades, pytrec_eval
0.5.x has undefined behaviour in ``ndcg`` (it hangs or crashes, or returns
0), so the generator gives every such query a grade-0 judgement too; that
case is tested by hand in test_batch.py
(test_query_judged_only_with_negative_grades_scores_zero).
"""

import numpy as np
import pytest

import ragmetrics_edu as rm

pytrec_eval = pytest.importorskip("pytrec_eval")

KS = [1, 2, 3, 5, 10, 30]

# our name -> trec_eval's name
NAMES = {"mrr": "recip_rank", "map": "map", "ndcg": "ndcg"}
for _k in KS:
    NAMES.update({
        f"P@{_k}": f"P_{_k}",
        f"recall@{_k}": f"recall_{_k}",
        f"ndcg@{_k}": f"ndcg_cut_{_k}",
        f"map@{_k}": f"map_cut_{_k}",
        f"hit_rate@{_k}": f"success_{_k}",
    })


def random_collection(seed, n_queries=300):
    """Random qrels and run with every awkward case trec_eval has rules for."""
    rng = np.random.default_rng(seed)
    # ids whose string order differs from their numeric order
    pool = [str(i) for i in range(1, 25)] + list("abcdefgh") + ["A", "B", "d1", "d10", "d9"]
    qrels, run = {}, {}
    for q in range(n_queries):
        qid = f"q{q}"
        n_ret = int(rng.integers(0, 25))  # k = 30 is larger than every ranking
        docs = [pool[i] for i in rng.choice(len(pool), n_ret, replace=False)]
        style = rng.integers(0, 4)
        if style == 0:  # many ties
            scores = rng.integers(0, 4, n_ret).astype(float)
        elif style == 1:  # equal as float32 only, and huge values equal as float32
            base = rng.choice([1.0, 1e300, -2.5], n_ret)
            scores = base * (1 + rng.integers(0, 3, n_ret) * 1e-12)
        elif style == 2:  # negative and zero scores, -0.0
            scores = rng.choice([-1.0, -0.0, 0.0, 0.25], n_ret)
        else:
            scores = rng.normal(size=n_ret)
        run[qid] = {d: float(s) for d, s in zip(docs, scores)}
        n_judged = int(rng.integers(1, 15))
        judged = [pool[i] for i in rng.choice(len(pool), n_judged, replace=False)]
        # grades -2..3; some queries get no relevant document at all
        high = 1 if rng.random() < 0.15 else 4
        grades = rng.integers(-2, high, n_judged)
        qrels[qid] = {d: int(g) for d, g in zip(judged, grades)}
        if max(qrels[qid].values()) < 0:  # see the module docstring
            qrels[qid][judged[0]] = 0
    # queries only judged, and only run
    qrels["only_judged"] = {"a": 1}
    run["only_run"] = {"a": 1.0}
    return qrels, run


def trec_eval_results(qrels, run):
    measures = set(NAMES.values())
    return pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)


def assert_same(report, expected):
    assert set(report.per_query) == set(expected)
    for qid, values in expected.items():
        for ours, theirs in NAMES.items():
            assert report.per_query[qid][ours] == pytest.approx(values[theirs], rel=0, abs=1e-12), (
                qid, ours, report.per_query[qid][ours], values[theirs])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_per_query_equal_to_trec_eval(seed):
    qrels, run = random_collection(seed)
    report = rm.evaluate(qrels, run, metrics=list(NAMES))
    expected = trec_eval_results(qrels, run)
    assert_same(report, expected)
    # the cases the generator is meant to produce did occur
    assert report.queries_without_relevant
    assert report.missing_queries == ("only_judged",)
    assert report.unjudged_queries == ("only_run",)
    # trec_eval's summary: the mean over the scored queries
    for ours, theirs in NAMES.items():
        mean = np.mean([v[theirs] for v in expected.values()])
        assert report.mean[ours] == pytest.approx(mean, rel=0, abs=1e-12)


def test_most_values_are_bit_for_bit_equal():
    qrels, run = random_collection(3)
    report = rm.evaluate(qrels, run, metrics=list(NAMES))
    expected = trec_eval_results(qrels, run)
    pairs = [(report.per_query[q][o], expected[q][t]) for q in expected for o, t in NAMES.items()]
    exact = sum(a == b for a, b in pairs)
    assert exact / len(pairs) > 0.999


def test_missing_zero_equals_averaging_over_all_judged_queries():
    # trec_eval -c: the queries judged but not run count as 0 in the mean
    qrels, run = random_collection(4, n_queries=50)
    expected = trec_eval_results(qrels, run)
    report = rm.evaluate(qrels, run, metrics=["map", "ndcg@10"], missing="zero")
    n_judged = len([q for q in qrels if qrels[q]])
    assert report.missing_queries == ("only_judged",)
    assert report.mean["map"] == pytest.approx(
        sum(v["map"] for v in expected.values()) / n_judged, abs=1e-12)
    assert report.mean["ndcg@10"] == pytest.approx(
        sum(v["ndcg_cut_10"] for v in expected.values()) / n_judged, abs=1e-12)


@pytest.mark.parametrize(
    "qrels, run",
    [
        ({"q": {"a": 1}}, {"q": {"a": 1.0, "b": 1.0}}),  # "b" > "a": b first
        ({"q": {"10": 1}}, {"q": {"9": 1.0, "10": 1.0}}),  # "9" > "10"
        ({"q": {"a": 1}}, {"q": {"a": 1.0 + 1e-12, "b": 1.0}}),  # float32 tie
        ({"q": {"a": 1}}, {"q": {"a": 1e301, "b": 1e300}}),  # both inf as float32
        ({"q": {"a": -1, "b": 2}}, {"q": {"a": 2.0, "b": 1.0}}),  # negative grade
        ({"q": {"a": 0, "b": 0}}, {"q": {"a": 2.0, "b": 1.0}}),  # nothing relevant
        ({"q": {"a": 1}, "r": {"b": 1}}, {"q": {}, "r": {"b": 1.0}}),  # empty ranking
        ({"q": {}, "r": {"b": 1}}, {"q": {"a": 1.0}, "r": {"b": 1.0}}),  # empty judgements
        ({"q": {}, "r": {"b": 1}}, {"r": {"b": 1.0}}),  # empty judgements, not run
    ],
)
def test_edge_cases_equal_to_trec_eval(qrels, run):
    report = rm.evaluate(qrels, run, metrics=list(NAMES))
    assert_same(report, trec_eval_results(qrels, run))
    # what trec_eval leaves out is listed, not dropped
    left_out = set(qrels) | set(run)
    left_out -= set(report.per_query)
    assert left_out == set(report.missing_queries) | set(report.unjudged_queries)


def test_a_query_judged_with_an_empty_dict_counts_nowhere():
    # pytrec_eval ignores a query with no judgements, run or not: it is
    # neither scored nor counted (num_q), as if it were absent from the qrels
    qrels = {"q1": {"a": 1}, "q2": {}}
    for run in ({"q1": {"a": 1.0}}, {"q1": {"a": 1.0}, "q2": {"a": 1.0}}):
        expected = pytrec_eval.RelevanceEvaluator(qrels, {"map", "num_q"}).evaluate(run)
        assert set(expected) == {"q1"}
        report = rm.evaluate(qrels, run, metrics=["map"], missing="zero")
        assert set(report.per_query) == {"q1"} and report.unjudged_queries == ("q2",)
        assert report.mean["map"] == expected["q1"]["map"] == 1.0


def test_files_read_like_pytrec_eval_parsers(tmp_path):
    qrels, run = random_collection(5, n_queries=100)
    qrels_path, run_path = tmp_path / "qrels.txt", tmp_path / "run.txt"
    with open(qrels_path, "w") as f:
        for qid, judgements in qrels.items():
            for docid, grade in judgements.items():
                f.write(f"{qid} 0 {docid} {grade}\n")
    with open(run_path, "w") as f:
        for qid, ranking in run.items():
            # deliberately meaningless ranks: trec_eval ignores them
            for rank, (docid, score) in enumerate(ranking.items(), start=1):
                f.write(f"{qid}\tQ0\t{docid}\t{100 - rank}\t{score!r}\tsys\n")
    ours_qrels, ours_run = rm.read_qrels(qrels_path), rm.read_run(run_path)
    assert ours_qrels == qrels
    assert ours_run == {q: r for q, r in run.items() if r}  # an empty ranking has no line
    with open(qrels_path) as f:
        their_qrels = pytrec_eval.parse_qrel(f)
    with open(run_path) as f:
        their_run = pytrec_eval.parse_run(f)
    assert ours_qrels == dict(their_qrels)
    assert ours_run == dict(their_run)
    report = rm.evaluate(ours_qrels, ours_run, metrics=list(NAMES))
    assert_same(report, trec_eval_results(their_qrels, their_run))


def test_write_run_is_read_back_by_pytrec_eval(tmp_path):
    qrels, run = random_collection(6, n_queries=60)
    run = {q: r for q, r in run.items() if r}
    path = tmp_path / "written.txt"
    rm.write_run(run, path, tag="test")
    with open(path) as f:
        their_run = pytrec_eval.parse_run(f)
    assert dict(their_run) == run
    assert_same(rm.evaluate(qrels, rm.read_run(path), metrics=list(NAMES)),
                trec_eval_results(qrels, their_run))
