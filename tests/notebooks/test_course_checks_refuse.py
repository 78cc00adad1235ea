"""Check cells refuse the wrong answers a student is likely to give.

Each test takes a check cell's code from the student notebook, runs it in a
namespace holding the imports the notebook made and a wrong answer, and
asserts that the check refuses it with a message that names the mistake
(and does not give the right answer away).  The right answer, run the same
way, passes, so each refusal is the check's doing.
"""

import math
import re
from pathlib import Path

import nbformat
import numpy as np
import pytest

import ragmetrics_edu as rm
from ragmetrics_edu.course.exercises import ExerciseFailed, LibraryCallRefused

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"


def _check_cell(notebook, docstring_start):
    """The source of the code cell of ``notebook`` that starts with ``docstring_start``."""
    nb = nbformat.read(next(NOTEBOOKS.glob(notebook)), as_version=4)
    found = [c.source for c in nb.cells
             if c.cell_type == "code" and c.source.startswith('"""' + docstring_start)]
    assert len(found) == 1, f"{notebook}: {len(found)} check cells start with {docstring_start!r}"
    return found[0]


def _run(source, **names):
    namespace = {"rm": rm, "math": math, "np": np, **names}
    exec(compile(source, "<check cell>", "exec"), namespace)
    return namespace


# --- 03, exercise 2: NDCG with the ideal from all judged documents -----------------------

def _ndcg(ideal_cut_at_k):
    def my_ndcg_at_k(rels, judged, k):
        def dcg(grades, cut=True):
            grades = grades[:k] if cut else grades
            return sum(g / math.log2(i + 1) for i, g in enumerate(grades, start=1))
        ideal = dcg(sorted(judged, reverse=True), cut=ideal_cut_at_k)
        return 0.0 if ideal == 0 else dcg(rels) / ideal
    return my_ndcg_at_k


def test_03_ex2_an_ideal_not_cut_at_k_gets_the_hint_that_names_it():
    source = _check_cell("03_*.ipynb", "Check exercise 2")
    _run(source, my_ndcg_at_k=_ndcg(ideal_cut_at_k=True))
    with pytest.raises(ExerciseFailed) as refused:
        _run(source, my_ndcg_at_k=_ndcg(ideal_cut_at_k=False))
    message = str(refused.value)
    assert "ideal ranking is cut at k" in message, message
    assert "log2(2)" not in message, message  # not the discount's hint


# --- 07, exercise 3: reciprocal rank fusion ------------------------------------------------

def _rrf(tie_by_id):
    def my_rrf(rankings, k=60):
        scores = {}
        for ranking in rankings:
            for rank, doc in enumerate(ranking, start=1):
                scores[doc] = scores.get(doc, 0.0) + 1 / (k + rank)
        if tie_by_id:
            return sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))
        return sorted(scores.items(), key=lambda pair: -pair[1])  # stable: first seen first
    return my_rrf


def test_07_ex3_ties_in_insertion_order_are_refused():
    source = _check_cell("07_*.ipynb", "Check exercise 3")
    _run(source, my_rrf=_rrf(tie_by_id=True))
    with pytest.raises(ExerciseFailed, match="by id"):
        _run(source, my_rrf=_rrf(tie_by_id=False))


# --- 07, exercise 4: tune BM25 on the odd queries only -------------------------------------

@pytest.fixture(scope="module")
def lab():
    from ragmetrics_edu.lab import retrievers as rr
    from ragmetrics_edu.lab.datasets import load_cranfield

    return {"rr": rr, "cran": load_cranfield()}


def test_07_ex4_tuning_on_every_query_is_refused(lab):
    rr, cran = lab["rr"], lab["cran"]

    def tune_bm25(grid):  # the mistake the exercise warns against: all 225 queries
        scores = {kb: rm.evaluate(cran.qrels, rr.bm25_run(cran.docs, cran.queries, k1=kb[0], b=kb[1],
                                                          top_k=100), ["ndcg@10"]).mean["ndcg@10"]
                  for kb in grid}
        return max(grid, key=scores.get)

    real_evaluate = rm.evaluate
    with pytest.raises(ExerciseFailed, match="held-out") as refused:
        _run(_check_cell("07_*.ipynb", "Check exercise 4"), tune_bm25=tune_bm25, **lab)
    assert rm.evaluate is real_evaluate, "the check left rm.evaluate patched"
    assert "(2.0, 0.75)" not in str(refused.value)


