"""Input checks of :func:`~ragmetrics_edu.retrieval.batch.evaluate`, written for speed: engine, not lesson.

Every id, score and grade of a run is checked, a million of them in a
fraction of a second: the common case is checked in C (``str.join``,
``np.fromiter``, the set of the types met), and a slow loop runs only when
something is wrong, to name the query, the document and the value.  What
the checks refuse is the lesson, and the docstring of ``evaluate`` says it;
how they do it fast is here.
"""

import math
import numbers
from itertools import chain, islice

import numpy as np

from ..._validation import INT64_MAX, INT64_MIN, check_nested, describe_int


def _check_nested(mapping, name, what):
    """Raise unless ``mapping`` is a dict ``{str: dict}`` (:func:`ragmetrics_edu._validation.check_nested`)."""
    check_nested(mapping, name=name, what=what)


def _check_docids(docids, qid_of, name):
    """Raise unless every document id of the list ``docids`` is a string.

    ``"".join(docids)`` refuses anything but strings and loops in C, so it
    checks every id for the price of copying them; the slow loop only runs
    to name the culprit.  ``qid_of(i)`` is the query of the i-th id.
    """
    try:
        "".join(docids)
        return
    except TypeError:
        pass
    for i, d in enumerate(docids):
        if not isinstance(d, str):
            raise TypeError(
                f"{name} document ids must be strings (as in a TREC file), "
                f"got {d!r} in query {qid_of(i)!r}"
            )


def _as_dicts(mappings):
    """The list of mappings, with any that is not a plain dict copied into one."""
    if all(type(m) is dict for m in mappings):
        return mappings
    return [m if type(m) is dict else dict(m) for m in mappings]



def _check_all_docids(dicts, qids, name):
    """Raise unless every document id (key of the dicts ``{docid: ...}``) is a string.

    As :func:`_check_docids`, one query at a time: ``"".join(ranking)``
    reads the keys of the dict in C (a Python ``for`` loop over a million
    ids would cost a third of the whole evaluation).
    """
    for qid, docs in zip(qids, dicts):
        try:
            "".join(docs)
        except TypeError:
            _check_docids(list(docs), lambda i: qid, name)


def _joined_ids(dicts, qids, name):
    """Every document id of the dicts, ``"\\0"`` between two; or raise naming one that is no string.

    One string does two jobs: ``str.join`` refuses anything but strings
    (every id checked, in C), and tied documents read their ids from it
    (:func:`_utf8_ids`) instead of from the dicts again.  Each query is
    joined on its own first: faster than one join over a chain of a
    million ids.  (An empty query is left out: it would add a separator.)
    """
    try:
        return "\0".join(["\0".join(docs) for docs in dicts if docs])
    except TypeError:
        _check_all_docids(dicts, qids, name)  # names the culprit
        raise


def _check_scores(rankings, run_starts, run_sizes, where, dtype=np.float32):
    """Return all run scores, query after query, as ``dtype``; or raise naming the bad one.

    Scores are converted as ``float()`` converts them (a numeric string such
    as ``"0.5"`` reads as in a run file), then, for float32, rounded to
    32-bit floats as trec_eval 9.x stores them (``1e300`` becomes inf).
    NaN is refused, and so are booleans, which NumPy would read as 1.0 and
    0.0.  Only the queries holding a 0 or a 1 need their types looked at
    (:func:`_refuse_bool_scores`); when most queries hold one (integer
    scores) and every score is a float, one pass reads the scores and
    proves that none is a boolean instead (:func:`_read_float_scores`).
    """
    count = int(run_sizes.sum())
    if _most_queries_hold_0_or_1(rankings):
        array = _read_float_scores(rankings, count, dtype)
        if array is not None:
            _refuse_nan_scores(rankings, array, where)
            return array  # floats only: no boolean among them
    values = chain.from_iterable(map(dict.values, rankings))
    try:
        with np.errstate(over="ignore"):
            array = np.fromiter(values, dtype=dtype, count=count)
    except (TypeError, ValueError, OverflowError):
        # find the culprit, to name it (the slow loop only runs on error)
        for i, s in enumerate(chain.from_iterable(map(dict.values, rankings))):
            try:
                float(s)
            except (TypeError, ValueError):
                qid, docid = where(i)
                raise TypeError(
                    f"run scores must be numbers, got {s!r} for document "
                    f"{docid!r} of query {qid!r}"
                ) from None
            except OverflowError:
                qid, docid = where(i)
                raise ValueError(
                    f"run scores must fit in a float, got {describe_int(s)} for "
                    f"document {docid!r} of query {qid!r} (a float such as "
                    f"1e400 is read as infinity, as trec_eval reads it)"
                ) from None
        raise
    _refuse_nan_scores(rankings, array, where)
    _refuse_bool_scores(rankings, array, run_starts, run_sizes, where)
    return array


def _most_queries_hold_0_or_1(rankings, sample=10):
    """True if most of the first ``sample`` queries hold a float score equal to 0 or 1.

    Only a guess at which way of refusing booleans is faster (either one is
    exact): :func:`_refuse_bool_scores` looks at the type of every score of
    the queries holding a 0 or a 1, which costs more than the one-pass read
    of :func:`_read_float_scores` once most queries hold one.  A score that
    is no float makes the guess False (the general path reads it).
    """
    holding = 0
    for ranking in islice(rankings, sample):
        try:
            first = np.fromiter(map(float.conjugate, ranking.values()), dtype=np.float64,
                                count=len(ranking))
        except TypeError:
            return False
        holding += bool(np.any((first == 0) | (first == 1)))
    return 2 * holding > min(len(rankings), sample)


