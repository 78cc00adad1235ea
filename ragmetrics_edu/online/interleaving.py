r"""Interleaving: show one list made of two rankings, and let the clicks pick the winner.

An A/B test shows ranker A to some users and B to others and compares the
two groups; interleaving shows *every* user one list that mixes A and B,
and credits each click to the ranker that contributed the clicked
document.  Each user compares the two rankers directly, so the noise of
comparing different users (and different queries) vanishes: Chapelle,
Joachims, Radlinski and Yue (2012) found interleaving needed one to two
orders of magnitude fewer impressions than A/B tests on the same systems.

=============================  =============================================
function                       what it does
=============================  =============================================
``team_draft_interleave``      captains pick in turn (Radlinski, Kurup and
                               Joachims 2008); a click counts for the
                               picker's team
``balanced_interleave``        the two rankings merged rank by rank
                               (Joachims 2002)
``team_draft_credit``          clicks per team
``balanced_credit``            clicked documents in each ranking's top k
                               (the k-cutoff rule)
``interleaving_outcomes``      simulated users of a click model, query by
                               query
``impressions_needed``         interleaving against an A/B test: the
                               impressions to detect the difference, on
                               the same simulated users
=============================  =============================================

Conventions, named rather than picked silently:

* **B - A.**  An outcome is +1 when B gets more credit, -1 when A does and
  0 for a tie (no click, or equal credit), as every difference of the
  library is B - A.
* **Where the list ends.**  Both methods stop when either ranking has no
  document left to give, as the papers' algorithms do, or at ``length``.
* **Documents** are any hashable ids; a ranking may not list one twice.
* **Seeds.**  ``seed`` (an int, None, or a ``numpy.random.Generator``)
  draws the coin flips; the same seed gives the same list.
"""

import math
from dataclasses import dataclass, field

import numpy as np

from .._deprecation import formerly_positional
from .._validation import (MAX_RESAMPLES, check_choice, check_count, check_grades, check_k,
                           check_scores, describe, rng_from)


__all__ = ["INTERLEAVING_METHODS", "Interleaving", "team_draft_interleave",
           "balanced_interleave", "team_draft_credit", "balanced_credit",
           "interleaving_outcomes", "Sensitivity", "impressions_needed"]

INTERLEAVING_METHODS = ("team_draft", "balanced")
"""Names of the interleaving methods."""


def _is_nan(d):
    """Whether a document id is a NaN (a signalling Decimal NaN raises on comparison)."""
    try:
        differs = d != d
    except ArithmeticError:
        return True
    return isinstance(differs, (bool, np.bool_)) and bool(differs)


def check_ranking(ranking, name):
    if isinstance(ranking, (str, bytes)) or not hasattr(ranking, "__iter__") \
            or isinstance(ranking, (set, frozenset, dict)):
        raise TypeError(f"{name} must be a sequence of document ids in rank order, "
                        f"got {describe(ranking)}")
    docs = list(ranking)
    seen = {}
    for i, d in enumerate(docs):
        try:
            if _is_nan(d):   # not equal to itself: never "seen", nor found again by a click
                raise ValueError(f"{name} holds a NaN document id at rank {i + 1}: a document "
                                 "id must equal itself")
            if d in seen:
                raise ValueError(f"{name} lists document {describe(d)} twice, at ranks "
                                 f"{seen[d] + 1} and {i + 1}")
        except TypeError:
            raise TypeError(f"{name} must hold hashable document ids, got {describe(d)} "
                            f"at rank {i + 1}") from None
        seen[d] = i
    return docs


