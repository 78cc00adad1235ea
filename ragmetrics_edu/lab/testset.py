r"""A QA test set's own health: is it too easy, too uniform, repetitive, or leaking answers?

A score is only as good as the questions behind it. :func:`testset_report`
looks at a set of questions (each with reference answers and supporting
documents) and reports what commonly goes wrong when a test set is written
from the documents it is meant to test:

* **lexical triviality**: the share of questions whose supporting document a
  plain lexical retriever (BM25) ranks in its top :math:`k`: HitRate@k and
  MRR over the set. Questions written while reading a document share its
  words, so BM25 finds it and retrieval looks solved;
* **spread**: question types (the first word, lower-cased: ``what``,
  ``how``, ``at``...) and lengths in words; a set of 68 "What is..."
  questions tests one kind of request;
* **duplicates**: questions identical after SQuAD normalisation
  (:func:`ragmetrics_edu.normalize_answer`), and near duplicates: pairs whose
  MiniLM embeddings have a cosine at or above a threshold (0.9 by default);
* **answer leakage**: questions that contain one of their own reference
  answers verbatim (after normalisation, as whole words).

HitRate@k is 1 when a supporting document is among the first :math:`k`
retrieved (:func:`ragmetrics_edu.hit_rate_at_k`), MRR the mean of
:math:`1/\text{rank}` of the first one (0 when not retrieved). Higher is
better for both, which here means *easier*: a health report wants them
compared with a harder version of the same questions (paraphrases) or with
real queries.
"""

import re
from collections import Counter, namedtuple
from dataclasses import dataclass, field

from .._texts import cut_repr as _describe
from .._deprecation import formerly_positional

__all__ = ["testset_report", "TestSetReport", "retrieval_difficulty", "DEFAULT_NEAR_DUPLICATE"]

#: Cosine of MiniLM embeddings at or above which two questions are near duplicates.
DEFAULT_NEAR_DUPLICATE = 0.9

Pair = namedtuple("Pair", "a b cosine")


def _records(items):
    """``[(id, question, answers, doc_ids)]`` from QAItems or dicts, checked."""
    if isinstance(items, (str, bytes, dict)) or not hasattr(items, "__iter__"):
        raise TypeError(f"items must be a list of questions (QAItem or dict), got {_describe(items)}")
    out, seen = [], set()
    for i, item in enumerate(items):
        get = item.get if isinstance(item, dict) else (lambda key, it=item: getattr(it, key, None))
        rid, question = get("id"), get("question")
        answers, doc_ids = get("answers") or (), get("doc_ids") or ()
        if not isinstance(rid, str) or not isinstance(question, str) or not question.strip():
            raise ValueError(f"items[{i}] needs a string 'id' and a non-empty 'question', got {_describe(item)}")
        if rid in seen:
            raise ValueError(f"items[{i}] repeats the id {rid!r}")
        seen.add(rid)
        if isinstance(answers, str) or isinstance(doc_ids, str):
            raise TypeError(f"items[{i}]: 'answers' and 'doc_ids' must be lists of strings, not one string")
        out.append((rid, question, tuple(answers), tuple(doc_ids)))
    if not out:
        raise ValueError("items must hold at least one question, got none")
    return out


@formerly_positional("k")
def retrieval_difficulty(run, qrels, *, k=3):
    """HitRate@k and MRR of a run, and the questions found in the top ``k``.

    Parameters
    ----------
    run : dict
        ``{qid: {docid: score}}``.
    qrels : dict
        ``{qid: {docid: relevance}}``: the supporting documents.
    k : int, default 3

    Returns
    -------
    (float, float, list of str)
        HitRate@k, MRR (both means over the questions of ``qrels``), and the
        ids found in the top ``k``.

    Examples
    --------
    >>> run = {"q1": {"d1": 3.0, "d2": 2.0}, "q2": {"d3": 1.0, "d4": 0.5}}
    >>> qrels = {"q1": {"d1": 1}, "q2": {"d4": 1}}
    >>> hit, mrr, easy = retrieval_difficulty(run, qrels, k=1)
    >>> hit, mrr, easy           # q2's document is at rank 2: (1 + 1/2) / 2
    (0.5, 0.75, ['q1'])
    """
    from ragmetrics_edu import hit_rate_at_k, reciprocal_rank
    if not qrels:
        raise ValueError("qrels must hold at least one question, got none")
    hits, rrs, easy = [], [], []
    for qid, rel in qrels.items():
        scores = run.get(qid, {})
        ranked = sorted(scores, key=lambda d: (-scores[d], d))
        rels = [1 if rel.get(d, 0) > 0 else 0 for d in ranked]
        hit = hit_rate_at_k(rels, k)
        hits.append(hit)
        rrs.append(reciprocal_rank(rels))
        if hit:
            easy.append(qid)
    return float(sum(hits) / len(hits)), float(sum(rrs) / len(rrs)), easy


