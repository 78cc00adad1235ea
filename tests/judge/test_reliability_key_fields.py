"""The key cut into fields, tags or codes is withheld wherever the cut of a message falls.

A second held-out probe of issue 34 found these still shown: a JSON error
body whose fields hold pieces of 4 to 11 characters of the key, once the
body is longer than the cut of the message (300 characters of an error
body, 200 of a reply that is not a chat completion) or than the 64 KiB read
of an error body (the cut JSON no longer parsed, so its fields were never
joined); the same body behind a byte order mark, after or before a
sentence, inside a JSON string or an HTML attribute, or with the pieces as
the object's keys; the key cut by HTML tags longer than 64 characters; a
redirect to an address whose query parameters hold pieces of 6 characters;
a key written as a list of ``0x`` codes; a key of fewer than 12 characters
as decimal codes, ``0x`` codes or base64; a key holding a literal ``%2F``,
percent-encoded twice. The rule these tests check is written in the module
docstring of ``ragmetrics_edu.judge.openai_compat`` ("What counts as quoting
the key").
"""

import base64
import html
import json
import urllib.parse
import warnings

import pytest

from ragmetrics_edu.judge import CachedJudge, JudgeError, JudgeResponseError, OpenAICompatibleJudge
from ragmetrics_edu.judge import _key_scan
from ragmetrics_edu.judge.openai_compat import WITHHELD
from ragmetrics_edu.judge.run import judge_all
from tests.judge.test_reliability_key_encodings import KEYS
from tests.judge.test_reliability_key_leak import (  # noqa: F401 (fixtures)
    no_proxy, pieces, server, texts_of, texts_shown)

ENV = "RAGMETRICS_KEY_FIELDS_TEST"


def _pieces(s, n):
    return [s[i:i + n] for i in range(0, len(s), n)]


def _fields(key, n):
    return {f"p{i}": p for i, p in enumerate(_pieces(key, n))}


#: name -> a function of (key, piece length) giving a body whose fields hold the key's pieces
SHAPES = {
    "fields-then-a-long-field": lambda k, n: json.dumps({**_fields(k, n), "pad": "x" * 6000}),
    "fields-behind-a-long-field": lambda k, n: json.dumps({"pad": "x" * 280, **_fields(k, n),
                                                           "more": "x" * 6000}),
    "fields-past-64-KiB": lambda k, n: json.dumps({**_fields(k, n), "pad": "y" * 70_000}),
    "byte-order-mark": lambda k, n: "\ufeff" + json.dumps(_fields(k, n)),
    "text-before": lambda k, n: "error: " + json.dumps(_fields(k, n)) + " " + "z" * 400,
    "text-after": lambda k, n: json.dumps(_fields(k, n)) + "\nrequest id 7 " + "z" * 400,
    "pieces-as-keys": lambda k, n: json.dumps({p: i for i, p in enumerate(_pieces(k, n))}),
    "json-in-a-json-string": lambda k, n: json.dumps({"error": json.dumps(_fields(k, n)),
                                                      "pad": "x" * 400}),
    "json-in-an-html-attribute": lambda k, n: ("<div data-x='" + html.escape(json.dumps(
        _fields(k, n))) + "'>" + "x" * 400 + "</div>"),
    "array-of-pieces": lambda k, n: json.dumps({"parts": _pieces(k, n), "pad": "x" * 6000}),
}
CASES = [(k, s) for k in sorted(KEYS) for s in sorted(SHAPES)]


def _judge(server, monkeypatch, key, status, body):
    monkeypatch.setenv(ENV, key)
    server.status, server.body = status, body
    return OpenAICompatibleJudge(server.base_url, "m", api_key_env=ENV, timeout=5.0,
                                 max_retries=0)


def _leaks(texts, bad):
    return [t[:120] for t in texts if any(b in t for b in bad)]


