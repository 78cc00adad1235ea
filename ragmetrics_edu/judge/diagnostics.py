r"""Which part of a RAG pipeline to fix: claim-level diagnostics (RAGChecker, ragas).

A wrong answer has two possible causes: the retriever did not bring the
facts, or the generator did not use them (or added its own). RAGChecker
(Ru et al., NeurIPS 2024 datasets and benchmarks track) splits the error by
cause from four yes/no **entailment tables**, each filled by a judge (an
NLI model, an LLM, a person) that reads one text and says whether it states
a claim. One entry per:

==============================  ======================  ==========================
our keyword                     RAGChecker's field      ragas's name
==============================  ======================  ==========================
``response_claims_correct``     ``answer2response``     ``ground_truth2answer``
``reference_claims_covered``    ``response2answer``     (none)
``response_claims_supported``   ``retrieved2response``  ``retrieved2answer``
``reference_claims_retrieved``  ``retrieved2answer``    ``retrieved2ground_truth``
==============================  ======================  ==========================

* ``response_claims_correct``: one verdict per claim of the response: does
  the reference answer entail it?
* ``reference_claims_covered``: one per claim of the reference answer: does
  the response entail it?
* ``response_claims_supported``: response claims x retrieved chunks: does
  the chunk entail the claim?
* ``reference_claims_retrieved``: reference claims x retrieved chunks.

RAGChecker's names read *premise2hypothesis*: ``answer2response`` is "the
(ground-truth) answer entails each response claim", so its length is the
number of **response** claims, and ``retrieved2answer`` holds one row per
**reference** claim. Most readers take ``a2b`` the other way round, so the
keywords here say what each entry means.

The metrics
-----------
Write :math:`C_i` for "response claim :math:`i` is correct", :math:`V_j` for
"reference claim :math:`j` is covered", :math:`S_{ik}` for "chunk :math:`k`
supports response claim :math:`i`", :math:`R_{jk}` for "chunk :math:`k`
states reference claim :math:`j`", with :math:`n` response claims,
:math:`m` reference claims and :math:`K` chunks. **A chunk is relevant when
it states at least one reference claim**: :math:`\mathrm{rel}_k = \max_j
R_{jk}`. A response claim is *faithful* when some chunk supports it,
:math:`F_i = \max_k S_{ik}`, and a reference claim *found* when some chunk
states it, :math:`G_j = \max_k R_{jk}`.

* the whole pipeline: precision :math:`\frac1n\sum_i C_i`, recall
  :math:`\frac1m\sum_j V_j`, and their F1 (0 when either is 0);
* the **retriever**: claim recall :math:`\frac1m\sum_j G_j` and context
  precision :math:`\frac1K\sum_k \mathrm{rel}_k` (the share of relevant
  chunks, whatever their order);
* the **generator**: context utilization :math:`\sum_j G_j V_j / \sum_j
  G_j` (of the reference claims retrieved, the share the response states);
  faithfulness :math:`\frac1n\sum_i F_i`; hallucination
  :math:`\frac1n\sum_i \lnot C_i \lnot F_i` (wrong and from no chunk);
  self-knowledge :math:`\frac1n\sum_i C_i \lnot F_i` (right, yet from no
  chunk); and the two noise sensitivities, wrong claims that chunks support:

.. math::

    \text{NS}_\text{rel} = \frac1n\sum_i \lnot C_i\, A_i,
    \qquad
    \text{NS}_\text{irr} = \frac1n\sum_i \lnot C_i\, \lnot A_i\,
        \max_k(\lnot\mathrm{rel}_k\, S_{ik}),
    \qquad
    A_i = \max_k(\mathrm{rel}_k\, S_{ik}).

Noise sensitivities and hallucination are lower-is-better; self-knowledge
is read beside faithfulness (a correct claim from the model's own
knowledge is neither a fault nor grounded); every other metric is
higher-is-better. An incorrect response claim lands in exactly one of three
bins: supported by a relevant chunk (noise sensitivity in relevant: a wrong
detail copied from a good chunk), supported only by irrelevant chunks
(noise sensitivity in irrelevant: misled by noise; a claim that a relevant
chunk also supports counts as relevant only, which is why the two are made
exclusive), or supported by none (hallucination). So, whenever the tables
are not empty,

.. math::

    \text{NS}_\text{rel} + \text{NS}_\text{irr} + \text{hallucination} = 1 - \text{precision},
    \qquad
    \text{hallucination} + \text{self\_knowledge} + \text{faithfulness} = 1.

Empty tables
------------
RAGChecker 0.1.9 (``ragchecker/computation.py``) gives **0** whenever a
table a metric needs is empty, and so does :func:`claim_diagnostics` by
default (``empty_score=0.0``); ``empty_score=math.nan`` marks such a metric
as undefined instead, so that ``numpy.nanmean`` leaves the answer out.
The guards, as RAGChecker has them:

* precision: no response claim; recall: no reference claim;
* F1: precision or recall is NaN (F1 is then NaN); 0 when either is 0;
* claim recall and context precision: no reference claim, or no chunk;
* context utilization: no reference claim, no chunk, or no reference
  claim found in any chunk;
* noise sensitivities: no response claim, no reference claim, or no chunk
  (which chunks are relevant is read off the reference claims);
* hallucination, self-knowledge and faithfulness: no response claim, or no
  chunk.

With chunks but no reference claim the formulas would give a noise
sensitivity in irrelevant above 0 (every chunk is "irrelevant"), and with
response claims but no chunk a hallucination above 0; RAGChecker's guards
give 0 in both cases, and so does the default here.

ragas
-----
:func:`noise_sensitivity` is ragas's ``NoiseSensitivity`` (modes
``"relevant"`` and ``"irrelevant"``), whose ``_compute_score`` is the same
formula over the same three tables, with ragas's empty cases (NaN, or an
error). :func:`context_entity_recall` is ragas's ``ContextEntityRecall``.
Response relevancy (ragas's ``ResponseRelevancy``, its instance
``answer_relevancy``) is :func:`ragmetrics_edu.judge.rag.answer_relevancy`.
Notebook 15 shows the differences with RAGChecker side by side.

Read for this module: ragchecker 0.1.9 (``computation.py``,
``container.py``, ``metrics.py``, ``evaluator.py``); ragas 0.4.0
(``src/ragas/metrics/_noise_sensitivity.py``, ``_context_entities_recall.py``,
``_answer_relevance.py``, and their ``metrics/collections`` versions).

References
----------
D. Ru, L. Qiu, X. Hu, T. Zhang, P. Shi, S. Chang, C. Jiayang, C. Wang,
S. Sun, H. Li, Z. Zhang, B. Wang, J. Jiang, T. He, Z. Wang, P. Liu,
Y. Zhang, Z. Zhang, "RAGChecker: A Fine-grained Framework for Diagnosing
Retrieval-Augmented Generation", NeurIPS 2024 Datasets and Benchmarks
track (arXiv:2408.08067); the ``ragchecker`` package.
S. Es, J. James, L. Espinosa-Anke, S. Schockaert, "RAGAS: Automated
Evaluation of Retrieval Augmented Generation", EACL 2024 (demo track); the
``ragas`` package.
"""

