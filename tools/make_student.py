"""Write the student notebooks (``notebooks/``) from the solved ones (``solutions/``).

``solutions/`` is the single source.  A solved notebook marks each answer with
nbgrader's markers::

    def precision_at_k(rels, k):
        ### BEGIN SOLUTION
        return sum(rels[:k]) / k
        ### END SOLUTION

and this script writes the student notebook with the region replaced, at the
marker's indentation, by::

        # YOUR CODE HERE
        raise NotImplementedError()

(in a Markdown cell the region becomes ``YOUR ANSWER HERE``).

Rules, so that ``pytest --nbval`` passes on both folders:

* A code cell holding a solution region is an *exercise cell*.
* A code cell whose source starts with a docstring beginning with "Check"
  (``\"\"\"Check that ...``), or that carries the tag ``check``, is a
  *check cell*: it compares the student's function with the library and
  says in words what is wrong.
* In the student notebook, exercise and check cells get the tag
  ``raises-exception`` (nbval then allows their ``NotImplementedError``).
* A Markdown cell that asks a question before the answer is run (a
  *prediction*: bold "**Predict**" or "**Bug hunt**", or "Write down your
  guess before running ...") is followed by code cells that reveal the
  answer: the run of code cells up to the next Markdown cell (without the
  first one when the question says "the cell after the widget": that cell
  shows the widget the question is about).  In the student notebook these
  *answer cells* are saved unrun, with no output, and tagged
  ``reveals-answer`` and ``nbval-ignore-output``: nbval runs them and
  compares nothing (it compares no output of a cell saved unrun, and the
  tag says so again for a reader).  The solved notebook keeps their outputs.
  Where the rule is wrong, a code cell's tag decides: ``reveals-answer``
  hides a cell the rule misses, ``keep-output`` shows one the rule would
  hide (the material a question is asked about).
* The Markdown cell right after an answer cell usually says the answer in
  words ("RR does not move: ...").  In the student notebook its discussion
  (the text before its first heading or next question) is folded into
  ``<details>`` under "Read this after running the cell above", so the
  question is not answered on the same screen; the solved notebook keeps it
  open.  The tag ``show-discussion`` on the Markdown cell leaves it open (a
  lead-in that gives nothing away).
* Everything else (sources, cell ids, cell metadata, notebook metadata) is
  copied unchanged.
* Without ``--execute``, a student notebook whose sources, tags and metadata
  are already right is left alone (its saved outputs kept); otherwise it is
  rewritten with the solution's outputs for ordinary cells and its exercise,
  check and answer cells unrun (nbval runs them but compares no output).
  With ``--execute``, both folders are executed in place with nbclient
  (kernel ``python3``), so the saved outputs are exactly what nbval
  reproduces.  In a student notebook the saved state of each widget (what a
  page drawn without a kernel shows) is the state it had before the answer
  cells ran: an answer cell that drives the widget above its question
  ("We make query 2's first document irrelevant") would otherwise leave the
  widget's saved view showing the answer.
* An answer can also be shown *before* its question, or by its answer cell's
  source (which the student sees, unrun), in four more ways, which
  ``--check`` reports (:func:`revealed_answers`) beside an answer cell saved
  with an output: a widget shown above the question whose saved view is the
  state an answer cell leaves it in (its saved state equals the solved
  notebook's, in which every answer ran); a table printed above the
  question, in the same section, with the rows the answer prints (three or
  more of the answer's row labels, at least half of them, not counting those
  the question names: "which of these intervals will cover the truth?" after
  a table of the same intervals and the truth); the prose of the section,
  above the question, quoting a number (four decimals, as the lessons print
  them) that the answer prints and that no cell printed before; and an
  answer cell whose source works the answer out by hand, an arithmetic of
  numbers alone, in code or in a printed string (``(1 / 2 + 2 / 3) / 3``,
  ``"P@5 = 2/5"``), whose value the cell prints.  A row the answer repeats
  with numbers of its own added ("0.5000 -> 0.3333") is the question's
  starting point, not its answer ("which of these metrics move?"); so is a
  number the question itself names ("the CTR is 0.9587; and reversed?").
  Words that answer a question ("never in nDCG") are not found: say them
  after the answer cell.

Usage::

    python tools/make_student.py                  # regenerate notebooks/ from solutions/
    python tools/make_student.py --execute        # execute solutions/, regenerate, execute notebooks/
    python tools/make_student.py --execute 04 06  # only notebooks whose name starts with 04 or 06
    python tools/make_student.py --check          # exit 1 if notebooks/ is out of date (no writing)
    python tools/make_student.py --out /tmp/nb    # write the student notebooks elsewhere
"""

