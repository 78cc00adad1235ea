"""Build the solved notebooks solutions/07_rag_lab and solutions/08_conventions.

Like ``build_notebooks_retrieval.py``, this only writes the solved notebooks
(unexecuted); the student twins and the outputs come from make_student::

    python tools/build_notebooks_lab.py            # writes solutions/07 and 08
    python tools/make_student.py --execute 07 08   # executes them, writes notebooks/
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_notebooks_retrieval import code, md, nav, write_notebook  # noqa: E402

# ===================================================================== 08

def conventions():
    stem = "08_conventions"
    return stem, [
        nav(stem),
        md(r"""
# 08 · Conventions: why two libraries report different numbers

**Intuition.**  Notebooks 01-03 wrote each metric as one formula.  A library
has to decide a few more things the formula does not say: which of two
documents with the *same score* comes first, and whether 0.5 and
0.500000001 are the same score; whether the gain of a grade $g$ is $g$ or
$2^g - 1$; whether the ideal ranking behind IDCG contains the documents the
system never found; whether Average Precision divides by all relevant
documents, by those retrieved, or by $\min(k, R)$; what P@10 is when only 4
documents came back; and what a query missing from the run counts for.
Each choice is reasonable; together they move "NDCG@5" on the same run
between 0.39 and 0.85 below.

