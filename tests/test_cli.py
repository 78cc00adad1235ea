"""The command line, checked against pytrec_eval (trec_eval's C code) and scipy."""

import csv
import io
import json
import shutil
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval
from scipy import stats

import ragmetrics_edu as rm
from ragmetrics_edu.__main__ import main
from ragmetrics_edu.lab.datasets import load_cranfield
from ragmetrics_edu.lab.retrievers import bm25_run

# our name -> pytrec_eval's measure
TREC_NAMES = {
    "P@10": "P_10", "P@5": "P_5", "recall@100": "recall_100", "ndcg@10": "ndcg_cut_10",
    "ndcg": "ndcg", "map": "map", "mrr": "recip_rank", "map@100": "map_cut_100",
    "hit_rate@10": "success_10",
}


def _parse_qrels(path):
    """The qrels file read independently of ragmetrics_edu.retrieval.trec."""
    qrels = {}
    for line in open(path):
        q, _, d, g = line.split()
        qrels.setdefault(q, {})[d] = int(g)
    return qrels


def _parse_run(path):
    run = {}
    for line in open(path):
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
    return run


def _trec(qrels_path, run_path, names):
    """pytrec_eval's per-query values, keyed by its own names ("P_10", "ndcg_cut_10")."""
    # pytrec_eval takes a cut-off as "P.10" and reports it as "P_10"
    measures = {_dotted(TREC_NAMES[n]) for n in names}
    evaluator = pytrec_eval.RelevanceEvaluator(_parse_qrels(qrels_path), measures)
    return evaluator.evaluate(_parse_run(run_path))


