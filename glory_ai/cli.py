"""The `glory-ai` command line.

    glory-ai compare SPEC SPEC ... [--games N] [--players K] [--jobs J] [--seed S] [--out DIR]
    glory-ai tournament SPEC ... [--gauntlet CANDIDATE]
    glory-ai report RUN_DIR ... [--out DIR]
    glory-ai run NAME|CONFIG.toml [--out DIR] [--jobs J]
    glory-ai reproduce results/NAME [--jobs J]
    glory-ai verify DIR [--sample N] [--repair]
    glory-ai tune NAME|CONFIG.toml [--trials N] [--out DIR] [--jobs J]
    glory-ai play  [--players N] [--bots SPEC,...] [--seat K] [--seed S] [--mode MODE] [--resume FILE]
    glory-ai watch --bots SPEC,... [--delay S] [--as P]
    glory-ai replay RECORD [--game ID] [--as P] [--html OUT.html] [--notation OUT]
    glory-ai analyze POSITION.json [--bot SPEC] [--player P]
    glory-ai selfplay SPEC ... --games N --out DIR
    glory-ai train CONFIG.toml
    glory-ai learn CONFIG.toml
    glory-ai learn-prior CONFIG.toml
    glory-ai bench [--seconds S] [--search] [--compare]
    glory-ai bots

Documentation: README.md and docs/ (arena.md for compare and tournament, analysis.md for
report, experiments.md for run, reproduce and verify, play.md for play, watch, replay and
analyze, learning.md for selfplay, train and learn, integrations.md for bench --compare,
bots.md for learn-prior, bots.md and extending.md for specs).

compare, tournament, run and reproduce share one vocabulary for scheduling the games
(``_argparse.add_scheduling_options``: --jobs/-j, --backend, --scheduler, --batch-size,
--no-progress); bot specs are read in any case and recorded in lower case
(glory_ai.arena.plan.canonical_spec).

Each subcommand is one `_register_<name>(subparsers)` function that adds its parser and
sets `func`; add a subcommand by writing one more and listing it in SUBCOMMANDS.

User mistakes print one line on stderr and exit with status 2. Output cut short by a
closed pipe (`glory-ai play -v | head`) ends quietly with status 141 (128 + SIGPIPE, as a
process killed by SIGPIPE reports), and Ctrl-C with status 130.
"""
from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Sequence

from . import __version__
from . import _argparse as argtypes
from ._argparse import EXIT_BROKEN_PIPE, EXIT_INTERRUPTED, EXIT_USAGE, run_entry_point
from ._argparse import HelpFormatter as _HelpFormatter
from ._argparse import Parser as _Parser

__all__ = ["EXIT_BROKEN_PIPE", "EXIT_INTERRUPTED", "EXIT_USAGE", "SUBCOMMANDS", "build_parser", "main"]

MAX_BENCH_SECONDS = 600.0


# ---- bench ------------------------------------------------------------------------------

def _nonnegative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {value}")
    return value


def _milliseconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= 60_000:
        raise argparse.ArgumentTypeError(f"expected milliseconds more than 0 and at most 60000, got {text!r}")
    return value


def _bench(args) -> int:
    from .bench import compare, run

    if args.compare:
        try:
            import glory_ai.integrations.openspiel  # noqa: F401
        except ImportError as error:
            raise SystemExit(f"glory-ai bench --compare: {error}") from None
        compare(args.out, seconds=args.seconds, search_states=args.states, iters=args.iters,
                match_games=args.match_games, timed_games=args.games, move_ms=args.move_ms, jobs=args.jobs,
                progress=lambda line: print(line, flush=True))
        return 0

    if not args.search_only:
        run(args.seconds, progress=lambda line: print(line, flush=True))
    if args.search or args.search_only:
        from .bots.bench import run as run_search

        run_search(states_per_count=args.states, iters=args.iters,
                   progress=lambda line: print(line, flush=True))
    return 0


