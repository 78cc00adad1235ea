"""Sphinx configuration of the course site (``make site``; see tools/site.py).

The pages are not here: tools/site.py stages them into ``build/site/src`` with
the repository's own layout (``notebooks/*.ipynb``, ``docs/instructor*.md``),
plus a landing page and the API reference it writes from the package's module
table, then runs ``sphinx-build -c docs/site build/site/src build/site/html``.
Relative links between notebooks and guides therefore resolve as they do on
GitHub.

Nothing is fetched when a page is viewed: the widget renderer (embed.js of
``@jupyter-widgets/html-manager``) and MathJax come from npm at build time
and are served from ``_static``.
"""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import launch  # noqa: E402  (tools/launch.py: the repository's address, written once)

OWNER, NAME = launch.repository()
REPOSITORY_URL = f"https://github.com/{OWNER}/{NAME}"
ASSETS = Path(os.environ.get("RAGMETRICS_SITE_ASSETS", ROOT / "build" / "site" / "static"))

project = "ragmetrics_edu"
author = "the ragmetrics_edu authors"
copyright = "the ragmetrics_edu authors, MIT licence"
html_title = "Evaluating RAG: the ragmetrics_edu course"

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "numpydoc",
]

# ---- notebooks: shown as saved, never executed here -----------------------
nb_execution_mode = "off"
# The widget views are rendered from the state saved in each notebook, by the
# non-AMD build of the HTML manager (no require.js, no CDN).
nb_ipywidgets_js = {"widgets/embed.js": {}}
nb_merge_streams = True

myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist", "html_image"]
myst_heading_anchors = 3

# Jupyter-style heading anchors (course_site.py says why)
myst_heading_slug_func = "course_site.jupyter_anchor"
# notebooks link to each other as `03_graded.ipynb` and to `#Contents`; the
# guides to `../notebooks/...`: those resolve as documents; what points outside
# the site (README.md, source files) becomes a link to the repository.
myst_url_schemes = ["http", "https", "mailto"]

source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["**/.ipynb_checkpoints"]
suppress_warnings = ["mystnb.unknown_mime_type"]

# ---- math: MathJax 3 from _static -------------------------------------------
mathjax_path = "mathjax/tex-chtml.js"

# ---- API reference ------------------------------------------------------------
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True}
numpydoc_show_class_members = False
numpydoc_validation_checks = set()
numpydoc_xref_param_type = False

# ---- theme ----------------------------------------------------------------------
html_theme = "sphinx_book_theme"
html_static_path = ["_static", str(ASSETS)]
html_css_files = ["course.css"]
# course.js runs after MathJax's configuration (priority 500) and before MathJax
# (deferred) and the widget renderer (it says why)
html_js_files = [("course.js", {"priority": 501})]
templates_path = ["_templates"]
# a fresh browser has no stored colour mode: say which one, or the theme logs an error
html_context = {"default_mode": "light"}
html_last_updated_fmt = None
html_copy_source = False
html_show_sourcelink = False
html_theme_options = {
    "repository_url": REPOSITORY_URL,
    "repository_branch": launch.BRANCH,
    "path_to_docs": "",  # pages keep their repository paths (notebooks/03_graded)
    "use_repository_button": True,
    "use_issues_button": False,
    "use_download_button": False,
    "launch_buttons": {
        "binderhub_url": "https://mybinder.org",
        "colab_url": "https://colab.research.google.com",
        "notebook_interface": "jupyterlab",
    },
    "show_navbar_depth": 1,
    "home_page_in_toc": True,
    "navigation_with_keys": False,
}
