"""A torn line never locks the reply cache, and a failed write never costs a reply (issue 23, item 4)."""

import errno
import json
import os
import subprocess
import warnings

import pytest

from ragmetrics_edu.judge import CacheMissError, CachedJudge
from ragmetrics_edu.judge import cache as cache_module


class Counting:
    """A judge that counts its calls and replies with the prompt's length."""

    model = "counting-model"
    parameters = {"temperature": 0.0}

    def __init__(self):
        self.calls = []

    def complete(self, prompt):
        self.calls.append(prompt)
        return f"Score: {len(prompt)}"


class _FullDiskFile:
    """A file whose writes stop after ``room`` bytes, as on a full disk."""

    def __init__(self, f, room):
        self._f, self._room = f, room

    def write(self, data):
        if self._room <= 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        n = min(len(data), self._room)
        self._room -= n
        return self._f.write(data[:n])

    def __getattr__(self, name):
        return getattr(self._f, name)

    def __enter__(self):
        self._f.__enter__()
        return self

    def __exit__(self, *exc):
        return self._f.__exit__(*exc)


def full_disk(monkeypatch, room):
    """Make the cache module's writes stop after ``room`` bytes per open (a disk that is full)."""
    real_open = open

    def fake_open(file, mode="r", *args, **kwargs):
        f = real_open(file, mode, *args, **kwargs)
        return _FullDiskFile(f, room) if any(c in mode for c in "wa+") else f

    monkeypatch.setattr(cache_module, "open", fake_open, raising=False)


def prompts_in(path):
    out = []
    for line in path.read_bytes().split(b"\n"):
        try:
            out.append(json.loads(line)["prompt"])
        except (ValueError, KeyError):
            out.append(None)
    return out


def test_torn_write_then_append_by_another_judge_then_open(tmp_path, monkeypatch):
    """The issue's reproduction: torn write by one judge, append by another, open again."""
    path = tmp_path / "r.jsonl"
    first, second = Counting(), Counting()
    a, b = CachedJudge(first, path), CachedJudge(second, path)
    assert a.complete("a") == "Score: 1"
    full_disk(monkeypatch, room=25)  # the next line stops after 25 bytes
    with pytest.warns(RuntimeWarning, match=r"r\.jsonl.*kept in memory") as caught:
        assert a.complete("bb") == "Score: 2"  # before: OSError, and the reply lost
    assert len([w for w in caught if "kept in memory" in str(w.message)]) == 1
    assert a.complete("bb") == "Score: 2" and first.calls == ["a", "bb"]  # not asked again
    monkeypatch.undo()
    assert b.complete("ccc") == "Score: 3"  # appended on a fresh line, after the torn one
    assert prompts_in(path)[:3] == ["a", None, "ccc"]
    # before: ValueError "line 2: not a cache entry"
    with pytest.warns(RuntimeWarning, match=r"r\.jsonl, line 2\b.*not a cache entry"):
        replay = CachedJudge(None, path, model="counting-model")
    assert replay.complete("a") == "Score: 1" and replay.complete("ccc") == "Score: 3"


