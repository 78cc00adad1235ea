"""Every result the library returns prints itself, and every single-number result converts with float().

The result classes are found, not listed by hand: every class a public module
exports (``__all__``) and every class named in the Returns section (or the return
annotation) of a public function or method.  Each must be sorted below into
``SINGLE_NUMBER`` (one headline number: ``float(result)`` gives it),
``SEVERAL_NUMBERS`` (a summary of several numbers of equal standing, or of
something that is not a number) or ``NOT_RESULTS`` (judges, models, data,
settings), so a result class added without a ``__str__`` fails here.  The
course's widgets and their states are views, not results, and are left out.
"""

import importlib
import inspect
import math
import pkgutil
import re

import numpy as np
import pytest

import ragmetrics_edu as rm

SINGLE_NUMBER = {
    # class name: the attribute float() of the result gives
    "BLEUResult": "score",
    "CHRFResult": "score",
    "PrecisionCounts": "precision",
    "FactScore": "score",
    "Grade": "score",
    "ConfidenceInterval": "mean",
    "EffectSize": "d_z",
    "AgreementInterval": "value",
    "Correlation": "value",
    "RankingAgreement": "tau",
    "JudgingCost": "total_cost",
    "Peeking": "false_positive_rate",
}

SEVERAL_NUMBERS = {
    # class name: why float() would have to pick one
    "RougeResult": "precision, recall and F-measure (ROUGE-N was first defined as a recall)",
    "BERTScoreResult": "precision, recall and F1 of each pair",
    "TokenMatches": "precision, recall and F1, and the similarity matrix",
    "CitationScores": "citation recall and precision",
    "SupportScores": "support precision and recall",
    "ClaimDiagnostics": "eleven metrics",
    "GradeAgreement": "seven agreement statistics with their intervals",
    "MetaEvaluation": "a table of correlations",
    "PPIRepeated": "widths and coverages of two kinds of interval",
    "VerbosityBias": "a shift per answer, their mean and counts",
    "PositionBias": "the flip rate and the first-position rate",
    "GradeDistribution": "the most likely grade (int()) and the expected grade",
    "JudgeDistribution": "a probability per label",
    "ContinuationDistribution": "a probability per continuation",
    "PairwiseResult": "a winner, not a number",
    "Unmeasured": "a reply that is not a grade",
    "JudgingRun": "replies, failures and counts",
    "Failure": "an error, not a number",
    "Generation": "a text",
    "Answer": "a text",
    "SignificanceResult": "a statistic and a p-value",
    "Comparison": "two means, their difference, its interval and a p-value",
    "QueriesNeeded": "a count that may be None (power not reached), and the power reached",
    "TestSetReport": "several counts and rates",
    "Report": "a table of metrics by query",
    "ConventionReport": "a table of metrics by query",
    "PrecisionRecallCurve": "a curve",
    "ZTest": "two rates, their difference, its interval, a statistic and a p-value",
    "CounterfactualResult": "true, naive and IPS estimates",
    "Sensitivity": "impressions needed by two methods and their ratio",
    "OnlineMetrics": "four online metrics",
    "ClickLog": "clicks and examinations of every session",
    "Scan": "events of sessions, and a running CTR",
    "Interleaving": "a ranking, not a number",
}

NOT_RESULTS = {
    # class name: what it is instead
    "FunctionJudge": "a judge", "CachedJudge": "a judge", "EmbeddingJudge": "a judge",
    "OpenAICompatibleJudge": "a judge", "LanguageModelJudge": "a judge",
    "ExtractiveAnswerer": "an answerer", "GenerativeAnswerer": "an answerer",
    "LocalGenerativeAnswerer": "an answerer",
    "CascadeModel": "a click model", "PositionBasedModel": "a click model",
    "DependentClickModel": "a click model", "DBNModel": "a click model",
    "LanguageModel": "a model", "MiniLM": "a model", "KVCache": "a model's state",
    "LanguageModelConfig": "a model's settings", "BPETokenizer": "a tokenizer",
    "WordPieceTokenizer": "a tokenizer", "GGUFFile": "a model file",
    "TensorInfo": "a model file's entry", "TokenEmbeddings": "vectors of a model",
    "Attention": "a model's attention weights, for the heatmap", "Layer": "a layer's weights",
    "Rubric": "a judge's settings", "Conventions": "settings",
    "Declaration": "a metric's declaration", "Parameter": "a metric's parameter",
    "Metric": "a parsed metric name", "RankedQuery": "the input of a metric, ranked",
    "Ranked": "the input of the kernels, ranked",
    "Cranfield": "a data set", "QAItem": "a data set's item", "LLMJudge": "a data set",
    "Statement": "a parsed sentence of an answer",
}


