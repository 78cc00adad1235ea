"""BLEU pieces on hand-counted examples, properties and bad input.

Every expected number is worked out in the comment beside it.
"""

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ragmetrics_edu as rm
from ragmetrics_edu.generation.bleu_score import SMOOTHING, score_from_stats
from ragmetrics_edu.generation.bleu_stats import (
    ngram_counter, closest_reference_length, segment_stats,
)

REF = "I am thirty six years old"


# ------------------------------------------------------------------ n-grams

def test_ngrams_by_hand():
    assert rm.ngrams(["a", "b", "c"], 2) == [("a", "b"), ("b", "c")]
    assert rm.ngrams("a b c", 3) == [("a", "b", "c")]
    assert rm.ngrams("a b", 3) == []  # fewer tokens than n: no n-gram


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from("abc"), max_size=12), st.integers(1, 5))
def test_ngram_count_is_len_minus_n_plus_1(tokens, n):
    assert len(rm.ngrams(tokens, n)) == max(0, len(tokens) - n + 1)


# ------------------------------------------------------- modified precision

class _SliceCountingList(list):
    """A token list that counts how many slices are taken of it."""

    slices = 0

    def __getitem__(self, item):
        if isinstance(item, slice):
            type(self).slices += 1
        return super().__getitem__(item)


def test_ngram_counter_of_order_above_length_takes_no_slice():
    # "a b" has no n-gram for n > 2: the answer is empty, without building
    # n shifted copies of the tokens (n = 10**7 took seconds)
    tokens = _SliceCountingList(["a", "b"])
    assert ngram_counter(tokens, 10**7) == {}
    assert _SliceCountingList.slices == 0
    assert ngram_counter(tokens, 3) == {}
    assert _SliceCountingList.slices == 0
    assert ngram_counter(tokens, 2) == {("a", "b"): 1}   # n = len: one bigram
    assert rm.rouge_n("a b", "a b", n=10**7).fmeasure == 0.0


def test_slides_unigram_precisions():
    # I, thirty, six, years of 5 candidate unigrams
    assert rm.modified_precision("I have thirty six years", REF, n=1) == 4 / 5
    # "six" once in the reference: min(5, 1) = 1 of 5
    assert rm.modified_precision("six six six six six", REF, n=1) == 1 / 5
    # without clipping every "six" counts: 5 of 5
    assert rm.modified_precision("six six six six six", REF, n=1, clip=False) == 1.0
    # reordering keeps 4 of 5 unigrams
    assert rm.modified_precision("thirty six years have I", REF, n=1) == 4 / 5


def test_slides_4gram_precision_is_0_of_2():
    # 4-grams: "thirty six years have", "six years have I"; neither in the reference
    c = rm.modified_precision("thirty six years have I", REF, n=4, return_counts=True)
    assert (c.precision, c.clipped, c.total) == (0.0, 0, 2)


def test_clipping_takes_max_over_references():
    # "the" is 2x in ref 1 and 1x in ref 2: clip at 2; candidate has 3 "the" + "cat"
    refs = ["the cat the mat", "the dog"]
    c = rm.modified_precision("the the the cat", refs, n=1, return_counts=True)
    assert (c.clipped, c.total) == (3, 4)  # 2 "the" + 1 "cat"


def test_precision_of_short_candidate_is_zero_of_zero():
    c = rm.modified_precision("a b", "a b c", n=3, return_counts=True)
    assert (c.precision, c.clipped, c.total) == (0.0, 0, 0)


# ----------------------------------------------------------- brevity penalty

def test_brevity_penalty_by_hand():
    assert rm.brevity_penalty(5, 6) == pytest.approx(math.exp(1 - 6 / 5), abs=1e-15)
    assert rm.brevity_penalty(6, 6) == 1.0
    assert rm.brevity_penalty(9, 6) == 1.0
    assert rm.brevity_penalty(0, 6) == 0.0
    assert rm.brevity_penalty(0, 0) == 1.0  # not shorter: no penalty (sacrebleu)


