"""The student notebooks (notebooks/) are exactly what tools/make_student.py writes
from the solved notebooks (solutions/): same sources, cell ids, tags and metadata."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "make_student.py"
SOLUTIONS = sorted((ROOT / "solutions").glob("*.ipynb"))


def _load_tool():
    spec = importlib.util.spec_from_file_location("make_student", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ms = _load_tool()


# ---- the transformation on small hand-written cells -------------------------

def test_code_region_replaced_at_its_indentation():
    src = "def f(x):\n    ### BEGIN SOLUTION\n    y = 2 * x\n    return y\n    ### END SOLUTION\n"
    out, n = ms.strip_solutions(src, ms.CODE_STUB)
    assert n == 1
    assert out == "def f(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()\n"


def test_two_regions_and_surrounding_code_kept():
    src = ("a = 1\n### BEGIN SOLUTION\nb = 2\n### END SOLUTION\nc = 3\n"
           "def g():\n    ### BEGIN SOLUTION\n    return 4\n    ### END SOLUTION")
    out, n = ms.strip_solutions(src, ms.CODE_STUB)
    assert n == 2
    assert out == ("a = 1\n# YOUR CODE HERE\nraise NotImplementedError()\nc = 3\n"
                   "def g():\n    # YOUR CODE HERE\n    raise NotImplementedError()")


@pytest.mark.parametrize("src", [
    "### BEGIN SOLUTION\nx = 1\n",                         # never closed
    "x = 1\n### END SOLUTION\n",                           # never opened
    "### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION\n",  # nested
])
def test_malformed_markers_raise(src):
    with pytest.raises(ms.SolutionMarkerError):
        ms.strip_solutions(src, ms.CODE_STUB)


def _toy_solution():
    cells = [
        new_markdown_cell("# Toy"),
        new_code_cell("import math"),
        new_code_cell("def double(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION"),
        new_code_cell('"""Check that double() doubles."""\nassert double(2) == 4'),
        new_code_cell("print(1)", metadata={"tags": ["check"]}),
        new_code_cell('"""Not a check: a demo."""\nprint(2)'),
        new_markdown_cell("Why?\n\n### BEGIN SOLUTION\nBecause.\n### END SOLUTION"),
    ]
    for i, c in enumerate(cells):
        c.id = f"toy-{i}"
    cells[1].outputs = [nbformat.v4.new_output("stream", text="kept\n")]
    cells[1].execution_count = 1
    cells[3].outputs = [nbformat.v4.new_output("stream", text="passed\n")]
    cells[3].execution_count = 3
    return new_notebook(cells=cells, metadata={"kernelspec": dict(ms.KERNELSPEC)})


def test_make_student_tags_exercise_and_check_cells_only():
    sol = _toy_solution()
    stu = ms.make_student(sol)
    tags = [c.metadata.get("tags", []) for c in stu.cells]
    assert tags == [[], [], ["raises-exception"], ["raises-exception"],
                    ["check", "raises-exception"], [], []]
    assert stu.cells[2].source == "def double(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()"
    assert stu.cells[6].source == "Why?\n\nYOUR ANSWER HERE"
    # ordinary cells keep the solution's outputs; exercise and check cells are left unrun
    assert stu.cells[1].outputs[0].text == "kept\n"
    assert stu.cells[3].outputs == [] and stu.cells[3].execution_count is None
    # the solved notebook itself is not modified
    assert "### BEGIN SOLUTION" in sol.cells[2].source
    assert sol.cells[2].metadata == {}


def test_differences_reports_a_changed_source():
    sol = _toy_solution()
    stu = ms.make_student(sol)
    stale = ms.make_student(sol)
    stale.cells[1].source = "import cmath"
    assert ms.differences(stu, stale) == ["cell 1: source differs"]
    assert ms.differences(stu, ms.make_student(sol)) == []


# ---- the repository's notebooks ----------------------------------------------

def test_write_joins_printed_text_cut_into_pieces(tmp_path):
    """The kernel flushes a cell's prints in pieces that vary from run to run:
    the saved notebook holds each stream's text whole, and nothing else moves."""
    nb = new_notebook(cells=[new_code_cell("for i in range(3): print(i)")])
    nb.cells[0].outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="0\n"),
        nbformat.v4.new_output("stream", name="stdout", text="1\n2\n"),
        nbformat.v4.new_output("stream", name="stderr", text="warning\n"),
        nbformat.v4.new_output("stream", name="stdout", text="3\n"),
        nbformat.v4.new_output("execute_result", data={"text/plain": "4"}, execution_count=1),
        nbformat.v4.new_output("stream", name="stdout", text="5\n"),
    ]
    ms.write(nb, tmp_path / "nb.ipynb")
    outputs = nbformat.read(str(tmp_path / "nb.ipynb"), as_version=4).cells[0].outputs
    assert [(o.output_type, o.get("name"), o.get("text")) for o in outputs] == [
        ("stream", "stdout", "0\n1\n2\n"), ("stream", "stderr", "warning\n"),
        ("stream", "stdout", "3\n"), ("execute_result", None, None),
        ("stream", "stdout", "5\n")]


