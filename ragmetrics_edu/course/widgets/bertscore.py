"""The BERTScore heatmap of notebook 06: token similarities and greedy matches.

Rows are the candidate's word pieces, columns the reference's; a cell is the
cosine similarity of their contextual vectors.  BERTScore's precision takes
the maximum of every *row* (each candidate token's best partner, marked with
a square), its recall the maximum of every *column* (each reference token's
best partner, marked with a dot).

Two layers, as every widget of the package:

``heatmap_data(matches, show_special=False)``
    A pure function of a :class:`ragmetrics_edu.generation.semantic.TokenMatches`:
    the tokens and the part of the matrix to draw, the greedy matches in the
    drawn coordinates, each token's best similarity, and P, R, F1 as the
    library computed them.  Unit-tested on hand-made matrices.
``bertscore_heatmap(candidate, reference, ...)``
    Runs :func:`ragmetrics_edu.bertscore` (the real transformer) and draws
    the heatmap: an explorer with text boxes and a layer slider whose figure
    is updated in place, or, with ``interactive=False``, one matplotlib
    figure.  matplotlib and ipywidgets are imported when it is called.
"""

import html
from dataclasses import dataclass

import numpy as np

from ..._deprecation import formerly_positional
from ..._validation import check_layer
from ._common import Explorer, FigureView, require_widgets, spoken, spoken_list

__all__ = [
    "heatmap_data",
    "HeatmapData",
    "draw_heatmap",
    "matches_html",
    "heatmap_alt",
    "bertscore_heatmap",
    "BERTScoreHeatmap",
    "HeatmapFigure",
]

SPECIAL_TOKENS = ("[CLS]", "[SEP]")
"""Word pieces the tokenizer adds around every text: they weigh 0 in the
scores but can be a token's best match."""


@dataclass(frozen=True)
class HeatmapData:
    """What the heatmap draws, for one candidate-reference pair.

    Attributes
    ----------
    candidate_tokens, reference_tokens : tuple of str
        The word pieces drawn (rows and columns).
    similarity : numpy.ndarray
        The drawn part of the cosine-similarity matrix, rows for candidate
        tokens.
    candidate_match : tuple of int
        For each drawn candidate token, the column of its greedy match (the
        maximum of its row over *all* reference tokens), or -1 when that
        match is a special token that is not drawn.
    reference_match : tuple of int
        For each drawn reference token, the row of its greedy match, or -1.
    candidate_best, reference_best : tuple of float
        Each drawn token's best similarity, floored at 0 when the pair was
        scored with ``clip_at_zero`` (bert-score's practice): the values
        averaged into precision and recall (``[CLS]``/``[SEP]`` weigh 0).
    candidate_weights, reference_weights : tuple of float
        The weight of each drawn token (1, its IDF, or 0 for special tokens).
    precision, recall, f1 : float
        The pair's raw scores, as :func:`ragmetrics_edu.bertscore` computed
        them.
    """

    candidate_tokens: tuple
    reference_tokens: tuple
    similarity: np.ndarray
    candidate_match: tuple
    reference_match: tuple
    candidate_best: tuple
    reference_best: tuple
    candidate_weights: tuple
    reference_weights: tuple
    precision: float
    recall: float
    f1: float


def _kept(tokens, show_special):
    """Indices of the tokens to draw: all, or all but the special tokens."""
    if show_special:
        return list(range(len(tokens)))
    return [i for i, t in enumerate(tokens) if t not in SPECIAL_TOKENS]


