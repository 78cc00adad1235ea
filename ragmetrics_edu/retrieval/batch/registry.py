"""The metric names :func:`~ragmetrics_edu.retrieval.batch.evaluate` understands, and their parser.

A name is a family, optional named parameters and an optional cut-off:
``"ndcg@10"``, ``"map"``, ``"iprec@0.5"``, ``"rbp(p=0.9)"``,
``"err(max_grade=3)@20"``.  :data:`METRICS` says, for each family, whether
it takes a cut-off, what it measures and the reference library's name for
it; :data:`PARAMETERS` the named parameters and their defaults.
:func:`parse_metric` turns a name into a :class:`Metric`, or raises an
error that lists the known names.

This module is the one registry of the package: :func:`~ragmetrics_edu.evaluate`,
:func:`~ragmetrics_edu.retrieval.conventions.evaluate_as` (which scores the
families of :data:`PRESET_FAMILIES` under any preset) and the command line
all read their metric names, missing-query policies (:data:`MISSING_POLICIES`)
and gains (:data:`GAINS`) from here.

Examples
--------
>>> from ragmetrics_edu.retrieval.batch.registry import parse_metric
>>> m = parse_metric("err(max_grade=3)@20")
>>> m.base, m.k, m["max_grade"]
('err', 20, 3.0)
>>> parse_metric("rbp(p=.5,p=.6)")
Traceback (most recent call last):
...
ValueError: metric 'rbp(p=.5,p=.6)': the parameter p is given twice
"""

import dataclasses
import re

from ..._validation import check_choice, check_k_text, describe, shorten
from ..user_models import RBP_GAINS

__all__ = ["METRICS", "PARAMETERS", "PRESET_FAMILIES", "MISSING_POLICIES", "GAINS",
           "GRADED_FAMILIES", "LEVEL_SCOPES", "WITHOUT_RELEVANT", "Metric", "parse_metric",
           "check_metrics", "known_metrics", "uses_relevance_level"]

METRICS = {
    # name: (cut-off "required" / "optional" / "none" / "level", what it is,
    #        the reference's name)
    "P": ("required", "precision at k", "P_k"),
    "recall": ("required", "recall at k", "recall_k"),
    "f1": ("required", "harmonic mean of P@k and recall@k", None),
    "hit_rate": ("required", "1 if a relevant document is in the top k", "success_k"),
    "mrr": ("optional", "reciprocal rank of the first relevant document", "recip_rank"),
    "map": ("optional", "average precision", "map / map_cut_k"),
    "ndcg": ("optional", "normalized discounted cumulative gain", "ndcg / ndcg_cut_k"),
    "dcg": ("required", "discounted cumulative gain at k", None),
    "rprec": ("none", "R-precision: precision at rank R", "Rprec"),
    "iprec": ("level", "interpolated precision at a recall level in [0, 1]",
              "iprec_at_recall_0.50 (for iprec@0.5)"),
    "11pt": ("none", "11-point interpolated average precision", "11pt_avg"),
    "bpref": ("none", "binary preference: relevant above judged non-relevant", "bpref"),
    "judged": ("optional", "fraction of the top k that has a judgement",
               "ir_measures Judged@k"),
    "err": ("optional", "expected reciprocal rank (Chapelle et al. 2009)",
            "gdeval err@k (ir_measures ERR@k)"),
    "rbp": ("none", "rank-biased precision (Moffat & Zobel 2008)",
            "cwl-eval RBP (ir_measures RBP(p=0.8, rel=1))"),
    "rbp_residual": ("none", "weight of the ranks RBP could not judge",
                     "cwl-eval's RBP residual"),
}
"""The metric families :func:`evaluate` knows, by the name written before ``@``."""

PARAMETERS = {
    "err": {"max_grade": 4},
    "rbp": {"p": 0.8, "gain": "binary", "max_grade": 4},
    "rbp_residual": {"p": 0.8},
}
"""The named parameters of a family and their defaults: ``"rbp(p=0.9)"``, ``"err(max_grade=3)@20"``."""

NEEDS_JUDGED = {"bpref", "judged", "rbp_residual"}
"""Families that need the ranks of every judged document, not only the relevant ones."""

PRESET_FAMILIES = ("P", "recall", "f1", "hit_rate", "mrr", "map", "ndcg", "dcg")
"""The families :func:`~ragmetrics_edu.retrieval.conventions.evaluate_as` scores under any preset
(the readable single-query functions); a preset's ``metrics`` is a subset of them."""

