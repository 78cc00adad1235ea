"""The n-gram overlap explorer of notebook 04 (BLEU, ROUGE-N, ROUGE-L).

Type a candidate and one or more references; the explorer colours the
candidate's tokens by the longest matched n-gram they belong to, shows the
clipped counts of every order, the brevity penalty and the scores, and
updates when you press Enter or leave a text box.

Two layers, as every widget of the package:

``ngram_overlap(candidate, references, max_n=4, tokenizer=None)``
    A pure function: the tokens, the n-grams of every order with which of
    them count after clipping, the brevity penalty and the scores (read from
    :func:`ragmetrics_edu.bleu` and :mod:`ragmetrics_edu.generation.rouge`, so a number
    is computed in one place).  Unit-tested with hand arithmetic.
``ngram_overlap_explorer(...)``
    The ipywidgets box around it (ipywidgets imported when it is called).

The HTML is built by two pure functions, :func:`highlight_html` and
:func:`table_html`, so what the widget shows is tested without a browser.
"""

import html
from collections import Counter
from dataclasses import dataclass

from ..._deprecation import formerly_positional
from ..._validation import check_choice, check_k
from ._common import Explorer, require_widgets

__all__ = [
    "ngram_overlap",
    "NgramOverlap",
    "OrderMatches",
    "highlight_html",
    "table_html",
    "ngram_overlap_explorer",
    "NgramOverlapExplorer",
    "TOKENIZERS",
]

TOKENIZERS = ("whitespace", "rouge")
"""Tokenizer choices of the explorer: ``"whitespace"`` keeps case and
punctuation (:func:`~ragmetrics_edu.generation.text.whitespace_tokenize`, BLEU's
default); ``"rouge"`` lowercases and keeps runs of ``[a-z0-9]``
(:func:`~ragmetrics_edu.generation.text.rouge_tokenize`, rouge-score's default)."""

# background colour of a token by the longest matched n-gram it belongs to
_COLOURS = {1: "#fde68a", 2: "#a7f3d0", 3: "#93c5fd", 4: "#c4b5fd"}
_CLIPPED = "#fecaca"
_MAX_ORDER = 4


def _tokenizer(name):
    from ...generation import text

    check_choice(name, TOKENIZERS, name="tokenizer")
    return text.whitespace_tokenize if name == "whitespace" else text.rouge_tokenize


@dataclass(frozen=True)
class OrderMatches:
    """The n-grams of one order ``n`` of the candidate, and which count.

    Attributes
    ----------
    n : int
        The order.
    ngrams : tuple of tuple of str
        The candidate's n-grams, in order of position.
    status : tuple of str
        For each n-gram: ``"match"`` (counted), ``"clipped"`` (in a
        reference, but occurring in the candidate more often than in any
        one reference: the extra copies do not count) or ``"miss"``.
    clipped : int
        The clipped match count :math:`\\sum_g \\min(c_g, \\max_r c_{g,r})`,
        the numerator of :math:`p_n`.
    unclipped : int
        The matches without clipping (every n-gram found in a reference).
    total : int
        The number of candidate n-grams, the denominator of :math:`p_n`.
    """

    n: int
    ngrams: tuple
    status: tuple
    clipped: int
    unclipped: int
    total: int

    @property
    def precision(self):
        """The modified precision ``clipped / total`` (0.0 with no n-gram)."""
        return self.clipped / self.total if self.total else 0.0


