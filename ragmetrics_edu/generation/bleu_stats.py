"""The statistics of BLEU: n-grams, clipped precision, brevity penalty (Papineni et al., 2002).

BLEU is computed in two steps, as sacrebleu does: the **statistics** of a
segment, here (:func:`segment_stats`: the candidate's length, the reference
length its brevity penalty uses, and for each order n the clipped matches
``c_n`` and the candidate's n-grams ``t_n``), then the **scoring**, a pure
function of those numbers (:mod:`ragmetrics_edu.generation.bleu_score`).
The pieces of notebook 04 are here: :func:`ngrams`,
:func:`modified_precision` (clipped counts), :func:`closest_reference_length`
and :func:`brevity_penalty`; and the input checks the n-gram metrics share
(ROUGE reads its candidate and references with them).
"""

import math
import numbers
from collections import Counter
from dataclasses import dataclass

import numpy as np

from .._deprecation import formerly_positional
from .._validation import check_choice, check_k, describe
from .text import (
    rouge_tokenize, rouge_tokenize_stemmed, tokenizer_name, whitespace_tokenize,
)

# our own tokenizers always return a list of strings: no need to check their output
_KNOWN_TOKENIZERS = (whitespace_tokenize, rouge_tokenize, rouge_tokenize_stemmed)

__all__ = [
    "ngrams",
    "modified_precision",
    "closest_reference_length",
    "brevity_penalty",
    "segment_stats",
    "PrecisionCounts",
    "REF_LENGTH_RULES",
]

REF_LENGTH_RULES = ("closest", "shortest")
"""How the reference length of the brevity penalty is picked among several references."""


# ---------------------------------------------------------------------------
# input checks
# ---------------------------------------------------------------------------

def _sequence(value, name, what, limit=None):
    """``value`` as a list or tuple (an array's ``tolist()``), else a TypeError.

    The message says ``name`` must be ``what`` and shows the first ``limit``
    characters of the value's repr (None: all of it).
    """
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{name} must be {what}, got {type(value).__name__}: {repr(value)[:limit]}")
    return value


_TRANSPOSED = (" (sacrebleu's layout is transposed: convert its reference streams with "
               "[list(r) for r in zip(*streams)])")


def check_corpus_layout(candidates, references, *, candidates_are, references_are, one,
                        per_candidate, types=(list, tuple), show=None, transposed=True):
    """Refuse a corpus that is not two lists, ``references`` one entry per candidate.

    Parameters
    ----------
    candidates, references : list
        The corpus; neither may be a string, and there is at least one candidate.
    candidates_are, references_are : str
        What each must be, in the message for one that is not a list.
    one : str
        What one candidate is called, in the message for an empty list (``"candidate"``).
    per_candidate : str
        What ``references`` holds for each candidate, in the message for a length
        that differs (``"one list of references"``).
    types : tuple of type, default (list, tuple)
        The containers accepted.
    show : callable or None, default None
        How a refused ``candidates`` is written; None: its repr, cut at 80 characters.
    transposed : bool, default True
        Whether the length message says how to turn sacrebleu's layout into this one.
    """
    if isinstance(candidates, str) or not isinstance(candidates, types):
        shown = f"{candidates!r:.80}" if show is None else show(candidates)
        raise TypeError(f"candidates must be {candidates_are}, got {type(candidates).__name__}: {shown}")
    if isinstance(references, str) or not isinstance(references, types):
        raise TypeError(f"references must be {references_are}, "
                        f"got {type(references).__name__}: {references!r:.80}")
    if len(candidates) == 0:
        raise ValueError(f"candidates must hold at least one {one}, got an empty list")
    if len(references) != len(candidates):
        raise ValueError(f"references must hold {per_candidate} per candidate: got {len(references)} "
                         f"for {len(candidates)} candidates{_TRANSPOSED if transposed else ''}")


