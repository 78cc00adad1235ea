"""chrF and chrF++: the F-score of character (and word) n-grams (Popović).

Higher is better; scores are in [0, 1] (sacrebleu prints 100 times them).

chrF compares a candidate (the text under evaluation; sacrebleu calls it the
hypothesis) with a reference through their **character**
n-grams of orders 1 to ``char_order`` (6 by default); chrF++ adds the
**word** unigrams and bigrams (``word_order=2``).  Because it works below
the word, it gives partial credit for a word with the right stem and a
wrong ending, which BLEU does not.

For each order :math:`n` (the character orders, then the word orders),
with :math:`m_n` the matched n-grams (clipped counts: an n-gram matches
at most as often as it occurs in the reference), :math:`h_n` the n-grams
of the candidate and :math:`r_n` those of the reference:

.. math::

    P_n = \\frac{m_n}{h_n}, \\qquad R_n = \\frac{m_n}{r_n}.

The precisions and recalls are **averaged over the orders first**, and one
F-score is taken of the averages:

.. math::

    P = \\frac{1}{|E|} \\sum_{n \\in E} P_n, \\quad
    R = \\frac{1}{|E|} \\sum_{n \\in E} R_n, \\quad
    \\mathrm{chrF}_\\beta = \\frac{(1 + \\beta^2)\\, P R}{\\beta^2 P + R},

where :math:`E` is the set of **effective orders**: those for which both
the candidate and the reference have at least one n-gram (a 3-character
candidate has no 4-gram).  :math:`\\beta = 2` makes recall twice as
important as precision in van Rijsbergen's sense, which in the formula is a
weight of :math:`\\beta^2 = 4` on recall.  The score is 0 when :math:`E` is
empty or nothing matches.

Statistics apart from scoring (as :mod:`ragmetrics_edu.generation.bleu_score`): a
segment's statistics are an integer array of ``3 * (char_order +
word_order)`` numbers, ``[h_1, r_1, m_1, h_2, r_2, m_2, ...]``
(:func:`segment_stats`); corpus chrF (:func:`chrf`) **sums** the arrays of
all segments and scores the sum once with the pure function
:func:`score_from_stats`, which is not the mean of the sentence scores.

The rules of sacrebleu's ``CHRF``, which we equal (each a keyword here):

* **whitespace** (``whitespace=False``): every whitespace character is
  removed before the character n-grams are taken (``"".join(text.split())``),
  so character n-grams run across word boundaries ("a cat" gives the
  bigrams ``ac`` and ``ca``...).  ``whitespace=True`` keeps the text as it
  is, spaces included.
* **words of chrF++**: the text is split on whitespace, and one
  punctuation character (``string.punctuation``) is split off the end of a
  word, or, when the end is not punctuation, off its start: ``"end."``
  gives ``end`` and ``.``, ``"(hi)"`` gives ``(hi`` and ``)``; a
  one-character word stays whole.
* **case** (``lowercase=False``): case is kept; ``lowercase=True`` lowers
  both texts first.
* **an order missing from the reference**: when the reference has no
  n-gram of order n, the candidate's n-grams of that order are not counted
  either (``h_n`` is stored as 0 in the statistics).
* **smoothing** (``eps_smoothing=False``): the effective orders above
  (sacrebleu's default).  ``eps_smoothing=True`` is the rule of Popović's
  ``chrF++.py``, Moses and nltk as sacrebleu implements it: one F-score per
  order, with precision and recall replaced by :math:`\\varepsilon =
  10^{-16}` where their denominator is 0 (and the F-score by
  :math:`\\varepsilon` when :math:`P_n = R_n = 0`), averaged over **all**
  orders.
* **several references**: each segment keeps the statistics of its best
  reference, the one with the highest sentence chrF (the first one on
  ties); corpus chrF sums these.

References
----------
.. [1] M. Popović, "chrF: character n-gram F-score for automatic MT
   evaluation", WMT 2015.
.. [2] M. Popović, "chrF++: words helping character n-grams", WMT 2017.
.. [3] M. Post, "A call for clarity in reporting BLEU scores", WMT 2018
   (sacrebleu).
"""

