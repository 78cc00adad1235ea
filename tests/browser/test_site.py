"""The course site (``make site``) in a real browser, offline.

The built site (``build/site/html``) is served on localhost and every page is
opened in headless Chromium with every request leaving localhost refused (the
site must not need a CDN when viewed).  On every page: no console error, no
failed request, and an accessibility audit by axe-core (injected from the npm
package the site build installs) with no critical or serious violation.  On
every lesson page: every figure of the lesson drawn (those that answer a
prediction are folded under "Show the answer": the test opens them), and where
the notebook holds a widget, the widget's saved view drawn (not the "state not
found" text).  Every
internal link and anchor resolves (checked on the HTML files).  Screenshots go
to ``test-artifacts/site/``.

Run with ``make test-site`` (it builds the site first and sets RAGMETRICS_BROWSER=1).
"""

import functools
import html.parser
import http.server
import importlib.util
import json
import threading
import urllib.parse
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "build" / "site" / "html"
NOTEBOOKS = ROOT / "notebooks"
SOLUTIONS = ROOT / "solutions"
ARTIFACTS = ROOT / "test-artifacts" / "site"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
BLOCKING = ("critical", "serious")
"""axe-core's impact levels that fail the test (the others are reported only)."""


def _site_tool():
    spec = importlib.util.spec_from_file_location("course_site_tool", ROOT / "tools" / "site.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _pages():
    if not (SITE / "index.html").exists():
        return []
    return sorted(p.relative_to(SITE).as_posix() for p in SITE.rglob("*.html")
                  if "_static" not in p.parts and "_sources" not in p.parts)


PAGES = _pages()
LESSONS = sorted(p.stem for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def _figures_on_the_page(stem):
    """How many figures the page of a lesson shows: those the site's page of it holds
    (tools/site.py: the student notebook, its answers' outputs folded)."""
    page = _site_tool().lesson_page(NOTEBOOKS / f"{stem}.ipynb", SOLUTIONS)
    return sum("image/png" in out.get("data", {})
               for cell in page["cells"] if cell["cell_type"] == "code"
               for out in cell.get("outputs", []))


def _has_widget(stem):
    nb = json.loads((NOTEBOOKS / f"{stem}.ipynb").read_text(encoding="utf-8"))
    return any(WIDGET_MIME in out.get("data", {})
               for cell in nb["cells"] if cell["cell_type"] == "code"
               for out in cell.get("outputs", []))


@pytest.fixture(scope="module")
def site():
    """The built site on a localhost port: its base URL."""
    if not (SITE / "index.html").exists():
        pytest.fail(f"{SITE} has no index.html: run `make site` first")
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def axe():
    return _site_tool().axe_source()


@pytest.fixture(scope="module")
def shots():
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


def visit(browser, url):
    """Open ``url`` in a new tab, refusing every request that leaves localhost.

    Returns ``(tab, problems)``: ``problems`` collects console errors, page
    errors, failed and refused requests as they happen.
    """
    tab = browser.new_page()
    tab.set_viewport_size({"width": 1280, "height": 800})
    problems = []
    tab.on("console", lambda m: problems.append(f"console {m.type}: {m.text}")
           if m.type == "error" else None)
    tab.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    tab.on("requestfailed", lambda r: problems.append(
        f"request failed: {r.url} ({r.failure})"))

    def route(r):
        if urllib.parse.urlsplit(r.request.url).hostname == "127.0.0.1":
            r.continue_()
        else:
            problems.append(f"fetched from outside the site: {r.request.url}")
            r.abort()

    tab.route("**/*", route)
    tab.goto(url, wait_until="load")
    return tab, problems


def audit(tab, axe_js):
    """axe-core's violations on the page: ``[(impact, id, help, [targets])]``."""
    if not tab.evaluate("() => typeof window.axe !== 'undefined'"):
        tab.add_script_tag(content=axe_js)
    result = tab.evaluate("""async () => {
        const r = await axe.run(document, {resultTypes: ['violations']});
        return r.violations.map(v => [v.impact, v.id, v.help,
                                      v.nodes.slice(0, 5).map(n => n.target.join(' '))]);
    }""")
    return [tuple(v) for v in result]


# ---- the build ------------------------------------------------------------------------

def test_the_site_has_every_lesson_the_guide_and_the_api():
    assert PAGES, f"no site at {SITE}: run `make site`"
    for stem in LESSONS:
        assert f"notebooks/{stem}.html" in PAGES, stem
    assert "docs/instructor.html" in PAGES
    assert "api/index.html" in PAGES
    assert "search.html" in PAGES
    # the API reference has a page for every public name's module
    init = (ROOT / "ragmetrics_edu" / "__init__.py").read_text(encoding="utf-8")
    exports = dict(__import__("re").findall(r'^\s+"(\w+)": "(\w+)",$', init, flags=8))
    for name, module in exports.items():
        page = SITE / "api" / f"{module}.html"
        assert page.exists(), module
        assert f'id="ragmetrics_edu.{module}.{name}"' in page.read_text(encoding="utf-8"), name


# ---- links, on the files --------------------------------------------------------------

class _Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if attrs.get("name") and tag == "a":
            self.ids.add(attrs["name"])
        for key in ("href", "src"):
            if attrs.get(key) and (tag != "link" or key == "href"):
                self.hrefs.append(attrs[key])


@functools.lru_cache(maxsize=None)
def _parse(rel):
    parser = _Links()
    parser.feed((SITE / rel).read_text(encoding="utf-8"))
    return parser


def test_internal_links_and_anchors_resolve():
    broken = []
    for page in PAGES:
        for href in _parse(page).hrefs:
            parts = urllib.parse.urlsplit(href)
            if parts.scheme or parts.netloc or href.startswith(("mailto:", "javascript:")):
                continue
            target = (Path(page).parent / urllib.parse.unquote(parts.path)) if parts.path \
                else Path(page)
            target = Path(*[p for p in target.as_posix().split("/") if p not in ("", ".")])
            resolved = (SITE / target).resolve()
            if resolved.is_dir():
                resolved = resolved / "index.html"
            if not resolved.exists():
                broken.append(f"{page}: {href} (no file)")
                continue
            if parts.fragment and resolved.suffix == ".html":
                ids = _parse(resolved.relative_to(SITE.resolve()).as_posix()).ids
                if urllib.parse.unquote(parts.fragment) not in ids:
                    broken.append(f"{page}: {href} (no anchor)")
    assert not broken, "\n".join(broken[:40])


# ---- every page in the browser -------------------------------------------------------

@pytest.mark.parametrize("rel", PAGES)
def test_page_loads_cleanly_and_passes_the_audit(site, browser, axe, shots, rel):
    tab, problems = visit(browser, f"{site}/{rel}")
    try:
        if rel.startswith("notebooks/"):
            _check_lesson(tab, Path(rel).stem, problems)
        violations = audit(tab, axe)
        name = rel.replace("/", "_").removesuffix(".html")
        tab.screenshot(path=str(shots / f"{name}.png"))
    finally:
        tab.close()
    assert not problems, "\n".join(problems)
    blocking = [v for v in violations if v[0] in BLOCKING]
    (shots / f"{name}.axe.json").write_text(json.dumps(violations, indent=1))
    assert not blocking, "\n".join(f"{i} [{imp}] {h}: {t}" for imp, i, h, t in blocking)


def _check_lesson(tab, stem, problems):
    """A lesson page: every figure drawn, the answers' once unfolded; its widget's
    saved view drawn if it has one."""
    tab.wait_for_function("() => window.MathJax === undefined || !MathJax.startup "
                          "|| MathJax.startup.promise !== undefined", timeout=30_000)
    folded = tab.evaluate("""() => Array.from(document.querySelectorAll(
        'article details.hide')).filter(d => !d.open).length""")
    # a reader unfolds the answers ("Show the answer"): every figure is there
    tab.evaluate("() => document.querySelectorAll('article details').forEach(d => d.open = true)")
    tab.wait_for_function("""() => Array.from(document.querySelectorAll('article img'))
        .every(i => i.complete)""", timeout=30_000)
    figures = tab.evaluate("""() => Array.from(document.querySelectorAll(
        'article .cell_output img, article .output img'))
        .filter(i => (i.naturalWidth || i.clientWidth) > 50 && i.offsetParent !== null)
        .map(i => i.getAttribute('alt') || '')""")
    want = _figures_on_the_page(stem)
    assert want, f"{stem}: the lesson saves no figure for its page"
    assert len(figures) >= want, f"{stem}: {len(figures)} figures drawn of {want}"
    assert folded, f"{stem}: no answer folded under \"Show the answer\""
    if _has_widget(stem):
        try:
            tab.wait_for_selector("article .jupyter-widgets.widget-container, "
                                  "article .jupyter-widgets.widget-inline-hbox, "
                                  "article .widget-html-content", timeout=30_000)
        except Exception:  # noqa: BLE001 - reported below with the page's text
            text = tab.inner_text("article")[:0]
            pytest.fail(f"{stem}: the widget's saved view is not drawn{text}")
        missing = tab.get_by_text("Could not find widget state", exact=False).count() + \
            tab.get_by_text("Error displaying widget", exact=False).count()
        assert missing == 0, f"{stem}: a widget's state is not saved in the notebook"
        widget = tab.locator("article .jupyter-widgets").first
        widget.scroll_into_view_if_needed()
        tab.screenshot(path=str(ARTIFACTS / f"{stem}_widget.png"))
