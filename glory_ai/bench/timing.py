"""The bench's arithmetic: CPU time per operation in interleaved rounds, as a median with its
quartiles. The engine bench (:mod:`glory_ai.bench`) and the side-by-side comparison with
OpenSpiel (:mod:`glory_ai.integrations.compare`) both measure with it.
"""
from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["ROUNDS", "Timing", "interleaved"]

ROUNDS = 9


@dataclass(frozen=True)
class Timing:
    """ns per operation: the median over interleaved rounds and the quartiles around it."""

    median: float
    low: float          # first quartile
    high: float         # third quartile

    def __str__(self) -> str:
        return f"{self.median:.0f} ns [{self.low:.0f}, {self.high:.0f}]"

    @classmethod
    def of(cls, samples: Sequence[float]) -> Timing:
        if len(samples) < 4:
            value = statistics.median(samples)
            return cls(value, min(samples), max(samples))
        low, median, high = statistics.quantiles(samples, n=4)
        return cls(median, low, high)


def _cpu_ns_per_item(items: Sequence[Any], op: Callable[[Any], object], number: int) -> float:
    """CPU ns per op(item), cycling through items `number` times."""
    count = len(items)
    start = time.thread_time_ns()
    for k in range(number):
        op(items[k % count])
    return (time.thread_time_ns() - start) / number


def interleaved(items: Sequence[Any], op: Callable[[Any], object],
                base: Callable[[Any], object] = lambda item: None,
                number: int = 20000, rounds: int = ROUNDS) -> Timing:
    """ns per op(item) less ns per base(item), each round timing both back to back."""
    differences = []
    for _ in range(rounds):
        differences.append(_cpu_ns_per_item(items, op, number) - _cpu_ns_per_item(items, base, number))
    return Timing.of(differences)
