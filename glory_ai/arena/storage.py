"""A run folder, and the one reader of run folders.

A run folder holds ``config.json`` (the resolved config and package version) and
``games.jsonl`` (one game record per line, appended as games finish); a finished run kept
in an experiment's results has ``games.jsonl.gz`` instead (:func:`compress_run`). Every
other part of glory_ai reads run folders through this module: :func:`read_records` (the
records of a file, in file order), :func:`load_records` (sorted), :func:`read_config`,
:func:`load_config` and :func:`load_run`.

A folder is written by one process at a time (:mod:`glory_ai.arena.lock`). It is resumed by
reading the finished games back in a stream (:meth:`RunFolder.open`: a bitmap of the games
done, no records kept); a last line cut short by a kill is dropped (with a warning) and the
file truncated back to its last complete line, a game recorded twice is removed once. A
folder holding a run of another config is refused, naming the keys that differ.

Each time a run stops writing, ``config.json`` gets the checksum of its records
(``records``: the number of lines and the sum of their SHA-256, which does not depend on
their order): a record changed afterwards is refused by every reader, and ``glory-ai verify``
finds it.
"""
from __future__ import annotations

import contextlib
import errno
import gc
import gzip
import hashlib
import json
import logging
import os
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from .. import __version__
from .._jsonio import JSONLimitError, read_json
from .._reading import ReadLimitError, open_regular
from .archive import ArchiveDamage, gz_chunks
from .code import code_problem, played_config, record_code
from .files import CODE_FILE, COMPRESSED_GAMES_FILE, CONFIG_FILE, GAMES_FILE, GAMES_FILES, SUMS_FILE
from .integrity import PLAN_KEY, check_plan, plan_sha256, stamp_plan
from .lock import FolderLock
from .plan import CONFIG_FORMAT, CONFIG_VERSION, ArenaError, RunConfig
from .play import TIMING_FIELDS, encode_record, record_key
from .quarantine import Quarantine
from .schema import RecordError, RecordSchema
from .sums import SumsWriter

__all__ = ["CONFIG_FILE", "COMPRESSED_GAMES_FILE", "GAMES_FILE", "GAMES_FILES", "SKIPPABLE",
           "Digest", "Plan", "RunFolder", "Scan", "check_config", "compress_run", "count_lines",
           "games_file", "is_compressed", "iter_lines", "iter_record_chunks", "load_config", "load_records",
           "load_run",
           "os_error", "read_config", "read_records", "stored_digest",
           "write_config_records"]

log = logging.getLogger("glory_ai.arena")

#: the key of config.json that holds the records' checksum (:class:`Digest`)
DIGEST_KEY = "records"

#: at most this many seconds between two fsyncs of games.jsonl while a run goes on (an
#: fsync costs milliseconds: after every batch of fast games it would be most of the
#: arena's overhead); every batch is flushed to the operating system as it arrives
SYNC_INTERVAL = 1.0

#: the record fields :func:`read_records` can leave out: lists of numbers or names, most of a
#: line's bytes (the actions above all), which a reader that does not replay games skips
SKIPPABLE = ("actions", "bot_seeds", "functions_used")
#: bytes read and parsed at a time (by readers that keep the records), and by a stream that
#: keeps none (a resume, a check): smaller, since its memory must not grow with anything
BLOCK = 1 << 23
STREAM_BLOCK = 1 << 20
#: records handed at a time to a resume's listener (the stopping rule, the progress bar)
CHUNK = 4096
#: the largest config.json read (a config of many specs is a few kilobytes)
CONFIG_BYTES = 4 << 20

#: the parser (about twice as fast as the standard library's json on these lines)
_loads: Callable[[bytes], Any] = orjson.loads



def os_error(path: str | os.PathLike, error: OSError, doing: str = "cannot write") -> ArenaError:
    """An OSError as one line naming the file: ``PATH: cannot write (No space left on device)``."""
    detail = error.strerror or str(error) or type(error).__name__
    if error.errno == errno.EROFS:
        detail = "read-only file system"
    return ArenaError(f"{path}: {doing} ({detail})")


class Digest:
    """The checksum of a set of record lines, whatever their order: the number of lines
    and the sum, modulo 2**256, of the SHA-256 of each line (without its newline). Appending,
    sorting and compressing keep it; changing, adding or removing a line changes it."""

    MASK = (1 << 256) - 1

    def __init__(self) -> None:
        self.lines = 0
        self.total = 0

    def add(self, line: bytes) -> bytes:
        """Count a line in; returns its SHA-256."""
        sha = hashlib.sha256(line).digest()
        self.total = (self.total + int.from_bytes(sha, "big")) & self.MASK
        self.lines += 1
        return sha

    def to_dict(self) -> dict[str, Any]:
        return {"lines": self.lines, "sha256_sum": f"{self.total:064x}"}

    def matches(self, stored: Mapping[str, Any]) -> bool:
        return self.to_dict() == {"lines": stored.get("lines"), "sha256_sum": stored.get("sha256_sum")}


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


