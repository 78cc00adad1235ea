"""Prediction-powered inference against the ppi-python package, plus properties."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ragmetrics_edu as rm
from ragmetrics_edu.judge.calibration import (
    classical_mean_ci,
    ppi_mean_ci,
    ppi_mean_pointestimate,
    ppi_tuned_lambda,
)

ppi_py = pytest.importorskip("ppi_py")

TOL = 1e-9


def _draw(rng, kind):
    """(Y, Yhat, Yhat_unlabeled) of random sizes: binary labels, graded labels, or real scores."""
    n = int(rng.integers(2, 60))
    N = int(rng.integers(1, 400))
    if kind == "binary":
        y = rng.integers(0, 2, n).astype(float)
        flip = rng.random(n) < rng.random()
        yhat = np.where(flip, 1 - y, y)
        yhat_u = (rng.random(N) < rng.random()).astype(float)
    elif kind == "graded":
        y = rng.integers(0, 4, n).astype(float)
        yhat = np.clip(y + rng.integers(-1, 2, n), 0, 3).astype(float)
        yhat_u = rng.integers(0, 4, N).astype(float)
    else:
        y = rng.normal(rng.normal(), rng.uniform(0.1, 3), n)
        yhat = rng.uniform(-1, 2) * y + rng.normal(rng.normal(), rng.uniform(0.01, 2), n)
        yhat_u = rng.normal(rng.normal(), rng.uniform(0.1, 3), N)
    return y, yhat, yhat_u


def _one(x):
    return float(np.asarray(x).reshape(-1)[0])


@pytest.mark.parametrize("kind", ["binary", "graded", "real"])
def test_equal_to_ppi_python_on_random_inputs(kind):
    rng = np.random.default_rng({"binary": 1, "graded": 2, "real": 3}[kind])
    worst = 0.0
    for _ in range(300):
        y, yhat, yhat_u = _draw(rng, kind)
        if np.var(np.concatenate([yhat, yhat_u])) == 0:
            continue  # ppi_py gives nan there (tested below)
        alpha = float(rng.uniform(0.01, 0.5))
        for lam in (None, 0.0, 1.0, float(rng.uniform(-0.5, 1.5))):
            ours = ppi_mean_ci(y, yhat, yhat_u, alpha=alpha, lam=lam)
            theirs = ppi_py.ppi_mean_ci(y, yhat, yhat_u, alpha=alpha, lam=lam)
            point = ppi_mean_pointestimate(y, yhat, yhat_u, lam=lam)
            their_point = ppi_py.ppi_mean_pointestimate(y, yhat, yhat_u, lam=lam)
            for a, b in ((ours[0], theirs[0]), (ours[1], theirs[1]), (point, their_point)):
                worst = max(worst, abs(a - _one(b)))
        low, high = classical_mean_ci(y, alpha=alpha)
        c_low, c_high = ppi_py.classical_mean_ci(y, alpha=alpha)
        worst = max(worst, abs(low - c_low), abs(high - c_high))
    assert worst < TOL, worst


@pytest.mark.parametrize("alternative", ["larger", "smaller"])
def test_one_sided_intervals_equal_ppi_python(alternative):
    rng = np.random.default_rng(7)
    for _ in range(100):
        y, yhat, yhat_u = _draw(rng, "real")
        alpha = float(rng.uniform(0.01, 0.5))
        lam = float(rng.uniform(0, 1))
        ours = ppi_mean_ci(y, yhat, yhat_u, alpha=alpha, alternative=alternative, lam=lam)
        theirs = ppi_py.ppi_mean_ci(y, yhat, yhat_u, alpha=alpha, alternative=alternative, lam=lam)
        for a, b in zip(ours, theirs):
            b = _one(b)
            assert (math.isinf(a) and a == b) or abs(a - b) < TOL
        ours = classical_mean_ci(y, alpha=alpha, alternative=alternative)
        theirs = ppi_py.classical_mean_ci(y, alpha=alpha, alternative=alternative)
        for a, b in zip(ours, theirs):
            assert (math.isinf(a) and a == float(b)) or abs(a - float(b)) < TOL


def test_tuned_one_sided_interval_uses_the_tuned_lambda():
    """ppi_py 0.2.3 drops `alternative` when lam=None; ours is the one-sided interval at lambda-hat."""
    rng = np.random.default_rng(11)
    y, yhat, yhat_u = _draw(rng, "real")
    lam = ppi_tuned_lambda(y, yhat, yhat_u)
    low, high = ppi_mean_ci(y, yhat, yhat_u, alternative="larger")
    ref_low, ref_high = ppi_py.ppi_mean_ci(y, yhat, yhat_u, alternative="larger", lam=lam)
    assert high == math.inf and ref_high == math.inf
    assert abs(low - _one(ref_low)) < TOL


def test_tuned_lambda_equals_the_one_ppi_python_uses():
    """The tuned estimate equals ppi_py's at our lambda-hat, and lambda-hat lies in [0, 1]."""
    rng = np.random.default_rng(5)
    for _ in range(200):
        y, yhat, yhat_u = _draw(rng, "real")
        lam = ppi_tuned_lambda(y, yhat, yhat_u)
        assert 0.0 <= lam <= 1.0
        tuned = _one(ppi_py.ppi_mean_pointestimate(y, yhat, yhat_u))
        at_lam = _one(ppi_py.ppi_mean_pointestimate(y, yhat, yhat_u, lam=lam))
        assert abs(tuned - at_lam) < TOL


