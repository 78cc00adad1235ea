r"""How far a judge agrees with human labels.

Before trusting a judge, measure it against people on a labelled set:

* :func:`confusion_matrix` - who said what, label by label;
* :func:`cohen_kappa` - agreement corrected for chance, optionally weighted
  so that 4 vs 5 is a smaller disagreement than 1 vs 5 (equal to
  ``sklearn.metrics.cohen_kappa_score``);
* :func:`spearman` and :func:`kendall_tau` - rank correlations between two
  raters' scores (equal to ``scipy.stats.spearmanr`` and
  ``scipy.stats.kendalltau``, the tau-b variant that handles ties).

Plain NumPy; scipy and scikit-learn are used only by the tests. Every score
is "higher is better" (1 = perfect agreement); kappa and the correlations
can be negative (systematic disagreement). When a value is undefined (a
rater who gives every item the same label) the functions return ``nan``,
as scipy does.
"""

import math

import numpy as np

from .._deprecation import formerly_positional
from .._validation import check_choice, check_count, check_real, describe, shorten

__all__ = [
    "confusion_matrix",
    "percent_agreement",
    "cohen_kappa",
    "kappa_weights",
    "spearman",
    "kendall_tau",
    "rankdata",
]


def check_label_pairs(a, b, name_a="a", name_b="b"):
    for x, name in ((a, name_a), (b, name_b)):
        if isinstance(x, (str, bytes)) or not hasattr(x, "__len__"):
            raise TypeError(f"{name} must be a sequence of labels, got {x!r}")
    a, b = list(a), list(b)
    if len(a) != len(b):
        raise ValueError(
            f"{name_a} and {name_b} must label the same items, got lengths {len(a)} and {len(b)}"
        )
    if not a:
        raise ValueError(f"{name_a} and {name_b} must not be empty")
    return a, b


def check_no_nan_labels(a, b, name_a="a", name_b="b"):
    """Raise if a label is NaN: NaN is not equal to itself, so two NaNs would count as two labels."""
    for labels, name in ((a, name_a), (b, name_b)):
        for i, x in enumerate(labels):
            if x != x:
                raise ValueError(f"{name}[{i}] is NaN: a label must be a value (leave the "
                                 "unlabelled items out of both raters' labels)")


@formerly_positional("labels")
def confusion_matrix(a, b, *, labels=None):
    """Count the items labelled ``i`` by rater a and ``j`` by rater b.

    Parameters
    ----------
    a, b : sequence
        The two raters' labels of the same items.
    labels : sequence, optional
        The labels, in order (for example the whole scale ``[1, 2, 3, 4, 5]``
        so that unused levels get a row). Default: the sorted labels seen.
        It must include every label of ``a`` and ``b``: scikit-learn
        silently drops the items labelled outside ``labels``, this function
        refuses them (``ValueError``) so that no item is left out unseen.

    Returns
    -------
    matrix : numpy.ndarray
        ``(n_labels, n_labels)`` int array, rows = a, columns = b (the
        layout of ``sklearn.metrics.confusion_matrix(a, b)``).
    labels : list
        The labels of the rows and columns.

    Examples
    --------
    >>> m, labels = confusion_matrix([1, 2, 2, 3], [1, 2, 3, 3])
    >>> labels
    [1, 2, 3]
    >>> m
    array([[1, 0, 0],
           [0, 1, 1],
           [0, 0, 1]])
    """
    a, b = check_label_pairs(a, b)
    check_no_nan_labels(a, b)
    if labels is None:
        seen = set(a) | set(b)
        try:
            labels = sorted(seen)
        except TypeError:
            kinds = sorted({type(x).__name__ for x in seen})
            raise TypeError(
                "a and b must use labels of one comparable type (all numbers or "
                f"all strings), got a mix of {', '.join(kinds)}; or pass labels= "
                "to give their order"
            ) from None
    else:
        labels = list(labels)
        if len(set(labels)) != len(labels):
            raise ValueError(f"labels must not repeat, got {labels!r}")
        unknown = (set(a) | set(b)) - set(labels)
        if unknown:
            raise ValueError(
                f"labels must include every label given, missing {sorted(unknown, key=repr)!r} "
                "(scikit-learn would drop the items labelled so; filter them out first if "
                "that is what you want)"
            )
    _check_n_labels(len(labels), "the labels of a and b")
    index = {lab: i for i, lab in enumerate(labels)}
    m = np.zeros((len(labels), len(labels)), dtype=np.int64)
    for x, y in zip(a, b):
        m[index[x], index[y]] += 1
    return m, labels


