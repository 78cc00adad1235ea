"""trec_eval's relevance level (-l) and depth (-M), and gdeval's nDCG, against the references.

* The relevance level against pytrec_eval's ``relevance_level`` (trec_eval's
  C code) on random graded runs with ties, levels 1 to 4, every measure it
  applies to and nDCG, which it must leave alone; against ir_measures'
  ``rel=`` (pytrec_eval, cwl-eval providers) and ranx's ``rel_lvl``
  (``"map-l2"``), which removes the grades below the level from nDCG too.
* The depth against trec_eval's own output (tests/trec_eval_options/, built
  from its source: pytrec_eval has no -M) and, on random runs, against
  pytrec_eval on each ranking cut by the test itself after trec_eval's
  order.
* gdeval's nDCG and ERR (``conventions="gdeval"``) against gdeval.pl run
  by ir_measures' gdeval provider, and by hand.
"""

import math
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

import ragmetrics_edu as rm
from ragmetrics_edu.retrieval.conventions import PRESETS, evaluate_as

from tests._random_judged import random_collection, trec_eval_order

pytrec_eval = pytest.importorskip("pytrec_eval")

# our name -> trec_eval's
NAMES = {"map": "map", "mrr": "recip_rank", "ndcg": "ndcg", "rprec": "Rprec", "bpref": "bpref",
         "11pt": "11pt_avg", "map@5": "map_cut_5"}
for _k in (1, 2, 3, 5, 10):
    NAMES[f"P@{_k}"] = f"P_{_k}"
for _k in (3, 5, 10):
    NAMES[f"recall@{_k}"] = f"recall_{_k}"
    NAMES[f"ndcg@{_k}"] = f"ndcg_cut_{_k}"
for _k in (1, 5):
    NAMES[f"hit_rate@{_k}"] = f"success_{_k}"
for _level in (0.0, 0.2, 0.5, 1.0):
    NAMES[f"iprec@{_level}"] = f"iprec_at_recall_{_level:.2f}"
READABLE = [m for m in NAMES if m.split("@")[0] in ("P", "recall", "hit_rate", "mrr", "map",
                                                    "ndcg")]


def _pytrec(qrels, run, level=1):
    """pytrec_eval's values of NAMES, at a relevance level."""
    measures = {"P.1,2,3,5,10", "recall.3,5,10", "ndcg_cut.3,5,10", "map_cut.5", "success.1,5",
                "map", "recip_rank", "ndcg", "Rprec", "bpref", "11pt_avg", "iprec_at_recall"}
    return pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=level).evaluate(run)


# ------------------------------------------------------ the relevance level

@pytest.fixture(scope="module")
def graded():
    return random_collection(seed=36, n_queries=250, max_grade=4)  # (an empty ranking: rule of 11pt)


@pytest.mark.parametrize("level", [1, 2, 3, 4])
def test_relevance_level_equals_pytrec_eval(graded, level):
    qrels, run = graded
    theirs = _pytrec(qrels, run, level)
    fast = rm.evaluate(qrels, run, metrics=list(NAMES), relevance_level=level)
    readable = evaluate_as(qrels, run, metrics=READABLE, conventions="trec_eval", relevance_level=level)
    assert set(fast.per_query) == set(theirs) == set(readable.per_query)
    for qid, values in theirs.items():
        for ours, name in NAMES.items():
            assert fast.per_query[qid][ours] == pytest.approx(values[name], abs=1e-12), \
                (level, qid, ours)
            if ours in READABLE:
                assert readable.per_query[qid][ours] == pytest.approx(values[name], abs=1e-12), \
                    (level, qid, ours)
    # the collection tells the levels apart, and nDCG ignores the level, as trec_eval's does
    if level > 1:
        one = rm.evaluate(qrels, run, metrics=["map", "ndcg@10"])
        assert sum(abs(one.per_query[q]["map"] - fast.per_query[q]["map"]) > 1e-9
                   for q in theirs) >= 50
        assert all(one.per_query[q]["ndcg@10"] == fast.per_query[q]["ndcg@10"] for q in theirs)
    relevant_free = {q for q, docs in qrels.items() if not any(g >= level for g in docs.values())}
    assert set(fast.queries_without_relevant) == relevant_free & set(run)
    assert f"rel:grade>={level}" in fast.signature