import math
import numbers
from dataclasses import dataclass

import numpy as np

from .._texts import check_string_list, cut_repr as _describe

__all__ = [
    "DIAGNOSTIC_NAMES",
    "DIAGNOSTIC_GROUPS",
    "ClaimDiagnostics",
    "claim_diagnostics",
    "mean_claim_diagnostics",
    "NOISE_SENSITIVITY_MODES",
    "noise_sensitivity",
    "ENTITY_COUNTS",
    "context_entity_recall",
]

#: The eleven metrics, in RAGChecker's order (``metrics.METRIC_GROUP_MAP["all_metrics"]``).
DIAGNOSTIC_NAMES = (
    "precision", "recall", "f1",
    "claim_recall", "context_precision",
    "context_utilization", "noise_sensitivity_in_relevant", "noise_sensitivity_in_irrelevant",
    "hallucination", "self_knowledge", "faithfulness",
)

#: RAGChecker's three groups: the whole pipeline, the retriever, the generator.
DIAGNOSTIC_GROUPS = {
    "overall": ("precision", "recall", "f1"),
    "retriever": ("claim_recall", "context_precision"),
    "generator": ("context_utilization", "noise_sensitivity_in_relevant",
                  "noise_sensitivity_in_irrelevant", "hallucination", "self_knowledge",
                  "faithfulness"),
}

