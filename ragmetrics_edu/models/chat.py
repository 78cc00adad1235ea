"""The language model's tokenizer and chat template, rebuilt from its GGUF file.

SmolLM2 splits text with byte-level BPE (the GPT-2 scheme, digits apart): the
vocabulary and the merges are read from the file and handed to the
``tokenizers`` package (:class:`BPETokenizer`); a conversation becomes one
prompt through the ChatML template the file declares (:func:`render_chatml`).
Used by :mod:`ragmetrics_edu.models.decoder`.
"""

import numpy as np

from .._validation import describe, shorten
from .gguf import GGUFError

class BPETokenizer:
    """The byte-level BPE tokenizer of a GGUF file, rebuilt with ``tokenizers``.

    GPT-2's scheme (Radford et al. 2019; Sennrich et al. 2016): the text is
    split into digits (one each, as SmolLM2's pre-tokenizer ``smollm`` does),
    words, runs of punctuation and of white space; each piece's UTF-8 bytes
    become printable characters (a space is ``Ġ``), and the file's merges
    join them, most frequent pair first. The control tokens
    (``<|im_start|>``, ``<|im_end|>``, ...) are matched whole in the text.
    """

    def __init__(self, gguf):
        m, path = gguf.metadata, gguf.path
        kind = m.get("tokenizer.ggml.model")
        if kind != "gpt2":
            raise GGUFError(f"{path}: tokenizer.ggml.model must be 'gpt2' (byte-level BPE), "
                            f"got {kind!r}")
        pre = m.get("tokenizer.ggml.pre", "default")
        if pre not in ("smollm", "default", "gpt2"):
            raise GGUFError(f"{path}: pre-tokenizer {pre!r} is not supported "
                            f"('smollm' and 'gpt2' are)")
        try:
            from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers
        except ImportError as exc:
            raise ImportError('the language model needs tokenizers: pip install '
                              '"ragmetrics-edu[semantic]"') from exc
        tokens = m.get("tokenizer.ggml.tokens")
        merges = m.get("tokenizer.ggml.merges")
        if not tokens or merges is None:
            raise GGUFError(f"{path}: the metadata holds no tokenizer.ggml.tokens or merges")
        vocab = {t: i for i, t in enumerate(tokens)}
        pairs = []
        for merge in merges:
            left, sep, right = merge.partition(" ")
            if not sep:
                raise GGUFError(f"{path}: merge {shorten(merge)} is not two tokens")
            pairs.append((left, right))
        bpe = models.BPE(vocab=vocab, merges=pairs, fuse_unk=False)
        tok = Tokenizer(bpe)
        steps = [pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)]
        if pre == "smollm":
            steps.insert(0, pre_tokenizers.Digits(individual_digits=True))
        tok.pre_tokenizer = pre_tokenizers.Sequence(steps)
        tok.decoder = decoders.ByteLevel()
        types = m.get("tokenizer.ggml.token_type", np.ones(len(tokens), dtype=np.int32))
        # type 3 is a control token, 4 user-defined: both are matched whole
        self.special_ids = [int(i) for i in np.nonzero(np.isin(types, (3, 4)))[0]]
        tok.add_special_tokens([AddedToken(tokens[i], special=True, normalized=False)
                                for i in self.special_ids])
        self._tok = tok
        self.tokens = list(tokens)
        self.vocab_size = len(tokens)
        self.bos_token_id = optional_int(m.get("tokenizer.ggml.bos_token_id"))
        self.eos_token_id = optional_int(m.get("tokenizer.ggml.eos_token_id"))
        self.add_bos_token = bool(m.get("tokenizer.ggml.add_bos_token", False))

    def encode(self, text):
        """The token ids of ``text`` (a BOS token first if the file says so)."""
        ids = self._tok.encode(text, add_special_tokens=False).ids
        if self.add_bos_token and self.bos_token_id is not None:
            ids = [self.bos_token_id, *ids]
        return list(ids)

    def decode(self, ids, skip_special_tokens=False):
        """The text of token ids (bytes that are not whole UTF-8 yet become U+FFFD)."""
        return self._tok.decode([int(i) for i in ids], skip_special_tokens=skip_special_tokens)

    def convert_ids_to_tokens(self, ids):
        """The tokens' strings as the vocabulary holds them (``Ġ`` for a space)."""
        return [self.tokens[int(i)] for i in ids]

    def __repr__(self):
        return f"BPETokenizer({self.vocab_size} tokens)"


def optional_int(value):
    return None if value is None else int(value)


# the template SmolLM2's file declares: ChatML with a default system message
SMOLLM2_TEMPLATE = (
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by "
    "Hugging Face<|im_end|>\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\n' + "
    "message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}"
    "{{ '<|im_start|>assistant\n' }}{% endif %}")
SMOLLM2_SYSTEM = "You are a helpful AI assistant named SmolLM, trained by Hugging Face"


def render_chatml(messages, default_system, add_generation_prompt=True):
    """Write chat messages in the ChatML format SmolLM2 was tuned on.

    Each message becomes ``<|im_start|>role\\ncontent<|im_end|>\\n``; a
    system message ``default_system`` comes first when the first message is
    not a system message; ``<|im_start|>assistant\\n`` ends the prompt when
    ``add_generation_prompt``, so the model writes the assistant's reply.

    Examples
    --------
    >>> print(render_chatml([{"role": "user", "content": "Hi"}], "Be brief."), end="|")
    <|im_start|>system
    Be brief.<|im_end|>
    <|im_start|>user
    Hi<|im_end|>
    <|im_start|>assistant
    |
    """
    parts = []
    for i, message in enumerate(messages):
        if i == 0 and message["role"] != "system":
            parts.append(f"<|im_start|>system\n{default_system}<|im_end|>\n")
        parts.append(f"<|im_start|>{message['role']}\n{message['content']}<|im_end|>\n")
    if add_generation_prompt:
        parts.append("<|im_start|>assistant\n")
    return "".join(parts)


def check_messages(messages):
    if isinstance(messages, str):
        return [{"role": "user", "content": messages}]
    try:
        messages = list(messages)
    except TypeError:
        raise TypeError(f"messages must be a string or a list of {{'role', 'content'}} "
                        f"dicts, got {describe(messages)}") from None
    for i, msg in enumerate(messages):
        if not (isinstance(msg, dict) and isinstance(msg.get("role"), str)
                and isinstance(msg.get("content"), str)):
            raise TypeError(f"messages[{i}] must be a dict with string 'role' and 'content', "
                            f"got {describe(msg)}")
    if not messages:
        raise ValueError("messages must hold at least one message, got []")
    return messages
