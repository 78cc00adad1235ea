"""The exercises' checks: hand-written expected values, a library one-liner refused,
and a check that runs on its own when its exercise is open."""

import math
import re

import pytest

import ragmetrics_edu as rm
from ragmetrics_edu.course import exercises as ex


def my_ap(rels, n_relevant):
    hits, total = 0, 0.0
    for i, r in enumerate(rels, start=1):
        if r:
            hits += 1
            total += hits / i
    return total / n_relevant


# AP of [0, 1, 1] with 2 relevant documents: (1/2 + 2/3) / 2 = 7/12.
CASES = [(([0, 1, 1], 2), 7 / 12, "relevant at ranks 2 and 3"),
         (([1, 0, 0], 3), 1 / 3, "two relevant documents never retrieved")]


def test_a_right_answer_passes(capsys):
    ex.check_function(my_ap, CASES, forbid=["average_precision"])
    assert "right on 2 inputs" in capsys.readouterr().out


def test_a_wrong_answer_says_which_case():
    def wrong(rels, n_relevant):
        return sum(rels) / len(rels)
    with pytest.raises(ex.ExerciseFailed, match=r"wrong\(\[0, 1, 1\], 2\) returned 0.666667, "
                       "expected 0.583333. This case: x"):
        ex.check_function(wrong, [(([0, 1, 1], 2), 7 / 12, "x")])


def test_a_library_one_liner_is_refused():
    def through_rm(rels, n_relevant):
        return rm.average_precision(rels, n_relevant)
    with pytest.raises(ex.LibraryCallRefused, match="rm.average_precision"):
        ex.check_function(through_rm, CASES, forbid=["average_precision"])


def test_an_alias_of_the_library_function_is_refused():
    f = rm.retrieval.order_aware.average_precision

    def aliased(rels, n_relevant):
        return f(rels, n_relevant)
    with pytest.raises(ex.LibraryCallRefused):
        ex.check_function(aliased, CASES, forbid=["average_precision"])
    # and the library is back afterwards
    assert rm.average_precision([0, 1, 1], 2) == pytest.approx(7 / 12)


def test_an_open_exercise_is_not_attempted():
    def stub(rels, n_relevant):
        raise NotImplementedError()
    with pytest.raises(ex.NotAttempted, match="not attempted yet"):
        ex.check_function(stub, CASES)
    with pytest.raises(ex.NotAttempted, match="run the exercise cell"):
        ex.check_function("name_never_defined", CASES)


def test_check_number_does_not_give_the_answer_away(capsys):
    ns = {"ap_by_hand": 0.6}
    with pytest.raises(ex.ExerciseFailed) as info:
        exec("from ragmetrics_edu.course.exercises import check_number\n"
             "check_number('ap_by_hand', 7 / 12, hint='divide by all relevant documents')", ns)
    assert "0.583" not in str(info.value) and "divide by all" in str(info.value)
    ns["ap_by_hand"] = 0.5833
    exec("from ragmetrics_edu.course.exercises import check_number\ncheck_number('ap_by_hand', 7 / 12)", ns)
    assert "ap_by_hand: right" in capsys.readouterr().out
    with pytest.raises(ex.NotAttempted):
        exec("from ragmetrics_edu.course.exercises import check_number\ncheck_number('other', 1.0)", ns)


def test_check_number_by_digest_hides_the_answer(capsys):
    import hashlib

    # The fingerprint is sha256 of "<salt>:<answer printed to 3 decimals>": 7/12 -> "0.583".
    fp = hashlib.sha256(b"02/ap:0.583").hexdigest()[:12]
    assert ex.digest(7 / 12, "02/ap") == fp
    call = f"check_number('ap', digest_={fp!r}, salt='02/ap')"
    for typed in (0.583, 0.5833, 7 / 12, 0.584, 0.582):  # one unit either side: hand rounding
        ns = {"ap": typed}
        exec(f"from ragmetrics_edu.course.exercises import check_number\n{call}", ns)
    for typed in (0.58, 0.59, 0.585, 0.581, 2 / 3, float("nan")):
        ns = {"ap": typed}
        with pytest.raises(ex.ExerciseFailed):
            exec(f"from ragmetrics_edu.course.exercises import check_number\n{call}", ns)
    with pytest.raises(TypeError):
        ex.check_number("ap")


