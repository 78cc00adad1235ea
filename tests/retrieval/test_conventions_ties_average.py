"""``ties="average"`` combined with every other convention, and ``Conventions.replace``.

References: scikit-learn's ``average_precision_score`` (one precision per
distinct score, recall divided by the positives passed) for the step function;
hand arithmetic for the other AP denominators and for tie groups split by a
cut-off; the mean over every order of the ties, computed with the readable
single-query functions, for the metrics that ``ties="average"`` defines as
that mean; and, without ties, the default tie order.
"""

import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragmetrics_edu.retrieval.conventions import AP_DENOMINATORS, PRESETS, evaluate_as
from ragmetrics_edu.retrieval.graded import dcg_at_k, ndcg_at_k
from ragmetrics_edu.retrieval.order_aware import reciprocal_rank
from ragmetrics_edu.retrieval.order_unaware import (
    f1_at_k,
    hit_rate_at_k,
    precision_at_k,
    recall_at_k,
)

TREC = PRESETS["trec_eval"]

# notebook 10's tied run: q1 ranks d2 (0.9), then d1 and d3 tied at 0.8, d5, d4;
# q2 ranks d10 and d9 tied at 0.7, then d5; q3 has no tie; q4 is missing
QRELS = {
    "q1": {"d1": 3, "d2": 0, "d3": 2, "d4": 1, "d9": 3},
    "q2": {"d10": 1, "d9": 0, "d5": 0, "d6": 2},
    "q3": {"d7": 2, "d8": 1},
    "q4": {"d6": 1},
}
TIED_RUN = {
    "q1": {"d2": 0.9, "d1": 0.8, "d3": 0.8, "d5": 0.4, "d4": 0.3},
    "q2": {"d10": 0.7, "d9": 0.7, "d5": 0.2},
    "q3": {"d8": 0.5, "d7": 0.3},
}


@pytest.mark.parametrize("denominator, q1, q2, q1_at_3, q2_at_3", [
    # q1: thresholds {d2}, {d1, d3} (2 relevant, precision 2/3), {d5}, {d4} (precision 3/5);
    # q2: threshold {d10, d9} (1 relevant, precision 1/2); R = 4 and 2
    ("all_relevant", (2 * 2 / 3 + 3 / 5) / 4, (1 / 2) / 2, (2 * 2 / 3) / 4, (1 / 2) / 2),
    ("retrieved_relevant", (2 * 2 / 3 + 3 / 5) / 3, (1 / 2) / 1, (2 * 2 / 3) / 2, (1 / 2) / 1),
    ("min_k_relevant", (2 * 2 / 3 + 3 / 5) / min(5, 4), (1 / 2) / min(3, 2),
     (2 * 2 / 3) / min(3, 4), (1 / 2) / min(3, 2)),
])
def test_every_ap_denominator_applies_to_tied_scores_by_hand(denominator, q1, q2, q1_at_3, q2_at_3):
    conv = TREC.replace(ties="average", missing="zero", ap_denominator=denominator)
    report = evaluate_as(QRELS, TIED_RUN, metrics=["map", "map@3"], conventions=conv)
    assert report.per_query["q1"]["map"] == pytest.approx(q1, abs=1e-15)
    assert report.per_query["q2"]["map"] == pytest.approx(q2, abs=1e-15)
    assert report.per_query["q1"]["map@3"] == pytest.approx(q1_at_3, abs=1e-15)
    assert report.per_query["q2"]["map@3"] == pytest.approx(q2_at_3, abs=1e-15)
    # q3 (no tie, both relevant at ranks 1, 2) is 1 under every denominator; q4 is 0
    assert report.mean["map"] == pytest.approx((q1 + q2 + 1 + 0) / 4, abs=1e-15)


def test_the_denominators_give_three_numbers_on_the_tied_run():
    means = {d: evaluate_as(QRELS, TIED_RUN, metrics=["map@3"],
                            conventions=TREC.replace(ties="average", ap_denominator=d)).mean["map@3"]
             for d in AP_DENOMINATORS}
    assert len(set(means.values())) == 3, means


@pytest.mark.parametrize("denominator, want", [
    ("all_relevant", (1 + 5 / 9) / 3),        # R = 3
    ("retrieved_relevant", (1 + 5 / 9) / (5 / 3)),  # 1 + 2/3 relevant in the top 2
    ("min_k_relevant", (1 + 5 / 9) / 2),      # min(k, R) = 2
])
def test_a_cut_off_that_splits_a_tie_counts_the_groups_share_whatever_the_run_order(denominator, want):
    # a (relevant) at 0.9, then b, c (relevant) and d tied at 0.5; AP@2 has one place of
    # the tie, worth 2/3 of a relevant document; precision at rank 2 is (1 + 2/3) / 2:
    # sum = 1 * 1 + (2/3) * (5/3) / 2 = 1 + 5/9
    qrels = {"q": {"a": 1, "b": 1, "c": 1, "d": 0}}
    conv = TREC.replace(ties="average", ap_denominator=denominator)
    for order in itertools.permutations("bcd"):
        run = {"q": {"a": 0.9, **{doc: 0.5 for doc in order}}}
        got = evaluate_as(qrels, run, metrics=["map@2"], conventions=conv).mean["map@2"]
        assert got == pytest.approx(want, abs=1e-15), order


