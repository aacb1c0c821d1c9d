"""Checks of the arguments of the statistics: every bad input is a ValueError (wrong types
included) with a message naming the argument."""
# Every bad input raises ValueError, wrong types included.
# ruff: noqa: TRY004
from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from scipy import stats


def checked_real(value: Any, what: str) -> float:
    """Return ``value`` (anything: float() decides) as a finite float, or raise ValueError."""
    if isinstance(value, bool):
        raise ValueError(f"{what} must be a number, not a bool")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a number, got {value!r}") from None
    if not math.isfinite(x):
        raise ValueError(f"{what} must be finite, got {value!r}")
    return x


def checked_count(value: object, what: str) -> float:
    """A finite, non-negative number."""
    x = checked_real(value, what)
    if x < 0:
        raise ValueError(f"{what} must be non-negative, got {value!r}")
    return x


def z_quantile(confidence: float) -> float:
    """Two-sided standard-normal quantile for a confidence level in (0, 1)."""
    c = checked_real(confidence, "confidence")
    if not 0.0 < c < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}")
    return float(stats.norm.ppf(0.5 + c / 2.0))


def checked_names(names: Iterable[object], what: str = "names") -> list[str]:
    given = list(names)
    if not given:
        raise ValueError(f"{what} is empty")
    out: list[str] = []
    for n in given:
        if not isinstance(n, str):
            raise ValueError(f"{what} must be strings, got {n!r}")
        out.append(n)
    if len(set(out)) != len(out):
        dupes = sorted({n for n in out if out.count(n) > 1})
        raise ValueError(f"{what} contains duplicates: {dupes}")
    return out