def _read_float_scores(rankings, count, dtype):
    """All run scores as ``dtype`` if every one is a float, else None.

    ``float.conjugate`` returns its float unchanged, and raises TypeError
    for anything that is not a float: an int, a string, and so ``True``
    and ``False`` (``bool`` is a subclass of ``int``, not of ``float``).
    Mapped over the scores inside ``np.fromiter``, it checks the type of
    every score in the same C loop that reads its value, instead of a
    second loop over a million scores for the types alone.  (A float
    subclass such as ``np.float64`` is read by its float value.)
    """
    floats = map(float.conjugate, chain.from_iterable(map(dict.values, rankings)))
    try:
        with np.errstate(over="ignore"):
            return np.fromiter(floats, dtype=dtype, count=count)
    except TypeError:  # a score that is no float: the general path reads it
        return None


def _refuse_nan_scores(rankings, array, where):
    """Raise if a score read into ``array`` is NaN, or was None (NumPy reads it as NaN)."""
    nan = np.flatnonzero(np.isnan(array))
    if len(nan):
        i = int(nan[0])
        qid, docid = where(i)
        value = next(islice(chain.from_iterable(map(dict.values, rankings)), i, None))
        if value is None:  # NumPy reads None as NaN; say what it really was
            raise TypeError(
                f"run scores must be numbers, got None for document {docid!r} "
                f"of query {qid!r}"
            )
        raise ValueError(
            f"run scores must not be NaN, got NaN for document {docid!r} "
            f"of query {qid!r} ({len(nan)} NaN scores in all)"
        )


def _refuse_bool_scores(rankings, array, run_starts, run_sizes, where):
    """Raise if a score is ``True`` or ``False`` (NumPy read them as 1.0 and 0.0).

    Only a score equal to 0 or 1 can be a boolean, so only the queries
    holding one have the types of their scores looked at (in C).
    """
    is_candidate = (array == 0) | (array == 1)
    # the queries holding a candidate: one "or" over each query's entries
    # (the entries of the next query that has any end each one's segment)
    filled = np.flatnonzero(run_sizes > 0)
    queries = filled[np.logical_or.reduceat(is_candidate, run_starts[filled])].tolist()
    if not queries:
        return
    values = chain.from_iterable(map(dict.values, map(rankings.__getitem__, queries)))
    if not any(issubclass(t, (bool, np.bool_)) for t in set(map(type, values))):
        return
    for q in queries:  # name the first one
        for j, score in enumerate(rankings[q].values()):
            if isinstance(score, (bool, np.bool_)):
                qid, docid = where(int(run_starts[q]) + j)
                raise TypeError(
                    f"run scores must be numbers, not booleans, got {score!r} for "
                    f"document {docid!r} of query {qid!r}"
                )


_INT64_RANGE = (INT64_MIN, INT64_MAX)
"""Grades must fit in a 64-bit integer (trec_eval reads them as a C ``long``)."""


def _grade_problem(g):
    """``(exception class, rule)`` saying why ``g`` is no qrels grade, or None."""
    if isinstance(g, (bool, np.bool_)) or not isinstance(g, numbers.Real):
        return TypeError, "qrels grades must be integers"
    if not isinstance(g, numbers.Integral):
        try:
            f = float(g)
        except OverflowError:
            f = math.inf
        if not math.isfinite(f) or f != math.floor(f):
            return ValueError, "qrels grades must be integers (trec_eval's relevance levels)"
        g = int(f)
    if not _INT64_RANGE[0] <= int(g) <= _INT64_RANGE[1]:
        return ValueError, "qrels grades must be integers from -2**63 to 2**63 - 1"
    return None


def _check_grades(grades, where):
    """Return the list of qrels grades as int64, or raise naming the bad one.

    The type of every grade is checked (``set(map(type, ...))`` loops in
    C): ``True`` is no grade, even among integers.  An integer-valued float
    (``2.0``) is read as the integer; NaN, 2.5 and grades beyond 64 bits are
    refused.  The loop that names the culprit only runs on error.
    """
    types = set(map(type, grades))
    if all(t is int for t in types):  # the usual case, as read_qrels gives them
        try:
            return np.array(grades, dtype=np.int64).reshape(-1)
        except OverflowError:  # an int beyond 64 bits
            pass
    elif all(issubclass(t, numbers.Real) and not issubclass(t, (bool, np.bool_))
             for t in types):
        try:
            as_float = np.array(grades, dtype=np.float64).reshape(-1)
        except OverflowError:  # an int too large even for a float
            as_float = np.array([math.nan])
        with np.errstate(invalid="ignore"):
            fine = (np.isfinite(as_float) & (as_float == np.round(as_float))
                    & (np.abs(as_float) <= 2.0**63))
        if fine.all():
            try:  # int() of each is exact, even beyond 2**53
                return np.fromiter(map(int, grades), dtype=np.int64, count=len(grades))
            except OverflowError:  # 2**63 itself
                pass
    for i, g in enumerate(grades):
        problem = _grade_problem(g)
        if problem:
            error, rule = problem
            qid, docid = where(i)
            raise error(f"{rule}, got {describe_int(g)} for document {docid!r} of query {qid!r}")
    raise ValueError("qrels grades must be integers from -2**63 to 2**63 - 1")
