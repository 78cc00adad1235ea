"""A judging run over many items that survives what real servers do.

:func:`judge_all` asks a judge about every prompt of a list and returns a
:class:`JudgingRun`: the replies in the order of the prompts, and a list of
:class:`Failure` for the items that got none, each with its reason. No
failed item ever turns silently into a missing value: by default the run
raises :class:`JudgeRunError` at the end (after every item was tried),
holding the whole run; with ``errors="collect"`` it returns it.

What it handles:

* **Concurrency**: at most ``max_workers`` requests at once (threads; the
  judges of this package release the GIL while they wait on the network).
* **Rate limits**: a :class:`~ragmetrics_edu.judge.JudgeRateLimitError`
  (HTTP 429) pauses *every* worker until the server's ``Retry-After``
  (seconds or an HTTP date, read by the HTTP judge) or, if it sent none, an
  exponential backoff; the item is tried again, at most ``max_retries``
  times, and all the pauses of a run together are bounded by
  ``max_total_wait`` seconds. A server error (5xx), a timeout or a
  dropped connection is retried the same way, pausing only its own item.
* **Fatal errors**: a wrong key (401/403), a wrong address or model (404)
  or a bad configuration stop the run at once: every item not yet asked is
  reported as not asked, none is sent to a server that will refuse it.
* **Resuming**: give it a :class:`~ragmetrics_edu.judge.CachedJudge`.
  Every reply is written to the cache file the moment it arrives, so a run
  stopped half-way (an interrupt, a crash, a fatal error) and started again
  replays what it had and asks only the rest. Identical prompts are asked
  once.
* **Progress**: a bar (``tqdm`` if installed, else one line of text
  rewritten in place on stderr); nothing at all with ``progress=False``.

An HTTP judge retries a 429 on its own first (its ``max_retries``); the
run's retries come after those. To let the run handle every 429 with one
shared pause, build the judge with ``max_retries=0``.
"""

import math
import numbers
import sys
import threading
import time
import warnings
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

from .._texts import check_list
from .._validation import check_choice
from .base import (
    JudgeAuthError,
    JudgeConfigError,
    JudgeConnectionError,
    JudgeError,
    JudgeNotFoundError,
    JudgeRateLimitError,
    JudgeServerError,
    JudgeTimeoutError,
    as_judge,
)

__all__ = ["Failure", "JudgeRunError", "JudgingRun", "judge_all"]

#: Errors worth another try: the server was busy, slow, or dropped the line.
RETRYABLE = (JudgeRateLimitError, JudgeServerError, JudgeTimeoutError, JudgeConnectionError)

#: Errors that will not go away by asking again: the run stops.
FATAL = (JudgeAuthError, JudgeNotFoundError, JudgeConfigError)


@dataclass(frozen=True)
class Failure:
    """An item that got no usable reply, and why.

    Attributes
    ----------
    indices : tuple of int
        Positions of the prompt in the list given (a repeated prompt fails
        at each of its positions at once).
    prompt : str
    error : str
        The exception's class name (``"JudgeRateLimitError"``), or
        ``"NotAsked"`` for items left when a fatal error stopped the run.
    reason : str
        The exception's message, or why the item was not asked.
    attempts : int
        Calls made for this prompt.
    """

    indices: tuple
    prompt: str
    error: str
    reason: str
    attempts: int

    def __str__(self):
        where = ", ".join(str(i) for i in self.indices[:5]) + ("..." if len(self.indices) > 5 else "")
        return f"item {where}: {self.error}: {self.reason} ({self.attempts} attempts)"


