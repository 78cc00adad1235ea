r"""Citation quality as ALCE defines it: citation recall and citation precision.

An answer that cites its sources writes the number of a retrieved passage
after the statement it supports: ``"Helium cooled best [2]. The tests ran
at Mach 6 [1][2]."``, where ``[1]`` is the first retrieved passage. ALCE
(Gao et al. 2023) scores the citations with an entailment judge
(``entails(premise, hypothesis) -> bool``; ALCE uses the NLI model TRUE,
any judge will do: :func:`entailment_from_judge`):

* **Citation recall** of a statement is 1 when the passages it cites,
  joined, entail it, else 0 (a statement without citation scores 0). An
  answer's citation recall is the mean over its statements.
* **Citation precision.** A citation :math:`c` of statement :math:`s` is
  *irrelevant* when (a) :math:`c` alone does not entail :math:`s` and (b)
  the other citations of :math:`s` entail it without :math:`c`. A citation
  counts as precise when its statement is supported by all its citations
  jointly (recall 1) and it is not irrelevant; when the statement cites one
  passage, that citation is precise exactly when it entails the statement.
  An answer's citation precision is precise citations over all its
  citations, 0 when it cites nothing.

.. math::

    \text{rec}(s) = \phi(\textstyle\bigcup_{c \in C_s} c,\ s), \qquad
    \text{prec}(c, s) = \text{rec}(s)\,\bigl[\phi(c, s) \lor
    \lnot\phi(\textstyle\bigcup_{c' \in C_s \setminus \{c\}} c',\ s)\bigr]

    \text{citation recall} = \frac{1}{|S|}\sum_{s \in S} \text{rec}(s), \qquad
    \text{citation precision} = \frac{\sum_{s}\sum_{c \in C_s} \text{prec}(c, s)}{\sum_s |C_s|}

with :math:`\phi(p, h)` the entailment verdict, :math:`S` the statements,
:math:`C_s` the citations of :math:`s`. Both are higher-is-better, in [0, 1];
the score of many answers is the mean of the answers' scores (ALCE reports
them times 100).

As ALCE's ``compute_autoais`` has them: statements are sentences (ALCE
splits with NLTK, :func:`parse_citations` at ``.``, ``!``, ``?`` followed by
white space), the citation marks are removed before the statement is
judged, only the first ``at_most_citations=3`` citations of a statement
count, joined passages are separated by a new line, and a statement's
citations keep their order and repeats. Where ALCE is silent, we raise: a
citation to a passage that was not retrieved (ALCE scores the statement 0;
``[0]`` would even cite the *last* passage there) is an error naming it, and
an answer with no statement has no recall (NaN, ``empty_score=``; ALCE
gives 0).

References
----------
T. Gao, H. Yen, J. Yu, D. Chen, "Enabling Large Language Models to Generate
Text with Citations", EMNLP 2023 (ALCE; its ``eval.py``, ``compute_autoais``).
"""

import math
import re
from collections import namedtuple

from .._deprecation import formerly_positional
from .._texts import check_string_list, cut_repr as _describe
from .._validation import check_count, check_score_or_nan

__all__ = [
    "Statement",
    "parse_citations",
    "citation_recall",
    "citation_precision",
    "citation_scores",
    "CitationScores",
    "entailment_from_judge",
]

_CITATION = re.compile(r"\[(\d+)\]")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_MARKS = re.compile(r"\s*\[\d+\]")

#: One statement of an answer: its text without citation marks, and the
#: numbers it cites (1-based, in order, repeats kept).
Statement = namedtuple("Statement", "text citations")


