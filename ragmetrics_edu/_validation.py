"""The one validation layer: every input check of the package, and the bounds they share.

Each one states the rule, names the argument and shows the value it got (cut to 80
characters by :func:`describe`), and raises; none uses ``assert`` (assertions vanish under
``python -O``).  One exception rule: ``TypeError`` for a value of the wrong type (a string,
a float or a bool where an integer is needed), ``ValueError`` for a value of the right type
out of its range. The checks are grouped by what they check: cut-offs and counts, rankings
and grades, nested qrels and runs, probabilities, seeds and bootstrap arguments, model
layers; the checks of texts and references are in :mod:`ragmetrics_edu._texts`.  This
module imports nothing of the package.
"""

import collections.abc
import math
import numbers

import numpy as np


def check_k(k, *, name="k", allow_none=False):
    """Return ``k`` as an int, or raise if it is not a positive integer.

    Parameters
    ----------
    k : int
        From 1 to :data:`MAX_K` (else ``ValueError``); a bool or a non-integer is a ``TypeError``.
    name : str, default "k"
        The argument's name in the messages.
    allow_none : bool, default False
        Accept ``k=None`` ("the whole ranking"), returned as is.
    """
    if k is None and allow_none:
        return None
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"{name} must be a positive integer, got {k!r}")
    if k < 1:
        raise ValueError(f"{name} must be a positive integer, got {describe_int(k)}")
    if k > MAX_K:
        # trec_eval reads a cut-off as a C long; beyond it NumPy and float()
        # would fail with messages that name nothing
        raise ValueError(
            f"{name} must be a positive integer of at most 2**63 - 1, got {describe_int(k)}"
        )
    return int(k)


INT64_MIN, INT64_MAX = -2**63, 2**63 - 1
"""The range of a C ``long`` (64 bits), in which trec_eval reads grades, ranks and cut-offs."""

MAX_K = INT64_MAX
"""The largest cut-off: trec_eval reads cut-offs as a C ``long`` (64 bits)."""

MAX_LINE_BYTES = 1 << 20
"""Bytes of one line of a TREC qrels or run file, at most, its ``\\n`` not counted (1 MiB).

trec_eval has no limit of its own (it copies the whole file into memory and cuts it into
lines there); the readers here read a line at a time, so they bound it, and a longer line (a
binary file, ``/dev/zero``) is refused with its file and line number after reading at most
this many bytes of it. A line of a real run is about a hundred bytes."""


def describe_int(x):
    """``repr(x)``, but an integer too long to print is shown by its size.

    Python refuses to turn an integer of more than 4300 digits into text
    (``ValueError: Exceeds the limit``), and a 400-digit number would drown
    the message anyway.

    >>> describe_int(12)
    '12'
    >>> describe_int(-10**400)
    'an integer of about -10**400'
    """
    if isinstance(x, numbers.Integral) and not isinstance(x, bool) and abs(int(x)) >= 10**30:
        sign = "-" if x < 0 else ""
        return f"an integer of about {sign}10**{int(math.log10(abs(int(x))))}"
    return repr(x)


def shorten(text, limit=40):
    """``text``, cut to ``limit`` characters with a note of its length if longer.

    Parameters
    ----------
    text : str
        A text from the input (a metric name, a line of a file).
    limit : int, default 40
        The most characters shown; a longer text is cut, and its length said.

    >>> shorten("P@" + "9" * 100)
    "'P@99999999999999999999999999999999999999'... (102 characters)"
    """
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text)} characters)"


def check_k_text(text, *, metric, name="k"):
    """Return the cut-off written in a metric name (``"10"`` of ``"P@10"``) as an int.

    Only ASCII digits are a cut-off (``"٣"`` and ``"1_0"`` are refused), at
    most 2**63 - 1; the message names the metric (shortened if long) and
    the value, never a 5,000-digit number in full.
    """
    if not (text.isascii() and text.isdigit()):
        raise ValueError(
            f"{name} must be a positive integer, got {shorten(text)} in metric {shorten(metric)}"
        )
    digits = text.lstrip("0")
    if len(digits) > 19:  # more than 2**63 - 1: do not even convert it
        raise ValueError(
            f"{name} must be a positive integer of at most 2**63 - 1, got a number of "
            f"{len(digits)} digits in metric {shorten(metric)}"
        )
    value = int(text)
    try:
        return check_k(value, name=name)
    except ValueError as error:
        raise ValueError(f"{error} in metric {shorten(metric)}") from None


