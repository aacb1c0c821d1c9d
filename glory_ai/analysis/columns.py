"""The per-game facts of a run as columns: ``games.parquet`` beside its records (docs/analysis.md,
"The columns of a run").

The game records (``games.jsonl``, ``games.jsonl.gz``) stay the source of truth: they hold the
actions, for replay and verify. What the statistics read of them — the columns of
:func:`glory_ai.analysis.load.load_runs`, one row per game per seat — is derived once, in a
stream (memory bounded by a chunk of records, whatever the run's size), and written as an
Apache Parquet file (pyarrow; one row group per chunk, zstd). The file records what it was
made from: the records file's name, size, modification time and stored checksum. A file that
no longer matches its records (a run resumed, a file repaired), or one that cannot be read, is
never trusted: it is made again from the records.

A run still being written gets a new columns file whenever it is read after games were
added (the records' size and time change). Where the run folder cannot be written (a
read-only copy), the file goes to the user's cache (``$XDG_CACHE_HOME/glory_ai/columns``,
keyed by the records' identity).

A columns file holds the rows in file order, repeats included, with ``record`` (the record's
place in the file); :func:`read_run` sorts them by (deal, pairing, rotation, seat) and keeps
each game's first record, as the record reader does. Per-run facts (the config, the record
and package versions) are in the file's metadata.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..arena import ArenaError, storage
from ..arena.files import COLUMNS_FILE
from ..arena.integrity import check_plan
from . import AnalysisError

__all__ = ["COLUMNS_FILE", "FORMAT", "Checked", "ColumnsWriter", "RowOrder", "checked_columns",
           "columns_path", "ensure_columns", "read_run", "release_memory", "row_order", "stale_reason",
           "trusted_columns"]

log = logging.getLogger("glory_ai.analysis")

#: the layout of a columns file (a change makes every file stale)
FORMAT = 1
_META_KEY = b"glory_ai.columns"
#: the columns made per load, not stored (the run's label and the game numbers over the runs)
NOT_STORED = ("run", "game", "variant_dict")
#: stored as plain strings; made categorical at load as load_runs makes them
STRINGS = ("game_id", "mode", "variant", "rules", "spec", "end_reason")
#: per-seat counts a record may lack (NaN there): stored as floats, integers again at load
#: when none is missing
MAYBE_MISSING = ("seat_decisions",)
#: records per chunk (a row group): about 20 MB of parsed records
CHUNK = 16_384


def _records_identity(games_path: Path) -> dict[str, Any]:
    stat = games_path.stat()
    digest = storage.stored_digest(games_path)
    return {"file": games_path.name, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns,
            "sha256_sum": (digest or {}).get("sha256_sum"), "format": FORMAT}


def _cache_folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "glory_ai" / "columns"


def columns_path(folder: str | os.PathLike[str]) -> Path:
    """Where the columns of the run in ``folder`` live: beside its records when the folder
    can be written, else in the user's cache (named by the records' path and identity)."""
    folder = Path(folder)
    if os.access(folder, os.W_OK):
        return folder / COLUMNS_FILE
    games = storage.games_file(folder)
    key = json.dumps([str(games.resolve()), _records_identity(games)], sort_keys=True)
    return _cache_folder() / (hashlib.sha256(key.encode()).hexdigest()[:24] + ".parquet")


def _metadata(path: Path) -> dict[str, Any] | None:
    import pyarrow.parquet as pq

    try:
        meta = pq.read_schema(path).metadata or {}
        return json.loads(meta[_META_KEY])
    except (OSError, KeyError, ValueError, TypeError) as error:
        log.debug("%s: not a usable columns file (%s)", path, error)
        return None


def stale_reason(folder: str | os.PathLike[str]) -> str | None:
    """Why the columns file of a run folder cannot be trusted (missing, unreadable, made
    from other records or by another layout), or None when it matches its records."""
    folder = Path(folder)
    path = columns_path(folder)
    if not path.exists():
        return "no columns file"
    meta = _metadata(path)
    if meta is None:
        return "the columns file cannot be read"
    if meta.get("records") != _records_identity(storage.games_file(folder)):
        return "the records changed since the columns were made"
    return None


def _chunk_table(records: list[dict[str, Any]], first: int, variants: dict[str, Any]) -> Any:
    """The stored columns of a chunk of records: their analysis frame without the per-load
    columns, strings plain, and ``record``, the records' places in the file; ``variants``
    gets each variant key's options (per game in the frame, kept once per run)."""
    import pyarrow as pa

    from .frame import frame_of_records

    frame = frame_of_records(records, label="run")
    for key, options in zip(frame["variant"].astype(str), frame["variant_dict"], strict=True):
        variants.setdefault(key, options)
    per_game = np.arange(first, first + len(records), dtype=np.int64)
    frame.insert(0, "record", per_game[frame["game"].to_numpy()])
    frame = frame.drop(columns=list(NOT_STORED))
    for name in STRINGS:
        frame[name] = frame[name].astype(str)
    for name in MAYBE_MISSING:
        frame[name] = frame[name].astype(np.float64)
    return pa.Table.from_pandas(frame, preserve_index=False)