def as_tokens(text, tokenizer, name):
    """Return ``text`` as a list of token strings (tokenizing a string)."""
    if isinstance(text, str):
        if tokenizer is None:
            return text.split()
        tokens = tokenizer(text)
        if tokenizer in _KNOWN_TOKENIZERS:
            return tokens
        if not isinstance(tokens, (list, tuple)) or not all(isinstance(t, str) for t in tokens):
            raise TypeError(
                f"tokenizer must return a list of strings, got {tokens!r} for {name}"
            )
        return list(tokens)
    text = _sequence(text, name, "a string or a list of token strings")
    for i, tok in enumerate(text):
        if not isinstance(tok, str):
            raise TypeError(
                f"{name} must be a string or a list of token strings, got a "
                f"{type(tok).__name__} at position {i}: {tok!r} (is it nested one level too deep?)"
            )
    return list(text)


def looks_like_tokens(items):
    """True for a list of two or more non-empty strings without whitespace."""
    return (
        len(items) >= 2
        and all(isinstance(x, str) and x for x in items)
        and not any(any(ch.isspace() for ch in x) for x in items)
    )


def _check_reference_shape(references, name, candidate_len):
    """Refuse one-word strings as references of a candidate of two or more tokens.

    The rule (module docstring): a list of two or more strings of at most
    one word each (not all empty) is read as several one-word references
    when the candidate has at most one token (short answers), and refused
    when it has two or more: it is then one tokenized reference that lost its
    enclosing list (the nltk pitfall), or a string split into characters.
    Scoring it as several one-word references would be silently wrong.
    """
    if candidate_len < 2 or len(references) < 2:
        return
    if not all(isinstance(r, str) and len(r.split()) <= 1 for r in references):
        return
    if not any(r.strip() for r in references):
        return  # only empty references: scored 0, with the reason
    shown = ", ".join(repr(r) for r in references[:4])
    shown = f"[{shown}{', ...' if len(references) > 4 else ''}]"
    if all(len(r) == 1 for r in references):
        head = f"{name} looks like a string split into characters: {shown}"
    else:
        head = (f"{name} looks like one tokenized reference, not {len(references)} "
                f"references: {shown}")
    raise ValueError(
        f"{head} ({len(references)} strings of at most one word for a candidate of "
        f"{candidate_len} tokens). A list of strings is read as several references; "
        f"pass one string, or [tokens] for one tokenized reference "
        f"([[w] for w in words] if you do mean several one-word references)."
    )


def reference_list(references, convert, name="references", candidate_len=0):
    """Return ``references`` as a non-empty list, each reference passed through ``convert``.

    Accepts one string, a list of strings (several references) or a list of
    token lists; see :func:`_check_reference_shape` for the shape refused
    (it depends on ``candidate_len``, the candidate's number of tokens).
    ``convert(reference, name)`` turns one reference into what the metric
    needs (a token list for BLEU and ROUGE-N, sentences for ROUGE-Lsum).
    """
    if isinstance(references, str):
        return [convert(references, name)]
    references = _sequence(references, name,
                           "a string, a list of strings or a list of token lists", limit=80)
    if len(references) == 0:
        raise ValueError(f"{name} must hold at least one reference, got an empty list")
    _check_reference_shape(references, name, candidate_len)
    return [convert(r, f"{name}[{i}]") for i, r in enumerate(references)]


def as_references(references, tokenizer, name="references", candidate_len=0):
    """Return ``references`` as a non-empty list of token lists (see :func:`reference_list`)."""
    return reference_list(references, lambda r, nm: as_tokens(r, tokenizer, nm),
                           name, candidate_len)


def tokenizer_label(tokenizer, texts):
    """The ``tok:`` part of a signature: how the texts became tokens.

    ``texts`` are the inputs as given (strings or token lists): the
    tokenizer's name when every one was a string, ``"pretokenized"`` when
    none was, ``"<name>+pretokenized"`` for a mix.
    """
    kinds = {isinstance(t, str) for t in texts}
    name = tokenizer_name(tokenizer)
    if False not in kinds:
        return name
    return "pretokenized" if True not in kinds else f"{name}+pretokenized"


def reference_items(references):
    """The references one by one, as given (one string is one reference)."""
    if isinstance(references, str):
        return [references]
    return references.tolist() if isinstance(references, np.ndarray) else list(references)


