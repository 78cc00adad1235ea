"""The encoder's fast path (``_minilm_fast``) against its readable blocks (``minilm``).

``minilm.forward`` (and so ``sentence_embeddings``, ``attention``, BERTScore and
every notebook) computes with the fast path; ``minilm.embed`` then
``minilm.transformer_layer`` layer after layer is the network written as its
formulas (GELU with ``math.erf``, a plain softmax with the padding mask, no
threads), what lesson 06 prints and runs by hand. Here the two are held equal
on real texts (Cranfield queries and abstracts, in padded batches of several
lengths, up to 512 pieces), and the readable blocks equal to transformers, as
``test_minilm.py`` holds the fast path.

Tolerance. Both compute in float32 from the same weights, and the attention
and the layers add the same numbers in the same order; what differs is GELU:
the fast path's normal tail is a polynomial fitted to ``math.erfc`` (relative
error under 5e-8), the readable one is ``math.erf`` rounded to float32, so a
GELU value differs by a float32 rounding (at most 4.8e-7 from -10 to 10, half
an ulp at 10), and six layers of residual stream and layer norms carry it.
Measured on these texts: the hidden states (entries up to 10.5) differ by at
most 3.8e-6 (layer 0, the embeddings, not at all), the attention weights by at
most 2.0e-6; on the 200 random sentences of ``test_minilm.py`` (one cut at 512
pieces), by 6.0e-6 and 2.2e-6. ``HIDDEN_ATOL = 2e-5`` and ``WEIGHT_ATOL = 1e-5``
leave room for other BLAS builds and are still far below a real mistake:
``test_the_tolerance_catches_a_wrong_gelu`` measures GELU's tanh approximation
moving the last layer by 2.8e-3, and a padded key looked at, or a head reading
another head's slice, moves the states by whole units. Against transformers
(eager attention, float32) the readable blocks are as close as the fast path
(5.9e-6 and 6.4e-6 measured), within ``test_minilm.py``'s 1e-5; with float64
weights on both sides, within 1e-10 (9.4e-15 measured): the same formulas,
down to float64's rounding.
"""

import dataclasses
import math

import numpy as np
import pytest

from ragmetrics_edu.lab.datasets import load_cranfield
from ragmetrics_edu.models import _minilm_fast as fast
from ragmetrics_edu.models import loading, minilm
from tests._minilm_reference import reference_hidden

HIDDEN_ATOL = 2e-5
WEIGHT_ATOL = 1e-5
REFERENCE_ATOL = 1e-5


@pytest.fixture(scope="module")
def model():
    return minilm.load(loading.default_model_path())


def readable_forward(model, batch_ids):
    """``minilm.embed``, then ``minilm.transformer_layer`` for every layer: the readable blocks
    alone, as lesson 06 runs layer 1 by hand."""
    ids, mask = minilm._padded(batch_ids, model.tokenizer.pad_token_id)
    x = minilm.embed(model, ids)
    hidden, attentions = [x], []
    for i in range(model.config.num_hidden_layers):
        x, weights = minilm.transformer_layer(x, mask, model.layer(i), config=model.config)
        hidden.append(x)
        attentions.append(weights)
    return hidden, attentions


@pytest.fixture(scope="module")
def batches(model):
    """Real texts in padded batches: short queries together (a few pieces of padding), short
    and long together (over a hundred), one text alone (none; a tiny batch, on one BLAS
    thread), abstracts past 256 pieces (the fast attention in several groups), and the
    longest abstract, cut at 512 pieces, beside a query (almost 500 pieces of padding)."""
    cranfield = load_cranfield()
    queries = list(cranfield.queries.values())
    docs = sorted((doc["text"] for doc in cranfield.docs.values()), key=len)

    def encode(text):
        return model.tokenizer.encode_text(text, 512).ids

    return {
        "queries": [encode(q) for q in queries[:16]],
        "mixed": [encode(t) for t in queries[16:19] + docs[700:701] + ["", "jet"]],
        "alone": [encode(queries[30])],
        "abstracts": [encode(t) for t in docs[1000:1004]],
        "longest": [encode(t) for t in docs[-1:] + queries[20:21]],
    }


@pytest.fixture(scope="module")
def both(model, batches):
    """Every batch through the readable blocks and through ``minilm.forward`` (the fast path)."""
    return {name: (readable_forward(model, ids), minilm.forward(model, ids, output_attentions=True))
            for name, ids in batches.items()}


def worst_difference(a, b, batch_ids):
    """The largest difference over the real pieces of every text (padding rows are not compared)."""
    return max(float(np.abs(a[row, ..., :len(ids), :] - b[row, ..., :len(ids), :]).max())
               for row, ids in enumerate(batch_ids))


