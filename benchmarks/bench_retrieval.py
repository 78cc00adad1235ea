"""Time ``rm.evaluate`` against pytrec_eval, ranx and a plain Python loop on a large run.

The run has 10,000 queries x 100 retrieved documents, about 10 judged
documents per query with grades 0-3, and scores rounded to 3 decimals so that
ties occur (as in real BM25 runs).  Everything is seeded.

Usage::

    python benchmarks/bench_retrieval.py           # full size
    python benchmarks/bench_retrieval.py --quick   # 1,000 queries x 50
    python benchmarks/bench_retrieval.py --heavy-ties --no-ranx  # scores 0-4
    python benchmarks/bench_retrieval.py --new-measures --no-ranx  # + rprec, iprec, 11pt, bpref
    python benchmarks/bench_retrieval.py --workloads-only --rounds 11  # the ratios table only
    python benchmarks/bench_retrieval.py --tie-sweep --rounds 7  # one big tie group, 10k-80k

What is timed, in one run:

* ``rm.evaluate`` and pytrec_eval (``RelevanceEvaluator`` built and
  evaluated): first call and best warm call;
* ranx (``Qrels`` + ``Run`` + ``evaluate``): its first call *cold*, in a
  child process whose numba cache (``NUMBA_CACHE_DIR``) is a fresh empty
  directory, as a new notebook pays it (ranx compiles with ``cache=True``,
  so a first call in a process that finds the cache files is not cold); then
  its first call here (cache on disk) and its warm calls;
* the plain Python loop: the readable one-query functions
  (``rm.precision_at_k`` ...) over every query, the path ``rm.evaluate``
  replaces.

Then a table of ``rm.evaluate`` against pytrec_eval on six workloads,
each timed in alternating warm calls (rm, pytrec_eval, rm, ...; ``--rounds``
of each), printed as the median ratio and its range over the rounds: the
5 measures above; with the new measures (rprec, iprec@0.5, 11pt and bpref
too: issue 12); with heavy ties (scores 0-4: issue 15); and both; and a
second heavy-ties run, both ways (issue 23: scores 0-4 over 100 retrieved
documents, 15 judged documents per query, all of them retrieved, grades
0-2, document ids drawn from 400, so that ties hold many relevant
documents).  Alternating rounds and medians make the ratios steady on a
busy machine.

``--tie-sweep`` times one query whose documents all share one score (half
of them relevant, ``map`` and ``bpref``) at 10,000 to 80,000 documents,
against pytrec_eval in the same alternating rounds: the time of a tie group
must grow about as its size does (issue 23: within 10x pytrec_eval's time).

Before any time is printed, the values of ``rm.evaluate``, pytrec_eval and
the plain loop are checked equal (to 1e-12): the script stops if they are
not.  Targets: ``rm.evaluate`` at most 0.5x pytrec_eval's time, on every
workload, no first-call penalty (first and warm calls about equal),
``import ragmetrics_edu`` under 0.3 s.  The script prints the figures; it
never fails on them.
"""

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

METRICS = ["P@10", "recall@10", "ndcg@10", "map", "mrr"]
TREC_MEASURES = {"P_10", "recall_10", "ndcg_cut_10", "map", "recip_rank"}
TREC_NAMES = dict(zip(METRICS, ["P_10", "recall_10", "ndcg_cut_10", "map", "recip_rank"]))
BASE_TREC_NAMES = dict(TREC_NAMES)  # (--new-measures extends the three above)
RANX_METRICS = ["precision@10", "recall@10", "ndcg@10", "map", "mrr"]
# --new-measures adds issue 12's measures that pytrec_eval computes too
NEW_METRICS = ["rprec", "iprec@0.5", "11pt", "bpref"]
NEW_TREC_NAMES = {"rprec": "Rprec", "iprec@0.5": "iprec_at_recall_0.50",
                  "11pt": "11pt_avg", "bpref": "bpref"}
