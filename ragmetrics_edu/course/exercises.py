"""Check cells for the lessons' exercises.

Every exercise of a lesson ends with a check cell that calls one of these.
They share four rules:

* **Self-contained.**  A check names the student's answer by its name
  (``"my_average_precision"``) and looks it up itself, so it runs, and says
  "not attempted yet", whatever state the other exercises are in.
* **Expected values are written in the check**, from hand arithmetic or the
  lecture material, never computed by calling the library function that the
  exercise asks the student to write.
* **A one-line call of the library is refused**: an answer that calls the
  function it is meant to implement (``return rm.average_precision(...)``),
  directly or through another name, fails with a friendly message; so does
  a number asked by hand that the notebook computed with the library
  (``my_ap = rm.average_precision(...)``, read from the kernel's history).
* **Failures are sentences**: which input, what came back, what was
  expected, and the case's hint.

A failed check raises :class:`ExerciseFailed` (an ``AssertionError``, so an
autograder counts it as a failed test); an open exercise raises
:class:`NotAttempted`, one of its subclasses.

Examples
--------
>>> from ragmetrics_edu.course.exercises import check_function
>>> def my_precision(rels, k):
...     return sum(rels[:k]) / k
>>> check_function(my_precision, [(([1, 0, 1], 2), 0.5, "one of the top 2")],
...                forbid=["precision_at_k"])
my_precision: right on 1 input.
"""

import ast
import hashlib
import inspect
import math
import numbers
import types
from contextlib import contextmanager

from .._deprecation import formerly_positional

__all__ = ["ExerciseFailed", "NotAttempted", "LibraryCallRefused", "check_function",
           "check_items", "check_number", "digest", "digest_items", "answer", "answers"]


class ExerciseFailed(AssertionError):
    """The answer is wrong; the message says how."""

    def _render_traceback_(self):
        # IPython shows this instead of a traceback: the message is the whole
        # feedback, and the check's own code is noise to a student.
        return [f"{type(self).__name__}: {self}"]


class NotAttempted(ExerciseFailed):
    """The exercise is still open (its cell raises NotImplementedError or was not run)."""


class LibraryCallRefused(ExerciseFailed):
    """The answer calls the library function it is meant to implement."""


def _caller_globals(depth=2):
    frame = inspect.currentframe()
    for _ in range(depth):
        frame = frame.f_back
    return frame.f_globals


def answer(name, namespace=None):
    """The value the student gave ``name``, or :class:`NotAttempted`.

    ``namespace`` defaults to the calling notebook's globals.

    Parameters
    ----------
    name : str
        The name the exercise asks the student to define.
    namespace : dict or None, default None
        Where to look it up; None: the calling notebook's globals.
    """
    __tracebackhide__ = True  # IPython shows the message, not this frame
    ns = _caller_globals() if namespace is None else namespace
    if name not in ns:
        raise NotAttempted(f"{name}: not attempted yet (run the exercise cell that defines "
                           f"{name} first).")
    value = ns[name]
    if value is Ellipsis:
        raise NotAttempted(f"{name}: not attempted yet (it is still `...`).")
    return value


def answers(*names, namespace=None):
    """:func:`answer` for several names at once, as a tuple.

    Parameters
    ----------
    *names : str
        The names, each as in :func:`answer`.
    namespace : dict or None, default None
        As in :func:`answer`.
    """
    ns = _caller_globals() if namespace is None else namespace
    return tuple(answer(n, ns) for n in names)


def _library_functions(names):
    """``{name: (owners, attribute, function)}`` for the ragmetrics_edu names given.

    A name is public (``"average_precision"``) or dotted from the package
    (``"generation.semantic.score_from_similarity"``).  ``owners`` are the modules that
    hold the function under ``attribute``: the defining module, and the
    package itself when it exports the same function.
    """
    import ragmetrics_edu as rm

    out = {}
    for name in names:
        *path, attribute = name.split(".")
        holder = rm
        for part in path:
            holder = getattr(holder, part)
        func = getattr(holder, attribute)
        owners = [holder]
        module = inspect.getmodule(func)
        if module is not None and module not in owners:
            owners.append(module)
        if getattr(rm, attribute, None) is func and rm not in owners:
            owners.append(rm)
        out[name] = (owners, attribute, func)
    return out