@dataclass(frozen=True)
class Interleaving:
    """An interleaved list, and where each of its documents came from.

    Attributes
    ----------
    ranking : list
        The documents shown, in order.
    teams : list of str
        ``"A"`` or ``"B"`` for each document of ``ranking``: the team that
        picked it (team draft) or the ranking it was taken from (balanced).
    method : str
        ``"team_draft"`` or ``"balanced"``.
    ranking_a, ranking_b : list
        The two rankings interleaved (balanced's credit reads them).
    """

    ranking: list
    teams: list
    method: str
    ranking_a: list = field(repr=False)
    ranking_b: list = field(repr=False)

    def credit(self, clicks):
        """``(credit of A, credit of B)`` for clicks on the shown list, by the method's rule."""
        if self.method == "team_draft":
            return team_draft_credit(self.teams, clicks)
        return balanced_credit(self.ranking, clicks, self.ranking_a, self.ranking_b)

    def outcome(self, clicks):
        """+1 if B gets more credit, -1 if A does, 0 for a tie."""
        a, b = self.credit(clicks)
        return int(np.sign(b - a))

    def __str__(self):
        shown = ", ".join(f"{doc} ({team})" for doc, team in zip(self.ranking[:10], self.teams))
        more = f", ... ({len(self.ranking)} documents)" if len(self.ranking) > 10 else ""
        return f"{self.method.replace('_', ' ')} interleaving: {shown}{more}"


@formerly_positional("seed", "length")
def team_draft_interleave(ranking_a, ranking_b, *, seed=0, length=None):
    r"""Team-draft interleaving (Radlinski, Kurup and Joachims 2008).

    Two captains pick players: the team with fewer picks so far picks next,
    a coin decides when they are level, and each picks its ranking's
    highest document not yet in the list.  The teams' sizes differ by at
    most one at every prefix, so position bias favours neither.

    Parameters
    ----------
    ranking_a, ranking_b : sequence of hashable
        The two rankings (document ids in rank order).
    seed : int, None or numpy.random.Generator, default 0
        The coin flips.
    length : int or None, default None
        Stop after this many documents; None: when either ranking has no
        new document to give.

    Returns
    -------
    Interleaving
        ``.ranking`` and ``.teams`` (``"A"``/``"B"`` per document).

    See Also
    --------
    team_draft_credit : who wins, from the clicks.
    balanced_interleave

    Notes
    -----
    While both rankings still hold a document not in the list :math:`I`:

    .. math::

        \text{A picks if } |T_A| < |T_B| \text{ or }
        (|T_A| = |T_B| \text{ and the coin says A}), \qquad
        I \leftarrow I + \bigl(\text{the first } a_i \notin I\bigr)

    and symmetrically for B.

    References
    ----------
    .. [1] F. Radlinski, M. Kurup, T. Joachims, "How does clickthrough data
       reflect retrieval quality?", CIKM 2008.

    Examples
    --------
    >>> from ragmetrics_edu.online.interleaving import team_draft_interleave
    >>> il = team_draft_interleave(["d1", "d2", "d3"], ["d2", "d4", "d1"], seed=1)
    >>> il.ranking, il.teams  # B's d2, A's d1, B's d4; B has nothing new left: stop
    (['d2', 'd1', 'd4'], ['B', 'A', 'B'])
    """
    a = check_ranking(ranking_a, "ranking_a")
    b = check_ranking(ranking_b, "ranking_b")
    length = check_k(length, name="length", allow_none=True)
    rng = rng_from(seed)
    shown, teams, placed = [], [], set()
    next_a = next_b = 0
    size_a = size_b = 0
    while length is None or len(shown) < length:
        while next_a < len(a) and a[next_a] in placed:
            next_a += 1
        while next_b < len(b) and b[next_b] in placed:
            next_b += 1
        if next_a == len(a) or next_b == len(b):
            break
        if size_a < size_b or (size_a == size_b and rng.random() < 0.5):
            doc, team = a[next_a], "A"
            size_a += 1
        else:
            doc, team = b[next_b], "B"
            size_b += 1
        shown.append(doc)
        teams.append(team)
        placed.add(doc)
    return Interleaving(ranking=shown, teams=teams, method="team_draft",
                        ranking_a=a, ranking_b=b)