import argparse
import ast
import copy
import hashlib
import json
import re
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "solutions"
NOTEBOOKS = ROOT / "notebooks"

KERNELSPEC = {
    "name": "python3",
    "display_name": "Python 3 (ipykernel)",
    "language": "python",
}
"""The kernelspec every notebook carries."""

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
CODE_STUB = ("# YOUR CODE HERE", "raise NotImplementedError()")
MARKDOWN_STUB = ("YOUR ANSWER HERE",)
STUDENT_TAG = "raises-exception"
CHECK_TAG = "check"
ANSWER_TAG = "reveals-answer"
"""A code cell that shows the answer of a prediction: saved unrun in the student notebook."""
KEEP_TAG = "keep-output"
"""A code cell the prediction rule would hide that keeps its output (the question's material)."""
NBVAL_IGNORE_TAG = "nbval-ignore-output"
SHOW_DISCUSSION_TAG = "show-discussion"
"""A Markdown cell after an answer cell that stays open in the student notebook."""
FOLD_SUMMARY = "Read this after running the cell above"
"""What a folded discussion shows until it is opened."""
HIDDEN_TESTS = "hidden_tests"
"""Cell metadata holding a check's hidden cases, for nbgrader only: never in a student notebook."""
EXECUTE_TIMEOUT = 600

_CHECK_DOCSTRING = re.compile(r'^\s*[rRuU]?("""|\'\'\')\s*check', re.IGNORECASE)


_PROMPT = re.compile(r"\*\*\s*(predict|bug hunt)\b|write down your \w+ before running",
                     re.IGNORECASE)
_AFTER_WIDGET = re.compile(r"the cell after the widget", re.IGNORECASE)


class SolutionMarkerError(ValueError):
    """A solution region is malformed (unbalanced or nested markers)."""


def strip_solutions(source, stub):
    """Return ``(new_source, n_regions)`` with every solution region replaced.

    ``stub`` is a sequence of lines written, at the indentation of the
    ``### BEGIN SOLUTION`` line, in place of the region (markers included).
    """
    out, n, inside, indent = [], 0, False, ""
    for lineno, line in enumerate(source.split("\n"), start=1):
        stripped = line.strip()
        if stripped == BEGIN:
            if inside:
                raise SolutionMarkerError(f"nested {BEGIN!r} at line {lineno}")
            inside, n = True, n + 1
            indent = line[: len(line) - len(line.lstrip())]
            out.extend(indent + s for s in stub)
        elif stripped == END:
            if not inside:
                raise SolutionMarkerError(f"{END!r} without {BEGIN!r} at line {lineno}")
            inside = False
        elif not inside:
            out.append(line)
    if inside:
        raise SolutionMarkerError(f"{BEGIN!r} without {END!r}")
    return "\n".join(out), n


def is_check_cell(cell):
    """True for a check cell: a docstring starting with "Check", or the tag ``check``."""
    if cell.cell_type != "code":
        return False
    if CHECK_TAG in cell.get("metadata", {}).get("tags", []):
        return True
    return bool(_CHECK_DOCSTRING.match(cell.source))


def is_prediction(cell):
    """True for a Markdown cell that asks for a guess before its answer is run."""
    return cell.cell_type == "markdown" and bool(_PROMPT.search(cell.source))


