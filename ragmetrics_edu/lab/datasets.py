"""The Cranfield 1400 collection, shipped with the package.

Cranfield is the test collection of Cyril Cleverdon's second Cranfield
experiment (Cranfield II, 1962-1966): 1,400 abstracts of papers in
aeronautics, 225 questions written by the authors of papers in the field,
and relevance judgements graded on Cleverdon's scale. It is small enough to
index in a second and to read by hand, which makes it the classic first
collection for learning to evaluate retrieval.

The files live in ``ragmetrics_edu/data/cranfield/`` (about 1.7 MB) with the
original ``cranqrel.readme`` and a ``README.md`` (attribution, codes,
known defects of the files); they are found with
:mod:`importlib.resources`, so nothing is downloaded.

Public names
------------
``load_cranfield(grades="graded", source_grade=None, directory=None)``
    The collection as a :class:`Cranfield` object with ``.docs``,
    ``.queries`` and ``.qrels``.
``Cranfield``
    What :func:`load_cranfield` returns.
``CLEVERDON_CODES``
    Cleverdon's relevance codes and their definitions.
``load_cranfield_qa(path=None)``
    68 questions over the abstracts, with short reference answers and the
    ids of the abstracts that support them, as a list of :class:`QAItem`
    (``data/cranfield_qa/README.md``); ``qa_queries`` and ``qa_qrels`` turn
    it into queries and qrels.
"""

import importlib.resources
import numbers
import re
from dataclasses import dataclass, field
from pathlib import Path

from .._deprecation import formerly_positional
from .._validation import check_choice

DOCS_FILE = "cran.all.1400"
QUERIES_FILE = "cran.qry"
QRELS_FILE = "cranqrel"

#: Cleverdon's relevance codes, as quoted in ``cranqrel.readme`` (1 is best).
#: Code 5 ("no interest") never appears in the file; code -1 is not on his
#: scale: in this file it marks the source document of each question.
CLEVERDON_CODES = {
    1: "References which are a complete answer to the question.",
    2: "References of a high degree of relevance, the lack of which either "
       "would have made the research impracticable or would have resulted "
       "in a considerable amount of extra work.",
    3: "References which were useful, either as general background to the "
       "work or as suggesting methods of tackling certain aspects of the work.",
    4: "References of minimum interest, for example, those that have been "
       "included from an historical viewpoint.",
    5: "References of no interest.",
    -1: "Not on Cleverdon's scale: one row per question, naming the "
        "question's source document (the paper it was written from).",
}

GRADES = ("graded", "binary", "raw")

# document fields, in file order: marker -> key of the document dict
_DOC_FIELDS = {".T": "title", ".A": "author", ".B": "bib", ".W": "text"}
_ID_LINE = re.compile(r"^\.I\s+(\S+)\s*$")
_MARKER = re.compile(r"^\.[A-Za-z]\b")


@dataclass(repr=False)
class Cranfield:
    """The Cranfield 1400 collection, as :func:`load_cranfield` returns it.

    Every id is a string: document ids ``"1"`` ... ``"1400"``, query ids
    ``"1"`` ... ``"225"`` (the numbering of ``cranqrel``, see
    :func:`load_cranfield`).

    Attributes
    ----------
    docs : dict of str to dict
        ``{docid: {"title": ..., "author": ..., "bib": ..., "text": ...}}``.
        ``"text"`` is the ``.W`` field, the abstract (it starts with the
        title again, as in the file); its line breaks are kept. Title,
        author and bibliographic reference are on one line each.
    queries : dict of str to str
        ``{qid: text}``, the text on one line.
    qrels : dict of str to dict of str to float or int
        ``{qid: {docid: grade}}``, higher is better (see ``grades``).
    raw_qrels : dict of str to dict of str to int
        Cleverdon's codes exactly as in ``cranqrel`` (1 best ... 4 least,
        and -1 for the source document), whatever ``grades`` was asked.
    query_numbers : dict of str to str
        ``{qid: number}``: the ``.I`` number of the query in ``cran.qry``,
        as written there (``"001"``, ``"002"``, ``"004"``, ...).
    source_docs : dict of str to str
        ``{qid: docid}``: the document coded -1 for each query.
    grades : str
        How the codes became grades: ``"graded"``, ``"binary"`` or ``"raw"``.
    source_grade : int or None
        The grade given to the source documents (``None``: left out).
    """

    docs: dict
    queries: dict
    qrels: dict
    raw_qrels: dict = field(default_factory=dict)
    query_numbers: dict = field(default_factory=dict)
    source_docs: dict = field(default_factory=dict)
    grades: str = "graded"
    source_grade: object = None

    def qid_for_number(self, number):
        """Return the query id (``cranqrel`` numbering) of a ``cran.qry`` number.

        ``number`` is the ``.I`` number as an int or string (``4``,
        ``"4"`` or ``"004"``).

        Examples
        --------
        >>> c = load_cranfield()
        >>> c.qid_for_number("004")    # the third query in cran.qry
        '3'
        """
        try:
            wanted = int(str(number).strip())
        except ValueError:
            raise ValueError(
                f"number must be a query number of cran.qry, got {number!r}"
            ) from None
        for qid, written in self.query_numbers.items():
            if int(written) == wanted:
                return qid
        raise KeyError(f"no query numbered {number!r} in {QUERIES_FILE}")

    def __repr__(self):
        n_judged = sum(len(d) for d in self.qrels.values())
        return (
            f"Cranfield(docs={len(self.docs)}, queries={len(self.queries)}, "
            f"qrels={n_judged} judgements, grades={self.grades!r}, "
            f"source_grade={self.source_grade!r})"
        )


