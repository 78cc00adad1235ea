"""Hostile model files and hostile arguments to the decoder (issue 34).

A tiny Llama (one layer, hidden size 8, a byte-level vocabulary) is written by
ggml's own ``gguf`` package, then altered one key or one tensor at a time:
metadata of the wrong type or out of range, weights that are not finite, a
vocabulary with a duplicate, a context of 2**27 tokens, chat templates that
loop or grow. Each must be refused at load (or at render) with a GGUFError or
ValueError naming the file and the key or tensor, never a ZeroDivisionError,
a NumPy message, a silent "" from greedy decoding over NaN, or minutes of work.
"""

import math
import re
import time
import warnings

import numpy as np
import pytest

from ragmetrics_edu.models import chat, decoder
from ragmetrics_edu.models.gguf import GGUFError
from tests._bounded import finishes

gguf = pytest.importorskip("gguf")
pytest.importorskip("tokenizers")


def _byte_symbols():
    """GPT-2's printable stand-ins for the 256 bytes (the byte-level alphabet)."""
    kept = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
            *range(ord("®"), ord("ÿ") + 1)]
    extra = [b for b in range(256) if b not in kept]
    return [chr(b) for b in kept] + [chr(256 + i) for i in range(len(extra))]


BYTES = _byte_symbols()
TOKENS = BYTES + ["Ġt", "<|im_start|>", "<|im_end|>"]
D, HEADS, KV, FF = 8, 2, 1, 16
META = {
    "llama.embedding_length": ("uint32", D), "llama.block_count": ("uint32", 1),
    "llama.attention.head_count": ("uint32", HEADS),
    "llama.attention.head_count_kv": ("uint32", KV),
    "llama.feed_forward_length": ("uint32", FF), "llama.context_length": ("uint32", 64),
    "llama.rope.freq_base": ("float32", 10000.0),
    "llama.attention.layer_norm_rms_epsilon": ("float32", 1e-5),
    "tokenizer.ggml.model": ("string", "gpt2"), "tokenizer.ggml.pre": ("string", "gpt2"),
    "tokenizer.ggml.eos_token_id": ("uint32", len(TOKENS) - 1),
}


def write_llama(path, meta=None, tensors=None, tokens=None, merges=("Ġ t",)):
    """A one-layer Llama GGUF file; ``meta`` and ``tensors`` replace entries (None drops one)."""
    rng = np.random.default_rng(0)
    tokens = TOKENS if tokens is None else tokens
    w = gguf.GGUFWriter(str(path), "llama")
    for key, entry in {**META, **(meta or {})}.items():
        if entry is not None:
            kind, value = entry
            getattr(w, f"add_{kind}")(key, value)
    w.add_array("tokenizer.ggml.tokens", tokens)
    w.add_array("tokenizer.ggml.merges", list(merges))
    w.add_array("tokenizer.ggml.token_type", [1] * (len(tokens) - 2) + [3, 3])
    h = D // HEADS
    shapes = {"token_embd.weight": (len(tokens), D), "output_norm.weight": (D,),
              "blk.0.attn_norm.weight": (D,), "blk.0.ffn_norm.weight": (D,),
              "blk.0.attn_q.weight": (D, D), "blk.0.attn_k.weight": (KV * h, D),
              "blk.0.attn_v.weight": (KV * h, D), "blk.0.attn_output.weight": (D, D),
              "blk.0.ffn_gate.weight": (FF, D), "blk.0.ffn_up.weight": (FF, D),
              "blk.0.ffn_down.weight": (D, FF)}
    for name, shape in shapes.items():
        array = (tensors or {}).get(name)
        w.add_tensor(name, (rng.standard_normal(shape) * 0.5).astype(np.float32)
                     if array is None else array)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = write_llama(tmp_path_factory.mktemp("llm") / "tiny.gguf")
    return decoder.load_language_model(path)


def test_the_tiny_model_runs(tiny):
    out = tiny.generate("hi", max_new_tokens=3, chat=False)
    assert len(out.ids) == 3 and out.stop_reason == "length"
    p = tiny.next_token_distribution("hi", chat=False)
    assert np.isfinite(p).all() and p.sum() == pytest.approx(1.0)


# ----------------------------------------------------------------- metadata

