"""The `glory-ai` command line.

    glory-ai play  [--players N] [--seed S] [--mode republic|imperium] [--verbose]
    glory-ai bench [--seconds S]

User mistakes print one clear line and exit with status 2.
"""
from __future__ import annotations

import argparse
import random
import sys

from . import __version__
from .game import Game


class UsageError(Exception):
    """A mistake in the command line: printed as one line, exit status 2."""


def _play(args) -> int:
    game = Game(args.players, mode=args.mode)
    state = game.new_initial_state(args.seed)
    policy = random.Random(args.seed)        # the random players' own seeded choices
    turns = 0
    last_turn = -1
    while not state.is_terminal():
        action = policy.choice(state.legal_actions())
        if args.verbose:
            if state.turn_number() != last_turn:
                last_turn = state.turn_number()
                print(f"-- turn {state.turn_number() + 1}, leader P{state.leader()}")
            print(f"   P{state.current_player()}: {state.action_to_string(action)}")
        state.apply_action(action)
        turns = state.turn_number()
    print(state)
    print()
    print(f"Random {args.players}-player {args.mode} game, seed {args.seed}: "
          f"{turns + 1} turns, {state.decisions()} decisions, ended by {state.end_reason()}")
    print(f"{'player':>8} {'VP':>4} {'influence':>10} {'vault':>6} {'bonus':>6} {'hand':>5}")
    for p in range(args.players):
        b = state.score_breakdown(p)
        mark = "  winner" if p in state.winners() else ""
        print(f"{'P%d' % p:>8} {b['total']:>4} {b['influence']:>10} {b['vault']:>6} "
              f"{b['merchant_bonus'] + b['statue'] + b['wall']:>6} {len(state.zone('hand', p)):>5}{mark}")
    return 0


def _bench(args) -> int:
    from .bench import run

    run(args.seconds)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="glory-ai", description="Glory to Rome AI toolkit")
    parser.add_argument("--version", action="version", version=f"glory_ai {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    play = sub.add_parser("play", help="play and print a seeded random game with its final scores")
    play.add_argument("--players", type=int, default=3, help="2 to 5 (default 3)")
    play.add_argument("--seed", type=int, default=0)
    play.add_argument("--mode", default="republic", choices=["republic", "imperium"])
    play.add_argument("--verbose", "-v", action="store_true", help="print every decision")
    play.set_defaults(func=_play)
    bench = sub.add_parser("bench", help="engine speed figures (clone, legal actions, playouts)")
    bench.add_argument("--seconds", type=float, default=2.0)
    bench.set_defaults(func=_bench)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (UsageError, ValueError) as exc:
        print(f"glory-ai: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