_LOWER_IS_BETTER = {"noise_sensitivity_in_relevant", "noise_sensitivity_in_irrelevant",
                    "hallucination"}


def _entry(value, name, where):
    """One yes/no entry as a Python bool, or raise naming the argument and the position."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Integral) and value in (0, 1):
        return bool(value)
    if isinstance(value, float) and math.isnan(value):
        raise ValueError(f"{name}{where} is NaN: every entry must be a yes/no verdict "
                         f"(True/False or 1/0); a verdict the judge did not give must be decided "
                         f"before scoring")
    raise ValueError(f"{name}{where} must be a yes/no verdict (True/False or 1/0), "
                     f"got {_describe(value)}")


def _sequence(value, name):
    if isinstance(value, np.ndarray):
        return value.tolist() if value.ndim else value
    if isinstance(value, (str, bytes, dict, set)) or not hasattr(value, "__len__"):
        raise TypeError(f"{name} must be a list (or array) of yes/no verdicts, "
                        f"got {_describe(value)}")
    return list(value)


def _vector(value, name):
    """A 1-D table of verdicts as a numpy bool array."""
    if isinstance(value, np.ndarray) and value.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional (one verdict per claim), "
                         f"got an array of shape {value.shape}")
    items = _sequence(value, name)
    return np.array([_entry(v, name, f"[{i}]") for i, v in enumerate(items)], dtype=bool)


def _matrix(value, name):
    """A 2-D table of verdicts as a numpy bool array of shape (rows, chunks), or
    ``(rows, None)`` when it has no row (the number of chunks is then unknown)."""
    if isinstance(value, np.ndarray):
        if value.ndim != 2:
            raise ValueError(f"{name} must be two-dimensional (one row per claim, one column per "
                             f"chunk), got an array of shape {value.shape}")
        if value.shape[0] == 0:
            return np.zeros(value.shape, dtype=bool), value.shape[1]
    rows = _sequence(value, name)
    if not rows:
        return None, None
    out = []
    for i, row in enumerate(rows):
        if isinstance(row, (str, bytes, dict, set)) or not hasattr(row, "__len__"):
            raise TypeError(f"{name}[{i}] must be a row of yes/no verdicts (one per chunk), "
                            f"got {_describe(row)}")
        row = row.tolist() if isinstance(row, np.ndarray) else list(row)
        if out and len(row) != len(out[0]):
            raise ValueError(f"{name} is ragged: row 0 has {len(out[0])} entries (chunks) and "
                             f"row {i} has {len(row)}; every row needs one verdict per chunk")
        out.append([_entry(v, name, f"[{i}][{k}]") for k, v in enumerate(row)])
    array = np.array(out, dtype=bool).reshape(len(out), len(out[0]))
    return array, array.shape[1]


def _check_empty_score(value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"empty_score must be a number (0.0, RAGChecker's, or math.nan), "
                        f"got {_describe(value)}")
    return float(value)


def _tables(n, response_claims_supported, reference_claims_retrieved, m=None):
    """The two 2-D tables, checked: ``(S, R)`` of shapes (n, K) and (m, K).

    ``n`` comes from ``response_claims_correct``; ``m`` from
    ``reference_claims_covered`` (None: whatever rows R has).
    """
    supported, k_s = _matrix(response_claims_supported, "response_claims_supported")
    retrieved, k_r = _matrix(reference_claims_retrieved, "reference_claims_retrieved")
    checks = [(supported, n, "response_claims_supported", "response_claims_correct")]
    if m is not None:
        checks.append((retrieved, m, "reference_claims_retrieved", "reference_claims_covered"))
    for table, want, name, other in checks:
        got = 0 if table is None else table.shape[0]
        if got != want:
            shape = "(0, ...)" if table is None else str(tuple(table.shape))
            raise ValueError(f"{name} has shape {shape} but must have shape ({want}, n_chunks): "
                             f"one row per claim, and {other} has {want}")
    if k_s is not None and k_r is not None and k_s != k_r:
        raise ValueError(f"response_claims_supported has shape {tuple(supported.shape)} and "
                         f"reference_claims_retrieved has shape {tuple(retrieved.shape)}: both need "
                         f"one column per retrieved chunk, {k_s} against {k_r}")
    k = k_s if k_s is not None else (k_r if k_r is not None else 0)
    if supported is None:
        supported = np.zeros((0, k), dtype=bool)
    if retrieved is None:
        retrieved = np.zeros((0, k), dtype=bool)
    return supported, retrieved


def _share(mask, empty, empty_score):
    """``mean(mask)`` as RAGChecker computes it (sum over count), or ``empty_score``."""
    if empty:
        return empty_score
    return float(int(mask.sum()) / mask.size)


@dataclass(frozen=True)
class ClaimDiagnostics:
    """RAGChecker's eleven metrics of one answer, and the sizes of its tables.

    Print it for a table of the three groups; :meth:`as_dict` gives the
    eleven numbers under RAGChecker's names (:data:`DIAGNOSTIC_NAMES`).
    Noise sensitivities and hallucination are lower-is-better; self-knowledge
    is read beside faithfulness; every other metric is higher-is-better.
    """

    precision: float
    recall: float
    f1: float
    claim_recall: float
    context_precision: float
    context_utilization: float
    noise_sensitivity_in_relevant: float
    noise_sensitivity_in_irrelevant: float
    hallucination: float
    self_knowledge: float
    faithfulness: float
    n_response_claims: int
    n_reference_claims: int
    n_chunks: int
    empty_score: float = 0.0

    def as_dict(self):
        """``{name: value}`` for the eleven metrics, in RAGChecker's order."""
        return {name: getattr(self, name) for name in DIAGNOSTIC_NAMES}

    def __str__(self):
        lines = [f"claim diagnostics ({self.n_response_claims} response claims, "
                 f"{self.n_reference_claims} reference claims, {self.n_chunks} chunks; "
                 f"empty tables score {self.empty_score})"]
        for group, names in DIAGNOSTIC_GROUPS.items():
            lines.append(f"  {group}")
            for name in names:
                arrow = "  (lower is better)" if name in _LOWER_IS_BETTER else ""
                lines.append(f"    {name:<32}{getattr(self, name):.4f}{arrow}")
        return "\n".join(lines)