def test_07_ex4_a_wrong_pick_is_refused_without_printing_the_answer(lab):
    def tune_bm25(grid):  # scores nothing, returns the last pair
        return grid[-1]

    with pytest.raises(ExerciseFailed) as refused:
        _run(_check_cell("07_*.ipynb", "Check exercise 4"), tune_bm25=tune_bm25, **lab)
    message = str(refused.value)
    assert "(0.9, 0.75)" not in message and "(2.0, 0.75)" not in message, message
    assert "higher mean NDCG@10" in message, message


# --- 07, exercise 5: significant, yet tiny -------------------------------------------------

def test_07_ex5_a_zero_variance_difference_is_refused():
    from ragmetrics_edu.lab import significance as sig

    source = _check_cell("07_*.ipynb", "Check exercise 5")
    a = [0.05 * i for i in range(1, 11)]
    _run(source, sig=sig, scores_a=a, scores_b=[s + 0.005 + 0.0001 * (i % 2) for i, s in enumerate(a)])
    for wrong_a, wrong_b in ((a, [s + 0.005 for s in a]),   # the same gain, up to rounding noise
                             ([0.5] * 10, [0.505] * 10)):     # exactly the same gain
        with pytest.raises(ExerciseFailed, match="s_d = 0"):
            _run(source, sig=sig, scores_a=wrong_a, scores_b=wrong_b)


# --- 12, exercise 2: team-draft interleaving stops as soon as either ranking is used up ----

def _team_draft(stop_when):
    def my_team_draft(ranking_a, ranking_b, coins):
        interleaved, teams, coins = [], [], iter(coins)
        size, ranking = {"A": 0, "B": 0}, {"A": list(ranking_a), "B": list(ranking_b)}
        while True:
            left = {t: [d for d in ranking[t] if d not in interleaved] for t in "AB"}
            if stop_when(left):
                break
            team = ("A" if size["A"] < size["B"] else "B") if size["A"] != size["B"] else next(coins)
            if not left[team]:
                break
            interleaved.append(left[team][0])
            teams.append(team)
            size[team] += 1
        return interleaved, teams
    return my_team_draft


def test_12_ex2_a_list_that_stops_too_late_is_refused_in_words():
    source = _check_cell("12_*.ipynb", "Check exercise 2")
    _run(source, my_team_draft=_team_draft(lambda left: not left["A"] or not left["B"]))
    # Going on until the team whose turn it is has nothing left asks for a third coin in the
    # first hand-worked case, which has two: refused in words, not with a bare StopIteration.
    with pytest.raises(ExerciseFailed) as refused:
        _run(source, my_team_draft=_team_draft(lambda left: False))
    message = str(refused.value)
    assert "StopIteration" in message and "EITHER ranking" in message, message
    assert "B has nothing new left" in message, message  # the first case's hint names B
    # Going on until both rankings are used up gives a fourth document: the hint says why not.
    with pytest.raises(ExerciseFailed) as refused:
        _run(source, my_team_draft=_team_draft(lambda left: not left["A"] and not left["B"]))
    message = str(refused.value)
    assert "B has nothing new left: stop" in message and "d3" in message, message


def test_12_ex2_the_random_cases_name_a_list_that_stops_too_late():
    source = _check_cell("12_*.ipynb", "Check exercise 2")
    right = _team_draft(lambda left: not left["A"] or not left["B"])
    late = _team_draft(lambda left: not left["A"] and not left["B"])
    hand = {(("d1", "d2", "d3"), ("d2", "d4", "d1")), (("d1", "d2"), ("d1", "d2")),
            (("a", "b", "c"), ("c", "b", "a"))}

    def right_on_the_hand_cases(ranking_a, ranking_b, coins):
        worked = (tuple(ranking_a), tuple(ranking_b)) in hand
        return (right if worked else late)(ranking_a, ranking_b, coins)

    with pytest.raises(ExerciseFailed, match="stops too late"):
        _run(source, my_team_draft=right_on_the_hand_cases)

# --- 11, exercise 2: right, and cited wrongly -------------------------------------------------

_RIGHT_14 = ("Helium was the best coolant [3]. Four different gases were injected [3]. "
             "The gas was injected through a porous plug at the stagnation region [3].")


@pytest.mark.parametrize("wrong, says", [
    # the stand-in judge finds every nugget in each of these, and their citations are wrong
    ("Helium was not the best coolant [3]. Four different gases were not injected [3]. "
     "The gas was not injected through a porous plug at the stagnation region [3].", "'not'"),
    ("Helium was the worst coolant [3]. Four different gases were injected [3]. "
     "The gas was injected through a porous plug at the stagnation region [3].", "'worst'"),
])
def test_11_ex2_an_answer_that_denies_a_nugget_is_refused(lab, wrong, says):
    source = _check_cell("11_*.ipynb", "Check exercise 2")
    _run(source, right_but_miscited=_RIGHT_14, cran=lab["cran"])
    with pytest.raises(ExerciseFailed, match="does not read negation") as refused:
        _run(source, right_but_miscited=wrong, cran=lab["cran"])
    assert says in str(refused.value), str(refused.value)