MISSING_POLICIES = ("ignore", "zero")
"""What :func:`evaluate` does with judged queries missing from the run: leave them out of
the means (trec_eval) or score them 0 (``trec_eval -c``)."""

GAINS = ("linear", "exponential")
"""Gain of a grade ``g`` in DCG: ``g`` (trec_eval) or ``2**g - 1`` (Burges et al.)."""

GRADED_FAMILIES = ("dcg", "ndcg", "err")
"""Families whose value is built from the grades themselves (and ``rbp`` with
``gain=graded``).  trec_eval's relevance level (``-l``) does not apply to
them: ``m_ndcg.c`` takes the gain of a document from its grade and never reads
the level.  Every other family sees a document as relevant or not, relevant
from the relevance level up (``P``, ``recall``, ``map``, ``mrr``, ``bpref``, ...)."""

LEVEL_SCOPES = ("binary", "all")
"""Which measures a relevance level applies to: the binary ones only (trec_eval
and pytrec_eval: nDCG keeps every grade's gain), or all of them (ranx's
``rel_lvl``: a grade below the level is removed from the qrels, so it loses
its gain in DCG and nDCG too)."""

WITHOUT_RELEVANT = ("zero", "skip")
"""A scored query with no relevant document: every binary measure 0, and the
query counted in the means (``"zero"``: trec_eval, ranx), or the query left out
of the scores and the means (``"skip"``: gdeval, which only scores the topics
with a grade above 0)."""


def uses_relevance_level(metric, scope="binary"):
    """True if the relevance level decides which documents of ``metric`` count.

    ``metric`` is a :class:`Metric`; ``scope`` one of :data:`LEVEL_SCOPES`.

    Examples
    --------
    >>> uses_relevance_level(parse_metric("map")), uses_relevance_level(parse_metric("ndcg@10"))
    (True, False)
    >>> uses_relevance_level(parse_metric("ndcg@10"), scope="all")  # ranx's rel_lvl
    True
    >>> uses_relevance_level(parse_metric("rbp(p=0.8, gain=graded)"))
    False
    """
    if scope == "all":
        return True
    if metric.base == "rbp":
        return metric["gain"] == "binary"
    return metric.base not in GRADED_FAMILIES


def known_metrics(families=None):
    """The metric name patterns, each written once, for error messages and help texts.

    ``families`` limits them to some families (default: all of :data:`METRICS`).

    Examples
    --------
    >>> known_metrics(("P", "map", "err"))
    'P@k, map, map@k, err, err@k, err(max_grade=4), err(max_grade=4)@k'
    """
    names = []
    for base, (cut, _, _) in METRICS.items():
        if families is not None and base not in families:
            continue
        heads = [base]
        if base in PARAMETERS:
            defaults = ", ".join(f"{key}={value}" for key, value in PARAMETERS[base].items())
            heads.append(f"{base}({defaults})")
        for head in heads:
            names += {"required": [f"{head}@k"], "optional": [head, f"{head}@k"],
                      "none": [head], "level": [f"{head}@r (r in [0, 1])"]}[cut]
    return ", ".join(names)


@dataclasses.dataclass(frozen=True)
class Metric:
    """A parsed metric name: ``"err(max_grade=3)@20"`` is family ``err``, k 20, max_grade 3."""

    name: str
    base: str
    k: object = None            # int, None (whole ranking), or the recall level of iprec
    params: tuple = ()          # ((key, value), ...) of the named parameters

    def __getitem__(self, key):
        return dict(self.params)[key]


_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+")
"""A parameter's number: ASCII digits with an optional decimal point (no sign, no exponent)."""


def _parse_number(text, what, name):
    """``text`` as a float, if it is a plain decimal number; else a ValueError naming the metric."""
    if len(text) > 40 or not _NUMBER.fullmatch(text):
        raise ValueError(
            f"{what} must be a decimal number such as 0.8, got {shorten(text)} "
            f"in metric {shorten(name)}"
        )
    return float(text)


