"""Tests of reading and writing TREC qrels and run files."""

import math

import pytest

import ragmetrics_edu as rm
from ragmetrics_edu.trec import read_qrels, read_run, trec_order, write_run


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_read_qrels(tmp_path):
    path = _write(tmp_path, "qrels", "q1 0 d1 1\nq1 0 d2 0\n\nq2\t0\td7\t-1\nq2 0 d8 3\n")
    assert read_qrels(path) == {"q1": {"d1": 1, "d2": 0}, "q2": {"d7": -1, "d8": 3}}
    assert rm.read_qrels(str(path)) == read_qrels(path)  # str or Path


def test_read_run_ignores_the_rank_column(tmp_path):
    path = _write(tmp_path, "run", "q1 Q0 d1 1 0.5 sys\nq1 Q0 d2 1 2.25 sys\nq2 Q0 d1 7 -3 sys\n")
    run = read_run(path)
    assert run == {"q1": {"d1": 0.5, "d2": 2.25}, "q2": {"d1": -3.0}}
    # d2 has the higher score, so it is first whatever the rank column says
    assert rm.evaluate({"q1": {"d2": 1}}, run, ["mrr"]).mean["mrr"] == 1.0


@pytest.mark.parametrize(
    "text, line, match",
    [
        ("q1 0 d1 1\nq1 0 d2\n", 2, "4 fields"),
        ("q1 0 d1 1 extra\n", 1, "4 fields"),
        ("q1 0 d1 1\n\nq1 0 d2 high\n", 3, "grade must be an integer"),
        ("q1 0 d1 1.5\n", 1, "grade must be an integer"),
        ("q1 0 d1 1\nq2 0 d1 1\nq1 0 d1 0\n", 3, r"judged twice \(first on line 1\)"),
    ],
)
def test_malformed_qrels(tmp_path, text, line, match):
    path = _write(tmp_path, "bad_qrels", text)
    with pytest.raises(ValueError, match=match) as info:
        read_qrels(path)
    assert f"bad_qrels, line {line}:" in str(info.value)


@pytest.mark.parametrize(
    "text, line, match",
    [
        ("q1 Q0 d1 1 0.5\n", 1, "6 fields"),
        ("q1 Q0 d1 1 0.5 sys\nq1 Q0 d2 2 0.4 sys x\n", 2, "6 fields"),
        ("q1 Q0 d1 first 0.5 sys\n", 1, "rank must be an integer"),
        ("q1 Q0 d1 1 high sys\n", 1, "score must be a number"),
        ("q1 Q0 d1 1 nan sys\n", 1, r"'d1' of query 'q1' is NaN"),
        ("q1 Q0 d1 1 0.5 sys\nq1 Q0 d2 2 0.4 sys\nq1 Q0 d1 3 0.1 sys\n", 3,
         r"'d1' appears twice for query 'q1' \(first on line 1\)"),
    ],
)
def test_malformed_run(tmp_path, text, line, match):
    path = _write(tmp_path, "bad_run", text)
    with pytest.raises(ValueError, match=match) as info:
        read_run(path)
    assert f"bad_run, line {line}:" in str(info.value)


def test_same_document_in_two_queries_is_fine(tmp_path):
    path = _write(tmp_path, "run", "q1 Q0 d1 1 0.5 s\nq2 Q0 d1 1 0.5 s\n")
    assert read_run(path) == {"q1": {"d1": 0.5}, "q2": {"d1": 0.5}}


def test_trec_order():
    # by score, then larger id first: "9" > "10" > "1" as strings
    assert trec_order({"1": 1.0, "10": 1.0, "9": 1.0, "x": 5.0}) == ["x", "9", "10", "1"]
    assert trec_order({"a": 1.0 + 1e-12, "b": 1.0}) == ["b", "a"]  # a float32 tie
    assert trec_order({"a": -math.inf, "b": math.inf}) == ["b", "a"]
    assert trec_order({}) == []


def test_write_run_order_ranks_and_tag(tmp_path):
    path = tmp_path / "out.run"
    write_run({"q2": {"a": 0.5, "b": 0.5, "c": 3}, "q1": {"z": -1.0}}, path, tag="mine")
    assert path.read_text().splitlines() == [
        "q2 Q0 c 1 3.0 mine",
        "q2 Q0 b 2 0.5 mine",  # tie: b before a
        "q2 Q0 a 3 0.5 mine",
        "q1 Q0 z 1 -1.0 mine",
    ]


def test_write_then_read_gives_the_same_floats(tmp_path):
    run = {"q": {"a": 0.1 + 0.2, "b": 1e-300, "c": -7.0, "d": 1 / 3, "e": math.inf}}
    path = tmp_path / "round.run"
    write_run(run, path)
    assert read_run(path) == run
    assert path.read_text().split()[5] == "ragmetrics_edu"  # the default tag


def test_write_run_errors(tmp_path):
    path = tmp_path / "x"
    with pytest.raises(ValueError, match=r"NaN.*'d'.*'q'"):
        write_run({"q": {"d": math.nan}}, path)
    with pytest.raises(ValueError, match="tag must be non-empty and without whitespace"):
        write_run({"q": {"d": 1.0}}, path, tag="my run")
    with pytest.raises(ValueError, match="document ids must be non-empty"):
        write_run({"q": {"d 1": 1.0}}, path)
    with pytest.raises(ValueError, match="query ids must be non-empty"):
        write_run({"": {"d": 1.0}}, path)
    with pytest.raises(TypeError, match="document ids must be a string"):
        write_run({"q": {3: 1.0}}, path)
    with pytest.raises(TypeError, match="scores must be numbers"):
        write_run({"q": {"d": "1.0"}}, path)


def test_text_that_is_not_utf8_names_the_line(tmp_path):
    path = tmp_path / "run"
    path.write_bytes(b"q1 Q0 d1 1 0.5 sys\nq1 Q0 d\xe9 2 0.25 sys\n")  # latin-1 e-acute
    with pytest.raises(ValueError, match=r"run, line 2: not UTF-8 text .*b'\\xe9'"):
        read_run(path)


def test_a_byte_order_mark_is_skipped(tmp_path):
    # Windows editors save "UTF-8 with BOM"; the BOM is not part of the query id
    path = tmp_path / "qrels"
    path.write_bytes("q1 0 d1 1\nq2 0 d2 2\n".encode("utf-8-sig"))
    assert read_qrels(path) == {"q1": {"d1": 1}, "q2": {"d2": 2}}
