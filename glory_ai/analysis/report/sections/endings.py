"""Endings and game length: how games end (shares with deal-bootstrap intervals) and how
long they last in turns and decisions, per player count (and rule variant)."""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ... import figures as F
from ... import stats as T
from ..base import FigureMaker, Page, Report, Section
from ..formats import ci, count, esc, html_table, num, pct, reason_text

__all__ = ["EndingTables", "Endings"]


@dataclass
class EndingTables:
    """:func:`~glory_ai.analysis.stats.end_conditions` (``end``),
    :func:`~glory_ai.analysis.stats.game_length` (``length``) and every game's player count,
    turns and decisions (``per_game``, for the histograms and the sentences)."""

    end: pd.DataFrame
    length: pd.DataFrame
    per_game: pd.DataFrame


class Endings(Section[EndingTables]):
    name = "endings"
    title = "Endings and length"
    topic = "endings"
    columns = ("run", "game", "deal", "num_players", "rules", "seat", "end_reason", "turns",
               "decisions")
    figure_files = "end|length"

    def compute(self, frame: pd.DataFrame, report: Report) -> EndingTables:
        by = ["num_players"] + (["rules"] if frame["rules"].nunique() > 1 else [])
        per_game = frame.loc[frame["seat"] == 0, ["seat", "num_players", "turns", "decisions"]]
        return EndingTables(T.end_conditions(frame, by=by), T.game_length(frame, by=by), per_game)

    def tables(self, result: EndingTables) -> dict[str, pd.DataFrame]:
        return {"end": result.end, "length": result.length}

    def findings(self, report: Report, result: EndingTables) -> list[str]:
        per_count = []
        for k in report.counts:
            part = result.end.xs(k, level="num_players")
            part = part.groupby(level="end_reason", sort=False)["games"].sum()
            share = part / part.sum()
            per_count.append(f"{k}-player games end mostly {reason_text(str(share.idxmax()))} "
                             f"({pct(share.max())})")
        many = len(report.counts) > 1
        out = [("; ".join(per_count) if many else per_count[0].replace(
            f"{report.counts[0]}-player games", "Games", 1)) + "."]
        lens = []
        for k in report.counts:
            g = result.per_game[result.per_game["num_players"] == k]
            lens.append(f"a {k}-player game lasts {g['turns'].mean():.0f} turns on average "
                        f"(median {g['turns'].median():.0f}) and {g['decisions'].mean():.0f} decisions")
        sentence = "; ".join(lens) + "."
        return out + [sentence[0].upper() + sentence[1:]]

    def figures(self, report: Report, result: EndingTables) -> dict[str, FigureMaker]:
        return {"end": lambda narrow: F.plot_end_conditions(result.end, narrow=narrow),
                "length": lambda narrow: F.plot_game_length(result.per_game, narrow=narrow)}

    def html(self, page: Page, report: Report, result: EndingTables) -> None:
        add, end = page.add, result.end
        add('<h2 id="endings">Endings and game length</h2>')
        keys = list(end.index.names)[:-1]
        reasons = list(dict.fromkeys(str(r) for r in end.index.get_level_values("end_reason")))
        rows = []
        for idx, part in end.groupby(level=keys, sort=True):
            idx = idx if isinstance(idx, tuple) else (idx,)
            part = part.droplevel(keys)
            rows.append([esc(v) for v in idx] + [count(part["games"].sum())]
                        + [pct(part.loc[r, "share"]) if r in part.index else "–" for r in reasons])
        add(html_table(rows, [{"num_players": "players"}.get(k, k) for k in keys] + ["games"]
                       + [F.END_LABELS.get(r, r) for r in reasons], left=len(keys)))
        rows = [[esc(v) for v in (idx if isinstance(idx, tuple) else (idx,))]
                + [count(r["games"]), pct(r["share"]), ci(r["low"], r["high"]),
                   ci(r["wilson_low"], r["wilson_high"])]
                for idx, r in end.iterrows()]
        add("<details><summary>With counts and intervals</summary>"
            + f'<p class="caption">95% interval: {esc(end.attrs["model"])}; beside it the Wilson '
            "interval of the games taken as independent.</p>"
            + html_table(rows, [{"num_players": "players", "end_reason": "end"}.get(k, k)
                                for k in end.index.names]
                         + ["games", "share", "95% interval", "Wilson (games independent)"],
                         left=len(keys) + 1) + "</details>")
        page.figure("end", "end conditions")
        length = result.length
        keys = list(length.index.names)
        rows = []
        for idx, r in length.iterrows():
            idx = idx if isinstance(idx, tuple) else (idx,)
            cells = [esc(v) for v in idx] + [count(r["games"])]
            for col in ("turns", "decisions"):
                cells += [f"{num(r[f'{col}_mean'])} ± {num(r[f'{col}_sd'])}",
                          num(r[f"{col}_median"], 0),
                          f"{num(r[f'{col}_min'], 0)}–{num(r[f'{col}_max'], 0)}"]
            rows.append(cells)
        add(html_table(rows, [{"num_players": "players"}.get(k, k) for k in keys]
                       + ["games", "turns: mean ± sd", "median", "range",
                          "decisions: mean ± sd", "median", "range"], left=len(keys)))
        page.figure("length", "game length histograms")
