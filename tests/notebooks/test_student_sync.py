"""The student notebooks (notebooks/) are exactly what tools/make_student.py writes
from the solved notebooks (solutions/): same sources, cell ids, tags and metadata."""

import importlib.util
import re
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


# ---- predictions: no answer shown before it is asked ------------------------

def _toy_predictions():
    cells = [
        new_markdown_cell("# Toy"),
        new_code_cell("x = 1"),
        new_markdown_cell("**Predict:** what is x + 1?  Write down your guess before running "
                          "the next cell."),
        new_code_cell("print(x + 1)"),                                  # 3: the answer
        new_code_cell("plt.bar([0], [x + 1])"),                         # 4: its figure, too
        new_markdown_cell("It is 2."),
        new_code_cell("print('an ordinary cell')"),                     # 6
        new_markdown_cell("**Bug hunt.**  The slide's table follows.  What went wrong?"),
        new_code_cell("table()", metadata={"tags": ["keep-output"]}),  # 8: the question's material
        new_markdown_cell("**Predict:** what will the slider do?  Write down your guesses before "
                          "running the cell after the widget."),
        new_code_cell("w = widget()\nw"),                              # 10: the widget, shown
        new_code_cell("w.value = 3\nprint(w.result)"),                  # 11: the answer
        new_markdown_cell("Said in words."),
        new_code_cell("print(secret)", metadata={"tags": ["reveals-answer"]}),  # 13: marked
        new_code_cell("def f(x):\n    ### BEGIN SOLUTION\n    return x\n    ### END SOLUTION"),
    ]
    for i, c in enumerate(cells):
        c.id = f"toy-{i}"
        if c.cell_type == "code":
            c.outputs = [nbformat.v4.new_output("stream", text=f"out {i}\n")]
            c.execution_count = i
    return new_notebook(cells=cells, metadata={"kernelspec": dict(ms.KERNELSPEC)})


def test_answer_cells_follow_the_questions_and_the_tags():
    assert ms.answer_cells(_toy_predictions()) == [3, 4, 11, 13]


def test_answer_cells_are_saved_unrun_in_the_student_notebook_only():
    sol = _toy_predictions()
    stu = ms.make_student(sol)
    for i in (3, 4, 11, 13):
        cell = stu.cells[i]
        assert cell.outputs == [] and cell.execution_count is None, i
        assert {"reveals-answer", "nbval-ignore-output"} <= set(cell.metadata["tags"]), i
        assert sol.cells[i].outputs[0].text == f"out {i}\n"  # the solved notebook keeps them
    for i in (1, 6, 8, 10):
        assert stu.cells[i].outputs[0].text == f"out {i}\n", i
        assert "reveals-answer" not in stu.cells[i].metadata.get("tags", []), i
    # an exercise cell stays what it was: open, tagged raises-exception, not an answer cell
    assert stu.cells[14].metadata["tags"] == ["raises-exception"]
    assert ms.shown_answers(stu) == []


def test_an_answer_saved_with_its_output_is_stale(tmp_path, capsys):
    sol_dir, out_dir = tmp_path / "solutions", tmp_path / "notebooks"
    sol_dir.mkdir()
    nbformat.write(_toy_predictions(), sol_dir / "01_toy.ipynb")
    argv = ["--solutions", str(sol_dir), "--out", str(out_dir)]
    assert ms.main(argv) == 0 and ms.main(argv + ["--check"]) == 0
    target = out_dir / "01_toy.ipynb"
    nb = nbformat.read(target, as_version=4)
    nb.cells[3].outputs = [nbformat.v4.new_output("stream", text="2\n")]  # run and saved
    nb.cells[3].execution_count = 4
    nbformat.write(nb, target)
    capsys.readouterr()
    assert ms.main(argv + ["--check"]) == 1
    assert "cell 3: the answer of a prediction is saved with its output" in capsys.readouterr().out
    assert ms.main(argv) == 0  # rewritten, without the answer
    assert nbformat.read(target, as_version=4).cells[3].outputs == []
    # what --execute does after running a student notebook
    nb = ms.clear_unrun_cells(nbformat.read(target, as_version=4))
    assert ms.shown_answers(nb) == []


STUDENTS = sorted((ROOT / "notebooks").glob("*.ipynb"))

# A question written the way the lessons write them; read independently of
# make_student's own rule, so that a phrasing its rule misses is caught here.
_ASKS = re.compile(r"\*\*predict\b|\*\*bug hunt\b|your (guess|guesses|answer|answers|number) before|"
                   r"before running|run the next cell", re.IGNORECASE)
