"""PPI over repeated draws: every draw is the library's one-sample interval; the variance ratio."""

import numpy as np
import pytest

import ragmetrics_edu as rm
from ragmetrics_edu.judge.ppi_study import ppi_repeated, ppi_variance_ratio


def _population(seed, size=300, noise=0.25):
    rng = np.random.default_rng(seed)
    Y = (rng.random(size) < 0.3).astype(float)
    Yhat = np.where(rng.random(size) < noise, 1 - Y, Y)
    return Y, Yhat


def _draws(seed, repeats, size, n):
    u = np.random.default_rng(seed).random((repeats, size))
    return [np.sort(np.argsort(row)[:n]) for row in u]


@pytest.mark.parametrize("lam", [1, None, 0.5, 0])
def test_each_draw_is_ppi_mean_ci_of_that_sample(lam):
    Y, Yhat = _population(1)
    r = ppi_repeated(Y, Yhat, n=40, repeats=30, lam=lam, alpha=0.1, seed=7)
    for k, labelled in enumerate(_draws(7, 30, len(Y), 40)):
        mask = np.ones(len(Y), bool)
        mask[labelled] = False
        low, high = rm.ppi_mean_ci(Y[labelled], Yhat[labelled], Yhat[mask], alpha=0.1, lam=lam)
        assert (r.low[k], r.high[k]) == pytest.approx((low, high), abs=1e-12)
        c_low, c_high = rm.classical_mean_ci(Y[labelled], alpha=0.1)
        assert (r.classical_low[k], r.classical_high[k]) == pytest.approx((c_low, c_high), abs=1e-12)
        if lam is None:
            assert r.lam[k] == pytest.approx(
                rm.ppi_tuned_lambda(Y[labelled], Yhat[labelled], Yhat[mask]), abs=1e-12)


def test_coverage_and_width_are_counted_from_the_draws():
    Y, Yhat = _population(2)
    r = ppi_repeated(Y, Yhat, n=30, repeats=100, seed=0)
    hits = [(lo <= Y.mean() <= hi) for lo, hi in zip(r.low, r.high)]
    assert r.coverage == sum(hits) / 100 and r.truth == Y.mean()
    assert r.width == pytest.approx(np.mean(r.high - r.low))
    assert r.n == 30 and r.N == 270 and "PPI, n=30 labelled of 300" in str(r)


def test_the_variance_ratio_by_hand():
    # Y = [1, 1, 0, 0], Yhat = [1, 0, 0, 0], repeated 25 times: var Y 1/4, var Yhat 3/16,
    # cov = E[Y Yhat] - 1/2 * 1/4 = 1/4 - 1/8 = 1/8; rho^2 = (1/64) / (1/4 * 3/16) = 1/3
    Y = [1, 1, 0, 0] * 25
    Yhat = [1, 0, 0, 0] * 25
    n, N = 20, 80
    plain = (1 / 4 - 2 / 8 + 3 / 16 * (1 + n / N)) / (1 / 4)
    assert ppi_variance_ratio(Y, Yhat, n=n) == pytest.approx(plain)
    assert ppi_variance_ratio(Y, Yhat, n=n, lam=None) == pytest.approx(1 - (1 / 3) * N / (n + N))


def test_the_ratio_predicts_the_widths_over_many_draws():
    Y, Yhat = _population(3, size=2000, noise=0.15)
    for lam in (1, None):
        r = ppi_repeated(Y, Yhat, n=200, repeats=400, lam=lam, seed=1)
        measured = (r.width / r.classical_width) ** 2
        assert measured == pytest.approx(ppi_variance_ratio(Y, Yhat, n=200, lam=lam), rel=0.05)


def test_the_tuned_lambda_minimises_the_ratio():
    Y, Yhat = _population(4, size=500)
    best = ppi_variance_ratio(Y, Yhat, n=50, lam=None)
    for lam in np.linspace(0, 1.5, 31):
        assert ppi_variance_ratio(Y, Yhat, n=50, lam=float(lam)) >= best - 1e-12


@pytest.mark.parametrize("kwargs, message", [
    ({"n": 1}, "n must be a whole number"),
    ({"n": 299}, "n must be a whole number"),
    ({"repeats": 0}, "repeats"),
    ({"alpha": 1.0}, "alpha"),
    ({"lam": "ppi++"}, "lam"),
    ({"seed": -1}, "seed"),
])
def test_arguments_are_refused_by_name(kwargs, message):
    Y, Yhat = _population(5)
    args = {"n": 20} | kwargs
    with pytest.raises(ValueError, match=message):
        ppi_repeated(Y, Yhat, n=args.pop("n"), **args)


def test_labels_of_different_lengths_are_refused():
    with pytest.raises(ValueError, match="same items"):
        ppi_variance_ratio([0, 1, 0, 1], [0, 1, 0], n=2)
