"""tools/assignments.py: nbgrader's roles for the solved notebooks' cells, and the loop.

The expected roles come from nbgrader's documented metadata (schema version 3:
solution cells, autograded test cells with points, manually graded answers,
read-only cells); the loop runs nbgrader itself on a small made-up lesson whose
scores are known by construction (every check passes on the solved notebook;
none on the untouched release version).
"""

import ast
import importlib.util
import json
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load(name, path):
    sys.path.insert(0, str(ROOT / "tools"))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


assignments = _load("assignments_tool", ROOT / "tools" / "assignments.py")
make_student = _load("make_student_tool", ROOT / "tools" / "make_student.py")

SOLUTION = "def my_double(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION"
CHECK = ('"""Check exercise 1: my_double on written values."""\n'
         'from ragmetrics_edu.course.exercises import check_function\n'
         'check_function("my_double", [((1,), 2, "one"), ((3,), 6, "three")])')
HIDDEN = 'check_function("my_double", [((-4,), -8, "a negative number"), ((0,), 0, "zero")])'
ANSWER = "### BEGIN SOLUTION\nDoubling keeps the order of the inputs.\n### END SOLUTION"


def lesson(hidden=True, points=None):
    """A made-up solved lesson: title, set-up, exercise, check, discussion answer."""
    check = nbformat.v4.new_code_cell(CHECK)
    if hidden:
        check.metadata["hidden_tests"] = HIDDEN
    if points is not None:
        check.metadata["points"] = points
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# 01 · Doubling"),
        nbformat.v4.new_code_cell("import math"),
        nbformat.v4.new_code_cell(SOLUTION, metadata={"one_liner": "return rm.double(x)"}),
        check,
        nbformat.v4.new_markdown_cell(ANSWER),
    ])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    return nb


def test_each_cell_gets_its_nbgrader_role():
    nb = assignments.nbgrader_notebook(lesson(points=3), "01_doubling")
    meta = [c.metadata["nbgrader"] for c in nb.cells]
    # title and set-up: read-only instructions
    for m in meta[:2]:
        assert (m["locked"], m["solution"], m["grade"]) == (True, False, False)
    # the exercise: a solution cell, editable, not graded itself
    assert (meta[2]["solution"], meta[2]["grade"], meta[2]["locked"]) == (True, False, False)
    # the check: an autograded test cell, locked, with the points of its metadata
    assert (meta[3]["grade"], meta[3]["solution"], meta[3]["locked"]) == (True, False, True)
    assert meta[3]["points"] == 3
    assert meta[3]["grade_id"] == "01_doubling-ex1-test"
    # the discussion answer: graded by hand
    assert (meta[4]["grade"], meta[4]["solution"]) == (True, True)
    assert meta[4]["points"] == 1
    assert all(m["schema_version"] == 3 for m in meta)
    assert len({m["grade_id"] for m in meta}) == len(meta)
    assert assignments.max_points(nb) == (3, 1)


def test_hidden_tests_go_into_nbgraders_region_and_never_into_the_student_notebook():
    solved = lesson()
    nb = assignments.nbgrader_notebook(solved, "01_doubling")
    check = nb.cells[3].source
    assert check.startswith(CHECK)  # the visible check is untouched
    assert check.endswith(f"### BEGIN HIDDEN TESTS\n{HIDDEN}\n### END HIDDEN TESTS")
    assert solved.cells[3].source == CHECK  # the solved notebook is not modified
    student = make_student.make_student(solved)
    assert "HIDDEN" not in student.cells[3].source
    assert "check_function" in student.cells[3].source  # the visible check stays
    assert assignments.check_hidden.__doc__


def test_which_checks_need_hidden_tests():
    def check(code):
        return nbformat.v4.new_code_cell('"""Check exercise 1: a case."""\n' + code)

    # the expected values are in the cell: a hard-coded answer could return them
    assert assignments.needs_hidden_tests(check('check_function("f", [((1,), 2)])'))
    assert assignments.needs_hidden_tests(check('rm.course.exercises.check_number("x", 0.25)'))
    assert assignments.needs_hidden_tests(check('check_number("x", expected=1 / 4)'))
    # a fingerprint, or a property of the student's own answers: nothing to hard-code
    assert not assignments.needs_hidden_tests(check('check_number("x", digest_="1d1645fe778c")'))
    assert not assignments.needs_hidden_tests(
        check('a, b = rm.course.exercises.answers("a", "b")\nif not a > b:\n    raise ValueError'))
    # not a check cell at all
    assert not assignments.needs_hidden_tests(
        nbformat.v4.new_code_cell('check_function("f", [((1,), 2)])'))


