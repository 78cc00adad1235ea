"""The widgets in a real browser: JupyterLab runs a lesson notebook in headless Chromium,
we change a widget as a student would (a click on a slider's track, the keyboard on a
slider, a click on a button, typing in a text box) and read the new numbers from the page.  The demo dashboards are checked
the same way in Voilà.

Expected values are hand arithmetic (written beside them); screenshots go to
test-artifacts/browser/.  Run with ``make test-browser`` (RAGMETRICS_BROWSER=1).
"""

import json
import math
import re
import time
import urllib.request

import pytest

# Bounds of every wait (seconds): a page and its kernel, running all cells, a widget's
# round trip to the kernel.
PAGE_LOAD = 120
RUN_ALL = 120
WIDGET_UPDATE = 30

LOG2_3 = math.log2(3)  # the discount of rank 2; rank 1 divides by log2(2) = 1, rank 3 by 2

# JavaScript run in the page: the prompt of every code cell ("[3]:", "[*]:", "[ ]:").
PROMPTS_JS = """() => Array.from(
    document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell'))
  .map(cell => {
    const prompt = cell.querySelector('.jp-InputPrompt');
    const editor = cell.querySelector('.jp-InputArea-editor');
    return [prompt ? prompt.textContent.trim() : '',
            editor ? editor.textContent.split('\\n')[0].slice(0, 60) : ''];
  })"""

# The text of every error output (a traceback) in the notebook.
ERRORS_JS = """() => Array.from(
    document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output'))
  .map(out => out.textContent)
  .filter(text => text.includes('Traceback (most recent call last)'))"""


# ---- helpers -------------------------------------------------------------------------

def _menu(page, menu, item):
    """Click a command of JupyterLab's menu bar, e.g. Run > Run All Cells."""
    page.locator("li.lm-MenuBar-item", has_text=menu).first.click()
    page.get_by_role("menuitem", name=item, exact=True).click()


# The notebook on screen (other tabs are hidden panels).
PANEL = ".jp-NotebookPanel:not(.lm-mod-hidden)"
INDICATOR = f"{PANEL} .jp-Notebook-ExecutionIndicator"


def open_notebook(page, lab, path):
    """Open a notebook alone in JupyterLab and wait until its kernel is idle."""
    # ?reset: a fresh workspace, so no notebook of an earlier test is reopened
    page.goto(f"{lab['url']}/lab/tree/{path}?reset&token={lab['token']}",
              timeout=PAGE_LOAD * 1000)
    page.wait_for_selector(f"{PANEL} .jp-Notebook .jp-CodeCell", timeout=PAGE_LOAD * 1000)
    page.wait_for_selector(f"{INDICATOR}[data-status='idle']", timeout=PAGE_LOAD * 1000)


def run_all_cells(page, timeout=RUN_ALL):
    """Clear every output, Run > Run All Cells, and wait (at most ``timeout`` s) until done.

    Returns the prompts and first source lines of the code cells.
    """
    _menu(page, "Edit", "Clear Outputs of All Cells")
    page.wait_for_function(
        "() => !Array.from(document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) "
        ".jp-InputPrompt')).some(p => /\\d/.test(p.textContent))", timeout=30_000)
    _menu(page, "Run", "Run All Cells")
    started = time.monotonic()
    deadline = started + timeout
    stable = 0
    retried = False
    while True:
        prompts = page.evaluate(PROMPTS_JS)
        status = page.get_attribute(INDICATOR, "data-status")
        busy = any("*" in p for p, _ in prompts)
        numbered = sum(bool(re.search(r"\d", p)) for p, _ in prompts)
        stable = stable + 1 if (status == "idle" and not busy and numbered) else 0
        if stable >= 2:
            return prompts
        if not (busy or numbered or retried) and time.monotonic() - started > 20:
            # the command was issued before the kernel could take it: issue it once more
            retried = True
            _menu(page, "Run", "Run All Cells")
        if time.monotonic() > deadline:
            pytest.fail(f"the cells did not finish within {timeout} s: kernel {status}, "
                        f"prompts {[p for p, _ in prompts]}")
        time.sleep(0.5)


