"""What every widget of :mod:`ragmetrics_edu.course.widgets` shares.

* :func:`require_widgets` imports ipywidgets at first use, with a clear
  message when it is missing.
* :class:`FigureView` owns one matplotlib figure for the whole life of a
  widget.  Callbacks update its artists (``set_ydata``, ``set_height``) and
  call :meth:`FigureView.refresh`:

  - with matplotlib's inline backend (the default in JupyterLab 4 and
    Notebook 7) the figure is rendered to PNG and shown by an ``HTML``
    widget as ``<img src="data:image/png;base64,..." alt="...">``.  The
    ``alt`` text says what the figure shows, with its current numbers (a
    screen reader reads it; the course site's accessibility audit requires
    it), and is written anew at every refresh.  The image travels as a
    widget message, not as a cell output, so nothing lands in the cell's
    output when nbval runs the notebook, and no callback prints.  An HTML
    widget draws its value the same way in JupyterLab, on Colab
    (ipywidgets 7), in Voila and from the state saved in a notebook (the
    course site); ipywidgets' ``Image`` would carry no ``alt``;
  - with ipympl (``%matplotlib widget``) the figure's canvas is itself a
    widget placed in the layout, and a refresh is ``draw_idle()``.

* :func:`grade_sliders` builds the row of vertical grade sliders, one per
  rank, of the widgets where a student sets the grades of a ranking.
* :class:`Explorer` is the object a widget constructor returns: it holds
  the controls as named attributes, the last computed numbers in
  ``.values``, and displays as its ipywidgets layout.  Its plain-text
  representation names the explorer and its inputs, so the text a notebook
  saves for it is the same on every run.
"""

import base64
import html
import io

from ..._deprecation import formerly_positional

FIGURE_DPI = 72
"""Resolution of the rendered figures (kept low so an update stays fast)."""


def require_widgets():
    """Import and return :mod:`ipywidgets`, or raise an ImportError saying how to get it."""
    try:
        import ipywidgets
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "the widgets need ipywidgets (7.6 or later) and matplotlib: "
            "pip install 'ragmetrics-edu[notebooks]'"
        ) from exc
    return ipywidgets


def _ipympl_active():
    import matplotlib

    # Without resolving an unset backend (get_backend() would import pyplot).
    getter = getattr(matplotlib.rcParams, "_get_backend_or_none", None)
    backend = (getter() if getter else matplotlib.rcParams["backend"]) or ""
    backend = backend.lower()
    return "ipympl" in backend or backend.endswith("widget")


