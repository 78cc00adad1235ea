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


# --- 00, exercise 2: True/False for 1/0 is told so, not given a hint about d9 ------------

def test_00_ex2_booleans_are_told_to_be_numbers_and_any_sequence_of_ints_passes(capsys):
    source = _check_cell("00_*.ipynb", "Check exercise 2")
    for right in (lambda ranking, relevant: [1 if d in relevant else 0 for d in ranking],
                  lambda ranking, relevant: tuple(int(d in relevant) for d in ranking)):
        _run(source, relevance_vector=right)
        assert "right on 4 inputs" in capsys.readouterr().out
    with pytest.raises(ExerciseFailed) as refused:
        _run(source, relevance_vector=lambda ranking, relevant: [d in relevant for d in ranking])
    message = str(refused.value)
    assert "as True/False" in message and "1 and 0" in message, message
    assert "d9" not in message.split("expected")[-1], message  # not the case's hint about d9
    # a list that is wrong, not merely boolean, still gets the case's hint
    with pytest.raises(ExerciseFailed) as refused:
        _run(source, relevance_vector=lambda ranking, relevant: [True] * len(ranking))
    message = str(refused.value)
    assert "True/False" not in message and "never retrieved" in message, message


# --- 01, exercise 1: a right value given to 2 decimals is told so, not given a wrong hint ---

def test_01_ex1_a_value_right_to_2_decimals_is_asked_for_3():
    source = _check_cell("01_*.ipynb", "Check exercise 1")
    _run(source, my_precision=2 / 6, my_f1=4 / 11)  # by hand: TP@6 = 2, R@6 = 2/5, F1 = 4/11
    for precision, f1, name in ((0.33, 4 / 11, "my_precision"), (2 / 6, 0.36, "my_f1")):
        with pytest.raises(ExerciseFailed) as refused:
            _run(source, my_precision=precision, my_f1=f1)
        message = str(refused.value)
        assert message.startswith(f"{name} = ") and "right to 2 decimals" in message, message
        assert "divides by k" not in message and "Recall@6" not in message, message
        assert "0.333" not in message and "0.364" not in message, message
    # dividing by K = 4 (0.5) is wrong, not merely rounded: the hint about k
    with pytest.raises(ExerciseFailed) as refused:
        _run(source, my_precision=0.5, my_f1=4 / 11)
    message = str(refused.value)
    assert "divides by k" in message and "right to 2 decimals" not in message, message


# --- 01, exercise 3: recall counts documents, not grades -----------------------------------

def test_01_ex3_summing_grades_is_refused():
    source = _check_cell("01_*.ipynb", "Check exercise 3")

    def right(rels, k, n_relevant):
        return 0.0 if n_relevant == 0 else sum(1 for r in rels[:k] if r > 0) / n_relevant

    def sums_grades(rels, k, n_relevant):
        return 0.0 if n_relevant == 0 else sum(rels[:k]) / n_relevant

    _run(source, my_recall_at_k=right)
    with pytest.raises(ExerciseFailed, match="do not add up their grades"):
        _run(source, my_recall_at_k=sums_grades)


# --- 01, exercise 4: the mean over queries, not the pooled counts --------------------------

def test_01_ex4_pooling_the_queries_counts_gets_the_per_query_hint():
    source = _check_cell("01_*.ipynb", "Check exercise 4")
    _run(source, my_mean_recall=(1 / 2 + 0 / 1) / 2)  # by hand: q1 ranks b, c, a; q2 d, f, e
    with pytest.raises(ExerciseFailed) as refused:  # 1 found of the 3 relevant of both queries
        _run(source, my_mean_recall=1 / 3)
    message = str(refused.value)
    assert "each query on its own" in message and "over all their relevant" in message, message


# --- 01, exercise 6: systems under other names -----------------------------------------------

def test_01_ex6_systems_under_other_names_are_told_the_names_the_check_reads():
    from ragmetrics_edu.course.exercises import NotAttempted

    source = _check_cell("01_*.ipynb", "Check exercise 6")
    a, b = {"q1": [1, 0, 0], "q2": [1, 1, 1]}, {"q1": [1, 1, 0], "q2": [0, 0, 0]}
    _run(source, system_a=a, system_b=b)
    for names in ({"A": a, "B": b}, {"system_a": a, "B": b}):
        with pytest.raises(NotAttempted) as refused:
            _run(source, **names)
        assert "named system_a and system_b" in str(refused.value), str(refused.value)


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


# --- 09, exercise 2: Holm by hand, and what Bonferroni says ------------------------------

def test_09_ex2_what_bonferroni_says_is_folded_after_the_check_not_in_it(capsys):
    source = _check_cell("09_*.ipynb", "Check exercise 2")
    assert "0.090" not in source and "0.040" not in source  # the answers, readable in the source
    with pytest.raises(ExerciseFailed, match="running maximum") as refused:
        _run(source, my_holm_ac=0.030)  # 1 x 0.030, without the running maximum
    assert "0.090" not in str(refused.value)
    _run(source, my_holm_ac=max(3 * 0.004, 2 * 0.020, 1 * 0.030))
    assert "my_holm_ac: right" in capsys.readouterr().out
    cells = nbformat.read(next(NOTEBOOKS.glob("09_*.ipynb")), as_version=4).cells
    after = next(cells[i + 1].source for i, c in enumerate(cells) if c.source == source)
    assert after.startswith("<details>") and "0.090" in after and "Bonferroni" in after, after


# --- 09, exercise 3: reciprocal rank fusion ------------------------------------------------

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


def test_09_ex3_ranks_from_0_get_the_hint_that_names_them():
    def my_rrf(rankings, k=60):  # enumerate() from 0: every score 1 / (k + rank - 1)
        scores = {}
        for ranking in rankings:
            for rank, doc in enumerate(ranking):
                scores[doc] = scores.get(doc, 0.0) + 1 / (k + rank)
        return sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))

    with pytest.raises(ExerciseFailed, match="ranks count from 1"):
        _run(_check_cell("09_*.ipynb", "Check exercise 3"), my_rrf=my_rrf)


def test_09_ex3_ties_in_insertion_order_are_refused():
    source = _check_cell("09_*.ipynb", "Check exercise 3")
    _run(source, my_rrf=_rrf(tie_by_id=True))
    with pytest.raises(ExerciseFailed, match="by id"):
        _run(source, my_rrf=_rrf(tie_by_id=False))


# --- 09, exercise 4: tune BM25 on the odd queries only -------------------------------------

@pytest.fixture(scope="module")
def lab():
    from ragmetrics_edu.lab import retrievers as rr
    from ragmetrics_edu.lab.datasets import load_cranfield

    return {"rr": rr, "cran": load_cranfield()}