import numbers
import string
from collections import Counter
from dataclasses import dataclass

import numpy as np

from .._deprecation import formerly_positional, renamed_arguments
from .._texts import check_references, check_text
from .._validation import describe
from .bleu_stats import check_corpus_layout

__all__ = [
    "char_ngrams",
    "chrf_words",
    "word_ngrams",
    "segment_stats",
    "corpus_stats",
    "score_from_stats",
    "sentence_chrf",
    "chrf",
    "CHRFResult",
]

_PUNCTUATION = frozenset(string.punctuation)
_EPS = 1e-16
# sacrebleu picks the best reference on its 0-100 scale; we compare the same
# numbers so that ties, and scores one rounding step apart, break the same way
_SACREBLEU_SCALE = 100.0


# ---------------------------------------------------------------------------
# results
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class CHRFResult:
    """A chrF score with everything that produced it.

    Attributes
    ----------
    score : float
        chrF (or chrF++), in [0, 1].
    stats : tuple of int
        The statistics that were scored, ``[h_1, r_1, m_1, ...]`` for the
        character orders then the word orders (summed over segments for a
        corpus).
    char_order, word_order : int
    beta : float
    lowercase, whitespace, eps_smoothing : bool
    n_segments : int
    """

    score: float
    stats: tuple
    char_order: int
    word_order: int
    beta: float
    lowercase: bool = False
    whitespace: bool = False
    eps_smoothing: bool = False
    n_segments: int = 1

    @property
    def name(self):
        """``"chrF2"`` for chrF with beta 2, ``"chrF2++"`` with two word orders."""
        return f"chrF{self.beta:g}" + "+" * self.word_order

    @property
    def signature(self):
        """One line saying what produced the score (sacrebleu's fields).

        ``nc:`` character orders, ``nw:`` word orders, ``beta:``,
        ``case:`` (``mixed`` or ``lc``), ``space:`` whitespace kept
        (``yes``/``no``), ``eff:`` effective orders (``yes``) or
        epsilon smoothing (``no``).
        """
        return (
            f"nc:{self.char_order}|nw:{self.word_order}|beta:{self.beta:g}"
            f"|case:{'lc' if self.lowercase else 'mixed'}"
            f"|space:{'yes' if self.whitespace else 'no'}"
            f"|eff:{'no' if self.eps_smoothing else 'yes'}"
        )

    @property
    def precisions(self):
        """``m_n / h_n`` per order (0 where ``h_n = 0``)."""
        s = np.asarray(self.stats).reshape(-1, 3)
        return tuple(float(m / h) if h else 0.0 for h, _, m in s)

    @property
    def recalls(self):
        """``m_n / r_n`` per order (0 where ``r_n = 0``)."""
        s = np.asarray(self.stats).reshape(-1, 3)
        return tuple(float(m / r) if r else 0.0 for _, r, m in s)

    def __float__(self):
        return self.score

    def __str__(self):
        return f"{self.name} = {self.score:.4f} {self.signature}"


# ---------------------------------------------------------------------------
# input checks
# ---------------------------------------------------------------------------

def _check_int(value, name, minimum):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


MAX_ORDER = 100
"""The largest ``char_order`` and ``word_order``: chrF uses 6 and 2, and each
order is one more pass over every text (``char_order=10**6`` ran for minutes)."""

MAX_BETA = 1e100
"""The largest ``beta``: its square must be a float (``1e200 ** 2`` is not); long
before this bound chrF equals the recall to every digit."""


