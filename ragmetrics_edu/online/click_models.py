r"""Click models: simulated users who examine a ranking, click, and stop.

A click model says, for a ranking of documents with known grades, how
likely a user is to click each rank.  Two quantities drive every model:

* **attractiveness** :math:`\alpha_i`, the probability of clicking the
  document at rank :math:`i` once it is seen; here it comes from the
  assessors' grade, by ERR's mapping :math:`(2^g - 1) / 2^{g_{max}}` by
  default (``attractiveness="err"``), or :math:`g / g_{max}`
  (``"linear"``), or the values themselves when they already are
  probabilities (``"probability"``);
* **examination** :math:`\epsilon_i`, the probability that the user looks
  at rank :math:`i` at all, which depends on the rank and, in the cascade
  family, on what happened above it.

==========================  =================================================
model                       who the user is
==========================  =================================================
``CascadeModel``            reads down, clicks the first attractive
                            document and stops (Craswell et al. 2008); the
                            user of ERR (notebook 03)
``PositionBasedModel``      looks at rank i with a probability that depends
                            on i only, :math:`\epsilon_i = (1/i)^\eta`
``DependentClickModel``     the cascade, but after a click goes on with
                            probability :math:`\lambda_i` (Guo et al. 2009)
``DBNModel``                clicks, is satisfied or not, and keeps reading
                            with perseverance :math:`\gamma`
                            (Chapelle and Zhang 2009)
==========================  =================================================

Each model gives the **exact** probabilities (``click_probabilities``,
``first_click_probabilities``, ``expected``) and **simulates** sessions
(``simulate``, seeded); the simulation's averages converge to the exact
values.  ``scan_ranking`` replays sessions step by step (examine, click,
stop) for a widget.

``rels`` is the grades of the ranked documents in rank order, as in the
offline metrics; ``depth`` (None: the whole ranking) is how many ranks the
user may examine, and a ranking shorter than ``depth`` is an error.
"""

from dataclasses import KW_ONLY, dataclass, field

import numpy as np

from .._deprecation import formerly_positional
from .._validation import check_choice, check_k, check_rels, check_simulated, describe
from .._validation import check_count, check_probabilities, check_probability, rng_from

__all__ = [
    "ATTRACTIVENESS", "attractiveness_from_grades", "CascadeModel", "PositionBasedModel",
    "DependentClickModel", "DBNModel", "ClickLog", "OnlineMetrics", "Scan", "scan_ranking",
]

ATTRACTIVENESS = ("err", "linear", "probability")
"""Names of the mappings from grades to attractiveness (see :func:`attractiveness_from_grades`)."""


def attractiveness_from_grades(rels, *, mapping="err", max_grade=4):
    r"""The probability that a user who sees a document clicks it, from its grade.

    Parameters
    ----------
    rels : sequence of float
        Grades in rank order, non-negative.
    mapping : {"err", "linear", "probability"}, default "err"
        ``"err"``: :math:`\alpha = (2^g - 1) / 2^{g_{max}}`, ERR's
        satisfaction probability (Chapelle et al. 2009), so that the cascade
        user is ERR's user; ``"linear"``: :math:`\alpha = g / g_{max}`;
        ``"probability"``: ``rels`` are attractiveness values already, each
        in [0, 1].
    max_grade : float, default 4
        :math:`g_{max}`, the top of the grading scale (ERR's default); a
        grade above it is an error.

    Returns
    -------
    numpy.ndarray
        One probability per rank.

    Raises
    ------
    ValueError
        If a grade is negative or above ``max_grade``, or, with
        ``"probability"``, a value lies outside [0, 1].

    Examples
    --------
    >>> from ragmetrics_edu.online.click_models import attractiveness_from_grades
    >>> attractiveness_from_grades([4, 1, 0]).tolist()  # 15/16, 1/16, 0
    [0.9375, 0.0625, 0.0]
    >>> attractiveness_from_grades([4, 1, 0], mapping="linear").tolist()
    [1.0, 0.25, 0.0]
    """
    check_choice(mapping, ATTRACTIVENESS, name="mapping")
    if mapping == "probability":
        return check_probabilities(rels, name="rels")
    grades = check_rels(rels)
    max_grade = _check_max_grade(max_grade)
    if len(grades) and grades.max() > max_grade:
        raise ValueError(
            f"rels must be grades of at most max_grade={max_grade:g}, got {grades.max():g}"
        )
    if mapping == "err":
        return (np.exp2(grades) - 1.0) / 2.0**max_grade
    return grades / max_grade