def answer_cells(nb):
    """The indices of the code cells that reveal a prediction's answer (the module's rules)."""
    found = set()
    cells = nb.cells
    for i, cell in enumerate(cells):
        if not is_prediction(cell):
            continue
        run = []
        for j in range(i + 1, len(cells)):
            if cells[j].cell_type != "code":
                break
            run.append(j)
        if _AFTER_WIDGET.search(cell.source):
            run = run[1:]
        found.update(run)
    for j, cell in enumerate(cells):
        tags = cell.get("metadata", {}).get("tags", [])
        if cell.cell_type == "code" and ANSWER_TAG in tags:
            found.add(j)
        if KEEP_TAG in tags:
            found.discard(j)
    return sorted(found)


def shown_answers(nb):
    """Lines naming the answer cells of a student notebook that were saved with an output."""
    return [f"cell {i}: the answer of a prediction is saved with its output"
            for i, cell in enumerate(nb.cells)
            if ANSWER_TAG in cell.get("metadata", {}).get("tags", [])
            and (cell.get("outputs") or cell.get("execution_count") is not None)]


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
_MODEL_REF = re.compile(r"IPY_MODEL_([0-9a-f]+)")
_NUMBER = re.compile(r"\d")


def _widget_signature(nb, model_id):
    """The saved states of a widget and of every widget it holds, ids left out (comparable
    between two notebooks, whose model ids differ)."""
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    seen, todo, out = set(), [model_id], []
    while todo:
        m = todo.pop()
        if m in seen or m not in state:
            continue
        seen.add(m)
        text = json.dumps(state[m].get("state", {}), sort_keys=True)
        todo += _MODEL_REF.findall(text)
        out.append(_MODEL_REF.sub("IPY_MODEL", text) + json.dumps(state[m].get("buffers", [])))
    return sorted(out)


def _widget_views(cell):
    return [o["data"][WIDGET_VIEW]["model_id"] for o in cell.get("outputs", [])
            if WIDGET_VIEW in o.get("data", {})]


def _bound_names(source):
    """Names a cell assigns at its top level (``explorer = ...``), and a bare last line."""
    names = set(re.findall(r"^([A-Za-z_]\w*)\s*=[^=]", source, re.MULTILINE))
    lines = [line for line in source.strip().split("\n") if line.strip()]
    if lines and re.fullmatch(r"[A-Za-z_]\w*", lines[-1].strip()):
        names.add(lines[-1].strip())
    return names


def _output_text(cell):
    return "".join(o.get("text", "") if o.get("output_type") == "stream"
                   else o.get("data", {}).get("text/plain", "") for o in cell.get("outputs", []))


def _rows(cell):
    """Each printed table row, by its first column: a line of two or more columns (two
    spaces or a tab apart) whose first column holds a letter and the rest a number; the
    value is the list of numbers the rest of the line holds."""
    rows = {}
    for line in _output_text(cell).splitlines():
        columns = re.split(r"\s{2,}|\t", line.strip())
        rest = " ".join(columns[1:])
        if len(columns) >= 2 and re.search(r"[A-Za-z]", columns[0]) and _NUMBER.search(rest):
            rows[columns[0].rstrip(":=")] = _NUMBERS.findall(rest)
    return rows


def _row_labels(cell):
    """The first column of each printed table row (:func:`_rows`)."""
    return set(_rows(cell))


_NUMBERS = re.compile(r"-?\d+(?:\.\d+)?")


def _starting_point(before, after):
    """Whether an answer's row ``after`` repeats the numbers of an earlier row ``before`` and
    adds its own: a "before -> after" line, whose earlier row is the question's material
    (the state the question asks about), not its answer."""
    if len(after) <= len(before):
        return False
    rest = list(after)
    for number in before:
        if number not in rest:
            return False
        rest.remove(number)
    return True


_SECTION = re.compile(r"^#{1,2} ", re.MULTILINE)
_FOUR_DECIMALS = re.compile(r"(?<![\d.])-?\d+\.\d{4}(?!\d)")
"""A number as the lessons print them, to four decimals."""
_ARITHMETIC = re.compile(r"[\d(][\d\s.+\-*/()]*[+\-*/][\d\s.+\-*/()]*[\d)]")
"""An arithmetic of numbers written in a string ("(1/2 + 2/3) / 3", "2/5")."""
_OPERATIONS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
               ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b}