def _public_modules():
    for info in pkgutil.walk_packages(rm.__path__, "ragmetrics_edu."):
        parts = info.name.split(".")[1:]
        if parts[0] in ("course", "__main__") or any(p.startswith("_") for p in parts):
            continue
        yield importlib.import_module(info.name)


def _classes_of_the_package():
    found = {}
    for module in _public_modules():
        for obj in vars(module).values():
            if inspect.isclass(obj) and obj.__module__.startswith("ragmetrics_edu.") \
                    and not issubclass(obj, BaseException):
                found[obj.__name__] = obj
    return found


def _returned_classes():
    """The classes each public module exports, and those named where a public function returns."""
    classes = _classes_of_the_package()
    returned = {}
    for module in _public_modules():
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name, None)
            if inspect.isclass(obj) and obj.__name__ in classes:
                returned[obj.__name__] = obj
        functions = []
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
                continue
            if inspect.isfunction(obj):
                functions.append(obj)
            elif inspect.isclass(obj):
                functions += [f for n, f in vars(obj).items()
                              if inspect.isfunction(f) and not n.startswith("_")]
        for f in functions:
            doc = inspect.getdoc(f) or ""
            section = re.search(r"\nReturns\n-------\n(.*?)(?:\n\n\S[^\n]*\n---|\Z)", doc, re.S)
            text = (section.group(1) if section else "") + " " + str(
                f.__annotations__.get("return", ""))
            returned.update((name, cls) for name, cls in classes.items()
                            if re.search(rf"\b{name}\b", text))
    return returned


RETURNED = _returned_classes()


def test_the_search_finds_the_known_results():
    """The search itself works: it finds results of every part, by export and by docstring."""
    assert {"BLEUResult", "Report", "ZTest", "GradeAgreement", "Generation",
            "ConfidenceInterval", "PrecisionRecallCurve", "FactScore"} <= set(RETURNED)


def test_every_class_found_is_sorted():
    unsorted = set(RETURNED) - set(SINGLE_NUMBER) - set(SEVERAL_NUMBERS) - set(NOT_RESULTS)
    assert sorted(unsorted) == []
    assert not set(SINGLE_NUMBER) & set(SEVERAL_NUMBERS)
    gone = (set(SINGLE_NUMBER) | set(SEVERAL_NUMBERS) | set(NOT_RESULTS)) - set(RETURNED)
    assert sorted(gone) == []  # a class that no longer exists leaves the tables too


@pytest.mark.parametrize("name", sorted(set(SINGLE_NUMBER) | set(SEVERAL_NUMBERS)))
def test_each_result_class_prints_itself(name):
    """Its own ``__str__``, not the dataclass's or the namedtuple's repr."""
    cls = RETURNED[name]
    assert cls.__str__ not in (object.__str__, tuple.__str__)


@pytest.mark.parametrize("name", sorted(SINGLE_NUMBER))
def test_each_single_number_result_converts_with_float(name):
    assert "__float__" in dir(RETURNED[name])


@pytest.mark.parametrize("name", sorted(SEVERAL_NUMBERS))
def test_a_result_of_several_numbers_does_not_pick_one(name):
    assert "__float__" not in dir(RETURNED[name])


# ---------------------------------------------------------------- real results, printed

def _score_judge(prompt):
    return "Score: 4"


def _first_wins(prompt):
    return "Winner: A"


