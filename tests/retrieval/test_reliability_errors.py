"""Clear errors that name the argument and the value (issue 23, "unclear errors")."""

import re

import pytest

from ragmetrics_edu import _validation
from ragmetrics_edu.retrieval.graded import cumulative_gain, dcg_at_k
from ragmetrics_edu.retrieval.incomplete import bpref
from ragmetrics_edu.retrieval.order_aware import average_precision
from ragmetrics_edu.retrieval.order_unaware import precision_at_k
from ragmetrics_edu.retrieval.trec import write_run

HUGE = 10**400


def message_of(call, kind=(ValueError, TypeError)):
    with pytest.raises(kind) as info:
        call()
    return str(info.value)


def test_a_grade_too_large_for_a_float():
    # before: OverflowError "int too large to convert to float"
    text = message_of(lambda: precision_at_k([1, HUGE], 1))
    assert "rels" in text and "10**400" in text and "rank 2" in text, text
    text = message_of(lambda: average_precision([HUGE], n_relevant=1))
    assert "rels" in text and "10**400" in text, text
    text = message_of(lambda: bpref([1, None, -HUGE], 1, n_nonrelevant=1))
    assert "rels" in text and "-10**400" in text and "rank 3" in text, text


def test_a_count_too_large():
    # before: OverflowError "int too large to convert to float"
    text = message_of(lambda: average_precision([1, 0, 1], n_relevant=HUGE))
    assert "n_relevant" in text and "10**400" in text and "2**63 - 1" in text, text
    # before: OverflowError "Python int too large to convert to C long"
    text = message_of(lambda: bpref([1, 0, None], HUGE, n_nonrelevant=1))
    assert "n_relevant" in text and "10**400" in text, text
    text = message_of(lambda: bpref([1, 0, None], 2, n_nonrelevant=HUGE))
    assert "n_nonrelevant" in text and "10**400" in text, text
    # the bound itself still works
    assert average_precision([1, 0, 1], n_relevant=2**63 - 1) > 0
    assert bpref([1, 0, 1], 2**63 - 1, n_nonrelevant=2**63 - 1) > 0


def test_cumulative_gain_overflow_is_said_as_dcg_says_it():
    # before: OverflowError "intermediate overflow in fsum"
    text = message_of(lambda: cumulative_gain([1e308, 1e308], 2), ValueError)
    assert text.startswith("CG overflows a float") and "1e+308" in text and "1.8e308" in text, text
    dcg_text = message_of(lambda: dcg_at_k([1e308, 1e308, 1e308], 3), ValueError)
    assert dcg_text.startswith("DCG overflows a float")
    assert cumulative_gain([1e308, 1e307], 2) == pytest.approx(1.1e308)


def test_write_run_score_too_large(tmp_path):
    path = tmp_path / "run.txt"
    # before: OverflowError "int too large to convert to float"
    text = message_of(lambda: write_run({"q": {"a": HUGE}}, path))
    assert "score" in text and "10**400" in text and "'a'" in text and "'q'" in text, text
    assert not path.exists()


@pytest.mark.parametrize("run, name", [
    ([("q", "d", 1.0)], "run"),
    ("q d 1.0", "run"),
    ({"q": ["d"]}, "query 'q'"),
    ({"q": [("d", 1.0)] * 100}, "query 'q'"),
    (None, "run"),
])
def test_write_run_wrong_shapes(tmp_path, run, name):
    # before: AttributeError "'list' object has no attribute 'items'"
    text = message_of(lambda: write_run(run, tmp_path / "run.txt"), TypeError)
    assert name in text and "dict" in text, text
    shown = re.search(r"got (.*)$", text).group(1)
    assert len(shown) <= 120, text  # the value, cut to 80 characters and a note of its length


def test_describe_cuts_a_value_to_80_characters():
    assert _validation.describe([1] * 100).endswith("(list of length 100)")
    assert len(_validation.describe("x" * 1000)) < 120
    assert _validation.describe(HUGE) == "an integer of about 10**400"
    assert _validation.describe({"q": 1}) == "{'q': 1}"