def test_09_ex4_tuning_on_every_query_is_refused(lab):
    rr, cran = lab["rr"], lab["cran"]

    def tune_bm25(grid):  # the mistake the exercise warns against: all 225 queries
        scores = {kb: rm.evaluate(cran.qrels, rr.bm25_run(cran.docs, cran.queries, k1=kb[0], b=kb[1],
                                                          depth=100), metrics=["ndcg@10"]).mean["ndcg@10"]
                  for kb in grid}
        return max(grid, key=scores.get)

    real_evaluate = rm.evaluate
    with pytest.raises(ExerciseFailed, match="held-out") as refused:
        _run(_check_cell("09_*.ipynb", "Check exercise 4"), tune_bm25=tune_bm25, **lab)
    assert rm.evaluate is real_evaluate, "the check left rm.evaluate patched"
    assert "(2.0, 0.75)" not in str(refused.value)


def test_09_ex4_a_wrong_pick_is_refused_without_printing_the_answer(lab):
    def tune_bm25(grid):  # scores nothing, returns the last pair
        return grid[-1]

    with pytest.raises(ExerciseFailed) as refused:
        _run(_check_cell("09_*.ipynb", "Check exercise 4"), tune_bm25=tune_bm25, **lab)
    message = str(refused.value)
    assert "(0.9, 0.75)" not in message and "(2.0, 0.75)" not in message, message
    assert "higher mean NDCG@10" in message, message


# --- 09, exercise 5: significant, yet tiny -------------------------------------------------

def test_09_ex5_a_zero_variance_difference_is_refused():
    from ragmetrics_edu.lab import significance as sig

    source = _check_cell("09_*.ipynb", "Check exercise 5")
    a = [0.05 * i for i in range(1, 11)]
    _run(source, sig=sig, scores_a=a, scores_b=[s + 0.005 + 0.0001 * (i % 2) for i, s in enumerate(a)])
    for wrong_a, wrong_b in ((a, [s + 0.005 for s in a]),   # the same gain, up to rounding noise
                             ([0.5] * 10, [0.505] * 10)):     # exactly the same gain
        with pytest.raises(ExerciseFailed, match="s_d = 0"):
            _run(source, sig=sig, scores_a=wrong_a, scores_b=wrong_b)


def test_09_ex5_the_verdict_names_the_students_own_difference(capsys):
    from ragmetrics_edu.lab import significance as sig

    a = [0.05 * i for i in range(1, 11)]
    _run(_check_cell("09_*.ipynb", "Check exercise 5"), sig=sig, scores_a=a,
         scores_b=[s + 0.008 + 0.0001 * (i % 2) for i, s in enumerate(a)])
    said = capsys.readouterr().out
    assert "whether 0.0081 NDCG matters" in said, said


# --- 10, exercise 1: NDCG@3 with the exponential gain is told so, not given the ideal's hint --

def test_10_ex1_the_exponential_gain_is_named(capsys):
    from sklearn.metrics import ndcg_score

    source = _check_cell("10_*.ipynb", "Check exercise 1")
    # grades 0, 2, 1 retrieved; a grade-3 document never retrieved; discount log2(i + 1)
    l3, l4 = math.log2(3), math.log2(4)
    right = {"my_ndcg_judged": (2 / l3 + 1 / l4) / (3 + 2 / l3 + 1 / l4),
             "my_ndcg_retrieved": (2 / l3 + 1 / l4) / (2 + 1 / l3)}
    _run(source, **right)
    assert capsys.readouterr().out == "my_ndcg_judged: right.\nmy_ndcg_retrieved: right.\n"
    # gains 2**g - 1: 0, 3, 1 retrieved, 7 for the missed document
    exponential = {"my_ndcg_judged": (3 / l3 + 1 / l4) / (7 + 3 / l3 + 1 / l4),
                   "my_ndcg_retrieved": (3 / l3 + 1 / l4) / (3 + 1 / l3)}
    # the same by scikit-learn, given the gains as grades (the missed document scored lowest,
    # so that it enters the ideal ranking only)
    assert ndcg_score([[0, 3, 1, 7]], [[3, 2, 1, 0]], k=3) == pytest.approx(exponential["my_ndcg_judged"])
    assert ndcg_score([[0, 3, 1]], [[3, 2, 1]], k=3) == pytest.approx(exponential["my_ndcg_retrieved"])
    for name, value in exponential.items():
        for given in (round(value, 3), value):
            with pytest.raises(ExerciseFailed) as refused:
                _run(source, **{**right, name: given})
            message = str(refused.value)
            assert message.startswith(f"{name} = ") and "exponential gain 2**g - 1" in message
            assert "linear gains" in message and f"{right[name]:.3f}" not in message, message
    # another wrong number gets the hint about the ideal ranking
    with pytest.raises(ExerciseFailed) as refused:
        _run(source, **{**right, "my_ndcg_judged": right["my_ndcg_retrieved"]})
    message = str(refused.value)
    assert "exponential" not in message and "grades 3, 2, 1" in message, message


# --- 14, exercise 2: team-draft interleaving, each rule named when it is broken ------------

def _team_draft(stop_when, coin="tie"):
    """A team draft that stops when ``stop_when(left)``; ``coin`` says when a coin is taken:
    "tie" (the rule), "every pick", "by position" (coins[len(list)], on a tie) or
    "before stopping" (on a tie, before checking whether the list goes on)."""
    def my_team_draft(ranking_a, ranking_b, coins):
        interleaved, teams, queue = [], [], iter(coins)
        size, ranking = {"A": 0, "B": 0}, {"A": list(ranking_a), "B": list(ranking_b)}
        while True:
            left = {t: [d for d in ranking[t] if d not in interleaved] for t in "AB"}
            level = size["A"] == size["B"]
            if coin == "before stopping" and level:
                team = next(queue)
            if stop_when(left):
                break
            if coin == "every pick":
                team = next(queue)
            elif not level:
                team = "A" if size["A"] < size["B"] else "B"
            elif coin == "by position":
                team = coins[len(interleaved)]
            elif coin == "tie":
                team = next(queue)
            if not left[team]:
                break
            interleaved.append(left[team][0])
            teams.append(team)
            size[team] += 1
        return interleaved, teams
    return my_team_draft


def _either(left):
    return not left["A"] or not left["B"]


def test_14_ex2_a_list_that_stops_too_late_is_refused_in_words():
    source = _check_cell("14_*.ipynb", "Check exercise 2")
    _run(source, my_team_draft=_team_draft(_either))
    # Going on until the team whose turn it is has nothing left asks for a third coin in the
    # first hand-worked case, which has two: refused in words, not with a bare StopIteration.
    with pytest.raises(ExerciseFailed) as refused:
        _run(source, my_team_draft=_team_draft(lambda left: False))
    message = str(refused.value)
    assert "StopIteration" in message and "EITHER ranking" in message, message
    assert "stops too late" in message and "not level" not in message, message
    assert "B has nothing new left" in message, message  # the first case's hint names B
    # Going on until both rankings are used up gives a fourth document: the hint says why not.
    with pytest.raises(ExerciseFailed) as refused:
        _run(source, my_team_draft=_team_draft(lambda left: not left["A"] and not left["B"]))
    message = str(refused.value)
    assert "B has nothing new left: stop" in message and "d3" in message, message