def test_ties_average_with_every_denominator_scales_scikit_learns_average_precision():
    """average_precision_score steps over distinct scores, dividing recall by the
    positives passed: our AP with another denominator D is it times (positives / D)."""
    skm = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(8)
    checked = 0
    for _ in range(300):
        n = int(rng.integers(2, 12))
        grades = rng.integers(0, 3, size=n)
        scores = rng.integers(1, 5, size=n) / 4  # four values: many ties
        unfound = int(rng.integers(0, 3))  # relevant documents never retrieved
        docs = [f"d{i}" for i in range(n)]
        qrels = {"q": {**dict(zip(docs, map(int, grades))), **{f"u{i}": 1 for i in range(unfound)}}}
        run = {"q": dict(zip(docs, map(float, scores)))}
        positives = int(np.count_nonzero(grades >= 1))
        if positives == 0:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = skm.average_precision_score((grades >= 1).astype(int), scores)
        r = positives + unfound
        for denominator, d in [("retrieved_relevant", positives), ("all_relevant", r),
                               ("min_k_relevant", min(n, r))]:
            conv = TREC.replace(ties="average", scores="float64", ap_denominator=denominator)
            ours = evaluate_as(qrels, run, metrics=["map"], conventions=conv).mean["map"]
            assert ours == pytest.approx(theirs * positives / d, rel=1e-12, abs=1e-12)
        checked += 1
    assert checked >= 200


# ------------------------------- the mean over every order of the ties
def _every_order(grades, scores):
    """Every ranking of ``grades`` by ``scores`` descending, ties in every order."""
    groups = [[g for g, s in zip(grades, scores) if s == value]
              for value in sorted(set(scores), reverse=True)]
    for parts in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [g for part in parts for g in part]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(1, 3)), min_size=1, max_size=7),
       st.integers(0, 2), st.integers(1, 8), st.sampled_from(["k", "retrieved"]))
def test_ties_average_is_the_mean_over_every_order_of_the_ties(docs, unfound, k, denominator):
    grades = [g for g, _ in docs]
    scores = [s / 4 for _, s in docs]
    names = [f"d{i}" for i in range(len(docs))]
    qrels = {"q": {**dict(zip(names, grades)), **{f"u{i}": 1 for i in range(unfound)}}}
    if not any(g >= 1 for g in qrels["q"].values()):
        qrels["q"]["u"] = 0  # still a judged query
    run = {"q": dict(zip(names, scores))}
    r = sum(g >= 1 for g in qrels["q"].values())
    every = list(_every_order(grades, scores))
    readable = {
        f"P@{k}": lambda rels: precision_at_k(rels, k, denominator=denominator),
        f"recall@{k}": lambda rels: recall_at_k(rels, k, n_relevant=r),
        f"f1@{k}": lambda rels: f1_at_k(rels, k, n_relevant=r, denominator=denominator),
        f"hit_rate@{k}": lambda rels: hit_rate_at_k(rels, k),
        f"mrr@{k}": lambda rels: reciprocal_rank(rels, k),
        "mrr": lambda rels: reciprocal_rank(rels),
        f"dcg@{k}": lambda rels: dcg_at_k(rels, k),
        f"ndcg@{k}": lambda rels: ndcg_at_k(rels, k, ideal=list(qrels["q"].values())),
    }
    conv = TREC.replace(ties="average", scores="float64", precision_denominator=denominator)
    ours = evaluate_as(qrels, run, metrics=list(readable), conventions=conv).mean
    for name, metric in readable.items():
        want = math.fsum(metric(rels) for rels in every) / len(every)
        assert ours[name] == pytest.approx(want, rel=1e-12, abs=1e-12), name


# ---------------------------------------- without ties, no tie rule matters
@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=12, unique=False), st.integers(0, 3),
       st.randoms(use_true_random=False))
def test_without_ties_average_equals_the_default_tie_order_for_every_convention(grades, unfound, rnd):
    names = [f"d{i}" for i in range(len(grades))]
    distinct = list(range(1, len(grades) + 1))
    rnd.shuffle(distinct)  # distinct scores, exact in float32 too: no tie anywhere
    qrels = {"q": {**dict(zip(names, grades)), **{f"u{i}": 2 for i in range(unfound)}}}
    run = {"q": {d: s / 8 for d, s in zip(names, distinct)}}
    metrics = ["map", "map@3", "map@20", "P@3", "P@20", "recall@3", "f1@5", "hit_rate@2",
               "mrr", "mrr@2", "dcg@3", "ndcg", "ndcg@3"]
    for ap, precision, gain, ideal in itertools.product(
            AP_DENOMINATORS, ("k", "retrieved"), ("linear", "exponential"), ("judged", "retrieved")):
        base = TREC.replace(ap_denominator=ap, precision_denominator=precision, gain=gain,
                            ideal_source=ideal)
        default = evaluate_as(qrels, run, metrics=metrics, conventions=base).mean
        average = evaluate_as(qrels, run, metrics=metrics, conventions=base.replace(ties="average")).mean
        for m in metrics:
            assert average[m] == pytest.approx(default[m], rel=1e-12, abs=1e-12), (m, ap)


# ------------------------------------------------------ Conventions.replace
def test_replace_says_which_preset_it_changed_and_how():
    custom = PRESETS["trec_eval"].replace(ties="average", missing="zero")
    assert custom.name == "custom"
    assert custom.library == "the 'trec_eval' preset with ties='average', missing='zero'"
    assert "trec_eval 9.x" not in custom.library and "docno descending" not in custom.where
    assert "PRESETS['trec_eval'].where" in custom.where
    again = custom.replace(gain="exponential")
    assert again.library == custom.library + ", then gain='exponential'"
    assert again.where == custom.where
    # the presets themselves, and a copy given its own texts, keep them
    assert PRESETS["trec_eval"].library.startswith("trec_eval 9.x")
    named = PRESETS["ranx"].replace(name="mine", library="my tool", where="my page", gain="exponential")
    assert (named.name, named.library, named.where) == ("mine", "my tool", "my page")
    assert PRESETS["trec_eval_c"].where.endswith("option -c")