#: the longest line a records file may hold (a game of MAX_DECISIONS actions is under 1 MB)
MAX_LINE = 64 << 20
@dataclass
class Salvage:
    """What reading a damaged file kept of its end: filled in by :func:`_blocks` when it
    is given one. ``damage``: the ArchiveDamage (None: the file read whole); ``tail``: the
    bytes after the last complete line (a line cut short); ``lines``: the lines read whole."""

    damage: ArchiveDamage | None = None
    tail: bytes = b""
    lines: int = 0


def _open(path: Path) -> BinaryIO:
    try:
        return open_regular(path, "a records file")      # a FIFO or a device: one line, no wait
    except ReadLimitError as exc:
        raise ArenaError(str(exc)) from None


def _unreadable(path: Path, exc: BaseException) -> ArenaError:
    detail = getattr(exc, "strerror", None) or exc
    return ArenaError(f"{path}: cannot read ({detail})")


def _recovery(path: Path) -> str:
    folder = path.parent
    return (f"`glory-ai verify {folder} --repair` keeps them, sets the rest aside "
            f"({folder.name}/quarantine.jsonl) and replays the games it held")


def _damaged(damage: ArchiveDamage, lines: int) -> ArenaError:
    read = f"lines 1 to {lines} read whole, line {lines + 1} on cannot be" if lines else \
        "no line can be"
    return ArenaError(f"{damage.path}: not a readable gzip file: damaged at byte {damage.offset} "
                      f"of {damage.size} ({damage.reason}); {read} read; {_recovery(damage.path)}")


def _chunks(path: Path, size: int, salvage: Salvage | None) -> Iterator[bytes]:
    if path.suffix == ".gz":
        yield from gz_chunks(path, salvage is not None)
        return
    with _open(path) as fh:
        while block := fh.read(size):
            yield block


def _blocks(path: Path, repair: bool = False, size: int = BLOCK,
            salvage: Salvage | None = None) -> Iterator[tuple[int, list[bytes]]]:
    """The file's complete lines, a block at a time: (lines before the block, its lines,
    blank ones included so that numbers hold). A last line without its newline is a write
    cut short by a kill: dropped with a warning, and with ``repair`` the (plain) file is
    truncated back to its last complete line (the cut line set aside in the quarantine file
    first). An unreadable file is an ArenaError; a damaged archive too, naming the line from
    which it cannot be read and the command that recovers it -- or, given ``salvage``, the
    lines before the damage are read and the damage noted there."""
    base = 0
    rest = b""
    try:
        for block in _chunks(path, size, salvage):
            block = rest + block if rest else block
            end = block.rfind(b"\n") + 1
            rest = block[end:]
            if len(rest) > MAX_LINE:
                raise ArenaError(f"{path}: line {base + 1} is longer than {MAX_LINE >> 20} MB: not "
                                 "a records file")
            if end:
                lines = block[:end].split(b"\n")[:-1]
                yield base, lines
                base += len(lines)
    except ArchiveDamage as damage:
        if salvage is None:
            raise _damaged(damage, base) from None
        salvage.damage, salvage.tail, salvage.lines = damage, rest, base
        return
    except OSError as exc:
        raise _unreadable(path, exc) from None
    if salvage is not None:
        salvage.tail, salvage.lines = rest, base
        return
    if rest:
        repaired = repair and path.suffix != ".gz"
        log.warning("%s: dropping a truncated last line (%d bytes) left by an interrupted run%s",
                    path, len(rest),
                    "; truncating the file back to the last complete game" if repaired else "")
        if repaired:
            quarantine = Quarantine(path.parent)
            quarantine.add(path, base + 1, f"{path}: line {base + 1} is cut short ({len(rest)} "
                           "bytes, a run killed while writing it)", rest)
            quarantine.write()
            try:
                os.truncate(path, path.stat().st_size - len(rest))
            except OSError as error:
                raise os_error(path, error, "cannot truncate the cut line") from None


def iter_lines(path: str | os.PathLike, repair: bool = False) -> Iterator[tuple[int, bytes]]:
    """(line number, line) of every non-blank complete line of a records file, in a stream."""
    for base, lines in _blocks(games_file(path), repair, STREAM_BLOCK):
        for number, line in enumerate(lines, start=base + 1):
            if line.strip():
                yield number, line


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


