"""The building table (:class:`.buildings.Buildings`) from sums read a row group at a time
(:mod:`glory_ai.analysis.stream`): a first pass sums the seat-games per cell of the controls
(spec, player count and seat, rules) and building; the models are fitted on those cells;
a second pass adds each deal's score (its seat-games' residuals times their covariates)
into every building's cluster-robust meat, a deal at a time. The deals of a run must come
in order (as the arena writes them, and a file its columns sort): otherwise, None, and the
section reads the frame."""
from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse

from ... import stats as T
from ...stats.models import codes
from ...stats.tables import _Cells
from ...stream import Batch, Fold, Out, RunStream

__all__ = ["building_tables"]


class _NotInOrder(Exception):
    """A run's deals are not in order in its columns file."""


def building_tables(stream: RunStream, many_rules: bool) -> tuple[pd.DataFrame, set[tuple[str, str]]] | None:
    """:func:`~glory_ai.analysis.stats.building_strength` of the runs, and the (mode,
    variant) pairs of their games; None when a run's deals are out of order."""
    cols = [c for c in stream.column_names() if c.startswith("completed:")]
    controls = ["spec", "num_players", "seat"] + (["rules"] if many_rules else [])
    first = _first_pass(stream, cols, controls)
    if first is None:
        return None
    c, lookup, overall, rules = first
    names = [col[len("completed:"):] for col in cols]
    recorded: dict[int, tuple[np.ndarray, int, np.ndarray, np.ndarray]] = {}

    def record(j: int, x0: np.ndarray, at: int, p0: np.ndarray, p1: np.ndarray) -> np.ndarray:
        recorded[j] = (x0, at, p0, p1)
        return np.zeros((x0.shape[1], x0.shape[1]))

    # the fits first (their meats unknown yet: the same fits again below)
    with np.errstate(all="ignore"):
        T.tables.building_table(c, names, many_rules, record, overall, stream.units)
    try:
        meats = _meats(stream, cols, controls, lookup, c.m, recorded)
    except _NotInOrder:
        return None
    table = T.tables.building_table(c, names, many_rules, lambda j, *_: meats[j], overall, stream.units)
    return table, rules