def _parse_parameters(text, base, name):
    """The ``key=value`` pairs written between parentheses, checked, with the defaults."""
    values = dict(PARAMETERS[base])
    given = set()
    for item in text.split(","):
        key, equals, value = (part.strip() for part in item.partition("="))
        if not equals or key not in values:
            known = ", ".join(f"{k}=..." for k in values)
            raise ValueError(
                f"metric {shorten(name)}: {base} takes the parameters {known}, "
                f"got {shorten(item.strip())}"
            )
        if key in given:  # "rbp(p=.5,p=.6)": which one was meant?
            raise ValueError(f"metric {shorten(name)}: the parameter {key} is given twice")
        given.add(key)
        if key == "gain":
            check_choice(value, RBP_GAINS, name=f"the gain of {shorten(name)}")
            values[key] = value
        else:
            values[key] = _parse_number(value, key, name)
    if "p" in values and not 0.0 < values["p"] < 1.0:
        raise ValueError(
            f"{base}: the persistence p must be strictly between 0 and 1, got "
            f"p={values['p']!r} in metric {shorten(name)}"
        )
    if "max_grade" in values:
        if not values["max_grade"] > 0:
            raise ValueError(
                f"{base}: max_grade must be a positive number, got "
                f"{values['max_grade']!r} in metric {shorten(name)}"
            )
        if values["max_grade"] > 1023:  # 2**max_grade must be a finite float
            raise ValueError(
                f"{base}: max_grade must be at most 1023 (2**max_grade must fit in a "
                f"float), got {values['max_grade']!r} in metric {shorten(name)}"
            )
    return tuple(values.items())


def parse_metric(name, families=None, *, who=None):
    """Parse a metric name such as ``"ndcg@10"``, ``"iprec@0.5"`` or ``"rbp(p=0.9)"``.

    Returns a :class:`Metric`; its cut-off is None when the name has none
    (``"map"``).  ``families``, when given, are the only families accepted
    (a preset's), and ``who`` names what computes them in the message.
    """
    if not isinstance(name, str):
        raise TypeError(f"metric names must be strings, got {describe(name)}")
    head, at, k_text = name.partition("@")
    base, parenthesis, inside = head.partition("(")
    if base not in METRICS:
        raise ValueError(
            f"unknown metric {shorten(name)}; the known metrics are: "
            f"{known_metrics(families)} (k a positive integer, e.g. 'ndcg@10')"
        )
    if families is not None and base not in families:
        raise ValueError(
            f"{who or 'this evaluator'} does not compute {base!r}; it knows "
            f"{known_metrics(families)}, got {shorten(name)}"
        )
    params = tuple(PARAMETERS.get(base, {}).items())
    if parenthesis:
        if base not in PARAMETERS:
            raise ValueError(
                f"metric {shorten(name)}: {base} takes no parameters (only "
                f"{', '.join(PARAMETERS)} do)"
            )
        if not inside.endswith(")"):
            raise ValueError(
                f"metric {shorten(name)}: the parameters must end with ')', e.g. 'rbp(p=0.9)'"
            )
        params = _parse_parameters(inside[:-1], base, name)
    cut = METRICS[base][0]
    if cut == "level":  # "iprec@0.5": a recall level
        if not at:
            raise ValueError(f"metric {shorten(name)} needs a recall level, e.g. '{base}@0.5'")
        level = _parse_number(k_text, "the recall level", name)
        if not 0.0 <= level <= 1.0:
            raise ValueError(
                f"{base}: the recall level must be in [0, 1], got {k_text} in metric "
                f"{shorten(name)}"
            )
        return Metric(name, base, level, params)
    if not at:
        if cut == "required":
            raise ValueError(
                f"metric {shorten(name)} needs a cut-off k, e.g. '{base}@10'"
            )
        return Metric(name, base, None, params)
    if cut == "none":
        raise ValueError(f"metric {shorten(name)} takes no cut-off, write '{base}'")
    # "P@10": the cut-off must be written as a positive integer
    return Metric(name, base, check_k_text(k_text, metric=name, name="the cut-off k"), params)


def check_metrics(metrics, families=None, *, who=None):
    """Return the metric names as a list of :class:`Metric`, without repeats.

    ``families`` and ``who`` as in :func:`parse_metric`.
    """
    if isinstance(metrics, str):
        metrics = [metrics]
    if not hasattr(metrics, "__iter__"):
        raise TypeError(f"metrics must be a list of metric names, got {describe(metrics)}")
    parsed = []
    seen = set()
    for name in metrics:
        metric = parse_metric(name, families, who=who)
        if name not in seen:
            seen.add(name)
            parsed.append(metric)
    if not parsed:
        raise ValueError(
            f"metrics must name at least one metric; the known metrics are: "
            f"{known_metrics(families)}"
        )
    return parsed

