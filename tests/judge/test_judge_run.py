"""judge_all against a fake chat-completions server on 127.0.0.1 (stdlib http.server).

The server runs in a thread on a free port for one test, answers each prompt
by a rule, and can refuse requests with 429 (Retry-After in seconds or as an
HTTP date), 500 or 401. It records every request and the most requests it
ever had in flight at once. Nothing reaches outside the machine.
"""

import email.utils
import io
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import ragmetrics_edu as rm

# errors="collect" warns with the count of failures; the tests read the failures themselves
pytestmark = pytest.mark.filterwarnings("ignore:.*items judged.*:RuntimeWarning")
from ragmetrics_edu.judge import CachedJudge, OpenAICompatibleJudge, parse_verdict
from ragmetrics_edu.judge.run import Failure, JudgeRunError, JudgingRun, judge_all

PROXY_VARIABLES = ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY",
                   "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY")


@pytest.fixture(autouse=True)
def no_proxy_variables(monkeypatch):
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


def verdict_of(prompt):
    return "Verdict: yes" if "flutter" in prompt else "Verdict: no"


class FakeServer:
    """A chat-completions server whose ``policy(prompt, n)`` picks each reply.

    ``policy`` gets the prompt and how many times it was asked before, and
    returns None (answer it) or ``(status, headers)``. ``delay`` seconds of
    work per request let requests overlap.
    """

    def __init__(self, policy=None, delay=0.02):
        self.policy = policy or (lambda prompt, n: None)
        self.delay = delay
        self.requests = []
        self.lock = threading.Lock()
        self.in_flight = 0
        self.most_in_flight = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                prompt = body["messages"][-1]["content"]
                with server.lock:
                    asked_before = sum(p == prompt for p, _ in server.requests)
                    server.requests.append((prompt, time.monotonic()))
                    server.in_flight += 1
                    server.most_in_flight = max(server.most_in_flight, server.in_flight)
                try:
                    time.sleep(server.delay)
                    refusal = server.policy(prompt, asked_before)
                finally:
                    # counted out before the reply is written: once the client has the
                    # reply its worker may send the next request, and a loaded machine may
                    # run that request's thread before this one ends (4 in flight seen
                    # with 3 workers when the count was taken after the write)
                    with server.lock:
                        server.in_flight -= 1
                if refusal is None:
                    status, headers = 200, {}
                    payload = {"choices": [{"message": {"role": "assistant",
                                                        "content": verdict_of(prompt)}}]}
                else:
                    status, headers = refusal
                    payload = {"error": {"message": f"refused with {status}"}}
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever,
                                       kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def asked(self, prompt):
        return sum(p == prompt for p, _ in self.requests)

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


@pytest.fixture
def make_server():
    servers = []

    def make(policy=None, delay=0.02):
        s = FakeServer(policy, delay)
        servers.append(s)
        return s

    yield make
    for s in servers:
        s.close()


def http_judge(server, **kw):
    kw.setdefault("timeout", 5.0)
    kw.setdefault("max_retries", 0)  # the run does the retrying
    return OpenAICompatibleJudge(server.base_url, "toy-model", api_key_env="RAGMETRICS_NO_KEY", **kw)


PROMPTS = [f"Query {i}: {'wing flutter' if i % 3 == 0 else 'boundary layer'}" for i in range(24)]


def test_all_items_judged_in_order_with_bounded_concurrency(make_server):
    server = make_server(delay=0.05)
    run = judge_all(http_judge(server), PROMPTS, max_workers=3, progress=False)
    assert run.ok and run.replies == [verdict_of(p) for p in PROMPTS]
    assert run.asked == len(PROMPTS) and run.retries == 0
    assert 2 <= server.most_in_flight <= 3


def test_repeated_prompts_are_asked_once(make_server):
    server = make_server()
    prompts = PROMPTS[:4] * 3
    run = judge_all(http_judge(server), prompts, progress=False)
    assert run.replies == [verdict_of(p) for p in prompts]
    assert len(server.requests) == 4


