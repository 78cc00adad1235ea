"""The one-line texts the lab's results print (``str()`` of a result of :mod:`.significance`).

Kept apart from the statistics so that :mod:`.significance` holds the tests
themselves.  This module imports nothing of the package.
"""


def interval_text(estimate, low, high, confidence, method, n_resamples, seed):
    """One line for an estimate and its bootstrap interval, as the lab's results print it.

    >>> interval_text("0.4200", 0.31, 0.5, 0.95, "percentile bootstrap", 1000, 0)
    '0.4200 [95% CI 0.3100, 0.5000] (percentile bootstrap, 1000 resamples, seed 0)'
    """
    return (f"{estimate} [{100 * confidence:g}% CI {low:.4f}, {high:.4f}] "
            f"({method}, {n_resamples} resamples, seed {seed})")


def significance_text(result):
    """``str()`` of a :class:`~ragmetrics_edu.lab.significance.SignificanceResult`: the test,
    the mean difference, the t statistic (the t-test's), the p-value and how it was found."""
    if result.df is not None:  # the t-test; the randomization test's statistic is B - A
        statistic, how = f", t = {result.statistic:.4f}", f"df {result.df}"
    else:
        statistic = ""
        how = f"{result.n_resamples} sign patterns" + (
            f", seed {result.seed}" if result.test.endswith("(Monte Carlo)") else "")
    return (f"{result.test}: B - A = {result.mean_difference:+.4f} over {result.n} queries"
            f"{statistic}, p = {result.p_value:.4g} (two-sided; {how})")


def comparison_text(c):
    """``str()`` of a :class:`~ragmetrics_edu.lab.significance.Comparison`: both means, their
    difference with its interval, and the test's p-value."""
    return (f"{c.metric}: A {c.mean_a:.4f}, B {c.mean_b:.4f}, B - A = {c.difference:+.4f} "
            f"[{100 * c.ci.confidence:g}% CI {c.ci.low:+.4f}, {c.ci.high:+.4f}], "
            f"p = {c.p_value:.4g} ({c.result.test}, {c.result.n} queries)")