def test_constant_judge_gives_the_classical_interval():
    y = [1.0, 0.0, 1.0, 1.0, 0.0]
    assert ppi_tuned_lambda(y, [1] * 5, [1] * 9) == 0.0
    assert ppi_mean_ci(y, [1] * 5, [1] * 9) == pytest.approx(classical_mean_ci(y), abs=1e-12)
    # ppi_py returns nan here (0 / 0 in its lambda); every lambda gives the classical interval
    assert ppi_mean_ci(y, [1] * 5, [1] * 9, lam=0.7) == pytest.approx(classical_mean_ci(y), abs=1e-12)


def test_hand_computed_example():
    # lam=1: 0.5 (judge mean) + (2 - 3) / 4 = 0.25 rectifier mean -> 0.25
    # se^2 = 0.25 / 4 (judge var 0.25, N = 4) + var([0, -1, 0, 0]) / 4 = 0.0625 + 0.1875 / 4
    y, yhat, yhat_u = [1, 0, 1, 0], [1, 1, 1, 0], [1, 0, 1, 0]
    assert ppi_mean_pointestimate(y, yhat, yhat_u, lam=1) == pytest.approx(0.25)
    se = math.sqrt(0.0625 + 0.1875 / 4)
    z = 1.959963984540054
    assert ppi_mean_ci(y, yhat, yhat_u, alpha=0.05, lam=1) == pytest.approx((0.25 - z * se, 0.25 + z * se))


def test_public_names():
    assert rm.ppi_mean_ci is ppi_mean_ci
    assert rm.ppi_mean_pointestimate is ppi_mean_pointestimate
    assert rm.classical_mean_ci is classical_mean_ci
    assert rm.ppi_tuned_lambda is ppi_tuned_lambda


def test_the_parameters_are_ppi_pythons():
    """Our one exception to ``confidence`` (docs/architecture.md): the PPI functions take
    ppi-python's names, ``alpha`` = 1 - confidence included, in its order."""
    import inspect

    for ours in (ppi_mean_ci, classical_mean_ci, ppi_mean_pointestimate):
        theirs = list(inspect.signature(getattr(ppi_py, ours.__name__)).parameters)
        mine = list(inspect.signature(ours).parameters)
        assert mine == [name for name in theirs if name in mine], ours.__name__


# ----------------------------------------------------------------- properties

finite = st.floats(-100, 100, allow_nan=False)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(finite, finite), min_size=2, max_size=30),
       st.lists(finite, min_size=1, max_size=60),
       st.floats(0.01, 0.5))
def test_lam_zero_is_the_classical_interval(pairs, yhat_u, alpha):
    y, yhat = [p[0] for p in pairs], [p[1] for p in pairs]
    ours = ppi_mean_ci(y, yhat, yhat_u, alpha=alpha, lam=0)
    assert ours == pytest.approx(classical_mean_ci(y, alpha=alpha), rel=1e-12, abs=1e-12)
    assert ppi_mean_pointestimate(y, yhat, yhat_u, lam=0) == pytest.approx(np.mean(y), abs=1e-9)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(finite, finite), min_size=2, max_size=30),
       st.lists(finite, min_size=1, max_size=60),
       st.floats(0.01, 0.5), st.one_of(st.none(), st.floats(-2, 2)))
