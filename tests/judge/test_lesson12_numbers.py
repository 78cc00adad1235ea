"""The numbers lessons 07, 08 and 12 quote about the 33 LLMJudge judges, recomputed from the raw
files with scikit-learn, SciPy and plain NumPy (never with the library's functions), and found in
the lessons' text.

Every interval the lessons quote resamples the 25 queries.  Here each is rebuilt from one 2 x 2
(or 4 x 4) table per query and the draws ``default_rng(seed).integers(0, 25, (B, 25))``: with
seed 0 the bounds must equal the notebook's, and with other seeds their printed digits must not
change (the point of drawing 10,000 or 100,000 resamples rather than 1,000).
"""

import json
import re
from pathlib import Path

import numpy as np
import pytest

import ragmetrics_edu as rm

sklearn_metrics = pytest.importorskip("sklearn.metrics")
scipy_stats = pytest.importorskip("scipy.stats")

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(rm.__file__).parent / "data" / "llmjudge"
SAMPLE = Path(rm.__file__).parent / "data" / "cranfield_judge_sample"


def _read(path):
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            q, _, p, g = line.split()
            out[q, p] = int(g)
    return out


NIST = _read(DATA / "test_qrels.txt")
KEYS = list(NIST)
H = np.array([NIST[k] for k in KEYS])
HB = (H >= 2).astype(int)
QUERIES = list(dict.fromkeys(q for q, _ in KEYS))          # numbered in order of first appearance
G = np.array([QUERIES.index(q) for q, _ in KEYS])
JUDGES = {}
for path in sorted((DATA / "judges").glob("*.txt")):
    grades = _read(path)
    JUDGES[path.stem] = np.array([grades[k] for k in KEYS])
BEST, WORST = "h2oloo-fewself", "TREMA-rubric0"


def _text(stem):
    """A lesson's source with its white space collapsed (prose wraps anywhere)."""
    return " ".join((ROOT / "lessons" / f"{stem}.md").read_text(encoding="utf-8").split())


L07, L08, L12 = _text("07_llm_as_judge"), _text("08_judge_agreement"), _text("12_judge_vs_assessors")


# ----------------------------------------------------------------- a bootstrap of our own

def _counts(n_resamples, seed, n_groups=25):
    """How many times each query is drawn on each resample: (B, 25)."""
    picks = np.random.default_rng(seed).integers(0, n_groups, size=(n_resamples, n_groups))
    out = np.zeros((n_resamples, n_groups))
    for g in range(n_groups):
        out[:, g] = (picks == g).sum(axis=1)
    return out


def _tables(h, j, keep, k):
    """One k x k table per query, flattened: (25, k*k)."""
    t = np.zeros((25, k * k))
    np.add.at(t, (G[keep], h[keep] * k + j[keep]), 1)
    return t


def _kappa(flat, k, weights=None):
    """Cohen's kappa of each row of flattened k x k tables, written out."""
    i, j = np.divmod(np.arange(k * k), k)
    w = {None: (i != j) * 1.0, "linear": np.abs(i - j) * 1.0, "quadratic": (i - j) ** 2 * 1.0}[weights]
    t = flat.reshape(-1, k, k)
    n = t.sum(axis=(1, 2))
    expected = np.einsum("bi,bj->bij", t.sum(axis=2), t.sum(axis=1)) / n[:, None, None]
    return 1 - (flat * w).sum(axis=1) / (expected.reshape(-1, k * k) * w).sum(axis=1)


def _measured(name):
    j = JUDGES[name]
    return (j >= 0) & (j <= 3)


def _interval(stats):
    return tuple(np.quantile(stats, [0.025, 0.975]))


def _binary_ci(name, n_resamples, seed):
    keep = _measured(name)
    flat = _tables(HB, (JUDGES[name] >= 2).astype(int), keep, 2)
    return _interval(_kappa(_counts(n_resamples, seed) @ flat, 2))


def _in(text, *phrases):
    for phrase in phrases:
        assert " ".join(phrase.split()) in text, f"the lesson does not say {phrase!r}"


def _two(x):
    return f"{x:.2f}"


# ----------------------------------------------------------------- the 33 judges' kappas