def _code_names(func):
    """Every global or attribute name used by ``func`` and the functions nested in it."""
    names, todo = set(), [getattr(func, "__code__", None)]
    while todo:
        code = todo.pop()
        if code is None:
            continue
        names.update(code.co_names)
        todo.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return names


def _refuse_library(func, name, forbidden):
    """Raise :class:`LibraryCallRefused` if ``func`` names or holds a forbidden function."""
    __tracebackhide__ = True
    used = _code_names(func)
    globs = getattr(func, "__globals__", {})
    held = [globs[n] for n in used if n in globs]
    held += [c.cell_contents for c in (getattr(func, "__closure__", None) or ())
             if c.cell_contents is not None]
    for lib_name, (_, attribute, lib_func) in forbidden.items():
        if attribute in used or any(h is lib_func for h in held):
            raise LibraryCallRefused(
                f"{name} calls the library's rm.{lib_name}: the point of this exercise is "
                f"to write it yourself, from the formula (you can compare with "
                f"rm.{lib_name} in a cell of your own afterwards).")


@contextmanager
def _library_switched_off(forbidden, name):
    """While active, calling a forbidden library function raises :class:`LibraryCallRefused`."""
    saved = []
    for lib_name, (owners, attribute, lib_func) in forbidden.items():
        def refuse(*args, _n=lib_name, **kwargs):
            __tracebackhide__ = True
            raise LibraryCallRefused(
                f"{name} calls the library's rm.{_n}: the point of this exercise is to "
                f"write it yourself, from the formula.")
        for owner in owners:
            saved.append((owner, attribute, owner.__dict__.get(attribute, _MISSING)))
            setattr(owner, attribute, refuse)
    try:
        yield
    finally:
        for owner, lib_name, old in reversed(saved):
            if old is _MISSING:
                delattr(owner, lib_name)
            else:
                setattr(owner, lib_name, old)


_MISSING = object()


def _same(got, want, tol):
    if isinstance(want, bool) or want is None or isinstance(want, str):
        return got == want
    if isinstance(want, numbers.Real):
        if isinstance(got, bool) or not isinstance(got, numbers.Real):
            return False
        if math.isnan(want):
            return math.isnan(got)
        return abs(float(got) - float(want)) <= tol * max(1.0, abs(float(want)))
    if isinstance(want, (list, tuple)):
        try:
            got = list(got)
        except TypeError:
            return False
        return len(got) == len(want) and all(_same(g, w, tol) for g, w in zip(got, want))
    return got == want


def _bools_as_ints(x):
    """``x`` with every True/False (in lists and tuples too) read as 1/0."""
    if isinstance(x, bool):
        return int(x)
    if isinstance(x, (list, tuple)):
        return [_bools_as_ints(v) for v in x]
    return x


def _has_bool(x):
    if isinstance(x, bool):
        return True
    return isinstance(x, (list, tuple)) and any(_has_bool(v) for v in x)


def _show(x):
    if isinstance(x, float):
        return repr(round(x, 6))
    return repr(x)


def _split_case(case):
    """``(args, kwargs, expected, hint)`` from ``(args, expected[, hint])`` or
    ``(args, kwargs, expected[, hint])``."""
    if not isinstance(case, tuple) or len(case) not in (2, 3, 4):
        raise TypeError(f"a case is (args, expected[, hint]) or (args, kwargs, expected[, hint]), "
                        f"got {case!r}")
    args = case[0] if isinstance(case[0], tuple) else (case[0],)
    if len(case) >= 3 and isinstance(case[1], dict) and (len(case) == 4 or not isinstance(case[2], str)):
        kwargs, rest = case[1], case[2:]
    else:
        kwargs, rest = {}, case[1:]
    expected = rest[0]
    hint = rest[1] if len(rest) > 1 else ""
    return args, kwargs, expected, hint


