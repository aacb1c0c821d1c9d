"""An experiment's grids: a spec's score as one of its numbers varies against the same
opponents (:func:`~glory_ai.analysis.stats.grid_scores`), the curve that answers the
experiment's question."""
from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from ... import figures as F
from ... import stats as T
from ...stats.grids import grid_row, grid_table
from ...stats.streamed import count_sums, rate_intervals, rate_totals
from ...stream import NotStreamed, RunStream
from ..base import ALPHA, FigureMaker, Grid, Page, Report, Section
from ..formats import ci, count, esc, html_table, num, p_text, pct, plural, spec_cell

__all__ = ["GridCurves"]


def _bot_name(template: str) -> str:
    """The bot of a spec template, ``ismcts`` for ``ismcts:iters={iters}``."""
    return template.split(":", 1)[0]


def _interval_text(table: pd.DataFrame) -> str:
    return " / ".join(dict.fromkeys(str(x) for x in table["interval"]))


class GridCurves(Section[dict[str, pd.DataFrame]]):
    """Each grid's table (one row per value: score, interval, Elo), its sentences (the
    curve, the Elo per doubling, the last step) and its figure; result: grid name -> table."""

    name = "grids"
    answers = True
    columns = ("run", "game", "deal", "pairing", "rotation", "num_players", "seat", "spec",
               "win_share", "score", "rank")
    figure_files = r"grid-.+"

    def applies(self, report: Report) -> bool:
        return bool(report.grids)

    def compute(self, frame: pd.DataFrame, report: Report) -> dict[str, pd.DataFrame] | None:
        if not report.grids:
            return None
        return {grid.name: T.grid_scores(frame, grid.points) for grid in report.grids}

    streams = True

    def compute_stream(self, stream: RunStream, report: Report) -> dict[str, pd.DataFrame] | None:
        if not report.grids:
            return None
        out = {}
        for grid in report.grids:
            if len(grid.points) < 2:
                raise NotStreamed       # grid_scores says why
            rows, per_deal = {}, {}
            for value, run, spec in grid.points:
                rows[float(value)], per_deal[float(value)] = _point(stream, str(run), str(spec))
            out[grid.name] = grid_table(rows, per_deal)
        return out

    def tables(self, result: dict[str, pd.DataFrame]) -> dict[str, Any]:
        return {f"grid-{name}": table for name, table in result.items()}

    def findings(self, report: Report, result: dict[str, pd.DataFrame]) -> list[str]:
        return [s for grid in report.grids for s in _sentences(grid, result[grid.name])]

    def figures(self, report: Report, result: dict[str, pd.DataFrame]) -> dict[str, FigureMaker]:
        return {f"grid-{grid.name}": partial(_figure, grid, result[grid.name]) for grid in report.grids}

    def nav(self, report: Report, result: dict[str, pd.DataFrame]) -> list[tuple[str, str]]:
        return []

    def html(self, page: Page, report: Report, result: dict[str, pd.DataFrame]) -> None:
        for grid in report.grids:
            page.figure(f"grid-{grid.name}", f"{_bot_name(grid.template)}: score by {grid.parameter}")
            page.add(_table(grid, result[grid.name], report.colors))


def _point(stream: RunStream, run: str, spec: str) -> tuple[dict[str, Any], pd.DataFrame]:
    """A grid point's row and the spec's win shares per deal, from its run's sums (as
    :func:`~glory_ai.analysis.stats.grid_scores` gathers them from the frame). A run of
    several player counts, or without the spec, is left to the frame."""
    found = [r for r, one in enumerate(stream.runs) if one.label == run]
    if len(found) != 1 or len(stream.counts[found[0]]) != 1:
        raise NotStreamed
    r = found[0]
    k = next(iter(stream.counts[r]))
    sums = count_sums(stream, k, seats=False, only=[r])
    if spec not in sums.specs:
        raise NotStreamed
    n = len(sums.specs)
    used = sums.totals[:, 0] > 0
    part = rate_totals(sums.totals, sums.specs, np.full(n, 1.0 / k))[used]
    part.index.name = "spec"
    two = [s for s, u in zip(sums.specs, used, strict=True) if u]
    # a head-to-head match (every game between the two specs): the pentanomial interval
    h2h = sums.head_to_head(two[0], two[1]) \
        if k == 2 and len(two) == 2 and sums.mixed * 2 == int(sums.rows.sum()) else None
    rate = T.tables.win_rate_table(part, rate_intervals(sums.specs, sums.wins, sums.games, (), h2h), [])
    at = sums.specs.index(spec)
    wins, games = sums.wins.reshape(-1, n)[:, at], sums.games.reshape(-1, n)[:, at]
    played = games > 0
    per_deal = pd.DataFrame({"sum": wins[played], "size": games[played].astype(np.int64)},
                            index=pd.Index(stream.deals(r)[played], name="deal"))
    per_deal["mean"] = per_deal["sum"] / per_deal["size"]
    return grid_row(rate.loc[spec], spec, run, int(played.sum()), k == 2), per_deal


