"""Build the course site: every lesson, the instructor guide and the API reference.

Sphinx with myst-nb renders the notebooks as saved (never executed here); the
configuration is ``docs/site/conf.py``.  This script

1. installs the site's browser assets with npm (``docs/site/package.json``)
   into ``build/npm`` (once; gitignored) and copies what the pages load into
   ``build/site/static``: the widget renderer (``embed.js`` of
   ``@jupyter-widgets/html-manager``, which draws each widget from the state
   saved in its notebook) and MathJax 3, so that nothing comes from a CDN when
   a page is viewed;
2. stages the pages into ``build/site/src`` with the repository's layout
   (``notebooks/*.ipynb``, ``docs/instructor.md``, ``docs/instructor/*.md``),
   so relative links resolve as on GitHub; each lesson gets a line linking its
   solved notebook; the API reference (``api/*.md``) gets a page for each
   public module of the package, part by part;
3. runs ``sphinx-build`` into ``build/site/html``.

The site shows the *student* notebooks: a self-learner reads before running,
and a page that showed the solved exercises would give every answer away.  The
solved notebook is one link away, at the top of each lesson.  A student
notebook saves the cells that answer a prediction unrun (the answer would sit
under its question), so a page drawn from it alone would miss their output,
and 01's and 07's every figure.  The site's page of a lesson gives each such
cell the solved notebook's outputs, folded under a "Show the answer" toggle
(myst-nb's ``hide-output``): the reader sees every figure, after the question,
one click away; the student notebooks themselves are not changed.

Usage::

    python tools/site.py            # build/site/html/index.html
    python tools/site.py --stage    # stage the sources only (no npm, no Sphinx)
"""

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import launch  # noqa: E402
import make_student  # noqa: E402

CONF = ROOT / "docs" / "site"
BUILD = ROOT / "build" / "site"
STAGE = BUILD / "src"
STATIC = BUILD / "static"
HTML = BUILD / "html"
NPM = ROOT / "build" / "npm"

NOTEBOOKS = ROOT / "notebooks"
SOLUTIONS = ROOT / "solutions"
GUIDE = ROOT / "docs" / "instructor.md"
GUIDE_PAGES = ROOT / "docs" / "instructor"

WIDGETS_DIST = Path("node_modules/@jupyter-widgets/html-manager/dist")
MATHJAX_DIST = Path("node_modules/mathjax/es5")
AXE = Path("node_modules/axe-core/axe.min.js")
"""axe-core, the accessibility audit the browser test injects into every page."""

SOLUTION_NOTE = (
    "```{{admonition}} Student version\n"
    ":class: tip\n"
    "The exercises below are open, as a student receives them. Try each one first, "
    "then compare with the [solved notebook]({url}). To move the widgets and run "
    "the checks, open this lesson on Binder or Colab (the rocket button above) or "
    "run `make lab`.\n"
    "```"
)


# ---------------------------------------------------------------------------
# assets
# ---------------------------------------------------------------------------

def install_assets(npm=NPM, static=STATIC):
    """npm-install the browser assets (if not yet) and copy them into ``static``.

    Returns the folder of ``node_modules``' parent (``npm``).
    """
    npm = Path(npm)
    npm.mkdir(parents=True, exist_ok=True)
    package = CONF / "package.json"
    stamp = npm / "package.json"
    if not (stamp.exists() and stamp.read_text() == package.read_text()
            and (npm / WIDGETS_DIST / "embed.js").exists()):
        shutil.copy(package, stamp)
        lock = CONF / "package-lock.json"
        if lock.exists():
            shutil.copy(lock, npm / "package-lock.json")
        cmd = ["npm", "ci" if lock.exists() else "install", "--no-audit", "--no-fund",
               "--ignore-scripts"]
        subprocess.run(cmd, cwd=npm, check=True)
    static = Path(static)
    widgets = static / "widgets"
    widgets.mkdir(parents=True, exist_ok=True)
    for path in (npm / WIDGETS_DIST).iterdir():
        # embed.js and the icon fonts it loads next to itself; no source maps
        if path.is_file() and not path.name.endswith((".map", "-amd.js")):
            _copy_if_changed(path, widgets / path.name)
    mathjax = static / "mathjax"
    if not (mathjax / "tex-chtml.js").exists():
        shutil.copytree(npm / MATHJAX_DIST, mathjax, dirs_exist_ok=True)
    return npm


