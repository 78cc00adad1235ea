"""ragmetrics_edu: an exact, readable reference library for evaluating RAG.

Every score is "higher is better" unless its docstring says otherwise
(DCG and CG are unbounded gains, not scores in [0, 1]).

The public names below are loaded on first use, so ``import ragmetrics_edu``
needs numpy only and stays fast; matplotlib, ipywidgets and the model are
imported by the functions that need them, when they are first called.

The package is the course, one part per folder (each imports only the
parts above it in this list, and ``_validation``):

==============  ===========================================================  ==========
part            what it holds                                                notebooks
==============  ===========================================================  ==========
``models``      the transformer in NumPy (``minilm``) and its loading        06
``retrieval``   order_unaware, order_aware, graded, user_models,             01-03, 09,
                incomplete; ``batch`` (``evaluate`` over many queries),      10
                ``trec`` files, ``conventions`` of other libraries
``generation``  text (tokenizers), bleu_stats, bleu_score, rouge,            04-06, 08,
                chrf_score, qa, semantic (BERTScore)                         11
``judge``       LLM as a judge, rubrics, agreement; ``rag`` (RAG metrics     07, 08
                from verdicts)
``lab``         datasets (Cranfield), retrievers, answer, significance,      09, 11
                power
``course``      examples, exercises, widgets                                 all
==============  ===========================================================  ==========

``rm.retrieval.incomplete.bpref`` names a function where it lives; the
public names below (``rm.bpref``) are the same objects.
"""

from ._lazy import lazy_attributes as _lazy_attributes

__version__ = "0.1.0"