def assert_all_ran(page, prompts):
    """Every code cell ran, in order, and the only errors are the exercise stubs'."""
    numbers = [int(m.group(1)) if (m := re.fullmatch(r"\[(\d+)\]:", p)) else None
               for p, _ in prompts]
    not_run = [src for (p, src), n in zip(prompts, numbers) if n is None]
    assert not not_run, f"cells that did not run: {not_run}"
    assert numbers == list(range(1, len(numbers) + 1)), numbers
    for text in page.evaluate(ERRORS_JS):
        # a student notebook's exercise raises NotImplementedError until it is solved
        assert "NotImplementedError" in text, text[-1500:]
    assert page.get_by_text("Error displaying widget").count() == 0


def widget_output(page, marker):
    """The output area holding the widget that contains ``marker`` (a CSS selector)."""
    out = page.locator(f".jp-OutputArea-output:has({marker})").first
    out.wait_for(state="visible", timeout=WIDGET_UPDATE * 1000)
    out.scroll_into_view_if_needed()
    return out


def slider(root, description):
    """The slider whose description (label) is exactly ``description``."""
    return root.locator(".widget-slider").filter(
        has=root.page.locator("label.widget-label", has_text=re.compile(
            rf"^\s*{re.escape(description)}\s*$"))).first


def set_slider_by_keyboard(handle_owner, key, times, expected):
    """Focus a slider's handle, press ``key`` ``times`` times, check its new value."""
    handle = handle_owner.locator(".noUi-handle").first
    handle.focus()
    for _ in range(times):
        handle.press(key)
    handle_owner.page.wait_for_function(
        "([h, v]) => Number(h.getAttribute('aria-valuenow')) === v",
        arg=[handle.element_handle(), expected], timeout=WIDGET_UPDATE * 1000)


def click_slider_at(owner, fraction, expected):
    """Click a vertical slider's track at ``fraction`` of its height (0 = foot, its
    minimum; 1 = top, its maximum), as a student taps it; check the new value."""
    track = owner.locator(".noUi-target").first
    box = track.bounding_box()
    y = box["height"] * (1 - fraction)
    track.click(position={"x": box["width"] / 2, "y": min(max(y, 1), box["height"] - 1)})
    handle = owner.locator(".noUi-handle").first
    owner.page.wait_for_function(
        "([h, v]) => Number(h.getAttribute('aria-valuenow')) === v",
        arg=[handle.element_handle(), expected], timeout=WIDGET_UPDATE * 1000)


def wait_for_text(locator, pattern, timeout=WIDGET_UPDATE):
    """Wait until the locator's text matches ``pattern``; return the match."""
    deadline = time.monotonic() + timeout
    text = ""
    while time.monotonic() < deadline:
        text = locator.inner_text()
        m = re.search(pattern, text)
        if m:
            return m
        time.sleep(0.2)
    pytest.fail(f"{pattern!r} did not appear within {timeout} s; the text is {text!r}")


def wait_for_alt(image, text, timeout=WIDGET_UPDATE):
    """Wait until the alt text of ``image`` (a locator) contains ``text``."""
    deadline = time.monotonic() + timeout
    alt = None
    while time.monotonic() < deadline:
        alt = image.get_attribute("alt")
        if alt and text in alt:
            return alt
        time.sleep(0.2)
    pytest.fail(f"{text!r} did not appear in the figure's alt text within {timeout} s; "
                f"it is {alt!r}")


def fmt4(x):
    """A number as the widgets print it: an integer plainly, otherwise 4 decimals."""
    return str(int(x)) if x == int(x) else f"{x:.4f}"


# ---- JupyterLab ----------------------------------------------------------------------

def test_lab_kernel_is_the_project_python(lab):
    """The notebooks run on ipykernel's python3 in the project's environment."""
    url = f"{lab['url']}/api/kernelspecs?token={lab['token']}"
    with urllib.request.urlopen(url, timeout=30) as response:
        specs = json.load(response)
    assert specs["default"] == "python3"
    argv0 = specs["kernelspecs"]["python3"]["spec"]["argv"][0]
    # "python" in a kernelspec is replaced by the server's interpreter when launched
    assert argv0 in ("python", "python3", lab["python"]), argv0


