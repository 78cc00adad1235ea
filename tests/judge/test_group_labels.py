"""Group labels (issue 34): a NaN label made one group per NaN, and a list label raised a bare
"unhashable type". Both are refused naming the argument and the position, by every interval
that resamples groups (bootstrap_ci too). A missing label (None, NaT, pandas' NA) is refused as
well: it names no group."""
import math

import numpy as np
import pytest

from ragmetrics_edu.judge.judge_vs_assessors import grade_agreement
from ragmetrics_edu.judge.assessors import kappa_ci
from ragmetrics_edu.judge.meta_eval import correlation_ci, meta_evaluate
from ragmetrics_edu.lab.significance import bootstrap_ci

A, B = [0, 1, 1, 0, 1, 0], [0, 1, 0, 0, 1, 1]
X, Y = [0.1, 0.4, 0.35, 0.8, 0.5, 0.9], [0, 1, 0, 1, 1, 1]
CALLS = [
    lambda g: kappa_ci(A, B, n_resamples=10, groups=g),
    lambda g: correlation_ci(X, Y, n_resamples=10, groups=g),
    lambda g: meta_evaluate({"m": X}, Y, n_resamples=10, groups=g),
    lambda g: grade_agreement(A, B, n_resamples=10, groups=g),
    lambda g: bootstrap_ci(X, n_resamples=10, groups=g),
]


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("groups", [np.array([math.nan, math.nan, math.nan, 1, 1, 1]),
                                    [1, 1, 2, 2, float("nan"), 2]])
def test_nan_group_labels_are_refused(call, groups):
    with pytest.raises(ValueError, match=r"groups\[\d\] is NaN"):
        call(groups)


@pytest.mark.parametrize("call", CALLS)
def test_unhashable_group_labels_are_named(call):
    with pytest.raises(TypeError, match=r"groups\[0\] must be a hashable label.*\[1\]"):
        call([[1], [1], [2], [2], [3], [3]])


def test_valid_labels_keep_their_groups():
    g = np.array([0.5, 0.5, 0.5, 1.0, 1.0, 1.0])
    assert (kappa_ci(A, B, n_resamples=50, groups=g).low
            == kappa_ci(A, B, n_resamples=50, groups=["a"] * 3 + ["b"] * 3).low)


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("groups, kind", [
    ([None] * 3 + [1] * 3, "None"),
    (np.array(["NaT"] * 3 + ["2020-01-01"] * 3, dtype="datetime64[D]"), "NaT"),
    ([1, 1, 1, 2, 2, np.datetime64("NaT")], "NaT"),
])
def test_missing_group_labels_are_refused(call, groups, kind):
    with pytest.raises(ValueError, match=rf"groups\[\d\] is {kind}"):
        call(groups)


def test_pandas_na_is_a_missing_label_not_a_bare_error():
    pd = pytest.importorskip("pandas")
    for call in CALLS:
        with pytest.raises(ValueError, match=r"groups\[0\] is NA"):
            call([pd.NA] * 3 + [1] * 3)

