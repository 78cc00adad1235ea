"""Every public function of two or more parameters says what each one is.

The public API is read as ``tests/test_naming.py`` reads it (every public module,
its public functions and classes, their public methods, with :mod:`inspect`);
static and class methods are read too.  A function or method with two or more
parameters besides ``self``/``cls`` needs a numpydoc ``Parameters`` section
listing each of them: a ``Parameters`` line, a ``----------`` line, then
``name : type`` entries (``a, b : type`` documents both; ``*args`` and
``**kwargs`` may be left out).  A one-parameter function's summary says it all;
a class documents its fields on its own terms and is not read here.
"""

import inspect
import re

from tests._public_api import public_callables


def _public_functions():
    """(dotted name without the package, function) of every public function and method."""
    return ((name, obj) for name, obj in public_callables() if inspect.isfunction(obj))


def _parameters(function):
    """The parameters besides self/cls, and those of them a docstring must list."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return [], []
    params = [p for p in signature.parameters.values() if p.name not in ("self", "cls")]
    variadic = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    return params, [p.name for p in params if p.kind not in variadic]


def documented_parameters(docstring):
    """The names listed in a numpydoc docstring's Parameters section (None: no section).

    >>> documented_parameters('''Sum.
    ...
    ... Parameters
    ... ----------
    ... a, b : int
    ...     The terms.
    ... *args : float
    ...     More terms.
    ... scale : float, default 1.0
    ...
    ... Returns
    ... -------
    ... c : int
    ... ''')
    ['a', 'b', 'args', 'scale']
    >>> documented_parameters("Sum.") is None
    True
    """
    lines = inspect.cleandoc(docstring or "").splitlines()
    for i in range(len(lines) - 1):
        if lines[i].strip() == "Parameters" and re.fullmatch(r"\s*-{3,}\s*", lines[i + 1]):
            break
    else:
        return None
    indent = len(lines[i]) - len(lines[i].lstrip())
    names = []
    body = lines[i + 2:]
    for j, line in enumerate(body):
        if not line.strip() or len(line) - len(line.lstrip()) != indent:
            continue
        if j + 1 < len(body) and re.fullmatch(r"\s*-{3,}\s*", body[j + 1]):
            break  # the next section
        head = line.split(" : ", 1)[0].strip()
        names.extend(n.strip().lstrip("*") for n in head.split(","))
    return names


def offenders():
    """Every public function of two or more parameters and what its docstring misses."""
    found = []
    for name, function in _public_functions():
        params, required = _parameters(function)
        if len(params) < 2:
            continue
        listed = documented_parameters(inspect.getdoc(function))
        if listed is None:
            found.append((name, "no Parameters section"))
        elif missing := [p for p in required if p not in listed]:
            found.append((name, "does not list " + ", ".join(missing)))
    return found


OFFENDERS = offenders()


def test_the_scan_reads_the_whole_public_api():
    names = {name for name, _ in _public_functions()}
    assert len(names) > 250
    for expected in ("retrieval.order_unaware.recall_at_k", "generation.chrf_score.chrf",
                     "judge.assessors.kappa_ci", "lab.power.adjust_p_values"):
        assert expected in names


def test_the_reader_finds_a_missing_parameter():
    def two(candidate, references):
        """Score a candidate.

        Parameters
        ----------
        candidate : str
            The text under evaluation.

        Returns
        -------
        references : float
            Not a parameter: a section of its own.
        """

    assert documented_parameters(two.__doc__) == ["candidate"]


def test_every_public_function_of_several_parameters_documents_each_of_them():
    wrong = [f"{name}: {why}" for name, why in OFFENDERS]
    assert not wrong, "\n".join(wrong)
