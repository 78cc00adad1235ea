"""Retrieval metrics: ranked lists of documents against relevance judgements (notebooks 01-03, 09, 10).

One module per family, each a readable one-query function:
:mod:`.order_unaware` (P@k, recall@k, F1@k, hit rate, notebook 01),
:mod:`.order_aware` (RR, AP, R-precision, the precision-recall curve, 02),
:mod:`.graded` (CG, DCG, nDCG, 03), :mod:`.user_models` (ERR, RBP, 03),
:mod:`.incomplete` (bpref, judged@k, 09).  :mod:`.batch` scores many
queries at once exactly as trec_eval does (``evaluate``); :mod:`.trec`
reads and writes TREC qrels and run files (09); :mod:`.conventions` holds
the presets of the other libraries (trec_eval, ranx, scikit-learn, gdeval,
ragas; notebook 10), :mod:`.tied_scores` scikit-learn's averaging over
tied scores, and :mod:`.frames` data frames in.  The parts import
``_validation`` and each other only.
"""

from .._lazy import lazy_attributes as _lazy_attributes

__getattr__, __dir__ = _lazy_attributes(__name__, modules={
    "order_unaware", "order_aware", "graded", "user_models", "incomplete", "batch", "trec",
    "conventions", "tied_scores", "frames"})