@dataclass(frozen=True)
class JudgingRun:
    """The outcome of :func:`judge_all`.

    Attributes
    ----------
    replies : list of (str or None)
        The reply to each prompt, in the order given; ``None`` exactly for
        the items listed in ``failures``.
    values : list or None
        ``parse(reply)`` of each item when ``parse=`` was given (``None``
        where it failed), else ``None``.
    failures : tuple of Failure
    asked : int
        Calls made to the judge (cached replies excluded, retries included).
    cached : int
        Distinct prompts answered from the cache before any call.
    retries : int
        Calls that were repeats after a retryable error.
    waited : float
        Seconds of pause added before retries: a pause shared by every
        worker (after a 429) counts once, an item's own backoff in full.
    stopped : str or None
        The fatal error that stopped the run early, if one did.
    """

    replies: list
    values: list
    failures: tuple
    asked: int
    cached: int
    retries: int
    waited: float
    stopped: str = field(default=None)

    @property
    def ok(self):
        """Whether every item got a reply (and parsed, when ``parse=`` was given)."""
        return not self.failures

    def summary(self):
        """A few lines: items, replies, calls, retries, waits, then every failure."""
        n = len(self.replies)
        failed = sum(len(f.indices) for f in self.failures)
        lines = [f"{n - failed} of {n} items judged, {failed} failed; {self.asked} calls "
                 f"({self.retries} retries), {self.cached} prompts from the cache, "
                 f"{self.waited:.1f} s paused for rate limits and retries"]
        if self.stopped:
            lines.append(f"stopped early: {self.stopped}")
        lines += [f"  {f}" for f in self.failures[:20]]
        if len(self.failures) > 20:
            lines.append(f"  ... and {len(self.failures) - 20} more failures")
        return "\n".join(lines)

    def __str__(self):
        return self.summary()


class JudgeRunError(JudgeError):
    """Some items of a judging run got no reply; ``.run`` holds the whole :class:`JudgingRun`."""

    def __init__(self, run):
        super().__init__(run.summary())
        self.run = run


# ----------------------------------------------------------------- progress

class _Progress:
    """tqdm's bar if tqdm is installed, else one text line on stderr; nothing when disabled."""

    def __init__(self, total, enabled, description, stream=None):
        self.total, self.done, self.failed = total, 0, 0
        self.enabled = enabled
        self.bar = None
        self.stream = stream if stream is not None else sys.stderr
        self.last = 0.0
        if not enabled:
            return
        try:
            from tqdm.auto import tqdm
        except ImportError:
            tqdm = None
        if tqdm is not None:
            self.bar = tqdm(total=total, desc=description, unit="item", file=self.stream)
        self.description = description
        self._line(force=True)

    def update(self, count, failed=0):
        self.done += count
        self.failed += failed
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.update(count)
            if failed:
                self.bar.set_postfix(failed=self.failed)
        else:
            self._line()

    def _line(self, force=False):
        if self.bar is not None:
            return
        now = time.monotonic()
        if not force and now - self.last < 0.2 and self.done < self.total:
            return
        self.last = now
        self.stream.write(f"\r{self.description}: {self.done}/{self.total} items"
                          + (f", {self.failed} failed" if self.failed else ""))
        self.stream.flush()

    def close(self):
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.close()
        else:
            self._line(force=True)
            self.stream.write("\n")
            self.stream.flush()


# ----------------------------------------------------------------- the run

class _Gate:
    """The shared pause: after a rate limit, no worker starts a call before ``until``."""

    def __init__(self, max_total_wait):
        self.lock = threading.Lock()
        self.until = 0.0
        self.waited = 0.0
        self.budget = max_total_wait
        self.stop = threading.Event()

    def extend(self, seconds, shared):
        """Pause for ``seconds`` (everyone if ``shared``); False if it would pass the budget."""
        with self.lock:
            now = time.monotonic()
            start = max(self.until, now) if shared else now
            extra = max(now + seconds - start, 0.0) if shared else seconds
            if self.waited + extra > self.budget:
                return None
            self.waited += extra
            if shared:
                self.until = max(self.until, now + seconds)
                return self.until
            return now + seconds

    def hold(self, until=None):
        """Sleep until the shared pause (or ``until``) is over, or the run stops."""
        while not self.stop.is_set():
            with self.lock:
                end = max(self.until, until or 0.0)
            left = end - time.monotonic()
            if left <= 0:
                return
            self.stop.wait(min(left, 0.05))


def check_prompts(prompts, *, what):
    """Return ``prompts`` as a list of strings, or raise a ``TypeError``.

    Parameters
    ----------
    prompts : iterable of str
        The prompts; one string, bytes or a dict is refused, not read item by item.
    what : str
        What ``prompts`` must be, in the message for one that is not
        (``"a sequence of strings"``).
    """
    prompts = check_list(prompts, name="prompts", what=what)
    for i, p in enumerate(prompts):
        if not isinstance(p, str):
            raise TypeError(f"prompts must hold strings, got {repr(p)[:80]} at index {i}")
    return prompts


