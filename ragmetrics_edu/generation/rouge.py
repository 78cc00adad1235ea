"""ROUGE: n-gram and longest-common-subsequence overlap (Lin, 2004).

Higher is better; precision, recall and F-measure are in [0, 1].

* :func:`rouge_n`: shared n-grams (ROUGE-1, ROUGE-2, ...).
* :func:`rouge_l`: the longest common subsequence (LCS) of the two texts,
  words in the same order but not necessarily adjacent.
* :func:`rouge_lsum`: summary-level LCS: texts are split into sentences
  (one per line) and each reference sentence is matched against the union
  of its LCSs with every candidate sentence.
* :func:`rouge_scores`: several of them at once, tokenizing each text once.

For every variant

.. math::

    P = \\frac{\\text{matches}}{\\text{units in the candidate}}, \\quad
    R = \\frac{\\text{matches}}{\\text{units in the reference}}, \\quad
    F = \\frac{2PR}{P + R}.

Conventions (each a keyword):

* ``tokenizer``: the default is the whitespace split that keeps case
  (:func:`~ragmetrics_edu.generation.text.whitespace_tokenize`), so the slides'
  examples read as written.  Google's rouge-score lowercases and keeps
  ``[a-z0-9]+`` runs: pass ``tokenizer=rm.rouge_tokenize`` (or
  ``rm.generation.text.rouge_tokenize_stemmed`` for its ``use_stemmer=True``) to get
  its numbers exactly.  The tokenizer (and so stemming) applies to strings;
  token lists are used as given (the signature then says
  ``tok:pretokenized``).
* ``references``: one string, a list of strings (several references) or a
  list of token lists.  Two or more strings of at most one word each are
  read as one-word references only for a candidate of at most one token,
  and refused otherwise (the rule of :mod:`ragmetrics_edu.generation.bleu_score`: such
  a list is almost surely one tokenized reference without its enclosing
  list).
* ``multi_ref`` with several references: ``"best_f"`` (default) keeps the
  reference with the highest F-measure, the first one on ties (rouge-score's
  ``score_multi``); ``"average"`` averages P, R and F over the references;
  ``"max_each"`` takes the maximum of P, of R and of F separately (as
  bert-score does for several references), so the three may come from
  different references.

Empty texts: if the candidate or the reference has no unit (no token, or
fewer than ``n`` tokens for ROUGE-N), P, R and F are 0, as in rouge-score.

The order ``n``: ROUGE-N is defined for every ``n >= 1`` (Lin 2004), and so
is :func:`rouge_n` here (``"rouge10"`` in :func:`rouge_scores`).
rouge-score names only ``"rouge1"`` to ``"rouge9"`` (its name pattern takes
one digit) and refuses ``"rouge10"``: for ``n >= 10`` there is no
rouge-score number to compare with, and ours is the same count at a larger
order.

References
----------
.. [1] C.-Y. Lin, "ROUGE: a package for automatic evaluation of summaries",
   Text Summarization Branches Out (ACL workshop), 2004.
.. [2] Google Research, rouge-score (``rouge_score.rouge_scorer``), the
   Python re-implementation of ROUGE-1.5.5 that we match. Its rule for
   several references (the best F1) is not ROUGE-1.5.5's default (``-f A``
   pools the references' counts).
"""

import re
from collections import Counter
from dataclasses import dataclass

from .._deprecation import formerly_positional
from .._validation import check_choice, check_k
from .bleu_stats import (
    as_tokens, looks_like_tokens, ngram_counter, reference_items, reference_list,
    tokenizer_label,
)

__all__ = ["rouge_n", "rouge_l", "rouge_lsum", "rouge_scores", "RougeResult", "lcs_length"]

MULTI_REF = ("best_f", "average", "max_each")


