"""Every docstring of the package is valid reStructuredText once numpydoc has read it.

The course site's API reference (``make site``) renders the docstrings with
Sphinx and numpydoc.  A table whose text spills into a column margin, or a
``|a|`` that reStructuredText reads as a substitution, becomes an error box
or a dead link on the page; this test finds them without building the site.
Sphinx's own roles and directives (``:func:``, ``.. seealso::``) are unknown
to plain docutils and are the only messages let through.
"""

import importlib
import io
import inspect
import pkgutil
import re

import pytest

import ragmetrics_edu

# the site's extra (in dev): the test runs wherever `make test` does
import docutils.core as docutils_core  # noqa: E402
import numpydoc.docscrape_sphinx as docscrape_sphinx  # noqa: E402

SPHINX_ONLY = ("Unknown interpreted text role", "No role entry", "Unknown directive type",
               "No directive entry", 'Unknown target name: "ragmetrics')
"""Messages about markup that Sphinx defines and plain docutils does not know."""


def _modules():
    names = ["ragmetrics_edu"]
    for info in pkgutil.walk_packages(ragmetrics_edu.__path__, "ragmetrics_edu."):
        if info.name.endswith("__main__"):
            continue
        names.append(info.name)
    return names


def _documented(module):
    """``[(qualified name, rst text)]`` of the module and its public functions and classes."""
    out = [(module.__name__, inspect.getdoc(module) or "")]
    for name, obj in vars(module).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
            continue
        if not (inspect.isfunction(obj) or inspect.isclass(obj)) or not obj.__doc__:
            continue
        text = str(docscrape_sphinx.get_doc_object(obj, config={"show_class_members": False}))
        out.append((f"{module.__name__}.{name}", text))
    return out


def problems(text):
    """docutils' warnings and errors on ``text``, Sphinx-only markup aside."""
    stream = io.StringIO()
    settings = {"report_level": 2, "halt_level": 5, "warning_stream": stream}
    docutils_core.publish_doctree(text, settings_overrides=settings)
    found = []
    for line in stream.getvalue().splitlines():
        match = re.match(r"<string>:(\d+): \((?:WARNING|ERROR|SEVERE)/\d\) (.*)", line)
        if match and not match.group(2).startswith(SPHINX_ONLY):
            found.append(f"line {match.group(1)}: {match.group(2)}")
    return found


def test_problems_finds_a_broken_table_and_a_substitution():
    table = "=====  ===\nab     c\n=====  ===\nabcdefgh  d\n=====  ===\n"
    assert any("Malformed table" in p for p in problems(table))
    assert any("substitution" in p for p in problems("the textbook O(|a| |b|) table"))
    assert problems("A :func:`known` role, ``|a|`` in a literal.") == []


INVISIBLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\xa0\u2000-\u200f\u2028\u2029\u202f\ufeff]")
"""Characters a docstring must write as escapes (``\\xa0``): control characters, no-break
and zero-width spaces, and the line separators ``str.splitlines`` breaks a line at, which cut
an inline literal in two when Sphinx reads the docstring."""


def invisible(text):
    """``[(line number, character name)]`` of the characters of :data:`INVISIBLE` in ``text``."""
    import unicodedata
    return [(text.count("\n", 0, m.start()) + 1, unicodedata.name(m.group(), hex(ord(m.group()))))
            for m in INVISIBLE.finditer(text)]


def test_invisible_finds_a_no_break_space_and_a_line_separator():
    assert invisible("space ``\xa0``,\nline ``\u2028``") == [
        (1, "NO-BREAK SPACE"), (2, "LINE SEPARATOR")]
    assert invisible(r"space ``\xa0``") == []


@pytest.mark.parametrize("module_name", _modules())
def test_docstrings_are_valid_restructuredtext(module_name):
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:  # an optional dependency of that module is missing
        pytest.skip(f"{module_name}: {exc}")
    bad = [f"{name}: {p}" for name, text in _documented(module) for p in problems(text)]
    bad += [f"{name}: line {line}: {char} (write it as an escape in a raw docstring)"
            for name, text in _documented(module) for line, char in invisible(text)]
    assert not bad, "\n".join(bad)