def _dotted(name):
    base, _, cut = name.rpartition("_")
    return f"{base}.{cut}" if cut.isdigit() else name


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Cranfield qrels, a BM25 run written with rm.write_run, and a random run."""
    folder = tmp_path_factory.mktemp("cli")
    cran = load_cranfield()
    qrels = folder / "qrels.txt"
    with open(qrels, "w") as f:
        for q, judged in cran.qrels.items():
            for d, g in judged.items():
                f.write(f"{q} 0 {d} {g}\n")
    bm25 = folder / "bm25.run"
    rm.write_run(bm25_run(cran.docs, cran.queries, depth=100), bm25, tag="bm25")
    weak = folder / "bm25_weak.run"
    rm.write_run(bm25_run(cran.docs, cran.queries, k1=0.3, b=0.1, depth=100), weak, tag="weak")
    # a random run: 50 random documents per query, scores rounded to create ties,
    # queries 7 and 8 left out, and an unjudged query 999
    rng = np.random.default_rng(0)
    docids = np.array(list(cran.docs))
    random_run = {}
    for q in cran.queries:
        if q in ("7", "8"):
            continue
        picked = rng.choice(docids, size=50, replace=False)
        # make sure some relevant documents are retrieved
        rel = list(cran.qrels[q])[:3]
        picked = list(dict.fromkeys(rel[: int(rng.integers(0, 4))] + list(picked)))
        random_run[q] = {d: float(np.round(rng.random(), 2)) for d in picked}
    random_run["999"] = {"1": 1.0}
    rnd = folder / "random.run"
    rm.write_run(random_run, rnd, tag="random")
    return {"dir": folder, "qrels": qrels, "bm25": bm25, "weak": weak, "random": rnd,
            "cran": cran}


def _json_of(capsys, argv):
    assert main(argv) == 0
    out = capsys.readouterr().out
    return json.loads(out)


# ---------------------------------------------------------------- evaluate vs trec_eval

@pytest.mark.parametrize("which", ["bm25", "random"])
def test_evaluate_json_equals_pytrec_eval(files, capsys, which):
    metrics = ["P@10", "P@5", "recall@100", "ndcg@10", "ndcg", "map", "mrr", "map@100",
               "hit_rate@10"]
    out = _json_of(capsys, ["evaluate", str(files["qrels"]), str(files[which]),
                            "--metrics", *metrics, "--format", "json"])
    ref = _trec(files["qrels"], files[which], metrics)
    judged_in_run = sorted(set(ref))
    assert sorted(out["per_query"]) == judged_in_run
    for q in judged_in_run:
        for m in metrics:
            assert out["per_query"][q][m] == pytest.approx(ref[q][TREC_NAMES[m]], abs=1e-12), (q, m)
    for m in metrics:
        mean = sum(ref[q][TREC_NAMES[m]] for q in judged_in_run) / len(judged_in_run)
        assert out["mean"][m] == pytest.approx(mean, abs=1e-12)
    if which == "random":
        assert len(judged_in_run) == 223  # 225 Cranfield queries less 7 and 8, left out of the run
        assert out["missing_queries"] == ["7", "8"]
        assert out["unjudged_queries"] == ["999"]


def test_evaluate_missing_zero_counts_missing_queries(files, capsys):
    out = _json_of(capsys, ["evaluate", str(files["qrels"]), str(files["random"]),
                            "--metrics", "map", "--format", "json", "--missing", "zero"])
    ref = _trec(files["qrels"], files["random"], ["map"])
    # 223 scored queries plus 7 and 8 at 0, over 225 (trec_eval -c)
    assert out["per_query"]["7"] == {"map": 0.0}
    assert out["mean"]["map"] == pytest.approx(sum(v["map"] for v in ref.values()) / 225,
                                               abs=1e-12)


def test_evaluate_conventions_trec_eval_c_counts_missing_queries(files, capsys):
    out = _json_of(capsys, ["evaluate", str(files["qrels"]), str(files["random"]),
                            "--metrics", "map", "--format", "json",
                            "--conventions", "trec_eval_c"])
    ref = _trec(files["qrels"], files["random"], ["map"])
    assert out["per_query"]["8"] == {"map": 0.0}
    assert out["mean"]["map"] == pytest.approx(sum(v["map"] for v in ref.values()) / 225,
                                               abs=1e-12)


def test_evaluate_conventions_sklearn_equals_ndcg_score(files, capsys):
    skm = pytest.importorskip("sklearn.metrics")
    out = _json_of(capsys, ["evaluate", str(files["qrels"]), str(files["random"]),
                            "--metrics", "ndcg@10", "--format", "json",
                            "--conventions", "sklearn"])
    qrels, run = rm.read_qrels(files["qrels"]), rm.read_run(files["random"])
    checked = 0
    for q, ranking in run.items():
        if q not in qrels:
            continue
        y_true = [[qrels[q].get(d, 0) for d in ranking]]
        y_score = [list(ranking.values())]
        assert out["per_query"][q]["ndcg@10"] == pytest.approx(
            skm.ndcg_score(y_true, y_score, k=10), abs=1e-12), q
        checked += 1
    assert checked == 223
    # the rounded scores tie often: trec_eval's order gives other numbers
    trec = _trec(files["qrels"], files["random"], ["ndcg@10"])
    assert any(abs(out["per_query"][q]["ndcg@10"] - trec[q]["ndcg_cut_10"]) > 1e-6 for q in trec)


def test_ranx_conventions_warn_about_ties_ranx_reorders(tmp_path, capsys):
    """ranx keeps the run's order of ties only in rankings of at most 15 documents."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d0 1\n2 0 d0 1\n")
    run = tmp_path / "tied.run"
    lines = [f"1 Q0 d{i} {i + 1} {1.0 if i < 2 else 1.0 / (i + 1)} t" for i in range(16)]
    lines += [f"2 Q0 d{i} {i + 1} 0.5 t" for i in range(15)]  # 15 tied: ranx keeps order
    run.write_text("\n".join(lines) + "\n")
    assert main(["evaluate", str(qrels), str(run), "--metrics", "mrr",
                 "--conventions", "ranx", "--format", "json"]) == 0
    captured = capsys.readouterr()
    json.loads(captured.out)  # the note goes to stderr, the JSON stays clean
    assert "tied scores in rankings of more than 15 documents (queries 1)" in captured.err
    assert main(["evaluate", str(qrels), str(run), "--metrics", "mrr"]) == 0
    assert "note" not in capsys.readouterr().err  # trec_eval's tie order is a rule


def test_conventions_choices_are_the_presets():
    from ragmetrics_edu.__main__ import PRESET_NAMES
    from ragmetrics_edu.retrieval.conventions import PRESETS

    assert PRESET_NAMES == tuple(PRESETS)


