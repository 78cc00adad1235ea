"""Kappa with a bootstrap interval and system-ranking tau, against scikit-learn and scipy."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ragmetrics_edu as rm
from ragmetrics_edu.judge import cohen_kappa
from ragmetrics_edu.judge.assessors import kappa_ci, system_ranking_tau

sklearn_metrics = pytest.importorskip("sklearn.metrics")
scipy_stats = pytest.importorskip("scipy.stats")


@pytest.mark.filterwarnings("ignore::UserWarning")  # scikit-learn on one-label draws (nan)
@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_kappa_equals_scikit_learn_on_random_inputs(weights):
    rng = np.random.default_rng({None: 0, "linear": 1, "quadratic": 2}[weights])
    worst = 0.0
    for _ in range(200):
        n_labels = int(rng.integers(2, 5)) if weights else 2
        n = int(rng.integers(2, 80))
        a = rng.integers(0, n_labels, n)
        noise = rng.integers(-1, 2, n) * (rng.random(n) < rng.random())
        b = np.clip(a + noise, 0, n_labels - 1)
        ref = sklearn_metrics.cohen_kappa_score(a, b, weights=weights)
        ours = kappa_ci(a.tolist(), b.tolist(), weights=weights, n_resamples=5).value
        if math.isnan(ref):
            assert math.isnan(ours)
        else:
            worst = max(worst, abs(ours - ref))
    assert worst < 1e-12, worst


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_each_resample_is_the_kappa_of_the_resampled_pairs(weights):
    """The interval equals a plain loop: same draws (default_rng(seed)), cohen_kappa with fixed labels."""
    rng = np.random.default_rng(3)
    a = rng.integers(0, 4, 60).tolist()
    b = np.clip(np.array(a) + rng.integers(-1, 2, 60), 0, 3).tolist()
    result = kappa_ci(a, b, weights=weights, n_resamples=300, seed=7, confidence=0.9)
    draws = np.random.default_rng(7).integers(0, 60, size=(300, 60))
    labels = sorted(set(a) | set(b))
    stats = []
    for idx in draws:
        ra, rb = [a[i] for i in idx], [b[i] for i in idx]
        stats.append(sklearn_metrics.cohen_kappa_score(ra, rb, labels=labels, weights=weights))
    stats = np.array(stats)
    stats = stats[~np.isnan(stats)]
    low, high = np.quantile(stats, [0.05, 0.95])
    assert result.low == pytest.approx(low, abs=1e-12)
    assert result.high == pytest.approx(high, abs=1e-12)
    assert result.unit == "pairs" and result.n == 60


def test_kappa_groups_resample_whole_queries():
    rng = np.random.default_rng(4)
    queries = np.repeat(np.arange(12), 5)
    a = rng.integers(0, 2, 60).tolist()
    b = [x if rng.random() < 0.8 else 1 - x for x in a]
    result = kappa_ci(a, b, groups=queries.tolist(), n_resamples=200, seed=1)
    assert result.unit == "groups"
    members = [np.flatnonzero(queries == g) for g in range(12)]
    picks = np.random.default_rng(1).integers(0, 12, size=(200, 12))
    stats = [cohen_kappa([a[i] for i in idx], [b[i] for i in idx], labels=[0, 1])
             for idx in (np.concatenate([members[g] for g in row]) for row in picks)]
    low, high = np.quantile([s for s in stats if not math.isnan(s)], [0.025, 0.975])
    assert (result.low, result.high) == pytest.approx((low, high), abs=1e-12)


def test_kappa_interval_is_seeded_and_holds_the_value():
    a = [0, 0, 1, 1, 1, 0, 1, 0, 1, 1] * 3
    b = [0, 1, 1, 1, 1, 0, 1, 0, 0, 1] * 3
    one = kappa_ci(a, b, seed=5, n_resamples=300)
    assert one == kappa_ci(a, b, seed=5, n_resamples=300)
    assert one.low <= one.value <= one.high
    assert "Cohen's kappa" in str(one)


def test_kappa_undefined_resamples_are_counted():
    # one disagreement among 9 agreeing pairs: a resample without it is all one label -> nan
    a = [1] * 9 + [0]
    b = [1] * 10
    result = kappa_ci(a, b, n_resamples=400, seed=0)
    assert result.n_undefined > 0


def test_kappa_bad_input():
    with pytest.raises(ValueError, match="same items"):
        kappa_ci([1, 0], [1])
    with pytest.raises(ValueError, match="weights"):
        kappa_ci([1, 0], [1, 0], weights="cubic")
    with pytest.raises(ValueError, match="confidence"):
        kappa_ci([1, 0], [1, 0], confidence=1.0)
    with pytest.raises(ValueError, match="labels must include"):
        kappa_ci([1, 2], [1, 0], labels=[1, 2])
    with pytest.raises(ValueError, match="groups"):
        kappa_ci([1, 0], [1, 0], groups=[1])


# ----------------------------------------------------------------- rankings

def _systems(rng, n_systems, n_queries, noise):
    quality = rng.uniform(0, 1, n_systems)
    human = {f"s{i}": np.clip(quality[i] + rng.normal(0, 0.3, n_queries), 0, 1)
             for i in range(n_systems)}
    judge = {s: np.clip(v + rng.normal(0, noise, n_queries), 0, 1) for s, v in human.items()}
    return human, judge


def test_tau_equals_scipy_on_random_systems():
    rng = np.random.default_rng(8)
    worst = 0.0
    for _ in range(100):
        human, judge = _systems(rng, int(rng.integers(2, 15)), int(rng.integers(1, 40)),
                                float(rng.uniform(0, 1)))
        r = system_ranking_tau(human, judge, n_resamples=5)
        ref = scipy_stats.kendalltau(r.mean_a, r.mean_b).statistic
        means_a = [np.mean(v) for v in human.values()]
        assert r.mean_a == pytest.approx(means_a, abs=1e-15)
        worst = max(worst, abs(r.tau - ref))
    assert worst < 1e-12, worst


def test_tau_with_ties_equals_scipy_tau_b():
    human = {"a": [1, 0], "b": [1, 0], "c": [0, 0], "d": [1, 1]}
    judge = {"a": [1, 1], "b": [0, 0], "c": [0, 0], "d": [1, 1]}
    r = system_ranking_tau(human, judge, n_resamples=10)
    assert r.tau == pytest.approx(scipy_stats.kendalltau(r.mean_a, r.mean_b).statistic)


def test_tau_interval_resamples_queries():
    rng = np.random.default_rng(9)
    human, judge = _systems(rng, 8, 25, 0.4)
    r = system_ranking_tau(human, judge, n_resamples=250, seed=3, confidence=0.9)
    x = np.vstack(list(human.values()))
    y = np.vstack(list(judge.values()))
    draws = np.random.default_rng(3).integers(0, 25, size=(250, 25))
    stats = [scipy_stats.kendalltau(x[:, i].mean(1), y[:, i].mean(1)).statistic for i in draws]
    low, high = np.quantile([s for s in stats if not math.isnan(s)], [0.05, 0.95])
    assert (r.low, r.high) == pytest.approx((low, high), abs=1e-12)
    assert r.n_queries == 25 and len(r.systems) == 8


def test_tau_aligns_dicts_by_system_and_query():
    human = {"a": {"q1": 0.9, "q2": 0.7}, "b": {"q1": 0.1, "q2": 0.3}, "c": {"q1": 0.5, "q2": 0.5}}
    judge = {"c": {"q2": 0.5, "q1": 0.5}, "b": {"q2": 0.9, "q1": 0.9}, "a": {"q2": 0.8, "q1": 0.6}}
    r = system_ranking_tau(human, judge, n_resamples=20)
    assert r.systems == ("a", "b", "c")
    assert r.mean_b == pytest.approx((0.7, 0.9, 0.5))
    assert set(r.discordant) == {("a", "b"), ("c", "b")}
    assert r.tau == pytest.approx(-1 / 3)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.floats(0, 1), min_size=3, max_size=3), min_size=2, max_size=8,
                unique_by=lambda row: round(sum(row), 9)))
def test_same_labels_give_tau_one(rows):
    scores = {f"s{i}": row for i, row in enumerate(rows)}
    r = system_ranking_tau(scores, scores, n_resamples=20)
    assert r.tau == pytest.approx(1.0) and r.discordant == ()


def test_tau_reads_evaluate_reports():
    qrels_human = {"q1": {"d1": 1, "d2": 1}, "q2": {"d3": 1}}
    qrels_judge = {"q1": {"d1": 1, "d4": 1}, "q2": {"d3": 1, "d5": 1}}
    runs = {"a": {"q1": {"d1": 3, "d2": 2, "d4": 1}, "q2": {"d3": 2, "d5": 1}},
            "b": {"q1": {"d4": 3, "d1": 2, "d9": 1}, "q2": {"d5": 2, "d3": 1}},
            "c": {"q1": {"d9": 3, "d8": 2, "d2": 1}, "q2": {"d8": 2, "d9": 1}}}
    human = {s: rm.evaluate(qrels_human, run, metrics=["P@2"]) for s, run in runs.items()}
    judge = {s: rm.evaluate(qrels_judge, run, metrics=["P@2"]) for s, run in runs.items()}
    r = system_ranking_tau(human, judge, metric="P@2", n_resamples=20)
    # P@2 by hand. human: a (1 + 0.5) / 2, b (0.5 + 0.5) / 2, c 0
    #               judge: a (0.5 + 1) / 2, b (1 + 1) / 2,     c 0
    assert r.mean_a == pytest.approx((0.75, 0.5, 0.0))
    assert r.mean_b == pytest.approx((0.75, 1.0, 0.0))
    assert r.discordant == (("a", "b"),) and r.tau == pytest.approx(1 / 3)
    assert r.tau == pytest.approx(scipy_stats.kendalltau(r.mean_a, r.mean_b).statistic)
    with pytest.raises(ValueError, match="metric="):
        system_ranking_tau(human, judge)


def test_tau_bad_input():
    with pytest.raises(ValueError, match="same systems"):
        system_ranking_tau({"a": [1], "b": [0]}, {"a": [1], "c": [0]})
    with pytest.raises(ValueError, match="at least 2 systems"):
        system_ranking_tau({"a": [1]}, {"a": [1]})
    with pytest.raises(ValueError, match="same queries"):
        system_ranking_tau({"a": [1, 0], "b": [0, 1]}, {"a": [1], "b": [0]})
    with pytest.raises(ValueError, match="finite"):
        system_ranking_tau({"a": [1, float("nan")], "b": [0, 1]}, {"a": [1, 0], "b": [0, 1]})
    with pytest.raises(TypeError, match="scores_a"):
        system_ranking_tau([1, 2], {"a": [1]})


def test_public_names():
    assert rm.kappa_ci is kappa_ci
    assert rm.system_ranking_tau is system_ranking_tau


# ----------------------------------------------------------------- exact ties (issue 34)

def _exact_tau(rows_a, rows_b):
    """tau-b of the systems' exact decimal mean scores (fractions.Fraction(str(x)) of every
    score), by scipy on ranks of the exact means: equal means tie, whatever the binary rounding
    of the decimals and the order of the additions."""
    from fractions import Fraction

    def ranks(rows):
        means = [sum(Fraction(str(float(v))) for v in row) / len(row) for row in rows]
        order = sorted(set(means))
        return [order.index(m) for m in means]

    return scipy_stats.kendalltau(ranks(rows_a), ranks(rows_b)).statistic


def _tied_tables(rng, n_systems, n_queries):
    """Per-query scores of P@10-like values; several systems hold the same scores in
    another query order (equal means, summed in another order)."""
    values = np.round(np.arange(11) / 10, 1)
    base = [rng.choice(values, n_queries) for _ in range(max(1, n_systems // 2))]
    rows = [base[i % len(base)][rng.permutation(n_queries)] for i in range(n_systems)]
    return rows


def test_the_issue_s_tie_is_a_tie():
    # (0.1 + 0.2 + 0.3) / 3 and (0.3 + 0.2 + 0.1) / 3 differ in floating point
    assert (0.1 + 0.2 + 0.3) / 3 != (0.3 + 0.2 + 0.1) / 3
    human = {"a": [0.1, 0.2, 0.3], "b": [0.3, 0.2, 0.1], "c": [0.5, 0.5, 0.5]}
    judge = {"a": [0.2, 0.2, 0.2], "b": [0.1, 0.1, 0.1], "c": [0.9, 0.9, 0.9]}
    r = system_ranking_tau(human, judge, n_resamples=20)
    # pairs: (a, b) tied under the people, (a, c) and (b, c) concordant: 2 / sqrt(2 * 3)
    assert r.discordant == ()
    assert r.tau == pytest.approx(2 / math.sqrt(6), abs=1e-15)
    assert r.mean_a[0] == r.mean_a[1]


def test_tau_equals_tau_of_exact_means_on_tied_tables():
    """On tables full of equal means summed in different orders, tau and its interval equal
    those of the exact rational means (before: about one case in seven differed)."""
    rng = np.random.default_rng(34)
    differ = []
    for case in range(120):
        n_systems, n_queries = int(rng.integers(2, 9)), int(rng.integers(1, 12))
        rows_a = _tied_tables(rng, n_systems, n_queries)
        rows_b = _tied_tables(rng, n_systems, n_queries)
        human = {f"s{i}": r.tolist() for i, r in enumerate(rows_a)}
        judge = {f"s{i}": r.tolist() for i, r in enumerate(rows_b)}
        r = system_ranking_tau(human, judge, n_resamples=30, seed=case)
        ref = _exact_tau(rows_a, rows_b)
        same = (math.isnan(ref) and math.isnan(r.tau)) or abs(r.tau - ref) < 1e-12
        # the interval: the same draws, exact means on each
        x, y = np.vstack(rows_a), np.vstack(rows_b)
        draws = np.random.default_rng(case).integers(0, n_queries, size=(30, n_queries))
        stats = np.array([_exact_tau(x[:, i], y[:, i]) for i in draws])
        stats = stats[~np.isnan(stats)]
        if len(stats):
            low, high = np.quantile(stats, [0.025, 0.975])
            same = same and abs(r.low - low) < 1e-12 and abs(r.high - high) < 1e-12
            same = same and r.n_undefined == 30 - len(stats)
        if not same:
            differ.append(case)
    assert differ == []


def test_tau_equals_tau_of_exact_decimal_means_on_random_p_at_10_tables():
    """Random P@10-like tables (no planted ties): equal decimal means, such as 0.1 + 0.5 and
    0.3 + 0.3, tie. Before: 189 of 300 such tables gave another tau than the exact means."""
    rng = np.random.default_rng(341)
    differ = []
    for case in range(300):
        n_systems, n_queries = int(rng.integers(2, 9)), int(rng.integers(1, 8))
        rows_a = list(rng.integers(0, 11, size=(n_systems, n_queries)) / 10)
        rows_b = list(rng.integers(0, 11, size=(n_systems, n_queries)) / 10)
        human = {f"s{i}": r.tolist() for i, r in enumerate(rows_a)}
        judge = {f"s{i}": r.tolist() for i, r in enumerate(rows_b)}
        r = system_ranking_tau(human, judge, n_resamples=20, seed=case)
        ref = _exact_tau(rows_a, rows_b)
        same = (math.isnan(ref) and math.isnan(r.tau)) or abs(r.tau - ref) < 1e-12
        x, y = np.vstack(rows_a), np.vstack(rows_b)
        draws = np.random.default_rng(case).integers(0, n_queries, size=(20, n_queries))
        stats = np.array([_exact_tau(x[:, i], y[:, i]) for i in draws])
        stats = stats[~np.isnan(stats)]
        same = same and r.n_undefined == 20 - len(stats)
        if len(stats):
            low, high = np.quantile(stats, [0.025, 0.975])
            same = same and abs(r.low - low) < 1e-12 and abs(r.high - high) < 1e-12
        if not same:
            differ.append(case)
    assert differ == []


def test_the_probe_s_decimal_tie():
    human = {"s1": [0.1, 0.5], "s2": [0.3, 0.3], "s3": [.9, .9]}
    judge = {"s1": [0.3, 0.3], "s2": [0.1, 0.5], "s3": [.9, .9]}
    from fractions import Fraction
    assert sum(map(Fraction, [0.1, 0.5])) != sum(map(Fraction, [0.3, 0.3]))  # binary
    r = system_ranking_tau(human, judge, n_resamples=10)
    assert r.discordant == () and r.tau == pytest.approx(1.0, abs=1e-15)


def test_many_tied_systems_are_settled_without_a_loop_per_resample():
    """150 identical systems: every pair ties on every resample (before: 68 s for 1000
    resamples, a Python loop over tied pairs); now as fast as distinct scores."""
    rng = np.random.default_rng(0)
    row = (rng.integers(0, 11, 20) / 10).tolist()
    same = {f"s{i}": row for i in range(150)}
    r = system_ranking_tau(same, same, n_resamples=100)
    assert math.isnan(r.tau) and r.n_undefined == 100


def test_discordant_pairs_follow_exact_means():
    human = {"a": [0.1, 0.2, 0.3], "b": [0.3, 0.2, 0.1]}       # equal means
    judge = {"a": [0.3, 0.2, 0.1], "b": [0.1, 0.2, 0.3]}       # the same, summed the other way
    r = system_ranking_tau(human, judge, n_resamples=10)
    assert r.discordant == () and math.isnan(r.tau)


# ----------------------------------------------------------------- kappa_ci (issue 34)

@pytest.mark.parametrize("a, b, where", [
    ([1.0, math.nan, 0.0, 1.0], [1.0, 0.0, 0.0, 1.0], r"a\[1\] is NaN"),
    ([1.0, 0.0, 0.0, 1.0], [1.0, 0.0, math.nan, math.nan], r"b\[2\] is NaN"),
    ([1.0, np.float64("nan")], [1.0, 0.0], r"a\[1\] is NaN"),
])
def test_nan_labels_are_refused(a, b, where):
    """Before: NaN != NaN, so two NaN labels counted as two different labels."""
    with pytest.raises(ValueError, match=where + ": a label must be a value"):
        kappa_ci(a, b, n_resamples=10)
    with pytest.raises(ValueError, match=where):
        cohen_kappa(a, b)


def test_kappa_resamples_are_drawn_in_chunks_with_the_same_draws(monkeypatch):
    """Chunks of resamples give the very interval of one draw of all of them."""
    from ragmetrics_edu.judge import assessors

    rng = np.random.default_rng(5)
    a = rng.integers(0, 3, 200).tolist()
    b = np.clip(np.array(a) + rng.integers(-1, 2, 200), 0, 2).tolist()
    groups = [i // 7 for i in range(200)]
    whole = [kappa_ci(a, b, weights="linear", n_resamples=101, seed=3),
             kappa_ci(a, b, n_resamples=101, seed=3, groups=groups)]
    monkeypatch.setattr(assessors, "RESAMPLE_BLOCK", 450)   # 2 rows of 200 pairs a chunk
    chunked = [kappa_ci(a, b, weights="linear", n_resamples=101, seed=3),
               kappa_ci(a, b, n_resamples=101, seed=3, groups=groups)]
    assert [(k.low, k.high) for k in chunked] == [(k.low, k.high) for k in whole]


def test_kappa_on_half_a_million_pairs_stays_small():
    """Before: the 40 x 500,000 resample index (160 MB) was allocated at once; 1000
    resamples of a million pairs would take 8 GB."""
    import tracemalloc

    rng = np.random.default_rng(0)
    a = rng.integers(0, 2, 500_000)
    b = np.where(rng.random(500_000) < 0.9, a, 1 - a)
    a, b = a.tolist(), b.tolist()
    tracemalloc.start()
    try:
        result = kappa_ci(a, b, n_resamples=40, seed=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.low < result.value < result.high
    assert peak < 100 * 2**20, peak / 2**20


def _tau_loop(x, y, n_resamples, seed):
    """Each resample's tau the slow way: the resampled tables, their exact means and signs."""
    from ragmetrics_edu.judge import assessors

    picks = np.random.default_rng(seed).integers(0, x.shape[1], size=(n_resamples, x.shape[1]))
    return np.array([assessors._tau_from_signs(
        assessors._order_signs(x[:, idx], assessors._means(x[:, idx])),
        assessors._order_signs(y[:, idx], assessors._means(y[:, idx]))) for idx in picks])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_resampled_taus_are_those_of_the_resampled_tables(seed):
    """The matrix-product resamples give each resample's exact tau, ties and near-ties included:
    two systems whose per-query scores are a permutation of each other (equal means, float sums
    that may differ in the last bit), two identical systems, and 0.1 + 0.2 against 0.3."""
    from ragmetrics_edu.judge import assessors

    rng = np.random.default_rng(20 + seed)
    x = rng.random((7, 13))
    x[1] = x[0][::-1]                       # a permutation of system 0: the same mean
    x[2] = x[0]                             # identical: tied on every resample
    x[3, :2], x[4, :2] = [0.1, 0.2], [0.3, 0.0]
    x[4, 2:] = x[3, 2:]                     # 0.1 + 0.2 against 0.3 + 0.0: exactly tied sums
    y = np.round(x + rng.normal(0, 0.2, x.shape), 1)   # coarse: many ties
    got = assessors._resampled_taus(x, y, 400, seed)
    want = _tau_loop(x, y, 400, seed)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert got[~np.isnan(got)] == pytest.approx(want[~np.isnan(want)], abs=1e-12)


