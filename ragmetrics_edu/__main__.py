"""The command line: evaluate a run, or compare runs with a significance test.

::

    python -m ragmetrics_edu evaluate QRELS RUN --metrics P@10 ndcg@10 map mrr
    python -m ragmetrics_edu compare QRELS RUN_A RUN_B [RUN_C ...] --metric ndcg@10

``ragmetrics-edu`` (installed with the package) is the same program. Files are
TREC qrels and run files (see :mod:`ragmetrics_edu.retrieval.trec`); the numbers are
trec_eval's (see :mod:`ragmetrics_edu.retrieval.batch`).

Exit status: 0 on success, 2 on a usage error, an unknown metric, or a missing
or malformed file (the message, on stderr, names the file and the line).  When
the reader of the output goes away (``... | head -1``), the program stops
quietly with status 141 (128 + SIGPIPE), as a Unix tool killed by SIGPIPE
does.  The table and CSV outputs end with a summary row whose qid is
``mean``; a run with a query named ``mean`` is refused by
``--format csv --per-query`` (the two rows could not be told apart) and
reads well as ``--format json``.  Ids shown in notes and messages are escaped (``repr``) when they hold
a character a terminal would not print as it is.

Examples
--------
BM25 and MiniLM runs over Cranfield, written with
:func:`ragmetrics_edu.write_run` (pytest does not collect doctests from a
``__main__.py``; tests/test_cli.py checks such calls against pytrec_eval and
scipy):

.. code-block:: console

    $ ragmetrics-edu evaluate qrels.txt bm25.run --metrics P@10 ndcg@10 map mrr
    qid     P@10  ndcg@10     map     mrr
    ----  ------  -------  ------  ------
    mean  0.2204   0.3367  0.2671  0.4959
    ragmetrics_edu 0.1.0 evaluate|order:score(float32) desc,docid desc|rel:grade>=1|...
    $ ragmetrics-edu compare qrels.txt bm25.run dense.run --metric ndcg@10 --test randomization
    run        ndcg@10        diff  p-value      95% CI of diff
    bm25.run    0.3367  (baseline)
    dense.run   0.3736     +0.0369   0.0035  [+0.0124, +0.0614]
    225 queries (missing: zero); diff = run - bm25.run; randomization (Monte Carlo), ...
"""

import argparse
import csv
import io
import json
import math
import os
import re
import sys

# The limits and choices of the options are the library's own, read from where
# they are defined (these modules need NumPy only), so that what the parser
# accepts the library accepts too.
from ._validation import MAX_K
from .lab.significance import MAX_RESAMPLES, TESTS
from .retrieval.batch.registry import GAINS, MISSING_POLICIES, check_metrics, known_metrics
from .retrieval.conventions import PRESETS, RENAMED_PRESETS

PROG = "ragmetrics-edu"
DEFAULT_METRICS = ("P@10", "ndcg@10", "map", "mrr")
FORMATS = ("table", "json", "csv")
PRESET_NAMES = tuple(PRESETS)
"""The keys of :data:`ragmetrics_edu.retrieval.conventions.PRESETS`."""


def _preset_name(text):
    """``--conventions``: an old preset name is read as its new one, with a note on stderr."""
    if text in RENAMED_PRESETS:
        print(f"{PROG}: note: --conventions {text} is renamed {RENAMED_PRESETS[text]} (the old "
              f"name stops working in ragmetrics_edu 0.3.0)", file=sys.stderr)
        return RENAMED_PRESETS[text]
    return text


MAX_SEED = 2 ** 64 - 1
"""Largest ``--seed`` (NumPy's generators take any such integer; the bound keeps
the digits a user may type finite)."""

EXIT_SIGPIPE = 128 + 13
"""Exit status when the output pipe closes, as for a process killed by SIGPIPE."""

STREAM_NOTE = (
    "A run file is read query by query, so that the memory used is that of its largest "
    "query, not of the whole run: this needs the lines of each query together, as every "
    "TREC run writes them. A run whose queries are interleaved is read whole before it is "
    "scored (the same numbers; memory then grows with the run), and so is a file with a "
    "malformed line, whose error names the file and the line.")
"""What the help says of how a run file is read (see :func:`ragmetrics_edu.evaluate`)."""


