"""The online functions refuse what they cannot use, naming it (issue 34).

qrels with a grade "3" or a list for a query, runs with a NaN score or document
ids of two types, weights=None; and counts that would exhaust the memory (a
NumPy MemoryError before) are bounded by MAX_SIMULATED with the argument named.
"""

import math

import numpy as np
import pytest

import ragmetrics_edu as rm
from ragmetrics_edu._validation import MAX_SIMULATED
from ragmetrics_edu.online.counterfactual import counterfactual_evaluation, naive_estimate
from tests._bounded import finishes

QRELS = {"q": {"a": 2, "b": 0}}
RUN = {"q": ["a", "b", "c"]}
OTHER = {"q": ["c", "a", "b"]}


def _interleave(run_a=RUN, run_b=OTHER, qrels=QRELS):
    return rm.interleaving_outcomes(run_a, run_b, qrels, depth=2, n_per_query=5)


def _impressions(run_a=RUN, run_b=OTHER, qrels=QRELS):
    return rm.impressions_needed(run_a, run_b, qrels, depth=2, n_per_query=5)


def _counterfactual(run_a=RUN, run_b=OTHER, qrels=QRELS):
    return counterfactual_evaluation(run_a, run_b, qrels, depth=2, n_sessions=5)


CALLS = {"interleaving_outcomes": _interleave, "impressions_needed": _impressions,
         "counterfactual_evaluation": _counterfactual}
FIRST = {"interleaving_outcomes": "run_a", "impressions_needed": "run_a",
         "counterfactual_evaluation": "logging_run"}


@pytest.mark.parametrize("function", sorted(CALLS))
@pytest.mark.parametrize("qrels, error, rule", [
    # before: "'>' not supported between instances of 'int' and 'str'"
    ({"q": {"a": "3"}}, TypeError, r"qrels\['q'\]\['a'\] must be a number \(a grade\), got '3'"),
    # before: "'list' object has no attribute 'get'"
    ({"q": ["a"]}, TypeError, r"qrels\['q'\] must be a dict \{docid: grade\}, got \['a'\]"),
    ({"q": {"a": math.nan}}, ValueError, r"qrels\['q'\]\['a'\] must be finite, got nan"),
    ({"q": {"a": True}}, TypeError, r"qrels\['q'\]\['a'\] must be a number"),
    ({"q": {"a": 10**400}}, ValueError, r"qrels\['q'\]\['a'\] must be numbers a float can hold"),
    ([("q", "a", 1)], TypeError, r"qrels must be a dict \{qid: \{docid: grade\}\}"),
])
def test_bad_qrels_are_named(function, qrels, error, rule):
    with pytest.raises(error, match=rule):
        CALLS[function](qrels=qrels)


@pytest.mark.parametrize("function", sorted(CALLS))
@pytest.mark.parametrize("run, error, rule", [
    # before: a NaN score was ranked somewhere silently
    ({"q": {"a": math.nan, "b": 1.0, "c": 0.5}}, ValueError, r"\['q'\]\['a'\] is NaN"),
    # before: "'<' not supported between instances of 'str' and 'int'"
    ({"q": {"a": 1.0, 2: 1.0, "c": 0.5}}, TypeError, r"\['q'\] mixes document ids of types int "
                                                      r"and str"),
    ({"q": {"a": "high", "b": 1.0}}, TypeError, r"\['q'\]\['a'\] must be a number, got 'high'"),
    ({"q": "abc"}, TypeError, r"\['q'\] must be a sequence of document ids"),
    ({"q": ["a", "a", "b"]}, ValueError, r"\['q'\] lists document 'a' twice"),
    ([["a", "b"]], TypeError, r" must be a dict by query id"),
])
def test_bad_runs_are_named(function, run, error, rule):
    with pytest.raises(error, match=FIRST[function] + rule):
        CALLS[function](run_a=run)


def test_scores_of_numbers_of_two_types_are_one_kind_of_id():
    out = rm.interleaving_outcomes({"q": {1: 0.5, 2.5: 0.9, 3: 0.1}}, {"q": [3, 1, 2.5]},
                                   {"q": {1: 1}}, depth=3, n_per_query=5)
    assert len(out["q"]) == 5


def test_naive_estimate_needs_its_weights():
    # before: "'NoneType' object is not subscriptable"
    with pytest.raises(TypeError, match="weights must be a sequence of rank weights"):
        naive_estimate([[1, 0]], ["a", "b"], ["b", "a"], weights=None)


# ----------------------------------------------------------------- bounded counts

BIG = 10**12


