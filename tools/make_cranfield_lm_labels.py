"""Compute the language model's relevance labels on the Cranfield judge sample.

    python tools/make_cranfield_lm_labels.py              # compute (resumes a stopped run)
    python tools/make_cranfield_lm_labels.py --limit 5    # only the first 5 pairs missing

Runs SmolLM2-135M-Instruct (the package's NumPy model,
``rm.LanguageModelJudge()`` with its defaults) over the 331 (query, document)
pairs of ``rm.load_cranfield_judge_sample()`` with two prompts:

* yes/no: ``rag.build_relevance_prompt(query, text)``; the model's
  probability of `` yes`` against `` no`` after ``Verdict:``
  (``judge.probability_yes``);
* graded: ``rag.build_graded_relevance_prompt(query, text)`` (the scale 0-4
  of Cranfield's assessors); the probabilities of `` 0`` ... `` 4`` after
  ``Score:`` (``judge.distribution``), the most likely grade and the expected
  grade.

Writes ``ragmetrics_edu/data/cranfield_judge_sample/lm_labels.json`` after
every pair (so a stopped run loses one pair at most and resumes where it
stopped: the pairs already in the file are skipped), probabilities rounded
to six decimals, keyed by ``pair_id``. The README beside it says what the
file holds. About two prompts of 250-800 tokens per pair: 15-60 minutes on
two shared cores.
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import ragmetrics_edu as rm  # noqa: E402
from ragmetrics_edu.judge import rag  # noqa: E402

OUT = ROOT / "ragmetrics_edu" / "data" / "cranfield_judge_sample" / "lm_labels.json"
DECIMALS = 6


def label_pair(judge, pair):
    """The model's two labels of one (query, document) pair, rounded."""
    binary = judge.distribution(rag.build_relevance_prompt(pair["query"], pair["text"]))
    graded = judge.distribution(rag.build_graded_relevance_prompt(pair["query"], pair["text"]))
    assert binary.labels == ["yes", "no"] and graded.labels == ["0", "1", "2", "3", "4"]
    return {
        "p_yes": round(float(binary.probabilities[0]), DECIMALS),
        "verdict_mass": round(float(binary.mass), DECIMALS),
        "grade_probabilities": [round(float(p), DECIMALS) for p in graded.probabilities],
        "most_likely_grade": int(graded.most_likely),
        "expected_grade": round(graded.expected, DECIMALS),
        "grade_mass": round(float(graded.mass), DECIMALS),
    }


def _write(path, result):
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--limit", type=int, default=None, help="label at most this many new pairs")
    args = parser.parse_args(argv)

    pairs = rm.load_cranfield_judge_sample()
    judge = rm.LanguageModelJudge()
    result = {"model": judge.model, "settings": judge.parameters,
              "prompts": {"binary": "rag.RELEVANCE_TEMPLATE",
                          "graded": "rag.GRADED_RELEVANCE_TEMPLATE"},
              "decimals": DECIMALS, "labels": {}}
    if args.out.exists():
        old = json.loads(args.out.read_text(encoding="utf-8"))
        result["labels"] = old.get("labels", {})
    todo = [p for p in pairs if p["pair_id"] not in result["labels"]]
    if args.limit is not None:
        todo = todo[:args.limit]
    print(f"{len(result['labels'])} pairs done, {len(todo)} to label", flush=True)
    start = time.perf_counter()
    for n, pair in enumerate(todo, start=1):
        result["labels"][pair["pair_id"]] = label_pair(judge, pair)
        order = {p["pair_id"]: i for i, p in enumerate(pairs)}
        result["labels"] = dict(sorted(result["labels"].items(), key=lambda kv: order[kv[0]]))
        _write(args.out, result)
        row = result["labels"][pair["pair_id"]]
        print(f"{n}/{len(todo)} {pair['pair_id']} grade {pair['grade']}: P(yes) {row['p_yes']:.3f}, "
              f"expected grade {row['expected_grade']:.2f} ({time.perf_counter() - start:.0f} s)",
              flush=True)
    print(f"done: {len(result['labels'])} of {len(pairs)} pairs in {args.out.name}, "
          f"{time.perf_counter() - start:.0f} s", flush=True)


if __name__ == "__main__":
    main()
