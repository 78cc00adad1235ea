"""Widgets of the generation notebooks (04 n-gram overlap, 06 BERTScore).

Expected values come from hand arithmetic (written beside them), the slides,
or sacrebleu / rouge-score.  The widgets are driven from Python: set a
control's value, read the numbers they display.
"""

import math
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragmetrics_edu.course.widgets import ngram as ng

REF_36 = "I am thirty six years old"


def shown(table, key):
    """The text of the ``<td data-key=key>`` cell of an HTML table."""
    m = re.search(rf'data-key="{re.escape(key)}"[^>]*>([^<]*)<', table)
    assert m, f"no cell {key!r} in the table"
    return m.group(1)


# ---------------------------------------------------------------------------
# ngram_overlap: the pure computation
# ---------------------------------------------------------------------------

def test_reordered_sentence_counts_by_hand():
    r = ng.ngram_overlap("thirty six years have I", REF_36)
    o = r.orders
    # unigrams: thirty six years I are in the reference, have is not: 4/5
    assert (o[0].clipped, o[0].total) == (4, 5)
    assert o[0].status == ("match", "match", "match", "miss", "match")
    # bigrams: "thirty six", "six years" yes; "years have", "have I" no: 2/4
    assert (o[1].clipped, o[1].total) == (2, 4)
    # trigrams: only "thirty six years": 1/3
    assert (o[2].clipped, o[2].total) == (1, 3)
    # 4-grams: "thirty six years have", "six years have I": 0/2 (the slide's 0/5 is erratum 3)
    assert (o[3].clipped, o[3].total) == (0, 2)
    # thirty six years sit in a matched trigram, have in nothing, I is a lone unigram
    assert r.token_order == (3, 3, 3, 0, 1)
    # reference: I(1) am(0) thirty six years(3) old(0)
    assert r.reference_order == ((1, 0, 3, 3, 3, 0),)
    # c = 5, r = 6: BP = exp(1 - 6/5) = exp(-0.2) = 0.818730753
    assert (r.candidate_len, r.reference_len) == (5, 6)
    assert r.brevity_penalty == pytest.approx(math.exp(-0.2), abs=1e-12)
    # no 4-gram matches: BLEU-4 without smoothing is 0
    assert r.bleu == 0.0
    assert "4-gram" in r.bleu_reason
    # ROUGE-1: 4 matches, P = 4/5, R = 4/6; ROUGE-2: P = 2/4, R = 2/5
    assert r.rouge["rouge1"][:2] == pytest.approx((4 / 5, 4 / 6))
    assert r.rouge["rouge2"][:2] == pytest.approx((2 / 4, 2 / 5))
    # ROUGE-L: LCS "thirty six years" = 3: P = 3/5, R = 3/6, F = 2PR/(P+R) = 0.36/0.66
    assert r.rouge["rougeL"] == pytest.approx((0.6, 0.5, 2 * 0.6 * 0.5 / 1.1))


def test_six_six_six_is_clipped_to_one():
    r = ng.ngram_overlap("six six six six six", REF_36, max_n=1)
    o = r.orders[0]
    # "six" is 5 times in the candidate, once in the reference: min(5, 1) = 1 of 5
    assert (o.clipped, o.unclipped, o.total) == (1, 5, 5)
    assert o.status == ("match",) + ("clipped",) * 4
    assert o.precision == 0.2
    assert r.token_order == (1, 0, 0, 0, 0)
    assert r.token_clipped == (False, True, True, True, True)
    # BLEU-1 = 0.2 * exp(1 - 6/5) = 0.2 * 0.818730753 = 0.163746151
    assert r.bleu == pytest.approx(0.2 * math.exp(-0.2), abs=1e-12)


def test_slides_bleu1_with_brevity_penalty():
    # erratum 10: 4/5 is p1; BLEU-1 = 0.8 * exp(1 - 6/5) = 0.654984602
    r = ng.ngram_overlap("I have thirty six years", REF_36, max_n=1)
    assert r.orders[0].precision == 0.8
    assert r.bleu == pytest.approx(0.8 * math.exp(-0.2), abs=1e-12)
    assert round(r.bleu, 4) == 0.6550


