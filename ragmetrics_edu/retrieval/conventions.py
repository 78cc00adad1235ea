r"""Conventions: why two libraries report different numbers for "the same" metric.

"NDCG@10 = 0.61" is not a complete statement.  Between the formula on a slide
and a number printed by a library sit a handful of choices, each harmless on
its own and each able to move a score by several points:

==================  =====================================================  =======================
choice              the alternatives                                       field of the preset
==================  =====================================================  =======================
tie order           documents with equal scores: by document id,           ``ties``
                    descending (trec_eval); in the order given (ranx,
                    the seeds, ragas); averaged over the tie (sklearn)
score precision     scores compared as 32-bit floats (trec_eval 9.x and    ``scores``
                    pytrec_eval) or as 64-bit floats (trec_eval 10.0
                    and everyone else)
gain                the grade (linear) or :math:`2^{g} - 1` (exponential)  ``gain``
IDCG source         all judged documents of the query (trec_eval, ranx)    ``ideal_source``
                    or only the ranked list (sklearn, the seeds)
AP denominator      all relevant documents (trec_eval, ranx, the slides),  ``ap_denominator``
                    the relevant ones retrieved (sklearn, ragas), or
                    ``min(k, R)``
Precision@k         divide by ``k`` (missing ranks count as not            ``precision_denominator``
                    relevant) or by the number retrieved
missing queries     a judged query absent from the run: left out of the    ``missing``
                    mean (trec_eval) or scored 0 (``trec_eval -c``, ranx
                    with ``make_comparable=True``)
grades              integers only (trec_eval), cut to integers toward      ``grades``
                    zero (ranx: 2.5 is 2, 0.999 is 0), or real gains as
                    given (scikit-learn: 2.5 gains 2.5)
relevance level     the grade from which a document is relevant to the     ``relevance_level``,
                    binary measures (P, recall, MAP, MRR, bpref...): 1 by  ``level_scope``
                    default; ``trec_eval -l2`` (TREC DL's grades 0-3) or
                    ranx's ``rel_lvl``; trec_eval's nDCG ignores it,
                    ranx drops the grades below it from nDCG too
depth               only the top M documents of each query are read        ``depth``
                    (``trec_eval -M``, after ranking, ties included)
a query without     scored 0 and counted in the means (trec_eval, ranx),   ``without_relevant``
relevant documents  or left out (gdeval)
==================  =====================================================  =======================

:data:`PRESETS` holds one :class:`Conventions` per library, with the place in
its source or documentation where each choice is made; :func:`evaluate_as`
scores a run under a preset with the readable single-query functions
(``order_unaware``, ``order_aware``, ``graded``), so every number can be traced
to one keyword.  The tests check each preset against its library
(pytrec_eval, ranx, scikit-learn) on hundreds of random queries, and
``"trec_eval"`` against :func:`ragmetrics_edu.evaluate`.  Every score is
"higher is better" (``dcg@k`` an unbounded gain, the rest in [0, 1]).

Two behaviours of ranx are worth knowing, and are shown in notebook 10:

* ranx orders tied documents with numba's ``np.argsort`` (a quicksort): a
  ranking of at most 15 documents keeps them as given (our ``ties="input"``);
  in longer ones the partitioning reorders them by the whole list, which no
  rule reproduces.  Break ties (distinct scores) before comparing with ranx.
* Given plain dictionaries (not ``ranx.Qrels`` / ``ranx.Run``), ranx checks
  that the *sets* of query ids agree, then pairs qrels and run queries by
  *position*: a run with its queries in another order is scored against the
  wrong judgements (MRR 0.0 where 1.0 is right).  ``Qrels`` and ``Run`` sort
  the ids.

Examples
--------
>>> from ragmetrics_edu.retrieval.conventions import evaluate_as
>>> qrels = {"q1": {"a": 1, "b": 0, "c": 1}}
>>> run = {"q1": {"a": 0.5, "b": 0.5, "c": 0.1}}  # a and b tie
>>> # trec_eval breaks the tie by document id, descending: b, a, c
>>> mean = evaluate_as(qrels, run, metrics=["map"], conventions="trec_eval").mean
>>> round(mean["map"], 4)  # (1/2 + 2/3) / 2
0.5833
>>> # ranx keeps the order given: a, b, c
>>> mean = evaluate_as(qrels, run, metrics=["map"], conventions="ranx").mean
>>> round(mean["map"], 4)  # (1/1 + 2/3) / 2
0.8333
"""

import dataclasses
import math
import numbers
from dataclasses import dataclass

import numpy as np

from .._deprecation import (formerly_positional, renamed_arguments, renamed_attribute,
                            warn_renamed)
from .._validation import check_choice, check_k, check_nested, describe_int
from .batch.registry import (GAINS, LEVEL_SCOPES, METRICS, MISSING_POLICIES, PRESET_FAMILIES,
                             WHEN_DECLARED, WITHOUT_RELEVANT, check_metrics, families_of,
                             parse_metric)
from .batch.report import Report
from .frames import from_frames
from .order_aware import AP_DENOMINATORS
from .order_unaware import PRECISION_DENOMINATORS
from .trec import as_score, order_by_score

__all__ = [
    "Conventions",
    "PRESETS",
    "get_preset",
    "rank",
    "evaluate_as",
    "compare",
    "ConventionReport",
    "RankedQuery",
]

