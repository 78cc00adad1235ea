"""Finding the API key in a server's text, however it is encoded, and withholding it.

The judge client (:mod:`ragmetrics_edu.judge.openai_compat`) passes every text
a server sends (an error body, a reply that is not a chat completion, a
redirect's address, a reply's content) through :func:`_redact` or
:func:`_quotes_key` before it can reach a message, a ``Failure.reason``, a
warning or the cache; the rule of what counts as quoting the key is written
in that module's docstring ("What counts as quoting the key"). The cache
(:mod:`ragmetrics_edu.judge.cache`) refuses a server address carrying a
password with :func:`_refuse_userinfo`.
"""

import base64
import functools
import html
import json
import re
import unicodedata

import numpy as np


def _redact(text, key, cut=None, truncated=False):
    """``text`` without the key, cut to ``cut`` characters; or a notice if the key cannot be cut out.

    Two steps (see "What counts as quoting the key" in the docstring of
    :mod:`ragmetrics_edu.judge.openai_compat`):

    1. every echo of the whole key, as typed or with any of its characters
       escaped (``%2F``, ``\\u002f``, ``\\/``, ``\\x2f``, ``+`` for a space),
       becomes ``***``; this is done on the whole text *before* the cut, so a
       key straddling the cut leaves no piece behind;
    2. if the whole text (not only what would be shown) still quotes the key
       in any way :func:`_quotes_key` reads (encoded, split, in part, cut into
       JSON fields), it is replaced by :data:`WITHHELD`: the cut would break
       the JSON or the tags that join the pieces of the key, and what is left
       may still show them.

    ``truncated=True`` says that ``text`` is the start of a longer text (a
    read stopped early): its last characters may hold the start of a key
    that nothing can recognise, so they are dropped (as many as the longest
    encoded echo of the key could take).
    """
    if key:
        text = _key_pattern(key).sub("***", text)
        if truncated:
            text = text[:max(len(text) - _ECHO_CHARS * len(key), 0)]
        if _quotes_key(text, key):
            return WITHHELD
    return text if cut is None else text[:cut]


WITHHELD = "[not shown: the server's text quotes the API key, encoded or in part]"
"""What an error message shows instead of a server's text that quotes the key."""

KEY_RUN = 12
"""The fewest consecutive characters of the key that count as quoting it."""

_ECHO_CHARS = 16   # the most characters one character of the key takes in an echo read here
_LAYERS = 4        # escapes undone in turn (JSON inside HTML inside percent-encoding...)

_BACKSLASH = re.compile(
    r"\\(?:u\{([0-9a-fA-F]{1,6})\}|U([0-9a-fA-F]{8})|u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})"
    r"|([0-7]{1,3})|(.))", re.DOTALL)
_SIMPLE_BACKSLASH = re.compile(r"\\(?=[^uUx0-7ntrbf\\])", re.DOTALL)   # the backslash alone
_BACKSLASH_LETTERS = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}
_DEEP_PERCENT = re.compile(r"%(?:25)+(?=[0-9a-fA-F]{2})")   # %252F: "%2F" encoded again
_DEEP_AMP = re.compile(r"&(?:amp;)+")                        # &amp;amp;#47;: "&#47;" escaped again
_QUOTED_PRINTABLE = re.compile(r"=(?:\r?\n|([0-9A-Fa-f]{2}))")
_TAG = re.compile(r"<[^<>]*>")   # linear: a match cannot run past the next "<"
_NOT_ALNUM = re.compile(r"[\W_]+")
_INTEGER = re.compile(r"(?<!\d)\d{1,7}(?!\d)")
# 0x73 or x73, not an entity (&#x73;) nor a backslash escape (\x73): those are undone apart.
# Read wherever it stands, glued to a word before it ("id0x73") or letters after it ("0x73yy"):
# the codes are read greedily (up to 6 hex digits), so a list glued to text loses nothing;
# and read again with each code ending where the next "0x" or "x" begins, for codes glued to
# each other ("0x450x4d": greedily 0x450, 0x4d0...). Both: "x40x41" is x40, x41 greedily.
_HEX_CODE = re.compile(r"(?<![#\\])0?[xX]([0-9a-fA-F]{1,6})")
_HEX_CODE_GLUED = re.compile(r"(?<![#\\])0?[xX]([0-9a-fA-F]{1,6}?)(?=0?[xX]|[^0-9a-fA-F]|\Z)")
# JSON strings, read from the first quote on: every character is consumed by one match, and
# group 1 is a value (a string not followed by ":"), resp. a key; an unclosed string at the
# end (a cut text) counts too. The alternatives start with different characters, so a
# failed match backtracks linearly, never exponentially.
_STRING_BODY = r'[^"\\]*(?:\\.[^"\\]*)*'
_STRING_END = r'(?:"|\\?\Z)'
_JSON_VALUES = re.compile(
    r'[^"]*(?:"(' + _STRING_BODY + r')(?:"(?!\s*:)|\\?\Z)|"' + _STRING_BODY + r'"\s*:)?',
    re.DOTALL)