def test_closest_reference_rule():
    # 12 tokens; references 13 and 2: 13 is closest
    assert rm.brevity_penalty(12, [13, 2]) == pytest.approx(math.exp(1 - 13 / 12))
    # tie (|10-8| = |10-12|): the shorter, 8 -> no penalty
    assert closest_reference_length(10, [12, 8]) == 8
    assert rm.brevity_penalty(10, [12, 8]) == 1.0
    # the "shortest" rule ignores the candidate length
    assert closest_reference_length(3, [5, 4, 9], rule="shortest") == 4
    assert rm.brevity_penalty(3, [9, 4], ref_length="shortest") == pytest.approx(
        math.exp(1 - 4 / 3))


def test_brevity_penalty_bad_input():
    with pytest.raises(ValueError, match="candidate_len must be a non-negative integer"):
        rm.brevity_penalty(-1, 3)
    with pytest.raises(ValueError, match="ref_length must be one of"):
        rm.brevity_penalty(3, [4], ref_length="longest")


# ------------------------------------------------------------- statistics

def test_segment_stats_by_hand():
    # "thirty six years have I": unigrams 4/5 ("have" misses), bigrams 2/4
    # (thirty six, six years), trigrams 1/3 (thirty six years), 4-grams 0/2
    s = segment_stats("thirty six years have I", REF)
    assert s.dtype == np.int64
    assert s.tolist() == [5, 6, 4, 2, 1, 0, 5, 4, 3, 2]


def test_segment_stats_count_empty_orders():
    # "a b" has no trigram or 4-gram: 0/0 by default, 0/1 the nltk way
    assert segment_stats("a b", "a b c", max_n=4).tolist() == [2, 3, 2, 1, 0, 0, 2, 1, 0, 0]
    assert segment_stats("a b", "a b c", max_n=4, count_empty_orders=True).tolist() == \
        [2, 3, 2, 1, 0, 0, 2, 1, 1, 1]


def test_score_from_stats_none():
    # p = 4/5, 2/4, 1/3, 1/2; BP = exp(1 - 6/5)
    expected = math.exp(1 - 6 / 5) * (0.8 * 0.5 * (1 / 3) * 0.5) ** 0.25
    assert score_from_stats([5, 6, 4, 2, 1, 1, 5, 4, 3, 2]).score == pytest.approx(
        expected, abs=1e-15)


def test_score_from_stats_zero_order_gives_zero_with_reason():
    r = score_from_stats([5, 6, 4, 2, 1, 0, 5, 4, 3, 2])
    assert r.score == 0.0
    assert "no 4-gram match" in r.reason


def test_score_from_stats_each_smoothing_by_hand():
    stats = [5, 6, 4, 2, 0, 0, 5, 4, 3, 2]  # p = 4/5, 2/4, 0/3, 0/2
    bp = math.exp(1 - 6 / 5)

    def geo(ps):
        return bp * math.prod(ps) ** 0.25

    # floor 0.1: 0.1/3, 0.1/2
    assert score_from_stats(stats, smoothing="floor").score == pytest.approx(
        geo([0.8, 0.5, 0.1 / 3, 0.1 / 2]), abs=1e-15)
    # add-k 1 for n >= 2: (2+1)/(4+1), 1/4, 1/3
    assert score_from_stats(stats, smoothing="add-k").score == pytest.approx(
        geo([0.8, 3 / 5, 1 / 4, 1 / 3]), abs=1e-15)
    # exp: first zero 1/(2*3), second 1/(4*2)
    assert score_from_stats(stats, smoothing="exp").score == pytest.approx(
        geo([0.8, 0.5, 1 / 6, 1 / 8]), abs=1e-15)
    # method4 (k=5, len 5): ln(5)/(2*5)/3, ln(5)/(4*5)/2
    assert score_from_stats(stats, smoothing="method4").score == pytest.approx(
        geo([0.8, 0.5, math.log(5) / 10 / 3, math.log(5) / 20 / 2]), abs=1e-15)
    # method6 (alpha 5): p3 = (0 + 5 * 0.5^2/0.8)/(3 + 5); p4 = (0 + 5 * p3^2/0.5)/(2 + 5)
    p3 = 5 * 0.25 / 0.8 / 8
    p4 = 5 * p3 ** 2 / 0.5 / 7
    assert score_from_stats(stats, smoothing="method6").score == pytest.approx(
        geo([0.8, 0.5, p3, p4]), abs=1e-15)


