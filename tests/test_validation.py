"""The shared argument checks: what they accept and how they refuse."""

import math
import re

import numpy as np
import pytest

import ragmetrics_edu as rm
from ragmetrics_edu import _validation as v_
from ragmetrics_edu._validation import check_rels


def test_check_rels_accepts_sequences_and_1d_arrays():
    assert check_rels([1, 0, 2]).tolist() == [1.0, 0.0, 2.0]
    assert check_rels((0.5, 0)).tolist() == [0.5, 0.0]
    assert check_rels(np.array([0, 1], dtype=np.int8)).tolist() == [0.0, 1.0]
    assert check_rels([]).tolist() == []


@pytest.mark.parametrize("rels, kind", [
    ({1, 0, 0, 0}, "set"),           # the set {0, 1}: rank order and the two 0s lost
    (frozenset([1, 0]), "frozenset"),
    ({0: 1, 1: 0}, "dict"),          # would be read by its keys 0, 1
])
def test_check_rels_refuses_sets_and_mappings(rels, kind):
    with pytest.raises(TypeError, match=rf"rels must be a sequence of grades in rank order, got a {kind}"):
        check_rels(rels)


@pytest.mark.parametrize("rels, shape", [(np.array(5), r"0-D array of shape \(\)"),
                                         (np.ones((2, 2)), r"2-D array of shape \(2, 2\)")])
def test_check_rels_refuses_arrays_not_1d(rels, shape):
    with pytest.raises(ValueError, match=rf"rels must be a 1-D sequence of grades.*{shape}"):
        check_rels(rels)


def test_metrics_refuse_sets_and_dicts():
    # the reviewer's cases: precision_at_k({1, 0, 0, 0}, 4) gave 1/4 and
    # hit_rate_at_k({0: 1, 1: 0}, 1) gave 0.0 instead of refusing
    with pytest.raises(TypeError, match="rels .* got a set"):
        rm.precision_at_k({1, 0, 0, 0}, 4)
    with pytest.raises(TypeError, match="rels .* got a dict"):
        rm.hit_rate_at_k({0: 1, 1: 0}, 1)
    with pytest.raises(ValueError, match="rels must be a 1-D"):
        rm.precision_at_k(np.array(5), 1)
    with pytest.raises(TypeError, match="rels .* got a set"):
        rm.ndcg_at_k({2, 1}, 2)


HUGE = "x" * 10_000


@pytest.mark.parametrize("call, error, rule", [
    (lambda: rm.sentence_chrf("a", ["b", HUGE.split()]), TypeError,
     r"references\[1\] must be a string, got list"),
    (lambda: rm.exact_match("a", [HUGE, [HUGE]]), TypeError,
     r"references\[1\] must be a string, got list"),
    (lambda: rm.chrf(["a"], [{HUGE: 1}]), TypeError,
     r"references\[0\] must be a string or a list of strings \(the references\), got dict"),
    (lambda: rm.bertscore([HUGE, 3], ["a", "b"]), TypeError, "candidates must hold strings"),
    (lambda: rm.bertscore(["a"], [[HUGE, 3]]), TypeError,
     "references must hold strings or non-empty lists"),
    (lambda: rm.bertscore(["a"], ["b"], idf=HUGE), TypeError, "idf must be True or False"),
    (lambda: rm.CascadeModel([HUGE]), ValueError, "attractiveness must be one of"),
    (lambda: rm.ab_sample_size(0.1, 0.12, alpha=HUGE), TypeError, "alpha must be a probability"),
])
def test_messages_name_the_rule_and_cut_the_value(call, error, rule):
    """The checks shared by chrF, the QA metrics, BERTScore and the online part show a value
    of 10,000 characters in at most 80 (and say how long it was)."""
    with pytest.raises(error, match=rule) as info:
        call()
    assert len(str(info.value)) < 300, str(info.value)


def test_one_check_per_rule():
    """The checks once duplicated per module are the shared ones."""
    from ragmetrics_edu import _validation
    from ragmetrics_edu.generation import chrf_score, qa, semantic
    from ragmetrics_edu.models import loading
    from ragmetrics_edu.online import ab_test, click_models, interleaving

    for module in (chrf_score, qa, semantic, loading):
        assert not any(hasattr(module, name) for name in
                       ("_check_text", "_check_text_list", "_check_flag", "_check_texts",
                        "_check_batch_size")), module.__name__
    for module in (ab_test, click_models, interleaving):
        assert module.check_count is _validation.check_count
    assert loading.check_layer is semantic.check_layer is _validation.check_layer


# ----------------------------------------------------------------- issue 34