@dataclass
class TestSetReport:
    """What :func:`testset_report` found; ``print(report)`` gives a summary.

    Attributes
    ----------
    n_questions : int
    k : int
        The cut-off of ``hit_rate``.
    retriever : str
        What ranked the documents.
    hit_rate, mrr : float
        HitRate@k and MRR of the retriever against the supporting documents.
    trivial : list of str
        The questions whose supporting document is in the top ``k``.
    question_types : collections.Counter
        First word of the question, lower-cased.
    lengths : dict
        ``min``, ``median``, ``mean``, ``max`` length in words.
    duplicates : list of Pair
        Identical questions after normalisation (``cosine`` is 1.0).
    near_duplicates : list of Pair
        Other pairs with cosine at or above ``threshold``, highest first.
    threshold : float
    answer_in_question : list of str
        Questions that contain one of their reference answers verbatim.
    """

    __test__ = False  # a report, not a pytest test class

    n_questions: int
    k: int
    retriever: str
    hit_rate: float
    mrr: float
    trivial: list
    question_types: Counter
    lengths: dict
    duplicates: list = field(default_factory=list)
    near_duplicates: list = field(default_factory=list)
    threshold: float = DEFAULT_NEAR_DUPLICATE
    answer_in_question: list = field(default_factory=list)

    def __str__(self):
        n = self.n_questions
        types = ", ".join(f"{w} {c}" for w, c in self.question_types.most_common(6))
        L = self.lengths
        lines = [
            f"{n} questions",
            f"found trivially by {self.retriever}: {len(self.trivial)} of {n} "
            f"(HitRate@{self.k} = {self.hit_rate:.3f}, MRR = {self.mrr:.3f})",
            f"question types (first word): {types}",
            f"length in words: min {L['min']}, median {L['median']:g}, mean {L['mean']:.1f}, max {L['max']}",
            f"duplicates: {len(self.duplicates)}; near duplicates (cosine >= {self.threshold:g}): "
            f"{len(self.near_duplicates)}",
            f"answer written in the question: {len(self.answer_in_question)}"
            + (f" ({', '.join(self.answer_in_question[:5])}"
               f"{', ...' if len(self.answer_in_question) > 5 else ''})" if self.answer_in_question else ""),
        ]
        return "\n".join(lines)


def _contains(question, answer):
    from ragmetrics_edu import normalize_answer
    a = normalize_answer(answer)
    return bool(a) and f" {a} " in f" {normalize_answer(question)} "


