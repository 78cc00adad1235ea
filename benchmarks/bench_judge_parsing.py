"""Speed of the judge's reply parsers on hostile 10 MB replies.

A judge's reply is text a model (or a faulty server) wrote: it can be
anything. ``parse_rating``, ``parse_verdict`` and ``parse_preference`` must
read or refuse any reply in time linear in its length. The cases below are
the shapes that made the previous parser quadratic (a run of spaces inside
a ``Score:`` line: 64k spaces took 10.8 s; 16k repeated JSON keys: 1.9 s) and
those that defeat the shortcuts of the present one (a label on every line,
a label in the middle of every line, nothing but line breaks, deep JSON).

For each case the time at 10 MB is printed with the ratio of the times at
10 MB and 1 MB (about 10 for a linear parser, about 100 for a quadratic
one). Target: every 10 MB reply in under 1 s, and every ratio well under
100. There is no reference library to compare with: the previous version's
own numbers are quoted above.

The HTTP judge's reading of a 10 MB chat-completions body (its size cap's
default) is timed too.

Usage::

    python benchmarks/bench_judge_parsing.py            # 10 MB replies
    python benchmarks/bench_judge_parsing.py --quick    # 1 MB replies
"""

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from ragmetrics_edu.judge import (  # noqa: E402
    OpenAICompatibleJudge,
    parse_preference,
    parse_rating,
    parse_verdict,
)

CASES = {
    "spaces inside the Score: line": lambda n: "Score: 4" + " " * n + "x",
    "an unclosed code fence": lambda n: "```" + " " * n + "x",
    "a Score: line on every line": lambda n: "Score: 4\n" * (n // 9),
    "a label mid-line, everywhere": lambda n: "x score:" * (n // 8),
    "label, spaces, no colon": lambda n: (" " * 50 + "Score" + " " * 50 + "\n") * (n // 106),
    "line breaks only": lambda n: "\r\n" * (n // 2),
    "Unicode line separators": lambda n: "\u2028" * n,
    "repeated JSON keys": lambda n: "{" + ",".join(f'"k{i % 1000}": 1' for i in range(n // 10)) + "}",
    "deep JSON": lambda n: '{"score": ' + "[" * (n // 2) + "]" * (n // 2) + "}",
    "digits": lambda n: "1" * n,
    "plain prose": lambda n: ("The answer is supported by the second chunk. " * (n // 46)),
}
PARSERS = (parse_rating, parse_verdict, parse_preference)


def best_time(fn, arg, repeat=3):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        try:
            fn(arg)
        except ValueError:
            pass
        best = min(best, time.perf_counter() - start)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1 MB replies instead of 10 MB")
    args = parser.parse_args()
    big = (1 if args.quick else 10) * 2**20
    small = big // 10

    print(f"reply parsers, {big / 2**20:g} MB replies (best of 3); ratio = time({big / 2**20:g} MB)"
          f" / time({small / 2**20:g} MB), ~10 if linear, ~100 if quadratic")
    print(f"{'case':32s} {'parser':17s} {'time (s)':>9s} {'ratio':>7s}")
    worst, worst_ratio = 0.0, 0.0
    for name, make in CASES.items():
        text_big, text_small = make(big), make(small)
        for parse in PARSERS:
            t_big = best_time(parse, text_big)
            ratio = t_big / max(best_time(parse, text_small), 1e-6)
            worst, worst_ratio = max(worst, t_big), max(worst_ratio, ratio)
            print(f"{name:32s} {parse.__name__:17s} {t_big:9.3f} {ratio:7.1f}")

    judge = OpenAICompatibleJudge("http://127.0.0.1:9/v1", "m")
    content = "Score: 4 " + "é" * ((judge.max_reply_bytes - 100) // 2)  # 2 bytes each in UTF-8
    raw = json.dumps({"choices": [{"message": {"content": content}}]}, ensure_ascii=False).encode()
    assert len(raw) <= judge.max_reply_bytes and judge._content(raw, None) == content
    t_http = best_time(lambda r: judge._content(r, None), raw)
    print(f"\nHTTP judge, reading a {len(raw) / 2**20:.1f} MB chat-completions body: {t_http:.3f} s")

    print(f"\nslowest {big / 2**20:g} MB reply: {worst:.3f} s (target: under 1 s); "
          f"largest ratio: {worst_ratio:.1f} (linear ~10, quadratic ~100)")


if __name__ == "__main__":
    main()
