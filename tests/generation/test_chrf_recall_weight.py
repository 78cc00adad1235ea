"""chrF's beta = 2 weighs recall beta**2 = 4 times as much as precision, and gives partial
credit within words (what notebook 11 says of chrF against token F1)."""

import numpy as np
import pytest

import ragmetrics_edu as rm


@pytest.mark.parametrize("seed", range(5))
def test_beta_2_is_a_weight_of_4_on_recall(seed):
    rng = np.random.default_rng(seed)
    words = ["the", "shock", "wave", "reaction", "reactions", "mach", "number", "of", "flow"]
    hyp = " ".join(rng.choice(words, size=int(rng.integers(3, 15))))
    ref = " ".join(rng.choice(words, size=int(rng.integers(2, 6))))
    result = rm.chrf([hyp], [[ref]])
    p, r = np.mean(result.precisions), np.mean(result.recalls)  # (every order is effective)
    assert result.score == pytest.approx((1 + 4) * p * r / (4 * p + r))
    if p != r:  # "recall weighted twice" would be another number
        assert result.score != pytest.approx((1 + 2) * p * r / (2 * p + r))


def test_partial_credit_within_words():
    # 'reaction' shares 8 of the 9 character unigrams of 'reactions', and most longer n-grams
    assert rm.chrf(["reactions"], [["reaction"]]).score > 0.8
    assert rm.token_f1("reactions", ["reaction"]) == 0.0
