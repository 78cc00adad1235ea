"""BLEU: clipped n-gram precision with a brevity penalty (Papineni et al., 2002).

Higher is better.  Scores are in [0, 1] (sacrebleu prints 100 times them),
with one exception: the interpolating smoothings ``"method5"``,
``"method6"`` and ``"method7"`` can raise a smoothed precision above 1, and
the score with it, exactly as nltk's do (see the table below).

The computation is split in two, as sacrebleu does:

1. **statistics** (:func:`segment_stats`): for one candidate and its
   references, a plain integer array
   ``[candidate_len, reference_len, c_1 .. c_N, t_1 .. t_N]`` where ``c_n``
   is the number of clipped n-gram matches and ``t_n`` the number of
   n-grams of the candidate;
2. **scoring** (:func:`score_from_stats`): a pure function of that array.

Sentence BLEU (:func:`bleu`) scores one segment's array; corpus BLEU
(:func:`corpus_bleu`) *sums the arrays of all segments first* and scores
the sum once, which is not the mean of the sentence scores.

Smoothing methods
-----------------
An n-gram order with no match makes the geometric mean 0.  Smoothing
(Chen and Cherry, 2014) replaces such precisions.  ``m_n`` is the number of
matches, ``t_n`` the number of candidate n-grams, ``k`` counts the orders
smoothed so far (1, 2, ...), ``len`` is the candidate length:

==========  ===========  ============  ========================================  =========
ours        sacrebleu    nltk          precision used for order n                default
==========  ===========  ============  ========================================  =========
"none"      "none"       method0       ``m_n / t_n``                             -
"floor"     "floor"      method1       ``value / t_n`` if ``m_n = 0``            0.1
"add-k"     "add-k"      method2       ``(m_n + value) / (t_n + value)``,        1
                                       n >= 2
"exp"       "exp"        method3       ``1 / (2^k t_n)`` if ``m_n = 0``          -
"method4"   -            method4       ``ln(len) / (2^k value t_n)`` if          5
                                       ``m_n = 0`` and ``len > 1``
"method5"   -            method5       ``(p'_{n-1} + p_n + p_{n+1}) / 3``,       -
                                       ``p'_0 = p_1 + 1``, ``p_{N+1}``
                                       read as ``p_5`` (*)
"method6"   -            method6       ``(m_n + value pi_n) / (t_n + value)``    5
                                       for n >= 3, ``pi_n = p'_{n-1}^2 /
                                       p'_{n-2}``
"method7"   -            method7       method4, then method5                     5
==========  ===========  ============  ========================================  =========



(*) Chen and Cherry average each order with the next one, order ``N + 1``
for the last.  nltk's method5 always takes the 5-gram precision there
(``modified_precision(references, hypothesis, 5)``), whatever ``N``; we do
the same, so that every ``max_n`` equals nltk.  For the usual ``N = 4`` the
two readings agree; for ``N = 6`` order 6 is averaged with ``p_5``.

Methods 5-7 can give a score above 1, as in nltk: ``p'_0 = p_1 + 1`` starts
method5's running average above 1 (``bleu(list("abcd"), [list("abcd")],
smoothing="method5")`` is 1.0106 in both), and method6's prior ``pi_n``
exceeds 1 when ``p_{n-1} > p_{n-2}``.  The other methods stay in [0, 1]
with their default values (a ``smooth_value`` far from the default, such as
``"floor"`` above 1, can leave it too).

Aliases: ``"epsilon"`` and ``"method1"`` mean ``"floor"``; ``"method0"``
means ``"none"``; ``"method2"`` means ``"add-k"``; ``"method3"`` means
``"exp"``.  Chen and Cherry number the methods 1-7 as nltk does.

Texts are strings, split by ``tokenizer=`` (default: whitespace, case
kept, as sacrebleu's ``tokenize="none"``), or token lists, used as given
(the signature then says ``tok:pretokenized``).

``references`` is one string, a list of strings (several references) or a
list of token lists.  A list of strings is always read as several
references, which makes one shape ambiguous: two or more strings of at most
one word each.  It is read as several one-word references when the
candidate has at most one token (short answers:
``bleu("Paris", ["Paris", "paris"])``), and refused with a ``ValueError``
when the candidate has two or more tokens: it is then almost surely one
tokenized reference that lost its enclosing list (nltk's pitfall,
``references=tokens`` for ``[tokens]``) or a string split into characters.
Pass ``[[w] for w in words]`` to mean several one-word references anyway.

Conventions that differ between libraries (each is a keyword here):

* ``ref_length``: the reference length ``r`` of the brevity penalty is the
  reference *closest* in length to the candidate, ties going to the
  shorter one (sacrebleu, nltk, mteval); ``"shortest"`` is the variant of
  some older scripts.
* ``effective_order``: sacrebleu's ``sentence_bleu`` leaves out the orders
  for which the candidate has no n-gram at all (a 3-token candidate has no
  4-gram) and re-weights the rest uniformly; its ``corpus_bleu`` and ours
  don't by default.  nltk's ``auto_reweigh`` does the same for short
  candidates.
* ``count_empty_orders``: nltk counts a segment with no n-gram of order n as
  0 matches out of 1 (its denominator is ``max(1, t_n)``); sacrebleu and our
  default count it as 0 out of 0.  The two agree whenever every candidate has
  at least ``max_n`` tokens.  ``"method6"`` interpolates with the candidate's
  true n-gram count (0 for an order longer than the candidate) either way,
  as Chen and Cherry and nltk do.
* sacrebleu's ``sentence_bleu`` smooths with ``"exp"`` and uses the effective
  order by default; ``corpus_bleu`` smooths with ``"exp"``.  nltk's default
  is no smoothing and weights ``(0.25, 0.25, 0.25, 0.25)``.  Ours: no
  smoothing, uniform weights over ``max_n = 4`` orders.

References
----------
.. [1] K. Papineni, S. Roukos, T. Ward and W.-J. Zhu, "BLEU: a method for
   automatic evaluation of machine translation", ACL 2002.
.. [2] B. Chen and C. Cherry, "A systematic comparison of smoothing
   techniques for sentence-level BLEU", WMT 2014.
.. [3] M. Post, "A call for clarity in reporting BLEU scores", WMT 2018
   (sacrebleu).
"""

