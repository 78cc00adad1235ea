"""A judge that talks to any server speaking the chat-completions protocol.

OpenAI, Ollama (``http://localhost:11434/v1``), vLLM
(``http://localhost:8000/v1``) and llama.cpp's ``llama-server``
(``http://localhost:8080/v1``) all serve ``POST {base_url}/chat/completions``
with a JSON body ``{"model", "messages", "temperature", ...}`` and reply
``{"choices": [{"message": {"content": "..."}}]}``. This module uses the
standard library only (``urllib``): no extra dependency.

Switching the notebook from the offline stand-in to a real model is one
line::

    judge = OpenAICompatibleJudge("http://localhost:11434/v1", "llama3.1:8b")

The API key
-----------
The key is read from the environment variable named by ``api_key_env``
(default ``OPENAI_API_KEY``) each time a request is sent, with surrounding
white space (a pasted newline) removed. It is never stored on the object,
never part of its ``repr``, of an error message or of a cache key. A key
holding a character no HTTP header can carry (a newline inside it, a
control character, a non-ASCII quote pasted from a web page) raises
:class:`JudgeConfigError` naming the variable, never the value. Local
servers usually need no key: when the variable is unset no
``Authorization`` header is sent (pass ``require_key=True`` to make a
missing key an error instead).

Where the key may go
--------------------
* **No redirects.** urllib would follow a 301/302/303/307/308 to any host
  with the ``Authorization`` header still attached (and turn the POST into
  a GET). This judge follows none: a redirect raises
  :class:`JudgeHTTPError` saying where the server pointed, and you set
  ``base_url`` to that address yourself.
* **No credentials in the address.** A ``base_url`` carrying a user name or
  password (``http://user:secret@host/v1``) is refused (:class:`ValueError`,
  showing the address with ``***@``): it would show in the ``repr``, in
  every error and in every cache entry's ``"server"``.
* **No proxy for this machine.** A proxy set in the environment
  (``http_proxy``, ``https_proxy``) would receive plain-HTTP requests, key
  included, even for a server on 127.0.0.1. For a loopback ``base_url``
  (``localhost``, 127.0.0.0/8, ``::1``) no proxy is used; other hosts use
  the environment's proxy settings, as urllib does.

What counts as quoting the key
------------------------------
A faulty or hostile server may send the key back, in an error body, a
redirect's address or a reply. A text *quotes* the key when it holds

* the whole key, with any of its characters escaped (``%2F``, ``\\u002f``,
  ``\\/``, ``\\x2f``, ``+`` for a space), or
* any 12 consecutive characters of it (:data:`KEY_RUN`; the whole key if it
  is shorter: an 80% prefix of a real key is a quote), in the text as it is
  or as a reader recovers it:

  - escapes undone, up to four layers deep (JSON inside JSON, HTML inside
    percent-encoding): HTML entities (``&#47;``, ``&sol;``,
    ``html.escape``); backslash escapes (JSON's and ``repr``'s, ``\\U0000002f``,
    octal ``\\057``, JavaScript's ``\\u{2f}``); percent-encoding, where a
    percent-encoding or an ``&amp;`` repeated any number of times
    (``%25252F``) counts as one layer; also quoted-printable (``=2F``), the
    strings of a JSON text joined (a key cut into fields), a list of decimal
    codes (``115,107,45``), and UTF-8 read as Latin-1 (a header);
  - white space, control characters (a NUL between the characters of a
    UTF-16 or UTF-32 body read as UTF-8) and Unicode format characters
    (category Cf: zero-width space and joiner, soft hyphen, byte order mark)
    left out, and U+FFFD (bytes that are not UTF-8);
  - and, for a key of 12 characters or more, in NFKC (fullwidth letters
    read as ASCII) and case-folded (the key upper- or lower-cased), also
    reversed or in rot13; or
* for a key of 12 characters or more, any 12 consecutive letters and digits
  of it (case-folded) in the text's letters and digits alone, HTML tags
  left out: a key cut into short pieces joined by separators
  (``sk-Leak/7Qz - +9Wm=2Xv``, ``<i>sk-Le</i><i>ak/7Q</i>``, a path); or
  the hexadecimal of 12 consecutive characters of it (either case, any
  separators); or any 16 characters of the key's base32 encoding standing
  for 10 of its bytes; or
* any 12 characters of the key's base64 encoding that stand for 9 of its
  bytes, in either alphabet (the base64 of the key, or of
  ``Bearer <key>`` as in an ``Authorization`` header).

Not read: an encoding applied twice on purpose (base64 of the key's
hexadecimal, of its base64 or of its UTF-16), a key cut into pieces
shorter than what the forms above join, or arithmetic on it: a server
that means to smuggle the key out can always do so; the rules catch every
echo a faulty server makes and every form a reader decodes at a glance.

An error message shows a server's text with each whole echo of the key
replaced by ``***``; a text that still quotes the key after that is not
shown at all (:data:`WITHHELD` stands in its place). A 2xx reply whose
content quotes the key is refused (:class:`JudgeResponseError`): it is
neither returned nor, behind a :class:`CachedJudge`, written to the cache.
A key shorter than 12 characters (a placeholder such as ``EMPTY``, which
some local servers want) is matched whole only; a reply holding it is
refused too, so leave the variable unset for servers that need no key.

Retries
-------
A 429 (rate limit) or a 5xx (server error) is tried again, up to
``max_retries`` more times, after the ``Retry-After`` the server sent
(seconds, or an HTTP date, read as GMT when it names no zone), else after
``backoff_base * 2**attempt`` seconds (also when ``Retry-After`` cannot be
read, e.g. ``"soon"``); the wait is capped at ``backoff_max``. The error
raised when no retry is left has ``retry_after``: the seconds the last
``Retry-After`` asked for (None without a readable one), for callers that
retry on their own (:func:`~ragmetrics_edu.judge.run.judge_all`). Other errors
are raised at once, each with its own class: 401/403
:class:`JudgeAuthError`, 404 :class:`JudgeNotFoundError`, a redirect
:class:`JudgeHTTPError`, a timeout :class:`JudgeTimeoutError`, an
unreachable server or a connection closed mid-reply
:class:`JudgeConnectionError`, a reply that is not HTTP or not a chat
completion :class:`JudgeResponseError`. Whatever fails inside urllib or
http.client comes out as a :class:`JudgeError` whose message (and whose
chain of causes: there is none) never holds the key.

Time and size limits
--------------------
``timeout`` (default 60 s) bounds each try as a whole, from connecting to
the last byte of the reply: a watchdog shuts the connection when it runs
out, so a server dripping one byte a second cannot stretch a try (urllib's
own timeout restarts at every byte read). ``deadline`` (default None)
bounds a whole :meth:`~OpenAICompatibleJudge.complete` call: tries and the
waits between them count against it; a try gets at most the time left, and
a retry whose wait would end past the deadline is not made (the last HTTP
error is raised, saying so). Both raise :class:`JudgeTimeoutError`.

A reply body is read up to ``max_reply_bytes`` (default 10 MiB, far above
any chat completion); a longer one, or an endless chunked stream, raises
:class:`JudgeResponseError` once that many bytes have come. Error replies
are read up to 64 KiB (their start is quoted in the message).

Replies a faulty server may send (JSON nested thousands deep, an integer
of 5,000 digits, bytes that are not UTF-8, a content holding a lone
surrogate) raise :class:`JudgeResponseError` naming what was wrong, never
a ``RecursionError``, ``ValueError`` or ``UnicodeEncodeError``.
"""

