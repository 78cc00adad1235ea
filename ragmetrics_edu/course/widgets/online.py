"""Widget of notebook 14: a simulated user scanning a ranking (examine, click, stop).

:func:`click_user_state` is the pure computation (unit tested): it builds the
chosen click model, replays the sessions with
:func:`ragmetrics_edu.online.click_models.scan_ranking` and lays out, for
the first sessions, what the user did at each rank, with the running and
the exact click-through rate.  :func:`click_user_explorer` shows it with a
grade slider per rank, a model switch, the model's parameter and the
number of sessions.
"""

import numpy as np

from ..._deprecation import formerly_positional
from ..._validation import check_choice, check_k, check_rels
from ...online import click_models as _cm
from ._common import (Explorer, FigureView, UpdateGuard, fmt, grade_sliders, html_table,
                      require_widgets, spoken)

MODELS = ("cascade", "pbm", "dcm", "dbn")
"""The click models to choose from: cascade, position-based, dependent click model, DBN."""

MODEL_LABELS = {"cascade": "cascade", "pbm": "position-based", "dcm": "DCM", "dbn": "DBN"}

PARAMETERS = {"cascade": None, "pbm": "eta", "dcm": "continuation", "dbn": "gamma"}
"""The parameter each model takes (the cascade has none)."""

MAX_GRADE = 4
MAX_SESSIONS = 2000
SHOWN_SESSIONS = 8
"""Sessions written out rank by rank (the running CTR uses them all)."""

SYMBOLS = {"examine": "o", "click": "C", "skip": "-", "unseen": " "}


def make_click_model(model, parameter=None):
    """The click model called ``model`` with its parameter (None: the model's default).

    ``parameter`` is :math:`\\eta` of the position-based model, :math:`\\lambda`
    (``continuation``) of the DCM, :math:`\\gamma` of the DBN; the cascade
    takes none.  Attractiveness is ERR's mapping of grades 0-4.

    Parameters
    ----------
    model : {"cascade", "pbm", "dcm", "dbn"}
        The click model: cascade, position-based, dependent click model, DBN.
    parameter : float or None, default None
        The model's parameter, as above; None keeps the model's default (the
        cascade takes only None).

    Examples
    --------
    >>> make_click_model("dbn", 0.7)
    DBNModel(attractiveness='err', max_grade=4, gamma=0.7, satisfaction=None)
    """
    check_choice(model, MODELS, name="model")
    name = PARAMETERS[model]
    kwargs = {} if name is None or parameter is None else {name: parameter}
    if name is None and parameter is not None:
        raise ValueError(f"the cascade model takes no parameter, got parameter={parameter!r}")
    cls = {"cascade": _cm.CascadeModel, "pbm": _cm.PositionBasedModel,
           "dcm": _cm.DependentClickModel, "dbn": _cm.DBNModel}[model]
    return cls(**kwargs)


@formerly_positional("parameter", "n_sessions", "seed")
def click_user_state(rels, model="cascade", *, parameter=None, n_sessions=100, seed=0):
    """Simulated users scanning one ranking: what each did, and the running CTR.

    Parameters
    ----------
    rels : sequence of int
        Grades (0 to 4) of the ranked documents, in rank order.
    model : {"cascade", "pbm", "dcm", "dbn"}, default "cascade"
    parameter : float or None
        The model's parameter (see :func:`make_click_model`); None: its default.
    n_sessions : int, default 100
        Simulated users, one after the other.
    seed : int, default 0

    Returns
    -------
    dict
        ``"alpha"`` (attractiveness per rank), ``"examination"`` (exact
        P(examine rank i)), ``"click_probability"`` (exact P(click rank i)),
        ``"sessions"``: for the first sessions, one string per rank,
        ``"o"`` examined without a click, ``"C"`` clicked, ``"-"`` not
        looked at (position-based), ``" "`` never reached (the user had
        stopped); ``"stops"``: the last rank each of them looked at;
        ``"running_ctr"``, ``"ctr"`` (the simulation's) and ``"expected"``
        (the exact :class:`~ragmetrics_edu.online.click_models.OnlineMetrics`).

    Examples
    --------
    >>> s = click_user_state([0, 4, 2], "cascade", n_sessions=3, seed=0)
    >>> s["alpha"]  # ERR's mapping: 0, 15/16, 3/16
    [0.0, 0.9375, 0.1875]
    >>> round(s["expected"].ctr, 4)  # 1 - (1 - 15/16) * (1 - 3/16)
    0.9492
    """
    grades = check_rels(rels)
    if len(grades) == 0:
        raise ValueError("rels must hold at least one rank, got an empty list")
    if np.any(grades > MAX_GRADE) or np.any(grades != np.round(grades)):
        raise ValueError(f"rels must be whole grades from 0 to {MAX_GRADE}, got {list(rels)}")
    n_sessions = check_k(n_sessions, name="n_sessions")
    m = make_click_model(model, parameter)
    scan = _cm.scan_ranking(m, grades, n_sessions=n_sessions, seed=seed)
    log = scan.log
    per_rank = m.click_probabilities(grades)
    alpha = m.alpha(grades)
    if model == "pbm":
        examination = m.examination_probabilities(len(grades))
    else:  # the cascade family: examination is the chain, whatever alpha is
        after_click, after_skip = m._continuation(alpha)
        go_on = alpha * after_click + (1.0 - alpha) * after_skip
        examination = np.concatenate(([1.0], np.cumprod(go_on)[:-1]))
    sessions = []
    for s in range(min(n_sessions, SHOWN_SESSIONS)):
        row = []
        for i in range(len(grades)):
            if log.clicks[s, i]:
                row.append(SYMBOLS["click"])
            elif log.examined[s, i]:
                row.append(SYMBOLS["examine"])
            elif model == "pbm":
                row.append(SYMBOLS["skip"])
            else:
                row.append(SYMBOLS["unseen"])
        sessions.append(row)
    return {
        "rels": [int(g) for g in grades],
        "model": model,
        "parameter": parameter,
        "click_model": m,
        "alpha": alpha.tolist(),
        "examination": examination.tolist(),
        "click_probability": per_rank.tolist(),
        "sessions": sessions,
        "stops": log.last_examined[:SHOWN_SESSIONS].tolist(),
        "running_ctr": scan.running_ctr.tolist(),
        "ctr": float(scan.running_ctr[-1]),
        "expected": m.expected(grades),
        "n_sessions": n_sessions,
    }


