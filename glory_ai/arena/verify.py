"""Checking a run folder against its plan, its checksums and the games themselves, and
repairing it without losing a good game (``glory-ai verify DIR [--repair]``, docs/arena.md).

:func:`verify_run` reads the records in a stream and reports, one line each naming the
file and the line: a folder another process is writing; a ``config.json`` or ``code.json``
changed since the games were played (glory_ai.arena.integrity); a line that is not JSON; a
record that fails the schema (glory_ai.arena.schema: a field missing, renamed, added, of the
wrong type or range, inconsistent with the others or with the plan); a record that differs
from the one written (its entry in ``games.sums``); a game recorded twice; records that
differ from the checksum in ``config.json``; a last line cut short; a damaged archive (the
line from which it cannot be read); and every game (or a sample) that does not replay to its
recorded result (:func:`~glory_ai.arena.play.replay`).

With ``repair`` (holding the folder's lock), nothing is deleted and no checksum is stamped
over a damaged record:

1. a changed plan is refused (the message names the file to put back, or how to start over);
   a config.json that can no longer be read is written back from the plan code.json recorded;
2. every line at fault goes to ``quarantine.jsonl`` (with its reason, file, line and field),
   synced, before anything else changes; a damaged archive keeps every complete record of its
   readable part, and the archive itself goes to the quarantine file;
3. the records left are written to a new file, which is read back and checked (every
   record against the schema and the plan, its checksum) before it replaces the original;
   the columns the analysis derived from the old records (``games.parquet``, a cache, no
   game) are removed with it;
4. the new checksum covers only records that ``games.sums`` confirms, or that lie beyond what
   the old checksum covered and replay; when the checksum differs and no record can be named,
   repair refuses instead;
5. the games set aside are played again (``replay=True``), so the folder holds every game it
   held, each once.
"""
from __future__ import annotations

import itertools
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import orjson

from .._words import plural
from .files import CODE_FILE, COLUMNS_FILE, COMPRESSED_GAMES_FILE, CONFIG_FILE, GAMES_FILE
from .integrity import check_plan, recorded_plan, restore_config
from .lock import FolderLock, describe_writer, writer
from .plan import ArenaError, RunConfig
from .play import replay
from .quarantine import Quarantine
from .runner import cores
from .schema import RecordError, RecordSchema
from .storage import (
    STREAM_BLOCK,
    Digest,
    Salvage,
    _blocks,
    _write_atomically,
    games_file,
    load_config,
    os_error,
    stored_digest,
    write_config_records,
)
from .sums import Sums, line_sum, rewrite

__all__ = ["RunCheck", "verify_run"]

#: games replayed per task sent to a worker
REPLAY_BATCH = 200

#: a game id in a line too damaged to parse (to know which game a repair sets aside)
_GAME_ID = re.compile(rb'"game_id":"(\d{1,9})-(\d{1,7})-(\d)"')


@dataclass
class Fault:
    """A line at fault: its number, the one-line reason, the field, the game it held (its
    plan index, when it can be told) and its bytes."""

    line: int
    reason: str
    data: bytes
    field: str | None = None
    game_id: str | None = None
    index: int | None = None


@dataclass
class RunCheck:
    """What :func:`verify_run` found in one run folder (and did, with ``repair``)."""

    folder: Path
    config: RunConfig | None
    games: int = 0                          # distinct games of the plan recorded, sound
    replayed: int = 0
    problems: list[str] = field(default_factory=list)
    drop: set[int] = field(default_factory=set)    # line numbers at fault
    faults: list[Fault] = field(default_factory=list)
    truncated: bool = False
    repaired: bool = False
    digest: Digest = field(default_factory=Digest)
    #: why repair would not (or did not) change the folder, one line; None: it may
    refused: str | None = None
    #: a damaged archive: where it stopped being readable
    damage: str | None = None
    set_aside: int = 0                      # lines moved to the quarantine file by a repair
    written: int | None = None              # records the stored checksum counted
    source: str = GAMES_FILE                # the records file read (games.jsonl or .gz)
    sums_fix: dict[int, bytes] = field(default_factory=dict)  # games.sums entries to write again
    played: int = 0                         # games the repair played again
    restored: list[str] = field(default_factory=list)   # files a repair wrote back
    #: what the repair did, one line each
    actions: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def complete(self) -> bool:
        return self.config is not None and self.games == self.config.total_games


