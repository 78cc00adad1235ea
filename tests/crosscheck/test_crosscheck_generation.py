"""BLEU and ROUGE against sacrebleu, nltk and Google's rouge-score, on random and real text.

Smoothing names across the three implementations
------------------------------------------------

====================  ===================  ==========================  ========================
ragmetrics_edu        sacrebleu            nltk SmoothingFunction()    Chen & Cherry (2014)
====================  ===================  ==========================  ========================
"none"                "none"               method0                     (no smoothing)
"floor" (0.1)         "floor" (0.1)        method1 (epsilon=0.1)       method 1
"add-k" (1)           "add-k" (1)          method2 (k fixed at 1)      method 2
"exp"                 "exp"                method3                     method 3 (NIST)
"method4" (5)         -                    method4 (k=5)               method 4
"method5"             -                    method5                     method 5
"method6" (5)         -                    method6 (alpha=5)           method 6
"method7" (5)         -                    method7 (k=5)               method 7
====================  ===================  ==========================  ========================

Defaults differ: sacrebleu's ``sentence_bleu`` uses "exp" with the effective
order, its ``corpus_bleu`` "exp"; nltk uses method0 and weights (0.25,)*4;
ours "none" with uniform weights.  Every comparison below states the
options on both sides.

Where nltk and sacrebleu count differently (a candidate shorter than the
n-gram order: nltk 0/1, sacrebleu 0/0), we compare nltk with
``count_empty_orders=True``.  nltk's methods 5-7 read the last segment at
corpus level (see ``corpus_bleu``'s Notes), so they are compared sentence by
sentence, for every ``max_n`` from 1 to 6, and the corpus-level difference
is pinned with numbers in test_corpus_methods_5_to_7_differ_from_nltk.
"""

import random
import warnings

import numpy as np
import pytest

import ragmetrics_edu as rm
from ragmetrics_edu.generation.rouge import rouge_scores
from ragmetrics_edu.generation.text import rouge_tokenize_stemmed

sacrebleu = pytest.importorskip("sacrebleu")
nltk_bleu = pytest.importorskip("nltk.translate.bleu_score")
rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")

TOL = 1e-9

# ours -> (sacrebleu smooth_method, nltk SmoothingFunction method); None: not implemented there
SMOOTHING_MAP = {
    "none": ("none", "method0"),
    "floor": ("floor", "method1"),
    "add-k": ("add-k", "method2"),
    "exp": ("exp", "method3"),
    "method4": (None, "method4"),
    "method5": (None, "method5"),
    "method6": (None, "method6"),
    "method7": (None, "method7"),
}
SACRE = [k for k, (s, _) in SMOOTHING_MAP.items() if s]
NLTK_CORPUS = ["none", "floor", "add-k", "exp", "method4"]
NLTK_SENTENCE = list(SMOOTHING_MAP)

# --------------------------------------------------------------- random text

_VOCAB = [f"w{i}" for i in range(40)] + ["the", "The", "a", "of", "cat", "mat", ".", ","]


def _zipf_words(rng, n):
    weights = 1.0 / np.arange(1, len(_VOCAB) + 1)
    idx = rng.choice(len(_VOCAB), size=n, p=weights / weights.sum())
    return [_VOCAB[i] for i in idx]


def _corpus(seed, n_seg, n_refs, min_len=0, max_len=14, variable_refs=False):
    """Candidates and, per candidate, a list of references (token lists).

    References are noisy copies of the candidate so that higher-order
    n-grams match often.
    """
    rng = np.random.default_rng(seed)
    cands, refs = [], []
    for _ in range(n_seg):
        c = _zipf_words(rng, int(rng.integers(min_len, max_len + 1)))
        rs = []
        for _ in range(int(rng.integers(1, n_refs + 1)) if variable_refs else n_refs):
            r = [w for w in c if rng.random() > 0.25]
            for _ in range(int(rng.integers(0, 4))):
                r.insert(int(rng.integers(0, len(r) + 1)), _zipf_words(rng, 1)[0])
            rs.append(r)
        cands.append(c)
        refs.append(rs)
    return cands, refs


def _streams(refs):
    """Our layout (refs per candidate) -> sacrebleu's (reference streams, None-padded)."""
    k = max(len(r) for r in refs)
    return [[" ".join(r[j]) if j < len(r) else None for r in refs] for j in range(k)]


