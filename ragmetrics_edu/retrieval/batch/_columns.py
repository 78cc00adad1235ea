"""TREC files read as columns, a block of lines at a time: engine, not lesson.

The readable definition of the two formats is
:func:`ragmetrics_edu.retrieval.trec.read_qrels_slowly` and
:func:`~ragmetrics_edu.retrieval.trec.read_run_slowly`, one line at a time.
Here a file is read in blocks of about :data:`BLOCK` bytes, and each block
is cut into fields with NumPy: no Python string is made per line.
:func:`read_nested` builds the nested dicts of
:func:`~ragmetrics_edu.retrieval.trec.read_run` from that; :func:`QrelsColumns`
and :func:`run_chunks` keep the columns, for
:func:`~ragmetrics_edu.evaluate` on files: a run is read query by query,
the judged documents found in it by hashing their ids, and only the
queries of one block are held at a time.

Anything but plain lines (an error, a NUL byte, a rare spelling such as
``inf`` or a hexadecimal score, a document twice) raises :class:`Unusual`:
the readable reader then reads the file, and names the line of an error.
None of this changes a number.
"""

import dataclasses
import os
from itertools import chain

import numpy as np

from ..._validation import MAX_LINE_BYTES
from ._engine import Chunk
from ._words import id_words, ranges

__all__ = ["BLOCK", "Unusual", "NotGrouped", "read_nested", "QrelsColumns", "run_chunks"]

BLOCK = 1 << 20
"""Bytes read at a time (1 MiB, then up to the last line's end): the arrays of
one block stay small, whatever the size of the file."""

class Unusual(Exception):
    """Something the column reader leaves to the readable one (an error, a rare spelling)."""


class NotGrouped(Exception):
    """A run whose lines of one query are not all together: it cannot be read query by query."""


# ------------------------------------------------------------------- blocks

def blocks(path, size=None):
    """Yield the file in pieces of about ``size`` bytes, each ending with ``\\n``.

    A byte-order mark before the first line is skipped.  Raises
    :class:`Unusual` rather than hold a line longer than
    :data:`MAX_LINE_BYTES`.
    """
    size = size or BLOCK
    pending = b""
    with open(path, "rb") as handle:
        first = True
        while True:
            block = handle.read(size)
            if first and block.startswith(b"\xef\xbb\xbf"):
                block = block[3:]
            first = False
            if not block:
                break
            cut = block.rfind(b"\n")
            if len(pending) + (len(block) if cut < 0 else block.find(b"\n")) > MAX_LINE_BYTES:
                raise Unusual  # a line longer than the bound
            if cut < 0:  # one long line: keep reading
                pending += block
                continue
            yield pending + block[:cut + 1]
            pending = block[cut + 1:]
    if pending.strip(b" \t\n\v\f\r"):
        yield pending + b"\n"


def fields(block, kind):
    """The fields of a block's data lines: ``(b, starts, ends)``, one row of offsets per line.

    ``b`` is the block as bytes (uint8).  A qrels line has 4 fields, a run
    line 6 or more (only the first 6 are kept).  Lines whose fields are
    separated by one space or tab each (most files) are cut with one pass
    over the whitespace; any other line (runs of blanks, ``\\r``, comments,
    blank lines) by finding every field's edges.  Raises :class:`Unusual`
    for a NUL byte, text that is not UTF-8, or a line with too few fields.
    """
    if b"\0" in block:
        raise Unusual
    try:
        block.decode("utf-8")
    except UnicodeDecodeError:
        raise Unusual from None
    b = np.frombuffer(block, dtype=np.uint8)
    n = 4 if kind == "qrels" else 6
    blanks = np.flatnonzero(b <= 32)  # whitespace, and control bytes (which are not)
    if len(blanks) % n == 0 and len(blanks):
        kinds = b[blanks].reshape(-1, n)
        starts = np.empty_like(blanks)  # a field starts after the blank before it
        starts[0] = 0
        np.add(blanks[:-1], 1, out=starts[1:])
        starts, ends = starts.reshape(-1, n), blanks.reshape(-1, n)
        separators = kinds[:, :-1]
        if (np.all(kinds[:, -1] == 10) and np.all(blanks[1:] - blanks[:-1] > 1) and b[0] > 32
                and (np.all(separators == 32) or np.all((separators == 32) | (separators == 9)))
                and not np.any(b[starts[:, 0]] == ord("#"))):
            return b, starts, ends
    return b, *_fields_of_any_line(b, kind, n)


