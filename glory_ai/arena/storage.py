"""A run folder, and the one reader of run folders.

A run folder holds ``config.json`` (the resolved config and package version) and
``games.jsonl`` (one game record per line, appended as games finish); a finished run kept
in an experiment's results has ``games.jsonl.gz`` instead (:func:`compress_run`). Every
other part of glory_ai reads run folders through this module: :func:`read_records` (the
records of a file, in file order), :func:`load_records` (sorted), :func:`read_config`,
:func:`load_config` and :func:`load_run`.

A folder is resumed by reading the finished games back; a last line cut short by a kill is
dropped (with a warning) and the file truncated back to its last complete line. A folder
holding a run of another config is refused, naming the keys that differ.
"""
from __future__ import annotations

import gzip
import io
import json
import logging
import os
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

import orjson

from .. import __version__
from .code import code_problem, record_code
from .plan import CONFIG_FORMAT, CONFIG_VERSION, ArenaError, GameTask, RunConfig
from .play import encode_record, record_key

__all__ = ["CONFIG_FILE", "COMPRESSED_GAMES_FILE", "GAMES_FILE", "GAMES_FILES", "SKIPPABLE",
           "RunFolder", "check_config", "compress_run", "count_lines", "games_file", "is_compressed",
           "load_config", "load_records", "load_run", "read_config", "read_records"]

log = logging.getLogger("glory_ai.arena")

CONFIG_FILE = "config.json"
GAMES_FILE = "games.jsonl"
#: a finished run's records compressed (how experiment results are kept)
COMPRESSED_GAMES_FILE = GAMES_FILE + ".gz"
#: the names a run's records file can have
GAMES_FILES = (GAMES_FILE, COMPRESSED_GAMES_FILE)

#: at most this many seconds between two fsyncs of games.jsonl while a run goes on (an
#: fsync costs milliseconds: after every batch of fast games it would be most of the
#: arena's overhead); every batch is flushed to the operating system as it arrives
SYNC_INTERVAL = 1.0

#: the record fields :func:`read_records` can leave out: lists of numbers or names, most of a
#: line's bytes (the actions above all), which a reader that does not replay games skips
SKIPPABLE = ("actions", "bot_seeds", "functions_used")
#: bytes read and parsed at a time
BLOCK = 1 << 23

#: the parser (about twice as fast as the standard library's json on these lines)
_loads: Callable[[bytes], Any] = orjson.loads


def _cutter(skip: Sequence[str]) -> re.Pattern[bytes] | None:
    # In valid JSON ``,"actions":[`` can only be a key (a quote inside a string is escaped)
    # and these lists hold numbers or card names, so the first ``]`` closes them; a line the
    # cut would damage fails to parse and is then read whole.
    unknown = [k for k in skip if k not in SKIPPABLE]
    if unknown:
        raise ArenaError(f"read_records can skip {', '.join(SKIPPABLE)}, not {', '.join(unknown)}")
    if not skip:
        return None
    return re.compile(rb',"(?:' + b"|".join(k.encode() for k in skip) + rb')":\[[^\]]*\]')


def games_file(path: str | os.PathLike) -> Path:
    """The records file of a run folder (``games.jsonl``, or ``games.jsonl.gz`` once
    compressed), or ``path`` itself when it is a file; ArenaError if there is none."""
    path = Path(path)
    if path.is_dir():
        plain = path / GAMES_FILE
        compressed = path / COMPRESSED_GAMES_FILE
        path = plain if plain.exists() or not compressed.exists() else compressed
    if not path.exists():
        raise ArenaError(f"{path}: no such file")
    return path


def is_compressed(folder: str | os.PathLike) -> bool:
    """Does the folder hold a finished run kept compressed (``games.jsonl.gz`` only)?"""
    folder = Path(folder)
    return (folder / COMPRESSED_GAMES_FILE).exists() and not (folder / GAMES_FILE).exists()


def _open(path: Path) -> io.BufferedIOBase:
    return gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")


def _unreadable(path: Path, exc: BaseException) -> ArenaError:
    detail = getattr(exc, "strerror", None) or exc
    if path.suffix == ".gz":
        return ArenaError(f"{path}: not a readable gzip file ({detail})")
    return ArenaError(f"{path}: cannot read ({detail})")


def _record(path: Path, number: int, line: bytes, cut: re.Pattern[bytes] | None) -> Any:
    """One line parsed (with the skipped lists cut out when the cut leaves valid JSON)."""
    if cut is not None:
        try:
            return _loads(cut.sub(b"", line))
        except ValueError:
            pass
    try:
        return _loads(line)
    except ValueError:                  # orjson.JSONDecodeError is a ValueError
        raise ArenaError(f"{path}: line {number} is not valid JSON (a damaged file?)") from None


def _not_a_record(path: Path, number: int, value: Any) -> ArenaError:
    return ArenaError(f"{path}: line {number} is not a game record (a JSON "
                      f"{type(value).__name__}, not an object)")