def _unify(tables: list[Any]) -> list[Any]:
    """Tables of chunks with the same columns in the same order (a chunk whose records carry
    no ``roles_led``, or fewer building names, lacks some: they are added, missing)."""
    import pyarrow as pa

    names: list[str] = []
    types: dict[str, Any] = {}
    for table in tables:
        for field in table.schema:
            if field.name not in types:
                names.append(field.name)
                types[field.name] = field.type
    out = []
    for table in tables:
        columns = []
        for name in names:
            if name in table.column_names:
                columns.append(table.column(name))
            elif pa.types.is_boolean(types[name]):
                columns.append(pa.array(np.zeros(table.num_rows, dtype=bool)))
            else:
                columns.append(pa.nulls(table.num_rows, type=types[name]))
        out.append(pa.table(columns, names=names))
    return out


class _Parts:
    """The stored columns of a run's records, a chunk at a time, and the facts of its
    metadata (package and record versions, the variants' options)."""

    def __init__(self) -> None:
        self.versions: set[str] = set()
        self.record_versions: set[Any] = set()
        self.variants: dict[str, Any] = {}
        self.tables: list[Any] = []
        self.first = 0

    def add(self, records: list[dict[str, Any]]) -> None:
        self.versions.update(str(r["version"]) for r in records if r.get("version") is not None)
        self.record_versions.update(r.get("record_version", 1) for r in records)
        self.tables.append(_chunk_table(records, self.first, self.variants))
        self.first += len(records)

    def write(self, path: Path, identity: dict[str, Any]) -> None:
        """The columns file, written to a temporary file and renamed, so a reader never sees
        half of one."""
        import pyarrow.parquet as pq

        parts = _unify(self.tables)
        meta = {"records": identity, "games": self.first, "versions": sorted(self.versions),
                "record_versions": sorted(self.record_versions, key=str), "variants": self.variants}
        schema = parts[0].schema.with_metadata({_META_KEY: json.dumps(meta).encode()})
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".games-", suffix=".parquet.tmp", dir=path.parent)
        os.close(fd)
        try:
            with pq.ParquetWriter(tmp, schema, compression="zstd") as writer:
                for part in parts:
                    writer.write_table(part.cast(schema))
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def _exact_chunks(chunks: Iterable[list[dict[str, Any]]], size: int) -> Iterator[list[dict[str, Any]]]:
    """The records of ``chunks`` in lists of exactly ``size`` (the last one fewer): the row
    groups of a columns file then depend on its records alone, not on their bytes, so that
    the file :class:`ColumnsWriter` makes as a run writes is the one made from its records."""
    pending: list[dict[str, Any]] = []
    for chunk in chunks:
        pending.extend(chunk)
        while len(pending) >= size:
            yield pending[:size]
            del pending[:size]
    if pending:
        yield pending


def _derive(folder: Path, path: Path) -> None:
    """Make the columns file of a run from its records, in a stream."""
    games = storage.games_file(folder)
    identity = _records_identity(games)
    parts = _Parts()
    # a chunk's table is small (a few MB); the records themselves are dropped once tabled
    chunks = storage.iter_record_chunks(games, skip=storage.SKIPPABLE, size=CHUNK)
    for records in _exact_chunks(chunks, CHUNK):
        parts.add(records)
    if not parts.tables:
        raise AnalysisError(f"{games}: the run has no games")
    parts.write(path, identity)


