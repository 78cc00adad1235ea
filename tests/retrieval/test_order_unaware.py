"""Precision@k, Recall@k, F1@k and HitRate@k on hand-worked rankings.

Every expected value is hand arithmetic, written in the comment or the
expression beside it.
"""

import math

import numpy as np
import pytest

from ragmetrics_edu.retrieval.order_unaware import (
    f1_at_k,
    hit_rate_at_k,
    precision_at_k,
    recall_at_k,
)

SLIDES = [1, 0, 1, 0, 1]  # relevant at ranks 1, 3, 5
CATS = [0, 1, 0, 1, 1, 0, 1, 0]  # relevant at ranks 2, 4, 5, 7


# ---------------------------------------------------------------- precision
@pytest.mark.parametrize(
    "k, expected",
    [
        (1, 1 / 1),  # rank 1 relevant
        (2, 1 / 2),  # ranks 1, 2: one relevant
        (3, 2 / 3),  # ranks 1, 3
        (4, 2 / 4),
        (5, 3 / 5),  # ranks 1, 3, 5
        (6, 3 / 6),  # rank 6 does not exist: counts as not relevant
        (10, 3 / 10),
    ],
)
def test_precision_divides_by_k(k, expected):
    assert precision_at_k(SLIDES, k) == pytest.approx(expected, abs=1e-15)


@pytest.mark.parametrize("k, expected", [(5, 3 / 5), (6, 3 / 5), (10, 3 / 5), (2, 1 / 2)])
def test_precision_divides_by_retrieved(k, expected):
    # min(k, 5) documents shown
    assert precision_at_k(SLIDES, k, denominator="retrieved") == pytest.approx(expected, abs=1e-15)


def test_precision_graded_grades_count_when_positive():
    # [5, 3, 5, 0, 2]: four of five grades are > 0
    assert precision_at_k([5, 3, 5, 0, 2], 5) == pytest.approx(4 / 5)
    assert precision_at_k([0.5, 0, 0], 3) == pytest.approx(1 / 3)


def test_precision_empty_ranking_is_zero_in_both_conventions():
    assert precision_at_k([], 3) == 0.0
    assert precision_at_k([], 3, denominator="retrieved") == 0.0


def test_returns_python_floats():
    for value in (
        precision_at_k(np.array([1, 0]), 2),
        recall_at_k(np.array([1, 0]), 2, n_relevant=3),
        f1_at_k([1, 0], 2, n_relevant=3),
        hit_rate_at_k([1, 0], 2),
    ):
        assert type(value) is float


# ------------------------------------------------------------------- recall
def test_recall_cat_in_a_box_table():
    # relevant at 2, 4, 5, 7 of 4 relevant
    expected = [0 / 4, 1 / 4, 1 / 4, 2 / 4, 3 / 4, 3 / 4, 4 / 4, 4 / 4]
    got = [recall_at_k(CATS, k, n_relevant=4) for k in range(1, 9)]
    assert got == pytest.approx(expected, abs=1e-15)


def test_recall_slides():
    assert recall_at_k(SLIDES, 3, n_relevant=10) == pytest.approx(2 / 10)
    assert recall_at_k(SLIDES, 100, n_relevant=10) == pytest.approx(3 / 10)  # all 3 retrieved


def test_recall_no_relevant_document_is_zero():
    # trec_eval's convention: 0/0 -> 0
    assert recall_at_k([0, 0, 0], 2, n_relevant=0) == 0.0
    assert recall_at_k([], 2, n_relevant=0) == 0.0


def test_recall_counts_relevant_beyond_k_for_validation():
    # 3 relevant documents retrieved (ranks 1, 3, 5), so n_relevant >= 3 even at k = 1
    with pytest.raises(ValueError, match=r"n_relevant must be at least .*\(3\), got 2"):
        recall_at_k(SLIDES, 1, n_relevant=2)
    assert recall_at_k(SLIDES, 1, n_relevant=3) == pytest.approx(1 / 3)


