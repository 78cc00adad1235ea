"""Read and write TREC qrels and run files, the formats trec_eval reads.

A **qrels** file holds the relevance judgements, one per line::

    qid  iter  docid  grade
    q1   0     d3     2

``iter`` is historical and ignored; ``grade`` is an integer (>= 1 relevant,
0 judged not relevant, negative: not relevant either, e.g. spam).

A **run** file holds what a system retrieved, one document per line::

    qid  Q0  docid  rank  score  tag
    q1   Q0  d3     1     12.5   bm25

``Q0`` is a literal placeholder and ``tag`` names the system.  trec_eval
**ignores the rank column**: it orders the documents of a query by score
(highest first, compared as 32-bit floats) and breaks ties by document id in
descending string order.  :func:`write_run` writes the ranks in that same
order, so the file reads the same to a person and to trec_eval.

Fields are separated by any run of spaces or tabs; blank lines are skipped.
Every malformed line raises :class:`ValueError` naming the file and the line
number.

Examples
--------
>>> import os, tempfile
>>> import ragmetrics_edu as rm
>>> folder = tempfile.mkdtemp()
>>> path = os.path.join(folder, "run.txt")
>>> rm.write_run({"q1": {"a": 0.5, "b": 0.5, "c": 0.9}}, path, tag="demo")
>>> print(open(path).read(), end="")  # b before a: the tie goes to the larger id
q1 Q0 c 1 0.9 demo
q1 Q0 b 2 0.5 demo
q1 Q0 a 3 0.5 demo
>>> rm.read_run(path)
{'q1': {'c': 0.9, 'b': 0.5, 'a': 0.5}}
"""

import math
import os

import numpy as np

__all__ = ["read_qrels", "read_run", "write_run", "trec_order"]


def _lines(path):
    """Yield ``(line_number, fields)`` for every non-blank line of ``path``.

    Lines are decoded one at a time, so text that is not UTF-8 is reported
    with its line; a byte-order mark before the first line is skipped.
    Lines end with ``\n`` (or ``\r\n``), as trec_eval reads them; a file
    whose lines end with a lone ``\r`` (classic Mac OS) reads as one line.
    """
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                byte = raw[exc.start:exc.start + 1]
                raise ValueError(
                    f"{_where(path, number)}: not UTF-8 text ({exc.reason}, byte {byte!r})"
                ) from None
            fields = line.split()
            if fields:
                yield number, fields


def _where(path, number):
    return f"{os.fspath(path)}, line {number}"


def _records(path, kind, layout):
    """Yield ``(line_number, fields)`` of ``path``, each line with the fields of ``layout``."""
    n = len(layout.split())
    for number, fields in _lines(path):
        if len(fields) != n:
            raise ValueError(
                f"{_where(path, number)}: a {kind} line must have {n} fields "
                f"{layout!r}, got {len(fields)}: {' '.join(fields)!r}"
            )
        yield number, fields


def _convert(convert, text, what, path, number):
    """``convert(text)``; a ValueError names the file, the line and ``what`` was expected."""
    try:
        return convert(text)
    except ValueError:
        raise ValueError(f"{_where(path, number)}: {what}, got {text!r}") from None


class _FirstSeen:
    """``{qid: {docid: value}}`` that refuses a document twice for a query,
    naming the line where it first appeared."""

    def __init__(self, twice):
        self.nested, self._line, self._twice = {}, {}, twice

    def add(self, qid, docid, value, path, number):
        inner = self.nested.setdefault(qid, {})
        if docid in inner:
            raise ValueError(
                f"{_where(path, number)}: "
                + self._twice.format(docid=docid, qid=qid)
                + f" (first on line {self._line[qid, docid]})"
            )
        inner[docid] = value
        self._line[qid, docid] = number


def read_qrels(path):
    """Read a TREC qrels file into ``{qid: {docid: grade}}``.

    Parameters
    ----------
    path : str or path-like
        A text file with lines ``qid iter docid grade``.

    Returns
    -------
    dict of str to dict of str to int
        The judgements, in file order.

    Raises
    ------
    ValueError
        A line without exactly 4 fields, a grade that is not an integer, or
        the same (qid, docid) judged twice; the message names the file and
        the line.

    See Also
    --------
    read_run, ragmetrics_edu.batch.evaluate

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels.txt")
    >>> _ = open(path, "w").write("q1 0 d1 1\\nq1 0 d2 0\\nq2 0 d7 2\\n")
    >>> read_qrels(path)
    {'q1': {'d1': 1, 'd2': 0}, 'q2': {'d7': 2}}
    """
    qrels = _FirstSeen("document {docid!r} of query {qid!r} is judged twice")
    for number, fields in _records(path, "qrels", "qid iter docid grade"):
        qid, _, docid, grade_text = fields
        grade = _convert(int, grade_text, "the grade must be an integer", path, number)
        qrels.add(qid, docid, grade, path, number)
    return qrels.nested