def _integer_option(low, high):
    """An argparse ``type`` for an integer option from ``low`` to ``high``.

    ASCII digits only (``int()`` would also read ``1_000`` and other
    scripts' digits), and the number of digits is checked before ``int()``
    (Python refuses strings of over 4,300 digits with its own message).
    """
    def parse(text):
        shown = repr(text) if len(text) <= 30 else \
            f"{text[:30]!r}... ({len(text):,} characters)"
        # argparse puts "argument --n-resamples: " in front
        problem = argparse.ArgumentTypeError(
            f"must be an integer from {low:,} to {high:,}, got {shown}")
        if not re.fullmatch(r"[+-]?[0-9]+", text):
            raise problem
        digits = text.lstrip("+-").lstrip("0") or "0"
        if len(digits) > len(str(high)) or not low <= int(text) <= high:
            raise problem
        return int(text)
    return parse


def _check_metric_names(names, option):
    """Parse the metric names with the library's parser before any file is read,
    naming the option in the message."""
    try:
        check_metrics(names)
    except (TypeError, ValueError) as error:
        raise _UsageError(f"{option}: {error}") from None


def _shown(text):
    """``text`` as it is if a terminal prints it as it is, else its ``repr``
    (a byte-order mark, an ANSI escape, a space inside an id become visible)."""
    if text.isprintable() and not any(c.isspace() for c in text) and text:
        return text
    return repr(text)


def _shown_ids(ids, limit=10):
    shown = " ".join(_shown(q) for q in ids[:limit])
    return shown + (f" ... ({len(ids)} in all)" if len(ids) > limit else "")


class _UsageError(Exception):
    """An error in the user's input: printed without a traceback, exit 2."""


class _OutputFailed(Exception):
    """Writing to standard output failed (a full disk, a descriptor opened for reading)."""

    def __init__(self, error):
        super().__init__(error.strerror or str(error))


class _Output:
    """Standard output for the commands: a failed write raises :class:`_OutputFailed`.

    A closed pipe stays a ``BrokenPipeError`` (a reader that went away, as
    ``| head`` does, is not an error); any other ``OSError`` of a write would
    otherwise be taken for an error reading an input file.
    """

    def __init__(self, stream):
        self._stream = stream

    def write(self, text):
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _OutputFailed(exc) from None

    def flush(self):
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _OutputFailed(exc) from None


def _say(message):
    """Print ``message`` on standard error; nowhere if standard error is closed.

    ``print(file=None)`` would write to standard output, mixing the message
    into the results (``2>&-`` makes ``sys.stderr`` None).
    """
    if sys.stderr is not None:
        try:
            print(message, file=sys.stderr, flush=True)
        except (OSError, ValueError):  # stderr full (2>/dev/full) or closed: the status says it
            pass


class _Parser(argparse.ArgumentParser):
    """argparse, but errors raise instead of exiting (so ``main`` returns 2)."""

    def error(self, message):
        raise _UsageError(f"{message}\n\n{self.format_usage().strip()}")

    def print_help(self, file=None):
        # started with stdout closed (`--help >&-`), Python sets sys.stdout to None and
        # argparse's _print_message would write the help to stderr and exit 0
        if file is None and sys.stdout is None:
            raise _UsageError("cannot write the help to standard output: it is closed")
        super().print_help(file)

    def _print_message(self, message, file=None):
        # argparse's own ignores a failed write (--help >/dev/full: the help lost, exit 0);
        # through _Output it fails as the results do (exit 2)
        file = file if file is not None else sys.stderr
        if message and file is not None:
            try:
                _Output(file).write(message)
            except _OutputFailed as exc:
                raise _UsageError(f"cannot write the help to standard output: {exc}") from None