def _replay_lines(lines: list[tuple[int, bytes]]) -> list[tuple[int, str]]:
    """(line number, what is wrong) for each record of the batch that does not replay."""
    failed = []
    for number, line in lines:
        try:
            replay(orjson.loads(line))
        except (ArenaError, ValueError, TypeError, KeyError) as exc:
            failed.append((number, " ".join(str(exc).split())))
    return failed


def _replay_all(lines: list[tuple[int, bytes]], n_jobs: int) -> list[tuple[int, str]]:
    if not lines:
        return []
    batches = [lines[i:i + REPLAY_BATCH] for i in range(0, len(lines), REPLAY_BATCH)]
    if n_jobs == 1 or len(batches) <= 1:
        return [f for b in batches for f in _replay_lines(b)]
    from joblib import Parallel, delayed

    from ._worker import watch_parent

    workers = min(cores() if n_jobs == -1 else n_jobs, cores(), len(batches))
    par = Parallel(n_jobs=workers, backend="loky", initializer=watch_parent, initargs=(os.getpid(),))
    return list(itertools.chain.from_iterable(par(delayed(_replay_lines)(b) for b in batches)))


def verify_run(folder: str | Path, *, sample: int | None = None, n_jobs: int = 1,
               repair: bool = False, replay_games: bool = True,
               progress: Callable[[str], object] | None = None) -> RunCheck:
    """Check a run folder (see the module's doc); ``sample``: replay about that many games
    spread over the run instead of all (0: none, the other checks only); ``n_jobs``: workers
    replaying; ``repair``: set the lines at fault aside and mend the folder (under its lock);
    ``replay_games``: then play the games set aside again (an experiment's repair leaves that
    to ``glory-ai run``, which also rewrites the files derived from the records)."""
    folder = Path(folder)
    lock = None
    if repair:
        lock = FolderLock(folder).acquire()     # FolderLocked names the process writing
    try:
        check = _verify(folder, sample, n_jobs, repair, progress)
        if repair and check.refused is None:
            _repair(check, sample, n_jobs)
            if replay_games and check.config is not None:
                _play_again(check, n_jobs)
    finally:
        if lock is not None:
            lock.release()
    return check


def _verify(folder: Path, sample: int | None, n_jobs: int, repair: bool,
            progress: Callable[[str], object] | None) -> RunCheck:
    busy = None if repair else writer(folder)
    try:
        config = load_config(folder)
    except ArenaError as exc:
        return _unreadable_config(folder, exc, repair)
    check = RunCheck(folder, config)
    if busy is not None:
        check.problems.append(f"{folder} is being written by {describe_writer(busy)}: its records "
                              "may change while they are read; verify it once that has finished")
    found = check_plan(folder)
    if found.problem:
        check.problems.append(found.problem)
        check.refused = found.problem
        if found.plan:
            return check            # the records cannot be judged against a changed plan
    try:
        path = games_file(folder)
    except ArenaError:
        check.problems.append(f"{folder}: no {GAMES_FILE} (no game recorded)")
        check.refused = check.problems[-1]
        return check
    check.source = path.name
    _check_lines(check, path, sample, n_jobs, progress, found.confirmed)
    return check


def _unreadable_config(folder: Path, exc: ArenaError, repair: bool) -> RunCheck:
    """A config.json that cannot be read: written back from code.json's record of the plan
    when it has one (with ``repair``), else refused."""
    check = RunCheck(folder, None)
    path = folder / CONFIG_FILE
    plan = recorded_plan(folder) if path.exists() else None
    if plan is None:
        check.problems.append(f"{exc}; {CODE_FILE} holds no copy of the plan to write it back "
                              "from: put it back as it was, or start over in another folder")
        check.refused = check.problems[-1]
        return check
    check.problems.append(f"{exc}; {CODE_FILE} holds the plan it had (its checksum agrees): "
                          f"`glory-ai verify {folder} --repair` writes it back")
    if not repair:
        check.refused = check.problems[-1]
        return check
    quarantine = Quarantine(folder)
    quarantine.add(path, 1, f"{exc}: written back from {CODE_FILE}", path.read_bytes())
    quarantine.write()
    restore_config(folder, None)       # the records' checksum is stored again by the repair
    check.restored.append(CONFIG_FILE)
    check.actions.append(f"{path}: written back from the plan {CODE_FILE} recorded (the damaged "
                         f"file is in {quarantine.path.name})")
    again = _verify(folder, None, 1, True, None)
    again.problems[:0] = check.problems
    again.restored, again.actions = check.restored, check.actions
    return again


