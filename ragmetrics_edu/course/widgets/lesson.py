"""What every lesson notebook shows of its sources.

:func:`seed_table` shows seed worked examples (:mod:`ragmetrics_edu.course.examples`)
beside the library's number, with an erratum box where the seed slips.  A
seed's number is written once, in ``ragmetrics_edu.course.examples``; notebooks read
it from there.  (The exercises' checks are :mod:`ragmetrics_edu.course.exercises`.)

It needs neither matplotlib nor ipywidgets.
"""

import html
from fractions import Fraction
import numbers

from ..._deprecation import formerly_positional

__all__ = ["seed_table", "SeedTable"]


def _num(x, digits=4):
    """A computed number as the lessons print it: ``round(x, 4)``, a count as an int."""
    if x is None:
        return "-"
    if isinstance(x, (bool, numbers.Integral)) or not isinstance(x, numbers.Real):
        return str(x)  # a count stays a count: 6, not 6.0
    return repr(round(float(x), digits))


def _stated_value(stated):
    """The seed's number as a float: a float as is, "3/4" as 0.75; None otherwise."""
    if isinstance(stated, bool):
        return None
    if isinstance(stated, numbers.Real):
        return float(stated)
    if isinstance(stated, str):
        try:
            return float(Fraction(stated.replace(" ", "")))
        except (ValueError, ZeroDivisionError):
            return None
    return None


def _stated(x):
    """The seed's number as the seed prints it (0.29 stays 0.29, "3/4" stays "3/4")."""
    if x is None:
        return "(not printed)"
    if isinstance(x, float):
        return repr(x)
    return str(x)


class SeedTable:
    """Seed examples beside the library's numbers (see :func:`seed_table`).

    Attributes
    ----------
    rows : list of dict
        One per example: ``key``, ``metric``, ``seed``, ``where``,
        ``stated``, ``ours`` (recomputed with the library), ``correct``,
        ``agrees`` (True: the seed's number is ours at the seed's rounding;
        False: it differs or has an erratum; None: the seed gives no single
        number to compare), ``erratum`` (the seed's number is wrong) and
        ``label_erratum`` (the seed's wording is wrong, its number right).
    """

    @formerly_positional("summary")
    def __init__(self, rows, collapsed=False, *, summary="Checking the sources"):
        self.rows = rows
        self.collapsed = collapsed
        self.summary = summary

    def _verdict(self, row):
        if row["erratum"]:
            return "erratum"
        if row["ours"] is None:
            return "cannot be rebuilt: the seed does not give its inputs"
        if row["stated"] is None:
            return "the seed prints no value"
        if row["agrees"] is None:
            return "as the seed writes it"
        return "agrees" if row["agrees"] else "differs"

    def __repr__(self):
        lines, seen = [], set()
        for r in self.rows:
            lines.append(f"{r['metric']} ({r['seed']}: {r['where']})")
            lines.append(f"    seed: {_stated(r['stated'])}    ragmetrics_edu: "
                         f"{_num(r['ours'])}    {self._verdict(r)}")
            if r["erratum"]:
                lines.append(f"    Erratum: {r['erratum']}")
            if r["label_erratum"]:
                said = r["label_erratum"] in seen
                seen.add(r["label_erratum"])
                lines.append("    Wording slip: the same as above." if said
                             else f"    Wording slip: {r['label_erratum']}")
            if self.collapsed and r.get("note"):
                lines.append(f"    Note: {r['note']}")
        if self.collapsed:
            lines.insert(0, f"{self.summary}:")
        return "\n".join(lines)

    def _repr_html_(self):
        cell = "padding:3px 8px;border-bottom:1px solid #ddd;text-align:left"
        head = ["example", "where in the seed", "the seed says", "ragmetrics_edu", ""]
        out = ['<table style="border-collapse:collapse;font-size:13px">', "<tr>"]
        out += [f'<th style="{cell}">{h}</th>' for h in head]
        out.append("</tr>")
        boxes, shown = [], set()
        for r in self.rows:
            verdict = self._verdict(r)
            mark = {"agrees": "&#10003;", "erratum": "&#9888; erratum"}.get(verdict, verdict)
            out.append("<tr>" + "".join(
                f'<td style="{cell}">{v}</td>' for v in (
                    html.escape(r["metric"]),
                    f"{html.escape(r['seed'])}: {html.escape(r['where'])}",
                    f"<code>{html.escape(_stated(r['stated']))}</code>",
                    f"<b><code>{_num(r['ours'])}</code></b>",
                    mark)) + "</tr>")
            if r["erratum"]:
                boxes.append(
                    '<div style="border-left:4px solid #d9822b;background:#fff6e5;'
                    'padding:6px 10px;margin:6px 0">'
                    f"<b>Erratum ({html.escape(r['metric'])}).</b> "
                    f"{html.escape(r['erratum'])}</div>")
            if r["label_erratum"] and r["label_erratum"] not in shown:
                shown.add(r["label_erratum"])
                boxes.append(
                    '<div style="border-left:4px solid #8a8a8a;background:#f4f4f4;'
                    'padding:6px 10px;margin:6px 0">'
                    f"<b>Wording slip ({html.escape(r['metric'])}).</b> "
                    f"{html.escape(r['label_erratum'])}</div>")
            if self.collapsed and r.get("note"):
                boxes.append(
                    '<div style="border-left:4px solid #8a8a8a;padding:6px 10px;margin:6px 0">'
                    f"<b>Note ({html.escape(r['metric'])}).</b> {html.escape(r['note'])}</div>")
        out.append("</table>")
        body = "".join(out + boxes)
        if self.collapsed:
            return (f"<details><summary><b>{html.escape(self.summary)}</b> "
                    f"({len(self.rows)} number{'' if len(self.rows) == 1 else 's'} "
                    f"from the sources)</summary>{body}</details>")
        return body