def test_the_headline_intervals_and_their_printed_digits():
    """The best judge 0.43 [0.31, 0.53] and the weakest 0.03 [0.01, 0.07]: from 10,000 resamples
    in 12's table, from 100,000 in 08, and the same two decimals with other seeds."""
    for name, want in ((BEST, ("0.31", "0.53")), (WORST, ("0.01", "0.07"))):
        keep = _measured(name)
        value = sklearn_metrics.cohen_kappa_score(HB[keep], (JUDGES[name][keep] >= 2))
        assert _two(value) == {BEST: "0.43", WORST: "0.03"}[name]
        for n_resamples, seeds in ((100_000, (0, 1, 2)), (10_000, (0,))):
            for seed in seeds:
                assert tuple(map(_two, _binary_ci(name, n_resamples, seed))) == want, (
                    name, n_resamples, seed)
    # the notebook's own cell: these bounds, the library's draws (same seed, same queries order)
    best = rm.kappa_ci(HB, (JUDGES[BEST] >= 2).astype(int), groups=[q for q, _ in KEYS],
                       n_resamples=1000, seed=0)
    assert (best.low, best.high) == pytest.approx(_binary_ci(BEST, 1000, 0), abs=1e-12)
    lows = [_binary_ci(BEST, 1000, s)[0] for s in (0, 1, 2)]
    assert _two(min(lows)) == "0.29" and _two(max(lows)) == "0.32"   # 1,000: the seed shows
    _in(L12, "reaches a binary kappa of 0.43, with an interval over queries from 0.31 to 0.53",
        "0.03 [0.01, 0.07]", "the lower end moves between 0.29 and 0.32", "0.43 [0.31, 0.53] at the binary cut")
    _in(L08, "from 0.31 to 0.53", "its binary kappa is 0.03, with an interval from 0.01 to 0.07",
        "reaches 0.43 [0.31, 0.53]; the weakest 0.03 [0.01, 0.07] at TREC's cut")


def test_the_weakest_judge_cut_at_1_in_08():
    """08: the weakest judge never gives a 2, so at TREC's cut it calls almost nothing relevant
    (0.03); with its own 1s counted relevant (the assessors' cut stays at 2) its kappa is 0.22."""
    keep = _measured(WORST)
    grades = JUDGES[WORST][keep]
    assert np.bincount(grades.astype(int), minlength=4).tolist() == [3122, 1211, 0, 90]
    value = sklearn_metrics.cohen_kappa_score(HB[keep], grades >= 1)
    assert _two(value) == "0.22"
    _in(L08, "but 0.22 with its own scale cut at 1")


def test_four_grades_against_the_binary_cut():
    binary, graded, linear, quadratic = {}, {}, {}, {}
    for name, j in JUDGES.items():
        keep = _measured(name)
        h, jj = H[keep], j[keep]
        k = sklearn_metrics.cohen_kappa_score
        binary[name] = k(h >= 2, jj >= 2)
        graded[name] = k(h, jj, labels=[0, 1, 2, 3])
        linear[name] = k(h, jj, labels=[0, 1, 2, 3], weights="linear")
        quadratic[name] = k(h, jj, labels=[0, 1, 2, 3], weights="quadratic")
    ranked = sorted(binary, key=binary.get, reverse=True)
    higher = [name for name in ranked if graded[name] >= binary[name]]
    assert higher == ["prophet-setting4", "TREMA-rubric0"]
    assert [ranked.index(n) + 1 for n in higher] == [31, 33]
    assert all(linear[n] > graded[n] and quadratic[n] > linear[n] for n in JUDGES)
    assert (_two(min(graded.values())), _two(max(graded.values()))) == ("0.06", "0.29")
    _in(L12, "Over the four grades kappa is lower for 31 of the 33 judges (from 0.06 to 0.29)",
        "`prophet-setting4` (31st) and `TREMA-rubric0` (last)")
    # the two 8B judges at 0.39 are ensembles; the best single 8B prompt, the fine-tuned 8B
    assert {n for n in JUDGES if _two(binary[n]) == "0.39"} == {
        "Olz-multiprompt", "Olz-somebin", "RMITIR-llama70B", "h2oloo-zeroshot1"}
    assert _two(binary["TREMA-sumdecompose"]) == "0.35"
    _in(L12, "the best single Llama-3 8B prompt reaches 0.35 (`TREMA-sumdecompose`)")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_widths_of_the_intervals_and_the_top_dozen(seed):
    ci = {name: _binary_ci(name, 10_000, seed) for name in JUDGES}
    widths = {name: high - low for name, (low, high) in ci.items()}
    assert min(widths, key=widths.get) == WORST and max(widths, key=widths.get) == "RMITIR-GPT4o"
    assert abs(min(widths.values()) - 0.065) < 0.002 and _two(max(widths.values())) == "0.26"
    binary = {name: sklearn_metrics.cohen_kappa_score(HB[_measured(name)],
                                                      JUDGES[name][_measured(name)] >= 2)
              for name in JUDGES}
    top = sorted(binary, key=binary.get, reverse=True)[:12]
    assert all(ci[n][0] <= 0.38 <= ci[n][1] for n in top)
    _in(L12, "the intervals are from about 0.065 wide", "to 0.26, and those of the top dozen "
             "judges all contain 0.38")