KEPT = {("04_ngram_overlap.ipynb", "cell-10")}
"""The code cells after a question that keep their output (tag keep-output): the
question is about what they show.  A new one is a decision: add it here."""


@pytest.mark.parametrize("path", STUDENTS, ids=[p.stem for p in STUDENTS])
def test_no_student_notebook_shows_the_answer_of_a_prediction(path):
    """Every question's next code cell (the one after the widget, when the question
    says so) is saved unrun, and every answer cell holds no output."""
    nb = nbformat.read(path, as_version=4)
    questions, problems = 0, []
    for i, cell in enumerate(nb.cells):
        body = "\n".join(line for line in cell.source.split("\n") if not line.startswith("#"))
        if cell.cell_type != "markdown" or not _ASKS.search(body):
            continue
        questions += 1
        j = i + 1
        if "after the widget" in body:
            j += 1
        if j >= len(nb.cells) or nb.cells[j].cell_type != "code":
            problems.append(f"cell {i}: a question with no code cell to run after it")
            continue
        tags = nb.cells[j].metadata.get("tags", [])
        if "keep-output" in tags:
            assert (path.name, nb.cells[j].id) in KEPT, f"cell {j}: keep-output not in KEPT"
            continue
        if "reveals-answer" not in tags or "nbval-ignore-output" not in tags:
            problems.append(f"cell {j} (after the question in cell {i}) is not an answer cell")
    for j, cell in enumerate(nb.cells):
        if "reveals-answer" in cell.metadata.get("tags", []):
            if cell.outputs or cell.execution_count is not None:
                problems.append(f"cell {j}: an answer cell saved with its output")
    assert questions >= 2, f"only {questions} prediction questions found"
    assert not problems, "\n".join(problems)


# ---- answers shown before their question: a widget's saved view, a table above ----

def _widget_notebook(value_after_answer, value_in_student):
    """A question about a widget, its answer cell driving it; the saved widget states."""
    def with_state(nb, value):
        nb.metadata["widgets"] = {ms.WIDGET_STATE: {"state": {
            "m1": {"model_name": "IntSliderModel", "state": {"value": value}}}}}
        return nb

    cells = [new_markdown_cell("**Predict:** what will the slider show?  Write down your guess "
                               "before running the cell after the widget."),
             new_code_cell("w = slider()\nw"),
             new_code_cell("w.value = 3\nprint(w.value)"),
             new_markdown_cell("It shows 3.")]
    cells[1].outputs = [nbformat.v4.new_output(
        "execute_result", data={ms.WIDGET_VIEW: {"model_id": "m1"}, "text/plain": "slider"})]
    solved = with_state(new_notebook(cells=cells), value_after_answer)
    student = with_state(ms.make_student(solved), value_in_student)
    return student, solved


def test_a_widget_saved_as_its_answer_leaves_it_is_found():
    student, solved = _widget_notebook(3, 3)
    assert ms.revealed_answers(student, solved) == [
        "cell 1: its widget is saved in the state answer cell 2 leaves it in"]
    student, solved = _widget_notebook(3, 0)  # saved as it was before the answer cell
    assert ms.revealed_answers(student, solved) == []


def test_a_table_above_a_question_with_its_answers_rows_is_found():
    def table(rows):
        cell = new_code_cell("print(table)")
        cell.outputs = [nbformat.v4.new_output("stream", text="".join(
            f"{name:<12}  {value}\n" for name, value in rows))]
        return cell

    systems = ["human only", "judge only", "PPI", "PPI++"]
    cells = [new_markdown_cell("## Intervals"),
             table([(name, f"[0.1, 0.{i}]") for i, name in enumerate(systems)]),
             new_markdown_cell("**Predict:** which intervals will cover the truth?  Write down "
                               "your guess before running the next cell."),
             table([(name, f"{90 - i}%") for i, name in enumerate(systems)])]
    solved = new_notebook(cells=cells)
    found = ms.revealed_answers(ms.make_student(solved), solved)
    assert found == [f"cell 1: prints the rows {sorted(systems)} that the answer to the "
                     f"question of cell 2 prints"]
    # the rows the question names are its material, not its answer
    cells[2].source = cells[2].source.replace("which intervals", "which of human only, "
                                              "judge only, PPI and PPI++")
    assert ms.revealed_answers(ms.make_student(solved), solved) == []
    # a table in another section is not this question's
    cells[2].source = "## Coverage\n\n**Predict:** which intervals cover the truth?  Write " \
                      "down your guess before running the next cell."
    assert ms.revealed_answers(ms.make_student(solved), solved) == []


