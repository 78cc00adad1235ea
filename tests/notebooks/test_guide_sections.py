"""Every section the instructor guide names exists in the lesson it points to.

The guide (docs/instructor.md) and its pages (docs/instructor/NN_*.md) send
the instructor to places in the notebooks.  A renamed or removed section
leaves them pointing at nothing, silently; these tests read every such
reference and look for it among the lesson's headings.  What counts as a
reference:

* a Markdown link with an anchor to a notebook or a lesson
  (``[..](../notebooks/09_rag_lab.ipynb#per-query)``, also in the lessons'
  own navigation lines); the anchor may be JupyterLab's (the heading's text,
  spaces as ``-``) or GitHub's (lower case, punctuation dropped);
* a quoted title after ``notebook NN,`` (``notebook 06, "Rescaling with a
  baseline"``, ``and "..."`` for more), or, in a lesson's own page, after
  ``section``/``sections``, ``appendix``, ``folded``, or before ``widget``/
  ``section``;
* ``notebook NN, A.3`` (a numbered appendix section) and ``pitfall N``;
* ``Exercise N`` in a lesson's page: that lesson has an exercise N.

Titles compare without their numbering ("1. ", "A.1 "), "(optional)", and
Markdown marks, ignoring case; ``appendix "For practitioners"`` also finds
the heading "Appendix: for practitioners".
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "instructor.md"
PAGES = sorted((ROOT / "docs" / "instructor").glob("[0-9][0-9]_*.md"))
LESSONS = {p.name[:2]: p for p in sorted((ROOT / "lessons").glob("[0-9][0-9]_*.md"))}

_FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def lesson_sections(text):
    """The headings of a lesson's Markdown (code cells left out), and its <summary> titles."""
    prose = _FENCE.sub("", text)
    heads = [m.group(1) for m in re.finditer(r"^#{1,6}\s+(.+?)\s*#*\s*$", prose, re.M)]
    heads += [m.group(1) for m in re.finditer(r"<summary>(.*?)</summary>", prose, re.S)]
    return [h.strip() for h in heads]


def normal(title):
    """A title as compared: no numbering, no "(optional)", no Markdown marks, lower case."""
    t = re.sub(r"[*`$_]", "", title)
    t = re.sub(r"^\s*(?:\d+\.|[A-Z]\.\d+)\s+", "", t)
    t = re.sub(r"\s*\(optional\)\s*$", "", t, flags=re.I)
    return re.sub(r"\s+", " ", t).strip().lower()


def anchors(title):
    """The anchors a heading gets: JupyterLab's (text, spaces as -) and GitHub's slug."""
    lab = re.sub(r"\s+", "-", title.strip())
    slug = re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")
    return {lab, slug}


def all_sections():
    """{lesson number: its section titles}, for every lesson."""
    return {nn: lesson_sections(p.read_text(encoding="utf-8")) for nn, p in LESSONS.items()}


def _exercises(heads):
    return {m.group(1) for h in heads for m in [re.match(r"Exercise (\w+)\b", h)] if m}


_QUOTED = r'"([^"]{2,100})"'
_MORE = re.compile(r'\s*,?\s*(?:and|or)\s+' + _QUOTED)


def _quoted_run(text, start):
    """The titles quoted at ``start`` and after it joined by "and"/"or"."""
    first = re.compile(_QUOTED).match(text, start)
    if not first:
        return [], start
    titles, end = [first.group(1)], first.end()
    while True:
        m = _MORE.match(text, end)
        if not m:
            return titles, end
        titles.append(m.group(1))
        end = m.end()


def references(text, own=None):
    """(lesson, kind, what) for every reference to a lesson's section in ``text``.

    ``own`` is the lesson a page belongs to: there a bare ``section "X"`` or
    ``Exercise N`` means that lesson.  ``kind`` is "title", "anchor",
    "appendix", "pitfall" or "exercise".
    """
    flat = re.sub(r"\s+", " ", text)
    refs = []
    for m in re.finditer(r"\]\(([^)\s]*?(\d\d)_[a-z_]+\.(?:ipynb|md))#([^)\s]+)\)", flat):
        refs.append((m.group(2), "anchor", m.group(3)))
    for m in re.finditer(r"\b[Nn]otebooks? (\d\d)[,:]? (?:(?:the )?sections? )?(?=\")", flat):
        titles, _ = _quoted_run(flat, m.end())
        refs += [(m.group(1), "title", t) for t in titles]
    for m in re.finditer(r"\b[Nn]otebook (\d\d),? (?:(?:the )?appendix,? )?(A\.\d+)\b", flat):
        refs.append((m.group(1), "appendix", m.group(2)))
    for m in re.finditer(r"\b[Nn]otebook (\d\d),? [^.|]*?\bpitfalls? (\d+)", flat):
        refs.append((m.group(1), "pitfall", m.group(2)))
    if own is not None:
        for m in re.finditer(r"\b(?:[Ss]ections?|[Aa]ppendix|[Ff]olded) (?=\")", flat):
            titles, _ = _quoted_run(flat, m.end())
            refs += [(own, "title", t) for t in titles]
        for m in re.finditer(r'\bthe ' + _QUOTED + r' (?:widget|section)\b', flat):
            refs.append((own, "title", m.group(1)))
        for m in re.finditer(r"(?<![Nn]otebook \d\d, )\b[Ee]xercises? (\d+|A)\b(?!-)", flat):
            refs.append((own, "exercise", m.group(1)))
        for m in re.finditer(r"\b(?:[Aa]ppendix|section) (A\.\d+)\b", flat):
            refs.append((own, "appendix", m.group(1)))
        for m in re.finditer(r"\bpitfalls? (\d+)\b", flat):
            refs.append((own, "pitfall", m.group(1)))
    return refs