def test_hunger_games_rouge():
    # erratum 2: 6 matches; 7 candidate unigrams, 6 reference unigrams
    r = ng.ngram_overlap("I really loved reading the Hunger Games",
                         "I loved reading the Hunger Games")
    assert r.rouge["rouge1"][:2] == pytest.approx((6 / 7, 6 / 6))
    # ROUGE-2: 4 of 6 candidate bigrams, 4 of 5 reference bigrams
    assert r.rouge["rouge2"][:2] == pytest.approx((4 / 6, 4 / 5))
    # c = 7 >= r = 6: no brevity penalty
    assert r.brevity_penalty == 1.0
    # "loved reading the Hunger Games" is a matched 5-gram, shown at the top order 4
    assert r.token_order == (1, 0, 4, 4, 4, 4, 4)


def test_clipping_takes_the_maximum_over_references():
    # "the" 3 times in the candidate; at most 2 times in one reference: 2 + cat 1 = 3/4
    r = ng.ngram_overlap("the the the cat", ["the cat the", "the mat"], max_n=2)
    assert r.orders[0].status == ("match", "match", "clipped", "match")
    assert (r.orders[0].clipped, r.orders[0].unclipped) == (3, 4)
    # bigrams: "the the" in no reference (twice), "the cat" once: 1/3
    assert (r.orders[1].clipped, r.orders[1].total) == (1, 3)
    # c = 4, reference lengths 3 and 2: the closest is 3, BP = 1
    assert r.reference_len == 3 and r.brevity_penalty == 1.0


def test_tokenizer_choice_changes_the_matches():
    ws = ng.ngram_overlap("The Cat.", "the cat", max_n=1)
    assert ws.orders[0].clipped == 0           # "The" != "the", "Cat." != "cat"
    rg = ng.ngram_overlap("The Cat.", "the cat", max_n=1, tokenizer="rouge")
    assert rg.candidate_tokens == ("the", "cat")
    assert (rg.orders[0].clipped, rg.orders[0].total) == (2, 2)
    assert rg.bleu == 1.0                      # p1 = 1, c = r = 2


def test_chrf_by_hand_on_a_typo():
    # "cat" against "cats", spaces none: order 1 P = 3/3, R = 3/4; order 2 P = 2/2, R = 2/3;
    # order 3 P = 1/1, R = 1/2; orders 4-6: the candidate has none, left out.
    # P = 1, R = (3/4 + 2/3 + 1/2) / 3 = 23/36; chrF = 5 P R / (4 P + R) = (115/36) / (167/36)
    r = ng.ngram_overlap("cat", "cats")
    assert r.chrf == pytest.approx(115 / 167, abs=1e-12)
    assert r.orders[0].clipped == 0  # no word in common: the word n-grams see nothing
    assert 'data-key="chrf"' in ng.table_html(r)


def test_empty_candidate_is_defined():
    r = ng.ngram_overlap("", REF_36)
    assert r.candidate_tokens == ()
    assert all(o.total == 0 and o.precision == 0.0 for o in r.orders)
    assert r.bleu == 0.0 and r.brevity_penalty == 0.0


@pytest.mark.parametrize("kwargs, message", [
    (dict(max_n=0), "max_n must be a positive integer, got 0"),
    (dict(max_n=5), "max_n must be at most 4, got 5"),
    (dict(tokenizer="spacy"), "tokenizer must be one of"),
])
def test_bad_arguments_name_the_argument(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=re.escape(message)):
        ng.ngram_overlap("a b", "a b", **kwargs)


def test_bad_references():
    with pytest.raises(ValueError, match="references"):
        ng.ngram_overlap("a b", [])


def _random_sentence(rng, vocab, lo, hi):
    return " ".join(rng.choice(vocab) for _ in range(rng.randint(lo, hi)))


