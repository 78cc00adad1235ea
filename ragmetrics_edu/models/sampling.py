"""Turning the language model's logits into tokens: top-p, sampling, stop sequences.

The results of :meth:`~ragmetrics_edu.models.decoder.LanguageModel.generate`
(:class:`Generation`) and of a distribution over allowed continuations
(:class:`ContinuationDistribution`) are defined here too.
"""

from dataclasses import dataclass, field

import numpy as np

from .._deprecation import formerly_positional, renamed_arguments
from .._validation import check_real, check_top_p, describe, rng_from, shorten
from .chat import check_text_for_model

def softmax(x, axis=-1):
    r"""Probabilities from scores: :math:`\mathrm{softmax}(x)_i = e^{x_i - \max x} / \sum_j e^{x_j - \max x}`.

    Subtracting the maximum changes nothing but keeps ``exp`` from overflowing.

    Parameters
    ----------
    x : array_like of float
        The scores (logits); ``-inf`` is a probability of 0.
    axis : int, default -1
        The axis along which the probabilities add up to 1.

    Returns
    -------
    numpy.ndarray
        The shape of ``x``; ``x`` itself is left unchanged.

    Examples
    --------
    >>> softmax(np.array([0.0, np.log(3.0)])).round(4).tolist()
    [0.25, 0.75]
    """
    x, top = _scores_and_largest(x, axis)
    with np.errstate(over="ignore"):     # -1.7e308 - 1.7e308 = -inf: probability 0
        out = x - top
    np.exp(out, out=out)
    out /= out.sum(axis=axis, keepdims=True)
    return out


