"""The tie and ordering engine of :func:`~ragmetrics_edu.retrieval.batch.evaluate`: engine, not lesson.

trec_eval ranks a query's documents by score compared as 32-bit floats,
then breaks ties by document id in descending ``strcmp`` order (rules 2
and 3 of :mod:`ragmetrics_edu.retrieval.batch.evaluator`).  Doing that for
a million documents without a Python statement per document takes the
machinery here: scores turned into sortable unsigned integers, each query's
segment sorted as a row of a matrix, ids compared as big-endian 8-byte
words (:mod:`._words`) a chunk of entries at a time, and a ``unique`` that
keeps the inverse.  A run with few distinct scores and short ids (heavy
ties) skips the comparisons of tied ids: score and id fit in one 64-bit
key, and one sort of them orders each query (:func:`_packed_ranks`).
None of it changes a number; a student can skip this file: the readable
definition of the order is in
:func:`ragmetrics_edu.retrieval.order_aware.average_precision` and friends.
"""

from itertools import chain

import numpy as np

from ._words import first_words as _first_words
from ._words import id_words as _id_words
from ._words import ranges as _ranges

def _to_float32(scores):
    """Round scores to 32-bit floats, as trec_eval stores them (1e300 -> inf)."""
    with np.errstate(over="ignore"):
        return np.asarray(scores).astype(np.float32)


def _sortable(scores32):
    """Map float32 scores to uint32 keys whose integer order is the float order.

    ``+ 0`` turns ``-0.0`` into ``0.0`` (the two are equal scores).  Then the
    IEEE bit pattern is made sortable as an unsigned integer: a negative
    float has all its bits flipped, a positive one only its sign bit.
    """
    bits = (scores32 + np.float32(0.0)).view(np.uint32)
    # sign bit 1 -> mask 0xFFFFFFFF, sign bit 0 -> mask 0x80000000
    # (computed in place: with a million scores, every temporary is 4 MB)
    mask = bits >> np.uint32(31)
    np.negative(mask, out=mask)
    mask |= np.uint32(0x80000000)
    bits ^= mask
    return bits




def _sort_each_query(values, starts, sizes):
    """Sort ``values[start : start + size]`` of every query, in place.

    NumPy cannot sort many segments of one array in one call, but it sorts
    every row of a matrix in one call, and fast: a short row fits in the
    cache and is sorted with SIMD instructions (10,000 rows of 100 in about
    1 ms, against about 50 ms for one sort of the million values).
    So queries are put in rows, those of similar sizes together (sizes
    2 to 2, 3 to 4, 5 to 8, ...: at most 2x padding), short rows padded with
    the largest value, which sorts to their end.  A run of fixed depth (100
    documents for every query) is one matrix already: no copy at all.
    """
    size_class = np.frexp(np.maximum(sizes, 1) - 1)[1]  # bit length of size - 1
    size_class[sizes < 2] = -1  # 0 or 1 document: already sorted
    for c in np.flatnonzero(np.bincount(size_class + 1)[1:]).tolist():
        queries = np.flatnonzero(size_class == c)
        lengths = sizes[queries]
        width = int(lengths.max())
        if (lengths == width).all() and queries[-1] - queries[0] + 1 == len(queries):
            # consecutive queries of one size (a run of fixed depth): their
            # values are already a matrix, sorted where they lie
            first = int(starts[queries[0]])
            values[first:first + len(queries) * width].reshape(-1, width).sort(axis=1)
            continue
        columns = np.arange(width)
        is_real = columns < lengths[:, None]  # row r holds lengths[r] documents
        positions = (starts[queries][:, None] + columns)[is_real]
        largest = np.inf if values.dtype.kind == "f" else np.iinfo(values.dtype).max
        rows = np.full((len(queries), width), largest, dtype=values.dtype)
        rows[is_real] = values[positions]
        rows.sort(axis=1)
        values[positions] = rows[is_real]


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


_PACKED_SCORE_BITS = 8
"""Bits of a packed key (:func:`_packed_ranks`) for the score: at most 256 distinct scores."""
_PACKED_ID_BYTES = 7
"""Bytes of a packed key for the id: the other 56 bits."""
_PACKED_SAMPLE = 4096
"""Scores at each end of the run, and characters of its first ids, looked at before packing it."""


