"""Record a judge's replies once, replay them offline forever.

:class:`CachedJudge` wraps a judge and keeps every reply in a JSONL file,
one line per prompt::

    {"key": "3f2a...", "model": "gpt-4o-mini", "parameters": {"temperature": 0.0},
     "prompt": "...", "reply": "Score: 4"}

The key is the SHA-256 of ``(model, prompt, parameters)`` written as
canonical JSON, so changing the model, the temperature or one character of
the prompt asks the judge again, and nothing else does. A notebook run once
against a real model (with its key) then replays offline, deterministically,
at no cost. With ``replay_only=True`` (or no inner judge) a prompt that is
not in the file raises :class:`CacheMissError` instead of calling anything:
the mode for CI. Replaying without the inner judge needs the same model name
and parameters as the recording; the parameters are read from the file when
it recorded that model with one set of them.

No API key is ever written: the key is read from the environment by the
HTTP judge at request time and is not part of ``model`` nor ``parameters``.
"""

import hashlib
import json
import os
from pathlib import Path

from .base import CacheMissError, as_judge, judge_identity

__all__ = ["CachedJudge", "cache_key"]


def cache_key(model, prompt, parameters=None):
    """The cache key of a prompt: SHA-256 hex of canonical JSON.

    Examples
    --------
    >>> k = cache_key("m", "Rate this.", {"temperature": 0.0})
    >>> len(k), k == cache_key("m", "Rate this.", {"temperature": 0.0})
    (64, True)
    >>> k == cache_key("m", "Rate this!", {"temperature": 0.0})
    False
    """
    blob = json.dumps(
        {"model": model, "prompt": prompt, "parameters": parameters or {}},
        sort_keys=True, ensure_ascii=False, separators=(",", ":"),
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _canonical(parameters):
    """Parameters as canonical JSON: equal dicts give equal strings, whatever their order."""
    return json.dumps(parameters or {}, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _is_anonymous(name):
    """Whether a judge's name is a lambda's: every lambda is called ``<lambda>``."""
    return name.rsplit(".", 1)[-1] == "<lambda>"


class CachedJudge:
    """A judge whose replies are recorded in, and replayed from, a JSONL file.

    Parameters
    ----------
    inner : judge or callable or None
        The judge asked on a cache miss. ``None`` means replay only.
    path : str or os.PathLike
        The JSONL file; created (with its folder) on the first new reply.
    replay_only : bool, default False
        Never call ``inner``: a miss raises :class:`CacheMissError`.
    model : str, optional
        The model name for the keys; default ``inner.model``. Needed when
        replaying without ``inner`` (it must be the name the file was
        recorded with), and when ``inner`` is a lambda: every lambda is
        named ``<lambda>``, so two different lambdas would share (and
        overwrite each other's) replies. Closures made by one ``def`` share
        a name too: give each its own ``model=``.
    parameters : dict, optional
        The parameters for the keys; default ``inner.parameters``. Replaying
        without ``inner``, the default is the parameters the file recorded
        ``model`` with (e.g. ``{"temperature": 0.0}``); if it recorded the
        model with several sets, pass the one to replay.

    Attributes
    ----------
    hits, misses : int
        Replies replayed from the file, and replies asked of ``inner``.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "replies.jsonl")
    >>> calls = []
    >>> def judge(prompt):
    ...     calls.append(prompt)
    ...     return "Score: 4"
    >>> cached = CachedJudge(judge, path, model="toy")
    >>> cached.complete("Rate it."), cached.complete("Rate it."), len(calls)
    ('Score: 4', 'Score: 4', 1)
    >>> offline = CachedJudge(None, path, model="toy")   # replay only
    >>> offline.complete("Rate it.")
    'Score: 4'
    >>> offline.complete("Something new")
    Traceback (most recent call last):
    ...
    ragmetrics_edu.judge.base.CacheMissError: no cached reply of model 'toy' for this prompt in replies.jsonl (replay-only mode; run once with the real judge to record it): 'Something new'
    """

    def __init__(self, inner, path, replay_only=False, model=None, parameters=None):
        self.inner = None if inner is None else as_judge(inner)
        self.path = Path(path)
        self.replay_only = bool(replay_only) or self.inner is None
        if self.inner is not None:
            inner_model, inner_params = judge_identity(self.inner)
        else:
            inner_model, inner_params = None, None
        if model is None and inner_model is not None and _is_anonymous(inner_model):
            raise ValueError(
                f"CachedJudge needs model= for a lambda (its name is {inner_model!r}, the "
                "name of every lambda, so different lambdas would share one set of cached "
                "replies); pass model='a name for this judge'"
            )
        self.model = model if model is not None else inner_model
        if self.model is None:
            raise ValueError("a replay-only CachedJudge needs model= (the name the replies were recorded with)")
        self.hits = 0
        self.misses = 0
        # key -> reply, and model -> {canonical parameters: parameters} seen in the file
        self._replies, self._recorded = self._load()
        if parameters is not None:
            self.parameters = dict(parameters)
        elif inner_params is not None:
            self.parameters = inner_params
        else:
            self.parameters = self._recorded_parameters()

    def _load(self):
        replies, recorded = {}, {}
        if not self.path.exists():
            return replies, recorded
        with open(self.path, encoding="utf-8") as f:
            for number, line in enumerate(f, start=1):
                if not line.strip():
                    continue
                try:
                    entry = json.loads(line)
                    replies[entry["key"]] = entry["reply"]
                except (json.JSONDecodeError, KeyError, TypeError):
                    raise ValueError(
                        f"{self.path}, line {number}: not a cache entry "
                        f'(expected a JSON object with "key" and "reply")'
                    ) from None
                if "model" in entry:  # entries always have it; hand-made ones may not
                    params = entry.get("parameters") or {}
                    recorded.setdefault(entry["model"], {})[_canonical(params)] = params
        return replies, recorded

    def _recorded_parameters(self):
        """Replay without ``inner``: the parameters the file recorded ``self.model`` with."""
        sets = list(self._recorded.get(self.model, {}).values())
        if len(sets) > 1:
            listed = "; ".join(_canonical(p) for p in sets)
            raise ValueError(
                f"{self.path.name} recorded model {self.model!r} with {len(sets)} sets of "
                f"parameters ({listed}); pass parameters= to say which replies to replay"
            )
        return dict(sets[0]) if sets else {}

    def __len__(self):
        return len(self._replies)

    def __contains__(self, prompt):
        return cache_key(self.model, prompt, self.parameters) in self._replies

    def __repr__(self):
        mode = "replay-only" if self.replay_only else "record/replay"
        return (f"CachedJudge(model={self.model!r}, path={str(self.path)!r}, "
                f"{mode}, entries={len(self)})")

    def complete(self, prompt):
        """Return the recorded reply for ``prompt``, asking ``inner`` on a miss."""
        if not isinstance(prompt, str):
            raise TypeError(f"prompt must be a string, got {prompt!r}")
        key = cache_key(self.model, prompt, self.parameters)
        if key in self._replies:
            self.hits += 1
            return self._replies[key]
        if self.replay_only:
            short = prompt if len(prompt) <= 80 else prompt[:80] + "..."
            raise CacheMissError(
                f"no cached reply of model {self.model!r} for this prompt in "
                f"{self.path.name} (replay-only mode; run once with the real judge "
                f"to record it){self._miss_hint()}: {short!r}"
            )
        reply = self.inner.complete(prompt)
        self.misses += 1
        self._replies[key] = reply
        self._recorded.setdefault(self.model, {})[_canonical(self.parameters)] = self.parameters
        self._append({
            "key": key, "model": self.model, "parameters": self.parameters,
            "prompt": prompt, "reply": reply,
        })
        return reply

    def _miss_hint(self):
        """Why a miss may not be a new prompt: the file holds this model under other settings."""
        others = [p for c, p in self._recorded.get(self.model, {}).items()
                  if c != _canonical(self.parameters)]
        if others:
            listed = "; ".join(_canonical(p) for p in others)
            return (f"; note: the file has replies of {self.model!r} recorded with other "
                    f"parameters ({listed}), not with {_canonical(self.parameters)}: "
                    "pass parameters= to replay those")
        if self._recorded and self.model not in self._recorded:
            models = ", ".join(repr(m) for m in sorted(self._recorded))
            return f"; note: the file has no reply of {self.model!r} at all, only of {models}"
        return ""

    def _append(self, entry):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps(entry, sort_keys=True, ensure_ascii=False)
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(line + "\n")
            f.flush()
            os.fsync(f.fileno())