import base64
import datetime
import email.utils
import functools
import html
import http.client
import ipaddress
import json
import math
import numbers
import os
import re
import socket
import threading
import time
import unicodedata
import urllib.error
import urllib.parse
import urllib.request

import numpy as np

from .base import (
    JudgeAuthError,
    JudgeConfigError,
    JudgeConnectionError,
    JudgeError,
    JudgeHTTPError,
    JudgeNotFoundError,
    JudgeRateLimitError,
    JudgeResponseError,
    JudgeServerError,
    JudgeTimeoutError,
)

__all__ = ["OpenAICompatibleJudge"]

_RETRY_STATUS = {429} | set(range(500, 600))


def _is_loopback(host):
    """Whether ``host`` is this machine: ``localhost``, 127.0.0.0/8 or ``::1``.

    Examples
    --------
    >>> _is_loopback("localhost"), _is_loopback("127.0.0.1"), _is_loopback("127.8.9.10"), _is_loopback("::1")
    (True, True, True, True)
    >>> _is_loopback("::ffff:127.0.0.1"), _is_loopback("::ffff:10.0.0.1")
    (True, False)
    >>> _is_loopback("api.openai.com"), _is_loopback("10.0.0.1"), _is_loopback(None)
    (False, False, False)
    """
    if not host:
        return False
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:  # a host name, not an address
        return False
    # ::ffff:127.0.0.1 is 127.0.0.1 written as IPv6 (not "loopback" to ipaddress)
    mapped = getattr(ip, "ipv4_mapped", None)
    return ip.is_loopback or (mapped is not None and mapped.is_loopback)


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """Follow no redirect: the 3xx reply reaches ``complete`` as an ``HTTPError``.

    urllib's own handler would resend the request, ``Authorization`` header
    included, to whatever host the ``Location`` names.
    """

    def http_error_302(self, req, fp, code, msg, headers):
        return None  # None: "not handled here", so urllib raises HTTPError(3xx)

    http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302


class _Watchdog:
    """Ends one try at its time limit, whatever the server does meanwhile.

    ``timeout`` given to urllib bounds each socket operation, not the try: a
    server sending one byte a second never lets a read time out. The watchdog
    remembers every socket the try opens and, when ``seconds`` have passed,
    shuts them down, so the blocked read returns at once; ``expired`` then
    tells the judge that the failure that follows is the time limit.
    """

    def __init__(self, seconds):
        self.expired = False
        self._sockets = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def __enter__(self):
        self._timer.start()
        return self

    def __exit__(self, *exc_info):
        self._timer.cancel()
        return False

    def watch(self, sock):
        with self._lock:
            if self.expired:  # the limit passed while connecting
                _shut(sock)
            self._sockets.append(sock)
        return sock

    def _expire(self):
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                _shut(sock)