NEW_TREC_MEASURES = {"Rprec", "iprec_at_recall", "11pt_avg", "bpref"}
WORKLOADS = [
    # (name, heavy ties, new measures, the issue whose target it is)
    ("5 measures", False, False, ""),
    ("+ new measures (9)", False, True, "issue 12"),
    ("heavy ties (5 measures)", True, False, "issue 15"),
    ("heavy ties + new measures", True, True, "issues 12 and 15"),
    ("ties, all judged retrieved", "judged", False, "issue 23"),
    ("same + new measures", "judged", True, "issue 23"),
]
"""The workloads of the ratios table (see the module docstring)."""
TOLERANCE = 1e-12
"""Largest difference allowed between the libraries' per-query values."""


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


def make_judged_ties_data(n_queries, n_retrieved, seed=0):
    """Return ``(qrels, run)`` of the second heavy-ties workload (issue 23).

    Integer scores 0-4 over ``n_retrieved`` documents drawn from 400 ids,
    15 judged documents per query, all of them retrieved, grades 0-2: most
    tie groups hold relevant documents, unlike :func:`make_data`'s.
    """
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        qid = f"q{q}"
        retrieved = rng.choice(400, size=n_retrieved, replace=False)
        scores = rng.integers(0, 5, size=n_retrieved)
        run[qid] = {f"d{d}": float(s) for d, s in zip(retrieved, scores)}
        judged = rng.choice(retrieved, size=15, replace=False)
        grades = rng.integers(0, 3, size=15)
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


def plain_loop(qrels, run):
    """The readable one-query functions over every query: ``{qid: {metric: value}}``.

    Written from trec_eval's rules, independently of ``rm.evaluate``:
    documents in order of float32 score, then document id, both descending;
    a grade below 1 or an unjudged document is not relevant; the ideal
    ranking is built from all the judged grades of the query.
    """
    import ragmetrics_edu as rm

    out = {}
    for qid, ranking in run.items():
        judged = qrels.get(qid)
        if not judged:
            continue
        scores32 = np.array(list(ranking.values()), dtype=np.float32).tolist()
        ranked = sorted(zip(scores32, ranking), reverse=True)
        rels = [max(judged.get(docid, 0), 0) for _, docid in ranked]
        n_relevant = sum(g >= 1 for g in judged.values())
        out[qid] = {
            "P@10": rm.precision_at_k(rels, 10),
            "recall@10": rm.recall_at_k(rels, 10, n_relevant=n_relevant),
            "ndcg@10": rm.ndcg_at_k(rels, 10, ideal=list(judged.values())),
            "map": rm.average_precision(rels, n_relevant),
            "mrr": rm.reciprocal_rank(rels),
        }
    return out


def _evaluator(name, qrels, run):
    """A no-argument function running one library on the data."""
    if name == "rm":
        import ragmetrics_edu as rm

        return lambda: rm.evaluate(qrels, run, metrics=METRICS)
    if name == "pytrec_eval":
        import pytrec_eval

        return lambda: pytrec_eval.RelevanceEvaluator(qrels, TREC_MEASURES).evaluate(run)
    if name == "loop":
        return lambda: plain_loop(qrels, run)
    from ranx import Qrels, Run
    from ranx import evaluate as ranx_evaluate

    return lambda: ranx_evaluate(Qrels(qrels), Run(run), RANX_METRICS)