def _build_parser():
    parser = _Parser(
        prog=PROG,
        description="Evaluate retrieval runs with trec_eval's conventions, and "
                    "compare systems with a significance test.",
    )
    sub = parser.add_subparsers(dest="command", metavar="{evaluate,compare}")
    sub.required = True

    ev = sub.add_parser(
        "evaluate", help="score one run against qrels",
        description="Score one run against qrels. The numbers equal trec_eval's "
                    "(P@k = P_k, ndcg@k = ndcg_cut_k, map, mrr = recip_rank, ...).",
        epilog=STREAM_NOTE,
    )
    ev.add_argument("qrels", metavar="QRELS", help="TREC qrels file (qid iter docid grade)")
    ev.add_argument("run", metavar="RUN", help="TREC run file (qid Q0 docid rank score tag)")
    ev.add_argument("--metrics", nargs="+", default=list(DEFAULT_METRICS), metavar="METRIC",
                    help=f"metrics, among {known_metrics()} (k a positive integer; "
                         f"default: {' '.join(DEFAULT_METRICS)})".replace("%", "%%"))
    ev.add_argument("--per-query", action="store_true",
                    help="one row per query before the mean (table and csv; json "
                         "always holds per_query)")
    ev.add_argument("--format", choices=FORMATS, default="table",
                    help="output format (default: table)")
    ev.add_argument("--missing", choices=MISSING_POLICIES, default=None,
                    help="judged queries absent from the run: left out of the means "
                         "(ignore, trec_eval's default) or scored 0 (zero, trec_eval -c); "
                         "overrides the --conventions preset's choice")
    ev.add_argument("--conventions", choices=PRESET_NAMES, default=None, type=_preset_name,
                    help="score as another library does (ties in the run file's "
                         "order for ranx, seeds and ragas); default: trec_eval")
    ev.add_argument("--gain", choices=GAINS, default=None,
                    help="gain of a grade g in dcg and ndcg: g (linear) or 2**g - 1 "
                         "(exponential); overrides the --conventions preset's choice "
                         "(default: linear, as trec_eval)")
    _add_level_and_depth(ev)

    cmp_ = sub.add_parser(
        "compare", help="compare runs on one metric, with a significance test",
        description="Compare runs on one metric, query by query: each run's mean, "
                    "its difference from the first run, and a two-sided p-value.",
        epilog=STREAM_NOTE,
    )
    cmp_.add_argument("qrels", metavar="QRELS", help="TREC qrels file")
    cmp_.add_argument("runs", metavar="RUN", nargs="+",
                      help="two or more TREC run files; the first is the baseline")
    cmp_.add_argument("--metric", default="ndcg@10", help="the metric (default: ndcg@10)")
    cmp_.add_argument("--test", choices=TESTS, default="t",
                      help="paired t-test or paired randomization test (default: t)")
    cmp_.add_argument("--n-resamples", type=_integer_option(1, MAX_RESAMPLES),
                      default=10_000, metavar="N",
                      help="resamples of the randomization test and the bootstrap "
                           f"interval (default: 10000, at most {MAX_RESAMPLES:,})")
    cmp_.add_argument("--seed", type=_integer_option(0, MAX_SEED), default=0,
                      help="random seed (default: 0)")
    cmp_.add_argument("--missing", choices=MISSING_POLICIES, default="zero",
                      help="judged queries absent from a run: scored 0 (zero, the "
                           "default, so every run covers the same queries) or left "
                           "out (ignore; then the runs must cover the same queries)")
    cmp_.add_argument("--format", choices=("table", "json"), default="table",
                      help="output format (default: table)")
    _add_level_and_depth(cmp_)
    return parser


def _add_level_and_depth(command):
    """trec_eval's -l and -M, with its letters."""
    command.add_argument("-l", "--relevance-level", type=_integer_option(1, MAX_K), default=None,
                         metavar="L",
                         help="the grade from which a document is relevant to the binary "
                              "measures (P, recall, map, mrr, bpref...), as trec_eval -l "
                              "(TREC DL: 2); ndcg and err keep every grade's gain "
                              "(default: 1)")
    command.add_argument("-M", "--depth", type=_integer_option(1, MAX_K), default=None,
                         metavar="M",
                         help="read only the top M documents of each query, after ranking, "
                              "as trec_eval -M (TREC: 1000; default: all)")


# ----------------------------------------------------------------- evaluate

def _evaluate_report(qrels_path, run_path, metrics, missing, conventions=None,
                     gain=None, relevance_level=None, depth=None):
    """``evaluate`` on the two files: the run read as a stream of columns, query by query."""
    from .retrieval.batch import evaluate
    from .retrieval.trec import read_run

    report = evaluate(qrels_path, run_path, metrics=metrics, missing=missing,
                      conventions=conventions,
                      gain=gain, relevance_level=relevance_level, depth=depth)
    if conventions == "ranx":
        note = _ranx_tie_note(read_run(run_path), run_path)
        if note:
            _say(note)
    return report


RANX_STABLE_UP_TO = 15
"""ranx keeps tied documents in the run's order only in rankings this long or shorter."""


