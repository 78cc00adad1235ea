"""Time ``python -m ragmetrics_edu evaluate`` against ir_measures' command line.

Both programs read the same generated TREC files from disk, in one run of this
script: a run of 20,000 queries x 100 documents (2,000,000 lines) with many
tied scores (two decimals), and qrels of about 18 judged documents per query
(grades 0-3).  ir_measures reads the files and scores them with pytrec_eval
(trec_eval's C code); ``ragmetrics_edu`` reads the run as a stream of columns,
query by query (:mod:`ragmetrics_edu.retrieval.batch._columns`), and scores
each block of queries as it is read.  Then ours alone on a run of the same
20,000 queries x 1,000 documents (20,000,000 lines, TREC's usual depth),
made here too: its peak memory must be no more than on the 2,000,000-line
run (memory bounded by the largest query, not by the run), and its time is
printed.

Usage::

    python benchmarks/bench_cli.py            # full size, 2M and 20M lines
    python benchmarks/bench_cli.py --quick    # 2,000 queries x 100 (and x 1,000)
    python benchmarks/bench_cli.py --repeat 3 # best of 3 (default: 2)
    python benchmarks/bench_cli.py --no-20m   # the 2M comparison only

What is measured, for each command, in a fresh child process: the wall time
(best of ``--repeat``) and the peak resident memory of that child
(``ru_maxrss`` of the children, read after each one exits; a child's peak
includes the Python interpreter and its imports).  The runs of the two
programs alternate (ours, theirs, ours, ...), so that a busy machine slows
both alike; the load average is printed.  Before the times are printed, the
means of both programs are checked equal (to 1e-4, the four decimals
ir_measures prints): the script stops if they are not.

Targets: ours at most 0.25x ir_measures' wall time and at most 0.5x its peak
memory on the 2M-line run; on the 20M-line run, peak memory no more than on
the 2M-line one.  The script prints the ratios; it never fails on them.
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


def write_files(folder, n_queries, n_retrieved=100, n_judged=18, seed=0, qrels=True,
                name="run.txt"):
    """Write ``qrels.txt`` (if ``qrels``) and a run into ``folder``; return their paths.

    The run has ``n_retrieved`` distinct documents per query, scores with two
    decimals (many ties), written best first with ranks 1..n; the qrels
    judge some retrieved and some unretrieved documents of each query (the
    same ones whatever ``n_retrieved``: the first 100 of a query's documents
    are drawn as for a run of 100).
    """
    rng = np.random.default_rng(seed)
    deeper = np.random.default_rng(seed + 1)  # (the first 100 of each query stay the same)
    n_docs = 1_000_000
    qrels_path = os.path.join(folder, "qrels.txt")
    run_path = os.path.join(folder, name)
    with open(run_path, "w") as run_file, \
            open(qrels_path if qrels else os.devnull, "w") as qrels_file:
        for q in range(n_queries):
            docs = rng.integers(0, n_docs, size=200)
            chosen = np.unique(docs)[:100]
            rng.shuffle(chosen)
            scores = np.sort(np.round(rng.random(len(chosen)) * 10, 2))[::-1]
            n = max(1, int(rng.poisson(n_judged)))
            judged = np.unique(np.concatenate([
                rng.choice(chosen, size=min(n // 2, len(chosen)), replace=False),
                rng.integers(0, n_docs, size=n - n // 2),
            ]))
            grades = rng.integers(0, 4, size=len(judged))
            qrels_file.write("".join(f"q{q} 0 doc{d} {g}\n" for d, g in zip(judged, grades)))
            if n_retrieved > 100:  # deeper: more documents, scores below the first 100's
                extra = np.setdiff1d(deeper.integers(0, n_docs, size=3 * n_retrieved), chosen)
                extra = deeper.permutation(extra)[:n_retrieved - len(chosen)]
                chosen = np.concatenate([chosen, extra])
                scores = np.concatenate([scores, np.sort(np.round(
                    deeper.random(len(extra)) * scores[-1], 2))[::-1]])
            run_file.write("".join(
                f"q{q} Q0 doc{d} {r} {s:.2f} bench\n"
                for r, (d, s) in enumerate(zip(chosen.tolist(), scores.tolist()), start=1)))
    return qrels_path, run_path


def timed(command):
    """Wall time of one run of ``command``, and its stdout."""
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{done.stderr}")
    return elapsed, done.stdout


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


def ours_command(qrels, run):
    return [sys.executable, "-m", "ragmetrics_edu", "evaluate", qrels, run,
            "--metrics", *OURS, "--format", "csv"]


def load():
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2,000 queries instead of 20,000")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each command (best time)")
    parser.add_argument("--no-20m", action="store_true", help="skip the 20M-line run")
    args = parser.parse_args()
    n_queries = 2_000 if args.quick else 20_000

    with tempfile.TemporaryDirectory() as folder:
        qrels, run = write_files(folder, n_queries)
        n_run = sum(1 for _ in open(run))
        n_qrels = sum(1 for _ in open(qrels))
        print(f"{n_queries} queries: run {n_run:,} lines, qrels {n_qrels:,} lines")
        ours = ours_command(qrels, run)
        theirs = [sys.executable, "-m", "ir_measures", qrels, run, *THEIRS,
                  "--provider", "pytrec_eval", "--places", "6"]
        print(f"load average before: {load()}")
        t_ours = t_theirs = float("inf")
        for _ in range(max(args.repeat, 1)):  # alternating
            elapsed, out_ours = timed(ours)
            t_ours = min(t_ours, elapsed)
            elapsed, out_theirs = timed(theirs)
            t_theirs = min(t_theirs, elapsed)
        m_ours, m_theirs = peak_of(ours), peak_of(theirs)
        print(f"load average after: {load()}")

        mean_ours = dict(zip(OURS, map(float, out_ours.strip().splitlines()[-1].split(",")[1:])))
        mean_theirs = {}
        for line in out_theirs.strip().splitlines():
            name, value = line.split("\t")
            mean_theirs[name] = float(value)
        for a, b in zip(OURS, THEIRS):
            if abs(mean_ours[a] - mean_theirs[b]) > 1e-4:
                sys.exit(f"{a}: ragmetrics_edu {mean_ours[a]} != ir_measures {mean_theirs[b]}")
        print(f"means equal to 1e-4 ({', '.join(f'{a} {mean_ours[a]:.4f}' for a in OURS)})")
        print(f"{'':36s} {'wall s':>8s} {'peak MB':>8s}")
        print(f"{'ragmetrics_edu evaluate, ' + f'{n_run:,} lines':36s} {t_ours:8.2f} {m_ours:8.0f}")
        print(f"{'ir_measures (pytrec_eval)':36s} {t_theirs:8.2f} {m_theirs:8.0f}")
        print(f"ratio ours / ir_measures: time {t_ours / t_theirs:.2f}x (target <= 0.25x), "
              f"peak memory {m_ours / m_theirs:.2f}x (target <= 0.5x)")
        if args.no_20m:
            return
        os.remove(run)
        deep = write_files(folder, n_queries, n_retrieved=1000, qrels=False, name="deep.txt")[1]
        n_deep = sum(1 for _ in open(deep))
        deep_command = ours_command(qrels, deep)
        print(f"load average before: {load()}")
        t_deep = min(timed(deep_command)[0] for _ in range(max(args.repeat, 1)))
        m_deep = peak_of(deep_command)
        print(f"load average after: {load()}")
        print(f"{'ragmetrics_edu evaluate, ' + f'{n_deep:,} lines':36s} {t_deep:8.2f} {m_deep:8.0f}")
        print(f"peak memory {n_deep:,} lines / {n_run:,} lines: {m_deep / m_ours:.2f}x "
              f"(target <= 1.0x); time {t_deep:.2f} s ({t_deep / t_ours:.1f}x the "
              f"{n_run:,}-line run's)")


if __name__ == "__main__":
    main()
