"""The presets of ragmetrics_edu.retrieval.conventions against the libraries they are named after.

* ``"trec_eval"`` against pytrec_eval (trec_eval's own C code) and against
  ``rm.evaluate``; ``"trec_eval_c"`` against ``rm.evaluate(missing="zero")``.
* ``"ranx"`` against ranx with ``Qrels`` / ``Run`` and ``make_comparable=True``.
* ``"sklearn"`` against scikit-learn's ``ndcg_score``, ``dcg_score`` and
  ``average_precision_score`` (the metrics scikit-learn has), ties included.

The random collection: 300 judged queries (fixed seed) with 1-12 judged
documents graded 0-3, document ids ``d1``..``d30`` (so that ``"d9" > "d10"``
matters for trec_eval's tie order), rankings of 0-15 documents mixing
judged and unjudged ones, scores drawn from ten values (many ties), some
judged queries missing from the run, some run queries without judgements,
some queries with no relevant document.  Rankings stay at 15 documents or
fewer because ranx keeps the given order of ties only up to there (see
``test_ranx_reorders_ties_in_long_rankings``).
"""

import dataclasses
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ragmetrics_edu as rm
from ragmetrics_edu.retrieval.conventions import PRESETS, Conventions, compare, evaluate_as, get_preset, rank

pytestmark = pytest.mark.filterwarnings("ignore:unsafe cast:UserWarning")

KS = (1, 3, 5, 10)
TOL = 1e-12
N_QUERIES = 300


def _make_collection(seed=20250311, n_queries=N_QUERIES, max_len=15):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        qid = f"q{q:03d}"
        docs = [f"d{i}" for i in rng.permutation(30)[: int(rng.integers(1, 13))] + 1]
        grades = rng.integers(0, 4, size=len(docs))
        if q % 25 == 3:
            grades[:] = 0  # no relevant document
        qrels[qid] = {d: int(g) for d, g in zip(docs, grades)}
        if q % 30 == 11:
            continue  # judged, missing from the run
        length = int(rng.integers(0, max_len + 1))
        pool = [f"d{i}" for i in range(1, 31)]
        ranking = [str(d) for d in rng.choice(pool, size=length, replace=False)]
        scores = rng.integers(1, 11, size=length) / 10  # ten values: many ties
        run[qid] = {d: float(s) for d, s in zip(ranking, scores)}
    for q in range(5):  # run queries nobody judged
        run[f"x{q}"] = {"d1": 1.0, "d2": 0.5}
    return qrels, run


QRELS, RUN = _make_collection()
NONEMPTY_RUN = {q: docs for q, docs in RUN.items() if docs}


def test_the_collection_covers_the_edge_cases():
    judged_in_run = [q for q in QRELS if q in RUN]
    assert sum(q not in RUN for q in QRELS) >= 10  # missing queries
    assert sum(not RUN[q] for q in judged_in_run) >= 5  # empty rankings
    assert sum(all(g == 0 for g in QRELS[q].values()) for q in QRELS) >= 10
    tied = sum(len(set(RUN[q].values())) < len(RUN[q]) for q in judged_in_run)
    assert tied >= 150
    # ties between ids whose string order differs from their number order
    assert any({"d9", "d10"} <= {d for d, s in RUN[q].items() if s == v}
               for q in judged_in_run for v in set(RUN[q].values()))


def _ours_names():
    names = ["map", "ndcg", "mrr"]
    for k in KS:
        names += [f"P@{k}", f"recall@{k}", f"hit_rate@{k}", f"map@{k}", f"ndcg@{k}"]
    return names


# ------------------------------------------------------------ trec_eval
TREC_NAMES = {"map": "map", "ndcg": "ndcg", "mrr": "recip_rank"}
for _k in KS:
    TREC_NAMES.update({f"P@{_k}": f"P_{_k}", f"recall@{_k}": f"recall_{_k}",
                       f"hit_rate@{_k}": f"success_{_k}", f"map@{_k}": f"map_cut_{_k}",
                       f"ndcg@{_k}": f"ndcg_cut_{_k}"})


@pytest.fixture(scope="module")
def pytrec_scores():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    evaluator = pytrec_eval.RelevanceEvaluator(QRELS, set(TREC_NAMES.values()))
    return evaluator.evaluate(RUN)


