r"""Online metrics measured on click logs: CTR, clicks@k, abandonment, first click's RR.

A log is a matrix of clicks, one row per session (an impression of the
ranking) and one column per rank: ``clicks[s, i]`` is true when session
``s`` clicked rank ``i + 1``.  A :class:`~ragmetrics_edu.online.click_models.ClickLog`
is accepted too.  Each metric here has an exact counterpart under a click
model (``model.expected(rels)``), which these averages converge to.

The conventions that differ between teams:

* **CTR.**  ``kind="session"`` (default) is the share of sessions with at
  least one click, a proportion that an A/B test compares; ``"clicks"``
  is clicks per session (it can exceed 1 when users click several
  results); ``"rank"`` is the CTR of each rank, the share of sessions
  that click it.
* **Abandonment** is the share of sessions without a click.  A session
  without a click may still have satisfied its user (the answer was in the
  snippet: "good abandonment"); a log cannot tell.
* **Reciprocal rank of the first click** is 0 for a session without a
  click, as the offline reciprocal rank is 0 without a relevant document.

Higher is better for every metric here except abandonment.
"""

import numpy as np

from .._validation import check_choice, check_k
from .click_models import OnlineMetrics

__all__ = ["CTR_KINDS", "click_through_rate", "clicks_at_k", "abandonment_rate",
           "first_click_reciprocal_rank", "online_metrics"]

CTR_KINDS = ("session", "clicks", "rank")
"""Names of the click-through rates of :func:`click_through_rate`."""


def check_clicks(clicks, name="clicks"):
    """``clicks`` as a 2-D bool array with at least one session, or raise."""
    clicks = getattr(clicks, "clicks", clicks)
    arr = np.asarray(clicks)
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array (sessions x ranks), got shape {arr.shape}"
        )
    if arr.shape[0] == 0:
        raise ValueError(f"{name} must hold at least one session (impression), got 0")
    if arr.shape[1] == 0:
        raise ValueError(f"{name} must hold at least one rank per session, got shape {arr.shape}")
    if arr.dtype != bool:
        if not np.issubdtype(arr.dtype, np.number) or not np.isin(arr, (0, 1)).all():
            raise ValueError(f"{name} must hold 0/1 or booleans, got dtype {arr.dtype}")
        arr = arr.astype(bool)
    return arr


def click_through_rate(clicks, kind="session"):
    r"""Click-through rate of a log.

    .. math::

        \mathrm{CTR}_{session} = \frac{|\{s : \exists i,\ c_{s,i}\}|}{S},
        \qquad
        \mathrm{CTR}_{clicks} = \frac{1}{S} \sum_s \sum_i c_{s,i},
        \qquad
        \mathrm{CTR}_i = \frac{1}{S} \sum_s c_{s,i}

    Parameters
    ----------
    clicks : array-like of bool, shape (n_sessions, n_ranks), or ClickLog
        One row per session (impression).
    kind : {"session", "clicks", "rank"}, default "session"
        See the module's conventions.

    Returns
    -------
    float, or numpy.ndarray for ``kind="rank"``

    Raises
    ------
    ValueError
        If the log holds no session (zero impressions).

    Examples
    --------
    >>> from ragmetrics_edu.online.metrics import click_through_rate
    >>> log = [[1, 0, 1], [0, 0, 0], [0, 1, 0], [0, 0, 0]]
    >>> click_through_rate(log)  # 2 of 4 sessions click
    0.5
    >>> click_through_rate(log, kind="clicks")  # 3 clicks in 4 sessions
    0.75
    >>> click_through_rate(log, kind="rank").tolist()
    [0.25, 0.25, 0.25]
    """
    check_choice(kind, CTR_KINDS, name="kind")
    c = check_clicks(clicks)
    if kind == "session":
        return float(c.any(axis=1).mean())
    if kind == "clicks":
        return float(c.sum(axis=1).mean())
    return c.mean(axis=0)


def clicks_at_k(clicks, k):
    r"""Clicks per session in the top ``k`` ranks: :math:`\frac{1}{S}\sum_s \sum_{i \le k} c_{s,i}`.

    Parameters
    ----------
    clicks : array-like of bool, shape (n_sessions, n_ranks), or ClickLog
    k : int
        The cut-off; the log must have at least ``k`` ranks.

    Returns
    -------
    float

    Examples
    --------
    >>> from ragmetrics_edu.online.metrics import clicks_at_k
    >>> clicks_at_k([[1, 0, 1], [0, 1, 0]], k=2)  # 2 clicks in the top 2 of 2 sessions
    1.0
    """
    c = check_clicks(clicks)
    k = check_k(k)
    if k > c.shape[1]:
        raise ValueError(f"k={k} is deeper than the log, which records {c.shape[1]} ranks")
    return float(c[:, :k].sum(axis=1).mean())


def abandonment_rate(clicks):
    r"""The share of sessions without any click, :math:`1 - \mathrm{CTR}_{session}`.

    Lower is better (a user who leaves without clicking found nothing, or
    found the answer on the result page itself).

    Examples
    --------
    >>> from ragmetrics_edu.online.metrics import abandonment_rate
    >>> abandonment_rate([[1, 0], [0, 0], [0, 0], [0, 1]])
    0.5
    """
    c = check_clicks(clicks)
    return float((~c.any(axis=1)).mean())


def first_click_reciprocal_rank(clicks):
    r"""Mean reciprocal rank of each session's first click (0 without a click).

    .. math::

        \frac{1}{S} \sum_s \frac{1}{\min\{i : c_{s,i}\}}

    Under the cascade model with ERR's attractiveness its expectation is
    ERR (:func:`ragmetrics_edu.retrieval.user_models.err_at_k`).

    Examples
    --------
    >>> from ragmetrics_edu.online.metrics import first_click_reciprocal_rank
    >>> first_click_reciprocal_rank([[0, 1, 1], [0, 0, 0], [1, 0, 0], [0, 0, 0]])  # (1/2 + 1) / 4
    0.375
    """
    c = check_clicks(clicks)
    any_click = c.any(axis=1)
    first = c.argmax(axis=1) + 1
    return float(np.where(any_click, 1.0 / first, 0.0).mean())


def online_metrics(clicks):
    """All the metrics of a log at once, as a model's ``expected`` gives them exactly.

    Returns
    -------
    OnlineMetrics
        ``ctr``, ``clicks``, ``abandonment``, ``first_click_rr`` and
        ``clicks_per_rank``.

    Examples
    --------
    >>> from ragmetrics_edu.online.metrics import online_metrics
    >>> m = online_metrics([[1, 0], [0, 0]])
    >>> m.ctr, m.abandonment, m.first_click_rr
    (0.5, 0.5, 0.5)
    """
    c = check_clicks(clicks)
    return OnlineMetrics(
        ctr=click_through_rate(c), clicks=click_through_rate(c, "clicks"),
        abandonment=abandonment_rate(c), first_click_rr=first_click_reciprocal_rank(c),
        clicks_per_rank=click_through_rate(c, "rank"),
    )