def test_method5_reads_order_5_after_order_4():
    # orders 1..5: p = 4/5, 2/4, 0/3, 0/2, 0/1
    stats = [5, 6, 4, 2, 0, 0, 0, 5, 4, 3, 2, 1]
    # p'1 = (1.8 + 0.8 + 0.5)/3; p'2 = (p'1 + 0.5 + 0)/3; p'3 = (p'2 + 0 + 0)/3; p'4 = p'3/3
    q1 = (1.8 + 0.8 + 0.5) / 3
    q2 = (q1 + 0.5) / 3
    q3 = q2 / 3
    q4 = q3 / 3
    r = score_from_stats(stats, max_n=4, smoothing="method5")
    assert r.score == pytest.approx(math.exp(1 - 6 / 5) * (q1 * q2 * q3 * q4) ** 0.25, abs=1e-15)
    with pytest.raises(ValueError, match="needs statistics up to order 5 .*got 4 orders"):
        score_from_stats(stats[:2] + stats[2:6] + stats[7:11], smoothing="method5")


def test_method5_averages_the_last_order_with_p5_for_max_n_2():
    # nltk's method5 takes the 5-gram precision as the order after the last,
    # whatever max_n.  "the cat sat on the mat today" (7 tokens) against
    # "the cat sat on a mat today" and "a cat was on the mat": unigrams 6/7
    # ("the" clipped to 1), bigrams 6/6, trigrams 3/5, 5-grams 0/3; r = 7, BP = 1.
    # p'1 = (1 + 6/7 + 6/7 + 1)/3 = 26/21; p'2 = (26/21 + 1 + p_5 = 0)/3 = 47/63
    # (with p_3 = 3/5 in place of p_5 it would be 1.0823); nltk: 0.96107
    cand = "the cat sat on the mat today"
    refs = ["the cat sat on a mat today", "a cat was on the mat"]
    r = rm.bleu(cand, refs, max_n=2, smoothing="method5")
    assert r.score == pytest.approx(math.sqrt(26 / 21 * 47 / 63), abs=1e-15)
    assert round(r.score, 4) == 0.9611
    assert r.counts == (6, 6) and r.totals == (7, 6)
    # method7 = method4 (nothing to smooth: p_1, p_2 > 0) then method5
    assert rm.bleu(cand, refs, max_n=2, smoothing="method7").score == r.score
    # statistics of orders 1..4 are not enough, even for max_n = 2
    with pytest.raises(ValueError, match="needs statistics up to order 5"):
        score_from_stats(segment_stats(cand, refs, max_n=4), max_n=2, smoothing="method5")


def test_method5_averages_order_6_with_p5():
    # max_n = 6, p = 1, 1, 1, 1, 1/2, 0 (6 tokens, r = 6, BP = 1)
    stats = [6, 6, 6, 5, 4, 3, 1, 0, 6, 5, 4, 3, 2, 1]
    q1 = (2 + 1 + 1) / 3                 # p'_0 = p_1 + 1 = 2
    q2 = (q1 + 1 + 1) / 3
    q3 = (q2 + 1 + 1) / 3
    q4 = (q3 + 1 + 0.5) / 3
    q5 = (q4 + 0.5 + 0) / 3
    q6 = (q5 + 0 + 0.5) / 3               # the order after 6 is read as p_5 = 1/2
    r = score_from_stats(stats, smoothing="method5")
    assert r.max_n == 6
    assert r.score == pytest.approx((q1 * q2 * q3 * q4 * q5 * q6) ** (1 / 6), abs=1e-15)


def test_method5_and_method7_can_exceed_one():
    # "abcd" against itself: p_1..p_4 = 1, p_5 = 0 (no 5-gram); BP = 1
    # p' = 4/3, 10/9, 28/27, (28/27 + 1 + 0)/3 = 55/81: (4/3 10/9 28/27 55/81)^(1/4) = 1.0106
    expected = (4 / 3 * 10 / 9 * 28 / 27 * 55 / 81) ** 0.25
    for method in ("method5", "method7"):   # method7: method4 has no zero to smooth
        r = rm.bleu(list("abcd"), [list("abcd")], smoothing=method)
        assert r.score == pytest.approx(expected, abs=1e-15)
        assert r.score > 1


