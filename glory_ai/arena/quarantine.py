"""What repair sets aside: ``quarantine.jsonl`` beside a run's records (docs/arena.md).

Nothing a repair removes from a run folder is deleted: each line it takes out of the
records (a damaged record, a second copy of a game, a line cut short by a kill, the
unreadable part of a damaged archive) is appended to ``quarantine.jsonl`` first, synced,
and only then is the records file rewritten. One JSON object a line::

    {"when": "2024-05-01T12:00:00+0000", "by": "glory-ai verify results/x --repair",
     "file": "games.jsonl", "line": 17, "game_id": "3-0-1", "field": "roles_led",
     "reason": "results/x/games.jsonl: line 17 (game 3-0-1): field roles_lex is not ...",
     "text": "{\\"record_version\\":1, ...}"}

``text`` holds the line as it was (``base64`` instead when it is not UTF-8); an archive's
unreadable part is kept whole (``archive_base64``: the damaged file's bytes, from which
nothing more could be read). :func:`read_quarantine` reads the entries back.
"""
from __future__ import annotations

import base64
import json
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._reading import open_regular, read_lines
from .files import QUARANTINE_FILE
from .plan import ArenaError

__all__ = ["QUARANTINE_FILE", "Quarantine", "read_quarantine"]


def _command() -> str:
    return " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]) if sys.argv and sys.argv[0] else "python"


@dataclass
class Quarantine:
    """The entries one repair sets aside in ``folder``, written by :meth:`write` (appended
    to the folder's quarantine file and synced) before the records are rewritten."""

    folder: Path
    entries: list[dict[str, Any]] = field(default_factory=list)

    @property
    def path(self) -> Path:
        return self.folder / QUARANTINE_FILE

    def add(self, file: str | os.PathLike[str], line: int, reason: str, data: bytes = b"", *,
            game_id: Any = None, field: str | None = None, archive: bytes | None = None) -> None:
        """Set aside line ``line`` of ``file`` (its bytes ``data``) for ``reason`` (one line)."""
        entry: dict[str, Any] = {"file": Path(file).name, "line": line}
        if isinstance(game_id, str):
            entry["game_id"] = game_id
        if field:
            entry["field"] = field
        entry["reason"] = " ".join(reason.split())
        try:
            entry["text"] = data.decode("utf-8")
        except UnicodeDecodeError:
            entry["base64"] = base64.b64encode(data).decode("ascii")
        if archive is not None:
            entry["archive_base64"] = base64.b64encode(archive).decode("ascii")
        self.entries.append(entry)

    def lines(self) -> set[int]:
        """The line numbers set aside."""
        return {entry["line"] for entry in self.entries}

    def write(self) -> None:
        """Append the entries to the quarantine file and sync it (nothing is removed from the
        records before this returns); ArenaError naming the file when it cannot be written."""
        if not self.entries:
            return
        stamp = {"when": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "by": _command()}
        text = "".join(json.dumps({**stamp, **entry}, ensure_ascii=False) + "\n"
                       for entry in self.entries)
        try:
            with open(self.path, "a", encoding="utf-8") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
        except OSError as error:
            detail = error.strerror or str(error)
            raise ArenaError(f"{self.path}: cannot write ({detail}); nothing was removed from the "
                             "records") from None


def read_quarantine(folder: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """The entries of a folder's quarantine file, oldest first (each with ``data``: the
    bytes set aside); nothing when there is none."""
    path = Path(folder) / QUARANTINE_FILE
    if not path.exists():
        return
    with open_regular(path, "a quarantine file") as fh:
        for line in read_lines(fh, str(path)):
            if not line.strip():
                continue
            entry = json.loads(line)
            entry["data"] = (base64.b64decode(entry["base64"]) if "base64" in entry
                             else entry.get("text", "").encode("utf-8"))
            yield entry
