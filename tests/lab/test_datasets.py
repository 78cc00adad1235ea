"""The shipped Cranfield collection, checked against the raw files read here independently."""

import re
import shutil
from collections import Counter
from importlib.resources import files

import pytest

from ragmetrics_edu.lab.datasets import CLEVERDON_CODES, Cranfield, load_cranfield

DATA = files("ragmetrics_edu").joinpath("data", "cranfield")


def _raw(name):
    return DATA.joinpath(name).read_bytes().decode("ascii")


def _qrel_rows():
    """(query, document, code) of every non-blank line of cranqrel, as ints."""
    return [tuple(int(x) for x in line.split()) for line in _raw("cranqrel").splitlines()
            if line.strip()]


@pytest.fixture(scope="module")
def cran():
    return load_cranfield()


# ---------------------------------------------------------------- the files

def test_files_are_shipped_inside_the_package():
    names = {p.name for p in DATA.iterdir()}
    assert {"cran.all.1400", "cran.qry", "cranqrel", "cranqrel.readme", "README.md"} <= names
    # the shipped collection is about 1.7 MB, as distributed
    assert 1_600_000 < len(DATA.joinpath("cran.all.1400").read_bytes()) < 1_800_000
    assert "Cleverdon" in _raw("cranqrel.readme")


# ---------------------------------------------------------------- counts

def test_counts(cran):
    assert isinstance(cran, Cranfield)
    assert len(cran.docs) == 1400
    assert len(cran.queries) == 225
    rows = _qrel_rows()
    n_lines = sum(1 for line in _raw("cranqrel").splitlines() if line.strip())
    assert len(rows) == n_lines == 1837
    # every line of cranqrel is in raw_qrels, once
    assert sum(len(d) for d in cran.raw_qrels.values()) == n_lines
    # the default leaves out the rows coded -1
    n_source = sum(1 for r in rows if r[2] == -1)
    assert sum(len(d) for d in cran.qrels.values()) == n_lines - n_source
    assert len(cran.source_docs) == n_source


def test_ids_are_strings(cran):
    assert list(cran.docs) == [str(i) for i in range(1, 1401)]
    assert list(cran.queries) == [str(i) for i in range(1, 226)]
    assert all(isinstance(d, str) for judged in cran.qrels.values() for d in judged)
    assert set(cran.qrels) == set(cran.queries)


# ---------------------------------------------------------------- query numbering

def test_query_numbers_follow_cran_qry_order(cran):
    numbers = re.findall(r"^\.I (\d+)\s*$", _raw("cran.qry"), flags=re.M)
    assert len(numbers) == 225
    # the .I numbers skip values: 001, 002, 004, ...
    assert numbers[:3] == ["001", "002", "004"]
    for i, number in enumerate(numbers, start=1):
        assert cran.query_numbers[str(i)] == number
        assert cran.qid_for_number(number) == str(i)
    assert cran.qid_for_number(365) == "225"
    with pytest.raises(KeyError, match="no query numbered 3"):
        cran.qid_for_number(3)  # 003 is one of the gaps


def test_query_texts_match_the_file(cran):
    blocks = re.split(r"^\.I \d+\s*$", _raw("cran.qry"), flags=re.M)[1:]
    texts = [" ".join(b.replace(".W", "", 1).split()) for b in blocks]
    assert list(cran.queries.values()) == texts
    assert cran.queries["3"] == ("what problems of heat conduction in composite slabs "
                                 "have been solved so far .")


def test_mapping_pairs_queries_with_their_judgements(cran):
    # cranqrel query 3 is the third query of cran.qry (.I 004, composite slabs); its
    # source document (code -1) is 485, "linear heat flow in a composite slab"
    assert cran.query_numbers["3"] == "004"
    assert cran.source_docs["3"] == "485"
    assert "composite slab" in cran.docs["485"]["title"]
    # query 1 (aeroelastic models of heated aircraft) -> 486 (aerothermoelastic testing)
    assert cran.source_docs["1"] == "486"
    assert "aerothermoelastic" in cran.docs["486"]["title"]
    # the last line of cranqrel is "225 1188 -1": query 225 is .I 365
    assert cran.source_docs["225"] == "1188"
    assert cran.query_numbers["225"] == "365"


def test_every_query_has_one_source_document():
    codes = Counter(q for q, _, c in _qrel_rows() if c == -1)
    assert len(codes) == 225 and set(codes.values()) == {1}


# ---------------------------------------------------------------- documents