def _constant_value(node):
    """The value of an expression made of numbers and + - * / alone, or None."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = _constant_value(node.operand)
        return None if value is None else -value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATIONS:
        left, right = _constant_value(node.left), _constant_value(node.right)
        if left is None or right is None or (isinstance(node.op, ast.Div) and right == 0):
            return None
        return _OPERATIONS[type(node.op)](left, right)
    return None


def worked_out(source):
    """``{value to four decimals: the arithmetic}`` of every arithmetic of numbers alone in
    ``source``: in its code (``(1 / 2 + 2 / 3) / 3``) and in its strings (``"P@5 = 2/5"``)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # IPython magics: nothing read
        return {}
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp):
            value = _constant_value(node)
            if value is not None:
                found.setdefault(f"{value:.4f}", ast.unparse(node))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            for m in _ARITHMETIC.finditer(node.value):
                try:
                    value = _constant_value(ast.parse(m.group(0).strip(), mode="eval").body)
                except SyntaxError:
                    continue
                if value is not None:
                    found.setdefault(f"{value:.4f}", m.group(0).strip())
    return found


def revealed_answers(student, solved):
    """Lines naming the places of a student notebook that show an answer before its question.

    ``student`` is the student notebook as saved, ``solved`` its solved
    notebook, executed (every answer cell run, with its output).  Four cases
    (the module's rules): a widget shown above a question whose saved view is
    the state an answer cell leaves it in; a table printed above a question,
    in its section, with the rows its answer prints; the section's prose
    above a question quoting a number its answer is the first to print; and
    an answer cell whose source works out by hand a number it prints.
    """
    out = []
    cells, answers = student.cells, answer_cells(student)
    # 1. a widget driven by an answer cell, saved as that cell leaves it
    for j in answers:
        for i in range(j):
            cell = cells[i]
            if cell.cell_type != "code" or i in answers:
                continue
            views = _widget_views(cell)
            names = _bound_names(cell.source)
            if not views or not any(re.search(rf"\b{re.escape(n)}\b", cells[j].source)
                                    for n in names):
                continue
            solved_views = _widget_views(solved.cells[i]) if i < len(solved.cells) else []
            if any(_widget_signature(student, v) == _widget_signature(solved, w)
                   for v, w in zip(views, solved_views)):
                out.append(f"cell {i}: its widget is saved in the state answer cell {j} "
                           f"leaves it in")
    # 2. the rows an answer prints, printed above its question in the same section
    solved_cells = solved.cells
    for i, cell in enumerate(solved_cells):
        if not is_prediction(cell):
            continue
        answer_rows = {}
        for j in range(i + 1, len(solved_cells)):
            if solved_cells[j].cell_type != "code":
                break
            if j in answers:
                answer_rows.update(_rows(solved_cells[j]))
        question = next(p for p in re.split(r"\n\s*\n", cell.source) if _PROMPT.search(p))
        answer_rows = {r: v for r, v in answer_rows.items() if r.lower() not in question.lower()}
        if len(answer_rows) < 3 or _SECTION.search(cell.source[:cell.source.find(question)]):
            continue
        start = i - 1
        while start > 0 and not (solved_cells[start].cell_type == "markdown"
                                 and _SECTION.search(solved_cells[start].source)):
            start -= 1
        for k in range(start, i):
            if solved_cells[k].cell_type != "code":
                continue
            earlier = _rows(solved_cells[k])
            shown = {r for r in earlier.keys() & answer_rows.keys()
                     if not _starting_point(earlier[r], answer_rows[r])}
            if len(shown) >= 3 and 2 * len(shown) >= len(answer_rows):
                out.append(f"cell {k}: prints the rows {sorted(shown)} that the answer to the "
                           f"question of cell {i} prints")
    # 3. the section's prose above a question quotes a number its answer prints first, and
    # 4. an answer cell's source works out by hand a number it prints
    for i, cell in enumerate(solved_cells):
        if not is_prediction(cell):
            continue
        run = []
        for j in range(i + 1, len(solved_cells)):
            if solved_cells[j].cell_type != "code":
                break
            if j in answers:
                run.append(j)
        question = next(p for p in re.split(r"\n\s*\n", cell.source) if _PROMPT.search(p))
        named = set(_FOUR_DECIMALS.findall(question))  # the question's starting point
        printed = {j: set(_FOUR_DECIMALS.findall(_output_text(solved_cells[j]))) - named
                   for j in run}
        before = set()
        for k in range(i):
            if solved_cells[k].cell_type == "code":
                before |= set(_FOUR_DECIMALS.findall(_output_text(solved_cells[k])))
        first = set().union(*printed.values()) - before if printed else set()
        start = i
        while start > 0 and not (solved_cells[start].cell_type == "markdown"
                                 and _SECTION.search(solved_cells[start].source)):
            start -= 1
        for k in range(start, i + 1):
            if cells[k].cell_type != "markdown":
                continue
            prose = cells[k].source
            if k == i:
                prose = prose[:prose.find(question)]
            quoted = sorted(first & set(_FOUR_DECIMALS.findall(prose)))
            if quoted:
                out.append(f"cell {k}: quotes {', '.join(quoted)} above the question of cell "
                           f"{i}, whose answer prints it")
        for j in run:
            by_hand = worked_out(cells[j].source)
            for number in sorted(printed[j] & by_hand.keys()):
                out.append(f"cell {j}: its source works out {by_hand[number]} = {number}, "
                           f"which it prints as the answer to the question of cell {i}")
    return out


