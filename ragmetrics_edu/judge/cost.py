r"""What a judging run will cost, before a single call.

A judge paid per token costs

.. math::

    \text{cost} = \frac{T_\text{in}}{10^6}\, p_\text{in} + \frac{T_\text{out}}{10^6}\, p_\text{out}

where :math:`T_\text{in}` is the number of prompt tokens sent (every
prompt, plus the system prompt and the chat format's overhead on every
call), :math:`T_\text{out}` the number of reply tokens, and
:math:`p_\text{in}, p_\text{out}` the prices per million tokens (servers
price them apart; replies usually cost several times more).

:func:`estimate_judging_cost` counts the calls a run will make (each
distinct prompt once, none for the prompts already in a reply cache), and
the tokens: with the model's own tokenizer when it is given, else with the
approximation of four characters per token (``ceil(len(text) / 4)``),
which OpenAI quotes for English text; it is only that, and it says so in
the result. Reply tokens cannot be counted before the replies exist: give
the number you expect per reply (the judge's ``max_tokens`` bounds it).
"""

import math
import numbers
from dataclasses import dataclass

from .._validation import check_count, describe
from .run import check_prompts

__all__ = ["CHARACTERS_PER_TOKEN", "JudgingCost", "count_tokens", "estimate_judging_cost"]

#: The approximation used without a tokenizer: about four characters of
#: English text per token (OpenAI's rule of thumb; code and other languages
#: take more tokens per character).
CHARACTERS_PER_TOKEN = 4


@dataclass(frozen=True)
class JudgingCost:
    """The calls, tokens and money of a judging run, estimated before it runs.

    Attributes
    ----------
    prompts : int
        Prompts given (repeats included).
    calls : int
        Calls the run will make: distinct prompts not already cached.
    cached : int
        Distinct prompts whose reply the cache already holds (no call).
    prompt_tokens, reply_tokens : int
        Tokens sent and expected back over the calls.
    input_cost, output_cost, total_cost : float
        Money, in the unit of the prices given; ``float()`` of the result is
        ``total_cost``.
    counted_by : str
        How tokens were counted: the tokenizer's name, or the approximation.
    """

    prompts: int
    calls: int
    cached: int
    prompt_tokens: int
    reply_tokens: int
    input_cost: float
    output_cost: float
    total_cost: float
    counted_by: str

    def __float__(self):
        return float(self.total_cost)

    def __str__(self):
        return (f"{self.calls} calls ({self.cached} cached, {self.prompts} prompts): "
                f"{self.prompt_tokens} prompt tokens + {self.reply_tokens} reply tokens "
                f"= {self.total_cost:.4f} ({self.input_cost:.4f} in, {self.output_cost:.4f} out); "
                f"tokens counted by {self.counted_by}")


def _approximate(text):
    return math.ceil(len(text) / CHARACTERS_PER_TOKEN)