def claim_diagnostics(*, response_claims_correct, reference_claims_covered,
                      response_claims_supported, reference_claims_retrieved, empty_score=0.0):
    r"""RAGChecker's eleven claim-level metrics of one answer, from four entailment tables.

    The formulas, the mapping to RAGChecker's field names and the empty-table
    conventions are in the module docstring
    (:mod:`ragmetrics_edu.judge.diagnostics`); the values equal
    ``ragchecker`` 0.1.9's ``computation.py`` (tests compare them on
    thousands of random tables, empty ones included).

    Parameters
    ----------
    response_claims_correct : sequence of bool or 0/1, length n
        One verdict per claim of the response: does the reference answer
        entail it? (RAGChecker's ``answer2response``.)
    reference_claims_covered : sequence of bool or 0/1, length m
        One verdict per claim of the reference answer: does the response
        entail it? (``response2answer``.)
    response_claims_supported : 2-D table of bool or 0/1, shape (n, K)
        Row i, column k: does retrieved chunk k entail response claim i?
        (``retrieved2response``.)
    reference_claims_retrieved : 2-D table of bool or 0/1, shape (m, K)
        Row j, column k: does retrieved chunk k entail reference claim j?
        (``retrieved2answer``.)
    empty_score : float, default 0.0
        The value of a metric whose tables are empty (see the module
        docstring): 0.0 is RAGChecker's convention, ``math.nan`` marks it
        undefined.

    Returns
    -------
    ClaimDiagnostics

    Raises
    ------
    ValueError
        An entry that is not a yes/no verdict (NaN, 2, 0.5, "Entailment"), a
        ragged table, or a table whose shape does not match the others
        (the message names the argument and both shapes).

    See Also
    --------
    noise_sensitivity : ragas's version of the two noise sensitivities.
    ragmetrics_edu.judge.rag.faithfulness : ragas's faithfulness, against the
        joined context rather than chunk by chunk.

    Examples
    --------
    Three response claims, two reference claims, two chunks; chunk 0 states
    reference claim 0, chunk 1 states nothing of the reference:

    >>> d = claim_diagnostics(
    ...     response_claims_correct=[1, 0, 0],            # claim 0 is right, 1 and 2 wrong
    ...     reference_claims_covered=[1, 0],              # the response states reference claim 0
    ...     response_claims_supported=[[1, 0],            # claim 0 from chunk 0
    ...                                [0, 1],            # claim 1 from chunk 1 (noise)
    ...                                [0, 0]],           # claim 2 from nowhere
    ...     reference_claims_retrieved=[[1, 0],
    ...                                 [0, 0]])          # reference claim 1 was never retrieved
    >>> round(d.precision, 4), d.recall, d.claim_recall, d.context_precision
    (0.3333, 0.5, 0.5, 0.5)
    >>> round(d.noise_sensitivity_in_irrelevant, 4), round(d.hallucination, 4)
    (0.3333, 0.3333)
    >>> claim_diagnostics(response_claims_correct=[], reference_claims_covered=[1],
    ...                   response_claims_supported=[], reference_claims_retrieved=[[1]]).precision
    0.0
    """
    empty_score = _check_empty_score(empty_score)
    correct = _vector(response_claims_correct, "response_claims_correct")
    covered = _vector(reference_claims_covered, "reference_claims_covered")
    supported, retrieved = _tables(len(correct), response_claims_supported,
                                   reference_claims_retrieved, m=len(covered))
    n, m, k = len(correct), len(covered), supported.shape[1]

    precision = _share(correct, n == 0, empty_score)
    recall = _share(covered, m == 0, empty_score)
    if math.isnan(precision) or math.isnan(recall):
        f1 = math.nan
    elif precision > 0 and recall > 0:
        f1 = 2 * precision * recall / (precision + recall)
    else:
        f1 = 0.0

    retrieval_empty = m == 0 or k == 0
    found = retrieved.any(axis=1) if not retrieval_empty else np.zeros(m, dtype=bool)
    relevant = retrieved.any(axis=0) if not retrieval_empty else np.zeros(k, dtype=bool)
    claim_recall = _share(found, retrieval_empty, empty_score)
    context_precision = _share(relevant, retrieval_empty, empty_score)
    if retrieval_empty or not found.any():
        context_utilization = empty_score
    else:
        context_utilization = float(int((found & covered).sum()) / int(found.sum()))

    generation_empty = n == 0 or k == 0
    faithful = supported.any(axis=1) if not generation_empty else np.zeros(n, dtype=bool)
    faithfulness = _share(faithful, generation_empty, empty_score)
    hallucination = _share(~faithful & ~correct, generation_empty, empty_score)
    self_knowledge = _share(~faithful & correct, generation_empty, empty_score)

    noise_empty = generation_empty or retrieval_empty
    if noise_empty:
        ns_relevant = ns_irrelevant = empty_score
    else:
        from_relevant = (supported & relevant[None, :]).any(axis=1)
        from_irrelevant = (supported & ~relevant[None, :]).any(axis=1) & ~from_relevant
        ns_relevant = _share(from_relevant & ~correct, False, empty_score)
        ns_irrelevant = _share(from_irrelevant & ~correct, False, empty_score)

    return ClaimDiagnostics(
        precision=precision, recall=recall, f1=f1, claim_recall=claim_recall,
        context_precision=context_precision, context_utilization=context_utilization,
        noise_sensitivity_in_relevant=ns_relevant, noise_sensitivity_in_irrelevant=ns_irrelevant,
        hallucination=hallucination, self_knowledge=self_knowledge, faithfulness=faithfulness,
        n_response_claims=n, n_reference_claims=m, n_chunks=k, empty_score=empty_score)


