"""The ``play``, ``watch``, ``replay`` and ``analyze`` subcommands (docs/play.md).

``register(subparsers)`` adds them to the ``glory-ai`` parser. Who sits at the table in
``play``: with ``--seat K`` a person plays seat K; without ``--seat`` the person takes
seat 0 when the input and the output are a terminal, and otherwise (a pipe, a script, CI)
nobody does: the bots play (the ``random`` bot in every seat without ``--bots``, seeded as
every bot is) and the final position and scores are printed; ``--games FILE`` records the
game. ``--seat none`` asks for that explicitly.
"""
from __future__ import annotations

import argparse
import json
import secrets
import sys
from pathlib import Path
from typing import Any

from .. import _argparse as argtypes
from .._argparse import HelpFormatter
from .._jsonio import JSONLimitError, read_json
from ..bots.trust import require_trust
from .session import DEFAULT_HINT_BOT

__all__ = ["register"]

DEFAULT_OPPONENT = "ismcts:iters=2000"
#: every seat's bot when nobody plays and no --bots is given
RANDOM_PLAYER = "random"
DEFAULT_ANALYZE_BOT = "ismcts:iters=20000"
DEFAULT_SAVE = "glory-ai-save.json"
DEFAULT_GAMES = "glory-ai-games.jsonl"


class CommandError(ValueError):
    """A user mistake found after parsing: one line, exit status 2 (cli.main prints it)."""


# ---- argument types -----------------------------------------------------------------------

def _seat(text: str) -> int | str:
    value = text.strip().lower()
    if value in ("none", "no", "-"):
        return "none"
    value = value[1:] if value.startswith("p") else value
    if not value.isdigit() or int(value) > 4:
        raise argparse.ArgumentTypeError(f"expected a seat number 0 to 4 (or none), got {text!r}")
    return int(value)


def _viewer(text: str) -> int | None:
    value = text.strip().lower()
    if value in ("all", "everything", "none"):
        return None
    value = value[1:] if value.startswith("p") else value
    if not value.isdigit() or int(value) > 4:
        raise argparse.ArgumentTypeError(f"expected a player (0 to 4, or P0 to P4) or all, got {text!r}")
    return int(value)


def _player(text: str) -> int:
    value = _viewer(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"expected a player (0 to 4, or P0 to P4), got {text!r}")
    return value