def _check_options(char_order, word_order, beta):
    char_order = _check_int(char_order, "char_order", 1)
    word_order = _check_int(word_order, "word_order", 0)
    for name, value in (("char_order", char_order), ("word_order", word_order)):
        if value > MAX_ORDER:
            raise ValueError(
                f"{name} must be at most {MAX_ORDER} (chrF uses 6 character orders and "
                f"chrF++ 2 word orders; each order is a pass over every text), got "
                f"{describe(value)}")
    if isinstance(beta, bool) or not isinstance(beta, numbers.Real):
        raise TypeError(f"beta must be a positive number, got {beta!r}")
    if not beta > 0:
        raise ValueError(f"beta must be a positive finite number, got {beta!r}")
    if beta > MAX_BETA:  # (also inf; compared before any conversion of a huge integer)
        raise ValueError(
            f"beta must be at most {MAX_BETA:g} (its square weighs recall against "
            f"precision and must be a float; chrF is already the recall long before), "
            f"got {describe(beta)}")
    return char_order, word_order, beta


def _check_corpus(candidates, references):
    check_corpus_layout(candidates, references, candidates_are="a list of strings",
                        references_are="a list with the references of each candidate",
                        one="candidate", per_candidate="one entry (a string or a list of strings)",
                        show=describe)
    for i, hyp in enumerate(candidates):
        check_text(hyp, name=f"candidates[{i}]")
    return list(candidates), [check_references(r, name=f"references[{i}]")
                              for i, r in enumerate(references)]


# ---------------------------------------------------------------------------
# n-grams (the readable reference)
# ---------------------------------------------------------------------------

def char_ngrams(text, n, *, whitespace=False):
    """Count the character n-grams of ``text``.

    Parameters
    ----------
    text : str
    n : int
        The order.
    whitespace : bool, default False
        Keep whitespace; by default every whitespace character is removed
        first, as chrF does.

    Returns
    -------
    collections.Counter
        n-gram (a string of ``n`` characters) -> count.

    Examples
    --------
    >>> sorted(char_ngrams("a cat", 2).items())     # "acat": no space
    [('ac', 1), ('at', 1), ('ca', 1)]
    >>> sorted(char_ngrams("a cat", 2, whitespace=True).items())
    [(' c', 1), ('a ', 1), ('at', 1), ('ca', 1)]
    """
    if not whitespace:
        text = "".join(text.split())
    return Counter(text[i:i + n] for i in range(len(text) - n + 1))


def chrf_words(text):
    """Split ``text`` into the words of chrF++.

    Whitespace separates words; one punctuation character is then split
    off the end of a word of two or more characters, or, if its end is not
    punctuation, off its start.

    Parameters
    ----------
    text : str

    Returns
    -------
    list of str

    Examples
    --------
    >>> chrf_words("Hello, (world) . 'quoted'")
    ['Hello', ',', '(world', ')', '.', "'quoted", "'"]
    """
    words = []
    for w in text.split():
        if len(w) > 1 and w[-1] in _PUNCTUATION:
            words += [w[:-1], w[-1]]
        elif len(w) > 1 and w[0] in _PUNCTUATION:
            words += [w[0], w[1:]]
        else:
            words.append(w)
    return words


def word_ngrams(words, n):
    """Count the word n-grams (tuples of ``n`` words) of a list of words.

    Parameters
    ----------
    words : list of str
        The words, in order.
    n : int
        The n-gram order (a list shorter than ``n`` has none).

    Examples
    --------
    >>> word_ngrams(["the", "cat", "the", "cat"], 2)
    Counter({('the', 'cat'): 2, ('cat', 'the'): 1})
    """
    return Counter(tuple(words[i:i + n]) for i in range(len(words) - n + 1))


def _all_ngrams(text, char_order, word_order, whitespace):
    """The n-gram counters of one text: character orders, then word orders."""
    counters = [char_ngrams(text, n, whitespace=whitespace) for n in range(1, char_order + 1)]
    if word_order:
        words = chrf_words(text)
        counters += [word_ngrams(words, n) for n in range(1, word_order + 1)]
    return counters


