"""The NumPy transformer: equal to transformers (torch, float32) at every layer.

The references: ``transformers.BertModel`` and its tokenizer for the hidden
states, word pieces and attention weights; ``sentence_transformers`` for the
sentence embeddings; the blocks by hand (math.erf, a softmax of three numbers).
``minilm.forward`` runs the fast path (``_minilm_fast``); ``test_minilm_fast.py``
holds the readable blocks equal to it and to transformers.
"""

import dataclasses
import json
import math
import os
import random
import shutil

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragmetrics_edu.models import _minilm_fast as fast
from ragmetrics_edu.models import loading as _models
from ragmetrics_edu.models import minilm
from tests._minilm_reference import reference_hidden

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

N_SENTENCES = int(os.environ.get("RAGMETRICS_MINILM_SENTENCES", "1000"))
"""How many random sentences are compared at every layer: the issue's 1,000 (33 s
on two quiet cores, about a minute on busy ones); ``RAGMETRICS_MINILM_SENTENCES``
sets another number."""

WORDS = ["the", "The", "THE", "boundary", "Layer", "SUPERSONIC", "flow", "wing", "naïve",
         "café", "Über", "straße", "東京", "数据", "ñandú", "Ελληνικά", "Москва", "😀", "e=mc²",
         "x-ray", "don't", "U.S.A.", "(1958)", "3.14", "—", "...", "Mach", "heat-transfer",
         "unbelievably", "antidisestablishmentarianism", "ﬁne", "a\u0301", "\t", "-",
         "Cranfield", "jet", "ablation", "#42", "50%", "$100"]


def random_sentences(n, seed=0, n_long=2, max_words=12):
    """Empty, one-word, short and ``n_long`` long (past 512 pieces) sentences,
    mixed scripts and case."""
    rng = random.Random(seed)
    out = ["", " ", "a", "[UNK]", "Hello", "HELLO world"]
    out += [" ".join(rng.choice(WORDS) for _ in range(rng.randint(300, 400)))
            for _ in range(n_long)]                   # 520 to 1,000 pieces: cut to 512
    while len(out) < n:
        length = 1 if rng.random() < 0.1 else rng.randint(2, max_words)
        out.append(" ".join(rng.choice(WORDS) for _ in range(length)))
    return out


@pytest.fixture(scope="module")
def models():
    path = _models.default_model_path()
    ours = minilm.load(path)
    tok = transformers.AutoTokenizer.from_pretrained(str(path), local_files_only=True)
    ref = transformers.AutoModel.from_pretrained(str(path), local_files_only=True,
                                                 attn_implementation="eager").eval()
    return ours, tok, ref


# ---------------------------------------------------------------- the whole encoder


def test_every_layer_equals_transformers_on_random_sentences(models):
    """Random sentences, in batches of 32 padded to their longest: every layer to 1e-5.

    The texts cut at 512 pieces are compared apart: there, transformers' own
    float32 result is about 1.4e-5 from the float64 one (the sums are long), so
    two correct float32 programs can differ by more than 1e-5; ours must be no
    further from the float64 truth than transformers' float32 is (see also
    test_float64_equals_transformers_float64).
    """
    ours, tok, ref = models
    texts = random_sentences(N_SENTENCES)
    encodings = [ours.tokenizer.encode_text(t, 512) for t in texts]
    expected = tok(texts, truncation=True, max_length=512)["input_ids"]
    assert [e.ids for e in encodings] == [list(x) for x in expected]
    full = tok(texts)["input_ids"]
    assert [e.truncated for e in encodings] == [len(f) > 512 for f in full]
    assert sum(e.truncated for e in encodings) == 2       # the long ones were cut
    assert min(len(e.ids) for e in encodings) == 2        # [CLS] [SEP] for the empty text
    worst = np.zeros(7)
    order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
    cut = [i for i in order if encodings[i].truncated]
    order = [i for i in order if not encodings[i].truncated]
    for start in range(0, len(order), 32):
        idx = order[start:start + 32]
        batch = [encodings[i].ids for i in idx]
        got = minilm.forward(ours, batch)
        want, _ = reference_hidden(ref, batch)
        assert len(got) == len(want) == 7
        for layer in range(7):
            for row, seq in enumerate(batch):
                n = len(seq)
                diff = np.abs(got[layer][row, :n] - want[layer][row, :n]).max()
                worst[layer] = max(worst[layer], diff)
            assert got[layer].dtype == np.float32
    assert worst.max() < 1e-5, worst
    # the long ones: as close to the float64 truth as transformers' float32
    batch = [encodings[i].ids for i in cut]
    ours32 = minilm.forward(ours, batch)
    torch32, _ = reference_hidden(ref, batch)
    try:
        torch64, _ = reference_hidden(ref.double(), batch)
    finally:
        ref.float()
    err_ours = max(np.abs(ours32[k].astype(np.float64) - torch64[k]).max() for k in range(7))
    err_torch = max(np.abs(torch32[k].astype(np.float64) - torch64[k]).max() for k in range(7))
    assert err_ours <= max(1e-5, 1.25 * err_torch), (err_ours, err_torch)


