"""The key is withheld in the forms a held-out probe found after issue 34's first round.

Bodies that are not UTF-8 (UTF-16, UTF-32: a NUL between the key's
characters), a key interleaved with invisible characters (NUL, zero-width
space, soft hyphen, zero-width joiner, byte order mark), case-changed or
fullwidth, in hexadecimal (either case, spaced), base32, rot13, reversed,
written with ``\\U``, octal or JavaScript escapes, percent-encoded five
times, quoted-printable, as a list of decimal codes, and cut into pieces of
at most 11 characters joined by separators, HTML tags or JSON fields. Each
form is tried around the places where a message is cut, as the tests of
``test_reliability_key_encodings`` do; what must not show (the telltales)
comes from the form's own encoder.

Forms decided *not* to be covered (a server would have to encode the key
twice on purpose): base64 of the key's UTF-16, of its hexadecimal or of its
base64; see the module docstring of ``ragmetrics_edu.judge.openai_compat``.
"""

import base64
import codecs
import json
import urllib.parse
import warnings

import pytest

from ragmetrics_edu.judge import CachedJudge, JudgeError, JudgeResponseError, OpenAICompatibleJudge
from ragmetrics_edu.judge.run import judge_all
from tests.judge.test_reliability_key_encodings import KEYS, offsets, telltales
from tests.judge.test_reliability_key_leak import (  # noqa: F401 (fixtures)
    no_proxy, server, texts_of, texts_shown)

ENV = "RAGMETRICS_KEY_FORMS_TEST"


def _q(s, times=1):
    for _ in range(times):
        s = urllib.parse.quote(s, safe="")
    return s


def _fullwidth(s):
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in s)


def _pieces(s, n):
    return [s[i:i + n] for i in range(0, len(s), n)]


def _utf(codec):
    # what a UTF-8 reader shows of the key in a UTF-16/32 body: a NUL between characters
    return lambda s: s.encode(codec).decode("latin-1")


#: name -> (the echo of the key, the form's text of a piece of the key or None,
#:          the encoding of the whole body)
def forms(key):
    bearer = f"Bearer {key}"
    return {
        "utf-16": (bearer, _utf("utf-16-le"), "utf-16"),
        "utf-16-be": (bearer, _utf("utf-16-be"), "utf-16-be"),
        "utf-32": (bearer, _utf("utf-32-le"), "utf-32"),
        "nul-between": ("\x00".join(key), "\x00".join, "utf-8"),
        "zero-width-space": ("\u200b".join(key), "\u200b".join, "utf-8"),
        "soft-hyphen": ("\u00ad".join(key), "\u00ad".join, "utf-8"),
        "zwj-every-6": ("\u200d".join(_pieces(key, 6)), None, "utf-8"),
        "bom-every-5": ("\ufeff".join(_pieces(key, 5)), None, "utf-8"),
        "fullwidth": (_fullwidth(key), _fullwidth, "utf-8"),
        "upper": (key.upper(), str.upper, "utf-8"),
        "lower": (key.lower(), str.lower, "utf-8"),
        "hex": (key.encode().hex(), lambda s: s.encode().hex(), "utf-8"),
        "hex-upper": (key.encode().hex().upper(), lambda s: s.encode().hex().upper(), "utf-8"),
        "hex-spaced": (key.encode().hex(" "), lambda s: s.encode().hex(" "), "utf-8"),
        "hex-bearer": (bearer.encode().hex(), lambda s: s.encode().hex(), "utf-8"),
        "base32": (base64.b32encode(key.encode()).decode(), None, "utf-8"),
        "base32-bearer": (base64.b32encode(bearer.encode()).decode(), None, "utf-8"),
        "rot13": (codecs.encode(key, "rot13"), lambda s: codecs.encode(s, "rot13"), "utf-8"),
        "reversed": (key[::-1], lambda s: s[::-1], "utf-8"),
        "U-escape": ("".join(f"\\U{ord(c):08x}" for c in key),
                     lambda s: "".join(f"\\U{ord(c):08x}" for c in s), "utf-8"),
        "octal": ("".join(f"\\{ord(c):03o}" for c in key),
                  lambda s: "".join(f"\\{ord(c):03o}" for c in s), "utf-8"),
        "js-brace": ("".join(f"\\u{{{ord(c):x}}}" for c in key),
                     lambda s: "".join(f"\\u{{{ord(c):x}}}" for c in s), "utf-8"),
        "percent-5-deep": (_q(bearer, 5), lambda s: _q(s, 5), "utf-8"),
        "quoted-printable": ("".join(f"={b:02X}" for b in key.encode()),
                             lambda s: "".join(f"={b:02X}" for b in s.encode()), "utf-8"),
        "decimal-codes": (",".join(str(ord(c)) for c in key),
                          lambda s: ",".join(str(ord(c)) for c in s), "utf-8"),
        "pieces-of-11-dashes": (" - ".join(_pieces(key, 11)), None, "utf-8"),
        "pieces-of-7-slashes": ("/".join(_pieces(key, 7)), None, "utf-8"),
        "pieces-of-5-tags": ("".join(f"<i>{p}</i>" for p in _pieces(key, 5)), None, "utf-8"),
        "pieces-cdata": ("<![CDATA[]]>".join(_pieces(key, 8)), None, "utf-8"),
    }


