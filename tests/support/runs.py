"""Copies of shipped run folders for the analysis tests."""
from __future__ import annotations

import shutil
from pathlib import Path

from glory_ai.analysis.columns import COLUMNS_FILE


def copy_runs_without_columns(runs_folder: Path, destination: Path) -> list[Path]:
    """Every run of ``runs_folder`` copied into ``destination``, less its columns file (so the
    code under test derives it from the records): the copies' folders, in name order."""
    folders = []
    for source in sorted(runs_folder.iterdir()):
        folder = destination / source.name
        shutil.copytree(source, folder, ignore=shutil.ignore_patterns(COLUMNS_FILE))
        folders.append(folder)
    return folders
