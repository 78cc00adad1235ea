"""PPI at the edges (issue 34): a constant judge, and finite inputs of any magnitude.

The references are exact: means and variances as fractions (``fractions.Fraction`` of every
float), square roots and the bounds in 60-digit decimal arithmetic (``decimal``), whose
exponents have no float's limits. ppi-python itself is compared on ordinary inputs in
tests/crosscheck/test_calibration.py.
"""

import decimal
import math
from fractions import Fraction
from statistics import NormalDist

import numpy as np
import pytest

from ragmetrics_edu.judge.calibration import (
    classical_mean_ci,
    ppi_mean_ci,
    ppi_mean_pointestimate,
    ppi_tuned_lambda,
)

CONTEXT = decimal.Context(prec=60, Emax=10**6, Emin=-10**6)


def _mean(xs):
    return sum(xs, Fraction(0)) / len(xs)


def _var(xs, ddof=0):
    m = _mean(xs)
    return sum(((x - m) ** 2 for x in xs), Fraction(0)) / (len(xs) - ddof)


def _decimal(f):
    return CONTEXT.divide(decimal.Decimal(f.numerator), decimal.Decimal(f.denominator))


def exact_lambda(y, yhat, yhat_u):
    y, yhat, yhat_u = ([Fraction(float(v)) for v in a] for a in (y, yhat, yhat_u))
    n, N = len(y), len(yhat_u)
    my, mh = _mean(y), _mean(yhat)
    cov = sum(((a - my) * (b - mh) for a, b in zip(y, yhat)), Fraction(0)) / n
    var = _var(yhat + yhat_u, ddof=1)
    if var == 0:
        return Fraction(0)
    return min(max(cov / ((1 + Fraction(n, N)) * var), Fraction(0)), Fraction(1))


def exact_ci(y, yhat, yhat_u, lam, alpha):
    """The two-sided PPI interval, exactly (to 60 digits), as Decimals."""
    lam = exact_lambda(y, yhat, yhat_u) if lam is None else Fraction(lam)
    y, yhat, yhat_u = ([Fraction(float(v)) for v in a] for a in (y, yhat, yhat_u))
    imputed = [lam * v for v in yhat_u]
    rectifier = [a - lam * b for a, b in zip(y, yhat)]
    estimate = _decimal(_mean(imputed) + _mean(rectifier))
    variance = _decimal(_var(imputed) / len(imputed) + _var(rectifier) / len(rectifier))
    z = decimal.Decimal(repr(NormalDist().inv_cdf(1 - alpha / 2)))
    half = CONTEXT.multiply(z, CONTEXT.sqrt(variance))
    return CONTEXT.subtract(estimate, half), CONTEXT.add(estimate, half)


def close(ours, exact, rel=1e-9):
    if exact == 0:
        return abs(ours) < 1e-300
    return abs(decimal.Decimal(repr(float(ours))) - exact) <= decimal.Decimal(rel) * abs(exact)


FLOAT_MAX = decimal.Decimal(repr(float(np.finfo(float).max)))


# ----------------------------------------------------------------- a constant judge

def test_a_constant_judge_gets_lambda_zero_whatever_its_constant():
    """Before: 0.3 ten times has a NumPy variance of about 3e-33, not 0, and got a lambda
    of 0.09 to 0.77 (132 of the 2,320 cases below)."""
    rng = np.random.default_rng(0)
    wrong = []
    for c in (0.3, 0.1, 0.7, 1 / 3, 0.2, 0.9, 2 / 3, 0.6, 1e-300, 1e300):
        for n in range(2, 12):
            for N in range(1, 30):
                y = rng.integers(0, 2, n).astype(float)
                lam = ppi_tuned_lambda(y, [c] * n, [c] * N)
                low, high = ppi_mean_ci(y, [c] * n, [c] * N)
                if lam != 0.0 or (low, high) != classical_mean_ci(y):
                    wrong.append((c, n, N, lam))
    assert wrong == []


def test_a_judge_constant_but_for_one_item_is_not_constant():
    y = [0.0, 1.0, 1.0, 0.0]
    lam = ppi_tuned_lambda(y, [0.3, 0.3, 0.3, 0.3], [0.3] * 5 + [0.3000000000000001])
    assert lam == float(exact_lambda(y, [0.3] * 4, [0.3] * 5 + [0.3000000000000001]))


# ----------------------------------------------------------------- extreme magnitudes

