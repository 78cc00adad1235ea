"""What the notebooks use beside the metrics: worked examples, exercise checks, widgets (every notebook).

:mod:`.examples` holds every worked example of the course's sources as
data (inputs, the stated value, the right one, the erratum);
:mod:`.exercises` the check cells of the exercises; :mod:`.widgets` the
interactive explorers (ipywidgets and matplotlib, imported only when a
widget is built).  The course sits on top: it may use every other part.
"""

from .._lazy import lazy_attributes as _lazy_attributes

__getattr__, __dir__ = _lazy_attributes(__name__, modules={"examples", "exercises", "widgets"})