def _data_dir():
    """The shipped data folder, found with importlib.resources."""
    return importlib.resources.files("ragmetrics_edu").joinpath("data", "cranfield")


def _read_lines(directory, name):
    """The lines of one collection file (line ends removed) and its shown name."""
    path = directory.joinpath(name)
    try:
        text = path.read_text(encoding="ascii")
    except FileNotFoundError:
        raise FileNotFoundError(f"Cranfield file not found: {path}") from None
    except UnicodeDecodeError as exc:
        # find the line of the first non-ASCII byte
        raw = path.read_bytes()
        line = raw[:exc.start].count(b"\n") + 1
        raise ValueError(
            f"{path}, line {line}: not ASCII text (byte {raw[exc.start]:#x})"
        ) from None
    return text.splitlines(), str(path)


def _one_line(lines):
    return " ".join(" ".join(lines).split())


def _parse_docs(lines, name):
    """``{docid: {"title", "author", "bib", "text"}}`` from cran.all.1400 lines.

    A record starts with ``.I <number>``; the markers ``.T``, ``.A``, ``.B``
    and ``.W`` start its fields. Three records of the distributed file (240,
    576 and 578) carry stray marker lines inside their abstracts: a marker
    met again after ``.W`` is dropped and its text stays in the abstract.
    """
    docs = {}
    docid = None
    fields = None
    seen = set()
    current = None
    for lineno, line in enumerate(lines, start=1):
        stripped = line.rstrip()
        m = _ID_LINE.match(stripped)
        if stripped.startswith(".I"):
            if m is None or not m.group(1).isdigit():
                raise ValueError(
                    f"{name}, line {lineno}: expected '.I <document number>', "
                    f"got {line!r}"
                )
            docid = str(int(m.group(1)))
            if docid in docs:
                raise ValueError(
                    f"{name}, line {lineno}: document {docid} appears twice"
                )
            fields = {key: [] for key in _DOC_FIELDS.values()}
            docs[docid] = fields
            seen = set()
            current = None
            continue
        if _MARKER.match(stripped):
            if stripped not in _DOC_FIELDS:
                raise ValueError(
                    f"{name}, line {lineno}: unknown field marker {stripped!r} "
                    f"(expected one of .I, .T, .A, .B, .W)"
                )
            if docid is None:
                raise ValueError(
                    f"{name}, line {lineno}: field marker {stripped!r} before "
                    f"the first '.I' line"
                )
            key = _DOC_FIELDS[stripped]
            if current == "text":
                # stray marker inside an abstract: keep reading the abstract
                continue
            if key in seen:
                raise ValueError(
                    f"{name}, line {lineno}: field {stripped} of document "
                    f"{docid} appears twice"
                )
            seen.add(key)
            current = key
            continue
        if current is None:
            if not stripped:
                continue
            where = "before the first '.I' line" if docid is None else (
                f"in document {docid} before any field marker")
            raise ValueError(f"{name}, line {lineno}: text {where}: {line!r}")
        fields[current].append(line)
    out = {}
    for docid, fields in docs.items():
        out[docid] = {
            "title": _one_line(fields["title"]),
            "author": _one_line(fields["author"]),
            "bib": _one_line(fields["bib"]),
            "text": "\n".join(fields["text"]).strip(),
        }
    return out


