"""The checks of texts and references the text metrics and the encoders share.

Each names the argument and shows the value (:func:`~ragmetrics_edu._validation.describe`),
as the checks of :mod:`ragmetrics_edu._validation` do, and follows its exception rule: a
value of the wrong type is a ``TypeError``, one of the right type out of its range a
``ValueError``.
"""

import collections.abc

from ._validation import describe


def check_text(text, *, name):
    """Return ``text`` if it is a string, else raise (with a hint for a list one level too deep)."""
    if not isinstance(text, str):
        hint = " (is it nested one level too deep?)" if isinstance(text, (list, tuple)) else ""
        raise TypeError(f"{name} must be a string, got {type(text).__name__}: "
                        f"{describe(text)}{hint}")
    return text


def check_texts(texts, *, name):
    """Return ``texts`` (a string, or an iterable of strings) as a list of strings, or raise.

    Parameters
    ----------
    texts : str or iterable of str
        One text (returned as a list of one) or any iterable of strings; bytes, a
        mapping, a set, a non-iterable or an item that is not a string is a
        ``TypeError`` naming its position.
    name : str
        The argument's name in the messages.

    >>> check_texts("one", name="texts"), check_texts(("a", "b"), name="texts")
    (['one'], ['a', 'b'])
    """
    if isinstance(texts, str):
        return [texts]
    if isinstance(texts, (bytes, collections.abc.Mapping, collections.abc.Set)):
        raise TypeError(f"{name} must be a string or a list of strings, got {describe(texts)}")
    try:
        texts = list(texts)
    except TypeError:
        raise TypeError(
            f"{name} must be a string or a list of strings, got {describe(texts)}") from None
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            raise TypeError(f"{name} must hold strings, got {describe(t)} at position {i}")
    return texts


def check_references(references, *, name="references", what="the references", empty_hint=""):
    """Return one segment's references (a string, or a list of strings) as a non-empty list.

    ``what`` says what the references are in the message; ``empty_hint``
    follows the message for an empty list.

    >>> check_references("a cat", name="references")
    ['a cat']
    >>> check_references(["a", ["b"]], name="references[3]")
    Traceback (most recent call last):
    ...
    TypeError: references[3][1] must be a string, got list: ['b'] (is it nested one level too deep?)
    """
    if isinstance(references, str):
        return [references]
    if not isinstance(references, (list, tuple)):
        raise TypeError(
            f"{name} must be a string or a list of strings ({what}), "
            f"got {type(references).__name__}: {describe(references)}"
        )
    if len(references) == 0:
        raise ValueError(f"{name} must hold at least one reference, got an empty list{empty_hint}")
    for i, ref in enumerate(references):
        check_text(ref, name=f"{name}[{i}]")
    return list(references)


def cut_repr(value, limit=80):
    """``repr(value)``, cut to ``limit`` characters and ``...`` if longer."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def check_list(values, *, name, what):
    """Return ``values`` as a list, or raise a ``TypeError`` naming ``name``.

    Parameters
    ----------
    values : iterable
        The items; one string, bytes, a dict or a value that is not iterable is refused.
    name : str
        The argument's name in the message.
    what : str
        What ``values`` must be, in the message (``"a list of verdict lists"``).
    """
    if isinstance(values, (str, bytes, dict)) or not hasattr(values, "__iter__"):
        raise TypeError(f"{name} must be {what}, got {cut_repr(values)}")
    return list(values)


def check_string_list(values, *, name, what):
    """Return ``values`` as a list of strings, or raise a ``TypeError`` naming ``name``.

    Parameters
    ----------
    values : iterable of str
        The strings; one string, bytes or a dict is refused (not read item by item).
    name : str
        The argument's name in the messages.
    what : str
        What ``values`` must be, in the message for one that is not a list
        (``"a list of entity strings"``).

    >>> check_string_list(("a", "b"), name="passages", what="a list of texts")
    ['a', 'b']
    """
    values = check_list(values, name=name, what=what)
    for i, v in enumerate(values):
        if not isinstance(v, str):
            raise TypeError(f"{name} must hold strings, got {cut_repr(v)} at position {i}")
    return values