@formerly_positional("what", "ok")
def check_number(value, name, *, what, ok):
    """``value`` as a float if it is a real number (not a bool) for which ``ok`` holds, or an
    error naming ``name`` and saying ``what`` it must be (``10**400`` too, not a bare
    OverflowError). For the scalars of the decoder's blocks (``eps``, ``theta``).

    Parameters
    ----------
    value : real number
    name : str
        The argument's name.
    what : str
        What it must be, in words ("a finite number of at least 0").
    ok : callable
        ``ok(float(value))`` is true for a valid value.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be {what}, got {describe(value)}")
    value = check_real(value, name=name)
    if not ok(value):
        raise ValueError(f"{name} must be {what}, got {describe(value)}")
    return value


def _scores_and_largest(x, axis):
    """``x`` as an array of floats (integers converted) and its largest along ``axis``, or an
    error naming ``x``: empty, not numbers, or a largest that is not finite (inf or NaN, whose
    softmax would be NaN). Only the maxima are checked: one pass over ``x``, as before."""
    x = _real_array(x, "softmax: x")
    if x.ndim == 0 or x.size == 0:
        raise ValueError(f"softmax: x must be a non-empty array of real numbers, got "
                         f"{describe(x)}")
    top = x.max(axis=axis, keepdims=True)
    if not np.isfinite(top).all():
        raise ValueError("softmax: x must have a finite largest score in every row (an inf "
                         "or NaN makes every probability NaN), got largest "
                         f"{describe(top.ravel()[~np.isfinite(top.ravel())][0])}")
    return x, top


def _real_array(x, name):
    """``x`` as a float array (integers converted), or a TypeError naming ``name``: not
    numbers, or a ragged list NumPy cannot make an array of."""
    try:
        x = np.asarray(x)
    except ValueError:   # a ragged list
        raise TypeError(f"{name} must be an array of real numbers, got a ragged sequence "
                        f"{describe(x)}") from None
    if x.dtype.kind in "biu":
        x = x.astype(np.float64)
    if x.dtype.kind != "f":
        raise TypeError(f"{name} must be an array of real numbers, got {describe(x)}")
    return x


def top_p_filter(probs, top_p):
    r"""Nucleus sampling's cut (Holtzman et al. 2020): keep the most likely tokens
    whose probabilities add up to ``top_p``, renormalised.

    The kept set is the smallest prefix of the tokens sorted by probability
    (ties by id) whose mass reaches ``top_p``; the first token is always kept.

    .. math:: p'_t = \frac{p_t\, [t \in S]}{\sum_{u \in S} p_u}

    Parameters
    ----------
    probs : numpy.ndarray
        ``(V,)``: the probabilities of the tokens, or of the allowed
        continuations (weights that do not add up to 1: ``top_p`` is then a
        share of their sum).
    top_p : float
        In (0, 1], as :meth:`LanguageModel.generate` checks it.

    Returns
    -------
    numpy.ndarray
        ``(V,)``: 0 outside the kept set, adding up to 1.

    Examples
    --------
    >>> top_p_filter(np.array([0.5, 0.3, 0.2]), 0.7).round(4).tolist()
    [0.625, 0.375, 0.0]
    """
    top_p = check_top_p(top_p)
    probs = _real_array(probs, "probs")
    if probs.ndim != 1 or probs.size == 0 or not np.all(np.isfinite(probs)) \
            or np.any(probs < 0) or not np.any(probs):
        raise ValueError(f"probs must be a non-empty 1-D array of finite, non-negative "
                         f"weights, not all 0, got {describe(probs)}")
    with np.errstate(over="ignore"):
        if not np.isfinite(probs.sum()):  # weights of 1e308: their sum overflows
            probs = probs / probs.max()
    order = np.argsort(-probs, kind="stable")
    mass = np.cumsum(probs[order])
    keep = int(np.searchsorted(mass, top_p * mass[-1] * (1 - 1e-12))) + 1   # reaches top_p
    out = np.zeros_like(probs)
    out[order[:keep]] = probs[order[:keep]]
    out /= out.sum()
    return out



@dataclass
class Generation:
    """What :meth:`LanguageModel.generate` wrote, and why it stopped.

    Attributes
    ----------
    text : str
        The generated text (without the stop sequence that ended it).
    ids : list of int
        The generated tokens (a stop sequence's included, the end token not).
    stop_reason : str
        ``"end"`` (the model's end token), ``"stop"`` (a stop sequence) or
        ``"length"`` (``max_new_tokens`` reached).
    prompt_tokens : int
        The length of the prompt in tokens.
    """

    text: str
    ids: list
    stop_reason: str
    prompt_tokens: int

    def __str__(self):
        return self.text


@dataclass
class ContinuationDistribution:
    """The probabilities of a fixed set of continuations after a prompt.

    Attributes
    ----------
    continuations : list of str
    probabilities : numpy.ndarray
        Renormalised over the continuations (they add up to 1).
    mass : float
        The probability the model gives to all of them together, before
        renormalising: near 1 when the model "wanted" to write one of them.
    log_probabilities : numpy.ndarray
        Each continuation's own log probability (sum over its tokens).
    """

    continuations: list
    probabilities: np.ndarray
    mass: float
    log_probabilities: np.ndarray = field(repr=False)

    def as_dict(self):
        return {c: float(p) for c, p in zip(self.continuations, self.probabilities)}

    def most_likely(self):
        return self.continuations[int(np.argmax(self.probabilities))]

    def __str__(self):
        return distribution_text(self.continuations, self.probabilities, mass=self.mass)


@formerly_positional("mass")
def distribution_text(labels, probabilities, *, mass):
    """One line of a distribution over a few labels, and the mass they had before renormalising.

    Parameters
    ----------
    labels : list
        The labels (continuations), each shown with its ``repr``.
    probabilities : sequence of float
        One per label, shown with 4 decimals.
    mass : float
        Their probability together before renormalising.

    Examples
    --------
    >>> distribution_text(["yes", "no"], [0.75, 0.25], mass=0.9)
    "'yes' 0.7500, 'no' 0.2500 (mass 0.9000 before renormalising)"
    """
    shown = ", ".join(f"{label!r} {float(p):.4f}" for label, p in zip(labels, probabilities))
    return f"{shown} (mass {mass:.4f} before renormalising)"



def log_softmax(logits, temperature):
    """Log-probabilities of the softmax of ``logits / temperature``.

    The largest logit is subtracted *before* dividing, so that no quotient
    overflows however small the temperature (down to ``MIN_TEMPERATURE``).

    Parameters
    ----------
    logits : numpy.ndarray
        ``(V,)``: one position's next-token logits.
    temperature : float
        Above 0 (callers check it: at least ``MIN_TEMPERATURE``).

    Returns
    -------
    numpy.ndarray
        ``(V,)`` float64 log-probabilities.

    Examples
    --------
    >>> np.exp(log_softmax(np.array([0.0, np.log(3.0)]), 1.0)).round(4).tolist()
    [0.25, 0.75]
    """
    z = logits.astype(np.float64)
    z = (z - z.max()) / temperature
    return z - np.log(np.exp(z).sum())


@renamed_arguments(rng="seed")
@formerly_positional("top_p", "seed")
def pick_token(logits, temperature, *, top_p, seed):
    """The next token: the argmax, or a draw from the (top-p cut) softmax.

    Parameters
    ----------
    logits : numpy.ndarray
        ``(V,)``: the next-token logits.
    temperature : float
        0 takes the argmax (ties to the lowest id); above 0 draws from the
        softmax of ``logits / temperature``.
    top_p : float
        In (0, 1]: below 1, the draw is from :func:`top_p_filter`'s cut.
    seed : int, None or numpy.random.Generator
        The source of the draw (unused when ``temperature`` is 0): a
        Generator is drawn from as it is (``generate`` passes one for the
        whole text), an int or None starts one (``rng`` before 0.3.0).

    Returns
    -------
    int
    """
    if temperature == 0:
        return int(np.argmax(logits))
    z = logits.astype(np.float64)
    probs = softmax((z - z.max()) / temperature)  # subtracted before dividing: no overflow
    if top_p < 1:
        probs = top_p_filter(probs, top_p)
    return int(rng_from(seed).choice(probs.size, p=probs))


def first_stop(text, stop):
    """Where in ``text`` the earliest of the stop sequences begins, or None if none occurs.

    Parameters
    ----------
    text : str
        The text written so far.
    stop : list of str
        The stop sequences (:func:`check_stop`).

    Returns
    -------
    int or None
        The smallest index at which one of them begins.

    Examples
    --------
    >>> first_stop("Yes. No.", [".", "No"])     # "." at 3 comes before "No" at 5
    3
    """
    found = [i for i in (text.find(s) for s in stop) if i >= 0]
    return min(found) if found else None


def check_stop(stop):
    """``stop`` as a list of non-empty strings (one string is a list of one), or raise."""
    if stop is None:
        return []
    if isinstance(stop, str):
        stop = [stop]
    if not isinstance(stop, (list, tuple)):
        raise TypeError(f"stop must be a string or a list of strings, got {describe(stop)}")
    stop = list(stop)
    for s in stop:
        if not isinstance(s, str) or not s:
            raise ValueError(f"stop must hold non-empty strings, got {describe(s)}")
    return stop


@formerly_positional("decode")
def check_continuations(allowed, encode, *, decode):
    """The token ids of each allowed continuation, checked: a list of non-empty strings
    the tokenizer (``encode``, ``decode``) writes back as they are, none the beginning of
    another (their probabilities would overlap).

    Parameters
    ----------
    allowed : list or tuple of str
        The continuations, at least one (a string alone is refused).
    encode : callable
        Text to a list of token ids (:meth:`LanguageModel.encode`).
    decode : callable
        Token ids to text (:meth:`LanguageModel.decode`).

    Returns
    -------
    list of list of int
        Each continuation's token ids, in the order of ``allowed``.

    Raises
    ------
    TypeError
        ``allowed`` is not a list or tuple.
    ValueError
        ``allowed`` is empty, or one of its continuations breaks a rule
        above or holds a lone surrogate (the message names it).
    """
    if isinstance(allowed, str) or not isinstance(allowed, (list, tuple)):
        raise TypeError(f"allowed must be a list of strings, got "
                        f"{describe(allowed)}")
    if len(allowed) < 1:
        raise ValueError("allowed must hold at least one continuation, got []")
    encoded = []
    for i, c in enumerate(allowed):
        if not isinstance(c, str) or not c:
            raise ValueError(f"allowed holds {describe(c)}: the tokenizer cannot produce an "
                             f"empty or non-string continuation")
        check_text_for_model(c, f"allowed[{i}]")
        ids = encode(c)
        if decode(ids) != c:
            raise ValueError(f"allowed holds {shorten(c, 80)}, which the tokenizer cannot "
                             f"produce (its tokens decode to {shorten(decode(ids))})")
        encoded.append(ids)
    for i, a in enumerate(encoded):
        for j, b in enumerate(encoded):
            if i != j and b[:len(a)] == a:
                why = "twice" if a == b else f"as a prefix of {allowed[j]!r}"
                raise ValueError(
                    f"allowed holds {allowed[i]!r} {why}: their probabilities would "
                    f"overlap; give continuations none of which begins another")
    return encoded
