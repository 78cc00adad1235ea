"""A guard against quadratic work that no load of the machine can trip.

A unit test cannot time a function reliably on a shared machine: a ratio of
two timings measured 4.2 once where 3 was the limit.  What it can do is give
a hostile input so large that a quadratic path could not finish in hours,
while the linear path takes a fraction of a second, and allow a budget
hundreds of times the linear time: :func:`finishes` runs the call in a forked
child and says whether it ended within that budget.  The growth ratios
themselves (time at 8x the size over time at 1x) are measured and printed by
the benchmarks (``benchmarks/bench_readers.py``, ``benchmarks/bench_judge_parsing.py``).
"""

import multiprocessing
import os

BUDGET = 60.0
"""Seconds a call may take: several hundred times the linear time of every input the tests
give (at most a few tenths of a second), and a small fraction of the quadratic time (hours)."""


def _call(fn, arg):
    try:
        fn(arg)
    except ValueError:  # a refusal is a result too
        pass
    except BaseException:  # noqa: BLE001 - any other error is a failure
        os._exit(1)
    os._exit(0)


def finishes(fn, arg, budget=BUDGET):
    """True if ``fn(arg)`` returns (or raises ``ValueError``) within ``budget`` seconds.

    The call runs in a forked child (a regular expression that backtracks holds
    the interpreter, so a thread could not be stopped); the child is killed when
    the budget is spent.
    """
    child = multiprocessing.get_context("fork").Process(target=_call, args=(fn, arg))
    child.start()
    child.join(budget)
    if child.is_alive():
        child.kill()
        child.join()
        return False
    return child.exitcode == 0