def _packed_ranks(data, positions, found_score_keys=None):
    """Find and rank judged documents by sorting 64-bit keys; None if the run does not fit.

    When a run has at most 256 distinct scores (heavy ties: grades, integer
    scores) and ids of at most 7 bytes, each document fits in one uint64
    that sorts as trec_eval orders a query: the rank of its score among
    the run's distinct scores in the top 8 bits, its id's bytes below
    (zero-padded, so ``"ab"`` < ``"abc"``, as ``strcmp`` and ``sorted()``
    order them; an id holding a zero byte makes the run not fit).  Each
    query's keys are sorted (the rows of a matrix, :func:`_sort_each_query`),
    and a found document's rank is 1 + the number of keys of its query
    larger than its own, by a binary search in its query's row
    (:func:`_search_rows`): ties need no step of their own.

    ``positions`` are judged entries.  With ``found_score_keys`` they are
    retrieved ones, with these score keys (looked up in the run's dicts);
    without, they are found here: each query's ids are sorted too, each
    carrying its score's rank in its low byte (an id of 7 bytes leaves it
    free), and each judged id is searched for among them.  Returns the
    positions of the retrieved ones and their ranks.  Which runs fit is
    only a question of speed: the others take the general path
    (:func:`_count_larger_ids`), which gives the same ranks.
    """
    keys, n_run = data.score_keys, len(data.score_keys)
    if not len(positions) or not n_run:
        return None
    # Does the run fit?  Samples first (its first and last scores, its first
    # ids): a run that does not fit is mostly told in a few microseconds.
    if any(len(d) > _PACKED_ID_BYTES for d in data.run_ids[:_PACKED_SAMPLE].split("\0")):
        return None
    distinct = _unique(np.concatenate([keys[:_PACKED_SAMPLE], keys[-_PACKED_SAMPLE:]]))[0]
    score_rank = _rank_among(distinct, keys)  # every score must be among them
    if score_rank is None:
        return None
    raw = data.run_ids.encode("utf-8", "surrogatepass")
    if len(raw) > (_PACKED_ID_BYTES + 1) * n_run:  # (a shortcut: some id is longer)
        return None
    bounds = _id_bounds(raw, n_run)
    if bounds is None:
        return None
    starts = bounds[:-1] + 1
    lengths = bounds[1:] - starts
    del bounds
    if int(lengths.max()) > _PACKED_ID_BYTES:
        return None
    ids = _first_words(raw, starts, lengths)  # the id's bytes, big-endian; low byte 0
    del raw, starts, lengths
    score_rank = score_rank.astype(np.uint64)
    if found_score_keys is None and data.judged_ids.count("\0") != len(data.grades) - 1:
        return None  # a judged id holds a NUL: its first bytes could match a run id
    query = data.judged_query[positions]
    raw, starts, lengths = _utf8_ids(data.judged_ids, len(data.grades),
                                     lambda: chain.from_iterable(data.judgements), positions)
    judged_ids = _first_words(raw, starts, np.minimum(lengths, _PACKED_ID_BYTES))
    del raw, starts
    if found_score_keys is None:
        # the judged ids among each query's ids (sorted), found with their score's rank
        by_id = ids | score_rank
        _sort_each_query(by_id, data.run_starts, data.run_sizes)
        first = _search_rows(by_id, data.run_starts[query], data.run_sizes[query], judged_ids,
                             larger=False)
        candidate = by_id[np.minimum(first, n_run - 1)]
        found = ((lengths <= _PACKED_ID_BYTES)
                 & (first < data.run_starts[query] + data.run_sizes[query])
                 & ((candidate >> np.uint64(8)) == (judged_ids >> np.uint64(8))))
        del by_id
        positions, query, judged_ids = positions[found], query[found], judged_ids[found]
        found_rank = candidate[found] & np.uint64(0xFF)
    else:
        found_rank = np.searchsorted(distinct, found_score_keys).astype(np.uint64)
    shift = np.uint64(64 - _PACKED_SCORE_BITS)
    packed = ids >> np.uint64(8)
    packed |= score_rank << shift
    del ids, score_rank
    _sort_each_query(packed, data.run_starts, data.run_sizes)
    found_packed = judged_ids >> np.uint64(8)
    found_packed |= found_rank << shift
    # in each query's row, the first key larger than the found one's
    ends = data.run_starts[query] + data.run_sizes[query]
    first_larger = _search_rows(packed, data.run_starts[query], data.run_sizes[query],
                                found_packed, larger=True)
    return positions, 1 + (ends - first_larger)


