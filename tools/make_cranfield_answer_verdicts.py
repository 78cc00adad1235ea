"""Write the judge's verdicts on the Cranfield QA set's answers that lesson 13 scores.

    python tools/make_cranfield_answer_verdicts.py            # write the file
    python tools/make_cranfield_answer_verdicts.py --check    # rebuild, compare, write nothing

For each retrieval system of lesson 11 (BM25, dense retrieval with
all-MiniLM-L6-v2, their reciprocal-rank fusion) and each question of the
Cranfield QA set, asked in its original words and as its paraphrased twin,
the extractive answerer reads the top 3 documents and answers. The offline
stand-in judge (``EmbeddingJudge`` with its default thresholds, lesson 07)
then gives:

* ``nuggets``: the assignment of each of the question's nuggets to the
  answer (``rm.assign_nuggets``; the stand-in answers yes or no, so never
  ``partial_support``);
* ``claims`` (original questions only): each sentence of the answer with the
  verdict "supported by the three retrieved documents"
  (``judge_claims``);
* ``entails`` (original questions only): every entailment verdict that
  ALCE's citation recall and precision ask for two answers with citations,
  the answer citing the passage it came from (``[i]``) and the same answer
  citing the best-ranked other passage: ``[passage numbers, statement,
  verdict]``, the premise being those passages joined by new lines.

A language-model judge would take minutes over the 408 answers and the
stand-in some 20 seconds, too slow for a lesson run four times by the test
suite; the lesson reads these verdicts and recomputes a few live.

Writes ``ragmetrics_edu/data/cranfield_answer_verdicts/verdicts.jsonl``;
the README beside it says what the file is. Needs the ``lab`` extra (bm25s)
and the shipped MiniLM embeddings of the collection.
"""

import argparse
import itertools
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import ragmetrics_edu as rm  # noqa: E402
from ragmetrics_edu import judge as rj  # noqa: E402
from ragmetrics_edu.judge.citations import entailment_from_judge  # noqa: E402
from ragmetrics_edu.judge.claims import judge_claims  # noqa: E402
from ragmetrics_edu.lab import retrievers as rr  # noqa: E402
from ragmetrics_edu.lab.datasets import qa_queries  # noqa: E402

OUT = ROOT / "ragmetrics_edu" / "data" / "cranfield_answer_verdicts" / "verdicts.jsonl"
SYSTEMS = ("bm25", "dense", "fusion")
K = 3


def top(run, qid, k=K):
    """The first k document ids of one question's ranking."""
    return sorted(run[qid], key=run[qid].get, reverse=True)[:k]


def runs_for(items, docs):
    """The three systems' runs (top 100) for these questions."""
    queries = qa_queries(items)
    runs = {"bm25": rr.bm25_run(docs, queries, depth=100),
            "dense": rr.dense_run(docs, queries, depth=100)}
    runs["fusion"] = rr.rrf([runs["bm25"], runs["dense"]], rank_constant=60, depth=100)
    return runs


def cited_answers(sentence, doc_ids, answer_doc):
    """The answer citing its own passage, and citing the best-ranked other one."""
    right = doc_ids.index(answer_doc) + 1
    wrong = next(i for i, d in enumerate(doc_ids, start=1) if d != answer_doc)
    return f"{sentence} [{right}].", f"{sentence} [{wrong}]."


def recording(entails, passages, log):
    """``entails`` that also logs each call as ``[passage numbers, statement, verdict]``."""
    premises = {}
    for r in range(1, len(passages) + 1):
        for combo in itertools.permutations(range(1, len(passages) + 1), r):
            premises.setdefault("\n".join(passages[n - 1] for n in combo), list(combo))

    def call(premise, hypothesis):
        verdict = bool(entails(premise, hypothesis))
        entry = [premises[premise], hypothesis, verdict]
        if entry not in log:
            log.append(entry)
        return verdict
    return call


def build(ids=None):
    """The records, for every question or only those of ``ids`` (the systems see every question)."""
    cran = rm.load_cranfield()
    sets = {"original": rm.load_cranfield_qa(), "paraphrase": rm.load_cranfield_paraphrases()}
    nuggets = rm.load_cranfield_nuggets()
    judge = rj.EmbeddingJudge()
    entails = entailment_from_judge(judge)
    answerer = rm.ExtractiveAnswerer()
    records = []
    for name, items in sets.items():
        runs = runs_for(items, cran.docs)
        answerer.prepare([it.question for it in items])
        for system in SYSTEMS:
            for it in items:
                if ids is not None and it.id not in ids:
                    continue
                doc_ids = top(runs[system], it.id)
                a = answerer(it.question, doc_ids)
                record = {"questions": name, "system": system, "id": it.id, "docs": doc_ids,
                          "answer": a.text, "answer_doc": a.doc_ids[0],
                          "nuggets": [n["assignment"] for n in
                                      rm.assign_nuggets(judge, it.question, a.text, nuggets[it.id])]}
                if name == "original":
                    passages = [cran.docs[d]["text"] for d in doc_ids]
                    record["claims"] = [[c, bool(v)] for c, v in judge_claims(judge, a.text, passages)]
                    log = []
                    rec = recording(entails, passages, log)
                    for answer in cited_answers(a.text, doc_ids, a.doc_ids[0]):
                        rm.citation_scores(answer, passages, entails=rec)
                    record["entails"] = log
                records.append(record)
    return records


def dumps(records):
    return "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in records)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="rebuild and compare, write nothing")
    args = parser.parse_args(argv)
    text = dumps(build())
    if args.check:
        same = OUT.read_text(encoding="utf-8") == text
        print("up to date" if same else f"{OUT} differs from a fresh build")
        return 0 if same else 1
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)} ({len(text.splitlines())} records)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