_JSON_KEYS = re.compile(
    r'[^"]*(?:"(' + _STRING_BODY + r')"\s*:|"' + _STRING_BODY + _STRING_END + r')?', re.DOTALL)
# a quote, "=" or "&" escaped as an HTML entity or percent-encoded (any number of times)
_HIDDEN_BY_ENTITY = re.compile(r"&(?:quot|equals|amp|#0*(?:34|61|38)|#[xX]0*(?:22|3[dD]|26));?")
_PERCENT_ESCAPE = re.compile(r"%[0-9a-fA-F]{2}")
_HIDDEN_BY_PERCENT = re.compile(r"%(?:25)*(?:22|3[dD]|26)")
# the values of a query string (?a=1&b=2;c=3), every character consumed by one match
_QUERY_VALUES = re.compile(r"[^?&;]*(?:[?&;](?:[^=?&;#\s]*=([^?&;#\s]*))?)?")


def _unbackslash(text):
    """``text`` with one level of backslash escapes undone: JSON's and ``repr``'s
    (``\\u002f``, ``\\x2f``, ``\\/``), ``\\U0000002f``, octal ``\\057`` and
    JavaScript's ``\\u{2f}``."""
    def one(m):
        for group in (1, 2, 3, 4):
            if m.group(group):
                code = int(m.group(group), 16)
                return chr(code) if code < 0x110000 else ""
        if m.group(5):
            return chr(int(m.group(5), 8))
        return _BACKSLASH_LETTERS.get(m.group(6), m.group(6))
    if "\\" not in text:
        return text
    # escaped backslashes first (str.replace pairs them from the left, as the pattern
    # does), then escapes of one character by a template, both at C speed; what is
    # left for the Python callback are the escapes that take a number
    keep = next((ch for ch in ("\ue000", "\ue001", "\ue002") if ch not in text), None)
    if keep is None:   # a text holding all three private-use characters: the plain way
        return _BACKSLASH.sub(one, text)
    text = text.replace("\\\\", keep)
    text = _SIMPLE_BACKSLASH.sub("", text)   # no template: C speed
    if "\\" in text:
        text = _BACKSLASH.sub(one, text)
    return text.replace(keep, "\\")


def _unescape(text):
    """One layer of HTML entities, backslash escapes and percent-encoding undone.

    A percent-encoding or an ``&amp;`` repeated any number of times
    (``%25252F``, ``&amp;amp;#47;``) is undone as one layer.
    """
    text = _unescape_but_percent(text)
    if "%" in text:
        text = _unpercent(_DEEP_PERCENT.sub("%", text))
    return text


def _unescape_but_percent(text):
    """One layer of HTML entities and backslash escapes undone, not percent-encoding."""
    if "&" in text:
        text = html.unescape(_DEEP_AMP.sub("&", text))
    return _unbackslash(text)


def _percent_kept(text):
    """``text`` with every repeated percent-encoding undone but its last layer, both ways
    a run of ``%25`` can be read: ``%25252F`` as ``%2F``, and ``%252525cd`` as ``%25cd``.

    A key holding its own escape (``pass%2F``, ``ab%25cd``) encoded again reads as itself
    here; :func:`_unescape` undoes the last layer too (``pass/``), and reads
    ``%252525cd`` as ``%cd`` (the key's own ``%25`` taken for one more layer).

    >>> _percent_kept("pass%25252F and ab%252525cd")
    ('pass%2F and ab%cd', 'pass%252F and ab%25cd')
    """
    if "%25" not in text or not _DEEP_PERCENT.search(text):
        return ()
    return _DEEP_PERCENT.sub("%", text), _DEEP_PERCENT.sub("%25", text)


