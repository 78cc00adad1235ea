"""Exact match and token F1 (ragmetrics_edu.generation.qa) against SQuAD's rules.

The reference implementation is torchmetrics' ``SQuAD`` (SQuAD v1.1's
normalization and F1, with v2's rule for empty answers), run here in
float64 so that the comparison can be to 1e-12.  The official v1.1 and v2
scripts' own empty-answer rules are checked on hand-computed cases.
"""

import random
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ragmetrics_edu as rm
from ragmetrics_edu.generation import qa

torch = pytest.importorskip("torch")
tm_squad = pytest.importorskip("torchmetrics.functional.text.squad")


# ---------------------------------------------------------------------------
# torchmetrics, one question at a time and a corpus
# ---------------------------------------------------------------------------

@pytest.fixture(autouse=True, scope="module")
def _float64():
    """torchmetrics builds its tensors with the default dtype: make it float64."""
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(old)


def squad_tm(predictions, references):
    """torchmetrics' SQuAD on our layout; returns (EM, F1) on the 0-1 scale."""
    preds = [{"prediction_text": p, "id": str(i)} for i, p in enumerate(predictions)]
    target = [{"answers": {"answer_start": [0] * len(refs), "text": list(refs)}, "id": str(i)}
              for i, refs in enumerate(references)]
    out = tm_squad.squad(preds, target)
    return float(out["exact_match"]) / 100, float(out["f1"]) / 100


# pieces that exercise every step of the normalization
WORDS = ["the", "The", "THE", "a", "A", "an", "An", "cat", "Cat", "cats", "dog", "Paris",
         "paris", "1990", "U.S.", "state-of-the-art", "théâtre", "the.", "(a)", "an't",
         "Denver", "Broncos", "Broncos!", "x", "42%", "«cat»", "it’s", "ANother", "then"]
SEPARATORS = [" ", "  ", "\t", "\n", "\xa0", "", ", ", "-", "."]


def random_answer(rng, max_words=6):
    n = rng.randint(0, max_words)
    parts = []
    for _ in range(n):
        parts.append(rng.choice(WORDS))
        parts.append(rng.choice(SEPARATORS))
    if rng.random() < 0.1:
        parts.append(rng.choice(string.punctuation))
    return "".join(parts)


def random_question(rng):
    pred = random_answer(rng)
    n_refs = rng.randint(1, 3)
    refs = [random_answer(rng, max_words=4) for _ in range(n_refs)]
    if rng.random() < 0.3:            # a reference close to the prediction
        refs[0] = pred.upper() + rng.choice(["", ".", " the"])
    return pred, refs


def test_equals_torchmetrics_per_question_on_random_answers():
    rng = random.Random(13)
    for _ in range(400):
        pred, refs = random_question(rng)
        em_tm, f1_tm = squad_tm([pred], [refs])
        assert rm.exact_match(pred, refs) == em_tm, (pred, refs)
        assert rm.token_f1(pred, refs) == pytest.approx(f1_tm, abs=1e-12), (pred, refs)


def test_corpus_means_equal_torchmetrics_on_random_answers():
    rng = random.Random(2016)
    questions = [random_question(rng) for _ in range(300)]
    preds = [p for p, _ in questions]
    refs = [r for _, r in questions]
    em_tm, f1_tm = squad_tm(preds, refs)
    assert rm.corpus_exact_match(preds, refs) == pytest.approx(em_tm, abs=1e-12)
    assert rm.corpus_token_f1(preds, refs) == pytest.approx(f1_tm, abs=1e-12)
    # the draws must reach every branch: empty answers, partial and no overlap
    f1s = [rm.token_f1(p, r) for p, r in questions]
    assert any(f == 1.0 for f in f1s) and any(f == 0.0 for f in f1s)
    assert any(0 < f < 1 for f in f1s)
    assert any(not qa.normalize_answer(p) for p in preds)