def _parse_queries(lines, name):
    """``([number, ...], [text, ...])`` in file order from cran.qry lines."""
    numbers, texts = [], []
    current = None  # lines of the current query's .W field, or None
    for lineno, line in enumerate(lines, start=1):
        stripped = line.rstrip()
        if stripped.startswith(".I"):
            m = _ID_LINE.match(stripped)
            if m is None or not m.group(1).isdigit():
                raise ValueError(
                    f"{name}, line {lineno}: expected '.I <query number>', "
                    f"got {line!r}"
                )
            if any(int(n) == int(m.group(1)) for n in numbers):
                raise ValueError(
                    f"{name}, line {lineno}: query number {m.group(1)} "
                    f"appears twice"
                )
            numbers.append(m.group(1))
            texts.append(None)
            current = None
            continue
        if stripped == ".W":
            if not numbers:
                raise ValueError(
                    f"{name}, line {lineno}: '.W' without a '.I' line before it"
                )
            if texts[-1] is not None:
                raise ValueError(
                    f"{name}, line {lineno}: a second '.W' for query {numbers[-1]}"
                )
            current = []
            texts[-1] = current
            continue
        if _MARKER.match(stripped):
            raise ValueError(
                f"{name}, line {lineno}: unknown field marker {stripped!r} "
                f"(expected .I or .W)"
            )
        if current is None:
            if not stripped:
                continue
            raise ValueError(
                f"{name}, line {lineno}: text outside a '.W' field: {line!r}"
            )
        current.append(line)
    for number, text in zip(numbers, texts):
        if text is None:
            raise ValueError(f"{name}: query {number} has no '.W' text")
    return numbers, [_one_line(t) for t in texts]


