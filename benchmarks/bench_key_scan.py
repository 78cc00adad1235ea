"""How long the search for an API key takes on a 10 MiB reply, and its peak memory.

A reply is searched for the key (whole, in part or encoded) before it is
returned or cached (``ragmetrics_edu.judge.openai_compat``). The texts below
are the worst a server can send within the default ``max_reply_bytes``
(10 MiB): plain prose, percent-encodings and ``&amp;`` nested four deep,
backslashes, mixed escapes, emoji, JSON strings and query strings
(joined), HTML tags long and unclosed, lists of hexadecimal codes. Each line prints the seconds, the peak
of traced memory and its ratio to the text's size.

Run: ``python benchmarks/bench_key_scan.py [CASE ...]`` (every case without
arguments; ``python benchmarks/bench_key_scan.py json-strings`` runs one).
"""

import sys
import time
import tracemalloc

from ragmetrics_edu.judge._key_scan import _quotes_key

KEY = "sk-Leak/7Qz+9Wm=2Xv_4~Abc/Def+Ghi=Jk"
N = 10 * 2**20
CASES = {
    "plain": "Relevant. " * (N // 10),
    "percent-nested": ("%25" * 4 + "41") * (N // 14),
    "html-amp-nested": "&amp;amp;amp;amp;lt;" * (N // 20),
    "spaces": "a " * (N // 2),
    "backslashes": "\\\\\\\\\\\\\\\\u0041" * (N // 14),
    "mixed-escapes": "&#37;32&#x35;\\u0025" * (N // 20),
    "emoji": "\U0001F600" * (N // 4),
    "json-strings": '"ab\\"c": "d", ' * (N // 14),
    "query-strings": "?a=b&c=d&" * (N // 9),
    "open-tags": ("<" + "a" * 99) * (N // 100),
    "long-tags": ("<" + "a" * 200 + ">b") * (N // 203),
    "hex-codes": "0x41, " * (N // 6),
    "key-at-the-end": "Relevant. " * (N // 10 - 10) + KEY.upper(),
}


def main(names=()):
    unknown = [n for n in names if n not in CASES]
    if unknown:
        sys.exit(f"unknown case {unknown[0]!r}; the cases are: {', '.join(CASES)}")
    _quotes_key("warm up " + KEY[:5], KEY)
    for name in names or CASES:
        text = CASES[name]
        start = time.perf_counter()
        found = _quotes_key(text, KEY)
        seconds = time.perf_counter() - start
        tracemalloc.start()   # a second run, traced (tracing slows it down)
        _quotes_key(text, KEY)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        size = len(text.encode("utf-8"))
        print(f"{name:16s} {size / 2**20:5.1f} MiB  quotes={found!s:5s}  {seconds:6.2f} s  "
              f"peak {peak / 2**20:6.0f} MiB ({peak / size:4.1f} x the text)", flush=True)

if __name__ == "__main__":
    main(sys.argv[1:])