_HEX_VALUE = np.full(256, 255, dtype=np.uint8)
_HEX_VALUE[np.frombuffer(b"0123456789", dtype=np.uint8)] = np.arange(10)
_HEX_VALUE[np.frombuffer(b"abcdef", dtype=np.uint8)] = np.arange(10, 16)
_HEX_VALUE[np.frombuffer(b"ABCDEF", dtype=np.uint8)] = np.arange(10, 16)


def _unpercent(text):
    """``urllib.parse.unquote(text, errors="replace")``, vectorised (NumPy): ``%XX`` escapes
    decoded as bytes, the result read as UTF-8; millions of escapes take a fraction of a second.

    Examples
    --------
    >>> _unpercent("a%2Fb%e2%82%ac%zz%4")
    'a/b€%zz%4'
    """
    raw = np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8)
    if len(raw) < 3:
        return text
    high, low = _HEX_VALUE[raw[1:-1]], _HEX_VALUE[raw[2:]]
    at = np.flatnonzero((raw[:-2] == ord("%")) & (high < 16) & (low < 16))
    if not len(at):
        return text
    # escapes never overlap: the two characters after a "%" are hex digits, not "%"
    out = raw.copy()
    out[at] = high[at] * 16 + low[at]
    keep = np.ones(len(raw), dtype=bool)
    keep[at + 1] = False
    keep[at + 2] = False
    return out[keep].tobytes().decode("utf-8", "replace")


# white space, control characters (Cc) and format characters (Cf: zero-width space and
# joiner, soft hyphen, byte order mark, bidirectional marks, tags...) and U+FFFD, what
# bytes that are not UTF-8 become; the Cf ranges are Unicode's (a test checks them)
_FORMAT_RANGES = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
    "\U000e0020-\U000e007f")
_INVISIBLE = re.compile("[\\s\x00-\x1f\x7f-\x9f" + _FORMAT_RANGES + "\ufffd]+")
_ASCII_INVISIBLE = bytes(range(0x21)) + b"\x7f"
_ASCII_NOT_ALNUM = bytes(c for c in range(128) if not chr(c).isalnum())


def _compact(text):
    """``text`` without white space, control and format characters, nor U+FFFD."""
    if text.isascii():   # the common case, at C speed
        return text.encode("ascii").translate(None, _ASCII_INVISIBLE).decode("ascii")
    return _INVISIBLE.sub("", text)


def _folded(text):
    """``text`` in NFKC (fullwidth letters become ASCII), case-folded, compacted."""
    if text.isascii():
        return _compact(text.lower())   # NFKC leaves ASCII alone; casefold is lower
    return _compact(unicodedata.normalize("NFKC", text).casefold())


def _skeleton(text):
    """``text``'s letters and digits alone."""
    if text.isascii():
        return text.encode("ascii").translate(None, _ASCII_NOT_ALNUM).decode("ascii")
    return _NOT_ALNUM.sub("", text)


def _codes_of(numbers_, base, least):
    """The characters whose code points ``numbers_`` (strings in ``base``) list; "" for fewer
    than ``least`` codes."""
    if len(numbers_) < max(least, 1):
        return ""
    codes = np.array([int(n, base) for n in numbers_] if base != 10 else numbers_,
                     dtype=np.int64)
    codes = codes[(codes < 0x110000) & ((codes < 0xD800) | (codes > 0xDFFF))]
    return codes.astype("<u4").tobytes().decode("utf-32-le")


def _code_list(text, least=KEY_RUN):
    """The characters whose decimal code points ``text`` lists (``115,107,45``), if it lists
    at least ``least``.

    Examples
    --------
    >>> _code_list("[115, 107, 45, 76, 101, 97, 107, 47, 55, 81, 122, 43] and 55296 "
    ...            "(a surrogate) and 99999999")
    'sk-Leak/7Qz+'
    >>> _code_list("1, 2, 3")   # fewer codes than KEY_RUN: nothing to search
    ''
    >>> _code_list("69, 77, 80, 84, 89", least=5)   # a key of 5 characters
    'EMPTY'
    """
    return _codes_of(_INTEGER.findall(text), 10, least)


