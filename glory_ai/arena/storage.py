"""A run folder: ``config.json`` (the resolved config and package version) and
``games.jsonl`` (one game record per line, appended as games finish).

A folder is resumed by reading the finished games back; a last line cut short by a kill is
dropped (with a warning) and the file truncated back to its last complete line. A folder
holding a run of another config is refused, naming the keys that differ.
"""
from __future__ import annotations

import gzip
import json
import logging
import os
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, TextIO

import orjson

from .. import __version__
from .plan import CONFIG_FORMAT, CONFIG_VERSION, ArenaError, GameTask, RunConfig
from .play import encode_record, record_key

__all__ = ["CONFIG_FILE", "GAMES_FILE", "RunFolder", "load_config", "load_records", "load_run",
           "check_config"]

log = logging.getLogger("glory_ai.arena")

CONFIG_FILE = "config.json"
GAMES_FILE = "games.jsonl"
#: a finished run's records compressed (how experiment results are kept)
COMPRESSED_GAMES_FILE = GAMES_FILE + ".gz"

#: at most this many seconds between two fsyncs of games.jsonl while a run goes on (an
#: fsync costs milliseconds: after every batch of fast games it would be most of the
#: arena's overhead); every batch is flushed to the operating system as it arrives
SYNC_INTERVAL = 1.0




def _scan(path: Path, repair: bool) -> list[dict[str, Any]]:
    """The records of a games.jsonl file. A last line without its newline is a write cut
    short: dropped with a warning, and with ``repair`` the file is truncated back to the last
    complete line. Any other line that is not a JSON object is an ArenaError."""
    data = path.read_bytes()
    head, newline, tail = data.rpartition(b"\n")
    if tail:
        log.warning("%s: dropping a truncated last line (%d bytes) left by an interrupted run%s",
                    path, len(tail),
                    "; truncating the file back to the last complete game" if repair else "")
        if repair:
            os.truncate(path, len(head) + len(newline))
    return _parse(path, head.split(b"\n") if newline else [])