@pytest.mark.parametrize("metric", _ours_names())
def test_trec_eval_preset_equals_pytrec_eval(pytrec_scores, metric):
    ours = evaluate_as(QRELS, RUN, metrics=[metric], conventions="trec_eval")
    assert set(ours.per_query) == set(pytrec_scores)  # same queries scored
    bad = [(q, v[metric], pytrec_scores[q][TREC_NAMES[metric]])
           for q, v in ours.per_query.items()
           if not math.isclose(v[metric], pytrec_scores[q][TREC_NAMES[metric]],
                               rel_tol=TOL, abs_tol=TOL)]
    assert not bad, bad[:5]


def test_trec_eval_preset_compares_scores_as_float32():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"a": 1.0 + 1e-12, "b": 1.0}}  # a tie for trec_eval: "b" > "a"
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)
    assert theirs["q"]["recip_rank"] == 0.5  # b first, a second
    assert evaluate_as(qrels, run, metrics="mrr", conventions="trec_eval").mean["mrr"] == 0.5
    assert evaluate_as(qrels, run, metrics="mrr", conventions="ranx").mean["mrr"] == 1.0  # float64: a first


ALL_NAMES = _ours_names() + [f"f1@{k}" for k in KS] + [f"dcg@{k}" for k in KS] + [
    f"mrr@{k}" for k in KS]


@pytest.mark.parametrize("preset, missing", [("trec_eval", "ignore"), ("trec_eval_c", "zero")])
def test_trec_eval_presets_equal_rm_evaluate(preset, missing):
    theirs = rm.evaluate(QRELS, RUN, metrics=ALL_NAMES, missing=missing)
    ours = evaluate_as(QRELS, RUN, metrics=ALL_NAMES, conventions=preset)
    assert set(ours.per_query) == set(theirs.per_query)
    for q, values in ours.per_query.items():
        for m in ALL_NAMES:
            assert values[m] == pytest.approx(theirs.per_query[q][m], rel=TOL, abs=TOL), (q, m)
    for m in ALL_NAMES:
        assert ours.mean[m] == pytest.approx(theirs.mean[m], rel=TOL, abs=TOL), m
    assert ours.missing_queries == tuple(sorted(theirs.missing_queries))


# ------------------------------------------------------------------ ranx
RANX_NAMES = {"map": "map", "ndcg": "ndcg", "mrr": "mrr"}
for _k in KS:
    RANX_NAMES.update({f"P@{_k}": f"precision@{_k}", f"recall@{_k}": f"recall@{_k}",
                       f"hit_rate@{_k}": f"hit_rate@{_k}", f"map@{_k}": f"map@{_k}",
                       f"ndcg@{_k}": f"ndcg@{_k}", f"f1@{_k}": f"f1@{_k}",
                       f"dcg@{_k}": f"dcg@{_k}", f"mrr@{_k}": f"mrr@{_k}"})


@pytest.fixture(scope="module")
def ranx_scores():
    """ranx's per-query scores, all metrics in one call (numba compiles once)."""
    ranx = pytest.importorskip("ranx")
    qrels = ranx.Qrels(QRELS)
    run = ranx.Run(NONEMPTY_RUN)  # ranx cannot build empty rankings: make_comparable adds them
    scores = ranx.evaluate(qrels, run, list(RANX_NAMES.values()), return_mean=False,
                           make_comparable=True, save_results_in_run=False, threads=1)
    return list(run.get_query_ids()), scores


@pytest.mark.parametrize("metric", list(RANX_NAMES))
def test_ranx_preset_equals_ranx(ranx_scores, metric):
    qids, scores = ranx_scores
    ours = evaluate_as(QRELS, RUN, metrics=[metric], conventions="ranx")
    assert list(ours.per_query) == qids  # every judged query, missing ones as 0
    theirs = scores[RANX_NAMES[metric]]
    bad = [(q, ours.per_query[q][metric], float(t)) for q, t in zip(qids, theirs)
           if not math.isclose(ours.per_query[q][metric], float(t), rel_tol=TOL, abs_tol=TOL)]
    assert not bad, bad[:5]


