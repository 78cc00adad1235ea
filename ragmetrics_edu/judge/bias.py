r"""Two biases of a judge, measured: verbosity and position.

Any judge (anything with ``complete(prompt) -> str``: a real LLM behind
:class:`~ragmetrics_edu.judge.OpenAICompatibleJudge`, the offline
:class:`~ragmetrics_edu.judge.EmbeddingJudge`, a lambda) can be run through
both measurements:

* :func:`verbosity_bias` - grade each answer, then the *same* answer padded
  with neutral sentences that add no information; a judge without verbosity
  bias gives the same score. The result holds the shift of every item.
* :func:`position_bias` - compare two answers in both orders
  (:func:`~ragmetrics_edu.judge.compare`); a judge without position bias
  gives the same verdict once the swap is undone. The result holds, per
  item, whether the verdict flipped, and whether the flip favoured the
  answer shown first or second.

Both measure the judge on the items you give it: with a few dozen items,
read the per-item numbers, not only the rate.

References
----------
L. Zheng et al., "Judging LLM-as-a-Judge with MT-Bench and Chatbot Arena",
NeurIPS 2023 Datasets and Benchmarks (section 3.3: position, verbosity and
self-enhancement biases; the "repetitive list" attack pads answers with
content that adds nothing).
"""

from dataclasses import dataclass

import numpy as np

from .._deprecation import formerly_positional
from .._validation import describe
from .base import as_judge, judge_identity
from .pairwise import compare
from .rubric import get_rubric, grade

__all__ = [
    "NEUTRAL_PADDING",
    "pad_answer",
    "VerbosityBias",
    "verbosity_bias",
    "PositionBias",
    "position_bias",
]

#: Sentences that add no information to an answer about an aeronautics
#: abstract: no number, no named effect, no claim about the subject.
NEUTRAL_PADDING = (
    "This is an interesting question that has received attention in the literature.",
    "The answer above is based on the material that was provided.",
    "Further details can be found in the original reports.",
    "Questions of this kind are of interest to engineers and researchers alike.",
)


MAX_PADDING = 1000
"""The most neutral sentences :func:`pad_answer` adds (and :func:`verbosity_bias` asks for)."""


@formerly_positional("padding")
def pad_answer(answer, n_sentences=2, *, padding=NEUTRAL_PADDING):
    """The answer followed by ``n_sentences`` neutral sentences.

    The padding sentences are taken in order, cycling when more are asked
    than ``padding`` holds.

    Parameters
    ----------
    answer : str
        The answer to pad.
    n_sentences : int, default 2
        How many padding sentences to add: from 1 to :data:`MAX_PADDING`.
    padding : sequence of str, default :data:`NEUTRAL_PADDING`
        The padding sentences (not one string; none of them blank).

    Examples
    --------
    >>> pad_answer("Lift rises with incidence.", 1)
    'Lift rises with incidence. This is an interesting question that has received attention in the literature.'
    >>> pad_answer("Drag falls.", 2, padding=("Indeed.",))
    'Drag falls. Indeed. Indeed.'
    """
    if not isinstance(answer, str):
        raise TypeError(f"answer must be a string, got {answer!r}")
    if isinstance(n_sentences, bool) or not isinstance(n_sentences, (int, np.integer)) \
            or n_sentences < 1:
        raise ValueError(f"n_sentences must be a positive integer, got {describe(n_sentences)}")
    if n_sentences > MAX_PADDING:
        raise ValueError(f"n_sentences must be at most {MAX_PADDING} (MAX_PADDING: a judge's "
                         f"context holds a few thousand words), got {describe(n_sentences)}")
    if isinstance(padding, str) or not padding or not all(isinstance(p, str) and p.strip()
                                                           for p in padding):
        raise ValueError(f"padding must be a non-empty sequence of non-blank sentences, got {padding!r}")
    extra = [padding[i % len(padding)].strip() for i in range(int(n_sentences))]
    return " ".join([answer.strip()] + extra)


_ITEM_KEYS = ("answer", "question", "context", "reference")
_PAIR_KEYS = ("question", "answer_1", "answer_2", "context", "reference")


def _check_items(items, name, required, allowed):
    if isinstance(items, (str, dict)) or not hasattr(items, "__iter__"):
        raise TypeError(f"{name} must be a sequence of dicts, got {items!r}")
    items = list(items)
    if not items:
        raise ValueError(f"{name} must hold at least one item, got none")
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise TypeError(f"{name}[{i}] must be a dict, got {item!r}")
        unknown = set(item) - set(allowed)
        if unknown:
            raise ValueError(f"{name}[{i}] has unknown keys {sorted(unknown)!r}; "
                             f"allowed: {list(allowed)!r}")
        for key in required:
            if not isinstance(item.get(key), str) or not item[key].strip():
                raise ValueError(f"{name}[{i}][{key!r}] must be a non-empty string, "
                                 f"got {item.get(key)!r}")
    return items


