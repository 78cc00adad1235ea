"""Step 3 of :func:`~ragmetrics_edu.retrieval.batch.evaluate`, ranking: engine, not lesson.

trec_eval orders a query's documents by score (compared as 32-bit floats,
or doubles in trec_eval 10.0), then breaks ties by document id in
descending ``strcmp`` order (rules 1-3 of
:mod:`ragmetrics_edu.retrieval.batch.evaluator`).  :func:`rank` does that
for a :class:`Chunk` of whole queries at a time and returns the
:class:`~ragmetrics_edu.retrieval.batch.kernels.Ranked` form the kernels
read: the judged documents at their ranks.  Each query is sorted once:

* every document gets one 64-bit key, its query in the high bits and its
  score below (smaller is better), and one ``np.argsort`` orders the keys
  of every query;
* a judged document's rank is 1 + the number of its query's keys below
  its own (a binary search), + the documents that tie with it (the same
  key) and have a larger id: its tie group's ids are sorted as
  fixed-width byte strings that NumPy compares as ``memcmp`` does
  (:func:`_larger_ids`), or, for very long ids, by Python's ``sorted``.

The packed-key fast path: when a chunk has many ties, short ids (at most 7
bytes, as integer document numbers) and few distinct scores, the id fits in
the key too, below the score, and the binary search alone gives the rank
(:func:`_packed_ranks`): heavy ties cost no more than any run.  Both paths
give the same ranks (tested); which one runs is only a question of speed.
The readable definition of the order is
:func:`ragmetrics_edu.retrieval.conventions.rank`.
"""

import bisect
import dataclasses
from itertools import chain

import numpy as np

from ._words import KEEP_BYTES as _KEEP_BYTES
from ._words import first_words, ranges
from .kernels import Ranked

__all__ = ["Chunk", "rank", "trec_ranks", "utf8_ids", "joined_entries"]


@dataclasses.dataclass(frozen=True)
class Chunk:
    """Some whole queries of a run and their judgements, as columns: what :func:`rank` ranks.

    Query ``q`` holds the run's documents ``starts[q]`` to ``starts[q] +
    sizes[q]`` (``starts`` the cumulated ``sizes``); ``scores`` are compared
    as float32 (trec_eval 9.x) or float64 (trec_eval 10.0), as their dtype
    says.  Judgement ``j`` is of query ``judged_query[j]``, of grade
    ``judged_grades[j]``, and its document has the score
    ``judged_scores[j]`` in the run (float64; NaN if not retrieved).
    ``ids(entries)`` and ``judged_ids(judgements)`` give the UTF-8 of some
    ids (indices, or a slice of them: ``raw`` bytes, ending with 8 zero
    bytes, and each id's first byte and length), read only for ties; ``name_judged(j)`` says
    ``"document 'd' of query 'q'"``.
    """

    qids: list
    sizes: np.ndarray
    scores: np.ndarray
    ids: object
    judged_query: np.ndarray
    judged_grades: np.ndarray
    judged_scores: np.ndarray
    judged_ids: object
    name_judged: object


def rank(chunk, depth=None):
    """The :class:`~ragmetrics_edu.retrieval.batch.kernels.Ranked` form of a chunk's queries.

    The judged documents the run holds, at their ranks (:func:`trec_ranks`),
    by query then rank; with a ``depth`` (trec_eval's ``-M``), only those in
    the top ``depth`` of their query: a document's rank is the same in the
    whole ranking and in its top ``depth``, so cutting after ranking is
    trec_eval's cut.
    """
    retrieved = np.flatnonzero(~np.isnan(chunk.judged_scores))
    ranks = trec_ranks(chunk, retrieved)
    n_ranked = chunk.sizes
    if depth is not None:
        kept = ranks <= depth
        retrieved, ranks, n_ranked = retrieved[kept], ranks[kept], np.minimum(n_ranked, depth)
    query = chunk.judged_query[retrieved]
    order = np.argsort((query.astype(np.int64) << 32) | ranks)  # by query, then rank
    picked = retrieved[order]
    judged_query, judged_grades = _best_first(chunk.judged_query, chunk.judged_grades)

    def name_judged(q, grade):  # a judgement of query q with this grade
        same = (chunk.judged_query == q) & (chunk.judged_grades == grade)
        return chunk.name_judged(int(np.flatnonzero(same)[0]))

    return Ranked(qids=chunk.qids, query=query[order], rank=ranks[order],
                  grade=chunk.judged_grades[picked], n_ranked=n_ranked,
                  judged_query=judged_query, judged_grade=judged_grades,
                  name_ranked=lambda i: chunk.name_judged(int(picked[i])),
                  name_judged=name_judged)


