"""Notebook 15's widget: the four entailment tables as toggles, RAGChecker's metrics redrawn.

Driven from Python (a click is ``toggle.value = ...``); the expected values are hand
arithmetic on the worked example, written in the comments.
"""

import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("matplotlib")

from ragmetrics_edu.course.widgets import claim_diagnostics_explorer  # noqa: E402
from ragmetrics_edu.course.widgets.diagnostics import WORKED_EXAMPLE  # noqa: E402


def test_it_opens_on_the_worked_example():
    x = claim_diagnostics_explorer()
    d = x.values
    assert d.precision == pytest.approx(1 / 3)        # helium right; Mach 9 and argon wrong
    assert d.claim_recall == pytest.approx(2 / 3)     # chunk 1 states r1 and r3
    assert d.context_precision == 0.5                 # chunk 2 states nothing of the reference
    assert d.noise_sensitivity_in_irrelevant == pytest.approx(1 / 3)   # Mach 9 from chunk 2
    assert d.hallucination == pytest.approx(1 / 3)    # argon from nowhere
    assert x.tables()["response_claims_supported"] == WORKED_EXAMPLE["response_claims_supported"]


def test_a_click_moves_a_claim_between_bins_and_redraws():
    x = claim_diagnostics_explorer()
    renders = x.view.n_renders
    # chunk 2 now states the reference's "Mach 6": it becomes relevant, so the Mach 9 claim
    # it supports moves from irrelevant to relevant noise, and context precision reaches 1
    x.toggles["reference_claims_retrieved"][1][1].value = True
    assert x.values.context_precision == 1.0
    assert x.values.noise_sensitivity_in_relevant == pytest.approx(1 / 3)
    assert x.values.noise_sensitivity_in_irrelevant == 0.0
    assert x.view.n_renders == renders + 1
    assert x.bars["noise_sensitivity_in_relevant"].get_width() == pytest.approx(1 / 3)
    assert "noise sensitivity in relevant 0.33" in x.view.alt_text
    assert x.toggles["reference_claims_retrieved"][1][1].button_style == "success"


def test_the_answer_stating_the_right_mach_number_is_correct_and_covers_more():
    x = claim_diagnostics_explorer()
    x.toggles["response_claims_correct"][1].value = True     # as if it said Mach 6
    x.toggles["reference_claims_covered"][1].value = True
    assert x.values.precision == pytest.approx(2 / 3)
    assert x.values.recall == pytest.approx(2 / 3)
    assert x.values.noise_sensitivity_in_irrelevant == 0.0  # a right claim is no noise
    assert "hallucination" in x.table.value


def test_repr_is_the_tables_and_a_bad_example_is_refused():
    x = claim_diagnostics_explorer()
    assert repr(x).startswith("ClaimDiagnosticsExplorer(response_claims_correct=[1, 0, 0]")
    bad = dict(WORKED_EXAMPLE, response_claims_supported=[[1, 0], [0, 1]])
    with pytest.raises(ValueError, match="response_claims_supported has shape"):
        claim_diagnostics_explorer(bad)
    with pytest.raises(ValueError, match="needs 'chunks'"):
        claim_diagnostics_explorer({k: v for k, v in WORKED_EXAMPLE.items() if k != "chunks"})


def _texts(widget):
    """Every HTML text of a widget tree, in layout order."""
    import ipywidgets as w

    if isinstance(widget, w.HTML):
        return [widget.value]
    return [t for child in getattr(widget, "children", ()) for t in _texts(child)]


def test_each_grid_heads_its_columns_and_names_its_rows():
    x = claim_diagnostics_explorer()
    texts = " | ".join(_texts(x.widget))
    # the one-verdict column and one column per chunk, in each of the two grids
    for header in ("correct?", "covered?", "in chunk 1?", "in chunk 2?"):
        assert f">{header}<" in texts, header
    assert texts.count(">in chunk 1?<") == 2
    # a row per claim, named by its text (the response's Mach 9, the reference's Mach 6)
    assert ">2. The tests ran at Mach 9.<" in texts and ">2. The tests ran at Mach 6.<" in texts
    # the buttons say their verdict in words, and follow a click
    button = x.toggles["reference_claims_retrieved"][1][1]
    assert (button.description, button.tooltip) == (
        "no", "reference claim 2: The tests ran at Mach 6. / chunk 2")
    button.value = True
    assert button.description == "yes"


def test_the_lower_is_better_bars_are_marked():
    x = claim_diagnostics_explorer()
    ax = x.view.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    marked = [label for label in labels if label.endswith("\N{DOWNWARDS ARROW}")]
    assert marked == ["noise sens. (relevant) \N{DOWNWARDS ARROW}",
                      "noise sens. (irrelevant) \N{DOWNWARDS ARROW}",
                      "hallucination \N{DOWNWARDS ARROW}"]
    hatched = [n for n, bar in x.bars.items() if bar.get_hatch()]
    assert hatched == ["noise_sensitivity_in_relevant", "noise_sensitivity_in_irrelevant",
                       "hallucination"]
    assert "lower is better" in ax.get_title()
    assert "hallucination 0.33 (lower is better)" in x.view.alt_text
    assert "faithfulness 0.67 (lower" not in x.view.alt_text