@formerly_positional("seed", "length")
def balanced_interleave(ranking_a, ranking_b, *, seed=0, length=None):
    r"""Balanced interleaving (Joachims 2002): the two rankings merged rank by rank.

    A coin decides which ranking goes first; then the list takes A's
    i-th and B's i-th documents in turn (skipping those already shown), so
    that its top :math:`k` always holds the top :math:`k_a` of A and the
    top :math:`k_b` of B with :math:`|k_a - k_b| \le 1`.

    Parameters
    ----------
    ranking_a, ranking_b : sequence of hashable
    seed : int, None or numpy.random.Generator, default 0
        The coin that decides who goes first.
    length : int or None, default None
        Stop after this many documents; None: when either ranking is
        used up.

    Returns
    -------
    Interleaving
        ``.teams`` says which ranking each document was taken from; the
        credit does not use it (see :func:`balanced_credit`).

    References
    ----------
    .. [1] T. Joachims, "Optimizing search engines using clickthrough
       data", KDD 2002.
    .. [2] O. Chapelle, T. Joachims, F. Radlinski, Y. Yue, "Large-scale
       validation and analysis of interleaved search evaluation", ACM TOIS
       30(1), 2012.

    Examples
    --------
    >>> from ragmetrics_edu.online.interleaving import balanced_interleave
    >>> il = balanced_interleave(["d1", "d2", "d3"], ["d2", "d4", "d1"], seed=0)
    >>> il.ranking, il.teams  # B first: b1, a1, b2, (a2 = b1 shown), (b3 = a1 shown)
    (['d2', 'd1', 'd4'], ['B', 'A', 'B'])
    """
    a = check_ranking(ranking_a, "ranking_a")
    b = check_ranking(ranking_b, "ranking_b")
    length = check_k(length, name="length", allow_none=True)
    rng = rng_from(seed)
    a_first = rng.random() < 0.5
    shown, teams, placed = [], [], set()
    ka = kb = 0
    while ka < len(a) and kb < len(b) and (length is None or len(shown) < length):
        if ka < kb or (ka == kb and a_first):
            if a[ka] not in placed:
                shown.append(a[ka])
                teams.append("A")
                placed.add(a[ka])
            ka += 1
        else:
            if b[kb] not in placed:
                shown.append(b[kb])
                teams.append("B")
                placed.add(b[kb])
            kb += 1
    return Interleaving(ranking=shown, teams=teams, method="balanced",
                        ranking_a=a, ranking_b=b)


def _check_click_row(clicks, n):
    row = np.asarray(clicks)
    if row.ndim != 1 or row.shape[0] > n:
        raise ValueError(
            f"clicks must be one flag per rank of the shown list ({n} documents), "
            f"got shape {row.shape}"
        )
    if row.dtype != bool:
        if not np.issubdtype(row.dtype, np.number) or not np.isin(row, (0, 1)).all():
            raise ValueError(f"clicks must hold 0/1 or booleans, got {describe(clicks)}")
        row = row.astype(bool)
    return row


def team_draft_credit(teams, clicks):
    r"""Team draft's credit: each team's clicked documents, ``(credit_a, credit_b)``.

    .. math::

        h_A = |\{i : c_i \wedge T_i = A\}|, \qquad h_B = |\{i : c_i \wedge T_i = B\}|

    B wins the impression if :math:`h_B > h_A`, A if :math:`h_A > h_B`.

    Parameters
    ----------
    teams : sequence of {"A", "B"}
        The team that contributed each document of the shown list, in rank order.
    clicks : sequence of bool or 0/1
        One click flag per rank of the shown list (it may stop early: the ranks
        after it were not clicked).

    Examples
    --------
    >>> from ragmetrics_edu.online.interleaving import team_draft_credit
    >>> team_draft_credit(["B", "A", "B"], [1, 0, 1])  # two clicks on B's picks
    (0, 2)
    """
    teams = list(teams)
    bad = [t for t in teams if t not in ("A", "B")]
    if bad:
        raise ValueError(f"teams must hold 'A' or 'B', got {describe(bad[0])}")
    row = _check_click_row(clicks, len(teams))
    is_a = np.array([t == "A" for t in teams[:len(row)]], dtype=bool)
    return int((row & is_a).sum()), int((row & ~is_a).sum())