def _match_stats(hyp_counters, ref_counters):
    """``[h_1, r_1, m_1, ...]`` of one candidate against one reference."""
    stats = []
    for hyp, ref in zip(hyp_counters, ref_counters):
        matches = sum(min(count, ref[ng]) for ng, count in hyp.items() if ng in ref)
        ref_total = sum(ref.values())
        # an order the reference lacks counts no candidate n-gram either
        hyp_total = sum(hyp.values()) if ref_total else 0
        stats += [hyp_total, ref_total, matches]
    return stats


# ---------------------------------------------------------------------------
# scoring
# ---------------------------------------------------------------------------

def _scores(stats, n_orders, beta, eps_smoothing, scale=1.0):
    """chrF of each row of ``stats`` (shape ``(rows, 3 * n_orders)``), times ``scale``.

    Written once for arrays, so that :func:`score_from_stats` and the choice
    of the best reference do the same floating-point operations in the same
    order as sacrebleu (scale 100 gives its numbers bit for bit).
    """
    stats = np.asarray(stats, dtype=np.float64).reshape(-1, n_orders, 3)
    factor = beta ** 2
    rows = stats.shape[0]
    f_sum = np.zeros(rows)                 # eps smoothing: F per order, summed
    p_sum, r_sum = np.zeros(rows), np.zeros(rows)
    effective = np.zeros(rows)
    with np.errstate(divide="ignore", invalid="ignore"):
        for n in range(n_orders):
            h, r, m = stats[:, n, 0], stats[:, n, 1], stats[:, n, 2]
            prec = np.where(h > 0, m / h, _EPS)
            rec = np.where(r > 0, m / r, _EPS)
            denom = factor * prec + rec
            f_sum = f_sum + np.where(denom > 0, (1 + factor) * prec * rec / denom, _EPS)
            used = (h > 0) & (r > 0)
            p_sum = p_sum + np.where(used, prec, 0.0)
            r_sum = r_sum + np.where(used, rec, 0.0)
            effective = effective + used
        if eps_smoothing:
            return scale * f_sum / n_orders
        p_avg = np.where(effective > 0, p_sum / effective, 0.0)
        r_avg = np.where(effective > 0, r_sum / effective, 0.0)
        f = (1 + factor) * p_avg * r_avg / (factor * p_avg + r_avg)
        return np.where(p_avg + r_avg > 0, scale * f, 0.0)


def score_from_stats(stats, *, char_order=6, word_order=0, beta=2, eps_smoothing=False):
    """chrF from statistics: a pure function of ``[h_1, r_1, m_1, ...]``.

    .. math::

        \\mathrm{chrF}_\\beta = \\frac{(1 + \\beta^2) P R}{\\beta^2 P + R},
        \\quad P = \\operatorname{mean}_{n \\in E} \\frac{m_n}{h_n},
        \\quad R = \\operatorname{mean}_{n \\in E} \\frac{m_n}{r_n}

    over the effective orders :math:`E` (``h_n > 0`` and ``r_n > 0``).

    Parameters
    ----------
    stats : sequence of int
        ``3 * (char_order + word_order)`` numbers: candidate n-grams,
        reference n-grams and matches of each order, the character orders
        first (one segment's, or a corpus' sums).
    char_order, word_order : int
    beta : float, default 2
    eps_smoothing : bool, default False
        Average one F-score per order over all orders, with epsilon for
        0/0 (module docstring), instead of the effective orders.

    Returns
    -------
    float
        In [0, 1].

    See Also
    --------
    segment_stats, chrf

    Examples
    --------
    >>> # one order: P = 2/4, R = 2/2, F2 = 5 * 0.5 * 1 / (4 * 0.5 + 1) = 5/6
    >>> round(score_from_stats([4, 2, 2], char_order=1), 4)
    0.8333
    >>> # two orders: the second has no reference n-gram and is left out
    >>> round(score_from_stats([4, 2, 2, 0, 0, 0], char_order=2), 4)
    0.8333
    """
    char_order, word_order, beta = _check_options(char_order, word_order, beta)
    n_orders = char_order + word_order
    stats = np.asarray(stats)
    if stats.shape != (3 * n_orders,):
        raise ValueError(
            f"stats must hold 3 * (char_order + word_order) = {3 * n_orders} numbers, "
            f"got shape {stats.shape}"
        )
    return float(_scores(stats, n_orders, beta, eps_smoothing)[0])