def _parse_qrels(lines, name, n_queries, docids):
    """``{qid: {docid: code}}`` from cranqrel lines, each checked."""
    raw = {}
    for lineno, line in enumerate(lines, start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 3 or not all(re.fullmatch(r"-?\d+", p) for p in parts):
            raise ValueError(
                f"{name}, line {lineno}: expected three integers "
                f"'query document code', got {line!r}"
            )
        q, d, code = (int(p) for p in parts)
        if not 1 <= q <= n_queries:
            raise ValueError(
                f"{name}, line {lineno}: query number must be 1 to "
                f"{n_queries} (the queries of {QUERIES_FILE} in order), got {q}"
            )
        if str(d) not in docids:
            raise ValueError(
                f"{name}, line {lineno}: document {d} is not in {DOCS_FILE}"
            )
        if code not in (1, 2, 3, 4, -1):
            raise ValueError(
                f"{name}, line {lineno}: relevance code must be 1, 2, 3, 4 or "
                f"-1, got {code}"
            )
        judged = raw.setdefault(str(q), {})
        if str(d) in judged:
            raise ValueError(
                f"{name}, line {lineno}: query {q}, document {d} is judged twice"
            )
        if code == -1 and -1 in judged.values():
            raise ValueError(
                f"{name}, line {lineno}: query {q} has a second source "
                f"document (code -1)"
            )
        judged[str(d)] = code
    return raw


def _check_source_grade(source_grade, grades):
    if source_grade is None:
        return None
    if grades == "raw":
        raise ValueError(
            "source_grade applies to grades='graded' or 'binary'; with "
            f"grades='raw' the source documents keep code -1, got "
            f"source_grade={source_grade!r}"
        )
    if isinstance(source_grade, bool) or not isinstance(source_grade, numbers.Integral):
        raise TypeError(
            f"source_grade must be None or a non-negative integer grade, got "
            f"{source_grade!r}"
        )
    if source_grade < 0:
        raise ValueError(
            f"source_grade must be None or a non-negative integer grade, got "
            f"{source_grade!r}"
        )
    return int(source_grade)


def _grade(code, grades, source_grade):
    if grades == "raw":
        return code
    if code == -1:
        return source_grade
    return 5 - code if grades == "graded" else 1


@formerly_positional("directory")
def load_cranfield(grades="graded", source_grade=None, *, directory=None):
    r"""Load the Cranfield 1400 collection shipped with the package.

    Parameters
    ----------
    grades : {"graded", "binary", "raw"}, default "graded"
        How Cleverdon's codes (1 = complete answer ... 4 = minimum interest)
        become ``.qrels``:

        * ``"graded"``: :math:`\mathrm{grade} = 5 - \mathrm{code}`, so 4 is a
          complete answer and 1 of minimum interest; higher is better, as
          every grade of this library.
        * ``"binary"``: 1 for every code from 1 to 4.
        * ``"raw"``: the codes as written (lower is better, -1 kept); for
          reading the file, not for scoring.
    source_grade : int, optional
        The grade of each query's source document (code -1, see Notes).
        ``None`` (default) leaves it out of ``.qrels``; ``0`` keeps it as a
        judged, non-relevant document; a positive number counts it as
        relevant. Only with ``grades="graded"`` or ``"binary"``.
    directory : str or os.PathLike, optional
        Read the three files from this folder instead of the shipped copy.

    Returns
    -------
    Cranfield
        ``.docs`` (1,400), ``.queries`` (225), ``.qrels``, and the raw codes
        in ``.raw_qrels``, the ``cran.qry`` numbers in ``.query_numbers``, the
        source documents in ``.source_docs``.

    Raises
    ------
    ValueError
        If a line of a file is malformed; the message names the file and the
        line.

    Notes
    -----
    **Query numbering.** ``cran.qry`` numbers its queries 001, 002, 004, 008,
    ... 365 (with gaps), while ``cranqrel`` numbers them 1 to 225 in order:
    the i-th query of ``cran.qry`` is query ``i`` of ``cranqrel``. Query ids
    here follow ``cranqrel`` (``"1"`` ... ``"225"``); the ``.I`` number of
    each is in ``.query_numbers`` (``query_numbers["3"] == "004"``), and
    :meth:`Cranfield.qid_for_number` goes the other way. Joining the files
    by the ``.I`` numbers instead pairs almost every query with the wrong
    judgements, a common mistake.

    **Relevance codes.** ``cranqrel`` has three columns: query, document,
    code. Codes 1 to 4 are Cleverdon's (see ``cranqrel.readme`` and
    :data:`CLEVERDON_CODES`; code 5, "no interest", is never listed). Every
    query also has exactly one row coded -1 (225 rows). That code is not on
    Cleverdon's scale, and the readme does not explain it; the document it
    names is the paper the question was written from: query 1 ("what
    similarity laws must be obeyed when constructing aeroelastic models of
    heated high speed aircraft") names document 486, "similarity laws for
    aerothermoelastic testing"; query 3 (composite slabs) names document
    485, "linear heat flow in a composite slab". Libraries differ here:
    some read -1 as "no interest" and keep it with relevance -1 (which
    trec_eval counts as judged, not relevant). We leave these rows out of
    ``.qrels`` by default, as not judged on the scale; pass
    ``source_grade`` to choose otherwise. With ``None`` or ``0`` the
    source document counts as not relevant in every metric.

    **Document fields.** Three records of the distributed file (240, 576,
    578) have stray ``.A``, ``.B`` or ``.W`` lines inside their abstracts
    (and 576, 578 have text from other abstracts mixed in); a marker met
    again after ``.W`` is dropped and the text that follows stays in the
    abstract.

    References
    ----------
    C. W. Cleverdon, "The Cranfield tests on index language devices",
    Aslib Proceedings 19(6), 1967, 173-194.

    C. W. Cleverdon, J. Mills and E. M. Keen, "Factors determining the
    performance of indexing systems", Cranfield, 1966.

    Examples
    --------
    >>> c = load_cranfield()
    >>> c
    Cranfield(docs=1400, queries=225, qrels=1612 judgements, grades='graded', source_grade=None)
    >>> c.docs["1"]["title"]
    'experimental investigation of the aerodynamics of a wing in a slipstream .'
    >>> c.query_numbers["3"], c.queries["3"]   # the third query is .I 004
    ('004', 'what problems of heat conduction in composite slabs have been solved so far .')
    >>> c.raw_qrels["1"]["184"], c.qrels["1"]["184"]   # code 2 -> grade 5 - 2
    (2, 3)
    >>> c.source_docs["1"], "486" in c.qrels["1"]   # left out by default
    ('486', False)
    >>> load_cranfield(source_grade=0).qrels["1"]["486"]
    0
    """
    check_choice(grades, GRADES, name="grades")
    source_grade = _check_source_grade(source_grade, grades)
    folder = _data_dir() if directory is None else Path(directory)

    doc_lines, doc_name = _read_lines(folder, DOCS_FILE)
    docs = _parse_docs(doc_lines, doc_name)
    query_lines, query_name = _read_lines(folder, QUERIES_FILE)
    numbers_, texts = _parse_queries(query_lines, query_name)
    qrel_lines, qrel_name = _read_lines(folder, QRELS_FILE)
    raw = _parse_qrels(qrel_lines, qrel_name, len(numbers_), docs)

    qids = [str(i) for i in range(1, len(numbers_) + 1)]
    queries = dict(zip(qids, texts))
    query_numbers = dict(zip(qids, numbers_))
    # keep cranqrel's order of queries, then of its rows
    raw_qrels = {q: raw[q] for q in sorted(raw, key=int)}
    source_docs = {
        q: d for q, judged in raw_qrels.items()
        for d, code in judged.items() if code == -1
    }
    qrels = {}
    for q, judged in raw_qrels.items():
        qrels[q] = {
            d: _grade(code, grades, source_grade)
            for d, code in judged.items()
            if not (code == -1 and grades != "raw" and source_grade is None)
        }
    return Cranfield(
        docs=docs, queries=queries, qrels=qrels, raw_qrels=raw_qrels,
        query_numbers=query_numbers, source_docs=source_docs,
        grades=grades, source_grade=source_grade,
    )


# ----------------------------------------------------------------- the QA set

QA_FILE = "cranfield_qa.jsonl"

#: What kind of fact each reference answer is.
QA_ANSWER_TYPES = ("number", "named", "method", "effect")

_QA_FIELDS = ("id", "question", "answers", "doc_ids", "evidence", "answer_type",
              "cranfield_query")


@dataclass(frozen=True)
class QAItem:
    """One question of :func:`load_cranfield_qa`.

    Attributes
    ----------
    id : str
        ``"cqa-001"`` ... in file order.
    question : str
        The question, one sentence in plain English.
    answers : tuple of str
        One or more short reference answers (a few words to a sentence),
        each written from the supporting abstract in its wording (lower
        case, as the abstracts are), so that an extractive answerer can
        reach it.
    doc_ids : tuple of str
        The Cranfield documents that support the answers (``"1"`` ...
        ``"1400"``, the ids of :func:`load_cranfield`).
    evidence : str
        The words of the supporting abstract that state the answer, exactly
        as in the abstract with white space collapsed.
    answer_type : str
        ``"number"`` (a measured or computed value), ``"named"`` (a named
        effect, theory, gas, computer...), ``"method"`` or ``"effect"``
        (how something varies or what causes it).
    cranfield_query : str or None
        A Cranfield query (``cranqrel`` numbering, as ``load_cranfield``)
        on a similar topic whose judgements list the supporting document as
        relevant (codes 1 to 4); ``None`` when the document is relevant to
        no Cranfield query.
    """

    id: str
    question: str
    answers: tuple
    doc_ids: tuple
    evidence: str
    answer_type: str
    cranfield_query: object = None


def _qa_data_file():
    return importlib.resources.files("ragmetrics_edu").joinpath("data", "cranfield_qa", QA_FILE)


def _qa_error(where, message):
    return ValueError(f"{where}: {message}")


def _qa_string(value, where, field_name):
    if not isinstance(value, str) or not value.strip():
        raise _qa_error(where, f"{field_name!r} must be a non-empty string, got {value!r}")
    return value


def _qa_strings(value, where, field_name):
    if not isinstance(value, list) or not value:
        raise _qa_error(where, f"{field_name!r} must be a non-empty list of strings, got {value!r}")
    for x in value:
        _qa_string(x, where, field_name)
    if len(set(value)) != len(value):
        raise _qa_error(where, f"{field_name!r} must not repeat a value, got {value!r}")
    return tuple(value)


def _qa_record(record, where):
    """A :class:`QAItem` from one decoded JSON line, or a ValueError naming ``where``."""
    if not isinstance(record, dict):
        raise _qa_error(where, f"expected a JSON object, got {record!r}")
    missing = [f for f in _QA_FIELDS if f not in record]
    unknown = sorted(set(record) - set(_QA_FIELDS))
    if missing:
        raise _qa_error(where, f"missing field(s) {missing!r}")
    if unknown:
        raise _qa_error(where, f"unknown field(s) {unknown!r}; a record has {list(_QA_FIELDS)!r}")
    item_id = _qa_string(record["id"], where, "id")
    answers = _qa_strings(record["answers"], where, "answers")
    doc_ids = _qa_strings(record["doc_ids"], where, "doc_ids")
    for d in doc_ids:
        if not (d.isdigit() and d == str(int(d)) and 1 <= int(d) <= 1400):
            raise _qa_error(where, f"doc_ids must be Cranfield document ids '1' to '1400' "
                                   f"(no leading zeros), got {d!r}")
    if record["answer_type"] not in QA_ANSWER_TYPES:
        raise _qa_error(where, f"'answer_type' must be one of {QA_ANSWER_TYPES!r}, "
                               f"got {record['answer_type']!r}")
    query = record["cranfield_query"]
    if query is not None and not (isinstance(query, str) and query.isdigit()
                                  and query == str(int(query)) and 1 <= int(query) <= 225):
        raise _qa_error(where, f"'cranfield_query' must be null or a query id '1' to '225', "
                               f"got {query!r}")
    return QAItem(
        id=item_id,
        question=_qa_string(record["question"], where, "question"),
        answers=answers,
        doc_ids=doc_ids,
        evidence=_qa_string(record["evidence"], where, "evidence"),
        answer_type=record["answer_type"],
        cranfield_query=query,
    )


def load_cranfield_qa(path=None):
    """Load the question-answering set over the Cranfield abstracts.

    68 questions written by the ragmetrics_edu authors from the Cranfield
    1400 abstracts (``data/cranfield_qa/README.md`` says how), each with
    one or more short reference answers and the ids of the abstracts that
    support them. Made for evaluating a retrieve-then-answer pipeline:
    retrieval against ``doc_ids``, answers against ``answers``.

    Parameters
    ----------
    path : str or os.PathLike, optional
        Read this JSONL file instead of the shipped one (one JSON object per
        line, the fields of :class:`QAItem`).

    Returns
    -------
    list of QAItem
        In file order. Use :func:`qa_queries` and :func:`qa_qrels` to turn
        it into the ``{qid: text}`` and ``{qid: {docid: 1}}`` that the
        retrievers and :func:`ragmetrics_edu.evaluate` take.

    Raises
    ------
    ValueError
        If a line is not JSON or breaks a rule of the format (missing or
        unknown field, empty answer, document id outside 1..1400, id seen
        twice); the message names the file and the line.

    See Also
    --------
    load_cranfield : the documents the answers come from.

    Examples
    --------
    >>> qa = load_cranfield_qa()
    >>> len(qa)
    68
    >>> item = qa[0]
    >>> item.question
    'How many species and reactions does the kinetic mechanism used for the non-equilibrium expansions of air include?'
    >>> item.answers, item.doc_ids
    (('6 species and 14 reactions',), ('1296',))
    """
    if path is None:
        resource = _qa_data_file()
        name = f"ragmetrics_edu/data/cranfield_qa/{QA_FILE}"
        text = resource.read_text(encoding="utf-8")
    else:
        name = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise FileNotFoundError(f"QA file not found: {path}") from None
    import json

    items = []
    seen = {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{name}, line {lineno}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise _qa_error(where, f"not JSON ({exc.msg}, column {exc.colno})") from None
        item = _qa_record(record, where)
        if item.id in seen:
            raise _qa_error(where, f"id {item.id!r} appears twice (first on line {seen[item.id]})")
        seen[item.id] = lineno
        items.append(item)
    if not items:
        raise ValueError(f"{name}: no question in the file")
    return items


def qa_queries(items):
    """``{item id: question}`` of a QA set, for the retrievers.

    Examples
    --------
    >>> qa_queries(load_cranfield_qa())["cqa-014"]
    'Which of the injected gases was found to be the most efficacious coolant in the stagnation point mass transfer tests?'
    """
    return {item.id: item.question for item in items}


def qa_qrels(items):
    """``{item id: {doc id: 1}}``: the supporting documents as binary qrels.

    Examples
    --------
    >>> qa_qrels(load_cranfield_qa())["cqa-014"]
    {'84': 1}
    """
    return {item.id: {d: 1 for d in item.doc_ids} for item in items}
