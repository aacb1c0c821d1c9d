"""The commands of the analysis: `glory-ai compare` and `glory-ai tournament` (play a
matchup with the arena, print its table), and `glory-ai report` (the report of runs).

    glory-ai compare SPEC SPEC [...] --games N --players K --jobs J --seed S --out DIR
                     [--mode imperium] [--variant KEY=VALUE ...] [--sprt [ELO0,ELO1[,ALPHA,BETA]]]
                     [--batch-size B] [--backend loky|threading|dask] [--scheduler ADDRESS]
    glory-ai tournament SPEC SPEC [SPEC ...] [--gauntlet CANDIDATE] [the same options, no --sprt]
    glory-ai report RUN_DIR [RUN_DIR ...] [--out DIR] [--title TEXT] [--no-figure-files]
                    [--dask SCHEDULER|local]

Specs are recorded in their canonical form (:func:`glory_ai.arena.plan.canonical_spec`:
``Greedy`` is ``greedy``); compare with one spec, or one spec repeated, is self-play and says
so, printing the win rate by seat. The scheduling options are those of ``glory-ai run``
(:func:`glory_ai._argparse.add_scheduling_options`).

compare and tournament play through :func:`glory_ai.arena.run` (stopped by the SPRT of
:mod:`glory_ai.analysis.stats` when asked), then print the table of
:func:`~glory_ai.analysis.stats.summarize` and write ``summary.csv`` and the plot
(:func:`~glory_ai.analysis.figures.plot_summary`). report writes ``report.html`` (one
self-contained page) and ``summary.csv`` into the first run folder, or ``--out DIR``, with
the figures as PNG and SVG under ``figures/``, and prints the paths and the summary sentences.

``register_compare(subparsers)`` and ``register(subparsers)`` add the subcommands to the
``glory-ai`` parser (their ``func`` is :func:`main_compare` and :func:`main_report`);
``python -m glory_ai.analysis.commands compare|tournament|report ...`` runs them alone.
This module imports only the light parts of glory_ai: the command line registers from it.
User mistakes and outputs that cannot be written print one line on stderr and exit with
status 2; Ctrl-C exits with 130 and SIGTERM with 143 (in compare, after keeping the finished
games and saying how to resume). compare and tournament hold the run folder's lock
(:mod:`glory_ai.arena.lock`) from the first write to the last (their run's life is a
:class:`glory_ai.arena.Session`), report while it writes into a folder.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import math
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import _argparse as argtypes
from .._argparse import EXIT_INTERRUPTED, EXIT_TERMINATED, EXIT_USAGE, run_entry_point
from .._argparse import HelpFormatter as _HelpFormatter
from .._argparse import Parser as _Parser
from .._jsonio import JSONLimitError, value_or_text
from .._words import plural
from ..arena.plan import ArenaError, RunConfig, canonical_spec
from ..arena.runner import BACKENDS
from ..arena.storage import os_error
from ..config import VARIANT_KEYS
from . import AnalysisError

if TYPE_CHECKING:
    from ..arena.runner import StoppingRule
    from ..arena.session import Session

__all__ = ["DEFAULT_SPRT", "build_parser", "main", "main_compare", "main_report", "parse_variant",
           "register", "register_compare"]


#: --sprt without a value: H0 "A is no stronger" (0 normalized Elo) against H1 "A is 50
#: normalized Elo stronger" (about 50 logistic Elo when games are rarely shared and deals
#: favour no seat)
DEFAULT_SPRT = (0.0, 50.0, 0.05, 0.05)


# ---- argument types -----------------------------------------------------------------------

def _sprt(text: str) -> tuple[float, float, float, float]:
    parts = [p.strip() for p in text.split(",")]
    try:
        values = [float(p) for p in parts]
    except ValueError:
        values = []
    if len(values) not in (2, 4) or not all(math.isfinite(v) for v in values):
        raise argparse.ArgumentTypeError(f"expected ELO0,ELO1 or ELO0,ELO1,ALPHA,BETA, got {text!r}")
    if len(values) == 2:
        values += list(DEFAULT_SPRT[2:])
    elo0, elo1, alpha, beta = values
    return (elo0, elo1, alpha, beta)


def _time_limit(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def _variant_item(text: str) -> tuple[str, str]:
    key, eq, value = text.partition("=")
    key = key.strip()
    if not eq or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    if key not in VARIANT_KEYS:
        raise argparse.ArgumentTypeError(f"unknown variant key {key!r}; known: {', '.join(VARIANT_KEYS)}")
    return key, value.strip()


def _name_pairs(key: str, text: str, what: str, number: bool) -> dict[str, Any]:
    """``Name:VALUE,Name:VALUE`` as a dict (VALUE an integer when `number`)."""
    out: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, colon, value = part.rpartition(":")
        parsed: Any = value.strip()
        if number:
            try:
                parsed = int(value)
            except ValueError:
                colon = ""
        if not colon or not name.strip() or not parsed:
            raise ArenaError(f"--variant {key}: expected Name:{what},..., got {part!r}")
        out[name.strip()] = parsed
    return out


def parse_variant(items: Sequence[tuple[str, str]] | None) -> dict[str, Any]:
    """--variant KEY=VALUE items as Game options: numbers for the sizes, ``removed=A,B`` and
    ``powers_off=A,B`` (names), ``copies=Name:N,Name:N``, ``points=Name:N,Name:N`` and
    ``materials=Name:Material,Name:Material``; a JSON value is also accepted."""
    out: dict[str, Any] = {}
    for key, text in items or ():
        if key in out:
            raise ArenaError(f"--variant {key} given twice")
        try:
            value: Any = value_or_text(text, f"--variant {key}")
        except JSONLimitError as exc:
            raise ArenaError(str(exc)) from None
        if isinstance(value, str):
            if key in ("removed", "powers_off"):
                value = [n.strip() for n in text.split(",") if n.strip()]
            elif key in ("copies", "points"):
                value = _name_pairs(key, text, "COUNT" if key == "copies" else "POINTS", True)
            elif key == "materials":
                value = _name_pairs(key, text, "MATERIAL", False)
        out[key] = value
    return out


# ---- the parsers ----------------------------------------------------------------------------

def _add_options(parser: argparse.ArgumentParser, command: str) -> None:
    parser.add_argument("specs", nargs="+", metavar="SPEC",
                        help="bot specs, e.g. random, greedy, heuristic:style=merchant, "
                             "ismcts:iters=200 (`glory-ai bots` lists every bot and its parameters; "
                             "names are read in any case and recorded in lower case); a bot of your "
                             "own, ./my_bot.py:ClassName or package.module:ClassName, with --trust")
    parser.add_argument("--games", type=argtypes.positive("games"), default=100, metavar="N",
                        help="games in all, rounded up to whole deals (every deal is played in "
                             "every seat rotation and pairing)")
    if command == "compare":
        parser.add_argument("--players", type=argtypes.players, default=2, metavar="K",
                            help="seats per game, 2 to 5 (more than 2: a field with every seat "
                                 "rotation; 2 with more than 2 specs: a round robin; one spec, or "
                                 "the same spec repeated: self-play)")
    parser.add_argument("--seed", type=argtypes.seed, default=0, metavar="S",
                        help="root seed of the deals and bots (0 to 2**64 - 1)")
    parser.add_argument("--out", metavar="DIR", type=argtypes.folder_name, default=None,
                        help="run folder (default: results/<command>-<hash of the config>/); a "
                             "folder holding an interrupted run of the same config is resumed")
    parser.add_argument("--mode", type=argtypes.mode, default="republic", metavar="MODE",
                        help="republic or imperium")
    parser.add_argument("--variant", type=_variant_item, action="append", metavar="KEY=VALUE",
                        help=f"rule variant option ({', '.join(VARIANT_KEYS)}); repeatable; "
                             "removed=Name,Name, copies=Name:N,Name:N, materials=Name:Material,..., "
                             "points=Name:N,... and powers_off=Name,Name")
    if command == "tournament":
        # not offered: the SPRT decides one head-to-head match, a tournament plays several
        # pairs; given anyway, it is refused by name (_config)
        parser.add_argument("--sprt", nargs="?", const="", default=None, help=argparse.SUPPRESS)
    else:
        parser.add_argument("--sprt", type=_sprt, nargs="?", const=DEFAULT_SPRT, default=None,
                            metavar="ELO0,ELO1[,ALPHA,BETA]",
                            help="head to head only: stop once the SPRT (pentanomial, over whole "
                                 "deals) decides between H0 (first spec at most ELO0 normalized Elo "
                                 "stronger) and H1 (at least ELO1 stronger); --games is then the "
                                 "maximum (alone: 0,50,0.05,0.05)")
    parser.add_argument("--no-rotation", action="store_true",
                        help="play each deal once instead of once per seat rotation")
    parser.add_argument("--move-time-limit", type=_time_limit, default=None, metavar="S",
                        help="seconds (wall clock) a bot may take over one decision; a slower "
                             "move stops the run (or forfeits, with --forfeit)")
    parser.add_argument("--forfeit", action="store_true",
                        help="a bot that fails (raises, returns an illegal action, changes its "
                             "state, exceeds the time limit) concedes that game and the run goes "
                             "on, instead of stopping (docs/extending.md)")
    parser.add_argument("--fresh", action="store_true",
                        help="start over: a folder already holding games is moved aside to "
                             "DIR.old-N first (needed to replay a folder made by other code)")
    argtypes.add_trust_option(parser)
    argtypes.add_isolation_options(parser)
    argtypes.add_scheduling_options(parser, BACKENDS)


def register_compare(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``compare`` and ``tournament`` subcommands (``func`` = :func:`main_compare`)."""
    compare = subparsers.add_parser(
        "compare", formatter_class=_HelpFormatter,
        help="play bots against each other and compare them (win rates, ratings, plot)",
        description="Play a matchup between bots: 2 specs and 2 players: head to head, every "
                    "deal with the seats swapped; more players: a field in every seat rotation; "
                    "more specs than seats with 2 players: a round robin. Prints a results "
                    "table and writes DIR/games.jsonl, config.json, summary.csv and "
                    "win_rates.png. Rerunning into the same folder resumes.",
        epilog="examples:\n"
               "  glory-ai compare greedy random --games 200\n"
               "  glory-ai compare ismcts:iters=200 greedy --games 400 --sprt --out results/is200\n"
               "  glory-ai compare greedy heuristic:style=merchant random --players 3 --games 60\n"
               "  glory-ai compare greedy random --variant refill_size=6 --variant removed=Sewer\n"
               "  glory-ai compare ./my_bot.py:Cautious greedy --trust   # runs the code of my_bot.py\n"
               "  glory-ai compare greedy random --backend dask --scheduler tcp://scheduler-host:8786\n")
    _add_options(compare, "compare")
    compare.set_defaults(func=main_compare, arena_command="compare")

    tournament = subparsers.add_parser(
        "tournament", formatter_class=_HelpFormatter,
        help="round robin (or gauntlet) of 2-player matches between bots",
        description="Every pair of specs plays head to head on the same deals, with the seats "
                    "swapped; ratings are Bradley-Terry on finishing order with a prior and "
                    "deal-bootstrap intervals. With "
                    "--gauntlet CANDIDATE, the candidate plays each SPEC instead.",
        epilog="examples:\n"
               "  glory-ai tournament random greedy heuristic:style=builder heuristic:style=merchant\n"
               "  glory-ai tournament greedy heuristic:style=patron --gauntlet ismcts:iters=200\n")
    _add_options(tournament, "tournament")
    tournament.add_argument("--gauntlet", metavar="CANDIDATE", default=None,
                            help="play CANDIDATE against each SPEC instead of a round robin")
    tournament.set_defaults(func=main_compare, arena_command="tournament", players=2)


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
               "  glory-ai report results/seat_advantage --out /tmp/seats   # every run of an experiment\n"
               "  glory-ai report 'results/*/runs/greedy-*' --out /tmp/greedy   # a study across folders\n"
               "  glory-ai report results/ladder2 results/ladder3 --out results/ladder-report\n"
               "  glory-ai report results/republic results/imperium --out results/modes\n")
    report.add_argument("runs", nargs="+", metavar="RUN_DIR",
                        help="run folders (config.json and games.jsonl) or games.jsonl files; a folder "
                             "holding runs (an experiment's results, results/NAME) or a quoted glob "
                             "('results/*/runs/*') stands for every run in it: one report across them")
    report.add_argument("--out", metavar="DIR", type=argtypes.folder_name, default=None,
                        help="where to write (default: the first RUN_DIR)")
    report.add_argument("--title", default=None, help="the page title")
    report.add_argument("--no-figure-files", action="store_true",
                        help="do not write figures/*.png and *.svg (the page has them inline)")
    report.add_argument("--dask", metavar="SCHEDULER", default=None,
                        help="read the runs on a dask cluster: a scheduler address (tcp://HOST:8786; its "
                             "workers must see the run folders) or 'local' (a cluster of this machine); "
                             "the same tables (dask is an optional extra)")
    report.set_defaults(func=main_report)


