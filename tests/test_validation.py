"""The shared argument checks: what they accept and how they refuse."""

import numpy as np
import pytest

import ragmetrics_edu as rm
from ragmetrics_edu._validation import check_rels


def test_check_rels_accepts_sequences_and_1d_arrays():
    assert check_rels([1, 0, 2]).tolist() == [1.0, 0.0, 2.0]
    assert check_rels((0.5, 0)).tolist() == [0.5, 0.0]
    assert check_rels(np.array([0, 1], dtype=np.int8)).tolist() == [0.0, 1.0]
    assert check_rels([]).tolist() == []


@pytest.mark.parametrize("rels, kind", [
    ({1, 0, 0, 0}, "set"),           # the set {0, 1}: rank order and the two 0s lost
    (frozenset([1, 0]), "frozenset"),
    ({0: 1, 1: 0}, "dict"),          # would be read by its keys 0, 1
])
def test_check_rels_refuses_sets_and_mappings(rels, kind):
    with pytest.raises(TypeError, match=rf"rels must be a sequence of grades in rank order, got a {kind}"):
        check_rels(rels)


@pytest.mark.parametrize("rels, shape", [(np.array(5), r"0-D array of shape \(\)"),
                                         (np.ones((2, 2)), r"2-D array of shape \(2, 2\)")])
def test_check_rels_refuses_arrays_not_1d(rels, shape):
    with pytest.raises(ValueError, match=rf"rels must be a 1-D sequence of grades.*{shape}"):
        check_rels(rels)


def test_metrics_refuse_sets_and_dicts():
    # the reviewer's cases: precision_at_k({1, 0, 0, 0}, 4) gave 1/4 and
    # hit_rate_at_k({0: 1, 1: 0}, 1) gave 0.0 instead of refusing
    with pytest.raises(TypeError, match="rels .* got a set"):
        rm.precision_at_k({1, 0, 0, 0}, 4)
    with pytest.raises(TypeError, match="rels .* got a dict"):
        rm.hit_rate_at_k({0: 1, 1: 0}, 1)
    with pytest.raises(ValueError, match="rels must be a 1-D"):
        rm.precision_at_k(np.array(5), 1)
    with pytest.raises(TypeError, match="rels .* got a set"):
        rm.ndcg_at_k({2, 1}, 2)