def test_a_fingerprint_verifies_only_with_its_own_salt():
    import hashlib

    ns = {"ap": 7 / 12}
    unsalted = hashlib.sha256(b"0.583").hexdigest()[:12]  # the fingerprint of an unsalted scheme
    other_check = ex.digest(7 / 12, "10/ap")
    for fp, salt in ((unsalted, "02/ap"), (other_check, "02/ap"), (ex.digest(7 / 12, "02/ap"), "10/ap")):
        with pytest.raises(ex.ExerciseFailed, match="not right"):
            exec(f"from ragmetrics_edu.course.exercises import check_number\n"
                 f"check_number('ap', digest_={fp!r}, salt={salt!r})", ns)
    # the same answer under two salts: two fingerprints
    assert ex.digest(0.4, "02/my_r_precision") != ex.digest(0.4, "08/my_kappa")
    with pytest.raises(TypeError, match="salt"):
        ex.check_number("ap", digest_=unsalted)  # a fingerprint without its salt is refused
    with pytest.raises(TypeError, match="salt"):
        ex.digest(0.5, "")


def _kernel(*cells, **names):
    """Run ``cells`` as a kernel would: each one stored in the history ``_ih`` before it runs."""
    import ragmetrics_edu as rm

    ns = {"rm": rm, "math": math, "_ih": [""], **names}
    for cell in cells:
        ns["_ih"].append(cell)
        exec(cell, ns)
    return ns


def test_check_number_names_a_known_slip_without_showing_any_value():
    # right 2/3 (0.667); the slip 1/2 (0.500) is told by its message, a third value by the hint
    fp, slip = ex.digest(2 / 3, "99/k"), ex.digest(1 / 2, "99/k")
    call = (f"check_number('k', digest_={fp!r}, salt='99/k', hint='look at the weights', "
            f"slips=[({slip!r}, 'that is the unweighted value')])")
    for typed, said in ((0.5, "that is the unweighted value"), (0.501, "that is the unweighted"),
                        (0.6, "look at the weights")):
        ns = {"k": typed}
        with pytest.raises(ex.ExerciseFailed) as info:
            exec(f"from ragmetrics_edu.course.exercises import check_number\n{call}", ns)
        assert said in str(info.value) and "0.667" not in str(info.value)
    ns = {"k": 0.667}
    exec(f"from ragmetrics_edu.course.exercises import check_number\n{call}", ns)
    with pytest.raises(TypeError, match="slips= needs digest_="):
        exec("from ragmetrics_edu.course.exercises import check_number\n"
             "check_number('k', 0.5, slips=[('abc', 'x')])", {"k": 0.6})


AP_CHECK = ("from ragmetrics_edu.course.exercises import check_number, digest\n"
            "check_number('my_ap', digest_=digest((1 / 2 + 2 / 3 + 3 / 5) / 4, 'x/my_ap'), "
            "salt='x/my_ap')")


@pytest.mark.parametrize("cells", [
    ["my_ap = (1 / 2 + 2 / 3 + 3 / 5) / 4"],
    ["p = [1 / 2, 2 / 3, 3 / 5]", "my_ap = sum(p) / 4"],
    ["my_ap = rm.average_precision([0, 1, 1, 0, 1], 4)", "my_ap = (1 / 2 + 2 / 3 + 3 / 5) / 4"],
    ["ranking = rm.course.examples.get('dcg_at_3').inputs['rels']", "my_ap = 0.4417"],
])
def test_check_number_accepts_arithmetic(cells, capsys):
    _kernel(*cells, AP_CHECK)
    assert "my_ap: right." in capsys.readouterr().out


