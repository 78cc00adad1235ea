"""A subnormal propensity (issue 34): before, ips_estimate returned inf with a RuntimeWarning."""
import pytest

from ragmetrics_edu.online.counterfactual import ips_estimate


@pytest.mark.parametrize("p", [5e-324, 1e-310, 1e-301])
def test_tiny_propensities_are_refused(p):
    with pytest.raises(ValueError, match=r"propensities must be at least 1e-300 "
                       r"\(MIN_PROPENSITY.*propensities\[0\]"):
        ips_estimate([[1, 0]], ["a", "b"], ["b", "a"], propensities=[p, 0.5])


def test_small_propensities_still_weigh():
    assert ips_estimate([[1, 0]], ["a", "b"], ["a", "b"], propensities=[1e-300, 0.5]) > 0