def _check_ranking_shape(rels, name, what):
    """Raise unless ``rels`` is a 1-D ordered sequence (``what``: "sequence of ...")."""
    if isinstance(rels, (str, bytes)) or not hasattr(rels, "__len__"):
        raise TypeError(f"{name} must be a {what}, got {rels!r}")
    if isinstance(rels, (collections.abc.Set, collections.abc.Mapping)):
        # a set has no rank order (and merges equal grades); a dict would be
        # read by its keys
        raise TypeError(f"{name} must be a {what}, got a {type(rels).__name__}: {rels!r}")
    if isinstance(rels, np.ndarray) and rels.ndim != 1:
        raise ValueError(
            f"{name} must be a 1-D {what}, got a {rels.ndim}-D array of shape "
            f"{rels.shape}: {rels!r}"
        )


def check_rels(rels, *, name="rels", allow_negative=False):
    """Return the grades ``rels`` as a 1-D float64 array, or raise.

    Parameters
    ----------
    rels : sequence of float
        The relevance of the retrieved documents in rank order (a string, set, dict or
        array of another shape is refused): real numbers, not bools (else ``TypeError``),
        finite and non-negative (else ``ValueError``). An empty ranking is valid.
    name : str, default "rels"
        The argument's name in the messages.
    allow_negative : bool, default False
        Accept negative grades too, for the judged grades of a query (in TREC qrels, -1
        or -2 mark junk); the caller says what they mean.
    """
    _check_ranking_shape(rels, name, "sequence of grades in rank order")
    values = list(rels.tolist() if isinstance(rels, np.ndarray) else rels)
    for i, g in enumerate(values):
        if isinstance(g, bool) or not isinstance(g, numbers.Real):
            raise TypeError(
                f"{name} must hold numbers, got {g!r} at rank {i + 1}"
            )
        check_real(g, name=name, where=f" at rank {i + 1}")
        if math.isnan(g) or math.isinf(g):
            raise ValueError(f"{name} must be finite, got {g!r} at rank {i + 1}")
        if g < 0 and not allow_negative:
            raise ValueError(
                f"{name} must be non-negative grades, got {g!r} at rank {i + 1}"
            )
    return np.asarray(values, dtype=np.float64).reshape(-1)


def check_n_relevant(n_relevant, *, found=0, name="n_relevant"):
    """Return ``n_relevant`` as an int, or raise.

    Parameters
    ----------
    n_relevant : int
        The query's number of relevant documents, from ``found`` to 2**63 - 1 (else
        ``ValueError``); a bool or a non-integer is a ``TypeError``.
    found : int, default 0
        The number of relevant documents present in the ranking; the query cannot
        have fewer relevant documents than were retrieved.
    name : str, default "n_relevant"
        The argument's name in the messages.
    """
    if isinstance(n_relevant, bool) or not isinstance(n_relevant, numbers.Integral):
        raise TypeError(f"{name} must be a non-negative integer, got {n_relevant!r}")
    if n_relevant < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {describe_int(n_relevant)}")
    if n_relevant < found:
        raise ValueError(
            f"{name} must be at least the number of relevant documents "
            f"retrieved ({found}), got {describe_int(n_relevant)}"
        )
    return int(check_count_limit(n_relevant, name=name))


def check_choice(value, choices, *, name):
    """Raise unless ``value`` is one of ``choices`` (listing them).

    Parameters
    ----------
    value : object
        Returned if it is one of ``choices`` (``in``), else a ``ValueError``.
    choices : sequence
        The values allowed, each shown by its ``repr`` in the message.
    name : str
        The argument's name in the message.
    """
    if value not in choices:
        known = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {known}, got {describe(value)}")
    return value


def check_judged_rels(rels, name="rels"):
    """Return ``rels`` as a float array with ``nan`` for unjudged documents, or raise.

    A grade is a finite real number (negative allowed); ``None`` or ``nan``
    marks a document without a judgement.
    """
    _check_ranking_shape(rels, name, "sequence of grades in rank order "
                                     "(None for an unjudged document)")
    values = rels.tolist() if isinstance(rels, np.ndarray) else list(rels)
    out = []
    for i, g in enumerate(values):
        if g is None:
            out.append(math.nan)
            continue
        if isinstance(g, bool) or not isinstance(g, numbers.Real):
            raise TypeError(
                f"{name} must hold grades or None (unjudged), got {g!r} at rank {i + 1}"
            )
        check_real(g, name=name, where=f" at rank {i + 1}")
        if math.isinf(g):
            raise ValueError(f"{name} must be finite, got {g!r} at rank {i + 1}")
        out.append(float(g))
    return np.asarray(out, dtype=np.float64).reshape(-1)


