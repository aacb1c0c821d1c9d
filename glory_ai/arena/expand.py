"""Playing on a run kept compressed: :func:`expand_run` undoes
:func:`~glory_ai.arena.storage.compress_run` (a balance study extended with more trials)."""
from __future__ import annotations

import gzip
import os
import zlib
from pathlib import Path
from typing import BinaryIO

from .files import COMPRESSED_GAMES_FILE, GAMES_FILE
from .lock import FolderLock
from .plan import ArenaError
from .storage import _write_atomically, is_compressed, os_error

__all__ = ["expand_run"]


def expand_run(folder: str | os.PathLike) -> Path:
    """Undo :func:`compress_run` so that a run kept compressed can be played on (a study
    extended with more trials or deals): the same lines, in the same order, back into
    ``games.jsonl`` (the checksum config.json holds is theirs), then the compressed file
    removed. Holds the folder's lock; a kill leaves one of the two whole."""
    folder = Path(folder)
    plain = folder / GAMES_FILE
    source = folder / COMPRESSED_GAMES_FILE
    with FolderLock(folder):
        if not is_compressed(folder):
            return plain

        def write(raw: BinaryIO) -> None:
            try:
                with gzip.open(source, "rb") as fh:
                    while block := fh.read(1 << 20):
                        raw.write(block)
            except (OSError, EOFError, zlib.error) as error:
                raise ArenaError(f"{source}: cannot read the compressed records ({error})") from None

        _write_atomically(plain, write)
        try:
            source.unlink()
        except OSError as error:
            raise os_error(source, error, "cannot remove") from None
    return plain
