"""The frame helpers of the statistics: the columns a statistic needs, and an integer id
per unit (a deal of a run) for grouping rows."""
from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import pandas as pd

from .. import AnalysisError

__all__ = [
    "by_game", "groups", "need_columns", "spec_codes", "texts", "unit_keys",
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
    fast = _small_int_keys(frame, keys)
    if fast is not None:
        return fast
    return frame.groupby(keys, sort=True, observed=True).ngroup().to_numpy(np.int64)


def _small_int_keys(frame: pd.DataFrame, keys: Sequence[str]) -> np.ndarray | None:
    """The group ids of ``unit_keys`` when every key is a categorical without missing values
    or non-negative integers: one combined integer per row, numbered in sorted order by
    counting (groupby's order: a categorical by its categories), not by sorting the rows.
    None when the keys are of another kind or their combinations too many to count."""
    combined = np.zeros(len(frame), dtype=np.int64)
    size = 1
    for name in keys:
        column = frame[name]
        if isinstance(column.dtype, pd.CategoricalDtype):
            values = column.cat.codes.to_numpy().astype(np.int64)
            width = len(column.cat.categories)
        elif column.dtype.kind in "iu":
            values = column.to_numpy().astype(np.int64)
            width = int(values.max()) + 1 if len(values) else 1
        else:
            return None
        if len(values) and values.min() < 0:
            return None
        size *= max(width, 1)
        if size > 4 * len(frame) + 1024:
            return None
        combined = combined * max(width, 1) + values
    present = np.bincount(combined, minlength=size) > 0
    return (np.cumsum(present) - 1)[combined]


def texts(column: pd.Series) -> np.ndarray:
    """``column.astype(str).to_numpy()`` (an object array of strings), from a categorical's
    categories (a few) rather than a string made per row."""
    if isinstance(column.dtype, pd.CategoricalDtype) and column.notna().all():
        names = np.empty(len(column.cat.categories), dtype=object)
        names[:] = [str(c) for c in column.cat.categories]
        return names[column.cat.codes.to_numpy()]
    return column.astype(str).to_numpy()


def spec_codes(column: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """``numpy.unique(column.astype(str), return_inverse=True)`` (the distinct texts, sorted,
    and each row's code), from a categorical's categories rather than every row's text."""
    if isinstance(column.dtype, pd.CategoricalDtype) and column.notna().all():
        names = np.asarray([str(c) for c in column.cat.categories])
        category = column.cat.codes.to_numpy()
        labels = np.unique(names[np.bincount(category, minlength=len(names)) > 0])
        code = np.searchsorted(labels, names)[category].astype(np.intp)
        return np.array(labels.tolist(), dtype=object), code
    return np.unique(column.astype(str).to_numpy(), return_inverse=True)


def by_game(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame.sort_values(["game", "seat"], kind="stable")``, without the sort when the rows
    are in that order already (as load_runs gives them)."""
    game = frame["game"].to_numpy()
    seat = frame["seat"].to_numpy()
    step = np.diff(game)
    if ((step > 0) | ((step == 0) & (np.diff(seat) > 0))).all():
        return frame
    return frame.sort_values(["game", "seat"], kind="stable")


def groups(frame: pd.DataFrame, by: Sequence[str]) -> Iterator[tuple[tuple[object, ...], pd.DataFrame]]:
    """``frame.groupby(list(by), observed=True, sort=True)`` iterated: (key tuple, rows) per
    group, the rows of one group taken at a time (pandas' iteration first sorts a copy of
    the whole frame)."""
    grouped = frame.groupby(list(by), observed=True, sort=True)
    codes = grouped.ngroup().to_numpy()
    for g, key in enumerate(grouped.size().index):
        yield (key if isinstance(key, tuple) else (key,)), frame.iloc[np.flatnonzero(codes == g)]
