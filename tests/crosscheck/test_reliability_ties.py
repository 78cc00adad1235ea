"""Big tie groups (issue 23, item 7): trec_eval's values, in time that grows with the group's size.

trec_eval orders tied documents by id, descending (``strcmp`` on bytes;
ids equal but for trailing ``"\\0"`` as ``sorted`` orders them: rule 3 of
:mod:`ragmetrics_edu.retrieval.batch.evaluator`).  A tie group once compared each tied
relevant document with every member of its group: ``n**2 / 2`` comparisons
for ``n`` tied documents, half of them relevant; now each query is sorted
once and each tied document is sorted by id once more
(:mod:`ragmetrics_edu.retrieval.batch._engine`).  The references here are
pytrec_eval (trec_eval's C code) and the readable one-query functions over
the documents ``sorted`` by (score, id), descending; the guard against
quadratic work counts the documents sorted, never seconds.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ragmetrics_edu as rm
from ragmetrics_edu.retrieval.batch import _engine as engine
from ragmetrics_edu.retrieval.batch import evaluate

pytrec_eval = pytest.importorskip("pytrec_eval")


def _sorted_ranking(ranking):
    """Document ids in trec_eval's order: float32 score, then id, both descending (``sorted``)."""
    return [d for d, _ in sorted(ranking.items(),
                                 key=lambda item: (float(np.float32(item[1])), item[0]),
                                 reverse=True)]


def _readable(qrels, ranking, metric):
    """``map``, ``mrr`` or ``bpref`` of one query by the readable functions, in ``sorted`` order."""
    order = _sorted_ranking(ranking)
    n_rel = sum(g >= 1 for g in qrels.values())
    if metric == "bpref":
        n_nonrel = sum(0 <= g < 1 for g in qrels.values())  # a negative grade: unjudged
        return rm.bpref([qrels.get(d) for d in order], n_rel, n_nonrelevant=n_nonrel)
    rels = [max(qrels.get(d, 0), 0) for d in order]
    if metric == "map":
        return rm.average_precision(rels, n_rel)
    return rm.reciprocal_rank(rels)


def _one_big_group(n, seed, ids=None):
    """One query of ``n`` documents all scored 0.0, in a shuffled order; every other one judged.

    Judged documents alternate relevant (grade 1 or 2) and not (0): the
    relevant half is what ``map`` ranks, the whole judged half is what
    ``bpref`` ranks.
    """
    rng = np.random.default_rng(seed)
    ids = [f"doc{i}" for i in range(n)] if ids is None else ids
    order = rng.permutation(len(ids)).tolist()
    run = {"q": {ids[i]: 0.0 for i in order}}
    judged = [ids[i] for i in order[::2]]
    qrels = {"q": {d: int(rng.integers(1, 3)) if j % 2 == 0 else 0 for j, d in enumerate(judged)}}
    return qrels, run


@pytest.mark.parametrize("measure, trec_name", [("map", "map"), ("bpref", "bpref"),
                                                ("ndcg", "ndcg"), ("mrr", "recip_rank")])
def test_twenty_thousand_tied_documents_equal_pytrec_eval(measure, trec_name):
    # 20,000 documents with one score, 10,000 judged (5,000 relevant): every
    # judged one is ranked by its id among 19,999 others (issue 23: 6.8 s
    # for bpref before, quadratic in the group's size)
    qrels, run = _one_big_group(20_000, seed=1)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {trec_name}).evaluate(run)["q"][trec_name]
    ours = evaluate(qrels, run, metrics=[measure]).per_query["q"][measure]
    assert ours == pytest.approx(theirs, abs=1e-12)


def test_big_groups_in_many_queries_equal_pytrec_eval():
    # tie groups of many sizes in one run: small and big groups, long ids
    # that share their first 16 bytes, multi-byte characters
    rng = np.random.default_rng(23)
    qrels, run = {}, {}
    for q, size in enumerate([1, 2, 63, 64, 65, 66, 129, 700, 3000]):
        ids = [f"{'clueweb09-en0000-' if i % 3 else 'é'}{i:05d}" for i in
               rng.choice(10 * size, size=size, replace=False).tolist()]
        run[f"q{q}"] = {d: float(rng.integers(0, 2)) for d in ids}
        qrels[f"q{q}"] = {d: int(rng.integers(0, 3)) for d in ids[: size // 2 + 1]}
    names = {"map": "map", "bpref": "bpref", "ndcg": "ndcg", "P@20": "P_20"}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"map", "bpref", "ndcg", "P"}).evaluate(run)
    ours = evaluate(qrels, run, metrics=list(names)).per_query
    for qid, values in theirs.items():
        for name, trec_name in names.items():
            assert ours[qid][name] == pytest.approx(values[trec_name], abs=1e-12), (qid, name)


