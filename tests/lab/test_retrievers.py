"""BM25, dense retrieval and reciprocal rank fusion."""

import json
import math
import re
from importlib.resources import files

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragmetrics_edu.lab import retrievers
from ragmetrics_edu.lab.datasets import load_cranfield
from ragmetrics_edu.lab.retrievers import bm25_run, dense_run, document_embeddings, rrf

DATA = files("ragmetrics_edu").joinpath("data", "cranfield")


@pytest.fixture(scope="module")
def cran():
    return load_cranfield()


# ---------------------------------------------------------------- BM25

def _bm25_reference(docs, query, k1, b):
    """Lucene BM25 written out (no stop words in these texts)."""
    tokenized = {d: re.findall(r"\b\w\w+\b", t.lower()) for d, t in docs.items()}
    n_docs = len(docs)
    avgdl = sum(len(t) for t in tokenized.values()) / n_docs
    scores = {}
    for d, tokens in tokenized.items():
        total = 0.0
        # a word repeated in the query counts once per occurrence
        for term in re.findall(r"\b\w\w+\b", query.lower()):
            n_t = sum(term in t for t in tokenized.values())
            if n_t == 0:
                continue
            idf = math.log(1 + (n_docs - n_t + 0.5) / (n_t + 0.5))
            f = tokens.count(term)
            # Lucene leaves out the constant factor (k1 + 1) of the textbook formula
            total += idf * f / (f + k1 * (1 - b + b * len(tokens) / avgdl))
        if total > 0:
            scores[d] = total
    return scores


def test_bm25_hand_arithmetic():
    docs = {"d1": "wing slipstream", "d2": "heat slab heat", "d3": "wing"}
    run = bm25_run(docs, {"q": "slipstream"}, k1=1.5, b=0.75)
    # N = 3, n_t = 1: idf = ln(1 + 2.5 / 1.5) = ln(8/3); avgdl = (2 + 3 + 1) / 3 = 2
    # d1: f = 1, |d| = 2: 1 / (1 + 1.5 * (0.25 + 0.75 * 2 / 2)) = 1 / 2.5 = 0.4
    assert run == {"q": {"d1": pytest.approx(0.4 * math.log(8 / 3), rel=1e-6)}}
    # ATIRE keeps the textbook factor k1 + 1 = 2.5 and uses idf = ln(N / n_t) = ln 3:
    # ln 3 * 1 * 2.5 / 2.5
    atire = bm25_run(docs, {"q": "slipstream"}, method="atire")
    assert atire["q"]["d1"] == pytest.approx(math.log(3), rel=1e-6)


def test_bm25_matches_formula_on_random_texts():
    rng = np.random.default_rng(0)
    vocab = ["wing", "flow", "shock", "heat", "slab", "mach", "lift", "drag", "plate", "cone"]
    for trial in range(20):
        docs = {f"d{i}": " ".join(rng.choice(vocab, size=int(rng.integers(1, 12))))
                for i in range(int(rng.integers(2, 15)))}
        queries = {f"q{j}": " ".join(rng.choice(vocab, size=int(rng.integers(1, 4))))
                   for j in range(3)}
        k1, b = float(rng.uniform(0.5, 2)), float(rng.uniform(0, 1))
        run = bm25_run(docs, queries, k1=k1, b=b, depth=None)
        for q, text in queries.items():
            ref = _bm25_reference(docs, text, k1, b)
            assert set(run[q]) == set(ref)
            for d, s in ref.items():
                assert run[q][d] == pytest.approx(s, rel=1e-5)  # bm25s scores in float32


def test_bm25_on_cranfield(cran):
    run = bm25_run(cran.docs, cran.queries, depth=100)
    assert list(run) == list(cran.queries)
    assert all(0 < len(r) <= 100 for r in run.values())
    for r in run.values():
        scores = list(r.values())
        assert all(isinstance(s, float) and s > 0 for s in scores)
        assert scores == sorted(scores, reverse=True)
    # Each question was written from a paper of the collection (code -1), so BM25 finds
    # that paper near the top for most queries -- but only if the i-th query of cran.qry
    # is paired with query i of cranqrel.
    top10 = sum(cran.source_docs[q] in list(run[q])[:10] for q in run)
    assert top10 > 150
    shifted = sum(cran.source_docs.get(cran.query_numbers[q].lstrip("0"), "") in list(run[q])[:10]
                  for q in run)
    assert shifted < 50  # joining by the .I numbers pairs the wrong queries