def _lines(path: Path, salvage: Salvage) -> Iterator[tuple[int, bytes]]:
    for base, block in _blocks(path, size=STREAM_BLOCK, salvage=salvage):
        for number, line in enumerate(block, start=base + 1):
            if line.strip():
                yield number, line


def _game_of(line: bytes, schema: RecordSchema) -> tuple[str | None, int | None]:
    """The game id and plan index a (damaged) line names, when it names one of the plan."""
    match = _GAME_ID.search(line)
    if match is None:
        return None, None
    deal, pairing, rotation = (int(x) for x in match.groups())
    assert schema.config is not None
    if deal < schema.config.deals and pairing < schema.pairings and rotation < schema.rotations:
        return f"{deal}-{pairing}-{rotation}", schema.index(deal, pairing, rotation)
    return None, None


def _check_lines(check: RunCheck, path: Path, sample: int | None, n_jobs: int,
                 progress: Callable[[str], object] | None, strict: bool) -> None:
    config = check.config
    assert config is not None
    schema = RecordSchema(config, strict=strict)
    total = config.total_games
    step = 0 if sample == 0 else max(1, total // sample) if sample else 1
    seen = bytearray(total)                 # a byte per planned game: memory is O(games / 8K)
    stored = stored_digest(path)
    prefix = Digest()
    limit = stored.get("lines") if stored else None
    covered = limit if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0 else 0
    check.written = covered if stored is not None else None
    sums = Sums(check.folder)
    unconfirmed = unconfirmed_covered = 0   # lines games.sums does not confirm (the checksum covers)
    repeats: dict[int, list[int]] = {}      # plan index -> line numbers of its later copies
    # the games to replay go in chunks as they are read, so no more than a chunk is held
    chunk = REPLAY_BATCH * 4 * (cores() if n_jobs == -1 else max(1, min(n_jobs, cores())))
    to_replay: list[tuple[int, bytes]] = []
    suspects: dict[int, Fault] = {}         # line -> the record differs from games.sums

    def fault(number: int, reason: str, line: bytes, field: str | None = None,
              game_id: str | None = None, index: int | None = None) -> None:
        if game_id is None or index is None:
            game_id, index = _game_of(line, schema)
        check.faults.append(Fault(number, reason, line, field, game_id, index))
        check.problems.append(reason)
        check.drop.add(number)

    def replay_some() -> None:
        failed = _replay_all(to_replay, n_jobs)
        lines = dict(to_replay)
        for number, message in failed:
            suspects.pop(number, None)          # the replay says what changed
            fault(number, f"{path}: line {number}: {message}", lines[number], "result")
        check.replayed += len(to_replay)
        to_replay.clear()

    if progress is not None:
        what = "every game" if step == 1 else f"about {total // step} games" if step else "no game"
        progress(f"checking {check.folder}: {plural(total, 'game')} planned, replaying {what}")

    salvage = Salvage()
    try:
        for number, line in _lines(path, salvage):
            sha = check.digest.add(line)
            if prefix.lines < covered:
                prefix.add(line)
            try:
                rec = orjson.loads(line)
            except ValueError:
                fault(number, f"{path}: line {number} is not valid JSON", line)
                continue
            try:
                index = schema.check(rec, str(path), True, number)
            except RecordError as error:
                fault(number, str(error), line, error.field or None)
                continue
            assert index is not None
            entry = sums.get(index)
            suspect = entry is not None and entry != line_sum(sha)
            if entry is None:
                unconfirmed += 1
                unconfirmed_covered += number <= covered
            elif suspect:
                suspects[number] = Fault(number, f"{path}: line {number} (game {rec['game_id']}): the "
                                         f"record differs from the one written (its checksum in "
                                         f"{sums.path.name}): a changed record", line, "record",
                                         rec["game_id"], index)
            if seen[index]:
                repeats.setdefault(index, []).append(number)
                continue
            seen[index] = 1
            check.games += 1
            if suspect or (step and index % step == 0):
                to_replay.append((number, line))
                if len(to_replay) >= chunk:
                    replay_some()
        replay_some()
    except ArenaError as exc:               # an unreadable file, a line longer than any record
        check.problems.append(str(exc))
        check.refused = str(exc)
        return
    finally:
        sums.close()
    _conclude(check, path, _Reading(salvage, stored, covered, prefix, step, suspects, repeats,
                                    unconfirmed, unconfirmed_covered), sums)


@dataclass
class _Reading:
    """What :func:`_check_lines` gathered in its one pass over the records, for
    :func:`_conclude`."""

    salvage: Salvage
    stored: dict[str, object] | None
    covered: int                            # the lines the stored checksum covers
    prefix: Digest                          # of those lines
    step: int                               # every step-th game replayed (0: none)
    suspects: dict[int, Fault]              # line -> the record differs from games.sums
    repeats: dict[int, list[int]]           # plan index -> line numbers of its later copies
    unconfirmed: int                        # lines games.sums does not confirm
    unconfirmed_covered: int                # of them, those the checksum covers


def _conclude(check: RunCheck, path: Path, read: _Reading, sums: Sums) -> None:
    """After the pass over the records: a damaged archive, a cut last line, the records that
    differ from games.sums, the repeats, and the records against the checksum config.json
    stored (naming what changed, or refusing a repair that could name no record)."""
    salvage, stored, covered, prefix, step = (read.salvage, read.stored, read.covered, read.prefix,
                                              read.step)
    suspects, repeats = read.suspects, read.repeats
    unconfirmed, unconfirmed_covered = read.unconfirmed, read.unconfirmed_covered
    limit = stored.get("lines") if stored else None
    if salvage.damage is not None:
        damage = salvage.damage
        check.damage = (f"{path}: not a readable gzip file: damaged at byte {damage.offset} of "
                        f"{damage.size} ({damage.reason}); lines 1 to {salvage.lines} read whole")
        check.problems.append(f"{check.damage}, line {salvage.lines + 1} on cannot be read; "
                              f"`glory-ai verify {check.folder} --repair` keeps them, sets the rest "
                              "aside and replays the games it held")
    elif salvage.tail:
        check.truncated = True
        check.problems.append(f"{path}: line {salvage.lines + 1}, the last, is cut short "
                              f"({len(salvage.tail)} bytes, a run killed while writing)")
    digest_ok = stored is None or (prefix.lines == covered and prefix.matches(stored)
                                   and (path.suffix != ".gz" or check.digest.lines == covered))
    repeated = {n for lines in repeats.values() for n in lines}
    # a later copy of a game is judged as a copy; a line the checksum does not cover (appended
    # after the run last stopped) that differs from games.sums is a changed record
    mismatched = [f for f in suspects.values() if f.line <= covered]
    for f in suspects.values():
        if f.line > covered and f.line not in repeated:
            check.faults.append(f)
            check.problems.append(f.reason)
            check.drop.add(f.line)
    if mismatched and digest_ok:
        # the records are as written (their checksum holds): games.sums is what changed
        check.problems.append(f"{sums.path}: the entries of {plural(len(mismatched), 'game')} differ from "
                              "their records, which match the checksum in config.json: "
                              f"{sums.path.name} was changed")
        check.sums_fix = {f.index: f.data for f in mismatched if f.index is not None}
    else:
        for f in mismatched:
            check.faults.append(f)
            check.problems.append(f.reason)
            check.drop.add(f.line)
    if repeats:
        _judge_repeats(check, path, repeats)
    if sums.damaged:
        check.problems.append(f"{sums.path}: not a games.sums file (its header is damaged)")
    if stored is not None and not digest_ok:
        found = bool(check.faults) or salvage.damage is not None or check.truncated
        if not found and sums.present and not unconfirmed and not mismatched:
            # every record is one written (games.sums says so for each): records were removed,
            # or the checksum in config.json is what changed
            if check.digest.lines < covered:
                check.problems.append(f"{path}: {plural(covered - check.digest.lines, 'record')} "
                                      f"{'was' if covered - check.digest.lines == 1 else 'were'} removed "
                                      f"({plural(check.digest.lines, 'line')} now, {covered} when written; "
                                      f"every record left matches its entry in {sums.path.name})")
            else:
                check.problems.append(f"{check.folder / CONFIG_FILE}: its checksum of the records "
                                      f"differs from them, and every record matches its entry in "
                                      f"{sums.path.name}: the checksum in {CONFIG_FILE} was changed")
            return
        check.problems.append(f"{path}: the records differ from the checksum stored in config.json "
                              f"when they were written ({check.digest.lines} lines now, {limit} then)"
                              + ("" if found else ", and no record can be named: every record "
                                 "passes its checks" + (" and replays" if step == 1 else "")
                                 + ("" if sums.present else f" (no {sums.path.name}: a folder of an "
                                    "older glory_ai)")))
        if not found:
            check.refused = (f"{path}: the records differ from their checksum but no record can be "
                             "named, so repair stamps no checksum over them: put the file back from "
                             "a copy, or start over in another folder (the run's command with --fresh "
                             "moves this one aside)")
        elif unconfirmed_covered and step != 1:
            check.refused = (f"{path}: {plural(unconfirmed_covered, 'record')} that no per-game checksum "
                             "confirms may hide a change: repair them with every game replayed "
                             "(without --sample)")


def _judge_repeats(check: RunCheck, path: Path, repeats: dict[int, list[int]]) -> None:
    """The later copies of a game: set aside when they are the same game as the copy kept
    (timing aside); a copy that differs otherwise is a changed record, set aside too (the
    copy kept is the one games.sums confirms, or the first)."""
    assert check.config is not None
    schema = RecordSchema(check.config)
    wanted = set(repeats)
    first: dict[int, dict[str, object]] = {}
    numbers = {n for lines in repeats.values() for n in lines}
    salvage = Salvage()
    for number, line in _lines(path, salvage):
        if number in check.drop:
            continue
        try:
            rec = orjson.loads(line)
        except ValueError:
            continue
        if type(rec) is not dict:
            continue
        deal, pairing, rotation = rec.get("deal"), rec.get("pairing"), rec.get("rotation")
        if type(deal) is not int or type(pairing) is not int or type(rotation) is not int:
            continue
        index = schema.index(deal, pairing, rotation)
        if index not in wanted:
            continue
        timeless = {k: v for k, v in rec.items() if k not in ("seconds", "seconds_per_decision")}
        if number not in numbers:
            first[index] = timeless
            continue
        same = first.get(index) == timeless
        what = ("game {} is recorded twice: a second copy, the same but for its timing" if same else
                "game {} is recorded twice: a second copy that differs from the first beyond its "
                "timing, a changed record")
        reason = f"{path}: line {number}: " + what.format(rec.get("game_id"))
        check.faults.append(Fault(number, reason, line, None if same else "record",
                                  str(rec.get("game_id")), index))
        check.problems.append(reason)
        check.drop.add(number)


def _repair(check: RunCheck, sample: int | None, n_jobs: int) -> None:
    """Set the faults aside, rewrite the records without them through a checked new file,
    store the checksum of what is left (see the module's doc)."""
    if check.config is None:
        return
    folder = check.folder
    path = games_file(folder)
    plain = folder / GAMES_FILE
    sums_fix = check.sums_fix
    nothing_wrong = (not check.drop and not check.truncated and check.damage is None
                     and not sums_fix and _digest_ok(check, path))
    if nothing_wrong:
        return
    quarantine = Quarantine(folder)
    for f in sorted(check.faults, key=lambda f: f.line):
        quarantine.add(path, f.line, f.reason, f.data, game_id=f.game_id, field=f.field)
    salvage = Salvage()
    kept = Digest()
    for _ in _lines(path, salvage):
        pass
    if salvage.tail:
        game_id, index = _game_of(salvage.tail, RecordSchema(check.config))
        quarantine.add(path, salvage.lines + 1, f"{path}: line {salvage.lines + 1} is cut short "
                       f"({len(salvage.tail)} bytes)", salvage.tail, game_id=game_id)
        if index is not None:
            check.faults.append(Fault(salvage.lines + 1, "cut short", salvage.tail, None, game_id, index))
    if check.damage is not None:
        quarantine.add(path, salvage.lines + 1, f"{check.damage}: the rest of the archive cannot be "
                       "read (the whole damaged file is kept here)", b"", archive=path.read_bytes())
    quarantine.write()                      # synced before anything else changes
    check.set_aside = len(quarantine.entries)

    partial = folder / (GAMES_FILE + ".repaired")

    def write(fh: BinaryIO) -> None:
        for number, line in _lines(path, Salvage()):
            if number not in check.drop:
                kept.add(line)
                fh.write(line + b"\n")

    _write_atomically(partial, write)
    _check_repaired(check, partial, kept)
    os.replace(partial, plain)              # the original is kept until here
    if path.suffix == ".gz":
        try:
            path.unlink()                   # its records are in games.jsonl and quarantine.jsonl
        except OSError as error:
            raise os_error(path, error, "cannot remove") from None
    _drop_columns(check)
    if sums_fix:
        rewrite(folder, {index: Digest().add(line) for index, line in sums_fix.items()})
        check.actions.append(f"{folder / 'games.sums'}: {len(sums_fix)} entr(ies) written again from "
                             "the records, which match their checksum")
    write_config_records(folder, kept)
    check.digest = kept
    check.repaired = True
    check.actions.append(f"{folder / CONFIG_FILE}: the checksum of the {kept.lines} records kept "
                         "stored")
    if check.set_aside:
        check.actions.append(f"{path}: {plural(check.set_aside, 'line')} set aside in {quarantine.path} "
                             f"(each with its reason, file and line); {plural(kept.lines, 'record')} kept")


def _drop_columns(check: RunCheck) -> None:
    """Remove the columns the analysis derived from the records before the repair (a cache,
    no game: glory_ai.analysis.columns makes it again from the records when next read)."""
    columns = check.folder / COLUMNS_FILE
    try:
        columns.unlink()
    except FileNotFoundError:
        return
    except OSError as error:
        raise os_error(columns, error, "cannot remove") from None
    check.actions.append(f"{columns}: removed, as the records changed (the analysis makes it again "
                         "from them when next read)")


def _digest_ok(check: RunCheck, path: Path) -> bool:
    stored = stored_digest(path)
    return stored is None or check.digest.matches(stored)


def _check_repaired(check: RunCheck, partial: Path, kept: Digest) -> None:
    """The new records file, read back before it replaces the original: every line a record
    that passes the schema and the plan, each game once, its checksum the one computed."""
    assert check.config is not None
    schema = RecordSchema(check.config)
    seen: set[int] = set()
    again = Digest()
    for number, line in _lines(partial, Salvage()):
        again.add(line)
        try:
            index = schema.check(orjson.loads(line), str(partial), True, number)
        except (ValueError, RecordError) as exc:
            partial.unlink(missing_ok=True)
            raise ArenaError(f"the repaired records do not verify ({exc}); {check.folder} is left "
                             "as it was (the lines set aside are in quarantine.jsonl)") from None
        if index in seen:
            partial.unlink(missing_ok=True)
            raise ArenaError(f"the repaired records hold a game twice (line {number}); "
                             f"{check.folder} is left as it was")
        seen.add(index)  # type: ignore[arg-type]
    if again.to_dict() != kept.to_dict():
        partial.unlink(missing_ok=True)
        raise ArenaError(f"{partial}: the repaired records read back differ from those written; "
                         f"{check.folder} is left as it was")


def _play_again(check: RunCheck, n_jobs: int) -> None:
    """Play the games the repair set aside again (and every game a damaged archive or a
    finished run lost), into the folder; then compress it again if it was compressed."""
    config = check.config
    assert config is not None
    if not check.repaired:
        return
    lost = {f.index for f in check.faults if f.index is not None}
    archive = _was_compressed(check)
    if archive or _was_complete(check):
        missing = _missing(check.folder, config)
        if config.sprt is not None and check.written is not None:
            # a run stopped by its SPRT held ``written`` games, the first of its plan
            room = max(0, check.written - (config.total_games - len(missing)))
            missing = set(sorted(missing)[:room])
        lost |= missing
    from .runner import run
    from .storage import compress_run

    if lost:
        result = run(config, check.folder, n_jobs=n_jobs, only=sorted(lost))
        check.played = result.played
        if result.played:
            check.actions.append(f"{check.folder}: {plural(result.played, 'game')} set aside played again "
                                 f"({plural(result.games, 'game')} in the folder)")
    if archive:
        compress_run(check.folder)
        check.actions.append(f"{check.folder / COMPRESSED_GAMES_FILE}: written again from the "
                             "records")


def _was_compressed(check: RunCheck) -> bool:
    return check.source == COMPRESSED_GAMES_FILE


def _was_complete(check: RunCheck) -> bool:
    """Did the run hold every game of its plan before the repair (so that every game it now
    lacks was set aside): its checksum counted as many records, or more lines were there?"""
    assert check.config is not None
    total = check.config.total_games
    return ((check.written is not None and check.written >= total)
            or check.digest.lines + len(check.drop) >= total or _was_compressed(check))


def _missing(folder: Path, config: RunConfig) -> set[int]:
    """The plan indices the folder's records lack."""
    schema = RecordSchema(config)
    present = bytearray(config.total_games)
    for number, line in _lines(folder / GAMES_FILE, Salvage()):
        try:
            index = schema.check(orjson.loads(line), "", False, number)
        except (ValueError, RecordError):
            continue
        if index is not None:
            present[index] = 1
    return {i for i in range(config.total_games) if not present[i]}
