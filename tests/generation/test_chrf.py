"""chrF and chrF++ (ragmetrics_edu.generation.chrf_score) against sacrebleu's CHRF.

Corpus and sentence scores equal sacrebleu's ``score / 100`` to 1e-9 on
random texts that exercise its rules (whitespace of every kind, punctuation
at word edges, case, empty texts, several references of varying number);
the statistics equal sacrebleu's segment statistics exactly; hand-computed
cases and hypothesis properties complete them.
"""

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ragmetrics_edu as rm
from ragmetrics_edu.generation import chrf_score

sacrebleu_chrf = pytest.importorskip("sacrebleu.metrics.chrf")
CHRF = sacrebleu_chrf.CHRF

WORDS = ["the", "The", "cat", "cats", "Cat.", "sat", "(sat)", "mat,", "on", "a", "A", "!",
         "'quoted'", "dog", "dogs", "barked", "x", "Über", "über", "naïve", "猫", "猫が",
         "don't", "e.g.", "--", "1990", "-5"]
SPACES = [" ", " ", " ", "  ", "\t", "\n", "\xa0", "\u2028", "\u3000", "\x1f"]


def random_text(rng, max_words=12):
    n = rng.randint(0, max_words)
    text = "".join(rng.choice(WORDS) + rng.choice(SPACES) for _ in range(n))
    if rng.random() < 0.3:
        text = rng.choice(SPACES) + text
    if rng.random() < 0.5:
        text = text.rstrip()
    return text


def noisy_copy(rng, text):
    words = text.split()
    kept = [w for w in words if rng.random() > 0.3]
    for _ in range(rng.randint(0, 3)):
        kept.insert(rng.randint(0, len(kept)), rng.choice(WORDS))
    return " ".join(kept)


def random_corpus(rng, n, max_refs=1):
    hyps, refs = [], []
    for _ in range(n):
        hyp = random_text(rng)
        k = rng.randint(1, max_refs)
        refs.append([noisy_copy(rng, hyp) if rng.random() < 0.7 else random_text(rng)
                     for _ in range(k)])
        hyps.append(hyp)
    return hyps, refs


def streams_of(refs):
    """Our layout (references per segment) as sacrebleu's reference streams."""
    width = max(len(r) for r in refs)
    return [[r[j] if j < len(r) else None for r in refs] for j in range(width)]


OPTIONS = [
    dict(),
    dict(word_order=2),                                   # chrF++
    dict(char_order=1),
    dict(char_order=3, word_order=1, beta=1),
    dict(char_order=4, word_order=3, beta=3),
    dict(lowercase=True, word_order=2),
    dict(whitespace=True),
    dict(whitespace=True, word_order=2, lowercase=True),
    dict(eps_smoothing=True),
    dict(eps_smoothing=True, word_order=2, char_order=2),
    dict(beta=0.5, char_order=5),
]


def sacre(options):
    return CHRF(**options)


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_corpus_and_sentence_equal_sacrebleu(options):
    rng = random.Random(hash(tuple(sorted(options.items()))) % 2**32)
    hyps, refs = random_corpus(rng, 60, max_refs=3)
    metric = sacre(options)
    theirs = metric.corpus_score(hyps, streams_of(refs)).score / 100
    ours = rm.chrf(hyps, refs, **options)
    assert ours.score == pytest.approx(theirs, abs=1e-9)
    # the statistics themselves, segment by segment, are sacrebleu's
    their_stats = np.array(sacre(options)._extract_corpus_statistics(hyps, streams_of(refs)))
    our_stats = chrf_score.corpus_stats(hyps, refs, **options)
    np.testing.assert_array_equal(our_stats, their_stats)
    for hyp, rs, row in list(zip(hyps, refs, our_stats))[:25]:
        theirs = sacre(options).sentence_score(hyp, rs).score / 100
        assert rm.sentence_chrf(hyp, rs, **options).score == pytest.approx(theirs, abs=1e-9)
        # the readable per-segment path and the NumPy corpus path agree
        np.testing.assert_array_equal(chrf_score.segment_stats(hyp, rs, **options), row)