QRELS = {"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"d": 1, "e": 0}}
RUN = {"q1": {"a": 0.9, "b": 0.8, "c": 0.1}, "q2": {"e": 0.7, "d": 0.3}}


A_SCORES, B_SCORES = [0.2, 0.4, 0.5, 0.3, 0.6, 0.1], [0.3, 0.5, 0.5, 0.6, 0.7, 0.2]
CASCADE = rm.CascadeModel()
SMALL = {"q": ["a", "b", "c"]}, {"q": ["c", "a", "b"]}, {"q": {"a": 2, "b": 0, "c": 1}}


def _bertscore_result():
    """BERTScore's result, built by hand (the transformer itself is tested in tests/crosscheck)."""
    from ragmetrics_edu.generation.semantic import BERTScoreResult

    return BERTScoreResult(np.array([0.5, 0.7]), np.array([0.6, 0.8]), np.array([0.55, 0.75]),
                           "all-MiniLM-L6-v2", "all-MiniLM-L6-v2", 6, False, False)


def _token_matches():
    from ragmetrics_edu.generation.semantic import TokenMatches

    similarity = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.5, 0.0], [0.0, 0.0, 1.0]])
    return TokenMatches(["[CLS]", "a", "b", "[SEP]"], ["[CLS]", "a", "[SEP]"], similarity,
                        np.array([0.0, 1.0, 1.0, 0.0]), np.array([0.0, 1.0, 0.0]))


def _judge(name):
    return importlib.import_module(f"ragmetrics_edu.judge.{name}")


def _lab(name):
    return importlib.import_module(f"ragmetrics_edu.lab.{name}")


def _sampling():
    return importlib.import_module("ragmetrics_edu.models.sampling")