def test_leniency_and_where_the_best_judge_errs():
    def leniency(name, seed):
        keep = _measured(name)
        flat = _tables(H, JUDGES[name], keep, 4)
        t = (_counts(10_000, seed) @ flat).reshape(-1, 4, 4)
        grade = np.arange(4)
        n = t.sum(axis=(1, 2))
        stats = ((t.sum(axis=1) @ grade) - (t.sum(axis=2) @ grade)) / n
        value = JUDGES[name][keep].mean() - H[keep].mean()
        return value, *_interval(stats)

    for seed in (0, 1, 2):
        value, _, high = leniency("prophet-setting4", seed)
        assert f"{value:+.2f}" == "-0.59" and f"{high:+.1f}" == "-0.4"
        value, low, _ = leniency("TREMA-4prompts", seed)
        assert f"{value:+.2f}" == "+0.56" and f"{low:+.1f}" == "+0.4"
        assert [f"{x:+.2f}" for x in leniency("RMITIR-GPT4o", seed)] == ["-0.30", "-0.50", "-0.08"]
        value, low, high = leniency("RMITIR-llama70B", seed)
        assert f"{value:+.2f}" == "+0.17" and -0.02 < low < 0 and abs(high - 0.35) < 0.015
    means = {n: j[_measured(n)].mean() for n, j in JUDGES.items()}
    assert (_two(min(means.values())), _two(max(means.values())), _two(H.mean())) == (
        "0.31", "1.46", "0.90")
    _in(L12, "a leniency from -0.59 (`prophet-setting4`) to +0.56 (`TREMA-4prompts`), both "
             "intervals far from 0 (their ends at about -0.4 and +0.4)",
        "mean grades from 0.31 to 1.46 against the assessors' 0.90",
        "a leniency of -0.30 [-0.50, -0.08]",
        "+0.17, its interval from just below 0 to about +0.35")
    # of NIST's 1s and 2s, the share the best judge calls relevant
    said = (JUDGES[BEST] >= 2).astype(float)
    for grade, want in ((1, ("0.27", "0.15", "0.42")), (2, ("0.54", "0.31", "0.75"))):
        mine = H == grade
        pos = np.bincount(G[mine], weights=said[mine], minlength=25)
        size = np.bincount(G[mine], minlength=25).astype(float)
        for seed in (0, 1, 2):
            c = _counts(10_000, seed)
            low, high = _interval((c @ pos) / (c @ size))
            assert _two(said[mine].mean()) == want[0]
            assert abs(low - float(want[1])) < 0.01 and abs(high - float(want[2])) < 0.01
    _in(L12, "(0.27, its interval from about 0.15 to 0.42)", "(0.54, from about 0.31 to 0.75)")


