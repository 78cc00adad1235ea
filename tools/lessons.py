"""Build the notebooks from the lessons' sources, or check that they agree.

Each lesson has exactly one source that a person edits: ``lessons/NN_name.md``,
a Jupyter notebook written as MyST Markdown (the `jupytext` "md:myst" format).
It is plain text with readable diffs, and JupyterLab opens it as a notebook
(right click, "Open With", "Notebook") when jupytext is installed, which the
``notebooks`` extra does.  ``jupytext.toml`` pairs it with the solved
notebook, so saving either one in JupyterLab updates the other.

From a lesson this script writes, in order:

1. ``solutions/NN_name.ipynb``: the solved notebook, with deterministic cell
   ids (``cell-00``, ...), the common kernelspec, and the Colab set-up cell's
   text taken from ``tools/launch.py`` (so the repository's address is written
   once, in ``pyproject.toml``); then executed in place, with the widgets'
   state saved (so a page rendered without a kernel shows each widget as it
   was left) under model ids that do not change from run to run;
2. ``notebooks/NN_name.ipynb``: the student notebook (``tools/make_student.py``
   replaces each solution region), executed the same way.

Usage::

    python tools/lessons.py build 03      # lessons/03_*.md -> solutions/ and notebooks/, executed
    python tools/lessons.py build         # every lesson
    python tools/lessons.py check         # exit 1 if a notebook is out of date with its lesson
    python tools/lessons.py pull 03       # solutions/03_*.ipynb -> lessons/03_*.md (after an
                                          # edit in JupyterLab without jupytext installed)

``make notebooks`` runs ``build``; a test runs ``check``.
"""

import argparse
import sys
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_student as ms  # noqa: E402
from launch import colab_cell_source  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LESSONS = ROOT / "lessons"
FORMAT = "md:myst"
COLAB_TAG = "colab-setup"


def lesson_paths(patterns=(), lessons=LESSONS):
    """The lesson sources, optionally only those whose name starts with a pattern."""
    paths = sorted(Path(lessons).glob("*.md"))
    paths = [p for p in paths if p.name[:2].isdigit()]
    if patterns:
        paths = [p for p in paths if any(p.name.startswith(s) for s in patterns)]
    return paths


def read_lesson(path):
    """The solved notebook of the lesson at ``path``, unexecuted, ready to write."""
    import jupytext

    nb = jupytext.read(str(path), fmt=FORMAT)
    return normalise(nb)


def normalise(nb):
    """Deterministic ids, the common kernelspec, the Colab cell from ``launch.py``, no jupytext metadata."""
    nb.metadata.pop("jupytext", None)
    nb.metadata["kernelspec"] = dict(ms.KERNELSPEC)
    nb.metadata.setdefault("language_info", {"name": "python"})
    for i, cell in enumerate(nb.cells):
        cell.id = f"cell-{i:02d}"
        if COLAB_TAG in cell.get("metadata", {}).get("tags", []):
            cell.source = colab_cell_source()
    nbformat.validate(nb)
    return nb


def write_lesson(nb, path):
    """Write the solved notebook ``nb`` as the lesson source at ``path`` (outputs dropped)."""
    import jupytext

    text = nbformat.from_dict(nb)
    text.metadata.pop("widgets", None)
    text.metadata.pop("language_info", None)
    for cell in text.cells:
        cell.metadata.pop("execution", None)
    Path(path).write_text(jupytext.writes(text, fmt=FORMAT), encoding="utf-8")


def stale(lessons=None, solutions=ms.SOLUTIONS):
    """Lines saying which solved notebooks differ from their lessons (empty if none)."""
    out = []
    paths = lesson_paths(lessons=lessons or LESSONS)
    names = {p.stem for p in paths}
    for path in sorted(Path(solutions).glob("*.ipynb")):
        if path.stem not in names:
            out.append(f"{path}: no lesson source lessons/{path.stem}.md")
    for path in paths:
        target = Path(solutions) / f"{path.stem}.ipynb"
        if not target.exists():
            out.append(f"{target}: missing (its lesson is {path})")
            continue
        out.extend(f"{target}: {d}" for d in ms.differences(read_lesson(path), ms.read(target)))
    return out


def build(paths, execute=True):
    for path in paths:
        solution = ms.SOLUTIONS / f"{path.stem}.ipynb"
        nb = read_lesson(path)
        if not execute and solution.exists() and not ms.differences(nb, ms.read(solution)):
            print(f"up to date: {solution.relative_to(ROOT)}", flush=True)
            continue
        ms.write(nb, solution)
        print(f"wrote {solution.relative_to(ROOT)}", flush=True)
        if execute:
            ms.execute(solution)
            print(f"executed {solution.relative_to(ROOT)}", flush=True)
        student = ms.NOTEBOOKS / solution.name
        ms.write(ms.make_student(ms.read(solution)), student)
        print(f"wrote {student.relative_to(ROOT)}", flush=True)
        if execute:
            ms.execute(student, student=True)
            print(f"executed {student.relative_to(ROOT)}", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="write and execute solutions/ and notebooks/ from lessons/")
    b.add_argument("names", nargs="*", help="only lessons whose file name starts with one of these")
    b.add_argument("--no-execute", action="store_true", help="write the notebooks unexecuted")
    sub.add_parser("check", help="exit 1 if solutions/ differs from lessons/")
    p = sub.add_parser("pull", help="write lessons/ from the solved notebooks")
    p.add_argument("names", nargs="*")
    args = parser.parse_args(argv)

    if args.command == "check":
        lines = stale()
        for line in lines:
            print(line)
        if lines:
            print("run: make notebooks (python tools/lessons.py build)")
        return 1 if lines else 0
    if args.command == "pull":
        for path in ms.solution_paths(args.names):
            target = LESSONS / f"{path.stem}.md"
            write_lesson(ms.read(path), target)
            print(f"wrote {target.relative_to(ROOT)}")
        return 0
    paths = lesson_paths(args.names)
    if not paths:
        parser.error(f"no lesson matches {args.names or '*'} in {LESSONS}")
    build(paths, execute=not args.no_execute)
    return 0


if __name__ == "__main__":
    sys.exit(main())
