"""The decoder's blocks on tiny arrays: by hand, with NumPy, and against transformers' Llama code.

The references: hand arithmetic (a norm of (3, 4), a quarter turn, a causal
mean), NumPy written straight from the formula, and transformers' own
``LlamaRMSNorm``, ``apply_rotary_pos_emb``, ``LlamaRotaryEmbedding`` and
``repeat_kv`` with torch's ``scaled_dot_product_attention``. None of these
needs the model file.
"""

import math

import numpy as np
import pytest

from ragmetrics_edu.models import decoder as lm

torch = pytest.importorskip("torch")
llama = pytest.importorskip("transformers.models.llama.modeling_llama")


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def test_rms_norm_by_hand_and_against_llama():
    x = np.array([[3.0, 4.0]], dtype=np.float32)
    w = np.array([1.0, 2.0], dtype=np.float32)
    rms = math.sqrt((9 + 16) / 2)
    np.testing.assert_allclose(lm.rms_norm(x, w, eps=0.0), [[3 / rms, 8 / rms]], rtol=1e-6)
    x, w = rand(5, 16), rand(16, seed=1)
    ref = llama.LlamaRMSNorm(16, eps=1e-5)
    ref.weight.data = torch.from_numpy(w)
    with torch.no_grad():
        want = ref(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(lm.rms_norm(x, w, eps=1e-5), want, rtol=1e-6, atol=1e-6)


def test_rotary_tables_against_llama():
    config = llama.LlamaConfig(hidden_size=64, num_attention_heads=4, rope_theta=100000.0,
                               max_position_embeddings=64)
    rope = llama.LlamaRotaryEmbedding(config)
    pos = torch.arange(50)[None]
    cos_ref, sin_ref = rope(torch.zeros(1, 50, 16), pos)
    cos, sin = lm.rotary_tables(16, 50, theta=100000.0)
    # transformers repeats the h/2 angles for both halves
    np.testing.assert_allclose(np.concatenate([cos, cos], 1), cos_ref[0].numpy(), atol=2e-5)
    np.testing.assert_allclose(np.concatenate([sin, sin], 1), sin_ref[0].numpy(), atol=2e-5)
    c, s = lm.rotary_tables(4, np.array([3]), theta=100.0)       # angles 3 * 100**(-i/2)
    np.testing.assert_allclose(s, [[math.sin(3), math.sin(0.3)]], rtol=1e-6)


def test_apply_rotary_against_llama_and_rotation():
    q, k = rand(3, 7, 8), rand(2, 7, 8, seed=1)
    cos, sin = lm.rotary_tables(8, 7, theta=10000.0)
    full_cos = torch.from_numpy(np.concatenate([cos, cos], 1))[None]
    full_sin = torch.from_numpy(np.concatenate([sin, sin], 1))[None]
    q_ref, k_ref = llama.apply_rotary_pos_emb(torch.from_numpy(q)[None], torch.from_numpy(k)[None],
                                              full_cos, full_sin)
    np.testing.assert_allclose(lm.apply_rotary(q, cos, sin), q_ref[0].numpy(), atol=1e-6)
    np.testing.assert_allclose(lm.apply_rotary(k, cos, sin), k_ref[0].numpy(), atol=1e-6)
    # a rotation keeps lengths, and the dot product depends on the offset only
    out = lm.apply_rotary(q, cos, sin)
    np.testing.assert_allclose(np.linalg.norm(out, axis=-1), np.linalg.norm(q, axis=-1), rtol=1e-5)
    v = rand(1, 1, 8, seed=3)
    at = [lm.apply_rotary(v, *lm.rotary_tables(8, np.array([p]), theta=10000.0)) for p in (2, 5, 11, 14)]
    np.testing.assert_allclose(float((at[0] * at[1]).sum()), float((at[2] * at[3]).sum()), rtol=1e-5)


def gguf_permute(w, heads):
    """llama.cpp's converter, written from its description: rows (half, i) -> (i, half)."""
    rows, cols = w.shape
    return w.reshape(heads, 2, rows // heads // 2, cols).swapaxes(1, 2).reshape(rows, cols)


def test_unpermute_qk_undoes_the_converter():
    w = rand(3 * 8, 5)
    np.testing.assert_array_equal(lm.unpermute_qk(gguf_permute(w, 3), 3), w)
    # llama.cpp's adjacent pairs with permuted weights = halves with the original ones
    x, cos, sin = rand(1, 5), *lm.rotary_tables(8, np.array([4]), theta=10000.0)
    halves = lm.apply_rotary((x @ w.T).reshape(1, 3, 8).transpose(1, 0, 2), cos, sin)
    y = (x @ gguf_permute(w, 3).T).reshape(3, 4, 2)       # pairs (2i, 2i + 1)
    a, b = y[..., 0], y[..., 1]
    pairs = np.stack([a * cos - b * sin, b * cos + a * sin], -1).reshape(3, 8)
    np.testing.assert_allclose(lm.unpermute_qk(pairs.reshape(24, 1), 3).reshape(3, 8),
                               halves[:, 0], atol=1e-6)


def test_causal_attention_by_hand():
    q = np.ones((1, 3, 1), dtype=np.float32)
    k = np.zeros((1, 3, 1), dtype=np.float32)
    v = np.array([[[3.0], [6.0], [9.0]]], dtype=np.float32)
    # equal scores: each token averages the values up to itself
    assert lm.causal_attention(q, k, v)[0, :, 0].tolist() == [3.0, 4.5, 6.0]
    # with two tokens before, the one new token sees all three
    assert lm.causal_attention(q[:, :1], k, v, past=2)[0, 0, 0] == pytest.approx(6.0)


@pytest.mark.parametrize("past", [0, 5])
def test_grouped_query_attention_against_torch(past):
    heads, groups, n, h = 6, 2, 7, 8
    q, k, v = rand(heads, n, h), rand(groups, past + n, h, seed=1), rand(groups, past + n, h, seed=2)
    kt = llama.repeat_kv(torch.from_numpy(k)[None], heads // groups)
    vt = llama.repeat_kv(torch.from_numpy(v)[None], heads // groups)
    mask = torch.ones(n, past + n, dtype=torch.bool).tril(diagonal=past)
    want = torch.nn.functional.scaled_dot_product_attention(
        torch.from_numpy(q)[None], kt, vt, attn_mask=mask)[0].numpy()
    np.testing.assert_allclose(lm.causal_attention(q, k, v, past=past), want, atol=1e-5)


def test_silu_softmax_feed_forward():
    x = rand(4, 6)
    np.testing.assert_allclose(lm.silu(x), x / (1 + np.exp(-x.astype(np.float64))), rtol=1e-6)
    assert lm.silu(np.array([-200.0, 200.0], dtype=np.float32)).tolist() == [-0.0, 200.0]
    np.testing.assert_allclose(lm.softmax(np.array([1.0, 2.0, 3.0])),
                               np.exp([1, 2, 3]) / np.exp([1, 2, 3]).sum())
    assert lm.softmax(np.array([1000.0, 1000.0])).tolist() == [0.5, 0.5]   # no overflow
    gate, up, down = rand(10, 6, seed=1), rand(10, 6, seed=2), rand(6, 10, seed=3)
    mlp = llama.LlamaMLP(llama.LlamaConfig(hidden_size=6, intermediate_size=10, hidden_act="silu",
                                       num_attention_heads=2, num_key_value_heads=2))
    mlp.gate_proj.weight.data, mlp.up_proj.weight.data = torch.from_numpy(gate), torch.from_numpy(up)
    mlp.down_proj.weight.data = torch.from_numpy(down)
    with torch.no_grad():
        want = mlp(torch.from_numpy(x)).numpy()
    got = lm.feed_forward(x, np.concatenate([gate, up]), down)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_top_p_filter_by_hand():
    p = np.array([0.1, 0.5, 0.25, 0.15])
    assert lm.top_p_filter(p, 0.5).tolist() == [0, 1, 0, 0]          # 0.5 reaches 0.5
    np.testing.assert_allclose(lm.top_p_filter(p, 0.6), [0, 2 / 3, 1 / 3, 0])
    np.testing.assert_allclose(lm.top_p_filter(p, 1.0), p)
    assert lm.top_p_filter(p, 1e-9).tolist() == [0, 1, 0, 0]         # the top token stays


def test_render_chatml_against_jinja():
    jinja2 = pytest.importorskip("jinja2.sandbox")
    env = jinja2.ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    template = env.from_string(lm.SMOLLM2_TEMPLATE)
    conversations = [
        [{"role": "user", "content": "Hi"}],
        [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "2+2?"}],
        [{"role": "user", "content": "a\n\nb"}, {"role": "assistant", "content": "c"},
         {"role": "user", "content": "{{ not a template }} <|im_end|>"}],
    ]
    for messages in conversations:
        for gen in (True, False):
            assert lm.render_chatml(messages, lm.SMOLLM2_SYSTEM, add_generation_prompt=gen) == template.render(
                messages=messages, add_generation_prompt=gen)


def test_kv_cache_grows_and_truncates():
    config = lm.LanguageModelConfig(vocab_size=4, hidden_size=4, num_layers=2, num_heads=2,
                                    num_kv_heads=1, intermediate_size=4, context_length=16,
                                    rope_theta=10000.0, rms_norm_eps=1e-5)
    cache = lm.KVCache(config, capacity=2)
    cache.keys[0][:, :2] = 1.0
    cache.length = 2
    cache.reserve(3)
    assert cache.capacity >= 5 and cache.keys[0][:, :2].tolist() == [[[1.0, 1.0]] * 2]
    cache.truncate(1)
    assert cache.length == 1
    with pytest.raises(ValueError, match="length must be from 0 to 1, got 3"):
        cache.truncate(3)
