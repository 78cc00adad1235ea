"""The retrieval worked examples of the seeds, as data.

Every Precision@k, Recall@k, F1@k, MRR, AP/MAP, discount, CG, DCG, IDCG and
NDCG number the seeds work out, with its input written out exactly:

* the slides (``"slides"``; the second text extraction ``"slides_ocr2"``
  has the same numbers), whose binary example is the ranking
  ``[1, 0, 1, 0, 1]`` with 10 relevant documents in the collection (its
  Precision@k list 1/1, 1/2, 2/3, 2/4, 3/5 fixes it), and whose graded
  example is ``[5, 3, 5, 0, 2]``;
* the blog post on DCG/NDCG (``"blog_ndcg"``), ``relevance = [3, 2, 3, 0, 1]``;
* the article's "cat in a box" queries (``"article_ir"``): eight results,
  relevant at ranks 2, 4, 5, 7 (query 1), 1, 4, 5, 7 (query 2) and 5, 8
  (query 3).

``stated`` is the number as the seed prints it: a float, a string when the
seed writes a fraction (``"3/4"``) or only a formula, or None when the seed
shows the code but not its output.  When a seed writes a formula *and* its
total (``"DCG@3 = 1/1 + 1/1.58 + 1/2 = 9.40"``), ``stated`` is the total; a
slip in the formula beside a right total is a ``label_erratum``.  One
example, ``ap_at_8_article_q2_terms``, records the terms a seed writes, as a
formula, apart from their total (recorded by ``ap_at_8_article_q2``).
``correct`` is written as the exact arithmetic, never as our library's
output.  ``tolerance`` is
half a unit of the last digit the seed prints (0.005 for "0.29"), 0 for an
exact fraction.  Where the seed cuts digits instead of rounding them (1.584
for log2(3) = 1.58496), or adds terms it cut, the tolerance is what the
cutting can lose (a whole unit of the last digit, per cut term), and
:data:`ROUNDING_NOTES` says so: such a number is not an erratum, its digits
are right as far as they go.  A value exactly halfway between two printed
values (0.225 printed with two decimals) is within ``tolerance`` either way
it is rounded, and its rounding note says how the seed rounded it.

A number whose inputs the seed does not give (grades shown only in an
image) has ``inputs``, ``compute`` and ``correct`` set to None: it is
recorded so that it is written once, and :data:`UNREBUILDABLE_NOTES` says
what can be said about it.

>>> from ragmetrics_edu.course.examples.retrieval import EXAMPLES
>>> ex = next(e for e in EXAMPLES if e.key == "f1_at_3")
>>> ex.stated, round(ex.correct, 4)
(0.29, 0.3077)
"""

from copy import deepcopy
from math import log2

from ...retrieval.graded import cumulative_gain, dcg_at_k, idcg_at_k, ndcg_at_k
from ...retrieval.order_aware import (
    average_precision,
    mean_average_precision,
    mean_reciprocal_rank,
    reciprocal_rank,
)
from ...retrieval.order_unaware import f1_at_k, precision_at_k, recall_at_k
from . import SeedExample

__all__ = ["EXAMPLES", "ROUNDING_NOTES", "UNREBUILDABLE_NOTES", "log2_discount"]


def log2_discount(rank):
    """The DCG discount log2(rank + 1) of a rank (1 at rank 1, 2 at rank 3)."""
    return log2(rank + 1)


# The seeds' rankings -------------------------------------------------------

