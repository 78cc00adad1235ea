"""Widget of notebook 02: reciprocal rank, MRR, Average Precision and MAP.

:func:`order_aware_breakdown` is the pure computation (unit tested): for
each query, the first relevant rank and its reciprocal, and the precision
at each relevant rank that Average Precision sums.
:func:`average_precision_explorer` shows it as the sums are built.
"""

from ..._deprecation import formerly_positional
from ...retrieval import order_aware as _oa
from ...retrieval import order_unaware as _ou
from ..._validation import check_choice, check_k, check_n_relevant, check_rels
from ._common import Explorer, FigureView, UpdateGuard, fmt, require_widgets, spoken, spoken_list

DENOMINATORS = ("all_relevant", "retrieved_relevant", "min_k_relevant")


@formerly_positional("k", "denominator")
def order_aware_breakdown(queries, n_relevants, *, k=None, denominator="all_relevant"):
    """Reciprocal rank and Average Precision of each query, term by term.

    Parameters
    ----------
    queries : sequence of sequences of float
        One relevance list per query, in rank order (> 0 is relevant).
    n_relevants : sequence of int
        Relevant documents of each query in the whole collection.
    k : int or None, default None
        Cut-off (RR@k, AP@k); None means whole rankings.
    denominator : {"all_relevant", "retrieved_relevant", "min_k_relevant"}
        The Average Precision convention
        (see :func:`ragmetrics_edu.retrieval.order_aware.average_precision`).

    Returns
    -------
    dict
        ``"queries"``: one dict per query with ``first_rank`` (None when
        nothing relevant is in the top k), ``rr``, ``relevant_ranks``,
        ``hits`` (relevant documents up to each relevant rank),
        ``precisions`` (Precision@i at those ranks), ``sum``, ``norm`` (what
        the sum is divided by) and ``ap``; then ``"mrr"`` and ``"map"``.
        Every number comes from :mod:`ragmetrics_edu.retrieval.order_aware` and
        :mod:`ragmetrics_edu.retrieval.order_unaware`.

    Examples
    --------
    The slides' first MAP example: relevant at ranks 1, 3, 5 of 10.

    >>> b = order_aware_breakdown([[1, 0, 1, 0, 1]], [10])
    >>> q = b["queries"][0]
    >>> q["relevant_ranks"], q["hits"], round(q["ap"], 4)
    ([1, 3, 5], [1, 2, 3], 0.2267)
    """
    check_choice(denominator, DENOMINATORS, name="denominator")
    k = check_k(k, allow_none=True)
    queries = [check_rels(q, name=f"queries[{i}]") for i, q in enumerate(queries)]
    n_relevants = list(n_relevants)
    if len(n_relevants) != len(queries):
        raise ValueError(f"n_relevants must have one entry per query ({len(queries)}), "
                         f"got {len(n_relevants)}")
    if not queries:
        raise ValueError("queries must hold at least one query, got none")
    rows = []
    for i, (rels, n_rel) in enumerate(zip(queries, n_relevants)):
        n_rel = check_n_relevant(n_rel, found=int((rels > 0).sum()), name=f"n_relevants[{i}]")
        top = rels if k is None else rels[:k]
        ranks = [int(r) + 1 for r in (top > 0).nonzero()[0]]
        hits = list(range(1, len(ranks) + 1))
        precisions = [_ou.precision_at_k(rels, r) for r in ranks]
        cutoff = len(rels) if k is None else k
        norm = {"all_relevant": n_rel, "retrieved_relevant": len(ranks),
                "min_k_relevant": min(cutoff, n_rel)}[denominator]
        rows.append({
            "rels": [float(g) for g in rels],
            "n_relevant": n_rel,
            "first_rank": ranks[0] if ranks else None,
            "rr": _oa.reciprocal_rank(rels, k),
            "relevant_ranks": ranks,
            "hits": hits,
            "precisions": precisions,
            "sum": float(sum(precisions)),
            "norm": norm,
            "ap": _oa.average_precision(rels, n_rel, k=k, denominator=denominator),
        })
    return {
        "queries": rows,
        "mrr": _oa.mean_reciprocal_rank(queries, k),
        "map": _oa.mean_average_precision(queries, [r["n_relevant"] for r in rows], k=k,
                                          denominator=denominator),
        "k": k,
        "denominator": denominator,
    }


def _rr_text(q):
    if q["first_rank"] is None:
        return "RR = 0 (no relevant document in the top k)"
    return f"RR = 1/{q['first_rank']} = {fmt(q['rr'])}"


def _ap_text(q, k):
    at = "" if k is None else f"@{k}"
    if not q["relevant_ranks"]:
        return f"AP{at} = 0 (no relevant document in the top k)"
    terms = " + ".join(f"{h}/{r}" for h, r in zip(q["hits"], q["relevant_ranks"]))
    return (f"AP{at} = ({terms}) / {q['norm']} = {fmt(q['sum'])} / {q['norm']} "
            f"= {fmt(q['ap'])}")


