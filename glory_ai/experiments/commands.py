"""`glory-ai run CONFIG`, `glory-ai reproduce results/NAME` and `glory-ai verify DIR`.

CONFIG is an experiment config file or the name of a shipped experiment (experiments/NAME.toml
in the source tree, glory_ai/experiments/shipped/NAME.toml in a wheel): :func:`find_config`.

User mistakes, damaged results and outputs that cannot be written print one line and exit
with status 2; Ctrl-C exits with 130 and SIGTERM with 143, the finished games kept."""
from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

from .. import _argparse as argtypes
from .._argparse import EXIT_INTERRUPTED, EXIT_TERMINATED, EXIT_USAGE, run_entry_point
from .._jsonio import MAX_BYTES
from .._reading import read_text
from .._words import plural
from ..arena.runner import BACKENDS
from ..bots.trust import require_trust

EXIT_DIFFERENT = 1
#: what a command reports as one line (ArenaError and ExperimentError are ValueErrors)
_FAILURES = (ValueError, OSError)


def _error(exc: BaseException) -> int:
    from ..arena.storage import os_error

    if isinstance(exc, OSError):
        exc = os_error(exc.filename or "output", exc)
    print(f"glory-ai: error: {' '.join(str(exc).split())}", file=sys.stderr)
    return EXIT_USAGE


def _interrupted(exc: KeyboardInterrupt, resume: str) -> int:
    from ..arena.runner import RunInterrupted, Terminated

    terminated = isinstance(exc, Terminated) or (isinstance(exc, RunInterrupted) and exc.terminated)
    what = "terminated" if terminated else "interrupted"
    print(f"glory-ai: {what}{resume}", file=sys.stderr)
    return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED


# ---- the shipped experiments ---------------------------------------------------------------

#: where a wheel holds the shipped experiment configs (setup.py copies experiments/*.toml there)
SHIPPED_PACKAGE_FOLDER = "shipped"


def shipped_folder() -> Path | None:
    """The folder of the shipped experiment configs: the package's copy in an installed
    wheel, else the experiments/ folder of the source tree glory_ai is imported from."""
    from importlib import resources

    packaged = resources.files(__package__).joinpath(SHIPPED_PACKAGE_FOLDER)
    if packaged.is_dir():
        return Path(str(packaged))
    tree = Path(__file__).resolve().parents[2]
    if (tree / "pyproject.toml").is_file() and (tree / "experiments").is_dir():
        return tree / "experiments"
    return None


def shipped_names() -> list[str]:
    """The names of the shipped experiments (``glory-ai run NAME``), sorted."""
    folder = shipped_folder()
    return sorted(p.stem for p in folder.glob("*.toml")) if folder is not None else []


def find_config(given: str) -> Path:
    """The config file that ``glory-ai run`` was given: a file that exists; else, for a name
    (``NAME`` or ``NAME.toml``), ``experiments/NAME.toml`` of the current folder (a checkout,
    or a copy the user edits) and then the shipped experiment of that name; for
    ``experiments/NAME.toml`` that is not here (the docs' form, from an installed wheel), the
    shipped one. Else an ExperimentError naming the shipped experiments."""
    from .config import ExperimentError

    path = Path(given)
    if path.exists() or not given.strip():
        return path
    parent = path.parent.as_posix()
    if parent in (".", "experiments") and path.suffix in ("", ".toml"):
        local = Path("experiments") / f"{path.stem}.toml"
        folder = shipped_folder()
        for candidate in ([local] if parent == "." else []) + (
                [folder / local.name] if folder is not None else []):
            if candidate.is_file():
                return candidate
    names = shipped_names()
    known = (f"; the shipped experiments: {', '.join(names)} (glory-ai run NAME)" if names
             else "; no shipped experiment is installed")
    raise ExperimentError(f"{given}: no such file{known}")


def main_run(args: argparse.Namespace) -> int:
    import dataclasses

    from ..arena.runner import sigterm_interrupts
    from .config import load_experiment
    from .runner import run_experiment, scheduling

    try:
        config = find_config(args.config)
        experiment = load_experiment(config)
        require_trust(spec for run in experiment.runs() for spec in run.config.specs)   # all listed at once
        if config != Path(args.config):
            print(f"the experiment {args.config}: {config}")
        # the command line's scheduling options over the config's [run]: none changes a game
        options = scheduling(experiment, args.jobs, args.backend, args.scheduler, args.batch_size,
                             args.isolation, args.bot_memory)
        experiment = dataclasses.replace(experiment, run_options=options)
        with sigterm_interrupts():
            folder = run_experiment(experiment, args.results, progress=False if args.no_progress else None,
                                    out=args.out, fresh=args.fresh)
    except BrokenPipeError:             # stdout's reader left: the entry point ends quietly
        raise
    except _FAILURES as exc:
        return _error(exc)
    except KeyboardInterrupt as exc:
        return _interrupted(exc, "; finished games are kept: run the same command to resume")
    print(f"results in {folder}/ (README.md, report.html, summary.csv, runs.csv, manifest.json, runs/)")
    readme = folder / "README.md"
    if readme.exists():
        found = [line for line in read_text(readme, "a README", MAX_BYTES).splitlines()
                 if line.startswith("* ")]
        for line in found[:8]:
            print(line)
    return 0