def _sacre_corpus(cands, refs, smoothing, max_n=4, eff=False):
    m = sacrebleu.BLEU(tokenize="none", smooth_method=smoothing, max_ngram_order=max_n,
                       effective_order=eff)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return m.corpus_score([" ".join(c) for c in cands], _streams(refs))


def _nltk_smoother(name):
    return getattr(nltk_bleu.SmoothingFunction(epsilon=0.1, alpha=5, k=5), name)


# -------------------------------------------------------- corpus BLEU: sacrebleu

@pytest.mark.parametrize("smoothing", SACRE)
@pytest.mark.parametrize("max_n", [1, 2, 4])
@pytest.mark.parametrize("seed", range(3))
def test_corpus_bleu_equals_sacrebleu(smoothing, max_n, seed):
    cands, refs = _corpus(seed, 300, 3, min_len=0, variable_refs=True)
    ours = rm.corpus_bleu(cands, refs, max_n=max_n, smoothing=smoothing)
    theirs = _sacre_corpus(cands, refs, SMOOTHING_MAP[smoothing][0], max_n)
    assert ours.score == pytest.approx(theirs.score / 100, abs=TOL)
    # sacrebleu's add-k adds k into the counts it reports; compare counts unsmoothed
    raw = _sacre_corpus(cands, refs, "none", max_n)
    assert list(ours.counts) == list(raw.counts) and list(ours.totals) == list(raw.totals)
    assert (ours.candidate_len, ours.reference_len) == (theirs.sys_len, theirs.ref_len)
    assert ours.brevity_penalty == pytest.approx(theirs.bp, abs=TOL)


def test_corpus_bleu_strings_equal_sacrebleu_default_call():
    """Plain strings, sacrebleu.corpus_bleu with its default smoothing ("exp") named."""
    cands, refs = _corpus(11, 300, 2)
    c = [" ".join(x) for x in cands]
    streams = _streams(refs)
    theirs = sacrebleu.corpus_bleu(c, streams, tokenize="none")  # smooth_method="exp"
    ours = rm.corpus_bleu(c, [list(r) for r in zip(*streams)], smoothing="exp")
    assert ours.score == pytest.approx(theirs.score / 100, abs=TOL)


@pytest.mark.parametrize("smoothing", SACRE)
@pytest.mark.parametrize("eff", [False, True])
def test_sentence_bleu_equals_sacrebleu(smoothing, eff):
    cands, refs = _corpus(5, 300, 2, min_len=0, max_len=8)
    for c, r in zip(cands, refs):
        theirs = sacrebleu.sentence_bleu(" ".join(c), [" ".join(x) for x in r],
                                         smooth_method=SMOOTHING_MAP[smoothing][0],
                                         tokenize="none", use_effective_order=eff)
        ours = rm.bleu(c, r, smoothing=smoothing, effective_order=eff)
        assert ours.score == pytest.approx(theirs.score / 100, abs=TOL), (c, r)


