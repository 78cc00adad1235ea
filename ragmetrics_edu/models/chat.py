"""The language model's tokenizer and chat template, rebuilt from its GGUF file.

SmolLM2 splits text with byte-level BPE (the GPT-2 scheme, digits apart): the
vocabulary and the merges are read from the file and handed to the
``tokenizers`` package (:class:`BPETokenizer`); a conversation becomes one
prompt through the ChatML template the file declares (:func:`render_chatml`).
Used by :mod:`ragmetrics_edu.models.decoder`.
"""

import numbers
import re
import sys

import numpy as np

from .._deprecation import formerly_positional
from .._validation import describe, shorten
from .gguf import GGUFError

def _byte_symbols():
    """GPT-2's byte-level alphabet: the printable character that stands for each byte.

    Bytes that are printable Latin-1 characters stand for themselves; the
    others (controls, the space, a few more) take the characters from U+0100
    on, in byte order: the space is ``Ġ`` (U+0120).
    """
    printable = [*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    others = iter(range(0x100, 0x200))
    return tuple(chr(b) if b in printable else chr(next(others)) for b in range(256))


BYTE_SYMBOLS = _byte_symbols()
"""``BYTE_SYMBOLS[b]``: the character byte-level BPE writes byte ``b`` as (256 of them)."""


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
        # an array where a string belongs compares element by element: test the type first
        kind = m.get("tokenizer.ggml.model")
        if not isinstance(kind, str) or kind != "gpt2":
            raise GGUFError(f"{path}: tokenizer.ggml.model must be 'gpt2' (byte-level BPE), "
                            f"got {kind!r}")
        pre = m.get("tokenizer.ggml.pre", "default")
        if not isinstance(pre, str) or pre not in ("smollm", "default", "gpt2"):
            raise GGUFError(f"{path}: pre-tokenizer (tokenizer.ggml.pre) {describe(pre)} is not "
                            f"supported ('smollm' and 'gpt2' are)")
        try:
            from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers
        except ImportError as exc:
            raise ImportError('the language model needs tokenizers: pip install '
                              '"ragmetrics-edu[semantic]"') from exc
        tokens = m.get("tokenizer.ggml.tokens")
        merges = m.get("tokenizer.ggml.merges")
        missing = [k for k, v in (("tokenizer.ggml.tokens", tokens),
                                  ("tokenizer.ggml.merges", merges)) if v is None]
        if missing:
            raise GGUFError(f"{path}: the metadata holds no {' and no '.join(missing)} (a "
                            "byte-level BPE tokenizer needs its tokens and its merges)")
        for key, value in (("tokenizer.ggml.tokens", tokens), ("tokenizer.ggml.merges", merges)):
            if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
                raise GGUFError(f"{path}: metadata {key} must be an array of strings, got "
                                f"{describe(value)}")
        if not tokens:
            raise GGUFError(f"{path}: metadata tokenizer.ggml.tokens is empty (no vocabulary)")
        vocab = {}
        for i, t in enumerate(tokens):
            if t in vocab:  # two ids for one string: the tokenizer would keep one of them
                raise GGUFError(f"{path}: tokenizer.ggml.tokens holds {shorten(t)} twice, as "
                                f"tokens {vocab[t]} and {i}")
            vocab[t] = i
        # byte-level BPE writes every byte as one of 256 symbols; a byte whose symbol the
        # vocabulary lacks would be dropped from the text without a word (SmolLM2 lacks
        # a few control bytes and bytes UTF-8 never or hardly uses): encode refuses it
        missing = bytes(b for b, c in enumerate(BYTE_SYMBOLS) if c not in vocab)
        self._unwritable = (re.compile(b"[" + b"".join(re.escape(bytes([b])) for b in missing)
                                       + b"]") if missing else None)
        pairs = []
        for k, merge in enumerate(merges):
            left, sep, right = merge.partition(" ")
            if not sep:
                raise GGUFError(f"{path}: merge {shorten(merge)} is not two tokens")
            for part in (left, right, left + right):
                if part not in vocab:
                    raise GGUFError(f"{path}: tokenizer.ggml.merges[{k}] {shorten(merge)} "
                                    f"names {shorten(part)}, which tokenizer.ggml.tokens does "
                                    "not hold (a merge joins two tokens into a third)")
            pairs.append((left, right))
        bpe = models.BPE(vocab=vocab, merges=pairs, fuse_unk=False)
        tok = Tokenizer(bpe)
        steps = [pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)]
        if pre == "smollm":
            steps.insert(0, pre_tokenizers.Digits(individual_digits=True))
        tok.pre_tokenizer = pre_tokenizers.Sequence(steps)
        tok.decoder = decoders.ByteLevel()
        types = m.get("tokenizer.ggml.token_type", np.ones(len(tokens), dtype=np.int32))
        if not isinstance(types, np.ndarray) or types.dtype.kind not in "iu" \
                or types.shape != (len(tokens),):
            raise GGUFError(f"{path}: metadata tokenizer.ggml.token_type must be an array of "
                            f"{len(tokens)} integers (one per token), got {describe(types)}")
        # type 3 is a control token, 4 user-defined: both are matched whole
        self.special_ids = [int(i) for i in np.nonzero(np.isin(types, (3, 4)))[0]]
        tok.add_special_tokens([AddedToken(tokens[i], special=True, normalized=False)
                                for i in self.special_ids])
        self._tok = tok
        self.tokens = list(tokens)
        self.vocab_size = len(tokens)
        self.bos_token_id = _token_id(m, "tokenizer.ggml.bos_token_id", len(tokens), path)
        self.eos_token_id = _token_id(m, "tokenizer.ggml.eos_token_id", len(tokens), path)
        self.add_bos_token = m.get("tokenizer.ggml.add_bos_token", False)
        if not isinstance(self.add_bos_token, bool):
            raise GGUFError(f"{path}: metadata tokenizer.ggml.add_bos_token must be a bool, got "
                            f"{describe(self.add_bos_token)}")
        #: the most characters one token can stand for: a text longer than the context
        #: length times this cannot fit, whatever its tokens (checked before tokenizing)
        self.longest_token = max(len(t) for t in tokens)

    def encode(self, text):
        """The token ids of ``text`` (a BOS token first if the file says so).

        A character with a byte that the vocabulary cannot write is refused
        (``ValueError``): the tokenizer would drop it without a word.
        """
        if self._unwritable is not None:
            found = self._unwritable.search(text.encode("utf-8", "surrogatepass"))
            if found:
                byte = found.group()[0]
                char = next(c for c in text
                            if byte in c.encode("utf-8", "surrogatepass"))
                raise ValueError(f"text holds {char!r} (U+{ord(char):04X}), whose UTF-8 byte "
                                 f"0x{byte:02x} this model's vocabulary cannot write (its "
                                 "byte-level symbol is not among tokenizer.ggml.tokens): "
                                 "the tokenizer would drop it; remove or replace it")
        ids = self._tok.encode(text, add_special_tokens=False).ids
        if self.add_bos_token and self.bos_token_id is not None:
            ids = [self.bos_token_id, *ids]
        return list(ids)

    def decode(self, ids, skip_special_tokens=False):
        """The text of token ids (bytes that are not whole UTF-8 yet become U+FFFD).

        Parameters
        ----------
        ids : iterable of int
            Token ids, each passed through ``int``; their range is not checked here
            (:meth:`LanguageModel.decode` checks them first).
        skip_special_tokens : bool, default False
            Leave out the control tokens (``<|im_end|>``).
        """
        return self._tok.decode([int(i) for i in ids], skip_special_tokens=skip_special_tokens)

    def convert_ids_to_tokens(self, ids):
        """The tokens' strings as the vocabulary holds them (``Ġ`` for a space)."""
        return [self.tokens[int(i)] for i in ids]

    def __repr__(self):
        return f"BPETokenizer({self.vocab_size} tokens)"


