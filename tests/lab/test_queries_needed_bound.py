"""queries_needed bounds its work (issue 34): max_queries=10**7 ran for minutes, with
n_simulations x max_queries not bounded by MAX_SIMULATED."""
import pytest

from ragmetrics_edu.lab.power import queries_needed

A, B = [0.1, 0.2, 0.3, 0.2], [0.3, 0.5, 0.4, 0.6]


@pytest.mark.parametrize("max_queries, n_simulations", [(10**7, 2000), (10**10, 100),
                                                        (5001, 2000)])
def test_the_simulations_are_bounded(max_queries, n_simulations):
    with pytest.raises(ValueError, match=r"max_queries x n_simulations must be at most "
                       r"10,000,000 \(MAX_SIMULATED"):
        queries_needed(A, B, n_simulations=n_simulations, max_queries=max_queries)


def test_the_defaults_are_within_the_bound():
    assert queries_needed(A, B, n_simulations=2000, max_queries=5000).n_queries is not None