def _fields_of_any_line(b, kind, n):
    """:func:`fields` for lines of any layout: every field's edges, then the lines' fields."""
    # C's isspace: ' ' and \t \n \v \f \r (9-13; in uint8, b - 9 wraps below 9),
    # after a space put before the block (space[i + 1] is byte i's)
    space = np.empty(len(b) + 1, dtype=bool)
    space[0] = True
    np.equal(b, 32, out=space[1:])
    space[1:] |= (b - 9) <= 4
    edges = np.flatnonzero(space[1:] != space[:-1])  # where a field starts or ends
    starts, ends = edges[0::2], edges[1::2]  # the block ends with "\n": every field ends
    newlines = np.flatnonzero(b == 10)
    upto = np.searchsorted(starts, newlines)  # fields that start before each line's end
    first = np.concatenate(([0], upto[:-1]))
    count = upto - first
    if kind == "qrels":  # a comment: "#" in the first column
        line_starts = np.concatenate(([0], newlines[:-1] + 1))
        keep = (count > 0) & (b[line_starts] != ord("#"))
    else:  # "#" as the first non-blank character
        keep = count > 0
        keep[keep] = b[starts[first[keep]]] != ord("#")
    first, count = first[keep], count[keep]
    if np.any(count < n) or (kind == "qrels" and np.any(count > n)):
        raise Unusual  # the readable reader names the line
    columns = first[:, None] + np.arange(n)
    return starts[columns], ends[columns]


# ----------------------------------------------------------------- values

def check_integers(b, starts, ends):
    """Raise :class:`Unusual` unless every field spells an integer (a rank: its value is not read).

    A field of 1 to 8 digits is checked as one word (its bytes, and ``"0"``
    for those before it, all ASCII digits); any other by :func:`integers`.
    """
    lengths = ends - starts
    plain = (lengths >= 1) & (lengths <= 8) & (ends >= 8)
    windows = np.ndarray(max(len(b) - 7, 0), dtype="<u8", buffer=b, strides=(1,))
    word = windows[np.where(plain, ends - 8, 0)]
    before = _LOW[np.where(plain, 8 - lengths, 0)]
    word = (word & ~before) | (_ZEROS & before)
    high = np.uint64(0xF0F0F0F0F0F0F0F0)
    plain &= ((word & high) == _ZEROS) & (((word + np.uint64(0x0606060606060606)) & high) == _ZEROS)
    other = np.flatnonzero(~plain)
    if len(other):
        integers(b, starts[other], ends[other])


def integers(b, starts, ends):
    """The integers spelled by fields (an optional sign, ASCII digits, 64 bits), or :class:`Unusual`.

    A field of at most 8 bytes is read as one word (:func:`_eight_digits`),
    any other by ``int()``.
    """
    value, after, negative, plain = _eight_digits(b, starts, ends)
    plain &= after < 0  # (a point: no integer)
    values = np.where(negative, -value, value)
    other = np.flatnonzero(~plain)
    if len(other):
        values[other] = _by_python(b, starts[other], ends[other], b"0123456789+-", int)
    return values


def decimals(b, starts, ends):
    """The floats spelled by fields as C's ``strtod`` reads them, or :class:`Unusual`.

    A field of at most 8 bytes, an optional sign, digits and one point (most
    scores), is read as one word (:func:`_eight_digits`): its digits make an
    integer ``m`` with ``f`` of them after the point, and ``m / 10**f`` is
    one correctly rounded division, the double nearest the decimal, which is
    ``strtod``'s result (Clinger's fast path).  Any other field made of
    digits, signs, points and exponents (``1.25e-05``,
    ``0.12345678901234567``) is read by ``float()``, which rounds as
    ``strtod`` does; ``inf``, hexadecimal scores and errors go to the
    readable reader.
    """
    value, after, negative, plain = _eight_digits(b, starts, ends)
    values = value / 10.0 ** np.maximum(after, 0)
    values[negative] *= -1  # (after the division: "-0" is -0.0, as strtod reads it)
    other = np.flatnonzero(~plain)
    if len(other):
        values[other] = _by_python(b, starts[other], ends[other], b"0123456789+-.eE", float)
    return values


