"""Our retrieval metrics against ranx and scikit-learn, on hundreds of random queries.

How our calls map to theirs (``rels``: grades of the retrieved documents in
rank order, 0 for a document the qrels do not judge; ``n``: the number of
judged documents with grade >= 1; ``judged``: the grades of every judged
document of the query, retrieved or not):

======================================================  ========================================  ==========================================
ours                                                    theirs                                    convention that makes them agree
======================================================  ========================================  ==========================================
``precision_at_k(rels, k)``                             ranx ``precision@k``                      divide by k; missing ranks not relevant
``precision_at_k(rels, K, denominator="retrieved")``    ranx ``precision`` (no k)                 divide by len(rels); K >= len(rels)
``recall_at_k(rels, k, n)``                             ranx ``recall@k``                         n = 0 gives 0
``f1_at_k(rels, k, n)``                                 ranx ``f1@k``                             P divides by k; F1 = 0 when P + R = 0
``hit_rate_at_k(rels, k)``                              ranx ``hit_rate@k``
``reciprocal_rank(rels, k)``                            ranx ``mrr@k`` (``mrr`` for k=None)       per query
``average_precision(rels, n, k)``                       ranx ``map@k`` (``map`` for k=None)       divide by all relevant (n)
``dcg_at_k(rels, k)``                                   ranx ``dcg@k``                            linear gain
``dcg_at_k(rels, k, "exponential")``                    ranx ``dcg_burges@k``                     gain 2**rel - 1
``ndcg_at_k(rels, k, ideal=judged)``                    ranx ``ndcg@k`` (``ndcg`` for k=None)     linear gain; IDCG from all judged grades
``ndcg_at_k(rels, k, "exponential", ideal=judged)``     ranx ``ndcg_burges@k``                    exponential gain; judged IDCG
``dcg_at_k(rels, k)``                                   sklearn ``dcg_score(log_base=2)``         distinct scores, ``ignore_ties=True``
``ndcg_at_k(rels, k)``                                  sklearn ``ndcg_score``                    IDCG from the passed items only (seeds')
``ndcg_at_k(rels, k, ideal=judged)``, k <= len(rels)    sklearn ``ndcg_score`` on retrieved +     unretrieved judged documents scored
                                                        unretrieved judged documents              below every retrieved one
``average_precision(rels, n_in_rels,                    sklearn ``average_precision_score``       sklearn sees only the passed items: its
denominator="retrieved_relevant")``                     on the ranking's 0/1 labels               "all relevant" are the retrieved ones
======================================================  ========================================  ==========================================

Not mapped: sklearn with tied scores and ``ignore_ties=False`` averages the
gains of tied items (we take the ranking as given); ranx's ``precision``
without k on an empty ranking gives 0, as ours does.

The random queries: 300 queries, fixed seed, 1-12 judged documents graded
0-3 (ties in grade everywhere), rankings of 0-12 documents mixing judged and
unjudged ones (some empty, passed to ranx with ``make_comparable=True``),
some queries with no relevant document at all.  ranx compiles with numba on
first use (tens of seconds), so it is called once, for all metrics at once.
"""

import math

import numpy as np
import pytest

ranx = pytest.importorskip("ranx")
sklearn_metrics = pytest.importorskip("sklearn.metrics")

from ragmetrics_edu.retrieval.graded import dcg_at_k, ndcg_at_k  # noqa: E402
from ragmetrics_edu.retrieval.order_aware import average_precision, reciprocal_rank  # noqa: E402
from ragmetrics_edu.retrieval.order_unaware import (  # noqa: E402
    f1_at_k,
    hit_rate_at_k,
    precision_at_k,
    recall_at_k,
)

pytestmark = pytest.mark.filterwarnings("ignore:unsafe cast:UserWarning")

N_QUERIES = 300
KS = (1, 3, 5, 10)
TOL = 1e-12


