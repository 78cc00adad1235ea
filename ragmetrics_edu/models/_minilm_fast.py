r"""The encoder's fast path: :func:`minilm.forward <ragmetrics_edu.models.minilm.forward>`
computed on every core, in cache-sized groups, with a GELU that needs no scipy.

Engine, not lesson: :mod:`.minilm` holds the network as its formulas, one short
function per block (:func:`~.minilm.gelu` with ``math.erf``, a plain softmax);
this module computes the same function the way the machine likes it, and
:func:`~.minilm.forward`, :func:`~.minilm.sentence_embeddings` and
:func:`~.minilm.attention` (BERTScore, dense retrieval, the judges, every
notebook) run it. ``tests/crosscheck/test_minilm_fast.py`` holds it equal to
the readable blocks; ``test_minilm.py`` holds both equal to transformers.

What changes, and why:

* **GELU** needs the normal tail :math:`P(Z > |x|)` of every one of the
  feed-forward's ``n \times 1536`` numbers. ``math.erf`` takes them one by
  one in Python, and scipy is not a dependency of the package: here the tail
  is a polynomial fitted once to ``math.erfc`` (:func:`normal_tail`, relative
  error under 5e-8, below float32's rounding), computed on whole arrays in
  chunks that stay in the CPU's cache, the chunks on every core.
* **Attention** of a few texts at a time: their weights stay in the CPU's
  cache through the softmax's passes, where a whole batch's would not (32
  texts of 256 pieces: 100 MB); the groups run on every core, each on one
  BLAS thread, and the softmax works in place.
* **A tiny batch** (a judge's sentence or two) runs on one BLAS thread: its
  products are small, and waiting for a second thread costs more than they do.

Together (64 Cranfield abstracts of up to 256 pieces, in batches of 32, on two
cores shared with other work): 6 to 7 s here, 70 to 120 s with the readable
blocks.

The embeddings, the dense layers and the layer norms are :mod:`.minilm`'s own
functions, passed in as :class:`Blocks` (:mod:`.minilm` imports this module,
which imports nothing of it). The attention and the layers add the same
numbers in the same order as the readable blocks; the GELU's tail differs from
``math.erf``'s by float32 rounding: the two paths agree to float32 rounding,
not bit for bit.
"""

import contextlib
import os
from typing import Callable, NamedTuple

import numpy as np

from ._threads import one_blas_thread


class Blocks(NamedTuple):
    """The readable blocks of :mod:`.minilm` that the fast path runs as they are."""

    embed: Callable
    split_heads: Callable
    linear: Callable
    layer_norm: Callable


# ---------------------------------------------------------------- GELU without scipy


# P(Z > u) = t exp(-u^2 / 2 + P(t)) with t = 1 / (1 + u / 4): the polynomial P
# (highest power first) is a least-squares Chebyshev fit of
# log(erfc(u / sqrt 2) / (2 t)) + u^2 / 2 on 0 <= u <= 9, computed with
# math.erfc in float64; its relative error is under 5e-8 (float32 rounds to 6e-8).
_TAIL_POLY = (-0.30731399, 1.67658749, -3.574654, 3.77069511, -2.3805201,
              1.20698138, 0.18705175, 1.03542144, -2.30739626)
_GELU_CHUNK = 65536   # values per step: the temporaries stay in the CPU cache


def normal_tail(u):
    r"""The standard normal tail :math:`P(Z > u)` for :math:`u \ge 0`, to float precision.

    .. math:: P(Z > u) = \tfrac12 \mathrm{erfc}(u / \sqrt 2) = t\, e^{-u^2/2 + P(t)},
              \qquad t = \frac{1}{1 + u/4}

    with ``P`` a polynomial of degree 8 fitted once to ``math.erfc``
    (relative error under 5e-8 on ``0 <= u <= 9``; past 9 the tail is below
    1e-19). Whole arrays at a time, in NumPy: about twice as fast as
    ``scipy.special.erf``, which computes one number after the other.
    """
    f = u.dtype.type
    t = u + f(4)
    np.divide(f(4), t, out=t)                       # t = 1 / (1 + u / 4)
    p = t * f(_TAIL_POLY[0])
    p += f(_TAIL_POLY[1])
    for c in _TAIL_POLY[2:]:                        # Horner: p = p t + c
        p *= t
        p += f(c)
    half_square = u * u
    half_square *= 0.5
    p -= half_square
    np.exp(p, out=p)
    p *= t
    return p


