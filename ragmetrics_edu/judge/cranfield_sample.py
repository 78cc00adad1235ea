"""Cranfield (query, document) pairs to hold a judge against the collection's assessors.

:func:`load_cranfield_judge_sample` loads 331 pairs over 40 Cranfield queries:
judged documents of every grade (the assessors' judgements, Cleverdon's
codes 1 to 4 as grades 4 to 1), and unjudged documents from the top 10 of
BM25's and dense retrieval's rankings, which the collection treats as not
relevant (grade 0). That last part is an assumption, not a judgement:
Cranfield's assessors judged the documents found for each question by the
methods of the 1960s, and a document ranked high by BM25 or by a sentence
encoder today may well be relevant without ever having been judged.

The sample was drawn with a fixed seed by
``tools/make_cranfield_judge_sample.py``; ``data/cranfield_judge_sample/README.md``
says how, field by field.
"""

import copy
import importlib.resources
import json

__all__ = ["load_cranfield_judge_sample"]

_FOLDER = "cranfield_judge_sample"
_FILE = "pairs.jsonl"
_CACHE = []


def load_cranfield_judge_sample():
    """The sample of Cranfield (query, document) pairs for judging, as a list of dicts.

    Returns
    -------
    list of dict
        A fresh copy on every call, one dict per pair, ordered by query then
        grade (best first) and origin. Keys:

        * ``pair_id`` (``"q1-d378"``), ``qid`` and ``docid`` (the ids of
          ``load_cranfield()``: ``cranqrel`` numbering for queries);
        * ``query``, ``text``: the query and the document's title and
          abstract, as the judge will read them;
        * ``judged`` (bool), ``code`` (Cleverdon's code 1..4, ``None`` if
          unjudged), ``grade`` (``5 - code``; 0 for an unjudged document,
          the collection's assumption);
        * ``origin``: ``"qrels"`` (a judged document drawn from the
          judgements), ``"bm25"`` or ``"dense"`` (an unjudged document from
          the top 10 of that ranking);
        * ``bm25_rank``, ``bm25_score``, ``dense_rank``, ``dense_score``:
          the document's rank (from 1) and score for the query over the whole
          collection (BM25 ranks only documents sharing a term with the
          query: ``bm25_rank`` is ``None`` and the score 0 for the others).

    Examples
    --------
    >>> pairs = load_cranfield_judge_sample()
    >>> len(pairs), len({p["qid"] for p in pairs})
    (331, 40)
    >>> sorted({p["grade"] for p in pairs})   # every grade, and 0 for unjudged
    [0, 1, 2, 3, 4]
    >>> p = pairs[0]
    >>> p["pair_id"], p["code"], p["grade"]   # code 2 -> grade 5 - 2
    ('q1-d378', 2, 3)
    """
    if not _CACHE:
        resource = importlib.resources.files("ragmetrics_edu").joinpath("data", _FOLDER, _FILE)
        with resource.open("r", encoding="utf-8") as f:
            _CACHE.extend(json.loads(line) for line in f if line.strip())
    return copy.deepcopy(_CACHE)
