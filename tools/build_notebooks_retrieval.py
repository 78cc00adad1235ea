"""Build the solved retrieval notebooks solutions/00-03 from the cells below.

The notebooks in ``solutions/`` are the single source of the lessons; this
script is only a convenient way to write them (editing the notebooks in
JupyterLab is fine too, once they exist; rerunning this script overwrites such
edits).  After running it::

    python tools/build_notebooks_retrieval.py          # writes solutions/00-03 (unexecuted)
    python tools/make_student.py --execute 00 01 02 03 # executes them, writes notebooks/

The functions ``md``, ``code``, ``nav`` and ``write_notebook`` can be imported
by other builders.
"""

import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

sys.path.insert(0, str(Path(__file__).resolve().parent))
from launch import colab_cell_source  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "solutions"
sys.path.insert(0, str(ROOT))
from ragmetrics_edu.examples import get as get_example  # noqa: E402
from ragmetrics_edu.examples.retrieval import ROUNDING_NOTES, UNREBUILDABLE_NOTES  # noqa: E402

KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}

LESSONS = [
    ("00_introduction", "Introduction: what RAG evaluation measures"),
    ("01_order_unaware", "Order-unaware metrics: Precision, Recall, F1, HitRate"),
    ("02_order_aware", "Order-aware metrics: MRR, AP and MAP"),
    ("03_graded", "Graded relevance: CG, DCG, IDCG and NDCG"),
    ("04_ngram_overlap", "N-gram overlap: BLEU and ROUGE"),
    ("05_bertscore", "BERTScore"),
    ("06_llm_as_judge", "LLM as a judge"),
    ("07_rag_lab", "RAG lab"),
    ("08_conventions", "Conventions"),
]
"""The notebooks, in order."""


def md(text):
    return new_markdown_cell(text.strip("\n"))


def code(text):
    return new_code_cell(text.strip("\n"))


def rounding_box(labels):
    """A "Rounding, not errata" box from ``ROUNDING_NOTES``; ``labels`` maps
    example keys to the few words naming the number ("IDCG@3")."""
    lines = ["> **Rounding, not errata.**  These seed numbers are right as far as",
             "> their digits go:", ">"]
    lines += [f"> * {label}: {ROUNDING_NOTES[key]}" for key, label in labels.items()]
    return md("\n".join(lines))


def unrebuildable_box(key, who):
    """A "cannot rebuild" box: the seed's number as ``ragmetrics_edu.examples``
    records it, and its note from ``UNREBUILDABLE_NOTES``; ``who`` says who
    states it, and where ("Before its code, the blog")."""
    ex = get_example(key)
    return md(f"> **A number we cannot rebuild.**  {who} states "
              f"\"{ex.metric} = {ex.stated}\".  {UNREBUILDABLE_NOTES[key]}")


def nav(stem):
    """The navigation line: previous / contents / next."""
    stems = [s for s, _ in LESSONS]
    i = stems.index(stem)
    parts = []
    if i > 0:
        p, t = LESSONS[i - 1]
        parts.append(f"[← {p[:2]} {t.split(':')[0]}]({p}.ipynb)")
    parts.append("Contents" if i == 0 else "[Contents](00_introduction.ipynb#Contents)")
    if i + 1 < len(LESSONS):
        n, t = LESSONS[i + 1]
        parts.append(f"[{n[:2]} {t.split(':')[0]} →]({n}.ipynb)")
    return md(" &nbsp;|&nbsp; ".join(parts))


def with_colab_cell(cells):
    """``cells`` with the Colab set-up cell (``tools/launch.py``) before the first code cell."""
    setup = code(colab_cell_source())
    setup.metadata["tags"] = ["colab-setup"]
    first = next(i for i, c in enumerate(cells) if c.cell_type == "code")
    return cells[:first] + [setup] + cells[first:]


def write_notebook(stem, cells, folder=SOLUTIONS):
    """Write ``folder/stem.ipynb``: the Colab set-up cell added, deterministic
    cell ids, the common kernelspec."""
    cells = with_colab_cell(cells)
    for i, cell in enumerate(cells):
        cell.id = f"cell-{i:02d}"
    nb = new_notebook(cells=cells, metadata={
        "kernelspec": dict(KERNELSPEC),
        "language_info": {"name": "python"},
    })
    nbformat.validate(nb)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{stem}.ipynb"
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        nbformat.write(nb, f)
    return path


# ===================================================================== 00

