"""Verbosity and position bias, measured on hand-built judges whose bias is known."""

import re

import pytest

from ragmetrics_edu.judge import extract_sections, load_eval_set
from ragmetrics_edu.judge.bias import (
    NEUTRAL_PADDING,
    PositionBias,
    VerbosityBias,
    pad_answer,
    position_bias,
    verbosity_bias,
)

# ----------------------------------------------------------------- fake judges


def length_judge(prompt):
    """One point per ten words of the answer: a pure verbosity bias."""
    words = len(extract_sections(prompt)["ANSWER"].split())
    return f"Score: {min(5, 1 + words // 10)}"


def keyword_judge(prompt):
    """Score by the question's words found in the answer: blind to extra neutral sentences."""
    s = extract_sections(prompt)
    q = set(re.findall(r"[a-z]+", s["QUESTION"].lower())) - {"the", "of", "a", "what", "is", "on"}
    a = set(re.findall(r"[a-z]+", s["ANSWER"].lower()))
    return f"Score: {min(5, 1 + len(q & a))}"


def sentence_penalty_judge(prompt):
    """Starts at 5 and loses a point per sentence beyond the second: punishes padding."""
    n = len([x for x in re.split(r"(?<=[.!?])\s+", extract_sections(prompt)["ANSWER"]) if x])
    return f"Score: {max(1, 5 - max(0, n - 2))}"


def always_first(prompt):
    return "Winner: A"


def always_second(prompt):
    return "Winner: B"


def longer_wins(prompt):
    """Prefers the longer answer wherever it is shown: no position bias."""
    s = extract_sections(prompt)
    a, b = len(s["ANSWER_A"].split()), len(s["ANSWER_B"].split())
    return "Winner: " + ("A" if a > b else "B" if b > a else "tie")


def close_call_first(prompt):
    """Prefers the longer answer, but when lengths differ by under 3 words picks the first shown."""
    s = extract_sections(prompt)
    a, b = len(s["ANSWER_A"].split()), len(s["ANSWER_B"].split())
    if abs(a - b) < 3:
        return "Winner: A"
    return "Winner: " + ("A" if a > b else "B")


ITEMS = [
    {"answer": "The shock wave stays attached to the sharp leading edges.",
     "question": "What happens to the shock wave at the leading edges?"},
    {"answer": "Ablation of teflon was measured in flight.",
     "question": "How was ablation measured during flight?"},
    {"answer": "Transition moves forward.", "question": "Where does transition occur?"},
]


# ----------------------------------------------------------------- padding

def test_pad_answer_adds_exactly_the_neutral_sentences():
    padded = pad_answer("Lift rises.", 3)
    assert padded == "Lift rises. " + " ".join(NEUTRAL_PADDING[:3])
    assert pad_answer("x.", 5, padding=("A.", "B.")) == "x. A. B. A. B. A."
    # neutral: no digit, and none of the padding sentences mentions an aeronautical subject
    for sentence in NEUTRAL_PADDING:
        assert not re.search(r"\d", sentence)
        assert not re.search(r"lift|drag|shock|flow|wing|pressure|heat", sentence, re.I)


@pytest.mark.parametrize("kwargs, match", [
    (dict(n_sentences=0), "n_sentences must be a positive integer"),
    (dict(n_sentences=True), "n_sentences must be a positive integer"),
    (dict(padding=()), "padding must be a non-empty sequence"),
    (dict(padding="One."), "padding must be a non-empty sequence"),
    (dict(padding=("ok.", "  ")), "padding must be a non-empty sequence"),
])
def test_pad_answer_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        pad_answer("Lift rises.", **kwargs)


# ----------------------------------------------------------------- verbosity

def test_length_judge_is_caught_with_per_item_shifts():
    r = verbosity_bias(length_judge, ITEMS, n_sentences=2)
    assert isinstance(r, VerbosityBias)
    # by hand: answers of 10, 7 and 3 words; the two padding sentences add 12 + 11 = 23
    assert r.original == [2, 1, 1]
    assert r.padded == [4, 4, 3]          # 33, 30 and 26 words
    assert r.shift == [2, 3, 2]
    assert r.mean_shift == pytest.approx(7 / 3)
    assert (r.n_up, r.n_same, r.n_down) == (3, 0, 0)
    assert r.padded_answers[2] == pad_answer(ITEMS[2]["answer"], 2)
    assert "mean shift +2.3333" in str(r)


def test_judge_blind_to_padding_shows_no_shift():
    r = verbosity_bias(keyword_judge, ITEMS, n_sentences=3)
    assert r.shift == [0, 0, 0] and r.mean_shift == 0.0 and r.n_same == 3


def test_judge_that_punishes_padding_moves_down():
    r = verbosity_bias(sentence_penalty_judge, ITEMS, n_sentences=2)
    assert r.original == [5, 5, 5] and r.padded == [4, 4, 4]
    assert r.n_down == 3 and r.mean_shift == -1.0


