"""Names and submodules of a package, imported the first time they are read.

``import ragmetrics_edu`` needs NumPy only: a package of it lists what it
offers (``rm.bleu``, ``rm.judge``, ``rm.retrieval.trec``) and
:func:`lazy_attributes` gives it the module ``__getattr__`` of PEP 562 that
imports the right module on first use, and the ``__dir__`` that lists it all.
Every ``__init__.py`` of the package uses it.  This module imports nothing of
the package.
"""

import sys
from importlib import import_module
from importlib.util import find_spec


def lazy_attributes(package, *, names=None, modules=()):
    """Return ``(__getattr__, __dir__)`` for the package named ``package``.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    names : dict of str to str, optional
        Public name -> the submodule (relative to ``package``) that defines it.
        A name read once is kept in the package's namespace, so the next read
        costs nothing.
    modules : iterable of str, optional
        Submodules read as attributes of the package (``rm.judge.rag``).  A
        submodule that is not installed is an ``AttributeError``, as any
        unknown name.

    Returns
    -------
    tuple of two functions
        Assign them to the package's ``__getattr__`` and ``__dir__``.

    Examples
    --------
    >>> getattr_, dir_ = lazy_attributes("ragmetrics_edu.generation", modules={"text", "rouge"})
    >>> getattr_("text").__name__
    'ragmetrics_edu.generation.text'
    >>> getattr_("txt")
    Traceback (most recent call last):
    ...
    AttributeError: module 'ragmetrics_edu.generation' has no attribute 'txt'
    """
    names = dict(names or {})
    modules = frozenset(modules)

    def __getattr__(name):
        if name in names:
            value = getattr(import_module(f".{names[name]}", package), name)
            setattr(sys.modules[package], name, value)
            return value
        if name in modules:
            try:
                return import_module(f".{name}", package)
            except ModuleNotFoundError as exc:
                if exc.name != f"{package}.{name}":
                    raise
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__():
        present = {name for name in modules if find_spec(f".{name}", package) is not None}
        return sorted(set(vars(sys.modules[package])) | set(names) | present)

    return __getattr__, __dir__
