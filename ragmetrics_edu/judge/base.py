"""What a judge is, and the errors a judge can raise.

A judge is anything with a method ``complete(prompt: str) -> str``, or a
plain callable ``fn(prompt) -> str``. :func:`as_judge` turns either into an
object with ``complete``; every function of :mod:`ragmetrics_edu.judge` and
:mod:`ragmetrics_edu.judge.rag` calls it first, so a lambda is a judge::

    judge = lambda prompt: "Score: 3"

The errors form one family, so ``except JudgeError`` catches them all, and
each subclass says what went wrong (the HTTP judge raises them; see
:mod:`ragmetrics_edu.judge.openai_compat`).
"""

__all__ = [
    "JudgeError",
    "JudgeConfigError",
    "JudgeConnectionError",
    "JudgeTimeoutError",
    "JudgeHTTPError",
    "JudgeAuthError",
    "JudgeNotFoundError",
    "JudgeRateLimitError",
    "JudgeServerError",
    "JudgeResponseError",
    "CacheMissError",
    "FunctionJudge",
    "as_judge",
    "judge_identity",
]


class JudgeError(Exception):
    """Base class of every error a judge raises."""


class JudgeConfigError(JudgeError):
    """The judge is set up wrongly (for example a required key is missing)."""


class JudgeConnectionError(JudgeError):
    """The server could not be reached (refused, DNS, reset)."""


class JudgeTimeoutError(JudgeError):
    """The server did not answer within the timeout."""


class JudgeHTTPError(JudgeError):
    """The server answered with an HTTP error status.

    Attributes
    ----------
    status : int
        The HTTP status code.
    """

    def __init__(self, message, status):
        super().__init__(message)
        self.status = status


class JudgeAuthError(JudgeHTTPError):
    """401 or 403: the key is missing, wrong or not allowed this model."""


class JudgeNotFoundError(JudgeHTTPError):
    """404: wrong ``base_url`` (should end in ``/v1``) or unknown model."""


class JudgeRateLimitError(JudgeHTTPError):
    """429 on every try: the server kept asking us to slow down."""


class JudgeServerError(JudgeHTTPError):
    """5xx on every try: the server kept failing."""


class JudgeResponseError(JudgeError):
    """The reply is not a chat-completions reply (bad JSON, missing fields)."""


class CacheMissError(JudgeError):
    """A replay-only :class:`~ragmetrics_edu.judge.CachedJudge` has no reply for a prompt."""


class FunctionJudge:
    """A judge made from a plain callable ``fn(prompt) -> str``.

    Parameters
    ----------
    fn : callable
        Takes the prompt, returns the reply.
    name : str, optional
        The name used in cache keys and reprs; default the function's
        qualified name.

    Examples
    --------
    >>> j = FunctionJudge(lambda prompt: "Score: 3", name="always-3")
    >>> j.complete("Rate this.")
    'Score: 3'
    >>> j
    FunctionJudge(name='always-3')
    """

    def __init__(self, fn, name=None):
        if not callable(fn):
            raise TypeError(f"fn must be callable, got {fn!r}")
        self.fn = fn
        self.model = name or getattr(fn, "__qualname__", type(fn).__name__)
        self.parameters = {}

    def complete(self, prompt):
        reply = self.fn(prompt)
        if not isinstance(reply, str):
            raise JudgeResponseError(
                f"the judge function {self.model!r} must return a string, got {reply!r}"
            )
        return reply

    def __repr__(self):
        return f"FunctionJudge(name={self.model!r})"


def as_judge(judge):
    """Return ``judge`` if it has ``complete``, else wrap a callable in :class:`FunctionJudge`.

    Examples
    --------
    >>> as_judge(lambda p: "yes").complete("Relevant?")
    'yes'
    >>> as_judge(42)
    Traceback (most recent call last):
    ...
    TypeError: a judge must have a complete(prompt) method or be a callable, got 42
    """
    if callable(getattr(judge, "complete", None)):
        return judge
    if callable(judge):
        return FunctionJudge(judge)
    raise TypeError(
        f"a judge must have a complete(prompt) method or be a callable, got {judge!r}"
    )


def judge_identity(judge):
    """``(model, parameters)`` naming a judge in cache keys and signatures.

    ``model`` is the judge's ``model`` attribute (else its class name);
    ``parameters`` its ``parameters`` attribute (a dict, else empty). No key
    or secret is ever part of either.
    """
    model = getattr(judge, "model", None) or type(judge).__name__
    params = getattr(judge, "parameters", None) or {}
    return str(model), dict(params)
