r"""Three small retrievers to evaluate: BM25, dense (MiniLM) and their fusion.

Each one returns a *run*, ``{qid: {docid: score}}``, the format
:func:`ragmetrics_edu.evaluate` and :func:`ragmetrics_edu.write_run` take, so
a lab can build a system, score it and test it against another one in a few
lines:

>>> from ragmetrics_edu.lab.datasets import load_cranfield
>>> cran = load_cranfield()
>>> run = bm25_run(cran.docs, cran.queries, depth=10)
>>> len(run), len(run["1"])
(225, 10)

``bm25_run``
    Okapi BM25 with the ``bm25s`` package (``pip install bm25s``, part of
    the ``lab`` extra).
``dense_run``
    Cosine similarity of all-MiniLM-L6-v2 sentence embeddings (the
    ``semantic`` extra). The embeddings of the Cranfield documents and
    queries are shipped with the package, because encoding the 1,400
    abstracts takes minutes on a laptop CPU.
``rrf``
    Reciprocal rank fusion of several runs (Cormack et al., 2009).

Ranks inside a run follow trec_eval's rule, the one
:func:`ragmetrics_edu.evaluate` uses: score descending, ties broken by
document id in descending string order.
"""

import hashlib
import importlib.resources
import json
import math
import numbers

import numpy as np

from .._deprecation import formerly_positional, renamed_arguments
from .._validation import check_choice, check_k

__all__ = ["bm25_run", "dense_run", "rrf", "document_embeddings", "BM25_METHODS"]

BM25_METHODS = ("lucene", "robertson", "atire", "bm25l", "bm25+")
"""The BM25 variants of ``bm25s`` (Kamphuis et al., 2020); ``"lucene"`` by default."""

LAB_HINT = 'pip install "ragmetrics-edu[lab]"   (or: pip install bm25s)'

# shipped MiniLM embeddings of the Cranfield collection
EMBEDDINGS_META = "cranfield_minilm.json"
EMBEDDINGS_FILES = {"docs": "cranfield_minilm_docs.npy",
                    "queries": "cranfield_minilm_queries.npy"}


# ----------------------------------------------------------------- inputs

def _texts(items, name, field):
    """``(ids, texts)`` from ``{id: text}`` or ``{id: {field: text, ...}}``."""
    if not hasattr(items, "items"):
        raise TypeError(f"{name} must be a dict {{id: text}}, got {type(items).__name__}")
    ids, texts = [], []
    for key, value in items.items():
        if hasattr(value, "items"):
            if field not in value:
                raise ValueError(
                    f"{name}[{key!r}] has no {field!r} entry (it has: "
                    f"{', '.join(map(str, value))})"
                )
            value = value[field]
        if not isinstance(value, str):
            raise TypeError(f"{name}[{key!r}] must be a string, got {value!r}")
        ids.append(str(key))
        texts.append(value)
    return ids, texts


def _corpus(docs, queries, field):
    """``(doc_ids, doc_texts), (qids, query_texts)``; at least one document, or raise."""
    doc_ids, doc_texts = _texts(docs, "docs", field)
    qids, query_texts = _texts(queries, "queries", field)
    if not doc_ids:
        raise ValueError("docs must hold at least one document, got none")
    return (doc_ids, doc_texts), (qids, query_texts)


def _depth(depth):
    return check_k(depth, name="depth", allow_none=True)


def _ranked(scores):
    """Docids of one run's query in trec_eval's order: score desc, docid desc."""
    return sorted(scores, key=lambda d: (-scores[d], _desc(d)))


def _desc(docid):
    # a key that sorts strings in descending order inside an ascending sort
    return tuple(-ord(ch) for ch in docid) + (1,)


# ----------------------------------------------------------------- BM25

def _import_bm25s():
    try:
        import bm25s
    except ImportError as exc:
        raise ImportError(f"bm25_run needs the bm25s package: {LAB_HINT}") from exc
    return bm25s