def test_the_judge_sees_the_padded_answer_and_the_same_question():
    seen = []

    def recorder(prompt):
        seen.append(extract_sections(prompt))
        return "Score: 3"

    verbosity_bias(recorder, ITEMS[:1], rubric="relevance", n_sentences=1)
    assert seen[0]["ANSWER"] == ITEMS[0]["answer"]
    assert seen[1]["ANSWER"] == ITEMS[0]["answer"] + " " + NEUTRAL_PADDING[0]
    assert seen[0]["QUESTION"] == seen[1]["QUESTION"] == ITEMS[0]["question"]


def test_verbosity_bias_on_the_labelled_set_with_a_fake_judge():
    """The labelled set's answers go through unchanged: every item is measured."""
    items = [{"answer": a["text"], "question": r["question"]}
             for r in load_eval_set() for a in r["answers"]]
    result = verbosity_bias(length_judge, items, n_sentences=2)
    assert len(result.shift) == len(items)
    assert all(s >= 0 for s in result.shift)  # more words never lowers this judge's score


@pytest.mark.parametrize("items, error, match", [
    ("an answer", TypeError, "items must be a sequence of dicts"),
    ([], ValueError, "at least one item"),
    ([{"question": "Q?"}], ValueError, r"items\[0\]\['answer'\] must be a non-empty string"),
    ([{"answer": "A.", "extra": 1}], ValueError, "unknown keys"),
    (["A."], TypeError, r"items\[0\] must be a dict"),
])
def test_verbosity_bias_bad_items(items, error, match):
    with pytest.raises(error, match=match):
        verbosity_bias(length_judge, items)


def test_verbosity_bias_bad_rubric():
    with pytest.raises(ValueError, match="rubric must be a Rubric or one of"):
        verbosity_bias(length_judge, ITEMS, rubric="length")


# ----------------------------------------------------------------- position

PAIRS = [
    {"question": "Q1?", "answer_1": "short one", "answer_2": "a much longer second answer here"},
    {"question": "Q2?", "answer_1": "a long first answer with many words", "answer_2": "brief"},
    {"question": "Q3?", "answer_1": "two words", "answer_2": "three words here"},   # close call
    {"question": "Q4?", "answer_1": "same length", "answer_2": "equal size"},       # close call
]


def test_always_first_flips_every_verdict():
    r = position_bias(always_first, PAIRS)
    assert isinstance(r, PositionBias)
    assert r.flipped == [True] * 4 and r.flip_rate == 1.0
    assert r.favoured == ["first"] * 4 and r.first_rate == 1.0
    assert r.outcomes == ["tie"] * 4


def test_always_second_flips_toward_the_second_slot():
    r = position_bias(always_second, PAIRS)
    assert r.flip_rate == 1.0 and r.favoured == ["second"] * 4 and r.first_rate == 0.0


def test_judge_without_position_bias_never_flips():
    r = position_bias(longer_wins, PAIRS)
    assert r.flipped == [False] * 4 and r.flip_rate == 0.0
    assert r.favoured == [None] * 4
    assert r.outcomes == ["2", "1", "2", "tie"]
    # verdicts, by hand: pair 1 -> (B, A), pair 2 -> (A, B), pair 3 -> (B, A), pair 4 -> (tie, tie)
    assert r.verdicts == [("B", "A"), ("A", "B"), ("B", "A"), ("tie", "tie")]
    assert r.first_rate == pytest.approx(3 / 8)


def test_bias_only_on_close_calls_is_found_on_exactly_those_items():
    r = position_bias(close_call_first, PAIRS)
    assert r.flipped == [False, False, True, True]
    assert r.flip_rate == 0.5
    assert r.favoured == [None, None, "first", "first"]
    assert r.outcomes == ["2", "1", "tie", "tie"]
    assert "2 of 4 verdicts flip" in str(r)


def test_a_tie_on_one_side_counts_as_a_flip():
    def tie_when_first_is_short(prompt):
        s = extract_sections(prompt)
        return "Winner: tie" if len(s["ANSWER_A"].split()) < 3 else "Winner: A"

    r = position_bias(tie_when_first_is_short, PAIRS[:2])
    # pair 1: (tie, A) ; pair 2: (A, tie)
    assert r.verdicts == [("tie", "A"), ("A", "tie")]
    assert r.flipped == [True, True] and r.favoured == ["tie", "tie"]


def test_context_and_reference_reach_the_judge():
    seen = []

    def recorder(prompt):
        seen.append(extract_sections(prompt))
        return "Winner: tie"

    position_bias(recorder, [dict(PAIRS[0], context="CTX.", reference="REF.")])
    assert seen[0]["CONTEXT"] == "CTX." and seen[0]["REFERENCE"] == "REF."
    assert seen[0]["ANSWER_A"] == seen[1]["ANSWER_B"] == PAIRS[0]["answer_1"]


@pytest.mark.parametrize("pairs, error, match", [
    ({"question": "Q"}, TypeError, "pairs must be a sequence of dicts"),
    ([], ValueError, "at least one item"),
    ([{"question": "Q?", "answer_1": "a"}], ValueError, r"pairs\[0\]\['answer_2'\]"),
    ([{"question": "Q?", "answer_1": "a", "answer_2": "b", "answer_3": "c"}], ValueError,
     "unknown keys"),
])
def test_position_bias_bad_pairs(pairs, error, match):
    with pytest.raises(error, match=match):
        position_bias(always_first, pairs)