def test_graded_notebook_slider_and_buttons_update_ndcg(lab, page, artifacts):
    open_notebook(page, lab, "notebooks/03_graded.ipynb")
    prompts = run_all_cells(page)
    assert_all_ran(page, prompts)

    explorer = widget_output(page, ".widget-vslider")
    summary = explorer.locator(".widget-html-content", has_text="NDCG@").first
    # The notebook's explorer shows the slides' grades [5, 3, 5, 0, 2]; its prediction cell
    # leaves it at k = 5 with a missed grade-3 document (read from the page, so a change says
    # what moved).  Back to k = 3 with the keyboard, and a missed grade-5 document typed in.
    grades = [int(float(h.get_attribute("aria-valuenow"))) for h in
              explorer.locator(".widget-vslider .noUi-handle").all()]
    assert grades == [5, 3, 5, 0, 2], f"notebook 03's explorer now starts from {grades}"
    assert slider(explorer, "k").locator(".noUi-handle").get_attribute(
        "aria-valuenow").startswith("5")
    missed = explorer.locator(".widget-text input").first
    assert missed.input_value().strip() == "3"
    set_slider_by_keyboard(slider(explorer, "k"), "ArrowDown", 2, 3)
    missed.fill("5")
    missed.press("Enter")
    # Set the switches by clicking: linear gain, ideal ranking from all judged grades
    # (5, 5, 5 at ranks 1-3).
    explorer.locator("button.widget-toggle-button", has_text="linear").click()
    explorer.locator("button.widget-toggle-button", has_text="all judged").click()
    # DCG@3 = 5 + 3/log2(3) + 5/2 = 9.3928; IDCG@3 = 5 + 5/log2(3) + 5/2 = 10.6546.
    idcg = 5 + 5 / LOG2_3 + 5 / 2
    before = (5 + 3 / LOG2_3 + 5 / 2) / idcg  # 0.8816
    wait_for_text(summary, r"\(linear gain, ideal ranking from all judged.*"
                  + re.escape(f"NDCG@3 = {fmt4(before)}"))

    # Rank 2's grade from 3 to 4 with the keyboard (ArrowUp on the slider's handle).
    rank2 = slider(explorer, "2")
    set_slider_by_keyboard(rank2, "ArrowUp", 1, 4)
    after = (5 + 4 / LOG2_3 + 5 / 2) / idcg  # 10.0237 / 10.6546 = 0.9408
    wait_for_text(summary, re.escape(f"NDCG@3 = {fmt4(after)}"))
    # the per-rank table follows: rank 2 now has grade 4 and gain 4
    row2 = explorer.locator("table tr").nth(2)
    assert row2.locator("td").nth(1).inner_text().strip() == "4"

    # Rank 3's grade by a click at the foot of its slider: grade 0 (not relevant).
    click_slider_at(slider(explorer, "3"), fraction=0.0, expected=0)
    # The judged grades are now 5, 4, 0, 0, 2 and the missed 5: the ideal top 3 is
    # 5, 5, 4, so IDCG@3 = 5 + 5/log2(3) + 4/2 = 10.1546 and DCG@3 = 5 + 4/log2(3) = 7.5237.
    idcg = 5 + 5 / LOG2_3 + 4 / 2
    clicked = (5 + 4 / LOG2_3 + 0 / 2) / idcg  # 0.7409
    wait_for_text(summary, re.escape(f"NDCG@3 = {fmt4(clicked)}"))
    row3 = explorer.locator("table tr").nth(3)
    assert row3.locator("td").nth(1).inner_text().strip() == "0"

    # Click "exponential": gain 2^grade - 1, so 31, 15, 0 against the ideal 31, 31, 15.
    explorer.locator("button.widget-toggle-button", has_text="exponential").click()
    exponential = (31 + 15 / LOG2_3 + 0 / 2) / (31 + 31 / LOG2_3 + 15 / 2)  # 0.6969
    m = wait_for_text(summary, r"\(exponential gain.*NDCG@3 = ([0-9.]+)")
    assert m.group(1) == fmt4(exponential)
    # the figure's alt text follows, with its numbers rounded to 2 decimals: grades
    # 5, 4, 0, 0, 2 give the gains 31, 15, 0, 0, 3, discounted to 31, 15/log2(3) = 9.46,
    # 0, 0, 3/log2(6) = 1.16; NDCG@3 = 0.6969 -> 0.7
    figure = explorer.locator("img").first
    wait_for_alt(figure, "Retrieved: 31, 9.46, 0, 0 and 1.16.")
    alt = figure.get_attribute("alt")
    assert alt.startswith("Bar chart of the discounted gain (exponential gain) at ranks 1 to 5")
    assert alt.endswith(f"NDCG@3 = {round(exponential, 2):g}."), alt

    time.sleep(0.5)  # let the figure's new PNG paint
    page.screenshot(path=str(artifacts / "03_graded.png"))
    explorer.screenshot(path=str(artifacts / "03_graded_widget.png"))


