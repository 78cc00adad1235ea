"""The retrieval widgets (notebooks 01-03): their pure computations, and the
widgets driven from Python (set a control, read the numbers shown).

Expected values are hand arithmetic (written in the comments) or the seeds'.
"""

import base64
import html.parser
import subprocess
import sys
from math import log2

import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("matplotlib")

from ragmetrics_edu.course.widgets import (  # noqa: E402
    average_precision_explorer,
    graded_breakdown,
    ndcg_explorer,
    order_aware_breakdown,
    order_unaware_curves,
    precision_recall_explorer,
)

L3, L5, L6 = log2(3), log2(5), log2(6)  # discounts of ranks 2, 4, 5


def approx(x):
    return pytest.approx(x, abs=1e-12)


def _mime(explorer):
    return explorer._repr_mimebundle_()


class _Images(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.images = []

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.images.append(dict(attrs))


def shown_image(view):
    """The one ``<img>`` a FigureView's widget shows: its attributes (alt, src, ...)."""
    parser = _Images()
    parser.feed(view.widget.value)
    assert len(parser.images) == 1, view.widget.value[:200]
    return parser.images[0]


def shown_png(view):
    """The PNG bytes of the image a FigureView's widget shows."""
    src = shown_image(view)["src"]
    prefix = "data:image/png;base64,"
    assert src.startswith(prefix), src[:40]
    return base64.b64decode(src[len(prefix):])


# ---------------------------------------------------------------- imports

def test_importing_the_widgets_package_loads_neither_matplotlib_nor_ipywidgets():
    code = ("import sys, ragmetrics_edu.course.widgets as w; w.order_unaware_curves; "
            "print('matplotlib' in sys.modules, 'ipywidgets' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False"]


def test_unknown_name_raises_attribute_error():
    import ragmetrics_edu.course.widgets as w

    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        w.nope


# ---------------------------------------------------------- 01 order-unaware

def test_curves_on_the_slides_ranking():
    # [1, 0, 1, 0, 1], 10 relevant in the collection
    c = order_unaware_curves([1, 0, 1, 0, 1], 10)
    assert c["k"] == [1, 2, 3, 4, 5]
    assert c["hits"] == [1, 1, 2, 2, 3]
    assert c["precision"] == [approx(1), approx(1 / 2), approx(2 / 3), approx(2 / 4),
                              approx(3 / 5)]
    assert c["recall"] == [approx(x / 10) for x in (1, 1, 2, 2, 3)]
    # F1@3 = 2 * (2/3) * (2/10) / (2/3 + 2/10) = 0.3077 (the slides' 0.29 is an erratum)
    assert c["f1"][2] == approx(2 * (2 / 3) * 0.2 / (2 / 3 + 0.2))
    assert c["hit_rate"] == [1.0] * 5


def test_curves_cat_in_a_box_recall_table():
    # article 004: relevant at 2, 4, 5, 7 of 8, 4 relevant -> 0, .25, .25, .5, .75, .75, 1, 1
    c = order_unaware_curves([0, 1, 0, 1, 1, 0, 1, 0], 4)
    assert c["recall"] == [approx(x) for x in (0, .25, .25, .5, .75, .75, 1, 1)]
    assert c["hit_rate"] == [0.0] + [1.0] * 7


def test_curves_reject_too_few_relevant():
    with pytest.raises(ValueError, match="n_relevant"):
        order_unaware_curves([1, 1, 1], 2)


def test_precision_recall_explorer_driven_from_python():
    w = precision_recall_explorer([1, 0, 1, 0, 1], n_relevant=10, k=2)
    assert w.values["at_k"]["precision"] == approx(1 / 2)  # slides' Precision@2
    assert "Precision@2 = 0.5000" in w.summary.value
    fig, line = w.view.figure, w.lines["precision"]
    renders = w.view.n_renders

    w.toggles[1].value = True  # now [1, 1, 1, 0, 1]: top 2 all relevant
    assert w.rels == [1, 1, 1, 0, 1]
    assert w.values["at_k"]["precision"] == approx(1.0)
    assert w.values["at_k"]["recall"] == approx(2 / 10)
    # the same figure and line, with new data: P@k = 1, 1, 1, 3/4, 4/5
    assert w.view.figure is fig and w.lines["precision"] is line
    assert list(line.get_ydata()) == [approx(x) for x in (1, 1, 1, 3 / 4, 4 / 5)]
    assert w.view.n_renders == renders + 1  # one toggle, one redraw
    assert "<td" in w.table.value and "0.7500" in w.table.value
    png = shown_png(w.view)
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 100

    w.k.value = 4
    assert "Precision@4 = 0.7500" in w.summary.value
    assert list(w.cursor.get_xdata()) == [4, 4]


def test_precision_recall_explorer_raises_n_relevant_to_what_was_found():
    w = precision_recall_explorer([1, 0, 0], n_relevant=1, k=3)
    for t in w.toggles:
        t.value = True
    assert w.n_relevant.value == 3
    assert w.values["at_k"]["recall"] == approx(1.0)


def test_precision_recall_explorer_text_is_deterministic():
    w = precision_recall_explorer([1, 0, 1], n_relevant=4, k=2)
    bundle = _mime(w)
    assert bundle["text/plain"] == "PrecisionRecallExplorer(rels=[1, 0, 1], n_relevant=4, k=2)"
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert w.k.continuous_update is False and w.n_relevant.continuous_update is False


@pytest.mark.parametrize("kwargs, match", [
    ({"rels": []}, "at least one"),
    ({"rels": [1, 0], "k": 3}, "k must be at most"),
    ({"rels": [1, 1], "n_relevant": 1}, "n_relevant"),
    ({"rels": [1, 0], "k": 0}, "k must be a positive integer"),
])
def test_precision_recall_explorer_validates(kwargs, match):
    with pytest.raises(ValueError, match=match):
        precision_recall_explorer(**kwargs)


# ------------------------------------------------------------ 02 order-aware

def test_breakdown_slides_ap_examples():
    b = order_aware_breakdown([[1, 0, 1, 0, 1], [1, 1, 1, 0, 0]], [10, 10])
    q1, q2 = b["queries"]
    assert q1["relevant_ranks"] == [1, 3, 5] and q1["hits"] == [1, 2, 3]
    assert q1["precisions"] == [approx(1), approx(2 / 3), approx(3 / 5)]
    assert q1["norm"] == 10
    assert q1["ap"] == approx((1 + 2 / 3 + 3 / 5) / 10)  # 0.2267
    assert q2["ap"] == approx((1 + 1 + 1) / 10)  # 0.3
    assert b["map"] == approx(((1 + 2 / 3 + 3 / 5) / 10 + 0.3) / 2)
    assert b["mrr"] == approx(1.0)


def test_breakdown_slides_mrr():
    # first relevant at rank 1 and rank 2: (1/1 + 1/2) / 2 = 3/4
    b = order_aware_breakdown([[1, 0, 1, 0, 1], [0, 1, 0, 0, 0]], [10, 10])
    assert [q["first_rank"] for q in b["queries"]] == [1, 2]
    assert b["mrr"] == approx(3 / 4)


def test_breakdown_cat_in_a_box():
    cats = [[0, 1, 0, 1, 1, 0, 1, 0], [1, 0, 0, 1, 1, 0, 1, 0], [0, 0, 0, 0, 1, 0, 0, 1]]
    b = order_aware_breakdown(cats, [4, 4, 2], k=8)
    ap = [(1 / 2 + 2 / 4 + 3 / 5 + 4 / 7) / 4, (1 + 2 / 4 + 3 / 5 + 4 / 7) / 4,
          (1 / 5 + 2 / 8) / 2]
    assert [q["ap"] for q in b["queries"]] == [approx(x) for x in ap]
    assert b["map"] == approx(sum(ap) / 3)  # 0.4786, the article's 0.48
    assert b["mrr"] == approx((1 / 2 + 1 + 1 / 5) / 3)  # 0.5667, the article's 0.57


@pytest.mark.parametrize("denominator, norm", [
    ("all_relevant", 10), ("retrieved_relevant", 3), ("min_k_relevant", 5)])
def test_breakdown_denominators(denominator, norm):
    # (1 + 2/3 + 3/5) = 2.2667 divided by 10, by the 3 found, by min(5, 10)
    b = order_aware_breakdown([[1, 0, 1, 0, 1]], [10], denominator=denominator)
    q = b["queries"][0]
    assert q["norm"] == norm
    assert q["ap"] == approx((1 + 2 / 3 + 3 / 5) / norm)


def test_breakdown_cutoff_and_nothing_found():
    b = order_aware_breakdown([[1, 0, 1, 0, 1], [0, 0, 0, 1]], [10, 2], k=3)
    q1, q2 = b["queries"]
    assert q1["relevant_ranks"] == [1, 3]
    assert q1["ap"] == approx((1 + 2 / 3) / 10)
    assert q2["first_rank"] is None and q2["rr"] == 0.0 and q2["ap"] == 0.0


def test_breakdown_validates():
    with pytest.raises(ValueError, match="one entry per query"):
        order_aware_breakdown([[1, 0]], [1, 2])
    with pytest.raises(ValueError, match="denominator"):
        order_aware_breakdown([[1, 0]], [1], denominator="mean")


def test_average_precision_explorer_driven_from_python():
    w = average_precision_explorer()  # the slides' two AP examples, 10 relevant each
    assert "AP = (1/1 + 2/3 + 3/5) / 10 = 2.2667 / 10 = 0.2267" in w.lines[0].value
    assert "RR = 1/1 = 1" in w.lines[0].value
    bars = list(w.ap_bars)
    w.toggles[1][0].value = False  # query 2 becomes [0, 1, 1, 0, 0]
    assert "RR = 1/2 = 0.5000" in w.lines[1].value
    # AP = (1/2 + 2/3) / 10 = 0.1167; MRR = (1 + 1/2) / 2 = 0.75
    assert w.values["queries"][1]["ap"] == approx((1 / 2 + 2 / 3) / 10)
    assert w.values["mrr"] == approx(0.75)
    assert list(w.ap_bars) == bars  # same artists, new heights
    assert w.ap_bars[1].get_height() == approx((1 / 2 + 2 / 3) / 10)
    assert w.rr_bars[1].get_height() == approx(0.5)
    assert list(w.mrr_line.get_ydata()) == [approx(0.75)] * 2
    assert "MRR</b> = (1 + 0.5000) / 2 = 0.7500" in w.summary.value

    w.k.value = 3  # AP@3 of query 1: (1 + 2/3) / 10
    assert w.values["queries"][0]["ap"] == approx((1 + 2 / 3) / 10)
    assert "MAP@3" in w.summary.value
    w.denominator.value = "retrieved_relevant"  # (1 + 2/3) / 2
    assert w.values["queries"][0]["ap"] == approx((1 + 2 / 3) / 2)


def test_average_precision_explorer_n_relevant_follows_toggles():
    w = average_precision_explorer([[1, 0, 0]], n_relevants=[1])
    w.toggles[0][1].value = True
    w.toggles[0][2].value = True
    assert w.n_relevants[0].value == 3
    assert w.values["queries"][0]["ap"] == approx(1.0)  # (1/1 + 2/2 + 3/3) / 3


def test_average_precision_explorer_text_is_deterministic():
    w = average_precision_explorer([[1, 0], [0, 1]], n_relevants=[2, 1])
    assert _mime(w)["text/plain"] == (
        "AveragePrecisionExplorer(queries=[[1, 0], [0, 1]], n_relevants=[2, 1], k=None, "
        "denominator='all_relevant')")


# ---------------------------------------------------------------- 03 graded

def test_graded_breakdown_slides():
    # slides' grades [5, 3, 5, 0, 2]; ideal order [5, 5, 3, 2, 0]
    b = graded_breakdown([5, 3, 5, 0, 2], k=3)
    assert b["discount"] == [approx(1), approx(L3), approx(2), approx(L5), approx(L6)]
    assert b["gain"] == [5, 3, 5, 0, 2]
    assert b["discounted"][1] == approx(3 / L3)
    dcg3 = 5 + 3 / L3 + 5 / 2  # 9.3928
    idcg3 = 5 + 5 / L3 + 3 / 2  # 9.6546
    assert b["dcg_at_k"] == approx(dcg3)
    assert b["idcg_at_k"] == approx(idcg3)
    assert b["ndcg_at_k"] == approx(dcg3 / idcg3)  # 0.9729
    assert b["cg_at_k"] == 13.0  # 5 + 3 + 5
    assert b["ideal_grade"] == [5, 5, 3, 2, 0]
    dcg5 = dcg3 + 0 / L5 + 2 / L6  # 10.1664
    idcg5 = idcg3 + 2 / L5 + 0  # 10.5160
    assert b["dcg"][4] == approx(dcg5) and b["idcg"][4] == approx(idcg5)
    assert b["ndcg"][4] == approx(dcg5 / idcg5)  # 0.9668


def test_graded_breakdown_exponential_gain():
    # gains 2^g - 1: [7, 3, 7, 0, 1]
    b = graded_breakdown([3, 2, 3, 0, 1], gain="exponential")
    assert b["gain"] == [7, 3, 7, 0, 1]
    assert b["dcg"][2] == approx(7 + 3 / L3 + 7 / 2)


def test_graded_breakdown_ideal_from_all_judged():
    # an unretrieved judged document of grade 3: ideal [3, 3, 3, 2, 1]
    b = graded_breakdown([3, 2, 3, 0, 1], ideal=[3, 2, 3, 0, 1, 3], k=2)
    assert b["ideal_grade"] == [3, 3, 3, 2, 1]
    assert b["idcg_at_k"] == approx(3 + 3 / L3)
    assert b["ndcg_at_k"] == approx((3 + 2 / L3) / (3 + 3 / L3))


def test_graded_breakdown_swapped_pair():
    # article 004: DCG@2 of [0, 4] is 4/log2(3) = 2.52; swapped [4, 0] it is 4
    assert graded_breakdown([0, 4])["dcg"][1] == approx(4 / L3)
    assert graded_breakdown([4, 0])["dcg"][1] == approx(4.0)


def test_ndcg_explorer_driven_from_python():
    w = ndcg_explorer([5, 3, 5, 0, 2], unretrieved=[5], k=3)
    assert w.values["dcg_at_k"] == approx(5 + 3 / L3 + 5 / 2)
    assert "DCG@3 = 9.3928" in w.summary.value
    assert "9.6546" in w.table.value  # IDCG@3 in the table
    bars = list(w.bars)

    w.sliders[1].value = 5  # [5, 5, 5, 0, 2]: DCG@3 = 5 + 5/1.585 + 5/2
    assert w.values["dcg_at_k"] == approx(5 + 5 / L3 + 5 / 2)
    assert w.values["ndcg_at_k"] == approx(1.0)  # ideal from the retrieved list
    assert list(w.bars) == bars
    assert w.bars[1].get_height() == approx(5 / L3)

    w.ideal_source.value = "judged"  # the unretrieved 5: ideal [5, 5, 5, 5, 2]
    assert w.values["ideal_grade"] == [5, 5, 5, 5, 2]
    assert w.values["ndcg_at_k"] == approx(1.0)  # top 3 are still 5, 5, 5
    w.k.value = 5
    dcg5 = 5 + 5 / L3 + 5 / 2 + 0 + 2 / L6
    idcg5 = 5 + 5 / L3 + 5 / 2 + 5 / L5 + 2 / L6
    assert w.values["ndcg_at_k"] == approx(dcg5 / idcg5)
    assert w.ideal_bars[3].get_height() == approx(5 / L5)

    w.gain.value = "exponential"  # 31 for a grade 5
    assert w.values["gain"][0] == 31
    assert w.values["dcg_at_k"] == approx(31 + 31 / L3 + 31 / 2 + 0 + 3 / L6)


def test_ndcg_explorer_bad_unretrieved_text_falls_back():
    w = ndcg_explorer([3, 2, 3, 0, 1], ideal_source="judged")
    w.unretrieved.value = "3, x"
    assert "numbers separated by commas" in w.message.value
    assert w.values["ideal"] is None
    w.unretrieved.value = "3, 3"
    assert w.message.value == ""
    assert w.values["ideal_grade"] == [3, 3, 3, 3, 2]


def test_ndcg_explorer_controls_and_text():
    w = ndcg_explorer()
    assert all(s.continuous_update is False and s.min == 0 and s.max == 5 for s in w.sliders)
    assert w.k.continuous_update is False
    assert _mime(w)["text/plain"] == (
        "NDCGExplorer(rels=[3, 2, 3, 0, 1], gain='linear', ideal_source='retrieved', "
        "unretrieved=[3], k=5)")


@pytest.mark.parametrize("kwargs, match", [
    ({"rels": [6, 1]}, "0 to 5"),
    ({"rels": [1.5]}, "0 to 5"),
    ({"gain": "cubic"}, "gain"),
    ({"ideal_source": "oracle"}, "ideal_source"),
    ({"k": 9}, "k must be at most"),
])
def test_ndcg_explorer_validates(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ndcg_explorer(**kwargs)


# ------------------------------------------------------ figure updated in place

def _pixels(explorer):
    import io

    from PIL import Image

    return Image.open(io.BytesIO(explorer.view.png())).convert("RGBA").tobytes()


def test_redrawn_figure_matches_a_fresh_one():
    # the cached static part plus the updated artists must look exactly like
    # a widget built directly in the final state
    moved = precision_recall_explorer([1, 0, 1, 0, 1], n_relevant=10, k=3)
    moved.toggles[1].value = True
    moved.k.value = 2
    fresh = precision_recall_explorer([1, 1, 1, 0, 1], n_relevant=10, k=2)
    assert _pixels(moved) == _pixels(fresh)


def test_redrawn_figure_matches_after_axis_limits_change():
    moved = ndcg_explorer([1, 1, 1], unretrieved=[], k=2)
    moved.sliders[0].value = 5  # taller bars: new y limits, static part redrawn
    fresh = ndcg_explorer([5, 1, 1], unretrieved=[], k=2)
    assert _pixels(moved) == _pixels(fresh)
    moved2 = average_precision_explorer([[1, 0], [0, 1]], n_relevants=[2, 2])
    moved2.toggles[0][1].value = True
    fresh2 = average_precision_explorer([[1, 1], [0, 1]], n_relevants=[2, 2])
    assert _pixels(moved2) == _pixels(fresh2)


# ------------------------------------------------------------ the figures' alt text
# What the figure shows is said in its <img alt="...">, with the numbers it shows
# now (rounded to 2 decimals), for a screen reader and the course site's audit.

def test_precision_recall_figure_alt_names_the_metrics_at_k():
    w = precision_recall_explorer([1, 0, 1, 0, 1], n_relevant=10, k=3)
    alt = shown_image(w.view)["alt"]
    assert alt == w.view.alt_text
    assert alt.startswith("Line chart of Precision@k, Recall@k, F1@k and HitRate@k "
                          "for k = 1 to 5, with a dotted line at k = 3")
    # P@3 = 2/3 = 0.67; R@3 = 2/10 = 0.2; F1@3 = 2 (2/3)(0.2) / (2/3 + 0.2) = 0.3077
    assert alt.endswith("where precision is 0.67, recall 0.2, F1 0.31 and hit rate 1.")
    w.toggles[1].value = True  # [1, 1, 1, 0, 1]: P@3 = 1, R@3 = 0.3, F1@3 = 0.6 / 1.3
    assert shown_image(w.view)["alt"].endswith(
        "where precision is 1, recall 0.3, F1 0.46 and hit rate 1.")
    w.k.value = 1  # P@1 = 1, R@1 = 0.1, F1@1 = 0.2 / 1.1 = 0.18
    assert "dotted line at k = 1, where precision is 1, recall 0.1, F1 0.18 and hit rate 1." \
        in shown_image(w.view)["alt"]


def test_average_precision_figure_alt_names_every_bar():
    w = average_precision_explorer([[1, 0, 1, 0, 1], [1, 1, 1, 0, 0]])
    # 10 relevant each: AP1 = (1/1 + 2/3 + 3/5) / 10 = 0.2267, AP2 = (1 + 1 + 1) / 10 = 0.3;
    # MRR = (1 + 1) / 2 = 1, MAP = (0.2267 + 0.3) / 2 = 0.2633
    assert shown_image(w.view)["alt"] == (
        "Bar chart of the reciprocal rank and the average precision of query 1 and query 2, "
        "with dashed lines at MRR = 1 and MAP = 0.26. "
        "Query 1: RR 1, AP 0.23; query 2: RR 1, AP 0.3.")
    w.toggles[0][0].value = False  # query 1 now [0, 0, 1, 0, 1]: RR 1/3, AP (1/3 + 2/5) / 10
    w.k.value = 3  # at k = 3: AP1@3 = (1/3) / 10 = 0.0333, AP2@3 = 0.3; MAP@3 = 0.1667
    assert shown_image(w.view)["alt"].endswith(
        "MRR@3 = 0.67 and MAP@3 = 0.17. Query 1: RR@3 0.33, AP@3 0.03; query 2: RR@3 1, AP@3 0.3.")


def test_ndcg_figure_alt_names_every_bar_and_ndcg_at_k():
    w = ndcg_explorer([5, 3, 5, 0, 2], unretrieved=[5], k=3)
    alt = shown_image(w.view)["alt"]
    assert alt.startswith("Bar chart of the discounted gain (linear gain) at ranks 1 to 5")
    assert "(outlined, from the retrieved grades), with a dotted line after rank k = 3." in alt
    # gain / log2(i + 1): 5/1, 3/log2(3) = 1.893, 5/2, 0/log2(5), 2/log2(6) = 0.774
    assert "Retrieved: 5, 1.89, 2.5, 0 and 0.77." in alt
    # ideal [5, 5, 3, 2, 0]: 5, 5/log2(3) = 3.155, 3/2, 2/log2(5) = 0.861, 0
    assert "Ideal: 5, 3.15, 1.5, 0.86 and 0." in alt
    # DCG@3 = 9.3928, IDCG@3 = 9.6546, NDCG@3 = 0.9729
    assert alt.endswith("DCG@3 = 9.39, IDCG@3 = 9.65, NDCG@3 = 0.97.")
    w.ideal_source.value = "judged"  # ideal [5, 5, 5, 3, 2]: IDCG@3 = 5 + 3.155 + 2.5 = 10.655
    alt = shown_image(w.view)["alt"]
    assert "from all judged grades" in alt and "Ideal: 5, 3.15, 2.5, 1.29 and 0.77." in alt
    assert alt.endswith("NDCG@3 = 0.88.")  # 9.3928 / 10.6546 = 0.8816


@pytest.mark.parametrize("make", [
    lambda: precision_recall_explorer(),
    lambda: average_precision_explorer(),
    lambda: ndcg_explorer(),
], ids=["precision_recall", "average_precision", "ndcg"])
def test_every_retrieval_figure_has_its_own_alt_text(make):
    w = make()
    image = shown_image(w.view)
    assert w.view.alt is not None  # given by the widget, not the generic default
    assert image["alt"] == w.view.alt_text and len(image["alt"]) > 40
    assert any(ch.isdigit() for ch in image["alt"])
    assert shown_png(w.view) == w.view.png()  # the image shown is the figure now


def test_figure_view_alt_text_string_callable_default_and_escaping():
    from ragmetrics_edu.course.widgets._common import FigureView

    view = FigureView(figsize=(2, 1), alt='Bars "a" < "b" & more')
    view.refresh()
    assert 'alt="Bars &quot;a&quot; &lt; &quot;b&quot; &amp; more"' in view.widget.value
    assert shown_image(view)["alt"] == 'Bars "a" < "b" & more'
    # width and height: 2 x 1 inches at 72 dpi
    assert (shown_image(view)["width"], shown_image(view)["height"]) == ("144", "72")

    calls = []
    view = FigureView(figsize=(2, 1), alt=lambda: f"call {len(calls.append(1) or calls)}")
    view.refresh()
    view.refresh()
    assert shown_image(view)["alt"] == "call 2"  # computed anew at every refresh

    view = FigureView(figsize=(2, 1))
    view.axes[0].set_title("Gains")
    view.refresh()
    assert shown_image(view)["alt"] == "A figure: Gains"


@pytest.mark.parametrize("alt, error", [
    ("  ", ValueError), (lambda: "", ValueError), (lambda: 3, ValueError), (3, TypeError)])
def test_figure_view_rejects_an_empty_or_wrong_alt(alt, error):
    from ragmetrics_edu.course.widgets._common import FigureView

    with pytest.raises(error, match="alt must"):
        FigureView(figsize=(2, 1), alt=alt).refresh()


# ------------------------------------------------- seed tables and exercise checks

def test_seed_table_shows_the_seed_beside_ours_with_the_erratum():
    from ragmetrics_edu.course.widgets import seed_table

    t = seed_table("precision_at_2", "f1_at_3")
    p2, f1 = t.rows
    assert p2["stated"] == 0.5 and p2["ours"] == approx(0.5) and p2["agrees"] is True
    # F1@3 = 2 * (2/3) * 0.2 / (2/3 + 0.2) = 0.3077, the slides print 0.29
    assert f1["stated"] == 0.29 and f1["ours"] == approx(2 * (2 / 3) * 0.2 / (2 / 3 + 0.2))
    assert f1["agrees"] is False and f1["erratum"]
    text = repr(t)
    assert "seed: 0.29    ragmetrics_edu: 0.3077    erratum" in text
    assert "Erratum: " in text
    html_text = t._repr_html_()
    assert "<table" in html_text and "Erratum (F1@3)" in html_text


def test_seed_table_fractions_and_missing_values():
    from ragmetrics_edu.course.widgets import seed_table

    mrr, blog = seed_table("mrr_slides", "dcg_at_5_blog").rows
    assert mrr["stated"] == "3/4" and mrr["agrees"] is True  # 3/4 = (1/1 + 1/2) / 2
    assert blog["stated"] is None and blog["agrees"] is None
    with pytest.raises(ValueError, match="at least one"):
        seed_table()
    with pytest.raises(KeyError, match="no seed example"):
        seed_table("not_a_key")


def test_seed_table_shows_a_number_it_cannot_rebuild():
    """The blog's DCG@4 = 28.19 comes from grades shown only in a picture."""
    from ragmetrics_edu.course import examples
    from ragmetrics_edu.course.widgets import seed_table

    (row,) = seed_table("dcg_at_4_blog").rows
    assert row["stated"] == 28.19 and row["ours"] is None and row["agrees"] is None
    assert "seed: 28.19    ragmetrics_edu: -    cannot be rebuilt" in repr(seed_table(
        "dcg_at_4_blog"))
    with pytest.raises(ValueError, match="'dcg_at_4_blog' cannot be rebuilt"):
        examples.get("dcg_at_4_blog").recompute()


def test_seed_table_collapsed_folds_into_details_with_the_notes():
    from ragmetrics_edu.course.widgets import seed_table

    table = seed_table("ap_slides_q1", "precision_at_2", collapsed=True)
    page = table._repr_html_()
    assert page.startswith("<details><summary>") and page.endswith("</details>")
    # ap_slides_q1's 0.226 is 2.2667/10 cut, not rounded: the note says so.
    assert "Cut, not rounded" in page and "Cut, not rounded" in repr(table)
    assert repr(table).startswith("Checking the sources:")
    assert "(2 numbers from the sources)" in page
    assert "(1 number from the sources)" in seed_table("ap_slides_q1", collapsed=True)._repr_html_()
    # Open by default, as before, and without the notes.
    assert "<details>" not in seed_table("ap_slides_q1")._repr_html_()
    assert "Cut, not rounded" not in repr(seed_table("ap_slides_q1"))


def test_seed_table_says_a_shared_wording_slip_once():
    from ragmetrics_edu.course.widgets import seed_table

    # Both of the slides' "MAP" examples are one query's AP: one slip, said once.
    table = seed_table("ap_slides_q1", "ap_slides_q2")
    assert repr(table).count("labelled MAP") == 1
    assert "Wording slip: the same as above." in repr(table)
    assert table._repr_html_().count("Wording slip") == 1