def check_function(func, cases, *, forbid=(), tol=1e-9, name=None):
    """Check a student's function on cases whose answers are written out.

    Parameters
    ----------
    func : callable or str
        The student's function, or its name in the calling notebook (then an
        undefined name means "not attempted yet").
    cases : sequence of tuple
        ``(args, expected)``, ``(args, expected, hint)`` or
        ``(args, kwargs, expected, hint)``; ``args`` is a tuple of positional
        arguments (a single non-tuple argument is taken as one).  ``expected``
        comes from hand arithmetic or the seeds.
    forbid : sequence of str
        ``ragmetrics_edu`` functions the answer must not call (the one it
        implements): public names (``"average_precision"``) or dotted paths
        from the package (``"generation.semantic.score_from_similarity"``).
    tol : float
        Relative tolerance for numbers.
    name : str, optional
        The name used in messages.

    Raises
    ------
    NotAttempted
        The function is not defined yet or still raises NotImplementedError.
    LibraryCallRefused
        It calls a forbidden library function.
    ExerciseFailed
        At the first case that differs, in words.
    """
    __tracebackhide__ = True  # IPython shows the message, not this frame
    if isinstance(func, str):
        name = name or func
        func = answer(func, _caller_globals())
    name = name or getattr(func, "__name__", "your function")
    if not callable(func):
        raise ExerciseFailed(f"{name} should be a function, got {type(func).__name__}.")
    forbidden = _library_functions(forbid)
    _refuse_library(func, name, forbidden)
    n = 0
    for case in cases:
        args, kwargs, want, hint = _split_case(case)
        call = f"{name}({', '.join([_show(a) for a in args] + [f'{k}={_show(v)}' for k, v in kwargs.items()])})"
        try:
            with _library_switched_off(forbidden, name):
                got = func(*args, **kwargs)
        except NotImplementedError:
            raise NotAttempted(f"{name}: not attempted yet (it still raises "
                               f"NotImplementedError).") from None
        except ExerciseFailed:
            raise
        except Exception as exc:
            raise ExerciseFailed(f"{call} raised {type(exc).__name__}: {exc}; expected "
                                 f"{_show(want)}." + (f" This case: {hint}." if hint else "")) from None
        if not _same(got, want, tol):
            if _has_bool(got) and not _has_bool(want) and _same(_bools_as_ints(got), want, tol):
                # Right values as True/False: say so, not the case's hint about something else.
                raise ExerciseFailed(f"{call} returned {_show(got)}, expected {_show(want)}: the "
                                     f"right values, but as True/False.  Return the numbers 1 and 0 "
                                     f"(`1 if ... else 0`): the library's metrics refuse True/False "
                                     f"where they expect numbers.")
            raise ExerciseFailed(f"{call} returned {_show(got)}, expected {_show(want)}."
                                 + (f" This case: {hint}." if hint else ""))
        n += 1
    print(f"{name}: right on {n} input{'s' if n != 1 else ''}.")


