"""CachedJudge: record once, replay offline, deterministically."""

import json

import pytest

from ragmetrics_edu.judge import CachedJudge, CacheMissError, FunctionJudge, cache_key, grade


class Counting:
    """A judge that counts its calls and answers by prompt length."""

    model = "counting-model"

    def __init__(self, temperature=0.0):
        self.calls = 0
        self.parameters = {"temperature": temperature}

    def complete(self, prompt):
        self.calls += 1
        return f"Score: {1 + len(prompt) % 5}"


def test_record_then_replay(tmp_path):
    path = tmp_path / "sub" / "replies.jsonl"
    inner = Counting()
    cached = CachedJudge(inner, path)
    first = [cached.complete(p) for p in ("a", "bb", "a")]
    assert inner.calls == 2 and cached.hits == 1 and cached.misses == 2
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2
    entry = json.loads(lines[0])
    assert entry["prompt"] == "a" and entry["model"] == "counting-model"
    assert entry["key"] == cache_key("counting-model", "a", {"temperature": 0.0})
    # a new process: replay only, no inner judge, same answers
    replay = CachedJudge(None, path, model="counting-model", parameters={"temperature": 0.0})
    assert [replay.complete(p) for p in ("a", "bb", "a")] == first
    assert "a" in replay and "zzz" not in replay
    with pytest.raises(CacheMissError, match="replay-only"):
        replay.complete("zzz")


def test_replay_only_with_inner_never_calls_it(tmp_path):
    inner = Counting()
    cached = CachedJudge(inner, tmp_path / "r.jsonl", replay_only=True)
    with pytest.raises(CacheMissError):
        cached.complete("new prompt")
    assert inner.calls == 0
    assert not (tmp_path / "r.jsonl").exists()


def test_key_depends_on_model_prompt_and_parameters(tmp_path):
    path = tmp_path / "r.jsonl"
    a = Counting(temperature=0.0)
    CachedJudge(a, path).complete("p")
    b = Counting(temperature=0.7)          # other parameters: asked again
    CachedJudge(b, path).complete("p")
    assert b.calls == 1
    c = Counting(temperature=0.0)          # same as a: replayed
    CachedJudge(c, path).complete("p")
    assert c.calls == 0
    keys = {cache_key("m", "p", {"t": 0}), cache_key("m2", "p", {"t": 0}),
            cache_key("m", "p ", {"t": 0}), cache_key("m", "p", {"t": 1})}
    assert len(keys) == 4
    # parameter order does not matter (canonical JSON)
    assert cache_key("m", "p", {"a": 1, "b": 2}) == cache_key("m", "p", {"b": 2, "a": 1})


def test_works_through_grade_and_with_callables(tmp_path):
    calls = []

    def fn(prompt):
        calls.append(prompt)
        return "Score: 5"

    cached = CachedJudge(FunctionJudge(fn, name="fn"), tmp_path / "r.jsonl")
    g1 = grade(cached, "fluency", "Fine text.")
    g2 = grade(cached, "fluency", "Fine text.")
    assert g1.score == g2.score == 5 and len(calls) == 1


def test_replay_needs_model(tmp_path):
    with pytest.raises(ValueError, match="model="):
        CachedJudge(None, tmp_path / "r.jsonl")


def test_corrupt_file_is_reported(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"key": "k", "reply": "Score: 1"}\nnot json\n', encoding="utf-8")
    with pytest.raises(ValueError, match="line 2"):
        CachedJudge(None, path, model="m")
