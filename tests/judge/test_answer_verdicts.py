"""The shipped verdicts on the QA set's answers (lesson 13): their shape, and a sample rebuilt live."""

import importlib.util
import json
from pathlib import Path

import pytest

import ragmetrics_edu as rm
from ragmetrics_edu.judge.citations import parse_citations

ROOT = Path(__file__).resolve().parents[2]
FILE = ROOT / "ragmetrics_edu" / "data" / "cranfield_answer_verdicts" / "verdicts.jsonl"


def _tool():
    spec = importlib.util.spec_from_file_location("make_cranfield_answer_verdicts",
                                                  ROOT / "tools" / "make_cranfield_answer_verdicts.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def records():
    return [json.loads(line) for line in FILE.read_text(encoding="utf-8").splitlines()]


def test_one_record_per_question_system_and_wording(records):
    keys = [(r["questions"], r["system"], r["id"]) for r in records]
    assert len(keys) == len(set(keys)) == 2 * 3 * 68
    nuggets = rm.load_cranfield_nuggets()
    for r in records:
        assert len(r["nuggets"]) == len(nuggets[r["id"]])
        assert set(r["nuggets"]) <= {"support", "not_support"}    # a yes/no judge: no partial support
        assert len(r["docs"]) == 3 and r["answer_doc"] in r["docs"]
        assert ("claims" in r) == ("entails" in r) == (r["questions"] == "original")


def test_entailments_cover_both_cited_answers(records):
    tool = _tool()
    for r in records:
        if r["questions"] != "original":
            continue
        logged = {(tuple(p), s) for p, s, _ in r["entails"]}
        for answer in tool.cited_answers(r["answer"], r["docs"], r["answer_doc"]):
            for st in parse_citations(answer, n_passages=3):
                if not st.citations:      # a statement citing nothing scores 0 unjudged
                    continue
                assert (tuple(st.citations), st.text) in logged


@pytest.mark.skipif(importlib.util.find_spec("bm25s") is None, reason="needs the lab extra (bm25s)")
def test_a_sample_rebuilt_live_is_the_shipped_one(records):
    sample = {"cqa-001", "cqa-014", "cqa-047"}
    fresh = _tool().build(ids=sample)
    shipped = [r for r in records if r["id"] in sample]
    assert len(fresh) == len(shipped) == 2 * 3 * len(sample)
    assert fresh == shipped
