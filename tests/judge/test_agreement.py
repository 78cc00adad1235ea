"""Agreement statistics against scikit-learn and scipy, and by hand."""

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import cohen_kappa_score
from sklearn.metrics import confusion_matrix as sk_confusion_matrix

from ragmetrics_edu.judge import cohen_kappa, confusion_matrix, kendall_tau, percent_agreement, spearman
from ragmetrics_edu.judge.agreement import _kendall_tau_reference, rankdata


def test_kappa_by_hand():
    # 10 items, labels yes/no:
    #          b=yes b=no
    # a=yes      4     1
    # a=no       2     3
    a = ["y"] * 5 + ["n"] * 5
    b = ["y", "y", "y", "y", "n", "y", "y", "n", "n", "n"]
    # p_o = 7/10; p_e = (5/10)(6/10) + (5/10)(4/10) = 0.5; kappa = (0.7 - 0.5)/(1 - 0.5) = 0.4
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    assert percent_agreement(a, b) == pytest.approx(0.7)
    m, labels = confusion_matrix(a, b)
    assert labels == ["n", "y"] and m.tolist() == [[3, 2], [1, 4]]


def test_weighted_kappa_by_hand():
    a = [1, 2, 3]
    b = [1, 3, 3]
    # O = [[1,0,0],[0,0,1],[0,0,1]]; rows (1,1,1), cols (1,0,2); E = outer/3
    # E = [[1/3,0,2/3],[1/3,0,2/3],[1/3,0,2/3]]
    # linear: observed cost |2-3| * 1 = 1; expected cost 2*(2/3) + 1*(1/3) + 1*(2/3) + 2*(1/3) = 3
    #         kappa = 1 - 1/3
    assert cohen_kappa(a, b, weights="linear") == pytest.approx(2 / 3)
    # quadratic: observed 1; expected 4*(2/3) + 1/3 + 2/3 + 4*(1/3) = 5; kappa = 0.8
    assert cohen_kappa(a, b, weights="quadratic") == pytest.approx(0.8)


def test_kappa_undefined_is_nan():
    assert math.isnan(cohen_kappa([3, 3, 3], [3, 3, 3]))


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_kappa_equals_sklearn_on_random_labels(weights):
    rng = np.random.default_rng(2024)
    checked = 0
    for _ in range(300):
        n = int(rng.integers(2, 40))
        k = int(rng.integers(2, 6))
        a = rng.integers(1, k + 1, size=n)
        # b agrees with a about half the time
        b = np.where(rng.random(n) < 0.5, a, rng.integers(1, k + 1, size=n))
        if len(set(a) | set(b)) < 2:
            continue
        expected = cohen_kappa_score(a, b, weights=weights)
        got = cohen_kappa(a.tolist(), b.tolist(), weights=weights)
        if math.isnan(expected):
            assert math.isnan(got)
        else:
            assert got == pytest.approx(expected, abs=1e-12)
        checked += 1
    assert checked > 250


def test_kappa_with_labels_equals_sklearn():
    rng = np.random.default_rng(7)
    for _ in range(100):
        a = rng.choice([1, 5], size=20)
        b = rng.choice([1, 2, 5], size=20)
        for weights in (None, "linear", "quadratic"):
            assert cohen_kappa(a, b, weights=weights, labels=range(1, 6)) == pytest.approx(
                cohen_kappa_score(a, b, weights=weights, labels=list(range(1, 6))), abs=1e-12)


def test_confusion_matrix_equals_sklearn():
    rng = np.random.default_rng(3)
    for _ in range(100):
        a = rng.integers(0, 4, size=15)
        b = rng.integers(0, 4, size=15)
        m, labels = confusion_matrix(a.tolist(), b.tolist())
        assert m.tolist() == sk_confusion_matrix(a, b, labels=labels).tolist()


def test_spearman_by_hand():
    # ranks [1,2,3,4] vs [1,3,2,4]: d = (0,1,1,0), sum d^2 = 2; rho = 1 - 6*2/(4*15) = 0.8
    assert spearman([10, 20, 30, 40], [1, 3, 2, 4]) == pytest.approx(0.8)
    assert math.isnan(spearman([1, 1, 1], [1, 2, 3]))


def test_kendall_by_hand():
    # [1,2,2] vs [1,2,3]: pairs (1,2) C, (1,3) C, (2,3) tied in a only
    # tau_b = (2 - 0)/sqrt((2 + 0 + 1)(2 + 0 + 0)) = 2/sqrt(6)
    assert kendall_tau([1, 2, 2], [1, 2, 3]) == pytest.approx(2 / math.sqrt(6))
    assert _kendall_tau_reference([1, 2, 2], [1, 2, 3]) == pytest.approx(2 / math.sqrt(6))
    assert math.isnan(kendall_tau([2, 2], [1, 3]))