TIES = ("docid_desc", "input", "average")
"""How documents with equal scores are ordered (see :class:`Conventions`)."""

SCORES = ("float32", "float64")
"""The precision at which scores are compared."""

IDEALS = ("judged", "retrieved")
"""Where the ideal ranking behind IDCG comes from."""

GRADES = ("integer", "truncated", "real")
"""How a qrels grade is read (see :class:`Conventions`)."""

# MISSING_POLICIES, GAINS and the metric families (each with its readable function)
# come from the one registry, ragmetrics_edu.retrieval.batch.registry.


@dataclass(frozen=True)
class Conventions:
    """Every choice that turns a metric's formula into a library's number.

    Attributes
    ----------
    name : str
        The preset's name (``"trec_eval"``).
    library : str
        The library or source it reproduces, in words.
    ties : {"docid_desc", "input", "average"}
        Order of documents with equal scores.  ``"docid_desc"``: by document
        id, descending string order (trec_eval).  ``"input"``: as the run
        gives them (ranx on rankings of at most 15 documents, the seeds,
        ragas).  ``"average"``: no order, as scikit-learn's ``ndcg_score``
        (``ignore_ties=False``) and ``average_precision_score``: DCG, NDCG,
        P@k, Recall@k, F1@k, reciprocal rank and hit rate take their mean
        over every order of the tie (each tied place the group's mean gain);
        AP one precision per tie group, at its last place (scikit-learn's
        step function), divided by ``ap_denominator``.  A cut-off ``k`` that
        splits a tie group counts the group's share of its places in the top
        ``k``.  Without ties, all three agree.
    scores : {"float32", "float64"}
        Precision at which scores are compared: trec_eval 9.x (and
        pytrec_eval, which runs its code) stores them as C ``float``, so
        ``1.0`` and ``1.0 + 1e-12`` tie; trec_eval 10.0 stores a C
        ``double`` and ranks ``1.0 + 1e-12`` first.
    gain : {"linear", "exponential"}
        Gain of grade ``g``: ``g`` or ``2**g - 1``.
    ideal_source : {"judged", "retrieved"}
        Where IDCG's grades come from: all judged documents of the query, or
        the ranked documents only (what a library that sees only the ranked
        list can do).  Its old name ``ideal`` is ``ndcg_at_k``'s grades.
    ap_denominator : {"all_relevant", "retrieved_relevant", "min_k_relevant"}
        See :func:`ragmetrics_edu.retrieval.order_aware.average_precision`.
    precision_denominator : {"k", "retrieved"}
        See :func:`ragmetrics_edu.retrieval.order_unaware.precision_at_k`.
    missing : {"ignore", "zero"}
        A judged query absent from the run: left out of the mean, or scored 0.
    metrics : tuple of str
        The metric families the library itself computes; :func:`evaluate_as`
        refuses the others rather than invent a number the library never
        reports.
    where : str
        Where the library makes these choices (file, function, or page).
    grades : {"integer", "truncated", "real"}, default "integer"
        How a qrels grade is read. ``"integer"``: trec_eval's levels are integers
        (pytrec_eval refuses 2.5, reads ``2.0`` as 2); a grade below 1, negative too, is
        not relevant and brings no gain. ``"truncated"``: ranx stores grades as 64-bit
        integers (``np.array(scores, dtype=int)`` in ``ranx/data_structures/qrels.py``),
        cut toward zero (2.5 is 2, 0.999 is 0, -1.5 is -1), then drops those below its
        level 1 (``clean_qrels``); a grade no 64-bit integer holds (inf, 1e300) is
        refused (ranx: ``OverflowError``). ``"real"``: scikit-learn's gains as given
        (2.5 gains 2.5; relevant to AP from 1); it refuses an infinite grade and, in
        ``ndcg_score``, a negative one (``dcg_score`` takes it as a negative gain). A
        refused grade raises a ``ValueError`` naming its query, its document and the
        grade.
    relevance_level : int, default 1
        The grade from which a document is relevant to the binary measures (P@k,
        recall@k, MAP, MRR, R-precision, bpref...): trec_eval's ``-l``
        (``epi->relevance_level``, read in ``form_res_rels.c`` and each ``m_*.c``),
        pytrec_eval's ``relevance_level``, ir_measures' ``rel=``, ranx's ``rel_lvl``.
        A judged grade below it is judged not relevant (bpref counts it among the
        non-relevant ones).  A positive integer: TREC DL grades 0-3, ``-l 2``.
    level_scope : {"binary", "all"}, default "binary"
        Which measures the relevance level applies to.  ``"binary"`` (trec_eval):
        the binary ones only; nDCG and DCG keep every grade's gain (``m_ndcg.c``
        never reads the level), and so do ERR and graded RBP.  ``"all"`` (ranx):
        grades below it leave the qrels (``clean_qrels``), no gain to DCG or IDCG.
    depth : int or None, default None
        Only the top ``depth`` documents of each query's ranking are read
        (``trec_eval -M``): the run is ranked first (ties broken as ``ties`` says),
        then cut, so a tie that straddles the cut is split by the tie order;
        unjudged documents take their places like the others.  The qrels are not
        cut: a relevant document below the cut still counts in R and in the ideal
        ranking.  None: every document.  Refused with ``ties="average"``.
    without_relevant : {"zero", "skip"}, default "zero"
        A scored query without any relevant document (none at or above the
        relevance level): every binary measure 0, and the query counted in
        the means (``"zero"``, trec_eval and ranx), or left out of the
        scores and the means (``"skip"``, gdeval, which scores only the
        topics with a grade above 0; it is still listed in
        ``queries_without_relevant``).
    options : tuple of str, default ()
        The fields above the library itself lets its user set (trec_eval:
        ``("relevance_level", "depth")``, its ``-l`` and ``-M``; ranx:
        ``("relevance_level",)``).  :meth:`replace` keeps the preset's name
        when only these change: the numbers are still the library's.
    """

    name: str
    library: str
    _: dataclasses.KW_ONLY
    ties: str
    scores: str
    gain: str
    ideal_source: str
    ap_denominator: str
    precision_denominator: str
    missing: str
    metrics: tuple
    where: str
    grades: str = "integer"
    relevance_level: int = 1
    level_scope: str = "binary"
    depth: object = None
    without_relevant: str = "zero"
    options: tuple = ()

    def __post_init__(self):
        # (frozen: the checked values are set through object.__setattr__)
        object.__setattr__(self, "relevance_level",
                           check_k(self.relevance_level, name="relevance_level"))
        object.__setattr__(self, "depth", check_k(self.depth, name="depth", allow_none=True))
        check_choice(self.level_scope, LEVEL_SCOPES, name="level_scope")
        check_choice(self.without_relevant, WITHOUT_RELEVANT, name="without_relevant")
        if self.depth is not None and self.ties == "average":
            raise ValueError(
                f"depth={self.depth} cuts each ranking after its top {self.depth} documents, "
                f"which needs an order of tied documents; ties='average' gives them none "
                f"(choose ties='docid_desc' or 'input', or depth=None)")
        for option in self.options:
            check_choice(option, ("relevance_level", "depth"), name="options")
        check_choice(self.ties, TIES, name="ties")
        check_choice(self.scores, SCORES, name="scores")
        check_choice(self.gain, GAINS, name="gain")
        check_choice(self.ideal_source, IDEALS, name="ideal_source")
        check_choice(self.ap_denominator, AP_DENOMINATORS, name="ap_denominator")
        check_choice(self.precision_denominator, PRECISION_DENOMINATORS,
                     name="precision_denominator")
        check_choice(self.missing, MISSING_POLICIES, name="missing")
        check_choice(self.grades, GRADES, name="grades")
        for family in self.metrics:
            check_choice(family, tuple(METRICS), name="metrics")

    @property
    def signature(self):
        """One line naming every choice (sacrebleu style).

        Examples
        --------
        >>> print(PRESETS["sklearn"].signature)
        conventions:sklearn|ties:average|scores:float64|gain:linear|idcg:retrieved|ap:retrieved_relevant|p@k:/k|missing:ignore
        """
        return (
            f"conventions:{self.name}|ties:{self.ties}|scores:{self.scores}"
            f"|gain:{self.gain}|idcg:{self.ideal_source}|ap:{self.ap_denominator}"
            f"|p@k:/{self.precision_denominator}|missing:{self.missing}"
            + self._signature_options()
        )

    def _signature_options(self):
        """The parts of the signature that show only when they differ from trec_eval's defaults."""
        parts = ""
        if self.relevance_level != 1:
            scope = "" if self.level_scope == "binary" else ",all measures"
            parts += f"|rel:grade>={self.relevance_level}{scope}"
        if self.depth is not None:
            parts += f"|depth:{self.depth}"
        if self.without_relevant != "zero":
            parts += f"|no_rel_q:{self.without_relevant}"
        return parts

    ideal = renamed_attribute("ideal", "ideal_source")

    @renamed_arguments(ideal="ideal_source")
    def replace(self, **changes):
        """Return a copy with some fields changed.

        Unless given, ``name`` becomes ``"custom"`` and ``library`` and
        ``where`` are rewritten to say which preset was changed and how: the
        preset's own text names its library's choices, which the copy no
        longer makes.

        Changing only the fields the library itself lets its user set
        (:attr:`options`: trec_eval's ``-l`` and ``-M``) keeps the preset's
        name: the numbers are still that library's.

        Examples
        --------
        >>> exp = PRESETS["trec_eval"].replace(gain="exponential")
        >>> exp.name, exp.gain, exp.ties
        ('custom', 'exponential', 'docid_desc')
        >>> exp.library
        "the 'trec_eval' preset with gain='exponential'"
        >>> print(exp.replace(missing="zero").library)
        the 'trec_eval' preset with gain='exponential', then missing='zero'
        >>> dl = PRESETS["trec_eval"].replace(relevance_level=2)  # trec_eval -l2
        >>> dl.name, dl.relevance_level
        ('trec_eval', 2)
        """
        settings = {field: value for field, value in changes.items()
                    if field not in ("name", "library", "where")}
        if settings and set(settings) <= set(self.options):
            return dataclasses.replace(self, **changes)
        changed = ", ".join(f"{field}={value!r}" for field, value in settings.items())
        if changed:
            if self.name == "custom":  # already a changed preset: add to its description
                library = f"{self.library}, then {changed}"
                where = self.where
            else:
                library = f"the {self.name!r} preset with {changed}"
                where = (f"no library: PRESETS[{self.name!r}].where says where the "
                         f"{self.name!r} preset's other choices come from")
            changes.setdefault("library", library)
            changes.setdefault("where", where)
        changes.setdefault("name", "custom")
        return dataclasses.replace(self, **changes)