def introduction():
    stem = "00_introduction"
    return stem, [
        nav(stem),
        md(r"""
# 00 · Introduction: what RAG evaluation measures

A retrieval-augmented generation (RAG) system answers a question in two steps:
a **retriever** finds passages in a collection, and a **generator** (a language
model) writes the answer from them.  Each step can fail on its own, so each has
its own metrics.

| step | question | metrics | notebooks |
| --- | --- | --- | --- |
| retrieval | did we find the right passages, and rank them well? | Precision@k, Recall@k, F1@k, HitRate@k, MRR, MAP, DCG, NDCG | 01, 02, 03 |
| generation | is the answer right, faithful to the passages, well written? | BLEU, ROUGE, BERTScore, LLM as a judge | 04, 05, 06 |

**Offline and online.**  *Offline* metrics are computed before deployment, on
a fixed set of queries whose relevant documents were judged by people (the
article's wording: "measured in an isolated environment before deploying").
*Online* metrics come from real users after deployment: click-through rate,
dwell time, A/B tests.  This course is about offline metrics: they are
reproducible, and a number computed today can be recomputed exactly tomorrow.
"""),
        md(r"""
## Contents

| notebook | what it teaches | library module |
| --- | --- | --- |
| [01 Order-unaware metrics](01_order_unaware.ipynb) | Precision@k, Recall@k, F1@k, HitRate@k | `ragmetrics_edu.order_unaware` |
| [02 Order-aware metrics](02_order_aware.ipynb) | reciprocal rank, MRR, Average Precision, MAP | `ragmetrics_edu.order_aware` |
| [03 Graded relevance](03_graded.ipynb) | CG, DCG, IDCG, NDCG; linear and exponential gain | `ragmetrics_edu.graded` |
| [04 N-gram overlap](04_ngram_overlap.ipynb) | BLEU and ROUGE | `ragmetrics_edu.bleu_score`, `ragmetrics_edu.rouge` |
| [05 BERTScore](05_bertscore.ipynb) | BERTScore with a real transformer | `ragmetrics_edu.semantic` |
| [06 LLM as a judge](06_llm_as_judge.ipynb) | rubrics, verdicts, agreement; RAG metrics | `ragmetrics_edu.judge`, `ragmetrics_edu.rag` |
| [07 RAG lab](07_rag_lab.ipynb) | a whole retrieval evaluation on the Cranfield collection: BM25, dense retrieval, their fusion; significance tests | `ragmetrics_edu.datasets`, `ragmetrics_edu.retrievers`, `ragmetrics_edu.significance` |
| [08 Conventions](08_conventions.ipynb) | why two libraries report different numbers for "the same" metric | `ragmetrics_edu.conventions` |

Each lesson has the same shape: the intuition, the formula, the worked
examples of our sources rebuilt with `ragmetrics_edu` (the source's number
beside ours, with an **erratum** box where the source slips), a widget to play
with, exercises, and a summary.  The folder `solutions/` holds the same
notebooks with the exercises solved.
"""),
        md(r"""
## The library

Every number in these notebooks comes from `ragmetrics_edu`, a small library
whose functions read like their formulas.  We never rewrite a metric in a
demo cell: we call the library, and the exercises ask you to write the
metric yourself and compare.
"""),
        code(r"""
import ragmetrics_edu as rm

rels = [1, 0, 1, 0, 1]  # the slides' ranking: documents at ranks 1, 3, 5 are relevant
print("Precision@2 =", round(rm.precision_at_k(rels, 2), 4))
print("Recall@3    =", round(rm.recall_at_k(rels, 3, n_relevant=10), 4))
"""),
        md(r"""
The worked examples of our sources (lecture slides, a blog post and an article)
are stored once, in `rm.examples`, with where they come from, the number the
source prints and the number computed right:
"""),
        code(r"""
ex = rm.examples.get("precision_at_2")
print(ex.metric, "|", ex.seed, "|", ex.where)
print(f"the seed says {ex.stated}; ragmetrics_edu computes {round(ex.recompute(), 4)}")
"""),
        code(r"""
rm.widgets.seed_table("precision_at_2", "recall_at_3", "f1_at_3")
"""),
        md(r"""
## The vocabulary of relevance judgements

* **Query.**  A question we ask the retriever.
* **Relevance judgement** (a *qrel*).  A person's verdict on a (query,
  document) pair: *relevant* or not (binary), or a *grade* such as 0-5
  (graded, notebook 03).
* **RD, the relevant documents.**  The slides write $RD$ for the set of all
  documents judged relevant for the query, retrieved or not.  Its size
  $|RD|$ is the `n_relevant` argument of recall and AP: the slides' example
  has $|RD| = 10$.
* **The ranking** the retriever returns, best first.  We write its
  relevance as a list in rank order: `[1, 0, 1, 0, 1]` means the documents at
  ranks 1, 3 and 5 are in $RD$.
* **Top-K versus @k.**  The slides insist these differ.  **K** is how many
  documents the retriever returns (its *top-K*, $Top_{Kd}$; $K = 5$ in the
  slides).  **k** is the cut-off at which we *compute* a metric: Precision@2
  looks at the first 2 of those 5.  "k operates like a sliding window": we
  can compute the metric at every $k = 1, \dots, K$.  When $k > K$ the ranks
  past the end count as not relevant (so Precision@10 of five documents with
  three relevant is 3/10); `rm.precision_at_k(..., denominator="retrieved")`
  divides by what was retrieved instead.
* **Order-unaware and order-aware.**  Precision, Recall, F1 and HitRate only
  count relevant documents in the top k (notebook 01); MRR, MAP and NDCG
  reward putting them first (notebooks 02-03).
"""),
        code(r"""
K_retrieved = [1, 0, 1, 0, 1]  # top-K with K = 5
for k in range(1, 8):
    print(f"k = {k}: Precision@{k} = {round(rm.precision_at_k(K_retrieved, k), 4):<6}"
          f"  (divide by what was retrieved: {round(rm.precision_at_k(K_retrieved, k, denominator='retrieved'), 4)})")
"""),
        md(r"""
## Many queries at once

Real evaluations have many queries.  `rm.evaluate` takes the judgements
(`qrels`, `{query: {doc: grade}}`) and the retriever's scores (`run`,
`{query: {doc: score}}`), ranks each query's documents by score, and
reports every metric per query and on average, as trec_eval does.  Its
`signature` says which conventions produced the numbers.
"""),
        code(r"""
qrels = {"q1": {"d1": 1, "d3": 1, "d7": 1},
         "q2": {"d2": 1, "d4": 1}}
run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.7, "d4": 0.6},
       "q2": {"d1": 0.9, "d2": 0.8, "d3": 0.7, "d4": 0.6}}
report = rm.evaluate(qrels, run, ["P@2", "recall@4", "mrr", "map"])
print(report)
"""),
        md(r"""
## How to use the widgets

Each lesson has a widget built by `rm.widgets`.  Run its cell, then click the
toggles or move the sliders: sliders update when you release them.  The
numbers come from the same library functions, and the plot is redrawn in
place.  A widget is also an ordinary Python object, so you can drive it from
code: set a control's `value` and read `values`.
"""),
        code(r"""
w = rm.widgets.precision_recall_explorer([1, 0, 1, 0, 1], n_relevant=10, k=3)
w
"""),
        code(r"""
w.toggles[1].value = True  # mark rank 2 relevant, as a click would
print(w.rels)
print({name: round(v, 4) for name, v in w.values["at_k"].items()})
"""),
        md(r"""
## Exercises

Each exercise has a cell to complete and a **check** cell that compares your
function with the library on several inputs and says what is wrong.  Replace
`raise NotImplementedError()` with your code, run the cell, then run the check.

### Exercise 1: from a ranking to a relevance list

Write `relevance_vector(ranking, relevant)`: given the ranked document ids
and the set $RD$ of relevant ids, return the list of 1 (relevant) and 0 (not)
in rank order.
"""),
        code(r"""
def relevance_vector(ranking, relevant):
    ### BEGIN SOLUTION
    return [1 if doc in relevant else 0 for doc in ranking]
    ### END SOLUTION
"""),
        code(r'''
"""Check relevance_vector: its list must give the same Precision@k, at every k, as rm.evaluate."""
cases = [(["d1", "d2", "d3", "d4"], {"d1", "d3", "d9"}),
         (["a", "b", "c"], {"z"}),
         (["x", "y"], {"x", "y"})]
for ranking, relevant in cases:
    vec = relevance_vector(ranking, relevant)
    assert len(vec) == len(ranking), (
        f"relevance_vector({ranking}, ...) has {len(vec)} entries; want one per ranked document")
    assert set(vec) <= {0, 1}, f"use 1 for relevant and 0 for not, got {vec}"
    qrels = {"q": {d: 1 for d in relevant}}
    run = {"q": {d: float(len(ranking) - i) for i, d in enumerate(ranking)}}
    for k in range(1, len(ranking) + 1):
        want = rm.evaluate(qrels, run, [f"P@{k}"]).mean[f"P@{k}"]
        got = rm.precision_at_k(vec, k)
        assert abs(got - want) < 1e-12, (
            f"for {ranking} with RD = {sorted(relevant)}, your list {vec} gives "
            f"Precision@{k} = {got}, rm.evaluate gives {want}: is the i-th entry "
            f"about the i-th ranked document?")
print("relevance_vector agrees with the library on", len(cases), "rankings.")
'''),
        md(r"""
### Exercise 2: $|RD \cap Top_{kd}|$

Write `relevant_in_top_k(ranking, relevant, k)`: how many of the first `k`
ranked documents are in $RD$.  It is the numerator of both Precision@k and
Recall@k.
"""),
        code(r"""
def relevant_in_top_k(ranking, relevant, k):
    ### BEGIN SOLUTION
    return sum(1 for doc in ranking[:k] if doc in relevant)
    ### END SOLUTION
"""),
        code(r'''
"""Check relevant_in_top_k against Recall@k x |RD| from the library."""
def from_library(ranking, relevant, k):
    rels = [int(doc in relevant) for doc in ranking]
    return round(rm.recall_at_k(rels, k, len(relevant)) * len(relevant))

rm.widgets.check_exercise(relevant_in_top_k, from_library, [
    ((["d1", "d2", "d3", "d4", "d5"], {"d1", "d3", "d5", "d8"}, 3), {}),
    ((["d1", "d2", "d3", "d4", "d5"], {"d1", "d3", "d5", "d8"}, 5), {}),
    ((["d2", "d4"], {"d1"}, 2), {}, "no relevant document retrieved"),
    ((["d1", "d2"], {"d1", "d2"}, 5), {}, "k larger than the ranking: count what is there"),
])
'''),
        md(r"""
### Exercise 3: from scores to a ranking

A retriever returns scores, not ranks.  Write `ranking_from_scores(scores)`:
given `{doc_id: score}`, return the document ids best first.  Equal scores
must be ordered as trec_eval (and `rm.evaluate`) do: the larger document id
(as a string) first.
"""),
        code(r"""
def ranking_from_scores(scores):
    ### BEGIN SOLUTION
    return sorted(scores, key=lambda doc: (scores[doc], doc), reverse=True)
    ### END SOLUTION
"""),
        code(r'''
"""Check ranking_from_scores: its ranking must give rm.evaluate's numbers (P@k at every k, MRR)."""
qrels = {"q": {"b": 1, "e": 1}}
runs = [{"a": 0.1, "b": 0.9, "c": 0.5, "d": 0.3, "e": 0.2},
        {"a": 3.0, "b": 1.0, "c": 2.0, "d": 5.0, "e": 4.0},
        {"a": 0.5, "b": 0.5, "c": 0.5, "d": 0.1, "e": 0.5}]  # ties!
for scores in runs:
    ranking = ranking_from_scores(scores)
    assert sorted(ranking) == sorted(scores), f"the ranking {ranking} must hold every document once"
    rels = [int(d in qrels["q"]) for d in ranking]
    names = [f"P@{k}" for k in range(1, 6)] + ["mrr"]
    want = rm.evaluate(qrels, {"q": scores}, names).mean
    got = {f"P@{k}": rm.precision_at_k(rels, k) for k in range(1, 6)}
    got["mrr"] = rm.reciprocal_rank(rels)
    for name in names:
        assert abs(got[name] - want[name]) < 1e-12, (
            f"for scores {scores} your ranking {ranking} gives {name} = {got[name]}, "
            f"rm.evaluate gives {want[name]}: highest score first, and among equal "
            f"scores the larger document id first")
print("ranking_from_scores agrees with the library on", len(runs), "runs.")
'''),
        md(r"""
### Exercise 4 (discussion): top-K or @k?

A retriever returns its top-5.  A colleague reports "Precision@10 = 0.3" for
it.  What does that number mean, and what would a library that divides by the
number of retrieved documents report?

### BEGIN SOLUTION
Precision@10 looks at ranks 1-10, but only 5 documents were retrieved
(K = 5 < k = 10): the five missing ranks count as not relevant, so 3 relevant
documents give 3/10 = 0.3 (trec_eval's `P_10`).  A library dividing by what
was retrieved reports 3/5 = 0.6 (`rm.precision_at_k(rels, 10,
denominator="retrieved")`).  Always say K and k, and the convention.
### END SOLUTION
"""),
        md(r"""
## Summary

* RAG evaluation measures **retrieval** (notebooks 01-03) and **generation**
  (04-06) separately; *offline* metrics use fixed judged queries, *online*
  ones real users.
* $RD$ is the set of relevant documents of a query; **top-K** is what the
  retriever returns; **@k** is the cut-off where a metric is computed.
* `ragmetrics_edu` (`import ragmetrics_edu as rm`) computes every number;
  `rm.examples` holds the sources' worked examples; `rm.widgets` the widgets.
"""),
        nav(stem),
    ]


