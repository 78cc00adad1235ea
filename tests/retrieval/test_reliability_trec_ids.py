"""Whatever write_run writes, read_run reads back equal; else write_run refuses it first (issue 23, item 5).

Ids are drawn from hostile characters: byte-order marks in every position,
NUL, C0 and C1 control characters, Unicode white space, lone surrogates,
``#``, digits. A run is either refused by :func:`write_run` (only for the
documented reasons) or read back equal by both readers. The qrels reader is
checked the same way on files written by hand (there is no qrels writer).
"""

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragmetrics_edu.retrieval import trec
from ragmetrics_edu.retrieval.trec import read_qrels, read_qrels_slowly, read_run, read_run_slowly, write_run

BOM = "\ufeff"
HOSTILE = [BOM, "\0", "\x01", "\x1b", "\x1f", "\x7f", "\x85", "\xa0", "\u2028", "\u200b", "\ud800",
           " ", "\t", "\n", "\r", "\v", "\f", "#", "0", "1", "-", ".", "e", "Q0", "é", "\U0001F600"]

plain_ids = st.one_of(
    st.lists(st.sampled_from(HOSTILE), min_size=0, max_size=4).map("".join),
    st.text(min_size=0, max_size=6),
    st.lists(st.sampled_from(["q", "d", BOM, "1", "#", "\x00", "é"]), max_size=5).map("".join),
    st.integers(-10, 10**20).map(str),
    st.floats(allow_nan=True).map(str),
)
ids = st.one_of(  # and the same with a byte-order mark put in at any position
    plain_ids,
    st.tuples(plain_ids, st.integers(0, 6)).map(lambda t: t[0][:t[1]] + BOM + t[0][t[1]:]),
)
scores = st.one_of(st.floats(allow_nan=False), st.integers(-10**6, 10**6))
runs = st.dictionaries(ids, st.one_of(st.just({}), st.dictionaries(ids, scores, max_size=4)),
                       max_size=4)


def writable(value, is_qid=False):
    """What the docstring of write_run promises to write: the rest it refuses."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return (value != "" and "\0" not in value and not any(c.isspace() for c in value)
            and not (is_qid and value.startswith("#")))


def expected(run):
    """The run as read back: a query without documents writes no line."""
    return {qid: {d: float(s) for d, s in ranking.items()} for qid, ranking in run.items() if ranking}


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(run=runs)
def test_run_round_trip_over_hostile_ids(tmp_path, run):
    path = tmp_path / "run.txt"
    if path.exists():
        path.unlink()
    ok = all(writable(q, True) and all(writable(d) for d in r) for q, r in run.items())
    try:
        write_run(run, path)
    except (ValueError, TypeError) as exc:
        assert not ok, f"write_run refused a writable run: {exc}"
        assert not path.exists()
        return
    assert ok, "write_run wrote ids it documents as refused"
    for reader in (read_run, read_run_slowly):
        back = reader(path)
        assert back == expected(run)
        assert all(math.copysign(1, back[q][d]) == math.copysign(1, float(s))
                   for q, r in run.items() for d, s in r.items())


@pytest.mark.parametrize("qid", [BOM + "q", "q" + BOM, "q" + BOM + "q", BOM, BOM + BOM, BOM + "#"])
@pytest.mark.parametrize("before", [{}, {"a": {}}, {"a": {"x": 2.0}}, {"a": {}, "b": {}}])
def test_a_byte_order_mark_anywhere_in_a_query_id(tmp_path, qid, before):
    """The issue's cases: {'a': {}, '\\ufeffq': ...} read back as two queries, and
    {'a': {}, '\\ufeff': ...} wrote a file read_run refused."""
    run = {**before, qid: {"d": 1.0, "e": 0.5}}
    path = tmp_path / "run.txt"
    write_run(run, path)
    for reader in (read_run, read_run_slowly):
        assert reader(path) == expected(run)


@pytest.mark.parametrize("where", ["docid", "tag"])
def test_a_byte_order_mark_in_a_document_id_or_the_tag(tmp_path, where):
    run = {"q": {BOM + "d" if where == "docid" else "d": 1.0, BOM: 0.5}}
    path = tmp_path / "run.txt"
    write_run(run, path, tag=BOM + "t" if where == "tag" else "t")
    assert read_run(path) == expected(run) == read_run_slowly(path)


def test_an_id_too_long_for_a_line_is_refused_before_writing(tmp_path):
    path = tmp_path / "run.txt"
    long_id = "d" * trec.MAX_LINE_BYTES
    with pytest.raises(ValueError, match=r"document 'ddd.*longer than 1,048,576 bytes"):
        write_run({"q": {long_id: 1.0}}, path)
    assert not path.exists()
    with pytest.raises(ValueError, match=r"query 'qqq"):
        write_run({"q" * (trec.MAX_LINE_BYTES - 10): {"d": 1.0}}, path)
    with pytest.raises(ValueError, match=r"the tag"):
        write_run({"q": {"d": 1.0}}, path, tag="t" * trec.MAX_LINE_BYTES)
    fits = "d" * (trec.MAX_LINE_BYTES - len("q Q0  1 1.0 ragmetrics_edu"))
    write_run({"q": {fits: 1.0}}, path)  # exactly at the bound: written and read back
    assert read_run(path) == {"q": {fits: 1.0}} == read_run_slowly(path)


qrels_runs = st.dictionaries(ids, st.dictionaries(ids, st.integers(-5, 5), min_size=1, max_size=4),
                             max_size=4)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(qrels=qrels_runs)
def test_qrels_reader_reads_back_every_writable_id(tmp_path, qrels):
    """No qrels writer exists: a file written by hand with the writer's rules reads back equal."""
    if not all(writable(q, True) and all(writable(d) for d in r) for q, r in qrels.items()):
        return
    lines = [f"{q} 0 {d} {g}\n" for q, r in qrels.items() for d, g in r.items()]
    if lines and lines[0].startswith(BOM):
        lines.insert(0, BOM)  # as write_run does: the reader skips this one mark only
    path = tmp_path / "qrels.txt"
    path.write_bytes("".join(lines).encode("utf-8"))
    assert read_qrels(path) == qrels == read_qrels_slowly(path)