def describe(value, limit=80):
    """A short text of ``value`` for an error message: at most ``limit`` characters of its repr.

    Parameters
    ----------
    value : object
        Whatever the caller got: any object, its repr never built whole.
    limit : int, default 80
        The most characters of the repr shown.

    Integers too large to print are shown by their size (:func:`describe_int`);
    a long container or string is cut, with a note of its size. The repr of a
    container is built from its first items only, so a huge one costs little.

    >>> describe([1, 2, 3])
    '[1, 2, 3]'
    >>> describe(list(range(1000)))
    '[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, ...] (list of length 1,000)'
    >>> describe(10**400)
    'an integer of about 10**400'
    """
    import reprlib

    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return describe_int(value)
    short = reprlib.Repr()
    short.maxlist = short.maxtuple = short.maxset = short.maxfrozenset = short.maxdeque = 10
    short.maxdict, short.maxlevel, short.maxstring, short.maxother = 5, 3, limit, limit
    try:
        text = short.repr(value)
    except Exception:  # noqa: BLE001 - a repr that fails (an integer of 5,000 digits inside)
        text = f"<a {type(value).__name__}>"
    cut = len(text) > limit
    if cut:
        text = text[:limit] + "..."
    note = ""
    if isinstance(value, (str, bytes)):
        if len(value) > limit:
            note = f" ({len(value):,} characters)"
    elif isinstance(value, collections.abc.Sized) and (cut or "..." in text):
        try:
            note = f" ({type(value).__name__} of length {len(value):,})"
        except Exception:  # noqa: BLE001 - a broken __len__
            note = ""
    return text + note


def check_real(value, *, name, where=""):
    """Return ``value`` (a real number) as a float, or raise if no float can hold it.

    An integer beyond a float's range (``10**400``) would raise a bare
    ``OverflowError`` ("int too large to convert to float") deep in the
    arithmetic; this says which argument and which value.

    Parameters
    ----------
    value : real number
    name : str
        The argument's name in the message.
    where : str, default ""
        Follows the value in the message (``" at rank 3"``).
    """
    try:
        return float(value)
    except OverflowError:
        raise ValueError(
            f"{name} must be numbers a float can hold (of magnitude below about 1.8e308), "
            f"got {describe(value)}{where}"
        ) from None


def check_count_limit(value, *, name):
    """Return the count ``value`` (already checked to be an integer), or raise past 2**63 - 1.

    trec_eval holds counts in a C ``long``; a larger one (``10**400``) would
    overflow a float or a NumPy integer with a message that names nothing.
    """
    if value > MAX_K:
        raise ValueError(f"{name} must be at most 2**63 - 1, got {describe_int(value)}")
    return value


def check_mapping(value, *, name, what):
    """Return ``value`` if it is a mapping (a dict), else raise naming ``name`` and ``what`` it must be.

    >>> check_mapping([("q", "d", 1.0)], name="run", what="dict of query id -> ranking")
    Traceback (most recent call last):
    ...
    TypeError: run must be a dict of query id -> ranking, got [('q', 'd', 1.0)] (a list)
    """
    if not isinstance(value, collections.abc.Mapping):
        raise TypeError(f"{name} must be a {what}, got {describe(value)} "
                        f"(a {type(value).__name__})")
    return value


