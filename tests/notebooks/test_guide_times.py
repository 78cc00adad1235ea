"""The lesson plan's path and times: one row per lesson, the same in the guide,
the README and each lesson's notes, so that updating the times in one place and
forgetting another fails here."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LESSONS = sorted(p.stem for p in (ROOT / "lessons").glob("[0-9][0-9]_*.md"))

# "45 / 85-105", optionally "(+15 appendix)": main path / with exercises, in minutes
TIME = re.compile(r"(?P<main>\d+) / (?P<lo>\d+)(?:-(?P<hi>\d+))?(?: \(\+\d+ [a-z ]+\))?")


def plan(text, row):
    """{lesson: (path, time)} read from the table rows matched by ``row``."""
    out = {}
    for line in text.splitlines():
        m = re.match(row, line)
        if m:
            assert m.group("name") not in out, f"two rows for {m.group('name')}"
            out[m.group("name")] = (m.group("path"), m.group("time").strip())
    return out


def guide_plan():
    text = (ROOT / "docs" / "instructor.md").read_text(encoding="utf-8")
    return plan(text, r"\| \d\d \| `(?P<name>\d\d_\w+)` \| (?P<path>[^|]*?) \| (?P<time>[^|]*) \|")


def readme_plan():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return plan(text, r"\| `(?P<name>\d\d_\w+)` \| (?P<path>core|optional) \| (?P<time>[^|]*) \|")


def test_the_guide_and_the_readme_give_every_lesson_the_same_path_and_time():
    guide, readme = guide_plan(), readme_plan()
    assert sorted(guide) == LESSONS, "the guide's lesson plan must have one row per lesson"
    assert readme == guide


@pytest.mark.parametrize("name", LESSONS)
def test_each_time_reads_main_path_then_with_exercises(name):
    path, time = guide_plan()[name]
    assert path in ("core", "optional"), f"{name}: path {path!r}"
    m = TIME.fullmatch(time)
    assert m, f"{name}: time {time!r} is not 'main / with exercises' in minutes"
    assert int(m["main"]) < int(m["lo"]) <= int(m["hi"] or m["lo"]), f"{name}: {time!r}"


def test_the_core_path_comes_first():
    paths = [guide_plan()[name][0] for name in LESSONS]
    assert paths[0] == "core" and paths == sorted(paths), paths   # "core" < "optional"


@pytest.mark.parametrize("name", LESSONS)
def test_each_lessons_notes_give_the_same_main_path(name):
    notes = (ROOT / "docs" / "instructor" / f"{name}.md").read_text(encoding="utf-8")
    m = re.search(r"\*\*Main path: about (\d+) minutes\*\*", notes)
    assert m, f"docs/instructor/{name}.md: no '**Main path: about N minutes**'"
    assert m.group(1) == TIME.fullmatch(guide_plan()[name][1])["main"], name


def test_a_time_out_of_step_is_reported():
    row = r"\| `(?P<name>\d\d_\w+)` \| (?P<path>core|optional) \| (?P<time>[^|]*) \|"
    edited = "| `01_x` | core | 50 / 85-105 | ... |"
    assert plan(edited, row) == {"01_x": ("core", "50 / 85-105")}
    assert plan(edited, row) != {"01_x": ("core", "45 / 85-105")}
    assert not TIME.fullmatch("45 min") and not TIME.fullmatch("45 / about 90")
