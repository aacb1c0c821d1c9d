"""One writer per run folder: an exclusive, advisory lock on ``FOLDER/.lock``.

Two processes appending to the same ``games.jsonl`` would both play every game and leave
duplicates behind, so every command that writes into a run folder (``compare``,
``tournament``, ``run``, a resume) holds the folder's lock for as long as it writes.

The lock is ``flock`` on a file inside the folder. The kernel drops it when the holding
process ends, however it ends (``kill -9`` included), so a lock is never stale: a lock file
left by a dead process is taken over at once. The file holds who took the lock (process id,
host, command, time), which the refusal names. ``flock`` is local to one machine: a folder on
a network filesystem shared by several machines needs one writer by convention (a cluster
run writes from its one client process, so this holds for the Dask and Ray backends).
POSIX only (Linux, macOS), as the rest of the arena.
"""
from __future__ import annotations

import fcntl
import json
import os
import socket
import sys
import time
from pathlib import Path
from types import TracebackType

from .._reading import read_text
from .files import LOCK_FILE
from .plan import ArenaError

__all__ = ["LOCK_FILE", "FolderLock", "FolderLocked", "describe_writer", "holder", "writer"]

#: the locks this process holds: real path of the folder -> [descriptor, holders]
_HELD: dict[str, list[int]] = {}


def writer(folder: str | os.PathLike[str]) -> dict[str, object] | None:
    """Who is writing into ``folder`` now: the holder of its lock (:func:`holder`'s fields,
    or ``{}`` when its note is unreadable) when another process holds it, else None. Creates
    nothing (a read-only folder, results in a repository, stays as it is)."""
    if os.path.realpath(folder) in _HELD:
        return None                                 # this process: not another writer
    try:
        fd = os.open(Path(folder) / LOCK_FILE, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)   # a FIFO: no wait
    except OSError:
        return None                                 # never locked: nobody writes
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return holder(folder) or {}
    except OSError:
        return None
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def describe_writer(info: dict[str, object] | None) -> str:
    """The process of :func:`writer`, in words (``process 123 on host (`glory-ai ...`, since
    ...)``)."""
    return _describe(info)


class FolderLocked(ArenaError):
    """Another live process holds the folder's lock: the message names it."""


def holder(folder: str | os.PathLike[str]) -> dict[str, object] | None:
    """Who last took the lock of ``folder`` (``pid``, ``host``, ``command``, ``since``), or
    None when nobody ever did or the file is unreadable. Says nothing on whether the lock is
    held now: only an attempt to take it does."""
    try:
        text = read_text(Path(folder) / LOCK_FILE, "a lock note", 1 << 16)
        info = json.loads(text)
    except (OSError, ValueError):
        return None
    return info if isinstance(info, dict) else None


def _describe(info: dict[str, object] | None) -> str:
    if not info:
        return "another process"
    since = info.get("since")
    when = (time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(since))
            if isinstance(since, (int, float)) else "an unknown time")
    return (f"process {info.get('pid', '?')} on {info.get('host', '?')} "
            f"(`{info.get('command', '?')}`, since {when})")


class FolderLock:
    """The exclusive lock of one run folder, taken by :meth:`acquire` (or ``with``).

    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> with FolderLock(folder):
    ...     FolderLock(folder).acquire()
    Traceback (most recent call last):
    ...
    glory_ai.arena.lock.FolderLocked: ... is being written by process ...
    >>> with FolderLock(folder):        # released on leaving the block
    ...     pass
    """

    def __init__(self, folder: str | os.PathLike[str], command: str | None = None, *,
                 shared: bool = False, create: bool = False) -> None:
        """``shared``: join the lock when this process already holds it (a run started by a
        command that holds its folder) instead of being refused. ``create``: make the folder
        (and its parents) first; :meth:`release` with ``cleanup`` removes them again if
        nothing else was written into them."""
        self.folder = Path(folder)
        self.command = command if command is not None else " ".join(
            [Path(sys.argv[0]).name, *sys.argv[1:]]) if sys.argv and sys.argv[0] else "python"
        self.shared = shared
        self.create = create
        self._fd: int | None = None
        self._key = ""
        self._created: list[Path] = []

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> FolderLock:
        """Take the lock or raise FolderLocked naming its holder; an OSError (say, a folder
        that cannot be written) becomes an ArenaError naming the file."""
        if self._fd is not None:
            return self
        if self.create:
            missing = [p for p in (self.folder, *self.folder.parents) if not p.exists()]
            try:
                self.folder.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise ArenaError(f"{self.folder}: cannot create the folder "
                                 f"({error.strerror or error})") from None
            self._created = missing
        self._key = os.path.realpath(self.folder)
        if self.shared and self._key in _HELD:
            _HELD[self._key][1] += 1
            self._fd = _HELD[self._key][0]
            return self
        path = self.folder / LOCK_FILE
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as error:
            raise ArenaError(f"{path}: cannot create the run folder's lock file "
                             f"({error.strerror or error})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise FolderLocked(f"{self.folder} is being written by {_describe(holder(self.folder))}: "
                               f"one run writes into a folder at a time; wait for it to finish, "
                               f"stop it, or choose another --out") from None
        except OSError as error:
            os.close(fd)
            raise ArenaError(f"{path}: cannot lock the run folder ({error.strerror or error})") from None
        info = {"pid": os.getpid(), "host": socket.gethostname(), "command": self.command,
                "since": round(time.time(), 3)}
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, (json.dumps(info) + "\n").encode(), 0)
        except OSError:
            pass        # the lock holds without the note of who holds it (say, a full disk)
        self._fd = fd
        _HELD[self._key] = [fd, 1]
        return self

    def release(self, cleanup: bool = False) -> None:
        """Give the lock up (the file stays: removing it would race with a process waiting
        to open it). ``cleanup``: the folders this lock created are removed when they hold
        nothing but the lock file (a run that could not start leaves nothing behind)."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        held = _HELD.get(self._key)
        if held is not None and held[0] == fd:
            held[1] -= 1
            if held[1] > 0:
                return
            del _HELD[self._key]
        if cleanup and self._created:
            try:
                if [p.name for p in self.folder.iterdir()] == [LOCK_FILE]:
                    (self.folder / LOCK_FILE).unlink()
                    for folder in self._created:
                        folder.rmdir()
            except OSError:
                pass
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)

    def __enter__(self) -> FolderLock:
        return self.acquire()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.release()
