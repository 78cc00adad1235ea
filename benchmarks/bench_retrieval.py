"""Time ``rm.evaluate`` against pytrec_eval and ranx on a large synthetic run.

The run has 10,000 queries x 100 retrieved documents, about 10 judged
documents per query with grades 0-3, and scores rounded to 3 decimals so that
ties occur (as in real BM25 runs).  Everything is seeded.

Usage::

    python benchmarks/bench_retrieval.py           # full size
    python benchmarks/bench_retrieval.py --quick   # 1,000 queries x 50
    python benchmarks/bench_retrieval.py --heavy-ties --no-ranx  # scores 0-4

Targets: ``rm.evaluate`` at most 0.5x pytrec_eval's time, no first-call
penalty (first and warm calls about equal), ``import ragmetrics_edu`` under
0.3 s.  The script prints the figures; it never fails on them.
"""

import argparse
import gc
import subprocess
import sys
import time

import numpy as np

METRICS = ["P@10", "recall@10", "ndcg@10", "map", "mrr"]
TREC_MEASURES = {"P_10", "recall_10", "ndcg_cut_10", "map", "recip_rank"}
RANX_METRICS = ["precision@10", "recall@10", "ndcg@10", "map", "mrr"]


def make_data(n_queries, n_retrieved, n_judged, seed=0, heavy_ties=False):
    """Return ``(qrels, run)`` dicts with string ids, as a TREC file would give.

    ``heavy_ties`` gives integer scores 0-4: about 20 documents share each
    score, the worst case for trec_eval's tie-breaking by document id.
    """
    rng = np.random.default_rng(seed)
    n_docs = 100_000
    qrels, run = {}, {}
    for q in range(n_queries):
        qid = f"q{q}"
        docs = rng.choice(n_docs, size=n_retrieved + n_judged // 2, replace=False)
        retrieved = docs[:n_retrieved]
        scores = np.round(rng.random(n_retrieved) * 20, 3)
        if heavy_ties:
            scores = np.floor(scores / 4)
        run[qid] = {f"d{d}": float(s) for d, s in zip(retrieved, scores)}
        # half of the judged documents retrieved, half not
        judged = np.concatenate(
            [rng.choice(retrieved, n_judged - n_judged // 2, replace=False), docs[n_retrieved:]]
        )
        grades = rng.integers(0, 4, size=len(judged))
        qrels[qid] = {f"d{d}": int(g) for d, g in zip(judged, grades)}
    return qrels, run


def timed(fn, repeat=1):
    """Return (first call, best warm call) wall seconds, best warm CPU seconds, result.

    Wall time is what a user waits; CPU time (``time.process_time``) is
    steadier on a busy machine.  Both are printed.
    """
    gc.collect()
    t0 = time.perf_counter()
    result = fn()
    first = time.perf_counter() - t0
    best = best_cpu = float("inf")
    for _ in range(max(repeat, 1)):
        gc.collect()
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        best = min(best, time.perf_counter() - t0)
        best_cpu = min(best_cpu, time.process_time() - c0)
    return first, best, best_cpu, result


def _evaluator(name, qrels, run):
    """A no-argument function running one library on the data."""
    if name == "rm":
        import ragmetrics_edu as rm

        return lambda: rm.evaluate(qrels, run, METRICS)
    if name == "pytrec_eval":
        import pytrec_eval

        return lambda: pytrec_eval.RelevanceEvaluator(qrels, TREC_MEASURES).evaluate(run)
    from ranx import Qrels, Run
    from ranx import evaluate as ranx_evaluate

    return lambda: ranx_evaluate(Qrels(qrels), Run(run), RANX_METRICS)


def peak_memory_mb(name, n_queries, n_retrieved, heavy_ties=False):
    """Peak RSS growth (MB) of one first call, measured in a fresh process (Linux).

    The data are built first; the figure is how much the peak resident
    memory grows while the library evaluates them (C allocations included,
    which tracemalloc would miss).
    """
    out = subprocess.run(
        [sys.executable, __file__, "--child-memory", name, str(n_queries), str(n_retrieved),
         "1" if heavy_ties else "0"],
        check=True, capture_output=True, text=True,
    )
    return float(out.stdout.strip().splitlines()[-1])


def _status_kb(field):
    """A ``VmRSS`` / ``VmHWM`` figure of this process, in KiB (Linux)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def _child_memory(name, n_queries, n_retrieved, heavy_ties):
    qrels, run = make_data(n_queries, n_retrieved, 10, heavy_ties=heavy_ties)
    fn = _evaluator(name, qrels, run)
    gc.collect()
    # reset the peak ("high water mark") to the current resident size
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    before = _status_kb("VmRSS")
    fn()
    print((_status_kb("VmHWM") - before) / 1024)


def time_import():
    """Wall time of ``python -c "import ragmetrics_edu"`` in a fresh process (best of 3)."""
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import ragmetrics_edu"], check=True)
        best = min(best, time.perf_counter() - t0)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    bare = time.perf_counter() - t0
    return best, bare


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1,000 queries x 50 documents")
    parser.add_argument("--repeat", type=int, default=3, help="warm calls to time (best of)")
    parser.add_argument("--no-ranx", action="store_true", help="skip ranx (slow first call)")
    parser.add_argument("--no-memory", action="store_true", help="skip the memory runs")
    parser.add_argument("--heavy-ties", action="store_true", help="integer scores 0-4 (many ties)")
    parser.add_argument("--child-memory", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child_memory:
        name, nq, nr, ties = args.child_memory
        _child_memory(name, int(nq), int(nr), ties == "1")
        return
    n_queries, n_retrieved = (1_000, 50) if args.quick else (10_000, 100)

    print(f"data: {n_queries} queries x {n_retrieved} retrieved, ~10 judged, grades 0-3, "
          f"scores {'0-4 (heavy ties)' if args.heavy_ties else 'rounded to 0.001 in [0, 20)'}")
    qrels, run = make_data(n_queries, n_retrieved, 10, heavy_ties=args.heavy_ties)

    t0 = time.perf_counter()
    import ragmetrics_edu as rm
    from ragmetrics_edu import batch  # noqa: F401 (the module behind rm.evaluate)
    t_import = time.perf_counter() - t0
    print(f"import ragmetrics_edu + batch (in this process): {t_import:.3f} s")

    libraries = ["rm", "pytrec_eval"] + ([] if args.no_ranx else ["ranx"])
    label = {"rm": "rm.evaluate", "pytrec_eval": "pytrec_eval (build+eval)",
             "ranx": "ranx (Qrels+Run+evaluate)"}
    times, results = {}, {}
    for name in libraries:
        first, best, cpu, result = timed(_evaluator(name, qrels, run), args.repeat)
        times[name], results[name] = (first, best, cpu), result

    # the numbers must agree before the times mean anything
    report, trec = results["rm"], results["pytrec_eval"]
    names = dict(zip(METRICS, ["P_10", "recall_10", "ndcg_cut_10", "map", "recip_rank"]))
    worst = max(abs(report.per_query[q][m] - trec[q][t]) for q in trec for m, t in names.items())
    print(f"max |rm - pytrec_eval| over all queries and metrics: {worst:.1e}")

    memory = {}
    if not args.no_memory:
        # ranx is left out: its first call's memory is numba's compiler
        for name in ("rm", "pytrec_eval"):
            memory[name] = peak_memory_mb(name, n_queries, n_retrieved, args.heavy_ties)

    print(f"\n{'':27s}{'first call':>11s}{'warm wall':>11s}{'warm CPU':>10s}{'peak +MB':>10s}")
    for name in libraries:
        first, best, cpu = times[name]
        mem = f"{memory[name]:10.1f}" if name in memory else f"{'-':>10s}"
        print(f"{label[name]:27s}{first:11.3f}{best:11.3f}{cpu:10.3f}{mem}")

    rm_t, pt_t = times["rm"], times["pytrec_eval"]
    print("\nratios (below 1: ragmetrics_edu is faster)")
    print(f"  rm / pytrec_eval, warm wall:    {rm_t[1] / pt_t[1]:.2f}   (target <= 0.5)")
    print(f"  rm / pytrec_eval, warm CPU:     {rm_t[2] / pt_t[2]:.2f}")
    print(f"  rm / pytrec_eval, first call:   {rm_t[0] / pt_t[0]:.2f}")
    print(f"  rm first call / rm warm:        {rm_t[0] / rm_t[1]:.2f}   (no first-call penalty: ~1)")
    if "ranx" in times:
        rx_t = times["ranx"]
        print(f"  rm / ranx, warm wall:           {rm_t[1] / rx_t[1]:.2f}")
        print(f"  rm / ranx, first call:          {rm_t[0] / rx_t[0]:.3f}")

    t_imp, t_bare = time_import()
    print(f"\npython -c 'import ragmetrics_edu': {t_imp:.3f} s "
          f"(bare interpreter {t_bare:.3f} s; target < 0.3 s)")
    if memory:
        print("peak +MB: growth of the peak resident memory during one first call, "
              "in a fresh process")


if __name__ == "__main__":
    main()
