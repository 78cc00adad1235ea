"""The API key never reaches an error message, even cut in two (issue 23, item 1).

A server on 127.0.0.1 echoes the key somewhere in a reply body: at every
offset around the places where a message is cut, behind multi-byte
characters, as ``Bearer <key>``, inside JSON, percent-encoded. Whatever the
judge raises or warns must hold no piece of the key of four characters or
more.
"""

import json
import re
import threading
import urllib.parse
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from ragmetrics_edu.judge import JudgeError, OpenAICompatibleJudge

KEY = "sk-Leak/7Qz+9Wm=2Xv_4~"  # "/", "+" and "=" are percent-encoded
ENV = "RAGMETRICS_LEAK_TEST_KEY"


class EchoServer:
    """Answers every POST with ``self.status`` and ``self.body`` (bytes), on 127.0.0.1."""

    def __init__(self):
        self.status, self.body = 200, b""
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                self.send_response(server.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(server.body)))
                self.end_headers()
                self.wfile.write(server.body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


@pytest.fixture(scope="module")
def server():
    s = EchoServer()
    yield s
    s.close()


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch):
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY",
                 "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)


def pieces(key, n=4):
    """Every substring of ``key`` of ``n`` characters (so every longer one contains one)."""
    return {key[i:i + n] for i in range(len(key) - n + 1)}


def texts_of(exc):
    texts, seen = [], set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        texts += [str(exc), repr(exc), repr(exc.args)]
        exc = exc.__cause__ or exc.__context__
    return texts


def texts_shown(judge):
    """Every text ``judge`` gives for one prompt: its repr, the reply or the error's texts,
    and the warnings."""
    texts = [repr(judge)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            texts.append(judge.complete("hello"))
        except JudgeError as exc:
            texts += texts_of(exc)
    return texts + [str(w.message) for w in caught]


def leaks(server, monkeypatch, key, status, body):
    """The texts (messages, reprs, warnings) that hold a piece of ``key``."""
    monkeypatch.setenv(ENV, key)
    server.status, server.body = status, body
    judge = OpenAICompatibleJudge(server.base_url, "m", api_key_env=ENV, timeout=5.0,
                                  max_retries=0)
    texts = texts_shown(judge)
    bad = pieces(key)
    return [t for t in texts if any(p in t for p in bad)]


def forms(key):
    """How a server might echo the key it received."""
    return {
        "bare": key,
        "bearer": f"Bearer {key}",
        "json": json.dumps({"authorization": f"Bearer {key}"}),
        "percent": urllib.parse.quote(f"Bearer {key}", safe=""),
        "percent-lower": re.sub(r"%[0-9A-F]{2}", lambda m: m.group().lower(),
                                urllib.parse.quote(f"Bearer {key}", safe="")),
        "form-encoded": urllib.parse.urlencode({"key": key}),
        "json-unicode": "".join(f"\\u{ord(c):04x}" for c in key),
    }


PREFIXES = {"ascii": "x", "emoji": "\U0001F600", "accent": "\u00e9"}


@pytest.mark.parametrize("prefix", sorted(PREFIXES))
@pytest.mark.parametrize("form", sorted(forms(KEY)))
def test_not_json_reply_never_shows_the_key(server, monkeypatch, prefix, form):
    """Non-JSON 200 replies: the key at every byte offset around 400 (the old cut) and 200."""
    echo = forms(KEY)[form]
    unit = PREFIXES[prefix]
    found = []
    for cut in (200, 400):
        for offset in range(cut - len(echo) - 8, cut + 8):
            n = max(offset // len(unit.encode("utf-8")), 0)
            body = (unit * n + echo).encode("utf-8")
            bad = leaks(server, monkeypatch, KEY, 200, body)
            if bad:
                found.append((offset, bad[0][:120]))
    assert found == []


@pytest.mark.parametrize("form", sorted(forms(KEY)))
def test_reply_without_content_never_shows_the_key(server, monkeypatch, form):
    """Valid JSON without choices[0].message.content: the key at every offset around the cuts."""
    echo = forms(KEY)[form]
    found = []
    for cut in (200, 400):
        for offset in range(cut - len(echo) - 30, cut + 8):
            pad = "\U0001F600" * max((offset - 12) // 4, 0)  # 12 bytes of JSON before the pad
            body = json.dumps({"error": pad + echo}, ensure_ascii=False).encode("utf-8")
            bad = leaks(server, monkeypatch, KEY, 200, body)
            if bad:
                found.append((offset, bad[0][:120]))
    assert found == []


@pytest.mark.parametrize("status", [400, 401, 404, 500])
@pytest.mark.parametrize("form", sorted(forms(KEY)))
def test_error_status_never_shows_the_key(server, monkeypatch, status, form):
    """An error status whose body quotes the key, around the 300-character cut."""
    echo = forms(KEY)[form]
    found = []
    for offset in range(300 - len(echo) - 8, 308):
        body = ("\u00e9" * offset + echo).encode("utf-8")
        bad = leaks(server, monkeypatch, KEY, status, body)
        if bad:
            found.append((offset, bad[0][:120]))
    assert found == []


def test_long_key_cut_by_the_read_limit_never_shows(server, monkeypatch):
    """An error body is read up to 64 KiB: a key cut there must not leave its start behind.

    With a 1,000-character key repeated, the redacted text is short enough
    that the cut-off start of the last copy would fall inside the quoted part.
    """
    key = "".join("abcdefghijklmnopqrstuvwxyz0123456789"[(i * 7) % 36] for i in range(1000))
    found = []
    for extra in (440, 480, 520, 536):  # bytes of the last copy inside the first 64 KiB
        copies = (65536 - extra) // len(key)
        pad = 65536 - extra - copies * len(key)
        body = (b"." * pad + key.encode() * (copies + 1) + b"." * 500)
        bad = leaks(server, monkeypatch, key, 500, body)
        if bad:
            found.append((extra, bad[0][:120]))
    assert found == []