@renamed_arguments(top_k="depth")
@formerly_positional("k1", "b", "depth", "method", "stopwords", "stemmer", "field")
def bm25_run(docs, queries, *, k1=1.5, b=0.75, depth=100, method="lucene",
             stopwords="en", stemmer=None, field="text"):
    r"""Rank documents with Okapi BM25 (the ``bm25s`` package).

    The score of document :math:`d` for query :math:`q` sums over the query
    terms :math:`t`:

    .. math::

        \mathrm{BM25}(d, q) = \sum_{t \in q} \mathrm{idf}(t)
        \frac{f_{t,d}}{f_{t,d} + k_1 \left(1 - b + b
        \frac{|d|}{\mathrm{avgdl}}\right)},
        \qquad \mathrm{idf}(t) = \ln\left(1 + \frac{N - n_t + 0.5}{n_t + 0.5}\right)

    with :math:`f_{t,d}` the count of :math:`t` in :math:`d`, :math:`|d|`
    the document's length in terms, :math:`N` documents of which
    :math:`n_t` contain :math:`t`. This is the ``"lucene"`` variant; the
    textbook formula multiplies each term by :math:`k_1 + 1`, a constant
    that changes every score but no ranking (``method="atire"`` keeps it).
    The other variants differ in the idf and in the term-frequency part.

    Parameters
    ----------
    docs : dict
        ``{docid: text}``, or ``{docid: {field: text, ...}}`` such as
        ``load_cranfield().docs``.
    queries : dict
        ``{qid: text}``.
    k1 : float, default 1.5
        Term-frequency saturation.
    b : float, default 0.75
        Length normalisation, 0 (none) to 1 (full).
    depth : int or None, default 100
        Documents kept per query (the run's depth; a metric's cut-off is its
        ``k``); ``None`` keeps every matching document.  ``top_k=``, its
        old name, still works with a DeprecationWarning.
    method : {"lucene", "robertson", "atire", "bm25l", "bm25+"}
        The BM25 variant (``bm25s``'s names).
    stopwords : str, list of str or None, default "en"
        ``bm25s.tokenize``'s stop words: ``"en"`` (its English list), a list
        of words, or ``None`` to keep every word.
    stemmer : callable, optional
        A stemmer as ``bm25s.tokenize`` takes it: an object with a
        ``stemWords`` method (``Stemmer.Stemmer("english")`` from PyStemmer)
        or a function from a list of words to a list of stems. Default: no
        stemming (PyStemmer is not needed).
    field : str, default "text"
        The entry of each document dict to index (Cranfield's ``"text"`` is
        the abstract, which starts with the title).

    Returns
    -------
    dict of str to dict of str to float
        The run: ``{qid: {docid: score}}``. Only documents that share at
        least one term with the query are listed (as a search engine
        would); a query without a known term gets ``{}``.

    Notes
    -----
    Tokens are ``bm25s.tokenize``'s: lowercase words of two or more letters
    or digits (the regular expression ``\b\w\w+\b``), stop words removed,
    then the stemmer. Queries are tokenized the same way, and their words
    looked up in the documents' vocabulary; the sum runs over the query's
    words, so a word written twice in the query counts twice.

    References
    ----------
    S. E. Robertson and H. Zaragoza, "The probabilistic relevance
    framework: BM25 and beyond", Foundations and Trends in Information
    Retrieval 3(4), 2009.

    X. H. Lù, "BM25S: Orders of magnitude faster lexical search via eager
    sparse scoring", arXiv:2407.03618, 2024.

    Examples
    --------
    >>> docs = {"d1": "a wing in a slipstream", "d2": "heat transfer in a slab",
    ...         "d3": "the wing of a glider"}
    >>> run = bm25_run(docs, {"q": "wing slipstream"})
    >>> sorted(run["q"], key=run["q"].get, reverse=True)   # d2 shares no word: not listed
    ['d1', 'd3']
    """
    bm25s = _import_bm25s()
    check_choice(method, BM25_METHODS, name="method")
    for name, value in (("k1", k1), ("b", b)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real) \
                or not math.isfinite(value) or value < 0:
            raise ValueError(f"{name} must be a non-negative number, got {value!r}")
    if not 0 <= b <= 1:
        raise ValueError(f"b must be between 0 and 1, got {b!r}")
    depth = _depth(depth)
    (doc_ids, doc_texts), (qids, query_texts) = _corpus(docs, queries, field)
    if not qids:
        return {}

    corpus_tokens = bm25s.tokenize(doc_texts, stopwords=stopwords, stemmer=stemmer,
                                   show_progress=False)
    index = bm25s.BM25(k1=k1, b=b, method=method)
    index.index(corpus_tokens, show_progress=False)
    # words, not ids: the index maps them to its own vocabulary
    query_tokens = bm25s.tokenize(query_texts, stopwords=stopwords, stemmer=stemmer,
                                  return_ids=False, show_progress=False)
    k = len(doc_ids) if depth is None else min(depth, len(doc_ids))
    found, scores = index.retrieve(query_tokens, k=k, show_progress=False, n_threads=1)
    run = {}
    for qid, rows, values in zip(qids, found, scores):
        run[qid] = {doc_ids[int(i)]: float(s) for i, s in zip(rows, values) if s > 0}
    return run


# ----------------------------------------------------------------- dense

