"""Hand out and grade the lessons' exercises with nbgrader, from the solved notebooks.

The solved notebooks (``solutions/NN_name.ipynb``) mark their answers the way
nbgrader does (``### BEGIN SOLUTION`` / ``### END SOLUTION``), but carry no
nbgrader cell metadata: the lessons stay plain notebooks for self-learners.
This script writes nbgrader's *source* folder from them, one assignment per
lesson (``build/grading/source/NN_name/NN_name.ipynb``), giving every cell its
nbgrader role:

==================================  ===========================================
cell of the solved notebook        nbgrader role (cell metadata ``nbgrader``)
==================================  ===========================================
code with a solution region        solution cell (``solution``), the answer
                                   cleared in the release version
check cell (a ``Check`` docstring) autograded test cell (``grade``,
                                   ``locked``), ``points`` from its metadata,
                                   default 1
markdown with a solution region    manually graded answer (``solution`` and
                                   ``grade``), ``points`` default 1
every other cell                   read-only instructions (``locked``)
==================================  ===========================================

Hidden tests.  A check cell may carry, in its metadata ``hidden_tests``, more
cases written out like the visible ones (the code of a second check, e.g. a
``check_function`` call on inputs the student never sees).  The source version
appends it to the check inside nbgrader's ``### BEGIN HIDDEN TESTS`` /
``### END HIDDEN TESTS`` region: ``nbgrader generate_assignment`` removes the
region from what students receive, and ``nbgrader autograde`` puts it back, so
a student cannot pass by returning the values printed in the visible check.
The course's configuration also removes the region from the feedback
(``nbgrader generate_feedback``); a failed hidden case's message, in the
cell's output, still names that one case.
A check cell may also hold such a region in its own source; it is kept.  The
lesson notebooks themselves never change.

Which checks need hidden tests (``needs_hidden_tests``, from the cell's code):
a check that writes out the answers it expects, so that a student could pass
by returning them.  That is a check cell calling

* ``check_function`` (an implement-a-function exercise: its cases list inputs
  and the outputs expected, which an answer could special-case), or
* ``check_number`` with the expected value itself (positional or
  ``expected=``), not its fingerprint ``digest_=``.

A ``check_number(..., digest_=...)`` check never shows the value, and a
counterexample check (the student's answers from ``rm.course.exercises.answers``,
then a property computed on them) verifies a property, not a value: neither
needs hidden tests.  ``check_hidden`` lists the checks that need hidden tests
and have none.

Usage::

    python tools/assignments.py source        # write build/grading/source and the config
    python tools/assignments.py generate      # ... then nbgrader generate_assignment (release/)
    python tools/assignments.py grade-demo    # ... then the whole loop on two submissions
    python tools/assignments.py hidden        # the checks that need hidden tests and have none

``grade-demo`` runs the instructor's loop on two made-up students per lesson:
``solved`` hands in the solved notebook, ``blank`` hands in the release
version untouched.  Both are submitted to the course's exchange folder,
collected, autograded, and one line per lesson is printed::

    03_graded: solved 4/4, blank 0/4

(the points of the autograded test cells; answers that need a person's grading
are counted apart).
"""

import argparse
import ast
import copy
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

from make_student import is_check_cell  # noqa: E402

SOLUTIONS = ROOT / "solutions"
COURSE = ROOT / "build" / "grading"
COURSE_ID = "ragmetrics_edu"
SCHEMA_VERSION = 3
DEMO_STUDENTS = ("solved", "blank")

BEGIN_SOLUTION = "### BEGIN SOLUTION"
BEGIN_HIDDEN = "### BEGIN HIDDEN TESTS"
END_HIDDEN = "### END HIDDEN TESTS"
_CHECK_NUMBER = re.compile(r'^\s*"""\s*Check exercise\s+(\w+)', re.I)
_SAFE_ID = re.compile(r"[^A-Za-z0-9_-]")

