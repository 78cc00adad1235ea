"""LLMJudge: 33 real LLM relevance judges and NIST's assessors on the same 4,423 pairs.

The LLMJudge challenge (LLM4Eval workshop, SIGIR 2024) gave its participants
4,423 (query, passage) pairs of the TREC 2023 Deep Learning track, 25
queries, and asked for a relevance grade of each on TREC's scale 0-3; NIST's
assessors had graded the same pairs for the track.  33 submissions by 7
teams (GPT-4o, Llama-3 70B and 8B and others, with many prompts) are shipped
here with the assessors' grades, so a judge that people actually use can be
measured against people on what they actually said: unlike Cranfield's
judgements, these list the passages the assessors called irrelevant (grade
0) as well.

:func:`load_llmjudge` reads the files of ``ragmetrics_edu/data/llmjudge/``
(their README says whose labels they are, where they come from and their
license) and checks each one against its SHA-256 digest in ``SHA256SUMS``:
the files are byte for byte those of the two public repositories named in
the README.  A malformed line is refused with the file and the line; a file
that parses but differs from the shipped one is refused with its name.

The labels are loaded as the judges wrote them: three grades lie outside
0-3 (two 5s and a 10).  The agreement functions of
:mod:`.judge_vs_assessors` refuse such a grade with the pair named, or,
when asked, leave it out and count it as an unmeasured reply.

Not here: the passages' text (MS MARCO v2, under its own terms) and the
systems' runs of TREC DL 2023, so rankings of systems cannot be compared on
this set.
"""

import hashlib
import importlib.resources
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["LLMJudge", "load_llmjudge", "SCALE", "RELEVANCE_LEVEL", "GRADE_MEANINGS"]

SCALE = (0, 1, 2, 3)
"""The grades of TREC DL 2023 and of the challenge, worst to best."""

RELEVANCE_LEVEL = 2
"""TREC DL's binary threshold: grades 2 and 3 count as relevant (trec_eval ``-l 2``)."""

GRADE_MEANINGS = {
    3: "perfectly relevant: the passage is dedicated to the query and contains the exact answer",
    2: "highly relevant: some answer, possibly unclear or hidden amongst extraneous information",
    1: "related: the passage seems related to the query but does not answer it",
    0: "irrelevant: the passage has nothing to do with the query",
}
"""The scale as the challenge stated it to the participants (after TREC DL's guidelines)."""

_FOLDER = "llmjudge"
_MANIFEST = "SHA256SUMS"
_MANIFEST_SHA256 = "22d75fdd66386bfd30311656b9591d658833cf40e1929eec75e4eecd7c85e32e"
"""SHA-256 of ``SHA256SUMS``, which lists the SHA-256 of every other file."""
_QRELS = "test_qrels.txt"
_PAIRS = "test_pairs.txt"
_DEV = "dev_qrels.txt"
_QUERIES = "queries.tsv"
_QID_MAP = "qid_map.tsv"
_PID_MAP = "pid_map.tsv"
_JUDGES = "judges"
_ID = re.compile(r"^[qp]\d+$")
_GRADE = re.compile(r"^-?\d+$")
_CACHE = {}