def test_one_reference_each_on_a_larger_corpus():
    rng = random.Random(6)
    hyps, refs = random_corpus(rng, 400)
    for options in (dict(), dict(word_order=2)):
        theirs = CHRF(**options).corpus_score(hyps, [[r[0] for r in refs]]).score / 100
        assert rm.chrf(hyps, [r[0] for r in refs], **options).score == \
            pytest.approx(theirs, abs=1e-9)


@pytest.mark.parametrize("hyp, tied, options", [
    # "a" and "aaa" give "abca" the same sentence chrF (31.25 in sacrebleu) with
    # different statistics, and so do "aa" and "a a" for "abcab"
    ("abca", ["a", "aaa"], dict(char_order=2, eps_smoothing=True)),
    ("abca", ["a", "aaa"], dict(char_order=1, word_order=1)),
    ("abcab", ["aa", "a a"], dict(char_order=1, word_order=1)),
])
def test_ties_between_references_go_to_the_first(hyp, tied, options):
    first, second = (chrf_score.segment_stats(hyp, [r], **options) for r in tied)
    assert first.tolist() != second.tolist()
    assert rm.sentence_chrf(hyp, [tied[0]], **options).score == \
        rm.sentence_chrf(hyp, [tied[1]], **options).score
    for refs in (tied, tied[::-1]):
        hyps, all_refs = [hyp, "abc"], [refs, ["abd"]]
        kept = chrf_score.corpus_stats(hyps, all_refs, **options)[0]
        np.testing.assert_array_equal(kept, chrf_score.segment_stats(hyp, [refs[0]], **options))
        np.testing.assert_array_equal(chrf_score.segment_stats(hyp, refs, **options), kept)
        their_stats = CHRF(**options)._extract_corpus_statistics(hyps, streams_of(all_refs))
        np.testing.assert_array_equal(kept, their_stats[0])
        theirs = CHRF(**options).corpus_score(hyps, streams_of(all_refs)).score / 100
        assert rm.chrf(hyps, all_refs, **options).score == pytest.approx(theirs, abs=1e-12)


def test_large_alphabet_takes_the_reranking_path():
    rng = random.Random(9)
    alphabet = [chr(0x4E00 + i) for i in range(3000)]
    hyps = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30))) for _ in range(40)]
    refs = [[h[::2] + "".join(rng.choice(alphabet) for _ in range(5))] for h in hyps]
    n_units = len(set("".join(hyps + [r[0] for r in refs])))
    # order 6 extends keys of order 5 past what int64 holds next to 80 text ids
    assert n_units ** 6 > chrf_score._INT64_ROOM // 80
    theirs = CHRF().corpus_score(hyps, streams_of(refs)).score / 100
    assert rm.chrf(hyps, refs).score == pytest.approx(theirs, abs=1e-9)


@settings(max_examples=120, deadline=None)
@given(st.text(alphabet="ab .,\t\xa0A", max_size=14),
       st.lists(st.text(alphabet="ab .,\t\xa0A", max_size=14), min_size=1, max_size=3),
       st.integers(1, 4), st.integers(0, 2), st.booleans())
def test_sentence_equals_sacrebleu_on_small_alphabets(hyp, refs, char_order, word_order, eps):
    options = dict(char_order=char_order, word_order=word_order, eps_smoothing=eps)
    theirs = CHRF(**options).sentence_score(hyp, refs).score / 100
    assert rm.sentence_chrf(hyp, refs, **options).score == pytest.approx(theirs, abs=1e-9)
    assert rm.chrf([hyp], [refs], **options).score == pytest.approx(theirs, abs=1e-9)


# ---------------------------------------------------------------------------
# hand-computed cases
# ---------------------------------------------------------------------------