def _reproduce_study(args: argparse.Namespace) -> int:
    """`glory-ai reproduce` of a balance study's folder (glory-ai tune): its games replayed."""
    from ..arena.runner import sigterm_interrupts
    from ..tune import reproduce_study

    try:
        with sigterm_interrupts():
            runs = reproduce_study(args.folder, trials=args.trials, jobs=args.jobs)
    except BrokenPipeError:
        raise
    except _FAILURES as exc:
        return _error(exc)
    except KeyboardInterrupt as exc:
        return _interrupted(exc, "")
    differ = sum(len(r["differ"]) for r in runs)
    games = sum(r["games"] for r in runs)
    what = "validation and trial" if args.trials else "validation"
    if not differ:
        print(f"reproduced: the {games} {what} {'game replays' if games == 1 else 'games replay'} "
              "to their stored records")
        return 0
    print(f"NOT reproduced: {differ} of {games} {what} {'game differs' if differ == 1 else 'games differ'} "
          "(above)")
    return EXIT_DIFFERENT


def main_reproduce(args: argparse.Namespace) -> int:
    from ..analysis.stats import RERUN_ALPHA
    from ..arena.runner import sigterm_interrupts
    from ..tune import is_study
    from .runner import reproduce

    if is_study(args.folder):
        return _reproduce_study(args)
    if args.trials:
        return _error(ValueError(f"{args.folder}: --trials is for a balance study's folder (glory-ai tune)"))

    try:
        with sigterm_interrupts():
            report = reproduce(args.folder, jobs=args.jobs, backend=args.backend,
                               scheduler=args.scheduler, batch_size=args.batch_size,
                               progress=False if args.no_progress else None,
                               allow_code_change=args.allow_code_change,
                               isolation=args.isolation, bot_memory=args.bot_memory)
    except BrokenPipeError:             # stdout's reader left: the entry point ends quietly
        raise
    except _FAILURES as exc:
        return _error(exc)
    except KeyboardInterrupt as exc:
        return _interrupted(exc, "")
    what = "records" if report.reproducible else (
        "win rates (time budgets: records depend on the machine; Welch t-test on per-deal win "
        f"shares, Holm-adjusted across specs, alpha = {RERUN_ALPHA:g})")
    for problem in report.problems[:20]:
        print(f"stored results: {problem}")
    for run in report.runs:
        status = "identical" if not run["differences"] else f"{len(run['differences'])} differ"
        print(f"{run['run']}: {plural(run['games'], 'game')}, {status}")
        for diff in run["differences"][:10]:
            print(f"    game {diff['game_id']}: {diff['field']}")
    if report.identical:
        print(f"reproduced: every run's {what} match the stored results")
        return 0
    if report.problems:
        print(f"NOT reproduced: the stored results do not hold together "
              f"({plural(len(report.problems), 'problem')} above; `glory-ai verify {args.folder}` says more)")
    else:
        print(f"NOT reproduced: some {what} differ (above)")
    return EXIT_DIFFERENT


def main_verify(args: argparse.Namespace) -> int:
    from ..arena.runner import sigterm_interrupts
    from .verify import verify

    try:
        with sigterm_interrupts():
            found = verify(args.folder, sample=args.sample, jobs=args.jobs, repair=args.repair,
                           log=lambda line: print(line, flush=True))
    except BrokenPipeError:             # stdout's reader left: the entry point ends quietly
        raise
    except _FAILURES as exc:
        return _error(exc)
    except KeyboardInterrupt as exc:
        return _interrupted(exc, "")
    _print_problems(found.all_problems)
    for action in found.actions:
        print(f"repaired: {action}")
    for reason in found.refused:
        print(f"not repaired: {reason}")
    final = found.final
    if found.after is not None:
        print("after the repair:")
        _print_problems(final.all_problems)
    games = sum(r.games for r in final.runs)
    replayed = sum(r.replayed for r in final.runs)
    if final.ok:
        print(f"verified: {plural(len(final.runs), 'run')}, {plural(games, 'game')}, {replayed} replayed, "
              "records and derived files as written")
        return 0
    hint = ""
    if not args.repair and not any(r.refused for r in final.runs):
        if 0 < final.stale == len(final.all_problems):
            hint = (f"; every record is sound: `glory-ai verify {args.folder} --repair` writes the "
                    "files derived from them again (no game changes)")
        else:
            hint = (f"; `glory-ai verify {args.folder} --repair` sets the records at fault aside "
                    "(quarantine.jsonl) and plays their games again")
    print(f"NOT verified: {plural(len(final.all_problems), 'problem')}, {plural(games, 'sound game')}{hint}")
    return EXIT_DIFFERENT