def test_the_tie_order_matters_on_this_collection(ranx_scores):
    """trec_eval's and ranx's tie orders give different MAP on many queries."""
    te = evaluate_as(QRELS, RUN, metrics=["map"], conventions="trec_eval_c").per_query
    rx = evaluate_as(QRELS, RUN, metrics=["map"], conventions="ranx").per_query
    assert sum(not math.isclose(te[q]["map"], rx[q]["map"]) for q in te) >= 30


def test_ranx_keeps_the_given_order_of_ties_up_to_15_documents():
    ranx = pytest.importorskip("ranx")
    for n in (2, 7, 15):
        docs = [f"d{i}" for i in np.random.default_rng(n).permutation(n)]
        for target in (0, n // 2, n - 1):
            qrels = ranx.Qrels({"q": {docs[target]: 1}})
            run = ranx.Run({"q": {d: 1.0 for d in docs}})
            assert ranx.evaluate(qrels, run, "mrr") == pytest.approx(1 / (target + 1))
            assert rank({d: 1.0 for d in docs}, "ranx")[target] == docs[target]


def test_ranx_reorders_ties_in_long_rankings():
    """The limit of the ranx preset: 20 tied documents do not keep the given order."""
    ranx = pytest.importorskip("ranx")
    docs = [f"d{i:02d}" for i in range(20)]
    positions = []
    for target in range(20):
        qrels = ranx.Qrels({"q": {docs[target]: 1}})
        run = ranx.Run({"q": {d: 1.0 for d in docs}})
        positions.append(round(1 / ranx.evaluate(qrels, run, "mrr")))
    assert sorted(positions) == list(range(1, 21))  # a permutation...
    assert positions != list(range(1, 21))  # ...but not the given order


def test_ranx_with_plain_dicts_pairs_queries_by_position():
    """The pitfall notebook 10 shows: plain dicts in a different query order."""
    ranx = pytest.importorskip("ranx")
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    run = {"q2": {"b": 1.0, "x": 0.5}, "q1": {"a": 1.0, "y": 0.5}}
    right = evaluate_as(qrels, run, metrics="mrr", conventions="ranx").per_query
    assert right == {"q1": {"mrr": 1.0}, "q2": {"mrr": 1.0}}  # both found at rank 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wrong = ranx.evaluate(qrels, run, "mrr", return_mean=False)
        fixed = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), "mrr", return_mean=False)
    assert list(wrong) == [0.0, 0.0]
    assert list(fixed) == [1.0, 1.0]


# --------------------------------------------------------------- sklearn
SK_QUERIES = [q for q in sorted(RUN) if q in QRELS and len(RUN[q]) >= 2]


def _sk_inputs(q):
    ranking = list(RUN[q])
    y_true = [QRELS[q].get(d, 0) for d in ranking]
    y_score = [RUN[q][d] for d in ranking]
    return y_true, y_score


@pytest.mark.parametrize("k", [*KS, None])
def test_sklearn_preset_equals_ndcg_and_dcg_score(k):
    skm = pytest.importorskip("sklearn.metrics")
    assert len(SK_QUERIES) >= 200
    names = ["ndcg" if k is None else f"ndcg@{k}"] + ([] if k is None else [f"dcg@{k}"])
    ours = evaluate_as(QRELS, RUN, metrics=names, conventions="sklearn").per_query
    for q in SK_QUERIES:
        y_true, y_score = _sk_inputs(q)
        theirs = skm.ndcg_score([y_true], [y_score], k=k)  # ignore_ties=False: averaged
        assert ours[q][names[0]] == pytest.approx(theirs, rel=TOL, abs=TOL), q
        if k is not None:
            theirs_dcg = skm.dcg_score([y_true], [y_score], k=k, log_base=2)
            assert ours[q][names[1]] == pytest.approx(theirs_dcg, rel=TOL, abs=TOL), q