def test_aliases_mean_the_same_method():
    stats = [5, 6, 4, 2, 0, 0, 5, 4, 3, 2]
    for alias, name in [("epsilon", "floor"), ("method1", "floor"), ("method2", "add-k"),
                        ("method3", "exp"), ("method0", "none")]:
        a = score_from_stats(stats, smoothing=alias)
        b = score_from_stats(stats, smoothing=name)
        assert a.score == b.score and a.smoothing == name


def test_smoothing_table_is_complete():
    assert set(SMOOTHING) == {"none", "floor", "add-k", "exp", "method4", "method5",
                              "method6", "method7"}
    for s in SMOOTHING.values():
        assert "Chen & Cherry" in s.citation or s.name == "none"


def test_weights_apply():
    # weights (1, 0, 0, 0): BLEU = BP * p1 even though p4 = 0 (its weight is 0)
    r = score_from_stats([5, 6, 4, 2, 1, 0, 5, 4, 3, 2], weights=(1, 0, 0, 0))
    assert r.score == pytest.approx(0.8 * math.exp(1 - 6 / 5), abs=1e-15)


def test_effective_order_drops_orders_without_ngrams():
    # "a b" vs "a b c": orders 3 and 4 have no candidate n-gram; p1 = 1, p2 = 1
    r = rm.bleu("a b", "a b c", effective_order=True)
    assert r.orders == (1, 2)
    assert r.weights == (0.5, 0.5)
    assert r.score == pytest.approx(math.exp(1 - 3 / 2), abs=1e-15)
    r0 = rm.bleu("a b", "a b c")
    assert r0.score == 0.0 and "has no 3-gram" in r0.reason
    # only the 4-gram has weight, and the candidate has none: 0, with the reason
    r4 = rm.bleu("a b", "a b c", weights=(0, 0, 0, 1), effective_order=True)
    assert r4.score == 0.0 and "positive weight" in r4.reason


def test_stats_add_up_to_corpus():
    cands = ["I have thirty six years", "six six six six six", "thirty six years have I"]
    refs = [[REF], [REF, "six is a number"], [REF]]
    parts = sum(segment_stats(c, r) for c, r in zip(cands, refs))
    corpus = rm.corpus_bleu(cands, refs)
    assert list(corpus.counts) == parts[2:6].tolist()
    assert list(corpus.totals) == parts[6:].tolist()
    assert corpus.score == score_from_stats(parts).score


# ------------------------------------------------------------- sentence BLEU

def test_slides_bleu1_score_with_brevity_penalty():
    r = rm.bleu("I have thirty six years", REF, max_n=1)
    # 0.8 * exp(1 - 6/5) = 0.8 * 0.818730753 = 0.654984602
    assert r.score == pytest.approx(0.8 * math.exp(-0.2), abs=1e-15)
    assert r.precisions == (0.8,)
    assert (r.candidate_len, r.reference_len) == (5, 6)
    assert r.counts == (4,) and r.totals == (5,)


def test_perfect_match_is_one():
    assert rm.bleu(REF, REF).score == 1.0
    assert rm.bleu(REF.split(), [REF.split()]).score == 1.0


def test_result_signature_and_str():
    r = rm.bleu("a b c d", "a b c d e", smoothing="floor", tokenizer=rm.rouge_tokenize)
    assert r.signature == "tok:rouge|smooth:floor[0.1]|max_n:4|eff:no|ref_len:closest|empty_orders:0"
    assert "BLEU = " in str(r) and r.signature in str(r)
    assert float(r) == r.score


