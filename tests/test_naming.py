"""One name per concept across the public API: the table of ``docs/architecture.md``, checked.

Every public function, class (its constructor: a result's fields) and public
method of every public module is read with :mod:`inspect`; a parameter whose
name is another name of a concept of the table fails, naming the canonical
one.  The old names, renamed to follow the table, still work with a
DeprecationWarning that names the new one: the second half calls each of them.
"""

import dataclasses
import inspect
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import ragmetrics_edu as rm
from ragmetrics_edu.retrieval.conventions import PRESETS, Conventions
from tests._public_api import public_callables

# Other names of a concept of the table -> (the concept, its one name).
OTHER_NAMES = {
    **dict.fromkeys(["top_k", "topk", "cutoff", "cut_off", "at_k", "n_top"],
                    ("the cut-off of a metric, or how many documents a run keeps", "k / depth")),
    **dict.fromkeys(["max_depth", "max_rank", "run_depth"],
                    ("how many ranks of a ranking are read", "depth")),
    **dict.fromkeys(["judgments", "judgements", "relevance_judgments", "assessments"],
                    ("the relevance judgements", "qrels")),
    **dict.fromkeys(["ranking_dict", "system_run"], ("a system's ranked documents", "run")),
    **dict.fromkeys(["hypothesis", "hyp", "prediction", "pred", "output", "system_output"],
                    ("the text under evaluation", "candidate")),
    **dict.fromkeys(["hypotheses", "hyps", "predictions", "preds", "outputs"],
                    ("the texts under evaluation", "candidates")),
    **dict.fromkeys(["ref", "refs", "gold", "golds", "target", "targets", "ground_truth",
                     "ground_truths", "gold_answers"],
                    ("the reference text(s)", "reference / references")),
    **dict.fromkeys(["random_state", "random_seed", "rng_seed", "rng"],
                    ("the randomness (an int or a NumPy Generator)", "seed")),
    **dict.fromkeys(["pvalue", "pval", "p_val", "pvalues", "pvals"], ("a p-value", "p_value")),
    **dict.fromkeys(["ci_low", "ci_lower", "lower", "lo", "lower_bound"],
                    ("an interval's lower bound", "low")),
    **dict.fromkeys(["ci_high", "ci_upper", "upper", "hi", "upper_bound"],
                    ("an interval's upper bound", "high")),
    **dict.fromkeys(["confidence_level", "conf", "ci_level", "coverage", "level_of_confidence"],
                    ("an interval's coverage (0.95)", "confidence")),
    **dict.fromkeys(["significance", "significance_level", "sig_level"],
                    ("a test's significance level (0.05)", "alpha")),
    **dict.fromkeys(["n_bootstrap", "n_boot", "n_bootstraps", "n_resample", "resamples",
                     "n_iterations", "B"],
                    ("the number of resamples", "n_resamples")),
    **dict.fromkeys(["rel_level", "rel_threshold", "min_relevance", "min_grade", "threshold_grade"],
                    ("the lowest grade counted relevant", "relevance_level")),
    **dict.fromkeys(["group", "group_labels", "clusters", "cluster", "strata", "query_groups"],
                    ("the group (query) of each item, resampled together", "groups")),
    **dict.fromkeys(["R", "num_relevant", "n_rel", "nrel", "relevant_count"],
                    ("the number of relevant documents of a query", "n_relevant")),
    **dict.fromkeys(["relevances", "y_true", "rel_list", "grades_in_order"],
                    ("a ranking's relevance grades, in rank order", "rels")),
}

# A function that returns an interval takes its coverage as ``confidence``; the PPI
# functions take ppi-python's ``alpha`` (1 - confidence), as their reference names it
# (tests/crosscheck/test_calibration.py compares the signatures), and ppi_repeated theirs.
PPI_ALPHA = {"judge.calibration.classical_mean_ci", "judge.calibration.ppi_mean_ci",
                 "judge.ppi_study.ppi_repeated", "judge.ppi_study.PPIRepeated"}


def _parameters(obj):
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return []
    return [p for p in signature.parameters if p not in ("self", "cls")]


CALLABLES = list(public_callables())


def test_the_scan_reads_the_whole_public_api():
    names = {name for name, _ in CALLABLES}
    assert len(names) > 300
    for expected in ("retrieval.order_unaware.recall_at_k", "generation.chrf_score.chrf",
                     "online.ab_test.ZTest", "judge.assessors.kappa_ci", "lab.power.adjust_p_values"):
        assert expected in names