def test_a_table_the_answer_starts_from_is_not_its_answer():
    """"Which of these move?": the answer prints each row before and after, so the rows above
    are the question's starting point; a row whose earlier number the answer drops still
    counts as shown."""
    def table(rows):
        cell = new_code_cell("print(table)")
        cell.outputs = [nbformat.v4.new_output("stream", text="".join(
            f"{name:<12}  {value}\n" for name, value in rows))]
        return cell

    names = ["precision", "recall", "f1", "faithfulness"]
    before = [(name, f"0.{i}000") for i, name in enumerate(names, 1)]
    cells = [new_markdown_cell("## Diagnostics"), table(before),
             new_markdown_cell("**Predict:** a third chunk comes in.  Which metrics move?  Write "
                               "down your guess before running the next cell."),
             table([(name, f"{value} -> 0.{9 - i}000") for i, (name, value) in enumerate(before)])]
    solved = new_notebook(cells=cells)
    assert ms.revealed_answers(ms.make_student(solved), solved) == []
    cells[3] = table([(name, f"0.{9 - i}000") for i, name in enumerate(names)])
    assert ms.revealed_answers(ms.make_student(solved), solved) == [
        f"cell 1: prints the rows {sorted(names)} that the answer to the question of cell 2 prints"]


def _printing(source, text):
    cell = new_code_cell(source)
    cell.outputs = [nbformat.v4.new_output("stream", text=text)]
    return cell


def _level_question(prose="", question="", answer_source=None, answer_text=None, earlier=""):
    """A section with an earlier table, prose, a question and its answer cell."""
    cells = [new_markdown_cell("## 9. The relevance level"),
             _printing("print(table)", earlier or "level 1: AP 0.4417  P@5 0.6000\n"),
             new_markdown_cell(f"{prose}\n\n**Predict:** {question}what are AP and P@5 at level "
                               f"2?  Write down your guesses before running the next cell."),
             _printing(answer_source or "for level in (1, 2):\n    print(row(level))",
                       answer_text or "level 1: AP 0.4417  P@5 0.6000\n"
                                      "level 2: AP 0.3889  P@5 0.4000\n"),
             new_markdown_cell("At level 2, d4 is no longer relevant.")]
    return new_notebook(cells=cells)


def test_prose_above_a_question_quoting_its_answer_is_found():
    solved = _level_question()
    assert ms.revealed_answers(ms.make_student(solved), solved) == []
    solved = _level_question(prose="At level 2, AP falls to 0.3889.")
    assert ms.revealed_answers(ms.make_student(solved), solved) == [
        "cell 2: quotes 0.3889 above the question of cell 2, whose answer prints it"]
    # an earlier cell of the section quotes it too
    solved.cells.insert(1, new_markdown_cell("AP will be 0.3889 and P@5 0.4000."))
    assert ms.revealed_answers(ms.make_student(solved), solved)[0] == (
        "cell 1: quotes 0.3889, 0.4000 above the question of cell 3, whose answer prints it")
    # a number printed before the question, or named by it, is its starting point
    solved = _level_question(prose="At level 1, AP is 0.4417.")
    assert ms.revealed_answers(ms.make_student(solved), solved) == []
    solved = _level_question(question="AP is 0.3889 at level 2: ")
    assert ms.revealed_answers(ms.make_student(solved), solved) == []
    # prose in another section is not this question's
    solved = _level_question()
    solved.cells.insert(0, new_markdown_cell("AP at level 2 will be 0.3889."))
    assert ms.revealed_answers(ms.make_student(solved), solved) == []


