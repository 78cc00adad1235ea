"""How the TREC readers' time grows with hostile inputs: at 8 times the size, about 8 times the time.

Each input of the readers' fuzz tests (``tests/retrieval/test_readers_fuzz.py``:
a long run of blanks, "\\r" line ends, a 4-million-digit almost-number, a long
id, many comments, ...) is read at two sizes, and each reading time is
divided by the time of work known to be linear on the same file (read it,
split it, compare every byte with NumPy), which cancels the CPU caches and the
load of the machine.  The ratio of those normalised times is printed: about 1
for a linear reader, 8 for a quadratic one.  Target: every ratio under 3.
The unit tests check only that each input is read at all within a budget a
quadratic reader could not meet (wall-clock ratios are not unit tests).

Usage::

    python benchmarks/bench_readers.py
"""

import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.retrieval.test_readers_fuzz import HOSTILE  # noqa: E402

MEMORY_BOUND = {"blanks", "long_id", "comments", "lone_cr"}
TARGET = 3.0


def best_time(read, path, repeat=3):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        try:
            read(path)
        except ValueError:
            pass
        best = min(best, time.perf_counter() - start)
    return best


def linear_reference(path):
    data = open(path, "rb").read()
    data.split()
    np.frombuffer(data, dtype=np.uint8) == 32  # noqa: B015


def main():
    worst = 0.0
    print(f"{'input':<12} {'size':>10} {'ratio (8x size)':>16}")
    with tempfile.TemporaryDirectory() as folder:
        for name, (read, make) in sorted(HOSTILE.items()):
            size = 4_000_000 if name in MEMORY_BOUND else 500_000
            small, large = Path(folder) / "small", Path(folder) / "large"
            small.write_bytes(make(size))
            large.write_bytes(make(8 * size))
            per_small = best_time(read, small, 7) / max(best_time(linear_reference, small, 7), 1e-4)
            per_large = best_time(read, large) / best_time(linear_reference, large)
            ratio = per_large / per_small
            worst = max(worst, ratio)
            print(f"{name:<12} {size:>10,} {ratio:>16.2f}")
    print(f"worst ratio {worst:.2f} (target: under {TARGET}; a quadratic reader gives 8)")
    return 0 if worst < TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
