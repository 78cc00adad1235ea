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

Both files are read as trec_eval 10.0 reads them: fields are separated by
any run of C's whitespace (spaces, tabs, ``\\r``, ``\\v``, ``\\f``; lines end with
``\\n``); comment lines start with ``#``; a run line may have fields after
``tag`` (ignored).  Numbers follow C's grammar exactly (``atol`` for grades,
``strtod`` for scores): a field trec_eval would read only in part (``1_0``,
``0.5x``, Arabic-Indic digits) is refused, never read differently.  Blank
lines are skipped.  A line may hold at most :data:`MAX_LINE_BYTES` bytes
(1 MiB; trec_eval has no limit).  Every malformed line raises
:class:`ValueError` naming the file and the line number.

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
import re
import secrets
import numpy as np

from .._deprecation import formerly_positional
from .._validation import INT64_MAX, MAX_LINE_BYTES, check_mapping, check_real
from .batch._columns import Unusual, read_nested

__all__ = ["read_qrels", "read_run", "write_run", "trec_order", "read_qrels_slowly",
           "read_run_slowly", "parse_integer", "parse_number"]

# --------------------------------------------------------------- the grammar

SPACE = b" \t\n\v\f\r"
"""The bytes C's ``isspace`` accepts (the "C" locale): trec_eval's field separators."""

MAX_SHOWN = 200
"""Characters of a line or an id quoted in an error message, at most."""

_INTEGER = re.compile(rb"[+-]?[0-9]+")
# strtod's decimal form, a hexadecimal form, and its words (case-insensitive).
# Each part can match a string in one way only ("[0-9]+(?:\.[0-9]*)?", never
# "[0-9]+\.?[0-9]*"), so a failed match of a long digit string takes linear
# time, not quadratic.
_DECIMAL = re.compile(rb"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_HEXADECIMAL = re.compile(
    rb"[+-]?0[xX](?:[0-9a-fA-F]+(?:\.[0-9a-fA-F]*)?|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?")
_INFINITY = re.compile(rb"[+-]?inf(?:inity)?", re.IGNORECASE)
_NAN = re.compile(rb"[+-]?nan(?:\([0-9A-Za-z_]*\))?", re.IGNORECASE)
_INT64 = INT64_MAX + 1  # -_INT64 <= value < _INT64: a C long