CONFIG = '''\
# nbgrader's configuration of the course (written by tools/assignments.py).
c = get_config()  # noqa: F821
c.CourseDirectory.course_id = {course_id!r}
c.CourseDirectory.root = {root!r}
c.Exchange.root = {exchange!r}
c.Exchange.path_includes_course = True
# a lesson runs a transformer and a retrieval lab: give each cell time
c.ExecutePreprocessor.timeout = 600
c.Execute.timeout = 600
# a kernel that starts slowly on a loaded machine is waited for (60 s by default)
c.Execute.startup_timeout = 180
c.ClearSolutions.code_stub = {{"python": "# YOUR CODE HERE\\nraise NotImplementedError()"}}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
# the feedback a student receives leaves the hidden tests out, as the release does
from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor  # noqa: E402
from nbgrader.preprocessors import ClearHiddenTests, GetGrades  # noqa: E402
c.GenerateFeedback.preprocessors = [GetGrades, ClearHiddenTests, CSSHTMLHeaderPreprocessor]
'''


# ---------------------------------------------------------------------------
# cell roles
# ---------------------------------------------------------------------------

def _meta(grade_id, *, grade=False, solution=False, locked=False, points=None):
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked,
            "schema_version": SCHEMA_VERSION, "solution": solution, "task": False}
    if grade:
        meta["points"] = points
    return meta


