"""RAGChecker's claim diagnostics and ragas's noise sensitivity and entity recall: by hand,
by property, and their bad input.  (tests/crosscheck/test_ragchecker.py compares
claim_diagnostics with ragchecker's own code.)"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ragmetrics_edu as rm
from ragmetrics_edu.judge.diagnostics import (
    DIAGNOSTIC_GROUPS,
    DIAGNOSTIC_NAMES,
    ClaimDiagnostics,
    claim_diagnostics,
    context_entity_recall,
    mean_claim_diagnostics,
    noise_sensitivity,
)

# Notebook 15's worked example.  Reference: helium best (r1), Mach 6 (r2), four gases (r3).
# Chunk 1 states r1 and r3; chunk 2 (a shock tunnel at Mach 9) states none of them.
# Response: helium best (right, from chunk 1), Mach 9 (wrong, from chunk 2: noise),
# argon also tried (wrong, from nowhere: a hallucination).
WORKED = dict(response_claims_correct=[True, False, False],
              reference_claims_covered=[True, False, False],
              response_claims_supported=[[True, False], [False, True], [False, False]],
              reference_claims_retrieved=[[True, False], [False, False], [True, False]])


def test_the_worked_example_by_hand():
    d = claim_diagnostics(**WORKED)
    assert d.precision == pytest.approx(1 / 3)           # 1 of 3 response claims correct
    assert d.recall == pytest.approx(1 / 3)              # 1 of 3 reference claims stated
    assert d.f1 == pytest.approx(2 * (1 / 3) * (1 / 3) / (2 / 3))
    assert d.claim_recall == pytest.approx(2 / 3)        # r1 and r3 are in chunk 1
    assert d.context_precision == 0.5                    # chunk 1 relevant, chunk 2 not
    assert d.context_utilization == 0.5                  # of r1, r3 retrieved, r1 is stated
    assert d.noise_sensitivity_in_relevant == 0.0
    assert d.noise_sensitivity_in_irrelevant == pytest.approx(1 / 3)   # Mach 9 from chunk 2
    assert d.hallucination == pytest.approx(1 / 3)       # argon from nowhere
    assert d.self_knowledge == 0.0
    assert d.faithfulness == pytest.approx(2 / 3)
    assert (d.n_response_claims, d.n_reference_claims, d.n_chunks) == (3, 3, 2)


def test_a_relevant_chunk_moves_the_wrong_claim_from_irrelevant_to_relevant_noise():
    tables = dict(WORKED, reference_claims_retrieved=[[True, False], [False, True], [True, False]])
    d = claim_diagnostics(**tables)   # chunk 2 now states r2 (Mach 6): it is relevant
    assert d.context_precision == 1.0
    assert d.noise_sensitivity_in_relevant == pytest.approx(1 / 3)
    assert d.noise_sensitivity_in_irrelevant == 0.0
    assert d.claim_recall == 1.0


def test_a_claim_supported_by_both_kinds_of_chunk_counts_as_relevant_noise_only():
    d = claim_diagnostics(response_claims_correct=[False], reference_claims_covered=[True],
                          response_claims_supported=[[True, True]],
                          reference_claims_retrieved=[[True, False]])
    assert (d.noise_sensitivity_in_relevant, d.noise_sensitivity_in_irrelevant) == (1.0, 0.0)


def test_self_knowledge_is_a_correct_claim_no_chunk_supports():
    d = claim_diagnostics(response_claims_correct=[True, True], reference_claims_covered=[True],
                          response_claims_supported=[[True], [False]],
                          reference_claims_retrieved=[[True]])
    assert (d.self_knowledge, d.hallucination, d.faithfulness) == (0.5, 0.0, 0.5)


def test_printed_and_as_dict():
    d = claim_diagnostics(**WORKED)
    assert list(d.as_dict()) == list(DIAGNOSTIC_NAMES)
    assert sum(len(v) for v in DIAGNOSTIC_GROUPS.values()) == len(DIAGNOSTIC_NAMES) == 11
    text = str(d)
    assert "retriever" in text and "hallucination" in text and "0.3333  (lower is better)" in text
    with pytest.raises(TypeError):
        float(d)


# -- empty tables ------------------------------------------------------------------------


def test_empty_tables_score_zero_by_default_and_nan_on_request():
    none = dict(response_claims_correct=[], reference_claims_covered=[],
                response_claims_supported=[], reference_claims_retrieved=[])
    assert set(claim_diagnostics(**none).as_dict().values()) == {0.0}
    assert all(math.isnan(v) for v in claim_diagnostics(**none, empty_score=math.nan).as_dict().values())


def test_no_chunk_gives_ragcheckers_zero_hallucination_or_nan():
    tables = dict(response_claims_correct=[False, True], reference_claims_covered=[True],
                  response_claims_supported=[[], []], reference_claims_retrieved=[[]])
    d = claim_diagnostics(**tables)
    assert d.n_chunks == 0
    assert (d.hallucination, d.faithfulness, d.claim_recall) == (0.0, 0.0, 0.0)
    assert (d.precision, d.recall) == (0.5, 1.0)           # need no chunk
    n = claim_diagnostics(**tables, empty_score=math.nan)
    assert math.isnan(n.hallucination) and math.isnan(n.context_precision)
    assert n.precision == 0.5


def test_no_reference_claim_leaves_noise_sensitivity_undefined():
    tables = dict(response_claims_correct=[False], reference_claims_covered=[],
                  response_claims_supported=[[True, False]],
                  reference_claims_retrieved=np.zeros((0, 2), dtype=bool))
    d = claim_diagnostics(**tables)
    # the formula would call both chunks irrelevant (0/1 noise); RAGChecker's guard gives 0
    assert d.noise_sensitivity_in_irrelevant == 0.0 and d.faithfulness == 1.0
    assert math.isnan(claim_diagnostics(**tables, empty_score=math.nan).noise_sensitivity_in_irrelevant)


def test_nothing_retrieved_of_the_reference_leaves_utilization_empty():
    d = claim_diagnostics(response_claims_correct=[True], reference_claims_covered=[True, True],
                          response_claims_supported=[[False]],
                          reference_claims_retrieved=[[False], [False]], empty_score=math.nan)
    assert math.isnan(d.context_utilization) and d.claim_recall == 0.0


def test_f1_is_zero_when_one_side_is_zero_and_nan_spreads():
    d = claim_diagnostics(response_claims_correct=[False], reference_claims_covered=[True],
                          response_claims_supported=[[True]], reference_claims_retrieved=[[True]])
    assert (d.precision, d.recall, d.f1) == (0.0, 1.0, 0.0)
    n = claim_diagnostics(response_claims_correct=[], reference_claims_covered=[True],
                          response_claims_supported=[], reference_claims_retrieved=[[True]],
                          empty_score=math.nan)
    assert math.isnan(n.precision) and math.isnan(n.f1) and n.recall == 1.0


# -- properties ----------------------------------------------------------------------------


@st.composite
def tables(draw, min_size=0):
    n = draw(st.integers(min_size, 5))
    m = draw(st.integers(min_size, 5))
    k = draw(st.integers(min_size, 4))
    bools = st.booleans()
    return dict(
        response_claims_correct=draw(st.lists(bools, min_size=n, max_size=n)),
        reference_claims_covered=draw(st.lists(bools, min_size=m, max_size=m)),
        response_claims_supported=np.array(draw(st.lists(st.lists(bools, min_size=k, max_size=k),
                                                         min_size=n, max_size=n)),
                                           dtype=bool).reshape(n, k),
        reference_claims_retrieved=np.array(draw(st.lists(st.lists(bools, min_size=k, max_size=k),
                                                          min_size=m, max_size=m)),
                                            dtype=bool).reshape(m, k))


@settings(max_examples=300, deadline=None)
@given(tables(min_size=1))
def test_the_three_bins_of_a_wrong_claim_and_of_any_claim_add_up(t):
    d = claim_diagnostics(**t)
    assert d.noise_sensitivity_in_relevant + d.noise_sensitivity_in_irrelevant + d.hallucination \
        == pytest.approx(1 - d.precision)
    assert d.hallucination + d.self_knowledge + d.faithfulness == pytest.approx(1.0)
    for v in d.as_dict().values():
        assert 0.0 <= v <= 1.0


@settings(max_examples=300, deadline=None)
@given(tables(min_size=1))
def test_ragas_noise_sensitivity_is_ragcheckers_on_non_empty_tables(t):
    d = claim_diagnostics(**t)
    three = {k: t[k] for k in ("response_claims_correct", "response_claims_supported",
                               "reference_claims_retrieved")}
    assert noise_sensitivity(**three) == d.noise_sensitivity_in_relevant
    assert noise_sensitivity(**three, mode="irrelevant") == d.noise_sensitivity_in_irrelevant


@settings(max_examples=200, deadline=None)
@given(tables())
def test_lists_and_arrays_give_the_same_numbers(t):
    as_lists = {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in t.items()}
    if len(as_lists["response_claims_supported"]) and len(as_lists["reference_claims_retrieved"]):
        assert claim_diagnostics(**t) == claim_diagnostics(**as_lists)
    ints = {k: np.asarray(v, dtype=int) for k, v in t.items()}
    assert claim_diagnostics(**ints).as_dict() == claim_diagnostics(**t).as_dict()


@settings(max_examples=200, deadline=None)
@given(tables(min_size=1))
def test_a_chunk_that_supports_nothing_changes_no_generator_metric(t):
    d = claim_diagnostics(**t)
    n, m = len(t["response_claims_correct"]), len(t["reference_claims_covered"])
    wider = dict(t, response_claims_supported=np.hstack([t["response_claims_supported"],
                                                         np.zeros((n, 1), dtype=bool)]),
                 reference_claims_retrieved=np.hstack([t["reference_claims_retrieved"],
                                                       np.zeros((m, 1), dtype=bool)]))
    w = claim_diagnostics(**wider)
    for name in ("faithfulness", "hallucination", "self_knowledge", "noise_sensitivity_in_relevant",
                 "noise_sensitivity_in_irrelevant", "claim_recall", "context_utilization"):
        assert getattr(w, name) == getattr(d, name), name
    assert w.context_precision <= d.context_precision   # one more irrelevant chunk


def test_mean_over_answers_leaves_nan_out():
    a = claim_diagnostics(**WORKED)
    b = claim_diagnostics(response_claims_correct=[], reference_claims_covered=[True],
                          response_claims_supported=[], reference_claims_retrieved=[[True, True]],
                          empty_score=math.nan)
    m = mean_claim_diagnostics([a, b])
    assert m["precision"] == a.precision                  # b has none
    assert m["recall"] == pytest.approx((1 / 3 + 1.0) / 2)
    assert math.isnan(mean_claim_diagnostics([b])["hallucination"])
    with pytest.raises(ValueError, match="at least one"):
        mean_claim_diagnostics([])
    with pytest.raises(TypeError, match=r"results\[0\] must be a ClaimDiagnostics"):
        mean_claim_diagnostics([{"precision": 1.0}])


# -- bad input -----------------------------------------------------------------------------


def test_a_table_of_the_wrong_shape_names_the_argument_and_both_shapes():
    with pytest.raises(ValueError, match=r"response_claims_supported has shape \(2, 2\) but must "
                                         r"have shape \(3, n_chunks\).*response_claims_correct has 3"):
        claim_diagnostics(**dict(WORKED, response_claims_supported=[[1, 0], [0, 1]]))
    with pytest.raises(ValueError, match=r"response_claims_supported has shape \(3, 2\) and "
                                         r"reference_claims_retrieved has shape \(3, 3\)"):
        claim_diagnostics(**dict(WORKED, reference_claims_retrieved=[[1, 0, 0]] * 3))
    with pytest.raises(ValueError, match=r"reference_claims_retrieved has shape \(0, \.\.\.\).*"
                                         r"\(3, n_chunks\)"):
        claim_diagnostics(**dict(WORKED, reference_claims_retrieved=[]))
    with pytest.raises(ValueError, match="ragged: row 0 has 2 entries"):
        claim_diagnostics(**dict(WORKED, response_claims_supported=[[1, 0], [0], [0, 0]]))
    with pytest.raises(ValueError, match="must be two-dimensional"):
        claim_diagnostics(**dict(WORKED, response_claims_supported=np.zeros((3, 2, 1))))
    with pytest.raises(ValueError, match="must be one-dimensional"):
        claim_diagnostics(**dict(WORKED, response_claims_correct=np.zeros((3, 1), dtype=bool)))


@pytest.mark.parametrize("bad, says", [
    (math.nan, r"response_claims_correct\[1\] is NaN"),
    (2, r"response_claims_correct\[1\] must be a yes/no verdict.*got 2"),
    (0.5, r"got 0.5"),
    ("Entailment", r"got 'Entailment'"),
    (None, r"got None"),
])
def test_an_entry_that_is_not_a_verdict_is_named(bad, says):
    with pytest.raises(ValueError, match=says):
        claim_diagnostics(**dict(WORKED, response_claims_correct=[True, bad, False]))


def test_a_bad_cell_of_a_table_is_named_by_row_and_column():
    with pytest.raises(ValueError, match=r"reference_claims_retrieved\[2\]\[1\] is NaN"):
        claim_diagnostics(**dict(WORKED, reference_claims_retrieved=[[1, 0], [0, 0], [1, math.nan]]))


@pytest.mark.parametrize("bad", ["yes", 3, {"a": 1}])
def test_a_table_that_is_not_a_list_is_refused(bad):
    with pytest.raises(TypeError, match="response_claims_correct must be a list"):
        claim_diagnostics(**dict(WORKED, response_claims_correct=bad))


def test_the_tables_are_keyword_only_and_empty_score_a_number():
    with pytest.raises(TypeError):
        claim_diagnostics([1], [1], [[1]], [[1]])
    with pytest.raises(TypeError, match="empty_score must be a number"):
        claim_diagnostics(**WORKED, empty_score="nan")


def test_exported():
    assert rm.claim_diagnostics is claim_diagnostics
    assert isinstance(rm.claim_diagnostics(**WORKED), ClaimDiagnostics)


# -- ragas: noise sensitivity ---------------------------------------------------------------


def test_noise_sensitivity_by_hand_and_ragas_empty_cases():
    three = {k: WORKED[k] for k in ("response_claims_correct", "response_claims_supported",
                                    "reference_claims_retrieved")}
    assert noise_sensitivity(**three) == 0.0
    assert noise_sensitivity(**three, mode="irrelevant") == pytest.approx(1 / 3)
    assert math.isnan(noise_sensitivity(response_claims_correct=[], response_claims_supported=[],
                                        reference_claims_retrieved=[[True, False]]))
    with pytest.raises(ValueError, match="the reference has no claim"):
        noise_sensitivity(response_claims_correct=[False], response_claims_supported=[[True]],
                          reference_claims_retrieved=[])
    with pytest.raises(ValueError, match="no chunk was retrieved"):
        noise_sensitivity(response_claims_correct=[False], response_claims_supported=[[]],
                          reference_claims_retrieved=[[]])
    with pytest.raises(ValueError, match="mode"):
        noise_sensitivity(**three, mode="noise")


# -- ragas: context entity recall ---------------------------------------------------------


def test_context_entity_recall_by_hand_and_ragas_conventions():
    ref = ["helium", "Mach 6", "four gases"]
    ctx = ["helium", "porous plug", "Mach 6.0", "four gases"]
    assert context_entity_recall(ref, ctx) == pytest.approx(2 / 3)   # "Mach 6" != "Mach 6.0"
    # ragas adds 1e-8 to the denominator
    assert context_entity_recall(ref, ctx, epsilon=1e-8) == 2 / (3 + 1e-8)
    assert context_entity_recall(ref, ref, epsilon=1e-8) < 1.0
    # the legacy metric divides by the list as extracted, repeats included
    assert context_entity_recall(ref + ["helium"], ctx, count="listed") == 0.5
    assert context_entity_recall(ref + ["helium"], ctx) == pytest.approx(2 / 3)
    assert context_entity_recall([], ctx) == 0.0
    assert math.isnan(context_entity_recall([], ctx, empty_score=math.nan))
    assert context_entity_recall([], ctx, epsilon=1e-8) == 0.0


@pytest.mark.parametrize("kwargs, error, says", [
    (dict(reference_entities="helium", context_entities=[]), TypeError, "list of entity strings"),
    (dict(reference_entities=[1], context_entities=[]), TypeError, "must hold strings"),
    (dict(reference_entities=[], context_entities=[], count="set"), ValueError, "count"),
    (dict(reference_entities=[], context_entities=[], epsilon=-1), ValueError, "epsilon"),
])
def test_context_entity_recall_bad_input(kwargs, error, says):
    with pytest.raises(error, match=says):
        context_entity_recall(**kwargs)
