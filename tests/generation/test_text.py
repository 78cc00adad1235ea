"""Tokenizers of ragmetrics_edu.generation.text, checked against str.split and rouge-score."""

import functools
import random
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ragmetrics_edu as rm
from ragmetrics_edu.generation import text

rouge_tokenize_ref = pytest.importorskip("rouge_score.tokenize").tokenize
porter = pytest.importorskip("nltk.stem.porter")


def test_whitespace_keeps_case_and_punctuation():
    assert rm.whitespace_tokenize("  The Hunger\tGames.\n I ") == ["The", "Hunger", "Games.", "I"]


def test_whitespace_empty():
    assert rm.whitespace_tokenize("") == []
    assert rm.whitespace_tokenize(" \n\t ") == []


@pytest.mark.parametrize("bad", [None, ["a", "b"], 3])
def test_whitespace_refuses_non_strings(bad):
    with pytest.raises(TypeError, match="text must be a string"):
        rm.whitespace_tokenize(bad)


def test_rouge_tokenize_by_hand():
    # lowercase; "read." loses its dot; "Games5" is one token; "é" separates
    assert rm.rouge_tokenize("The Hunger Games5 is a great read. Café!") == [
        "the", "hunger", "games5", "is", "a", "great", "read", "caf"]


def test_rouge_tokenize_stem_only_long_tokens():
    # "ies" (3 letters) is left alone, "ponies" (> 3) is stemmed to "poni"
    assert rm.rouge_tokenize("ies ponies", stem=True) == ["ies", "poni"]


def test_rouge_tokenize_stemmed_is_named():
    assert text.rouge_tokenize_stemmed("Running cats") == ["run", "cat"]
    assert text.tokenizer_name(text.rouge_tokenize_stemmed) == "rouge+porter"


def test_porter_stem_modes_follow_nltk():
    for word in ["generously", "running", "caresses", "agreed", "dying", "hopping"]:
        for mode in text.PORTER_MODES:
            expected = porter.PorterStemmer(mode=mode).stem(word)
            assert text.porter_stem(word, mode=mode) == expected


def test_porter_stem_bad_mode():
    with pytest.raises(ValueError, match="mode must be one of"):
        text.porter_stem("running", mode="LANCASTER")


def test_missing_nltk_names_the_extra(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_nltk(name, *args, **kwargs):
        if name.startswith("nltk"):
            raise ImportError("No module named 'nltk'")
        return real_import(name, *args, **kwargs)

    text._porter_stem_function.cache_clear()
    monkeypatch.setattr(builtins, "__import__", no_nltk)
    try:
        with pytest.raises(ImportError, match=r"ragmetrics-edu\[stem\]"):
            text.porter_stem("running")
    finally:
        monkeypatch.undo()
        text._porter_stem_function.cache_clear()


def test_tokenizer_names():
    assert text.tokenizer_name(None) == "whitespace"
    assert text.tokenizer_name(str.split) == "split"
    assert text.tokenizer_name(functools.partial(rm.rouge_tokenize, stem=True)) == \
        "rouge_tokenize(stem=True)"


class _Stemmer:
    """rouge-score's own tokenizer calls stemmer.stem on tokens > 3 chars."""

    def __init__(self):
        self._s = porter.PorterStemmer()

    def stem(self, w):
        return self._s.stem(w)


_ALPHABET = string.ascii_letters + string.digits + " \t\n.,;:!?'\"-()éÉßİ0123456789_"


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=_ALPHABET, max_size=80))
def test_rouge_tokenize_equals_rouge_score(s):
    assert rm.rouge_tokenize(s) == rouge_tokenize_ref(s, None)


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=_ALPHABET, max_size=80))
def test_rouge_tokenize_stemmed_equals_rouge_score(s):
    assert rm.rouge_tokenize(s, stem=True) == rouge_tokenize_ref(s, _Stemmer())


def test_rouge_tokenize_real_words_stemmed():
    rng = random.Random(7)
    words = ("relational conditional generously running caresses ponies agreed "
             "happiness hopefully sensibility digitizer feudalism abilities "
             "The cats' meeting was adjourned, hoping FOR better results!").split()
    for _ in range(100):
        s = " ".join(rng.choice(words) for _ in range(rng.randint(0, 15)))
        assert rm.rouge_tokenize(s, stem=True) == rouge_tokenize_ref(s, _Stemmer())


# letters, ASCII and Unicode whitespace (str.split splits on all of them:
# no-break space, line separator, ideographic space, NEL, the \x1c-\x1f
# separators) and characters that look blank but are not whitespace (zero-width
# space and joiner): they stay inside a token
_BLANKS = " \t\n\r\x0b\x0c\xa0\u2028\u2029\u3000\x85\x1c\x1f\u200b\u200d"


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="abAB.," + _BLANKS, max_size=40),
       st.text(alphabet="abAB.," + _BLANKS, max_size=40))
def test_bleu_statistics_equal_sacrebleu_tokenize_none(s, r):
    """rm.bleu's default tokenization gives sacrebleu's tokenize="none" statistics.

    sacrebleu's NoneTokenizer returns the text unchanged; BLEU then splits it
    with ``str.split()``.  So the counts, the n-gram totals and both lengths
    must agree on any text, Unicode whitespace included.
    """
    from sacrebleu.metrics import BLEU

    theirs = BLEU(tokenize="none").sentence_score(s, [r])
    ours = rm.bleu(s, r)
    assert list(ours.counts) == list(theirs.counts), (s, r)
    assert list(ours.totals) == list(theirs.totals), (s, r)
    assert (ours.candidate_len, ours.reference_len) == (theirs.sys_len, theirs.ref_len)
    assert len(rm.whitespace_tokenize(s)) == theirs.sys_len


def test_blank_looking_characters_by_hand():
    # no-break space and line separator split; zero-width space does not
    assert rm.whitespace_tokenize("a\xa0b\u2028c\u200bd") == ["a", "b", "c\u200bd"]
