"""The judge playground of notebook 07: type an answer, pick a rubric, see the grade.

Two layers, as every widget of the package:

``judge_playground_state(judge, rubric, answer, question, context)``
    A pure function of its inputs and the judge's reply: the prompt the
    judge was sent (built by :func:`ragmetrics_edu.judge.build_rubric_prompt`,
    with only what the rubric uses), its raw reply, and the parsed grade, or
    the reason there is none (a reply off the scale, a judge that refuses
    the rubric).
``judge_playground(judge=None, ...)``
    The ipywidgets box around it: a text box for the answer, a rubric menu,
    and what the judge made of them.  With no ``judge`` it uses the offline
    stand-in (:class:`~ragmetrics_edu.judge.EmbeddingJudge`, an embedding
    similarity, not an LLM, and labelled so); pass any judge to grade with
    a real model.
"""

import html
from dataclasses import dataclass

from ..._deprecation import formerly_positional
from ._common import Explorer, require_widgets

__all__ = ["judge_playground", "judge_playground_state", "JudgePlayground",
           "PlaygroundState"]


@dataclass(frozen=True)
class PlaygroundState:
    """What the playground shows for one answer and rubric.

    Attributes
    ----------
    rubric : str
        The rubric's name.
    prompt : str
        The prompt the judge was sent.
    reply : str or None
        The judge's raw reply (None if it raised before replying).
    score : int or None
        The parsed grade, or None when there is none.
    error : str or None
        Why there is no grade (the exception's message), else None.
    judge : str
        The judge's model name (for the stand-in, its honest label).
    """

    rubric: str
    prompt: str
    reply: object
    score: object
    error: object
    judge: str


@formerly_positional("answer", "question", "context", "reference")
def judge_playground_state(judge, rubric, *, answer, question=None, context=None,
                           reference=None):
    """Grade ``answer`` on ``rubric`` and say what happened, errors included.

    Only the parts the rubric uses (``Rubric.uses``) are put into the
    prompt: relevance reads the question, faithfulness the context, coverage
    the question and the reference.

    Parameters
    ----------
    judge : judge or callable
        Anything with ``complete(prompt) -> str``, or ``fn(prompt) -> str``.
    rubric : str or Rubric
        A ready rubric's name (``"faithfulness"``) or a Rubric.
    answer : str
        The answer to grade.
    question, context, reference : str or list of str, optional
        The question, the retrieved context, a reference answer.

    Returns
    -------
    PlaygroundState

    Examples
    --------
    >>> def judge(prompt):              # a stand-in that counts the answer's words
    ...     answer = prompt.split("<<<ANSWER>>>")[1].split("<<<END ANSWER>>>")[0]
    ...     return f"Score: {min(5, len(answer.split()))}"
    >>> s = judge_playground_state(judge, "relevance", answer="Two words", question="Why?")
    >>> s.score, s.reply, "Why?" in s.prompt
    (2, 'Score: 2', True)
    >>> s = judge_playground_state(lambda p: "Great!", "relevance", answer="x", question="Why?")
    >>> s.score, s.error.startswith("cannot read a rating")   # no guessing
    (None, True)
    """
    from ...judge import (RUBRICS, JudgeError, as_judge, build_rubric_prompt, judge_identity,
                         parse_rating)

    judge = as_judge(judge)
    rub = RUBRICS[rubric] if isinstance(rubric, str) else rubric
    given = {"question": question, "context": context, "reference": reference}
    parts = {name: given[name] for name in rub.uses}
    prompt = build_rubric_prompt(rub, answer, **parts)
    name = judge_identity(judge)[0]
    try:
        reply = judge.complete(prompt)
    except (JudgeError, ValueError, RuntimeError) as exc:  # e.g. it cannot grade this rubric
        return PlaygroundState(rub.name, prompt, None, None, str(exc), name)
    try:
        score = parse_rating(reply, rub.scale)
    except ValueError as exc:
        return PlaygroundState(rub.name, prompt, reply, None, str(exc), name)
    return PlaygroundState(rub.name, prompt, reply, score, None, name)


