"""Threads for the models' fast paths: a pool of worker threads, and BLAS's own threads.

Engine, not lesson: nothing here changes what is computed, only on how many
cores and in which order. Used by :mod:`._decoder_fast`, and by :mod:`._minilm_fast`
for its attention's many small products.

Two kinds of threads share the machine's cores:

* BLAS's (OpenBLAS under NumPy) inside every matrix product. They pay on a
  large product; on a small one the waiting costs more than the product,
  and on a machine shared with other work a thread that waits for one taken
  off its core can cost ten times the product.
* ours: NumPy lets go of Python's lock inside each operation, so a few
  Python threads, each running NumPy on its own share of the rows, keep every
  core busy with no BLAS waiting at all (each on one BLAS thread).
"""

import contextlib
import os
import threading

_POOL = []   # one thread pool, made at first use
_BLAS = []   # one threadpoolctl controller, made at first use


def cores():
    """The number of cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:       # not on Linux
        return os.cpu_count() or 1


def workers():
    """The pool of worker threads: one per core but the caller's (see :func:`run`)."""
    if not _POOL:
        from concurrent.futures import ThreadPoolExecutor

        _POOL.append(ThreadPoolExecutor(max_workers=max(1, cores() - 1),
                                        thread_name_prefix="ragmetrics-models"))
    return _POOL[0]


def run(fn, items):
    """``[fn(item) for item in items]``, on every core, the caller's thread included.

    The caller and the pool's threads take the items one after the other as
    they become free, so unequal items (causal attention's late rows see
    more keys) still share the cores evenly (list the costly ones first),
    and on a machine whose other work keeps a helper off its core, the caller
    does the items alone instead of waiting for it.
    Returns the results in the order of ``items``; an exception is raised
    once every item that started has finished (none still writes).
    """
    items = list(items)
    if len(items) <= 1 or cores() == 1:
        return [fn(item) for item in items]
    results = [None] * len(items)
    taken = iter(range(len(items)))
    lock = threading.Lock()
    failed = []

    def drain():
        while not failed:
            with lock:
                i = next(taken, None)
            if i is None:
                return
            try:
                results[i] = fn(items[i])
            except BaseException as exc:       # stop the others, raise it in the caller
                failed.append(exc)
                raise

    helpers = [workers().submit(drain) for _ in range(min(cores() - 1, len(items) - 1))]
    try:
        drain()
    finally:
        for helper in helpers:
            # a helper that has not started yet (its core busy elsewhere) has
            # nothing left to do: it is not waited for
            if not helper.cancel():
                helper.exception()             # wait; the first failure is raised below
    if failed:
        raise failed[0]
    return results


_LIMITED = {"depth": 0, "limiter": None}   # how many threads are inside one_blas_thread
_LIMITED_LOCK = threading.Lock()


@contextlib.contextmanager
def one_blas_thread():
    """A context in which NumPy's matrix products run on one BLAS thread.

    For small products, and for code that already runs on every core through
    :func:`run`. The limit is the process's: it is set when the first thread
    enters and lifted when the last one leaves, so threads that run a model
    at once (a judge called from several threads) leave BLAS as they found it.
    Needs threadpoolctl; without it, nothing changes. (The OpenBLAS NumPy
    ships, 0.3.31, takes a new limit from the main thread only: entered first
    from another thread, the context changes nothing, and the products also
    use BLAS's threads; the numbers are the same.)
    """
    if not _BLAS:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:
            _BLAS.append(None)
        else:
            _BLAS.append(ThreadpoolController())
    controller = _BLAS[0]
    if controller is None:
        yield
        return
    with _LIMITED_LOCK:
        if _LIMITED["depth"] == 0:
            _LIMITED["limiter"] = controller.limit(limits=1, user_api="blas")
        _LIMITED["depth"] += 1
    try:
        yield
    finally:
        with _LIMITED_LOCK:
            _LIMITED["depth"] -= 1
            if _LIMITED["depth"] == 0:
                _LIMITED["limiter"].restore_original_limits()
                _LIMITED["limiter"] = None
