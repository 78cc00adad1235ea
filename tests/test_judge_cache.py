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


def record(path, temperature, prompts=("a", "bb")):
    cached = CachedJudge(Counting(temperature), path)
    return [cached.complete(p) for p in prompts]


def test_replay_reads_the_recorded_parameters_from_the_file(tmp_path):
    # recorded with {"temperature": 0.0}; replaying with model= only used to key on {} and miss
    path = tmp_path / "r.jsonl"
    first = record(path, 0.0)
    replay = CachedJudge(None, path, model="counting-model")
    assert replay.parameters == {"temperature": 0.0}
    assert [replay.complete(p) for p in ("a", "bb")] == first
    assert replay.hits == 2


def test_replay_with_several_recorded_parameter_sets_asks_which(tmp_path):
    path = tmp_path / "r.jsonl"
    record(path, 0.0)
    record(path, 0.7)
    with pytest.raises(ValueError, match="parameters=") as info:
        CachedJudge(None, path, model="counting-model")
    message = str(info.value)
    assert '{"temperature":0.0}' in message and '{"temperature":0.7}' in message
    # naming one of them replays it
    replay = CachedJudge(None, path, model="counting-model", parameters={"temperature": 0.7})
    assert replay.complete("a") == "Score: 2"


def test_miss_says_when_other_parameters_were_recorded(tmp_path):
    path = tmp_path / "r.jsonl"
    record(path, 0.0)
    replay = CachedJudge(None, path, model="counting-model", parameters={"temperature": 0.5})
    with pytest.raises(CacheMissError) as info:
        replay.complete("a")
    message = str(info.value)
    assert "other parameters" in message and '{"temperature":0.0}' in message
    assert '{"temperature":0.5}' in message


def test_miss_says_when_the_model_was_never_recorded(tmp_path):
    path = tmp_path / "r.jsonl"
    record(path, 0.0)
    with pytest.raises(CacheMissError, match="no reply of 'other-model' at all, only of 'counting-model'"):
        CachedJudge(None, path, model="other-model").complete("a")


def test_plain_miss_has_no_misleading_note(tmp_path):
    path = tmp_path / "r.jsonl"
    record(path, 0.0)
    with pytest.raises(CacheMissError) as info:
        CachedJudge(None, path, model="counting-model").complete("never asked")
    assert "note" not in str(info.value)


def test_replay_of_a_missing_file_uses_empty_parameters(tmp_path):
    replay = CachedJudge(None, tmp_path / "none.jsonl", model="m")
    assert replay.parameters == {} and len(replay) == 0


@pytest.mark.parametrize("make_inner", [
    lambda: (lambda prompt: "Score: 1"),
    lambda: FunctionJudge(lambda prompt: "Score: 1"),
])
def test_lambda_needs_a_name(tmp_path, make_inner):
    with pytest.raises(ValueError, match="needs model= for a lambda") as info:
        CachedJudge(make_inner(), tmp_path / "r.jsonl")
    assert "<lambda>" in str(info.value)


def test_named_lambdas_keep_their_own_replies(tmp_path):
    path = tmp_path / "r.jsonl"
    one = CachedJudge(lambda prompt: "Score: 1", path, model="always-1")
    five = CachedJudge(lambda prompt: "Score: 5", path, model="always-5")
    assert one.complete("p") == "Score: 1"
    assert five.complete("p") == "Score: 5"   # not the other lambda's reply
    assert CachedJudge(FunctionJudge(lambda p: "x", name="named"), path).model == "named"