def trec_ranks(chunk, retrieved):
    """The rank of each retrieved judgement: 1 + the documents of its query trec_eval puts first."""
    sizes, scores = chunk.sizes, chunk.scores
    key_of, bits = _score_keys(scores)
    query = chunk.judged_query[retrieved]
    keys = key_of(scores) | (np.repeat(np.arange(len(sizes), dtype=np.uint64), sizes) << bits)
    if _many_ties(keys):  # the ids packed in the keys, if they fit
        packed = _packed_ranks(chunk, retrieved, keys & np.uint64((1 << bits) - 1))
        if packed is not None:
            return packed
    wanted = key_of(chunk.judged_scores[retrieved]) | (query.astype(np.uint64) << bits)
    ordered = np.sort(keys)
    tied = np.count_nonzero(ordered[1:] == ordered[:-1])
    first = np.searchsorted(ordered, wanted, "left")
    ranks = first - (np.cumsum(sizes) - sizes)[query] + 1  # 1 + the documents scored higher
    if tied:  # + the documents that tie with it and have a larger id
        after = np.searchsorted(ordered, wanted, "right")
        tied = np.flatnonzero(after - first > 1)
        if len(tied):
            order = np.argsort(keys)  # (which documents fill the tied places)
            ranks[tied] += _larger_ids(chunk, order, first[tied], after[tied], retrieved[tied])
    return ranks


def _many_ties(keys, sample=4096):
    """Whether a chunk's first documents tie more often than :data:`_HEAVY_TIES` (a guess that only
    chooses the faster path: both give the same ranks)."""
    ordered = np.sort(keys[:sample])
    return np.count_nonzero(ordered[1:] == ordered[:-1]) > _HEAVY_TIES * len(ordered)


def _score_keys(scores):
    """A function giving each score an unsigned key (smaller is better, equal if equal), and its bits.

    float32 (trec_eval 9.x): the score's 32 bits, made sortable
    (:func:`_sortable`) and reversed.  float64 (trec_eval 10.0): a double
    has 64 bits, so its key is its place among the chunk's distinct scores
    (a judged document's score is one of them).
    """
    if scores.dtype == np.float32:
        def key_of(values):
            with np.errstate(over="ignore"):  # 1e300 becomes inf, as in trec_eval
                floats = values.astype(np.float32)
            return _sortable(floats).astype(np.uint64) ^ np.uint64(0xFFFFFFFF)
        return key_of, 32
    distinct = _unique(scores + 0.0)[0]  # + 0.0: -0.0 and 0.0 are one score
    last = len(distinct) - 1
    return (lambda values: (last - np.searchsorted(distinct, values + 0.0)).astype(np.uint64),
            max(last.bit_length(), 1))


def _sortable(scores32):
    """Map float32 scores to uint32 keys whose integer order is the float order.

    ``+ 0`` turns ``-0.0`` into ``0.0`` (the two are equal scores).  Then the
    IEEE bit pattern is made sortable as an unsigned integer: a negative
    float has all its bits flipped, a positive one only its sign bit.
    """
    bits = (scores32 + np.float32(0.0)).view(np.uint32)
    mask = bits >> np.uint32(31)  # sign bit 1 -> 0xFFFFFFFF, 0 -> 0x80000000
    np.negative(mask, out=mask)
    mask |= np.uint32(0x80000000)
    return bits ^ mask


def _unique(values):
    """Sorted distinct values and, for each value, the index of its distinct value.

    What ``np.unique(values, return_inverse=True)`` returns; written out
    because ``np.unique`` imports ``numpy.ma`` on first use (20 ms).
    """
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    is_new = np.ones(len(values), dtype=bool)
    is_new[1:] = ordered[1:] != ordered[:-1]
    inverse = np.empty(len(values), dtype=np.int64)
    inverse[order] = np.cumsum(is_new) - 1
    return ordered[is_new], inverse


_PACKED_ID_BYTES = 7
"""The longest id a packed key holds (the key's other bits: the query and the score)."""

_PACKED_BLOCK = 1024
"""The fewest documents sorted at a time by packed keys (:func:`_packed_ranks`)."""

_HEAVY_TIES = 0.25
"""The share of documents tied with the next one above which packed keys are tried."""


