"""Reading games back from files: a run folder, a ``games.jsonl(.gz)`` file, one JSON
record (or several, one per line), or a game in the notation (docs/play.md).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .._jsonio import MAX_BYTES, JSONLimitError, loads
from .._reading import ReadLimitError, read_text
from ..arena.plan import ArenaError
from .notation import NotationError, parse_notation
from .records import GameError

__all__ = ["load_game", "load_games"]


def load_games(path: str | os.PathLike) -> list[dict[str, Any]]:
    """The games of a file: a run folder, a games.jsonl(.gz) file, one JSON record, or a
    game in the notation (docs/play.md). GameError if it cannot be read."""
    from ..arena.storage import load_records

    path = Path(path)
    if not path.exists():
        raise GameError(f"{path}: no such file or folder")
    if path.is_dir() or path.name.endswith((".jsonl", ".jsonl.gz")):
        try:
            records = load_records(path)
        except ArenaError as exc:
            raise GameError(str(exc)) from None
        if not records:
            raise GameError(f"{path}: holds no games")
        return records
    try:
        text = read_text(path, "a game file", MAX_BYTES)
    except ReadLimitError as exc:
        raise GameError(str(exc)) from None
    except OSError as exc:
        raise GameError(f"{path}: cannot read ({exc})") from None
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            record = loads(text, str(path))
        except JSONLimitError:
            # several records, one per line, in a file not named .jsonl
            try:
                records = [loads(line, f"{path}: line {n}")
                           for n, line in enumerate(text.splitlines(), 1) if line.strip()]
            except JSONLimitError as exc:
                raise GameError(f"{exc} (not a game record)") from None
            return records
        if not isinstance(record, dict) or "actions" not in record:
            raise GameError(f"{path}: not a game record (no actions)")
        return [record]
    try:
        return [parse_notation(text)]
    except NotationError as exc:
        raise GameError(f"{path}: {exc}") from None


def load_game(path: str | os.PathLike, game_id: str | None = None) -> dict[str, Any]:
    """One game of a file (see :func:`load_games`): the one with `game_id`, or the only one."""
    records = load_games(path)
    if game_id is not None:
        for record in records:
            if str(record.get("game_id")) == game_id:
                return record
        ids = ", ".join(str(r.get("game_id")) for r in records[:8])
        more = ", ..." if len(records) > 8 else ""
        raise GameError(f"{path}: no game {game_id!r} (the games: {ids}{more})")
    if len(records) > 1:
        ids = ", ".join(str(r.get("game_id")) for r in records[:5])
        raise GameError(f"{path} holds {len(records)} games: choose one with --game ID ({ids}, ...)")
    return records[0]