def gelu(x, out=None):
    r"""BERT's GELU, exact (with the error function, not the tanh approximation).

    .. math:: \mathrm{GELU}(x) = x\,\Phi(x) = \frac{x}{2} \left(1 + \mathrm{erf}\frac{x}{\sqrt 2}\right)
              = \max(x, 0) - |x|\, P(Z > |x|)

    (:math:`\Phi` the standard normal distribution function; the last form
    follows from :math:`\Phi(x) = 1 - P(Z > x)` and :math:`\Phi(-x) = P(Z > x)`.)
    The tail comes from :func:`normal_tail`, as accurate as float32 holds.
    ``out`` (an array of ``x``'s shape and type, ``x`` itself allowed) saves
    allocating the result.
    """
    x = np.asarray(x, dtype=np.result_type(x, np.float32))   # float32 stays float32
    if out is None:
        out = np.empty(x.shape, dtype=x.dtype)
    elif out.shape != x.shape or out.dtype != x.dtype or not out.flags.c_contiguous:
        raise ValueError(f"out must be a contiguous {x.dtype} array of shape {x.shape}, "
                         f"got {out.dtype} {out.shape}")
    flat, flat_out = x.reshape(-1), out.reshape(-1)

    def chunk(start):
        part = flat[start:start + _GELU_CHUNK]
        u = np.abs(part)
        tail = normal_tail(u)
        tail *= u
        np.maximum(part, 0, out=flat_out[start:start + _GELU_CHUNK])
        flat_out[start:start + _GELU_CHUNK] -= tail

    starts = range(0, flat.size, _GELU_CHUNK)
    if len(starts) > 1:
        # NumPy lets go of Python's lock inside each operation: the chunks
        # run on every core at once
        list(_workers().map(chunk, starts))
    else:
        for start in starts:
            chunk(start)
    return out


_POOL = []   # one thread pool, made at first use


def _workers():
    """A pool of one thread per core, for :func:`gelu`'s chunks and the attention's groups."""
    if not _POOL:
        from concurrent.futures import ThreadPoolExecutor

        _POOL.append(ThreadPoolExecutor(max_workers=os.cpu_count() or 1))
    return _POOL[0]


# ---------------------------------------------------------------- the layers


def attention_weights(q, k, mask):
    r""":func:`minilm.attention_weights <ragmetrics_edu.models.minilm.attention_weights>`,
    in place, on one BLAS thread.

    .. math:: A = \mathrm{softmax}\left(\frac{Q K^\top}{\sqrt{d_h}}\right)
    """
    # q, k: (b, H, n, dh); mask: (b, n), 1 for a real piece, 0 for padding
    with one_blas_thread():
        scores = q @ k.transpose(0, 1, 3, 2)                      # (b, H, n, n)
    scores /= np.sqrt(q.shape[-1]).astype(scores.dtype)
    # a padded key is never looked at: adding the lowest float to its score
    # makes its weight exp(-3.4e38) = 0 (the arrays are large, so each step
    # below works in place)
    padding = np.where(mask == 0, np.finfo(np.float32).min, 0).astype(scores.dtype)  # (b, n)
    scores += padding[:, None, None, :]
    scores -= scores.max(axis=-1, keepdims=True)                  # for a stable exp
    np.exp(scores, out=scores)
    scores /= scores.sum(axis=-1, keepdims=True)                  # rows sum to 1
    return scores


_ATTENTION_CACHE = 1 << 18   # attention weights worked on at once: 1 MB of float32