def as_float64(model):
    """The same model with float64 weights: the blocks then compute in float64."""
    return dataclasses.replace(model, weights={k: v.astype(np.float64)
                                               for k, v in model.weights.items()})


def test_float64_equals_transformers_float64(models):
    """The same arithmetic in float64 on both sides agrees to 1e-6: what is left
    between the float32 runs is rounding, not a different formula."""
    ours, tok, ref = models
    texts = ["", "Über den Wolken 東京 😀", "heat transfer " * 300] + random_sentences(20, seed=3,
                                                                                     n_long=0)
    ids = tok(texts, truncation=True, max_length=512)["input_ids"]
    ours64, ref64 = as_float64(ours), ref.double()
    try:
        for batch in (ids[2:3], ids[:2] + ids[3:]):     # the long one alone: no padding to 512
            got = minilm.forward(ours64, batch)
            want, _ = reference_hidden(ref64, batch)
            for layer in range(7):
                assert got[layer].dtype == np.float64
                for row, seq in enumerate(batch):
                    np.testing.assert_allclose(got[layer][row, :len(seq)],
                                               want[layer][row, :len(seq)], atol=1e-6, rtol=0)
    finally:
        ref.float()


def test_sentence_embeddings_equal_sentence_transformers(models):
    st_module = pytest.importorskip("sentence_transformers")
    ours, _, _ = models
    texts = random_sentences(60, seed=1, n_long=1, max_words=30)
    reference = st_module.SentenceTransformer(str(ours.folder), device="cpu")
    expected = reference.encode(texts, convert_to_numpy=True, batch_size=16)
    got = minilm.sentence_embeddings(ours, texts, batch_size=16)
    assert ours.max_seq_length == 256
    np.testing.assert_allclose(got, expected, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1, atol=1e-6)


def test_attention_weights_equal_transformers(models):
    ours, tok, ref = models
    text = "The aircraft landed safely at Cranfield."
    for layer in (1, 6):
        att = minilm.attention(text, layer=layer, model=ours)
        ids = tok(text)["input_ids"]
        _, want = reference_hidden(ref, [ids])
        assert att.tokens == tok.convert_ids_to_tokens(ids)
        assert att.weights.shape == (12, len(ids), len(ids))
        np.testing.assert_allclose(att.weights, want[layer - 1][0], atol=1e-6)
        np.testing.assert_allclose(att.weights.sum(axis=-1), 1, atol=1e-6)
        assert att.truncated is False
    assert minilm.attention("word " * 600, layer=1, model=ours).truncated is True
    for bad, error in ((0, ValueError), (7, ValueError), (1.0, TypeError), (True, TypeError)):
        with pytest.raises(error, match="layer must be an integer from 1 to 6"):
            minilm.attention(text, layer=bad, model=ours)
    with pytest.raises(TypeError, match="text must be a string, got 3"):
        minilm.attention(3, model=ours)


@settings(max_examples=8, deadline=None)
@given(st.lists(st.text(max_size=30), min_size=1, max_size=3), st.integers(0, 6))
def test_padding_does_not_change_a_text(texts, layer):
    """A text alone, or padded beside a longer one, gets the same vectors."""
    model = _models.load_model()[1]
    alone = [_models.token_embeddings(t, layer=layer)[0].vectors for t in texts]
    together = _models.token_embeddings(texts + ["a much longer text " * 3], layer=layer)
    for a, b in zip(alone, together):
        np.testing.assert_allclose(a, b.vectors, atol=1e-5)
    assert model.config.num_hidden_layers == 6


# ---------------------------------------------------------------- the blocks, by hand


@pytest.mark.parametrize("gelu", [minilm.gelu, fast.gelu], ids=["readable", "fast"])
def test_gelu_is_the_exact_erf_form(gelu):
    x = np.array([-10.0, -1.0, 0.0, 0.5, 1.0, 3.0], dtype=np.float32)
    want = [v * 0.5 * (1 + math.erf(v / math.sqrt(2))) for v in x.tolist()]
    np.testing.assert_allclose(gelu(x), want, rtol=1e-6, atol=1e-7)
    # GELU(1) = Phi(1) = 0.841345; the tanh approximation gives 0.841192
    assert round(float(gelu(np.float32(1.0))), 6) == 0.841345