def _packed_ranks(chunk, retrieved, keys):
    """Every retrieved judgement's rank by keys that hold the id too, or None if they do not fit.

    Each key holds, from its high bits: the query (its place in a block of
    queries), the score's place among the chunk's distinct scores, then the
    id's bytes as one big-endian number subtracted from the largest, so that
    a larger id comes first.  Only ids without a zero byte (so that
    zero-padding orders ``"ab"`` after ``"abc"`` as ``strcmp`` does), of at
    most :data:`_PACKED_ID_BYTES`.  The queries are sorted a block at a
    time, as many queries as the key's bits left over can tell apart; a
    judged document's rank is then its key's place in its query.  ``keys``
    are the documents' score keys.
    """
    sizes, n = chunk.sizes, len(chunk.scores)
    ids = _id_numbers(*chunk.ids(slice(0, n)))
    if ids is None:
        return None
    number, width = ids
    key_of = _score_keys(chunk.scores)[0]
    distinct = _distinct(keys)
    query_bits = 64 - int(len(distinct) - 1).bit_length() - 8 * width
    if query_bits < 1 or (1 << query_bits) * n < min(n, _PACKED_BLOCK) * len(sizes):
        return None  # (blocks of a few documents: one sort each would cost more than the ties)
    block = 1 << min(query_bits, 62)  # the queries one key tells apart
    low = np.uint64(8 * width)

    def packed(query, score_place, id_number):
        local = (query.astype(np.uint64) % np.uint64(block)) << np.uint64(64 - query_bits)
        return local | (score_place.astype(np.uint64) << low) | id_number

    query = chunk.judged_query[retrieved]
    judged = _id_numbers(*chunk.judged_ids(retrieved), width=width)[0]  # (ids of the run)
    wanted = packed(query, _place(distinct, key_of(chunk.judged_scores[retrieved])), judged)
    keys = packed(np.repeat(np.arange(len(sizes)), sizes), _place(distinct, keys), number)
    starts = np.cumsum(sizes) - sizes
    ranks = np.empty(len(retrieved), dtype=np.int64)
    bounds = np.concatenate(([0], np.cumsum(sizes)))[[*range(0, len(sizes), block), len(sizes)]]
    for b, (first, last) in enumerate(zip(bounds[:-1].tolist(), bounds[1:].tolist())):
        inside = np.flatnonzero(query // block == b)
        place = np.searchsorted(np.sort(keys[first:last]), wanted[inside])
        ranks[inside] = place - (starts[query[inside]] - first) + 1
    return ranks


def _distinct(keys):
    """The distinct keys, sorted (few, in a chunk with many ties)."""
    ordered = np.sort(keys)
    return ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))]


def _place(distinct, keys):
    """Each key's place among the sorted ``distinct`` keys: one comparison each if they are few."""
    if len(distinct) > 16:
        return np.searchsorted(distinct, keys)
    place = np.zeros(len(keys), dtype=np.uint64)
    for value in distinct[1:].tolist():
        place += keys >= np.uint64(value)
    return place


def _id_numbers(raw, starts, lengths, width=None):
    """Ids of at most ``width`` bytes (default: the longest, if at most 7) as numbers that sort
    in reverse: the largest id, the smallest number; ``(numbers, width)``, or None if they do
    not fit or an id holds a zero byte."""
    width = int(lengths.max(initial=0)) if width is None else width
    if width > _PACKED_ID_BYTES:
        return None
    if width == 0:  # only empty ids
        return np.zeros(len(starts), dtype=np.uint64), 0
    words = first_words(raw, starts, np.minimum(lengths, 8), padded=True)  # big-endian
    # a zero byte inside an id: with the bytes past its end set to 0xFF, one
    # of its bytes is zero (the classic "has a zero byte" bit trick)
    filled = words | ~_KEEP_BYTES[np.minimum(lengths, 8)]
    if np.any((filled - np.uint64(0x0101010101010101)) & ~filled & np.uint64(0x8080808080808080)):
        return None
    return np.uint64((1 << 8 * width) - 1) - (words >> np.uint64(64 - 8 * width)), width


_MATRIX_BYTES = 1 << 26
"""Bytes the tied ids may take as a matrix (:func:`_larger_ids`); longer ones are sorted by Python."""


