"""The Cranfield QA set: every answer checked against the abstracts it cites."""

import json
import re

import pytest

from ragmetrics_edu.lab.datasets import (
    QA_ANSWER_TYPES,
    QAItem,
    load_cranfield,
    load_cranfield_qa,
    qa_qrels,
    qa_queries,
)

_STOP = {"a", "an", "the", "of", "and", "or", "to", "in", "on", "at", "by", "for", "from", "it",
         "be", "is", "are", "as", "that", "than", "up", "its", "with", "about"}


def _words(text):
    """Numbers (with their decimal point or thousands comma) and words, lower case."""
    return re.findall(r"[0-9]+(?:[.,][0-9]+)*|[a-z]+", text.lower())


def _key_words(answer):
    """The words of an answer that carry its content: no stop word, no lone letter."""
    return [w for w in _words(answer) if w not in _STOP and (len(w) > 1 or w.isdigit())]


@pytest.fixture(scope="module")
def qa():
    return load_cranfield_qa()


@pytest.fixture(scope="module")
def cran():
    return load_cranfield(grades="raw")


def _abstract(cran, docid):
    return " ".join(cran.docs[docid]["text"].split())


def test_size_and_record_type(qa):
    assert len(qa) >= 50
    assert all(isinstance(item, QAItem) for item in qa)
    assert [item.id for item in qa] == [f"cqa-{i:03d}" for i in range(1, len(qa) + 1)]
    assert len({item.question for item in qa}) == len(qa)


def test_every_document_id_is_a_cranfield_document(qa, cran):
    for item in qa:
        assert item.doc_ids, item.id
        for d in item.doc_ids:
            assert d in cran.docs, (item.id, d)


def test_the_evidence_is_in_a_supporting_abstract(qa, cran):
    for item in qa:
        assert any(item.evidence in _abstract(cran, d) for d in item.doc_ids), item.id


def test_every_reference_answer_key_word_occurs_in_a_supporting_abstract(qa, cran):
    for item in qa:
        pooled = set()
        for d in item.doc_ids:
            pooled |= set(_words(cran.docs[d]["text"]))
        for answer in item.answers:
            words = _key_words(answer)
            assert words, (item.id, answer)
            missing = [w for w in words if w not in pooled]
            assert not missing, (item.id, answer, missing)


def test_the_first_answer_is_close_to_the_evidence(qa):
    """Extractable or nearly so: most key words of the first answer are in the evidence words."""
    for item in qa:
        words = _key_words(item.answers[0])
        evidence = set(_words(item.evidence))
        share = sum(w in evidence for w in words) / len(words)
        assert share >= 0.5, (item.id, item.answers[0], item.evidence)


def test_answers_are_short_and_questions_are_questions(qa):
    for item in qa:
        assert item.question.endswith("?"), item.id
        for answer in item.answers:
            assert 1 <= len(answer.split()) <= 20, (item.id, answer)
            assert answer == answer.strip()


def test_a_mix_of_qrels_relevant_and_unjudged_supporting_documents(qa, cran):
    with_query = [item for item in qa if item.cranfield_query is not None]
    without = [item for item in qa if item.cranfield_query is None]
    assert len(with_query) >= 20 and len(without) >= 10
    for item in with_query:
        codes = [cran.raw_qrels[item.cranfield_query].get(d) for d in item.doc_ids]
        assert any(code in (1, 2, 3, 4) for code in codes), item.id
    for item in without:
        for d in item.doc_ids:
            relevant_to = [q for q, judged in cran.raw_qrels.items() if judged.get(d) in (1, 2, 3, 4)]
            assert not relevant_to, (item.id, d, relevant_to)


def test_a_mix_of_answer_types(qa):
    kinds = {item.answer_type for item in qa}
    assert kinds == set(QA_ANSWER_TYPES)
    assert sum(item.answer_type == "number" for item in qa) < len(qa) * 0.7


def test_queries_and_qrels(qa):
    queries, qrels = qa_queries(qa), qa_qrels(qa)
    assert list(queries) == list(qrels) == [item.id for item in qa]
    assert qrels["cqa-001"] == {"1296": 1}
    assert all(set(qrels[item.id]) == set(item.doc_ids) for item in qa)


def test_the_shipped_file_round_trips(qa, tmp_path):
    path = tmp_path / "copy.jsonl"
    with path.open("w", encoding="utf-8") as f:
        for item in qa:
            f.write(json.dumps({"id": item.id, "question": item.question,
                                "answers": list(item.answers), "doc_ids": list(item.doc_ids),
                                "evidence": item.evidence, "answer_type": item.answer_type,
                                "cranfield_query": item.cranfield_query}) + "\n")
    assert load_cranfield_qa(path) == qa


# ----------------------------------------------------------------- bad files

GOOD = {"id": "x-1", "question": "What?", "answers": ["a thing"], "doc_ids": ["12"],
        "evidence": "a thing", "answer_type": "named", "cranfield_query": None}


def _write(tmp_path, records):
    path = tmp_path / "qa.jsonl"
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("change, match", [
    ({"doc_ids": ["1401"]}, r"line 2: doc_ids must be Cranfield document ids '1' to '1400'.*'1401'"),
    ({"doc_ids": ["012"]}, r"line 2: doc_ids must be .*no leading zeros.*'012'"),
    ({"doc_ids": []}, r"line 2: 'doc_ids' must be a non-empty list"),
    ({"answers": []}, r"line 2: 'answers' must be a non-empty list"),
    ({"answers": ["ok", "  "]}, r"line 2: 'answers' must be a non-empty string"),
    ({"answers": "a thing"}, r"line 2: 'answers' must be a non-empty list"),
    ({"answers": ["a", "a"]}, r"line 2: 'answers' must not repeat"),
    ({"answer_type": "fact"}, r"line 2: 'answer_type' must be one of"),
    ({"cranfield_query": "226"}, r"line 2: 'cranfield_query' must be null or a query id"),
    ({"cranfield_query": 5}, r"line 2: 'cranfield_query' must be null or a query id"),
    ({"question": ""}, r"line 2: 'question' must be a non-empty string"),
    ({"extra": 1}, r"line 2: unknown field\(s\) \['extra'\]"),
])
def test_bad_records_name_the_file_and_line(tmp_path, change, match):
    second = dict(GOOD, id="x-2", **change)
    path = _write(tmp_path, [GOOD, second])
    with pytest.raises(ValueError, match=match) as info:
        load_cranfield_qa(path)
    assert str(path) in str(info.value)


def test_bad_files(tmp_path):
    missing = dict(GOOD)
    del missing["evidence"]
    with pytest.raises(ValueError, match=r"line 1: missing field\(s\) \['evidence'\]"):
        load_cranfield_qa(_write(tmp_path, [missing]))
    with pytest.raises(ValueError, match=r"line 3: not JSON"):
        load_cranfield_qa(_write(tmp_path, [GOOD, "", "{oops"]))
    with pytest.raises(ValueError, match=r"line 2: id 'x-1' appears twice \(first on line 1\)"):
        load_cranfield_qa(_write(tmp_path, [GOOD, GOOD]))
    with pytest.raises(ValueError, match=r"line 1: expected a JSON object"):
        load_cranfield_qa(_write(tmp_path, ["[1, 2]"]))
    with pytest.raises(ValueError, match="no question"):
        load_cranfield_qa(_write(tmp_path, [""]))
    with pytest.raises(FileNotFoundError, match="QA file not found"):
        load_cranfield_qa(tmp_path / "absent.jsonl")