def test_counts_and_scores_agree_with_sacrebleu_and_rouge_score():
    sacrebleu = pytest.importorskip("sacrebleu")
    rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"])
    rng = random.Random(20240604)
    vocab = "a b c d e f the cat sat on mat".split()
    for _ in range(150):
        cand = _random_sentence(rng, vocab, 0, 12)
        refs = [_random_sentence(rng, vocab, 1, 12) for _ in range(rng.randint(1, 3))]
        r = ng.ngram_overlap(cand, refs)
        sb = sacrebleu.sentence_bleu(cand, refs, tokenize="none", smooth_method="none",
                                     use_effective_order=False)
        assert [o.clipped for o in r.orders] == list(sb.counts), (cand, refs)
        assert [o.total for o in r.orders] == list(sb.totals), (cand, refs)
        assert (r.candidate_len, r.reference_len) == (sb.sys_len, sb.ref_len)
        assert r.bleu == pytest.approx(sb.score / 100, abs=1e-9), (cand, refs)
        chrf = sacrebleu.sentence_chrf(cand, refs)  # character 1-6, beta 2, best reference
        assert r.chrf == pytest.approx(chrf.score / 100, abs=1e-9), (cand, refs)
        # every marked match is a real match: the statuses add up to the counts
        for o in r.orders:
            assert o.status.count("match") == o.clipped
            assert len(o.status) == o.total
        # ROUGE, one reference (the vocabulary is already lowercase alphanumeric)
        single = ng.ngram_overlap(cand, refs[0])
        gs = scorer.score(refs[0], cand)
        for key in ("rouge1", "rouge2", "rougeL"):
            expected = (gs[key].precision, gs[key].recall, gs[key].fmeasure)
            assert single.rouge[key] == pytest.approx(expected, abs=1e-9), (key, cand, refs[0])


_words = st.lists(st.sampled_from("a b c the cat".split()), max_size=9)


@settings(max_examples=150, deadline=None)
@given(cand=_words, refs=st.lists(_words.filter(bool), min_size=1, max_size=3))
def test_matches_are_consistent_with_the_counts(cand, refs):
    import ragmetrics_edu as rm

    r = ng.ngram_overlap(" ".join(cand), [" ".join(x) for x in refs])
    for o in r.orders:
        # clipped <= unclipped <= total, and the library counts the same clipped matches
        assert 0 <= o.clipped <= o.unclipped <= o.total == max(0, len(cand) - o.n + 1)
        pc = rm.modified_precision(cand, refs, n=o.n, return_counts=True)
        assert (o.clipped, o.total) == (pc.clipped, pc.total)
    # a token is coloured n only if an n-gram covering it is counted; orders are 0..max_n
    assert all(0 <= t <= r.max_n for t in r.token_order)
    assert sum(t > 0 for t in r.token_order) >= r.orders[0].clipped
    # clipped tokens are unigrams found in a reference
    assert all(cand[i] in {w for x in refs for w in x} for i, c in enumerate(r.token_clipped) if c)


# ---------------------------------------------------------------------------
# the HTML
# ---------------------------------------------------------------------------

def test_table_shows_the_numbers():
    r = ng.ngram_overlap("I have thirty six years", REF_36, max_n=2)
    t = ng.table_html(r)
    assert (shown(t, "clip1"), shown(t, "total1"), shown(t, "p1")) == ("4", "5", "0.8000")
    # bigrams: "thirty six", "six years" of 4 ("I have", "have thirty" miss)
    assert (shown(t, "clip2"), shown(t, "total2"), shown(t, "p2")) == ("2", "4", "0.5000")
    assert shown(t, "bp") == "0.8187"
    # BLEU-2 = 0.8187 * sqrt(0.8 * 0.5) = 0.8187 * 0.632456 = 0.5178
    assert shown(t, "bleu") == "0.5178"
    assert 'data-key="clip3"' not in t


def test_highlight_says_in_text_what_each_colour_means():
    """Meaning never rests on colour alone: every coloured token carries a text label."""
    import re

    # "I have thirty six years" against "I am thirty six years old": "thirty six years"
    # is a matched 3-gram (3), "I" a matched unigram (1), "have" in no reference.
    r = ng.ngram_overlap("I have thirty six years", REF_36, max_n=3)
    body = ng.highlight_html(r).split("<b>candidate:</b>")[1].split("reference 1")[0]
    cues = re.findall(r'>([^<>]+)<small class="ngram-cue"[^>]*>([^<]+)</small>', body)
    assert cues == [("I", "1"), ("thirty", "3"), ("six", "3"), ("years", "3")]
    assert ">have</span>" in body  # unmatched: no colour, no label
    r = ng.ngram_overlap("six six six six six", REF_36, max_n=1)
    body = ng.highlight_html(r).split("<b>candidate:</b>")[1].split("reference 1")[0]
    assert body.count('class="ngram-cue"') == 5   # one matched six (1), four clipped
    assert body.count(">clipped</small>") == 4
    legend = ng.highlight_html(r).split("<b>candidate:</b>")[0]
    assert "in a matched 1-gram" in legend and ">1</small>" in legend
    assert ">clipped</small>" in legend