Conventions.__init__ = renamed_arguments(ideal="ideal_source")(formerly_positional(
    "ties", "scores", "gain", "ideal_source", "ap_denominator", "precision_denominator",
    "missing", "metrics", "where", "grades", "relevance_level", "level_scope", "depth",
    "without_relevant", "options")(Conventions.__init__))


_TREC_EVAL = Conventions(
    name="trec_eval",
    library="trec_eval 9.x (and pytrec_eval 0.5, which runs its C code)",
    ties="docid_desc", scores="float32", gain="linear", ideal_source="judged",
    ap_denominator="all_relevant", precision_denominator="k",
    missing="ignore", metrics=families_of("trec_eval"),
    where=(
        "https://github.com/usnistgov/trec_eval, release 9.0.8: "
        "form_res_rels.c (sort by score as a C float, then docno descending; then keep the "
        "top -M documents; count num_rel and num_rel_ret from the -l level up), m_P.c (divide "
        "by the cut-off), m_map.c (divide by num_rel), m_ndcg.c / m_ndcg_cut.c "
        "(gain = grade, whatever -l says; ideal from all judged docs); queries not in the "
        "run are skipped unless -c"
    ),
    options=("relevance_level", "depth"),
)

PRESETS = {
    "trec_eval": _TREC_EVAL,
    # trec_eval -c differs in one choice: judged queries missing from the run score 0
    "trec_eval_c": _TREC_EVAL.replace(
        name="trec_eval_c",
        library="trec_eval -c (every judged query counted; missing ones score 0)",
        missing="zero",
        where="https://github.com/usnistgov/trec_eval: README, option -c",
    ),
    # trec_eval 10.0 differs in one choice: it keeps a score as a C double
    "trec_eval_10": _TREC_EVAL.replace(
        name="trec_eval_10",
        library="trec_eval 10.0 (scores compared as C doubles)",
        scores="float64",
        where=(
            "https://github.com/usnistgov/trec_eval, release 10.0: "
            "form_res_rels.c (the score of DOCNO_INFO is a double since 10.0, "
            "a float in 9.x; sort by score, then docno descending), "
            "get_trec_results.c (the score read with atof, a double)"
        ),
    ),
    "ranx": Conventions(
        name="ranx",
        library="ranx 0.3 (Qrels and Run objects, make_comparable=True)",
        ties="input", scores="float64", gain="linear", ideal_source="judged",
        ap_denominator="all_relevant", precision_denominator="k",
        missing="zero", metrics=families_of("ranx"),
        where=(
            "ranx.evaluate(Qrels(qrels), Run(run), metrics, make_comparable=True), "
            "without which ranx refuses a run missing a judged query; a relevance level "
            "is written in the metric's name ('map-l2', 'ndcg@10-l2': rel_lvl=2, which "
            "ranx/metrics/common.py's clean_qrels applies to every measure, nDCG included); "
            "https://github.com/AmenRa/ranx: ranx/data_structures/common.py "
            "(sort_dict_by_value: numba np.argsort of -score, which keeps the "
            "given order of ties for at most 15 documents), "
            "ranx/metrics/ndcg.py (ideal from the qrels), "
            "ranx/metrics/average_precision.py (divide by the relevant in "
            "qrels), ranx/metrics/precision.py (divide by k), "
            "Run.make_comparable (missing queries get empty results, scored 0)"
        ),
        grades="truncated", level_scope="all", options=("relevance_level",),
    ),
    "sklearn": Conventions(
        name="sklearn",
        library="scikit-learn ndcg_score, dcg_score(log_base=2), average_precision_score",
        ties="average", scores="float64", gain="linear", ideal_source="retrieved",
        ap_denominator="retrieved_relevant", precision_denominator="k",
        missing="ignore", metrics=families_of("sklearn"),
        where=(
            "https://github.com/scikit-learn/scikit-learn: "
            "sklearn/metrics/_ranking.py (_tie_averaged_dcg; ndcg_score's "
            "ideal is y_true of the passed items sorted; "
            "average_precision_score steps over distinct score thresholds "
            "and divides by the positives passed)"
        ),
        grades="real",
    ),
    "seeds": Conventions(
        name="seeds",
        library="the lecture slides and the NDCG blog post (notebooks 01-03)",
        ties="input", scores="float64", gain="linear", ideal_source="retrieved",
        ap_denominator="all_relevant", precision_denominator="k",
        missing="ignore", metrics=families_of("seeds"),
        where=(
            "slides 'Mean Average Precision' ((1 + 2/3 + 3/5)/10) and 'NDCG@k' "
            "(IDCG from the ranked list [5, 3, 5, 0, 2] sorted)"
        ),
    ),
    # gdeval.pl, the TREC Web track's script (2010-2014), which ir_measures runs
    # for nDCG(dcg='exp-log2')@k and ERR@k
    "gdeval": Conventions(
        name="gdeval",
        library="gdeval.pl (TREC Web track 2010-2014; ir_measures' gdeval provider)",
        ties="docid_desc", scores="float64", gain="exponential", ideal_source="judged",
        ap_denominator="all_relevant", precision_denominator="k",
        missing="ignore", metrics=families_of("gdeval"), without_relevant="skip",
        where=(
            "gdeval.pl, version 1.2a as ir_measures ships it (1.3 adds -c and -k, "
            "default k=20): runOrder (score descending as Perl numbers, doubles; ties "
            "by docno descending), sub dcg ((2**g - 1) / log(i + 2) over the top k; "
            "the ideal DCG from the qrels' grades above 0, sorted, top k), sub err "
            "(grades out of $MAX_JUDGMENT = 4), topicDone (only the topics with a "
            "grade above 0 are scored and averaged); 5 decimals printed"
        ),
    ),
    "ragas": Conventions(
        name="ragas",
        library="ragas / DeepEval context precision (qrels as the verdicts)",
        ties="input", scores="float64", gain="linear", ideal_source="retrieved",
        ap_denominator="retrieved_relevant", precision_denominator="k",
        missing="ignore", metrics=families_of("ragas"),
        where=(
            "https://docs.ragas.io, 'Context Precision': sum of P@k over the "
            "relevant chunks divided by the number of relevant chunks "
            "retrieved (ragmetrics_edu.judge.rag.context_precision)"
        ),
    ),
}
"""The presets, by name.  ``PRESETS[name].where`` says where each choice is made.

A preset is named after its library, a variant after an underscore: an option
(``trec_eval_c``, trec_eval -c) or a version (``trec_eval_10``, as the
precision-recall conventions ``"trec_eval_9"`` and ``"trec_eval_10"`` of
:func:`~ragmetrics_edu.retrieval.order_aware.interpolated_precision`)."""