@renamed_arguments(hypothesis="candidate")
def segment_stats(candidate, references, *, char_order=6, word_order=0, beta=2,
                  lowercase=False, whitespace=False, eps_smoothing=False):
    """The statistics of one segment, against its best reference.

    Parameters
    ----------
    candidate : str
    references : str or list of str
        One reference or several: the statistics are those of the
        reference with the highest sentence chrF (the first on ties).
    char_order, word_order, beta, lowercase, whitespace, eps_smoothing
        As in :func:`chrf` (``beta`` and ``eps_smoothing`` choose the best
        reference).

    Returns
    -------
    numpy.ndarray of int64
        ``[h_1, r_1, m_1, h_2, r_2, m_2, ...]``: character orders 1 to
        ``char_order``, then word orders 1 to ``word_order``.

    See Also
    --------
    score_from_stats, corpus_stats

    Examples
    --------
    >>> # "cat" vs "cut": unigrams c, a, t vs c, u, t (2 match); bigrams ca, at vs cu, ut
    >>> segment_stats("cat", "cut", char_order=2).tolist()
    [3, 3, 2, 2, 2, 0]
    """
    char_order, word_order, beta = _check_options(char_order, word_order, beta)
    check_text(candidate, name="candidate")
    refs = check_references(references, name="references")
    if lowercase:
        candidate, refs = candidate.lower(), [r.lower() for r in refs]
    hyp_counters = _all_ngrams(candidate, char_order, word_order, whitespace)
    candidates = np.array([_match_stats(hyp_counters, _all_ngrams(r, char_order, word_order,
                                                                   whitespace))
                           for r in refs], dtype=np.int64)
    n_orders = char_order + word_order
    scores = _scores(candidates, n_orders, beta, eps_smoothing, scale=_SACREBLEU_SCALE)
    return candidates[int(np.argmax(scores))]       # argmax: the first best


# ---------------------------------------------------------------------------
# the fast corpus path: every segment at once with NumPy
# ---------------------------------------------------------------------------

def _units(texts, words):
    """Concatenate texts into one integer array of characters (or words) and lengths."""
    if words:
        vocab = {}
        lists = [chrf_words(t) for t in texts]
        codes = np.array([vocab.setdefault(w, len(vocab)) for ws in lists for w in ws],
                         dtype=np.int64)
        lengths = np.array([len(ws) for ws in lists], dtype=np.int64)
    else:
        codes = np.frombuffer("".join(texts).encode("utf-32-le", "surrogatepass"),
                              dtype=np.uint32)
        codes = codes.astype(np.int64)
        lengths = np.array([len(t) for t in texts], dtype=np.int64)
    return codes, lengths


_INT64_ROOM = 2**62


def _dense_ranks(codes):
    """Replace each code by its rank among the distinct codes (0, 1, ...)."""
    if codes.size == 0:
        return codes.astype(np.int64), 1
    present = np.zeros(int(codes.max()) + 1, dtype=bool)
    present[codes] = True
    rank = np.cumsum(present) - 1
    return rank[codes].astype(np.int64), int(rank[-1]) + 1