def check_nested(mapping, *, name, what, values=False):
    """Raise unless ``mapping`` is a dict ``{qid: {docid: value}}`` with string ids.

    ``what`` names the values in the message (``"grade"``, ``"score"``).  With
    ``values=True`` every value must also be a real number, not NaN (the
    readable evaluators); the batch evaluator checks its values itself, a
    million at a time.  The common case is checked in C (the set of the types
    met); the loop that names the culprit only runs when something is wrong.

    >>> check_nested({"q": {"a": "high"}}, name="run", what="score", values=True)
    Traceback (most recent call last):
    ...
    TypeError: run['q']['a'] must be a number, got 'high'
    """
    if not isinstance(mapping, collections.abc.Mapping):
        raise TypeError(
            f"{name} must be a dict {{qid: {{docid: {what}}}}}, got {type(mapping).__name__}"
        )
    key_types = set(map(type, mapping))
    inner_types = set(map(type, mapping.values()))
    if not (all(issubclass(t, str) for t in key_types)
            and all(issubclass(t, collections.abc.Mapping) for t in inner_types)):
        for qid, inner in mapping.items():
            if not isinstance(qid, str):
                raise TypeError(
                    f"{name} query ids must be strings (as in a TREC file), got {describe(qid)}"
                )
            if not isinstance(inner, collections.abc.Mapping):
                raise TypeError(
                    f"{name}[{describe(qid)}] must be a dict {{docid: {what}}}, got {describe(inner)}"
                )
    if not values:
        return
    for qid, docs in mapping.items():
        for doc, value in docs.items():
            if not isinstance(doc, str):
                raise TypeError(
                    f"{name}[{describe(qid)}] document ids must be strings, got {describe(doc)}"
                )
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise TypeError(
                    f"{name}[{describe(qid)}][{describe(doc)}] must be a number, got {describe(value)}"
                )
            check_real(value, name=f"{name}[{describe(qid)}][{describe(doc)}]")
            if math.isnan(value):
                raise ValueError(f"{name}[{describe(qid)}][{describe(doc)}] is NaN")



def check_grades(qrels, *, name="qrels"):
    """Return ``qrels``, ``{qid: {docid: grade}}`` with finite real grades, or raise naming the bad one.

    The ids may be any hashable values (the online simulations take any
    document ids); a grade is a real number, finite, not a bool (negative
    grades, TREC's junk, are allowed: the caller says what they mean).

    >>> check_grades({"q": {"a": "3"}})
    Traceback (most recent call last):
    ...
    TypeError: qrels['q']['a'] must be a number (a grade), got '3'
    """
    if not isinstance(qrels, collections.abc.Mapping):
        raise TypeError(f"{name} must be a dict {{qid: {{docid: grade}}}}, got {describe(qrels)}")
    for qid, judged in qrels.items():
        where = f"{name}[{describe(qid)}]"
        if not isinstance(judged, collections.abc.Mapping):
            raise TypeError(f"{where} must be a dict {{docid: grade}}, got {describe(judged)}")
        for doc, grade in judged.items():
            at = f"{where}[{describe(doc)}]"
            if isinstance(grade, bool) or not isinstance(grade, numbers.Real):
                raise TypeError(f"{at} must be a number (a grade), got {describe(grade)}")
            check_real(grade, name=at)
            if not math.isfinite(grade):
                raise ValueError(f"{at} must be finite, got {grade!r}")
    return qrels


def check_scores(scores, *, name):
    """Return ``scores``, one query's ``{docid: score}``, or raise naming the bad entry.

    Scores are real numbers, not NaN. Ties are ordered by document id (as trec_eval orders
    them), so the ids must be of one kind: all strings, or all numbers.

    >>> check_scores({"a": 1.0, 2: 1.0}, name="run['q']")
    Traceback (most recent call last):
    ...
    TypeError: run['q'] mixes document ids of types int and str: ties are ordered by id (as trec_eval orders them), which needs ids of one type
    """
    for doc, value in scores.items():
        at = f"{name}[{describe(doc)}]"
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"{at} must be a number, got {describe(value)}")
        check_real(value, name=at)
        if math.isnan(value):
            raise ValueError(f"{at} is NaN")
    kinds = {"number" if isinstance(d, numbers.Real) and not isinstance(d, bool)
             else type(d).__name__ for d in scores}
    if len(kinds) > 1:
        types = " and ".join(sorted(type(d).__name__ for d in
                                    {type(d): d for d in scores}.values()))
        raise TypeError(f"{name} mixes document ids of types {types}: ties are ordered by id "
                        "(as trec_eval orders them), which needs ids of one type")
    return scores


# ------------------------------------------------------------- probabilities, counts, seeds

def check_probability(p, *, name, open_low=False, open_high=False):
    """Return ``p`` as a float in [0, 1] (or an open end), or raise naming ``name``.

    >>> check_probability(1.5, name="alpha", open_low=True, open_high=True)
    Traceback (most recent call last):
    ...
    ValueError: alpha must be a probability in (0, 1), got 1.5
    """
    if isinstance(p, bool) or not isinstance(p, numbers.Real):
        raise TypeError(f"{name} must be a probability (a number in [0, 1]), got {describe(p)}")
    if p != p:   # NaN, a float out of range (math.isnan would raise on 10**400)
        raise ValueError(f"{name} must be a probability (a number in [0, 1]), got {describe(p)}")
    low_bad = p <= 0 if open_low else p < 0
    high_bad = p >= 1 if open_high else p > 1
    if low_bad or high_bad:
        interval = ("(" if open_low else "[") + "0, 1" + (")" if open_high else "]")
        raise ValueError(f"{name} must be a probability in {interval}, got {describe(p)}")
    return float(p)