def test_cat_cut_by_hand():
    # unigrams c a t / c u t: 2 matches of 3; bigrams ca at / cu ut: none
    assert chrf_score.segment_stats("cat", "cut", char_order=2).tolist() == [3, 3, 2, 2, 2, 0]
    # P = R = (2/3 + 0/2) / 2 = 1/3; F2 = 5 P R / (4 P + R) = 1/3
    assert rm.sentence_chrf("cat", "cut", char_order=2).score == pytest.approx(1 / 3, abs=1e-15)
    # beta = 1 is the harmonic mean: also 1/3 when P = R
    assert rm.sentence_chrf("cat", "cut", char_order=2, beta=1).score == \
        pytest.approx(1 / 3, abs=1e-15)


def test_whitespace_is_removed_by_default():
    # "a b" -> "ab" : unigrams a b, bigram ab; "ab" scores 1 against it
    assert rm.sentence_chrf("ab", "a b", char_order=2).score == 1.0
    # kept: "a b" has unigrams a, ' ', b and bigrams 'a ', ' b': P1 = 2/2, R1 = 2/3,
    # P2 = 0/1, R2 = 0/2 -> P = 1/2, R = 1/3, F2 = 5 (1/6) / (4/2 + 1/3) = 5/14
    assert rm.sentence_chrf("ab", "a b", char_order=2, whitespace=True).score == \
        pytest.approx(5 / 14, abs=1e-15)


def test_score_from_stats_by_hand():
    # P1 = 2/4, R1 = 2/2: F2 = 5 * 0.5 * 1 / (4 * 0.5 + 1) = 5/6
    assert chrf_score.score_from_stats([4, 2, 2], char_order=1) == pytest.approx(5 / 6)
    # an order without reference n-grams is not effective
    assert chrf_score.score_from_stats([4, 2, 2, 0, 0, 0], char_order=2) == pytest.approx(5 / 6)
    # eps smoothing averages F per order over all orders: (5/6 + eps) / 2
    assert chrf_score.score_from_stats([4, 2, 2, 0, 0, 0], char_order=2, eps_smoothing=True) \
        == pytest.approx(5 / 12)
    assert chrf_score.score_from_stats([0, 0, 0], char_order=1) == 0.0
    assert chrf_score.score_from_stats([3, 3, 0], char_order=1) == 0.0


def test_chrf_words_by_hand():
    assert chrf_score.chrf_words("Hello, world.") == ["Hello", ",", "world", "."]
    assert chrf_score.chrf_words("(hi) 'a") == ["(hi", ")", "'", "a"]
    # a one-character word stays whole; "!?" loses its last character only
    assert chrf_score.chrf_words(". !? x") == [".", "!", "?", "x"]
    assert chrf_score.chrf_words("'a.'") == ["'a.", "'"]
    assert chrf_score.chrf_words("!?") == ["!", "?"]
    assert chrf_score.chrf_words("?a") == ["?", "a"]
    assert chrf_score.chrf_words("a") == ["a"]


def test_corpus_sums_statistics_not_scores():
    hyps, refs = ["cat", "a much longer sentence here"], ["cut", "a much longer sentence here"]
    stats = sum(chrf_score.segment_stats(h, r) for h, r in zip(hyps, refs))
    assert rm.chrf(hyps, refs).stats == tuple(stats.tolist())
    mean_of_sentences = np.mean([rm.sentence_chrf(h, r).score for h, r in zip(hyps, refs)])
    assert rm.chrf(hyps, refs).score != pytest.approx(mean_of_sentences)


def test_result_prints_its_signature():
    r = rm.chrf(["a cat"], ["a cat"], word_order=2, lowercase=True)
    assert r.score == 1.0 and r.name == "chrF2++"
    assert str(r) == "chrF2++ = 1.0000 nc:6|nw:2|beta:2|case:lc|space:no|eff:yes"
    assert float(rm.sentence_chrf("x", "y", eps_smoothing=True)) >= 0
    assert rm.sentence_chrf("x", "y", eps_smoothing=True).signature.endswith("eff:no")