def _sequence_ngram_counts(codes, lengths, max_order):
    """For each order n, the distinct (sequence, n-gram) pairs and their counts.

    Every n-gram gets an integer key, equal for equal n-grams across all
    sequences: a unit's rank among the distinct units, extended one unit at
    a time (``key_n = key_{n-1} * V + unit``, a number in base V), and
    re-ranked when the next extension could overflow int64.  Yields
    ``(n, seq_key, n_keys, counts)``: ``seq_key = sequence * n_keys + key``,
    sorted, one entry per distinct n-gram of each sequence.
    """
    total = len(codes)
    units, n_units = _dense_ranks(codes)
    n_seq = max(len(lengths), 1)
    seq_of = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    starts = np.cumsum(lengths) - lengths
    left = np.repeat(lengths, lengths) - (np.arange(total) - np.repeat(starts, lengths))
    key, n_keys = units, n_units             # every key is < n_keys
    for n in range(1, max_order + 1):
        if n > 1:
            if n_keys * n_units > _INT64_ROOM // n_seq:
                _, key = np.unique(key, return_inverse=True)   # rare: large alphabets
                key, n_keys = key.astype(np.int64).ravel(), int(key.max()) + 1
                if n_keys * n_units > _INT64_ROOM // n_seq:
                    raise ValueError(
                        f"the corpus is too large for chrF's int64 n-gram keys ({n_seq} texts, "
                        f"{n_keys} distinct {n - 1}-grams, {n_units} distinct units): "
                        f"score it in parts with corpus_stats and sum the statistics"
                    )
            key = key[:-1] * n_units + units[n - 1:]
            n_keys *= n_units
        valid = left[:len(key)] >= n        # the n-gram stays inside its sequence
        seq_key, counts = np.unique(seq_of[:len(key)][valid] * n_keys + key[valid],
                                    return_counts=True)
        yield n, seq_key, n_keys, counts


def _order_stats(codes, lengths, n_hyp, owner, max_order):
    """``(h, r, m)`` per reference sequence for orders 1..max_order (shape refs x orders x 3)."""
    n_refs = len(lengths) - n_hyp
    out = np.zeros((n_refs, max_order, 3), dtype=np.int64)
    for n, seq_key, n_keys, counts in _sequence_ngram_counts(codes, lengths, max_order):
        seq = seq_key // n_keys
        is_hyp = seq < n_hyp                 # candidates come first, so they are a prefix
        n_hyp_entries = int(is_hyp.sum())
        hyp_keys, hyp_counts = seq_key[:n_hyp_entries], counts[:n_hyp_entries]
        ref_seq = seq[n_hyp_entries:] - n_hyp
        # the same n-gram in the candidate this reference belongs to
        wanted = owner[ref_seq] * n_keys + seq_key[n_hyp_entries:] % n_keys
        if n_hyp_entries:
            at = np.minimum(np.searchsorted(hyp_keys, wanted), n_hyp_entries - 1)
            found = hyp_keys[at] == wanted
            clipped = np.where(found, np.minimum(counts[n_hyp_entries:], hyp_counts[at]), 0)
        else:                                # no candidate has an n-gram of this order
            clipped = np.zeros(len(wanted), dtype=np.int64)
        out[:, n - 1, 2] = np.bincount(ref_seq, weights=clipped, minlength=n_refs)
        ref_total = np.maximum(lengths[n_hyp:] - n + 1, 0)
        hyp_total = np.maximum(lengths[:n_hyp] - n + 1, 0)[owner]
        out[:, n - 1, 1] = ref_total
        out[:, n - 1, 0] = np.where(ref_total > 0, hyp_total, 0)
    return out


