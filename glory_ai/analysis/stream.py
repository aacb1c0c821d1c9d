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

import copy
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .columns import STRINGS, Checked, _system_allocator, ensure_columns, release_memory, trusted_columns
from .load import _labels, _ReadRecords, _Run

__all__ = ["Batch", "Fold", "NotStreamed", "Out", "RunStream", "UnitSums", "add_counts", "counts_at",
           "open_runs"]

#: rows a batch reads at most (and the rest of a game): a few MB of columns, whatever the
#: file's row groups
BATCH_ROWS = 8_192
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

    def __init__(self, runs: Sequence[_Run], client: Any = None,
                 checked: Sequence[Checked] | None = None) -> None:
        self.runs = list(runs)
        # the columns files the workers checked: trusted where unchanged since
        self.paths = [ensure_columns(run.folder) for run in self.runs] if checked is None \
            else [trusted_columns(c) for c in checked]
        #: a ``distributed.Client``: the folds run on its workers, a task per run
        self.client = client
        #: (string column, run) whose names have codes here already (:meth:`_register`)
        self._registered: set[tuple[str, int]] = set()
        #: a worker's copy reads these runs only
        self._only: set[int] | None = None
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
        #: whether some run has a game recorded twice (open_runs then reads frames)
        self.twice = False
        if client is None:
            facts = [_run_facts(path) for path in self.paths]
        else:
            facts = client.gather(client.map(_run_facts, self.paths, pure=False))
        self._deal_units(facts)

    def _deal_units(self, facts: list[tuple[np.ndarray, set[int], bool]]) -> None:
        """Each run's deals present, numbered over the runs in (run, deal) order."""
        offset = 0
        for present, counts, twice in facts:
            self.twice = self.twice or twice
            self._units.append(np.cumsum(present) - 1 + offset)
            self.first_unit.append(offset)
            self.counts.append(counts)
            offset += int(present.sum())
        self.first_unit.append(offset)
        self.units = offset

    def deals(self, run: int) -> np.ndarray:
        """The deal numbers of a run's deal units, in order."""
        units = self._units[run]
        return np.flatnonzero(np.diff(np.r_[self.first_unit[run] - 1, units]) > 0)

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
        fold = _Grouped(list(keys), list(values), known, missing)
        self.fold([*keys, *values], fold)
        totals = fold.totals
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

    def fold(self, columns: Sequence[str], fold: Fold, runs: Iterable[int] | None = None) -> None:
        """``fold.add`` of every batch of ``runs`` (default all) with ``columns``, in order.
        With a client the adds run in its workers, a task per run on a copy of the fold
        without its sums (:meth:`Fold.light`); what they add comes back and is added here in
        the runs' order, each addition as here: the same sums to the last bit."""
        if self.client is None:
            for batch in self.batches(columns, runs):
                fold.add(batch, fold.apply)
            fold.finish(fold.apply)
            return
        chosen = [r for r in range(len(self.runs)) if runs is None or r in set(runs)]
        self._register([c for c in dict.fromkeys([*PLACE, *columns]) if c in STRINGS], chosen)

        def submit(r: int) -> Any:
            # a copy each: a task's fold may hold its run's state (workers in threads share objects)
            return self.client.submit(_fold_run, self._for_worker(r), list(columns), fold.light(), pure=False)

        # a few runs ahead of the one added here: the workers hold no more results than that
        ahead = 2 * max(1, len(self.client.scheduler_info().get("workers", {})))
        pending = [submit(r) for r in chosen[:ahead]]
        for r in chosen[ahead:] + [None] * min(ahead, len(chosen)):
            future = pending.pop(0)
            if r is not None:
                pending.append(submit(r))
            for op in future.result():
                fold.apply(*op)
            future.release()
            del future

    def _register(self, columns: list[str], runs: list[int]) -> None:
        """Codes for every name of the string ``columns`` in ``runs``, given in the order
        the batches of those runs read here would give them: the workers then code their
        batches as this process would."""
        assert self.client is not None
        todo = [c for c in columns if any((c, r) not in self._registered for r in runs)]
        if not todo:
            return
        futures = [self.client.submit(_names_in, self.paths[r], todo, pure=False) for r in runs]
        for r, future in zip(runs, futures, strict=True):
            names = future.result()
            for column in todo:
                found = names[column]
                if column == "spec":
                    found = [self.labels.get(s, s) for s in (self.runs[r].as_played.get(n, n) for n in found)]
                self.code(column, found)
                self._registered.add((column, r))

    def _for_worker(self, run: int) -> RunStream:
        """A copy that reads ``run`` alone, with this stream's codes (its own copy of them)."""
        out = copy.copy(self)
        out.client = None
        out._only = {run}
        out._units = [u if i == run else u[:0] for i, u in enumerate(self._units)]
        out.names = {k: list(v) for k, v in self.names.items()}
        out._codes = {k: dict(v) for k, v in self._codes.items()}
        out._registered = set()
        return out

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
            import pyarrow as pa

            held: Batch | None = None
            parts = source.iter_batches(batch_size=BATCH_ROWS, columns=[*PLACE, *wanted], use_threads=False)
            for part in parts:
                batch = self._batch(index, run, pa.Table.from_batches([part]), wanted)
                if held is not None:
                    batch = _joined(held, batch)
                # the rows of its last game go with the next batch: whole games in each
                last = int(batch.game_start[-1]) if len(batch) else 0
                held = _cut(batch, slice(last, None))
                if last:
                    yield _cut(batch, slice(0, last))
                del batch
            if held is not None and len(held):
                yield held
            del held
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