def _show(text):
    """``repr`` of at most MAX_SHOWN characters of ``text``: control characters,
    a byte-order mark and other invisible characters are escaped, never sent
    to the terminal as they are."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "backslashreplace")
    if not isinstance(text, str):
        text = repr(text)
    if len(text) <= MAX_SHOWN:
        return repr(text)
    return f"{text[:MAX_SHOWN]!r}... ({len(text):,} characters)"


def _where(path, number):
    return f"{os.fspath(path)}, line {number}"


def parse_integer(token, what):
    """The integer ``token`` spells, as C's ``atol`` reads a whole field.

    Only an optional sign and ASCII digits (``"+3"``, ``"-1"``, ``"007"``)
    are accepted, and the value must fit in 64 bits (a C ``long``); anything
    ``atol`` would read only a prefix of (``"1_0"``, ``"1.5"``, ``"٣"``) is
    refused rather than read differently.  Raises ValueError naming ``what``.

    Parameters
    ----------
    token : bytes
        One whitespace-separated field of a line.
    what : str
        What the field is, for the message (``"the grade"``).
    """
    if not _INTEGER.fullmatch(token):
        raise ValueError(f"{what} must be an integer (ASCII digits with an optional "
                         f"sign), got {_show(token)}")
    digits = token.lstrip(b"+-").lstrip(b"0") or b"0"
    # at most 19 digits before calling int(): Python refuses over 4,300
    value = None if len(digits) > 19 else int(digits)
    if token.startswith(b"-") and value is not None:
        value = -value
    if value is None or not -_INT64 <= value < _INT64:
        raise ValueError(f"{what} must fit in a 64-bit integer (trec_eval reads it as "
                         f"a C long), got {_show(token)} ({len(digits)} digits)")
    return value


def parse_number(token, what):
    """The float ``token`` spells, as C's ``strtod`` reads a whole field.

    Accepted: an optional sign, ASCII digits with at most one ``.``, an
    optional exponent (``"1e-3"``, ``".5"``, ``"7."``), a hexadecimal float
    (``"0x1.8p1"``) and ``inf``/``infinity`` in any case.  ``nan`` is refused
    (trec_eval cannot order it).  Anything ``strtod`` would read only a
    prefix of (``"1_0"``, ``"0.5abc"``, ``"٣"``) is refused.  Raises
    ValueError naming ``what``.

    Parameters
    ----------
    token : bytes
        One whitespace-separated field of a line.
    what : str
        What the field is, for the message.
    """
    if _DECIMAL.fullmatch(token) or _INFINITY.fullmatch(token):
        return float(token)
    if _HEXADECIMAL.fullmatch(token):
        return float.fromhex(token.decode("ascii"))
    if _NAN.fullmatch(token):
        raise ValueError(f"{what} is NaN, which has no place in a ranking")
    raise ValueError(f"{what} must be a number as C's strtod reads it (ASCII digits, "
                     f"a sign, one '.', an exponent; inf), got {_show(token)}")


# ----------------------------------------------------- the readable reader

def _lines(path):
    """Yield ``(line_number, raw_line_bytes)`` for every line of ``path``.

    Lines end with ``\\n`` as trec_eval reads them; a byte-order mark before
    the first line is skipped.  A line longer than :data:`MAX_LINE_BYTES`
    is refused after reading that many bytes of it, never held whole.
    """
    with open(path, "rb") as handle:
        number = 0
        while True:
            raw = handle.readline(MAX_LINE_BYTES + (4 if number == 0 else 1))  # (a BOM)
            if not raw:
                return
            number += 1
            if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            if len(raw) - raw.endswith(b"\n") > MAX_LINE_BYTES:
                raise ValueError(_too_long(path, number))
            yield number, raw


def _too_long(path, number):
    return (f"{_where(path, number)}: the line is longer than {MAX_LINE_BYTES:,} bytes "
            f"(MAX_LINE_BYTES), so this is not a TREC file (a binary file, or "
            f"one without line ends?)")


def _fields(path, number, raw):
    """The fields of one line (split on C's whitespace), decoded as UTF-8."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        byte = raw[exc.start:exc.start + 1]
        raise ValueError(
            f"{_where(path, number)}: not UTF-8 text ({exc.reason}, byte {byte!r})"
        ) from None
    if b"\0" in raw:
        raise ValueError(f"{_where(path, number)}: a NUL byte (trec_eval stops reading "
                         f"a line there)")
    return [field.decode("utf-8") for field in raw.split()]


def _is_comment(kind, raw):
    """trec_eval 10.0: a qrels line with ``#`` in its first column, a run line
    whose first non-blank character is ``#``."""
    return raw.startswith(b"#") if kind == "qrels" else raw.lstrip(SPACE).startswith(b"#")


def _records(path, kind):
    """Yield ``(line_number, fields)`` of the data lines of a qrels or run file."""
    layout = "qid iter docid grade" if kind == "qrels" else "qid Q0 docid rank score tag"
    n = len(layout.split())
    for number, raw in _lines(path):
        if _is_comment(kind, raw):
            continue
        fields = _fields(path, number, raw)
        if not fields:
            continue
        if len(fields) < n or (kind == "qrels" and len(fields) > n):
            line = raw.decode("utf-8").rstrip("\r\n")
            rule = f"{n} fields" if kind == "qrels" else f"at least {n} fields"
            raise ValueError(
                f"{_where(path, number)}: a {kind} line must have {rule} "
                f"{layout!r}, got {len(fields)}: {_show(line)}"
            )
        yield number, fields


def _converted(parse, text, what, path, number):
    """``parse(text, what)``, with the file and the line in front of an error."""
    try:
        return parse(text.encode("utf-8"), what)
    except ValueError as exc:
        raise ValueError(f"{_where(path, number)}: {exc}") from None


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
                + self._twice.format(docid=_show(docid), qid=_show(qid))
                + f" (first on line {self._line[qid, docid]})"
            )
        inner[docid] = value
        self._line[qid, docid] = number


def read_qrels_slowly(path):
    """:func:`read_qrels`, one line at a time: the readable definition.

    :func:`read_qrels` reads large files in blocks with NumPy and gives the
    same result; on a file with any error it calls this function, which
    names the first bad line.
    """
    qrels = _FirstSeen("document {docid} of query {qid} is judged twice")
    for number, (qid, _, docid, grade) in _records(path, "qrels"):
        value = _converted(parse_integer, grade, "the grade", path, number)
        qrels.add(qid, docid, value, path, number)
    return qrels.nested