def test_bm25_options(cran):
    docs = {"a": "heat conduction in composite slabs", "b": "a slab of concrete", "c": "wing"}
    plain = bm25_run(docs, {"q": "slab"})
    assert set(plain["q"]) == {"b"}  # "slabs" is another word without a stemmer

    def stem(words):  # a toy stemmer: drop a final s
        return [w[:-1] if w.endswith("s") else w for w in words]

    stemmed = bm25_run(docs, {"q": "slab"}, stemmer=stem)
    assert set(stemmed["q"]) == {"a", "b"}
    # stop words: "in" is not a word of two letters only... "the" query matches nothing with "en"
    assert bm25_run({"x": "the wing", "y": "a slab"}, {"q": "the"})["q"] == {}
    assert set(bm25_run({"x": "the wing", "y": "a slab"}, {"q": "the"}, stopwords=None)["q"]) == {"x"}
    assert len(bm25_run(cran.docs, {"q": "flow"}, depth=3)["q"]) == 3
    assert bm25_run(docs, {}) == {}
    for method in retrievers.BM25_METHODS:
        assert "b" in bm25_run(docs, {"q": "slab"}, method=method)["q"]


@pytest.mark.parametrize("kwargs, exc, msg", [
    ({"method": "bm42"}, ValueError, "method must be one of 'lucene'"),
    ({"b": 1.5}, ValueError, "b must be between 0 and 1, got 1.5"),
    ({"k1": -1}, ValueError, "k1 must be a non-negative number, got -1"),
    ({"depth": 0}, ValueError, "depth must be a positive integer, got 0"),
])
def test_bm25_rejects(kwargs, exc, msg):
    with pytest.raises(exc, match=msg):
        bm25_run({"d": "wing"}, {"q": "wing"}, **kwargs)


def test_bm25_rejects_inputs():
    with pytest.raises(ValueError, match="docs must hold at least one document"):
        bm25_run({}, {"q": "wing"})
    with pytest.raises(ValueError, match=r"docs\['d'\] has no 'text' entry"):
        bm25_run({"d": {"title": "wing"}}, {"q": "wing"})
    with pytest.raises(TypeError, match="docs must be a dict"):
        bm25_run(["wing"], {"q": "wing"})


# ---------------------------------------------------------------- RRF

def test_rrf_hand_example():
    a = {"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
    b = {"q": {"d3": 0.9, "d1": 0.5}}
    fused = rrf([a, b], rank_constant=60)
    # d1: 1/61 + 1/62; d3: 1/63 + 1/61; d2: 1/62 (absent from b)
    assert fused["q"]["d1"] == pytest.approx(1 / 61 + 1 / 62)
    assert fused["q"]["d3"] == pytest.approx(1 / 63 + 1 / 61)
    assert fused["q"]["d2"] == pytest.approx(1 / 62)
    assert list(fused["q"]) == ["d1", "d3", "d2"]
    # named runs are accepted too
    assert rrf({"bm25": a, "dense": b}, rank_constant=60) == fused


def test_rrf_ties_follow_trec_eval():
    # equal scores: the larger document id ranks first ("b" before "a")
    fused = rrf([{"q": {"a": 1.0, "b": 1.0}}], rank_constant=0)
    assert fused["q"] == {"b": 1.0, "a": 0.5}  # 1/(0 + 1), 1/(0 + 2)


def test_rrf_depth_and_queries():
    a = {"q1": {f"d{i}": float(i) for i in range(10)}}
    b = {"q2": {"x": 1.0}}
    fused = rrf([a, b], depth=3)
    assert list(fused["q1"]) == ["d9", "d8", "d7"] and fused["q2"] == {"x": 1 / 61}
    with pytest.raises(ValueError, match="rank_constant must be a non-negative number, got -1"):
        rrf([a], rank_constant=-1)
    with pytest.raises(ValueError, match="runs must hold at least one run"):
        rrf([])
    with pytest.raises(TypeError, match=r"runs\[1\] must be a dict"):
        rrf([a, 3])
    with pytest.raises(TypeError, match="got a single run"):
        rrf(a)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from("abcdefgh"), st.floats(-5, 5), min_size=1),
                min_size=1, max_size=4),
       st.integers(0, 100))
def test_rrf_properties(rankings, k):
    runs = [{"q": r} for r in rankings]
    fused = rrf(runs, rank_constant=k, depth=None)["q"]
    # every document of any run, nothing else
    assert set(fused) == set().union(*rankings)
    # the order of the runs does not matter
    assert rrf(runs[::-1], rank_constant=k, depth=None)["q"] == pytest.approx(fused)
    # one run: the fused order is the run's order (score desc, docid desc)
    single = rrf(runs[:1], rank_constant=k, depth=None)["q"]
    expected = sorted(rankings[0], key=lambda d: (-rankings[0][d], [-ord(c) for c in d]))
    assert list(single) == expected
    assert list(fused.values()) == sorted(fused.values(), reverse=True)


