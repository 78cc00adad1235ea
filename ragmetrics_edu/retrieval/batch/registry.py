"""The retrieval metrics the package knows: one declaration each, and everything read from them.

A metric family is declared once, as a :class:`Declaration`: its name, its
cut-off rule, its typed parameters and their bounds, the readable
one-query function that defines it, how that function is called on one
ranked query, its batch kernel, the reference library's name for it, and
the presets whose libraries compute it.  :data:`DECLARATIONS` lists them,
and everything else is read from that list: the tables :data:`METRICS`,
:data:`PARAMETERS`, :data:`PRESET_FAMILIES` and :data:`GRADED_FAMILIES`,
the parser :func:`parse_metric` and its messages, :func:`known_metrics`
(the command line's help), the kernel :func:`~ragmetrics_edu.evaluate`
calls, the readable function
:func:`~ragmetrics_edu.retrieval.conventions.evaluate_as` calls, and the
metric families of each preset.  Adding a metric is one declaration here,
its readable function, its kernel and its tests (``docs/architecture.md``).

A name is a family, optional named parameters and an optional cut-off:
``"ndcg@10"``, ``"map"``, ``"iprec@0.5"``, ``"rbp(p=0.9)"``,
``"err(max_grade=3)@20"``.

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
>>> DECLARED["map"].reference, DECLARED["map"].function.__name__
('map / map_cut_k', 'average_precision')
"""

import dataclasses
import re

from ..._deprecation import formerly_positional, warn_renamed
from ..._validation import check_choice, check_k_text, describe, shorten
from ..graded import GAINS, dcg_at_k, ndcg_at_k
from ..incomplete import bpref, judged_at_k
from ..order_aware import (average_precision, eleven_point_average_precision,
                           interpolated_precision, r_precision, reciprocal_rank)
from ..order_unaware import f1_at_k, hit_rate_at_k, precision_at_k, recall_at_k
from ..user_models import (MAX_GRADE_LIMIT, RBP_RELEVANCE, check_max_grade, check_persistence,
                           err_at_k, rank_biased_precision, rbp_residual)
from . import kernels

__all__ = ["Declaration", "Parameter", "DECLARATIONS", "DECLARED", "METRICS", "PARAMETERS",
           "PRESET_FAMILIES", "MISSING_POLICIES", "GAINS", "GRADED_FAMILIES", "LEVEL_SCOPES",
           "WITHOUT_RELEVANT", "Metric", "parse_metric", "check_metrics", "known_metrics",
           "uses_relevance_level", "families_of", "declare", "undeclare"]

CUTS = ("required", "optional", "none", "level")
"""A family's cut-off: ``"P@10"`` needs one, ``"map"`` / ``"map@10"`` may take one,
``"rprec"`` takes none, ``"iprec@0.5"`` takes a recall level in [0, 1]."""


@dataclasses.dataclass(frozen=True)
class Parameter:
    """A named parameter of a family, its type and its bounds: ``p`` of ``"rbp(p=0.9)"``.

    A number (``check`` is the readable module's own check of its bounds,
    called with the value and the family's name, raising a ``ValueError``
    that states them) or a word among ``choices``.
    """

    name: str
    default: object
    _: dataclasses.KW_ONLY
    check: object = None
    choices: tuple = ()
    renamed_from: str = None
    """The parameter's old name, still read with a DeprecationWarning."""

    @formerly_positional("metric")
    def read(self, text, base, *, metric):
        """The value ``text`` spells, checked; a ValueError naming ``metric`` if it is wrong.

        Parameters
        ----------
        text : str
            The value as written between the parentheses (``"0.9"`` of ``"rbp(p=0.9)"``).
        base : str
            The family's name (``"rbp"``), passed to :attr:`check` for its message.
        metric : str
            The whole metric name, named in an error.
        """
        if self.choices:
            check_choice(text, self.choices, name=f"the {self.name} of {shorten(metric)}")
            return text
        value = _parse_number(text, self.name, metric)
        try:
            return self.check(value, base)
        except (TypeError, ValueError) as error:   # a metric name is text: a wrong value
            raise ValueError(f"{error} in metric {shorten(metric)}") from None


