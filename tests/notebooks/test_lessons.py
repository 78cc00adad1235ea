"""Each lesson has one source, lessons/NN_name.md, and the solved notebooks
in solutions/ are exactly what tools/lessons.py builds from it."""

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LESSONS = sorted((ROOT / "lessons").glob("*.md"))


def _load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


lessons = _load("lessons")


def test_every_solved_notebook_has_a_lesson_and_they_agree():
    pytest.importorskip("jupytext")
    assert LESSONS, "lessons/ is empty"
    out = lessons.stale()
    assert not out, "\n".join(out[:20] + ["run: make notebooks"])


def test_the_lessons_are_not_written_inside_python():
    assert not list((ROOT / "tools").glob("build_notebooks*.py"))


@pytest.mark.parametrize("path", LESSONS, ids=[p.stem for p in LESSONS])
def test_lesson_is_myst_markdown_with_the_colab_cell(path):
    text = path.read_text(encoding="utf-8")
    assert re.search(r"^\s*format_name: myst$", text, re.M), "not jupytext's md:myst format"
    assert ":tags: [colab-setup]" in text


def test_a_changed_lesson_is_reported(tmp_path):
    pytest.importorskip("jupytext")
    src = LESSONS[0]
    (tmp_path / src.name).write_text(src.read_text(encoding="utf-8") + "\nOne more line.\n",
                                     encoding="utf-8")
    out = lessons.stale(lessons=tmp_path)
    assert any(src.stem in line and "source differs" in line for line in out), out


def test_a_markdown_answer_region_ends_its_cell():
    """A Markdown cell holding an answer (### BEGIN/END SOLUTION) has no heading after
    it: in the student notebook the region is 'YOUR ANSWER HERE', and a student writing
    there would edit the next section's text with it."""
    import nbformat

    problems = []
    for path in sorted((ROOT / "solutions").glob("*.ipynb")):
        for i, cell in enumerate(nbformat.read(path, as_version=4).cells):
            if cell.cell_type == "markdown" and "### END SOLUTION" in cell.source:
                after = cell.source.split("### END SOLUTION", 1)[1]
                if re.search(r"^#{1,6} ", after, re.MULTILINE):
                    problems.append(f"{path.name} cell {i}: a heading after the answer region")
    assert not problems, "\n".join(problems)