def test_highlight_strikes_clipped_tokens_and_escapes_html():
    r = ng.ngram_overlap("six six six six six", REF_36, max_n=1)
    h = ng.highlight_html(r)
    body = h.split("<b>candidate:</b>")[1].split("reference 1")[0]
    assert body.count("line-through") == 4          # four clipped copies
    r = ng.ngram_overlap("<b>bold</b> x", "<b>bold</b> y", max_n=1)
    h = ng.highlight_html(r)
    assert "&lt;b&gt;bold&lt;/b&gt;" in h and "<b>bold</b>" not in h


# ---------------------------------------------------------------------------
# the widget, driven from Python
# ---------------------------------------------------------------------------

def test_explorer_updates_as_you_type():
    pytest.importorskip("ipywidgets")
    w = ng.ngram_overlap_explorer()
    # the default is the slides' reordered sentence: BLEU-4 = 0, p4 = 0/2
    assert (shown(w.table.value, "clip4"), shown(w.table.value, "total4")) == ("0", "2")
    assert shown(w.table.value, "bleu") == "0.0000"
    for control in (w.candidate, w.references, w.max_n):
        assert control.continuous_update is False

    w.candidate.value = "six six six six six"
    assert (shown(w.table.value, "clip1"), shown(w.table.value, "unclip1")) == ("1", "5")
    assert shown(w.table.value, "p1") == "0.2000"
    assert w.values.orders[0].clipped == 1

    w.max_n.value = 1
    # BLEU-1 = 0.2 * exp(-0.2) = 0.16375
    assert shown(w.table.value, "bleu") == "0.1637"
    assert 'data-key="clip2"' not in w.table.value

    # a second reference with "six six": clipping now allows 2 of 5
    w.references.value = REF_36 + "\nsix six"
    assert shown(w.table.value, "clip1") == "2"
    # c = 5, lengths 6 and 2: |6-5| = 1 < |2-5| = 3, r = 6
    assert shown(w.table.value, "r") == "6"

    w.tokenizer.value = "rouge"
    w.candidate.value = "I'm THIRTY-six"
    assert w.values.candidate_tokens == ("i", "m", "thirty", "six")


def test_explorer_without_reference_shows_a_hint():
    pytest.importorskip("ipywidgets")
    w = ng.ngram_overlap_explorer()
    w.references.value = "  \n "
    assert w.values is None
    assert "at least one reference" in w.highlight.value
    w.references.value = "I loved it"
    assert w.values is not None


def test_explorer_repr_is_stable():
    pytest.importorskip("ipywidgets")
    w = ng.ngram_overlap_explorer("a b", ["a c", "b"], max_n=2)
    assert repr(w) == ("NgramOverlapExplorer(candidate='a b', references=['a c', 'b'], "
                       "max_n=2, tokenizer='whitespace')")
    assert "0x" not in repr(w)


def test_explorer_rejects_bad_arguments():
    with pytest.raises(ValueError, match="max_n must be at most 4, got 6"):
        ng.ngram_overlap_explorer(max_n=6)
    with pytest.raises(ValueError, match="line breaks"):
        ng.ngram_overlap_explorer(references=["a\nb"])


# ---------------------------------------------------------------------------
# BERTScore heatmap (notebook 06)
# ---------------------------------------------------------------------------

def _hand_matches():
    """A hand-made pair: candidate [CLS] a b [SEP], reference [CLS] x y [SEP]."""
    import numpy as np

    from ragmetrics_edu.generation.semantic import TokenMatches

    sim = np.array([
        #  [CLS]  x     y    [SEP]
        [1.00, 0.10, 0.20, 0.30],   # [CLS]
        [0.10, 0.90, 0.30, 0.20],   # a: best x (0.9)
        [0.20, 0.40, 0.50, 0.70],   # b: best [SEP] (0.7), hidden by default
        [0.30, 0.20, 0.60, 1.00],   # [SEP]
    ])
    return TokenMatches(["[CLS]", "a", "b", "[SEP]"], ["[CLS]", "x", "y", "[SEP]"], sim,
                        np.array([0.0, 1, 1, 0]), np.array([0.0, 1, 1, 0]))