def _ranx_tie_note(run, run_path):
    """A note when ranx's own tie order cannot be reproduced (see retrieval/conventions.py)."""
    risky = [qid for qid, docs in run.items()
             if len(docs) > RANX_STABLE_UP_TO and len(set(docs.values())) < len(docs)]
    if not risky:
        return None
    shown = _shown_ids(risky)
    return (f"{PROG}: note: {run_path} has tied scores in rankings of more than "
            f"{RANX_STABLE_UP_TO} documents (queries {shown}); ranx itself orders such "
            f"ties in a way no rule reproduces, so its numbers may differ from these "
            f"(which keep the run file's order).  Break ties before comparing.")


SUMMARY_ROW = "mean"
"""The qid cell of the summary row of the table and CSV outputs."""


def _csv(report, per_query):
    """The report as CSV: a ``qid`` column, one column per metric, and the ``mean`` row last.

    A query named ``mean`` would give two rows a reader could not tell apart
    (a TREC id can be any word, so no label is safe), so with ``--per-query``
    such a run is refused, pointing to ``--format json``, which keeps
    ``per_query`` and ``mean`` apart.
    """
    if per_query and SUMMARY_ROW in report.per_query:
        raise _UsageError(
            f"--format csv --per-query: a query is named {SUMMARY_ROW!r}, like the summary "
            f"row, so the two rows could not be told apart; use --format json (per_query "
            f"and mean are separate there), or rename the query")
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["qid", *report.metrics])
    if per_query:
        for qid, values in report.per_query.items():
            writer.writerow([qid, *(repr(values[m]) for m in report.metrics)])
    writer.writerow([SUMMARY_ROW, *(repr(report.mean[m]) for m in report.metrics)])
    return out.getvalue().rstrip("\n")


def _notes(report):
    lines = []
    for label, qids in (
        (f"judged but not in the run ({report.missing})", report.missing_queries),
        ("in the run without judgements (not scored)", report.unjudged_queries),
        ("no relevant document (every metric 0)", report.queries_without_relevant),
    ):
        if qids:
            lines.append(f"{label}: {_shown_ids(qids)}")
    return lines


def _cmd_evaluate(args, out):
    _check_metric_names(args.metrics, "--metrics")
    report = _evaluate_report(args.qrels, args.run, args.metrics, args.missing,
                              args.conventions, gain=args.gain,
                              relevance_level=args.relevance_level, depth=args.depth)
    if args.format == "json":
        doc = {"mean": report.mean, "per_query": report.per_query}
        if report.missing_queries:
            doc["missing_queries"] = list(report.missing_queries)
        if report.unjudged_queries:
            doc["unjudged_queries"] = list(report.unjudged_queries)
        doc["signature"] = report.signature
        print(json.dumps(doc), file=out)
    elif args.format == "csv":
        print(_csv(report, args.per_query), file=out)
    else:
        print(report.to_table(per_query=args.per_query), file=out)
        print(report.signature, file=out)
        for line in _notes(report):
            print(line, file=out)
    return 0


# ----------------------------------------------------------------- compare

