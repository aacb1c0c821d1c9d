"""Fixtures of the fault-injection tests."""
from __future__ import annotations

import pytest

from glory_ai.arena import run
from support.faults import SMALL


@pytest.fixture

def finished(tmp_path):
    """A finished run folder of SMALL (12 games, its checksum stored)."""
    folder = tmp_path / "run"
    run(SMALL, folder, batch_size=4)
    return folder