def dangling(text, own=None, sections=None):
    """The references of ``text`` that name no section of their lesson.

    ``sections`` is {lesson number: section titles}, all the lessons' by default.
    """
    sections = all_sections() if sections is None else sections
    bad = []
    for nn, kind, what in references(text, own):
        if nn not in sections:
            bad.append(f"notebook {nn} does not exist ({kind} {what!r})")
            continue
        heads = sections[nn]
        if kind == "anchor":
            ok = any(what in anchors(h) for h in heads)
        elif kind == "title":
            names = {normal(h) for h in heads}
            names |= {n.split(":", 1)[1].strip() for n in names if n.startswith("appendix:")}
            ok = normal(what) in names
        elif kind == "appendix":
            ok = any(h.startswith(what + " ") for h in heads)
        elif kind == "pitfall":
            ok = any(re.search(rf"\bpitfall {what}\b", h, re.I) for h in heads)
        else:
            ok = what in _exercises(heads)
        if not ok:
            bad.append(f"lesson {nn}: no {kind} {what!r}")
    return bad


# ---- the guide, its pages and the lessons' own links -------------------------

def test_the_guide_names_only_sections_that_exist():
    text = GUIDE.read_text(encoding="utf-8")
    assert references(text), "found no reference at all: the patterns no longer match the guide"
    assert not dangling(text), dangling(text)


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_each_lesson_page_names_only_sections_that_exist(page):
    assert page.name[:2] in LESSONS, f"{page.name}: no lesson {page.name[:2]}"
    bad = dangling(page.read_text(encoding="utf-8"), own=page.name[:2])
    assert not bad, f"{page.name}: {bad}"


@pytest.mark.parametrize("nn", sorted(LESSONS))
def test_each_lessons_links_to_notebooks_land_on_a_heading(nn):
    text = LESSONS[nn].read_text(encoding="utf-8")
    refs = [r for r in references(text) if r[1] == "anchor"]
    bad = dangling(text) if refs else []
    assert not bad, f"{LESSONS[nn].name}: {bad}"


# ---- the checks can fail ----------------------------------------------------

SAMPLE_LESSON = """\
# 99 · A lesson

```{code-cell} ipython3
# a comment, not a heading
```

## Per query

## Is the difference real? Paired tests

### Exercise 2 (by hand): Holm

## Appendix: for practitioners (optional)

### A.3 ranx with plain dictionaries

<details><summary>Optional: how the files number queries</summary>
</details>
"""


def test_lesson_sections_skip_code_and_read_summaries():
    heads = lesson_sections(SAMPLE_LESSON)
    assert "a comment, not a heading" not in heads
    assert "Per query" in heads and "A.3 ranx with plain dictionaries" in heads
    assert "Optional: how the files number queries" in heads


def test_every_kind_of_reference_is_read_and_a_wrong_one_is_reported():
    sections = {"99": lesson_sections(SAMPLE_LESSON)}
    good = ('See notebook 99, "Per query" and "Is the difference real? Paired tests"; notebook 99, '
            'A.3; [here](../notebooks/99_a_lesson.ipynb#per-query) and '
            '[there](99_a_lesson.ipynb#Is-the-difference-real?-Paired-tests).')
    assert len(references(good)) == 5 and not dangling(good, sections=sections)
    page = 'The appendix "For practitioners" and Exercise 2; section "Per query".'
    assert len(references(page, own="99")) == 3
    assert not dangling(page, own="99", sections=sections)
    for wrong, own in [('notebook 99, "Paired significance tests"', None),
                       ('notebook 99, "Per query" and "Position bias"', None),
                       ("[x](../notebooks/99_a_lesson.ipynb#pitfalls)", None),
                       ("notebook 99, A.4", None),
                       ("notebook 99, pitfall 1", None),
                       ('the "Play with it" widget', "99"),
                       ("Exercise 5", "99"),
                       ('notebook 98, "Per query"', None)]:
        assert references(wrong, own), wrong
        assert len(dangling(wrong, own, sections=sections)) == 1, wrong
