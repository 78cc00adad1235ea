"""Compute a BERTScore rescaling baseline from random pairs of Cranfield sentences.

Why a baseline: contextual token vectors are never far apart, so two
unrelated sentences already score a BERTScore around ``b`` (0.2-0.8 depending
on the model and layer). Rescaling ``(s - b) / (1 - b)`` maps that level to 0
(Zhang et al., 2020, section 5 and appendix).

bert-score computed its baselines as the mean P, R and F over 1M random pairs
of Common Crawl sentences. We cannot ship Common Crawl, and we download
nothing, so we follow the same procedure on text we ship, the Cranfield 1400
abstracts (aeronautics, 1960s English):

1. Read the ``.W`` (abstract) field of every document of ``cran.all.1400``.
2. Split each abstract into sentences at `` .`` (the collection writes a
   space before every full stop) and keep the sentences of 5 to 60 words.
3. With ``numpy.random.default_rng(SEED)``, draw ``N_SENTENCES`` distinct
   sentences, then ``N_PAIRS`` random (candidate, reference) pairs of them
   whose two sentences come from different documents.
4. Embed every drawn sentence once with the model, keeping all hidden layers
   (0 = embeddings ... L), and score each pair at each layer with
   :func:`ragmetrics_edu.generation.semantic.score_from_similarity`, no IDF, best
   similarities floored at 0 (``clip_at_zero=True``, as bert-score scores).
5. Write the mean P, R, F of each layer in bert-score's baseline format
   (``LAYER,P,R,F``, comma-separated, one row per layer), so the file also
   works as ``bert_score.score(..., baseline_path=...)``.

Usage::

    HF_HUB_OFFLINE=1 python tools/make_bertscore_baseline.py [--model FOLDER]
        [--cranfield cran.all.1400] [--out FILE]

The default writes ``ragmetrics_edu/data/bertscore_baselines/all-MiniLM-L6-v2.tsv``.
"""

import argparse
import re
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ragmetrics_edu.models import loading as _models  # noqa: E402
from ragmetrics_edu.generation.semantic import baseline_path, score_from_similarity  # noqa: E402

SEED = 20200214  # any fixed number; the date of the BERTScore ICLR version
N_SENTENCES = 2000
N_PAIRS = 10000
MIN_WORDS, MAX_WORDS = 5, 60

CRANFIELD = ROOT / "ragmetrics_edu" / "data" / "cranfield" / "cran.all.1400"


def read_abstracts(path):
    """Return ``{doc_id: abstract}`` from a Cranfield ``cran.all.1400`` file."""
    docs, doc_id, field, lines = {}, None, None, []

    def flush():
        if doc_id is not None and field == ".W":
            docs[doc_id] = " ".join(lines)

    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith(".I "):
                flush()
                doc_id, field, lines = int(line.split()[1]), None, []
            elif re.fullmatch(r"\.[TABW]", line.strip()):
                flush()
                field, lines = line.strip(), []
            else:
                lines.append(line.strip())
    flush()
    return docs


def sentences(abstracts):
    """All (doc_id, sentence) with MIN_WORDS..MAX_WORDS words."""
    out = []
    for doc_id, text in sorted(abstracts.items()):
        for sent in re.split(r"\s\.(?:\s|$)", " ".join(text.split())):
            sent = sent.strip()
            if MIN_WORDS <= len(sent.split()) <= MAX_WORDS:
                out.append((doc_id, sent + " ."))
    return out


def all_layer_vectors(texts, model, batch_size=64):
    """Unit-length token vectors of every text at every layer: list over texts
    of arrays (n_layers + 1, n_tokens, dim).  Runs the NumPy encoder (no torch)."""
    from ragmetrics_edu.models import minilm

    tokenizer, encoder = _models.load_model(model)
    ids = _models.encode_ids(texts, model)
    out = [None] * len(texts)
    order = sorted(range(len(texts)), key=lambda i: -len(ids[i]))
    for start in range(0, len(order), batch_size):
        idx = order[start:start + batch_size]
        hidden = minilm.forward(encoder, [ids[i] for i in idx])  # L + 1 arrays (b, t, d)
        stacked = np.stack(hidden, axis=1)  # (b, L + 1, t, d)
        for row, i in enumerate(idx):
            v = stacked[row, :, :len(ids[i])]
            out[i] = v / np.linalg.norm(v, axis=-1, keepdims=True)
    special = {tokenizer.cls_token_id, tokenizer.sep_token_id}
    weights = [np.array([0.0 if t in special else 1.0 for t in x]) for x in ids]
    return out, weights


def compute_baseline(cranfield, model=None, seed=SEED, n_sentences=N_SENTENCES,
                     n_pairs=N_PAIRS):
    """Mean (P, R, F) per layer over random pairs: array (n_layers + 1, 3)."""
    pool = sentences(read_abstracts(cranfield))
    rng = np.random.default_rng(seed)
    chosen = rng.choice(len(pool), size=min(n_sentences, len(pool)), replace=False)
    docs = np.array([pool[k][0] for k in chosen])
    texts = [pool[k][1] for k in chosen]
    pairs = []
    while len(pairs) < n_pairs:
        a, b = rng.integers(len(texts), size=2)
        if docs[a] != docs[b]:
            pairs.append((int(a), int(b)))
    vectors, weights = all_layer_vectors(texts, model)
    n_layers = vectors[0].shape[0]
    totals = np.zeros((n_layers, 3))
    for a, b in pairs:
        for layer in range(n_layers):
            sim = vectors[a][layer] @ vectors[b][layer].T
            totals[layer] += score_from_similarity(sim, weights[a], weights[b])
    return totals / len(pairs), len(texts), len(pairs)


def write_baseline(table, out):
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        f.write("LAYER,P,R,F\n")
        for layer, (p, r, fs) in enumerate(table):
            f.write(f"{layer},{p:.8f},{r:.8f},{fs:.8f}\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None,
                        help="model folder or hub name (default: all-MiniLM-L6-v2)")
    parser.add_argument("--cranfield", default=str(CRANFIELD),
                        help="path of cran.all.1400 (default: the copy in the package)")
    parser.add_argument("--out", default=None, help="output file")
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    if not Path(args.cranfield).is_file():
        parser.error(f"{args.cranfield} not found; pass --cranfield")
    table, n_sent, n_pairs = compute_baseline(args.cranfield, args.model, seed=args.seed)
    out = args.out or baseline_path(args.model)
    write_baseline(table, out)
    print(f"{n_pairs} random pairs of {n_sent} Cranfield sentences, seed {args.seed}")
    print(f"wrote {out}")
    for layer, (p, r, f) in enumerate(table):
        print(f"layer {layer}: P={p:.4f} R={r:.4f} F={f:.4f}")


if __name__ == "__main__":
    main()