def _cmd_compare(args, out):
    from .lab.significance import compare_systems

    if len(args.runs) < 2:
        raise _UsageError("compare needs at least two runs (the first is the baseline)")
    _check_metric_names([args.metric], "--metric")
    reports = [_evaluate_report(args.qrels, path, [args.metric], args.missing,
                                relevance_level=args.relevance_level, depth=args.depth)
               for path in args.runs]
    base = reports[0]
    rows = []
    for path, report in zip(args.runs[1:], reports[1:]):
        if set(base.per_query) != set(report.per_query):
            only_base = sorted(set(base.per_query) - set(report.per_query))
            only_run = sorted(set(report.per_query) - set(base.per_query))
            raise ValueError(
                f"{args.runs[0]} and {path} were scored on different queries "
                f"(only in {args.runs[0]}: {_shown_ids(only_base) or 'none'}; "
                f"only in {path}: {_shown_ids(only_run) or 'none'}); use --missing zero"
            )
        c = compare_systems(base, report, metric=args.metric, test=args.test,
                            n_resamples=args.n_resamples, seed=args.seed)
        rows.append((path, c))
    test_name = rows[0][1].result.test
    n = len(rows[0][1].qids)
    if args.format == "json":
        doc = {
            "metric": args.metric,
            "test": test_name,
            "n_queries": n,
            "missing": args.missing,
            "relevance_level": base.relevance_level,
            "depth": base.depth,
            "baseline": {"run": args.runs[0], "mean": base.mean[args.metric]},
            "comparisons": [
                {
                    "run": path, "mean": c.mean_b, "baseline_mean": c.mean_a,
                    "difference": c.difference,
                    # JSON has no NaN or infinity: null when t is 0/0 (every
                    # difference 0) or infinite (every difference the same, not 0)
                    "statistic": _finite_or_none(c.result.statistic),
                    "p_value": _finite_or_none(c.p_value),
                    "ci_low": c.ci.low, "ci_high": c.ci.high,
                }
                for path, c in rows
            ],
        }
        print(json.dumps(doc, allow_nan=False), file=out)
        return 0
    header = ["run", args.metric, "diff", "p-value", "95% CI of diff"]
    table = [[args.runs[0], f"{base.mean[args.metric]:.4f}", "(baseline)", "", ""]]
    for path, c in rows:
        table.append([
            path, f"{c.mean_b:.4f}", f"{c.difference:+.4f}", f"{c.p_value:.4g}",
            f"[{c.ci.low:+.4f}, {c.ci.high:+.4f}]",
        ])
    widths = [max(len(r[i]) for r in [header, *table]) for i in range(len(header))]
    for r in [header, *table]:
        print("  ".join([r[0].ljust(widths[0]),
                         *(c.rjust(w) for c, w in zip(r[1:], widths[1:]))]).rstrip(), file=out)
    detail = f"{test_name}, two-sided"
    if args.test == "randomization":
        detail += f", {rows[0][1].result.n_resamples} sign patterns"
        if rows[0][1].result.seed is not None:
            detail += f", seed {args.seed}"
    options = "".join(f"{label} {value}; " for label, value in
                      (("relevance level (-l)", args.relevance_level), ("depth (-M)", args.depth))
                      if value is not None)
    print(f"{n} {'query' if n == 1 else 'queries'} (missing: {args.missing}); {options}"
          f"diff = run - {args.runs[0]}; "
          f"{detail}; CI: percentile bootstrap, {args.n_resamples} resamples, "
          f"seed {args.seed}", file=out)
    for path, c in rows:
        if c.p_value != c.p_value:  # nan: the t-test's 0/0
            print(f"{path}: every per-query difference is 0, so t is 0/0 and has "
                  f"no p-value (shown as nan); the runs score the same", file=out)
    return 0


def _finite_or_none(x):
    """``x``, or ``None`` for nan and infinities (JSON has neither)."""
    return x if math.isfinite(x) else None


# ----------------------------------------------------------------- main

def main(argv=None):
    """Run the command line; return the exit status (0 ok, 2 error).

    Parameters
    ----------
    argv : list of str, optional
        The arguments, without the program name; default ``sys.argv[1:]``.

    Returns
    -------
    int
        0 on success; 2 for a usage error, an unknown metric, or a missing or
        malformed file, or results that could not be written (the message
        goes to stderr, without a traceback; nowhere, never to stdout, when
        stderr is closed); 141 when the output pipe was closed (nothing
        printed).
    """
    parser = _build_parser()
    try:
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # --help
            if not exc.code and sys.stdout is not None:
                _Output(sys.stdout).flush()  # a help still buffered fails here, if it fails
            return int(exc.code or 0)
        if sys.stdout is None:  # started with stdout closed (`>&-`): Python sets it to None
            raise _UsageError("standard output is closed: the results have nowhere to go")
        command = _cmd_evaluate if args.command == "evaluate" else _cmd_compare
        out = _Output(sys.stdout)
        status = command(args, out)
        out.flush()  # a closed pipe or a full disk shows here, not at exit
        return status
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_SIGPIPE
    except _OutputFailed as exc:
        _quiet_stdout()  # what is still buffered goes nowhere, not to a second failure at exit
        _say(f"{PROG}: error: cannot write the results to standard output: {exc}")
        return 2
    except _UsageError as exc:
        _say(f"{PROG}: error: {exc}")
        return 2
    except (ValueError, OSError) as exc:
        message = str(exc)
        if isinstance(exc, OSError) and exc.filename is not None:
            message = f"{exc.filename}: {exc.strerror or exc}"
        _say(f"{PROG}: error: {message}")
        return 2


def _quiet_stdout():
    """Point stdout at /dev/null, so that Python's own flush at exit does not
    report the closed pipe again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        pass  # stdout is not a file (a test's capture): nothing to quiet


if __name__ == "__main__":
    sys.exit(main())
