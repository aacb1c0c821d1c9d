"""Seat advantage: the win rate of each seat at each player count, and the test of "no seat
advantage" on per-deal seat shares (t for 2 seats, Hotelling's T² for more)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ... import figures as F
from ... import stats as T
from ...stream import Batch, Fold, Out, RunStream, UnitSums
from ..base import ALPHA, FigureMaker, Page, Report, Section
from ..formats import adjusted, ci, count, esc, html_table, num, pct, pm, pval, seat_name

__all__ = ["SeatTables", "Seats", "seat_sums"]


def seat_sums(stream: RunStream) -> dict[int, T.SeatSums]:
    """Each player count's :class:`~glory_ai.analysis.stats.SeatSums`, a row group at a time."""
    counts = sorted({k for run in stream.counts for k in run})
    fold = _SeatFold({k: stream.sums([r for r, run in enumerate(stream.counts) if k in run], k)
                      for k in counts})
    stream.fold(["num_players", "spec", "win_share"], fold)
    units, spec_seat, games = fold.units, fold.spec_seat, fold.games
    out = {}
    for k in counts:
        rows, wins = units[k].table(), units[k].table("wins")
        deals, seats = rows.sum(axis=1) > 0, np.flatnonzero(rows.sum(axis=0) > 0)
        table = np.pad(spec_seat[k], (0, -len(spec_seat[k]) % k)).reshape(-1, k)
        table = table[table.sum(axis=1) > 0][:, seats]
        out[k] = T.SeatSums(wins[deals][:, seats], rows[deals][:, seats], seats.tolist(), table, games[k])
    return out


class _SeatFold(Fold):
    """:func:`seat_sums`' sums: per player count its wins and seat-games per deal and seat
    (``units``), its seat-games per spec and seat, and its games."""

    SUMS = ("units", "spec_seat", "games")

    def __init__(self, units: dict[int, UnitSums]) -> None:
        self.units = units
        self.spec_seat = {k: np.zeros(0, dtype=np.int64) for k in units}
        self.games = dict.fromkeys(units, 0)
        self.shapes = {k: u.light() for k, u in units.items()}

    def apply(self, field: str, at: Any, value: Any) -> None:
        if field == "units":
            self.units[at[0]].apply(at[1], at[2], value)
        elif field == "games":
            self.games[at] += value
        else:
            table = self.spec_seat[at]
            if len(value) > len(table):
                self.spec_seat[at] = table = np.pad(table, (0, len(value) - len(table)))
            table[:len(value)] += value

    def add(self, batch: Batch, out: Out) -> None:
        cols = batch.columns
        for k in np.unique(cols["num_players"]):
            k = int(k)
            mine = cols["num_players"] == k
            seat = cols["seat"][mine]

            def said(name: str, at: Any, value: Any, k: int = k) -> None:
                out("units", (k, name, at), value)

            self.shapes[k].add(batch, mine, seat, said, wins=cols["win_share"][mine])
            key = cols["spec"][mine] * k + seat
            if len(key):
                out("spec_seat", k, np.bincount(key))
            out("games", k, int(mine[batch.game_start].sum()))


@dataclass
class SeatTables:
    """:func:`~glory_ai.analysis.stats.seat_advantage` (``seat``) and
    :func:`~glory_ai.analysis.stats.seat_tests` (``tests``)."""

    seat: pd.DataFrame
    tests: pd.DataFrame