def _hex_code_lists(text, least=KEY_RUN):
    """The characters whose code points ``text`` lists in hexadecimal after ``0x`` or ``x``
    (``0x73, 0x6B``, ``x73 x6b``), if it lists at least ``least``: read greedily, and with
    each code ending where the next begins (:data:`_HEX_CODE_GLUED`).

    >>> _hex_code_lists("0x45 0x4d, 0x50,X54 x59", least=5)[0]
    'EMPTY'
    >>> _hex_code_lists("id0x45, 0x4d, 0x50, 0x54, 0x59yy", least=5)[0]   # glued to words
    'EMPTY'
    >>> _hex_code_lists("0x450x4d0x500x540x59", least=5)[1]                # to each other
    'EMPTY'
    """
    if "x" not in text and "X" not in text:
        return ()
    return tuple(_codes_of(pattern.findall(text), 16, least)
                 for pattern in (_HEX_CODE, _HEX_CODE_GLUED))


def _joins(text):
    """The fields of ``text`` joined: the values of its JSON strings, its JSON object keys,
    the values of its query strings (``?a=1&b=2``), each in order and still escaped.

    Read from the first quote, whatever comes before or after (a byte order mark, a
    sentence, the rest of a cut text): a key cut into fields is joined again.

    >>> _joins('error: {"a": "sk-Le", "b": ["ak/7", 3], "c": "Qz+9')
    ('sk-Leak/7Qz+9', 'abc')
    >>> _joins("http://x/?p0=sk-Le&p1=ak%2F7;p2=Qz%2B9#top")
    ('sk-Leak%2F7Qz%2B9',)
    """
    out = []
    if '"' in text:
        out += ["".join(_JSON_VALUES.findall(text)), "".join(_JSON_KEYS.findall(text))]
    if "=" in text and ("?" in text or "&" in text or ";" in text):
        out.append("".join(_QUERY_VALUES.findall("&" + text)))   # "&": the first one too
    return tuple(out)


def _joins_inside(text):
    """:func:`_joins` of ``text`` with only its HTML entities, or only its percent-encoding,
    undone, if that revealed quotes or a query string: JSON in an HTML attribute or in an
    address, whose own backslash escapes one layer of :func:`_unescape` would undo together
    with the entities."""
    out = ()
    for undo, hides in ((lambda t: html.unescape(_DEEP_AMP.sub("&", t)), _HIDDEN_BY_ENTITY),
                        (lambda t: _unpercent(_DEEP_PERCENT.sub("%", t)), _HIDDEN_BY_PERCENT)):
        if hides.search(text):   # a quote, "=" or "&" escaped: else nothing new to join
            inner = undo(text)
            if any(_revealed(text, inner, ch) for ch in '"=&'):
                out += _joins(inner)
    return out


def _revealed(before, after, ch):
    """Whether undoing an escape revealed ``ch`` (a quote, ``=``, ``&``) in ``after``."""
    return after.count(ch) > before.count(ch)


class _TooMuchToRead(Exception):
    """The fields joined of a text would take more than :data:`_READ_BUDGET` times its length."""


_READ_BUDGET = 24   # characters of fields joined, in all, per character of the text
_JOIN_DEPTH = 2     # fields joined inside joined fields (JSON inside a JSON string)