RENAMED_PRESETS = {"trec_eval10": "trec_eval_10"}
"""Old names of presets: still read, with a DeprecationWarning naming the new one."""


def _presets_follow(declaration, added):
    """A family declared (or taken back) joins (leaves) trec_eval's presets and those it names."""
    for name, preset in PRESETS.items():
        if name.startswith("trec_eval") or name in declaration.presets:
            families = tuple(f for f in preset.metrics if f != declaration.name)
            PRESETS[name] = dataclasses.replace(
                preset, metrics=(*families, declaration.name) if added else families)


WHEN_DECLARED.append(_presets_follow)


def get_preset(conventions):
    """Return the :class:`Conventions` named ``conventions`` (or given as one).

    Examples
    --------
    >>> get_preset("ranx").ties
    'input'
    >>> get_preset("pyserini")
    Traceback (most recent call last):
    ...
    ValueError: conventions must be one of 'trec_eval', 'trec_eval_c', 'trec_eval_10', 'ranx', 'sklearn', 'seeds', 'gdeval', 'ragas' or a Conventions, got 'pyserini'
    """
    if isinstance(conventions, Conventions):
        return conventions
    if isinstance(conventions, str) and conventions in RENAMED_PRESETS:
        warn_renamed(f"the preset {conventions!r} is renamed {RENAMED_PRESETS[conventions]!r}")
        conventions = RENAMED_PRESETS[conventions]
    if not isinstance(conventions, str) or conventions not in PRESETS:
        known = ", ".join(repr(p) for p in PRESETS)
        raise ValueError(
            f"conventions must be one of {known} or a Conventions, got {conventions!r}"
        )
    return PRESETS[conventions]


