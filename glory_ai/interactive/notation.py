"""The game notation: a readable text of a whole game, one line per decision, that reads
back into the same game (docs/play.md).

    [Game "glory_ai"]
    [Players "3"]
    [Mode "republic"]
    [Variant "petition_size=2; refill_size=5"]
    [Seed "7"]
    [P0 "human"]
    [P1 "ismcts:time_ms=1000"]
    [P2 "heuristic:style=builder"]
    [Result "P1"]
    [Scores "21 34 19"]
    [EndReason "deck"]

    1. P0: lead Architect with Temple
    1. P1: follow Architect with Jack
    1. P2: think: take Jack
    ...
    {The game is over (the deck ran out): P1 wins.}

Tags are ``[Name "value"]`` (``\\"`` and ``\\\\`` escape a quote and a backslash), then one
line per decision: the turn number, a dot, the seat and the action string of
docs/notation.md. ``12. P0 concedes`` records a concession. ``{...}`` and ``; ...`` are
comments. Reading checks every line against the game (the turn, the seat, a legal action)
and the result tags against the game's end.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .._jsonio import JSONLimitError, value_or_text
from .records import GameError, new_game

__all__ = ["NotationError", "format_notation", "parse_notation", "format_variant", "parse_variant_tag"]


class NotationError(GameError):
    """A notation text that does not read back into a game: names the line and the fault."""


_TAG = re.compile(r'^\[(\w+)\s+"((?:[^"\\]|\\.)*)"\]\s*$')
_MOVE = re.compile(r"^(\d+)\.\s*P(\d+)\s*:\s*(.+?)\s*$")
_CONCEDE = re.compile(r"^(\d+)\.\s*P(\d+)\s+concedes\s*$", re.IGNORECASE)
_INT_KEYS = ("petition_size", "refill_size", "in_town_sites")


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def format_variant(variant: Mapping[str, Any]) -> str:
    """``petition_size=2; refill_size=5; removed=Bath,Sewer; copies=Forum:2``
    (``materials=Catacomb:Marble; points=Catacomb:3; powers_off=Catacomb`` likewise)."""
    parts = []
    for key in sorted(variant):
        value = variant[key]
        if isinstance(value, Mapping):
            text = ",".join(f"{k}:{v}" for k, v in value.items())
        elif isinstance(value, (list, tuple)):
            text = ",".join(str(v) for v in value)
        else:
            text = str(value)
        parts.append(f"{key}={text}")
    return "; ".join(parts)


def parse_variant_tag(text: str) -> dict[str, Any]:
    """The inverse of :func:`format_variant`."""
    out: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in text.split(";"))):
        key, eq, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not key:
            raise NotationError(f"the Variant tag: {part!r} is not key=value")
        if key in _INT_KEYS:
            try:
                out[key] = int(value)
            except ValueError:
                raise NotationError(f"the Variant tag: {key} must be a number, got {value!r}") from None
        elif key in ("removed", "powers_off"):
            out[key] = [v.strip() for v in value.split(",") if v.strip()]
        elif key in ("copies", "points", "materials"):
            pairs: dict[str, Any] = {}
            for item in filter(None, (v.strip() for v in value.split(","))):
                name, _, given = item.rpartition(":")
                if key == "materials":
                    pairs[name.strip()] = given.strip()
                    continue
                try:
                    pairs[name.strip()] = int(given)
                except ValueError:
                    raise NotationError(f"the Variant tag: {key} expects Name:count, got {item!r}") from None
            out[key] = pairs
        else:
            try:
                out[key] = value_or_text(value, f"the Variant tag: {key}")
            except JSONLimitError as exc:
                raise NotationError(str(exc)) from None
    return out


def format_notation(record: Mapping[str, Any]) -> str:
    """The notation of a recorded game (a record of docs/arena.md: seed, rules, actions and,
    when present, seats, bot seeds, game id, result and concessions)."""
    from .narrate import end_sentence

    n = record["num_players"]
    lines = ['[Game "glory_ai"]']
    if "game_id" in record:
        lines.append(f'[GameId "{_escape(str(record["game_id"]))}"]')
    lines.append(f'[Players "{n}"]')
    lines.append(f'[Mode "{record["mode"]}"]')
    lines.append(f'[Variant "{_escape(format_variant(record.get("variant") or {}))}"]')
    lines.append(f'[Seed "{record["seed"]}"]')
    seats = record.get("seats")
    if seats:
        for p, spec in enumerate(seats):
            lines.append(f'[P{p} "{_escape(str(spec))}"]')
    if record.get("bot_seeds"):
        lines.append(f'[BotSeeds "{" ".join(str(s) for s in record["bot_seeds"])}"]')
    body: list[str] = []
    conceded: dict[int, list[int]] = {}
    for c in record.get("concessions") or ():
        conceded.setdefault(int(c["decision"]), []).append(int(c["seat"]))
    final = new_game(record)
    actions = record["actions"]
    for i in range(len(actions) + 1):
        for seat in conceded.get(i, ()):
            body.append(f"{final.turn_number() + 1}. P{seat} concedes")
            final.concede(seat)
        if i == len(actions):
            break
        body.append(f"{final.turn_number() + 1}. P{final.current_player()}: "
                    f"{final.action_to_string(actions[i])}")
        final.apply_action(actions[i])
    if final.is_terminal():
        scores = final.scores()
        lines.append(f'[Result "{" ".join(f"P{p}" for p in final.winners())}"]')
        lines.append(f'[Scores "{" ".join(str(s) for s in scores)}"]')
        lines.append(f'[EndReason "{final.end_reason()}"]')
        body.append("{" + end_sentence(final, None) + " Scores: "
                    + ", ".join(f"P{p} {s}" for p, s in enumerate(scores)) + "}")
    else:
        lines.append('[Result "*"]')
        body.append("{the game goes on}")
    return "\n".join(lines) + "\n\n" + "\n".join(body) + "\n"


def _strip_comments(line: str) -> str:
    line = re.sub(r"\{[^}]*\}", "", line)
    return line.split(";", 1)[0].strip() if not line.lstrip().startswith("[") else line.strip()


def parse_notation(text: str) -> dict[str, Any]:
    """A game in the notation as a record-like dict: ``num_players``, ``mode``,
    ``variant``, ``seed``, ``actions`` (and ``seats``, ``bot_seeds``, ``game_id``,
    ``concessions`` when given; ``scores``, ``winners``, ``end_reason`` when the game is
    over). NotationError naming the line of the first fault."""
    if not isinstance(text, str):
        raise TypeError(f"parse_notation takes the text of a game, got {type(text).__name__}")
    tags: dict[str, str] = {}
    moves: list[tuple[int, int, int, str | None]] = []     # (line number, turn, seat, action text)
    in_comment = False
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw
        if in_comment:
            if "}" not in line:
                continue
            line = line.split("}", 1)[1]
            in_comment = False
        stripped = line.strip()
        if stripped.startswith("["):
            match = _TAG.match(stripped)
            if not match:
                raise NotationError(f"line {number}: a tag is [Name \"value\"], got {stripped[:60]!r}")
            if moves:
                raise NotationError(f"line {number}: tags come before the moves")
            tags[match.group(1)] = _unescape(match.group(2))
            continue
        if "{" in line and "}" not in line.split("{", 1)[1]:
            in_comment = True
            line = line.split("{", 1)[0]
        line = _strip_comments(line)
        if not line:
            continue
        conceding = _CONCEDE.match(line)
        if conceding:
            moves.append((number, int(conceding.group(1)), int(conceding.group(2)), None))
            continue
        match = _MOVE.match(line)
        if not match:
            raise NotationError(f"line {number}: expected 'TURN. P<seat>: action', got {line[:60]!r}")
        moves.append((number, int(match.group(1)), int(match.group(2)), match.group(3)))
    for key in ("Players", "Mode", "Seed"):
        if key not in tags:
            raise NotationError(f"the [{key} \"...\"] tag is missing")
    try:
        num_players = int(tags["Players"])
        seed = int(tags["Seed"])
    except ValueError:
        raise NotationError("the Players and Seed tags must be numbers") from None
    record: dict[str, Any] = {
        "num_players": num_players, "mode": tags["Mode"].strip().lower(),
        "variant": parse_variant_tag(tags.get("Variant", "")), "seed": seed, "actions": [],
    }
    if "GameId" in tags:
        record["game_id"] = tags["GameId"]
    seats = [tags.get(f"P{p}") for p in range(num_players)]
    if any(s is not None for s in seats):
        record["seats"] = [s if s is not None else "?" for s in seats]
    if "BotSeeds" in tags:
        try:
            record["bot_seeds"] = [int(s) for s in tags["BotSeeds"].split()]
        except ValueError:
            raise NotationError("the BotSeeds tag must list numbers") from None
    try:
        state = new_game(record)
    except GameError as exc:
        raise NotationError(f"the tags do not set up a game: {exc}") from None
    actions: list[int] = []
    concessions: list[dict[str, int]] = []
    for number, turn, seat, action_text in moves:
        if state.is_terminal():
            raise NotationError(f"line {number}: the game is already over")
        if state.turn_number() + 1 != turn:
            raise NotationError(f"line {number}: the game is in turn {state.turn_number() + 1}, "
                                f"the line says turn {turn}")
        if action_text is None:
            try:
                state.concede(seat)
            except ValueError as exc:
                raise NotationError(f"line {number}: P{seat} cannot concede: {exc}") from None
            concessions.append({"decision": len(actions), "seat": seat})
            continue
        if state.current_player() != seat:
            raise NotationError(f"line {number}: P{state.current_player()} decides here, "
                                f"the line names P{seat}")
        try:
            action = state.string_to_action(action_text)
        except ValueError:
            legal = state.legal_action_strings()
            shown = "; ".join(legal[:6]) + ("; ..." if len(legal) > 6 else "")
            raise NotationError(f"line {number}: {action_text!r} is not a legal action here "
                                f"(legal: {shown})") from None
        state.apply_action(action)
        actions.append(action)
    record["actions"] = actions
    if concessions:
        record["concessions"] = concessions
    if state.is_terminal():
        record["scores"] = state.scores()
        record["winners"] = state.winners()
        record["end_reason"] = state.end_reason()
        _check_result_tags(tags, record)
    elif tags.get("Result", "*") != "*":
        raise NotationError(f"the Result tag says {tags['Result']!r} but the moves do not end the game")
    return record


def _check_result_tags(tags: Mapping[str, str], record: Mapping[str, Any]) -> None:
    said = {
        "Result": " ".join(f"P{p}" for p in record["winners"]),
        "Scores": " ".join(str(s) for s in record["scores"]),
        "EndReason": str(record["end_reason"]),
    }
    for key, found in said.items():
        if key in tags and " ".join(tags[key].split()) != found:
            raise NotationError(f"the {key} tag says {tags[key]!r} but the moves give {found!r}")