Parameter.__init__ = formerly_positional("check", "choices", "renamed_from")(
    Parameter.__init__)


@dataclasses.dataclass(frozen=True)
class Declaration:
    """One retrieval metric family, declared once.

    Attributes
    ----------
    name : str
        What is written before ``@`` or ``(``: ``"ndcg"``.
    cut : {"required", "optional", "none", "level"}
        Its cut-off rule (:data:`CUTS`).
    about : str
        What it measures, in a few words (the help and the messages).
    reference : str or None
        The reference library's name for it (trec_eval's ``ndcg_cut_k``).
    function : callable
        The readable one-query function that defines it (the lesson's).
    score : callable
        ``score(query, metric, conventions)``: ``function`` called on one
        query ranked by :func:`~ragmetrics_edu.retrieval.conventions.rank`
        (a :class:`~ragmetrics_edu.retrieval.conventions.RankedQuery`),
        with the parsed metric and the conventions.
    kernel : callable
        ``kernel(ranked, metric, conventions)``: the same number for every
        query at once (:mod:`~ragmetrics_edu.retrieval.batch.kernels`).
    parameters : tuple of Parameter
        Its named parameters, with their defaults.
    graded : bool
        Its value comes from the grades themselves (DCG, nDCG, ERR): the
        relevance level (trec_eval's ``-l``) does not apply to it.
    judged : bool
        Its kernel reads every judged document, not only the relevant ones
        (bpref, judged@k): the others are then ranked too.
    presets : tuple of str
        The presets whose library computes it, besides trec_eval's (which
        compute every family); a family listed under ``"sklearn"`` takes
        tied scores averaged (its readable function has ``scores=``), and
        those of ``"ranx"`` are :data:`PRESET_FAMILIES`.
    """

    name: str
    cut: str
    about: str
    reference: object
    function: object
    score: object
    kernel: object
    parameters: tuple = ()
    graded: bool = False
    judged: bool = False
    presets: tuple = ()


_P = Parameter("p", 0.8, check=check_persistence)
_MAX_GRADE = Parameter("max_grade", 4,
                       check=lambda g, base: check_max_grade(g, base, limit=MAX_GRADE_LIMIT))
_EVERY_LIBRARY = ("ranx", "seeds")  # their libraries compute the families with a preset each

