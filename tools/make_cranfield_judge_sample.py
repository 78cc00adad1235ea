"""Write the sample of Cranfield (query, document) pairs that judges are held against.

    python tools/make_cranfield_judge_sample.py            # write the file
    python tools/make_cranfield_judge_sample.py --check    # rebuild, compare, write nothing

Draws, with a fixed seed, 40 queries among the Cranfield queries with at
least three judged documents, and for each query:

* judged documents: up to two of each grade the query has (grades 1 to 4,
  ``5 - code`` of Cleverdon's codes 4 to 1, as ``load_cranfield()`` maps them),
  drawn at random;
* unjudged documents from the top of two rankings: the two best-ranked
  documents of BM25's top 10 that the query's judgements do not list, then
  the two best-ranked of dense retrieval's top 10 not already picked. The
  source document of each query (code -1, the paper the question was
  written from) is never picked as unjudged.

Every pair carries the query, the document's text (title and abstract), Cleverdon's
code and the grade (0 for an unjudged document: what the collection assumes,
not a judgement), where it came from, and its rank and score under BM25 and
dense retrieval over the whole collection.

Writes ``ragmetrics_edu/data/cranfield_judge_sample/pairs.jsonl``, one pair
per line; the README beside it says what the file is. Needs the ``lab``
extra (bm25s) and the shipped MiniLM embeddings of the collection.
"""

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import ragmetrics_edu as rm  # noqa: E402

from ragmetrics_edu.lab.retrievers import bm25_run, dense_run  # noqa: E402

OUT = ROOT / "ragmetrics_edu" / "data" / "cranfield_judge_sample" / "pairs.jsonl"
SEED = 25
N_QUERIES = 40
MIN_JUDGED = 3
PER_GRADE = 2
UNJUDGED_PER_RANKING = 2
TOP = 10


def _ranks(run):
    """``{qid: {docid: (rank, score)}}`` of a run (ranks from 1, trec_eval's order)."""
    out = {}
    for qid, scores in run.items():
        order = sorted(sorted(scores, reverse=True), key=lambda d: -scores[d])  # stable
        out[qid] = {d: (r, float(scores[d])) for r, d in enumerate(order, start=1)}
    return out


def build(seed=SEED):
    """The list of pair records (no file written)."""
    cran = rm.load_cranfield()
    bm25 = _ranks(bm25_run(cran.docs, cran.queries, depth=None))
    dense = _ranks(dense_run(cran.docs, cran.queries, depth=None))
    rng = np.random.default_rng(seed)
    eligible = sorted((q for q, judged in cran.qrels.items() if len(judged) >= MIN_JUDGED), key=int)
    queries = sorted(rng.choice(eligible, size=N_QUERIES, replace=False).tolist(), key=int)
    pairs = []
    for qid in queries:
        judged = cran.qrels[qid]
        picked = []
        for grade in (4, 3, 2, 1):
            docs = sorted((d for d, g in judged.items() if g == grade), key=int)
            if docs:
                take = rng.choice(docs, size=min(PER_GRADE, len(docs)), replace=False).tolist()
                picked += [(d, "qrels") for d in sorted(take, key=int)]
        skip = set(judged) | {cran.source_docs[qid]}
        for name, ranking in (("bm25", bm25), ("dense", dense)):
            top = sorted(ranking[qid], key=lambda d: ranking[qid][d][0])[:TOP]
            chosen = [d for d in top if d not in skip and d not in {p for p, _ in picked}]
            picked += [(d, name) for d in chosen[:UNJUDGED_PER_RANKING]]
        for docid, origin in picked:
            code = cran.raw_qrels[qid].get(docid)
            is_judged = docid in judged
            pairs.append({
                "pair_id": f"q{qid}-d{docid}",
                "qid": qid,
                "query": cran.queries[qid],
                "docid": docid,
                "text": cran.docs[docid]["text"],
                "judged": is_judged,
                "code": code if is_judged else None,
                "grade": judged[docid] if is_judged else 0,
                "origin": origin,
                # BM25 ranks only documents sharing a term with the query: the others
                # have no rank and score 0
                "bm25_rank": bm25[qid].get(docid, (None, 0.0))[0],
                "bm25_score": round(bm25[qid].get(docid, (None, 0.0))[1], 6),
                "dense_rank": dense[qid][docid][0],
                "dense_score": round(dense[qid][docid][1], 6),
            })
    return pairs


def _lines(pairs):
    return "".join(json.dumps(p, ensure_ascii=False, sort_keys=True) + "\n" for p in pairs)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="rebuild and compare with the shipped file; write nothing")
    args = parser.parse_args(argv)
    pairs = build()
    text = _lines(pairs)
    if args.check:
        same = OUT.exists() and OUT.read_text(encoding="utf-8") == text
        print("pairs.jsonl is up to date" if same else "pairs.jsonl differs from a fresh build")
        return 0 if same else 1
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text, encoding="utf-8")
    grades = {}
    for p in pairs:
        grades[p["grade"]] = grades.get(p["grade"], 0) + 1
    origins = {}
    for p in pairs:
        origins[p["origin"]] = origins.get(p["origin"], 0) + 1
    print(f"wrote {len(pairs)} pairs over {len({p['qid'] for p in pairs})} queries to "
          f"{OUT.relative_to(ROOT)} ({OUT.stat().st_size} bytes)")
    print("grades:", dict(sorted(grades.items())), "origins:", origins)
    return 0


if __name__ == "__main__":
    sys.exit(main())