def _points(cell, default=1):
    value = cell.metadata.get("points", default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ValueError(f"cell {cell.get('id')!r}: metadata points must be a positive "
                         f"number, got {value!r}")
    return value


def role(cell):
    '''The nbgrader role of a solved notebook's cell.

    Returns one of ``"solution"``, ``"test"``, ``"answer"`` (a manually graded
    markdown answer) and ``"readonly"``.

    >>> role(nbformat.v4.new_code_cell('x = 1\\n### BEGIN SOLUTION\\nx = 2\\n### END SOLUTION'))
    'solution'
    >>> role(nbformat.v4.new_code_cell('"""Check exercise 2: AP."""\\ncheck()'))
    'test'
    >>> role(nbformat.v4.new_markdown_cell('### BEGIN SOLUTION\\nB.\\n### END SOLUTION'))
    'answer'
    >>> role(nbformat.v4.new_markdown_cell('# 02 · MRR and MAP'))
    'readonly'
    '''
    if cell.cell_type == "code":
        if is_check_cell(cell):
            return "test"
        if BEGIN_SOLUTION in cell.source:
            return "solution"
    elif cell.cell_type == "markdown" and BEGIN_SOLUTION in cell.source:
        return "answer"
    return "readonly"


def hidden_region(code):
    """``code`` inside nbgrader's hidden-tests markers."""
    return f"{BEGIN_HIDDEN}\n{code.strip()}\n{END_HIDDEN}"


def nbgrader_notebook(solved, stem):
    """The nbgrader source version of the solved notebook ``solved`` (not modified).

    Parameters
    ----------
    solved : nbformat.NotebookNode
    stem : str
        The lesson's name (``"02_order_aware"``): the prefix of every grade id.

    Returns
    -------
    nbformat.NotebookNode
    """
    nb = copy.deepcopy(solved)
    seen = set()
    for i, cell in enumerate(nb.cells):
        kind = role(cell)
        m = _CHECK_NUMBER.match(cell.source) if kind == "test" else None
        label = f"ex{m.group(1)}" if m else f"cell{i:02d}"
        grade_id = _SAFE_ID.sub("-", f"{stem}-{label}-{kind}")
        while grade_id in seen:
            grade_id += "-2"
        seen.add(grade_id)
        if kind == "solution":
            meta = _meta(grade_id, solution=True)
        elif kind == "test":
            meta = _meta(grade_id, grade=True, locked=True, points=_points(cell))
            # the cases move into the source; no copy stays where students can read it
            hidden = cell.metadata.pop("hidden_tests", None)
            if hidden:
                if not isinstance(hidden, str):
                    hidden = "\n".join(hidden)
                cell.source = cell.source.rstrip() + "\n" + hidden_region(hidden)
        elif kind == "answer":
            meta = _meta(grade_id, grade=True, solution=True, points=_points(cell))
        else:
            meta = _meta(grade_id, locked=True)
        cell.metadata["nbgrader"] = meta
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    nb.metadata.pop("widgets", None)
    return nb


def has_hidden_tests(cell):
    """True if a check cell has hidden tests (in its metadata or its own source)."""
    return bool(cell.metadata.get("hidden_tests")) or BEGIN_HIDDEN in cell.source


def _called_name(call):
    """The name of the function an ``ast.Call`` calls (``f(...)`` or ``a.b.f(...)``), or None."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def shows_expected_values(code):
    """True if ``code`` calls ``check_function``, or ``check_number`` with the value itself.

    >>> shows_expected_values('rm.course.exercises.check_function("f", [((1,), 2)])')
    True
    >>> shows_expected_values('check_number("my_ap", 0.25)')
    True
    >>> shows_expected_values('check_number("my_ap", expected=0.25)')
    True
    >>> shows_expected_values('check_number("my_ap", digest_="1d1645fe778c")')
    False
    >>> shows_expected_values('a, b = rm.course.exercises.answers("a", "b")\\nassert a > b')
    False
    """
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        raise ValueError(f"check cell is not valid Python ({exc.msg}, line {exc.lineno}): "
                         f"{code.splitlines()[0] if code else code!r}") from None
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _called_name(node)
        if name == "check_function":
            return True
        if name == "check_number" and (len(node.args) > 1 or any(
                kw.arg == "expected" for kw in node.keywords)):
            return True
    return False


def needs_hidden_tests(cell):
    """True if ``cell`` is a check cell whose code writes out the values it expects.

    See the module docstring: ``check_function`` checks, and ``check_number``
    checks given the value rather than its fingerprint.
    """
    return role(cell) == "test" and shows_expected_values(cell.source)


def check_hidden(solutions=SOLUTIONS):
    """``[(notebook, first line of the check)]`` for every check that needs hidden tests
    (:func:`needs_hidden_tests`) and has none."""
    missing = []
    for path in sorted(Path(solutions).glob("[0-9][0-9]_*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if needs_hidden_tests(cell) and not has_hidden_tests(cell):
                missing.append((path.stem, cell.source.splitlines()[0]))
    return missing


def max_points(nb):
    """``(autograded points, manually graded points)`` of a source notebook."""
    auto = manual = 0
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade"):
            if meta.get("solution"):
                manual += meta["points"]
            else:
                auto += meta["points"]
    return auto, manual


# ---------------------------------------------------------------------------
# the course folder
# ---------------------------------------------------------------------------

def lessons(solutions=SOLUTIONS, only=None):
    """The solved notebooks to hand out (all, or the stems/prefixes in ``only``)."""
    paths = sorted(Path(solutions).glob("[0-9][0-9]_*.ipynb"))
    if only:
        paths = [p for p in paths if any(p.stem.startswith(o) for o in only)]
    return paths


def write_source(course=COURSE, solutions=SOLUTIONS, only=None):
    """Write ``course``'s nbgrader config and its source folder; return ``{stem: nb}``."""
    course = Path(course)
    course.mkdir(parents=True, exist_ok=True)
    (course / "nbgrader_config.py").write_text(CONFIG.format(
        course_id=COURSE_ID, root=str(course.resolve()),
        exchange=str((course / "exchange").resolve())), encoding="utf-8")
    written = {}
    for path in lessons(solutions, only):
        nb = nbgrader_notebook(nbformat.read(path, as_version=4), path.stem)
        out = course / "source" / path.stem / path.name
        out.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, out)
        written[path.stem] = nb
    return written


def nbgrader(course, *args, env=None, cwd=None):
    """Run ``nbgrader ARGS`` in ``course`` (its config is read from there)."""
    cmd = [sys.executable, "-m", "nbgrader", *args]
    run_env = dict(os.environ if env is None else env)
    run_env.setdefault("HF_HUB_OFFLINE", "1")
    run_env.setdefault("TRANSFORMERS_OFFLINE", "1")
    run_env.pop("MPLBACKEND", None)
    # nbgrader runs `alembic` (its database migrations) from PATH: this environment's
    run_env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), run_env.get("PATH", "")])
    # the kernel imports ragmetrics_edu and its data from the repository
    run_env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT)] + [p for p in run_env.get("PYTHONPATH", "").split(os.pathsep) if p])
    result = subprocess.run(cmd, cwd=cwd or course, env=run_env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[2:])} failed:\n{result.stdout[-4000:]}")
    return result.stdout