@pytest.mark.parametrize("coin, error, says, not_says", [
    # a coin before every pick runs out of coins: the rule broken is the coin, not the stop
    ("every pick", "StopIteration", "a coin used when the teams were not level", "EITHER"),
    # coins read by the pick's position run off the end of the list: the coins' order
    ("by position", "IndexError", "the coins are used in order, one per tie", "EITHER"),
    # a coin taken on a tie before the stopping rule: the lists are right, one coin too many
    ("before stopping", "StopIteration", "a coin it never uses", "not level"),
])
def test_14_ex2_a_coin_taken_out_of_turn_is_named(coin, error, says, not_says):
    source = _check_cell("14_*.ipynb", "Check exercise 2")
    with pytest.raises(ExerciseFailed) as refused:
        _run(source, my_team_draft=_team_draft(_either, coin=coin))
    message = str(refused.value)
    assert f"raised {error}" in message and says in message, message
    assert not_says not in message.split("In words:")[1], message


_HAND = {(("d1", "d2", "d3"), ("d2", "d4", "d1")), (("d1", "d2"), ("d1", "d2")),
         (("a", "b", "c"), ("c", "b", "a"))}


def _right_on_the_hand_cases(wrong):
    right = _team_draft(_either)

    def my_team_draft(ranking_a, ranking_b, coins):
        worked = (tuple(ranking_a), tuple(ranking_b)) in _HAND
        return (right if worked else wrong)(ranking_a, ranking_b, coins)
    return my_team_draft


@pytest.mark.parametrize("wrong, says", [
    (_team_draft(lambda left: not left["A"] and not left["B"]), "stops too late"),
    (_team_draft(_either, coin="every pick"), "a coin used when the teams were not level"),
    (_team_draft(_either, coin="by position"), "the coins are used in order, one per tie"),
])
def test_14_ex2_the_random_cases_name_the_rule_broken(wrong, says):
    source = _check_cell("14_*.ipynb", "Check exercise 2")
    with pytest.raises(ExerciseFailed, match=says) as refused:
        _run(source, my_team_draft=_right_on_the_hand_cases(wrong))
    assert "on ranking_a=" in str(refused.value)


def test_14_ex2_the_random_cases_do_not_trust_a_function_that_eats_its_coins():
    """An answer that pops the coins it uses is right: the check keeps its own copy."""
    source = _check_cell("14_*.ipynb", "Check exercise 2")

    def popping(ranking_a, ranking_b, coins):
        interleaved, teams = [], []
        while True:
            left = {t: [d for d in r if d not in interleaved]
                    for t, r in (("A", ranking_a), ("B", ranking_b))}
            if not left["A"] or not left["B"]:
                return interleaved, teams
            na, nb = teams.count("A"), teams.count("B")
            team = coins.pop(0) if na == nb else ("A" if na < nb else "B")
            interleaved.append(left[team][0])
            teams.append(team)

    _run(source, my_team_draft=popping)

# --- 13, exercise 2: right, and cited wrongly -------------------------------------------------

_RIGHT_14 = ("Helium was the best coolant [3]. Four different gases were injected [3]. "
             "The gas was injected through a porous plug at the stagnation region [3].")


@pytest.mark.parametrize("wrong, says", [
    # the stand-in judge finds every nugget in each of these, and their citations are wrong
    ("Helium was not the best coolant [3]. Four different gases were not injected [3]. "
     "The gas was not injected through a porous plug at the stagnation region [3].", "'not'"),
    ("Helium was the worst coolant [3]. Four different gases were injected [3]. "
     "The gas was injected through a porous plug at the stagnation region [3].", "'worst'"),
])
def test_13_ex2_an_answer_that_denies_a_nugget_is_refused(lab, wrong, says):
    source = _check_cell("13_*.ipynb", "Check exercise 2")
    _run(source, right_but_miscited=_RIGHT_14, cran=lab["cran"])
    with pytest.raises(ExerciseFailed, match="does not read negation") as refused:
        _run(source, right_but_miscited=wrong, cran=lab["cran"])
    assert says in str(refused.value), str(refused.value)


_OKAY_14 = ("Four different gases were injected [3]. "
            "The gas was injected through a porous plug at the stagnation region [3].")


@pytest.mark.parametrize("wrong, says", [
    # wrong facts that the stand-in judge finds as the three nuggets, each cited wrongly
    ("Helium was the second best coolant [3]. " + _OKAY_14, "'second'"),
    ("Argon was the best coolant, better than helium [3]. " + _OKAY_14, "'argon'"),
    ("Helium was the best coolant [3]. Three different gases were injected [3]. "
     "The gas was injected through a porous plug at the stagnation region [3].", "'three' gases"),
])
def test_13_ex2_a_wrong_fact_the_stand_in_accepts_is_refused(lab, wrong, says):
    from ragmetrics_edu import judge as rj
    from ragmetrics_edu.judge.citations import entailment_from_judge

    judge = rj.EmbeddingJudge()
    found = rm.assign_nuggets(judge, "Which gas cooled best?", re.sub(r" \[\d\]", "", wrong),
                              rm.load_cranfield_nuggets()["cqa-014"])
    assert [n["assignment"] for n in found] == ["support"] * 3          # the stand-in is fooled
    passages = [lab["cran"].docs[d]["text"] for d in ("84", "353", "480")]
    assert rm.citation_scores(wrong, passages, entails=entailment_from_judge(judge)).recall == 0
    with pytest.raises(ExerciseFailed) as refused:
        _run(_check_cell("13_*.ipynb", "Check exercise 2"), right_but_miscited=wrong, cran=lab["cran"])
    message = str(refused.value)
    assert says in message, message
    told = message.lower().replace(wrong.lower().split(" [3]")[0], "")   # the student's own words aside
    assert "helium was the best" not in told and "four" not in told and "porous plug" not in told, message


def test_13_ex2_a_nugget_in_other_words_is_refused_without_the_answer(lab):
    # "a good coolant" holds no wrong word, and does not state the vital fact
    with pytest.raises(ExerciseFailed, match="which gas was the best coolant") as refused:
        _run(_check_cell("13_*.ipynb", "Check exercise 2"), right_but_miscited=(
            "Helium was a good coolant [3]. " + _OKAY_14), cran=lab["cran"])
    assert "helium" not in str(refused.value).lower().replace("helium was a good coolant", "")


