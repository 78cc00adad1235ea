"""Fuzzing the judge's reply handling: only the documented errors, in time linear in the reply.

Hypothesis writes replies a faulty or hostile model or server could send, and
each test asserts the documented outcome and nothing else:

* ``parse_rating``, ``parse_verdict``, ``parse_preference``: a value of the
  documented kind, or a ``ValueError`` (never another exception);
* the HTTP judge's reply handling (its body reader and its reading of the
  chat-completions JSON, offline and through a server on 127.0.0.1): a string,
  or a :class:`JudgeError`;
* time linear in the size of the reply: a hostile reply of a million characters or more
  ends within a budget a quadratic path could not meet (``tests/_bounded.py``).
"""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragmetrics_edu.judge import (
    JudgeError,
    OpenAICompatibleJudge,
    parse_preference,
    parse_rating,
    parse_verdict,
)
from tests._bounded import finishes
from tests.judge.test_judge_http import ScriptedServer

# pieces a reply is made of: the labels and their decorations, digits, JSON punctuation,
# every kind of line break and white space, and characters that fold or encode oddly
PIECES = [
    "Score", "score", "SCORE", "Verdict", "Winner", ":", "=", "**", "/", "-", "+", ".", " ", "\t",
    "\n", "\r\n", "\r", "\v", "\f", "\x1c", "\x85", "\u2028", "\u00a0", "\u3000", "4", "5", "0",
    "10", "yes", "no", "A", "B", "tie", "{", "}", "[", "]", '"', '"score"', '"verdict"',
    '"winner"', ",", "```", "```json", "json", "\u0130", "\u017f", "\u212a", "\u0664", "\uff14",
    "\ud800", "\udfff", "\x00", "true", "null", "1e999", "9" * 30,
]
replies = st.one_of(
    st.lists(st.sampled_from(PIECES), max_size=40).map("".join),
    st.text(max_size=200),
    st.integers(1, 4000).map(lambda d: '{"score": ' + "[" * d + "]" * d + "}"),   # deep JSON
    st.integers(1, 6000).map(lambda d: '{"score": ' + "9" * d + "}"),             # long integers
    st.integers(1, 6000).map(lambda d: "Score: " + "9" * d),
)
scales = st.tuples(st.integers(-5, 5), st.integers(1, 12)).map(lambda t: (t[0], t[0] + t[1]))

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False)
    | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=600, deadline=None)
@given(replies, scales)
def test_parse_rating_gives_a_rating_in_the_scale_or_a_value_error(text, scale):
    try:
        rating = parse_rating(text, scale)
    except ValueError:
        return
    assert type(rating) is int and scale[0] <= rating <= scale[1]


@settings(max_examples=400, deadline=None)
@given(replies)
def test_parse_verdict_and_preference_give_a_choice_or_a_value_error(text):
    try:
        assert parse_verdict(text) in (True, False)
    except ValueError:
        pass
    try:
        assert parse_preference(text) in ("A", "B", "tie")
    except ValueError:
        pass


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["score", "verdict", "winner", "reason", ""]), json_values,
                       max_size=3),
       st.booleans(), st.integers(0, 3))
def test_json_replies_give_a_value_or_a_value_error(obj, fenced, repeat):
    text = json.dumps(obj)
    if repeat and obj:  # the same key again, as json.dumps never writes it
        key = next(iter(obj))
        text = text[:-1] + f', "{key}": {json.dumps(obj[key])}' * repeat + "}"
    if fenced:
        text = f"```json\n{text}\n```"
    for parse in (parse_rating, parse_verdict, parse_preference):
        try:
            parse(text)
        except ValueError:
            pass
        if repeat and obj:
            with pytest.raises(ValueError, match="repeats the key"):
                parse(text)


FILLERS = PIECES + ['"k": 1, ', " \t", "\u00a0 ", "score ", "x score:"]


ends = st.lists(st.sampled_from(PIECES), max_size=6).map("".join)