def _width(codec):
    """Characters a UTF-8 reader shows per character of a body in ``codec``."""
    return {"utf-16": 2, "utf-16-be": 2, "utf-32": 4}.get(codec, 1)


CASES = [(k, f) for k in sorted(KEYS) for f in sorted(forms(KEYS[k]))]


def _bad(key, echo, encode):
    bad = telltales(key, echo, encode)
    return bad | {repr(b)[1:-1] for b in bad}   # as a repr shows it (\x00)


def _leaks(texts, bad):
    return [t[:120] for t in texts if any(b in t for b in bad)]


def shown(server, monkeypatch, key, status, body):
    monkeypatch.setenv(ENV, key)
    server.status, server.body = status, body
    return texts_shown(OpenAICompatibleJudge(server.base_url, "m", api_key_env=ENV,
                                             timeout=5.0, max_retries=0))


@pytest.mark.parametrize("key_name, form", CASES)
def test_an_error_body_never_shows_the_key(server, monkeypatch, key_name, form):
    key = KEYS[key_name]
    echo, encode, codec = forms(key)[form]
    bad = _bad(key, echo, encode)
    found = []
    for status in (400, 500):
        for offset in offsets(300 // _width(codec), echo):
            pad = "\u00e9" * max(offset, 0)
            body = (pad + echo + " and more").encode(codec)
            leak = _leaks(shown(server, monkeypatch, key, status, body), bad)
            if leak:
                found.append((status, offset, leak[0]))
    assert found == []


@pytest.mark.parametrize("key_name, form", CASES)
def test_a_reply_that_is_not_a_completion_never_shows_the_key(server, monkeypatch, key_name,
                                                              form):
    key = KEYS[key_name]
    echo, encode, codec = forms(key)[form]
    bad = _bad(key, echo, encode)
    found = []
    for offset in offsets(200 // _width(codec), echo):
        pad = "\U0001F600" * max(offset // 4, 0)
        for body in ((pad + echo).encode(codec),
                     json.dumps({"error": pad + echo}, ensure_ascii=False).encode(codec)):
            leak = _leaks(shown(server, monkeypatch, key, 200, body), bad)
            if leak:
                found.append((offset, leak[0]))
    assert found == []


def completion(content):
    return json.dumps({"choices": [{"message": {"content": content}}]}).encode("utf-8")


@pytest.mark.parametrize("key_name, form",
                         [(k, f) for k, f in CASES if forms(KEYS[k])[f][2] == "utf-8"])
def test_a_reply_quoting_the_key_is_refused_and_never_cached(server, monkeypatch, tmp_path,
                                                              key_name, form):
    key = KEYS[key_name]
    echo, encode, _ = forms(key)[form]
    bad = _bad(key, echo, encode)
    monkeypatch.setenv(ENV, key)
    for where in ("Score: 4\n" + echo, echo + "\nScore: 4", "x" * 150 + echo + "y" * 150):
        server.status, server.body = 200, completion(where)
        judge = OpenAICompatibleJudge(server.base_url, "m", api_key_env=ENV, timeout=5.0,
                                      max_retries=0)
        with pytest.raises(JudgeResponseError, match="quotes the API key") as info:
            judge.complete("hello")
        assert _leaks(texts_of(info.value), bad) == []
        path = tmp_path / f"{form}.jsonl"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            run = judge_all(CachedJudge(judge, path), ["rate a"], errors="collect",
                            progress=False, max_retries=0)
        assert run.replies == [None]
        texts = [run.summary(), *(f.reason for f in run.failures),
                 *(str(w.message) for w in caught)]
        assert _leaks(texts, bad) == []
        assert not path.exists() or _leaks([path.read_text("utf-8")], bad) == []


@pytest.mark.parametrize("key_name", sorted(KEYS))
def test_a_key_cut_into_json_fields_is_withheld(server, monkeypatch, key_name):
    """A JSON error body whose fields hold pieces of 11 characters of the key."""
    key = KEYS[key_name]
    bad = _bad(key, key, None)
    for n in (4, 7, 11):
        for pad in (0, 150, 280, 400):
            fields = {"pad": "x" * pad}
            fields.update({f"p{i}": p for i, p in enumerate(_pieces(key, n))})
            body = json.dumps({"error": fields}).encode()
            assert _leaks(shown(server, monkeypatch, key, 500, body), bad) == []


def test_replies_without_the_key_are_untouched(server, monkeypatch):
    """Ordinary text in the forms read here (hex, escapes, tags, capitals) is returned."""
    key = KEYS["plain"]
    reply = ("Score: 4. SK-LEAK is not the key; 736b2d4c65616b is only part of it; "
             "\\U0001F600 \\101 \\u{41} =41 <i>sk-Leak</i> 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13 "
             "ＡＢＣ\u200b" + base64.b32encode(b"an unrelated sentence").decode())
    monkeypatch.setenv(ENV, key)
    server.status, server.body = 200, completion(reply)
    judge = OpenAICompatibleJudge(server.base_url, "m", api_key_env=ENV, timeout=5.0,
                                  max_retries=0)
    assert judge.complete("hello") == reply


@pytest.mark.parametrize("url", ["http://user:s3cret-Pa55word@127.0.0.1:9/v1",
                                 "https://s3cret-Pa55word@api.example.com/v1",
                                 "http://user:s3cret-Pa55word@[::1]:8080/v1/"])
def test_a_base_url_carrying_a_password_is_refused_without_showing_it(url, tmp_path):
    """Userinfo in base_url would show in repr, every error and every cache entry's "server"."""
    with pytest.raises(ValueError, match="base_url must not carry a user name or password") as info:
        OpenAICompatibleJudge(url, "m")
    assert "s3cret" not in str(info.value) and "s3cret" not in repr(info.value.args)
    assert "***@" in str(info.value)
    with pytest.raises(ValueError, match="server must not carry") as info:
        CachedJudge(lambda p: "Score: 4", tmp_path / "c.jsonl", model="m", server=url)
    assert "s3cret" not in str(info.value)
    assert not (tmp_path / "c.jsonl").exists()


def test_an_at_sign_after_the_host_is_not_userinfo():
    judge = OpenAICompatibleJudge("http://127.0.0.1:9/v1/@models?x=a@b", "m")
    assert judge.base_url == "http://127.0.0.1:9/v1/@models?x=a@b"


@pytest.fixture(scope="module")
def redirector():
    from tests.judge.test_judge_http import ScriptedServer
    s = ScriptedServer()
    yield s
    s.close()


def _locations(key):
    return {
        "pieces-of-11-in-the-path": ("http://evil/" + "/".join(_pieces(key, 11)), None),
        "utf-16-bytes": ("http://evil/?k=" + key.encode("utf-16-le").decode("latin-1"),
                         _utf("utf-16-le")),
        "zero-width-utf-8": ("http://evil/" + "\u200b".join(key).encode().decode("latin-1"),
                             None),
        "hex": ("http://evil/?k=" + key.encode().hex(), lambda s: s.encode().hex()),
        "upper": ("http://evil/?k=" + key.upper(), str.upper),
    }


@pytest.mark.parametrize("key_name", sorted(KEYS))
@pytest.mark.parametrize("form", sorted(_locations("x" * 20)))
def test_a_redirect_address_never_shows_the_key(redirector, monkeypatch, key_name, form):
    key = KEYS[key_name]
    location, encode = _locations(key)[form]
    if any(ch in location for ch in "\r\n"):
        pytest.skip("not a header value")
    bad = _bad(key, key, encode)
    monkeypatch.setenv(ENV, key)
    redirector.script = [(302, {}, {"Location": location})]
    judge = OpenAICompatibleJudge(redirector.base_url, "m", api_key_env=ENV, timeout=5.0,
                                  max_retries=0)
    with pytest.raises(JudgeError, match="HTTP 302") as info:
        judge.complete("hello")
    assert _leaks(texts_of(info.value), bad) == []
