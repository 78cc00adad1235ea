"""The generation-metric examples of the slides (BLEU and ROUGE), as data.

Tokens are the slides' words split on whitespace, case kept (the default
tokenizer of :mod:`ragmetrics_edu.generation.bleu_score` and :mod:`ragmetrics_edu.generation.rouge`).

>>> from ragmetrics_edu.course.examples import generation
>>> ex = {e.key: e for e in generation.EXAMPLES}["rouge1_precision_hunger_games"]
>>> ex.stated, round(ex.correct, 4)
(1.0, 0.8571)
"""

import math

from ...generation.bleu_score import bleu
from ...generation.bleu_stats import modified_precision
from ...generation.rouge import rouge_n
from . import SeedExample

__all__ = ["EXAMPLES", "BLEU_REFERENCE", "HUNGER_GAMES_CANDIDATE", "HUNGER_GAMES_REFERENCES"]

BLEU_REFERENCE = "I am thirty six years old"
"""The slides' human reference translation for every BLEU example."""

HUNGER_GAMES_CANDIDATE = "I really loved reading the Hunger Games"
"""The slides' machine-generated summary of the book review."""

HUNGER_GAMES_REFERENCES = (
    "I loved reading the Hunger Games",
    "The Hunger Games is a great read. I loved it.",
)
"""The slides' two human reference summaries; the worked numbers use the first."""

HUNGER_GAMES_TYPO_REFERENCE = "I love reading the Hunger Games"
"""The reference as one slide prints it ("love" for "loved")."""

_BLEU_WHERE = "Generation Evaluations > BLEU-N"

_LABEL_BLEU_DENOMINATOR = (
    "The slide's formula labels the denominator 'Num unigrams in reference'; modified "
    "precision divides by the candidate's n-grams, as the numbers shown do."
)
_ROUGE_WHERE = "Generation Evaluations > ROUGE"


def _precision(candidate, references, n, clip=True):
    return modified_precision(candidate, references, n=n, clip=clip)


def _bleu_score(candidate, references, max_n):
    return bleu(candidate, references, max_n=max_n).score


def _rouge(candidate, references, n, part):
    return getattr(rouge_n(candidate, references, n=n), part)


def _rouge_matches(candidate, references, n):
    return int(rouge_n(candidate, references, n=n).matches)  # a count: printed as 6, not 6.0


