"""Checking a run folder against its plan, its checksum and the games themselves, and
repairing what can be repaired (``glory-ai verify DIR``, docs/arena.md).

:func:`verify_run` reads the records in a stream and reports, one line each: a line that is
not a record, a game outside the plan or not matching it (seed, seats), a game recorded
twice, records that differ from the checksum stored in ``config.json``, a last line cut
short, and every game (or a sample) that does not replay to its recorded result
(:func:`~glory_ai.arena.play.replay`: an edited winner, score or action). With ``repair``
(holding the folder's lock) the lines at fault are dropped and the checksum rewritten, so
that running the same command again replays the games dropped; a compressed run is then
left as a plain ``games.jsonl`` to resume.
"""
from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import orjson

from .lock import FolderLock
from .plan import ArenaError, RunConfig
from .play import replay
from .runner import cores
from .storage import (
    GAMES_FILE,
    STREAM_BLOCK,
    Digest,
    Plan,
    _blocks,
    _write_atomically,
    games_file,
    load_config,
    os_error,
    stored_digest,
    write_config_records,
)

__all__ = ["RunCheck", "verify_run"]

#: games replayed per task sent to a worker
REPLAY_BATCH = 200


@dataclass
class RunCheck:
    """What :func:`verify_run` found in one run folder."""

    folder: Path
    config: RunConfig
    games: int = 0                          # distinct games of the plan recorded
    replayed: int = 0
    problems: list[str] = field(default_factory=list)
    drop: set[int] = field(default_factory=set)    # line numbers at fault
    truncated: bool = False
    repaired: bool = False
    digest: Digest = field(default_factory=Digest)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def complete(self) -> bool:
        return self.games == self.config.total_games


def _replay_lines(lines: list[tuple[int, bytes]]) -> list[tuple[int, str]]:
    """(line number, what is wrong) for each record of the batch that does not replay."""
    failed = []
    for number, line in lines:
        try:
            replay(orjson.loads(line))
        except (ArenaError, ValueError, TypeError, KeyError) as exc:
            failed.append((number, " ".join(str(exc).split())))
    return failed


def verify_run(folder: str | Path, *, sample: int | None = None, n_jobs: int = 1,
               repair: bool = False, progress: Callable[[str], object] | None = None) -> RunCheck:
    """Check a run folder (see the module's doc); ``sample``: replay about that many games
    spread over the run instead of all (0: none, the other checks only); ``n_jobs``: workers
    replaying; ``repair``: drop the lines at fault (under the folder's lock)."""
    folder = Path(folder)
    config = load_config(folder)
    check = RunCheck(folder, config)
    try:
        path = games_file(folder)
    except ArenaError:
        check.problems.append(f"{folder}: no {GAMES_FILE} (no game recorded)")
        return check
    lock = FolderLock(folder).acquire() if repair else None
    try:
        _check_lines(check, path, sample, n_jobs, progress)
        if repair and (check.drop or check.truncated or not _digest_ok(check, path)):
            _repair(check, path)
    finally:
        if lock is not None:
            lock.release()
    return check


def _digest_ok(check: RunCheck, path: Path) -> bool:
    stored = stored_digest(path)
    return stored is None or check.digest.matches(stored)


def _check_lines(check: RunCheck, path: Path, sample: int | None, n_jobs: int,
                 progress: Callable[[str], object] | None) -> None:
    plan = Plan(check.config)
    total = check.config.total_games
    step = 0 if sample == 0 else max(1, total // sample) if sample else 1
    seen = bytearray(total)                 # a byte per planned game: memory is O(games / 8K)
    stored = stored_digest(path)
    prefix = Digest()
    limit = stored.get("lines") if stored else None
    # the games to replay go in chunks as they are read, so no more than a chunk is held
    chunk = REPLAY_BATCH * 4 * (cores() if n_jobs == -1 else max(1, min(n_jobs, cores())))
    to_replay: list[tuple[int, bytes]] = []

    def replay_some() -> None:
        for number, message in _replay_all(to_replay, n_jobs):
            check.problems.append(f"{path}: line {number}: {message}")
            check.drop.add(number)
        check.replayed += len(to_replay)
        to_replay.clear()

    if progress is not None:
        what = "every game" if step == 1 else f"about {total // step} games" if step else "no game"
        progress(f"checking {check.folder}: {total} games planned, replaying {what}")

    def lines() -> Iterator[tuple[int, bytes]]:
        try:
            for base, block in _blocks(path, size=STREAM_BLOCK):
                for number, line in enumerate(block, start=base + 1):
                    if line.strip():
                        yield number, line
        except ArenaError as exc:
            check.problems.append(str(exc))

    for number, line in lines():
        check.digest.add(line)
        if isinstance(limit, int) and prefix.lines < limit:
            prefix.add(line)
        where = f"{path}: line {number}"
        try:
            rec = orjson.loads(line)
        except ValueError:
            check.problems.append(f"{where} is not valid JSON")
            check.drop.add(number)
            continue
        if type(rec) is not dict:
            check.problems.append(f"{where} is not a game record")
            check.drop.add(number)
            continue
        try:
            index = plan.check(rec, where)
        except ArenaError as exc:
            check.problems.append(str(exc))
            check.drop.add(number)
            continue
        if seen[index]:
            check.problems.append(f"{where}: game {rec['game_id']} is recorded twice (an earlier "
                                  "line holds it too)")
            check.drop.add(number)
            continue
        seen[index] = 1
        check.games += 1
        if step and index % step == 0:
            to_replay.append((number, line))
            if len(to_replay) >= chunk:
                replay_some()
    replay_some()
    if stored is not None:
        if not (isinstance(limit, int) and prefix.lines == limit and prefix.matches(stored)) \
                or (path.suffix == ".gz" and check.digest.lines != limit):
            check.problems.append(f"{path}: the records differ from the checksum stored in "
                                  f"config.json when they were written ({check.digest.lines} lines "
                                  f"now, {limit} then): a record was changed, added or removed")
    last = _last_line_cut(path)
    if last:
        check.truncated = True
        check.problems.append(f"{path}: the last line is cut short ({last} bytes, a run killed "
                              "while writing)")


def _last_line_cut(path: Path) -> int:
    """Bytes after the last newline of a plain file (0 for a .gz: it is written whole)."""
    if path.suffix == ".gz":
        return 0
    with open(path, "rb") as fh:
        size = fh.seek(0, 2)
        back = min(size, 1 << 20)
        fh.seek(size - back)
        tail = fh.read()
    return len(tail) - (tail.rfind(b"\n") + 1) if size else 0


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


def _repair(check: RunCheck, path: Path) -> None:
    """Rewrite the records without the lines at fault; store the new checksum."""
    digest = Digest()
    plain = check.folder / GAMES_FILE

    def write(fh: BinaryIO) -> None:
        for base, block in _blocks(path):
            for number, line in enumerate(block, start=base + 1):
                if line.strip() and number not in check.drop:
                    digest.add(line)
                    fh.write(line + b"\n")

    _write_atomically(plain, write)
    if path.suffix == ".gz":
        try:
            path.unlink()
        except OSError as error:
            raise os_error(path, error, "cannot remove") from None
    write_config_records(check.folder, digest)
    check.digest = digest
    check.repaired = True
