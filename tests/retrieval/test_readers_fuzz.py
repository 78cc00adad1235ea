"""Fuzzing the TREC readers: only the documented errors, the fast reader never
disagreeing with the readable one, and reading that ends on hostile inputs far too large for a quadratic path."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragmetrics_edu.retrieval import trec
from ragmetrics_edu.retrieval.batch import _columns
from ragmetrics_edu.retrieval.trec import read_qrels, read_qrels_slowly, read_run, read_run_slowly
from tests._bounded import finishes

# Pieces a hostile or careless file is made of: ids, numbers in every spelling
# C and Python disagree on, C's whitespace and Python-only whitespace, comment
# marks, bytes that are not UTF-8, NUL, a byte-order mark, long runs.
PIECES = [
    b"q1", b"q2", b"d1", b"d2", b"Q0", b"0", b"1", b"-1", b"+2", b"007", b"2.5", b"-.5",
    b"7.", b"1e3", b"1E-2", b"inf", b"-Infinity", b"nan", b"0x1p3", b"1_0",
    "\u0663".encode(), b"1.2.3", b"e5", b".", b"+", b"9" * 30, b"#", b"#c", b"sys",
    b" ", b"  ", b"\t", b"\v", b"\f", b"\r", b"\n", b"\n", b"\n", b"\r\n",
    "\u00a0".encode(), b"\x1c", b"\x85", b"\xff", b"\xe9", b"\x00", b"\xef\xbb\xbf",
    "\u202e".encode(), b"\x1b[31m",
]

LINE_LIKE = st.one_of(
    # mostly well-formed lines, with a field swapped for a hostile piece
    st.tuples(*[st.sampled_from(PIECES) for _ in range(6)]).map(lambda t: b" ".join(t) + b"\n"),
    st.lists(st.sampled_from(PIECES), max_size=12).map(b"".join),
    st.just(b"q1 Q0 d1 1 0.5 sys\n"), st.just(b"q1 0 d1 1\n"),
)
FILES = st.lists(LINE_LIKE, max_size=30).map(b"".join)


def _outcome(read, path):
    """(result, None) or (None, message); any other exception fails the test."""
    try:
        return read(path), None
    except ValueError as exc:  # the one documented error of the readers
        return None, str(exc)


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=FILES, block=st.sampled_from([8, 64, 1 << 20]))
def test_readers_raise_only_value_error_and_agree(tmp_path, data, block):
    path = tmp_path / "file"
    path.write_bytes(data)
    saved = _columns.BLOCK
    _columns.BLOCK = block  # small blocks: lines straddle their ends
    try:
        for kind, read, slowly in (("qrels", read_qrels, read_qrels_slowly),
                                   ("run", read_run, read_run_slowly)):
            result, message = _outcome(read, path)
            assert (result, message) == _outcome(slowly, path)
            if message is not None:
                assert str(path) in message and len(message) < 1200
            try:
                fast = _columns.read_nested(path, kind)
            except _columns.Unusual:
                continue  # left to the readable reader
            # the fast reader never accepts what the readable one refuses
            assert message is None and fast == result
            assert list(fast) == list(result)
    finally:
        _columns.BLOCK = saved


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=60))
def test_number_parsers_raise_only_value_error(token):
    for parse in (trec.parse_integer, trec.parse_number):
        try:
            value = parse(token, "the field")
        except ValueError as exc:
            assert "the field" in str(exc) and len(str(exc)) < 400
        else:
            assert isinstance(value, (int, float))


# ------------------------------------------------------------------ linear time
#
# Inputs that would be quadratic in a careless reader: a long run of blanks,
# one line with "\r" line ends (trec_eval reads it as one line), a very long
# digit string that almost is a number, a very long id, many comments.  The
# tests read each at a size where a quadratic path could not end in hours (a
# 20,000-digit score once took 42 s in a backtracking regular expression) and
# the readers take a fraction of a second; benchmarks/bench_readers.py prints
# how their time grows from one size to 8 times it.
HOSTILE = {
    "blanks": (read_qrels, lambda n: b"q1" + b" " * n + b"0 d1 1\n"),
    "lone_cr": (read_run, lambda n: b"q1 Q0 d1 1 0.5 s\r" * (n // 17)),
    "digits": (read_run, lambda n: b"q1 Q0 d1 1 " + b"1" * n + b"x s\n"),
    "decimal": (read_run, lambda n: b"q1 Q0 d1 1 1." + b"1" * n + b"e s\n"),
    "rank": (read_run, lambda n: b"q1 Q0 d1 " + b"1" * n + b"x 1 s\n"),
    "grade": (read_qrels, lambda n: b"q1 0 d1 " + b"0" * n + b"1\n"),
    "long_id": (read_run, lambda n: b"q1 Q0 " + b"d" * n + b" 1 0.5 s\n"),
    "comments": (read_qrels, lambda n: b"#\n" * (n // 2)),
    "twice": (read_run, lambda n: b"q1 Q0 d1 1 0.5 s\n" * (n // 17)),
    "many_lines": (read_run, lambda n: b"".join(b"q%d Q0 d%d 1 0.5 s\n" % (i % 97, i)
                                                 for i in range(n // 20))),
}

HOSTILE_SIZE = 2_000_000
"""Bytes of each hostile file: linear reading takes tenths of a second, quadratic hours."""


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_reading_a_hostile_file_ends(tmp_path, name):
    read, make = HOSTILE[name]
    path = tmp_path / name
    path.write_bytes(make(HOSTILE_SIZE))
    assert finishes(read, path), name


def test_number_grammar_ends_on_a_long_almost_number():
    # "111...1x" fails to match at its end; an ambiguous pattern such as
    # "[0-9]+\.?[0-9]*" tries every split of the digits first (quadratic:
    # 10,000 digits took 10 s, so a million would take a day); ours takes one path
    def refuse_all(token):
        for parse in (trec.parse_number, trec.parse_integer):
            with pytest.raises(ValueError):
                parse(token, "the score")

    for shape in (b"%sx", b"1.%se", b"0x%sp", b"-%s_"):
        assert finishes(refuse_all, shape % (b"1" * 1_000_000)), shape
