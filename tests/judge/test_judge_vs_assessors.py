"""A graded judge against assessors: by hand, against a plain loop over resamples, and refusals."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ragmetrics_edu as rm
from ragmetrics_edu.judge import cohen_kappa
from ragmetrics_edu.judge.judge_vs_assessors import (
    binary_confusion,
    confusion_by_group,
    grade_agreement,
    kappa_difference_ci,
    kappa_from_confusion,
    unmeasured_replies,
)


def test_by_hand_on_a_small_table():
    # 3 queries; assessors and judge on the scale 0-3
    human = [0, 0, 1, 2, 3, 3, 0, 1, 2]
    judge = [0, 1, 1, 3, 2, 3, 0, 2, 1]
    r = grade_agreement(human, judge, groups=list("aaabbbccc"), n_resamples=50)
    # binary at >= 2: assessors relevant on 2, 3, 3, 2 (4 pairs); judge on 3, 2, 3, 2 (positions
    # 3, 4, 5, 7): both on positions 3, 4, 5 -> TPR 3/4; of the 5 not relevant, the judge says 0
    # on 0, 1, 2, 6 (4 of 5) -> TNR 4/5
    assert r.tpr.value == pytest.approx(3 / 4) and r.tnr.value == pytest.approx(4 / 5)
    # p_o = 7/9; p_e = (4/9)(4/9) + (5/9)(5/9) = 41/81; kappa = (63/81 - 41/81) / (40/81) = 22/40
    assert r.binary.value == pytest.approx(22 / 40)
    # mean grades: judge 13/9, assessors 12/9
    assert r.leniency.value == pytest.approx(1 / 9)
    assert r.judge_relevant == pytest.approx(4 / 9) and r.human_relevant == pytest.approx(4 / 9)
    assert r.confusion.tolist() == [[2, 1, 0, 0], [0, 1, 1, 0], [0, 1, 0, 1], [0, 0, 1, 1]]
    # called relevant (2 or 3), by the assessors' grade: of the 0s none, of the 1s one of two
    # (the 2 at position 7), of the 2s one of two, of the 3s both
    assert [s.value for s in r.by_grade] == pytest.approx([0, 1 / 2, 1 / 2, 1])
    assert [s.n for s in r.by_grade] == [3, 2, 2, 2]
    assert r.n == 9 and r.n_groups == 3 and r.binary.unit == "groups"


def _loop_reference(human, judge, groups, scale, level, n_resamples, seed):
    """Each resample built pair by pair from the same draws of groups, then every statistic."""
    order = list(dict.fromkeys(groups))
    members = {g: [i for i, x in enumerate(groups) if x == g] for g in order}
    picks = np.random.default_rng(seed).integers(0, len(order), size=(n_resamples, len(order)))
    out = {k: [] for k in ("binary", "graded", "linear", "quadratic", "tpr", "tnr", "leniency")}
    for row in picks:
        idx = [i for g in row for i in members[order[g]]]
        h = [human[i] for i in idx]
        j = [judge[i] for i in idx]
        hb = [int(x >= level) for x in h]
        jb = [int(x >= level) for x in j]
        out["binary"].append(cohen_kappa(hb, jb, labels=[0, 1]))
        out["graded"].append(cohen_kappa(h, j, labels=scale))
        out["linear"].append(cohen_kappa(h, j, weights="linear", labels=scale))
        out["quadratic"].append(cohen_kappa(h, j, weights="quadratic", labels=scale))
        pos = [y for x, y in zip(hb, jb) if x == 1]
        neg = [y for x, y in zip(hb, jb) if x == 0]
        out["tpr"].append(sum(pos) / len(pos) if pos else math.nan)
        out["tnr"].append(neg.count(0) / len(neg) if neg else math.nan)
        out["leniency"].append(np.mean(j) - np.mean(h))
        for grade in scale:
            said = [y for x, y in zip(h, jb) if x == grade]
            out.setdefault(f"by_grade {grade}", []).append(
                sum(said) / len(said) if said else math.nan)
    return out


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_interval_is_that_of_the_resampled_pairs(seed):
    rng = np.random.default_rng(10 + seed)
    n = 60
    human = rng.integers(0, 4, n).tolist()
    judge = np.clip(np.array(human) + rng.integers(-1, 2, n), 0, 3).tolist()
    groups = [f"q{g}" for g in rng.integers(0, 6, n)]
    r = grade_agreement(human, judge, groups=groups, n_resamples=300, seed=seed)
    ref = _loop_reference(human, judge, groups, [0, 1, 2, 3], 2, 300, seed)
    for name, stats in ref.items():
        s = np.array(stats, dtype=float)
        defined = s[~np.isnan(s)]
        low, high = np.quantile(defined, [0.025, 0.975])
        got = (r.by_grade[int(name.split()[1])] if name.startswith("by_grade")
               else getattr(r, name))
        assert got.low == pytest.approx(low, abs=1e-12), name
        assert got.high == pytest.approx(high, abs=1e-12), name
        assert got.n_undefined == len(s) - len(defined), name


def test_without_groups_pairs_are_resampled_one_by_one():
    rng = np.random.default_rng(3)
    human = rng.integers(0, 4, 40).tolist()
    judge = rng.integers(0, 4, 40).tolist()
    r = grade_agreement(human, judge, n_resamples=200, seed=5)
    ref = _loop_reference(human, judge, list(range(40)), [0, 1, 2, 3], 2, 200, 5)
    low, high = np.quantile(ref["quadratic"], [0.025, 0.975])
    assert (r.quadratic.low, r.quadratic.high) == pytest.approx((low, high), abs=1e-12)
    assert r.quadratic.unit == "pairs" and r.n_groups == 40


def test_chunks_of_resamples_give_the_same_draws(monkeypatch):
    from ragmetrics_edu.judge import judge_vs_assessors as jva

    rng = np.random.default_rng(4)
    human = rng.integers(0, 4, 50).tolist()
    judge = rng.integers(0, 4, 50).tolist()
    whole = grade_agreement(human, judge, n_resamples=97, seed=1)
    monkeypatch.setattr(jva, "_MAX_CELLS", 50 * 7)      # 7 resamples per chunk
    chunked = grade_agreement(human, judge, n_resamples=97, seed=1)
    assert (whole.linear.low, whole.linear.high) == (chunked.linear.low, chunked.linear.high)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=40),
       st.sampled_from([None, "linear", "quadratic"]))
def test_kappa_from_confusion_is_cohen_kappa(pairs, weights):
    a = [x for x, _ in pairs]
    b = [y for _, y in pairs]
    table = confusion_by_group([x for x in a], [y for y in b], [0] * len(a), n_labels=4)[0]
    ours = kappa_from_confusion(table, weights)
    ref = cohen_kappa(a, b, weights=weights, labels=range(4))
    assert (math.isnan(ours) and math.isnan(ref)) or ours == pytest.approx(ref, abs=1e-12)


def test_binary_confusion_thresholds_the_grades():
    rng = np.random.default_rng(8)
    h, j = rng.integers(0, 4, 100), rng.integers(0, 4, 100)
    table = confusion_by_group(h, j, np.zeros(100, int), n_labels=4)[0]
    for level in (1, 2, 3):
        direct = confusion_by_group((h >= level).astype(int), (j >= level).astype(int),
                                    np.zeros(100, int), n_labels=2)[0]
        assert binary_confusion(table, level).tolist() == direct.tolist()


# ----------------------------------------------------------------- replies off the scale

def test_a_reply_off_the_scale_is_refused_with_its_pair():
    with pytest.raises(ValueError, match=r"reply for pair \('q2', 'p8'\) is 10 \(outside the "
                                         r"scale; 1 such reply in all\)"):
        grade_agreement([0, 1, 2], [0, 1, 10], pairs=[("q1", "p1"), ("q1", "p2"), ("q2", "p8")])


def test_excluded_replies_are_counted_never_read_as_zero():
    human = [0, 1, 2, 3, 0, 3]
    judge = [0, 1, 2, 3, None, 5]
    r = grade_agreement(human, judge, unmeasured="exclude", n_resamples=20)
    assert r.n == 4 and [(u.pair, u.value, u.reason) for u in r.unmeasured] == [
        (4, None, "no reply"), (5, 5, "outside the scale")]
    assert r.graded.value == pytest.approx(1.0)            # the four measured pairs agree
    assert "4 pairs measured, 2 unmeasured (1 no reply, 1 outside the scale)" in str(r)


def test_with_mappings_a_pair_the_judge_left_out_is_a_missing_reply():
    human = {"q1": {"a": 0, "b": 2, "c": 3}, "q2": {"d": 1, "e": 0}}
    judge = {"q1": {"a": 0, "b": 2}, "q2": {"d": 1, "e": 1}}
    with pytest.raises(ValueError, match=r"pair \('q1', 'c'\) is no grade \(no reply"):
        grade_agreement(human, judge)
    r = grade_agreement(human, judge, unmeasured="exclude", n_resamples=20)
    assert r.n == 4 and r.n_groups == 2 and r.unmeasured[0].pair == ("q1", "c")


def test_an_assessors_grade_off_the_scale_is_always_refused():
    with pytest.raises(ValueError, match=r"assessors' grade of pair 1 is 4, not a grade of the "
                                         r"scale \(0, 1, 2, 3\)"):
        grade_agreement([0, 4, 1], [0, 1, 1], unmeasured="exclude")


def test_unmeasured_replies_lists_what_is_not_a_grade():
    found = unmeasured_replies({"q0": {"p1": 0, "p2": 5}, "q1": {"p3": None, "p4": 1.5,
                                                               "p5": True}})
    assert [(u.pair, u.reason) for u in found] == [
        (("q0", "p2"), "outside the scale"), (("q1", "p3"), "no reply"),
        (("q1", "p4"), "not a grade"), (("q1", "p5"), "not a grade")]


@pytest.mark.parametrize("kwargs, message", [
    ({"scale": (0, 2, 1)}, "scale must be increasing"),
    ({"scale": (0,)}, "at least 2 whole-number grades"),
    ({"relevance_level": 0}, "relevance_level must be a grade of the scale"),
    ({"relevance_level": 4}, "relevance_level must be a grade of the scale"),
    ({"unmeasured": "zero"}, "unmeasured"),
    ({"groups": ["a", "a", "a"]}, "at least 2 distinct groups"),
    ({"groups": ["a", "b"]}, "one label per pair"),
])
def test_arguments_are_refused_by_name(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        grade_agreement([0, 1, 2], [0, 1, 2], **kwargs)


def test_mixed_kinds_of_input_are_refused():
    with pytest.raises(TypeError, match="both"):
        grade_agreement({"q": {"p": 1}}, [1])


# ----------------------------------------------------------------- two judges

def test_the_difference_of_two_judges_is_paired():
    rng = np.random.default_rng(6)
    human = rng.integers(0, 4, 80)
    a = np.clip(human + rng.integers(-1, 2, 80) * (rng.random(80) < 0.3), 0, 3)
    b = np.clip(human + rng.integers(-2, 3, 80) * (rng.random(80) < 0.6), 0, 3)
    groups = rng.integers(0, 8, 80).tolist()
    d = kappa_difference_ci(human.tolist(), a.tolist(), b.tolist(), kappa="quadratic",
                            groups=groups, n_resamples=200, seed=2)
    ra = grade_agreement(human.tolist(), a.tolist(), groups=groups, n_resamples=5)
    rb = grade_agreement(human.tolist(), b.tolist(), groups=groups, n_resamples=5)
    assert d.value == pytest.approx(ra.quadratic.value - rb.quadratic.value, abs=1e-12)
    # each resample: both kappas on the same draw of groups
    order = list(dict.fromkeys(groups))
    picks = np.random.default_rng(2).integers(0, len(order), size=(200, len(order)))
    diffs = []
    for row in picks:
        idx = [i for g in row for i in range(80) if groups[i] == order[g]]
        diffs.append(cohen_kappa(human[idx], a[idx], weights="quadratic", labels=range(4))
                     - cohen_kappa(human[idx], b[idx], weights="quadratic", labels=range(4)))
    assert (d.low, d.high) == pytest.approx(tuple(np.quantile(diffs, [0.025, 0.975])), abs=1e-12)


def test_the_exports_are_these_functions():
    assert rm.grade_agreement is grade_agreement and rm.kappa_difference_ci is kappa_difference_ci


# ----------------------------------------------------------------- AUC

def test_auc_equals_scikit_learn_on_random_scores():
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(11)
    for _ in range(50):
        n = int(rng.integers(4, 120))
        y = rng.integers(0, 2, n)
        y[:2] = [0, 1]
        s = np.round(rng.normal(y * rng.random(), 1, n), int(rng.integers(0, 3)))  # with ties
        r = rm.judge.judge_vs_assessors.auc_ci(y.tolist(), s.tolist(), n_resamples=5)
        assert r.value == pytest.approx(metrics.roc_auc_score(y, s), abs=1e-12)


def test_auc_interval_is_that_of_the_resampled_pairs():
    metrics = pytest.importorskip("sklearn.metrics")
    from ragmetrics_edu.judge.judge_vs_assessors import auc_ci

    rng = np.random.default_rng(12)
    y = rng.integers(0, 2, 70)
    s = rng.normal(y, 1.2, 70).round(1)
    groups = rng.integers(0, 9, 70).tolist()
    r = auc_ci(y, s, groups=groups, n_resamples=300, seed=4)
    order = list(dict.fromkeys(groups))
    picks = np.random.default_rng(4).integers(0, len(order), size=(300, len(order)))
    ref = []
    for row in picks:
        idx = [i for g in row for i in range(70) if groups[i] == order[g]]
        ref.append(metrics.roc_auc_score(y[idx], s[idx]) if len(set(y[idx])) == 2 else np.nan)
    ref = np.array(ref)
    low, high = np.quantile(ref[~np.isnan(ref)], [0.025, 0.975])
    assert (r.low, r.high) == pytest.approx((low, high), abs=1e-12)


@pytest.mark.parametrize("labels, scores, message", [
    ([1, 1, 1], [0.1, 0.2, 0.3], "both relevant"),
    ([0, 2, 1], [0.1, 0.2, 0.3], "labels must be 0 or 1"),
    ([0, 1], [0.1], "same pairs"),
    ([0, 1], [0.1, float("nan")], "finite"),
])
def test_auc_refuses_what_it_cannot_measure(labels, scores, message):
    from ragmetrics_edu.judge.judge_vs_assessors import auc_ci

    with pytest.raises(ValueError, match=message):
        auc_ci(labels, scores)
