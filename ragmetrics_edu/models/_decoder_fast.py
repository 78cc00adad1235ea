r"""The language model's fast path: :func:`decoder.forward <ragmetrics_edu.models.decoder.forward>`
computed on every core, in cache-sized blocks.

Engine, not lesson: :mod:`.decoder` holds the network as its formulas; this
module computes the same function the way the machine likes it, and
:class:`~ragmetrics_edu.models.decoder.LanguageModel` uses it by default
(``logits``, the distributions, ``generate``). ``tests/crosscheck/test_llm_fast.py``
holds it equal to :func:`decoder.forward`, ``test_llm_reference.py`` to transformers.

Where the time went before (profiles of prompts of 400 to 2,000 tokens on two
cores): half of it in the attention, which grows with the square of the
length, most of that in the softmax's passes over score matrices too large
for the CPU's cache, with BLAS's second thread waiting between its products
and every element-wise step on one core. What changes, and why:

* **Prompts** (more than :data:`FEW_TOKENS` new tokens) are cut into runs of
  tokens, each run through the layer's matrix products and element-wise
  steps on one core and one BLAS thread (:func:`._threads.run`): no core
  waits for another inside a product, and the norms, rotations and SiLU run
  on every core too. A layer's two halves meet at the attention, which needs
  every token's keys.
* **Causal attention in blocks**: the queries of a few tokens at a time
  against only the keys they can see (nothing past the diagonal is
  computed), so that a block's scores stay in the core's cache through the
  softmax's passes; blocks run on every core, the costliest first. The
  softmax's division comes after the product with ``V``, on the
  ``(rows, h)`` result instead of the ``(rows, seen)`` weights, and
  :math:`1/\sqrt h` scales the queries (``n h`` products, not ``n^2``).
* **Decoding** (at most :data:`FEW_TOKENS` new tokens) is not done here: every
  product is then a matrix times a vector, which only reads the weights from
  memory, and BLAS's own threads share that reading best (measured on two
  cores: 27 ms a token by :func:`decoder.forward`, 41 ms with the rows split
  over Python threads); the model runs :func:`decoder.forward` itself.
* **The output layer** (49,152 rows): only the rows needed (the last
  position with ``last_only``), the vocabulary split over the cores.

Every sum is one that :mod:`.decoder` computes, added in another order
(blocks, shares, threads): the results agree to float32 rounding, not bit
for bit.
"""

import numpy as np

from ._threads import cores, run

FEW_TOKENS = 8
"""Up to this many new tokens (decoding), the model runs :func:`decoder.forward` instead."""

ROWS_PER_RUN = 512
"""At most this many tokens per run of a prompt's matrix products."""

SCORES_PER_BLOCK = 1 << 19
"""Attention scores worked on at once (2 MB of float32): a block stays in a core's cache."""