def test_true_positive_and_true_negative_rates():
    for name, tpr_want, tnr_want in (("RMITIR-llama70B", ("0.81", "0.71", "0.89"),
                                      ("0.67", "0.59", "0.75")),
                                     ("RMITIR-GPT4o", ("0.51", "0.32", "0.67"),
                                      ("0.87", "0.80", "0.93"))):
        keep = _measured(name)
        judge = (JUDGES[name] >= 2).astype(int)
        flat = _tables(HB, judge, keep, 2)
        tpr = sklearn_metrics.recall_score(HB[keep], judge[keep])
        tnr = sklearn_metrics.recall_score(HB[keep], judge[keep], pos_label=0)
        for seed in (0, 1):
            t = _counts(10_000, seed) @ flat
            t_low, t_high = _interval(t[:, 3] / (t[:, 2] + t[:, 3]))
            n_low, n_high = _interval(t[:, 0] / (t[:, 0] + t[:, 1]))
            assert tuple(map(_two, (tpr, t_low, t_high))) == tpr_want
            assert tuple(map(_two, (tnr, n_low, n_high))) == tnr_want
    _in(L12, "(TPR 0.81 [0.71, 0.89])", "(TNR 0.67 [0.59, 0.75])", "(TNR 0.87 [0.80, 0.93])",
        "(TPR 0.51 [0.32, 0.67])")


# ----------------------------------------------------------------- paired comparisons

def _difference(a, b, kind, n_resamples, seed):
    keep = _measured(a) & _measured(b)
    if kind == "binary":
        fa, fb = (_tables(HB, (JUDGES[x] >= 2).astype(int), keep, 2) for x in (a, b))
        k = 2
    else:
        fa, fb = (_tables(H, JUDGES[x], keep, 4) for x in (a, b))
        k = 4
    c = _counts(n_resamples, seed)
    value = _kappa(fa.sum(axis=0, keepdims=True), k)[0] - _kappa(fb.sum(axis=0, keepdims=True), k)[0]
    return value, *_interval(_kappa(c @ fa, k) - _kappa(c @ fb, k))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_paired_differences_the_text_reads(seed):
    d = {(a, b, kind): _difference(a, b, kind, 10_000, seed)
         for a, b in (("RMITIR-GPT4o", "RMITIR-llama38b"), ("RMITIR-llama70B", "RMITIR-llama38b"),
                      ("RMITIR-GPT4o", "RMITIR-llama70B"), ("willia-umbrela1", "willia-umbrela2"),
                      ("willia-umbrela1", "willia-umbrela3"), ("h2oloo-fewself", "willia-umbrela1"),
                      ("NISTRetrieval-reason0", "NISTRetrieval-instruct0"))
         for kind in ("binary", "graded")}
    signed = {key: tuple(f"{x:+.2f}" for x in v) for key, v in d.items()}
    # the model: 70B beats 8B at the cut and over four grades; GPT-4o's lead is not clear
    for kind in ("binary", "graded"):
        assert signed["RMITIR-llama70B", "RMITIR-llama38b", kind][0] == "+0.07"
        assert d["RMITIR-llama70B", "RMITIR-llama38b", kind][1] > 0.015
    assert signed["RMITIR-GPT4o", "RMITIR-llama38b", "binary"][0] == "+0.08"
    assert d["RMITIR-GPT4o", "RMITIR-llama38b", "binary"][1] < 0
    for kind in ("binary", "graded"):
        low, high = d["RMITIR-GPT4o", "RMITIR-llama70B", kind][1:]
        assert low < 0 < high
    # the prompt: numbers beat words at the cut only
    assert signed["willia-umbrela1", "willia-umbrela2", "binary"][0] == "+0.06"
    assert d["willia-umbrela1", "willia-umbrela2", "binary"][1] > 0
    assert signed["willia-umbrela1", "willia-umbrela2", "graded"][0] == "+0.02"
    assert d["willia-umbrela1", "willia-umbrela2", "graded"][1] < 0
    assert d["willia-umbrela1", "willia-umbrela3", "binary"][1] > 0       # umbrela3 worse
    # few-shot examples: +0.03, an interval that just touches 0; nothing over four grades
    value, low, _ = d["h2oloo-fewself", "willia-umbrela1", "binary"]
    assert f"{value:+.2f}" == "+0.03" and abs(low) < 0.005
    assert d["h2oloo-fewself", "willia-umbrela1", "graded"][1] < 0 < d[
        "h2oloo-fewself", "willia-umbrela1", "graded"][2]
    # chain of thought: +0.04 at the cut, just below 0; nothing over four grades
    value, low, _ = d["NISTRetrieval-reason0", "NISTRetrieval-instruct0", "binary"]
    assert f"{value:+.2f}" == "+0.04" and -0.005 < low < 0
    low, high = d["NISTRetrieval-reason0", "NISTRetrieval-instruct0", "graded"][1:]
    assert low < 0 < high
    _in(L12, "gains 0.06 of binary kappa, and the paired interval stays above 0",
        "Over the four grades the gain is 0.02, and its interval reaches below 0",
        "gain 0.03 at the cut, with an interval that just touches 0",
        "gains the 8B model about 0.04 at the cut, with an interval that just reaches below 0")