def test_11_ex2_citing_the_supporting_abstract_is_refused_though_the_stand_in_says_no(lab):
    # the stand-in finds [1] does not entail the porous-plug sentence (a false negative):
    # its citation recall is 0, yet [1] says exactly that
    answer = _RIGHT_14.replace("region [3].", "region [1].")
    with pytest.raises(ExerciseFailed, match=r"cites \[1\], document 84"):
        _run(_check_cell("11_*.ipynb", "Check exercise 2"), right_but_miscited=answer, cran=lab["cran"])


# --- 11, exercise 3: a sorted list, each id once ---------------------------------------------

def test_11_ex3_an_unsorted_list_or_a_repeated_id_is_refused(lab):
    source = _check_cell("11_*.ipynb", "Check exercise 3")
    with pytest.raises(ExerciseFailed, match="more than once"):
        _run(source, made_hard=["cqa-001", "cqa-001"], **lab)
    with pytest.raises(ExerciseFailed, match="not sorted"):
        _run(source, made_hard=["cqa-002", "cqa-001"], **lab)
    with pytest.raises(ExerciseFailed, match="a list of question ids"):
        _run(source, made_hard={"cqa-001"}, **lab)

# --- by-hand numbers: a library call is refused, arithmetic passes -------------------------

def _kernel_run(source, *cells, **names):
    """``_run`` after ``cells``, each stored in the history ``_ih`` as a kernel does."""
    history = [""]
    namespace = {"rm": rm, "math": math, "np": np, "_ih": history, **names}
    for cell in (*cells, source):
        history.append(cell)
        exec(compile(cell, "<cell>", "exec"), namespace)
    return namespace


def test_02_ex1_my_ap_from_the_library_is_refused_and_named():
    source = _check_cell("02_*.ipynb", "Check exercise 1")
    _kernel_run(source, "my_rr = 1 / 2\nmy_ap = (1 / 2 + 2 / 3 + 3 / 5) / 4")
    with pytest.raises(LibraryCallRefused) as refused:  # the right number, by the library
        _kernel_run(source, "my_rr = 1 / 2\nmy_ap = rm.average_precision([0, 1, 1, 0, 1], 4)")
    message = str(refused.value)
    assert "my_ap" in message and "rm.average_precision" in message and "by hand" in message
    assert "0.44" not in message, message


def test_02_ex1_a_library_call_one_cell_earlier_is_refused():
    source = _check_cell("02_*.ipynb", "Check exercise 1")
    with pytest.raises(LibraryCallRefused, match="rm.reciprocal_rank"):
        _kernel_run(source, "rr = rm.reciprocal_rank([0, 1, 1, 0, 1])",
                    "my_rr = rr\nmy_ap = (1 / 2 + 2 / 3 + 3 / 5) / 4")


def test_02_ex1_in_a_real_kernel():
    """The scan reads the history a Jupyter kernel keeps, as a student's notebook runs."""
    from nbclient import NotebookClient
    from nbformat.v4 import new_code_cell, new_notebook

    check = _check_cell("02_*.ipynb", "Check exercise 1")
    outcomes = {}
    for how, answer_cell in (("by hand", "my_rr = 1 / 2\nmy_ap = (1 / 2 + 2 / 3 + 3 / 5) / 4"),
                             ("library", "my_rr = 1 / 2\n"
                                         "my_ap = rm.average_precision([0, 1, 1, 0, 1], 4)")):
        nb = new_notebook(cells=[new_code_cell("import ragmetrics_edu as rm"),
                                 new_code_cell(answer_cell), new_code_cell(check)])
        NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True).execute()
        outcomes[how] = nb.cells[2].outputs
    assert [o.get("text") for o in outcomes["by hand"]] == ["my_rr: right.\nmy_ap: right.\n"]
    errors = [o for o in outcomes["library"] if o.output_type == "error"]
    assert errors and errors[0].ename == "LibraryCallRefused", outcomes["library"]
    assert "rm.average_precision" in errors[0].evalue


# --- the fingerprints of by-hand numbers: one salt per check, none shared ------------------

SOLVED = sorted((ROOT / "solutions").glob("*.ipynb"))