def _number(value, name, allow_zero=True, integer=False):
    bad = isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value)
    if integer:
        bad = bad or not isinstance(value, numbers.Integral)
    if bad or value < 0 or (value == 0 and not allow_zero):
        kind = "integer" if integer else "number"
        sign = "non-negative" if allow_zero else "positive"
        raise ValueError(f"{name} must be a {sign} {kind}, got {repr(value)[:80]}")
    return int(value) if integer else float(value)


def _delay(exc, attempt, backoff_base, backoff_max):
    """Seconds before the next try: the server's Retry-After if it sent one, else backoff."""
    seconds = getattr(exc, "retry_after", None)
    if not isinstance(seconds, numbers.Real) or not math.isfinite(seconds):
        seconds = backoff_base * 2 ** attempt
    return min(max(float(seconds), 0.0), backoff_max)


def _short(text, limit=300):
    text = str(text)
    return text if len(text) <= limit else text[:limit] + "..."


def judge_all(judge, prompts, *, max_workers=4, max_retries=3, max_total_wait=300.0,
              backoff_base=1.0, backoff_max=60.0, parse=None, errors="raise", progress=True,
              description="judging"):
    """Ask ``judge`` about every prompt: concurrent, rate-limited, resumable, never silent.

    Parameters
    ----------
    judge : judge or callable
        Anything with ``complete(prompt) -> str`` (an
        :class:`~ragmetrics_edu.judge.OpenAICompatibleJudge`, a
        :class:`~ragmetrics_edu.judge.CachedJudge` around one to make the run
        resumable, an :class:`~ragmetrics_edu.judge.EmbeddingJudge`) or a
        function of the prompt. It is called from ``max_workers`` threads at
        once.
    prompts : sequence of str
    max_workers : int, default 4
        Requests in flight at most.
    max_retries : int, default 3
        Further tries of one item after a retryable error (429, 5xx,
        timeout, dropped connection); 0: one try.
    max_total_wait : float, default 300
        Seconds the whole run may spend paused before retries; past it, an
        item that needs another wait fails, with that reason.
    backoff_base, backoff_max : float, default 1 and 60
        Without a ``Retry-After``, the wait before retry :math:`k` is
        ``backoff_base * 2**k``; every wait (``Retry-After`` included) is
        capped at ``backoff_max``.
    parse : callable, optional
        Applied to each reply (e.g. :func:`~ragmetrics_edu.judge.parse_verdict`);
        an exception there makes the item a failure whose reason quotes the
        reply. The results are in ``values``.
    errors : {"raise", "collect"}, default "raise"
        At the end of a run with failures: raise :class:`JudgeRunError`
        (its ``.run`` holds the replies and failures), or return the run
        (with a ``RuntimeWarning`` giving the count of failures).
    progress : bool, default True
        Show a progress bar (tqdm, else a text line on stderr).
    description : str, default "judging"
        The progress bar's label.

    Returns
    -------
    JudgingRun

    Raises
    ------
    JudgeRunError
        With ``errors="raise"``, when any item failed (after every item was tried).
    KeyboardInterrupt
        Passed on at once; calls in flight finish (their replies reach the
        cache), none is started.

    Examples
    --------
    >>> run = judge_all(lambda p: "yes" if "flutter" in p else "no",
    ...                 ["wing flutter", "boundary layer", "flutter again"], progress=False)
    >>> run.replies
    ['yes', 'no', 'yes']
    >>> print(run.summary())
    3 of 3 items judged, 0 failed; 3 calls (0 retries), 0 prompts from the cache, 0.0 s paused for rate limits and retries
    """
    judge = as_judge(judge)
    prompts = check_prompts(prompts, what="a sequence of strings")
    max_workers = _number(max_workers, "max_workers", allow_zero=False, integer=True)
    max_retries = _number(max_retries, "max_retries", integer=True)
    max_total_wait = _number(max_total_wait, "max_total_wait")
    backoff_base = _number(backoff_base, "backoff_base")
    backoff_max = _number(backoff_max, "backoff_max")
    check_choice(errors, ("raise", "collect"), name="errors")
    if parse is not None and not callable(parse):
        raise TypeError(f"parse must be a callable or None, got {repr(parse)[:80]}")

    positions = {}
    for i, p in enumerate(prompts):
        positions.setdefault(p, []).append(i)
    replies = [None] * len(prompts)
    outcome = {}       # prompt -> reply
    failures = {}      # prompt -> Failure
    attempts_of = {}   # prompt -> calls made for it
    counts = {"asked": 0, "retries": 0}
    counts_lock = threading.Lock()
    gate = _Gate(max_total_wait)
    stopped = []

    # prompts the cache already holds: no thread, no call
    holds = getattr(judge, "__contains__", None)
    to_ask = []
    for p in positions:
        if holds is not None and holds(p):
            outcome[p] = judge.complete(p)
        else:
            to_ask.append(p)
    cached = len(outcome)
    bar = _Progress(len(prompts), bool(progress), description)
    bar.update(sum(len(positions[p]) for p in outcome))

    def ask(prompt):
        attempt = 0
        own_until = None
        while True:
            gate.hold(own_until)
            if gate.stop.is_set():
                return "not asked", None
            with counts_lock:
                counts["asked"] += 1
                counts["retries"] += attempt > 0
            try:
                reply = judge.complete(prompt)
            except RETRYABLE as exc:
                if attempt >= max_retries:
                    return "failed", (exc, attempt + 1, "")
                delay = _delay(exc, attempt, backoff_base, backoff_max)
                shared = isinstance(exc, JudgeRateLimitError)
                until = gate.extend(delay, shared)
                if until is None:
                    return "failed", (exc, attempt + 1,
                                      f"; no retry: a wait of {delay:g} s would pass "
                                      f"max_total_wait={max_total_wait:g} s for the run")
                own_until = None if shared else until
                attempt += 1
                continue
            except FATAL as exc:
                gate.stop.set()
                stopped.append(f"{type(exc).__name__}: {_short(exc, 200)}")
                return "failed", (exc, attempt + 1, "")
            except Exception as exc:  # noqa: BLE001 - reported as the item's failure
                return "failed", (exc, attempt + 1, "")
            except BaseException:  # an interrupt: no other worker starts a call
                gate.stop.set()
                raise
            if not isinstance(reply, str):
                return "failed", (TypeError(f"the judge returned {type(reply).__name__}, "
                                            f"not a string: {repr(reply)[:80]}"), attempt + 1, "")
            return "ok", (reply, attempt + 1)

    def record(prompt, status, detail):
        if status == "ok":
            outcome[prompt], attempts_of[prompt] = detail
            bar.update(len(positions[prompt]))
            return
        if status == "not asked":
            failure = Failure(tuple(positions[prompt]), prompt, "NotAsked",
                              f"not asked: the run stopped ({stopped[0] if stopped else 'stopped'})", 0)
        else:
            exc, attempts, note = detail
            failure = Failure(tuple(positions[prompt]), prompt, type(exc).__name__,
                              _short(exc) + note, attempts)
        failures[prompt] = failure
        bar.update(len(positions[prompt]), failed=len(positions[prompt]))

    executor = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="judge")
    try:
        futures = {executor.submit(ask, p): p for p in to_ask}
        pending = set(futures)
        while pending:
            done, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            for future in done:
                status, detail = future.result()
                record(futures[future], status, detail)
    except BaseException:
        gate.stop.set()
        executor.shutdown(wait=True, cancel_futures=True)
        bar.close()
        raise
    executor.shutdown(wait=True)
    bar.close()

    values = None if parse is None else [None] * len(prompts)
    for prompt, reply in outcome.items():
        value, parsed = None, True
        if parse is not None:
            try:
                value = parse(reply)
            except Exception as exc:  # noqa: BLE001 - the reply could not be read: a failure
                parsed = False
                failures[prompt] = Failure(tuple(positions[prompt]), prompt, type(exc).__name__,
                                           f"could not parse the reply {reply[:120]!r}: "
                                           f"{_short(exc, 200)}", attempts_of.get(prompt, 0))
        if parsed:
            for i in positions[prompt]:
                replies[i] = reply
                if values is not None:
                    values[i] = value
    ordered = tuple(sorted(failures.values(), key=lambda f: f.indices[0]))
    run = JudgingRun(replies, values, ordered, counts["asked"], cached, counts["retries"],
                     gate.waited, stopped[0] if stopped else None)
    if ordered and errors == "raise":
        raise JudgeRunError(run)
    if ordered:  # collected, but never silent
        warnings.warn(run.summary().splitlines()[0] + "; see .failures", RuntimeWarning,
                      stacklevel=2)
    return run