def count_tokens(text, tokenizer=None):
    """Tokens in ``text``: with ``tokenizer`` if given, else ``ceil(len(text) / 4)``.

    Parameters
    ----------
    text : str
    tokenizer : callable or object with ``encode``, optional
        A callable returning a count or a sequence of tokens
        (``lambda s: len(enc.encode(s))``); or an object whose ``encode(text)``
        returns a sequence of token ids (tiktoken, ``transformers``) or an
        object with ``.ids`` (``tokenizers``). Special tokens the tokenizer
        adds (``[CLS]``, ``<s>``) are counted as it returns them.

    Returns
    -------
    int

    Examples
    --------
    >>> count_tokens("Is this document relevant?")   # 26 characters: ceil(26 / 4)
    7
    >>> count_tokens("Is this document relevant?", tokenizer=str.split)
    4
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {repr(text)[:80]}")
    if tokenizer is None:
        return _approximate(text)
    if hasattr(tokenizer, "encode"):
        out = tokenizer.encode(text)
    elif callable(tokenizer):
        out = tokenizer(text)
    else:
        raise TypeError(f"tokenizer must be a callable or have an encode method, got "
                        f"{repr(tokenizer)[:80]}")
    if hasattr(out, "ids"):
        out = out.ids
    if isinstance(out, numbers.Integral) and not isinstance(out, bool):
        count = int(out)
    elif hasattr(out, "__len__") and not isinstance(out, (str, bytes)):
        count = len(out)
    else:
        raise TypeError(f"tokenizer must return a count or a sequence of tokens, got "
                        f"{repr(out)[:80]}")
    if count < 0:
        raise ValueError(f"tokenizer returned a negative count {count}")
    return check_count(count, name="the count the tokenizer returned", minimum=0)


def _check_price(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) \
            or not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a non-negative number (money per million tokens), "
                         f"got {repr(value)[:80]}")
    return float(value)


def _check_count(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {describe(value)}")
    return check_count(value, name=name, minimum=0)  # at most 2**63 - 1: a float holds the cost


def estimate_judging_cost(prompts, *, reply_tokens, input_price_per_million=0.0,
                          output_price_per_million=0.0, tokenizer=None, system_prompt=None,
                          tokens_per_call=0, cache=None):
    r"""Calls, tokens and money a judging run will take, counted before any call.

    .. math::

        T_\text{in} = \sum_{p \in \text{calls}} \bigl(t(p) + t(s) + c\bigr),\qquad
        T_\text{out} = r \cdot |\text{calls}|,\qquad
        \text{cost} = \frac{T_\text{in}\, p_\text{in} + T_\text{out}\, p_\text{out}}{10^6}

    with :math:`t` the token count (``tokenizer``, else
    :math:`\lceil \text{characters} / 4 \rceil`), :math:`s` the system
    prompt, :math:`c` ``tokens_per_call`` and :math:`r` ``reply_tokens``.
    The calls are the distinct prompts, less those ``cache`` already holds:
    :func:`~ragmetrics_edu.judge.run.judge_all` asks each distinct prompt
    once, and a :class:`~ragmetrics_edu.judge.CachedJudge` never asks twice.

    Parameters
    ----------
    prompts : iterable of str
        Every prompt the run will send.
    reply_tokens : int
        Tokens expected per reply (keyword only, no default: a rating
        ``"Score: 4"`` is a few tokens, a reasoned verdict a few hundred;
        the judge's ``max_tokens`` is an upper bound).
    input_price_per_million, output_price_per_million : float, default 0.0
        Prices of a million prompt tokens and of a million reply tokens,
        in any currency (0 for a local model).
    tokenizer : callable or object with ``encode``, optional
        The model's tokenizer (see :func:`count_tokens`); default: the
        four-characters approximation, named in ``counted_by``.
    system_prompt : str, optional
        Sent with every call (``OpenAICompatibleJudge(system_prompt=...)``).
    tokens_per_call : int, default 0
        Tokens the chat format adds to every call around the messages (a
        few per message with chat templates; the server's usage report
        tells).
    cache : CachedJudge, optional
        Prompts it already holds cost nothing.

    Returns
    -------
    JudgingCost

    Examples
    --------
    >>> prompts = ["Query: wing flutter\nDocument: ...\nRelevant? yes/no"] * 2 + ["Query: boundary layers"]
    >>> cost = estimate_judging_cost(prompts, reply_tokens=5,
    ...                              input_price_per_million=0.15, output_price_per_million=0.60)
    >>> cost.calls                      # the repeated prompt is asked once
    2
    >>> cost.prompt_tokens              # ceil(50 / 4) + ceil(22 / 4) = 13 + 6
    19
    >>> cost.reply_tokens               # 2 calls * 5
    10
    >>> round(cost.total_cost * 1e6, 4)  # 19 * 0.15 + 10 * 0.60, per million
    8.85
    """
    prompts = check_prompts(prompts, what="an iterable of strings")
    reply_tokens = _check_count(reply_tokens, "reply_tokens")
    tokens_per_call = _check_count(tokens_per_call, "tokens_per_call")
    price_in = _check_price(input_price_per_million, "input_price_per_million")
    price_out = _check_price(output_price_per_million, "output_price_per_million")
    if system_prompt is not None and not isinstance(system_prompt, str):
        raise TypeError(f"system_prompt must be a string or None, got {repr(system_prompt)[:80]}")
    distinct = list(dict.fromkeys(prompts))
    if cache is not None:
        if not hasattr(cache, "__contains__"):
            raise TypeError(f"cache must be a CachedJudge (or support `in`), got {repr(cache)[:80]}")
        to_ask = [p for p in distinct if p not in cache]
    else:
        to_ask = distinct
    overhead = tokens_per_call + (count_tokens(system_prompt, tokenizer) if system_prompt else 0)
    prompt_tokens = sum(count_tokens(p, tokenizer) + overhead for p in to_ask)
    out_tokens = reply_tokens * len(to_ask)
    input_cost = prompt_tokens * price_in / 1e6
    output_cost = out_tokens * price_out / 1e6
    if tokenizer is None:
        counted_by = f"approximation: ceil(characters / {CHARACTERS_PER_TOKEN})"
    else:
        counted_by = getattr(tokenizer, "name_or_path", None) or getattr(tokenizer, "name", None) \
            or getattr(tokenizer, "__qualname__", None) or type(tokenizer).__name__
        counted_by = f"tokenizer {counted_by}"
    return JudgingCost(len(prompts), len(to_ask), len(distinct) - len(to_ask), prompt_tokens,
                       out_tokens, input_cost, output_cost, input_cost + output_cost, counted_by)