@dataclass(frozen=True)
class NgramOverlap:
    """Everything the n-gram overlap explorer shows, for one input.

    Attributes
    ----------
    candidate_tokens : tuple of str
    reference_tokens : tuple of tuple of str
    orders : tuple of OrderMatches
        Orders 1 to ``max_n``.
    token_order : tuple of int
        For each candidate token, the longest ``n`` of a counted n-gram that
        covers it (0: in no counted n-gram).
    token_clipped : tuple of bool
        For each candidate token with ``token_order == 0``: whether it is a
        unigram that a reference holds but that was clipped away.
    reference_order : tuple of tuple of int
        For each token of each reference, the longest ``n`` of an n-gram
        around it that the candidate also holds (0: none).
    candidate_len, reference_len : int
        ``c`` and the closest reference length ``r`` of the brevity penalty.
    brevity_penalty : float
    bleu : float
        BLEU-``max_n`` (no smoothing), from :func:`ragmetrics_edu.bleu`.
    bleu_reason : str or None
        Why BLEU is 0, when it is.
    rouge : dict
        ``{"rouge1": (P, R, F), "rouge2": ..., "rougeL": ...}`` from
        :mod:`ragmetrics_edu.generation.rouge`, each against the best reference.
    chrf : float
        Sentence chrF (character 1- to 6-grams, spaces removed, beta = 2,
        sacrebleu's defaults) of the candidate's raw text against the best
        reference, from :func:`ragmetrics_edu.sentence_chrf`: it does not use
        the tokenizer.
    max_n : int
    tokenizer : str
    """

    candidate_tokens: tuple
    reference_tokens: tuple
    orders: tuple
    token_order: tuple
    token_clipped: tuple
    reference_order: tuple
    candidate_len: int
    reference_len: int
    brevity_penalty: float
    bleu: float
    bleu_reason: object
    rouge: dict
    chrf: float
    max_n: int
    tokenizer: str


def _order_matches(cand, refs, n):
    grams = [tuple(cand[i:i + n]) for i in range(len(cand) - n + 1)]
    best = Counter()
    for ref in refs:
        for gram, count in Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1)).items():
            if count > best[gram]:
                best[gram] = count
    used = Counter()
    status = []
    for gram in grams:
        if used[gram] < best[gram]:
            used[gram] += 1
            status.append("match")
        elif best[gram]:
            status.append("clipped")
        else:
            status.append("miss")
    return OrderMatches(
        n=n,
        ngrams=tuple(grams),
        status=tuple(status),
        clipped=status.count("match"),
        unclipped=status.count("match") + status.count("clipped"),
        total=len(grams),
    )


@formerly_positional("max_n", "tokenizer")
def ngram_overlap(candidate, references, *, max_n=4, tokenizer="whitespace"):
    """Compute what the n-gram overlap explorer shows (a pure function).

    Parameters
    ----------
    candidate : str
        The generated text.
    references : str or list of str
        One reference or several.
    max_n : int, default 4
        Highest n-gram order (BLEU-``max_n``), from 1 to 4.
    tokenizer : {"whitespace", "rouge"}, default "whitespace"
        See :data:`TOKENIZERS`.

    Returns
    -------
    NgramOverlap

    Notes
    -----
    Clipping marks the *first* copies of a repeated n-gram as matches and
    the later ones as clipped; which copies are marked does not change the
    count.  BLEU is unsmoothed and ROUGE uses the same tokens as BLEU, so
    the two families are compared on equal terms.

    Examples
    --------
    >>> r = ngram_overlap("six six six six six", "I am thirty six years old", max_n=1)
    >>> r.orders[0].status
    ('match', 'clipped', 'clipped', 'clipped', 'clipped')
    >>> r.orders[0].clipped, r.orders[0].unclipped, r.orders[0].total
    (1, 5, 5)
    """
    import ragmetrics_edu as rm

    max_n = check_k(max_n, name="max_n")
    if max_n > _MAX_ORDER:
        raise ValueError(f"max_n must be at most {_MAX_ORDER}, got {max_n}")
    if not isinstance(candidate, str):
        raise TypeError(f"candidate must be a string, got {candidate!r}")
    if isinstance(references, str):
        references = [references]
    references = list(references)
    if not references or not all(isinstance(r, str) for r in references):
        raise ValueError(f"references must be a string or a non-empty list of strings, "
                         f"got {references!r}")
    tok = _tokenizer(tokenizer)
    cand = tok(candidate)
    refs = [tok(r) for r in references]

    orders = tuple(_order_matches(cand, refs, n) for n in range(1, max_n + 1))
    token_order = [0] * len(cand)
    for om in orders:
        for i, st in enumerate(om.status):
            if st == "match":
                for j in range(i, i + om.n):
                    token_order[j] = max(token_order[j], om.n)
    token_clipped = tuple(
        token_order[i] == 0 and orders[0].status[i] == "clipped" for i in range(len(cand))
    )

    reference_order = []
    for ref in refs:
        marks = [0] * len(ref)
        for om in orders:
            shared = {g for g, st in zip(om.ngrams, om.status) if st == "match"}
            for i in range(len(ref) - om.n + 1):
                if tuple(ref[i:i + om.n]) in shared:
                    for j in range(i, i + om.n):
                        marks[j] = max(marks[j], om.n)
        reference_order.append(tuple(marks))

    # the scores come from the library: one place computes each number
    b = rm.bleu(cand, refs, max_n=max_n)
    rouge = {}
    for key, fn in (("rouge1", lambda c, r: rm.rouge_n(c, r, n=1)),
                    ("rouge2", lambda c, r: rm.rouge_n(c, r, n=2)),
                    ("rougeL", rm.rouge_l)):
        s = fn(cand, refs)
        rouge[key] = (float(s.precision), float(s.recall), float(s.fmeasure))
    chrf = float(rm.sentence_chrf(candidate, references).score)

    return NgramOverlap(
        candidate_tokens=tuple(cand),
        reference_tokens=tuple(tuple(r) for r in refs),
        orders=orders,
        token_order=tuple(token_order),
        token_clipped=token_clipped,
        reference_order=tuple(reference_order),
        candidate_len=int(b.candidate_len),
        reference_len=int(b.reference_len),
        brevity_penalty=float(b.brevity_penalty),
        bleu=float(b.score),
        bleu_reason=b.reason,
        rouge=rouge,
        chrf=chrf,
        max_n=max_n,
        tokenizer=tokenizer,
    )


