"""Widget of notebook 03: CG, DCG, IDCG and NDCG, rank by rank.

:func:`graded_breakdown` is the pure computation (unit tested): the gain,
the discount and the discounted gain of every rank, and the running DCG,
IDCG and NDCG.  :func:`ndcg_explorer` shows it with a grade slider per rank,
a gain switch and an IDCG-source switch.
"""

import numpy as np

from ..._deprecation import formerly_positional
from ...retrieval import graded as _g
from ..._validation import check_choice, check_k, check_rels
from ._common import (Explorer, FigureView, UpdateGuard, fmt, grade_sliders, html_table,
                      require_widgets, spoken, spoken_list)

IDEAL_SOURCES = ("retrieved", "judged")
"""Where the ideal ranking comes from: the retrieved grades, or all judged grades."""

MAX_GRADE = 5


@formerly_positional("ideal", "k")
def graded_breakdown(rels, gain="linear", *, ideal=None, k=None):
    """Every term of DCG, IDCG and NDCG, rank by rank.

    Parameters
    ----------
    rels : sequence of float
        Grades of the retrieved documents in rank order.
    gain : {"linear", "exponential"}, default "linear"
        The gain of a grade (see :func:`ragmetrics_edu.dcg_at_k`).
    ideal : sequence of float or None, default None
        Grades of all judged documents of the query (retrieved or not); None
        builds the ideal ranking from ``rels`` alone (the seeds' convention).
    k : int or None, default None
        The cut-off for the headline numbers; None means ``len(rels)``.

    Returns
    -------
    dict
        Per rank ``i = 1..len(rels)`` (lists): ``"rank"``, ``"grade"``,
        ``"gain"``, ``"discount"`` (:math:`\\log_2(i + 1)`), ``"discounted"``
        (gain / discount), ``"dcg"`` (DCG@i), ``"ideal_grade"`` (grade at rank
        i of the ideal ranking), ``"ideal_discounted"``, ``"idcg"`` (IDCG@i),
        ``"ndcg"`` (NDCG@i); and at ``k``: ``"cg_at_k"``, ``"dcg_at_k"``,
        ``"idcg_at_k"``, ``"ndcg_at_k"``.  Running sums and the values at k
        come from :mod:`ragmetrics_edu.retrieval.graded`.

    Examples
    --------
    The blog's example, relevance [3, 2, 3, 0, 1]:

    >>> b = graded_breakdown([3, 2, 3, 0, 1], k=3)
    >>> [round(d, 4) for d in b["discount"][:3]]
    [1.0, 1.585, 2.0]
    >>> round(b["dcg_at_k"], 4), round(b["ndcg_at_k"], 4)
    (5.7619, 0.9778)
    """
    grades = check_rels(rels)
    check_choice(gain, _g.GAINS, name="gain")
    n = len(grades)
    if n == 0:
        raise ValueError("rels must hold at least one rank, got an empty list")
    k = n if k is None else check_k(k)
    ideal_sorted = _g.ideal_grades(grades, ideal)
    ideal_top = np.zeros(n)
    ideal_top[: min(n, len(ideal_sorted))] = ideal_sorted[:n]
    gains = _g.gain_values(grades, gain)
    discounts = _g.rank_discounts(n)
    ideal_gains = _g.gain_values(ideal_top, gain)
    ranks = list(range(1, n + 1))
    return {
        "rank": ranks,
        "grade": grades.tolist(),
        "gain": gains.tolist(),
        "discount": discounts.tolist(),
        "discounted": (gains / discounts).tolist(),
        "dcg": [_g.dcg_at_k(grades, i, gain=gain) for i in ranks],
        "ideal_grade": ideal_top.tolist(),
        "ideal_discounted": (ideal_gains / discounts).tolist(),
        "idcg": [_g.idcg_at_k(grades, i, gain=gain, ideal=ideal) for i in ranks],
        "ndcg": [_g.ndcg_at_k(grades, i, gain=gain, ideal=ideal) for i in ranks],
        "k": k,
        "gain_name": gain,
        "cg_at_k": _g.cumulative_gain(grades, k),
        "dcg_at_k": _g.dcg_at_k(grades, k, gain=gain),
        "idcg_at_k": _g.idcg_at_k(grades, k, gain=gain, ideal=ideal),
        "ndcg_at_k": _g.ndcg_at_k(grades, k, gain=gain, ideal=ideal),
    }


def _parse_grades(text):
    """'3, 2' -> [3.0, 2.0]; raises ValueError naming the bad entry."""
    out = []
    for part in text.replace(";", ",").split(","):
        part = part.strip()
        if not part:
            continue
        try:
            value = float(part)
        except ValueError:
            raise ValueError(f"grades must be numbers separated by commas, got {part!r}") from None
        out.append(value)
    return check_rels(out, name="unretrieved").tolist()