def parse_citations(answer, n_passages=None):
    """Split an answer into statements and read the ``[n]`` citations of each.

    Parameters
    ----------
    answer : str
        The answer, citing passages as ``[1]``, ``[2][3]`` (1-based).
    n_passages : int, optional
        How many passages were retrieved (an integer, 0 or more): a citation
        outside ``1 .. n_passages`` raises.

    Returns
    -------
    list of Statement

    Examples
    --------
    >>> parse_citations("Helium cooled best [2]. The tests ran at Mach 6 [1][3].")
    [Statement(text='Helium cooled best.', citations=(2,)), Statement(text='The tests ran at Mach 6.', citations=(1, 3))]
    >>> parse_citations("Helium [4].", n_passages=3)
    Traceback (most recent call last):
    ...
    ValueError: the answer cites [4] in statement 1 ('Helium [4].'), but only passages [1] to [3] were retrieved
    """
    if not isinstance(answer, str):
        raise TypeError(f"answer must be a string, got {_describe(answer)}")
    if n_passages is not None:
        n_passages = check_count(n_passages, name="n_passages", minimum=0)
    statements = []
    for i, sentence in enumerate(s.strip() for s in _SENTENCE_END.split(answer.strip()) if s.strip()):
        cited = tuple(int(n) for n in _CITATION.findall(sentence))
        for n in cited:
            if n < 1 or (n_passages is not None and n > n_passages):
                available = (f"only passages [1] to [{n_passages}] were retrieved" if n_passages
                             else "no passage was retrieved" if n_passages == 0
                             else "passages are numbered from [1]")
                raise ValueError(f"the answer cites [{n}] in statement {i + 1} ({_describe(sentence, 60)}), "
                                 f"but {available}")
        text = _MARKS.sub("", sentence).strip()
        statements.append(Statement(text, cited))
    return statements


def _passages(passages):
    return check_string_list(passages, name="passages",
                             what="a list of the retrieved passages' texts")


def _entails(entails):
    if not callable(entails):
        raise TypeError(f"entails must be a callable entails(premise, hypothesis) -> bool, got {_describe(entails)}")

    def call(premise, hypothesis):
        verdict = entails(premise, hypothesis)
        if type(verdict).__name__ not in ("bool", "bool_") and verdict not in (0, 1):
            raise TypeError(f"entails must return a bool, got {_describe(verdict)}")
        return bool(verdict)
    return call


def _statement_scores(statement, passages, phi, at_most_citations):
    """``(recall 0/1, precise citations, citations)`` of one statement, ALCE's rules."""
    ref = list(statement.citations)
    if at_most_citations is not None:
        ref = ref[:at_most_citations]
    if not ref:
        return 0, 0, 0
    joined = "\n".join(passages[n - 1] for n in ref)
    supported = phi(joined, statement.text)
    if not supported:
        return 0, 0, len(ref)
    if len(ref) == 1:
        return 1, 1, 1
    precise = 0
    for n in ref:
        if phi(passages[n - 1], statement.text):          # (a) it supports alone
            precise += 1
            continue
        rest = list(ref)
        rest.remove(n)
        if not phi("\n".join(passages[m - 1] for m in rest), statement.text):
            precise += 1                                   # (b) the rest need it
    return 1, precise, len(ref)


class CitationScores(namedtuple("CitationScores", "recall precision n_statements n_supported "
                                                 "n_citations n_precise")):
    """ALCE's scores of one answer, and the counts behind them."""

    __slots__ = ()

    def __str__(self):
        return (f"ALCE citation recall {self.recall:.4f} ({self.n_supported} of "
                f"{self.n_statements} statements supported), precision {self.precision:.4f} "
                f"({self.n_precise} of {self.n_citations} citations precise)")


@formerly_positional("entails", "at_most_citations", "empty_score")
def citation_scores(answer, passages, *, entails, at_most_citations=3, empty_score=math.nan):
    """ALCE's citation recall and precision of one answer, with their counts.

    Parameters
    ----------
    answer : str
        The answer with ``[n]`` citations (1-based numbers of ``passages``).
    passages : list of str
        The retrieved passages, in the order the answer numbers them.
    entails : callable
        ``entails(premise, hypothesis) -> bool``: does the premise (one
        passage, or several joined by new lines) entail the statement?
    at_most_citations : int or None, default 3
        Only the first citations of each statement count (ALCE's default 3);
        None for all.
    empty_score : float, default nan
        Recall and precision of an answer with no statement.

    Returns
    -------
    CitationScores
        ``recall = n_supported / n_statements``, ``precision = n_precise /
        n_citations`` (0 when nothing is cited).

    Raises
    ------
    ValueError
        A citation to a passage that was not retrieved.

    Examples
    --------
    >>> passages = ["helium was the best coolant", "the tunnel ran at mach 6",
    ...             "a satellite orbit"]
    >>> facts = {"Helium cooled best.": {0}, "The tests ran at Mach 6.": {1}}
    >>> def entails(premise, hypothesis):    # entailed when a needed passage is in the premise
    ...     return any(passages[i] in premise for i in facts.get(hypothesis, ()))
    >>> s = citation_scores("Helium cooled best [1][3]. The tests ran at Mach 6 [3].",
    ...                     passages, entails=entails)
    >>> s.recall          # statement 1 supported by [1]+[3], statement 2 not by [3]
    0.5
    >>> s.n_precise, s.n_citations, round(s.precision, 4)   # [1] precise, [3] twice not
    (1, 3, 0.3333)
    """
    passages = _passages(passages)
    phi = _entails(entails)
    empty_score = check_score_or_nan(empty_score, name="empty_score")
    if at_most_citations is not None and (isinstance(at_most_citations, bool)
                                          or not isinstance(at_most_citations, int)
                                          or at_most_citations < 1):
        raise ValueError(f"at_most_citations must be a positive integer or None, got {_describe(at_most_citations)}")
    statements = parse_citations(answer, n_passages=len(passages))
    if not statements:
        return CitationScores(float(empty_score), float(empty_score), 0, 0, 0, 0)
    supported = precise = cited = 0
    for st in statements:
        r, p, c = _statement_scores(st, passages, phi, at_most_citations)
        supported += r
        precise += p
        cited += c
    return CitationScores(
        recall=supported / len(statements),
        precision=precise / cited if cited else 0.0,
        n_statements=len(statements), n_supported=supported,
        n_citations=cited, n_precise=precise,
    )