@dataclass(frozen=True)
class RougeResult:
    """Precision, recall and F-measure of one ROUGE variant.

    Attributes
    ----------
    precision, recall, fmeasure : float
    matches : int or None
        Clipped n-gram matches, LCS length or summary-level LCS hits (of the
        reference kept; None when ``multi_ref`` mixes references).
    candidate_count, reference_count : int or None
        Units (n-grams or tokens) of the candidate and of that reference.
    variant : str
        ``"rouge1"``, ``"rouge2"``, ..., ``"rougeL"`` or ``"rougeLsum"``.
    tokenizer : str
        The tokenizer's name, ``"pretokenized"`` when every text was given
        as tokens, ``"<name>+pretokenized"`` for a mix.
    multi_ref : str
    reference_index : int or None
        Which reference was kept (``"best_f"``), else None.
    """

    precision: float
    recall: float
    fmeasure: float
    matches: int = None
    candidate_count: int = None
    reference_count: int = None
    variant: str = ""
    tokenizer: str = "whitespace"
    multi_ref: str = "best_f"
    reference_index: int = None

    @property
    def signature(self):
        """One line saying what produced the numbers."""
        return f"{self.variant}|tok:{self.tokenizer}|multi_ref:{self.multi_ref}"

    def __str__(self):
        return (
            f"{self.variant}: P = {self.precision:.4f} R = {self.recall:.4f} "
            f"F = {self.fmeasure:.4f} ({self.signature})"
        )


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------

def _fmeasure(p, r):
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def _prf(matches, cand_count, ref_count):
    p = matches / cand_count if cand_count else 0.0
    r = matches / ref_count if ref_count else 0.0
    return float(p), float(r), float(_fmeasure(p, r))


def _references(references, convert, candidate_len, name="references"):
    """A non-empty list of references, each converted by ``convert``.

    ``candidate_len`` (the candidate's number of tokens) decides whether a
    list of one-word strings is several references or a refused slip.
    """
    return reference_list(references, convert, name, candidate_len)


def _flat_label(tokenizer, candidate, references):
    """The signature's ``tok:`` part for ROUGE-N and ROUGE-L."""
    return tokenizer_label(tokenizer, [candidate, *reference_items(references)])


def _sentence_items(text):
    """The pieces of a ROUGE-Lsum text as given: the string, or its sentences."""
    return [text] if isinstance(text, str) else list(text)


def _combine(pairs, multi_ref, variant, tok):
    """Combine per-reference (matches, cand_count, ref_count) by ``multi_ref``."""
    scores = [_prf(*m) for m in pairs]
    if len(pairs) == 1 or multi_ref == "best_f":
        best = max(range(len(scores)), key=lambda i: (scores[i][2], -i))
        p, r, f = scores[best]
        m, cc, rc = pairs[best]
        return RougeResult(p, r, f, int(m), int(cc), int(rc), variant, tok, multi_ref, best)
    if multi_ref == "average":
        k = len(scores)
        p, r, f = (sum(s[j] for s in scores) / k for j in range(3))
    else:  # max_each
        p, r, f = (max(s[j] for s in scores) for j in range(3))
    return RougeResult(float(p), float(r), float(f), None, None, None, variant, tok, multi_ref)


# ---------------------------------------------------------------------------
# LCS
# ---------------------------------------------------------------------------

def _lcs_table(a, b):
    """The dynamic-programming table: T[i][j] = LCS length of a[:i] and b[:j]."""
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            if a[i - 1] == b[j - 1]:
                table[i][j] = table[i - 1][j - 1] + 1
            else:
                table[i][j] = max(table[i - 1][j], table[i][j - 1])
    return table


def _lcs_length_bits(a, b):
    """LCS length with bit-parallel rows (Hyyrö 2004); equal to the table's corner.

    Bit i of ``v`` is 0 where the current DP row steps up at column i; each
    token of ``b`` updates the whole row with a few integer operations.
    """
    if not a or not b:
        return 0
    masks = {}
    for i, tok in enumerate(a):
        masks[tok] = masks.get(tok, 0) | (1 << i)
    full = (1 << len(a)) - 1
    v = full
    for tok in b:
        m = masks.get(tok)
        if m:
            u = v & m
            v = ((v + u) | (v - u)) & full
    return len(a) - v.bit_count()


def lcs_length(a, b, *, method="bits"):
    """Length of the longest common subsequence of two token lists.

    Parameters
    ----------
    a, b : list of str
    method : {"bits", "table"}, default "bits"
        ``"table"``: the textbook table of ``len(a) * len(b)`` cells (readable reference);
        ``"bits"``: the same number with bit-parallel rows (fast path).

    Returns
    -------
    int

    Examples
    --------
    >>> lcs_length("I really loved reading the Hunger Games".split(),
    ...            "I loved reading the Hunger Games".split())
    6
    >>> lcs_length(list("ABCBDAB"), list("BDCABA"), method="table")
    4
    """
    check_choice(method, ("bits", "table"), name="method")
    a, b = list(a), list(b)
    if method == "table":
        return _lcs_table(a, b)[-1][-1]
    return _lcs_length_bits(a, b)


