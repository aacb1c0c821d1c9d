"""Bounded reads of the files a user hands to glory_ai: regular files only, each kind with a
size cap, and JSON-lines records with a cap per line.

A path can name a FIFO (``open`` then waits for a writer for ever), a device (``/dev/zero``
never ends) or a file far larger than anything glory_ai writes. Every reader of a file a user
names (a bot file, an evaluation model, a config, a position, a saved game, records) opens it
through :func:`open_regular`: opened without blocking, checked with ``fstat`` to be a regular
file, and refused in one line otherwise (:class:`ReadLimitError`, a ValueError; a folder is
the IsADirectoryError ``open`` raises), before anything is read. :func:`read_bytes` and
:func:`read_text` read a whole file within a cap; :func:`read_lines` reads a JSON-lines file
line by line, each line within a cap. JSON and TOML are parsed through
:mod:`glory_ai._jsonio`, which reads through this module.

A missing or unreadable file is an OSError, as ``open`` raises it: the caller words it.

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> fifo = os.path.join(folder, "pipe")
>>> os.mkfifo(fifo)
>>> read_bytes(fifo, "a bot file", 100)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
glory_ai._reading.ReadLimitError: ...pipe: a FIFO, not a regular file: a bot file is read from a ...
"""
from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from typing import BinaryIO

__all__ = ["CONFIG_BYTES", "LINE_BYTES", "MODEL_BYTES", "SOURCE_BYTES", "ReadLimitError", "open_regular",
           "read_bytes", "read_lines", "read_text"]

#: a bot's Python file (a few kilobytes; a generated table of a few megabytes still fits)
SOURCE_BYTES = 8 << 20
#: an evaluation model (.npz: a linear model or a small MLP, kilobytes to a few megabytes)
MODEL_BYTES = 64 << 20
#: an experiment, study or learning config (TOML: kilobytes)
CONFIG_BYTES = 4 << 20
#: one line of a JSON-lines records file (a game record: kilobytes)
LINE_BYTES = 64 << 20

_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


class ReadLimitError(ValueError):
    """A file that is not a regular file or is over its cap: one line naming it (``reason``:
    the line without the path, for a caller that names the file its own way)."""

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        super().__init__(f"{os.fspath(path)}: {reason}")
        self.reason = reason


def _kind(mode: int) -> str:
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def open_regular(path: str | os.PathLike[str], what: str) -> BinaryIO:
    """``path`` opened for reading in binary, after checking that it is a regular file (a FIFO
    is opened without waiting for a writer); ReadLimitError naming ``what`` otherwise."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):          # as open() says it: the callers word an OSError already
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
        if not stat.S_ISREG(mode):
            raise ReadLimitError(path, f"{_kind(mode)}, not a regular file: {what} is read from a "
                                 "regular file only")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _over(path: str | os.PathLike[str], size: int, what: str, cap: int) -> ReadLimitError:
    return ReadLimitError(path, f"{size:,} bytes, more than the {cap:,} {what} may hold")


def read_bytes(path: str | os.PathLike[str], what: str, max_bytes: int) -> bytes:
    """The bytes of the regular file ``path``; ReadLimitError for another kind of file or one
    longer than ``max_bytes`` (checked before reading, and while reading a file that grows)."""
    with open_regular(path, what) as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > max_bytes:
            raise _over(path, size, what, max_bytes)
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise _over(path, len(data), what, max_bytes)
    return data


def read_text(path: str | os.PathLike[str], what: str, max_bytes: int) -> str:
    """:func:`read_bytes` decoded as UTF-8; ReadLimitError for text that is not UTF-8."""
    data = read_bytes(path, what, max_bytes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ReadLimitError(path, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def read_lines(fh: BinaryIO, source: str, max_line: int = LINE_BYTES) -> Iterator[bytes]:
    """The lines of an open binary file (newline kept), each at most ``max_line`` bytes;
    ReadLimitError naming ``source`` and the line for a longer one (read no further)."""
    number = 0
    while True:
        line = fh.readline(max_line + 2)
        if not line:
            return
        number += 1
        if len(line) - line.endswith(b"\n") > max_line:
            raise ReadLimitError(source, f"line {number} is longer than the {max_line:,} bytes a "
                                 "record may hold")
        yield line