# Answers in the style of SQuAD v1.1's dev set (questions and answers written
# by us, with the variety of the real ones: articles, case, punctuation, numbers).
REAL = [
    ("Denver Broncos", ["Denver Broncos", "Denver Broncos", "Denver Broncos"]),
    ("the Carolina Panthers", ["Carolina Panthers", "Carolina Panthers"]),
    ("Santa Clara, California", ["Santa Clara, California", "Levi's Stadium",
                                 "Levi's Stadium in the San Francisco Bay Area at Santa Clara"]),
    ("February 7, 2016", ["February 7, 2016", "February 7", "2016"]),
    ("gold", ["golden anniversary", "gold-themed", "\"golden anniversary\""]),
    ("Levi's Stadium.", ["Levi's Stadium", "Levi's Stadium in the San Francisco Bay Area"]),
    ("24–10", ["24–10", "24–10", "24–10"]),
    ("Von Miller", ["Von Miller", "Von Miller", "Miller"]),
    ("an estimated 111.9 million", ["111.9 million", "111.9 million viewers"]),
    ("CBS", ["CBS", "CBS", "CBS"]),
    ("$5 million", ["$5 million", "$5 million"]),
    ("Coldplay with Beyoncé and Bruno Mars", ["Coldplay", "Coldplay", "Coldplay"]),
    ("the third", ["third", "third", "third-most"]),
    ("Peyton Manning's", ["Peyton Manning", "Manning"]),
    ("", ["Kubiak"]),
    ("1967", ["the 1967 season"]),
]


def test_equals_torchmetrics_on_real_style_answers():
    for pred, refs in REAL:
        em_tm, f1_tm = squad_tm([pred], [refs])
        assert rm.exact_match(pred, refs) == em_tm
        assert rm.token_f1(pred, refs) == pytest.approx(f1_tm, abs=1e-12)
    em_tm, f1_tm = squad_tm([p for p, _ in REAL], [r for _, r in REAL])
    assert rm.corpus_exact_match([p for p, _ in REAL], [r for _, r in REAL]) == \
        pytest.approx(em_tm, abs=1e-12)
    assert rm.corpus_token_f1([p for p, _ in REAL], [r for _, r in REAL]) == \
        pytest.approx(f1_tm, abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=" .,'-aAnNtThHeEc\xa0", max_size=15),
       st.lists(st.text(alphabet=" .,'-aAnNtThHeEc\xa0", max_size=15), min_size=1, max_size=3))
def test_equals_torchmetrics_on_article_punctuation_soup(pred, refs):
    em_tm, f1_tm = squad_tm([pred], [refs])
    assert rm.exact_match(pred, refs) == em_tm
    assert rm.token_f1(pred, refs) == pytest.approx(f1_tm, abs=1e-12)


# ---------------------------------------------------------------------------
# hand-computed cases
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("The Eiffel Tower", "eiffel tower"),
    ("  a  cat\tAND\nan  owl ", "cat and owl"),
    ("U.S.A.", "usa"),                       # punctuation is deleted, not spaced
    ("state-of-the-art", "stateoftheart"),   # so "the" is no longer a word
    ("the.", ""),                            # punctuation first, then the article
    ("theatre then another", "theatre then another"),
    ("«le» it’s", "«le» it’s"),              # non-ASCII punctuation stays
    ("", ""),
])
def test_normalize_answer_by_hand(text, expected):
    assert rm.normalize_answer(text) == expected


@pytest.mark.parametrize("pred, refs, em, f1", [
    ("Eiffel Tower", ["eiffel tower"], 1.0, 1.0),
    # eiffel tower in paris vs eiffel tower: P = 2/4, R = 1, F1 = 2/3
    ("the Eiffel Tower in Paris", ["Eiffel Tower"], 0.0, 2 / 3),
    # order is ignored
    ("Tower Eiffel", ["Eiffel Tower"], 0.0, 1.0),
    # multiplicity: cat cat vs cat: 1 shared, P = 1/2, R = 1, F1 = 2/3
    ("cat cat", ["cat"], 0.0, 2 / 3),
    # cat dog bird vs dog bird fish fox: 2 shared, P = 2/3, R = 2/4, F1 = 4/7
    ("cat dog bird", ["dog bird fish fox"], 0.0, 4 / 7),
    # the maximum over references, each taken separately
    ("cat dog bird", ["dog bird fish fox", "bird", "cat dog"], 0.0, 0.8),
    ("blue", ["red", "Blue!"], 1.0, 1.0),
    ("blue", ["red"], 0.0, 0.0),
])
def test_scores_by_hand(pred, refs, em, f1):
    assert rm.exact_match(pred, refs) == em
    assert rm.token_f1(pred, refs) == pytest.approx(f1, abs=1e-15)
    for convention in qa.CONVENTIONS:     # no empty answer: the three agree
        assert rm.exact_match(pred, refs, convention=convention) == em
        assert rm.token_f1(pred, refs, convention=convention) == pytest.approx(f1, abs=1e-15)