def percent_agreement(a, b):
    """Share of items on which the two raters give the same label.

    Parameters
    ----------
    a, b : sequence
        The two raters' labels of the same items, in the same order: equal
        lengths, not empty, no NaN label (``ValueError``); a string or a value
        without a length is a ``TypeError``.

    Returns
    -------
    float
        The share of items labelled alike, in [0, 1].

    Examples
    --------
    >>> percent_agreement([1, 2, 3, 4], [1, 2, 4, 4])
    0.75
    """
    a, b = check_label_pairs(a, b)
    check_no_nan_labels(a, b)
    return float(sum(x == y for x, y in zip(a, b)) / len(a))



MAX_LABELS = 1000
"""The most labels of a kappa's scale: its tables are ``K x K`` (8 MB of float64 at 1,000);
kappa is for categories and rating scales, and continuous scores are binned first."""

WEIGHTS = (None, "linear", "quadratic")
"""Cohen's kappa's disagreement weights: plain, linear, quadratic."""


def _check_n_labels(n, what):
    if n > MAX_LABELS:
        raise ValueError(f"{what} are {n:,} distinct values: kappa is for a scale of at most "
                         f"{MAX_LABELS:,} labels (MAX_LABELS); bin continuous scores first")


def kappa_weights(n_labels, weights=None):
    """The disagreement weights of Cohen's kappa for ``n_labels`` ordered labels.

    ``None``: 1 off the diagonal (plain kappa); ``"linear"``: ``|i - j|``;
    ``"quadratic"``: ``(i - j)**2``, as scikit-learn's ``cohen_kappa_score``.

    Parameters
    ----------
    n_labels : int
        The scale's size, 1 to :data:`MAX_LABELS`.
    weights : {None, "linear", "quadratic"}, default None

    Examples
    --------
    >>> kappa_weights(3, "linear").tolist()
    [[0.0, 1.0, 2.0], [1.0, 0.0, 1.0], [2.0, 1.0, 0.0]]
    """
    check_choice(weights, WEIGHTS, name="weights")
    n_labels = check_count(n_labels, name="n_labels", maximum=MAX_LABELS)
    idx = np.arange(n_labels)
    if weights is None:
        return (idx[:, None] != idx[None, :]).astype(np.float64)
    if weights == "linear":
        return np.abs(idx[:, None] - idx[None, :]).astype(np.float64)
    return ((idx[:, None] - idx[None, :]) ** 2).astype(np.float64)

