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
        got = rc.evaluate_as(qrels, run, metrics=computable, conventions=preset).mean
        assert any(round(got[m], 4) != mystery[m] for m in computable), (
            f"the preset {name!r} reproduces the mystery: the exercise asks for a combination "
            f"of conventions that no preset shows")


def _cell_after(nb, markdown_start):
    """The output of the code cell right before the Markdown cell starting with ``markdown_start``,
    and that Markdown."""
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown" and markdown_start in cell.source:
            return _output_text(nb.cells[i - 1]), cell.source
    raise AssertionError(f"no Markdown cell with {markdown_start!r} in 10")


def test_10_the_two_maps_of_0_6472_are_both_233_360():
    """Section 5's step table shows MAP 0.6472 twice (trec_eval's, and AP over the relevant
    retrieved with q4 as 0): by hand, both means are 233/360, as the prose says."""
    import pytrec_eval
    from fractions import Fraction as F

    nb = _read(CONVENTIONS)
    qrels, run = _setup(nb)
    # q1: d1, d3, d4 relevant at ranks 2, 3, 5 of R = 4; q2: d10 at rank 1 of R = 2 (d6
    # never retrieved); q3: both relevant at ranks 1 and 2; q4 never run
    q1_found = F(1, 2) + F(2, 3) + F(3, 5)
    trec_map = (q1_found / 4 + F(1, 2) + 1) / 3            # D = R; q4 left out
    retrieved_map = (q1_found / 3 + 1 + 1 + 0) / 4          # D = relevant retrieved; q4 as 0
    assert trec_map == retrieved_map == F(233, 360)
    by_pytrec = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
    assert sum(q["map"] for q in by_pytrec.values()) / len(by_pytrec) == pytest.approx(233 / 360)
    trec = rc.PRESETS["trec_eval"]
    row = trec.replace(missing="zero", gain="exponential", ideal_source="retrieved",
                       ap_denominator="retrieved_relevant")  # the step table's fifth row
    assert rc.evaluate_as(qrels, run, metrics=["map"], conventions=row).mean["map"] == pytest.approx(233 / 360)
    assert "both\nmeans are exactly 233/360" in _markdown(nb)
    table = next(_output_text(c) for c in nb.cells if "ap=retrieved_relevant" in _output_text(c))
    assert re.search(r"^trec_eval\s+\S+\s+0\.6472\b", table, re.M)
    assert re.search(r"^ap=retrieved_relevant\s+\S+\s+\[0\.6472\]", table, re.M)


def test_10_trec_eval_with_q5_and_trec_eval_c_give_the_same_mean_ndcg():
    """gdeval's section: trec_eval's mean NDCG@5 over q1-q3 and q5 (0) equals section 5's
    trec_eval -c mean over q1-q4 (q4 as 0), as the prose says: one 0 each, over 4 queries."""
    import pytrec_eval

    nb = _read(CONVENTIONS)
    qrels, run = _setup(nb)
    qrels5, run5 = {**qrels, "q5": {"d3": 0}}, {**run, "q5": {"d3": 1.0}}
    five = pytrec_eval.RelevanceEvaluator(qrels5, {"ndcg_cut_5"}).evaluate(run5)
    assert sorted(five) == ["q1", "q2", "q3", "q5"] and five["q5"]["ndcg_cut_5"] == 0
    three = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_5"}).evaluate(run)
    with_q4_as_zero = sum(q["ndcg_cut_5"] for q in three.values()) / 4
    mean5 = sum(q["ndcg_cut_5"] for q in five.values()) / 4
    assert mean5 == pytest.approx(with_q4_as_zero)
    shown = f"{mean5:.4f}"
    output, prose = _cell_after(nb, "Same run, same cut-off, two NDCG@5s")
    assert f"means: trec_eval {shown} over 4 queries" in output
    assert f"trec_eval's {shown} over 4 queries is also the `trec_eval -c`" in prose
    table = next(_output_text(c) for c in nb.cells if "ap=retrieved_relevant" in _output_text(c))
    assert re.search(rf"^missing=zero \(trec_eval -c\).*\[{shown}\]$", table, re.M)


def test_10_the_relevance_levels_answer_prints_the_signature_it_names():
    nb = _read(CONVENTIONS)
    output, prose = _cell_after(nb, "At level 2, d4 (grade 1) is no longer relevant")
    assert "`rel:grade>=2` in the signature above" in prose
    assert "|rel:grade>=2|" in output and "ragmetrics_edu" in output


def test_10_ties_are_said_common_in_the_runs_that_have_them():
    nb = _read(CONVENTIONS)
    output, prose = _cell_after(nb, "The BM25 run has ties in")
    counts = {m.group(1): (int(m.group(2)), int(m.group(3)))
              for m in re.finditer(r"^(\w+)\s+(\d+) of (\d+) queries have tied", output, re.M)}
    with_ties, total = counts["BM25"]
    assert 0.15 <= with_ties / total <= 0.25  # "about a fifth"
    assert counts["dense"][0] == 0 and "the dense run" in prose and "has none" in prose


def test_10_checking_the_sources_names_the_sources_as_its_table_labels_them():
    import ragmetrics_edu as rm

    nb = _read(CONVENTIONS)
    section = next(c.source for c in nb.cells
                   if c.cell_type == "markdown" and c.source.startswith("## Checking the sources"))
    seeds = {ex.seed for ex in rm.course.examples.errata()}
    assert seeds == {"slides", "article_ir"}, seeds   # the blog post has no slip in the list
    assert all(f"`{seed}`" in section for seed in seeds)
    assert "blog post of notebook 03 has no slip" in section
    assert "not part of the appendix, nor of the main path" in section
    table = next(c for c in nb.cells if c.cell_type == "code" and "seed_table" in c.source)
    assert all(f"({seed}: " in _output_text(table) for seed in seeds)