def test_every_public_parameter_uses_the_one_name_of_its_concept():
    wrong = []
    for name, obj in CALLABLES:
        for param in _parameters(obj):
            if param in OTHER_NAMES:
                concept, canonical = OTHER_NAMES[param]
                wrong.append(f"{name}({param}=...): {concept} is named {canonical}")
    assert not wrong, "\n".join(wrong)


def test_an_interval_takes_its_coverage_as_confidence():
    wrong = [name for name, obj in CALLABLES
             if (name.endswith("_ci") or name in PPI_ALPHA) and "alpha" in _parameters(obj)
             and name not in PPI_ALPHA]
    assert not wrong
    takes_confidence = [name for name, obj in CALLABLES
                        if name.endswith("_ci") and "confidence" in _parameters(obj)]
    assert len(takes_confidence) >= 5


def test_a_statistic_is_a_number_and_a_method_names_it():
    """``statistic`` is a test's value (a float) everywhere; the name of what was measured
    is ``method``, as in Correlation."""
    wrong = []
    for name, obj in CALLABLES:
        if not inspect.isclass(obj):
            continue
        try:
            fields = inspect.signature(obj).parameters
        except (TypeError, ValueError):
            continue
        if "statistic" in fields and fields["statistic"].annotation not in (float, "float"):
            wrong.append(name)
    assert not wrong


def test_the_ppi_functions_still_take_alpha():
    """An entry of PPI_ALPHA that no longer takes alpha leaves the list."""
    assert {name for name, obj in CALLABLES if "alpha" in _parameters(obj)} >= PPI_ALPHA