# ---------------------------------------------------------------------------
# HTML (pure functions)
# ---------------------------------------------------------------------------

# The cue beside the colour, so that meaning never rests on colour alone: a
# token in a matched n-gram carries the n-gram's order as a small label after it
# ("six ²" reads "in a matched 2-gram"); a clipped token is struck through and
# labelled "clipped".
_CLIPPED_LABEL = "clipped"


def _span(token, colour=None, title="", strike=False, label=""):
    style = "padding:1px 4px;margin:1px;border-radius:3px;display:inline-block;"
    if colour:
        style += f"background:{colour};"
    if strike:
        style += "text-decoration:line-through;"
    tag = ""
    if label:
        tag = (f'<small class="ngram-cue" style="font-size:0.7em;color:#333;'
               f'text-decoration:none;margin-left:2px">{html.escape(label)}</small>')
    return (f'<span style="{style}" title="{html.escape(title)}">'
            f"{html.escape(token)}{tag}</span>")


def highlight_html(result):
    """The candidate's tokens coloured by the longest counted n-gram covering them.

    Parameters
    ----------
    result : NgramOverlap

    Returns
    -------
    str
        HTML: a legend, the candidate tokens (a unigram clipped away is
        struck through on a red background), then each reference with the
        tokens it shares with the candidate coloured the same way.
    """
    legend = " ".join(
        _span(f"in a matched {n}-gram", _COLOURS[n], label=str(n))
        for n in range(1, result.max_n + 1)
    ) + " " + _span("clipped", _CLIPPED, strike=True, label=_CLIPPED_LABEL) + " " + \
        _span("no match")
    tokens = []
    for tok, n, clipped in zip(result.candidate_tokens, result.token_order,
                               result.token_clipped):
        if n:
            tokens.append(_span(tok, _COLOURS[n], f"longest matched n-gram: {n}",
                                label=str(n)))
        elif clipped:
            tokens.append(_span(tok, _CLIPPED, "in a reference, but clipped", strike=True,
                                label=_CLIPPED_LABEL))
        else:
            tokens.append(_span(tok, None, "in no reference"))
    body = " ".join(tokens) if tokens else "<i>(empty candidate)</i>"
    parts = [f'<div style="line-height:2">{legend}</div>',
             f'<div style="font-size:1.15em;line-height:2"><b>candidate:</b> {body}</div>']
    for i, (ref, marks) in enumerate(zip(result.reference_tokens, result.reference_order)):
        words = " ".join(_span(t, _COLOURS.get(n), f"shares a {n}-gram" if n else "",
                               label=str(n) if n else "")
                         for t, n in zip(ref, marks))
        parts.append(f'<div style="line-height:2;color:#444">reference {i + 1}: '
                     f'{words or "<i>(empty)</i>"}</div>')
    return "".join(parts)


_TABLE = "border-collapse:collapse;font-family:monospace;font-size:12px;margin-top:6px"
_TD = "padding:2px 8px;border-bottom:1px solid #ddd;text-align:right"


def _num(x):
    return f"{x:.4f}"