class FigureView:
    """One figure, shown in a notebook and redrawn in place, with its alt text.

    Parameters
    ----------
    figsize : tuple of float
        Width and height in inches.
    ncols : int
        Number of side-by-side axes.
    alt : str or callable, optional
        The text alternative of the figure: what it shows, with the numbers
        it shows now (a screen reader reads it in place of the image).  A
        callable is called with no argument at every :meth:`refresh`, after
        the widget has updated its artists, and returns that text.  Default:
        the axes' titles.

    Attributes
    ----------
    figure : matplotlib.figure.Figure
    axes : list of matplotlib.axes.Axes
    widget : ipywidgets.HTML
        What a layout places: ``<img src="data:image/png;base64,..." alt="...">``
        (with ipympl, the figure's canvas instead).
    alt_text : str
        The alt text of the image shown now (set by :meth:`refresh`).
    n_renders : int
        Refreshes so far.

    Examples
    --------
    >>> view = FigureView(figsize=(2, 1), alt="A line rising from 0 to 1.")
    >>> _ = view.axes[0].plot([0, 1])
    >>> view.refresh()
    >>> view.alt_text
    'A line rising from 0 to 1.'
    >>> view.widget.value.startswith('<img src="data:image/png;base64,')
    True
    """

    @formerly_positional("alt")
    def __init__(self, figsize=(6.4, 3.2), ncols=1, *, alt=None):
        widgets = require_widgets()
        if alt is not None and not (isinstance(alt, str) or callable(alt)):
            raise TypeError(f"alt must be a string or a callable returning one, got {alt!r}")
        self.alt = alt
        self.alt_text = ""
        if _ipympl_active():  # pragma: no cover - ipympl is optional
            import matplotlib.pyplot as plt

            with plt.ioff():
                self.figure = plt.figure(figsize=figsize, dpi=FIGURE_DPI)
            self.widget = self.figure.canvas
            self._interactive = True
        else:
            from matplotlib.backends.backend_agg import FigureCanvasAgg
            from matplotlib.figure import Figure

            # Not created through pyplot: the inline backend does not show it
            # at the end of the cell, and no "<Figure size ...>" is printed.
            self.figure = Figure(figsize=figsize, dpi=FIGURE_DPI)
            FigureCanvasAgg(self.figure)
            self.widget = widgets.HTML()
            self._interactive = False
        axes = self.figure.subplots(1, ncols)
        self.axes = list(axes) if ncols > 1 else [axes]
        self.n_renders = 0
        self._dynamic = []
        self._background = None

    def animate(self, *artists):
        """Mark the artists that updates change; the rest is drawn once and reused.

        A full Agg draw is mostly text (ticks, labels, legend).  The static
        part is rendered once and kept as a bitmap; an update restores it and
        draws only these artists on top (blitting).  Call :meth:`invalidate`
        after changing anything static (axis limits, labels).  Without a call
        to ``animate`` every refresh draws the whole figure.
        """
        for artist in artists:
            if not self._interactive:
                artist.set_animated(True)
            self._dynamic.append(artist)

    def invalidate(self):
        """Forget the cached static bitmap (after axis limits or labels change)."""
        self._background = None

    def draw(self):
        """Render the whole figure with Agg, static and dynamic parts (no cache)."""
        self.invalidate()
        self._render()

    def _render(self):
        canvas = self.figure.canvas
        if not self._dynamic:  # nothing marked by animate(): draw it all, every time
            canvas.draw()
            return
        if self._background is None:
            canvas.draw()  # draws everything but the animated artists
            self._background = canvas.copy_from_bbox(self.figure.bbox)
        else:
            canvas.restore_region(self._background)
        for artist in self._dynamic:
            self.figure.draw_artist(artist)

    def png(self):
        """The figure's current state as PNG bytes (cached static part, fast encoding)."""
        from PIL import Image

        self._render()
        canvas = self.figure.canvas
        width, height = canvas.get_width_height(physical=True)
        image = Image.frombuffer("RGBA", (width, height), canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
        buf = io.BytesIO()
        image.save(buf, format="png", compress_level=1)
        return buf.getvalue()

    def describe(self):
        """The alt text for the figure as it is now (``alt``, called if callable).

        Raises
        ------
        ValueError
            If ``alt`` is or returns an empty text, or returns something else
            than a string.
        """
        alt = self.alt() if callable(self.alt) else self.alt
        if alt is None:
            titles = [ax.get_title() for ax in self.figure.axes if ax.get_title()]
            alt = "A figure: " + "; ".join(titles) if titles else "A figure."
        if not isinstance(alt, str) or not alt.strip():
            raise ValueError(f"alt must give a non-empty text, got {alt!r}")
        return alt.strip()

    def img_html(self):
        """The figure's current state as an HTML ``<img>`` with its PNG inline and its alt text."""
        width, height = self.figure.canvas.get_width_height()
        data = base64.b64encode(self.png()).decode("ascii")
        return (f'<img src="data:image/png;base64,{data}" alt="{html.escape(self.alt_text)}" '
                f'width="{width}" height="{height}" '
                'style="display:block;max-width:100%;height:auto">')

    def refresh(self):
        """Show the figure's current state (after its artists were updated)."""
        self.n_renders += 1
        self.alt_text = self.describe()
        if self._interactive:  # pragma: no cover - ipympl is optional
            self.figure.canvas.draw_idle()
            return
        self.widget.value = self.img_html()


class Explorer:
    """Base of the objects returned by the widget constructors, and of your own.

    Subclasses build ``self.widget`` (the ipywidgets layout), compute the
    numbers in ``update`` and describe their state in ``_describe`` (the
    text shown where widgets cannot be, and by ``repr``).  Displaying one
    works on ipywidgets 7 (Colab's) and 8 alike.

    Examples
    --------
    >>> import ipywidgets as widgets
    >>> class Doubler(Explorer):
    ...     def __init__(self, x):
    ...         self.slider = widgets.IntSlider(value=x, description="x")
    ...         self.out = widgets.HTML()
    ...         self.slider.observe(self.update, names="value")
    ...         self.widget = widgets.VBox([self.slider, self.out])
    ...         self.update()
    ...     def update(self, _change=None):
    ...         self.out.value = f"2x = {2 * self.slider.value}"
    ...     def _describe(self):
    ...         return f"x={self.slider.value}"
    >>> d = Doubler(3)
    >>> d.slider.value = 5
    >>> d.out.value, d
    ('2x = 10', Doubler(x=5))
    """

    widget = None
    values = None

    def _describe(self):  # pragma: no cover - overridden
        return ""

    def __repr__(self):
        return f"{type(self).__name__}({self._describe()})"

    def _repr_mimebundle_(self, **kwargs):
        own = getattr(self.widget, "_repr_mimebundle_", None)
        if own is not None:  # ipywidgets 8
            bundle = own(**kwargs)
        else:  # ipywidgets 7 (Colab's): what its Widget._ipython_display_ publishes
            bundle = {"application/vnd.jupyter.widget-view+json": {
                "version_major": 2, "version_minor": 0, "model_id": self.widget.model_id}}
        bundle["text/plain"] = repr(self)
        return bundle


def grade_sliders(rels, max_grade, *, height="160px"):
    """One vertical grade slider per rank (0 to ``max_grade``), described by its rank.

    Parameters
    ----------
    rels : sequence of int
        The starting grade of the document at each rank.
    max_grade : int
        The highest grade a slider offers.
    height : str, default "160px"
        The CSS height of each slider.

    Returns
    -------
    list of ipywidgets.IntSlider
        Sliders ``"1"``, ``"2"``, ... with ``continuous_update=False``.

    Examples
    --------
    >>> sliders = grade_sliders([2, 0, 3], max_grade=4)
    >>> [(s.description, s.value, s.max) for s in sliders]
    [('1', 2, 4), ('2', 0, 4), ('3', 3, 4)]
    """
    w = require_widgets()
    return [w.IntSlider(value=int(g), min=0, max=max_grade, description=str(i + 1),
                        orientation="vertical", continuous_update=False,
                        layout=w.Layout(width="48px", height=height))
            for i, g in enumerate(rels)]


def fmt(x, digits=4):
    """A number for a table: integers plain, others rounded (``0.6667``).

    Parameters
    ----------
    x : float
        The number (anything ``float()`` reads).
    digits : int, default 4
        Decimals kept for a number that is not a whole one.
    """
    x = float(x)
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return f"{x:.{digits}f}"


def spoken(x, digits=2):
    """A number for an alt text: rounded, no trailing zeros (``0.67``, ``0.5``, ``1``).

    Parameters
    ----------
    x : float
        The number (anything ``float()`` reads).
    digits : int, default 2
        Decimals at most.

    Examples
    --------
    >>> spoken(2 / 3), spoken(0.5), spoken(1.0), spoken(0.004)
    ('0.67', '0.5', '1', '0')
    """
    text = f"{float(x):.{digits}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def spoken_list(items):
    """Items joined as in a sentence: ``a``, ``a and b``, ``a, b and c``.

    Examples
    --------
    >>> spoken_list(["P"]), spoken_list(["P", "R"]), spoken_list(["P", "R", "F1"])
    ('P', 'P and R', 'P, R and F1')
    """
    items = [str(i) for i in items]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


@formerly_positional("highlight", "caption")
def html_table(header, rows, *, highlight=None, caption=None):
    """A small HTML table; row number ``highlight`` (0-based) is shaded.

    Parameters
    ----------
    header : sequence of str
        The column headings.
    rows : sequence of sequence
        The cells, row by row (put in the HTML as they are: format numbers with
        :func:`fmt` first).
    highlight : int or None, default None
        The row to shade; None shades none.
    caption : str or None, default None
        A caption above the table; None (or "") for none.
    """
    style = "border-collapse:collapse;font-family:monospace;font-size:12px"
    cell = "padding:2px 8px;border-bottom:1px solid #ddd;text-align:right"
    parts = [f'<table style="{style}">']
    if caption:
        parts.append(f'<caption style="text-align:left;font-weight:bold">{caption}</caption>')
    parts.append("<tr>" + "".join(f'<th style="{cell}">{h}</th>' for h in header) + "</tr>")
    for i, row in enumerate(rows):
        shade = ' style="background:#fff3c4"' if i == highlight else ""
        parts.append(f"<tr{shade}>" + "".join(f'<td style="{cell}">{v}</td>' for v in row)
                     + "</tr>")
    parts.append("</table>")
    return "".join(parts)


class UpdateGuard:
    """Run ``update`` once when several controls change together.

    ``with guard: ...`` suspends updates; the last exit runs one update.
    """

    def __init__(self, update):
        self._update = update
        self._depth = 0
        self._pending = False

    def __enter__(self):
        self._depth += 1
        return self

    def __exit__(self, *exc):
        self._depth -= 1
        if self._depth == 0 and self._pending:
            self._pending = False
            self._update()
        return False

    def request(self, *_):
        """Observer callback: update now, or when the outermost ``with`` ends."""
        if self._depth:
            self._pending = True
        else:
            self._update()