def stored_digest(path: str | os.PathLike) -> dict[str, Any] | None:
    """The checksum that ``config.json`` holds for the records of a run folder (or of the
    folder of a records file), or None (a run still being written for the first time, or
    written before checksums were kept)."""
    path = Path(path)
    folder = path if path.is_dir() else path.parent
    if not path.is_dir() and path.name not in GAMES_FILES:
        return None
    try:
        data = read_json(folder / CONFIG_FILE)
    except (OSError, ValueError):
        return None
    digest = data.get(DIGEST_KEY) if isinstance(data, dict) else None
    return digest if isinstance(digest, dict) else None


def _changed(path: Path, found: Digest, stored: Mapping[str, Any]) -> ArenaError:
    folder = path.parent
    lines = stored.get("lines")
    if isinstance(lines, int) and found.lines < lines:
        what = f"holds {found.lines} records where {lines} were written: records were removed"
    elif isinstance(lines, int) and found.lines > lines:
        what = f"holds {found.lines} records where {lines} were written: records were added"
    else:
        what = "does not match the checksum written with it: a record was changed"
    return ArenaError(f"{path} {what} (`glory-ai verify {folder}` names the records; "
                      f"`glory-ai verify {folder} --repair` sets them aside and replays their games)")


class _PrefixCheck:
    """Checks the first ``stored["lines"]`` lines of a file against the stored checksum (the
    lines after them were appended later, by a resume that did not finish)."""

    def __init__(self, path: Path, stored: Mapping[str, Any] | None) -> None:
        self.path = path
        self.stored = stored
        lines = stored.get("lines") if stored else None
        self.limit = lines if isinstance(lines, int) and not isinstance(lines, bool) else -1
        self.digest = Digest()

    def add(self, line: bytes) -> None:
        if self.digest.lines < self.limit:
            self.digest.add(line)

    @property
    def covered(self) -> int:
        """The lines the stored checksum covers (0 without one)."""
        return max(self.limit, 0)

    def finish(self) -> None:
        if self.stored is None:
            return
        if self.limit < 0 or self.digest.lines < self.limit or not self.digest.matches(self.stored):
            raise _changed(self.path, self.digest, self.stored)


def _timeless(record: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k not in TIMING_FIELDS}


def _repeated(path: Path, gid: Any) -> ArenaError:
    return ArenaError(f"{path}: game {gid} is recorded twice with different results "
                      f"(`glory-ai verify {path.parent}` tells which one replays)")


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off while records are parsed: the records hold no cycle,
    and the collections that their millions of dicts and lists would trigger took two thirds
    of a read's time (benchmarks/reader.py)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _in_run_folder(path: Path) -> bool:
    return path.name in GAMES_FILES and (path.parent / CONFIG_FILE).exists()


def reading_schema(path: str | os.PathLike, skip: Sequence[str] = ()) -> RecordSchema:
    """The schema the readers check the records of ``path`` (a records file) with: with the
    run's plan when ``path`` is a run folder's records and its ``config.json`` carries the
    checksums that confirm its plan (glory_ai.arena.integrity); without a plan otherwise (a
    bare records file, a folder of an older glory_ai). A plan edited since its games were
    played, or a config.json that cannot be read, is an ArenaError naming the file."""
    path = Path(path)
    config = None
    if _in_run_folder(path):
        try:
            _read_config_file(path.parent / CONFIG_FILE)
        except ArenaError as error:
            raise ArenaError(f"{error} (`glory-ai verify {path.parent}` says how to mend it)") from None
        found = check_plan(path.parent)
        if found.problem and found.plan:
            raise ArenaError(found.problem)
        if found.confirmed:
            with contextlib.suppress(ArenaError):       # a spec this code cannot read: no plan
                config = load_config(path.parent)
    return RecordSchema(config, skipped=skip, strict=config is not None)


class _Unchecked(RecordSchema):
    """No schema: the lines that parse to JSON objects, as they are."""

    def check(self, rec: Any, where: str, bot_seeds: bool = True, line: int = 0) -> int | None:
        if type(rec) is not dict:
            super().check(rec, where, bot_seeds, line)
        return None


def _hint(path: Path) -> str:
    if _in_run_folder(path):
        return (f"`glory-ai verify {path.parent} --repair` sets it aside "
                f"({path.parent.name}/quarantine.jsonl) and replays its game")
    return "not a record glory_ai wrote, or a damaged one"


def _refused(path: Path, error: RecordError) -> RecordError:
    error.args = (f"{error}; {_hint(path)}",)
    return error


