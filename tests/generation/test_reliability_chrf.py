"""chrF bounds its orders and its beta (issue 23, item 9, and beta=1e200)."""

import pytest

from ragmetrics_edu.generation import chrf_score
from ragmetrics_edu.generation.chrf_score import (chrf, corpus_stats, score_from_stats, segment_stats,
                                       sentence_chrf)

HYP, REF = "the cat sat on the mat", ["a cat sat on a mat"]


@pytest.mark.parametrize("name, value", [("char_order", 10**6), ("word_order", 10**6),
                                         ("char_order", 10**400)])
def test_orders_are_bounded_and_refused_at_once(name, value, monkeypatch):
    """Before: char_order=10**6 ran for minutes.  Refused before any n-gram is counted."""
    limit = chrf_score.MAX_ORDER
    counted = []
    for helper in ("char_ngrams", "word_ngrams", "_all_ngrams", "_sequence_ngram_counts"):
        original = getattr(chrf_score, helper)
        monkeypatch.setattr(chrf_score, helper,
                            lambda *a, _f=original, _n=helper, **k: counted.append(_n) or _f(*a, **k))
    for call in (lambda **kw: sentence_chrf(HYP, REF, **kw), lambda **kw: chrf([HYP], [REF], **kw),
                 lambda **kw: segment_stats(HYP, REF, **kw),
                 lambda **kw: corpus_stats([HYP], [REF], **kw)):
        with pytest.raises(ValueError) as info:
            call(**{name: value})
        assert counted == []  # no work before the refusal
        text = str(info.value)
        assert name in text and f"at most {limit}" in text and len(text) < 300, text
    assert f"at most {limit}" in " ".join((sentence_chrf.__doc__, chrf.__doc__))


def test_the_largest_orders_still_score():
    limit = chrf_score.MAX_ORDER
    result = sentence_chrf(HYP, REF, char_order=limit, word_order=limit)
    assert 0 < result.score < 1


@pytest.mark.parametrize("beta", [1e200, 1e155, float(10**300), 10**400])
def test_a_beta_whose_square_is_no_float_is_refused(beta):
    """Before: OverflowError (34, 'Numerical result out of range')."""
    for call in (lambda: sentence_chrf(HYP, REF, beta=beta), lambda: chrf([HYP], [REF], beta=beta),
                 lambda: score_from_stats([4, 2, 2], char_order=1, beta=beta)):
        with pytest.raises(ValueError, match=r"beta must be at most 1e\+?100 .*got") as info:
            call()
        assert len(str(info.value)) < 300


def test_a_large_beta_within_the_bound_is_recall():
    """chrF_beta tends to the recall as beta grows: at the bound it is the recall."""
    stats = [4, 8, 2]  # P = 2/4, R = 2/8
    assert score_from_stats(stats, char_order=1, beta=chrf_score.MAX_BETA) == pytest.approx(0.25)
    assert score_from_stats(stats, char_order=1, beta=1e-100) == pytest.approx(0.5)
