"""CachedJudge never modifies a file that is not its own, and never reads without a bound.

Issue 34's held-out probe: opening a CachedJudge on another program's JSONL
file (``{"id": 1}\\n{"id": 2}`` with no final newline) cut its last line and
moved it to ``.torn``; on ``/dev/zero`` or ``/dev/urandom`` it read until the
memory ran out, and on a named pipe with no writer it hung.
"""

import os
import subprocess
import sys
import warnings

import pytest

from ragmetrics_edu.judge import CachedJudge
from ragmetrics_edu.judge import cache as cache_module


def toy(prompt):
    return f"Score: {len(prompt)}"


@pytest.mark.parametrize("content", [
    b'{"id": 1}\n{"id": 2}',                 # the probe's file: no final newline
    b'{"id": 1}\n{"id": 2}\n',
    b"id,score\n1,0.5\n2,0.7",               # not JSON at all
    b"just some text",
    b'[1, 2, 3]\n{"key": 1}',                # "key" without "reply", last line torn-looking
])
def test_a_file_that_is_not_a_cache_is_refused_and_left_as_it_is(tmp_path, content):
    path = tmp_path / "answers.jsonl"
    path.write_bytes(content)
    for inner in (toy, None):
        with warnings.catch_warnings():
            warnings.simplefilter("error")   # no warning either: a clear error
            with pytest.raises(ValueError, match=r"answers\.jsonl, line 1: not a cache entry.*"
                                                 r"not a reply cache"):
                CachedJudge(inner, path, model="toy")
    assert path.read_bytes() == content
    assert not (tmp_path / "answers.jsonl.torn").exists()


def test_a_cache_whose_only_line_is_torn_is_still_repaired(tmp_path):
    """The first write cut short: the line begins as every entry does, so it is set aside."""
    path = tmp_path / "r.jsonl"
    CachedJudge(toy, path, model="toy").complete("abc")
    whole = path.read_bytes()
    path.write_bytes(whole[:30])
    with pytest.warns(RuntimeWarning, match=r"line 1: a torn last line"):
        judge = CachedJudge(toy, path, model="toy")
    assert len(judge) == 0 and path.read_bytes() == b""
    assert (tmp_path / "r.jsonl.torn").read_bytes() == whole[:30] + b"\n"


def test_a_cache_with_a_foreign_last_line_keeps_its_entries(tmp_path):
    path = tmp_path / "r.jsonl"
    CachedJudge(toy, path, model="toy").complete("abc")
    with open(path, "ab") as f:
        f.write(b"garbage")
    with pytest.warns(RuntimeWarning, match=r"line 2: a torn last line"):
        judge = CachedJudge(None, path, model="toy")
    assert judge.complete("abc") == "Score: 3"


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_a_device_is_refused(device):
    if not os.path.exists(device):
        pytest.skip(f"no {device} here")
    with pytest.raises(ValueError, match=f"{device} is a character device, not a cache file"):
        CachedJudge(toy, device, model="toy")


def test_a_directory_is_refused(tmp_path):
    with pytest.raises(ValueError, match="is a directory, not a cache file"):
        CachedJudge(toy, tmp_path, model="toy")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_is_refused_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    code = ("from ragmetrics_edu.judge import CachedJudge\n"
            "try:\n"
            f"    CachedJudge(lambda p: 'x', {str(fifo)!r}, model='toy')\n"
            "except ValueError as exc:\n"
            "    print(exc)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert "is a named pipe, not a cache file" in done.stdout, done.stderr


def test_a_line_longer_than_the_bound_is_skipped_unread(tmp_path, monkeypatch):
    monkeypatch.setattr(cache_module, "MAX_LINE_BYTES", 200)
    path = tmp_path / "r.jsonl"
    judge = CachedJudge(toy, path, model="toy")
    judge.complete("a")
    judge.complete("b" * 500)      # its line is longer than 200 bytes
    judge.complete("c")
    with pytest.warns(RuntimeWarning, match=r"line 2: not a cache entry .* at most 200 bytes"):
        replay = CachedJudge(None, path, model="toy")
    assert len(replay) == 2 and replay.complete("c") == "Score: 1"
    assert "b" * 500 not in replay


def test_a_single_line_longer_than_the_bound_is_skipped(tmp_path, monkeypatch):
    """A file of one line longer than the bound (as /dev/zero would be) is never held whole."""
    monkeypatch.setattr(cache_module, "MAX_LINE_BYTES", 1 << 16)
    path = tmp_path / "r.jsonl"
    path.write_bytes(b'{"key": "' + b"0" * (1 << 22) + b'"}\n')
    with pytest.warns(RuntimeWarning, match="line 1: not a cache entry"):
        assert len(CachedJudge(None, path, model="toy")) == 0