@pytest.mark.parametrize("cells, called", [
    (["my_ap = rm.average_precision([0, 1, 1, 0, 1], 4)"], "rm.average_precision"),
    (["x = rm.average_precision([0, 1, 1, 0, 1], 4)", "my_ap = round(x, 4)"], "rm.average_precision"),
    (["p, r = rm.average_precision([0, 1, 1, 0, 1], 4), 1\nmy_ap = p * r"], "rm.average_precision"),
    (["from ragmetrics_edu import average_precision as ap", "my_ap = ap([0, 1, 1, 0, 1], 4)"],
     "rm.average_precision"),
    (["def mine():\n    return rm.average_precision([0, 1, 1, 0, 1], 4)", "my_ap = mine()"],
     "rm.average_precision"),
    (["my_ap = rm.evaluate({'q': {'a': 1}}, {'q': {'a': 1.0}}, metrics=['map']).mean['map'] * 0.4417"],
     "rm.evaluate"),
])
def test_check_number_refuses_a_library_call(cells, called):
    with pytest.raises(ex.LibraryCallRefused, match=re.escape(called)) as refused:
        _kernel(*cells, AP_CHECK)
    assert "by hand" in str(refused.value) and "0.44" not in str(refused.value)


def test_a_number_found_with_the_library_is_not_refused_when_not_by_hand(capsys):
    cells = ["my_ap = rm.average_precision([0, 1, 1, 0, 1], 4)"]
    _kernel(*cells, AP_CHECK.replace("salt='x/my_ap')", "salt='x/my_ap', by_hand=False)"))
    assert "my_ap: right." in capsys.readouterr().out


def test_check_number_without_a_history_checks_the_value_only(capsys):
    # a plain Python session: no _ih, no scan, no error
    import ragmetrics_edu as rm

    ns = {"rm": rm, "my_ap": rm.average_precision([0, 1, 1, 0, 1], 4)}
    exec(AP_CHECK, ns)
    assert "my_ap: right." in capsys.readouterr().out


def test_a_dotted_library_name_is_refused_and_restored():
    from ragmetrics_edu.generation import semantic

    original = semantic.score_from_similarity

    def via_module(sim):
        return semantic.score_from_similarity(sim)
    with pytest.raises(ex.LibraryCallRefused, match="rm.generation.semantic.score_from_similarity"):
        ex.check_function(via_module, [(([[1.0]],), 1.0)],
                          forbid=["generation.semantic.score_from_similarity"])
    assert semantic.score_from_similarity is original


def test_a_failed_check_shows_its_message_not_a_traceback():
    # IPython renders an exception with _render_traceback_ by calling it.
    err = ex.ExerciseFailed("f(1) returned 2, expected 1.")
    assert err._render_traceback_() == ["ExerciseFailed: f(1) returned 2, expected 1."]
    assert ex.NotAttempted("x")._render_traceback_() == ["NotAttempted: x"]


def test_right_values_as_true_false_are_told_to_be_numbers():
    def rels_as_bools(ranking, relevant):
        return [d in relevant for d in ranking]

    case = [((["a", "b"], {"a", "z"}), [1, 0], "z was never retrieved")]
    with pytest.raises(ex.ExerciseFailed, match=r"as True/False\.  Return the numbers 1 and 0") as refused:
        ex.check_function(rels_as_bools, case)
    assert "z was never retrieved" not in str(refused.value)
    # a check that expects booleans is not affected
    ex.check_function(rels_as_bools, [((["a", "b"], {"a"}), [True, False])])


@pytest.mark.parametrize("right, rounded", [(4 / 11, 0.36), (1 / 3, 0.33), (7 / 8, 0.88), (0.7, 0.7)])
def test_a_right_value_given_with_a_decimal_too_few_is_asked_for_one_more(right, rounded):
    """By fingerprint and by expected value alike; the message names neither value."""
    fp = ex.digest(right, "09/x")
    for call in (f"check_number('x', digest_={fp!r}, salt='09/x')", f"check_number('x', {right!r})"):
        ns = {"x": rounded}
        if round(rounded, 3) == round(right, 3):  # 0.7 is 0.700: right as it stands
            exec(f"from ragmetrics_edu.course.exercises import check_number\n{call}", ns)
            continue
        with pytest.raises(ex.ExerciseFailed, match=r"right to 2 decimals, but the check needs 3"
                                                    r" \(0\.125, not 0\.12\)") as refused:
            exec(f"from ragmetrics_edu.course.exercises import check_number\n{call}", ns)
        assert f"{right:.3f}" not in str(refused.value)


