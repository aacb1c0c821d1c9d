"""Playing one game of a run into a record, and replaying a record.

Workers run :func:`play_batch` (a list of :class:`~glory_ai.arena.plan.GameTask`, the bots
built in the worker from their specs and seeds) and send back plain dicts: one record per
game, JSON-ready (docs/arena.md lists every field).

A user's bot that fails (raises, changes the state it was handed, returns something that
is not a legal action, or takes longer than the move time limit) stops the game with a
:class:`BotFailure`, one line naming the bot, the game, its seeds and the decision; with
``PlayOptions(forfeit=True)`` its player concedes instead and the game goes on, the record
saying so (``forfeits``), so that it still replays.
"""
from __future__ import annotations

import copy
import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from .. import __version__
from ..bots import Bot, BotError, builtin_name, make_bot
from ..bots.builtin import PolicyBot, RandomBot
from ..game import Game, State
from ._loop import NativeSeat, Tally, play_loop, structures
from .hosted import ISOLATION, HostedBot, hosted_seat, release_hosts
from .plan import ArenaError, GameTask, RunConfig

__all__ = ["DECISION_LIMIT", "MAX_DECISIONS", "RECORD_VERSION", "RESULT_FIELDS", "TIMING_FIELDS",
           "BotFailure", "PlayOptions", "encode_record", "play_game", "play_batch",
           "play_batch_encoded", "play_options", "replay", "record_key", "result_fields",
           "results_differ", "strip_timing"]

#: version of the record format (the fields below); bumped when a field changes meaning
RECORD_VERSION = 1

#: the fields that depend on the machine and its load (everything else is reproducible)
TIMING_FIELDS = ("seconds", "seconds_per_decision")
#: the fields that say where the bots ran (a bot host or the worker), not what they played
_PLACEMENT_FIELDS = ("isolated_seats",)

#: a game still going after this many decisions is adjudicated (ordinary games take a few
#: hundred): bots that cycle without end must not stall a run. The record's end_reason is
#: DECISION_LIMIT; the winners are those the rules would name if the game
#: ended now (most VP, then most cards in hand, R-12.3), conceded players excepted.
MAX_DECISIONS = 100_000
#: the end_reason of an adjudicated game: the arena's own, beside the engine's EndReason values
DECISION_LIMIT = "decision_limit"

#: fields recomputed by replay() and compared with the record, in this order
RESULT_FIELDS = ("scores", "winners", "end_reason", "returns", "vp", "turns", "decisions",
                 "structures", "functions_used", "roles_led")


def _adjudicated_winners(state: State) -> list[int]:
    candidates = [p for p in range(state.num_players()) if not state.has_conceded(p)]
    scores = state.scores()
    key = {p: (scores[p], len(state.zone("hand", p))) for p in candidates}
    best = max(key.values())
    return [p for p in candidates if key[p] == best]


def result_fields(state: State) -> dict[str, Any]:
    """The result fields of a record for a game that ended in ``state`` (a game stopped at
    :data:`MAX_DECISIONS` adjudicated): ``scores``, ``winners``, ``returns``, ``vp``,
    ``structures``, ``functions_used``, ``end_reason``, ``turns``, ``decisions``. Every
    writer of records (the arena, the games people play) takes them from here."""
    n = state.num_players()
    end_reason: str | None          # an EndReason (a str), or the arena's DECISION_LIMIT
    if state.is_terminal():
        winners, returns, end_reason = state.winners(), state.returns(), state.end_reason()
    else:
        winners = _adjudicated_winners(state)
        returns = [1.0 / len(winners) if p in winners else 0.0 for p in range(n)]
        end_reason = DECISION_LIMIT
    return {
        "scores": state.scores(),
        "winners": winners,
        "returns": returns,
        "vp": [state.score_breakdown(p) for p in range(n)],
        "structures": structures(state),
        "functions_used": state.functions_used(),
        "end_reason": end_reason,
        "turns": state.turn_number() + 1,
        "decisions": state.decisions(),
    }