def _lcs_indices(ref, cand):
    """Indices into ``ref`` of one LCS with ``cand``, in increasing order.

    Walking back from the end of the table: on equal tokens take the match;
    otherwise step back along the candidate only when that keeps a strictly
    longer LCS, else along the reference.  Which LCS is read out matters
    for the union in ROUGE-Lsum; this is the rule of rouge-score (and of
    ROUGE-1.5.5).
    """
    table = _lcs_table(ref, cand)
    i, j, out = len(ref), len(cand), []
    while i > 0 and j > 0:
        if ref[i - 1] == cand[j - 1]:
            out.append(i - 1)
            i -= 1
            j -= 1
        elif table[i][j - 1] > table[i - 1][j]:
            j -= 1
        else:
            i -= 1
    return out[::-1]


def _summary_lcs_counts(ref_sents, cand_sents):
    """(hits, candidate tokens, reference tokens) of summary-level LCS."""
    m = sum(len(s) for s in ref_sents)
    n = sum(len(s) for s in cand_sents)
    if not ref_sents or not cand_sents or m == 0 or n == 0:
        return 0, n, m
    # each token can be a hit only as many times as it occurs in both texts
    left_r = Counter(t for s in ref_sents for t in s)
    left_c = Counter(t for s in cand_sents for t in s)
    hits = 0
    for ref in ref_sents:
        union = set()
        for cand in cand_sents:
            union.update(_lcs_indices(ref, cand))
        for i in sorted(union):
            tok = ref[i]
            if left_c[tok] > 0 and left_r[tok] > 0:
                hits += 1
                left_c[tok] -= 1
                left_r[tok] -= 1
    return hits, n, m


def _as_sentences(text, tokenizer, name):
    """A text as a list of token lists, one per sentence (line)."""
    if isinstance(text, str):
        lines = [s for s in text.split("\n") if len(s)]
        return [as_tokens(s, tokenizer, name) for s in lines]
    if not isinstance(text, (list, tuple)):
        raise TypeError(
            f"{name} must be a newline-separated string or a list of sentences, "
            f"got {type(text).__name__}: {text!r:.80}"
        )
    if looks_like_tokens(text):
        raise ValueError(
            f"{name} looks like a list of tokens, but rouge_lsum reads a list as "
            f"sentences: pass [tokens] for one sentence, or a newline-separated string"
        )
    return [as_tokens(s, tokenizer, f"{name}[{i}]") for i, s in enumerate(text)]


# ---------------------------------------------------------------------------
# public metrics
# ---------------------------------------------------------------------------

def _check_multi_ref(multi_ref):
    return check_choice(multi_ref, MULTI_REF, name="multi_ref")


@formerly_positional("n")
def rouge_n(candidate, references, *, n=1, tokenizer=None, multi_ref="best_f"):
    """ROUGE-N: overlap of n-grams.

    .. math::

        \\text{matches} = \\sum_g \\min\\bigl(\\mathrm{count}_{cand}(g),
                          \\mathrm{count}_{ref}(g)\\bigr), \\quad
        P = \\frac{\\text{matches}}{\\#\\text{n-grams}_{cand}}, \\quad
        R = \\frac{\\text{matches}}{\\#\\text{n-grams}_{ref}}

    Parameters
    ----------
    candidate : str or list of str
        The generated text.
    references : str, list of str, or list of list of str
        One reference or several.
    n : int, default 1
        The n-gram order, any positive integer (rouge-score names 1 to 9
        only; see the module docstring).
    tokenizer : callable, optional
        Default whitespace split (keeps case); ``rm.rouge_tokenize`` matches
        rouge-score.
    multi_ref : {"best_f", "average", "max_each"}, default "best_f"
        How several references combine (see the module docstring).

    Returns
    -------
    RougeResult
        ``.precision``, ``.recall``, ``.fmeasure``, and the counts.

    See Also
    --------
    rouge_l, rouge_scores

    Notes
    -----
    ROUGE was designed recall first (Recall-Oriented Understudy...): the
    reference's n-grams are the denominator of R.  A candidate or reference
    with fewer than ``n`` tokens gives 0 for P, R and F.

    Examples
    --------
    The slides' Hunger Games example (6 candidate unigrams of 7 match, all
    6 of the reference's):

    >>> r = rouge_n("I really loved reading the Hunger Games",
    ...             "I loved reading the Hunger Games", n=1)
    >>> r.matches, r.candidate_count, r.reference_count
    (6, 7, 6)
    >>> round(r.precision, 4), round(r.recall, 4), round(r.fmeasure, 4)
    (0.8571, 1.0, 0.9231)
    >>> r2 = rouge_n("I really loved reading the Hunger Games",
    ...              "I loved reading the Hunger Games", n=2)
    >>> round(r2.precision, 4), round(r2.recall, 4)   # 4/6 and 4/5
    (0.6667, 0.8)
    """
    n = check_k(n, name="n")
    _check_multi_ref(multi_ref)
    cand = as_tokens(candidate, tokenizer, "candidate")
    refs = _references(references, lambda r, nm: as_tokens(r, tokenizer, nm), len(cand))
    return _rouge_n_tokens(cand, refs, n, multi_ref,
                           _flat_label(tokenizer, candidate, references))