@formerly_positional("decimals")
def digest(value, salt, *, decimals=3):
    """The fingerprint of ``value`` rounded to ``decimals``, salted, for :func:`check_number`.

    A check cell can hold the fingerprint of a hand-computed answer instead of
    the answer itself, so reading the check does not give the answer away.

    Parameters
    ----------
    value : float
        The right answer.
    salt : str
        A text of the check's own, mixed into the fingerprint: by convention
        the lesson's number and the answer's name, ``"02/my_ap"``.  Every
        check of the course has its own salt, so two exercises whose answers
        are equal (0.4 in two lessons) do not show the same fingerprint.
    decimals : int
        The precision asked of the student.

    Returns
    -------
    str
        The first 12 hex digits of SHA-256 of ``"<salt>:<value to decimals>"``.

    Notes
    -----
    What the salt stops: one fingerprint recognised in two notebooks, and a
    table of the fingerprints of 0.000 ... 1.000 computed once and reused.
    What it does not stop: the salt is in the notebook, so a student can
    still try the 1001 three-decimal values of [0, 1] against it in a loop
    (or simply call the check cell in a loop).  No check that runs offline,
    in the student's own notebook, can prevent that: whatever decides
    "right" is in the student's hands, and a 3-decimal answer has too few
    possible values to hide among.  A slow hash would only make each check
    slow as well.  The fingerprint keeps an honest reader from seeing the
    answer by accident; grading that must resist a determined student runs
    the checks on a server (nbgrader's hidden tests, ``tools/assignments.py``).

    Examples
    --------
    >>> digest(7 / 12, "02/my_ap")   # AP of [0, 1, 1] with 2 relevant documents, 0.583
    'b2c87cf8be07'
    >>> digest(7 / 12, "02/my_ap") == digest(0.583, "02/my_ap")
    True
    >>> digest(7 / 12, "02/my_ap") == digest(7 / 12, "10/my_ap_trec")   # another check, salt
    False
    """
    return _fingerprint(salt, f"{round(float(value), decimals):.{decimals}f}", "digest")


def _fingerprint(salt, text, caller):
    """The one fingerprint scheme of the checks: SHA-256 of ``"<salt>:<text>"``, 12 hex digits."""
    if not isinstance(salt, str) or not salt:
        raise TypeError(f"{caller} needs a salt, a non-empty str, got {str(salt)[:80]!r}")
    return hashlib.sha256(f"{salt}:{text}".encode()).hexdigest()[:12]


HELPERS_ALLOWED_BY_HAND = frozenset({
    "normalize_answer", "ngrams", "whitespace_tokenize", "rouge_tokenize",
    "load_cranfield", "load_cranfield_qa", "load_cranfield_nuggets",
    "load_cranfield_paraphrases", "load_cranfield_judge_sample", "read_qrels", "read_run",
})
"""Library functions a by-hand answer may call: they read or cut up text, they compute no score."""


def _history(ns):
    """The cells the kernel ran, oldest first (IPython's ``_ih``), or ``[]`` outside IPython.

    A kernel asked not to store its history (nbval runs cells that way)
    gives no cells either: the scan of :func:`check_number` then has nothing
    to read and lets the answer through to the value check.
    """
    cells = ns.get("_ih", ns.get("In"))
    if not isinstance(cells, list):
        return []
    return [c for c in cells if isinstance(c, str)]


def _assigned_names(target):
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        return set().union(*(_assigned_names(t) for t in target.elts)) if target.elts else set()
    if isinstance(target, ast.Starred):
        return _assigned_names(target.value)
    return set()


