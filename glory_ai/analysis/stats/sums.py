"""The tables of :mod:`.tables` from sums: what a report reads a row group at a time
(glory_ai.analysis.stream) gives these functions per-deal sums, counts and histograms instead
of a frame of every seat-game; :mod:`.tables` makes the same sums from a frame and calls them.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps
from statsmodels.stats.multivariate import test_mvmean

from . import paired
from .bootstrap import win_shares_of_sums
from .intervals import bootstrap_model

__all__ = ["SEAT_TEST_2", "SEAT_TEST_K", "SeatSums", "count_stats", "game_length_of_counts",
           "seat_advantage_of_sums", "seat_tests_of_sums"]


def seat_advantage_of_sums(per_count: dict[int, SeatSums], *, resamples: int = paired.BOOTSTRAP_RESAMPLES,
                           seed: int = 0) -> pd.DataFrame:
    """:func:`seat_advantage` from each player count's :class:`SeatSums`."""
    parts = [_seat_rates(k, s.wins, s.games, s.seats, resamples, seed) for k, s in sorted(per_count.items())]
    return _seat_table(parts, resamples, seed)


def _seat_rates(k: int, wins: np.ndarray, games: np.ndarray, labels: list[Any], resamples: int,
                seed: int) -> pd.DataFrame:
    shares = win_shares_of_sums(wins, games, labels, resamples, seed, label="seat").sort_index()
    part = pd.DataFrame({"games": shares["games"], "wins": shares["wins"],
                         "win_rate": shares["win_share"], "win_low": shares["low"],
                         "win_high": shares["high"], "wilson_low": shares["independent_low"],
                         "wilson_high": shares["independent_high"]})
    part.index = pd.MultiIndex.from_arrays([np.full(len(part), k), part.index.astype(int)],
                                           names=["num_players", "seat"])
    return part


def _seat_table(parts: list[pd.DataFrame], resamples: int, seed: int) -> pd.DataFrame:
    out = pd.concat(parts)
    out["expected"] = 1.0 / out.index.get_level_values("num_players")
    out["diff"] = out["win_rate"] - out["expected"]
    out.attrs.update({"model": bootstrap_model(resamples), "resamples": resamples,
                      "seed": seed})
    return out


@dataclass(frozen=True)
class SeatSums:
    """What the seat tables read of one player count's seat-games: ``wins`` and ``games``
    per deal (the deals that hold its games, in (run, deal) order) and seat (``seats``, the
    seats present, in order); ``spec_seat``, seat-games per spec (those present) and seat;
    ``total_games``, its games."""

    wins: np.ndarray
    games: np.ndarray
    seats: list[Any]
    spec_seat: np.ndarray
    total_games: int


SEAT_TEST_2 = "t-test of P1's per-deal win share against 1/2"
SEAT_TEST_K = "Hotelling's T² of the per-deal win shares of the seats against 1/k"


def seat_tests_of_sums(per_count: dict[int, SeatSums]) -> pd.DataFrame:
    """:func:`seat_tests` from each player count's :class:`SeatSums`."""
    rows = {}
    for k, sums in sorted(per_count.items()):
        with np.errstate(invalid="ignore", divide="ignore"):
            per_deal = sums.wins / sums.games
        per_deal = per_deal[np.isfinite(per_deal).all(axis=1)]
        statistic, p = math.nan, math.nan
        if k == 2:
            test = SEAT_TEST_2
            first = per_deal[:, 0]
            p = paired.mean_test(first)
            if len(first) >= 2 and np.ptp(first) > 0:
                statistic = float(sps.ttest_1samp(first, 0.5).statistic)
        else:
            test = SEAT_TEST_K
            if len(per_deal) > k:
                try:
                    result = test_mvmean(per_deal[:, :-1], np.full(k - 1, 1.0 / k))
                    statistic, p = float(result.t2), float(result.pvalue)
                except np.linalg.LinAlgError:       # no spread in some direction
                    pass
        rates = sums.wins.sum(axis=0) / sums.games.sum(axis=0)
        best = int(np.argmax(rates))
        table = sums.spec_seat
        balanced = bool(table.shape[1] == k and (table == table[:, :1]).all())
        rows[k] = {"games": sums.total_games, "deals": len(per_deal), "test": test,
                   "statistic": statistic, "p_value": p, "best_seat": int(sums.seats[best]),
                   "best_rate": float(rates[best]), "balanced": balanced}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "num_players"
    out["p_holm"], label = paired.holm(out["p_value"].to_numpy(float))
    out.attrs["holm"] = label
    return out


def game_length_of_counts(counts: dict[Any, dict[str, np.ndarray]], by: Sequence[str]) -> pd.DataFrame:
    """:func:`game_length` from each group's games per number of turns and of decisions:
    ``counts`` maps the group's key to ``{"turns": c, "decisions": c}``, ``c[v]`` the games
    that lasted ``v`` (integers)."""
    by = list(by)
    keys = sorted(counts)
    rows = []
    for key in keys:
        row: dict[str, float] = {"games": int(counts[key]["turns"].sum())}
        for col in ("turns", "decisions"):
            row.update({f"{col}_{name}": value for name, value in count_stats(counts[key][col]).items()})
        rows.append(row)
    if by:
        index = pd.MultiIndex.from_tuples([k if isinstance(k, tuple) else (k,) for k in keys], names=by) \
            if len(by) > 1 else pd.Index([k[0] if isinstance(k, tuple) else k for k in keys], name=by[0])
    else:
        index = pd.Index(["all"])
    out = pd.DataFrame(rows, index=index)
    out["games"] = out["games"].astype(np.int64)
    return out


def count_stats(c: np.ndarray) -> dict[str, float]:
    """Mean, standard deviation (n - 1), minimum, quartiles (linear interpolation between
    order statistics, as pandas' quantile) and maximum of integers given by their counts
    (``c[v]``: how many are ``v``)."""
    values = np.flatnonzero(c)
    weights = c[values].astype(float)
    n = weights.sum()
    mean = float((values * weights).sum() / n)
    sd = math.sqrt(float((weights * (values - mean) ** 2).sum()) / (n - 1)) if n > 1 else math.nan
    cumulative = np.cumsum(weights)

    def order_stat(i: int) -> float:             # the i-th smallest (0-based)
        return float(values[np.searchsorted(cumulative, i + 1)])

    def quantile(q: float) -> float:
        at = q * (n - 1)
        lo = math.floor(at)
        a, b = order_stat(lo), order_stat(min(lo + 1, int(n) - 1))
        return a + (b - a) * (at - lo)

    return {"mean": mean, "sd": sd, "min": float(values[0]), "q25": quantile(0.25),
            "median": quantile(0.5), "q75": quantile(0.75), "max": float(values[-1])}