def self_attention(x, mask, p, heads, keep_weights, blocks):
    """:func:`minilm.self_attention <ragmetrics_edu.models.minilm.self_attention>`, a few
    texts at a time on every core.

    Returns the output (b, n, d), before the residual, and the weights
    (b, H, n, n), or None for the weights if ``keep_weights`` is False.
    """
    linear, split_heads = blocks.linear, blocks.split_heads
    q = split_heads(linear(x, p["attention.self.query.weight"], p["attention.self.query.bias"]), heads)
    k = split_heads(linear(x, p["attention.self.key.weight"], p["attention.self.key.bias"]), heads)
    v = split_heads(linear(x, p["attention.self.value.weight"], p["attention.self.value.bias"]), heads)
    b, _, n, _ = q.shape
    context = np.empty(q.shape, dtype=q.dtype)                    # (b, H, n, dh)
    weights = np.empty((b, heads, n, n), dtype=q.dtype) if keep_weights else None

    def some_texts(texts):
        a = attention_weights(q[texts], k[texts], mask[texts])         # (t, H, n, n)
        np.matmul(a, v[texts], out=context[texts])                     # (t, H, n, dh)
        if keep_weights:
            weights[texts] = a

    # A few texts at a time: their weights stay in the CPU cache through the
    # softmax's passes, where a whole batch's would not (32 texts of 256
    # pieces: 100 MB). The groups go to every core at once.
    workers = os.cpu_count() or 1
    per_group = max(1, min(-(-b // workers), _ATTENTION_CACHE // (heads * n * n)))
    with one_blas_thread():
        list(_workers().map(some_texts, [slice(i, i + per_group) for i in range(0, b, per_group)]))
    context = context.transpose(0, 2, 1, 3).reshape(b, n, -1)     # heads side by side: (b, n, d)
    out = linear(context, p["attention.output.dense.weight"], p["attention.output.dense.bias"])
    return out, weights


def feed_forward(x, p, blocks):
    """:func:`minilm.feed_forward <ragmetrics_edu.models.minilm.feed_forward>` with the fast
    :func:`gelu`, in place."""
    linear = blocks.linear
    h = linear(x, p["intermediate.dense.weight"], p["intermediate.dense.bias"])        # (b, n, 1536)
    gelu(h, out=h)                                                  # in place: h is large
    return linear(h, p["output.dense.weight"], p["output.dense.bias"])                # (b, n, d)


def transformer_layer(x, mask, p, config, keep_weights, blocks):
    """:func:`minilm.transformer_layer <ragmetrics_edu.models.minilm.transformer_layer>` on
    the fast blocks.

    Returns the new hidden states (b, n, d) and the attention weights
    (None if ``keep_weights`` is False).
    """
    layer_norm = blocks.layer_norm
    eps = config.layer_norm_eps
    attended, weights = self_attention(x, mask, p, config.num_attention_heads, keep_weights,
                                       blocks)
    x = layer_norm(x + attended, p["attention.output.LayerNorm.weight"],
                   p["attention.output.LayerNorm.bias"], eps=eps)     # residual, then norm
    x = layer_norm(x + feed_forward(x, p, blocks), p["output.LayerNorm.weight"],
                   p["output.LayerNorm.bias"], eps=eps)               # residual, then norm
    return x, weights


SMALL_BATCH_PIECES = 256
"""Batches with fewer word pieces than this (all texts, padding included) run on one BLAS thread."""


def forward(model, ids, mask, n_layers, keep_weights, blocks):
    """The embeddings and the first ``n_layers`` layers of a padded batch:
    :func:`minilm.forward <ragmetrics_edu.models.minilm.forward>`'s work.

    Parameters
    ----------
    model : MiniLM
    ids, mask : numpy.ndarray
        ``(b, n)``: the word pieces' ids, padded, and 1 for a real piece, 0 for padding.
    n_layers : int
        How many layers to run.
    keep_weights : bool
        Return the attention weights too.
    blocks : Blocks
        The readable functions this path shares with :mod:`.minilm`.

    Returns
    -------
    (list of numpy.ndarray, list)
        The hidden states (``n_layers + 1`` arrays ``(b, n, d)``) and the attention
        weights (``n_layers`` arrays ``(b, H, n, n)``, or None each without
        ``keep_weights``).
    """
    # A tiny batch (a judge's sentence or two) is all small products: on one
    # BLAS thread it does not wait for the others (see one_blas_thread).
    # From a few sentences on, every thread pays on a quiet machine (64
    # sentences: 1.3 s on two threads, 1.9 s on one; 4 sentences: 67 and 106
    # ms), as it does for torch, which always uses them.
    small = ids.size < SMALL_BATCH_PIECES
    with one_blas_thread() if small else contextlib.nullcontext():
        x = blocks.embed(model, ids)
        hidden, attentions = [x], []
        for i in range(n_layers):
            x, a = transformer_layer(x, mask, model.layer(i), model.config, keep_weights, blocks)
            hidden.append(x)
            attentions.append(a)
    return hidden, attentions