class ColumnsWriter:
    """The columns file of a run made as the run writes its games, instead of reading them
    back after it (``compare``): given to ``run()`` as its stopping rule, it tables the
    records of each batch as they are appended (never stopping the run itself, or asking
    ``inner``, the run's own rule, such as its SPRT); :meth:`finish` then writes the file
    :func:`ensure_columns` would make from the records file (the same rows, row groups and
    metadata). The records are this arena's own, just played, so they are not checked
    against the schema again. A run that resumed games it did not see is left to
    :func:`ensure_columns`."""

    def __init__(self, inner: Any = None) -> None:
        self.inner = inner
        self._parts = _Parts()
        self._pending: list[dict[str, Any]] = []
        self._seen = 0

    def add(self, records: Sequence[Any]) -> object:
        # the fields the columns never read are dropped, as the reader skips them
        self._pending.extend({k: v for k, v in r.items() if k not in storage.SKIPPABLE} for r in records)
        self._seen += len(records)
        while len(self._pending) >= CHUNK:
            self._parts.add(self._pending[:CHUNK])
            del self._pending[:CHUNK]
        return self.inner.add(records) if self.inner is not None else False

    def to_dict(self) -> dict[str, Any]:
        return self.inner.to_dict() if self.inner is not None else {}

    def finish(self, result: Any) -> Path | None:
        """Write the columns file of the run ``result`` (a RunResult) ended with; its path,
        or None where the run resumed games (they were not seen here) or played none."""
        if result.out is None or result.resumed or not result.played or self._seen != result.played:
            return None
        if self._pending:
            self._parts.add(self._pending)
            self._pending = []
        path = columns_path(result.out)
        self._parts.write(path, _records_identity(storage.games_file(result.out)))
        return path


def ensure_columns(folder: str | os.PathLike[str]) -> Path:
    """The columns file of a finished run, made (or made again) when it does not match its
    records; AnalysisError when the records cannot be read (the error names the line) or the
    run's config.json was changed since its games were played."""
    folder = Path(folder)
    plan = check_plan(folder)
    if plan.problem and plan.plan:
        # a config.json edited since its games were played: neither the records nor the
        # columns made from them are read against it (glory_ai.arena.integrity)
        raise AnalysisError(plan.problem)
    path = columns_path(folder)
    reason = stale_reason(folder)
    if reason is not None:
        log.info("%s: %s; making it from the records", path, reason)
        try:
            _derive(folder, path)
        except ArenaError as error:
            raise AnalysisError(str(error)) from None
        except OSError as error:
            raise AnalysisError(f"{path}: cannot write the columns ({error.strerror or error})") from None
    return path


@dataclass(frozen=True)
class Checked:
    """A run's columns file as :func:`checked_columns` left it (made, or found to match its
    records): its ``path``, and the size and modification time of the files that tie it to
    its records (the columns file, the records, config.json with their checksum), as seen
    then."""

    folder: str
    path: Path
    seen: tuple[tuple[int, int], ...]


def _seen(folder: Path, path: Path) -> tuple[tuple[int, int], ...]:
    out = []
    for file in (path, storage.games_file(folder), folder / storage.CONFIG_FILE):
        stat = file.stat()
        out.append((stat.st_size, stat.st_mtime_ns))
    return tuple(out)


def checked_columns(folder: str | os.PathLike[str]) -> Checked:
    """:func:`ensure_columns`, and what ties the file to its records then (a Dask worker's
    task: the client then trusts the file without checking it again, :func:`trusted_columns`)."""
    path = ensure_columns(folder)
    return Checked(str(folder), path, _seen(Path(folder), path))


def trusted_columns(checked: Checked) -> Path:
    """The columns file checked elsewhere (:func:`checked_columns`, on a worker): trusted when
    it, its records and config.json are as they were then (the same size and modification
    time: a stat each, no file read); else checked here (:func:`ensure_columns`)."""
    folder = Path(checked.folder)
    try:
        if _seen(folder, checked.path) == checked.seen:
            return checked.path
    except OSError:
        pass
    return ensure_columns(folder)


@dataclass(frozen=True)
class RowOrder:
    """Where a columns file's rows go in the frame (:func:`read_run`): ``rows``, the file's
    rows to take, in order (each game's first record, sorted by deal, pairing, rotation and
    seat; None: all, as they are); ``games``, the game (0 ..) of each row taken;
    ``dropped``, the games recorded twice left out. ``identity``: the file it holds for."""

    identity: tuple[str, int, int]
    rows: np.ndarray | None
    games: np.ndarray
    dropped: int