def test_kendall_reference_tiny_differences_equal_scipy():
    # both raters put item 1 below item 0: one concordant pair, tau = 1
    a = [0.0, -8.257981682108129e-157]
    b = [0.0, -2.2250738585072014e-308]
    assert stats.kendalltau(a, b).statistic == 1.0
    assert _kendall_tau_reference(a, b) == 1.0
    assert kendall_tau(a, b) == 1.0


def test_rankdata_equals_scipy():
    rng = np.random.default_rng(11)
    for _ in range(100):
        x = rng.integers(0, 5, size=int(rng.integers(1, 20)))
        assert rankdata(x).tolist() == stats.rankdata(x).tolist()


def test_correlations_equal_scipy_on_random_scores():
    rng = np.random.default_rng(99)
    checked = 0
    for _ in range(300):
        n = int(rng.integers(3, 30))
        a = rng.integers(1, 6, size=n)           # rubric-like scores, many ties
        b = np.clip(a + rng.integers(-2, 3, size=n), 1, 5)
        if len(set(a)) < 2 or len(set(b)) < 2:
            continue
        assert spearman(a, b) == pytest.approx(stats.spearmanr(a, b).statistic, abs=1e-12)
        tau = stats.kendalltau(a, b).statistic
        assert kendall_tau(a, b) == pytest.approx(tau, abs=1e-12)
        assert _kendall_tau_reference(a, b) == pytest.approx(tau, abs=1e-12)
        checked += 1
    assert checked > 250


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(-5, 5, allow_nan=False), st.floats(-5, 5, allow_nan=False)),
                min_size=2, max_size=25))
# differences of 1e-157 and 1e-308: their product underflows to 0.0
@example(pairs=[(0.0, 0.0), (-8.257981682108129e-157, -2.2250738585072014e-308)])
def test_correlations_property(pairs):
    a = [p[0] for p in pairs]
    b = [p[1] for p in pairs]
    if len(set(a)) < 2 or len(set(b)) < 2:
        assert math.isnan(spearman(a, b)) and math.isnan(kendall_tau(a, b))
        return
    assert spearman(a, b) == pytest.approx(stats.spearmanr(a, b).statistic, abs=1e-9)
    assert kendall_tau(a, b) == pytest.approx(stats.kendalltau(a, b).statistic, abs=1e-9)
    assert kendall_tau(a, b) == pytest.approx(_kendall_tau_reference(a, b), abs=1e-12)


def test_errors():
    with pytest.raises(ValueError, match="same items"):
        cohen_kappa([1, 2], [1])
    with pytest.raises(ValueError, match="weights"):
        cohen_kappa([1, 2], [1, 2], weights="cubic")
    with pytest.raises(ValueError, match="missing"):
        confusion_matrix([1, 2], [1, 3], labels=[1, 2])
    with pytest.raises(ValueError, match="empty"):
        spearman([], [])
    with pytest.raises(TypeError):
        kendall_tau("abc", "abd")


def test_mixed_label_types_raise_clear_error():
    with pytest.raises(TypeError, match=r"a and b must use labels of one comparable type.*int.*str"):
        cohen_kappa([1, "a"], [1, "a"])
    # an explicit order makes mixed labels usable: perfect agreement on 2 labels
    assert cohen_kappa([1, "a"], [1, "a"], labels=[1, "a"]) == 1.0


def test_kappa_with_a_subset_of_labels_is_refused_not_silently_filtered():
    a = [1, 2, 3, 1, 2, 2]
    b = [1, 2, 2, 3, 2, 1]
    labels = [1, 2]
    # scikit-learn keeps only the items whose two labels are in `labels`: (1,1), (2,2), (2,2), (2,1)
    # O = [[1, 0], [1, 2]]; rows (1, 3), cols (2, 2); p_o = 3/4; p_e = (1*2 + 3*2)/16 = 1/2
    # kappa = (3/4 - 1/2) / (1 - 1/2) = 1/2
    assert cohen_kappa_score(a, b, labels=labels) == pytest.approx(0.5)
    with pytest.raises(ValueError, match=r"missing \[3\].*scikit-learn would drop"):
        cohen_kappa(a, b, labels=labels)
    # filtering the items first, as the docstring shows, gives scikit-learn's number
    kept = [(x, y) for x, y in zip(a, b) if x in labels and y in labels]
    assert cohen_kappa([x for x, _ in kept], [y for _, y in kept], labels=labels) == pytest.approx(0.5)