import itertools
import math
import numbers
from dataclasses import dataclass, replace

import numpy as np

from .._deprecation import formerly_positional
from .._validation import check_choice
from .bleu_stats import (
    REF_LENGTH_RULES, as_references, as_tokens, brevity_factor, check_corpus_layout, check_max_n,
    reference_items,
    segment_ngram_stats, tokenizer_label,
)

__all__ = [
    "score_from_stats",
    "bleu",
    "corpus_bleu",
    "BLEUResult",
    "SMOOTHING",
]


@dataclass(frozen=True)
class _Smoothing:
    name: str
    sacrebleu: str
    nltk: str
    default_value: float
    formula: str
    citation: str


SMOOTHING = {
    s.name: s
    for s in (
        _Smoothing("none", "none", "method0", None, "p_n = m_n / t_n",
                   "Papineni et al. (2002)"),
        _Smoothing("floor", "floor", "method1", 0.1, "p_n = value / t_n if m_n = 0",
                   "Chen & Cherry (2014), method 1"),
        _Smoothing("add-k", "add-k", "method2", 1.0,
                   "p_n = (m_n + value) / (t_n + value) for n >= 2",
                   "Chen & Cherry (2014), method 2; Lin & Och (2004)"),
        _Smoothing("exp", "exp", "method3", None, "p_n = 1 / (2^k t_n) if m_n = 0",
                   "Chen & Cherry (2014), method 3; NIST mteval-v13a"),
        _Smoothing("method4", "-", "method4", 5.0,
                   "p_n = ln(len) / (2^k value t_n) if m_n = 0 and len > 1",
                   "Chen & Cherry (2014), method 4"),
        _Smoothing("method5", "-", "method5", None,
                   "p'_n = (p'_{n-1} + p_n + p_{n+1}) / 3, p'_0 = p_1 + 1, "
                   "p_{N+1} read as p_5 (as nltk)",
                   "Chen & Cherry (2014), method 5"),
        _Smoothing("method6", "-", "method6", 5.0,
                   "p_n = (m_n + value p'_{n-1}^2 / p'_{n-2}) / (t_n + value), n >= 3",
                   "Chen & Cherry (2014), method 6; Gao & He (2013)"),
        _Smoothing("method7", "-", "method7", 5.0, "method4, then method5",
                   "Chen & Cherry (2014), method 7"),
    )
}
"""The smoothing methods: our name -> (sacrebleu name, nltk name, default
value, formula, citation)."""

_ALIASES = {"epsilon": "floor", "method0": "none", "method1": "floor",
            "method2": "add-k", "method3": "exp"}

_WEIGHTS_SUM_TOL = 1e-6

# nltk's method5 averages the last order with the 5-gram precision, whatever max_n
_METHOD5_NEXT_ORDER = 5