@formerly_positional("weights", "labels")
def cohen_kappa(a, b, *, weights=None, labels=None):
    r"""Cohen's kappa: agreement between two raters corrected for chance.

    .. math::

        \kappa = 1 - \frac{\sum_{ij} w_{ij}\, O_{ij}}{\sum_{ij} w_{ij}\, E_{ij}},
        \qquad E_{ij} = \frac{O_{i\cdot}\, O_{\cdot j}}{N}

    where :math:`O` is the confusion matrix, :math:`E` the counts expected if
    the raters labelled independently with their own label frequencies, and
    :math:`w_{ij}` the cost of a disagreement between the :math:`i`-th and
    :math:`j`-th label: 0 on the diagonal and 1 elsewhere (unweighted, where
    this is the familiar :math:`(p_o - p_e) / (1 - p_e)`), :math:`|i - j|`
    (``"linear"``) or :math:`(i - j)^2` (``"quadratic"``).

    Parameters
    ----------
    a, b : sequence
        The two raters' labels of the same items.
    weights : {None, "linear", "quadratic"}, default None
        Disagreement weights; weighted kappa suits ordinal scales (1..5).
    labels : sequence, optional
        The labels in order. The weights use each label's **position** in
        this list, not its value (as scikit-learn does): with the default
        (the labels seen), an unused level of the scale is skipped, so pass
        ``labels=range(1, 6)`` to weigh 1 vs 5 as four steps even when no
        one used 2, 3 or 4. It must include every label given (see Notes).

    Returns
    -------
    float
        Kappa, at most 1; 0 is chance-level agreement. ``nan`` when the
        expected disagreement is 0 (both raters used one and the same label).

    See Also
    --------
    confusion_matrix, percent_agreement

    Notes
    -----
    Equal to ``sklearn.metrics.cohen_kappa_score(a, b, labels=labels,
    weights=weights)`` whenever ``labels`` covers every label given. They
    differ on purpose when it does not: scikit-learn then computes kappa
    over the items whose two labels are both in ``labels`` and silently
    ignores the rest; this function raises ``ValueError`` naming the
    missing labels, since dropping items changes kappa. To get
    scikit-learn's number, keep those items yourself::

        kept = [(x, y) for x, y in zip(a, b) if x in labels and y in labels]
        cohen_kappa([x for x, _ in kept], [y for _, y in kept], labels=labels)

    Weighted kappa with quadratic weights is close to an intraclass
    correlation; it is the usual choice for rubric ratings.

    References
    ----------
    J. Cohen, "A coefficient of agreement for nominal scales", Educational
    and Psychological Measurement 20(1), 1960. J. Cohen, "Weighted kappa",
    Psychological Bulletin 70(4), 1968.

    Examples
    --------
    >>> a = [1, 2, 3, 3, 2]
    >>> b = [1, 2, 3, 2, 2]
    >>> # p_o = 4/5; label frequencies a: (1, 2, 2)/5, b: (1, 3, 1)/5
    >>> # p_e = (1*1 + 2*3 + 2*1)/25 = 9/25; kappa = (0.8 - 0.36)/(1 - 0.36)
    >>> round(cohen_kappa(a, b), 4)
    0.6875
    >>> # linear: observed cost 1 (one 3-vs-2); expected cost 1.0 + 0.8 + 2.0 = 3.8
    >>> round(cohen_kappa(a, b, weights="linear"), 4)   # 1 - 1/3.8
    0.7368
    """
    check_choice(weights, WEIGHTS, name="weights")
    observed, _ = confusion_matrix(a, b, labels=labels)
    observed = observed.astype(np.float64)
    n = observed.sum()
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / n
    w = kappa_weights(observed.shape[0], weights)
    disagreement_expected = float((w * expected).sum())
    if disagreement_expected == 0.0:
        return math.nan
    return float(1.0 - (w * observed).sum() / disagreement_expected)