def layers(model, x, cos, sin, cache, past, rms_norm):
    """The layers of :func:`decoder.forward <ragmetrics_edu.models.decoder.forward>` on a
    prompt, fast.

    ``x`` holds the new tokens' embeddings ``(n, d)`` (overwritten), ``cos`` and ``sin``
    their rotary tables, ``cache`` room for them after ``past`` tokens, and ``rms_norm``
    is :func:`decoder.rms_norm` (passed in: :mod:`.decoder` imports this module, which
    imports nothing of it). Returns the last layer's output and fills the cache. Call it
    on one BLAS thread (:func:`._threads.one_blas_thread`).
    """
    n = x.shape[0]
    config = model.config
    H, G, h = config.num_heads, config.num_kv_heads, config.head_size
    eps = config.rms_norm_eps
    scale = np.float32(1.0 / np.sqrt(h))
    queries = np.empty((n, H * h), dtype=np.float32)   # rotated, scaled; head j at j h
    attended = np.empty((n, H * h), dtype=np.float32)
    runs = _runs(n)
    blocks = _attention_blocks(n, past, G, H // G)
    mask = _block_mask(max(b[3] - b[2] for b in blocks), H // G)
    layers = model.layers

    def project(i, rows):
        xn = rms_norm(x[rows], layers[i].attn_norm, eps=eps)
        _project(model, i, xn, cos[rows, None], sin[rows, None], scale, queries[rows],
                 cache, slice(past + rows.start, past + rows.stop))

    def finish(i, rows):
        """A run's attention output, then its feed-forward, each added to the residual."""
        layer = layers[i]
        x[rows] += _product(attended[rows], layer.out)
        hidden = _product(rms_norm(x[rows], layer.ffn_norm, eps=eps), layer.gate_up)
        f = hidden.shape[1] // 2
        x[rows] += _product(_silu_gate(hidden[:, :f], hidden[:, f:]), layer.down)

    def finish_and_project(i, rows):
        finish(i, rows)
        if i + 1 < len(layers):
            project(i + 1, rows)

    run(lambda rows: project(0, rows), runs)
    values = np.ones((G, past + n, h + 1), dtype=np.float32)  # the values, then a 1
    for i in range(len(layers)):
        keys = cache.keys[i]
        values[:, :, :h] = cache.values[i][:, :past + n]
        run(lambda block: _attend(queries, keys, values, past, block, attended, mask), blocks)
        run(lambda rows: finish_and_project(i, rows), runs)
    return x


# ---------------------------------------------------------------- the steps


def _shares(n, count):
    """``count`` slices of ``range(n)`` as equal as can be (fewer if ``n`` is smaller)."""
    count = max(1, min(count, n))
    size = -(-n // count)
    return [slice(i, min(i + size, n)) for i in range(0, n, size)]


def _rotate(x, cos, sin, out):
    """:func:`decoder.apply_rotary` into ``out``, on ``(..., h)`` arrays broadcast with ``cos``."""
    half = x.shape[-1] // 2
    a, b = x[..., :half], x[..., half:]
    out_a, out_b = out[..., :half], out[..., half:]
    np.multiply(a, cos, out=out_a)
    out_a -= b * sin
    np.multiply(b, cos, out=out_b)
    out_b += a * sin


def _product(x, weight):
    """``x W^T`` on the calling thread (a prompt's run)."""
    return x @ weight.T


def _project(model, i, xn, cos, sin, scale, queries, cache, where):
    """Layer ``i``'s queries (rotated, scaled, into ``queries``), keys and values (into the cache)."""
    config = model.config
    H, G, h = config.num_heads, config.num_kv_heads, config.head_size
    r = xn.shape[0]
    qkv = _product(xn, model.layers[i].qkv)                             # (r, (H + 2G) h)
    _rotate(qkv[:, :H * h].reshape(r, H, h), cos * scale, sin * scale, queries.reshape(r, H, h))
    keys = np.empty((r, G, h), dtype=np.float32)
    _rotate(qkv[:, H * h:(H + G) * h].reshape(r, G, h), cos, sin, keys)
    cache.keys[i][:, where] = keys.transpose(1, 0, 2)
    cache.values[i][:, where] = qkv[:, (H + G) * h:].reshape(r, G, h).transpose(1, 0, 2)


def _silu_gate(gate, up):
    """``silu(gate) * up``, SiLU's steps in place (as :func:`decoder.silu`)."""
    out = np.negative(gate)
    with np.errstate(over="ignore"):               # exp(-x) = inf for x < -88: silu = -0
        np.exp(out, out=out)
    out += np.float32(1)
    np.divide(gate, out, out=out)
    out *= up
    return out


def _block_mask(tokens, per_group):
    """The mask M among a block's own tokens: row r (token r // per_group), key column c.

    Only they can lie in one another's future; the keys before the block are all
    seen. A block of fewer tokens uses the top-left corner.
    """
    token = np.arange(tokens).repeat(per_group)[:, None]
    return np.where(np.arange(tokens)[None, :] > token, np.float32(-np.inf), np.float32(0))


SAFE_EXPONENT = 32.0
"""Scores within this of 0 are exponentiated as they are (see :func:`_attend`)."""


def _attend(queries, keys, values, past, block, out, mask):
    r"""Causal attention of some key/value heads' query heads, for a block of tokens.

    ``block`` is (first key/value head, last, first token, last token); the
    queries are token by token, head ``j`` at columns ``j h .. (j + 1) h``,
    already scaled by :math:`1/\sqrt h`, and ``out`` takes the same layout.
    ``values`` carries a column of ones after its ``h``: the product with the
    weights also gives their sum (one pass over them less).

    The softmax subtracts each row's largest score before ``exp`` so that
    nothing overflows. When every row's largest score lies within
    :data:`SAFE_EXPONENT` (32) of 0, the scores are exponentiated as they
    are: the same weights, mathematically, one pass over the scores fewer,
    and no rounding of the differences. Nothing overflows (8,192 terms of at
    most :math:`e^{32}` add up to about :math:`6 \cdot 10^{17}`), and what
    underflows to 0 weighed less than :math:`e^{-87} / e^{-32} \approx 10^{-24}`
    of the row's largest weight.
    """
    g0, g1, first, last = block
    groups, _, h = keys.shape
    per_group = queries.shape[1] // h // groups
    tokens, columns = last - first, slice(g0 * per_group * h, g1 * per_group * h)
    # each key/value head's query heads token by token: row r is token first + r // per_group
    q = queries[first:last, columns].reshape(tokens, g1 - g0, per_group, h)
    q = q.transpose(1, 0, 2, 3).reshape(g1 - g0, tokens * per_group, h)
    seen = past + last                       # no token of the block sees beyond this key
    scores = q @ keys[g0:g1, :seen].transpose(0, 2, 1)                # (g, rows, seen)
    scores[:, :, past + first:] += mask[:tokens * per_group, :tokens]
    largest = scores.max(axis=2, keepdims=True)
    if not -SAFE_EXPONENT <= largest.min() <= largest.max() <= SAFE_EXPONENT:
        scores -= largest
    np.exp(scores, out=scores)
    result = scores @ values[g0:g1, :seen]                            # (g, rows, h + 1)
    result, total = result[..., :h], result[..., h:]
    result /= total
    out[first:last, columns] = result.reshape(g1 - g0, tokens, per_group * h) \
        .transpose(1, 0, 2).reshape(tokens, -1)


def head(model, xn):
    """The logits ``xn E^T``, the vocabulary split over the cores."""
    head = model.head
    out = np.empty((xn.shape[0], head.shape[0]), dtype=np.float32)
    shares = _shares(head.shape[0], 2 * cores())
    run(lambda rows: np.matmul(xn, head[rows].T, out=out[:, rows]), shares)
    return out


def _runs(n):
    """The runs of a prompt's tokens: a multiple of the cores, at most ROWS_PER_RUN
    tokens each (a matrix product of fewer than about 200 rows is slower a row), at
    least 16."""
    count = max(cores(), -(-n // ROWS_PER_RUN))
    count = -(-count // cores()) * cores()
    return _shares(n, min(count, max(1, n // 16)))


def _attention_blocks(n, past, groups, per_group):
    """The attention's work: (key/value head, the next, first token, last token),
    costliest first; at least one block per core for each key/value head."""
    seen = past + n
    tokens = max(8, min(-(-n // cores()), SCORES_PER_BLOCK // (per_group * seen)))
    blocks = [(g, g + 1, first, min(first + tokens, n)) for first in range(0, n, tokens)
              for g in range(groups)]
    return sorted(blocks, key=lambda b: -b[3])           # the latest tokens see the most keys
