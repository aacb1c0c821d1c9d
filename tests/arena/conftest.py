"""Fixtures of the arena tests: runs scheduled differently (batches submitted in another
order, results returned as lists), to check that the records do not depend on it."""
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
            batches = cut(tasks, size)
            random.Random(seed).shuffle(batches)
            return batches
        monkeypatch.setattr(runner, "_batches", shuffled)
    return shuffle


@pytest.fixture
def results_as_lists(monkeypatch: pytest.MonkeyPatch) -> Callable[[], None]:
    """``results_as_lists()``: the runs that follow take the path of the backends that
    return lists rather than generators (Ray's)."""
    def as_lists() -> None:
        results = runner._results
        monkeypatch.setattr(runner, "_results", lambda batches: results(batches, stream=False))
    return as_lists