@pytest.mark.parametrize("key, entry, rule", [
    # before: ZeroDivisionError, a NumPy reshape message, "invalid literal for int()", 1.7 read as 1
    ("llama.attention.head_count", ("uint32", 0), r"an integer of at least 1 .*, got 0"),
    ("llama.attention.head_count", ("int32", -2), r"an integer of at least 1 .*, got -2"),
    ("llama.attention.head_count", ("string", "two"), r"an integer .*got 'two' \(a string\)"),
    ("llama.block_count", ("float32", 1.7), r"an integer .*got 1.7\d* \(a float\)"),
    ("llama.block_count", ("bool", True), r"an integer .*got True \(a bool\)"),
    ("llama.attention.head_count_kv", ("uint32", 0), r"an integer of at least 1 .*, got 0"),
    ("llama.context_length", ("uint64", 2**40), r"at most 2\*\*31 - 1"),
    ("llama.embedding_length", ("uint32", 7), r"head_count \(2\) must divide"),
    ("llama.embedding_length", ("uint32", 6), "head size .* even"),
    # before: every distribution NaN, and greedy decoding wrote token 0 again and again
    ("llama.rope.freq_base", ("float32", 0.0), "a positive finite number, got 0.0"),
    ("llama.rope.freq_base", ("float32", math.nan), "a positive finite number, got nan"),
    ("llama.rope.freq_base", ("string", "1e4"), r"a positive finite number, got '1e4'"),
    ("llama.attention.layer_norm_rms_epsilon", ("float32", -1.0),
     "a positive finite number, got -1.0"),
    ("llama.attention.layer_norm_rms_epsilon", ("float32", math.inf),
     "a positive finite number, got inf"),
    ("tokenizer.ggml.eos_token_id", ("uint32", 10**6), r"a token id from 0 to 258"),
    ("tokenizer.chat_template", ("uint32", 3), "must be a string"),
])
def test_metadata_is_checked_at_load_naming_the_key(tmp_path, key, entry, rule):
    path = write_llama(tmp_path / "bad.gguf", meta={key: entry})
    with pytest.raises(GGUFError, match=rule) as info:
        decoder.load_language_model(path)
    assert "bad.gguf" in str(info.value) and key in str(info.value), str(info.value)


# every metadata key the loader reads, given an array of numbers where one value belongs
READ_KEYS = ["general.architecture", "llama.embedding_length", "llama.block_count",
             "llama.attention.head_count", "llama.attention.head_count_kv",
             "llama.feed_forward_length", "llama.context_length", "llama.vocab_size",
             "llama.rope.freq_base", "llama.attention.layer_norm_rms_epsilon",
             "llama.rope.scaling.type", "tokenizer.ggml.model", "tokenizer.ggml.pre",
             "tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id",
             "tokenizer.ggml.add_bos_token", "tokenizer.chat_template"]


@pytest.mark.parametrize("key", READ_KEYS)
@pytest.mark.parametrize("value", [[1, 2], [1.5]])
def test_an_array_where_one_value_belongs_is_refused_naming_the_key(tmp_path, key, value):
    """Before: general.architecture, tokenizer.ggml.model and tokenizer.ggml.pre given [1, 2]
    raised NumPy's "truth value of an array ... is ambiguous", naming nothing."""
    path = write_llama(tmp_path / "bad.gguf", meta={key: ("array", value)})
    with pytest.raises(GGUFError) as info:
        decoder.load_language_model(path)
    assert "bad.gguf" in str(info.value) and key in str(info.value), str(info.value)


@pytest.mark.parametrize("tokens", [list(range(len(TOKENS))), [1.5] * len(TOKENS)])
def test_tokens_that_are_numbers_are_refused_naming_the_file_and_key(tmp_path, tokens):
    """Before: "The truth value of an array with more than one element is ambiguous"."""
    path = write_llama(tmp_path / "bad.gguf", tokens=tokens)
    with pytest.raises(GGUFError, match=r"bad.gguf: metadata tokenizer.ggml.tokens must be an "
                                        r"array of strings, got array\(\["):
        decoder.load_language_model(path)


def test_missing_merges_are_named_alone(tmp_path):
    """Before: "no tokenizer.ggml.tokens or merges", though the tokens were there."""
    path = write_llama(tmp_path / "bad.gguf", merges=[])  # the writer leaves the key out
    with pytest.raises(GGUFError, match=r"bad.gguf: the metadata holds no "
                                        r"tokenizer.ggml.merges \(a byte-level"):
        decoder.load_language_model(path)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