def heatmap_data(matches, show_special=False):
    """Select what the heatmap draws from a pair's token matches (pure).

    Parameters
    ----------
    matches : ragmetrics_edu.generation.semantic.TokenMatches
        One pair, e.g. ``rm.bertscore(c, r).matches(0)``.
    show_special : bool, default False
        Draw ``[CLS]`` and ``[SEP]`` too.  Hidden by default (as bert-score's
        own plot does); a token whose best match is a hidden special token
        then has match -1.

    Returns
    -------
    HeatmapData

    Notes
    -----
    The matches are BERTScore's, over the whole matrix: hiding the special
    tokens never moves a marker to a cell that is not the row's (or the
    column's) maximum.

    Examples
    --------
    >>> from ragmetrics_edu.generation.semantic import TokenMatches
    >>> m = TokenMatches(["[CLS]", "a", "b", "[SEP]"], ["[CLS]", "x", "[SEP]"],
    ...                  np.array([[1.0, 0.1, 0.2], [0.1, 0.9, 0.3],
    ...                            [0.2, 0.4, 0.6], [0.3, 0.5, 1.0]]),
    ...                  np.array([0.0, 1, 1, 0]), np.array([0.0, 1, 0]))
    >>> d = heatmap_data(m)
    >>> d.candidate_tokens, d.reference_tokens, d.candidate_match, d.reference_match
    (('a', 'b'), ('x',), (0, -1), (0,))
    >>> d.candidate_best, round(d.precision, 4)    # (0.9 + 0.6) / 2
    ((0.9, 0.6), 0.75)
    """
    rows = _kept(matches.candidate_tokens, show_special)
    cols = _kept(matches.reference_tokens, show_special)
    row_pos = {r: k for k, r in enumerate(rows)}
    col_pos = {c: k for k, c in enumerate(cols)}
    sim = np.asarray(matches.similarity, dtype=np.float64)
    c2r = [int(j) for j in matches.candidate_to_reference]
    r2c = [int(i) for i in matches.reference_to_candidate]
    floor = 0.0 if getattr(matches, "clip_at_zero", False) else -np.inf
    return HeatmapData(
        candidate_tokens=tuple(matches.candidate_tokens[i] for i in rows),
        reference_tokens=tuple(matches.reference_tokens[j] for j in cols),
        similarity=sim[np.ix_(rows, cols)],
        candidate_match=tuple(col_pos.get(c2r[i], -1) for i in rows),
        reference_match=tuple(row_pos.get(r2c[j], -1) for j in cols),
        candidate_best=tuple(float(max(sim[i, c2r[i]], floor)) for i in rows),
        reference_best=tuple(float(max(sim[r2c[j], j], floor)) for j in cols),
        candidate_weights=tuple(float(matches.candidate_weights[i]) for i in rows),
        reference_weights=tuple(float(matches.reference_weights[j]) for j in cols),
        precision=float(matches.precision),
        recall=float(matches.recall),
        f1=float(matches.f1),
    )


def _partner(tokens, index, special_hint):
    return tokens[index] if index >= 0 else special_hint


def matches_html(data):
    """The greedy matches as two HTML tables (precision side, recall side).

    Every score sits in a ``<td data-key="...">`` cell (``precision``,
    ``recall``, ``f1``), so tests and readers find it.

    Parameters
    ----------
    data : HeatmapData

    Returns
    -------
    str
    """
    td = "padding:2px 8px;border-bottom:1px solid #ddd"
    style = "border-collapse:collapse;font-family:monospace;font-size:12px;margin:4px"

    def side(title, tokens, match, best, weights, others):
        rows = [f'<table style="{style}"><caption style="text-align:left">'
                f"<b>{title}</b></caption>"]
        for tok, j, s, w in zip(tokens, match, best, weights):
            grey = "color:#999;" if w == 0 else ""
            rows.append(f'<tr style="{grey}"><td style="{td}">{html.escape(tok)}</td>'
                        f'<td style="{td}">&rarr; {html.escape(_partner(others, j, "[CLS]/[SEP]"))}'
                        f'</td><td style="{td};text-align:right">{s:.4f}</td></tr>')
        rows.append("</table>")
        return "".join(rows)

    scores = (f'<table style="{style}"><tr>'
              f'<td style="{td}">precision</td><td data-key="precision" style="{td}">'
              f"{data.precision:.4f}</td>"
              f'<td style="{td}">recall</td><td data-key="recall" style="{td}">'
              f"{data.recall:.4f}</td>"
              f'<td style="{td}">F1</td><td data-key="f1" style="{td}">{data.f1:.4f}</td>'
              "</tr></table>")
    left = side("candidate token &rarr; best reference token (precision)",
                data.candidate_tokens, data.candidate_match, data.candidate_best,
                data.candidate_weights, data.reference_tokens)
    right = side("reference token &rarr; best candidate token (recall)",
                 data.reference_tokens, data.reference_match, data.reference_best,
                 data.reference_weights, data.candidate_tokens)
    return (scores + '<div style="display:flex;flex-wrap:wrap;gap:12px">' + left + right
            + "</div>")


