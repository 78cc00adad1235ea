"""The online widget (notebook 14): its pure computation, and the widget driven from Python.

Expected values are hand arithmetic (written in the comments): ERR's mapping
gives attractiveness (2**g - 1) / 16 to a grade g of 0-4.
"""

import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("matplotlib")

from ragmetrics_edu.course.widgets import click_user_explorer, click_user_state  # noqa: E402
from ragmetrics_edu.course.widgets.online import MODELS, make_click_model  # noqa: E402


def approx(x):
    return pytest.approx(x, abs=1e-12)


def test_cascade_state_by_hand():
    s = click_user_state([0, 4, 2], "cascade", n_sessions=5, seed=0)
    assert s["alpha"] == approx([0, 15 / 16, 3 / 16])
    assert s["examination"] == approx([1, 1, 1 / 16])  # rank 3 is seen only without a click at 2
    assert s["click_probability"] == approx([0, 15 / 16, 1 / 16 * 3 / 16])
    assert s["expected"].ctr == approx(1 - 1 / 16 * 13 / 16)
    assert s["expected"].first_click_rr == approx(15 / 16 / 2 + 3 / 256 / 3)
    for row, stop in zip(s["sessions"], s["stops"]):
        # a cascade user clicks at most once and looks at nothing after it
        assert row.count("C") <= 1
        assert "-" not in row
        seen = [c for c in row if c != " "]
        assert len(seen) == stop
        if "C" in row:
            assert row.index("C") == stop - 1


def test_position_based_state_by_hand():
    s = click_user_state([4, 4, 4], "pbm", parameter=1.0, n_sessions=5, seed=0)
    assert s["examination"] == approx([1, 1 / 2, 1 / 3])
    assert s["click_probability"] == approx([15 / 16, 15 / 32, 15 / 48])
    rows = s["sessions"]
    assert all(c in "oC-" for row in rows for c in row)  # never "stopped": ranks are independent


def test_dcm_and_dbn_by_hand():
    dcm = click_user_state([4, 4], "dcm", parameter=0.5, n_sessions=1)
    # after rank 1: go on with 1 - a + a * lambda = 1/16 + 15/32 = 17/32
    assert dcm["examination"] == approx([1, 17 / 32])
    dbn = click_user_state([4, 4], "dbn", parameter=0.5, n_sessions=1)
    # satisfaction = attractiveness: go on with gamma * (1 - a * a) = 0.5 * (1 - 225/256)
    assert dbn["examination"] == approx([1, 0.5 * 31 / 256])


def test_running_ctr_converges_to_the_exact_ctr():
    s = click_user_state([0, 3, 1, 4, 2], "cascade", n_sessions=2000, seed=1)
    assert len(s["running_ctr"]) == 2000
    assert s["ctr"] == s["running_ctr"][-1]
    assert abs(s["ctr"] - s["expected"].ctr) < 0.03  # 3 standard errors of a proportion near 0.97


def test_same_seed_same_sessions_and_the_library_scan():
    from ragmetrics_edu.online.click_models import CascadeModel, scan_ranking

    a = click_user_state([1, 2, 3], n_sessions=20, seed=7)
    b = click_user_state([1, 2, 3], n_sessions=20, seed=7)
    assert a["sessions"] == b["sessions"]
    scan = scan_ranking(CascadeModel(), [1, 2, 3], n_sessions=20, seed=7)
    assert a["running_ctr"] == approx(scan.running_ctr.tolist())


@pytest.mark.parametrize("kwargs, match", [
    ({"rels": [5, 1]}, "0 to 4"),
    ({"rels": [1.5]}, "0 to 4"),
    ({"rels": []}, "at least one rank"),
    ({"model": "ubm"}, "model"),
    ({"model": "cascade", "parameter": 0.5}, "takes no parameter"),
    ({"model": "dbn", "parameter": 1.5}, "gamma"),
    ({"n_sessions": 0}, "n_sessions"),
])
def test_state_validates(kwargs, match):
    args = {"rels": [1, 2], **kwargs}
    with pytest.raises(ValueError, match=match):
        click_user_state(**args)


def test_make_click_model_defaults():
    assert [type(make_click_model(m)).__name__ for m in MODELS] == [
        "CascadeModel", "PositionBasedModel", "DependentClickModel", "DBNModel"]
    assert make_click_model("pbm", 2.0).eta == 2.0


def test_explorer_driven_from_python():
    w = click_user_explorer([0, 4, 2], n_sessions=50)
    assert w.values["expected"].ctr == approx(1 - 1 / 16 * 13 / 16)
    assert w.parameter.disabled
    assert "exact CTR = 0.9492" in w.summary.value
    assert "user 1" in w.table.value
    w.sliders[1].value = 0  # only the grade-2 document is left: CTR 3/16
    assert w.values["expected"].ctr == approx(3 / 16)
    w.model.value = "pbm"  # parameter eta, default 1
    assert not w.parameter.disabled and w.parameter.description == "eta"
    assert w.parameter.value == 1.0
    assert w.values["examination"] == approx([1, 1 / 2, 1 / 3])
    w.parameter.value = 0.0  # eta = 0: every rank is seen
    assert w.values["click_probability"] == approx([0, 0, 3 / 16])
    w.model.value = "dbn"
    assert w.parameter.description == "gamma" and w.parameter.value == 0.9
    w.sessions.value = 300
    assert len(w.values["running_ctr"]) == 300
    assert list(w.line.get_xdata())[-1] == 300


def test_explorer_text_and_alt_are_deterministic():
    w = click_user_explorer()
    assert w._repr_mimebundle_()["text/plain"] == (
        "ClickUserExplorer(rels=[0, 3, 1, 4, 2], model='cascade', sessions=200, seed=0)")
    assert all(s.continuous_update is False for s in w.sliders)
    alt = w.view.alt_text
    assert "200 simulated cascade users on grades [0, 3, 1, 4, 2]" in alt
    assert f"exact CTR, {round(w.values['expected'].ctr, 2)}" in alt
    w.model.value = "dcm"
    assert w._repr_mimebundle_()["text/plain"].startswith(
        "ClickUserExplorer(rels=[0, 3, 1, 4, 2], model='dcm', continuation=0.5")


def test_explorer_validates():
    with pytest.raises(ValueError, match="n_sessions must be at most"):
        click_user_explorer(n_sessions=10_000)
    with pytest.raises(ValueError, match="model"):
        click_user_explorer(model="ubm")