def test_the_repeated_submissions():
    for kind, want in (("instruct", 13), ("reason", 5)):
        runs = np.array([JUDGES[f"NISTRetrieval-{kind}{i}"] for i in range(3)])
        assert int(np.sum(runs.min(axis=0) != runs.max(axis=0))) == want
    _in(L12, "13 pairs of 4,423 (zero-shot) and 5 (chain of thought)")


# ----------------------------------------------------------------- the ensemble

def _share():
    grades = np.array([JUDGES[n] for n in JUDGES], dtype=float)
    measured = (grades >= 0) & (grades <= 3)
    return np.nanmean(np.where(measured, grades >= 2, np.nan), axis=0), measured


def test_the_share_counts_only_measured_votes():
    share, measured = _share()
    as_written = np.mean([JUDGES[n] >= 2 for n in JUDGES], axis=0)
    assert int(np.sum(measured.sum(axis=0) < 33)) == 3
    assert int(np.sum(share != as_written)) == 3
    majority = (share > 0.5).astype(int)
    assert f"{sklearn_metrics.cohen_kappa_score(HB, majority):.4f}" == "0.3817"
    _in(L12, "three pairs are voted on by 32 judges")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_majority_and_the_share_against_the_best_judge(seed):
    share, _ = _share()
    majority = (share > 0.5).astype(int)
    best = (JUDGES[BEST] >= 2).astype(int)
    keep = np.ones(len(H), bool)
    fm, fb = _tables(HB, majority, keep, 2), _tables(HB, best, keep, 2)
    c = _counts(10_000, seed)
    assert tuple(map(_two, (sklearn_metrics.cohen_kappa_score(HB, majority),
                            *_interval(_kappa(c @ fm, 2))))) == ("0.38", "0.29", "0.46")
    low, high = _interval(_kappa(c @ fm, 2) - _kappa(c @ fb, 2))
    assert high < 0 and f"{low:+.2f}" == "-0.08"

    # Pearson's r with NIST's 0/1 label from per-query sums (centred), on the same draws
    def pearson_stats(score):
        x, y = score - score.mean(), HB - HB.mean()
        sums = np.stack([np.bincount(G, weights=w, minlength=25)
                         for w in (np.ones_like(x), x, y, x * x, y * y, x * y)], axis=1)
        m, sx, sy, sxx, syy, sxy = (c @ sums).T
        return (m * sxy - sx * sy) / np.sqrt((m * sxx - sx ** 2) * (m * syy - sy ** 2))

    r_share, r_best = pearson_stats(share), pearson_stats(best.astype(float))
    assert tuple(map(_two, (scipy_stats.pearsonr(share, HB).statistic, *_interval(r_share)))) == (
        "0.47", "0.38", "0.54")
    assert tuple(map(_two, (scipy_stats.pearsonr(best, HB).statistic, *_interval(r_best)))) == (
        "0.43", "0.31", "0.53")
    diff = scipy_stats.pearsonr(share, HB).statistic - scipy_stats.pearsonr(best, HB).statistic
    assert tuple(f"{x:+.2f}" for x in (diff, *_interval(r_share - r_best))) == (
        "+0.04", "-0.01", "+0.09")
    _in(L12, "(0.38 against 0.43, a paired interval below 0, if only just)",
        "(correlation 0.47 [0.38, 0.54] against 0.43 [0.31, 0.53])",
        "+0.04 [-0.01, +0.09], reaches below 0")


