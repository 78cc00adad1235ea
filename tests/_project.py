"""pyproject.toml as the tests read it: the project table, and extras expanded."""

import re
import sys
from pathlib import Path

from packaging.requirements import Requirement

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 (pytest depends on tomli there)
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PROJECT = "ragmetrics-edu"


def normalise(name):
    """PEP 503 normalised name: ``Rouge_Score`` -> ``rouge-score``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def read_project(path=ROOT / "pyproject.toml"):
    """The ``[project]`` table of ``path``."""
    return tomllib.loads(Path(path).read_text(encoding="utf-8"))["project"]


def extra_requirements(optional, extra, seen=None):
    """Requirements of one extra, with the project's own extras it includes
    expanded (each extra once)."""
    seen = set() if seen is None else seen
    if extra in seen:
        return []
    seen.add(extra)
    out = []
    for spec in optional[extra]:
        req = Requirement(spec)
        if normalise(req.name) == PROJECT:
            for inner in sorted(req.extras):
                out += extra_requirements(optional, inner, seen)
        else:
            out.append(req)
    return out