MAX_ORDER = 100
"""The largest ``max_n`` of BLEU: its orders are counted one by one, as chrF's are bounded."""


def check_max_n(max_n):
    max_n = check_k(max_n, name="max_n")
    if max_n > MAX_ORDER:
        raise ValueError(f"max_n must be at most {MAX_ORDER} (MAX_ORDER: BLEU uses 4 orders; "
                         f"each order is a pass over every text and a precision), got "
                         f"{describe(max_n)}")
    return max_n


def _check_length(x, name):
    if isinstance(x, bool) or not isinstance(x, numbers.Integral) or x < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {x!r}")
    return int(x)


# ---------------------------------------------------------------------------
# n-grams and clipped precision
# ---------------------------------------------------------------------------

def ngram_counter(tokens, n):
    """Counter of the n-grams (tuples) of a token list."""
    if n > len(tokens):
        return Counter()  # no n-gram; and no n slices for a huge n
    if n == 1:
        return Counter(zip(tokens))
    return Counter(zip(*[tokens[i:] for i in range(n)]))


def ngrams(tokens, n, *, tokenizer=None):
    """List the n-grams of ``tokens``, in order.

    A sequence of ``L`` tokens has ``max(0, L - n + 1)`` n-grams.

    Parameters
    ----------
    tokens : str or list of str
        The tokens (a string is split with ``tokenizer``).
    n : int
        The n-gram order, at least 1.
    tokenizer : callable, optional
        Splits a string into tokens; default :func:`~ragmetrics_edu.generation.text.whitespace_tokenize`.

    Returns
    -------
    list of tuple of str

    Examples
    --------
    >>> ngrams("thirty six years have I", 4)
    [('thirty', 'six', 'years', 'have'), ('six', 'years', 'have', 'I')]
    >>> len(ngrams("I have thirty six years", 2))   # 5 tokens, 4 bigrams
    4
    """
    n = check_k(n, name="n")
    tokens = as_tokens(tokens, tokenizer, "tokens")
    return [tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)]


@dataclass(frozen=True)
class PrecisionCounts:
    """A modified precision with its counts: ``precision = clipped / total``."""

    precision: float
    clipped: int
    total: int

    def __float__(self):
        return self.precision

    def __str__(self):
        return f"modified precision {self.clipped}/{self.total} = {self.precision:.4f}"


def _clipped_matches(cand_counts, ref_counters):
    """Sum over candidate n-grams of min(count, max count in one reference)."""
    matched = 0
    if len(ref_counters) == 1:
        ref = ref_counters[0]
        for gram, count in cand_counts.items():
            r = ref.get(gram)
            if r:
                matched += count if count < r else r
        return matched
    for gram, count in cand_counts.items():
        best = max(rc.get(gram, 0) for rc in ref_counters)
        matched += min(count, best)
    return matched