def read_run_slowly(path):
    """:func:`read_run`, one line at a time: the readable definition.

    :func:`read_run` reads large files in blocks with NumPy and gives the same
    result; on a file with any error it calls this function, which names the
    first bad line.
    """
    run = _FirstSeen("document {docid} appears twice for query {qid}")
    for number, fields in _records(path, "run"):
        qid, _, docid, rank, score = fields[:5]
        _converted(_check_rank, rank, "the rank", path, number)
        what = f"the score of document {_show(docid)} of query {_show(qid)}"
        value = _converted(parse_number, score, what, path, number)
        run.add(qid, docid, value, path, number)
    return run.nested


def _check_rank(token, what):
    """A rank is an integer (any size: trec_eval ignores its value)."""
    if not _INTEGER.fullmatch(token):
        raise ValueError(f"{what} must be an integer (ASCII digits with an optional "
                         f"sign), got {_show(token)}")


# ----------------------------------------------------------------- readers

def read_qrels(path):
    """Read a TREC qrels file into ``{qid: {docid: grade}}``.

    The file is read as trec_eval 10.0 reads it: fields are separated by
    spaces, tabs, ``\\r``, ``\\v`` or ``\\f`` (C's whitespace); a line whose
    first character is ``#`` is a comment; blank lines are skipped (trec_eval
    refuses them).  A grade is read as C's ``atol`` reads a whole field:
    ASCII digits with an optional sign, within 64 bits.

    Parameters
    ----------
    path : str or path-like
        A text file (UTF-8) with lines ``qid iter docid grade``.

    Returns
    -------
    dict of str to dict of str to int
        The judgements, in file order.

    Raises
    ------
    ValueError
        A line without exactly 4 fields, a grade that is not an integer as
        above (``"1.5"``, ``"1_0"``, ``"٣"``: trec_eval would read 1, 1 and
        0) or does not fit in 64 bits, the same (qid, docid) judged twice,
        text that is not UTF-8, a NUL byte, or a line longer than
        :data:`MAX_LINE_BYTES` (1 MiB; refused after reading that much of it);
        the message names the file and the line, and quotes at most 200
        characters of it.

    See Also
    --------
    read_run, ragmetrics_edu.retrieval.batch.evaluate

    Notes
    -----
    Large files are read in blocks and checked with NumPy; a file with any
    problem is read again line by line (:func:`read_qrels_slowly`, the
    readable definition, which gives the same result) to name the first bad
    line.

    trec_eval 10.0 itself skips one comment line before each judgement: of
    two comment lines in a row it reads the second as a judgement (and
    usually stops on it as malformed).  Here every comment line is skipped.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels.txt")
    >>> _ = open(path, "w").write("# judged by hand\\nq1 0 d1 1\\nq1 0 d2 0\\nq2 0 d7 2\\n")
    >>> read_qrels(path)
    {'q1': {'d1': 1, 'd2': 0}, 'q2': {'d7': 2}}
    """
    try:
        return read_nested(path, "qrels")
    except Unusual:
        return read_qrels_slowly(path)


def read_run(path):
    """Read a TREC run file into ``{qid: {docid: score}}``.

    The file is read as trec_eval 10.0 reads it: fields are separated by C's
    whitespace; a line whose first non-blank character is ``#`` is a comment
    (so a query id cannot start with ``#``); blank lines are skipped; fields
    after the sixth (``tag``) are ignored.  A score is read as C's
    ``strtod`` reads a whole field: ASCII digits with a sign, one ``.`` and
    an exponent, a hexadecimal float, or ``inf``.  The rank column is checked
    to be an integer and then ignored, as trec_eval ignores it: only the
    scores decide the order.

    Parameters
    ----------
    path : str or path-like
        A text file (UTF-8) with lines ``qid Q0 docid rank score tag``.

    Returns
    -------
    dict of str to dict of str to float
        The scores, in file order.

    Raises
    ------
    ValueError
        A line with fewer than 6 fields, a rank that is not an integer, a
        score that is not a number as above (``"1_0"``, ``"0.5abc"``: trec_eval
        would read 1 and 0.5) or is NaN, the same document twice for a query,
        text that is not UTF-8, a NUL byte, or a line longer than
        :data:`MAX_LINE_BYTES` (1 MiB; refused after reading that much of it);
        the message names the file and the line, and quotes at most 200
        characters of it.

    See Also
    --------
    write_run, read_qrels, ragmetrics_edu.retrieval.batch.evaluate

    Notes
    -----
    Large files are read in blocks and checked with NumPy; a file with any
    problem (or a rare spelling such as ``inf``) is read again line by line
    (:func:`read_run_slowly`, the readable definition, which gives the same
    result) to name the first bad line.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "run.txt")
    >>> _ = open(path, "w").write("q1 Q0 d2 1 3.5 bm25\\nq1 Q0 d1 2 1.25 bm25 extra\\n")
    >>> read_run(path)  # the seventh field is ignored, as trec_eval 10.0 does
    {'q1': {'d2': 3.5, 'd1': 1.25}}
    """
    try:
        return read_nested(path, "run")
    except Unusual:
        return read_run_slowly(path)


