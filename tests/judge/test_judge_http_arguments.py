"""OpenAICompatibleJudge checks its numbers and extra_body when it is made (issue 34, 21-23).

The held-out probe: ``timeout=float("inf")`` (or 1e300) was accepted, then
every call failed with an OverflowError from the watchdog's timer, whose
thread printed a traceback; ``temperature=inf`` was sent as ``Infinity``,
``extra_body={"x": nan}`` as ``NaN`` (neither is JSON) and a set failed only
at ``complete()``; NumPy integers and floats were refused with a message
saying they were not integers.
"""

import json
import math
import threading

import numpy as np
import pytest

from ragmetrics_edu.judge import OpenAICompatibleJudge
MAX_SECONDS = 1e6   # ragmetrics_edu.judge.openai_compat.MAX_SECONDS, as documented

URL = "http://127.0.0.1:9/v1"


@pytest.mark.parametrize("name", ["timeout", "deadline", "backoff_base", "backoff_max"])
@pytest.mark.parametrize("value", [math.inf, 1e300, MAX_SECONDS * 2, np.float64(np.inf)])
def test_times_beyond_the_bound_are_refused_when_made(name, value):
    with pytest.raises(ValueError, match=rf"^{name} must be at most 1e\+06 seconds, got "):
        OpenAICompatibleJudge(URL, "m", **{name: value})


def test_the_longest_time_accepted_starts_a_timer():
    judge = OpenAICompatibleJudge(URL, "m", timeout=MAX_SECONDS, deadline=MAX_SECONDS)
    timer = threading.Timer(judge.timeout, lambda: None)
    timer.start()       # inf or 1e300 raised OverflowError here, in the watchdog
    timer.cancel()


@pytest.mark.parametrize("name", ["timeout", "deadline", "temperature", "backoff_max"])
def test_nan_is_refused(name):
    with pytest.raises(ValueError, match=rf"^{name} must be a number, got nan"):
        OpenAICompatibleJudge(URL, "m", **{name: math.nan})


@pytest.mark.parametrize("value", [math.inf, -math.inf, np.float32(np.inf)])
def test_an_infinite_temperature_is_refused(value):
    with pytest.raises(ValueError, match=r"^temperature must be (finite|non-negative), got "):
        OpenAICompatibleJudge(URL, "m", temperature=value)


@pytest.mark.parametrize("extra, field", [
    ({"x": math.nan}, "x"), ({"seed": 0, "x": math.inf}, "x"), ({"x": [1, -math.inf]}, "x"),
    ({"x": {1, 2}}, "x"), ({"x": object()}, "x"), ({"x": np.int64(3)}, "x"),
])
def test_extra_body_that_is_not_json_is_refused_when_made(extra, field):
    with pytest.raises(ValueError, match=rf"^extra_body\[{field!r}\] cannot be sent as JSON"):
        OpenAICompatibleJudge(URL, "m", extra_body=extra)


def test_extra_body_that_is_json_is_kept():
    extra = {"seed": 0, "top_p": 1.0, "stop": ["\n"], "options": {"num_ctx": 2048}}
    judge = OpenAICompatibleJudge(URL, "m", extra_body=extra)
    assert json.loads(json.dumps(judge._body("hi"), allow_nan=False))["options"] == {"num_ctx": 2048}


def test_numpy_numbers_are_accepted_as_python_numbers():
    judge = OpenAICompatibleJudge(
        URL, "m", timeout=np.float32(5), max_retries=np.int64(2), max_tokens=np.int64(20),
        temperature=np.float32(0.5), backoff_base=np.int32(1), backoff_max=np.float64(4),
        deadline=np.int64(30), max_reply_bytes=np.int64(1 << 20))
    assert (judge.timeout, judge.max_retries, judge.max_tokens, judge.temperature) == (5.0, 2, 20, 0.5)
    assert type(judge.max_retries) is int and type(judge.max_tokens) is int
    assert type(judge.timeout) is float and type(judge.max_reply_bytes) is int
    # sent as plain JSON numbers
    assert json.dumps(judge._body("hi"))


@pytest.mark.parametrize("name, value, message", [
    ("max_retries", np.float64(2.0), "max_retries must be a non-negative integer"),
    ("max_retries", np.int64(-1), "max_retries must be a non-negative integer"),
    ("max_tokens", np.bool_(True), "max_tokens must be a positive integer or None"),
    ("max_tokens", 0, "max_tokens must be a positive integer or None"),
    ("max_reply_bytes", 2.5, "max_reply_bytes must be a positive integer"),
])
def test_integers_that_are_not_are_refused_naming_the_argument(name, value, message):
    with pytest.raises(ValueError, match=f"^{message}, got "):
        OpenAICompatibleJudge(URL, "m", **{name: value})


def test_the_documented_bound():
    from ragmetrics_edu.judge import openai_compat
    assert openai_compat.MAX_SECONDS == MAX_SECONDS
