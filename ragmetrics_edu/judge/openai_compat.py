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
  is shorter: an 80% prefix of a real key is a quote), or of the key with
  its own escapes undone (a key holding a literal ``%2F`` reads as ``/``
  once a text encoding it twice is decoded), in the text as it is or as a
  reader recovers it:

  - escapes undone, up to four layers deep (JSON inside JSON, HTML inside
    percent-encoding): HTML entities (``&#47;``, ``&sol;``,
    ``html.escape``); backslash escapes (JSON's and ``repr``'s, ``\\U0000002f``,
    octal ``\\057``, JavaScript's ``\\u{2f}``); percent-encoding, where a
    percent-encoding or an ``&amp;`` repeated any number of times
    (``%25252F``) counts as one layer (and, for a key holding a percent
    escape, is also undone but its last layer: ``pass%25252F`` reads as the
    key ``pass%2F``, ``ab%252525cd`` as ``ab%25cd``); also quoted-printable
    (``=2F``), a list of decimal codes (``115,107,45``) or hexadecimal ones
    (``0x73, 0x6b``, ``x73 x6b``), and UTF-8 read as Latin-1 (a header);
  - fields joined (a key cut into fields): the values of the text's JSON
    strings, in order, and apart from them its JSON object keys, in order;
    read from the first quote to the last, whatever comes before or after
    (a byte order mark, a sentence, a body cut short by the message's cut or
    the 64 KiB read), and inside the fields so joined or behind HTML
    entities or percent-encoding (JSON in a JSON string, in an HTML
    attribute, in an address), two levels deep; and the values of a query
    string (``?p0=sk-Le&p1=ak%2F7``: a redirect to an address that carries
    the key in pieces);
  - white space, control characters (a NUL between the characters of a
    UTF-16 or UTF-32 body read as UTF-8) and Unicode format characters
    (category Cf: zero-width space and joiner, soft hyphen, byte order mark)
    left out, and U+FFFD (bytes that are not UTF-8);
  - and, for a key of 12 characters or more, in NFKC (fullwidth letters
    read as ASCII) and case-folded (the key upper- or lower-cased), also
    reversed or in rot13; or
* for a key of 12 characters or more, any 12 consecutive letters and digits
  of it (case-folded) in the text's letters and digits alone, HTML tags
  (of any length) left out: a key cut into short pieces joined by separators
  (``sk-Leak/7Qz - +9Wm=2Xv``, ``<i>sk-Le</i><i>ak/7Q</i>``, a path); or
  the hexadecimal of 12 consecutive characters of it (either case, any
  separators); or any 16 characters of the key's base32 encoding standing
  for 10 of its bytes; or
* any 12 characters of the key's base64 encoding that stand for 9 of its
  bytes, in either alphabet (the base64 of the key, or of
  ``Bearer <key>`` as in an ``Authorization`` header).

Not read: an encoding applied twice on purpose (base64 of the key's
hexadecimal, of its base64 or of its UTF-16), a key cut into pieces
shorter than what the forms above join (pieces with other text between
them, JSON fields interleaved with other fields, JSON whose quotes a stray
quote before it pairs the other way), or arithmetic on it: a server that
means to smuggle the key out can always do so; the rules catch every echo
a faulty server makes and every form a reader decodes at a glance. The
search is bounded: the fields it joins from a text may hold at most 24
times the text's characters in all (plus 64 Ki); a text needing more (JSON
replies nested in strings five deep stay well under it) counts as quoting
the key.

An error message shows a server's text with each whole echo of the key
replaced by ``***``; a text that still quotes the key after that, anywhere
in it and not only in the part a message shows (a cut would break the JSON
that joins the pieces), is not shown at all (:data:`WITHHELD` stands in its
place). A 2xx reply whose content quotes the key is refused
(:class:`JudgeResponseError`): it is neither returned nor, behind a
:class:`CachedJudge`, written to the cache. A key shorter than 12
characters (a placeholder such as ``EMPTY``, which some local servers want)
is matched whole only: as typed or escaped as above, as a list of decimal
or hexadecimal codes, and as the base64 of the key alone or of ``Bearer
<key>`` (and, from 9 bytes on, as any 12 base64 characters standing for 9
of its bytes); a reply holding it is refused too, so leave the variable
unset for servers that need no key.

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

import datetime
import email.utils
import http.client
import ipaddress
import json
import math
import numbers
import os
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import numpy as np

from .._deprecation import formerly_positional
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

from ._key_scan import KEY_RUN, WITHHELD, _quotes_key, _redact, _refuse_userinfo  # noqa: F401

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

    @formerly_positional("api_key_env", "timeout", "max_retries", "temperature", "max_tokens", "system_prompt", "backoff_base", "backoff_max", "extra_body", "require_key", "deadline", "max_reply_bytes")
    def __init__(
        self,
        base_url,
        model,
        *, api_key_env="OPENAI_API_KEY",
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