@formerly_positional("n")
def modified_precision(candidate, references, *, n, clip=True, tokenizer=None,
                       return_counts=False):
    """Modified (clipped) n-gram precision of BLEU.

    .. math::

        p_n = \\frac{\\sum_{g} \\min\\bigl(\\mathrm{count}_{cand}(g),\\;
              \\max_{r} \\mathrm{count}_{r}(g)\\bigr)}
              {\\sum_{g} \\mathrm{count}_{cand}(g)}

    where ``g`` runs over the n-grams of the candidate: each candidate
    n-gram counts at most as often as it occurs in the reference that has
    it most.  The denominator is the candidate's number of n-grams.

    Parameters
    ----------
    candidate : str or list of str
        The generated text.
    references : str, list of str, or list of list of str
        One reference or several.
    n : int
        The n-gram order, at least 1.
    clip : bool, default True
        ``False`` gives the plain (unclipped) precision, to show why BLEU
        clips.
    tokenizer : callable, optional
        Splits strings into tokens; default whitespace.
    return_counts : bool, default False
        Return a :class:`PrecisionCounts` ``(precision, clipped, total)``
        instead of the float.

    Returns
    -------
    float or PrecisionCounts
        0.0 when the candidate has no n-gram (fewer than ``n`` tokens); the
        counts then read 0/0.

    See Also
    --------
    bleu : combines the precisions of orders 1..N.

    Notes
    -----
    nltk's ``modified_precision`` returns the fraction 0/1 for a candidate
    with no n-gram; we return 0.0 with counts 0/0.

    Examples
    --------
    >>> ref = "I am thirty six years old"
    >>> round(modified_precision("I have thirty six years", ref, n=1), 4)   # 4 of 5
    0.8
    >>> modified_precision("six six six six six", ref, n=1, clip=False)      # 5 of 5
    1.0
    >>> modified_precision("six six six six six", ref, n=1)                  # clipped to 1
    0.2
    >>> modified_precision("thirty six years have I", ref, n=4, return_counts=True)
    PrecisionCounts(precision=0.0, clipped=0, total=2)
    """
    n = check_k(n, name="n")
    cand = as_tokens(candidate, tokenizer, "candidate")
    refs = as_references(references, tokenizer, candidate_len=len(cand))
    cand_counts = ngram_counter(cand, n)
    total = sum(cand_counts.values())
    if clip:
        matched = _clipped_matches(cand_counts, [ngram_counter(r, n) for r in refs])
    else:
        ref_grams = set().union(*(ngram_counter(r, n) for r in refs))
        matched = sum(c for g, c in cand_counts.items() if g in ref_grams)
    precision = matched / total if total else 0.0
    if return_counts:
        return PrecisionCounts(float(precision), int(matched), int(total))
    return float(precision)


# ---------------------------------------------------------------------------
# brevity penalty
# ---------------------------------------------------------------------------

def closest_reference_length(candidate_len, reference_lens, *, rule="closest"):
    """Pick the reference length ``r`` used by the brevity penalty.

    Parameters
    ----------
    candidate_len : int
        Number of candidate tokens.
    reference_lens : sequence of int
        Number of tokens of each reference.
    rule : {"closest", "shortest"}, default "closest"
        ``"closest"``: the length nearest to ``candidate_len``, ties going
        to the shorter reference (sacrebleu, nltk, mteval-v13a).
        ``"shortest"``: the shortest reference (older scripts).

    Returns
    -------
    int

    Examples
    --------
    >>> closest_reference_length(12, [13, 2])
    13
    >>> closest_reference_length(10, [8, 12])   # a tie goes to the shorter
    8
    >>> closest_reference_length(10, [8, 12], rule="shortest")
    8
    """
    check_choice(rule, REF_LENGTH_RULES, name="rule")
    c = _check_length(candidate_len, "candidate_len")
    return _pick_reference_length(c, _check_lengths(reference_lens, "reference_lens"), rule)


