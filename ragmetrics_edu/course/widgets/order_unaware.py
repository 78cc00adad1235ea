"""Widget of notebook 01: Precision@k, Recall@k, F1@k and HitRate@k at every k.

:func:`order_unaware_curves` is the pure computation (unit tested);
:func:`precision_recall_explorer` wraps it in toggles, sliders, a live table
and a plot whose lines are updated in place.
"""

from ..._deprecation import formerly_positional
from ...retrieval import order_unaware as _ou
from ..._validation import check_k, check_n_relevant, check_rels
from ._common import (Explorer, FigureView, UpdateGuard, fmt, html_table, require_widgets, spoken,
                      spoken_list)

METRICS = ("precision", "recall", "f1", "hit_rate")
LABELS = {"precision": "Precision@k", "recall": "Recall@k", "f1": "F1@k",
          "hit_rate": "HitRate@k"}
SPOKEN = {"precision": "precision", "recall": "recall", "f1": "F1", "hit_rate": "hit rate"}


def order_unaware_curves(rels, n_relevant):
    """Precision@k, Recall@k, F1@k and HitRate@k for every k = 1..len(rels).

    Parameters
    ----------
    rels : sequence of float
        Relevance of the retrieved documents in rank order (> 0 is relevant).
    n_relevant : int
        Relevant documents of the query in the whole collection.

    Returns
    -------
    dict
        ``"k"``: the cut-offs ``[1, ..., n]``; ``"hits"``: relevant documents
        in the top k; and one list per metric (``"precision"``,
        ``"recall"``, ``"f1"``, ``"hit_rate"``), each computed by
        :mod:`ragmetrics_edu.retrieval.order_unaware`.

    Examples
    --------
    >>> c = order_unaware_curves([1, 0, 1], n_relevant=4)
    >>> c["hits"], [round(p, 4) for p in c["precision"]]
    ([1, 1, 2], [1.0, 0.5, 0.6667])
    """
    grades = check_rels(rels)
    n_relevant = check_n_relevant(n_relevant, found=int((grades > 0).sum()))
    ks = list(range(1, len(grades) + 1))
    return {
        "k": ks,
        "hits": [int((grades[:k] > 0).sum()) for k in ks],
        "precision": [_ou.precision_at_k(grades, k) for k in ks],
        "recall": [_ou.recall_at_k(grades, k, n_relevant=n_relevant) for k in ks],
        "f1": [_ou.f1_at_k(grades, k, n_relevant=n_relevant) for k in ks],
        "hit_rate": [_ou.hit_rate_at_k(grades, k) for k in ks],
    }


