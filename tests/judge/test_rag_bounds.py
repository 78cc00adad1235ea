"""judged_answer_relevancy bounds its judge calls (issue 34): n_questions was bounded only by
2**63 (10**9 sequential calls)."""
import numpy as np
import pytest

from ragmetrics_edu.judge.rag import MAX_QUESTIONS, judged_answer_relevancy


@pytest.mark.parametrize("n", [1001, 10**9])
def test_too_many_questions_are_refused_before_any_call(n):
    assert MAX_QUESTIONS == 1000
    calls = []
    with pytest.raises(ValueError, match=r"n_questions must be at most 1000 \(MAX_QUESTIONS"):
        judged_answer_relevancy(lambda p: calls.append(p) or "What is lift?", "What is lift?",
                                "Lift is a force.", n_questions=n, embed=lambda t: np.ones(3))
    assert calls == []
