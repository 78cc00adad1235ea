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
    assert entry["key"] == cache_key("counting-model", "a", parameters={"temperature": 0.0})
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
    keys = {cache_key("m", "p", parameters={"t": 0}), cache_key("m2", "p", parameters={"t": 0}),
            cache_key("m", "p ", parameters={"t": 0}), cache_key("m", "p", parameters={"t": 1})}
    assert len(keys) == 4
    # parameter order does not matter (canonical JSON)
    assert cache_key("m", "p", parameters={"a": 1, "b": 2}) == cache_key("m", "p", parameters={"b": 2, "a": 1})


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
    with pytest.warns(RuntimeWarning, match="line 2: not a cache entry"):
        assert len(CachedJudge(None, path, model="m")) == 1


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


# -- a file that survives a crash, replies UTF-8 cannot encode ---------------------------


def recorded_file(tmp_path, prompts=("a", "bb", "ccc")):
    path = tmp_path / "r.jsonl"
    cached = CachedJudge(Counting(), path)
    return path, [cached.complete(p) for p in prompts]


@pytest.mark.parametrize("cut", [1, 10, -2])
def test_torn_last_line_is_set_aside_and_the_rest_kept(tmp_path, cut):
    path, replies = recorded_file(tmp_path)
    whole = path.read_bytes()
    last_start = whole.rstrip(b"\n").rfind(b"\n") + 1
    torn = whole[:last_start + cut] if cut > 0 else whole[:cut]   # a write cut short
    path.write_bytes(torn)
    # before: ValueError "line 3: not a cache entry", and no reply could be replayed
    with pytest.warns(RuntimeWarning, match=r"r\.jsonl, line 3: a torn last line .* set aside "
                                            r"in r\.jsonl\.torn; the 2 entries before it are kept"):
        replay = CachedJudge(None, path, model="counting-model")
    assert len(replay) == 2
    assert [replay.complete(p) for p in ("a", "bb")] == replies[:2]
    assert path.read_bytes() == whole[:last_start]                     # cut from the cache
    assert (tmp_path / "r.jsonl.torn").read_bytes() == torn[last_start:] + b"\n"
    # recording goes on: the lost reply is asked again, on a line of its own
    again = CachedJudge(Counting(), path)
    assert again.complete("ccc") == replies[2] and again.misses == 1
    assert [json.loads(line)["prompt"] for line in path.read_text().splitlines()] == ["a", "bb", "ccc"]


def test_torn_line_cut_inside_a_multibyte_character(tmp_path):
    path = tmp_path / "r.jsonl"
    CachedJudge(FunctionJudge(lambda p: "Note: é", name="fr"), path).complete("x")
    CachedJudge(FunctionJudge(lambda p: "Note: éé", name="fr"), path).complete("y")
    data = path.read_bytes()
    path.write_bytes(data[:data.rindex("é".encode()) + 1])   # half of the last é
    with pytest.warns(RuntimeWarning, match="line 2: a torn last line"):
        replay = CachedJudge(None, path, model="fr")
    assert replay.complete("x") == "Note: é"


def test_a_damaged_line_in_the_middle_is_skipped_with_a_warning(tmp_path):
    path, _ = recorded_file(tmp_path)
    lines = path.read_bytes().split(b"\n")
    lines[1] = lines[1][:10]
    path.write_bytes(b"\n".join(lines))
    with pytest.warns(RuntimeWarning, match="line 2: not a cache entry"):
        assert len(CachedJudge(None, path, model="counting-model")) == 2


def test_a_last_line_without_newline_but_whole_is_kept(tmp_path):
    path, replies = recorded_file(tmp_path)
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    replay = CachedJudge(Counting(), path)
    assert [replay.complete(p) for p in ("a", "bb", "ccc")] == replies
    replay.complete("dddd")                                     # appended on a line of its own
    assert len(path.read_text().splitlines()) == 4
    assert len(CachedJudge(None, path, model="counting-model")) == 4


@pytest.mark.parametrize("reply", ["Score: 4 \ud800", "\udfff", "ok \U0001f600 \ud800"])
def test_reply_with_a_lone_surrogate_is_recorded_escaped(tmp_path, reply):
    path = tmp_path / "r.jsonl"
    cached = CachedJudge(FunctionJudge(lambda p: reply, name="odd"), path)
    # before: UnicodeEncodeError, and a 0-byte file left behind
    assert cached.complete("prompt \ud800") == reply
    text = path.read_text(encoding="utf-8")           # valid UTF-8: the surrogate is escaped
    assert "\\ud800" in text or "\\udfff" in text
    replay = CachedJudge(None, path, model="odd")
    assert replay.complete("prompt \ud800") == reply