def test_the_table_lists_every_canonical_name():
    table = (Path(__file__).parents[1] / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = table.split("## One name per concept", 1)[1].split("\n## ", 1)[0]
    for concept, canonical in set(OTHER_NAMES.values()):
        for name in re.findall(r"\w+", canonical):
            assert f"`{name}`" in section, f"the table does not name {name} ({concept})"


# --------------------------------------------------------------- the old names


def _renamed():
    """(callable, old argument, new argument) of every function with renamed arguments."""
    for name, obj in CALLABLES:
        for old, new in getattr(obj, "renamed_arguments", {}).items():
            yield pytest.param(obj, old, new, id=f"{name}({old}=)")


FUSED = [{"q": {"a": 2.0, "b": 1.0}}, {"q": {"b": 2.0, "c": 1.0}}]
DOCS, QUERIES = {"d1": "heat flow in slabs", "d2": "wing flutter"}, {"q": "heat in slabs"}

CALLS = {  # (function name, new argument): a valid call, arguments before it, its value
    ("sentence_chrf", "candidate"): ((), "the cat sat", {"references": ["the cat sat on"]}),
    ("segment_stats", "candidate"): ((), "the cat sat", {"references": ["the cat sat on"]}),
    ("exact_match", "candidate"): ((), "Paris", {"references": ["paris"]}),
    ("token_f1", "candidate"): ((), "in Paris", {"references": ["paris"]}),
    ("chrf", "candidates"): ((), ["the cat sat"], {"references": [["the cat sat on"]]}),
    ("corpus_stats", "candidates"): ((), ["the cat sat"], {"references": [["the cat sat on"]]}),
    ("corpus_exact_match", "candidates"): ((), ["Paris"], {"references": [["paris"]]}),
    ("corpus_token_f1", "candidates"): ((), ["in Paris"], {"references": [["paris"]]}),
    ("adjust_p_values", "p_values"): ((), [0.01, 0.04], {}),
    ("rrf", "rank_constant"): ((FUSED,), 10, {}),
    ("rrf", "depth"): ((FUSED,), 2, {}),
    ("bm25_run", "depth"): ((DOCS, QUERIES), 1, {}),
    ("dense_run", "depth"): ((DOCS, QUERIES), 1, {}),
    ("rank_biased_precision", "relevance"): (([3, 0, 1],), "graded", {"max_grade": 3}),
    ("replace", "ideal_source"): ((PRESETS["trec_eval"],), "retrieved", {}),
    ("pick_token", "seed"): ((np.array([0.5, 1.0, 0.25, 0.75]), 1.0), 7, {"top_p": 1.0}),
}


@pytest.mark.parametrize("function, old, new", list(_renamed()))
def test_an_old_argument_name_warns_and_gives_the_same_result(function, old, new):
    before, value, after = CALLS[function.__name__, new]
    want = function(*before, **{new: value}, **after)
    with pytest.warns(DeprecationWarning, match=rf"the argument {old} is renamed {new}\b"):
        got = function(*before, **{old: value}, **after)
    if hasattr(want, "tolist"):
        assert got.tolist() == want.tolist()
    elif isinstance(want, (dict, Conventions)):
        assert got == want
    else:
        assert float(got) == float(want)
    with pytest.raises(TypeError, match=f"{old}= .the old name of {new}"):
        function(*before, **{new: value, old: value}, **after)


def test_rrf_names_its_constant_apart_from_the_cut_off():
    """``k`` is always a cut-off: RRF's constant of Cormack et al. is ``rank_constant``."""
    from ragmetrics_edu.lab.retrievers import rrf

    assert "k" not in _parameters(rrf) and "rank_constant" in _parameters(rrf)


def test_every_renamed_argument_is_called():
    olds = {old for _, obj in CALLABLES for old in getattr(obj, "renamed_arguments", {})}
    assert olds >= {"hypothesis", "hypotheses", "prediction", "predictions", "pvalues", "top_k",
                    "k", "gain"}


OLD_ATTRIBUTES = [  # (result, old attribute, new attribute)
    (lambda: rm.two_proportion_z_test(100, 1000, 130, 1000), "pvalue", "p_value"),
    (lambda: rm.two_proportion_z_test(100, 1000, 130, 1000), "ci_low", "low"),
    (lambda: rm.two_proportion_z_test(100, 1000, 130, 1000), "ci_high", "high"),
    (lambda: rm.kappa_ci([0, 1, 1, 0], [0, 1, 0, 0], n_resamples=50), "statistic", "method"),
    (lambda: PRESETS["sklearn"], "ideal", "ideal_source"),
]


@pytest.mark.parametrize("make, old, new", OLD_ATTRIBUTES, ids=[o for _, o, _ in OLD_ATTRIBUTES])
def test_an_old_attribute_name_warns_and_reads_the_new_one(make, old, new):
    result = make()
    with pytest.warns(DeprecationWarning, match=rf"\.{old} is renamed {new} .*0\.3\.0"):
        value = getattr(result, old)
    assert value == getattr(result, new)


def test_the_new_names_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t = rm.two_proportion_z_test(100, 1000, 130, 1000)
        str(t), t.p_value, t.low, t.high
        rm.sentence_chrf(candidate="a cat", references=["a cat"])
        rm.chrf(candidates=["a cat"], references=["a cat"])
        rm.exact_match(candidate="Paris", references=["Paris"])
        rm.corpus_token_f1(candidates=["Paris"], references=[["Paris"]])
        rm.adjust_p_values(p_values=[0.01, 0.04])


def test_an_old_preset_name_warns_and_scores_as_the_new_one():
    qrels, run = {"q": {"a": 1}}, {"q": {"a": 1.0000000001, "b": 1.0}}
    from ragmetrics_edu.retrieval.conventions import PRESETS, get_preset, rank

    assert "trec_eval10" not in PRESETS
    with pytest.warns(DeprecationWarning, match="preset 'trec_eval10' is renamed 'trec_eval_10'"):
        assert get_preset("trec_eval10") is PRESETS["trec_eval_10"]
    with pytest.warns(DeprecationWarning, match="trec_eval_10") as caught:
        old = rm.evaluate(qrels, run, metrics=["mrr"], conventions="trec_eval10").mean["mrr"]
    assert caught[0].filename == __file__  # the user's line, not the package's
    assert old == rm.evaluate(qrels, run, metrics=["mrr"], conventions="trec_eval_10").mean["mrr"] == 1.0
    with pytest.warns(DeprecationWarning):
        assert rank(run["q"], "trec_eval10") == ["a", "b"]


def test_the_command_line_reads_an_old_preset_name(tmp_path, capsys):
    from ragmetrics_edu.__main__ import main

    (tmp_path / "qrels").write_text("q 0 a 1\n")
    (tmp_path / "run").write_text("q Q0 a 1 1.0000000001 x\nq Q0 b 2 1.0 x\n")
    code = main(["evaluate", str(tmp_path / "qrels"), str(tmp_path / "run"), "--metrics", "mrr",
                 "--conventions", "trec_eval10", "--format", "json"])
    out = capsys.readouterr()
    assert code in (0, None)
    assert "--conventions trec_eval10 is renamed trec_eval_10" in out.err
    assert '"mrr": 1.0' in out.out.replace(" ", "").replace('"mrr":1.0', '"mrr": 1.0')


def test_rbp_names_how_it_reads_a_grade_relevance_not_gain():
    """``gain`` is DCG's gain function (linear or exponential); RBP's binary or graded reading
    of a grade is its ``relevance``, in the function and in the metric's name."""
    from ragmetrics_edu.retrieval import user_models

    qrels, run = {"q": {"a": 3, "b": 1}}, {"q": {"a": 2.0, "b": 1.0}}
    new = rm.evaluate(qrels, run, metrics=["rbp(p=0.5, relevance=graded, max_grade=3)"]).mean
    with pytest.warns(DeprecationWarning, match="the parameter gain is renamed relevance"):
        old = rm.evaluate(qrels, run, metrics=["rbp(p=0.5, gain=graded, max_grade=3)"]).mean
    assert list(old.values()) == list(new.values()) == [0.5 * (3 / 3 + 0.5 * 1 / 3)]
    with pytest.warns(DeprecationWarning, match="RBP_GAINS is renamed RBP_RELEVANCE"):
        assert user_models.RBP_GAINS == user_models.RBP_RELEVANCE == ("binary", "graded")
    assert "gain" not in _parameters(rm.rank_biased_precision)


def test_conventions_takes_its_old_field_name_ideal():
    fields = {f.name: getattr(PRESETS["sklearn"], f.name) for f in dataclasses.fields(Conventions)}
    fields["ideal"] = fields.pop("ideal_source")
    with pytest.warns(DeprecationWarning, match="the argument ideal is renamed ideal_source"):
        assert Conventions(**fields) == PRESETS["sklearn"]


# ------------------------------------------ arguments after the first two, by keyword
# scikit-learn's rule: a function's data positional, its options keyword-only.  Two
# positional arguments at most (besides self), except where a function combines more
# data than two (each with the reason); the metric kernels share one protocol.
MORE_POSITIONAL = {
    "judge.calibration.ppi_mean_ci": (3, "ppi-python's three samples: Y, Yhat, Yhat_unlabeled"),
    "judge.calibration.ppi_mean_pointestimate": (3, "ppi-python's three samples: Y, Yhat, Yhat_unlabeled"),
    "judge.calibration.ppi_tuned_lambda": (3, "ppi-python's three samples: Y, Yhat, Yhat_unlabeled"),
    "judge.meta_eval.correlation_difference_ci": (3, "two metrics' scores and the ratings they are held to"),
    "judge.judge_vs_assessors.kappa_difference_ci": (3, "the assessor's labels and two judges'"),
    "judge.judge_vs_assessors.confusion_by_group": (3, "three columns of codes: assessor, judge, group"),
    "generation.semantic.score_from_similarity": (3, "the similarity matrix and both sides' weights"),
    "online.ab_test.two_proportion_z_test": (4, "clicks and users of each arm, as statsmodels' count and nobs"),
    "online.counterfactual.naive_estimate": (3, "the clicks, the logged ranking and the new one"),
    "online.counterfactual.ips_estimate": (4, "the clicks, both rankings and the propensities"),
    "online.counterfactual.counterfactual_evaluation": (3, "two runs and the qrels they are compared on"),
    "online.interleaving.interleaving_outcomes": (3, "two runs and the qrels they are compared on"),
    "online.interleaving.impressions_needed": (3, "two runs and the qrels they are compared on"),
    "online.interleaving.balanced_credit": (4, "the interleaved ranking, its clicks and both rankings"),
    "judge.rubric.grade": (3, "the judge, the rubric and the answer it grades"),
    "judge.language_model.grade_distribution": (3, "the judge, the rubric and the answer it grades"),
    "judge.pairwise.compare": (4, "the judge, the question and the two answers it compares"),
    "judge.pairwise.build_pairwise_prompt": (3, "the question and the two answers compared"),
    "judge.claims.judge_claims": (3, "the judge, the answer and the context it is checked against"),
    "judge.nuggets.build_nugget_prompt": (3, "the question, the answer and the nugget looked for"),
    "judge.nuggets.assign_nuggets": (4, "the judge, the question, the answer and its nuggets"),
    "judge.rag.judge_relevance": (3, "the judge, the question and the chunks it judges"),
    "judge.rag.judge_support": (3, "the judge, the claims and the context it checks them against"),
    "judge.rag.judged_context_precision": (3, "the judge, the question and the chunks it judges"),
    "judge.rag.judged_context_recall": (3, "the judge, the reference and the chunks it judges"),
    "judge.rag.judged_faithfulness": (3, "the judge, the answer and the chunks it judges"),
    "judge.rag.judged_answer_relevancy": (3, "the judge, the question and the answer it judges"),
    "judge.support.assess_support": (3, "the judge, the answer and the passages it judges"),
    "models.decoder.apply_rotary": (3, "a formula's operands: the vectors and the rotation's cos and sin"),
    "models.decoder.causal_attention": (3, "a formula's operands: queries, keys and values"),
    "models.decoder.feed_forward": (3, "a formula's operands: the input and both weight matrices"),
    "models.gguf.dequantize": (3, "the raw bytes, their quantization type and the tensor's shape"),
    "models.minilm.layer_norm": (3, "a formula's operands: the input, its gain and its bias"),
    "models.minilm.linear": (3, "a formula's operands: the input, the weight and the bias"),
    "models.minilm.attention_weights": (3, "a formula's operands: queries, keys and the mask"),
    "models.minilm.self_attention": (3, "the hidden states, the mask and the layer's weights"),
    "models.minilm.transformer_layer": (3, "the hidden states, the mask and the layer's weights"),
}
KERNEL_PROTOCOL = 3  # kernels.<metric>(ranked, metric, conventions), called by the engine


def _positional(obj):
    try:
        params = inspect.signature(obj).parameters.values()
    except (TypeError, ValueError):
        return []
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [p.name for p in params if p.kind in kinds and p.name not in ("self", "cls")]


def _allowed(name):
    if name.startswith("retrieval.batch.kernels."):
        return KERNEL_PROTOCOL
    return MORE_POSITIONAL.get(name, (2,))[0]


def test_arguments_after_the_first_two_are_keyword_only():
    """recall_at_k(rels, k, *, n_relevant): a third argument by position is a trap
    (average_precision(rels, n_relevant, k) had them the other way round)."""
    wrong = [f"{name}({', '.join(_positional(obj))}): at most {_allowed(name)} positional"
             for name, obj in CALLABLES
             if not inspect.isclass(obj) and len(_positional(obj)) > _allowed(name)]
    assert not wrong, "\n".join(wrong)


def test_each_exception_takes_more_than_two_by_position():
    functions = dict(CALLABLES)
    for name, (n, why) in MORE_POSITIONAL.items():
        assert name in functions, f"{name} is no longer public: remove its exception"
        assert len(_positional(functions[name])) == n > 2, name


FORMERLY = [obj for _, obj in CALLABLES if getattr(obj, "formerly_positional", None)]


def test_the_functions_made_keyword_only_still_take_the_old_calls():
    assert len(FORMERLY) > 90
    for function in FORMERLY:
        names = function.formerly_positional
        signature = inspect.signature(function).parameters
        keyword_only = [p for p, v in signature.items() if v.kind is v.KEYWORD_ONLY]
        assert list(names) == keyword_only[:len(names)], function.__qualname__


OLD_CALLS = [  # a call as written before arguments after the first two became keyword-only
    ("recall_at_k", lambda f: f([1, 0, 1], 2, 4), lambda f: f([1, 0, 1], 2, n_relevant=4)),
    ("average_precision", lambda f: f([1, 0, 1], 3, 2), lambda f: f([1, 0, 1], 3, k=2)),
    ("ndcg_at_k", lambda f: f([2, 0, 1], 3, "exponential", [2, 2, 1]),
     lambda f: f([2, 0, 1], 3, gain="exponential", ideal=[2, 2, 1])),
    ("evaluate", lambda f: f({"q": {"a": 1}}, {"q": {"a": 1.0, "b": 2.0}}, ["mrr"]).mean,
     lambda f: f({"q": {"a": 1}}, {"q": {"a": 1.0, "b": 2.0}}, metrics=["mrr"]).mean),
    ("bleu", lambda f: float(f("the cat sat", ["the cat sat down"], 2)),
     lambda f: float(f("the cat sat", ["the cat sat down"], max_n=2))),
    ("bootstrap_ci", lambda f: float(f([0.1, 0.5, 0.9], 0.9, 200, 1)),
     lambda f: float(f([0.1, 0.5, 0.9], 0.9, n_resamples=200, seed=1))),
]


@pytest.mark.parametrize("name, old, new", OLD_CALLS, ids=[n for n, _, _ in OLD_CALLS])
def test_a_formerly_positional_call_warns_and_gives_the_same_result(name, old, new):
    function = getattr(rm, name)
    with pytest.warns(DeprecationWarning, match=rf"{name}\(\): pass \w+.* by keyword: .*0\.3\.0"):
        got = old(function)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert got == new(function)


def test_an_argument_given_both_ways_or_too_many_is_a_type_error():
    with pytest.raises(TypeError, match="got n_relevant by position and by keyword"):
        rm.recall_at_k([1, 0], 1, 2, n_relevant=2)
    with pytest.raises(TypeError, match="takes 2 positional arguments"):
        rm.recall_at_k([1, 0], 1, 2, 3)


def test_an_old_function_name_warns_and_gives_the_same_result():
    p = [0.01, 0.04, 0.03]
    with pytest.warns(DeprecationWarning, match="function adjust_pvalues is renamed adjust_p_values"):
        old = rm.adjust_pvalues(p, "fdr_bh")
    assert old.tolist() == rm.adjust_p_values(p, "fdr_bh").tolist()


# A class the library builds (a result, a model or data read from a file, a widget's
# state) keeps its fields' order: nobody writes its constructor call.  A class a user
# configures (a judge, an answerer, a click model, a preset, a widget) follows the rule.
BUILT = {
    "a result": """SeedExample HeatmapData HeatmapFigure PlaygroundState NgramOverlap OrderMatches
        BLEUResult PrecisionCounts CHRFResult RougeResult BERTScoreResult TokenMatches Grade
        PairwiseResult VerbosityBias PositionBias Correlation MetaEvaluation AgreementInterval
        RankingAgreement CitationScores FactScore JudgingCost ClaimDiagnostics GradeAgreement
        Unmeasured JudgeDistribution GradeDistribution PPIRepeated Failure JudgingRun
        SupportScores Answer EffectSize QueriesNeeded ConfidenceInterval SignificanceResult
        Comparison TestSetReport Generation ContinuationDistribution ZTest Peeking ClickLog
        OnlineMetrics Scan CounterfactualResult Interleaving Sensitivity Report Ranked Metric
        ConventionReport RankedQuery PrecisionRecallCurve TokenEmbeddings Encoding Attention""",
    "read from a file": """LLMJudge Cranfield QAItem LanguageModelConfig LanguageModel TensorInfo
        GGUFFile Layer Config MiniLM""",
}
BUILT_NAMES = {name for names in BUILT.values() for name in names.split()}
MORE_POSITIONAL_FIELDS = {
    "Rubric": (3, "a rubric is its name, its question and its levels: Rubric('tone', 'Is it "
                  "polite?', {0: 'no', 1: 'yes'})"),
    "Declaration": (11, "a metric's declaration reads as a row of the table of metrics"),
}


def test_a_configured_class_takes_its_arguments_after_the_first_two_by_keyword():
    wrong = []
    for name, obj in CALLABLES:
        if not inspect.isclass(obj) or obj.__name__ in BUILT_NAMES:
            continue
        allowed = MORE_POSITIONAL_FIELDS.get(obj.__name__, (2,))[0]
        if len(_positional(obj)) > allowed:
            wrong.append(f"{name}({', '.join(_positional(obj))}): at most {allowed} positional")
    assert not wrong, "\n".join(wrong)


def test_the_built_classes_are_still_there():
    classes = {obj.__name__ for _, obj in CALLABLES if inspect.isclass(obj)}
    assert BUILT_NAMES <= classes and set(MORE_POSITIONAL_FIELDS) <= classes


def test_a_configured_class_still_takes_its_old_positional_call():
    from ragmetrics_edu.judge.offline import EmbeddingJudge

    with pytest.warns(DeprecationWarning, match=r"PositionBasedModel\(\): pass eta by keyword"):
        old = rm.PositionBasedModel("err", 4, 0.5)
    assert old == rm.PositionBasedModel("err", 4, eta=0.5)
    with pytest.warns(DeprecationWarning,
                      match=r"EmbeddingJudge\(\): pass cosine_low, cosine_high by keyword"):
        judge = EmbeddingJudge(None, 0.2, 0.9)
    assert (judge.cosine_low, judge.cosine_high) == (0.2, 0.9)