def mean_claim_diagnostics(results):
    """The mean of each metric over answers (RAGChecker's aggregate, before its rounding).

    RAGChecker's ``RAGChecker.evaluate`` reports, per metric, the plain mean
    over the answers times 100, rounded to one decimal
    (``round(np.mean(...) * 100, 1)``); this returns the mean itself, on the
    0-1 scale. A metric that is NaN for an answer (``empty_score=math.nan``)
    is left out of its mean; NaN if it is NaN for every answer.

    Parameters
    ----------
    results : sequence of ClaimDiagnostics

    Returns
    -------
    dict
        ``{name: mean}`` for the eleven metrics.

    Examples
    --------
    >>> a = claim_diagnostics(response_claims_correct=[1], reference_claims_covered=[1],
    ...                       response_claims_supported=[[1]], reference_claims_retrieved=[[1]])
    >>> b = claim_diagnostics(response_claims_correct=[0], reference_claims_covered=[0],
    ...                       response_claims_supported=[[0]], reference_claims_retrieved=[[1]])
    >>> m = mean_claim_diagnostics([a, b])
    >>> m["precision"], m["hallucination"], m["claim_recall"]
    (0.5, 0.5, 1.0)
    """
    if isinstance(results, (str, bytes, dict)) or not hasattr(results, "__iter__"):
        raise TypeError(f"results must be a list of ClaimDiagnostics, got {_describe(results)}")
    results = list(results)
    if not results:
        raise ValueError("results must hold at least one ClaimDiagnostics, got an empty list")
    for i, r in enumerate(results):
        if not isinstance(r, ClaimDiagnostics):
            raise TypeError(f"results[{i}] must be a ClaimDiagnostics (from claim_diagnostics), "
                            f"got {_describe(r)}")
    out = {}
    for name in DIAGNOSTIC_NAMES:
        values = [getattr(r, name) for r in results if not math.isnan(getattr(r, name))]
        out[name] = float(sum(values) / len(values)) if values else math.nan
    return out