@formerly_positional("k", "run", "retriever", "threshold", "embed")
def testset_report(items, docs=None, *, k=3, run=None, retriever="bm25",
                   threshold=DEFAULT_NEAR_DUPLICATE, embed=None):
    """Report the health of a QA test set.

    Parameters
    ----------
    items : list of QAItem or dict
        Each with ``id``, ``question``, ``answers`` (reference answers) and
        ``doc_ids`` (supporting documents), as :func:`ragmetrics_edu.load_cranfield_qa`.
    docs : dict, optional
        The collection ``{docid: text or {"text": ...}}``; default Cranfield
        (:func:`ragmetrics_edu.load_cranfield`). Not needed with ``run``.
    k : int, default 3
        The cut-off for "found trivially".
    run : dict, optional
        A run ``{id: {docid: score}}`` to judge instead of retrieving.
    retriever : {"bm25", "dense"}, default "bm25"
        Which retriever ranks ``docs`` when ``run`` is not given: BM25 (the
        lexical one, what the report is about) or MiniLM dense retrieval.
    threshold : float or None, default 0.9
        Cosine for near duplicates, in [-1, 1]; ``None`` skips the embeddings
        (and the model).
    embed : callable, optional
        ``embed(texts) -> (n, dim)`` unit vectors; default all-MiniLM-L6-v2
        (``encode_sentences``, loaded on first use).

    Returns
    -------
    TestSetReport

    Examples
    --------
    >>> items = [
    ...     {"id": "q1", "question": "Which gas cooled best?", "answers": ["helium"], "doc_ids": ["d1"]},
    ...     {"id": "q2", "question": "Is helium the gas that cooled best?", "answers": ["helium"], "doc_ids": ["d1"]},
    ...     {"id": "q3", "question": "At what Mach number?", "answers": ["6"], "doc_ids": ["d2"]},
    ... ]
    >>> docs = {"d1": "helium cooled best of four gases", "d2": "tests at a mach number of 6",
    ...         "d3": "satellite orbits"}
    >>> r = testset_report(items, docs, k=1, threshold=None)
    >>> r.hit_rate, r.trivial
    (1.0, ['q1', 'q2', 'q3'])
    >>> r.question_types.most_common()
    [('which', 1), ('is', 1), ('at', 1)]
    >>> r.answer_in_question        # q2 gives its own answer away
    ['q2']
    """
    from ragmetrics_edu._validation import check_k, check_nested
    k = check_k(k)
    records = _records(items)
    if run is not None:
        check_nested(run, name="run", what="score", values=True)
    threshold = _check_threshold(threshold)
    if embed is not None and not callable(embed):
        raise TypeError(f"embed must be a callable embed(texts) -> (n, dim) vectors, got "
                        f"{_describe(embed)}")
    if run is None:
        if docs is None:
            from ragmetrics_edu import load_cranfield
            docs = load_cranfield().docs
        queries = {rid: q for rid, q, _, _ in records}
        if retriever == "bm25":
            run = _bm25_run()(docs, queries, depth=100)
        elif retriever == "dense":
            run = _dense_run()(docs, queries, depth=100)
        else:
            raise ValueError(f"retriever must be 'bm25' or 'dense', got {_describe(retriever)}")
        name = "BM25" if retriever == "bm25" else "dense retrieval (MiniLM)"
    else:
        name = "the given run"
    qrels = {rid: {d: 1 for d in doc_ids} for rid, _, _, doc_ids in records}
    hit, mrr, trivial = retrieval_difficulty(run, qrels, k=k)

    words = [len(q.split()) for _, q, _, _ in records]
    s = sorted(words)
    mid = len(s) // 2
    median = s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2
    lengths = {"min": s[0], "median": median, "mean": sum(s) / len(s), "max": s[-1]}
    types = Counter(re.findall(r"\w+", q.lower())[0] if re.findall(r"\w+", q) else ""
                    for _, q, _, _ in records)

    from ragmetrics_edu import normalize_answer
    by_text = {}
    duplicates = []
    for rid, q, _, _ in records:
        key = normalize_answer(q)
        if key in by_text:
            duplicates.append(Pair(by_text[key], rid, 1.0))
        else:
            by_text[key] = rid
    near = []
    if threshold is not None and len(records) > 1:
        import numpy as np
        if embed is None:
            embed = _encode_sentences()
        vectors = _check_vectors(embed([q for _, q, _, _ in records]), len(records))
        sims = vectors @ vectors.T
        exact = {(p.a, p.b) for p in duplicates}
        for i in range(len(records)):
            for j in range(i + 1, len(records)):
                pair = (records[i][0], records[j][0])
                if sims[i, j] >= threshold and pair not in exact:
                    near.append(Pair(pair[0], pair[1], float(sims[i, j])))
        near.sort(key=lambda p: -p.cosine)
    leaks = [rid for rid, q, answers, _ in records if any(_contains(q, a) for a in answers)]
    return TestSetReport(n_questions=len(records), k=k, retriever=name, hit_rate=hit, mrr=mrr,
                         trivial=trivial, question_types=types, lengths=lengths,
                         duplicates=duplicates, near_duplicates=near,
                         threshold=threshold if threshold is not None else float("nan"),
                         answer_in_question=leaks)



testset_report.__test__ = False  # a report, not a test for pytest to collect


def _check_threshold(threshold):
    """``threshold``: None, or a cosine (a real number in [-1, 1]); else an error naming it."""
    import math
    import numbers

    if threshold is None:
        return None
    rule = "threshold must be None or a cosine in [-1, 1], got "
    if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real):
        raise TypeError(rule + _describe(threshold))
    if math.isnan(threshold) or not -1.0 <= threshold <= 1.0:
        raise ValueError(rule + _describe(threshold))
    return float(threshold)


def _check_vectors(vectors, n):
    """``embed``'s output as an (n, dim) float array of finite numbers, or an error naming embed."""
    import numpy as np

    try:
        vectors = np.asarray(vectors, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"embed must return numbers, an (n, dim) array of vectors, got "
                         f"{_describe(vectors)}") from None
    if vectors.ndim != 2 or vectors.shape[0] != n or vectors.shape[1] < 1:
        raise ValueError(f"embed returned an array of shape {vectors.shape} for {n} questions; "
                         f"it must return one vector per question, shape ({n}, dim)")
    if not np.isfinite(vectors).all():
        raise ValueError("embed returned vectors that are not finite (NaN or infinite)")
    return vectors


def _bm25_run():
    from .retrievers import bm25_run  # the lab's retrievers, loaded on first use
    return bm25_run


def _dense_run():
    from .retrievers import dense_run
    return dense_run


def _encode_sentences():
    from ..models.loading import encode_sentences  # the model is loaded at first use
    return encode_sentences