def _rouge_n_tokens(cand, refs, n, multi_ref, tok):
    cand_counts = ngram_counter(cand, n)
    cand_total = max(0, len(cand) - n + 1)
    pairs = []
    for ref in refs:
        ref_counts = ngram_counter(ref, n)
        matches = 0
        small, big = (cand_counts, ref_counts) if len(cand_counts) <= len(ref_counts) \
            else (ref_counts, cand_counts)
        for gram, count in small.items():
            other = big.get(gram)
            if other:
                matches += count if count < other else other
        pairs.append((matches, cand_total, max(0, len(ref) - n + 1)))
    return _combine(pairs, multi_ref, f"rouge{n}", tok)


def rouge_l(candidate, references, *, tokenizer=None, multi_ref="best_f"):
    """ROUGE-L: the longest common subsequence (sentence level).

    .. math::

        P = \\frac{\\mathrm{LCS}(c, r)}{|c|}, \\quad
        R = \\frac{\\mathrm{LCS}(c, r)}{|r|}, \\quad F = \\frac{2PR}{P + R}

    The LCS keeps word order but allows gaps, so it rewards in-order
    overlap without requiring consecutive matches.

    Parameters
    ----------
    candidate : str or list of str
    references : str, list of str, or list of list of str
    tokenizer : callable, optional
    multi_ref : {"best_f", "average", "max_each"}, default "best_f"

    Returns
    -------
    RougeResult
        ``.matches`` is the LCS length.

    See Also
    --------
    rouge_lsum : the summary-level variant over sentences.
    lcs_length

    Notes
    -----
    This is rouge-score's ``rougeL`` (F with beta = 1), which treats the
    whole text as one sentence (newlines are ordinary whitespace).

    Examples
    --------
    >>> r = rouge_l("thirty six years have I", "I am thirty six years old")
    >>> r.matches                      # "thirty six years"
    3
    >>> round(r.precision, 4), round(r.recall, 4)   # 3/5 and 3/6
    (0.6, 0.5)
    """
    _check_multi_ref(multi_ref)
    cand = as_tokens(candidate, tokenizer, "candidate")
    refs = _references(references, lambda r, nm: as_tokens(r, tokenizer, nm), len(cand))
    return _rouge_l_tokens(cand, refs, multi_ref, _flat_label(tokenizer, candidate, references))


def _rouge_l_tokens(cand, refs, multi_ref, tok):
    pairs = [(_lcs_length_bits(ref, cand), len(cand), len(ref)) for ref in refs]
    return _combine(pairs, multi_ref, "rougeL", tok)


