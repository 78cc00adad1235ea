"""Exact match and token F1: the answer metrics of extractive QA (SQuAD).

Higher is better; every score is in [0, 1] (SQuAD's scripts and
torchmetrics print 100 times ours).

Both metrics compare *normalized* answers.  SQuAD v1.1's normalization
(:func:`normalize_answer`), in this order:

1. lower case (``str.lower``);
2. remove every ASCII punctuation character (``string.punctuation``),
   without putting a space in its place: ``"U.S."`` becomes ``"us"`` and
   ``"state-of-the-art"`` becomes ``"stateoftheart"``;
3. replace the whole words ``a``, ``an`` and ``the`` by a space;
4. collapse whitespace: split on runs of whitespace, join with one space.

The tokens of an answer are its normalized text split on spaces
(:func:`answer_tokens`).

The answer under evaluation is the ``candidate`` (SQuAD's scripts call it
the prediction), as the text under evaluation of every generation metric.

* :func:`exact_match`: 1 if the normalized candidate equals a normalized
  reference, else 0.
* :func:`token_f1`: the F1 of the two *bags* of tokens (a token counts as
  often as it occurs in both),

  .. math::

      P = \\frac{|p \\cap r|}{|p|}, \\quad R = \\frac{|p \\cap r|}{|r|}, \\quad
      F_1 = \\frac{2PR}{P + R},

  where :math:`|p \\cap r|` is the number of shared tokens counted with
  multiplicity (``Counter(p) & Counter(r)``).

With several references each score is the **maximum** over them (SQuAD's
``metric_max_over_ground_truths``); the corpus scores
(:func:`corpus_exact_match`, :func:`corpus_token_f1`) are the means over
the questions.

Empty answers: the convention
-----------------------------
An answer is *empty* when it normalizes to ``""``: ``""``, ``"  "``, but
also ``"The"`` or ``"?!"``.  The official scripts differ there, so
``convention=`` names the rule (the default is the issue's and
torchmetrics'):

================  ==========================================  ==============================
``convention``    empty prediction or reference               who does this
================  ==========================================  ==============================
``"squad"``       EM: 1 if both are empty.  F1: 1 if both     torchmetrics' ``SQuAD``
(default)         are empty, 0 if only one is.                (v1.1 normalization, v2's
                                                              empty rule)
``"squad-v1.1"``  EM: 1 if both are empty.  F1: 0 whenever    the official SQuAD v1.1
                  no token is shared, so 0 when both are      ``evaluate-v1.1.py``
                  empty (EM 1 but F1 0).                      (Hugging Face ``squad``)
``"squad-v2"``    As ``"squad"``, and references that         the official SQuAD v2.0
                  normalize to ``""`` are dropped first,      ``evaluate-v2.0.py`` on one
                  unless all of them do (then the reference   question (Hugging Face
                  is ``""``).                                 ``squad_v2``)
================  ==========================================  ==============================

So with the default an empty prediction scores 0 EM and 0 F1 unless the
reference is empty too, and then 1 and 1.  The three agree whenever neither
the prediction nor any reference normalizes to ``""``.  SQuAD v2's
"no answer" questions have the empty string as their reference; scoring
them needs ``"squad"`` or ``"squad-v2"`` (v1.1's F1 would give 0 to the
correct abstention).

References
----------
.. [1] P. Rajpurkar, J. Zhang, K. Lopyrev and P. Liang, "SQuAD: 100,000+
   questions for machine comprehension of text", EMNLP 2016.
.. [2] P. Rajpurkar, R. Jia and P. Liang, "Know what you don't know:
   unanswerable questions for SQuAD", ACL 2018.
"""

import re
import string
from collections import Counter

from .._deprecation import renamed_arguments
from .._texts import check_references
from .._validation import check_choice
from .bleu_stats import check_corpus_layout

__all__ = [
    "normalize_answer",
    "answer_tokens",
    "exact_match",
    "token_f1",
    "corpus_exact_match",
    "corpus_token_f1",
    "CONVENTIONS",
]

CONVENTIONS = ("squad", "squad-v1.1", "squad-v2")
"""The rules for empty answers (module docstring)."""

_PUNCTUATION = frozenset(string.punctuation)
_ARTICLES_RE = re.compile(r"\b(?:a|an|the)\b")


# ---------------------------------------------------------------------------
# normalization
# ---------------------------------------------------------------------------

def normalize_answer(text):
    """Normalize an answer as SQuAD's evaluation scripts do.

    Lower case, ASCII punctuation removed, the articles *a*, *an*, *the*
    removed, whitespace collapsed to single spaces.

    Parameters
    ----------
    text : str
        An answer.

    Returns
    -------
    str
        The normalized answer (``""`` if nothing is left).

    See Also
    --------
    answer_tokens : the normalized answer split into tokens.

    Notes
    -----
    Punctuation is deleted, not replaced by a space, so it joins what it
    separated (``"9-11"`` becomes ``"911"``).  Only ASCII punctuation is
    removed: the typographic apostrophe ``'\u2019'`` and ``'\u00ab'`` stay.
    Articles are whole words after punctuation removal (``"the."`` is an
    article, ``"theatre"`` is not).

    Examples
    --------
    >>> normalize_answer("The  Eiffel Tower!")
    'eiffel tower'
    >>> normalize_answer("U.S. state-of-the-art")
    'us stateoftheart'
    >>> normalize_answer("A")       # nothing is left
    ''
    """
    if not isinstance(text, str):
        raise TypeError(f"an answer must be a string, got {type(text).__name__}: {text!r:.80}")
    text = text.lower()
    text = "".join(ch for ch in text if ch not in _PUNCTUATION)
    text = _ARTICLES_RE.sub(" ", text)
    return " ".join(text.split())