def test_13_ex2_citing_the_supporting_abstract_is_refused_though_the_stand_in_says_no(lab):
    # the stand-in finds [1] does not entail the porous-plug sentence (a false negative):
    # its citation recall is 0, yet [1] says exactly that
    answer = _RIGHT_14.replace("region [3].", "region [1].")
    with pytest.raises(ExerciseFailed, match=r"cites \[1\], document 84"):
        _run(_check_cell("13_*.ipynb", "Check exercise 2"), right_but_miscited=answer, cran=lab["cran"])


# --- 13, exercise 3: a sorted list, each id once ---------------------------------------------

def test_13_ex3_an_unsorted_list_or_a_repeated_id_is_refused(lab):
    source = _check_cell("13_*.ipynb", "Check exercise 3")
    with pytest.raises(ExerciseFailed, match="more than once"):
        _run(source, made_hard=["cqa-001", "cqa-001"], **lab)
    with pytest.raises(ExerciseFailed, match="not sorted"):
        _run(source, made_hard=["cqa-002", "cqa-001"], **lab)
    with pytest.raises(ExerciseFailed, match="a list of ids"):
        _run(source, made_hard={"cqa-001"}, **lab)
    assert "bm25_run" not in source and "_expected" not in source  # no code that finds the answer

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

    def record(name, expected=None, *, digest_=None, salt=None, decimals=3, hint="", by_hand=True,
               slips=(), slack=1):
        if any(slip == digest_ for slip, _ in slips):
            raise AssertionError(f"{current[0]} {name}: a slip's fingerprint is the right answer's")
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


FOUND_IN_THE_DATA = {("12", "n_ppi_beats_1000")}
"""By-hand checks whose answer the solution computes from the notebook's data, so it cannot
be recomputed from the solution region alone: nbval runs the solved notebook, whose check
cell then verifies the fingerprint against the solution's own value."""


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
        if not isinstance(value, (int, float)) and (notebook[:2], name) in FOUND_IN_THE_DATA:
            continue  # verified where the solved notebook runs its check on its own value (nbval)
        if not isinstance(value, (int, float)):
            problems.append(f"{where}: no number assigned to {name} in a solution region")
            continue
        if digest(value, salt, decimals=decimals) != fp:
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
        precisions = [rm.modified_precision(candidate, references, n=n) for n in range(1, max_n + 1)]
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

# --- 05, exercise 1: chrF by hand, its F-score and its spaces ------------------------------

_P05, _R05 = (4 / 6 + 2 / 5) / 2, (4 / 5 + 2 / 4) / 2  # "heruns" against "heran", orders 1-2


def test_05_ex1_chrf_an_f1_or_a_reversed_weight_is_named_and_the_right_answer_passes(capsys):
    source = _check_cell("05_*.ipynb", "Check exercise 1")
    _run(source, my_p=_P05, my_r=_R05, my_chrf=5 * _P05 * _R05 / (4 * _P05 + _R05))
    assert "my_chrf: right" in capsys.readouterr().out
    for wrong, says in [(2 * _P05 * _R05 / (_P05 + _R05), "F1 of your P and R"),
                        (5 * _P05 * _R05 / (_P05 + 4 * _R05), "weighs precision more")]:
        with pytest.raises(ExerciseFailed) as refused:
            _run(source, my_p=_P05, my_r=_R05, my_chrf=wrong)
        message = str(refused.value)
        assert message.startswith("my_chrf = ") and says in message, message
        assert "0.623" not in message, message


def test_05_ex1_chrf_with_the_spaces_kept_is_told_to_remove_them():
    source = _check_cell("05_*.ipynb", "Check exercise 1")
    # spaces kept: "he runs" has 7 characters and 6 bigrams, "he ran" 6 and 5
    p, r = (5 / 7 + 3 / 6) / 2, (5 / 6 + 3 / 5) / 2
    with pytest.raises(ExerciseFailed) as refused:
        _run(source, my_p=p, my_r=r, my_chrf=5 * p * r / (4 * p + r))
    message = str(refused.value)
    assert "my_p = " in message and "my_r = " in message, message
    assert message.count("Remove the spaces first") == 2, message
    assert "check P and R first" in message, message  # the F-score itself follows from them


# --- 05, exercise 2: sentence chrF, implemented -------------------------------------------

def _my_chrf(spaces=False, clip=True, empty_orders_count=False):
    """Sentence chrF as exercise 2 asks, or with one of three slips."""
    from collections import Counter

    def my_sentence_chrf(candidate, reference, n_max=6, beta=2):
        cand, ref = (candidate, reference) if spaces else ("".join(candidate.split()),
                                                           "".join(reference.split()))
        ps, rs = [], []
        for n in range(1, n_max + 1):
            c = Counter(cand[i:i + n] for i in range(len(cand) - n + 1))
            r = Counter(ref[i:i + n] for i in range(len(ref) - n + 1))
            if not c or not r:
                if empty_orders_count:
                    ps.append(0.0)
                    rs.append(0.0)
                continue
            m = sum((c & r).values()) if clip else sum(k for g, k in c.items() if g in r)
            ps.append(m / sum(c.values()))
            rs.append(min(m / sum(r.values()), 1.0))
        if not ps or sum(ps) + sum(rs) == 0:
            return 0.0
        pm, rm_ = sum(ps) / len(ps), sum(rs) / len(rs)
        return (1 + beta ** 2) * pm * rm_ / (beta ** 2 * pm + rm_)
    return my_sentence_chrf


def test_05_ex2_each_slip_is_named_and_the_hand_values_are_sacrebleus(capsys):
    from sacrebleu.metrics import CHRF

    source = _check_cell("05_*.ipynb", "Check exercise 2")
    _run(source, my_sentence_chrf=_my_chrf())
    assert "right on 7 inputs" in capsys.readouterr().out
    for slip, says in [({"spaces": True}, "remove the spaces"), ({"clip": False}, "clipping"),
                       ({"empty_orders_count": True}, "leave order 2 out")]:
        with pytest.raises(ExerciseFailed, match=says):
            _run(source, my_sentence_chrf=_my_chrf(**slip))
    # the expected values written in the check cell are sacrebleu's (chrF, word order 0)
    cases = re.findall(r'\(\(("[^"]*"), ("[^"]*"), (\d)(?:, (\d))?\), ([\d /.]+),', source)
    assert len(cases) == 7, cases
    for cand, ref, n, beta, expected in cases:
        metric = CHRF(char_order=int(n), word_order=0, beta=int(beta or 2))
        got = metric.sentence_score(eval(cand), [eval(ref)]).score / 100
        assert got == pytest.approx(eval(expected), abs=1e-9), (cand, ref, n, beta)


# --- 05, exercise 4: the same BLEU, different chrF ---------------------------------------