def test_heatmap_data_by_hand():
    from ragmetrics_edu.course.widgets import bertscore as bw

    d = bw.heatmap_data(_hand_matches())
    assert d.candidate_tokens == ("a", "b") and d.reference_tokens == ("x", "y")
    assert d.similarity.tolist() == [[0.9, 0.3], [0.4, 0.5]]
    # a -> x; b's best is [SEP] (0.7 > 0.5), not drawn: -1
    assert d.candidate_match == (0, -1)
    assert d.candidate_best == (0.9, 0.7)
    # columns: x's best is a (0.9 > 0.4); y's best is [SEP] (0.6 > 0.5): -1
    assert d.reference_match == (0, -1)
    assert d.reference_best == (0.9, 0.6)
    # P = (0.9 + 0.7) / 2 = 0.8; R = (0.9 + 0.6) / 2 = 0.75; F = 1.2 / 1.55
    assert d.precision == pytest.approx(0.8)
    assert d.recall == pytest.approx(0.75)
    assert d.f1 == pytest.approx(2 * 0.8 * 0.75 / 1.55)


def test_heatmap_best_similarities_are_floored_like_the_scores():
    import numpy as np

    from ragmetrics_edu.generation.semantic import TokenMatches
    from ragmetrics_edu.course.widgets import bertscore as bw

    # candidate [CLS] a b [SEP]; b is unlike everything (best -0.2)
    sim = np.array([[1.0, 0.1, 0.2], [0.1, 0.9, 0.3], [-0.5, -0.2, -0.4], [0.3, 0.5, 1.0]])
    for clip, b_best in ((True, 0.0), (False, -0.2)):
        m = TokenMatches(["[CLS]", "a", "b", "[SEP]"], ["[CLS]", "x", "[SEP]"], sim,
                         np.array([0.0, 1, 1, 0]), np.array([0.0, 1, 0]), clip_at_zero=clip)
        d = bw.heatmap_data(m)
        assert d.candidate_best == (0.9, b_best)
        # P = (0.9 + 0) / 2 = 0.45 floored, (0.9 - 0.2) / 2 = 0.35 as written
        assert d.precision == pytest.approx((0.9 + b_best) / 2)
        assert d.candidate_match == (0, 0)   # b's best partner is still x (-0.2)


def test_heatmap_data_with_special_tokens():
    from ragmetrics_edu.course.widgets import bertscore as bw

    d = bw.heatmap_data(_hand_matches(), show_special=True)
    assert d.candidate_tokens == ("[CLS]", "a", "b", "[SEP]")
    # every row's maximum: [CLS] -> [CLS], a -> x, b -> [SEP], [SEP] -> [SEP]
    assert d.candidate_match == (0, 1, 3, 3)
    # every column's maximum: [CLS] -> [CLS], x -> a, y -> [SEP], [SEP] -> [SEP]
    assert d.reference_match == (0, 1, 3, 3)
    assert d.candidate_weights == (0.0, 1.0, 1.0, 0.0)


def test_matches_html_names_the_partners_and_scores():
    from ragmetrics_edu.course.widgets import bertscore as bw

    t = bw.matches_html(bw.heatmap_data(_hand_matches()))
    assert (shown(t, "precision"), shown(t, "recall"), shown(t, "f1")) == (
        "0.8000", "0.7500", "0.7742")     # 1.2 / 1.55 = 0.774193...
    assert "&rarr; x" in t and "&rarr; [CLS]/[SEP]" in t


def test_heatmap_alt_names_tokens_matches_and_scores_by_hand():
    from types import SimpleNamespace

    from ragmetrics_edu.course.widgets import bertscore as bw

    d = bw.heatmap_data(_hand_matches())
    alt = bw.heatmap_alt(d, SimpleNamespace(layer=3, model="tiny"))
    assert alt.startswith("Heatmap of the cosine similarity between the candidate's tokens "
                          "(rows: a, b) and the reference's tokens (columns: x, y), "
                          "layer 3 of tiny.")
    # a -> x at 0.9; b's best partner is [SEP] (0.7), not drawn
    assert ('best match: "a" matches "x" at 0.9 and "b" matches "[CLS]/[SEP]" at 0.7.'
            in alt)
    # P = 0.8, R = 0.75, F1 = 2 * 0.8 * 0.75 / 1.55 = 0.7742
    assert alt.endswith("Precision 0.8, recall 0.75, F1 0.77.")