@renamed_arguments(hypotheses="candidates")
def corpus_stats(candidates, references, *, char_order=6, word_order=0, beta=2,
                 lowercase=False, whitespace=False, eps_smoothing=False):
    """Every segment's statistics at once (NumPy), against its best reference.

    The same numbers as :func:`segment_stats` row by row, computed for the
    whole corpus with sorted integer keys instead of one ``Counter`` per
    text.

    Parameters
    ----------
    candidates : list of str
    references : list of (str or list of str)
        ``references[i]``: the reference(s) of ``candidates[i]``.
    char_order, word_order, beta, lowercase, whitespace, eps_smoothing
        As in :func:`chrf`.

    Returns
    -------
    numpy.ndarray of int64, shape (len(candidates), 3 * (char_order + word_order))

    See Also
    --------
    segment_stats

    Examples
    --------
    >>> corpus_stats(["cat", "dog"], ["cut", ["fog", "dog"]], char_order=2).tolist()
    [[3, 3, 2, 2, 2, 0], [3, 3, 3, 2, 2, 2]]
    """
    char_order, word_order, beta = _check_options(char_order, word_order, beta)
    hyps, refs = _check_corpus(candidates, references)
    return _corpus_stats(hyps, refs, char_order, word_order, beta, lowercase, whitespace,
                         eps_smoothing)


def _corpus_stats(hyps, refs, char_order, word_order, beta, lowercase, whitespace,
                  eps_smoothing):
    flat_refs = [r for rs in refs for r in rs]
    owner = np.repeat(np.arange(len(hyps)), [len(rs) for rs in refs])
    texts = hyps + flat_refs
    if lowercase:
        texts = [t.lower() for t in texts]
    parts = []
    char_texts = texts if whitespace else ["".join(t.split()) for t in texts]
    codes, lengths = _units(char_texts, words=False)
    parts.append(_order_stats(codes, lengths, len(hyps), owner, char_order))
    if word_order:
        codes, lengths = _units(texts, words=True)
        parts.append(_order_stats(codes, lengths, len(hyps), owner, word_order))
    per_ref = np.concatenate(parts, axis=1).reshape(len(flat_refs), -1)
    if len(flat_refs) == len(hyps):          # one reference each: nothing to choose
        return per_ref
    n_orders = char_order + word_order
    scores = _scores(per_ref, n_orders, beta, eps_smoothing, scale=_SACREBLEU_SCALE)
    # the best reference of each segment, the first one on ties
    order = np.lexsort((np.arange(len(flat_refs)), -scores, owner))
    first = np.ones(len(order), dtype=bool)
    first[1:] = owner[order][1:] != owner[order][:-1]
    return per_ref[order[first]]


# ---------------------------------------------------------------------------
# public scores
# ---------------------------------------------------------------------------

@renamed_arguments(hypothesis="candidate")
@formerly_positional("char_order", "word_order", "beta")
def sentence_chrf(candidate, references, *, char_order=6, word_order=0, beta=2,
                  lowercase=False, whitespace=False, eps_smoothing=False):
    """chrF (chrF++ with ``word_order=2``) of one candidate.

    Parameters
    ----------
    candidate : str
    references : str or list of str
        One reference or several (the best one is used).
    char_order, word_order, beta, lowercase, whitespace, eps_smoothing
        As in :func:`chrf`: orders at most 100 (:data:`MAX_ORDER`), ``beta``
        at most 1e100 (:data:`MAX_BETA`).

    Returns
    -------
    CHRFResult
        ``.score`` equals sacrebleu's ``CHRF(...).sentence_score(candidate,
        references).score / 100``.

    See Also
    --------
    chrf : corpus chrF.
    segment_stats, score_from_stats

    Examples
    --------
    >>> # "cat" vs "cut", char_order=2: P1 = R1 = 2/3, P2 = R2 = 0/2;
    >>> # P = R = (2/3 + 0) / 2 = 1/3, so chrF = 1/3
    >>> round(sentence_chrf("cat", "cut", char_order=2).score, 4)
    0.3333
    >>> r = sentence_chrf("the cats sat", ["the cat sat"], word_order=2)
    >>> print(r.name, round(r.score, 4))          # sacrebleu: 64.44
    chrF2++ 0.6444
    >>> r.signature
    'nc:6|nw:2|beta:2|case:mixed|space:no|eff:yes'
    """
    stats = segment_stats(candidate, references, char_order=char_order,
                          word_order=word_order, beta=beta, lowercase=lowercase,
                          whitespace=whitespace, eps_smoothing=eps_smoothing)
    score = score_from_stats(stats, char_order=char_order, word_order=word_order, beta=beta,
                             eps_smoothing=eps_smoothing)
    return CHRFResult(score, tuple(int(x) for x in stats), int(char_order), int(word_order),
                      beta, bool(lowercase), bool(whitespace), bool(eps_smoothing), 1)