def check_agreement(report, trec, loop=None, names=None):
    """Raise unless rm, pytrec_eval (and the plain loop) give the same values.

    ``names`` maps rm's metric names to pytrec_eval's (``TREC_NAMES`` by
    default; the plain loop computes the 5 base measures only).  Returns the
    largest difference found.
    """
    names = TREC_NAMES if names is None else names
    if set(report.per_query) != set(trec):
        raise AssertionError(
            f"rm scored {len(report.per_query)} queries, pytrec_eval {len(trec)}")
    worst = max(abs(report.per_query[q][m] - trec[q][t])
                for q in trec for m, t in names.items())
    if loop is not None:
        if set(loop) != set(trec):
            raise AssertionError(f"the plain loop scored {len(loop)} queries")
        worst = max(worst, max(abs(loop[q][m] - trec[q][t])
                               for q in trec for m, t in names.items()))
    if not worst <= TOLERANCE:
        raise AssertionError(
            f"the libraries disagree by {worst:.1e} (more than {TOLERANCE:g}): "
            "the times would mean nothing")
    return worst


def _in_child(args, env=None):
    """Run this script with ``args`` in a fresh process; return its last line of output."""
    out = subprocess.run([sys.executable, __file__, *args], check=True,
                         capture_output=True, text=True, env=env)
    return out.stdout.strip().splitlines()[-1]


def peak_memory_mb(name, n_queries, n_retrieved, heavy_ties=False):
    """Peak RSS growth (MB) of one first call, measured in a fresh process (Linux).

    The data are built first; the figure is how much the peak resident
    memory grows while the library evaluates them (C allocations included,
    which tracemalloc would miss).
    """
    return float(_in_child(["--child-memory", name, str(n_queries), str(n_retrieved),
                            "1" if heavy_ties else "0"]))


def ranx_cold(n_queries, n_retrieved, heavy_ties=False):
    """ranx's first and second call in a fresh process with an empty numba cache.

    Returns ``{"first": s, "second": s, "first_mb": MB, "second_mb": MB}``:
    wall times, and the growth of the peak resident memory during each call.
    """
    with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        return json.loads(_in_child(["--child-ranx", str(n_queries), str(n_retrieved),
                                     "1" if heavy_ties else "0"], env=env))


