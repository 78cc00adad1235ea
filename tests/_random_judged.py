"""Random judged runs shared by the cross-checks of PR-curve, incomplete and user-model measures.

Each query gets a run with tied scores, a qrels with grades -2..4 that
covers only some of the retrieved documents (the rest are unjudged), and
sometimes no relevant document at all.  The helpers turn one query into the
grades in rank order that the single-query functions take, for a stated
tie rule.
"""

import numpy as np

# ids whose string order differs from their numeric order
POOL = [str(i) for i in range(1, 40)] + list("abcdefgh") + ["A", "B", "d1", "d10", "d9"]


def random_collection(seed, n_queries=300, *, ties=True, max_grade=4, min_grade=-2,
                      min_retrieved=1, max_retrieved=30, numeric_qids=False):
    """``(qrels, run)`` dictionaries with every awkward case.

    ``ties=False`` gives each query distinct scores (for references whose tie
    rule is not trec_eval's).  Every query has at least one judgement, and at
    least one non-negative one (pytrec_eval 0.5 misbehaves on queries judged
    only with negative grades).
    """
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        qid = str(q + 1) if numeric_qids else f"q{q}"
        n_ret = int(rng.integers(min_retrieved, max_retrieved + 1))
        docs = [POOL[i] for i in rng.choice(len(POOL), n_ret, replace=False)]
        if ties and rng.random() < 0.5:
            scores = rng.integers(0, 4, n_ret).astype(float)  # many ties
        else:
            scores = rng.permutation(n_ret).astype(float) + 0.5  # distinct, exact in float32
        run[qid] = {d: float(s) for d, s in zip(docs, scores)}
        # judge some retrieved documents and some that were not retrieved
        n_judged = int(rng.integers(1, 25))
        judged = [POOL[i] for i in rng.choice(len(POOL), n_judged, replace=False)]
        high = 1 if rng.random() < 0.15 else max_grade + 1  # some queries: nothing relevant
        grades = rng.integers(min_grade, high, n_judged)
        qrels[qid] = {d: int(g) for d, g in zip(judged, grades)}
        if max(qrels[qid].values()) < 0:
            qrels[qid][judged[0]] = 0
    return qrels, run


def trec_eval_order(scores):
    """Document ids by score (as a 32-bit float) descending, ties by id descending."""
    return sorted(scores, key=lambda d: (np.float32(scores[d]), d), reverse=True)


def score_order(scores):
    """Document ids by score descending; only for queries without ties."""
    values = list(scores.values())
    if len(set(values)) != len(values):
        raise ValueError("score_order needs distinct scores")
    return sorted(scores, key=lambda d: scores[d], reverse=True)


def graded_ranking(judgements, ranked_ids):
    """Grades in rank order: the judged grade, or None for an unjudged document."""
    return [judgements.get(d) for d in ranked_ids]


def binary_ranking(judgements, ranked_ids):
    """Grades in rank order for the binary measures: negative and unjudged become 0."""
    return [max(judgements.get(d, 0), 0) for d in ranked_ids]
