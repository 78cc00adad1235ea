"""Click models: exact probabilities against hand arithmetic, ERR and a brute-force enumeration;
simulations against the exact values, within a tolerance from the standard error."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ragmetrics_edu as rm

probs = st.lists(st.floats(0.0, 1.0), min_size=1, max_size=6)
grades = st.lists(st.integers(0, 4), min_size=1, max_size=8)


def _paths(a, after_click, after_skip):
    """Every path of a cascade-family user, by enumeration: (probability, clicks, examined).

    A path says, for each examined rank, whether the user clicked and whether they went on.
    """
    n = len(a)
    out = []
    for steps in itertools.product([(1, 1), (1, 0), (0, 1), (0, 0)], repeat=n):
        prob, clicks, examined = 1.0, [0] * n, [0] * n
        for i, (click, go_on) in enumerate(steps):
            examined[i] = 1
            clicks[i] = click
            prob *= a[i] if click else 1 - a[i]
            cont = after_click[i] if click else after_skip[i]
            prob *= cont if go_on else 1 - cont
            if not go_on:
                break
        # paths that stop at rank i leave the later steps free: count each once
        if all(s == (0, 0) for s in steps[i + 1:]):
            out.append((prob, clicks, examined))
    return out


def _enumerated(a, after_click, after_skip):
    """P(click at i), P(first click at i) from the enumeration."""
    n = len(a)
    click, first = np.zeros(n), np.zeros(n)
    for prob, clicks, _ in _paths(a, after_click, after_skip):
        click += prob * np.array(clicks)
        if any(clicks):
            first[clicks.index(1)] += prob
    return click, first


# --- exact values ---------------------------------------------------------------------------

def test_cascade_by_hand():
    m = rm.CascadeModel(attractiveness="probability")
    # 0.2, 0.8 * 0.5, 0.8 * 0.5 * 0.1
    np.testing.assert_allclose(m.click_probabilities([0.2, 0.5, 0.1]), [0.2, 0.4, 0.04])
    e = m.expected([0.2, 0.5, 0.1])
    assert e.ctr == pytest.approx(0.64)
    assert e.abandonment == pytest.approx(0.36)
    assert e.first_click_rr == pytest.approx(0.2 + 0.4 / 2 + 0.04 / 3)
    assert e.clicks_at_k(2) == pytest.approx(0.6)


def test_err_mapping_by_hand():
    # grade 3 of 4: (2**3 - 1) / 2**4 = 7/16; linear: 3/4
    assert rm.attractiveness_from_grades([3]).tolist() == [7 / 16]
    assert rm.attractiveness_from_grades([3], mapping="linear").tolist() == [0.75]
    assert rm.attractiveness_from_grades([3], max_grade=3).tolist() == [7 / 8]


@given(grades, st.integers(1, 8))
def test_cascade_is_errs_user(rels, k):
    """P(click at rank i) = the i-th ERR term times i, and the expected first-click RR is ERR."""
    k = min(k, len(rels))
    m = rm.CascadeModel()
    p = m.click_probabilities(rels, depth=k)
    for i in range(1, k + 1):
        term = rm.err_at_k(rels, i) - rm.err_at_k(rels, i - 1) if i > 1 else rm.err_at_k(rels, 1)
        assert p[i - 1] / i == pytest.approx(term, abs=1e-12)
    assert m.expected(rels, depth=k).first_click_rr == pytest.approx(rm.err_at_k(rels, k),
                                                                     abs=1e-12)


@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=5), st.floats(0, 1), st.floats(0, 1))
@settings(max_examples=60, deadline=None)  # 4**5 paths per model
def test_cascade_family_against_enumeration(a, lam, gamma):
    cases = [
        (rm.CascadeModel(attractiveness="probability"), [0.0] * len(a), [1.0] * len(a)),
        (rm.DependentClickModel(continuation=lam, attractiveness="probability"),
         [lam] * len(a), [1.0] * len(a)),
        (rm.DBNModel(gamma=gamma, attractiveness="probability"),
         [gamma * (1 - x) for x in a], [gamma] * len(a)),
        (rm.DBNModel(gamma=gamma, satisfaction=lam, attractiveness="probability"),
         [gamma * (1 - lam)] * len(a), [gamma] * len(a)),
    ]
    for model, after_click, after_skip in cases:
        click, first = _enumerated(a, after_click, after_skip)
        np.testing.assert_allclose(model.click_probabilities(a), click, atol=1e-12)
        np.testing.assert_allclose(model.first_click_probabilities(a), first, atol=1e-12)
        assert model.expected(a).ctr == pytest.approx(first.sum(), abs=1e-12)


@given(probs, st.floats(0, 3))
def test_pbm_against_independent_ranks(a, eta):
    m = rm.PositionBasedModel(eta=eta, attractiveness="probability")
    e = [(1 / (i + 1)) ** eta for i in range(len(a))]
    c = [x * y for x, y in zip(a, e)]
    np.testing.assert_allclose(m.click_probabilities(a), c, atol=1e-12)
    assert m.expected(a).ctr == pytest.approx(1 - math.prod(1 - x for x in c), abs=1e-12)


def test_dcm_and_dbn_reduce_to_the_cascade():
    rels = [0, 3, 1, 4, 2]
    cascade = rm.CascadeModel().click_probabilities(rels)
    np.testing.assert_allclose(rm.DependentClickModel(continuation=0).click_probabilities(rels),
                               cascade)
    np.testing.assert_allclose(rm.DBNModel(gamma=1, satisfaction=1).click_probabilities(rels),
                               cascade)


def test_dcm_per_rank_continuation_by_hand():
    m = rm.DependentClickModel(continuation=[1.0, 0.0, 1.0], attractiveness="probability")
    # rank 2 is always reached (continuation 1 after a click); after rank 2, only without click
    np.testing.assert_allclose(m.click_probabilities([0.5, 0.5, 0.5]), [0.5, 0.5, 0.25])


# --- simulation against the exact values ----------------------------------------------------

MODELS = [
    rm.CascadeModel(),
    rm.PositionBasedModel(eta=1.0),
    rm.DependentClickModel(continuation=0.6),
    rm.DBNModel(gamma=0.8),
]


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.name)
def test_simulation_converges_to_the_exact_values(model):
    """Each simulated mean lies within 4 standard errors of the exact value (fixed seed)."""
    rels = [1, 4, 0, 2, 3, 0, 1, 4]
    n = 40_000
    log = model.simulate(rels, n, seed=7)
    exact = model.expected(rels)
    measured = rm.online_metrics(log)
    p = exact.clicks_per_rank
    se = np.sqrt(p * (1 - p) / n)
    assert np.all(np.abs(measured.clicks_per_rank - p) <= 4 * se + 1e-12)
    for name, per_session in [
        ("ctr", log.clicks.any(axis=1).astype(float)),
        ("clicks", log.clicks.sum(axis=1).astype(float)),
        ("first_click_rr", np.where(log.clicks.any(axis=1),
                                    1.0 / (log.clicks.argmax(axis=1) + 1), 0.0)),
    ]:
        se = per_session.std() / math.sqrt(n)
        assert abs(getattr(measured, name) - getattr(exact, name)) <= 4 * se, name


def test_a_simulation_with_a_wrong_model_is_detected():
    """The tolerance is tight enough to tell DCM's sessions from the cascade's values."""
    rels = [1, 4, 0, 2, 3]
    log = rm.DependentClickModel(continuation=0.6).simulate(rels, 40_000, seed=7)
    exact = rm.CascadeModel().expected(rels).clicks_per_rank
    se = np.sqrt(exact * (1 - exact) / 40_000)
    assert np.any(np.abs(log.clicks.mean(axis=0) - exact) > 4 * se)


def test_cascade_sessions_click_at_most_once_and_stop_there():
    log = rm.CascadeModel().simulate([4, 4, 3, 0], 2000, seed=1)
    assert log.clicks.sum(axis=1).max() == 1
    clicked = log.clicks.any(axis=1)
    assert np.all(log.last_examined[clicked] == log.clicks[clicked].argmax(axis=1) + 1)


def test_same_seed_same_sessions():
    m = rm.DBNModel()
    a, b = m.simulate([1, 2, 3], 100, seed=3), m.simulate([1, 2, 3], 100, seed=3)
    assert np.array_equal(a.clicks, b.clicks)


# --- the widget's compute core --------------------------------------------------------------

def test_scan_replays_the_log():
    m = rm.DependentClickModel(continuation=0.5)
    scan = rm.scan_ranking(m, [3, 0, 4, 1], n_sessions=50, seed=2)
    clicks = [(s, r) for s, r, action in scan.events if action == "click"]
    assert clicks == [(s, i + 1) for s, i in zip(*np.nonzero(scan.log.clicks))]
    stops = [r for _, r, action in scan.events if action == "stop"]
    assert stops == scan.log.last_examined.tolist()
    assert scan.running_ctr[-1] == pytest.approx(scan.log.clicks.any(axis=1).mean())
    assert scan.expected_ctr == pytest.approx(m.expected([3, 0, 4, 1]).ctr)


def test_scan_of_the_position_based_user_says_which_ranks_were_skipped():
    m = rm.PositionBasedModel(examination=[1.0, 0.0, 1.0], attractiveness="probability")
    scan = rm.scan_ranking(m, [0.0, 1.0, 0.0])
    assert scan.events == [(0, 1, "examine"), (0, 2, "skip"), (0, 3, "examine"), (0, 3, "stop")]


# --- bad input ------------------------------------------------------------------------------

@pytest.mark.parametrize("call, message", [
    (lambda: rm.CascadeModel(attractiveness="probability").click_probabilities([0.5, 1.2]),
     r"rels\[1\] must be a probability in \[0, 1\], got 1.2"),
    (lambda: rm.DBNModel(gamma=1.5), r"gamma must be a probability in \[0, 1\], got 1.5"),
    (lambda: rm.DependentClickModel(continuation=[0.5, -0.1]),
     r"continuation\[1\] must be a probability in \[0, 1\], got -0.1"),
    (lambda: rm.PositionBasedModel(examination=[1, 2]),
     r"examination\[1\] must be a probability in \[0, 1\], got 2"),
    (lambda: rm.CascadeModel().simulate([1, 2, 3], 10, depth=5),
     "depth=5 is deeper than the ranking, which has 3 documents"),
    (lambda: rm.CascadeModel().simulate([1, 2, 3], 0), "n_sessions must be at least 1, got 0"),
    (lambda: rm.CascadeModel().expected([1, 5]), "at most max_grade=4, got 5"),
    (lambda: rm.PositionBasedModel(eta=-1), "eta must be a finite number >= 0, got -1"),
    (lambda: rm.CascadeModel(attractiveness="exp"), "attractiveness must be one of"),
])
def test_bad_input_names_the_argument_and_value(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_nested_probabilities_are_refused_not_flattened():
    with pytest.raises(ValueError, match=r"rels must be a 1-D sequence of probabilities"):
        rm.CascadeModel(attractiveness="probability").click_probabilities([[0.5, 0.2]])