@dataclass(frozen=True)
class PlayOptions:
    """How the games of a run are played, beyond its config (not part of its identity):

    ``move_time_limit``: seconds (wall clock) a bot may take over one decision, None for no
    limit; ``forfeit``: a failing bot's player concedes the game and the game goes on,
    instead of the run stopping; ``bots``: the users' bots of the run as its workers need
    them (``glory_ai.bots.plugins.ship``: a bot file's source, a registered bot's factory);
    ``isolation``: which seats play in a bot host process (``users``: bots given as a file,
    a module or an entry point; ``all``; ``none``: :mod:`glory_ai.arena.hosted`);
    ``bot_memory``: megabytes of address space a host may use (None: no cap).
    """

    move_time_limit: float | None = None
    forfeit: bool = False
    bots: Mapping[str, Any] = field(default_factory=dict)
    isolation: str = "users"
    bot_memory: int | None = None


_PLAIN = PlayOptions()


def play_options(config: RunConfig, *, move_time_limit: float | None = None,
                 forfeit: bool = False, isolation: str = "users",
                 bot_memory: int | None = None) -> PlayOptions | None:
    """The PlayOptions of a run of ``config`` (None when there is nothing to set: built-in
    bots, no limit, no forfeits, no host). Reads the users' bots once, in this process."""
    if move_time_limit is not None:
        if (isinstance(move_time_limit, bool) or not isinstance(move_time_limit, (int, float))
                or not math.isfinite(move_time_limit) or move_time_limit <= 0):
            raise ArenaError(f"the move time limit is a positive number of seconds, got {move_time_limit!r}")
        move_time_limit = float(move_time_limit)
    if not isinstance(forfeit, bool):
        raise ArenaError(f"forfeit must be true or false, got {forfeit!r}")
    if isolation not in ISOLATION:
        raise ArenaError(f"isolation is one of {', '.join(ISOLATION)}, got {isolation!r}")
    if bot_memory is not None and (isinstance(bot_memory, bool) or not isinstance(bot_memory, int)
                                   or bot_memory < 1):
        raise ArenaError(f"the bot memory cap is a positive number of megabytes, got {bot_memory!r}")
    bots: dict[str, Any] = {}
    if any(builtin_name(spec) is None for spec in config.specs):
        from ..bots.plugins import ship

        try:
            bots = ship(config.specs)
        except ValueError as exc:
            raise ArenaError(str(exc)) from None
    if not bots and move_time_limit is None and not forfeit and isolation == "users" and bot_memory is None:
        return None
    return PlayOptions(move_time_limit, forfeit, bots, isolation, bot_memory)


class BotFailure(ArenaError):
    """A bot failed in a game (:class:`~glory_ai.bots.BotError`): one line naming the bot,
    its seat, the game, the deal and bot seeds and the decision (0-based: the index its
    action would have had in the record's ``actions``)."""

    def __init__(self, message: str, *, spec: str = "", seat: int = -1, game_id: str = "",
                 seed: int = 0, bot_seed: int = 0, decision: int = 0, reason: str = "") -> None:
        super().__init__(message)
        self.spec, self.seat, self.game_id, self.reason = spec, seat, game_id, reason
        self.seed, self.bot_seed, self.decision = seed, bot_seed, decision

    def __reduce__(self) -> Any:
        # crosses process boundaries (joblib, Dask) with its fields
        return (_failure, (str(self), self.spec, self.seat, self.game_id, self.seed,
                           self.bot_seed, self.decision, self.reason))

    @classmethod
    def of(cls, task: GameTask, seat: int, state: State, error: BotError) -> BotFailure:
        decision = len(state.history())
        spec = task.seats[seat]
        message = (f"bot {spec} (seat {seat}) {error.message}, in game {task.game_id} (deal seed "
                   f"{task.seed}, bot seed {task.bot_seeds[seat]}) at decision {decision} (turn "
                   f"{state.turn_number() + 1}); the finished games are kept: fix the bot and run the "
                   "same command again to resume, or let a failing bot forfeit its game (--forfeit)")
        return cls(message, spec=spec, seat=seat, game_id=task.game_id, seed=task.seed,
                   bot_seed=task.bot_seeds[seat], decision=decision, reason=error.reason)