@pytest.mark.parametrize("call, name", [
    (lambda: rm.scan_ranking(rm.CascadeModel(), [1, 2], n_sessions=BIG), "n_sessions"),
    (lambda: rm.scan_ranking(rm.CascadeModel(), [1, 2], n_sessions=MAX_SIMULATED // 10),
     "n_sessions"),
    (lambda: rm.CascadeModel().simulate([1, 2], n_sessions=BIG), "n_sessions x ranks"),
    (lambda: rm.DBNModel().simulate([1, 2, 3], n_sessions=MAX_SIMULATED), "n_sessions x ranks"),
    (lambda: rm.PositionBasedModel().simulate([1, 2], n_sessions=BIG), "n_sessions x ranks"),
    (lambda: rm.PositionBasedModel().examination_probabilities(BIG), "n must"),
    (lambda: counterfactual_evaluation(RUN, OTHER, QRELS, depth=2, n_sessions=BIG),
     "n_sessions x ranks"),
    (lambda: rm.peeking_false_positive_rate(n_experiments=10**9), "n_experiments x 2 groups"),
    (lambda: rm.peeking_false_positive_rate(days=BIG), "days"),
    (lambda: rm.interleaving_outcomes(RUN, OTHER, QRELS, depth=2, n_per_query=BIG),
     "n_per_query"),
])
def test_counts_that_would_exhaust_memory_are_refused_at_once(call, name):
    """Before: a NumPy MemoryError ("Unable to allocate 14.6 TiB"), or hours of work."""
    assert finishes(lambda _: call(), None, budget=30.0)   # a ValueError within 30 s
    with pytest.raises(ValueError, match=rf"{name}.*at most") as info:
        call()
    assert "10**" not in str(info.value) or "MAX" in str(info.value)


def test_counterfactual_sessions_are_bounded_over_all_queries():
    """Before: n_sessions was bounded per query only, so 1000 queries x 10**6 sessions were
    accepted (3 x 10**9 cells: minutes of work); the message names the product."""
    run = {f"q{i}": ["a", "b", "c"] for i in range(1000)}
    qrels = {f"q{i}": {"a": 2} for i in range(1000)}
    call = lambda: counterfactual_evaluation(run, run, qrels, n_sessions=10**6, depth=3)  # noqa: E731
    assert finishes(lambda _: call(), None, budget=30.0)
    with pytest.raises(ValueError, match=r"n_sessions x queries \(1,000\) x ranks \(3\) must "
                                         r"be at most 100,000,000 \(MAX_SIMULATED_TOTAL.*got "
                                         r"1,000,000 x 3,000"):
        call()
    # within the bound (the lesson's 225 queries x 1000 sessions x 50 ranks is 11,250,000)
    res = counterfactual_evaluation(run, run, qrels, n_sessions=30, depth=3)
    assert res.n_queries == 1000 and res.true_new == res.true_logging


def test_counts_just_within_the_bound_work():
    log = rm.CascadeModel().simulate([1, 2], n_sessions=MAX_SIMULATED // 2)
    assert log.clicks.shape == (MAX_SIMULATED // 2, 2)


# ---------------------------------------------------------------- the fourth probe (issue 34)

def test_ranking_value_checks_its_arguments():
    """Before: alpha_by_doc=None was an AttributeError, attractiveness 5, -3 or NaN was used."""
    from ragmetrics_edu.online.counterfactual import ranking_value

    assert ranking_value({"d1": 0.5, "d2": 1.0}, ["d2", "d1"], weights=[1.0, 0.5]) == 1.25
    with pytest.raises(TypeError, match="alpha_by_doc must be a dict"):
        ranking_value(None, ["a"], weights=[1.0])
    for bad in (5, -3, float("nan")):
        with pytest.raises((TypeError, ValueError), match=r"alpha_by_doc\['a'\] must be a "
                                                          r"probability"):
            ranking_value({"a": bad}, ["a"], weights=[1.0])
    with pytest.raises(ValueError, match="ranking lists document 'a' twice"):
        ranking_value({"a": 0.5}, ["a", "a"], weights=[1.0, 1.0])


@pytest.mark.parametrize("ranking", [["a", float("nan")], np.array([1.0, np.nan])])
def test_interleaving_refuses_a_nan_document_id(ranking):
    """Before: team draft dropped a NaN id, or kept NaN as a document (NaN != NaN)."""
    from ragmetrics_edu.online.interleaving import balanced_interleave, team_draft_interleave

    for interleave in (team_draft_interleave, balanced_interleave):
        with pytest.raises(ValueError, match="ranking_a holds a NaN document id at rank 2"):
            interleave(ranking, ["a", "b"])


# Nothing to detect: refused as ab_sample_size refuses equal CTRs, never inf/inf = nan.
@pytest.mark.parametrize("run_b, qrels", [
    (OTHER, {}),                                     # nothing judged
    (OTHER, {"q": {d: 0 for d in ("a", "b", "c", "d", "e")}}),  # nothing relevant
    (RUN, QRELS),                                    # the same rankings
])
def test_impressions_needed_refuses_when_no_number_exists(run_b, qrels):
    with pytest.raises(ValueError, match=r"neither an A/B test nor interleaving can tell|"
                                         r"qrels must judge at least one"):
        _impressions(run_b=run_b, qrels=qrels)


def test_interleaving_outcomes_refuses_empty_qrels():
    with pytest.raises(ValueError, match=r"qrels must judge at least one document"):
        _interleave(qrels={})
