"""How long the notebooks take to test, and how fast a widget reacts.

1. The whole nbval run of both folders (``pytest --nbval --nbval-current-env
   --nbval-sanitize-with tests/nbval_sanitize.cfg notebooks solutions``),
   wall-clock; target < 120 s on a 2-core machine.
2. A widget update, driven from Python with matplotlib's Agg backend: one
   control changed -> numbers recomputed -> tables rewritten -> figure artists
   updated and the figure rendered (Agg draw + PNG for the Output widget, what
   the inline backend shows).  Median over many updates; target < 50 ms.

Usage::

    python benchmarks/bench_notebooks.py                # both
    python benchmarks/bench_notebooks.py --skip-nbval   # widgets only
    python benchmarks/bench_notebooks.py --repeat 101
"""

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NBVAL_TARGET_S = 120.0
UPDATE_TARGET_MS = 50.0


def bench_nbval(folders):
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval",
           "--nbval-current-env", "--nbval-sanitize-with", "tests/nbval_sanitize.cfg",
           *folders]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    summary = (proc.stdout.strip().splitlines() or ["(no output)"])[-1]
    return elapsed, proc.returncode, summary


def _median_ms(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return statistics.median(times), times[int(0.9 * (len(times) - 1))]


def widget_cases():
    """(name, explorer, function that changes one control) for each widget."""
    from ragmetrics_edu.course import widgets as W

    cases = []
    pr = W.precision_recall_explorer([1, 0, 1, 0, 1, 0, 0, 1, 0, 1], n_relevant=10, k=5)
    cases.append(("precision_recall_explorer (10 ranks)", pr,
                  lambda: setattr(pr.toggles[3], "value", not pr.toggles[3].value)))
    ap = W.average_precision_explorer([[1, 0, 1, 0, 1, 0, 0, 1], [0, 1, 1, 0, 0, 0, 1, 0],
                                       [0, 0, 0, 0, 1, 0, 0, 1]], n_relevants=[4, 4, 2])
    cases.append(("average_precision_explorer (3 queries x 8)", ap,
                  lambda: setattr(ap.toggles[1][2], "value", not ap.toggles[1][2].value)))
    nd = W.ndcg_explorer([5, 3, 5, 0, 2], unretrieved=[5], k=3)
    cases.append(("ndcg_explorer (5 ranks)", nd,
                  lambda: setattr(nd.sliders[3], "value", (nd.sliders[3].value + 1) % 6)))
    return cases


def bench_widgets(repeat):
    rows = []
    for name, explorer, step in widget_cases():
        step()  # warm up (first draw caches fonts)
        before = explorer.view.n_renders
        med, p90 = _median_ms(step, repeat)
        if explorer.view.n_renders - before != repeat:
            raise RuntimeError(f"{name}: expected one redraw per update")
        draw_med, _ = _median_ms(explorer.view.draw, max(5, repeat // 3))
        rows.append((name, med, p90, draw_med))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skip-nbval", action="store_true")
    parser.add_argument("--repeat", type=int, default=51, help="widget updates to time")
    parser.add_argument("folders", nargs="*", default=["notebooks", "solutions"])
    args = parser.parse_args(argv)

    os.environ.setdefault("MPLBACKEND", "Agg")
    import matplotlib

    print(f"machine: {os.cpu_count()} cores, matplotlib backend {matplotlib.get_backend()}")
    print()
    print(f"widget update: one control changed -> numbers -> redrawn figure ({args.repeat} updates)")
    print(f"  {'widget':<46}{'median ms':>10}{'p90 ms':>9}{'Agg draw':>10}{'vs target':>11}")
    ok = True
    for name, med, p90, draw in bench_widgets(args.repeat):
        ok &= med < UPDATE_TARGET_MS
        print(f"  {name:<46}{med:>10.1f}{p90:>9.1f}{draw:>10.1f}"
              f"{med / UPDATE_TARGET_MS:>10.2f}x")
    print(f"  target: median < {UPDATE_TARGET_MS:.0f} ms (ratio < 1)")

    if not args.skip_nbval:
        print()
        elapsed, rc, summary = bench_nbval(args.folders)
        ok &= rc == 0 and elapsed < NBVAL_TARGET_S
        print(f"nbval over {' + '.join(args.folders)}: {elapsed:.1f} s "
              f"({elapsed / NBVAL_TARGET_S:.2f}x the {NBVAL_TARGET_S:.0f} s target); "
              f"pytest: {summary}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