def _shut(sock):
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:  # already closed
        pass


def _watched(connection_class, watchdog):
    """An ``http.client`` connection factory whose sockets the watchdog can shut down."""
    def make(host, **kwargs):
        conn = connection_class(host, **kwargs)
        create = conn._create_connection  # socket.create_connection, used by connect()
        conn._create_connection = lambda *a, **k: watchdog.watch(create(*a, **k))
        return conn
    return make


class _WatchedHTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, watchdog):
        super().__init__()
        self._watchdog = watchdog

    def http_open(self, req):
        return self.do_open(_watched(http.client.HTTPConnection, self._watchdog), req)


class _WatchedHTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, watchdog):
        super().__init__()
        self._watchdog = watchdog

    def https_open(self, req):
        return self.do_open(_watched(http.client.HTTPSConnection, self._watchdog), req,
                            context=self._context)


def _retry_after_seconds(value, now=None):
    """Seconds to wait as a ``Retry-After`` header says, or None if it cannot be read.

    The header holds either seconds (``"120"``) or an HTTP date
    (``"Wed, 21 Oct 2015 07:28:00 GMT"``). HTTP dates are always GMT, so a
    date naming no zone is read as GMT too, not as this machine's local time.

    Examples
    --------
    >>> _retry_after_seconds("2.5")
    2.5
    >>> import datetime
    >>> now = datetime.datetime(2015, 10, 21, 7, 27, 50, tzinfo=datetime.timezone.utc).timestamp()
    >>> _retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT", now=now)
    10.0
    >>> _retry_after_seconds("Wed, 21 Oct 2015 07:28:00", now=now)   # no zone: GMT
    10.0
    >>> _retry_after_seconds("soon") is None
    True
    """
    if not value or not value.strip():
        return None
    try:
        seconds = float(value)
    except ValueError:
        seconds = None
    if seconds is None:
        try:
            when = email.utils.parsedate_to_datetime(value.strip())
        except (TypeError, ValueError, IndexError, OverflowError):
            return None  # neither seconds nor a date
        if when.tzinfo is None:
            when = when.replace(tzinfo=datetime.timezone.utc)
        seconds = when.timestamp() - (time.time() if now is None else now)
    return None if math.isnan(seconds) else seconds


def _redact(text, key, cut=None, truncated=False):
    """``text`` without the key, cut to ``cut`` characters; or a notice if the key cannot be cut out.

    Two steps (see "What counts as quoting the key" in the module docstring):

    1. every echo of the whole key, as typed or with any of its characters
       escaped (``%2F``, ``\\u002f``, ``\\/``, ``\\x2f``, ``+`` for a space),
       becomes ``***``; this is done on the whole text *before* the cut, so a
       key straddling the cut leaves no piece behind;
    2. if what would be shown (the cut text and enough after it to hold a
       key straddling the cut) still quotes the key in any way
       :func:`_quotes_key` reads (encoded, split, in part), the whole text is
       replaced by :data:`WITHHELD`: such a text cannot be cut apart safely.

    ``truncated=True`` says that ``text`` is the start of a longer text (a
    read stopped early): its last characters may hold the start of a key
    that nothing can recognise, so they are dropped (as many as the longest
    encoded echo of the key could take).
    """
    if key:
        text = _key_pattern(key).sub("***", text)
        margin = _ECHO_CHARS * len(key)
        if truncated:
            text = text[:max(len(text) - margin, 0)]
        if _quotes_key(text if cut is None else text[:cut + margin], key):
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
_SIMPLE_BACKSLASH = re.compile(r"\\([^uUx0-7ntrbf\\])", re.DOTALL)
_BACKSLASH_LETTERS = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}
_DEEP_PERCENT = re.compile(r"%(?:25)+(?=[0-9a-fA-F]{2})")   # %252F: "%2F" encoded again
_DEEP_AMP = re.compile(r"&(?:amp;)+")                        # &amp;amp;#47;: "&#47;" escaped again
_QUOTED_PRINTABLE = re.compile(r"=(?:\r?\n|([0-9A-Fa-f]{2}))")
_TAG = re.compile(r"<[^<>]{0,64}>")
_NOT_ALNUM = re.compile(r"[\W_]+")
_INTEGER = re.compile(r"(?<!\d)\d{1,7}(?!\d)")


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
    text = _SIMPLE_BACKSLASH.sub(r"\1", text)
    if "\\" in text:
        text = _BACKSLASH.sub(one, text)
    return text.replace(keep, "\\")


def _unescape(text):
    """One layer of HTML entities, backslash escapes and percent-encoding undone.

    A percent-encoding or an ``&amp;`` repeated any number of times
    (``%25252F``, ``&amp;amp;#47;``) is undone as one layer.
    """
    if "&" in text:
        text = html.unescape(_DEEP_AMP.sub("&", text))
    text = _unbackslash(text)
    if "%" in text:
        text = _unpercent(_DEEP_PERCENT.sub("%", text))
    return text


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


