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

from .._lazy import lazy_attributes as _lazy_attributes

__getattr__, __dir__ = _lazy_attributes(__name__, modules={
    "text", "bleu_stats", "bleu_score", "rouge", "chrf_score", "qa", "semantic"})