def _digest(ids, texts):
    """SHA-256 of the ids and texts, in order: which texts a cache holds."""
    h = hashlib.sha256()
    for key, text in zip(ids, texts):
        h.update(key.encode("utf-8") + b"\0" + text.encode("utf-8") + b"\0")
    return h.hexdigest()


def _data_file(name):
    return importlib.resources.files("ragmetrics_edu").joinpath("data", "cranfield", name)


def _cached(kind, ids, texts):
    """The shipped embeddings of these texts, or None if they are not the shipped ones."""
    meta_file = _data_file(EMBEDDINGS_META)
    if not meta_file.is_file():
        return None
    meta = json.loads(meta_file.read_text(encoding="utf-8"))
    entry = meta.get(kind)
    if entry is None or entry["digest"] != _digest(ids, texts):
        return None
    with _data_file(EMBEDDINGS_FILES[kind]).open("rb") as f:
        return np.load(f)


@formerly_positional("field", "cache", "kind")
def document_embeddings(docs, model=None, *, field="text", cache=True, kind="docs"):
    """Unit-length MiniLM embeddings of texts, one row per item, in dict order.

    Parameters
    ----------
    docs : dict
        ``{id: text}`` or ``{id: {field: text, ...}}``.
    model : str or os.PathLike, optional
        A model folder; default the shipped all-MiniLM-L6-v2.
    field : str, default "text"
        The entry of each dict to encode.
    cache : bool, default True
        Use the embeddings shipped for Cranfield when ``docs`` are exactly
        the Cranfield texts (checked by a SHA-256 digest of ids and texts)
        and ``model`` is the default.
    kind : {"docs", "queries"}
        Which shipped cache to look in.

    Returns
    -------
    numpy.ndarray
        ``(len(docs), 384)`` float32.
    """
    check_choice(kind, tuple(EMBEDDINGS_FILES), name="kind")
    ids, texts = _texts(docs, kind, field)
    if cache and model is None:
        cached = _cached(kind, ids, texts)
        if cached is not None:
            return cached
    from ..models.loading import encode_sentences

    return encode_sentences(texts, model=model)


@renamed_arguments(top_k="depth")
@formerly_positional("depth", "model", "field", "cache")
def dense_run(docs, queries, *, depth=100, model=None, field="text", cache=True):
    r"""Rank documents by the cosine similarity of sentence embeddings.

    .. math::

        s(d, q) = \cos(e_d, e_q) = e_d \cdot e_q

    where :math:`e` is the L2-normalised mean-pooled all-MiniLM-L6-v2
    embedding (:func:`ragmetrics_edu.models.loading.encode_sentences`).

    Parameters
    ----------
    docs : dict
        ``{docid: text}`` or ``{docid: {field: text, ...}}``.
    queries : dict
        ``{qid: text}``.
    depth : int or None, default 100
        Documents kept per query (``None``: all).  ``top_k=``, its old name,
        still works with a DeprecationWarning.
    model : str or os.PathLike, optional
        A model folder; default the shipped all-MiniLM-L6-v2.
    field : str, default "text"
        The entry of each document dict to encode.
    cache : bool, default True
        Use the shipped embeddings of the Cranfield documents and queries
        when the texts are exactly those (see :func:`document_embeddings`);
        anything else is encoded, which takes a while on a CPU.

    Returns
    -------
    dict of str to dict of str to float
        The run ``{qid: {docid: cosine}}``.

    Notes
    -----
    MiniLM reads at most 256 word pieces; longer abstracts are truncated.
    The shipped embeddings were made by ``tools/make_cranfield_embeddings.py``.

    References
    ----------
    N. Reimers and I. Gurevych, "Sentence-BERT: Sentence Embeddings using
    Siamese BERT-Networks", EMNLP 2019.

    Examples
    --------
    >>> from ragmetrics_edu.lab.datasets import load_cranfield
    >>> cran = load_cranfield()
    >>> run = dense_run(cran.docs, cran.queries, depth=5)   # shipped embeddings
    >>> "486" in run["1"]   # the paper query 1 was written from
    True
    """
    depth = _depth(depth)
    (doc_ids, _), (qids, _) = _corpus(docs, queries, field)
    if not qids:
        return {}
    doc_vecs = document_embeddings(docs, model=model, field=field, cache=cache, kind="docs")
    query_vecs = document_embeddings(queries, model=model, field=field, cache=cache,
                                     kind="queries")
    sims = query_vecs @ doc_vecs.T
    k = len(doc_ids) if depth is None else min(depth, len(doc_ids))
    run = {}
    for qid, row in zip(qids, sims):
        best = np.argsort(-row, kind="stable")[:k]
        run[qid] = {doc_ids[i]: float(row[i]) for i in best}
    return run