def read_records(path: str | os.PathLike, *, skip: Sequence[str] = (), repair: bool = False,
                 check: Callable[[dict[str, Any], str], None] | None = None) -> list[dict[str, Any]]:
    """The game records of a records file (``games.jsonl`` or ``games.jsonl.gz``; a run
    folder: its file), in file order: blank lines skipped, repeats kept.

    ``skip``: fields of :data:`SKIPPABLE` to leave out (cut from the lines before parsing:
    reading is then several times faster). A last line without its newline is a write cut
    short by a kill: dropped with a warning, and with ``repair`` the (plain) file is truncated
    back to its last complete line. A line that is not JSON, or not a JSON object, is an
    ArenaError naming the file and the line number, as is an unreadable file.

    ``check(record, where)``, if given, is called on every record with ``where`` =
    ``"FILE: line N"`` (the lines are then parsed one by one, whole): a validator that
    raises its own error naming the line.
    """
    path = games_file(path)
    cut = _cutter(skip)
    records: list[dict[str, Any]] = []
    base = 0                                    # lines before the current block
    rest = b""
    try:
        with _open(path) as fh:
            while True:
                block = fh.read(BLOCK)
                if not block:
                    break
                block = rest + block
                end = block.rfind(b"\n") + 1
                rest = block[end:]
                if end:
                    _parse_block(path, block[:end], base, cut, check, records)
                    base += block.count(b"\n", 0, end)
    except (OSError, EOFError) as exc:          # EOFError: a cut-off .gz file
        raise _unreadable(path, exc) from None
    if rest:
        repaired = repair and path.suffix != ".gz"
        log.warning("%s: dropping a truncated last line (%d bytes) left by an interrupted run%s",
                    path, len(rest),
                    "; truncating the file back to the last complete game" if repaired else "")
        if repaired:
            os.truncate(path, path.stat().st_size - len(rest))
    return records


def _parse_block(path: Path, block: bytes, base: int, cut: re.Pattern[bytes] | None,
                 check: Callable[[dict[str, Any], str], None] | None,
                 records: list[dict[str, Any]]) -> None:
    """Parse a block of whole lines into ``records``: all at once when every line is a JSON
    object, else line by line (blank lines skipped, a bad line named)."""
    if check is None:
        try:
            lines = (cut.sub(b"", block) if cut is not None else block).split(b"\n")[:-1]
            parsed = list(map(_loads, lines))
            if all(type(r) is dict for r in parsed):
                records.extend(parsed)
                return
        except ValueError:
            pass
    for number, line in enumerate(block.split(b"\n")[:-1], start=base + 1):
        if not line.strip():
            continue
        rec = _record(path, number, line, cut if check is None else None)
        if type(rec) is not dict:
            raise _not_a_record(path, number, rec)
        if check is not None:
            check(rec, f"{path}: line {number}")
        records.append(rec)


def count_lines(path: str | os.PathLike) -> int:
    """The lines of a plain records file (games finished so far, a last one cut short
    aside), counted without parsing them; 0 if it cannot be read."""
    try:
        with open(path, "rb") as fh:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 20), b""))
    except OSError:
        return 0


def load_records(path: str | os.PathLike) -> list[dict[str, Any]]:
    """The game records of a run folder (or a records file), sorted by (deal, pairing,
    rotation). A truncated last line is skipped with a warning (the file is not changed)."""
    return sorted(read_records(path), key=record_key)


def read_config(folder: str | os.PathLike) -> dict[str, Any]:
    """The contents of a run folder's ``config.json`` (format, versions, description, games
    per deal, total games and ``config``, the run's identity); ArenaError if it is missing
    or is not an arena run config."""
    return _read_config_file(Path(folder) / CONFIG_FILE)


def load_config(folder: str | os.PathLike) -> RunConfig:
    """The RunConfig stored in a run folder."""
    path = Path(folder) / CONFIG_FILE
    return RunConfig.from_dict(_read_config_file(path)["config"])


def load_run(folder: str | os.PathLike) -> tuple[RunConfig, list[dict[str, Any]]]:
    """(config, sorted records) of a run folder."""
    config = load_config(folder)
    folder = Path(folder)
    has_games = any((folder / name).exists() for name in GAMES_FILES)
    return config, (load_records(folder) if has_games else [])


def compress_run(folder: str | os.PathLike) -> Path:
    """Keep a finished run compressed: its records, sorted by game, into ``games.jsonl.gz``
    (gzip without a timestamp: the same games give the same bytes), and the plain
    ``games.jsonl`` removed. Returns the compressed file."""
    folder = Path(folder)
    plain = folder / GAMES_FILE
    data = "".join(encode_record(r) + "\n" for r in load_records(plain)).encode()
    target = folder / COMPRESSED_GAMES_FILE
    partial = target.with_suffix(".tmp")
    with open(partial, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as fh:
        fh.write(data)
    os.replace(partial, target)
    plain.unlink()
    return target


def _read_config_file(path: Path) -> dict[str, Any]:
    if not path.exists():
        raise ArenaError(f"{path}: no such file (not a run folder?)")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:                   # UnicodeDecodeError is a ValueError
        raise ArenaError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != CONFIG_FORMAT or "config" not in data:
        raise ArenaError(f"{path}: not an arena run config (format {CONFIG_FORMAT!r})")
    return data


def _show(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def check_config(folder: str | os.PathLike, config: RunConfig, warn: bool = True) -> bool:
    """True if ``folder`` holds a run of ``config``, False if it holds no run config;
    ArenaError if it holds a run of another config (naming the keys that differ) or games
    made by other code (glory_ai.arena.code)."""
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
    problem = code_problem(folder, config)
    if problem:
        raise ArenaError(problem)
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
        records = read_records(self.games_path, repair=True) if self.games_path.exists() else []
        records = self._check(records)
        record_code(self.path, self.config, len(records))
        return records

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