def trec_order(ranking):
    """Return the document ids of one query in trec_eval's order.

    Highest score first, scores compared as 32-bit floats (trec_eval stores
    them in a C ``float``); ties broken by document id, larger id first
    (``"b"`` before ``"a"``, ``"9"`` before ``"10"``).  The order is
    defined once, by :func:`order_by_score`, which
    :func:`ragmetrics_edu.retrieval.conventions.rank` also runs
    (``rank(ranking, "trec_eval")`` is this order).

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
    return order_by_score(ranking, scores="float32", ties="docid_desc")


def as_score(score, scores):
    """``score`` as the float a preset compares: a 32-bit float (trec_eval 9.x) or a double."""
    with np.errstate(over="ignore"):  # 1e300 becomes inf as a float32, as in trec_eval
        return float(np.float32(score)) if scores == "float32" else float(score)


def order_by_score(doc_scores, *, scores, ties):
    """The document ids of ``{docid: score}``, highest score first.

    ``scores`` ("float32" or "float64") is how scores are compared; ``ties``
    is "docid_desc" (larger id first, trec_eval's rule) or anything else for
    the order given.  :func:`~ragmetrics_edu.retrieval.conventions.rank`
    reads both from a preset.
    """
    items = [(d, as_score(s, scores)) for d, s in doc_scores.items()]
    if ties == "docid_desc":
        # score descending, then docid descending: one reversed sort does both
        items.sort(key=lambda item: (item[1], item[0]), reverse=True)
    else:  # Python's sort is stable: ties keep the order given
        items.sort(key=lambda item: -item[1])
    return [d for d, _ in items]


def _check_field(value, what, qid=None, docid=None):
    """Raise unless ``value`` can be one field of a TREC line that reads back
    as the same string."""
    where = "" if qid is None else f" (query {_show(qid)})"
    if docid is not None:
        where = f" (document {_show(docid)} of query {_show(qid)})"
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a string, got {value!r}{where}")
    if value == "" or any(c.isspace() for c in value) or "\0" in value:
        raise ValueError(
            f"{what} must be non-empty, without whitespace or NUL characters, to fit "
            f"in a TREC file, got {_show(value)}{where}"
        )
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(
            f"{what} must be text that UTF-8 can encode, got {_show(value)} "
            f"({exc.reason} at character {exc.start}){where}"
        ) from None


@formerly_positional("tag")
def write_run(run, path, *, tag="ragmetrics_edu"):
    """Write ``{qid: {docid: score}}`` as a TREC run file.

    Queries are written in the order of ``run``; the documents of a query in
    trec_eval's order (:func:`trec_order`), with ranks 1, 2, ....  Scores are
    written with ``repr``, which reads back as exactly the same float.

    Every id is checked before anything is written, and the file is written
    to a temporary file in the same folder and then renamed over ``path``
    (:func:`os.replace`): an error leaves an existing file as it was, and
    names ``path``.  When ``path`` is a symbolic link, the file it points to
    is written and the link kept.  A temporary file left by a write that
    was killed is removed by the next write to the same file.

    Parameters
    ----------
    run : dict of str to dict of str to float
        The run to write.
    path : str or path-like
        The file to create (replaced if it exists, keeping its permissions).
    tag : str, default "ragmetrics_edu"
        The system name of the last column; no whitespace.

    Raises
    ------
    ValueError
        A NaN score, or an id or tag that is empty, holds whitespace or a NUL,
        or cannot be encoded as UTF-8 (a lone surrogate such as
        ``"\\ud800"``), a query id starting with ``#`` (trec_eval 10.0 reads
        such a line as a comment), or ids so long that a line would pass
        :data:`MAX_LINE_BYTES`; the message names the query and the
        document.
        A score no float can hold (an integer such as ``10**400``).
    TypeError
        ``run`` or a ranking that is not a dict, an id that is not a string,
        or a score that is not a number.

    See Also
    --------
    read_run, trec_order

    Notes
    -----
    :func:`read_run` skips a byte-order mark at the start of a file.  When
    the first query id written (the first with documents) itself starts with
    one (``"\\ufeffq1"``), a byte-order mark is written first, so that the
    id reads back whole; a mark anywhere else is an ordinary character.
    A query without documents writes no line, so it does not read back.
    Every other run reads back equal (:func:`read_run`).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "run.txt")
    >>> write_run({"q1": {"d1": 1.5, "d2": 7}}, path, tag="bm25")
    >>> print(open(path).read(), end="")
    q1 Q0 d2 1 7.0 bm25
    q1 Q0 d1 2 1.5 bm25
    """
    _check_field(tag, "the tag")
    check_mapping(run, name="run", what="dict of query id -> {document id: score}")
    for qid, ranking in run.items():
        _check_field(qid, "query ids")
        check_mapping(ranking, name=f"the ranking of query {_show(qid)}",
                      what="dict of document id -> score")
        if qid.startswith("#"):
            raise ValueError(f"query ids must not start with '#' (trec_eval 10.0 reads "
                             f"such a line as a comment), got {_show(qid)}")
        for docid, score in ranking.items():
            _check_field(docid, "document ids", qid=qid, docid=docid)
            if isinstance(score, bool) or not isinstance(score, (int, float, np.number)):
                raise TypeError(
                    f"scores must be numbers, got {score!r} for document {_show(docid)} "
                    f"of query {_show(qid)}"
                )
            check_real(score, name="scores",
                       where=f" for document {_show(docid)} of query {_show(qid)}")
            if math.isnan(score):
                raise ValueError(
                    f"scores must not be NaN, got NaN for document {_show(docid)} of "
                    f"query {_show(qid)}"
                )
    lines = []
    written = [qid for qid, ranking in run.items() if ranking]  # no line for an empty one
    if written and written[0].startswith("\ufeff"):
        lines.append("\ufeff")  # read_run skips this one, and keeps the id's
    for qid, ranking in run.items():
        for rank, docid in enumerate(trec_order(ranking), start=1):
            line = f"{qid} Q0 {docid} {rank} {float(ranking[docid])!r} {tag}"
            if len(line) > MAX_LINE_BYTES // 4 and len(line.encode("utf-8")) > MAX_LINE_BYTES:
                raise ValueError(
                    f"the line of document {_show(docid)} of query {_show(qid)} would be "
                    f"longer than {MAX_LINE_BYTES:,} bytes (MAX_LINE_BYTES), which read_run "
                    f"refuses: the query id has {len(qid.encode('utf-8')):,} bytes, the "
                    f"document id {len(docid.encode('utf-8')):,} and the tag "
                    f"{len(tag.encode('utf-8')):,}")
            lines.append(line + "\n")
    _replace(path, "".join(lines).encode("utf-8"))


def _replace(path, data):
    """Write ``data`` to ``path`` through a temporary file in the same folder.

    A symbolic link is written through: the file it points to is replaced,
    the link stays (as editors do). Temporary files of this file left by a
    write that was killed (``.<name>.<8 hex digits>.tmp``) are removed
    first. An error names ``path`` (and the file it links to), never the
    temporary file.
    """
    path = os.fspath(path)
    target = os.path.realpath(path)  # through every link, to the file itself
    folder, name = os.path.split(target)
    temporary = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.tmp")
    try:
        _remove_leftovers(folder, name)
        try:
            mode = os.stat(target).st_mode & 0o7777
        except FileNotFoundError:
            mode = None
        # 0o666 less the umask, as open(path, "w") would create it
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            if mode is not None:
                os.chmod(temporary, mode)
            os.replace(temporary, target)
        except BaseException:
            if os.path.exists(temporary):
                os.remove(temporary)
            raise
    except OSError as exc:  # say which file could not be written, not the temporary one
        linked = "" if target == os.path.abspath(path) else f"; it links to {target}"
        if exc.errno is None:
            raise OSError(f"cannot write {path}{linked}: {exc}") from None
        raise OSError(exc.errno, f"{exc.strerror} (writing the run file{linked})", path) from None


def _remove_leftovers(folder, name):
    """Remove the temporary files of ``name`` that a killed write left in ``folder``."""
    pattern = re.compile(rf"\.{re.escape(name)}\.[0-9a-f]{{8}}\.tmp")
    with os.scandir(folder) as entries:
        leftovers = [entry.path for entry in entries
                     if pattern.fullmatch(entry.name) and entry.is_file(follow_symlinks=False)]
    for leftover in leftovers:
        try:
            os.remove(leftover)
        except FileNotFoundError:  # removed meanwhile
            pass
