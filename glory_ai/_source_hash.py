"""The hash that names a build of the compiled core: sha256 over the Cython sources and C
headers compiled into the extensions (engine, search, arena loop), in path order.

setup.py loads this file by path at build time (the package is not importable yet) and
writes the result to ``glory_ai/_build_info.py``; :func:`glory_ai.build_info` reads it and
compares it with the sources beside an in-place build, so a stale extension (a ``.pyx``
edited and not rebuilt) is reported instead of running silently.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

#: the files whose content decides what the extensions compute, relative to the package
COMPILED_SOURCES = ("core/*.pyx", "core/*.pxd", "core/*.pxi", "core/include/*.h",
                    "bots/*.pyx", "bots/*.pxd", "bots/*.pxi", "arena/*.pyx")


def compiled_sources(package_dir: str | Path) -> list[Path]:
    """The compiled source files under ``package_dir`` (the ``glory_ai`` folder), sorted."""
    root = Path(package_dir)
    return sorted({path for pattern in COMPILED_SOURCES for path in root.glob(pattern)})


def source_hash(package_dir: str | Path) -> str | None:
    """sha256 (hex) of the compiled sources' relative paths and bytes, or None when the
    folder holds none (an installed wheel ships no .pyx)."""
    root = Path(package_dir)
    files = compiled_sources(root)
    if not any(path.suffix == ".pyx" for path in files):
        return None
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()
