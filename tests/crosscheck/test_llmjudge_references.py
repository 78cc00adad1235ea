"""The 33 LLMJudge judges: our kappas equal scikit-learn's and the paper's, our PPI ppi-python's."""

import numpy as np
import pytest

import ragmetrics_edu as rm
from ragmetrics_edu.judge import cohen_kappa

sklearn_metrics = pytest.importorskip("sklearn.metrics")
ppi_py = pytest.importorskip("ppi_py")

DATA = rm.load_llmjudge()
HUMAN = DATA.grades()
QUERIES = DATA.query_ids()

# Rahmani et al. 2025 ("Judging the judges", arXiv:2502.13908), Table 4: Cohen's kappa over the
# four grades and binarised at TREC DL's cut (01|23), every released submission, as printed
PAPER_TABLE_4 = {
    "NISTRetrieval-instruct0": (0.1877, 0.3021), "NISTRetrieval-instruct1": (0.1874, 0.3021),
    "NISTRetrieval-instruct2": (0.1880, 0.3013), "NISTRetrieval-reason0": (0.1844, 0.3390),
    "NISTRetrieval-reason1": (0.1845, 0.3394), "NISTRetrieval-reason2": (0.1838, 0.3397),
    "Olz-exp": (0.2519, 0.3577), "Olz-gpt4o": (0.2625, 0.3657), "Olz-halfbin": (0.2064, 0.2587),
    "Olz-multiprompt": (0.2445, 0.3934), "Olz-somebin": (0.2109, 0.3883),
    "RMITIR-GPT4o": (0.2388, 0.3961), "RMITIR-llama38b": (0.2006, 0.3194),
    "RMITIR-llama70B": (0.2654, 0.3916), "TREMA-4prompts": (0.1829, 0.2697),
    "TREMA-CoT": (0.1961, 0.3208), "TREMA-all": (0.1471, 0.2978), "TREMA-direct": (0.1742, 0.3462),
    "TREMA-naiveBdecompose": (0.1741, 0.2916), "TREMA-nuggets": (0.0604, 0.0992),
    "TREMA-other": (0.1408, 0.2015), "TREMA-questions": (0.1137, 0.2876),
    "TREMA-rubric0": (0.0779, 0.0308), "TREMA-sumdecompose": (0.2088, 0.3512),
    "h2oloo-fewself": (0.2774, 0.4280), "h2oloo-zeroshot1": (0.2817, 0.3901),
    "h2oloo-zeroshot2": (0.2589, 0.3278), "prophet-setting1": (0.1823, 0.2903),
    "prophet-setting2": (0.1757, 0.2382), "prophet-setting4": (0.1471, 0.1409),
    "willia-umbrela1": (0.2863, 0.3985), "willia-umbrela2": (0.2688, 0.3421),
    "willia-umbrela3": (0.2741, 0.3447),
}


def test_the_table_lists_every_judge():
    assert set(PAPER_TABLE_4) == set(DATA.judges)


@pytest.mark.parametrize("name", sorted(PAPER_TABLE_4))
def test_every_kappa_equals_scikit_learn(name):
    judge = DATA.grades(name)
    r = rm.grade_agreement(HUMAN, judge, groups=QUERIES, unmeasured="exclude", n_resamples=10)
    kept = [i for i, g in enumerate(judge) if g in (0, 1, 2, 3)]
    h = [HUMAN[i] for i in kept]
    j = [judge[i] for i in kept]
    k = sklearn_metrics.cohen_kappa_score
    assert r.binary.value == pytest.approx(k([x >= 2 for x in h], [x >= 2 for x in j]), abs=1e-12)
    assert r.graded.value == pytest.approx(k(h, j, labels=[0, 1, 2, 3]), abs=1e-12)
    for weights in ("linear", "quadratic"):
        assert getattr(r, weights).value == pytest.approx(
            k(h, j, labels=[0, 1, 2, 3], weights=weights), abs=1e-12)
    hb = [int(x >= 2) for x in h]
    jb = [int(x >= 2) for x in j]
    assert r.tpr.value == pytest.approx(sklearn_metrics.recall_score(hb, jb), abs=1e-12)
    assert r.tnr.value == pytest.approx(sklearn_metrics.recall_score(hb, jb, pos_label=0),
                                        abs=1e-12)
    assert len(r.unmeasured) == len(judge) - len(kept)


@pytest.mark.parametrize("name", sorted(PAPER_TABLE_4))
def test_with_the_papers_convention_the_kappas_are_its_table_4(name):
    """The paper keeps the three grades off the scale (5 and 10 count as relevant, and as a grade
    of their own over four grades): the library's cohen_kappa on all pairs gives its numbers."""
    judge = DATA.grades(name)
    four, binary = PAPER_TABLE_4[name]
    assert cohen_kappa(HUMAN, judge) == pytest.approx(four, abs=1e-4)
    assert cohen_kappa([x >= 2 for x in HUMAN], [x >= 2 for x in judge]) == pytest.approx(
        binary, abs=5e-5)


def _binary(name):
    return np.array([float(g >= 2) for g in DATA.grades(name)])


@pytest.mark.parametrize("judge", ["h2oloo-fewself", "TREMA-rubric0", "share of 33"])
@pytest.mark.parametrize("n", [25, 100, 400])
def test_ppi_equals_ppi_python_on_these_labels(judge, n):
    Y = np.array([float(g >= 2) for g in HUMAN])
    if judge == "share of 33":
        # as lesson 12 computes it: over each pair's measured votes (a grade off the scale is no vote)
        grades = np.array([DATA.grades(name) for name in DATA.judges], dtype=float)
        Yhat = np.nanmean(np.where((grades >= 0) & (grades <= 3), grades >= 2, np.nan), axis=0)
    else:
        Yhat = _binary(judge)
    r = rm.ppi_repeated(Y, Yhat, n=n, repeats=20, lam=None, seed=n)
    plain = rm.ppi_repeated(Y, Yhat, n=n, repeats=20, lam=1, seed=n)
    u = np.random.default_rng(n).random((20, len(Y)))
    for k in range(20):
        labelled = np.argsort(u[k])[:n]
        mask = np.ones(len(Y), bool)
        mask[labelled] = False
        args = (Y[labelled], Yhat[labelled], Yhat[mask])
        for result, lam in ((r, None), (plain, 1)):
            low, high = ppi_py.ppi_mean_ci(*args, alpha=0.1, lam=lam)
            assert (result.low[k], result.high[k]) == pytest.approx(
                (float(low[0]), float(high[0])), abs=1e-9)
            ours = rm.ppi_mean_ci(*args, alpha=0.1, lam=lam)
            assert ours == pytest.approx((float(low[0]), float(high[0])), abs=1e-9)
        low, high = ppi_py.classical_mean_ci(Y[labelled], alpha=0.1)
        assert (r.classical_low[k], r.classical_high[k]) == pytest.approx(
            (float(low), float(high)), abs=1e-9)
        assert rm.ppi_mean_pointestimate(*args, lam=None) == pytest.approx(
            float(np.asarray(ppi_py.ppi_mean_pointestimate(*args, lam=None)).reshape(-1)[0]),
            abs=1e-9)