def test_choosing_the_best_of_33_on_half_the_queries():
    """The notebook's 2,000 splits (seed 0), and the mean loss with other draws of the splits."""
    names = list(JUDGES)
    tables = []
    for name in names:
        keep = _measured(name)
        tables.append(_tables(HB, (JUDGES[name] >= 2).astype(int), keep, 2))
    tables = np.array(tables)                                     # (33, 25, 4)
    results = {}
    for seed in (0, 1, 2):
        rng = np.random.default_rng(seed)
        on, held, wins = [], [], {}
        for _ in range(2000):
            half = rng.permutation(25)[:12]
            rest = np.setdiff1d(np.arange(25), half)
            k_half = _kappa(tables[:, half].sum(axis=1), 2)
            k = int(np.argmax(k_half))
            wins[names[k]] = wins.get(names[k], 0) + 1
            on.append(k_half[k])
            held.append(_kappa(tables[k, rest].sum(axis=0, keepdims=True), 2)[0])
        loss = np.array(on) - np.array(held)
        results[seed] = (loss.mean(), np.percentile(loss, [2.5, 97.5]), wins)
    mean, middle, wins = results[0]
    assert f"{mean:.3f}" == "0.039" and [f"{x:+.2f}" for x in middle] == ["-0.13", "+0.24"]
    assert len(wins) > 12 and 0.6 < wins[BEST] / 2000 < 0.66          # about five in eight
    assert all(0.035 <= results[s][0] <= 0.048 for s in results)      # "about 0.04"
    _in(L12, "The chosen judge loses about 0.04 of kappa", "from about -0.13 to +0.24",
        "More than a dozen judges win on some half", "keeps about 0.04 less on other queries")


# ----------------------------------------------------------------- PPI and exercise 3

def test_the_judge_alone_misses_the_truth():
    share, _ = _share()
    y = HB.astype(float)
    z = scipy_stats.norm.ppf(0.95)
    low, high = share.mean() - z * share.std() / np.sqrt(len(share)), share.mean() + z * share.std() / np.sqrt(len(share))
    assert (f"{low:.4f}", f"{high:.4f}", f"{y.mean():.4f}") == ("0.2717", "0.2865", "0.2679")
    best = (JUDGES[BEST] >= 2).astype(float)
    b_low = best.mean() - z * best.std() / np.sqrt(len(best))
    b_high = best.mean() + z * best.std() / np.sqrt(len(best))
    assert b_low <= y.mean() <= b_high
    _in(L12, "The share of 33 judges alone gives [0.2717, 0.2865], which misses the truth, 0.2679")


def test_exercise_3_and_its_slips():
    from ragmetrics_edu.course.exercises import digest

    y = HB.astype(float)
    rho = scipy_stats.pearsonr(y, (JUDGES[BEST] >= 2).astype(float)).statistic
    total = len(y)

    def smallest(r):
        return next(n for n in range(2, total) if n / r(n) >= 1000)

    right = smallest(lambda n: 1 - rho ** 2 * (total - n) / total)
    n4423 = smallest(lambda n: 1 - rho ** 2 * total / (n + total))
    no_factor = smallest(lambda n: 1 - rho ** 2)
    assert (right, n4423, no_factor) == (853, 847, 817)
    salt = "12/n_ppi_beats_1000"
    for value, fp in ((right, "1084343a16f2"), (n4423, "274290e1f6b0"), (no_factor, "35d3010d5b5c")):
        assert digest(value, salt, decimals=0) == fp
        assert fp in L12
    _in(L12, "About 850 labels with the judge do the work of 1,000 alone")


# ----------------------------------------------------------------- lesson 07