# ----------------------------------------------------------------------- F1
def test_f1_slides_erratum():
    # P@3 = 2/3, R@3 = 2/10
    p, r = 2 / 3, 2 / 10
    assert f1_at_k(SLIDES, 3, n_relevant=10) == pytest.approx(2 * p * r / (p + r), abs=1e-15)
    # closed form 2 * hits / (k + n_relevant) = 4 / 13
    assert f1_at_k(SLIDES, 3, n_relevant=10) == pytest.approx(4 / 13, abs=1e-15)


def test_f1_zero_when_nothing_relevant_found():
    assert f1_at_k([0, 0, 1], 2, n_relevant=1) == 0.0
    assert f1_at_k([], 5, n_relevant=0) == 0.0


def test_f1_retrieved_denominator():
    # P = 3/5 (5 shown), R = 3/3
    p, r = 3 / 5, 1.0
    assert f1_at_k(SLIDES, 10, n_relevant=3, denominator="retrieved") == pytest.approx(2 * p * r / (p + r))
    # dividing by k: P = 3/10
    p = 3 / 10
    assert f1_at_k(SLIDES, 10, n_relevant=3) == pytest.approx(2 * p * r / (p + r))


def test_f1_perfect():
    assert f1_at_k([1, 1], 2, n_relevant=2) == pytest.approx(1.0)


# ----------------------------------------------------------------- hit rate
@pytest.mark.parametrize(
    "rels, k, expected",
    [(CATS, 1, 0.0), (CATS, 2, 1.0), ([0, 0, 0], 3, 0.0), ([], 1, 0.0), ([0, 0, 3], 3, 1.0)],
)
def test_hit_rate(rels, k, expected):
    assert hit_rate_at_k(rels, k) == expected


# ------------------------------------------------------------- bad input
@pytest.mark.parametrize("bad_k", [0, -1])
def test_bad_k_value(bad_k):
    for call in (
        lambda: precision_at_k(SLIDES, bad_k),
        lambda: recall_at_k(SLIDES, bad_k, n_relevant=10),
        lambda: f1_at_k(SLIDES, bad_k, n_relevant=10),
        lambda: hit_rate_at_k(SLIDES, bad_k),
    ):
        with pytest.raises(ValueError, match=rf"k must be a positive integer, got {bad_k}"):
            call()


@pytest.mark.parametrize("bad_k", [2.5, "3", None, True])
def test_bad_k_type(bad_k):
    with pytest.raises(TypeError, match="k must be a positive integer"):
        precision_at_k(SLIDES, bad_k)
    with pytest.raises(TypeError, match="k must be a positive integer"):
        hit_rate_at_k(SLIDES, bad_k)


@pytest.mark.parametrize(
    "rels, exc, message",
    [
        ([1, -1], ValueError, r"rels must be non-negative grades, got -1 at rank 2"),
        ([1, math.nan], ValueError, r"rels must be finite, got nan at rank 2"),
        ([1, math.inf], ValueError, r"rels must be finite"),
        (["1", 0], TypeError, r"rels must hold numbers, got '1' at rank 1"),
        ([True, 0], TypeError, r"rels must hold numbers"),
        ("10", TypeError, r"rels must be a sequence"),
        (5, TypeError, r"rels must be a sequence"),
    ],
)
def test_bad_rels(rels, exc, message):
    with pytest.raises(exc, match=message):
        precision_at_k(rels, 2)
    with pytest.raises(exc, match=message):
        recall_at_k(rels, 2, n_relevant=10)


def test_bad_n_relevant():
    with pytest.raises(ValueError, match=r"n_relevant must be a non-negative integer, got -1"):
        recall_at_k([0, 0], 1, n_relevant=-1)
    with pytest.raises(TypeError, match=r"n_relevant must be a non-negative integer, got 2.0"):
        recall_at_k([0, 0], 1, n_relevant=2.0)
    with pytest.raises(ValueError, match=r"n_relevant"):
        f1_at_k([1, 1], 1, n_relevant=1)


def test_bad_denominator():
    with pytest.raises(ValueError, match=r"denominator must be one of 'k', 'retrieved', got 'shown'"):
        precision_at_k(SLIDES, 2, denominator="shown")