def test_sklearn_preset_equals_average_precision_score():
    skm = pytest.importorskip("sklearn.metrics")
    ours = evaluate_as(QRELS, RUN, metrics=["map"], conventions="sklearn").per_query
    n_positive = 0
    for q in SK_QUERIES:
        y_true, y_score = _sk_inputs(q)
        binary = [int(g >= 1) for g in y_true]
        n_positive += any(binary)
        with warnings.catch_warnings():  # no positive label: sklearn warns, returns 0
            warnings.simplefilter("ignore")
            theirs = skm.average_precision_score(binary, y_score)
        assert ours[q]["map"] == pytest.approx(theirs, rel=TOL, abs=TOL), q
    assert n_positive >= 100


def test_sklearn_averages_ties_where_trec_eval_orders_them():
    # grades [1, 0] tied at 0.5: sklearn's DCG@1 is the mean gain 0.5;
    # trec_eval ranks "b" (grade 0) before "a": DCG@1 = 0
    qrels, run = {"q": {"a": 1, "b": 0}}, {"q": {"a": 0.5, "b": 0.5}}
    assert evaluate_as(qrels, run, metrics="dcg@1", conventions="sklearn").mean["dcg@1"] == 0.5
    assert evaluate_as(qrels, run, metrics="dcg@1", conventions="trec_eval").mean["dcg@1"] == 0.0
    assert evaluate_as(qrels, run, metrics="dcg@1", conventions="ranx").mean["dcg@1"] == 1.0  # a as given


# ---------------------------------------------- hand arithmetic, the seeds
def test_seeds_preset_reproduces_the_slides():
    # slides: [1, 0, 1, 0, 1] with 10 relevant documents, AP = (1 + 2/3 + 3/5) / 10
    docs = [f"d{i}" for i in range(1, 6)]
    grades = [1, 0, 1, 0, 1]
    qrels = {"q": {**{d: g for d, g in zip(docs, grades)},
                   **{f"u{i}": 1 for i in range(7)}}}  # 7 relevant never retrieved
    run = {"q": {d: 1.0 - i / 10 for i, d in enumerate(docs)}}
    report = evaluate_as(qrels, run, metrics=["map", "P@2"], conventions="seeds")
    assert report.mean["map"] == pytest.approx((1 + 2 / 3 + 3 / 5) / 10, abs=1e-15)
    assert report.mean["P@2"] == 0.5
    # blog / slides NDCG: grades [5, 3, 5, 0, 2], IDCG from the list sorted:
    # DCG@3 = 5 + 3/log2(3) + 5/2 = 9.3928; IDCG@3 = 5 + 5/log2(3) + 3/2 = 9.6546
    qrels = {"q": dict(zip(docs, [5, 3, 5, 0, 2])) | {"z": 5}}  # z: judged, not retrieved
    report = evaluate_as(qrels, run, metrics=["ndcg@3"], conventions="seeds")
    expected = (5 + 3 / math.log2(3) + 5 / 2) / (5 + 5 / math.log2(3) + 3 / 2)
    assert report.mean["ndcg@3"] == pytest.approx(expected, abs=1e-15)


def test_ragas_preset_is_context_precision():
    # relevant at ranks 2 and 4 of 4, 5 relevant in the qrels:
    # context precision = (1/2 + 2/4) / 2 = 0.5; trec_eval's AP divides by 5: 0.2
    qrels = {"q": {"b": 1, "d": 1, "x": 1, "y": 1, "z": 1}}
    run = {"q": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6}}
    assert evaluate_as(qrels, run, metrics="map", conventions="ragas").mean["map"] == pytest.approx(0.5)
    assert evaluate_as(qrels, run, metrics="map", conventions="trec_eval").mean["map"] == pytest.approx(0.2)
    # only the top 2 chunks: (1/2) / 1
    assert evaluate_as(qrels, run, metrics="map@2", conventions="ragas").mean["map@2"] == pytest.approx(0.5)


def test_precision_padding_and_exponential_gain_by_hand():
    qrels = {"q": {"a": 2, "b": 1}}
    run = {"q": {"a": 0.9, "c": 0.5}}  # 2 retrieved, 1 relevant
    assert evaluate_as(qrels, run, metrics="P@5", conventions="trec_eval").mean["P@5"] == pytest.approx(1 / 5)
    per_retrieved = PRESETS["trec_eval"].replace(precision_denominator="retrieved")
    assert evaluate_as(qrels, run, metrics="P@5", conventions=per_retrieved).mean["P@5"] == pytest.approx(1 / 2)
    # exponential: DCG@2 = (2^2-1)/1 = 3; IDCG@2 = 3/1 + (2^1-1)/log2(3) = 3.6309
    burges = PRESETS["ranx"].replace(gain="exponential")
    got = evaluate_as(qrels, run, metrics="ndcg@2", conventions=burges).mean["ndcg@2"]
    assert got == pytest.approx(3 / (3 + 1 / math.log2(3)), abs=1e-15)


