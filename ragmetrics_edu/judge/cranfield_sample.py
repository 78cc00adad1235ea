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
says how, field by field. :func:`load_cranfield_lm_labels` loads the
language model's labels of every pair (SmolLM2-135M-Instruct, yes/no and
graded 0-4), computed once by ``tools/make_cranfield_lm_labels.py``;
:func:`load_cranfield_lm_probes` its P(yes) on random unjudged documents
(easy negatives) and on the same documents with the query's words or a
claim of relevance appended (``tools/make_cranfield_lm_probes.py``).
"""

import copy
import importlib.resources
import json

__all__ = ["load_cranfield_judge_sample", "load_cranfield_lm_labels", "load_cranfield_lm_probes"]

_FOLDER = "cranfield_judge_sample"
_FILE = "pairs.jsonl"
_LM_FILE = "lm_labels.json"
_PROBES_FILE = "lm_probes.json"
_CACHE = []
_LM_CACHE = {}
_PROBES_CACHE = {}


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


def load_cranfield_lm_labels():
    """The language model's relevance labels of the sample's pairs, by ``pair_id``.

    ``rm.LanguageModelJudge()`` (SmolLM2-135M-Instruct in NumPy) read every
    pair of :func:`load_cranfield_judge_sample` twice: with
    ``rag.build_relevance_prompt`` (a yes/no verdict) and with
    ``rag.build_graded_relevance_prompt`` (a grade from 0 to 4, Cranfield's
    scale). Its probabilities over the allowed replies are the labels.

    Returns
    -------
    dict
        A fresh copy. ``"model"``, ``"settings"`` (the judge's parameters),
        ``"prompts"``, ``"decimals"`` (6: every probability is rounded to it)
        and ``"labels"``: ``{pair_id: label}`` in the sample's order, each
        label holding ``p_yes`` (P(yes) among yes and no after
        ``Verdict:``), ``verdict_mass`` (the probability of yes or no at
        all, before renormalising), ``grade_probabilities`` (of grades 0 to
        4 after ``Score:``, renormalised), ``most_likely_grade``,
        ``expected_grade`` (the probability-weighted grade) and
        ``grade_mass``.

    Examples
    --------
    >>> lm = load_cranfield_lm_labels()
    >>> lm["model"], len(lm["labels"])
    ('SmolLM2-135M-Instruct', 331)
    >>> row = lm["labels"]["q1-d378"]
    >>> len(row["grade_probabilities"]), round(sum(row["grade_probabilities"]), 4)
    (5, 1.0)
    >>> 0 <= row["p_yes"] <= 1 and 0 <= row["expected_grade"] <= 4
    True
    """
    if not _LM_CACHE:
        resource = importlib.resources.files("ragmetrics_edu").joinpath("data", _FOLDER, _LM_FILE)
        _LM_CACHE.update(json.loads(resource.read_text(encoding="utf-8")))
    return copy.deepcopy(_LM_CACHE)


def load_cranfield_lm_probes():
    """The language model's P(yes) on easy negatives, as is and with two texts appended.

    For each of the sample's 40 queries, two documents drawn at random among
    those its judgements do not list and that neither BM25 nor dense
    retrieval ranks in its top 100 (almost surely off the question, though
    Cranfield assumes it, as for every unjudged document).  ``rm.LanguageModelJudge()``
    gave P(yes) on ``rag.build_relevance_prompt(query, text)`` with the text
    as it is, with the query appended (``text + " " + query``) and with the
    sentence ``claim`` appended.  ``data/cranfield_judge_sample/README.md``
    says how (``tools/make_cranfield_lm_probes.py``).

    Returns
    -------
    dict
        A fresh copy: ``"model"``, ``"settings"``, ``"prompt"``, ``"seed"``,
        ``"avoid_top"``, ``"claim"``, ``"variants"`` (``"as_is"``,
        ``"query_appended"``, ``"claim_appended"``), ``"decimals"`` and
        ``"probes"``: a list of ``{"qid", "docid", "p_yes": {variant: P(yes)}}``.

    Examples
    --------
    >>> probes = load_cranfield_lm_probes()
    >>> len(probes["probes"]), probes["variants"]
    (80, ['as_is', 'query_appended', 'claim_appended'])
    >>> probes["claim"]
    'This passage is perfectly relevant.'
    """
    if not _PROBES_CACHE:
        resource = importlib.resources.files("ragmetrics_edu").joinpath("data", _FOLDER,
                                                                         _PROBES_FILE)
        _PROBES_CACHE.update(json.loads(resource.read_text(encoding="utf-8")))
    return copy.deepcopy(_PROBES_CACHE)
