"""Game records of played games, in the arena's format (docs/arena.md): building, checking,
replaying and appending them (:mod:`glory_ai.interactive.files` reads them back from files).

A game a person played is written as the arena writes a bot game: the same fields, the
person's seat named ``"human"``. A concession is not an action (``State.concede``), so a
game with one also lists ``concessions``: ``[{"decision": i, "seat": p}]``, the seat
conceding when ``i`` actions had been played. :func:`check_record` replays a record and
checks its result (the arena's :func:`glory_ai.arena.replay`, which applies the
concessions).
"""
from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from .. import __version__
from .._reading import open_regular, read_lines
from ..arena.plan import ArenaError
from ..arena.play import RECORD_VERSION, encode_record, replay, result_fields
from ..game import Game, State

__all__ = ["HUMAN", "GameError", "build_record", "check_record", "new_game", "states", "state_at",
           "append_record", "roles_led"]

#: the seat spec of a person in a record
HUMAN = "human"


class GameError(ValueError):
    """A game file that cannot be read or does not replay: one line for the user."""


def new_game(record: Mapping[str, Any]) -> State:
    """The initial state of a recorded game (its seed and rules)."""
    gid = record.get("game_id", "?")
    missing = [k for k in ("seed", "num_players", "mode", "actions") if k not in record]
    if missing:
        raise GameError(f"game {gid}: the record has no {', '.join(missing)}")
    try:
        game = Game(record["num_players"], record["mode"], **(record.get("variant") or {}))
        return game.new_initial_state(record["seed"])
    except (TypeError, ValueError) as exc:
        raise GameError(f"game {gid}: cannot set up the game: {exc}") from None


def _concessions(record: Mapping[str, Any]) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for c in record.get("concessions") or ():
        try:
            out.setdefault(int(c["decision"]), []).append(int(c["seat"]))
        except (KeyError, TypeError, ValueError):
            raise GameError(f"game {record.get('game_id', '?')}: a concession is "
                            f"{{\"decision\": i, \"seat\": p}}, got {c!r:.60}") from None
    return out


def states(record: Mapping[str, Any]) -> Iterator[tuple[State, int | None]]:
    """Every state of a recorded game with the action played from it: (state before
    decision i, action i) for each action, then (final state, None). The states are
    copies; concessions are applied where recorded."""
    state = new_game(record)
    conceded = _concessions(record)
    gid = record.get("game_id", "?")
    actions = record["actions"]
    for i, action in enumerate(actions):
        for seat in conceded.get(i, ()):
            _concede(state, seat, gid, i)
        if state.is_terminal():
            raise GameError(f"game {gid}: the game is over after {i} actions but the record has "
                            f"{len(actions)}")
        if not isinstance(action, int) or isinstance(action, bool) or action not in state.legal_actions():
            raise GameError(f"game {gid}: action {i} ({action!r}) is not legal for P{state.current_player()}")
        yield state.clone(), action
        state.apply_action(action)
    for seat in conceded.get(len(actions), ()):
        _concede(state, seat, gid, len(actions))
    yield state.clone(), None


def _concede(state: State, seat: int, gid: Any, i: int) -> None:
    try:
        state.concede(seat)
    except ValueError as exc:
        raise GameError(f"game {gid}: the concession of P{seat} at decision {i} cannot be "
                        f"applied: {exc}") from None


def state_at(record: Mapping[str, Any], decision: int) -> State:
    """The state after `decision` actions (concessions recorded there included)."""
    for i, (state, _) in enumerate(states(record)):
        if i == decision:
            return state
    raise GameError(f"the game has {len(record['actions'])} decisions, not {decision}")


def roles_led(record: Mapping[str, Any]) -> list[dict[str, int]]:
    """Per seat, how many turns it led each role (the record's ``roles_led``)."""
    out: list[dict[str, int]] = [{} for _ in range(record["num_players"])]
    previous: State | None = None
    leader = -1
    for state, _ in states(record):
        if previous is not None and leader >= 0:
            role = state.led_role()
            if role is not None:
                out[leader][role] = out[leader].get(role, 0) + 1
        leader = state.current_player() if not state.is_terminal() and state.phase() == "lead" else -1
        previous = state
    return out


def build_record(*, num_players: int, mode: str, variant: Mapping[str, Any], seed: int,
                 seats: Sequence[str], bot_seeds: Sequence[int], actions: Sequence[int],
                 concessions: Sequence[Mapping[str, int]] = (), seconds: Sequence[float] | None = None,
                 game_id: str = "0-0-0", deal: int = 0) -> dict[str, Any]:
    """The arena record of a finished game (docs/arena.md), checked by replaying it."""
    record: dict[str, Any] = {
        "record_version": RECORD_VERSION, "version": __version__, "game_id": game_id,
        "deal": deal, "pairing": 0, "rotation": 0, "seed": seed, "bot_seeds": list(bot_seeds),
        "seats": list(seats), "num_players": num_players, "mode": mode, "variant": dict(variant),
        "actions": list(actions),
    }
    if concessions:
        record["concessions"] = [{"decision": int(c["decision"]), "seat": int(c["seat"])}
                                 for c in concessions]
    final = None
    seat_decisions = [0] * num_players
    for state, action in states(record):
        if action is None:
            final = state
        else:
            seat_decisions[state.current_player()] += 1
    assert final is not None
    if not final.is_terminal():
        raise GameError(f"game {game_id}: the game is not over after {len(actions)} actions")
    seconds = list(seconds) if seconds is not None else [0.0] * num_players
    out = {k: record[k] for k in ("record_version", "version", "game_id", "deal", "pairing", "rotation",
                                  "seed", "bot_seeds", "seats", "num_players", "mode", "variant")}
    out.update(result_fields(final))
    out["seat_decisions"] = seat_decisions
    out["roles_led"] = roles_led(record)
    out["seconds"] = [round(s, 6) for s in seconds]
    out["seconds_per_decision"] = [round(s / m, 7) if m else 0.0
                                   for s, m in zip(seconds, seat_decisions, strict=True)]
    if concessions:
        out["concessions"] = record["concessions"]
    out["actions"] = record["actions"]
    check_record(out)
    return out


def check_record(record: Mapping[str, Any]) -> State:
    """Replay a record and check its result (scores, winners, end reason, VP, ...); returns
    the final state. GameError naming the first difference."""
    try:
        return replay(record)
    except ArenaError as exc:
        raise GameError(str(exc)) from None


def append_record(path: str | os.PathLike, record: Mapping[str, Any]) -> None:
    """Append a record to a games.jsonl file as one line (the arena's encoding)."""
    path = Path(path)
    if path.parent and not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(encode_record(record) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def count_records(path: str | os.PathLike) -> int:
    """How many games a games.jsonl file holds (0 if it does not exist)."""
    path = Path(path)
    if not path.exists():
        return 0
    with open_regular(path, "a games file") as fh:
        return sum(1 for line in read_lines(fh, str(path)) if line.strip())