def balanced_credit(ranking, clicks, ranking_a, ranking_b):
    r"""Balanced interleaving's credit, the k-cutoff rule (Joachims 2002).

    Let :math:`d` be the lowest clicked document of the shown list and
    :math:`k` the best rank it has in A or B; the credit of each ranking
    is the number of clicked documents in its own top :math:`k`:

    .. math::

        k = \min\{j : a_j = d \vee b_j = d\}, \qquad
        h_A = |\{\text{clicked } d' \in a_{1..k}\}|, \qquad
        h_B = |\{\text{clicked } d' \in b_{1..k}\}|

    Parameters
    ----------
    ranking : sequence of hashable
        The shown (interleaved) list: document ids in rank order, none twice.
    clicks : sequence of bool or 0/1
        One click flag per rank of the shown list (it may stop early: the ranks
        after it were not clicked).
    ranking_a, ranking_b : sequence of hashable
        The two rankings that were interleaved (none lists a document twice);
        the lowest clicked document must be in one of them.

    Returns
    -------
    tuple of int
        ``(h_A, h_B)``; ``(0, 0)`` without a click.

    Examples
    --------
    >>> from ragmetrics_edu.online.interleaving import balanced_credit
    >>> # d4 (clicked, lowest) is B's 2nd: k = 2; top 2 of A: d1, d2; of B: d2, d4
    >>> balanced_credit(["d2", "d1", "d4"], [1, 0, 1],
    ...                 ["d1", "d2", "d3"], ["d2", "d4", "d1"])
    (1, 2)
    """
    shown = check_ranking(ranking, "ranking")
    a = check_ranking(ranking_a, "ranking_a")
    b = check_ranking(ranking_b, "ranking_b")
    row = _check_click_row(clicks, len(shown))
    clicked = [shown[i] for i in np.flatnonzero(row)]
    if not clicked:
        return 0, 0
    rank_a = {d: i + 1 for i, d in enumerate(a)}
    rank_b = {d: i + 1 for i, d in enumerate(b)}
    lowest = clicked[-1]
    k = min(rank_a.get(lowest, math.inf), rank_b.get(lowest, math.inf))
    if k == math.inf:
        raise ValueError(f"ranking holds {describe(lowest)}, which neither ranking_a nor "
                         "ranking_b lists")
    return (sum(1 for d in clicked if rank_a.get(d, math.inf) <= k),
            sum(1 for d in clicked if rank_b.get(d, math.inf) <= k))


def _grades_of(docs, judged):
    return [float(max(judged.get(d, 0), 0)) for d in docs]


def ranked_run(run, name):
    """``{qid: [docid, ...]}`` in rank order from a run of lists or of ``{docid: score}``,
    each checked (:func:`check_ranking`, :func:`~ragmetrics_edu._validation.check_scores`)."""
    if not isinstance(run, dict):
        raise TypeError(f"{name} must be a dict by query id, got {describe(run)}")
    out = {}
    for q, ranking in run.items():
        where = f"{name}[{describe(q)}]"
        if isinstance(ranking, dict):
            out[q] = ranked_ids(check_scores(ranking, name=where))
        else:
            out[q] = check_ranking(ranking, where)
    return out


def check_runs(run_a, run_b, qrels, depth, names=("run_a", "run_b")):
    for name, run in ((names[0], run_a), (names[1], run_b)):
        if not isinstance(run, dict):
            raise TypeError(f"{name} must be a dict by query id, got {describe(run)}")
    check_grades(qrels)
    qids = [q for q in run_a if q in run_b]
    if not qids:
        raise ValueError(f"{names[0]} and {names[1]} must share at least one query id, "
                         "got none in common")
    for q in qids:
        for name, run in ((names[0], run_a), (names[1], run_b)):
            if len(run[q]) < depth:
                raise ValueError(
                    f"{name}[{q!r}] holds {len(run[q])} documents, fewer than depth={depth}"
                )
    return qids


def ranked_ids(ranking):
    """Document ids in rank order, from a list or a ``{docid: score}`` dict.

    A dict is ordered as trec_eval orders a run: score descending, ties by
    document id descending.
    """
    if isinstance(ranking, dict):
        return sorted(ranking, key=lambda d: (ranking[d], d), reverse=True)
    return list(ranking)