def _make_queries(seed=20240611):
    """Random judged grades and rankings; returns a list of dicts, one per query."""
    rng = np.random.default_rng(seed)
    queries = []
    for q in range(N_QUERIES):
        n_judged = int(rng.integers(1, 13))
        grades = rng.integers(0, 4, size=n_judged)
        if q % 25 == 0:
            grades[:] = 0  # a query with no relevant document
        judged = {f"d{j}": int(g) for j, g in enumerate(grades)}
        pool = list(judged) + [f"u{j}" for j in range(6)]  # u*: never judged
        length = 0 if q % 20 == 7 else int(rng.integers(0, 13))
        ranking = list(rng.choice(pool, size=min(length, len(pool)), replace=False))
        queries.append(
            {
                "id": f"q{q:03d}",
                "judged": judged,
                "ranking": [str(d) for d in ranking],
                "rels": [judged.get(str(d), 0) for d in ranking],
                "n": int(np.sum(grades >= 1)),
            }
        )
    return queries


QUERIES = _make_queries()


def _ranx_metrics():
    metrics = ["precision", "recall", "mrr", "map", "ndcg", "ndcg_burges"]
    for k in KS:
        metrics += [
            f"{m}@{k}"
            for m in ("precision", "recall", "f1", "hit_rate", "mrr", "map",
                      "dcg", "dcg_burges", "ndcg", "ndcg_burges")
        ]
    return metrics


@pytest.fixture(scope="module")
def ranx_scores():
    """ranx's per-query scores for every metric, in query-id order."""
    qrels = ranx.Qrels({q["id"]: dict(q["judged"]) for q in QUERIES})
    run = ranx.Run(
        {
            q["id"]: {doc: float(len(q["ranking"]) - i) for i, doc in enumerate(q["ranking"])}
            for q in QUERIES
            if q["ranking"]  # empty rankings are added by make_comparable
        }
    )
    scores = ranx.evaluate(
        qrels, run, _ranx_metrics(), return_mean=False, make_comparable=True,
        save_results_in_run=False, threads=1,
    )
    assert list(run.get_query_ids()) == [q["id"] for q in QUERIES]
    return scores


def test_random_queries_cover_the_edge_cases():
    assert sum(not q["ranking"] for q in QUERIES) >= 10  # empty rankings
    assert sum(q["n"] == 0 for q in QUERIES) >= 10  # no relevant document
    assert sum(0 < len(q["ranking"]) < 5 for q in QUERIES) >= 10  # fewer than k
    assert any(len(set(q["rels"])) < len(q["rels"]) for q in QUERIES)  # tied grades


def _ours(metric, q):
    """Our value for a ranx metric name on query q (see the table above)."""
    rels, n, judged = q["rels"], q["n"], list(q["judged"].values())
    name, _, k = metric.partition("@")
    k = int(k) if k else None
    whole = max(len(rels), 1)  # k=None for the metrics whose k must be an int
    if name == "precision":
        if k is None:
            return precision_at_k(rels, whole, denominator="retrieved")
        return precision_at_k(rels, k)
    if name == "recall":
        return recall_at_k(rels, k or whole, n_relevant=n)
    if name == "f1":
        return f1_at_k(rels, k, n_relevant=n)
    if name == "hit_rate":
        return hit_rate_at_k(rels, k)
    if name == "mrr":
        return reciprocal_rank(rels, k)
    if name == "map":
        return average_precision(rels, n, k=k)
    if name == "dcg":
        return dcg_at_k(rels, k)
    if name == "dcg_burges":
        return dcg_at_k(rels, k, gain="exponential")
    if name == "ndcg":
        return ndcg_at_k(rels, k, ideal=judged)
    if name == "ndcg_burges":
        return ndcg_at_k(rels, k, gain="exponential", ideal=judged)
    raise AssertionError(metric)


@pytest.mark.parametrize("metric", _ranx_metrics())
def test_against_ranx(ranx_scores, metric):
    theirs = ranx_scores[metric]
    assert len(theirs) == N_QUERIES
    mismatches = [
        (q["id"], q["rels"], q["n"], ours, float(t))
        for q, t in zip(QUERIES, theirs)
        if not math.isclose(ours := _ours(metric, q), float(t), rel_tol=TOL, abs_tol=TOL)
    ]
    assert not mismatches, mismatches[:5]


