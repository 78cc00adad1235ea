"""The end-to-end lab: a real collection, retrievers, answerers and significance tests (notebooks 09, 11).

:mod:`.datasets` loads the Cranfield 1400 collection and its QA set
(shipped, nothing downloaded); :mod:`.retrievers` holds BM25, dense
retrieval and rank fusion; :mod:`.answer` extractive and generative
answerers (11); :mod:`.significance` the paired tests that say whether
system B beats system A (bootstrap, t-test, randomization), and
:mod:`.power` what comes after a test (many comparisons, effect sizes, how
many queries are needed); :mod:`.qa_annotations` our nuggets and paraphrased
twins of the QA set, and :mod:`.testset` a test set's health (11).  The lab builds on the parts below it (models,
retrieval, generation, judge), never the reverse.
"""

from .._lazy import lazy_attributes as _lazy_attributes

__getattr__, __dir__ = _lazy_attributes(__name__, modules={
    "datasets", "retrievers", "answer", "significance", "power", "qa_annotations", "testset"})