SLIDES_RELS = [1, 0, 1, 0, 1]
"""The slides' binary example: 5 retrieved, relevant at ranks 1, 3, 5."""
SLIDES_N_RELEVANT = 10
"""The slides' "total of 10 relevant documents"."""
SLIDES_RELS_TOP = [1, 1, 1, 0, 0]
"""The slides' second AP example, "where the results are higher in order"."""
SLIDES_MRR = [[1, 0, 1, 0, 1], [0, 1, 0, 0, 0]]
"""The slides' MRR queries: first relevant document at rank 1, then rank 2.

The second query's picture is not in the text; only its first relevant rank
(2) is, and only that matters to the reciprocal rank, so its other ranks are
written as 0.
"""
SLIDES_GRADES = [5, 3, 5, 0, 2]
"""The slides' graded example (grades 0 to 5)."""
BLOG_GRADES = [3, 2, 3, 0, 1]
"""The blog post's ``relevance = [3, 2, 3, 0, 1]``."""
CATS = [
    [0, 1, 0, 1, 1, 0, 1, 0],  # query 1: relevant at 2, 4, 5, 7
    [1, 0, 0, 1, 1, 0, 1, 0],  # query 2: relevant at 1, 4, 5, 7
    [0, 0, 0, 0, 1, 0, 0, 1],  # query 3: relevant at 5, 8
]
"""The article's three "cat in a box" queries over the same 8 ranked images."""
CATS_N_RELEVANT = [4, 4, 2]
"""The article's ``actual`` lists have 4, 4 and 2 relevant images."""
CATS_GRADES_CODE = [0, 7, 2, 4, 6, 1, 4, 3]
"""The ``relevance`` list of the article's NDCG code (grades 0 to 7)."""

_L3 = log2(3)  # log2(2 + 1), the discount of rank 2
_L5 = log2(5)  # log2(4 + 1), rank 4
_L6 = log2(6)  # log2(5 + 1), rank 5

_LABEL_MAP = ("It is labelled MAP but is the Average Precision of one query; MAP "
              "is the mean of AP over queries.")
_LABEL_IDGC = "The table writes 'IDGC' for IDCG, the ideal DCG."
_LABEL_NDCG = ("Only the name slips, not this number: the slides' list of rank-based "
               "metrics calls NDCG 'Normal Discounted Cumulative Gain'; it is "
               "Normalized DCG.")


def _ex(key, seed, where, metric, compute, inputs, stated, correct, tolerance, erratum=None,
        label_erratum=None):
    # each example gets its own copy of its lists, so editing one cannot change another
    return SeedExample(
        key=key, seed=seed, where=where, metric=metric, inputs=deepcopy(inputs),
        stated=stated, correct=correct, compute=compute, erratum=erratum,
        tolerance=tolerance, label_erratum=label_erratum,
    )