#: what a fold adds: ``out(field, at, value)``, ``at`` an index into the field (None: the
#: field itself)
Out = Callable[[str, Any, Any], None]


class Fold:
    """Sums added a batch at a time (:meth:`RunStream.fold`). :meth:`add` says what to add
    by calling ``out(field, at, value)``; :meth:`apply` adds it. ``add`` reads the fold's
    settings, never its sums (:attr:`SUMS`): on a cluster it runs on a copy without them.
    An ``at`` that is a slice (or a tuple ending in one) with an array of counts is for sums
    per deal unit, which no two runs add to: a worker adds up a run's spans before sending
    them (:class:`_Ops`)."""

    SUMS: tuple[str, ...] = ()

    def add(self, batch: Batch, out: Out) -> None:
        raise NotImplementedError

    def finish(self, out: Out) -> None:
        """After the last batch (of each run, on a cluster): what is held back, said."""

    def apply(self, field: str, at: Any, value: Any) -> None:
        """``self.field[at] += value`` (``at`` None: ``self.field += value``)."""
        if at is None:
            setattr(self, field, getattr(self, field) + value)
        else:
            getattr(self, field)[at] += value

    def light(self) -> Fold:
        """A copy without the sums, for the workers."""
        out = copy.copy(self)
        for name in self.SUMS:
            setattr(out, name, None)
        return out


class _Grouped(Fold):
    """:meth:`RunStream.grouped`'s sums per group: ``totals`` group -> rows, sums, counts."""

    SUMS = ("totals",)

    def __init__(self, keys: list[str], values: list[str], known: str | None, missing: float) -> None:
        self.keys, self.values, self.known, self.missing = keys, values, known, missing
        self.totals: dict[tuple[Any, ...], np.ndarray] = {}

    def apply(self, field: str, at: Any, value: Any) -> None:
        for group, row in zip(map(tuple, at.tolist()), value, strict=True):
            self.totals[group] = self.totals[group] + row if group in self.totals else row

    def add(self, batch: Batch, out: Out) -> None:
        cols, keys, values = batch.columns, self.keys, self.values
        keep = np.ones(len(batch), dtype=bool)
        if self.known is not None:
            keep = ~np.isnan(cols[self.known].astype(float)) if self.known in cols else ~keep
        if not keep.any():
            return
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
        block = np.zeros((len(groups), 1 + 2 * len(values)))
        block[:, 0] = np.bincount(of_row, minlength=len(groups))
        for i, name in enumerate(values):
            value = cols[name][keep].astype(float) if name in cols else np.full(int(keep.sum()), self.missing)
            seen = ~np.isnan(value)
            block[:, 1 + 2 * i] = np.bincount(of_row[seen], weights=value[seen], minlength=len(groups))
            block[:, 2 + 2 * i] = np.bincount(of_row[seen], minlength=len(groups))
        out("totals", groups, block)