class Seats(Section[SeatTables]):
    name = "seats"
    title = "Seat advantage"
    topic = "seats"
    columns = ("run", "game", "deal", "num_players", "seat", "spec", "win_share")
    figure_files = "seat"

    streams = True

    def compute(self, frame: pd.DataFrame, report: Report) -> SeatTables:
        return SeatTables(T.seat_advantage(frame), T.seat_tests(frame))

    def compute_stream(self, stream: RunStream, report: Report) -> SeatTables:
        per_count = seat_sums(stream)
        return SeatTables(T.seat_advantage_of_sums(per_count), T.seat_tests_of_sums(per_count))

    def tables(self, result: SeatTables) -> dict[str, pd.DataFrame]:
        return {"seat": result.seat, "seat_tests": result.tests}

    def findings(self, report: Report, result: SeatTables) -> list[str]:
        seat, tests = result.seat, result.tests
        n_counts = len(tests)
        out = []
        for k in report.counts:
            rows = seat.xs(k, level="num_players")
            test = tests.loc[k]
            if k == 2:
                r = rows.loc[0]
                text = (f"P1 wins {pm(r['win_rate'], r['win_low'], r['win_high'])} of 2-player games "
                        f"(equal share 50%)")
            else:
                rates = ", ".join(pct(x, 0) for x in rows["win_rate"])
                text = (f"In {k}-player games the seats win {rates} (P1 to P{k}; equal share "
                        f"{pct(1 / k, 0)})")
            p = test["p_holm"]
            name = "t-test of P1's per-deal share" if k == 2 else "Hotelling's T² of per-deal seat shares"
            stated = adjusted(test["p_value"], p, n_counts, "player counts")
            if np.isfinite(p) and p < ALPHA:
                best = int(test["best_seat"])
                text += (f": a significant seat advantage, for {seat_name(best)} "
                         f"({name}, {stated})")
            else:
                text += f": no significant seat advantage ({name}, {stated})"
            if not test["balanced"]:
                text += ("; the specs did not sit equally often in every seat, so seat and strategy "
                         "effects are mixed")
            out.append(text + ".")
        return out

    def figures(self, report: Report, result: SeatTables) -> dict[str, FigureMaker]:
        return {"seat": lambda narrow: F.plot_seat_advantage(result.seat, narrow=narrow)}

    def html(self, page: Page, report: Report, result: SeatTables) -> None:
        add, tests = page.add, result.tests
        add('<h2 id="seats">Seat advantage</h2>')
        add('<p class="caption">Win rate by seat (P1 leads the first turn), 95% interval: '
            + esc(result.seat.attrs["model"]) + "; beside it the Wilson interval of the games taken "
            "as independent. The test of \"no seat advantage\" takes each deal's games together "
            "(each seat's mean win share in the deal): for 2 players, "
            + esc(T.tables.SEAT_TEST_2) + "; for 3-5, " + esc(T.tables.SEAT_TEST_K)
            + (f"; p-values {tests.attrs['holm']} over the {len(tests)} player counts"
               if len(tests) > 1 else "") + ".</p>")
        rows = []
        for (k, s), r in result.seat.iterrows():
            rows.append([esc(k), esc(seat_name(s)), count(r["games"]), pct(r["win_rate"]),
                         ci(r["win_low"], r["win_high"]), ci(r["wilson_low"], r["wilson_high"]),
                         pct(r["expected"]), num(100 * r["diff"], 1, True)])
        add(html_table(rows, ["players", "seat", "games", "win rate", "95% interval (deal bootstrap)",
                              "Wilson (games independent)", "equal share", "difference (points)"],
                       left=2))
        rows = []
        for k, r in tests.iterrows():
            cells = [esc(k), count(r["games"]), count(r["deals"]),
                     "t" if int(k) == 2 else "Hotelling's T²", num(r["statistic"], 2),
                     pval(r["p_value"])]
            if len(tests) > 1:
                cells.append(pval(r["p_holm"]))
            rows.append(cells + [esc(seat_name(r["best_seat"])), "yes" if r["balanced"] else "no"])
        add(html_table(rows, ["players", "games", "deals", "test", "statistic",
                              "p (unadjusted)" if len(tests) > 1 else "p (one test)"]
                       + ([f"p ({tests.attrs['holm']} over {len(tests)} player counts)"]
                          if len(tests) > 1 else [])
                       + ["best seat", "specs balanced over seats"]))
        page.figure("seat", "win rate by seat")