def build_parser() -> argparse.ArgumentParser:
    """A parser with only these subcommands (for ``python -m glory_ai.analysis.commands``)."""
    parser = _Parser(prog="glory-ai", formatter_class=_HelpFormatter,
                     description="Glory to Rome bot matchups and their analysis.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                title="commands", parser_class=_Parser)
    register_compare(sub)
    register(sub)
    return parser


# ---- compare and tournament --------------------------------------------------------------

def _config(args: argparse.Namespace) -> tuple[RunConfig, str]:
    command = getattr(args, "arena_command", "compare")
    specs = list(args.specs)
    fmt = None
    if command == "tournament":
        if args.sprt is not None:
            raise ArenaError("--sprt stops one head-to-head match once decided, and a tournament "
                             "plays several pairs: use `glory-ai compare A B --sprt` for a pair")
        if args.gauntlet is not None:
            specs = [args.gauntlet, *specs]
            fmt = "gauntlet"
        else:
            fmt = "round_robin"
    elif len(specs) > 1 and len({canonical_spec(spec) for spec in specs}) == 1:
        specs = specs[:1]               # `compare random random`: self-play, as `compare random`
    options = dict(players=args.players, mode=args.mode, variant=parse_variant(args.variant),
                   seed=args.seed, format=fmt, rotate=not args.no_rotation,
                   sprt=args.sprt if command == "compare" else None)
    return RunConfig.for_games(specs, args.games, **options), command


def _self_play(config: RunConfig) -> bool:
    return len(set(config.specs)) == 1


def _deal_sprt(config: RunConfig) -> StoppingRule:
    # the statistics are imported once the folder is held, as the table needs them anyway
    from .stats import DealSPRT

    return DealSPRT.for_config(config)


def _run(args: argparse.Namespace) -> int:
    from ..arena.session import Session

    config, command = _config(args)
    out = Path(args.out) if args.out is not None else Path("results") / f"{command}-{config.short_hash()}"
    if out.exists() and not out.is_dir():
        raise ArenaError(f"{out} exists and is not a folder")
    print(config.describe())
    if _self_play(config):
        print(f"self-play: {config.specs[0]} holds every seat, so its win rate is 1/{config.players} "
              "by construction; these games measure the seats only (the win rate by seat, below), "
              "not the bot")

    def aside(moved: Path, fresh: bool) -> None:
        why = "--fresh" if fresh else "the code changed since it was played"
        print(f"{why}: the earlier games of {out} are kept in {moved}; starting over")

    # the default folder of these options, holding games of other code, starts over (a user who
    # edited a bot and runs the same command expects the new code to play); a folder named
    # with --out is refused instead, naming what changed
    with Session(out, fresh=args.fresh, renew=None if args.out is not None else config,
                 on_aside=aside, sprt=_deal_sprt, n_jobs=args.jobs,
                 batch_size=args.batch_size, backend=args.backend, scheduler=args.scheduler,
                 progress=False if args.no_progress else None,
                 move_time_limit=args.move_time_limit, forfeit=args.forfeit,
                 isolation=args.isolation or "users", bot_memory=args.bot_memory) as session:
        return _play(config, session, games=args.games)


def _play(config: RunConfig, session: Session, games: int) -> int:
    from .columns import ColumnsWriter
    from .figures import plot_summary
    from .stats.summary import finishing_frame, format_table, summarize_run

    out = session.out
    plan = (f"{plural(config.deals, 'deal')} x {plural(config.games_per_deal, 'game')} per deal"
            + (" (every seat rotation" + (" and pairing)" if len(config.pairings()) > 1 else ")")
               if config.rotations > 1 else ""))
    if config.total_games != games:
        print(f"--games {games} rounded up to {plural(config.total_games, 'game')}: {plan}")
    else:
        print(f"{plural(config.total_games, 'game')}: {plan}")
    if config.sprt is not None:
        print(f"SPRT: stops once decided (elo0={config.sprt[0]:g}, elo1={config.sprt[1]:g} "
              f"normalized Elo, alpha={config.sprt[2]:g}, beta={config.sprt[3]:g}); "
              f"{plural(config.total_games, 'game')} at most")
    found = session.check(config)           # a folder of another config or code is refused here
    if found is not None and found >= config.total_games:
        # no "resuming": every game is there already (the table is made from them)
        print(f"the run in {out} is already complete ({plural(found, 'game')}): nothing to play")
    elif found is not None:
        print(f"resuming the run in {out}: about {plural(found, 'game')} already played")
    sys.stdout.flush()

    # the columns made as the games are written (not read back after the run); stopped by
    # the SPRT when the config has one (a session without the test: run() refuses as before)
    sprt = session.sprt(config) if config.sprt is not None and session.sprt is not None else None
    writer = ColumnsWriter(sprt) if config.sprt is None or sprt is not None else None
    result = session.play(config, stop=writer)
    if writer is not None:
        writer.finish(result)
    # the table from the run's columns: memory that does not grow with the number of games
    summary = summarize_run(out, config)
    print()
    print(format_table(summary))
    print(_COLUMNS_LINE)
    if _self_play(config):
        print()
        print(_seat_table(out))
    if len(config.specs) > 2 and summary.attrs.get("finishing"):
        matrix = finishing_frame(summary)
        print()
        print("finishing ahead (row against column): the fraction of games in which the row "
              "finished ahead of the column, 1/2 for an equal place")
        print(matrix.to_string(float_format=lambda x: f"{x:.2f}", na_rep="-"))
    try:
        summary.to_csv(out / "summary.csv", float_format="%.6g")
        plot = plot_summary(summary, out / "win_rates.png")
    except OSError as error:
        raise os_error(error.filename or out, error) from None
    print()
    if result.played:
        print(f"played {plural(result.played, 'game')} in {result.seconds:.1f} s"
              + (f" ({result.resumed} resumed from the folder)" if result.resumed else "")
              + f"; {plural(result.games, 'game')} in {out / 'games.jsonl'}")
    else:
        print(f"no game played: the {plural(result.games, 'game')} of {out / 'games.jsonl'} "
              "were played before")
    print(f"summary: {out / 'summary.csv'}")
    print(f"plot: {plot}")
    return 0


#: the table's columns, in one line under it (the intervals have a line each above it)
_COLUMNS_LINE = ("columns: games = seats played (a spec in two seats of a game counts two); win rate = "
                 "share of those won, a shared win split, with its 95% interval; rating with its 95% "
                 "interval (Elo diff: head to head; BT Elo: Bradley-Terry from finishing order); mean VP "
                 "at the end; ms/move = milliseconds per decision")


def _seat_table(out: Path) -> str:
    """The win rate by seat of a self-play run, with its deal-bootstrap interval."""
    from .load import load_runs
    from .stats import seat_advantage

    table = seat_advantage(load_runs([out], columns=("run", "game", "deal", "num_players", "seat",
                                                     "spec", "win_share")))
    lines = ["win rate by seat (P1 leads the first turn; 95% deal-bootstrap interval; "
             "even seats would each win 1/players):"]
    for (players, seat), row in table.iterrows():
        lines.append(f"  P{seat + 1}  {100 * row['win_rate']:5.1f}%  [{100 * row['win_low']:.1f}, "
                     f"{100 * row['win_high']:.1f}]  over {plural(int(row['games']), 'game')} "
                     f"(even: {100 / players:.1f}%)")
    return "\n".join(lines)


def main_compare(args: argparse.Namespace | Sequence[str]) -> int:
    """Run ``compare`` or ``tournament`` from parsed arguments (or an argv list such as
    ``["greedy", "random", "--games", "10"]``, optionally led by the subcommand name)."""
    from ..arena import RunInterrupted
    from ..arena.runner import Terminated, sigterm_interrupts
    from ..bots.trust import code_trust, require_trust

    if not isinstance(args, argparse.Namespace):
        argv = list(args)
        if not argv or argv[0] not in ("compare", "tournament"):
            argv = ["compare", *argv]
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as exc:
            return int(exc.code or 0)
    try:
        with sigterm_interrupts(), code_trust(args.trust):
            require_trust([*args.specs, getattr(args, "gauntlet", None)])  # all listed, before any runs
            return _run(args)
    except RunInterrupted as exc:
        sys.stdout.flush()
        where = f" in {exc.out}" if exc.out is not None else ""
        what = "terminated" if exc.terminated else "interrupted"
        print(f"\nglory-ai: {what}: {exc.finished} of {exc.total} games are saved{where}; "
              "run the same command again to resume", file=sys.stderr)
        return EXIT_TERMINATED if exc.terminated else EXIT_INTERRUPTED
    except KeyboardInterrupt as exc:
        terminated = isinstance(exc, Terminated)
        print(f"\nglory-ai: {'terminated' if terminated else 'interrupted'}", file=sys.stderr)
        return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED
    except BrokenPipeError:             # stdout's reader left: the entry point ends quietly
        raise
    except (ValueError, OSError) as exc:  # ArenaError, SpecError and the engine's ValueErrors
        sys.stdout.flush()
        print(f"glory-ai: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, OSError) and not isinstance(exc, ValueError):
        return str(os_error(exc.filename or "output", exc))
    return " ".join(str(exc).split())


# ---- report ------------------------------------------------------------------------------

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
    from ..arena.lock import FolderLock
    from .cluster import report_client
    from .report import write_report_full

    try:
        from .load import run_folders

        runs = [run for given in args.runs for run in run_folders(given)]
        if len(runs) != len(set(runs)):
            raise AnalysisError("a run is named twice (by two of the paths given)")
        if len(runs) > len(args.runs) or len(runs) > 1:
            print(_across(runs))
        # the folder written into is held as a run's is: not while a run writes there
        target = Path(args.out if args.out is not None else runs[0])
        if target.is_file():
            target = target.parent
        lock = FolderLock(target, create=True) if args.out is not None or target.is_dir() else None
        if lock is not None:
            lock.acquire()
        written = False
        try:
            with contextlib.ExitStack() as stack:
                client = stack.enter_context(report_client(args.dask)) if args.dask else None
                html_path, csv_path, report = write_report_full(
                    runs, args.out, title=args.title, figure_files=not args.no_figure_files, client=client)
            written = True
        finally:
            if lock is not None:
                lock.release(cleanup=not written)
    except KeyboardInterrupt:
        print("glory-ai: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:             # stdout's reader left: the entry point ends quietly
        raise
    except (AnalysisError, ValueError, OSError) as exc:
        sys.stdout.flush()
        print(f"glory-ai: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    print(f"report: {html_path}")
    print(f"summary: {csv_path}")
    print()
    for sentence in report.sentences:
        print(f"- {sentence}")
    return 0


def _across(runs: Sequence[Path]) -> str:
    """One line on the runs of a report across folders: how many, and whether they share their
    rules and their bots (pooled where they do; the rules compared side by side where not)."""
    from ..arena.storage import read_config

    rules, bots = set(), set()
    for run in runs:
        try:
            config = read_config(run if run.is_dir() else run.parent).get("config", {})
        except (ArenaError, OSError):
            continue
        rules.add(json.dumps([config.get("mode"), config.get("variant")], sort_keys=True))
        bots.add(tuple(sorted(config.get("specs", ()))))
    parts = [plural(len(runs), "run")]
    parts.append("one rule set" if len(rules) <= 1 else
                 f"{len(rules)} rule sets (tables pool the games of each spec; the rules are compared "
                 "side by side)")
    parts.append("the same bots" if len(bots) <= 1 else
                 f"{len(bots)} line-ups of bots (a spec's games pooled across the runs that seat it)")
    return "report across " + "; ".join(parts)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m glory_ai.analysis.commands compare|tournament|report ...``"""
    return run_entry_point(build_parser, argv)


if __name__ == "__main__":
    sys.exit(main())
