"""The batch evaluator: :func:`evaluate` scores a run of many queries as trec_eval does (notebooks 01-03, 09).

Read it in this order: :mod:`.evaluator` holds :func:`evaluate` and its
five named steps (which queries are scored, the dictionaries checked into
flat arrays, the ranks of the relevant documents, one kernel per metric,
per-query values and means) and the rules of trec_eval it follows;
:mod:`.kernels` the per-metric kernels, a few lines each, to read next to
notebooks 01-03; :mod:`.registry` the metric names and their parser;
:mod:`.report` the :class:`Report` it returns.  The private modules
(``_checks``, ``_engine``, ``_words``) are engine, not lesson: fast input
checks and the tie and ordering machinery that makes a million documents
take a fraction of a second.

:func:`evaluate` is loaded on first use: :mod:`.evaluator` imports
:mod:`ragmetrics_edu.retrieval.conventions`, which imports :mod:`.report`,
so loading it here would make ``conventions`` and this package need each
other at load time.
"""

from ..._lazy import lazy_attributes as _lazy_attributes
from .registry import GAINS, METRICS, MISSING_POLICIES, PARAMETERS
from .report import Report

__all__ = ["evaluate", "Report", "METRICS", "PARAMETERS", "MISSING_POLICIES", "GAINS"]


__getattr__, __dir__ = _lazy_attributes(__name__, names={"evaluate": "evaluator"})
