"""OpenAICompatibleJudge against a real HTTP server on 127.0.0.1 (stdlib http.server).

The server is started by the fixture in a thread, on a free port, and plays a
script: one action per request. Nothing reaches outside the machine.
"""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from ragmetrics_edu.judge import (
    CachedJudge,
    JudgeAuthError,
    JudgeConfigError,
    JudgeConnectionError,
    JudgeError,
    JudgeNotFoundError,
    JudgeRateLimitError,
    JudgeResponseError,
    JudgeServerError,
    JudgeTimeoutError,
    OpenAICompatibleJudge,
    grade,
)

SECRET = "sk-test-SECRET-0123456789"


def ok(content="Score: 4"):
    return (200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}, {})


class ScriptedServer:
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

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


@pytest.fixture
def server():
    s = ScriptedServer()
    yield s
    s.close()


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


def test_connection_refused():
    s = ScriptedServer()
    base_url = s.base_url
    s.close()  # nothing listens on that port any more
    judge = OpenAICompatibleJudge(base_url, "m", timeout=1.0, max_retries=0)
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
