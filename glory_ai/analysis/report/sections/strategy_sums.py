"""The strategy tables (:class:`.strategies.Strategies`) from sums read a row group at a time
(:mod:`glory_ai.analysis.stream`): per player count, each spec's seat-games, wins, VP and
places, its wins per deal (overall and by seat), the seat pairs of its games summed per deal
(:class:`~glory_ai.analysis.stats.ladder.PairSums`) and, for 2-player games, each game's
score in a pair of specs with its pair id (the pentanomial model counts pairs)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ... import AnalysisError
from ... import stats as T
from ...stats import ladder
from ...stats import paired as P
from ...stats.bootstrap import GROUPS, MAX_UNITS, win_shares_of_sums
from ...stats.pentanomial import head_to_head_of_games
from ...stream import Batch, RunStream, add_counts

__all__ = ["CountSums", "CountTables", "StrategyTables", "count_sums", "strategy_tables"]


@dataclass
class CountTables:
    """The tables of one player count where strategies met: ``ratings`` (None when the
    ratings have no model), ``matrix`` (finishing ahead), ``pairwise`` (head to head)."""

    ratings: pd.DataFrame | None
    matrix: pd.DataFrame
    pairwise: pd.DataFrame


@dataclass
class StrategyTables:
    """``win_rates`` by player count (every count: it makes ``summary.csv``), and at the
    counts where strategies met: pooled over them (``win_rates_all``, with two counts or
    more), by seat, and each count's :class:`CountTables`; ``runs``: the runs of each such
    count."""

    win_rates: pd.DataFrame
    win_rates_all: pd.DataFrame | None
    win_rates_seat: pd.DataFrame | None
    per_count: dict[int, CountTables]
    runs: dict[int, set[str]]

    def compared_rates(self, compared: Sequence[int]) -> pd.DataFrame:
        """The win-rate table of the player counts where strategies met."""
        wr = self.win_rates
        keep = wr.index.get_level_values("num_players").isin(compared)
        out = wr[keep]
        out.attrs = dict(wr.attrs)
        return out

COLUMNS = ["num_players", "spec", "win_share", "score", "rank"]


@dataclass
class CountSums:
    """One player count's sums (see the module docstring): ``specs`` its specs (labels,
    sorted), ``local`` a stream spec code's place among them; per deal unit of its runs
    (``start``: where a run's units begin, ``size`` of them): ``rows`` its seat-games,
    ``wins``/``games`` per spec and ``seat_wins``/``seat_games`` per seat and spec; per
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
    score: np.ndarray
    count: np.ndarray
    met: np.ndarray
    spec_games: np.ndarray
    mixed: int = 0
    pairs: bool = False
    runs: set[str] = field(default_factory=set)
    h2h: dict[tuple[int, int], list[tuple[np.ndarray, np.ndarray]]] = field(default_factory=dict)

    def add(self, batch: Batch) -> None:
        cols = batch.columns
        mine = cols["num_players"] == self.k
        if not mine.any():
            return
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
        add_counts(self.rows, unit)
        if self.pairs:
            self._pairs(unit[::k], spec.reshape(-1, k), rank.reshape(-1, k))
            return
        by_game = spec.reshape(-1, k)
        self.mixed += int((by_game.min(axis=1) != by_game.max(axis=1)).sum())
        at = unit * n + spec
        add_counts(self.wins, at, share)
        add_counts(self.games, at)
        if len(self.seat_wins):
            for s in range(k):
                at = (s * self.size + unit[s::k]) * n + spec[s::k]
                add_counts(self.seat_wins, at, share[s::k])
                add_counts(self.seat_games, at)
        at = seat * n + spec
        for j, value in enumerate((np.ones(len(at)), share, score, rank)):
            self.seat_totals[:, j] += np.bincount(at, weights=value, minlength=k * n)
        if k == 2:
            self._head_to_head(batch, rows, unit[::2], spec.reshape(-1, 2), share.reshape(-1, 2))

    def _pairs(self, unit: np.ndarray, spec: np.ndarray, rank: np.ndarray) -> None:
        """:func:`~glory_ai.analysis.stats.ladder.pair_sums` of whole games, added."""
        k, n = self.k, len(self.specs)
        base = unit * (n * n)
        for s in range(k):
            for t in range(k):
                keep = spec[:, s] != spec[:, t]
                if s == t or not keep.any():
                    continue
                ahead = (rank[keep, s] < rank[keep, t]) + 0.5 * (rank[keep, s] == rank[keep, t])
                key = base[keep] + spec[keep, s] * n + spec[keep, t]
                add_counts(self.score, key, ahead)
                add_counts(self.count, key)
        present = np.zeros((len(spec), n), dtype=np.int64)
        present[np.arange(len(spec))[:, None], spec] = 1
        self.met += present.T @ present
        self.spec_games += present[present.sum(axis=1) > 1].sum(axis=0)

    def _head_to_head(self, batch: Batch, rows: np.ndarray, unit: np.ndarray, spec: np.ndarray,
                      share: np.ndarray) -> None:
        """Each 2-player game of two specs: the first spec's (by name) score and its pair id
        (run, pairing and deal), as :func:`~glory_ai.analysis.stats.paired.head_to_head_games`
        gives them."""
        pairing = batch.columns["pairing"][rows][::2].astype(np.int64)
        apart = spec[:, 0] != spec[:, 1]
        for i, j in {(int(a), int(b)) for a, b in np.sort(spec[apart], axis=1)}:
            games = ((spec[:, 0] == i) & (spec[:, 1] == j)) | ((spec[:, 0] == j) & (spec[:, 1] == i))
            first = spec[games, 0] == i
            own = np.where(first, share[games, 0], share[games, 1])
            total = share[games, 0] + share[games, 1]
            with np.errstate(invalid="ignore", divide="ignore"):
                score = np.where(total > 0, own / total, 0.5)
            key = unit[games] * 4096 + pairing[games]
            self.h2h.setdefault((i, j), []).append((key, score))

    def head_to_head(self, a: str, b: str) -> Any:
        i, j = sorted((self.specs.index(a), self.specs.index(b)))
        parts = self.h2h.get((i, j), [])
        keys = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, dtype=np.int64)
        scores = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0)
        h = head_to_head_of_games(self.specs[i], self.specs[j], keys, scores)
        return h if self.specs[i] == a else h.flipped()

    def pair_sums(self) -> ladder.PairSums:
        n = len(self.specs)
        present = self.rows > 0
        met = self.met.copy()
        np.fill_diagonal(met, 0)
        score, count = self.score.reshape(-1, n, n), self.count.reshape(-1, n, n)
        if not present.all():           # the deals that hold the count's games (no copy if all)
            score, count = score[present], count[present]
        return ladder.PairSums(list(self.specs), score, count, met, self.spec_games)