def _assignments(tree):
    """``[(line, names, value)]`` for every assignment in a parsed cell, in source order."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            names = set().union(*(_assigned_names(t) for t in node.targets))
            out.append((node.lineno, names, node.value))
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            out.append((node.lineno, _assigned_names(node.target), node.value))
        elif isinstance(node, ast.NamedExpr):
            out.append((node.lineno, _assigned_names(node.target), node.value))
    return sorted(out, key=lambda a: a[0])


def _definition(name, parsed, before):
    """The last cell before ``before`` that assigns ``name``: its index and the values assigned.

    ``parsed`` holds the history's cells as syntax trees (``None`` for one
    that does not parse).
    """
    for i in range(min(before, len(parsed)) - 1, -1, -1):
        if parsed[i] is None:
            continue
        values = [value for _, names, value in _assignments(parsed[i]) if name in names]
        if values:
            return i, values
    return None, []


def _resolve(expr, ns):
    """The object ``a.b.c`` names in ``ns`` (attributes read, nothing called), or None."""
    parts = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name) or expr.id not in ns:
        return None
    obj = ns[expr.id]
    for part in reversed(parts):
        try:  # a module's attribute may be loaded on first use; nothing else is run
            obj = (getattr(obj, part) if isinstance(obj, types.ModuleType)
                   else inspect.getattr_static(obj, part))
        except AttributeError:
            return None
        if isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
    return obj


def _library_function(obj):
    """``rm.<name>`` if ``obj`` is a function or class of the library that computes, else None.

    The course's own tools (``ragmetrics_edu.course``) and the text helpers
    of :data:`HELPERS_ALLOWED_BY_HAND` are not counted.
    """
    if not callable(obj) or isinstance(obj, types.ModuleType):
        return None
    module = getattr(obj, "__module__", None) or ""
    if module != "ragmetrics_edu" and not module.startswith("ragmetrics_edu."):
        return None
    short = getattr(obj, "__name__", "")
    if module.startswith("ragmetrics_edu.course") or not short or short in HELPERS_ALLOWED_BY_HAND:
        return None
    import ragmetrics_edu as rm

    if getattr(rm, short, None) is obj:
        return f"rm.{short}"
    return f"rm.{module.removeprefix('ragmetrics_edu.')}.{short}"


def _library_calls(expr, ns):
    """The library functions called in ``expr``, directly or by a function of the student's."""
    found = []
    for node in ast.walk(expr):
        if not isinstance(node, ast.Call):
            continue
        obj = _resolve(node.func, ns)
        named = _library_function(obj)
        if named:
            found.append(named)
        elif isinstance(obj, types.FunctionType):  # a helper of the student's: what does it hold?
            globs = obj.__globals__
            used = _code_names(obj)
            for n in used:
                held = globs.get(n)
                if (isinstance(held, types.ModuleType)
                        and held.__name__.startswith("ragmetrics_edu")):
                    found += [f for f in (_library_function(getattr(held, a, None))
                                          for a in used) if f]
                elif _library_function(held):
                    found.append(_library_function(held))
    return found


def _refuse_library_by_hand(name, ns):
    """Raise :class:`LibraryCallRefused` if the kernel's history computed ``name`` with the library.

    The last cell that assigned ``name`` is read, and so, one step at a
    time, the cells that assigned the names its expression uses (``p, r =
    5 / 8, 1`` before ``my_f1 = 2 * p * r / (p + r)``).  Arithmetic passes;
    a call of a library function that computes a score is refused.  Without
    a history (a plain Python session, or a kernel told not to keep one)
    nothing is refused.
    """
    __tracebackhide__ = True
    cells = _history(ns)
    if not cells:
        return
    parsed = []
    for cell in cells:
        try:
            parsed.append(ast.parse(cell))
        except SyntaxError:
            parsed.append(None)
    todo, seen = [(name, len(parsed))], set()
    while todo and len(seen) < 200:
        var, before = todo.pop()
        if (var, before) in seen:
            continue
        seen.add((var, before))
        at, values = _definition(var, parsed, before)
        for value in values:
            called = _library_calls(value, ns)
            if called:
                raise LibraryCallRefused(
                    f"{name} is computed with the library's {called[0]}: this exercise asks "
                    f"you to work it out by hand, from the formula (arithmetic such as "
                    f"(1/1 + 2/3) / 2 is what the check expects; compare with {called[0]} in a "
                    f"cell of your own afterwards).")
            for node in ast.walk(value):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                    todo.append((node.id, at + 1))