@formerly_positional("entails", "at_most_citations", "empty_score")
def citation_recall(answer, passages, *, entails, at_most_citations=3, empty_score=math.nan):
    r"""ALCE citation recall: the share of statements their citations jointly entail.

    .. math::

        \text{citation recall} = \frac{1}{|S|}\sum_{s \in S}
        \phi\bigl(\textstyle\bigcup_{c \in C_s} c,\ s\bigr)

    See :func:`citation_scores` for the parameters.

    Parameters
    ----------
    answer : str
        As in :func:`citation_scores`.
    passages : list of str
        As in :func:`citation_scores`.
    entails : callable
        As in :func:`citation_scores`.
    at_most_citations : int or None, default 3
        As in :func:`citation_scores`.
    empty_score : float, default nan
        As in :func:`citation_scores`.

    Examples
    --------
    >>> yes_if_a = lambda premise, hypothesis: "A" in premise
    >>> citation_recall("One [1]. Two [2]. Three.", ["A", "B"], entails=yes_if_a)   # 1 of 3
    0.3333333333333333
    """
    return citation_scores(answer, passages, entails=entails,
                           at_most_citations=at_most_citations, empty_score=empty_score).recall


@formerly_positional("entails", "at_most_citations", "empty_score")
def citation_precision(answer, passages, *, entails, at_most_citations=3, empty_score=math.nan):
    r"""ALCE citation precision: the share of citations that are needed.

    A citation is precise when its statement is supported by its citations
    jointly and the citation either entails the statement alone or the
    other citations do not entail it without it (the module docstring).

    Parameters
    ----------
    answer : str
        As in :func:`citation_scores`.
    passages : list of str
        As in :func:`citation_scores`.
    entails : callable
        As in :func:`citation_scores`.
    at_most_citations : int or None, default 3
        As in :func:`citation_scores`.
    empty_score : float, default nan
        As in :func:`citation_scores`.

    Examples
    --------
    >>> yes_if_a = lambda premise, hypothesis: "A" in premise
    >>> # [1] entails alone: precise; [2] does not, and [1] alone still does: irrelevant
    >>> citation_precision("One [1][2].", ["A", "B"], entails=yes_if_a)
    0.5
    """
    return citation_scores(answer, passages, entails=entails,
                           at_most_citations=at_most_citations, empty_score=empty_score).precision


def entailment_from_judge(judge):
    """An ``entails(premise, hypothesis)`` callable asking a judge (the support prompt).

    The premise goes into the CONTEXT section and the statement into CLAIM
    of :data:`ragmetrics_edu.judge.rag.SUPPORT_TEMPLATE`, so the embedding stand-in
    (:class:`~ragmetrics_edu.judge.EmbeddingJudge`) and any LLM judge answer
    it.

    Examples
    --------
    >>> toy = lambda prompt: "Verdict: yes" if "helium" in prompt.split("<<<CONTEXT>>>")[1] else "Verdict: no"
    >>> entails = entailment_from_judge(toy)
    >>> entails("helium was best", "Helium cooled best."), entails("a satellite", "Helium cooled best.")
    (True, False)
    """
    from .rag import build_support_prompt
    from .base import as_judge
    from .parsing import parse_verdict
    judge = as_judge(judge)

    def entails(premise, hypothesis):
        return parse_verdict(judge.complete(build_support_prompt(hypothesis, premise)))
    return entails
