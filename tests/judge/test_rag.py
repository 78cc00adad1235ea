"""RAG metrics from verdicts: hand arithmetic, AP equivalence, judged versions."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ragmetrics_edu as rm
from ragmetrics_edu.judge import CachedJudge, extract_sections, load_eval_set
from ragmetrics_edu.judge.rag import (
    answer_relevancy,
    build_question_generation_prompt,
    context_precision,
    context_recall,
    faithfulness,
    judge_relevance,
    judged_answer_relevancy,
    judged_context_precision,
    judged_context_recall,
    judged_faithfulness,
    parse_generated_question,
    split_claims,
    statement_relevancy,
)


@pytest.mark.parametrize("verdicts, expected", [
    ([1, 0, 1, 0], (1 / 1 + 2 / 3) / 2),          # relevant at ranks 1 and 3
    ([0, 1, 1], (1 / 2 + 2 / 3) / 2),             # ranks 2 and 3
    ([0, 0, 0, 1], (1 / 4) / 1),                  # one relevant, last
    ([1, 1, 1, 1], 1.0),
    ([0, 0], 0.0),                                # nothing relevant: 0 (ragas, DeepEval)
    ([], 0.0),
    ([True, False, False, True, True], (1 / 1 + 2 / 4 + 3 / 5) / 3),
])
def test_context_precision_by_hand(verdicts, expected):
    assert context_precision(verdicts) == pytest.approx(expected)


def test_context_precision_at_k():
    # top 2 of [0, 1, 1]: relevant at rank 2 only -> (1/2)/1
    assert context_precision([0, 1, 1], k=2) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="k must be a positive integer"):
        context_precision([1], k=0)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.booleans(), max_size=20), st.integers(1, 25) | st.none())
def test_context_precision_is_ap_with_retrieved_relevant_denominator(verdicts, k):
    expected = rm.average_precision([int(v) for v in verdicts], n_relevant=sum(verdicts), k=k,
                                    denominator="retrieved_relevant")
    assert context_precision(verdicts, k=k) == pytest.approx(expected)


def test_context_precision_vs_trec_ap():
    v = [1, 0, 1, 0]
    # the judge cannot know that 4 chunks in the collection were relevant: trec_eval's AP would
    # divide by 4, context precision divides by the 2 retrieved
    assert rm.average_precision(v, n_relevant=4) == pytest.approx((1 + 2 / 3) / 4)
    assert context_precision(v) == pytest.approx((1 + 2 / 3) / 2)


def test_ratios_by_hand():
    assert faithfulness([1, 1, 0, 1]) == pytest.approx(3 / 4)
    assert context_recall([True, False, False]) == pytest.approx(1 / 3)
    assert statement_relevancy([1, 0]) == pytest.approx(1 / 2)
    assert math.isnan(faithfulness([]))                  # ragas
    assert faithfulness([], empty_score=1.0) == 1.0      # DeepEval
    assert math.isnan(context_recall([]))
    assert statement_relevancy([]) == 1.0                # DeepEval
    assert isinstance(faithfulness([1]), float)


@pytest.mark.parametrize("bad", [[2], [0.5], ["Yes"], ["maybe"], [None], "10"])
def test_verdicts_validated(bad):
    with pytest.raises((ValueError, TypeError)):
        faithfulness(bad)


@pytest.mark.parametrize("bad", [["yes"], ["idk"]])
def test_only_faithfulness_reads_verdict_words(bad):
    with pytest.raises(ValueError, match="got 'yes'|got 'idk'"):
        context_recall(bad)


def test_faithfulness_three_valued_verdicts_by_hand():
    # five claims: two the context supports, two it says nothing about, one it contradicts
    verdicts = ["yes", "idk", "no", "yes", "idk"]
    # ragas's reading (and DeepEval's penalize_ambiguous_claims=True): only "yes" counts, 2 of 5
    assert faithfulness(verdicts) == pytest.approx(2 / 5)
    assert faithfulness(verdicts, ambiguous="unsupported") == pytest.approx(2 / 5)
    # DeepEval's default: every verdict but "no" counts, 4 of 5
    assert faithfulness(verdicts, ambiguous="supported") == pytest.approx(4 / 5)
    # DeepEval 4.3 calls "idk" "borderline"; bools and 0/1 are "yes" and "no"
    assert faithfulness([True, "borderline", 0], ambiguous="supported") == pytest.approx(2 / 3)
    assert faithfulness([True, "borderline", 0]) == pytest.approx(1 / 3)
    # a claim the context says nothing about: 0 for ragas, 1 for DeepEval
    assert faithfulness(["idk"]) == 0.0 and faithfulness(["idk"], ambiguous="supported") == 1.0
    # yes/no verdicts alone: the two rules agree
    assert faithfulness([1, 0, 1], ambiguous="supported") == faithfulness([1, 0, 1]) == pytest.approx(2 / 3)
    assert faithfulness([], ambiguous="supported", empty_score=1.0) == 1.0
    with pytest.raises(ValueError, match="ambiguous must be one of 'unsupported', 'supported', got 'faithful'"):
        faithfulness(verdicts, ambiguous="faithful")
    with pytest.raises(ValueError, match=r"got 'IDK' at position 2"):
        faithfulness(["yes", "IDK"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["yes", "no", "idk"]), min_size=1, max_size=30))
def test_faithfulness_rules_count_yes_or_everything_but_no(verdicts):
    n = len(verdicts)
    assert faithfulness(verdicts) == pytest.approx(verdicts.count("yes") / n)
    assert faithfulness(verdicts, ambiguous="supported") == pytest.approx(1 - verdicts.count("no") / n)


def test_answer_relevancy_by_hand():
    q = [3.0, 4.0]                                   # |q| = 5
    gen = [[3.0, 4.0], [4.0, -3.0], [6.0, 8.0]]      # cosines 1, 0, 1
    assert answer_relevancy(q, gen) == pytest.approx(2 / 3)
    assert answer_relevancy(q, gen, noncommittal=True) == 0.0
    assert answer_relevancy(q, [0.0, 1.0]) == pytest.approx(4 / 5)   # one question, cos = 4/5
    with pytest.raises(ValueError, match="zero"):
        answer_relevancy(q, [[0.0, 0.0]])
    with pytest.raises(ValueError, match="shape"):
        answer_relevancy(q, [[1.0, 2.0, 3.0]])


def test_answer_relevancy_noncommittal_rules():
    q = [3.0, 4.0]
    gen = [[3.0, 4.0], [4.0, -3.0], [6.0, 8.0]]      # cosines 1, 0, 1: mean 2/3
    one_flagged = [True, False, False]
    # current ragas (np.all): one evasive question of three does not zero the score
    assert answer_relevancy(q, gen, noncommittal=one_flagged) == pytest.approx(2 / 3)
    assert answer_relevancy(q, gen, noncommittal=one_flagged, noncommittal_rule="all") == pytest.approx(2 / 3)
    # ragas 0.1/0.2 (np.any): it does
    assert answer_relevancy(q, gen, noncommittal=one_flagged, noncommittal_rule="any") == 0.0
    for rule in ("all", "any"):
        assert answer_relevancy(q, gen, noncommittal=[1, 1, 1], noncommittal_rule=rule) == 0.0
        assert answer_relevancy(q, gen, noncommittal=[0, 0, 0], noncommittal_rule=rule) == pytest.approx(2 / 3)
        assert answer_relevancy(q, gen, noncommittal=True, noncommittal_rule=rule) == 0.0
    with pytest.raises(ValueError, match="one flag per generated question \\(3\\), got 2"):
        answer_relevancy(q, gen, noncommittal=[True, False])
    with pytest.raises(ValueError, match="noncommittal_rule must be one of 'all', 'any', got 'most'"):
        answer_relevancy(q, gen, noncommittal_rule="most")


def test_judged_answer_relevancy_follows_current_ragas_by_default():
    replies = ["Question: what is lift?\nNoncommittal: yes",   # one of three flagged
               "Question: what is lift?\nNoncommittal: no",
               "Question: what is lift?\nNoncommittal: no"]
    embed = lambda texts: np.array([[1.0, 0.0] if t == "What is lift?" else [0.6, 0.8] for t in texts])

    def judge_from(replies):
        it = iter(replies)
        return lambda prompt: next(it)

    # every generated question embeds to (0.6, 0.8): cosine 0.6 with the question
    assert judged_answer_relevancy(judge_from(replies), "What is lift?", "Lift is a force.",
                                   embed=embed) == pytest.approx(0.6)
    assert judged_answer_relevancy(judge_from(replies), "What is lift?", "Lift is a force.",
                                   embed=embed, noncommittal_rule="any") == 0.0


def test_deepeval_context_recall_empty_convention():
    # DeepEval's ContextualRecallMetric scores 0 when there is no sentence to attribute; ragas NaN
    assert context_recall([], empty_score=0.0) == 0.0
    assert math.isnan(context_recall([]))


@pytest.mark.parametrize("q, gen, name", [
    ([float("nan"), 1.0], [[1.0, 0.0]], "question_embedding"),
    ([1.0, 0.0], [[1.0, 0.0], [float("inf"), 0.0]], "generated_embeddings"),
])
def test_answer_relevancy_refuses_non_finite_embeddings(q, gen, name):
    with pytest.raises(ValueError, match=f"{name} must hold finite numbers"):
        answer_relevancy(q, gen)


def test_split_claims():
    assert split_claims("One. Two? Three!") == ["One.", "Two?", "Three!"]
    assert split_claims("Mach 13.1 was reached.") == ["Mach 13.1 was reached."]
    assert split_claims("") == []


def oracle_from_eval_set(record):
    """A judge that answers with the labels of the eval set (to test the plumbing)."""
    relevant = {c["text"]: c["relevant"] for c in record["chunks"]}
    supported = {cl["text"]: cl["supported"] for a in record["answers"] for cl in a["claims"]}

    def judge(prompt):
        s = extract_sections(prompt)
        if "CHUNK" in s:
            return "Verdict: yes" if relevant[s["CHUNK"]] else "Verdict: no"
        return "Verdict: yes" if supported[s["CLAIM"]] else "Verdict: no"
    return judge


def test_judged_metrics_with_label_oracle():
    for r in load_eval_set():
        judge = oracle_from_eval_set(r)
        chunks = [c["text"] for c in r["chunks"]]
        labels = [c["relevant"] for c in r["chunks"]]
        assert judge_relevance(judge, r["question"], chunks) == labels
        assert judged_context_precision(judge, r["question"], chunks) == pytest.approx(
            rm.average_precision([int(x) for x in labels], n_relevant=sum(labels),
                                 denominator="retrieved_relevant"))
        for a in r["answers"]:
            sup = [cl["supported"] for cl in a["claims"]]
            assert judged_faithfulness(judge, a["text"], chunks) == pytest.approx(sum(sup) / len(sup))


def test_judged_context_recall_and_claims_override():
    judge = lambda p: "yes" if "lift" in extract_sections(p)["CLAIM"].lower() else "no"
    # reference has 3 sentences, 2 mention lift
    ref = "Wings make lift. Lift grows with speed. Drag also grows."
    assert judged_context_recall(judge, ref, ["ctx"]) == pytest.approx(2 / 3)
    assert judged_faithfulness(judge, "ignored", ["ctx"], claims=["lift", "drag"]) == 0.5


def test_judged_answer_relevancy():
    replies = iter(["Question: what is lift?\nNoncommittal: no"] * 2)
    embed = lambda texts: np.array([[1.0, 0.0] if t == "What is lift?" else [0.6, 0.8] for t in texts])
    # both generated questions embed to (0.6, 0.8): cosine 0.6 with the question
    assert judged_answer_relevancy(lambda p: next(replies), "What is lift?", "Lift is a force.",
                                   n_questions=2, embed=embed) == pytest.approx(0.6)
    evasive = lambda p: "Question: what is lift?\nNoncommittal: yes"
    assert judged_answer_relevancy(evasive, "What is lift?", "I don't know.", embed=embed) == 0.0
    assert "<<<RESPONSE>>>\nLift is a force.\n<<<END RESPONSE>>>" in build_question_generation_prompt(
        "Lift is a force.")


@pytest.mark.parametrize("reply", [
    "What is lift?", "Question: a\nQuestion: b\nNoncommittal: no", "Question: a\nNoncommittal: maybe",
    "Question: \nNoncommittal: no",
])
def test_parse_generated_question_strict(reply):
    with pytest.raises(ValueError):
        parse_generated_question(reply)


def test_judged_metrics_replay_from_cache(tmp_path):
    r = load_eval_set()[0]
    chunks = [c["text"] for c in r["chunks"]]
    recorded = CachedJudge(oracle_from_eval_set(r), tmp_path / "replies.jsonl", model="oracle")
    first = judged_context_precision(recorded, r["question"], chunks)
    replay = CachedJudge(None, tmp_path / "replies.jsonl", model="oracle")
    assert judged_context_precision(replay, r["question"], chunks) == first


def test_crosswalk_rank_free_context_relevance_vs_context_precision():
    # TruLens context relevance with yes/no chunk scores, aggregated by np.mean: 2 of 4 = 0.5,
    # which is Precision@4, wherever the relevant chunks sit; context precision rewards rank
    first, last = [1, 1, 0, 0], [0, 0, 1, 1]
    for v in (first, last):
        assert float(np.mean(v)) == pytest.approx(0.5) == pytest.approx(rm.precision_at_k(v, k=len(v)))
    assert context_precision(first) == pytest.approx(1.0)                    # (1/1 + 2/2) / 2
    assert context_precision(last) == pytest.approx((1 / 3 + 2 / 4) / 2)     # 0.4167


def test_crosswalk_llamaindex_ap_divides_by_the_expected_ids():
    # LlamaIndex RetrieverEvaluator "ap": sum of P@k at the relevant ranks / len(expected_ids)
    # retrieved [hit, miss, hit, miss] with 3 expected ids: (1/1 + 2/3) / 3
    v = [1, 0, 1, 0]
    assert rm.average_precision(v, n_relevant=3) == pytest.approx((1 + 2 / 3) / 3)
    assert context_precision(v) == pytest.approx((1 + 2 / 3) / 2)   # ragas / DeepEval: / 2 retrieved
