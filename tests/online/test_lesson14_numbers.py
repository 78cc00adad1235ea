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
    runs = {"bm25": rr.bm25_run(cran.docs, cran.queries, top_k=100)}
    runs["dense"] = rr.dense_run(cran.docs, cran.queries, top_k=100)
    runs["rrf"] = rr.rrf([runs["bm25"], runs["dense"]], k=60, top_k=100)
    runs["bm25 b=0"] = rr.bm25_run(cran.docs, cran.queries, b=0.0, top_k=100)
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