def test_writing_a_written_notebook_changes_nothing(tmp_path):
    """Widget ids renamed once stay put: a second write gives the same bytes
    (the renaming must never rename an id it has just written)."""
    with_widgets = [p for p in SOLUTIONS if ms.WIDGET_STATE in p.read_text(encoding="utf-8")]
    assert with_widgets
    name = with_widgets[0].name  # (the new ids are made from the file's name)
    first, second = tmp_path / "first" / name, tmp_path / "second" / name
    ms.write(ms.read(with_widgets[0]), first)
    ms.write(ms.read(first), second)
    assert first.read_bytes() == second.read_bytes()
    state = ms.read(second).metadata["widgets"][ms.WIDGET_STATE]["state"]
    assert all(model["model_name"] for model in state.values())


def test_there_are_solved_notebooks():
    assert SOLUTIONS, "solutions/ holds no notebook"


def test_student_notebooks_are_regenerated_identically(tmp_path):
    """Run the script into a temporary folder and compare with notebooks/."""
    proc = subprocess.run([sys.executable, str(SCRIPT), "--out", str(tmp_path)],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    problems = []
    for sol in SOLUTIONS:
        generated = nbformat.read(tmp_path / sol.name, as_version=4)
        committed_path = ROOT / "notebooks" / sol.name
        if not committed_path.exists():
            problems.append(f"notebooks/{sol.name} is missing")
            continue
        committed = nbformat.read(committed_path, as_version=4)
        problems += [f"notebooks/{sol.name}: {d}" for d in ms.differences(generated, committed)]
    assert not problems, ("notebooks/ is out of date; run `python tools/make_student.py "
                          "--execute`:\n" + "\n".join(problems))


def test_check_mode_agrees():
    proc = subprocess.run([sys.executable, str(SCRIPT), "--check"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_default_mode_rewrites_only_stale_student_notebooks(tmp_path, capsys):
    sol_dir, out_dir = tmp_path / "solutions", tmp_path / "notebooks"
    sol_dir.mkdir()
    nbformat.write(_toy_solution(), sol_dir / "01_toy.ipynb")
    argv = ["--solutions", str(sol_dir), "--out", str(out_dir)]
    assert ms.main(argv) == 0
    target = out_dir / "01_toy.ipynb"
    # pretend it was executed: an output the script must not throw away
    nb = nbformat.read(target, as_version=4)
    nb.cells[3].outputs = [nbformat.v4.new_output("error", ename="NotImplementedError",
                                                  evalue="", traceback=[])]
    nbformat.write(nb, target)
    capsys.readouterr()
    assert ms.main(argv) == 0
    assert "up to date" in capsys.readouterr().out
    assert nbformat.read(target, as_version=4).cells[3].outputs[0].ename == "NotImplementedError"
    # a stale source is rewritten, and --check says so before
    nb.cells[1].source = "import cmath"
    nbformat.write(nb, target)
    assert ms.main(argv + ["--check"]) == 1
    assert "cell 1: source differs" in capsys.readouterr().out
    assert ms.main(argv) == 0
    assert nbformat.read(target, as_version=4).cells[1].source == "import math"
    assert ms.main(argv + ["--check"]) == 0


def test_hidden_tests_never_reach_the_student_notebook():
    sol = _toy_solution()
    sol.cells[3].metadata["hidden_tests"] = "assert double(3) == 6"
    stu = ms.make_student(sol)
    assert "hidden_tests" not in stu.cells[3].metadata
    assert sol.cells[3].metadata["hidden_tests"]  # the solved notebook keeps them