def test_ngram_notebook_text_box_and_slider_update_bleu(lab, page, artifacts):
    open_notebook(page, lab, "notebooks/04_ngram_overlap.ipynb")
    prompts = run_all_cells(page)
    assert_all_ran(page, prompts)

    explorer = widget_output(page, "td[data-key='bleu']")
    # After Run All the widget is where the lesson's "predict" cell left it: the candidate
    # "six six six six six" against two references, one per line.
    references = explorer.locator(".widget-textarea textarea").first.input_value()
    assert references.strip().splitlines() == ["I am thirty six years old", "six six"]

    def cell(key):
        return explorer.locator(f"td[data-key='{key}']").first

    # "six" is clipped to its largest count in one reference, 2 ("six six"), not 1 + 2:
    # 2 of the 5 unigrams count.
    wait_for_text(cell("clip1"), r"^\s*2\s*$")
    assert cell("total1").inner_text().strip() == "5"

    explorer.locator("select").first.select_option("whitespace")
    # Type a candidate and press Enter.  Whitespace tokens: "I have thirty six years"
    # (c = 5) against "I am thirty six years old" (6 tokens) and "six six" (2 tokens);
    # r is the reference length closest to c: |6 - 5| = 1 < |2 - 5| = 3, so r = 6.
    box = explorer.locator(".widget-text", has=page.locator(
        "label", has_text=re.compile(r"^\s*candidate\s*$"))).locator("input").first
    box.fill("I have thirty six years")
    box.press("Enter")
    # unigrams I, thirty, six, years match: 4 of 5 ("six" once, within both references'
    # counts); bigrams "thirty six", "six years": 2 of 4, both from the first reference
    # ("six six" is not in the candidate); no 4-gram matches, so BLEU-4 (no smoothing) is 0.
    wait_for_text(cell("clip1"), r"^\s*4\s*$")
    assert cell("total1").inner_text().strip() == "5"
    assert cell("p1").inner_text().strip() == "0.8000"
    assert cell("p2").inner_text().strip() == "0.5000"
    assert cell("p3").inner_text().strip() == f"{1 / 3:.4f}"  # "thirty six years": 1 of 3
    assert (cell("c").inner_text().strip(), cell("r").inner_text().strip()) == ("5", "6")
    bp = math.exp(1 - 6 / 5)  # 0.8187
    assert cell("bp").inner_text().strip() == f"{bp:.4f}"
    assert cell("bleu").inner_text().strip() == "0.0000"
    # The counts above would equal those of "thirty six years have I" (the lesson's first
    # candidate); ROUGE-L tells the two apart: LCS "I thirty six years" with the first
    # reference is 4 of 5 tokens (P = 0.8, R = 4/6, F = 0.7273), where "thirty six years
    # have I" has 3 of 5.  The second reference's LCS is "six", 1 of 5 (F = 0.2857): ROUGE
    # takes the reference with the best F, the first.
    wait_for_text(cell("rougeL_p"), r"^\s*0\.8000\s*$")
    assert cell("rougeL_f").inner_text().strip() == f"{2 * 0.8 * (4 / 6) / (0.8 + 4 / 6):.4f}"

    # "max n" down to 1 with the keyboard: BLEU-1 = BP * p1 = 0.8187 * 0.8 = 0.6550,
    # not the unigram precision 0.8.
    max_n = slider(explorer, "max n")
    start = int(float(max_n.locator(".noUi-handle").get_attribute("aria-valuenow")))
    set_slider_by_keyboard(max_n, "ArrowLeft", start - 1, 1)
    wait_for_text(cell("bleu"), re.escape(f"{bp * 0.8:.4f}"))

    time.sleep(0.5)
    page.screenshot(path=str(artifacts / "04_ngram_overlap.png"))
    explorer.screenshot(path=str(artifacts / "04_ngram_overlap_widget.png"))


# ---- the demo (Voilà) ----------------------------------------------------------------