# ----------------------------------------------------------------- verbosity

@dataclass(frozen=True)
class VerbosityBias:
    """How a judge's rating moves when answers are padded with neutral sentences.

    Attributes
    ----------
    original, padded : list of int
        The rating of each answer as given, and of the same answer padded.
    shift : list of int
        ``padded - original`` per item: positive means padding was rewarded.
    mean_shift : float
        The mean of ``shift``.
    n_up, n_same, n_down : int
        Items whose rating rose, stayed, fell.
    padded_answers : list of str
        What the judge saw.
    rubric : str
    judge : str
    n_sentences : int
        Neutral sentences added to each answer.
    """

    original: list
    padded: list
    shift: list
    mean_shift: float
    n_up: int
    n_same: int
    n_down: int
    padded_answers: list
    rubric: str
    judge: str
    n_sentences: int

    def __str__(self):
        n = len(self.shift)
        return (f"verbosity bias of {self.judge} ({self.rubric}, +{self.n_sentences} neutral "
                f"sentences): mean shift {self.mean_shift:+.4f} over {n} answers; "
                f"up {self.n_up}, same {self.n_same}, down {self.n_down}")


@formerly_positional("rubric", "n_sentences", "padding")
def verbosity_bias(judge, items, *, rubric="relevance", n_sentences=2, padding=NEUTRAL_PADDING):
    r"""Grade each answer as given and padded with neutral sentences; report the shifts.

    For each item :math:`i`, with :math:`g` the judge's rating on the rubric
    and :math:`\operatorname{pad}` the answer followed by ``n_sentences``
    sentences that add nothing (:data:`NEUTRAL_PADDING`):

    .. math::

        \Delta_i = g(\operatorname{pad}(a_i)) - g(a_i), \qquad
        \text{mean shift} = \frac{1}{n}\sum_i \Delta_i .

    A judge without verbosity bias has every :math:`\Delta_i = 0`. On a
    rubric that penalises padding (relevance: "buries the answer in
    unrelated material"; conciseness) a careful judge should move *down*.

    Parameters
    ----------
    judge : judge or callable
        Anything with ``complete(prompt) -> str``.
    items : sequence of dict
        Each with ``"answer"`` and whatever the rubric shows the judge:
        ``"question"``, ``"context"``, ``"reference"`` (as in
        :func:`~ragmetrics_edu.judge.grade`).
    rubric : Rubric or str, default "relevance"
    n_sentences : int, default 2
        Neutral sentences appended to each answer.
    padding : sequence of str, default NEUTRAL_PADDING

    Returns
    -------
    VerbosityBias
        Per-item ratings and shifts, and their summary.

    See Also
    --------
    position_bias, pad_answer

    Examples
    --------
    A judge that gives one point per ten words is rewarded for padding:

    >>> from ragmetrics_edu.judge import extract_sections
    >>> def wordy(prompt):
    ...     words = len(extract_sections(prompt)["ANSWER"].split())
    ...     return f"Score: {min(5, 1 + words // 10)}"
    >>> items = [{"answer": "The shock stays attached.", "question": "Where is the shock?"}]
    >>> r = verbosity_bias(wordy, items, n_sentences=2)
    >>> r.original, r.padded          # 4 words, then 4 + 12 + 11 = 27 words
    ([1], [3])
    >>> r.mean_shift
    2.0
    """
    judge = as_judge(judge)
    items = _check_items(items, "items", ("answer",), _ITEM_KEYS)
    rubric = get_rubric(rubric)
    original, padded, texts = [], [], []
    for item in items:
        extra = {k: item.get(k) for k in ("question", "context", "reference")}
        longer = pad_answer(item["answer"], n_sentences, padding=padding)
        original.append(grade(judge, rubric, item["answer"], **extra).score)
        padded.append(grade(judge, rubric, longer, **extra).score)
        texts.append(longer)
    shift = [p - o for p, o in zip(padded, original)]
    return VerbosityBias(
        original=original, padded=padded, shift=shift,
        mean_shift=float(np.mean(shift)),
        n_up=sum(s > 0 for s in shift), n_same=sum(s == 0 for s in shift),
        n_down=sum(s < 0 for s in shift),
        padded_answers=texts, rubric=rubric.name, judge=judge_identity(judge)[0],
        n_sentences=int(n_sentences),
    )


# ----------------------------------------------------------------- position