def rankdata(x):
    """Ranks 1..n, ties sharing the mean of their ranks (``scipy.stats.rankdata``).

    Examples
    --------
    >>> rankdata([10, 30, 20, 20])
    array([1. , 4. , 2.5, 2.5])
    """
    x = np.asarray(x, dtype=np.float64)
    order = np.argsort(x, kind="mergesort")
    ranks = np.empty(len(x), dtype=np.float64)
    sorted_x = x[order]
    i = 0
    while i < len(x):
        j = i
        while j + 1 < len(x) and sorted_x[j + 1] == sorted_x[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2.0 + 1.0  # mean of ranks i+1 .. j+1
        i = j + 1
    return ranks


def check_number_pairs(a, b, name_a="a", name_b="b"):
    """Two sequences of scores of the same items as flat float64 arrays of finite numbers.

    Parameters
    ----------
    a, b : sequence of float
        The two raters' (or a metric's and the people's) scores, item by item.
    name_a, name_b : str, default "a", "b"
        Their names in the messages.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)

    Raises
    ------
    ValueError
        Lengths differ, nothing given, a score is not finite, or an integer
        is beyond a float's range (``10**400``: named with its position).
    """
    a, b = check_label_pairs(a, b, name_a, name_b)
    for values, name in ((a, name_a), (b, name_b)):
        for i, v in enumerate(values):   # an int beyond a float's range: name it
            if isinstance(v, int) and not isinstance(v, bool):
                check_real(v, name=name, where=f" at position {i}")
    try:
        x = np.asarray(a, dtype=np.float64)
        y = np.asarray(b, dtype=np.float64)
    except (TypeError, ValueError):   # complex, text, None, a ragged list
        raise TypeError(f"{name_a} and {name_b} must be sequences of real numbers, got "
                        f"{describe(a)} and {describe(b)}") from None
    for v, name in ((x, name_a), (y, name_b)):
        if v.ndim != 1 or not np.all(np.isfinite(v)):
            raise ValueError(f"{name} must be a flat sequence of finite numbers, got "
                             f"{shorten(repr(v.tolist()))}")
    return x, y


def spearman(a, b):
    r"""Spearman's rank correlation: Pearson's correlation of the ranks.

    .. math::

        \rho = \frac{\sum_i (r_i - \bar r)(s_i - \bar s)}
                    {\sqrt{\sum_i (r_i - \bar r)^2 \sum_i (s_i - \bar s)^2}}

    with :math:`r, s` the ranks of ``a`` and ``b`` (ties get their mean rank).

    Parameters
    ----------
    a, b : sequence of float
        Two raters' scores of the same items (finite numbers).

    Returns
    -------
    float
        In [-1, 1]; ``nan`` if either rater gives every item the same score.

    Notes
    -----
    Equal to ``scipy.stats.spearmanr(a, b).statistic``.

    Examples
    --------
    >>> round(spearman([1, 2, 3, 4], [1, 3, 2, 4]), 4)
    0.8
    """
    x, y = check_number_pairs(a, b)
    r, s = rankdata(x) - (len(x) + 1) / 2.0, rankdata(y) - (len(y) + 1) / 2.0
    denom = math.sqrt(float((r * r).sum()) * float((s * s).sum()))
    if denom == 0.0:
        return math.nan
    return float(np.clip((r * s).sum() / denom, -1.0, 1.0))


def _kendall_tau_reference(a, b):
    """Kendall's tau-b by the definition, one pair at a time (for the tests)."""
    x, y = check_number_pairs(a, b)
    concordant = discordant = ties_x = ties_y = 0
    n = len(x)
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0 and dy == 0:
                continue  # tied in both: counted in neither n0 - n1 nor n0 - n2 terms' numerators
            if dx == 0:
                ties_x += 1
            elif dy == 0:
                ties_y += 1
            elif (dx > 0) == (dy > 0):  # compare signs: dx * dy can underflow to 0
                concordant += 1
            else:
                discordant += 1
    denom = math.sqrt((concordant + discordant + ties_x) * (concordant + discordant + ties_y))
    return math.nan if denom == 0 else (concordant - discordant) / denom


def kendall_tau(a, b):
    r"""Kendall's tau-b rank correlation (ties in either rater accounted for).

    .. math::

        \tau_b = \frac{P - Q}{\sqrt{(P + Q + T_a)(P + Q + T_b)}}

    over the pairs of items: :math:`P` concordant (both raters order the pair
    the same way), :math:`Q` discordant, :math:`T_a` tied only in ``a``,
    :math:`T_b` tied only in ``b`` (pairs tied in both count nowhere).

    Parameters
    ----------
    a, b : sequence of float
        Two raters' scores of the same items (finite numbers).

    Returns
    -------
    float
        In [-1, 1]; ``nan`` if either rater gives every item the same score.

    Notes
    -----
    Equal to ``scipy.stats.kendalltau(a, b).statistic`` (its default
    ``variant="b"``). Computed as Knight (1966) does, in :math:`O(n \log^2 n)`
    time and :math:`O(n)` memory: sort by ``a`` (then ``b``), count the
    ties, and count the discordant pairs as the inversions of ``b`` in that
    order (:func:`_kendall_tau_reference` is the pair-by-pair definition the
    tests hold it to).

    Examples
    --------
    >>> # pairs of [1, 2, 3] vs [1, 3, 2]: (1,2) C, (1,3) C, (2,3) D
    >>> round(kendall_tau([1, 2, 3], [1, 3, 2]), 4)   # (2 - 1) / 3
    0.3333
    """
    x, y = check_number_pairs(a, b)
    n = len(x)
    order = np.lexsort((y, x))                   # by x, then by y within ties of x
    x, y = x[order], y[order]
    pairs = n * (n - 1) // 2
    tied_x = _tied_pairs(x)
    tied_y = _tied_pairs(np.sort(y))
    tied_both = _tied_pairs_of_runs(x, y)
    # a pair untied in x is discordant when y falls: an inversion of y in this order
    # (pairs tied in x are ordered by y, so they add none)
    discordant = _inversions(np.unique(y, return_inverse=True)[1])
    # P - Q over the pairs tied in neither, and the pairs not tied in x (not tied in y)
    p_minus_q = pairs - tied_x - tied_y + tied_both - 2 * discordant
    denom = math.sqrt(float(pairs - tied_x) * float(pairs - tied_y))
    if denom == 0.0:
        return math.nan
    return float(np.clip(p_minus_q / denom, -1.0, 1.0))


def _tied_pairs(sorted_values):
    """Pairs of equal values, ``sum t (t - 1) / 2`` over runs of ``t`` equal sorted values."""
    if len(sorted_values) == 0:
        return 0
    starts = np.flatnonzero(np.r_[True, sorted_values[1:] != sorted_values[:-1], True])
    runs = np.diff(starts).astype(np.int64)
    return int((runs * (runs - 1) // 2).sum())


def _tied_pairs_of_runs(x, y):
    """Pairs equal in both ``x`` and ``y`` (sorted by x, then y): runs of equal (x, y)."""
    if len(x) == 0:
        return 0
    change = (x[1:] != x[:-1]) | (y[1:] != y[:-1])
    starts = np.flatnonzero(np.r_[True, change, True])
    runs = np.diff(starts).astype(np.int64)
    return int((runs * (runs - 1) // 2).sum())


def _inversions(v):
    """Pairs ``i < j`` with ``v[i] > v[j]`` of integers ``0 <= v < len(v)``, in O(n log^2 n).

    A merge sort done a level at a time over the whole array: at each level, blocks of
    ``b`` sorted values are merged in pairs, and every value of a right block counts the
    values of its left block that are larger (one ``searchsorted`` over all blocks at once,
    made one sorted array by adding ``pair * n`` to each value).
    """
    n = len(v)
    v = np.asarray(v, dtype=np.int64)
    count, b = 0, 1
    while b < n:
        pair = np.arange(n, dtype=np.int64) // (2 * b)
        right = (np.arange(n) // b) % 2 == 1
        key = pair * n + v
        left_keys = key[~right]
        larger_from = np.searchsorted(left_keys, key[right], side="right")
        left_end = np.searchsorted(left_keys, pair[right] * n + (n - 1), side="right")
        count += int((left_end - larger_from).sum())
        v = np.sort(key) - pair * n               # each pair of blocks now one sorted block
        b *= 2
    return count


def kappa_from_confusion(table, weights=None):
    r"""Cohen's kappa of a confusion matrix (or of each of a stack of them).

    .. math::

        \kappa = 1 - \frac{\sum_{ij} w_{ij} O_{ij}}{\sum_{ij} w_{ij} E_{ij}},
        \qquad E_{ij} = \frac{O_{i\cdot}\, O_{\cdot j}}{N}

    the formula of :func:`~ragmetrics_edu.judge.cohen_kappa`, from the counts
    :math:`O` directly.

    Parameters
    ----------
    table : array_like
        ``(K, K)`` counts, rows one rater and columns the other, in scale
        order; or ``(..., K, K)``.
    weights : {None, "linear", "quadratic"}, default None

    Returns
    -------
    float or numpy.ndarray
        ``nan`` where the expected disagreement is 0.

    Examples
    --------
    >>> # p_o = 14/20; row totals 10, 10 and column totals 12, 8: p_e = (10*12 + 10*8)/400 = 0.5
    >>> round(kappa_from_confusion([[6, 4], [2, 8]]), 4)   # (0.7 - 0.5) / (1 - 0.5)
    0.4
    """
    check_choice(weights, WEIGHTS, name="weights")
    try:
        t = np.asarray(table)
        if t.dtype.kind not in "biuf":
            raise TypeError
        t = t.astype(np.float64)
    except (TypeError, ValueError, OverflowError):  # text, a ragged list, 10**400
        raise TypeError(f"table must be a square array of counts, got {describe(table)}") from None
    if t.ndim < 2 or t.shape[-1] != t.shape[-2]:
        raise ValueError(f"table must be square (K x K, or a stack of them), got shape {t.shape}")
    if not (np.all(np.isfinite(t)) and np.all(t >= 0)):
        raise ValueError("table must hold counts: finite numbers, none negative")
    k = t.shape[-1]
    w = kappa_weights(k, weights)
    # each table scaled by a power of two (exact; kappa is the same for counts times any
    # constant): sums of counts of 1e308 no longer overflow, nor products of 5e-324 underflow
    largest = t.max(axis=(-2, -1), keepdims=True) if t.size else np.zeros(t.shape[:-2] + (1, 1))
    t = np.ldexp(t, -np.frexp(largest)[1])
    # matrix products over the stack, not sums over (K, K) axes: 100,000 resampled tables in
    # milliseconds.  sum_ij w_ij E_ij = (rows @ w) . cols / n, sum_ij w_ij O_ij = O . w (flat)
    rows, cols = t.sum(axis=-1), t.sum(axis=-2)
    n = rows.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        disagreement_expected = ((rows @ w) * cols).sum(axis=-1) / n
        observed = t.reshape(t.shape[:-2] + (k * k,)) @ w.reshape(k * k)
        kappa = 1.0 - observed / disagreement_expected
    kappa = np.where(disagreement_expected == 0.0, np.nan, kappa)
    return float(kappa) if kappa.ndim == 0 else kappa