# ---------------------------------------------------------------------------
# drawing
# ---------------------------------------------------------------------------

_VMIN, _VMAX = 0.0, 1.0


class _Artists:
    """The artists of one heatmap, created once and then updated."""

    def __init__(self, ax, colorbar_ax=None):
        self.ax = ax
        self.image = ax.imshow(np.zeros((1, 1)), cmap="Blues", vmin=_VMIN, vmax=_VMAX,
                               aspect="auto", interpolation="nearest")
        self.rows = ax.scatter([], [], marker="s", s=180, facecolors="none",
                               edgecolors="#d62728", linewidths=1.8,
                               label="candidate token's best match (precision)")
        self.cols = ax.scatter([], [], marker="o", s=30, color="#ff7f0e",
                               label="reference token's best match (recall)")
        figure = ax.figure
        self.colorbar = figure.colorbar(self.image, ax=ax if colorbar_ax is None else None,
                                        cax=colorbar_ax, fraction=0.04, pad=0.02)
        self.colorbar.set_label("cosine similarity")
        # the scores are the legend's title: one artist, updated in place
        self.legend = ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.02), ncol=1,
                                fontsize=8, title_fontsize=9, frameon=False, title=" ")

    def update(self, data, title):
        ax = self.ax
        m, n = data.similarity.shape
        self.image.set_data(np.clip(data.similarity, _VMIN, _VMAX) if data.similarity.size
                            else np.zeros((1, 1)))
        self.image.set_extent((-0.5, max(n, 1) - 0.5, max(m, 1) - 0.5, -0.5))
        rows = [(j, i) for i, j in enumerate(data.candidate_match) if j >= 0]
        cols = [(j, i) for j, i in enumerate(data.reference_match) if i >= 0]
        self.rows.set_offsets(np.array(rows, dtype=float).reshape(-1, 2))
        self.cols.set_offsets(np.array(cols, dtype=float).reshape(-1, 2))
        ax.set_xticks(range(n))
        ax.set_xticklabels(data.reference_tokens, rotation=45, ha="left")
        ax.set_yticks(range(m))
        ax.set_yticklabels(data.candidate_tokens)
        ax.xaxis.tick_top()
        ax.set_xlim(-0.5, max(n, 1) - 0.5)
        ax.set_ylim(max(m, 1) - 0.5, -0.5)
        ax.set_xlabel("reference")
        ax.set_ylabel("candidate")
        ax.xaxis.set_label_position("top")
        self.legend.set_title(title)


def _title(data, signature):
    return (f"P = {data.precision:.4f}   R = {data.recall:.4f}   F1 = {data.f1:.4f}"
            f"\n{signature}")


@formerly_positional("title")
def draw_heatmap(data, ax=None, *, title=""):
    """Draw a :class:`HeatmapData` on a matplotlib axes; return the axes.

    Parameters
    ----------
    data : HeatmapData
    ax : matplotlib.axes.Axes, optional
        Where to draw; default the axes of a new figure sized to the tokens.
        That figure is not registered with pyplot: it is never shown or kept
        by ``plt`` behind your back (save it with ``ax.figure.savefig``).
    title : str, optional
        Written under the heatmap, above the legend.

    Returns
    -------
    matplotlib.axes.Axes
    """
    if ax is None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        m, n = data.similarity.shape
        figure = Figure(figsize=(max(5.0, 0.7 * n + 3.0), max(3.5, 0.45 * m + 2.8)))
        FigureCanvasAgg(figure)
        ax = figure.subplots()
    artists = _Artists(ax)
    artists.update(data, title)
    ax.figure.tight_layout()
    return ax