# ===================================================================== 01

def order_unaware():
    stem = "01_order_unaware"
    return stem, [
        nav(stem),
        md(r"""
# 01 · Order-unaware metrics: Precision@k, Recall@k, F1@k, HitRate@k

**Intuition.**  Look at the first $k$ documents the retriever returned and
count the relevant ones.  *Precision* asks "how much of what I show is
useful?", *recall* "how much of what is useful do I show?".  Where in the top
$k$ the relevant documents sit does not matter: these metrics are
*order-unaware* (the slides say "non-rank based").
"""),
        code(r"""
import ragmetrics_edu as rm
"""),
        md(r"""
## The formulas

With $rel_i = 1$ if the document at rank $i$ is relevant, $RD$ the set of all
relevant documents of the query and $Top_{kd}$ the first $k$ retrieved:

$$\text{Precision@}k = \frac{|RD \cap Top_{kd}|}{k} = \frac{TP@k}{TP@k + FP@k}
\qquad
\text{Recall@}k = \frac{|RD \cap Top_{kd}|}{|RD|}$$

$$\text{F1@}k = \frac{2 \cdot \text{Precision@}k \cdot \text{Recall@}k}{\text{Precision@}k + \text{Recall@}k}
\qquad
\text{HitRate@}k = \begin{cases}1 & \text{if } |RD \cap Top_{kd}| > 0\\ 0 & \text{otherwise}\end{cases}$$

Precision suits tasks where every shown result must be good; recall tasks
where missing a relevant document is costly (a RAG generator cannot use a
passage it never sees); F1 balances the two; HitRate ("did anything useful
come back?") averaged over queries is the fraction of queries with at least
one relevant document in the top $k$.
"""),
        md(r"""
## The slides' example, rebuilt

The slides retrieve $K = 5$ documents, relevant at ranks 1, 3 and 5, for a
query with $|RD| = 10$ relevant documents.
"""),
        code(r"""
rels = [1, 0, 1, 0, 1]
n_relevant = 10
print("Precision@2 =", round(rm.precision_at_k(rels, 2), 4))
print("Recall@3    =", round(rm.recall_at_k(rels, 3, n_relevant), 4))
print("Precision@3 =", round(rm.precision_at_k(rels, 3), 4))
print("F1@3        =", round(rm.f1_at_k(rels, 3, n_relevant), 4))
print("HitRate@1   =", round(rm.hit_rate_at_k(rels, 1), 4))
"""),
        md(r"""
Beside the slides' own numbers (read from `rm.examples`, where each is written
once):
"""),
        code(r"""
rm.widgets.seed_table("precision_at_2", "recall_at_3", "precision_at_3", "f1_at_3")
"""),
        md(r"""
> **Erratum.**  The F1@3 slide reuses the Precision@**2** computation,
> $1/(1+1) = 0.5$, for Precision@**3**.  The top 3 of `[1, 0, 1, ...]` hold two
> relevant documents, so Precision@3 $= 2/3$ and
> F1@3 $= 2 \cdot \tfrac{2}{3} \cdot 0.2 / (\tfrac{2}{3} + 0.2) \approx 0.308$.
> The table above prints the exact values and the seed's 0.29.
"""),
        md(r"""
## "Cat in a box": Recall@1 to Recall@8

The article searches eight images for "cat in a box"; images 2, 4, 5 and 7 are
relevant ($|RD| = 4$).  Its code prints Recall@K for every K:
"""),
        code(r"""
cats = rm.examples.get("recall_at_1_article").inputs["rels"]
print("relevance:", cats)
print(" k  Recall@k  Precision@k  F1@k    HitRate@k")
for k in range(1, 9):
    print(f"{k:2d}  {rm.recall_at_k(cats, k, 4):<8.4f}  {rm.precision_at_k(cats, k):<11.4f}"
          f"  {rm.f1_at_k(cats, k, 4):.4f}  {rm.hit_rate_at_k(cats, k):.0f}")
"""),
        code(r"""
rm.widgets.seed_table(*(f"recall_at_{k}_article" for k in range(1, 9)), "precision_at_2_article")
"""),
        md(r"""
Recall never decreases as $k$ grows (more documents can only find more), and
reaches 1 at $k = 7$, where the last relevant image is.  Precision goes up and
down.  Recall@K alone rewards returning everything: at $k = N$ it is always 1.
"""),
        md(r"""
## Many queries: `rm.evaluate`

The same metrics over several queries, each averaged over the queries
(`P@k` divides by $k$, as trec_eval's `P_k` does):
"""),
        code(r"""
qrels = {"slides": {f"r{i}": 1 for i in range(10)},
         "cats": {"img2": 1, "img4": 1, "img5": 1, "img7": 1}}
run = {"slides": {"r0": 5, "x1": 4, "r1": 3, "x2": 2, "r2": 1},
       "cats": {f"img{i}": 9 - i for i in range(1, 9)}}
report = rm.evaluate(qrels, run, ["P@3", "recall@3", "f1@3", "hit_rate@1"])
print(report.to_table())
"""),
        md(r"""
## Play with it

Click a rank to make its document relevant or not; set how many relevant
documents the collection holds and which $k$ to highlight.  The table gives
the four metrics at every $k$, the plot their curves.  Try: move the relevant
document from rank 1 to rank 2 (click rank 1 off and rank 2 on) and watch
HitRate@1 drop to 0 while Recall@5 stays at 0.3; raise "relevant in all" and
watch recall (but not precision) shrink.
"""),
        code(r"""
explorer = rm.widgets.precision_recall_explorer([1, 0, 1, 0, 1], n_relevant=10, k=3)
explorer
"""),
        md(r"""
The widget is an object: setting a control from code does what a click does.
"""),
        code(r"""
explorer.toggles[1].value = True   # rank 2 becomes relevant: [1, 1, 1, 0, 1]
explorer.k.value = 2
print({name: round(v, 4) for name, v in explorer.values["at_k"].items()})
"""),
        md(r"""
## Exercises

### Exercise 1: Precision@k

Implement `precision_at_k(rels, k)`: the fraction of the first `k` ranks that
are relevant (a grade > 0).  When `k` is larger than the ranking, the missing
ranks count as not relevant (divide by `k`).
"""),
        code(r"""
def precision_at_k(rels, k):
    ### BEGIN SOLUTION
    return sum(1 for r in rels[:k] if r > 0) / k
    ### END SOLUTION
"""),
        code(r'''
"""Check precision_at_k against rm.precision_at_k on six rankings."""
rm.widgets.check_exercise(precision_at_k, rm.precision_at_k, [
    (([1, 0, 1, 0, 1], 2), {}, "the slides' Precision@2"),
    (([1, 0, 1, 0, 1], 3), {}, "the slides' Precision@3 (2/3, not 0.5)"),
    (([0, 1, 0, 1, 1, 0, 1, 0], 8), {}),
    (([0, 0, 0], 3), {}, "nothing relevant"),
    (([1, 0], 5), {}, "k larger than the ranking: divide by k"),
    (([2, 0, 3], 3), {}, "graded relevance: any grade > 0 is relevant"),
])
'''),
        md(r"""
### Exercise 2: Recall@k

Implement `recall_at_k(rels, k, n_relevant)`: the fraction of the query's
`n_relevant` relevant documents found in the first `k` ranks.
"""),
        code(r"""
def recall_at_k(rels, k, n_relevant):
    ### BEGIN SOLUTION
    if n_relevant == 0:
        return 0.0
    return sum(1 for r in rels[:k] if r > 0) / n_relevant
    ### END SOLUTION
"""),
        code(r'''
"""Check recall_at_k against rm.recall_at_k, including the article's Recall@1..8."""
cases = [(([1, 0, 1, 0, 1], 3, 10), {}, "the slides' Recall@3")]
cases += [((cats, k, 4), {}, f"the article's Recall@{k}") for k in range(1, 9)]
cases += [(([1, 1], 5, 2), {}, "k larger than the ranking"),
          (([0, 0, 0], 2, 3), {}, "nothing relevant found")]
rm.widgets.check_exercise(recall_at_k, rm.recall_at_k, cases)
'''),
        md(r"""
### Exercise 3: F1@k and HitRate@k

Implement `f1_at_k(rels, k, n_relevant)` from *your* `precision_at_k` and
`recall_at_k` (the harmonic mean; 0 when both are 0), and
`hit_rate_at_k(rels, k)` (1.0 if any of the top `k` is relevant, else 0.0).
"""),
        code(r"""
def f1_at_k(rels, k, n_relevant):
    ### BEGIN SOLUTION
    p, r = precision_at_k(rels, k), recall_at_k(rels, k, n_relevant)
    return 0.0 if p + r == 0 else 2 * p * r / (p + r)
    ### END SOLUTION


def hit_rate_at_k(rels, k):
    ### BEGIN SOLUTION
    return 1.0 if any(r > 0 for r in rels[:k]) else 0.0
    ### END SOLUTION
"""),
        code(r'''
"""Check f1_at_k and hit_rate_at_k against the library."""
rm.widgets.check_exercise(f1_at_k, rm.f1_at_k, [
    (([1, 0, 1, 0, 1], 3, 10), {}, "the slides' F1@3 (0.3077; the slide's 0.29 is an erratum)"),
    (([0, 1, 0, 1, 1, 0, 1, 0], 5, 4), {}),
    (([0, 0, 0], 3, 2), {}, "precision and recall both 0: F1 is 0"),
    (([1, 1, 1], 3, 3), {}, "perfect"),
])
rm.widgets.check_exercise(hit_rate_at_k, rm.hit_rate_at_k, [
    (([0, 1, 0], 1), {}, "first relevant at rank 2, k = 1"),
    (([0, 1, 0], 2), {}),
    (([0, 0], 5), {}, "no relevant document at all"),
])
'''),
        md(r"""
### Exercise 4 (discussion): the slide's F1@3

Using only your functions, explain in two sentences where the slides' 0.29
comes from and which number is right.

### BEGIN SOLUTION
The slide plugs Precision@2 = 1/(1+1) = 0.5 into F1@3 together with
Recall@3 = 0.2: 2·0.5·0.2/(0.5+0.2) = 0.2857 ≈ 0.29.  But the top 3 of
[1, 0, 1, 0, 1] hold two relevant documents, so Precision@3 = 2/3 and
F1@3 = 2·(2/3)·0.2/(2/3+0.2) = 0.3077, which `f1_at_k([1, 0, 1, 0, 1], 3, 10)` gives.
### END SOLUTION
"""),
        md(r"""
## Summary

* Precision@k $= |RD \cap Top_{kd}| / k$, Recall@k $= |RD \cap Top_{kd}| / |RD|$,
  F1@k their harmonic mean, HitRate@k whether anything relevant is in the top k.
* They ignore the order inside the top $k$; recall needs $|RD|$, which a
  judged collection provides and a live system usually does not.
* Recall@k never decreases with $k$; precision can go either way.
* Conventions to name: for $k$ larger than the ranking we divide by $k$
  (trec_eval), not by what was retrieved (`denominator="retrieved"`).
* The slides' F1@3 = 0.29 uses Precision@2 instead of Precision@3; the
  right value is 0.3077.
"""),
        nav(stem),
    ]