def test_queries_without_judgements_are_never_scored():
    qrels = {"q1": {"a": 1}, "q2": {}}
    run = {"q1": {"a": 1.0}, "q2": {"a": 1.0}, "q3": {"a": 1.0}}
    for name in PRESETS:
        metric = "map" if "map" in PRESETS[name].metrics else "ndcg"  # (gdeval has no map)
        report = evaluate_as(qrels, run, metrics=metric, conventions=name)
        assert list(report.per_query) == ["q1"]
        assert report.unjudged_queries == ("q2", "q3")
    # judged with {} and absent from the run: still listed, as rm.evaluate lists it
    for name in PRESETS:
        metric = "map" if "map" in PRESETS[name].metrics else "ndcg"
        report = evaluate_as(qrels, {"q1": {"a": 1.0}}, metrics=metric, conventions=name)
        assert report.unjudged_queries == ("q2",) and report.missing_queries == ()
        assert list(report.per_query) == ["q1"]  # not scored 0, even under missing=zero


# -------------------------------------------------------------- properties
@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(1, 4)), min_size=1, max_size=12),
       st.randoms(use_true_random=False))
def test_only_the_input_tie_order_depends_on_the_run_order(docs, rnd):
    qrels = {"q": {f"d{i}": g for i, (g, _) in enumerate(docs)}}
    items = [(f"d{i}", s / 4) for i, (_, s) in enumerate(docs)]
    shuffled = items[:]
    rnd.shuffle(shuffled)
    a, b = {"q": dict(items)}, {"q": dict(shuffled)}
    for name in ("trec_eval", "sklearn"):
        for m in ("map", "ndcg@3"):
            assert evaluate_as(qrels, a, metrics=m, conventions=name).mean[m] == evaluate_as(qrels, b, metrics=m, conventions=name).mean[m]
    if len({s for _, s in items}) == len(items):  # no tie: every order agrees
        assert evaluate_as(qrels, a, metrics="map", conventions="ranx").mean["map"] == pytest.approx(
            evaluate_as(qrels, b, metrics="map", conventions="ranx").mean["map"], abs=1e-15)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=12))
def test_every_preset_agrees_on_a_ranking_without_ties_that_finds_everything(grades):
    """No ties, every judged document retrieved, cut-off beyond the list: no convention bites."""
    qrels = {"q": {f"d{i}": g for i, g in enumerate(grades)}}
    run = {"q": {f"d{i}": float(len(grades) - i) for i in range(len(grades))}}
    values = [evaluate_as(qrels, run, metrics=["map", "ndcg"], conventions=name).mean for name in
              ("trec_eval", "ranx", "sklearn", "seeds")]
    for v in values[1:]:
        assert v["map"] == pytest.approx(values[0]["map"], abs=1e-12)
        assert v["ndcg"] == pytest.approx(values[0]["ndcg"], abs=1e-12)


