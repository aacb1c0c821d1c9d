"""Fixtures of the arena tests: runs scheduled differently (batches submitted in another
order), to check that the records do not depend on it."""
from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from glory_ai.arena import runner


@pytest.fixture
def shuffle_batches(monkeypatch: pytest.MonkeyPatch) -> Callable[[int], None]:
    """``shuffle_batches(seed)``: the runs that follow submit their batches shuffled."""
    def shuffle(seed: int) -> None:
        cut = runner._batches

        def shuffled(tasks, size):
            batches = list(cut(tasks, size))
            random.Random(seed).shuffle(batches)
            return iter(batches)
        monkeypatch.setattr(runner, "_batches", shuffled)
    return shuffle