def generate(course=COURSE, solutions=SOLUTIONS, only=None):
    """Source folder, then ``nbgrader generate_assignment`` per lesson; return the stems."""
    stems = list(write_source(course, solutions, only))
    for stem in stems:
        nbgrader(course, "generate_assignment", stem, "--force", "--create")
    return stems


def _config(course):
    """nbgrader's configuration of ``course`` (the same as its nbgrader_config.py)."""
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    return PyFileConfigLoader("nbgrader_config.py", path=str(course)).load_config() \
        if (Path(course) / "nbgrader_config.py").exists() else Config()


def _kernel_environment():
    """The kernels nbgrader starts import ragmetrics_edu and its data from the repository."""
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent),
                                          os.environ.get("PATH", "")])
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.pop("MPLBACKEND", None)


_KERNEL_NEVER_STARTED = "Kernel didn't respond in"
"""jupyter_client's message for a kernel that never started (a lost port, a stalled start)."""


def _ok(result, what):
    if not result.get("success", False):
        raise RuntimeError(f"{what} failed:\n{result.get('error') or ''}\n"
                           f"{(result.get('log') or '')[-4000:]}")
    return result


def grade_demo(course=COURSE, solutions=SOLUTIONS, only=None):
    """The instructor's loop on the two made-up students of every lesson.

    Through nbgrader's own API, in this process: generate and release each
    assignment into the course's exchange folder; each student fetches it and
    submits (``solved``: the solved notebook; ``blank``: the release version
    untouched); the instructor collects and autogrades, and writes the
    feedback.  Returns ``{stem: (solved, blank, autograded max, manually
    graded max)}`` in points.
    """
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.exchange.default import ExchangeFetchAssignment, ExchangeSubmit

    course = Path(course).resolve()
    for sub in ("release", "submitted", "autograded", "feedback", "exchange", "students"):
        shutil.rmtree(course / sub, ignore_errors=True)
    for name in ("gradebook.db",):
        if (course / name).exists():
            (course / name).unlink()
    source = write_source(course, solutions, only)
    (course / "exchange").mkdir()
    os.chmod(course / "exchange", 0o777)
    _kernel_environment()
    config = _config(course)
    coursedir = CourseDirectory(config=config)
    api = NbGraderAPI(coursedir, config=config)
    with api.gradebook as gb:
        for student in DEMO_STUDENTS:
            gb.update_or_create_student(student)
    for stem, nb in source.items():
        _ok(api.generate_assignment(stem), f"generate_assignment {stem}")
        _ok(api.release_assignment(stem), f"release_assignment {stem}")
        for student in DEMO_STUDENTS:
            home = course / "students" / student
            home.mkdir(parents=True, exist_ok=True)
            student_dir = CourseDirectory(config=config)
            student_dir.assignment_id, student_dir.student_id = stem, student
            fetch = ExchangeFetchAssignment(coursedir=student_dir, authenticator=api.authenticator,
                                            config=config)
            fetch.assignment_dir = str(home)
            fetch.path_includes_course = False
            fetch.start()
            if student == "solved":  # the answers, as the solved notebook has them
                nbformat.write(copy.deepcopy(nb), home / stem / f"{stem}.ipynb")
            submit = ExchangeSubmit(coursedir=student_dir, authenticator=api.authenticator,
                                    config=config)
            submit.assignment_dir = str(home)
            submit.path_includes_course = False
            submit.start()
        _ok(api.collect(stem), f"collect {stem}")
        for student in DEMO_STUDENTS:
            result = api.autograde(stem, student)
            if not result.get("success") and _KERNEL_NEVER_STARTED in (result.get("log") or ""):
                # a kernel that never answered ran nothing: grading it again is safe
                # (nbgrader removed the failed attempt), and it is the only failure retried
                result = api.autograde(stem, student)
            _ok(result, f"autograde {stem} {student}")
        _ok(api.generate_feedback(stem), f"generate_feedback {stem}")
    return scores(course, source)