def _code_list(text):
    """The characters whose decimal code points ``text`` lists (``115,107,45``).

    Examples
    --------
    >>> _code_list("[115, 107, 45, 76, 101, 97, 107, 47, 55, 81, 122, 43] and 55296 "
    ...            "(a surrogate) and 99999999")
    'sk-Leak/7Qz+'
    >>> _code_list("1, 2, 3")   # fewer codes than KEY_RUN: nothing to search
    ''
    """
    numbers_ = _INTEGER.findall(text)
    if len(numbers_) < KEY_RUN:
        return ""
    codes = np.array(numbers_, dtype=np.int64)
    codes = codes[(codes < 0x110000) & ((codes < 0xD800) | (codes > 0xDFFF))]
    return codes.astype("<u4").tobytes().decode("utf-32-le")


def _json_strings(text):
    """The strings of ``text`` read as JSON, joined in order; "" when it is not JSON."""
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        return ""
    try:
        value = json.loads(stripped)
    except (ValueError, RecursionError):
        return ""
    out, stack = [], [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))
    return "".join(out)


def _sources(text):
    """The texts a reader recovers from ``text`` before normalising it: the text and each
    layer of escapes undone (up to :data:`_LAYERS`), the same from the strings of the text
    read as JSON, the text with quoted-printable escapes undone, and the characters of the
    decimal codes it lists."""
    out = []

    def add(start):
        layer = start
        for _ in range(_LAYERS + 1):
            if layer and layer not in out:
                out.append(layer)
            undone = _unescape(layer)
            if undone == layer:
                break
            layer = undone

    add(text)
    add(_json_strings(text))
    if "=" in text:
        add(_QUOTED_PRINTABLE.sub(lambda m: chr(int(m.group(1), 16)) if m.group(1) else "", text))
    if not text.isascii() and max(text) < "\u0100":   # UTF-8 read as Latin-1 (a header)
        add(text.encode("latin-1").decode("utf-8", "replace"))
    codes = _code_list(text)
    if len(codes) >= KEY_RUN and codes not in out:
        out.append(codes)
    return out


def _readings(text):
    """``{"exact": [...], "folded": [...], "skeleton": [...]}``: the views searched.

    *exact*: each source (:func:`_sources`) as it is and compacted (without
    white space, control and format characters); *folded*: compacted, in NFKC
    and case-folded; *skeleton*: its letters and digits alone, case-folded
    (also with HTML tags left out), the pieces of a key cut apart joined again.
    """
    views = {"exact": [], "folded": [], "skeleton": []}

    def add(kind, view):
        if view and view not in views[kind]:
            views[kind].append(view)

    for source in _sources(text):
        add("exact", source)
        compact = _compact(source)
        add("exact", compact)
        folded = _folded(compact)
        add("folded", folded)
        add("skeleton", _skeleton(folded))
        if "<" in source:
            add("skeleton", _skeleton(_folded(_TAG.sub("", source))))
    return views


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
    white space left out (the whole key if shorter); every 12 characters of
    its base64 encoding (of the key, or of ``Bearer <key>``) standing for 9
    whole bytes, at each alignment, in both alphabets. For a key of at least
    :data:`KEY_RUN` characters also, in the *folded* views, every run
    case-folded, reversed and in rot13; in the *skeleton* views, every 12
    consecutive letters and digits of the key (case-folded), the hexadecimal
    of every run, and every 16 characters of the key's base32 encoding that
    stand for 10 whole bytes, case-folded.
    """
    bare = "".join(key.split())
    n = min(KEY_RUN, len(bare))
    out = {}
    if n:
        out.setdefault(("exact", n), set()).update(bare[i:i + n] for i in range(len(bare) - n + 1))
    raw = key.encode("utf-8")
    urlsafe = str.maketrans("+/", "-_")
    b64 = _windows(base64.b64encode, raw, 4, 3, 12)
    if b64:
        out.setdefault(("exact", 12), set()).update(b64 | {w.translate(urlsafe) for w in b64})
    if len(bare) < KEY_RUN:
        return out
    runs = [bare[i:i + KEY_RUN].casefold() for i in range(len(bare) - KEY_RUN + 1)]
    out[("folded", KEY_RUN)] = {form for run in runs
                                for form in (run, run[::-1], run.translate(_ROT13))}
    skeleton = _NOT_ALNUM.sub("", bare.casefold())
    if len(skeleton) >= KEY_RUN:
        out[("skeleton", KEY_RUN)] = {skeleton[i:i + KEY_RUN]
                                      for i in range(len(skeleton) - KEY_RUN + 1)}
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
    or one of :func:`_needles` in any of :func:`_readings`."""
    if not key or not text:
        return False
    if _key_pattern(key).search(text):
        return True
    needles = _needles(key)
    readings = _readings(text)
    return any(_holds(reading, group, width)
               for (view, width), group in needles.items() for reading in readings[view])


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