def _sentences(grid: Grid, table: pd.DataFrame) -> list[str]:
    """The answer a grid gives: the score at every value, the Elo per doubling, the last
    step (paired by deal)."""
    bot = _bot_name(grid.template)
    opponents = ", ".join(grid.opponents)
    values = [f"{pct(r['score'])} {ci(r['low'], r['high'])} at {v:,g}" for v, r in table.iterrows()]
    games = table["games"].unique()
    deals = table["deals"].unique()
    each = (f"{plural(games[0], 'game')} over {plural(deals[0], 'deal')} each"
            if len(games) == 1 and len(deals) == 1
            else f"{plural(table['games'].sum(), 'game')} in all")
    first, last = table.iloc[0], table.iloc[-1]
    direction = ("rises" if last["score"] > first["score"] else "falls"
                 if last["score"] < first["score"] else "ends where it starts")
    out = [f"Against {opponents}, {bot}'s score {direction} as its {grid.parameter} grows: "
           + ", ".join(values[:-1]) + f" and {values[-1]} ({each}; 95% intervals: "
           + _interval_text(table) + ")."]
    if "elo" in table.columns:
        elos = ", ".join(f"{num(r['elo'], 0, True)} at {v:,g}" for v, r in table.iterrows())
        text = f"In Elo against {opponents}: {elos}"
        trend = table.attrs.get("trend")
        if trend:
            text += (f"; each doubling of {grid.parameter} adds {num(trend['elo_per_doubling'], 0, True)} "
                     f"Elo on average (95% interval {ci(trend['low'], trend['high'], 1, 0, True)}; "
                     f"a logistic regression of every game's score on log2 {grid.parameter}, "
                     f"deal-clustered over the {plural(trend['deals'], 'deal')}, {p_text(trend['p_value'])})")
        elif table.attrs.get("separated"):
            text += ("; no trend per doubling is given: the scores are perfectly separated by the "
                     f"{grid.parameter} (every game at some values won, at the others lost), where a "
                     "logistic slope has no finite estimate")
        out.append(text + ".")
    step = table.attrs.get("step")
    if step:
        significant = step["p_value"] < ALPHA
        out.append(f"The last step, from {step['from']:,g} to {step['to']:,g} {grid.parameter}, "
                   f"changes the score by {num(100 * step['change'], 1, True)} points "
                   f"(95% interval {ci(step['low'], step['high'], sign=True)}; the two never played "
                   f"each other: each played the same {plural(step['deals'], 'deal')} against "
                   f"{opponents}, compared deal by deal): "
                   + ("a significant change" if significant else "not a significant change")
                   + f" ({p_text(step['p_value'])}, a single test, unadjusted).")
    return out


def _figure(grid: Grid, table: pd.DataFrame, narrow: bool) -> Any:
    opponents = ", ".join(grid.opponents)
    return F.plot_grid_curve(table.index.to_numpy(float), table["score"], table["low"], table["high"],
                             xlabel=grid.parameter, expected=float(table["expected"].mean()),
                             title=f"{_bot_name(grid.template)} against {opponents}: score by "
                                   f"{grid.parameter}",
                             ylabel=f"score, 95% interval ({_interval_text(table)})", narrow=narrow)


def _table(grid: Grid, table: pd.DataFrame, colors: dict[str, str]) -> str:
    two = "elo" in table.columns
    rows = []
    for value, r in table.iterrows():
        rows.append([f"{value:,g}", spec_cell(r["spec"], colors), esc(r["run"]),
                     count(r["games"]), count(r["deals"]), pct(r["score"]),
                     ci(r["low"], r["high"]), esc(r["interval"])]
                    + ([esc(T.elo_text(r["elo"], r["elo_low"], r["elo_high"]))] if two else []))
    header = [grid.parameter, "spec", "run", "games", "deals", "score", "95% interval", "model"]
    return html_table(rows, header + (["Elo"] if two else []), left=3)