@formerly_positional("model", "n_per_query", "seed", "depth", "method")
def interleaving_outcomes(run_a, run_b, qrels, *, model=None, n_per_query=100, seed=0,
                          depth=10, method="team_draft"):
    """Simulated interleaving impressions: the outcome (+1 B, -1 A, 0 tie) of each, query by query.

    For each query both rankings' top ``depth`` documents are interleaved
    afresh for each impression (new coins), shown to one simulated user of
    ``model`` (attractiveness from the judged grades in ``qrels``; an
    unjudged document has grade 0), and credited.

    Parameters
    ----------
    run_a, run_b : dict
        ``{qid: [docid, ...]}`` in rank order, or ``{qid: {docid: score}}``
        (ordered by score, ties by document id descending, as trec_eval).
    qrels : dict
        ``{qid: {docid: grade}}``.
    model : click model, default CascadeModel()
        The simulated user.
    n_per_query : int, default 100
        Impressions per query.
    seed : int, None or numpy.random.Generator, default 0
    depth : int, default 10
        Documents taken from each ranking, and the interleaved list's length.
    method : {"team_draft", "balanced"}, default "team_draft"

    Returns
    -------
    dict
        ``{qid: numpy array of outcomes}``.

    Examples
    --------
    >>> from ragmetrics_edu.online.interleaving import interleaving_outcomes
    >>> run_a = {"q": ["n1", "n2", "r1"]}
    >>> run_b = {"q": ["r1", "n1", "n2"]}  # B ranks the relevant document first
    >>> out = interleaving_outcomes(run_a, run_b, {"q": {"r1": 4}}, depth=3, n_per_query=1000)
    >>> # r1 is always B's pick, and 15/16 of the users click it (ERR's mapping of grade 4)
    >>> round(float(out["q"].mean()), 2)
    0.94
    """
    from .click_models import CascadeModel, ClickModel

    model = CascadeModel() if model is None else model
    if not isinstance(model, ClickModel):
        raise TypeError(f"model must be one of the click models, got {describe(model)}")
    check_choice(method, INTERLEAVING_METHODS, name="method")
    depth = check_k(depth, name="depth")
    # one interleaving per impression, drawn in Python: a bound on time
    n_per_query = check_count(n_per_query, name="n_per_query", maximum=MAX_RESAMPLES,
                              why=" (MAX_RESAMPLES, a bound on time)")
    run_a, run_b = ranked_run(run_a, "run_a"), ranked_run(run_b, "run_b")
    qids = check_runs(run_a, run_b, qrels, depth)
    if not qrels:
        raise ValueError("qrels must judge at least one document: with none, no simulated user "
                         "ever clicks and every outcome is a tie, got {}")
    if len(qids) * n_per_query > MAX_RESAMPLES:        # the total, not only each query's
        raise ValueError(f"queries x n_per_query must be at most {MAX_RESAMPLES:,} (MAX_RESAMPLES, "
                         f"a bound on time: one interleaving per impression), got "
                         f"{len(qids):,} x {n_per_query:,}")
    interleave = team_draft_interleave if method == "team_draft" else balanced_interleave
    rng = rng_from(seed)
    out = {}
    for q in qids:
        a, b = run_a[q][:depth], run_b[q][:depth]
        judged = qrels.get(q, {})
        groups = {}
        for _ in range(n_per_query):
            il = interleave(a, b, seed=rng, length=depth)
            key = (tuple(il.ranking), tuple(il.teams))
            groups.setdefault(key, [il, 0])[1] += 1
        outcomes = []
        for il, count in groups.values():
            log = model.simulate(_grades_of(il.ranking, judged), count, seed=rng)
            if method == "team_draft":
                is_a = np.array([t == "A" for t in il.teams])
                credit_a = (log.clicks & is_a).sum(axis=1)
                credit_b = (log.clicks & ~is_a).sum(axis=1)
                outcomes.append(np.sign(credit_b - credit_a))
            else:
                outcomes.append(np.array([il.outcome(row) for row in log.clicks]))
        out[q] = np.concatenate(outcomes).astype(np.int64)
    return out


