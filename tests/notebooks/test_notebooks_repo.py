"""Repository-wide rules for the notebooks in notebooks/ and solutions/.

Outputs are checked by nbval (``make test-notebooks``); this file checks what
nbval does not: kernelspecs, pairs, links, seed-example keys, and outputs that
must never be committed (memory addresses, errors in solutions).
"""

import re
from pathlib import Path
from urllib.parse import unquote

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "solutions"
NOTEBOOKS = ROOT / "notebooks"
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}

WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
ALL = sorted(SOLUTIONS.glob("*.ipynb")) + sorted(NOTEBOOKS.glob("*.ipynb"))
IDS = [str(p.relative_to(ROOT)) for p in ALL]

# [text](target) in Markdown, and href="target" in HTML
_MD_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HTML_LINK = re.compile(r"href=[\"']([^\"']+)[\"']")
_EXAMPLE_KEY = re.compile(r"examples\.get\(\s*[\"']([^\"']+)[\"']")


def _read(path):
    return nbformat.read(path, as_version=4)


def _texts(cell):
    """Every text of a cell's outputs (streams, text/* data, error names and values)."""
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            yield out.text
        elif out.output_type == "error":
            yield f"{out.ename}: {out.evalue}"
        else:
            for mime, value in out.get("data", {}).items():
                if mime.startswith("text/") and isinstance(value, str):
                    yield value


def test_the_folders_hold_notebooks():
    assert list(SOLUTIONS.glob("*.ipynb")), "solutions/ is empty"
    assert list(NOTEBOOKS.glob("*.ipynb")), "notebooks/ is empty"


def test_every_student_notebook_has_its_solution_and_vice_versa():
    students = {p.name for p in NOTEBOOKS.glob("*.ipynb")}
    solved = {p.name for p in SOLUTIONS.glob("*.ipynb")}
    assert students - solved == set(), f"student notebooks without a solution: {students - solved}"
    assert solved - students == set(), f"solutions without a student notebook: {solved - students}"


def test_names_are_numbered():
    for path in ALL:
        assert re.fullmatch(r"\d\d_[a-z0-9_]+\.ipynb", path.name), path.name


@pytest.mark.parametrize("path", ALL, ids=IDS)
def test_kernelspec_is_the_same_everywhere(path):
    assert dict(_read(path).metadata.get("kernelspec", {})) == KERNELSPEC


@pytest.mark.parametrize("path", ALL, ids=IDS)
def test_notebook_is_valid_and_committed_executed(path):
    nb = _read(path)
    nbformat.validate(nb)
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    views = {o["data"][WIDGET_VIEW]["model_id"] for c in nb.cells for o in c.get("outputs", [])
             if WIDGET_VIEW in o.get("data", {})}
    # A widget shown in an output is drawn, without a kernel, from the saved state.
    assert views <= set(state), f"widgets shown but not saved: {sorted(views - set(state))[:3]}"
    # The model ids are derived from the notebook's name, not random.
    assert all(len(i) == 32 for i in state) and not any("-" in i for i in state)
    ids = [c.get("id") for c in nb.cells]
    assert len(ids) == len(set(ids)), "duplicate cell ids"
    code = [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]
    assert code, "no code cell"
    # A student notebook's open exercise and check cells are saved unrun
    # (tagged raises-exception), and so are the cells that reveal a prediction's
    # answer (tagged reveals-answer); every other code cell is saved executed.
    unrun = {"raises-exception", "reveals-answer"} if path.parent == NOTEBOOKS else {"raises-exception"}
    code = [c for c in code if not unrun & set(c.metadata.get("tags", []))]
    assert all(c.execution_count is not None for c in code), (
        "unexecuted code cells: run `python tools/make_student.py --execute`"
    )


@pytest.mark.parametrize("path", ALL, ids=IDS)
def test_relative_notebook_links_resolve(path):
    nb = _read(path)
    broken = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        for target in _MD_LINK.findall(cell.source) + _HTML_LINK.findall(cell.source):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue  # http:, mailto:, in-page anchors
            file_part = unquote(target.split("#", 1)[0])
            if file_part.endswith(".ipynb") and not (path.parent / file_part).exists():
                broken.append(f"cell {i}: {target}")
    assert not broken, f"links to missing notebooks: {broken}"


@pytest.mark.parametrize("path", ALL, ids=IDS)
def test_navigation_line_at_top_and_bottom(path):
    cells = _read(path).cells
    for where, cell in (("first", cells[0]), ("last", cells[-1])):
        assert cell.cell_type == "markdown", f"{where} cell is not Markdown"
        assert ".ipynb" in cell.source, f"{where} cell has no navigation link"


@pytest.mark.parametrize("path", ALL, ids=IDS)
def test_no_memory_addresses_in_outputs(path):
    for i, cell in enumerate(_read(path).cells):
        for text in _texts(cell):
            assert not re.search(r" at 0x[0-9a-fA-F]+", text), f"cell {i}: {text[:200]!r}"


@pytest.mark.parametrize("path", sorted(SOLUTIONS.glob("*.ipynb")),
                         ids=lambda p: p.name)
def test_no_errors_in_solutions(path):
    for i, cell in enumerate(_read(path).cells):
        errors = [o for o in cell.get("outputs", []) if o.output_type == "error"]
        assert not errors, f"cell {i}: {errors[0].ename}: {errors[0].evalue}"
        for text in _texts(cell):
            assert "Traceback (most recent call last)" not in text, f"cell {i}"


