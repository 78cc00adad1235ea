"""Write the MiniLM embeddings of the Cranfield documents and queries into the package.

    python tools/make_cranfield_embeddings.py

Encoding the 1,400 abstracts takes minutes on a laptop CPU, so
``ragmetrics_edu.lab.retrievers.dense_run`` reads these files instead when it is
given exactly the Cranfield texts. Run this script again whenever the
encoder (``ragmetrics_edu.models.loading.encode_sentences``), the model or the
loader changes; tests/lab/test_retrievers.py checks that a few stored rows equal
fresh encodings.

Writes, in ragmetrics_edu/data/cranfield/:

* ``cranfield_minilm_docs.npy``: (1400, 384) float32, the ``"text"`` of each
  document (the abstract, title included), in document-id order;
* ``cranfield_minilm_queries.npy``: (225, 384) float32, the queries in order;
* ``cranfield_minilm.json``: how they were made, and a SHA-256 digest of the
  ids and texts each file holds.
"""

import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ragmetrics_edu.models import loading as _models  # noqa: E402
from ragmetrics_edu.lab.datasets import load_cranfield  # noqa: E402
from ragmetrics_edu.lab.retrievers import (  # noqa: E402
    EMBEDDINGS_FILES, EMBEDDINGS_META, _digest, _texts,
)

OUT = ROOT / "ragmetrics_edu" / "data" / "cranfield"


def main():
    import torch
    import transformers

    cran = load_cranfield()
    meta = {
        "model": _models.short_model_name(),
        "recipe": "ragmetrics_edu.models.loading.encode_sentences: mean pooling of the last "
                  "layer, L2-normalised, max_seq_length word pieces",
        "dim": None,
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "script": "tools/make_cranfield_embeddings.py",
    }
    for kind, items in (("queries", cran.queries), ("docs", cran.docs)):
        ids, texts = _texts(items, kind, "text")
        start = time.perf_counter()
        vectors = _models.encode_sentences(texts).astype(np.float32)
        seconds = time.perf_counter() - start
        np.save(OUT / EMBEDDINGS_FILES[kind], vectors, allow_pickle=False)
        meta["dim"] = int(vectors.shape[1])
        meta[kind] = {
            "file": EMBEDDINGS_FILES[kind],
            "rows": len(ids),
            "field": "text" if kind == "docs" else None,
            "digest": _digest(ids, texts),
        }
        print(f"{kind}: {vectors.shape} in {seconds:.1f} s", flush=True)
    (OUT / EMBEDDINGS_META).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {OUT / EMBEDDINGS_META}")


if __name__ == "__main__":
    main()
