"""The runs' columns files read a row group at a time: what the report's sections that work
from sums read, in memory bounded by a row group (16,384 records) and by per-deal sums,
never a frame of every seat-game (docs/analysis.md, "Analysis at scale").

:func:`open_runs` gives a :class:`RunStream` over run folders whose games are all in their
columns files (finished runs), or None where the frame is read instead (records without a
columns file, a game recorded twice: the reader of the frame handles those). A
:class:`Batch` is one row group of one run: the columns asked for as numpy arrays, strings
as codes into the stream's own lists of names (specs by their report labels), and each
row's deal unit: the (run, deal) pairs numbered in sorted order, as
:func:`~glory_ai.analysis.stats.frames.unit_keys` numbers them in the frame.

The rows come in file order, not the frame's sorted order: a statistic made here from sums
is the frame's up to the order of its additions (the last bits of a float, never a
printed digit).
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .columns import STRINGS, _system_allocator, ensure_columns, release_memory
from .load import _labels, _ReadRecords, _Run

__all__ = ["Batch", "NotStreamed", "RunStream", "UnitSums", "add_counts", "open_runs"]

#: the columns that say where a row stands in its run (read with every batch)
PLACE = ("record", "deal", "pairing", "rotation", "seat")


class NotStreamed(Exception):
    """A section cannot work from these runs a row group at a time: it reads the frame."""


@dataclass
class Batch:
    """One row group of one run (``run``: its place among the runs): ``columns`` by name
    (strings as codes into :attr:`RunStream.names`), ``unit`` each row's deal unit
    (global over the runs), ``game_start`` where each game's rows begin."""

    run: int
    columns: dict[str, np.ndarray]
    unit: np.ndarray
    game_start: np.ndarray

    def __len__(self) -> int:
        return len(self.unit)