def _sources(text, least=KEY_RUN, keep_percent=False):
    """The texts a reader recovers from ``text`` before normalising it, one at a time.

    The text and each layer of escapes undone (up to :data:`_LAYERS`); the
    fields joined (:func:`_joins`) of the text, of the text with only its HTML
    entities or its percent-encoding undone (:func:`_joins_inside`), and of
    its first layer if that revealed quotes, each with its own layers and
    fields, twice deep (:data:`_JOIN_DEPTH`: JSON inside a JSON string, JSON
    in an HTML attribute); beside each layer, for a key holding a percent
    escape (``keep_percent``), the layer with its repeated percent-encodings
    undone but the last (:func:`_percent_kept`: the key's own ``%2F`` kept);
    the text with quoted-printable escapes undone; UTF-8 read as Latin-1; and
    the characters of the decimal or hexadecimal codes it lists (at least
    ``least`` of them). Each distinct text once; fields joined of more than
    :data:`_READ_BUDGET` times the text's length (plus 64 Ki) in all raise
    :class:`_TooMuchToRead`: bounded time and memory, whatever the text.
    """
    seen = set()
    budget = [_READ_BUDGET * len(text) + (1 << 16)]

    def fresh(source, joined=False):
        if not source:
            return False
        mark = (len(source), hash(source))
        if mark in seen:
            return False
        seen.add(mark)
        if joined:   # the text's own layers are few (at most _LAYERS + 1): not counted
            budget[0] -= len(source)
            if budget[0] < 0:
                raise _TooMuchToRead
        return True

    def layers(start, depth, joined=False):
        layer = start
        for level in range(_LAYERS + 1):
            if fresh(layer, joined):
                yield layer
                # the fields of the text, and of the text unescaped once if that
                # revealed quotes (JSON inside a JSON string: its fields' first layer)
                if depth and (level == 0 or (level == 1 and (
                        '\\"' in start or _revealed(start, layer, '"')))):
                    joins = _joins(layer) + (_joins_inside(layer) if level == 0 else ())
                    for fields in joins:
                        yield from layers(fields, depth - 1, True)
            # a percent-encoding repeated, undone but its last layer (a key's own "%2F"
            # kept; also under HTML entities or backslash escapes, as \u002525252F):
            # read apart, with no layers nor fields of its own
            bare = _unescape_but_percent(layer)
            if keep_percent:
                for kept in _percent_kept(layer) + (_percent_kept(bare) if bare != layer
                                                    else ()):
                    if fresh(kept, joined):
                        yield kept
            # _unescape(layer), from the part already undone
            undone = _unpercent(_DEEP_PERCENT.sub("%", bare)) if "%" in bare else bare
            if undone == layer:
                break
            layer = undone

    yield from layers(text, _JOIN_DEPTH)
    if "=" in text:
        yield from layers(_QUOTED_PRINTABLE.sub(
            lambda m: chr(int(m.group(1), 16)) if m.group(1) else "", text), 0)
    if not text.isascii() and max(text) < "\u0100":   # UTF-8 read as Latin-1 (a header)
        yield from layers(text.encode("latin-1").decode("utf-8", "replace"), 0)
    for codes in (_code_list(text, least), *_hex_code_lists(text, least)):
        if fresh(codes):
            yield codes


def _readings(text, least=KEY_RUN, keep_percent=False):
    """``(view, reading)`` pairs, each once: the views searched, source by source.

    *exact*: each source (:func:`_sources`) as it is and compacted (without
    white space, control and format characters); *folded*: compacted, in NFKC
    and case-folded; *skeleton*: its letters and digits alone, case-folded
    (also with HTML tags left out, however long), the pieces of a key cut
    apart joined again.
    """
    seen = set()

    def fresh(view, reading):
        mark = (view, len(reading), hash(reading))
        if not reading or mark in seen:
            return False
        seen.add(mark)
        return True

    for source in _sources(text, least, keep_percent):
        compact = _compact(source)
        folded = _folded(compact)
        views = [("exact", source), ("exact", compact), ("folded", folded),
                 ("skeleton", _skeleton(folded))]
        for view, reading in views:
            if fresh(view, reading):
                yield view, reading
        del views, compact, folded
        if "<" in source:
            reading = _skeleton(_folded(_TAG.sub("", source)))
            if fresh("skeleton", reading):
                yield "skeleton", reading


_ROT13 = str.maketrans("abcdefghijklmnopqrstuvwxyz", "nopqrstuvwxyzabcdefghijklm")