def test_failed_writes_warn_once_and_keep_every_reply(tmp_path, monkeypatch):
    path = tmp_path / "r.jsonl"
    inner = Counting()
    judge = CachedJudge(inner, path)
    full_disk(monkeypatch, room=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        replies = [judge.complete(p) for p in ("a", "bb", "ccc", "a", "bb")]
    assert replies == ["Score: 1", "Score: 2", "Score: 3", "Score: 1", "Score: 2"]
    assert inner.calls == ["a", "bb", "ccc"]
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1 and str(path) in messages[0], messages
    monkeypatch.undo()
    judge.complete("dddd")  # the disk has room again: recording goes on
    assert prompts_in(path)[-2] == "dddd"


@pytest.mark.parametrize("damage", ["cut", "garbage", "not-an-entry", "bad-utf8"])
def test_invalid_lines_in_the_middle_are_set_aside_with_a_warning(tmp_path, damage):
    path = tmp_path / "r.jsonl"
    judge = CachedJudge(Counting(), path)
    for p in ("a", "bb", "ccc", "dddd", "eeeee"):
        judge.complete(p)
    lines = path.read_bytes().split(b"\n")
    bad = {"cut": lines[1][:17], "garbage": b"\x00\x01 not json",
           "not-an-entry": b'{"prompt": "x"}', "bad-utf8": b'{"key": "\xff", "reply": "x"}'}[damage]
    lines[1] = bad
    lines[3] = lines[3][:9]
    path.write_bytes(b"\n".join(lines))
    with pytest.warns(RuntimeWarning) as caught:
        replay = CachedJudge(None, path, model="counting-model")
    text = " ".join(str(w.message) for w in caught)
    assert f"{path}, lines 2, 4:" in text and "2 lines skipped" in text, text
    assert len(replay) == 3
    assert [replay.complete(p) for p in ("a", "ccc", "eeeee")] == ["Score: 1", "Score: 3", "Score: 5"]


def _mount_tmpfs(where, size):
    """Mount a small tmpfs at ``where``; False when this machine does not allow it."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return False
    try:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                              capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def test_a_real_full_disk(tmp_path):
    """On a 64 kB tmpfs (only where one can be mounted): every reply is kept, the file reopens."""
    where = tmp_path / "small"
    where.mkdir()
    if not _mount_tmpfs(where, "64k"):
        pytest.skip("cannot mount a tmpfs here")
    try:
        path = where / "r.jsonl"
        inner = Counting()
        judge = CachedJudge(inner, path)
        prompts = [f"{i:04d}" + "x" * 3000 for i in range(40)]  # about 120 kB of entries
        with pytest.warns(RuntimeWarning, match="kept in memory"):
            replies = [judge.complete(p) for p in prompts]
        assert replies == [f"Score: {len(p)}" for p in prompts]
        assert [judge.complete(p) for p in prompts] == replies and len(inner.calls) == 40
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            replay = CachedJudge(None, path, model="counting-model")  # opens: no exception
        assert 0 < len(replay) < 40
        assert all(replay.complete(p) == judge.complete(p) for p in prompts if p in replay)
    finally:
        subprocess.run(["umount", str(where)], capture_output=True, timeout=10)


@pytest.mark.parametrize("reply, kind", [
    (4, "a number"), (4.5, "a number"), (True, "a boolean"), (None, "null"),
    (["Score: 4"], "an array"), ({"content": "Score: 4"}, "an object"),
])
@pytest.mark.parametrize("line", [1, 2, 3])
def test_an_entry_whose_reply_is_not_a_string_is_refused_with_file_and_line(tmp_path, reply,
                                                                              kind, line):
    """Issue 34: a number, a list or an object as the reply was replayed as a success."""
    path = tmp_path / "r.jsonl"
    judge = CachedJudge(Counting(), path)
    for p in ("a", "bb", "ccc"):
        judge.complete(p)
    entries = [json.loads(x) for x in path.read_text().splitlines()]
    entries[line - 1]["reply"] = reply
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    with pytest.warns(RuntimeWarning) as caught:
        replay = CachedJudge(None, path, model="counting-model")
    text = " ".join(str(w.message) for w in caught)
    assert f"{path}, line {line}:" in text and f"reply is {kind}, not a string" in text, text
    assert "refused" in text, text
    prompt = ("a", "bb", "ccc")[line - 1]
    assert prompt not in replay and len(replay) == 2
    with pytest.raises(CacheMissError):
        replay.complete(prompt)
    # recording again asks the judge, and the new entry is replayed from then on
    again = Counting()
    with pytest.warns(RuntimeWarning, match=f"line {line}:"):
        assert CachedJudge(again, path).complete(prompt) == f"Score: {len(prompt)}"
    assert again.calls == [prompt]
    with pytest.warns(RuntimeWarning, match=f"line {line}:"):
        assert CachedJudge(None, path, model="counting-model").complete(prompt) == \
            f"Score: {len(prompt)}"


def test_a_key_that_is_not_a_string_is_refused(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"key": 12, "model": "m", "reply": "Score: 1"}\n')
    with pytest.warns(RuntimeWarning, match=r"line 1: .*key is a number, not a string"):
        assert len(CachedJudge(None, path, model="m")) == 0
