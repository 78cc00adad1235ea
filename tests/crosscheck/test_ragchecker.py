"""rm.claim_diagnostics against ragchecker 0.1.9's own computation module.

ragchecker is a test dependency installed without its dependencies
(``pip install --no-deps ragchecker==0.1.9``, the Makefile's dev install):
its package ``__init__`` imports the evaluator, which needs refchecker and
its model-calling stack, so this test loads ``ragchecker/computation.py``
(with ``container.py`` and ``metrics.py``, which need numpy and
dataclasses-json) under an empty package, without running ``__init__``.
The tables are random, every size from 0 included, labelled with the three
labels of RAGChecker's checker ("Entailment", "Neutral", "Contradiction";
only the first counts as entailed).
"""

import importlib
import importlib.util
import math
import random
import sys
import types

import numpy as np
import pytest

import ragmetrics_edu as rm
from ragmetrics_edu.judge.diagnostics import DIAGNOSTIC_NAMES

LABELS = ("Entailment", "Neutral", "Contradiction")


@pytest.fixture(scope="module")
def computation():
    spec = importlib.util.find_spec("ragchecker")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("ragchecker is not installed (make test installs ragchecker==0.1.9 --no-deps)")
    pytest.importorskip("dataclasses_json")
    saved = {name: sys.modules.get(name) for name in
             ("ragchecker", "ragchecker.computation", "ragchecker.container", "ragchecker.metrics")}
    package = types.ModuleType("ragchecker")
    package.__path__ = list(spec.submodule_search_locations)
    sys.modules["ragchecker"] = package
    try:
        module = importlib.import_module("ragchecker.computation")
        container = importlib.import_module("ragchecker.container")
        from importlib.metadata import version
        assert version("ragchecker") == "0.1.9", version("ragchecker")
        yield module, container
    finally:
        for name, old in saved.items():
            if old is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = old


def _theirs(computation, tables):
    module, container = computation
    result = container.RAGResult(
        query_id="q", query="q", gt_answer="a", response="r",
        answer2response=tables["answer2response"], response2answer=tables["response2answer"],
        retrieved2response=tables["retrieved2response"],
        retrieved2answer=tables["retrieved2answer"])
    for name in DIAGNOSTIC_NAMES:
        module.METRIC_FUNC_MAP[name](result)
    return {name: float(result.metrics[name]) for name in DIAGNOSTIC_NAMES}


def _random_tables(rng, n, m, k):
    def label():
        return rng.choice(LABELS)
    return {"answer2response": [label() for _ in range(n)],
            "response2answer": [label() for _ in range(m)],
            "retrieved2response": [[label() for _ in range(k)] for _ in range(n)],
            "retrieved2answer": [[label() for _ in range(k)] for _ in range(m)]}


def _ours(tables, k, as_arrays, empty_score=0.0):
    def b(rows):
        return [[x == "Entailment" for x in row] for row in rows]
    correct = [x == "Entailment" for x in tables["answer2response"]]
    covered = [x == "Entailment" for x in tables["response2answer"]]
    supported, retrieved = b(tables["retrieved2response"]), b(tables["retrieved2answer"])
    if as_arrays:   # arrays keep the number of chunks even without a row
        correct, covered = np.array(correct, dtype=bool), np.array(covered, dtype=bool)
        supported = np.array(supported, dtype=bool).reshape(len(supported), k)
        retrieved = np.array(retrieved, dtype=bool).reshape(len(retrieved), k)
    return rm.claim_diagnostics(response_claims_correct=correct, reference_claims_covered=covered,
                                response_claims_supported=supported,
                                reference_claims_retrieved=retrieved, empty_score=empty_score)


def test_equals_ragchecker_on_random_tables(computation):
    rng = random.Random(35)
    sizes = {"empty": 0, "nonempty": 0}
    for trial in range(4000):
        n, m, k = rng.randint(0, 6), rng.randint(0, 6), rng.randint(0, 5)
        tables = _random_tables(rng, n, m, k)
        theirs = _theirs(computation, tables)
        ours = _ours(tables, k, as_arrays=trial % 2 == 0).as_dict()
        assert ours == theirs, (n, m, k, tables, ours, theirs)   # exact, not approximate
        sizes["empty" if min(n, m, k) == 0 else "nonempty"] += 1
    assert sizes["empty"] > 800 and sizes["nonempty"] > 2000, sizes


@pytest.mark.parametrize("n, m, k", [(0, 0, 0), (0, 3, 2), (3, 0, 2), (3, 2, 0), (0, 0, 4),
                                     (1, 1, 1)])
def test_every_empty_shape_equals_ragchecker(computation, n, m, k):
    rng = random.Random(n * 100 + m * 10 + k)
    for _ in range(50):
        tables = _random_tables(rng, n, m, k)
        assert _ours(tables, k, as_arrays=True).as_dict() == _theirs(computation, tables)
        assert _ours(tables, k, as_arrays=False).as_dict() == _theirs(computation, tables)


def test_nan_convention_differs_from_ragchecker_only_where_a_table_is_empty(computation):
    rng = random.Random(9)
    for _ in range(2000):
        n, m, k = rng.randint(0, 4), rng.randint(0, 4), rng.randint(0, 3)
        tables = _random_tables(rng, n, m, k)
        theirs = _theirs(computation, tables)
        ours = _ours(tables, k, as_arrays=True, empty_score=math.nan).as_dict()
        for name in DIAGNOSTIC_NAMES:
            if math.isnan(ours[name]):
                assert theirs[name] == 0.0, (name, n, m, k)
            else:
                assert ours[name] == theirs[name], (name, n, m, k)
        if min(n, m, k) > 0 and any(x == "Entailment" for row in tables["retrieved2answer"]
                                    for x in row):
            assert not any(math.isnan(v) for v in ours.values())
