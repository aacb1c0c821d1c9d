"""The identity of the code that plays a game: glory_ai's (version, build, the Python
sources that decide a game) and each user bot's (where it comes from, its distribution's
version, a hash of its source). A run records it (``code.json`` in a run folder,
docs/arena.md) and refuses to resume with other code, naming what changed.

Nothing here imports a user's code: :mod:`glory_ai.bots.plugins` resolves the bots and
calls :func:`module_identity` or :func:`file_identity`.
"""
from __future__ import annotations

import functools
import hashlib
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["PLAY_SOURCES", "package_identity", "play_source_files", "play_sources_hash", "module_identity",
           "file_identity", "identity_changes", "short"]

#: glory_ai's Python files (relative to the package) that decide what a game record holds;
#: the compiled sources are the build's hash (glory_ai.build_info()). The rest (analysis,
#: experiments, the command line, the interactive screens, storage) reads or writes
#: records without changing a game.
PLAY_SOURCES = ("*.py", "core/*.py", "bots/*.py", "arena/plan.py", "arena/play.py", "data/*.csv")
_NOT_PLAY = frozenset({"cli.py", "__main__.py", "_argparse.py", "_jsonio.py", "_reading.py", "_display.py",
                       "bench.py", "_build_info.py", "bots/bench.py"})

#: files never hashed as a package's source (caches, compiled bytecode, build products)
_SKIPPED_DIRS = frozenset({"__pycache__", ".git", ".hg", ".mypy_cache", ".pytest_cache",
                           ".ruff_cache", "build", "dist"})
_SKIPPED_SUFFIXES = (".pyc", ".pyo")


def _digest(files: Iterable[Path], root: Path) -> str:
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def play_source_files() -> list[Path]:
    """glory_ai's play-deciding Python files (:data:`PLAY_SOURCES`), sorted."""
    root = Path(__file__).resolve().parent.parent
    return sorted({path for pattern in PLAY_SOURCES for path in root.glob(pattern)
                   if path.relative_to(root).as_posix() not in _NOT_PLAY})


@functools.cache
def play_sources_hash() -> str:
    """sha256 over :func:`play_source_files`, in path order: what the build hash does not
    cover, such as the styles' weights."""
    return _digest(play_source_files(), Path(__file__).resolve().parent.parent)


@functools.cache
def package_identity() -> dict[str, Any]:
    """glory_ai's part of a run's code identity: ``version``, ``build`` (the compiled
    sources' hash, None for a build without it) and ``sources`` (:func:`play_sources_hash`)."""
    from .. import __version__, build_info

    return {"version": __version__, "build": build_info()["source_hash"],
            "sources": play_sources_hash()}


@functools.cache
def _distributions() -> Mapping[str, list[str]]:
    # top-level import name -> distributions providing it (scans every installed
    # distribution once: tens of milliseconds)
    import importlib.metadata

    return importlib.metadata.packages_distributions()


def _distribution(top: str) -> tuple[str | None, str | None]:
    import importlib.metadata

    names = _distributions().get(top) or []
    for name in names:
        try:
            return name, importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None, None


def _package_files(locations: Iterable[str]) -> tuple[list[Path], Path] | None:
    roots = [Path(loc).resolve() for loc in locations if Path(loc).is_dir()]
    if not roots:
        return None
    files: list[Path] = []
    for root in roots:
        for path in root.rglob("*"):
            parts = path.relative_to(root).parts
            if (path.is_file() and not any(p in _SKIPPED_DIRS for p in parts)
                    and not path.name.endswith(_SKIPPED_SUFFIXES)):
                files.append(path)
    return sorted(files), roots[0].parent


@functools.cache
def module_identity(module_name: str) -> dict[str, Any]:
    """Where the code of an imported module's top-level package comes from: its
    ``distribution`` and ``version`` (None when not installed as one) and ``sha256`` over
    the package's files (every file of the package folder, caches aside; a single module:
    its file; None when there is no file, e.g. a class defined interactively). Computed
    once per process, from the files of the module as first imported."""
    top = module_name.split(".")[0]
    identity: dict[str, Any] = {"package": top}
    if top == "glory_ai":             # a bot of glory_ai's own: the package identity says it
        identity["sha256"] = play_sources_hash()
        return identity
    module = sys.modules.get(top)
    if module is None:
        import importlib

        try:
            module = importlib.import_module(top)
        except ImportError:                 # loaded by other means (say, from a file)
            module = sys.modules.get(module_name)
            file = getattr(module, "__file__", None)
            identity["sha256"] = _file_hash(file)
            return identity
    dist, version = _distribution(top) if top != "__main__" else (None, None)
    identity["distribution"], identity["version"] = dist, version
    found = _package_files(getattr(module, "__path__", None) or ())
    if found is not None:
        files, root = found
        identity["sha256"] = _digest(files, root)
    else:
        identity["sha256"] = _file_hash(getattr(module, "__file__", None))
    return identity


def _file_hash(file: object) -> str | None:
    if isinstance(file, str) and Path(file).is_file():
        return hashlib.sha256(Path(file).read_bytes()).hexdigest()
    return None


def file_identity(path: Path, data: bytes) -> dict[str, Any]:
    """A bot file's part of the identity: its absolute ``path`` (recorded, not compared: the
    same source moved elsewhere is the same bot) and the ``sha256`` of its bytes."""
    return {"path": str(path), "sha256": hashlib.sha256(data).hexdigest()}


def short(value: object) -> str:
    """A hash cut to 12 hex digits (enough to tell two apart in a message)."""
    return value[:12] if isinstance(value, str) and len(value) > 12 else str(value)


#: what a user bot's identity holds that is compared (``path`` is only recorded)
_COMPARED = ("kind", "target", "fair_play", "distribution", "version", "sha256")


def identity_changes(there: Mapping[str, Any], here: Mapping[str, Any]) -> list[str]:
    """What differs between two code identities (``{"glory_ai": ..., "bots": ...}``), one
    phrase each, ``there`` being the recorded one: ``["glory_ai build: 09276ec8e2e9 there,
    abf04c9aeecb here", "./my_bot.py:Cautious: source sha256 ... there, ... here"]``."""
    changes = []
    mine, theirs = dict(here.get("glory_ai") or {}), dict(there.get("glory_ai") or {})
    for key, label in (("version", "version"), ("build", "build (compiled sources)"),
                       ("sources", "Python sources")):
        if mine.get(key) != theirs.get(key):
            changes.append(f"glory_ai {label}: {short(theirs.get(key))} there, {short(mine.get(key))} here")
    bots_here, bots_there = dict(here.get("bots") or {}), dict(there.get("bots") or {})
    for key in sorted(set(bots_here) | set(bots_there)):
        new, old = bots_here.get(key), bots_there.get(key)
        if new is None or old is None:
            changes.append(f"{key}: {'not' if old is None else 'only'} in the recorded run")
            continue
        for field in _COMPARED:
            if new.get(field) != old.get(field):
                what = "source sha256" if field == "sha256" else field.replace("_", " ")
                changes.append(f"{key}: {what} {short(old.get(field))} there, {short(new.get(field))} here")
    return changes
