"""Compute the language-model judge's outputs that notebook 06 reads.

Runs SmolLM2-135M-Instruct (the package's NumPy model) as a judge over the
labelled answer set (``rj.load_eval_set()``) and writes
``ragmetrics_edu/data/judge_lm/judge_lm.json``:

* ``grades``: for every answer and both rubrics (faithfulness with the
  chunks as context, relevance with the question), the probabilities of the
  grades 1-5 after ``Score:``, their mass before renormalising, the most
  likely and the expected grade (``rm.grade_distribution``);
* ``free_reply``: the unconstrained greedy reply to the first answer's
  faithfulness prompt;
* ``sampled``: the reply to that prompt drawn at temperature 1 with seeds 0-9.

Usage: ``python tools/make_judge_lm_replies.py`` (a few minutes on two cores).
"""

import json
from pathlib import Path

import numpy as np

import ragmetrics_edu as rm
from ragmetrics_edu import judge as rj

OUT = Path(__file__).resolve().parents[1] / "ragmetrics_edu" / "data" / "judge_lm" / "judge_lm.json"
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
    """What ``LanguageModelJudge(temperature=..., seed=s).complete(prompt)`` replies.

    The model's distribution is computed once and each seed's draw repeated
    as ``complete`` makes it (a test checks the two agree).
    """
    from ragmetrics_edu.models.decoder import top_p_filter

    dist = judge.distribution(prompt)
    p = dist.probabilities ** (1.0 / temperature)
    p = top_p_filter(p / p.sum(), 1.0)
    return [f"Score: {dist.labels[int(np.random.default_rng(s).choice(len(p), p=p))]}"
            for s in seeds]


def main():
    data = rj.load_eval_set()
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


if __name__ == "__main__":
    main()