@dataclass(frozen=True, repr=False)
class LLMJudge:
    """The LLMJudge data, as :func:`load_llmjudge` returns it.

    Attributes
    ----------
    qrels : dict of str to dict of str to int
        ``{qid: {pid: grade}}``: NIST's grades (0-3) of the 4,423 test pairs.
    dev_qrels : dict of str to dict of str to int
        The same for the 7,263 development pairs of 25 other queries (given
        to the participants for prompting, few-shot examples or tuning).
    judges : dict of str to dict of str to dict of str to int
        ``{name: {qid: {pid: grade}}}``: each of the 33 submissions' grades of
        the test pairs, as written (three lie outside 0-3).
    queries : dict of str to str
        ``{qid: text}`` for the 50 queries, test and development.
    pairs : tuple of (str, str)
        The test pairs ``(qid, pid)`` in the order of ``test_pairs.txt``
        (what the judges were given).
    qid_map, pid_map : dict of str to str
        The challenge's ids mapped to TREC DL 2023 query ids and MS MARCO v2
        passage ids.
    scale : tuple of int
        ``(0, 1, 2, 3)``.
    relevance_level : int
        2: TREC DL counts grades 2 and 3 as relevant.
    """

    qrels: dict
    dev_qrels: dict
    judges: dict
    queries: dict
    pairs: tuple
    qid_map: dict
    pid_map: dict
    scale: tuple = SCALE
    relevance_level: int = RELEVANCE_LEVEL

    def __repr__(self):
        n_dev = sum(len(v) for v in self.dev_qrels.values())
        return (f"LLMJudge(test: {len(self.pairs)} pairs over {len(self.qrels)} queries, "
                f"dev: {n_dev} pairs over {len(self.dev_qrels)} queries, "
                f"{len(self.judges)} judges)")

    def grades(self, judge=None):
        """One grade per test pair, in the order of :attr:`pairs`.

        Parameters
        ----------
        judge : str, optional
            A judge's name; ``None`` (default) gives the assessors' grades.

        Returns
        -------
        list of int

        Examples
        --------
        >>> data = load_llmjudge()
        >>> data.pairs[0], data.grades()[0], data.grades("h2oloo-fewself")[0]
        (('q49', 'p3659'), 3, 3)
        """
        if judge is None:
            labels = self.qrels
        elif judge in self.judges:
            labels = self.judges[judge]
        else:
            raise KeyError(f"judge must be one of the {len(self.judges)} names of .judges "
                           f"(e.g. {next(iter(self.judges))!r}), got {judge!r}")
        return [labels[q][p] for q, p in self.pairs]

    def query_ids(self):
        """The query of each test pair, in the order of :attr:`pairs` (for ``groups=``)."""
        return [q for q, _ in self.pairs]


# ----------------------------------------------------------------- reading

def _folder(directory):
    if directory is None:
        return importlib.resources.files("ragmetrics_edu").joinpath("data", _FOLDER)
    return Path(directory)


def _read_bytes(folder, name):
    path = folder.joinpath(*name.split("/"))
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise FileNotFoundError(f"{name}: missing from {folder} (the LLMJudge data "
                                f"need every file listed in {_MANIFEST})") from None
    except IsADirectoryError:
        raise ValueError(f"{name} in {folder} is a directory, not a file") from None


def _lines(blob, name):
    """``[(line number, text)]`` of a file's non-empty lines; refuses what is not UTF-8 text."""
    try:
        text = blob.decode("utf-8")
    except UnicodeDecodeError as err:
        line = blob[:err.start].count(b"\n") + 1
        raise ValueError(f"{name}, line {line}: not UTF-8 text ({err.reason})") from None
    out = []
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            out.append((number, line))
    return out


def _fail(name, number, why, line):
    shown = line if len(line) <= 80 else line[:80] + "..."
    return ValueError(f"{name}, line {number}: {why}: {shown!r}")


def _check_id(token, kind, name, number, line):
    if not _ID.match(token) or token[0] != kind:
        raise _fail(name, number, f"expected a {'query' if kind == 'q' else 'passage'} id "
                                  f"such as {kind}12, got {token!r}", line)
    return token


def _parse_trec(blob, name, *, graded):
    """``[(line number, qid, pid, grade or None)]`` of a ``qid 0 pid [grade]`` file."""
    rows = []
    width = 4 if graded else 3
    for number, line in _lines(blob, name):
        fields = line.split()
        if len(fields) != width:
            what = "qid 0 pid grade" if graded else "qid 0 pid"
            raise _fail(name, number, f"expected {width} fields ({what}), got {len(fields)}", line)
        qid = _check_id(fields[0], "q", name, number, line)
        if fields[1] != "0":
            raise _fail(name, number, f"the second field must be 0, got {fields[1]!r}", line)
        pid = _check_id(fields[2], "p", name, number, line)
        grade = None
        if graded:
            if not _GRADE.match(fields[3]):
                raise _fail(name, number, f"the grade must be a whole number, got {fields[3]!r}",
                            line)
            grade = int(fields[3])
        rows.append((number, qid, pid, grade))
    return rows


def _nested(rows, name):
    """``{qid: {pid: grade}}``, refusing a pair given twice."""
    out = {}
    for number, qid, pid, grade in rows:
        per_query = out.setdefault(qid, {})
        if pid in per_query:
            raise ValueError(f"{name}, line {number}: the pair ({qid}, {pid}) is given twice")
        per_query[pid] = grade
    return out


def _parse_tsv(blob, name, check_key, check_value):
    out = {}
    for number, line in _lines(blob, name):
        fields = line.split("\t")
        if len(fields) != 2:
            raise _fail(name, number, f"expected 2 tab-separated fields, got {len(fields)}", line)
        key, value = check_key(fields, number, line)
        check_value(value, number, line)
        if key in out:
            raise _fail(name, number, f"{key} is given twice", line)
        out[key] = value
    return out