# -- ragas -------------------------------------------------------------------------------

#: ragas's two modes of noise sensitivity.
NOISE_SENSITIVITY_MODES = ("relevant", "irrelevant")


def noise_sensitivity(*, response_claims_correct, response_claims_supported,
                      reference_claims_retrieved, mode="relevant"):
    r"""ragas's noise sensitivity: wrong claims the response took from the retrieved chunks.

    ragas's ``NoiseSensitivity._compute_score`` (ragas 0.4.0, the legacy
    metric and ``metrics.collections``) computes from three tables, under
    its own names:

    ================================  ============================
    keyword here                      ragas's table
    ================================  ============================
    ``response_claims_correct``       ``ground_truth2answer``
    ``response_claims_supported``     ``retrieved2answer``
    ``reference_claims_retrieved``    ``retrieved2ground_truth``
    ================================  ============================

    .. math::

        \text{relevant: } \frac1n\sum_i \lnot C_i\,\max_k(\mathrm{rel}_k S_{ik}),
        \qquad
        \text{irrelevant: } \frac1n\sum_i \lnot C_i\,\max_k(\lnot\mathrm{rel}_k S_{ik})\,
        \lnot\max_k(\mathrm{rel}_k S_{ik})

    with :math:`\mathrm{rel}_k = \max_j R_{jk}`: RAGChecker's two noise
    sensitivities, lower is better. Where ragas differs from RAGChecker is
    around the formula: ragas asks its LLM for a yes/no verdict per
    statement (RAGChecker reads a three-way entailment label and counts
    only "Entailment"), it splits the reference into statements with the
    question in the prompt, and it has no empty-table convention: a
    response with no statement scores NaN (a mean of nothing), a reference
    with no statement and an empty context are refused. ragas's
    documentation writes the score as "incorrect claims / all claims",
    leaving out the condition that the wrong claim is supported by a
    (relevant or irrelevant) chunk; its code has the condition.

    Parameters
    ----------
    response_claims_correct : sequence of bool or 0/1, length n
    response_claims_supported : 2-D table of bool or 0/1, shape (n, K)
    reference_claims_retrieved : 2-D table of bool or 0/1, shape (m, K)
        As in :func:`claim_diagnostics`.
    mode : {"relevant", "irrelevant"}, default "relevant"
        ragas's ``mode``.

    Returns
    -------
    float
        In [0, 1]; NaN when the response has no claim.

    Raises
    ------
    ValueError
        No reference claim or no chunk (ragas raises too), a bad entry or
        shape (as :func:`claim_diagnostics`), or an unknown ``mode``.

    Examples
    --------
    >>> tables = dict(response_claims_correct=[1, 0, 0],
    ...               response_claims_supported=[[1, 0], [0, 1], [1, 1]],
    ...               reference_claims_retrieved=[[1, 0], [0, 0]])
    >>> round(noise_sensitivity(**tables), 4)      # claim 2: wrong, and in chunk 0 (relevant)
    0.3333
    >>> round(noise_sensitivity(**tables, mode="irrelevant"), 4)   # claim 1: only in chunk 1
    0.3333
    """
    from .._validation import check_choice

    check_choice(mode, NOISE_SENSITIVITY_MODES, name="mode")
    correct = _vector(response_claims_correct, "response_claims_correct")
    supported, retrieved = _tables(len(correct), response_claims_supported,
                                   reference_claims_retrieved)
    if retrieved.shape[0] == 0:
        raise ValueError("reference_claims_retrieved has no row: the reference has no claim, so "
                         "no chunk can be called relevant (ragas raises here too; RAGChecker's "
                         "claim_diagnostics scores it empty_score)")
    if supported.shape[1] == 0:
        raise ValueError("the tables have no column: no chunk was retrieved (ragas refuses an "
                         "empty retrieved_contexts; RAGChecker's claim_diagnostics scores it "
                         "empty_score)")
    if len(correct) == 0:
        return math.nan
    relevant = retrieved.any(axis=0)
    from_relevant = (supported & relevant[None, :]).any(axis=1)
    if mode == "relevant":
        return float(int((from_relevant & ~correct).sum()) / len(correct))
    from_irrelevant = (supported & ~relevant[None, :]).any(axis=1) & ~from_relevant
    return float(int((from_irrelevant & ~correct).sum()) / len(correct))