def _td(value, key=None):
    attr = f' data-key="{key}"' if key else ""
    return f'<td{attr} style="{_TD}">{value}</td>'


def _th(text):
    return f'<th style="{_TD}">{text}</th>'


def table_html(result):
    """The counts and scores of :func:`ngram_overlap` as HTML tables.

    Every number sits in a ``<td data-key="...">`` cell: ``clip1``,
    ``unclip1``, ``total1``, ``p1`` (and so on up to ``max_n``), ``c``,
    ``r``, ``bp``, ``bleu``, ``rouge1_p``, ``rouge1_r``, ``rouge1_f``,
    ``rouge2_*``, ``rougeL_*``, ``chrf``; tests and readers find them by key.

    Parameters
    ----------
    result : NgramOverlap

    Returns
    -------
    str
    """
    parts = [f'<table style="{_TABLE}">',
             "<tr>" + "".join(_th(h) for h in (
                 "n", "clipped matches", "unclipped", "candidate n-grams",
                 "p<sub>n</sub> = clipped / n-grams")) + "</tr>"]
    for om in result.orders:
        parts.append("<tr>" + _td(om.n) + _td(om.clipped, f"clip{om.n}")
                     + _td(om.unclipped, f"unclip{om.n}") + _td(om.total, f"total{om.n}")
                     + _td(_num(om.precision), f"p{om.n}") + "</tr>")
    parts.append("</table>")
    note = html.escape(result.bleu_reason) if result.bleu_reason else ""
    parts.append(
        f'<table style="{_TABLE}">'
        f"<tr><td>candidate length c</td>{_td(result.candidate_len, 'c')}<td></td></tr>"
        f"<tr><td>closest reference length r</td>{_td(result.reference_len, 'r')}<td></td></tr>"
        f"<tr><td>brevity penalty BP = min(1, exp(1 - r/c))</td>"
        f"{_td(_num(result.brevity_penalty), 'bp')}<td></td></tr>"
        f"<tr><td><b>BLEU-{result.max_n}</b> = BP &middot; geometric mean of p<sub>n</sub></td>"
        f"{_td(_num(result.bleu), 'bleu')}<td style='color:#a00'>{note}</td></tr>"
        f"<tr><td><b>chrF</b>: character 1- to 6-grams, spaces removed, &beta; = 2</td>"
        f"{_td(_num(result.chrf), 'chrf')}<td></td></tr></table>"
    )
    parts.append(f'<table style="{_TABLE}"><tr>'
                 + "".join(_th(h) for h in ("", "precision", "recall", "F1")) + "</tr>")
    for key, label in (("rouge1", "ROUGE-1"), ("rouge2", "ROUGE-2"), ("rougeL", "ROUGE-L")):
        p, r, f = result.rouge[key]
        parts.append(f"<tr><td>{label}</td>{_td(_num(p), key + '_p')}"
                     f"{_td(_num(r), key + '_r')}{_td(_num(f), key + '_f')}</tr>")
    parts.append("</table>")
    parts.append(f"<div style='color:#666;font-size:12px'>tokenizer: "
                 f"{html.escape(result.tokenizer)} &middot; BLEU without smoothing &middot; "
                 "ROUGE against the reference with the best F1 &middot; chrF on the raw "
                 "text, not the tokens</div>")
    return "\n".join(parts)


def _split_references(text):
    return [line for line in text.splitlines() if line.strip()]


# ---------------------------------------------------------------------------
# the widget
# ---------------------------------------------------------------------------

