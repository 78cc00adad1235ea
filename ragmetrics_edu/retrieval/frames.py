"""Data frames in: a qrels or a run given as a table, with ir_measures' column names.

:func:`~ragmetrics_edu.evaluate`, :func:`~ragmetrics_edu.retrieval.conventions.evaluate_as`
and :func:`~ragmetrics_edu.retrieval.conventions.compare` take a qrels and a
run as nested dicts or as data frames: a pandas ``DataFrame`` with the
columns ir_measures reads (``query_id``, ``doc_id``, and ``relevance`` or
``score``), or any table with a ``to_pandas`` method (polars, Arrow).  Both
give the same numbers.  pandas stays optional: nothing here imports it.
"""

import os

__all__ = ["from_frames", "FRAME_COLUMNS"]

FRAME_COLUMNS = {"qrels": ("query_id", "doc_id", "relevance"),
                 "run": ("query_id", "doc_id", "score")}
"""The columns of a qrels and a run given as a data frame: ir_measures' names."""


def from_frames(qrels, run):
    """``qrels`` and ``run`` as nested dicts, either of them given as a data frame or a TREC file.

    A pandas ``DataFrame`` with ir_measures' columns (:data:`FRAME_COLUMNS`:
    ``query_id``, ``doc_id`` and ``relevance`` or ``score``; other columns
    are ignored), or any table with a ``to_pandas`` method (polars, Arrow),
    becomes ``{query_id: {doc_id: value}}``, its rows in order; a path is
    read by :func:`~ragmetrics_edu.retrieval.trec.read_qrels` or
    :func:`~ragmetrics_edu.retrieval.trec.read_run`; anything else is
    returned as it is (and checked as a dict later).  pandas is never
    imported here: a frame brings it.

    Parameters
    ----------
    qrels : dict, DataFrame, table or path
        The relevance judgements; a frame has the columns ``query_id``, ``doc_id``
        and ``relevance``.
    run : dict, DataFrame, table or path
        The system's ranked documents; a frame has the columns ``query_id``,
        ``doc_id`` and ``score``.

    Examples
    --------
    >>> import pandas as pd
    >>> run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [0.5, 0.9]})
    >>> from_frames({"q1": {"a": 1}}, run)[1]
    {'q1': {'a': 0.5, 'b': 0.9}}
    """
    return _nested(qrels, "qrels"), _nested(run, "run")


def _nested(table, name):
    if isinstance(table, dict):
        return table
    if isinstance(table, (str, os.PathLike)):  # a TREC file
        from .trec import read_qrels, read_run

        return read_qrels(table) if name == "qrels" else read_run(table)
    if hasattr(table, "to_pandas") and not hasattr(table, "itertuples"):
        table = table.to_pandas()  # polars, Arrow: through pandas
    if not (hasattr(table, "columns") and hasattr(table, "itertuples")):
        return table  # not a frame: the dict checks name it
    columns = FRAME_COLUMNS[name]
    absent = [c for c in columns if c not in table.columns]
    if absent:
        raise ValueError(
            f"{name} as a data frame needs the columns {', '.join(map(repr, columns))} "
            f"(ir_measures' names); {', '.join(map(repr, absent))} missing, got the columns "
            f"{list(map(str, table.columns))[:10]}")
    nested = {}
    rows = zip(*(table[c].tolist() for c in columns))
    for i, (qid, docid, value) in enumerate(rows):
        inner = nested.setdefault(qid, {})
        if docid in inner:
            raise ValueError(f"{name}: document {docid!r} of query {qid!r} is on two rows "
                             f"(the first and row {i} of the frame)")
        inner[docid] = value
    return nested