def axe_source(npm=NPM):
    """The text of axe-core's ``axe.min.js`` (installed by :func:`install_assets`)."""
    path = Path(npm) / AXE
    if not path.exists():
        install_assets(npm)
    return path.read_text(encoding="utf-8")


def _copy_if_changed(src, dst):
    if not dst.exists() or dst.stat().st_size != src.stat().st_size:
        shutil.copy2(src, dst)


# ---------------------------------------------------------------------------
# pages
# ---------------------------------------------------------------------------

def solved_url(name):
    """The solved notebook ``name`` on GitHub (its rendering there keeps the figures)."""
    owner, repo = launch.repository()
    return f"https://github.com/{owner}/{repo}/blob/{launch.BRANCH}/solutions/{name}"


ANSWER_PROMPT_SHOW = "Show the answer: the output of the cell above"
ANSWER_PROMPT_HIDE = "Hide the answer"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def with_answers(nb, solved):
    """``nb`` (a student notebook, as a dict) with each answer cell given the outputs of
    the same cell of ``solved``, folded (tag ``hide-output``) under a prompt that says
    it is the answer.  A widget view among them is dropped (its state is the solved
    notebook's, not saved with this page): its text stays.  Returns ``nb``."""
    by_id = {c.get("id"): c for c in solved["cells"]}
    for cell in nb["cells"]:
        tags = cell.get("metadata", {}).get("tags", [])
        if cell["cell_type"] != "code" or make_student.ANSWER_TAG not in tags:
            continue
        source = by_id.get(cell.get("id"))
        if source is None or not source.get("outputs"):
            continue
        outputs = []
        for out in source["outputs"]:
            out = json.loads(json.dumps(out))
            data = out.get("data")
            if data and WIDGET_VIEW in data:
                data.pop(WIDGET_VIEW)
                if not data:
                    continue
            outputs.append(out)
        cell["outputs"] = outputs
        cell["execution_count"] = source.get("execution_count")
        cell["metadata"]["tags"] = [*tags, "hide-output"]
        mystnb = dict(cell["metadata"].get("mystnb", {}))
        mystnb.update(code_prompt_show=ANSWER_PROMPT_SHOW, code_prompt_hide=ANSWER_PROMPT_HIDE)
        cell["metadata"]["mystnb"] = mystnb
    return nb


def lesson_page(path, solutions=SOLUTIONS):
    """A student notebook as the site shows it: a note linking its solved version
    inserted after the title cell, and the answers of its predictions folded
    (:func:`with_answers`).  Returns the notebook as a dict."""
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    solved = Path(solutions) / Path(path).name
    if solved.exists():
        with_answers(nb, json.loads(solved.read_text(encoding="utf-8")))
    note = {
        "cell_type": "markdown",
        "id": "site-solution-note",
        "metadata": {},
        "source": SOLUTION_NOTE.format(url=solved_url(Path(path).name)),
    }
    cells = nb["cells"]
    first = next((i for i, c in enumerate(cells) if c["cell_type"] == "markdown"), -1)
    cells.insert(first + 1, note)
    if nb.get("nbformat_minor", 0) < 5:
        note.pop("id")
    return nb


PART_ORDER = ("models", "retrieval", "generation", "judge", "lab", "online", "course")
"""The package's parts, lowest first, as its docstring lists them."""