@pytest.mark.parametrize("name", ["blk.0.ffn_up.weight", "output_norm.weight", "token_embd.weight"])
def test_weights_that_are_not_finite_are_refused_naming_the_tensor(tmp_path, name, value):
    shape = {"blk.0.ffn_up.weight": (FF, D), "output_norm.weight": (D,),
             "token_embd.weight": (len(TOKENS), D)}[name]
    array = np.ones(shape, dtype=np.float32)
    array.reshape(-1)[5] = value
    path = write_llama(tmp_path / "nan.gguf", tensors={name: array})
    with pytest.raises(GGUFError, match=rf"nan.gguf: tensor {name} holds 1 value that is not "
                                        r"finite \(NaN or infinite\), the first at index 5"):
        decoder.load_language_model(path)


def test_a_vocabulary_with_a_duplicate_token_is_refused(tmp_path):
    tokens = BYTES[:100] + ["a"] + BYTES[100:] + ["Ġt", "<|im_start|>", "<|im_end|>"]
    path = write_llama(tmp_path / "dup.gguf", tokens=tokens,
                       meta={"tokenizer.ggml.eos_token_id": ("uint32", len(tokens) - 1)})
    with pytest.raises(GGUFError, match=r"dup.gguf: tokenizer.ggml.tokens holds 'a' twice, "
                                        r"as tokens \d+ and 100"):
        decoder.load_language_model(path)


def test_a_directory_or_a_device_is_not_a_model_file(tmp_path):
    # before: "does not exist"
    with pytest.raises(GGUFError, match=rf"{tmp_path}: not a GGUF model file but a directory"):
        decoder.load_language_model(tmp_path)
    with pytest.raises(GGUFError, match=r"/dev/null: not a GGUF model file but a character "
                                        r"device"):
        decoder.load_language_model("/dev/null")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        decoder.load_language_model(tmp_path / "absent.gguf")


def test_a_huge_context_length_costs_nothing_at_load(tmp_path):
    """Before: 2**27 positions asked for 4 GiB of rotary tables at load; they grow with the
    text now, and the cache of keys and values with the tokens written."""
    path = write_llama(tmp_path / "long.gguf", meta={"llama.context_length": ("uint32", 2**27)})
    start = time.perf_counter()
    lm = decoder.load_language_model(path)
    assert time.perf_counter() - start < 30
    cos, sin = lm.rotary(1)
    assert cos.nbytes + sin.nbytes < 1 << 20
    out = lm.generate("hi", max_new_tokens=10**6, stop=["\n"], chat=False, temperature=0)
    assert lm.rotary(1)[0].shape[0] < 1 << 21
    assert out.stop_reason in ("stop", "end", "length")


# ----------------------------------------------------------------- chat templates

LOOPS = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
OUTPUT = "{% for i in range(100000) %}{% for j in range(1000) %}x{% endfor %}{% endfor %}"
GROWTH = ("{% set ns = namespace(s='x') %}{% for i in range(60) %}{% set ns.s = ns.s ~ ns.s %}"
          "{% endfor %}{{ ns.s|length }}")
TIMES = "{{ 'x' * 10**10 }}"
POWER = "{{ 10 ** 100000000 }}"
WIDE = "{{ 'x'.center(10**10) }}"


@pytest.mark.parametrize("template, rule", [
    (LOOPS, "more than .* steps"), (OUTPUT, "longer than"), (GROWTH, "longer than"),
    (TIMES, "longer than"), (POWER, "too large"), (WIDE, "longer than"),
])
def test_a_chat_template_is_bounded_in_time_and_size(tmp_path, template, rule):
    """Before: the first rendered for minutes, the second for 27 s into 100 MB, the others
    exhausted memory."""
    path = write_llama(tmp_path / "t.gguf", meta={"tokenizer.chat_template": ("string", template)})
    lm = decoder.load_language_model(path)
    assert finishes(lm.chat_prompt, "hi", budget=20.0)   # in a child process: never hangs here
    with pytest.raises(ValueError, match=rule) as info:
        lm.chat_prompt("hi")
    assert "t.gguf" in str(info.value) and "chat template" in str(info.value)


def test_an_ordinary_template_renders_through_the_bounded_sandbox(tmp_path):
    template = chat.SMOLLM2_TEMPLATE.replace("SmolLM", "TinyLM")   # not the built-in one
    path = write_llama(tmp_path / "t.gguf", meta={"tokenizer.chat_template": ("string", template)})
    lm = decoder.load_language_model(path)
    messages = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]
    assert lm.chat_prompt(messages) == chat.render_chatml(
        messages, chat.SMOLLM2_SYSTEM.replace("SmolLM", "TinyLM"))