def _manifest(blob):
    out = {}
    for number, line in _lines(blob, _MANIFEST):
        fields = line.split()
        if len(fields) != 2 or not re.fullmatch(r"[0-9a-f]{64}", fields[0]):
            raise _fail(_MANIFEST, number, "expected a SHA-256 digest and a file name", line)
        out[fields[1]] = fields[0]
    return out


def _check_covers(rows, pairs, name):
    """Every test pair once, nothing else."""
    seen = {(q, p) for _, q, p, _ in rows}
    for number, qid, pid, _ in rows:
        if (qid, pid) not in pairs:
            raise ValueError(f"{name}, line {number}: the pair ({qid}, {pid}) is not one of "
                             f"the {len(pairs)} test pairs of {_PAIRS}")
    missing = [pair for pair in sorted(pairs) if pair not in seen]
    if missing:
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        raise ValueError(f"{name}: grades {len(seen)} of the {len(pairs)} test pairs; missing "
                         f"{missing[0]}{more}")


def _load(directory, verify):
    folder = _folder(directory)
    names = [_MANIFEST, _QRELS, _PAIRS, _DEV, _QUERIES, _QID_MAP, _PID_MAP]
    blobs = {name: _read_bytes(folder, name) for name in names}
    if verify and hashlib.sha256(blobs[_MANIFEST]).hexdigest() != _MANIFEST_SHA256:
        raise ValueError(f"{_MANIFEST} differs from the shipped one (its SHA-256 is not "
                         f"{_MANIFEST_SHA256[:16]}...): the digests it lists cannot be trusted")
    manifest = _manifest(blobs[_MANIFEST])
    judge_files = sorted(n for n in manifest if n.startswith(f"{_JUDGES}/"))
    for name in judge_files:
        blobs[name] = _read_bytes(folder, name)
    for name in manifest:
        if name not in blobs:
            blobs[name] = _read_bytes(folder, name)   # the license: present, and verified below

    pair_rows = _parse_trec(blobs[_PAIRS], _PAIRS, graded=False)
    pairs = tuple((q, p) for _, q, p, _ in pair_rows)
    _nested(pair_rows, _PAIRS)                        # refuses a pair given twice
    pair_set = set(pairs)
    qrel_rows = _parse_trec(blobs[_QRELS], _QRELS, graded=True)
    qrels = _nested(qrel_rows, _QRELS)               # a pair twice, before a pair missing
    _check_covers(qrel_rows, pair_set, _QRELS)
    for number, qid, pid, grade in qrel_rows:
        if grade not in SCALE:
            raise ValueError(f"{_QRELS}, line {number}: the assessors' grade of ({qid}, {pid}) "
                             f"is {grade}, outside the scale 0-3")
    dev_rows = _parse_trec(blobs[_DEV], _DEV, graded=True)
    dev_qrels = _nested(dev_rows, _DEV)
    for number, qid, pid, grade in dev_rows:
        if grade not in SCALE:
            raise ValueError(f"{_DEV}, line {number}: the assessors' grade of ({qid}, {pid}) "
                             f"is {grade}, outside the scale 0-3")
    judges = {}
    for name in judge_files:
        rows = _parse_trec(blobs[name], name, graded=True)
        judges[name[len(_JUDGES) + 1:].removesuffix(".txt")] = _nested(rows, name)
        _check_covers(rows, pair_set, name)

    def query_key(fields, number, line):
        return _check_id(fields[0], "q", _QUERIES, number, line), fields[1]

    def text_value(value, number, line):
        if not value.strip():
            raise _fail(_QUERIES, number, "the query text is empty", line)

    queries = _parse_tsv(blobs[_QUERIES], _QUERIES, query_key, text_value)

    def mapped_key(kind, name):
        def key(fields, number, line):
            return _check_id(fields[1], kind, name, number, line), fields[0]
        return key

    def any_value(name):
        def check(value, number, line):
            if not value or any(c.isspace() for c in value):
                raise _fail(name, number, "the original id must be one word", line)
        return check

    qid_map = _parse_tsv(blobs[_QID_MAP], _QID_MAP, mapped_key("q", _QID_MAP), any_value(_QID_MAP))
    pid_map = _parse_tsv(blobs[_PID_MAP], _PID_MAP, mapped_key("p", _PID_MAP), any_value(_PID_MAP))
    for name, qids in ((_QRELS, qrels), (_DEV, dev_qrels)):
        unknown = sorted(set(qids) - set(queries))
        if unknown:
            raise ValueError(f"{name}: query {unknown[0]} has no text in {_QUERIES}")

    if verify:
        for name, blob in blobs.items():
            if name == _MANIFEST:
                continue
            if name not in manifest:
                raise ValueError(f"{name}: not listed in {_MANIFEST}")
            digest = hashlib.sha256(blob).hexdigest()
            if digest != manifest[name]:
                raise ValueError(
                    f"{name} differs from the shipped LLMJudge file: its SHA-256 is "
                    f"{digest[:16]}..., {_MANIFEST} gives {manifest[name][:16]}... (a changed, "
                    f"truncated or re-encoded copy; pass verify=False to read a copy you "
                    f"changed on purpose)")
    return LLMJudge(qrels=qrels, dev_qrels=dev_qrels, judges=judges, queries=queries,
                    pairs=pairs, qid_map=qid_map, pid_map=pid_map)


