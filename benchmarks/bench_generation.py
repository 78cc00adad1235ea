"""Speed of the n-gram overlap metrics against the reference libraries.

One run of each, on synthetic sentences drawn with a fixed seed from a
Zipf-like vocabulary (word of rank r has probability proportional to 1/r);
each reference is a noisy copy of its candidate (words dropped, words
inserted), so that higher-order n-grams match as in real system output.

* corpus BLEU on 20,000 sentence pairs: ours vs ``sacrebleu.corpus_bleu``
  (``tokenize="none"``, same smoothing) and vs nltk's ``corpus_bleu`` (given
  pre-split tokens).  Target: at most 1.0x sacrebleu's time.
* ROUGE-1/2/L on 10,000 pairs: ours vs rouge-score's
  ``RougeScorer(["rouge1", "rouge2", "rougeL"]).score`` (our tokenizer
  ``rouge_tokenize``).  Target: at most 0.5x rouge-score's time.
* BERTScore on 1,000 pairs vs bert-score with the same model on the CPU
  (``benchmarks/bench_bertscore.py``).  Target: at most 1.5x: ours runs the
  transformer in NumPy, bert-score in PyTorch (1.5x is the bound set for the
  NumPy transformer against torch; it was 1.0x when ours ran on torch too).

The scores are compared too, so a fast wrong answer cannot pass unnoticed.
The three ratios are printed again at the end.

Usage::

    python benchmarks/bench_generation.py                  # full sizes, all three
    python benchmarks/bench_generation.py --quick          # 2,000 / 1,000 / 100 pairs
    python benchmarks/bench_generation.py --no-bertscore   # BLEU and ROUGE only
"""

import argparse
import gc
import importlib.util
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import ragmetrics_edu as rm  # noqa: E402
from ragmetrics_edu.generation.rouge import rouge_scores  # noqa: E402

SEED = 20240607
VOCAB_SIZE = 5000


def make_pairs(n, seed=SEED, min_len=5, max_len=40):
    """``n`` (candidate, reference) string pairs from a Zipf-like vocabulary."""
    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{i}" for i in range(VOCAB_SIZE)])
    p = 1.0 / np.arange(1, VOCAB_SIZE + 1)
    p /= p.sum()
    cands, refs = [], []
    for _ in range(n):
        words = list(vocab[rng.choice(VOCAB_SIZE, size=int(rng.integers(min_len, max_len + 1)), p=p)])
        ref = [w for w in words if rng.random() > 0.2]
        for _ in range(int(rng.integers(0, 5))):
            ref.insert(int(rng.integers(0, len(ref) + 1)), str(vocab[rng.choice(VOCAB_SIZE, p=p)]))
        cands.append(" ".join(words))
        refs.append(" ".join(ref))
    return cands, refs


def timed(fn):
    """Seconds for one call of ``fn`` (garbage collector paused, for every contender alike)."""
    gc.collect()
    gc.disable()
    try:
        t0 = time.perf_counter()
        out = fn()
        return time.perf_counter() - t0, out
    finally:
        gc.enable()