# ------------------------------------------------------------------ errors
def test_errors_name_the_argument_and_the_value():
    with pytest.raises(ValueError, match="conventions must be one of .* got 'pyserini'"):
        evaluate_as(QRELS, RUN, metrics="map", conventions="pyserini")
    with pytest.raises(ValueError, match="does not compute 'P'"):
        evaluate_as(QRELS, RUN, metrics="P@10", conventions="sklearn")
    with pytest.raises(ValueError, match="'P' needs a cut-off"):
        evaluate_as(QRELS, RUN, metrics="P", conventions="trec_eval")
    with pytest.raises(ValueError, match="unknown metric 'bleu'"):
        evaluate_as(QRELS, RUN, metrics="bleu", conventions="trec_eval")
    with pytest.raises(ValueError, match="cut-off k must be a positive integer, got 0 in metric 'ndcg@0'"):
        evaluate_as(QRELS, RUN, metrics="ndcg@0", conventions="trec_eval")
    # a cut-off beyond trec_eval's C long is named, not converted (5,000
    # digits would hit Python's 4300-digit limit for int())
    with pytest.raises(ValueError, match=r"at most 2\*\*63 - 1, got a number of 5000 digits "
                                         r"in metric 'P@1000.*\(5002 characters\)"):
        evaluate_as(QRELS, RUN, metrics="P@1" + "0" * 4999, conventions="trec_eval")
    with pytest.raises(ValueError, match="got '١' in metric 'P@١'"):  # not an ASCII digit
        evaluate_as(QRELS, RUN, metrics="P@١", conventions="trec_eval")
    with pytest.raises(ValueError, match="nothing to score"):
        evaluate_as({"q1": {"a": 1}}, {"q2": {"a": 1.0}}, metrics="map")
    with pytest.raises(ValueError, match="gain must be one of"):
        PRESETS["ranx"].replace(gain="quadratic")
    with pytest.raises(TypeError, match=r"run\['q'\]\['a'\] must be a number"):
        evaluate_as({"q": {"a": 1}}, {"q": {"a": "high"}}, metrics="map")


def test_presets_say_where_their_choices_come_from():
    for name, preset in PRESETS.items():
        assert preset.name == name and preset.where and preset.library
        assert get_preset(preset) is preset
        assert f"conventions:{name}|" in preset.signature
    assert isinstance(PRESETS["ranx"].replace(ties="docid_desc"), Conventions)


def test_compare_puts_none_where_a_library_has_no_such_metric():
    table = compare(QRELS, RUN, metrics=["map", "P@5"], presets=["trec_eval", "sklearn"])
    assert table["sklearn"]["P@5"] is None
    assert table["trec_eval"]["P@5"] == pytest.approx(rm.evaluate(QRELS, RUN, metrics=["P@5"]).mean["P@5"])


# ------------------------------------------------- rm.evaluate(conventions=...)
# The same presets through the main entry point, checked against the libraries
# themselves: trec_eval's choices stay on rm.evaluate's fast path (a plain
# Report), the others go through evaluate_as (a ConventionReport).

EVAL_NAMES = ["map", "mrr", "ndcg", "P@5", "recall@10", "ndcg@5"]


def test_evaluate_trec_eval_c_is_pytrec_eval_with_missing_queries_as_zero(pytrec_scores):
    report = rm.evaluate(QRELS, RUN, metrics=EVAL_NAMES, conventions="trec_eval_c")
    assert type(report) is rm.Report  # the fast path
    missing = [q for q in QRELS if q not in RUN and QRELS[q]]
    assert missing and set(report.per_query) == set(pytrec_scores) | set(missing)
    n = len(pytrec_scores) + len(missing)
    for m in EVAL_NAMES:
        expected = math.fsum(v[TREC_NAMES[m]] for v in pytrec_scores.values()) / n
        assert report.mean[m] == pytest.approx(expected, rel=TOL, abs=TOL), m
        assert all(report.per_query[q][m] == 0.0 for q in missing)
    assert "missing:zero" in report.signature


def test_evaluate_ranx_conventions_equal_ranx(ranx_scores):
    qids, scores = ranx_scores
    report = rm.evaluate(QRELS, RUN, metrics=EVAL_NAMES, conventions="ranx")
    assert isinstance(report, rm.Report) and report.conventions.name == "ranx"
    assert list(report.per_query) == qids
    for m in EVAL_NAMES:
        theirs = [float(t) for t in scores[RANX_NAMES[m]]]
        ours = [report.per_query[q][m] for q in qids]
        assert ours == pytest.approx(theirs, rel=TOL, abs=TOL), m