class NgramOverlapExplorer(Explorer):
    """Text boxes for a candidate and its references, the matches and the scores.

    Attributes
    ----------
    candidate : ipywidgets.Text
        The candidate; updates on Enter or when the box loses focus.
    references : ipywidgets.Textarea
        The references, one per line.
    max_n : ipywidgets.IntSlider
        Highest n-gram order of BLEU (1 to 4).
    tokenizer : ipywidgets.Dropdown
        ``"whitespace"`` or ``"rouge"`` (see :data:`TOKENIZERS`).
    highlight : ipywidgets.HTML
        The candidate, tokens coloured by the longest counted n-gram
        (:func:`highlight_html`).
    table : ipywidgets.HTML
        Clipped counts, brevity penalty, BLEU and ROUGE (:func:`table_html`;
        every number in a ``data-key`` cell).
    values : NgramOverlap or None
        The last result of :func:`ngram_overlap` (None without a reference).
    widget : ipywidgets.VBox
        The layout (what the notebook displays).
    """

    @formerly_positional("max_n", "tokenizer")
    def __init__(self, candidate, references, *, max_n, tokenizer):
        w = require_widgets()
        wide = w.Layout(width="95%")
        style = {"description_width": "initial"}
        self.candidate = w.Text(value=candidate, description="candidate",
                                continuous_update=False, layout=wide, style=style)
        self.references = w.Textarea(value="\n".join(references), description="references",
                                     placeholder="one reference per line",
                                     continuous_update=False, layout=wide, style=style)
        self.max_n = w.IntSlider(value=max_n, min=1, max=_MAX_ORDER, description="max n",
                                 continuous_update=False)
        self.tokenizer = w.Dropdown(options=TOKENIZERS, value=tokenizer,
                                    description="tokenizer")
        self.highlight = w.HTML()
        self.table = w.HTML()
        help_text = w.HTML("Edit the texts and press Enter (candidate) or click outside "
                           "the box (references, one per line).")
        self.widget = w.VBox([help_text, self.candidate, self.references,
                              w.HBox([self.max_n, self.tokenizer]),
                              self.highlight, self.table])
        for control in (self.candidate, self.references, self.max_n, self.tokenizer):
            control.observe(self.update, names="value")
        self.update()

    def _describe(self):
        return (f"candidate={self.candidate.value!r}, "
                f"references={_split_references(self.references.value)!r}, "
                f"max_n={self.max_n.value}, tokenizer={self.tokenizer.value!r}")

    def update(self, _change=None):
        """Recompute from the text boxes and redraw (the controls' callback)."""
        refs = _split_references(self.references.value)
        if not refs:
            self.values = None
            self.highlight.value = "<i>Type at least one reference (one per line).</i>"
            self.table.value = ""
            return
        self.values = ngram_overlap(self.candidate.value, refs, max_n=self.max_n.value,
                                    tokenizer=self.tokenizer.value)
        self.highlight.value = highlight_html(self.values)
        self.table.value = table_html(self.values)


@formerly_positional("max_n", "tokenizer")
def ngram_overlap_explorer(candidate="thirty six years have I",
                           references=("I am thirty six years old",),
                           *, max_n=4, tokenizer="whitespace"):
    """Play with n-gram matches, clipping, the brevity penalty, BLEU and ROUGE.

    The candidate's tokens are coloured by the longest n-gram (up to
    ``max_n``) that they share with a reference and that counts after
    clipping; a repeated word beyond its count in the references is struck
    through.  A table gives the clipped counts of every order, the brevity
    penalty, BLEU-``max_n`` and ROUGE-1, ROUGE-2 and ROUGE-L.

    Parameters
    ----------
    candidate : str, default "thirty six years have I"
        The initial candidate (the slides' reordered sentence).
    references : str or sequence of str, default ("I am thirty six years old",)
        The initial references, one per line in the box.
    max_n : int, default 4
        Initial highest order of BLEU, 1 to 4.
    tokenizer : {"whitespace", "rouge"}, default "whitespace"

    Returns
    -------
    NgramOverlapExplorer
        Display it in a notebook; drive it from Python through its
        ``candidate``, ``references``, ``max_n`` and ``tokenizer`` controls
        and read ``values`` (an :class:`NgramOverlap`).

    Examples
    --------
    >>> w = ngram_overlap_explorer()                 # doctest: +SKIP
    >>> w.candidate.value = "six six six six six"    # doctest: +SKIP
    >>> w.values.orders[0].clipped                   # doctest: +SKIP
    1
    """
    if not isinstance(candidate, str):
        raise TypeError(f"candidate must be a string, got {candidate!r}")
    if isinstance(references, str):
        references = [references]
    references = list(references)
    for i, r in enumerate(references):
        if not isinstance(r, str) or "\n" in r:
            raise ValueError(f"references must be strings without line breaks, "
                             f"got {r!r} at position {i}")
    max_n = check_k(max_n, name="max_n")
    if max_n > _MAX_ORDER:
        raise ValueError(f"max_n must be at most {_MAX_ORDER}, got {max_n}")
    check_choice(tokenizer, TOKENIZERS, name="tokenizer")
    return NgramOverlapExplorer(candidate, references, max_n=max_n, tokenizer=tokenizer)
