"""Metric-vs-human correlations with paired bootstrap intervals, against scipy."""

import math

import numpy as np
import pytest

scipy_stats = pytest.importorskip("scipy.stats")

from ragmetrics_edu.judge.meta_eval import (  # noqa: E402
    Correlation,
    MetaEvaluation,
    correlation_ci,
    correlation_difference_ci,
    meta_evaluate,
    pearson,
)


def _ratings_and_scores(rng, n, noise):
    """Ratings on 1..5 and a metric that follows them with some noise (ties in both)."""
    ratings = rng.integers(1, 6, size=n)
    scores = np.round(ratings / 5 + rng.normal(0, noise, size=n), 1)
    return scores, ratings


# ----------------------------------------------------------------- point values

@pytest.mark.parametrize("trial", range(25))
def test_point_values_equal_scipy_on_random_data(trial):
    rng = np.random.default_rng(trial)
    n = int(rng.integers(3, 80))
    scores, ratings = _ratings_and_scores(rng, n, noise=float(rng.uniform(0.05, 1.0)))
    result = meta_evaluate({"m": scores}, ratings, n_resamples=5, seed=trial)
    tau = scipy_stats.kendalltau(scores, ratings).statistic
    rho = scipy_stats.spearmanr(scores, ratings).statistic
    got_tau = result.rows["m"]["kendall"].value
    got_rho = result.rows["m"]["spearman"].value
    if math.isnan(tau):
        assert math.isnan(got_tau)
    else:
        assert got_tau == pytest.approx(tau, abs=1e-12)
    if math.isnan(rho):
        assert math.isnan(got_rho)
    else:
        assert got_rho == pytest.approx(rho, abs=1e-12)


def test_hand_computed_values():
    human = [1, 2, 3, 4, 5, 6, 7, 8]
    metric = [0.1, 0.2, 0.4, 0.3, 0.5, 0.6, 0.7, 0.8]   # one neighbouring pair swapped
    assert correlation_ci(metric, human, method="kendall").value == pytest.approx(26 / 28)
    assert correlation_ci(metric, human, method="spearman").value == pytest.approx(1 - 6 * 2 / (8 * 63))
    reverse = [-x for x in human]
    c = correlation_ci(reverse, human, method="kendall")
    assert c.value == -1.0 and c.low == c.high == -1.0  # every resample is perfectly reversed


# ----------------------------------------------------------------- the interval

def test_interval_is_the_percentile_of_paired_resamples_by_hand():
    """Rebuild the interval from the same generator: items drawn jointly, numpy quantiles."""
    rng = np.random.default_rng(3)
    scores, ratings = _ratings_and_scores(rng, 30, noise=0.3)
    c = correlation_ci(scores, ratings, method="spearman", n_resamples=400, seed=11, confidence=0.9)
    draw = np.random.default_rng(11).integers(0, 30, size=(400, 30))
    stats = np.array([scipy_stats.spearmanr(scores[i], ratings[i]).statistic for i in draw])
    stats = stats[~np.isnan(stats)]
    assert c.low == pytest.approx(np.quantile(stats, 0.05), abs=1e-12)
    assert c.high == pytest.approx(np.quantile(stats, 0.95), abs=1e-12)


@pytest.mark.parametrize("method", ["kendall", "spearman"])
def test_interval_contains_the_point_value_and_widens_as_n_shrinks(method):
    rng = np.random.default_rng(0)
    scores, ratings = _ratings_and_scores(rng, 200, noise=0.25)
    widths = []
    for n in (200, 60, 15):
        c = correlation_ci(scores[:n], ratings[:n], method=method, n_resamples=500, seed=0)
        assert -1 <= c.low <= c.value <= c.high <= 1
        widths.append(c.high - c.low)
    assert widths[0] < widths[1] < widths[2]


def test_interval_widens_with_confidence_and_seed_repeats():
    rng = np.random.default_rng(1)
    scores, ratings = _ratings_and_scores(rng, 50, noise=0.3)
    c90 = correlation_ci(scores, ratings, confidence=0.90, seed=5)
    c99 = correlation_ci(scores, ratings, confidence=0.99, seed=5)
    assert c99.low <= c90.low and c90.high <= c99.high
    assert correlation_ci(scores, ratings, seed=5) == correlation_ci(scores, ratings, seed=5)


def test_coverage_of_the_true_correlation_is_near_nominal():
    """Draws from one population: the 90% interval holds its Kendall tau most of the time."""
    rng = np.random.default_rng(2)
    population_x, population_y = _ratings_and_scores(rng, 20000, noise=0.3)
    truth = scipy_stats.kendalltau(population_x[:4000], population_y[:4000]).statistic
    hits = 0
    trials = 25
    for t in range(trials):
        idx = rng.choice(len(population_x), size=60, replace=False)
        c = correlation_ci(population_x[idx], population_y[idx], confidence=0.9,
                           n_resamples=200, seed=t)
        hits += c.low <= truth <= c.high
    assert 0.7 <= hits / trials <= 1.0  # nominal 0.9; the percentile interval runs a little short


