"""Record a judge's replies once, replay them offline forever.

:class:`CachedJudge` wraps a judge and keeps every reply in a JSONL file,
one line per prompt::

    {"key": "3f2a...", "model": "gpt-4o-mini", "parameters": {"temperature": 0.0},
     "prompt": "...", "reply": "Score: 4"}

The key is the SHA-256 of ``(model, prompt, parameters, server)`` written
as canonical JSON, so changing the model, the temperature, the server or
one character of the prompt asks the judge again, and nothing else does.
The server is the judge's ``base_url`` (an HTTP judge has one; a function
judge has none): the same model name served by two servers (a local
``llama3.1:8b`` and a colleague's) keeps two sets of replies. A notebook run once
against a real model (with its key) then replays offline, deterministically,
at no cost. With ``replay_only=True`` (or no inner judge) a prompt that is
not in the file raises :class:`CacheMissError` instead of calling anything:
the mode for CI. Replaying without the inner judge needs the same model name
and parameters as the recording; the parameters are read from the file when
it recorded that model with one set of them.

No API key is ever written: the key is read from the environment by the
HTTP judge at request time and is not part of ``model`` nor ``parameters``,
and a reply quoting it (whole, in part or encoded) is refused by that judge
before it can reach the file (:mod:`ragmetrics_edu.judge.openai_compat`).

Files written before the server was part of the key
----------------------------------------------------
Their entries have no ``"server"`` field, and their keys are the keys of
``(model, prompt, parameters)`` alone: :func:`cache_key` without ``server``
computes exactly those, so a judge with no ``base_url`` replays them as
before. A judge with a ``base_url`` looks for its own key first and, on a
miss, replays an entry recorded without a server (with a warning, once:
the file cannot say which server gave it); entries it records from then
on carry its server.

Only its own files
------------------
A file none of whose lines is (or begins as) an entry this class writes
(another program's JSONL, a CSV) raises :class:`ValueError` naming the file
and its first line, and is never modified: a torn last line is repaired only
in a file that is recognisably a cache. A path that is not a regular file
(a directory, ``/dev/zero``, a named pipe) is refused before it is opened,
and lines are read one at a time, each at most :data:`MAX_LINE_BYTES` (a
longer line is skipped, with the damaged lines below).

A file that survives a crash
----------------------------
Each entry is one line written by one ``write`` call, then flushed and
``fsync``-ed, so an interrupted run leaves at most the last line torn. On
opening, a torn last line (no final newline, not a whole entry) is reported
with a ``RuntimeWarning`` naming the file and the line, appended to a
sidecar file ``<name>.torn`` and cut from the cache; every entry before it
is kept. A damaged line elsewhere (a write cut short by a full disk, then
followed by other entries, or a line edited by hand) is skipped, and one
``RuntimeWarning`` names the file and its lines; the file is left as it is.
A whole entry whose reply (or key) is not a string (a number, an array,
an object, ``null``: an edit, or another program's file) is refused: a
``RuntimeWarning`` names the file, the line and what the reply is, and the
prompt is a miss, never a success. An entry is always appended on a line of its own, even after a torn one.
A write that fails (a full disk, a folder that became read-only) costs no
reply: it is kept in memory for the life of the :class:`CachedJudge`, one
``RuntimeWarning`` names the file, and recording goes on. A reply
UTF-8 cannot encode (a lone surrogate ``"\\ud800"``) is recorded with JSON
escapes, read back unchanged, and never leaves an empty file behind (two
surrogates that form a pair read back as the one character they encode:
JSON cannot tell them apart).
"""

import hashlib
import json
import os
import warnings
from pathlib import Path

from .._deprecation import formerly_positional
from .._validation import file_kind
from .base import CacheMissError, as_judge, judge_identity
from ._key_scan import _refuse_userinfo, _without_userinfo

__all__ = ["CachedJudge", "cache_key"]


