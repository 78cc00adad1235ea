"""Notebook 11's claims that nbval alone does not check.

nbval reruns the solved and student notebooks and compares their outputs; these
tests check what the prose says about those outputs against an independent
computation: the one-line switch to a language-model server really leaves every
other cell of the main path runnable; cqa-004's range is copied from the second
retrieved abstract and refused by the stand-in only because it is a fragment;
BM25's fall in token F1 from k = 1 to k = 5 has the paired interval and the
randomization p-value the notebook prints (against scipy's bootstrap and an exact
enumeration of the sign flips); exercise 5's folded notes follow the answer cell.
"""

import importlib.resources
import itertools
import json
import re
import zlib
from pathlib import Path

import nbformat
import numpy as np
import pytest

import ragmetrics_edu as rm

ROOT = Path(__file__).resolve().parents[2]
SOLVED = ROOT / "solutions" / "11_rag_end_to_end.ipynb"
STUDENT = ROOT / "notebooks" / "11_rag_end_to_end.ipynb"


def _cells(path=SOLVED):
    return nbformat.read(path, as_version=4).cells


def _output(cell):
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.output_type == "stream")


def _markdown(path=SOLVED):
    return "\n".join(c.source for c in _cells(path) if c.cell_type == "markdown")


@pytest.fixture(scope="module")
def pipeline():
    """The three runs of the notebook, its extractive answerer and the QA set, built here."""
    from ragmetrics_edu.lab import retrievers as rr
    from ragmetrics_edu.lab.datasets import qa_queries

    cran, qa = rm.load_cranfield(), rm.load_cranfield_qa()
    queries = qa_queries(qa)
    runs = {"bm25": rr.bm25_run(cran.docs, queries, depth=100),
            "dense": rr.dense_run(cran.docs, queries, depth=100)}
    runs["fusion"] = rr.rrf([runs["bm25"], runs["dense"]], rank_constant=60, depth=100)
    answerer = rm.ExtractiveAnswerer().prepare(list(queries.values()))
    return {"cran": cran, "qa": qa, "runs": runs, "answerer": answerer}


def _top(run, qid, k):
    return sorted(run[qid], key=run[qid].get, reverse=True)[:k]


# --- the one-line switch -------------------------------------------------------------------