def test_05_ex4_a_pair_bleu_separates_or_chrf_does_not_is_refused(capsys):
    source = _check_cell("05_*.ipynb", "Check exercise 4")
    _run(source, cand_a="the cats sat on the mat", cand_b="the dog sat on the mat")
    assert "Right:" in capsys.readouterr().out
    with pytest.raises(ExerciseFailed, match="BLEU-4 tells them apart"):  # a reordering
        _run(source, cand_a="the cat sat on the mat", cand_b="the mat sat on the cat")
    with pytest.raises(ExerciseFailed, match="less than 0.05 apart"):  # no shared character
        _run(source, cand_a="the xyz sat on the mat", cand_b="the qqq sat on the mat")
    with pytest.raises(ExerciseFailed, match="give two different candidates"):
        _run(source, cand_a="the cats sat on the mat", cand_b="the  cats sat on the mat")


# --- 06, exercise 1: an F1 right from a wrong R points at P and R -------------------------

def test_06_ex1_an_f1_computed_from_a_wrong_r_gets_the_hint_check_p_and_r():
    source = _check_cell("06_*.ipynb", "Check exercise 1")
    _run(source, my_p=(0.9 + 0.8) / 2, my_r=(0.9 + 0.8 + 0.4) / 3, my_f1=2 * 0.85 * 0.7 / 1.55)
    with pytest.raises(ExerciseFailed) as refused:  # R over the row maxima, F1 right from it
        _run(source, my_p=0.85, my_r=0.85, my_f1=0.85)
    message = str(refused.value)
    assert "check P and R first" in message and "2PR / (P + R)" not in message, message
    with pytest.raises(ExerciseFailed) as refused:  # P and R right, F1 the plain mean (0.775)
        _run(source, my_p=0.85, my_r=0.7, my_f1=(0.85 + 0.7) / 2)
    message = str(refused.value)
    assert "harmonic mean" in message and "check P and R first" not in message, message


# --- 06, exercise 3: F1 as the plain mean of P and R ---------------------------------------

def _greedy(f1):
    def greedy_bertscore(similarity, candidate_weights, reference_weights):
        s = np.asarray(similarity, dtype=float)
        w_c = np.asarray(candidate_weights, dtype=float)
        w_r = np.asarray(reference_weights, dtype=float)
        p = float((s.max(axis=1) * w_c).sum() / w_c.sum())
        r = float((s.max(axis=0) * w_r).sum() / w_r.sum())
        return p, r, f1(p, r)
    return greedy_bertscore


def test_06_ex3_f1_as_the_plain_mean_gets_its_own_hint():
    source = _check_cell("06_*.ipynb", "Check exercise 3")
    _run(source, greedy_bertscore=_greedy(lambda p, r: 0.0 if p + r == 0 else 2 * p * r / (p + r)))
    with pytest.raises(ExerciseFailed) as refused:
        _run(source, greedy_bertscore=_greedy(lambda p, r: (p + r) / 2))
    message = str(refused.value)
    assert "harmonic mean" in message and "row maxima" not in message, message


# --- 06, exercise 4: the opposite of the reference, not a "no" beside it --------------------

@pytest.mark.parametrize("wrong, says", [
    ("No, the plane touched down safely.", "affirms the reference"),  # F1 0.8684, above 0.8147
    ("The plane touched down safely and did not crash.", "affirms the reference"),  # 0.8388
    ("The aircraft crashed.", "negating what it claims"),  # the opposite, without a negation
])
def test_06_ex4_an_answer_that_does_not_negate_the_claim_is_refused(wrong, says):
    source = _check_cell("06_*.ipynb", "Check exercise 4")
    _run(source, wrong_answer="The plane did not touch down safely.")
    with pytest.raises(ExerciseFailed, match=says):
        _run(source, wrong_answer=wrong)


# --- 11, exercise 1: each likely slip of token F1 by hand is named -------------------------

def _f1(p, r):
    return 2 * p * r / (p + r)


@pytest.mark.parametrize("wrong, says", [
    # the answer "kinetic mechanism includes 6 species and 14 reactions" has 8 words, the
    # reference "6 species and 14 reactions" 5, all shared: P = 5/8, R = 1, F1 = 10/13
    (_f1(5 / 7, 1), "answer of 7 words"),         # one answer word missed: 10/12
    (_f1(5 / 9, 1), "That counts 'the'"),          # "the" kept: 10/14
    (_f1(4 / 7, 1), "That leaves out 'and'"),      # "and" removed as if an article: 8/11
    (0.833, "answer of 7 words"),                  # the same slips typed to 3 decimals
    (0.714, "That counts 'the'"),
    (5 / 8, "precision alone"),
    (1.0, "recall alone"),
    ((5 / 8 + 1) / 2, "plain mean"),               # 0.8125, typed as 0.813 too
    (0.813, "plain mean"),
])
def test_11_ex1_each_likely_slip_gets_its_own_words(wrong, says, capsys):
    source = _check_cell("11_*.ipynb", "Check exercise 1")
    _run(source, my_f1=10 / 13)
    assert "my_f1: right" in capsys.readouterr().out
    with pytest.raises(ExerciseFailed) as refused:
        _run(source, my_f1=wrong)
    message = str(refused.value)
    assert says in message, message
    assert "0.769" not in message and "10/13" not in message and "8 words" not in message, message


def test_11_ex1_another_wrong_value_gets_the_general_hint():
    source = _check_cell("11_*.ipynb", "Check exercise 1")
    with pytest.raises(ExerciseFailed) as refused:   # shared words 4 of 8 and 5: P 1/2, R 4/5
        _run(source, my_f1=_f1(4 / 8, 4 / 5))
    message = str(refused.value)
    assert "precision = shared words / the ANSWER's words" in message, message
    assert "7 words" not in message and "'the'" not in message.split("articles")[0], message


# --- 11, exercise 2: the references are normalised too ---------------------------------------

def test_11_ex2_normalising_only_the_prediction_is_told_to_normalise_the_references():
    source = _check_cell("11_*.ipynb", "Check exercise 2")

    def right(prediction, references):
        return float(any(rm.normalize_answer(prediction) == rm.normalize_answer(r) for r in references))

    def prediction_only(prediction, references):
        return float(any(rm.normalize_answer(prediction) == r for r in references))

    def first_reference_only(prediction, references):
        return float(rm.normalize_answer(prediction) == rm.normalize_answer(references[0]))

    _run(source, my_exact_match=right)
    with pytest.raises(ExerciseFailed) as refused:
        _run(source, my_exact_match=prediction_only)
    message = str(refused.value)
    assert "normalise the references too" in message and "any reference" not in message, message
    with pytest.raises(ExerciseFailed, match="a match with any reference counts"):
        _run(source, my_exact_match=first_reference_only)


# --- 11, exercise 4: "no better" is mostly "the same" ----------------------------------------

@pytest.fixture(scope="module")
def rag11():
    from ragmetrics_edu.lab import retrievers as rr
    from ragmetrics_edu.lab.datasets import qa_queries

    cran, qa = rm.load_cranfield(), rm.load_cranfield_qa()
    queries = qa_queries(qa)
    runs = {"bm25": rr.bm25_run(cran.docs, queries, depth=100),
            "dense": rr.dense_run(cran.docs, queries, depth=100)}
    return {"runs": runs, "answerer": rm.ExtractiveAnswerer()}


