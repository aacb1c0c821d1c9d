"""Strategies: win rates (by player count, pooled, by seat), and where two specs met at a
table, Bradley-Terry ratings, the head-to-head results and the finishing-ahead matrix of
each player count. Also :func:`summary_table`, the table of ``summary.csv``."""
from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from ... import figures as F
from ... import stats as T
from ...stats import paired as P
from ...stream import RunStream
from ..base import ALPHA, FigureMaker, Page, Report, Section
from ..formats import (
    adjusted,
    ci,
    count,
    esc,
    html_table,
    models_text,
    num,
    pct,
    plural,
    pm,
    pval,
    seat_name,
    spec_cell,
)
from .strategy_sums import CountTables, StrategyTables, strategy_tables

__all__ = ["CountTables", "StrategyTables", "Strategies", "summary_table"]


class Strategies(Section[StrategyTables]):
    name = "strategies"
    topic = "strategies"
    columns = ("run", "game", "deal", "pairing", "rotation", "num_players", "seat", "spec",
               "win_share", "score", "rank")
    figure_files = r"win_rates|(matrix|ratings)_\d"

    streams = True

    def compute_stream(self, stream: RunStream, report: Report) -> StrategyTables:
        return strategy_tables(stream, report)

    def compute(self, frame: pd.DataFrame, report: Report) -> StrategyTables:
        win_rates = T.win_rates(frame, by="num_players")
        pooled = by_seat = None
        if report.compared:
            compared = frame["num_players"].isin(report.compared)
            # every player count compared (the usual case): the frame itself, not a copy
            played = frame if compared.all() else frame[compared]
            if len(report.compared) > 1:
                pooled = T.win_rates(played)
            by_seat = T.win_rates(played, by=["num_players", "seat"])
        per_count = {}
        for k in report.compared:
            # the count's rows taken once, and its seat pairs summed per deal once, for the
            # three tables
            mine = frame["num_players"] == k
            sub = frame if mine.all() else frame[mine]
            sums = T.pair_sums(sub, num_players=k)
            rated = T.ratings(sub, num_players=k, sums=sums)
            per_count[k] = CountTables(rated if rated.attrs.get("model") else None,
                                       T.finishing_matrix(sub, num_players=k, sums=sums),
                                       T.pairwise(sub, num_players=k, sums=sums))
            del sums, sub, mine
        runs = {k: {str(r) for r in frame.loc[frame["num_players"] == k, "run"].unique()}
                for k in report.compared}
        return StrategyTables(win_rates, pooled, by_seat, per_count, runs)

    def tables(self, result: StrategyTables) -> dict[str, Any]:
        out: dict[str, Any] = {"win_rates": result.win_rates}
        if result.win_rates_all is not None:
            out["win_rates_all"] = result.win_rates_all
        if result.win_rates_seat is not None:
            out["win_rates_seat"] = result.win_rates_seat
        for k, tables in result.per_count.items():
            if tables.ratings is not None:
                out[f"ratings_{k}"] = tables.ratings
            out[f"matrix_{k}"] = tables.matrix
            out[f"pairwise_{k}"] = tables.pairwise
        return out

    def findings(self, report: Report, result: StrategyTables) -> list[str]:
        # compared only where they met, at a table with two specs or more (in self-play
        # every spec wins its equal share by construction)
        out = []
        if not report.compared:
            out.append("Every game is self-play (one spec at each table): win rates compare "
                       "seats, not strategies.")
        # a grid's runs pool into win rates of specs that each met only the grid's opponents:
        # its curve (the grid sentences) speaks for those player counts instead
        in_grids = {str(run) for grid in report.grids for _, run, _ in grid.points}
        for k in report.compared:
            if in_grids and result.runs[k] <= in_grids:
                continue
            out += _best_and_worst(result.win_rates.xs(k, level="num_players"),
                                   result.per_count[k].pairwise,
                                   f"in {k}-player games" if len(report.counts) > 1 else "")
        return out

    def figures(self, report: Report, result: StrategyTables) -> dict[str, FigureMaker]:
        makers: dict[str, FigureMaker] = {}
        if report.compared:
            rates = result.compared_rates(report.compared)
            shown = rates if len(report.compared) > 1 else rates.droplevel("num_players")
            makers["win_rates"] = lambda narrow: F.plot_win_rates(shown, report.colors, narrow=narrow)
        for k in report.compared:
            tables = result.per_count[k]
            order = None
            if tables.ratings is not None:
                makers[f"ratings_{k}"] = partial(_ratings_figure, tables.ratings, report.colors)
                order = [str(s) for s in tables.ratings.sort_values(
                    "rating", ascending=False, kind="stable").index]
            makers[f"matrix_{k}"] = partial(_matrix_figure, tables.matrix, order)
        return makers

    def nav(self, report: Report, result: StrategyTables) -> list[tuple[str, str]]:
        return [("win-rates", "Win rates"), ("ratings", "Ratings")] if report.compared else []

    def html(self, page: Page, report: Report, result: StrategyTables) -> None:
        if not report.compared:             # in self-play the win rates are equal shares
            return
        add, colors = page.add, report.colors
        rates = result.compared_rates(report.compared)
        add('<h2 id="win-rates">Win rates</h2>')
        add('<p class="caption">Win rate of each strategy (its share of the wins over its '
            "seat-games); the equal share is 1/players. 95% interval: "
            + models_text(rates.attrs["models"]) + ". Beside it, the Wilson interval of the "
            "seat-games taken as independent, for comparison.</p>")
        rows, header = _win_rate_rows(rates, colors, ["num_players", "spec"])
        add(html_table(rows, header, left=2))
        page.figure("win_rates", "win rates per strategy")
        if result.win_rates_all is not None:
            rows, header = _win_rate_rows(result.win_rates_all, colors, ["spec"])
            add("<details><summary>All player counts pooled</summary>" + html_table(rows, header)
                + "</details>")
        assert result.win_rates_seat is not None
        rows, header = _win_rate_rows(result.win_rates_seat, colors, ["num_players", "seat", "spec"])
        add("<details><summary>By seat</summary>" + html_table(rows, header, left=3) + "</details>")
        _ratings_html(page, report, result)


