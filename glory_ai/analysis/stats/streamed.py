"""A player count's seat-games summed from runs read a row group at a time
(:mod:`glory_ai.analysis.stream`): each spec's seat-games, wins, VP and places, its wins per
deal (overall and by seat), the seat pairs of its games summed per deal
(:class:`~.ladder.PairSums`) and, for 2-player games, each game's score in a pair of specs with
its pair id (the pentanomial model counts pairs). What the report's strategy tables and
compare's table are made of, without a frame of every seat-game."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .. import AnalysisError
from ..stream import Batch, Fold, Out, RunStream, counts_at
from . import ladder
from . import paired as P
from .bootstrap import win_shares_of_sums
from .pentanomial import head_to_head_of_games

__all__ = ["COLUMNS", "CountSums", "count_sums", "played_specs", "rate_intervals", "rate_totals"]

COLUMNS = ["num_players", "spec", "win_share", "score", "rank"]


@dataclass
class CountSums(Fold):
    """One player count's sums (see the module docstring): ``specs`` its specs (labels,
    sorted), ``local`` a stream spec code's place among them; per deal unit of its runs
    (``start``: where a run's units begin, ``size`` of them): ``rows`` its seat-games (int32),
    ``wins``/``games`` per spec and ``seat_wins``/``seat_games`` per seat and spec, or
    (``pairs``) ``halves``/``count`` per spec pair (int32, :class:`~.ladder.PairSums`); per
    spec ``totals`` (seat-games, wins, VP, places) and per seat and spec ``seat_totals``."""

    k: int
    specs: list[str]
    local: np.ndarray
    start: dict[int, int]
    size: int
    rows: np.ndarray
    wins: np.ndarray
    games: np.ndarray
    seat_wins: np.ndarray
    seat_games: np.ndarray
    totals: np.ndarray
    seat_totals: np.ndarray
    halves: np.ndarray
    count: np.ndarray
    met: np.ndarray
    spec_games: np.ndarray
    mixed: int = 0
    pairs: bool = False
    seats: bool = False
    runs: set[str] = field(default_factory=set)
    h2h: dict[tuple[int, int], list[tuple[np.ndarray, np.ndarray]]] = field(default_factory=dict)
    labels: list[str] = field(default_factory=list)

    SUMS = ("rows", "wins", "games", "seat_wins", "seat_games", "totals", "seat_totals", "halves", "count",
            "met", "spec_games", "runs", "h2h")

    def apply(self, name: str, at: Any, value: Any) -> None:
        if name == "runs":
            self.runs.add(value)
        elif name == "h2h":
            self.h2h.setdefault(at, []).append(value)
        else:
            super().apply(name, at, value)

    def add(self, batch: Batch, out: Out) -> None:
        cols = batch.columns
        mine = cols["num_players"] == self.k
        if not mine.any():
            return
        out("runs", None, self.labels[batch.run])
        k, n = self.k, len(self.specs)
        rows = np.flatnonzero(mine)
        seat = cols["seat"][rows]
        if len(seat) % k or (seat.reshape(-1, k) != np.arange(k)).any():
            # the seats of each game together and in order (as the frame holds them)
            rows = rows[np.lexsort((seat, cols["record"][rows]))]
            seat = cols["seat"][rows]
            if len(seat) % k or (seat.reshape(-1, k) != np.arange(k)).any():
                raise AnalysisError("strategy sums: a game without every seat")
        unit = batch.unit[rows] + self.start[batch.run]
        spec = self.local[cols["spec"][rows]]
        share, score, rank = (cols[c][rows].astype(float) for c in ("win_share", "score", "rank"))
        _counted(out, "rows", unit)
        if self.pairs:
            self._pairs(out, unit[::k], spec.reshape(-1, k), rank.reshape(-1, k))
            return
        by_game = spec.reshape(-1, k)
        out("mixed", None, int((by_game.min(axis=1) != by_game.max(axis=1)).sum()))
        at = unit * n + spec
        _counted(out, "wins", at, share)
        _counted(out, "games", at)
        if self.seats:
            for s in range(k):
                at = (s * self.size + unit[s::k]) * n + spec[s::k]
                _counted(out, "seat_wins", at, share[s::k])
                _counted(out, "seat_games", at)
        at = seat * n + spec
        for j, value in enumerate((np.ones(len(at)), share, score, rank)):
            out("seat_totals", (slice(None), j), np.bincount(at, weights=value, minlength=k * n))
        if k == 2:
            self._head_to_head(out, batch, rows, unit[::2], spec.reshape(-1, 2), share.reshape(-1, 2))

    def _pairs(self, out: Out, unit: np.ndarray, spec: np.ndarray, rank: np.ndarray) -> None:
        """:func:`~glory_ai.analysis.stats.ladder.pair_sums` of whole games, added."""
        n = len(self.specs)
        for key, twice in ladder.seat_pair_cells(spec, rank, unit * (n * n), n):
            span = counts_at(key, twice)
            if span is not None:        # integers (the int32 sums take no float)
                out("halves", span[0], span[1].astype(np.int64))
            _counted(out, "count", key)
        met, met_another = ladder.specs_met(spec, n)
        out("met", slice(None), met)
        out("spec_games", slice(None), met_another)

    def _head_to_head(self, out: Out, batch: Batch, rows: np.ndarray, unit: np.ndarray, spec: np.ndarray,
                      share: np.ndarray) -> None:
        """Each 2-player game of two specs: the first spec's (by name) score and its pair id
        (run, pairing and deal), as :func:`~glory_ai.analysis.stats.paired.head_to_head_games`
        gives them."""
        pairing = batch.columns["pairing"][rows][::2].astype(np.int64)
        apart = spec[:, 0] != spec[:, 1]
        # the pairs met (a few), not a tuple per game
        for i, j in np.unique(np.sort(spec[apart], axis=1), axis=0).tolist():
            games = ((spec[:, 0] == i) & (spec[:, 1] == j)) | ((spec[:, 0] == j) & (spec[:, 1] == i))
            first = spec[games, 0] == i
            own = np.where(first, share[games, 0], share[games, 1])
            total = share[games, 0] + share[games, 1]
            with np.errstate(invalid="ignore", divide="ignore"):
                score = np.where(total > 0, own / total, 0.5)
            key = unit[games] * 4096 + pairing[games]
            out("h2h", (i, j), (key, score))

    def head_to_head(self, a: str, b: str) -> Any:
        """A's :class:`~glory_ai.analysis.stats.paired.HeadToHead` against B."""
        i, j = sorted((self.specs.index(a), self.specs.index(b)))
        parts = self.h2h.get((i, j), [])
        keys = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, dtype=np.int64)
        scores = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0)
        # B's score in a 2-player game (shares 0, 1/2 or 1 of one win): 1 - A's, exactly
        return head_to_head_of_games(a, b, keys, scores if self.specs[i] == a else 1.0 - scores)

    def pair_sums(self) -> ladder.PairSums:
        n = len(self.specs)
        present = self.rows > 0
        met = self.met.copy()
        np.fill_diagonal(met, 0)
        halves, count = self.halves.reshape(-1, n, n), self.count.reshape(-1, n, n)
        if not present.all():           # the deals that hold the count's games (no copy if all)
            halves, count = halves[present], count[present]
        return ladder.PairSums(list(self.specs), halves, count, met, self.spec_games)