def test_evaluate_gain_overrides_the_preset_as_ranx_ndcg_burges():
    ranx = pytest.importorskip("ranx")
    # (two metrics: with a single "ndcg_burges@k" this ranx looks up the wrong key)
    scores = ranx.evaluate(ranx.Qrels(QRELS), ranx.Run(NONEMPTY_RUN),
                           ["ndcg_burges@5", "ndcg@5"], return_mean=False,
                           make_comparable=True, save_results_in_run=False,
                           threads=1)["ndcg_burges@5"]
    report = rm.evaluate(QRELS, RUN, metrics=["ndcg@5"], conventions="ranx", gain="exponential")
    assert report.conventions.gain == "exponential" and report.conventions.ties == "input"
    ours = list(report.per_query.values())
    assert [v["ndcg@5"] for v in ours] == pytest.approx([float(t) for t in scores],
                                                        rel=TOL, abs=TOL)


def test_evaluate_sklearn_conventions_equal_ndcg_score():
    skm = pytest.importorskip("sklearn.metrics")
    per_query = rm.evaluate(QRELS, RUN, metrics=["ndcg@5"], conventions="sklearn").per_query
    for q in SK_QUERIES:
        y_true, y_score = _sk_inputs(q)
        assert per_query[q]["ndcg@5"] == pytest.approx(
            skm.ndcg_score([y_true], [y_score], k=5), rel=TOL, abs=TOL), q


def test_evaluate_missing_overrides_the_trec_eval_preset_on_the_fast_path():
    zero = rm.evaluate(QRELS, RUN, metrics=["map"], conventions="trec_eval", missing="zero")
    assert type(zero) is rm.Report and zero.missing == "zero"
    ignore = rm.evaluate(QRELS, RUN, metrics=["map"])
    # the same sum over more queries: every missing query adds a 0
    assert zero.mean["map"] * zero.n_queries == pytest.approx(
        ignore.mean["map"] * ignore.n_queries, rel=TOL)
    assert zero.n_queries - ignore.n_queries == len(zero.missing_queries) >= 10


def test_evaluate_conventions_errors_name_the_argument_and_the_value():
    with pytest.raises(ValueError, match="conventions must be one of .* got 'pyserini'"):
        rm.evaluate(QRELS, RUN, metrics="map", conventions="pyserini")
    with pytest.raises(ValueError, match="gain must be one of .* got 'quadratic'"):
        rm.evaluate(QRELS, RUN, metrics="map", conventions="ranx", gain="quadratic")
    with pytest.raises(ValueError, match="does not compute 'P'"):
        rm.evaluate(QRELS, RUN, metrics="P@10", conventions="sklearn")
    with pytest.raises(ValueError, match="missing must be one of .* got 'drop'"):
        rm.evaluate(QRELS, RUN, metrics="map", missing="drop")


# ------------------------------------------------------------------ trec_eval 10.0
TREC_EVAL10_DIR = Path(__file__).parents[1] / "trec_eval10"
TREC_EVAL10_NAMES = {"map": "map", "recip_rank": "mrr", "ndcg": "ndcg",
                     "ndcg_cut_3": "ndcg@3", "ndcg_cut_10": "ndcg@10", "map_cut_5": "map@5",
                     "success_1": "hit_rate@1", "success_5": "hit_rate@5"}
TREC_EVAL10_NAMES.update({f"P_{k}": f"P@{k}" for k in (1, 2, 3, 5, 10)})
TREC_EVAL10_NAMES.update({f"recall_{k}": f"recall@{k}" for k in (1, 3, 5, 10)})


def _read_trec_eval10_case():
    """The near-tie collection and trec_eval 10.0's ``-q`` output on it.

    near_ties.trec_eval10.txt was written by trec_eval 10.0 (built from
    usnistgov/trec_eval at its release commit, which calls itself
    10.0-rc3): ``trec_eval -q -m P.1,2,3,5,10 -m recall.1,3,5,10 -m ndcg
    -m ndcg_cut.3,10 -m map -m map_cut.5 -m recip_rank -m success.1,5
    near_ties.qrels near_ties.run``.  The run's scores are equal as 32-bit
    floats and different as doubles (1.0 and 1.0 + 1e-9, 1e-40 and
    2e-40, ...).  The files are split here by hand, independently of
    ragmetrics_edu.retrieval.trec.
    """
    qrels, run, expected = {}, {}, {}
    for line in (TREC_EVAL10_DIR / "near_ties.qrels").read_text().splitlines():
        qid, _, docid, grade = line.split()
        qrels.setdefault(qid, {})[docid] = int(grade)
    for line in (TREC_EVAL10_DIR / "near_ties.run").read_text().splitlines():
        qid, _, docid, _, score, _ = line.split()
        run.setdefault(qid, {})[docid] = float(score)
    for line in (TREC_EVAL10_DIR / "near_ties.trec_eval10.txt").read_text().splitlines():
        measure, qid, value = line.split()
        if qid != "all":
            expected.setdefault(qid, {})[TREC_EVAL10_NAMES[measure]] = float(value)
    return qrels, run, expected