_HEADING = re.compile(r"^#{1,6} ", re.MULTILINE)


def fold_discussion(source):
    """``source`` with its discussion folded into ``<details>`` (unchanged if it has none).

    The discussion is the text before the first heading or the first paragraph
    that asks a new question; what follows stays open, and so does the
    discussion's last paragraph when it ends in a colon (it leads in to the
    next cell) and is not the only one.
    """
    if source.lstrip().startswith("<details>"):
        return source
    cut = len(source)
    heading = _HEADING.search(source)
    if heading:
        cut = heading.start()
    start = 0
    for paragraph in re.split(r"(\n\s*\n)", source):
        if start >= cut:
            break
        if _PROMPT.search(paragraph):
            cut = min(cut, start)
            break
        start += len(paragraph)
    discussion, rest = source[:cut].strip("\n"), source[cut:].lstrip("\n")
    paragraphs = re.split(r"\n\s*\n", discussion)
    if len(paragraphs) > 1 and paragraphs[-1].rstrip().endswith(":"):
        # a last paragraph ending in a colon leads in to the next cell: it stays open
        discussion = "\n\n".join(paragraphs[:-1])
        rest = paragraphs[-1] + ("\n\n" + rest if rest else "")
    if not discussion.strip():
        return source
    folded = f"<details><summary>{FOLD_SUMMARY}</summary>\n\n{discussion}\n\n</details>"
    return folded + ("\n\n" + rest if rest else "")


def _add_tag(cell, tag):
    tags = list(cell.metadata.get("tags", []))
    if tag not in tags:
        tags.append(tag)
    cell.metadata["tags"] = tags


def make_student(solution):
    """Return the student notebook for the solved notebook ``solution`` (not modified)."""
    nb = copy.deepcopy(solution)
    answers = set(answer_cells(nb))
    for i, cell in enumerate(nb.cells):
        # extra cases that only the grader runs (tools/assignments.py) are not handed out
        cell.metadata.pop(HIDDEN_TESTS, None)
        if cell.cell_type == "code":
            cell.source, n = strip_solutions(cell.source, CODE_STUB)
            if n or is_check_cell(cell):
                _add_tag(cell, STUDENT_TAG)
                cell.outputs = []
                cell.execution_count = None
            elif i in answers:
                _add_tag(cell, ANSWER_TAG)
                _add_tag(cell, NBVAL_IGNORE_TAG)
                cell.outputs = []
                cell.execution_count = None
        elif cell.cell_type == "markdown":
            cell.source, _ = strip_solutions(cell.source, MARKDOWN_STUB)
            if (i - 1 in answers
                    and SHOW_DISCUSSION_TAG not in cell.metadata.get("tags", [])):
                cell.source = fold_discussion(cell.source)
    return nb