def answer_tokens(text):
    """The tokens of a normalized answer: ``normalize_answer(text).split()``.

    Parameters
    ----------
    text : str
        An answer.

    Returns
    -------
    list of str

    Examples
    --------
    >>> answer_tokens("The Denver Broncos.")
    ['denver', 'broncos']
    """
    return normalize_answer(text).split()


# ---------------------------------------------------------------------------
# one candidate against one reference
# ---------------------------------------------------------------------------

def _exact_match_one(candidate, reference):
    """1.0 if the two normalized answers are equal, else 0.0."""
    return float(normalize_answer(candidate) == normalize_answer(reference))


def _token_f1_one(pred_tokens, ref_tokens, convention):
    """Bag-of-tokens F1 of two token lists, with the empty-answer rule."""
    both_or_one_empty = not pred_tokens or not ref_tokens
    if both_or_one_empty and convention != "squad-v1.1":
        # SQuAD v2's rule: two empty answers agree, one empty answer does not
        return float(pred_tokens == ref_tokens)
    shared = sum((Counter(pred_tokens) & Counter(ref_tokens)).values())
    if shared == 0:
        return 0.0
    precision = shared / len(pred_tokens)
    recall = shared / len(ref_tokens)
    return 2 * precision * recall / (precision + recall)


# ---------------------------------------------------------------------------
# input checks
# ---------------------------------------------------------------------------

def _check_candidate(candidate, name="candidate"):
    if not isinstance(candidate, str):
        raise TypeError(
            f"{name} must be a string (one answer), got {type(candidate).__name__}: "
            f"{candidate!r:.80}"
        )


def _check_references(references, name="references"):
    """Return ``references`` as a list of one or more strings, or raise."""
    return check_references(
        references, name=name, what="the reference answers",
        empty_hint=" (for an unanswerable question the reference is the empty string: [''])")


def _usable_references(references, convention):
    """The references that are scored: SQuAD v2 drops the empty ones first."""
    if convention == "squad-v2":
        kept = [r for r in references if normalize_answer(r)]
        return kept if kept else [""]
    return references


# ---------------------------------------------------------------------------
# public scores
# ---------------------------------------------------------------------------

@renamed_arguments(prediction="candidate")
def exact_match(candidate, references, *, convention="squad"):
    """Exact match: 1 if the normalized candidate equals a normalized reference.

    .. math::

        \\mathrm{EM} = \\max_{r \\in \\text{references}}
        \\mathbb{1}[\\operatorname{norm}(p) = \\operatorname{norm}(r)]

    Parameters
    ----------
    candidate : str
        The predicted answer.
    references : str or list of str
        One reference answer, or several (the score is the maximum over
        them).  ``""`` is the reference of an unanswerable question.
    convention : {"squad", "squad-v1.1", "squad-v2"}, default "squad"
        The rule for empty answers (module docstring).  For EM only
        ``"squad-v2"`` differs: it drops references that normalize to
        ``""`` unless all do.

    Returns
    -------
    float
        1.0 or 0.0.

    Raises
    ------
    TypeError
        If ``candidate`` is not a string, or ``references`` is not a
        string or a list of strings (a list of lists, say).
    ValueError
        If ``references`` is an empty list, or ``convention`` is unknown.

    See Also
    --------
    token_f1 : partial credit for shared tokens.
    corpus_exact_match : the mean over many questions.
    normalize_answer : what is compared.

    Examples
    --------
    >>> exact_match("the Eiffel tower.", ["Eiffel Tower", "Paris"])
    1.0
    >>> exact_match("Eiffel", "Eiffel Tower")      # no partial credit
    0.0
    >>> exact_match("", [""])                       # both empty: they agree
    1.0
    """
    check_choice(convention, CONVENTIONS, name="convention")
    _check_candidate(candidate)
    refs = _usable_references(_check_references(references), convention)
    return max(_exact_match_one(candidate, r) for r in refs)