def test_signature_shows_weights_when_not_uniform():
    r = rm.bleu("a b c d", "a b c d", weights=(1, 0, 0, 0))
    assert r.signature == \
        "tok:whitespace|smooth:none|max_n:4|w:1,0,0,0|eff:no|ref_len:closest|empty_orders:0"
    # uniform weights, given or not, are not shown
    assert rm.bleu("a b c d", "a b c d", weights=(0.25,) * 4).signature == \
        rm.bleu("a b c d", "a b c d").signature
    assert "|w:" not in rm.bleu("a b c", "a b c", max_n=3, weights=(1 / 3,) * 3).signature
    # the weights asked for, not those re-normalised by effective_order
    r = rm.bleu("a b", "a b c", weights=(0.4, 0.6, 0, 0), effective_order=True)
    assert r.weights == (0.4, 0.6) and "|w:0.4,0.6,0,0|" in r.signature
    c = rm.corpus_bleu(["a b c"], [["a b c"]], max_n=2, weights=(0.3, 0.7))
    assert "|max_n:2|w:0.3,0.7|" in c.signature


def test_signature_says_pretokenized():
    tokens = "a b c d".split()
    assert rm.bleu(tokens, [tokens]).signature.startswith("tok:pretokenized|")
    # a tokenizer is not applied to token lists: the signature does not name it
    assert rm.bleu(tokens, [tokens], tokenizer=rm.rouge_tokenize).tokenizer == "pretokenized"
    assert rm.bleu("a b c d", [tokens]).tokenizer == "whitespace+pretokenized"
    assert rm.bleu(tokens, "a b c d", tokenizer=rm.rouge_tokenize).tokenizer == "rouge+pretokenized"
    assert rm.bleu("a b c d", "a b c d").tokenizer == "whitespace"
    assert rm.corpus_bleu([tokens, tokens], [[tokens], [tokens]]).tokenizer == "pretokenized"
    assert rm.corpus_bleu([tokens, "a b c d"], [[tokens], ["a b"]]).tokenizer == \
        "whitespace+pretokenized"
    assert rm.corpus_bleu(["a b c d"], [["a b c d"]]).tokenizer == "whitespace"


def test_strings_and_tokens_agree():
    a = rm.bleu("the cat sat on the mat", ["the cat is on the mat", "a cat sat"])
    b = rm.bleu("the cat sat on the mat".split(),
                [["the", "cat", "is", "on", "the", "mat"], ["a", "cat", "sat"]])
    assert a.score == b.score and a.counts == b.counts


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from("abcde"), max_size=10),
       st.lists(st.lists(st.sampled_from("abcdef"), max_size=10), min_size=1, max_size=3),
       st.sampled_from(["none", "floor", "add-k", "exp", "method4"]))
def test_score_in_unit_interval(cand, refs, smoothing):
    """Methods 5-7 interpolate and can exceed 1 (as in nltk): see
    test_method5_and_method7_can_exceed_one and the nltk cross-checks."""
    r = rm.bleu(cand, refs, smoothing=smoothing)
    assert 0.0 <= r.score <= 1.0 + 1e-12
    assert all(c <= t for c, t in zip(r.counts, r.totals))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from("abcd"), min_size=1, max_size=10),
       st.lists(st.sampled_from("abcd"), min_size=1, max_size=10))
def test_adding_a_reference_never_lowers_matches(cand, ref):
    one = rm.bleu(cand, [ref])
    two = rm.bleu(cand, [ref, list(cand)])
    assert all(a <= b for a, b in zip(one.counts, two.counts))
    # the candidate itself is a reference: every used precision is 1 and BP = 1
    assert rm.bleu(cand, [ref, list(cand)], effective_order=True).score == 1.0


# --------------------------------------------------------------- bad input

def test_empty_candidate_is_zero_with_reason():
    r = rm.bleu("", REF)
    assert r.score == 0.0 and r.reason == "empty candidate"
    assert r.brevity_penalty == 0.0
    r = rm.bleu([], [REF.split()], smoothing="add-k")
    assert r.score == 0.0 and r.reason == "empty candidate"


def test_empty_reference_gives_zero_no_match():
    r = rm.bleu("a b c", "")
    assert r.score == 0.0 and "no unigram" in r.reason
    assert r.reference_len == 0 and r.brevity_penalty == 1.0


def test_bad_n_and_max_n():
    with pytest.raises(ValueError, match="n must be a positive integer, got 0"):
        rm.modified_precision("a", "a", n=0)
    with pytest.raises(ValueError, match="max_n must be a positive integer, got 0"):
        rm.bleu("a", "a", max_n=0)
    with pytest.raises(TypeError, match="n must be a positive integer"):
        rm.ngrams("a b", 1.5)