def _search_rows(values, starts, sizes, needles, larger):
    """For each needle, where it goes in its row ``values[start : start + size]`` (sorted).

    ``larger=True``: the first value larger than the needle, else the first
    value not smaller (``start + size`` if none): NumPy's ``searchsorted``
    with ``side="right"`` and ``"left"``, in a row each, all at once.  The
    needles come query after query; a chunk of them is searched at a time,
    so that the rows it reads stay in the processor's cache from one step
    of the search to the next.
    """
    found = np.empty(len(needles), dtype=np.int64)
    steps = int(sizes.max(initial=0)).bit_length() + 1
    for lo in range(0, len(needles), _SEARCH_CHUNK):
        chunk = slice(lo, lo + _SEARCH_CHUNK)
        low, high, wanted = starts[chunk].copy(), starts[chunk] + sizes[chunk], needles[chunk]
        for _ in range(steps):
            middle = (low + high) >> 1
            row = np.take(values, middle, mode="clip")
            below = row <= wanted if larger else row < wanted
            below &= low < high
            low = np.where(below, middle + 1, low)
            high = np.where(below, high, np.minimum(middle, high))
        found[chunk] = low
    return found


_SEARCH_CHUNK = 1 << 13
"""Needles searched at a time by :func:`_search_rows`."""


def _rank_among(distinct, keys):
    """For each key, the number of ``distinct`` (sorted) keys below it; None if one is missing.

    None too if there are more than 2**``_PACKED_SCORE_BITS`` of them.  A
    few distinct keys (at most 16) are counted by one comparison each with
    every key, cheaper than a binary search for each key.
    """
    if len(distinct) > 2**_PACKED_SCORE_BITS:
        return None
    if len(distinct) <= 16:
        rank = np.zeros(len(keys), dtype=np.uint8)
        found = 0
        for value in distinct.tolist():
            found += int(np.count_nonzero(keys == value))
            rank += keys > value
        return rank if found == len(keys) else None
    rank = np.searchsorted(distinct, keys)
    np.minimum(rank, len(distinct) - 1, out=rank)
    return rank if np.array_equal(distinct[rank], keys) else None