def _by_python(b, starts, ends, allowed, read):
    """Fields made of the ``allowed`` bytes only, read by ``int()`` or ``float()``; else :class:`Unusual`."""
    tokens = [b[s:e].tobytes() for s, e in zip(starts.tolist(), ends.tolist())]
    if b"".join(tokens).translate(None, allowed):
        raise Unusual  # letters (inf, nan, hexadecimal), "_", other scripts' digits...
    try:
        return np.fromiter(map(read, tokens), dtype=np.int64 if read is int else np.float64,
                           count=len(tokens))
    except (ValueError, OverflowError):  # "1e", "+-1", beyond 64 bits
        raise Unusual from None


_ZEROS = np.uint64(0x3030303030303030)  # "00000000"
_LOW = np.array([(1 << 8 * n) - 1 for n in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
"""``_LOW[n]`` keeps the ``n`` lowest bytes of a word (the first ``n`` bytes in memory)."""


def _eight_digits(b, starts, ends):
    """Fields of 1 to 8 bytes read as little-endian 64-bit words: their digits as one integer,
    the digits after their point (-1: none), their sign, and which of them were read (plainly
    written: an optional sign, then digits with at most one point; the others are the caller's).

    The 8 bytes that end where a field ends are one word, its last
    character in the top byte; the bytes before the field become ``"0"``,
    a sign too (remembered), and the point is taken out by moving the
    bytes before it up by one.  If the 8 bytes are then digits, one
    multiply-and-shift per halving adds them up (the "eight digits at once"
    trick of fast number parsers).
    """
    lengths = ends - starts
    plain = (lengths <= 8) & (ends >= 8)  # (a field is never empty)
    windows = np.ndarray(max(len(b) - 7, 0), dtype="<u8", buffer=b, strides=(1,))
    word = windows[np.maximum(ends - 8, 0)]
    before = _LOW[8 - np.minimum(lengths, 8)]  # the bytes before the field: "0"
    word &= ~before
    word |= _ZEROS & before
    first = b[starts]
    negative = first == ord("-")
    signed = negative | (first == ord("+"))
    if np.any(signed):  # the sign byte, the lowest of the field's: "0" too
        sign_byte = _LOW[9 - lengths.clip(1, 8)] ^ before
        word = np.where(signed, (word & ~sign_byte) | (_ZEROS & sign_byte), word)
    # the point: in one place for every field (a fixed number of decimals), or found in each
    dots = np.flatnonzero(b[starts[0]:ends[0]] == ord("."))
    after = int(ends[0] - starts[0] - 1 - dots[0]) if len(dots) == 1 else -1
    if 0 <= after <= 7 and np.all(b[np.maximum(ends - 1 - after, 0)] == ord(".")):
        at = np.full(len(starts), 7 - after)
        word = (word & ~_LOW[8 - after]) | ((word & _LOW[7 - after]) << np.uint64(8)) | np.uint64(0x30)
    else:
        t = word ^ np.uint64(0x2E2E2E2E2E2E2E2E)
        low7 = np.uint64(0x7F7F7F7F7F7F7F7F)
        found = ~(((t & low7) + low7) | t) & np.uint64(0x8080808080808080)  # (exact per byte)
        plain &= np.bitwise_count(found) <= 1
        at = (np.bitwise_count(found - np.uint64(1)) // 8).astype(np.int64)  # 8: no point
        moved = (word & ~_LOW[(at + 1).clip(0, 8)]) | ((word & _LOW[at.clip(0, 8)]) << np.uint64(8))
        word = np.where(at < 8, moved | np.uint64(0x30), word)
    high = np.uint64(0xF0F0F0F0F0F0F0F0)
    plain &= ((word & high) == _ZEROS) & (((word + np.uint64(0x0606060606060606)) & high) == _ZEROS)
    plain &= lengths > signed + (at < 8)  # a digit at least
    value = word - _ZEROS
    value = ((value & np.uint64(0x0F0F0F0F0F0F0F0F)) * np.uint64(2561)) >> np.uint64(8)
    value = ((value & np.uint64(0x00FF00FF00FF00FF)) * np.uint64(6553601)) >> np.uint64(16)
    value = ((value & np.uint64(0x0000FFFF0000FFFF)) * np.uint64(42949672960001)) >> np.uint64(32)
    return value.astype(np.int64), np.where(at < 8, 7 - at, -1), negative, plain


def query_changes(b, starts, ends):
    """The lines whose query id differs from the line before's (compared as 8-byte words)."""
    lengths = ends - starts
    words = id_words(b, starts, lengths, max(-(-int(lengths.max(initial=0)) // 8), 1))
    return np.flatnonzero(np.any(words[:, 1:] != words[:, :-1], axis=0)) + 1


def texts(b, starts, ends):
    """The fields as str (one ``split`` of the gathered bytes, in C)."""
    if not len(starts):
        return []
    spans = ends - starts + 1
    gathered = b[ranges(starts, spans)]
    gathered[np.cumsum(spans) - 1] = 10
    out = gathered.tobytes().decode("utf-8").split("\n")
    out.pop()
    return out


# ------------------------------------------------------------ nested dicts

def read_nested(path, kind):
    """``{qid: {docid: value}}`` of a qrels or run file, read in blocks; :class:`Unusual` otherwise."""
    nested, sizes = {}, {}
    for block in blocks(path):
        b, starts, ends = fields(block, kind)
        if not len(starts):
            continue
        value = 3 if kind == "qrels" else 4
        if kind == "qrels":
            values = integers(b, starts[:, 3], ends[:, 3]).tolist()
        else:
            check_integers(b, starts[:, 3], ends[:, 3])  # the rank: an integer, then ignored
            values = decimals(b, starts[:, value], ends[:, value]).tolist()
        docids = texts(b, starts[:, 2], ends[:, 2])
        bounds = [0, *query_changes(b, starts[:, 0], ends[:, 0]).tolist(), len(starts)]
        qids = texts(b, starts[bounds[:-1], 0], ends[bounds[:-1], 0])
        for qid, lo, hi in zip(qids, bounds[:-1], bounds[1:]):
            nested.setdefault(qid, {}).update(zip(docids[lo:hi], values[lo:hi]))
            sizes[qid] = sizes.get(qid, 0) + hi - lo
    if any(len(nested[qid]) != size for qid, size in sizes.items()):
        raise Unusual  # a document twice for a query
    return nested


# ------------------------------------------------------------ ids and hashes

_MIX = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB))


def _hashes(words, query):
    """A 64-bit hash of each id (its words and length) and its query: equal ids of one query,
    equal hashes; two different ones, almost surely different (every match is checked)."""
    lengths = words[-1]
    with np.errstate(over="ignore"):
        h = (query.astype(np.uint64) + np.uint64(1)) * _MIX[0] ^ lengths * _MIX[1]
        for w in range(len(words) - 1):  # (only the words of the id: a table may have more)
            mixed = (h ^ words[w]) * _MIX[2]
            mixed ^= mixed >> np.uint64(31)
            h = np.where(lengths > 8 * w, mixed, h)
    return h


def _same(words_a, a, words_b, b):
    """Whether the ids ``a`` of one word table equal the ids ``b`` of the other."""
    rows = max(len(words_a), len(words_b)) - 1
    equal = words_a[-1][a] == words_b[-1][b]
    for w in range(rows):
        wa = words_a[w][a] if w < len(words_a) - 1 else 0
        wb = words_b[w][b] if w < len(words_b) - 1 else 0
        equal &= wa == wb
    return equal


@dataclasses.dataclass
class QrelsColumns:
    """A qrels file as columns: each judgement's query, grade and id (bytes, words, hash).

    Judgements are grouped by query (in the order of their first line);
    query ``i`` is ``qids[i]``, its judgements ``starts[i]`` to
    ``starts[i] + sizes[i]``.
    """

    qids: list
    index: dict
    starts: np.ndarray
    sizes: np.ndarray
    query: np.ndarray
    grades: np.ndarray
    raw: bytes
    id_starts: np.ndarray
    id_lengths: np.ndarray
    words: np.ndarray
    hashes: np.ndarray

    @classmethod
    def read(cls, path):
        """The columns of a qrels file; :class:`Unusual` if it is not plainly written."""
        parts, qids, index = [], [], {}
        offset = 0
        for block in blocks(path):
            b, starts, ends = fields(block, "qrels")
            if not len(starts):
                continue
            bounds = [0, *query_changes(b, starts[:, 0], ends[:, 0]).tolist(), len(starts)]
            names = texts(b, starts[bounds[:-1], 0], ends[bounds[:-1], 0])
            query = np.repeat([index.setdefault(q, len(index)) for q in names], np.diff(bounds))
            parts.append((query, integers(b, starts[:, 3], ends[:, 3]),
                          starts[:, 2] + offset, ends[:, 2] - starts[:, 2], block))
            offset += len(block)
        return cls.build(index, *(np.concatenate([p[i] for p in parts]) if parts else
                                  np.zeros(0, dtype=np.int64) for i in range(4)),
                         b"".join(p[4] for p in parts))

    @classmethod
    def from_dict(cls, qrels):
        """The columns of ``{qid: {docid: grade}}`` (checked before)."""
        index = {q: i for i, q in enumerate(qrels)}
        encoded = [[d.encode("utf-8", "surrogatepass") for d in docs] for docs in qrels.values()]
        sizes = np.array([len(e) for e in encoded], dtype=np.int64)
        flat = [d for e in encoded for d in e]
        lengths = np.fromiter(map(len, flat), dtype=np.int64, count=len(flat))
        starts = np.cumsum(lengths) - lengths
        grades = np.fromiter((int(g) for docs in qrels.values() for g in docs.values()),
                             dtype=np.int64, count=len(flat))
        return cls.build(index, np.repeat(np.arange(len(sizes)), sizes), grades, starts, lengths,
                         b"".join(flat))

    @classmethod
    def build(cls, index, query, grades, id_starts, id_lengths, raw):
        """Group the judgements by query (stably) and compute their words and hashes."""
        order = np.argsort(query, kind="stable")
        query, grades = query[order], grades[order]
        id_starts, id_lengths = id_starts[order], id_lengths[order]
        raw = raw + bytes(8)
        words = id_words(raw, id_starts, id_lengths, max(-(-int(id_lengths.max(initial=0)) // 8), 1))
        sizes = np.bincount(query, minlength=len(index))
        return cls(list(index), index, np.cumsum(sizes) - sizes, sizes, query, grades, raw,
                   id_starts, id_lengths, words, _hashes(words, query))

    def docid(self, j):
        start = int(self.id_starts[j])
        return self.raw[start:start + int(self.id_lengths[j])].decode("utf-8", "surrogatepass")


def run_chunks(path, qrels, scores, seen):
    """The :class:`Chunk` s of a run file, one block of whole queries at a time.

    ``qrels`` is a :class:`QrelsColumns`; a query of the run without
    judgements is not in any chunk.  ``seen`` receives every query id of
    the run, in its order.  The lines of a query must be together (as in
    every TREC run): a query id met again after another raises
    :class:`NotGrouped`.  Each run document is looked for among its query's
    judgements by its hash, and every match checked byte for byte.
    """
    carried = b""
    pending = set()
    for block in chain(blocks(path), [None]):  # (None: the end of the file)
        last = block is None
        block = carried + (block or b"")
        if not block:
            break
        b, starts, ends = fields(block, "run")
        if not len(starts):
            carried = b""
            continue
        bounds = [0, *query_changes(b, starts[:, 0], ends[:, 0]).tolist(), len(starts)]
        if not last and len(bounds) == 2:  # one query, maybe not whole: read on
            carried = block
            continue
        cut = len(bounds) - 1 if last else len(bounds) - 2  # the last query may go on
        carried = b"" if last else block[int(starts[bounds[cut], 0]):]
        names = texts(b, starts[bounds[:cut], 0], ends[bounds[:cut], 0])
        for name in names:
            if name in pending:
                raise NotGrouped
            pending.add(name)
            seen.append(name)
        lines = bounds[cut]
        chunk = _run_chunk(block, b, starts[:lines], ends[:lines], np.array(bounds[:cut + 1]),
                           names, qrels, scores)
        if chunk is not None:
            yield chunk


def _run_chunk(block, b, starts, ends, bounds, names, qrels, scores):
    """The :class:`Chunk` of some whole queries of a block (those with judgements)."""
    check_integers(b, starts[:, 3], ends[:, 3])  # the rank: an integer, then ignored
    values = decimals(b, starts[:, 4], ends[:, 4])
    judged = np.array([qrels.index.get(name, -1) for name in names], dtype=np.int64)
    keep = np.flatnonzero(judged >= 0)
    keep = keep[qrels.sizes[judged[keep]] > 0]  # (judged with {}: no judgement)
    if not len(keep):
        return None
    sizes = np.diff(bounds)
    if len(keep) == len(names):  # (the usual case: every query of the block is judged)
        lines = slice(None)
    else:
        lines = ranges(bounds[:-1][keep], sizes[keep])
        sizes, judged = sizes[keep], judged[keep]
    id_starts = starts[lines, 2]
    id_lengths = ends[lines, 2] - id_starts
    raw = block + bytes(8)
    words = id_words(raw, id_starts, id_lengths, max(-(-int(id_lengths.max()) // 8), 1))
    query = np.repeat(judged, sizes)
    hashes = _hashes(words, query)
    order = np.argsort(hashes)
    ordered = hashes[order]
    twice = np.flatnonzero(ordered[1:] == ordered[:-1])
    if len(twice) and np.any(_same(words, order[twice], words, order[twice + 1])):
        raise Unusual  # a document twice for a query: the readable reader names it
    # the judgements of these queries, each looked for among the run's documents
    mine = ranges(qrels.starts[judged], qrels.sizes[judged])
    if len(twice):  # two of the run's documents with one hash: compare bytes instead
        found, match = _exact(qrels, mine, raw, id_starts, id_lengths, query)
    else:
        theirs = qrels.hashes[mine]
        place = np.minimum(np.searchsorted(ordered, theirs), len(ordered) - 1)
        match = np.flatnonzero(ordered[place] == theirs)
        found = order[place[match]]
        good = _same(words, found, qrels.words, mine[match])
        found, match = found[good], match[good]
    entry_values = values[lines]
    judged_scores = np.full(len(mine), np.nan)
    judged_scores[match] = entry_values[found]
    if scores == "float32":  # read as a double, kept as a float: as trec_eval 9.x
        with np.errstate(over="ignore"):
            entry_values = entry_values.astype(np.float32)
    local = np.repeat(np.arange(len(judged)), qrels.sizes[judged])
    return Chunk(
        qids=[names[i] for i in keep.tolist()], sizes=sizes, scores=entry_values,
        ids=lambda entries: (raw, id_starts[entries], id_lengths[entries]),
        judged_query=local, judged_grades=qrels.grades[mine], judged_scores=judged_scores,
        judged_ids=lambda j: (qrels.raw, qrels.id_starts[mine[j]], qrels.id_lengths[mine[j]]),
        name_judged=lambda j: f"document {qrels.docid(mine[j])!r} of query "
                              f"{qrels.qids[int(judged[local[j]])]!r}")


def _exact(qrels, mine, raw, id_starts, id_lengths, query):
    """Run documents matched to judgements by their bytes (when two judgements share a hash)."""
    judgement = {(int(qrels.query[j]), qrels.raw[qrels.id_starts[j]:qrels.id_starts[j]
                                                 + qrels.id_lengths[j]]): k
                 for k, j in enumerate(mine.tolist())}
    pairs = [(e, judgement.get((q, raw[s:s + n])))
             for e, (q, s, n) in enumerate(zip(query.tolist(), id_starts.tolist(),
                                               id_lengths.tolist()))]
    found = np.array([e for e, k in pairs if k is not None], dtype=np.int64)
    return found, np.array([k for _, k in pairs if k is not None], dtype=np.int64)


def path_of(value):
    """``value`` as a path if it names a file (str or path-like), else None."""
    return os.fspath(value) if isinstance(value, (str, os.PathLike)) else None
