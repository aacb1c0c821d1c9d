"""The frame helpers of the statistics: the columns a statistic needs, and an integer id
per unit (a deal of a run) for grouping rows."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .. import AnalysisError

__all__ = [
    "need_columns", "unit_keys",
]


def need_columns(frame: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    """AnalysisError unless ``frame`` is a non-empty DataFrame with ``columns`` (``what``:
    the statistic, for the message)."""
    if not isinstance(frame, pd.DataFrame):
        raise AnalysisError(f"{what} takes the DataFrame of load_runs, got {type(frame).__name__}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise AnalysisError(f"{what}: the frame has no column {', '.join(map(repr, missing))} "
                            "(load it with load_runs)")
    if frame.empty:
        raise AnalysisError(f"{what}: no games (the frame is empty)")


def unit_keys(frame: pd.DataFrame, by: Sequence[str]) -> np.ndarray:
    """An integer id per row for the groups of ``by`` (``run`` is optional in the frame)."""
    keys = [c for c in by if c in frame.columns]
    return frame.groupby(keys, sort=True, observed=True).ngroup().to_numpy(np.int64)