def seed_table(*keys, collapsed=False, summary="Checking the sources"):
    """Show seed worked examples beside the library's number.

    Parameters
    ----------
    *keys : str
        Keys of :func:`ragmetrics_edu.course.examples.get` (``"precision_at_2"``).
    collapsed : bool
        Show the table folded in an HTML ``<details>`` element (closed until
        clicked), with each example's rounding or "cannot rebuild" note: the
        form of a lesson's closing "Checking the sources" section, which keeps
        the comparison out of the main path.
    summary : str
        The folded table's title.

    Returns
    -------
    SeedTable
        Displays as an HTML table with an erratum box under it where the
        seed slips; its plain text (what a notebook saves and nbval compares)
        lists the same numbers.

    Examples
    --------
    >>> from ragmetrics_edu.course.widgets import seed_table
    >>> print(seed_table("precision_at_2"))  # doctest: +NORMALIZE_WHITESPACE
    Precision@2 (slides: Non-Rank Based, Precision@k: 'Precision@2 = 1/(1+1)')
        seed: 0.5    ragmetrics_edu: 0.5    agrees
    """
    from .. import examples
    from ..examples.retrieval import ROUNDING_NOTES, UNREBUILDABLE_NOTES

    if not keys:
        raise ValueError("seed_table needs at least one example key")
    rows = []
    for key in keys:
        ex = examples.get(key)
        ours = ex.recompute() if ex.rebuildable else None
        value = _stated_value(ex.stated)
        if ex.erratum:
            agrees = False
        elif value is None or ours is None:
            agrees = None
        else:
            agrees = abs(value - ours) <= ex.tolerance + 1e-12
        rows.append({
            "key": key, "metric": ex.metric, "seed": ex.seed, "where": ex.where,
            "stated": ex.stated, "ours": ours, "correct": ex.correct,
            "agrees": agrees, "erratum": ex.erratum,
            "label_erratum": ex.label_erratum,
            "note": ROUNDING_NOTES.get(key) or UNREBUILDABLE_NOTES.get(key),
        })
    return SeedTable(rows, collapsed=collapsed, summary=summary)