def test_bad_weights():
    with pytest.raises(ValueError, match="weights must sum to 1"):
        rm.bleu("a b", "a b", weights=(0.5, 0.5, 0.5, 0.5))
    with pytest.raises(ValueError, match="weights must have max_n=4 entries, got 2"):
        rm.bleu("a b", "a b", weights=(0.5, 0.5))
    with pytest.raises(ValueError, match="non-negative"):
        rm.bleu("a b", "a b", max_n=2, weights=(1.5, -0.5))
    assert rm.bleu("a b", "a b", max_n=2, weights=(0.5, 0.5)).score == 1.0


def test_float32_weights_are_accepted():
    # float32 0.1 + 0.9 = 0.99999998 in double: within the 1e-6 tolerance
    w32 = np.array([0.1, 0.9], dtype=np.float32)
    r = rm.bleu("a b c", "a b d", max_n=2, weights=w32)
    # p_1 = 2/3, p_2 = 1/2, BP = 1; the weights are used as given (as nltk)
    expected = (2 / 3) ** float(w32[0]) * 0.5 ** float(w32[1])
    assert r.score == pytest.approx(expected, abs=1e-15)
    assert all(type(w) is float for w in r.weights)
    assert "|w:0.1,0.9|" in r.signature
    rm.bleu("a b", "a b", max_n=2, weights=(0.5, 0.5 + 5e-7))          # inside 1e-6
    with pytest.raises(ValueError, match=r"weights must sum to 1 \(within 1e-06\)"):
        rm.bleu("a b", "a b", max_n=2, weights=(0.5, 0.5 + 5e-6))


def test_bad_smoothing():
    with pytest.raises(ValueError, match="smoothing must be one of"):
        rm.bleu("a", "a", smoothing="laplace")
    with pytest.raises(ValueError, match="smooth_value must be a positive number for "
                                         "smoothing 'add-k', got 0"):
        rm.bleu("a", "a", smoothing="add-k", smooth_value=0)
    with pytest.raises(ValueError, match="smooth_value must be a number >= 0 for "
                                         "smoothing 'floor', got -0.1"):
        rm.bleu("a", "a", smoothing="floor", smooth_value=-0.1)


def test_floor_with_smooth_value_0_equals_sacrebleu():
    sacrebleu = pytest.importorskip("sacrebleu")
    rng = np.random.default_rng(15)
    words = "the a cat dog sat on mat ran".split()
    for _ in range(200):
        cand = " ".join(rng.choice(words, size=int(rng.integers(1, 9))))
        refs = [" ".join(rng.choice(words, size=int(rng.integers(2, 9))))
                for _ in range(int(rng.integers(1, 3)))]
        for effective in (False, True):
            ours = rm.bleu(cand, refs, smoothing="floor", smooth_value=0,
                           effective_order=effective).score
            theirs = sacrebleu.sentence_bleu(cand, refs, smooth_method="floor",
                                             smooth_value=0, tokenize="none",
                                             use_effective_order=effective).score / 100
            assert ours == pytest.approx(theirs, abs=1e-12), (cand, refs, effective)
    # a 4-gram without a match: floor 0 leaves p_4 = 0, so BLEU is 0 (sacrebleu too)
    r = rm.bleu("a b c d", "a b c e", smoothing="floor", smooth_value=0)
    assert r.score == 0.0 and "no 4-gram match" in r.reason


def test_short_candidate_reason_names_both_options():
    # nltk's number for a 3-token candidate comes from counting the empty
    # 4-gram order as 0 of 1 and smoothing it; sacrebleu's from leaving it out
    r = rm.bleu("the cat sat", "the cat sat on the mat", smoothing="floor")
    assert r.score == 0.0
    assert "effective_order=True" in r.reason and "count_empty_orders=True" in r.reason
    nltk_way = rm.bleu("the cat sat", "the cat sat on the mat", smoothing="floor",
                       count_empty_orders=True)
    sacre_way = rm.bleu("the cat sat", "the cat sat on the mat", smoothing="floor",
                        effective_order=True)
    nltk_bleu = pytest.importorskip("nltk.translate.bleu_score")
    ref, cand = "the cat sat on the mat".split(), "the cat sat".split()
    assert nltk_way.score == pytest.approx(nltk_bleu.sentence_bleu(
        [ref], cand, smoothing_function=nltk_bleu.SmoothingFunction().method1), abs=1e-12)
    assert sacre_way.score == pytest.approx(math.exp(1 - 6 / 3), abs=1e-12)  # BP, p_1..3 = 1


