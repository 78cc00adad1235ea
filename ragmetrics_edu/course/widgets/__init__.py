"""Interactive widgets of the notebooks (ipywidgets 7.6 or later, and matplotlib).

Each constructor returns an explorer object: display it in a notebook, or
drive it from Python (set a control's ``value``, read ``values``).  The
numbers come from a pure function of the library, unit tested on its own.
ipywidgets and matplotlib are imported when a constructor is first called,
so ``import ragmetrics_edu.course.widgets`` stays cheap.

====================================  ==========================  ========
constructor                           pure computation            notebook
====================================  ==========================  ========
``precision_recall_explorer``         ``order_unaware_curves``    01
``average_precision_explorer``        ``order_aware_breakdown``   02
``ndcg_explorer``                     ``graded_breakdown``        03
``ngram_overlap_explorer``            (see ``.ngram``)            04
``bertscore_heatmap``                 (see ``.bertscore``)        06
``judge_playground``                  ``judge_playground_state``  07
``click_user_explorer``               ``click_user_state``        14
``claim_diagnostics_explorer``        ``rm.claim_diagnostics``    15
====================================  ==========================  ========

``Explorer`` is the base class of them all: subclass it to build your own.
``FigureView`` is the figure they redraw in place, shown as an image with
an alt text that says what it shows.

For the lessons (``.lesson``, no matplotlib needed): ``seed_table(*keys)``
shows seed worked examples beside the library's number with their errata.
The exercises' checks are in :mod:`ragmetrics_edu.course.exercises`.
"""

from ..._lazy import lazy_attributes as _lazy_attributes

_EXPORTS = {
    "precision_recall_explorer": "order_unaware",
    "order_unaware_curves": "order_unaware",
    "PrecisionRecallExplorer": "order_unaware",
    "average_precision_explorer": "order_aware",
    "order_aware_breakdown": "order_aware",
    "AveragePrecisionExplorer": "order_aware",
    "ndcg_explorer": "graded",
    "graded_breakdown": "graded",
    "NDCGExplorer": "graded",
    "seed_table": "lesson",
    "ngram_overlap_explorer": "ngram",
    "bertscore_heatmap": "bertscore",
    "judge_playground": "judge",
    "judge_playground_state": "judge",
    "JudgePlayground": "judge",
    "click_user_explorer": "online",
    "click_user_state": "online",
    "ClickUserExplorer": "online",
    "claim_diagnostics_explorer": "diagnostics",
    "ClaimDiagnosticsExplorer": "diagnostics",
    "Explorer": "_common",
    "FigureView": "_common",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = _lazy_attributes(__name__, names=_EXPORTS)