def test_interval_holds_the_estimate(pairs, yhat_u, alpha, lam):
    y, yhat = [p[0] for p in pairs], [p[1] for p in pairs]
    low, high = ppi_mean_ci(y, yhat, yhat_u, alpha=alpha, lam=lam)
    point = ppi_mean_pointestimate(y, yhat, yhat_u, lam=lam)
    slack = 1e-9 * (1 + abs(point))
    assert low - slack <= point <= high + slack
    # a smaller alpha widens the interval
    low2, high2 = ppi_mean_ci(y, yhat, yhat_u, alpha=alpha / 2, lam=lam)
    assert low2 <= low + slack and high2 >= high - slack


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 1), min_size=2, max_size=20).filter(lambda v: 0 < sum(v) < len(v)),
       st.lists(st.integers(0, 1), min_size=2, max_size=20).filter(lambda v: 0 < sum(v) < len(v)),
       st.integers(2, 10))
def test_perfect_judge_shrinks_the_interval_as_unlabelled_items_grow(y, base, copies):
    """Yhat == Y: the rectifier has no variance, so the width goes as 1 / sqrt(N)."""
    small = ppi_mean_ci(y, y, base, lam=1)
    large = ppi_mean_ci(y, y, base * copies, lam=1)
    width_small, width_large = small[1] - small[0], large[1] - large[0]
    assert width_large == pytest.approx(width_small / math.sqrt(copies), rel=1e-9)
    # and, tuned, it is never wider than the people-only interval by more than rounding
    tuned = ppi_mean_ci(y, y, base * copies)
    classical = classical_mean_ci(y)
    assert tuned[1] - tuned[0] <= classical[1] - classical[0] + 1e-12


def test_coverage_of_a_biased_judge_in_simulation():
    """PPI covers the truth about 90% of the time however biased the judge; the judge alone does not."""
    rng = np.random.default_rng(0)
    truth, n, N, draws = 0.3, 80, 2000, 400
    hits_ppi = hits_judge = 0
    for _ in range(draws):
        y = (rng.random(n) < truth).astype(float)
        yhat = np.where(rng.random(n) < 0.8, y, 1.0)  # says "relevant" too often
        y_u = (rng.random(N) < truth).astype(float)
        yhat_u = np.where(rng.random(N) < 0.8, y_u, 1.0)
        low, high = ppi_mean_ci(y, yhat, yhat_u, alpha=0.1)
        hits_ppi += low <= truth <= high
        j_low, j_high = classical_mean_ci(yhat_u, alpha=0.1)
        hits_judge += j_low <= truth <= j_high
    assert 0.85 <= hits_ppi / draws <= 0.95
    assert hits_judge / draws < 0.05


# ----------------------------------------------------------------- bad input

@pytest.mark.parametrize("call, match", [
    (lambda: ppi_mean_ci([1, 0], [1], [1, 0]), "Y and Yhat"),
    (lambda: ppi_mean_ci([], [], [1, 0]), "Y must hold at least 2"),
    (lambda: ppi_mean_pointestimate([], [], [1]), "Y must hold at least 1"),
    (lambda: ppi_mean_ci([1, 0], [1, 0], []), "Yhat_unlabeled must hold at least 1"),
    (lambda: ppi_mean_ci([1, 0], [1, 0], [1], alpha=0), "alpha"),
    (lambda: ppi_mean_ci([1, 0], [1, 0], [1], alpha=1.5), "alpha"),
    (lambda: classical_mean_ci([1, 0], alpha=True), "alpha"),
    (lambda: ppi_mean_ci([1, float("nan")], [1, 0], [1]), "Y must be finite.*index 1"),
    (lambda: ppi_mean_ci([1, 0], [1, 0], [1, float("inf")]), "Yhat_unlabeled must be finite"),
    (lambda: ppi_mean_ci([1, 0], [float("nan"), 0], [1]), "Yhat must be finite"),
    (lambda: ppi_mean_ci([1, 0], [1, 0], [1], lam=float("nan")), "lam"),
    (lambda: ppi_mean_ci([1, 0], [1, 0], [1], alternative="less"), "alternative"),
    (lambda: ppi_mean_ci([[1, 0]], [[1, 0]], [1]), "one-dimensional"),
    (lambda: classical_mean_ci([1]), "at least 2"),
])
def test_bad_input_names_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_non_numbers_are_refused():
    with pytest.raises(TypeError, match="Y must"):
        ppi_mean_ci("10", [1, 0], [1])
    with pytest.raises(TypeError, match="Yhat_unlabeled must hold numbers"):
        ppi_mean_ci([1, 0], [1, 0], ["a", "b"])
    with pytest.raises(TypeError):
        classical_mean_ci([1, 0], 0.1)  # alpha is keyword-only (ppi_py's 2nd argument is w)
