"""The package as a whole: what `import ragmetrics_edu` costs and exposes."""

import subprocess
import sys

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
        "import ragmetrics_edu.bleu_score, ragmetrics_edu.semantic, ragmetrics_edu.rouge\n"
        "print([isinstance(f, types.FunctionType) for f in (rm.bleu, rm.bertscore, rm.rouge_n)])"
    )
    assert _run(code) == "[True, True, True]"


def _module_level_imports(path):
    """The package modules a module imports at load time (its top-level ``from .x`` lines)."""
    import ast

    found = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(alias.name for alias in node.names)
    return found


def test_no_module_imports_itself_in_a_circle():
    """Loading any module never needs a module that needs it back: batch and conventions
    once imported each other, so which one was loaded first decided what worked."""
    from pathlib import Path

    folder = Path(rm.__file__).parent
    graph = {path.stem: _module_level_imports(path) for path in folder.glob("*.py")}
    assert "conventions" in graph["batch"] and "batch" not in graph["conventions"]

    def reaches(start, goal, seen):
        for name in graph.get(start, ()):
            if name == goal:
                return True
            if name not in seen:
                seen.add(name)
                if reaches(name, goal, seen):
                    return True
        return False

    circles = sorted(name for name in graph if name != "__init__" and reaches(name, name, set()))
    assert circles == []
