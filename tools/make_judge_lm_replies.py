"""Compute the language-model judge's outputs that notebooks 07 and 08 read.

Runs SmolLM2-135M-Instruct (the package's NumPy model) as a judge over the
labelled answer set (``rj.load_eval_set()``) and writes
``ragmetrics_edu/data/judge_lm/judge_lm.json``:

* ``grades``: for every answer and both rubrics (faithfulness with the
  chunks as context, relevance with the question), the probabilities of the
  grades 1-5 after ``Score:``, their mass before renormalising, the most
  likely and the expected grade (``rm.grade_distribution``);
* ``free_reply``: the unconstrained greedy reply to the first answer's
  faithfulness prompt;
* ``sampled``: the reply to that prompt drawn at temperature 1 with seeds 0-9;
* ``bias``: the model's distributions in notebook 07's two bias measurements
  (``judge.bias``): each labelled question's good answer (``a``), plain and
  padded with two neutral sentences, graded on both rubrics; and the pair
  (``a``, ``b``) of every question compared in both orders.

It also writes ``bias_replies.jsonl`` beside it: the replies of those bias
measurements as a reply cache (``rj.CachedJudge``), so that the notebook
runs ``bias.verbosity_bias`` and ``bias.position_bias`` on the model's real
replies without loading it.

Usage::

    python tools/make_judge_lm_replies.py              # everything (about 10 minutes on two cores)
    python tools/make_judge_lm_replies.py --part bias  # the bias part only, kept beside the grades
"""

import argparse
import json
from pathlib import Path


import ragmetrics_edu as rm
from ragmetrics_edu import judge as rj

OUT = Path(__file__).resolve().parents[1] / "ragmetrics_edu" / "data" / "judge_lm" / "judge_lm.json"
BIAS_REPLIES = OUT.with_name("bias_replies.jsonl")
SEEDS = list(range(10))


def grade_record(judge, rec, ans):
    context = [c["text"] for c in rec["chunks"]]
    out = {}
    for rubric, kwargs in (("faithfulness", {"context": context}),
                           ("relevance", {"question": rec["question"]})):
        g = rm.grade_distribution(judge, rubric, ans["text"], **kwargs)
        out[rubric] = {"distribution": [round(g.distribution[s], 6) for s in range(1, 6)],
                       "mass": round(g.mass, 6), "most_likely": g.score,
                       "expected": round(g.expected, 6)}
    return out


def sampled_replies(judge, prompt, seeds, temperature=1.0):
    """What ``LanguageModelJudge(temperature=..., seed=s).complete(prompt)`` replies for each
    seed, from one pass of the model."""
    dist = judge.distribution(prompt)
    return [rm.LanguageModelJudge(judge.lm, temperature=temperature, seed=s).reply_from(dist, prompt)
            for s in seeds]


class RecordingJudge:
    """The language-model judge, keeping the distribution behind each reply."""

    def __init__(self, judge):
        self.judge = judge
        self.model, self.parameters = judge.model, judge.parameters
        self.seen = []

    def complete(self, prompt):
        """The judge's reply, from the distribution it records."""
        dist = self.judge.distribution(prompt)
        self.seen.append({label: round(float(p), 6)
                          for label, p in zip(dist.labels, dist.probabilities)})
        return self.judge.reply_from(dist, prompt)

    def take(self, n_items):
        """The distributions of the last measurement, two per item, in the order asked."""
        if len(self.seen) != 2 * n_items:   # a prompt asked twice would be replayed, not seen
            raise RuntimeError(f"expected {2 * n_items} new prompts, saw {len(self.seen)}")
        seen, self.seen = self.seen, []
        return [(seen[2 * i], seen[2 * i + 1]) for i in range(n_items)]


def bias_items(data):
    """The items of 07's bias cells: each question's answer ``a`` (and ``b`` for pairs)."""
    good = [(rec, rec["answers"][0]) for rec in data]
    relevance = [{"answer": ans["text"], "question": rec["question"]} for rec, ans in good]
    faithfulness = [{"answer": ans["text"], "context": [c["text"] for c in rec["chunks"]]}
                    for rec, ans in good]
    pairs = [{"question": rec["question"], "answer_1": rec["answers"][0]["text"],
              "answer_2": rec["answers"][1]["text"],
              "context": [c["text"] for c in rec["chunks"]]} for rec in data]
    return [ans["id"] for _, ans in good], relevance, faithfulness, pairs


def bias_record(data):
    """Run 07's two bias measurements with the model; the distributions per item."""
    from ragmetrics_edu.judge import bias

    ids, relevance, faithfulness, pairs = bias_items(data)
    BIAS_REPLIES.unlink(missing_ok=True)
    recorder = RecordingJudge(rm.LanguageModelJudge())
    judge = rj.CachedJudge(recorder, BIAS_REPLIES)
    out = {"ids": ids, "n_sentences": 2}
    for rubric, items in (("relevance", relevance), ("faithfulness", faithfulness)):
        report = bias.verbosity_bias(judge, items, rubric=rubric, n_sentences=2)
        print(rubric, report, flush=True)
        out[rubric] = [{"answer": a, "padded": b} for a, b in recorder.take(len(items))]
    report = bias.position_bias(judge, pairs)
    print("position", report, flush=True)
    out["position"] = [{"answer_1_first": a, "answer_2_first": b}
                       for a, b in recorder.take(len(pairs))]
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--part", choices=["all", "bias"], default="all")
    args = parser.parse_args()
    data = rj.load_eval_set()
    if args.part == "bias":
        result = json.loads(OUT.read_text())
        result["bias"] = bias_record(data)
        OUT.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
        return
    judge = rm.LanguageModelJudge()
    rec, ans = data[0], data[0]["answers"][0]
    prompt = rj.build_rubric_prompt("faithfulness", ans["text"],
                                    context=[c["text"] for c in rec["chunks"]])
    sampled = sampled_replies(judge, prompt, SEEDS)
    free = rm.LanguageModelJudge(constrained=False).complete(prompt)
    print("free:", repr(free), "sampled:", sampled, flush=True)
    result = {"model": judge.model, "settings": judge.parameters, "seeds": SEEDS,
              "free_reply": {"id": ans["id"], "rubric": "faithfulness", "reply": free},
              "sampled": {"id": ans["id"], "rubric": "faithfulness", "temperature": 1.0,
                          "replies": sampled},
              "grades": []}
    for rec in data:
        for ans in rec["answers"]:
            row = {"id": ans["id"], "ratings": ans["ratings"]}
            row.update(grade_record(judge, rec, ans))
            result["grades"].append(row)
            OUT.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
            print(ans["id"], row["faithfulness"]["expected"], row["relevance"]["expected"],
                  flush=True)
    result["bias"] = bias_record(data)
    OUT.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
