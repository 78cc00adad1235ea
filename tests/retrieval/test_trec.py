"""Tests of reading and writing TREC qrels and run files."""

import math

import numpy as np

import pytest

import ragmetrics_edu as rm
from ragmetrics_edu.retrieval.trec import read_qrels, read_run, trec_order, write_run


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
    assert rm.evaluate({"q1": {"d2": 1}}, run, metrics=["mrr"]).mean["mrr"] == 1.0


@pytest.mark.parametrize(
    "text, line, match",
    [
        ("q1 0 d1 1\nq1 0 d2\n", 2, "4 fields"),
        ("q1 0 d1 1 extra\n", 1, "4 fields"),
        ("q1 0 d1 1\n\nq1 0 d2 high\n", 3, "grade must be an integer"),
        ("q1 0 d1 1.5\n", 1, "grade must be an integer"),
        ("q1 0 d1 1\n# a comment\n  # not one in a qrels file\n", 3, "4 fields"),
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
        ("q1 Q0 d1 1 0.5 sys\nq1 Q0 d2 2 0.4\n", 2, "at least 6 fields"),
        ("q1 Q0 d1 first 0.5 sys\n", 1, "rank must be an integer"),
        ("q1 Q0 d1 1 high sys\n", 1, "score .* must be a number"),
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
    with pytest.raises(ValueError, match="tag must be non-empty, without whitespace"):
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


# ------------------------------------------------ the fast and the readable reader

from ragmetrics_edu.retrieval.trec import read_qrels_slowly, read_run_slowly  # noqa: E402


def _both_qrels(path):
    """read_qrels, checked equal (keys in order too) to the line-by-line reader."""
    fast, slow = read_qrels(path), read_qrels_slowly(path)
    assert fast == slow and list(fast) == list(slow)
    assert all(list(fast[q]) == list(slow[q]) for q in fast)
    return fast


def _both_run(path):
    fast, slow = read_run(path), read_run_slowly(path)
    assert fast == slow and list(fast) == list(slow)
    assert all(list(fast[q]) == list(slow[q]) for q in fast)
    return fast


def test_fast_reader_equals_the_readable_one_on_a_large_random_file(tmp_path, monkeypatch):
    # small blocks, so that lines and queries straddle block boundaries
    from ragmetrics_edu.retrieval.batch import _columns

    monkeypatch.setattr(_columns, "BLOCK", 1000)
    rng = np.random.default_rng(5)
    lines, qrels_lines = [], []
    for q in rng.permutation(300):
        docs = rng.choice(10_000, size=int(rng.integers(1, 30)), replace=False)
        for r, d in enumerate(docs, start=1):
            score = rng.choice([f"{rng.random():.3f}", f"{rng.normal():.6e}", "7", "-2."])
            sep = rng.choice([" ", "\t", "  \t"])
            lines.append(sep.join([f"q{q}", "Q0", f"d{d}", str(r), score, "sys"]) + "\n")
        for d in docs[: len(docs) // 2]:
            qrels_lines.append(f"q{q} 0 d{d} {rng.integers(-1, 4)}\n")
    rng.shuffle(lines[:200])  # one query's lines need not be together
    run_path = tmp_path / "run"
    run_path.write_text("".join(lines))
    qrels_path = tmp_path / "qrels"
    qrels_path.write_text("".join(qrels_lines))
    run = _both_run(run_path)
    assert sum(map(len, run.values())) == len(lines)
    # an independent reading: plain str.split and float
    for line in lines[:50]:
        qid, _, docid, _, score, _ = line.split()
        assert run[qid][docid] == float(score)
    qrels = _both_qrels(qrels_path)
    assert sum(map(len, qrels.values())) == len(qrels_lines)


# ---------------------------------------------------- trec_eval 10.0's leniency

def test_comments_and_extra_columns_as_trec_eval_10_reads_them(tmp_path):
    # shaped like trec_eval's test/qrels.test.with-comments: comment lines
    # between judgements, and a "#" inside a document id that is no comment
    qrels = tmp_path / "qrels"
    qrels.write_text("# comment here\n301 0 A-1 0\n301 0 A-2 1\n# and comment here\n"
                     "301 0 A-3 1\n# comment in docno\n301 0 A#4 2\n")
    assert _both_qrels(qrels) == {"301": {"A-1": 0, "A-2": 1, "A-3": 1, "A#4": 2}}
    # shaped like trec_eval's test/results.trunc: junk after the run tag, and
    # padding before the score
    run = tmp_path / "run"
    run.write_text("301\tQ0\tFB-1\t99\t  2.13\tSTD more junk at\n"
                   "  # an indented comment\n"
                   "303\tQ0\tFT-2\t99\t  1.85\tSTD end of lines.\n"
                   "301\tQ0\tFB-3\t98\t  2.25\tSTD\n")
    assert _both_run(run) == {"301": {"FB-1": 2.13, "FB-3": 2.25}, "303": {"FT-2": 1.85}}


# ------------------------------------------------- C's number grammar, exactly

@pytest.mark.parametrize("grade, value", [
    ("3", 3), ("+2", 2), ("-1", -1), ("007", 7), (str(2**63 - 1), 2**63 - 1),
    (str(-2**63), -2**63), ("0" * 5000 + "1", 1),
])
def test_grades_atol_reads_whole(tmp_path, grade, value):
    path = _write(tmp_path, "qrels", f"q1 0 d1 {grade}\n")
    assert _both_qrels(path) == {"q1": {"d1": value}}


@pytest.mark.parametrize("grade, match", [
    ("1_0", "must be an integer"),  # int() reads 10; atol reads 1
    ("\u0663", "must be an integer"),  # Arabic-Indic 3: int() reads 3; atol 0
    ("1.5", "must be an integer"), ("+", "must be an integer"), ("--1", "must be an integer"),
    ("0x10", "must be an integer"),
    (str(2**63), "fit in a 64-bit integer"),
    (str(10**400), r"fit in a 64-bit integer.*\(401 digits\)"),
    ("9" * 5000, r"fit in a 64-bit integer.*\(5000 digits\)"),
])
def test_grades_atol_would_read_differently_are_refused(tmp_path, grade, match):
    path = _write(tmp_path, "qrels", f"q1 0 d1 1\nq1 0 d2 {grade}\n")
    with pytest.raises(ValueError, match=match) as info:
        read_qrels(path)
    message = str(info.value)
    assert "qrels, line 2: the grade" in message
    # never the whole 5,000 digits (the file's path, whose length varies, aside)
    assert len(message.replace(str(path), "")) < 400


@pytest.mark.parametrize("score, value", [
    ("0.5", 0.5), ("-.5", -0.5), ("7.", 7.0), ("+1e3", 1000.0), ("2E-2", 0.02),
    ("1e999", math.inf), ("-inf", -math.inf), ("Infinity", math.inf), ("INF", math.inf),
    ("0x1.8p1", 3.0), ("0X10", 16.0), ("1" * 400, float("1" * 400)),
])
def test_scores_strtod_reads_whole(tmp_path, score, value):
    path = _write(tmp_path, "run", f"q1 Q0 d1 1 {score} s\n")
    assert _both_run(path) == {"q1": {"d1": value}}


@pytest.mark.parametrize("score, match", [
    ("1_0", "must be a number"),  # float() reads 10; strtod 1
    ("\u0663", "must be a number"),  # float() reads 3; strtod 0
    ("0.5abc", "must be a number"), ("1e", "must be a number"), (".", "must be a number"),
    ("1,5", "must be a number"), ("infinit", "must be a number"), ("0x", "must be a number"),
    ("nan", "is NaN"), ("-NaN(123)", "is NaN"),
])
def test_scores_strtod_would_read_differently_are_refused(tmp_path, score, match):
    path = _write(tmp_path, "run", f"q1 Q0 d0 1 1 s\nq1 Q0 d1 1 {score} s\n")
    with pytest.raises(ValueError, match=match) as info:
        read_run(path)
    assert "run, line 2: the score of document 'd1' of query 'q1'" in str(info.value)


@pytest.mark.parametrize("rank", ["1_0", "\u0663", "1.0", "+"])
def test_ranks_must_be_plain_integers(tmp_path, rank):
    path = _write(tmp_path, "run", f"q1 Q0 d1 {rank} 1 s\n")
    with pytest.raises(ValueError, match=r"run, line 1: the rank must be an integer"):
        read_run(path)


def test_ranks_of_any_length_are_fine(tmp_path):
    path = _write(tmp_path, "run", f"q1 Q0 d1 {'9' * 5000} 1 s\n")
    assert _both_run(path) == {"q1": {"d1": 1.0}}


def test_fields_split_on_c_whitespace_only(tmp_path):
    # \v, \f and \r separate fields as in trec_eval; a no-break space does not
    path = tmp_path / "run"
    path.write_bytes("q1\vQ0\fd\u00a0x 1\r0.5 s\r\n".encode())
    assert _both_run(path) == {"q1": {"d\u00a0x": 0.5}}


def test_a_nul_byte_is_refused(tmp_path):
    path = tmp_path / "run"
    path.write_bytes(b"q1 Q0 d1 1 0.5 s\nq1 Q0 d\x002 2 0.5 s\n")
    with pytest.raises(ValueError, match="run, line 2: a NUL byte"):
        read_run(path)


# ------------------------------------------------------------- error messages

def test_a_long_line_is_quoted_in_part(tmp_path):
    # lone "\r" line ends: trec_eval (and we) read the file as one line
    path = tmp_path / "qrels"
    path.write_bytes(b"q1 0 d1 1\r" * 100_000)
    with pytest.raises(ValueError) as info:
        read_qrels(path)
    message = str(info.value)
    assert "qrels, line 1: a qrels line must have 4 fields" in message
    assert len(message) < 500 and "(999,999 characters)" in message  # the last \r ends it


def test_ids_in_messages_are_escaped(tmp_path):
    path = tmp_path / "qrels"
    path.write_bytes("q\x1b[31m 0 \ufeffd 1\nq\x1b[31m 0 \ufeffd 2\n".encode())
    with pytest.raises(ValueError) as info:
        read_qrels(path)
    message = str(info.value)
    assert "\x1b" not in message and "\ufeff" not in message
    assert r"'\ufeffd'" in message and r"'q\x1b[31m'" in message


# ------------------------------------------------------------------ write_run

def test_write_run_failure_leaves_the_old_file(tmp_path):
    path = tmp_path / "run"
    path.write_text("old contents\n")
    run = {"q1": {f"d{i}": float(i) for i in range(1000)}}
    run["q1"]["b\ud800"] = 0.5  # a lone surrogate: UTF-8 cannot encode it
    with pytest.raises(ValueError, match=r"document ids must be text that UTF-8 can encode, "
                                         r"got 'b\\ud800'.*\(document 'b\\ud800' of query 'q1'\)"):
        write_run(run, path)
    assert path.read_text() == "old contents\n"
    assert [p.name for p in tmp_path.iterdir()] == ["run"]  # no temporary file left


def test_write_run_replaces_and_keeps_permissions(tmp_path):
    path = tmp_path / "run"
    path.write_text("old\n")
    path.chmod(0o640)
    write_run({"q1": {"d1": 1.0}}, path)
    assert path.read_text() == "q1 Q0 d1 1 1.0 ragmetrics_edu\n"
    assert path.stat().st_mode & 0o777 == 0o640


def test_write_run_refuses_what_would_not_read_back(tmp_path):
    path = tmp_path / "run"
    with pytest.raises(ValueError, match="must not start with '#'"):
        write_run({"#q": {"d": 1.0}}, path)
    with pytest.raises(ValueError, match="NUL"):
        write_run({"q": {"d\0": 1.0}}, path)
    assert not path.exists()


def test_a_first_id_starting_with_a_byte_order_mark_round_trips(tmp_path):
    run = {"\ufeffq1": {"\ufeffd": 1.0}, "q2": {"d": 2.0}}
    path = tmp_path / "run"
    write_run(run, path)
    assert _both_run(path) == run