def test_check_hidden_lists_only_what_needs_hidden_tests(tmp_path):
    solutions = tmp_path / "solutions"
    solutions.mkdir()
    nb = lesson(hidden=False)
    nb.cells.append(nbformat.v4.new_code_cell(
        '"""Check exercise 2: by hand."""\ncheck_number("my_x", digest_="1d1645fe778c")'))
    nbformat.write(nb, solutions / "01_doubling.ipynb")
    assert assignments.check_hidden(solutions) == [
        ("01_doubling", '"""Check exercise 1: my_double on written values."""')]
    nbformat.write(lesson(hidden=True), solutions / "01_doubling.ipynb")
    assert assignments.check_hidden(solutions) == []


def test_every_solved_check_that_shows_its_answers_has_hidden_tests():
    paths = sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb"))
    needing = [(p.stem, c) for p in paths for c in nbformat.read(p, as_version=4).cells
               if assignments.needs_hidden_tests(c)]
    assert needing  # the lessons have implement-a-function exercises
    missing = [f"{stem}: {c.source.splitlines()[0]}" for stem, c in needing
               if not assignments.has_hidden_tests(c)]
    assert not missing, "checks without hidden tests:\n" + "\n".join(missing)
    for stem, cell in needing:
        hidden = cell.metadata.get("hidden_tests", "")
        if isinstance(hidden, list):
            hidden = "\n".join(hidden)
        # the hidden cases are a check of their own, run by the autograder
        assert "check_function(" in hidden or "check_number(" in hidden, (stem, hidden)


# Checks that compare the answer on inputs written in their own code, not through
# check_function or check_number: needs_hidden_tests cannot see them, yet a lookup
# of those inputs would pass them.
CUSTOM_CHECKS = {"10_conventions": ['"""Check exercise 5:', '"""Check exercise A:']}


def test_custom_checks_a_lookup_could_pass_rerun_their_own_check_on_hidden_cases():
    for stem, starts in CUSTOM_CHECKS.items():
        cells = nbformat.read(ROOT / "solutions" / f"{stem}.ipynb", as_version=4).cells
        for start in starts:
            (cell,) = [c for c in cells if c.source.startswith(start)]
            hidden = cell.metadata.get("hidden_tests", "")
            assert hidden, f"{stem}: {start} has no hidden tests"
            defined = {node.name for node in ast.parse(cell.source).body
                       if isinstance(node, ast.FunctionDef)}
            called = {node.func.id for node in ast.walk(ast.parse(hidden))
                      if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
            # the hidden cases go through the visible check's own function, not a copy of it
            assert defined & called, (stem, start, sorted(defined), sorted(called))


def test_bad_points_are_named():
    with pytest.raises(ValueError, match="points must be a positive number, got 0"):
        assignments.nbgrader_notebook(lesson(points=0), "01_doubling")


def test_every_solved_lesson_has_a_role_for_every_cell():
    paths = sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb"))
    assert paths
    for path in paths:
        solved = nbformat.read(path, as_version=4)
        nb = assignments.nbgrader_notebook(solved, path.stem)
        ids = [c.metadata["nbgrader"]["grade_id"] for c in nb.cells]
        assert len(set(ids)) == len(ids), path.name
        checks = sum(make_student.is_check_cell(c) for c in solved.cells)
        tests = sum(c.metadata["nbgrader"]["grade"] and not c.metadata["nbgrader"]["solution"]
                    for c in nb.cells)
        assert tests == checks, path.name
        solutions = sum(c.cell_type == "code" and "### BEGIN SOLUTION" in c.source
                        and not make_student.is_check_cell(c) for c in solved.cells)
        assert sum(c.metadata["nbgrader"]["solution"] and c.cell_type == "code"
                   for c in nb.cells) == solutions, path.name


def test_the_loop_on_a_made_up_lesson(tmp_path):
    pytest.importorskip("nbgrader")
    solutions = tmp_path / "solutions"
    solutions.mkdir()
    nbformat.write(lesson(points=2), solutions / "01_doubling.ipynb")
    course = tmp_path / "course"
    results = assignments.grade_demo(course, solutions)
    assert results == {"01_doubling": (2, 0, 2, 1)}
    assert assignments.report_lines(results) == ["01_doubling: solved 2/2, blank 0/2"]
    release = json.loads((course / "release" / "01_doubling" / "01_doubling.ipynb").read_text())
    text = json.dumps(release)
    assert "HIDDEN" not in text and "negative number" not in text  # hidden from students
    assert "return 2 * x" not in text and "raise NotImplementedError()" in text
    assert "YOUR ANSWER HERE" in text
    # the autograder ran the hidden cases on the solved submission
    graded = nbformat.read(course / "autograded" / "solved" / "01_doubling" / "01_doubling.ipynb",
                           as_version=4)
    assert "a negative number" in graded.cells[3].source
    assert "my_double: right on 2 inputs." in json.dumps(graded.cells[3].outputs)
    feedback = (course / "feedback" / "solved" / "01_doubling" / "01_doubling.html").read_text()
    assert "my_double: right on 2 inputs." in feedback
    assert "HIDDEN" not in feedback and "negative number" not in feedback  # not in feedback either