def test_the_switch_replaces_one_line_and_every_other_main_path_cell_runs(monkeypatch, tmp_path):
    """Replace the line the notebook names by its snippet, with the server faked, and run every
    code cell of the main path: all of them run, on the model's answers."""
    from ragmetrics_edu import judge as rj
    from ragmetrics_edu.lab.answer import Answer, LocalGenerativeAnswerer, split_abstract

    cells = _cells()
    at = next(i for i, c in enumerate(cells)
              if c.cell_type == "markdown" and "One line switches to a language model" in c.source)
    text = cells[at].source
    line = re.search(r"replace the\s+first line of the cell above,\s+`([^`]+)`", text).group(1)
    snippet = re.search(r"```python\n(.*?)```", text, re.DOTALL).group(1)
    before = cells[at - 1]
    assert before.cell_type == "code" and before.source.splitlines()[0] == line
    switched = before.source.replace(line, snippet.rstrip("\n"), 1)

    prompts = []

    def server(self, prompt):  # a model that answers with the first sentence of document 1
        prompts.append(prompt)
        return split_abstract(rj.extract_sections(prompt)["DOCUMENT_1"])[1]

    monkeypatch.setattr(rj.OpenAICompatibleJudge, "complete", server)
    shipped = {}

    def local(self, question, doc_ids):  # the small local model's answer, as shipped (15 s live)
        return Answer(shipped[question], (), (), None, (), self.name)

    monkeypatch.setattr(LocalGenerativeAnswerer, "__call__", local)
    monkeypatch.chdir(tmp_path)  # CachedJudge writes answers.jsonl here

    rows = json.loads(importlib.resources.files("ragmetrics_edu").joinpath(
        "data", "cranfield_generated_answers", "cranfield_generated_answers.json").read_text())
    shipped.update({r["question"]: r["answer"] for r in rows["answers"]})

    import matplotlib.pyplot as plt
    monkeypatch.setattr(plt, "show", lambda *a, **k: None)

    def words(self, texts):  # the stand-in judge on counts of hashed words: 1 s, not 23
        rows = np.zeros((len(texts), 256), dtype=np.float32)
        for r, t in enumerate(texts):
            for w in re.findall(r"[a-z0-9]+", t.lower()):
                rows[r, zlib.crc32(w.encode()) % 255] += 1.0
            rows[r, 255] = 0.1
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)

    monkeypatch.setattr(rj.EmbeddingJudge, "_encode", words)
    namespace = {}
    ran = 0
    for i, cell in enumerate(cells):
        if cell.cell_type == "markdown" and cell.source.startswith("## Exercises"):
            break
        if cell.cell_type != "code" or "colab-setup" in cell.metadata.get("tags", []):
            continue
        source = switched if i == at - 1 else cell.source
        exec(compile(source, f"<cell {i}>", "exec"), namespace)
        ran += 1
    assert ran >= 15, ran
    answerer, answers = namespace["answerer"], namespace["answers"]
    assert isinstance(answerer, rm.GenerativeAnswerer)
    qa = namespace["qa"]
    # every answer of the notebook is the model's, and each distinct prompt was sent once
    for name, run in namespace["runs"].items():
        for it in qa:
            docs = namespace["top"](run, it.id, 3)
            assert answers[name][it.id].text == split_abstract(namespace["cran"].docs[docs[0]]["text"])[1]
    assert len(prompts) == len(set(prompts)) <= 1020   # "up to 1,020 requests"
    assert len((tmp_path / "answers.jsonl").read_text().splitlines()) >= len(prompts)
    assert "1,020" in cells[at].source


# --- cqa-004: faithful to Document 2, refused as a fragment ---------------------------------

def test_cqa004_copies_document_2s_range_and_only_its_fragment_is_refused(pipeline):
    from ragmetrics_edu import judge as rj
    from ragmetrics_edu.judge import rag

    cran, runs = pipeline["cran"], pipeline["runs"]
    ranked = _top(runs["fusion"], "cqa-004", 3)
    assert ranked[1] == "462"           # the prompt's "Document 2"
    flat = {d: " ".join(cran.docs[d]["text"].split()) for d in ranked}
    # the generated range is word for word in 462 only; the reference's in 463 (Document 1)
    assert [d for d in ranked if "from room temperature to -40 f" in flat[d]] == ["462"]
    assert [d for d in ranked if "from +100 to -60 f" in flat[d]] == [ranked[0]] == ["463"]
    item = next(it for it in pipeline["qa"] if it.id == "cqa-004")
    assert "+100 to -60 f" in item.answers
    judge = rj.EmbeddingJudge()
    docs = [cran.docs[d]["text"] for d in ranked]
    fragment = "Document 1: over a temperature range from room temperature to -40 f"
    sentence = ("The optical and physical properties of paraplex p-43 were investigated from room "
                "temperature to -40 f.")
    assert rag.judge_support(judge, [fragment, "from room temperature to -40 f", sentence], docs) \
        == [False, False, True]
    # the notebook says so, in its probes' output
    probes = next(c for c in _cells() if c.cell_type == "code" and "probes = [" in c.source)
    out = _output(probes)
    assert "'from room temperature to -40 f' is in ['Document 2']" in out
    assert re.search(r"cqa-004  generated; Document 2 says it\s+unsupported", out), out
    assert re.search(r"cqa-004  Document 2's range in a sentence: true\s+supported", out), out
    # and the cosine the prose quotes for cqa-002 is the one printed
    prose = re.search(r"\(cosine (0\.\d\d) for a threshold of 0\.68\)",
                      " ".join(_markdown().split())).group(1)
    assert re.search(rf"cqa-002  generated; no abstract says it\s+unsupported\s+cosine {prose}", out)