@pytest.mark.parametrize("path", sorted(SOLUTIONS.glob("*.ipynb")),
                         ids=lambda p: p.name)
def test_at_least_four_exercises_of_mixed_kinds_each_checked(path):
    cells = _read(path).cells
    n_regions = sum(c.source.count("### BEGIN SOLUTION") for c in cells)
    assert n_regions >= 4, f"{n_regions} exercises, want at least 4"
    checks = [c for c in cells if c.cell_type == "code"
              and re.match(r'^\s*("""|\'\'\')\s*check', c.source, re.IGNORECASE)]
    assert len(checks) >= 3, "fewer than 3 check cells (code starting with a docstring 'Check ...')"
    # an interpret exercise: a written answer, graded by a person
    assert any(c.cell_type == "markdown" and "### BEGIN SOLUTION" in c.source for c in cells), (
        "no discussion exercise (a Markdown answer between solution markers)")
    # a number worked by hand, typed in and checked
    assert any("check_number(" in c.source for c in checks), "no hand-computation exercise"


@pytest.mark.parametrize("path", sorted(SOLUTIONS.glob("*.ipynb")), ids=lambda p: p.name)
def test_the_shape_of_a_lesson(path):
    """Objectives first, predictions along the way, a summary, the sources folded at the end."""
    md = [c.source for c in _read(path).cells if c.cell_type == "markdown"]
    text = "\n".join(md)
    assert re.search(r"will be able to", text, re.IGNORECASE), "no 'what you will be able to do'"
    assert len(re.findall(r"\*\*Predict", text)) >= 2, "fewer than two 'Predict' checkpoints"
    assert re.search(r"^## Summary", text, re.MULTILINE), "no summary"
    headings = re.findall(r"^## (.+)$", text, re.MULTILINE)
    assert headings and headings[-1].startswith("Checking the sources"), (
        f"the last section should be 'Checking the sources', not {headings[-1:]}")


@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("*.ipynb")),
                         ids=lambda p: p.name)
def test_student_errors_are_only_open_exercises(path):
    """In notebooks/, the only errors are NotImplementedError in cells tagged raises-exception."""
    for i, cell in enumerate(_read(path).cells):
        for out in cell.get("outputs", []):
            if out.output_type != "error":
                continue
            assert "raises-exception" in cell.metadata.get("tags", []), (
                f"cell {i}: {out.ename} in a cell not tagged raises-exception")
            assert out.ename == "NotImplementedError", f"cell {i}: {out.ename}: {out.evalue}"


@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("*.ipynb")),
                         ids=lambda p: p.name)
def test_student_notebooks_hold_no_solution(path):
    for i, cell in enumerate(_read(path).cells):
        assert "### BEGIN SOLUTION" not in cell.source, f"cell {i}"
        assert "### END SOLUTION" not in cell.source, f"cell {i}"


def test_seed_example_keys_used_in_notebooks_exist():
    try:
        from ragmetrics_edu.course import examples
        known = set(examples.all_examples())
    except ImportError as exc:  # a module of examples is not written yet
        pytest.skip(f"ragmetrics_edu.course.examples not importable: {exc}")
    missing = []
    for path in ALL:
        for i, cell in enumerate(_read(path).cells):
            for key in _EXAMPLE_KEY.findall(cell.source):
                if key not in known:
                    missing.append(f"{path.relative_to(ROOT)} cell {i}: {key!r}")
    assert not missing, f"unknown seed example keys: {missing}"


@pytest.mark.parametrize("path", [p for p in ALL if p.name[:2] != "00"],
                         ids=[i for i, p in zip(IDS, ALL) if p.name[:2] != "00"])
def test_a_figure_is_saved_in_every_lesson(path):
    """A reader without a kernel (GitHub, a course site) still sees at least one figure.

    In a student notebook a figure that answers a prediction is saved unrun
    (tagged reveals-answer): if every figure of a lesson does, the student
    notebook shows none and its solved notebook, one link away, shows them.
    """
    def figures(nb):
        return [i for i, c in enumerate(nb.cells)
                if any("image/png" in o.get("data", {}) for o in c.get("outputs", []))]

    nb = _read(path)
    if path.parent == NOTEBOOKS and not figures(nb):
        solved = figures(_read(SOLUTIONS / path.name))
        assert solved, "no static figure in this lesson, solved or not"
        shown = [i for i in solved if "reveals-answer" not in nb.cells[i].metadata.get("tags", [])]
        assert not shown, f"cells {shown} draw a figure in solutions/ but not here"
        return
    assert figures(nb), "no static figure (image/png output) saved in this notebook"


@pytest.mark.parametrize("path", sorted(SOLUTIONS.glob("*.ipynb")), ids=lambda p: p.name)
def test_figures_have_alt_text(path):
    """Every cell that saves a figure says in words what it shows (the site's alt text)."""
    for i, cell in enumerate(_read(path).cells):
        if any("image/png" in o.get("data", {}) for o in cell.get("outputs", [])):
            alt = cell.metadata.get("mystnb", {}).get("image", {}).get("alt", "")
            assert len(alt) > 20, f"cell {i}: a figure without alt text (metadata mystnb.image.alt)"
