"""The numbers lesson 14 states, recomputed: balanced interleaving's bias, the peeking
false-positive rate with its experiment count, and how many times fewer impressions
interleaving needs.  (IPS's truth values: test_online_counterfactual.py.)"""

import itertools
import math

import numpy as np
import pytest

import ragmetrics_edu as rm

A, B = ["d1", "d2", "d3", "d4"], ["d2", "d3", "d4", "d1"]


def _shares(interleave, credit):
    """Shares of A's and B's wins over both coins and a click on each shown document."""
    wins = {"A": 0, "B": 0, "tie": 0}
    for seed in range(40):
        il = interleave(A, B, seed=seed)
        for position in range(len(il.ranking)):
            click = [int(i == position) for i in range(len(il.ranking))]
            a, b = credit(il, click)
            wins["A" if a > b else "B" if b > a else "tie"] += 1
    total = sum(wins.values())
    return {k: v / total for k, v in wins.items()}


def test_balanced_interleaving_credits_b_three_clicks_in_four():
    # by hand: the list is [d1, d2, d3, d4] or [d2, d1, d3, d4]; a click on d1 has k = 1
    # (A's rank), A's top 1 holds it: A; d2 (k = 1), d3 (k = 2), d4 (k = 3) are in B's top k,
    # not A's: B.  One uniform click: B wins 3/4.
    for seed in range(40):
        assert rm.balanced_interleave(A, B, seed=seed).ranking in (
            ["d1", "d2", "d3", "d4"], ["d2", "d1", "d3", "d4"])
    balanced = _shares(rm.balanced_interleave,
                       lambda il, click: rm.balanced_credit(il.ranking, click, A, B))
    team = _shares(rm.team_draft_interleave, lambda il, click: rm.team_draft_credit(il.teams, click))
    assert balanced == {"A": 0.25, "B": 0.75, "tie": 0.0}
    assert team == {"A": 0.5, "B": 0.5, "tie": 0.0}


def test_peeking_rate_of_the_lesson_with_its_experiment_count():
    peek = rm.peeking_false_positive_rate(p=0.5, users_per_day=500, days=14, alpha=0.05,
                                          n_experiments=100_000, seed=0)
    rate = peek.false_positive_rate
    half = 1.96 * math.sqrt(rate * (1 - rate) / peek.n_experiments)
    assert round(rate, 3) == 0.224 and half < 0.003  # "22.4%, 95% interval 22.2% to 22.7%"
    assert round(rate - half, 3) == 0.222 and round(rate + half, 3) == 0.227
    assert abs(peek.fixed_horizon_rate - 0.05) < 0.003
    # 2,000 experiments (the lesson's old count) cannot tell 20.6% from 22.4%
    small = rm.peeking_false_positive_rate(p=0.5, users_per_day=500, days=14, alpha=0.05,
                                           n_experiments=2000, seed=0)
    assert round(small.false_positive_rate, 3) == 0.206
    assert abs(small.false_positive_rate - rate) < 1.96 * math.sqrt(rate * (1 - rate) / 2000)


@pytest.fixture(scope="module")
def shown():
    from ragmetrics_edu.lab import retrievers as rr

    cran = rm.load_cranfield()
    runs = {"bm25": rr.bm25_run(cran.docs, cran.queries, depth=100)}
    runs["dense"] = rr.dense_run(cran.docs, cran.queries, depth=100)
    runs["rrf"] = rr.rrf([runs["bm25"], runs["dense"]], rank_constant=60, depth=100)
    runs["bm25 b=0"] = rr.bm25_run(cran.docs, cran.queries, b=0.0, depth=100)
    out = {name: {q: sorted(run[q], key=run[q].get, reverse=True)[:10] for q in run}
           for name, run in runs.items()}
    out["bm25 reversed"] = {q: docs[::-1] for q, docs in out["bm25"].items()}
    return out, cran.qrels


def test_interleaving_needs_3_to_9_and_47_to_282_times_fewer_impressions(shown):
    lists, qrels = shown
    ratios = {(x, y): rm.impressions_needed(lists[x], lists[y], qrels, n_per_query=20,
                                            seed=0).ratio
              for x, y in itertools.combinations(lists, 2)}
    different = [r for (x, y), r in ratios.items() if y != "bm25 reversed"]
    reversal = [r for (x, y), r in ratios.items() if y == "bm25 reversed" and x != "bm25"]
    assert (round(min(different), 1), round(max(different), 1)) == (2.9, 9.4)
    assert (round(min(reversal)), round(max(reversal))) == (47, 282)
    assert ratios[("bm25", "bm25 reversed")] == float("inf")  # equal CTRs: A/B never


# --- Offline against online: which metric's differences follow the interleaving outcome ---

P = 0.8  # the lesson's RBP