EXAMPLES = [
    # (how to get a real result, what its printed form shows)
    (lambda: rm.bleu("the cat sat on the mat", "the cat sat on a mat"), ()),
    (lambda: rm.sentence_chrf("the cat sat", "the cat sat on the mat"), ()),
    (lambda: rm.modified_precision("the the the", ["the cat"], n=1, return_counts=True), ("1/3",)),
    (lambda: rm.rouge_n("the cat sat", "the cat sat on the mat", n=1), ("1.0000", "0.5000")),
    (_bertscore_result, ("0.6000",)),
    (_token_matches, ("0.7500",)),
    (lambda: rm.citation_scores("Helium cooled best [1]. Argon was tried [2].",
                                ["Helium cooled best.", "Nothing."],
                                entails=lambda premise, statement: statement in premise), ("0.5000",)),
    (lambda: rm.factscore([[1] * 10, [1, 1, 0, 0, 1], []]), ("0.6104", "0.6667")),
    (lambda: rm.support_scores([["full_support"], ["no_support"]]), ("0.5000",)),
    (lambda: rm.claim_diagnostics(response_claims_correct=[True, False],
                                  reference_claims_covered=[True],
                                  response_claims_supported=[[True], [False]],
                                  reference_claims_retrieved=[[True]]), ("0.5000",)),
    (lambda: rm.grade_agreement([0, 1, 2, 3, 2, 1], [0, 1, 2, 2, 2, 0], n_resamples=20), ()),
    (lambda: _judge("meta_eval").meta_evaluate({"bleu": A_SCORES}, B_SCORES, n_resamples=20),
     ()),
    (lambda: _judge("meta_eval").correlation_ci(A_SCORES, B_SCORES, n_resamples=20), ()),
    (lambda: rm.kappa_ci([0, 1, 1, 0, 1], [0, 1, 0, 0, 1], n_resamples=20), ()),
    (lambda: rm.system_ranking_tau({"s1": [0.1, 0.2], "s2": [0.3, 0.4], "s3": [0.5, 0.1]},
                                   {"s1": [0.2, 0.2], "s2": [0.1, 0.4], "s3": [0.5, 0.3]},
                                   n_resamples=20), ()),
    (lambda: rm.ppi_repeated(np.arange(20) % 2, (np.arange(20) + 1) % 3 > 0, n=6, repeats=5), ()),
    (lambda: _judge("bias").verbosity_bias(
        lambda prompt: "Score: 4", [{"question": "What cooled best?", "answer": "Helium."}]), ()),
    (lambda: _judge("bias").position_bias(
        lambda prompt: "Winner: A", [{"question": "q?", "answer_1": "x", "answer_2": "y"}]), ()),
    (lambda: _judge("language_model").GradeDistribution(
        3, 3.2, {1: 0.1, 3: 0.6, 5: 0.3}, 0.9, "relevance", "smollm2"), ("0.6000", "3.2000")),
    (lambda: _judge("language_model").JudgeDistribution(
        "verdict", ["yes", "no"], np.array([0.75, 0.25]), 0.9), ("0.7500",)),
    (lambda: _sampling().ContinuationDistribution(
        ["A", "B"], np.array([0.5, 0.5]), 0.4, np.log([0.2, 0.2])), ("0.4000",)),
    (lambda: _sampling().Generation("Helium.", [5, 6], "end", 12), ("Helium.",)),
    (lambda: rm.judge.compare(lambda prompt: "Winner: A", "q?", "x", "y"), ()),
    (lambda: rm.judge.grade(lambda prompt: "Score: 4", "relevance", "Helium.",
                            question="What cooled best?"), ("4",)),
    (lambda: _judge("judge_vs_assessors").unmeasured_replies([0, 7, None])[0], ("7",)),
    (lambda: rm.judge_all(lambda prompt: "Score: 4", ["p1", "p2"], progress=False), ()),
    (lambda: _judge("run").Failure((3,), "p", "JudgeTimeoutError", "no reply in 30 s", 3),
     ("3",)),
    (lambda: _lab("answer").Answer("Helium cooled best.", ("Helium cooled best.",), ("12",), 0.5,
                                   ("...",), "extractive"), ("Helium cooled best.", "12")),
    (lambda: rm.estimate_judging_cost(["a prompt"], reply_tokens=5,
                                      input_price_per_million=1.0), ()),
    (lambda: rm.testset_report([{"id": "q1", "question": "What cooled best?",
                                 "answers": ["helium"], "doc_ids": ["d1"]}],
                               run={"q1": {"d1": 1.0}}, threshold=None), ("1 questions",)),
    (lambda: rm.bootstrap_ci(A_SCORES, n_resamples=100), ()),
    (lambda: rm.paired_t_test(A_SCORES, B_SCORES), ()),
    (lambda: rm.randomization_test(A_SCORES, B_SCORES), ()),
    (lambda: rm.compare_systems(rm.evaluate(QRELS, RUN, metrics=["P@2"]),
                                rm.evaluate(QRELS, {"q1": RUN["q1"], "q2": {"d": 1.0}}, metrics=["P@2"]),
                                metric="P@2"), ()),
    (lambda: rm.paired_effect_size(A_SCORES, B_SCORES, n_resamples=100), ()),
    (lambda: rm.queries_needed(A_SCORES, B_SCORES, n_simulations=20, max_queries=50), ()),
    (lambda: rm.evaluate(QRELS, RUN, metrics=["P@2", "ndcg"]), ()),
    (lambda: rm.retrieval.conventions.evaluate_as(QRELS, RUN, metrics=["ndcg@2"], conventions="ranx"), ()),
    (lambda: rm.precision_recall_curve([1, 0, 1], 3), ("0.6667",)),
    (lambda: rm.two_proportion_z_test(50, 1000, 65, 1000), ()),
    (lambda: rm.peeking_false_positive_rate(days=3, n_experiments=50), ()),
    (lambda: rm.counterfactual_evaluation(*SMALL, n_sessions=20, depth=2), ()),
    (lambda: rm.impressions_needed(*SMALL, n_per_query=20, depth=2), ()),
    (lambda: CASCADE.expected([3, 0, 1]), ()),
    (lambda: CASCADE.simulate([3, 0, 1], n_sessions=10), ("10",)),
    (lambda: rm.scan_ranking(CASCADE, [3, 0, 1], n_sessions=3), ()),
    (lambda: rm.team_draft_interleave(["a", "b", "c"], ["c", "a", "b"]), ("a", "c")),
]


def test_an_example_of_every_result_class():
    shown = {type(make()).__name__ for make, _ in EXAMPLES}
    assert sorted((set(SINGLE_NUMBER) | set(SEVERAL_NUMBERS)) - shown) == []


@pytest.mark.parametrize("make, shows", EXAMPLES)
def test_a_result_prints_a_short_summary(make, shows):
    """Readable: not the repr, a few lines at most, the numbers it is about shown."""
    result = make()
    text = str(result)
    assert text and text != repr(result) and not text.startswith(type(result).__name__ + "(")
    assert len(text.splitlines()) <= 20 and max(map(len, text.splitlines())) <= 400
    for part in shows:
        assert part in text


def test_float_of_a_single_number_result_is_its_number():
    checked = set()
    for make, _ in EXAMPLES:
        result = make()
        attribute = SINGLE_NUMBER.get(type(result).__name__)
        if attribute is not None:
            number = getattr(result, attribute)
            assert isinstance(float(result), float)
            assert float(result) == number or (math.isnan(number) and math.isnan(float(result)))
            checked.add(type(result).__name__)
    assert checked == set(SINGLE_NUMBER)