@pytest.mark.parametrize("key_name, shape", CASES)
def test_an_error_body_of_fields_never_shows_the_key(server, monkeypatch, key_name, shape):
    """Pieces of 4, 8 and 11 characters; an error (cut at 300) and a 200 reply that is not a
    chat completion (cut at 200). No 4 characters of the key may show."""
    key = KEYS[key_name]
    found = []
    for n in (4, 8, 11):
        body = SHAPES[shape](key, n).encode("utf-8")
        for status in (500, 200):
            texts = texts_shown(_judge(server, monkeypatch, key, status, body))
            leak = _leaks(texts, pieces(key))
            if leak:
                found.append((n, status, leak[0]))
            elif status == 500:
                assert WITHHELD in texts[1]
    assert found == []


def _completion(content):
    return json.dumps({"choices": [{"message": {"content": content}}]}).encode("utf-8")


@pytest.mark.parametrize("shape", ["fields-then-a-long-field", "pieces-as-keys",
                                   "json-in-a-json-string", "text-before"])
def test_a_reply_of_fields_is_refused_and_never_cached(server, monkeypatch, tmp_path, shape):
    key = KEYS["plain"]
    judge = _judge(server, monkeypatch, key, 200, _completion(SHAPES[shape](key, 8)))
    with pytest.raises(JudgeResponseError, match="quotes the API key") as info:
        judge.complete("hello")
    assert _leaks(texts_of(info.value), pieces(key)) == []
    path = tmp_path / "cache.jsonl"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run = judge_all(CachedJudge(judge, path), ["rate a"], errors="collect", progress=False,
                        max_retries=0)
    assert run.replies == [None]
    texts = [run.summary(), *(f.reason for f in run.failures), *(str(w.message) for w in caught)]
    assert _leaks(texts, pieces(key)) == []
    assert not path.exists() or _leaks([path.read_text("utf-8")], pieces(key)) == []


def test_ordinary_json_errors_and_replies_are_shown():
    """Fields that do not join into the key are shown as they are, cut as before."""
    key = KEYS["plain"]
    body = json.dumps({"error": {"message": "model not found: llama3", "type": "invalid",
                                 "code": "sk-Leak"}, "pad": "x" * 500})
    assert _key_scan._redact(body, key, 300) == body[:300]
    reply = ('{"score": 4, "why": "sk-Leak is a word here", "tags": ["7Qz", "9Wm"]}'
             " <span class='" + "c" * 300 + "'>ok</span> 0x41, 0x42 "
             "?a=sk-Le&b=ak&c=1")
    assert not _key_scan._quotes_key(reply, key)


@pytest.fixture(scope="module")
def redirector():
    from tests.judge.test_judge_http import ScriptedServer
    s = ScriptedServer()
    yield s
    s.close()


@pytest.mark.parametrize("key_name", sorted(KEYS))
@pytest.mark.parametrize("n, separator", [(6, "&"), (4, "&"), (6, ";")])
def test_a_redirect_with_the_key_in_query_parameters_never_shows_it(redirector, monkeypatch,
                                                                     key_name, n, separator):
    key = KEYS[key_name]
    query = separator.join(f"p{i}={urllib.parse.quote(p, safe='')}"
                           for i, p in enumerate(_pieces(key, n)))
    monkeypatch.setenv(ENV, key)
    redirector.script = [(302, {}, {"Location": "http://evil.example/next?" + query})]
    judge = OpenAICompatibleJudge(redirector.base_url, "m", api_key_env=ENV, timeout=5.0,
                                  max_retries=0)
    with pytest.raises(JudgeError, match="HTTP 302") as info:
        judge.complete("hello")
    bad = pieces(key) | {urllib.parse.quote(p, safe="") for p in _pieces(key, n)}
    assert _leaks(texts_of(info.value), bad) == []


