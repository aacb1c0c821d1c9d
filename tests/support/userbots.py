"""Helpers of the users'-bots tests (tests/plugins): bot files written into a folder, the
example plugin installed as importlib.metadata finds an installed distribution, the command
line run in a subprocess (so that loky workers start with the same import path)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import tomllib
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
PLUGIN = EXAMPLES / "plugin"


def write_bot(path: Path, source: str) -> Path:
    """A bot file with ``source`` (dedented)."""
    path.write_text(textwrap.dedent(source).lstrip())
    return path


def install_plugin(site: Path) -> list[str]:
    """Install examples/plugin into ``site`` as pip would for importlib.metadata: a
    ``.dist-info`` folder with its METADATA and the entry points of its pyproject.toml (the
    package itself is imported from examples/plugin). Returns the paths to put on sys.path."""
    project = tomllib.loads((PLUGIN / "pyproject.toml").read_text())["project"]
    info = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\n"
                                   f"Version: {project['version']}\n")
    lines = []
    for group, entries in project["entry-points"].items():
        lines.append(f"[{group}]")
        lines += [f"{name} = {target}" for name, target in entries.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    return [str(site), str(PLUGIN)]


def run_cli(args: Sequence[str], cwd: Path, paths: Sequence[str] = (),
            timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """``python -m glory_ai ARGS`` in ``cwd`` with this tree (and ``paths``) on PYTHONPATH."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *paths])
    return subprocess.run([sys.executable, "-m", "glory_ai", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)
