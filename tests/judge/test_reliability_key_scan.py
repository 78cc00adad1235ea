"""The scan for the key: its pieces agree with the obvious slow versions (issue 34, item 35).

The scan of a 10 MiB reply full of nested escapes took 9 s and 830 MB: the
window hashes are now computed from one prefix sum in chunks (bounded
memory), percent-encoding and decimal code lists are decoded by NumPy, and
ASCII texts are compacted at C speed. Timing is measured by
``benchmarks/bench_key_scan.py``; here each fast piece is compared with a
plain Python version on random inputs.
"""

import random
import unicodedata
import urllib.parse

import pytest

from ragmetrics_edu.judge import _key_scan as oc


def test_invisible_characters_are_exactly_unicode_white_space_cc_and_cf():
    pattern = oc._INVISIBLE
    missing = [hex(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF
               and (chr(c).isspace() or unicodedata.category(chr(c)) in ("Cc", "Cf"))
               and not pattern.fullmatch(chr(c))]
    assert missing == []
    extra = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF
             and pattern.fullmatch(chr(c)) and c != 0xFFFD
             and not (chr(c).isspace() or unicodedata.category(chr(c)) in ("Cc", "Cf"))]
    # only format characters of later Unicode versions (Egyptian hieroglyph controls)
    assert all(0x13439 <= c <= 0x1343F for c in extra), [hex(c) for c in extra]


def test_unpercent_is_unquote():
    rng = random.Random(34)
    alphabet = ["%", "2", "f", "F", "e2", "%e2%82%ac", "a", "Z", "%4", "\u00e9", "%zz", "%%41",
                "%ff", "%25", "\U0001F600", "%C3", "%A9"]
    for _ in range(5000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14)))
        assert oc._unpercent(text) == urllib.parse.unquote(text, errors="replace"), text


@pytest.mark.parametrize("width", [12, 16, 24])
def test_the_chunked_hash_search_is_a_substring_search(monkeypatch, width):
    monkeypatch.setattr(oc, "_CHUNK", 64)   # many chunk borders in a short text
    oc._powers.cache_clear()
    try:
        rng = random.Random(width)
        for _ in range(300):
            text = "".join(rng.choice("ab\u00e9\U0001F600") for _ in range(rng.randint(0, 400)))
            starts = [rng.randrange(len(text) - width + 1) for _ in range(2)] \
                if len(text) >= width else []
            needles = frozenset({text[i:i + width] for i in starts}
                                | {"".join(rng.choice("ab") for _ in range(width))})
            expected = any(n in text for n in needles)
            assert oc._holds(text, needles, width, direct=False) == expected
    finally:
        monkeypatch.undo()
        oc._powers.cache_clear()
    

def _unbackslash_reference(text):
    """One left-to-right pass of the escape pattern, each match decoded in Python."""
    letters = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}

    def one(m):
        for group in (1, 2, 3, 4):
            if m.group(group):
                code = int(m.group(group), 16)
                return chr(code) if code < 0x110000 else ""
        if m.group(5):
            return chr(int(m.group(5), 8))
        return letters.get(m.group(6), m.group(6))
    return oc._BACKSLASH.sub(one, text)


def test_unbackslash_is_one_pass_of_the_escape_pattern():
    rng = random.Random(23)
    alphabet = ["\\", "\\\\", "u", "0041", "x2f", "U0001F600", "u{73}", "163", "8", "n", "t",
                "/", '"', "a", "\u00e9", "\ue000", "{", "}", "ffff", "U0011ffff"]
    for _ in range(20000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        assert oc._unbackslash(text) == _unbackslash_reference(text), text
    crowded = "\ue000\ue001\ue002\\\\u0041\\/"
    assert oc._unbackslash(crowded) == _unbackslash_reference(crowded)