class RunStream:
    """Run folders read a row group at a time (:func:`open_runs`). ``labels``: spec -> the
    report's label (set by the report before reading); ``names``: each string column's
    names seen so far, the codes of the batches point into them."""

    def __init__(self, runs: Sequence[_Run]) -> None:
        self.runs = list(runs)
        self.paths = [ensure_columns(run.folder) for run in self.runs]
        self.labels: dict[str, str] = {}
        #: the specs (labels) in the order of the frame's categories (their names as played,
        #: sorted), set with the labels
        self.spec_order: list[str] = []
        #: each run's specs (labels), set with the labels
        self.run_specs: list[set[str]] = []
        self.names: dict[str, list[str]] = {}
        self._codes: dict[str, dict[str, int]] = {}
        self._units: list[np.ndarray] = []
        self.units = 0
        #: each run's first deal unit (and, last, the number of units); its player counts
        self.first_unit: list[int] = []
        self.counts: list[set[int]] = []
        with _system_allocator():
            self._deal_units()

    def _deal_units(self) -> None:
        """Each run's deals present, numbered over the runs in (run, deal) order."""
        import pyarrow.parquet as pq

        offset = 0
        for path in self.paths:
            source = pq.ParquetFile(path)
            present = np.zeros(0, dtype=bool)
            counts: set[int] = set()
            for group in range(source.num_row_groups):
                table = _read_group(source, group, ["deal", "num_players"])
                deal = table.column(0).to_numpy()
                counts.update(int(k) for k in np.unique(table.column(1).to_numpy()))
                if len(deal) and deal.max() >= len(present):
                    present = np.pad(present, (0, int(deal.max()) + 1 - len(present)))
                present[deal] = True
            self._units.append(np.cumsum(present) - 1 + offset)
            self.first_unit.append(offset)
            self.counts.append(counts)
            offset += int(present.sum())
        self.first_unit.append(offset)
        self.units = offset

    def sums(self, runs: Iterable[int], labels: int) -> UnitSums:
        """Sums per deal unit of ``runs`` and label (0 .. ``labels`` - 1)."""
        return UnitSums(self, runs, labels)

    def column_names(self) -> list[str]:
        """The columns of the runs' frame, in its order (a column some runs lack goes where
        the loader puts it)."""
        import pyarrow.parquet as pq

        from .columns import _merged_order

        return _merged_order([pq.read_schema(path).names for path in self.paths])

    def grouped(self, keys: Sequence[str], values: Sequence[str], *, known: str | None = None,
                missing: float = np.nan) -> pd.DataFrame:
        """``frame.groupby(keys)`` summed, from the batches: per group (the keys' values; a
        string key by its names) ``rows`` and, for each of ``values``, its sum over the
        rows where it is not missing (``sum:NAME``) and those rows (``n:NAME``). ``known``:
        only the rows where that column is not missing. A run that lacks a value column
        gives ``missing`` there (the loader's filler: NaN, or 0 for counts)."""
        totals: dict[tuple[Any, ...], np.ndarray] = {}
        width = 1 + 2 * len(values)
        for batch in self.batches([*keys, *values]):
            cols = batch.columns
            keep = np.ones(len(batch), dtype=bool)
            if known is not None:
                keep = ~np.isnan(cols[known].astype(float)) if known in cols else ~keep
            if not keep.any():
                continue
            # the keys (small non-negative integers and codes) as one integer, counted
            parts = [cols[k][keep].astype(np.int64) for k in keys]
            bases = [int(p.max()) + 1 for p in parts]
            combined = np.zeros(len(parts[0]), dtype=np.int64)
            for part, base in zip(parts, bases, strict=True):
                combined = combined * base + part
            present = np.bincount(combined) > 0
            of_row = (np.cumsum(present) - 1)[combined]
            flat = np.flatnonzero(present)
            groups = np.zeros((len(flat), len(keys)), dtype=np.int64)
            for i in range(len(keys) - 1, -1, -1):
                flat, groups[:, i] = np.divmod(flat, bases[i])
            block = np.zeros((len(groups), width))
            block[:, 0] = np.bincount(of_row, minlength=len(groups))
            for i, name in enumerate(values):
                value = cols[name][keep].astype(float) if name in cols else \
                    np.full(int(keep.sum()), missing)
                seen = ~np.isnan(value)
                block[:, 1 + 2 * i] = np.bincount(of_row[seen], weights=value[seen], minlength=len(groups))
                block[:, 2 + 2 * i] = np.bincount(of_row[seen], minlength=len(groups))
            for group, row in zip(map(tuple, groups.tolist()), block, strict=True):
                totals[group] = totals[group] + row if group in totals else row
        names = ["rows"] + [f"{kind}:{name}" for name in values for kind in ("sum", "n")]
        index = [tuple(self.names[k][c] if k in STRINGS else c for k, c in zip(keys, g, strict=True))
                 for g in totals]
        out = pd.DataFrame(list(totals.values()), columns=names,
                           index=pd.MultiIndex.from_tuples(index, names=list(keys)) if index else None)
        return out

    def set_labels(self, labels: dict[str, str], specs: Iterable[str]) -> None:
        """Specs by their report labels from now on (the codes of specs start again);
        ``specs``: every spec as played."""
        self.labels = dict(labels)
        self.spec_order = list(dict.fromkeys(labels.get(s, s) for s in sorted(specs)))
        self.names.pop("spec", None)
        self._codes.pop("spec", None)

    def code(self, column: str, names: Iterable[str]) -> np.ndarray:
        """The stream's codes of ``names`` in ``column`` (new names get new codes)."""
        known = self._codes.setdefault(column, {})
        listed = self.names.setdefault(column, [])
        out = []
        for name in names:
            if name not in known:
                known[name] = len(listed)
                listed.append(name)
            out.append(known[name])
        return np.asarray(out, dtype=np.int64)

    def batches(self, columns: Sequence[str], runs: Iterable[int] | None = None) -> Iterator[Batch]:
        """The runs' row groups in order, each with ``columns`` (those the file has; a name
        ending in ":" takes every column of that prefix)."""
        # arrow's buffers from the system allocator while the stream reads: arrow's own keeps
        # the pages of every row group read, tens of MB held on to
        with _system_allocator():
            yield from self._batches(columns, None if runs is None else set(runs))

    def _batches(self, columns: Sequence[str], runs: set[int] | None) -> Iterator[Batch]:
        import pyarrow.parquet as pq

        for index, (run, path) in enumerate(zip(self.runs, self.paths, strict=True)):
            if runs is not None and index not in runs:
                continue
            source = pq.ParquetFile(path)
            have = source.schema_arrow.names
            prefixes = tuple(c for c in columns if c.endswith(":"))
            wanted = [c for c in have if (c in columns or (prefixes and c.startswith(prefixes)))
                      and c not in PLACE]
            for group in range(source.num_row_groups):
                batch = self._batch(index, run, _read_group(source, group, [*PLACE, *wanted]), wanted)
                yield batch
                del batch
            release_memory()

    def _batch(self, index: int, run: _Run, table: Any, wanted: list[str]) -> Batch:
        import pyarrow.compute as pc

        out: dict[str, np.ndarray] = {}
        for name in (*PLACE, *wanted):
            column = table.column(name)
            if name in STRINGS:
                encoded = pc.dictionary_encode(column.combine_chunks())
                names = [str(n) for n in encoded.dictionary.to_pylist()]
                if name == "spec":
                    names = [self.labels.get(s, s) for s in (run.as_played.get(n, n) for n in names)]
                out[name] = self.code(name, names)[encoded.indices.to_numpy(zero_copy_only=False)]
            else:
                out[name] = column.to_numpy()
        record = out["record"]
        start = np.flatnonzero(np.r_[True, record[1:] != record[:-1]]) if len(record) else \
            np.zeros(0, dtype=np.int64)
        return Batch(index, out, self._units[index][out["deal"]], start)