def test_the_batches_have_padding_and_several_lengths(batches):
    lengths = {name: sorted(len(ids) for ids in batch) for name, batch in batches.items()}
    assert lengths["mixed"][0] == 2 and lengths["mixed"][-1] > 100       # [CLS] [SEP]: ""
    assert lengths["longest"] == [lengths["longest"][0], 512] and lengths["longest"][0] < 64
    assert lengths["queries"][0] < lengths["queries"][-1] < 64
    per_group = max(1, fast._ATTENTION_CACHE // (12 * max(lengths["abstracts"]) ** 2))
    assert len(batches["abstracts"]) > per_group             # the attention in several groups
    assert sum(lengths["alone"]) < fast.SMALL_BATCH_PIECES


def test_every_layer_equals_the_readable_blocks(model, batches, both):
    for name, batch_ids in batches.items():
        (hidden, _), (fast_hidden, _) = both[name]
        assert len(hidden) == len(fast_hidden) == 7
        for layer, (want, got) in enumerate(zip(hidden, fast_hidden)):
            assert got.dtype == want.dtype == np.float32 and got.shape == want.shape
            assert worst_difference(got, want, batch_ids) <= HIDDEN_ATOL, (name, layer)
        # layer 0 (embeddings, layer norm) is the same code on both paths: the same bits
        np.testing.assert_array_equal(fast_hidden[0], hidden[0])


def test_attention_weights_equal_the_readable_blocks(model, batches, both):
    for name, batch_ids in batches.items():
        (_, weights), (_, fast_weights) = both[name]
        for want, got in zip(weights, fast_weights):
            assert got.shape == want.shape == (len(batch_ids), 12) + 2 * want.shape[-1:]
            for row, ids in enumerate(batch_ids):
                n = len(ids)
                np.testing.assert_allclose(got[row, :, :n], want[row, :, :n],
                                           atol=WEIGHT_ATOL, rtol=0)
                # a padded key gets weight 0 on both paths, exactly
                assert not want[row, :, :, n:].any() and not got[row, :, :, n:].any()
            np.testing.assert_allclose(want.sum(axis=-1), 1, atol=1e-6)


def test_the_tolerance_catches_a_wrong_gelu(model, batches, monkeypatch):
    """GELU's tanh approximation (GPT-2's, not BERT's) is a mistake the tolerance sees."""
    def tanh_gelu(x):
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))

    monkeypatch.setattr(minilm, "gelu", tanh_gelu)
    batch_ids = batches["queries"][:4]
    wrong, _ = readable_forward(model, batch_ids)
    right = minilm.forward(model, batch_ids)
    assert worst_difference(wrong[-1], right[-1], batch_ids) > 50 * HIDDEN_ATOL


def test_gelu_equals_the_fast_gelu():
    """200,001 points from -10 to 10: math.erf rounded to float32 against the fitted tail."""
    x = np.linspace(-10.0, 10.0, 200_001, dtype=np.float32)
    got, want = minilm.gelu(x), fast.gelu(x)
    assert got.dtype == want.dtype == np.float32 and got.shape == x.shape
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=3e-7)
    assert minilm.gelu(x.astype(np.float64)).dtype == np.float64
    assert minilm.gelu(np.array([[1, 2]])).dtype == np.float64    # integers: float64, as fast.gelu


@pytest.fixture(scope="module")
def reference(model):
    transformers = pytest.importorskip("transformers")
    pytest.importorskip("torch")
    return transformers.AutoModel.from_pretrained(str(model.folder), local_files_only=True,
                                                  attn_implementation="eager").eval()


def test_the_readable_blocks_equal_transformers(model, batches, both, reference):
    """Every layer and every attention weight of the texts up to 511 pieces to 1e-5 (the
    512-piece abstract's long sums are compared in float64 below, as in test_minilm.py)."""
    for name, every_ids in batches.items():
        batch_ids = [ids for ids in every_ids if len(ids) < 512]
        hidden, weights = (both[name][0] if len(batch_ids) == len(every_ids)
                           else readable_forward(model, batch_ids))
        want_hidden, want_weights = reference_hidden(reference, batch_ids)
        for got, want in zip(hidden, want_hidden):
            assert worst_difference(got, want, batch_ids) <= REFERENCE_ATOL, name
        for got, want in zip(weights, want_weights):
            for row, ids in enumerate(batch_ids):
                n = len(ids)
                np.testing.assert_allclose(got[row, :, :n, :n], want[row, :, :n, :n],
                                           atol=REFERENCE_ATOL, rtol=0)


def test_the_readable_blocks_in_float64_equal_transformers_in_float64(model, batches, reference):
    """The same formulas: with float64 weights on both sides, every layer of a padded batch
    with the 512-piece abstract agrees to 1e-10."""
    model64 = dataclasses.replace(model, weights={k: v.astype(np.float64)
                                                  for k, v in model.weights.items()})
    batch_ids = batches["longest"]
    hidden, _ = readable_forward(model64, batch_ids)
    try:
        want, _ = reference_hidden(reference.double(), batch_ids)
    finally:
        reference.float()
    for got, expected in zip(hidden, want):
        assert got.dtype == np.float64
        assert worst_difference(got, expected, batch_ids) <= 1e-10