MAX_SECONDS = 1e6
"""The longest ``timeout``, ``deadline`` or wait accepted, in seconds (11.6 days): longer
ones cannot be given to a timer or a socket."""


def _is_number(value):
    return (isinstance(value, numbers.Real)
            and not isinstance(value, (bool, np.bool_)))


def _positive_number(value, name, allow_zero=False, maximum=None):
    """``value`` as a float: a finite number (NumPy's included), positive or non-negative,
    at most ``maximum``; else an error naming ``name`` and the value."""
    if not _is_number(value):
        raise TypeError(f"{name} must be a number, got {value!r}")
    number = float(value)
    if math.isnan(number):
        raise ValueError(f"{name} must be a number, got {value!r}")
    if number < 0 or (number == 0 and not allow_zero):
        kind = "non-negative" if allow_zero else "positive"
        raise ValueError(f"{name} must be {kind}, got {value!r}")
    if math.isinf(number) or (maximum is not None and number > maximum):
        bound = "finite" if maximum is None else f"at most {maximum:g} seconds"
        raise ValueError(f"{name} must be {bound}, got {value!r}")
    return number


def _integer(value, name, minimum, optional=False):
    """``value`` as an int (NumPy's integers included) of at least ``minimum``."""
    if (isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))
            and int(value) >= minimum):
        return int(value)
    kind = "a non-negative integer" if minimum == 0 else "a positive integer"
    raise ValueError(f"{name} must be {kind}{' or None' if optional else ''}, got {value!r}")


def _json_body(extra_body):
    """``extra_body`` checked to be sent as JSON: a dict of strings to JSON values, without
    NaN or infinity (which no JSON reader takes); else an error naming the field."""
    if not isinstance(extra_body, dict):
        raise TypeError(f"extra_body must be a dict or None, got {extra_body!r}")
    for field, value in extra_body.items():
        if not isinstance(field, str):
            raise TypeError(f"extra_body's fields must be strings, got {field!r}")
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError, RecursionError) as exc:
            raise ValueError(
                f"extra_body[{field!r}] cannot be sent as JSON ({exc}), got {value!r}: "
                "use numbers (finite), strings, booleans, None, lists and dicts") from None
    return dict(extra_body)