def _raw_docs():
    """{docid: record text} split on the .I lines."""
    parts = re.split(r"^\.I (\d+)\s*$", _raw("cran.all.1400").replace("\r\n", "\n"), flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def test_document_fields_match_the_file(cran):
    raw = _raw_docs()
    assert len(raw) == 1400
    defective = {"240", "576", "578"}
    checked = 0
    for docid, record in raw.items():
        if docid in defective:
            continue
        # fields may be empty (record 108 has no bibliographic reference)
        m = re.fullmatch(r"\n\.T\n(.*?)\.A\n(.*?)\.B\n(.*?)\.W\n(.*)", record, flags=re.S)
        assert m is not None, docid
        title, author, bib, text = m.groups()
        doc = cran.docs[docid]
        assert doc["title"] == " ".join(title.split())
        assert doc["author"] == " ".join(author.split())
        assert doc["bib"] == " ".join(bib.split())
        assert doc["text"] == text.strip()
        checked += 1
    assert checked == 1397


def test_spot_checks(cran):
    d1 = cran.docs["1"]
    assert d1["title"] == ("experimental investigation of the aerodynamics of a "
                           "wing in a slipstream .")
    assert d1["author"] == "brenckman,m."
    assert d1["bib"] == "j. ae. scs. 25, 1958, 324."
    assert d1["text"].startswith("experimental investigation of the aerodynamics of a\n")
    assert d1["text"].endswith("the specific configuration of the experiment .")
    assert cran.docs["1400"]["author"] == "kleeman,p.w."
    # first and last judgements of the file: "1 184 2" and "225 1188 -1"
    assert cran.raw_qrels["1"]["184"] == 2
    assert cran.raw_qrels["225"]["1188"] == -1


def test_stray_markers_stay_in_the_abstract(cran):
    # record 240 has ".A" and ".B" lines after its ".W"; the text after them is abstract text
    text = cran.docs["240"]["text"]
    assert "application to turbulent separations is made for a prandtl number of" in text
    assert "unity in low-speed flow without injection ." in text
    assert not any(line.strip() in {".A", ".B", ".W"} for line in text.splitlines())
    assert cran.docs["240"]["author"] == "dean r. chapman"


# ---------------------------------------------------------------- grades

def test_graded_is_five_minus_code(cran):
    for q, d, code in _qrel_rows():
        if code == -1:
            assert str(d) not in cran.qrels[str(q)]
        else:
            # 1 (complete answer) -> 4, ..., 4 (minimum interest) -> 1
            assert cran.qrels[str(q)][str(d)] == 5 - code
        assert cran.raw_qrels[str(q)][str(d)] == code


def test_binary_raw_and_source_grade():
    rows = _qrel_rows()
    binary = load_cranfield(grades="binary")
    assert all(binary.qrels[str(q)][str(d)] == 1 for q, d, c in rows if c != -1)
    raw = load_cranfield(grades="raw")
    assert all(raw.qrels[str(q)][str(d)] == c for q, d, c in rows)
    zero = load_cranfield(source_grade=0)
    assert sum(len(j) for j in zero.qrels.values()) == len(rows)
    assert zero.qrels["1"]["486"] == 0 and zero.qrels["1"]["184"] == 3
    top = load_cranfield(grades="binary", source_grade=1)
    assert top.qrels["1"]["486"] == 1
    assert "source document" in CLEVERDON_CODES[-1]
    assert CLEVERDON_CODES[1].startswith("References which are a complete answer")


@pytest.mark.parametrize("kwargs, exc, msg", [
    ({"grades": "ternary"}, ValueError, r"grades must be one of 'graded', 'binary', 'raw', got 'ternary'"),
    ({"grades": "raw", "source_grade": 0}, ValueError, "source_grade applies to"),
    ({"source_grade": -1}, ValueError, "source_grade must be None or a non-negative integer grade, got -1"),
    ({"source_grade": 0.5}, TypeError, "source_grade must be None"),
    ({"source_grade": True}, TypeError, "source_grade must be None"),
    ({"source_grade": "4"}, TypeError, "source_grade must be None"),
])
def test_bad_arguments(kwargs, exc, msg):
    with pytest.raises(exc, match=msg):
        load_cranfield(**kwargs)


# ---------------------------------------------------------------- malformed files

@pytest.fixture
def copy_dir(tmp_path):
    for name in ("cran.all.1400", "cran.qry", "cranqrel"):
        shutil.copyfile(DATA.joinpath(name), tmp_path / name)
    return tmp_path


def _replace_line(path, lineno, new):
    lines = path.read_text().splitlines()
    lines[lineno - 1] = new
    path.write_text("\n".join(lines) + "\n")


def test_copy_loads_like_the_shipped_files(copy_dir):
    c = load_cranfield(directory=copy_dir)
    assert c.qrels == load_cranfield().qrels


@pytest.mark.parametrize("name, lineno, line, msg", [
    ("cranqrel", 5, "1 51", "expected three integers"),
    ("cranqrel", 7, "1 13 four", "expected three integers"),
    ("cranqrel", 8, "1 14 7", "relevance code must be 1, 2, 3, 4 or -1, got 7"),
    ("cranqrel", 9, "226 15 4", "query number must be 1 to 225"),
    ("cranqrel", 10, "1 1401 2", "document 1401 is not in cran.all.1400"),
    ("cranqrel", 2, "1 184 3", "query 1, document 184 is judged twice"),
    ("cranqrel", 30, "1 1400 -1", "query 1 has a second source document"),
    ("cran.qry", 4, ".I two", "expected '.I <query number>'"),
    ("cran.qry", 5, ".X", "unknown field marker '.X'"),
    ("cran.qry", 1, "stray text", "text outside a '.W' field"),
    ("cran.qry", 3, ".W", "a second '.W' for query 001"),
    ("cran.qry", 4, ".I 1", "query number 1 appears twice"),
    ("cran.all.1400", 1, ".I one", "expected '.I <document number>'"),
    ("cran.all.1400", 2, "loose text", "in document 1 before any field marker"),
    ("cran.all.1400", 3, ".Q", "unknown field marker '.Q'"),
    ("cran.all.1400", 6, ".T", "field .T of document 1 appears twice"),
    ("cran.all.1400", 3044, ".B", "field .B of document 108 appears twice"),  # the first .B is empty
])
def test_malformed_line_names_file_and_line(copy_dir, name, lineno, line, msg):
    _replace_line(copy_dir / name, lineno, line)
    with pytest.raises(ValueError) as info:
        load_cranfield(directory=copy_dir)
    text = str(info.value)
    assert f"{name}, line {lineno}:" in text
    assert msg in text


def test_duplicate_document_number(copy_dir):
    path = copy_dir / "cran.all.1400"
    lines = path.read_text().splitlines()
    second = lines.index(".I 2")
    _replace_line(path, second + 1, ".I 1")
    with pytest.raises(ValueError, match=rf"cran.all.1400, line {second + 1}: document 1 appears twice"):
        load_cranfield(directory=copy_dir)


def test_non_ascii_byte_is_located(copy_dir):
    path = copy_dir / "cran.qry"
    data = path.read_bytes().split(b"\n")
    data[2] = data[2] + b"\xe9"
    path.write_bytes(b"\n".join(data))
    with pytest.raises(ValueError, match=r"cran.qry, line 3: not ASCII"):
        load_cranfield(directory=copy_dir)


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="cran.all.1400"):
        load_cranfield(directory=tmp_path)