def _err(g):
    """ERR@10 by its formula: sum_i (1/i) R_i prod_{j<i} (1 - R_j), R = (2^g - 1)/16."""
    out, go_on = 0.0, 1.0
    for i, x in enumerate(g[:10], start=1):
        r = (2 ** x - 1) / 16
        out += go_on * r / i
        go_on *= 1 - r
    return out


def _rbp(g, p=P):
    """Graded RBP of the top 10: (1 - p) sum_i (g_i / 4) p^(i-1)."""
    return (1 - p) * sum(x / 4 * p ** i for i, x in enumerate(g[:10]))


def _precision(g):
    return sum(x >= 1 for x in g[:10]) / 10


def _ndcg(g, judged):
    """trec_eval's ndcg_cut.10: linear gain, discount log2(i + 1), the ideal from every grade."""
    dcg = sum(x / math.log2(i + 2) for i, x in enumerate(g[:10]))
    ideal = sorted((x for x in judged.values() if x > 0), reverse=True)[:10]
    return dcg / sum(x / math.log2(i + 2) for i, x in enumerate(ideal))


@pytest.fixture(scope="module")
def pairs_by_query(shown):
    """The ten pairs, the queries in the lesson's order, and per pair and query: the grades of
    both top 10s and the lesson's interleaving outcomes (20 impressions a query, seed 0)."""
    lists, qrels = shown
    qids = sorted(qrels, key=int)
    pairs = list(itertools.combinations(lists, 2))
    grades = {name: {q: [max(qrels[q].get(d, 0), 0) for d in lists[name][q]] for q in qids}
              for name in lists}
    outcomes = {(x, y): rm.interleaving_outcomes(lists[x], lists[y], qrels, n_per_query=20, seed=0)
                for x, y in pairs}
    return lists, qrels, qids, pairs, grades, outcomes


def _differences(metric, pairs, qids, grades):
    """pairs x queries: metric(B) - metric(A)."""
    return np.array([[metric(grades[y][q], q) - metric(grades[x][q], q) for q in qids]
                     for x, y in pairs])


def _metrics(qrels):
    return {"ndcg": lambda g, q: _ndcg(g, qrels[q]), "err": lambda g, q: _err(g),
            "rbp": lambda g, q: _rbp(g), "p10": lambda g, q: _precision(g)}


def test_p10_misses_two_pairs_and_rbp_follows_the_outcome_more_closely_than_err(pairs_by_query):
    from scipy import stats

    lists, qrels, qids, pairs, grades, outcomes = pairs_by_query
    online = np.array([np.concatenate([outcomes[p][q] for q in qids]).mean() for p in pairs])
    d = {m: _differences(f, pairs, qids, grades).mean(axis=1) for m, f in _metrics(qrels).items()}
    missed = {m: [pairs[i] for i in np.flatnonzero(np.sign(d[m]) != np.sign(online))] for m in d}
    assert missed == {"ndcg": [], "err": [], "rbp": [],
                      "p10": [("bm25", "bm25 reversed"), ("bm25 b=0", "bm25 reversed")]}
    assert d["p10"][pairs.index(("bm25", "bm25 reversed"))] == 0  # the same ten documents
    r = {m: stats.pearsonr(d[m], online)[0] for m in d}
    assert {m: round(float(v), 3) for m, v in r.items()} == {
        "ndcg": 0.978, "err": 0.984, "rbp": 0.994, "p10": 0.587}
    # ERR and RBP order the ten pairs exactly as the outcome does; NDCG and P@10 do not
    rho = {m: stats.spearmanr(d[m], online)[0] for m in d}
    assert rho["err"] == pytest.approx(1) and rho["rbp"] == pytest.approx(1)
    assert rho["ndcg"] < 1 and rho["p10"] < 1
    # RBP's p matters: "0.7 gives 0.992, 0.9 gives 0.943"
    for p, want in ((0.7, 0.992), (0.9, 0.943)):
        dp = _differences(lambda g, q: _rbp(g, p), pairs, qids, grades).mean(axis=1)
        assert round(float(stats.pearsonr(dp, online)[0]), 3) == want


def test_the_bootstrap_over_queries_cannot_separate_rbp_from_err(pairs_by_query):
    lists, qrels, qids, pairs, grades, outcomes = pairs_by_query
    o_q = np.array([[outcomes[p][q].mean() for q in qids] for p in pairs])
    resamples = np.random.default_rng(0).integers(0, len(qids), size=(2000, len(qids)))

    def r_of(d_q):
        out = []
        for idx in resamples:  # one resample at a time: slow, but not the lesson's vectorised code
            out.append(np.corrcoef(d_q[:, idx].mean(axis=1), o_q[:, idx].mean(axis=1))[0, 1])
        return np.array(out)

    boot = {m: r_of(_differences(f, pairs, qids, grades)) for m, f in _metrics(qrels).items()}
    ci = {m: np.percentile(v, [2.5, 97.5]) for m, v in boot.items()}
    lead = boot["rbp"] - boot["err"]
    low, high = np.percentile(lead, [2.5, 97.5])
    assert (round(float(low), 3), round(float(high), 3)) == (-0.013, 0.034)  # holds 0
    assert round(float(np.mean(lead > 0)), 2) == 0.78
    # NDCG, ERR and RBP overlap; P@10's interval lies below all three
    for a, b in itertools.combinations(("ndcg", "err", "rbp"), 2):
        assert ci[a][0] < ci[b][1] and ci[b][0] < ci[a][1]
    assert all(ci["p10"][1] < ci[m][0] for m in ("ndcg", "err", "rbp"))