def read_run(path):
    """Read a TREC run file into ``{qid: {docid: score}}``.

    The rank column is checked to be an integer and then ignored, as
    trec_eval ignores it: only the scores decide the order.

    Parameters
    ----------
    path : str or path-like
        A text file with lines ``qid Q0 docid rank score tag``.

    Returns
    -------
    dict of str to dict of str to float
        The scores, in file order.

    Raises
    ------
    ValueError
        A line without exactly 6 fields, a rank that is not an integer, a
        score that is not a number or is NaN, or the same document twice for
        a query; the message names the file and the line.

    See Also
    --------
    write_run, read_qrels, ragmetrics_edu.batch.evaluate

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "run.txt")
    >>> _ = open(path, "w").write("q1 Q0 d2 1 3.5 bm25\\nq1 Q0 d1 2 1.25 bm25\\n")
    >>> read_run(path)
    {'q1': {'d2': 3.5, 'd1': 1.25}}
    """
    run = _FirstSeen("document {docid!r} appears twice for query {qid!r}")
    for number, fields in _records(path, "run", "qid Q0 docid rank score tag"):
        qid, _, docid, rank_text, score_text, _ = fields
        _convert(int, rank_text, "the rank must be an integer", path, number)
        score = _convert(float, score_text, "the score must be a number", path, number)
        if math.isnan(score):
            raise ValueError(
                f"{_where(path, number)}: the score of document {docid!r} of query "
                f"{qid!r} is NaN"
            )
        run.add(qid, docid, score, path, number)
    return run.nested


def trec_order(ranking):
    """Return the document ids of one query in trec_eval's order.

    Highest score first, scores compared as 32-bit floats (trec_eval stores
    them in a C ``float``); ties broken by document id, larger id first
    (``"b"`` before ``"a"``, ``"9"`` before ``"10"``).

    Parameters
    ----------
    ranking : dict of str to float
        ``{docid: score}`` of one query.

    Returns
    -------
    list of str

    Examples
    --------
    >>> trec_order({"a": 1.0, "b": 1.0, "10": 2.0, "9": 2.0})
    ['9', '10', 'b', 'a']
    >>> trec_order({"x": 1.0 + 1e-12, "y": 1.0})  # equal as float32: a tie
    ['y', 'x']
    """
    with np.errstate(over="ignore"):  # 1e300 becomes inf, as in trec_eval
        items = [(docid, float(np.float32(score))) for docid, score in ranking.items()]
    # Two stable sorts: by id (larger first), then by score (higher first);
    # the second keeps the id order among equal scores.
    items.sort(key=lambda item: item[0], reverse=True)
    items.sort(key=lambda item: item[1], reverse=True)
    return [docid for docid, _ in items]


def _check_field(value, what, qid=None):
    """Raise unless ``value`` can be one whitespace-free field of a TREC line."""
    where = "" if qid is None else f" (query {qid!r})"
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a string, got {value!r}{where}")
    if value == "" or any(c.isspace() for c in value):
        raise ValueError(
            f"{what} must be non-empty and without whitespace to fit in a TREC "
            f"file, got {value!r}{where}"
        )


def write_run(run, path, tag="ragmetrics_edu"):
    """Write ``{qid: {docid: score}}`` as a TREC run file.

    Queries are written in the order of ``run``; the documents of a query in
    trec_eval's order (:func:`trec_order`), with ranks 1, 2, ....  Scores are
    written with ``repr``, which reads back as exactly the same float.

    Parameters
    ----------
    run : dict of str to dict of str to float
        The run to write.
    path : str or path-like
        The file to create (overwritten if it exists).
    tag : str, default "ragmetrics_edu"
        The system name of the last column; no whitespace.

    Raises
    ------
    ValueError
        A NaN score (naming the query and document), or an id or tag that is
        empty or holds whitespace.
    TypeError
        An id that is not a string, or a score that is not a number.

    See Also
    --------
    read_run, trec_order

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "run.txt")
    >>> write_run({"q1": {"d1": 1.5, "d2": 7}}, path, tag="bm25")
    >>> print(open(path).read(), end="")
    q1 Q0 d2 1 7.0 bm25
    q1 Q0 d1 2 1.5 bm25
    """
    _check_field(tag, "tag")
    lines = []
    for qid, ranking in run.items():
        _check_field(qid, "query ids")
        for docid, score in ranking.items():
            _check_field(docid, "document ids", qid)
            if isinstance(score, bool) or not isinstance(score, (int, float, np.number)):
                raise TypeError(
                    f"scores must be numbers, got {score!r} for document {docid!r} "
                    f"of query {qid!r}"
                )
            if math.isnan(score):
                raise ValueError(
                    f"scores must not be NaN, got NaN for document {docid!r} of "
                    f"query {qid!r}"
                )
        for rank, docid in enumerate(trec_order(ranking), start=1):
            lines.append(f"{qid} Q0 {docid} {rank} {float(ranking[docid])!r} {tag}\n")
    with open(path, "w", encoding="utf-8") as handle:
        handle.writelines(lines)