def _count_larger_ids(data, hit_query, first_equal, after_equal, hit_positions,
                      max_pairs=200_000):
    """For each tied hit, count the documents of its query with the same score and a larger id.

    A *tie group* is the set of documents of one query with one score key;
    in the sorted run keys of :func:`_rank_relevant` it fills the slots
    ``first_equal`` to ``after_equal`` of each of its hits.  The hits come
    in key order, so the hits of one group are next to each other.  Steps:
    learn which run entry fills each slot of those groups
    (:func:`_slot_entries`); cut their ids and the hits' ids out of the
    joined ids as 8-byte words (:func:`_member_ids`, :func:`_id_words`);
    compare each hit's id with the ids of its group as C's ``strcmp`` does
    (:func:`_larger_ids`), ``max_pairs`` comparisons at a time to bound
    the memory, if the group has at most ``_PAIRWISE`` members; the hits of
    larger groups are sorted with their members instead
    (:func:`_count_by_sorting`), so that the work grows as ``n log n``
    with the size of a group, not as the product of its hits and members.
    """
    # 1. the groups, each known by its first slot: a new group starts
    # where the first slot changes
    is_first_hit = np.empty(len(first_equal), dtype=bool)
    is_first_hit[:1] = True
    np.not_equal(first_equal[1:], first_equal[:-1], out=is_first_hit[1:])
    group_of_hit = np.cumsum(is_first_hit) - 1
    group_first = first_equal[is_first_hit]
    group_size = after_equal[is_first_hit] - group_first
    group_query = hit_query[is_first_hit]
    queries = group_query[np.r_[True, group_query[1:] != group_query[:-1]]]

    # 2. the run entries that fill those slots, group after group: the
    # members of group g are members group_start[g] to group_start[g] + size - 1
    member_entry = _slot_entries(data, queries, group_first, group_size, group_query)
    group_start = np.cumsum(group_size) - group_size

    # 3. their ids and the hits' ids, as rows of 8-byte words
    raw, starts, lengths = _member_ids(data, queries, member_entry)
    hit_raw, hit_starts, hit_lengths = _utf8_ids(
        data.judged_ids, len(data.grades), lambda: chain.from_iterable(data.judgements),
        hit_positions)
    longest = max(int(lengths.max(initial=0)), int(hit_lengths.max(initial=0)))
    n_words = max(-(-longest // 8), 1)
    member_words = _id_words(raw, starts, lengths, n_words)
    hit_words = _id_words(hit_raw, hit_starts, hit_lengths, n_words)
    del raw, starts, lengths

    # 4. each hit of a small group against each member of its group (itself
    # included: not larger); the hits of large groups sorted with their members
    counts = np.zeros(len(first_equal), dtype=np.int64)
    hit_size = group_size[group_of_hit]
    small = hit_size <= _PAIRWISE
    pairwise = np.flatnonzero(small)
    if len(pairwise):
        counts[pairwise] = _count_pairwise(member_words, hit_words, pairwise,
                                           group_start[group_of_hit[pairwise]],
                                           hit_size[pairwise], max_pairs)
    if len(pairwise) < len(small):
        counts[~small] = _count_by_sorting(member_words, hit_words, group_of_hit, group_start,
                                           group_size, ~small)
    return counts


_PAIRWISE = 64
"""Largest tie group whose tied hits are compared with each of its members.

Comparing pairs is the fastest way for the small groups of most runs (a
few gathers per pair), but a group of ``n`` members with ``n / 2`` hits
makes ``n**2 / 2`` pairs: larger groups are sorted (:func:`_count_by_sorting`).
"""


def _count_pairwise(member_words, hit_words, hits, member_first, n_members, max_pairs):
    """Compare each of ``hits`` with ``n_members`` members from ``member_first``: the larger ids.

    Hits ``hits[lo:hi]`` are taken together, about ``max_pairs`` pairs at a time.
    """
    counts = np.empty(len(hits), dtype=np.int64)
    bounds = np.searchsorted(np.cumsum(n_members),
                             np.arange(max_pairs, n_members.sum(), max_pairs)).tolist()
    for lo, hi in zip([0, *bounds], [*bounds, len(hits)]):
        if lo == hi:
            continue
        n = n_members[lo:hi]
        member = _ranges(member_first[lo:hi], n)
        larger = _larger_ids(member_words, member, hit_words, np.repeat(hits[lo:hi], n))
        # the pairs of one hit are consecutive: add them up segment by segment
        counts[lo:hi] = np.add.reduceat(larger, np.cumsum(n) - n, dtype=np.int64)
    return counts


def _count_by_sorting(member_words, hit_words, group_of_hit, group_start, group_size, chosen):
    """For the ``chosen`` hits, the members of their group with a larger id, found by one sort.

    The chosen hits and every member of their groups are sorted together
    by group, then id (its words, then its length: :func:`_id_words`), a
    member before a hit of the same id (``np.lexsort``, whose last key
    comes first).  A hit's id is the id of one member of its group, so
    the members sorted before a hit are those whose id is not larger: the
    rest are the larger ones.
    """
    hits = np.flatnonzero(chosen)
    groups, group_of = _unique(group_of_hit[hits])  # (hits come group after group)
    sizes = group_size[groups]
    members = _ranges(group_start[groups], sizes)
    n_members = len(members)
    words = np.concatenate([member_words[:, members], hit_words[:, hits]], axis=1)
    group = np.concatenate([np.repeat(np.arange(len(groups)), sizes), group_of])
    is_hit = np.zeros(len(group), dtype=bool)
    is_hit[n_members:] = True
    # keys, the least significant first: hit after member, the length
    # (words[-1]), the words from the last to the first, the group
    order = np.lexsort((is_hit, words[-1], *words[-2::-1], group))
    del words
    place = np.empty(len(order), dtype=np.int64)
    place[order] = np.arange(len(order))
    # members sorted before each place (a hit's own id among them)
    members_before = np.cumsum(~is_hit[order]) - ~is_hit[order]
    before_in_group = members_before[place[n_members:]] - (np.cumsum(sizes) - sizes)[group_of]
    return sizes[group_of] - before_in_group


_CHUNK = 1 << 16
"""Entries filled at a time where a temporary array would otherwise be as long as the run."""


def _slot_entries(data, queries, group_first, group_size, group_query):
    """The run entry (index in the run arrays) in each slot of the groups, group after group.

    The ``queries`` holding the groups are sorted again, each score key
    carrying its entry's index in its low 32 bits (a run has fewer than
    2**32 documents): the sort puts every entry in the slot of its key in
    the sorted run keys (tied entries in entry order, which is all one
    here).  If those queries hold most of the run, the whole run is sorted
    in place of gathering them.
    """
    sizes = data.run_sizes[queries]
    n_run = len(data.score_keys)
    if 2 * int(sizes.sum()) > n_run:
        carried = data.score_keys.astype(np.uint64)
        np.left_shift(carried, np.uint64(32), out=carried)
        for lo in range(0, n_run, _CHUNK):  # (no second array of the run's size)
            carried[lo:lo + _CHUNK] |= np.arange(lo, min(lo + _CHUNK, n_run), dtype=np.uint64)
        _sort_each_query(carried, data.run_starts, data.run_sizes)
        slot = _ranges(group_first, group_size)
    else:
        entries = _ranges(data.run_starts[queries], sizes)
        carried = data.score_keys[entries].astype(np.uint64)
        np.left_shift(carried, np.uint64(32), out=carried)
        carried |= entries.astype(np.uint64)
        local_starts = np.cumsum(sizes) - sizes
        _sort_each_query(carried, local_starts, sizes)
        # slot s of query q is slot s - run_starts[q] of q among ``queries``
        shift = local_starts[np.searchsorted(queries, group_query)] - data.run_starts[group_query]
        slot = _ranges(group_first + shift, group_size)
    entries = carried[slot]
    entries &= np.uint64(0xFFFFFFFF)
    return entries.view(np.int64)  # (below 2**32: the same number)


def _member_ids(data, queries, entries):
    """The UTF-8 ids of run ``entries`` (of ``queries``): bytes, each one's first byte and length.

    They are cut out of the run's joined ids if ``queries`` hold most of
    the run (heavy ties), else out of those queries' ids joined again.
    """
    sizes = data.run_sizes[queries]
    n_run = len(data.score_keys)
    if 2 * int(sizes.sum()) > n_run:
        return _utf8_ids(data.run_ids, n_run, lambda: chain.from_iterable(data.rankings),
                         entries)
    dicts = [data.rankings[q] for q in queries.tolist()]  # each has 2 documents or more
    # an entry's place among the entries of ``queries`` (sorted)
    local = np.searchsorted(_ranges(data.run_starts[queries], sizes), entries)
    return _utf8_ids("\0".join(map("\0".join, dicts)), int(sizes.sum()),
                     lambda: chain.from_iterable(dicts), local)


def _utf8_ids(joined, count, ids, entries=None):
    """The UTF-8 of ``count`` ids joined by ``"\\0"``: bytes, first byte and length of ``entries``.

    The ``"\\0"`` bytes give where the ids end (UTF-8 writes no other
    zero byte).  If an id holds a ``"\\0"`` itself, there are too many of
    them: then every id is encoded on its own (``ids()`` gives them again).
    ``"surrogatepass"`` encodes a lone surrogate too, in code point order.
    ``entries`` (indices of ids, all of them if None) saves working out
    the places of ids that are not needed.
    """
    raw = joined.encode("utf-8", "surrogatepass")
    bounds = _id_bounds(raw, count)
    if bounds is not None:
        return _places(raw, bounds, entries)
    encoded = [d.encode("utf-8", "surrogatepass") for d in ids()]
    raw = b"\0".join(encoded)
    bounds = np.empty(count + 1, dtype=np.int64)
    bounds[0] = -1
    ends = np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=count) + 1) - 1
    bounds[1:count] = ends[:-1]
    bounds[count] = len(raw)
    return _places(raw, bounds, entries)