def check_probabilities(values, *, name, n=None):
    """Return ``values`` as a 1-D float array of probabilities in [0, 1], or raise.

    A single number is repeated ``n`` times when ``n`` is given.
    """
    if n is not None and isinstance(values, numbers.Real) and not isinstance(values, bool):
        return np.full(n, check_probability(values, name=name))
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise TypeError(f"{name} must be a sequence of probabilities, got {describe(values)}")
    objects = np.asarray(values, dtype=object)
    if objects.ndim != 1:
        raise ValueError(f"{name} must be a 1-D sequence of probabilities, got shape "
                         f"{objects.shape}: {describe(values)}")
    out = [check_probability(v, name=f"{name}[{i}]") for i, v in enumerate(objects.tolist())]
    arr = np.asarray(out, dtype=np.float64)
    if n is not None and len(arr) < n:
        raise ValueError(
            f"{name} must give a probability for each of the {n} ranks, got {len(arr)}: "
            f"{describe(values)}"
        )
    return arr if n is None else arr[:n]


def check_count(n, *, name, minimum=1, maximum=MAX_K, why=""):
    """Return ``n`` as an int from ``minimum`` to ``maximum``, or raise naming ``name``.

    ``maximum`` defaults to 2**63 - 1 (a C ``long``): a larger count would overflow NumPy or
    a float with a message that names nothing; ``why`` follows the bound in the message.

    >>> check_count(10**400, name="n_a")
    Traceback (most recent call last):
    ...
    ValueError: n_a must be at most 2**63 - 1, got an integer of about 10**400
    """
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {describe(n)}")
    if n < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {describe(n)}")
    if n > maximum:
        bound = "2**63 - 1" if maximum == MAX_K else f"{maximum:,}"
        raise ValueError(f"{name} must be at most {bound}{why}, got {describe(n)}")
    return int(n)


MAX_SIMULATED = 10_000_000
"""The most cells one simulation draws at once (sessions x ranks, experiments x days, ranks):
a bound on memory, about 80 MB for each array of random numbers."""


MAX_SIMULATED_TOTAL = 10 * MAX_SIMULATED
"""The most cells a simulation over many queries draws in all (queries x sessions x ranks),
one query at a time: a bound on time (about 5 to 15 seconds), as MAX_SIMULATED is on memory."""


def check_simulated(count, *, name, per=1, what="", total=False):
    """Return ``count`` (a checked count) if ``count * per`` is at most :data:`MAX_SIMULATED`.

    ``what`` names ``per`` in the message (``"ranks"``): the error says
    which argument to lower, and why there is a bound at all.  With
    ``total=True`` the bound is :data:`MAX_SIMULATED_TOTAL`, the cells of a
    whole simulation drawn one query at a time.

    >>> check_simulated(10**12, name="n_sessions", per=2, what="ranks")
    Traceback (most recent call last):
    ...
    ValueError: n_sessions x ranks must be at most 10,000,000 (MAX_SIMULATED, a bound on the memory of a simulation), got 1,000,000,000,000 x 2
    >>> check_simulated(10**6, name="n_sessions", per=1000 * 3, what="queries x ranks",
    ...                 total=True)
    Traceback (most recent call last):
    ...
    ValueError: n_sessions x queries x ranks must be at most 100,000,000 (MAX_SIMULATED_TOTAL, a bound on the time of a simulation), got 1,000,000 x 3,000
    """
    limit, bound = ((MAX_SIMULATED_TOTAL, "MAX_SIMULATED_TOTAL, a bound on the time") if total
                    else (MAX_SIMULATED, "MAX_SIMULATED, a bound on the memory"))
    if count * per > limit:
        label = f"{name} x {what}" if what else name
        value = f"{count:,} x {per:,}" if what else f"{count:,}"
        raise ValueError(f"{label} must be at most {limit:,} ({bound} of a simulation), "
                         f"got {value}")
    return count