def _check_weights(weights, max_n):
    if weights is None:
        return (1.0 / max_n,) * max_n
    if isinstance(weights, (str, bytes)) or not hasattr(weights, "__len__"):
        raise TypeError(f"weights must be a sequence of {max_n} numbers, got {weights!r}")
    weights = tuple(weights)
    if len(weights) != max_n:
        raise ValueError(
            f"weights must have max_n={max_n} entries, got {len(weights)}: {weights!r} "
            f"(pass max_n={len(weights)} to use them)"
        )
    for w in weights:
        if isinstance(w, (bool, np.bool_)) or not isinstance(w, numbers.Real) \
                or not math.isfinite(w) or w < 0:
            raise ValueError(f"weights must be finite non-negative numbers, got {weights!r}")
    # Python floats: float32 weights such as (0.1, 0.9) sum to 1 - 2e-8, hence
    # the tolerance (the weights are used as given, as nltk does)
    weights = tuple(float(w) for w in weights)
    total = math.fsum(weights)
    if abs(total - 1.0) > _WEIGHTS_SUM_TOL:
        raise ValueError(
            f"weights must sum to 1 (within {_WEIGHTS_SUM_TOL:g}), got {weights!r} (sum {total!r})"
        )
    return weights


def _is_uniform(weights):
    n = len(weights)
    return all(abs(w - 1.0 / n) <= _WEIGHTS_SUM_TOL for w in weights)


def _check_smoothing(smoothing, smooth_value):
    if not isinstance(smoothing, str):
        raise TypeError(f"smoothing must be a string, got {smoothing!r}")
    name = _ALIASES.get(smoothing, smoothing)
    check_choice(name, tuple(SMOOTHING) + tuple(_ALIASES), name="smoothing")
    default = SMOOTHING[name].default_value
    if default is None and smooth_value is not None:
        alias = f" (= {name!r})" if name != smoothing else ""
        with_value = ", ".join(repr(k) for k, m in SMOOTHING.items() if m.default_value)
        raise ValueError(
            f"smooth_value is not used by smoothing {smoothing!r}{alias}, which has no "
            f"parameter; got smooth_value={smooth_value!r}. Leave it out, or pick a method "
            f"with a parameter: {with_value}"
        )
    value = default if smooth_value is None else smooth_value
    if value is not None:
        # "floor" with 0 is sacrebleu's no-op floor (p_n = 0 / t_n stays 0);
        # the other methods divide by or double their value, so it must be > 0
        lowest = 0 if name == "floor" else None
        if isinstance(value, bool) or not isinstance(value, numbers.Real) \
                or not math.isfinite(value) or value < 0 or (lowest is None and value == 0):
            rule = "a number >= 0" if lowest == 0 else "a positive number"
            raise ValueError(f"smooth_value must be {rule} for smoothing {name!r}, got "
                             f"{smooth_value!r}")
        value = float(value)
    return name, value


