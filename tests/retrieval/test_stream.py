"""``evaluate`` on TREC files, the run read as a stream of columns, equals ``evaluate`` on the dicts.

The stream (:func:`ragmetrics_edu.retrieval.batch._columns.run_chunks`)
reads a run a block of whole queries at a time and finds the judged
documents by hashing their ids; the dictionary path reads both files with
``read_qrels`` / ``read_run`` first.  On random files (every spelling of a
score the readers take, separators, comments, blank lines, ids of any
length and script, ties, queries in one file only, blocks small enough that
queries straddle them, queries interleaved) the two give the same report,
to the bit; on a file with a malformed line, the same error, naming the
file and the line.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import ragmetrics_edu as rm
from ragmetrics_edu.retrieval.batch import _columns, evaluator

METRICS = ["P@5", "recall@10", "map", "map@5", "ndcg", "ndcg@3", "mrr", "rprec", "bpref",
           "iprec@0.5", "11pt", "judged@5", "err@10", "rbp(p=0.5)", "rbp_residual",
           "hit_rate@3", "f1@5", "dcg@4"]

_IDS = ["d1", "d10", "d9", "doc-000000001", "doc-000000010", "é", "日本語-7", "a", "ab", "abc",
        "clueweb09-en0000-00-00001", "clueweb09-en0000-00-00011", "\U0001f600x", "z" * 40]


def _score_text(rng):
    """A score in one of the spellings a run file holds."""
    x = float(rng.choice([0.5, 1.0, 2.25, 3.0, 10.0, 0.125]) * rng.integers(-3, 4))
    return str(rng.choice([f"{x:.2f}", f"{x:.4f}", f"{x:g}", repr(x), f"{x:.6e}", f"{x:.0f}",
                           f"{rng.random():.17f}", f"{rng.normal():.3f}"]))


def _files(tmp_path, seed, interleave=False, extra=None):
    """A random qrels and run file; ``extra`` (line number, text) replaces a run line."""
    rng = np.random.default_rng(seed)
    run_lines, qrels_lines = ["# a comment\n"], []
    queries = [f"q{q}" for q in range(int(rng.integers(1, 12)))]
    for q in queries:
        n = int(rng.integers(0, 30))
        docs = [f"{rng.choice(_IDS)}{i}" for i in rng.permutation(60)[:n]]
        sep = str(rng.choice([" ", "\t", " \t ", "  "]))
        for rank, doc in enumerate(docs, start=1):
            run_lines.append(sep.join([q, "Q0", doc, str(rank), _score_text(rng), "sys"])
                             + ("\n" if rng.random() > 0.05 else " extra\n"))
        if rng.random() < 0.2:
            run_lines.append("\n")  # a blank line
        judged = docs[: n // 2] + [f"unretrieved{i}" for i in range(int(rng.integers(0, 4)))]
        if q != queries[-1] or rng.random() < 0.5:  # (a query of the run only)
            qrels_lines += [f"{q} 0 {d} {int(rng.integers(-1, 4))}\n" for d in judged]
    qrels_lines += [f"judged-only 0 d{i} 1\n" for i in range(3)]  # (a query of the qrels only)
    if interleave and len(run_lines) > 3:
        head = run_lines[1:]
        rng.shuffle(head)
        run_lines = run_lines[:1] + head
    if extra is not None:
        number, text = extra
        run_lines.insert(min(number, len(run_lines)), text)
    qrels_path, run_path = tmp_path / f"qrels{seed}", tmp_path / f"run{seed}"
    qrels_path.write_text("".join(qrels_lines), encoding="utf-8")
    run_path.write_bytes("".join(run_lines).encode("utf-8", "surrogatepass"))
    return qrels_path, run_path


def _same_reports(a, b):
    assert a.per_query == b.per_query
    assert list(a.per_query) == list(b.per_query)
    assert a.mean == b.mean
    assert a.missing_queries == b.missing_queries
    assert a.unjudged_queries == b.unjudged_queries
    assert a.queries_without_relevant == b.queries_without_relevant
    assert a.signature == b.signature


def _outcome(qrels, run, **options):
    try:
        return rm.evaluate(qrels, run, metrics=METRICS, **options), None
    except ValueError as error:
        return None, str(error)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**6), block=st.sampled_from([64, 333, 4096, 1 << 20]),
       interleave=st.booleans(),
       options=st.sampled_from([{}, {"depth": 5}, {"relevance_level": 2}, {"missing": "zero"},
                                {"conventions": "trec_eval_10"}, {"conventions": "gdeval"}]))
# an interleaved run (read whole) sharing no judged query with the qrels: the error named
# the files only when the run was streamed
@example(seed=195, block=64, interleave=True, options={})
def test_the_stream_equals_the_dictionary_path(tmp_path, seed, block, interleave, options):
    qrels_path, run_path = _files(tmp_path, seed, interleave)
    metrics = METRICS if options.get("conventions") != "gdeval" else ["ndcg@5", "err@5"]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_columns, "BLOCK", block)  # small blocks: queries straddle them
        if not interleave:  # the run is streamed, never read whole
            mp.setattr(evaluator, "read_run", None)
        try:
            stream = rm.evaluate(qrels_path, run_path, metrics=metrics, **options)
        except ValueError as error:
            stream = str(error)
    try:
        dicts = rm.evaluate(rm.read_qrels(qrels_path), rm.read_run(run_path), metrics=metrics, **options)
    except ValueError as error:  # no query both judged and run: said with the file names
        assert "nothing to score" in str(error)
        assert stream.startswith(f"{run_path} shares no query with {qrels_path}")
        return
    _same_reports(stream, dicts)


@pytest.mark.parametrize("bad", [
    "q0 Q0 dX 1 0.5x sys\n",             # a score strtod reads in part
    "q0 Q0 dX 1 sys\n",                  # five fields
    "q0 Q0 dX 1.5 0.5 sys\n",            # a rank that is no integer
    "q0 Q0 d\0X 1 0.5 sys\n",            # a NUL byte
    "q0 Q0 dX 1 nan sys\n",              # NaN
    "q0 Q0 dX 1 1_0 sys\n",              # an underscore
])
@pytest.mark.parametrize("block", [64, 1 << 20])
def test_a_malformed_line_gets_the_same_error_naming_file_and_line(tmp_path, bad, block):
    qrels_path, run_path = _files(tmp_path, 7, extra=(5, bad))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_columns, "BLOCK", block)
        stream, message = _outcome(qrels_path, run_path)
    assert stream is None
    with pytest.raises(ValueError) as readable:
        rm.read_run(run_path)
    assert message == str(readable.value)
    assert f"{run_path}, line 6" in message


def test_a_document_twice_and_bytes_that_are_no_utf8_are_named(tmp_path):
    qrels_path, run_path = _files(tmp_path, 3)
    lines = run_path.read_bytes().splitlines(keepends=True)
    twice = tmp_path / "twice"
    twice.write_bytes(b"".join(lines[:3] + [lines[2]] + lines[3:]))
    broken = tmp_path / "broken"
    broken.write_bytes(b"".join(lines[:2] + [b"q0 Q0 d\xff 1 0.5 sys\n"] + lines[2:]))
    for path, line in ((twice, 4), (broken, 3)):
        stream, message = _outcome(qrels_path, path)
        assert stream is None and f"{path}, line {line}" in message


def test_unusual_spellings_take_the_readable_reader_with_the_same_numbers(tmp_path):
    # inf and a hexadecimal score are read by the readable reader: same report
    qrels_path, run_path = _files(tmp_path, 11)
    text = run_path.read_text(encoding="utf-8").splitlines(keepends=True)
    text[2] = "q0 Q0 special-1 1 inf sys\n"
    text.insert(3, "q0 Q0 special-2 1 0x1.8p1 sys\n")
    run_path.write_text("".join(text), encoding="utf-8")
    _same_reports(rm.evaluate(qrels_path, run_path, metrics=METRICS),
                  rm.evaluate(rm.read_qrels(qrels_path), rm.read_run(run_path), metrics=METRICS))


def test_a_run_file_against_judgements_given_as_a_dict(tmp_path):
    qrels_path, run_path = _files(tmp_path, 5)
    qrels = rm.read_qrels(qrels_path)
    qrels["empty"] = {}  # judged with {}: unjudged, as in the dictionary path
    _same_reports(rm.evaluate(qrels, run_path, metrics=METRICS),
                  rm.evaluate(qrels, rm.read_run(run_path), metrics=METRICS))
    with pytest.raises(TypeError, match="qrels document ids must be strings"):
        rm.evaluate({"q0": {7: 1}}, run_path, metrics=["map"])
    with pytest.raises(ValueError, match=r"grades must be integers.*'a' of query 'q0'"):
        rm.evaluate({"q0": {"a": 0.5}}, run_path, metrics=["map"])


def test_a_query_is_read_whole_even_when_it_is_longer_than_a_block(tmp_path, monkeypatch):
    monkeypatch.setattr(_columns, "BLOCK", 100)
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    qrels_path.write_text("".join(f"q 0 d{i} {i % 3}\n" for i in range(0, 500, 7)))
    run_path.write_text("".join(f"q Q0 d{i} {i} {i % 11}.5 s\n" for i in range(500)))
    _same_reports(rm.evaluate(qrels_path, run_path, metrics=METRICS),
                  rm.evaluate(rm.read_qrels(qrels_path), rm.read_run(run_path), metrics=METRICS))
