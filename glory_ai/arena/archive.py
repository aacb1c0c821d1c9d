"""Reading a gzip archive of records as far as it can be read (``games.jsonl.gz``,
docs/arena.md "Verify"): every member in turn, decompressed in a stream, up to the first
damage -- a header that is not one, a deflate stream that breaks, a CRC or size that does not
match the data, an archive cut short, bytes after its end -- which is raised as
:class:`ArchiveDamage` (where and what) once every byte before it has been given back. The
record reader (:mod:`glory_ai.arena.storage`) keeps the complete lines of that readable part;
``glory-ai verify --repair`` keeps their records and sets the rest aside.
"""
from __future__ import annotations

import os
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .._reading import open_regular
from .plan import ArenaError

__all__ = ["ArchiveDamage", "gz_chunks"]

#: compressed bytes read at a time from an archive
_GZ_CHUNK = 1 << 20


class ArchiveDamage(ArenaError):
    """A ``.gz`` that cannot be read to its end: where the damage is (``offset``, the byte of
    the compressed file at which reading stopped, and its ``size``) and what it is."""

    def __init__(self, path: Path, offset: int, size: int, reason: str) -> None:
        self.path, self.offset, self.size, self.reason = path, offset, size, reason
        super().__init__(f"{path}: the archive is damaged at byte {offset} of {size} ({reason})")


def _gz_header(data: bytes) -> int | None:
    """The length of a gzip member's header at the start of ``data``, or None when it is
    not one (RFC 1952: magic, method 8, flags, then the optional fields the flags name)."""
    if len(data) < 10 or data[:3] != b"\x1f\x8b\x08" or data[3] & 0xE0:
        return None
    flags, at = data[3], 10
    if flags & 4:                                   # FEXTRA
        if len(data) < at + 2:
            return None
        at += 2 + int.from_bytes(data[at:at + 2], "little")
    for bit in (8, 16):                             # FNAME, FCOMMENT: zero-terminated
        if flags & bit:
            end = data.find(b"\0", at)
            if end < 0:
                return None
            at = end + 1
    if flags & 2:                                   # FHCRC
        at += 2
    return at if at <= len(data) else None


def _inflate(decomp: Any, data: bytes) -> Iterator[bytes]:
    """``decomp.decompress(data)`` as output chunks; at a zlib error, the output of the data
    before the damage first (fed again in small pieces from a copy of the state), then the
    error."""
    saved = decomp.copy()
    try:
        yield decomp.decompress(data)
        return
    except zlib.error:
        pass
    for at in range(0, len(data), 256):
        yield saved.decompress(data[at:at + 256])       # raises at the damaged piece
        if saved.eof:
            break
    raise zlib.error("invalid data")                   # the whole chunk failed, the pieces not


def gz_chunks(path: Path, salvage: bool = False) -> Iterator[bytes]:
    """The decompressed bytes of a gzip file, in chunks, as far as they can be read: every
    member in turn (as gzip reads them), then ArchiveDamage at the first damage -- a header
    that is not one, a deflate stream that breaks, a CRC or size that does not match the
    data, an archive cut short, bytes after its end (zeros, which gzip allows as padding,
    aside). With ``salvage``, an archive whose first header cannot be read is read again as
    the data behind a 10-byte header (the header this module writes), and the damage raised
    at the end."""
    yielded = False
    try:
        for out in _gz_read(path, None):
            yielded = yielded or bool(out)
            yield out
    except ArchiveDamage as damage:
        if not salvage or yielded or damage.offset >= 1 << 16:
            raise
        yield from _gz_read(path, 10)
        raise ArchiveDamage(path, 0, damage.size, f"{damage.reason}; the data behind its header "
                            "was read") from None


def _gz_read(path: Path, forced: int | None) -> Iterator[bytes]:
    """:func:`gz_chunks`, the first member's header taken to be ``forced`` bytes long when
    given."""
    with open_regular(path, "a compressed records file") as fh:
        size = os.fstat(fh.fileno()).st_size
        buf = fh.read(_GZ_CHUNK)
        pos = 0                                     # the offset in the file of buf[0]
        member = 0
        while True:
            if member:
                if not buf:
                    buf = fh.read(_GZ_CHUNK)
                if not buf:
                    break
                if not buf.strip(b"\0"):
                    while more := fh.read(_GZ_CHUNK):
                        if more.strip(b"\0"):
                            raise ArchiveDamage(path, pos, size, "bytes after the end of the archive")
                    break
            while len(buf) < 1 << 16 and (more := fh.read(_GZ_CHUNK)):
                buf += more
            header = forced if forced is not None and not member else _gz_header(buf)
            if header is None:
                raise ArchiveDamage(path, pos, size, "bytes after the end of the archive"
                                    if member else "not a gzip header")
            decomp = zlib.decompressobj(-zlib.MAX_WBITS)
            crc = length = 0
            buf, pos = buf[header:], pos + header
            while True:
                if not buf:
                    buf = fh.read(_GZ_CHUNK)
                    if not buf:
                        raise ArchiveDamage(path, size, size, "cut short: its end is missing")
                try:
                    for out in _inflate(decomp, buf):
                        if out:
                            crc, length = zlib.crc32(out, crc), length + len(out)
                            yield out
                except zlib.error as exc:
                    raise ArchiveDamage(path, pos, size, f"the compressed data is damaged ({exc})") from None
                if decomp.eof:
                    tail = decomp.unused_data
                    pos += len(buf) - len(tail)
                    while len(tail) < 8 and (more := fh.read(_GZ_CHUNK)):
                        tail += more
                    if len(tail) < 8:
                        raise ArchiveDamage(path, size, size, "cut short: its CRC and size are missing")
                    if int.from_bytes(tail[:4], "little") != crc:
                        raise ArchiveDamage(path, pos, size, "its CRC does not match the data")
                    if int.from_bytes(tail[4:8], "little") != length & 0xFFFFFFFF:
                        raise ArchiveDamage(path, pos + 4, size, "its recorded size does not match "
                                            "the data")
                    buf, pos = tail[8:], pos + 8
                    break
                pos += len(buf)
                buf = b""
            member += 1
