"""Rule variants side by side: the core measures under each variant, with tests of "no
difference" on per-deal means, on the games whose line-up is played under every variant
(:func:`~glory_ai.analysis.stats.compare_variants`)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ... import stats as T
from ...stream import RunStream
from ..base import ALPHA, Page, Report, Section
from ..formats import adjusted, count, esc, html_table, num, pct, pval, reason_text
from .variant_sums import variant_tables

__all__ = ["VariantTables", "Variants"]


@dataclass
class VariantTables:
    """The variant table (None when no line-up is played under every variant: ``note``
    says so), ``scope`` (which games it compares, when not all) and, per variant, how its
    games mostly end and how long they last (``per_rules``: rules, end reason, its share,
    mean turns, mean decisions)."""

    table: pd.DataFrame | None
    note: str = ""
    scope: str = ""
    per_rules: list[tuple[str, str, float, float, float]] = field(default_factory=list)


def _comparable(frame: pd.DataFrame) -> tuple[pd.DataFrame | None, str]:
    """The games on which the rule variants can be compared: those whose line-up (player
    count and specs) is played under every variant, so that a difference between variants is
    not one between opponents or player counts. Returns (games or None, a note on the scope
    or why there is nothing to compare)."""
    per_game = frame[frame["seat"] == 0]
    codes = frame["spec"].cat.codes.to_numpy().astype(np.int64)
    base = int(codes.max()) + 2
    lineup = np.zeros(len(per_game), dtype=np.int64)
    for k in sorted(int(x) for x in per_game["num_players"].unique()):
        rows = (frame["num_players"] == k).to_numpy()
        spec = np.sort(codes[rows].reshape(-1, k), axis=1)
        key = np.full(len(spec), k, dtype=np.int64)
        for i in range(k):
            key = key * base + spec[:, i] + 1
        lineup[(per_game["num_players"] == k).to_numpy()] = key
    games = pd.DataFrame({"game": per_game["game"].to_numpy(), "lineup": lineup,
                          "rules": per_game["rules"].astype(str).to_numpy()})
    n_rules = games["rules"].nunique()
    shared = games.groupby("lineup")["rules"].nunique()
    common = set(shared.index[shared == n_rules])
    keep = games.loc[games["lineup"].isin(common), "game"]
    if keep.empty:
        return None, ("no line-up of strategies and player count is played under every rule "
                      "variant, so the variants are not compared")
    if len(keep) == len(games):
        return frame, ""
    return (frame[frame["game"].isin(keep)],
            f"compared on the {len(keep):,} games whose line-up (strategies and player count) "
            f"is played under every variant, out of {len(games):,}")


def _capital(text: str) -> str:
    return text[0].upper() + text[1:]


class Variants(Section[VariantTables]):
    name = "variants"
    title = "Rule variants"
    topic = "variants"
    columns = ("run", "game", "deal", "num_players", "rules", "seat", "spec", "win_share", "score",
               "end_reason", "turns", "decisions")

    def applies(self, report: Report) -> bool:
        # one set of rules (the report's facts count them): nothing to compare, nothing read
        return report.facts.get("rules", 2) > 1

    def compute(self, frame: pd.DataFrame, report: Report) -> VariantTables | None:
        if frame["rules"].nunique() <= 1:
            return None
        per_game = frame[frame["seat"] == 0]
        per_rules = []
        for rules, g in per_game.groupby("rules", observed=True, sort=True):
            share = g["end_reason"].astype(str).value_counts(normalize=True)
            per_rules.append((str(rules), str(share.index[0]), float(share.iloc[0]),
                              float(g["turns"].mean()), float(g["decisions"].mean())))
        sub, scope = _comparable(frame)
        if sub is None:
            return VariantTables(None, note=scope, per_rules=per_rules)
        return VariantTables(T.compare_variants(sub, by="rules"), scope=scope, per_rules=per_rules)

    streams = True

    def compute_stream(self, stream: RunStream, report: Report) -> VariantTables | None:
        table, note, per_rules = variant_tables(stream)
        if table is None:
            return VariantTables(None, note=note, per_rules=per_rules)
        return VariantTables(table, scope=note, per_rules=per_rules)

    def tables(self, result: VariantTables) -> dict[str, pd.DataFrame]:
        return {} if result.table is None else {"variants": result.table}

    def notes(self, result: VariantTables) -> dict[str, str]:
        if result.table is None:
            return {"variants": result.note}
        return {"variants_scope": result.scope} if result.scope else {}

    def findings(self, report: Report, result: VariantTables) -> list[str]:
        v = result.table
        if v is None:
            return [_capital(result.note) + "."]
        out = ["Rule variants are " + result.scope + "."] if result.scope else []
        conds = v.attrs["conditions"]
        family = int(v.attrs["tested"])
        out += _win_rate_sentences(v, conds, family)
        ends = v.xs("end", level="measure")
        ends = ends[np.isfinite(ends["p_value"])]
        if len(ends):
            reason = str(ends["p_holm"].idxmin())
            row = ends.loc[reason]
            shares = " and ".join(f"{pct(row[c])} under {c}" for c in conds if np.isfinite(row[c]))
            stated = adjusted(row["p_value"], row["p_holm"], family, "tests")
            if row["p_holm"] < ALPHA:
                out.append(f"The way games end differs significantly between the rule variants: "
                           f"games ending {reason_text(reason)}, {shares} "
                           f"(Welch t-test on per-deal shares, {stated}).")
            else:
                out.append("The way games end does not differ significantly between the rule "
                           f"variants (the clearest difference: games ending "
                           f"{reason_text(reason)}, {shares}; {stated}).")
        if result.per_rules:
            parts = [f"under {rules} games end mostly {reason_text(reason)} ({pct(share)}) and "
                     f"last {turns:.0f} turns ({decisions:.0f} decisions)"
                     for rules, reason, share, turns, decisions in result.per_rules]
            out.append(_capital("; ".join(parts) + "."))
        return out

    def html(self, page: Page, report: Report, result: VariantTables) -> None:
        page.add('<h2 id="variants">Rule variants side by side</h2>')
        v = result.table
        if v is None:
            page.add(f'<p class="note">{esc(result.note)}</p>')
            return
        conds = v.attrs["conditions"]
        family = int(v.attrs["tested"])
        page.add('<p class="caption">The core measures under each rule variant. p: '
                 + esc(v.attrs["test"]) + " (each deal's games taken together), and the same "
                 f"{esc(v.attrs['holm'])} over the {family} tests of the table."
                 + (f" {esc(_capital(result.scope))}." if result.scope else "") + "</p>")
        rows = []
        for (measure, item), r in v.iterrows():
            percent = measure in ("win rate", "P1 win rate", "end")
            cells = [esc(measure), esc(item)]
            for c in conds:
                cells.append(pct(r[c]) if percent else count(r[c]) if measure == "games"
                             else num(r[c]))
            cells += [pval(r["p_value"]), pval(r["p_holm"])]
            rows.append(cells)
        page.add(html_table(rows, ["measure", "", *conds, "p (unadjusted)",
                                   f"p ({v.attrs['holm']} over {family} tests)"], left=2))


def _win_rate_sentences(v: pd.DataFrame, conds: list[str], family: int) -> list[str]:
    """Each strategy whose win rate differs significantly between the variants, then those
    that do not (one sentence for them all)."""
    method = "Welch t-test" if len(conds) == 2 else "Alexander-Govern test"
    tested_rates: list[tuple[str, pd.Series]] = [
        (str(item), row) for (measure, item), row in v.iterrows()
        if measure == "win rate" and np.isfinite(row["p_value"])]
    out, unchanged = [], []
    for name, rrow in tested_rates:
        shares = " and ".join(f"{pct(rrow[c])} under {c}" for c in conds if np.isfinite(rrow[c]))
        if rrow["p_holm"] < ALPHA:
            out.append(f"{name} wins {shares}: a significant difference ({method} on "
                       f"per-deal win shares, {adjusted(rrow['p_value'], rrow['p_holm'], family, 'tests')}).")
        else:
            unchanged.append((name, rrow))
    if len(unchanged) == 1:
        name, rrow = unchanged[0]
        shares = " and ".join(f"{pct(rrow[c])} under {c}" for c in conds if np.isfinite(rrow[c]))
        out.append(f"{name} wins {shares}: no significant difference ({method} on per-deal "
                   f"win shares, {adjusted(rrow['p_value'], rrow['p_holm'], family, 'tests')}).")
    elif unchanged:
        listed = "; ".join(f"{name} " + " and ".join(pct(rrow[c]) for c in conds)
                           for name, rrow in unchanged)
        closest, rrow = min(unchanged, key=lambda pair: float(pair[1]["p_value"]))
        whom = ("strategy's win rate differs" if len(unchanged) == len(tested_rates)
                else "other strategy's win rate differs")
        out.append(f"No {whom} significantly between {' and '.join(conds)} ({method}s on "
                   f"per-deal win shares, Holm-adjusted over the {family} tests of the variant table): "
                   f"{listed}. The closest to a difference, {closest}, has "
                   f"{adjusted(rrow['p_value'], rrow['p_holm'], family, 'tests')}.")
    return out