def test_normal_tail_equals_math_erfc():
    """The fast path's fitted tail, in float64, to 1e-7 relative on the whole range it was
    fitted on."""
    u = np.linspace(0.0, 9.0, 9001)
    want = [0.5 * math.erfc(v / math.sqrt(2)) for v in u.tolist()]
    np.testing.assert_allclose(fast.normal_tail(u), want, rtol=1e-7, atol=0)


def test_gelu_is_within_float32_rounding_of_math_erf():
    """The fast path's GELU on 200,001 points (several chunks of its loop): as close to
    math.erf's GELU as float32 allows (2.4e-7 measured; a float32 ulp is 9.5e-7 at 10),
    negative tail included."""
    x = np.linspace(-10.0, 10.0, 200_001, dtype=np.float32)
    want = np.array([v * 0.5 * math.erfc(-v / math.sqrt(2)) for v in x.tolist()])
    got = fast.gelu(x)
    assert got.dtype == np.float32 and got.shape == x.shape
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=3e-7)
    # other shapes and types: a 2-D slice that is not contiguous, float64, integers
    grid = x[:12].reshape(3, 4)[:, ::2]
    np.testing.assert_array_equal(fast.gelu(grid), fast.gelu(grid.copy()))
    assert fast.gelu(grid.astype(np.float64)).dtype == np.float64
    ints = fast.gelu(np.array([-1, 0, 2]))
    assert ints.dtype == np.float64
    np.testing.assert_allclose(ints, [-0.15865525393145707, 0.0, 1.9544997361036416], rtol=1e-7)


def test_gelu_in_place_gives_the_same_values():
    x = np.linspace(-6.0, 6.0, 70_007, dtype=np.float32).reshape(7, -1)  # two chunks
    want = [v * 0.5 * math.erfc(-v / math.sqrt(2)) for v in x.ravel().tolist()]
    copy = x.copy()
    assert fast.gelu(copy, out=copy) is copy
    np.testing.assert_array_equal(copy, fast.gelu(x))
    np.testing.assert_allclose(copy.ravel(), want, rtol=2e-6, atol=3e-7)
    with pytest.raises(ValueError, match="out must be a contiguous float32 array of shape"):
        fast.gelu(x, out=np.empty(x.shape, dtype=np.float64))
    with pytest.raises(ValueError, match=r"shape \(7, 10001\)"):
        fast.gelu(x, out=np.empty((7, 10000), dtype=np.float32))


def test_layer_norm_by_hand():
    x = np.array([[1.0, 2.0, 3.0, 6.0]], dtype=np.float32)   # mean 3, variance 3.5
    out = minilm.layer_norm(x, np.ones(4, np.float32), np.zeros(4, np.float32), eps=0.0)
    np.testing.assert_allclose(out, [[-2, -1, 0, 3] / np.sqrt(3.5)], rtol=1e-6)
    out = minilm.layer_norm(x, np.full(4, 2, np.float32), np.ones(4, np.float32), eps=0.0)
    np.testing.assert_allclose(out, [[-2, -1, 0, 3] / np.sqrt(3.5) * 2 + 1], rtol=1e-6)


@pytest.mark.parametrize("attention_weights", [minilm.attention_weights, fast.attention_weights],
                         ids=["readable", "fast"])
def test_attention_weights_by_hand_and_the_padding_mask(attention_weights):
    # one head, query [1, 0] against keys [1, 0], [0, 1], [5, 5] (the last is padding)
    q = np.array([[[[1.0, 0.0]]]], dtype=np.float32)                  # (1, 1, 1, 2)
    k = np.array([[[[1.0, 0.0], [0.0, 1.0], [5.0, 5.0]]]], dtype=np.float32)
    mask = np.array([[1, 1, 0]], dtype=np.float32)
    a = attention_weights(q, k, mask)[0, 0, 0]
    s = 1 / math.sqrt(2)                                  # scores 1/sqrt(2) and 0
    want = [math.exp(s) / (math.exp(s) + 1), 1 / (math.exp(s) + 1), 0.0]
    np.testing.assert_allclose(a, want, rtol=1e-6)
    assert a[2] == 0.0


def test_forward_can_stop_early_and_refuses_bad_ids(models):
    ours = models[0]
    ids = ours.tokenizer.encode_text("Hello world").ids
    full = minilm.forward(ours, [ids])
    two = minilm.forward(ours, [ids], layers=2)
    assert len(two) == 3
    np.testing.assert_array_equal(two[2], full[2])
    with pytest.raises(ValueError, match=r"ids\[1\] must hold 1 to 512 token ids.*got 513"):
        minilm.forward(ours, [ids, [101] * 513])


