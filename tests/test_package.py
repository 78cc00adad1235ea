"""The package as a whole: what `import ragmetrics_edu` costs and exposes."""

import subprocess
import sys

import pytest

import ragmetrics_edu as rm

HEAVY = ("matplotlib", "ipywidgets", "torch", "transformers", "scipy", "pandas", "sklearn")


def _run(code):
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_import_needs_numpy_only():
    """Importing the package, and every metric module, loads none of the heavy libraries."""
    code = (
        "import sys, ragmetrics_edu as rm\n"
        "import ragmetrics_edu.order_unaware, ragmetrics_edu.order_aware, ragmetrics_edu.graded\n"
        "import ragmetrics_edu.batch, ragmetrics_edu.trec, ragmetrics_edu.bleu_score, ragmetrics_edu.rouge\n"
        "import ragmetrics_edu.semantic, ragmetrics_edu.judge, ragmetrics_edu.widgets\n"
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
