"""Support per citation as the TREC 2024 RAG track scores it: by hand, and bad input."""

import math

import pytest

import ragmetrics_edu as rm
from ragmetrics_edu.judge import EmbeddingJudge, extract_sections
from ragmetrics_edu.judge.support import (
    SUPPORT_WEIGHTS,
    TREC_RAG_WORD_LIMIT,
    assess_support,
    build_support_grade_prompt,
    support_label,
    support_scores,
    word_count,
)


def test_weights_are_the_tracks():
    assert SUPPORT_WEIGHTS == {"full_support": 1.0, "partial_support": 0.5, "no_support": 0.0}
    assert TREC_RAG_WORD_LIMIT == 400


def test_by_hand_with_an_uncited_sentence():
    # 4 sentences: full, partial, no support, and one citing nothing
    s = support_scores([["full_support"], ["partial_support"], ["no_support"], []])
    assert s.precision == pytest.approx((1 + 0.5 + 0) / 3)   # per assessed citation
    assert s.recall == pytest.approx((1 + 0.5 + 0 + 0) / 4)  # per sentence, uncited counts 0
    assert (s.n_sentences, s.n_cited, s.n_assessed) == (4, 3, 3)


def test_only_the_first_citation_is_assessed_by_default():
    labels = [["no_support", "full_support", "full_support"], ["partial_support", "no_support"]]
    first = support_scores(labels)
    assert (first.precision, first.recall, first.n_assessed) == (0.25, 0.25, 2)
    every = support_scores(labels, at_most_citations=None)
    assert every.precision == pytest.approx(2.5 / 5)
    assert every.recall == pytest.approx((1.0 + 0.5) / 2)          # best citation per sentence
    mean = support_scores(labels, at_most_citations=None, sentence_support="mean")
    assert mean.recall == pytest.approx((2 / 3 + 0.25) / 2)
    assert support_scores(labels, at_most_citations=2).n_assessed == 4


def test_empty_answers_and_answers_without_citation():
    assert support_scores([]) == (0.0, 0.0, 0, 0, 0)
    nothing_cited = support_scores([[], []], empty_score=math.nan)
    assert math.isnan(nothing_cited.precision) and nothing_cited.recall == 0.0


@pytest.mark.parametrize("labels, kwargs, error, says", [
    ("full_support", {}, TypeError, "for each sentence"),
    (["full_support"], {}, TypeError, r"labels\[0\] must be the list"),
    ([["full"]], {}, ValueError, r"labels\[0\]\[0\] must be 'full_support'"),
    ([[1.0]], {}, ValueError, r"got 1.0"),
    ([[]], {"at_most_citations": 0}, ValueError, "at_most_citations"),
    ([[]], {"sentence_support": "min"}, ValueError, "sentence_support"),
    ([[]], {"empty_score": "0"}, TypeError, "empty_score"),
])
def test_bad_input_is_named(labels, kwargs, error, says):
    with pytest.raises(error, match=says):
        support_scores(labels, **kwargs)


def test_word_count_and_the_limit():
    assert word_count("one two  three\nfour") == 4
    assert word_count(" ".join(["w"] * 401)) > TREC_RAG_WORD_LIMIT
    with pytest.raises(TypeError):
        word_count(None)


def test_grade_prompt_and_its_labels():
    p = build_support_grade_prompt("Helium cooled best.", "helium was the best coolant")
    sections = extract_sections(p)
    assert sections == {"ANSWER": "Helium cooled best.", "CONTEXT": "helium was the best coolant"}
    assert [support_label(f"Score: {n}") for n in (2, 1, 0)] == list(SUPPORT_WEIGHTS)
    with pytest.raises(ValueError):
        support_label("Score: 3")
    from ragmetrics_edu.judge.language_model import read_reply_format
    assert read_reply_format(p) == ("score", "Score:", ["0", "1", "2"])


def test_assess_support_asks_for_the_first_citation_only():
    asked = []

    def judge(prompt):
        asked.append(extract_sections(prompt)["CONTEXT"])
        return "Score: 1"
    labels = assess_support(judge, "One [2][1]. Two. Three [3].", ["a", "b", "c"])
    assert labels == [["partial_support"], [], ["partial_support"]]
    assert asked == ["b", "c"]
    asked.clear()
    assess_support(judge, "One [2][1].", ["a", "b"], at_most_citations=None)
    assert asked == ["b", "a"]
    with pytest.raises(ValueError, match=r"cites \[4\]"):
        assess_support(judge, "One [4].", ["a"])


def test_the_stand_in_grades_a_copied_sentence_full_support():
    passage = "helium was found to be the most efficacious coolant of the four gases injected."
    labels = assess_support(EmbeddingJudge(), f"{passage[:-1]} [1].", [passage])
    assert labels == [["full_support"]]
    assert rm.support_scores(labels).precision == 1.0