HUGE_INT = 10**400


@pytest.mark.parametrize("call, name, limit", [
    (lambda: rm.r_precision([1, 0], HUGE_INT), "n_relevant", r"2\*\*63 - 1"),
    (lambda: rm.precision_recall_curve([1, 0], HUGE_INT), "n_relevant", r"2\*\*63 - 1"),
    (lambda: rm.eleven_point_average_precision([1, 0], HUGE_INT), "n_relevant", r"2\*\*63 - 1"),
    (lambda: rm.interpolated_precision([1, 0], HUGE_INT, recall=0.5), "n_relevant", r"2\*\*63 - 1"),
    (lambda: rm.err_at_k([1, 0], max_grade=HUGE_INT), "max_grade", r"1.8e308"),
    (lambda: rm.rank_biased_precision([1, 0], relevance="graded", max_grade=HUGE_INT), "max_grade",
     r"1.8e308"),
    (lambda: rm.evaluate({"q": {"a": HUGE_INT}}, {"q": {"a": 1.0}}, metrics=["ndcg"],
                         conventions="sklearn"), "qrels", "1.8e308"),
    (lambda: rm.two_proportion_z_test(1, HUGE_INT, 1, 10), "n_a", r"2\*\*63 - 1"),
    (lambda: rm.two_proportion_z_test(1, 10, HUGE_INT, 10), "clicks_b", r"2\*\*63 - 1"),
    (lambda: rm.peeking_false_positive_rate(users_per_day=HUGE_INT), "users_per_day", "at most"),
    (lambda: rm.peeking_false_positive_rate(users_per_day=2**62), "users_per_day", "at most"),
    (lambda: rm.estimate_judging_cost(["a"], reply_tokens=HUGE_INT), "reply_tokens",
     r"2\*\*63 - 1"),
    (lambda: rm.estimate_judging_cost(["a"], reply_tokens=1, tokens_per_call=HUGE_INT),
     "tokens_per_call", r"2\*\*63 - 1"),
    (lambda: rm.attractiveness_from_grades([1], max_grade=HUGE_INT), "max_grade", r"1023"),
    (lambda: rm.estimate_judging_cost(["a"], reply_tokens=1, tokenizer=lambda t: HUGE_INT,
                                      input_price_per_million=1.0), "tokenizer",
     r"2\*\*63 - 1"),
])
def test_huge_integers_name_the_argument_and_its_limit(call, name, limit):
    """Before: a bare OverflowError ("int too large to convert to float", "Python int too
    large to convert to C long") or a message printing all 401 digits."""
    with pytest.raises((ValueError, TypeError)) as info:
        call()
    text = str(info.value)
    assert name in text and re.search(limit, text), text
    assert "10**400" in text or "4611686018427387904" in text, text  # the value, cut short
    assert len(text) < 400, text


# ---------------------------------------------------------------- one exception rule

ONE_RULE = [
    # (check, a value of the wrong type, a value of the right type out of range)
    (lambda v: v_.check_k(v), "3", 0),
    (lambda v: v_.check_positive_int(v, name="batch_size"), 2.0, 0),
    (lambda v: v_.rng_from(v), "seed", -1),
    (lambda v: v_.check_layer(v, 6), 1.5, 7),
    (lambda v: v_.check_confidence(v), "0.95", 95),
    (lambda v: v_.check_seed(v), True, -1),
    (lambda v: v_.check_top_p(v), "0.9", 1.5),
    (lambda v: v_.check_t_df(v, 3), "2", math.nan),
    (lambda v: v_.check_t_df(2.0, v), None, -1.0),
    (lambda v: v_.check_temperature(v), "hot", math.inf),
    (lambda v: v_.check_count(v, name="n"), 1.5, -1),
    (lambda v: v_.check_probability(v, name="p"), "0.5", 1.5),
    (lambda v: v_.check_score_or_nan(v, name="empty_score"), "0", 2.0),
]


@pytest.mark.parametrize("check, wrong_type, out_of_range", ONE_RULE)
def test_a_wrong_type_is_a_type_error_and_a_wrong_value_a_value_error(check, wrong_type,
                                                                      out_of_range):
    with pytest.raises(TypeError) as error:
        check(wrong_type)
    assert not isinstance(error.value, ValueError)
    with pytest.raises(ValueError) as wrong_value:
        check(out_of_range)
    # one template (docs/architecture.md): "<argument> must be <rule>, got <value>"
    for message in (str(error.value), str(wrong_value.value)):
        assert re.fullmatch(r"\w+ must be [^\n]+, got [^\n]+", message), message
