"""Growth of a function's time with the size of its input: linear or not, without a wall-clock limit.

A unit test cannot say "under 1 s" on a shared machine, but it can compare the
time at two sizes measured in the same run: a linear function takes about
``factor`` times longer on an input ``factor`` times larger, a quadratic one
``factor**2`` times. :func:`growth` returns that ratio (the best of a few runs
at each size, so a pause of the machine does not count); tests assert it is
well below ``factor**2``.
"""

import time


def _best(fn, arg, repeat):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn(arg)
        best = min(best, time.perf_counter() - start)
        if best > 0.5:  # already slow: one run says enough
            break
    return best


def growth(fn, make, size, factor=4, repeat=7):
    """Time of ``fn(make(factor * size))`` over time of ``fn(make(size))``, best of ``repeat`` runs.

    ``fn`` may raise (a refusal is a result too): exceptions are swallowed
    only if they are ``ValueError``, the documented refusal.
    """
    def run(arg):
        try:
            fn(arg)
        except ValueError:
            pass

    small, large = make(size), make(factor * size)
    run(small)  # warm up (regular expressions compiled, caches filled)
    return _best(run, large, repeat) / max(_best(run, small, repeat), 1e-6)