def _print_problems(problems: list[str]) -> None:
    for problem in problems[:50]:
        print(f"problem: {' '.join(problem.split())}")
    if len(problems) > 50:
        print(f"... and {len(problems) - 50} more")


def _sample(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a number of games per run (0: replay none), got {text!r}")
    return value


def register(sub: argparse._SubParsersAction) -> None:
    formatter = argtypes.HelpFormatter
    run = sub.add_parser(
        "run", formatter_class=formatter, help="run an experiment config into results/NAME/",
        description=textwrap.fill(
            "Run every match of an experiment into results/NAME/: records, manifest, summary, "
            "report and README. CONFIG is a TOML file (docs/experiments.md) or the name of a "
            "shipped experiment (" + (", ".join(shipped_names()) or "none installed") + "). An "
            "interrupted experiment resumes where it stopped.", width=88),
        epilog="examples:\n  glory-ai run seat_advantage                    # a shipped experiment\n"
               "  glory-ai run ismcts_scaling --jobs 2\n"
               "  glory-ai run my_experiment.toml --out results/mine\n")
    run.add_argument("config", metavar="CONFIG",
                     help="an experiment config (TOML) or a shipped experiment's name")
    run.add_argument("--results", default="results", metavar="DIR",
                     help="the folder that holds results/NAME/")
    run.add_argument("--out", default=None, type=argtypes.folder_name, metavar="DIR",
                     help="write into this folder instead of RESULTS/NAME")
    run.add_argument("--fresh", action="store_true",
                     help="start over: move an existing results folder aside to NAME.old-N first "
                          "(needed when its games were made by other code)")
    argtypes.add_trust_option(run)
    argtypes.add_isolation_options(run)
    argtypes.add_scheduling_options(run, BACKENDS, from_config=True)
    run.set_defaults(func=main_run)

    rep = sub.add_parser(
        "reproduce", formatter_class=formatter,
        help="re-run a result folder and check its records are identical",
        description=textwrap.fill(
            "Re-run the experiment stored in a results folder (its experiment.toml) and compare "
            "game records one by one, timing aside; prints the games that differ. Exit status 0 "
            "when identical, 1 when not.", width=88),
        epilog="examples:\n  glory-ai reproduce results/seat_advantage\n"
               "  glory-ai reproduce results/seat_advantage --jobs 2 --backend loky\n")
    rep.add_argument("folder", metavar="FOLDER", help="a results folder written by glory-ai run")
    rep.add_argument("--allow-code-change", action="store_true",
                     help="re-run even runs recorded with other code (code.json) than this")
    rep.add_argument("--trials", action="store_true",
                     help="(a balance study's folder, glory-ai tune) also replay every trial's games, "
                          "not only the validation games")
    argtypes.add_trust_option(rep)
    argtypes.add_isolation_options(rep)
    argtypes.add_scheduling_options(rep, BACKENDS, from_config=True)
    rep.set_defaults(func=main_reproduce)

    ver = sub.add_parser(
        "verify", formatter_class=formatter,
        help="check a run folder or results folder: records, checksums, replays, derived files",
        description=textwrap.fill(
            "Check a run folder (compare, tournament) or an experiment's results folder (run): "
            "every record a game of the plan, recorded once, as checksummed when written, "
            "replaying to its recorded result; then summary.csv, runs.csv, the manifest's counts "
            "and the README as the records give them. Exit status 0 when everything holds, 1 when "
            "not (each problem on one line).", width=88),
        epilog="examples:\n  glory-ai verify results/seat_advantage\n"
               "  glory-ai verify results/compare-1b2c3d4e --sample 100\n"
               "  glory-ai verify results/compare-1b2c3d4e --repair\n")
    ver.add_argument("folder", metavar="FOLDER", help="a run folder or a results folder")
    ver.add_argument("--sample", type=_sample, default=None, metavar="N",
                     help="replay about N games per run, spread over it (default: every game)")
    ver.add_argument("--jobs", "-j", type=argtypes.jobs, default=1, metavar="J",
                     help="parallel workers replaying games (-1: every core)")
    ver.add_argument("--repair", action="store_true",
                     help="under the folder's lock, set the records at fault (damaged, edited or "
                          "repeated lines, a damaged archive's unreadable part) aside in "
                          "quarantine.jsonl, play their games again and verify the folder again; "
                          "nothing is deleted, and a changed config.json is refused")
    ver.set_defaults(func=main_verify)


def build_parser() -> argparse.ArgumentParser:
    """A parser with only these subcommands (for ``python -m glory_ai.experiments.commands``)."""
    parser = argtypes.Parser(prog="python3 -m glory_ai.experiments.commands",
                             formatter_class=argtypes.HelpFormatter)
    register(parser.add_subparsers(dest="command", required=True, parser_class=argtypes.Parser))
    return parser


def main(argv: list[str] | None = None) -> int:
    return run_entry_point(build_parser, argv)


if __name__ == "__main__":
    sys.exit(main())