def test_relevance_level_by_hand():
    # grades 2, 1, 0, 2 at ranks 1-4 (one more grade-2 document never retrieved)
    qrels = {"q": {"a": 2, "b": 1, "c": 0, "d": 2, "e": 2}}
    run = {"q": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6}}
    one = rm.evaluate(qrels, run, metrics=["map", "P@2", "mrr", "bpref"]).per_query["q"]
    two = rm.evaluate(qrels, run, metrics=["map", "P@2", "mrr", "bpref"], relevance_level=2).per_query["q"]
    assert one["map"] == pytest.approx((1 + 2 / 2 + 3 / 4) / 4)   # a, b, d relevant; R = 4
    assert two["map"] == pytest.approx((1 + 2 / 4) / 3)           # a, d relevant; R = 3
    assert (one["P@2"], two["P@2"]) == (1.0, 0.5)
    # bpref at level 2: b and c are judged non-relevant (N = 2), both above d:
    # a scores 1, d scores 1 - min(2, 3) / min(2, 3) = 0; over R = 3
    assert two["bpref"] == pytest.approx(1 / 3)
    assert rm.evaluate(qrels, run, metrics=["mrr"], relevance_level=3).per_query["q"]["mrr"] == 0.0


IR_MEASURES = {"map": "AP(rel=2)", "P@5": "P(rel=2)@5", "mrr": "RR(rel=2)",
               "rprec": "Rprec(rel=2)", "bpref": "Bpref(rel=2)", "hit_rate@5": "Success(rel=2)@5",
               "recall@10": "R(rel=2)@10", "rbp(p=0.8)": "RBP(p=0.8,rel=2)"}


def test_relevance_level_equals_ir_measures_rel():
    ir_measures = pytest.importorskip("ir_measures")
    pytest.importorskip("cwl")
    # distinct scores: ir_measures' providers (cwl-eval for RBP) keep the
    # run's order of ties, trec_eval breaks them by id
    qrels, run = random_collection(seed=37, n_queries=200, ties=False)
    measures = {ours: ir_measures.parse_measure(name) for ours, name in IR_MEASURES.items()}
    theirs = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for m in ir_measures.iter_calc(list(measures.values()), qrels, run):
            theirs.setdefault(m.query_id, {})[str(m.measure)] = m.value
    ours = rm.evaluate(qrels, run, metrics=list(IR_MEASURES), relevance_level=2).per_query
    assert len(theirs) >= 150
    for qid, values in theirs.items():
        assert len(values) == len(measures), qid  # every measure, for every query
        for name, measure in measures.items():
            assert ours[qid][name] == pytest.approx(values[str(measure)], abs=1e-9), (qid, name)


RANX = {"map": "map", "P@5": "precision@5", "mrr": "mrr", "recall@10": "recall@10",
        "hit_rate@5": "hit_rate@5", "ndcg@5": "ndcg@5", "ndcg": "ndcg"}


@pytest.mark.parametrize("level", [2, 3])
def test_ranx_preset_takes_its_rel_lvl(level):
    ranx = pytest.importorskip("ranx")
    # distinct scores and at most 15 documents: ranx's own tie order does not enter
    qrels, run = random_collection(seed=38, n_queries=150, ties=False, max_retrieved=15)
    names = {ours: f"{theirs}-l{level}" for ours, theirs in RANX.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), list(names.values()),
                               return_mean=False, make_comparable=True)
    report = evaluate_as(qrels, run, metrics=list(RANX), conventions="ranx", relevance_level=level)
    assert report.conventions.name == "ranx"  # ranx has the option: still its numbers
    trec = rm.evaluate(qrels, run, metrics=["ndcg@5"], relevance_level=level).per_query
    differ = 0
    for i, qid in enumerate(sorted(run)):
        for ours, name in names.items():
            assert report.per_query[qid][ours] == pytest.approx(float(theirs[name][i]),
                                                                abs=1e-12), (qid, ours)
        differ += abs(report.per_query[qid]["ndcg@5"] - trec[qid]["ndcg@5"]) > 1e-9
    assert differ >= 20  # ranx's level reaches nDCG, trec_eval's does not


