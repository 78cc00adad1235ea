"""One declaration per retrieval metric: the registry is derived from the declarations.

The tables (``METRICS``, ``PARAMETERS``, ``PRESET_FAMILIES``,
``GRADED_FAMILIES``), the parser and its messages, the command line's help,
the kernel ``evaluate`` calls, the readable function ``evaluate_as`` calls
and the presets' families are read from ``DECLARATIONS``; a toy metric added
with one declaration (its readable function, its kernel, and nothing else
edited) is parsed, listed, computed both ways, accepted by trec_eval's
presets and refused by the others, as docs/architecture.md says.
"""

import numbers

import numpy as np
import pytest

import ragmetrics_edu as rm
from ragmetrics_edu.__main__ import main
from ragmetrics_edu.retrieval.batch import registry
from ragmetrics_edu.retrieval.batch.registry import (DECLARATIONS, Declaration, Parameter,
                                                     declare, known_metrics, parse_metric,
                                                     undeclare)
from ragmetrics_edu.retrieval.conventions import PRESETS, evaluate_as


def test_the_tables_are_read_from_the_declarations():
    assert list(registry.METRICS) == [d.name for d in DECLARATIONS]
    for d in DECLARATIONS:
        assert registry.METRICS[d.name] == (d.cut, d.about, d.reference)
        assert registry.PARAMETERS.get(d.name, {}) == {p.name: p.default for p in d.parameters}
        assert (d.name in registry.GRADED_FAMILIES) == d.graded
        assert (d.name in registry.PRESET_FAMILIES) == ("ranx" in d.presets)
        assert d.name in PRESETS["trec_eval"].metrics
        for name, preset in PRESETS.items():
            if not name.startswith("trec_eval"):
                assert (d.name in preset.metrics) == (name in d.presets), (name, d.name)
        assert callable(d.function) and callable(d.score) and callable(d.kernel)
        assert d.function.__name__ in rm.__all__  # the readable function is exported
    assert registry.GAINS == rm.retrieval.graded.GAINS


# --- a toy metric, declared as a new one would be ------------------------------------

def relevant_in_top(rels, k, *, weight=1.0):
    """The toy's readable one-query function: relevant documents in the top k, times a weight."""
    return weight * sum(1 for g in rels[:k] if g > 0)


def _weight(value, base):
    """The toy's parameter check: its bound, stated in the message."""
    if not value <= 10:
        raise ValueError(f"{base}: the weight must be at most 10, got weight={value!r}")
    return value


def _kernel(ranked, metric, conv):
    """The toy's kernel: the hits of every query at once."""
    query, rank, _, _ = ranked.hits
    return metric["weight"] * ranked.per_query(query, rank <= metric.k)


TOY = Declaration(
    "found", "required", "relevant documents in the top k, weighted", None, relevant_in_top,
    lambda q, m, c: relevant_in_top(q.relevant, m.k, weight=m["weight"]), _kernel,
    parameters=(Parameter("weight", 1.0, check=_weight),), presets=("seeds",))


@pytest.fixture
def toy():
    declare(TOY)
    try:
        yield TOY
    finally:
        undeclare(TOY.name)
    assert "found" not in registry.METRICS and "found" not in PRESETS["trec_eval"].metrics


def _collection(seed):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(40):
        docs = [f"d{i}" for i in rng.permutation(100)[:int(rng.integers(1, 30))]]
        run[f"q{q}"] = {d: float(rng.integers(0, 8)) for d in docs}
        qrels[f"q{q}"] = {d: int(rng.integers(-1, 4)) for d in docs[::2] + ["x"]}
    return qrels, run


def test_a_toy_metric_is_one_declaration(toy, capsys):
    # the parser, its messages and the tables follow
    metric = parse_metric("found(weight=2)@5")
    assert (metric.base, metric.k, metric["weight"]) == ("found", 5, 2.0)
    assert registry.METRICS["found"][0] == "required" and registry.PARAMETERS["found"] == {
        "weight": 1.0}
    assert "found@k, found(weight=1.0)@k" in known_metrics()
    with pytest.raises(ValueError, match=r"found: the weight must be at most 10, got "
                                         r"weight=11.0 in metric 'found\(weight=11\)@5'"):
        rm.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, metrics=["found(weight=11)@5"])
    with pytest.raises(ValueError, match="needs a cut-off k, e.g. 'found@10'"):
        parse_metric("found")
    # the command line's help lists it
    assert main(["evaluate", "--help"]) == 0
    assert "found(weight=1.0)@k" in capsys.readouterr().out.replace("\n", " ")
    # the kernel (evaluate) equals the readable function (evaluate_as), query by query
    qrels, run = _collection(1)
    names = ["found@5", "found(weight=0.5)@3", "found@10"]
    fast = rm.evaluate(qrels, run, metrics=names, relevance_level=2, depth=8)
    readable = evaluate_as(qrels, run, metrics=names, conventions="trec_eval", relevance_level=2, depth=8)
    for qid, values in readable.per_query.items():
        for name in names:
            assert fast.per_query[qid][name] == pytest.approx(values[name], abs=1e-12)
    # presets: trec_eval's compute every family, others those the declaration names
    assert rm.evaluate(qrels, run, metrics=["found@5"], conventions="seeds").mean["found@5"] >= 0
    with pytest.raises(ValueError, match="does not compute 'found'"):
        rm.evaluate(qrels, run, metrics=["found@5"], conventions="ranx")


def test_a_name_is_declared_once():
    with pytest.raises(ValueError, match="a new name"):
        declare(DECLARATIONS[0])
    with pytest.raises(ValueError, match="a new name"):
        declare(Declaration("no good", "none", "", None, len, len, len))


@pytest.mark.parametrize("seed", [3, 4])
def test_every_declared_kernel_equals_its_readable_function(seed):
    # every family, parameters at their defaults and others, both ways
    qrels, run = _collection(seed)
    names = []
    for d in DECLARATIONS:
        head = d.name if not d.parameters else \
            f"{d.name}({', '.join(f'{p.name}={_other(p)}' for p in d.parameters)})"
        for base in {d.name, head}:
            names += {"required": [f"{base}@5"], "optional": [base, f"{base}@3"],
                      "none": [base], "level": [f"{base}@0.3"]}[d.cut]
    qrels = {q: {d: max(g, 0) for d, g in j.items()} for q, j in qrels.items()}  # (ERR: <= 4)
    fast = rm.evaluate(qrels, run, metrics=names)
    readable = evaluate_as(qrels, run, metrics=names, conventions="trec_eval")
    for qid, values in readable.per_query.items():
        for name in names:
            assert fast.per_query[qid][name] == pytest.approx(values[name], abs=1e-12), name


def _other(parameter):
    """A value other than the default, within the bounds."""
    if parameter.choices:
        return parameter.choices[-1]
    assert isinstance(parameter.default, numbers.Real)
    return {"p": 0.6, "max_grade": 5}.get(parameter.name, parameter.default)