def test_tokenizer_reads_the_files_encode_like_transformers(models):
    ours, tok, _ = models
    assert ours.tokenizer.model_max_length == tok.model_max_length == 512
    assert (ours.tokenizer.cls_token_id, ours.tokenizer.sep_token_id,
            ours.tokenizer.pad_token_id) == (tok.cls_token_id, tok.sep_token_id, tok.pad_token_id)
    for text in ("Straße in Москва", "word " * 600, ""):
        for kwargs in ({}, {"max_length": 512, "truncation": True}):
            assert ours.tokenizer.encode(text, **kwargs) == tok.encode(text, **kwargs)
    assert ours.tokenizer.encode("a b", add_special_tokens=False) == \
        tok.encode("a b", add_special_tokens=False)


# ---------------------------------------------------------------- bad model folders


@pytest.fixture
def folder_copy(tmp_path):
    """A copy of the model folder whose files a test may spoil."""
    src = _models.default_model_path()
    dst = tmp_path / "model"
    dst.mkdir()
    for name in ("config.json", "tokenizer.json", "tokenizer_config.json"):
        shutil.copy(src / name, dst / name)
    (dst / "model.safetensors").symlink_to(src / "model.safetensors")
    return dst


def test_a_copy_loads_and_computes_the_same(folder_copy, models):
    again = minilm.load(folder_copy)
    ids = [again.tokenizer.encode_text("Hello world").ids]
    np.testing.assert_array_equal(minilm.forward(again, ids)[-1],
                                  minilm.forward(models[0], ids)[-1])
    assert again.max_seq_length == 512     # no sentence_bert_config.json: the model's own


@pytest.mark.parametrize("name", minilm.REQUIRED_FILES)
def test_missing_file_is_named(folder_copy, name):
    (folder_copy / name).unlink()
    with pytest.raises(minilm.ModelFileError, match=f"{name}: missing"):
        minilm.load(folder_copy)


def test_safetensors_header_that_does_not_match_the_config(folder_copy):
    config = json.loads((folder_copy / "config.json").read_text())
    config["intermediate_size"] = 1024
    (folder_copy / "config.json").write_text(json.dumps(config))
    with pytest.raises(minilm.ModelFileError,
                       match=r"model.safetensors: tensor encoder.layer.0.intermediate.dense.weight "
                             r"has shape \(1536, 384\), but config.json implies \(1024, 384\)"):
        minilm.load(folder_copy)
    config["intermediate_size"], config["num_hidden_layers"] = 1536, 7
    (folder_copy / "config.json").write_text(json.dumps(config))
    with pytest.raises(minilm.ModelFileError, match=r"no tensor encoder.layer.6.*config.json"):
        minilm.load(folder_copy)


def test_a_broken_safetensors_file_is_named(folder_copy):
    (folder_copy / "model.safetensors").unlink()
    (folder_copy / "model.safetensors").write_bytes(b"\x05\x00")
    with pytest.raises(minilm.ModelFileError, match="model.safetensors: too short"):
        minilm.load(folder_copy)
    header = json.dumps({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}).encode()
    (folder_copy / "model.safetensors").write_bytes(
        len(header).to_bytes(8, "little") + header + b"\x00" * 8)
    with pytest.raises(minilm.ModelFileError, match="tensor w does not fit its byte range 0..16"):
        minilm.load(folder_copy)


def test_a_tokenizer_that_is_not_wordpiece_is_refused(folder_copy):
    spec = json.loads((folder_copy / "tokenizer.json").read_text())
    spec["model"]["type"] = "BPE"
    (folder_copy / "tokenizer.json").write_text(json.dumps(spec))
    with pytest.raises(minilm.ModelFileError,
                       match="tokenizer.json: the tokenizer must be WordPiece.*got 'BPE'"):
        minilm.load(folder_copy)


@pytest.mark.parametrize("key, value, message", [
    ("model_type", "roberta", "model_type must be 'bert'"),
    ("hidden_act", "gelu_new", "hidden_act must be 'gelu'"),
    ("num_attention_heads", 5, "hidden_size 384 is not a multiple of num_attention_heads 5"),
])
def test_a_config_this_encoder_cannot_run_is_refused(folder_copy, key, value, message):
    config = json.loads((folder_copy / "config.json").read_text())
    config[key] = value
    (folder_copy / "config.json").write_text(json.dumps(config))
    with pytest.raises(minilm.ModelFileError, match="config.json: " + message):
        minilm.load(folder_copy)