# ------------------------------------------------------ the depth

OPTIONS = Path(__file__).parents[1] / "trec_eval_options"


def _read_case(name):
    """The collection and one trec_eval -q output, split by hand (not by ragmetrics_edu)."""
    qrels, run, expected = {}, {}, {}
    for line in (OPTIONS / "level_depth.qrels").read_text().splitlines():
        qid, _, docid, grade = line.split()
        qrels.setdefault(qid, {})[docid] = int(grade)
    for line in (OPTIONS / "level_depth.run").read_text().splitlines():
        qid, _, docid, _, score, _ = line.split()
        run.setdefault(qid, {})[docid] = float(score)
    ours = {theirs: mine for mine, theirs in NAMES.items()}
    ours.update({f"iprec_at_recall_{x / 10:.2f}": f"iprec@{x / 10}" for x in range(11)})
    for line in (OPTIONS / name).read_text().splitlines():
        measure, qid, value = line.split()
        if qid != "all":
            expected.setdefault(qid, {})[ours[measure]] = float(value)
    return qrels, run, expected


@pytest.mark.parametrize("file, level, depth, preset", [
    ("level_depth.M5.trec_eval9.txt", None, 5, "trec_eval"),
    ("level_depth.l2.trec_eval9.txt", 2, None, "trec_eval"),
    ("level_depth.l2M5.trec_eval9.txt", 2, 5, "trec_eval"),
    ("level_depth.l3M8.trec_eval9.txt", 3, 8, "trec_eval"),
    ("level_depth.l2M5.trec_eval10.txt", 2, 5, "trec_eval_10"),
])
def test_level_and_depth_equal_trec_eval(file, level, depth, preset):
    qrels, run, expected = _read_case(file)
    names = sorted({m for values in expected.values() for m in values})
    fast = rm.evaluate(qrels, run, metrics=names, conventions=preset, relevance_level=level, depth=depth)
    readable = evaluate_as(qrels, run, metrics=[m for m in names if m in READABLE], conventions=preset,
                           relevance_level=level, depth=depth)
    assert set(fast.per_query) == set(expected)
    for qid, values in expected.items():
        for m, v in values.items():  # trec_eval prints 4 decimals
            assert fast.per_query[qid][m] == pytest.approx(v, abs=5.1e-5), (qid, m)
            if m in READABLE:
                assert readable.per_query[qid][m] == pytest.approx(v, abs=5.1e-5), (qid, m)
    # the cut matters on this collection: without it many queries score otherwise
    if depth is not None:
        whole = rm.evaluate(qrels, run, metrics=names, conventions=preset, relevance_level=level)
        assert sum(any(abs(whole.per_query[q][m] - v) > 1e-3 for m, v in expected[q].items())
                   for q in expected) >= 5


