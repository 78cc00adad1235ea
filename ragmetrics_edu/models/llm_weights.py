"""The language model's configuration and weights, read from its GGUF file.

:func:`read_config` reads the architecture's numbers from the file's metadata,
:func:`read_weights` dequantizes every tensor once to float32 (through
:mod:`ragmetrics_edu.models.gguf`) and undoes llama.cpp's order of the query
and key rows (:func:`unpermute_qk`).  Used by :mod:`ragmetrics_edu.models.decoder`.
"""

from dataclasses import dataclass

import numpy as np

from .gguf import GGUFError

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


def read_config(gguf):
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


def read_weights(gguf, config):
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