def _windows(encode, raw, group, chars, width):
    """Every ``width`` characters of ``encode`` (base64 or base32: ``group`` characters for
    ``chars`` bytes) of ``raw`` that stand for whole bytes of it, at each alignment."""
    out = set()
    for shift in range(chars):   # the key's first byte at each offset of a group
        encoded = encode(b"\0" * shift + raw).decode("ascii")
        first = group if shift else 0
        last = group * ((shift + len(raw)) // chars)
        inner = encoded[first:last]
        if len(inner) < width:
            continue
        out.update(inner[i:i + width] for i in range(0, len(inner) - width + 1, group))
    return out


def _needles(key):
    """What a quote of the key looks like, by view and length: ``{(view, length): set}``.

    *exact* views: every :data:`KEY_RUN` consecutive characters of the key,
    white space left out (the whole key if shorter), also of the key with its
    own escapes undone (a key holding ``%2F`` reads as ``/`` once a text
    encoding it twice is decoded); every 12 characters of its base64 encoding
    (of the key, or of ``Bearer <key>``) standing for 9 whole bytes, at each
    alignment, in both alphabets; for a key shorter than :data:`KEY_RUN`, the
    base64 of the key alone and of ``Bearer <key>``, whole. For a key of at
    least :data:`KEY_RUN` characters also, in the *folded* views, every run
    case-folded, reversed and in rot13; in the *skeleton* views, every 12
    consecutive letters and digits of the key (case-folded), the hexadecimal
    of every run, and every 16 characters of the key's base32 encoding that
    stand for 10 whole bytes, case-folded.
    """
    bare = "".join(key.split())
    n = min(KEY_RUN, len(bare))
    variants = [bare]
    for _ in range(_LAYERS):
        undone = _compact(_unescape(variants[-1]))
        if not undone or undone == variants[-1]:
            break
        variants.append(undone)
    out = {}
    for v in variants:   # a short key (or what its escapes decode to, 6 or more) whole
        width = min(n, len(v))
        if width and (v is bare or width >= min(n, 6)):
            out.setdefault(("exact", width), set()).update(
                v[i:i + width] for i in range(len(v) - width + 1))
    raw = key.encode("utf-8")
    urlsafe = str.maketrans("+/", "-_")
    b64 = _windows(base64.b64encode, raw, 4, 3, 12)
    if len(bare) < KEY_RUN:
        for whole in (raw, b"Bearer " + raw):
            encoded = base64.b64encode(whole).decode("ascii").rstrip("=")
            out.setdefault(("exact", len(encoded)), set()).update(
                {encoded, encoded.translate(urlsafe)})
    if b64:
        out.setdefault(("exact", 12), set()).update(b64 | {w.translate(urlsafe) for w in b64})
    if len(bare) < KEY_RUN:
        return {where: frozenset(group) for where, group in out.items()}
    variants = [v for v in variants if len(v) >= KEY_RUN]
    runs = [v[i:i + KEY_RUN].casefold() for v in variants for i in range(len(v) - KEY_RUN + 1)]
    out[("folded", KEY_RUN)] = {form for run in runs
                                for form in (run, run[::-1], run.translate(_ROT13))}
    skeletons = [s for s in (_NOT_ALNUM.sub("", v.casefold()) for v in variants)
                 if len(s) >= KEY_RUN]
    if skeletons:
        out[("skeleton", KEY_RUN)] = {s[i:i + KEY_RUN]
                                      for s in skeletons for i in range(len(s) - KEY_RUN + 1)}
    out[("skeleton", 2 * KEY_RUN)] = {key[i:i + KEY_RUN].encode("utf-8").hex()
                                      for i in range(len(key) - KEY_RUN + 1)}
    b32 = _windows(base64.b32encode, raw, 8, 5, 16)
    if b32:
        out[("skeleton", 16)] = {w.casefold() for w in b32}
    return {where: frozenset(group) for where, group in out.items()}


_HASH_BASE = 0x100000001B3   # FNV's prime: any odd 64-bit number would do
_HASH_INVERSE = pow(_HASH_BASE, -1, 1 << 64)   # odd, so invertible modulo 2**64
_CHUNK = 1 << 18             # characters hashed at a time: bounded memory, whatever the text
_FILTER_BITS = 20            # a table of 2**20 flags screens the window hashes


@functools.lru_cache(maxsize=1)
def _powers():
    """``B**i`` and ``B**-i`` modulo 2**64 for ``i < _CHUNK + 64`` (NumPy uint64)."""
    n = _CHUNK + 64
    with np.errstate(over="ignore"):   # products wrap modulo 2**64, as meant
        up = np.cumprod(np.full(n, _HASH_BASE, dtype=np.uint64))
        down = np.cumprod(np.full(n, _HASH_INVERSE, dtype=np.uint64))
    one = np.ones(1, dtype=np.uint64)
    return np.concatenate([one, up[:-1]]), np.concatenate([one, down[:-1]])


def _window_hashes(codes, width, up, down):
    """The hash ``sum_t codes[i+t] * B**-t`` (mod 2**64) of every ``width`` codes at once:
    from one prefix sum, so one pass serves every width."""
    prefix = np.zeros(len(codes) + 1, dtype=np.uint64)
    np.cumsum(codes * down[:len(codes)], out=prefix[1:])
    count = len(codes) - width + 1
    return (prefix[width:width + count] - prefix[:count]) * up[:count]


def _needle_table(needles, width):
    """The hashes of ``needles`` (sorted) and a table of their top bits, for :func:`_holds`.

    Not cached: nothing made from the key outlives the call that needs it."""
    up, down = _powers()
    hashes = np.array(sorted({int(_window_hashes(_codes(n), width, up, down)[0])
                              for n in needles}), dtype=np.uint64)
    table = np.zeros(1 << _FILTER_BITS, dtype=bool)
    table[hashes >> np.uint64(64 - _FILTER_BITS)] = True
    return hashes, table


def _codes(text):
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.uint64)


