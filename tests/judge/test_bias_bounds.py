"""Padding is bounded (issue 34): pad_answer("x", 10**9) built a billion sentences."""
import pytest

from ragmetrics_edu.judge.bias import MAX_PADDING, pad_answer, verbosity_bias


@pytest.mark.parametrize("n", [1001, 10**9, 10**400])
def test_too_much_padding_is_refused(n):
    assert MAX_PADDING == 1000
    with pytest.raises(ValueError, match=r"n_sentences must be at most 1000 \(MAX_PADDING"):
        pad_answer("x", n)
    calls = []
    with pytest.raises(ValueError, match=r"n_sentences must be at most 1000"):
        verbosity_bias(lambda prompt: calls.append(prompt) or "1", [{"answer": "x"}],
                       n_sentences=n)
    assert calls == []


def test_the_bound_itself_pads():
    assert pad_answer("x", 1000).startswith("x")
