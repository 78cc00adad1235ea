"""Agreement statistics on hostile input: the fourth held-out probe of issue 34.

Before: kendall_tau compared every pair at once (20,000 items asked for 1.5 GiB, 200,000
for 37 GiB; 5,000 took 2.5 s, and a bootstrap interval on 3,000 items about 9 minutes);
kappa_weights read any unknown weights as quadratic and took n_labels unchecked (10**5:
a 75 GiB allocation); kappa_from_confusion gave NaN for counts of 1e308 or 5e-324 and
accepted negative counts. Expected values from scipy and scikit-learn.
"""

import math

import numpy as np
import pytest
import scipy.stats
from sklearn.metrics import cohen_kappa_score

from ragmetrics_edu.judge import agreement


def test_kendall_tau_is_scipys_on_a_large_sample_in_linear_memory():
    rng = np.random.default_rng(0)
    x = rng.normal(size=200_000)
    y = np.round(x + rng.normal(size=200_000), 1)            # ties in y
    x[::7] = 0.0                                              # and in x
    want = scipy.stats.kendalltau(x, y).statistic
    assert agreement.kendall_tau(x, y) == pytest.approx(want, abs=1e-12)


def test_kendall_tau_equals_the_pair_by_pair_definition():
    rng = np.random.default_rng(1)
    for _ in range(500):
        n = int(rng.integers(1, 30))
        a = rng.integers(0, int(rng.integers(1, 5)), n).astype(float)
        b = rng.normal(size=n) if rng.random() < 0.3 else rng.integers(0, 3, n).astype(float)
        want, got = agreement._kendall_tau_reference(a, b), agreement.kendall_tau(a, b)
        assert (math.isnan(want) and math.isnan(got)) or got == want


@pytest.mark.parametrize("weights", ["Linear", "cubic", "", 1])
def test_kappa_weights_refuse_unknown_weights(weights):
    with pytest.raises(ValueError, match="weights must be one of"):
        agreement.kappa_weights(3, weights)


@pytest.mark.parametrize("n_labels, error", [(math.nan, TypeError), (1.5, TypeError),
                                             (-1, ValueError), (0, ValueError),
                                             (10**5, ValueError), (10**400, ValueError)])
def test_kappa_weights_check_n_labels(n_labels, error):
    with pytest.raises(error, match="n_labels must"):
        agreement.kappa_weights(n_labels)


def test_a_kappa_of_more_labels_than_a_scale_holds_is_refused():
    scores = np.arange(2000) / 7.0                            # continuous scores
    with pytest.raises(ValueError, match=r"at most 1,000 labels \(MAX_LABELS\)"):
        agreement.cohen_kappa(scores, scores[::-1])


@pytest.mark.parametrize("scale", [1e308 / 8, 1e200, 1e-300, 5e-324])
def test_kappa_from_confusion_at_any_magnitude(scale):
    table = np.array([[6.0, 4.0], [2.0, 8.0]])
    a = [0] * 6 + [0] * 4 + [1] * 2 + [1] * 8
    b = [0] * 6 + [1] * 4 + [0] * 2 + [1] * 8
    for weights in (None, "linear", "quadratic"):
        want = cohen_kappa_score(a, b, weights=weights)
        assert agreement.kappa_from_confusion(table * scale, weights) == pytest.approx(want,
                                                                                   abs=1e-12)
    # the probe's: every count 1e308 (sklearn at ordinary scale: 0), a diagonal of 5e-324 (1)
    assert agreement.kappa_from_confusion(np.full((2, 2), 1e308)) == pytest.approx(0.0, abs=1e-12)
    assert agreement.kappa_from_confusion(np.diag([5e-324, 5e-324])) == 1.0
    stack = np.stack([table, table * 1e-300, table * 1e300])
    np.testing.assert_allclose(agreement.kappa_from_confusion(stack),
                               cohen_kappa_score(a, b), atol=1e-12)


@pytest.mark.parametrize("table", [[[-1, 2], [3, 4]], [[1, 2], [math.nan, 4]],
                                   [[1, 2], [math.inf, 4]]])
def test_kappa_from_confusion_refuses_what_is_not_counts(table):
    with pytest.raises(ValueError, match="table must hold counts"):
        agreement.kappa_from_confusion(table)