def _token_id(m, key, vocab_size, path):
    """Metadata ``key`` as a token id (None when absent), or a GGUFError naming it."""
    value = m.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) \
            or not 0 <= value < vocab_size:
        raise GGUFError(f"{path}: metadata {key} must be a token id from 0 to {vocab_size - 1}, "
                        f"got {describe(value)}")
    return int(value)


# the template SmolLM2's file declares: ChatML with a default system message
SMOLLM2_TEMPLATE = (
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by "
    "Hugging Face<|im_end|>\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\n' + "
    "message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}"
    "{{ '<|im_start|>assistant\n' }}{% endif %}")
SMOLLM2_SYSTEM = "You are a helpful AI assistant named SmolLM, trained by Hugging Face"


@formerly_positional("add_generation_prompt")
def render_chatml(messages, default_system, *, add_generation_prompt=True):
    """Write chat messages in the ChatML format SmolLM2 was tuned on.

    Each message becomes ``<|im_start|>role\\ncontent<|im_end|>\\n``; a
    system message ``default_system`` comes first when the first message is
    not a system message; ``<|im_start|>assistant\\n`` ends the prompt when
    ``add_generation_prompt``, so the model writes the assistant's reply.

    Parameters
    ----------
    messages : list of dict
        ``{"role": str, "content": str}`` each, in order, as :func:`check_messages`
        returns them (not checked here); an empty list writes no system message.
    default_system : str
        The system message written first when the first message is not one.
    add_generation_prompt : bool, default True
        End with ``<|im_start|>assistant\\n``, the opening of the reply.

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


# ---------------------------------------------------------------- prompts

MAX_PROMPT_CHARS = 1 << 22
"""The longest prompt text read (4,194,304 characters), whatever context window a file declares."""


def prompt_kind(prompt):
    """``"text"``, ``"messages"`` or ``"ids"``: what a prompt is, or a TypeError naming it."""
    if isinstance(prompt, str):
        return "text"
    if isinstance(prompt, (list, tuple)) and prompt:
        if all(isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in prompt):
            return "ids"
        if all(isinstance(m, dict) for m in prompt):
            return "messages"
    if isinstance(prompt, np.ndarray) and prompt.ndim == 1 and prompt.dtype.kind in "iu":
        return "ids"
    if isinstance(prompt, (list, tuple)) and not prompt:
        raise ValueError("prompt must not be empty, got []")
    got = ("bytes (decode them to a string first)" if isinstance(prompt, (bytes, bytearray))
           else "a dict (a message goes in a list: [message])" if isinstance(prompt, dict)
           else describe(prompt))
    raise TypeError(f"prompt must be a string, a list of messages or a list of token ids, "
                    f"got {got}")


MAX_TOKEN_IDS = MAX_PROMPT_CHARS + 1
"""The most token ids read at once (4,194,305): as many as the longest text read can encode to
(a text is read up to :data:`MAX_PROMPT_CHARS` UTF-8 bytes, a token stands for one byte or
more, and a BOS token may come first)."""


def check_token_ids(ids, vocab_size):
    """``ids`` as a list of ints from 0 to ``vocab_size - 1``, or an error naming what is wrong.

    A string, floats or booleans are refused, not converted: ``"12"`` would
    be read as the ids 1 and 2, ``1.5`` cut to 1, ``True`` taken for 1.  The
    length is checked first (at most :data:`MAX_TOKEN_IDS`), and a ``range``
    by its ends: ``range(10**8)`` is refused at once, not after a list of it.

    Parameters
    ----------
    ids : list, tuple or range of int, or 1-D integer numpy.ndarray
        The token ids, Python or NumPy integers (not bools). Another container, an
        item that is not an integer or an array of another dtype or shape is a
        ``TypeError``; more than :data:`MAX_TOKEN_IDS` ids or an id out of range a
        ``ValueError``.
    vocab_size : int
        The vocabulary's size: every id must be from 0 to ``vocab_size - 1``.

    Returns
    -------
    list of int

    Examples
    --------
    >>> check_token_ids("12", 10)
    Traceback (most recent call last):
    ...
    TypeError: ids must be a list of token ids (integers), got '12'
    >>> check_token_ids(range(10**8), 10)
    Traceback (most recent call last):
    ...
    ValueError: ids must hold at most 4,194,305 token ids (MAX_TOKEN_IDS, as many as the longest text read encodes to), got 100,000,000
    """
    if isinstance(ids, np.ndarray):
        if ids.ndim != 1 or ids.dtype.kind not in "iu":
            raise TypeError(f"ids must be a list of token ids (integers), got an array of "
                            f"dtype {ids.dtype} and shape {ids.shape}")
    elif not isinstance(ids, (list, tuple, range)):
        raise TypeError(f"ids must be a list of token ids (integers), got {describe(ids)}")
    if len(ids) > MAX_TOKEN_IDS:
        raise ValueError(f"ids must hold at most {MAX_TOKEN_IDS:,} token ids (MAX_TOKEN_IDS, as "
                         f"many as the longest text read encodes to), got {len(ids):,}")
    if isinstance(ids, range) and len(ids):  # integers all: its ends are its extremes
        bad = [i for i in (ids[0], ids[-1]) if not 0 <= i < vocab_size]
        if bad:
            raise ValueError(f"ids must be token ids from 0 to {vocab_size - 1}, "
                             f"got {describe(bad[0])}")
        return list(ids)
    if isinstance(ids, np.ndarray):
        ids = ids.tolist()
    for i in ids:
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
            raise TypeError(f"ids must be a list of token ids (integers), got "
                            f"{describe(i)} among them")
    ids = [int(i) for i in ids]
    bad = [i for i in ids if not 0 <= i < vocab_size]
    if bad:
        raise ValueError(f"ids must be token ids from 0 to {vocab_size - 1}, "
                         f"got {describe(bad[0])}")
    return ids


def check_text_for_model(text, name):
    """``text`` if it is a string the tokenizer can read, else an error naming ``name``.

    A text longer than :data:`MAX_PROMPT_CHARS` characters, or UTF-8 bytes,
    is refused before it is tokenized: the tokenizer takes about 290 bytes
    per character (a text of 9 million characters aborted the process under
    a 3 GiB limit), and a longer text could encode to more token ids than
    :data:`MAX_TOKEN_IDS` (one per byte at most), which decode refuses.
    A lone surrogate (``"\\ud800"``, half of a UTF-16 pair) is not text: the
    tokenizer cannot encode it (and said so as "TextInputSequence must be str").

    Parameters
    ----------
    text : str
        The text to tokenize; another type is a ``TypeError``, a text too long (in
        characters or in UTF-8 bytes) or with a lone surrogate a ``ValueError``.
    name : str
        The argument's name in the messages (``"prompt"``, ``"prefix"``).

    Examples
    --------
    >>> check_text_for_model("ab " * 1_400_000, "text")
    Traceback (most recent call last):
    ...
    ValueError: text is 4,200,000 characters long: more than the 4,194,304 characters read (MAX_PROMPT_CHARS); shorten it
    """
    if not isinstance(text, str):
        raise TypeError(f"{name} must be a string, got {describe(text)}")
    if len(text) > MAX_PROMPT_CHARS:
        raise ValueError(f"{name} is {len(text):,} characters long: more than the "
                         f"{MAX_PROMPT_CHARS:,} characters read (MAX_PROMPT_CHARS); shorten it")
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError as exc:
        raise ValueError(f"{name} holds a lone surrogate {text[exc.start]!r} at character "
                         f"{exc.start}: half of a UTF-16 pair, not text") from None
    if size > MAX_PROMPT_CHARS:
        raise ValueError(f"{name} is {len(text):,} characters long, {size:,} bytes in UTF-8: "
                         f"more than the {MAX_PROMPT_CHARS:,} bytes read (MAX_PROMPT_CHARS; a "
                         "token stands for one byte or more); shorten it")
    return text


# ---------------------------------------------------------------- other chat templates

MAX_TEMPLATE_STEPS = 200_000
"""The most lines of template code one rendering may run (a chat template runs a few hundred)."""


class _TemplateBudget(Exception):
    """A chat template went past a bound; the message says which."""


@formerly_positional("add_generation_prompt")
def render_template(source, messages, *, add_generation_prompt, limit, where):
    """Render a chat template (Jinja) in a sandbox whose time and size are bounded.

    A GGUF file may declare any template; rendering it must not run for
    minutes nor fill the memory. The sandbox (Jinja's immutable one) is
    bounded four ways: at most :data:`MAX_TEMPLATE_STEPS` lines of the
    template's code (a trace counts them, so no loop runs on), a prompt of
    at most ``limit`` characters (the output is read piece by piece), no
    value in the template's variables longer than ``limit`` (checked at each
    step: a string doubled in a loop is caught at once), and no operation
    asked for a result longer than ``limit`` or a number of more than
    ``limit`` digits (``'x' * 10**10``, ``'x'.center(10**10)``,
    ``10 ** 10 ** 8``). A template that breaks a bound, or fails in any
    other way, raises ValueError naming ``where`` (the file).

    Parameters
    ----------
    source : str
        The template's Jinja source (a file's ``tokenizer.chat_template``).
    messages : list of dict
        The conversation, given to the template as ``messages``.
    add_generation_prompt : bool
        Given to the template as ``add_generation_prompt``.
    limit : int
        The bound, in characters, on the prompt, on each value of the template's
        variables and on each result asked for (see above).
    where : str or os.PathLike
        The file the template comes from, named in the messages.

    Returns
    -------
    str
        The prompt.

    Raises
    ------
    ValueError
        The template breaks a bound or fails.
    ImportError
        ``jinja2`` is not installed.
    """
    try:
        from jinja2.sandbox import ImmutableSandboxedEnvironment
        from jinja2.utils import Namespace
    except ImportError:
        raise ImportError(f"{where}: this file's chat template is not SmolLM2's; "
                          f"rendering it needs jinja2 (pip install jinja2)") from None

    def refuse(what):
        raise _TemplateBudget(what)

    def check_size(value):
        size = _size_of(value, Namespace)
        if size > limit:
            refuse(f"wrote a value longer than {limit:,} characters")
        return value

    def check_arguments(args, kwargs):
        for a in (*args, *kwargs.values()):
            if isinstance(a, int) and not isinstance(a, bool) and abs(a) > limit:
                refuse(f"asks for a result longer than {limit:,} characters ({describe(a)})")

    class Bounded(ImmutableSandboxedEnvironment):
        intercepted_binops = frozenset({"*", "**", "+"})

        def call_binop(self, context, operator, left, right):
            if operator == "**" and all(isinstance(v, int) and not isinstance(v, bool)
                                        for v in (left, right)):
                if abs(left) > 1 and right > 0 and right * abs(left).bit_length() > 4 * limit:
                    refuse(f"computes a number too large ({describe(left)} ** "
                           f"{describe(right)})")
            if operator == "*":
                for seq, times in ((left, right), (right, left)):
                    if isinstance(seq, (str, list, tuple)) and isinstance(times, int) \
                            and len(seq) * times > limit:
                        refuse(f"wrote a value longer than {limit:,} characters")
            return check_size(super().call_binop(context, operator, left, right))

        def call(__self, __context, __obj, *args, **kwargs):  # noqa: N805 - Jinja's signature
            if __obj is not __self.globals.get("range"):  # range has its own bound and the steps
                check_arguments(args, kwargs)
            return check_size(super().call(__context, __obj, *args, **kwargs))

    def bounded_filter(f):
        def run(*args, **kwargs):
            check_arguments(args[1:], kwargs)
            return check_size(f(*args, **kwargs))
        run.__dict__.update(getattr(f, "__dict__", {}))  # keeps Jinja's pass_context and such
        return run

    env = Bounded(trim_blocks=True, lstrip_blocks=True)
    env.filters = {name: bounded_filter(f) for name, f in env.filters.items()}
    env.globals.pop("lipsum", None)  # writes any number of paragraphs
    pieces, written, steps = [], 0, [0]

    def local(frame, event, arg):
        if event == "line":
            steps[0] += 1
            if steps[0] > MAX_TEMPLATE_STEPS:
                refuse(f"ran more than {MAX_TEMPLATE_STEPS:,} steps (a loop without end?)")
            for value in frame.f_locals.values():
                check_size(value)
        return local

    def trace(frame, event, arg):
        return local if frame.f_code.co_filename == "<template>" else None

    previous = sys.gettrace()
    try:
        template = env.from_string(source)
        sys.settrace(trace)
        for piece in template.generate(messages=messages,
                                       add_generation_prompt=add_generation_prompt):
            written += len(piece)
            if written > limit:
                refuse(f"wrote a prompt longer than {limit:,} characters")
            pieces.append(piece)
    except _TemplateBudget as exc:
        problem = str(exc)
    except (Exception, MemoryError, RecursionError) as exc:  # noqa: BLE001 - any failure
        problem = f"failed: {type(exc).__name__}: {shorten(str(exc), 200)}"
    else:
        return "".join(pieces)
    finally:
        sys.settrace(previous)
    raise ValueError(f"{where}: the chat template {problem}; the file's "
                     "tokenizer.chat_template cannot be used")


def _size_of(value, namespace):
    """The length of a string or container, looking one level into a Jinja ``namespace``."""
    if isinstance(value, (str, bytes, list, tuple, dict, set)):
        return len(value)
    if isinstance(value, namespace):
        attrs = object.__getattribute__(value, "_Namespace__attrs")  # its store of values
        return max((_size_of(v, ()) for v in attrs.values()), default=0)
    return 0