# ----------------------------------------------------------------- arguments

@pytest.mark.parametrize("kwargs, error, rule", [
    (dict(prompt=b"hi"), TypeError, "prompt must be a string, a list of messages or a list of "
                                     "token ids, got bytes"),
    (dict(prompt=None), TypeError, "prompt must be .*, got None"),
    (dict(prompt={"role": "user"}), TypeError, "prompt must be .*, got a dict"),
    (dict(prompt=[1.5]), TypeError, r"prompt must be .*, got \[1.5\]"),
    (dict(prompt=[1, "a"]), TypeError, r"prompt must be .*, got \[1, 'a'\]"),
    (dict(prompt="a\ud800"), ValueError, r"prompt holds a lone surrogate '\\ud800' at "
                                         r"character 1"),
    (dict(prompt=[{"role": "user", "content": "\udfff"}]), ValueError,
     r"prompt holds a lone surrogate"),
    (dict(prompt="hi", prefix="\ud800"), ValueError, "prefix holds a lone surrogate"),
    (dict(prompt="hi", allowed=["yes", "\ud800"]), ValueError,
     r"allowed\[1\] holds a lone surrogate"),
    (dict(prompt="hi", seed=-1), ValueError, "seed must be None or a non-negative integer, "
                                             "got -1"),
    (dict(prompt="hi", seed=1.5), TypeError, "seed must be None or a non-negative integer"),
    (dict(prompt="hi", stop=1), TypeError, "stop must be a string or a list of strings, got 1"),
    (dict(prompt="hi", stop=["x", 2]), ValueError, "stop must hold non-empty strings, got 2"),
    (dict(prompt="hi", temperature=1e-320), ValueError,
     r"temperature must be 0 \(greedy\) or at least 1e-100, got 1e-320"),
    (dict(prompt="hi", temperature=1e-101, allowed=["a", "b"]), ValueError,
     "at least 1e-100"),
    # before: a bare OverflowError ("int too large to convert to float")
    (dict(prompt="hi", temperature=10**400), ValueError,
     r"temperature must be numbers a float can hold .*, got an integer of about 10\*\*400"),
])
def test_bad_arguments_name_the_argument(tiny, kwargs, error, rule):
    with pytest.raises(error, match=rule):
        tiny.generate(max_new_tokens=2, chat=False, **kwargs)


def test_the_smallest_temperature_gives_a_distribution_not_nans(tiny):
    """Before: any temperature below about 1e-308 made every probability NaN."""
    p = tiny.next_token_distribution("hi", chat=False, temperature=1e-100)
    assert np.isfinite(p).all() and p.sum() == pytest.approx(1.0) and p.max() == 1.0
    greedy = tiny.generate("hi", max_new_tokens=4, chat=False, temperature=0)
    assert tiny.generate("hi", max_new_tokens=4, chat=False, temperature=1e-100,
                         seed=0).ids == greedy.ids
    d = tiny.continuation_distribution("hi", ["a", "b", "c"], chat=False, temperature=1e-100)
    assert np.isfinite(d.probabilities).all() and d.probabilities.max() == 1.0


def test_a_long_prompt_is_refused_before_it_is_tokenized(tiny, monkeypatch):
    """Before: a 20 MB prompt was tokenized whole (24 s, 2.3 GiB) before its length was checked."""
    calls = []
    real = tiny.tokenizer.encode
    monkeypatch.setattr(tiny.tokenizer, "encode", lambda text: calls.append(len(text)) or real(text))
    # the model's own bound is named, not the package-wide MAX_PROMPT_CHARS: trimmed to that,
    # the prompt would still be refused
    for n in (20_000_000, 200_000):
        with pytest.raises(ValueError, match=rf"prompt is {n:,} characters long: more than the "
                                             r"model's context window of 64 tokens can hold"):
            tiny.generate("x" * n, max_new_tokens=1, chat=False)
    with pytest.raises(ValueError, match="characters long"):
        tiny.chat_prompt("x" * 20_000_000)
    assert calls == []