class HeatmapFigure:
    """A drawn heatmap: displays as a PNG in a notebook, without a figure repr.

    Attributes
    ----------
    figure : matplotlib.figure.Figure
        The figure (``figure.savefig(...)`` to keep it).
    values : HeatmapData
        What it draws.
    result : ragmetrics_edu.generation.semantic.BERTScoreResult
        The scores it came from.
    """

    def __init__(self, figure, values, result, candidate, reference):
        self.figure, self.values, self.result = figure, values, result
        self._texts = (candidate, reference)

    def __repr__(self):
        c, r = self._texts
        return (f"HeatmapFigure(candidate={c!r}, reference={r!r}, "
                f"model={self.result.model!r}, layer={self.result.layer})")

    def _repr_png_(self):
        import io

        buf = io.BytesIO()
        self.figure.savefig(buf, format="png", dpi=80)
        return buf.getvalue()


def heatmap_alt(data, result):
    """The alt text of a heatmap: its tokens, the best match of each candidate token, the scores.

    Parameters
    ----------
    data : HeatmapData
        What the heatmap draws.
    result : ragmetrics_edu.generation.semantic.BERTScoreResult
        The scores it came from (for the model and the layer).

    Returns
    -------
    str
    """
    matches = [
        f'"{token}" matches "{data.reference_tokens[j] if j >= 0 else "[CLS]/[SEP]"}" '
        f"at {spoken(best)}"
        for token, j, best in zip(data.candidate_tokens, data.candidate_match,
                                  data.candidate_best)]
    return (f"Heatmap of the cosine similarity between the candidate's tokens (rows: "
            f"{', '.join(data.candidate_tokens)}) and the reference's tokens (columns: "
            f"{', '.join(data.reference_tokens)}), layer {result.layer} of {result.model}. "
            f"Squares mark each candidate token's best match: {spoken_list(matches)}. "
            f"Precision {spoken(data.precision)}, recall {spoken(data.recall)}, "
            f"F1 {spoken(data.f1)}.")


def _signature(result):
    return (f"{result.model}, layer {result.layer}, idf {'yes' if result.idf else 'no'}, "
            f"raw (not rescaled)")


# ---------------------------------------------------------------------------
# the widget
# ---------------------------------------------------------------------------

class BERTScoreHeatmap(Explorer):
    """Text boxes, a layer slider, the heatmap and the table of matches.

    Attributes
    ----------
    candidate, reference : ipywidgets.Text
        The texts; update on Enter or when the box loses focus.
    layer : ipywidgets.IntSlider
        The hidden layer (0 = the embedding layer, no context).
    show_special : ipywidgets.Checkbox
        Draw ``[CLS]`` and ``[SEP]``.
    table : ipywidgets.HTML
        P, R, F1 and each token's best match (:func:`matches_html`).
    view : ragmetrics_edu.course.widgets._common.FigureView
        The figure; ``artists.image`` is the ``AxesImage`` (updated with
        ``set_data``), ``artists.rows`` and ``artists.cols`` the markers; its
        alt text (:func:`heatmap_alt`) names the tokens, each candidate
        token's best match and the three scores.
    values : HeatmapData
        What is drawn now.
    result : ragmetrics_edu.generation.semantic.BERTScoreResult
        The last result of :func:`ragmetrics_edu.bertscore`.
    widget : ipywidgets.VBox
        The layout (what the notebook displays).
    """

    @formerly_positional("model", "layer", "idf")
    def __init__(self, candidate, reference, *, model, layer, idf):
        w = require_widgets()
        from ...models.loading import num_layers

        self._model = model
        self._idf = idf
        style = {"description_width": "initial"}
        wide = w.Layout(width="95%")
        self.candidate = w.Text(value=candidate, description="candidate",
                                continuous_update=False, layout=wide, style=style)
        self.reference = w.Text(value=reference, description="reference",
                                continuous_update=False, layout=wide, style=style)
        top = num_layers(model)
        self.layer = w.IntSlider(value=top if layer is None else layer, min=0, max=top,
                                 description="layer", continuous_update=False)
        self.show_special = w.Checkbox(value=False, description="show [CLS] and [SEP]")
        self.table = w.HTML()
        self.view = FigureView(figsize=(6.4, 4.4), alt=self.figure_alt)
        self.artists = _Artists(self.view.axes[0])
        for control in (self.candidate, self.reference, self.layer, self.show_special):
            control.observe(self.update, names="value")
        self.widget = w.VBox([
            w.HTML("Edit a text and press Enter; the layer slider picks which hidden "
                   "layer gives the token vectors (0: the embeddings, no context)."),
            self.candidate, self.reference, w.HBox([self.layer, self.show_special]),
            w.HBox([self.view.widget, self.table]),
        ])
        self.values = None
        self.result = None
        self.update()

    def _describe(self):
        return (f"candidate={self.candidate.value!r}, reference={self.reference.value!r}, "
                f"layer={self.layer.value}")

    def figure_alt(self):
        """The figure's alt text (:func:`heatmap_alt` of what is drawn now)."""
        return heatmap_alt(self.values, self.result)

    def update(self, _change=None):
        """Recompute with the transformer and redraw (the controls' callback)."""
        import ragmetrics_edu as rm

        if not self.candidate.value.strip() or not self.reference.value.strip():
            self.table.value = "<i>Type a candidate and a reference.</i>"
            return
        self.result = rm.bertscore(self.candidate.value, self.reference.value,
                                   model=self._model, layer=self.layer.value, idf=self._idf)
        self.values = heatmap_data(self.result.matches(0), self.show_special.value)
        self.table.value = matches_html(self.values)
        self.artists.update(self.values, _title(self.values, _signature(self.result)))
        self.view.figure.tight_layout()
        self.view.refresh()