def submodules(package="ragmetrics_edu"):
    """``[(module, what it holds), ...]``: every public module of the package, part by part.

    A module is public when no part of its dotted name starts with ``_``;
    what it holds is the first line of its docstring (roles such as
    ``:func:`` dropped).  A module whose public names its package already
    hands on (``judge.rubric``'s are ``judge``'s) gets no page of its own:
    Sphinx would describe each name twice.  Importing the modules needs numpy
    only (the package's rule), so reading the docstrings is cheap.
    """
    import importlib
    import pkgutil

    root = importlib.import_module(package)
    rows = []
    for info in pkgutil.walk_packages(root.__path__, f"{package}."):
        name = info.name[len(package) + 1:]
        if any(part.startswith("_") for part in name.split(".")):
            continue
        module = importlib.import_module(info.name)
        parent = importlib.import_module(info.name.rpartition(".")[0])
        names = set(getattr(module, "__all__", ()))
        if parent is not root and names and names <= set(getattr(parent, "__all__", ())):
            continue
        doc = (module.__doc__ or "").strip()
        first = re.sub(r":\w+:`~?([^`]+)`", r"`\1`", doc.splitlines()[0]) if doc else ""
        rows.append((name, first.rstrip(".")))

    def place(row):
        part = row[0].split(".")[0]
        return (PART_ORDER.index(part) if part in PART_ORDER else len(PART_ORDER), row[0])

    return sorted(rows, key=place)


def api_pages():
    """``{relative path: text}`` of the API reference: an index and one page per module."""
    mods = submodules()
    pages = {}
    lines = [
        "# API reference",
        "",
        "Generated from the docstrings of `ragmetrics_edu`. The names most lessons use",
        "are also importable from the package itself (`import ragmetrics_edu as rm;",
        "rm.ndcg_at_k`); each page below is one module.",
        "",
        "| module | what it holds |",
        "| --- | --- |",
    ]
    for name, what in mods:
        what = what.replace("``", "`")
        lines.append(f"| [`ragmetrics_edu.{name}`]({name}.md) | {what} |")
    lines += ["", "```{toctree}", ":hidden:", ""] + [name for name, _ in mods] + ["```", ""]
    pages["api/index.md"] = "\n".join(lines)
    for name, what in mods:
        pages[f"api/{name}.md"] = "\n".join([
            f"# `ragmetrics_edu.{name}`", "",
            "```{eval-rst}",
            f".. automodule:: ragmetrics_edu.{name}",
            "   :members:",
            "```", ""])
    return pages


def stage(out=STAGE):
    """Write the site's sources into ``out`` (emptied first); return the page count."""
    out = Path(out)
    if out.exists():
        shutil.rmtree(out)
    (out / "notebooks").mkdir(parents=True)
    shutil.copy(CONF / "index.md", out / "index.md")
    count = 1
    for path in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")):
        (out / "notebooks" / path.name).write_text(
            json.dumps(lesson_page(path), ensure_ascii=False, indent=1), encoding="utf-8")
        count += 1
    (out / "docs" / "instructor").mkdir(parents=True)
    shutil.copy(GUIDE, out / "docs" / "instructor.md")
    count += 1
    for path in sorted(GUIDE_PAGES.glob("*.md")):
        shutil.copy(path, out / "docs" / "instructor" / path.name)
        count += 1
    for rel, text in api_pages().items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text(text, encoding="utf-8")
        count += 1
    return count


def build(jobs="auto", quiet=True):
    """Install the assets, stage the sources, run Sphinx; return ``(pages, seconds)``."""
    start = time.monotonic()
    install_assets()
    pages = stage()
    cmd = [sys.executable, "-m", "sphinx", "-b", "html", "-c", str(CONF),
           "-j", str(jobs), str(STAGE), str(HTML)]
    if quiet:
        cmd.append("-q")
    subprocess.run(cmd, check=True, cwd=ROOT)
    return pages, time.monotonic() - start


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stage", action="store_true", help="stage the sources only")
    parser.add_argument("-j", "--jobs", default="auto", help="Sphinx's parallel jobs")
    args = parser.parse_args(argv)
    if args.stage:
        print(f"staged {stage()} pages in {STAGE.relative_to(ROOT)}")
        return 0
    pages, seconds = build(args.jobs)
    print(f"built {pages} pages in {seconds:.0f} s: {(HTML / 'index.html').relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