def _parse(path: Path, lines: Iterable[bytes]) -> list[dict[str, Any]]:
    """The records of JSON lines (blank lines skipped); a line that is not a JSON object is
    an ArenaError naming its number."""
    records: list[dict[str, Any]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            rec = orjson.loads(line)
        except ValueError:                  # orjson.JSONDecodeError is a ValueError
            rec = None
        if not isinstance(rec, dict):
            raise ArenaError(f"{path}: line {number} is not a game record (a damaged file?)")
        records.append(rec)
    return records


def load_records(path: str | os.PathLike) -> list[dict[str, Any]]:
    """The game records of a run folder (or a games.jsonl file), sorted by (deal, pairing,
    rotation). A truncated last line is skipped with a warning (the file is not changed)."""
    path = Path(path)
    if path.is_dir():
        plain = path / GAMES_FILE
        compressed = path / COMPRESSED_GAMES_FILE
        path = plain if plain.exists() or not compressed.exists() else compressed
    if not path.exists():
        raise ArenaError(f"{path}: no such file")
    if path.suffix == ".gz":
        records = _scan_compressed(path)
    else:
        records = _scan(path, repair=False)
    return sorted(records, key=record_key)


def _scan_compressed(path: Path) -> list[dict[str, Any]]:
    # a finished run's records, gzip-compressed (experiment results): read-only
    try:
        with gzip.open(path, "rb") as fh:
            lines = fh.read().split(b"\n")
    except (OSError, EOFError) as exc:
        raise ArenaError(f"{path}: not a readable gzip file ({exc})") from None
    return _parse(path, lines)


def load_config(folder: str | os.PathLike) -> RunConfig:
    """The RunConfig stored in a run folder."""
    path = Path(folder) / CONFIG_FILE
    return RunConfig.from_dict(_read_config_file(path)["config"])


def load_run(folder: str | os.PathLike) -> tuple[RunConfig, list[dict[str, Any]]]:
    """(config, sorted records) of a run folder."""
    config = load_config(folder)
    folder = Path(folder)
    has_games = (folder / GAMES_FILE).exists() or (folder / COMPRESSED_GAMES_FILE).exists()
    return config, (load_records(folder) if has_games else [])


def _read_config_file(path: Path) -> dict[str, Any]:
    if not path.exists():
        raise ArenaError(f"{path}: no such file (not a run folder?)")
    try:
        data = json.loads(path.read_text())
    except ValueError as exc:
        raise ArenaError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != CONFIG_FORMAT or "config" not in data:
        raise ArenaError(f"{path}: not an arena run config (format {CONFIG_FORMAT!r})")
    return data


def _show(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def check_config(folder: str | os.PathLike, config: RunConfig, warn: bool = True) -> bool:
    """True if ``folder`` holds a run of ``config``, False if it holds no run config;
    ArenaError if it holds a run of another config (naming the keys that differ)."""
    path = Path(folder) / CONFIG_FILE
    if not path.exists():
        return False
    stored = _read_config_file(path)
    diff = config.differences(stored["config"])
    if diff:
        parts = "; ".join(f"{k}: {_show(theirs)} there, {_show(mine)} here"
                          for k, (mine, theirs) in diff.items())
        raise ArenaError(f"{folder} holds a run of a different config ({parts}); "
                         "use another output folder or the same options")
    if warn and stored.get("version") != __version__:
        log.warning("%s was started by glory_ai %s; this is %s: resuming, but the records "
                    "may not be comparable", folder, stored.get("version"), __version__)
    return True


class RunFolder:
    """The files of one run; use :meth:`open` then :meth:`append` and :meth:`close`."""

    def __init__(self, path: str | os.PathLike, config: RunConfig,
                 sync_interval: float = SYNC_INTERVAL) -> None:
        self.path = Path(path)
        self.sync_interval = sync_interval
        self._synced = 0.0
        self.config = config
        self.games_path = self.path / GAMES_FILE
        self.config_path = self.path / CONFIG_FILE
        self._fh: TextIO | None = None

    def open(self) -> list[dict[str, Any]]:
        """Create or check the folder; return the finished records of this run (sorted)."""
        if self.path.exists() and not self.path.is_dir():
            raise ArenaError(f"{self.path} exists and is not a folder")
        self.path.mkdir(parents=True, exist_ok=True)
        if not check_config(self.path, self.config):
            if self.games_path.exists() and self.games_path.stat().st_size > 0:
                raise ArenaError(f"{self.path} holds {GAMES_FILE} but no {CONFIG_FILE}: not a "
                                 "run folder this command can resume; use another output folder")
            self._write_config()
        if (self.path / COMPRESSED_GAMES_FILE).exists() and not self.games_path.exists():
            raise ArenaError(f"{self.path} holds a finished run kept compressed ({COMPRESSED_GAMES_FILE}); "
                             "read it with load_records, or use another output folder")
        records = _scan(self.games_path, repair=True) if self.games_path.exists() else []
        return self._check(records)

    def _write_config(self) -> None:
        c = self.config
        data = {
            "format": CONFIG_FORMAT, "format_version": CONFIG_VERSION, "version": __version__,
            "description": c.describe(), "games_per_deal": c.games_per_deal,
            "total_games": c.total_games, "config": c.to_dict(),
        }
        tmp = self.config_path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(data, indent=2) + "\n")
        os.replace(tmp, self.config_path)

    def _check(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Records must be games of this run, each once (a repeat is dropped with a warning)."""
        # keyed by what a record read back holds as its game_id (in a damaged file: anything)
        expected: dict[object, GameTask] = {t.game_id: t for t in self.config.tasks()} if records else {}
        seen: dict[object, dict[str, Any]] = {}
        for rec in records:
            gid = rec.get("game_id")
            task = expected.get(gid) if isinstance(gid, str) else None    # a damaged id: anything
            if task is None:
                raise ArenaError(f"{self.games_path}: game {gid!r} is not a game of this run")
            if rec.get("seed") != task.seed or rec.get("seats") != list(task.seats):
                raise ArenaError(f"{self.games_path}: game {gid} does not match this run's plan "
                                 "(seed or seats differ)")
            if gid in seen:
                log.warning("%s: game %s is recorded twice; keeping the first", self.games_path, gid)
                continue
            seen[gid] = rec
        return sorted(seen.values(), key=record_key)

    def append(self, records: Iterable[Mapping[str, Any]], text: str | None = None) -> None:
        """Append records (one line each; ``text``: their lines already encoded) and flush
        them to the operating system, so a killed process loses no finished game; fsync
        when ``sync_interval`` seconds have passed since the last one (each batch when 0),
        and always at :meth:`close`."""
        if self._fh is None:
            self._fh = open(self.games_path, "a", encoding="utf-8")
            self._synced = time.monotonic()
        if text is None:
            text = "".join(encode_record(r) + "\n" for r in records)
        self._fh.write(text)
        self._fh.flush()
        if time.monotonic() - self._synced >= self.sync_interval:
            os.fsync(self._fh.fileno())
            self._synced = time.monotonic()

    def close(self) -> None:
        if self._fh is not None:
            try:
                self._fh.flush()
                os.fsync(self._fh.fileno())
            finally:
                self._fh.close()
                self._fh = None