# ---------------------------------------------------------------------------
# scoring
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class BLEUResult:
    """A BLEU score with everything that produced it.

    Attributes
    ----------
    score : float
        BLEU, in [0, 1] except with ``"method5"``, ``"method6"`` or
        ``"method7"``, whose interpolated precisions can exceed 1 (as in
        nltk; see the module docstring).
    precisions : tuple of float
        Modified precisions ``c_n / t_n`` (0 when ``t_n = 0``), before smoothing.
    smoothed_precisions : tuple of float
        The precisions that entered the geometric mean (after smoothing).
    counts, totals : tuple of int
        Clipped matches and candidate n-grams per order.
    brevity_penalty : float
    candidate_len, reference_len : int
    weights : tuple of float
        Weights of the orders actually used.
    orders : tuple of int
        The orders used (all of 1..max_n unless ``effective_order``).
    order_weights : tuple of float
        ``w_1 .. w_N`` as asked for (before ``effective_order`` re-weights
        the orders used); the signature shows them when not uniform.
    tokenizer : str
        How the texts became tokens: the tokenizer's name,
        ``"pretokenized"`` when every text was given as a token list, or
        ``"<name>+pretokenized"`` for a mix.
    reason : str or None
        Why the score is 0 when it is 0 for a structural reason (empty
        candidate, no match), else None.
    """

    score: float
    precisions: tuple
    smoothed_precisions: tuple
    counts: tuple
    totals: tuple
    brevity_penalty: float
    candidate_len: int
    reference_len: int
    max_n: int
    weights: tuple
    orders: tuple
    smoothing: str
    smooth_value: float = None
    effective_order: bool = False
    tokenizer: str = "whitespace"
    ref_length: str = "closest"
    count_empty_orders: bool = False
    reason: str = None
    order_weights: tuple = None

    @property
    def signature(self):
        """One line saying what produced the score (in the spirit of sacrebleu's).

        ``tok:`` the tokenizer (``pretokenized`` for token lists),
        ``smooth:`` the method and its value, ``max_n:``, then ``w:`` the
        weights only when they are not uniform, ``eff:`` the effective
        order, ``ref_len:`` the reference length rule and
        ``empty_orders:`` the counting of orders without n-grams.
        """
        smooth = self.smoothing
        if self.smooth_value is not None:
            smooth += f"[{self.smooth_value:g}]"
        weights = ""
        if self.order_weights is not None and not _is_uniform(self.order_weights):
            weights = "|w:" + ",".join(f"{w:g}" for w in self.order_weights)
        return (
            f"tok:{self.tokenizer}|smooth:{smooth}|max_n:{self.max_n}{weights}"
            f"|eff:{'yes' if self.effective_order else 'no'}|ref_len:{self.ref_length}"
            f"|empty_orders:{'1' if self.count_empty_orders else '0'}"
        )

    @property
    def ratio(self):
        """``candidate_len / reference_len`` (0 when the reference is empty)."""
        return self.candidate_len / self.reference_len if self.reference_len else 0.0

    def __float__(self):
        return self.score

    def __str__(self):
        prec = "/".join(f"{p:.4f}" for p in self.precisions)
        text = (
            f"BLEU = {self.score:.4f} {prec} (BP = {self.brevity_penalty:.4f} "
            f"ratio = {self.ratio:.4f} cand_len = {self.candidate_len} "
            f"ref_len = {self.reference_len}) {self.signature}"
        )
        if self.reason:
            text += f" [{self.reason}]"
        return text


def _smooth(method, value, counts, totals, cand_len, max_n):
    """Precisions of orders 1..max_n after smoothing (floats).

    ``counts``/``totals`` may hold more orders than ``max_n``: method5 and
    method7 read order 5 (:data:`_METHOD5_NEXT_ORDER`) whatever ``max_n``.
    """
    raw = [c / t if t else 0.0 for c, t in zip(counts, totals)]
    p = raw[:max_n]
    if method == "none":
        return p
    if method == "floor":
        return [value / t if c == 0 and t else pn
                for pn, c, t in zip(p, counts, totals)]
    if method == "add-k":
        out = [p[0]]
        for n in range(1, max_n):
            out.append((counts[n] + value) / (totals[n] + value))
        return out
    if method == "exp":
        out, k = [], 1
        for pn, c, t in zip(p, counts, totals):
            if c == 0 and t:
                k *= 2
                pn = 1.0 / (k * t)
            out.append(pn)
        return out
    if method in ("method4", "method7"):
        out, k = [], 1
        for pn, c, t in zip(p, counts, totals):
            if c == 0 and t and cand_len > 1:
                k *= 2
                pn = (1.0 / (k * value / math.log(cand_len))) / t
            out.append(pn)
        p = out
        if method == "method4":
            return p
    if method in ("method5", "method7"):
        if len(raw) < _METHOD5_NEXT_ORDER:
            raise ValueError(
                f"smoothing {method!r} needs statistics up to order {_METHOD5_NEXT_ORDER}, "
                f"got {len(raw)} orders"
            )
        # the order after p_1 .. p_N is read as p_5 whatever N, as nltk does
        # (p_n_plus1 = p_n + [modified_precision(references, hypothesis, 5)])
        nxt = p + [raw[_METHOD5_NEXT_ORDER - 1]]
        out, prev = [], p[0] + 1.0
        for n in range(max_n):
            prev = (prev + p[n] + nxt[n + 1]) / 3.0
            out.append(prev)
        return out
    if method == "method6":
        out = list(p)
        for n in range(2, max_n):
            pi0 = 0.0 if out[n - 2] == 0 else out[n - 1] ** 2 / out[n - 2]
            # the true number of (n+1)-grams, as Chen & Cherry and nltk: 0, not
            # the 1 that count_empty_orders puts in t_n, when the candidate is
            # shorter than the order (for one segment min(...) is exactly it)
            t_true = min(totals[n], max(0, cand_len - n))
            out[n] = (counts[n] + value * pi0) / (t_true + value)
        return out
    raise ValueError(f"unknown smoothing {method!r}")  # pragma: no cover


