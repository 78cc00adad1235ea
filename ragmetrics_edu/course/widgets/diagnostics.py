"""Widget of notebook 15: the four entailment tables as toggles, RAGChecker's eleven metrics live.

The computation is :func:`ragmetrics_edu.claim_diagnostics` itself (tested
against ragchecker); :func:`claim_diagnostics_explorer` lays the four
tables out as rows of toggle buttons and redraws a bar per metric, grouped
as RAGChecker groups them (the whole pipeline, the retriever, the
generator), each time a verdict is clicked.
"""

from ...judge.diagnostics import DIAGNOSTIC_GROUPS, DIAGNOSTIC_NAMES, claim_diagnostics
from ._common import Explorer, FigureView, UpdateGuard, fmt, html_table, require_widgets, spoken

#: Notebook 15's worked example: the reference's and the response's claims, the two
#: chunks, and the four tables.
WORKED_EXAMPLE = {
    "response_claims": ["Helium was the best coolant.", "The tests ran at Mach 9.",
                        "Argon was also tried."],
    "reference_claims": ["Helium was the best coolant.", "The tests ran at Mach 6.",
                         "Four gases were injected."],
    "chunks": ["chunk 1", "chunk 2"],
    "response_claims_correct": [1, 0, 0],
    "reference_claims_covered": [1, 0, 0],
    "response_claims_supported": [[1, 0], [0, 1], [0, 0]],
    "reference_claims_retrieved": [[1, 0], [0, 0], [1, 0]],
}

_TABLES = (
    ("response_claims_correct", "response", None,
     "Response claim correct? (the reference entails it)"),
    ("reference_claims_covered", "reference", None,
     "Reference claim covered? (the response entails it)"),
    ("response_claims_supported", "response", "chunks",
     "Response claim supported by each chunk?"),
    ("reference_claims_retrieved", "reference", "chunks",
     "Reference claim stated in each chunk?"),
)

_SHORT = {"precision": "precision", "recall": "recall", "f1": "F1", "claim_recall": "claim recall",
          "context_precision": "context precision", "context_utilization": "context utilization",
          "noise_sensitivity_in_relevant": "noise sens. (relevant)",
          "noise_sensitivity_in_irrelevant": "noise sens. (irrelevant)",
          "hallucination": "hallucination", "self_knowledge": "self-knowledge",
          "faithfulness": "faithfulness"}
_COLOURS = {"overall": "tab:blue", "retriever": "tab:orange", "generator": "tab:green"}