def _id_bounds(raw, count):
    """Where the ``count`` ids joined by zero bytes in ``raw`` end, or None if an id holds a zero byte.

    Id i is ``raw[bounds[i] + 1 : bounds[i + 1]]``.  The separators are
    found a piece of the bytes at a time (no bool array as long as the
    bytes); more than ``count - 1`` of them means that an id holds one.
    """
    bounds = np.empty(count + 1, dtype=np.int64)
    bounds[0], bounds[count] = -1, len(raw)
    found, octets = 0, np.frombuffer(raw, dtype=np.uint8)
    for lo in range(0, len(raw), _SCAN):
        separators = np.flatnonzero(octets[lo:lo + _SCAN] == 0)
        if found + len(separators) > count - 1:
            return None
        np.add(separators, lo, out=bounds[1 + found:1 + found + len(separators)])
        found += len(separators)
    return bounds if found == count - 1 else None


_SCAN = 1 << 20
"""Bytes looked at a time for the separators of joined ids."""


def _places(raw, bounds, entries):
    """``raw``, and the first byte and length of ids ``entries`` (all if None) from their bounds."""
    if entries is None:
        starts = bounds[:-1] + 1
        return raw, starts, bounds[1:] - starts
    starts = bounds[entries] + 1
    return raw, starts, bounds[1:][entries] - starts


def _larger_ids(a, a_columns, b, b_columns):
    """``a[:, i] > b[:, j]`` for each pair ``i, j`` of columns of two word tables (:func:`_id_words`).

    The first unequal row decides.  Most pairs of ids differ in their first
    8 bytes, so each further row is read for the pairs still equal only.
    """
    first_a, first_b = a[0, a_columns], b[0, b_columns]
    larger = first_a > first_b
    undecided = np.flatnonzero(first_a == first_b)
    for row in range(1, len(a)):
        if not len(undecided):
            break
        a_word, b_word = a[row, a_columns[undecided]], b[row, b_columns[undecided]]
        larger[undecided] = a_word > b_word
        undecided = undecided[a_word == b_word]
    return larger