def _orders_needed(method, max_n):
    """How many orders of statistics scoring needs: method5/7 also read order 5."""
    if method in ("method5", "method7"):
        return max(max_n, _METHOD5_NEXT_ORDER)
    return max_n


def score_from_stats(stats, *, max_n=None, weights=None, smoothing="none",
                     smooth_value=None, effective_order=False):
    """Turn BLEU statistics into a score (a pure function).

    .. math::

        \\mathrm{BLEU} = \\mathrm{BP} \\cdot
            \\exp\\Bigl(\\sum_{n=1}^{N} w_n \\log p_n\\Bigr)

    Parameters
    ----------
    stats : sequence of int
        ``[candidate_len, reference_len, c_1 .. c_K, t_1 .. t_K]`` as made by
        :func:`segment_stats` (or their sum over a corpus).
    max_n : int, optional
        Highest order scored, ``N``; default ``K``.  ``"method5"`` and
        ``"method7"`` also read the 5-gram precision (see the module
        docstring), so they need ``K >= 5``.
    weights : sequence of float, optional
        ``w_1 .. w_N``, summing to 1; default uniform ``1/N``.
    smoothing : str, default "none"
        A key of :data:`SMOOTHING` (or an alias, see the module docstring).
    smooth_value : float, optional
        The method's parameter (epsilon, k, ...); default from the table.
        Positive; ``"floor"`` also takes 0, as sacrebleu does.
    effective_order : bool, default False
        Leave out the orders with ``t_n = 0`` and re-normalise the weights
        of the others (sacrebleu's ``sentence_bleu`` default).  With
        ``"add-k"`` the pseudo-counts make every order non-empty, so nothing
        is left out (as in sacrebleu; nltk's ``auto_reweigh`` differs here).

    Returns
    -------
    BLEUResult

    Notes
    -----
    Defined results: the score is 0 when the candidate is empty or no
    unigram matches (whatever the smoothing, as sacrebleu and nltk), and
    when a used order with positive weight has precision 0 after smoothing
    (nltk gives ~1e-77 there without smoothing; with methods 4-7 it drops
    such orders from the mean instead).

    Examples
    --------
    Hand-counted: 5 candidate tokens, reference of 6; unigrams 4/5,
    bigrams 2/4, trigrams 1/3, 4-grams 0/2.

    >>> r = score_from_stats([5, 6, 4, 2, 1, 0, 5, 4, 3, 2])
    >>> r.score, r.reason
    (0.0, 'no 4-gram match (p_4 = 0/2); use smoothing or a lower max_n')
    >>> round(score_from_stats([5, 6, 4, 5], max_n=1).score, 4)   # 0.8 * exp(1 - 6/5)
    0.655
    >>> # "exp": p_4 = 1/(2 * 2); 0.8187 * (0.8 * 0.5 * 1/3 * 0.25) ** (1/4)
    >>> round(score_from_stats([5, 6, 4, 2, 1, 0, 5, 4, 3, 2], smoothing="exp").score, 4)
    0.3498
    """
    if isinstance(stats, (str, bytes)) or not hasattr(stats, "__len__"):
        raise TypeError(f"stats must be a sequence of integer counts, got {stats!r}")
    values = stats.tolist() if isinstance(stats, np.ndarray) else list(stats)
    for i, x in enumerate(values):
        if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Integral):
            raise TypeError(
                f"stats must hold integer counts, got {x!r} at position {i}"
            )
        if x < 0:
            raise ValueError(
                f"stats must hold non-negative counts, got {x!r} at position {i}"
            )
    stats = [int(x) for x in values]
    if len(stats) < 4 or len(stats) % 2:
        raise ValueError(
            "stats must be [candidate_len, reference_len, c_1..c_K, t_1..t_K] "
            f"(an even length of at least 4), got {len(stats)} numbers"
        )
    n_orders = (len(stats) - 2) // 2
    cand_len, ref_len = stats[0], stats[1]
    counts, totals = stats[2:2 + n_orders], stats[2 + n_orders:]
    for n, (c, t) in enumerate(zip(counts, totals), start=1):
        if c > t:
            raise ValueError(f"stats has more matches than n-grams at order {n}: {c} > {t}")
    max_n = n_orders if max_n is None else check_max_n(max_n)
    if max_n > n_orders:
        raise ValueError(f"max_n={max_n} but stats hold only {n_orders} orders")
    weights = _check_weights(weights, max_n)
    method, value = _check_smoothing(smoothing, smooth_value)
    if _orders_needed(method, max_n) > n_orders:
        raise ValueError(
            f"smoothing {method!r} needs statistics up to order "
            f"{_orders_needed(method, max_n)} (it reads the 5-gram precision, as nltk's "
            f"{SMOOTHING[method].nltk} does), got {n_orders} orders"
        )
    bp = brevity_factor(cand_len, ref_len)
    raw = tuple(float(c / t) if t else 0.0 for c, t in zip(counts[:max_n], totals[:max_n]))
    base = dict(
        precisions=raw, counts=tuple(counts[:max_n]), totals=tuple(totals[:max_n]),
        brevity_penalty=bp, candidate_len=cand_len, reference_len=ref_len, max_n=max_n,
        smoothing=method, smooth_value=value, effective_order=bool(effective_order),
        order_weights=weights,
    )

    orders = tuple(range(1, max_n + 1))
    if effective_order:
        # add-k's pseudo-counts make every order n >= 2 non-empty (as in sacrebleu)
        orders = tuple(n for n in orders
                       if totals[n - 1] > 0 or (method == "add-k" and n >= 2))

    def zero(reason, smoothed=(0.0,) * max_n, used=weights):
        return BLEUResult(score=0.0, smoothed_precisions=tuple(smoothed), weights=used,
                          orders=orders, reason=reason, **base)

    if cand_len == 0:
        return zero("empty candidate")
    if counts[0] == 0:
        return zero("no unigram of the candidate is in a reference")

    smoothed = tuple(float(x) for x in _smooth(method, value, counts, totals, cand_len, max_n))
    kept = [weights[n - 1] for n in orders]
    norm = math.fsum(kept)
    if norm == 0:
        return zero("every order with a positive weight is left out by effective_order")
    # re-normalise only when effective_order left orders out: weights that sum
    # to 1 within the tolerance are used as given, as nltk does
    used = weights if len(orders) == max_n else tuple(w / norm for w in kept)
    log_sum = 0.0
    for n, w in zip(orders, used):
        if w == 0:
            continue
        p = smoothed[n - 1]
        if p <= 0:
            if totals[n - 1] == 0:
                why = (f"the candidate has no {n}-gram ({cand_len} tokens); "
                       "effective_order=True leaves such orders out (sacrebleu's "
                       "sentence BLEU), count_empty_orders=True with smoothing counts "
                       "them as 0 of 1 (nltk's sentence_bleu); or a lower max_n")
            else:
                why = (f"no {n}-gram match (p_{n} = {counts[n - 1]}/{totals[n - 1]}); "
                       "use smoothing or a lower max_n")
            return zero(why, smoothed, used)
        log_sum += w * math.log(p)
    score = bp * math.exp(log_sum)
    return BLEUResult(score=float(score), smoothed_precisions=smoothed, weights=used,
                      orders=orders, reason=None, **base)