def check_number(name, expected=None, *, digest_=None, salt=None, decimals=3, hint="",
                 by_hand=True, slips=(), slack=1):
    """Check a number the student computed by hand and typed in.

    Parameters
    ----------
    name : str
        The variable the student assigned, in the calling notebook.
    expected : float, optional
        The right value (hand arithmetic written in the check cell).
        Answers within half a unit of the last of ``decimals`` are right.
    digest_ : str, optional
        Instead of ``expected``: :func:`digest` of the right value with
        ``salt``, so the check does not show the answer.  The student's number
        is right if it rounds to the same ``decimals`` digits (or ``slack``
        units either side, for an answer rounded by hand from a cut
        intermediate; with ``decimals=0``, a count, only the same whole
        number).
    salt : str
        With ``digest_`` (and only then): the salt the fingerprint was made
        with, the check's own (``"02/my_ap"``, lesson and name).
    decimals : int
        The precision asked of the student (3: "0.583").
    hint : str
        Said when the answer is wrong (a common slip to look for).  The
        expected value itself is never shown.
    by_hand : bool, default True
        The number is worked out by hand, so a scoring call of the library
        in the cells that computed it is refused.  False for a number found
        in the notebook's data with the library's help (the smallest number
        of labels at which an interval is narrow enough).
    slips : sequence of (str, str), optional
        Known wrong answers, each as ``(digest(value, salt, decimals), message)``:
        an answer that is one of them is told the message instead of the
        hint (the likeliest slip named: "that is the unweighted kappa").
        Only with ``digest_``, so no wrong value is shown either.
    slack : {1, 0}, default 1
        With ``digest_``: how many units of the last decimal either side of
        the right value are accepted.  1 (the course's default) forgives a
        by-hand answer whose intermediate steps were rounded (0.584 or 0.582
        for 7/12 = 0.5833...); 0 accepts only the right value rounded, for an
        exercise whose intermediate steps are exact, so that a slip in the
        last digit is not taken for rounding (``expected=`` always accepts
        only the right value rounded).

    Raises
    ------
    NotAttempted
        ``name`` is not defined yet.
    LibraryCallRefused
        In a notebook, the cell that assigned ``name`` (or a name it was
        computed from) calls a library function that computes a score
        (``my_ap = rm.average_precision(...)``): the exercise is by hand.
    ExerciseFailed
        The number is wrong.  A number given to one decimal fewer than asked
        that is the right value rounded (0.36 for 4/11) is told so, without
        the hint: every value it can stand for is tried against the
        fingerprint, so the check still never holds the answer.

    Notes
    -----
    The scan reads the kernel's input history (IPython's ``_ih``).  Outside
    IPython, or when a kernel runs cells without storing them (nbval does),
    there is no history and only the value is checked.
    """
    __tracebackhide__ = True
    if (expected is None) == (digest_ is None):
        raise TypeError("check_number needs exactly one of expected= and digest_=")
    if slack not in (0, 1) or isinstance(slack, bool):
        raise TypeError(f"check_number's slack= must be 0 or 1 (units of the last decimal), "
                        f"got {slack!r}")
    if digest_ is not None and not (isinstance(salt, str) and salt):
        raise TypeError(f"check_number with digest_= needs the fingerprint's salt= (a non-empty "
                        f"str), got {str(salt)[:80]!r}")
    ns = _caller_globals()
    got = answer(name, ns)
    if by_hand:
        _refuse_library_by_hand(name, ns)
    if isinstance(got, bool) or not isinstance(got, numbers.Real) or not math.isfinite(got):
        raise ExerciseFailed(f"{name} should be a number, got {got!r}.")
    if decimals == 0 and not float(got).is_integer():
        raise ExerciseFailed(f"{name} should be a whole number, got {_show(got)}.")
    unit = 10.0 ** -decimals
    if expected is not None:
        right = abs(float(got) - float(expected)) <= unit / 2 + 1e-12
    else:
        # slack=1: one unit either side for a number rounded by hand; a count must be exact
        near = (0, -1, 1) if decimals > 0 else (0,)
        right = any(digest(float(got) + d * unit, salt, decimals=decimals) == digest_
                    for d in (near if slack else (0,)))
    if not right and decimals > 0 and _right_when_rounded(float(got), expected, digest_, salt,
                                                          decimals):
        raise ExerciseFailed(
            f"{name} = {_show(got)} is right to {decimals - 1} decimals, but the check needs "
            f"{decimals} ({0.125:.{decimals}f}, not {0.125:.{decimals - 1}f}) or a fraction (5 / 8).")
    if not right and slips:
        if digest_ is None:
            raise TypeError("check_number's slips= needs digest_= (fingerprints, not values)")
        for slip_digest, message in slips:
            if any(digest(float(got) + d * unit, salt, decimals=decimals) == slip_digest for d in near):
                raise ExerciseFailed(f"{name} = {_show(got)} is not right. {message}")
    if not right:
        precision = f" (to {decimals} decimals)" if decimals else ""
        raise ExerciseFailed(f"{name} = {_show(got)} is not right{precision}."
                             + (f" {hint}" if hint else ""))
    print(f"{name}: right.")


