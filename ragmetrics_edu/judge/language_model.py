r"""A judge that is a real language model, offline: SmolLM2-135M-Instruct in NumPy.

:class:`LanguageModelJudge` has the interface of every judge
(``complete(prompt) -> str``, ``model``, ``parameters``), so
:func:`~ragmetrics_edu.judge.grade`, the pairwise and bias tools and the RAG
metrics of :mod:`ragmetrics_edu.judge.rag` run with it unchanged. It reads the
prompts they build (:data:`~ragmetrics_edu.judge.RUBRIC_TEMPLATE` and the
others), writes them as the user's message of the model's chat template, and
reads the reply format the prompt's instructions ask for (outside the
delimited data):

=========================  ===============================  =====================
the prompt asks for        the reply starts                 allowed continuations
=========================  ===============================  =====================
``Score: N``, a scale      ``Score:``                       `` L`` ... `` H``
from L to H
``Verdict: yes`` / ``no``  ``Verdict:``                     `` yes``, `` no``
``Winner: A`` / ``B`` /    ``Winner:``                      `` A``, `` B``, `` tie``
``tie``
anything else              (nothing)                        free text
=========================  ===============================  =====================

With ``constrained=True`` (the default) the model may only write one of the
allowed continuations after the reply's start: its next-token probabilities
over them (:meth:`~ragmetrics_edu.models.decoder.LanguageModel.continuation_distribution`)
are the judge's real output, and the reply is the most likely one
(``temperature=0``) or one drawn from them. :meth:`LanguageModelJudge.distribution`
returns the probabilities themselves, and :func:`grade_distribution` turns a
rubric's into a grade three ways: the most likely grade, the expected grade
(G-Eval's probability-weighted score, Liu et al. 2023)

.. math:: \mathbb{E}[s] = \sum_{s=L}^{H} s\, P(s \mid \text{prompt})

and the distribution. With ``constrained=False`` the model writes freely, as a
chat model would, and a small model often breaks the reply format: the
strict parser then refuses its reply, which is the point of showing it.

It is a 135-million-parameter model quantized to 4 bits: an instrument to
measure (:mod:`ragmetrics_edu.judge.meta_eval`) before it is trusted, not a
strong judge. Measured on the labelled set
(:func:`~ragmetrics_edu.judge.load_eval_set`, 67 answers to 20 questions, the
faithfulness and relevance rubrics with their default prompts), its most
likely grade is 5 for every answer on both rubrics, so that grade carries no
information, and its expected grade stays between 3.2 and 3.7. Kendall's tau
of the expected grade with the ratings (95% bootstrap intervals resampling
questions) is about chance for faithfulness (0.04, -0.08 to 0.14; the
embedding stand-in reaches 0.52, 0.42 to 0.63) and weak for relevance (0.16,
0.01 to 0.32; the stand-in 0.21, -0.02 to 0.39). The grades' tokens get
about a third of the model's probability after ``Score:``
(mean mass 0.30 and 0.34). Asked which of two answers is better
(:func:`~ragmetrics_edu.judge.bias.position_bias`, each question's answers
``a`` and ``b``), it picks the one shown first on all 20 pairs in both orders
(flip rate 1), giving it a probability of about 0.85 wherever it stands.
"""

import re
from dataclasses import dataclass, field

import numpy as np

from .._deprecation import formerly_positional
from ..models.sampling import distribution_text
from .base import JudgeError
from .parsing import strip_sections
from .rubric import RUBRIC_TEMPLATE, build_rubric_prompt, get_rubric

__all__ = ["LanguageModelJudge", "JudgeDistribution", "GradeDistribution",
           "grade_distribution", "read_reply_format"]

_SCALE = re.compile(r"from (-?[0-9]+) to (-?[0-9]+)", flags=re.IGNORECASE)
_MOST_SCALE_LEVELS = 10   # single digits only: " 1" would begin " 10"


def read_reply_format(prompt):
    """What reply a judge prompt asks for: ``(kind, prefix, labels)``.

    Only the instructions are read (the delimited data is removed first), so
    an answer saying "Reply with Winner: A" changes nothing.

    Returns
    -------
    kind : str
        ``"score"``, ``"verdict"``, ``"preference"`` or ``"free"``.
    prefix : str
        The start of the reply (``"Score:"``), empty for ``"free"``.
    labels : list of str
        The values that may follow it (``["1", ..., "5"]``).

    Raises
    ------
    JudgeError
        A ``Score:`` prompt whose scale cannot be read, or that is not a
        scale of single digits.

    Examples
    --------
    >>> from ragmetrics_edu.judge import build_rubric_prompt
    >>> read_reply_format(build_rubric_prompt("relevance", "Paris.", question="Capital?"))
    ('score', 'Score:', ['1', '2', '3', '4', '5'])
    >>> read_reply_format('Reply with "Verdict: yes" or "Verdict: no".')
    ('verdict', 'Verdict:', ['yes', 'no'])
    """
    if not isinstance(prompt, str):
        raise TypeError(f"prompt must be a string, got {type(prompt).__name__}")
    instructions = strip_sections(prompt)
    if "Score:" in instructions:
        found = _SCALE.search(instructions)
        if found is None:
            raise JudgeError("the prompt asks for 'Score:' but says no scale "
                             "('from L to H'); the judge cannot tell which grades to score")
        low, high = int(found.group(1)), int(found.group(2))
        if not (0 <= low < high <= 9):
            raise JudgeError(f"the prompt's scale from {low} to {high} is not one of single "
                             f"digits (0 to 9), which this judge scores one token each")
        return "score", "Score:", [str(s) for s in range(low, high + 1)]
    if "Verdict:" in instructions:
        return "verdict", "Verdict:", ["yes", "no"]
    if "Winner:" in instructions:
        return "preference", "Winner:", ["A", "B", "tie"]
    return "free", "", []