# ----------------------------------------------------------------- fusion

@renamed_arguments(k="rank_constant", top_k="depth")
@formerly_positional("depth")
def rrf(runs, rank_constant=60, *, depth=100):
    r"""Reciprocal rank fusion: add up ``1 / (rank_constant + rank)`` over the runs.

    .. math::

        \mathrm{RRF}(d, q) = \sum_{r \in \text{runs}} \frac{1}{c + \mathrm{rank}_r(d, q)}

    with :math:`c` = ``rank_constant`` (Cormack et al. call it :math:`k`;
    here ``k`` is always a cut-off, so the constant takes Elasticsearch's
    name, ``rank_constant``).

    A document a run does not list adds nothing for that run.

    Parameters
    ----------
    runs : list of dict, or dict of str to dict
        The runs to fuse, ``{qid: {docid: score}}`` each (their scores are
        only used to rank).  Document ids must be strings (a ``TypeError``
        names the run and query otherwise), as in trec_eval runs.
    rank_constant : float, default 60
        The constant of Cormack et al. (their :math:`k`); a larger constant
        flattens the difference between top and lower ranks.  ``k=``, its
        old name, still works with a DeprecationWarning.
    depth : int or None, default 100
        Documents kept per query in the fused run (``top_k=``, its old name,
        still works with a DeprecationWarning).

    Returns
    -------
    dict of str to dict of str to float
        The fused run, over every query of any run.

    Notes
    -----
    Ranks follow trec_eval: score descending, ties by document id in
    descending string order.

    References
    ----------
    G. V. Cormack, C. L. A. Clarke and S. Buettcher, "Reciprocal rank fusion
    outperforms Condorcet and individual rank learning methods", SIGIR 2009.

    Examples
    --------
    >>> a = {"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
    >>> b = {"q": {"d3": 0.9, "d1": 0.5}}
    >>> fused = rrf([a, b], rank_constant=60)
    >>> round(fused["q"]["d1"], 6)   # rank 1 in a, rank 2 in b: 1/61 + 1/62
    0.032522
    >>> sorted(fused["q"], key=fused["q"].get, reverse=True)
    ['d1', 'd3', 'd2']
    """
    if hasattr(runs, "items"):
        if _looks_like_run(runs):
            raise TypeError(
                "runs must be a list of runs (or a dict {name: run}), got a single "
                "run {qid: {docid: score}}; wrap it in a list"
            )
        runs = list(runs.values())
    if isinstance(runs, (str, bytes)) or not hasattr(runs, "__iter__"):
        raise TypeError(f"runs must be a list of runs, got {type(runs).__name__}")
    runs = list(runs)
    if not runs:
        raise ValueError("runs must hold at least one run, got none")
    for i, run in enumerate(runs):
        if not hasattr(run, "items"):
            raise TypeError(f"runs[{i}] must be a dict {{qid: {{docid: score}}}}, got "
                            f"{type(run).__name__}")
    if isinstance(rank_constant, bool) or not isinstance(rank_constant, numbers.Real) \
            or not math.isfinite(rank_constant) or rank_constant < 0:
        raise ValueError(f"rank_constant must be a non-negative number, got {rank_constant!r}")
    depth = _depth(depth)
    for i, run in enumerate(runs):
        for qid, scores in run.items():
            if not hasattr(scores, "items"):
                raise TypeError(f"runs[{i}][{qid!r}] must be a dict {{docid: score}}, got "
                                f"{type(scores).__name__}")
            for docid in scores:
                if not isinstance(docid, str):
                    raise TypeError(
                        f"runs[{i}][{qid!r}] must have string document ids (as trec_eval "
                        f"ranks them by string), got {docid!r} of type {type(docid).__name__}"
                    )
    fused = {}
    for run in runs:
        for qid, scores in run.items():
            total = fused.setdefault(str(qid), {})
            for rank, docid in enumerate(_ranked(scores), start=1):
                total[docid] = total.get(docid, 0.0) + 1.0 / (rank_constant + rank)
    out = {}
    for qid, totals in fused.items():
        ranked = _ranked(totals)
        if depth is not None:
            ranked = ranked[:depth]
        out[qid] = {d: totals[d] for d in ranked}
    return out


def _looks_like_run(mapping):
    """True if ``mapping`` is one run ``{qid: {docid: number}}``, not named runs."""
    for value in mapping.values():
        if not hasattr(value, "items"):
            return False
        for inner in value.values():
            return isinstance(inner, numbers.Real)
    return False