def test_the_resampled_taus_do_not_depend_on_the_chunk(monkeypatch):
    from ragmetrics_edu.judge import assessors

    rng = np.random.default_rng(7)
    x, y = rng.random((5, 9)), rng.random((5, 9))
    whole = assessors._resampled_taus(x, y, 50, 3)
    monkeypatch.setattr(assessors, "RESAMPLE_BLOCK", 30)     # 3 rows a chunk
    assert np.array_equal(assessors._resampled_taus(x, y, 50, 3), whole, equal_nan=True)


def test_labels_may_be_an_iterator():
    """Before: cohen_kappa consumed the generator and kappa_ci raised KeyError 0."""
    k = kappa_ci([0, 1, 1], [0, 1, 0], labels=(x for x in [0, 1]), n_resamples=20)
    assert k.value == kappa_ci([0, 1, 1], [0, 1, 0], labels=[0, 1], n_resamples=20).value


def test_huge_scores_are_ranked_or_named():
    """Before: OverflowError "intermediate overflow in fsum", and "int too large" naming nothing."""
    r = system_ranking_tau({"a": [1e308, 1e308], "b": [1.0, 2.0]},
                           {"a": [1.0, 3.0], "b": [1.0, 2.0]}, n_resamples=10)
    assert r.tau == 1.0 and r.mean_a[0] == 1e308
    with pytest.raises(ValueError, match=r"scores_a\['a'\].*query 0"):
        system_ranking_tau({"a": [10**400, 1], "b": [1.0, 2.0]}, {"a": [1.0, 3.0], "b": [1.0, 2.0]})
