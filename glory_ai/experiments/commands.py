"""`glory-ai run experiments/NAME.toml` and `glory-ai reproduce results/NAME`."""
from __future__ import annotations

import argparse
import sys

from .._argparse import EXIT_USAGE
from .config import ExperimentError

EXIT_DIFFERENT = 1
EXIT_INTERRUPTED = 130


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a number of workers (-1: every core), got {text!r}") from None
    if value == 0 or value < -1:
        raise argparse.ArgumentTypeError(f"expected a positive number of workers or -1, got {value}")
    return value


def main_run(args: argparse.Namespace) -> int:
    from ..arena import ArenaError
    from .runner import run_experiment

    try:
        folder = run_experiment(args.config, args.results, jobs=args.jobs, backend=args.backend,
                                progress=None if args.progress else False, out=args.out,
                                fresh=args.fresh)
    except (ExperimentError, ArenaError, ValueError, FileNotFoundError) as exc:
        print(f"glory-ai: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as exc:
        print(f"glory-ai: {exc or 'interrupted'}; finished games are kept: run the same command to resume",
              file=sys.stderr)
        return EXIT_INTERRUPTED
    print(f"results in {folder}/ (README.md, report.html, summary.csv, runs.csv, manifest.json, runs/)")
    readme = folder / "README.md"
    if readme.exists():
        found = [line for line in readme.read_text().splitlines() if line.startswith("* ")]
        for line in found[:8]:
            print(line)
    return 0


def main_reproduce(args: argparse.Namespace) -> int:
    from ..analysis.stats import RERUN_ALPHA
    from ..arena import ArenaError
    from .runner import reproduce

    try:
        report = reproduce(args.folder, jobs=args.jobs, progress=None if args.progress else False,
                           allow_code_change=args.allow_code_change)
    except (ExperimentError, ArenaError, ValueError) as exc:
        print(f"glory-ai: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("glory-ai: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    what = "records" if report.reproducible else (
        "win rates (time budgets: records depend on the machine; Welch t-test on per-deal win "
        f"shares, Holm-adjusted across specs, alpha = {RERUN_ALPHA:g})")
    for run in report.runs:
        status = "identical" if not run["differences"] else f"{len(run['differences'])} differ"
        print(f"{run['run']}: {run['games']} games, {status}")
        for diff in run["differences"][:10]:
            print(f"    game {diff['game_id']}: {diff['field']}")
    if report.identical:
        print(f"reproduced: every run's {what} match the stored results")
        return 0
    print(f"NOT reproduced: some {what} differ (above)")
    return EXIT_DIFFERENT


def register(sub: argparse._SubParsersAction) -> None:
    formatter = argparse.ArgumentDefaultsHelpFormatter
    run = sub.add_parser(
        "run", formatter_class=formatter, help="run an experiment config into results/NAME/",
        description="Run every match of an experiment (experiments/NAME.toml) into results/NAME/: "
                    "records, manifest, summary, report and README. An interrupted experiment "
                    "resumes where it stopped (docs/experiments.md).",
        epilog="examples:\n  glory-ai run experiments/seat_advantage.toml\n"
               "  glory-ai run experiments/ismcts_scaling.toml --jobs 2\n")
    run.formatter_class = argparse.RawDescriptionHelpFormatter
    run.add_argument("config", help="the experiment config (TOML)")
    run.add_argument("--results", default="results", help="the folder that holds results/NAME/")
    run.add_argument("--out", default=None, help="write into this folder instead of RESULTS/NAME")
    run.add_argument("--jobs", type=_jobs, default=None,
                     help="parallel workers (default: the config's [run].jobs)")
    run.add_argument("--backend", default=None, choices=["loky", "threading", "dask", "ray"],
                     help="parallel backend (default: the config's [run].backend)")
    run.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")
    run.add_argument("--fresh", action="store_true",
                     help="start over: move an existing results folder aside to NAME.old-N first "
                          "(needed when its games were made by other code)")
    run.set_defaults(func=main_run)

    rep = sub.add_parser(
        "reproduce", formatter_class=formatter,
        help="re-run a result folder and check its records are identical",
        description="Re-run the experiment stored in a results folder (its experiment.toml) and "
                    "compare game records one by one, timing aside; prints the games that differ. "
                    "Exit status 0 when identical, 1 when not.",
        epilog="examples:\n  glory-ai reproduce results/seat_advantage\n")
    rep.formatter_class = argparse.RawDescriptionHelpFormatter
    rep.add_argument("folder", help="a results folder written by glory-ai run")
    rep.add_argument("--jobs", type=_jobs, default=None, help="parallel workers")
    rep.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")
    rep.add_argument("--allow-code-change", action="store_true",
                     help="re-run even runs recorded with other code (code.json) than this")
    rep.set_defaults(func=main_reproduce)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m glory_ai.experiments.commands")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
