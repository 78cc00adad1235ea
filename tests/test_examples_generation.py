"""The slides' BLEU and ROUGE examples: recomputed, checked by hand and against the seeds."""

import math
from fractions import Fraction
from pathlib import Path

import pytest

from ragmetrics_edu.examples import SEEDS, SeedExample, generation

SEED_DIR = Path("/work/shared/seeds")
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

ERRATA = {
    "bleu1_score_i_have", "bleu4_precision_reordered", "rouge1_recall_hunger_games",
    "rouge1_precision_hunger_games", "rouge1_matches_hunger_games_love_typo",
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
    if key in ERRATA:
        assert ex.erratum, key
        # the BLEU-4 slide's value (0) is right but its fraction 0/5 is not
        if key == "bleu4_precision_reordered":
            assert ex.stated == "0/5" and same
        else:
            assert not same
    else:
        assert ex.erratum is None and same


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
def test_texts_appear_in_the_seed(ex):
    """Candidate and reference are printed in the slides, word for word."""
    if not SEED_DIR.exists():  # pragma: no cover
        pytest.skip("seed documents not available")
    text = (SEED_DIR / SEEDS[ex.seed]).read_text(encoding="utf-8")
    assert ex.inputs["candidate"] in text
    refs = ex.inputs["references"]
    for ref in [refs] if isinstance(refs, str) else refs:
        assert ref in text


def test_registry_finds_generation_examples():
    """The package-wide registry lists these examples (once the retrieval module exists)."""
    try:
        from ragmetrics_edu import examples
        every = examples.all_examples()
    except ImportError:  # pragma: no cover - the retrieval examples are written separately
        pytest.skip("ragmetrics_edu.examples.retrieval not present yet")
    for key in HAND:
        assert every[key] is BY_KEY[key]
