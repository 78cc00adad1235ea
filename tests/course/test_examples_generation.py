"""The slides' BLEU and ROUGE examples: recomputed, checked by hand and against sacrebleu and nltk."""

import math
from fractions import Fraction

import pytest

from ragmetrics_edu.course.examples import SEEDS, SeedExample, generation

BY_KEY = {ex.key: ex for ex in generation.EXAMPLES}

# key -> the right value, by hand (independent of the library)
HAND = {
    "bleu1_precision_i_have": 4 / 5,            # I, thirty, six, years of 5
    "bleu1_score_i_have": 0.8 * math.exp(-0.2),  # p1 * exp(1 - 6/5) = 0.654985
    "bleu1_precision_six_unclipped": 1.0,        # 5 of 5 before clipping
    "bleu1_precision_six_clipped": 1 / 5,        # "six" clipped to 1
    "bleu1_precision_reordered": 4 / 5,          # "have" misses
    "bleu4_precision_reordered": 0.0,            # 0 of 2 4-grams
    "rouge1_matches_hunger_games": 6.0,
    "rouge1_recall_hunger_games": 6 / 6,
    "rouge1_precision_hunger_games": 6 / 7,
    "rouge1_matches_hunger_games_love_typo": 5.0,
    "rouge2_recall_hunger_games": 4 / 5,
    "rouge2_precision_hunger_games": 4 / 6,
}

# the seed's number is wrong (ERRATA 2 and 10)
ERRATA = {
    "bleu1_score_i_have", "rouge1_recall_hunger_games",
    "rouge1_precision_hunger_games", "rouge1_matches_hunger_games_love_typo",
}

# the seed's wording is wrong, its number right: every BLEU-N precision slide
# labels the denominator "Num unigrams in reference" (ERRATA 3)
LABEL_ERRATA = {
    "bleu1_precision_i_have", "bleu1_precision_six_unclipped", "bleu1_precision_six_clipped",
    "bleu1_precision_reordered", "bleu4_precision_reordered",
}


def _number(stated):
    return float(Fraction(stated)) if isinstance(stated, str) else float(stated)


def test_keys_are_unique_and_all_checked():
    assert len(BY_KEY) == len(generation.EXAMPLES)
    assert set(BY_KEY) == set(HAND)


@pytest.mark.parametrize("key", sorted(HAND))
def test_correct_value_by_hand(key):
    assert BY_KEY[key].correct == pytest.approx(HAND[key], abs=1e-15)


@pytest.mark.parametrize("key", sorted(HAND))
def test_recompute_gives_correct(key):
    ex = BY_KEY[key]
    assert isinstance(ex, SeedExample)
    assert ex.recompute() == pytest.approx(ex.correct, abs=1e-12)


@pytest.mark.parametrize("key", sorted(HAND))
def test_stated_vs_correct_and_errata(key):
    ex = BY_KEY[key]
    same = abs(_number(ex.stated) - ex.correct) <= ex.tolerance + 1e-12
    # the number is off exactly when an erratum is recorded
    assert (key in ERRATA) == (not same) == bool(ex.erratum), key


@pytest.mark.parametrize("key", sorted(HAND))
def test_label_errata(key):
    ex = BY_KEY[key]
    if key in LABEL_ERRATA:
        assert "Num unigrams in reference" in ex.label_erratum
        assert ex.label_erratum.endswith(".") and len(ex.label_erratum) < 300
    else:
        assert ex.label_erratum is None


def test_bleu4_fraction_is_a_label_slip():
    # the slide's 0/5 has the right value 0 but the wrong count: two 4-grams
    ex = BY_KEY["bleu4_precision_reordered"]
    assert ex.stated == "0/5" and ex.correct == 0.0 and ex.erratum is None
    assert "0/2" in ex.label_erratum


def test_bleu1_score_matches_sacrebleu_and_nltk():
    sacrebleu = pytest.importorskip("sacrebleu")
    bleu_score = pytest.importorskip("nltk.translate.bleu_score")
    ex = BY_KEY["bleu1_score_i_have"]
    sb = sacrebleu.BLEU(tokenize="none", smooth_method="none", max_ngram_order=1)
    s = sb.corpus_score([ex.inputs["candidate"]], [[ex.inputs["references"]]]).score / 100
    n = bleu_score.sentence_bleu([ex.inputs["references"].split()],
                                 ex.inputs["candidate"].split(), weights=(1.0,))
    assert s == pytest.approx(ex.correct, abs=1e-12)
    assert n == pytest.approx(ex.correct, abs=1e-12)


@pytest.mark.parametrize("ex", generation.EXAMPLES, ids=lambda e: e.key)
def test_examples_use_the_slides_texts_and_cite_the_slide(ex):
    """Every example's texts are the module's slide texts, and it names its slide."""
    assert ex.seed == "slides" and ex.seed in SEEDS
    assert ex.where.startswith(("Generation Evaluations > BLEU-N", "Generation Evaluations > ROUGE"))
    slide_texts = {generation.BLEU_REFERENCE, generation.HUNGER_GAMES_CANDIDATE,
                   *generation.HUNGER_GAMES_REFERENCES, generation.HUNGER_GAMES_TYPO_REFERENCE,
                   "I have thirty six years", "six six six six six", "thirty six years have I"}
    assert ex.inputs["candidate"] in slide_texts
    refs = ex.inputs["references"]
    for ref in [refs] if isinstance(refs, str) else refs:
        assert ref in slide_texts


def test_registry_finds_generation_examples():
    """The package-wide registry lists every generation example, as the same objects."""
    from ragmetrics_edu.course import examples

    every = examples.all_examples()
    for key in HAND:
        assert every[key] is BY_KEY[key]
    assert {ex.key for ex in examples.errata()} >= ERRATA | LABEL_ERRATA