@pytest.mark.parametrize("smoothing, shown", [
    ("none", "'none'"), ("method0", "'method0' (= 'none')"), ("exp", "'exp'"),
    ("method3", "'method3' (= 'exp')"), ("method5", "'method5'"),
])
def test_smooth_value_of_a_method_without_parameter_is_refused(smoothing, shown):
    # it used to be ignored while the signature showed it ("smooth:exp[3]")
    message = f"smooth_value is not used by smoothing {re.escape(shown)}, which has no parameter"
    with pytest.raises(ValueError, match=message):
        rm.bleu("a b", "a b", smoothing=smoothing, smooth_value=3)
    with pytest.raises(ValueError, match=message):
        rm.corpus_bleu(["a b"], [["a b"]], smoothing=smoothing, smooth_value=3)
    with pytest.raises(ValueError, match=message):
        score_from_stats([2, 2, 2, 1, 0, 0, 0, 2, 1, 0, 0, 0], smoothing=smoothing,
                         smooth_value=3)
    # methods with a parameter still take it
    assert rm.bleu("a b", "a b c", max_n=2, smoothing="method7", smooth_value=3).smooth_value == 3.0


def test_errors_name_the_argument_given():
    with pytest.raises(ValueError, match="^rule must be one of 'closest', 'shortest', got 'x'"):
        closest_reference_length(3, [3], rule="x")
    with pytest.raises(ValueError, match="^reference_lens must hold at least one length"):
        closest_reference_length(3, [])
    with pytest.raises(ValueError, match=r"^reference_lens\[1\] must be a non-negative integer"):
        closest_reference_length(3, [2, -1])
    with pytest.raises(ValueError, match="^candidate_len must be a non-negative integer"):
        closest_reference_length(-1, [2])
    with pytest.raises(ValueError, match="^reference_len must hold at least one length"):
        rm.brevity_penalty(3, [])
    with pytest.raises(ValueError, match=r"^reference_len\[1\] must be a non-negative integer"):
        rm.brevity_penalty(3, [2, -1])
    # ref_length is checked even when r is given as one number (it was ignored)
    with pytest.raises(ValueError, match="^ref_length must be one of"):
        rm.brevity_penalty(3, 4, ref_length="longest")


def test_one_tokenized_reference_without_its_list_is_refused():
    # the nltk pitfall: references=tokens instead of [tokens]
    with pytest.raises(ValueError, match="references looks like one tokenized reference"):
        rm.bleu("I have thirty six years".split(), REF.split())
    # a string where a list was meant, split into characters by list()
    with pytest.raises(ValueError, match="references looks like a string split into characters"):
        rm.bleu("I am", list("Iam"))
    with pytest.raises(ValueError, match="references looks like a string split into characters"):
        rm.bleu("I am", list("I am"))      # the space is a "reference" of no word


def test_string_candidate_with_tokenized_reference_is_refused():
    # the same slip with a string candidate: each word was read as a reference
    cand = "the cat sat on the mat"
    with pytest.raises(ValueError, match=(
            r"references looks like one tokenized reference, not 6 references: .*"
            r"for a candidate of 6 tokens\)\. A list of strings is read as several "
            r"references; pass one string, or \[tokens\] for one tokenized reference")):
        rm.bleu(cand, cand.split())
    for call in (lambda: rm.modified_precision(cand, cand.split(), n=1),
                 lambda: segment_stats(cand, cand.split()),
                 lambda: rm.corpus_bleu([cand], [cand.split()])):
        with pytest.raises(ValueError, match="looks like one tokenized reference"):
            call()
    # what the message proposes works: one string, or [tokens]
    assert rm.bleu(cand, cand).score == rm.bleu(cand, [cand.split()]).score == 1.0