def test_a_text_longer_than_max_prompt_chars_is_refused_before_it_is_tokenized(tiny,
                                                                               monkeypatch):
    """Before: encode had no bound on the text (the tokenizer takes about 290 bytes per
    character: "ab " * 3,000,000 aborted in Rust under a 3 GiB limit), and the ids of a
    longer text could not be decoded (MAX_TOKEN_IDS). 4,194,306 = 3 * (4,194,304 // 3 + 1)."""
    def tokenize(text):
        raise AssertionError(f"a text of {len(text):,} characters was tokenized")
    monkeypatch.setattr(tiny.tokenizer, "encode", tokenize)
    text = "ab " * (chat.MAX_PROMPT_CHARS // 3 + 1)
    with pytest.raises(ValueError, match=r"^text is 4,194,306 characters long: more than the "
                                         r"4,194,304 characters read \(MAX_PROMPT_CHARS\); "
                                         r"shorten it$"):
        tiny.encode(text)
    with pytest.raises(ValueError, match=r"^allowed\[1\] is 4,194,306 characters long"):
        chat.check_text_for_model(text, "allowed[1]")
    edge = "x" * chat.MAX_PROMPT_CHARS   # the bound itself is read
    assert chat.check_text_for_model(edge, "text") is edge
    # characters of 4 bytes: a token stands for one byte or more, so the bytes are bounded
    # too (1,048,577 characters are 4,194,308 bytes; each could be a token id)
    wide = "\U00010400" * (chat.MAX_PROMPT_CHARS // 4 + 1)
    with pytest.raises(ValueError, match=r"^text is 1,048,577 characters long, 4,194,308 bytes "
                                         r"in UTF-8: more than the 4,194,304 bytes read "
                                         r"\(MAX_PROMPT_CHARS; a token stands for one byte or "
                                         r"more\); shorten it$"):
        tiny.encode(wide)
    edge = "\U00010400" * (chat.MAX_PROMPT_CHARS // 4)
    assert chat.check_text_for_model(edge, "text") is edge


# ----------------------------------------------------------------- the held-out probe's files

@pytest.mark.parametrize("merge, part", [
    ("zz qq", "'zz'"),            # tokens outside the vocabulary
    ("a b c", "'b c'"),           # three tokens, read as 'a' and 'b c'
    ("a b", "'ab'"),              # both known, their join is not
])
def test_a_merge_outside_the_vocabulary_is_refused_naming_the_file_and_key(tmp_path, merge, part):
    """The probe: tokenizers' bare Exception 'Error while initializing BPE: Token 'zz' out of
    vocabulary' escaped the loader."""
    path = write_llama(tmp_path / "merge.gguf", merges=("Ġ t", merge))
    with pytest.raises(GGUFError, match=rf"merge.gguf: tokenizer.ggml.merges\[1\] "
                                        rf"'{re.escape(merge)}' names {part}, which "
                                        "tokenizer.ggml.tokens does not hold"):
        decoder.load_language_model(path)


def test_a_byte_the_vocabulary_cannot_write_is_refused_not_dropped(tmp_path):
    """The probe: a vocabulary without the symbol of '!' encoded 'a!b' as the tokens of 'ab',
    and generate('!') said the prompt was empty."""
    tokens = [t for t in TOKENS if t != "!"]
    path = write_llama(tmp_path / "nobang.gguf", tokens=tokens,
                       meta={"tokenizer.ggml.eos_token_id": ("uint32", len(tokens) - 1)})
    lm = decoder.load_language_model(path)
    for text in ("a!b", "!"):
        with pytest.raises(ValueError, match=r"text holds '!' \(U\+0021\), whose UTF-8 byte "
                                             r"0x21 this model's vocabulary cannot write"):
            lm.encode(text)
    with pytest.raises(ValueError, match="cannot write"):
        lm.generate("!", max_new_tokens=1, chat=False)
    assert lm.decode(lm.encode("ab")) == "ab"          # every other byte still works


def test_the_byte_symbols_are_the_tokenizers_alphabet():
    tokenizers = pytest.importorskip("tokenizers")
    assert sorted(chat.BYTE_SYMBOLS) == sorted(tokenizers.pre_tokenizers.ByteLevel.alphabet())
    assert chat.BYTE_SYMBOLS[ord(" ")] == "Ġ" and chat.BYTE_SYMBOLS[ord("!")] == "!"
    # GPT-2's: byte 0 is U+0100, the newline U+010A ('Ċ'), as in every GPT-2 vocabulary
    assert chat.BYTE_SYMBOLS[0] == "\u0100" and chat.BYTE_SYMBOLS[ord("\n")] == "Ċ"


def test_finite_weights_that_overflow_are_refused_not_sampled(tmp_path):
    """The probe: ffn weights of 3e37 (finite, so accepted at load) overflowed float32: greedy
    decoding returned '!!!' and sampling raised NumPy's 'probabilities contain NaN'."""
    huge = {name: np.full(shape, 3e37, dtype=np.float32) for name, shape in
            (("blk.0.ffn_up.weight", (FF, D)), ("blk.0.ffn_gate.weight", (FF, D)),
             ("blk.0.ffn_down.weight", (D, FF)))}
    lm = decoder.load_language_model(write_llama(tmp_path / "huge.gguf", tensors=huge))
    rule = r"huge.gguf: the model's logits are not finite \(NaN or infinite\)"
    with np.errstate(all="ignore"):
        with pytest.raises(ValueError, match=rule):
            lm.generate("hi", max_new_tokens=3, chat=False)
        with pytest.raises(ValueError, match=rule):
            lm.next_token_distribution("hi", chat=False)
        with pytest.raises(ValueError, match=rule):
            lm.generate("hi", max_new_tokens=3, chat=False, temperature=0.7, seed=0)


def test_an_epsilon_that_is_0_in_float32_is_refused(tmp_path):
    """The probe: a float64 epsilon of 1e-50 is 0 in float32, and a zero embedding row then
    gave NaN."""
    path = write_llama(tmp_path / "eps.gguf",
                       meta={"llama.attention.layer_norm_rms_epsilon": ("float64", 1e-50)})
    with pytest.raises(GGUFError, match=r"eps.gguf: metadata llama.attention.layer_norm_rms_epsilon"
                                        r" is 1e-50, which is 0 in float32"):
        decoder.load_language_model(path)


@pytest.mark.parametrize("ids, rule", [
    (range(10**8), r"ids must hold at most 4,194,305 token ids \(MAX_TOKEN_IDS.*got 100,000,000"),
    (range(10**6), r"ids must be token ids from 0 to \d+, got \d+"),
    (range(-1, 5), r"ids must be token ids from 0 to \d+, got -1"),
    (np.zeros((1 << 22) + 2, dtype=np.int64), r"ids must hold at most 4,194,305"),
])
def test_decode_checks_the_length_and_a_range_before_building_a_list(tiny, ids, rule):
    """Before: decode(range(10**8)) checked each id, built the list and ran out of memory (23 s)."""
    assert finishes(lambda _: tiny.decode(ids), None, budget=10.0)
    with pytest.raises(ValueError, match=rule):
        tiny.decode(ids)


def test_decode_of_a_range_is_the_decode_of_its_list(tiny):
    n = len(TOKENS) - 2  # not the two control tokens
    assert tiny.decode(range(n)) == tiny.decode(list(range(n))) == tiny.decode(range(n)[::1])
    assert tiny.decode(range(3, 0, -1)) == tiny.decode([3, 2, 1])
    assert tiny.decode(range(0)) == ""


def test_rms_norm_of_vectors_whose_squares_overflow_float32():
    """Before: embeddings of 1e30 squared to inf in float32, x / inf gave 0, and every logit
    was equal (a uniform distribution that passed the logits-finite check)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, D)).astype(np.float32)
    w = rng.standard_normal(D).astype(np.float32)
    big = x * np.float32(2.0 ** 70)  # exact; squares of about 1e42, beyond float32's 3.4e38
    exact = w * x.astype(np.float64) / np.sqrt(np.mean(x.astype(np.float64) ** 2, axis=-1,
                                                       keepdims=True))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = decoder.rms_norm(big, w, eps=1e-5)
    np.testing.assert_allclose(out, exact, rtol=1e-6, atol=1e-6)
    # a row that does not overflow is computed as before, bit for bit
    mixed = decoder.rms_norm(np.stack([big, x]), w, eps=1e-5)
    assert np.array_equal(mixed[1], decoder.rms_norm(x, w, eps=1e-5))


def test_huge_embeddings_give_the_model_s_distribution_not_a_uniform_one(tmp_path):
    n = len(TOKENS)
    embd = (np.random.default_rng(1).standard_normal((n, D)) * 1e30).astype(np.float32)
    lm = decoder.load_language_model(write_llama(tmp_path / "huge.gguf",
                                                 tensors={"token_embd.weight": embd}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p = lm.next_token_distribution("hi", chat=False)
    assert np.isfinite(p).all() and p.sum() == pytest.approx(1.0)
    assert p.max() > 0.5   # logits of about 1e30 apart: one token takes (nearly) all of it