def count_sums(stream: RunStream, k: int, *, pairs: bool = False, seats: bool = True,
               only: Sequence[int] | None = None) -> CountSums:
    """A player count's :class:`CountSums`, from the runs that hold its games (of ``only``,
    when given): its win rates' sums (by seat too with ``seats``), or (``pairs``) its seat
    pairs' (a pass each, so that the two never take memory together)."""
    runs = [r for r, counts in enumerate(stream.counts) if k in counts and (only is None or r in only)]
    specs = sorted({s for r in runs for s in stream.run_specs[r]})
    codes = stream.code("spec", specs)
    local = np.full(len(stream.names["spec"]), -1, dtype=np.int64)
    local[codes] = np.arange(len(specs))
    start, size = {}, 0
    for r in runs:
        start[r] = size - stream.first_unit[r]
        size += stream.first_unit[r + 1] - stream.first_unit[r]
    n = len(specs)
    rates = 0 if pairs else size * n
    by_seat = k * rates if seats else 0
    pair = size * n * n if pairs else 0
    # the counts (seat-games) in int32: half float64's memory, the same integers
    sums = CountSums(k, specs, local, start, size, np.zeros(size, np.int32), np.zeros(rates),
                     np.zeros(rates, np.int32), np.zeros(by_seat), np.zeros(by_seat, np.int32),
                     np.zeros((n, 4)), np.zeros((k * n, 4)),
                     np.zeros(pair, np.int32), np.zeros(pair, np.int32), np.zeros((n, n), np.int64),
                     np.zeros(n, np.int64),
                     pairs=pairs, seats=bool(by_seat), labels=[run.label for run in stream.runs])
    stream.fold(COLUMNS + ["pairing"], sums, runs)
    sums.totals = sums.seat_totals.reshape(k, n, 4).sum(axis=0)
    return sums