def _failure(message: str, spec: str, seat: int, game_id: str, seed: int, bot_seed: int,
             decision: int, reason: str) -> BotFailure:
    return BotFailure(message, spec=spec, seat=seat, game_id=game_id, seed=seed,
                      bot_seed=bot_seed, decision=decision, reason=reason)


def _user_bots(bots: Sequence[Any]) -> list[tuple[int, Any]]:
    """(seat, bot) of the users' bots (glory_ai.bots.UserBot) and of the hosted ones; the
    module defining UserBot is loaded only once a user's bot was made."""
    plugins = sys.modules.get("glory_ai.bots.plugins")
    return [(seat, bot) for seat, bot in enumerate(bots)
            if isinstance(bot, HostedBot) or (plugins is not None and isinstance(bot, plugins.UserBot))]


def _make(task: GameTask, seat: int, state: State, options: PlayOptions) -> Any:
    # a replay builds the bot as it was played (GameTask.built); the record names the seat's spec
    spec = task.built[seat] if task.built is not None else task.seats[seat]
    seed = task.bot_seeds[seat]
    if hosted_seat(spec, options.isolation, options.bots):
        return HostedBot(spec, seed, seat, state, options.bots, move_time_limit=options.move_time_limit,
                         memory_mb=options.bot_memory)
    return make_bot(spec, seed, shipped=options.bots)


class _Rules:
    """The Game of the last rules played in this process: a run's games share their rules,
    and validating them (GameConfig) costs a few percent of a random game."""

    #: (players, mode, variant, Game), read and replaced as one object: threads playing
    #: games of other rules (the threading backend) never pair one's rules with another's Game
    last: tuple[int, str, dict[str, Any], Game] | None = None

    @classmethod
    def game_of(cls, task: GameTask) -> Game:
        last = cls.last
        if last is not None and last[0] == task.num_players and last[1] == task.mode \
                and last[2] == task.variant:
            return last[3]
        game = Game(task.num_players, task.mode, **task.variant)
        # a copy: the task's variant could be changed in place after this game
        cls.last = (task.num_players, task.mode, copy.deepcopy(dict(task.variant)), game)
        return game


def _never(state: State) -> int:
    raise AssertionError("a player who conceded was asked to move")


#: play the built-in random, greedy and heuristic bots in C (the same decisions as their
#: ``step``: glory_ai/arena/_loop.pyx, NativeSeat); False asks every bot through ``step``
NATIVE_SEATS = True


def _step_of(bot: Bot | HostedBot) -> Any:
    # the exact classes: a subclass may choose otherwise
    if NATIVE_SEATS and type(bot) is RandomBot:
        return NativeSeat("random", bot.seed)
    if NATIVE_SEATS and type(bot) is PolicyBot:
        return NativeSeat("policy", bot.seed, bot._policy)
    return bot.step