def check_group_labels(groups, n, *, name="groups", per="item"):
    """Return ``groups``, one hashable label per ``per`` (``n`` of them), as a list, or raise.

    Whole groups are resampled, so a label must be usable as a dict key (a list is not: the
    message names its position) and equal to itself: NaN is not, so every NaN would make a
    group of its own (six NaN labels, six groups).  A missing label (None, NaN, NaT, pandas'
    NA) is refused: it names no group, and pooling every unlabelled item into one "None"
    group would resample unrelated items together.

    >>> check_group_labels([1, 1, float("nan"), 2], 4)
    Traceback (most recent call last):
    ...
    ValueError: groups[2] is NaN: a group label must be a value (NaN is not equal to itself, so each NaN would be a group of its own)
    >>> check_group_labels([[1], [1]], 2)
    Traceback (most recent call last):
    ...
    TypeError: groups[0] must be a hashable label (a query id: a string or a number), got [1] (a list)
    >>> check_group_labels(["q1", None], 2)
    Traceback (most recent call last):
    ...
    ValueError: groups[1] is None: a missing label names no group (give every item the label of its group, or leave the item out)
    """
    if isinstance(groups, (str, bytes)) or not hasattr(groups, "__len__"):
        raise TypeError(f"{name} must be a sequence of one label per {per}, got {describe(groups)}")
    if isinstance(groups, np.ndarray):  # tolist() would turn a NaT into None
        labels = list(groups) if groups.dtype.kind in "mM" else groups.tolist()
    else:
        labels = list(groups)
    if len(labels) != n:
        raise ValueError(f"{name} must give one label per {per}: got {len(labels)} labels for "
                         f"{n} {per}s")
    for i, g in enumerate(labels):
        try:
            hash(g)
        except TypeError:
            raise TypeError(f"{name}[{i}] must be a hashable label (a query id: a string or a "
                            f"number), got {describe(g)} (a {type(g).__name__})") from None
        if g is None:
            raise ValueError(f"{name}[{i}] is None: a missing label names no group (give every "
                             f"{per} the label of its group, or leave the {per} out)")
        try:
            differs = bool(g != g)
        except (TypeError, ValueError, ArithmeticError):  # pandas' NA, a signalling Decimal NaN
            differs = True
        if differs:
            kind = {"NaTType": "NaT", "NAType": "NA"}.get(type(g).__name__, "NaN")
            if isinstance(g, (np.datetime64, np.timedelta64)):
                kind = "NaT"
            raise ValueError(f"{name}[{i}] is {kind}: a group label must be a value ({kind} is "
                             f"not equal to itself, so each {kind} would be a group of its own)")
    return labels


MIN_ALPHA = 1e-300
"""The smallest error level (``alpha``, or ``1 - confidence``) of a normal interval or test.

Its two-sided quantile is about 37 standard deviations; below about 1e-308
``alpha / 2`` is no longer a normal float, and at 5e-324 it is 0."""


def check_min_alpha(alpha, *, name="alpha", what=None):
    """Return ``alpha`` (already a probability in (0, 1)) if it is at least :data:`MIN_ALPHA`.

    ``what`` is the text shown for the value (``"1 - confidence = 1e-320"``).

    >>> check_min_alpha(1e-320)
    Traceback (most recent call last):
    ...
    ValueError: alpha must be at least 1e-300 (MIN_ALPHA: its normal quantile, about 37 standard deviations, is the farthest computed), got 1e-320
    """
    if alpha < MIN_ALPHA:
        raise ValueError(f"{name} must be at least {MIN_ALPHA:g} (MIN_ALPHA: its normal quantile, "
                         f"about 37 standard deviations, is the farthest computed), got "
                         f"{describe(alpha) if what is None else what}")
    return alpha


def upper_normal_quantile(tail):
    r"""The :math:`z` with :math:`P(Z > z) =` ``tail`` for a standard normal :math:`Z`.

    ``NormalDist().inv_cdf(1 - tail)`` while ``1 - tail`` keeps the digits
    of the tail (``tail`` of 1e-8 or more: the usual levels give exactly the
    numbers they always gave), else ``-inv_cdf(tail)`` from the tail itself:
    ``1 - 5e-18`` is 1.0, whose quantile is infinite (``StatisticsError``).

    >>> round(upper_normal_quantile(0.025), 4), round(upper_normal_quantile(5e-18), 4)
    (1.96, 8.5739)
    """
    from statistics import NormalDist

    if tail >= 1e-8:
        return NormalDist().inv_cdf(1.0 - tail)
    return -NormalDist().inv_cdf(tail)