EXAMPLES = [
    # ---------------------------------------------------------------- BLEU
    SeedExample(
        key="bleu1_precision_i_have",
        seed="slides",
        where=f"{_BLEU_WHERE} (BLEU-1, 'Here there are 4 unigram matches')",
        metric="BLEU-1 modified unigram precision p1",
        inputs={"candidate": "I have thirty six years", "references": BLEU_REFERENCE, "n": 1},
        stated=0.8,  # "= 4/5"
        correct=4 / 5,  # I, thirty, six, years match; 5 candidate unigrams
        compute=_precision,
        label_erratum=_LABEL_BLEU_DENOMINATOR,
    ),
    SeedExample(
        key="bleu1_score_i_have",
        seed="slides",
        where=f"{_BLEU_WHERE} (BLEU-1)",
        metric="BLEU-1 score (p1 times the brevity penalty)",
        inputs={"candidate": "I have thirty six years", "references": BLEU_REFERENCE,
                "max_n": 1},
        stated=0.8,  # the slides show only p1 = 4/5 for BLEU-1
        correct=0.8 * math.exp(1 - 6 / 5),  # p1 * BP, BP = exp(-0.2) = 0.8187; = 0.65498
        compute=_bleu_score,
        erratum=(
            "The slides show p1 = 4/5 as BLEU-1; the score multiplies it by the brevity "
            "penalty exp(1 - 6/5) = 0.8187 (5 candidate vs 6 reference tokens): "
            "BLEU-1 = 0.6550."
        ),
    ),
    SeedExample(
        key="bleu1_precision_six_unclipped",
        seed="slides",
        where=f"{_BLEU_WHERE} (over-generation, before clipping)",
        metric="unigram precision without clipping",
        inputs={"candidate": "six six six six six", "references": BLEU_REFERENCE, "n": 1,
                "clip": False},
        stated=1.0,  # "= 5/5 = 1"
        correct=5 / 5,  # every "six" is in the reference
        compute=_precision,
        label_erratum=_LABEL_BLEU_DENOMINATOR,
    ),
    SeedExample(
        key="bleu1_precision_six_clipped",
        seed="slides",
        where=f"{_BLEU_WHERE} (clipping)",
        metric="BLEU-1 modified unigram precision p1",
        inputs={"candidate": "six six six six six", "references": BLEU_REFERENCE, "n": 1},
        stated=0.2,  # "= 1/5 = 0.2"
        correct=1 / 5,  # "six" occurs once in the reference: clipped to 1 of 5
        compute=_precision,
        label_erratum=_LABEL_BLEU_DENOMINATOR,
    ),
    SeedExample(
        key="bleu1_precision_reordered",
        seed="slides",
        where=f"{_BLEU_WHERE} (word order)",
        metric="BLEU-1 modified unigram precision p1",
        inputs={"candidate": "thirty six years have I", "references": BLEU_REFERENCE, "n": 1},
        stated=0.8,  # "= 4/5 = 0.8"
        correct=4 / 5,  # thirty, six, years, I match; "have" does not
        compute=_precision,
        label_erratum=_LABEL_BLEU_DENOMINATOR,
    ),
    SeedExample(
        key="bleu4_precision_reordered",
        seed="slides",
        where=f"{_BLEU_WHERE} (4-grams)",
        metric="BLEU-4 modified 4-gram precision p4",
        inputs={"candidate": "thirty six years have I", "references": BLEU_REFERENCE, "n": 4},
        stated="0/5",
        correct=0 / 2,  # 4-grams "thirty six years have", "six years have I": none match
        compute=_precision,
        label_erratum=(
            "The slide writes 0/5 under a 'Num unigram matches' / 'Num unigrams in "
            "reference' label, but a 5-token candidate has two 4-grams: p4 = 0/2 "
            "(the value 0 is right)."
        ),
    ),
    # --------------------------------------------------------------- ROUGE
    SeedExample(
        key="rouge1_matches_hunger_games",
        seed="slides",
        where=f"{_ROUGE_WHERE} ('Here there are 6 unigram matches')",
        metric="ROUGE-1 unigram matches",
        inputs={"candidate": HUNGER_GAMES_CANDIDATE, "references": HUNGER_GAMES_REFERENCES[0],
                "n": 1},
        stated=6,
        correct=6.0,  # I, loved, reading, the, Hunger, Games
        compute=_rouge_matches,
    ),
    SeedExample(
        key="rouge1_recall_hunger_games",
        seed="slides",
        where=f"{_ROUGE_WHERE} - ROUGE-1",
        metric="ROUGE-1 recall",
        inputs={"candidate": HUNGER_GAMES_CANDIDATE, "references": HUNGER_GAMES_REFERENCES[0],
                "n": 1, "part": "recall"},
        stated="6/7",
        correct=6 / 6,  # 6 matches over the reference's 6 unigrams
        compute=_rouge,
        erratum=(
            "The slide swaps recall and precision: recall divides by the reference's 6 "
            "unigrams, 6/6 = 1, not 6/7."
        ),
    ),
    SeedExample(
        key="rouge1_precision_hunger_games",
        seed="slides",
        where=f"{_ROUGE_WHERE} - ROUGE-1",
        metric="ROUGE-1 precision",
        inputs={"candidate": HUNGER_GAMES_CANDIDATE, "references": HUNGER_GAMES_REFERENCES[0],
                "n": 1, "part": "precision"},
        stated=1.0,  # "= 6/6"
        correct=6 / 7,  # 6 matches over the summary's 7 unigrams
        compute=_rouge,
        erratum=(
            "The slide swaps recall and precision: precision divides by the summary's 7 "
            "unigrams, 6/7 = 0.857, not 6/6."
        ),
    ),
    SeedExample(
        key="rouge1_matches_hunger_games_love_typo",
        seed="slides",
        where=f"{_ROUGE_WHERE} - ROUGE-1 (reference printed as 'I love reading ...')",
        metric="ROUGE-1 unigram matches",
        inputs={"candidate": HUNGER_GAMES_CANDIDATE, "references": HUNGER_GAMES_TYPO_REFERENCE,
                "n": 1},
        stated=6,
        correct=5.0,  # "love" != "loved": I, reading, the, Hunger, Games
        compute=_rouge_matches,
        erratum=(
            "The ROUGE-1 slide prints the reference as 'I love reading the Hunger Games', "
            "which shares only 5 unigrams; 'love' is a typo for 'loved'."
        ),
    ),
    SeedExample(
        key="rouge2_recall_hunger_games",
        seed="slides",
        where=f"{_ROUGE_WHERE} - ROUGE-2",
        metric="ROUGE-2 recall",
        inputs={"candidate": HUNGER_GAMES_CANDIDATE, "references": HUNGER_GAMES_REFERENCES[0],
                "n": 2, "part": "recall"},
        stated="4/5",
        correct=4 / 5,  # loved reading, reading the, the Hunger, Hunger Games of 5
        compute=_rouge,
    ),
    SeedExample(
        key="rouge2_precision_hunger_games",
        seed="slides",
        where=f"{_ROUGE_WHERE} - ROUGE-2",
        metric="ROUGE-2 precision",
        inputs={"candidate": HUNGER_GAMES_CANDIDATE, "references": HUNGER_GAMES_REFERENCES[0],
                "n": 2, "part": "precision"},
        stated="4/6",
        correct=4 / 6,  # the same 4 matches over the summary's 6 bigrams
        compute=_rouge,
    ),
]
"""Every BLEU and ROUGE example of the slides (seed 000; seed 001 is the
same deck with the examples partly lost in extraction)."""