def warm_up(*fns):
    """Call each contender once on a few pairs (imports, caches) before timing."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for fn in fns:
            fn()


def bench_bleu(n):
    import sacrebleu
    from nltk.translate import bleu_score

    cands, refs = make_pairs(n)
    cand_tok = [c.split() for c in cands]
    refs_tok = [[r.split()] for r in refs]
    print(f"\ncorpus BLEU, {n:,} sentence pairs, smoothing 'exp' (nltk method3)")
    warm_up(lambda: rm.corpus_bleu(cands[:50], [[r] for r in refs[:50]]),
            lambda: sacrebleu.corpus_bleu(cands[:50], [refs[:50]], tokenize="none"),
            lambda: bleu_score.corpus_bleu(refs_tok[:50], cand_tok[:50]))

    t_ours, ours = timed(lambda: rm.corpus_bleu(cands, [[r] for r in refs], smoothing="exp"))
    t_ours_tok, ours_tok = timed(lambda: rm.corpus_bleu(cand_tok, refs_tok, smoothing="exp"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_sacre, sacre = timed(lambda: sacrebleu.corpus_bleu(
            cands, [refs], tokenize="none", smooth_method="exp"))
        t_nltk, nltk = timed(lambda: bleu_score.corpus_bleu(
            refs_tok, cand_tok, smoothing_function=bleu_score.SmoothingFunction().method3))

    for name, value in [("sacrebleu", sacre.score / 100), ("nltk", nltk),
                        ("ours (tokens)", ours_tok.score)]:
        if not math.isclose(ours.score, value, rel_tol=0, abs_tol=1e-9):
            raise SystemExit(f"BLEU differs from {name}: {ours.score!r} vs {value!r}")
    print(f"  score {ours.score:.6f} (sacrebleu {sacre.score / 100:.6f}, nltk {nltk:.6f})")
    print(f"  ours (strings)    {t_ours:8.3f} s")
    print(f"  ours (tokens)     {t_ours_tok:8.3f} s")
    print(f"  sacrebleu         {t_sacre:8.3f} s")
    print(f"  nltk (tokens)     {t_nltk:8.3f} s")
    ratio = t_ours / t_sacre
    print(f"  ratio ours/sacrebleu      {ratio:6.2f}x  (target <= 1.0x) "
          f"{'OK' if ratio <= 1.0 else 'SLOW'}")
    print(f"  ratio ours(tokens)/nltk   {t_ours_tok / t_nltk:6.2f}x")
    return ratio


def bench_rouge(n):
    from rouge_score import rouge_scorer

    cands, refs = make_pairs(n, seed=SEED + 1)
    variants = ["rouge1", "rouge2", "rougeL"]
    print(f"\nROUGE-1/2/L, {n:,} pairs (rouge-score tokenizer, no stemmer)")
    scorer = rouge_scorer.RougeScorer(variants)
    warm_up(lambda: [scorer.score(r, c) for c, r in zip(cands[:50], refs[:50])],
            lambda: [rouge_scores(c, r, variants=variants, tokenizer=rm.rouge_tokenize)
                     for c, r in zip(cands[:50], refs[:50])],
            lambda: [rm.rouge_l(c, r, tokenizer=rm.rouge_tokenize)
                     for c, r in zip(cands[:50], refs[:50])])

    t_theirs, theirs = timed(lambda: [scorer.score(r, c) for c, r in zip(cands, refs)])
    t_ours, ours = timed(lambda: [rouge_scores(c, r, variants=variants, tokenizer=rm.rouge_tokenize)
                                  for c, r in zip(cands, refs)])
    t_each, each = timed(lambda: [(rm.rouge_n(c, r, n=1, tokenizer=rm.rouge_tokenize),
                                   rm.rouge_n(c, r, n=2, tokenizer=rm.rouge_tokenize),
                                   rm.rouge_l(c, r, tokenizer=rm.rouge_tokenize))
                                  for c, r in zip(cands, refs)])

    worst = max(abs(o[v].fmeasure - t[v].fmeasure) for o, t in zip(ours, theirs) for v in variants)
    worst_each = max(abs(e[i].fmeasure - t[v].fmeasure)
                     for e, t in zip(each, theirs) for i, v in enumerate(variants))
    if max(worst, worst_each) > 1e-9:
        raise SystemExit(f"ROUGE differs from rouge-score by {max(worst, worst_each)!r}")
    print(f"  max |F ours - F rouge-score| = {max(worst, worst_each):.1e}")
    print(f"  rouge_scores (one call)      {t_ours:8.3f} s")
    print(f"  rouge_n, rouge_n, rouge_l    {t_each:8.3f} s")
    print(f"  rouge-score                  {t_theirs:8.3f} s")
    ratio = t_ours / t_theirs
    print(f"  ratio rouge_scores/rouge-score      {ratio:6.2f}x  (target <= 0.5x) "
          f"{'OK' if ratio <= 0.5 else 'SLOW'}")
    print(f"  ratio three calls/rouge-score       {t_each / t_theirs:6.2f}x")
    return ratio


def run_bertscore(quick):
    """Run ``benchmarks/bench_bertscore.py``'s ``main()``; return its ratio."""
    path = Path(__file__).with_name("bench_bertscore.py")
    spec = importlib.util.spec_from_file_location("bench_bertscore", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    print("\nBERTScore (benchmarks/bench_bertscore.py)")
    return module.main(quick=quick)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes (2,000 / 1,000 pairs)")
    parser.add_argument("--bertscore", action=argparse.BooleanOptionalAction, default=True,
                        help="time BERTScore against bert-score too (the default; "
                             "--no-bertscore skips it: it needs the semantic extra)")
    args = parser.parse_args(argv)
    n_bleu, n_rouge = (2_000, 1_000) if args.quick else (20_000, 10_000)
    print(f"ragmetrics_edu {rm.__version__}, Python {sys.version.split()[0]}, one run each")
    ratios = [("corpus BLEU / sacrebleu", bench_bleu(n_bleu), 1.0),
              ("ROUGE-1/2/L / rouge-score", bench_rouge(n_rouge), 0.5)]
    if args.bertscore:
        ratios.append(("BERTScore / bert-score", run_bertscore(args.quick), 1.5))
    print("\nratios (time of ours / time of the reference library)")
    for name, ratio, target in ratios:
        print(f"  {name:<28}{ratio:6.2f}x  (target <= {target:.1f}x) "
              f"{'OK' if ratio <= target else 'SLOW'}")


if __name__ == "__main__":
    main()
