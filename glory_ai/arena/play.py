"""Playing one game of a run into a record, and replaying a record.

Workers run :func:`play_batch` (a list of :class:`~glory_ai.arena.plan.GameTask`, the bots
built in the worker from their specs and seeds) and send back plain dicts: one record per
game, JSON-ready (docs/arena.md lists every field).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from .. import __version__
from ..bots import make_bot
from ..game import Game, State
from ._loop import play_loop, structures
from .plan import ArenaError, GameTask

__all__ = ["RECORD_VERSION", "RESULT_FIELDS", "TIMING_FIELDS", "encode_record", "play_game",
           "play_batch", "play_batch_encoded", "replay", "record_key", "result_fields",
           "results_differ", "strip_timing"]

#: version of the record format (the fields below); bumped when a field changes meaning
RECORD_VERSION = 1

#: the fields that depend on the machine and its load (everything else is reproducible)
TIMING_FIELDS = ("seconds", "seconds_per_decision")

#: a game still going after this many decisions is adjudicated (ordinary games take a few
#: hundred): bots that cycle without end must not stall a run. The record says
#: end_reason "decision_limit"; the winners are those the rules would name if the game
#: ended now (most VP, then most cards in hand, R-12.3), conceded players excepted.
MAX_DECISIONS = 100_000

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
    if state.is_terminal():
        winners, returns, end_reason = state.winners(), state.returns(), state.end_reason()
    else:
        winners = _adjudicated_winners(state)
        returns = [1.0 / len(winners) if p in winners else 0.0 for p in range(n)]
        end_reason = "decision_limit"
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


def play_game(task: GameTask) -> dict[str, Any]:
    """Play one game of a run and return its record (a JSON-ready dict)."""
    if not isinstance(task, GameTask):
        raise TypeError(f"play_game takes a GameTask, got {type(task).__name__}")
    state = Game(task.num_players, task.mode, **task.variant).new_initial_state(task.seed)
    bots = [make_bot(spec, seed) for spec, seed in zip(task.seats, task.bot_seeds, strict=True)]
    n = task.num_players
    # the loop in C (_loop.pyx): per decision, whose turn and whether it is a lead read from
    # the state, the bot's step timed; the actions are applied as a plain loop would
    seconds, moves, roles_led = play_loop(state, [bot.step for bot in bots], MAX_DECISIONS)
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
    return record


def play_batch(tasks: Sequence[GameTask]) -> list[dict[str, Any]]:
    """Play a batch of games (the unit of work sent to a worker); records in task order."""
    return [play_game(task) for task in tasks]


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
    """The record without its timing fields: what must be identical on every machine."""
    return {k: v for k, v in record.items() if k not in TIMING_FIELDS}


def _concessions(record: Mapping[str, Any], gid: Any) -> dict[int, list[int]]:
    """A record's ``concessions`` (``[{"decision": i, "seat": p}]``: seat p conceded when i
    actions had been played) by decision index."""
    out: dict[int, list[int]] = {}
    listed = record.get("concessions") or []
    if not isinstance(listed, (list, tuple)):
        raise ArenaError(f"game {gid}: concessions must be a list, got {listed!r:.60}")
    for c in listed:
        try:
            decision, seat = c["decision"], c["seat"]
        except (KeyError, TypeError):
            decision = seat = None
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (decision, seat)):
            raise ArenaError(f'game {gid}: a concession is {{"decision": i, "seat": p}}, got {c!r:.60}')
        out.setdefault(decision, []).append(seat)
    return out


def _concede(state: State, seat: int, gid: Any, decision: int) -> None:
    try:
        state.concede(seat)
    except (TypeError, ValueError) as exc:
        raise ArenaError(f"game {gid}: the concession of seat {seat} at decision {decision} "
                         f"cannot be applied: {exc}") from None


def results_differ(record: Mapping[str, Any], found: Mapping[str, Any]) -> str | None:
    """The first of :data:`RESULT_FIELDS` in which a record differs from the fields found by
    replaying it (``"winners differs: recorded [0], replayed [1]"``), or None."""
    for key in RESULT_FIELDS:
        if key in record and key in found and _normal(record[key]) != _normal(found[key]):
            return f"{key} differs: recorded {record[key]!r}, replayed {found[key]!r}"
    return None


def replay(record: Mapping[str, Any]) -> State:
    """Rebuild a recorded game and check it: every action legal, the concessions (a person
    who left the game: ``concessions``, not actions) applied where recorded, and the result
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
    conceded = _concessions(record, gid)
    roles_led: list[dict[str, int]] = [{} for _ in range(state.num_players())]
    for i, action in enumerate(actions):
        for seat in conceded.get(i, ()):
            _concede(state, seat, gid, i)
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
        _concede(state, seat, gid, len(actions))
    late = sorted(d for d in conceded if d > len(actions) or d < 0)
    if late:
        raise ArenaError(f"game {gid}: a concession at decision {late[0]}, outside the "
                         f"{len(actions)} recorded actions")
    if not state.is_terminal() and not (record.get("end_reason") == "decision_limit"
                                        and len(actions) == MAX_DECISIONS):
        raise ArenaError(f"game {gid}: the game is not over after the {len(actions)} recorded actions")
    found = result_fields(state)
    found["roles_led"] = roles_led
    difference = results_differ(record, found)
    if difference:
        raise ArenaError(f"game {gid}: {difference}")
    return state


def _normal(value: Any) -> Any:
    """Tuples as lists (a record read back from JSON has lists)."""
    if isinstance(value, (list, tuple)):
        return [_normal(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _normal(v) for k, v in value.items()}
    return value