def read_records(path: str | os.PathLike, *, skip: Sequence[str] = (), repair: bool = False,
                 check: Callable[[dict[str, Any], str], None] | None = None,
                 repeats: bool = False, checksum: bool = True) -> list[dict[str, Any]]:
    """The game records of a records file (``games.jsonl`` or ``games.jsonl.gz``; a run
    folder: its file), in file order, blank lines skipped.

    Every record is checked whole against the schema (:mod:`glory_ai.arena.schema`: every
    field, its type and range, the fields against one another and, in a run folder whose
    plan its checksums confirm, against the plan); one that fails is an ArenaError
    (:class:`~glory_ai.arena.schema.RecordError`) naming the file, the line, the game and the
    field, and the command that sets it aside. A run folder whose ``config.json`` was edited
    is refused (glory_ai.arena.integrity).

    A game recorded twice (two writers, a line copied) is kept once, the first, with a
    warning, when the copies differ only in their timing; copies that differ otherwise are an
    ArenaError (``repeats=True`` keeps every line). When the folder's ``config.json`` holds
    the checksum of its records (:class:`Digest`), a record changed since is an ArenaError.
    ``checksum=False``: neither the checksum nor the schema is checked (the records as they
    are, for the tools that examine a damaged folder and report what they find: verify,
    reproduce).

    ``skip``: fields of :data:`SKIPPABLE` to leave out (cut from the lines before parsing:
    reading is then several times faster). A last line without its newline is a write cut
    short by a kill: dropped with a warning, and with ``repair`` the (plain) file is truncated
    back to its last complete line. A line that is not JSON, or not a JSON object, is an
    ArenaError naming the file and the line number, as is an unreadable file; a damaged
    archive names the line from which it cannot be read and the command that recovers it.

    ``check(record, where)``, if given, is called on every record with ``where`` =
    ``"FILE: line N"`` after the schema: a validator that raises its own error naming the line.
    """
    path = games_file(path)
    cut = _cutter(skip)
    schema = reading_schema(path, skip) if checksum else _Unchecked()
    prefix = _PrefixCheck(path, stored_digest(path) if checksum else None)
    # the bot seeds are recomputed from the plan for the lines the checksum does not cover
    # (those it covers are as the run wrote them, which it checked)
    covered = prefix.covered if prefix.stored is not None else 0
    records: list[dict[str, Any]] = []
    where = str(path)
    try:
        with _gc_paused():
            for base, lines in _blocks(path, repair):
                if prefix.stored is not None:
                    for line in lines:
                        if line.strip():
                            prefix.add(line)
                _parse_block(path, lines, base, cut, check, records, schema, where, covered)
    except RecordError as error:
        raise _refused(path, error) from None
    prefix.finish()
    if path.suffix == ".gz" and prefix.stored is not None and prefix.digest.lines != len(records):
        raise _changed(path, prefix.digest, prefix.stored)
    return records if repeats else _unique(path, records)


def iter_record_chunks(path: str | os.PathLike, *, skip: Sequence[str] = (), size: int = CHUNK * 8,
                       checksum: bool = True) -> Iterator[list[dict[str, Any]]]:
    """The records of a records file (or a run folder's) in file order, in lists of about
    ``size``, read in a stream: memory bounded by a chunk, whatever the file's size. Parsed
    and checked as :func:`read_records` does (every record against the schema: a record that
    fails is a RecordError naming the file, the line and the field), but a game recorded
    twice is not removed (the caller keeps the first), and a checksum that differs is an
    ArenaError raised after the last chunk (a caller that keeps what it made of the chunks
    discards it then)."""
    path = games_file(path)
    cut = _cutter(skip)
    schema = reading_schema(path, skip) if checksum else _Unchecked()
    prefix = _PrefixCheck(path, stored_digest(path) if checksum else None)
    covered = prefix.covered if prefix.stored is not None else 0
    where = str(path)
    out: list[dict[str, Any]] = []
    count = 0
    for base, lines in _blocks(path, False, STREAM_BLOCK):
        if prefix.stored is not None:
            for line in lines:
                if line.strip():
                    prefix.add(line)
        before = len(out)
        try:
            with _gc_paused():
                _parse_block(path, lines, base, cut, None, out, schema, where, covered)
        except RecordError as error:
            raise _refused(path, error) from None
        count += len(out) - before
        if len(out) >= size:
            yield out
            out = []
    if out:
        yield out
    prefix.finish()
    if path.suffix == ".gz" and prefix.stored is not None and prefix.digest.lines != count:
        raise _changed(path, prefix.digest, prefix.stored)