@formerly_positional("max_n", "weights", "smoothing")
def bleu(candidate, references, *, max_n=4, weights=None, smoothing="none",
         smooth_value=None, effective_order=False, tokenizer=None,
         ref_length="closest", count_empty_orders=False):
    """Sentence BLEU of one candidate against one or several references.

    .. math::

        \\mathrm{BLEU} = \\mathrm{BP} \\cdot
            \\exp\\Bigl(\\sum_{n=1}^{N} w_n \\log p_n\\Bigr),
        \\qquad
        \\mathrm{BP} = \\min\\bigl(1, e^{\\,1 - r/c}\\bigr)

    with ``p_n`` the modified n-gram precisions
    (:func:`modified_precision`), ``c`` the candidate length and ``r`` the
    closest reference length.

    Parameters
    ----------
    candidate : str or list of str
        The generated text (a string is split by ``tokenizer``).
    references : str, list of str, or list of list of str
        One reference or several.  A list of strings is several references;
        two or more strings of at most one word each are refused when the
        candidate has two or more tokens (see the module docstring).
    max_n : int, default 4
        Highest n-gram order ``N`` (BLEU-N).
    weights : sequence of float, optional
        ``w_1 .. w_N``, summing to 1; default uniform.
    smoothing : str, default "none"
        See :data:`SMOOTHING` and the module docstring.
    smooth_value : float, optional
        Parameter of the smoothing method; default from the table.  Refused
        (``ValueError``) for a method without a parameter (``"none"``,
        ``"exp"``, ``"method5"``).  Positive, except that ``"floor"`` also
        takes 0, as sacrebleu does (then ``p_n = 0`` stays 0).
    effective_order : bool, default False
        Leave out orders for which the candidate has no n-gram (sacrebleu's
        ``sentence_bleu`` default; nltk's ``auto_reweigh``).
    tokenizer : callable, optional
        Default :func:`~ragmetrics_edu.generation.text.whitespace_tokenize` (equal to
        sacrebleu's ``tokenize="none"``).
    ref_length : {"closest", "shortest"}, default "closest"
        Which reference length the brevity penalty uses.
    count_empty_orders : bool, default False
        Count an order without candidate n-grams as 0/1 (nltk) not 0/0.
        Every order then has ``t_n >= 1``, so ``effective_order`` leaves
        none out.

    Returns
    -------
    BLEUResult
        ``.score`` (in [0, 1] but for methods 5-7, see the module
        docstring), ``.precisions``, ``.counts``, ``.totals``,
        ``.brevity_penalty``, ``.candidate_len``, ``.reference_len``,
        ``.signature``.

    See Also
    --------
    corpus_bleu : BLEU of a whole test set (the intended use of BLEU).

    Notes
    -----
    Equals ``sacrebleu.sentence_bleu(c, refs, tokenize="none",
    smooth_method=s, use_effective_order=e).score / 100`` and nltk's
    ``sentence_bleu`` for the matching smoothing (with
    ``count_empty_orders=True`` when the candidate is shorter than
    ``max_n``).  nltk expects ``references`` as a list of token lists:
    passing one token list makes it treat every word as a reference; this
    function refuses that shape.

    Where nltk's ``sentence_bleu`` differs: it leaves out of the geometric
    mean every order whose precision is still 0 after smoothing, where we
    score 0 (with a ``reason``).  Without smoothing nltk returns about
    1e-77 or 0 instead (with a warning); with methods 4-7 the leaving out
    changes the score, which happens for candidates shorter than ``max_n``:
    nltk's method4 does not smooth a 1-token candidate (``ln 1 = 0``), so
    its BLEU is the brevity penalty times ``p_1 ** w_1`` alone, ours 0.
    nltk's method6 refuses (``AssertionError``) a candidate whose trigram
    precision is 0, and fails (``IndexError``) for ``max_n < 3``, where ours
    leaves orders 1 and 2 unsmoothed as Chen and Cherry define it; ours
    interpolates with the candidate's true n-gram count (0 for an order
    longer than the candidate, whatever ``count_empty_orders`` says), as
    nltk does.  nltk's method5 and method7 average the last order with the
    5-gram precision whatever ``max_n``; so do we (module docstring).

    An empty candidate has score 0 with ``reason="empty candidate"``; an
    empty reference matches nothing, so the score is 0 with the reason "no
    unigram of the candidate is in a reference".

    Examples
    --------
    The slides' BLEU-1, with the brevity penalty they leave out:

    >>> r = bleu("I have thirty six years", "I am thirty six years old", max_n=1)
    >>> round(r.precisions[0], 4), round(r.brevity_penalty, 4), round(r.score, 4)
    (0.8, 0.8187, 0.655)
    >>> r.signature
    'tok:whitespace|smooth:none|max_n:1|eff:no|ref_len:closest|empty_orders:0'

    BLEU-4 of the reordered sentence is 0 without smoothing (no 4-gram matches):

    >>> bleu("thirty six years have I", "I am thirty six years old").score
    0.0
    >>> round(bleu("thirty six years have I", "I am thirty six years old",
    ...            smoothing="exp").score, 4)     # sacrebleu: 34.98
    0.3498
    """
    max_n = check_max_n(max_n)
    check_choice(ref_length, REF_LENGTH_RULES, name="ref_length")
    _check_weights(weights, max_n)
    method, _ = _check_smoothing(smoothing, smooth_value)
    cand = as_tokens(candidate, tokenizer, "candidate")
    refs = as_references(references, tokenizer, candidate_len=len(cand))
    stats = segment_ngram_stats(cand, refs, _orders_needed(method, max_n), ref_length,
                           count_empty_orders)
    result = score_from_stats(stats, max_n=max_n, weights=weights, smoothing=smoothing,
                              smooth_value=smooth_value, effective_order=effective_order)
    label = tokenizer_label(tokenizer, [candidate, *reference_items(references)])
    return replace(result, tokenizer=label, ref_length=ref_length,
                   count_empty_orders=bool(count_empty_orders))


