"""CG, DCG, IDCG and NDCG on hand-worked rankings.

Discounts are written out as log2(i + 1), computed here as ln(i + 1)/ln 2
so that the expected values do not go through the library.
"""

import math

import pytest

from ragmetrics_edu.retrieval.graded import cumulative_gain, dcg_at_k, idcg_at_k, ndcg_at_k


def lg(x):
    """log2 by the change of base, independent of the library's np.log2."""
    return math.log(x) / math.log(2)


SLIDES = [5, 3, 5, 0, 2]
BLOG = [3, 2, 3, 0, 1]


def test_cumulative_gain():
    assert cumulative_gain(SLIDES, 3) == 5 + 3 + 5
    assert cumulative_gain(SLIDES, None) == 5 + 3 + 5 + 0 + 2
    assert cumulative_gain(SLIDES, 10) == 15
    assert cumulative_gain([], 3) == 0.0
    assert type(cumulative_gain([1], 1)) is float


@pytest.mark.parametrize(
    "k, expected",
    [
        (1, 5 / 1),
        (2, 5 + 3 / lg(3)),
        (3, 5 + 3 / lg(3) + 5 / 2),
        (4, 5 + 3 / lg(3) + 5 / 2 + 0 / lg(5)),
        (5, 5 + 3 / lg(3) + 5 / 2 + 0 / lg(5) + 2 / lg(6)),
        (7, 5 + 3 / lg(3) + 5 / 2 + 0 / lg(5) + 2 / lg(6)),  # nothing beyond rank 5
        (None, 5 + 3 / lg(3) + 5 / 2 + 0 / lg(5) + 2 / lg(6)),
    ],
)
def test_dcg_slides(k, expected):
    assert dcg_at_k(SLIDES, k) == pytest.approx(expected, abs=1e-12)


def test_dcg_exponential():
    # (2^5 - 1)/1 + (2^3 - 1)/log2(3) + (2^5 - 1)/2
    assert dcg_at_k(SLIDES, 3, gain="exponential") == pytest.approx(31 + 7 / lg(3) + 31 / 2, abs=1e-12)
    # grade 1 has the same gain both ways: 2^1 - 1 = 1
    assert dcg_at_k([1, 0, 1], 3, gain="exponential") == pytest.approx(dcg_at_k([1, 0, 1], 3))


def test_idcg_default_sorts_given_grades():
    # sorted: [5, 5, 3, 2, 0]
    assert idcg_at_k(SLIDES, 3) == pytest.approx(5 + 5 / lg(3) + 3 / 2, abs=1e-12)
    assert idcg_at_k(SLIDES, 5) == pytest.approx(5 + 5 / lg(3) + 3 / 2 + 2 / lg(5), abs=1e-12)
    # blog: sorted [3, 3, 2, 1, 0]
    assert idcg_at_k(BLOG, 5) == pytest.approx(3 + 3 / lg(3) + 2 / 2 + 1 / lg(5), abs=1e-12)


def test_idcg_with_judged_ideal():
    # judged grades of the query include an unretrieved 4: ideal [5, 5, 4, 3, 2]
    ideal = [2, 5, 0, 3, 5, 4, 0]
    assert idcg_at_k(SLIDES, 3, ideal=ideal) == pytest.approx(5 + 5 / lg(3) + 4 / 2, abs=1e-12)
    assert idcg_at_k(SLIDES, None, ideal=ideal) == pytest.approx(
        5 + 5 / lg(3) + 4 / 2 + 3 / lg(5) + 2 / lg(6), abs=1e-12
    )


def test_ndcg_slides():
    dcg3 = 5 + 3 / lg(3) + 5 / 2
    idcg3 = 5 + 5 / lg(3) + 3 / 2
    dcg5 = dcg3 + 2 / lg(6)
    idcg5 = idcg3 + 2 / lg(5)
    assert ndcg_at_k(SLIDES, 3) == pytest.approx(dcg3 / idcg3, abs=1e-12)
    assert ndcg_at_k(SLIDES, 5) == pytest.approx(dcg5 / idcg5, abs=1e-12)
    assert ndcg_at_k(SLIDES, None) == pytest.approx(dcg5 / idcg5, abs=1e-12)


def test_ndcg_blog():
    dcg = 3 + 2 / lg(3) + 3 / 2 + 0 + 1 / lg(6)
    idcg = 3 + 3 / lg(3) + 2 / 2 + 1 / lg(5) + 0
    assert ndcg_at_k(BLOG, 5) == pytest.approx(dcg / idcg, abs=1e-12)


def test_ndcg_judged_ideal_penalises_missing_documents():
    # retrieved [0, 4] of a query whose judged grades are 4, 4, 1
    assert ndcg_at_k([0, 4], 2, ideal=[4, 4, 1]) == pytest.approx((4 / lg(3)) / (4 + 4 / lg(3)), abs=1e-12)
    # with the default the ideal is [4, 0]: DCG (4/log2 3) over IDCG 4
    assert ndcg_at_k([0, 4], 2) == pytest.approx((4 / lg(3)) / 4, abs=1e-12)


def test_ndcg_exponential():
    # [1, 2]: DCG = 1 + 3/log2(3); ideal [2, 1]: 3 + 1/log2(3)
    assert ndcg_at_k([1, 2], 2, gain="exponential") == pytest.approx(
        (1 + 3 / lg(3)) / (3 + 1 / lg(3)), abs=1e-12
    )


