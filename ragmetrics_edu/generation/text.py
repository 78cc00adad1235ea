"""Tokenizers for the n-gram overlap metrics (BLEU, ROUGE).

A metric that counts shared n-grams is only as meaningful as the tokens
it counts, so the tokenizer is always a named choice and travels with the
result (see the ``signature`` of :func:`ragmetrics_edu.bleu`).

===============================  =================================================
tokenizer                        what it does
===============================  =================================================
:func:`whitespace_tokenize`      ``str.split()``: splits on runs of whitespace,
                                 keeps case and punctuation.  The default of every
                                 metric; equals sacrebleu's ``tokenize="none"``.
:func:`rouge_tokenize`           rouge-score's default: lowercase, every run of
                                 characters outside ``[a-z0-9]`` is a separator.
:func:`rouge_tokenize_stemmed`   the same, then the Porter stemmer on tokens
                                 longer than 3 characters (rouge-score's
                                 ``use_stemmer=True``).
===============================  =================================================

Any callable from a string to a list of strings can be passed as
``tokenizer=`` to the metrics instead.

Porter stemming uses nltk's ``PorterStemmer`` (pure Python, no data
download).  nltk is an optional dependency, imported on first use:
``pip install "ragmetrics-edu[stem]"``.
"""

import functools
import re

__all__ = [
    "whitespace_tokenize",
    "rouge_tokenize",
    "rouge_tokenize_stemmed",
    "porter_stem",
    "tokenizer_name",
]

_ROUGE_TOKEN_RE = re.compile(r"[a-z0-9]+")

STEM_EXTRA = "stem"
"""Name of the optional-dependency extra that installs nltk for stemming."""

PORTER_MODES = ("NLTK_EXTENSIONS", "MARTIN_EXTENSIONS", "ORIGINAL_ALGORITHM")


def whitespace_tokenize(text):
    r"""Split ``text`` on runs of whitespace, keeping case and punctuation.

    This is Python's ``str.split()`` with no argument: leading and trailing
    whitespace is dropped and any run of whitespace separates two tokens:
    spaces, tabs, newlines and the Unicode ones (no-break space ``\xa0``,
    line separator ``\u2028``, ...), but not the zero-width space
    ``\u200b``, which is no whitespace to Python.  sacrebleu's BLEU splits
    the same way with ``tokenize="none"``, so BLEU on these tokens equals
    sacrebleu's on the same strings.

    Parameters
    ----------
    text : str
        The text to split.

    Returns
    -------
    list of str
        The tokens, in order.

    See Also
    --------
    rouge_tokenize : lowercase alphanumeric tokens, as rouge-score.

    Notes
    -----
    Punctuation stays attached: ``"Games."`` and ``"Games"`` are different
    tokens.  Use :func:`rouge_tokenize` (or your own callable) when that is
    not wanted.

    Examples
    --------
    >>> whitespace_tokenize("I have  thirty six years")
    ['I', 'have', 'thirty', 'six', 'years']
    >>> whitespace_tokenize("The Hunger Games is a great read.")[-1]
    'read.'
    >>> whitespace_tokenize("thirty\xa0six\u200byears")   # no-break space splits
    ['thirty', 'six\u200byears']
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}: {text!r}")
    return text.split()


def rouge_tokenize(text, *, stem=False):
    """Tokenize as Google's rouge-score does by default.

    The text is lowercased; every run of characters other than ``a-z`` and
    ``0-9`` separates tokens (so punctuation and non-ASCII letters vanish).
    With ``stem=True`` every token longer than 3 characters is replaced by
    its Porter stem (nltk's ``PorterStemmer`` in its default
    ``NLTK_EXTENSIONS`` mode, which is what rouge-score constructs).

    Parameters
    ----------
    text : str
        The text to split.
    stem : bool, default False
        Apply :func:`porter_stem` to tokens longer than 3 characters
        (rouge-score's ``use_stemmer=True``).  Needs nltk.

    Returns
    -------
    list of str
        The tokens, in order.

    See Also
    --------
    rouge_tokenize_stemmed : the same with ``stem=True``.
    whitespace_tokenize : the default tokenizer of every metric.

    Notes
    -----
    rouge-score lowercases, replaces ``[^a-z0-9]+`` by a space, splits on
    whitespace, optionally stems, and keeps the tokens matching
    ``^[a-z0-9]+$``.  Finding the runs of ``[a-z0-9]`` in the lowercased
    text gives the same tokens in one step.

    Examples
    --------
    >>> rouge_tokenize("The Hunger Games is a great read. I loved it.")
    ['the', 'hunger', 'games', 'is', 'a', 'great', 'read', 'i', 'loved', 'it']
    >>> rouge_tokenize("I really loved reading", stem=True)
    ['i', 'realli', 'love', 'read']
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}: {text!r}")
    tokens = _ROUGE_TOKEN_RE.findall(text.lower())
    if stem:
        stemmer = _porter_stem_function("NLTK_EXTENSIONS")
        tokens = [stemmer(t) if len(t) > 3 else t for t in tokens]
        # a stem is never empty, but keep rouge-score's final validity check
        tokens = [t for t in tokens if _ROUGE_TOKEN_RE.fullmatch(t)]
    return tokens


