"""BLEU's orders are bounded as chrF's are (issue 34): max_n=10**9 was a MemoryError and
max_n=10**5 counted 100,000 orders."""
import pytest

from ragmetrics_edu.generation.bleu_score import bleu


@pytest.mark.parametrize("max_n", [101, 10**5, 10**9])
def test_max_n_beyond_100_is_refused(max_n):
    with pytest.raises(ValueError, match=r"max_n must be at most 100 \(MAX_ORDER"):
        bleu("a b c", ["a b c"], max_n=max_n)


def test_max_n_of_100_still_scores():
    # 3 matching tokens: orders 4..100 have no n-grams, so without smoothing BLEU is 0
    assert bleu("a b c", ["a b c"], max_n=100).score == 0.0
    assert bleu("a b c", ["a b c"], max_n=3).score == pytest.approx(1.0)