def _fold_run(stream: RunStream, columns: list[str], fold: Fold) -> list[tuple[str, Any, Any]]:
    """A worker's task: what ``fold`` adds for each batch of the one run of ``stream``."""
    ops = _Ops()
    known = {k: len(v) for k, v in stream.names.items()}
    for batch in stream.batches(columns, stream._only):
        fold.add(batch, ops)
    fold.finish(ops)
    if any(len(stream.names[k]) != n for k, n in known.items()) or set(stream.names) - set(known):
        raise RuntimeError("a worker met a name the client had not coded")
    return ops.said()


class _Ops:
    """What a fold adds on a worker, to be added in the client in the same order. Spans of
    counts (``at`` a slice, or a tuple ending in one) are added up here into one array per
    stretch of overlapping spans: each element gets the same additions in the same order,
    from zero (a run's deal units are its own), and is added once in the client. A stretch
    grows by a quarter at a time (a span past its end, as a run's deals come in order, is
    added in place); it is sent in int32 when its counts are integers that fit, and as its
    nonzero elements and their places when that is smaller (adding a zero changes no sum).
    :meth:`said` once, at the end."""

    def __init__(self) -> None:
        self.ops: list[tuple[str, Any, Any]] = []
        #: (field, the rest of ``at``) -> its stretches, in order
        self.spans: dict[tuple[str, Any], list[_Stretch]] = {}

    def __call__(self, field: str, at: Any, value: Any) -> None:
        where = at[-1] if isinstance(at, tuple) and at else at
        if not (isinstance(where, slice) and where.start is not None and where.step is None
                and isinstance(value, np.ndarray) and value.ndim == 1):
            self.ops.append((field, at, value))
            return
        stretches = self.spans.setdefault((field, at[:-1] if isinstance(at, tuple) else None), [])
        low, high = where.start, where.start + len(value)
        hit = [st for st in stretches if low <= st.start + st.size and st.start <= high]
        if len(hit) == 1 and hit[0].start <= low:
            hit[0].add(low, value)
            return
        # the stretches it touches (apart from one another) and the span, in one
        start = min([low, *(st.start for st in hit)])
        joined = _Stretch(start, max([high, *(st.start + st.size for st in hit)]) - start,
                          np.result_type(value, *(st.counts for st in hit)))
        for st in hit:
            joined.counts[st.start - start:st.start - start + st.size] = st.counts[:st.size]
            stretches.remove(st)
        joined.add(low, value)
        stretches.append(joined)

    def said(self) -> list[tuple[str, Any, Any]]:
        out = list(self.ops)
        while self.spans:
            # each field's stretches freed once said (in the order met)
            field, rest = key = next(iter(self.spans))
            stretches = self.spans.pop(key)
            # a place per element only where ``rest`` holds no slice or array to mix with it
            by_place = rest is None or not any(isinstance(r, (slice, np.ndarray)) for r in rest)
            while stretches:
                st = stretches.pop(0)
                counts = _narrow(st.counts[:st.size])
                where: Any = slice(st.start, st.start + st.size)
                nonzero = np.flatnonzero(counts)
                if by_place and len(nonzero) * (4 + counts.itemsize) < len(counts) * counts.itemsize:
                    where, counts = _narrow(nonzero + st.start), counts[nonzero]
                elif counts.base is not None:
                    counts = counts.copy()          # not the rest of the stretch's buffer
                out.append((field, where if rest is None else (*rest, where), counts))
                del st
        return out