class OpenAICompatibleJudge:
    """A judge served over HTTP by an OpenAI-compatible chat-completions API.

    Parameters
    ----------
    base_url : str
        The API root, ending before ``/chat/completions``, e.g.
        ``"https://api.openai.com/v1"`` or ``"http://localhost:11434/v1"``.
    model : str
        The model name the server knows (``"gpt-4o-mini"``, ``"llama3.1:8b"``).
    api_key_env : str, default "OPENAI_API_KEY"
        Name of the environment variable holding the key, read at request
        time. The key itself is never passed to, nor kept by, this object.
    timeout : float, default 60.0
        Seconds one try may take, from connecting to the last byte of the
        reply, however slowly the server sends it; at most
        :data:`MAX_SECONDS` (as are ``deadline``, ``backoff_base`` and
        ``backoff_max``). NumPy numbers are accepted here and in every
        numeric argument.
    deadline : float, optional
        Seconds one call of :meth:`complete` may take in all: every try and
        every wait before a retry count against it (see Notes). Default
        None: no bound beyond ``timeout`` per try and ``backoff_max`` per wait.
    max_reply_bytes : int, default 10_485_760 (10 MiB)
        The largest reply body read; a longer one (or an endless stream)
        raises :class:`JudgeResponseError` once this many bytes have come.
    max_retries : int, default 3
        Further tries after a 429 or 5xx (0: try once).
    temperature : float, default 0.0
        Sampling temperature; 0 for the most repeatable verdicts.
    max_tokens : int, optional
        Upper bound on the reply length, sent when given.
    system_prompt : str, optional
        A system message sent before the prompt.
    backoff_base : float, default 1.0
        First wait before a retry, in seconds; doubled at each retry.
    backoff_max : float, default 30.0
        Longest wait, also the cap on ``Retry-After``.
    extra_body : dict, optional
        Further JSON fields for the request (``{"seed": 0}``, ``{"top_p": 1}``);
        checked at construction: a value JSON cannot carry (NaN, infinity, a
        set) raises :class:`ValueError` naming the field.
    require_key : bool, default False
        Raise :class:`JudgeConfigError` if the variable is unset (for hosted
        APIs) instead of sending no ``Authorization`` header (local servers).

    Attributes
    ----------
    parameters : dict
        Everything but the prompt that shapes the reply (model settings,
        never the key); :class:`CachedJudge` puts it into its keys, with
        ``base_url``.

    Notes
    -----
    Time limits. Each try ends after ``timeout`` seconds at the latest (a
    watchdog shuts the connection), so a server dripping one byte a second
    cannot hold a try longer. With ``deadline``, the whole call ends after
    ``deadline`` seconds at the latest: each try gets
    ``min(timeout, time left)``, a retry whose wait would end past the
    deadline is not made (the last error is raised, saying so), and a try cut
    by the deadline raises :class:`JudgeTimeoutError`. Without ``deadline`` a
    call can take up to ``(max_retries + 1) * timeout + max_retries *
    backoff_max`` seconds (330 s with the defaults).

    Examples
    --------
    >>> judge = OpenAICompatibleJudge("http://localhost:11434/v1/", "llama3.1:8b")
    >>> judge
    OpenAICompatibleJudge(base_url='http://localhost:11434/v1', model='llama3.1:8b')
    >>> judge.parameters
    {'temperature': 0.0}
    """

    def __init__(
        self,
        base_url,
        model,
        api_key_env="OPENAI_API_KEY",
        timeout=60.0,
        max_retries=3,
        temperature=0.0,
        max_tokens=None,
        system_prompt=None,
        backoff_base=1.0,
        backoff_max=30.0,
        extra_body=None,
        require_key=False,
        deadline=None,
        max_reply_bytes=10 * 2**20,
    ):
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must start with http:// or https://, got {base_url!r}")
        _refuse_userinfo(base_url, "base_url")
        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"model must be a non-empty string, got {model!r}")
        if not isinstance(api_key_env, str) or not api_key_env:
            raise ValueError(f"api_key_env must name an environment variable, got {api_key_env!r}")
        max_retries = _integer(max_retries, "max_retries", 0)
        if max_tokens is not None:
            max_tokens = _integer(max_tokens, "max_tokens", 1, optional=True)
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key_env = api_key_env
        self.timeout = _positive_number(timeout, "timeout", maximum=MAX_SECONDS)
        self.max_retries = max_retries
        self.temperature = _positive_number(temperature, "temperature", allow_zero=True)
        self.max_tokens = max_tokens
        self.system_prompt = system_prompt
        self.backoff_base = _positive_number(backoff_base, "backoff_base", allow_zero=True,
                                             maximum=MAX_SECONDS)
        self.backoff_max = _positive_number(backoff_max, "backoff_max", allow_zero=True,
                                            maximum=MAX_SECONDS)
        self.extra_body = {} if extra_body is None else _json_body(extra_body)
        self.require_key = bool(require_key)
        self.deadline = (None if deadline is None
                         else _positive_number(deadline, "deadline", maximum=MAX_SECONDS))
        self.max_reply_bytes = _integer(max_reply_bytes, "max_reply_bytes", 1)
        self._sleep = time.sleep  # replaceable in tests

    # -- what shapes the reply (cache keys) -----------------------------------

    @property
    def parameters(self):
        params = {"temperature": self.temperature}
        if self.max_tokens is not None:
            params["max_tokens"] = self.max_tokens
        if self.system_prompt is not None:
            params["system_prompt"] = self.system_prompt
        if self.extra_body:
            params["extra_body"] = self.extra_body
        return params

    def __repr__(self):
        return f"{type(self).__name__}(base_url={self.base_url!r}, model={self.model!r})"

    # -- the request ----------------------------------------------------------

    def _body(self, prompt):
        messages = []
        if self.system_prompt is not None:
            messages.append({"role": "system", "content": self.system_prompt})
        messages.append({"role": "user", "content": prompt})
        body = {"model": self.model, "messages": messages, "temperature": self.temperature}
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        body.update(self.extra_body)
        return body

    def _key(self):
        """The key from the environment, stripped; None when unset (or blank)."""
        key = (os.environ.get(self.api_key_env) or "").strip()
        if not key:
            if self.require_key:
                raise JudgeConfigError(
                    f"the environment variable {self.api_key_env} is not set; "
                    f"set it to the API key of {self.base_url}"
                )
            return None
        # an HTTP header carries printable ASCII only; say which variable, never the value
        if not all(" " <= ch <= "~" for ch in key):
            raise JudgeConfigError(
                f"the environment variable {self.api_key_env} holds a character an HTTP "
                "header cannot carry (a control character such as a newline or tab inside "
                "the key, or a non-ASCII character); set it again to the bare key"
            )
        return key

    def _opener(self, watchdog):
        """urllib's opener, minus redirects, minus proxies for a server on this machine,
        with connections the watchdog can end."""
        host = urllib.parse.urlsplit(self.base_url).hostname
        proxies = urllib.request.ProxyHandler({}) if _is_loopback(host) else urllib.request.ProxyHandler()
        return urllib.request.build_opener(
            proxies, _NoRedirects(), _WatchedHTTPHandler(watchdog), _WatchedHTTPSHandler(watchdog))

    def complete(self, prompt):
        """Send ``prompt`` as one user message; return the reply's text.

        Raises
        ------
        JudgeAuthError, JudgeNotFoundError, JudgeRateLimitError,
        JudgeServerError, JudgeHTTPError, JudgeTimeoutError,
        JudgeConnectionError, JudgeResponseError, JudgeConfigError
            See the module docstring.
        """
        if not isinstance(prompt, str):
            raise TypeError(f"prompt must be a string, got {prompt!r}")
        key = self._key()
        url = f"{self.base_url}/chat/completions"
        data = json.dumps(self._body(prompt)).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if key is not None:
            headers["Authorization"] = f"Bearer {key}"

        end = None if self.deadline is None else time.monotonic() + self.deadline
        attempt = 0
        while True:
            seconds, by_deadline = self.timeout, False
            if end is not None and end - time.monotonic() < self.timeout:
                seconds, by_deadline = max(end - time.monotonic(), 0.0), True
            reply = self._post(url, data, headers, key, seconds, by_deadline)
            if isinstance(reply, bytes):
                return self._content(reply, key)
            status, detail, retry_after, location = reply
            if status in _RETRY_STATUS and attempt < self.max_retries:
                delay = self._delay(attempt, retry_after)
                if end is None or time.monotonic() + delay < end:
                    self._sleep(delay)
                    attempt += 1
                    continue
                late = (f"; no retry: waiting {delay:g} s would pass the deadline of "
                        f"{self.deadline:g} s")
                raise self._http_error(status, detail + late if detail else late[2:], attempt,
                                       location)
            error = self._http_error(status, detail, attempt, location)
            error.retry_after = _retry_after_seconds(retry_after)  # for a caller's own retries
            raise error

    def _post(self, url, data, headers, key, seconds, by_deadline=False):
        """POST once: the body of a 2xx reply (bytes), or ``(status, detail, retry_after, location)``.

        The try ends within ``seconds`` (the watchdog shuts its connection
        then). Every other failure is raised as a :class:`JudgeError`. It is
        built inside the ``except`` clause but raised after it, so it does not
        chain the original exception, whose text or attributes may hold the
        request and so the key.
        """
        error = None
        with _Watchdog(seconds) as watchdog:
            try:
                request = urllib.request.Request(url, data=data, headers=headers, method="POST")
                with self._opener(watchdog).open(request, timeout=max(seconds, 1e-3)) as response:
                    body = self._read_body(response, url)
                if watchdog.expired:  # a read cut by the watchdog can look like an end
                    error = self._timeout_error(seconds, by_deadline)
                else:
                    return body
            except urllib.error.HTTPError as exc:  # the server answered with an error status
                if not watchdog.expired:
                    return self._status(exc, key)
                error = self._timeout_error(seconds, by_deadline)
            except JudgeError as exc:  # the reply is too long
                error = exc
            except Exception as exc:  # noqa: BLE001 - each becomes a JudgeError below
                if watchdog.expired:
                    error = self._timeout_error(seconds, by_deadline)
                else:
                    error = self._translate(exc, url, key, seconds, by_deadline)
        raise error

    def _read_body(self, response, url):
        """The reply body, at most ``max_reply_bytes`` of it, else :class:`JudgeResponseError`."""
        cap = self.max_reply_bytes
        length = (response.headers.get("Content-Length") or "").strip()
        length = int(length) if length.isascii() and length.isdigit() and len(length) < 20 else None
        if length is not None and length > cap:
            raise JudgeResponseError(
                f"the reply of {url} announces {length} bytes, more than "
                f"max_reply_bytes={cap}; raise max_reply_bytes= if that is expected")
        parts, size = [], 0
        while True:
            chunk = response.read(min(1 << 16, cap + 1 - size))
            if not chunk:
                body = b"".join(parts)
                if length is not None and size < length:  # read(n) returns short, silently
                    raise http.client.IncompleteRead(body, length - size)
                return body
            parts.append(chunk)
            size += len(chunk)
            if size > cap:
                raise JudgeResponseError(
                    f"the reply of {url} is longer than max_reply_bytes={cap} bytes "
                    "(stopped reading there); raise max_reply_bytes= if that is expected")

    def _status(self, exc, key):
        """``(status, detail, retry_after, location)`` of an HTTP error reply."""
        try:
            raw = exc.read(1 << 16)  # the start is enough
        except Exception:  # noqa: BLE001 - the body is a courtesy, not required
            raw = b""
        detail = raw.decode("utf-8", "replace")
        headers = exc.headers or {}
        location = headers.get("Location")
        if location:  # where a redirect points, made absolute
            location = _redact(urllib.parse.urljoin(exc.geturl() or "", location), key)
        exc.close()
        # redact before cutting, so a key that straddles the cut cannot leave a prefix behind
        return (exc.code, _redact(detail, key, 300, truncated=len(raw) >= 1 << 16),
                headers.get("Retry-After"), location)

    def _translate(self, exc, url, key, seconds, by_deadline=False):
        """The :class:`JudgeError` saying what ``exc`` (from urllib or http.client) means."""
        reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
        if isinstance(reason, (socket.timeout, TimeoutError)):
            return self._timeout_error(seconds, by_deadline)
        text = _redact(str(reason), key, 200)
        if isinstance(exc, urllib.error.URLError):
            return JudgeConnectionError(f"cannot reach {url}: {text} (is the server running?)")
        if isinstance(exc, http.client.IncompleteRead):
            return JudgeConnectionError(
                f"the connection to {url} closed before the whole reply arrived "
                f"({len(exc.partial)} bytes read, {exc.expected} more expected)"
            )
        if isinstance(exc, (ConnectionError, OSError)):  # refused, reset, closed without a reply
            return JudgeConnectionError(f"connection to {url} failed: {text}")
        if isinstance(exc, http.client.HTTPException):  # a status line or headers that are not HTTP
            return JudgeResponseError(
                f"the reply of {url} is not a valid HTTP response "
                f"({type(exc).__name__}: {text!r}); is base_url the address of an HTTP API?"
            )
        return JudgeError(f"the request to {url} failed: {type(exc).__name__}: {text}")

    def _timeout_error(self, seconds, by_deadline=False):
        if by_deadline:
            return JudgeTimeoutError(
                f"{self.base_url} did not reply before the deadline of {self.deadline:g} s "
                f"for the whole call, retries included (model {self.model!r}; the last try "
                f"had {seconds:.3g} s left); raise deadline= for slow servers")
        return JudgeTimeoutError(
            f"{self.base_url} did not reply within {self.timeout:g} s "
            f"(model {self.model!r}); raise timeout= for slow local models"
        )

    def _delay(self, attempt, retry_after):
        """Seconds to wait before retry ``attempt + 1``: Retry-After if readable, else backoff."""
        seconds = _retry_after_seconds(retry_after)
        if seconds is None:
            seconds = self.backoff_base * 2 ** attempt
        return min(max(seconds, 0.0), self.backoff_max)

    def _http_error(self, status, detail, attempt, location=None):
        where = f"{self.base_url}/chat/completions"
        tries = f" after {attempt + 1} tries" if attempt else ""
        suffix = f": {detail}" if detail else ""
        if 300 <= status < 400 and location:
            return JudgeHTTPError(
                f"HTTP {status} from {where}: redirected to {location}; set base_url to the "
                "final address (redirects are not followed, so that the request and its key "
                "go nowhere but base_url)", status)
        if status in (401, 403):
            return JudgeAuthError(
                f"HTTP {status} from {where}: the key in ${self.api_key_env} is missing, "
                f"wrong or not allowed model {self.model!r}{suffix}", status)
        if status == 404:
            return JudgeNotFoundError(
                f"HTTP 404 from {where}: check base_url (it usually ends in /v1) "
                f"and the model name {self.model!r}{suffix}", status)
        if status == 429:
            return JudgeRateLimitError(f"HTTP 429 (rate limited) from {where}{tries}{suffix}", status)
        if 500 <= status < 600:
            return JudgeServerError(f"HTTP {status} (server error) from {where}{tries}{suffix}", status)
        return JudgeHTTPError(f"HTTP {status} from {where}{suffix}", status)

    def _content(self, raw, key):
        """The text of a chat-completions reply; errors raised outside ``except`` (no chaining).

        Whatever the body holds, the outcome is a string or a
        :class:`JudgeResponseError` saying what was wrong: not UTF-8, not
        JSON, nested too deeply for Python's JSON reader, an integer too long
        to convert, no ``choices[0].message.content``, a content that is not a
        string, or one holding a lone surrogate (``\\ud800``: not text, and
        no file or terminal could take it).
        """
        reply, problem = _decode_json(raw)
        if problem is not None:
            snippet = _redact(raw.decode("utf-8", "replace"), key, 200)
            raise JudgeResponseError(f"the reply of {self.base_url} is {problem}: {snippet!r}")
        content = _message_content(reply)
        if content is None:
            snippet = _redact(raw.decode("utf-8", "replace"), key, 200)
            raise JudgeResponseError(
                f"the reply of {self.base_url} has no choices[0].message.content: {snippet}"
            )
        if not isinstance(content, str):
            raise JudgeResponseError(
                f"choices[0].message.content must be a string, got {type(content).__name__}"
            )
        bad = _lone_surrogate(content)
        if bad is not None:
            raise JudgeResponseError(
                f"the reply of {self.base_url} holds a lone surrogate {content[bad]!r} at "
                f"character {bad} of choices[0].message.content (a \\uXXXX escape that is "
                "half of a pair): it is not text; the server is faulty"
            )
        if _quotes_key(content, key):  # raised, so never returned, parsed or cached
            raise JudgeResponseError(
                f"the reply of {self.base_url} quotes the API key of ${self.api_key_env} "
                "(whole, in part or encoded) in choices[0].message.content: refused, neither "
                "returned nor cached; a server should never send back the key it receives"
            )
        return content


def _decode_json(raw):
    """``(value, None)`` for UTF-8 JSON bytes, else ``(None, what is wrong)``."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"not UTF-8 (byte {exc.start})"
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return None, f"not JSON ({exc.msg} at character {exc.pos})"
    except RecursionError:
        return None, "JSON nested too deeply to be read"
    except ValueError as exc:  # Python's limit on the digits of an integer
        return None, f"JSON holding an integer too long to read ({str(exc)[:60]})"


def _lone_surrogate(text):
    """The index of the first surrogate code point of ``text`` (none in valid text), or None."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start
    return None


def _message_content(reply):
    """``reply["choices"][0]["message"]["content"]``, or None when any step is missing."""
    try:
        return reply["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return None