# ---------------------------------------------------------------- the labelled judge set

def test_judge_eval_set_is_large_enough_for_correlation_intervals():
    from ragmetrics_edu.judge import load_eval_set

    data = load_eval_set()
    answers = [a for r in data for a in r["answers"]]
    assert len(answers) >= 60
    # the original questions come first, in their order (notebooks 07 and 08 show numbers on them)
    assert [r["query_id"] for r in data[:11]] == [
        "178", "110", "102", "21", "15", "13", "180", "140", "172", "29", "155"]
    assert all(len(r["answers"]) == 2 for r in data[:11])
    assert len({a["id"] for a in answers}) == len(answers)
    for a in answers:
        assert set(a["ratings"]) == {"faithfulness", "relevance"}
    # the ratings use the whole scale on both rubrics
    for rubric in ("faithfulness", "relevance"):
        assert {a["ratings"][rubric] for a in answers} == {1, 2, 3, 4, 5}


def test_judge_eval_set_added_answers_follow_their_kind():
    """Lines 12-20: a good, partly wrong, unsupported, padded and off-topic answer each."""
    from ragmetrics_edu.judge import load_eval_set

    for r in load_eval_set()[11:]:
        kinds = {a["id"].rsplit("-", 1)[1]: a for a in r["answers"]}
        assert sorted(kinds) == ["a", "b", "c", "d", "e"]
        support = {k: [c["supported"] for c in a["claims"]] for k, a in kinds.items()}
        assert all(support["a"]) and kinds["a"]["ratings"]["faithfulness"] == 5
        assert support["b"][0] and not all(support["b"])
        assert not any(support["c"]) and kinds["c"]["ratings"]["faithfulness"] == 1
        # the padded answer is a supported sentence of the good kind plus neutral filler
        assert support["d"][0] and not any(support["d"][1:])
        assert kinds["d"]["ratings"]["relevance"] < kinds["a"]["ratings"]["relevance"]
        assert kinds["e"]["ratings"]["relevance"] <= 2