def _register_bench(sub) -> None:
    bench = sub.add_parser(
        "bench", formatter_class=_HelpFormatter,
        help="engine speed figures (clone, legal actions, apply, playouts, determinize)",
        description="Measure the engine on this machine, on one core, for 2 and 4 players: ns per "
                    "clone / legal_actions / apply_action / determinization, and random full games "
                    "per second through the C-level playout. Compare ratios measured in one run, "
                    "not absolute figures across machines.",
        epilog="examples:\n"
               "  glory-ai bench                  # a few seconds: 2 x (--seconds + about 1 s)\n"
               "  glory-ai bench --seconds 0.5    # shorter playout measurement (a smoke run)\n"
               "  glory-ai bench --compare --out results/bench   # against OpenSpiel (over an hour)\n"
               "  glory-ai bench --compare --games 0 --match-games 0   # speed only (minutes)\n")
    bench.add_argument("--seconds", type=argtypes.seconds(0, MAX_BENCH_SECONDS), default=2.0, metavar="S",
                       help=f"time spent measuring playouts per player count "
                            f"(more than 0, at most {MAX_BENCH_SECONDS:g})")
    bench.add_argument("--search", action="store_true",
                       help="also measure the bots' search: ISMCTS/PIMC iterations per second, "
                            "thread scaling, time budgets")
    bench.add_argument("--search-only", action="store_true", help="only the search figures")
    bench.add_argument("--iters", type=argtypes.positive("iterations"), default=4000, metavar="N",
                       help="iterations per search measured (with --search)")
    bench.add_argument("--states", type=argtypes.positive("states"), default=6, metavar="K",
                       help="mid-game states per player count (with --search)")
    compare = bench.add_argument_group(
        "against OpenSpiel (--compare; pip install 'glory_ai[openspiel]'; docs/integrations.md)")
    compare.add_argument("--compare", action="store_true",
                         help="glory_ai and OpenSpiel side by side in one run: playouts (with OpenSpiel's "
                              "hearts), ISMCTS iterations, clone and determinize, and matches")
    compare.add_argument("--out", metavar="DIR", help="write compare.md and compare.csv into DIR")
    compare.add_argument("--games", type=_nonnegative_int, default=200, metavar="N",
                         help="two-player games of the match at equal time per move (0: none)")
    compare.add_argument("--move-ms", type=_milliseconds, default=100.0, metavar="T",
                         help="milliseconds per move of both bots in that match")
    compare.add_argument("--match-games", type=_nonnegative_int, default=40, metavar="N",
                         help="two-player games of the match at equal iterations (100 each; 0: none)")
    compare.add_argument("--jobs", type=argtypes.positive("processes"), default=1, metavar="J",
                         help="processes playing the matches")
    bench.set_defaults(func=_bench)


# ---- bots -------------------------------------------------------------------------------

def _bots(args) -> int:
    from .bots import registry

    for info in registry().values():
        origin = "" if info.origin == "built-in" else f" [{info.origin}]"
        print(f"{info.name}{origin}: {info.description}")
        for param in info.params:
            print(f"    {param.describe()}")
        if args.verbose and info.params:
            example = ",".join(f"{p.name}={str(p.default).lower()}" for p in info.params[:2])
            print(f"    e.g. {info.name}:{example}")
    return 0


def _register_bots(sub) -> None:
    bots = sub.add_parser(
        "bots", formatter_class=_HelpFormatter,
        help="list the bots, their parameters and defaults",
        description="Every bot that a spec string can name (name:key=value,...), with each "
                    "parameter's default, accepted values and meaning (docs/bots.md): the "
                    "built-ins, then those of installed plugins (entry points, "
                    "docs/extending.md). A bot of your own can also be named by its file or "
                    "module: ./my_bot.py:ClassName:key=value.",
        epilog="examples:\n"
               "  glory-ai bots\n"
               "  glory-ai compare ismcts:iters=1000 heuristic:style=builder --games 100\n")
    bots.add_argument("--verbose", "-v", action="store_true", help="also print an example spec per bot")
    bots.set_defaults(func=_bots)


# ---- the parser -------------------------------------------------------------------------

#: one registering function per subcommand, in the order `glory-ai --help` lists them
def _register_arena(sub) -> None:
    from .analysis.commands import register_compare

    register_compare(sub)


def _register_experiments(sub) -> None:
    from .experiments.commands import register

    register(sub)


def _register_analysis(sub) -> None:
    from .analysis.commands import register

    register(sub)


def _register_tune(sub) -> None:
    from .tune.commands import register

    register(sub)


def _register_learn(sub) -> None:
    from .learn.commands import register

    register(sub)


def _register_interactive(sub) -> None:
    from .interactive.commands import register

    register(sub)


SUBCOMMANDS: list[Callable] = [_register_arena, _register_experiments, _register_analysis,
                               _register_tune, _register_learn, _register_interactive, _register_bench,
                               _register_bots]


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="glory-ai", formatter_class=_HelpFormatter,
        description="Glory to Rome (Black Box edition) AI toolkit: an exact rules engine for "
                    "2 to 5 players, Republic and Imperium.",
        epilog="examples:\n"
               "  glory-ai compare ismcts:iters=200 greedy random --players 3 --games 60\n"
               "  glory-ai bots\n"
               "  glory-ai run seat_advantage\n"
               "  glory-ai play --players 3 --seed 7\n"
               "  glory-ai bench --seconds 1\n"
               "  glory-ai compare --help\n")
    parser.add_argument("--version", action="version", version=f"glory_ai {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                title="commands", parser_class=_Parser)
    for register in SUBCOMMANDS:
        register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    return run_entry_point(build_parser, argv)


if __name__ == "__main__":
    sys.exit(main())
