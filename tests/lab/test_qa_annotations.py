"""The nuggets and paraphrased twins of the Cranfield QA set, checked against the abstracts."""

import re

import pytest

import ragmetrics_edu as rm
from ragmetrics_edu.lab.qa_annotations import load_cranfield_nuggets, load_cranfield_paraphrases

STOP = set("a an the of in on at for to by what which how is are was were does do did with and or "
           "from as be it its that this whose when where who over under between into than up".split())


def _content_words(text):
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOP}


@pytest.fixture(scope="module")
def qa():
    return rm.load_cranfield_qa()


@pytest.fixture(scope="module")
def docs():
    return rm.load_cranfield().docs


def test_one_record_per_question(qa):
    nuggets = load_cranfield_nuggets()
    assert list(nuggets) == [item.id for item in qa]
    twins = load_cranfield_paraphrases()
    assert [t.id for t in twins] == [item.id for item in qa]
    for t, item in zip(twins, qa):
        assert (t.answers, t.doc_ids, t.evidence) == (item.answers, item.doc_ids, item.evidence)
        assert t.question != item.question and t.question.endswith("?")


def test_nuggets_shape(qa):
    for qid, nuggets in load_cranfield_nuggets().items():
        assert 2 <= len(nuggets) <= 5, qid
        assert any(n["importance"] == "vital" for n in nuggets), qid
        assert all(n["importance"] in ("vital", "okay") and n["text"].strip() for n in nuggets), qid
        # a nugget list scores as nuggetizer's records once assigned
        full = [dict(n, assignment="support") for n in nuggets]
        assert rm.nugget_scores(full) == dict.fromkeys(rm.judge.nuggets.NUGGET_SCORE_NAMES, 1.0)


def test_every_number_of_a_nugget_is_in_the_abstract(qa, docs):
    nuggets = load_cranfield_nuggets()
    for item in qa:
        text = " ".join(docs[d]["text"] for d in item.doc_ids)
        for n in nuggets[item.id]:
            for number in re.findall(r"\d[\d.,]*\d|\d", n["text"]):
                assert number in text, (item.id, n["text"], number)


def test_the_vital_nuggets_carry_the_reference_answer(qa):
    """Every number of the first reference answer appears in a vital nugget."""
    nuggets = load_cranfield_nuggets()
    for item in qa:
        vital = " ".join(n["text"] for n in nuggets[item.id] if n["importance"] == "vital")
        for number in re.findall(r"\d[\d.]*\d|\d", item.answers[0]):
            assert number in vital, (item.id, number)


def test_paraphrases_avoid_the_abstracts_words(qa, docs):
    """Each twin shares a smaller share of its content words with the supporting abstract."""
    twins = load_cranfield_paraphrases()
    shares = []
    for item, twin in zip(qa, twins):
        abstract = _content_words(docs[item.doc_ids[0]]["text"])
        before = len(_content_words(item.question) & abstract) / len(_content_words(item.question))
        after = len(_content_words(twin.question) & abstract) / len(_content_words(twin.question))
        assert after < before, (item.id, before, after)
        shares.append((before, after))
    assert sum(a for _, a in shares) / len(shares) < 0.5 < sum(b for b, _ in shares) / len(shares)


def test_copies():
    a = load_cranfield_nuggets()
    a["cqa-001"].clear()
    assert load_cranfield_nuggets()["cqa-001"]