def _check_max_grade(max_grade):
    """``max_grade`` as a positive float of at most 1023 (2**max_grade must be finite)."""
    if isinstance(max_grade, bool) or not isinstance(max_grade, (int, float, np.number)) \
            or not 0 < max_grade <= 1023:
        raise ValueError(f"max_grade must be a number in (0, 1023], got {describe(max_grade)}")
    return float(max_grade)


@dataclass(frozen=True)
class OnlineMetrics:
    """Online metrics of one ranking, exact (a model's ``expected``) or measured (a log's).

    Attributes
    ----------
    ctr : float
        Session click-through rate: the share of sessions with at least one
        click.
    clicks : float
        Clicks per session.
    abandonment : float
        The share of sessions without a click, ``1 - ctr``.
    first_click_rr : float
        Reciprocal rank of the first click, 0 for a session without one,
        averaged over sessions.
    clicks_per_rank : numpy.ndarray
        The share of sessions that click each rank (the rank's CTR).
    """

    ctr: float
    clicks: float
    abandonment: float
    first_click_rr: float
    clicks_per_rank: np.ndarray = field(repr=False)

    def clicks_at_k(self, k):
        """Clicks per session in the top ``k`` ranks."""
        k = check_k(k)
        if k > len(self.clicks_per_rank):
            raise ValueError(
                f"k={k} is deeper than the {len(self.clicks_per_rank)} ranks of the metrics"
            )
        return float(self.clicks_per_rank[:k].sum())

    def __str__(self):
        return (f"session CTR {self.ctr:.4f}, {self.clicks:.4f} clicks per session, abandonment "
                f"{self.abandonment:.4f}, first-click RR {self.first_click_rr:.4f} "
                f"({len(self.clicks_per_rank)} ranks)")


@dataclass(frozen=True)
class ClickLog:
    """Simulated sessions on one ranking.

    Attributes
    ----------
    clicks : numpy.ndarray of bool, shape (n_sessions, depth)
        ``clicks[s, i]``: session ``s`` clicked rank ``i + 1``.
    examined : numpy.ndarray of bool, shape (n_sessions, depth)
        ``examined[s, i]``: session ``s`` looked at rank ``i + 1``.
    model : str
        The click model that produced the log.
    """

    clicks: np.ndarray = field(repr=False)
    examined: np.ndarray = field(repr=False)
    model: str

    @property
    def n_sessions(self):
        return self.clicks.shape[0]

    @property
    def last_examined(self):
        """The deepest examined rank of each session (where it stopped), 0 if none."""
        seen = self.examined[:, ::-1]
        depth = self.examined.shape[1]
        return np.where(seen.any(axis=1), depth - seen.argmax(axis=1), 0)

    def __str__(self):
        n = max(self.n_sessions, 1)
        return (f"{self.n_sessions} sessions of {self.model} users on {self.clicks.shape[1]} ranks: "
                f"{self.clicks.any(axis=1).sum() / n:.4f} with a click, "
                f"{self.clicks.sum() / n:.4f} clicks and {self.examined.sum() / n:.2f} ranks "
                f"examined per session")


def _first_clicks_from(clicks_per_rank_if_independent):
    r"""P(first click at i) for independent clicks: :math:`c_i \prod_{j<i} (1 - c_j)`."""
    c = clicks_per_rank_if_independent
    before = np.concatenate(([1.0], np.cumprod(1.0 - c)[:-1]))
    return c * before


