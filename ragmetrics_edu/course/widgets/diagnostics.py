"""Widget of notebook 15: the four entailment tables as toggles, RAGChecker's eleven metrics live.

The computation is :func:`ragmetrics_edu.claim_diagnostics` itself (tested
against ragchecker); :func:`claim_diagnostics_explorer` lays the four
tables out as two grids of yes/no buttons, one row per claim (the
response's claims, then the reference's), one column for the claim's
verdict against the other answer and one per chunk, each column headed by
its question; and it redraws a bar per metric, grouped as RAGChecker
groups them (the whole pipeline, the retriever, the generator), the
lower-is-better ones marked, each time a verdict is clicked.
"""

import html

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
    ("response_claims_correct", "response", None),
    ("reference_claims_covered", "reference", None),
    ("response_claims_supported", "response", "chunks"),
    ("reference_claims_retrieved", "reference", "chunks"),
)

#: The two grids: whose claims are the rows, the one-column table and its header, the
#: claim-by-chunk table, and the grid's title (what a "yes" means in each column).
_GRIDS = (
    ("response", "response_claims_correct", "correct?", "response_claims_supported",
     "The response's claims", "correct? the reference states it; in chunk k? chunk k supports it"),
    ("reference", "reference_claims_covered", "covered?", "reference_claims_retrieved",
     "The reference's claims", "covered? the response states it; in chunk k? chunk k states it"),
)

_SHORT = {"precision": "precision", "recall": "recall", "f1": "F1", "claim_recall": "claim recall",
          "context_precision": "context precision", "context_utilization": "context utilization",
          "noise_sensitivity_in_relevant": "noise sens. (relevant)",
          "noise_sensitivity_in_irrelevant": "noise sens. (irrelevant)",
          "hallucination": "hallucination", "self_knowledge": "self-knowledge",
          "faithfulness": "faithfulness"}
_COLOURS = {"overall": "tab:blue", "retriever": "tab:orange", "generator": "tab:green"}

#: The metrics a fix should lower (RAGChecker's noise sensitivities and hallucination).
LOWER_IS_BETTER = ("noise_sensitivity_in_relevant", "noise_sensitivity_in_irrelevant",
                   "hallucination")
_DOWN = "\N{DOWNWARDS ARROW}"

_LABEL_WIDTH = "17em"   # a claim's text, one line
_CELL_WIDTH = "6.2em"   # a yes/no button, and the header above it


def _label(name):
    """A metric's short name, with the arrow when lower is better."""
    return _SHORT[name] + (f" {_DOWN}" if name in LOWER_IS_BETTER else "")