@pytest.mark.parametrize("retry_after", ["seconds", "http-date"])
def test_429_with_retry_after_pauses_every_worker_then_succeeds(make_server, retry_after):
    # an HTTP date has whole seconds: 2 s ahead means a wait of more than 1 s
    pause = 0.3 if retry_after == "seconds" else 1.0
    refused_at = []

    def policy(prompt, n):
        if prompt == PROMPTS[0] and n == 0:
            refused_at.append(time.monotonic())
            if retry_after == "seconds":
                return 429, {"Retry-After": "0.3"}
            return 429, {"Retry-After": email.utils.formatdate(time.time() + 2.0, usegmt=True)}
        return None

    server = make_server(policy, delay=0.05)
    run = judge_all(http_judge(server), PROMPTS[:12], max_workers=4, progress=False)
    assert run.ok and run.retries == 1 and run.asked == 13
    assert server.asked(PROMPTS[0]) == 2
    # the retry waited the pause the server asked for
    retried_at = [t for p, t in server.requests if p == PROMPTS[0]][1]
    assert retried_at - refused_at[0] >= pause * 0.95
    # and the other workers paused too: during the pause, at most the requests the other
    # three workers started before the 429 reached the client (without the shared pause,
    # the 11 other items would all be asked in it)
    during = [t for _, t in server.requests if refused_at[0] < t < refused_at[0] + pause * 0.9]
    assert len(during) <= 3
    assert run.waited >= pause * 0.95


def test_rate_limit_without_retry_after_backs_off_exponentially(make_server):
    def policy(prompt, n):
        return (429, {}) if n < 2 else None

    server = make_server(policy)
    start = time.monotonic()
    run = judge_all(http_judge(server), PROMPTS[:2], max_workers=2, backoff_base=0.1,
                    progress=False)
    assert run.ok and run.retries == 4
    # shared waits 0.1 then 0.2 (both items refused at once share each pause)
    assert 0.3 <= time.monotonic() - start < 3
    assert run.waited == pytest.approx(0.3, abs=0.1)


def test_retries_are_bounded_and_the_failure_says_why(make_server):
    server = make_server(lambda prompt, n: (429, {"Retry-After": "0"}) if "flutter" in prompt else None)
    run = judge_all(http_judge(server), PROMPTS[:6], max_retries=2, errors="collect",
                    progress=False)
    flutter = [i for i, p in enumerate(PROMPTS[:6]) if "flutter" in p]
    assert not run.ok
    assert [f.indices for f in run.failures] == [(i,) for i in flutter]
    assert all(f.error == "JudgeRateLimitError" and f.attempts == 3 for f in run.failures)
    assert all("429" in f.reason for f in run.failures)
    assert [run.replies[i] is None for i in range(6)] == [i in flutter for i in range(6)]
    assert server.asked(PROMPTS[0]) == 3


def test_total_wait_is_bounded(make_server):
    server = make_server(lambda prompt, n: (429, {"Retry-After": "0.4"}))
    start = time.monotonic()
    run = judge_all(http_judge(server), PROMPTS[:3], max_retries=50, max_total_wait=1.0,
                    errors="collect", progress=False)
    assert time.monotonic() - start < 3.0
    assert len(run.failures) == 3 and run.waited <= 1.0
    assert all("max_total_wait" in f.reason for f in run.failures)


def test_failures_raise_at_the_end_by_default(make_server):
    server = make_server(lambda prompt, n: (500, {}) if prompt == PROMPTS[1] else None)
    with pytest.raises(JudgeRunError) as info:
        judge_all(http_judge(server), PROMPTS[:5], max_retries=1, backoff_base=0.01,
                  progress=False)
    run = info.value.run
    assert isinstance(run, JudgingRun) and len(run.failures) == 1
    assert run.replies[0] == verdict_of(PROMPTS[0]) and run.replies[1] is None
    assert "4 of 5 items judged, 1 failed" in str(info.value)
    assert "JudgeServerError" in str(info.value)


def test_a_wrong_key_stops_the_run(make_server):
    server = make_server(lambda prompt, n: (401, {}), delay=0.01)
    run = judge_all(http_judge(server), PROMPTS, max_workers=2, errors="collect", progress=False)
    assert run.stopped and "JudgeAuthError" in run.stopped
    assert len(server.requests) <= 2  # the calls already in flight, no more
    assert sum(len(f.indices) for f in run.failures) == len(PROMPTS)
    assert {f.error for f in run.failures} <= {"JudgeAuthError", "NotAsked"}
    assert any(f.error == "NotAsked" and "JudgeAuthError" in f.reason for f in run.failures)


def test_a_run_stopped_half_way_resumes_without_asking_again(make_server, tmp_path):
    path = tmp_path / "replies.jsonl"
    refusing = {"on": True}

    def policy(prompt, n):
        return (401, {}) if refusing["on"] and int(prompt.split()[1][:-1]) >= 10 else None

    server = make_server(policy, delay=0.01)
    first = judge_all(CachedJudge(http_judge(server), path), PROMPTS, max_workers=1,
                      errors="collect", progress=False)
    answered = [p for p, r in zip(PROMPTS, first.replies) if r is not None]
    assert len(answered) == 10
    assert len(path.read_text().splitlines()) == 10
    before = len(server.requests)

    refusing["on"] = False
    second = judge_all(CachedJudge(http_judge(server), path), PROMPTS, max_workers=4,
                       progress=False)
    assert second.ok and second.cached == 10
    asked_again = [p for p, _ in server.requests[before:]]
    assert sorted(asked_again) == sorted(set(PROMPTS) - set(answered))
    assert second.replies == [verdict_of(p) for p in PROMPTS]