def play_game(task: GameTask) -> dict[str, Any]:
    """Play one game of a run and return its record (a JSON-ready dict). A failing user bot
    raises :class:`BotFailure`, or with ``task.options.forfeit`` concedes (the record's
    ``forfeits``)."""
    if not isinstance(task, GameTask):
        raise TypeError(f"play_game takes a GameTask, got {type(task).__name__}")
    options = task.options if isinstance(task.options, PlayOptions) else _PLAIN
    state = _Rules.game_of(task).new_initial_state(task.seed)
    n = task.num_players
    forfeits: list[dict[str, Any]] = []

    def fail(seat: int, error: BotError) -> None:
        if not options.forfeit:
            raise BotFailure.of(task, seat, state, error) from None
        forfeits.append({"seat": seat, "decision": len(state.history()), "reason": error.reason,
                         "message": error.message})
        if not state.is_terminal():
            state.concede(seat)

    bots: list[Bot | HostedBot | None] = []
    for seat in range(n):
        try:
            bots.append(_make(task, seat, state, options))
        except BotError as error:
            bots.append(None)
            fail(seat, error)
    users = _user_bots(bots)
    for seat, bot in users:
        if not state.is_terminal() and not state.has_conceded(seat):
            try:
                bot.new_game(state, seat)
            except BotError as error:
                fail(error.seat if error.seat is not None else seat, error)
    observers = [(seat, bot.observe) for seat, bot in users if bot.observes]
    steps = [_never if bot is None else _step_of(bot) for bot in bots]
    tally = Tally(n)
    # the loop in C (_loop.pyx): per decision, whose turn and whether it is a lead read from
    # the state, the bot's step timed; the actions are applied as a plain loop would
    while True:
        watching = [observe for seat, observe in observers if not state.has_conceded(seat)]
        try:
            play_loop(state, steps, MAX_DECISIONS - tally.decisions, options.move_time_limit or 0.0,
                      watching, tally)
            break
        except BotError as error:
            fail(error.seat if error.seat is not None else state.current_player(), error)
    seconds, moves, roles_led = tally.results()
    actions = state.history()
    record: dict[str, Any] = {
        "record_version": RECORD_VERSION,
        "version": __version__,
        "game_id": task.game_id,
        "deal": task.deal,
        "pairing": task.pairing,
        "rotation": task.rotation,
        "seed": task.seed,
        "bot_seeds": list(task.bot_seeds),
        "seats": list(task.seats),
        "num_players": n,
        "mode": task.mode,
        "variant": dict(task.variant),
    }
    record.update(result_fields(state))
    record["seat_decisions"] = moves
    record["roles_led"] = roles_led
    record["seconds"] = [round(s, 6) for s in seconds]
    record["seconds_per_decision"] = [round(s / m, 7) if m else 0.0
                                      for s, m in zip(seconds, moves, strict=True)]
    record["actions"] = actions
    if forfeits:
        record["forfeits"] = forfeits
    trusted = [seat for seat, bot in users if not bot.fair_play]
    if trusted:
        record["trusted_seats"] = trusted
    isolated = [seat for seat, bot in users if isinstance(bot, HostedBot)]
    if isolated:
        record["isolated_seats"] = isolated
    return record


def play_batch(tasks: Sequence[GameTask]) -> list[dict[str, Any]]:
    """Play a batch of games (the unit of work sent to a worker); records in task order. The
    bot hosts it started are stopped at its end (glory_ai.arena.hosted)."""
    try:
        return [play_game(task) for task in tasks]
    finally:
        release_hosts()


def encode_record(record: Mapping[str, Any]) -> str:
    """A record as one compact JSON line (without the newline).

    orjson writes it five times faster than the standard library (a record is mostly its
    ~300 actions); the line is standard JSON all the same (floats in their shortest form,
    e.g. ``6.6e-6``, UTF-8 rather than escapes)."""
    return orjson.dumps(record).decode()


def play_batch_encoded(tasks: Sequence[GameTask]) -> tuple[list[dict[str, Any]], str]:
    """Play a batch and also encode it: (records, their JSON lines joined, newline-ended).
    Workers encode, so the process writing the file only writes."""
    records = play_batch(tasks)
    return records, "".join(encode_record(r) + "\n" for r in records)


def record_key(record: Mapping[str, Any]) -> tuple[int, int, int]:
    """Sort key of a record: (deal, pairing, rotation)."""
    return (record["deal"], record["pairing"], record["rotation"])


def strip_timing(record: Mapping[str, Any]) -> dict[str, Any]:
    """The record without its timing fields, nor ``isolated_seats`` (where the bots ran):
    what must be identical on every machine, a bot played in a host or in the worker."""
    return {k: v for k, v in record.items() if k not in TIMING_FIELDS and k not in _PLACEMENT_FIELDS}


def results_differ(record: Mapping[str, Any], found: Mapping[str, Any]) -> str | None:
    """The first of :data:`RESULT_FIELDS` in which a record differs from the fields found by
    replaying it (``"winners differs: recorded [0], replayed [1]"``), or None."""
    for key in RESULT_FIELDS:
        if key in record and key in found and _normal(record[key]) != _normal(found[key]):
            return f"{key} differs: recorded {record[key]!r}, replayed {found[key]!r}"
    return None


