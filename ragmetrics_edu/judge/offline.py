"""An offline judge made from a real sentence-embedding model: a stand-in, not an LLM.

:class:`EmbeddingJudge` needs no network and no key. It reads the delimited
sections of the prompt it is given (the same prompts a real LLM judge gets,
built by :mod:`~ragmetrics_edu.judge.rubric`, :mod:`~ragmetrics_edu.judge.pairwise`
and :mod:`ragmetrics_edu.judge.rag`), embeds them with all-MiniLM-L6-v2
(:func:`ragmetrics_edu.models.loading.encode_sentences`) and turns cosine
similarities into a reply in the format the prompt asks for. Every reply says
what it is, for example::

    Score: 4
    (embedding-similarity stand-in, not an LLM: cosine 0.71 between answer and context)

It measures topical closeness, nothing more: it cannot check a negation, a
number or the logic of an answer, and it cannot grade how an answer is
written. A prompt whose ``Criterion:`` line is about the writing (the
fluency, coherence and conciseness rubrics, or any criterion that names
fluency, coherence or concision) raises
:class:`~ragmetrics_edu.judge.JudgeError` rather than return a topical
similarity dressed up as such a grade (word salad on the right topic would
score 5). So does a prompt with no question, context or reference to compare
with. It lets the notebook run the whole prompt -> complete -> parse path
offline; swap in a real model with
:class:`~ragmetrics_edu.judge.OpenAICompatibleJudge` for real judgements.

How a prompt is read
--------------------
==========================  ==================================================
sections in the prompt      reply
==========================  ==================================================
ANSWER_A, ANSWER_B          ``Winner: A|B|tie``: the answer closer to the
                            REFERENCE (else CONTEXT, else QUESTION) wins when
                            the cosines differ by more than ``tie_margin``
CLAIM (and CONTEXT)         ``Verdict: yes`` when the closest CONTEXT sentence
                            has cosine >= ``support_threshold``
CHUNK (and QUESTION)        ``Verdict: yes`` when cosine(question, chunk) >=
                            ``relevance_threshold``
ANSWER                      ``Score: N``, see below
==========================  ==================================================

A rubric score compares the answer with the section its criterion is about,
read from the prompt's ``Criterion:`` line (in the instructions, never in the
data; see :data:`~ragmetrics_edu.judge.RUBRIC_TEMPLATE`):

================  ====================================================
criterion         the answer is compared with
================  ====================================================
relevance         the QUESTION (does the answer address what was asked?)
faithfulness      the CONTEXT
coverage          the REFERENCE
another one       the REFERENCE if there is one, else the CONTEXT, else
                  the QUESTION (also when the template has no
                  ``Criterion:`` line)
fluency,          refused: :class:`~ragmetrics_edu.judge.JudgeError`
coherence,
conciseness
================  ====================================================

Against a context, the similarity is the mean over the answer's sentences of
the cosine with the closest context sentence (a soft "supported statements"
rate); otherwise it is the cosine of the two whole texts. The similarity
:math:`c` is mapped linearly onto the scale :math:`[L, H]` read from the
prompt ("scale from L to H")

.. math::

    \\text{score} = L + \\operatorname{round}\\!\\left((H - L)\\,
        \\operatorname{clip}\\!\\left(\\frac{c - c_0}{c_1 - c_0}, 0, 1\\right)\\right)

with :math:`c_0` = ``cosine_low`` (0.3) and :math:`c_1` = ``cosine_high`` (0.9),
rounding halves up.

The defaults (these two, ``relevance_threshold=0.40``, ``support_threshold=0.68``)
were chosen by looking at the similarities on the labelled set of
:func:`~ragmetrics_edu.judge.load_eval_set`, so the stand-in's agreement with
that set's labels is optimistic: an in-sample fit, as a notebook should say.
"""

import math
import re

import numpy as np

from .._deprecation import formerly_positional
from .base import JudgeError
from .parsing import extract_sections, strip_sections
from .rubric import RUBRICS

__all__ = ["EmbeddingJudge", "split_sentences", "cosine_to_rating", "read_criterion"]

