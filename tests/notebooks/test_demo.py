"""The instructor's demo mode (tools/demo.py, demo/): the dashboards are up to date, and
Voilà serves each of them, without code, with its widget rendered by the kernel."""

import html
import importlib.util
import json
import re
import shutil
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "demo.py"

# Bounds of every wait: the server answering, and one dashboard page (the
# kernel runs the notebook while the page is served; BERTScore loads a model).
START_TIMEOUT = 90
PAGE_TIMEOUT = 180


def _load_tool():
    spec = importlib.util.spec_from_file_location("ragmetrics_demo", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


demo = _load_tool()

# What each dashboard must show: its title and the explorer class the library's
# widget constructor returns (the text/plain of the widget's output).
EXPECTED = {
    "01_order_unaware.ipynb": ("Precision, recall and F1 at k", "PrecisionRecallExplorer("),
    "02_order_aware.ipynb": ("Reciprocal rank, MRR, Average Precision and MAP",
                             "AveragePrecisionExplorer("),
    "03_graded.ipynb": ("CG, DCG, IDCG and NDCG with graded relevance", "NDCGExplorer("),
    "04_ngram_overlap.ipynb": ("n-gram overlap: BLEU and ROUGE", "NgramOverlapExplorer("),
    "06_bertscore.ipynb": ("BERTScore: greedy matching of token vectors",
                           "BERTScoreHeatmap("),
    "07_llm_as_judge.ipynb": ("A judge grades an answer", "JudgePlayground("),
    "14_online_evaluation.ipynb": ("A simulated user scans a ranking", "ClickUserExplorer("),
    "15_rag_diagnostics.ipynb": ("Retriever or generator: RAGChecker's diagnostics",
                                 "ClaimDiagnosticsExplorer("),
}


# ---- the dashboards themselves (no server) ------------------------------------

def test_one_dashboard_per_metric_family():
    assert [d.filename for d in demo.DASHBOARDS] == sorted(EXPECTED)
    for d in demo.DASHBOARDS:
        assert d.title == EXPECTED[d.filename][0]
        assert d.filename == f"{d.notebook}.ipynb"  # named after its lesson notebook


def test_dashboards_in_demo_folder_are_up_to_date():
    stale = demo.stale()
    assert not stale, f"{stale} differ from tools/demo.py: run python tools/demo.py --build"


def test_stale_detects_an_edited_and_a_missing_dashboard(tmp_path):
    demo.build(tmp_path)
    assert demo.stale(tmp_path) == []
    first, second = demo.DASHBOARDS[0].filename, demo.DASHBOARDS[1].filename
    path = tmp_path / first
    path.write_text(path.read_text().replace("import ragmetrics_edu", "import numpy"))
    (tmp_path / second).unlink()
    assert demo.stale(tmp_path) == [first, second]


def test_dashboard_is_a_title_and_one_widget_cell_without_outputs():
    for d in demo.DASHBOARDS:
        nb = nbformat.reads(demo.dashboard_text(d), as_version=4)
        nbformat.validate(nb)
        assert [c.cell_type for c in nb.cells] == ["markdown", "code"]
        assert nb.cells[0].source.startswith(f"# {d.title}\n")
        assert nb.cells[1].outputs == []
        assert "rm.course.widgets." in nb.cells[1].source
        assert nb.metadata.kernelspec.name == "python3"


def test_projector_template_extends_voila_lab_with_large_fonts():
    template = demo.TEMPLATE_ROOT / "voila" / "templates" / demo.TEMPLATE
    assert json.loads((template / "conf.json").read_text()) == {"base_template": "lab"}
    text = (template / "index.html.j2").read_text()
    assert "extends 'lab/index.html.j2'" in text
    sizes = [int(px) for px in re.findall(r"--jp-widgets-font-size:\s*(\d+)px", text)]
    assert sizes and min(sizes) >= 18  # JupyterLab's default is 13px


def test_voila_command_and_isolated_environment(tmp_path):
    cmd = demo.voila_command(12345, theme="dark")
    assert cmd[1:4] == ["-m", "voila", str(demo.DEMO)]
    for flag in ("--port=12345", "--Voila.ip=127.0.0.1", "--template=projector",
                 "--theme=dark", "--no-browser"):
        assert flag in cmd
    with pytest.raises(ValueError, match="theme must be one of"):
        demo.voila_command(12345, theme="blue")
    env = demo.isolated_env(tmp_path, base={"JUPYTER_PATH": "/elsewhere", "PATH": "/bin"})
    for var in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR"):
        assert Path(env[var]).is_dir() and Path(env[var]).parent == tmp_path
    assert env["JUPYTER_PATH"].split(":") == [str(demo.TEMPLATE_ROOT), "/elsewhere"]


def test_free_port_is_bindable():
    import socket

    port = demo.free_port()
    with socket.socket() as s:
        s.bind(("127.0.0.1", port))


# ---- Voilà serving the dashboards ------------------------------------------------

@pytest.fixture(scope="module")
def voila_server(tmp_path_factory):
    pytest.importorskip("voila", reason="the demo needs Voila (the dev extra installs it)")
    home = tmp_path_factory.mktemp("voila-home")
    log_path = home / "voila.log"
    try:
        with demo.serving(home, log_path, START_TIMEOUT) as url:
            yield url
    except RuntimeError as exc:
        pytest.fail(str(exc))
    finally:
        if log_path.exists():
            shutil.copy(log_path, _artifacts() / "voila.log")


def _artifacts():
    out = ROOT / "test-artifacts"
    out.mkdir(exist_ok=True)
    return out


def _get(url, timeout):
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.status, response.read().decode("utf-8")


def _cell_outputs(page):
    """The cell outputs Voilà embeds in the page (one JSON script per output)."""
    blocks = re.findall(
        r'<script type="application/vnd\.voila\.cell-output\+json">\s*(.*?)\s*</script>',
        page, flags=re.S)
    return [json.loads(b) for b in blocks]


def test_index_page_answers(voila_server):
    status, page = _get(voila_server + "/", 30)
    assert status == 200
    assert "voila" in page.lower()


@pytest.mark.parametrize("filename", sorted(EXPECTED))
def test_dashboard_page_renders_its_widget(voila_server, filename):
    title, explorer = EXPECTED[filename]
    started = time.monotonic()
    status, page = _get(f"{voila_server}/voila/render/{filename}", PAGE_TIMEOUT)
    assert time.monotonic() - started < PAGE_TIMEOUT
    (_artifacts() / f"demo_{Path(filename).stem}.html").write_text(page)
    assert status == 200
    # the title, rendered from Markdown; the projector template's large print
    assert re.search(r"<h1[^>]*>" + re.escape(html.escape(title, quote=False)), page), title
    assert "Large print for a projector" in page
    # no code on the page, no error: one output, the widget's view
    assert "import ragmetrics_edu" not in page
    outputs = _cell_outputs(page)
    assert [o["output_type"] for o in outputs] == ["execute_result"], outputs
    data = outputs[0]["data"]
    view = data["application/vnd.jupyter.widget-view+json"]
    assert re.fullmatch(r"[0-9a-f]{32}", view["model_id"])
    assert view["version_major"] == 2
    assert data["text/plain"].startswith(explorer)
