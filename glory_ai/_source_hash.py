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

#: the files whose content decides what the extensions compute: Cython sources relative to
#: the package folder, and the C headers and helpers in csrc/ beside it (the copy of the
#: headers a build places in glory_ai/core/include/ is a build product, not a source)
PACKAGE_SOURCES = ("core/*.pyx", "core/*.pxd", "core/*.pxi", "bots/*.pyx", "bots/*.pxd",
                   "bots/*.pxi", "arena/*.pyx")
C_SOURCES = ("*.h", "*.c")


def compiled_sources(package_dir: str | Path) -> list[Path]:
    """The compiled source files of the checkout whose package folder is ``package_dir``
    (the ``glory_ai`` folder, with ``csrc`` as its sibling), sorted."""
    package = Path(package_dir)
    csrc = package.parent / "csrc"
    found = {path for pattern in PACKAGE_SOURCES for path in package.glob(pattern)}
    found |= {path for pattern in C_SOURCES for path in csrc.glob(pattern)}
    return sorted(found)


def source_hash(package_dir: str | Path) -> str | None:
    """sha256 (hex) of the compiled sources' paths (relative to the folder holding the
    package) and bytes, or None when the package holds no .pyx (an installed wheel ships
    none)."""
    root = Path(package_dir).parent
    files = compiled_sources(package_dir)
    if not any(path.suffix == ".pyx" for path in files):
        return None
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()