def _holds(text, needles, width, direct=None):
    """Whether ``text`` holds one of ``needles`` (a frozenset of ``width``-character strings).

    A short text is searched needle by needle; a long one (a reply can be
    10 MiB) by a polynomial hash of all its ``width``-character windows,
    computed in chunks of :data:`_CHUNK` characters (memory bounded whatever
    the text), screened by a table of flags and compared exactly: linear in
    the text, whatever the number of needles.
    """
    if len(text) < width:
        return False
    if direct is None:
        direct = len(text) * len(needles) < 1 << 22
    if direct:
        return any(needle in text for needle in needles)
    up, down = _powers()
    wanted, table = _needle_table(needles, width)
    shift = np.uint64(64 - _FILTER_BITS)
    for start in range(0, len(text) - width + 1, _CHUNK):
        piece = text[start:start + _CHUNK + width - 1]
        hashes = _window_hashes(_codes(piece), width, up, down)
        candidates = np.flatnonzero(table[hashes >> shift])
        if len(candidates):
            hits = candidates[np.isin(hashes[candidates], wanted)]
            if any(piece[i:i + width] in needles for i in hits.tolist()):
                return True
    return False


def _quotes_key(text, key):
    """Whether ``text`` quotes ``key``: the whole key in any escape of :func:`_key_pattern`,
    or one of :func:`_needles` in any of :func:`_readings` (a text too costly to read is
    taken to quote it)."""
    if not key or not text:
        return False
    if _key_pattern(key).search(text):
        return True
    by_view = {}
    for (view, width), group in _needles(key).items():
        by_view.setdefault(view, []).append((width, group))
    least = min(KEY_RUN, len("".join(key.split())))
    keep_percent = _PERCENT_ESCAPE.search(key) is not None   # the key holds its own "%2F"
    try:
        return any(_holds(reading, group, width)
                   for view, reading in _readings(text, least, keep_percent)
                   for width, group in by_view.get(view, ()))
    except _TooMuchToRead:
        return True


def _key_pattern(key):
    """A regular expression matching ``key`` with each character written in any of its escapes."""
    parts = []
    for ch in key:
        code = f"{ord(ch):02x}"
        forms = [re.escape(ch),
                 f"%(?i:{re.escape(code)})",  # percent-encoding, either case of hex
                 f"\\\\u(?i:{ord(ch):04x})",  # a JSON \uXXXX escape
                 f"\\\\x(?i:{re.escape(code)})"]  # a repr \xXX escape
        if ch in "\"'/\\":
            forms.append(re.escape("\\" + ch))  # JSON's or repr's backslash escape
        if ch == " ":
            forms.append(re.escape("+"))  # form encoding
        parts.append("(?:" + "|".join(forms) + ")")
    return re.compile("".join(parts))


def _without_userinfo(url):
    """``url`` with a ``user:password@`` part replaced by ``***@``.

    Examples
    --------
    >>> _without_userinfo("http://user:secret@localhost:8080/v1")
    'http://***@localhost:8080/v1'
    >>> _without_userinfo("http://localhost:8080/v1")
    'http://localhost:8080/v1'
    """
    scheme, sep, rest = url.partition("://")
    authority_end = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    authority = rest[:authority_end]
    if "@" not in authority:
        return url
    return scheme + sep + "***@" + authority.rpartition("@")[2] + rest[authority_end:]


def _refuse_userinfo(url, name):
    """Refuse a URL carrying credentials (``http://user:secret@host``): every message, repr
    and cache entry would show them. The message shows the URL without them."""
    if isinstance(url, str) and _without_userinfo(url) != url:
        raise ValueError(
            f"{name} must not carry a user name or password (user:password@ before the host), "
            f"got {_without_userinfo(url)!r}: it would show in messages and cache files; put "
            "the key in the environment variable named by api_key_env instead")
