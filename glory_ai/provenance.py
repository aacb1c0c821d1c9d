"""Where a result comes from: glory_ai's version and build, the git commit of the checkout,
Python, the platform and the libraries' versions (a results folder's ``manifest.json``)."""

from __future__ import annotations

import importlib.metadata
import platform
import subprocess
from pathlib import Path
from typing import Any

__all__ = ["LIBRARIES", "git", "provenance"]

#: the libraries whose versions a manifest records
LIBRARIES = (
    "numpy",
    "scipy",
    "pandas",
    "matplotlib",
    "joblib",
    "statsmodels",
    "orjson",
    "Cython",
    "tqdm",
    "optuna",
)


def git(args: list[str]) -> str | None:
    """The output of a git command in the package's checkout, or None (no git, no checkout)."""
    try:
        out = subprocess.run(
            ["git", *args], capture_output=True, text=True, timeout=10, cwd=Path(__file__).resolve().parent
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def provenance() -> dict[str, Any]:
    """glory_ai's version and build, the commit (and whether the checkout had changes),
    Python, the platform and the libraries' versions (None where not installed)."""
    from . import __version__, build_info

    libraries: dict[str, str | None] = {}
    for name in LIBRARIES:
        try:
            libraries[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            libraries[name] = None
    status = git(["status", "--porcelain", "--untracked-files=no"])
    return {
        "glory_ai": __version__,
        "git_commit": git(["rev-parse", "HEAD"]),
        "git_dirty": bool(status) if status is not None else None,
        "build": build_info(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "libraries": libraries,
    }