def _ratings_figure(rated: pd.DataFrame, colors: dict[str, str], narrow: bool) -> Any:
    return F.plot_ratings(rated, colors, narrow=narrow)


def _matrix_figure(matrix: pd.DataFrame, order: list[str] | None, narrow: bool) -> Any:
    return F.plot_finishing_matrix(matrix, order=order, narrow=narrow)


def _best_and_worst(wr: pd.DataFrame, pairs: pd.DataFrame, where: str) -> list[str]:
    """The sentences of one player count: the best spec against the strongest it met (by
    their games against each other), and the weakest."""
    if len(wr) < 2:
        return ([f"Only {wr.index[0]} plays{' ' + where if where else ''}: "
                 "there is no strategy to compare it with."] if len(wr) == 1 else [])
    best = wr.index[0]
    b = wr.loc[best]
    # win rates against different opponents do not compare: the best is set against
    # the strongest spec it met, by their games against each other
    met = [str(o) for o in wr.index[1:] if _pair_row(pairs, str(best), str(o)) is not None]
    text = (f"{str(best)} has the highest win rate{' ' + where if where else ''}: "
            f"{pm(b['win_rate'], b['win_low'], b['win_high'])} of {plural(b['games'], 'game')} "
            f"(equal share {pct(b['expected'], 0)})")
    if not met:
        return [text + "."]
    second = met[0]
    s = wr.loc[second]
    if len(met) < len(wr) - 1:
        text += (f", against {', '.join(met)} only (it did not play "
                 f"{', '.join(str(o) for o in wr.index[1:] if str(o) not in met)})")
        if len(met) > 1:
            text += (f"; the strongest of them is {second} "
                     f"({pm(s['win_rate'], s['win_low'], s['win_high'])})")
    else:
        text += f", ahead of {second} ({pm(s['win_rate'], s['win_low'], s['win_high'])})"
    found = _pair_row(pairs, str(best), second)
    assert found is not None
    row, flipped = found
    score = 1.0 - row["score"] if flipped else row["score"]
    low, high = (1.0 - row["high"], 1.0 - row["low"]) if flipped else (row["low"], row["high"])
    test = ("t-test on the two games of each deal" if row["interval"] == "pentanomial"
            else "t-test on per-deal scores")
    significant = row["p_holm"] < ALPHA and score > 0.5
    verdict = (f"; against each other it finishes ahead in {pct(score)} "
               f"{ci(low, high)} of {plural(row['games'], 'game')} over "
               f"{plural(row['deals'], 'deal')}, "
               + ("a significant edge" if significant else "not a significant difference")
               + f" ({test}, {adjusted(row['p_value'], row['p_holm'], len(pairs), 'pairs')})")
    out = [text + verdict + "."]
    worst = wr.index[-1]
    w = wr.loc[worst]
    if len(wr) > 2:
        out.append(f"{worst} is the weakest{' ' + where if where else ''}: "
                   f"{pm(w['win_rate'], w['win_low'], w['win_high'])}.")
    return out