def _identity(path: Path) -> tuple[str, int, int]:
    stat = path.stat()
    return str(path), stat.st_size, stat.st_mtime_ns


def _narrow(values: np.ndarray) -> np.ndarray:
    """Integers in 4 bytes when they fit (the sort keys of :func:`row_order`)."""
    if values.dtype.kind in "iu" and len(values) and values.dtype.itemsize > 4 \
            and values.min() >= np.iinfo(np.int32).min and values.max() <= np.iinfo(np.int32).max:
        return values.astype(np.int32)
    return values


def row_order(path: Path, source: Any = None) -> RowOrder:
    """The :class:`RowOrder` of a columns file: its sort keys read (a column at a time),
    ordered, each game's first record kept. Its arrays are 4 bytes a row."""
    import pyarrow.parquet as pq

    source = source if source is not None else pq.ParquetFile(path)
    keys = {name: _narrow(_column(source, name).to_numpy())
            for name in ("record", "deal", "pairing", "rotation", "seat")}
    # a file written in the sorted order already (a run played in deal order): the stable
    # sort would give every row its own place, and costs 8 bytes a row and a pass to find
    order = _file_order(keys)
    del keys["seat"]

    def placed(values: np.ndarray) -> np.ndarray:
        return values if order is None else values[order]

    # each game's first record (the reader keeps it, with a warning, for a game written twice):
    # a game starts where its (deal, pairing, rotation) or its record changes, and is the
    # first of its key where the key changes
    n = len(keys["deal"])
    new_key = np.zeros(n, dtype=bool)
    new_key[:1] = True
    for name in ("deal", "pairing", "rotation"):
        values = placed(keys.pop(name))
        new_key[1:] |= values[1:] != values[:-1]
        del values
    record = placed(keys.pop("record"))
    starts = new_key.copy()
    starts[1:] |= record[1:] != record[:-1]
    del record
    game_of_row = np.cumsum(starts) - 1
    first_of_key = new_key[starts]
    del new_key, starts
    dropped = int((~first_of_key).sum())
    if dropped:
        kept = first_of_key[game_of_row]
        order = np.flatnonzero(kept) if order is None else order[kept]
        game_of_row = game_of_row[kept]
    # the game of each row, 0 .. games - 1 in the run's order (game_of_row never decreases)
    changes = np.ones(len(game_of_row), dtype=bool)
    changes[1:] = game_of_row[1:] != game_of_row[:-1]
    games = (np.cumsum(changes) - 1).astype(np.int32)
    del changes, game_of_row
    if order is None:
        return RowOrder(_identity(path), None, games, dropped)
    index = np.int32 if len(order) < 2**31 else np.int64
    sorted_already = not dropped and bool((np.diff(order) > 0).all())
    return RowOrder(_identity(path), None if sorted_already else order.astype(index), games, dropped)


def _file_order(keys: dict[str, np.ndarray]) -> None | np.ndarray:
    """None when the rows are in (deal, pairing, rotation, record, seat) order as they are
    (the order :func:`row_order` sorts them in, a stable sort leaving them in place), else
    the sort itself. Checked pair by pair of neighbouring rows: a few bytes a row."""
    names = ("deal", "pairing", "rotation", "record", "seat")
    n = len(keys["deal"])
    if n < 2:
        return None
    tied = np.ones(n - 1, dtype=bool)          # the neighbours equal on the keys so far
    for name in names:
        values = keys[name]
        if (tied & (values[1:] < values[:-1])).any():
            return np.lexsort(tuple(keys[k] for k in reversed(names)))
        tied &= values[1:] == values[:-1]
    return None