class UnitSums:
    """Sums per deal unit and label over the units of some runs (a block of each run's
    units, in the runs' order), added a batch at a time: ``values`` named sums, and
    ``rows``, the rows counted."""

    def __init__(self, stream: RunStream, runs: Iterable[int], labels: int) -> None:
        self.labels = labels
        self.start: dict[int, int] = {}
        size = 0
        for run in sorted(set(runs)):
            self.start[run] = size - stream.first_unit[run]
            size += stream.first_unit[run + 1] - stream.first_unit[run]
        self.size = size
        self.rows = np.zeros(size * labels)
        self.values: dict[str, np.ndarray] = {}

    def add(self, batch: Batch, keep: np.ndarray | slice, label: np.ndarray,
            **values: np.ndarray) -> None:
        """The rows ``keep`` of a batch (of one of the runs), with their labels and values."""
        index = (batch.unit[keep] + self.start[batch.run]) * self.labels + label
        n = self.size * self.labels
        add_counts(self.rows, index)
        for name, value in values.items():
            if name not in self.values:
                self.values[name] = np.zeros(n)
            add_counts(self.values[name], index, value)

    def table(self, name: str | None = None) -> np.ndarray:
        """Units x labels: the rows counted (``name`` None) or a value's sums."""
        flat = self.rows if name is None else self.values.get(name, np.zeros(len(self.rows)))
        return flat.reshape(self.size, self.labels)


def add_counts(target: np.ndarray, index: np.ndarray, weights: np.ndarray | None = None) -> None:
    """``target[i] +=`` the rows at ``i`` (or their ``weights``), counted over the span of
    the indices only: a batch of a run in deal order touches a few of its deals, not all."""
    if not len(index):
        return
    low, high = int(index.min()), int(index.max()) + 1
    target[low:high] += np.bincount(index - low, weights=weights, minlength=high - low)


def open_runs(paths: Iterable[str | os.PathLike[str]]) -> RunStream | None:
    """A :class:`RunStream` over the runs, or None when some run is not read from its
    columns file (see the module docstring): the report then reads frames."""
    from .load import _COLUMNS_ON, RECORD_VERSIONS

    runs = [_Run(p) for p in paths]
    if not runs or not _COLUMNS_ON or not all(run.columnar for run in runs):
        return None
    _labels(runs)
    try:
        stream = RunStream(runs)
        for run, path in zip(runs, stream.paths, strict=True):
            run.read_metadata(path)
            with _system_allocator():
                twice = _recorded_twice(path)
            if twice or any(v not in RECORD_VERSIONS for v in run.record_versions):
                return None
    except (_ReadRecords, OSError):
        return None
    return stream


def _recorded_twice(path: Any) -> bool:
    """Whether some game (deal, pairing, rotation) of a columns file has two records: the
    frame's reader keeps the first and warns; the stream leaves such runs to it. One
    integer a game."""
    import pyarrow.parquet as pq

    source = pq.ParquetFile(path)
    keys = []
    for group in range(source.num_row_groups):
        table = _read_group(source, group, ["record", "deal", "pairing", "rotation"])
        record, deal, pairing, rotation = (table.column(i).to_numpy().astype(np.int64) for i in range(4))
        first = np.r_[True, record[1:] != record[:-1]] if len(record) else np.zeros(0, dtype=bool)
        keys.append((deal[first] << 24) | (pairing[first] << 12) | rotation[first])
    every = np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64)
    return len(np.unique(every)) < len(every)


def _read_group(source: Any, group: int, columns: list[str]) -> Any:
    """One row group's columns, on this thread."""
    return source.read_row_group(group, columns=columns, use_threads=False)
