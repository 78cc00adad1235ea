"""The cost of a judging run, counted before any call."""

import math

import pytest

import ragmetrics_edu as rm
from ragmetrics_edu.judge import CachedJudge
from ragmetrics_edu.judge.cost import count_tokens, estimate_judging_cost


def test_approximation_is_characters_over_four_rounded_up():
    assert count_tokens("") == 0
    assert count_tokens("abcd") == 1
    assert count_tokens("abcde") == 2
    cost = estimate_judging_cost(["a" * 10, "b" * 3], reply_tokens=0)
    assert cost.prompt_tokens == 3 + 1
    assert "approximation" in cost.counted_by


def test_money_by_hand():
    prompts = ["x" * 400] * 3 + ["y" * 800]          # 2 distinct prompts: 100 and 200 tokens
    cost = estimate_judging_cost(prompts, reply_tokens=50, input_price_per_million=2.0,
                                 output_price_per_million=8.0, system_prompt="z" * 40,
                                 tokens_per_call=7)
    assert (cost.prompts, cost.calls, cost.cached) == (4, 2, 0)
    assert cost.prompt_tokens == 100 + 200 + 2 * (10 + 7)
    assert cost.reply_tokens == 100
    assert cost.input_cost == pytest.approx(334 * 2.0 / 1e6)
    assert cost.output_cost == pytest.approx(100 * 8.0 / 1e6)
    assert cost.total_cost == pytest.approx(cost.input_cost + cost.output_cost)
    assert "2 calls" in str(cost)


class _Encoding:
    def __init__(self, ids):
        self.ids = ids


class _Tokenizer:
    """The shapes of real tokenizers: encode() returns ids, or an object with .ids."""

    name_or_path = "toy-words"

    def __init__(self, wrap):
        self.wrap = wrap

    def encode(self, text):
        ids = list(range(len(text.split()) + 2))  # two special tokens, as BERT adds
        return _Encoding(ids) if self.wrap else ids


@pytest.mark.parametrize("wrap", [False, True])
def test_tokenizer_objects(wrap):
    tok = _Tokenizer(wrap)
    assert count_tokens("one two three", tok) == 5
    cost = estimate_judging_cost(["one two", "three"], reply_tokens=1, tokenizer=tok)
    assert cost.prompt_tokens == 4 + 3
    assert cost.counted_by == "tokenizer toy-words"


def test_callables_returning_counts_or_tokens():
    assert count_tokens("a b c", lambda s: 42) == 42
    assert count_tokens("a b c", str.split) == 3
    with pytest.raises(TypeError, match="count or a sequence"):
        count_tokens("a", lambda s: "abc")


def test_real_tokenizer_when_installed():
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers.models import WordLevel
    from tokenizers.pre_tokenizers import Whitespace
    tok = tokenizers.Tokenizer(WordLevel({"[UNK]": 0, "wing": 1}, unk_token="[UNK]"))
    tok.pre_tokenizer = Whitespace()
    assert count_tokens("wing flutter at speed", tok) == 4


def test_cached_prompts_cost_nothing(tmp_path):
    path = tmp_path / "replies.jsonl"
    judge = CachedJudge(lambda p: "yes", path, model="toy")
    judge.complete("old prompt")
    cost = estimate_judging_cost(["old prompt", "new prompt", "new prompt"], reply_tokens=3,
                                 cache=judge)
    assert (cost.calls, cost.cached) == (1, 1)
    assert cost.prompt_tokens == math.ceil(len("new prompt") / 4)


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(reply_tokens=-1), ValueError, "reply_tokens"),
    (dict(reply_tokens=1.5), ValueError, "reply_tokens"),
    (dict(reply_tokens=1, input_price_per_million=-1), ValueError, "input_price_per_million"),
    (dict(reply_tokens=1, output_price_per_million=float("nan")), ValueError, "output_price"),
    (dict(reply_tokens=1, tokens_per_call=True), ValueError, "tokens_per_call"),
    (dict(reply_tokens=1, system_prompt=3), TypeError, "system_prompt"),
    (dict(reply_tokens=1, tokenizer=3), TypeError, "tokenizer"),
])
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        estimate_judging_cost(["a prompt"], **kwargs)


def test_bad_prompts():
    with pytest.raises(TypeError, match="prompts must be an iterable"):
        estimate_judging_cost("one prompt", reply_tokens=1)
    with pytest.raises(TypeError, match="at index 1"):
        estimate_judging_cost(["a", 2], reply_tokens=1)
    with pytest.raises(TypeError):
        estimate_judging_cost(["a"])  # reply_tokens has no default


def test_public_name():
    assert rm.estimate_judging_cost is estimate_judging_cost