def replay(record: Mapping[str, Any]) -> State:
    """Rebuild a recorded game and check it: every action legal, the concessions (not
    actions: a failing bot's ``forfeits``, a person's ``concessions``) applied where recorded, and the result
    (scores, winners, end reason, returns, VP breakdown, turns, decisions, structures,
    functions used, roles led) as recorded. Returns the final State; raises ArenaError
    naming the game id and the first difference."""
    if not isinstance(record, Mapping):
        raise ArenaError(f"a game record is a dict, got {type(record).__name__}")
    gid = record.get("game_id", "?")
    missing = [k for k in ("seed", "num_players", "mode", "variant", "actions") if k not in record]
    if missing:
        raise ArenaError(f"game {gid}: the record has no {', '.join(missing)}")
    try:
        game = Game(record["num_players"], record["mode"], **record["variant"])
        state = game.new_initial_state(record["seed"])
    except (TypeError, ValueError) as exc:
        raise ArenaError(f"game {gid}: cannot set up the game: {exc}") from None
    actions = record["actions"]
    if not isinstance(actions, list):
        raise ArenaError(f"game {gid}: actions must be a list of action ids")
    conceded = _concessions(record, len(actions), state.num_players())
    roles_led: list[dict[str, int]] = [{} for _ in range(state.num_players())]
    for i, action in enumerate(actions):
        for seat in conceded.get(i, ()):
            _concede(state, seat)
        if state.is_terminal():
            raise ArenaError(f"game {gid}: the game is over after {i} actions but the record "
                             f"has {len(actions)}")
        legal = state.legal_actions()
        if not isinstance(action, int) or isinstance(action, bool) or action not in legal:
            raise ArenaError(f"game {gid}: action {i} ({action!r}) is not legal for player "
                             f"{state.current_player()} (turn {state.turn_number()})")
        player, leading = state.current_player(), state.phase() == "lead"
        state.apply_action(action)
        if leading:
            role = state.led_role()
            if role is not None:
                roles_led[player][role] = roles_led[player].get(role, 0) + 1
    for seat in conceded.get(len(actions), ()):
        _concede(state, seat)
    if not state.is_terminal() and not (record.get("end_reason") == DECISION_LIMIT
                                        and len(actions) == MAX_DECISIONS):
        raise ArenaError(f"game {gid}: the game is not over after the {len(actions)} recorded actions")
    found = result_fields(state)
    found["roles_led"] = roles_led
    difference = results_differ(record, found)
    if difference:
        raise ArenaError(f"game {gid}: {difference}")
    return state


def _concessions(record: Mapping[str, Any], actions: int, players: int) -> dict[int, list[int]]:
    """The seats leaving the game, by decision index: {i: [seats conceding when i actions had
    been played]}. Two fields say so: ``forfeits`` (a failing bot's player, written by
    :func:`play_game`) and ``concessions`` (a person who left, written by the games people
    play); both are ``[{"decision": i, "seat": p, ...}]``."""
    gid = record.get("game_id", "?")
    out: dict[int, list[int]] = {}
    for name in ("forfeits", "concessions"):
        listed = record.get(name) or []
        if not isinstance(listed, list):
            raise ArenaError(f"game {gid}: {name} is a list, got {listed!r:.60}")
        for entry in listed:
            seat = entry.get("seat") if isinstance(entry, Mapping) else None
            decision = entry.get("decision") if isinstance(entry, Mapping) else None
            if (not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < players
                    or not isinstance(decision, int) or isinstance(decision, bool)
                    or not 0 <= decision <= actions):
                raise ArenaError(f"game {gid}: an entry of {name} is {{\"seat\": 0..{players - 1}, "
                                 f"\"decision\": 0..{actions}, ...}}, got {entry!r:.60}")
            out.setdefault(decision, []).append(seat)
    return out


def _concede(state: State, seat: int) -> None:
    """Apply a recorded concession; one the game already settled (a forfeit recorded as the
    game ended) changes nothing."""
    if state.is_terminal() or state.has_conceded(seat):
        return
    state.concede(seat)


def _normal(value: Any) -> Any:
    """Tuples as lists (a record read back from JSON has lists)."""
    if isinstance(value, (list, tuple)):
        return [_normal(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _normal(v) for k, v in value.items()}
    return value