def read_run(folder: str | os.PathLike[str], columns: Iterable[str] | None = None,
             orders: dict[str, RowOrder] | None = None) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The stored columns of a finished run (all, or those named that it has), its rows
    sorted by (deal, pairing, rotation, seat) with each game's first record only, and the
    file's metadata. ``record`` is dropped; string columns are categorical, their categories
    in order of first appearance (:func:`combine` orders them as the loader does).

    Read a column at a time, each put in order as it is read: the memory is the frame's and
    one column's, never a second copy of the whole table. ``orders``: a dict that keeps
    each file's :class:`RowOrder` between calls (a report reads a run once per section),
    so that the sort is made once."""
    path = ensure_columns(folder)
    with _system_allocator():
        return _read(path, columns, orders)


def _read(path: Path, columns: Iterable[str] | None, orders: dict[str, RowOrder] | None
          ) -> tuple[pd.DataFrame, dict[str, Any]]:
    import pyarrow.parquet as pq

    meta = _metadata(path) or {}
    source = pq.ParquetFile(path)
    have = source.schema_arrow.names
    if columns is None:
        wanted = list(have)
    else:
        named = set(columns)
        prefixes = tuple(c for c in named if c.endswith(":"))
        # in the file's order; a name ending in ":" takes every column of that prefix
        wanted = [c for c in have if c in named or (prefixes and c.startswith(prefixes))]
    order = None if orders is None else orders.get(str(path))
    if order is None or order.identity != _identity(path):
        order = row_order(path, source)
        if orders is not None:
            orders[str(path)] = order
    meta["dropped"] = order.dropped
    rows = order.rows
    out: dict[str, Any] = {}
    for name in wanted:
        if name == "record":
            continue
        if name in STRINGS:
            out[name] = _categorical(_column(source, name), rows)
            continue
        values = _column(source, name).to_pandas().to_numpy()
        values = values if rows is None else values[rows]
        if name in MAYBE_MISSING and not np.isnan(values).any():
            values = values.astype(np.int64)
        elif name == "completed":            # lists, as the records give them
            lists = np.empty(len(values), dtype=object)
            lists[:] = [list(v) for v in values]
            values = lists
        out[name] = values
    frame = pd.DataFrame(out, copy=False)
    _release_arrow_memory()
    frame["_game"] = order.games.astype(np.int64)
    return frame, meta


def _column(source: Any, name: str) -> Any:
    """One column of a Parquet file, whole (one chunk), read on this thread (arrow's reader
    threads each keep an arena of memory that the process holds on to)."""
    return source.read(columns=[name], use_threads=False).column(0).combine_chunks()


def _release_arrow_memory() -> None:
    """Give back to the system what arrow's allocator keeps of the columns just read (it
    holds freed pages for reuse: 36 MB of the report's peak at 10^5 games)."""
    release_memory()


def release_memory() -> None:
    """Give back to the system the free memory that arrow's allocator (pandas' strings are
    arrow's) and the C allocator (glibc's malloc) keep: the columns of a section, freed,
    stay in the process's resident memory otherwise, and the next section's peak comes on
    top of them."""
    global _TRIM
    import pyarrow as pa

    pa.default_memory_pool().release_unused()
    if _TRIM is None:
        import ctypes
        import ctypes.util

        try:
            _TRIM = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
        except (OSError, AttributeError):         # not glibc: nothing to trim
            _TRIM = False
    if _TRIM:
        _TRIM(0)


_TRIM: Any = None


@contextlib.contextmanager
def _system_allocator() -> Iterator[None]:
    """Arrow's buffers from the system allocator (malloc) while columns are read: arrow's
    own (mimalloc) keeps the pages it freed for reuse, a few hundred MB at 10^6 games that
    :func:`release_memory` then gives back. Arrow's default pool again afterwards."""
    import pyarrow as pa

    before = pa.default_memory_pool()
    pa.set_memory_pool(pa.system_memory_pool())
    try:
        yield
    finally:
        pa.set_memory_pool(before)


def _categorical(column: Any, rows: np.ndarray | None) -> pd.Categorical:
    """A string column (arrow) taken at ``rows`` (None: all), as categorical codes of its
    distinct values in order of first appearance, without a Python string per row."""
    import pyarrow.compute as pc

    encoded = pc.dictionary_encode(column)
    codes = encoded.indices.to_numpy(zero_copy_only=False)
    codes = codes if rows is None else codes[rows]
    names = encoded.dictionary.to_numpy(zero_copy_only=False)
    appearance = pd.unique(codes)             # the codes in order of first appearance
    recode = np.zeros(len(names), dtype=np.int64)
    recode[appearance] = np.arange(len(appearance))
    return pd.Categorical.from_codes(recode[codes], categories=names[appearance])


