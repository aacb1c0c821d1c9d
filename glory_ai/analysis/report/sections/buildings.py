"""Building strength: for each building, the win rate of the seat-games that completed it
against those that did not, from a deal-clustered logistic regression
(:func:`~glory_ai.analysis.stats.building_strength`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ....cards import CARD_NAMES
from ... import figures as F
from ... import stats as T
from ...stream import NotStreamed, RunStream
from ..base import FigureMaker, Page, Report, Section
from ..formats import adjusted, ci, count, esc, html_table, num, pct, plural, pval

__all__ = ["MIN_COMPLETED", "BuildingTables", "Buildings"]

#: the summary names the strongest and weakest buildings among those completed (and not
#: completed) at least this many times, when there are two or more such buildings
MIN_COMPLETED = 30


@dataclass
class BuildingTables:
    """The building table, the buildings with a card in the deck of some game
    (``in_deck``) and the seat-games behind the table."""

    table: pd.DataFrame
    in_deck: set[str]
    seat_games: int


def _buildings_in_play(frame: pd.DataFrame) -> set[str]:
    """The buildings with at least one card in the deck of some game of the frame (the
    mode's deck and the variant's copies and removals)."""
    from ....config import GameConfig

    names: set[str] = set()
    seen = frame.drop_duplicates(["mode", "variant"])
    for mode, variant in zip(seen["mode"], seen["variant_dict"], strict=True):
        try:
            copies = GameConfig.from_options(2, str(mode), **dict(variant)).deck_copies()
        except (TypeError, ValueError):          # a rules version this build cannot read
            return set(CARD_NAMES[1:])
        names.update(CARD_NAMES[card] for card in range(1, len(CARD_NAMES)) if copies[card])
    return names


class Buildings(Section[BuildingTables]):
    name = "buildings"
    title = "Buildings"
    topic = "buildings"
    columns = ("run", "deal", "num_players", "seat", "spec", "win_share", "rules", "mode",
               "variant", "variant_dict", "completed:")
    figure_files = "buildings"

    streams = True

    def compute(self, frame: pd.DataFrame, report: Report) -> BuildingTables:
        return BuildingTables(T.building_strength(frame), _buildings_in_play(frame), len(frame))

    def compute_stream(self, stream: RunStream, report: Report) -> BuildingTables | None:
        from .building_sums import building_tables

        made = building_tables(stream, report.facts["rules"] > 1)
        if made is None:                 # a run's deals out of order: from the frame
            raise NotStreamed("a run's deals are not in order")
        table, rules = made
        variants: dict[str, Any] = {}
        for run in stream.runs:
            for key, options in getattr(run, "variants", {}).items():
                variants.setdefault(key, options)
        seen = pd.DataFrame({"mode": [m for m, _ in sorted(rules)], "variant": [v for _, v in sorted(rules)],
                             "variant_dict": [variants.get(v, {}) for _, v in sorted(rules)]})
        return BuildingTables(table, _buildings_in_play(seen), report.facts["seat_games"])

    def tables(self, result: BuildingTables) -> dict[str, pd.DataFrame]:
        return {"buildings": result.table}

    def findings(self, report: Report, result: BuildingTables) -> list[str]:
        b = result.table
        tested = b[b["effect"].notna()]
        m = int(b.attrs.get("tested", len(tested)))
        # the strongest and weakest among the buildings with enough completions (a building
        # completed twice, both times by a winner, tops the ranking by chance)
        enough = tested[(tested["n_completed"] >= MIN_COMPLETED)
                        & (result.seat_games - tested["n_completed"] >= MIN_COMPLETED)]
        among = ""
        if len(enough) >= 2 and len(enough) < len(tested):
            among = f" among the {len(enough)} completed at least {plural(MIN_COMPLETED, 'time')}"
            tested = enough
        if len(tested) < 1:
            return []
        held = ("holding strategy, seat, player count and rules fixed"
                if "rules" in b.attrs.get("controls", []) else
                "holding strategy, seat and player count fixed")
        top = tested.index[0]
        r = tested.loc[top]
        sig = bool(r["significant"])
        text = (f"{top} is the strongest building{among}: {num(100 * r['effect'], 1, True)} points of "
                f"win rate for the players who complete it "
                f"(95% interval {ci(r['effect_low'], r['effect_high'], sign=True)}, {held})")
        stated = adjusted(r["p_value"], r["p_holm"], m, "buildings")
        text += (f", significant after correcting for {plural(m, 'comparison')} ({stated})" if sig
                 else f", but not significant after correcting for {plural(m, 'comparison')} ({stated})")
        out = [text + "."]
        if len(tested) >= 2:
            low = tested.index[-1]
            r = tested.loc[low]
            out.append(f"{low} is the weakest building: {num(100 * r['effect'], 1, True)} points "
                       f"(95% interval {ci(r['effect_low'], r['effect_high'], sign=True)}, "
                       + ("significant" if r["significant"] else "not significant")
                       + f" after the correction: {adjusted(r['p_value'], r['p_holm'], m, 'buildings')}).")
            positive = (tested["effect"] > 0).mean()
            if positive > 0.75:
                out.append(f"{positive:.0%} of the building effects are positive: completing any "
                           "building scores influence and comes with a strong position, so "
                           "compare buildings with each other rather than with zero.")
        # a building outside every deck played (the other mode's cards, a removed one) cannot
        # be completed: it is named apart from those that were in the deck and never built
        in_deck = result.in_deck
        never = [name for name in b.index[b["n_completed"] == 0] if name in in_deck]
        absent = [name for name in b.index if name not in in_deck]
        if never:
            out.append(f"{len(never)} of the {len(in_deck)} buildings in the deck "
                       f"{'was' if len(never) == 1 else 'were'} never completed "
                       f"({', '.join(map(str, never[:6]))}{', ...' if len(never) > 6 else ''}).")
        if absent:
            out.append(f"{', '.join(map(str, absent[:6]))}{', ...' if len(absent) > 6 else ''} "
                       f"{'was' if len(absent) == 1 else 'were'} not in the deck of these games "
                       "(the other mode's cards or removed by the variant).")
        return out

    def figures(self, report: Report, result: BuildingTables) -> dict[str, FigureMaker]:
        if not result.table["effect"].notna().any():
            return {}
        return {"buildings": lambda narrow: F.plot_building_strength(result.table, narrow=narrow)}

    def html(self, page: Page, report: Report, result: BuildingTables) -> None:
        b = result.table
        page.add('<h2 id="buildings">Building strength</h2>')
        page.add(_caption(b))
        rows, full, classes = [], [], []
        for name, r in b.iterrows():
            tested = np.isfinite(r["effect"])
            rank = str(int(r["rank"])) if tested else "–"
            completed = f"{count(r['n_completed'])} ({pct(r['completion_rate'])})"
            rates = [pct(r["win_rate_completed"]), pct(r["win_rate_not"])]
            effect = [num(100 * r["effect"], 1, True), ci(r["effect_low"], r["effect_high"], sign=True)]
            strat = [num(100 * r["mh_diff"], 1, True), ci(r["mh_low"], r["mh_high"], sign=True)]
            rows.append([esc(name), rank, completed, *rates, *effect, pval(r["p_holm"]), *strat])
            full.append([esc(name), rank, completed, *rates, *effect, num(r["odds_ratio"], 2),
                         ci(r["log_odds_low"], r["log_odds_high"], 1, 2, True), pval(r["p_value"]),
                         pval(r["p_holm"]), *strat, num(100 * r["raw_diff"], 1, True)])
            classes.append("sig" if tested and r["significant"] else "")
        holm_head = f"p ({b.attrs['holm']} over {int(b.attrs.get('tested', 0))} buildings)"
        header = ["building", "rank", "completed (share)", "win rate: completed", "not",
                  "effect (points)", "95% interval", holm_head, "stratified", "95% interval"]
        full_header = ["building", "rank", "completed (share)", "win rate: completed", "not",
                       "effect (points)", "95% interval", "odds ratio", "log-odds 95% interval",
                       "p (unadjusted)", holm_head, "stratified", "95% interval",
                       "raw difference"]
        page.figure("buildings", "building strength forest plot")
        tested_n = int(b["effect"].notna().sum())
        if tested_n > 17:
            pick = list(range(12)) + list(range(tested_n - 5, tested_n))
            page.add("<h3>The 12 strongest and the 5 weakest</h3>")
            gap = ["…"] + [""] * (len(header) - 1)
            shown = [rows[i] for i in pick[:12]] + [gap] + [rows[i] for i in pick[12:]]
            page.add(html_table(shown, header, classes=[classes[i] for i in pick[:12]] + [""]
                                + [classes[i] for i in pick[12:]]))
        else:
            page.add(html_table(rows, header, classes=classes))
        page.add("<details><summary>Every building, with odds ratios and raw differences</summary>"
                 + html_table(full, full_header, classes=classes) + "</details>")


def _caption(b: pd.DataFrame) -> str:
    tested_count = int(b.attrs.get("tested", 0))
    rules = " + rules" if "rules" in b.attrs.get("controls", []) else ""
    return ('<p class="caption">For each building, the win rate of the seat-games that completed it '
            "against those that did not. <b>Effect</b>: from a logistic regression (statsmodels) win ~ "
            "completed + strategy + players:seat" + rules
            + ", the average change in win rate (points) from completing the building, all else as "
            f"it was. Its 95% interval and p take the deal as the unit: the standard error is the "
            f"larger of the deal-clustered one (over {plural(b.attrs.get('deals', 0), 'deal')}) and the "
            "model-based one (which stays honest for a building few players completed), t on "
            f"deals − 1 degrees of freedom; {plural(b.attrs.get('pseudo_games', 0), 'pseudo seat-game')} "
            "at the overall win rate on each side (completed, not completed) keep the estimate "
            "finite when only winners completed a building. p is "
            f"{esc(b.attrs.get('holm', 'Holm-adjusted'))} over the {plural(tested_count, 'building')} "
            "tested (green rows: significant). <b>Stratified</b>: the Mantel-Haenszel-weighted "
            "difference within strategy × player-count strata, a check on the model that takes the "
            "seat-games as independent. These are associations: completing buildings scores "
            "influence, and strong positions complete more of them.</p>")