def test_11_ex4_the_right_list_hears_that_most_of_it_are_ties(rag11, capsys):
    source = _check_cell("11_*.ipynb", "Check exercise 4")
    # BM25 ranks the supporting document higher on 11 questions; on cqa-001 its answer scores
    # less (0.0 against 0.083), on the other 8 the same (6 times the very same sentence)
    right = ["cqa-001", "cqa-011", "cqa-013", "cqa-020", "cqa-024", "cqa-040", "cqa-059",
             "cqa-063", "cqa-066"]
    _run(source, no_better_answer=right, **rag11)
    assert "no_better_answer: right (9 items)" in capsys.readouterr().out
    with pytest.raises(ExerciseFailed) as refused:  # strictly lower F1 only
        _run(source, no_better_answer=["cqa-001"], **rag11)
    message = str(refused.value)
    assert "misses 8 item(s)" in message and "includes equal" in message, message
    assert "cqa-011" not in message and "_answer(" not in source  # neither the ids nor the method
    # the right list, worked out here independently of the check: BM25's reciprocal rank
    # strictly larger, and its answer's token F1 not larger
    qa = {it.id: it for it in rm.load_cranfield_qa()}

    def rr(run, q):
        ranking = sorted(run[q], key=run[q].get, reverse=True)[:100]
        return next((1 / i for i, d in enumerate(ranking, 1) if d in qa[q].doc_ids), 0.0)

    def f1(name, q):
        docs = sorted(rag11["runs"][name][q], key=rag11["runs"][name][q].get, reverse=True)[:3]
        return rm.token_f1(rag11["answerer"](qa[q].question, docs).text, list(qa[q].answers))

    found = sorted(q for q in qa if rr(rag11["runs"]["bm25"], q) > rr(rag11["runs"]["dense"], q)
                   and f1("bm25", q) <= f1("dense", q))
    assert found == right

# --- 08, exercise 2: shared words counted with a set, not a Counter ------------------------

def _token_f1(count_shared):
    def my_token_f1(prediction, reference):
        pred = rm.normalize_answer(prediction).split()
        ref = rm.normalize_answer(reference).split()
        if not pred or not ref:
            return float(pred == ref)
        shared = count_shared(pred, ref)
        if shared == 0:
            return 0.0
        p, r = shared / len(pred), shared / len(ref)
        return 2 * p * r / (p + r)
    return my_token_f1


def test_08_ex2_shared_words_counted_once_by_a_set_are_refused_in_words(capsys):
    from collections import Counter
    source = _check_cell("08_*.ipynb", "Check exercise 2")
    _run(source, my_token_f1=_token_f1(lambda p, r: sum((Counter(p) & Counter(r)).values())))
    assert "right on 8 inputs" in capsys.readouterr().out
    with pytest.raises(ExerciseFailed) as refused:  # "lift lift drag" vs "lift lift": 0.4, not 0.8
        _run(source, my_token_f1=_token_f1(lambda p, r: len(set(p) & set(r))))
    message = str(refused.value)
    assert "shared twice" in message and "a set counts it once" in message, message


# --- 08, exercise 1: kappa by hand, its fingerprint salted with the new lesson number ------

def test_08_ex1_the_right_kappa_passes_and_p_o_alone_is_refused(capsys):
    source = _check_cell("08_*.ipynb", "Check exercise 1")
    p_o, p_e = 14 / 20, (12 / 20) * (10 / 20) + (8 / 20) * (10 / 20)  # by hand: 0.7, 0.5
    _run(source, my_kappa=(p_o - p_e) / (1 - p_e))                     # 0.4
    assert "my_kappa: right" in capsys.readouterr().out
    for wrong in (p_o, (p_o - 0.5 * 0.5 - 0.5 * 0.5) / (1 - 0.5 * 0.5 - 0.5 * 0.5) + 0.1):
        with pytest.raises(ExerciseFailed) as refused:
            _run(source, my_kappa=wrong)
        assert "OWN share" in str(refused.value), str(refused.value)


# --- 07, exercise 1: the expected grade, not the most likely one --------------------------

def test_07_ex1_the_most_likely_grade_and_a_mean_over_five_are_refused_in_words(capsys):
    source = _check_cell("07_*.ipynb", "Check exercise 1")
    expected = 1 * 0.05 + 2 * 0.05 + 3 * 0.10 + 4 * 0.30 + 5 * 0.50            # 4.15 by hand
    padded = 1 * 0.02 + 2 * 0.03 + 3 * 0.05 + 4 * 0.30 + 5 * 0.60              # 4.43 by hand
    _run(source, my_expected=expected, my_shift=padded - expected)
    assert "my_shift: right" in capsys.readouterr().out
    _run(source, my_expected=4.15, my_shift=0.28)   # typed to 2 decimals: still right
    cases = ((5, 0.28, "most likely grade"),        # the greedy grade
             (4.15 / 5, 0.28, "without dividing by 5"),
             (4.15, 0, "what the most likely grades would show"),
             (4.15, -0.28, "padded row minus"),      # subtracted the wrong way round
             (3.0, 0.28, "Multiply each grade"))    # the middle of the scale
    for my_expected, my_shift, said in cases:
        with pytest.raises(ExerciseFailed) as refused:
            _run(source, my_expected=my_expected, my_shift=my_shift)
        message = str(refused.value)
        assert said in message, message
        told = message[message.index(" is "):]      # after the student's own value
        assert "4.15" not in told and "0.28" not in told and "4.43" not in told, message


# --- 07, exercise 2: context precision divides by the relevant chunks ---------------------

def test_07_ex2_dividing_by_every_chunk_or_averaging_every_rank_is_refused(capsys):
    source = _check_cell("07_*.ipynb", "Check exercise 2")
    _run(source, my_context_precision=(1 / 1 + 2 / 3 + 3 / 4) / 3)       # 0.806 by hand
    assert "my_context_precision: right" in capsys.readouterr().out
    for wrong, said in (((1 + 2 / 3 + 3 / 4) / 5, "divides by the 5 chunks"),
                        ((1 + 1 / 2 + 2 / 3 + 3 / 4 + 3 / 5) / 5, "a rank whose verdict is 0"),
                        ((1 + 2 / 3) / 2, "divide by the number of 1s")):
        with pytest.raises(ExerciseFailed) as refused:
            _run(source, my_context_precision=wrong)
        message = str(refused.value)
        assert said in message and "0.806" not in message, message


# --- 07, exercise 3: a strict parser refuses two Score lines and clipped grades -----------

def _parser(pick, clip=False):
    def my_parse_score(reply):
        values = [line.split(":", 1)[1].strip() for line in reply.splitlines()
                  if line.strip().lower().startswith("score:")]
        if not values or not pick(values).isdigit():
            return None
        grade = int(pick(values))
        if clip:
            return min(5, max(1, grade))
        return grade if 1 <= grade <= 5 else None
    return my_parse_score