def _unique(path: Path, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records with each game once (the first), ArenaError for copies that differ."""
    first: dict[Any, int] = {}
    repeated = 0
    for i, rec in enumerate(records):
        gid = rec.get("game_id")
        if not isinstance(gid, str):
            continue
        j = first.setdefault(gid, i)
        if j != i:
            if _timeless(records[j]) != _timeless(rec):
                raise _repeated(path, gid)
            repeated += 1
    if not repeated:
        return records
    log.warning("%s: %d game(s) recorded twice; counting each once", path, repeated)
    return [rec for i, rec in enumerate(records)
            if not isinstance(rec.get("game_id"), str) or first[rec["game_id"]] == i]


def _parse_block(path: Path, lines: list[bytes], base: int, cut: re.Pattern[bytes] | None,
                 check: Callable[[dict[str, Any], str], None] | None,
                 records: list[dict[str, Any]], schema: RecordSchema, where: str,
                 covered: int) -> None:
    """Parse a block of whole lines into ``records``, each checked by ``schema``: all at
    once when every line is a JSON object, else line by line (blank lines skipped, a bad
    line named)."""
    if check is None:
        try:
            parsed = [_loads(cut.sub(b"", line) if cut is not None else line) for line in lines]
        except ValueError:
            parsed = []
        if parsed and all(type(r) is dict for r in parsed):
            verify = schema.check
            for number, rec in enumerate(parsed, start=base + 1):
                verify(rec, where, number > covered, number)
            records.extend(parsed)
            return
    for number, line in enumerate(lines, start=base + 1):
        if not line.strip():
            continue
        rec = _record(path, number, line, cut if check is None else None)
        schema.check(rec, where, number > covered, number)
        if check is not None:
            check(rec, f"{path}: line {number}")
        records.append(rec)


def count_lines(path: str | os.PathLike) -> int:
    """The lines of a plain records file (games finished so far, a last one cut short
    aside), counted without parsing them; 0 if it cannot be read."""
    try:
        with open_regular(path, "a records file") as fh:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 20), b""))
    except (OSError, ReadLimitError):
        return 0


def load_records(path: str | os.PathLike) -> list[dict[str, Any]]:
    """The game records of a run folder (or a records file), sorted by (deal, pairing,
    rotation), each game once. A truncated last line is skipped with a warning (the file is
    not changed)."""
    return sorted(read_records(path), key=record_key)


def read_config(folder: str | os.PathLike) -> dict[str, Any]:
    """The contents of a run folder's ``config.json`` (format, versions, description, games
    per deal, total games, ``config``, the run's identity, and ``records``, the checksum of
    its records); ArenaError if it is missing or is not an arena run config."""
    return _read_config_file(Path(folder) / CONFIG_FILE)


def load_config(folder: str | os.PathLike) -> RunConfig:
    """The RunConfig stored in a run folder, its bots built as they were played (``played``:
    the parameters its code.json records, glory_ai.arena.code.played_config), so that its
    games replay as stored whatever defaults changed since."""
    path = Path(folder) / CONFIG_FILE
    return played_config(RunConfig.from_dict(_read_config_file(path)["config"]), folder)


def load_run(folder: str | os.PathLike) -> tuple[RunConfig, list[dict[str, Any]]]:
    """(config, sorted records) of a run folder."""
    config = load_config(folder)
    folder = Path(folder)
    has_games = any((folder / name).exists() for name in GAMES_FILES)
    return config, (load_records(folder) if has_games else [])


def _write_atomically(target: Path, write: Callable[[BinaryIO], object]) -> None:
    """Write ``target`` through a temporary file renamed over it once complete and synced:
    a kill or a full disk leaves the old file whole."""
    partial = target.with_name(target.name + ".tmp")
    try:
        with open(partial, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(partial, target)
    except OSError as error:
        with _quiet():
            partial.unlink()
        raise os_error(target, error) from None


class _quiet:
    """``with _quiet(): ...`` ignores an OSError (cleaning up after a failure)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> bool:
        return kind is not None and issubclass(kind, OSError)


def _sorted_lines(path: Path) -> tuple[list[bytes], int]:
    """The distinct record lines of a plain file sorted by game, and the repeats dropped
    (a copy that differs beyond its timing is an ArenaError; a record that fails the schema
    too: an archive is never made of a damaged record)."""
    keyed: dict[tuple[int, int, int], bytes] = {}
    repeats = 0
    cut = _cutter(SKIPPABLE)
    schema = reading_schema(path, SKIPPABLE)
    where = str(path)
    for number, line in iter_lines(path):
        rec = _record(path, number, line, cut)
        try:
            schema.check(rec, where, True, number)
        except RecordError as error:
            raise _refused(path, error) from None
        key = record_key(rec)
        if key in keyed:
            if _timeless(_loads(keyed[key])) != _timeless(_loads(line)):
                raise _repeated(path, rec.get("game_id"))
            repeats += 1
            continue
        keyed[key] = line
    return [keyed[k] for k in sorted(keyed)], repeats


