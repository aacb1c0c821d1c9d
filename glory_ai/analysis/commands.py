"""`glory-ai report`: the analysis report of one or more arena runs.

    glory-ai report RUN_DIR [RUN_DIR ...] [--out DIR] [--title TEXT] [--no-figure-files]

Writes ``report.html`` (one self-contained page) and ``summary.csv`` into the first run
folder, or ``--out DIR``, with the figures as PNG and SVG under ``figures/``; prints the
paths and the summary sentences. ``register(subparsers)`` adds the subcommand to the
``glory-ai`` parser (its ``func`` is :func:`main_report`); ``python -m
glory_ai.analysis.commands report ...`` runs it alone. User mistakes (a missing folder, an
empty run, a damaged line) print one line on stderr and exit with status 2.
"""
from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Sequence

from .._argparse import EXIT_USAGE
from .._argparse import HelpFormatter as _HelpFormatter
from .._argparse import Parser as _Parser

__all__ = ["build_parser", "main", "main_report", "register"]

EXIT_INTERRUPTED = 130


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``report`` subcommand (``func`` = :func:`main_report`)."""
    report = subparsers.add_parser(
        "report", formatter_class=_HelpFormatter,
        help="analyse arena runs: report.html (tables, figures, findings) and summary.csv",
        description=textwrap.fill(
            "Analyse one or more arena runs (folders written by compare, tournament or run): "
            "win rates with intervals, ratings and head-to-head scores, seat advantage with "
            "its test, building strength (stratified and logistic), VP breakdown, end "
            "conditions, game length and rule-variant comparisons. Writes report.html "
            "(self-contained: figures inline) and summary.csv (the win-rate table) into the "
            "first run folder or --out DIR, and the figures as PNG and SVG into DIR/figures/. "
            "docs/analysis.md explains every table.", width=88),
        epilog="examples:\n"
               "  glory-ai report results/compare-1b2c3d4e\n"
               "  glory-ai report results/ladder2 results/ladder3 --out results/ladder-report\n"
               "  glory-ai report results/republic results/imperium --out results/modes\n")
    report.add_argument("runs", nargs="+", metavar="RUN_DIR",
                        help="run folders (config.json and games.jsonl) or games.jsonl files")
    report.add_argument("--out", metavar="DIR", default=None,
                        help="where to write (default: the first RUN_DIR)")
    report.add_argument("--title", default=None, help="the page title")
    report.add_argument("--no-figure-files", action="store_true",
                        help="do not write figures/*.png and *.svg (the page has them inline)")
    report.set_defaults(func=main_report)


def build_parser() -> argparse.ArgumentParser:
    """A parser with only the ``report`` subcommand (``python -m glory_ai.analysis.commands``)."""
    parser = _Parser(prog="glory-ai", formatter_class=_HelpFormatter,
                     description="Glory to Rome arena analysis.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                title="commands", parser_class=_Parser)
    register(sub)
    return parser


def main_report(args: argparse.Namespace | Sequence[str]) -> int:
    """Run ``report`` from parsed arguments, or from an argv list such as
    ``["results/x", "--out", "DIR"]`` (optionally led by ``"report"``). Returns the exit
    status: 0, 2 for a user mistake (one line on stderr), 130 on Ctrl-C."""
    if not isinstance(args, argparse.Namespace):
        argv = list(args)
        if not argv or argv[0] != "report":
            argv = ["report", *argv]
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as exc:
            return int(exc.code or 0)
    from . import AnalysisError
    from .report import write_report_full

    try:
        html_path, csv_path, report = write_report_full(
            args.runs, args.out, title=args.title, figure_files=not args.no_figure_files)
    except KeyboardInterrupt:
        print("glory-ai: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except (AnalysisError, ValueError) as exc:
        sys.stdout.flush()
        message = " ".join(str(exc).split())
        print(f"glory-ai: error: {message}", file=sys.stderr)
        return EXIT_USAGE
    print(f"report: {html_path}")
    print(f"summary: {csv_path}")
    print()
    for sentence in report.sentences:
        print(f"- {sentence}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m glory_ai.analysis.commands report ...``"""
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    return main_report(args)


if __name__ == "__main__":
    sys.exit(main())
