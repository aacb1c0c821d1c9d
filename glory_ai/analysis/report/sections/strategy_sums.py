"""The strategy tables (:class:`.strategies.Strategies`) from sums read a row group at a time
(:mod:`glory_ai.analysis.stream`): per player count, each spec's seat-games, wins, VP and
places, its wins per deal (overall and by seat), the seat pairs of its games summed per deal
(:class:`~glory_ai.analysis.stats.ladder.PairSums`) and, for 2-player games, each game's
score in a pair of specs with its pair id (the pentanomial model counts pairs)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ... import stats as T
from ...stats import ladder
from ...stats import paired as P
from ...stats.bootstrap import GROUPS, MAX_UNITS
from ...stats.streamed import CountSums, count_sums, rate_intervals, rate_totals
from ...stream import RunStream

__all__ = ["CountTables", "StrategyTables", "strategy_tables"]


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
        part = rate_totals(sums.totals, sums.specs, np.full(n, 1.0 / k))[used]
        by_count.append(_indexed(part, [(k,)] * len(part), ["num_players"], order))
        two = [s for s, u in zip(sums.specs, used, strict=True) if u]
        h2h = sums.head_to_head(two[0], two[1]) \
            if k == 2 and len(two) == 2 and sums.mixed * 2 == int(sums.rows.sum()) else None
        intervals.update(rate_intervals(sums.specs, sums.wins, sums.games, (k,), h2h))
        if k in report.compared:
            for seat in range(k):
                rows = slice(seat * n, (seat + 1) * n)
                used_seat = sums.seat_totals[rows, 0] > 0
                part = rate_totals(sums.seat_totals[rows], sums.specs, np.full(n, 1.0 / k))[used_seat]
                by_seat.append(_indexed(part, [(k, seat)] * len(part), ["num_players", "seat"], order))
                block = slice(seat * sums.size * n, (seat + 1) * sums.size * n)
                seat_intervals.update(rate_intervals(sums.specs, sums.seat_wins[block],
                                                     sums.seat_games[block], (k, seat)))
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
    part = rate_totals(totals, specs, inverse / totals[:, 0])
    intervals = rate_intervals(specs, wins, games, ())
    return T.tables.win_rate_table(_indexed(part, [()] * n, [], order), intervals, [])