def rouge_tokenize_stemmed(text):
    """Tokenize as rouge-score does with ``use_stemmer=True``.

    Equivalent to ``rouge_tokenize(text, stem=True)``; a named function so
    that it can be passed as ``tokenizer=`` and shows in signatures.

    Parameters
    ----------
    text : str
        The text to split.

    Returns
    -------
    list of str
        Lowercase alphanumeric tokens, those longer than 3 characters stemmed.

    See Also
    --------
    rouge_tokenize, porter_stem

    Examples
    --------
    >>> rouge_tokenize_stemmed("Cats were running")
    ['cat', 'were', 'run']
    """
    return rouge_tokenize(text, stem=True)


def porter_stem(token, *, mode="NLTK_EXTENSIONS"):
    """Return the Porter stem of ``token`` (nltk's ``PorterStemmer``).

    Parameters
    ----------
    token : str
        One word.
    mode : {"NLTK_EXTENSIONS", "MARTIN_EXTENSIONS", "ORIGINAL_ALGORITHM"}
        nltk's variant of the algorithm.  ``"NLTK_EXTENSIONS"`` (nltk's
        default) is the one rouge-score uses; ``"ORIGINAL_ALGORITHM"`` is
        Porter (1980) as published.

    Returns
    -------
    str
        The stem, lowercased.

    Raises
    ------
    ImportError
        If nltk is not installed (``pip install "ragmetrics-edu[stem]"``).

    References
    ----------
    .. [1] M. F. Porter, "An algorithm for suffix stripping", Program 14(3),
       1980, pp. 130-137.

    Examples
    --------
    >>> porter_stem("reading"), porter_stem("loved")
    ('read', 'love')
    """
    if mode not in PORTER_MODES:
        known = ", ".join(repr(m) for m in PORTER_MODES)
        raise ValueError(f"mode must be one of {known}, got {mode!r}")
    if not isinstance(token, str):
        raise TypeError(f"token must be a string, got {type(token).__name__}: {token!r}")
    return _porter_stem_function(mode)(token)


@functools.lru_cache(maxsize=None)
def _porter_stem_function(mode):
    """Build (once per mode) a cached stemming function."""
    try:
        from nltk.stem.porter import PorterStemmer
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "Porter stemming needs nltk, an optional dependency of ragmetrics_edu; "
            f'install it with: pip install "ragmetrics-edu[{STEM_EXTRA}]"'
        ) from exc
    stemmer = PorterStemmer(mode=getattr(PorterStemmer, mode))
    return functools.lru_cache(maxsize=2**16)(stemmer.stem)


def tokenizer_name(tokenizer):
    """Return a short name for ``tokenizer``, used in result signatures.

    Examples
    --------
    >>> tokenizer_name(None), tokenizer_name(rouge_tokenize)
    ('whitespace', 'rouge')
    """
    if tokenizer is None or tokenizer is whitespace_tokenize:
        return "whitespace"
    if tokenizer is rouge_tokenize:
        return "rouge"
    if tokenizer is rouge_tokenize_stemmed:
        return "rouge+porter"
    name = getattr(tokenizer, "__name__", None)
    if name is None and isinstance(tokenizer, functools.partial):
        name = getattr(tokenizer.func, "__name__", None)
        if name is not None:
            args = ",".join(f"{k}={v!r}" for k, v in tokenizer.keywords.items())
            name = f"{name}({args})"
    return name or repr(tokenizer)
