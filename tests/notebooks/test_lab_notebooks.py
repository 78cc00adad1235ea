"""Consistency of the lab notebooks (09, 10, 11) that nbval does not check.

nbval checks that the saved outputs are reproduced; these tests check that
the prose agrees with them: numbers quoted in Markdown appear in an output,
keywords named in Markdown exist in the library, and notebook 10's mystery
printout is not answered before it is asked.  They read the committed
solution notebooks and execute nothing.
"""

import ast
import inspect
import re
from pathlib import Path

import nbformat
import pytest

from ragmetrics_edu.retrieval import conventions as rc
from ragmetrics_edu.lab.datasets import load_cranfield

ROOT = Path(__file__).resolve().parents[2]
LAB = ROOT / "solutions" / "09_rag_lab.ipynb"
CONVENTIONS = ROOT / "solutions" / "10_conventions.ipynb"
END_TO_END = ROOT / "solutions" / "11_rag_end_to_end.ipynb"

# a number with exactly four decimals, as the notebooks print them
_FOUR_DECIMALS = re.compile(r"(?<![\d.])\d+\.\d{4}(?![\d])")


def _read(path):
    return nbformat.read(path, as_version=4)


def _output_text(cell):
    parts = []
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            parts.append(out.text)
        elif "data" in out:
            parts.append(str(out["data"].get("text/plain", "")))
    return "".join(parts)


def _markdown(nb):
    return "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


@pytest.mark.parametrize("path", [LAB, CONVENTIONS, END_TO_END], ids=lambda p: p.name)
def test_every_four_decimal_number_of_the_prose_is_in_an_output(path):
    nb = _read(path)
    outputs = "\n".join(_output_text(c) for c in nb.cells if c.cell_type == "code")
    quoted = set(_FOUR_DECIMALS.findall(_markdown(nb)))
    assert _FOUR_DECIMALS.findall("AP 0.2267, not 0.22667 or 10.5")  == ["0.2267"]
    missing = sorted(n for n in quoted if n not in outputs)
    assert not missing, f"{path.name}: Markdown quotes {missing}, which no output shows"


def test_09_names_load_cranfield_keywords_that_exist():
    text = _markdown(_read(LAB))
    used = set(re.findall(r"load_cranfield\((\w+)=", text))
    known = set(inspect.signature(load_cranfield).parameters)
    assert used <= known, f"09 names load_cranfield keywords {sorted(used - known)} that do not exist"


def test_09_explains_the_source_document_of_query_1():
    nb = _read(LAB)
    cran = load_cranfield()
    source = cran.source_docs["1"]
    assert source not in cran.qrels["1"]  # left out by default, as the prose says
    assert f"Document {source}" in _markdown(nb)
    assert any(f"source document of query 1: {source}" in _output_text(c)
               for c in nb.cells if c.cell_type == "code")


def test_10_names_only_existing_ap_denominators_and_shows_them_all():
    text = "\n".join(c.source for c in _read(CONVENTIONS).cells)
    named = set(re.findall(r'ap_denominator="(\w+)"', text))
    assert named <= set(rc.AP_DENOMINATORS), sorted(named - set(rc.AP_DENOMINATORS))
    unused = [d for d in rc.AP_DENOMINATORS if d not in text]
    assert not unused, f"10 never names the AP denominator(s) {unused}"


def test_10_comparison_table_has_a_row_per_preset():
    nb = _read(CONVENTIONS)
    outputs = "\n".join(_output_text(c) for c in nb.cells)
    # the libraries that run here, each beside the preset that reproduces it
    for name in ("trec_eval", "ranx", "sklearn"):
        assert f"preset '{name}'" in outputs, f"no row for the preset {name!r} in 10's table"
    # every preset in the figure of one run under each convention
    source = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    for name in ("trec_eval", "ranx", "sklearn", "ragas", "seeds"):
        assert f'"{name}"' in source, f"the preset {name!r} is not in 10's comparison"


def _setup(nb):
    """The qrels and run of 10, from the notebook's own set-up cell."""
    for cell in nb.cells:
        if cell.cell_type == "code" and "qrels = {" in cell.source and "run = {" in cell.source:
            namespace = {}
            exec(cell.source, namespace)  # plain literals and imports
            return namespace["qrels"], namespace["run"]
    raise AssertionError("no set-up cell defining qrels and run in 10")


def _mystery(nb):
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or not cell.source.startswith("mystery = "):
            continue
        for node in ast.parse(cell.source).body:
            if isinstance(node, ast.Assign) and [t.id for t in node.targets] == ["mystery"]:
                return i, ast.literal_eval(node.value)
    raise AssertionError("no cell starting with 'mystery = ' in 10")


def test_10_mystery_is_not_printed_before_it_is_asked():
    nb = _read(CONVENTIONS)
    index, mystery = _mystery(nb)
    wanted = [f"{v:.4f}" for v in mystery.values()]
    for cell in nb.cells[:index]:
        for line in _output_text(cell).splitlines():
            assert not all(w in line for w in wanted), (
                f"the mystery numbers {wanted} are all printed before the exercise: {line!r}")


def test_10_mystery_is_reproduced_by_no_preset():
    _, mystery = _mystery(_read(CONVENTIONS))
    qrels, run = _setup(_read(CONVENTIONS))
    for name, preset in rc.PRESETS.items():
        computable = [m for m in mystery if m.partition("@")[0] in preset.metrics]
        if len(computable) < len(mystery):
            continue  # the preset cannot print every number
        got = rc.evaluate_as(qrels, run, computable, preset).mean
        assert any(round(got[m], 4) != mystery[m] for m in computable), (
            f"the preset {name!r} reproduces the mystery: the exercise asks for a combination "
            f"of conventions that no preset shows")