class ClickUserExplorer(Explorer):
    """Grade sliders, a model switch, its parameter, sessions; a transcript and the running CTR.

    Attributes
    ----------
    sliders : list of ipywidgets.IntSlider
        The grade (0-4) of the document at each rank.
    model : ipywidgets.ToggleButtons
        ``"cascade"``, ``"pbm"``, ``"dcm"`` or ``"dbn"``.
    parameter : ipywidgets.FloatSlider
        The model's parameter: :math:`\\eta` (position-based), :math:`\\lambda`
        (DCM), :math:`\\gamma` (DBN); disabled for the cascade.
    sessions : ipywidgets.IntSlider
        How many users scan the ranking.
    seed : ipywidgets.IntText
    summary, table : ipywidgets.HTML
        The CTRs; per rank, the exact probabilities and the first sessions.
    view : FigureView
        The running CTR over the sessions (``line``) and the exact CTR
        (``exact``, dashed).
    values : dict
        The last result of :func:`click_user_state`.
    """

    _RANGES = {"pbm": (0.0, 3.0, 1.0), "dcm": (0.0, 1.0, 0.5), "dbn": (0.0, 1.0, 0.9),
               "cascade": (0.0, 1.0, 0.0)}

    @formerly_positional("parameter", "n_sessions", "seed")
    def __init__(self, rels, model, *, parameter, n_sessions, seed):
        w = require_widgets()
        self._guard = UpdateGuard(self.update)
        self.sliders = grade_sliders(rels, MAX_GRADE, height="140px")
        self.model = w.ToggleButtons(options=[(MODEL_LABELS[m], m) for m in MODELS], value=model,
                                     description="user", style={"button_width": "110px"})
        low, high, default = self._RANGES[model]
        self.parameter = w.FloatSlider(value=default if parameter is None else parameter,
                                       min=low, max=high, step=0.05, continuous_update=False,
                                       description=PARAMETERS[model] or "(none)")
        self.sessions = w.IntSlider(value=n_sessions, min=1, max=MAX_SESSIONS,
                                    continuous_update=False, description="sessions")
        self.seed = w.IntText(value=seed, description="seed", layout=w.Layout(width="160px"))
        self.summary = w.HTML()
        self.table = w.HTML()

        self.view = FigureView(figsize=(5.0, 2.6), alt=self.figure_alt)
        ax = self.view.axes[0]
        (self.line,) = ax.plot([1], [0.0], color="C0", lw=1.5, label="running CTR")
        self.exact = ax.axhline(0.0, color="C1", ls="--", lw=1.2, label="exact CTR")
        ax.set(xlabel="sessions", ylabel="session CTR", ylim=(0, 1.05),
               title="Running CTR of the simulated users")
        ax.legend(fontsize=7, loc="lower right")
        self.view.figure.tight_layout()
        self.view.animate(self.line, self.exact)
        self._xmax = None

        self.model.observe(self._model_changed, names="value")
        for c in (*self.sliders, self.parameter, self.sessions, self.seed):
            c.observe(self._guard.request, names="value")
        self.widget = w.VBox([
            w.HTML("Set the grade (0-4) of the document at each rank, choose the user, "
                   "and watch the simulated sessions."),
            w.HBox(self.sliders),
            self.model,
            w.HBox([self.parameter, self.sessions, self.seed]),
            self.summary,
            w.HBox([self.view.widget, self.table]),  # the figure first: it stays on a projector screen
        ])
        self._sync_parameter()
        self.update()

    @property
    def rels(self):
        """The current grades, read from the sliders."""
        return [s.value for s in self.sliders]

    def _sync_parameter(self):
        m = self.model.value
        self.parameter.disabled = PARAMETERS[m] is None
        self.parameter.description = PARAMETERS[m] or "(none)"
        low, high, _ = self._RANGES[m]
        self.parameter.min, self.parameter.max = low, high

    def _model_changed(self, change):
        with self._guard:
            self._sync_parameter()
            self.parameter.value = self._RANGES[change["new"]][2]
            self._guard.request()

    def _parameter_value(self):
        return None if PARAMETERS[self.model.value] is None else float(self.parameter.value)

    def _describe(self):
        p = self._parameter_value()
        shown = "" if p is None else f", {PARAMETERS[self.model.value]}={p:g}"
        return (f"rels={self.rels}, model={self.model.value!r}{shown}, "
                f"sessions={self.sessions.value}, seed={self.seed.value}")

    def figure_alt(self):
        """The figure's alt text: the running CTR's end and the exact CTR."""
        v = self.values
        return (f"Line chart of the running session CTR of {v['n_sessions']} simulated "
                f"{MODEL_LABELS[v['model']]} users on grades {v['rels']}: after the last session "
                f"it is {spoken(v['ctr'])}; the dashed line is the exact CTR, "
                f"{spoken(v['expected'].ctr)}.")

    def update(self):
        """Recompute from the controls and redraw (the controls' callback)."""
        v = click_user_state(self.rels, self.model.value, parameter=self._parameter_value(),
                             n_sessions=self.sessions.value, seed=self.seed.value)
        self.values = v
        e = v["expected"]
        self.summary.value = (
            f"<b>{v['n_sessions']} sessions</b>: simulated CTR = {fmt(v['ctr'])} &nbsp;·&nbsp; "
            f"<b>exact CTR = {fmt(e.ctr)}</b> &nbsp;·&nbsp; clicks per session (exact) = "
            f"{fmt(e.clicks)} &nbsp;·&nbsp; RR of the first click (exact) = "
            f"{fmt(e.first_click_rr)}")
        shown = len(v["sessions"])
        header = (["rank", "grade", "attract.", "P(examine)", "P(click)"]
                  + [f"user {s + 1}" for s in range(shown)])
        rows = [[i + 1, v["rels"][i], fmt(v["alpha"][i]), fmt(v["examination"][i]),
                 fmt(v["click_probability"][i])] + [v["sessions"][s][i] for s in range(shown)]
                for i in range(len(v["rels"]))]
        self.table.value = html_table(
            header, rows,
            caption="o: examined, C: clicked, -: not looked at; blank: the user had stopped")

        running = v["running_ctr"]
        self.line.set_data(np.arange(1, len(running) + 1), running)
        self.exact.set_ydata([e.ctr, e.ctr])
        if len(running) != self._xmax:
            self._xmax = len(running)
            self.view.axes[0].set_xlim(0.5, max(len(running), 2) + 0.5)
            self.view.invalidate()
        self.view.refresh()