def load_llmjudge(directory=None, *, verify=True):
    """Load the LLMJudge data: NIST's grades and 33 LLM judges' grades of the same pairs.

    Parameters
    ----------
    directory : str or os.PathLike, optional
        Read the files from this folder (laid out as the shipped one, with
        its ``SHA256SUMS``) instead of the copy in the package.
    verify : bool, default True
        Check every file against its SHA-256 digest in ``SHA256SUMS``.

    Returns
    -------
    LLMJudge
        ``.qrels`` (the test pairs' grades), ``.dev_qrels``, ``.judges``
        (33), ``.queries`` (50), ``.pairs``, ``.qid_map``, ``.pid_map``.
        The shipped copy is read once per process; each call returns a
        fresh copy of its dicts.

    Raises
    ------
    FileNotFoundError
        A file is missing; the message names it.
    ValueError
        A line is malformed (the message names the file and the line), a
        judge's file does not grade every test pair exactly once, an
        assessor's grade lies outside 0-3, or a file differs from the
        shipped one (the message names it).

    Notes
    -----
    A judge's grade outside 0-3 is loaded as written (``RMITIR-llama70B``
    gives 5 to two pairs, ``h2oloo-zeroshot2`` 10 to one): it is a real
    reply of a real judge.  :func:`~ragmetrics_edu.judge.judge_vs_assessors.grade_agreement`
    refuses it, naming the pair, or counts it as unmeasured.

    References
    ----------
    H. A. Rahmani, C. Siro, M. Aliannejadi, N. Craswell, C. L. A. Clarke,
    G. Faggioli, B. Mitra, P. Thomas and E. Yilmaz, "Judging the judges: a
    collection of LLM-generated relevance judgements", arXiv:2502.13908,
    2025.  H. A. Rahmani et al., "LLMJudge: LLMs for relevance judgments",
    LLM4Eval workshop at SIGIR 2024, arXiv:2408.08896.

    Examples
    --------
    >>> data = load_llmjudge()
    >>> data
    LLMJudge(test: 4423 pairs over 25 queries, dev: 7263 pairs over 25 queries, 33 judges)
    >>> data.queries["q49"]
    'how does a bounty hunter make money'
    >>> # test_qrels.txt: "q49 0 p3659 3"; judges/RMITIR-GPT4o.txt: "q49 0 p3659 2"
    >>> data.qrels["q49"]["p3659"], data.judges["RMITIR-GPT4o"]["q49"]["p3659"]
    (3, 2)
    >>> data.judges["RMITIR-llama70B"]["q0"]["p3021"]   # outside the scale, kept as written
    5
    """
    if not isinstance(verify, bool):
        raise TypeError(f"verify must be True or False, got {verify!r}")
    if directory is not None:
        return _load(directory, verify)
    if verify not in _CACHE:
        _CACHE[verify] = _load(None, verify)
    return _copy(_CACHE[verify])


def _copy(data):
    def nested(d):
        return {q: dict(v) for q, v in d.items()}

    return LLMJudge(qrels=nested(data.qrels), dev_qrels=nested(data.dev_qrels),
                    judges={name: nested(j) for name, j in data.judges.items()},
                    queries=dict(data.queries), pairs=data.pairs, qid_map=dict(data.qid_map),
                    pid_map=dict(data.pid_map))
