"""Every implement-exercise's check refuses a one-line call of the library.

Each exercise cell that asks for a function the library already has carries
its cheat in the cell metadata ``one_liner`` (``return rm.average_precision(
rels, n_relevant)``).  This test writes that line in place of the student
stub, runs the student notebook, and asserts that the exercise's check cell
refused it with ``LibraryCallRefused``, while the other checks still run on
their own (an open exercise says "not attempted yet", nothing else fails).
"""

import importlib.util
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"

spec = importlib.util.spec_from_file_location("make_student", ROOT / "tools" / "make_student.py")
ms = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ms)

STUB = ms.CODE_STUB[1]  # raise NotImplementedError()


def _with_one_liners(nb):
    """``nb`` with each one_liner written over its cell's stub; the cells' indices."""
    cheated = []
    for i, cell in enumerate(nb.cells):
        line = cell.get("metadata", {}).get("one_liner")
        if cell.cell_type != "code" or not line:
            continue
        lines = cell.source.split("\n")
        stubs = [j for j, s in enumerate(lines) if s.strip() == STUB]
        assert len(stubs) == 1, f"cell {i}: one_liner given but {len(stubs)} stubs"
        j = stubs[0]
        indent = lines[j][: len(lines[j]) - len(lines[j].lstrip())]
        lines[j] = indent + line
        cell.source = "\n".join(lines)
        cheated.append(i)
    return cheated


def _checks_after(cells, i):
    """The index of the first check cell after cell ``i``."""
    return next(j for j in range(i + 1, len(cells)) if ms.is_check_cell(cells[j]))


PATHS = [p for p in sorted(NOTEBOOKS.glob("*.ipynb"))
         if any(c.get("metadata", {}).get("one_liner") for c in nbformat.read(p, 4).cells)]


def test_some_exercises_name_their_one_liner():
    assert PATHS, "no exercise cell has a one_liner in its metadata"


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_a_library_one_liner_is_refused_by_its_check(path):
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    cheated = _with_one_liners(nb)
    NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    for i in cheated:
        j = _checks_after(nb.cells, i)
        errors = [o for o in nb.cells[j].outputs if o.output_type == "error"]
        assert errors and errors[0].ename == "LibraryCallRefused", (
            f"cell {j} (the check of cell {i}, {nb.cells[i].metadata['one_liner']!r}) did not "
            f"refuse the one-liner: {[(e.ename, e.evalue) for e in errors] or 'it passed'}")
    # Every other error is an open exercise, reported as such.
    for j, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.output_type == "error" and out.ename != "LibraryCallRefused":
                assert out.ename in ("NotImplementedError", "NotAttempted"), (
                    f"cell {j}: {out.ename}: {out.evalue}")
