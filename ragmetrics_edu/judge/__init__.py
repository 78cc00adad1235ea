"""LLM as a judge: rubrics, strict parsing, pairwise comparison, agreement.

A judge is anything with ``complete(prompt: str) -> str``, or a plain
callable. Three are ready:

* :class:`OpenAICompatibleJudge` - a real model behind any chat-completions
  server (OpenAI, Ollama, vLLM, llama.cpp), standard library only;
* :class:`CachedJudge` - records replies in a JSONL file and replays them
  (``replay_only=True`` for CI);
* :class:`EmbeddingJudge` - offline, no key: all-MiniLM-L6-v2 cosine
  similarities mapped onto the reply format, and labelled in every reply as
  an embedding-similarity stand-in, not an LLM;
* :class:`~.language_model.LanguageModelJudge` - offline too: a small
  language model (SmolLM2-135M-Instruct, run in NumPy) whose grade is read
  from its probabilities over the scale's tokens (:mod:`.language_model`).

The notebook runs offline with the stand-in; one line switches it to a real
model::

    judge = EmbeddingJudge()                                              # offline
    judge = OpenAICompatibleJudge("http://localhost:11434/v1", "llama3.1:8b")  # Ollama
    judge = CachedJudge(OpenAICompatibleJudge("https://api.openai.com/v1", "gpt-4o-mini"),
                        "judge_replies.jsonl")                            # record once

The RAG metrics built on the judge's verdicts (context precision and recall,
faithfulness, answer relevance; notebook 07) are in :mod:`.rag`, loaded on
first use.  Holding a judge against people and running it for real (notebook
12): :mod:`.assessors` (kappa, system rankings), :mod:`.calibration`
(prediction-powered intervals), :mod:`.cost` and :mod:`.run`, on the sample of
:mod:`.cranfield_sample`; 33 real LLM judges against NIST's assessors: :mod:`.llmjudge` (the
data), :mod:`.judge_vs_assessors` (every agreement with intervals over queries) and
:mod:`.ppi_study` (PPI over repeated draws).  Is the answer right (notebook 13): :mod:`.nuggets`,
:mod:`.claims`, :mod:`.citations`.  Which part of the pipeline to fix (notebook
15): :mod:`.diagnostics` (RAGChecker, ragas), :mod:`.support` (TREC RAG support).

Importing this package needs numpy only; the model is loaded the first time
a judge embeds or generates something.
"""

import copy
import importlib.resources
import json

from .._lazy import lazy_attributes as _lazy_attributes
from .agreement import (
    cohen_kappa,
    confusion_matrix,
    kendall_tau,
    percent_agreement,
    rankdata,
    spearman,
)
from .base import (
    CacheMissError,
    FunctionJudge,
    JudgeAuthError,
    JudgeConfigError,
    JudgeConnectionError,
    JudgeError,
    JudgeHTTPError,
    JudgeNotFoundError,
    JudgeRateLimitError,
    JudgeResponseError,
    JudgeServerError,
    JudgeTimeoutError,
    as_judge,
    judge_identity,
)
from .cache import CachedJudge, cache_key
from .offline import EmbeddingJudge, cosine_to_rating
from .openai_compat import OpenAICompatibleJudge
from .pairwise import (
    PAIRWISE_TEMPLATE,
    PairwiseResult,
    build_pairwise_prompt,
    compare,
    majority_vote,
    resolve_swap,
)
from .bias import (
    NEUTRAL_PADDING,
    PositionBias,
    VerbosityBias,
    pad_answer,
    position_bias,
    verbosity_bias,
)
from .meta_eval import (
    Correlation,
    MetaEvaluation,
    correlation_ci,
    correlation_difference_ci,
    meta_evaluate,
    pearson,
)
from .parsing import (
    escape_data,
    extract_sections,
    format_section,
    parse_preference,
    parse_rating,
    parse_verdict,
    strip_sections,
)
from .rubric import (
    COHERENCE,
    CONCISENESS,
    COVERAGE,
    FAITHFULNESS,
    FLUENCY,
    RELEVANCE,
    RUBRIC_TEMPLATE,
    RUBRICS,
    Grade,
    Rubric,
    build_rubric_prompt,
    grade,
    majority_rating,
)