def test_07_ex3_expected_replies_agree_with_the_library_parser():
    from ragmetrics_edu import judge as rj

    import ast

    def cases_of(source):
        call = next(node for node in ast.walk(ast.parse(source))
                    if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "check_function")
        return ast.literal_eval(call.args[1])

    nb = nbformat.read(next((ROOT / "solutions").glob("07_*.ipynb")), as_version=4)  # hidden tests
    cell = next(c for c in nb.cells if c.cell_type == "code"
                and c.source.startswith('"""Check exercise 3'))
    visible, hidden = cases_of(cell.source), cases_of(cell.metadata["hidden_tests"])
    assert (len(visible), len(hidden)) == (10, 6)
    for reply, want, _ in visible + hidden:
        try:
            got = rj.parse_rating(reply)
        except ValueError:
            got = None
        assert got == want, (reply, got, want)


def test_07_ex3_first_score_line_or_clipped_grade_is_refused_in_words(capsys):
    source = _check_cell("07_*.ipynb", "Check exercise 3")
    _run(source, my_parse_score=_parser(lambda v: v[0] if len(v) == 1 else "x"))
    assert "right on 10 inputs" in capsys.readouterr().out
    with pytest.raises(ExerciseFailed) as refused:
        _run(source, my_parse_score=_parser(lambda v: v[0]))      # the first Score line
    assert "two Score lines" in str(refused.value), str(refused.value)
    with pytest.raises(ExerciseFailed) as refused:
        _run(source, my_parse_score=_parser(lambda v: v[-1]))     # the last Score line
    assert "two Score lines" in str(refused.value), str(refused.value)
    with pytest.raises(ExerciseFailed) as refused:
        _run(source, my_parse_score=_parser(lambda v: v[0] if len(v) == 1 else "x", clip=True))
    assert "do not clip it to 5" in str(refused.value), str(refused.value)

    def any_number(reply):                                          # no Score line needed
        import re
        found = re.findall(r"\d+", reply)
        return int(found[-1]) if found and 1 <= int(found[-1]) <= 5 else None

    with pytest.raises(ExerciseFailed) as refused:
        _run(source, my_parse_score=any_number)
    assert "Score line" in str(refused.value), str(refused.value)


# --- 00, exercise 4: one relevant document is "1 relevant document" -------------------------

def test_00_ex4_counts_its_documents_in_the_singular_and_the_plural(capsys):
    source = _check_cell("00_*.ipynb", "Check exercise 4")
    with pytest.raises(ExerciseFailed) as refused:
        _run(source, list_a=[1, 0, 0], list_b=[0, 1, 1])  # 1 and 2 in the top 3
    message = str(refused.value)
    assert "hold 1 relevant document and those of list_b 2" in message, message
    with pytest.raises(ExerciseFailed) as refused:
        _run(source, list_a=[1, 1, 0], list_b=[0, 0, 1])
    assert "hold 2 relevant documents and" in str(refused.value)
    _run(source, list_a=[1, 0, 0], list_b=[0, 0, 1])
    assert "both lists have 1 relevant document in the top 3" in capsys.readouterr().out
    _run(source, list_a=[1, 0, 1], list_b=[0, 1, 1])
    assert "both lists have 2 relevant documents in the top 3" in capsys.readouterr().out


# --- 15, exercise 1: every wrong number reported, each likely slip named --------------------
# The tables of the exercise: response claims correct [0, 1, 0]; reference claims covered
# [0, 1, 1]; supported [[1, 0, 1], [0, 0, 0], [0, 0, 1]]; retrieved [[0, 1, 0], [1, 0, 0],
# [0, 0, 0]].  By hand: reference claims 1 and 2 are found (chunks 2 and 1), claim 3 in no
# chunk: claim recall 2/3.  Of the two found, the response states claim 2: utilization 1/2.
# Relevant chunks 1 and 2; claim 1 is wrong and supported by chunk 1 (relevant) and chunk 3
# (irrelevant): relevant noise; claim 3 is wrong and supported by chunk 3 only: NS irr 1/3.

RIGHT_15_EX1 = {"my_claim_recall": 2 / 3, "my_context_utilization": 1 / 2, "my_ns_irrelevant": 1 / 3}


@pytest.mark.parametrize("name, wrong, says", [
    ("my_claim_recall", 2 / 9, "maximum of its row"),            # the mean of each row, averaged
    ("my_claim_recall", 1 / 3, "whether or not the response states them"),   # found and stated
    ("my_context_utilization", 1 / 3, "divided by all three reference claims"),
    ("my_context_utilization", 2 / 3, "the response's recall"),  # covered 2 of 3
    ("my_ns_irrelevant", 2 / 3, "exclusive"),                    # claim 1 counted as irrelevant too
    ("my_ns_irrelevant", 1 / 2, "not by the wrong ones"),        # 1 of the 2 wrong claims
])
def test_15_ex1_each_likely_slip_is_named(name, wrong, says):
    source = _check_cell("15_*.ipynb", "Check exercise 1")
    with pytest.raises(ExerciseFailed) as refused:
        _run(source, **{**RIGHT_15_EX1, name: wrong})
    message = str(refused.value)
    assert message.startswith(f"{name} = ") and says in message, message
    assert "0.667" not in message and "0.333" not in message.replace(f"{wrong:.6f}", ""), message


def test_15_ex1_reports_every_wrong_number_and_the_open_ones(capsys):
    source = _check_cell("15_*.ipynb", "Check exercise 1")
    _run(source, **RIGHT_15_EX1)
    assert capsys.readouterr().out.count(": right.") == 3
    # two wrong: both are told, not only the first
    with pytest.raises(ExerciseFailed) as refused:
        _run(source, **{**RIGHT_15_EX1, "my_claim_recall": 2 / 9, "my_ns_irrelevant": 2 / 3})
    message = str(refused.value)
    assert "my_claim_recall = " in message and "my_ns_irrelevant = " in message, message
    assert "my_context_utilization" not in message, message
    # one wrong, one still open: the wrong one is told, the open one named as open
    with pytest.raises(ExerciseFailed) as refused:
        _run(source, my_claim_recall=1 / 3, my_context_utilization=1 / 2)
    message = str(refused.value)
    assert type(refused.value) is ExerciseFailed, type(refused.value)
    assert "my_claim_recall = " in message and "my_ns_irrelevant: not attempted yet" in message, message
    # nothing done yet: "not attempted", as every open exercise says
    from ragmetrics_edu.course.exercises import NotAttempted

    with pytest.raises(NotAttempted):
        _run(source)


# --- 15, exercise 2: the case the text asks for, with tables that hang together ---------------