def _merged_order(orders: Sequence[Sequence[str]]) -> list[str]:
    """The columns of several frames in one order that keeps each frame's own: a column one
    frame lacks goes right after the column before it in a frame that has it."""
    merged: list[str] = []
    for order in orders:
        for i, name in enumerate(order):
            if name in merged:
                continue
            before = next((order[j] for j in range(i - 1, -1, -1) if order[j] in merged), None)
            merged.insert(0 if before is None else merged.index(before) + 1, name)
    return merged


def _joined(pieces: Sequence[pd.Series | None], sizes: Sequence[int], dtypes: dict[str, Any],
            name: str) -> Any:
    """One column's values over the runs, one after the other; a run that lacks it is filled
    as the record reader fills records without it (False for a building indicator, 0 VP for
    a variant's building points, missing for roles led)."""
    kind = dtypes[name].kind
    filler = False if kind == "b" else 0 if kind in "iu" else np.nan
    arrays = [p.to_numpy() if p is not None else np.full(n, filler)
              for p, n in zip(pieces, sizes, strict=True)]
    if all(isinstance(a.dtype, np.dtype) for a in arrays) and len({a.dtype for a in arrays}) == 1:
        return np.concatenate(arrays)
    # mixed types: as pandas.concat joins them
    return pd.concat([pd.Series(a) for a in arrays], ignore_index=True).to_numpy()


def combine(parts: Sequence[tuple[str, pd.DataFrame]]) -> dict[str, Any]:
    """The columns of the runs' stored columns (``parts``: label, frame), as load_runs builds
    them, in the frame's order: ``run`` first, then each column over the runs (one copy of
    each, a column at a time), strings categorical (specs, end reasons, modes, rules and
    variants sorted; game ids in order of appearance). The runs' frames are emptied, a
    column at a time, as their columns are joined."""
    sizes = [len(f) for _, f in parts]
    order = _merged_order([list(f.columns) for _, f in parts])
    dtypes = {name: f[name].dtype for _, f in parts for name in f.columns}
    out: dict[str, Any] = {"run": pd.Categorical.from_codes(np.repeat(np.arange(len(parts)), sizes),
                                                           categories=[label for label, _ in parts])}
    for name in order:
        pieces = [f[name] if name in f.columns else None for _, f in parts]
        if name in STRINGS:
            present = [p for p in pieces if p is not None]
            out[name] = _strings(present, sort=name != "game_id")
        elif len(parts) == 1:
            out[name] = pieces[0].to_numpy() if pieces[0] is not None else None
        else:
            out[name] = _joined(pieces, sizes, dtypes, name)
        # each run's copy is dropped once joined: the runs' columns and the joined ones are
        # never all in memory together
        del pieces
        for _, f in parts:
            if name in f.columns:
                del f[name]
    return out


def _strings(pieces: Sequence[pd.Series], sort: bool) -> pd.Categorical:
    """The runs' values of a string column one after the other, categorical: categories
    sorted, or (``sort`` false) in order of first appearance, as pandas.factorize numbers
    them; from each run's categories, not a Python string per row."""
    from pandas.api.types import union_categoricals

    cats = [p.array if isinstance(p.dtype, pd.CategoricalDtype) else pd.Categorical(
        p.to_numpy(dtype=object), categories=pd.unique(p.to_numpy(dtype=object))) for p in pieces]
    # a run's categories may hold a spec twice after its renaming as played: merged here
    cats = [c if c.categories.is_unique else pd.Categorical(
        np.asarray(c, dtype=object), categories=pd.unique(np.asarray(c, dtype=object))) for c in cats]
    joined = union_categoricals(cats, sort_categories=False) if len(cats) > 1 else cats[0]
    # the categories no row holds, dropped (pandas' remove_unused_categories, by counting
    # rather than sorting every row's code)
    codes = np.asarray(joined.codes)
    used = np.bincount(codes[codes >= 0], minlength=len(joined.categories)) > 0
    if not used.all():
        recode = np.cumsum(used) - 1
        joined = pd.Categorical.from_codes(np.where(codes >= 0, recode[np.maximum(codes, 0)], -1),
                                           categories=joined.categories[used])
    if sort:
        joined = joined.reorder_categories(sorted(joined.categories))
    # categories of the dtype pandas infers for an array of strings, as factorize gives them
    return pd.Categorical.from_codes(joined.codes, categories=np.asarray(joined.categories, dtype=object))