@dataclass(frozen=True)
class ClickModel:
    """What every click model shares: attractiveness from grades, exact metrics, sessions."""

    attractiveness: str = "err"
    max_grade: float = 4

    name = "click model"

    def __post_init__(self):
        check_choice(self.attractiveness, ATTRACTIVENESS, name="attractiveness")
        _check_max_grade(self.max_grade)

    def alpha(self, rels, depth=None):
        """Attractiveness of the top ``depth`` ranks (the whole ranking if None).

        Parameters
        ----------
        rels : sequence of float
            Grades in rank order, non-negative (or probabilities, with the model's
            ``attractiveness="probability"``).
        depth : int or None, default None
            How many ranks a user may examine (at most the ranking's length); None:
            the whole ranking.
        """
        a = attractiveness_from_grades(rels, mapping=self.attractiveness,
                                       max_grade=self.max_grade)
        depth = check_k(depth, name="depth", allow_none=True)
        if depth is None:
            return a
        if depth > len(a):
            raise ValueError(
                f"depth={depth} is deeper than the ranking, which has {len(a)} documents"
            )
        return a[:depth]

    def _sessions(self, rels, n_sessions, seed, depth):
        """What :meth:`simulate` draws from: the attractiveness, the checked number
        of sessions (bounded by the cells it simulates) and the random generator."""
        a = self.alpha(rels, depth)
        n_sessions = check_simulated(check_count(n_sessions, name="n_sessions"),
                                     name="n_sessions", per=len(a), what="ranks")
        return a, n_sessions, rng_from(seed)

    # the cascade family: examination is a chain down the ranks --------------
    def _continuation(self, a):
        """(after a click, after no click): the probability of examining the next rank."""
        raise NotImplementedError

    def click_probabilities(self, rels, depth=None):
        r"""P(click at rank i), exactly, for each rank of the top ``depth``.

        In the cascade family, :math:`P(E_1) = 1`, :math:`P(C_i) =
        \alpha_i P(E_i)` and :math:`P(E_{i+1}) = P(E_i)\,(\alpha_i c_i +
        (1 - \alpha_i)\,u_i)` with :math:`c_i, u_i` the probabilities of
        going on after a click and after none.

        Parameters
        ----------
        rels : sequence of float
            Grades in rank order, non-negative (or probabilities, with the model's
            ``attractiveness="probability"``).
        depth : int or None, default None
            How many ranks a user may examine (at most the ranking's length); None:
            the whole ranking.
        """
        a = self.alpha(rels, depth)
        after_click, after_skip = self._continuation(a)
        examined = np.concatenate(
            ([1.0], np.cumprod(a * after_click + (1.0 - a) * after_skip)[:-1])
        ) if len(a) else a
        return a * examined

    def first_click_probabilities(self, rels, depth=None):
        r"""P(the first click is at rank i): :math:`\alpha_i \prod_{j<i} (1 - \alpha_j) u_j`.

        Parameters
        ----------
        rels : sequence of float
            Grades in rank order, non-negative (or probabilities, with the model's
            ``attractiveness="probability"``).
        depth : int or None, default None
            How many ranks a user may examine (at most the ranking's length); None:
            the whole ranking.
        """
        a = self.alpha(rels, depth)
        _, after_skip = self._continuation(a)
        if not len(a):
            return a
        no_click_yet = np.concatenate(([1.0], np.cumprod((1.0 - a) * after_skip)[:-1]))
        return a * no_click_yet

    def expected(self, rels, depth=None):
        """The exact :class:`OnlineMetrics` of the ranking (what ``simulate`` converges to).

        Parameters
        ----------
        rels : sequence of float
            Grades in rank order, non-negative (or probabilities, with the model's
            ``attractiveness="probability"``).
        depth : int or None, default None
            How many ranks a user may examine (at most the ranking's length); None:
            the whole ranking.
        """
        per_rank = self.click_probabilities(rels, depth)
        first = self.first_click_probabilities(rels, depth)
        ctr = float(first.sum())
        ranks = np.arange(1, len(first) + 1)
        return OnlineMetrics(
            ctr=ctr, clicks=float(per_rank.sum()), abandonment=1.0 - ctr,
            first_click_rr=float((first / ranks).sum()), clicks_per_rank=per_rank,
        )

    def simulate(self, rels, n_sessions, seed=0, depth=None):
        """Simulate ``n_sessions`` users on the ranking; returns a :class:`ClickLog`.

        Each user examines rank 1, clicks it with probability
        :math:`\\alpha_1`, goes on to rank 2 with the model's probability
        after a click or after none, and so on until they stop or the
        ranking (``depth``) ends.

        Parameters
        ----------
        rels : sequence of float
            Grades in rank order, non-negative (or probabilities, with the model's
            ``attractiveness="probability"``).
        n_sessions : int
            How many users.
        seed : int, None or numpy.random.Generator, default 0
            The sessions' randomness.
        depth : int or None, default None
            How many ranks a user may examine (at most the ranking's length); None:
            the whole ranking.
        """
        a, n_sessions, rng = self._sessions(rels, n_sessions, seed, depth)
        after_click, after_skip = self._continuation(a)
        draws_click = rng.random((n_sessions, len(a)))
        draws_go_on = rng.random((n_sessions, len(a)))
        clicks = np.zeros((n_sessions, len(a)), dtype=bool)
        examined = np.zeros_like(clicks)
        reading = np.ones(n_sessions, dtype=bool)
        for i in range(len(a)):
            examined[:, i] = reading
            clicks[:, i] = reading & (draws_click[:, i] < a[i])
            go_on = np.where(clicks[:, i], after_click[i], after_skip[i])
            reading = reading & (draws_go_on[:, i] < go_on)
        return ClickLog(clicks=clicks, examined=examined, model=self.name)


