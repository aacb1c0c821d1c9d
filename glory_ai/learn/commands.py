"""The ``selfplay``, ``train`` and ``learn`` subcommands (docs/learning.md).

    glory-ai selfplay SPEC [SPEC ...] --games N [--players K] [--positions P] --out DIR
    glory-ai train CONFIG.toml [--out DIR]
    glory-ai learn CONFIG.toml [--out DIR] [--fresh]
    glory-ai learn-prior CONFIG.toml [--out DIR]
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from .. import _argparse as argtypes
from .._argparse import EXIT_INTERRUPTED, run_entry_point
from .._argparse import HelpFormatter as _HelpFormatter
from .._argparse import Parser as _Parser

__all__ = ["main", "register"]


def _interrupted(exc: KeyboardInterrupt) -> int:
    sys.stdout.flush()
    print(f"\nglory-ai: {exc or 'interrupted'}; the finished games and shards are kept: run the "
          "same command again to resume", file=sys.stderr)
    return EXIT_INTERRUPTED


def main_selfplay(args: argparse.Namespace) -> int:
    from ..arena import RunConfig
    from .shards import SelfPlayConfig, selfplay

    run = RunConfig.for_games(args.specs, args.games, players=args.players, mode=args.mode,
                              seed=args.seed)
    config = SelfPlayConfig(run, args.positions, args.shard_deals)
    try:
        result = selfplay(config, args.out, n_jobs=args.jobs, progress=False if args.no_progress else None,
                          isolation=args.isolation or "users", bot_memory=args.bot_memory)
    except KeyboardInterrupt as exc:
        return _interrupted(exc)
    print(f"{result.games} games ({result.played} played now) in {result.out / 'games'}; "
          f"{result.positions} positions, {result.rows} rows in {len(result.shards)} shards "
          f"({result.out / 'shards'})")
    return 0


def main_train(args: argparse.Namespace) -> int:
    from .fitting import load_train_config, train

    config = load_train_config(args.config)
    if args.out is None and config.out is None:
        raise ValueError(f"{args.config}: no output folder: give out = \"DIR\" in the config or --out DIR")
    result = train(config, args.out, log=print)
    print(f"models: {', '.join(str(p) for p in result.models.values())} (model.npz = {result.chosen}); "
          f"report: {result.out / 'report.md'}")
    return 0


def main_learn(args: argparse.Namespace) -> int:
    from .iterate import learn, load_learn_config

    config = load_learn_config(args.config)
    out = args.out if args.out is not None else Path("results") / config.name
    try:
        learn(config, out, fresh=args.fresh, progress=False if args.no_progress else None)
    except KeyboardInterrupt as exc:
        return _interrupted(exc)
    print(f"summary: {Path(out) / 'README.md'}")
    return 0


def main_learn_prior(args: argparse.Namespace) -> int:
    from .prior import learn_prior, load_prior_config

    config = load_prior_config(args.config)
    out = args.out if args.out is not None else Path("results") / config.name
    try:
        learn_prior(config, out)
    except KeyboardInterrupt as exc:
        return _interrupted(exc)
    print(f"summary: {Path(out) / 'README.md'}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``selfplay``, ``train``, ``learn`` and ``learn-prior``."""
    selfplay = sub.add_parser(
        "selfplay", formatter_class=_HelpFormatter,
        help="play games between bots and write training shards (features and outcomes)",
        description="Play games between bots through the arena (seeded, resumable: DIR/games is an "
                    "arena run) and write, per batch of finished deals, a compressed shard "
                    "DIR/shards/shard-NNNNN.npz: for a few positions per game, spread over its "
                    "length, every player's feature vector with the game's outcome for that player "
                    "(win share, rank, VP margin), the player count and mode, and the game id. "
                    "Rerunning into the same folder resumes.",
        epilog="examples:\n"
               "  glory-ai selfplay greedy --games 100 --out selfplay-greedy\n"
               "  glory-ai selfplay ismcts:iters=100 --players 3 --games 60 --positions 6 --out sp3\n")
    selfplay.add_argument("specs", nargs="+", metavar="SPEC", help="bot specs (one spec: it plays itself)")
    selfplay.add_argument("--games", type=argtypes.positive("games"), default=100, metavar="N",
                          help="games in all, rounded up to whole deals")
    selfplay.add_argument("--players", type=argtypes.players, default=2, metavar="K", help="seats per game")
    selfplay.add_argument("--mode", type=argtypes.mode, default="republic", help="republic or imperium")
    selfplay.add_argument("--positions", type=argtypes.positive("positions"), default=4, metavar="P",
                          help="positions sampled per game (one per equal stretch of its length)")
    selfplay.add_argument("--shard-deals", type=argtypes.positive("deals"), default=25, metavar="D",
                          help="deals per shard")
    selfplay.add_argument("--seed", type=argtypes.seed, default=0, metavar="S", help="root seed")
    selfplay.add_argument("--jobs", type=argtypes.jobs, default=1, metavar="J",
                          help="parallel workers (-1: every core)")
    selfplay.add_argument("--out", required=True, metavar="DIR", help="the self-play folder")
    selfplay.add_argument("--no-progress", action="store_true", help="no progress bar")
    argtypes.add_trust_option(selfplay)
    argtypes.add_isolation_options(selfplay)
    selfplay.set_defaults(func=main_selfplay)

    train = sub.add_parser(
        "train", formatter_class=_HelpFormatter,
        help="fit a linear model and an MLP on self-play shards; write the .npz models and a report",
        description="Fit evaluation models (a linear model and a small MLP, scikit-learn) on "
                    "self-play shards, holding out whole deals, and write linear.npz, mlp.npz, "
                    "model.npz (the chosen one), report.md, report.json, loss.png and "
                    "calibration.png. The models are win_logit files the search reads "
                    "(ismcts:eval=DIR/model.npz). A fixed seed gives the same files.",
        epilog="examples:\n"
               "  glory-ai train train.toml\n"
               "  glory-ai train train.toml --out models/gen1\n")
    train.add_argument("config", metavar="CONFIG.toml", help="the training config (docs/learning.md)")
    train.add_argument("--out", default=None, metavar="DIR", help="output folder (default: the config's out)")
    train.set_defaults(func=main_train)

    learn = sub.add_parser(
        "learn", formatter_class=_HelpFormatter,
        help="expert iteration: self-play, train, play the hand-set style's search, for several generations",
        description="Run an expert-iteration config: generation 0 is the search with a hand-set "
                    "style; generation k+1's model is trained on the self-play games of the search "
                    "with the model kept so far (a new generation replaces it only if it is at least "
                    "as good: the config's [guard]); every learned generation plays the search with the "
                    "hand-set style. "
                    "Writes OUT (default results/NAME) with a README of the numbers; rerunning resumes.",
        epilog="examples:\n"
               "  glory-ai learn experiments/learning/learned_evaluation.toml\n"
               "  glory-ai learn experiments/learning/learned_evaluation.toml --fresh   # start over\n")
    learn.add_argument("config", metavar="CONFIG.toml", help="the expert-iteration config")
    learn.add_argument("--out", default=None, metavar="DIR", help="output folder (default results/NAME)")
    learn.add_argument("--fresh", action="store_true",
                       help="first remove the generations and files an earlier run wrote into OUT "
                            "(hand-written files such as NOTES.md stay)")
    learn.add_argument("--no-progress", action="store_true", help="no progress bars")
    learn.set_defaults(func=main_learn)

    prior = sub.add_parser(
        "learn-prior", formatter_class=_HelpFormatter,
        help="expert iteration of the search's prior over actions (prior=): self-play, fit, for generations",
        description="Run a learn-prior config: generation 0 is the search without a prior; generation "
                    "k+1's prior (a linear model per player count over afterstate features) is fitted "
                    "on the root visit counts recorded in the self-play of generations 0..k, each "
                    "played with its own prior. Writes OUT (default results/NAME): gen-K/prior-N.npz "
                    "(prior=OUT/gen-K), the recorded decisions, summary.json and a README; rerunning "
                    "resumes.",
        epilog="example:\n  glory-ai learn-prior experiments/learning/learned_prior.toml\n")
    prior.add_argument("config", metavar="CONFIG.toml", help="the learn-prior config")
    prior.add_argument("--out", default=None, metavar="DIR", help="output folder (default results/NAME)")
    prior.set_defaults(func=main_learn_prior)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python3 -m glory_ai.learn.commands", formatter_class=_HelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)
    register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    return run_entry_point(build_parser, argv)


if __name__ == "__main__":
    sys.exit(main())