def _cells(batch: Batch, controls: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The batch's distinct keys of the controls (rows of codes) and each row's place among
    them: the keys as one integer, counted (not sorted)."""
    parts = [batch.columns[name].astype(np.int64) for name in controls]
    bases = [int(p.max()) + 1 if len(p) else 1 for p in parts]
    combined = np.zeros(len(batch), dtype=np.int64)
    for part, base in zip(parts, bases, strict=True):
        combined = combined * base + part
    present = np.bincount(combined) > 0 if len(combined) else np.zeros(0, dtype=bool)
    flat = np.flatnonzero(present)
    groups = np.zeros((len(flat), len(controls)), dtype=np.int64)
    for i in range(len(controls) - 1, -1, -1):
        flat, groups[:, i] = np.divmod(flat, bases[i])
    return groups, (np.cumsum(present) - 1)[combined]


def _completed(batch: Batch, cols: list[str]) -> np.ndarray:
    """The batch's building indicators (rows x buildings; False where a run lacks one)."""
    out = np.zeros((len(batch), len(cols)), dtype=bool)
    for j, name in enumerate(cols):
        if name in batch.columns:
            out[:, j] = batch.columns[name]
    return out


def _first_pass(stream: RunStream, cols: list[str], controls: list[str]
                ) -> tuple[_Cells, dict[tuple[int, ...], int], float, set[tuple[str, str]]] | None:
    """The cells' sums, each cell's key -> place (the frame's groupby order), the overall
    win share and the (mode, variant) pairs."""
    nb = len(cols)
    fold = _CellFold(cols, controls)
    stream.fold([*controls, "win_share", "mode", "variant", "completed:"], fold)
    found, total, count, rules = fold.found, fold.total, fold.count, fold.rules
    specs = {name: i for i, name in enumerate(stream.spec_order)}
    rule_names = stream.names.get("rules", [])

    def order(key: tuple[int, ...]) -> tuple[Any, ...]:
        spec = specs[stream.names["spec"][key[0]]]
        return (spec, key[1], key[2], *(rule_names[key[3]] for _ in key[3:]))

    keys = sorted(found, key=order)
    sums = np.array([found[k] for k in keys])
    frame = pd.DataFrame({"spec": pd.Categorical([stream.names["spec"][k[0]] for k in keys],
                                                 categories=stream.spec_order),
                          "num_players": np.array([k[1] for k in keys], dtype=np.int64),
                          "seat": np.array([k[2] for k in keys], dtype=np.int64)})
    if len(controls) > 3:
        frame["rules"] = pd.Categorical([rule_names[k[3]] for k in keys], categories=sorted(rule_names))
    n_cell = sums[:, 0]
    n1, s1, q1 = (sums[:, 3 + i * nb:3 + (i + 1) * nb] for i in range(3))
    c = _Cells(frame, np.zeros(0, np.int64), len(keys), np.zeros(0), [], n_cell, n1, s1, q1,
               n_cell[:, None] - n1, sums[:, 1:2] - s1, sums[:, 2:3] - q1)
    pairs = {(stream.names["mode"][a], stream.names["variant"][b]) for a, b in rules}
    return c, {k: i for i, k in enumerate(keys)}, total / count if count else math.nan, pairs


class _CellFold(Fold):
    """The first pass's sums: per cell of the controls (by their codes) its block of sums
    (``found``), the win shares' total and count, the (mode, variant) codes."""

    SUMS = ("found", "total", "count", "rules")

    def __init__(self, cols: list[str], controls: list[str]) -> None:
        self.cols, self.controls = cols, controls
        self.found: dict[tuple[int, ...], np.ndarray] = {}    # key -> n, y, q, n1 (nb), s1 (nb), q1 (nb)
        self.total, self.count = 0.0, 0
        self.rules: set[tuple[int, int]] = set()

    def apply(self, field: str, at: Any, value: Any) -> None:
        if field == "found":
            for key, row in zip(map(tuple, at.tolist()), value, strict=True):
                self.found[key] = self.found[key] + row if key in self.found else row
        elif field == "rules":
            self.rules.update(value)
        else:
            super().apply(field, at, value)

    def add(self, batch: Batch, out: Out) -> None:
        nb = len(self.cols)
        y = batch.columns["win_share"].astype(float)
        done = _completed(batch, self.cols)
        groups, cell = _cells(batch, self.controls)
        m = len(groups)
        block = np.zeros((m, 3 + 3 * nb))
        block[:, 0] = np.bincount(cell, minlength=m)
        block[:, 1] = np.bincount(cell, weights=y, minlength=m)
        block[:, 2] = np.bincount(cell, weights=y * y, minlength=m)
        for j in range(nb):
            rows = np.flatnonzero(done[:, j])
            block[:, 3 + j] = np.bincount(cell[rows], minlength=m)
            block[:, 3 + nb + j] = np.bincount(cell[rows], weights=y[rows], minlength=m)
            block[:, 3 + 2 * nb + j] = np.bincount(cell[rows], weights=y[rows] ** 2, minlength=m)
        out("found", groups, block)
        out("total", None, float(y.sum()))
        out("count", None, len(y))
        out("rules", None, set(zip(batch.columns["mode"].tolist(), batch.columns["variant"].tolist(),
                                   strict=True)))


class _Deals:
    """The batches with each run's deals whole: the rows of a batch's last deal go with the
    next batch of the run. _NotInOrder where a deal comes back after another."""

    def __init__(self) -> None:
        self.held: Batch | None = None

    def take(self, batch: Batch) -> Iterator[tuple[np.ndarray, Batch]]:
        held = self.held
        if held is not None and held.run == batch.run:
            joined = {k: np.concatenate([held.columns[k], v]) for k, v in batch.columns.items()
                      if k in held.columns}
            batch = Batch(batch.run, joined, np.concatenate([held.unit, batch.unit]), np.zeros(0, np.int64))
        elif held is not None:
            yield held.unit, held
        unit = batch.unit
        if len(unit) and (np.diff(unit) < 0).any():
            raise _NotInOrder
        last = np.searchsorted(unit, unit[-1]) if len(unit) else 0
        done = _rows(batch, slice(0, last))
        self.held = _rows(batch, slice(last, None))
        if len(done):
            yield done.unit, done

    def rest(self) -> Iterator[tuple[np.ndarray, Batch]]:
        if self.held is not None and len(self.held):
            yield self.held.unit, self.held
        self.held = None


def _rows(batch: Batch, rows: slice) -> Batch:
    return Batch(batch.run, {k: v[rows] for k, v in batch.columns.items()}, batch.unit[rows],
                 np.zeros(0, np.int64))


def _meats(stream: RunStream, cols: list[str], controls: list[str], lookup: dict[tuple[int, ...], int],
           m: int, recorded: dict[int, tuple[np.ndarray, int, np.ndarray, np.ndarray]]
           ) -> dict[int, np.ndarray]:
    """Every fitted building's sum over deals of the products of the deal's score."""
    fold = _MeatFold(cols, controls, lookup, m, recorded)
    stream.fold([*controls, "win_share", "completed:"], fold)
    return fold.meats


class _MeatFold(Fold):
    """Every fitted building's meat (``meats``), a deal's seat-games at a time."""

    SUMS = ("meats",)

    def __init__(self, cols: list[str], controls: list[str], lookup: dict[tuple[int, ...], int], m: int,
                 recorded: dict[int, tuple[np.ndarray, int, np.ndarray, np.ndarray]]) -> None:
        self.cols, self.controls, self.lookup, self.m, self.recorded = cols, controls, lookup, m, recorded
        self.meats = {j: np.zeros((x0.shape[1], x0.shape[1])) for j, (x0, _, _, _) in recorded.items()}
        self.deals = _Deals()

    def light(self) -> _MeatFold:
        out = super().light()
        assert isinstance(out, _MeatFold)
        out.deals = _Deals()            # each task holds back its own run's last deal
        return out

    def add(self, batch: Batch, out: Out) -> None:
        for unit, whole in self.deals.take(batch):
            self._add(unit, whole, out)

    def finish(self, out: Out) -> None:
        for unit, whole in self.deals.rest():
            self._add(unit, whole, out)

    def _add(self, unit: np.ndarray, batch: Batch, out: Out) -> None:
        m = self.m
        groups, of_row = _cells(batch, self.controls)
        cell = np.array([self.lookup[tuple(g)] for g in groups.tolist()], dtype=np.int64)[of_row]
        y = batch.columns["win_share"].astype(float)
        done = _completed(batch, self.cols)
        deal = unit - unit[0]
        n_deals = int(deal[-1]) + 1
        # the batch's seat-games pooled by deal and cell (as the frame's model pools them):
        # a sparse matrix of deals x cells, the same structure for every building
        values, _, of_unit = codes(deal * m + cell)
        u_cell = values % m
        starts = np.r_[0, np.cumsum(np.bincount(values // m, minlength=n_deals))]
        for j, (x0, at, p0, p1) in self.recorded.items():
            completed = done[:, j]
            residual = y - np.where(completed, p1[cell], p0[cell])
            per_unit = np.bincount(of_unit, weights=residual, minlength=len(values))
            scores = sparse.csr_matrix((per_unit, u_cell, starts), shape=(n_deals, m)) @ x0
            scores[:, at] += np.bincount(deal, weights=residual * completed, minlength=n_deals)
            out("meats", j, scores.T @ scores)