# ------------------------------------------------------------------ ranking

def rank(doc_scores, conventions="trec_eval"):
    """Return the document ids of one query, best first, under a preset's tie order.

    The one readable definition of the order of a ranking: trec_eval's is
    highest score first, scores compared as 32-bit floats (trec_eval 9.x
    stores them in a C ``float``; doubles for ``"trec_eval_10"``), ties
    broken by document id, larger id first (``"b"`` before ``"a"``, ``"9"``
    before ``"10"``).  :func:`ragmetrics_edu.retrieval.trec.trec_order` is
    this order, and the fast path of :func:`ragmetrics_edu.evaluate` is
    tested equal to it.

    Parameters
    ----------
    doc_scores : dict of str to float
        ``{docid: score}`` of one query, higher is better.
    conventions : str or Conventions, default "trec_eval"
        A preset name or a :class:`Conventions`.  ``ties="average"`` ranks
        ties in the order given (averaging happens when scoring).

    Returns
    -------
    list of str

    Examples
    --------
    >>> scores = {"d2": 1.0, "d10": 1.0, "d1": 0.5}
    >>> rank(scores, "trec_eval")  # "d2" > "d10" as strings
    ['d2', 'd10', 'd1']
    >>> rank({"d10": 1.0, "d2": 1.0, "d1": 0.5}, "ranx")  # as given
    ['d10', 'd2', 'd1']
    >>> nearly = {"b": 1.0, "a": 1.0 + 1e-12}
    >>> rank(nearly, "trec_eval")  # equal as float32: a tie, and "b" > "a"
    ['b', 'a']
    >>> rank(nearly, "trec_eval_10")  # trec_eval 10.0 compares doubles
    ['a', 'b']
    >>> rank(nearly, "ranx")  # float64: a scores higher
    ['a', 'b']
    """
    conv = get_preset(conventions)
    return order_by_score(doc_scores, scores=conv.scores, ties=conv.ties)


# ------------------------------------------------------------------ scoring