def _pair_row(table: pd.DataFrame, a: str, b: str) -> tuple[pd.Series, bool] | None:
    """The row of a pairwise table for specs a and b, and whether it reads from b's side."""
    for x, y, flipped in ((a, b, False), (b, a, True)):
        hit = table[(table["spec"] == x) & (table["opponent"] == y)]
        if len(hit):
            return hit.iloc[0], flipped
    return None


def _ratings_html(page: Page, report: Report, result: StrategyTables) -> None:
    add, colors = page.add, report.colors
    add('<h2 id="ratings">Ratings and head-to-head results</h2>')
    add('<p class="caption">Ratings: Bradley-Terry on pairwise finishing order (in every '
        "game, every two seats holding different strategies are one comparison), on the "
        "logistic Elo scale (mean 0; a 100-point gap predicts finishing ahead 64% of the "
        f"time), with a Gaussian prior N(0, {P.RATING_PRIOR_SD:g}²) on every rating "
        "that keeps them finite for any record; 95% interval: "
        + esc(P.MODEL_DEAL_BOOTSTRAP)
        + ", or for a perfect record (the same in every resample) the profile likelihood. "
        "Head to head: every two strategies that met, how often the first finished ahead of "
        "the second, its interval and the test of evenly matched — 2 players: "
        + esc(P.MODEL_PENTANOMIAL) + "; 3-5 players: "
        + esc(P.MODEL_DEAL_T) + " of finishing ahead. The heatmap: "
        + esc(P.FINISHING_CAPTION) + "</p>")
    for k in report.compared:
        tables = result.per_count[k]
        add(f"<h3>{k} players</h3>")
        if tables.ratings is not None:
            rows = [[spec_cell(s, colors), num(r["rating"], 0, True),
                     ci(r["low"], r["high"], 1, 0, True), esc(r["interval"]),
                     count(r["games"])]
                    for s, r in tables.ratings.iterrows()]
            add(html_table(rows, ["spec", "Elo (BT)", "95% interval", "interval", "games"]))
            page.figure(f"ratings_{k}", f"rating ladder, {k} players")
        rows, header = _pairwise_rows(tables.pairwise, colors)
        table = html_table(rows, header, left=2)
        add(table if len(rows) <= 10 else
            f"<details><summary>Head to head: the {len(rows)} pairs</summary>{table}</details>")
        page.figure(f"matrix_{k}", f"finishing ahead, {k} players")


def _win_rate_rows(table: pd.DataFrame, colors: dict[str, str], keys: Sequence[str]
                   ) -> tuple[list[list[str]], list[str]]:
    rows = []
    for idx, r in table.iterrows():
        idx = idx if isinstance(idx, tuple) else (idx,)
        cells = []
        for name, value in zip(keys, idx, strict=True):
            cells.append(spec_cell(value, colors) if name == "spec" else
                         esc(seat_name(value) if name == "seat" else value))
        cells += [count(r["games"]), num(r["wins"], 1), pct(r["win_rate"]),
                  ci(r["win_low"], r["win_high"]), esc(r["interval"]),
                  ci(r["wilson_low"], r["wilson_high"]), pct(r["expected"]),
                  num(r["mean_score"]), num(r["mean_rank"], 2)]
        rows.append(cells)
    header = [{"num_players": "players", "seat": "seat", "spec": "spec"}.get(k, k) for k in keys]
    return rows, header + ["games", "wins", "win rate", "95% interval", "model",
                           "Wilson (games independent)", "equal share", "mean VP", "mean place"]