# public name -> submodule that defines it
_EXPORTS = {
    # 01 order-unaware
    "precision_at_k": "retrieval.order_unaware",
    "recall_at_k": "retrieval.order_unaware",
    "f1_at_k": "retrieval.order_unaware",
    "hit_rate_at_k": "retrieval.order_unaware",
    # 02 order-aware
    "reciprocal_rank": "retrieval.order_aware",
    "mean_reciprocal_rank": "retrieval.order_aware",
    "average_precision": "retrieval.order_aware",
    "mean_average_precision": "retrieval.order_aware",
    "r_precision": "retrieval.order_aware",
    "interpolated_precision": "retrieval.order_aware",
    "eleven_point_average_precision": "retrieval.order_aware",
    "precision_recall_curve": "retrieval.order_aware",
    # 03 graded
    "cumulative_gain": "retrieval.graded",
    "dcg_at_k": "retrieval.graded",
    "idcg_at_k": "retrieval.graded",
    "ndcg_at_k": "retrieval.graded",
    "err_at_k": "retrieval.user_models",
    "rank_biased_precision": "retrieval.user_models",
    "rbp_residual": "retrieval.user_models",
    # 09 incomplete judgements
    "bpref": "retrieval.incomplete",
    "judged_at_k": "retrieval.incomplete",
    # many queries, TREC files
    "evaluate": "retrieval.batch",
    "Report": "retrieval.batch",
    "read_qrels": "retrieval.trec",
    "read_run": "retrieval.trec",
    "write_run": "retrieval.trec",
    # 04 n-gram overlap
    "whitespace_tokenize": "generation.text",
    "rouge_tokenize": "generation.text",
    "ngrams": "generation.bleu_stats",
    "modified_precision": "generation.bleu_stats",
    "brevity_penalty": "generation.bleu_stats",
    "bleu": "generation.bleu_score",
    "corpus_bleu": "generation.bleu_score",
    "rouge_n": "generation.rouge",
    "rouge_l": "generation.rouge",
    "rouge_lsum": "generation.rouge",
    # 05 chrF
    "chrf": "generation.chrf_score",
    "sentence_chrf": "generation.chrf_score",
    # QA answers (SQuAD)
    "normalize_answer": "generation.qa",
    "exact_match": "generation.qa",
    "token_f1": "generation.qa",
    "corpus_exact_match": "generation.qa",
    "corpus_token_f1": "generation.qa",
    # 06
    "bertscore": "generation.semantic",
    # 09: a real collection and significance
    "load_cranfield": "lab.datasets",
    "load_cranfield_qa": "lab.datasets",
    "ExtractiveAnswerer": "lab.answer",
    "GenerativeAnswerer": "lab.answer",
    "LocalGenerativeAnswerer": "lab.answer",
    "bootstrap_ci": "lab.significance",
    "paired_t_test": "lab.significance",
    "randomization_test": "lab.significance",
    "compare_systems": "lab.significance",
    "adjust_p_values": "lab.power",
    "adjust_pvalues": "lab.power",
    "paired_effect_size": "lab.power",
    "queries_needed": "lab.power",
    # online evaluation: click models, online metrics, A/B tests, interleaving, counterfactual
    "attractiveness_from_grades": "online.click_models",
    "CascadeModel": "online.click_models",
    "PositionBasedModel": "online.click_models",
    "DependentClickModel": "online.click_models",
    "DBNModel": "online.click_models",
    "scan_ranking": "online.click_models",
    "click_through_rate": "online.metrics",
    "clicks_at_k": "online.metrics",
    "abandonment_rate": "online.metrics",
    "first_click_reciprocal_rank": "online.metrics",
    "online_metrics": "online.metrics",
    "ab_sample_size": "online.ab_test",
    "two_proportion_z_test": "online.ab_test",
    "peeking_false_positive_rate": "online.ab_test",
    "team_draft_interleave": "online.interleaving",
    "balanced_interleave": "online.interleaving",
    "team_draft_credit": "online.interleaving",
    "balanced_credit": "online.interleaving",
    "interleaving_outcomes": "online.interleaving",
    "impressions_needed": "online.interleaving",
    "naive_estimate": "online.counterfactual",
    "ips_estimate": "online.counterfactual",
    "counterfactual_evaluation": "online.counterfactual",
    "nugget_scores": "judge.nuggets",
    "mean_nugget_scores": "judge.nuggets",
    "assign_nuggets": "judge.nuggets",
    "atomic_claims": "judge.claims",
    "claim_precision": "judge.claims",
    "factscore": "judge.claims",
    "citation_recall": "judge.citations",
    "citation_precision": "judge.citations",
    "citation_scores": "judge.citations",
    "load_cranfield_nuggets": "lab.qa_annotations",
    "load_cranfield_paraphrases": "lab.qa_annotations",
    "testset_report": "lab.testset",
    "ppi_mean_ci": "judge.calibration",
    "ppi_mean_pointestimate": "judge.calibration",
    "classical_mean_ci": "judge.calibration",
    "ppi_tuned_lambda": "judge.calibration",
    "kappa_ci": "judge.assessors",
    "system_ranking_tau": "judge.assessors",
    "estimate_judging_cost": "judge.cost",
    "judge_all": "judge.run",
    "load_cranfield_judge_sample": "judge.cranfield_sample",
    # 12 real LLM judges against NIST's assessors
    "load_llmjudge": "judge.llmjudge",
    "grade_agreement": "judge.judge_vs_assessors",
    "kappa_difference_ci": "judge.judge_vs_assessors",
    "ppi_repeated": "judge.ppi_study",
    "ppi_variance_ratio": "judge.ppi_study",
    "load_language_model": "models.decoder",
    "LanguageModelJudge": "judge.language_model",
    "grade_distribution": "judge.language_model",
    # 15 RAG diagnostics: RAGChecker's claim-level metrics, ragas's, TREC RAG support
    "claim_diagnostics": "judge.diagnostics",
    "mean_claim_diagnostics": "judge.diagnostics",
    "noise_sensitivity": "judge.diagnostics",
    "context_entity_recall": "judge.diagnostics",
    "support_scores": "judge.support",
}

_PARTS = {"models", "retrieval", "generation", "judge", "lab", "online", "course"}
"""The course's parts, each a subpackage, imported on first use."""

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = _lazy_attributes(__name__, names=_EXPORTS, modules=_PARTS)