VOLATILE_METADATA = ("widgets", "language_info")
"""Notebook metadata written by execution, not by the author; not compared."""


def comparable(nb):
    """What the student notebook must match: sources, cell ids, tags, metadata (not outputs).

    Notebook metadata written by the kernel at execution (``language_info``,
    which carries the Python version) and saved widget state are left out.
    """
    meta = {k: v for k, v in nb.metadata.items() if k not in VOLATILE_METADATA}
    cells = [
        {
            "cell_type": c.cell_type,
            "id": c.get("id"),
            "source": c.source,
            "metadata": dict(c.get("metadata", {})),
        }
        for c in nb.cells
    ]
    return {"nbformat": (nb.nbformat, nb.nbformat_minor), "metadata": meta, "cells": cells}


def differences(expected, actual):
    """Human-readable differences between two notebooks' :func:`comparable` forms."""
    a, b = comparable(expected), comparable(actual)
    out = []
    if a["nbformat"] != b["nbformat"]:
        out.append(f"nbformat {b['nbformat']} should be {a['nbformat']}")
    if a["metadata"] != b["metadata"]:
        out.append(f"notebook metadata {b['metadata']} should be {a['metadata']}")
    if len(a["cells"]) != len(b["cells"]):
        out.append(f"{len(b['cells'])} cells, should be {len(a['cells'])}")
    for i, (ca, cb) in enumerate(zip(a["cells"], b["cells"])):
        for key in ("cell_type", "id", "source", "metadata"):
            if ca[key] != cb[key]:
                out.append(f"cell {i}: {key} differs")
    return out


def read(path):
    return nbformat.read(str(path), as_version=4)


WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def stable_widget_ids(nb, name):
    """``nb`` with every widget model id replaced by one derived from ``name`` and its order.

    Executing a notebook gives each widget a random model id; the saved
    widget state (what a static page draws the widgets from) and the outputs
    that show a widget both name it.  Renaming them in creation order makes
    the saved notebook the same from one run to the next.
    """
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state")
    if not state:
        nb.metadata.pop("widgets", None)
        return nb
    new_ids = {old: hashlib.sha1(f"{name}:{i}".encode()).hexdigest()[:32]
               for i, old in enumerate(state)}
    if set(new_ids) == set(new_ids.values()):
        return nb  # written before: its ids are stable already
    # one pass, so that an id just written is never renamed again
    pattern = re.compile("|".join(map(re.escape, new_ids)))
    text = pattern.sub(lambda m: new_ids[m.group(0)], json.dumps(nb))
    return nbformat.from_dict(json.loads(text))


def merge_streams(outputs):
    """``outputs`` with each run of printed text (one stream, stdout or stderr) as one output.

    The kernel sends what a cell prints in pieces, cut wherever it happened
    to flush: the same cell can come back as one output or as three. Joined,
    the saved notebook is the same from one run to the next.
    """
    merged = []
    for out in outputs:
        last = merged[-1] if merged else None
        if (out.get("output_type") == "stream" and last is not None
                and last.get("output_type") == "stream" and last.get("name") == out.get("name")):
            last["text"] = last["text"] + out["text"]
        else:
            merged.append(out)
    return merged


def write(nb, path):
    """Write ``nb`` without run-to-run noise (execution timestamps, random widget ids,
    printed text cut into pieces)."""
    nb = stable_widget_ids(nb, Path(path).stem)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if "outputs" in cell:
            cell.outputs = merge_streams(cell.outputs)
    nbformat.validate(nb)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        nbformat.write(nb, f)


