"""ROUGE-N, ROUGE-L and ROUGE-Lsum on hand-counted examples, properties, bad input."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ragmetrics_edu as rm
from ragmetrics_edu.generation.rouge import _lcs_indices, _lcs_table, lcs_length, rouge_scores

CAND = "I really loved reading the Hunger Games"
REF = "I loved reading the Hunger Games"


def test_hunger_games_rouge1_by_hand():
    r = rm.rouge_n(CAND, REF, n=1)
    # 6 matches, 7 candidate unigrams, 6 reference unigrams
    assert (r.matches, r.candidate_count, r.reference_count) == (6, 7, 6)
    assert r.precision == 6 / 7
    assert r.recall == 1.0
    # F = 2 * (6/7) * 1 / (6/7 + 1) = 12/13
    assert r.fmeasure == pytest.approx(12 / 13, abs=1e-15)


def test_hunger_games_rouge2_by_hand():
    r = rm.rouge_n(CAND, REF, n=2)
    # loved reading, reading the, the Hunger, Hunger Games: 4 of 6 and of 5
    assert (r.matches, r.candidate_count, r.reference_count) == (4, 6, 5)
    assert r.precision == pytest.approx(4 / 6, abs=1e-15)
    assert r.recall == pytest.approx(4 / 5, abs=1e-15)


def test_hunger_games_typo_reference_has_5_matches():
    # "love" != "loved"
    assert rm.rouge_n(CAND, "I love reading the Hunger Games", n=1).matches == 5


def test_default_tokenizer_keeps_case():
    # "The" and "the" differ by default, agree with the rouge-score tokenizer
    assert rm.rouge_n("The cat", "the cat", n=1).matches == 1
    assert rm.rouge_n("The cat", "the cat", n=1, tokenizer=rm.rouge_tokenize).matches == 2


def test_rouge_n_clips_repeats():
    # candidate "a a a b", reference "a b b": min(3,1) + min(1,2) = 2
    r = rm.rouge_n("a a a b", "a b b", n=1)
    assert (r.matches, r.precision, r.recall) == (2, 2 / 4, 2 / 3)


def test_rouge_l_by_hand():
    # LCS of "thirty six years have I" and "I am thirty six years old" is
    # "thirty six years" (3): P = 3/5, R = 3/6
    r = rm.rouge_l("thirty six years have I", "I am thirty six years old")
    assert (r.matches, r.precision, r.recall) == (3, 3 / 5, 3 / 6)
    # Hunger Games: LCS is the whole reference (6)
    assert rm.rouge_l(CAND, REF).matches == 6


def test_lcs_textbook():
    # CLRS: LCS("ABCBDAB", "BDCABA") = 4 ("BCBA")
    assert lcs_length(list("ABCBDAB"), list("BDCABA")) == 4
    assert lcs_length(list("ABCBDAB"), list("BDCABA"), method="table") == 4
    assert lcs_length([], list("abc")) == 0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from("abcd"), max_size=70), st.lists(st.sampled_from("abcd"), max_size=70))
def test_lcs_bits_equals_table(a, b):
    """The fast bit-parallel path agrees with the textbook table (70 > 64 bits too)."""
    assert lcs_length(a, b) == lcs_length(a, b, method="table")


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from("abc"), max_size=12), st.lists(st.sampled_from("abc"), max_size=12))
def test_lcs_indices_form_a_longest_common_subsequence(a, b):
    idx = _lcs_indices(a, b)
    assert len(idx) == _lcs_table(a, b)[-1][-1]
    assert idx == sorted(set(idx))
    sub = [a[i] for i in idx]
    it = iter(b)
    assert all(tok in it for tok in sub)  # sub is a subsequence of b


def test_rouge_lsum_by_hand():
    # reference sentence "the cat was on" vs candidate sentences "the cat sat"
    # (LCS "the cat") and "on the mat" (LCS of length 1, read out as "the"):
    # union {the, cat} -> 2 hits; "the mat" vs "on the mat" -> 2 hits.
    r = rm.rouge_lsum("the cat sat\non the mat", "the cat was on\nthe mat")
    assert (r.matches, r.candidate_count, r.reference_count) == (4, 6, 6)
    assert r.fmeasure == pytest.approx(4 / 6, abs=1e-15)


def test_rouge_lsum_union_counts_more_than_one_lcs():
    # reference "a b c d" against candidate sentences "a b" and "c d":
    # union of LCSs {a, b} and {c, d} = 4 hits, while plain LCS per sentence gives 2
    r = rm.rouge_lsum("a b\nc d", "a b c d")
    assert (r.matches, r.precision, r.recall) == (4, 1.0, 1.0)


def test_rouge_lsum_does_not_double_count():
    # reference sentences "a" and "a"; candidate has one "a": 1 hit only
    r = rm.rouge_lsum("a", "a\na")
    assert (r.matches, r.candidate_count, r.reference_count) == (1, 1, 2)


def test_rouge_lsum_accepts_sentence_lists():
    a = rm.rouge_lsum("the cat sat\non the mat", "the cat was on\nthe mat")
    b = rm.rouge_lsum([["the", "cat", "sat"], "on the mat"], [[["the", "cat", "was", "on"],
                                                                 ["the", "mat"]]])
    assert (a.precision, a.recall) == (b.precision, b.recall)


def test_multi_ref_options_by_hand():
    # candidate "a b c d"; ref1 "a b" (P 2/4, R 1, F 2/3); ref2 "a b c d e f g h"
    # (P 1, R 4/8, F 2/3); ref3 "x" (0). F ties: best_f keeps the first (ref1).
    refs = ["a b", "a b c d e f g h", "x"]
    best = rm.rouge_n("a b c d", refs, n=1)
    assert (best.precision, best.recall, best.reference_index) == (0.5, 1.0, 0)
    avg = rm.rouge_n("a b c d", refs, n=1, multi_ref="average")
    assert avg.precision == pytest.approx((0.5 + 1 + 0) / 3, abs=1e-15)
    assert avg.recall == pytest.approx((1 + 0.5 + 0) / 3, abs=1e-15)
    assert avg.fmeasure == pytest.approx((2 / 3 + 2 / 3) / 3, abs=1e-15)
    mx = rm.rouge_n("a b c d", refs, n=1, multi_ref="max_each")
    assert (mx.precision, mx.recall) == (1.0, 1.0)
    assert mx.fmeasure == pytest.approx(2 / 3, abs=1e-15)
    assert mx.matches is None


def test_best_f_picks_highest_f():
    r = rm.rouge_l("a b c", ["x y", "a b c", "a"])
    assert r.reference_index == 1 and r.fmeasure == 1.0


def test_rouge_scores_equals_single_calls():
    s = rouge_scores(CAND, [REF, "The Hunger Games is a great read. I loved it."],
                     variants=("rouge1", "rouge2", "rouge3", "rougeL", "rougeLsum"))
    assert s["rouge1"] == rm.rouge_n(CAND, [REF, "The Hunger Games is a great read. I loved it."], n=1)
    assert s["rouge3"] == rm.rouge_n(CAND, [REF, "The Hunger Games is a great read. I loved it."], n=3)
    assert s["rougeL"] == rm.rouge_l(CAND, [REF, "The Hunger Games is a great read. I loved it."])
    with pytest.raises(ValueError, match="variants must be names like"):
        rouge_scores(CAND, REF, variants=["rouge0"])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from("abcde"), max_size=12), st.lists(st.sampled_from("abcde"), max_size=12),
       st.integers(1, 3))
def test_properties(c, r, n):
    rn = rm.rouge_n(c, [r], n=n)
    rl = rm.rouge_l(c, [r])
    for res in (rn, rl):
        assert 0 <= res.precision <= 1 and 0 <= res.recall <= 1 and 0 <= res.fmeasure <= 1
        assert min(res.precision, res.recall) - 1e-12 <= res.fmeasure <= max(res.precision, res.recall) + 1e-12
    # swapping candidate and reference swaps precision and recall
    sw = rm.rouge_n(r, [c], n=n)
    assert (sw.precision, sw.recall) == (rn.precision, rn.recall)[::-1]
    # LCS never exceeds unigram matches
    assert rl.matches <= rm.rouge_n(c, [r], n=1).matches


# --------------------------------------------------------------- bad input

def test_empty_texts_give_zero():
    for res in (rm.rouge_n("", REF, n=1), rm.rouge_n(CAND, "", n=1), rm.rouge_l("", REF),
                rm.rouge_lsum("", REF), rm.rouge_lsum(CAND, "\n\n")):
        assert (res.precision, res.recall, res.fmeasure) == (0.0, 0.0, 0.0)
    # fewer tokens than n: no bigram, all 0
    assert rm.rouge_n("a", "a", n=2).fmeasure == 0.0


def test_bad_n():
    with pytest.raises(ValueError, match="n must be a positive integer, got 0"):
        rm.rouge_n("a", "a", n=0)
    with pytest.raises(TypeError, match="n must be a positive integer"):
        rm.rouge_n("a", "a", n="1")


def test_bad_multi_ref():
    with pytest.raises(ValueError, match="multi_ref must be one of 'best_f', 'average', 'max_each'"):
        rm.rouge_n("a", "a", n=1, multi_ref="mean")


def test_wrong_nesting_is_refused():
    with pytest.raises(ValueError, match="references looks like one tokenized reference"):
        rm.rouge_n(CAND.split(), REF.split(), n=1)
    with pytest.raises(TypeError, match="candidate must be a string or a list of token strings"):
        rm.rouge_l([CAND.split()], REF)
    with pytest.raises(ValueError, match="at least one reference"):
        rm.rouge_l(CAND, [])
    with pytest.raises(ValueError, match="rouge_lsum reads a list as sentences"):
        rm.rouge_lsum(CAND.split(), REF)


def test_string_candidate_with_tokenized_reference_is_refused():
    # each word of REF.split() used to be read as one reference (best F of six)
    message = (r"references looks like one tokenized reference, not 6 references: .*"
               r"A list of strings is read as several references; pass one string, "
               r"or \[tokens\] for one tokenized reference")
    for call in (lambda: rm.rouge_n(CAND, REF.split(), n=1),
                 lambda: rm.rouge_l(CAND, REF.split()),
                 lambda: rm.rouge_lsum(CAND, REF.split()),
                 lambda: rouge_scores(CAND, REF.split())):
        with pytest.raises(ValueError, match=message):
            call()
    # short answers: one-word references of a one-token candidate are kept
    r = rm.rouge_n("Paris", ["Lyon", "Paris"], n=1)
    assert (r.fmeasure, r.reference_index) == (1.0, 1)
    r = rm.rouge_l("A", ["A", "B"])
    assert (r.fmeasure, r.reference_index) == (1.0, 0)


def test_signature_says_pretokenized():
    assert rm.rouge_n(CAND, REF, n=1).signature == "rouge1|tok:whitespace|multi_ref:best_f"
    assert rm.rouge_n(CAND.split(), [REF.split()], n=1).signature == \
        "rouge1|tok:pretokenized|multi_ref:best_f"
    assert rm.rouge_l(CAND, [REF.split()], tokenizer=rm.rouge_tokenize).tokenizer == \
        "rouge+pretokenized"
    assert rm.rouge_lsum([CAND.split()], [[REF.split()]]).tokenizer == "pretokenized"
    assert rm.rouge_lsum([CAND.split(), "a b"], REF).tokenizer == "whitespace+pretokenized"
    s = rouge_scores(CAND.split(), [REF.split()], variants=("rouge1", "rougeL"))
    assert {v.tokenizer for v in s.values()} == {"pretokenized"}


# ------------------------------------------------------------- the order n

def test_rouge_n_above_9_is_the_same_count_at_a_larger_order():
    # 12 tokens: 3 ten-grams in the candidate; the reference (11 tokens) has 2,
    # of which 1 matches (the candidate's first ten tokens)
    cand = "a b c d e f g h i j k l"
    ref = "a b c d e f g h i j x"
    r = rm.rouge_n(cand, ref, n=10)
    assert (r.matches, r.candidate_count, r.reference_count) == (1, 3, 2)
    assert r.precision == pytest.approx(1 / 3) and r.recall == pytest.approx(1 / 2)
    assert rouge_scores(cand, ref, variants=["rouge10"])["rouge10"] == r


def test_rouge_score_names_only_rouge1_to_rouge9():
    scorer = pytest.importorskip("rouge_score.rouge_scorer")
    with pytest.raises(ValueError, match="Invalid rouge type: rouge10"):
        scorer.RougeScorer(["rouge10"]).score("a b", "a b")  # refused when scoring
    cand, ref = "a b c d e f g h i j k", "a b c d e f g h i j k l"
    theirs = scorer.RougeScorer(["rouge9"]).score(ref, cand)["rouge9"]
    ours = rm.rouge_n(cand, ref, n=9)
    assert (ours.precision, ours.recall) == pytest.approx((theirs.precision, theirs.recall))


@pytest.mark.parametrize("name", ["rouge0", "rouge01", "rouge\u0663", "rouge1_0",
                                  "rouge" + "9" * 5000])
def test_rouge_scores_refuses_other_spellings_of_n(name):
    with pytest.raises(ValueError, match="variants must be names like") as info:
        rouge_scores("a b", "a b", variants=[name])
    assert len(str(info.value)) < 300