def test_an_interrupt_keeps_what_was_recorded(tmp_path):
    path = tmp_path / "replies.jsonl"
    calls = []

    def judge(prompt):
        calls.append(prompt)
        if len(calls) == 6:
            raise KeyboardInterrupt
        return verdict_of(prompt)

    with pytest.raises(KeyboardInterrupt):
        judge_all(CachedJudge(judge, path, model="toy"), PROMPTS, max_workers=1, progress=False)
    recorded = len(path.read_text().splitlines())
    assert recorded == 5
    calls.clear()
    run = judge_all(CachedJudge(lambda p: calls.append(p) or verdict_of(p), path, model="toy"),
                    PROMPTS, progress=False)
    assert run.ok and run.cached == 5 and len(calls) == len(PROMPTS) - 5


def test_concurrent_misses_all_reach_the_cache_file(make_server, tmp_path):
    server = make_server(delay=0.03)
    path = tmp_path / "replies.jsonl"
    run = judge_all(CachedJudge(http_judge(server), path), PROMPTS, max_workers=6, progress=False)
    assert run.ok
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert sorted(e["prompt"] for e in lines) == sorted(PROMPTS)
    replay = CachedJudge(None, path, model="toy-model", server=server.base_url)
    assert [replay.complete(p) for p in PROMPTS] == [verdict_of(p) for p in PROMPTS]


def test_parse_failures_are_reported_never_silent():
    def judge(prompt):
        return "I am not sure." if "7" in prompt else verdict_of(prompt)

    run = judge_all(judge, PROMPTS[:10], parse=parse_verdict, errors="collect", progress=False)
    assert run.values[0] is True and run.values[1] is False
    assert run.values[7] is None and run.replies[7] is None
    (failure,) = run.failures
    assert failure.indices == (7,) and "could not parse" in failure.reason
    assert "I am not sure." in failure.reason


def test_a_reply_that_is_not_text_is_a_failure():
    class Odd:
        def complete(self, prompt):
            return 3

    run = judge_all(Odd(), ["a"], errors="collect", progress=False)
    assert run.failures[0].error == "TypeError" and "not a string" in run.failures[0].reason
    run = judge_all(lambda p: 3, ["a"], errors="collect", progress=False)
    assert run.failures[0].error == "JudgeResponseError"


def test_no_output_when_progress_is_off(capsys):
    judge_all(verdict_of, PROMPTS[:3], progress=False)
    out, err = capsys.readouterr()
    assert out == "" and err == ""


def test_plain_progress_line_without_tqdm(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    judge_all(verdict_of, PROMPTS[:3], progress=True, description="cranfield")
    err = capsys.readouterr().err
    assert err.endswith("cranfield: 3/3 items\n")
    assert err.startswith("\rcranfield: 0/3 items")


def test_tqdm_bar_when_installed(capsys):
    pytest.importorskip("tqdm")
    judge_all(verdict_of, PROMPTS[:3], progress=True, description="cranfield")
    assert "3/3" in capsys.readouterr().err


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(max_workers=0), ValueError, "max_workers"),
    (dict(max_retries=-1), ValueError, "max_retries"),
    (dict(max_total_wait=float("inf")), ValueError, "max_total_wait"),
    (dict(backoff_base=-1), ValueError, "backoff_base"),
    (dict(errors="ignore"), ValueError, "errors"),
    (dict(parse="yes"), TypeError, "parse"),
])
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        judge_all(verdict_of, ["a"], progress=False, **kwargs)


def test_bad_prompts():
    with pytest.raises(TypeError, match="prompts must be a sequence"):
        judge_all(verdict_of, "one prompt")
    with pytest.raises(TypeError, match="at index 1"):
        judge_all(verdict_of, ["a", None])


def test_failure_reads_well_and_public_names():
    f = Failure((3, 9), "p", "JudgeServerError", "HTTP 503", 4)
    assert str(f) == "item 3, 9: JudgeServerError: HTTP 503 (4 attempts)"
    assert rm.judge_all is judge_all


def test_collected_failures_are_announced():
    with pytest.warns(RuntimeWarning, match="0 of 1 items judged, 1 failed"):
        judge_all(lambda p: 3, ["a"], errors="collect", progress=False)
