"""Fixtures of the real-browser tests: JupyterLab and Voilà on localhost, headless Chromium.

These tests are collected only when ``RAGMETRICS_BROWSER=1`` (``make test-browser``
sets it): they need Debian's Chromium at /usr/bin/chromium and Playwright for Python
(``tools/install_browser.sh`` installs both; Playwright never downloads a browser).

* ``lab``: JupyterLab with the project's Python as its kernel, on a free port with a
  token, no browser opening, its config, data, runtime and IPython directories in a
  temporary folder, serving a *copy* of ``notebooks/`` (running the cells must not
  write outputs into the repository) with autosave off.  Shut down at the end.
* ``voila``: the demo dashboards (tools/demo.py), likewise isolated.
* ``browser``: Chromium, headless, with a new empty profile and the flags that keep it
  quiet on a closed network.  ``page`` is a fresh tab per test.

Screenshots go to ``test-artifacts/browser/``.
"""

import importlib
import importlib.util
import json
import os
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BROWSER = os.environ.get("RAGMETRICS_BROWSER") == "1"


def pytest_collection_modifyitems(config, items):
    """Outside `make test-browser`, list these tests as skipped, with the reason."""
    if BROWSER:
        return
    skip = pytest.mark.skip(reason="real-browser test: run `make test-browser` "
                                   "(it sets RAGMETRICS_BROWSER=1)")
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.fspath).parents:
            item.add_marker(skip)

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
CHROMIUM = os.environ.get("RAGMETRICS_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",  # we may run as root
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",  # without these, a closed network makes it slow
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]

# Bounds of the waits of the fixtures (seconds); the tests bound theirs.
SERVER_START = 120
PAGE_LOAD = 120


def _load_demo_tool():
    spec = importlib.util.spec_from_file_location("ragmetrics_demo", ROOT / "tools" / "demo.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


demo = _load_demo_tool()


def _require(module, why):
    """Import ``module``; under `make test-browser` a missing one fails, never skips."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        pytest.fail(f"{module} is missing ({exc}): {why}")


@pytest.fixture(scope="session")
def artifacts():
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


def _lab_settings(config_dir):
    """User settings of the test's JupyterLab: no autosave, no news, no update checks."""
    settings = Path(config_dir) / "lab" / "user-settings" / "@jupyterlab"
    files = {
        "docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
        "apputils-extension/notification.jupyterlab-settings": {
            "fetchNews": "false", "checkForUpdates": False},
        "notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    }
    for rel, value in files.items():
        path = settings / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value))


@pytest.fixture(scope="session")
def lab(tmp_path_factory, artifacts):
    """A running JupyterLab: ``{"url", "token", "root"}``; shut down at the end."""
    _require("jupyterlab", "pip install -e '.[dev]'")
    home = tmp_path_factory.mktemp("jupyter-home")
    root = tmp_path_factory.mktemp("lab-root")
    shutil.copytree(ROOT / "notebooks", root / "notebooks",
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    env = demo.isolated_env(home)
    _lab_settings(env["JUPYTER_CONFIG_DIR"])
    # the kernel runs ragmetrics_edu from the repository even if it is not installed
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in env.get(
        "PYTHONPATH", "").split(os.pathsep) if p])
    port = demo.free_port()
    token = secrets.token_hex(16)
    cmd = [
        sys.executable, "-m", "jupyterlab",
        "--no-browser",
        f"--port={port}",
        "--ServerApp.port_retries=0",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.root_dir={root}",
        f"--IdentityProvider.token={token}",
        "--ServerApp.open_browser=False",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.extension_manager=readonly",
        "--ServerApp.terminals_enabled=False",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")  # CI containers run as root
    log_path = artifacts / "jupyterlab.log"
    with open(log_path, "w") as log:
        proc = demo.start(cmd, env, cwd=root, log=log)
    url = f"http://127.0.0.1:{port}"
    try:
        demo.wait_for_http(f"{url}/api/status?token={token}", SERVER_START, proc)
    except RuntimeError as exc:
        demo.stop(proc)
        pytest.fail(f"JupyterLab did not start: {exc}\n{log_path.read_text()[-3000:]}")
    yield {"url": url, "token": token, "root": root, "python": sys.executable}
    demo.stop(proc)


@pytest.fixture(scope="session")
def voila(tmp_path_factory, artifacts):
    """The demo dashboards served by Voilà: the base URL; shut down at the end."""
    _require("voila", "the demo needs Voila (the dev extra installs it)")
    home = tmp_path_factory.mktemp("voila-home")
    try:
        with demo.serving(home, artifacts / "voila.log", SERVER_START) as url:
            yield url
    except RuntimeError as exc:
        pytest.fail(str(exc))


@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    """Headless Chromium (Debian's) driven by Playwright, with a new empty profile."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run tools/install_browser.sh "
                    "(or set RAGMETRICS_CHROMIUM)")
    sync_api = _require("playwright.sync_api",
                        "pip install playwright (tools/install_browser.sh)")
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_api.sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(profile),  # Playwright passes it as --user-data-dir
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport={"width": 1400, "height": 1000},
            timeout=PAGE_LOAD * 1000,
        )
        context.set_default_timeout(PAGE_LOAD * 1000)
        try:
            yield context
        finally:
            context.close()


@pytest.fixture
def page(browser, request, artifacts):
    """A new tab; on failure, a screenshot ``<test name>-failed.png`` is kept."""
    tab = browser.new_page()
    yield tab
    failed = getattr(request.node, "rep_call", None)
    if failed is not None and failed.failed:
        try:
            tab.screenshot(path=str(artifacts / f"{request.node.name}-failed.png"),
                           full_page=True, timeout=15_000)
        except Exception:  # noqa: BLE001 - best effort on a failing page
            pass
    tab.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)
