"""Rubric grading, pairwise comparison, and the labelled set."""

import pytest

from ragmetrics_edu.judge import (
    RUBRICS,
    Rubric,
    compare,
    extract_sections,
    grade,
    load_eval_set,
    majority_rating,
    majority_vote,
    resolve_swap,
)
from ragmetrics_edu.judge.rag import split_claims


def test_ready_rubrics():
    assert set(RUBRICS) == {"coherence", "relevance", "fluency", "faithfulness", "coverage", "conciseness"}
    for r in RUBRICS.values():
        assert r.scale == (1, 5) and len(r.levels) == 5


def test_custom_rubric_scale():
    r = Rubric("accuracy", "Is it right?", {0: "wrong", 1: "partly", 2: "right"})
    assert r.scale == (0, 2)
    g = grade(lambda p: "Score: 2/2" if "scale from 0 to 2" in p else "?", r, "x")
    assert g.score == 2
    with pytest.raises(ValueError):
        grade(lambda p: "Score: 3", r, "x")
    with pytest.raises(ValueError, match="consecutive"):
        Rubric("bad", "?", {1: "a", 3: "c"})


def test_grade_majority_over_samples():
    replies = iter(["Score: 2", "Score: 4", "Score: 4"])
    g = grade(lambda p: next(replies), "fluency", "text", n_samples=3)
    assert g.ratings == [2, 4, 4] and g.score == 4


def test_grade_refuses_unparseable():
    with pytest.raises(ValueError):
        grade(lambda p: "Pretty good, maybe a 4", "fluency", "text")


def test_majority_rating():
    assert majority_rating([5]) == 5
    assert majority_rating([1, 1, 2, 2]) == 1        # tie 1 vs 2: lower median 1
    assert majority_rating([1, 3, 5]) == 3
    assert majority_rating([1, 2, 4, 5]) == 2        # four-way tie: lower median of (1,2,4,5)
    with pytest.raises(ValueError):
        majority_rating([])


@pytest.mark.parametrize("first, swapped, expected", [
    ("A", "B", "1"), ("B", "A", "2"), ("tie", "tie", "tie"),
    ("A", "A", "tie"), ("B", "B", "tie"), ("A", "tie", "tie"), ("tie", "A", "tie"),
])
def test_resolve_swap(first, swapped, expected):
    assert resolve_swap(first, swapped) == expected


def test_majority_vote():
    assert majority_vote(["1", "1", "tie"]) == "1"
    assert majority_vote(["2", "1", "2"]) == "2"
    assert majority_vote(["1", "2", "tie"]) == "tie"
    with pytest.raises(ValueError):
        majority_vote(["A"])


def test_compare_consistent_judge():
    # prefers whichever answer mentions "shock", wherever it is shown
    def judge(prompt):
        s = extract_sections(prompt)
        return "Winner: A" if "shock" in s["ANSWER_A"] else "Winner: B"

    r = compare(judge, "What causes buzz?", "shock motion", "engine vibration", n_samples=2)
    assert r.winner == "1" and r.inconsistent == 0 and r.verdicts == [("A", "B")] * 2
    r = compare(judge, "What causes buzz?", "engine vibration", "shock motion")
    assert r.winner == "2"


def test_compare_position_biased_judge_gives_tie():
    r = compare(lambda p: "Winner: B", "Q?", "one", "two", n_samples=3)
    assert r.winner == "tie" and r.inconsistent == 3 and r.outcomes == ["tie"] * 3


def test_compare_majority_over_samples():
    replies = iter(["Winner: A", "Winner: B",     # sample 1: answer 1 (consistent)
                    "Winner: A", "Winner: A",     # sample 2: position bias -> tie
                    "Winner: A", "Winner: B"])    # sample 3: answer 1
    r = compare(lambda p: next(replies), "Q?", "one", "two", n_samples=3)
    assert r.outcomes == ["1", "tie", "1"] and r.winner == "1" and r.inconsistent == 1


def test_eval_set_is_well_formed():
    data = load_eval_set()
    assert 10 <= len(data) <= 20
    assert len({r["id"] for r in data}) == len(data)
    for r in data:
        assert r["labels_by"] == "ragmetrics_edu authors"
        assert r["question"] and r["reference"]
        assert any(c["relevant"] for c in r["chunks"])
        for c in r["chunks"]:
            assert c["label_source"] in ("qrels", "authors")
            # a chunk labelled by the qrels is relevant exactly when its code is 1..4
            if c["label_source"] == "qrels":
                assert c["qrels_code"] in (1, 2, 3, 4) and c["relevant"] is True
            else:
                assert c["qrels_code"] in (None, -1)
        for a in r["answers"]:
            assert [c["text"] for c in a["claims"]] == split_claims(a["text"])
            assert all(isinstance(c["supported"], bool) for c in a["claims"])
            for name, value in a["ratings"].items():
                lo, hi = RUBRICS[name].scale
                assert lo <= value <= hi


def test_eval_set_matches_the_cranfield_files():
    from ragmetrics_edu.lab.datasets import load_cranfield

    c = load_cranfield(grades="raw")
    for r in load_eval_set():
        assert r["question"] == c.queries[r["query_id"]]
        for ch in r["chunks"]:
            assert c.qrels[r["query_id"]].get(ch["doc_id"]) == ch["qrels_code"]
            # the chunk is the start of the real abstract (whitespace normalised)
            assert " ".join(c.docs[ch["doc_id"]]["text"].split()).startswith(ch["text"])


def test_eval_set_copy_is_fresh():
    a = load_eval_set()
    a[0]["question"] = "changed"
    assert load_eval_set()[0]["question"] != "changed"


@pytest.mark.parametrize("outcomes, expected", [
    (["1", "1", "2", "tie"], "tie"),        # 2 of 4: the most votes, but no majority
    (["2", "2", "1", "tie"], "tie"),
    (["1", "1", "tie", "tie", "2"], "tie"),  # 2 of 5
    (["1", "1", "1", "2", "tie"], "1"),      # 3 of 5
    (["2", "2", "2", "1", "1"], "2"),
    (["1"], "1"),
    (["tie", "tie", "1"], "tie"),
])
def test_majority_vote_is_a_strict_majority(outcomes, expected):
    assert majority_vote(outcomes) == expected


def test_compare_needs_a_majority_of_samples():
    replies = iter(["Winner: A", "Winner: B",     # answer 1
                    "Winner: A", "Winner: B",     # answer 1
                    "Winner: B", "Winner: A",     # answer 2
                    "Winner: A", "Winner: A"])    # position bias: tie
    r = compare(lambda p: next(replies), "Q?", "one", "two", n_samples=4)
    assert r.outcomes == ["1", "1", "2", "tie"] and r.winner == "tie"