_HOSTILE = [
    "", "a", "a\0", "a\0\0", "ab", "abc", "abcdefg", "abcdefg\0", "abcdefgh", "abcdefgh\0",
    "abcdefghi", "9", "10", "\0", "\0a", "x\0y", "é", "e\u0301", "日本", "日本語",
    "\U0001f600", "\uffff", "\ud800", "\udfff", "\ue000", "document-00000001",
    "document-000000010", "document-00000001-part-2",
]
"""Ids that order awkwardly: prefixes, trailing and inner NULs, multi-byte UTF-8, lone surrogates."""


def _tie_path(mp, path):
    """Rank tied ids by NumPy's byte strings (``"matrix"``), by Python's ``sorted`` (``"python"``),
    or by packed keys where they fit (``"packed"``)."""
    if path != "packed":
        mp.setattr(engine, "_packed_ranks", lambda *args: None)
    if path == "python":
        mp.setattr(engine, "_MATRIX_BYTES", 0)


@pytest.mark.parametrize("path", ["matrix", "python"])
@pytest.mark.parametrize("metric", ["map", "mrr", "bpref"])
def test_a_big_group_of_hostile_ids_follows_sorted(path, metric):
    # a group of 1,028 tied documents (the hostile ids, and 1,000 more made
    # of their pieces): every judged one's rank is its place in sorted(),
    # whichever way the tied ids are sorted
    rng = np.random.default_rng(5)
    extra = {"".join(rng.choice(_HOSTILE, size=3).tolist()) + str(i) for i in range(1000)}
    qrels, run = _one_big_group(0, seed=5, ids=_HOSTILE + sorted(extra))
    with pytest.MonkeyPatch.context() as mp:
        _tie_path(mp, path)
        ours = evaluate(qrels, run, metrics=[metric]).per_query["q"][metric]
    assert ours == pytest.approx(_readable(qrels["q"], run["q"], metric), abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(ids=st.lists(st.text(alphabet="ab\0\xe9\ud800\U0001f600", max_size=20), min_size=1,
                    max_size=120, unique=True),
       scores=st.lists(st.sampled_from([0.0, 1.0, 1.0 + 1e-12]), min_size=120, max_size=120),
       grades=st.lists(st.integers(-1, 2), min_size=120, max_size=120),
       path=st.sampled_from(["matrix", "python", "packed"]))
def test_tied_ranks_follow_sorted_whichever_way_they_are_counted(ids, scores, grades, path):
    # hostile ids (NULs anywhere, prefixes, lone surrogates, 4-byte
    # characters), a few scores (1.0 + 1e-12 ties with 1.0 as a float32),
    # any grades: map and bpref as sorted() orders the run, whichever way
    # the tied ids are sorted
    run = {"q": dict(zip(ids, scores))}
    qrels = {"q": dict(zip(ids[::2], grades))}
    with pytest.MonkeyPatch.context() as mp:
        _tie_path(mp, path)
        report = evaluate(qrels, run, metrics=["map", "bpref"])
    if "q" not in report.per_query:
        return
    for metric in ("map", "bpref"):
        if not any(g >= 1 for g in qrels["q"].values()):
            assert report.per_query["q"][metric] == 0.0
            continue
        assert report.per_query["q"][metric] == pytest.approx(
            _readable(qrels["q"], run["q"], metric), abs=1e-12), metric


def _counted_work(monkeypatch, qrels, run, metric):
    """Evaluate; return the number of ids turned into sort keys by the tie step (its work)."""
    work = []
    tie_keys = engine._tie_keys

    def counting(group, raw, starts, lengths, width):
        work.append(len(group))
        return tie_keys(group, raw, starts, lengths, width)

    monkeypatch.setattr(engine, "_packed_ranks", lambda *args: None)  # the tie step
    monkeypatch.setattr(engine, "_tie_keys", counting)
    evaluate(qrels, run, metrics=[metric])
    return sum(work)


@pytest.mark.parametrize("metric", ["map", "bpref"])
@pytest.mark.parametrize("n", [500, 4000])
def test_tie_work_grows_linearly_with_the_group(monkeypatch, metric, n):
    # n tied documents, n / 2 judged (n / 4 relevant): comparing each ranked
    # document with each member of its group made n**2 / 4 (bpref) pairs; now
    # the group's ids are sorted once and each ranked one (every judged one
    # for bpref, the relevant ones for map) is searched for among them
    qrels, run = _one_big_group(n, seed=n)
    ranked = sum(1 for g in qrels["q"].values() if metric == "bpref" or g >= 1)
    assert _counted_work(monkeypatch, qrels, run, metric) == n + ranked


def test_tie_work_of_many_small_groups_is_their_documents(monkeypatch):
    # groups of a few documents: the documents of each group holding a
    # relevant document are sorted once, and the relevant ones searched once
    rng = np.random.default_rng(3)
    run = {f"q{q}": {f"long-document-id-{i:06d}": float(rng.integers(0, 3))
                     for i in rng.choice(10_000, size=90, replace=False).tolist()}
           for q in range(50)}
    qrels = {q: {d: 1 for d in list(r)[::3]} for q, r in run.items()}
    expected = 0
    for q, ranking in run.items():
        scores = list(ranking.values())
        judged_scores = [ranking[d] for d in qrels[q]]
        for score in set(judged_scores):
            if scores.count(score) > 1:  # a tie group holding judged documents
                expected += scores.count(score) + judged_scores.count(score)
    assert _counted_work(monkeypatch, qrels, run, "map") == expected


# --- Packed keys (ids of at most 7 bytes, few distinct scores) ---------------
#
# Such runs are ranked by one sort of 64-bit keys (the query, the score's
# rank among the chunk's distinct scores, then the id's bytes), a block of
# queries at a time: engine._packed_ranks.  Every other run takes the tie step.  Both must give
# sorted()'s order.

def _evaluate_both_ways(qrels, run, metrics, **kwargs):
    """``evaluate`` with packed keys allowed, and with the tie step only; and whether it packed."""
    packed_ranks = engine._packed_ranks
    used = []

    def spying(*args):
        ranks = packed_ranks(*args)
        used.append(ranks is not None)
        return ranks

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(engine, "_packed_ranks", spying)
        packed = evaluate(qrels, run, metrics=metrics, **kwargs)
        mp.setattr(engine, "_packed_ranks", lambda *args: None)
        general = evaluate(qrels, run, metrics=metrics, **kwargs)
    return packed, general, any(used)


_SHORT_HOSTILE = ["", "a", "ab", "abc", "abcdefg", "9", "10", "\x01", "a\x01", "\x7f", "é",
                  "e\u0301", "日本", "\U0001f600", "\uffff", "\ud800", "\udfff", "\ue000"]
"""Ids of at most 7 UTF-8 bytes that order awkwardly (no NUL: a NUL makes a run not packed)."""


@settings(max_examples=200, deadline=None)
@given(ids=st.lists(st.text(alphabet="ab9\x01\x7f\xe9\ud800\U0001f600", max_size=4).filter(
           lambda d: len(d.encode("utf-8", "surrogatepass")) <= 7), min_size=2, max_size=60,
           unique=True),
       scores=st.lists(st.sampled_from([0.0, -0.0, 1.0, 1.0 + 1e-12, 2.5, -1.0, float("inf")]),
                       min_size=60, max_size=60),
       grades=st.lists(st.integers(-1, 2), min_size=60, max_size=60),
       n_queries=st.integers(1, 3),
       unretrieved=st.lists(st.sampled_from(["a\0", "ab\0", "\0", "abcdefgh", "ab9\x01\x7f\xe9",
                                             "\U0001f600\U0001f600", "zz"]), max_size=4))
def test_packed_keys_rank_as_sorted(ids, scores, grades, n_queries, unretrieved):
    # short hostile ids (prefixes, multi-byte characters, lone surrogates),
    # scores that tie as float32 (-0.0 and 0.0, 1.0 and 1.0 + 1e-12), any
    # grades, one to three queries, judged ids that are not retrieved but
    # whose first bytes are a retrieved id's ("a\0", "abcdefgh"): where
    # the run has ties, the packed path is taken, and map and bpref are
    # those of the run as sorted() orders it
    run = {f"q{q}": dict(zip(ids[q::n_queries], scores[q::n_queries])) for q in range(n_queries)}
    qrels = {q: dict(zip(list(r)[::2] + [d for d in unretrieved if d not in r], grades))
             for q, r in run.items()}
    qrels = {q: j for q, j in qrels.items() if j}
    if not qrels:
        return
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(engine, "_HEAVY_TIES", 0.0)  # packed keys wherever they fit
        mp.setattr(engine, "_PACKED_BLOCK", 1)
        packed, general, used = _evaluate_both_ways(qrels, run, ["map", "bpref", "ndcg@5"])
    tied = any(len(set(map(np.float32, run[q].values()))) < len(run[q]) for q in qrels)
    assert used == tied  # (packed keys are tried where the run's documents tie)
    assert packed.per_query == general.per_query and packed.mean == general.mean
    for qid, values in packed.per_query.items():
        for metric in ("map", "bpref"):
            expected = (_readable(qrels[qid], run[qid], metric)
                        if any(g >= 1 for g in qrels[qid].values()) else 0.0)
            assert values[metric] == pytest.approx(expected, abs=1e-12), (qid, metric)


@pytest.mark.parametrize("conventions", ["trec_eval", "trec_eval_10"])
def test_packed_keys_give_pytrec_eval_values_on_many_queries(conventions):
    # 300 queries of 40 documents, ids of at most 7 bytes (the hostile ones
    # and "d0" to "d199"), integer scores 0-4 (float32 and double keys):
    # packed, the values are pytrec_eval's and the tie-group path's (lone
    # surrogates and "" left out: pytrec_eval cannot take them)
    rng = np.random.default_rng(7)
    pool = [d for d in _SHORT_HOSTILE if d and not any("\ud800" <= c <= "\udfff" for c in d)]
    pool += [f"d{i}" for i in range(200)]
    run, qrels = {}, {}
    for q in range(300):
        ids = rng.choice(len(pool), size=40, replace=False).tolist()
        run[f"q{q}"] = {pool[i]: float(rng.integers(0, 5)) for i in ids}
        qrels[f"q{q}"] = {pool[i]: int(rng.integers(-1, 3)) for i in ids[:15]}
    names = {"map": "map", "bpref": "bpref", "ndcg": "ndcg", "P@10": "P_10",
             "mrr": "recip_rank", "rprec": "Rprec"}
    packed, general, used = _evaluate_both_ways(qrels, run, list(names),
                                                conventions=conventions)
    assert used
    assert packed.per_query == general.per_query
    if conventions == "trec_eval":  # (pytrec_eval runs trec_eval 9.x: float32)
        theirs = pytrec_eval.RelevanceEvaluator(
            qrels, {"map", "bpref", "ndcg", "P", "recip_rank", "Rprec"}).evaluate(run)
        for qid, values in theirs.items():
            for name, trec_name in names.items():
                assert packed.per_query[qid][name] == pytest.approx(values[trec_name],
                                                                    abs=1e-12), (qid, name)


def _fixed_run(n_queries=20, size=50, ids=None, scores=None):
    """A seeded run and qrels: ids "d0"... (or ``ids(q, i)``), scores 0-4 (or ``scores(q, i)``)."""
    rng = np.random.default_rng(11)
    run, qrels = {}, {}
    for q in range(n_queries):
        docs = [ids(q, i) if ids else f"d{i}" for i in rng.permutation(size).tolist()]
        run[f"q{q}"] = {d: (scores(q, i) if scores else float(rng.integers(0, 5)))
                        for i, d in enumerate(docs)}
        qrels[f"q{q}"] = {d: int(rng.integers(0, 3)) for d in docs[::3]}
    return qrels, run


@pytest.mark.parametrize("case, packs", [
    ("five scores", True),
    ("200 distinct scores", False),            # no ties: the first sort is the order
    ("200 distinct scores and ties", True),    # 8 bits of score
    ("7-byte multi-byte ids, 20 queries", True),  # 56 + 3 bits: 32 queries a block
    ("an id of 8 bytes", False),               # no room for its bytes
    ("an id holding a NUL", False),            # zero-padding would make it "d"
    ("7-byte ids and 300 distinct scores", False),  # 56 + 9 bits: no room
    ("judged ids that only begin as retrieved ones", True),  # (only the run's ids are packed)
])
def test_which_runs_are_packed(case, packs):
    # whether a run is packed or not, the values are the tie step's (and so
    # sorted()'s and pytrec_eval's, tested above and elsewhere)
    if case == "five scores":
        qrels, run = _fixed_run()
    elif case == "200 distinct scores":
        qrels, run = _fixed_run(scores=lambda q, i: float((q * 50 + i) % 200) / 8)
    elif case == "200 distinct scores and ties":
        qrels, run = _fixed_run(scores=lambda q, i: float((q * 7 + i % 25) % 200) / 8)
    elif case == "an id of 8 bytes":
        qrels, run = _fixed_run(ids=lambda q, i: "d1234567" if (q, i) == (19, 3) else f"d{i}")
    elif case == "an id holding a NUL":
        qrels, run = _fixed_run(ids=lambda q, i: "d\0" if (q, i) == (19, 3) else f"d{i}")
    elif case == "7-byte multi-byte ids, 20 queries":
        qrels, run = _fixed_run(ids=lambda q, i: f"é{i:05d}")
    elif case == "7-byte ids and 300 distinct scores":
        qrels, run = _fixed_run(ids=lambda q, i: f"é{i:05d}",
                                scores=lambda q, i: float((q * 15 + i % 25) % 300))
    else:
        # "d10" is retrieved; "d10\0" and "d10xxxxx" are judged, relevant, not
        # retrieved (the second cut to 7 bytes is "d10xxxx", which is)
        qrels, run = _fixed_run(ids=lambda q, i: "d10xxxx" if i == 49 else f"d{i}")
        for judged in qrels.values():
            judged.update({"d10\0": 2, "d10xxxxx": 2, "d10xxxx\0": 1})
    packed, general, used = _evaluate_both_ways(qrels, run, ["map", "bpref", "ndcg@10"])
    assert used == packs
    assert packed.per_query == general.per_query and packed.mean == general.mean
