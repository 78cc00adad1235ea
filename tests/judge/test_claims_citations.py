"""Atomic claims with FActScore's length penalty, and ALCE's citation recall and precision,
on examples worked by hand."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragmetrics_edu.judge import EmbeddingJudge
from ragmetrics_edu.judge.citations import (
    Statement,
    citation_precision,
    citation_recall,
    citation_scores,
    entailment_from_judge,
    parse_citations,
)
from ragmetrics_edu.judge.claims import (
    atomic_claims,
    claim_precision,
    decompose_claims,
    factscore,
    judge_claims,
    length_penalty,
    parse_claims,
)
from ragmetrics_edu.judge.base import JudgeError

# -- claims -----------------------------------------------------------------------------


def test_sentences_and_given_claims():
    assert atomic_claims("A is 1. B is 2! C?") == ["A is 1.", "B is 2!", "C?"]
    assert atomic_claims("") == []
    assert atomic_claims("x", claims=[" a ", "b"]) == ["a", "b"]
    with pytest.raises(ValueError, match="claims must hold non-empty strings"):
        atomic_claims("x", claims=["a", ""])
    with pytest.raises(TypeError, match="claims must be a list"):
        atomic_claims("x", claims="a. b.")


def test_claim_precision_and_empty_convention():
    assert claim_precision([1, 0, 1]) == pytest.approx(2 / 3)
    assert math.isnan(claim_precision([]))
    assert claim_precision([], empty_score=1.0) == 1.0
    with pytest.raises(ValueError, match=r"supported must hold yes/no verdicts .* got 2 at position 1"):
        claim_precision([1, 2])


def test_length_penalty_by_hand():
    # exp(1 - gamma/n) for n < gamma
    assert length_penalty(1) == pytest.approx(math.exp(-9))
    assert length_penalty(4) == pytest.approx(math.exp(1 - 2.5))
    assert length_penalty(9) == pytest.approx(math.exp(1 - 10 / 9))
    assert length_penalty(10) == 1.0 and length_penalty(11) == 1.0
    assert length_penalty(2, gamma=4) == pytest.approx(math.exp(-1))
    with pytest.raises(ValueError, match="n_claims must be a positive integer"):
        length_penalty(0)
    with pytest.raises(ValueError, match="gamma must be a positive number"):
        length_penalty(3, gamma=0)


def test_factscore_by_hand():
    # answer 1: 2 of 4 supported, penalty exp(1 - 10/4); answer 2: 12 claims, 9 supported;
    # answer 3 abstains
    a1 = [1, 1, 0, 0]
    a2 = [1] * 9 + [0] * 3
    r = factscore([a1, a2, []])
    assert r.respond_ratio == pytest.approx(2 / 3)
    assert r.init_score == pytest.approx((0.5 + 0.75) / 2)
    assert r.score == pytest.approx((0.5 * math.exp(1 - 2.5) + 0.75) / 2)
    assert r.num_facts_per_response == 8.0
    assert factscore([a1], gamma=None).score == 0.5
    nobody = factscore([[], []])
    assert math.isnan(nobody.score) and nobody.respond_ratio == 0.0
    with pytest.raises(ValueError, match=r"supported_per_answer\[1\]"):
        factscore([[1], ["yes"]])
    with pytest.raises(ValueError, match="empty list"):
        factscore([])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=30), st.integers(1, 20))
def test_penalty_never_raises_the_score(verdicts, gamma):
    r = factscore([verdicts], gamma=gamma)
    assert r.score <= r.init_score + 1e-15
    assert r.init_score == pytest.approx(claim_precision(verdicts))
    if len(verdicts) >= gamma:
        assert r.score == r.init_score


def test_decompose_claims():
    toy = lambda prompt: "Claim: A.\n- Claim: B."
    assert decompose_claims(toy, "A and B.") == ["A.", "B."]
    assert parse_claims("claim: none") == []
    with pytest.raises(ValueError):
        parse_claims("Claim: A\nand more")
    with pytest.raises(ValueError):
        parse_claims("Claim: A\nClaim: none")
    with pytest.raises(JudgeError):   # the stand-in cannot write claims
        decompose_claims(EmbeddingJudge(), "Helium cooled best.")


def test_judge_claims_granularity_changes_the_score():
    # one sentence with a right and a wrong fact: one unsupported claim, or one of two
    judge = lambda prompt: "Verdict: yes" if "helium" in prompt.split("<<<CLAIM>>>")[1].lower() else "Verdict: no"
    context = ["helium was the most efficacious coolant at mach 6"]
    whole = judge_claims(judge, "Helium, at Mach 9, cooled best.", context)
    assert [ok for _, ok in whole] == [True]
    split = judge_claims(judge, "", context, claims=["Helium cooled best.", "The tests ran at Mach 9."])
    assert claim_precision([ok for _, ok in split]) == 0.5
    assert judge_claims(judge, "", context) == []


# -- citations ------------------------------------------------------------------------

PASSAGES = ["P1", "P2", "P3"]


def _entails_from(table):
    """An entailment judge from a table: statement -> the sets of passages that entail it."""
    def entails(premise, hypothesis):
        have = {p for p in PASSAGES if p in premise.split("\n")}
        return any(need <= have for need in table.get(hypothesis, []))
    return entails


def test_parse_citations():
    st_ = parse_citations("A holds [1]. B holds [2][3]! C holds.")
    assert st_ == [Statement("A holds.", (1,)), Statement("B holds!", (2, 3)), Statement("C holds.", ())]
    assert parse_citations("") == []
    with pytest.raises(ValueError, match=r"cites \[0\] in statement 1"):
        parse_citations("A [0].")
    with pytest.raises(ValueError, match=r"cites \[4\] in statement 2 .* only passages \[1\] to \[3\]"):
        citation_scores("A [1]. B [4].", PASSAGES, entails=lambda p, h: True)


def test_alce_hand_example():
    # S1 "A." cites [1][2]: P1 alone entails A; P2 alone does not, and P1 without P2 still
    #    does -> [1] precise, [2] irrelevant.
    # S2 "B." cites [2][3]: only P2+P3 together entail B -> both needed, both precise.
    # S3 "C." cites [3]: P3 does not entail C -> recall 0, its citation not precise.
    # S4 "D." cites nothing -> recall 0, no citation.
    table = {"A.": [{"P1"}], "B.": [{"P2", "P3"}], "C.": [{"P1"}], "D.": [{"P1"}]}
    s = citation_scores("A [1][2]. B [2][3]. C [3]. D.", PASSAGES, entails=_entails_from(table))
    assert (s.n_statements, s.n_supported) == (4, 2)
    assert s.recall == 2 / 4
    assert (s.n_citations, s.n_precise) == (5, 3)
    assert s.precision == 3 / 5
    assert citation_recall("A [1][2]. B [2][3]. C [3]. D.", PASSAGES, entails=_entails_from(table)) == 0.5
    assert citation_precision("A [1][2]. B [2][3]. C [3]. D.", PASSAGES, entails=_entails_from(table)) == 0.6


def test_alce_both_alone_entail_and_redundant_pair():
    # each of P1 and P2 entails A alone: both precise (condition (a) holds for both)
    table = {"A.": [{"P1"}, {"P2"}]}
    assert citation_precision("A [1][2].", PASSAGES, entails=_entails_from(table)) == 1.0
    # P3 is irrelevant, and a single wrong citation is not precise
    assert citation_precision("A [1][3].", PASSAGES, entails=_entails_from(table)) == 0.5
    assert citation_precision("A [3].", PASSAGES, entails=_entails_from(table)) == 0.0


def test_at_most_citations():
    # only the first 3 citations count (ALCE's default): [4], the one passage that entails, is dropped
    passages = PASSAGES + ["P4"]

    def entails(premise, hypothesis):
        return "P4" in premise.split("\n")
    s = citation_scores("A [1][2][3][4].", passages, entails=entails)
    assert (s.recall, s.n_citations) == (0.0, 3)
    s = citation_scores("A [1][2][3][4].", passages, entails=entails, at_most_citations=None)
    assert (s.recall, s.n_citations, s.n_precise) == (1.0, 4, 1)


def test_empty_and_bad_input():
    s = citation_scores("", PASSAGES, entails=lambda p, h: True)
    assert math.isnan(s.recall) and s.n_statements == 0
    assert citation_scores("", PASSAGES, entails=lambda p, h: True, empty_score=0.0).recall == 0.0
    assert citation_precision("No citation here.", PASSAGES, entails=lambda p, h: True) == 0.0
    with pytest.raises(TypeError, match="entails must be a callable"):
        citation_scores("A [1].", PASSAGES, entails="yes")
    with pytest.raises(TypeError, match="entails must return a bool"):
        citation_scores("A [1].", PASSAGES, entails=lambda p, h: "yes")
    with pytest.raises(ValueError, match=r"no passage was retrieved"):
        citation_scores("A [1].", [], entails=lambda p, h: True)
    with pytest.raises(TypeError, match="passages must be a list"):
        citation_scores("A [1].", "P1", entails=lambda p, h: True)


statements_st = st.lists(st.lists(st.integers(1, 3), max_size=4), min_size=1, max_size=5)


@settings(max_examples=200, deadline=None)
@given(statements_st, st.sets(st.sampled_from(["P1", "P2", "P3"])))
def test_properties(cites, sufficient):
    answer = " ".join(f"S{i}" + "".join(f"[{c}]" for c in cs) + "." for i, cs in enumerate(cites))
    # a statement is entailed when the premise holds any sufficient passage
    entails = lambda premise, hypothesis: bool(sufficient & set(premise.split("\n")))
    s = citation_scores(answer, PASSAGES, entails=entails, at_most_citations=None)
    assert 0 <= s.n_precise <= s.n_citations
    assert 0.0 <= s.recall <= 1.0 and 0.0 <= s.precision <= 1.0
    always = citation_scores(answer, PASSAGES, entails=lambda p, h: True, at_most_citations=None)
    assert always.recall == sum(1 for cs in cites if cs) / len(cites)
    assert always.n_precise == always.n_citations
    never = citation_scores(answer, PASSAGES, entails=lambda p, h: False, at_most_citations=None)
    assert never.recall == 0.0 and never.precision == 0.0


def test_with_the_embedding_stand_in():
    entails = entailment_from_judge(EmbeddingJudge())
    passages = ["Helium is found to be the most efficacious coolant.",
                "The contraction of satellite orbits under air drag is studied."]
    s = citation_scores("Helium was the most efficacious coolant [1][2].", passages, entails=entails)
    # supported jointly and by [1] alone; [2] is not needed
    assert (s.recall, s.n_precise, s.n_citations) == (1.0, 1, 2)


# ----------------------------------------------------------------- issue 34: arguments

@pytest.mark.parametrize("n_passages, error, rule", [
    # before: -1 said "only passages [1] to [-1] were retrieved", 1.5 was taken
    (-1, ValueError, "n_passages must be at least 0, got -1"),
    (1.5, TypeError, "n_passages must be an integer, got 1.5"),
    (True, TypeError, "n_passages must be an integer, got True"),
    ("3", TypeError, "n_passages must be an integer, got '3'"),
])
def test_n_passages_is_a_count(n_passages, error, rule):
    with pytest.raises(error, match=rule):
        parse_citations("Helium [1].", n_passages=n_passages)


@pytest.mark.parametrize("function", [citation_scores, citation_recall, citation_precision])
@pytest.mark.parametrize("empty_score, error, rule", [
    # before: "0.5" was read as 0.5 and "abc" raised "could not convert string to float"
    ("0.5", TypeError, r"empty_score must be a number in \[0, 1\] or nan .*, got '0.5'"),
    ("abc", TypeError, "empty_score must be a number"),
    (None, TypeError, "empty_score must be a number"),
    (-1, ValueError, r"empty_score must be a number in \[0, 1\] or nan .*, got -1"),
    (math.inf, ValueError, r"empty_score must be .*, got inf"),
])
def test_empty_score_is_a_score_or_nan(function, empty_score, error, rule):
    with pytest.raises(error, match=rule):
        function("", PASSAGES, entails=lambda p, h: True, empty_score=empty_score)
    # checked even when the answer has statements
    with pytest.raises(error, match=rule):
        function("A [1].", PASSAGES, entails=lambda p, h: True, empty_score=empty_score)