@pytest.mark.parametrize("depth", [1, 3, 7])
def test_depth_equals_pytrec_eval_on_the_cut_run(graded, depth):
    qrels, run = graded
    # the test's own cut: rank as trec_eval does (score as a float, then id
    # descending), keep the top `depth`
    cut = {q: {d: docs[d] for d in trec_eval_order(docs)[:depth]} for q, docs in run.items()}
    theirs = _pytrec(qrels, {q: docs for q, docs in cut.items() if docs}, 2)
    ours = rm.evaluate(qrels, run, metrics=list(NAMES), depth=depth, relevance_level=2)
    for qid, values in theirs.items():
        for mine, name in NAMES.items():
            assert ours.per_query[qid][mine] == pytest.approx(values[name], abs=1e-12), \
                (depth, qid, mine)
    judged = rm.evaluate(qrels, run, metrics=["judged@10", "rbp_residual(p=0.5)"], depth=depth)
    direct = rm.evaluate(qrels, cut, metrics=["judged@10", "rbp_residual(p=0.5)"])
    for qid, values in direct.per_query.items():
        for m, v in values.items():
            assert judged.per_query[qid][m] == pytest.approx(v, abs=1e-12), (qid, m)


def test_depth_splits_a_tie_by_id_as_trec_eval():
    # four documents tied; trec_eval ranks them d, c, b, a and -M 2 keeps d, c
    qrels = {"q": {"a": 1, "d": 1}}
    run = {"q": {"a": 1.0, "b": 1.0, "c": 1.0, "d": 1.0}}
    report = rm.evaluate(qrels, run, metrics=["P@2", "recall@4", "map"], depth=2).per_query["q"]
    assert report == {"P@2": 0.5, "recall@4": 0.5, "map": 0.5}  # d found, a cut; R stays 2
    with pytest.raises(ValueError, match="ties='average' gives them none"):
        evaluate_as(qrels, run, metrics=["map"], conventions="sklearn", depth=2)


def test_level_and_depth_refuse_what_is_not_a_positive_integer():
    qrels, run = {"q": {"a": 1}}, {"q": {"a": 1.0}}
    for bad in (0, -1):
        with pytest.raises(ValueError, match=f"relevance_level must be a positive integer, "
                                             f"got {bad}"):
            rm.evaluate(qrels, run, metrics=["map"], relevance_level=bad)
        with pytest.raises(ValueError, match=f"depth must be a positive integer, got {bad}"):
            rm.evaluate(qrels, run, metrics=["map"], depth=bad)
    with pytest.raises(TypeError, match="relevance_level must be a positive integer, got 1.5"):
        evaluate_as(qrels, run, metrics=["map"], relevance_level=1.5)
    # the presets of libraries with the option keep their name; the others become custom
    assert PRESETS["trec_eval"].replace(depth=1000).name == "trec_eval"
    assert PRESETS["sklearn"].replace(relevance_level=2).name == "custom"


# ------------------------------------------------------ gdeval's nDCG

def test_gdeval_ndcg_by_hand():
    # grades 0, 2, 1 at ranks 1-3, a grade-3 document never retrieved, k = 3;
    # gain 2**g - 1: DCG = 3/log2(3) + 1/2, ideal 7 + 3/log2(3) + 1/2
    qrels = {"1": {"a": 0, "b": 2, "c": 1, "z": 3}, "2": {"x": 0}}
    run = {"1": {"a": 0.9, "b": 0.8, "c": 0.7}, "2": {"x": 1.0}}
    report = rm.evaluate(qrels, run, metrics=["ndcg@3", "err@3"], conventions="gdeval")
    want = (3 / math.log2(3) + 1 / 2) / (7 + 3 / math.log2(3) + 1 / 2)
    assert report.per_query["1"]["ndcg@3"] == pytest.approx(want)
    # R = (2**g - 1) / 16: 0, 3/16, 1/16; rank 3 is reached by the 13/16 who pass rank 2
    assert report.per_query["1"]["err@3"] == pytest.approx((3 / 16) / 2 + (13 / 16) * (1 / 16) / 3)
    # topic 2 has no grade above 0: gdeval does not score it, nor count it in the mean
    assert list(report.per_query) == ["1"] and report.queries_without_relevant == ("2",)
    assert report.mean["ndcg@3"] == report.per_query["1"]["ndcg@3"]
    # trec_eval's ndcg_cut_3 (linear gain) counts topic 2 as 0
    trec = rm.evaluate(qrels, run, metrics=["ndcg@3"]).mean["ndcg@3"]
    assert trec == pytest.approx((2 / math.log2(3) + 1 / 2) / (3 + 2 / math.log2(3) + 1 / 2) / 2)
    # the readable path agrees
    assert evaluate_as(qrels, run, metrics=["ndcg@3"], conventions="gdeval").per_query == {"1": {"ndcg@3": want}}
    with pytest.raises(ValueError, match="does not compute 'map'"):
        rm.evaluate(qrels, run, metrics=["map"], conventions="gdeval")