def test_demo_dashboard_renders_and_responds(voila, page, artifacts):
    page.goto(f"{voila}/voila/render/03_graded.ipynb", timeout=PAGE_LOAD * 1000)
    page.wait_for_selector(".widget-vslider", timeout=PAGE_LOAD * 1000)
    assert page.locator("h1", has_text="CG, DCG, IDCG and NDCG").count() == 1
    assert "import ragmetrics_edu" not in page.content()  # no code on a dashboard
    assert page.locator(".widget-vslider").count() == 5
    summary = page.locator(".widget-html-content", has_text="NDCG@").first
    # ndcg_explorer([5, 3, 5, 0, 2], unretrieved=[5], k=3), ideal from the retrieved list:
    # ideal 5, 5, 3 -> IDCG@3 = 5 + 5/log2(3) + 3/2 = 9.6546; DCG@3 = 9.3928.
    retrieved = (5 + 3 / LOG2_3 + 5 / 2) / (5 + 5 / LOG2_3 + 3 / 2)  # 0.9729
    wait_for_text(summary, re.escape(f"NDCG@3 = {fmt4(retrieved)}"))
    # the projector template's large print reached the widgets
    size = page.locator(".widget-label").first.evaluate(
        "e => parseFloat(getComputedStyle(e).fontSize)")
    assert size >= 18, size
    # a click: the ideal ranking from all judged grades (the missed 5 joins the ideal)
    page.locator("button.widget-toggle-button", has_text="all judged").click()
    judged = (5 + 3 / LOG2_3 + 5 / 2) / (5 + 5 / LOG2_3 + 5 / 2)  # 0.8816
    wait_for_text(summary, re.escape(f"NDCG@3 = {fmt4(judged)}"))
    # and the figure's alt text: NDCG@3 = 0.8816, rounded to 0.88
    wait_for_alt(page.locator(".jupyter-widgets img").first, "NDCG@3 = 0.88.")
    time.sleep(0.5)
    page.screenshot(path=str(artifacts / "demo_03_graded.png"), full_page=True)


# Every dashboard, as the projector shows it: 1280x800, no scrolling.
DASHBOARD_FILES = [d.filename for d in __import__("tests.browser.conftest", fromlist=["demo"])
                   .demo.DASHBOARDS]


@pytest.mark.parametrize("filename", DASHBOARD_FILES)
def test_demo_dashboard_figure_fits_the_projector_screen(voila, page, artifacts, filename):
    """The widget's figure is drawn whole inside a 1280x800 window, without scrolling."""
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{voila}/voila/render/{filename}", timeout=PAGE_LOAD * 1000)
    page.wait_for_selector(".jupyter-widgets", timeout=PAGE_LOAD * 1000)
    figure = page.locator(".jupyter-widgets img, .jupyter-widgets svg.main-svg, "
                          ".jupyter-widgets canvas").first
    try:
        figure.wait_for(state="visible", timeout=20_000)
    except Exception:  # noqa: BLE001 - a dashboard without a figure: the widget must fit
        figure = page.locator(".jp-OutputArea-output > .jupyter-widgets").first
    page.wait_for_function("e => e.tagName !== 'IMG' || (e.complete && e.naturalWidth > 0)",
                           arg=figure.element_handle(), timeout=WIDGET_UPDATE * 1000)
    time.sleep(0.5)  # the layout settles once the image has its size
    scroll = page.evaluate("() => [window.scrollX, window.scrollY]")
    assert scroll == [0, 0], scroll
    box = figure.bounding_box()
    if figure.evaluate("e => e.tagName") == "IMG":  # a figure says what it shows
        assert len(figure.get_attribute("alt") or "") > 20, f"{filename}: no alt text"
    page.screenshot(path=str(artifacts / f"demo_fold_{filename.removesuffix('.ipynb')}.png"))
    assert box["width"] > 200 and box["height"] > 150, f"{filename}: figure too small: {box}"
    assert box["y"] >= 0 and box["y"] + box["height"] <= 800, \
        f"{filename}: the figure spans y = {box['y']:.0f} to {box['y'] + box['height']:.0f} " \
        "in an 800-pixel-high window"
    assert box["x"] >= 0 and box["x"] + box["width"] <= 1280, f"{filename}: {box}"
    # drawn, not clipped by a scrolling box: the figure itself is what shows at its
    # foot and at its right edge
    for x, y in ((box["x"] + box["width"] / 2, box["y"] + box["height"] - 3),
                 (box["x"] + box["width"] - 3, box["y"] + box["height"] / 2)):
        assert page.evaluate("([e, x, y]) => e.contains(document.elementFromPoint(x, y))",
                             [figure.element_handle(), x, y]), \
            f"{filename}: the figure is hidden at ({x:.0f}, {y:.0f})"
