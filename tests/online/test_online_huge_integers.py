"""Integers beyond a float's range in the online functions (issue 34).

Before: 10**400 as a proportion of ``ab_sample_size``, the effect of ``one_sample_size``, a
propensity of ``ips_estimate`` or an alpha or power gave a bare OverflowError ("int too large
to convert to float"), naming nothing. Now the argument is named and the value shown by its
size, never as 400 digits."""
import pytest

from ragmetrics_edu.online.ab_test import ab_sample_size, one_sample_size
from ragmetrics_edu.online.counterfactual import ips_estimate

HUGE = 10 ** 400


@pytest.mark.parametrize("call, rule", [
    (lambda: ab_sample_size(HUGE, 0.1), r"p_a must be a probability in \[0, 1\]"),
    (lambda: ab_sample_size(0.1, -HUGE), r"p_b must be a probability in \[0, 1\]"),
    (lambda: ab_sample_size(0.1, 0.2, alpha=HUGE), r"alpha must be a probability in \(0, 1\)"),
    (lambda: ab_sample_size(0.1, 0.2, power=HUGE), r"power must be a probability in \(0, 1\)"),
    (lambda: one_sample_size(HUGE), "effect must be numbers a float can hold"),
    (lambda: one_sample_size(-HUGE), "effect must be numbers a float can hold"),
    (lambda: ips_estimate([[1, 0]], ["a", "b"], ["b", "a"], propensities=[HUGE, 0.5]),
     r"propensities\[0\] must be a probability in \[0, 1\]"),
])
def test_integers_beyond_a_float_are_named(call, rule):
    with pytest.raises(ValueError, match=rule) as info:
        call()
    assert "10**400" in str(info.value) and len(str(info.value)) < 250


def test_an_effect_that_is_not_a_number_is_a_type_error():
    with pytest.raises(TypeError, match="effect must be a number .*, got 'a'"):
        one_sample_size("a")


def test_ordinary_integers_still_work():
    # a probability of 1 or 0 given as an int, and an integer effect: 1 standard deviation
    assert ab_sample_size(0, 1) == pytest.approx(ab_sample_size(0.0, 1.0))
    assert one_sample_size(1) == one_sample_size(1.0)