def check_score_or_nan(value, *, name):
    """Return ``value`` as a float if it is a score in [0, 1] or NaN (leave the item out), else raise.

    The score given where a metric is undefined (``empty_score=``): any score
    a metric can take, or ``nan``.

    >>> check_score_or_nan(-1, name="empty_score")
    Traceback (most recent call last):
    ...
    ValueError: empty_score must be a number in [0, 1] or nan (to leave the item out), got -1
    """
    rule = f"{name} must be a number in [0, 1] or nan (to leave the item out), got "
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(rule + describe(value))
    if not (math.isnan(value) or 0 <= value <= 1):
        raise ValueError(rule + describe(value))
    return float(value)


def check_positive_int(value, *, name):
    """Return ``value`` as a positive int, or raise naming ``name`` (a batch size).

    Parameters
    ----------
    value : int
        At least 1 (else ``ValueError``); a bool, a float or a non-number is a
        ``TypeError``.
    name : str
        The argument's name in the messages.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be a positive integer, got {describe(value)}")
    if value < 1:
        raise ValueError(f"{name} must be a positive integer, got {describe(value)}")
    return int(value)


def check_flag(value, *, name):
    """Return ``value`` as a bool if it is one (NumPy's too), else raise."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {describe(value)}")
    return bool(value)


def rng_from(seed):
    """A ``numpy.random.Generator`` from ``seed`` (an int >= 0, None, or a Generator)."""
    if isinstance(seed, np.random.Generator):
        return seed
    rule = "seed must be None, a non-negative integer or a numpy Generator, got "
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)):
        raise TypeError(rule + describe(seed))
    if seed is not None and seed < 0:
        raise ValueError(rule + describe(seed))
    return np.random.default_rng(seed)


# ------------------------------------------------------------------------------ models

def check_layer(layer, n_layers, *, lowest=0, name="layer"):
    """Return ``layer`` as an int from ``lowest`` to ``n_layers`` (the model's), or raise.

    Parameters
    ----------
    layer : int
        Layer 0 is the embeddings, ``n_layers`` the last transformer layer; out of range is
        a ``ValueError``, a bool or a non-integer a ``TypeError``.
    n_layers : int
        The model's number of transformer layers.
    lowest : int, default 0
        The lowest layer allowed (1 where the embeddings, having no attention, are not).
    name : str, default "layer"
        The argument's name in the message.

    Examples
    --------
    >>> check_layer(7, 6)
    Traceback (most recent call last):
    ...
    ValueError: layer must be an integer from 0 to 6 for this model, got 7
    """
    rule = f"{name} must be an integer from {lowest} to {n_layers} for this model, got "
    if isinstance(layer, bool) or not isinstance(layer, (numbers.Integral, np.integer)):
        raise TypeError(rule + describe(layer))
    if not lowest <= layer <= n_layers:
        raise ValueError(rule + describe(layer))
    return int(layer)


def check_confidence(confidence, *, name="confidence"):
    """Return a confidence level strictly between 0 and 1 as a float, or raise."""
    rule = f"{name} must be a number strictly between 0 and 1, got "
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real):
        raise TypeError(rule + describe(confidence))
    if not 0 < confidence < 1:
        raise ValueError(rule + describe(confidence))
    return float(confidence)