# --- the paired interval of the fall from k = 1 to k = 5 ------------------------------------

def _exact_sign_flip_p(d):
    """Two-sided p of the paired randomization test by enumerating every sign pattern of the
    non-zero differences (a zero flips to itself)."""
    nonzero = np.asarray([x for x in d if x != 0.0])
    observed = abs(nonzero.sum())
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=len(nonzero))))
    return float(np.mean(np.abs(signs @ nonzero) >= observed - 1e-12))


def test_the_paired_fall_is_scipys_interval_and_the_exact_sign_flip_p(pipeline):
    from scipy import stats

    qa, answerer = pipeline["qa"], pipeline["answerer"]
    cell = next(c for c in _cells() if c.cell_type == "code" and "k = 1 minus at k = 5" in c.source)
    printed = {m.group(1): m for m in re.finditer(
        r"^(\w+)\s+([+-]\d\.\d{4}) \[([+-]\d\.\d{4}), ([+-]\d\.\d{4})\]   worse at k = 5 on (\d+) "
        r"questions, better on (\d+), the same on (\d+)$", _output(cell), re.MULTILINE)}
    holm = dict(re.findall(r"(\w+) p = (\d\.\d{4})", _output(cell).splitlines()[-1]))
    assert sorted(printed) == sorted(holm) == ["bm25", "dense", "fusion"]
    exact = {}
    for name, run in pipeline["runs"].items():
        f1 = {k: np.array([rm.token_f1(answerer(it.question, _top(run, it.id, k)).text, list(it.answers))
                           for it in qa]) for k in (1, 5)}
        d = f1[1] - f1[5]
        m = printed[name]
        assert float(m.group(2)) == pytest.approx(d.mean(), abs=5e-5)
        assert [int(m.group(i)) for i in (5, 6, 7)] == [(d > 0).sum(), (d < 0).sum(), (d == 0).sum()]
        ref = stats.bootstrap((d,), np.mean, n_resamples=10_000, method="percentile",
                              random_state=np.random.default_rng(1)).confidence_interval
        assert float(m.group(3)) == pytest.approx(ref.low, abs=0.004)
        assert float(m.group(4)) == pytest.approx(ref.high, abs=0.004)
        exact[name] = _exact_sign_flip_p(d)
    # Holm over three: the smallest p times 3, the others capped at 1 here
    assert min(exact, key=exact.get) == "bm25" and exact["bm25"] < 0.01
    assert float(holm["bm25"]) == pytest.approx(3 * exact["bm25"], abs=0.003)
    assert exact["dense"] > 0.5 and exact["fusion"] > 0.5
    assert float(holm["dense"]) == float(holm["fusion"]) == 1.0
    # the prose: a fall for BM25 clear of 0, none for the others
    bm25 = printed["bm25"]
    assert float(bm25.group(3)) > 0 > float(printed["dense"].group(3))
    assert float(printed["fusion"].group(3)) < 0
    prose = " ".join(_markdown().split())
    assert f"{float(bm25.group(2)):.4f} with a paired interval of [{float(bm25.group(3)):.4f}, " \
           f"{float(bm25.group(4)):.4f}]" in prose
    assert f"made {bm25.group(5)} answers worse and {bm25.group(6)} better ({bm25.group(7)} the same)" \
        in prose
    assert "cannot tell a fall from no change" not in prose


# --- exercise 5: feedback once the student has written ---------------------------------------

def test_exercise_5_is_followed_by_folded_notes_and_points_to_the_model_answer():
    cells = _cells(STUDENT)
    at = next(i for i, c in enumerate(cells)
              if c.cell_type == "markdown" and c.source.strip() == "YOUR ANSWER HERE")
    assert "### Exercise 5" in cells[at - 1].source
    notes = cells[at + 1].source
    assert notes.startswith("<details><summary>Read this once you have written your answer</summary>")
    assert "solutions/11_rag_end_to_end.ipynb" in notes
    assert "Exercise 5 is a discussion, with\nno check" in _markdown(STUDENT)
