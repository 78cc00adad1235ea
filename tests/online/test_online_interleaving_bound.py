"""The impressions of all queries together are bounded (issue 34): 1000 queries x 10**6
impressions were accepted (hours of work), the bound being per query only."""
import pytest

import ragmetrics_edu as rm
from ragmetrics_edu.online.interleaving import interleaving_outcomes

RUN_A = {f"q{i}": ["a", "b"] for i in range(1000)}
RUN_B = {f"q{i}": ["b", "a"] for i in range(1000)}
QRELS = {f"q{i}": {"a": 1} for i in range(1000)}


@pytest.mark.parametrize("call", [
    lambda: interleaving_outcomes(RUN_A, RUN_B, QRELS, depth=2, n_per_query=10**6),
    lambda: rm.impressions_needed(RUN_A, RUN_B, QRELS, depth=2, n_per_query=1001),
])
def test_the_total_is_bounded(call):
    with pytest.raises(ValueError, match=r"queries x n_per_query must be at most 1,000,000 "
                       r"\(MAX_RESAMPLES.*got 1,000 x "):
        call()
