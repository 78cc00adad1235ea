"""The API key reaches no message, no run summary and no cache file, whatever its encoding (issue 34).

A server on 127.0.0.1 sends the key back in forms that whole-key matching
missed: JSON-escaped twice, HTML entities and ``html.escape``, base64 of the
key or of ``Bearer <key>``, split by a newline or a space, an 80% prefix, any
12 consecutive characters of it; in an error body, in a 200 reply that is not
a chat completion, and as the content of a 200 reply (which was returned and
cached). Each form is tried at several offsets around the places where a
message is cut, behind multi-byte characters, as the leak tests of issue 23 do.

What the texts must not hold (the *telltales* of a form) is computed from the
form's own encoder: the encoding of every 12-character run of the key (for
base64, every 16 characters of the encoding that stand for 12 bytes), and
every 4-character piece of the key as it is.
"""

import base64
import html
import json
import math
import warnings

import pytest

from ragmetrics_edu.judge import CachedJudge, JudgeResponseError, OpenAICompatibleJudge
from ragmetrics_edu.judge.openai_compat import KEY_RUN, WITHHELD
from ragmetrics_edu.judge.run import judge_all
from tests.judge.test_reliability_key_leak import (  # noqa: F401 (fixtures)
    no_proxy, pieces, server, texts_of, texts_shown)

ENV = "RAGMETRICS_ENCODED_KEY_TEST"
KEYS = {
    "plain": "sk-Leak/7Qz+9Wm=2Xv_4~",                  # "/", "+", "=" are escaped by some
    "html": "sk-Q&A<7Qz>\"9Wm'2Xv_4~Hj/Kp",          # every character html.escape changes
}


def _json_twice(s):
    # a PHP-style inner JSON (slashes escaped), inside another JSON string
    return json.dumps(json.dumps(s)[1:-1].replace("/", "\\/"))[1:-1]


def _unicode_twice(s):
    return json.dumps("".join(f"\\u{ord(c):04x}" for c in s))[1:-1]


def _decimal_entities(s):
    return "".join(f"&#{ord(c)};" for c in s)


def _hex_entities(s):
    return "".join(f"&#x{ord(c):X};" for c in s)


def _html_then_json(s):
    return json.dumps(html.escape(s))[1:-1]


#: name -> (the echo of the key, a function giving the form's text of a piece of the key)
def forms(key):
    bearer = f"Bearer {key}"
    cut = math.ceil(0.8 * len(key))
    return {
        "json-twice": (_json_twice(bearer), _json_twice),
        "json-unicode-twice": (_unicode_twice(key), _unicode_twice),
        "html-escape": (html.escape(bearer), html.escape),
        "html-decimal": (_decimal_entities(key), _decimal_entities),
        "html-hex": (_hex_entities(key), _hex_entities),
        "html-then-json": (_html_then_json(bearer), _html_then_json),
        "base64-key": (base64.b64encode(key.encode()).decode(), None),
        "base64-bearer": (base64.b64encode(bearer.encode()).decode(), None),
        "base64-urlsafe": (base64.urlsafe_b64encode(bearer.encode()).decode().rstrip("="), None),
        "split-newline": (key[:7] + "\n" + key[7:], None),
        "split-space": (key[:13] + " " + key[13:], None),
        "split-lines-of-5": ("\n".join(key[i:i + 5] for i in range(0, len(key), 5)), None),
        "prefix-80%": (key[:cut], None),
        "run-12-inside": (key[5:5 + KEY_RUN], None),
    }


def telltales(key, echo, encode):
    """What no text may hold: every 4 characters of the key, and the encoding of every
    12-character run of it (of the base64 echo: 16 characters from any group of 4)."""
    out = set(pieces(key))
    runs = {key[i:i + KEY_RUN] for i in range(len(key) - KEY_RUN + 1)}
    if encode is not None:
        out |= {encode(run) for run in runs}
    elif set(echo) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_"):
        out |= {echo[i:i + 16] for i in range(0, len(echo) - 15, 4)}
    return out


def _judge(server, monkeypatch, key, status, body):
    monkeypatch.setenv(ENV, key)
    server.status, server.body = status, body
    return OpenAICompatibleJudge(server.base_url, "m", api_key_env=ENV, timeout=5.0,
                                 max_retries=0)


def shown(server, monkeypatch, key, status, body):
    """Every text the judge gives: its repr, the reply or the error's texts, warnings."""
    return texts_shown(_judge(server, monkeypatch, key, status, body))


