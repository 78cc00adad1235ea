"""Reciprocal rank, MRR, AP and MAP on hand-worked rankings.

Every expected value is hand arithmetic, written beside it.
"""

import pytest

from ragmetrics_edu.retrieval.order_aware import (
    average_precision,
    mean_average_precision,
    mean_reciprocal_rank,
    reciprocal_rank,
)

SLIDES = [1, 0, 1, 0, 1]  # relevant at ranks 1, 3, 5; 10 relevant in all
CATS = [
    [0, 1, 0, 1, 1, 0, 1, 0],  # relevant at 2, 4, 5, 7
    [1, 0, 0, 1, 1, 0, 1, 0],  # relevant at 1, 4, 5, 7
    [0, 0, 0, 0, 1, 0, 0, 1],  # relevant at 5, 8
]


# --------------------------------------------------------- reciprocal rank
@pytest.mark.parametrize(
    "rels, k, expected",
    [
        ([1, 0, 1], None, 1 / 1),
        ([0, 1, 0], None, 1 / 2),
        ([0, 0, 0, 0, 2], None, 1 / 5),  # a grade > 0 is relevant
        ([0, 0, 0, 0, 1], 4, 0.0),  # first relevant beyond k
        ([0, 0, 0, 0, 1], 5, 1 / 5),
        ([0, 0, 0], None, 0.0),
        ([], None, 0.0),
        ([], 3, 0.0),
    ],
)
def test_reciprocal_rank(rels, k, expected):
    got = reciprocal_rank(rels, k)
    assert type(got) is float
    assert got == pytest.approx(expected, abs=1e-15)


def test_mrr_slides_and_article():
    assert mean_reciprocal_rank([SLIDES, [0, 1, 0, 0, 0]]) == pytest.approx((1 + 1 / 2) / 2)
    assert mean_reciprocal_rank(CATS) == pytest.approx((1 / 2 + 1 + 1 / 5) / 3)
    # MRR@4: query 3's first relevant (rank 5) is cut off
    assert mean_reciprocal_rank(CATS, k=4) == pytest.approx((1 / 2 + 1 + 0) / 3)


def test_mrr_with_empty_rankings():
    assert mean_reciprocal_rank([[], [1]]) == pytest.approx((0 + 1) / 2)


def test_mrr_needs_queries():
    with pytest.raises(ValueError, match="list_of_rels must hold at least one query"):
        mean_reciprocal_rank([])
    with pytest.raises(TypeError, match="list_of_rels must be a list of rankings"):
        mean_reciprocal_rank([1, 0, 1])  # one ranking, not a list of them


# ------------------------------------------------------ average precision
def test_ap_slides():
    # (P@1 + P@3 + P@5) / 10 = (1 + 2/3 + 3/5) / 10
    assert average_precision(SLIDES, 10) == pytest.approx((1 + 2 / 3 + 3 / 5) / 10, abs=1e-15)
    assert average_precision([1, 1, 1, 0, 0], 10) == pytest.approx(3 / 10, abs=1e-15)


@pytest.mark.parametrize(
    "q, expected",
    [
        (0, (1 / 2 + 2 / 4 + 3 / 5 + 4 / 7) / 4),
        (1, (1 / 1 + 2 / 4 + 3 / 5 + 4 / 7) / 4),
        (2, (1 / 5 + 2 / 8) / 2),
    ],
)
def test_ap_at_8_article(q, expected):
    n = [4, 4, 2][q]
    assert average_precision(CATS[q], n, k=8) == pytest.approx(expected, abs=1e-15)


def test_ap_cutoff():
    # AP@3 of the slides: ranks 1 and 3 only, / 10
    assert average_precision(SLIDES, 10, k=3) == pytest.approx((1 + 2 / 3) / 10)
    # k beyond the ranking changes nothing
    assert average_precision(SLIDES, 10, k=50) == pytest.approx((1 + 2 / 3 + 3 / 5) / 10)


def test_ap_denominators():
    total = 1 + 2 / 3 + 3 / 5
    assert average_precision(SLIDES, 10, denominator="retrieved_relevant") == pytest.approx(total / 3)
    # k = None: min(len(rels)=5, 10) = 5
    assert average_precision(SLIDES, 10, denominator="min_k_relevant") == pytest.approx(total / 5)
    # k = 3: sum over ranks 1, 3 / min(3, 10)
    assert average_precision(SLIDES, 10, k=3, denominator="min_k_relevant") == pytest.approx((1 + 2 / 3) / 3)
    assert average_precision(SLIDES, 10, k=3, denominator="retrieved_relevant") == pytest.approx((1 + 2 / 3) / 2)
    # n_relevant = 3 < len(rels) = 5: divide by min(5, 3) = 3
    assert average_precision(SLIDES, 3, denominator="min_k_relevant") == pytest.approx(total / 3)


def test_ap_agree_when_all_relevant_found_early():
    rels = [1, 0, 1, 0, 0]
    values = {
        d: average_precision(rels, 2, denominator=d)
        for d in ("all_relevant", "retrieved_relevant", "min_k_relevant")
    }
    for v in values.values():
        assert v == pytest.approx((1 + 2 / 3) / 2)


def test_ap_no_relevant_is_zero():
    assert average_precision([0, 0, 0], 0) == 0.0
    assert average_precision([], 0) == 0.0
    # relevant documents exist but none was retrieved in the top k
    assert average_precision([0, 0, 1], 3, k=2) == 0.0
    assert average_precision([0, 0, 1], 3, k=2, denominator="retrieved_relevant") == 0.0


def test_ap_bad_input():
    with pytest.raises(ValueError, match=r"n_relevant must be at least the number of relevant documents retrieved \(3\), got 2"):
        average_precision(SLIDES, 2)
    with pytest.raises(ValueError, match="n_relevant must be a non-negative integer, got -3"):
        average_precision([0], -3)
    with pytest.raises(ValueError, match=r"k must be a positive integer, got 0"):
        average_precision(SLIDES, 10, k=0)
    with pytest.raises(ValueError, match="denominator must be one of 'all_relevant', 'retrieved_relevant', 'min_k_relevant', got 'k'"):
        average_precision(SLIDES, 10, denominator="k")


# --------------------------------------------------------------------- MAP
def test_map_article():
    aps = [(1 / 2 + 2 / 4 + 3 / 5 + 4 / 7) / 4, (1 + 2 / 4 + 3 / 5 + 4 / 7) / 4, (1 / 5 + 2 / 8) / 2]
    got = mean_average_precision(CATS, [4, 4, 2], k=8)
    assert type(got) is float
    assert got == pytest.approx(sum(aps) / 3, abs=1e-15)


def test_map_denominator_passes_through():
    # query 1: (1 + 2/3) over 2 retrieved relevant; query 2: nothing
    got = mean_average_precision([[1, 0, 1], [0, 0]], [5, 0], denominator="retrieved_relevant")
    assert got == pytest.approx(((1 + 2 / 3) / 2 + 0) / 2)


def test_map_bad_input():
    with pytest.raises(ValueError, match=r"n_relevants must have one count per query \(3\), got 2"):
        mean_average_precision(CATS, [4, 4])
    with pytest.raises(TypeError, match="n_relevants must be a sequence"):
        mean_average_precision(CATS, 4)
    with pytest.raises(ValueError, match="at least one query"):
        mean_average_precision([], [])