@dataclass(frozen=True)
class CascadeModel(ClickModel):
    r"""The cascade model (Craswell et al. 2008): read down, click once, stop.

    The user examines rank 1; at each examined rank :math:`i` they click
    with probability :math:`\alpha_i` and stop; without a click they go on
    to rank :math:`i + 1`:

    .. math::

        P(C_i) = \alpha_i \prod_{j=1}^{i-1} (1 - \alpha_j)

    With ERR's mapping (the default), :math:`P(C_i)` is the i-th term of
    ERR without its :math:`1/i`: the expected reciprocal rank of the click
    is ERR (:func:`ragmetrics_edu.retrieval.user_models.err_at_k`).

    Parameters
    ----------
    attractiveness : {"err", "linear", "probability"}, default "err"
        How grades become :math:`\alpha` (:func:`attractiveness_from_grades`).
    max_grade : float, default 4
        :math:`g_{max}` of the mapping.

    References
    ----------
    .. [1] N. Craswell, O. Zoeter, M. Taylor, B. Ramsey, "An experimental
       comparison of click position-bias models", WSDM 2008.

    Examples
    --------
    >>> from ragmetrics_edu.online.click_models import CascadeModel
    >>> m = CascadeModel(attractiveness="probability")
    >>> m.click_probabilities([0.5, 0.5, 0.5]).tolist()  # .5, .5 * .5, .5 * .5 * .5
    [0.5, 0.25, 0.125]
    >>> round(m.expected([0.5, 0.5, 0.5]).ctr, 4)  # 1 - 0.5**3
    0.875
    >>> log = m.simulate([0.5, 0.5, 0.5], n_sessions=10_000, seed=0)
    >>> round(float(log.clicks.any(axis=1).mean()), 2)
    0.88
    """

    name = "cascade"

    def _continuation(self, a):
        return np.zeros_like(a), np.ones_like(a)