@renamed_arguments(hypotheses="candidates")
@formerly_positional("char_order", "word_order", "beta")
def chrf(candidates, references, *, char_order=6, word_order=0, beta=2,
         lowercase=False, whitespace=False, eps_smoothing=False):
    """Corpus chrF: statistics summed over all segments, then scored once.

    Parameters
    ----------
    candidates : list of str
        One system output per segment.
    references : list of (str or list of str)
        ``references[i]`` is the reference, or the list of references, of
        ``candidates[i]``.  sacrebleu's layout is the transpose (a list of
        reference *streams*); convert with ``[list(r) for r in zip(*streams)]``.
    char_order : int, default 6
        Character n-gram orders 1 to ``char_order`` (at least 1, at most
        :data:`MAX_ORDER` = 100).
    word_order : int, default 0
        Word n-gram orders 1 to ``word_order``; 2 gives chrF++ (at most
        :data:`MAX_ORDER` = 100).
    beta : float, default 2
        Recall is ``beta`` times as important as precision (positive, at
        most :data:`MAX_BETA` = 1e100).
    lowercase : bool, default False
        Lower both texts first.
    whitespace : bool, default False
        Keep whitespace in the character n-grams (removed by default).
    eps_smoothing : bool, default False
        Average one F-score per order over all orders (chrF++.py, Moses,
        nltk) instead of averaging P and R over the effective orders.

    Returns
    -------
    CHRFResult
        ``.score`` equals sacrebleu's ``CHRF(char_order, word_order, beta,
        lowercase, whitespace, eps_smoothing).corpus_score(candidates,
        streams).score / 100``.

    Raises
    ------
    TypeError
        A candidate or reference that is not a string (a list of lists
        where strings were expected, for instance), or an order that is not
        an integer.
    ValueError
        ``char_order < 1``, ``word_order < 0``, an order above 100,
        ``beta <= 0`` or above 1e100, no
        candidate, a segment without references, or a number of reference
        entries other than the number of candidates.

    See Also
    --------
    sentence_chrf, corpus_stats, score_from_stats

    Notes
    -----
    Empty texts are scored, not refused: an empty candidate or reference
    has no n-gram, so its segment adds only reference (or candidate)
    n-grams to the sums; a corpus with no effective order scores 0.

    Examples
    --------
    >>> hyps = ["the cat sat on the mat", "a dog barked"]
    >>> refs = [["the cat sat on a mat"], ["the dog barked", "a dog was barking"]]
    >>> r = chrf(hyps, refs)
    >>> print(r)                                   # sacrebleu: 71.29
    chrF2 = 0.7129 nc:6|nw:0|beta:2|case:mixed|space:no|eff:yes
    >>> round(chrf(hyps, refs, word_order=2).score, 4)     # chrF++; sacrebleu: 70.33
    0.7033
    """
    char_order, word_order, beta = _check_options(char_order, word_order, beta)
    hyps, refs = _check_corpus(candidates, references)
    per_segment = _corpus_stats(hyps, refs, char_order, word_order, beta, lowercase,
                                whitespace, eps_smoothing)
    stats = per_segment.sum(axis=0)
    score = float(_scores(stats, char_order + word_order, beta, eps_smoothing)[0])
    return CHRFResult(score, tuple(int(x) for x in stats), char_order, word_order, beta,
                      bool(lowercase), bool(whitespace), bool(eps_smoothing), len(hyps))