def _gdeval(qrels, run, k, tmp_path):
    """gdeval.pl itself (the copy ir_measures ships), on files written here: {topic: (ndcg, err)}.

    ir_measures' provider fills the topics gdeval leaves out with 0; gdeval's
    own output shows which topics it scores.
    """
    import pkgutil
    import subprocess

    script = tmp_path / "gdeval.pl"
    script.write_bytes(pkgutil.get_data("ir_measures", "bin/gdeval.pl"))
    qrels_file, run_file = tmp_path / "qrels", tmp_path / "run"
    qrels_file.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items()
                                  for d, g in docs.items()))
    run_file.write_text("".join(f"{q} Q0 {d} {i + 1} {s!r} run\n" for q, docs in run.items()
                                for i, (d, s) in enumerate(docs.items())))
    out = subprocess.run(["perl", str(script), str(qrels_file), str(run_file), str(k)],
                         check=True, capture_output=True, text=True).stdout
    rows = [line.split(",") for line in out.splitlines()[1:] if line]
    return {topic: (float(ndcg), float(err)) for _, topic, ndcg, err in rows}


@pytest.mark.skipif(shutil.which("perl") is None, reason="gdeval needs perl")
@pytest.mark.parametrize("k", [3, 10, 20])
def test_gdeval_preset_equals_gdeval(k, tmp_path):
    pytest.importorskip("ir_measures")
    # ties scored as doubles (near-equal as floats too) and numeric topic ids, which gdeval needs
    qrels, run = random_collection(seed=39, n_queries=200, numeric_qids=True)
    rng = np.random.default_rng(40)
    run = {q: {d: s + float(rng.choice([0.0, 1e-12])) for d, s in docs.items()}
           for q, docs in run.items()}
    theirs = _gdeval(qrels, run, k, tmp_path)
    ours = rm.evaluate(qrels, run, metrics=[f"ndcg@{k}", f"err@{k}"], conventions="gdeval")
    # gdeval scores only the topics with a grade above 0
    assert set(ours.per_query) == set(theirs) and 150 <= len(theirs) < 200
    assert set(ours.queries_without_relevant) == set(run) - set(theirs)
    for qid, (ndcg, err) in theirs.items():  # gdeval prints 5 decimals
        assert ours.per_query[qid][f"ndcg@{k}"] == pytest.approx(ndcg, abs=5.0001e-6), qid
        assert ours.per_query[qid][f"err@{k}"] == pytest.approx(err, abs=5.0001e-6), qid
    mean = math.fsum(ndcg for ndcg, _ in theirs.values()) / len(theirs)
    assert ours.mean[f"ndcg@{k}"] == pytest.approx(mean, abs=5.0001e-6)
    readable = evaluate_as(qrels, run, metrics=[f"ndcg@{k}"], conventions="gdeval")
    for qid, values in readable.per_query.items():
        assert values[f"ndcg@{k}"] == pytest.approx(ours.per_query[qid][f"ndcg@{k}"], abs=1e-12)
    # trec_eval's ndcg_cut (linear gain, float scores) is another number on most topics
    trec = rm.evaluate(qrels, run, metrics=[f"ndcg@{k}"]).per_query
    assert sum(abs(trec[q][f"ndcg@{k}"] - ours.per_query[q][f"ndcg@{k}"]) > 1e-3
               for q in theirs) >= 50