# ---------------------------------------------------------------------------
# properties
# ---------------------------------------------------------------------------

TEXT = st.text(alphabet="abc d.,", max_size=20)


@settings(max_examples=100, deadline=None)
@given(TEXT, st.lists(TEXT, min_size=1, max_size=3), st.integers(0, 2))
def test_properties(hyp, refs, word_order):
    s = rm.sentence_chrf(hyp, refs, word_order=word_order).score
    assert 0.0 <= s <= 1.0 + 1e-12
    # a candidate that is one of its references scores 1 (if it has characters)
    if "".join(hyp.split()):
        assert rm.sentence_chrf(hyp, refs + [hyp], word_order=word_order).score == \
            pytest.approx(1.0, abs=1e-12)
    # the best reference: never below any single one
    assert s >= max(rm.sentence_chrf(hyp, [r], word_order=word_order).score for r in refs) - 1e-12
    # a corpus of one segment is the sentence score
    assert rm.chrf([hyp], [refs], word_order=word_order).score == pytest.approx(s, abs=1e-12)


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------

def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="char_order must be an integer >= 1, got 0"):
        rm.chrf(["a"], ["a"], char_order=0)
    with pytest.raises(TypeError, match="char_order must be an integer"):
        rm.sentence_chrf("a", "a", char_order=2.5)
    with pytest.raises(ValueError, match="word_order must be an integer >= 0, got -1"):
        rm.chrf(["a"], ["a"], word_order=-1)
    with pytest.raises(ValueError, match="beta must be a positive finite number, got 0"):
        rm.chrf(["a"], ["a"], beta=0)
    with pytest.raises(ValueError, match="candidates must hold at least one"):
        rm.chrf([], [])
    with pytest.raises(TypeError, match="candidates must be a list"):
        rm.chrf("a cat", ["a cat"])
    with pytest.raises(ValueError, match=r"got 1 for 2 candidates.*zip\(\*streams\)"):
        rm.chrf(["a", "b"], [["a", "b"]])
    with pytest.raises(TypeError, match=r"references\[0\]\[0\] must be a string.*nested"):
        rm.chrf(["a cat"], [[["a", "cat"]]])
    with pytest.raises(ValueError, match=r"references\[1\] must hold at least one"):
        rm.chrf(["a", "b"], [["a"], []])
    with pytest.raises(TypeError, match=r"candidates\[0\] must be a string.*nested"):
        rm.chrf([["a", "cat"]], ["a cat"])
    with pytest.raises(TypeError, match="candidate must be a string"):
        rm.sentence_chrf(["a"], "a")
    with pytest.raises(ValueError, match="references must hold at least one"):
        rm.sentence_chrf("a", [])
    with pytest.raises(ValueError, match=r"stats must hold 3 \* \(char_order \+ word_order\) = 18"):
        chrf_score.score_from_stats([1, 2, 3])


def test_empty_texts_are_scored_not_refused():
    assert rm.sentence_chrf("", "a cat").score == 0.0
    assert rm.sentence_chrf("a cat", "").score == 0.0
    assert rm.sentence_chrf("", "").score == 0.0
    assert rm.chrf(["", " "], [[""], ["\t"]]).score == 0.0
    assert CHRF().corpus_score(["", " "], [["", "\t"]]).score == 0.0


def test_import_is_light_and_chrf_stays_a_function():
    """The module needs numpy only, and importing it never hides rm.chrf behind the module."""
    import subprocess
    import sys

    code = (
        "import sys, types, ragmetrics_edu as rm, ragmetrics_edu.generation.chrf_score, ragmetrics_edu.generation.qa\n"
        "heavy = ('torch', 'sacrebleu', 'nltk', 'torchmetrics', 'matplotlib', 'scipy')\n"
        "print(sorted(m for m in heavy if m in sys.modules),"
        " isinstance(rm.chrf, types.FunctionType), isinstance(rm.exact_match, types.FunctionType))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[] True True"