__all__ = [
    # judges
    "OpenAICompatibleJudge", "CachedJudge", "EmbeddingJudge", "FunctionJudge",
    "as_judge", "judge_identity", "cache_key", "cosine_to_rating",
    # errors
    "JudgeError", "JudgeConfigError", "JudgeConnectionError", "JudgeTimeoutError",
    "JudgeHTTPError", "JudgeAuthError", "JudgeNotFoundError", "JudgeRateLimitError",
    "JudgeServerError", "JudgeResponseError", "CacheMissError",
    # rubrics
    "Rubric", "RUBRICS", "COHERENCE", "RELEVANCE", "FLUENCY", "FAITHFULNESS",
    "COVERAGE", "CONCISENESS", "RUBRIC_TEMPLATE", "build_rubric_prompt", "grade",
    "Grade", "majority_rating",
    # parsing and prompts
    "parse_rating", "parse_verdict", "parse_preference", "escape_data",
    "format_section", "extract_sections", "strip_sections",
    # pairwise
    "PAIRWISE_TEMPLATE", "build_pairwise_prompt", "compare", "PairwiseResult",
    "resolve_swap", "majority_vote",
    # agreement
    "cohen_kappa", "confusion_matrix", "percent_agreement", "spearman",
    "kendall_tau", "rankdata",
    # biases, and which metric agrees with people
    "verbosity_bias", "position_bias", "pad_answer", "NEUTRAL_PADDING", "VerbosityBias",
    "PositionBias", "correlation_ci", "correlation_difference_ci", "meta_evaluate",
    "Correlation", "MetaEvaluation", "pearson",
    # data
    "load_eval_set",
]

_EVAL_FILE = "eval_set.jsonl"
_EVAL_CACHE = []


def load_eval_set():
    """The small labelled set for measuring judges, over Cranfield questions.

    Each record is one Cranfield question with a few retrieved chunks (real
    abstracts), relevance labels (from the Cranfield qrels where they judge
    the document, else ours), a reference answer, and one or more answers
    whose claims carry support labels and which carry rubric ratings given by
    people. Every label written by us is marked
    ``"labels_by": "ragmetrics_edu authors"``; ``data/judge_eval/README.md``
    says how they were made.

    Returns
    -------
    list of dict
        A fresh copy on every call (edit it freely). Keys of a record:
        ``id``, ``query_id`` (cranqrel numbering), ``question``,
        ``chunks`` (``doc_id``, ``text``, ``relevant``, ``label_source``,
        ``qrels_code``), ``reference``, ``answers`` (``id``, ``text``,
        ``claims`` (``text``, ``supported``), ``ratings``
        ``{rubric name: int}``), ``labels_by``.

    Examples
    --------
    >>> data = load_eval_set()
    >>> len(data) >= 10
    True
    >>> sorted(data[0])
    ['answers', 'chunks', 'id', 'labels_by', 'query_id', 'question', 'reference']
    """
    if not _EVAL_CACHE:
        resource = importlib.resources.files("ragmetrics_edu").joinpath("data", "judge_eval", _EVAL_FILE)
        with resource.open("r", encoding="utf-8") as f:
            _EVAL_CACHE.extend(json.loads(line) for line in f if line.strip())
    return copy.deepcopy(_EVAL_CACHE)


_LAZY = {"rag", "language_model", "assessors", "calibration", "cost", "run", "cranfield_sample",
         "nuggets", "claims", "citations", "diagnostics", "support", "llmjudge",
         "judge_vs_assessors", "ppi_study"}
"""Modules of this package loaded on first use (``rm.judge.calibration``)."""


__getattr__, __dir__ = _lazy_attributes(__name__, modules=_LAZY)