def _larger_ids(chunk, order, first, after, judgements):
    """For each tied judgement: the documents of its tie group (same query and score) with a larger id.

    The tie group of a judgement fills the places ``first`` to ``after`` of
    its query's sorted keys, and ``order`` says which documents those are.
    Each group's documents, and the judgements, become fixed-width byte
    strings that sort as their group, then their id reversed
    (:func:`_tie_keys`); the place of a judgement's string among its
    group's, sorted, is the number of documents of its group with a larger
    id.  Ids too long for :data:`_MATRIX_BYTES` are compared by Python.
    """
    groups, group_of = _unique(first)  # each tie group, known by its first place
    sizes = np.zeros(len(groups), dtype=np.int64)
    sizes[group_of] = after - first
    members = ranges(groups, sizes)
    raw, starts, lengths = chunk.ids(order[members])
    jraw, jstarts, jlengths = chunk.judged_ids(judgements)
    width = max(int(lengths.max(initial=0)), int(jlengths.max(initial=0)))
    group_start = np.cumsum(sizes) - sizes
    if len(members) * (width + 8) > _MATRIX_BYTES:
        ids = [raw[s:s + w] for s, w in zip(starts.tolist(), lengths.tolist())]
        by_group = [sorted(ids[g:g + n]) for g, n in zip(group_start.tolist(), sizes.tolist())]
        return np.array([len(by_group[g]) - bisect.bisect_right(by_group[g], jraw[s:s + w])
                         for g, s, w in zip(group_of.tolist(), jstarts.tolist(),
                                            jlengths.tolist())], dtype=np.int64)
    member_keys = np.sort(_tie_keys(np.repeat(np.arange(len(groups)), sizes), raw, starts,
                                    lengths, width))
    place = np.searchsorted(member_keys, _tie_keys(group_of, jraw, jstarts, jlengths, width))
    return place - group_start[group_of]


def _tie_keys(group, raw, starts, lengths, width):
    """One byte string per id that sorts as its group, then its id descending (``memcmp``).

    Its group (4 bytes, big-endian), its id's bytes reversed (``255 -
    byte``) and padded with 255, then its length reversed: a larger id sorts
    first, ``"ab"`` before ``"a"`` (``strcmp``), ``"a\\0"`` before ``"a"``
    (Python's ``sorted``).
    """
    n = len(group)
    matrix = np.full((n, width + 8), 255, dtype=np.uint8)
    matrix[:, :4] = group.astype(">u4").view(np.uint8).reshape(n, 4)
    columns = np.arange(width)
    octets = np.frombuffer(raw, dtype=np.uint8).take(starts[:, None] + columns, mode="clip")
    matrix[:, 4:4 + width] = np.where(columns < lengths[:, None], 255 - octets, 255)
    matrix[:, 4 + width:] = (~lengths.astype(">u4")).view(np.uint8).reshape(n, 4)
    return matrix.view(f"S{width + 8}").ravel()


def _best_first(query, grades):
    """Judgements sorted by query, each query's best grade first."""
    if not len(grades):
        return query, grades
    low, high = int(grades.min()), int(grades.max())
    bits = (high - low).bit_length()
    if bits + int(query.max()).bit_length() <= 62:  # the usual case: one integer sort
        order = np.argsort((query.astype(np.int64) << bits) | (high - grades), kind="stable")
    else:  # grades spread over most of 64 bits
        order = np.lexsort((~grades, query))
    return query[order], grades[order]


# ---------------------------------------------------------------- ids as bytes

def utf8_ids(joined, count, ids):
    """The UTF-8 of ``count`` ids joined by ``"\\0"``: bytes (8 zero bytes after them), and each
    id's first byte and length.

    The ``"\\0"`` bytes give where the ids end (UTF-8 writes no other
    zero byte).  If an id holds a ``"\\0"`` itself, there are too many of
    them: then every id is encoded on its own (``ids()`` gives them again).
    ``"surrogatepass"`` encodes a lone surrogate too, in code point order.
    """
    raw = joined.encode("utf-8", "surrogatepass")
    if not count:
        return bytes(8), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    bounds = _id_bounds(raw, count)
    if bounds is None:
        encoded = [d.encode("utf-8", "surrogatepass") for d in ids()]
        raw = b"\0".join(encoded)
        ends = np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=count) + 1) - 1
        bounds = np.concatenate(([-1], ends[:-1], [len(raw)]))
    starts = bounds[:-1] + 1
    return raw + bytes(8), starts, bounds[1:] - starts


def _id_bounds(raw, count):
    """Where the ``count`` ids joined by zero bytes in ``raw`` end, or None if an id holds a zero byte.

    Id i is ``raw[bounds[i] + 1 : bounds[i + 1]]``.
    """
    separators = np.flatnonzero(np.frombuffer(raw, dtype=np.uint8) == 0)
    if len(separators) != count - 1:
        return None
    return np.concatenate(([-1], separators, [len(raw)]))


def joined_entries(dicts):
    """The keys of the dicts, one after the other (for :func:`utf8_ids`)."""
    return chain.from_iterable(dicts)