@dataclass(frozen=True)
class Sensitivity:
    """The result of :func:`impressions_needed`.

    Attributes
    ----------
    ctr_a, ctr_b : float
        Exact session CTRs of A and B (their top ``depth``), averaged over
        the queries.
    ab_per_group : float
        Users per group of the A/B test (:func:`ab_sample_size`, unrounded).
    ab_impressions : int
        Both groups together, rounded up: ``2 * ceil(ab_per_group)``.
    outcome_mean, outcome_sd : float
        Mean and standard deviation of an interleaving impression's
        outcome (+1 B, -1 A, 0 tie), from ``n_simulated`` simulated ones.
    wins_a, wins_b, ties : float
        Shares of the simulated interleaving impressions.
    interleaving_impressions : int
        Impressions for the interleaving test at the same alpha and power.
    ratio : float
        ``ab_impressions / interleaving_impressions``.
    """

    ctr_a: float
    ctr_b: float
    ab_per_group: float
    ab_impressions: int
    outcome_mean: float
    outcome_sd: float
    wins_a: float
    wins_b: float
    ties: float
    interleaving_impressions: float
    ratio: float
    method: str
    model: str
    n_simulated: int

    def __str__(self):
        return (f"A/B on session CTR ({self.ctr_a:.4f} vs {self.ctr_b:.4f}): "
                f"{self.ab_impressions:,} impressions; {self.method} interleaving "
                f"(B wins {self.wins_b:.1%}, A {self.wins_a:.1%}, ties {self.ties:.1%}): "
                f"{self.interleaving_impressions:,} impressions; ratio {self.ratio:.1f} "
                f"({self.model} users)")