STAND_IN = "embedding-similarity stand-in, not an LLM"

#: What the stand-in compares the answer with, for the ready rubrics it can grade.
TARGETS = {"relevance": "QUESTION", "faithfulness": "CONTEXT", "coverage": "REFERENCE"}

#: Ready rubrics about the writing itself: no similarity between texts can grade them.
CANNOT_GRADE = ("fluency", "coherence", "conciseness")

_CRITERION_LINE = re.compile(r"^[ \t]*Criterion:[ \t]*(.*?)[ \t]*$", flags=re.MULTILINE)
_WRITING_WORD = re.compile(r"\b(fluen|coheren|concis)\w*", flags=re.IGNORECASE)

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def split_sentences(text):
    """Split text at ``.``, ``!`` or ``?`` followed by white space.

    A deliberately simple splitter (no abbreviation list), the same one
    :func:`ragmetrics_edu.judge.rag.split_claims` uses.

    Examples
    --------
    >>> split_sentences("Lift rises. Drag falls!  Why?")
    ['Lift rises.', 'Drag falls!', 'Why?']
    >>> split_sentences("   ")
    []
    """
    return [s.strip() for s in _SENTENCE_END.split(text.strip()) if s.strip()]


@formerly_positional("cosine_low", "cosine_high")
def cosine_to_rating(cosine, scale=(1, 5), *, cosine_low=0.3, cosine_high=0.9):
    """Map a cosine similarity linearly onto an integer rating scale.

    Parameters
    ----------
    cosine : float
        The cosine similarity.
    scale : tuple of int, default (1, 5)
        The lowest and the highest rating.
    cosine_low, cosine_high : float, default 0.3 and 0.9
        The cosines mapped to the lowest and the highest rating (``cosine_low``
        must be below ``cosine_high``); cosines outside them are clipped.

    Examples
    --------
    >>> cosine_to_rating(0.3), cosine_to_rating(0.9), cosine_to_rating(0.6)
    (1, 5, 3)
    >>> cosine_to_rating(-0.2), cosine_to_rating(0.99)
    (1, 5)
    >>> cosine_to_rating(0.75)     # 1 + 4 * (0.45 / 0.6) = 4.0
    4
    >>> cosine_to_rating(0.675)    # 1 + 4 * 0.625 = 3.5, rounds half up
    4
    """
    low, high = scale
    if not cosine_low < cosine_high:
        raise ValueError(f"cosine_low must be below cosine_high, got {cosine_low!r} and {cosine_high!r}")
    fraction = min(max((cosine - cosine_low) / (cosine_high - cosine_low), 0.0), 1.0)
    # round half up, exactly, on the scale's steps
    return int(low + math.floor((high - low) * fraction + 0.5 + 1e-9))


_SCALE = re.compile(r"scale from (-?[0-9]+) to (-?[0-9]+)", flags=re.IGNORECASE)


def read_criterion(prompt):
    """The text of the prompt's ``Criterion:`` line, or None if it has none.

    Only the instruction part is read (:func:`~ragmetrics_edu.judge.strip_sections`),
    so an answer that writes "Criterion: ..." cannot choose its own criterion.

    Examples
    --------
    >>> from ragmetrics_edu.judge import build_rubric_prompt
    >>> read_criterion(build_rubric_prompt("fluency", "Criterion: relevance"))
    'Fluency: is the answer well-formed, grammatical, readable English?'
    >>> read_criterion("Rate it.") is None
    True
    """
    m = _CRITERION_LINE.search(strip_sections(prompt))
    return m.group(1) if m else None


def _criterion_name(criterion):
    """The ready rubric whose criterion this is (``"relevance"``...), or None for another text."""
    for name, rubric in RUBRICS.items():
        if criterion == rubric.criterion:
            return name
    return None