def clear_unrun_cells(nb):
    """Drop the outputs of a student notebook's open exercises, checks and answer cells."""
    for cell in nb.cells:
        tags = cell.get("metadata", {}).get("tags", [])
        if cell.cell_type == "code" and (STUDENT_TAG in tags or ANSWER_TAG in tags):
            cell.outputs = []
            cell.execution_count = None
    return nb


def execute(path, timeout=EXECUTE_TIMEOUT, student=False):
    """Execute the notebook at ``path`` in place (kernel ``python3``, cwd its folder).

    In a student notebook (``student=True``) the open exercise and check cells
    are saved unrun: their only output would be a ``NotImplementedError``
    traceback, which nbval does not compare and a student need not see.  Its
    answer cells are saved unrun too: their output is the answer; and the
    widgets are saved as they were before the answer cells ran (an answer
    cell that drives a widget shown above it would leave the answer in the
    widget's saved view).
    """
    from nbclient import NotebookClient

    class StudentClient(NotebookClient):
        """Keeps each widget's saved state as it was before each answer cell ran."""

        async def async_execute_cell(self, cell, cell_index, execution_count=None,
                                     store_history=True):
            answer = ANSWER_TAG in cell.get("metadata", {}).get("tags", [])
            if answer:
                state, buffers = copy.deepcopy(self.widget_state), copy.deepcopy(
                    self.widget_buffers)
            result = await super().async_execute_cell(cell, cell_index, execution_count,
                                                      store_history)
            if answer:  # the widgets that existed before: back as they were
                self.widget_state.update(state)
                for model_id in list(self.widget_buffers):
                    if model_id in state and model_id not in buffers:
                        del self.widget_buffers[model_id]
                self.widget_buffers.update(buffers)
            return result

    path = Path(path)
    nb = read(path)
    client = (StudentClient if student else NotebookClient)(
        nb,
        timeout=timeout,
        kernel_name=KERNELSPEC["name"],
        resources={"metadata": {"path": str(path.parent)}},
        store_widget_state=True,  # saved, so a page rendered without a kernel shows the widgets
        record_timing=False,
    )
    client.execute()
    if student:
        clear_unrun_cells(nb)
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    write(nb, path)


def solution_paths(patterns=(), solutions=SOLUTIONS):
    """The solved notebooks, optionally only those whose name starts with a pattern."""
    paths = sorted(Path(solutions).glob("*.ipynb"))
    if patterns:
        paths = [p for p in paths if any(p.name.startswith(s) for s in patterns)]
    return paths


def _show(path):
    path = Path(path).resolve()
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*",
                        help="only notebooks whose file name starts with one of these")
    parser.add_argument("--execute", action="store_true",
                        help="execute solutions/ and the written student notebooks in place")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if the student notebooks are out of date")
    parser.add_argument("--solutions", type=Path, default=SOLUTIONS, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, default=NOTEBOOKS,
                        help="folder for the student notebooks (default notebooks/)")
    args = parser.parse_args(argv)

    paths = solution_paths(args.names, args.solutions)
    if not paths:
        parser.error(f"no solved notebook matches {args.names or '*'} in {args.solutions}")

    if args.check:
        stale = []
        for path in paths:
            target = args.out / path.name
            if not target.exists():
                stale.append(f"{target}: missing")
                continue
            committed, solved = read(target), read(path)
            for d in (differences(make_student(solved), committed) + shown_answers(committed)
                      + revealed_answers(committed, solved)):
                stale.append(f"{target}: {d}")
        for line in stale:
            print(line)
        if stale:
            print("run: python tools/make_student.py --execute")
        return 1 if stale else 0

    for path in paths:
        target = args.out / path.name
        if args.execute:
            print(f"executing {_show(path)}", flush=True)
            execute(path)
        student = make_student(read(path))
        if (not args.execute and target.exists() and not differences(student, read(target))
                and not shown_answers(read(target))):
            print(f"up to date: {_show(target)}", flush=True)
            continue
        write(student, target)
        print(f"wrote {_show(target)}", flush=True)
        if args.execute:
            execute(target, student=True)
            print(f"executed {_show(target)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
