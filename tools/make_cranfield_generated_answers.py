"""Write the local language model's answers to the first Cranfield QA questions (notebook 11).

For each of the first ``--n`` questions of ``rm.load_cranfield_qa()``, the
fusion system of notebook 11 (reciprocal-rank fusion, k = 60, of BM25 and
all-MiniLM-L6-v2 dense retrieval) retrieves the top 3 abstracts and
``LocalGenerativeAnswerer`` (SmolLM2-135M-Instruct in NumPy, greedy, 40 new
tokens at most, stop at a line break) answers from them. About 15 s per
answer on two CPU cores, which is why the notebook reads this file.

    python tools/make_cranfield_generated_answers.py [--n 8]
"""

import argparse
import json
import pathlib

import ragmetrics_edu as rm
from ragmetrics_edu.lab import retrievers as rr
from ragmetrics_edu.lab.answer import LocalGenerativeAnswerer
from ragmetrics_edu.lab.datasets import qa_queries

OUT = (pathlib.Path(__file__).resolve().parent.parent / "ragmetrics_edu" / "data"
       / "cranfield_generated_answers" / "cranfield_generated_answers.json")
K = 3


def fusion_top(k=K):
    """{question id: top-k document ids of the fusion run}, as in notebook 11."""
    cran = rm.load_cranfield()
    queries = qa_queries(rm.load_cranfield_qa())
    run = rr.rrf([rr.bm25_run(cran.docs, queries, depth=100),
                  rr.dense_run(cran.docs, queries, depth=100)], rank_constant=60, depth=100)
    return {q: sorted(run[q], key=run[q].get, reverse=True)[:k] for q in run}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=8)
    args = parser.parse_args()
    qa = rm.load_cranfield_qa()[:args.n]
    tops = fusion_top()
    answerer = LocalGenerativeAnswerer()
    rows = []
    for it in qa:
        a = answerer(it.question, tops[it.id])
        rows.append({"id": it.id, "question": it.question, "doc_ids": tops[it.id], "answer": a.text})
        print(it.id, repr(a.text), flush=True)
    meta = {"model": answerer.model.name, "retrieval": "fusion (RRF k=60 of BM25 and dense), top 3",
            "max_new_tokens": answerer.max_new_tokens, "stop": list(answerer.stop),
            "temperature": 0.0}
    OUT.write_text(json.dumps({"meta": meta, "answers": rows}, indent=1, ensure_ascii=False) + "\n",
                   encoding="utf-8")
    print("wrote", OUT)


if __name__ == "__main__":
    main()