def test_a_text_too_costly_to_read_counts_as_quoting(monkeypatch):
    """Readings are bounded (in all, a multiple of the text's length); past the bound the
    text is withheld rather than shown unread."""
    text = json.dumps({"a": "b\\u0041", "c": json.dumps({"d": "e%2541"})})
    assert not _key_scan._quotes_key(text, KEYS["plain"])
    monkeypatch.setattr(_key_scan, "_READ_BUDGET", 0)
    text = text * ((1 << 16) // len(text) + 1)
    assert _key_scan._quotes_key(text, KEYS["plain"])
    assert _key_scan._redact(text, KEYS["plain"], 300) == WITHHELD


def _nested(depth, leaf):
    """JSON whose every other field holds, as a string, JSON one level less deep."""
    if depth == 0:
        return leaf
    return {"as_text": json.dumps(_nested(depth - 1, leaf)), "as_json": _nested(depth - 1, leaf),
            "note": "relevant &amp; %20 \\n"}


def test_json_nested_in_strings_is_read_within_the_bound():
    """An ordinary reply of JSON nested five deep in strings (300 KB, past the fixed
    allowance of 64 Ki) is read and returned, not taken for a quote; with the key's pieces
    as its innermost fields it is a quote."""
    key = KEYS["plain"]
    plain = json.dumps([_nested(5, "a relevant passage")] * 80)
    assert len(plain) > 300_000
    assert not _key_scan._quotes_key(plain, key)
    assert _key_scan._redact(plain, key, 300) == plain[:300]
    fields = json.dumps([_nested(5, _fields(key, 5))] * 80)
    assert _key_scan._quotes_key(fields, key)


@pytest.mark.parametrize("text, joined", [
    ('{"k": "v", "w": 1, "x":"y"', ("vy", "kwx")),          # cut after a value
    ('{"a": "x\\"y", "b" : "z\\', ('x\\"yz', "ab")),      # an escaped quote; a cut escape
    ('\ufeff["s", {"t": ["u"]}] and "v"', ("suv", "t")),      # a BOM, text after
    ("p0=sk-Le&p1=ak%2F7;p2=Qz", ("sk-Leak%2F7Qz",)),          # no "?" before the first
    ("http://x/a?b=c=d&=e&f#g=h", ("c=de",)),                 # "=" in a value; no name
])
def test_the_fields_joined_are_the_strings_of_the_json_or_the_query_values(text, joined):
    assert _key_scan._joins(text) == joined


# HTML tags of any length

@pytest.mark.parametrize("tag_length", [65, 300, 5000])
def test_html_tags_of_any_length_between_pieces_are_left_out(tag_length):
    key = KEYS["plain"]
    tag = "<span class='" + "a" * tag_length + "'>"
    for n in (3, 5, 8):
        text = "".join(f"{tag}{p}</span>" for p in _pieces(key, n))
        assert _key_scan._quotes_key(text, key), n
        assert _key_scan._redact("oops " + text, key, 300) == WITHHELD
    assert not _key_scan._quotes_key(tag + key[:11] + "</span>" + tag + "later", key)


# codes and base64 of a short key; hexadecimal codes

def _hex_list(s, prefix="0x", separator=", "):
    return separator.join(f"{prefix}{ord(c):02x}" for c in s)


@pytest.mark.parametrize("prefix, separator", [("0x", ", "), ("0X", ","), ("x", " ")])
def test_a_list_of_hexadecimal_codes_is_a_quote(prefix, separator):
    key = KEYS["plain"]
    for start in range(0, len(key) - 11, 3):
        run = key[start:start + 12]
        assert _key_scan._quotes_key("bytes: [" + _hex_list(run, prefix, separator) + "]", key)
    assert not _key_scan._quotes_key(_hex_list(key[:11], prefix, separator), key)


SHORT = "sk-Sh/rt9x"   # 10 characters: matched whole only


def _short_forms(key):
    return [", ".join(str(ord(c)) for c in key), ",".join(str(ord(c)) for c in key),
            _hex_list(key), base64.b64encode(key.encode()).decode(),
            base64.b64encode(key.encode()).decode().rstrip("="),
            base64.urlsafe_b64encode(key.encode()).decode(),
            base64.urlsafe_b64encode(f"Bearer {key}".encode()).decode(),
            base64.b64encode(f"Bearer {key}".encode()).decode()]


@pytest.mark.parametrize("key", [SHORT, "EMPTY", "tk-5/q+"])
def test_a_short_key_as_codes_or_base64_is_a_quote(server, monkeypatch, key):
    for form in _short_forms(key):
        assert _key_scan._quotes_key(f"error: {form} (bad key)", key), form
        texts = texts_shown(_judge(server, monkeypatch, key, 500, f"error: {form}".encode()))
        assert WITHHELD in texts[1] and form not in texts[1], form


def test_a_short_key_in_part_is_not_a_quote():
    """The codes of all but one of its characters, the base64 of 7 of its 10 bytes (9 bytes
    are a quote: any 12 base64 characters standing for 9 bytes of the key are)."""
    part = SHORT[:-1]
    for form in (", ".join(str(ord(c)) for c in part), _hex_list(part),
                 base64.b64encode(SHORT[:7].encode()).decode(),
                 base64.b64encode(f"Bearer {SHORT[:7]}".encode()).decode()):
        assert not _key_scan._quotes_key(f"error: {form}", SHORT), form


# a key holding its own percent-escape

@pytest.mark.parametrize("times", [2, 3])
@pytest.mark.parametrize("key", ["sk-Ab%2Fcd7Qz+9Wm",   # every 12 characters hold part of "%2F"
                                 "ab%2Fcd%2B"])         # a short key, matched whole
def test_a_key_holding_its_own_percent_escape_encoded_again_is_a_quote(server, monkeypatch, times,
                                                                        key):
    echo = key
    for _ in range(times):
        echo = urllib.parse.quote(echo, safe="")
    assert _key_scan._quotes_key(f"error: {echo}", key)
    texts = texts_shown(_judge(server, monkeypatch, key, 500, f"error: {echo}".encode()))
    assert WITHHELD in texts[1] and _leaks(texts, pieces(echo) | pieces(key)) == []


# a short key holding its own percent-escape, encoded again and again

SHORT_ESCAPED = ["pass%2F", "x%2Fy%2Fz", "k%3D%3D", "ab%25cd"]


def _quoted(s, times):
    for _ in range(times):
        s = urllib.parse.quote(s, safe="")
    return s


#: name -> a function of the echo giving a body that holds it
ECHO_SHAPES = {
    "plain-body": lambda e: e,
    "json-field": lambda e: json.dumps({"key": e, "pad": "x" * 400}),
    "error-message": lambda e: json.dumps({"error": {"message": f"Incorrect API key provided: "
                                                                f"{e}. Check it.",
                                                     "type": "invalid_request_error"}}),
    "json-field-escaped": lambda e: json.dumps({"key": e}).replace("%", "\\u0025"),
}


@pytest.mark.parametrize("shape", sorted(ECHO_SHAPES))
@pytest.mark.parametrize("key", SHORT_ESCAPED)
def test_a_short_key_holding_its_own_escape_encoded_again_is_withheld(server, monkeypatch, key,
                                                                      shape):
    """A key under 12 characters holding ``%2F`` (or ``%25``), percent-encoded once, twice
    and three times (``pass%2F``, ``pass%252F``, ``pass%25252F``): collapsing every ``%25``
    at once read ``pass/``, not the key; the reading that keeps the key's own escape is
    searched too. Nothing of the echo nor of the key may show, as an error (cut at 300)
    or as a 200 reply that is not a chat completion."""
    found = []
    for times in (1, 2, 3):
        echo = _quoted(key, times)
        body = ECHO_SHAPES[shape](echo)
        assert _key_scan._quotes_key(body, key), (times, body[:80])
        for status in (500, 200):
            texts = texts_shown(_judge(server, monkeypatch, key, status, body.encode()))
            leak = _leaks(texts, {echo, key} | pieces(echo, 6))
            if leak:
                found.append((times, status, leak[0]))
            elif status == 500:   # the echo cut out (***) or the whole text withheld
                assert WITHHELD in texts[1] or "***" in texts[1], texts[1]
    assert found == []


# hexadecimal codes glued to the text around them

GLUED_KEYS = ["EMPTY", "Ab3&=+/%x", "k+y=1/2&3", 'abc%&=+/\\"', "p%41ss\nword!",
              "sk-Leak/7Qz+9", "sk-Leak/7Qz+9Wm"]   # 5 to 15 characters


def _hex_forms(key):
    """The key's codes as 0x (lower and upper case), 0X and x, each glued to a letter or digit
    before it (and to letters after it)."""
    lists = [_hex_list(key), _hex_list(key).upper(), _hex_list(key, "0X"),
             _hex_list(key, "x", " "), _hex_list(key, "x", " ").upper()]
    return [before + codes + after for codes in lists
            for before, after in (("id", ""), ("x", ""), ("abc", ""), ("9", ""),
                                  ("x" * 100, ""), ("x" * 100, "yyyyy"), ("id", "zz"))]


@pytest.mark.parametrize("key", GLUED_KEYS)
def test_hexadecimal_codes_glued_to_a_word_are_a_quote(key):
    for form in _hex_forms(key):
        assert _key_scan._quotes_key(form, key), form
        assert _key_scan._quotes_key(f"error: {form} (bad key)", key), form
        assert _key_scan._redact(f"error: {form}", key, 300) == WITHHELD, form


@pytest.mark.parametrize("key", ["EMPTY", "Ab3&=+/%x", "sk-Leak/7Qz+9"])
def test_hexadecimal_codes_glued_to_a_word_are_withheld_and_never_cached(server, monkeypatch,
                                                                          tmp_path, key):
    for form in (_hex_forms(key)[0], _hex_forms(key)[12], _hex_forms(key)[26]):
        texts = texts_shown(_judge(server, monkeypatch, key, 500, f"error: {form}".encode()))
        assert WITHHELD in texts[1] and form not in texts[1], form
        judge = _judge(server, monkeypatch, key, 200, _completion(form))
        with pytest.raises(JudgeResponseError, match="quotes the API key"):
            judge.complete("hello")
        path = tmp_path / "cache.jsonl"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # the run warns that the item failed
            run = judge_all(CachedJudge(judge, path), ["rate a"], errors="collect",
                            progress=False, max_retries=0)
        assert run.replies == [None]
        assert not path.exists() or form not in path.read_text("utf-8")


def test_glued_hexadecimal_codes_of_part_of_the_key_are_not_a_quote():
    key = "sk-Leak/7Qz+9Wm"
    for form in _hex_forms(key[:11]) + _hex_forms("EMPT"):
        assert not _key_scan._quotes_key(form, key), form
    assert not _key_scan._quotes_key(_hex_forms("EMPT")[0], "EMPTY")


@pytest.mark.parametrize("key", ["EMPTY", "sk-Leak/7Qz+AbC9", "Ab3&=+/%x", "a0x1"])
@pytest.mark.parametrize("code", ["0x%02x", "0X%02X", "0x%04x", "x%02x", "X%02X"])
def test_hexadecimal_codes_glued_to_each_other_are_a_quote(key, code):
    """Before: a code read up to 6 hex digits ate the 0 of the next "0x": 0x450x4d0x50...
    read as 0x450, 0x4d0, ... and the key EMPTY (any key) was shown."""
    form = "".join(code % ord(c) for c in key)
    assert _key_scan._quotes_key(f"bad key {form}", key), form
    assert _key_scan._redact(f"Error: {form}", key, 300) == WITHHELD, form
    # and a list of other codes glued the same way is no quote
    other = "".join(code % ord(c) for c in "xyzzy-other-text")
    assert not _key_scan._quotes_key(f"bad key {other}", key), other