def test_one_word_references_of_a_one_token_candidate_are_kept():
    # short answers: one-word strings are several references
    r = rm.bleu("Paris", ["Paris", "paris"], max_n=1)
    assert r.score == 1.0 and r.reference_len == 1  # one token
    r = rm.bleu(["Paris"], ["Paris", "paris"], max_n=1)   # a tokenized short answer too
    assert r.score == 1.0
    # two one-letter references are not "a string split into characters" here
    r = rm.bleu("A", ["A", "B"], max_n=1)
    assert (r.score, r.counts, r.totals) == (1.0, (1,), (1,))
    # several one-word references of a longer candidate: say so with [[w], ...]
    # "the cat": p_1 = 2/2 (each word in one reference), r = 1 (closest), BP = 1
    assert rm.bleu("the cat", [["the"], ["cat"]], max_n=1).score == 1.0
    # only empty references: not a slip, scored 0 with the reason
    r = rm.bleu("a b", ["", ""])
    assert r.score == 0.0 and "no unigram" in r.reason


def test_candidate_nested_too_deep_is_refused():
    with pytest.raises(TypeError, match="candidate must be a string or a list of token strings"):
        rm.bleu([["a", "b"]], "a b")


def test_reference_of_wrong_type():
    with pytest.raises(TypeError, match=r"references\[1\] must be a string or a list"):
        rm.bleu("a b", ["a b", 3])
    with pytest.raises(ValueError, match="at least one reference"):
        rm.bleu("a b", [])


def test_corpus_bleu_bad_nesting():
    with pytest.raises(TypeError, match=r"references\[0\] must be a list of references"):
        rm.corpus_bleu(["a b c"], ["a b c"])
    with pytest.raises(ValueError, match=r"references\[0\] looks like one tokenized reference"):
        rm.corpus_bleu([["ab", "bc", "cd"]], [["ab", "bc", "cd"]])
    with pytest.raises(ValueError, match=r"references\[0\] looks like a string split"):
        rm.corpus_bleu(["a b c"], [list("abc")])
    with pytest.raises(ValueError, match="transposed"):
        rm.corpus_bleu(["a b", "c d", "e f"], [["a b", "c d", "e f"]])
    with pytest.raises(TypeError, match="candidates must be a list"):
        rm.corpus_bleu("a b", [["a b"]])
    with pytest.raises(ValueError, match="at least one candidate"):
        rm.corpus_bleu([], [])


@pytest.mark.parametrize("bad, error, message", [
    ([5, 6, 4.9, 5], TypeError, r"integer counts, got 4\.9 at position 2"),   # was truncated to 4
    ([5, 6, 4, 5.0], TypeError, r"integer counts, got 5\.0 at position 3"),
    (["5", 6, 4, 5], TypeError, r"integer counts, got '5' at position 0"),
    ([5, True, 4, 5], TypeError, r"integer counts, got True at position 1"),
    ([5, 6, 4, -1], ValueError, r"non-negative counts, got -1 at position 3"),
    ("5645", TypeError, r"sequence of integer counts"),
    (np.array([5.0, 6.0, 4.0, 5.0]), TypeError, r"integer counts, got 5\.0 at position 0"),
])
def test_score_from_stats_requires_integer_counts(bad, error, message):
    with pytest.raises(error, match=message):
        score_from_stats(bad)


def test_score_from_stats_accepts_numpy_integers():
    # p_1 = 4/5, BP = exp(1 - 6/5): 0.8 * 0.8187 = 0.655
    expected = 0.8 * math.exp(1 - 6 / 5)
    assert score_from_stats(np.array([5, 6, 4, 5], dtype=np.int32)).score == pytest.approx(expected)
    assert score_from_stats([np.int64(5), np.uint8(6), 4, 5]).score == pytest.approx(expected)


def test_bad_stats():
    with pytest.raises(ValueError, match="even length"):
        score_from_stats([1, 2, 3])
    with pytest.raises(ValueError, match="more matches than n-grams"):
        score_from_stats([3, 3, 4, 3])
    with pytest.raises(ValueError, match="max_n=3 but stats hold only 2 orders"):
        score_from_stats([3, 3, 3, 2, 3, 2], max_n=3)
