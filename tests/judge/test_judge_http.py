"""OpenAICompatibleJudge against a real HTTP server on 127.0.0.1 (stdlib http.server).

The server is started by the fixture in a thread, on a free port, and plays a
script: one action per request. Nothing reaches outside the machine.
"""

import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from ragmetrics_edu.judge import (
    CachedJudge,
    JudgeAuthError,
    JudgeConfigError,
    JudgeConnectionError,
    JudgeError,
    JudgeHTTPError,
    JudgeNotFoundError,
    JudgeRateLimitError,
    JudgeResponseError,
    JudgeServerError,
    JudgeTimeoutError,
    OpenAICompatibleJudge,
    grade,
)
from ragmetrics_edu.judge.openai_compat import _is_loopback, _retry_after_seconds

ROOT = Path(__file__).resolve().parents[2]
SECRET = "sk-test-SECRET-0123456789"
SECRET_PARTS = ("sk-test-SECRET", "SECRET-0123456789")  # what must never show, even split

PROXY_VARIABLES = ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY",
                   "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY")


@pytest.fixture(autouse=True)
def no_proxy_variables(monkeypatch):
    """A developer's proxy settings must not route these tests (nor their test key) anywhere."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


def exception_texts(exc):
    """str, repr and args of an exception and of every exception chained to it."""
    texts, seen = [], set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        texts += [str(exc), repr(exc), repr(exc.args)]
        exc = exc.__cause__ or exc.__context__
    return texts


def assert_no_secret(exc):
    for text in exception_texts(exc):
        for part in SECRET_PARTS:
            assert part not in text, f"the key leaked into {text!r}"


def ok(content="Score: 4"):
    return (200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}, {})


class _HTTPServer:
    """An HTTP server on 127.0.0.1 (a free port) in a thread, until ``close``."""

    def _serve(self, handler):
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


class ScriptedServer(_HTTPServer):
    """Replies to POST /v1/chat/completions following ``self.script``."""

    def __init__(self):
        self.script = []
        self.requests = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep the test output clean
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                body = self.rfile.read(length)
                server.requests.append({
                    "path": self.path, "headers": dict(self.headers),
                    "body": json.loads(body.decode("utf-8")),
                })
                if self.path != "/v1/chat/completions":
                    action = (404, {"error": {"message": "no such route"}}, {})
                else:
                    action = server.script.pop(0) if server.script else ok()
                if action[0] == "sleep":
                    time.sleep(action[1])
                    action = ok()
                if action[0] == "raw":
                    status, payload, headers = 200, action[1], {}
                else:
                    status, obj, headers = action
                    if callable(obj):
                        obj = obj(self.headers)
                    payload = json.dumps(obj).encode("utf-8")
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

        self._serve(Handler)
        self.port = self.httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"


class RecordingServer(_HTTPServer):
    """A second server on 127.0.0.1 that records every request, whatever its method.

    It answers like a chat-completions server, so a request that reaches it by
    mistake (a followed redirect, a proxied request) would make ``complete``
    succeed, and the test fail.
    """

    def __init__(self):
        self.requests = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _record(self):
                length = int(self.headers.get("Content-Length", 0) or 0)
                self.rfile.read(length)
                recorder.requests.append({"method": self.command, "path": self.path,
                                          "headers": dict(self.headers)})
                payload = json.dumps(ok()[1]).encode("utf-8")
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_HEAD = do_PUT = _record

        self._serve(Handler)
        self.root = f"http://127.0.0.1:{self.httpd.server_address[1]}"


class RawServer:
    """A socket on 127.0.0.1 that answers each connection with fixed bytes, then closes it.

    For replies no HTTP server library would send: a status line that is not
    HTTP, a body shorter than its Content-Length.
    """

    def __init__(self, replies):
        self.replies = list(replies)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4)
        self.sock.settimeout(5.0)  # the thread ends by itself even if no client comes
        self.base_url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        for reply in self.replies:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(5.0)
                self._read_request(conn)
                conn.sendall(reply)

    @staticmethod
    def _read_request(conn):
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(4096)
            if not chunk:
                return
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":", 1)[1])
        while len(body) < length:
            chunk = conn.recv(4096)
            if not chunk:
                return
            body += chunk

    def close(self):
        self.sock.close()
        self.thread.join(timeout=6)


@pytest.fixture
def server():
    s = ScriptedServer()
    yield s
    s.close()


@pytest.fixture
def recorder():
    r = RecordingServer()
    yield r
    r.close()


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv("RAGMETRICS_TEST_KEY", SECRET)
    return "RAGMETRICS_TEST_KEY"


def make(server, key_env="RAGMETRICS_TEST_KEY", **kw):
    kw.setdefault("timeout", 2.0)
    kw.setdefault("backoff_base", 0.0)
    judge = OpenAICompatibleJudge(server.base_url, "toy-model", api_key_env=key_env, **kw)
    judge.delays = []
    judge._sleep = judge.delays.append  # record the waits instead of sleeping
    return judge


def test_success_and_request_shape(server, key):
    server.script = [ok("Score: 5")]
    judge = make(server, temperature=0.0, max_tokens=16, system_prompt="Be strict.")
    assert judge.complete("Rate it.") == "Score: 5"
    [req] = server.requests
    assert req["path"] == "/v1/chat/completions"
    assert req["headers"]["Authorization"] == f"Bearer {SECRET}"
    assert req["headers"]["Content-Type"] == "application/json"
    assert req["body"] == {
        "model": "toy-model",
        "messages": [{"role": "system", "content": "Be strict."},
                     {"role": "user", "content": "Rate it."}],
        "temperature": 0.0,
        "max_tokens": 16,
    }


def test_through_grade(server, key):
    server.script = [ok("Score: 2")]
    g = grade(make(server), "relevance", "An answer.", question="A question?")
    assert g.score == 2 and g.judge == "toy-model"


def test_no_key_sends_no_authorization(server, monkeypatch):
    monkeypatch.delenv("RAGMETRICS_UNSET_KEY", raising=False)
    judge = make(server, key_env="RAGMETRICS_UNSET_KEY")
    assert judge.complete("x") == "Score: 4"
    assert "Authorization" not in server.requests[0]["headers"]


def test_require_key(server, monkeypatch):
    monkeypatch.delenv("RAGMETRICS_UNSET_KEY", raising=False)
    judge = make(server, key_env="RAGMETRICS_UNSET_KEY", require_key=True)
    with pytest.raises(JudgeConfigError, match="RAGMETRICS_UNSET_KEY"):
        judge.complete("x")
    assert server.requests == []


def test_key_read_at_request_time(server, monkeypatch):
    monkeypatch.delenv("RAGMETRICS_TEST_KEY", raising=False)
    judge = make(server)
    monkeypatch.setenv("RAGMETRICS_TEST_KEY", "sk-later")
    judge.complete("x")
    assert server.requests[0]["headers"]["Authorization"] == "Bearer sk-later"


def test_429_then_200_uses_retry_after(server, key):
    server.script = [(429, {"error": "slow down"}, {"Retry-After": "0.05"}), ok("Score: 3")]
    judge = make(server, backoff_base=1.0)
    assert judge.complete("x") == "Score: 3"
    assert len(server.requests) == 2
    assert judge.delays == [0.05]  # Retry-After, not the 1 s backoff


def test_retry_after_capped(server, key):
    server.script = [(429, {}, {"Retry-After": "120"}), ok()]
    judge = make(server, backoff_max=0.5)
    judge.complete("x")
    assert judge.delays == [0.5]


def test_500_then_success_exponential_backoff(server, key):
    server.script = [(500, {}, {}), (503, {}, {}), ok("Score: 1")]
    judge = make(server, backoff_base=0.01, max_retries=3)
    assert judge.complete("x") == "Score: 1"
    # backoff_base * 2**attempt: 0.01, 0.02
    assert judge.delays == pytest.approx([0.01, 0.02])
    assert len(server.requests) == 3


def test_500_all_fail(server, key):
    server.script = [(500, {"error": "boom"}, {})] * 3
    judge = make(server, backoff_base=0.01, max_retries=2)
    with pytest.raises(JudgeServerError) as info:
        judge.complete("x")
    assert info.value.status == 500
    assert "after 3 tries" in str(info.value)
    assert len(server.requests) == 3
    assert judge.delays == pytest.approx([0.01, 0.02])


def test_429_all_fail(server, key):
    server.script = [(429, {}, {})] * 2
    judge = make(server, max_retries=1)
    with pytest.raises(JudgeRateLimitError):
        judge.complete("x")
    assert len(server.requests) == 2


def test_401_no_retry_and_key_not_leaked(server, key):
    # the server echoes the Authorization header back: the error must not show it
    echo = lambda headers: {"error": {"message": f"bad key {headers.get('Authorization')}"}}
    server.script = [(401, echo, {})]
    judge = make(server, max_retries=3)
    with pytest.raises(JudgeAuthError) as info:
        judge.complete("x")
    assert info.value.status == 401
    assert len(server.requests) == 1  # not retried
    assert SECRET not in str(info.value)
    assert "***" in str(info.value)
    assert "RAGMETRICS_TEST_KEY" in str(info.value)  # names the variable, not the value
    assert SECRET not in repr(info.value)


def test_404_wrong_path(server, key):
    judge = OpenAICompatibleJudge(f"http://127.0.0.1:{server.port}", "toy-model",
                                  api_key_env="RAGMETRICS_TEST_KEY", timeout=2.0)
    with pytest.raises(JudgeNotFoundError, match="/v1"):
        judge.complete("x")


def test_404_unknown_model(server, key):
    server.script = [(404, {"error": "model 'toy-model' not found"}, {})]
    with pytest.raises(JudgeNotFoundError, match="toy-model"):
        make(server).complete("x")


@pytest.mark.parametrize("payload", [
    b"this is not json",
    b'{"choices": []}',
    b'{"result": "Score: 4"}',
    b'{"choices": [{"message": {"content": null}}]}',
])
def test_malformed_reply(server, key, payload):
    server.script = [("raw", payload)]
    with pytest.raises(JudgeResponseError):
        make(server).complete("x")


def test_timeout(server, key):
    server.script = [("sleep", 0.6)]
    judge = make(server, timeout=0.2, max_retries=2)
    start = time.monotonic()
    with pytest.raises(JudgeTimeoutError, match="0.2 s"):
        judge.complete("x")
    assert time.monotonic() - start < 0.55  # raised at the timeout, not after the reply
    assert len(server.requests) == 1  # timeouts are not retried


def test_connection_refused(key):
    s = ScriptedServer()
    base_url = s.base_url
    s.close()  # nothing listens on that port any more
    # the test's own variable: a developer's real OPENAI_API_KEY is never read here
    judge = OpenAICompatibleJudge(base_url, "m", api_key_env=key, timeout=1.0, max_retries=0)
    with pytest.raises(JudgeConnectionError):
        judge.complete("x")


def test_errors_are_judge_errors():
    for cls in (JudgeAuthError, JudgeNotFoundError, JudgeRateLimitError, JudgeServerError,
                JudgeResponseError, JudgeTimeoutError, JudgeConnectionError, JudgeConfigError):
        assert issubclass(cls, JudgeError)


def test_key_never_on_object_repr_or_cache(server, key, tmp_path):
    judge = make(server)
    assert repr(judge) == f"OpenAICompatibleJudge(base_url={server.base_url!r}, model='toy-model')"
    cached = CachedJudge(judge, tmp_path / "replies.jsonl")
    server.script = [ok("Score: 4")]
    assert cached.complete("Rate it.") == "Score: 4"
    assert server.requests[0]["headers"]["Authorization"] == f"Bearer {SECRET}"  # it was used
    for text in (repr(judge), repr(cached), str(vars(judge)), str(judge.parameters),
                 (tmp_path / "replies.jsonl").read_text(encoding="utf-8")):
        assert SECRET not in text


@pytest.mark.parametrize("kwargs, error", [
    ({"base_url": "localhost:11434/v1"}, ValueError),
    ({"model": ""}, ValueError),
    ({"timeout": 0}, ValueError),
    ({"max_retries": -1}, ValueError),
    ({"temperature": -0.5}, ValueError),
    ({"max_tokens": 0}, ValueError),
])
def test_bad_arguments(kwargs, error):
    args = {"base_url": "http://127.0.0.1:9/v1", "model": "m"}
    args.update(kwargs)
    with pytest.raises(error):
        OpenAICompatibleJudge(**args)


# -- where the key may go: no redirects, no proxy for this machine ----------------------


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_redirect_is_refused_and_the_key_goes_nowhere_else(server, recorder, key, status):
    target = f"{recorder.root}/v1/chat/completions"
    server.script = [(status, {}, {"Location": target})]
    with pytest.raises(JudgeHTTPError) as info:
        make(server).complete("x")
    assert info.value.status == status
    assert f"redirected to {target}; set base_url to the final address" in str(info.value)
    assert len(server.requests) == 1
    assert recorder.requests == []  # the second server received nothing: no request, no key
    assert_no_secret(info.value)


def test_relative_redirect_is_reported_as_an_absolute_address(server, key):
    server.script = [(302, {}, {"Location": "/v2/chat/completions"})]
    with pytest.raises(JudgeHTTPError,
                       match=f"redirected to http://127.0.0.1:{server.port}/v2/chat/completions;"):
        make(server).complete("x")


@pytest.mark.parametrize("variable", ["http_proxy", "HTTP_PROXY"])
def test_loopback_server_ignores_proxy_variables(server, recorder, variable):
    # a fresh Python whose environment names a proxy, as a developer's shell may: urllib
    # reads the variables when its opener is first built, so this runs in a new process
    code = ("import sys\n"
            "from ragmetrics_edu.judge import OpenAICompatibleJudge\n"
            "judge = OpenAICompatibleJudge(sys.argv[1], 'toy-model', api_key_env='RAGMETRICS_TEST_KEY',"
            " timeout=2.0, max_retries=0)\n"
            "print(judge.complete('x'))\n")
    env = {k: v for k, v in os.environ.items() if k not in PROXY_VARIABLES}
    env[variable] = recorder.root  # the "proxy" records whatever it is sent
    env["RAGMETRICS_TEST_KEY"] = SECRET
    done = subprocess.run([sys.executable, "-c", code, server.base_url], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Score: 4"
    assert len(server.requests) == 1
    assert recorder.requests == []  # nothing, and so no key, went to the proxy


def test_other_hosts_still_use_the_environment_proxy(recorder, key, monkeypatch):
    # only the proxy (on 127.0.0.1) is contacted: urllib hands it the whole URL, it never
    # looks up judge.invalid (a name that cannot exist, RFC 2606)
    monkeypatch.setenv("http_proxy", recorder.root)
    judge = OpenAICompatibleJudge("http://judge.invalid/v1", "m", api_key_env=key,
                                  timeout=2.0, max_retries=0)
    assert judge.complete("x") == "Score: 4"
    [request] = recorder.requests
    assert request["path"] == "http://judge.invalid/v1/chat/completions"  # a proxy request


@pytest.mark.parametrize("host, expected", [
    ("localhost", True), ("LOCALHOST", True), ("127.0.0.1", True), ("127.255.0.9", True),
    ("::1", True), ("128.0.0.1", False), ("10.0.0.1", False), ("localhost.example.com", False),
    ("api.openai.com", False), (None, False),
])
def test_is_loopback(host, expected):
    assert _is_loopback(host) is expected


# -- a key with characters a header cannot carry ------------------------------------------


def test_key_surrounding_white_space_is_stripped(server, monkeypatch):
    monkeypatch.setenv("RAGMETRICS_TEST_KEY", f"  {SECRET}\n")  # as pasted from a file
    make(server).complete("x")
    assert server.requests[0]["headers"]["Authorization"] == f"Bearer {SECRET}"


def test_blank_key_counts_as_unset(server, monkeypatch):
    monkeypatch.setenv("RAGMETRICS_TEST_KEY", " \n")
    make(server).complete("x")
    assert "Authorization" not in server.requests[0]["headers"]


@pytest.mark.parametrize("bad_key", [
    "sk-test-SECRET\n-0123456789",       # a newline inside: http.client printed the header
    "sk-test-SECRET\r\n-0123456789",
    "sk-test-SECRET\t-0123456789",
    "sk-test-SECRET-0123456789\x1b[0m",  # a terminal colour code copied along
    "sk-test-SECRET-0123456789\u2019",   # a curly quote pasted from a web page
])
def test_key_with_control_character_is_refused_without_printing_it(server, monkeypatch, bad_key):
    monkeypatch.setenv("RAGMETRICS_TEST_KEY", bad_key)
    with pytest.raises(JudgeConfigError) as info:
        make(server).complete("x")
    assert "RAGMETRICS_TEST_KEY" in str(info.value)  # names the variable
    assert_no_secret(info.value)                      # never the value
    assert server.requests == []


def test_unexpected_errors_never_carry_the_key(server, key, monkeypatch):
    # any failure inside http.client that quotes the header, as its "Invalid header value
    # b'Bearer ...'" did, comes out as a JudgeError with the key masked and no chained cause
    real_putheader = http.client.HTTPConnection.putheader

    def leaky_putheader(self, header, *values):
        if header == "Authorization":
            raise ValueError(f"Invalid header value {values[0].encode()!r}")
        return real_putheader(self, header, *values)

    monkeypatch.setattr(http.client.HTTPConnection, "putheader", leaky_putheader)
    with pytest.raises(JudgeError) as info:
        make(server).complete("x")
    assert "ValueError" in str(info.value) and "***" in str(info.value)
    assert info.value.__cause__ is None and info.value.__context__ is None
    assert_no_secret(info.value)


def test_http_error_has_no_chained_cause(server, key):
    server.script = [(401, {"error": "bad key"}, {})]
    with pytest.raises(JudgeAuthError) as info:
        make(server).complete("x")
    assert info.value.__cause__ is None and info.value.__context__ is None


# -- replies that are not HTTP, cut short, or with an unreadable Retry-After --------------


@pytest.fixture
def raw_server():
    servers = []

    def start(*replies):
        servers.append(RawServer(replies))
        return servers[-1]

    yield start
    for s in servers:
        s.close()


def raw_judge(raw, key):
    return OpenAICompatibleJudge(raw.base_url, "m", api_key_env=key, timeout=2.0, max_retries=0)


def test_garbage_status_line_is_a_response_error(raw_server, key):
    raw = raw_server(b"HELLO THERE\r\n\r\n")  # http.client raises BadStatusLine
    with pytest.raises(JudgeResponseError, match="not a valid HTTP response"):
        raw_judge(raw, key).complete("x")


def test_truncated_body_is_a_connection_error(raw_server, key):
    head = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100\r\n\r\n")
    raw = raw_server(head + b'{"choices": [')  # 13 of 100 bytes, then the socket closes
    with pytest.raises(JudgeConnectionError,
                       match=r"closed before the whole reply arrived \(13 bytes read, 87 more expected\)"):
        raw_judge(raw, key).complete("x")


def test_closed_without_a_reply_is_a_connection_error(raw_server, key):
    raw = raw_server(b"")  # http.client raises RemoteDisconnected
    with pytest.raises(JudgeConnectionError):
        raw_judge(raw, key).complete("x")


def test_429_with_unreadable_retry_after_falls_back_to_backoff(server, key):
    server.script = [(429, {}, {"Retry-After": "soon"}), ok("Score: 2")]
    judge = make(server, backoff_base=0.25)
    assert judge.complete("x") == "Score: 2"
    assert judge.delays == [0.25]  # backoff_base * 2**0, since "soon" is no number nor date
    assert len(server.requests) == 2


@pytest.fixture
def eastern_time():
    """Run the test with local time 5 hours behind GMT, whatever this machine uses."""
    old = os.environ.get("TZ")
    os.environ["TZ"] = "EST+5"
    time.tzset()
    yield
    if old is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = old
    time.tzset()


def test_retry_after_date_without_zone_is_gmt(eastern_time, monkeypatch):
    # 07:27:50 GMT now; the server says retry at 07:28:00 (an HTTP date is GMT even when the
    # zone is left out): 10 s, not 10 s + 5 h as local-time reading would give
    now = 1445412470.0  # 2015-10-21 07:27:50 GMT
    monkeypatch.setattr(time, "time", lambda: now)
    judge = OpenAICompatibleJudge("http://127.0.0.1:9/v1", "m", backoff_max=1e6)
    assert judge._delay(0, "Wed, 21 Oct 2015 07:28:00") == pytest.approx(10.0)
    assert judge._delay(0, "Wed, 21 Oct 2015 07:28:00 GMT") == pytest.approx(10.0)
    assert _retry_after_seconds("Wed, 21 Oct 2015 07:28:00", now=now) == pytest.approx(10.0)


@pytest.mark.parametrize("header", ["soon", "", "  ", "nan", "Someday, 99 Foo 20xx"])
def test_unreadable_retry_after_is_none(header):
    assert _retry_after_seconds(header) is None


# -- time limits: a try ends at its timeout, a call at its deadline ------------------------


class DripServer:
    """A socket on 127.0.0.1 that answers one connection a byte at a time, then closes.

    ``head`` is sent at once unless ``drip_head``; then ``n_bytes`` of body, one per
    ``interval`` seconds. The loop is bounded (and stops when the client goes), so the
    thread ends by itself.
    """

    def __init__(self, head, n_bytes, interval, drip_head=False, connections=1):
        self.head, self.n_bytes, self.interval = head, n_bytes, interval
        self.drip_head, self.connections = drip_head, connections
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4)
        self.sock.settimeout(5.0)
        self.base_url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        for _ in range(self.connections):
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(5.0)
                try:
                    RawServer._read_request(conn)
                    payload = self.head + b"x" * self.n_bytes
                    start = 0 if self.drip_head else len(self.head)
                    conn.sendall(payload[:start])
                    for i in range(start, len(payload)):
                        conn.sendall(payload[i:i + 1])
                        time.sleep(self.interval)
                except OSError:  # the client gave up
                    pass

    def close(self):
        self.sock.close()
        self.thread.join(timeout=10)


@pytest.fixture
def drip_server():
    servers = []

    def start(*args, **kwargs):
        servers.append(DripServer(*args, **kwargs))
        return servers[-1]

    yield start
    for s in servers:
        s.close()


DRIP_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n"


@pytest.mark.parametrize("drip_head", [False, True], ids=["body", "headers"])
def test_a_dripping_server_is_cut_at_the_timeout(drip_server, key, drip_head):
    # one byte every 20 ms: each read is quick, so urllib's per-read timeout never fired
    # (before: the whole 8 s drip was read, with timeout=3 a drip took 43-57 s)
    raw = drip_server(DRIP_HEAD, 400, 0.02, drip_head=drip_head)
    judge = OpenAICompatibleJudge(raw.base_url, "m", api_key_env=key, timeout=0.5, max_retries=0)
    start = time.monotonic()
    with pytest.raises(JudgeTimeoutError, match="within 0.5 s"):
        judge.complete("x")
    assert time.monotonic() - start < 4.0   # the drip alone lasts 8 s


def test_deadline_cuts_a_slow_try(server, key):
    server.script = [("sleep", 1.5)]
    judge = make(server, timeout=10.0, deadline=0.3)
    with pytest.raises(JudgeTimeoutError, match="deadline of 0.3 s for the whole call"):
        judge.complete("x")


def test_deadline_counts_retries_and_their_waits(server, key):
    server.script = [(500, {"error": "busy"}, {})] * 50
    # Real waits, which count against the deadline: seconds, not tenths, so that the last try
    # keeps about half a second for a local reply even on a loaded machine.
    judge = make(server, deadline=4.5, max_retries=50, backoff_base=1.0, backoff_max=1.0)
    judge._sleep = time.sleep
    with pytest.raises(JudgeServerError, match="no retry: waiting 1 s would pass the deadline "
                                               "of 4.5 s") as info:
        judge.complete("x")
    assert info.value.status == 500
    assert 3 <= len(server.requests) <= 5   # tries at about 0, 1, 2, 3 (4) s, not 51


@pytest.mark.parametrize("kwargs", [{"deadline": 0}, {"deadline": -1.0}, {"deadline": "5"},
                                    {"max_reply_bytes": 0}, {"max_reply_bytes": 1.5}])
def test_bad_limits(kwargs):
    [name] = kwargs
    with pytest.raises((ValueError, TypeError), match=f"^{name} must be"):
        OpenAICompatibleJudge("http://127.0.0.1:9/v1", "m", **kwargs)


# -- size cap --------------------------------------------------------------------------


def test_default_size_cap_is_10_mib():
    assert OpenAICompatibleJudge("http://127.0.0.1:9/v1", "m").max_reply_bytes == 10 * 2**20


def test_reply_announcing_more_than_the_cap_is_refused(server, key):
    server.script = [ok("Score: 4 " + "x" * 5000)]
    with pytest.raises(JudgeResponseError, match=r"announces \d+ bytes, more than max_reply_bytes=1000"):
        make(server, max_reply_bytes=1000).complete("x")
    server.script = [ok("Score: 4")]
    assert make(server, max_reply_bytes=1000).complete("x") == "Score: 4"


class ChunkedStream:
    """127.0.0.1: a chunked 200 reply that would go on for ``chunks`` x 64 KiB (bounded)."""

    def __init__(self, chunks=400):
        self.chunks, self.sent = chunks, 0
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.sock.settimeout(5.0)
        self.base_url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        try:
            conn, _ = self.sock.accept()
        except OSError:
            return
        with conn:
            conn.settimeout(5.0)
            try:
                RawServer._read_request(conn)
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             b"Transfer-Encoding: chunked\r\n\r\n")
                chunk = b"10000\r\n" + b" " * 0x10000 + b"\r\n"
                for _ in range(self.chunks):
                    conn.sendall(chunk)
                    self.sent += 1
            except OSError:  # the client stopped reading and closed
                pass

    def close(self):
        self.sock.close()
        self.thread.join(timeout=10)


def test_an_endless_chunked_stream_stops_at_the_cap(key):
    stream = ChunkedStream()
    try:
        judge = OpenAICompatibleJudge(stream.base_url, "m", api_key_env=key, timeout=10.0,
                                      max_retries=0, max_reply_bytes=1_000_000)
        # before: every byte was read (an endless stream grew to 837 MB), then "not JSON"
        with pytest.raises(JudgeResponseError, match="longer than max_reply_bytes=1000000"):
            judge.complete("x")
    finally:
        stream.close()
    assert stream.sent < 400   # the client hung up long before the stream's end


# -- hostile replies: always a JudgeResponseError naming what was wrong ---------------------


@pytest.mark.parametrize("payload, why", [
    (b'{"choices": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested too deeply"),  # RecursionError
    (b'{"n": ' + b"1" * 5000 + b', "choices": [{"message": {"content": "Score: 4"}}]}',
     "integer too long"),                                                              # ValueError
    (b'{"choices": [{"message": {"content": "Score: 4 \\ud800"}}]}', "lone surrogate"),
    (b'{"choices": [{"message": {"content": "Score: 4"}}]}\xff', "not UTF-8"),
    (b'{"choices": [{"message": {"content": "Score: 4"}}]', "not JSON"),
])
def test_hostile_reply_is_a_response_error(server, key, payload, why):
    server.script = [("raw", payload)]
    with pytest.raises(JudgeResponseError, match=why) as info:
        make(server).complete("x")
    assert len(str(info.value)) < 600