class ClaimDiagnosticsExplorer(Explorer):
    """Yes/no buttons for every verdict of the four tables, and the eleven metrics.

    Attributes
    ----------
    toggles : dict of str to list
        For each table (``"response_claims_correct"``, ...), its buttons:
        a list of ToggleButtons for the two one-verdict-per-claim tables, a
        list of rows of them for the two claim-by-chunk tables.
        ``value=True`` means "entailed"; a button reads "yes" or "no".
    table : ipywidgets.HTML
        The eleven metrics, by group.
    view : FigureView
        One horizontal bar per metric (``bars[name]``), redrawn in place;
        the lower-is-better bars are hatched and their labels carry an arrow.
    values : ClaimDiagnostics
        The last result of :func:`~ragmetrics_edu.claim_diagnostics`.
    widget : ipywidgets.VBox
    """

    def __init__(self, example):
        w = require_widgets()
        self._guard = UpdateGuard(self.update)
        self.example = example
        self.toggles = {}
        chunks = example["chunks"]
        for name, rows_of, columns in _TABLES:
            claims = example[f"{rows_of}_claims"]
            value = example[name]
            if columns is None:
                self.toggles[name] = [self._toggle(w, bool(v), f"{rows_of} claim {i + 1}: {claims[i]}")
                                      for i, v in enumerate(value)]
            else:
                self.toggles[name] = [[self._toggle(w, bool(v), f"{rows_of} claim {i + 1}: {claims[i]} "
                                                                f"/ {chunks[k]}")
                                       for k, v in enumerate(r)] for i, r in enumerate(value)]
        grids = [self._grid(w, *spec) for spec in _GRIDS]
        self.table = w.HTML()
        self.view = FigureView(figsize=(5.6, 3.8), alt=self.figure_alt)
        ax = self.view.axes[0]
        names = list(DIAGNOSTIC_NAMES)
        colour = {n: _COLOURS[g] for g, ns in DIAGNOSTIC_GROUPS.items() for n in ns}
        self.bars = dict(zip(names, ax.barh(range(len(names)), [0.0] * len(names),
                                            color=[colour[n] for n in names])))
        for n in LOWER_IS_BETTER:
            self.bars[n].set_hatch("///")
            self.bars[n].set_edgecolor("white")
        ax.set(yticks=range(len(names)), yticklabels=[_label(n) for n in names], xlim=(0, 1.02),
               title=f"RAGChecker's metrics ({_DOWN}, hatched: lower is better)\n"
                     "blue: whole answer, orange: retriever, green: generator")
        ax.tick_params(labelsize=8)
        ax.title.set_fontsize(9)
        ax.invert_yaxis()
        self.view.figure.tight_layout()
        self.view.animate(*self.bars.values())
        for t in self._all_toggles():
            t.observe(self._guard.request, names="value")
        legend = w.HTML("Click a verdict to flip it (green <i>yes</i>: entailed). One row per claim; "
                        "hover over a button for its claim and chunk.")
        self.widget = w.VBox([legend, w.HBox([w.VBox(grids), w.VBox([self.view.widget, self.table])])])
        self.update()

    def _grid(self, w, rows_of, one, header, by_chunk, title, key):
        """One grid: a row per claim, the one-verdict column, then a column per chunk."""
        def cell(text, width, tooltip=None, align="center"):
            tip = f' title="{html.escape(tooltip)}"' if tooltip else ""
            return w.HTML(f'<div{tip} style="white-space:nowrap;overflow:hidden;'
                          f'text-overflow:ellipsis;text-align:{align}">{html.escape(text)}</div>',
                          layout=w.Layout(width=width))

        claims = self.example[f"{rows_of}_claims"]
        head = w.HBox([cell("", _LABEL_WIDTH), cell(header, _CELL_WIDTH)]
                      + [cell(f"in {c}?", _CELL_WIDTH) for c in self.example["chunks"]])
        rows = [w.HBox([cell(f"{i + 1}. {text}", _LABEL_WIDTH, tooltip=text, align="left"),
                        self.toggles[one][i]] + self.toggles[by_chunk][i])
                for i, text in enumerate(claims)]
        caption = w.HTML(f"<b>{html.escape(title)}</b><br><small>{html.escape(key)}</small>")
        return w.VBox([caption, head] + rows)

    @staticmethod
    def _toggle(w, value, tooltip):
        return w.ToggleButton(value=value, description="yes" if value else "no", tooltip=tooltip,
                              layout=w.Layout(width=_CELL_WIDTH))

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
        parts = [f"{n.replace('_', ' ')} {spoken(getattr(d, n))}"
                 + (" (lower is better)" if n in LOWER_IS_BETTER else "") for n in DIAGNOSTIC_NAMES]
        return ("Horizontal bar chart of RAGChecker's eleven metrics for the tables above: "
                + ", ".join(parts) + ".")

    def update(self):
        """Recompute from the toggles and redraw (the toggles' callback)."""
        for t in self._all_toggles():
            t.button_style = "success" if t.value else ""
            t.description = "yes" if t.value else "no"
        t = self.tables()
        d = claim_diagnostics(**t)
        self.values = d
        rows = []
        for group, names in DIAGNOSTIC_GROUPS.items():
            for n in names:
                rows.append([group, _label(n), fmt(getattr(d, n))])
        self.table.value = html_table(["part", "metric", "value"], rows,
                                      caption=f"{_DOWN} lower is better")
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
    >>> x.toggles["response_claims_supported"][2][1].description
    'yes'
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