EXAMPLES = [
    # ------------------------------------------------------------ slides
    _ex("precision_at_2", "slides", "Non-Rank Based, Precision@k: 'Precision@2 = 1/(1+1)'",
        "Precision@2", precision_at_k, {"rels": SLIDES_RELS, "k": 2},
        0.5, 1 / 2, 0.05),
    _ex("recall_at_3", "slides", "Non-Rank Based, Recall@k: 'Recall@3 = 2/10'",
        "Recall@3", recall_at_k,
        {"rels": SLIDES_RELS, "k": 3, "n_relevant": SLIDES_N_RELEVANT},
        0.2, 2 / 10, 0.05),
    _ex("precision_at_3", "slides", "Non-Rank Based, F1@k: 'Precision@3 = 1/(1+1) = 0.5'",
        "Precision@3", precision_at_k, {"rels": SLIDES_RELS, "k": 3},
        0.5, 2 / 3, 0.05,
        erratum="The top 3 of [1, 0, 1, ...] hold 2 relevant documents, so "
                "Precision@3 = 2/3 (as the MAP slide lists), not 1/(1+1) = 0.5."),
    _ex("f1_at_3", "slides", "Non-Rank Based, F1@k: 'F1@3 = 2*0.5*0.2/(0.5+0.2) = 0.29'",
        "F1@3", f1_at_k,
        {"rels": SLIDES_RELS, "k": 3, "n_relevant": SLIDES_N_RELEVANT},
        0.29, 2 * (2 / 3) * (2 / 10) / ((2 / 3) + (2 / 10)), 0.005,
        erratum="The slide takes Precision@3 = 0.5 where it is 2/3; with 2/3 and "
                "Recall@3 = 0.2, F1@3 = 2*(2/3)*0.2/(2/3 + 0.2) = 0.308, not 0.29."),
    _ex("rr_slides_q1", "slides", "Mean Reciprocal Rank: 'our very first document is relevant'",
        "Reciprocal rank", reciprocal_rank, {"rels": SLIDES_MRR[0]},
        "1/1", 1 / 1, 0.0),
    _ex("rr_slides_q2", "slides", "Mean Reciprocal Rank: 'for another query ... the rank ... will be 2'",
        "Reciprocal rank", reciprocal_rank, {"rels": SLIDES_MRR[1]},
        "1/2", 1 / 2, 0.0),
    _ex("mrr_slides", "slides", "Mean Reciprocal Rank: 'MRR = 1/2 (1/1 + 1/2) = 3/4'",
        "MRR", mean_reciprocal_rank, {"list_of_rels": SLIDES_MRR},
        "3/4", (1 / 1 + 1 / 2) / 2, 0.0,
        label_erratum="A slide says MRR 'is ideal when the goal is to bring as many "
                      "relevant items as possible close to the top', but MRR sees only "
                      "the first relevant item ('the number of relevant documents does "
                      "not matter', the next slide says); that goal is AP's."),
    *[
        _ex(f"ap_slides_q1_precision_at_{k}", "slides",
            "Mean Average Precision: the Precision@k column 1/1, 1/2, 2/3, 2/4, 3/5",
            f"Precision@{k}", precision_at_k, {"rels": SLIDES_RELS, "k": k},
            stated, value, 0.0)
        for k, stated, value in [
            (1, "1/1", 1 / 1), (2, "1/2", 1 / 2), (3, "2/3", 2 / 3),
            (4, "2/4", 2 / 4), (5, "3/5", 3 / 5),
        ]
    ],
    _ex("ap_slides_q1", "slides", "Mean Average Precision: '(1 + 2/3 + 3/5)/10 = 0.226'",
        "Average Precision", average_precision,
        {"rels": SLIDES_RELS, "n_relevant": SLIDES_N_RELEVANT},
        0.226, (1 / 1 + 2 / 3 + 3 / 5) / 10, 0.001,  # cut, not rounded: ROUNDING_NOTES
        label_erratum=_LABEL_MAP),
    _ex("ap_slides_q2", "slides",
        "Mean Average Precision, 'results higher in order': 'MAP = (1 + 1 + 1)/10 = 0.3'",
        "Average Precision", average_precision,
        {"rels": SLIDES_RELS_TOP, "n_relevant": SLIDES_N_RELEVANT},
        0.3, (1 / 1 + 2 / 2 + 3 / 3) / 10, 0.05,
        label_erratum=_LABEL_MAP),
    # the DCG discount table (i, log2(i + 1), penalty); the slide cuts the
    # logarithms to three decimals (a whole unit of tolerance, ROUNDING_NOTES)
    *[
        _ex(f"discount_rank_{i}", "slides",
            f"Discounted Cumulative Gain: penalty table, row i = {i}",
            "DCG discount log2(i + 1)", log2_discount, {"rank": i},
            stated, value, tolerance)
        for i, stated, value, tolerance in [
            (1, 1, log2(2), 0.0),
            (2, 1.584, log2(3), 0.001),
            (3, 2, log2(4), 0.0),
            (4, 2.321, log2(5), 0.001),
            (5, 2.584, log2(6), 0.001),
        ]
    ],
    _ex("dcg_at_3", "slides", "Discounted Cumulative Gain: 'DCG@3 = 5/1 + 3/1.58 + 5/2 = 9.40'",
        "DCG@3", dcg_at_k, {"rels": SLIDES_GRADES, "k": 3},
        9.40, 5 / 1 + 3 / _L3 + 5 / 2, 0.005,
        erratum="5/1 + 3/1.585 + 5/2 = 9.39; 9.40 comes only from rounding "
                "log2(3) to 1.58."),
    _ex("dcg_at_3_numerators", "slides",
        "Discounted Cumulative Gain, next slide: 'DCG@3 = 1/1 + 1/1.58 + 1/2 = 9.40'",
        "DCG@3", dcg_at_k, {"rels": SLIDES_GRADES, "k": 3},
        9.40, 5 / 1 + 3 / _L3 + 5 / 2, 0.005,
        erratum="The same 9.40 as on the slide before: DCG@3 = 9.39, and 9.40 "
                "only with log2(3) rounded to 1.58.",
        label_erratum="The formula's numerators must be the grades 5, 3, 5, not 1: "
                      "as written, 1/1 + 1/1.58 + 1/2 is 2.13, not 9.40."),
    _ex("dcg_at_5", "slides",
        "Discounted Cumulative Gain: 'DCG@5 = 5/1 + 3/1.58 + 5/2 + 0/2.32 + 2/2.58 = 10.17'",
        "DCG@5", dcg_at_k, {"rels": SLIDES_GRADES, "k": 5},
        10.17, 5 / 1 + 3 / _L3 + 5 / 2 + 0 / _L5 + 2 / _L6, 0.005,
        label_erratum="The DCG slide says 'rel_i is the relevancy score (1-5)', but "
                      "the deck grades from 0 to 5 and this example has a grade 0 "
                      "at rank 4."),
    _ex("dcg_at_5_numerators", "slides",
        "Discounted Cumulative Gain, next slide: "
        "'DCG@5 = 1/1 + 1/1.58 + 1/2 + 1/2.52 + 1/2.58 = 10.17'",
        "DCG@5", dcg_at_k, {"rels": SLIDES_GRADES, "k": 5},
        10.17, 5 / 1 + 3 / _L3 + 5 / 2 + 0 / _L5 + 2 / _L6, 0.005,
        label_erratum="The formula's numerators must be the grades 5, 3, 5, 0, 2, "
                      "not 1, and its fourth discount log2(5) is 2.32, not 2.52; as "
                      "written the sum is 2.92. The total 10.17 is right."),
    # the IDCG table: ideal order [5, 5, 3, 2, 0]
    *[
        _ex(f"idcg_table_discount_{i}", "slides",
            f"NDCG@k: IDCG table, 'log2({i} + 1)' column",
            "DCG discount log2(i + 1)", log2_discount, {"rank": i},
            stated, value, 0.0005, erratum)
        for i, stated, value, erratum in [
            (2, 1.585, log2(3), None),
            (3, 1.5, log2(4),
             "log2(3 + 1) is 2; 1.5 is the row's term 3/2 written in the wrong column."),
            (4, 0.861, log2(5),
             "log2(4 + 1) is 2.322; 0.861 is the row's term 2/2.322 written "
             "in the wrong column."),
            (5, 2.585, log2(6), None),
        ]
    ],
    _ex("idcg_at_3", "slides", "NDCG@k: IDCG table, 'IDGC@3 = 9.654'",
        "IDCG@3", idcg_at_k, {"rels": SLIDES_GRADES, "k": 3},
        9.654, 5 / 1 + 5 / _L3 + 3 / 2, 0.001,  # one term cut: ROUNDING_NOTES
        label_erratum=_LABEL_IDGC),
    _ex("idcg_at_5", "slides", "NDCG@k: IDCG table, 'IDGC@5 = 10.515'",
        "IDCG@5", idcg_at_k, {"rels": SLIDES_GRADES, "k": 5},
        10.515, 5 / 1 + 5 / _L3 + 3 / 2 + 2 / _L5 + 0 / _L6,
        0.002,  # two terms cut: ROUNDING_NOTES
        label_erratum=_LABEL_IDGC),
    _ex("ndcg_at_3", "slides", "NDCG@k: 'NDCG@3 = 9.40/9.654 = 0.973'",
        "NDCG@3", ndcg_at_k, {"rels": SLIDES_GRADES, "k": 3},
        0.973, (5 / 1 + 3 / _L3 + 5 / 2) / (5 / 1 + 5 / _L3 + 3 / 2), 0.0005,
        label_erratum=_LABEL_NDCG),
    _ex("ndcg_at_5", "slides", "NDCG@k: 'NDCG@5 = 10.17/10.515 = 0.967'",
        "NDCG@5", ndcg_at_k, {"rels": SLIDES_GRADES, "k": 5},
        0.967,
        (5 / 1 + 3 / _L3 + 5 / 2 + 0 / _L5 + 2 / _L6)
        / (5 / 1 + 5 / _L3 + 3 / 2 + 2 / _L5 + 0 / _L6),
        0.0005,
        label_erratum="The slide's reasons why NDCG@5 < NDCG@3 (the sorting, 'more "
                      "lesser relevant documents') miss the cause: rank 4 holds a 0 "
                      "where the ideal ranking holds a 2, so ranks 4-5 add 0.774 to "
                      "DCG but 0.861 to IDCG."),
    # -------------------------------------------------------- blog post
    _ex("dcg_at_5_blog", "blog_ndcg",
        "Python example, relevance = [3, 2, 3, 0, 1]: prints DCG@5 with :.4f, "
        "but the output is not in the text (stated is None)",
        "DCG@5", dcg_at_k, {"rels": BLOG_GRADES, "k": 5},
        None, 3 / 1 + 2 / _L3 + 3 / 2 + 0 / _L5 + 1 / _L6, 0.0),
    _ex("dcg_at_4_blog", "blog_ndcg",
        "DCG@k: 'just consider k = 4, we might find yourself with a DCG@4 = 28.19' "
        "(002 words it alike); the grades are only in an image (inputs None)",
        "DCG@4", None, None,
        28.19, None, 0.005),
    _ex("idcg_at_5_blog", "blog_ndcg",
        "Python example, relevance = [3, 2, 3, 0, 1] sorted to [3, 3, 2, 1, 0]: "
        "prints IDCG@5, output not in the text",
        "IDCG@5", idcg_at_k, {"rels": BLOG_GRADES, "k": 5},
        None, 3 / 1 + 3 / _L3 + 2 / 2 + 1 / _L5 + 0 / _L6, 0.0),
    _ex("ndcg_at_5_blog", "blog_ndcg",
        "Python example, relevance = [3, 2, 3, 0, 1]: prints NDCG@5, output not "
        "in the text",
        "NDCG@5", ndcg_at_k, {"rels": BLOG_GRADES, "k": 5},
        None,
        (3 / 1 + 2 / _L3 + 3 / 2 + 0 / _L5 + 1 / _L6)
        / (3 / 1 + 3 / _L3 + 2 / 2 + 1 / _L5 + 0 / _L6),
        0.0),
    # ------------------------------------------------- article, cat in a box
    *[
        _ex(f"recall_at_{k}_article", "article_ir",
            f"Recall@K, code output 'Recall@{k} = {stated}' (relevant at 2, 4, 5, 7)",
            f"Recall@{k}", recall_at_k,
            {"rels": CATS[0], "k": k, "n_relevant": CATS_N_RELEVANT[0]},
            stated, value, 0.005)
        for k, stated, value in [
            (1, 0.0, 0 / 4), (2, 0.25, 1 / 4), (3, 0.25, 1 / 4), (4, 0.5, 2 / 4),
            (5, 0.75, 3 / 4), (6, 0.75, 3 / 4), (7, 1.0, 4 / 4), (8, 1.0, 4 / 4),
        ]
    ],
    _ex("precision_at_2_article", "article_ir",
        "Mean Average Precision: 'Precision@2 = 1/2 = 0.5'",
        "Precision@2", precision_at_k, {"rels": CATS[0], "k": 2},
        0.5, 1 / 2, 0.05),
    *[
        _ex(f"rr_article_q{q + 1}", "article_ir",
            f"Mean Reciprocal Rank: 'query {q + 1}: 1/rank_{q + 1} = {stated}'",
            "Reciprocal rank", reciprocal_rank, {"rels": CATS[q]},
            stated, value, 0.05)
        for q, stated, value in [(0, 0.5, 1 / 2), (1, 1.0, 1 / 1), (2, 0.2, 1 / 5)]
    ],
    _ex("mrr_article", "article_ir",
        "Mean Reciprocal Rank: 'MRR = 1/3 * 1.7 = 0.57' (text and code)",
        "MRR", mean_reciprocal_rank, {"list_of_rels": CATS},
        0.57, (1 / 2 + 1 / 1 + 1 / 5) / 3, 0.005,
        label_erratum="The article's code takes actual_relevant[i][0], the id of the "
                      "first relevant image, as its rank; it prints 0.57 only because "
                      "the ids 1-8 equal the ranks here."),
    _ex("ap_at_8_article_q1", "article_ir",
        "Mean Average Precision: 'AP@8_1 = (0.5 + 0.5 + 0.6 + 0.57)/4 = 0.54'",
        "AP@8", average_precision,
        {"rels": CATS[0], "n_relevant": CATS_N_RELEVANT[0], "k": 8},
        0.54, (1 / 2 + 2 / 4 + 3 / 5 + 4 / 7) / 4, 0.005),
    _ex("ap_at_8_article_q2", "article_ir",
        "Mean Average Precision: 'AP@8_2 = ... = 0.67' (code prints 0.67 too)",
        "AP@8", average_precision,
        {"rels": CATS[1], "n_relevant": CATS_N_RELEVANT[1], "k": 8},
        0.67, (1 / 1 + 2 / 4 + 3 / 5 + 4 / 7) / 4, 0.005),
    _ex("ap_at_8_article_q2_terms", "article_ir",
        "Mean Average Precision: the terms of 'AP@8_2 = (1*1 + 0.5*1 + 0.4*1 + 0.43*1)/4'",
        "AP@8", average_precision,
        {"rels": CATS[1], "n_relevant": CATS_N_RELEVANT[1], "k": 8},
        "(1*1 + 0.5*1 + 0.4*1 + 0.43*1)/4", (1 / 1 + 2 / 4 + 3 / 5 + 4 / 7) / 4, 0.005,
        erratum="With relevant images at 1, 4, 5, 7, P@5 = 3/5 = 0.6 and P@7 = "
                "4/7 = 0.57, not 0.4 and 0.43 (with the terms as written, "
                "(1 + 0.5 + 0.4 + 0.43)/4 = 0.58); the printed 0.67 uses the right ones."),
    _ex("ap_at_8_article_q3", "article_ir",
        "Mean Average Precision: 'AP@8_3 = (0.2 + 0.25)/2 = 0.22' (its code prints 0.23)",
        "AP@8", average_precision,
        {"rels": CATS[2], "n_relevant": CATS_N_RELEVANT[2], "k": 8},
        0.22, (1 / 5 + 2 / 8) / 2, 0.005),  # a tie, rounded: ROUNDING_NOTES
    _ex("map_at_8_article", "article_ir",
        "Mean Average Precision: 'MAP@K = 1/3 * (0.54 + 0.67 + 0.22) = 0.48'",
        "MAP@8", mean_average_precision,
        {"list_of_rels": CATS, "n_relevants": CATS_N_RELEVANT, "k": 8},
        0.48,
        ((1 / 2 + 2 / 4 + 3 / 5 + 4 / 7) / 4 + (1 / 1 + 2 / 4 + 3 / 5 + 4 / 7) / 4
         + (1 / 5 + 2 / 8) / 2) / 3,
        0.005),
    # NDCG: the text gives only rel_1 = 0, rel_2 = 4 and the two best grades (4, 4)
    _ex("cg_at_2_article", "article_ir", "NDCG@K: 'CG@2 = rel_1 + rel_2 = 0 + 4 = 4'",
        "CG@2", cumulative_gain, {"rels": [0, 4], "k": 2},
        4.0, 0 + 4, 0.0),
    _ex("cg_at_2_article_swapped", "article_ir",
        "NDCG@K, images 1 and 2 swapped: 'CG@2 = 4 + 0 = 4'",
        "CG@2", cumulative_gain, {"rels": [4, 0], "k": 2},
        4.0, 4 + 0, 0.0),
    _ex("dcg_at_2_article", "article_ir",
        "NDCG@K: 'original: DCG@2 = 0/log2(1+1) + 4/log2(1+2) = 2.52'",
        "DCG@2", dcg_at_k, {"rels": [0, 4], "k": 2},
        2.52, 0 / 1 + 4 / _L3, 0.005),
    _ex("dcg_at_2_article_swapped", "article_ir",
        "NDCG@K: 'swapped: DCG@2 = 4/log2(1+1) + 0/log2(1+2) = 4'",
        "DCG@2", dcg_at_k, {"rels": [4, 0], "k": 2},
        4.0, 4 / 1 + 0 / _L3, 0.0),
    _ex("idcg_at_2_article", "article_ir",
        "NDCG@K: 'IDCG@2 = 4/log2(1+1) + 4/log2(1+2) = 6.52' (the text gives only "
        "the two best grades of the eight images, 4 and 4, passed as ideal)",
        "IDCG@2", idcg_at_k, {"rels": [0, 4], "k": 2, "ideal": [4, 4]},
        6.52, 4 / 1 + 4 / _L3, 0.005),
    _ex("ndcg_at_2_article", "article_ir",
        "NDCG@K: 'NDCG@K = DCG@K/IDCG@K = 2.52/6.52 = 0.39'",
        "NDCG@2", ndcg_at_k, {"rels": [0, 4], "k": 2, "ideal": [4, 4]},
        0.39, (4 / _L3) / (4 / 1 + 4 / _L3), 0.005),
    _ex("ndcg_at_2_article_code", "article_ir",
        "NDCG@K: 'we get a more interpretable result of 0.41', NDCG@2 of its "
        "code's relevance = [0, 7, 2, 4, 6, 1, 4, 3]",
        "NDCG@2", ndcg_at_k, {"rels": CATS_GRADES_CODE, "k": 2},
        0.41, (0 / 1 + 7 / _L3) / (7 / 1 + 6 / _L3), 0.005,
        label_erratum="The article gives 0.41 as the NDCG of the example it just "
                      "scored 2.52/6.52 = 0.39; 0.41 belongs to its code's relevance "
                      "list, graded 0 to 7 while its text grades 0 to 4."),
]
"""Every retrieval worked example of the seeds (see the module docstring)."""