def _img_alt(view):
    """The alt attribute of the one ``<img>`` a FigureView's widget shows (unescaped)."""
    import html

    found = re.findall(r'<img [^>]*\balt="([^"]*)"', view.widget.value)
    assert len(found) == 1, view.widget.value[:200]
    return html.unescape(found[0])


@pytest.fixture(scope="module")
def heatmap():
    pytest.importorskip("ipywidgets")
    pytest.importorskip("tokenizers")  # the NumPy MiniLM: no torch needed
    from ragmetrics_edu.course.widgets import bertscore as bw

    return bw.bertscore_heatmap("The aircraft landed safely.",
                                "The plane touched down safely.")


def test_heatmap_explorer_draws_the_library_numbers(heatmap):
    import numpy as np

    import ragmetrics_edu as rm

    w = heatmap
    r = rm.bertscore("The aircraft landed safely.", "The plane touched down safely.")
    assert w.values.precision == pytest.approx(float(r.precision[0]), abs=1e-12)
    assert shown(w.table.value, "f1") == f"{float(r.f1[0]):.4f}"
    # the tokens without [CLS]/[SEP]: 5 rows, 6 columns
    assert w.values.candidate_tokens == ("the", "aircraft", "landed", "safely", ".")
    assert w.values.reference_tokens == ("the", "plane", "touched", "down", "safely", ".")
    assert np.asarray(w.artists.image.get_array()).shape == (5, 6)
    # no special token weighs anything here: P is the mean of the row maxima
    assert w.values.precision == pytest.approx(np.mean(w.values.candidate_best), abs=1e-9)
    assert w.values.recall == pytest.approx(np.mean(w.values.reference_best), abs=1e-9)
    # one marker per row and per column whose best partner is drawn
    assert len(w.artists.rows.get_offsets()) == sum(j >= 0 for j in w.values.candidate_match)
    assert "0x" not in repr(w)


def test_heatmap_explorer_updates_its_artists_in_place(heatmap):
    w = heatmap
    image, figure, renders = w.artists.image, w.view.figure, w.view.n_renders
    w.reference.value = "The aircraft landed safely."       # identical texts
    assert w.artists.image is image and w.view.figure is figure
    assert w.view.n_renders == renders + 1
    assert len(figure.axes) == 2                              # heatmap + colour bar
    # a text against itself: every token's best partner is itself, P = R = F = 1
    assert w.values.candidate_match == tuple(range(5))
    assert shown(w.table.value, "precision") == "1.0000"
    # the figure's alt text follows: every token matches itself, cosine 1
    alt = _img_alt(w.view)
    assert alt == w.view.alt_text
    assert '"aircraft" matches "aircraft" at 1' in alt
    assert "(columns: the, aircraft, landed, safely, .)" in alt
    assert alt.endswith("Precision 1, recall 1, F1 1.")
    w.show_special.value = True
    assert w.values.candidate_tokens[0] == "[CLS]"
    assert w.artists.image.get_array().shape == (7, 7)
    w.layer.value = 0
    assert w.result.layer == 0
    assert "layer 0 of " in _img_alt(w.view)
    w.candidate.value = "  "
    assert "Type a candidate" in w.table.value


def test_heatmap_rejects_a_bad_layer():
    pytest.importorskip("tokenizers")  # the NumPy MiniLM: no torch needed
    from ragmetrics_edu.course.widgets import bertscore as bw

    with pytest.raises(ValueError, match="layer must be an integer from 0 to 6"):
        bw.bertscore_heatmap(layer=7)


def test_static_heatmap_is_a_picture_not_a_pyplot_figure():
    pytest.importorskip("tokenizers")  # the NumPy MiniLM: no torch needed
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ragmetrics_edu.course.widgets import bertscore as bw

    before = plt.get_fignums()
    h = bw.bertscore_heatmap("A cat sat.", "A cat sat down.", interactive=False)
    assert plt.get_fignums() == before          # nothing left behind in pyplot
    ax = h.figure.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "cat", "sat", "."]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "cat", "sat", "down", "."]
    assert h._repr_png_()[:8] == b"\x89PNG\r\n\x1a\n"
    assert repr(h) == ("HeatmapFigure(candidate='A cat sat.', reference='A cat sat down.', "
                       "model='all-MiniLM-L6-v2', layer=6)")


# ---------------------------------------------------------------------------
# the judge playground (notebook 07), with judges whose replies we know
# ---------------------------------------------------------------------------

