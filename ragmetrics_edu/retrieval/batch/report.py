"""The :class:`Report` that :func:`ragmetrics_edu.evaluate` returns.

It lives in its own module so that the fast path
(:mod:`ragmetrics_edu.retrieval.batch.evaluator`) and the readable presets
(:mod:`ragmetrics_edu.retrieval.conventions`, whose
:class:`~ragmetrics_edu.retrieval.conventions.ConventionReport` extends it)
can both use it without importing each other in a circle: the evaluator
imports ``conventions``, and neither is imported by this module.
"""

__all__ = ["Report"]


class Report:
    """The result of :func:`evaluate`: values per query, means, and what was left out.

    Attributes
    ----------
    per_query : dict of str to dict of str to float
        ``{qid: {metric: value}}`` for every scored query (and, with
        ``missing="zero"``, every missing query, all zeros).
    mean : dict of str to float
        ``{metric: mean over the queries of per_query}``.
    metrics : tuple of str
        The metric names, in the order asked.
    missing_queries : tuple of str
        Judged queries absent from the run.
    unjudged_queries : tuple of str
        Queries without judgements, never scored nor counted: those of the
        run absent from the qrels or judged with an empty dict (``{}``), in
        the run's order, then the queries judged ``{}`` that are not in the
        run.
    queries_without_relevant : tuple of str
        Judged queries of the run whose judgements hold no relevant document
        (none at or above the relevance level).  Every binary measure is 0
        for them and they count in the means (trec_eval); under gdeval's
        conventions (``without_relevant="skip"``) they are left out of
        ``per_query`` and of the means.  (nDCG keeps the gain of the grades
        below a relevance level above 1, so it can be above 0 for them.)
    signature : str
        The conventions that produced the numbers, to print beside them.
    scores : {"float32", "float64"}
        The precision at which scores were compared: ``"float32"`` as
        trec_eval 9.x and pytrec_eval, ``"float64"`` as trec_eval 10.0.
    relevance_level : int
        The grade from which a document was relevant (``trec_eval -l``).
    depth : int or None
        The documents read per query (``trec_eval -M``); None: all.

    Examples
    --------
    >>> from ragmetrics_edu import evaluate
    >>> report = evaluate({"q1": {"a": 1}}, {"q1": {"a": 0.3, "b": 0.9}}, metrics=["mrr"])
    >>> report.per_query
    {'q1': {'mrr': 0.5}}
    >>> print(report.to_table())  # b (0.9) is ranked above the relevant a
    qid      mrr
    ----  ------
    q1    0.5000
    ----  ------
    mean  0.5000
    """

    def __init__(self, per_query, mean, metrics, missing_queries=(),
                 unjudged_queries=(), queries_without_relevant=(),
                 missing="ignore", gain="linear", scores="float32", *, relevance_level=1,
                 depth=None, without_relevant="zero"):
        self.per_query = per_query
        self.mean = mean
        self.metrics = tuple(metrics)
        self.missing_queries = tuple(missing_queries)
        self.unjudged_queries = tuple(unjudged_queries)
        self.queries_without_relevant = tuple(queries_without_relevant)
        self.missing = missing
        self.gain = gain
        self.scores = scores
        self.relevance_level = relevance_level
        self.depth = depth
        self.without_relevant = without_relevant

    @property
    def n_queries(self):
        """Number of queries the means are taken over."""
        return len(self.per_query)

    @property
    def signature(self):
        """One line naming every convention behind the numbers (sacrebleu style).

        Examples
        --------
        >>> from ragmetrics_edu import evaluate
        >>> signature = evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, metrics=["map"]).signature
        >>> for part in signature.split("|")[1:]:
        ...     print(part)
        order:score(float32) desc,docid desc
        rel:grade>=1
        gain:linear
        idcg:all judged
        ap:all relevant
        p@k:/k
        missing:ignore
        nq:1
        missing_q:0
        unjudged_q:0
        no_rel_q:0
        """
        from ... import __version__

        gain = "linear" if self.gain == "linear" else "2^g-1"
        depth = "" if self.depth is None else f"|depth:{self.depth}"
        skip = "" if self.without_relevant == "zero" else f"|no_rel:{self.without_relevant}"
        return (
            f"ragmetrics_edu {__version__} evaluate"
            f"|order:score({self.scores}) desc,docid desc{depth}"
            f"|rel:grade>={self.relevance_level}|gain:{gain}|idcg:all judged|ap:all relevant"
            f"|p@k:/k|missing:{self.missing}{skip}|nq:{self.n_queries}"
            f"|missing_q:{len(self.missing_queries)}"
            f"|unjudged_q:{len(self.unjudged_queries)}"
            f"|no_rel_q:{len(self.queries_without_relevant)}"
        )

    def to_dict(self):
        """Return everything as plain dicts and lists (e.g. to save as JSON)."""
        return {
            "per_query": {q: dict(v) for q, v in self.per_query.items()},
            "mean": dict(self.mean),
            "metrics": list(self.metrics),
            "missing_queries": list(self.missing_queries),
            "unjudged_queries": list(self.unjudged_queries),
            "queries_without_relevant": list(self.queries_without_relevant),
            "signature": self.signature,
        }

    def to_table(self, per_query=True, digits=4):
        """Return a plain-text table: one row per query (if asked), then the mean.

        Parameters
        ----------
        per_query : bool, default True
            Include one row per query above the ``mean`` row.
        digits : int, default 4
            Digits after the decimal point.
        """
        header = ["qid", *self.metrics]
        rows = []
        if per_query:
            for qid, values in self.per_query.items():
                # an id with a control or format character (an ANSI escape, a
                # BOM) is shown escaped, never sent raw to a terminal
                shown = qid if qid.isprintable() else repr(qid)
                rows.append([shown, *(f"{values[m]:.{digits}f}" for m in self.metrics)])
        mean_row = ["mean", *(f"{self.mean[m]:.{digits}f}" for m in self.metrics)]
        widths = [
            max(len(r[i]) for r in [header, *rows, mean_row]) for i in range(len(header))
        ]

        def line(cells):
            first = cells[0].ljust(widths[0])
            rest = (c.rjust(w) for c, w in zip(cells[1:], widths[1:]))
            return "  ".join([first, *rest]).rstrip()

        rule = line(["-" * w for w in widths])
        out = [line(header), rule]
        if rows:
            out += [line(r) for r in rows] + [rule]
        out.append(line(mean_row))
        return "\n".join(out)

    def to_dataframe(self, mean_row=True):
        """Return a pandas DataFrame, one row per query (index ``qid``), then ``mean``.

        pandas is imported here, on first use.
        """
        import pandas as pd

        frame = pd.DataFrame.from_dict(self.per_query, orient="index", columns=list(self.metrics))
        if mean_row:
            frame.loc["mean"] = [self.mean[m] for m in self.metrics]
        frame.index.name = "qid"
        return frame

    def __repr__(self):
        return (
            f"<Report: {len(self.metrics)} metrics over {self.n_queries} queries; "
            f"{len(self.missing_queries)} missing, {len(self.unjudged_queries)} unjudged>"
        )

    def __str__(self):
        lines = [self.to_table(per_query=False), self.signature]
        if self.missing_queries:
            lines.append(f"judged but not in the run ({self.missing}): "
                         f"{_preview(self.missing_queries)}")
        if self.unjudged_queries:
            lines.append(f"without judgements (not scored): "
                         f"{_preview(self.unjudged_queries)}")
        if self.queries_without_relevant:
            what = ("not scored" if self.without_relevant == "skip"
                    else "every binary measure 0")
            lines.append(f"no relevant document ({what}): "
                         f"{_preview(self.queries_without_relevant)}")
        return "\n".join(lines)


def _preview(qids, limit=10):
    """``'q1', 'q2', ... (12 in all)``, for printing long lists."""
    shown = ", ".join(repr(q) for q in qids[:limit])
    return shown if len(qids) <= limit else f"{shown}, ... ({len(qids)} in all)"