def _right_when_rounded(got, expected, digest_, salt, decimals):
    """True if ``got``, given to fewer than ``decimals`` decimals, is the right value rounded.

    The right value is one of the ten numbers of ``decimals`` decimals that
    round to ``got`` at ``decimals - 1`` (0.36 stands for 0.355 to 0.364): each
    is tried against the fingerprint, so the right value is never needed.
    """
    coarse = decimals - 1
    if round(got, coarse) != got:
        return False
    unit = 10.0 ** -decimals
    if expected is not None:
        return abs(got - float(expected)) <= 10.0 ** -coarse / 2 + 1e-12
    return any(digest(got + k * unit, salt, decimals=decimals) == digest_ for k in range(-5, 5))


def digest_items(items, salt):
    """The sorted fingerprints of ``items`` (strings), each salted, for :func:`check_items`.

    Parameters
    ----------
    items : iterable of str
        The right items (question ids, document ids).
    salt : str
        The check's own salt, as for :func:`digest` (``"13/made_hard"``).

    Returns
    -------
    list of str
        The first 12 hex digits of SHA-256 of ``"<salt>:<item>"``, one per
        distinct item, sorted (so their order says nothing of the items').

    Examples
    --------
    >>> digest_items(["cqa-002", "cqa-001"], "99/toy")
    ['3e623e151ecd', 'bc373d2e6942']
    """
    return sorted({_fingerprint(salt, item, "digest_items") for item in items})


def check_items(name, digests, *, salt, hint=""):
    """Check a sorted list of ids the student found, against the right ones' fingerprints.

    The check cell holds :func:`digest_items` of the right list, not the list
    nor the code that finds it, so reading the check does not give the answer
    away; and yet the message can say which of the student's ids are wrong
    (their fingerprints are not among the right ones) and how many are
    missing (not which).

    Parameters
    ----------
    name : str
        The variable the student assigned: a list of str, sorted, each once.
    digests : sequence of str
        :func:`digest_items` of the right list, with ``salt``.
    salt : str
        The check's own salt.
    hint : str
        Said when the list is wrong (a condition to look at again).

    Raises
    ------
    NotAttempted
        ``name`` is not defined yet.
    ExerciseFailed
        The list is not a sorted list of distinct strings, holds an id that
        is not right, or misses some.

    Examples
    --------
    >>> right = digest_items(["cqa-001", "cqa-007"], "99/toy")
    >>> found = ["cqa-001", "cqa-007"]
    >>> check_items("found", right, salt="99/toy")
    found: right (2 items).
    >>> found = ["cqa-001"]
    >>> check_items("found", right, salt="99/toy")
    Traceback (most recent call last):
    ...
    ragmetrics_edu.course.exercises.ExerciseFailed: found misses 1 item(s).
    """
    __tracebackhide__ = True
    got = answer(name, _caller_globals())
    if not isinstance(got, list) or not all(isinstance(x, str) for x in got):
        raise ExerciseFailed(f"{name} should be a list of ids (strings such as 'cqa-014'), "
                             f"got {_show(got)}.")
    twice = next((x for x in got if got.count(x) > 1), None)
    if twice is not None:
        raise ExerciseFailed(f"{twice!r} is in {name} more than once: each id once.")
    if got != sorted(got):
        raise ExerciseFailed(f"{name} is not sorted: sort the ids (sorted(...)).")
    right = set(digests)
    wrong = [x for x in got if digest_items([x], salt)[0] not in right]
    if wrong:
        raise ExerciseFailed(f"{wrong[:3]} should not be in {name}." + (f" {hint}" if hint else ""))
    missing = len(right) - len(got)
    if missing:
        raise ExerciseFailed(f"{name} misses {missing} item(s)." + (f" {hint}" if hint else ""))
    print(f"{name}: right ({len(got)} items).")