ROUNDING_NOTES = {
    "discount_rank_2": "Cut, not rounded: log2(3) = 1.58496 shows as 1.584 (rounded: "
                       "1.585, as the IDCG table prints it); the digits shown are right.",
    "discount_rank_4": "Cut, not rounded: log2(5) = 2.32193 shows as 2.321 (rounded: "
                       "2.322); the digits shown are right.",
    "discount_rank_5": "Cut, not rounded: log2(6) = 2.58496 shows as 2.584 (rounded: "
                       "2.585, as the IDCG table prints it); the digits shown are right.",
    "ap_slides_q1": "Cut, not rounded: 2.2667/10 = 0.22667 shows as 0.226 (rounded: "
                    "0.227); the digits shown are right.",
    "idcg_at_3": "The table adds terms cut to three decimals (5/1.585 = 3.154 for "
                 "3.1546), so 9.654 is the exact 9.6546 cut, not rounded (9.655); "
                 "the total is right.",
    "idcg_at_5": "The table adds two terms cut to three decimals (3.154 and 0.861 "
                 "for 3.1546 and 0.8614), so its 10.515 lies 0.001 below the exact "
                 "10.5160; the total is right up to that rounding.",
    "ndcg_at_3": "The slide's own quotient 9.40/9.654 is 0.9737 (0.974 to three "
                 "decimals); its 0.973 is the exact 9.3928/9.6546 = 0.9729 rounded, "
                 "so the number is right though not the quotient of the two beside it.",
    "ap_at_8_article_q3": "A tie at two decimals: (0.2 + 0.25)/2 is exactly 0.225. The "
                          "text rounds it half to even, to 0.22 (as Python's decimal "
                          "module does); the code prints round() of the float 0.225, "
                          "stored as 0.2250000000000000056, which rounds up to 0.23. "
                          "Both are right to two decimals.",
}
"""Seed numbers that are right but cut or rounded unusually, and how.

Keys are :data:`EXAMPLES` keys; none of them has an ``erratum`` (see the
module docstring on ``tolerance``).  Notebooks 02 and 03 show them in a
"Rounding" box under their seed tables.
"""


UNREBUILDABLE_NOTES = {
    "dcg_at_4_blog": "The blog's grades for this example are only in an image, so "
                     "its DCG@4 cannot be recomputed. It does not fit the blog's "
                     "own code (linear gain) with its grades 0 to 5: four documents "
                     "of grade 5 give at most 5/1 + 5/1.585 + 5/2 + 5/2.322 = 12.81. "
                     "The exponential gain 2^rel - 1 allows up to 79.41, yet no four "
                     "integer grades 0 to 5 give it with either gain.",
}
"""Seed numbers whose inputs the seed does not give, and what can be said of them.

Keys are :data:`EXAMPLES` keys, the examples whose ``inputs``, ``compute``
and ``correct`` are None.  Notebook 03 shows the note in a "cannot rebuild"
box.
"""