def compress_run(folder: str | os.PathLike) -> Path:
    """Keep a finished run compressed: its records, sorted by game and each game once, into
    ``games.jsonl.gz`` (gzip without a timestamp: the same games give the same bytes), the
    plain ``games.jsonl`` removed and the checksum of the records stored in ``config.json``.
    Holds the folder's lock. Returns the compressed file."""
    folder = Path(folder)
    plain = folder / GAMES_FILE
    target = folder / COMPRESSED_GAMES_FILE
    with FolderLock(folder, shared=True):        # joined by a repair that holds it
        lines, repeats = _sorted_lines(plain)
        prefix = _PrefixCheck(plain, stored_digest(plain))
        for _, line in iter_lines(plain):
            prefix.add(line)
        prefix.finish()
        if repeats:
            log.warning("%s: %d game(s) recorded twice; keeping each once", plain, repeats)
        digest = Digest()
        for line in lines:
            digest.add(line)

        def write(raw: BinaryIO) -> None:
            with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as fh:
                for line in lines:
                    fh.write(line + b"\n")

        _write_atomically(target, write)
        write_config_records(folder, digest)
        try:
            plain.unlink()
        except OSError as error:
            raise os_error(plain, error, "cannot remove") from None
    return target


def write_config_records(folder: str | os.PathLike, digest: Digest | None) -> None:
    """Store the checksum of the folder's records in its ``config.json`` (None: remove it)."""
    path = Path(folder) / CONFIG_FILE
    data = _read_config_file(path)
    if digest is None:
        data.pop(DIGEST_KEY, None)
    else:
        data[DIGEST_KEY] = digest.to_dict()
    text = (json.dumps(data, indent=2) + "\n").encode()
    _write_atomically(path, lambda fh: fh.write(text))


def _read_config_file(path: Path) -> dict[str, Any]:
    if not path.exists():
        raise ArenaError(f"{path}: no such file (not a run folder?)")
    try:
        data = read_json(path, max_bytes=CONFIG_BYTES)
    except OSError as error:
        raise os_error(path, error, "cannot read") from None
    except JSONLimitError as exc:
        raise ArenaError(str(exc)) from None
    if not isinstance(data, dict) or data.get("format") != CONFIG_FORMAT or "config" not in data:
        raise ArenaError(f"{path}: not an arena run config (format {CONFIG_FORMAT!r})")
    return data


