"""The site's lesson pages (tools/site.py, staged without Sphinx): every figure of a lesson is
on its page, and a prediction's answer is folded there, while the student notebook itself
keeps it unrun."""

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def _tool(name):
    spec = importlib.util.spec_from_file_location(f"course_{name}", ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


site = _tool("site")
ANSWER_TAG = "reveals-answer"


def _figures(nb, exercises=True):
    """The PNG outputs of a notebook's code cells: {cell id: count}."""
    out = {}
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        if not exercises and "### BEGIN SOLUTION" in "".join(cell["source"]):
            continue
        n = sum("image/png" in o.get("data", {}) for o in cell.get("outputs", []))
        if n:
            out[cell["id"]] = n
    return out


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_figure_of_the_solved_lesson_is_on_its_page(path):
    solved = json.loads((ROOT / "solutions" / path.name).read_text(encoding="utf-8"))
    page = site.lesson_page(path)
    want = _figures(solved, exercises=False)  # (an exercise's own figure is its answer)
    assert want, f"{path.stem}: the solved notebook saves no figure"
    assert _figures(page) == want
    student = json.loads(path.read_text(encoding="utf-8"))
    for cell, original in zip((c for c in page["cells"] if c["id"] != "site-solution-note"),
                              student["cells"]):
        tags = original.get("metadata", {}).get("tags", [])
        if ANSWER_TAG in tags:
            # the student notebook keeps the answer unrun; the page folds it
            assert original.get("outputs") == [] and original["execution_count"] is None
            if cell["outputs"]:
                assert "hide-output" in cell["metadata"]["tags"]
                assert cell["metadata"]["mystnb"]["code_prompt_show"].startswith("Show the answer")
        else:
            assert cell == original  # every other cell as the student notebook saves it


def test_the_lessons_without_a_figure_in_the_student_notebook_get_theirs():
    # 01's and 07's figures all answer a prediction: none in the student notebook, all on the page
    for stem in ("01_order_unaware", "07_llm_as_judge"):
        path = ROOT / "notebooks" / f"{stem}.ipynb"
        assert not _figures(json.loads(path.read_text(encoding="utf-8")))
        assert _figures(site.lesson_page(path))


def test_with_answers_folds_the_solved_outputs_and_drops_widget_views():
    student = {"cells": [
        {"cell_type": "code", "id": "a", "source": "", "execution_count": None, "outputs": [],
         "metadata": {"tags": [ANSWER_TAG], "mystnb": {"image": {"alt": "a figure"}}}},
        {"cell_type": "code", "id": "b", "source": "", "execution_count": 3,
         "outputs": [{"output_type": "stream", "name": "stdout", "text": "kept"}], "metadata": {}},
    ]}
    solved = {"cells": [
        {"cell_type": "code", "id": "a", "execution_count": 7, "metadata": {}, "outputs": [
            {"output_type": "display_data", "metadata": {},
             "data": {"image/png": "iVBOR", "text/plain": "<Figure>"}},
            {"output_type": "display_data", "metadata": {},
             "data": {site.WIDGET_VIEW: {"model_id": "m"}, "text/plain": "Explorer(...)"}}]},
        {"cell_type": "code", "id": "b", "execution_count": 8, "metadata": {}, "outputs": []},
    ]}
    page = site.with_answers(student, solved)
    a, b = page["cells"]
    assert [sorted(o["data"]) for o in a["outputs"]] == [["image/png", "text/plain"],
                                                         ["text/plain"]]
    assert a["execution_count"] == 7 and a["metadata"]["tags"] == [ANSWER_TAG, "hide-output"]
    assert a["metadata"]["mystnb"] == {"image": {"alt": "a figure"},
                                       "code_prompt_show": site.ANSWER_PROMPT_SHOW,
                                       "code_prompt_hide": site.ANSWER_PROMPT_HIDE}
    assert b["outputs"][0]["text"] == "kept" and b["execution_count"] == 3  # not an answer