def test_ndcg_zero_when_idcg_zero():
    assert ndcg_at_k([0, 0, 0], 3) == 0.0
    assert ndcg_at_k([], 3) == 0.0
    assert ndcg_at_k([], None, ideal=[]) == 0.0
    assert ndcg_at_k([0, 0], 2, ideal=[0, 0, 0]) == 0.0


def test_ndcg_empty_ranking_with_judged_ideal_is_zero():
    assert ndcg_at_k([], 3, ideal=[3, 1]) == 0.0
    assert idcg_at_k([], 3, ideal=[3, 1]) == pytest.approx(3 + 1 / lg(3))


def test_returns_python_float():
    for v in (dcg_at_k([1], 1), idcg_at_k([1], 1), ndcg_at_k([1], 1), ndcg_at_k([0], 1)):
        assert type(v) is float


def test_bad_ideal():
    with pytest.raises(ValueError, match=r"ideal must hold the grades of all judged documents"):
        ndcg_at_k([3, 0], 2, ideal=[2, 2])  # a 3 was retrieved, ideal has none
    with pytest.raises(ValueError, match=r"ideal must hold"):
        ndcg_at_k([1, 1, 1], 2, ideal=[1, 1])  # three relevant retrieved, two judged
    with pytest.raises(TypeError, match=r"ideal must hold numbers"):
        idcg_at_k([1], 1, ideal=["a"])
    with pytest.raises(ValueError, match=r"ideal must be finite, got nan"):
        idcg_at_k([1], 1, ideal=[1, float("nan")])
    # the retrieved grades stay non-negative: -1 is a judgement, not a gain
    with pytest.raises(ValueError, match=r"rels must be non-negative grades, got -1"):
        ndcg_at_k([-1], 1, ideal=[-1])


def test_negative_judged_grades_in_ideal_count_as_zero():
    # ideal= takes all judged grades of the query, as trec_eval does; TREC
    # qrels use -1 or -2 for junk: not relevant and no gain, like 0
    assert ndcg_at_k([1], 1, ideal=[1, -1]) == 1.0
    # ideal [2, 1, -1] -> [2, 1, 0]: 2/1 + 1/log2(3)
    assert idcg_at_k([2, 0], 2, ideal=[2, 1, -1]) == pytest.approx(2 + 1 / lg(3), abs=1e-12)
    assert idcg_at_k([2, 0], 3, ideal=[-2, 2, 1, -1]) == pytest.approx(2 + 1 / lg(3), abs=1e-12)
    # exponential: the gain of -1 is 0, not 2**-1 - 1 = -0.5
    assert idcg_at_k([], 2, gain="exponential", ideal=[-1, 1]) == 1.0
    assert ndcg_at_k([0, 1], 2, gain="exponential", ideal=[-1, 1]) == pytest.approx(1 / lg(3))
    # only junk judged: IDCG 0, NDCG 0
    assert ndcg_at_k([0, 0], 2, ideal=[-1, -2]) == 0.0
    # a retrieved grade must still fit: [1] does not fit in the judged [-1]
    with pytest.raises(ValueError, match=r"do not fit in ideal \[-1.0\]"):
        ndcg_at_k([1], 1, ideal=[-1])


def test_bad_arguments():
    with pytest.raises(ValueError, match=r"gain must be one of 'linear', 'exponential', got 'exp'"):
        dcg_at_k(SLIDES, 3, gain="exp")
    with pytest.raises(ValueError, match="k must be a positive integer, got 0"):
        ndcg_at_k(SLIDES, 0)
    with pytest.raises(TypeError, match="k must be a positive integer, got 1.5"):
        cumulative_gain(SLIDES, 1.5)
    with pytest.raises(ValueError, match="rels must be non-negative grades, got -2 at rank 3"):
        dcg_at_k([1, 0, -2], 3)
    with pytest.raises(ValueError, match="rels must be finite, got nan at rank 1"):
        ndcg_at_k([float("nan")], 1)


def test_exponential_gain_overflow_names_the_grade():
    # 2**1100 is beyond the largest float (about 2**1024): it was inf, and
    # NDCG became inf/inf = nan without a word
    with pytest.raises(ValueError, match="grade 1100"):
        ndcg_at_k([1100, 0], 2, gain="exponential")
    with pytest.raises(ValueError, match="grade 1024"):
        dcg_at_k([3, 1024], 2, gain="exponential")
    # three gains of 2**1023 - 1 with discounts 1, 1.585, 2 sum to about
    # 2**1023 * 2.13 > 2**1024: the sum itself overflows
    with pytest.raises(ValueError, match="DCG overflows a float"):
        dcg_at_k([1023, 1023, 1023], 3, gain="exponential")


def test_large_grades_keep_working():
    # linear: 1100/1 + 0/1.585 = 1100; already in the ideal order, NDCG = 1
    assert dcg_at_k([1100, 0], 2) == 1100.0
    assert ndcg_at_k([1100, 0], 2) == 1.0
    # exponential just below the limit: 2**1023 - 1 is finite
    assert dcg_at_k([1023], 1, gain="exponential") == 2.0 ** 1023
    assert ndcg_at_k([0, 1023], 2, gain="exponential") == pytest.approx(1 / math.log2(3))