def _one_lesson(args):
    course, solutions, stem = args
    return grade_demo(course, solutions, [stem])


def grade_demo_parallel(course=COURSE, solutions=SOLUTIONS, only=None, jobs=2):
    """:func:`grade_demo` for each lesson in its own course folder (``course/demo/<stem>``),
    ``jobs`` lessons at a time; the same results, in course order."""
    from concurrent.futures import ProcessPoolExecutor

    stems = [p.stem for p in lessons(solutions, only)]
    tasks = [(Path(course) / "demo" / stem, solutions, stem) for stem in stems]
    results = {}
    with ProcessPoolExecutor(max_workers=max(1, jobs)) as pool:
        for part in pool.map(_one_lesson, tasks):
            results.update(part)
    return {stem: results[stem] for stem in stems}


def scores(course, source):
    """Points of each demo student per lesson, read from the gradebook."""
    out = {}
    with sqlite3.connect(Path(course) / "gradebook.db") as con:
        for stem, nb in source.items():
            auto, manual = max_points(nb)
            got = {}
            for student in DEMO_STUDENTS:
                got[student] = _auto_score(con, stem, student)
            out[stem] = (got["solved"], got["blank"], auto, manual)
    return out


def _auto_score(con, stem, student):
    """The autograded points of ``student`` on assignment ``stem`` (test cells only)."""
    row = con.execute(
        """SELECT COALESCE(SUM(g.auto_score), 0)
           FROM grade g
           JOIN submitted_notebook sn ON g.notebook_id = sn.id
           JOIN submitted_assignment sa ON sn.assignment_id = sa.id
           JOIN assignment a ON sa.assignment_id = a.id
           JOIN grade_cells gc ON g.cell_id = gc.id
           WHERE a.name = ? AND sa.student_id = ? AND gc.cell_type = 'code'""",
        (stem, student)).fetchone()
    return row[0]


def _fmt(x):
    return str(int(x)) if float(x) == int(x) else f"{x:g}"


def report_lines(results):
    """One line per lesson: ``<notebook>: solved P/P, blank Q/P``."""
    lines = []
    for stem, (solved, blank, auto, manual) in results.items():
        line = f"{stem}: solved {_fmt(solved)}/{_fmt(auto)}, blank {_fmt(blank)}/{_fmt(auto)}"
        lines.append(line)
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["source", "generate", "grade-demo", "hidden"])
    parser.add_argument("lessons", nargs="*", help="lesson prefixes (default: all)")
    parser.add_argument("--course", default=str(COURSE), help="the nbgrader course folder")
    parser.add_argument("-j", "--jobs", type=int, default=2,
                        help="grade-demo: lessons graded at once, each in its own course "
                             "folder under COURSE/demo (default 2)")
    args = parser.parse_args(argv)
    course = Path(args.course)
    if args.command == "hidden":
        for stem, line in check_hidden():
            print(f"{stem}: needs hidden tests: {line}")
        return 0
    if args.command == "source":
        written = write_source(course, only=args.lessons)
        print(f"wrote {len(written)} source notebooks in {course / 'source'}")
        return 0
    if args.command == "generate":
        stems = generate(course, only=args.lessons)
        print(f"released {len(stems)} assignments in {course / 'release'}")
        return 0
    if args.jobs > 1:
        results = grade_demo_parallel(course, only=args.lessons, jobs=args.jobs)
    else:
        results = grade_demo(course, only=args.lessons)
    for line in report_lines(results):
        print(line)
    manual = {s: r[3] for s, r in results.items() if r[3]}
    if manual:
        print("manually graded answers (points, not in the lines above): "
              + ", ".join(f"{s} {_fmt(p)}" for s, p in manual.items()))
    bad = [s for s, (solved, blank, auto, _) in results.items()
           if not (solved == auto and blank < auto)]
    if bad:
        print(f"expected solved P/P and blank below P: {', '.join(bad)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