# ===================================================================== 02

def order_aware():
    stem = "02_order_aware"
    return stem, [
        nav(stem),
        md(r"""
# 02 · Order-aware metrics: MRR, AP and MAP

**Intuition.**  Two retrievers can return the same three relevant documents
in their top 5, one at ranks 1, 2, 3 and the other at ranks 3, 4, 5.
Precision@5 cannot tell them apart; a reader (or a generator with a limited
context window) can.  *Order-aware* metrics reward relevant documents near
the top.
"""),
        code(r"""
import ragmetrics_edu as rm
"""),
        md(r"""
## The formulas

**Reciprocal rank** of one query: one over the rank of the *first* relevant
document (0 if none); **MRR** is its mean over the $|Q|$ queries:

$$RR = \frac{1}{rank_1} \qquad MRR = \frac{1}{|Q|} \sum_{q=1}^{|Q|} \frac{1}{rank_q}$$

**Average Precision** of one query: the mean of Precision@i over the ranks
$i$ that hold a relevant document, dividing by all $|RD|$ relevant documents
(those never retrieved contribute 0); **MAP** is its mean over queries:

$$AP@k = \frac{1}{|RD|} \sum_{i=1}^{k} \text{Precision@}i \cdot rel_i
\qquad MAP@k = \frac{1}{|Q|} \sum_{q=1}^{|Q|} AP@k_q$$

MRR only sees the first relevant document ("the number of relevant documents
does not matter", say the slides); AP sees all of them.
"""),
        md(r"""
## The slides' examples, rebuilt

MRR: the first query's first relevant document is at rank 1, the second's at
rank 2.
"""),
        code(r"""
mrr_queries = rm.examples.get("mrr_slides").inputs["list_of_rels"]
for q, rels in enumerate(mrr_queries, start=1):
    print(f"query {q}: {rels}  RR = {round(rm.reciprocal_rank(rels), 4)}")
print("MRR =", round(rm.mean_reciprocal_rank(mrr_queries), 4))
"""),
        code(r"""
rm.widgets.seed_table("rr_slides_q1", "rr_slides_q2", "mrr_slides")
"""),
        md(r"""
> **Wording slip.**  One MRR slide says MRR "is ideal when the goal is to
> bring as many relevant items as possible close to the top of the results
> set".  MRR sees only the *first* relevant item, as the next slide says ("In
> MRR, the number of relevant documents does not matter"): putting a second
> relevant item near the top does not change it.  Bringing many relevant items
> to the top is what AP and MAP reward.  The slides' MRR = 3/4 is right.
"""),
        md(r"""
Average Precision: relevant at ranks 1, 3, 5 with $|RD| = 10$, then a ranking
"where the results are higher in order", relevant at 1, 2, 3.
"""),
        code(r"""
rels = [1, 0, 1, 0, 1]
for i in range(1, 6):
    print(f"Precision@{i} = {round(rm.precision_at_k(rels, i), 4)}", "(relevant)" if rels[i - 1] else "")
print("AP (1, 3, 5) =", round(rm.average_precision(rels, n_relevant=10), 4))
print("AP (1, 2, 3) =", round(rm.average_precision([1, 1, 1, 0, 0], n_relevant=10), 4))
print("MAP of the two queries =",
      round(rm.mean_average_precision([rels, [1, 1, 1, 0, 0]], [10, 10]), 4))
"""),
        code(r"""
rm.widgets.seed_table(*(f"ap_slides_q1_precision_at_{k}" for k in range(1, 6)),
                      "ap_slides_q1", "ap_slides_q2")
"""),
        md(r"""
> **Wording slip.**  The slides call $(1 + 2/3 + 3/5)/10$ and
> $(1 + 1 + 1)/10$ "MAP", but each is the Average Precision of *one* query;
> MAP is the mean of AP over queries (here $(0.2267 + 0.3)/2 = 0.2633$).  The
> numbers themselves are right.
"""),
        rounding_box({"ap_slides_q1": "AP of ranks 1, 3, 5"}),
        md(r"""
## "Cat in a box": AP@8 per query, MAP@8 and MRR

The article's three queries over eight images, with 4, 4 and 2 relevant
images:
"""),
        code(r"""
ex = rm.examples.get("map_at_8_article")
cats, n_rel = ex.inputs["list_of_rels"], ex.inputs["n_relevants"]
for q, (rels, n) in enumerate(zip(cats, n_rel), start=1):
    print(f"query {q}: {rels}  |RD| = {n}  RR = {round(rm.reciprocal_rank(rels), 4):<6}"
          f"  AP@8 = {round(rm.average_precision(rels, n, k=8), 4)}")
print("MRR   =", round(rm.mean_reciprocal_rank(cats), 4))
print("MAP@8 =", round(rm.mean_average_precision(cats, n_rel, k=8), 4))
"""),
        code(r"""
rm.widgets.seed_table("rr_article_q1", "rr_article_q2", "rr_article_q3", "mrr_article",
                      "ap_at_8_article_q1", "ap_at_8_article_q2", "ap_at_8_article_q2_terms",
                      "ap_at_8_article_q3", "map_at_8_article")
"""),
        md(r"""
> **Erratum.**  The article's MRR code computes each query's rank as
> `first_result = actual_relevant[i][0]`, the *id* of the first relevant
> image, not its position in the ranking.  It prints the right 0.57 only
> because the images are numbered 1-8 in rank order; with any other ids it
> would be wrong.  `rm.reciprocal_rank` looks for the first relevant *rank*.
> Two smaller slips: the terms written for AP@8 of query 2 use 0.4 and 0.43
> where $P@5 = 3/5 = 0.6$ and $P@7 = 4/7 = 0.57$ (the printed 0.67 uses the right
> ones).  MAP@8 = 0.48 and MRR = 0.57 are right to two decimals (0.4786 and
> 0.5667).
"""),
        rounding_box({"ap_at_8_article_q3": "AP@8 of query 3"}),
        md(r"""
## Conventions: what AP divides by

Libraries disagree on AP's denominator, so the same ranking gets different
"AP" numbers.  `rm.average_precision` names them:

| `denominator=` | divides by | used by |
| --- | --- | --- |
| `"all_relevant"` (default) | $|RD|$ | the slides, trec_eval `map`, ranx |
| `"retrieved_relevant"` | relevant documents in the top $k$ | ragas / DeepEval context precision |
| `"min_k_relevant"` | $\min(k, |RD|)$ | "AP@k" variants that score a perfect top $k$ as 1 |
"""),
        code(r"""
for d in ("all_relevant", "retrieved_relevant", "min_k_relevant"):
    print(f"{d:<20} AP = {round(rm.average_precision([1, 0, 1, 0, 1], 10, denominator=d), 4)}")
"""),
        md(r"""
## Play with it

One row of toggles per query.  Beside each, the reciprocal rank and the AP
written out as the sum is built: one term $hits/i$ per relevant rank $i$.
Below, MRR and MAP as means over the queries, and a bar chart.  Try: move a
relevant document from rank 5 to rank 2 and watch AP grow while MRR does not
move; set $k$ to 3; switch the AP denominator.
"""),
        code(r"""
explorer = rm.widgets.average_precision_explorer([[1, 0, 1, 0, 1], [1, 1, 1, 0, 0]],
                                                 n_relevants=[10, 10])
explorer
"""),
        code(r"""
explorer.toggles[1][0].value = False   # query 2 now starts with an irrelevant document
print(round(explorer.values["mrr"], 4), round(explorer.values["map"], 4))
"""),
        md(r"""
## Exercises

### Exercise 1: reciprocal rank

Implement `reciprocal_rank(rels)`: one over the rank (counted from 1) of the
first relevant document (a grade > 0), or 0.0 if there is none.
"""),
        code(r"""
def reciprocal_rank(rels):
    ### BEGIN SOLUTION
    for i, r in enumerate(rels, start=1):
        if r > 0:
            return 1.0 / i
    return 0.0
    ### END SOLUTION
"""),
        code(r'''
"""Check reciprocal_rank against rm.reciprocal_rank."""
rm.widgets.check_exercise(reciprocal_rank, rm.reciprocal_rank, [
    (([1, 0, 1, 0, 1],), {}, "first relevant at rank 1"),
    (([0, 1, 0, 0, 0],), {}, "first relevant at rank 2: ranks count from 1"),
    (([0, 0, 0, 0, 1, 0, 0, 1],), {}, "the article's query 3"),
    (([0, 0, 0],), {}, "nothing relevant: 0"),
    (([0, 3, 2],), {}, "graded: any grade > 0 is relevant"),
])
'''),
        md(r"""
### Exercise 2: Average Precision

Implement `average_precision(rels, n_relevant)`: the sum of Precision@i over
the relevant ranks $i$, divided by `n_relevant` (0.0 when it is 0).  You may
call `rm.precision_at_k` or count yourself.
"""),
        code(r"""
def average_precision(rels, n_relevant):
    ### BEGIN SOLUTION
    if n_relevant == 0:
        return 0.0
    hits, total = 0, 0.0
    for i, r in enumerate(rels, start=1):
        if r > 0:
            hits += 1
            total += hits / i
    return total / n_relevant
    ### END SOLUTION
"""),
        code(r'''
"""Check average_precision against rm.average_precision on the seeds' rankings."""
cases = [(([1, 0, 1, 0, 1], 10), {}, "the slides' 0.2267: divide by |RD| = 10, not by 3"),
         (([1, 1, 1, 0, 0], 10), {}, "the slides' 0.3")]
cases += [((rels, n), {}, f"the article's query {q}") for q, (rels, n) in enumerate(zip(cats, n_rel), 1)]
cases += [(([0, 0, 0], 2), {}, "nothing found: 0"),
          (([0, 0, 1], 1), {}, "one relevant, at rank 3: 1/3")]
rm.widgets.check_exercise(average_precision, rm.average_precision, cases)
'''),
        md(r"""
### Exercise 3: MAP and MRR over queries

Implement `mean_average_precision(list_of_rels, n_relevants)` and
`mean_reciprocal_rank(list_of_rels)` from your functions.
"""),
        code(r"""
def mean_average_precision(list_of_rels, n_relevants):
    ### BEGIN SOLUTION
    aps = [average_precision(r, n) for r, n in zip(list_of_rels, n_relevants)]
    return sum(aps) / len(aps)
    ### END SOLUTION


def mean_reciprocal_rank(list_of_rels):
    ### BEGIN SOLUTION
    return sum(reciprocal_rank(r) for r in list_of_rels) / len(list_of_rels)
    ### END SOLUTION
"""),
        code(r'''
"""Check mean_average_precision and mean_reciprocal_rank against the library."""
rm.widgets.check_exercise(mean_average_precision, rm.mean_average_precision, [
    ((cats, n_rel), {}, "the article's MAP@8 = 0.4786"),
    (([[1, 0, 1, 0, 1], [1, 1, 1, 0, 0]], [10, 10]), {}, "the slides' two AP examples"),
    (([[0, 0], [1, 0]], [1, 1]), {}, "a query with nothing found still counts, as 0"),
])
rm.widgets.check_exercise(mean_reciprocal_rank, rm.mean_reciprocal_rank, [
    ((mrr_queries,), {}, "the slides' 3/4"),
    ((cats,), {}, "the article's 0.5667"),
    (([[0, 0, 0], [0, 1]],), {}, "a query with nothing found counts as 0"),
])
'''),
        md(r"""
### Exercise 4 (discussion): why does a RAG library report a different AP?

ragas' "context precision" on the ranking `[1, 0, 1, 0, 1]` reports 0.7556,
the slides 0.2267.  Which is right?

### BEGIN SOLUTION
Both sum the same precisions 1/1 + 2/3 + 3/5 = 2.2667; they divide by
different things.  The slides (and trec_eval) divide by |RD| = 10, all the
relevant documents of the query, so the seven never retrieved count as
misses: 0.2267.  Context precision divides by the 3 relevant documents that
*were* retrieved: 0.7556 (`rm.average_precision(rels, 10,
denominator="retrieved_relevant")`).  It measures only the order of what came
back, not what was missed.  Neither is wrong; a number is only meaningful with
its convention.
### END SOLUTION
"""),
        md(r"""
## Summary

* RR $= 1/rank_1$ looks only at the first relevant document; MRR averages it.
* AP averages Precision@i at every relevant rank and divides by $|RD|$; MAP
  averages AP over queries.  Moving a relevant document up raises AP.
* The slides' "MAP" examples are single-query APs (0.2267 and 0.3); the
  article's MAP@8 is 0.4786 and its MRR 0.5667.
* AP's denominator is a convention: `all_relevant` (trec_eval),
  `retrieved_relevant` (ragas' context precision), `min_k_relevant`.
"""),
        nav(stem),
    ]