def test_an_answer_cell_that_works_its_answer_out_in_its_source_is_found():
    by_hand = ('print(f"by hand, level 2: AP = (1/2 + 2/3) / 3 = {(1 / 2 + 2 / 3) / 3:.4f}   '
               'P@5 = 2/5")\nfor level in (1, 2):\n    print(row(level))')
    solved = _level_question(answer_source=by_hand,
                             answer_text="by hand, level 2: AP = (1/2 + 2/3) / 3 = 0.3889   "
                                         "P@5 = 2/5\nlevel 1: AP 0.4417  P@5 0.6000\n"
                                         "level 2: AP 0.3889  P@5 0.4000\n")
    assert ms.revealed_answers(ms.make_student(solved), solved) == [
        "cell 3: its source works out (1/2 + 2/3) / 3 = 0.3889, which it prints as the answer "
        "to the question of cell 2",
        "cell 3: its source works out 2/5 = 0.4000, which it prints as the answer to the "
        "question of cell 2"]
    # arithmetic in code alone is found too; names, or a value not printed, are not
    for source, found in (("x = 1 / (60 + 1)\nprint(f'{x:.4f}')", ["1 / (60 + 1) = 0.0164"]),
                          ("x = 1 / (k + 1)\nprint(f'{x:.4f}')", []),
                          ("x = 1 / (60 + 2)\nprint(f'{x:.4f}')", [])):
        solved = _level_question(answer_source=source, answer_text="0.0164\n")
        got = ms.revealed_answers(ms.make_student(solved), solved)
        assert [line.split("works out ")[1].split(",")[0] for line in got] == found, got
    # the question's own number, printed again, is its starting point
    solved = _level_question(question="AP is 0.4417 at level 1 (53/120): ",
                             answer_source="print(f'{53 / 120:.4f}')\nprint(row(2))")
    assert ms.revealed_answers(ms.make_student(solved), solved) == []
    assert ms.worked_out("%pip install x") == {}


@pytest.mark.parametrize("path", STUDENTS, ids=[p.stem for p in STUDENTS])
def test_no_student_notebook_shows_an_answer_before_its_question(path):
    solved = nbformat.read(ROOT / "solutions" / path.name, as_version=4)
    left = ms.revealed_answers(nbformat.read(path, as_version=4), solved)
    assert not left, "\n".join(left)


def test_the_kept_cells_exist():
    for name, cell_id in KEPT:
        nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
        cell = next(c for c in nb.cells if c.id == cell_id)
        assert "keep-output" in cell.metadata.get("tags", []) and cell.outputs


# ---- the discussion after an answer cell is folded in the student notebook ----------

def test_fold_discussion_folds_up_to_the_next_heading_or_question():
    folded = ms.fold_discussion("It is 2.\n\nSo x + 1 is 2.\n\n## Next section\n\nText.")
    assert folded == (f"<details><summary>{ms.FOLD_SUMMARY}</summary>\n\nIt is 2.\n\n"
                      "So x + 1 is 2.\n\n</details>\n\n## Next section\n\nText.")
    folded = ms.fold_discussion("RR does not move.\n\n**Predict:** and now?")
    assert folded.endswith("</details>\n\n**Predict:** and now?")
    assert "RR does not move." in folded.split("</details>")[0]
    # nothing to fold: a heading first, or folded already
    assert ms.fold_discussion("## A heading\n\nText.") == "## A heading\n\nText."
    assert ms.fold_discussion(folded) == folded
    # a closing lead-in to the next cell stays open; a lone paragraph is folded whole
    folded = ms.fold_discussion("Unigrams ignore order.\n\nLonger n-grams see it:")
    assert folded.endswith("</details>\n\nLonger n-grams see it:")
    assert ms.fold_discussion("By hand, NDCG@3 is their ratio:").startswith("<details>")


def test_the_markdown_after_an_answer_is_folded_in_the_student_notebook_only():
    sol = _toy_predictions()
    sol.cells[12].metadata["tags"] = ["show-discussion"]  # a lead-in that gives nothing away
    stu = ms.make_student(sol)
    assert stu.cells[5].source.startswith("<details>") and "It is 2." in stu.cells[5].source
    assert sol.cells[5].source == "It is 2."
    assert stu.cells[12].source == "Said in words."
    # a Markdown cell that follows an ordinary cell stays as it was
    assert stu.cells[7].source == sol.cells[7].source


@pytest.mark.parametrize("path", STUDENTS, ids=[p.stem for p in STUDENTS])
def test_no_student_notebook_discusses_an_answer_in_the_open(path):
    """The Markdown cell after an answer cell is folded, or tagged show-discussion."""
    nb = nbformat.read(path, as_version=4)
    problems = []
    for j in range(1, len(nb.cells)):
        before, cell = nb.cells[j - 1], nb.cells[j]
        if (cell.cell_type != "markdown"
                or "reveals-answer" not in before.metadata.get("tags", [])
                or "show-discussion" in cell.metadata.get("tags", [])):
            continue
        if not (cell.source.startswith("<details>") or re.match(r"#{1,6} ", cell.source)):
            problems.append(f"cell {j}: {cell.source[:60]!r} follows an answer cell unfolded")
    assert not problems, "\n".join(problems)