@formerly_positional("parameter", "n_sessions", "seed")
def click_user_explorer(rels=(0, 3, 1, 4, 2), model="cascade", *, parameter=None, n_sessions=200,
                        seed=0):
    """Watch simulated users scan a ranking: examine, click, stop, and the running CTR.

    A vertical slider per rank sets the grade (0-4) of the document there;
    a switch picks the user (cascade, position-based, DCM, DBN) and a slider
    its parameter.  A table gives each rank's attractiveness (ERR's mapping
    :math:`(2^g - 1)/16`), its exact probabilities of being examined and
    clicked, and what the first users did; the figure follows the running
    CTR over the sessions towards the exact one.

    Parameters
    ----------
    rels : sequence of int, default ``(0, 3, 1, 4, 2)``
        Starting grades in rank order (0 to 4).
    model : {"cascade", "pbm", "dcm", "dbn"}, default "cascade"
    parameter : float or None
        The model's parameter (None: its default: :math:`\\eta = 1`,
        :math:`\\lambda = 0.5`, :math:`\\gamma = 0.9`).
    n_sessions : int, default 200
    seed : int, default 0

    Returns
    -------
    ClickUserExplorer
        Drive it through ``sliders``, ``model``, ``parameter``, ``sessions``
        and ``seed``; read ``values`` (see :func:`click_user_state`).

    Examples
    --------
    >>> w = click_user_explorer([0, 4, 2], n_sessions=50)
    >>> round(w.values["expected"].ctr, 4)  # 1 - (1/16) * (13/16)
    0.9492
    >>> w.sliders[1].value = 0  # the perfect document goes: only 3/16 left
    >>> round(w.values["expected"].ctr, 4)
    0.1875
    """
    check_choice(model, MODELS, name="model")
    click_user_state(rels, model, parameter=parameter, n_sessions=n_sessions, seed=seed)  # validates everything
    if n_sessions > MAX_SESSIONS:
        raise ValueError(f"n_sessions must be at most {MAX_SESSIONS}, got {n_sessions}")
    return ClickUserExplorer([int(g) for g in rels], model, parameter=parameter,
                             n_sessions=n_sessions, seed=seed)