class PrecisionRecallExplorer(Explorer):
    """Toggles per rank, ``n_relevant`` and ``k`` sliders, a table and a plot.

    Attributes
    ----------
    toggles : list of ipywidgets.ToggleButton
        One per rank; ``value=True`` means relevant.
    n_relevant, k : ipywidgets.IntSlider
        Relevant documents in the collection; the highlighted cut-off.
    summary, table : ipywidgets.HTML
        The four metrics at ``k``; the four metrics at every k.
    view : FigureView
        The figure; ``lines[name]`` is the Line2D of each metric, ``cursor``
        the vertical line at ``k``; its alt text (:meth:`figure_alt`) gives
        the four metrics at ``k``.
    values : dict
        The last result of :func:`order_unaware_curves`, plus ``"at_k"``
        (the four metrics at the chosen k).
    widget : ipywidgets.VBox
        The layout (what the notebook displays).
    """

    @formerly_positional("k")
    def __init__(self, rels, n_relevant, *, k):
        w = require_widgets()
        self._guard = UpdateGuard(self.update)
        n = len(rels)
        self.toggles = [
            w.ToggleButton(value=bool(r), description=str(i + 1),
                           tooltip=f"rank {i + 1}: relevant?",
                           layout=w.Layout(width="40px"))
            for i, r in enumerate(rels)
        ]
        found = sum(1 for r in rels if r)
        self.n_relevant = w.IntSlider(
            value=n_relevant, min=max(found, 1), max=max(2 * n, 2 * n_relevant, 10),
            description="relevant in all", continuous_update=False,
            style={"description_width": "initial"})
        self.k = w.IntSlider(value=k, min=1, max=n, description="k",
                             continuous_update=False)
        self.summary = w.HTML()
        self.table = w.HTML()
        self.view = FigureView(figsize=(6.4, 3.0), alt=self.figure_alt)
        ax = self.view.axes[0]
        ks = list(range(1, n + 1))
        self.lines = {m: ax.plot(ks, [0.0] * n, marker="o", ms=4, label=LABELS[m])[0]
                      for m in METRICS}
        self.cursor = ax.axvline(k, color="0.6", ls=":", lw=1)
        ax.set(xlabel="k", ylim=(-0.03, 1.05), xticks=ks, title="The metrics at every cut-off k")
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
        self.view.figure.tight_layout()
        self.view.animate(*self.lines.values(), self.cursor)

        for t in self.toggles:
            t.observe(self._guard.request, names="value")
        self.n_relevant.observe(self._guard.request, names="value")
        self.k.observe(self._guard.request, names="value")

        help_text = w.HTML("Click a rank to mark its document relevant (green) or not.")
        self.widget = w.VBox([
            help_text,
            w.HBox(self.toggles),
            w.HBox([self.n_relevant, self.k]),
            self.summary,
            w.HBox([self.table, self.view.widget]),
        ])
        self.update()

    @property
    def rels(self):
        """The current relevance list (1 relevant, 0 not), read from the toggles."""
        return [int(t.value) for t in self.toggles]

    def _describe(self):
        return f"rels={self.rels}, n_relevant={self.n_relevant.value}, k={self.k.value}"

    def figure_alt(self):
        """The figure's alt text: what it plots and the four metrics at the chosen k."""
        v = self.values
        k, n = v["k_chosen"], len(v["k"])
        at_k = spoken_list(f"{SPOKEN[m]} {spoken(v['at_k'][m])}" for m in METRICS)
        at_k = at_k.replace(" ", " is ", 1)  # "precision is 0.67, recall 0.2, ..."
        return (f"Line chart of {spoken_list(LABELS[m] for m in METRICS)} for k = 1 to {n}, "
                f"with a dotted line at k = {k}, where {at_k}.")

    def update(self):
        """Recompute from the controls and redraw (the toggles' callback)."""
        rels = self.rels
        found = sum(rels)
        with self._guard:  # raising the minimum may move n_relevant: one update only
            self.n_relevant.min = max(found, 1)
            if self.n_relevant.value < found:
                self.n_relevant.value = found
        for t in self.toggles:
            t.button_style = "success" if t.value else ""
        n_rel, k = self.n_relevant.value, self.k.value
        curves = order_unaware_curves(rels, n_rel)
        at_k = {m: curves[m][k - 1] for m in METRICS}
        self.values = dict(curves, at_k=at_k, n_relevant=n_rel, k_chosen=k)

        hits = curves["hits"][k - 1]
        self.summary.value = (
            f"<b>At k = {k}</b> ({hits} relevant in the top {k}, {n_rel} in the collection): "
            + " &nbsp;·&nbsp; ".join(
                f"{LABELS[m].replace('@k', f'@{k}')} = {fmt(at_k[m])}" for m in METRICS))
        rows = [[kk, curves["hits"][kk - 1]] + [fmt(curves[m][kk - 1]) for m in METRICS]
                for kk in curves["k"]]
        self.table.value = html_table(["k", "relevant in top k", *(LABELS[m] for m in METRICS)],
                                      rows, highlight=k - 1)

        for m in METRICS:
            self.lines[m].set_ydata(curves[m])
        self.cursor.set_xdata([k, k])
        self.view.refresh()


@formerly_positional("k")
def precision_recall_explorer(rels=(1, 0, 1, 0, 1), n_relevant=None, *, k=None):
    """Play with Precision@k, Recall@k, F1@k and HitRate@k.

    One toggle per rank marks its document relevant or not; sliders set how
    many relevant documents the collection holds and which k to highlight.
    A table gives the four metrics at every k, and a plot draws their curves
    (updated in place).

    Parameters
    ----------
    rels : sequence of int, default the slides' ``(1, 0, 1, 0, 1)``
        Starting relevance, in rank order (non-zero is relevant).
    n_relevant : int, optional
        Relevant documents in the collection; default: those in ``rels``.
    k : int, optional
        Highlighted cut-off; default ``len(rels)``.

    Returns
    -------
    PrecisionRecallExplorer
        Display it in a notebook; drive it from Python through its
        ``toggles``, ``n_relevant`` and ``k`` and read ``values``.

    Examples
    --------
    >>> w = precision_recall_explorer([1, 0, 1, 0, 1], n_relevant=10, k=2)
    >>> round(w.values["at_k"]["precision"], 4)  # 1 of the top 2
    0.5
    >>> w.toggles[1].value = True  # a click: rank 2 becomes relevant
    >>> round(w.values["at_k"]["precision"], 4), round(w.values["at_k"]["recall"], 4)
    (1.0, 0.2)
    """
    grades = check_rels(rels)
    if len(grades) == 0:
        raise ValueError("rels must hold at least one rank, got an empty list")
    flags = [int(g > 0) for g in grades]
    n_relevant = sum(flags) if n_relevant is None else n_relevant
    check_n_relevant(n_relevant, found=sum(flags))
    k = len(flags) if k is None else check_k(k)
    if k > len(flags):
        raise ValueError(f"k must be at most len(rels) = {len(flags)}, got {k}")
    return PrecisionRecallExplorer(flags, max(n_relevant, 1), k=k)
