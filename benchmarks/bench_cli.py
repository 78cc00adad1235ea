"""Time ``python -m ragmetrics_edu evaluate`` against ir_measures' command line.

Both programs read the same generated TREC files from disk, in one run of this
script: a run of 20,000 queries x 100 documents (2,000,000 lines) with many
tied scores (two decimals), and qrels of about 18 judged documents per query
(grades 0-3).  ir_measures reads the files and scores them with pytrec_eval
(trec_eval's C code); ``ragmetrics_edu`` reads them with its checked readers
(:mod:`ragmetrics_edu.retrieval.trec`) and scores them with ``rm.evaluate``.

Usage::

    python benchmarks/bench_cli.py            # full size
    python benchmarks/bench_cli.py --quick    # 2,000 queries x 100
    python benchmarks/bench_cli.py --repeat 3 # best of 3 (default: 2)

What is measured, for each command, in a fresh child process: the wall time
(best of ``--repeat``) and the peak resident memory of that child
(``ru_maxrss`` of the children, read after each one exits; a child's peak
includes the Python interpreter and its imports).  Before the times are
printed, the means of both programs are checked equal (to 1e-4, the four
decimals ir_measures prints): the script stops if they are not.

Targets: ours at most 0.5x ir_measures' wall time and at most 1.0x its peak
memory.  The script prints the ratios; it never fails on them.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

OURS = ["P@10", "ndcg@10", "map", "mrr"]
THEIRS = ["P@10", "nDCG@10", "AP", "RR"]


def write_files(folder, n_queries, n_retrieved=100, n_judged=18, seed=0):
    """Write ``qrels.txt`` and ``run.txt`` into ``folder``; return their paths."""
    rng = np.random.default_rng(seed)
    n_docs = 1_000_000
    qids = np.array([f"q{i}" for i in range(n_queries)])
    # run: n_retrieved distinct documents per query, scores with two decimals
    # (many ties), written in descending score order with ranks 1..n
    docs = rng.integers(0, n_docs, size=(n_queries, n_retrieved * 2))
    run_lines, qrels_lines = [], []
    for q in range(n_queries):
        chosen = np.unique(docs[q])[:n_retrieved]
        rng.shuffle(chosen)
        scores = np.sort(np.round(rng.random(len(chosen)) * 10, 2))[::-1]
        run_lines.extend(
            f"{qids[q]} Q0 doc{d} {r} {s:.2f} bench\n"
            for r, (d, s) in enumerate(zip(chosen, scores), start=1)
        )
        # judge some retrieved and some unretrieved documents
        n = max(1, int(rng.poisson(n_judged)))
        judged = np.unique(np.concatenate([
            rng.choice(chosen, size=min(n // 2, len(chosen)), replace=False),
            rng.integers(0, n_docs, size=n - n // 2),
        ]))
        grades = rng.integers(0, 4, size=len(judged))
        qrels_lines.extend(f"{qids[q]} 0 doc{d} {g}\n" for d, g in zip(judged, grades))
    qrels_path = os.path.join(folder, "qrels.txt")
    run_path = os.path.join(folder, "run.txt")
    with open(qrels_path, "w") as handle:
        handle.writelines(qrels_lines)
    with open(run_path, "w") as handle:
        handle.writelines(run_lines)
    return qrels_path, run_path


def timed(command, repeat):
    """Best wall time of ``command`` over ``repeat`` runs, and its stdout."""
    best, out = float("inf"), ""
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        if done.returncode != 0:
            sys.exit(f"{' '.join(command)} failed:\n{done.stderr}")
        best = min(best, elapsed)
        out = done.stdout
    return best, out


def peak_of(command):
    """Peak RSS (MB) of one run of ``command``.

    A fresh wrapper process runs it and reads ``ru_maxrss`` of its children,
    so the figure is this one command's peak (the interpreter and its
    imports included), not the largest of everything run before.
    """
    wrapper = (
        "import resource, subprocess, sys; "
        "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    done = subprocess.run([sys.executable, "-c", wrapper, *command],
                          capture_output=True, text=True, check=True)
    return int(done.stdout) / 1024


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2,000 queries instead of 20,000")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each command (best time)")
    args = parser.parse_args()
    n_queries = 2_000 if args.quick else 20_000

    with tempfile.TemporaryDirectory() as folder:
        qrels, run = write_files(folder, n_queries)
        n_run = sum(1 for _ in open(run))
        n_qrels = sum(1 for _ in open(qrels))
        print(f"{n_queries} queries: run {n_run:,} lines, qrels {n_qrels:,} lines")
        ours = [sys.executable, "-m", "ragmetrics_edu", "evaluate", qrels, run,
                "--metrics", *OURS, "--format", "csv"]
        theirs = [sys.executable, "-m", "ir_measures", qrels, run, *THEIRS,
                  "--provider", "pytrec_eval", "--places", "6"]
        t_ours, out_ours = timed(ours, args.repeat)
        t_theirs, out_theirs = timed(theirs, args.repeat)
        m_ours, m_theirs = peak_of(ours), peak_of(theirs)

    mean_ours = dict(zip(OURS, map(float, out_ours.strip().splitlines()[-1].split(",")[1:])))
    mean_theirs = {}
    for line in out_theirs.strip().splitlines():
        name, value = line.split("\t")
        mean_theirs[name] = float(value)
    for a, b in zip(OURS, THEIRS):
        if abs(mean_ours[a] - mean_theirs[b]) > 1e-4:
            sys.exit(f"{a}: ragmetrics_edu {mean_ours[a]} != ir_measures {mean_theirs[b]}")
    print(f"means equal to 1e-4 ({', '.join(f'{a} {mean_ours[a]:.4f}' for a in OURS)})")
    print(f"{'':32s} {'wall s':>8s} {'peak MB':>8s}")
    print(f"{'ragmetrics_edu evaluate':32s} {t_ours:8.2f} {m_ours:8.0f}")
    print(f"{'ir_measures (pytrec_eval)':32s} {t_theirs:8.2f} {m_theirs:8.0f}")
    print(f"ratio ours / ir_measures: time {t_ours / t_theirs:.2f}x (target <= 0.5x), "
          f"peak memory {m_ours / m_theirs:.2f}x (target <= 1.0x)")


if __name__ == "__main__":
    main()
