"""Speed of chrF and chrF++ against sacrebleu's CHRF.

Corpus chrF (``word_order=0``) and chrF++ (``word_order=2``) on 20,000
sentence pairs, drawn as in ``bench_generation.py`` (a Zipf-like vocabulary,
each reference a noisy copy of its hypothesis), then the same corpus with
two references per segment: ours (``rm.chrf``) vs
``sacrebleu.metrics.CHRF(...).corpus_score``.  Target: at most 1.0x
sacrebleu's time.  The scores are compared too (to 1e-9), so a fast wrong
answer cannot pass unnoticed.

Usage::

    python benchmarks/bench_chrf.py            # 20,000 pairs
    python benchmarks/bench_chrf.py --quick    # 2,000 pairs
"""

import argparse
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "benchmarks"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import ragmetrics_edu as rm  # noqa: E402
from bench_generation import SEED, make_pairs, timed, warm_up  # noqa: E402

TARGET = 1.0


def bench_one(label, hyps, refs, word_order):
    """Time ours and sacrebleu on one corpus; ``refs[i]`` is the list of references of hyps[i]."""
    from sacrebleu.metrics import CHRF

    streams = [list(s) for s in zip(*refs)]
    warm_up(lambda: rm.chrf(hyps[:50], refs[:50], word_order=word_order),
            lambda: CHRF(word_order=word_order).corpus_score(hyps[:50], [s[:50] for s in streams]))
    t_ours, ours = timed(lambda: rm.chrf(hyps, refs, word_order=word_order))
    t_sacre, sacre = timed(lambda: CHRF(word_order=word_order).corpus_score(hyps, streams))
    if not math.isclose(ours.score, sacre.score / 100, rel_tol=0, abs_tol=1e-9):
        raise SystemExit(f"{label} differs from sacrebleu: {ours.score!r} vs {sacre.score / 100!r}")
    ratio = t_ours / t_sacre
    print(f"\n{label}")
    print(f"  score {ours.score:.6f} (sacrebleu {sacre.score / 100:.6f})  {ours.signature}")
    print(f"  ours       {t_ours:8.3f} s")
    print(f"  sacrebleu  {t_sacre:8.3f} s")
    print(f"  ratio ours/sacrebleu  {ratio:6.2f}x  (target <= {TARGET:.1f}x) "
          f"{'OK' if ratio <= TARGET else 'SLOW'}")
    return ratio


def main(argv=None, quick=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2,000 pairs instead of 20,000")
    args = parser.parse_args(argv)
    quick = args.quick if quick is None else quick
    n = 2_000 if quick else 20_000
    print(f"ragmetrics_edu {rm.__version__}, Python {sys.version.split()[0]}, one run each")
    hyps, refs = make_pairs(n, seed=SEED + 2)
    _, refs2 = make_pairs(n, seed=SEED + 3)
    one_ref = [[r] for r in refs]
    two_refs = [[r, r2] for r, r2 in zip(refs, refs2)]
    ratios = [
        (f"chrF, {n:,} pairs", bench_one(f"chrF, {n:,} pairs", hyps, one_ref, 0)),
        (f"chrF++, {n:,} pairs", bench_one(f"chrF++, {n:,} pairs", hyps, one_ref, 2)),
        (f"chrF, 2 refs, {n:,} segs", bench_one(f"chrF, two references, {n:,} segments",
                                                hyps, two_refs, 0)),
    ]
    print("\nratios (time of ours / time of sacrebleu)")
    for name, ratio in ratios:
        print(f"  {name:<26}{ratio:6.2f}x  (target <= {TARGET:.1f}x) "
              f"{'OK' if ratio <= TARGET else 'SLOW'}")
    return max(r for _, r in ratios)


if __name__ == "__main__":
    main()