def offsets(cut, echo):
    """Offsets of the echo's start: before, across and after the cut at ``cut``."""
    first, last = cut - len(echo) - 4, cut + 4
    return sorted({first, last, cut - len(echo), cut - len(echo) // 2, cut - 1, cut,
                   *range(first, last, max(len(echo) // 6, 1))})


def _leaks(texts, bad):
    return [t[:120] for t in texts if any(b in t for b in bad)]


CASES = [(k, f) for k in sorted(KEYS) for f in sorted(forms(KEYS[k]))]


@pytest.mark.parametrize("key_name, form", CASES)
def test_an_error_body_never_shows_the_key(server, monkeypatch, key_name, form):
    """An error status whose body quotes the key, before, across and after the 300-character cut."""
    key = KEYS[key_name]
    echo, encode = forms(key)[form]
    bad = telltales(key, echo, encode)
    found = []
    for status in (400, 500):
        for offset in offsets(300, echo):
            body = ("\u00e9" * max(offset, 0) + echo + " and more").encode("utf-8")
            leak = _leaks(shown(server, monkeypatch, key, status, body), bad)
            if leak:
                found.append((status, offset, leak[0]))
    assert found == []


@pytest.mark.parametrize("key_name, form", CASES)
def test_a_reply_that_is_not_a_completion_never_shows_the_key(server, monkeypatch, key_name, form):
    """200 replies that are not JSON, or JSON without content, around the 200-character cut."""
    key = KEYS[key_name]
    echo, encode = forms(key)[form]
    bad = telltales(key, echo, encode)
    found = []
    for offset in offsets(200, echo):
        pad = "\U0001F600" * max(offset // 4, 0)
        for body in ((pad + echo).encode("utf-8"),
                     json.dumps({"error": pad + echo}, ensure_ascii=False).encode("utf-8")):
            leak = _leaks(shown(server, monkeypatch, key, 200, body), bad)
            if leak:
                found.append((offset, leak[0]))
    assert found == []


def completion(content):
    return json.dumps({"choices": [{"message": {"content": content}}]}).encode("utf-8")


@pytest.mark.parametrize("key_name, form", CASES)
def test_a_reply_quoting_the_key_is_refused_and_never_cached(server, monkeypatch, tmp_path,
                                                              key_name, form):
    """A chat completion whose content quotes the key: refused, not in the cache file, not in
    the run's failures, summary or warnings."""
    key = KEYS[key_name]
    echo, encode = forms(key)[form]
    bad = telltales(key, echo, encode)
    for where in ("Score: 4\n" + echo, echo + "\nScore: 4", "x" * 150 + echo + "y" * 150):
        judge = _judge(server, monkeypatch, key, 200, completion(where))
        with pytest.raises(JudgeResponseError, match="quotes the API key") as info:
            judge.complete("hello")
        assert _leaks(texts_of(info.value), bad) == []
        path = tmp_path / f"{form}.jsonl"
        cached = CachedJudge(judge, path)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            run = judge_all(cached, ["rate a", "rate b"], errors="collect", progress=False,
                            max_retries=0)
        assert run.replies == [None, None]
        assert [f.error for f in run.failures] == ["JudgeResponseError"] * 2
        texts = [run.summary(), *(f.reason for f in run.failures),
                 *(str(w.message) for w in caught)]
        assert _leaks(texts, bad) == []
        assert not path.exists() or _leaks([path.read_text("utf-8")], bad) == []
        assert len(CachedJudge(None, path, model="m")) == 0


def test_every_run_of_twelve_characters_is_a_quote_and_eleven_is_not(server, monkeypatch):
    key = "sk-" + "".join("abcdefghijkmnopqrstuvwxyz23456789"[(7 * i) % 33] for i in range(40))
    for start in range(0, len(key) - KEY_RUN + 1, 3):
        run = key[start:start + KEY_RUN]
        judge = _judge(server, monkeypatch, key, 200, completion(f"Score: 2 ({run})"))
        with pytest.raises(JudgeResponseError, match="quotes the API key"):
            judge.complete("hello")
        texts = shown(server, monkeypatch, key, 500, f"error: {run}".encode())
        assert WITHHELD in texts[1] and _leaks(texts, pieces(run)) == []
    # eleven characters are not the key: the reply is the reply
    judge = _judge(server, monkeypatch, key, 200, completion(f"Score: 2 ({key[3:14]})"))
    assert judge.complete("hello") == f"Score: 2 ({key[3:14]})"


def test_replies_without_the_key_are_untouched(server, monkeypatch):
    """Escapes, base64 and HTML in an ordinary reply are returned as they are."""
    key = KEYS["plain"]
    reply = ('Score: 4 &amp; "why": \\u00e9 %41 ' + base64.b64encode(b"an unrelated sentence").decode()
             + "\nsk-Leak is not the key")
    judge = _judge(server, monkeypatch, key, 200, completion(reply))
    assert judge.complete("hello") == reply
    body = b'{"error": "model not found: llama3"}'
    texts = shown(server, monkeypatch, key, 404, body)
    assert "model not found: llama3" in texts[1] and WITHHELD not in texts[1]


@pytest.mark.parametrize("form", ["base64-bearer", "prefix-80%", "html-hex", "split-lines-of-5"])
def test_a_long_reply_is_searched_to_its_end(server, monkeypatch, form):
    """A reply of 400,000 characters (searched by the rolling hash, not needle by needle)."""
    key = KEYS["plain"]
    echo, _ = forms(key)[form]
    filler = "The passage is relevant. " * 16_000
    judge = _judge(server, monkeypatch, key, 200, completion(filler + echo))
    with pytest.raises(JudgeResponseError, match="quotes the API key"):
        judge.complete("hello")
    judge = _judge(server, monkeypatch, key, 200, completion(filler + "Score: 4"))
    assert judge.complete("hello").endswith("Score: 4")