def _digest_checks(monkeypatch):
    """``[(notebook, name, digest_, salt, decimals)]`` of every check_number call, read by
    running each check cell with check_number replaced by a recorder."""
    calls = []

    def record(name, expected=None, *, digest_=None, salt=None, decimals=3, hint=""):
        calls.append((current[0], name, expected, digest_, salt, decimals))

    monkeypatch.setattr(rm.course.exercises, "check_number", record)
    current = [None]
    for path in SOLVED:
        current[0] = path.name
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code" and "check_number(" in cell.source:
                exec(compile(cell.source, "<check cell>", "exec"), {"rm": rm})
    return calls


def _right_values(notebook):
    """The by-hand answers as the solution regions of ``notebook`` compute them."""
    namespace = {"math": math}
    for cell in nbformat.read(ROOT / "solutions" / notebook, as_version=4).cells:
        if cell.cell_type == "code" and "### BEGIN SOLUTION" in cell.source and "def " not in cell.source:
            try:
                exec(compile(cell.source, "<solution>", "exec"), namespace)
            except Exception:  # noqa: BLE001 - an answer that needs the notebook: not a number
                pass
    return namespace


def test_every_fingerprint_has_its_own_salt_and_verifies_the_solution(monkeypatch):
    import hashlib

    from ragmetrics_edu.course.exercises import digest

    calls = _digest_checks(monkeypatch)
    assert len(calls) >= 30, f"only {len(calls)} check_number calls found"
    by_digest, by_salt, problems = {}, {}, []
    for notebook, name, expected, fp, salt, decimals in calls:
        where = f"{notebook} {name}"
        if fp is None:
            continue  # an expected= check shows its number on purpose
        if not (salt or "").startswith(notebook[:2] + "/"):
            problems.append(f"{where}: salt {salt!r} does not start with {notebook[:2] + '/'!r}")
        by_digest.setdefault(fp, []).append(where)
        by_salt.setdefault(salt, []).append(where)
        value = _right_values(notebook).get(name)
        if not isinstance(value, (int, float)):
            problems.append(f"{where}: no number assigned to {name} in a solution region")
            continue
        if digest(value, salt, decimals) != fp:
            problems.append(f"{where}: the fingerprint is not that of the solution's {value!r}")
        unsalted = hashlib.sha256(f"{round(value, decimals):.{decimals}f}".encode()).hexdigest()[:12]
        if unsalted == fp:
            problems.append(f"{where}: the fingerprint is unsalted")
    problems += [f"fingerprint {fp} shared by {w}" for fp, w in by_digest.items() if len(w) > 1]
    problems += [f"salt {s!r} shared by {w}" for s, w in by_salt.items() if len(w) > 1]
    assert not problems, "\n".join(problems)


def test_a_fingerprint_without_its_salt_does_not_verify():
    import hashlib

    source = _check_cell("02_*.ipynb", "Check exercise 1")
    _run(source, my_rr=1 / 2, my_ap=(1 / 2 + 2 / 3 + 3 / 5) / 4)
    unsalted = hashlib.sha256(b"0.442").hexdigest()[:12]  # the right answer's unsalted fingerprint
    salted = re.search(r'"my_ap", digest_="([0-9a-f]{12})"', source).group(1)
    with pytest.raises(ExerciseFailed, match="my_ap = 0.441667 is not right"):
        _run(source.replace(salted, unsalted), my_rr=1 / 2, my_ap=(1 / 2 + 2 / 3 + 3 / 5) / 4)

# --- 04, exercise 3: sentence BLEU's reference length ----------------------------------------

def _sentence_bleu(pick_r):
    def sentence_bleu(candidate, references, max_n=4):
        precisions = [rm.modified_precision(candidate, references, n) for n in range(1, max_n + 1)]
        if min(precisions) == 0:
            return 0.0
        c = len(candidate.split())
        r = pick_r(c, [len(ref.split()) for ref in references])
        bp = 1.0 if c >= r else math.exp(1 - r / c)
        return bp * math.exp(sum(math.log(p) for p in precisions) / max_n)
    return sentence_bleu


def test_04_ex3_the_shortest_reference_length_is_refused():
    source = _check_cell("04_*.ipynb", "Check exercise 3")
    _run(source, sentence_bleu=_sentence_bleu(
        lambda c, lengths: min(lengths, key=lambda length: (abs(length - c), length))))
    # r = the shortest reference: right whenever the shortest is also the closest
    with pytest.raises(ExerciseFailed) as refused:
        _run(source, sentence_bleu=_sentence_bleu(lambda c, lengths: min(lengths)))
    message = str(refused.value)
    assert "CLOSEST" in message and "need not be the shortest" in message, message