class NDCGExplorer(Explorer):
    """Grade sliders per rank, gain and IDCG-source switches, a table and bars.

    Attributes
    ----------
    sliders : list of ipywidgets.IntSlider
        The grade (0-5) of the document at each rank.
    gain : ipywidgets.ToggleButtons
        ``"linear"`` or ``"exponential"``.
    ideal_source : ipywidgets.ToggleButtons
        ``"retrieved"`` (ideal ranking = the retrieved grades sorted) or
        ``"judged"`` (all judged grades: retrieved plus ``unretrieved``).
    unretrieved : ipywidgets.Text
        Grades of judged documents the system did not retrieve, e.g. ``"3"``.
    k : ipywidgets.IntSlider
        The highlighted cut-off.
    summary, table, message : ipywidgets.HTML
        Values at k; the per-rank table; an input error, if any.
    view : FigureView
        ``bars``: discounted gain per rank; ``ideal_bars``: the ideal
        ranking's (outlined); its alt text (:meth:`figure_alt`) gives every
        bar's height and DCG, IDCG and NDCG at k.
    values : dict
        The last result of :func:`graded_breakdown`.
    """

    @formerly_positional("k", "gain", "ideal_source")
    def __init__(self, rels, unretrieved, *, k, gain, ideal_source):
        w = require_widgets()
        self._guard = UpdateGuard(self.update)
        n = len(rels)
        self.sliders = grade_sliders(rels, MAX_GRADE, height="160px")
        self.gain = w.ToggleButtons(options=list(_g.GAINS), value=gain, description="gain",
                                    style={"button_width": "100px"})
        self.ideal_source = w.ToggleButtons(
            options=[("retrieved list", "retrieved"), ("all judged", "judged")],
            value=ideal_source, description="IDCG from",
            style={"button_width": "120px"})
        self.unretrieved = w.Text(value=", ".join(fmt(g) for g in unretrieved),
                                  description="judged, not retrieved:",
                                  continuous_update=False,
                                  style={"description_width": "initial"},
                                  layout=w.Layout(width="260px"))
        self.k = w.IntSlider(value=k, min=1, max=n, description="k", continuous_update=False)
        self.summary = w.HTML()
        self.table = w.HTML()
        self.message = w.HTML()

        self.view = FigureView(figsize=(max(5.0, 0.6 * n + 3.2), 2.8), alt=self.figure_alt)
        ax = self.view.axes[0]
        ranks = list(range(1, n + 1))
        self.bars = ax.bar(ranks, [0.0] * n, width=0.6, color="C0",
                           label="retrieved")
        self.ideal_bars = ax.bar(ranks, [0.0] * n, width=0.8, fill=False,
                                 edgecolor="C1", lw=1.2, label="ideal")
        self.cursor = ax.axvline(k + 0.5, color="0.6", ls=":", lw=1)
        ax.set(xticks=ranks, xlabel="rank i", title="Discounted gain at each rank")
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        self.view.figure.tight_layout()
        self.view.animate(*self.bars, *self.ideal_bars, self.cursor)
        self._top = None

        for s in self.sliders:
            s.observe(self._guard.request, names="value")
        for c in (self.gain, self.ideal_source, self.unretrieved, self.k):
            c.observe(self._guard.request, names="value")
        self.widget = w.VBox([
            w.HTML("Set the grade (0-5) of the document at each rank."),
            w.HBox(self.sliders),
            self.gain,
            w.HBox([self.ideal_source, self.unretrieved]),
            self.k,
            self.message,
            self.summary,
            w.HBox([self.table, self.view.widget]),
        ])
        self.update()

    @property
    def rels(self):
        """The current grades, read from the sliders."""
        return [s.value for s in self.sliders]

    def _ideal(self):
        if self.ideal_source.value == "retrieved":
            return None
        return self.rels + _parse_grades(self.unretrieved.value)

    def _describe(self):
        return (f"rels={self.rels}, gain={self.gain.value!r}, "
                f"ideal_source={self.ideal_source.value!r}, "
                f"unretrieved=[{self.unretrieved.value}], k={self.k.value}")

    def figure_alt(self):
        """The figure's alt text: the retrieved and ideal discounted gains, and NDCG at k."""
        b = self.values
        k, n = b["k"], len(b["rank"])
        src = "the retrieved grades" if b["ideal"] is None else "all judged grades"
        return (f"Bar chart of the discounted gain ({b['gain_name']} gain) at ranks 1 to {n}, "
                f"the retrieved ranking's bars inside the ideal ranking's (outlined, from {src}), "
                f"with a dotted line after rank k = {k}. "
                f"Retrieved: {spoken_list(spoken(x) for x in b['discounted'])}. "
                f"Ideal: {spoken_list(spoken(x) for x in b['ideal_discounted'])}. "
                f"DCG@{k} = {spoken(b['dcg_at_k'])}, IDCG@{k} = {spoken(b['idcg_at_k'])}, "
                f"NDCG@{k} = {spoken(b['ndcg_at_k'])}.")

    def update(self):
        """Recompute from the controls and redraw (the controls' callback)."""
        try:
            ideal = self._ideal()
        except ValueError as exc:
            self.message.value = f'<span style="color:#b00">{exc}; using the retrieved list</span>'
            ideal = None
        else:
            self.message.value = ""
        k, gain = self.k.value, self.gain.value
        b = graded_breakdown(self.rels, gain, ideal=ideal, k=k)
        self.values = dict(b, ideal=ideal)
        src = "the retrieved grades" if ideal is None else "all judged grades"
        self.summary.value = (
            f"<b>At k = {k}</b> ({gain} gain, ideal ranking from {src}): "
            f"CG@{k} = {fmt(b['cg_at_k'])} &nbsp;·&nbsp; DCG@{k} = {fmt(b['dcg_at_k'])}"
            f" &nbsp;·&nbsp; IDCG@{k} = {fmt(b['idcg_at_k'])} &nbsp;·&nbsp; "
            f"<b>NDCG@{k} = {fmt(b['ndcg_at_k'])}</b>")
        rows = [[i, fmt(b["grade"][i - 1]), fmt(b["gain"][i - 1]), fmt(b["discount"][i - 1]),
                 fmt(b["discounted"][i - 1]), fmt(b["dcg"][i - 1]),
                 fmt(b["ideal_grade"][i - 1]), fmt(b["idcg"][i - 1]), fmt(b["ndcg"][i - 1])]
                for i in b["rank"]]
        self.table.value = html_table(
            ["i", "grade", "gain", "log2(i+1)", "gain/log2(i+1)", "DCG@i", "ideal grade",
             "IDCG@i", "NDCG@i"], rows, highlight=k - 1)

        for bar, v in zip(self.bars, b["discounted"]):
            bar.set_height(v)
        for bar, v in zip(self.ideal_bars, b["ideal_discounted"]):
            bar.set_height(v)
        top = max(max(b["discounted"]), max(b["ideal_discounted"]), 1.0)
        if top != self._top:  # new axis limits: the static part must be redrawn
            self._top = top
            self.view.axes[0].set_ylim(0, top * 1.25)
            self.view.invalidate()
        self.cursor.set_xdata([k + 0.5, k + 0.5])
        self.view.refresh()