def test_07_gives_the_range_of_the_gpt4o_and_llama_judges():
    """Table 2's models, as 12 copies them: every judge not built on FLAN-T5 is GPT-4o or Llama-3."""
    source = (ROOT / "lessons" / "12_judge_vs_assessors.md").read_text(encoding="utf-8")
    cell = re.search(r"^TABLE_2 = \{.*?^\}$", source, re.S | re.M).group(0)
    table = eval(cell.split("=", 1)[1], {"range": range})   # noqa: S307 - the lesson's own literal
    assert set(table) == set(JUDGES)
    binary = {n: sklearn_metrics.cohen_kappa_score(HB[_measured(n)], JUDGES[n][_measured(n)] >= 2)
              for n in JUDGES}
    large = [n for n, (model, _, _) in table.items() if "FLAN-T5" not in model]
    assert all(m.startswith(("GPT-4o", "Llama-3")) for m, _, _ in (table[n] for n in large))
    assert (_two(min(binary[n] for n in large)), _two(max(binary[n] for n in large))) == (
        "0.14", "0.43")
    assert min(binary, key=binary.get) == WORST and "FLAN-T5" in table[WORST][0]
    assert sum(bool(ens) for _, _, ens in table.values()) == 12
    _in(L07, "ranged from 0.14 to 0.43 for the judges built on GPT-4o and Llama-3, and fell to "
             "0.03 for the weakest pipeline", "binary kappas of 0.14 to 0.43 with NIST's assessors")


# ----------------------------------------------------------------- the attack and the spread

def test_the_attack_with_intervals_over_queries():
    probes = json.loads((SAMPLE / "lm_probes.json").read_text(encoding="utf-8"))["probes"]
    p = np.array([[e["p_yes"][v] for v in ("as_is", "query_appended", "claim_appended")]
                  for e in probes])
    order = list(dict.fromkeys(e["qid"] for e in probes))
    g = np.array([order.index(e["qid"]) for e in probes])
    assert np.all(np.bincount(g) == 2)                   # two per query: a mean of query means
    picks = np.random.default_rng(0).integers(0, len(order), size=(10_000, len(order)))

    def ci(values, fmt):
        per_query = np.bincount(g, weights=values) / 2
        stats = per_query[picks].mean(axis=1)
        return tuple(fmt.format(x) for x in (values.mean(), *np.quantile(stats, [0.025, 0.975])))

    assert ci(p[:, 2] - p[:, 0], "{:+.3f}") == ("+0.039", "+0.029", "+0.049")
    assert ci(p[:, 1] - p[:, 0], "{:+.3f}") == ("-0.034", "-0.047", "-0.020")
    assert ci((p[:, 2] > p[:, 0]).astype(float), "{:.2f}") == ("0.84", "0.75", "0.91")
    assert ci((p[:, 0] >= 0.5).astype(float), "{:.2f}") == ("0.25", "0.15", "0.36")
    _in(L12, "(0.84 [0.75, 0.91] of them; a mean change of +0.039 [+0.029, +0.049])",
        "(-0.034 [-0.047, -0.020])", "as they are: 0.25 [0.15, 0.36]")


def test_the_spread_of_the_sampled_judge():
    """Ten draws per pair from the shipped grade distributions, with numpy's own generator: the
    mean standard deviation of a pair's ten grades is about 1.69 whatever the draws."""
    labels = json.loads((SAMPLE / "lm_labels.json").read_text(encoding="utf-8"))["labels"]
    rng = np.random.default_rng(1)
    sds = []
    for row in labels.values():
        p = np.array(row["grade_probabilities"])
        sds.append(rng.choice(5, size=10, p=p / p.sum()).std(ddof=1))
    assert abs(np.mean(sds) - 1.69) < 0.02


# ----------------------------------------------------------------- the notebook says the same

def test_the_solved_notebook_prints_these_numbers():
    import nbformat

    nb = nbformat.read(ROOT / "solutions" / "12_judge_vs_assessors.ipynb", as_version=4)
    out = "\n".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                    for o in c.get("outputs", []) if o.get("output_type") == "stream")
    for printed in ("h2oloo-fewself          0.43 [0.31, 0.53]",
                    "TREMA-rubric0           0.03 [0.01, 0.07]",
                    "h2oloo-fewself  0.09 [0.05, 0.15]  0.27 [0.15, 0.42]  0.54 [0.31, 0.75]",
                    "majority of the 33: binary kappa 0.38 [0.29, 0.46]",
                    "difference +0.04 [-0.01, +0.09]",
                    "kappa lost: 0.039 on average; one split's loss, middle 95%: -0.13 to +0.24",
                    "share of 33 judges, judge only             [0.2717, 0.2865]",
                    "mean change +0.039 [+0.029, +0.049]", "mean change -0.034 [-0.047, -0.020]"):
        assert printed in out, printed
