"""Writing ``.npz`` archives byte for byte the same from the same arrays.

``numpy.savez`` stamps every member of the zip archive with the current time, so two saves of
the same arrays differ in a few bytes. Training shards and model files are written here
instead, with a fixed timestamp, so that a fixed seed gives the same file. The archives are
ordinary ``.npz`` files: ``numpy.load`` and :func:`glory_ai.bots.models.load_model` read them.
"""
from __future__ import annotations

import os
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["write_npz"]

_EPOCH = (1980, 1, 1, 0, 0, 0)      # the earliest time a zip member can carry


def write_npz(path: str | os.PathLike[str], arrays: Mapping[str, Any], *, compress: bool = False) -> None:
    """Write ``arrays`` as an ``.npz`` archive at ``path`` (members in the order given),
    through a temporary file renamed into place: a reader never sees half a file."""
    path = Path(path)
    partial = path.with_name(path.name + ".partial")
    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(partial, "w", compression=method) as archive:
        for key, value in arrays.items():
            member = zipfile.ZipInfo(f"{key}.npy", date_time=_EPOCH)
            member.compress_type = method
            member.external_attr = 0o644 << 16
            with archive.open(member, "w", force_zip64=True) as handle:
                np.lib.format.write_array(handle, np.asanyarray(value), allow_pickle=False)
    os.replace(partial, path)