@dataclass(frozen=True)
class DependentClickModel(ClickModel):
    r"""The dependent click model (Guo, Liu and Wang 2009): the cascade, with several clicks.

    As in the cascade, the user examines rank 1 and clicks an examined rank
    with probability :math:`\alpha_i`; after a click at rank :math:`i` they
    go on with probability :math:`\lambda_i` (and stop otherwise), after
    no click they always go on:

    .. math::

        P(E_1) = 1, \qquad P(C_i) = \alpha_i P(E_i), \qquad
        P(E_{i+1}) = P(E_i)\,\bigl(1 - \alpha_i + \alpha_i \lambda_i\bigr)

    :math:`\lambda_i = 0` everywhere is the cascade model.

    Parameters
    ----------
    continuation : float or sequence of float, default 0.5
        :math:`\lambda_i`, the probability of going on after a click at rank
        :math:`i` (one number for every rank, or one per rank).
    attractiveness, max_grade
        As in :class:`CascadeModel`.

    References
    ----------
    .. [1] F. Guo, C. Liu, Y. M. Wang, "Efficient multiple-click models in
       web search", WSDM 2009.

    Examples
    --------
    >>> from ragmetrics_edu.online.click_models import DependentClickModel
    >>> m = DependentClickModel(continuation=0.5, attractiveness="probability")
    >>> m.click_probabilities([0.5, 0.5]).tolist()  # rank 2: .5 * (1 - .5 + .5 * .5)
    [0.5, 0.375]
    """

    _: KW_ONLY
    continuation: object = 0.5
    name = "dcm"

    def __post_init__(self):
        super().__post_init__()
        if np.ndim(self.continuation) == 0:
            check_probability(self.continuation, name="continuation")
        else:
            check_probabilities(self.continuation, name="continuation")

    def _continuation(self, a):
        lam = check_probabilities(self.continuation, name="continuation", n=len(a))
        return lam, np.ones_like(a)


DependentClickModel.__init__ = formerly_positional("continuation")(
    DependentClickModel.__init__)


@dataclass(frozen=True)
class DBNModel(ClickModel):
    r"""The dynamic Bayesian network click model (Chapelle and Zhang 2009).

    At an examined rank the user clicks with probability :math:`\alpha_i`;
    after a click they are satisfied with probability :math:`\sigma_i` and
    stop; unsatisfied (or without a click) they go on with the
    perseverance :math:`\gamma`:

    .. math::

        P(E_1) = 1, \qquad P(C_i) = \alpha_i P(E_i), \qquad
        P(E_{i+1}) = P(E_i)\,\gamma\,(1 - \alpha_i \sigma_i)

    :math:`\gamma = 1` and :math:`\sigma_i = 1` is the cascade model.

    Parameters
    ----------
    gamma : float, default 0.9
        :math:`\gamma`, the perseverance, in [0, 1].
    satisfaction : float, sequence of float or None, default None
        :math:`\sigma_i` after a click at rank :math:`i`; None takes the
        document's attractiveness (a relevant document both attracts and
        satisfies).
    attractiveness, max_grade
        As in :class:`CascadeModel`.

    References
    ----------
    .. [1] O. Chapelle, Y. Zhang, "A dynamic Bayesian network click model
       for web search ranking", WWW 2009.

    Examples
    --------
    >>> from ragmetrics_edu.online.click_models import DBNModel
    >>> m = DBNModel(gamma=0.5, satisfaction=1.0, attractiveness="probability")
    >>> m.click_probabilities([0.5, 0.5]).tolist()  # rank 2: .5 * .5 * (1 - .5)
    [0.5, 0.125]
    """

    _: KW_ONLY
    gamma: float = 0.9
    satisfaction: object = None
    name = "dbn"

    def __post_init__(self):
        super().__post_init__()
        check_probability(self.gamma, name="gamma")
        if self.satisfaction is not None:
            if np.ndim(self.satisfaction) == 0:
                check_probability(self.satisfaction, name="satisfaction")
            else:
                check_probabilities(self.satisfaction, name="satisfaction")

    def _continuation(self, a):
        sigma = a if self.satisfaction is None else check_probabilities(
            self.satisfaction, name="satisfaction", n=len(a))
        return self.gamma * (1.0 - sigma), np.full_like(a, self.gamma)


DBNModel.__init__ = formerly_positional("gamma", "satisfaction")(DBNModel.__init__)