def _show(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def check_config(folder: str | os.PathLike, config: RunConfig, warn: bool = True) -> bool:
    """True if ``folder`` holds a run of ``config``, False if it holds no run config;
    ArenaError if its config was edited since its games were played (naming the file and what
    changed, glory_ai.arena.integrity), if it holds a run of another config (naming the keys
    that differ) or games made by other code (glory_ai.arena.code)."""
    path = Path(folder) / CONFIG_FILE
    if not path.exists():
        return False
    stored = _read_config_file(path)
    found = check_plan(folder)
    if found.problem and found.plan:
        raise ArenaError(found.problem)
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


class Plan:
    """The games of a config as indices 0 .. total_games - 1 (in (deal, pairing, rotation)
    order), and the check that a record read back is one of them: the whole record against
    the schema and the plan (:class:`~glory_ai.arena.schema.RecordSchema`: its place, seeds
    and seats those of the plan). Holds no task: O(1) memory in the run's size."""

    def __init__(self, config: RunConfig, skipped: Sequence[str] = ()) -> None:
        self.config = config
        self.schema = RecordSchema(config, skipped=skipped)
        self.pairings = self.schema.pairings
        self.rotations = self.schema.rotations

    def index(self, deal: int, pairing: int, rotation: int) -> int:
        return (deal * self.pairings + pairing) * self.rotations + rotation

    def check(self, rec: Any, where: str, bot_seeds: bool = True, line: int = 0) -> int:
        """The plan index of a record, or RecordError naming ``where`` (file and line)."""
        index = self.schema.check(rec, where, bot_seeds, line)
        assert index is not None
        return index


@dataclass
class Scan:
    """What a resume found in a folder: which planned games are done (a byte per game), how
    many, and the checksum of the file as it now is."""

    done: bytearray
    games: int = 0
    digest: Digest = field(default_factory=Digest)
    repeats: int = 0


def scan_folder(path: Path, plan: Plan, listen: Callable[[list[dict[str, Any]]], object] | None = None,
                repair: bool = False) -> Scan:
    """Read a run's records file in a stream: each record checked against the schema and
    the plan (an error names the line, the field and the command that sets the record
    aside), the games done marked, the checksum against the stored one. ``listen`` gets the
    records (without their actions) in chunks. A game recorded twice is an ArenaError if
    the copies differ beyond timing, else (with ``repair``) the copies are set aside in the
    quarantine file and the file rewritten once without them."""
    result = Scan(done=bytearray(plan.config.total_games))
    prefix = _PrefixCheck(path, stored_digest(path))
    cut = _cutter(SKIPPABLE)
    schema = RecordSchema(plan.config, skipped=SKIPPABLE, strict=check_plan(path.parent).confirmed)
    where = str(path)
    chunk: list[dict[str, Any]] = []
    repeated: list[int] = []                  # line numbers of repeats
    with _gc_paused():
        for number, line in iter_lines(path, repair=repair):
            prefix.add(line)
            result.digest.add(line)
            rec = _record(path, number, line, cut)
            try:
                index = schema.check(rec, where, False, number)
            except RecordError as error:
                raise _refused(path, error) from None
            assert index is not None
            if result.done[index]:
                repeated.append(number)
                continue
            result.done[index] = 1
            result.games += 1
            if listen is not None:
                chunk.append(rec)
                if len(chunk) >= CHUNK:
                    listen(chunk)
                    chunk = []
    if listen is not None and chunk:
        listen(chunk)
    prefix.finish()
    if path.suffix == ".gz" and prefix.stored is not None and result.digest.lines != prefix.limit:
        raise _changed(path, result.digest, prefix.stored)      # a compressed file is written whole
    if repeated:
        result.repeats = len(repeated)
        _check_repeats(path, plan, set(repeated))
        if repair:
            quarantine = Quarantine(path.parent)
            for number, line in iter_lines(path):
                if number in repeated:
                    quarantine.add(path, number, f"{path}: line {number}: a second copy of game "
                                   f"{_loads(line).get('game_id')} (the same but for its timing)",
                                   line, game_id=_loads(line).get("game_id"))
            quarantine.write()
            result.digest = _drop_lines(path, set(repeated))
            log.warning("%s: removed %d repeated record(s) (a game written twice) to %s; each game "
                        "is kept once", path, len(repeated), quarantine.path.name)
            write_config_records(path.parent, result.digest)
    return result


def _check_repeats(path: Path, plan: Plan, numbers: set[int]) -> None:
    """ArenaError unless every repeated line equals the first record of its game, timing aside."""
    wanted: dict[int, dict[str, Any] | None] = {}
    for number, line in iter_lines(path):
        if number in numbers:
            wanted.setdefault(plan.check(_loads(line), str(path), False, number), None)
    for _, line in iter_lines(path):
        rec = _loads(line)
        index = plan.index(*record_key(rec))
        if index not in wanted:
            continue
        if wanted[index] is None:
            wanted[index] = _timeless(rec)
        elif wanted[index] != _timeless(rec):
            raise _repeated(path, rec.get("game_id"))


def _drop_lines(path: Path, numbers: set[int]) -> Digest:
    """Rewrite a plain records file without the given lines; the checksum of what is left."""
    digest = Digest()

    def write(fh: BinaryIO) -> None:
        for number, line in iter_lines(path):
            if number not in numbers:
                digest.add(line)
                fh.write(line + b"\n")

    _write_atomically(path, write)
    return digest


class RunFolder:
    """The files of one run, written by one process: :meth:`open` (takes the folder's lock,
    creates or checks the folder, reads back the games done), :meth:`append`, :meth:`close`
    (stores the checksum of the records, gives the lock up)."""

    def __init__(self, path: str | os.PathLike, config: RunConfig,
                 sync_interval: float = SYNC_INTERVAL) -> None:
        self.path = Path(path)
        self.sync_interval = sync_interval
        self._synced = 0.0
        self.config = config
        self.games_path = self.path / GAMES_FILE
        self.config_path = self.path / CONFIG_FILE
        self._fh: BinaryIO | None = None
        self._sums = SumsWriter(self.path)
        self._plan = Plan(config)
        self._lock = FolderLock(self.path, shared=True, create=True)
        self._digest: Digest | None = None      # of the file, while it is known
        self._wrote_config = False
        self.appended = 0

    def open(self, listen: Callable[[list[dict[str, Any]]], object] | None = None) -> Scan:
        """Take the lock, create or check the folder; return what is done (:class:`Scan`).
        ``listen`` gets the finished records (without actions) in chunks."""
        if self.path.exists() and not self.path.is_dir():
            raise ArenaError(f"{self.path} exists and is not a folder")
        self._lock.acquire()
        try:
            return self._open(listen)
        except BaseException:
            self.close(store=False, cleanup=True)
            raise

    def _open(self, listen: Callable[[list[dict[str, Any]]], object] | None) -> Scan:
        if not check_config(self.path, self.config):
            if self.games_path.exists() and self.games_path.stat().st_size > 0:
                raise ArenaError(f"{self.path} holds {GAMES_FILE} but no {CONFIG_FILE}: not a "
                                 "run folder this command can resume; use another output folder")
            self._write_config()
            self._wrote_config = True
        if (self.path / COMPRESSED_GAMES_FILE).exists() and not self.games_path.exists():
            raise ArenaError(f"{self.path} holds a finished run kept compressed ({COMPRESSED_GAMES_FILE}); "
                             "read it with load_records, or use another output folder")
        if not self.games_path.exists():
            scan = Scan(done=bytearray(self.config.total_games))
        else:
            scan = scan_folder(self.games_path, self._plan, listen, repair=True)
        self._digest = scan.digest
        stamp_plan(self.path)       # a folder of an older glory_ai, found to be this config's
        if scan.games:
            # a resume goes on with the bots as its games were played
            self.config = played_config(self.config, self.path)
        record_code(self.path, self.config, scan.games)
        return scan

    def _write_config(self) -> None:
        c = self.config
        data: dict[str, Any] = {
            "format": CONFIG_FORMAT, "format_version": CONFIG_VERSION, "version": __version__,
            "description": c.describe(), "games_per_deal": c.games_per_deal,
            "total_games": c.total_games, "config": c.to_dict(),
        }
        data[PLAN_KEY] = plan_sha256(data)
        text = (json.dumps(data, indent=2) + "\n").encode()
        _write_atomically(self.config_path, lambda fh: fh.write(text))

    def append(self, records: Iterable[Mapping[str, Any]], text: str | None = None) -> None:
        """Append records (one line each; ``text``: their lines already encoded) and flush
        them to the operating system, so a killed process loses no finished game; fsync
        when ``sync_interval`` seconds have passed since the last one (each batch when 0),
        and always at :meth:`close`. A failed write (a full disk) is an ArenaError; the
        complete lines already written stay."""
        records = list(records)
        if text is None:
            text = "".join(encode_record(r) + "\n" for r in records)
        data = text.encode()
        lines = data.split(b"\n")[:-1]
        # each line's SHA-256: the records' checksum and each game's entry in games.sums
        digest = self._digest if self._digest is not None else Digest()
        shas = [digest.add(line) for line in lines]
        if len(records) != len(lines):          # lines handed without their records
            records = [_loads(line) for line in lines]
        entries = [(index, sha) for rec, sha in zip(records, shas, strict=True)
                   if (index := self._index(rec)) is not None]
        try:
            if self._fh is None:
                self._fh = open(self.games_path, "ab")
                self._synced = time.monotonic()
            self._fh.write(data)
            self._fh.flush()
            sync = time.monotonic() - self._synced >= self.sync_interval
            if sync:
                os.fsync(self._fh.fileno())
                self._synced = time.monotonic()
        except OSError as error:
            self._digest = None                  # what reached the file is not known
            raise os_error(self.games_path, error) from None
        try:
            self._sums.write(entries)
            if sync:
                self._sums.sync()
        except OSError as error:
            raise os_error(self._sums.path, error) from None
        self.appended += len(lines)

    def _index(self, rec: Any) -> int | None:
        """A record's place in the plan (its entry in games.sums), None when it has none."""
        try:
            deal, pairing, rotation = record_key(rec)
        except (KeyError, TypeError):
            return None
        plan = self._plan
        if not (type(deal) is int and type(pairing) is int and type(rotation) is int
                and 0 <= deal < self.config.deals and 0 <= pairing < plan.pairings
                and 0 <= rotation < plan.rotations):
            return None
        return plan.index(deal, pairing, rotation)

    def close(self, store: bool = True, cleanup: bool = False) -> None:
        """Flush and sync the records, store their checksum in ``config.json`` (``store``),
        give the lock up. ``cleanup``: when no game was written, remove what :meth:`open`
        created (a backend that did not start leaves the folder as it was). A failure to
        write is an ArenaError (the lock is given up all the same)."""
        try:
            fh, self._fh = self._fh, None
            if fh is not None:
                try:
                    fh.flush()
                    os.fsync(fh.fileno())
                except OSError as error:
                    self._digest = None
                    raise os_error(self.games_path, error) from None
                finally:
                    with _quiet():
                        fh.close()
                try:
                    self._sums.sync()
                except OSError as error:
                    raise os_error(self._sums.path, error) from None
                finally:
                    with _quiet():
                        self._sums.close()
            if store and self._lock.held and self._digest is not None and self.games_path.exists() \
                    and stored_digest(self.games_path) != self._digest.to_dict():
                write_config_records(self.path, self._digest)
        finally:
            cleanup = cleanup and not self.appended and self._wrote_config and self._lock.held
            if cleanup:
                with _quiet():
                    if not self.games_path.exists() or self.games_path.stat().st_size == 0:
                        self.games_path.unlink(missing_ok=True)
                        self.config_path.unlink()
                        (self.path / CODE_FILE).unlink(missing_ok=True)
                        (self.path / SUMS_FILE).unlink(missing_ok=True)
            self._lock.release(cleanup=cleanup)