def count_sums(stream: RunStream, k: int, *, pairs: bool = False, seats: bool = True) -> CountSums:
    """A player count's :class:`CountSums`, from the runs that hold its games: its win
    rates' sums (by seat too with ``seats``), or (``pairs``) its seat pairs' (a pass each,
    so that the two never take memory together)."""
    runs = [r for r, counts in enumerate(stream.counts) if k in counts]
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
    sums = CountSums(k, specs, local, start, size, np.zeros(size), np.zeros(rates), np.zeros(rates),
                     np.zeros(by_seat), np.zeros(by_seat), np.zeros((n, 4)), np.zeros((k * n, 4)),
                     np.zeros(pair), np.zeros(pair), np.zeros((n, n), np.int64), np.zeros(n, np.int64),
                     pairs=pairs)
    for batch in stream.batches(COLUMNS + ["pairing"], runs):
        sums.add(batch)
        if (batch.columns["num_players"] == k).any():
            sums.runs.add(stream.runs[batch.run].label)
    sums.totals = sums.seat_totals.reshape(k, n, 4).sum(axis=0)
    return sums


def _intervals(specs: list[str], wins: np.ndarray, games: np.ndarray, key: tuple[Any, ...],
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
    return {(*key, str(spec)): (r["low"], r["high"], P.INTERVAL_WILSON if r["wins"] in (0, r["games"])
                                 else P.INTERVAL_BOOTSTRAP)
            for spec, r in shares.iterrows()}


def _agg(totals: np.ndarray, specs: list[str], expected: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame({"games": totals[:, 0].astype(np.int64), "wins": totals[:, 1],
                         "expected": expected, "mean_score": totals[:, 2] / totals[:, 0],
                         "mean_rank": totals[:, 3] / totals[:, 0]}, index=specs)


def _indexed(part: pd.DataFrame, keys: list[tuple[Any, ...]], by: list[str], order: list[str]
             ) -> pd.DataFrame:
    spec = pd.Categorical(list(part.index), categories=order)
    if by:
        index = pd.MultiIndex.from_arrays([*(np.array([k[i] for k in keys]) for i in range(len(by))), spec],
                                          names=[*by, "spec"])
    else:
        index = pd.CategoricalIndex(spec, name="spec")
    return part.set_axis(index)


def strategy_tables(stream: RunStream, report: Any) -> StrategyTables:
    """The :class:`StrategyTables` of the runs, from sums."""
    order = stream.spec_order
    counts = report.counts
    by_count: list[pd.DataFrame] = []
    by_seat: list[pd.DataFrame] = []
    pooled_parts: list[_Pooled] = []
    intervals: dict[tuple[Any, ...], tuple[float, float, str]] = {}
    seat_intervals: dict[tuple[Any, ...], tuple[float, float, str]] = {}
    per_count, runs = {}, {}
    pooled: dict[str, Any] = {}
    for k in counts:
        sums = count_sums(stream, k, seats=k in report.compared)
        n = len(sums.specs)
        used = sums.totals[:, 0] > 0
        part = _agg(sums.totals, sums.specs, np.full(n, 1.0 / k))[used]
        by_count.append(_indexed(part, [(k,)] * len(part), ["num_players"], order))
        two = [s for s, u in zip(sums.specs, used, strict=True) if u]
        h2h = sums.head_to_head(two[0], two[1]) \
            if k == 2 and len(two) == 2 and sums.mixed * 2 == int(sums.rows.sum()) else None
        intervals.update(_intervals(sums.specs, sums.wins, sums.games, (k,), h2h))
        if k in report.compared:
            for seat in range(k):
                rows = slice(seat * n, (seat + 1) * n)
                used_seat = sums.seat_totals[rows, 0] > 0
                part = _agg(sums.seat_totals[rows], sums.specs, np.full(n, 1.0 / k))[used_seat]
                by_seat.append(_indexed(part, [(k, seat)] * len(part), ["num_players", "seat"], order))
                block = slice(seat * sums.size * n, (seat + 1) * sums.size * n)
                seat_intervals.update(_intervals(sums.specs, sums.seat_wins[block], sums.seat_games[block],
                                                 (k, seat)))
            pooled_parts.append(_Pooled.of(stream, sums))
            runs[k] = sums.runs
            h2h_games = sums.h2h
            del sums
            sums = count_sums(stream, k, pairs=True)
            sums.h2h = h2h_games
            per_count[k] = _count_tables(sums, k)
        del sums
    win_rates = T.tables.win_rate_table(pd.concat(by_count), intervals, ["num_players"])
    seat_table = T.tables.win_rate_table(pd.concat(by_seat), seat_intervals, ["num_players", "seat"]) \
        if by_seat else None
    if len(pooled_parts) > 1:
        pooled["table"] = _pooled(stream, pooled_parts, order)
    return StrategyTables(win_rates, pooled.get("table"), seat_table, per_count, runs)


def _count_tables(sums: CountSums, k: int) -> CountTables:
    pair = sums.pair_sums()
    # the frame-free twins of tables.ratings / finishing_matrix / pairwise of one count
    rated = P.ratings(pd.DataFrame(), sums=pair)
    rated.attrs["num_players"] = k
    matrix = P.finishing_matrix(pd.DataFrame(), pair)
    matrix.attrs["num_players"] = k
    pairs = ladder.pairwise_of_sums(pair, k, sums.head_to_head)
    return CountTables(rated if rated.attrs.get("model") else None, matrix, pairs)


@dataclass
class _Pooled:
    """What the pooled win rates keep of a count: its deal units with games (their global
    ids), its wins and seat-games there per spec, its totals per spec."""

    k: int
    specs: list[str]
    units: np.ndarray
    wins: np.ndarray
    games: np.ndarray
    totals: np.ndarray

    @classmethod
    def of(cls, stream: RunStream, sums: CountSums) -> _Pooled:
        n = len(sums.specs)
        units = np.concatenate([np.arange(stream.first_unit[r], stream.first_unit[r + 1])
                                for r in sorted(sums.start)])
        present = sums.rows > 0
        return cls(sums.k, sums.specs, units[present], sums.wins.reshape(-1, n)[present],
                   sums.games.reshape(-1, n)[present], sums.totals)


def _pooled(stream: RunStream, parts: list[_Pooled], order: list[str]) -> pd.DataFrame:
    """The win rates of every compared count pooled: the counts' sums joined by deal unit
    and spec (a deal of a run that holds games of two counts is one unit)."""
    specs = sorted({s for p in parts for s in p.specs})
    n = len(specs)
    units = np.unique(np.concatenate([p.units for p in parts]))
    # past MAX_UNITS deals the bootstrap sums them into GROUPS groups (unit i in group i
    # mod GROUPS, bootstrap.grouped_units): summed so here, in the units' order
    grouped = len(units) > MAX_UNITS
    size = GROUPS if grouped else len(units)
    wins, games = np.zeros((size, n)), np.zeros((size, n))
    totals = np.zeros((n, 4))
    inverse = np.zeros(n)
    for p in parts:
        place = np.array([specs.index(s) for s in p.specs])
        rows = np.searchsorted(units, p.units)
        rows = rows % GROUPS if grouped else rows
        np.add.at(wins, (rows[:, None], place[None, :]), p.wins)
        np.add.at(games, (rows[:, None], place[None, :]), p.games)
        totals[place] += p.totals
        inverse[place] += p.totals[:, 0] / p.k
    part = _agg(totals, specs, inverse / totals[:, 0])
    intervals = _intervals(specs, wins, games, ())
    return T.tables.win_rate_table(_indexed(part, [()] * n, [], order), intervals, [])