GOOD_GENERATOR = {"response_claims_correct": [1, 0], "reference_claims_covered": [1, 0],
                  "response_claims_supported": [[1, 0], [0, 0]],
                  "reference_claims_retrieved": [[1, 0], [0, 1]]}


def _retriever(correct, covered, supported=((1, 0), (0, 1)), retrieved=((0, 0), (0, 0))):
    return {"response_claims_correct": list(correct), "reference_claims_covered": list(covered),
            "response_claims_supported": [list(r) for r in supported],
            "reference_claims_retrieved": [list(r) for r in retrieved]}


def test_15_ex2_a_right_answer_and_a_consistent_variant_pass(capsys):
    source = _check_cell("15_*.ipynb", "Check exercise 2")
    _run(source, bad_generator=GOOD_GENERATOR, bad_retriever=_retriever([0, 0], [0, 0]))
    assert capsys.readouterr().out.startswith("Accepted.")
    # a correct claim weaker than any reference claim ("helium was tried"), from a chunk that
    # states no reference claim: allowed, and the answer is still wrong (precision 1/2)
    _run(source, bad_generator=GOOD_GENERATOR, bad_retriever=_retriever([1, 0], [0, 0]))
    assert "precision 0.50" in capsys.readouterr().out


def test_15_ex2_a_right_answer_is_refused_for_bad_retriever():
    # every claim correct, every reference claim covered, all from chunks that state none
    source = _check_cell("15_*.ipynb", "Check exercise 2")
    with pytest.raises(ExerciseFailed) as refused:
        _run(source, bad_generator=GOOD_GENERATOR, bad_retriever=_retriever([1, 1], [1, 1]))
    message = str(refused.value)
    assert "bad_retriever: precision 1" in message and "wrong answer" in message, message


@pytest.mark.parametrize("case, says", [
    # wrong claims only, yet two reference claims covered: no claim can state them
    (_retriever([0, 0], [1, 1]), "covers reference claim 1, so one of its claims states that fact"),
    # claim 1 correct and covering, but chunk 1 supports it and states no reference claim
    (_retriever([1, 0], [1, 0]), "supported by a chunk that does not state reference claim 1"),
])
def test_15_ex2_a_covered_claim_must_agree_with_the_chunks(case, says):
    source = _check_cell("15_*.ipynb", "Check exercise 2")
    with pytest.raises(ExerciseFailed) as refused:
        _run(source, bad_generator=GOOD_GENERATOR, bad_retriever=case)
    message = str(refused.value)
    assert message.startswith("bad_retriever: ") and says in message, message


def test_15_ex2_bad_generator_is_held_to_the_same_consistency():
    # reference claim 2 covered, but the only correct claim comes from chunk 1, which does
    # not state it (chunk 2 does): the claim stating it would make chunk 1 state it too
    source = _check_cell("15_*.ipynb", "Check exercise 2")
    inconsistent = dict(GOOD_GENERATOR, reference_claims_covered=[1, 1])
    with pytest.raises(ExerciseFailed) as refused:
        _run(source, bad_generator=inconsistent, bad_retriever=_retriever([0, 0], [0, 0]))
    message = str(refused.value)
    assert message.startswith("bad_generator: the response covers reference claim 2"), message


# --- 15, exercise 3: ignoring `correct` is named first; no case shows exercise 1's answer -----

def _noise_sensitivity(use_correct=True, exclusive=True, by_wrong=False):
    def my_noise_sensitivity(correct, supported, retrieved, mode="relevant"):
        relevant = [any(row[k] for row in retrieved) for k in range(len(supported[0]))]
        count = 0
        for ok, row in zip(correct, supported):
            rel = any(s and r for s, r in zip(row, relevant))
            irr = any(s and not r for s, r in zip(row, relevant)) and not (rel and exclusive)
            if (not ok or not use_correct) and (rel if mode == "relevant" else irr):
                count += 1
        return count / (sum(not c for c in correct) if by_wrong else len(correct))
    return my_noise_sensitivity


@pytest.mark.parametrize("slip, says", [
    (dict(use_correct=False), "correct claims are never noise"),
    (dict(exclusive=False), "the two modes are exclusive"),
    (dict(by_wrong=True), "not by the wrong ones"),
])
def test_15_ex3_each_slip_gets_its_own_hint(slip, says, capsys):
    source = _check_cell("15_*.ipynb", "Check exercise 3")
    _run(source, my_noise_sensitivity=_noise_sensitivity())
    assert "right on 8 inputs" in capsys.readouterr().out
    with pytest.raises(ExerciseFailed) as refused:
        _run(source, my_noise_sensitivity=_noise_sensitivity(**slip))
    assert says in str(refused.value), str(refused.value)


def test_15_ex3_shows_no_case_of_exercise_1():
    source = _check_cell("15_*.ipynb", "Check exercise 3")
    assert "exercise 1" not in source
    assert "[[1, 0, 1], [0, 0, 0], [0, 0, 1]]" not in source   # exercise 1's supported table


# --- 15, exercise 4: the first citation, not the best one -------------------------------------
# Sentence 1 cites [2] (partial) then [1] (full); sentence 2 cites [1] (full); sentence 3
# nothing; sentence 4 cites [3] (no).  By hand, the first citation only: precision
# (0.5 + 1 + 0) / 3 = 0.5, recall (0.5 + 1 + 0 + 0) / 4 = 0.375.

@pytest.mark.parametrize("precision, recall, name, says", [
    ((1 + 1 + 0) / 3, 0.375, "my_support_precision", "FIRST citation"),          # best citation
    ((0.5 + 1 + 1 + 0) / 4, 0.375, "my_support_precision", "You assessed every citation"),
    (0.5, (1 + 1 + 0 + 0) / 4, "my_support_recall", "FIRST citation"),             # best citation
    (0.5, (0.5 + 1 + 0) / 3, "my_support_recall", "ALL the sentences"),            # cited ones only
    (0.5, (0.75 + 1 + 0 + 0) / 4, "my_support_recall", "the mean of sentence 1's two citations"),
])
def test_15_ex4_the_best_citation_and_other_slips_are_named(precision, recall, name, says, capsys):
    source = _check_cell("15_*.ipynb", "Check exercise 4")
    _run(source, my_support_precision=0.5, my_support_recall=0.375)
    assert capsys.readouterr().out.count(": right.") == 2
    with pytest.raises(ExerciseFailed) as refused:
        _run(source, my_support_precision=precision, my_support_recall=recall)
    message = str(refused.value)
    assert message.startswith(f"{name} = ") and says in message, message
    assert "0.375" not in message, message


def test_15_ex4_reports_both_wrong_numbers():
    source = _check_cell("15_*.ipynb", "Check exercise 4")
    with pytest.raises(ExerciseFailed) as refused:
        _run(source, my_support_precision=2 / 3, my_support_recall=0.5)   # best citation, twice
    message = str(refused.value)
    assert "my_support_precision = " in message and "my_support_recall = " in message, message