@pytest.mark.parametrize("pred, refs, expected", [
    # (EM, F1) under "squad", "squad-v1.1", "squad-v2"
    ("", ["Paris"], [(0, 0), (0, 0), (0, 0)]),
    ("Paris", [""], [(0, 0), (0, 0), (0, 0)]),
    ("", [""], [(1, 1), (1, 0), (1, 1)]),
    ("The", ["a"], [(1, 1), (1, 0), (1, 1)]),        # both normalize to ""
    # v2 drops the empty reference before taking the maximum
    ("", ["the", "Paris"], [(1, 1), (1, 0), (0, 0)]),
    ("Paris", ["", "Paris"], [(1, 1), (1, 1), (1, 1)]),
])
def test_empty_answer_conventions_by_hand(pred, refs, expected):
    for convention, (em, f1) in zip(["squad", "squad-v1.1", "squad-v2"], expected):
        assert rm.exact_match(pred, refs, convention=convention) == em, convention
        assert rm.token_f1(pred, refs, convention=convention) == f1, convention


def test_a_string_is_one_reference():
    assert rm.token_f1("cat dog", "dog") == rm.token_f1("cat dog", ["dog"])
    assert rm.corpus_exact_match(["a cat", "dog"], ["cat", ["bird", "Dog."]]) == 1.0


# ---------------------------------------------------------------------------
# properties
# ---------------------------------------------------------------------------

ANSWERS = st.text(alphabet="abc ATHE.,", max_size=12)


@settings(max_examples=150, deadline=None)
@given(ANSWERS, st.lists(ANSWERS, min_size=1, max_size=3))
def test_properties(pred, refs):
    f1 = rm.token_f1(pred, refs)
    em = rm.exact_match(pred, refs)
    assert 0.0 <= f1 <= 1.0 and em in (0.0, 1.0)
    # an exact match is a perfect F1 (under the default rule for empty answers)
    if em == 1.0:
        assert f1 == 1.0
    # the maximum over references
    assert f1 == max(rm.token_f1(pred, [r]) for r in refs)
    # F1 is symmetric in prediction and reference
    assert rm.token_f1(refs[0], [pred]) == pytest.approx(rm.token_f1(pred, [refs[0]]), abs=1e-15)
    # v1.1 differs from the default only where an answer is empty
    f1_v11 = rm.token_f1(pred, refs, convention="squad-v1.1")
    if qa.normalize_answer(pred) and all(qa.normalize_answer(r) for r in refs):
        assert f1_v11 == f1


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------

def test_bad_input_names_the_argument():
    with pytest.raises(TypeError, match="candidate must be a string"):
        rm.exact_match(["Paris"], ["Paris"])
    with pytest.raises(TypeError, match="candidate must be a string"):
        rm.token_f1(None, ["Paris"])
    with pytest.raises(ValueError, match=r"references must hold at least one.*\[''\]"):
        rm.token_f1("Paris", [])
    with pytest.raises(TypeError, match="nested one level too deep"):
        rm.exact_match("Paris", [["Paris"]])
    with pytest.raises(TypeError, match="references must be a string or a list"):
        rm.exact_match("Paris", {"Paris"})
    with pytest.raises(ValueError, match="convention must be one of.*'squad-v3'"):
        rm.token_f1("Paris", "Paris", convention="squad-v3")
    with pytest.raises(ValueError, match="candidates must hold at least one"):
        rm.corpus_token_f1([], [])
    with pytest.raises(ValueError, match="got 1 for 2 candidates"):
        rm.corpus_exact_match(["a", "b"], [["a", "b"]])
    with pytest.raises(TypeError, match="candidates must be a list"):
        rm.corpus_exact_match("Paris", ["Paris"])
    with pytest.raises(TypeError, match=r"candidates\[1\] must be a string"):
        rm.corpus_token_f1(["a", 3], ["a", "b"])
    with pytest.raises(TypeError, match=r"references\[0\]\[0\] must be a string, got list"):
        rm.corpus_token_f1(["a"], [[["a"]]])
    with pytest.raises(ValueError, match=r"references\[1\] must hold at least one"):
        rm.corpus_exact_match(["a", "b"], [["a"], []])