@dataclass(frozen=True)
class PositionBasedModel(ClickModel):
    r"""The position-based model: examination depends on the rank only.

    The user looks at rank :math:`i` with probability :math:`\epsilon_i`,
    whatever happened elsewhere, and clicks what they look at with
    probability :math:`\alpha_i`:

    .. math::

        P(C_i) = \epsilon_i\,\alpha_i, \qquad
        \epsilon_i = \left(\frac{1}{i}\right)^{\eta}

    The power law of the rank is the examination used by Joachims,
    Swaminathan and Schnabel (2017); :math:`\eta = 0` is a user who sees
    everything.  :math:`\epsilon_i` is the **propensity** of inverse
    propensity scoring (:mod:`ragmetrics_edu.online.counterfactual`).

    Parameters
    ----------
    eta : float, default 1.0
        :math:`\eta \ge 0`, how fast attention falls with the rank.
    examination : sequence of float or None, default None
        :math:`\epsilon_i` given rank by rank instead of by ``eta``.
    attractiveness, max_grade
        As in :class:`CascadeModel`.

    References
    ----------
    .. [1] N. Craswell, O. Zoeter, M. Taylor, B. Ramsey, "An experimental
       comparison of click position-bias models", WSDM 2008.
    .. [2] T. Joachims, A. Swaminathan, T. Schnabel, "Unbiased
       learning-to-rank with biased feedback", WSDM 2017.

    Examples
    --------
    >>> from ragmetrics_edu.online.click_models import PositionBasedModel
    >>> m = PositionBasedModel(eta=1.0, attractiveness="probability")
    >>> m.examination_probabilities(3).round(4).tolist()
    [1.0, 0.5, 0.3333]
    >>> m.click_probabilities([0.5, 0.5, 0.5]).round(4).tolist()
    [0.5, 0.25, 0.1667]
    """

    _: KW_ONLY
    eta: float = 1.0
    examination: object = None
    name = "pbm"

    def __post_init__(self):
        super().__post_init__()
        if isinstance(self.eta, bool) or not isinstance(self.eta, (int, float, np.number)) \
                or not 0 <= self.eta < float("inf"):
            raise ValueError(f"eta must be a finite number >= 0, got {self.eta!r}")
        if self.examination is not None:
            check_probabilities(self.examination, name="examination")

    def examination_probabilities(self, n):
        """:math:`\\epsilon_1, ..., \\epsilon_n`, the probability of looking at each rank."""
        n = check_simulated(check_count(n, name="n", minimum=0), name="n")
        if self.examination is not None:
            return check_probabilities(self.examination, name="examination", n=n)
        return (1.0 / np.arange(1, n + 1)) ** float(self.eta)

    def click_probabilities(self, rels, depth=None):
        r"""P(click at rank i) = :math:`\epsilon_i \alpha_i`, for each rank of the top ``depth``.

        Parameters
        ----------
        rels : sequence of float
            Grades in rank order, non-negative (or probabilities, with the model's
            ``attractiveness="probability"``).
        depth : int or None, default None
            How many ranks a user may examine (at most the ranking's length); None:
            the whole ranking.
        """
        a = self.alpha(rels, depth)
        return a * self.examination_probabilities(len(a))

    def first_click_probabilities(self, rels, depth=None):
        r"""P(first click at i) = :math:`\epsilon_i \alpha_i \prod_{j<i} (1 - \epsilon_j \alpha_j)`.

        Parameters
        ----------
        rels : sequence of float
            Grades in rank order, non-negative (or probabilities, with the model's
            ``attractiveness="probability"``).
        depth : int or None, default None
            How many ranks a user may examine (at most the ranking's length); None:
            the whole ranking.
        """
        return _first_clicks_from(self.click_probabilities(rels, depth))

    @formerly_positional("seed", "depth")
    def simulate(self, rels, n_sessions, *, seed=0, depth=None):
        """Simulate ``n_sessions`` users; each rank is examined independently of the others.

        Parameters
        ----------
        rels : sequence of float
            Grades in rank order, non-negative (or probabilities, with the model's
            ``attractiveness="probability"``).
        n_sessions : int
            How many users.
        seed : int, None or numpy.random.Generator, default 0
            The sessions' randomness.
        depth : int or None, default None
            How many ranks a user may examine (at most the ranking's length); None:
            the whole ranking.
        """
        a, n_sessions, rng = self._sessions(rels, n_sessions, seed, depth)
        examined = rng.random((n_sessions, len(a))) < self.examination_probabilities(len(a))
        clicks = examined & (rng.random((n_sessions, len(a))) < a)
        return ClickLog(clicks=clicks, examined=examined, model=self.name)


PositionBasedModel.__init__ = formerly_positional("eta", "examination")(
    PositionBasedModel.__init__)