# ===================================================================== 03

def graded():
    stem = "03_graded"
    return stem, [
        nav(stem),
        md(r"""
# 03 · Graded relevance: CG, DCG, IDCG and NDCG

**Intuition.**  Relevance is not always yes or no: a passage can answer the
question perfectly (grade 5), help a little (1) or not at all (0).  Graded
metrics add up the grades of the retrieved documents, *discount* those
further down the list, and compare with the best possible ordering.
"""),
        code(r"""
import ragmetrics_edu as rm
"""),
        md(r"""
## The formulas

With $rel_i$ the grade at rank $i$:

$$CG@k = \sum_{i=1}^{k} rel_i
\qquad
DCG@k = \sum_{i=1}^{k} \frac{gain(rel_i)}{\log_2(i+1)}
\qquad
NDCG@k = \frac{DCG@k}{IDCG@k}$$

* **CG** ignores the order.
* **DCG** divides the gain at rank $i$ by $\log_2(i+1)$: rank 1 is not
  discounted, rank 3 is halved.  The gain is the grade (*linear*, the seeds,
  trec_eval) or $2^{rel}-1$ (*exponential*, Burges et al. 2005).
* **IDCG@k** is the DCG@k of the *ideal* ranking, the grades sorted best
  first, so NDCG is in $[0, 1]$.  Which grades are sorted is a convention (see
  below).
"""),
        md(r"""
## The discount table

The slides tabulate $\log_2(i+1)$ for $i = 1, \dots, 5$:
"""),
        code(r"""
for i in range(1, 6):
    print(f"i = {i}: log2(i + 1) = {round(rm.examples.get(f'discount_rank_{i}').recompute(), 4)}")
"""),
        code(r"""
rm.widgets.seed_table(*(f"discount_rank_{i}" for i in range(1, 6)))
"""),
        rounding_box({"discount_rank_2": "i = 2", "discount_rank_4": "i = 4",
                      "discount_rank_5": "i = 5"}),
        md(r"""
## The slides' example: grades [5, 3, 5, 0, 2]
"""),
        code(r"""
grades = rm.examples.get("dcg_at_3").inputs["rels"]
print("grades:", grades)
for k in (3, 5):
    print(f"CG@{k} = {round(rm.cumulative_gain(grades, k), 4)}   DCG@{k} = {round(rm.dcg_at_k(grades, k), 4)}"
          f"   IDCG@{k} = {round(rm.idcg_at_k(grades, k), 4)}   NDCG@{k} = {round(rm.ndcg_at_k(grades, k), 4)}")
"""),
        code(r"""
rm.widgets.seed_table("dcg_at_3", "dcg_at_3_numerators", "dcg_at_5", "dcg_at_5_numerators",
                      "idcg_table_discount_2", "idcg_table_discount_3",
                      "idcg_table_discount_4", "idcg_table_discount_5",
                      "idcg_at_3", "idcg_at_5", "ndcg_at_3", "ndcg_at_5")
"""),
        md(r"""
> **Erratum.**  DCG@3 $= 5/1 + 3/1.585 + 5/2 = 9.39$; the slides' 9.40
> comes from rounding $\log_2 3$ to 1.58, and a later slide writes the
> numerators as 1 instead of the grades (and $\log_2 5$ as 2.52).  The IDCG
> table puts the terms $3/2 = 1.5$ and $2/2.322 = 0.861$ in the
> $\log_2(i+1)$ column, which should read 2 and 2.322; its totals use the
> right terms.
"""),
        md(r"""
> **Wording slips** (the numbers are right).  The slides' list of metrics
> calls NDCG "Normal Discounted Cumulative Gain": it is *Normalized* DCG.  The
> IDCG table writes "IDGC".  The DCG slide says "$rel_i$ is the relevancy
> score (1-5)", but the deck grades from 0 to 5, and this example has a grade 0.
> Last, the slides give two reasons why NDCG@5 (0.967) is below NDCG@3
> (0.973): "we have sorted the documents based on relevancy" and "NDCG@5 had
> more lesser relevant documents".  Neither is the cause.  At rank 4 the
> ranking holds a 0 where the ideal ranking holds a 2, so ranks 4-5 add
> $0/2.322 + 2/2.585 = 0.774$ to DCG but $2/2.322 + 0/2.585 = 0.861$ to IDCG.
> The same documents in the order [5, 3, 5, 2, 0] raise NDCG@5 above NDCG@3:
"""),
        code(r"""
print("NDCG@3 of [5, 3, 5, 0, 2] =", round(rm.ndcg_at_k([5, 3, 5, 0, 2], 3), 4))
print("NDCG@5 of [5, 3, 5, 0, 2] =", round(rm.ndcg_at_k([5, 3, 5, 0, 2], 5), 4))
print("NDCG@5 of [5, 3, 5, 2, 0] =", round(rm.ndcg_at_k([5, 3, 5, 2, 0], 5), 4))
"""),
        rounding_box({"idcg_at_3": "IDCG@3", "idcg_at_5": "IDCG@5", "ndcg_at_3": "NDCG@3"}),
        md(r"""
## The blog's example: relevance [3, 2, 3, 0, 1]

The blog post's Python code prints DCG, IDCG and NDCG at 5 but not their
values; here they are:
"""),
        code(r"""
blog = rm.examples.get("dcg_at_5_blog").inputs["rels"]
print("relevance:", blog, " ideal order:", sorted(blog, reverse=True))
for gain in ("linear", "exponential"):
    print(f"{gain:<12} DCG@5 = {round(rm.dcg_at_k(blog, 5, gain), 4):<8}"
          f" IDCG@5 = {round(rm.idcg_at_k(blog, 5, gain), 4):<8}"
          f" NDCG@5 = {round(rm.ndcg_at_k(blog, 5, gain), 4)}")
"""),
        code(r"""
rm.widgets.seed_table("dcg_at_5_blog", "idcg_at_5_blog", "ndcg_at_5_blog")
"""),
        unrebuildable_box("dcg_at_4_blog", "Before its code, the blog"),
        code(r"""
ex = rm.examples.get("dcg_at_4_blog")
print(f"the blog's {ex.metric}: {ex.stated}   inputs: {ex.inputs}   correct: {ex.correct}")
print("largest DCG@4 with grades <= 5, linear gain:     ", round(rm.dcg_at_k([5, 5, 5, 5], 4), 4))
print("largest DCG@4 with grades <= 5, exponential gain:",
      round(rm.dcg_at_k([5, 5, 5, 5], 4, "exponential"), 4))
"""),
        md(r"""
## Order matters: the article's swap

The article's first two images have grades 0 and 4.  CG@2 is 4 either way;
DCG@2 is 2.52, or 4 once the grade-4 image is put first.
"""),
        code(r"""
for rels in ([0, 4], [4, 0]):
    print(f"{rels}: CG@2 = {round(rm.cumulative_gain(rels, 2), 4)}   DCG@2 = {round(rm.dcg_at_k(rels, 2), 4)}")
"""),
        code(r"""
rm.widgets.seed_table("cg_at_2_article", "cg_at_2_article_swapped", "dcg_at_2_article",
                      "dcg_at_2_article_swapped", "idcg_at_2_article", "ndcg_at_2_article",
                      "ndcg_at_2_article_code")
"""),
        md(r"""
> **Erratum.**  The article gives two NDCGs for one example.  Its text
> computes $2.52/6.52 = 0.39$ from grades 0 and 4 on a scale of 0 to 4, then
> says "we get a more interpretable result of 0.41".  The 0.41 comes from its
> code, whose `relevance = [0, 7, 2, 4, 6, 1, 4, 3]` uses grades up to 7 and
> does not match the grades of its text: its NDCG@2 is
> $(0 + 7/1.585)/(7 + 6/1.585) = 0.41$.  Each number is right for its own
> grades; they are not the same example.
"""),
        md(r"""
## Conventions: where the ideal ranking comes from

The seeds build the ideal ranking from the **retrieved** grades only;
scikit-learn's `ndcg_score` builds it from whatever items it is passed (pass
it only the retrieved ones and it does the same).  trec_eval and ranx build
it from **all judged** documents of the query, retrieved or not.  Suppose the collection holds
another grade-5 document that the retriever missed:
"""),
        code(r"""
judged = grades + [5]   # everything judged for the query: the retrieved five and a missed 5
print("NDCG@3, ideal from the retrieved list:", round(rm.ndcg_at_k(grades, 3), 4))
print("NDCG@3, ideal from all judged grades: ", round(rm.ndcg_at_k(grades, 3, ideal=judged), 4))
"""),
        md(r"""
With the retrieved list as the ideal, NDCG only judges the *order* of what
came back, so missing the best document costs nothing.  `rm.evaluate`
follows trec_eval (its signature says `idcg:all judged`).
"""),
        md(r"""
## Play with it

A slider per rank sets the grade (0-5) of the retrieved document; switch the
gain and where IDCG comes from ("all judged" adds the grades typed in
"judged, not retrieved").  The table shows every term; the bars are the
discounted gains of the ranking (filled) and of the ideal ranking (outlined).
Try: swap the grades at ranks 1 and 2 and watch DCG change but CG not; switch
to exponential gain and see the two grade-5 documents dominate (gain
$2^5 - 1 = 31$ each, against 7 for the grade 3).
"""),
        code(r"""
explorer = rm.widgets.ndcg_explorer([5, 3, 5, 0, 2], unretrieved=[5], k=3)
explorer
"""),
        code(r"""
explorer.ideal_source.value = "judged"
print("NDCG@3 with the missed grade-5 document in the ideal:", round(explorer.values["ndcg_at_k"], 4))
"""),
        md(r"""
## Exercises

### Exercise 1: DCG@k

Implement `dcg_at_k(rels, k)` with the linear gain: the sum over the first
`k` ranks of the grade divided by $\log_2(i+1)$ (use `math.log2`).
"""),
        code(r"""
import math


def dcg_at_k(rels, k):
    ### BEGIN SOLUTION
    return sum(rel / math.log2(i + 1) for i, rel in enumerate(rels[:k], start=1))
    ### END SOLUTION
"""),
        code(r'''
"""Check dcg_at_k against rm.dcg_at_k."""
rm.widgets.check_exercise(dcg_at_k, rm.dcg_at_k, [
    (([5, 3, 5, 0, 2], 3), {}, "the slides' DCG@3 = 9.3928: rank 1 is divided by log2(2) = 1"),
    (([5, 3, 5, 0, 2], 5), {}, "the slides' DCG@5"),
    (([3, 2, 3, 0, 1], 5), {}, "the blog's example"),
    (([0, 4], 2), {}, "the article's 2.52"),
    (([1, 2], 10), {}, "k larger than the ranking"),
])
'''),
        md(r"""
### Exercise 2: NDCG@k, the seeds' way

Implement `ndcg_at_k(rels, k)`: DCG@k divided by the DCG@k of `rels` sorted
best first; 0.0 when that ideal DCG is 0.
"""),
        code(r"""
def ndcg_at_k(rels, k):
    ### BEGIN SOLUTION
    ideal = dcg_at_k(sorted(rels, reverse=True), k)
    return 0.0 if ideal == 0 else dcg_at_k(rels, k) / ideal
    ### END SOLUTION
"""),
        code(r'''
"""Check ndcg_at_k against rm.ndcg_at_k (ideal from the retrieved list)."""
rm.widgets.check_exercise(ndcg_at_k, rm.ndcg_at_k, [
    (([5, 3, 5, 0, 2], 3), {}, "the slides' NDCG@3 = 0.973"),
    (([5, 3, 5, 0, 2], 5), {}, "the slides' NDCG@5 = 0.967"),
    (([3, 2, 3, 0, 1], 5), {}, "the blog's example"),
    (([0, 0, 0], 3), {}, "no relevant document: IDCG = 0, NDCG = 0"),
    (([1, 2, 3], 2), {}, "the ideal ranking is cut at k too"),
])
'''),
        md(r"""
### Exercise 3: why does this library report a different NDCG?

`rm.evaluate` (like trec_eval) reports a lower NDCG@3 for the slides' ranking
when the query has a missed grade-5 document.  Implement
`ndcg_all_judged(rels, judged, k)`: the same NDCG, but with the ideal ranking
built from `judged`, the grades of *all* judged documents of the query.
"""),
        code(r"""
def ndcg_all_judged(rels, judged, k):
    ### BEGIN SOLUTION
    ideal = dcg_at_k(sorted(judged, reverse=True), k)
    return 0.0 if ideal == 0 else dcg_at_k(rels, k) / ideal
    ### END SOLUTION
"""),
        code(r'''
"""Check ndcg_all_judged against rm.ndcg_at_k(rels, k, ideal=judged) and rm.evaluate."""
rm.widgets.check_exercise(
    ndcg_all_judged,
    lambda rels, judged, k: rm.ndcg_at_k(rels, k, ideal=judged),
    [(([5, 3, 5, 0, 2], [5, 3, 5, 0, 2, 5], 3), {}, "a missed grade-5 document"),
     (([5, 3, 5, 0, 2], [5, 3, 5, 0, 2], 5), {}, "nothing missed: the seeds' NDCG@5"),
     (([0, 1], [0, 1, 3, 3], 2), {}, "two missed grade-3 documents"),
     (([0, 0], [0, 0, 0], 2), {}, "nothing relevant judged: 0")],
    name="ndcg_all_judged")
# and the batch evaluation agrees with it:
qrels = {"q": {"a": 5, "b": 3, "c": 5, "d": 0, "e": 2, "missed": 5}}
run = {"q": {"a": 5.0, "b": 4.0, "c": 3.0, "d": 2.0, "e": 1.0}}
want = rm.evaluate(qrels, run, ["ndcg@3"]).mean["ndcg@3"]
got = ndcg_all_judged([5, 3, 5, 0, 2], [5, 3, 5, 0, 2, 5], 3)
assert abs(got - want) < 1e-9, f"rm.evaluate reports ndcg@3 = {want}, your function {got}"
print("and rm.evaluate reports the same ndcg@3:", round(want, 4))
'''),
        md(r"""
### Exercise 4 (discussion)

Explain in two sentences why the two NDCG@3 values of the slides' ranking
(0.9729 and the value of Exercise 3) differ, and when each is the right one to
report.

### BEGIN SOLUTION
Both divide the same DCG@3 = 9.39; the seeds' IDCG sorts only the retrieved
grades ([5, 5, 3] → 9.65), while trec_eval's sorts all judged grades, which
include the missed 5 ([5, 5, 5] → 10.65).  The first judges only how well the
retrieved documents are ordered; the second also penalises what the
retriever failed to find, which is what a RAG system's evaluation usually
needs, so say which one you report.
### END SOLUTION
"""),
        md(r"""
## Summary

* CG adds grades; DCG discounts rank $i$ by $\log_2(i+1)$; NDCG divides by
  the ideal DCG, so it is in $[0, 1]$.
* The slides' DCG@3 is 9.39 (not 9.40), IDCG@3 9.6546, NDCG@3 0.9729, NDCG@5
  0.9668; the article's swap shows DCG@2 2.52 against 4 while CG stays 4.
* Two conventions change NDCG: linear or exponential gain, and an ideal
  ranking from the retrieved list (the seeds; scikit-learn when passed only
  the retrieved items) or from all judged documents (trec_eval, ranx,
  `rm.evaluate`).
"""),
        nav(stem),
    ]


BUILDERS = [introduction, order_unaware, order_aware, graded]


def main(argv=None):
    wanted = set(argv if argv is not None else sys.argv[1:])
    for build in BUILDERS:
        stem, cells = build()
        if wanted and not any(stem.startswith(w) for w in wanted):
            continue
        print("wrote", write_notebook(stem, cells).relative_to(ROOT))


if __name__ == "__main__":
    main()
