"""Write the MiniLM embeddings of every sentence of the Cranfield abstracts into the package.

    python tools/make_cranfield_sentence_embeddings.py

``ragmetrics_edu.lab.answer.ExtractiveAnswerer`` picks the sentence of the
retrieved abstracts closest to the question; encoding the 9,482 sentences
of the collection takes minutes, so a notebook reads these files instead
and only embeds its questions. Run this script again whenever the sentence
splitter (``ragmetrics_edu.lab.answer.split_abstract``), the encoder
(``ragmetrics_edu.models.loading.encode_sentences``), the model or the loader
changes: the answerer checks the digest below and ignores stale vectors.

Writes, in ragmetrics_edu/data/cranfield/:

* ``cranfield_minilm_sentences.npy``: (n_sentences, 384) float16, one
  unit-length row per sentence, in document order then sentence order
  (float16 halves the file; a cosine moves by under 2e-3);
* ``cranfield_minilm_sentences.json``: how they were made, the number of
  sentences of each document (in order), and a SHA-256 digest of the
  (document id, sentence) pairs.
"""

import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ragmetrics_edu.models import loading as _models  # noqa: E402
from ragmetrics_edu.lab.answer import (  # noqa: E402
    SENTENCES_FILE, SENTENCES_META, _digest, cranfield_sentences,
)

OUT = ROOT / "ragmetrics_edu" / "data" / "cranfield"


def main():
    ids, sentences = cranfield_sentences()
    start = time.perf_counter()
    vectors = _models.encode_sentences(sentences)
    seconds = time.perf_counter() - start
    np.save(OUT / SENTENCES_FILE, vectors.astype(np.float16), allow_pickle=False)
    counts = {}
    for d in ids:
        counts[d] = counts.get(d, 0) + 1
    meta = {
        "model": _models.short_model_name(),
        "recipe": "ragmetrics_edu.models.loading.encode_sentences of ragmetrics_edu.lab.answer.split_abstract "
                  "of each document's text, stored as float16",
        "dim": int(vectors.shape[1]),
        "rows": len(sentences),
        "dtype": "float16",
        "digest": _digest(ids, sentences),
        "sentences_per_doc": counts,
        "script": "tools/make_cranfield_sentence_embeddings.py",
    }
    (OUT / SENTENCES_META).write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    print(f"{len(sentences)} sentences in {seconds:.1f} s; wrote {OUT / SENTENCES_FILE}")


if __name__ == "__main__":
    main()