def rate_intervals(specs: list[str], wins: np.ndarray, games: np.ndarray, key: tuple[Any, ...],
               h2h: Any = None) -> dict[tuple[Any, ...], tuple[float, float, str]]:
    """The win-rate intervals of a group's specs (:func:`.tables._interval_rows`): its
    :class:`~glory_ai.analysis.stats.paired.HeadToHead` when the group is a head-to-head
    match, else the deal bootstrap of its wins and seat-games per deal unit and spec."""
    if h2h is not None:
        other = h2h.flipped()
        return {(*key, h2h.a): (h2h.estimate.low, h2h.estimate.high, h2h.interval),
                (*key, other.a): (other.estimate.low, other.estimate.high, other.interval)}
    n = len(specs)
    wins, games = wins.reshape(-1, n), games.reshape(-1, n)
    units, played = games.sum(axis=1) > 0, np.flatnonzero(games.sum(axis=0) > 0)
    shares = win_shares_of_sums(wins[units][:, played], games[units][:, played], [specs[s] for s in played])
    return {(*key, str(spec)): (r["low"], r["high"], P.INTERVAL_WILSON if r["fixed"]
                                 else P.INTERVAL_BOOTSTRAP)
            for spec, r in shares.iterrows()}


def rate_totals(totals: np.ndarray, specs: list[str], expected: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame({"games": totals[:, 0].astype(np.int64), "wins": totals[:, 1],
                         "expected": expected, "mean_score": totals[:, 2] / totals[:, 0],
                         "mean_rank": totals[:, 3] / totals[:, 0]}, index=specs)


def played_specs(stream: RunStream) -> None:
    """The stream's specs as played, no labels (compare's table names them so), and each
    run's (:func:`count_sums` reads them)."""
    fold = _Specs(stream.names, [set() for _ in stream.runs])
    stream.fold(["spec"], fold)
    per_run = fold.per_run
    stream.set_labels({}, set().union(*per_run))
    stream.run_specs = per_run


class _Specs(Fold):
    """Each run's specs (:func:`played_specs`)."""

    SUMS = ("per_run",)

    def __init__(self, names: dict[str, list[str]], per_run: list[set[str]]) -> None:
        self.names, self.per_run = names, per_run

    def apply(self, field: str, at: Any, value: Any) -> None:
        self.per_run[at].update(value)

    def add(self, batch: Batch, out: Out) -> None:
        out("per_run", batch.run, {self.names["spec"][int(c)] for c in np.unique(batch.columns["spec"])})


def _counted(out: Out, name: str, index: np.ndarray, weights: np.ndarray | None = None) -> None:
    """``name[i] +=`` the rows at ``i`` (or their weights), said to ``out``."""
    span = counts_at(index, weights)
    if span is not None:
        out(name, *span)
