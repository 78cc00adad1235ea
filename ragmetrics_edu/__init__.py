"""ragmetrics_edu: an exact, readable reference library for evaluating RAG.

Every score is "higher is better" unless its docstring says otherwise
(DCG and CG are unbounded gains, not scores in [0, 1]).

The public names below are loaded on first use, so ``import ragmetrics_edu``
needs numpy only and stays fast; matplotlib, ipywidgets and the model are
imported by the functions that need them, when they are first called.

One module per notebook family:

=====================  ==========================================  ==========
module                 what it holds                               notebook
=====================  ==========================================  ==========
``order_unaware``      Precision@k, Recall@k, F1@k, HitRate@k      01
``order_aware``        RR, MRR, AP, MAP, R-prec, PR curve, 11pt    02
``graded``             CG, DCG, IDCG, NDCG                         03
``user_models``        ERR, RBP and its residual                   03
``incomplete``         bpref, judged@k (unjudged documents)        07
``batch``              ``evaluate`` over many queries              01-03, 07
``trec``               TREC qrels and run files                    07
``text``               whitespace / rouge-score tokenizers         04
``bleu_score``         n-grams, clipped precision, BP, BLEU        04
``rouge``              ROUGE-N, ROUGE-L, ROUGE-Lsum                04
``chrf_score``         chrF and chrF++ (character n-gram F)        04
``qa``                 SQuAD exact match and token F1              04, 09
``semantic``           BERTScore with a real transformer           05
``minilm``             the transformer (BERT, MiniLM) in NumPy     05
``judge``              LLM as a judge, rubrics, agreement          06
``rag``                RAG metrics from judge verdicts             06
``datasets``           the Cranfield 1400 collection               07
``significance``       bootstrap, paired t-test, randomization     07
``retrievers``         BM25, dense retrieval, rank fusion          07
``answer``             extractive and generative answerers         09
``conventions``        presets: trec_eval, ranx, sklearn, ragas    08
``examples``           every worked example of the seeds           all
``exercises``          the exercises' check cells                  all
=====================  ==========================================  ==========
"""

from importlib import import_module as _import_module

__version__ = "0.1.0"

# public name -> submodule that defines it
_EXPORTS = {
    # 01 order-unaware
    "precision_at_k": "order_unaware",
    "recall_at_k": "order_unaware",
    "f1_at_k": "order_unaware",
    "hit_rate_at_k": "order_unaware",
    # 02 order-aware
    "reciprocal_rank": "order_aware",
    "mean_reciprocal_rank": "order_aware",
    "average_precision": "order_aware",
    "mean_average_precision": "order_aware",
    "r_precision": "order_aware",
    "interpolated_precision": "order_aware",
    "eleven_point_average_precision": "order_aware",
    "precision_recall_curve": "order_aware",
    # 03 graded
    "cumulative_gain": "graded",
    "dcg_at_k": "graded",
    "idcg_at_k": "graded",
    "ndcg_at_k": "graded",
    "err_at_k": "user_models",
    "rank_biased_precision": "user_models",
    "rbp_residual": "user_models",
    # 07 incomplete judgements
    "bpref": "incomplete",
    "judged_at_k": "incomplete",
    # many queries, TREC files
    "evaluate": "batch",
    "Report": "batch",
    "read_qrels": "trec",
    "read_run": "trec",
    "write_run": "trec",
    # 04 n-gram overlap
    "whitespace_tokenize": "text",
    "rouge_tokenize": "text",
    "ngrams": "bleu_score",
    "modified_precision": "bleu_score",
    "brevity_penalty": "bleu_score",
    "bleu": "bleu_score",
    "corpus_bleu": "bleu_score",
    "rouge_n": "rouge",
    "rouge_l": "rouge",
    "rouge_lsum": "rouge",
    "chrf": "chrf_score",
    "sentence_chrf": "chrf_score",
    # QA answers (SQuAD)
    "normalize_answer": "qa",
    "exact_match": "qa",
    "token_f1": "qa",
    "corpus_exact_match": "qa",
    "corpus_token_f1": "qa",
    # 05
    "bertscore": "semantic",
    # 07: a real collection and significance
    "load_cranfield": "datasets",
    "load_cranfield_qa": "datasets",
    "ExtractiveAnswerer": "answer",
    "GenerativeAnswerer": "answer",
    "bootstrap_ci": "significance",
    "paired_t_test": "significance",
    "randomization_test": "significance",
    "compare_systems": "significance",
    "adjust_pvalues": "significance",
    "paired_effect_size": "significance",
    "queries_needed": "significance",
    "load_language_model": "models.decoder",
    "LanguageModelJudge": "judge.language_model",
    "grade_distribution": "judge.language_model",
}

_SUBMODULES = {
    "order_unaware", "order_aware", "graded", "user_models", "incomplete",
    "batch", "trec", "text",
    "bleu_score", "rouge", "semantic", "judge", "rag", "datasets", "significance",
    "examples", "widgets", "conventions", "retrievers", "chrf_score", "qa", "exercises", "answer",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name in _EXPORTS:
        value = getattr(_import_module(f".{_EXPORTS[name]}", __name__), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return _import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS) | _SUBMODULES)