def test_default_metrics_and_table(files, capsys):
    assert main(["evaluate", str(files["qrels"]), str(files["bm25"])]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["qid", "P@10", "ndcg@10", "map", "mrr"]
    assert out[2].split()[0] == "mean" and len(out) == 4  # no per-query rows
    assert "ragmetrics_edu" in out[3] and "missing:ignore" in out[3]
    ref = _trec(files["qrels"], files["bm25"], ["P@10"])
    assert out[2].split()[1] == f"{sum(v['P_10'] for v in ref.values()) / 225:.4f}"


def test_per_query_table_and_csv(files, capsys):
    assert main(["evaluate", str(files["qrels"]), str(files["random"]), "--metrics",
                 "P@10", "map", "--per-query"]) == 0
    table = capsys.readouterr().out
    rows = [line.split()[0] for line in table.splitlines()[2:]]
    assert "1" in rows and "225" in rows and "7" not in rows and "mean" in rows
    assert "judged but not in the run (ignore): 7 8" in table
    assert "in the run without judgements (not scored): 999" in table

    assert main(["evaluate", str(files["qrels"]), str(files["random"]), "--metrics",
                 "P@10", "map", "--per-query", "--format", "csv"]) == 0
    table = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert table[0] == ["qid", "P@10", "map"]
    ref = _trec(files["qrels"], files["random"], ["P@10", "map"])
    body = {r[0]: r for r in table[1:]}
    assert len(body) == 224  # 223 queries and the mean
    for q, values in ref.items():
        assert float(body[q][1]) == pytest.approx(values["P_10"], abs=1e-12)
        assert float(body[q][2]) == pytest.approx(values["map"], abs=1e-12)
    mean_map = sum(v["map"] for v in ref.values()) / len(ref)
    assert float(body["mean"][2]) == pytest.approx(mean_map, abs=1e-12)


# ---------------------------------------------------------------- errors

def test_unknown_metric_exits_2_listing_known(files, capsys):
    assert main(["evaluate", str(files["qrels"]), str(files["bm25"]), "--metrics", "bleu"]) == 2
    err = capsys.readouterr().err
    assert "unknown metric 'bleu'" in err
    for known in ("P@k", "recall@k", "ndcg", "map", "mrr"):
        assert known in err
    assert "Traceback" not in err


@pytest.mark.parametrize("which, lineno, bad", [
    ("qrels", 3, "1 0 184\n"),           # three fields
    ("qrels", 2, "1 0 184 two\n"),       # grade not an integer
    ("run", 4, "1 Q0 184 1 high bm25\n"),  # score not a number
])
def test_malformed_file_names_file_and_line(files, capsys, tmp_path, which, lineno, bad):
    src = files["qrels"] if which == "qrels" else files["bm25"]
    lines = open(src).readlines()
    lines[lineno - 1] = bad
    broken = tmp_path / f"broken_{which}.txt"
    broken.write_text("".join(lines))
    argv = ["evaluate", str(broken), str(files["bm25"])] if which == "qrels" else \
        ["evaluate", str(files["qrels"]), str(broken)]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"{broken}, line {lineno}" in captured.err
    assert "Traceback" not in captured.err


def test_binary_file_is_named(files, capsys, tmp_path):
    binary = tmp_path / "run.bin"
    binary.write_bytes(b"1 Q0 184 1 2.5 x\n\xff\xfe\x00\n")
    assert main(["evaluate", str(files["qrels"]), str(binary)]) == 2
    err = capsys.readouterr().err
    assert f"{binary}, line 2: not UTF-8 text" in err and "Traceback" not in err
    # far past the reader's first chunk: still the right line
    late = tmp_path / "late.run"
    late.write_bytes(b"".join(b"1 Q0 d%d 1 2.5 x\n" % i for i in range(5000))
                     + b"1 Q0 \xe9 1 2.5 x\n")
    assert main(["evaluate", str(files["qrels"]), str(late)]) == 2
    assert f"{late}, line 5001: not UTF-8 text" in capsys.readouterr().err


def test_missing_file_and_usage_errors(files, capsys, tmp_path):
    assert main(["evaluate", str(files["qrels"]), str(tmp_path / "nope.run")]) == 2
    assert "nope.run: No such file or directory" in capsys.readouterr().err
    assert main([]) == 2
    assert "usage: ragmetrics-edu" in capsys.readouterr().err
    assert main(["evaluate", str(files["qrels"]), str(files["bm25"]), "--format", "xml"]) == 2
    assert "invalid choice: 'xml'" in capsys.readouterr().err
    assert main(["--help"]) == 0
    assert "evaluate" in capsys.readouterr().out


# ---------------------------------------------------------------- compare

def test_compare_t_test_equals_scipy(files, capsys):
    out = _json_of(capsys, ["compare", str(files["qrels"]), str(files["bm25"]),
                            str(files["weak"]), "--metric", "ndcg@10", "--format", "json"])
    a = _trec(files["qrels"], files["bm25"], ["ndcg@10"])
    b = _trec(files["qrels"], files["weak"], ["ndcg@10"])
    qids = sorted(set(a) | set(b) | set(files["cran"].qrels))
    # --missing zero (the default of compare): a query a run lacks scores 0
    va = np.array([a.get(q, {}).get("ndcg_cut_10", 0.0) for q in qids])
    vb = np.array([b.get(q, {}).get("ndcg_cut_10", 0.0) for q in qids])
    [c] = out["comparisons"]
    assert out["n_queries"] == 225
    assert out["baseline"]["mean"] == pytest.approx(va.mean(), abs=1e-12)
    assert c["mean"] == pytest.approx(vb.mean(), abs=1e-12)
    assert c["difference"] == pytest.approx(vb.mean() - va.mean(), abs=1e-12)
    ref = stats.ttest_rel(vb, va)
    assert c["p_value"] == pytest.approx(ref.pvalue, rel=1e-10)
    assert c["statistic"] == pytest.approx(ref.statistic, rel=1e-10)
    # the interval: a percentile bootstrap of the per-query differences, as scipy's
    # (other random draws: equal up to Monte Carlo error, about 0.0003 here; a 90%
    # interval would be 0.003 narrower at each end)
    ci = stats.bootstrap((vb - va,), np.mean, method="percentile", n_resamples=10_000,
                         random_state=1).confidence_interval
    assert ci.high - ci.low > 0.02  # wide enough for the tolerance below to mean something
    assert c["ci_low"] == pytest.approx(ci.low, abs=0.0015)
    assert c["ci_high"] == pytest.approx(ci.high, abs=0.0015)


def test_compare_randomization_table(files, capsys):
    argv = ["compare", str(files["qrels"]), str(files["bm25"]), str(files["weak"]),
            str(files["random"]), "--metric", "map", "--test", "randomization",
            "--n-resamples", "2000", "--seed", "3"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert main(argv) == 0
    assert capsys.readouterr().out == out  # seeded
    lines = out.splitlines()
    assert lines[0].split() == ["run", "map", "diff", "p-value", "95%", "CI", "of", "diff"]
    assert "(baseline)" in lines[1]
    assert len(lines) == 5
    assert "randomization (Monte Carlo), two-sided, 2000 sign patterns, seed 3" in lines[4]
    # the random run is far worse than BM25: the smallest Monte Carlo p, 1 / 2001
    assert lines[3].split()[3] == f"{1 / 2001:.4g}"


def test_compare_errors(files, capsys):
    assert main(["compare", str(files["qrels"]), str(files["bm25"])]) == 2
    assert "at least two runs" in capsys.readouterr().err
    # with --missing ignore the random run covers two queries fewer
    assert main(["compare", str(files["qrels"]), str(files["bm25"]), str(files["random"]),
                 "--metric", "map", "--missing", "ignore"]) == 2
    err = capsys.readouterr().err
    assert f"only in {files['bm25']}: 7 8; only in {files['random']}: none" in err
    assert "--missing zero" in err
    assert main(["compare", str(files["qrels"]), str(files["bm25"]), str(files["weak"]),
                 "--metric", "ndgc@10"]) == 2
    assert "unknown metric 'ndgc@10'" in capsys.readouterr().err


def test_compare_identical_runs(files, capsys):
    """Every difference 0: t is 0/0 (nan, as scipy's ttest_rel), written as JSON null."""
    argv = ["compare", str(files["qrels"]), str(files["bm25"]), str(files["bm25"]),
            "--metric", "map"]
    assert main([*argv, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)  # strict JSON: no NaN token
    (row,) = doc["comparisons"]
    assert row["difference"] == 0.0
    assert row["statistic"] is None and row["p_value"] is None
    # (scipy has no p-value either: ttest_rel of identical samples is nan)
    assert main(argv) == 0
    assert "every per-query difference is 0" in capsys.readouterr().out


def test_compare_constant_difference_is_strict_json(tmp_path, capsys):
    """Every difference the same, not 0: t = +-inf (sd 0) and p = 0; JSON gets null for t."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 a 1\n2 0 a 1\n")
    run_a = tmp_path / "a.run"
    run_a.write_text("1 Q0 a 1 2.0 a\n2 Q0 a 1 2.0 a\n")
    run_b = tmp_path / "b.run"  # a one rank lower in both queries: RR 1/2 instead of 1
    run_b.write_text("1 Q0 b 1 2.0 b\n1 Q0 a 2 1.0 b\n2 Q0 b 1 2.0 b\n2 Q0 a 2 1.0 b\n")
    assert main(["compare", str(qrels), str(run_a), str(run_b), "--metric", "mrr",
                 "--format", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["comparisons"]
    assert row["difference"] == -0.5 and row["statistic"] is None and row["p_value"] == 0.0


def test_compare_one_query(tmp_path, capsys):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d1 1\n")
    run_a = tmp_path / "a.run"
    run_a.write_text("1 Q0 d1 1 2.0 a\n")
    run_b = tmp_path / "b.run"
    run_b.write_text("1 Q0 d2 1 2.0 b\n")
    for test in ("t", "randomization"):
        assert main(["compare", str(qrels), str(run_a), str(run_b), "--metric", "map",
                     "--test", test]) == 2
        err = capsys.readouterr().err
        assert "needs at least 2 queries" in err and "got 1" in err
        assert "different queries" not in err


# ---------------------------------------------------------------- as a program

def test_python_dash_m_and_console_script(files, capsys):
    argv = ["evaluate", str(files["qrels"]), str(files["bm25"]), "--metrics", "ndcg@10",
            "map", "--format", "json"]
    expected = _json_of(capsys, argv)
    proc = subprocess.run([sys.executable, "-m", "ragmetrics_edu", *argv],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == expected
    bad = subprocess.run([sys.executable, "-m", "ragmetrics_edu", "evaluate",
                          str(files["qrels"]), str(files["bm25"]), "--metrics", "P@0"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2
    assert "Traceback" not in bad.stderr and "P@0" in bad.stderr
    script = shutil.which("ragmetrics-edu", path=str(__import__("pathlib").Path(sys.executable).parent))
    if script is None:
        pytest.skip("the ragmetrics-edu console script is not installed (pip install -e .)")
    proc = subprocess.run([script, *argv], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == expected


# ---------------------------------------------------------------- hostile input

@pytest.mark.parametrize("option, value, rule", [
    ("--n-resamples", "1000000000", "from 1 to 1,000,000"),  # 8 GB of bootstrap means
    ("--n-resamples", "2000000", "from 1 to 1,000,000"),  # once passed here, failed in the library
    ("--n-resamples", "0", "from 1 to 1,000,000"),
    ("--n-resamples", "1_000", "from 1 to 1,000,000"),  # int() reads 1000
    ("--n-resamples", "\u0663", "from 1 to 1,000,000"),  # int() reads 3
    ("--n-resamples", "9" * 5000, "from 1 to 1,000,000"),  # int() refuses: 4300 digits
    ("--seed", str(10 ** 400), "from 0 to 18,446,744,073,709,551,615"),
    ("--seed", "-1", "from 0 to 18,446,744,073,709,551,615"),
])
def test_integer_options_out_of_range_exit_2_naming_the_option(files, capsys, option, value,
                                                                rule):
    argv = ["compare", str(files["qrels"]), str(files["bm25"]), str(files["weak"]),
            option, value]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"argument {option}: must be an integer {rule}" in err
    assert "Traceback" not in err and "Exceeds the limit" not in err
    assert len(err) < 1000  # never the whole 5,000 digits


@pytest.mark.parametrize("metric", ["P@" + "1" * 5000, "ndcg@" + str(10 ** 400)])
def test_a_huge_cut_off_gets_our_message(files, capsys, metric):
    assert main(["evaluate", str(files["qrels"]), str(files["bm25"]), "--metrics", metric]) == 2
    err = capsys.readouterr().err
    assert "--metrics: the cut-off k must be a positive integer of at most 2**63 - 1" in err
    assert "Exceeds the limit" not in err and len(err) < 500


def test_huge_grades_get_our_message(files, capsys, tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text(f"1 0 184 {10 ** 400}\n")
    assert main(["evaluate", str(qrels), str(files["bm25"])]) == 2
    err = capsys.readouterr().err
    assert f"{qrels}, line 1: the grade must fit in a 64-bit integer" in err
    assert "(401 digits)" in err and "OverflowError" not in err


def test_compare_names_the_run_that_shares_no_query(files, capsys, tmp_path):
    stranger = tmp_path / "stranger.run"
    stranger.write_text("x1 Q0 184 1 1.0 s\n")
    assert main(["compare", str(files["qrels"]), str(files["bm25"]), str(files["weak"]),
                 str(stranger)]) == 2
    err = capsys.readouterr().err
    assert f"{stranger} shares no query with {files['qrels']}" in err


def test_ids_in_notes_are_escaped(tmp_path, capsys):
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\n\ufeffq2 0 d1 1\nq\x1b[2J3 0 d1 1\n")
    run = tmp_path / "run"
    run.write_text("q1 Q0 d1 1 1.0 s\n")
    assert main(["evaluate", str(qrels), str(run), "--metrics", "map"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\ufeff" not in out
    assert "judged but not in the run (ignore): '\\ufeffq2' 'q\\x1b[2J3'" in out


def test_a_closed_output_pipe_exits_quietly(files):
    # the reader goes away before anything is written, as `| head -0` would
    proc = subprocess.Popen([sys.executable, "-m", "ragmetrics_edu", "evaluate",
                             str(files["qrels"]), str(files["bm25"]), "--per-query"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 141  # 128 + SIGPIPE, as a Unix tool
    assert err == b""


@pytest.mark.parametrize("command", ["evaluate", "compare"])
def test_a_closed_standard_output_is_said_not_a_traceback(files, command):
    """Issue 34: `ragmetrics-edu evaluate ... >&-` printed an AttributeError traceback
    ('NoneType' object has no attribute 'flush'): Python sets sys.stdout to None."""
    argv = ([str(files["qrels"]), str(files["bm25"])] if command == "evaluate"
            else [str(files["qrels"]), str(files["bm25"]), str(files["bm25"]), "--metric", "map"])
    proc = subprocess.run([sys.executable, "-m", "ragmetrics_edu", command, *argv],
                          stderr=subprocess.PIPE, text=True, timeout=120,
                          preexec_fn=lambda: os.close(1))   # as the shell's >&- does
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip() == ("ragmetrics-edu: error: standard output is closed: the "
                                   "results have nowhere to go")


@pytest.mark.parametrize("metric, message", [
    ("rbp(p=2)", "the persistence p must be strictly between 0 and 1"),
    ("iprec@1.5", "the recall level must be in [0, 1]"),
    ("err(max_grade=0)@10", "max_grade must be a positive number"),
])
def test_new_measures_bad_parameters_exit_2_naming_the_metric(tmp_path, metric, message):
    qrels = tmp_path / "qrels"
    run = tmp_path / "run"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n")
    run.write_text("1 Q0 d1 1 2.0 r\n1 Q0 d2 2 1.0 r\n")
    done = subprocess.run([sys.executable, "-m", "ragmetrics_edu", "evaluate", str(qrels),
                           str(run), "--metrics", metric], capture_output=True, text=True)
    assert done.returncode == 2
    assert message in done.stderr and metric in done.stderr
    assert "Traceback" not in done.stderr


def test_new_measures_by_hand(tmp_path):
    # d1 (grade 1) at rank 1, d2 (grade 0) at rank 2.
    # ERR@10 = (2**1 - 1) / 2**4 = 0.0625; binary RBP(0.8) = (1 - 0.8) * 1 = 0.2;
    # its residual = 0.8**2 (nothing unjudged, the tail past rank 2) = 0.64.
    qrels = tmp_path / "qrels"
    run = tmp_path / "run"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n")
    run.write_text("1 Q0 d1 1 2.0 r\n1 Q0 d2 2 1.0 r\n")
    done = subprocess.run([sys.executable, "-m", "ragmetrics_edu", "evaluate", str(qrels),
                           str(run), "--format", "json", "--metrics", "err@10", "rbp(p=0.8)",
                           "rbp_residual(p=0.8)", "bpref", "rprec"],
                          capture_output=True, text=True, check=True)
    mean = json.loads(done.stdout)["mean"]
    assert mean["err@10"] == pytest.approx(0.0625)
    assert mean["rbp(p=0.8)"] == pytest.approx(0.2)
    assert mean["rbp_residual(p=0.8)"] == pytest.approx(0.64)
    assert mean["bpref"] == 1.0 and mean["rprec"] == 1.0


def test_a_query_named_mean_is_not_confused_with_the_mean_row(tmp_path, capsys):
    """CSV rows are told apart by their qid: a query named 'mean' is refused with --per-query."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("mean 0 a 1\nq2 0 b 1\n")
    run.write_text("mean Q0 a 1 1.0 s\nq2 Q0 c 1 1.0 s\n")
    args = ["evaluate", str(qrels), str(run), "--metrics", "map", "--format", "csv"]
    assert main(args) == 0  # the mean alone: one row, no ambiguity
    assert list(csv.reader(io.StringIO(capsys.readouterr().out))) == [
        ["qid", "map"], ["mean", "0.5"]]
    assert main([*args, "--per-query"]) == 2
    err = capsys.readouterr().err
    assert "a query is named 'mean', like the summary row" in err and "--format json" in err
    assert main(["evaluate", str(qrels), str(run), "--metrics", "map", "--format", "json",
                 "--per-query"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["per_query"]["mean"]["map"] == 1.0 and doc["mean"]["map"] == 0.5


def test_the_options_take_their_limits_and_choices_from_the_library(capsys):
    """The parser accepts what the library accepts: one constant, read where it is defined."""
    from ragmetrics_edu.__main__ import _build_parser
    from ragmetrics_edu.lab.significance import MAX_RESAMPLES, TESTS
    from ragmetrics_edu.retrieval.batch.registry import GAINS, METRICS, MISSING_POLICIES

    actions = {(sub, a.dest): a for sub, parser in
               _build_parser()._subparsers._group_actions[0].choices.items()
               for a in parser._actions}
    assert tuple(actions["evaluate", "missing"].choices) == MISSING_POLICIES
    assert tuple(actions["compare", "missing"].choices) == MISSING_POLICIES
    assert tuple(actions["evaluate", "gain"].choices) == GAINS
    assert tuple(actions["compare", "test"].choices) == TESTS
    assert f"at most {MAX_RESAMPLES:,}" in actions["compare", "n_resamples"].help
    assert all(family in actions["evaluate", "metrics"].help for family in METRICS)
    assert actions["compare", "n_resamples"].type(str(MAX_RESAMPLES)) == MAX_RESAMPLES


def test_compare_refuses_what_the_library_refuses_naming_the_flag(files, capsys):
    from ragmetrics_edu.lab.significance import MAX_RESAMPLES

    argv = ["compare", str(files["qrels"]), str(files["bm25"]), str(files["weak"]),
            "--n-resamples", str(MAX_RESAMPLES + 1)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"argument --n-resamples: must be an integer from 1 to {MAX_RESAMPLES:,}" in err
    assert "n_resamples must" not in err  # the flag, not the library's argument


def test_metric_names_are_checked_before_any_file_is_read(tmp_path, capsys):
    missing = str(tmp_path / "no such file")
    assert main(["evaluate", missing, missing, "--metrics", "rbp(p=.5,p=.6)"]) == 2
    assert "--metrics: metric 'rbp(p=.5,p=.6)': the parameter p is given twice" in \
        capsys.readouterr().err
    assert main(["compare", missing, missing, missing, "--metric", "ndgc@10"]) == 2
    assert "--metric: unknown metric 'ndgc@10'" in capsys.readouterr().err


def test_gain_option(files, capsys):
    common = ["evaluate", str(files["qrels"]), str(files["bm25"]), "--metrics", "ndcg@10",
              "--format", "json"]
    assert main(common) == 0
    linear = json.loads(capsys.readouterr().out)["mean"]["ndcg@10"]
    assert main([*common, "--gain", "exponential"]) == 0
    exponential = json.loads(capsys.readouterr().out)["mean"]["ndcg@10"]
    qrels, run = rm.read_qrels(files["qrels"]), rm.read_run(files["bm25"])
    assert linear == pytest.approx(rm.evaluate(qrels, run, metrics=["ndcg@10"]).mean["ndcg@10"], abs=1e-15)
    assert exponential == pytest.approx(
        rm.evaluate(qrels, run, metrics=["ndcg@10"], gain="exponential").mean["ndcg@10"], abs=1e-15)
    assert linear != exponential


# ---------------------------------------------------------------- trec_eval's -l and -M

TREC_EVAL_OPTIONS = Path(__file__).parent / "trec_eval_options"


def _trec_eval_all(name):
    """The 'all' rows of one of trec_eval's outputs in tests/trec_eval_options/."""
    rows = (line.split() for line in (TREC_EVAL_OPTIONS / name).read_text().splitlines())
    return {measure: float(value) for measure, qid, value in rows if qid == "all"}


@pytest.mark.parametrize("options, file", [
    (["-l", "2", "-M", "5"], "level_depth.l2M5.trec_eval9.txt"),
    (["--relevance-level", "3", "--depth", "8"], "level_depth.l3M8.trec_eval9.txt"),
])
def test_evaluate_takes_trec_eval_l_and_M(capsys, options, file):
    # the means trec_eval itself printed (4 decimals) with the same options
    names = {"map": "map", "P@5": "P_5", "mrr": "recip_rank", "bpref": "bpref",
             "ndcg@10": "ndcg_cut_10", "recall@10": "recall_10"}
    out = _json_of(capsys, ["evaluate", str(TREC_EVAL_OPTIONS / "level_depth.qrels"),
                            str(TREC_EVAL_OPTIONS / "level_depth.run"), "--metrics", *names,
                            "--format", "json", *options])
    want = _trec_eval_all(file)
    for ours, theirs in names.items():
        assert out["mean"][ours] == pytest.approx(want[theirs], abs=5.1e-5), ours
    level, depth = options[1], options[3]
    assert f"rel:grade>={level}" in out["signature"] and f"depth:{depth}" in out["signature"]


def test_compare_takes_l_and_M_and_says_so(files, capsys):
    assert main(["compare", str(files["qrels"]), str(files["bm25"]), str(files["weak"]),
                 "--metric", "map", "-l", "2", "-M", "10"]) == 0
    out = capsys.readouterr().out
    assert "relevance level (-l) 2; depth (-M) 10;" in out
    # Cranfield grades 1-4: at level 2 and depth 10 BM25's MAP is that of pytrec_eval
    # on the top 10 of each ranking (its documents have distinct scores)
    from ragmetrics_edu.retrieval.trec import read_qrels, read_run
    qrels, run = read_qrels(files["qrels"]), read_run(files["bm25"])
    top = {q: dict(sorted(docs.items(), key=lambda x: -x[1])[:10]) for q, docs in run.items()}
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"map"}, relevance_level=2).evaluate(top)
    mean = sum(ref[q]["map"] for q in qrels) / len(qrels)  # (--missing zero: every query)
    assert f"{mean:.4f}  (baseline)" in out


@pytest.mark.parametrize("bad", ["0", "-1", "1.5", "two"])
def test_l_and_M_refuse_what_is_not_a_positive_integer(capsys, files, bad):
    for option in ("-l", "-M"):
        status = main(["evaluate", str(files["qrels"]), str(files["bm25"]), option, bad])
        err = capsys.readouterr().err
        assert status == 2 and "must be an integer from 1 to" in err, (option, err)


@pytest.mark.parametrize("command", ["evaluate", "compare"])
@pytest.mark.parametrize("target, reason", [("/dev/full", "No space left on device")])
def test_results_that_cannot_be_written_exit_2_naming_standard_output(files, command, target,
                                                                      reason):
    """A full disk printed Python's 'Exception ignored ... OSError' at exit and exited 120;
    the message now says what failed, and the status is the usual 2."""
    if not os.path.exists(target):
        pytest.skip(f"{target} is not on this system")
    argv = ([str(files["qrels"]), str(files["bm25"])] if command == "evaluate"
            else [str(files["qrels"]), str(files["bm25"]), str(files["weak"]), "--metric", "map"])
    with open(target, "w") as full:
        proc = subprocess.run([sys.executable, "-m", "ragmetrics_edu", command, *argv],
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr == ("ragmetrics-edu: error: cannot write the results to standard "
                           f"output: {reason}\n")


def test_a_standard_output_opened_for_reading_exits_2_without_a_traceback(files):
    with open(os.devnull) as read_only:   # as the shell's 1</dev/null does
        proc = subprocess.run([sys.executable, "-m", "ragmetrics_edu", "evaluate",
                               str(files["qrels"]), str(files["bm25"])],
                              stdout=read_only, stderr=subprocess.PIPE, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.startswith("ragmetrics-edu: error: cannot write the results to "
                                  "standard output: ")
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr


def test_with_standard_error_closed_an_error_never_reaches_standard_output(files, tmp_path):
    """`2>&-` made Python's sys.stderr None, and print(file=None) wrote the error message
    into the results on standard output."""
    proc = subprocess.run([sys.executable, "-m", "ragmetrics_edu", "evaluate",
                           str(tmp_path / "missing.txt"), str(files["bm25"])],
                          stdout=subprocess.PIPE, text=True, timeout=120,
                          preexec_fn=lambda: os.close(2))   # as the shell's 2>&- does
    assert proc.returncode == 2
    assert proc.stdout == ""


def test_with_standard_error_full_an_error_still_exits_2(files, tmp_path):
    """`2>/dev/full`: the message could not be written, the OSError escaped the handler and
    the command exited 1 (a traceback no one could read) instead of the usual 2."""
    if not os.path.exists("/dev/full"):
        pytest.skip("/dev/full is not on this system")
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "ragmetrics_edu", "evaluate",
                               str(tmp_path / "missing.txt"), str(files["bm25"])],
                              stdout=subprocess.PIPE, stderr=full, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""


@pytest.mark.parametrize("argv", [["--help"], ["evaluate", "--help"], ["compare", "-h"]])
def test_a_help_that_cannot_be_written_exits_2(argv):
    """`--help >/dev/full`: argparse ignored the failed write, so the help was lost and the
    command exited 0; it now fails as the results do."""
    if not os.path.exists("/dev/full"):
        pytest.skip("/dev/full is not on this system")
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "ragmetrics_edu", *argv], stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr == ("ragmetrics-edu: error: cannot write the help to standard output: "
                           "No space left on device\n")
    ok = subprocess.run([sys.executable, "-m", "ragmetrics_edu", *argv], capture_output=True,
                        text=True, timeout=120)
    assert ok.returncode == 0 and ok.stdout.startswith("usage: ragmetrics-edu") and not ok.stderr


@pytest.mark.parametrize("argv", [["--help"], ["evaluate", "--help"], ["compare", "-h"]])
def test_a_help_with_standard_output_closed_exits_2(argv):
    """`--help >&-`: Python set sys.stdout to None, argparse's fallback wrote the help to
    standard error and the command exited 0; it now fails as the results do (exit 2, one
    line)."""
    proc = subprocess.run([sys.executable, "-m", "ragmetrics_edu", *argv],
                          stderr=subprocess.PIPE, text=True, timeout=120,
                          preexec_fn=lambda: os.close(1))   # as the shell's >&- does
    assert proc.returncode == 2
    assert proc.stderr == ("ragmetrics-edu: error: cannot write the help to standard output: "
                           "it is closed\n")