class EmbeddingJudge:
    """An offline judge: all-MiniLM-L6-v2 cosine similarities, labelled as a stand-in.

    Parameters
    ----------
    model : str or os.PathLike, optional
        A sentence-embedding model folder; default the shipped
        all-MiniLM-L6-v2 (loaded at the first call, not at construction).
    cosine_low, cosine_high : float, default 0.3 and 0.9
        The similarities mapped to the bottom and the top of a rating scale.
    relevance_threshold : float, default 0.40
        cosine(question, chunk) at or above which a chunk is judged relevant.
    support_threshold : float, default 0.68
        Cosine between a claim and its closest context sentence at or above
        which the claim is judged supported.
    tie_margin : float, default 0.02
        In a pairwise comparison, cosines closer than this are a tie.

    Examples
    --------
    >>> from ragmetrics_edu.judge import EmbeddingJudge, grade
    >>> judge = EmbeddingJudge()
    >>> g = grade(judge, "faithfulness", "The boundary layer becomes turbulent.",
    ...           context="Transition of the boundary layer to turbulence was observed.")
    >>> print(g.replies[0].splitlines()[1][:43])
    (embedding-similarity stand-in, not an LLM:
    """

    @formerly_positional("cosine_low", "cosine_high", "relevance_threshold", "support_threshold",
                         "tie_margin")
    def __init__(self, model=None, *, cosine_low=0.3, cosine_high=0.9,
                 relevance_threshold=0.40, support_threshold=0.68, tie_margin=0.02):
        if not cosine_low < cosine_high:
            raise ValueError(f"cosine_low must be below cosine_high, got {cosine_low!r} and {cosine_high!r}")
        self._model_arg = model
        self.cosine_low = float(cosine_low)
        self.cosine_high = float(cosine_high)
        self.relevance_threshold = float(relevance_threshold)
        self.support_threshold = float(support_threshold)
        self.tie_margin = float(tie_margin)
        self.memo_size = 20000
        self._memo = {}  # text -> embedding, so a context shared by many prompts is embedded once
        name = "all-MiniLM-L6-v2" if model is None else str(model)
        self.model = f"embedding-stand-in:{name}"

    @property
    def parameters(self):
        return {
            "cosine_low": self.cosine_low, "cosine_high": self.cosine_high,
            "relevance_threshold": self.relevance_threshold,
            "support_threshold": self.support_threshold, "tie_margin": self.tie_margin,
        }

    def __repr__(self):
        return f"EmbeddingJudge(model={self.model!r})  # {STAND_IN}"

    # -- embeddings --------------------------------------------------------------

    def _encode(self, texts):
        """Unit vectors of ``texts``; each distinct text is embedded once and remembered."""
        from ..models.loading import encode_sentences  # the model is loaded here, at first use
        texts = list(texts)
        missing = list(dict.fromkeys(t for t in texts if t not in self._memo))
        if missing:
            if len(self._memo) + len(missing) > self.memo_size:
                self._memo.clear()
            for t, v in zip(missing, encode_sentences(missing, model=self._model_arg)):
                self._memo[t] = v
        return np.stack([self._memo[t] for t in texts])

    def _cosine(self, a, b):
        e = self._encode([a, b])
        return float(e[0] @ e[1])

    def _closest(self, texts, pool):
        """For each text, the cosine with its closest sentence of ``pool``."""
        if not pool:
            return [0.0 for _ in texts]
        e = self._encode(list(texts) + list(pool))
        sims = e[: len(texts)] @ e[len(texts):].T
        return [float(x) for x in sims.max(axis=1)]

    # -- the judge ---------------------------------------------------------------

    def complete(self, prompt):
        """Reply to a prompt of :mod:`ragmetrics_edu.judge` or :mod:`ragmetrics_edu.judge.rag`."""
        if not isinstance(prompt, str):
            raise TypeError(f"prompt must be a string, got {prompt!r}")
        s = extract_sections(prompt)
        if "ANSWER_A" in s and "ANSWER_B" in s:
            self._check_criterion(read_criterion(prompt))
            return self._pairwise(s)
        if "CLAIM" in s:
            return self._support(s)
        if "CHUNK" in s:
            return self._relevance(s)
        if "ANSWER" in s:
            return self._rating(s, strip_sections(prompt), read_criterion(prompt))
        raise JudgeError(
            f"the {STAND_IN} can only answer prompts with delimited sections "
            "(ANSWER, CHUNK, CLAIM, or ANSWER_A and ANSWER_B); it cannot generate text"
        )

    def _check_criterion(self, criterion):
        """Refuse a criterion about the writing; return the ready rubric's name (or None)."""
        if criterion is None:
            return None
        name = _criterion_name(criterion)
        word = _WRITING_WORD.search(criterion)
        if name in CANNOT_GRADE or word:
            what = name or f"a criterion about {word.group(0).lower()}"
            raise JudgeError(
                f"the {STAND_IN} cannot grade {what}: it measures how close the answer's "
                "topic is to a question, context or reference, not how the answer is written "
                "(word salad on the right topic would score high). It can grade relevance "
                "(answer vs question), faithfulness (answer vs context), coverage (answer vs "
                "reference), and rubrics comparing the answer with one of those. Grade "
                "fluency, coherence and conciseness with a real LLM (OpenAICompatibleJudge)."
            )
        return name

    def _target(self, s, name=None):
        """The section the answer is compared with: the rubric's own, else the first present."""
        if name in TARGETS:
            section = TARGETS[name]
            if section in s and s[section].strip():
                return section, s[section]
            raise JudgeError(
                f"the {STAND_IN} grades {name} against the {section} section, "
                "and this prompt has none"
            )
        for section in ("REFERENCE", "CONTEXT", "QUESTION"):
            if section in s and s[section].strip():
                return section, s[section]
        raise JudgeError(
            f"the {STAND_IN} compares the answer with a reference, context or question; "
            "this prompt has none, so it cannot grade it (grading the writing alone needs a real LLM)"
        )

    def _similarity(self, text, target_name, target):
        if target_name == "CONTEXT":
            sentences = split_sentences(text) or [text]
            return float(np.mean(self._closest(sentences, split_sentences(target) or [target])))
        return self._cosine(text, target)

    def _rating(self, s, instructions, criterion):
        name = self._check_criterion(criterion)
        m = _SCALE.search(instructions)
        scale = (int(m.group(1)), int(m.group(2))) if m else (1, 5)
        target_name, target = self._target(s, name)
        c = self._similarity(s["ANSWER"], target_name, target)
        score = cosine_to_rating(c, scale, cosine_low=self.cosine_low, cosine_high=self.cosine_high)
        how = "mean closest-sentence cosine" if target_name == "CONTEXT" else "cosine"
        return f"Score: {score}\n({STAND_IN}: {how} {c:.2f} between answer and {target_name.lower()})"

    def _relevance(self, s):
        if "QUESTION" not in s:
            raise JudgeError(f"the {STAND_IN} needs a QUESTION section to judge a CHUNK")
        c = self._cosine(s["QUESTION"], s["CHUNK"])
        verdict = "yes" if c >= self.relevance_threshold else "no"
        return (f"Verdict: {verdict}\n({STAND_IN}: cosine {c:.2f} between question and chunk, "
                f"threshold {self.relevance_threshold:.2f})")

    def _support(self, s):
        if "CONTEXT" not in s:
            raise JudgeError(f"the {STAND_IN} needs a CONTEXT section to judge a CLAIM")
        [c] = self._closest([s["CLAIM"]], split_sentences(s["CONTEXT"]) or [s["CONTEXT"]])
        verdict = "yes" if c >= self.support_threshold else "no"
        return (f"Verdict: {verdict}\n({STAND_IN}: cosine {c:.2f} between claim and its closest "
                f"context sentence, threshold {self.support_threshold:.2f})")

    def _pairwise(self, s):
        target_name, target = self._target(s)
        a = self._similarity(s["ANSWER_A"], target_name, target)
        b = self._similarity(s["ANSWER_B"], target_name, target)
        if abs(a - b) <= self.tie_margin:
            winner = "tie"
        else:
            winner = "A" if a > b else "B"
        return (f"Winner: {winner}\n({STAND_IN}: cosine A {a:.2f}, B {b:.2f} with the "
                f"{target_name.lower()}, tie margin {self.tie_margin:.2f})")