def _read_grades(judged, conv, qid):
    """``{docid: grade}`` of one query as the preset's library reads it, or raise naming one.

    See :class:`Conventions`, ``grades``.  (NaN was refused before.)
    """
    out = {}
    for doc, g in judged.items():
        if conv.grades == "real":
            if not math.isfinite(g):
                raise ValueError(
                    f"scikit-learn refuses a grade that is not finite (check_array), got "
                    f"{g!r} for document {doc!r} of query {qid!r}")
            out[doc] = float(g)
        elif conv.grades == "truncated":
            try:
                value = int(g)  # toward zero, as NumPy's cast to int64
            except OverflowError:
                value = None
            if value is None or not -2**63 <= value < 2**63:
                raise ValueError(
                    f"ranx stores grades as 64-bit integers (and raises OverflowError), got "
                    f"{describe_int(g)} for document {doc!r} of query {qid!r}")
            out[doc] = value
        elif isinstance(g, numbers.Integral):
            out[doc] = int(g)
        elif math.isfinite(g) and g == math.floor(g):
            out[doc] = int(g)  # 2.0 is the level 2
        else:
            raise ValueError(
                f"the {conv.name!r} conventions read grades as integer relevance levels "
                f"({conv.library}), got {g!r} for document {doc!r} of query {qid!r}")
    return out


@dataclass(frozen=True)
class RankedQuery:
    """One query ranked under some conventions: what a metric's readable function is called on.

    Each :class:`~ragmetrics_edu.retrieval.batch.registry.Declaration` says how
    its function reads them (``precision_at_k(q.relevant, k, scores=q.scores)``).

    Attributes
    ----------
    documents : list of str
        The ranked document ids, best first (:func:`rank`).
    relevant : list of int
        1 or 0 for each ranked document: relevant (from the level up) or not.
    grades : list of float
        Each ranked document's gain grade (negative or missing: 0, real: as
        it is; under ``level_scope="all"``, below the level: 0).
    ideal : list or None
        Every judged grade of the query (``ideal_source="judged"``), or None.
    n_relevant, n_nonrelevant : int
        R, and the judged non-relevant documents (0 <= grade < level).
    scores : list of float or None
        The ranked documents' scores under ``ties="average"``; else None.
    judged : list
        Each ranked document's grade, None if it has no judgement (bpref,
        judged@k, ERR, RBP); ``judged_at_level`` the same with the grades
        from the level up made 1 and those from 0 to below it 0.
    pr_convention : str
        :func:`~ragmetrics_edu.retrieval.order_aware.interpolated_precision`'s.
    """

    documents: list
    relevant: list
    grades: list
    ideal: object
    n_relevant: int
    n_nonrelevant: int
    scores: object
    judged: list
    judged_at_level: list
    pr_convention: str


def ranked_query(judged, doc_scores, conv):
    """The :class:`RankedQuery` of one query: its ranking (:func:`rank`, cut to
    ``conv.depth``, trec_eval's ``-M``) and its grades (read by :func:`_read_grades`).

    The binary measures see a document as relevant from
    ``conv.relevance_level`` up; the gain measures keep every grade's gain,
    unless ``conv.level_scope`` is ``"all"`` (ranx: the grades below the
    level are removed from the qrels).
    """
    ranking = rank(doc_scores, conv)
    if conv.depth is not None:
        ranking = ranking[:conv.depth]  # trec_eval -M: rank, then cut
    level = conv.relevance_level
    floor = (lambda g: g) if conv.grades == "real" else (lambda g: max(g, 0))
    grades = [floor(judged.get(d, 0)) for d in ranking]  # a negative grade (junk): no gain
    all_grades = [floor(g) for g in judged.values()]
    if conv.level_scope == "all":  # ranx: the grades below the level are removed from the qrels
        grades = [g if g >= level else 0 for g in grades]
        all_grades = [g if g >= level else 0 for g in all_grades]
    in_order = [judged.get(d) for d in ranking]
    return RankedQuery(
        documents=ranking,
        relevant=[int(g >= level) for g in grades],
        grades=grades,
        ideal=all_grades if conv.ideal_source == "judged" else None,
        n_relevant=sum(g >= level for g in all_grades),
        n_nonrelevant=sum(0 <= g < level for g in judged.values()),
        scores=([as_score(doc_scores[d], conv.scores) for d in ranking]
                if conv.ties == "average" else None),
        judged=in_order,
        judged_at_level=[g if g is None or g < 0 else int(g >= level) for g in in_order],
        pr_convention="trec_eval_10" if conv.scores == "float64" else "trec_eval_9",
    )


def _score_query(metric, query, judged, conv, qid):
    """One metric of one :class:`RankedQuery` under ``conv``: its declaration's readable function."""
    if conv.grades == "real":
        read = judged if conv.ideal_source == "judged" else query.documents
        bad = [doc for doc in read if judged.get(doc, 0) < 0] if metric.base == "ndcg" else ()
        if bad:  # scikit-learn's ndcg_score refuses what its dcg_score takes
            raise ValueError(
                f"scikit-learn's ndcg_score refuses negative grades (dcg_score takes them), got "
                f"{judged[bad[0]]!r} for document {bad[0]!r} of query {qid!r}")
        if metric.base == "dcg" and query.scores is None:  # (negative gains: dcg_score's rule)
            query = dataclasses.replace(query, scores=list(range(len(query.grades), 0, -1)))
    return metric.declaration.score(query, metric, conv)