class ClaimDiagnosticsExplorer(Explorer):
    """Toggle buttons for every verdict of the four tables, and the eleven metrics.

    Attributes
    ----------
    toggles : dict of str to list
        For each table (``"response_claims_correct"``, ...), its buttons:
        a list of ToggleButtons for the two one-verdict-per-claim tables, a
        list of rows of them for the two claim-by-chunk tables.
        ``value=True`` means "entailed".
    table : ipywidgets.HTML
        The eleven metrics, by group.
    view : FigureView
        One horizontal bar per metric (``bars[name]``), redrawn in place.
    values : ClaimDiagnostics
        The last result of :func:`~ragmetrics_edu.claim_diagnostics`.
    widget : ipywidgets.VBox
    """

    def __init__(self, example):
        w = require_widgets()
        self._guard = UpdateGuard(self.update)
        self.example = example
        self.toggles = {}
        boxes = []
        for name, rows_of, columns, title in _TABLES:
            labels = example[f"{rows_of}_claims"]
            value = example[name]
            if columns is None:
                row = [self._toggle(w, bool(v), f"{rows_of} claim {i + 1}", labels[i])
                       for i, v in enumerate(value)]
                self.toggles[name] = row
                grid = w.HBox(row)
            else:
                self.toggles[name] = [[self._toggle(w, bool(v), f"{i + 1}·{k + 1}",
                                                    f"{labels[i]} / {example['chunks'][k]}")
                                       for k, v in enumerate(r)] for i, r in enumerate(value)]
                grid = w.VBox([w.HBox([w.HTML(f"<code>{rows_of[:3]} {i + 1}</code>",
                                              layout=w.Layout(width="60px"))] + r)
                               for i, r in enumerate(self.toggles[name])])
            boxes.append(w.VBox([w.HTML(f"<b>{title}</b>"), grid]))
        self.table = w.HTML()
        self.view = FigureView(figsize=(5.6, 3.8), alt=self.figure_alt)
        ax = self.view.axes[0]
        names = list(DIAGNOSTIC_NAMES)
        colour = {n: _COLOURS[g] for g, ns in DIAGNOSTIC_GROUPS.items() for n in ns}
        self.bars = dict(zip(names, ax.barh(range(len(names)), [0.0] * len(names),
                                            color=[colour[n] for n in names])))
        ax.set(yticks=range(len(names)), yticklabels=[_SHORT[n] for n in names], xlim=(0, 1.02),
               title="RAGChecker's metrics\nblue: whole answer, orange: retriever, green: generator")
        ax.tick_params(labelsize=8)
        ax.title.set_fontsize(9)
        ax.invert_yaxis()
        self.view.figure.tight_layout()
        self.view.animate(*self.bars.values())
        for t in self._all_toggles():
            t.observe(self._guard.request, names="value")
        legend = w.HTML(
            "Response claims: " + "; ".join(f"{i + 1}. {c}" for i, c in
                                            enumerate(example["response_claims"]))
            + "<br>Reference claims: " + "; ".join(f"{i + 1}. {c}" for i, c in
                                                   enumerate(example["reference_claims"]))
            + "<br>Click a verdict to flip it (green: entailed).")
        self.widget = w.VBox([legend, w.HBox([w.VBox(boxes[:2]), w.VBox(boxes[2:])]),
                              w.HBox([self.table, self.view.widget])])
        self.update()

    @staticmethod
    def _toggle(w, value, description, tooltip):
        return w.ToggleButton(value=value, description=description, tooltip=tooltip,
                              layout=w.Layout(width="56px"))

    def _all_toggles(self):
        for value in self.toggles.values():
            for item in value:
                yield from (item if isinstance(item, list) else [item])

    def tables(self):
        """The four tables as the toggles show them (lists of 0/1)."""
        out = {}
        for name, buttons in self.toggles.items():
            out[name] = [[int(b.value) for b in row] if isinstance(row, list) else int(row.value)
                         for row in buttons]
        return out

    def _describe(self):
        t = self.tables()
        return ", ".join(f"{k}={v}" for k, v in t.items())

    def figure_alt(self):
        """The figure's alt text: one bar per metric, with its value."""
        d = self.values
        parts = [f"{n.replace('_', ' ')} {spoken(getattr(d, n))}" for n in DIAGNOSTIC_NAMES]
        return ("Horizontal bar chart of RAGChecker's eleven metrics for the tables above: "
                + ", ".join(parts) + ".")

    def update(self):
        """Recompute from the toggles and redraw (the toggles' callback)."""
        for t in self._all_toggles():
            t.button_style = "success" if t.value else ""
        t = self.tables()
        d = claim_diagnostics(**t)
        self.values = d
        rows = []
        for group, names in DIAGNOSTIC_GROUPS.items():
            for n in names:
                rows.append([group, _SHORT[n], fmt(getattr(d, n))])
        self.table.value = html_table(["part", "metric", "value"], rows)
        for n in DIAGNOSTIC_NAMES:
            self.bars[n].set_width(getattr(d, n))
        self.view.refresh()


def claim_diagnostics_explorer(example=None):
    """Flip the verdicts of the four entailment tables and watch RAGChecker's metrics move.

    Parameters
    ----------
    example : dict, optional
        ``response_claims`` and ``reference_claims`` (lists of str),
        ``chunks`` (their names), and the four tables under
        :func:`~ragmetrics_edu.claim_diagnostics`'s keywords; default
        :data:`WORKED_EXAMPLE`, notebook 15's.

    Returns
    -------
    ClaimDiagnosticsExplorer
        Display it; drive it from Python through ``toggles`` and read
        ``values``.

    Examples
    --------
    >>> x = claim_diagnostics_explorer()
    >>> round(x.values.hallucination, 4), round(x.values.faithfulness, 4)
    (0.3333, 0.6667)
    >>> x.toggles["response_claims_supported"][2][1].value = True   # chunk 2 now states claim 3
    >>> round(x.values.hallucination, 4), round(x.values.noise_sensitivity_in_irrelevant, 4)
    (0.0, 0.6667)
    """
    example = dict(WORKED_EXAMPLE if example is None else example)
    for key in ("response_claims", "reference_claims", "chunks"):
        if key not in example:
            raise ValueError(f"example needs {key!r} (a list of str), got keys {sorted(example)}")
    claim_diagnostics(**{name: example[name] for name, *_ in _TABLES})   # checks the tables
    n, m = len(example["response_claims"]), len(example["reference_claims"])
    k = len(example["chunks"])
    if (len(example["response_claims_correct"]), len(example["reference_claims_covered"])) != (n, m) \
            or any(len(r) != k for r in example["response_claims_supported"]):
        raise ValueError(f"the tables must have one row per claim ({n} response, {m} reference) and "
                         f"one column per chunk ({k})")
    return ClaimDiagnosticsExplorer(example)