@formerly_positional("model", "alpha", "power", "n_per_query", "seed", "depth", "method")
def impressions_needed(run_a, run_b, qrels, *, model=None, alpha=0.05, power=0.8,
                       n_per_query=200, seed=0, depth=10, method="team_draft"):
    r"""Impressions to detect the difference of two rankers: an A/B test against interleaving.

    Both experiments face the same simulated users (``model``) on the same
    queries, drawn uniformly, each shown the top ``depth`` documents:

    * **A/B**: half the users see A, half B; the two-sided z test of the
      session CTRs.  The CTRs are exact (``model.expected``), and the users
      per group come from :func:`ab_sample_size`.
    * **Interleaving**: every user sees the interleaved list; the outcome
      :math:`o \in \{-1, 0, +1\}` of an impression is tested by a two-sided
      one-sample z test of :math:`E[o] = 0`, which needs

      .. math::

          n : \Phi\bigl(\sqrt{n}\,|\mu|/\sigma - z\bigr)
              + \Phi\bigl(-\sqrt{n}\,|\mu|/\sigma - z\bigr) = 1 - \beta

      impressions, with :math:`\mu, \sigma` the outcome's mean and
      standard deviation, estimated from ``n_per_query`` simulated
      impressions per query (:func:`interleaving_outcomes`).

    Parameters
    ----------
    run_a, run_b : dict
        ``{qid: [docid, ...]}`` in rank order, or ``{qid: {docid: score}}``.
    qrels : dict
        ``{qid: {docid: grade}}``.
    model : click model, default CascadeModel()
    alpha, power : float, default 0.05, 0.8
    n_per_query : int, default 200
        Simulated interleaving impressions per query, to estimate
        :math:`\mu` and :math:`\sigma`.
    seed : int, None or numpy.random.Generator, default 0
    depth : int, default 10
    method : {"team_draft", "balanced"}, default "team_draft"

    Returns
    -------
    Sensitivity
        Both numbers and their ratio (``inf`` impressions when a side sees no
        difference at all: interleaving always, whatever the simulation's
        sample mean, when the two rankers show the same top ``depth`` on
        every query).

    Raises
    ------
    ValueError
        When neither side sees a difference (identical top ``depth``, or no
        judged relevant document): no number of impressions exists, as
        :func:`ab_sample_size` refuses equal CTRs.

    Notes
    -----
    The cascade user's session CTR, :math:`1 - \prod_i (1 - \alpha_i)`,
    does not depend on the order of the documents: two rankers that show
    the same documents in a different order have equal CTRs, and the A/B
    test on CTR needs infinitely many users, while interleaving sees the
    difference.  So does the DCM user's (until the first click it is the
    cascade user); the DBN and position-based users' CTRs depend on the order.

    References
    ----------
    .. [1] O. Chapelle, T. Joachims, F. Radlinski, Y. Yue, "Large-scale
       validation and analysis of interleaved search evaluation", ACM TOIS
       30(1), 2012.

    Examples
    --------
    >>> from ragmetrics_edu.online.interleaving import impressions_needed
    >>> qrels = {"1": {"r": 4}, "2": {"s": 3, "t": 2}}
    >>> run_a = {"1": ["x", "r", "y"], "2": ["s", "u", "t"]}
    >>> run_b = {"1": ["r", "x", "y"], "2": ["s", "t", "u"]}
    >>> s = impressions_needed(run_a, run_b, qrels, depth=3)
    >>> s.ab_impressions > 10 * s.interleaving_impressions
    True
    """
    from .ab_test import check_alpha_power, ab_sample_size, one_sample_size
    from .click_models import CascadeModel

    model = CascadeModel() if model is None else model
    alpha, power = check_alpha_power(alpha, power)
    outcomes = interleaving_outcomes(run_a, run_b, qrels, model=model,
                                     n_per_query=n_per_query, seed=seed, depth=depth,
                                     method=method)
    qids = list(outcomes)
    ranked_a = {q: ranked_ids(run_a[q]) for q in qids}
    ranked_b = {q: ranked_ids(run_b[q]) for q in qids}
    ctr_a = float(np.mean([model.expected(_grades_of(ranked_a[q][:depth], qrels.get(q, {}))).ctr
                           for q in qids]))
    ctr_b = float(np.mean([model.expected(_grades_of(ranked_b[q][:depth], qrels.get(q, {}))).ctr
                           for q in qids]))
    if abs(ctr_a - ctr_b) <= 1e-12:  # equal but for rounding (see Notes)
        ab_per_group, ab_impressions = math.inf, math.inf
    else:
        ab_per_group = ab_sample_size(ctr_a, ctr_b, alpha=alpha, power=power)
        ab_impressions = 2 * math.ceil(ab_per_group)
    o = np.concatenate([outcomes[q] for q in qids])
    mean, sd = float(o.mean()), float(o.std())
    if all(ranked_a[q][:depth] == ranked_b[q][:depth] for q in qids):
        # the same list from both: E[o] = 0 exactly (each team's pick is a coin toss), and
        # a sample mean that is not 0 is the simulation's noise, not a difference
        inter = math.inf
    elif mean == 0.0 or sd == 0.0:
        inter = math.inf if mean == 0.0 else 1
    else:
        inter = math.ceil(one_sample_size(mean / sd, alpha, power))
    if math.isinf(ab_impressions) and math.isinf(inter):
        raise ValueError(
            "neither an A/B test nor interleaving can tell run_a from run_b: their session CTRs "
            f"are equal ({ctr_a!r}) and the interleaving outcome's mean is 0 (the two rankers show "
            "the same top depth documents, or qrels judges none of them relevant), so no number "
            "of impressions detects a difference")
    return Sensitivity(
        ctr_a=ctr_a, ctr_b=ctr_b, ab_per_group=ab_per_group, ab_impressions=ab_impressions,
        outcome_mean=mean, outcome_sd=sd, wins_a=float((o < 0).mean()),
        wins_b=float((o > 0).mean()), ties=float((o == 0).mean()),
        interleaving_impressions=inter,
        ratio=math.nan if math.isinf(ab_impressions) and math.isinf(inter)
        else ab_impressions / inter, method=method,
        model=model.name, n_simulated=len(o),
    )
