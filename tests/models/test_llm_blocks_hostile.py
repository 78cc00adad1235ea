"""The decoder's building blocks (``decoder.__all__``) called directly, as a notebook does, with
bad arguments: each is refused naming the argument, or (integers to softmax) read as numbers.

A held-out probe found them unchecked: ``softmax([1, 2])`` a NumPy casting error,
``softmax([inf, 1.])`` NaN; ``rms_norm`` with a negative or NaN ``eps``; ``rotary_tables`` NaN
tables for a ``theta`` of 0, negative or NaN, odd or non-positive head sizes, a string or a
fraction for ``positions``, ``positions=10**9`` a 7.45 GiB MemoryError; ``top_p_filter`` any
``top_p``; ``10**400`` a bare OverflowError.
"""

import math

import numpy as np
import pytest

from ragmetrics_edu.models import decoder

INF, NAN = float("inf"), float("nan")


def test_softmax_of_integers_is_the_softmax_of_the_same_floats():
    # by hand: e^1 / (e^1 + e^2) = 1 / (1 + e)
    got = decoder.softmax([1, 2])
    np.testing.assert_allclose(got, [1 / (1 + math.e), math.e / (1 + math.e)], rtol=1e-12)
    np.testing.assert_allclose(decoder.softmax(np.array([[0, 0], [3, 3]], dtype=np.int8)),
                               [[0.5, 0.5], [0.5, 0.5]])
    assert decoder.softmax([True, False]).dtype == np.float64


@pytest.mark.parametrize("x", [[INF, 1.0], [NAN, 1.0], [-INF, -INF], [[0.0, 1.0], [INF, 0.0]]])
def test_softmax_refuses_scores_without_a_finite_largest(x):
    with pytest.raises(ValueError, match=r"softmax: x .*finite"):
        decoder.softmax(x)


@pytest.mark.parametrize("x, error", [([], ValueError), (["a", "b"], TypeError),
                                      ([None, 1.0], TypeError)])
def test_softmax_refuses_empty_or_non_numeric_scores(x, error):
    with pytest.raises(error, match=r"softmax: x"):
        decoder.softmax(x)


def test_softmax_keeps_minus_infinity_as_probability_zero():
    assert decoder.softmax([-INF, 0.0, 0.0]).tolist() == [0.0, 0.5, 0.5]


X, W = np.array([[3.0, 4.0]], dtype=np.float32), np.ones(2, dtype=np.float32)


@pytest.mark.parametrize("eps, error", [(-1, ValueError), (-1e-9, ValueError), (NAN, ValueError),
                                        (INF, ValueError), (10**400, ValueError),
                                        ("1e-5", TypeError), (None, TypeError),
                                        (True, TypeError)])
def test_rms_norm_refuses_an_epsilon_that_is_not_a_finite_number_at_least_0(eps, error):
    with pytest.raises(error, match="eps"):
        decoder.rms_norm(X, W, eps=eps)


def test_rms_norm_takes_any_real_epsilon_at_least_0():
    for eps in (0, 0.0, 1e-5, np.float32(1e-5), np.float64(1e-6), 1):
        out = decoder.rms_norm(X, W, eps=eps)
        want = np.array([3.0, 4.0]) / math.sqrt(12.5 + float(eps))   # by hand
        np.testing.assert_allclose(out[0], want, rtol=1e-6)


@pytest.mark.parametrize("theta, error", [(0, ValueError), (0.0, ValueError), (-1e4, ValueError),
                                          (NAN, ValueError), (INF, ValueError),
                                          (10**400, ValueError), ("1e4", TypeError),
                                          (None, TypeError), (True, TypeError)])
def test_rotary_tables_refuse_a_base_that_is_not_positive_and_finite(theta, error):
    with pytest.raises(error, match="theta"):
        decoder.rotary_tables(8, 4, theta=theta)


@pytest.mark.parametrize("head_size, error", [(63, ValueError), (0, ValueError), (-2, ValueError),
                                              (8.0, TypeError), ("8", TypeError),
                                              (True, TypeError), (10**400, ValueError)])
def test_rotary_tables_refuse_a_head_size_that_is_not_a_positive_even_integer(head_size, error):
    with pytest.raises(error, match="head_size"):
        decoder.rotary_tables(head_size, 4, theta=10000.0)


@pytest.mark.parametrize("positions, error", [
    ("4", TypeError), (1.5, TypeError), (True, TypeError), (None, TypeError),
    (np.array([1.5]), TypeError), (-1, ValueError), (np.array([-1, 2]), ValueError),
    (10**9, ValueError), (10**400, ValueError), (np.array([0, 10**9]), ValueError),
    (np.zeros((2, 2), dtype=int), ValueError)])
def test_rotary_tables_refuse_positions_that_are_not_a_count_or_integers_in_range(positions,
                                                                                 error):
    with pytest.raises(error, match="positions"):
        decoder.rotary_tables(8, positions, theta=10000.0)


def test_rotary_tables_take_up_to_the_documented_number_of_positions():
    limit = decoder.MAX_POSITIONS
    cos, sin = decoder.rotary_tables(2, np.array([0, limit - 1]), theta=10000.0)
    # head size 2: one pair, turning by p * theta**0 = p radians
    np.testing.assert_allclose(sin[:, 0], [0.0, math.sin(limit - 1)], atol=1e-6)
    with pytest.raises(ValueError, match="positions"):
        decoder.rotary_tables(2, np.array([limit]), theta=10000.0)
    assert decoder.rotary_tables(4, 0, theta=100.0)[0].shape == (0, 2)
    assert decoder.rotary_tables(4, np.int64(3), theta=100.0)[0].shape == (3, 2)


@pytest.mark.parametrize("top_p, error", [(NAN, ValueError), (1.5, ValueError), (-1, ValueError),
                                          (0, ValueError), (10**400, ValueError),
                                          (True, TypeError), (None, TypeError),
                                          ("0.5", TypeError)])
def test_top_p_filter_refuses_a_top_p_outside_0_to_1(top_p, error):
    with pytest.raises(error, match="top_p"):
        decoder.top_p_filter(np.array([0.5, 0.3, 0.2]), top_p)
