"""Old names that keep working for one release, each with a warning naming the new one.

The public names follow one table (``docs/architecture.md``, "One name per
concept").  An argument or a result's attribute renamed to follow it keeps
working until :data:`REMOVED_IN`: the old spelling raises a
:class:`DeprecationWarning` that says what to write instead, then does what
the new one does.

* :func:`renamed_arguments` decorates a function whose arguments were renamed.
* :func:`formerly_positional` decorates a function whose arguments after
  the first two became keyword-only: a positional call still works, and warns.
* :func:`renamed_attribute` is the old name of a result's attribute: a
  property that warns and reads the new one.
* :func:`warn_renamed` warns of any other old name (a preset's), at the
  first caller outside the package.

This module imports nothing of the package.
"""

import functools
import os
import sys
import warnings

__all__ = ["REMOVED_IN", "formerly_positional", "renamed_arguments", "renamed_attribute",
           "warn_renamed"]

REMOVED_IN = "0.3.0"
"""The release in which the old names stop working."""


def _warn(message, stacklevel, what="the old name"):
    warnings.warn(f"{message} ({what} stops working in ragmetrics_edu {REMOVED_IN})",
                  DeprecationWarning, stacklevel=stacklevel + 1)


def renamed_arguments(**old_to_new):
    """Decorate a function whose keyword arguments were renamed ``old=new``.

    A call with an old name warns and passes the value under the new one;
    a call with both names is a TypeError.  ``inspect.signature`` shows the
    new signature, and ``renamed_arguments`` on the function lists the old
    names (the tests call each of them).

    Examples
    --------
    >>> import warnings
    >>> @renamed_arguments(hypothesis="candidate")
    ... def score(candidate, references):
    ...     return candidate in references
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     score(hypothesis="a", references=["a"])
    True
    >>> print(caught[0].message)
    score(): the argument hypothesis is renamed candidate (the old name stops working in ragmetrics_edu 0.3.0)
    >>> score("a", ["a"], hypothesis="a")
    Traceback (most recent call last):
    ...
    TypeError: score() got hypothesis= (the old name of candidate) and candidate; pass candidate alone
    """

    def decorate(function):
        name = function.__qualname__.replace(".__init__", "")

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            for old in old_to_new.keys() & kwargs.keys():
                new = old_to_new[old]
                if new in kwargs or _given_by_position(function, new, args):
                    raise TypeError(f"{name}() got {old}= (the old name of {new}) and {new}; "
                                    f"pass {new} alone")
                _warn(f"{name}(): the argument {old} is renamed {new}", 2)
                kwargs[new] = kwargs.pop(old)
            return function(*args, **kwargs)

        wrapper.renamed_arguments = dict(old_to_new)
        return wrapper

    return decorate


def formerly_positional(*names):
    """Decorate a function whose arguments ``names`` were positional and are now keyword-only.

    ``names`` are the keyword-only parameters, in the order they had when they
    could be given by position.  A call that still gives them by position
    warns, naming each keyword to write, and passes them by name; a call
    giving one both ways is a TypeError, as Python's own.  More positional
    arguments than the function ever took are Python's TypeError too.
    ``inspect.signature`` shows the keyword-only signature, and
    ``formerly_positional`` on the function lists ``names``.

    Examples
    --------
    >>> import warnings
    >>> @formerly_positional("n_relevant")
    ... def recall(rels, k, *, n_relevant=None):
    ...     return sum(rels[:k]) / (n_relevant or sum(rels))
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     recall([1, 0, 1], 2, 4)
    0.25
    >>> print(caught[0].message)
    recall(): pass n_relevant by keyword: n_relevant=4 (a positional n_relevant stops working in ragmetrics_edu 0.3.0)
    >>> recall([1, 0, 1], 2, 4, n_relevant=4)
    Traceback (most recent call last):
    ...
    TypeError: recall() got n_relevant by position and by keyword; pass it by keyword alone
    """

    def decorate(function):
        name = function.__qualname__.replace(".__init__", "")
        code = function.__code__
        n_positional = code.co_argcount
        keyword_only = code.co_varnames[n_positional:n_positional + code.co_kwonlyargcount]
        if list(names) != list(keyword_only[:len(names)]):
            raise TypeError(f"{name}: formerly_positional{names} must be the first keyword-only "
                            f"parameters {keyword_only[:len(names)]}, in order")

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            if len(args) > n_positional:
                extra = args[n_positional:]
                if len(extra) > len(names):
                    raise TypeError(f"{name}() takes {n_positional} positional arguments "
                                    f"(and {len(names)} formerly positional) but "
                                    f"{len(args)} were given")
                passed = dict(zip(names, extra))
                for given in passed.keys() & kwargs.keys():
                    raise TypeError(f"{name}() got {given} by position and by keyword; "
                                    f"pass it by keyword alone")
                keywords = ", ".join(f"{k}={_short(v)}" for k, v in passed.items())
                _warn(f"{name}(): pass {', '.join(passed)} by keyword: {keywords}", 2,
                      what="a positional " + " or ".join(passed))
                kwargs.update(passed)
                args = args[:n_positional]
            return function(*args, **kwargs)

        wrapper.formerly_positional = tuple(names)
        return wrapper

    return decorate


def _short(value):
    """A value as a warning shows it: its repr, cut to 40 characters."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _given_by_position(function, name, args):
    """Whether ``args`` reach the parameter ``name`` of ``function``."""
    code = function.__code__
    positional = code.co_varnames[:code.co_argcount]
    return name in positional and positional.index(name) < len(args)


def renamed_attribute(old, new):
    """A property ``old`` that warns and returns the attribute ``new``: a renamed result field.

    Examples
    --------
    >>> import warnings
    >>> class Result:
    ...     p_value = 0.03
    ...     pvalue = renamed_attribute("pvalue", "p_value")
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     Result().pvalue
    0.03
    >>> print(caught[0].message)
    Result.pvalue is renamed p_value (the old name stops working in ragmetrics_edu 0.3.0)
    """

    def read(self):
        _warn(f"{type(self).__name__}.{old} is renamed {new}", 2)
        return getattr(self, new)

    read.__name__ = old
    prop = property(read, doc=f"Deprecated: the old name of ``{new}`` "
                              f"(until ragmetrics_edu {REMOVED_IN}).")
    return prop


_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def warn_renamed(message):
    """Warn that ``message`` (``"the preset 'a' is renamed 'b'"``) at the user's line.

    The warning points at the first frame outside the package, however
    deep in it the old name was read.
    """
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE + os.sep):
        frame, level = frame.f_back, level + 1
    _warn(message, level + 1)  # + 1: warn_renamed itself