def _section(prompt, name):
    """The text between <<<NAME>>> and <<<END NAME>>> of a rubric prompt, or None."""
    m = re.search(rf"<<<{name}>>>\n(.*?)\n<<<END {name}>>>", prompt, flags=re.S)
    return m.group(1) if m else None


class WordCountJudge:
    """Replies "Score: N", N = the answer's word count capped at 5; keeps the prompts."""

    model = "word-count"

    def __init__(self):
        self.prompts = []

    def complete(self, prompt):
        self.prompts.append(prompt)
        return f"Score: {min(5, len(_section(prompt, 'ANSWER').split()))}"


def test_playground_state_sends_what_the_rubric_reads():
    from ragmetrics_edu.course.widgets import judge_playground_state

    judge = WordCountJudge()
    s = judge_playground_state(judge, "faithfulness", answer="Lift grows with speed",
                               question="What grows?", context=["Lift grows.", "Drag too."])
    assert (s.score, s.reply, s.error, s.judge) == (4, "Score: 4", None, "word-count")
    # faithfulness reads the context only; relevance the question only
    assert _section(s.prompt, "CONTEXT") == "Lift grows.\n\nDrag too."
    assert _section(s.prompt, "QUESTION") is None
    s = judge_playground_state(judge, "relevance", answer="Lift", question="What grows?",
                               context=["Lift grows."])
    assert s.score == 1
    assert _section(s.prompt, "QUESTION") == "What grows?"
    assert _section(s.prompt, "CONTEXT") is None
    assert judge.prompts[-1] == s.prompt  # the prompt shown is the prompt sent


def test_playground_state_reports_replies_it_cannot_read_and_judges_that_refuse():
    from ragmetrics_edu.course.widgets import judge_playground_state

    s = judge_playground_state(lambda p: "Score: 9", "relevance", answer="x", question="q")
    assert s.score is None and s.reply == "Score: 9" and "9" in s.error  # off the 1-5 scale

    def refusing(prompt):
        raise ValueError("this judge cannot grade fluency")

    s = judge_playground_state(refusing, "relevance", answer="x", question="q")
    assert (s.score, s.reply, s.error) == (None, None, "this judge cannot grade fluency")

    from ragmetrics_edu.judge import JudgeTimeoutError

    def slow(prompt):  # a judge's own errors (HTTP, timeouts) are shown too
        raise JudgeTimeoutError("no reply within 30 s")

    s = judge_playground_state(slow, "relevance", answer="x", question="q")
    assert (s.score, s.error) == (None, "no reply within 30 s")


def test_playground_updates_as_you_type_and_escapes_html():
    pytest.importorskip("ipywidgets")
    from ragmetrics_edu.course.widgets import judge_playground

    judge = WordCountJudge()
    p = judge_playground(judge, question="Why does the flow separate?",
                         context=["An adverse pressure gradient separates the flow."],
                         answer="Adverse pressure gradient.")
    assert p.answer.continuous_update is False
    assert p.rubric.value == "faithfulness" and p.score == 3  # three words
    p.answer.value = "It separates <b>because</b> of the gradient downstream"
    assert p.score == 5  # eight words, capped at 5
    assert "<b>grade: 5</b>" in p.result.value
    p.rubric.value = "relevance"
    assert _section(judge.prompts[-1], "QUESTION") == "Why does the flow separate?"
    assert repr(p) == "JudgePlayground(rubric='relevance', score=5)"

    injected = judge_playground(lambda prompt: "<script>alert(1)</script>", question="q",
                                context=["c"], answer="a")
    assert injected.score is None
    assert "<script>" not in injected.result.value
    assert "&lt;script&gt;" in injected.result.value


def test_playground_rejects_bad_arguments():
    from ragmetrics_edu.course.widgets import judge_playground

    with pytest.raises(ValueError, match="rubrics must name ready rubrics .*got \\['tone'\\]"):
        judge_playground(lambda p: "Score: 1", question="q", context=["c"], rubrics=["tone"])
    with pytest.raises(ValueError, match="the relevance rubric needs question=, got None"):
        judge_playground(lambda p: "Score: 1", context=["c"])
    with pytest.raises(TypeError, match="answer must be a string, got 3"):
        judge_playground(lambda p: "Score: 1", question="q", context=["c"], answer=3)