DECLARATIONS = [
    Declaration("P", "required", "precision at k", "P_k", precision_at_k,
                lambda q, m, c: precision_at_k(q.relevant, m.k, scores=q.scores,
                                               denominator=c.precision_denominator),
                kernels.precision, presets=_EVERY_LIBRARY),
    Declaration("recall", "required", "recall at k", "recall_k", recall_at_k,
                lambda q, m, c: recall_at_k(q.relevant, m.k, n_relevant=q.n_relevant,
                                            scores=q.scores),
                kernels.recall, presets=_EVERY_LIBRARY),
    Declaration("f1", "required", "harmonic mean of P@k and recall@k", None, f1_at_k,
                lambda q, m, c: f1_at_k(q.relevant, m.k, n_relevant=q.n_relevant, scores=q.scores,
                                        denominator=c.precision_denominator),
                kernels.f1, presets=_EVERY_LIBRARY),
    Declaration("hit_rate", "required", "1 if a relevant document is in the top k", "success_k",
                hit_rate_at_k, lambda q, m, c: hit_rate_at_k(q.relevant, m.k, scores=q.scores),
                kernels.hit_rate, presets=_EVERY_LIBRARY),
    Declaration("mrr", "optional", "reciprocal rank of the first relevant document",
                "recip_rank", reciprocal_rank,
                lambda q, m, c: reciprocal_rank(q.relevant, m.k, scores=q.scores),
                kernels.reciprocal_rank, presets=_EVERY_LIBRARY),
    Declaration("map", "optional", "average precision", "map / map_cut_k", average_precision,
                lambda q, m, c: average_precision(q.relevant, q.n_relevant, k=m.k, scores=q.scores,
                                                  denominator=c.ap_denominator),
                kernels.average_precision, presets=(*_EVERY_LIBRARY, "sklearn", "ragas")),
    Declaration("ndcg", "optional", "normalized discounted cumulative gain", "ndcg / ndcg_cut_k",
                ndcg_at_k,
                lambda q, m, c: ndcg_at_k(q.grades, m.k, gain=c.gain, ideal=q.ideal,
                                          scores=q.scores),
                kernels.ndcg, graded=True, presets=(*_EVERY_LIBRARY, "sklearn", "gdeval")),
    Declaration("dcg", "required", "discounted cumulative gain at k", None, dcg_at_k,
                lambda q, m, c: dcg_at_k(q.grades, m.k, gain=c.gain, scores=q.scores),
                kernels.dcg, graded=True, presets=(*_EVERY_LIBRARY, "sklearn")),
    Declaration("rprec", "none", "R-precision: precision at rank R", "Rprec", r_precision,
                lambda q, m, c: r_precision(q.relevant, q.n_relevant), kernels.r_precision),
    Declaration("iprec", "level", "interpolated precision at a recall level in [0, 1]",
                "iprec_at_recall_0.50 (for iprec@0.5)", interpolated_precision,
                lambda q, m, c: interpolated_precision(q.relevant, q.n_relevant, recall=m.k,
                                                       convention=q.pr_convention),
                kernels.interpolated_precision),
    Declaration("11pt", "none", "11-point interpolated average precision", "11pt_avg",
                eleven_point_average_precision,
                lambda q, m, c: eleven_point_average_precision(q.relevant, q.n_relevant,
                                                               convention=q.pr_convention),
                kernels.eleven_point),
    Declaration("bpref", "none", "binary preference: relevant above judged non-relevant",
                "bpref", bpref,
                lambda q, m, c: bpref(q.judged_at_level, q.n_relevant,
                                      n_nonrelevant=q.n_nonrelevant),
                kernels.bpref, judged=True),
    Declaration("judged", "optional", "fraction of the top k that has a judgement",
                "ir_measures Judged@k", judged_at_k,
                lambda q, m, c: judged_at_k(q.judged, m.k), kernels.judged, judged=True),
    Declaration("err", "optional", "expected reciprocal rank (Chapelle et al. 2009)",
                "gdeval err@k (ir_measures ERR@k)", err_at_k,
                lambda q, m, c: err_at_k(q.judged, m.k, max_grade=m["max_grade"]),
                kernels.err, parameters=(_MAX_GRADE,), graded=True, presets=("gdeval",)),
    Declaration("rbp", "none", "rank-biased precision (Moffat & Zobel 2008)",
                "cwl-eval RBP (ir_measures RBP(p=0.8, rel=1))", rank_biased_precision,
                lambda q, m, c: rank_biased_precision(
                    q.judged if m["relevance"] == "graded" else q.judged_at_level, m["p"],
                    relevance=m["relevance"], max_grade=m["max_grade"]),
                kernels.rbp,
                parameters=(_P, Parameter("relevance", "binary", choices=RBP_RELEVANCE,
                                          renamed_from="gain"), _MAX_GRADE)),
    Declaration("rbp_residual", "none", "weight of the ranks RBP could not judge",
                "cwl-eval's RBP residual", rbp_residual,
                lambda q, m, c: rbp_residual(q.judged, m["p"]), kernels.rbp_residual,
                parameters=(Parameter("p", 0.8, check=check_persistence),), judged=True),
]
"""Every metric family :func:`~ragmetrics_edu.evaluate` knows, declared once."""

DECLARED = {}
"""The declarations by name."""

METRICS = {}
"""The families by the name written before ``@``: (cut-off rule, what it is, the reference's name)."""

PARAMETERS = {}
"""The named parameters of a family and their defaults: ``"rbp(p=0.9)"``, ``"err(max_grade=3)@20"``."""

WHEN_DECLARED = []
"""What else follows a declaration: ``follow(declaration, added)`` (the presets of
:mod:`~ragmetrics_edu.retrieval.conventions` add the family or drop it)."""


