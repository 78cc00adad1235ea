"""The package as a whole: what `import ragmetrics_edu` costs and exposes."""

import subprocess
import sys
from pathlib import Path

import pytest

import ragmetrics_edu as rm

HEAVY = ("matplotlib", "ipywidgets", "torch", "transformers", "scipy", "pandas", "sklearn",
         "safetensors", "tokenizers", "sacrebleu", "nltk", "statsmodels", "torchmetrics",
         "bm25s", "pytrec_eval", "ranx", "ir_measures")


def _run(code):
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_import_needs_numpy_only():
    """Importing the package, and every module in it, loads none of the heavy libraries."""
    code = (
        "import importlib, pkgutil, sys, ragmetrics_edu as rm\n"
        "for m in pkgutil.walk_packages(rm.__path__, 'ragmetrics_edu.'):\n"
        "    if m.name != 'ragmetrics_edu.__main__':\n"
        "        importlib.import_module(m.name)\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    )
    assert _run(code) == "[]"


@pytest.mark.parametrize("name", rm.__all__)
def test_every_public_name_resolves(name):
    """Each name listed in __all__ is defined by the module the table says."""
    assert callable(getattr(rm, name))


def test_unknown_attribute_is_an_error():
    with pytest.raises(AttributeError, match="no attribute 'precision_at_K'"):
        rm.precision_at_K  # noqa: B018


def test_functions_keep_their_names_after_any_import():
    """`rm.bleu` and `rm.bertscore` are functions, whichever modules were imported first."""
    code = (
        "import types, ragmetrics_edu as rm\n"
        "import ragmetrics_edu.generation.bleu_score, ragmetrics_edu.generation.semantic, ragmetrics_edu.generation.rouge\n"
        "print([isinstance(f, types.FunctionType) for f in (rm.bleu, rm.bertscore, rm.rouge_n)])"
    )
    assert _run(code) == "[True, True, True]"



@pytest.mark.parametrize("part", sorted(rm._PARTS))
def test_each_part_loads_its_modules_on_first_use(part):
    """``rm.online.ab_test`` works in a fresh interpreter without importing it first, for
    every public module of every part, and ``dir()`` lists them (the one lazy loader)."""
    code = (
        "import pkgutil, ragmetrics_edu as rm\n"
        f"pkg = getattr(rm, {part!r})\n"
        "names = [m.name for m in pkgutil.iter_modules(pkg.__path__) if not m.name.startswith('_')]\n"
        "assert names\n"
        "print([n for n in names if n not in dir(pkg) or getattr(pkg, n).__name__ != f'{pkg.__name__}.{n}'])"
    )
    assert _run(code) == "[]"


PACKAGE = Path(rm.__file__).parent


def _module_name(path):
    """``ragmetrics_edu/retrieval/batch/__init__.py`` -> ``ragmetrics_edu.retrieval.batch``."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path, top_level_only):
    """The package modules a module imports: at load time, or anywhere (inside functions too)."""
    import ast

    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else ast.walk(tree)
    found = set()
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
            target = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:  # "from . import minilm": a module
                sub = f"{target}.{alias.name}"
                is_module = (PACKAGE.parent / sub.replace(".", "/")).with_suffix(".py").is_file() \
                    or (PACKAGE.parent / sub.replace(".", "/") / "__init__.py").is_file()
                found.add(sub if is_module else target)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [node.module] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            found.update(n for n in names if n and n.split(".")[0] == "ragmetrics_edu")
    found.discard(name)
    return found


def _graph(top_level_only):
    return {_module_name(path): _imports(path, top_level_only)
            for path in PACKAGE.rglob("*.py")}


def test_no_module_imports_itself_in_a_circle():
    """Loading any module never needs a module that needs it back: batch and conventions
    once imported each other, so which one was loaded first decided what worked."""
    graph = _graph(top_level_only=True)
    batch = "ragmetrics_edu.retrieval.batch"
    conventions = "ragmetrics_edu.retrieval.conventions"
    assert conventions in graph[f"{batch}.evaluator"]
    # conventions reads the registry and the report, never the evaluator
    assert not any(name.startswith(batch) and name not in (f"{batch}.report", f"{batch}.registry")
                   for name in graph[conventions])

    def reaches(start, goal, seen):
        for name in graph.get(start, ()):
            if name == goal:
                return True
            if name not in seen:
                seen.add(name)
                if reaches(name, goal, seen):
                    return True
        return False

    circles = sorted(name for name in graph if name != "ragmetrics_edu"
                     and reaches(name, name, set()))
    assert circles == []


# The parts of the package, lowest first: a part may import the parts before it only.
# (``ragmetrics_edu`` itself, which loads nothing eagerly, may be imported by any part for
# its version or public names.)
PART_ORDER = (("_validation", "_lazy", "_deprecation", "_scaling"), "_texts", "models",
              ("retrieval", "generation"), "judge", ("lab", "online"), "course", "__main__")


def _rank(module):
    part = module.split(".")[1] if "." in module else ""
    for rank, entry in enumerate(PART_ORDER):
        if part in (entry if isinstance(entry, tuple) else (entry,)):
            return rank
    return None


def test_no_part_imports_a_part_above_it():
    """Imports inside functions included: models are leaves, the course is on top."""
    wrong = []
    for module, imported in _graph(top_level_only=False).items():
        rank = _rank(module)
        if rank is None:
            continue
        for target in imported:
            if target == "ragmetrics_edu":
                continue
            target_rank = _rank(target)
            if target_rank is None or target_rank > rank or (
                    target_rank == rank and target.split(".")[1] != module.split(".")[1]):
                wrong.append(f"{module} -> {target}")
    assert sorted(wrong) == []


EXPORTED = (
    'CascadeModel', 'DBNModel', 'DependentClickModel', 'ExtractiveAnswerer',
    'GenerativeAnswerer', 'LanguageModelJudge', 'LocalGenerativeAnswerer', 'PositionBasedModel', 'Report', 'ab_sample_size', 'abandonment_rate',
    'adjust_p_values', 'adjust_pvalues', 'assign_nuggets', 'atomic_claims', 'attractiveness_from_grades',
    'average_precision', 'balanced_credit', 'balanced_interleave', 'bertscore', 'bleu',
    'bootstrap_ci', 'bpref', 'brevity_penalty', 'chrf', 'citation_precision', 'citation_recall',
    'citation_scores', 'claim_precision', 'classical_mean_ci', 'click_through_rate',
    'clicks_at_k', 'compare_systems', 'corpus_bleu', 'corpus_exact_match', 'corpus_token_f1',
    'counterfactual_evaluation', 'cumulative_gain', 'dcg_at_k',
    'eleven_point_average_precision', 'err_at_k', 'estimate_judging_cost', 'evaluate',
    'exact_match', 'f1_at_k', 'factscore', 'first_click_reciprocal_rank', 'grade_distribution', 'hit_rate_at_k',
    'idcg_at_k', 'impressions_needed', 'interleaving_outcomes', 'interpolated_precision',
    'ips_estimate', 'judge_all', 'judged_at_k', 'kappa_ci', 'load_cranfield',
    'load_cranfield_judge_sample', 'load_cranfield_nuggets', 'load_cranfield_paraphrases',
    'load_cranfield_qa', 'load_language_model', 'mean_average_precision', 'mean_nugget_scores', 'mean_reciprocal_rank',
    'modified_precision', 'naive_estimate', 'ndcg_at_k', 'ngrams', 'normalize_answer',
    'nugget_scores', 'online_metrics', 'paired_effect_size', 'paired_t_test',
    'peeking_false_positive_rate', 'ppi_mean_ci', 'ppi_mean_pointestimate', 'ppi_tuned_lambda',
    'precision_at_k', 'precision_recall_curve', 'queries_needed', 'r_precision',
    'randomization_test', 'rank_biased_precision', 'rbp_residual', 'read_qrels', 'read_run',
    'recall_at_k', 'reciprocal_rank', 'rouge_l', 'rouge_lsum', 'rouge_n', 'rouge_tokenize',
    'scan_ranking', 'sentence_chrf', 'system_ranking_tau', 'team_draft_credit',
    'team_draft_interleave', 'testset_report', 'token_f1', 'two_proportion_z_test',
    'whitespace_tokenize', 'write_run',
    # 15 RAG diagnostics
    'claim_diagnostics', 'context_entity_recall', 'mean_claim_diagnostics', 'noise_sensitivity',
    'support_scores',
    # 12: real LLM judges against NIST's assessors
    'grade_agreement', 'kappa_difference_ci', 'load_llmjudge', 'ppi_repeated',
    'ppi_variance_ratio',
)
"""Every name ``import ragmetrics_edu as rm`` exports, written out: a name that disappears,
or one added without being listed here, fails below."""


def test_the_exported_names_are_these():
    assert len(EXPORTED) == len(set(EXPORTED)) == 114
    assert sorted(rm.__all__) == sorted(EXPORTED)


def test_each_exported_name_imports():
    """``from ragmetrics_edu import name`` works for each name, in a fresh interpreter."""
    code = ("import importlib\n"
            f"for name in {EXPORTED!r}:\n"
            "    exec(f'from ragmetrics_edu import {name} as found')\n"
            "    assert found.__name__ == name, name\n"
            "print('ok')")
    assert _run(code) == "ok"


MAX_LINES = 900


def test_no_module_is_over_900_lines():
    long = {str(path.relative_to(PACKAGE)): n for path in PACKAGE.rglob("*.py")
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_no_module_imports_a_private_name_of_another():
    """A helper two modules share has a name without the underscore (public within the
    package, not exported); only the private engine modules (``_checks``, ``_engine``,
    ``_words``, ``_common``) hand private names to the modules of their own folder."""
    import ast

    found = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level \
                    and not (node.module or "").split(".")[-1].startswith("_"):
                found += [f"{_module_name(path)} <- {node.module}.{a.name}" for a in node.names
                          if a.name.startswith("_") and not a.name.startswith("__")]
    assert found == []