def _status_kb(field):
    """A ``VmRSS`` / ``VmHWM`` figure of this process, in KiB (Linux)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def _measured_call(fn):
    """Call ``fn``; return (wall seconds, growth of the peak resident memory in MB)."""
    gc.collect()
    # reset the peak ("high water mark") to the current resident size
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    before = _status_kb("VmRSS")
    t0 = time.perf_counter()
    fn()
    seconds = time.perf_counter() - t0
    return seconds, (_status_kb("VmHWM") - before) / 1024


def _child_memory(name, n_queries, n_retrieved, heavy_ties):
    qrels, run = make_data(n_queries, n_retrieved, 10, heavy_ties=heavy_ties)
    print(_measured_call(_evaluator(name, qrels, run))[1])


def _child_ranx(n_queries, n_retrieved, heavy_ties):
    qrels, run = make_data(n_queries, n_retrieved, 10, heavy_ties=heavy_ties)
    fn = _evaluator("ranx", qrels, run)  # imports ranx (not timed)
    first, first_mb = _measured_call(fn)
    second, second_mb = _measured_call(fn)
    print(json.dumps({"first": first, "second": second,
                      "first_mb": first_mb, "second_mb": second_mb}))


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


def use_new_measures():
    """Time rprec, iprec@0.5, 11pt and bpref too, against pytrec_eval computing them.

    (ranx and the plain loop do not compute them: run with --no-ranx --no-loop.)
    """
    METRICS.extend(NEW_METRICS)
    TREC_NAMES.update(NEW_TREC_NAMES)
    TREC_MEASURES.update(NEW_TREC_MEASURES)


def workload_measures(new_measures):
    """``({rm metric: pytrec_eval name}, pytrec_eval's measures)`` of a workload."""
    names = dict(BASE_TREC_NAMES)
    measures = set(BASE_TREC_NAMES.values())  # (these name their measure too)
    if new_measures:
        names.update(NEW_TREC_NAMES)
        measures |= NEW_TREC_MEASURES
    return names, measures


def alternate(functions, rounds):
    """Call the functions in turn, ``rounds`` times; ``{name: [(wall s, CPU s), ...]}``."""
    times = {name: [] for name in functions}
    for _ in range(rounds):
        for name, fn in functions.items():
            gc.collect()
            t0, c0 = time.perf_counter(), time.process_time()
            fn()
            times[name].append((time.perf_counter() - t0, time.process_time() - c0))
    return times


def _spread(values):
    """``"median (min-max)"`` of a list of ratios."""
    values = sorted(values)
    return f"{values[len(values) // 2]:.2f} ({values[0]:.2f}-{values[-1]:.2f})"


def workload_ratios(n_queries, n_retrieved, rounds, data=None):
    """Print rm.evaluate / pytrec_eval on every workload of ``WORKLOADS``.

    Each workload: its data built (seeded), one call of each library whose
    values are checked equal (it also warms them up), then ``rounds``
    alternating warm calls; the ratio of every round's pair of calls, CPU
    and wall, summed up as median (min-max).  ``data`` maps ``heavy_ties``
    to ``(qrels, run)`` already built (``"judged"``: :func:`make_judged_ties_data`).
    """
    import pytrec_eval

    import ragmetrics_edu as rm

    data = dict(data or {})
    print(f"\nrm.evaluate / pytrec_eval by workload: {n_queries} queries x {n_retrieved}, "
          f"warm calls, median (min-max) of {rounds} alternating rounds")
    print(f"  {'workload':28s}{'CPU ratio':>18s}{'wall ratio':>18s}"
          f"{'rm CPU s':>10s}{'pytrec CPU s':>14s}   target <= 0.5")
    for name, heavy_ties, new_measures, issue in WORKLOADS:
        if heavy_ties == "judged" and heavy_ties not in data:
            data[heavy_ties] = make_judged_ties_data(n_queries, n_retrieved)
        elif heavy_ties not in data:
            data[heavy_ties] = make_data(n_queries, n_retrieved, 10, heavy_ties=heavy_ties)
        qrels, run = data[heavy_ties]
        names, measures = workload_measures(new_measures)
        functions = {
            "rm": lambda: rm.evaluate(qrels, run, metrics=list(names)),
            "pytrec_eval": lambda: pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run),
        }
        check_agreement(functions["rm"](), functions["pytrec_eval"](), names=names)
        times = alternate(functions, rounds)
        pairs = list(zip(times["rm"], times["pytrec_eval"]))
        cpu = [r[1] / p[1] for r, p in pairs]
        wall = [r[0] / p[0] for r, p in pairs]
        median_cpu = sorted(c for _, c in times["rm"])[rounds // 2]
        median_trec = sorted(c for _, c in times["pytrec_eval"])[rounds // 2]
        print(f"  {name:28s}{_spread(cpu):>18s}{_spread(wall):>18s}"
              f"{median_cpu:10.3f}{median_trec:14.3f}   {issue}")


def tie_sweep(rounds, sizes=(10_000, 20_000, 40_000, 80_000)):
    """Print rm.evaluate / pytrec_eval on one query whose documents all tie, by its size.

    The query retrieves ``n`` documents with score 0.0; every other one is
    judged relevant (``map``), or judged relevant and non-relevant in turn
    (``bpref``).  Values are checked equal first; then ``rounds``
    alternating warm calls, CPU time, median (min-max) of the ratios.
    """
    import pytrec_eval

    import ragmetrics_edu as rm

    print(f"\none tie group (every document scored 0.0), half of it relevant: "
          f"rm.evaluate / pytrec_eval, CPU, median (min-max) of {rounds} alternating rounds")
    print(f"  {'documents':>10s}{'measure':>9s}{'CPU ratio':>20s}{'rm CPU s':>10s}"
          f"{'pytrec CPU s':>14s}   target <= 10")
    for n in sizes:
        run = {"q": {f"doc{i}": 0.0 for i in range(n)}}
        for measure in ("map", "bpref"):
            qrels = {"q": {f"doc{i}": 1 - i % 2 for i in range(n)} if measure == "bpref"
                     else {f"doc{i}": 1 for i in range(0, n, 2)}}
            functions = {
                "rm": lambda: rm.evaluate(qrels, run, metrics=[measure]),
                "pytrec_eval": lambda: pytrec_eval.RelevanceEvaluator(
                    qrels, {measure}).evaluate(run),
            }
            check_agreement(functions["rm"](), functions["pytrec_eval"](),
                            names={measure: measure})
            times = alternate(functions, rounds)
            cpu = [r[1] / max(p[1], 1e-9) for r, p in zip(times["rm"], times["pytrec_eval"])]
            median_cpu = sorted(c for _, c in times["rm"])[rounds // 2]
            median_trec = sorted(c for _, c in times["pytrec_eval"])[rounds // 2]
            print(f"  {n:10,d}{measure:>9s}{_spread(cpu):>20s}{median_cpu:10.3f}"
                  f"{median_trec:14.3f}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1,000 queries x 50 documents")
    parser.add_argument("--repeat", type=int, default=3, help="warm calls to time (best of)")
    parser.add_argument("--no-ranx", action="store_true", help="skip ranx (slow first call)")
    parser.add_argument("--no-loop", action="store_true", help="skip the plain Python loop")
    parser.add_argument("--no-memory", action="store_true", help="skip the memory runs")
    parser.add_argument("--heavy-ties", action="store_true", help="integer scores 0-4 (many ties)")
    parser.add_argument("--new-measures", action="store_true",
                        help="add rprec, iprec@0.5, 11pt and bpref (with --no-ranx --no-loop)")
    parser.add_argument("--rounds", type=int, default=5,
                        help="alternating rounds of the ratios table (median of)")
    parser.add_argument("--no-workloads", action="store_true",
                        help="skip the ratios table (new measures, heavy ties)")
    parser.add_argument("--workloads-only", action="store_true",
                        help="print the ratios table only")
    parser.add_argument("--tie-sweep", action="store_true",
                        help="one tie group of 10,000 to 80,000 documents against pytrec_eval")
    parser.add_argument("--child-memory", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--child-ranx", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.new_measures:
        use_new_measures()
        args.no_ranx = args.no_loop = True
    if args.child_memory:
        name, nq, nr, ties = args.child_memory
        _child_memory(name, int(nq), int(nr), ties == "1")
        return
    if args.child_ranx:
        nq, nr, ties = args.child_ranx
        _child_ranx(int(nq), int(nr), ties == "1")
        return
    if args.tie_sweep:
        tie_sweep(max(args.rounds, 1))
        return
    n_queries, n_retrieved = (1_000, 50) if args.quick else (10_000, 100)
    if args.workloads_only:
        workload_ratios(n_queries, n_retrieved, max(args.rounds, 1))
        return

    print(f"data: {n_queries} queries x {n_retrieved} retrieved, ~10 judged, grades 0-3, "
          f"scores {'0-4 (heavy ties)' if args.heavy_ties else 'rounded to 0.001 in [0, 20)'}")
    qrels, run = make_data(n_queries, n_retrieved, 10, heavy_ties=args.heavy_ties)

    t0 = time.perf_counter()
    import ragmetrics_edu as rm
    from ragmetrics_edu.retrieval.batch import evaluator  # noqa: F401 (the module behind rm.evaluate)
    t_import = time.perf_counter() - t0
    print(f"import ragmetrics_edu + batch (in this process): {t_import:.3f} s")

    libraries = ["rm", "pytrec_eval"] + ([] if args.no_ranx else ["ranx"])
    label = {"rm": "rm.evaluate", "pytrec_eval": "pytrec_eval (build+eval)",
             "ranx": "ranx (Qrels+Run+evaluate)", "loop": "plain Python loop"}
    times, results = {}, {}
    for name in libraries:
        first, best, cpu, result = timed(_evaluator(name, qrels, run), args.repeat)
        times[name], results[name] = (first, best, cpu), result
    if not args.no_loop:  # seconds per call: one call is enough
        gc.collect()
        t0, c0 = time.perf_counter(), time.process_time()
        results["loop"] = plain_loop(qrels, run)
        times["loop"] = (time.perf_counter() - t0, None, time.process_time() - c0)
        libraries.append("loop")

    # the numbers must agree before the times mean anything
    worst = check_agreement(results["rm"], results["pytrec_eval"], results.get("loop"))
    compared = "rm, pytrec_eval" + ("" if args.no_loop else " and the plain loop")
    print(f"max difference between {compared}, over all queries and metrics: "
          f"{worst:.1e} (checked <= {TOLERANCE:g})")

    cold = None
    if not args.no_ranx:
        print("ranx in a fresh process with an empty numba cache (compiles: slow) ...")
        cold = ranx_cold(n_queries, n_retrieved, args.heavy_ties)

    memory = {}
    if not args.no_memory:
        for name in ("rm", "pytrec_eval"):
            memory[name] = peak_memory_mb(name, n_queries, n_retrieved, args.heavy_ties)
        if cold is not None:
            memory["ranx"] = cold["second_mb"]

    def cell(x, fmt):
        return f"{x:{fmt}}" if x is not None else f"{'-':>{fmt.split('.')[0]}}"

    print(f"\n{'':27s}{'first call':>11s}{'warm wall':>11s}{'warm CPU':>10s}{'peak +MB':>10s}")
    for name in libraries:
        first, warm, cpu = times[name]
        print(f"{label[name]:27s}{first:11.3f}{cell(warm, '11.3f')}{cell(cpu, '10.3f')}"
              f"{cell(memory.get(name), '10.1f')}")
    if cold is not None:
        print(f"{'ranx, cold (empty cache)':27s}{cold['first']:11.3f}{cold['second']:11.3f}"
              f"{'-':>10s}{cold['first_mb']:10.1f}")

    rm_t, pt_t = times["rm"], times["pytrec_eval"]
    print("\nratios (below 1: ragmetrics_edu is faster)")
    print(f"  rm / pytrec_eval, warm wall:    {rm_t[1] / pt_t[1]:.2f}   (target <= 0.5)")
    print(f"  rm / pytrec_eval, warm CPU:     {rm_t[2] / pt_t[2]:.2f}")
    print(f"  rm / pytrec_eval, first call:   {rm_t[0] / pt_t[0]:.2f}")
    print(f"  rm first call / rm warm:        {rm_t[0] / rm_t[1]:.2f}   (no first-call penalty: ~1)")
    if "ranx" in times:
        rx_t = times["ranx"]
        print(f"  rm / ranx, warm wall:           {rm_t[1] / rx_t[1]:.2f}")
        print(f"  rm / ranx, first call here:     {rm_t[0] / rx_t[0]:.4f}   (numba cache on disk)")
        print(f"  rm / ranx, cold first call:     {rm_t[0] / cold['first']:.4f}   (empty numba cache)")
    if "loop" in times:
        print(f"  rm / plain Python loop, wall:   {rm_t[1] / times['loop'][0]:.3f}")

    if not args.no_workloads:
        workload_ratios(n_queries, n_retrieved, max(args.rounds, 1),
                        data={args.heavy_ties: (qrels, run)})

    t_imp, t_bare = time_import()
    print(f"\npython -c 'import ragmetrics_edu': {t_imp:.3f} s "
          f"(bare interpreter {t_bare:.3f} s; target < 0.3 s)")
    if memory:
        print("peak +MB: growth of the peak resident memory during one call, in a fresh "
              "process: the first call for rm and pytrec_eval, the second for ranx (its "
              "first, cold, includes numba's compiler: see the 'cold' row)")


if __name__ == "__main__":
    main()