class ConventionReport(Report):
    """Scores of a run under one preset: a :class:`~ragmetrics_edu.retrieval.batch.Report`
    that also carries the preset.

    Attributes
    ----------
    conventions : Conventions
        The preset; the other attributes are the :class:`Report`'s (a judged
        query absent from the run scored 0 if ``missing="zero"``, a query
        without a relevant document left out under ``without_relevant="skip"``).
    """

    def __init__(self, per_query, mean, metrics, conventions,
                 missing_queries=(), unjudged_queries=(), queries_without_relevant=()):
        super().__init__(per_query, mean, metrics, missing_queries, unjudged_queries,
                         queries_without_relevant, missing=conventions.missing,
                         gain=conventions.gain, scores=conventions.scores,
                         relevance_level=conventions.relevance_level, depth=conventions.depth,
                         without_relevant=conventions.without_relevant)
        self.conventions = conventions

    @property
    def signature(self):
        """The preset's signature and how many queries were scored."""
        return (f"ragmetrics_edu {self.conventions.signature}|nq:{self.n_queries}"
                f"|missing_q:{len(self.missing_queries)}"
                f"|unjudged_q:{len(self.unjudged_queries)}"
                f"|no_rel_q:{len(self.queries_without_relevant)}")

    def __repr__(self):
        return (f"<ConventionReport {self.conventions.name!r}: {len(self.metrics)} metrics "
                f"over {self.n_queries} queries>")

    def __str__(self):
        width = max(len(m) for m in self.metrics)
        lines = [f"{m.ljust(width)}  {self.mean[m]:.4f}" for m in self.metrics]
        return "\n".join([*lines, self.signature])


@formerly_positional("metrics", "conventions")
def evaluate_as(qrels, run, *, metrics, conventions="trec_eval", relevance_level=None,
                depth=None):
    r"""Score a run the way a named library does.

    Parameters
    ----------
    qrels : dict of str to dict of str to int
        ``{qid: {docid: grade}}``; a grade >= 1 is relevant (>= the
        relevance level, if one is given).  A TREC file or a data frame
        (``query_id``, ``doc_id``, ``relevance``) too, as in ``rm.evaluate``.
    run : dict of str to dict of str to float
        ``{qid: {docid: score}}``; higher is better.  The order of the
        documents matters only for presets with ``ties="input"``.
    metrics : str or list of str
        Names as in :func:`ragmetrics_edu.evaluate`: ``"P@k"``, ``"recall@k"``,
        ``"f1@k"``, ``"hit_rate@k"``, ``"mrr"``, ``"mrr@k"``, ``"map"``, ``"map@k"``,
        ``"ndcg"``, ``"ndcg@k"``, ``"dcg@k"``, limited to those the preset's library computes (the
        families of :data:`~ragmetrics_edu.retrieval.batch.registry.PRESET_FAMILIES`:
        ERR, bpref and the others are scored by :func:`ragmetrics_edu.evaluate`).
    conventions : str or Conventions, default "trec_eval"
        A key of :data:`PRESETS` (``"trec_eval"``, ``"trec_eval_c"``,
        ``"trec_eval_10"``, ``"ranx"``, ``"sklearn"``, ``"seeds"``,
        ``"gdeval"``, ``"ragas"``) or your own :class:`Conventions`
        (``PRESETS["ranx"].replace(gain="exponential")``).
    relevance_level : int, optional
        The grade from which a document is relevant to the binary measures
        (``trec_eval -l``, ranx's ``rel_lvl``); overrides the preset's
        (1).  See :class:`Conventions` for the measures it applies to.
    depth : int, optional
        Read only the top ``depth`` documents of each ranking
        (``trec_eval -M``); overrides the preset's (all of them).

    Returns
    -------
    ConventionReport
        ``per_query`` ``{qid: {metric: float}}``, ``mean``, the preset and
        its ``signature``.

    Raises
    ------
    ValueError
        Unknown preset or metric, a metric the preset's library does not compute, no
        query both judged and in the run, a relevance level or depth not a positive integer.

    See Also
    --------
    ragmetrics_edu.evaluate : the fast path, trec_eval's conventions.
    compare : one metric under several presets side by side.

    Notes
    -----
    Each query is ranked with :func:`rank`, its documents mapped to grades
    (0 if unjudged), and the metric computed by the readable function of
    its family with the preset's keywords, e.g. under ``"sklearn"``:

    .. math::

        nDCG@k = \frac{DCG_{ties\ averaged}@k(\text{ranked})}
                      {DCG@k(\text{ranked grades sorted})}

    Queries without judgements (absent from qrels, or judged with an empty
    dict) are listed and never scored; a judged query absent from the run is
    skipped (``missing="ignore"``) or scored 0 for every metric
    (``missing="zero"``).  A query whose judgements are all 0 scores 0 and
    counts in the mean, in every preset.

    References
    ----------
    .. [1] NIST, trec_eval, https://github.com/usnistgov/trec_eval
    .. [2] E. Bassani, "ranx: A Blazing-Fast Python Library for Ranking
       Evaluation and Comparison", ECIR 2022.
    .. [3] F. McSherry and M. Najork, "Computing Information Retrieval
       Performance Measures Efficiently in the Presence of Tied Scores",
       ECIR 2008 (scikit-learn's tie-averaged DCG).
    .. [4] F. Pedregosa et al., "Scikit-learn: Machine Learning in Python",
       JMLR 12, 2011; ``sklearn.metrics.ndcg_score``, ``average_precision_score``.

    Examples
    --------
    >>> qrels = {"q1": {"a": 3, "b": 1, "z": 3}, "q2": {"c": 1}}
    >>> run = {"q1": {"b": 0.9, "a": 0.8}}  # z (grade 3) is never retrieved
    >>> for name in ("trec_eval", "trec_eval_c", "sklearn"):
    ...     report = evaluate_as(qrels, run, metrics=["ndcg@2"], conventions=name)
    ...     print(name, round(report.mean["ndcg@2"], 4))
    trec_eval 0.5912
    trec_eval_c 0.2956
    sklearn 0.7967
    >>> # trec_eval: (1/1 + 3/1.585) / (3/1 + 3/1.585) = 2.8928 / 4.8928;
    >>> # -c also counts q2, as 0: 0.5912 / 2;
    >>> # sklearn's ideal is the retrieved b, a sorted: 2.8928 / (3/1 + 1/1.585)
    """
    conv = get_preset(conventions)
    overrides = {name: value for name, value in (("relevance_level", relevance_level),
                                                 ("depth", depth)) if value is not None}
    if overrides:
        conv = conv.replace(**overrides)
    parsed = check_metrics(metrics, conv.metrics, who=conv.library)
    for m in parsed:
        if conv.ties == "average" and m.base not in PRESET_FAMILIES:
            raise ValueError(
                f"ties='average' averages tied scores in {', '.join(PRESET_FAMILIES)} (their "
                f"readable functions take scores=); {m.name!r} needs an order of the ties")
    metrics = [m.name for m in parsed]
    qrels, run = from_frames(qrels, run)
    check_nested(qrels, name="qrels", what="grade", values=True)
    check_nested(run, name="run", what="score", values=True)

    judged = [qid for qid, docs in qrels.items() if len(docs) > 0]
    scored = sorted(qid for qid in judged if qid in run)
    missing_queries = tuple(sorted(qid for qid in judged if qid not in run))
    # a query judged with {} is unjudged whether or not the run has it (as in
    # rm.evaluate): listed, never scored
    unjudged = tuple(sorted(
        {qid for qid in run if qid not in qrels or len(qrels[qid]) == 0}
        | {qid for qid, docs in qrels.items() if len(docs) == 0}))
    if not scored:
        raise ValueError(
            f"no query is both in qrels ({len(judged)} judged queries) and in "
            f"run ({len(run)} queries): there is nothing to score"
        )

    level = conv.relevance_level
    without_relevant = tuple(qid for qid in scored
                             if not any(g >= level for g in qrels[qid].values()))
    if conv.without_relevant == "skip":  # gdeval: such a query is not scored
        skipped = set(without_relevant)
        scored = [qid for qid in scored if qid not in skipped]
        missing_scored = [qid for qid in missing_queries
                          if any(g >= level for g in qrels[qid].values())]
    else:
        missing_scored = list(missing_queries)
    per_query = {}
    for qid in scored:
        grades = _read_grades(qrels[qid], conv, qid)
        query = ranked_query(grades, run[qid], conv)  # ranked once, for every metric
        per_query[qid] = {m.name: float(_score_query(m, query, grades, conv, qid))
                          for m in parsed}
    if conv.missing == "zero":
        for qid in missing_scored:
            per_query[qid] = {name: 0.0 for name in metrics}
        per_query = dict(sorted(per_query.items()))
    # (gdeval prints a mean of 0 when it scores no topic)
    mean = {
        name: math.fsum(v[name] for v in per_query.values()) / len(per_query)
        if per_query else 0.0
        for name in metrics
    }
    return ConventionReport(per_query, mean, metrics, conv, missing_queries, unjudged,
                            without_relevant)