@pytest.mark.parametrize("path", ["fast", "readable"])
def test_trec_eval10_preset_equals_trec_eval_10(path):
    qrels, run, expected = _read_trec_eval10_case()
    names = list(TREC_EVAL10_NAMES.values())
    if path == "fast":
        ours = rm.evaluate(qrels, run, metrics=names, conventions="trec_eval_10")
        assert "order:score(float64) desc,docid desc" in ours.signature
    else:
        ours = evaluate_as(qrels, run, metrics=names, conventions="trec_eval_10")
    assert set(ours.per_query) == set(expected)
    for q, values in expected.items():
        for m, v in values.items():  # trec_eval prints 4 decimals
            assert ours.per_query[q][m] == pytest.approx(v, abs=5.1e-5), (q, m)
    # the collection tells the two versions apart: trec_eval 9.x's floats
    # give other numbers on many queries
    nine = rm.evaluate(qrels, run, metrics=names, conventions="trec_eval")
    differ = [q for q in expected
              if any(abs(nine.per_query[q][m] - v) > 1e-3 for m, v in expected[q].items())]
    assert len(differ) >= 10


def test_trec_eval10_compares_doubles_the_issue_example():
    # trec_eval 10.0 prints recip_rank 1.0000 for this run (a first); 9.x
    # and pytrec_eval tie a and b as floats and put b first: 0.5
    qrels = {"q": {"a": 1}}
    run = {"q": {"a": 1.0000000001, "b": 1.0}}
    assert rm.evaluate(qrels, run, metrics=["mrr"], conventions="trec_eval_10").mean["mrr"] == 1.0
    assert evaluate_as(qrels, run, metrics=["mrr"], conventions="trec_eval_10").mean["mrr"] == 1.0
    assert rm.evaluate(qrels, run, metrics=["mrr"]).mean["mrr"] == 0.5
    # the one choice that differs from trec_eval 9.x
    ten, nine = PRESETS["trec_eval_10"], PRESETS["trec_eval"]
    differ = {f.name for f in dataclasses.fields(ten)
              if getattr(ten, f.name) != getattr(nine, f.name)}
    assert differ == {"name", "library", "where", "scores"} and ten.scores == "float64"


@pytest.mark.parametrize("seed", [0, 1])
def test_trec_eval10_fast_path_equals_the_readable_one(seed):
    # doubles that float32 merges, ties, negative grades, unjudged documents
    rng = np.random.default_rng(seed)
    levels = [3.0, 1.0 + 2e-16, 1.0 + 1e-12, 1.0, 1.0 - 1e-12, -0.0, 0.0, 5e-324, 1e-300,
              -1e-300, float("inf"), 1e300, 1e301]
    pool = [str(i) for i in range(1, 20)] + list("xyzXYZ")
    qrels, run = {}, {}
    for q in range(200):
        docs = rng.choice(len(pool), int(rng.integers(0, 20)), replace=False)
        run[f"q{q}"] = {pool[d]: levels[int(rng.integers(0, len(levels)))] for d in docs}
        judged = rng.choice(len(pool), int(rng.integers(1, 10)), replace=False)
        qrels[f"q{q}"] = {pool[d]: int(rng.integers(-1, 4)) for d in judged}
    names = ALL_NAMES
    fast = rm.evaluate(qrels, run, metrics=names, conventions="trec_eval_10")
    readable = evaluate_as(qrels, run, metrics=names, conventions="trec_eval_10")
    for q, values in readable.per_query.items():
        for m in names:
            assert fast.per_query[q][m] == pytest.approx(values[m], rel=1e-12, abs=1e-12), (q, m)
    assert fast.per_query != rm.evaluate(qrels, run, metrics=names).per_query  # 9.x differs