@dataclass
class JudgeDistribution:
    """The model's probabilities over the replies a judge prompt allows.

    Attributes
    ----------
    kind : str
        ``"score"``, ``"verdict"`` or ``"preference"``.
    labels : list of str
        The allowed values (``["1", ..., "5"]``, ``["yes", "no"]``).
    probabilities : numpy.ndarray
        Their probabilities after the reply's start, renormalised to add up to 1.
    mass : float
        The probability of all of them together before renormalising: how
        much the model wanted to write one of them at all.
    """

    kind: str
    labels: list
    probabilities: np.ndarray = field(repr=False)
    mass: float

    @property
    def most_likely(self):
        """The most probable label (ties: the first)."""
        return self.labels[int(np.argmax(self.probabilities))]

    @property
    def expected(self):
        """The probability-weighted mean of a numeric scale (G-Eval's score)."""
        if self.kind != "score":
            raise JudgeError(f"an expected value needs a numeric scale, not {self.kind!r} labels")
        return float(np.dot([int(x) for x in self.labels], self.probabilities))

    def as_dict(self):
        """``{label: probability}``."""
        return {k: float(p) for k, p in zip(self.labels, self.probabilities)}

    def __str__(self):
        return f"{self.kind}: " + distribution_text(self.labels, self.probabilities, mass=self.mass)


class LanguageModelJudge:
    """A judge run by the NumPy language model (SmolLM2-135M-Instruct).

    Parameters
    ----------
    model : LanguageModel or path, optional
        A loaded model or a GGUF file; default the shipped model
        (:func:`ragmetrics_edu.load_language_model`, loaded once per process).
    constrained : bool, default True
        Reply only with one of the values the prompt allows (see the module
        docstring); False lets the model write freely.
    temperature : float, default 0.0
        0: the most likely reply; above 0: replies are drawn.
    top_p : float, default 1.0
        Nucleus sampling's cut, in (0, 1].
    seed : int, optional
        Seeds the draws: the same seed gives the same sequence of replies.
    max_new_tokens : int, default 48
        The longest free reply (``constrained=False`` or a prompt of no
        known format).

    Examples
    --------
    >>> from ragmetrics_edu.judge import grade
    >>> judge = LanguageModelJudge()
    >>> judge
    LanguageModelJudge(model='SmolLM2-135M-Instruct', constrained=True, temperature=0.0)
    >>> g = grade(judge, "relevance", "Paris is the capital of France.",
    ...           question="What is the capital of France?")
    >>> g.score in range(1, 6)
    True
    """

    @formerly_positional("constrained", "temperature", "top_p", "seed", "max_new_tokens")
    def __init__(self, model=None, *, constrained=True, temperature=0.0, top_p=1.0, seed=None,
                 max_new_tokens=48):
        from .._validation import check_temperature, check_top_p
        from ..models.decoder import LanguageModel, load_language_model

        self.lm = model if isinstance(model, LanguageModel) else load_language_model(model)
        if not isinstance(constrained, bool):
            raise TypeError(f"constrained must be True or False, got {constrained!r}")
        self.constrained = constrained
        self.temperature = check_temperature(temperature)
        self.top_p = check_top_p(top_p)
        self.seed = seed
        self.max_new_tokens = max_new_tokens
        self.model = self.lm.name
        self._rng = np.random.default_rng(seed)

    @property
    def parameters(self):
        return {"constrained": self.constrained, "temperature": self.temperature,
                "top_p": self.top_p, "seed": self.seed, "max_new_tokens": self.max_new_tokens}

    def __repr__(self):
        return (f"LanguageModelJudge(model={self.model!r}, constrained={self.constrained}, "
                f"temperature={self.temperature})")

    def distribution(self, prompt):
        """The model's probabilities over the replies ``prompt`` allows.

        Raises :class:`~ragmetrics_edu.judge.JudgeError` for a prompt that asks
        for no ``Score:``, ``Verdict:`` or ``Winner:`` reply.
        """
        kind, prefix, labels = read_reply_format(prompt)
        if kind == "free":
            raise JudgeError("the prompt asks for no Score:, Verdict: or Winner: reply, so "
                             "there is no distribution over allowed replies to read")
        dist = self.lm.continuation_distribution(prompt, [" " + x for x in labels],
                                                 prefix=prefix)
        return JudgeDistribution(kind, labels, dist.probabilities, dist.mass)

    def probability_yes(self, prompt):
        """P(yes) among yes and no, for a prompt asking for ``Verdict: yes`` or ``no``."""
        dist = self.distribution(prompt)
        if dist.kind != "verdict":
            raise JudgeError(f"probability_yes needs a Verdict: yes/no prompt, got a "
                             f"{dist.kind!r} prompt")
        return float(dist.probabilities[0])

    def complete(self, prompt):
        """The judge's reply to ``prompt``, in the format the prompt asks for."""
        kind, prefix, labels = read_reply_format(prompt)
        if kind == "free" or not self.constrained:
            reply = self.lm.generate(prompt, max_new_tokens=self.max_new_tokens,
                                     temperature=self.temperature, top_p=self.top_p,
                                     seed=self._draw_seed())
            return reply.text
        return self.reply_from(self.distribution(prompt), prompt)

    def reply_from(self, distribution, prompt):
        """The constrained reply to ``prompt``, read from its ``distribution``.

        What :meth:`complete` replies, given the distribution it would compute
        (``self.distribution(prompt)``): the most likely label at temperature
        0, else a label drawn at this judge's temperature and ``top_p``, from
        this judge's seeded draws.  A caller that already holds the
        distribution (to record it, or to draw for several seeds) saves the
        model's pass.

        Parameters
        ----------
        distribution : JudgeDistribution
            The model's probabilities over the replies ``prompt`` allows
            (``self.distribution(prompt)``).
        prompt : str
            The judge prompt; its reply format (``Score:``, ``Verdict:`` or
            ``Winner:`` and the labels) shapes the reply.
        """
        _, prefix, labels = read_reply_format(prompt)
        if self.temperature == 0:
            label = distribution.most_likely
        else:
            from ..models.decoder import top_p_filter

            p = distribution.probabilities ** (1.0 / self.temperature)
            p = top_p_filter(p / p.sum(), self.top_p)
            label = labels[int(self._rng.choice(len(labels), p=p))]
        return f"{prefix} {label}"

    def _draw_seed(self):
        return int(self._rng.integers(2**32)) if self.temperature > 0 else None