def check_seed(seed, *, name="seed"):
    """Return ``seed`` (None or a non-negative integer) as None or an int, or raise."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"{name} must be None or a non-negative integer, got {describe(seed)}")
    if seed < 0:
        raise ValueError(f"{name} must be None or a non-negative integer, got {describe(seed)}")
    return int(seed)


MIN_DF = 1e-6
"""The fewest degrees of freedom of Student's t taken: below about 1e-8 the continued
fraction of the incomplete beta function stops converging."""


def check_t_df(t, df):
    """``(t, df)``, a point and the degrees of freedom of Student's t, as floats, or raise.

    >>> check_t_df(2.0, 10**400)
    Traceback (most recent call last):
    ...
    ValueError: df must be numbers a float can hold (of magnitude below about 1.8e308), got an integer of about 10**400
    """
    if isinstance(t, bool) or not isinstance(t, numbers.Real):
        raise TypeError(f"t must be a real number, got {describe(t)}")
    if math.isnan(check_real(t, name="t")):
        raise ValueError(f"t must be a real number, got {describe(t)}")
    if isinstance(df, bool) or not isinstance(df, numbers.Real):
        raise TypeError(f"df must be a positive number, got {describe(df)}")
    if not math.isfinite(check_real(df, name="df")) or df <= 0:
        raise ValueError(f"df must be a positive number, got {describe(df)}")
    if df < MIN_DF:
        raise ValueError(f"df must be at least {MIN_DF:g} (MIN_DF: with fewer, the incomplete "
                         f"beta's continued fraction stops converging), got {df!r}")
    return float(t), float(df)


MAX_RESAMPLES = 1_000_000
"""The largest ``n_resamples`` (and ``n_simulations``) accepted: a bound on time."""


def check_resamples(n_resamples, *, name="n_resamples"):
    """Return ``n_resamples`` as an int from 1 to :data:`MAX_RESAMPLES`, or raise.

    >>> check_resamples(2_000_000)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: n_resamples must be at most 1,000,000 (MAX_RESAMPLES; ...), got 2,000,000
    """
    n_resamples = check_k(n_resamples, name=name)
    if n_resamples > MAX_RESAMPLES:
        raise ValueError(
            f"{name} must be at most {MAX_RESAMPLES:,} (MAX_RESAMPLES; more "
            f"resamples change the result by less than its rounding), got {n_resamples:,}"
        )
    return n_resamples


def check_bootstrap(confidence, n_resamples, seed):
    """Return ``(confidence, n_resamples, seed)`` of a bootstrap interval, checked, or raise.

    The three arguments every percentile bootstrap interval of the package takes:
    :func:`check_confidence`, :func:`check_resamples` and :func:`check_seed`, in that order.

    >>> check_bootstrap(0.9, 1000, None)
    (0.9, 1000, None)
    >>> check_bootstrap(95, 1000, 0)
    Traceback (most recent call last):
    ...
    ValueError: confidence must be a number strictly between 0 and 1, got 95
    """
    return check_confidence(confidence), check_resamples(n_resamples), check_seed(seed)


MIN_TEMPERATURE = 1e-100
"""The smallest positive sampling temperature: below it, logits divided by the temperature
overflow a float and every probability becomes NaN (and sampling is greedy long before)."""


def check_temperature(temperature, allow_zero=True):
    """A sampling temperature: 0 (greedy, if ``allow_zero``) or a finite number of at least
    :data:`MIN_TEMPERATURE`.

    >>> check_temperature(1e-320)
    Traceback (most recent call last):
    ...
    ValueError: temperature must be 0 (greedy) or at least 1e-100, got 1e-320: below it the logits divided by the temperature overflow and every probability is NaN (such a temperature samples greedily anyway)
    """
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float, np.floating)):
        raise TypeError(f"temperature must be a finite number, got {describe(temperature)}")
    if not math.isfinite(check_real(temperature, name="temperature")):
        raise ValueError(f"temperature must be a finite number, got {describe(temperature)}")
    if temperature < 0 or (temperature == 0 and not allow_zero):
        rule = ">= 0 (0 is greedy)" if allow_zero else "> 0"
        raise ValueError(f"temperature must be {rule}, got {temperature!r}")
    if 0 < temperature < MIN_TEMPERATURE:
        rule = "0 (greedy) or at least" if allow_zero else "at least"
        raise ValueError(
            f"temperature must be {rule} {MIN_TEMPERATURE:g}, got {temperature!r}: below it the "
            "logits divided by the temperature overflow and every probability is NaN (such a "
            "temperature samples greedily anyway)")
    return float(temperature)


def check_top_p(top_p):
    """Nucleus sampling's top-p: a number in (0, 1]."""
    if isinstance(top_p, bool) or not isinstance(top_p, (int, float, np.floating)):
        raise TypeError(f"top_p must be a number in (0, 1], got {describe(top_p)}")
    if not 0 < top_p <= 1:
        raise ValueError(f"top_p must be a number in (0, 1], got {describe(top_p)}")
    return float(top_p)


def file_kind(path):
    """What ``path`` (a ``pathlib.Path``) is when it is not a regular file: "a directory"...

    For messages refusing a file that cannot be read as one (a device such as
    ``/dev/zero`` never ends, a named pipe with no writer never starts).
    """
    import stat

    mode = path.stat().st_mode
    for test, kind in ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a named pipe"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return kind
    return "not a regular file"
