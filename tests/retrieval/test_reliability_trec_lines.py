"""The TREC readers bound a line, in constant memory (issue 23, item 8)."""

import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from ragmetrics_edu.retrieval import trec
from ragmetrics_edu.retrieval.trec import read_qrels, read_qrels_slowly, read_run, read_run_slowly

ROOT = Path(__file__).resolve().parents[2]
MB = 1 << 20


def write_long_line(path, n_bytes, start=b"q1 Q0 d1 1 1.0 "):
    """A file whose first line holds ``n_bytes`` bytes (no newline), written 1 MiB at a time."""
    with open(path, "wb") as f:
        f.write(start)
        left = n_bytes - len(start)
        while left > 0:
            f.write(b"x" * min(left, MB))
            left -= MB


@pytest.mark.parametrize("reader", [read_run, read_qrels, read_run_slowly, read_qrels_slowly])
def test_a_100_mb_line_is_refused_in_constant_memory(tmp_path, reader):
    path = tmp_path / "long.txt"
    write_long_line(path, 100 * MB)
    tracemalloc.start()
    try:
        with pytest.raises(ValueError) as info:
            reader(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        path.unlink()  # 100 MB: not kept among pytest's temporary folders
    message = str(info.value)
    assert f"{path}, line 1" in message and f"{trec.MAX_LINE_BYTES:,}" in message, message
    assert len(message) < 600
    assert peak < 8 * MB, f"peak {peak / MB:.1f} MiB while refusing a 100 MB line"


def test_the_long_line_is_named_by_its_number(tmp_path):
    path = tmp_path / "run.txt"
    with open(path, "wb") as f:
        f.write(b"q1 Q0 d1 1 1.0 t\nq1 Q0 d2 2 0.5 t\n")
        f.write(b"q2 Q0 " + b"d" * (trec.MAX_LINE_BYTES + 10) + b" 1 1.0 t\n")
    for reader in (read_run, read_run_slowly):
        with pytest.raises(ValueError, match=r"run\.txt, line 3: .*longer than"):
            reader(path)


@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_a_line_at_the_limit_reads_and_one_byte_more_does_not(tmp_path, kind, bom):
    """Both readers draw the line at the same place: MAX_LINE_BYTES bytes before the newline."""
    limit = trec.MAX_LINE_BYTES
    for extra, ok in ((0, True), (1, False)):
        head, tail = (b"q1 Q0 ", b" 1 2.5 t") if kind == "run" else (b"q1 0 ", b" 1")
        docid = b"d" * (limit + extra - len(head) - len(tail))
        path = tmp_path / f"{kind}{extra}.txt"
        path.write_bytes(bom + b"q0 Q0 a 1 1 t\n" * (kind == "run") + head + docid + tail + b"\n")
        fast, slow = (read_run, read_run_slowly) if kind == "run" else (read_qrels, read_qrels_slowly)
        for reader in (fast, slow):
            if ok:
                assert reader(path)["q1"] == {docid.decode(): 2.5 if kind == "run" else 1}
            else:
                with pytest.raises(ValueError, match="longer than"):
                    reader(path)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_evaluate_dev_zero_stops_with_a_message(tmp_path):
    """``python -m ragmetrics_edu evaluate /dev/zero run``: a clear error, quickly, little memory."""
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 d1 1 1.0 t\n")

    def limit_memory():  # the child may not eat the machine's memory if the bound breaks
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}
    for args in (["/dev/zero", str(run)], [str(run.with_name("q.txt")), "/dev/zero"]):
        run.with_name("q.txt").write_text("q1 0 d1 1\n")
        done = subprocess.run([sys.executable, "-m", "ragmetrics_edu", "evaluate", *args],
                              capture_output=True, text=True, timeout=60, env=env,
                              preexec_fn=limit_memory)
        assert done.returncode != 0
        assert "/dev/zero, line 1" in done.stderr and "longer than" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr
