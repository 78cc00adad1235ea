r"""Counterfactual evaluation: a new ranker's value from the clicks another ranker collected.

A search engine logs the clicks of the ranking it showed (the *logging*
ranker).  Would a new ranker do better?  Counting the logged clicks the
new ranking would have put high is biased: users click what they see, and
they see the top of the *logged* ranking.  Under the position-based model
a user examines rank :math:`i` with probability :math:`p_i` (the
propensity), so a click on a document the logger showed at rank :math:`i`
stands for :math:`1 / p_i` clicks: weighting each click by it (inverse
propensity scoring, Joachims, Swaminathan and Schnabel 2017) removes the
bias.

The value of a ranking :math:`y` is the weighted sum of its documents'
attractiveness, with rank weights :math:`w_j`:

.. math::

    V(y) = \sum_{j} w_j\,\alpha_{y_j}

By default :math:`w_j = p_j`, so that :math:`V(y)` is the number of
clicks :math:`y` would get per session if it were shown to the same
users (``PositionBasedModel.expected(...).clicks``).

Conventions:

* **Every document of the new ranking needs a propensity** (IPS's
  *support*, or *positivity*, assumption: Joachims, Swaminathan and
  Schnabel 2017 require every document the new ranking shows to have a
  chance above 0 of being examined under the logging policy).  A document
  the logger never showed (within the logged depth) has propensity 0: its
  value cannot be estimated, and IPS raises (``missing="error"``);
  ``missing="ignore"`` leaves it out, which biases the estimate down by
  that document's value, however many sessions are logged.
* **Per session.**  Estimates are means over the logged sessions.
"""

from dataclasses import dataclass

import numpy as np

from .._deprecation import formerly_positional
from .._validation import (check_choice, check_count, check_k, check_mapping,
                           check_probabilities, check_probability, describe)


__all__ = ["naive_estimate", "ips_estimate", "ranking_value", "CounterfactualResult",
           "counterfactual_evaluation"]


def _check_log(clicks, logged_ranking):
    from .metrics import check_clicks

    c = check_clicks(clicks)
    logged = list(logged_ranking)
    if len(logged) < c.shape[1]:
        raise ValueError(
            f"logged_ranking must name the document of each of the {c.shape[1]} logged "
            f"ranks, got {len(logged)} documents"
        )
    return c, logged[:c.shape[1]]


def _new_ranks(new_ranking, depth, weights):
    from .interleaving import check_ranking

    new = check_ranking(new_ranking, "new_ranking")
    depth = len(new) if depth is None else check_k(depth, name="depth")
    if depth > len(new):
        raise ValueError(
            f"depth={depth} is deeper than new_ranking, which has {len(new)} documents"
        )
    w = check_probabilities(weights, name="weights", n=depth) if weights is not None else None
    return new[:depth], w


def _weights_of(logged, new, weights):
    """{doc: weight of its rank in the new ranking} for the logged documents."""
    rank_new = {d: j for j, d in enumerate(new)}
    return np.array([weights[rank_new[d]] if d in rank_new else 0.0 for d in logged])


@formerly_positional("weights", "depth")
def naive_estimate(clicks, logged_ranking, new_ranking, *, weights, depth=None):
    r"""The new ranking's value by counting logged clicks, ignoring position bias.

    .. math::

        \hat V_{naive}(y) = \frac{1}{S} \sum_s \sum_{d \text{ clicked in } s}
        w_{\mathrm{rank}_y(d)}

    Parameters
    ----------
    clicks : array-like of bool, shape (n_sessions, n_ranks), or ClickLog
        The logged clicks on ``logged_ranking``.
    logged_ranking : sequence
        The documents shown, rank by rank.
    new_ranking : sequence
        The ranking to evaluate (document ids).
    weights : sequence of float
        :math:`w_j` for the ranks of ``new_ranking``, each in [0, 1] (the
        propensities, to estimate clicks).
    depth : int or None
        The ranks of ``new_ranking`` that count; None: all.

    Returns
    -------
    float

    See Also
    --------
    ips_estimate : The unbiased estimate.  It needs the propensities, and
        takes them as the weights when ``weights`` is None; the naive
        estimate knows no propensities, so its ``weights`` are always given.

    Notes
    -----
    Its expectation is :math:`\sum_j w_j\,p_{\mathrm{rank}_{log}(y_j)}\,
    \alpha_{y_j}`: each document counts as often as it was seen in the log.
    It is biased even for the logged ranking itself, where it gives
    :math:`\sum_i w_i p_i \alpha_i`, not :math:`\sum_i w_i \alpha_i`.

    Examples
    --------
    >>> from ragmetrics_edu.online.counterfactual import naive_estimate
    >>> clicks = [[1, 0], [1, 1]]  # 3 clicks: d1 twice, d2 once
    >>> naive_estimate(clicks, ["d1", "d2"], ["d2", "d1"], weights=[1.0, 0.5])  # (.5 + .5 + 1) / 2
    1.0
    """
    if weights is None:
        raise TypeError("weights must be a sequence of rank weights for new_ranking, one "
                        "probability per rank (the naive estimate knows no propensities to "
                        "default to; pass the examination probabilities)")
    c, logged = _check_log(clicks, logged_ranking)
    new, w = _new_ranks(new_ranking, depth, weights)
    per_click = _weights_of(logged, new, w)
    return float((c * per_click).sum(axis=1).mean())


MIN_PROPENSITY = 1e-300
"""The smallest propensity IPS divides by: its weight 1/p stays below 1e300."""


@formerly_positional("weights", "depth", "missing")
def ips_estimate(clicks, logged_ranking, new_ranking, propensities, *, weights=None,
                 depth=None, missing="error"):
    r"""The new ranking's value by inverse propensity scoring (Joachims et al. 2017).

    .. math::

        \hat V_{IPS}(y) = \frac{1}{S} \sum_s \sum_{d \text{ clicked in } s}
        \frac{w_{\mathrm{rank}_y(d)}}{p_{\mathrm{rank}_{log}(d)}}

    Under the position-based model, :math:`E[\text{click on } d] =
    p_{\mathrm{rank}_{log}(d)}\,\alpha_d`, so :math:`E[\hat V_{IPS}(y)] =
    \sum_j w_j \alpha_{y_j} = V(y)`: unbiased, provided every document of
    :math:`y` was shown with a propensity above 0.

    Parameters
    ----------
    clicks : array-like of bool, shape (n_sessions, n_ranks), or ClickLog
        The logged clicks on ``logged_ranking``.
    logged_ranking : sequence
        The documents shown, rank by rank.
    new_ranking : sequence
        The ranking to evaluate.
    propensities : sequence of float
        :math:`p_i`, the examination probability of each logged rank, in
        (0, 1] (``PositionBasedModel.examination_probabilities``).
    weights : sequence of float or None, default None
        :math:`w_j` for the ranks of ``new_ranking``; None: the
        propensities, so the value is clicks per session.
    depth : int or None
        The ranks of ``new_ranking`` that count; None: all.
    missing : {"error", "ignore"}, default "error"
        What to do with a document of ``new_ranking`` that was never logged
        (propensity 0).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If a propensity is 0 (or outside [0, 1]), or a document of the new
        ranking was never shown and ``missing="error"``.

    References
    ----------
    .. [1] T. Joachims, A. Swaminathan, T. Schnabel, "Unbiased
       learning-to-rank with biased feedback", WSDM 2017.

    Examples
    --------
    >>> from ragmetrics_edu.online.counterfactual import ips_estimate
    >>> clicks = [[1, 0], [1, 1]]  # d2, shown second, was seen half the time
    >>> ips_estimate(clicks, ["d1", "d2"], ["d2", "d1"], propensities=[1.0, 0.5])
    1.5
    """
    check_choice(missing, ("error", "ignore"), name="missing")
    c, logged = _check_log(clicks, logged_ranking)
    p = check_probabilities(propensities, name="propensities", n=c.shape[1])
    zero = np.flatnonzero(p == 0.0)
    if len(zero):
        raise ValueError(
            f"propensities must be above 0 for IPS (a click at a rank never examined "
            f"cannot be weighted by 1/0), got propensities[{zero[0]}] = 0.0"
        )
    tiny = np.flatnonzero(p < MIN_PROPENSITY)
    if len(tiny):
        raise ValueError(
            f"propensities must be at least {MIN_PROPENSITY:g} (MIN_PROPENSITY: a weight 1/p "
            f"beyond 1e300 overflows the estimate), got propensities[{tiny[0]}] = "
            f"{p[tiny[0]]!r}"
        )
    new_depth = len(list(new_ranking)) if depth is None else depth
    if weights is None:
        weights = p[:new_depth] if new_depth <= len(p) else np.concatenate(
            (p, np.zeros(new_depth - len(p))))
    new, w = _new_ranks(new_ranking, depth, weights)
    shown = set(logged)
    unseen = [(j, d) for j, d in enumerate(new) if d not in shown and w[j] > 0]
    if unseen and missing == "error":
        j, d = unseen[0]
        raise ValueError(
            f"new_ranking's document {describe(d)} at rank {j + 1} was never shown by the "
            f"logging ranker (propensity 0): IPS cannot estimate it; pass missing='ignore' "
            f"to leave it out (biased down)"
        )
    per_click = _weights_of(logged, new, w) / p
    return float((c * per_click).sum(axis=1).mean())


@formerly_positional("weights")
def ranking_value(alpha_by_doc, ranking, *, weights):
    r"""The true value :math:`V(y) = \sum_j w_j \alpha_{y_j}` of a ranking, for a simulation.

    Parameters
    ----------
    alpha_by_doc : dict
        ``{docid: attractiveness}``, each a probability; a document not listed has 0.
    ranking : sequence
    weights : sequence of float
        :math:`w_j` for the first ranks; the ranking is cut to their number
        (the value of a ranking's top ``len(weights)`` documents).

    Examples
    --------
    >>> from ragmetrics_edu.online.counterfactual import ranking_value
    >>> ranking_value({"d1": 0.5, "d2": 1.0}, ["d2", "d1"], weights=[1.0, 0.5])  # 1 + .25
    1.25
    """
    from .interleaving import check_ranking

    w = check_probabilities(weights, name="weights")
    check_mapping(alpha_by_doc, name="alpha_by_doc", what="dict of document id -> attractiveness")
    docs = check_ranking(ranking, "ranking")[:len(w)]
    alphas = [check_probability(alpha_by_doc.get(d, 0.0), name=f"alpha_by_doc[{describe(d)}]")
              for d in docs]
    return float(sum(w[j] * a for j, a in enumerate(alphas)))


@dataclass(frozen=True)
class CounterfactualResult:
    """The result of :func:`counterfactual_evaluation`: values per session, averaged over queries.

    ``true_logging`` and ``true_new`` are exact: every document of the
    rankings counts with its attractiveness from the qrels, whether the
    logger ever showed it or not.  ``true_new_supported`` counts only the
    new ranking's documents the logger showed (the others count 0): what
    IPS estimates without bias.  ``unsupported`` is the number of (query,
    document) pairs of the new ranking's top ``depth`` the logger never
    showed, ``unsupported_relevant`` those of them with a grade of 1 or
    more.  ``naive`` and ``ips`` are the estimates of the new ranker from
    the logging ranker's clicks.
    """

    true_logging: float
    true_new: float
    naive: float
    ips: float
    n_sessions: int
    n_queries: int
    true_new_supported: float = None
    unsupported: int = 0
    unsupported_relevant: int = 0

    def __str__(self):
        missing = ""
        if self.unsupported:
            missing = (f"; {self.unsupported} of its documents never logged, "
                       f"{self.unsupported_relevant} of them relevant: true "
                       f"{self.true_new_supported:.4f} without them")
        return (f"new ranker: true {self.true_new:.4f}, IPS {self.ips:.4f}, naive "
                f"{self.naive:.4f} (logging ranker: {self.true_logging:.4f}; "
                f"{self.n_sessions} sessions on each of {self.n_queries} queries{missing})")


@formerly_positional("model", "n_sessions", "seed", "depth", "log_depth")
def counterfactual_evaluation(logging_run, new_run, qrels, *, model=None, n_sessions=1000,
                              seed=0, depth=10, log_depth=None):
    """Log clicks of one ranker under the position-based model, and estimate another.

    For each query shared by both runs, ``n_sessions`` users of ``model``
    see the logging ranker's top ``log_depth``; the value of the new
    ranker's top ``depth`` is estimated from their clicks by
    :func:`naive_estimate` and :func:`ips_estimate` (with the model's
    propensities, and its examination of the top ``depth`` as weights), and
    compared with its true value (clicks per session, had it been shown),
    in which every document counts with its attractiveness from ``qrels``.
    A document of the new ranking the logger never showed cannot be
    estimated: it is left out of the estimates (``missing="ignore"``), so
    IPS estimates ``true_new_supported``, not ``true_new``; the difference
    is the bias of missing support (see the module docstring).  Log deeper
    (``log_depth``) to leave out fewer.

    Parameters
    ----------
    logging_run, new_run : dict
        ``{qid: [docid, ...]}`` in rank order, or ``{qid: {docid: score}}``.
    qrels : dict
        ``{qid: {docid: grade}}``.
    model : PositionBasedModel, default PositionBasedModel()
    n_sessions : int, default 1000
        Logged sessions per query.
    seed : int, None or numpy.random.Generator, default 0
    depth : int, default 10
        The ranks of the new ranking that count, and of the logging ranker's
        value.
    log_depth : int or None, default None
        The ranks the logging ranker shows (at least ``depth``); None:
        ``depth``.

    Returns
    -------
    CounterfactualResult

    Examples
    --------
    >>> from ragmetrics_edu.online.counterfactual import counterfactual_evaluation
    >>> qrels = {"q": {"r": 4}}
    >>> logged = {"q": ["x", "y", "r"]}  # the relevant document shown third
    >>> new = {"q": ["r", "x", "y"]}
    >>> res = counterfactual_evaluation(logged, new, qrels, n_sessions=20000, depth=3)
    >>> round(res.true_new, 4)  # 15/16 of the users who see r click it, all see rank 1
    0.9375
    >>> round(res.ips, 2), round(res.naive, 2)  # IPS near the truth, naive far below
    (0.94, 0.31)
    >>> # a relevant document the logger never showed: IPS cannot see it
    >>> res = counterfactual_evaluation({"q": ["x", "y"]}, {"q": ["s", "x"]}, {"q": {"s": 4}},
    ...                                 n_sessions=100, depth=2)
    >>> res.true_new, res.true_new_supported, res.ips, res.unsupported_relevant
    (0.9375, 0.0, 0.0, 1)
    """
    from .click_models import PositionBasedModel
    from .interleaving import check_runs, ranked_run
    from .._validation import check_simulated, rng_from

    model = PositionBasedModel() if model is None else model
    if not isinstance(model, PositionBasedModel):
        raise TypeError(f"model must be a PositionBasedModel (IPS needs its propensities), "
                        f"got {describe(model)}")
    depth = check_k(depth, name="depth")
    n_sessions = check_count(n_sessions, name="n_sessions")
    logging_run, new_run = ranked_run(logging_run, "logging_run"), ranked_run(new_run, "new_run")
    qids = check_runs(logging_run, new_run, qrels, depth, ("logging_run", "new_run"))
    rng = rng_from(seed)
    log_depth = depth if log_depth is None else check_k(log_depth, name="log_depth")
    check_simulated(n_sessions, name="n_sessions", per=log_depth, what="ranks")
    # each query is simulated in turn: the memory is bounded above, the time here
    check_simulated(n_sessions, name="n_sessions", per=len(qids) * log_depth,
                    what=f"queries ({len(qids):,}) x ranks ({log_depth:,})", total=True)
    if log_depth < depth:
        raise ValueError(f"log_depth must be at least depth={depth}, got {log_depth}")
    for q in qids:
        if len(logging_run[q]) < log_depth:
            raise ValueError(f"logging_run[{q!r}] holds {len(logging_run[q])} documents, "
                             f"fewer than log_depth={log_depth}")
    p = model.examination_probabilities(log_depth)
    w = p[:depth]
    totals = np.zeros(5)
    unsupported = unsupported_relevant = 0
    for q in qids:
        judged = qrels.get(q, {})
        logged = logging_run[q][:log_depth]
        new = new_run[q][:depth]
        grades = [float(max(judged.get(d, 0), 0)) for d in logged]
        shown_alpha = dict(zip(logged, model.alpha(grades)))  # a document never shown: 0
        new_grades = [float(max(judged.get(d, 0), 0)) for d in new]
        alpha = {**dict(zip(new, model.alpha(new_grades))), **shown_alpha}  # the real truth
        never = [d for d in new if d not in shown_alpha]
        unsupported += len(never)
        unsupported_relevant += sum(judged.get(d, 0) >= 1 for d in never)
        log = model.simulate(grades, n_sessions, seed=rng)
        totals += (
            ranking_value(alpha, logged, weights=w),
            ranking_value(alpha, new, weights=w),
            ranking_value(shown_alpha, new, weights=w),
            naive_estimate(log, logged, new, weights=w),
            ips_estimate(log, logged, new, p, weights=w, missing="ignore"),
        )
    true_logging, true_new, supported, naive, ips = totals / len(qids)
    return CounterfactualResult(true_logging=float(true_logging), true_new=float(true_new),
                                naive=float(naive), ips=float(ips), n_sessions=n_sessions,
                                n_queries=len(qids), true_new_supported=float(supported),
                                unsupported=unsupported,
                                unsupported_relevant=unsupported_relevant)