def test_sentence_bleu_equals_sacrebleu_defaults():
    """sacrebleu.sentence_bleu's defaults are smoothing "exp" and the effective order."""
    cands, refs = _corpus(6, 200, 1, min_len=1, max_len=6)
    for c, r in zip(cands, refs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = sacrebleu.sentence_bleu(" ".join(c), [" ".join(r[0])], tokenize="none")
        ours = rm.bleu(c, r, smoothing="exp", effective_order=True)
        assert ours.score == pytest.approx(theirs.score / 100, abs=TOL)


def test_floor_and_add_k_values_equal_sacrebleu():
    cands, refs = _corpus(8, 200, 2, min_len=2)
    for smoothing, value in [("floor", 0.3), ("add-k", 2.0)]:
        ours = rm.corpus_bleu(cands, refs, smoothing=smoothing, smooth_value=value)
        m = sacrebleu.BLEU(tokenize="none", smooth_method=smoothing, smooth_value=value)
        theirs = m.corpus_score([" ".join(c) for c in cands], _streams(refs))
        assert ours.score == pytest.approx(theirs.score / 100, abs=TOL)


# ------------------------------------------------------------ BLEU: nltk

@pytest.mark.parametrize("smoothing", NLTK_CORPUS)
@pytest.mark.parametrize("seed", range(3))
def test_corpus_bleu_equals_nltk(smoothing, seed):
    cands, refs = _corpus(100 + seed, 300, 3, min_len=0, variable_refs=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = nltk_bleu.corpus_bleu(refs, cands,
                                       smoothing_function=_nltk_smoother(SMOOTHING_MAP[smoothing][1]))
    ours = rm.corpus_bleu(cands, refs, smoothing=smoothing, count_empty_orders=True)
    assert ours.score == pytest.approx(theirs, abs=TOL)


@pytest.mark.parametrize("weights", [(1.0,), (0.5, 0.5), (0.2, 0.3, 0.5), (0.1, 0.2, 0.3, 0.4)])
def test_corpus_bleu_weights_equal_nltk(weights):
    cands, refs = _corpus(21, 300, 2, min_len=4)
    theirs = nltk_bleu.corpus_bleu(refs, cands, weights=weights,
                                   smoothing_function=_nltk_smoother("method1"))
    ours = rm.corpus_bleu(cands, refs, max_n=len(weights), weights=weights, smoothing="floor")
    assert ours.score == pytest.approx(theirs, abs=TOL)


# nltk's method6 reads p_3 (assert p_n[2]): an IndexError for max_n < 3
NLTK_SENTENCE_CASES = [(s, n) for s in NLTK_SENTENCE for n in range(1, 7)
                       if not (s == "method6" and n < 3)]


def _nltk_sentence(r, c, method, max_n):
    """nltk's sentence_bleu with the uniform weights of BLEU-max_n."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return nltk_bleu.sentence_bleu(r, c, weights=(1 / max_n,) * max_n,
                                       smoothing_function=_nltk_smoother(method))


@pytest.mark.parametrize("smoothing, max_n", NLTK_SENTENCE_CASES)
def test_sentence_bleu_equals_nltk(smoothing, max_n):
    """Sentence by sentence, every nltk method and max_n 1..6 (candidates of 4+ tokens)."""
    cands, refs = _corpus(31, 400, 2, min_len=4, max_len=12)
    method = SMOOTHING_MAP[smoothing][1]
    checked = 0
    for c, r in zip(cands, refs):
        if smoothing == "method6" and rm.modified_precision(c, r, n=3) == 0:
            continue  # nltk's method6 refuses a zero trigram precision
        theirs = _nltk_sentence(r, c, method, max_n)
        ours = rm.bleu(c, r, max_n=max_n, smoothing=smoothing, count_empty_orders=True)
        assert ours.score == pytest.approx(theirs, abs=TOL), (c, r)
        checked += 1
    assert checked >= 100


@pytest.mark.parametrize("smoothing, max_n", NLTK_SENTENCE_CASES)
def test_sentence_bleu_short_candidates_equal_nltk(smoothing, max_n):
    """Candidates of 1-3 tokens (mostly shorter than max_n), nltk's 0/1 counting.

    Two documented differences (Notes of ``bleu``): nltk's method6 refuses a
    zero trigram precision (skipped here), and nltk's method4 does not smooth
    a 1-token candidate (ln 1 = 0) and then drops its zero precisions from the
    geometric mean, where we score 0.
    """
    cands, refs = _corpus(71, 300, 2, min_len=1, max_len=3)
    method = SMOOTHING_MAP[smoothing][1]
    checked = 0
    for c, r in zip(cands, refs):
        if smoothing == "method6" and rm.modified_precision(c, r, n=3) == 0:
            continue  # nltk's method6 refuses a zero trigram precision
        theirs = _nltk_sentence(r, c, method, max_n)
        ours = rm.bleu(c, r, max_n=max_n, smoothing=smoothing, count_empty_orders=True)
        if smoothing == "method4" and max_n > 1 and len(c) == 1 and ours.counts[0] == 1:
            # nltk keeps only p_1 = 1/1: BP * exp(w_1 * ln 1) = BP
            assert ours.score == 0.0
            assert theirs == pytest.approx(ours.brevity_penalty, abs=TOL)
            continue
        assert ours.score == pytest.approx(theirs, abs=TOL), (c, r)
        checked += 1
    assert checked >= (40 if smoothing == "method6" else 100)


@pytest.mark.parametrize("max_n", range(1, 7))
def test_method5_and_7_next_order_is_p5_as_nltk(max_n):
    """nltk's method5 averages the last order with the 5-gram precision for every max_n.

    Hand values for max_n = 2 (test_bleu): p_1 = 6/7, p_2 = 1, p_5 = 0,
    BLEU = sqrt(26/21 * 47/63) = 0.96107; reading p_3 = 3/5 instead gave 1.0823.
    """
    c = "the cat sat on the mat today".split()
    r = ["the cat sat on a mat today".split(), "a cat was on the mat".split()]
    for smoothing in ("method5", "method7"):
        theirs = _nltk_sentence(r, c, smoothing, max_n)
        ours = rm.bleu(c, r, max_n=max_n, smoothing=smoothing)
        assert ours.score == pytest.approx(theirs, abs=TOL)
    if max_n == 2:
        assert theirs == pytest.approx(np.sqrt(26 / 21 * 47 / 63), abs=TOL)


def test_scores_above_one_as_nltk():
    """Methods 5-7 interpolate and can exceed 1; nltk gives the same numbers."""
    for smoothing in ("method5", "method7"):
        theirs = _nltk_sentence([list("abcd")], list("abcd"), smoothing, 4)
        ours = rm.bleu(list("abcd"), [list("abcd")], smoothing=smoothing)
        # (4/3 * 10/9 * 28/27 * 55/81) ** (1/4), by hand in test_bleu
        assert round(theirs, 4) == 1.0106
        assert ours.score == pytest.approx(theirs, abs=TOL)
    # method6: "b a c b" against "a c b a c" and "c a c" (r = 3, BP = 1):
    # p_1 = 3/4 ("b" clipped to 1), p_2 = 3/3, so the prior p_2^2 / p_1 = 4/3 > 1
    # lifts p_3 = (2 + 5 * 4/3)/(2 + 5) = 26/21 and p_4 = (0 + 5 (26/21)^2)/(1 + 5)
    c, r = list("bacb"), [list("acbac"), list("cac")]
    theirs = _nltk_sentence(r, c, "method6", 4)
    ours = rm.bleu(c, r, smoothing="method6", count_empty_orders=True)
    expected = (3 / 4 * 1 * 26 / 21 * 5 * (26 / 21) ** 2 / 6) ** 0.25
    assert theirs == pytest.approx(expected, abs=TOL) and round(theirs, 4) == 1.0436
    assert ours.score == pytest.approx(expected, abs=TOL)


def test_corpus_methods_5_to_7_differ_from_nltk():
    """nltk's corpus_bleu smooths with the *last* segment's p_5 and n-gram counts.

    Segments "a b c d e" (reference the same: p_5 = 1/1) and "a x y z w"
    (reference "a q r s t": only "a" matches, p_5 = 0/1).  Corpus: p_1..p_5
    = 6/10, 4/8, 3/6, 2/4, 1/2; 10 tokens each side, BP = 1.  method5:
    p'_1 = (1.6 + 0.6 + 0.5)/3 = 0.9, p'_2 = (0.9 + 1)/3 = 19/30,
    p'_3 = (19/30 + 1)/3 = 49/90, p'_4 = (49/90 + 0.5 + p_5)/3 with p_5 the
    corpus 1/2 (ours), or the last segment's 0 or 1 (nltk, by segment order).
    """
    a, ra = "a b c d e".split(), ["a b c d e".split()]
    b, rb = "a x y z w".split(), [["a", "q", "r", "s", "t"]]

    def bleu4(p4):
        return (0.9 * 19 / 30 * 49 / 90 * p4) ** 0.25

    for smoothing in ("method5", "method7"):   # method7: method4 finds no zero here
        smoother = _nltk_smoother(smoothing)
        last_b = nltk_bleu.corpus_bleu([ra, rb], [a, b], smoothing_function=smoother)
        last_a = nltk_bleu.corpus_bleu([rb, ra], [b, a], smoothing_function=smoother)
        assert last_b == pytest.approx(bleu4((49 / 90 + 0.5 + 0) / 3), abs=TOL)   # 0.5733
        assert last_a == pytest.approx(bleu4((49 / 90 + 0.5 + 1) / 3), abs=TOL)   # 0.6781
        for order in ([a, b], [b, a]):
            refs = [ra if c is a else rb for c in order]
            ours = rm.corpus_bleu(order, refs, smoothing=smoothing)
            assert ours.score == pytest.approx(bleu4((49 / 90 + 0.5 + 0.5) / 3), abs=TOL)  # 0.6322
    # method6: p_3 = (m_3 + 5 pi)/(t_3 + 5), pi = p_2^2 / p_1 = 0.25/0.6; nltk divides
    # the corpus m_3 = 3 by the last segment's 3 trigrams, ours by the corpus 6
    pi3 = 0.25 / 0.6
    p3_nltk = (3 + 5 * pi3) / (3 + 5)
    p3_ours = (3 + 5 * pi3) / (6 + 5)
    p4_nltk = (2 + 5 * p3_nltk ** 2 / 0.5) / (2 + 5)
    p4_ours = (2 + 5 * p3_ours ** 2 / 0.5) / (4 + 5)
    theirs = nltk_bleu.corpus_bleu([ra, rb], [a, b], smoothing_function=_nltk_smoother("method6"))
    ours = rm.corpus_bleu([a, b], [ra, rb], smoothing="method6")
    assert theirs == pytest.approx((0.6 * 0.5 * p3_nltk * p4_nltk) ** 0.25, abs=TOL)  # 0.6368
    assert ours.score == pytest.approx((0.6 * 0.5 * p3_ours * p4_ours) ** 0.25, abs=TOL)  # 0.5024
    # on one segment (sentence BLEU) the two agree
    for smoothing in ("method5", "method6", "method7"):
        theirs = nltk_bleu.corpus_bleu([ra], [a], smoothing_function=_nltk_smoother(smoothing))
        assert rm.corpus_bleu([a], [ra], smoothing=smoothing).score == pytest.approx(theirs, abs=TOL)


def test_method6_three_token_candidate_equals_nltk():
    # a 3-token candidate has no 4-gram: nltk's method6 interpolates p_4 with
    # the true count l = 0, so p_4 = (0 + 5 pi) / (0 + 5) = pi = p_3^2 / p_2 = 1
    # and BLEU = BP = exp(1 - 4/3) = 0.7165 (not (5/6)^(1/4) * BP = 0.6846)
    c, r = ["a", "b", "c"], [["a", "b", "c", "d"]]
    theirs = nltk_bleu.sentence_bleu(r, c, smoothing_function=_nltk_smoother("method6"))
    assert theirs == pytest.approx(np.exp(1 - 4 / 3), abs=TOL)
    ours = rm.bleu(c, r, smoothing="method6", count_empty_orders=True)
    assert ours.score == pytest.approx(theirs, abs=TOL)
    assert rm.bleu(c, r, smoothing="method6").score == pytest.approx(theirs, abs=TOL)


@pytest.mark.parametrize("smoothing", ["none", "floor", "exp"])
def test_effective_order_equals_nltk_auto_reweigh(smoothing):
    """nltk's auto_reweigh (uniform weights over the candidate's orders) on short candidates."""
    cands, refs = _corpus(41, 300, 2, min_len=1, max_len=5)
    method = SMOOTHING_MAP[smoothing][1]
    for c, r in zip(cands, refs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = nltk_bleu.sentence_bleu(r, c, smoothing_function=_nltk_smoother(method),
                                             auto_reweigh=True)
        ours = rm.bleu(c, r, smoothing=smoothing, effective_order=True)
        assert ours.score == pytest.approx(theirs, abs=TOL), (c, r)


def test_modified_precision_and_brevity_penalty_equal_nltk():
    cands, refs = _corpus(51, 300, 3, min_len=0)
    for c, r in zip(cands, refs):
        for n in (1, 2, 3, 4):
            f = nltk_bleu.modified_precision(r, c, n)
            got = rm.modified_precision(c, r, n=n, return_counts=True)
            assert got.clipped == f.numerator
            assert max(1, got.total) == f.denominator  # nltk floors the denominator at 1
        closest = nltk_bleu.closest_ref_length(r, len(c))
        assert rm.bleu(c, r).reference_len == closest
        if c:
            assert rm.brevity_penalty(len(c), [len(x) for x in r]) == pytest.approx(
                nltk_bleu.brevity_penalty(closest, len(c)), abs=TOL)


def test_nltk_and_sacrebleu_agree_with_us_on_long_candidates():
    """With every candidate at least max_n long the counting conventions coincide."""
    cands, refs = _corpus(61, 300, 2, min_len=4)
    ours = rm.corpus_bleu(cands, refs)
    a = nltk_bleu.corpus_bleu(refs, cands)
    b = _sacre_corpus(cands, refs, "none").score / 100
    assert ours.score == pytest.approx(a, abs=TOL) and ours.score == pytest.approx(b, abs=TOL)


# --------------------------------------------------------------- ROUGE

REAL = [
    "I really loved reading the Hunger Games",
    "I loved reading the Hunger Games",
    "The Hunger Games is a great read. I loved it.",
    "I gave Hunger Games 5 stars because I simply could not put it down!",
    "The characters are superb, and the writing keeps you on the edge of your seat.",
    "Retrieval-augmented generation grounds a model's answers in retrieved documents.",
    "The retriever returns the top-k passages; the generator reads them.",
    "Evaluation compares generated answers with human-written references.",
    "BLEU counts clipped n-gram matches and applies a brevity penalty.",
    "ROUGE was designed for summarization and is recall oriented.",
    "The cats were running quickly across the gardens, chasing butterflies.",
    "A cat ran across the garden and chased a butterfly.",
    "Running, runs, ran: stemming maps related words onto one stem.",
    "Generously, the committee agreed to the conditional proposals.",
    "It's 2024 -- prices rose 3.5% while wages grew by 2%.",
    "Naïve café owners serve crème brûlée at 9am.",
    "the the the the the",
    "Is this the real life? Is this just fantasy?",
]


def _random_texts(seed, n):
    rng = random.Random(seed)
    words = " ".join(REAL).split() + ["a", "b", "c"]
    out = []
    for _ in range(n):
        lines = []
        for _ in range(rng.randint(1, 3)):
            lines.append(" ".join(rng.choice(words) for _ in range(rng.randint(0, 12))))
        out.append("\n".join(lines))
    return out


def _pairs(seed, n):
    rng = random.Random(seed)
    texts = _random_texts(seed, n)
    pairs = [(rng.choice(REAL), rng.choice(REAL)) for _ in range(60)]
    for t in texts:
        u = t.split()
        rng.shuffle(u)
        # a partly shuffled copy, so that bigrams and LCS sometimes match
        other = t if rng.random() < 0.5 else " ".join(u[: len(u) // 2]) + "\n" + t[: len(t) // 2]
        pairs.append((t, other))
    return pairs


VARIANTS = ["rouge1", "rouge2", "rouge3", "rougeL", "rougeLsum"]


@pytest.mark.parametrize("stem", [False, True])
def test_rouge_equals_rouge_score(stem):
    scorer = rouge_scorer.RougeScorer(VARIANTS, use_stemmer=stem)
    tok = rouge_tokenize_stemmed if stem else rm.rouge_tokenize
    for cand, ref in _pairs(1 + stem, 300):
        theirs = scorer.score(ref, cand)
        ours = rouge_scores(cand, ref, variants=VARIANTS, tokenizer=tok)
        for v in VARIANTS:
            t, o = theirs[v], ours[v]
            assert (o.precision, o.recall, o.fmeasure) == pytest.approx(
                (t.precision, t.recall, t.fmeasure), abs=TOL), (v, cand, ref)


@pytest.mark.parametrize("stem", [False, True])
def test_rouge_single_functions_equal_rouge_score(stem):
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], use_stemmer=stem)
    tok = rouge_tokenize_stemmed if stem else rm.rouge_tokenize
    for cand, ref in _pairs(10 + stem, 200):
        t = scorer.score(ref, cand)
        for name, o in [("rouge1", rm.rouge_n(cand, ref, n=1, tokenizer=tok)),
                        ("rouge2", rm.rouge_n(cand, ref, n=2, tokenizer=tok)),
                        ("rougeL", rm.rouge_l(cand, ref, tokenizer=tok)),
                        ("rougeLsum", rm.rouge_lsum(cand, ref, tokenizer=tok))]:
            assert o.fmeasure == pytest.approx(t[name].fmeasure, abs=TOL)
            assert o.precision == pytest.approx(t[name].precision, abs=TOL)
            assert o.recall == pytest.approx(t[name].recall, abs=TOL)


def test_multi_reference_best_f_equals_score_multi():
    scorer = rouge_scorer.RougeScorer(VARIANTS)
    rng = random.Random(3)
    texts = _random_texts(3, 300) + REAL
    for _ in range(300):
        cand = rng.choice(texts)
        refs = [rng.choice(texts) for _ in range(rng.randint(1, 4))]
        theirs = scorer.score_multi(refs, cand)
        ours = rouge_scores(cand, refs, variants=VARIANTS, tokenizer=rm.rouge_tokenize)
        for v in VARIANTS:
            assert (ours[v].precision, ours[v].recall, ours[v].fmeasure) == pytest.approx(
                tuple(theirs[v]), abs=TOL)


def test_rouge_slides_example_equals_rouge_score():
    """The slides' numbers by rouge-score: P1 = 6/7, R1 = 1 (the slide swaps them)."""
    t = rouge_scorer.RougeScorer(["rouge1", "rouge2"]).score(
        "I loved reading the Hunger Games", "I really loved reading the Hunger Games")
    ours1 = rm.rouge_n("I really loved reading the Hunger Games", "I loved reading the Hunger Games", n=1)
    ours2 = rm.rouge_n("I really loved reading the Hunger Games", "I loved reading the Hunger Games", n=2)
    assert (ours1.precision, ours1.recall) == pytest.approx((t["rouge1"].precision, t["rouge1"].recall))
    assert (ours2.precision, ours2.recall) == pytest.approx((t["rouge2"].precision, t["rouge2"].recall))


# --------------------------------------------------------------- BERTScore truncation

def test_bertscore_truncation_as_bert_score_within_positions(monkeypatch):
    """Long texts are cut where bert-score cuts them, never past the position embeddings.

    bert-score truncates at ``tokenizer.model_max_length`` (its ``sent_encode``);
    so do we.  A tokenizer that sets no length reports about 1e30: we then cut at
    the model's ``max_position_embeddings`` (512 for MiniLM), where the old
    ``min(model_max_length, 4096)`` let 1,002 word pieces reach a model with 512
    positions (a RuntimeError in the embeddings).  bert-score itself cannot run
    such a tokenizer (its max_length=1e30 overflows the fast tokenizer), so the
    cap never parts us from a number bert-score gives.
    """
    pytest.importorskip("torch")
    bert_utils = pytest.importorskip("bert_score.utils")
    from ragmetrics_edu.models import loading as _models

    tokenizer, encoder = _models.load_model()
    long_text = " ".join(["word"] * 1000)   # 1,000 word pieces + [CLS] + [SEP]
    ids = _models.encode_ids([long_text])[0]
    assert ids == bert_utils.sent_encode(tokenizer, long_text)
    assert len(ids) == tokenizer.model_max_length == encoder.config.max_position_embeddings == 512

    monkeypatch.setattr(tokenizer, "model_max_length", int(1e30))
    ids = _models.encode_ids([long_text, "a short text"])
    assert len(ids[0]) == 512
    assert ids[1] == tokenizer.encode("a short text")       # nothing to cut
    result = rm.bertscore([long_text], [long_text])                      # ran past 512 before
    assert result.f1[0] == pytest.approx(1.0, abs=1e-5)


def test_bertscore_length_limit_counts_roberta_padding_offset():
    """RoBERTa numbers positions from padding_idx + 1: 2 of its positions are unusable."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from types import SimpleNamespace

    from ragmetrics_edu.models.loading import _max_input_length

    no_length = SimpleNamespace(model_max_length=int(1e30))
    small = dict(vocab_size=50, hidden_size=8, num_hidden_layers=1, num_attention_heads=2,
                 intermediate_size=8, max_position_embeddings=20)
    roberta = transformers.RobertaModel(transformers.RobertaConfig(pad_token_id=1, **small)).eval()
    bert = transformers.BertModel(transformers.BertConfig(**small)).eval()
    assert _max_input_length(no_length, roberta) == 20 - 2
    assert _max_input_length(no_length, bert) == 20
    assert _max_input_length(SimpleNamespace(model_max_length=16), roberta) == 16  # the tokenizer's
    for model, limit in ((roberta, 18), (bert, 20)):
        with torch.no_grad():
            model(input_ids=torch.full((1, limit), 5))           # fits
            with pytest.raises((IndexError, RuntimeError)):
                model(input_ids=torch.full((1, limit + 1), 5))   # one more does not
