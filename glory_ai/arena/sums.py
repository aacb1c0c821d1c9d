"""The checksum of every game's record: ``games.sums`` beside a run's records (docs/arena.md).

``config.json``'s ``records`` checksum (:class:`glory_ai.arena.storage.Digest`) says whether
the records file changed, not which record did. ``games.sums`` says which: for each game of
the plan, at its place in the plan (``(deal * pairings + pairing) * rotations + rotation``),
the first 8 bytes of the SHA-256 of its record's line, written as the line is appended.
Sorting and compressing the records keep it (it is indexed by game, not by line).
``glory-ai verify`` reads it to name the record that was changed, and sets that record aside
instead of stamping a new checksum over it.

The file is a 16-byte header (:data:`HEADER`) and 8 bytes a game; zeros where no game was
recorded yet (a sparse file: a plan of millions of games costs nothing until played).
"""
from __future__ import annotations

import mmap
import os
from pathlib import Path

from .._reading import open_regular
from .files import SUMS_FILE
from .plan import ArenaError

__all__ = ["HEADER", "SUMS_FILE", "WIDTH", "Sums", "SumsWriter", "line_sum"]

HEADER = b"glory_ai sums 1\n"
WIDTH = 8
_EMPTY = bytes(WIDTH)


def line_sum(sha256: bytes) -> bytes:
    """A game's entry: the first :data:`WIDTH` bytes of its line's SHA-256 (never all zeros)."""
    entry = sha256[:WIDTH]
    return entry if entry != _EMPTY else b"\0" * (WIDTH - 1) + b"\1"


class SumsWriter:
    """Writes the entries of a run's games as they are appended (one ``pwrite`` a game)."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / SUMS_FILE
        self._fd: int | None = None

    def _open(self) -> int:
        if self._fd is None:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                if os.fstat(fd).st_size < len(HEADER):
                    os.pwrite(fd, HEADER, 0)
            except OSError:
                os.close(fd)
                raise
            self._fd = fd
        return self._fd

    def write(self, entries: list[tuple[int, bytes]]) -> None:
        """Write (plan index, line SHA-256) entries; OSError as raised (a full disk)."""
        fd = self._open()
        for index, sha in entries:
            os.pwrite(fd, line_sum(sha), len(HEADER) + WIDTH * index)

    def sync(self) -> None:
        if self._fd is not None:
            os.fsync(self._fd)

    def close(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)


class Sums:
    """The entries of a run's ``games.sums``, read (``get``) and mended (``put``) by verify.
    ``present``: the folder has the file and its header is one; ``damaged``: it has a file
    whose header is not."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / SUMS_FILE
        self._map: mmap.mmap | bytes = b""
        self.present = self.damaged = False
        try:
            with open_regular(self.path, "a checksums file") as fh:
                size = os.fstat(fh.fileno()).st_size
                self._map = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
        except FileNotFoundError:
            return
        except (OSError, ValueError) as error:
            detail = getattr(error, "strerror", None) or error
            raise ArenaError(f"{self.path}: cannot read ({detail})") from None
        self.present = self._map[:len(HEADER)] == HEADER
        self.damaged = not self.present

    def get(self, index: int) -> bytes | None:
        """The entry of game ``index``, or None (no file, or none written for the game)."""
        if not self.present:
            return None
        at = len(HEADER) + WIDTH * index
        entry = bytes(self._map[at:at + WIDTH])
        return entry if len(entry) == WIDTH and entry != _EMPTY else None

    def close(self) -> None:
        if isinstance(self._map, mmap.mmap):
            self._map.close()
        self._map = b""


def rewrite(folder: Path, entries: dict[int, bytes]) -> None:
    """Write the entries ``{index: line SHA-256}`` into the folder's sums file (creating it,
    or writing its header over a damaged one) and sync it."""
    path = folder / SUMS_FILE
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        os.pwrite(fd, HEADER, 0)
        for index, sha in entries.items():
            os.pwrite(fd, line_sum(sha), len(HEADER) + WIDTH * index)
        os.fsync(fd)
    finally:
        os.close(fd)