def test_metrics_share_the_same_resamples():
    rng = np.random.default_rng(4)
    scores, ratings = _ratings_and_scores(rng, 40, noise=0.3)
    both = meta_evaluate({"a": scores, "b": scores.copy()}, ratings, seed=9, n_resamples=200)
    assert both.rows["a"]["kendall"] == both.rows["b"]["kendall"]
    alone = correlation_ci(scores, ratings, method="spearman", seed=9, n_resamples=200)
    assert both.rows["a"]["spearman"] == alone


def test_grouped_bootstrap_resamples_whole_groups():
    rng = np.random.default_rng(5)
    scores, ratings = _ratings_and_scores(rng, 60, noise=0.3)
    groups = np.repeat(np.arange(20), 3)
    c = correlation_ci(scores, ratings, groups=groups, n_resamples=300, seed=0)
    assert c.unit == "groups" and c.low <= c.value <= c.high
    # by hand: draw 20 group numbers per resample, keep their three items each
    draw = np.random.default_rng(0).integers(0, 20, size=(300, 20))
    stats = [scipy_stats.kendalltau(scores[np.concatenate([np.arange(3 * g, 3 * g + 3) for g in row])],
                                    ratings[np.concatenate([np.arange(3 * g, 3 * g + 3) for g in row])]
                                    ).statistic for row in draw]
    assert c.low == pytest.approx(np.quantile(stats, 0.025), abs=1e-12)


def test_undefined_resamples_are_counted_and_dropped():
    # two distinct ratings among five items: some resamples hold one rating only
    c = correlation_ci([0.1, 0.2, 0.3, 0.4, 0.5], [1, 1, 1, 1, 2], n_resamples=200, seed=0)
    assert c.n_undefined > 0
    assert not math.isnan(c.low)


def test_result_prints_a_table():
    result = meta_evaluate({"BLEU": [0.1, 0.5, 0.3, 0.9], "judge": [1, 3, 2, 5]}, [1, 3, 2, 4],
                           n_resamples=50)
    assert isinstance(result, MetaEvaluation)
    text = str(result)
    assert "BLEU" in text and "judge" in text and "kendall" in text and "n=4 items" in text
    assert len(result.table()) == 4
    assert isinstance(result.rows["BLEU"]["kendall"], Correlation)
    assert "percentile bootstrap" in str(result.rows["BLEU"]["kendall"])


# ----------------------------------------------------------------- bad input

@pytest.mark.parametrize("kwargs, error, match", [
    (dict(method="pearsonr"), ValueError, "method must be one of"),
    (dict(confidence=1.0), ValueError, "confidence must be a number strictly between 0 and 1"),
    (dict(n_resamples=0), ValueError, "n_resamples"),
    (dict(seed=-1), ValueError, "seed must be None or a non-negative integer"),
    (dict(groups=[1, 1, 1]), ValueError, "at least 2 distinct groups"),
    (dict(groups=[1, 2]), ValueError, "one label per item"),
])
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        correlation_ci([0.1, 0.2, 0.3], [1, 2, 3], **kwargs)


def test_bad_data():
    with pytest.raises(ValueError, match="same items"):
        correlation_ci([0.1, 0.2], [1, 2, 3])
    with pytest.raises(ValueError, match="finite numbers"):
        correlation_ci([0.1, float("nan"), 0.3], [1, 2, 3])
    with pytest.raises(ValueError, match="at least 2 items"):
        correlation_ci([0.1], [1])
    with pytest.raises(TypeError, match="non-empty dict"):
        meta_evaluate({}, [1, 2])
    with pytest.raises(ValueError, match="methods must be one of"):
        meta_evaluate({"m": [1, 2]}, [1, 2], methods=("kendall", "tau"))


# ----------------------------------------------------------------- Pearson and differences

@pytest.mark.parametrize("trial", range(10))
def test_pearson_equals_scipy(trial):
    rng = np.random.default_rng(100 + trial)
    n = int(rng.integers(3, 200))
    x = rng.integers(0, 2, n) if trial % 2 else rng.random(n)     # 0/1 labels or scores
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    x = np.asarray(x, dtype=float)
    x[:2] = [0.0, 1.0]
    assert pearson(x, y) == pytest.approx(scipy_stats.pearsonr(x, y).statistic, abs=1e-12)
    assert math.isnan(pearson([1, 1, 1], [0, 1, 0]))