@renamed_arguments(prediction="candidate")
def token_f1(candidate, references, *, convention="squad"):
    """Token F1: the F1 of the shared normalized tokens, best reference.

    .. math::

        F_1 = \\max_{r} \\frac{2 P_r R_r}{P_r + R_r}, \\quad
        P_r = \\frac{|p \\cap r|}{|p|}, \\quad R_r = \\frac{|p \\cap r|}{|r|}

    where :math:`p` and :math:`r` are the bags of tokens of the normalized
    candidate and reference, and :math:`|p \\cap r|` counts shared tokens
    with multiplicity.

    Parameters
    ----------
    candidate : str
        The predicted answer.
    references : str or list of str
        One reference answer or several (the maximum is taken).
    convention : {"squad", "squad-v1.1", "squad-v2"}, default "squad"
        The rule for empty answers (module docstring): by default two empty
        answers score 1 and one empty answer scores 0; ``"squad-v1.1"``
        scores 0 for two empty answers, as the official v1.1 script.

    Returns
    -------
    float
        In [0, 1].

    Raises
    ------
    TypeError, ValueError
        As :func:`exact_match`.

    See Also
    --------
    exact_match, corpus_token_f1, answer_tokens

    Notes
    -----
    Order is ignored: ``"Tower Eiffel"`` scores 1 against ``"Eiffel
    Tower"``.  A repeated token counts as often as it occurs in both
    answers (``"the the cat"`` normalizes to ``"cat"``, but ``"cat cat"``
    against ``"cat"`` shares 1 token: P = 1/2, R = 1).

    Examples
    --------
    >>> # tokens: eiffel tower in paris (4) vs eiffel tower (2), 2 shared:
    >>> # P = 2/4, R = 2/2, F1 = 2 * 0.5 * 1 / (0.5 + 1) = 2/3
    >>> round(token_f1("the Eiffel Tower in Paris", "Eiffel Tower"), 4)
    0.6667
    >>> token_f1("", ["Paris"]), token_f1("", [""])
    (0.0, 1.0)
    >>> token_f1("", [""], convention="squad-v1.1")   # the v1.1 script's 0
    0.0
    """
    check_choice(convention, CONVENTIONS, name="convention")
    _check_candidate(candidate)
    refs = _usable_references(_check_references(references), convention)
    pred_tokens = answer_tokens(candidate)
    return max(_token_f1_one(pred_tokens, answer_tokens(r), convention) for r in refs)


def _corpus_pairs(candidates, references):
    """Check the corpus layout; return the candidates and their reference lists."""
    check_corpus_layout(candidates, references,
                        candidates_are="a list of predicted answers (strings)",
                        references_are="a list with the reference answers of each candidate",
                        one="answer", per_candidate="one entry (a string or a list of strings)",
                        transposed=False)
    for i, pred in enumerate(candidates):
        _check_candidate(pred, f"candidates[{i}]")
    refs = [_check_references(r, f"references[{i}]") for i, r in enumerate(references)]
    return list(candidates), refs


@renamed_arguments(predictions="candidates")
def corpus_exact_match(candidates, references, *, convention="squad"):
    """Mean exact match over questions.

    .. math::

        \\mathrm{EM} = \\frac{1}{N} \\sum_{i=1}^{N} \\mathrm{EM}(p_i, R_i)

    Parameters
    ----------
    candidates : list of str
        One predicted answer per question.
    references : list of (str or list of str)
        ``references[i]``: the reference answer(s) of question ``i``.
    convention : {"squad", "squad-v1.1", "squad-v2"}, default "squad"
        As in :func:`exact_match`.

    Returns
    -------
    float
        The fraction of questions answered exactly, in [0, 1]
        (torchmetrics' ``SQuAD()["exact_match"] / 100``).

    See Also
    --------
    exact_match, corpus_token_f1

    Examples
    --------
    >>> # exact, wrong year, exact after normalization: 2 of 3
    >>> round(corpus_exact_match(["Paris", "1990", "blue"],
    ...                          [["paris", "Paris, France"], "1991", ["Blue!"]]), 4)
    0.6667
    """
    check_choice(convention, CONVENTIONS, name="convention")
    preds, refs = _corpus_pairs(candidates, references)
    scores = [exact_match(p, r, convention=convention) for p, r in zip(preds, refs)]
    return sum(scores) / len(scores)


@renamed_arguments(predictions="candidates")
def corpus_token_f1(candidates, references, *, convention="squad"):
    """Mean token F1 over questions.

    .. math::

        F_1 = \\frac{1}{N} \\sum_{i=1}^{N} F_1(p_i, R_i)

    Parameters
    ----------
    candidates : list of str
        One predicted answer per question.
    references : list of (str or list of str)
        ``references[i]``: the reference answer(s) of question ``i``.
    convention : {"squad", "squad-v1.1", "squad-v2"}, default "squad"
        As in :func:`token_f1`.

    Returns
    -------
    float
        In [0, 1] (torchmetrics' ``SQuAD()["f1"] / 100``).

    See Also
    --------
    token_f1, corpus_exact_match

    Notes
    -----
    This is the mean of per-question F1 scores, not an F1 of summed
    counts: each question weighs the same whatever its answer's length.

    Examples
    --------
    >>> # F1s: 1, 2/3 (see token_f1), 0; mean 5/9
    >>> round(corpus_token_f1(["Paris", "the Eiffel Tower in Paris", "blue"],
    ...                       ["Paris", "Eiffel Tower", "red"]), 4)
    0.5556
    """
    check_choice(convention, CONVENTIONS, name="convention")
    preds, refs = _corpus_pairs(candidates, references)
    scores = [token_f1(p, r, convention=convention) for p, r in zip(preds, refs)]
    return sum(scores) / len(scores)