# ---------------------------------------------------------------- dense

def test_shipped_embeddings_match_the_texts(cran):
    meta = json.loads(DATA.joinpath("cranfield_minilm.json").read_text())
    assert meta["model"] == "all-MiniLM-L6-v2" and meta["dim"] == 384
    ids = list(cran.docs)
    texts = [cran.docs[d]["text"] for d in ids]
    assert meta["docs"]["digest"] == retrievers._digest(ids, texts)
    assert meta["queries"]["digest"] == retrievers._digest(list(cran.queries),
                                                            list(cran.queries.values()))
    docs = np.load(DATA.joinpath("cranfield_minilm_docs.npy"))
    queries = np.load(DATA.joinpath("cranfield_minilm_queries.npy"))
    assert docs.shape == (1400, 384) and docs.dtype == np.float32
    assert queries.shape == (225, 384)
    assert np.allclose(np.linalg.norm(docs, axis=1), 1, atol=1e-5)


def test_cached_rows_equal_fresh_encodings(cran):
    pytest.importorskip("tokenizers")  # the NumPy MiniLM: no torch needed
    from ragmetrics_edu.models.loading import encode_sentences

    cached = document_embeddings(cran.docs)  # the shipped file
    cached_q = document_embeddings(cran.queries, kind="queries")
    rows = ["1", "240", "1400"]
    fresh = encode_sentences([cran.docs[d]["text"] for d in rows])
    for i, d in enumerate(rows):
        np.testing.assert_allclose(cached[int(d) - 1], fresh[i], atol=1e-5)
    fresh_q = encode_sentences([cran.queries["1"], cran.queries["225"]])
    np.testing.assert_allclose(cached_q[[0, 224]], fresh_q, atol=1e-5)


def test_cache_is_used_only_for_the_cranfield_texts(cran, monkeypatch):
    calls = []

    def fake_encode(texts, model=None):
        calls.append(list(texts))
        return np.ones((len(texts), 384), dtype=np.float32) / math.sqrt(384)

    import ragmetrics_edu.models.loading as models

    monkeypatch.setattr(models, "encode_sentences", fake_encode)
    document_embeddings(cran.docs)
    assert calls == []  # served from the shipped file
    changed = dict(cran.docs)
    changed["1"] = {**changed["1"], "text": "another text"}
    document_embeddings(changed)
    assert len(calls) == 1 and len(calls[0]) == 1400
    document_embeddings(cran.docs, cache=False)
    assert len(calls) == 2


def test_dense_run_on_cranfield(cran):
    run = dense_run(cran.docs, cran.queries, depth=100)
    assert list(run) == list(cran.queries)
    assert all(len(r) == 100 for r in run.values())
    for r in run.values():
        scores = list(r.values())
        assert scores == sorted(scores, reverse=True)
        assert -1 <= min(scores) and max(scores) <= 1 + 1e-6
    # cosine = dot product of the stored unit vectors
    d = np.load(DATA.joinpath("cranfield_minilm_docs.npy"))
    q = np.load(DATA.joinpath("cranfield_minilm_queries.npy"))
    assert run["1"]["486"] == pytest.approx(float(q[0] @ d[485]), abs=1e-6)
    assert sum(cran.source_docs[q] in list(run[q])[:10] for q in run) > 100


def test_dense_run_fresh_encoding():
    pytest.importorskip("tokenizers")
    docs = {"a": "heat transfer through a composite slab",
            "b": "lift of a wing in a propeller slipstream",
            "c": "stock prices fell sharply on monday"}
    run = dense_run(docs, {"q": "conduction of heat in slabs"}, depth=2)
    assert list(run["q"]) [0] == "a" and len(run["q"]) == 2


def test_fusion_of_bm25_and_dense(cran):
    fused = rrf([bm25_run(cran.docs, cran.queries), dense_run(cran.docs, cran.queries)])
    assert len(fused) == 225 and all(len(r) == 100 for r in fused.values())


def test_rrf_refuses_non_string_docids():
    with pytest.raises(TypeError, match=r"runs\[1\]\['q'\] must have string document ids.*got 7 of type int"):
        rrf([{"q": {"d1": 1.0}}, {"q": {7: 3.0, "d2": 1.0}}])
    with pytest.raises(TypeError, match=r"runs\[0\]\['q'\] must be a dict \{docid: score\}"):
        rrf([{"q": [("d1", 1.0)]}])