def state_html(state):
    """The playground's result as HTML (pure, so tests read it without a browser)."""
    grade = "no grade" if state.score is None else f"grade: {state.score}"
    parts = [f"<b>{html.escape(grade)}</b> <small>(judge: {html.escape(state.judge)})</small>"]
    if state.reply is not None:
        parts.append(f"<pre style='white-space:pre-wrap'>{html.escape(state.reply)}</pre>")
    if state.error is not None:
        parts.append(f"<p style='color:#b91c1c'>{html.escape(state.error)}</p>")
    return "".join(parts)


class JudgePlayground(Explorer):
    """A text box for the answer, a rubric menu, and what the judge makes of them.

    Attributes
    ----------
    answer : ipywidgets.Textarea
    rubric : ipywidgets.Dropdown
    result : ipywidgets.HTML
    values : PlaygroundState
        The last grading (``values.score``, ``values.reply``, ``values.prompt``).
    """

    @formerly_positional("context", "reference", "answer", "rubrics")
    def __init__(self, judge, question, *, context, reference, answer, rubrics):
        widgets = require_widgets()
        self.judge, self.question, self.context = judge, question, context
        self.reference = reference
        self.answer = widgets.Textarea(
            value=answer, description="answer", continuous_update=False,
            layout=widgets.Layout(width="95%", height="80px"))
        self.rubric = widgets.Dropdown(options=list(rubrics), value=rubrics[0],
                                       description="rubric")
        self.result = widgets.HTML()
        self.answer.observe(self.update, names="value")
        self.rubric.observe(self.update, names="value")
        self.widget = widgets.VBox([
            widgets.HTML(f"<b>question:</b> {html.escape(question or '')}"),
            self.answer, self.rubric, self.result])
        self.update()

    @property
    def score(self):
        """The last grade (None when the judge gave none)."""
        return self.values.score

    def update(self, _change=None):
        self.values = judge_playground_state(self.judge, self.rubric.value,
                                             answer=self.answer.value,
                                             question=self.question, context=self.context, reference=self.reference)
        self.result.value = state_html(self.values)

    def _describe(self):
        return f"rubric={self.rubric.value!r}, score={self.values.score}"


@formerly_positional("context", "answer", "rubrics", "reference")
def judge_playground(judge=None, question=None, *, context=None, answer="",
                     rubrics=("faithfulness", "relevance"), reference=None):
    """A judge playground: grade an answer you type, on a rubric you pick.

    Parameters
    ----------
    judge : judge or callable, optional
        The judge; default the offline stand-in
        :class:`~ragmetrics_edu.judge.EmbeddingJudge` (needs the ``semantic``
        extra).  A real model: ``OpenAICompatibleJudge(...)``.
    question : str, optional
        The question the answer replies to (what relevance reads).
    context : str or list of str, optional
        The retrieved chunks (what faithfulness reads).
    answer : str
        The starting answer.
    rubrics : sequence of str
        Names of ready rubrics offered in the menu (the first is selected);
        each must have what it reads (``Rubric.uses``) among the arguments.
    reference : str, optional
        A reference answer (what coverage reads).

    Returns
    -------
    JudgePlayground
        Display it; or drive it: ``p.answer.value = "..."``, then ``p.score``.
    """
    from ...judge import RUBRICS, build_rubric_prompt

    rubrics = tuple(rubrics)
    unknown = [r for r in rubrics if r not in RUBRICS]
    if not rubrics or unknown:
        raise ValueError(
            f"rubrics must name ready rubrics ({', '.join(sorted(RUBRICS))}), "
            f"got {list(rubrics)!r}")
    for name in rubrics:  # refuse now what every update would refuse: a missing part
        build_rubric_prompt(name, answer, question=question, context=context,
                            reference=reference)
    if judge is None:
        from ...judge import EmbeddingJudge

        judge = EmbeddingJudge()
    return JudgePlayground(judge, question, context=context, reference=reference, answer=answer,
                           rubrics=rubrics)
