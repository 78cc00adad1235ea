"""Byte strings as rows of 64-bit words, so that NumPy compares them as C's ``strcmp`` does: engine, not lesson.

Used to order tied documents by id (:mod:`ragmetrics_edu.retrieval.batch`) and to
find where the query id changes in a block of a TREC file
(:mod:`ragmetrics_edu.retrieval.trec`), without making a Python string of each; and
:func:`ranges`, the indices of many slices end to end, which both use to
gather the pieces of an array.  Speed only: no number depends on how it is done.
"""

import numpy as np

KEEP_BYTES = np.array([((1 << 8 * n) - 1) << (64 - 8 * n) for n in range(9)], dtype=np.uint64)
"""``KEEP_BYTES[n]`` keeps the first ``n`` bytes of a big-endian 64-bit word, zeroes the rest."""


def id_words(raw, starts, lengths, n_words):
    """Ids as rows of 64-bit words: row ``w < n_words`` holds bytes ``8w`` to ``8w + 7`` of each id.

    Each word is read big-endian, so comparing the words of two ids in
    turn, as unsigned integers, compares their bytes in turn, as ``strcmp``
    does; bytes past an id's end are 0, so ``"ab"`` < ``"abc"``.  The words
    are read straight from the bytes: ``windows[i]`` is the 8 bytes that
    start at byte ``i`` (a view with a stride of one byte, no copy), which
    is much faster than cutting a fixed-width table out of the bytes.  A
    word that would run past the last byte is read from the last 8 bytes
    and shifted into place (only the last few ids have one).  A last row
    holds each id's length in bytes: two ids equal but for trailing zero
    bytes (``"a"`` and ``"a\\0"``) are ordered by length, as ``sorted``
    orders them (trec_eval's ``strcmp`` would find them equal).
    """
    if len(raw) < 8:
        raw = raw + bytes(8 - len(raw))
    last = len(raw) - 8  # the last byte a word can start at
    windows = np.ndarray(last + 1, dtype=">u8", buffer=raw, strides=(1,))
    words = np.empty((n_words + 1, len(starts)), dtype=np.uint64)
    words[n_words] = lengths
    for w in range(n_words):
        first = starts + 8 * w if w else starts
        bytes_in_word = np.minimum(lengths, 8) if w == 0 else np.clip(lengths - 8 * w, 0, 8)
        past = np.flatnonzero(first > last)
        if len(past):
            first = first.copy()
            first[past] = last
        words[w] = windows[first]
        if len(past):  # drop the bytes before the word's first one
            words[w, past] <<= (8 * np.minimum(starts[past] + 8 * w - last, 8)).astype(np.uint64)
        words[w] &= KEEP_BYTES[bytes_in_word]
    return words


def first_words(raw, starts, lengths, padded=False):
    """Each id's first 8 bytes as one big-endian 64-bit word, zero-padded (as :func:`id_words`).

    For ids of at most 8 bytes (``lengths``), which one word orders as
    ``strcmp`` does (bytes past an id's end are 0).  ``raw`` is copied once
    with 8 zero bytes at its end, so that every word can be read where it
    starts, unless it has them already (``padded``).
    """
    padded = raw if padded else raw + bytes(8)
    windows = np.ndarray(len(padded) - 7, dtype=">u8", buffer=padded, strides=(1,))
    return windows[starts] & KEEP_BYTES[lengths]  # (a native uint64 array)


def ranges(starts, sizes):
    """``starts[i], starts[i] + 1, ..., starts[i] + sizes[i] - 1`` for every ``i``, end to end.

    (One ``np.arange`` shifted by a ``np.repeat``: no Python loop.)
    """
    ends = np.cumsum(sizes)
    total = int(ends[-1]) if len(ends) else 0
    return np.arange(total) + np.repeat(starts - (ends - sizes), sizes)