@formerly_positional("max_n", "weights", "smoothing")
def corpus_bleu(candidates, references, *, max_n=4, weights=None, smoothing="none",
                smooth_value=None, effective_order=False, tokenizer=None,
                ref_length="closest", count_empty_orders=False):
    """Corpus BLEU: statistics summed over all segments, then scored once.

    .. math::

        p_n = \\frac{\\sum_i c_{n,i}}{\\sum_i t_{n,i}}, \\qquad
        \\mathrm{BP} = \\min\\Bigl(1, e^{\\,1 - \\sum_i r_i / \\sum_i c_i}\\Bigr)

    Parameters
    ----------
    candidates : sequence of (str or list of str)
        One generated text per segment.
    references : sequence
        ``references[i]`` is the list of references of ``candidates[i]``
        (strings or token lists).  sacrebleu's layout is the transpose (a
        list of reference *streams*); convert with
        ``[list(refs) for refs in zip(*streams)]``.
    max_n, weights, smoothing, smooth_value, effective_order, tokenizer, ref_length, count_empty_orders
        As in :func:`bleu`.

    Returns
    -------
    BLEUResult

    See Also
    --------
    bleu, segment_stats, score_from_stats

    Notes
    -----
    Equal to ``sacrebleu.corpus_bleu(candidates, streams, tokenize="none",
    smooth_method=...).score / 100`` and to nltk's ``corpus_bleu`` on the same
    tokens (with ``count_empty_orders=True`` when some candidate is shorter
    than ``max_n``), for every smoothing but methods 5-7.

    Where nltk's ``corpus_bleu`` differs, on purpose: it calls the smoothing
    function once, with the corpus precisions but with the ``references``
    and ``hypothesis`` left over from its loop over segments, that is the
    *last* segment's.  Its method5 and method7 then average the last order
    with the last segment's 5-gram precision (so nltk's corpus score changes
    when the segments are reordered), and its method6 divides the corpus
    matches by the last segment's n-gram count.  Those are not corpus
    statistics, so we don't reproduce them: ours take the corpus ``p_5``
    and the corpus n-gram counts, and equal nltk on a corpus of one segment
    (sentence BLEU).  Example: segments "a b c d e" (reference the same) and
    "a x y z w" (reference "a q r s t") have corpus ``p_1 .. p_5 = 0.6, 0.5,
    0.5, 0.5, 0.5``; with method5 we average the 4th order with the corpus
    ``p_5 = 0.5`` (BLEU 0.6322), nltk with the last segment's 0 (0.5733) or
    1 (0.6781) depending on the order of the segments.  nltk's method4 uses
    the corpus length, as ours.

    Examples
    --------
    >>> cands = ["I have thirty six years", "six six six six six"]
    >>> refs = [["I am thirty six years old"], ["I am thirty six years old"]]
    >>> r = corpus_bleu(cands, refs, max_n=1)
    >>> r.counts, r.totals              # 4 + 1 matches of 5 + 5 unigrams
    ((5,), (10,))
    >>> round(r.score, 4)               # 0.5 * exp(1 - 12/10)
    0.4094
    """
    max_n = check_max_n(max_n)
    check_choice(ref_length, REF_LENGTH_RULES, name="ref_length")
    _check_weights(weights, max_n)
    method, _ = _check_smoothing(smoothing, smooth_value)
    check_corpus_layout(candidates, references,
                        candidates_are="a list of candidates (strings or token lists)",
                        references_are="a list with one list of references per candidate",
                        one="candidate", per_candidate="one list of references",
                        types=(list, tuple, np.ndarray))
    n_orders = _orders_needed(method, max_n)
    total = [0] * (2 + 2 * n_orders)
    for i, (cand, refs) in enumerate(zip(candidates, references)):
        if isinstance(refs, str):
            raise TypeError(
                f"references[{i}] must be a list of references of candidate {i}, got a "
                f"string {refs!r:.60}; wrap it: [{refs!r:.40}]"
            )
        cand_tokens = as_tokens(cand, tokenizer, f"candidates[{i}]")
        ref_tokens = as_references(refs, tokenizer, f"references[{i}]",
                                    candidate_len=len(cand_tokens))
        seg = segment_ngram_stats(cand_tokens, ref_tokens, n_orders, ref_length, count_empty_orders)
        total = [a + b for a, b in zip(total, seg)]
    result = score_from_stats(total, max_n=max_n, weights=weights, smoothing=smoothing,
                              smooth_value=smooth_value, effective_order=effective_order)
    texts = itertools.chain(candidates, *(reference_items(refs) for refs in references))
    return replace(result, tokenizer=tokenizer_label(tokenizer, texts), ref_length=ref_length,
                   count_empty_orders=bool(count_empty_orders))