def _check_lengths(values, name):
    """A non-empty list of non-negative integers, named ``name`` in errors."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(f"{name} must be a sequence of integers, got {values!r}")
    lens = [_check_length(x, f"{name}[{i}]") for i, x in enumerate(values)]
    if not lens:
        raise ValueError(f"{name} must hold at least one length, got an empty list")
    return lens


def _pick_reference_length(candidate_len, lens, rule):
    if rule == "shortest":
        return min(lens)
    return min(lens, key=lambda r: (abs(r - candidate_len), r))


def brevity_penalty(candidate_len, reference_len, *, ref_length="closest"):
    """Brevity penalty of BLEU.

    .. math::

        \\mathrm{BP} = \\begin{cases} 1 & c \\ge r \\\\
                       e^{\\,1 - r / c} & 0 < c < r \\\\
                       0 & c = 0 < r \\end{cases}

    with ``c`` the candidate length and ``r`` the reference length.

    Parameters
    ----------
    candidate_len : int
        ``c``, number of candidate tokens (summed over the corpus for
        corpus BLEU).
    reference_len : int or sequence of int
        ``r`` itself, or the lengths of several references, from which ``r``
        is picked by ``ref_length``.
    ref_length : {"closest", "shortest"}, default "closest"
        How to pick ``r`` from several lengths; see
        :func:`closest_reference_length`.

    Returns
    -------
    float

    Notes
    -----
    With ``c = r = 0`` we return 1 (the candidate is not shorter), as
    sacrebleu does; nltk returns 0.  BLEU of an empty candidate is 0 either
    way.

    Examples
    --------
    >>> round(brevity_penalty(5, 6), 4)          # exp(1 - 6/5)
    0.8187
    >>> brevity_penalty(7, 6)
    1.0
    >>> round(brevity_penalty(12, [13, 2]), 4)   # r = 13, the closest
    0.92
    """
    check_choice(ref_length, REF_LENGTH_RULES, name="ref_length")
    c = _check_length(candidate_len, "candidate_len")
    if isinstance(reference_len, numbers.Integral) and not isinstance(reference_len, bool):
        r = _check_length(reference_len, "reference_len")
    else:
        if isinstance(reference_len, (str, bytes)) or not hasattr(reference_len, "__iter__"):
            raise TypeError(
                f"reference_len must be an integer or a sequence of integers, got {reference_len!r}"
            )
        r = _pick_reference_length(c, _check_lengths(reference_len, "reference_len"), ref_length)
    return brevity_factor(c, r)


def brevity_factor(c, r):
    if c >= r:
        return 1.0
    if c == 0:
        return 0.0
    return math.exp(1.0 - r / c)


# ---------------------------------------------------------------------------
# statistics
# ---------------------------------------------------------------------------

def segment_ngram_stats(cand, refs, max_n, ref_length, count_empty_orders):
    """The statistics of one segment as a Python list (the core of segment_stats)."""
    cand_len = len(cand)
    if len(refs) == 1:
        ref_len = len(refs[0])
    else:
        ref_len = _pick_reference_length(cand_len, [len(r) for r in refs], ref_length)
    counts = [0] * max_n
    totals = [0] * max_n
    for n in range(1, min(max_n, cand_len) + 1):
        cand_counts = ngram_counter(cand, n)
        counts[n - 1] = _clipped_matches(cand_counts, [ngram_counter(r, n) for r in refs])
        totals[n - 1] = cand_len - n + 1
    if count_empty_orders:
        totals = [t if t else 1 for t in totals]
    return [cand_len, ref_len] + counts + totals


@formerly_positional("max_n")
def segment_stats(candidate, references, *, max_n=4, tokenizer=None,
                  ref_length="closest", count_empty_orders=False):
    """BLEU's sufficient statistics of one segment, as an integer array.

    Parameters
    ----------
    candidate : str or list of str
        The generated text.
    references : str, list of str, or list of list of str
        One reference or several.
    max_n : int, default 4
        Highest n-gram order.
    tokenizer : callable, optional
        Splits strings into tokens; default whitespace.
    ref_length : {"closest", "shortest"}, default "closest"
        The reference length rule of the brevity penalty.
    count_empty_orders : bool, default False
        Count an order for which the candidate has no n-gram as 0 matches
        out of 1 (nltk) instead of 0 out of 0 (sacrebleu).

    Returns
    -------
    numpy.ndarray of int64, shape (2 + 2 * max_n,)
        ``[candidate_len, reference_len, c_1, ..., c_N, t_1, ..., t_N]``:
        clipped matches ``c_n`` and candidate n-grams ``t_n`` per order.
        Arrays of several segments add up to the corpus statistics.

    See Also
    --------
    score_from_stats : turns the array into a score.

    Examples
    --------
    >>> segment_stats("thirty six years have I", "I am thirty six years old").tolist()
    [5, 6, 4, 2, 1, 0, 5, 4, 3, 2]
    """
    max_n = check_max_n(max_n)
    check_choice(ref_length, REF_LENGTH_RULES, name="ref_length")
    cand = as_tokens(candidate, tokenizer, "candidate")
    refs = as_references(references, tokenizer, candidate_len=len(cand))
    return np.asarray(
        segment_ngram_stats(cand, refs, max_n, ref_length, count_empty_orders), dtype=np.int64
    )