def _spec(text: str) -> str:
    from ..bots import BotSpec, SpecError
    from ..bots.trust import code_named

    if code_named([text]):
        return text.strip()             # its code runs only under --trust, once the command runs
    try:
        return BotSpec.parse(text).canonical
    except SpecError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _specs(text: str) -> list[str]:
    from .seats import split_specs

    try:
        return split_specs(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _step(text: str) -> int | str:
    value = text.strip().lower()
    if value == "end":
        return "end"
    if not value.isdigit():
        raise argparse.ArgumentTypeError(f"expected a step number or end, got {text!r}")
    return int(value)


# ---- play ---------------------------------------------------------------------------------

def _play(args: argparse.Namespace) -> int:
    from .records import GameError
    from .screen import Screen
    from .seats import seat_seeds, seat_specs
    from .session import PlaySession, load_session

    screen = Screen()
    if args.resume is not None:
        given = [name for name, value in (("--players", args.players), ("--bots", args.bots),
                                          ("--seat", args.seat), ("--mode", args.mode),
                                          ("--seed", args.seed)) if value is not None]
        if given:
            raise CommandError(f"--resume continues a saved game with its own table; drop {', '.join(given)}")
        try:
            session = load_session(args.resume, screen, hint_bot=args.hint_bot)
        except GameError as exc:
            raise CommandError(str(exc)) from None
        return session.run()
    if args.seat is None:
        # a person at a terminal plays; a script, a pipe or a test gets the printed game
        human = 0 if _isatty(sys.stdin) and _isatty(sys.stdout) else None
    else:
        human = None if args.seat == "none" else int(args.seat)
    mode = args.mode or "republic"
    if args.bots is not None:
        bots = args.bots
    else:
        # nobody at the table: random players, as bots like any other (seeded, recorded)
        bots = [DEFAULT_OPPONENT] if human is not None else [RANDOM_PLAYER]
    players = args.players
    if players is None:
        players = max(len(bots) + (human is not None), 2) if args.bots is not None else 3
    if players > 5:
        raise CommandError(f"--bots lists {len(bots)} bots: with you that is {players} players; "
                           "at most 5 play")
    try:
        seats = seat_specs(players, bots, human)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    require_trust([*seats, args.hint_bot])
    seed = args.seed if args.seed is not None else secrets.randbelow(1_000_000)
    if human is None:
        return _play_bots(seats, mode, seed, args)
    session = PlaySession(num_players=players, mode=mode, variant={}, seed=seed, seats=seats,
                          bot_seeds=seat_seeds(seed, players), human=human,
                          hint_bot=args.hint_bot or DEFAULT_HINT_BOT,
                          save_path=Path(args.save), games_path=Path(args.games), screen=screen,
                          isolation=args.isolation or "users", bot_memory=args.bot_memory)
    return session.run()


def _play_bots(seats: list[str], mode: str, seed: int, args: argparse.Namespace) -> int:
    from ..arena.hosted import game_bot
    from ..game import Game
    from .records import append_record, build_record, count_records
    from .seats import seat_seeds
    from .session import bot_move

    players = len(seats)
    seeds = seat_seeds(seed, players)
    state = Game(players, mode=mode).new_initial_state(seed)
    bots = [game_bot(spec, s, p, state, isolation=args.isolation or "users", bot_memory=args.bot_memory)
            for p, (spec, s) in enumerate(zip(seats, seeds, strict=True))]
    last_turn = -1
    while not state.is_terminal():
        action = bot_move(bots, seats, state)
        if args.verbose:
            if state.turn_number() != last_turn:
                last_turn = state.turn_number()
                print(f"-- turn {state.turn_number() + 1}, leader P{state.leader()}")
            print(f"   P{state.current_player()}: {state.action_to_string(action)}")
        state.apply_action(action)
    who = ", ".join(f"P{p} {spec}" for p, spec in enumerate(seats))
    _print_result(state, f"{players}-player {mode} game ({who}), seed {seed}")
    if args.games_given:
        deal = count_records(args.games)
        record = build_record(num_players=players, mode=mode, variant=state.config().variant(), seed=seed,
                              seats=seats, bot_seeds=seeds, actions=state.history(),
                              game_id=f"{deal}-0-0", deal=deal)
        append_record(args.games, record)
        print(f"recorded in {args.games} as game {record['game_id']}")
    return 0


def _print_result(state, headline: str) -> None:
    print(state)
    print()
    print(f"{headline}: {state.turn_number() + 1} turns, {state.decisions()} decisions, "
          f"ended by {state.end_reason()}")
    print(f"{'player':>8} {'VP':>4} {'influence':>10} {'vault':>6} {'bonus':>6} {'hand':>5}")
    winners = state.winners()
    for p in range(state.num_players()):
        b = state.score_breakdown(p)
        mark = "  winner" if p in winners else ("  conceded" if state.has_conceded(p) else "")
        print(f"{f'P{p}':>8} {b['total']:>4} {b['influence']:>10} {b['vault']:>6} "
              f"{b['merchant_bonus'] + b['statue'] + b['wall'] + b.get('buildings', 0):>6} "
              f"{len(state.zone('hand', p)):>5}{mark}")


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


class _GamesAction(argparse.Action):
    """--games FILE, remembering that it was given (bots-only games are recorded only then)."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
        namespace.games_given = True


def _register_play(sub) -> None:
    play = sub.add_parser(
        "play", formatter_class=HelpFormatter,
        help="play a game against bots in the terminal (or print a game between bots)",
        description="Play Glory to Rome against bots in the terminal: the table as you see it (your hand "
                    "with each card's material, role and value, the pool, every camp, structures with "
                    "their progress, sites, deck, Jacks), what just happened, and your legal choices as a "
                    "numbered menu. In the game: hint, undo, concede, log, card NAME, help, quit (the game "
                    "is saved; --resume goes on). A finished game is appended to --games as an arena "
                    "record.\n\n"
                    "Without --seat you take seat 0 when the input and the output are a terminal; "
                    "otherwise (a pipe, a script) nobody does: the bots play (the random bot in every "
                    "seat without --bots) and the final position and scores are printed; with --games "
                    "the game is recorded. --seat none asks for that explicitly.",
        epilog="examples:\n"
               "  glory-ai play --players 3 --bots ismcts:time_ms=1000,heuristic:style=builder --seat 2\n"
               "  glory-ai play --bots greedy --mode imperium          # you against greedy\n"
               "  glory-ai play --players 4 --bots greedy --seat 3     # you against three greedy bots\n"
               "  glory-ai play --resume glory-ai-save.json\n"
               "  glory-ai play --players 3 --seed 7 --seat none       # random bots, the result printed\n"
               "  glory-ai play --seed 7 --seat none --games games.jsonl   # ... and recorded\n"
               "  glory-ai play --seed 7 --seat none --verbose | less  # every decision, turn by turn\n")
    play.add_argument("--players", type=argtypes.players, default=None, metavar="N",
                      help="number of players, 2 to 5; without it, the bots listed and you, or 3")
    play.add_argument("--bots", type=_specs, default=None, metavar="SPEC,SPEC,...",
                      help=f"the bots in the other seats, in seat order, cycled if fewer; "
                           f"default {DEFAULT_OPPONENT} against a person, {RANDOM_PLAYER} without one")
    play.add_argument("--seat", type=_seat, default=None, metavar="K",
                      help="your seat, 0 to 4, or none; without it, 0 when input and output are a "
                           "terminal, else none")
    play.add_argument("--mode", type=argtypes.mode, default=None, metavar="MODE",
                      help="republic or imperium, any case; republic without it")
    play.add_argument("--seed", type=argtypes.seed, default=None, metavar="S",
                      help="seed of the deal and the bots; without it, a fresh one (printed with the "
                           "result and recorded)")
    play.add_argument("--hint-bot", type=_spec, default=None, metavar="SPEC",
                      help=f"the search bot that answers hint; {DEFAULT_HINT_BOT} unless given "
                           "(a resumed game keeps its own)")
    play.add_argument("--save", default=DEFAULT_SAVE, metavar="FILE",
                      help="where an unfinished game is saved (after each of your decisions and on quit)")
    play.add_argument("--games", default=DEFAULT_GAMES, metavar="FILE", action=_GamesAction,
                      help="games file (JSON lines, the arena's records) a finished game is appended to; "
                           "a game without a person is recorded only when this is given")
    play.add_argument("--resume", default=None, metavar="FILE", help="go on with a saved game")
    play.add_argument("--verbose", "-v", action="store_true",
                      help="without a person: print every decision as it is made")
    argtypes.add_trust_option(play)
    argtypes.add_isolation_options(play)
    play.set_defaults(func=_play, games_given=False)


# ---- watch --------------------------------------------------------------------------------

def _watch(args: argparse.Namespace) -> int:
    from .screen import Screen
    from .seats import seat_seeds, seat_specs
    from .watch import watch

    players = args.players or max(2, len(args.bots))
    try:
        seats = seat_specs(players, args.bots, None)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    require_trust(seats)
    if args.viewer is not None and args.viewer >= players:
        raise CommandError(f"--as P{args.viewer}: the game has players P0 to P{players - 1}")
    seed = args.seed if args.seed is not None else secrets.randbelow(1_000_000)
    # the pause is for a person watching the table redrawn; a pipe or a file gets the moves at once
    delay = args.delay if args.delay is not None else (0.5 if _isatty(sys.stdout) else 0.0)
    watch(num_players=players, mode=args.mode, variant={}, seed=seed, seats=seats,
          bot_seeds=seat_seeds(seed, players), viewer=args.viewer, delay=delay, screen=Screen(),
          games_path=Path(args.games) if args.games else None, isolation=args.isolation or "users",
          bot_memory=args.bot_memory)
    return 0


def _register_watch(sub) -> None:
    watch = sub.add_parser(
        "watch", formatter_class=HelpFormatter,
        help="watch bots play each other on screen, move by move",
        description="Bots play one game on screen: the table is redrawn after every move (seeing "
                    "everything, or as one player sees it with --as), with a pause between moves. When the "
                    "output is not a terminal, each move is one line and the table comes at the end.",
        epilog="examples:\n"
               "  glory-ai watch --bots ismcts:iters=2000,greedy,heuristic:style=merchant\n"
               "  glory-ai watch --bots greedy,random --delay 0.2 --as P0\n")
    watch.add_argument("--bots", type=_specs, required=True, metavar="SPEC,SPEC,...",
                       help="the bot of every seat, in seat order")
    watch.add_argument("--players", type=argtypes.players, default=None, metavar="N",
                       help="number of players (default: one per bot listed; one bot fills every seat)")
    watch.add_argument("--mode", type=argtypes.mode, default="republic", metavar="MODE",
                       help="republic or imperium")
    watch.add_argument("--seed", type=argtypes.seed, default=None, metavar="S",
                       help="seed (default: a fresh one)")
    watch.add_argument("--delay", type=argtypes.seconds(0, 60, low_included=True), default=None, metavar="S",
                       help="seconds between moves (default: 0.5 on a terminal, none otherwise)")
    watch.add_argument("--as", dest="viewer", type=_viewer, default=None, metavar="P",
                       help="show one player's view (P0..P4) instead of everything")
    watch.add_argument("--games", default=None, metavar="FILE", help="also append the game's record here")
    argtypes.add_trust_option(watch)
    argtypes.add_isolation_options(watch)
    watch.set_defaults(func=_watch)


# ---- replay -------------------------------------------------------------------------------

def _replay(args: argparse.Namespace) -> int:
    from .files import load_game
    from .html import write_viewer
    from .notation import format_notation
    from .records import GameError
    from .replayer import Replayer
    from .screen import Screen

    try:
        record = load_game(args.record, args.game)
        n = record["num_players"]
        if args.viewer is not None and args.viewer >= n:
            raise CommandError(f"--as P{args.viewer}: the game has players P0 to P{n - 1}")
        wrote = False
        if args.html:
            path = write_viewer(record, args.html, args.viewer)
            print(f"viewer: {path}")
            wrote = True
        if args.notation:
            text = format_notation(record)
            if args.notation == "-":
                sys.stdout.write(text)
            else:
                Path(args.notation).write_text(text, encoding="utf-8")
                print(f"notation: {args.notation}")
            wrote = True
        if wrote and args.at is None:
            return 0
        replayer = Replayer(record, args.viewer, Screen())
        if args.at is not None:
            step = replayer.steps if args.at == "end" else int(args.at)
            if step > replayer.steps:
                raise CommandError(f"--at {step}: the game has steps 0 to {replayer.steps}")
            replayer.step = step
            replayer.show()
            return 0
        return replayer.run()
    except GameError as exc:
        raise CommandError(str(exc)) from None


def _register_replay(sub) -> None:
    replay = sub.add_parser(
        "replay", formatter_class=HelpFormatter,
        help="step through a recorded game; write its browser viewer or notation",
        description="Step through a recorded game, forwards and back, as one player saw it (--as) or "
                    "seeing everything. RECORD is a games file (JSON lines: a run's games.jsonl, the games "
                    "file of glory-ai play), a run folder, one JSON record or a game in the notation "
                    "(docs/play.md); --game picks one game of several. The record is replayed and its "
                    "result checked first. --html writes a self-contained page that steps through the "
                    "game in a browser; --notation writes the game's notation.",
        epilog="examples:\n"
               "  glory-ai replay glory-ai-games.jsonl --game 0-0-0\n"
               "  glory-ai replay results/is200 --game 3-0-1 --as P1\n"
               "  glory-ai replay glory-ai-games.jsonl --at end          # the final table and scores\n"
               "  glory-ai replay glory-ai-games.jsonl --html game.html\n"
               "  glory-ai replay glory-ai-games.jsonl --notation - | less\n")
    replay.add_argument("record", metavar="RECORD", help="games file, run folder, record or notation file")
    replay.add_argument("--game", default=None, metavar="ID", help="the game id (DEAL-PAIRING-ROTATION)")
    replay.add_argument("--as", dest="viewer", type=_viewer, default=None, metavar="P",
                        help="one player's view (P0..P4); default: everything")
    replay.add_argument("--at", type=_step, default=None, metavar="N",
                        help="print the table after N decisions (or at the end) and stop")
    replay.add_argument("--html", default=None, metavar="OUT.html", help="write the browser viewer")
    replay.add_argument("--notation", default=None, metavar="OUT", help="write the notation (- for stdout)")
    replay.set_defaults(func=_replay)


# ---- analyze ------------------------------------------------------------------------------

def _load_position(path: str):
    from ..game import State
    from .records import GameError
    from .session import SESSION_FORMAT, load_session

    try:
        data = read_json(path)
    except FileNotFoundError:
        raise CommandError(f"{path}: no such file") from None
    except JSONLimitError as exc:
        raise CommandError(f"{exc} (not a JSON position)") from None
    except OSError as exc:
        raise CommandError(f"{path}: not a JSON position ({exc.strerror or exc})") from None
    if isinstance(data, dict) and data.get("format") == SESSION_FORMAT:
        try:
            return load_session(path).state
        except GameError as exc:
            raise CommandError(str(exc)) from None
    if not isinstance(data, dict):
        raise CommandError(f"{path}: a position is a JSON object (State.to_dict), got {type(data).__name__}")
    try:
        return State.from_dict(data)
    except (TypeError, ValueError) as exc:
        raise CommandError(f"{path}: not a valid position: {exc}") from None


def _analyze(args: argparse.Namespace) -> int:
    from .advice import AdviceError, advice_lines, advise

    state = _load_position(args.position)
    if args.player is not None and args.player >= state.num_players():
        raise CommandError(f"--player P{args.player}: the position has players P0 to "
                           f"P{state.num_players() - 1}")
    try:
        advice = advise(state, args.bot, seed=args.seed, player=args.player)
    except AdviceError as exc:
        raise CommandError(str(exc)) from None
    if args.json:
        print(json.dumps(advice.to_dict(), indent=1))
        return 0
    mover = advice.player
    led = state.led_role()
    print(f"P{mover} to decide (phase {state.phase()}, turn {state.turn_number() + 1}"
          f"{f', led role {led}' if led else ''}): {len(state.legal_actions())} legal "
          f"move{'' if len(state.legal_actions()) == 1 else 's'}")
    for line in advice_lines(advice, args.top):
        print(line)
    if not advice.forced:
        print("expected result: the mean reward of the move for "
              f"P{mover} ({_reward_words(args.bot)})")
    return 0


def _reward_words(spec: str) -> str:
    from ..bots import BotSpec

    params = BotSpec.parse(spec).params
    return {"win": "a win chance", "rank": "the share of players beaten",
            "margin": "a score from the VP margin, 0.5 even"}[params.get("reward", "win")]


def _register_analyze(sub) -> None:
    analyze = sub.add_parser(
        "analyze", formatter_class=HelpFormatter,
        help="a search bot's best moves for the player to decide in a position",
        description="Load a position (State.to_dict format, docs/notation.md; or a game saved by glory-ai "
                    "play) and print the best moves for the player to decide, with the share of the search "
                    "each got and its expected result, searched from that player's information only.",
        epilog="examples:\n"
               "  glory-ai analyze position.json\n"
               "  glory-ai analyze position.json --bot ismcts:time_ms=5000 --player 1 --top 8\n"
               "  glory-ai analyze glory-ai-save.json            # the decision at hand in a saved game\n")
    analyze.add_argument("position", metavar="POSITION.json", help="the position")
    analyze.add_argument("--bot", type=_spec, default=DEFAULT_ANALYZE_BOT, metavar="SPEC",
                         help="a search bot (ismcts, pimc, flatmc)")
    analyze.add_argument("--player", type=_player, default=None, metavar="P",
                         help="the player you mean (checked: it must be the player to decide)")
    analyze.add_argument("--top", type=argtypes.positive("moves"), default=8, metavar="K", help="moves shown")
    analyze.add_argument("--seed", type=argtypes.seed, default=0, metavar="S", help="the search's seed")
    analyze.add_argument("--json", action="store_true", help="print the search's result as JSON")
    argtypes.add_trust_option(analyze)
    analyze.set_defaults(func=_analyze)


def register(sub) -> None:
    """Add ``play``, ``watch``, ``replay`` and ``analyze`` to the ``glory-ai`` subparsers."""
    _register_play(sub)
    _register_watch(sub)
    _register_replay(sub)
    _register_analyze(sub)

