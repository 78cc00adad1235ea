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
PART_ORDER = ("_validation", "models", ("retrieval", "generation"), "judge", ("lab", "online"),
              "course", "__main__")


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
