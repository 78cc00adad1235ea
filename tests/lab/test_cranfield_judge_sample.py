"""The shipped sample of Cranfield pairs for judging: what the README says it is."""

import collections
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

import ragmetrics_edu as rm
from ragmetrics_edu.judge.cranfield_sample import load_cranfield_judge_sample

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def pairs():
    return load_cranfield_judge_sample()


@pytest.fixture(scope="module")
def cran():
    return rm.load_cranfield()


def test_size_and_queries(pairs):
    assert len(pairs) == 331
    per_query = collections.Counter(p["qid"] for p in pairs)
    assert len(per_query) == 40 and min(per_query.values()) >= 4
    assert len({p["pair_id"] for p in pairs}) == len(pairs)


def test_judged_grades_are_the_assessors(pairs, cran):
    for p in pairs:
        if p["judged"]:
            assert p["origin"] == "qrels"
            assert cran.raw_qrels[p["qid"]][p["docid"]] == p["code"]
            assert p["grade"] == 5 - p["code"] == cran.qrels[p["qid"]][p["docid"]]
    grades = collections.Counter(p["grade"] for p in pairs if p["judged"])
    assert sorted(grades) == [1, 2, 3, 4]


def test_unjudged_come_from_the_top_ten_and_are_not_in_the_qrels(pairs, cran):
    unjudged = [p for p in pairs if not p["judged"]]
    assert unjudged and all(p["grade"] == 0 and p["code"] is None for p in unjudged)
    for p in unjudged:
        assert p["docid"] not in cran.raw_qrels[p["qid"]]  # neither judged nor the source document
        rank = p["bm25_rank"] if p["origin"] == "bm25" else p["dense_rank"]
        assert p["origin"] in ("bm25", "dense") and 1 <= rank <= 10
    assert {p["origin"] for p in unjudged} == {"bm25", "dense"}


def test_texts_are_the_collection(pairs, cran):
    for p in pairs:
        assert p["query"] == cran.queries[p["qid"]]
        assert p["text"] == cran.docs[p["docid"]]["text"]


def test_fresh_copy_every_call(pairs):
    again = load_cranfield_judge_sample()
    again[0]["grade"] = 99
    assert load_cranfield_judge_sample()[0]["grade"] == pairs[0]["grade"]
    assert rm.load_cranfield_judge_sample is load_cranfield_judge_sample


@pytest.mark.skipif(importlib.util.find_spec("bm25s") is None, reason="needs the lab extra (bm25s)")
def test_the_script_rebuilds_the_shipped_file():
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "make_cranfield_judge_sample.py"),
                           "--check"], capture_output=True, text=True, timeout=600,
                          env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stdout + done.stderr