def declare(declaration):
    """Add a metric family to the registry: its tables, its parser, the presets that compute it.

    The built-in families are declared so at import; a notebook or a test
    adds one of its own the same way (``docs/architecture.md``), and
    :func:`undeclare` takes it back.
    """
    if declaration.name in DECLARED or not re.fullmatch(r"\w+", declaration.name):
        raise ValueError(f"a metric family needs a new name made of letters, digits and '_', "
                         f"got {declaration.name!r}")
    check_choice(declaration.cut, CUTS, name="cut")
    if declaration not in DECLARATIONS:
        DECLARATIONS.append(declaration)
    DECLARED[declaration.name] = declaration
    METRICS[declaration.name] = (declaration.cut, declaration.about, declaration.reference)
    if declaration.parameters:
        PARAMETERS[declaration.name] = {p.name: p.default for p in declaration.parameters}
    for follow in WHEN_DECLARED:
        follow(declaration, True)


def undeclare(name):
    """Take a family added by :func:`declare` out of the registry again."""
    declaration = DECLARED.pop(name)
    DECLARATIONS.remove(declaration)
    METRICS.pop(name)
    PARAMETERS.pop(name, None)
    for follow in WHEN_DECLARED:
        follow(declaration, False)


for _declaration in list(DECLARATIONS):
    declare(_declaration)

PRESET_FAMILIES = tuple(d.name for d in DECLARATIONS if "ranx" in d.presets)
"""The families :func:`~ragmetrics_edu.retrieval.conventions.evaluate_as` scores under any preset,
tied scores averaged included (their readable functions take every convention)."""

GRADED_FAMILIES = tuple(d.name for d in DECLARATIONS if d.graded)
"""Families whose value is built from the grades themselves (and ``rbp`` with
``relevance=graded``).  trec_eval's relevance level (``-l``) does not apply to
them: ``m_ndcg.c`` takes the gain of a document from its grade and never reads
the level.  Every other family sees a document as relevant or not, relevant
from the relevance level up (``P``, ``recall``, ``map``, ``mrr``, ``bpref``, ...)."""

MISSING_POLICIES = ("ignore", "zero")
"""What :func:`evaluate` does with judged queries missing from the run: leave them out of
the means (trec_eval) or score them 0 (``trec_eval -c``)."""

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


def families_of(preset):
    """The families a named preset's library computes (trec_eval's: every one).

    Examples
    --------
    >>> families_of("sklearn")
    ('map', 'ndcg', 'dcg')
    """
    if preset.startswith("trec_eval"):
        return tuple(DECLARED)
    return tuple(d.name for d in DECLARATIONS if preset in d.presets)


def uses_relevance_level(metric, scope="binary"):
    """True if the relevance level decides which documents of ``metric`` count.

    ``metric`` is a :class:`Metric`; ``scope`` one of :data:`LEVEL_SCOPES`.

    Parameters
    ----------
    metric : Metric
        The parsed metric.
    scope : {"binary", "all"}, default "binary"
        ``"binary"``: the level applies to the binary measures only (trec_eval's
        ``-l``); ``"all"``: to every measure, graded ones too (ranx's ``rel_lvl``).

    Examples
    --------
    >>> uses_relevance_level(parse_metric("map")), uses_relevance_level(parse_metric("ndcg@10"))
    (True, False)
    >>> uses_relevance_level(parse_metric("ndcg@10"), scope="all")  # ranx's rel_lvl
    True
    >>> uses_relevance_level(parse_metric("rbp(p=0.8, relevance=graded)"))
    False
    """
    if scope == "all":
        return True
    if "relevance" in dict(metric.params):
        return metric["relevance"] == "binary"
    return not DECLARED[metric.base].graded


def known_metrics(families=None):
    """The metric name patterns, each written once, for error messages and help texts.

    ``families`` limits them to some families (default: every declared one).

    Examples
    --------
    >>> known_metrics(("P", "map", "err"))
    'P@k, map, map@k, err, err@k, err(max_grade=4), err(max_grade=4)@k'
    """
    names = []
    for d in DECLARATIONS:
        if families is not None and d.name not in families:
            continue
        heads = [d.name]
        if d.parameters:
            defaults = ", ".join(f"{p.name}={p.default}" for p in d.parameters)
            heads.append(f"{d.name}({defaults})")
        for head in heads:
            names += {"required": [f"{head}@k"], "optional": [head, f"{head}@k"],
                      "none": [head], "level": [f"{head}@r (r in [0, 1])"]}[d.cut]
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

    @property
    def declaration(self):
        """The :class:`Declaration` of its family."""
        return DECLARED[self.base]


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