#: How :func:`context_entity_recall` counts the reference's entities: ``"unique"``
#: (ragas's ``metrics.collections`` metric, a set) or ``"listed"`` (ragas's legacy
#: ``ContextEntityRecall``, the length of the extracted list, repeats included).
ENTITY_COUNTS = ("unique", "listed")


def _entities(values, name):
    return check_string_list(values, name=name, what="a list of entity strings")


def context_entity_recall(reference_entities, context_entities, *, count="unique", epsilon=0.0,
                          empty_score=0.0):
    r"""ragas's context entity recall: the share of the reference's entities the context has.

    .. math::

        \text{context entity recall} = \frac{|GN \cap CN|}{|GN|}

    with :math:`GN` the entities of the reference answer and :math:`CN` those
    of the retrieved context (ragas asks an LLM for both lists, from the
    reference and from the chunks joined by new lines). Entities match as
    exact strings, as in ragas: "Mach 6" and "Mach 6.0" are two entities.
    Where RAGChecker's claim recall asks whether each reference *claim* is
    entailed by a chunk, this asks whether each *entity* of the reference
    appears among the context's: cheaper, and blind to what is said about
    the entity.

    Parameters
    ----------
    reference_entities, context_entities : sequence of str
    count : {"unique", "listed"}, default "unique"
        The denominator: the distinct reference entities (ragas 0.4's
        ``metrics.collections.ContextEntityRecall``), or the length of the
        list with its repeats (the legacy ``ragas.metrics.ContextEntityRecall``).
        The numerator is always the number of distinct shared entities.
    epsilon : float, default 0.0
        Added to the denominator; ragas adds ``1e-8`` (so its full recall is
        0.99999999..., and an empty reference scores 0.0).
    empty_score : float, default 0.0
        The score of a reference with no entity when ``epsilon`` is 0
        (ragas's value, through its ``1e-8``, is 0.0).

    Returns
    -------
    float

    Examples
    --------
    >>> ref = ["Eiffel Tower", "Paris", "1889"]
    >>> ctx = ["Eiffel Tower", "Paris", "France", "World's Fair"]
    >>> round(context_entity_recall(ref, ctx), 4)                  # 2 of 3
    0.6667
    >>> context_entity_recall(ref + ["Paris"], ctx, count="listed")  # 2 of 4 listed
    0.5
    """
    from .._validation import check_choice

    check_choice(count, ENTITY_COUNTS, name="count")
    reference = _entities(reference_entities, "reference_entities")
    context = _entities(context_entities, "context_entities")
    if isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real) or not epsilon >= 0 \
            or math.isinf(epsilon):
        raise ValueError(f"epsilon must be a finite number >= 0, got {_describe(epsilon)}")
    empty_score = _check_empty_score(empty_score)
    shared = len(set(reference) & set(context))
    denominator = len(set(reference)) if count == "unique" else len(reference)
    if denominator == 0 and epsilon == 0:
        return empty_score
    return float(shared / (denominator + epsilon))