def rouge_lsum(candidate, references, *, tokenizer=None, multi_ref="best_f"):
    """ROUGE-Lsum: summary-level LCS over sentences (union LCS).

    For each reference sentence ``r_i``, take the union of the positions of
    ``r_i`` that belong to its LCS with each candidate sentence ``c_j``;
    a position counts as a hit unless its token has already been used up
    (each token counts at most as often as it occurs in both texts).

    .. math::

        P = \\frac{\\sum_i |\\cup_j \\mathrm{LCS}(r_i, c_j)|}{\\sum_j |c_j|},
        \\quad
        R = \\frac{\\sum_i |\\cup_j \\mathrm{LCS}(r_i, c_j)|}{\\sum_i |r_i|}

    Parameters
    ----------
    candidate : str or list of sentences
        Sentences separated by newlines (empty lines dropped), or a list of
        sentences, each a string or a token list.
    references : str, list of str, or list of (list of sentences)
        One reference or several; each is a newline-separated string or a
        list of sentences.
    tokenizer : callable, optional
    multi_ref : {"best_f", "average", "max_each"}, default "best_f"

    Returns
    -------
    RougeResult
        ``.matches`` is the number of union-LCS hits.

    Notes
    -----
    Sentences are split on ``"\\n"`` only, as rouge-score does without
    ``split_summaries``.  Several LCSs can have the same length; which one
    enters the union follows rouge-score's (and ROUGE-1.5.5's) read-out
    rule, so the scores match it exactly.

    Examples
    --------
    "the cat was on" meets "the cat sat" in "the cat" and "on the mat" in
    one word, "on" or "the" (a tie): the read-out rule picks "the", already
    in the union, so this sentence gives 2 hits; "the mat" gives 2 more.

    >>> cand = "the cat sat\\non the mat"
    >>> ref = "the cat was on\\nthe mat"
    >>> r = rouge_lsum(cand, ref)
    >>> r.matches, r.candidate_count, r.reference_count
    (4, 6, 6)
    >>> round(r.fmeasure, 4)           # rouge-score: 0.6667
    0.6667
    """
    _check_multi_ref(multi_ref)
    cand = _as_sentences(candidate, tokenizer, "candidate")
    refs = _references(references, lambda r, nm: _as_sentences(r, tokenizer, nm),
                       sum(len(s) for s in cand))
    pairs = [_summary_lcs_counts(ref, cand) for ref in refs]
    pieces = _sentence_items(candidate)
    for r in reference_items(references):
        pieces.extend(_sentence_items(r))
    return _combine(pairs, multi_ref, "rougeLsum", tokenizer_label(tokenizer, pieces))


@formerly_positional("variants")
def rouge_scores(candidate, references, *, variants=("rouge1", "rouge2", "rougeL"),
                 tokenizer=None, multi_ref="best_f"):
    """Several ROUGE variants at once, tokenizing each text once.

    Parameters
    ----------
    candidate, references, tokenizer, multi_ref
        As in :func:`rouge_n`.
    variants : sequence of str, default ("rouge1", "rouge2", "rougeL")
        Names as in rouge-score: ``"rouge<n>"``, ``"rougeL"``, ``"rougeLsum"``.

    Returns
    -------
    dict
        ``{variant: RougeResult}``, like rouge-score's ``RougeScorer.score``.

    Examples
    --------
    >>> s = rouge_scores("I really loved reading the Hunger Games",
    ...                  "I loved reading the Hunger Games")
    >>> {k: round(v.fmeasure, 4) for k, v in s.items()}
    {'rouge1': 0.9231, 'rouge2': 0.7273, 'rougeL': 0.9231}
    """
    _check_multi_ref(multi_ref)
    if isinstance(variants, str):
        variants = (variants,)
    plan = []
    for v in variants:
        if v in ("rougeL", "rougeLsum"):
            plan.append((v, None))
        elif isinstance(v, str) and re.fullmatch(r"rouge[1-9][0-9]{0,8}", v):
            plan.append((v, int(v[5:])))  # ASCII digits only ("rouge\u0663" is no name)
        else:
            shown = repr(v) if len(repr(v)) <= 60 else repr(v)[:60] + "..."
            raise ValueError(
                f"variants must be names like 'rouge1', 'rouge2', ..., 'rouge10' (n from 1 "
                f"to 999999999, ASCII digits, no leading 0), 'rougeL', 'rougeLsum', "
                f"got {shown}"
            )
    out = {}
    flat = any(v != "rougeLsum" for v, _ in plan)
    if flat:
        cand = as_tokens(candidate, tokenizer, "candidate")
        refs = _references(references, lambda r, nm: as_tokens(r, tokenizer, nm), len(cand))
        tok = _flat_label(tokenizer, candidate, references)
    for v, n in plan:
        if v == "rougeLsum":
            out[v] = rouge_lsum(candidate, references, tokenizer=tokenizer, multi_ref=multi_ref)
        elif v == "rougeL":
            out[v] = _rouge_l_tokens(cand, refs, multi_ref, tok)
        else:
            out[v] = _rouge_n_tokens(cand, refs, n, multi_ref, tok)
    return out