MAX_SCAN_COST = 10
"""How many cells of :data:`~ragmetrics_edu._validation.MAX_SIMULATED` one event of
:func:`scan_ranking` counts for (a Python tuple in a list, not a byte of an array)."""


@dataclass(frozen=True)
class Scan:
    """Sessions replayed step by step, for a widget (see :func:`scan_ranking`).

    Attributes
    ----------
    events : list of tuple
        ``(session, rank, action)`` in order; ``action`` is ``"examine"``,
        ``"click"``, ``"skip"`` (the position-based user did not look at
        the rank) or ``"stop"`` (``rank`` is the last rank looked at, 0 if
        none).
    running_ctr : numpy.ndarray
        After each session, the share of the sessions so far with a click.
    expected_ctr : float
        The model's exact session CTR, where ``running_ctr`` converges.
    log : ClickLog
        The sessions themselves.
    """

    events: list
    running_ctr: np.ndarray = field(repr=False)
    expected_ctr: float
    log: ClickLog = field(repr=False)

    def __str__(self):
        running = f"{self.running_ctr[-1]:.4f}" if len(self.running_ctr) else "none"
        return (f"{self.log.n_sessions} sessions replayed in {len(self.events)} steps: session "
                f"CTR {running} so far, {self.expected_ctr:.4f} expected ({self.log.model} users)")


@formerly_positional("n_sessions", "seed", "depth")
def scan_ranking(model, rels, *, n_sessions=1, seed=0, depth=None):
    """Replay simulated users scanning a ranking: examine, click, stop, session by session.

    The pure computation behind a "simulated user" widget: it draws the
    sessions with ``model.simulate`` (same seed, same sessions) and lists
    what each user did, rank by rank, with the running click-through rate.

    Parameters
    ----------
    model : CascadeModel, PositionBasedModel, DependentClickModel or DBNModel
        The user.
    rels : sequence of float
        Grades in rank order (or probabilities, with the model's
        ``attractiveness="probability"``).
    n_sessions : int, default 1
        How many users, one after the other.
    seed : int, None or numpy.random.Generator, default 0
        The sessions' randomness.
    depth : int or None, default None
        How many ranks a user may examine; None: the whole ranking.

    Returns
    -------
    Scan
        ``events``, ``running_ctr``, ``expected_ctr`` and the ``log``.

    Examples
    --------
    >>> from ragmetrics_edu.online.click_models import CascadeModel, scan_ranking
    >>> m = CascadeModel(attractiveness="probability")
    >>> scan = scan_ranking(m, [0.0, 1.0, 0.5], n_sessions=2)
    >>> scan.events[:4]  # rank 1 never attracts, rank 2 always does
    [(0, 1, 'examine'), (0, 2, 'examine'), (0, 2, 'click'), (0, 2, 'stop')]
    >>> scan.running_ctr.tolist(), scan.expected_ctr
    ([1.0, 1.0], 1.0)
    """
    if not isinstance(model, ClickModel):
        raise TypeError(f"model must be one of the click models, got {describe(model)}")
    n_sessions = check_count(n_sessions, name="n_sessions")
    ranks = len(model.alpha(rels, depth))
    # one event per rank and session, plus its stop: Python tuples, far heavier than arrays
    check_simulated(n_sessions, name="n_sessions", per=(ranks + 2) * MAX_SCAN_COST,
                    what=f"(ranks + 2) x {MAX_SCAN_COST} (the events listed)")
    log = model.simulate(rels, n_sessions, seed=seed, depth=depth)
    events = []
    stops = log.last_examined
    for s in range(log.n_sessions):
        for i in range(log.clicks.shape[1]):
            if log.examined[s, i]:
                events.append((s, i + 1, "examine"))
                if log.clicks[s, i]:
                    events.append((s, i + 1, "click"))
            elif model.name == "pbm":
                events.append((s, i + 1, "skip"))
            else:
                break
        events.append((s, int(stops[s]), "stop"))
    any_click = log.clicks.any(axis=1)
    running = np.cumsum(any_click) / np.arange(1, log.n_sessions + 1)
    return Scan(events=events, running_ctr=running,
                expected_ctr=model.expected(rels, depth).ctr, log=log)
