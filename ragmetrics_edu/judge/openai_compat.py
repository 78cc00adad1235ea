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
(default ``OPENAI_API_KEY``) each time a request is sent. It is never stored
on the object, never part of its ``repr``, of an error message or of a
cache key. Local servers usually need no key: when the variable is unset
no ``Authorization`` header is sent (pass ``require_key=True`` to make a
missing key an error instead).

Retries
-------
A 429 (rate limit) or a 5xx (server error) is tried again, up to
``max_retries`` more times, after ``backoff_base * 2**attempt`` seconds
(capped at ``backoff_max``), or after the ``Retry-After`` the server sent.
Other errors are raised at once, each with its own class: 401/403
:class:`JudgeAuthError`, 404 :class:`JudgeNotFoundError`, a timeout
:class:`JudgeTimeoutError`, an unreachable server
:class:`JudgeConnectionError`, a reply that is not a chat completion
:class:`JudgeResponseError`.
"""

import email.utils
import json
import math
import os
import socket
import time
import urllib.error
import urllib.request

from .base import (
    JudgeAuthError,
    JudgeConfigError,
    JudgeConnectionError,
    JudgeHTTPError,
    JudgeNotFoundError,
    JudgeRateLimitError,
    JudgeResponseError,
    JudgeServerError,
    JudgeTimeoutError,
)

__all__ = ["OpenAICompatibleJudge"]

_RETRY_STATUS = {429} | set(range(500, 600))


def _positive_number(value, name, allow_zero=False):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise TypeError(f"{name} must be a number, got {value!r}")
    if value < 0 or (value == 0 and not allow_zero):
        kind = "non-negative" if allow_zero else "positive"
        raise ValueError(f"{name} must be {kind}, got {value!r}")
    return float(value)


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
        Seconds to wait for each reply.
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
        Further JSON fields for the request (``{"seed": 0}``, ``{"top_p": 1}``).
    require_key : bool, default False
        Raise :class:`JudgeConfigError` if the variable is unset (for hosted
        APIs) instead of sending no ``Authorization`` header (local servers).

    Attributes
    ----------
    parameters : dict
        Everything but the prompt that shapes the reply (model settings,
        never the key); :class:`CachedJudge` puts it into its keys.

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
    ):
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must start with http:// or https://, got {base_url!r}")
        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"model must be a non-empty string, got {model!r}")
        if not isinstance(api_key_env, str) or not api_key_env:
            raise ValueError(f"api_key_env must name an environment variable, got {api_key_env!r}")
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"max_retries must be a non-negative integer, got {max_retries!r}")
        if max_tokens is not None and (
            isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1
        ):
            raise ValueError(f"max_tokens must be a positive integer or None, got {max_tokens!r}")
        if extra_body is not None and not isinstance(extra_body, dict):
            raise TypeError(f"extra_body must be a dict or None, got {extra_body!r}")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key_env = api_key_env
        self.timeout = _positive_number(timeout, "timeout")
        self.max_retries = max_retries
        self.temperature = _positive_number(temperature, "temperature", allow_zero=True)
        self.max_tokens = max_tokens
        self.system_prompt = system_prompt
        self.backoff_base = _positive_number(backoff_base, "backoff_base", allow_zero=True)
        self.backoff_max = _positive_number(backoff_max, "backoff_max", allow_zero=True)
        self.extra_body = dict(extra_body or {})
        self.require_key = bool(require_key)
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

    def _redact(self, text, key):
        return text.replace(key, "***") if key else text

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
        key = os.environ.get(self.api_key_env) or None
        if key is None and self.require_key:
            raise JudgeConfigError(
                f"the environment variable {self.api_key_env} is not set; "
                f"set it to the API key of {self.base_url}"
            )
        url = f"{self.base_url}/chat/completions"
        data = json.dumps(self._body(prompt)).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if key is not None:
            headers["Authorization"] = f"Bearer {key}"

        attempt = 0
        while True:
            request = urllib.request.Request(url, data=data, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    raw = response.read()
                return self._content(raw, key)
            except urllib.error.HTTPError as exc:
                status = exc.code
                try:
                    detail = exc.read().decode("utf-8", "replace")[:300]
                except Exception:  # the body is a courtesy, not required
                    detail = ""
                retry_after = exc.headers.get("Retry-After") if exc.headers else None
                exc.close()
                if status in _RETRY_STATUS and attempt < self.max_retries:
                    self._sleep(self._delay(attempt, retry_after))
                    attempt += 1
                    continue
                raise self._http_error(status, self._redact(detail, key), attempt) from None
            except urllib.error.URLError as exc:
                if isinstance(exc.reason, (socket.timeout, TimeoutError)):
                    raise self._timeout_error() from None
                reason = self._redact(str(exc.reason), key)
                raise JudgeConnectionError(
                    f"cannot reach {url}: {reason} (is the server running?)"
                ) from None
            except (socket.timeout, TimeoutError):
                raise self._timeout_error() from None
            except (ConnectionError, OSError) as exc:
                raise JudgeConnectionError(
                    f"connection to {url} failed: {self._redact(str(exc), key)}"
                ) from None

    def _timeout_error(self):
        return JudgeTimeoutError(
            f"{self.base_url} did not reply within {self.timeout:g} s "
            f"(model {self.model!r}); raise timeout= for slow local models"
        )

    def _delay(self, attempt, retry_after):
        """Seconds to wait before retry ``attempt + 1``."""
        if retry_after:
            seconds = None
            try:
                seconds = float(retry_after)
            except ValueError:
                when = email.utils.parsedate_to_datetime(retry_after) if retry_after else None
                if when is not None:
                    seconds = when.timestamp() - time.time()
            if seconds is not None and not math.isnan(seconds):
                return min(max(seconds, 0.0), self.backoff_max)
        return min(self.backoff_base * 2 ** attempt, self.backoff_max)

    def _http_error(self, status, detail, attempt):
        where = f"{self.base_url}/chat/completions"
        tries = f" after {attempt + 1} tries" if attempt else ""
        suffix = f": {detail}" if detail else ""
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
        try:
            reply = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            snippet = self._redact(raw[:200].decode("utf-8", "replace"), key)
            raise JudgeResponseError(
                f"the reply of {self.base_url} is not JSON: {snippet!r}"
            ) from None
        try:
            content = reply["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            snippet = self._redact(json.dumps(reply)[:200], key)
            raise JudgeResponseError(
                f"the reply of {self.base_url} has no choices[0].message.content: {snippet}"
            ) from None
        if not isinstance(content, str):
            raise JudgeResponseError(
                f"choices[0].message.content must be a string, got {type(content).__name__}"
            )
        return content