class AveragePrecisionExplorer(Explorer):
    """Toggles per rank for several queries; RR and AP built term by term.

    Attributes
    ----------
    toggles : list of list of ipywidgets.ToggleButton
        ``toggles[q][i]`` is rank ``i + 1`` of query ``q``.
    n_relevants : list of ipywidgets.BoundedIntText
        Relevant documents of each query in the collection.
    k : ipywidgets.IntSlider
        The cut-off (its maximum, the longest ranking, means no cut-off).
    denominator : ipywidgets.ToggleButtons
        The Average Precision convention.
    lines : list of ipywidgets.HTML
        One per query: the reciprocal rank and the AP sum, written out.
    summary : ipywidgets.HTML
        MRR and MAP, as means of the per-query values.
    view : FigureView
        Bars of RR and AP per query (``rr_bars``, ``ap_bars``) and horizontal
        lines at MRR and MAP (``mrr_line``, ``map_line``); its alt text
        (:meth:`figure_alt`) gives every bar's value.
    values : dict
        The last result of :func:`order_aware_breakdown`.
    """

    @formerly_positional("k", "denominator")
    def __init__(self, queries, n_relevants, *, k, denominator):
        w = require_widgets()
        self._guard = UpdateGuard(self.update)
        longest = max(len(q) for q in queries)
        self.toggles = [
            [w.ToggleButton(value=bool(r), description=str(i + 1),
                            tooltip=f"query {q + 1}, rank {i + 1}: relevant?",
                            layout=w.Layout(width="36px"))
             for i, r in enumerate(rels)]
            for q, rels in enumerate(queries)
        ]
        self.n_relevants = [
            w.BoundedIntText(value=n, min=max(sum(1 for r in rels if r), 1), max=1000,
                             description="relevant in all",
                             style={"description_width": "initial"},
                             layout=w.Layout(width="150px"))
            for rels, n in zip(queries, n_relevants)
        ]
        self.k = w.IntSlider(value=longest if k is None else k, min=1, max=longest,
                             description="k", continuous_update=False)
        self.denominator = w.ToggleButtons(options=list(DENOMINATORS), value=denominator,
                                           description="AP divides by",
                                           style={"description_width": "initial",
                                                  "button_width": "120px"})
        self.lines = [w.HTML() for _ in queries]
        self.summary = w.HTML()

        nq = len(queries)
        self.view = FigureView(figsize=(max(3.2, 1.2 * nq + 2.0), 2.6), alt=self.figure_alt)
        ax = self.view.axes[0]
        xs = list(range(1, nq + 1))
        self.rr_bars = ax.bar([x - 0.18 for x in xs], [0.0] * nq, width=0.36,
                              label="reciprocal rank")
        self.ap_bars = ax.bar([x + 0.18 for x in xs], [0.0] * nq, width=0.36,
                              label="average precision")
        self.mrr_line = ax.axhline(0.0, color="C0", ls="--", lw=1, label="MRR")
        self.map_line = ax.axhline(0.0, color="C1", ls="--", lw=1, label="MAP")
        ax.set(xticks=xs, xticklabels=[f"query {x}" for x in xs], ylim=(0, 1.4),
               yticks=[0, 0.25, 0.5, 0.75, 1.0])
        ax.legend(fontsize=7, loc="upper center", ncol=2)
        self.view.figure.tight_layout()
        self.view.animate(*self.rr_bars, *self.ap_bars, self.mrr_line, self.map_line)

        rows = []
        for q in range(nq):
            for t in self.toggles[q]:
                t.observe(self._guard.request, names="value")
            self.n_relevants[q].observe(self._guard.request, names="value")
            rows.append(w.VBox([
                w.HBox([w.HTML(f"<b>query {q + 1}</b>", layout=w.Layout(width="70px")),
                        *self.toggles[q], self.n_relevants[q]]),
                self.lines[q],
            ]))
        self.k.observe(self._guard.request, names="value")
        self.denominator.observe(self._guard.request, names="value")
        self.widget = w.VBox([
            w.HTML("Click a rank to mark its document relevant (green) or not."),
            *rows,
            w.HBox([self.k]),
            self.denominator,
            self.summary,
            self.view.widget,
        ])
        self._longest = longest
        self.update()

    @property
    def queries(self):
        """The current relevance lists, read from the toggles."""
        return [[int(t.value) for t in row] for row in self.toggles]

    @property
    def cutoff(self):
        """The k passed to the metrics: None when the slider is at the longest ranking."""
        return None if self.k.value >= self._longest else self.k.value

    def _describe(self):
        return (f"queries={self.queries}, "
                f"n_relevants={[n.value for n in self.n_relevants]}, k={self.cutoff}, "
                f"denominator={self.denominator.value!r}")

    def figure_alt(self):
        """The figure's alt text: every query's RR and AP, and MRR and MAP."""
        b = self.values
        at = "" if self.cutoff is None else f"@{self.cutoff}"
        bars = "; ".join(f"query {i}: RR{at} {spoken(q['rr'])}, AP{at} {spoken(q['ap'])}"
                         for i, q in enumerate(b["queries"], start=1))
        return (f"Bar chart of the reciprocal rank and the average precision of "
                f"{spoken_list(f'query {i}' for i in range(1, len(b['queries']) + 1))}, "
                f"with dashed lines at MRR{at} = {spoken(b['mrr'])} and "
                f"MAP{at} = {spoken(b['map'])}. {bars[0].upper()}{bars[1:]}.")

    def update(self):
        """Recompute from the controls and redraw (the controls' callback)."""
        queries = self.queries
        with self._guard:  # raising a minimum may move a value: one update only
            for rels, box in zip(queries, self.n_relevants):
                found = sum(rels)
                box.min = max(found, 1)
                if box.value < found:
                    box.value = found
        for row in self.toggles:
            for t in row:
                t.button_style = "success" if t.value else ""
        k = self.cutoff
        b = order_aware_breakdown(queries, [n.value for n in self.n_relevants], k=k,
                                  denominator=self.denominator.value)
        self.values = b
        for line, q in zip(self.lines, b["queries"]):
            line.value = (f'<span style="font-family:monospace">{_rr_text(q)}'
                          f" &nbsp;|&nbsp; {_ap_text(q, k)}</span>")
        rrs = [q["rr"] for q in b["queries"]]
        aps = [q["ap"] for q in b["queries"]]
        nq = len(rrs)
        at = "" if k is None else f"@{k}"
        self.summary.value = (
            f"<b>MRR{at}</b> = ({' + '.join(fmt(x) for x in rrs)}) / {nq} = {fmt(b['mrr'])}"
            f" &nbsp;&nbsp; <b>MAP{at}</b> = ({' + '.join(fmt(x) for x in aps)}) / {nq} "
            f"= {fmt(b['map'])}")
        for bar, v in zip(self.rr_bars, rrs):
            bar.set_height(v)
        for bar, v in zip(self.ap_bars, aps):
            bar.set_height(v)
        self.mrr_line.set_ydata([b["mrr"], b["mrr"]])
        self.map_line.set_ydata([b["map"], b["map"]])
        self.view.refresh()