def _team_drafts(a, b, length=10):
    """Every team-draft list of a and b (cut at ``length``) with its probability, enumerated."""
    out = []

    def grow(shown, teams, prob):
        left = {"A": [d for d in a if d not in shown], "B": [d for d in b if d not in shown]}
        if not left["A"] or not left["B"] or len(shown) == length:
            out.append((shown, teams, prob))
            return
        if teams.count("A") != teams.count("B"):
            t = "A" if teams.count("A") < teams.count("B") else "B"
            grow(shown + [left[t][0]], teams + [t], prob)
        else:
            for t in "AB":
                grow(shown + [left[t][0]], teams + [t], prob / 2)

    grow([], [], 1.0)
    return out


def test_without_simulation_noise_rbp_still_leads_err(pairs_by_query):
    """The exact expected outcome of an impression for the cascade user: every coin sequence,
    and the click at rank i with probability alpha_i prod_{j<i} (1 - alpha_j), credited +1 to B's
    team and -1 to A's.  The lesson's 20 simulated impressions a query sit on it, within their
    noise, and the exact outcomes give RBP 0.995 against ERR 0.985."""
    lists, qrels, qids, pairs, grades, outcomes = pairs_by_query

    def expected(q, x, y):
        total = 0.0
        for docs, teams, prob in _team_drafts(lists[x][q], lists[y][q]):
            go_on = 1.0
            for d, t in zip(docs, teams):
                alpha = (2 ** max(qrels[q].get(d, 0), 0) - 1) / 16
                total += prob * go_on * alpha * (1 if t == "B" else -1)
                go_on *= 1 - alpha
        return total

    exact = np.array([np.mean([expected(q, x, y) for q in qids]) for x, y in pairs])
    for (x, y), e in zip(pairs, exact):
        o = np.concatenate([outcomes[(x, y)][q] for q in qids])
        assert abs(o.mean() - e) < 4 * o.std() / math.sqrt(len(o)), (x, y)
    d = {m: _differences(f, pairs, qids, grades).mean(axis=1) for m, f in _metrics(qrels).items()}
    r = {m: round(float(np.corrcoef(d[m], exact)[0, 1]), 3) for m in ("err", "rbp")}
    assert r == {"err": 0.985, "rbp": 0.995}


def test_with_dcm_users_rbp_leads_err_too(shown):
    lists, qrels = shown
    qids = sorted(qrels, key=int)
    pairs = list(itertools.combinations(lists, 2))
    dcm = rm.DependentClickModel()
    # impressions_needed(..., model=dcm, n_per_query=20, seed=0).outcome_mean, without its CTRs
    online = np.array([np.concatenate(list(rm.interleaving_outcomes(
        lists[x], lists[y], qrels, model=dcm, n_per_query=20, seed=0).values())).mean()
        for x, y in pairs])
    grades = {name: {q: [max(qrels[q].get(d, 0), 0) for d in lists[name][q]] for q in qids}
              for name in lists}
    r = {m: round(float(np.corrcoef(_differences(f, pairs, qids, grades).mean(axis=1),
                                     online)[0, 1]), 3)
         for m, f in _metrics(qrels).items() if m in ("err", "rbp")}
    assert r == {"err": 0.980, "rbp": 0.993}


def test_the_widget_moving_the_grade_3_document_keeps_the_exact_ctr_only():
    from ragmetrics_edu.course.widgets.online import click_user_state

    # grades 0, 2, 2, 3, 0: alpha 0, 3/16, 3/16, 7/16, 0; CTR = 1 - (13/16)^2 (9/16) = 2575/4096,
    # whatever the order
    before = click_user_state([0, 2, 2, 3, 0], "cascade", parameter=None, n_sessions=200, seed=0)
    after = click_user_state([3, 2, 2, 0, 0], "cascade", parameter=None, n_sessions=200, seed=0)
    assert before["expected"].ctr == pytest.approx(2575 / 4096)
    assert after["expected"].ctr == pytest.approx(2575 / 4096)
    assert (before["ctr"], after["ctr"]) == (0.625, 0.645)  # 125 and 129 of 200 users