def test_ranx_precision_divides_by_k_when_fewer_results(ranx_scores):
    # the convention our default shares with ranx: a 2-document ranking at k=5
    short = [i for i, q in enumerate(QUERIES) if 0 < len(q["ranking"]) < 5 and q["n"] > 0
             and any(g > 0 for g in q["rels"])]
    assert short
    for i in short:
        q = QUERIES[i]
        hits = sum(g > 0 for g in q["rels"])
        assert ranx_scores["precision@5"][i] == pytest.approx(hits / 5)


def test_the_other_conventions_really_differ(ranx_scores):
    """The keywords matter: with the other convention, ranx disagrees on some queries."""
    idx = {q["id"]: i for i, q in enumerate(QUERIES)}

    def differs(metric, ours):
        return sum(
            not math.isclose(ours(q), float(ranx_scores[metric][idx[q["id"]]]), abs_tol=1e-9)
            for q in QUERIES
        )

    # IDCG from the retrieved grades only (the seeds') vs ranx's judged IDCG
    assert differs("ndcg@5", lambda q: ndcg_at_k(q["rels"], 5)) >= 20
    # Precision dividing by what was retrieved vs ranx's division by k
    assert differs("precision@10", lambda q: precision_at_k(q["rels"], 10, denominator="retrieved")) >= 20
    # AP over the relevant retrieved vs ranx's over all relevant
    assert differs("map@5", lambda q: average_precision(q["rels"], q["n"], k=5, denominator="retrieved_relevant")) >= 20
    # linear vs exponential gain
    assert differs("ndcg_burges@5", lambda q: ndcg_at_k(q["rels"], 5, ideal=list(q["judged"].values()))) >= 20


# ---------------------------------------------------------------- sklearn
SK = [q for q in QUERIES if len(q["rels"]) >= 2]  # sklearn needs >= 2 items per row


def _scores(n):
    """Distinct scores, best first, so rank order is unambiguous."""
    return np.arange(n, 0, -1, dtype=float)


@pytest.mark.parametrize("k", [*KS, None])
def test_against_sklearn_dcg_and_ndcg(k):
    assert len(SK) >= 200
    for q in SK:
        y_true = np.asarray([q["rels"]], dtype=float)
        y_score = _scores(len(q["rels"]))[None, :]
        theirs_dcg = sklearn_metrics.dcg_score(y_true, y_score, k=k, log_base=2, ignore_ties=True)
        theirs_ndcg = sklearn_metrics.ndcg_score(y_true, y_score, k=k, ignore_ties=True)
        assert dcg_at_k(q["rels"], k) == pytest.approx(theirs_dcg, rel=TOL, abs=TOL)
        assert ndcg_at_k(q["rels"], k) == pytest.approx(theirs_ndcg, rel=TOL, abs=TOL)


@pytest.mark.parametrize("k", KS)
def test_against_sklearn_ndcg_with_judged_ideal(k):
    checked = 0
    for q in SK:
        if k > len(q["rels"]):
            continue
        retrieved = set(q["ranking"])
        unretrieved = [g for d, g in q["judged"].items() if d not in retrieved]
        y_true = np.asarray([q["rels"] + unretrieved], dtype=float)
        y_score = _scores(len(q["rels"]) + len(unretrieved))[None, :]  # unretrieved last
        theirs = sklearn_metrics.ndcg_score(y_true, y_score, k=k, ignore_ties=True)
        ours = ndcg_at_k(q["rels"], k, ideal=list(q["judged"].values()))
        assert ours == pytest.approx(theirs, rel=TOL, abs=TOL)
        checked += 1
    assert checked >= 50


def test_against_sklearn_average_precision():
    checked = 0
    for q in QUERIES:
        binary = [1 if g > 0 else 0 for g in q["rels"]]
        if not any(binary):  # sklearn's AP is undefined without a positive label
            continue
        theirs = sklearn_metrics.average_precision_score(binary, _scores(len(binary)))
        ours = average_precision(q["rels"], q["n"], denominator="retrieved_relevant")
        assert ours == pytest.approx(theirs, rel=TOL, abs=TOL)
        # and the trec_eval default agrees when every relevant document was retrieved
        if sum(binary) == q["n"]:
            assert average_precision(q["rels"], q["n"]) == pytest.approx(theirs, rel=TOL, abs=TOL)
        checked += 1
    assert checked >= 100