@formerly_positional("k", "gain", "ideal_source")
def ndcg_explorer(rels=(3, 2, 3, 0, 1), unretrieved=(3,), *, k=None, gain="linear",
                  ideal_source="retrieved"):
    """Play with CG, DCG, IDCG and NDCG rank by rank.

    A vertical slider per rank sets the grade (0-5) of the retrieved
    document; a switch picks the gain (linear: the grade; exponential:
    :math:`2^{rel} - 1`) and another where the ideal ranking comes from
    (the retrieved list sorted, as the seeds do, or all judged documents,
    as trec_eval and ranx do: retrieved plus ``unretrieved``).  A table
    gives each rank's gain, discount, running DCG, IDCG and NDCG, and a bar
    chart the discounted gains beside the ideal ones.

    Parameters
    ----------
    rels : sequence of int, default the blog's ``(3, 2, 3, 0, 1)``
        Starting grades in rank order (0 to 5).
    unretrieved : sequence of int, default ``(3,)``
        Grades of judged documents the system did not retrieve.
    k : int, optional
        Highlighted cut-off; default ``len(rels)``.
    gain : {"linear", "exponential"}
    ideal_source : {"retrieved", "judged"}

    Returns
    -------
    NDCGExplorer
        Drive it through ``sliders``, ``gain``, ``ideal_source``,
        ``unretrieved`` and ``k``; read ``values`` (see
        :func:`graded_breakdown`).

    Examples
    --------
    >>> w = ndcg_explorer([5, 3, 5, 0, 2], unretrieved=[5], k=3)
    >>> round(w.values["ndcg_at_k"], 4)  # the slides' NDCG@3
    0.9729
    >>> w.ideal_source.value = "judged"  # the missed grade-5 document enters IDCG
    >>> round(w.values["ndcg_at_k"], 4)  # 9.3928 / (5 + 5/1.585 + 5/2)
    0.8816
    """
    grades = check_rels(rels)
    if len(grades) == 0:
        raise ValueError("rels must hold at least one rank, got an empty list")
    if np.any(grades > MAX_GRADE) or np.any(grades != np.round(grades)):
        raise ValueError(f"rels must be whole grades from 0 to {MAX_GRADE}, got {list(rels)}")
    extra = check_rels(unretrieved, name="unretrieved")
    check_choice(gain, _g.GAINS, name="gain")
    check_choice(ideal_source, IDEAL_SOURCES, name="ideal_source")
    k = len(grades) if k is None else check_k(k)
    if k > len(grades):
        raise ValueError(f"k must be at most len(rels) = {len(grades)}, got {k}")
    return NDCGExplorer([int(g) for g in grades], extra.tolist(), k=k, gain=gain,
                        ideal_source=ideal_source)