@dataclass(frozen=True)
class PositionBias:
    """How often a judge's pairwise verdict changes when the two answers swap places.

    Attributes
    ----------
    verdicts : list of (str, str)
        Per item, the verdict with answer 1 shown first and the verdict
        with answer 2 shown first (``'A'``, ``'B'`` or ``'tie'``).
    flipped : list of bool
        Per item, whether the two verdicts disagree once the swap is undone.
    favoured : list of str or None
        Per flipped item, ``'first'`` if both verdicts chose the answer shown
        first (``('A', 'A')``), ``'second'`` for ``('B', 'B')``, ``'tie'``
        when one of them was a tie; ``None`` for an item that did not flip.
    outcomes : list of str
        Per item, ``'1'``, ``'2'`` or ``'tie'`` (a flip is a tie, see
        :func:`~ragmetrics_edu.judge.resolve_swap`).
    flip_rate : float
        Share of items that flipped.
    first_rate : float
        Share of all verdicts (two per item) that chose the answer shown
        first: 0.5 or below for a judge that does not favour the first slot
        (ties count as neither).
    judge : str
    """

    verdicts: list
    flipped: list
    favoured: list
    outcomes: list
    flip_rate: float
    first_rate: float
    judge: str

    def __str__(self):
        n = len(self.flipped)
        counts = {k: self.favoured.count(k) for k in ("first", "second", "tie")}
        return (f"position bias of {self.judge}: {sum(self.flipped)} of {n} verdicts flip when "
                f"the order is swapped (flip rate {self.flip_rate:.4f}; favoured the first "
                f"{counts['first']}, the second {counts['second']}, a tie {counts['tie']}); "
                f"answer shown first chosen in {self.first_rate:.4f} of verdicts")


@formerly_positional("criterion")
def position_bias(judge, pairs, *,
                  criterion="Which answer is more correct, relevant and helpful?"):
    r"""Compare each pair of answers in both orders; report how often the verdict flips.

    Each pair is judged twice (:func:`~ragmetrics_edu.judge.compare` with
    ``n_samples=1``): answer 1 shown as A, then answer 2 shown as A. Undo
    the swap; if the two verdicts name different winners, the verdict
    followed the position:

    .. math::

        \text{flip rate} = \frac{1}{n}\sum_i
            \mathbb{1}\left[w_i^{(1,2)} \ne w_i^{(2,1)}\right]

    where :math:`w_i^{(1,2)}` is the winner (answer 1, answer 2 or a tie)
    with answer 1 shown first.

    Parameters
    ----------
    judge : judge or callable
    pairs : sequence of dict
        Each with ``"question"``, ``"answer_1"``, ``"answer_2"`` and
        optionally ``"context"`` and ``"reference"``.
    criterion : str
        What "better" means (as in :func:`~ragmetrics_edu.judge.compare`).

    Returns
    -------
    PositionBias
        Per-item verdicts and flips, the flip rate and the first-slot rate.

    See Also
    --------
    verbosity_bias, ragmetrics_edu.judge.compare

    Examples
    --------
    A judge that always picks the answer shown first flips on every pair:

    >>> pairs = [{"question": "Q?", "answer_1": "one", "answer_2": "two"}] * 3
    >>> r = position_bias(lambda prompt: "Winner: A", pairs)
    >>> r.flip_rate, r.first_rate, r.favoured
    (1.0, 1.0, ['first', 'first', 'first'])
    """
    judge = as_judge(judge)
    pairs = _check_items(pairs, "pairs", ("question", "answer_1", "answer_2"), _PAIR_KEYS)
    verdicts, flipped, favoured, outcomes = [], [], [], []
    for p in pairs:
        r = compare(judge, p["question"], p["answer_1"], p["answer_2"],
                    context=p.get("context"), reference=p.get("reference"),
                    criterion=criterion, n_samples=1)
        first, swapped = r.verdicts[0]
        flip = r.inconsistent == 1
        verdicts.append((first, swapped))
        flipped.append(flip)
        outcomes.append(r.outcomes[0])
        if not flip:
            favoured.append(None)
        elif (first, swapped) == ("A", "A"):
            favoured.append("first")
        elif (first, swapped) == ("B", "B"):
            favoured.append("second")
        else:
            favoured.append("tie")
    shown_first = sum((v == "A") for pair in verdicts for v in pair)
    return PositionBias(
        verdicts=verdicts, flipped=flipped, favoured=favoured, outcomes=outcomes,
        flip_rate=sum(flipped) / len(flipped),
        first_rate=shown_first / (2 * len(verdicts)),
        judge=judge_identity(judge)[0],
    )