def test_a_surrogate_pair_reads_back_as_its_character(tmp_path):
    # JSON cannot tell two escaped halves from the character they encode (documented)
    path = tmp_path / "r.jsonl"
    CachedJudge(FunctionJudge(lambda p: "\ud83d\ude00 \ud800", name="odd"), path).complete("x")
    assert CachedJudge(None, path, model="odd").complete("x") == "\U0001f600 \ud800"


def test_each_entry_is_one_write_of_one_line(tmp_path, monkeypatch):
    from ragmetrics_edu.judge import cache as cache_module

    writes, fsyncs = [], []

    class Spy:
        def __init__(self, f):
            self.f = f

        def __enter__(self):
            self.f.__enter__()
            return self

        def __exit__(self, *exc):
            return self.f.__exit__(*exc)

        def write(self, data):
            writes.append(bytes(data))
            return self.f.write(data)

        def __getattr__(self, name):
            return getattr(self.f, name)

    monkeypatch.setattr(cache_module, "open", lambda *a, **k: Spy(open(*a, **k)), raising=False)
    real_fsync = cache_module.os.fsync
    monkeypatch.setattr(cache_module.os, "fsync", lambda fd: (fsyncs.append(fd), real_fsync(fd)))
    cached = CachedJudge(Counting(), tmp_path / "r.jsonl")
    cached.complete("a")
    cached.complete("bb")
    assert len(writes) == 2 and len(fsyncs) == 2
    assert all(w.endswith(b"\n") and w.count(b"\n") == 1 for w in writes)
    assert [json.loads(w)["prompt"] for w in writes] == ["a", "bb"]


# -- the server is part of the key -----------------------------------------------------


class Served(Counting):
    """A judge at a server: same model name, replies that say which server answered."""

    def __init__(self, base_url):
        super().__init__()
        self.base_url = base_url

    def complete(self, prompt):
        self.calls += 1
        return f"from {self.base_url}"


def test_same_model_on_two_servers_keeps_two_sets_of_replies(tmp_path):
    path = tmp_path / "r.jsonl"
    one, two = Served("http://localhost:11434/v1"), Served("http://gpu-box:8000/v1")
    assert CachedJudge(one, path).complete("p") == "from http://localhost:11434/v1"
    # before: the second server's judge was handed the first server's reply
    assert CachedJudge(two, path).complete("p") == "from http://gpu-box:8000/v1"
    assert one.calls == two.calls == 1
    assert CachedJudge(Served("http://localhost:11434/v1"), path).complete("p").endswith("11434/v1")
    # replay-only: the file recorded two servers, so say which
    with pytest.raises(ValueError, match="from 2 servers .* pass server="):
        CachedJudge(None, path, model="counting-model")
    replay = CachedJudge(None, path, model="counting-model", server="http://gpu-box:8000/v1")
    assert replay.complete("p") == "from http://gpu-box:8000/v1"
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    assert {e["server"] for e in entries} == {"http://localhost:11434/v1", "http://gpu-box:8000/v1"}


def test_replay_only_reads_the_one_recorded_server(tmp_path):
    path = tmp_path / "r.jsonl"
    CachedJudge(Served("http://localhost:11434/v1"), path).complete("p")
    replay = CachedJudge(None, path, model="counting-model")
    assert replay.server == "http://localhost:11434/v1"
    assert replay.complete("p") == "from http://localhost:11434/v1"


def test_old_files_without_a_server_stay_readable(tmp_path):
    # a line as the previous version wrote it: no "server", key of (model, prompt, parameters)
    path = tmp_path / "old.jsonl"
    old_key = cache_key("counting-model", "p", parameters={"temperature": 0.0})
    path.write_text(json.dumps({"key": old_key, "model": "counting-model", "prompt": "p",
                                "parameters": {"temperature": 0.0}, "reply": "Score: 3"}) + "\n")
    # replay without a judge: as before
    assert CachedJudge(None, path, model="counting-model").complete("p") == "Score: 3"
    # a judge with a server: replayed, with a warning, never asked again
    judge = Served("http://localhost:11434/v1")
    cached = CachedJudge(judge, path)
    with pytest.warns(RuntimeWarning, match="recorded without a server address"):
        assert cached.complete("p") == "Score: 3"
    assert judge.calls == 0
    # the keys of judges without a server are those of the previous version
    assert cache_key("m", "p", parameters={"t": 1}) == cache_key("m", "p", parameters={"t": 1}, server=None)
    assert cache_key("m", "p", parameters={"t": 1}) != cache_key("m", "p", parameters={"t": 1}, server="http://x/v1")