@formerly_positional("metrics", "presets")
def compare(qrels, run, *, metrics, presets=None):
    """Mean scores of one run under several presets: ``{preset: {metric: mean}}``.

    A preset whose library does not compute a metric gets ``None`` there.

    Parameters
    ----------
    qrels, run, metrics
        As in :func:`evaluate_as`.
    presets : list of str, optional
        Names of :data:`PRESETS`; default all of them.

    Examples
    --------
    >>> qrels = {"q1": {"a": 1, "b": 0, "c": 1}}
    >>> run = {"q1": {"a": 0.5, "b": 0.5, "c": 0.1}}
    >>> table = compare(qrels, run, metrics=["map", "P@2"], presets=["trec_eval", "ranx", "sklearn"])
    >>> {name: round(row["map"], 4) for name, row in table.items()}
    {'trec_eval': 0.5833, 'ranx': 0.8333, 'sklearn': 0.5833}
    >>> # trec_eval ranks b, a, c; ranx a, b, c; sklearn treats {a, b} as one
    >>> # threshold: (1/2)(1/2) + (1/2)(2/3), the same number for another reason
    >>> table["sklearn"]["P@2"] is None  # scikit-learn has no P@k for rankings
    True
    """
    metrics = [metrics] if isinstance(metrics, str) else metrics
    qrels, run = from_frames(qrels, run)
    names = list(PRESETS) if presets is None else list(presets)
    out = {}
    for p in names:
        conv = get_preset(p)
        ok = [m for m in metrics if parse_metric(m).base in conv.metrics]
        means = evaluate_as(qrels, run, metrics=ok, conventions=conv).mean if ok else {}
        out[conv.name] = {m: means.get(m) for m in metrics}
    return out