@pytest.mark.parametrize("seed", [0, 3])
def test_grouped_pearson_resamples_are_those_of_the_resampled_items(seed):
    """The group-sums path gives each resample's Pearson r computed on its items (scipy)."""
    rng = np.random.default_rng(seed)
    n = 150
    groups = rng.integers(0, 12, n)
    y = rng.integers(0, 2, n).astype(float)
    x = np.clip(y * 0.4 + rng.random(n) * 0.8, 0, 1).round(2)     # a score, with ties
    c = correlation_ci(x, y, method="pearson", groups=groups.tolist(), n_resamples=300, seed=seed)
    order = list(dict.fromkeys(groups.tolist()))
    members = [np.flatnonzero(groups == g) for g in order]
    picks = np.random.default_rng(seed).integers(0, len(order), size=(300, len(order)))
    stats = [scipy_stats.pearsonr(x[idx], y[idx]).statistic
             for idx in (np.concatenate([members[g] for g in row]) for row in picks)]
    assert c.value == pytest.approx(scipy_stats.pearsonr(x, y).statistic, abs=1e-12)
    assert (c.low, c.high) == pytest.approx(tuple(np.quantile(stats, [0.025, 0.975])), abs=1e-9)


def test_a_grouped_resample_with_one_label_only_is_undefined():
    # three groups; the group with the only positive label left out of a resample: r undefined
    x, y = [0.1, 0.9, 0.2, 0.3, 0.4, 0.5], [0, 1, 0, 0, 0, 0]
    c = correlation_ci(x, y, method="pearson", groups=[0, 0, 1, 1, 2, 2], n_resamples=200)
    assert c.n_undefined > 0 and not math.isnan(c.low)


@pytest.mark.parametrize("method, groups", [("pearson", True), ("pearson", False),
                                            ("kendall", True)])
def test_the_difference_is_paired(method, groups):
    rng = np.random.default_rng(8)
    n = 90
    y = rng.integers(0, 2, n).astype(float)
    a = np.where(rng.random(n) < 0.8, y, 1 - y)
    b = np.where(rng.random(n) < 0.65, y, 1 - y)
    g = rng.integers(0, 15, n).tolist() if groups else None
    d = correlation_difference_ci(a, b, y, method=method, groups=g, n_resamples=250, seed=4)
    ref = {"pearson": lambda u, v: scipy_stats.pearsonr(u, v).statistic,
           "kendall": lambda u, v: scipy_stats.kendalltau(u, v).statistic}[method]
    assert d.value == pytest.approx(ref(a, y) - ref(b, y), abs=1e-12)
    if groups:
        order = list(dict.fromkeys(g))
        members = [np.flatnonzero(np.array(g) == x) for x in order]
        picks = np.random.default_rng(4).integers(0, len(order), size=(250, len(order)))
        draws = [np.concatenate([members[k] for k in row]) for row in picks]
    else:
        draws = list(np.random.default_rng(4).integers(0, n, size=(250, n)))
    diffs = np.array([ref(a[i], y[i]) - ref(b[i], y[i]) for i in draws])
    diffs = diffs[~np.isnan(diffs)]
    assert (d.low, d.high) == pytest.approx(tuple(np.quantile(diffs, [0.025, 0.975])), abs=1e-9)
    assert d.method == f"{method}, a minus b"


# ----------------------------------------------------------------- bounded draws (issue 34)

@pytest.mark.parametrize("method, groups", [("pearson", True), ("pearson", False),
                                            ("spearman", True), ("kendall", False)])
def test_resamples_are_drawn_in_chunks_with_the_same_draws(monkeypatch, method, groups):
    """Chunks of a few rows give the very interval of one draw of every resample; before, the
    whole n_resamples x n index matrix was drawn at once (22 GiB for 10^6 resamples of 3000)."""
    from ragmetrics_edu.judge import meta_eval

    rng = np.random.default_rng(27)
    n = 60
    x, y = rng.random(n), rng.random(n)
    g = rng.integers(0, 9, n).tolist() if groups else None
    whole = correlation_ci(x, y, method=method, groups=g, n_resamples=101, seed=3)
    both = meta_evaluate({"a": x, "b": y[::-1].copy()}, y, methods=(method,), groups=g,
                         n_resamples=101, seed=3)
    monkeypatch.setattr(meta_eval, "RESAMPLE_BLOCK", 2 * n + 1)    # 2 rows a chunk (or fewer)
    chunked = correlation_ci(x, y, method=method, groups=g, n_resamples=101, seed=3)
    assert (chunked.low, chunked.high, chunked.n_undefined) == (whole.low, whole.high,
                                                                whole.n_undefined)
    again = meta_evaluate({"a": x, "b": y[::-1].copy()}, y, methods=(method,), groups=g,
                          n_resamples=101, seed=3)
    assert str(again) == str(both)


def test_resamples_never_hold_the_whole_index_matrix(monkeypatch):
    import tracemalloc

    from ragmetrics_edu.judge import meta_eval

    monkeypatch.setattr(meta_eval, "RESAMPLE_BLOCK", 3000)
    x = np.random.default_rng(0).random(3000)
    tracemalloc.start()
    correlation_ci(x, x, method="pearson", n_resamples=3000)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 10_000_000      # the whole matrix: 3000 x 3000 x 8 bytes = 72 MB