This notebook scores **one run** under every convention, next to what
pytrec_eval (trec_eval's C code), ranx and scikit-learn really report and
what the formulas of a RAG library (ragas) and of our seed slides give, and
shows which step makes the numbers differ.  The library keeps each choice
in a **preset** (`rm.conventions.PRESETS`) with a link to where the library
makes it; `rm.evaluate(qrels, run, metrics, conventions="ranx")` and
`rm.conventions.evaluate_as(qrels, run, metrics, conventions=...)`
recompute the numbers with the readable functions of notebooks 01-03.
"""),
        code(r"""
import math
import warnings

import ragmetrics_edu as rm
from ragmetrics_edu import conventions as rc

# four judged queries; q4 was never run.  Grades 0-3.
qrels = {
    "q1": {"d1": 3, "d2": 0, "d3": 2, "d4": 1, "d9": 3},   # d9 (grade 3) is never retrieved
    "q2": {"d10": 1, "d9": 0, "d5": 0, "d6": 2},            # d6 (grade 2) is never retrieved
    "q3": {"d7": 2, "d8": 1},
    "q4": {"d6": 1},
}
run = {
    "q1": {"d2": 0.9, "d1": 0.8, "d3": 0.8, "d5": 0.4, "d4": 0.3},  # d1 and d3 tie
    "q2": {"d10": 0.7, "d9": 0.7, "d5": 0.2},                       # d10 and d9 tie
    "q3": {"d8": 0.5, "d7": 0.3},                                   # only 2 documents
}
metrics = ["P@5", "map", "map@3", "ndcg@5"]  # map@3: AP of the top 3 (trec_eval's map_cut_3)
"""),
        md(r"""
## The presets

One dataclass per library.  `where` says in which file or page the library
makes its choices.
"""),
        code(r"""
fields = ["ties", "scores", "gain", "ideal", "ap_denominator", "precision_denominator", "missing"]
print(f"{'preset':<12}" + "".join(f"{f:<22}" for f in fields))
for name, preset in rc.PRESETS.items():
    print(f"{name:<12}" + "".join(f"{getattr(preset, f):<22}" for f in fields))
print()
print("ranx:", rc.PRESETS["ranx"].where)
"""),
        md(r"""
## One run, every convention, one step at a time

Start from trec_eval's conventions and change **one choice per row**,
keeping the changes above it: four paths, toward ranx, toward
scikit-learn, AP@k over $\min(k, R)$, and the P@k padding.  A value in
`[brackets]` changed at that row; the column `changed` names the choice
that did it.
"""),
        code(r"""
trec = rc.PRESETS["trec_eval"]
chains = {
    "toward ranx": [
        ("missing=zero (trec_eval -c)", dict(missing="zero")),
        ("ties=input, float64 (= ranx)", dict(ties="input", scores="float64")),
        ("gain=exponential", dict(gain="exponential")),
    ],
    "toward scikit-learn": [
        ("ideal=retrieved (seeds)", dict(ideal="retrieved")),
        ("ap=retrieved_relevant", dict(ap_denominator="retrieved_relevant")),
        ("ties=average, float64 (= sklearn)", dict(ties="average", scores="float64")),
    ],
    "AP@k over min(k, R)": [("ap=min_k_relevant (Kaggle apk)", dict(ap_denominator="min_k_relevant"))],
    "P@k padding": [("precision=retrieved", dict(precision_denominator="retrieved"))],
}

print(f"{'changed':<36}" + "".join(f"{m:>10}" for m in metrics))
for title, chain in chains.items():
    print(f"-- {title}")
    changes = {}
    previous = rc.evaluate_as(qrels, run, metrics, trec).mean
    print(f"{'trec_eval':<36}" + "".join(f"{previous[m]:>10.4f}" for m in metrics))
    for label, change in chain:
        changes.update(change)  # each row keeps the changes above it
        mean = rc.evaluate_as(qrels, run, metrics, trec.replace(**changes)).mean
        cells = [f"{mean[m]:.4f}" if math.isclose(mean[m], previous[m]) else f"[{mean[m]:.4f}]"
                 for m in metrics]
        print(f"{label:<36}" + "".join(f"{c:>10}" for c in cells))
        previous = mean
q1_ap3 = {d: round(rc.evaluate_as(qrels, run, ["map@3"], trec.replace(ap_denominator=d)).per_query["q1"]["map@3"], 4)
          for d in ("all_relevant", "min_k_relevant")}
print("\nq1's AP@3:", q1_ap3)
"""),
        md(r"""
Read it row by row:

* **missing=zero**: q4 is judged but absent from the run.  trec_eval leaves
  it out of the mean (over 3 queries); `trec_eval -c` and ranx (with
  `make_comparable=True`) count it as 0 (over 4).  Every mean drops by a
  quarter.
* **ties=input, float64**: in q1, d1 and d3 tie at 0.8; in q2, d10 and d9
  tie at 0.7.  trec_eval orders ties by document id, *descending as
  strings*: d3 before d1, and "d9" before "d10" (the character "9" is larger
  than "1").  ranx keeps the order of the run: d1 before d3, d10 before d9.
  MAP, MAP@3 and NDCG move; P@5 cannot (the same documents are in the top
  5).  The other half of the row, comparing scores as 64-bit floats instead
  of trec_eval's 32-bit ones, changes nothing here: no two scores of this
  run are that close.  It gets its own example below.
* **gain=exponential**: $2^g - 1$ instead of $g$ (ranx's `ndcg_burges`).
* **ideal=retrieved**: the ideal ranking of q1 and q2 no longer contains the
  documents the system missed (d9, d6): NDCG jumps.  It judges only the
  order of what came back.
* **ap=retrieved_relevant**: AP divides by the relevant documents *found*
  (in the top 3, for MAP@3): missing a relevant document costs nothing.
* **ties=average, float64**: scikit-learn gives tied documents the average
  of their gains (NDCG) and treats them as one threshold (AP).
* **ap=min_k_relevant**: AP@k divides by $\min(k, R)$, so that a perfect top
  $k$ scores 1 even when the query has more than $k$ relevant documents.
  Only q1 has more relevant documents than $k = 3$ ($R = 4$: d1, d3, d4,
  d9): its AP@3 becomes $(1/2 + 2/3)/3 = 0.3889$ instead of
  $(1/2 + 2/3)/4 = 0.2917$.  q2 and q3 have 2 relevant documents, fewer
  than 3, and MAP without a cut-off divides by $\min(\text{ranking length},
  R) = R$ on every query here: neither moves.  trec_eval's `map_cut_3` and
  ranx's `map@3` divide by $R$ (the table below runs both); $\min(k, R)$ is
  the `apk` of Ben Hamner's `ml_metrics` package (`score / min(len(actual),
  k)`), the MAP@k of Kaggle competitions, and of the many scripts copied
  from it.
* **precision=retrieved**: q2 returned 3 documents and q3 only 2.  Dividing
  by the number retrieved instead of 5 raises q2's P@5 from 1/5 = 0.2 to
  1/3 = 0.333 and q3's from 2/5 = 0.4 to 2/2 = 1.0; q1, with 5 documents,
  stays at 0.6, and the mean goes from 0.4 to 0.6444.
"""),
        md(r"""
## What the libraries really report

The same `qrels` and `run`, given to pytrec_eval, ranx and scikit-learn;
ragas's context precision computed with its formula.

ranx compiles its functions with numba the first time they run, which can
take 20-60 seconds (later calls, and later sessions, are fast): we call it
once for all four metrics.
"""),
        code(r"""
import numpy as np
import pytrec_eval
import ranx
from sklearn.metrics import average_precision_score, ndcg_score

# numba's "unsafe cast" notice, printed while it compiles ranx (its first use)
warnings.filterwarnings("ignore", message="unsafe cast")

trec_names = {"P@5": "P_5", "map": "map", "map@3": "map_cut_3", "ndcg@5": "ndcg_cut_5"}
pytrec = pytrec_eval.RelevanceEvaluator(qrels, set(trec_names.values())).evaluate(run)
pytrec_mean = {m: np.mean([v[t] for v in pytrec.values()]) for m, t in trec_names.items()}

ranx_names = {"P@5": "precision@5", "map": "map", "map@3": "map@3", "ndcg@5": "ndcg@5"}
ranx_scores = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), list(ranx_names.values()),
                            make_comparable=True)
ranx_mean = {m: ranx_scores[name] for m, name in ranx_names.items()}

scored = sorted(set(qrels) & set(run))  # the queries both judged and run


def sklearn_inputs(qid):
    # scikit-learn sees only the items it is passed: the retrieved documents
    docs = list(run[qid])
    return [qrels[qid].get(d, 0) for d in docs], [run[qid][d] for d in docs]


sk = {"map": [], "ndcg@5": []}
for qid in scored:
    y_true, y_score = sklearn_inputs(qid)
    sk["map"].append(average_precision_score([int(g >= 1) for g in y_true], y_score))
    sk["ndcg@5"].append(ndcg_score([y_true], [y_score], k=5))
sk_mean = {"P@5": None, "map": np.mean(sk["map"]), "map@3": None, "ndcg@5": np.mean(sk["ndcg@5"])}


def verdicts(qid):
    # ragas asks a judge about each retrieved chunk; here the qrels give the verdicts
    return [qrels[qid].get(d, 0) >= 1 for d in run[qid]]


ragas_mean = {"P@5": None,
              "map": np.mean([rm.rag.context_precision(verdicts(q)) for q in scored]),
              "map@3": np.mean([rm.rag.context_precision(verdicts(q), k=3) for q in scored]),
              "ndcg@5": None}

ours = rc.compare(qrels, run, metrics, ["trec_eval", "ranx", "sklearn", "ragas", "seeds"])
ours["sklearn"]["map@3"] = None  # scikit-learn has no AP with a cut-off to compare with
rows = [("pytrec_eval", pytrec_mean), ("preset 'trec_eval'", ours["trec_eval"]),
        ("ranx", ranx_mean), ("preset 'ranx'", ours["ranx"]),
        ("scikit-learn", sk_mean), ("preset 'sklearn'", ours["sklearn"]),
        ("ragas formula (context_precision)", ragas_mean), ("preset 'ragas'", ours["ragas"]),
        ("preset 'seeds' (the slides)", ours["seeds"])]
print(f"{'':<35}" + "".join(f"{m:>10}" for m in metrics))
for label, row in rows:
    print(f"{label:<35}" + "".join(f"{'-' if row[m] is None else format(row[m], '.4f'):>10}"
                                   for m in metrics))
"""),
        md(r"""
The presets `'trec_eval'`, `'ranx'` and `'sklearn'` reproduce their
libraries (the tests in `tests/test_conventions.py` check this on 300
random queries with ties, missing queries and queries without relevant
documents).  A `-` is a number the library does not
compute: scikit-learn has no P@k of a ranking and no AP with a cut-off,
and ragas's context precision is an AP, not a P@k or an NDCG.

**ragas is not run here.**  Its context precision asks an LLM whether each
retrieved chunk is useful, so running it needs a model (and usually an API
key).  What it does with the verdicts is plain arithmetic, the formula of
its documentation page and of `_calculate_average_precision` in its
`metrics/_context_precision.py`: the sum of P@k at the useful chunks,
divided by the number of useful chunks *retrieved*.  With the judgements
standing in for the judge's verdicts, `rm.rag.context_precision` and the
preset `'ragas'` compute it: AP over the relevant documents retrieved, in
the order the run gives them, over the queries ragas is given (q4 is not
one).  ragas adds $10^{-10}$ to its denominator, so a perfect list scores
0.9999999999 there and 1.0 here: the same number at four decimals.

The preset `'seeds'` is what the slides and the blog post of notebooks
01-03 compute: ranks in the order given, IDCG from the ranked list, AP over
all relevant documents.  Its NDCG@5, 0.8495, is the highest of the table,
more than 1.5 times trec_eval's 0.5325 for the same run.

### Score precision, the seventh choice

trec_eval reads scores into a C `float` (32 bits, about 7 significant
digits), so two scores that differ only after the seventh digit tie, and
the tie goes to the larger document id.  ranx, scikit-learn and Python
compare 64-bit floats.  One query, two documents whose scores differ by
$10^{-9}$; the two presets differ only in `scores`:
"""),
        code(r"""
close_qrels = {"q": {"a": 1}}
close_run = {"q": {"a": 0.5 + 1e-9, "b": 0.5}}  # the relevant a scores higher, by 1e-9
rr_of = {
    "pytrec_eval": pytrec_eval.RelevanceEvaluator(close_qrels, {"recip_rank"}).evaluate(close_run)["q"]["recip_rank"],
    "scores=float32 (trec_eval)": rc.evaluate_as(close_qrels, close_run, ["mrr"], trec).mean["mrr"],
    "scores=float64": rc.evaluate_as(close_qrels, close_run, ["mrr"], trec.replace(scores="float64")).mean["mrr"],
    "ranx": float(ranx.evaluate(ranx.Qrels(close_qrels), ranx.Run(close_run), "mrr")),
}
print("equal as float32?", np.float32(0.5 + 1e-9) == np.float32(0.5))
for label, value in rr_of.items():
    print(f"{label:<28} RR {value}")
"""),
        md(r"""
As 32-bit floats the two scores are equal: trec_eval ranks b (the larger
id) first and the relevant a second.  Scores that close are rare, but a
single pair is enough to change a query's RR from 1 to 0.5; breaking ties
yourself (Exercise 2) removes this difference too.

`rm.evaluate`, the fast path used in the other notebooks, follows
trec_eval:
"""),
        code(r"""
report = rm.evaluate(qrels, run, metrics)
print({m: round(v, 4) for m, v in report.mean.items()})
print(report.signature)
"""),
        md(r"""
`rm.evaluate` takes the presets too, as `conventions=`; `gain=` and
`missing=` given beside a preset override its choice.  Presets that differ
from trec_eval only in gain and missing queries stay on the fast path (a
`Report`); the others are computed by `evaluate_as` (a `ConventionReport`,
which is a `Report` that also carries its preset).  Every report's
`signature` names the choices behind its numbers:
"""),
        code(r"""
for name in ["trec_eval", "trec_eval_c", "ranx", "sklearn"]:
    report = rm.evaluate(qrels, run, ["map", "ndcg@5"], conventions=name)
    means = "  ".join(f"{m} {v:.4f}" for m, v in report.mean.items())
    print(f"{name:<12} {type(report).__name__:<17} {means}")
burges = rm.evaluate(qrels, run, ["ndcg@5"], conventions="ranx", gain="exponential")
print(f"{'ranx, 2^g-1':<12} {type(burges).__name__:<17} ndcg@5 {burges.mean['ndcg@5']:.4f}")
print(burges.signature)
"""),
        md(r"""
## RAG names and IR names

RAG libraries renamed several classic metrics.  The formulas are the same;
the conventions are not always.

| RAG library name | classic IR name | convention to watch |
| --- | --- | --- |
| context precision (ragas, DeepEval) | Average Precision | divides by the relevant chunks **retrieved**, not by all relevant documents (`ap_denominator="retrieved_relevant"`, preset `"ragas"`) |
| context recall (ragas, DeepEval) | Recall@k | a judge cannot know the relevant documents never retrieved; ragas measures the reference answer's sentences instead |
| hit rate (LlamaIndex, many tutorials) | Success@k (trec_eval `success_k`), ranx `hit_rate@k` | 1 if *any* relevant document is in the top k: not Recall@k, which is the *fraction* found |
| MRR (LlamaIndex) | reciprocal rank | the first relevant document only |
| NDCG (sklearn, tutorials) | NDCG | IDCG from the retrieved list, or from all judged documents |

Context precision and AP over retrieved relevant documents are the same
number:
"""),
        code(r"""
verdicts_example = [0, 1, 0, 1]  # the judge said chunks 2 and 4 are relevant
print("rm.rag.context_precision:          ", rm.rag.context_precision(verdicts_example))
print("AP, retrieved-relevant denominator:",
      rm.average_precision(verdicts_example, n_relevant=sum(verdicts_example),
                           denominator="retrieved_relevant"))
print("AP, 5 relevant in the collection:  ", rm.average_precision(verdicts_example, n_relevant=5))

# hit rate vs recall at 3, on q1 of our run (4 relevant documents judged)
ranked = rc.rank(run["q1"], "trec_eval")
rels = [qrels["q1"].get(d, 0) for d in ranked]
print("q1 ranked:", ranked, "grades:", rels)
print("hit rate@3 =", rm.hit_rate_at_k(rels, 3), "  recall@3 =", round(rm.recall_at_k(rels, 3, 4), 4))
"""),
        md(r"""
## The seeds' errata, collected

Every slip found in our sources while writing notebooks 01-06, from
`rm.examples.errata()`: the source's number, the right one, and why.
"""),
        code(r"""
for ex in rm.examples.errata():
    correct = round(ex.correct, 4)
    print(f"{ex.key} ({ex.seed}): stated {ex.stated!r}, correct {correct}")
    for slip in (ex.erratum, ex.label_erratum):
        if slip:
            print(f"    {slip}")
"""),
        md(r"""
## Pitfalls users really hit

### 1. The tie order changes MAP between trec_eval and ranx

A tie needs two documents with exactly the same score.  The cosine
similarities of a dense encoder almost never coincide.  BM25 gives the same
score to documents that contain the same query terms the same number of
times and have the same length (counted after stop words are removed),
which happens among the weak matches low in a ranking; and rounded scores
(a run file written with two decimals, a judge's 1-5 grades used as scores)
tie all the time.  The Cranfield runs of notebook 07:
"""),
        code(r"""
from ragmetrics_edu import retrievers as rr
from ragmetrics_edu.datasets import load_cranfield

cran = load_cranfield()
cran_runs = {"BM25": rr.bm25_run(cran.docs, cran.queries, top_k=100),
             "dense": rr.dense_run(cran.docs, cran.queries, top_k=100)}  # shipped embeddings
for name, cran_run in cran_runs.items():
    with_ties = [q for q, s in cran_run.items() if len(set(s.values())) < len(s)]
    print(f"{name:<6} {len(with_ties):>3} of {len(cran_run)} queries have tied scores in their top 100")
"""),
        md(r"""
The two libraries order ties differently.  Above, `trec_eval -c` and ranx
score the same four queries with the same rules except the tie order (and
the score precision, which does not matter on that run), and report MAP
0.4229 and 0.4854.  ranx sorts with numba's quicksort, which keeps the
run's order for ties in rankings of at most 15 documents and reorders them
unpredictably in longer rankings:
"""),
        code(r"""
docs = [f"d{i:02d}" for i in range(20)]
positions = []
for target in docs:  # where does each tied document end up?
    mrr = ranx.evaluate(ranx.Qrels({"q": {target: 1}}), ranx.Run({"q": {d: 1.0 for d in docs}}), "mrr")
    positions.append(round(1 / mrr))
print("20 tied documents, given in order d00..d19; ranx ranks them at:", positions)
print("trec_eval ranks d00 at", rc.rank({d: 1.0 for d in docs}, "trec_eval").index("d00") + 1,
      "(ids descending)")
"""),
        md(r"""
The cure: break ties yourself before evaluating (Exercise 2), and report
which tool you used.

### 2. ranx with plain dictionaries pairs queries by position

`ranx.evaluate` accepts plain dicts.  It checks that the *sets* of query ids
match, then pairs the i-th query of the qrels with the i-th query of the
run.  A run whose queries come in another order is scored against the wrong
judgements:
"""),
        code(r"""
small_qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
small_run = {"q2": {"b": 1.0, "x": 0.5}, "q1": {"a": 1.0, "y": 0.5}}  # both right at rank 1

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    plain = ranx.evaluate(small_qrels, small_run, "mrr", return_mean=False)
    objects = ranx.evaluate(ranx.Qrels(small_qrels), ranx.Run(small_run), "mrr", return_mean=False)
print("ranx, plain dicts:        ", [float(x) for x in plain])
print("ranx, Qrels/Run objects:  ", [float(x) for x in objects])
print("rm.evaluate:              ", {q: v["mrr"] for q, v in rm.evaluate(small_qrels, small_run, ["mrr"]).per_query.items()})
"""),
        md(r"""
MRR 0.0 where 1.0 is right, without an error.  Build `ranx.Qrels` and
`ranx.Run` (they sort the query ids), or sort your dicts by query id.

### 3. scikit-learn sees only the items it is passed

`ndcg_score` and `average_precision_score` know nothing of the documents
the system did not return.  For q1, the grade-3 document d9 was never
retrieved: scikit-learn's NDCG@5 leaves it out of the ideal ranking, and
its AP divides by the 3 relevant documents it was passed, where trec_eval
divides by the 4 judged relevant:
"""),
        code(r"""
y_true, y_score = sklearn_inputs("q1")
print("passed to sklearn: grades", y_true, "scores", y_score)
print("sklearn ndcg@5:  ", round(ndcg_score([y_true], [y_score], k=5), 4))
print("trec_eval ndcg@5:", round(pytrec["q1"]["ndcg_cut_5"], 4),
      "(its ideal ranking starts with d1, d9: grades 3, 3)")
sk_ap = average_precision_score([int(g >= 1) for g in y_true], y_score)
print("sklearn AP:      ", round(sk_ap, 4),
      "= (2/3)(2/3) + (1/3)(3/5): 3 relevant passed; the tied d1, d3 form one threshold")
print("trec_eval AP:    ", round(pytrec["q1"]["map"], 4),
      "= (1/2 + 2/3 + 3/5) / 4: d3, d1, d4 at ranks 2, 3, 5, and d9 never found")
"""),
        md(r"""
## Exercises

### Exercise 1: which conventions did this tool use?

A colleague's tool printed these numbers for our `qrels` and `run`.  No
preset gives all four.  Write `which_conventions(numbers)` returning a
`Conventions` under which `rc.evaluate_as(qrels, run, ...)` reproduces
every number of `numbers` (rounded to 4 decimals).

Reason first: is q4 counted?  Is q3's P@5 over 5 or over 2?  Which row of
the tables above has the same MAP?  What is NDCG@5 a quarter smaller than?
Then let the function try the choices: start from
`rc.PRESETS["trec_eval"]` and `.replace(...)` the fields `ties`, `gain`,
`ideal`, `ap_denominator`, `precision_denominator` and `missing` with the
values listed in `rc.TIES`, `rc.GAINS`, `rc.IDEALS`, `rc.AP_DENOMINATORS`,
`rc.PRECISION_DENOMINATORS` and `rc.MISSING`.  The check also gives it the
printouts of two other tools.
"""),
        code(r"""
mystery = {"P@5": 0.3, "map": 0.4229, "map@3": 0.3854, "ndcg@5": 0.538}  # the colleague's printout
print(mystery)
"""),
        code(r"""
def which_conventions(numbers):
    ### BEGIN SOLUTION
    # By hand: P@5 = 0.3 = (0.6 + 0.2 + 0.4 + 0) / 4, so q4 counts as 0 (missing="zero");
    # MAP 0.4229 is trec_eval -c's (ties by id, AP over all relevant); NDCG@5 0.538 is
    # 3/4 of the "ideal=retrieved" row's 0.7173.  The search finds the same.
    import itertools

    choices = {"ties": rc.TIES, "gain": rc.GAINS, "ideal": rc.IDEALS,
               "ap_denominator": rc.AP_DENOMINATORS,
               "precision_denominator": rc.PRECISION_DENOMINATORS, "missing": rc.MISSING}
    for values in itertools.product(*choices.values()):
        candidate = rc.PRESETS["trec_eval"].replace(**dict(zip(choices, values)))
        got = rc.evaluate_as(qrels, run, list(numbers), candidate).mean
        if all(round(got[m], 4) == numbers[m] for m in numbers):
            return candidate
    return None
    ### END SOLUTION
"""),
        code(r'''
"""Check which_conventions on the colleague's printout and on the printouts of two other tools."""
trec = rc.PRESETS["trec_eval"]
tools = {  # the library computes each tool's printout
    "the colleague's tool": trec.replace(missing="zero", ideal="retrieved"),
    "a Kaggle-style script": trec.replace(ties="input", ap_denominator="min_k_relevant",
                                          precision_denominator="retrieved"),
    "a RAG dashboard": trec.replace(gain="exponential", ideal="retrieved",
                                    ap_denominator="retrieved_relevant", missing="zero"),
}
hints = {"P@5": "missing queries and the P@k denominator",
         "map": "the tie order, the AP denominator and missing queries",
         "map@3": "the tie order, the AP denominator and missing queries",
         "ndcg@5": "the tie order, the gain, the IDCG source and missing queries"}
for tool, conventions in tools.items():
    printout = {m: round(v, 4) for m, v in rc.evaluate_as(qrels, run, metrics, conventions).mean.items()}
    if tool == "the colleague's tool":
        assert printout == mystery, (
            f"the printout above is out of date: the library now gives {printout}; rebuild the notebook")
    answer = which_conventions(printout)
    assert isinstance(answer, rc.Conventions), (
        f"{tool}: which_conventions must return a Conventions, such as "
        f"rc.PRESETS['trec_eval'].replace(missing='zero'), got {answer!r}")
    got = {m: round(v, 4) for m, v in rc.evaluate_as(qrels, run, metrics, answer).mean.items()}
    wrong = [m for m in metrics if got[m] != printout[m]]
    assert not wrong, (
        f"{tool} printed {printout}; your conventions give {got}. "
        + " ".join(f"{m} depends on {hints[m]}." for m in wrong))
colleague = which_conventions(mystery)
changed = {f: getattr(colleague, f) for f in fields if getattr(colleague, f) != getattr(trec, f)}
print("which_conventions reproduces the three printouts; the colleague's tool departs from "
      "trec_eval in", changed)
'''),
        md(r"""
### Exercise 2: make two tools agree

ranx and trec_eval disagree on runs with tied scores.  Write
`break_ties(doc_scores)`: given one query's `{docid: score}`, return new
scores with **no ties** that rank the documents exactly as trec_eval does
(score descending, then document id descending as strings).  Then ranx, which
keeps any strict order, reports trec_eval's numbers.
"""),
        code(r"""
def break_ties(doc_scores):
    ### BEGIN SOLUTION
    ranked = sorted(doc_scores, key=lambda d: (doc_scores[d], d), reverse=True)
    return {d: float(len(ranked) - i) for i, d in enumerate(ranked)}
    ### END SOLUTION
"""),
        code(r'''
"""Check break_ties on several queries: no ties left, trec_eval's order, and ranx then equals trec_eval."""
twenty = {f"d{i:02d}": 1.0 for i in range(20)}  # 20 tied documents: ranx reorders them
inputs = [run["q1"], run["q2"], run["q3"], twenty,
          {"d2": 1.0, "d10": 1.0, "d1": 1.0, "d11": 0.5},  # "d2" > "d10" > "d1" as strings
          {"b": -0.5, "a": -0.5, "c": 2.0}, {"only": 0.1}]
for i, doc_scores in enumerate(inputs):
    new = break_ties(doc_scores)
    assert set(new) == set(doc_scores), f"input {i}: break_ties must keep the same documents, got {sorted(new)}"
    assert len(set(new.values())) == len(new), (
        f"input {i}: ties left in {new}: give every document its own score")
    got, want = sorted(new, key=new.get, reverse=True), rc.rank(doc_scores, "trec_eval")
    assert got == want, (f"input {i}: your scores rank {got}, trec_eval ranks {want}: score "
                         f"descending, then document id descending as strings ('d9' > 'd10')")
cases = {"our run": (qrels, run), "20 tied documents": ({"q": {"d03": 1, "d17": 2}}, {"q": twenty})}
for name, (case_qrels, case_run) in cases.items():
    fixed_run = {qid: break_ties(s) for qid, s in case_run.items()}
    as_ranx = ranx.evaluate(ranx.Qrels(case_qrels), ranx.Run(fixed_run), ["map", "ndcg@5"],
                            make_comparable=True)
    as_trec = rc.evaluate_as(case_qrels, case_run, ["map", "ndcg@5"], "trec_eval_c").mean  # ranx counts q4 too
    for m in ("map", "ndcg@5"):
        assert math.isclose(float(as_ranx[m]), as_trec[m]), (
            f"{name}: ranx gives {m} {float(as_ranx[m]):.4f} on your tie-free run, trec_eval -c "
            f"{as_trec[m]:.4f} on the original: your scores must rank every query as trec_eval does")
    print(f"ranx on the tie-free run ({name}):",
          {m: round(float(v), 4) for m, v in as_ranx.items()}, "= trec_eval -c")
'''),
        md(r"""
### Exercise 3: why does scikit-learn report a different NDCG?

scikit-learn's `ndcg_score` builds its ideal ranking from the items it is
passed.  Write `sklearn_rows(judged, doc_scores, k)` returning `(y_true,
y_score)` for one query such that `ndcg_score([y_true], [y_score], k=k)`
equals trec_eval's NDCG@k.  Pass the retrieved documents with their grades,
*and* the judged documents never retrieved, with scores below every
retrieved one, so that they enter the ideal ranking.  Careful: they must not
add to the DCG, so none of them may land in the top `k`; if fewer than `k`
documents were retrieved, first pad with grade-0 fillers (trec_eval's P@k
does the same in spirit: missing ranks count as not relevant).  Assume
distinct scores.
"""),
        code(r"""
def sklearn_rows(judged, doc_scores, k):
    ### BEGIN SOLUTION
    docs = list(doc_scores)
    y_true = [judged.get(d, 0) for d in docs]
    y_score = [doc_scores[d] for d in docs]
    lowest = min(y_score, default=0.0)
    fillers = max(k - len(docs), 0)  # grade-0 documents down to rank k
    y_true += [0] * fillers
    y_score += [lowest - 1.0 - i for i in range(fillers)]
    lowest = min(y_score, default=0.0)
    for i, (d, grade) in enumerate(sorted(judged.items())):
        if d not in doc_scores:  # judged, never retrieved: below rank k
            y_true.append(grade)
            y_score.append(lowest - 1.0 - i)
    return y_true, y_score
    ### END SOLUTION
"""),
        code(r'''
"""Check sklearn_rows: sklearn's ndcg_score on its rows equals pytrec_eval's ndcg_cut_k."""
check_run = {"q1": {"d2": 0.9, "d1": 0.8, "d3": 0.7, "d5": 0.4, "d4": 0.3},
             "q2": {"d10": 0.7, "d9": 0.6, "d5": 0.2}, "q3": {"d8": 0.5, "d7": 0.3}}
for k in (1, 3, 5):
    want = pytrec_eval.RelevanceEvaluator(qrels, {f"ndcg_cut_{k}"}).evaluate(check_run)
    for qid, doc_scores in check_run.items():
        y_true, y_score = sklearn_rows(qrels[qid], doc_scores, k)
        got = ndcg_score([y_true], [y_score], k=k)
        assert math.isclose(got, want[qid][f"ndcg_cut_{k}"]), (
            f"{qid}, k={k}: sklearn gives {got:.4f} on your rows, trec_eval "
            f"{want[qid][f'ndcg_cut_{k}']:.4f}; unretrieved judged documents in the ideal, none of them in the top k?")
print("sklearn on your rows equals trec_eval's NDCG@1, @3, @5 on every query")
'''),
        md(r"""
### Exercise 4 (discussion): which numbers go in a paper?

You compare two retrievers and report MAP and NDCG@10.  Which conventions
would you state, and what would you do about tied scores?

### BEGIN SOLUTION
State the tool and its version (or the signature line: `rm.evaluate` prints
one), the gain (linear or exponential), that IDCG uses all judged documents,
that AP (and AP@k) divides by all relevant documents, not by those retrieved
or by min(k, R), and whether missing queries count
as 0 (`trec_eval -c`) or are left out.  Tied scores make the number depend on
the tool's tie order, so break ties deterministically before evaluating (or
report that there were none), and compare systems with the same tool and
the same conventions.  trec_eval's conventions are what most IR papers use;
RAG libraries' "context precision" is a different AP and should be named as
such.
### END SOLUTION
"""),
        md(r"""
## Summary

* "MAP" and "NDCG" hide seven choices: tie order, score precision, gain,
  IDCG source, AP denominator (all relevant, retrieved relevant, or
  min(k, R)), P@k padding, missing queries.  On one small run they move
  NDCG@5 between 0.39 and 0.85.
* `rm.conventions.PRESETS` names the choices of trec_eval, `trec_eval -c`,
  ranx, scikit-learn, the seeds and ragas, with where each library makes
  them; `rm.evaluate(qrels, run, metrics, conventions=...)` (or
  `rc.evaluate_as`) reproduces each library (tested against pytrec_eval,
  ranx and scikit-learn; ragas's formula, which needs an LLM to run, through
  `rm.rag.context_precision`).
* Context precision is AP over the relevant chunks *retrieved*; hit rate is
  Success@k, not recall; the Kaggle MAP@k divides by min(k, R), trec_eval
  and ranx by R.
* Pitfalls: ties (trec_eval orders them by id, and compares scores as
  32-bit floats; ranx keeps the input order up to 15 documents), ranx
  pairing plain-dict queries by position, scikit-learn not seeing
  unretrieved documents (in NDCG's ideal ranking and in AP's denominator).
* Report the conventions with the number, and break ties before comparing
  tools.
"""),
        nav(stem),
    ]


# ===================================================================== 07

def rag_lab():
    stem = "07_rag_lab"
    return stem, [
        nav(stem),
        md(r"""
# 07 · RAG lab: evaluating three retrievers on Cranfield

**Intuition.**  Notebooks 01-03 scored one ranking at a time.  A real
evaluation scores a *system* on many queries, and then asks two questions
the single numbers cannot answer: is the difference between two systems
larger than the noise of the query sample, and do the metrics agree on
which system is better?

We use the **Cranfield 1400** collection (1,400 aeronautics abstracts, 225
questions, graded judgements; shipped with the package, nothing is
downloaded) and three retrievers a RAG pipeline could use:

1. **BM25**, the classic term-matching ranker (`rm.retrievers.bm25_run`,
   the `bm25s` package);
2. **dense retrieval** with the all-MiniLM-L6-v2 sentence encoder
   (`rm.retrievers.dense_run`; the document embeddings are shipped with the
   package, so nothing is encoded here);
3. their **reciprocal-rank fusion** (RRF, `rm.retrievers.rrf`).

Then: `rm.evaluate` (trec_eval's conventions, see notebook 08), per-query
plots, bootstrap confidence intervals, paired significance tests checked
against scipy, and the queries where the metrics disagree.
"""),
        code(r"""
import os

# the embedding model and its Cranfield embeddings are on disk: never ask the hub
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import base64
import io
import math

import matplotlib.pyplot as plt
import numpy as np
from IPython.display import display

import ragmetrics_edu as rm
from ragmetrics_edu import retrievers as rr
from ragmetrics_edu import significance as sig
from ragmetrics_edu.datasets import load_cranfield

cran = load_cranfield()  # grades 1 (minimum interest) ... 4 (complete answer)
print(cran)
print("query 1:", cran.queries["1"])
print("its judged documents:", cran.qrels["1"])
print("cran.qry numbers of queries 1, 2, 3, 4 ... 225:",
      [cran.query_numbers[q] for q in ("1", "2", "3", "4")], "...", cran.query_numbers["225"])


def show(fig):
    # display a figure as a PNG only (no text repr to go stale), then close it
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=80)
    plt.close(fig)
    display({"image/png": base64.b64encode(buffer.getvalue()).decode("ascii")}, raw=True)
"""),
        md(r"""
**Query numbers.**  `cran.qry` numbers its 225 questions 001, 002, 004,
008, ... 365, skipping values, while `cranqrel` numbers them 1 to 225 in
file order: the i-th question of `cran.qry` is query i of `cranqrel`.
`load_cranfield` uses cranqrel's numbers as query ids and keeps the
written number in `cran.query_numbers` (`cran.qid_for_number("004")` is
`"3"`).  Joining the two files on the written numbers instead would pair
almost every question with another question's judgements.  Grades are Cleverdon's codes
turned around (grade = 5 - code, so 4 is a complete answer and higher is
better); `cran.raw_qrels` keeps the codes.

## Three systems

Each retriever returns a *run*, `{qid: {docid: score}}`, with the 100 best
documents per query.
"""),
        code(r"""
runs = {
    "bm25": rr.bm25_run(cran.docs, cran.queries, top_k=100),
    "dense": rr.dense_run(cran.docs, cran.queries, top_k=100),
}
runs["rrf"] = rr.rrf([runs["bm25"], runs["dense"]], k=60, top_k=100)

for name, run in runs.items():
    top = sorted(run["1"], key=run["1"].get, reverse=True)[:5]
    print(f"{name:<6} top 5 for query 1:", [(d, cran.qrels["1"].get(d, 0)) for d in top])
"""),
        md(r"""
Each pair is (document, grade).  A grade 0 means *not judged relevant*:
`cranqrel` lists only documents of some relevance (codes 1-4), so every
document outside that list gets 0, the source paper below included.

Document **486**, first for dense retrieval and for the fusion, is the
paper query 1 was written from.  `cranqrel` has one such row per query,
coded -1, a code not on Cleverdon's scale, and `load_cranfield` leaves
these 225 rows out of `.qrels` by default (they are in `cran.raw_qrels` and
`cran.source_docs`).  `load_cranfield(source_grade=0)` keeps them as judged
non-relevant; `load_cranfield(source_grade=4)`, or any positive grade,
counts each question's source paper as relevant.  The numbers below use the
default; the query 1 example of "Where the metrics disagree" depends on it.
"""),
        code(r"""
source = cran.source_docs["1"]
print(f"source document of query 1: {source}, {cran.docs[source]['title']!r}")
print("its code in cranqrel:", cran.raw_qrels["1"][source], "| in cran.qrels:", source in cran.qrels["1"])
"""),
        md(r"""
## Evaluate all three

The five metrics most papers report: P@10, recall@100, MRR, MAP and NDCG@10,
with `rm.evaluate` (equal to trec_eval; its signature names every
convention).
"""),
        code(r"""
metrics = ["P@10", "recall@100", "mrr", "map", "ndcg@10"]
reports = {name: rm.evaluate(cran.qrels, run, metrics) for name, run in runs.items()}

print(f"{'system':<8}" + "".join(f"{m:>12}" for m in metrics))
for name, report in reports.items():
    print(f"{name:<8}" + "".join(f"{report.mean[m]:>12.4f}" for m in metrics))
print(reports["rrf"].signature)
"""),
        md(r"""
RRF is best on every metric, and dense retrieval beats BM25.  But these are
means over 225 queries: how much do they vary from query to query?

## Per query

Left, each bar is one query: NDCG@10 of RRF minus that of BM25, sorted; bars
above 0 are queries RRF improves.  Right, one point per query: BM25 against
dense.
"""),
        code(r"""
qids = sorted(reports["bm25"].per_query, key=int)


def per_query(name, metric):
    return np.array([reports[name].per_query[q][metric] for q in qids])


diff = per_query("rrf", "ndcg@10") - per_query("bm25", "ndcg@10")
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.5))
_ = left.bar(range(len(diff)), np.sort(diff), width=1.0, color="tab:blue")
_ = left.axhline(0, color="black", linewidth=0.8)
_ = left.set(xlabel="queries, sorted", ylabel="NDCG@10: RRF - BM25", title="per-query difference")
_ = right.scatter(per_query("bm25", "ndcg@10"), per_query("dense", "ndcg@10"), s=10, alpha=0.6)
_ = right.plot([0, 1], [0, 1], color="gray", linewidth=0.8)
_ = right.set(xlabel="BM25 NDCG@10", ylabel="dense NDCG@10", title="one point per query")
fig.tight_layout()
show(fig)
print(f"RRF better on {np.sum(diff > 0)} queries, worse on {np.sum(diff < 0)}, equal on {np.sum(diff == 0)}")
"""),
        md(r"""
## Bootstrap confidence intervals

Resample the 225 queries with replacement 10,000 times and take the middle
95% of the resampled means (`rm.significance.bootstrap_ci`, fixed seed).
scipy's `bootstrap` (percentile method) draws other random samples, so its
interval differs in the third decimal.
"""),
        code(r"""
from scipy import stats

for name in runs:
    values = per_query(name, "ndcg@10")
    ci = sig.bootstrap_ci(values, confidence=0.95, n_resamples=10_000, seed=0)
    theirs = stats.bootstrap((values,), np.mean, confidence_level=0.95, n_resamples=10_000,
                             method="percentile", random_state=0).confidence_interval
    print(f"{name:<6} {ci}   scipy: [{theirs.low:.4f}, {theirs.high:.4f}]")
"""),
        md(r"""
The intervals of BM25 and RRF just touch, and the interval of dense
overlaps both.  Yet they hide something: the systems are compared on the
*same* queries.  A paired test looks at the 225
differences, which removes the variation between easy and hard queries.

## Paired significance tests

* **Paired t-test**: $t = \bar d / (s_d / \sqrt{n})$ with $n - 1$ degrees of
  freedom.
* **Randomization test**: if the systems were interchangeable, each
  difference $d_i$ could have either sign; flip signs at random and count
  how often $|\text{mean}|$ reaches the observed one.

Each p-value is checked against scipy (`ttest_rel`; `permutation_test` with
`permutation_type="samples"`, exact on 12 queries where both enumerate all
$2^{12}$ sign patterns).
"""),
        code(r"""
def mean_difference(x, y, axis=-1):
    return np.mean(x - y, axis=axis)


for a_name, b_name in [("bm25", "rrf"), ("dense", "rrf"), ("bm25", "dense")]:
    a, b = per_query(a_name, "ndcg@10"), per_query(b_name, "ndcg@10")
    t = sig.paired_t_test(a, b)
    r = sig.randomization_test(a, b, n_resamples=10_000, seed=0)
    scipy_t = stats.ttest_rel(b, a)
    assert math.isclose(t.p_value, scipy_t.pvalue, rel_tol=1e-9), (
        f"{b_name} - {a_name}: our paired t-test p-value {t.p_value} is not scipy's ttest_rel {scipy_t.pvalue}")
    print(f"{b_name} - {a_name}: mean diff {t.mean_difference:+.4f}  t = {t.statistic:.3f}  "
          f"p(t) = {t.p_value:.2e} (scipy {scipy_t.pvalue:.2e})  p(randomization) = {r.p_value:.4f}")

# exact randomization test on the first 12 queries, against scipy
a, b = per_query("bm25", "ndcg@10")[:12], per_query("dense", "ndcg@10")[:12]
ours = sig.randomization_test(a, b, exact=True)
theirs = stats.permutation_test((b, a), mean_difference, permutation_type="samples",
                                n_resamples=np.inf, alternative="two-sided", vectorized=True)
assert math.isclose(ours.p_value, theirs.pvalue, rel_tol=1e-12), (
    f"exact randomization test: our p-value {ours.p_value} is not scipy's permutation_test {theirs.pvalue}")
print(f"12 queries, exact: ours p = {ours.p_value:.6f}, scipy p = {theirs.pvalue:.6f}")
"""),
        md(r"""
With 10,000 random sign patterns, the smallest Monte Carlo p-value is
$1/10001 \approx 0.0001$: "p = 0.0001" means "no random pattern was as
extreme", not a measured probability.

## Where the metrics disagree

The means agree on the ranking of the systems; single queries often do not.
For BM25 against dense, count the queries where two metrics prefer
different systems:
"""),
        code(r"""
pairs = [("P@10", "mrr"), ("P@10", "ndcg@10"), ("mrr", "map"), ("map", "ndcg@10"),
         ("recall@100", "ndcg@10")]
sign = {m: np.sign(per_query("dense", m) - per_query("bm25", m)) for m in metrics}
for m1, m2 in pairs:
    opposite = np.sum(sign[m1] * sign[m2] < 0)
    print(f"{m1:>10} vs {m2:<8}: opposite preferences on {opposite:>2} of {len(qids)} queries")

# a few queries where P@10 and MRR disagree
examples = [q for q, s1, s2 in zip(qids, sign["P@10"], sign["mrr"]) if s1 * s2 < 0][:3]
for q in examples:
    print(f"\nquery {q} ({len(cran.qrels[q])} judged relevant): {cran.queries[q][:70]}")
    for name in ("bm25", "dense"):
        ranked = sorted(runs[name][q], key=runs[name][q].get, reverse=True)[:10]
        grades = [cran.qrels[q].get(d, 0) for d in ranked]
        v = reports[name].per_query[q]
        print(f"  {name:<6} top-10 grades {grades}  P@10 {v['P@10']:.1f}  MRR {v['mrr']:.3f}")
"""),
        md(r"""
MRR looks only at the first relevant document, P@10 counts the relevant
documents in the top 10 without looking at their order: one system finds
the first relevant document earlier, the other finds more of them.  Which
metric to trust depends on the use: a RAG pipeline that passes the top 10
passages to the generator cares about how many are useful (P@10, NDCG@10),
a question-answering box showing one answer about the first (MRR).

Query 1 is the case of document 486 above: dense retrieval's first
document, the 0 at the head of its list, is the paper the question was
written from.  With `load_cranfield(source_grade=4)` it would count as
relevant, both systems would have MRR 1.0 on query 1 (BM25 ranks 486
second, after a relevant document), and MRR would no longer prefer BM25
there.

## Exercises

### Exercise 1: tune BM25's k1 and b

Tuning on the queries you report on flatters the result.  Split the queries:
tune on the odd query ids, test on the even ones.  Write
`tune_bm25(grid)`: for each `(k1, b)` of `grid`, run BM25 on the tuning
queries (`rr.bm25_run(cran.docs, tune_queries, k1=k1, b=b, top_k=100)`),
score it with `rm.evaluate(..., ["ndcg@10"])` and return the `(k1, b)` with
the highest mean NDCG@10 (the first one in grid order if several tie).
"""),
        code(r"""
tune_queries = {q: t for q, t in cran.queries.items() if int(q) % 2 == 1}
test_queries = {q: t for q, t in cran.queries.items() if int(q) % 2 == 0}
grid = [(k1, b) for k1 in (0.9, 1.5, 2.0) for b in (0.4, 0.75, 0.9)]


def tune_bm25(grid):
    ### BEGIN SOLUTION
    best, best_score = None, -1.0
    for k1, b in grid:
        run = rr.bm25_run(cran.docs, tune_queries, k1=k1, b=b, top_k=100)
        score = rm.evaluate(cran.qrels, run, ["ndcg@10"]).mean["ndcg@10"]
        if score > best_score:
            best, best_score = (k1, b), score
    return best
    ### END SOLUTION
"""),
        code(r'''
"""Check tune_bm25 on three grids: it returns the (k1, b) with the best tuning NDCG@10."""
tuning = {kb: rm.evaluate(cran.qrels, rr.bm25_run(cran.docs, tune_queries, k1=kb[0], b=kb[1]),
                          ["ndcg@10"]).mean["ndcg@10"] for kb in grid}
for some_grid in (grid, grid[3:6], [(0.9, 0.9)]):
    want = max(some_grid, key=lambda kb: tuning[kb])  # max keeps the first of equal scores
    chosen = tune_bm25(some_grid)
    assert chosen in some_grid, f"tune_bm25 must return one (k1, b) of its grid {some_grid}, got {chosen!r}"
    assert chosen == want, (
        f"on the grid {some_grid}, tune_bm25 chose {chosen} (tuning NDCG@10 {tuning[chosen]:.4f}), but "
        f"{want} scores {tuning[want]:.4f}: run BM25 on tune_queries (not all queries) with each "
        f"(k1, b) of the grid it is given, top_k=100, and keep the highest mean NDCG@10")
best = max(grid, key=lambda kb: tuning[kb])
print(f"best on the tuning queries: k1={best[0]}, b={best[1]} (NDCG@10 {tuning[best]:.4f}; "
      f"default k1=1.5, b=0.75: {tuning[(1.5, 0.75)]:.4f})")
'''),
        md(r"""
### Exercise 2: is the gain significant on the test queries?

Write `held_out_gain(k1, b)`: run BM25 with the default `k1=1.5, b=0.75`
and with the tuned values on `test_queries`, and return `(difference,
p_t, p_randomization)`: the mean NDCG@10 of tuned minus default, and the
p-values of `sig.paired_t_test` and `sig.randomization_test` (seed 0,
10,000 resamples), pairing the queries by id in numeric order
(`sorted(..., key=int)`: the Monte Carlo p-value depends on which random
signs meet which query, so the order must be the one the check uses).
"""),
        code(r"""
def held_out_gain(k1, b):
    ### BEGIN SOLUTION
    default = rm.evaluate(cran.qrels, rr.bm25_run(cran.docs, test_queries), ["ndcg@10"])
    tuned = rm.evaluate(cran.qrels, rr.bm25_run(cran.docs, test_queries, k1=k1, b=b), ["ndcg@10"])
    ids = sorted(default.per_query, key=int)
    a = [default.per_query[q]["ndcg@10"] for q in ids]
    t = [tuned.per_query[q]["ndcg@10"] for q in ids]
    return (tuned.mean["ndcg@10"] - default.mean["ndcg@10"],
            sig.paired_t_test(a, t).p_value,
            sig.randomization_test(a, t, n_resamples=10_000, seed=0).p_value)
    ### END SOLUTION
"""),
        code(r'''
"""Check held_out_gain against rm.significance.compare_systems, for the tuned and another (k1, b)."""
hints = {
    "difference": "the mean NDCG@10 of tuned minus that of default (tuned first), on test_queries, "
                  "default BM25 being k1=1.5, b=0.75, top_k=100",
    "p_t": "sig.paired_t_test(default, tuned) on the per-query NDCG@10 of test_queries, both "
           "lists in the same query order",
    "p_randomization": "sig.randomization_test(default, tuned, n_resamples=10_000, seed=0), with "
                       "the queries paired in numeric order (sorted(..., key=int)): another order "
                       "or seed meets other random signs",
}
default = rm.evaluate(cran.qrels, rr.bm25_run(cran.docs, test_queries), ["ndcg@10"])
for k1, b in (best, (0.9, 0.4)):
    tuned = rm.evaluate(cran.qrels, rr.bm25_run(cran.docs, test_queries, k1=k1, b=b), ["ndcg@10"])
    want_t = sig.compare_systems(default, tuned, "ndcg@10", test="t")
    want_r = sig.compare_systems(default, tuned, "ndcg@10", test="randomization",
                                 n_resamples=10_000, seed=0)
    got = held_out_gain(k1, b)
    want = (want_t.difference, want_t.p_value, want_r.p_value)
    for name, g, w in zip(hints, got, want):
        assert math.isclose(g, w, rel_tol=1e-9, abs_tol=1e-12), (
            f"k1={k1}, b={b}: {name} is {g}, it should be {w}; it is {hints[name]}")
    print(f"k1={k1}, b={b}: tuned - default on the test queries: {want[0]:+.4f} NDCG@10, "
          f"p(t) = {want[1]:.3f}, p(randomization) = {want[2]:.3f}")
'''),
        md(r"""
### Exercise 3: build the fusion yourself

Write `my_rrf(runs, k=60)`: for each query, rank each run's documents as
trec_eval does (score descending, ties by document id descending:
`rm.conventions.rank(scores, "trec_eval")` does it), and give each document
the sum over runs of $1/(k + \text{rank})$.  Keep every document (no top-k
cut).
"""),
        code(r"""
def my_rrf(runs, k=60):
    ### BEGIN SOLUTION
    from ragmetrics_edu.conventions import rank

    fused = {}
    for run in runs:
        for qid, doc_scores in run.items():
            scores = fused.setdefault(qid, {})
            for r, doc in enumerate(rank(doc_scores, "trec_eval"), start=1):
                scores[doc] = scores.get(doc, 0.0) + 1.0 / (k + r)
    return fused
    ### END SOLUTION
"""),
        code(r'''
"""Check my_rrf against rm.retrievers.rrf on two and three runs and two values of k."""
cases = [([runs["bm25"], runs["dense"]], 60), ([runs["bm25"], runs["dense"]], 10),
         ([runs["bm25"], runs["dense"], runs["rrf"]], 60),
         ([{"q": {"a": 1.0, "b": 1.0, "c": 0.5}}, {"q": {"c": 2.0, "d": 1.0}}], 60)]
for i, (inputs, k) in enumerate(cases):
    got, want = my_rrf(inputs, k=k), rr.rrf(inputs, k=k, top_k=None)
    assert set(got) == set(want), (
        f"case {i}: queries {sorted(set(got) ^ set(want))[:5]} are in one result only: "
        f"the fusion has every query of every run")
    for q in want:
        assert set(got[q]) == set(want[q]), (
            f"case {i}, query {q}: not the same documents; keep every document of every run (no top-k cut)")
        for d, w in want[q].items():
            assert math.isclose(got[q][d], w, rel_tol=1e-12), (
                f"case {i}, query {q}, document {d}: your score {got[q][d]}, rr.rrf's {w}: rank each "
                f"run's documents with rm.conventions.rank(scores, 'trec_eval') (score descending, "
                f"ties by document id descending), count ranks from 1, and add 1/(k + rank) over "
                f"the runs, with k={k}"
                + (" (here a and b tie: trec_eval ranks b first)" if q == "q" else ""))
fused = my_rrf([runs["bm25"], runs["dense"]])
print("my_rrf agrees with rr.rrf; NDCG@10 of the fusion:",
      round(rm.evaluate(cran.qrels, fused, ["ndcg@10"]).mean["ndcg@10"], 4))
'''),
        md(r"""
### Exercise 4 (discussion): what does "significant" promise?

The tuned BM25 of Exercise 1 was tested on held-out queries.  Why would
testing it on the tuning queries be misleading, and what does a p-value
below 0.05 *not* tell you about a RAG pipeline?

### BEGIN SOLUTION
On the tuning queries, the chosen `(k1, b)` is the best of nine tries on
those very queries: part of its gain is fitted noise, so its p-value is too
small (a multiple-comparison problem).  Held-out queries give an honest
estimate.  A small p-value says the mean difference is unlikely to be zero
*for queries like these Cranfield questions*; it does not say the gain is
large enough to matter (look at the difference and its confidence
interval), that it carries over to another collection or to real users'
questions, or that the generated answers improve.
### END SOLUTION
"""),
        md(r"""
## Summary

* A lab in a few lines: `load_cranfield()`, three runs (`bm25_run`,
  `dense_run`, `rrf`), `rm.evaluate` with trec_eval's conventions.
* On Cranfield, dense retrieval beats BM25 and their RRF fusion beats both
  on every metric.
* Means hide per-query variation: plot the differences, give bootstrap
  intervals, and test paired differences (t-test, randomization test), whose
  p-values match scipy.
* Metrics disagree on single queries (MRR looks at the first relevant
  document, P@10 at how many): pick the metric for the use.
* Tune on some queries, test on others.  Notebook 08 shows why another tool
  may report different numbers for these same runs.
"""),
        nav(stem),
    ]


BUILDERS = {"07": rag_lab, "08": conventions}


def main(argv=None):
    wanted = (argv or sys.argv[1:]) or list(BUILDERS)
    for key in wanted:
        stem, cells = BUILDERS[key]()
        print("wrote", write_notebook(stem, cells))


if __name__ == "__main__":
    main()