@dataclass
class GradeDistribution:
    """A rubric grade read from the model's probabilities.

    Attributes
    ----------
    score : int
        The most likely grade.
    expected : float
        The probability-weighted grade (G-Eval).
    distribution : dict of int to float
        ``{grade: probability}`` over the rubric's scale.
    mass : float
        The probability the model put on the scale's grades at all.
    rubric : str
    judge : str
    """

    score: int
    expected: float
    distribution: dict
    mass: float
    rubric: str
    judge: str

    def __int__(self):
        return self.score

    def __str__(self):
        return (f"{self.rubric} grade {self.score}, expected {self.expected:.4f}, by {self.judge}: "
                + distribution_text(list(self.distribution), list(self.distribution.values()),
                                    mass=self.mass))


@formerly_positional("question", "context", "reference", "template")
def grade_distribution(judge, rubric, answer, *, question=None, context=None, reference=None,
                       template=RUBRIC_TEMPLATE):
    """Grade one answer by the model's probabilities over the rubric's scale.

    The prompt is :func:`~ragmetrics_edu.judge.build_rubric_prompt`'s, as for
    :func:`~ragmetrics_edu.judge.grade`; instead of one reply, the judge's
    probabilities of each grade after ``Score:`` are read.

    Parameters
    ----------
    judge : LanguageModelJudge
    rubric, answer, question, context, reference, template
        As in :func:`~ragmetrics_edu.judge.build_rubric_prompt`.

    Returns
    -------
    GradeDistribution

    Examples
    --------
    >>> g = grade_distribution(LanguageModelJudge(), "relevance", "Paris.",
    ...                        question="What is the capital of France?")
    >>> sorted(g.distribution), round(sum(g.distribution.values()), 4)
    ([1, 2, 3, 4, 5], 1.0)
    >>> 1 <= g.expected <= 5
    True
    """
    if not isinstance(judge, LanguageModelJudge):
        raise TypeError(f"judge must be a LanguageModelJudge (it reads the model's "
                        f"probabilities), got {type(judge).__name__}")
    rubric = get_rubric(rubric)
    prompt = build_rubric_prompt(rubric, answer, question=question, context=context,
                                 reference=reference, template=template)
    dist = judge.distribution(prompt)
    if dist.kind != "score":
        raise JudgeError(f"the template asks for a {dist.kind!r} reply, not 'Score: N'")
    return GradeDistribution(
        score=int(dist.most_likely), expected=dist.expected,
        distribution={int(k): float(p) for k, p in zip(dist.labels, dist.probabilities)},
        mass=dist.mass, rubric=rubric.name, judge=judge.model)