def _parse_parameters(text, declaration, name):
    """The ``key=value`` pairs written between parentheses, each read by its declaration."""
    declared = {p.name: p for p in declaration.parameters}
    values = {p.name: p.default for p in declaration.parameters}
    old_names = {p.renamed_from: p.name for p in declaration.parameters if p.renamed_from}
    given = set()
    for item in text.split(","):
        key, equals, value = (part.strip() for part in item.partition("="))
        if equals and key in old_names:
            warn_renamed(f"metric {shorten(name)}: the parameter {key} is renamed "
                         f"{old_names[key]}")
            key = old_names[key]
        if not equals or key not in declared:
            known = ", ".join(f"{k}=..." for k in declared)
            raise ValueError(
                f"metric {shorten(name)}: {declaration.name} takes the parameters {known}, "
                f"got {shorten(item.strip())}"
            )
        if key in given:  # "rbp(p=.5,p=.6)": which one was meant?
            raise ValueError(f"metric {shorten(name)}: the parameter {key} is given twice")
        given.add(key)
        values[key] = declared[key].read(value, declaration.name, metric=name)
    return tuple(values.items())


def parse_metric(name, families=None, *, who=None):
    """Parse a metric name such as ``"ndcg@10"``, ``"iprec@0.5"`` or ``"rbp(p=0.9)"``.

    Returns a :class:`Metric`; its cut-off is None when the name has none
    (``"map"``).  ``families``, when given, are the only families accepted
    (a preset's), and ``who`` names what computes them in the message.

    Parameters
    ----------
    name : str
        The metric name: a family, then optional ``(key=value, ...)`` parameters
        and ``@k`` (a positive integer; a recall level in [0, 1] for ``iprec``).
    families : collection of str or None, default None
        The only families accepted (a preset's); None accepts every declared one.
    who : str or None, default None
        What computes the families, named when a family is refused (default
        "this evaluator").
    """
    if not isinstance(name, str):
        raise TypeError(f"metric names must be strings, got {describe(name)}")
    head, at, k_text = name.partition("@")
    base, parenthesis, inside = head.partition("(")
    if base not in DECLARED:
        raise ValueError(
            f"unknown metric {shorten(name)}; the known metrics are: "
            f"{known_metrics(families)} (k a positive integer, e.g. 'ndcg@10')"
        )
    if families is not None and base not in families:
        raise ValueError(
            f"{who or 'this evaluator'} does not compute {base!r}; it knows "
            f"{known_metrics(families)}, got {shorten(name)}"
        )
    declaration = DECLARED[base]
    params = tuple((p.name, p.default) for p in declaration.parameters)
    if parenthesis:
        if not declaration.parameters:
            raise ValueError(
                f"metric {shorten(name)}: {base} takes no parameters (only "
                f"{', '.join(PARAMETERS)} do)"
            )
        if not inside.endswith(")"):
            raise ValueError(
                f"metric {shorten(name)}: the parameters must end with ')', e.g. 'rbp(p=0.9)'"
            )
        params = _parse_parameters(inside[:-1], declaration, name)
    if declaration.cut == "level":  # "iprec@0.5": a recall level
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
        if declaration.cut == "required":
            raise ValueError(
                f"metric {shorten(name)} needs a cut-off k, e.g. '{base}@10'"
            )
        return Metric(name, base, None, params)
    if declaration.cut == "none":
        raise ValueError(f"metric {shorten(name)} takes no cut-off, write '{base}'")
    # "P@10": the cut-off must be written as a positive integer
    return Metric(name, base, check_k_text(k_text, metric=name, name="the cut-off k"), params)


def check_metrics(metrics, families=None, *, who=None):
    """Return the metric names as a list of :class:`Metric`, without repeats.

    ``families`` and ``who`` as in :func:`parse_metric`.

    Parameters
    ----------
    metrics : str or iterable of str
        The metric names (one name is a list of one).
    families : collection of str or None, default None
        As in :func:`parse_metric`.
    who : str or None, default None
        As in :func:`parse_metric`.
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
