"""What the notebooks use beside the metrics: worked examples, exercise checks, widgets (every notebook).

:mod:`.examples` holds every worked example of the course's sources as
data (inputs, the stated value, the right one, the erratum);
:mod:`.exercises` the check cells of the exercises; :mod:`.widgets` the
interactive explorers (ipywidgets and matplotlib, imported only when a
widget is built).  The course sits on top: it may use every other part.
"""

from importlib import import_module as _import_module

_MODULES = {"examples", "exercises", "widgets"}


def __getattr__(name):
    if name in _MODULES:
        return _import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | _MODULES)