class _Stretch:
    """Counts from ``start`` on: ``counts[:size]`` (the buffer beyond, zeros)."""

    def __init__(self, start: int, size: int, dtype: Any) -> None:
        self.start, self.size = start, size
        self.counts = np.zeros(size, dtype=dtype)

    def add(self, low: int, value: np.ndarray) -> None:
        """``value`` added from ``low`` (not before the start), the stretch grown to hold it."""
        end = low - self.start + len(value)
        dtype = np.result_type(self.counts, value)
        if end > len(self.counts) or dtype != self.counts.dtype:
            grown = np.zeros(max(end, len(self.counts) + len(self.counts) // 4), dtype=dtype)
            grown[:self.size] = self.counts[:self.size]
            self.counts = grown
        self.size = max(self.size, end)
        self.counts[low - self.start:end] += value


def _narrow(values: np.ndarray) -> np.ndarray:
    """Integers in 4 bytes when they fit (exact: the client adds them to its own sums)."""
    if values.dtype.kind in "iu" and values.dtype.itemsize > 4 and len(values) \
            and values.min() >= np.iinfo(np.int32).min and values.max() <= np.iinfo(np.int32).max:
        return values.astype(np.int32)
    return values


def _names_in(path: Any, columns: list[str]) -> dict[str, list[str]]:
    """A worker's task: each string column's names in a columns file, in the order its row
    groups give them first (as :meth:`RunStream._batch` meets them)."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    out: dict[str, dict[str, None]] = {c: {} for c in columns}
    with _system_allocator():
        source = pq.ParquetFile(path)
        have = [c for c in columns if c in source.schema_arrow.names]
        for group in range(source.num_row_groups):
            table = _read_group(source, group, have)
            for name in have:
                encoded = pc.dictionary_encode(table.column(name).combine_chunks())
                out[name].update(dict.fromkeys(str(n) for n in encoded.dictionary.to_pylist()))
    return {c: list(names) for c, names in out.items()}


def _run_facts(path: Any) -> tuple[np.ndarray, set[int], bool]:
    """A columns file's deals present (a mask by deal), its player counts and whether some
    game (deal, pairing, rotation) has two records (the frame's reader keeps the first and
    warns; the stream leaves such runs to it): one pass over the file, one integer a game."""
    import pyarrow.parquet as pq

    with _system_allocator():
        source = pq.ParquetFile(path)
        present = np.zeros(0, dtype=bool)
        counts: set[int] = set()
        keys = []
        for group in range(source.num_row_groups):
            table = _read_group(source, group, ["record", "deal", "pairing", "rotation", "num_players"])
            record, deal, pairing, rotation = (table.column(i).to_numpy().astype(np.int64) for i in range(4))
            counts.update(int(k) for k in np.unique(table.column(4).to_numpy()))
            if len(deal) and deal.max() >= len(present):
                present = np.pad(present, (0, int(deal.max()) + 1 - len(present)))
            present[deal] = True
            first = np.r_[True, record[1:] != record[:-1]] if len(record) else np.zeros(0, dtype=bool)
            keys.append((deal[first] << 24) | (pairing[first] << 12) | rotation[first])
        every = np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64)
    return present, counts, len(np.unique(every)) < len(every)


def _cut(batch: Batch, rows: slice) -> Batch:
    """Some rows of a batch (whole games)."""
    start = batch.game_start - (rows.start or 0)
    start = start[(start >= 0) & (start < len(batch.unit[rows]))]
    return Batch(batch.run, {k: v[rows] for k, v in batch.columns.items()}, batch.unit[rows], start)


def _joined(first: Batch, then: Batch) -> Batch:
    """Two batches of a run's rows, one after the other."""
    columns = {k: np.concatenate([first.columns[k], v]) for k, v in then.columns.items()}
    record = columns["record"]
    start = np.flatnonzero(np.r_[True, record[1:] != record[:-1]]) if len(record) else np.zeros(0, np.int64)
    return Batch(then.run, columns, np.concatenate([first.unit, then.unit]), start)


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

    def add(self, batch: Batch, keep: np.ndarray | slice, label: np.ndarray, out: Out | None = None,
            **values: np.ndarray) -> None:
        """The rows ``keep`` of a batch (of one of the runs), with their labels and values:
        added (``out`` None) or said to ``out`` as (name, at, counts) for :meth:`apply`."""
        index = (batch.unit[keep] + self.start[batch.run]) * self.labels + label
        for name, weights in (("", None), *values.items()):
            span = counts_at(index, weights)
            if span is not None:
                (out or self.apply)(name, *span)

    def apply(self, name: str, at: Any, value: np.ndarray) -> None:
        """The rows counted (``name`` empty) or a value's sums, ``[at] += value``."""
        if name and name not in self.values:
            self.values[name] = np.zeros(len(self.rows))
        (self.values[name] if name else self.rows)[at] += value

    def light(self) -> UnitSums:
        """A copy without the sums: its :meth:`add` with ``out`` reads where the units go."""
        out = copy.copy(self)
        out.rows, out.values = np.zeros(0), {}
        return out

    def table(self, name: str | None = None) -> np.ndarray:
        """Units x labels: the rows counted (``name`` None) or a value's sums."""
        flat = self.rows if name is None else self.values.get(name, np.zeros(len(self.rows)))
        return flat.reshape(self.size, self.labels)


def add_counts(target: np.ndarray, index: np.ndarray, weights: np.ndarray | None = None) -> None:
    """``target[i] +=`` the rows at ``i`` (or their ``weights``), counted over the span of
    the indices only: a batch of a run in deal order touches a few of its deals, not all."""
    span = counts_at(index, weights)
    if span is not None:
        target[span[0]] += span[1]


def counts_at(index: np.ndarray, weights: np.ndarray | None = None) -> tuple[slice, np.ndarray] | None:
    """What :func:`add_counts` adds: the span of the indices and the counts over it (None
    when there are no indices)."""
    if not len(index):
        return None
    low, high = int(index.min()), int(index.max()) + 1
    return slice(low, high), np.bincount(index - low, weights=weights, minlength=high - low)


def open_runs(paths: Iterable[str | os.PathLike[str]], client: Any = None,
              checked: Sequence[Checked] | None = None) -> RunStream | None:
    """A :class:`RunStream` over the runs, or None when some run is not read from its
    columns file (see the module docstring): the report then reads frames. ``client``: a
    ``distributed.Client`` whose workers read the batches (:meth:`RunStream.fold`);
    ``checked``: each run's columns file as its worker checked it
    (:func:`~glory_ai.analysis.columns.checked_columns`), not checked again here."""
    from .load import _COLUMNS_ON, RECORD_VERSIONS

    runs = [_Run(p) for p in paths]
    if not runs or not _COLUMNS_ON or not all(run.columnar for run in runs):
        return None
    _labels(runs)
    try:
        stream = RunStream(runs, client, checked)
        if stream.twice:
            return None
        for run, path in zip(runs, stream.paths, strict=True):
            run.read_metadata(path)
            if any(v not in RECORD_VERSIONS for v in run.record_versions):
                return None
    except (_ReadRecords, OSError):
        return None
    release_memory()            # the reader's buffers, given back before the sections
    return stream


def _read_group(source: Any, group: int, columns: list[str]) -> Any:
    """One row group's columns, on this thread."""
    return source.read_row_group(group, columns=columns, use_threads=False)