@formerly_positional("k", "denominator")
def average_precision_explorer(queries=((1, 0, 1, 0, 1), (1, 1, 1, 0, 0)),
                               n_relevants=None, *, k=None, denominator="all_relevant"):
    """Play with reciprocal rank, MRR, Average Precision and MAP on several queries.

    One row of toggles per query marks each rank relevant or not; beside it,
    the reciprocal rank ``1/rank`` of the first relevant document and the
    Average Precision written out as its sum of Precision@i at the relevant
    ranks; below, MRR and MAP as means over the queries, and a bar chart.

    Parameters
    ----------
    queries : sequence of sequences of int
        Starting relevance lists; default the slides' two MAP examples.
    n_relevants : sequence of int, optional
        Relevant documents of each query in the collection; default 10 for
        each query, as in the slides.
    k : int, optional
        Cut-off; default none (whole rankings).
    denominator : str, default "all_relevant"
        The AP convention (see :func:`ragmetrics_edu.average_precision`).

    Returns
    -------
    AveragePrecisionExplorer
        Drive it through ``toggles[q][i]``, ``n_relevants``, ``k`` and
        ``denominator``; read ``values`` (see :func:`order_aware_breakdown`).

    Examples
    --------
    >>> w = average_precision_explorer([[1, 0, 1, 0, 1], [0, 1, 0, 0, 0]])
    >>> round(w.values["mrr"], 4)  # (1/1 + 1/2) / 2
    0.75
    >>> w.toggles[1][0].value = True  # query 2 now starts with a relevant document
    >>> round(w.values["mrr"], 4)
    1.0
    """
    check_choice(denominator, DENOMINATORS, name="denominator")
    flags = [[int(g > 0) for g in check_rels(q, name=f"queries[{i}]")]
             for i, q in enumerate(queries)]
    if not flags or any(len(q) == 0 for q in flags):
        raise ValueError("queries must hold at least one non-empty ranking")
    if n_relevants is None:
        n_relevants = [max(10, sum(q)) for q in flags]
    n_relevants = list(n_relevants)
    if len(n_relevants) != len(flags):
        raise ValueError(f"n_relevants must have one entry per query ({len(flags)}), "
                         f"got {len(n_relevants)}")
    for i, (q, n) in enumerate(zip(flags, n_relevants)):
        check_n_relevant(n, found=sum(q), name=f"n_relevants[{i}]")
    k = check_k(k, allow_none=True)
    longest = max(len(q) for q in flags)
    if k is not None and k > longest:
        raise ValueError(f"k must be at most the longest ranking ({longest}), got {k}")
    return AveragePrecisionExplorer(flags, [max(n, 1) for n in n_relevants], k=k,
                                    denominator=denominator)
