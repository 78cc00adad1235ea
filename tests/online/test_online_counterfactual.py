"""Counterfactual evaluation: IPS is unbiased under the position-based model (exactly, and over
seeds), naive click counting is not; bad propensities are refused."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ragmetrics_edu as rm

LOGGED = ["d1", "d2", "d3", "d4", "d5"]
GRADES = [0, 1, 4, 0, 3]  # what the logging ranker shows, in its order
NEW = ["d3", "d5", "d2", "d1", "d4"]  # the new ranker puts the relevant ones first


def _true_value(model, ranking, alpha_by_doc, weights):
    return sum(w * alpha_by_doc[d] for w, d in zip(weights, ranking))


def test_ips_is_exactly_unbiased_in_expectation():
    """E[IPS] = sum_d P(click on d) * w(new rank of d) / p(logged rank of d), with the exact
    click probabilities of the model, equals the true value."""
    model = rm.PositionBasedModel(eta=1.0)
    p = model.examination_probabilities(5)
    click = model.click_probabilities(GRADES)
    alpha = dict(zip(LOGGED, model.alpha(GRADES)))
    new_rank = {d: j for j, d in enumerate(NEW)}
    expected_ips = sum(click[i] * p[new_rank[d]] / p[i] for i, d in enumerate(LOGGED))
    truth = _true_value(model, NEW, alpha, p)
    assert expected_ips == pytest.approx(truth, abs=1e-12)
    # the truth is the new ranking's expected clicks had it been shown
    assert truth == pytest.approx(model.expected([GRADES[LOGGED.index(d)] for d in NEW]).clicks)
    expected_naive = sum(click[i] * p[new_rank[d]] for i, d in enumerate(LOGGED))
    assert expected_naive < truth - 0.1


def test_ips_is_unbiased_over_seeds_and_naive_is_not():
    model = rm.PositionBasedModel(eta=1.0)
    p = model.examination_probabilities(5)
    truth = _true_value(model, NEW, dict(zip(LOGGED, model.alpha(GRADES))), p)
    ips, naive = [], []
    for seed in range(300):
        log = model.simulate(GRADES, 200, seed=seed)
        ips.append(rm.ips_estimate(log, LOGGED, NEW, propensities=p))
        naive.append(rm.naive_estimate(log, LOGGED, NEW, weights=p))
    ips, naive = np.array(ips), np.array(naive)
    se_ips = ips.std() / math.sqrt(len(ips))
    assert abs(ips.mean() - truth) <= 4 * se_ips
    assert abs(naive.mean() - truth) > 20 * naive.std() / math.sqrt(len(naive))



def test_naive_is_biased_even_for_the_logged_ranking_itself():
    """With w = p, the naive estimate of the logged ranking converges to sum_i p_i^2 alpha_i, not
    its clicks per session sum_i p_i alpha_i; IPS gives the clicks per session (it is then the
    plain click count)."""
    model = rm.PositionBasedModel(eta=1.0)
    p = [1.0, 1 / 2, 1 / 3, 1 / 4, 1 / 5]
    alpha = [0.0, 1 / 16, 15 / 16, 0.0, 7 / 16]  # (2^g - 1) / 16 of GRADES, by hand
    clicks_per_session = sum(pi * a for pi, a in zip(p, alpha))   # 1/32 + 5/16 + 7/80
    naive_limit = sum(pi * pi * a for pi, a in zip(p, alpha))     # 1/64 + 15/144 + 7/400
    assert clicks_per_session == pytest.approx(1 / 32 + 5 / 16 + 7 / 80)
    log = model.simulate(GRADES, 400_000, seed=3)
    naive = rm.naive_estimate(log, LOGGED, LOGGED, weights=p)
    ips = rm.ips_estimate(log, LOGGED, LOGGED, propensities=p)
    assert ips == pytest.approx(log.clicks.sum(axis=1).mean())
    assert abs(ips - clicks_per_session) < 0.003
    assert abs(naive - naive_limit) < 0.003
    assert naive < 0.4 * clicks_per_session

@given(st.lists(st.integers(0, 4), min_size=2, max_size=6), st.randoms(use_true_random=False),
       st.floats(0, 2))
def test_ips_expectation_for_any_rankings(grades, random, eta):
    docs = [f"d{i}" for i in range(len(grades))]
    new = random.sample(docs, len(docs))
    model = rm.PositionBasedModel(eta=eta)
    p = model.examination_probabilities(len(docs))
    click = model.click_probabilities(grades)
    new_rank = {d: j for j, d in enumerate(new)}
    expected_ips = sum(click[i] * p[new_rank[d]] / p[i] for i, d in enumerate(docs))
    assert expected_ips == pytest.approx(
        _true_value(model, new, dict(zip(docs, model.alpha(grades))), p), abs=1e-12)


def test_estimators_by_hand():
    clicks = [[1, 0, 1], [0, 1, 0]]
    # IPS: session 1: d1 (new rank 3, w .2) / 1 + d3 (new rank 1, w 1) / .25; session 2:
    # d2 (new rank 2, w .5) / .5 -> (0.2 + 4 + 1) / 2
    got = rm.ips_estimate(clicks, ["d1", "d2", "d3"], ["d3", "d2", "d1"],
                          propensities=[1.0, 0.5, 0.25], weights=[1.0, 0.5, 0.2])
    assert got == pytest.approx(2.6)
    got = rm.naive_estimate(clicks, ["d1", "d2", "d3"], ["d3", "d2", "d1"],
                            weights=[1.0, 0.5, 0.2])
    assert got == pytest.approx((0.2 + 1 + 0.5) / 2)


def test_counterfactual_evaluation_on_several_queries():
    qrels = {"1": {"a": 4, "b": 1}, "2": {"c": 3}}
    logging = {"1": ["x", "b", "y", "a"], "2": ["c", "x", "y", "z"]}
    new = {"1": ["a", "b", "x", "y"], "2": ["x", "c", "y", "z"]}
    res = rm.counterfactual_evaluation(logging, new, qrels, n_sessions=50_000, depth=4, seed=3)
    model = rm.PositionBasedModel()
    truth = np.mean([model.expected([qrels[q].get(d, 0) for d in new[q]]).clicks
                     for q in qrels])
    assert res.true_new == pytest.approx(truth)
    assert abs(res.ips - truth) < 0.02 and abs(res.naive - truth) > 0.1


def test_the_truth_counts_the_documents_the_logger_never_showed():
    # the new ranking's first document, grade 4, was never logged: its value is real
    # (15/16 at rank 1, examined with probability 1), but IPS has no click to weigh for it
    qrels = {"q": {"new": 4, "b": 2}}
    res = rm.counterfactual_evaluation({"q": ["a", "b"]}, {"q": ["new", "b"]}, qrels,
                                       n_sessions=40_000, depth=2, seed=1)
    p2 = rm.PositionBasedModel().examination_probabilities(2)[1]
    assert res.true_new == pytest.approx(15 / 16 + p2 * 3 / 16)
    assert res.true_new_supported == pytest.approx(p2 * 3 / 16)  # b alone
    assert (res.unsupported, res.unsupported_relevant) == (1, 1)
    assert res.ips == pytest.approx(res.true_new_supported, abs=0.01)  # unbiased for b only
    assert "1 of its documents never logged, 1 of them relevant" in str(res)


def test_dense_against_bm25_on_cranfield_the_numbers_of_lesson_14():
    # Lesson 14: position-based users (eta = 1) log BM25's top 50; dense retrieval's top
    # 10 is then estimated.  614 of its 2,250 documents (54 relevant) lie outside BM25's
    # top 50, so dense's true value (0.2989) is above BM25's (0.2841), while IPS, which
    # cannot see them, lands on 0.2835, the value of the logged part alone.
    from ragmetrics_edu.lab import retrievers as rr

    cran = rm.load_cranfield()
    bm25 = rr.bm25_run(cran.docs, cran.queries, depth=100)
    dense = rr.dense_run(cran.docs, cran.queries, depth=100)
    model = rm.PositionBasedModel(eta=1.0)
    p = model.examination_probabilities(10)

    def value(run, q, logged=None):  # the truth, by the formula: sum_j p_j alpha_j
        docs = sorted(run[q], key=run[q].get, reverse=True)[:10]
        grades = [max(cran.qrels[q].get(d, 0), 0) if logged is None or d in logged else 0
                  for d in docs]
        return float(np.dot(p, model.alpha(grades)))

    qids = list(cran.qrels)
    logged = {q: set(sorted(bm25[q], key=bm25[q].get, reverse=True)[:50]) for q in qids}
    truth_dense = np.mean([value(dense, q) for q in qids])
    truth_bm25 = np.mean([value(bm25, q) for q in qids])
    res = rm.counterfactual_evaluation(bm25, dense, cran.qrels, model=model, n_sessions=1000,
                                       seed=0, depth=10, log_depth=50)
    assert (res.unsupported, res.unsupported_relevant) == (614, 54)
    assert res.true_new == pytest.approx(truth_dense) and round(truth_dense, 3) == 0.299
    assert res.true_logging == pytest.approx(truth_bm25) and round(truth_bm25, 3) == 0.284
    assert res.true_new_supported == pytest.approx(np.mean([value(dense, q, logged[q])
                                                            for q in qids]))
    assert abs(res.ips - res.true_new_supported) < 0.005 < res.true_new - res.ips


@pytest.mark.parametrize("call, message", [
    (lambda: rm.ips_estimate([[1, 0]], ["a", "b"], ["b", "a"], propensities=[1.0, 0.0]),
     r"propensities must be above 0 .*, got propensities\[1\] = 0.0"),
    (lambda: rm.ips_estimate([[1, 0]], ["a", "b"], ["b", "a"], propensities=[1.0, 1.5]),
     r"propensities\[1\] must be a probability in \[0, 1\], got 1.5"),
    (lambda: rm.ips_estimate([[1, 0]], ["a", "b"], ["c", "a"], propensities=[1.0, 0.5]),
     "document 'c' at rank 1 was never shown by the logging ranker"),
    (lambda: rm.ips_estimate(np.zeros((0, 2)), ["a", "b"], ["b"], propensities=[1, 1]),
     "at least one session"),
    (lambda: rm.naive_estimate([[1, 0]], ["a"], ["a"], weights=[1.0]),
     "logged_ranking must name the document of each of the 2 logged ranks"),
    (lambda: rm.naive_estimate([[1, 0]], ["a", "b"], ["a"], weights=[1.0], depth=2),
     "depth=2 is deeper than new_ranking"),
    (lambda: rm.counterfactual_evaluation({"q": ["a"]}, {"q": ["a"]}, {}, depth=2),
     r"logging_run\['q'\] holds 1 documents, fewer than depth=2"),
])
def test_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_ignoring_an_unseen_document_is_allowed_on_request():
    got = rm.ips_estimate([[1, 0]], ["a", "b"], ["c", "a"], propensities=[1.0, 0.5],
                          missing="ignore")
    assert got == pytest.approx(0.5)  # a's click at new rank 2, weighted by p_2 / p_1