@settings(max_examples=25, deadline=None)
@given(st.one_of(st.sampled_from(["Score: 4", "**Score:** 4", "Verdict:", "```json", "{"]), ends),
       st.one_of(st.sampled_from([" ", "\t", '"k": 1, ', "\u00a0"]), st.sampled_from(FILLERS)),
       st.one_of(st.sampled_from(["x", "}", "\nScore: 5"]), ends))
def test_parsing_time_grows_linearly_with_the_reply(prefix, filler, suffix):
    # a reply of one piece repeated between two short ends: "Score: 4" + spaces + "x",
    # "{" + keys + "}", an unclosed fence..., at two sizes
    def make(n):
        return prefix + filler * (n // len(filler)) + suffix

    for parse in (parse_rating, parse_verdict):
        assert finishes(parse, make(1_000_000)), (prefix, filler, suffix)


# -- the HTTP judge's reply handling ---------------------------------------------------------


JUDGE = OpenAICompatibleJudge("http://127.0.0.1:9/v1", "m", max_reply_bytes=50_000)


def chat(content):
    return {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}


bodies = st.one_of(
    st.binary(max_size=300),
    json_values.map(lambda v: json.dumps(v).encode()),
    json_values.map(lambda v: json.dumps(chat(v)).encode()),
    st.text(max_size=50).map(lambda t: json.dumps(chat(t)).encode()),
    st.integers(1, 3000).map(lambda d: b'{"choices": ' + b"[" * d + b"]" * d + b"}"),
    st.integers(1, 6000).map(lambda d: b'{"x": ' + b"7" * d + b', "choices": []}'),
    st.sampled_from(["\\ud800", "\\udfff", "\\ud83d\\ude00", "\\u0000"]).map(
        lambda esc: b'{"choices": [{"message": {"content": "a' + esc.encode() + b'"}}]}'),
)


@settings(max_examples=500, deadline=None)
@given(bodies)
def test_reply_bodies_give_text_or_a_judge_error(raw):
    try:
        content = JUDGE._content(raw, "sk-not-a-key")
    except JudgeError:
        return
    assert isinstance(content, str)
    content.encode("utf-8")  # text any file or terminal can take


class FakeResponse:
    """What _read_body reads: headers and read(n), chunks as hypothesis cuts them."""

    def __init__(self, chunks, length):
        self.chunks = list(chunks)
        self.headers = {} if length is None else {"Content-Length": length}

    def read(self, n):
        if not self.chunks:
            return b""
        head, self.chunks[0] = self.chunks[0][:n], self.chunks[0][n:]
        if not self.chunks[0]:
            self.chunks.pop(0)
        return head


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, 30_000).map(lambda n: b"x" * n), max_size=5),
       st.one_of(st.none(), st.integers(0, 200_000).map(str), st.sampled_from(["", "abc", "-1", "1" * 40])))
def test_body_reader_gives_the_body_under_the_cap_or_a_judge_error(chunks, length):
    total = sum(map(len, chunks))
    try:
        body = JUDGE._read_body(FakeResponse(chunks, length), "http://127.0.0.1:9/v1")
    except JudgeError:
        assert total > JUDGE.max_reply_bytes or (length or "").isdigit()
        return
    except Exception as exc:  # http.client.IncompleteRead: a short body, raised for _post
        assert type(exc).__name__ == "IncompleteRead"
        return
    assert body == b"".join(chunks) and len(body) <= JUDGE.max_reply_bytes


def test_reply_handling_time_grows_linearly():
    def make(n):
        return json.dumps(chat("Score: 4 " + "\u00e9 \\" * (n // 3))).encode()

    assert finishes(lambda raw: JUDGE._content(raw, None), make(5_000_000))


@pytest.fixture(scope="module")
def served():
    server = ScriptedServer()
    yield server
    server.close()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bodies)
def test_replies_through_a_server_give_text_or_a_judge_error(served, raw):
    served.script = [("raw", raw)]
    judge = OpenAICompatibleJudge(served.base_url, "m", api_key_env="RAGMETRICS_UNSET_KEY",
                                  timeout=5.0, max_retries=0, max_reply_bytes=50_000)
    try:
        assert isinstance(judge.complete("x"), str)
    except JudgeError:
        pass