def _wrapping(text: str) -> str:
    """An estimate and its interval ("+759 [+558, +inf]") whose interval may go under the
    estimate when the table is short of width (the page's ``.wrap``)."""
    value, space, interval = text.partition(" [")
    if not space:
        return esc(text)
    return f'<span class="wrap">{esc(value)} <span>[{esc(interval)}</span></span>'


def _pairwise_rows(table: pd.DataFrame, colors: dict[str, str]) -> tuple[list[list[str]], list[str]]:
    two = table.attrs.get("num_players") == 2
    # one interval model for every row (the usual case): named in the header, no column
    models = list(dict.fromkeys(str(m) for m in table["interval"]))
    one_model = len(models) == 1
    rows = []
    for _, r in table.iterrows():
        cells = [spec_cell(r["spec"], colors), spec_cell(r["opponent"], colors),
                 count(r["games"]), count(r["deals"]), pct(r["score"]),
                 ci(r["low"], r["high"])] + ([] if one_model else [esc(r["interval"])]) + [
                 _wrapping(T.elo_text(r["elo"], r["elo_low"], r["elo_high"]))]
        if two:
            cells.append(_wrapping(T.elo_text(r["nelo"], r["nelo_low"], r["nelo_high"]))
                         if np.isfinite(r["nelo_low"]) else "–")
        cells += [ci(r["wilson_low"], r["wilson_high"]), pval(r["p_value"])]
        if len(table) > 1:
            cells.append(pval(r["p_holm"]))
        rows.append(cells)
    interval = ["95% interval", "model"] if not one_model else [f"95% interval ({models[0]})"]
    header = ["spec", "opponent", "games", "deals", "finishes ahead", *interval,
              "Elo"] + (["normalized Elo"] if two else []) + [
        "Wilson (games independent)"]
    if len(table) > 1:
        header += ["p (unadjusted)", f"p ({table.attrs['holm']} over {len(table)} pairs)"]
    else:
        header += ["p (one test)"]
    return rows, header


def summary_table(frame: pd.DataFrame, tables: dict[str, Any] | None = None) -> pd.DataFrame:
    """The win-rate table of ``summary.csv``: one row per player count and spec (columns
    ``num_players``, ``spec``, ``games``, ``wins``, ``win_rate``, ``win_low``, ``win_high``,
    ``interval`` (the model of that interval), ``wilson_low``, ``wilson_high``, ``expected``,
    ``mean_score``, ``mean_rank``, ``rating``, ``rating_low``, ``rating_high`` and
    ``rating_interval``; no rating in self-play)."""
    tables = tables or {}
    wr = tables.get("win_rates")
    if wr is None:
        wr = T.win_rates(frame, by="num_players")
    out = wr.reset_index()
    out["rating"] = np.nan
    out["rating_low"] = np.nan
    out["rating_high"] = np.nan
    out["rating_interval"] = ""
    for k in sorted(int(x) for x in out["num_players"].unique()):
        rated = tables.get(f"ratings_{k}")
        if rated is None and not tables:
            rated = T.ratings(frame, num_players=k)
        if rated is None or not rated.attrs.get("model"):
            continue
        for spec, row in rated.iterrows():
            mask = (out["num_players"] == k) & (out["spec"].astype(str) == str(spec))
            out.loc[mask, ["rating", "rating_low", "rating_high"]] = \
                [row["rating"], row["low"], row["high"]]
            out.loc[mask, "rating_interval"] = row["interval"]
    out["spec"] = out["spec"].astype(str)
    return out