@formerly_positional("model", "layer", "idf", "interactive", "show_special")
def bertscore_heatmap(candidate="The aircraft landed safely.",
                      reference="The plane touched down safely.",
                      *, model=None, layer=None, idf=False, interactive=True,
                      show_special=False):
    """Draw BERTScore's token-similarity heatmap with the greedy matches marked.

    Parameters
    ----------
    candidate : str
        The generated text.
    reference : str
        The reference text.
    model : str or os.PathLike, optional
        Model folder or hub name; default the shipped all-MiniLM-L6-v2.
    layer : int, optional
        Hidden layer of the token vectors; default the last.
    idf : bool, default False
        Weight tokens by IDF.  With one reference every IDF is 0 and recall
        is undefined, so this is mostly useful with ``interactive=False`` on
        a pair taken from a larger set (see :func:`ragmetrics_edu.bertscore`).
    interactive : bool, default True
        Return an explorer (text boxes, layer slider, heatmap updated in
        place).  ``False`` draws one figure and returns it wrapped in a
        :class:`HeatmapFigure`, which a notebook shows as a picture.
    show_special : bool, default False
        Draw ``[CLS]`` and ``[SEP]`` (only with ``interactive=False``; the
        explorer has a checkbox).

    Returns
    -------
    BERTScoreHeatmap or HeatmapFigure
        The explorer: drive it through ``candidate``, ``reference``,
        ``layer`` and ``show_special`` and read ``values`` (a
        :class:`HeatmapData`).  Or the static picture, whose ``figure`` is
        the matplotlib figure.

    Examples
    --------
    >>> w = bertscore_heatmap()                         # doctest: +SKIP
    >>> w.reference.value = "The jet landed safely."    # doctest: +SKIP
    >>> round(w.values.precision, 4)                    # doctest: +SKIP
    """
    for name, text in (("candidate", candidate), ("reference", reference)):
        if not isinstance(text, str):
            raise TypeError(f"{name} must be a string, got {text!r}")
    if layer is not None:
        from ...models.loading import num_layers

        layer = check_layer(layer, num_layers(model))
    if interactive:
        return BERTScoreHeatmap(candidate, reference, model=model, layer=layer, idf=idf)
    import ragmetrics_edu as rm

    result = rm.bertscore(candidate, reference, model=model, layer=layer, idf=idf)
    data = heatmap_data(result.matches(0), show_special)
    ax = draw_heatmap(data, title=_title(data, _signature(result)))
    return HeatmapFigure(ax.figure, data, result, candidate, reference)