SCALES = (1e-300, 1e-150, 1.0, 1e150, 1e200, 1e300, 1e307)
LAMS = (None, 1, 0.5, 1e-300, 1e300, 1e308)


def _inputs(rng, scale):
    y = rng.choice([-1.0, 0.0, 0.5, 1.0], 7) * scale
    yhat = np.clip(y / scale + rng.choice([-0.5, 0.0, 0.5], 7), -1, 1) * scale
    yhat_u = rng.choice([-1.0, 0.0, 0.5, 1.0], 11) * scale
    return y.tolist(), yhat.tolist(), yhat_u.tolist()


@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("lam", LAMS)
def test_finite_inputs_give_the_exact_interval_or_say_it_overflows(scale, lam):
    """Before: lam=1e308 with values of 1e200 gave (nan, nan), values of 1e200 gave
    (-inf, inf) or nan; now the bounds equal the exact ones wherever a float holds them,
    and a ValueError says so where it cannot."""
    rng = np.random.default_rng(int(math.log10(scale) + 400) * 7 + LAMS.index(lam))
    for _ in range(5):
        y, yhat, yhat_u = _inputs(rng, scale)
        low_x, high_x = exact_ci(y, yhat, yhat_u, lam, 0.1)
        if max(abs(low_x), abs(high_x)) > FLOAT_MAX:
            with pytest.raises(ValueError, match=r"beyond the range of a float.*lam"):
                ppi_mean_ci(y, yhat, yhat_u, alpha=0.1, lam=lam)
            continue
        low, high = ppi_mean_ci(y, yhat, yhat_u, alpha=0.1, lam=lam)
        assert close(low, low_x) and close(high, high_x), (low, high, low_x, high_x)
        estimate = ppi_mean_pointestimate(y, yhat, yhat_u, lam=lam)
        assert low <= estimate <= high and math.isfinite(estimate)


@pytest.mark.parametrize("scale", SCALES)
def test_tuned_lambda_at_any_magnitude(scale):
    rng = np.random.default_rng(int(math.log10(scale) + 400))
    for _ in range(10):
        y, yhat, yhat_u = _inputs(rng, scale)
        ours = ppi_tuned_lambda(y, yhat, yhat_u)
        assert ours == pytest.approx(float(exact_lambda(y, yhat, yhat_u)), rel=1e-9, abs=1e-12)
        # lambda compares the judge's labels with the people's: the same at any scale
        assert ours == pytest.approx(ppi_tuned_lambda(*(np.array(a) / scale for a in
                                                        (y, yhat, yhat_u))), rel=1e-12)


@pytest.mark.parametrize("scale", SCALES)
def test_classical_interval_at_any_magnitude(scale):
    y = [scale, -scale, 0.5 * scale, scale]
    low, high = classical_mean_ci(y, alpha=0.1)
    m = _mean([Fraction(v) for v in y])
    half = CONTEXT.multiply(decimal.Decimal(repr(NormalDist().inv_cdf(0.95))),
                            CONTEXT.sqrt(_decimal(_var([Fraction(v) for v in y]) / 4)))
    assert close(low, CONTEXT.subtract(_decimal(m), half))
    assert close(high, CONTEXT.add(_decimal(m), half))


def test_one_sided_bounds_at_extreme_magnitudes():
    y, yhat, yhat_u = [1e300, -1e300, 5e299], [1e300, 0.0, 5e299], [1e300, -1e300] * 4
    # a one-sided bound at alpha is the two-sided one at 2 alpha: both use z_(1 - alpha)
    low, high = ppi_mean_ci(y, yhat, yhat_u, alpha=0.2, lam=1)
    low1, inf = ppi_mean_ci(y, yhat, yhat_u, alpha=0.1, alternative="larger", lam=1)
    minus_inf, high1 = ppi_mean_ci(y, yhat, yhat_u, alpha=0.1, alternative="smaller", lam=1)
    assert (inf, minus_inf) == (math.inf, -math.inf)
    assert low1 == pytest.approx(low, rel=1e-12) and high1 == pytest.approx(high, rel=1e-12)


def test_tuned_lambda_is_zero_for_constant_labels():
    """Issue 34: a constant Y gave lambda 7.4e-33 (a rounding of its covariance), not 0."""
    from ragmetrics_edu.judge.calibration import ppi_tuned_lambda

    assert ppi_tuned_lambda([0.1] * 7, [0.1, 0.9, 0.5, 0.4, 0.3, 0.2, 0.7], [0.2, 0.8] * 5) == 0.0
