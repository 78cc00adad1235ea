"""The guard of tests/_bounded.py can fail: a call that never ends is reported, not waited for."""

import re

from tests._bounded import finishes


def test_a_backtracking_pattern_does_not_finish():
    # nested quantifiers on 60 a's without the b: 2**60 paths
    assert not finishes(lambda text: re.match(r"(a+)+b", text), "a" * 60, budget=1.0)


def test_a_linear_call_and_a_refusal_finish_and_other_errors_fail():
    assert finishes(len, "x" * 1_000_000)
    assert finishes(int, "not a number")  # ValueError: a refusal
    assert not finishes(len, 3)  # TypeError: a failure
