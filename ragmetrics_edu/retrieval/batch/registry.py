"""The metric names :func:`~ragmetrics_edu.retrieval.batch.evaluate` understands, and their parser.

A name is a family, optional named parameters and an optional cut-off:
``"ndcg@10"``, ``"map"``, ``"iprec@0.5"``, ``"rbp(p=0.9)"``,
``"err(max_grade=3)@20"``.  :data:`METRICS` says, for each family, whether
it takes a cut-off, what it measures and the reference library's name for
it; :data:`PARAMETERS` the named parameters and their defaults.
:func:`_parse_metric` turns a name into a :class:`_Metric`, or raises an
error that lists the known names.

Examples
--------
>>> from ragmetrics_edu.retrieval.batch.registry import _parse_metric
>>> m = _parse_metric("err(max_grade=3)@20")
>>> m.base, m.k, m["max_grade"]
('err', 20, 3.0)
"""

import dataclasses
import re

from ..._validation import check_choice, check_k_text, shorten
from ..user_models import RBP_GAINS

__all__ = ["METRICS", "PARAMETERS", "MISSING_POLICIES", "GAINS"]

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

_NEEDS_JUDGED = {"bpref", "judged", "rbp_residual"}
"""Families that need the ranks of every judged document, not only the relevant ones."""

MISSING_POLICIES = ("ignore", "zero")
"""What :func:`evaluate` does with judged queries missing from the run."""

GAINS = ("linear", "exponential")
"""Gain of a grade ``g`` in DCG: ``g`` (trec_eval) or ``2**g - 1`` (Burges et al.)."""


def _known_metrics():
    """Return the list of metric name patterns, for error messages."""
    names = []
    for base, (cut, _, _) in METRICS.items():
        if base in PARAMETERS:
            defaults = ", ".join(f"{key}={value}" for key, value in PARAMETERS[base].items())
            base = f"{base}, {base}({defaults})"
        names.append({"required": f"{base}@k", "optional": f"{base}, {base}@k",
                      "none": base, "level": f"{base}@r (r in [0, 1])"}[cut])
    return ", ".join(names)


@dataclasses.dataclass(frozen=True)
class _Metric:
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
    for item in text.split(","):
        key, equals, value = (part.strip() for part in item.partition("="))
        if not equals or key not in values:
            known = ", ".join(f"{k}=..." for k in values)
            raise ValueError(
                f"metric {shorten(name)}: {base} takes the parameters {known}, "
                f"got {shorten(item.strip())}"
            )
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


def _parse_metric(name):
    """Parse a metric name such as ``"ndcg@10"``, ``"iprec@0.5"`` or ``"rbp(p=0.9)"``.

    Returns a :class:`_Metric`; its cut-off is None when the name has none
    (``"map"``).
    """
    if not isinstance(name, str):
        raise TypeError(f"metric names must be strings, got {name!r}")
    head, at, k_text = name.partition("@")
    base, parenthesis, inside = head.partition("(")
    if base not in METRICS:
        raise ValueError(
            f"unknown metric {shorten(name)}; the known metrics are: {_known_metrics()} "
            f"(k a positive integer, e.g. 'ndcg@10')"
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
        return _Metric(name, base, level, params)
    if not at:
        if cut == "required":
            raise ValueError(
                f"metric {shorten(name)} needs a cut-off k, e.g. '{base}@10'"
            )
        return _Metric(name, base, None, params)
    if cut == "none":
        raise ValueError(f"metric {shorten(name)} takes no cut-off, write '{base}'")
    # "P@10": the cut-off must be written as a positive integer
    return _Metric(name, base, check_k_text(k_text, metric=name), params)


def _check_metrics(metrics):
    """Return the metric names as a list of :class:`_Metric`, without repeats."""
    if isinstance(metrics, str):
        metrics = [metrics]
    if not hasattr(metrics, "__iter__"):
        raise TypeError(f"metrics must be a list of metric names, got {metrics!r}")
    parsed = []
    seen = set()
    for name in metrics:
        metric = _parse_metric(name)
        if name not in seen:
            seen.add(name)
            parsed.append(metric)
    if not parsed:
        raise ValueError(
            f"metrics must name at least one metric; the known metrics are: "
            f"{_known_metrics()}"
        )
    return parsed