@pytest.mark.parametrize("wrong", [0.37, 0.35, 0.3, 0.364 + 0.01])
def test_a_wrong_value_with_few_decimals_is_only_wrong(wrong):
    fp = ex.digest(4 / 11, "09/x")
    with pytest.raises(ex.ExerciseFailed, match=r"is not right \(to 3 decimals\)\. hint$"):
        exec(f"from ragmetrics_edu.course.exercises import check_number\n"
             f"check_number('x', digest_={fp!r}, salt='09/x', hint='hint')", {"x": wrong})


def test_a_count_by_fingerprint_must_be_exact():
    fp = ex.digest(37, "12/n", decimals=0)
    for typed in (37, 37.0):
        exec(f"from ragmetrics_edu.course.exercises import check_number\n"
             f"check_number('n', digest_={fp!r}, salt='12/n', decimals=0)", {"n": typed})
    for typed in (36, 38, 37.4):
        with pytest.raises(ex.ExerciseFailed):
            exec(f"from ragmetrics_edu.course.exercises import check_number\n"
                 f"check_number('n', digest_={fp!r}, salt='12/n', decimals=0)", {"n": typed})


def _check_items(found, right=("cqa-003", "cqa-010", "cqa-042"), hint="look again"):
    digests = ex.digest_items(right, "13/found")
    exec("from ragmetrics_edu.course.exercises import check_items\n"
         f"check_items('found', {digests!r}, salt='13/found', hint={hint!r})", {"found": found})


def test_check_items_passes_the_right_list_and_names_what_is_wrong(capsys):
    _check_items(["cqa-003", "cqa-010", "cqa-042"])
    assert "found: right (3 items)" in capsys.readouterr().out
    with pytest.raises(ex.ExerciseFailed, match=r"\['cqa-004'\] should not be in found\. look again"):
        _check_items(["cqa-003", "cqa-004", "cqa-010"])
    with pytest.raises(ex.ExerciseFailed, match=r"found misses 2 item\(s\)\. look again") as refused:
        _check_items(["cqa-010"])
    assert "cqa-003" not in str(refused.value) and "cqa-042" not in str(refused.value)
    for bad, says in ((["cqa-010", "cqa-003"], "not sorted"), (["cqa-003", "cqa-003"], "more than once"),
                      ({"cqa-003"}, "should be a list of ids"), ([3, 10], "should be a list of ids")):
        with pytest.raises(ex.ExerciseFailed, match=says):
            _check_items(bad)


def test_item_fingerprints_are_salted_and_say_nothing_of_order():
    import hashlib

    # the scheme, written out independently: SHA-256 of "<salt>:<item>", 12 hex digits
    assert ex.digest_items(["cqa-001"], "13/x") == [hashlib.sha256(b"13/x:cqa-001").hexdigest()[:12]]
    assert ex.digest_items(["a", "b"], "01/x") == ex.digest_items(["b", "a", "a"], "01/x")
    assert ex.digest_items(["a"], "01/x") != ex.digest_items(["a"], "02/x")
    with pytest.raises(TypeError, match="salt"):
        ex.digest_items(["a"], "")


def test_check_number_without_slack_takes_only_the_right_value_rounded():
    # 19 / 29 = 0.65517...: with slack=0, 0.654 and 0.656 are not right (the last digit is a
    # slip, not a rounding: nothing in the exercise is rounded on the way)
    fp = ex.digest(19 / 29, "99/w")
    call = f"check_number('w', digest_={fp!r}, salt='99/w', slack=0)"
    for typed in (0.655, 19 / 29, 0.6552):
        exec(f"from ragmetrics_edu.course.exercises import check_number\n{call}", {"w": typed})
    for typed in (0.654, 0.656):
        with pytest.raises(ex.ExerciseFailed, match="not right"):
            exec(f"from ragmetrics_edu.course.exercises import check_number\n{call}", {"w": typed})
    # the default keeps one unit either side
    exec(f"from ragmetrics_edu.course.exercises import check_number\n"
         f"check_number('w', digest_={fp!r}, salt='99/w')", {"w": 0.656})
    with pytest.raises(TypeError, match="slack= must be 0 or 1"):
        ex.check_number("w", digest_=fp, salt="99/w", slack=2)
