"""Metrics of generated text against references (notebooks 04-06, 08, 11).

:mod:`.text` holds the tokenizers (whitespace, rouge-score's);
:mod:`.bleu_stats` and :mod:`.bleu_score` BLEU, its statistics (n-grams,
clipped precision, brevity penalty) and its scoring (smoothing, sentence
and corpus BLEU); :mod:`.rouge` ROUGE-N, -L and -Lsum; :mod:`.chrf_score`
chrF and chrF++ (notebook 05); :mod:`.qa` SQuAD's exact match and token F1
(08, 11); :mod:`.semantic` BERTScore with the transformer of
:mod:`ragmetrics_edu.models` (06).  They import ``_validation`` and the
models only.
"""

from importlib import import_module as _import_module

_MODULES = {"text", "bleu_stats", "bleu_score", "rouge", "chrf_score", "qa", "semantic"}


def __getattr__(name):
    if name in _MODULES:
        return _import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | _MODULES)
