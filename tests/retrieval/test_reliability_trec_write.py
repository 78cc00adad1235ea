"""write_run onto links, after a killed write, and its errors (issue 23, item 6)."""

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ragmetrics_edu.retrieval import trec
from ragmetrics_edu.retrieval.trec import read_run, write_run

ROOT = Path(__file__).resolve().parents[2]
RUN = {"q1": {"d1": 2.0, "d2": 1.0}}
NEW = {"q2": {"d9": 3.5}}

needs_links = pytest.mark.skipif(not hasattr(os, "symlink") or sys.platform == "win32",
                                 reason="symbolic links")


@needs_links
@pytest.mark.parametrize("relative", [False, True])
def test_a_symbolic_link_is_written_through(tmp_path, relative):
    (tmp_path / "data").mkdir()
    target = tmp_path / "data" / "run.txt"
    write_run(RUN, target)
    target.chmod(0o640)
    link = tmp_path / "link.txt"
    link.symlink_to(os.path.relpath(target, tmp_path) if relative else target)
    write_run(NEW, link)
    assert link.is_symlink()  # before: the link was replaced by a file
    assert read_run(target) == NEW == read_run(link)  # before: the target kept RUN
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["data", "link.txt", "run.txt"]


@needs_links
def test_a_chain_of_links_and_a_dangling_link(tmp_path):
    target = tmp_path / "run.txt"
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    second.symlink_to(target)  # dangling: the target does not exist yet
    first.symlink_to(second)
    write_run(RUN, first)
    assert first.is_symlink() and second.is_symlink()
    assert read_run(target) == RUN


def test_a_killed_write_leaves_no_temporary_file_after_the_next_write(tmp_path):
    path = tmp_path / "run.txt"
    write_run(RUN, path)
    killed = ("import os, sys\n"
              "from ragmetrics_edu.retrieval import trec\n"
              "os.fsync = lambda fd: os._exit(9)  # killed in the middle of the write\n"
              "trec.write_run({'q': {'d': 1.0}}, sys.argv[1])\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", killed, str(path)], env=env, timeout=60)
    assert done.returncode == 9
    left = [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert len(left) == 1  # the killed write's temporary file
    other = tmp_path / ".other.txt.0123abcd.tmp"  # another file's: not ours to remove
    other.write_text("x")
    (tmp_path / "run.txt.tmp").write_text("a user's own file")
    write_run(NEW, path)
    assert read_run(path) == NEW
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".other.txt.0123abcd.tmp", "run.txt", "run.txt.tmp"]


def test_errors_name_the_target_not_the_temporary_file(tmp_path, monkeypatch):
    missing = tmp_path / "no-such-folder" / "run.txt"
    with pytest.raises(FileNotFoundError) as info:
        write_run(RUN, missing)
    assert str(missing) in str(info.value) and ".tmp" not in str(info.value), str(info.value)

    path = tmp_path / "run.txt"

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(trec.os, "fsync", full)
    with pytest.raises(OSError) as info:
        write_run(RUN, path)
    assert info.value.errno == errno.ENOSPC
    assert str(path) in str(info.value) and ".tmp" not in str(info.value), str(info.value)
    assert not path.exists() and list(tmp_path.iterdir()) == []