@formerly_positional("parameters", "server")
def cache_key(model, prompt, *, parameters=None, server=None):
    """The cache key of a prompt: SHA-256 hex of canonical JSON.

    ``server`` (a judge's ``base_url``) enters the key only when given, so
    the keys of judges without one, and of files written before it was part
    of the key, are unchanged. Text that UTF-8 cannot encode (a lone
    surrogate) is hashed with its surrogates as they are (``surrogatepass``).

    Parameters
    ----------
    model : str
        The judge's model name.
    prompt : str
        The prompt sent.
    parameters : dict or None, default None
        The sampling parameters (temperature, ...); None is an empty dict.
    server : str or None, default None
        The judge's server (``base_url``); None leaves it out of the key.

    Examples
    --------
    >>> k = cache_key("m", "Rate this.", parameters={"temperature": 0.0})
    >>> len(k), k == cache_key("m", "Rate this.", parameters={"temperature": 0.0})
    (64, True)
    >>> k == cache_key("m", "Rate this!", parameters={"temperature": 0.0})
    False
    >>> k == cache_key("m", "Rate this.", parameters={"temperature": 0.0}, server="http://localhost:11434/v1")
    False
    """
    fields = {"model": model, "prompt": prompt, "parameters": parameters or {}}
    if server is not None:
        fields["server"] = server
    blob = json.dumps(fields, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()


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
    server : str, optional
        The server for the keys; default ``inner.base_url`` (None for a judge
        without one). Replaying without ``inner``, the default is the server
        the file recorded ``model`` (with ``parameters``) from; if it recorded
        several, pass the one to replay.

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

    @formerly_positional("replay_only", "model", "parameters", "server")
    def __init__(self, inner, path, *, replay_only=False, model=None, parameters=None, server=None):
        self.inner = None if inner is None else as_judge(inner)
        self.path = Path(path)
        self.replay_only = bool(replay_only) or self.inner is None
        if self.inner is not None:
            inner_model, inner_params = judge_identity(self.inner)
            inner_server = getattr(self.inner, "base_url", None)
            inner_server = inner_server if isinstance(inner_server, str) else None
        else:
            inner_model, inner_params, inner_server = None, None, None
        if model is None and inner_model is not None and _is_anonymous(inner_model):
            raise ValueError(
                f"CachedJudge needs model= for a lambda (its name is {inner_model!r}, the "
                "name of every lambda, so different lambdas would share one set of cached "
                "replies); pass model='a name for this judge'"
            )
        if server is not None and not isinstance(server, str):
            raise TypeError(f"server must be a string (a base_url) or None, got {server!r}")
        _refuse_userinfo(server, "server")
        _refuse_userinfo(inner_server, "the inner judge's base_url")
        self.model = model if model is not None else inner_model
        if self.model is None:
            raise ValueError("a replay-only CachedJudge needs model= (the name the replies were recorded with)")
        self.hits = 0
        self.misses = 0
        self._warned_legacy = False
        self._warned_write = False
        # key -> reply, and model -> {(server, canonical parameters): (server, parameters)}
        self._replies, self._recorded = self._load()
        if self.inner is not None:
            self.parameters = dict(parameters) if parameters is not None else inner_params
            self.server = server if server is not None else inner_server
        else:
            self.server, self.parameters = self._recorded_identity(parameters, server)

    # -- reading the file ------------------------------------------------------

    def _load(self):
        """Read every entry; set a torn last line aside, skip other bad lines (module docstring).

        The file is read line by line, each line at most :data:`MAX_LINE_BYTES`
        (a longer one is skipped unread), so neither a huge file nor a device
        fills the memory; a path that is not a regular file (a directory,
        ``/dev/zero``, a named pipe) is refused before it is opened.
        """
        replies, recorded, skipped, refused = {}, {}, [], []
        if not self.path.exists():
            return replies, recorded
        if not self.path.is_file():
            raise ValueError(f"{self.path} is {file_kind(self.path)}, not a cache file: "
                             "pass the path of a JSONL file (created on the first reply)")
        first = None     # the first line that is not blank
        ours = False     # whether a line is, or begins as, an entry CachedJudge wrote
        torn = None      # (number, line, offset) of a last line without a newline
        with open(self.path, "rb") as f:
            number, offset = 0, 0
            while True:
                line = f.readline(MAX_LINE_BYTES + 1)
                if not line:
                    break
                number += 1
                start, offset = offset, offset + len(line)
                if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
                    first = number if first is None else first
                    ours = ours or line.startswith(_ENTRY_START)
                    while line and not line.endswith(b"\n"):   # skip the rest of the line
                        line = f.readline(1 << 20)
                        offset += len(line)
                    skipped.append(number)
                    continue
                whole = line.endswith(b"\n")
                line = line.rstrip(b"\n")
                if not line.strip():
                    continue
                first = number if first is None else first
                ours = ours or line.startswith(_ENTRY_START)
                entry = _entry(line)
                if entry is None:
                    if not whole:  # no newline after it: a write cut short, or not ours
                        torn = (number, line, start)
                        break
                    skipped.append(number)  # torn by a failed write, or edited: said below
                    continue
                why = _not_text(entry)
                if why is not None:  # a whole entry, but no reply to give: never a success
                    ours = True
                    refused.append((number, why))
                    continue
                ours = True
                replies[entry["key"]] = entry["reply"]
                if "model" in entry:  # entries always have it; hand-made ones may not
                    params = entry.get("parameters") or {}
                    server = entry.get("server")
                    identity = (server, _canonical(params))
                    recorded.setdefault(entry["model"], {})[identity] = (server, params)
        if not ours and first is not None:
            # no line is (or begins as) a cache entry: another program's file; never modify it
            raise ValueError(
                f"{self.path}, line {first}: not a cache entry (expected a JSON object with "
                '"key" and "reply", as CachedJudge writes), and no line of the file is one: '
                "this is not a reply cache; pass another path (the file is left as it is)")
        if torn is not None:
            self._set_aside_torn(torn[1], torn[0], torn[2], len(replies))
        if skipped:
            where = ", ".join(str(n) for n in skipped[:10]) + (", ..." if len(skipped) > 10 else "")
            warnings.warn(
                f"{self.path}, line{'s' if len(skipped) > 1 else ''} {where}: not a cache entry "
                f'(expected a JSON object with "key" and "reply" of at most {MAX_LINE_BYTES} '
                f"bytes; a write cut short, or an edit); {len(skipped)} "
                f"line{'s' if len(skipped) > 1 else ''} skipped, the "
                f"{len(replies)} entries of the other lines are kept",
                RuntimeWarning, stacklevel=3,
            )
        for number, why in refused:
            warnings.warn(
                f"{self.path}, line {number}: a cache entry refused: {why}; it is not "
                "replayed (a miss: the judge is asked again, or CacheMissError when "
                f"replaying only); the {len(replies)} entries of the other lines are kept",
                RuntimeWarning, stacklevel=3,
            )
        return replies, recorded

    def _set_aside_torn(self, line, number, start, kept):
        """Append the torn last line to ``<name>.torn`` and cut it from the cache file."""
        sidecar = self.path.with_name(self.path.name + ".torn")
        try:
            with open(sidecar, "ab") as f:
                f.write(line + b"\n")
                f.flush()
                os.fsync(f.fileno())
            with open(self.path, "r+b") as f:
                f.truncate(start)
                f.flush()
                os.fsync(f.fileno())
            done = f"set aside in {sidecar.name}"
        except OSError as exc:
            done = f"could not be set aside ({exc}); it is skipped"
        warnings.warn(
            f"{self.path}, line {number}: a torn last line ({len(line)} bytes, from a write "
            f"that was interrupted) {done}; the {kept} entries before it are kept",
            RuntimeWarning, stacklevel=4,
        )

    def _recorded_identity(self, parameters, server):
        """Replay without ``inner``: the (server, parameters) the file recorded ``self.model`` with."""
        sets = list(self._recorded.get(self.model, {}).values())
        if parameters is not None:
            sets = [(srv, p) for srv, p in sets if _canonical(p) == _canonical(parameters)]
        if server is not None:
            sets = [(srv, p) for srv, p in sets if srv == server]
        if len(sets) == 1:
            found_server, found_params = sets[0]
            return found_server, dict(found_params)
        if len(sets) > 1:
            params = {_canonical(p) for _, p in sets}
            if len(params) > 1:
                listed = "; ".join(sorted(params))
                raise ValueError(
                    f"{self.path.name} recorded model {self.model!r} with {len(params)} sets of "
                    f"parameters ({listed}); pass parameters= to say which replies to replay"
                )
            servers = ", ".join(sorted(repr(_shown(srv)) for srv, _ in sets))
            raise ValueError(
                f"{self.path.name} recorded model {self.model!r} from {len(sets)} servers "
                f"({servers}); pass server= to say which replies to replay"
            )
        return server, dict(parameters) if parameters is not None else {}

    # -- asking ------------------------------------------------------------------

    def _key(self, prompt):
        return cache_key(self.model, prompt, parameters=self.parameters, server=self.server)

    def _lookup(self, prompt):
        """The recorded reply of ``prompt`` or None; falls back to an entry recorded without a server."""
        reply = self._replies.get(self._key(prompt))
        if reply is None and self.server is not None:
            reply = self._replies.get(cache_key(self.model, prompt, parameters=self.parameters))
            if reply is not None and not self._warned_legacy:
                self._warned_legacy = True
                warnings.warn(
                    f"{self.path.name}: replaying replies of {self.model!r} recorded without "
                    f"a server address (the file was written before the server was part of "
                    f"the key), for the judge at {self.server}; the file cannot say which "
                    "server gave them", RuntimeWarning, stacklevel=3,
                )
        return reply

    def __len__(self):
        return len(self._replies)

    def __contains__(self, prompt):
        return self._lookup(prompt) is not None

    def __repr__(self):
        mode = "replay-only" if self.replay_only else "record/replay"
        return (f"CachedJudge(model={self.model!r}, path={str(self.path)!r}, "
                f"{mode}, entries={len(self)})")

    def complete(self, prompt):
        """Return the recorded reply for ``prompt``, asking ``inner`` on a miss."""
        if not isinstance(prompt, str):
            raise TypeError(f"prompt must be a string, got {prompt!r}")
        reply = self._lookup(prompt)
        if reply is not None:
            self.hits += 1
            return reply
        if self.replay_only:
            short = prompt if len(prompt) <= 80 else prompt[:80] + "..."
            raise CacheMissError(
                f"no cached reply of model {self.model!r} for this prompt in "
                f"{self.path.name} (replay-only mode; run once with the real judge "
                f"to record it){self._miss_hint()}: {short!r}"
            )
        reply = self.inner.complete(prompt)
        self.misses += 1
        key = self._key(prompt)
        entry = {"key": key, "model": self.model, "parameters": self.parameters,
                 "prompt": prompt, "reply": reply}
        if self.server is not None:
            entry["server"] = self.server
        try:
            self._append(entry)
        except OSError as exc:  # a full disk, a read-only folder: keep the reply, say so once
            if not self._warned_write:
                self._warned_write = True
                warnings.warn(
                    f"{self.path}: cannot record a reply ({exc.strerror or exc}); this reply "
                    "and any other that cannot be written are kept in memory only, for this "
                    "CachedJudge (a new one will ask for them again)",
                    RuntimeWarning, stacklevel=2,
                )
        self._replies[key] = reply
        identity = (self.server, _canonical(self.parameters))
        self._recorded.setdefault(self.model, {})[identity] = (self.server, self.parameters)
        return reply

    def _miss_hint(self):
        """Why a miss may not be a new prompt: the file holds this model under other settings."""
        mine = (self.server, _canonical(self.parameters))
        others = [(srv, p) for ident, (srv, p) in self._recorded.get(self.model, {}).items()
                  if ident != mine]
        other_params = sorted({_canonical(p) for _, p in others} - {mine[1]})
        if other_params:
            listed = "; ".join(other_params)
            return (f"; note: the file has replies of {self.model!r} recorded with other "
                    f"parameters ({listed}), not with {_canonical(self.parameters)}: "
                    "pass parameters= to replay those")
        if others:
            listed = ", ".join(sorted(repr(_shown(srv)) for srv, _ in others))
            return (f"; note: the file has replies of {self.model!r} from other servers "
                    f"({listed}), not from {self.server!r}: pass server= to replay those")
        if self._recorded and self.model not in self._recorded:
            models = ", ".join(repr(m) for m in sorted(self._recorded))
            return f"; note: the file has no reply of {self.model!r} at all, only of {models}"
        return ""

    # -- writing -------------------------------------------------------------------

    def _append(self, entry):
        """Append one entry as one line: one write, flushed and fsync-ed.

        The line is encoded before the file is opened, so a reply UTF-8 cannot
        encode (a lone surrogate) never leaves an empty or partial file: it is
        written with JSON escapes (``\\ud800``) instead, which read back as the
        same string. If the file does not end with a newline (a line cut short
        that could not be set aside), the entry starts on a new line.
        """
        line = json.dumps(entry, sort_keys=True, ensure_ascii=False)
        try:
            data = (line + "\n").encode("utf-8")
        except UnicodeEncodeError:
            data = (json.dumps(entry, sort_keys=True, ensure_ascii=True) + "\n").encode("ascii")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a+b", buffering=0) as f:  # unbuffered: write() is one system call
            end = f.seek(0, os.SEEK_END)
            if end:
                f.seek(end - 1)
                if f.read(1) != b"\n":
                    data = b"\n" + data
            written = f.write(data)  # append mode: at the end, wherever we read
            while written < len(data):  # a short write (rare on a local disk): finish the line
                written += f.write(data[written:])
            os.fsync(f.fileno())


MAX_LINE_BYTES = 256 * 2**20
"""The longest line read from a cache file (a reply of 10 MiB, escaped, fits many times)."""

_ENTRY_START = b'{"key": "'   # how every line CachedJudge writes begins (keys sorted)



def _shown(server):
    """A recorded server as a message shows it: credentials in it (an old file) as ``***``."""
    return _without_userinfo(server) if isinstance(server, str) else server


def _entry(line):
    """A cache entry (a dict with "key" and "reply") from one line of bytes, or None."""
    try:
        entry = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError, ValueError):
        return None  # ValueError: an integer of more digits than Python reads
    if not isinstance(entry, dict) or "key" not in entry or "reply" not in entry:
        return None
    return entry


def _not_text(entry):
    """Why a whole entry cannot be replayed (its key or reply is not a string), or None."""
    for field in ("key", "reply"):
        if not isinstance(entry[field], str):
            return f"its {field} is {_json_kind(entry[field])}, not a string"
    return None


def _json_kind(value):
    """What a JSON value is, in JSON's words: ``"a number"``, ``"an array"``, ``"null"``..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return "a string"
