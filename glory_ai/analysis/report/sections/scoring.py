"""How players score: mean VP per seat-game by component (influence, vault, Merchant
bonuses, Statue, Wall), per spec (and player count)."""
from __future__ import annotations

import pandas as pd

from ... import figures as F
from ... import stats as T
from ...load import VP_BUILDINGS, VP_COLUMNS
from ...stream import RunStream
from ..base import FigureMaker, Page, Report, Section
from ..formats import count, esc, html_table, num, spec_cell

__all__ = ["Scoring"]

_COMPONENTS = ("influence", "vault", "merchant_bonus", "statue", "wall")
_LABELS = {"influence": "influence", "vault": "the vault", "merchant_bonus": "Merchant bonuses",
           "statue": "the Statue", "wall": "the Wall"}


class Scoring(Section[pd.DataFrame]):
    """Result: :func:`~glory_ai.analysis.stats.vp_breakdown`, by player count when there
    are several."""

    name = "scoring"
    title = "Scoring"
    topic = "scoring"
    columns = ("num_players", "spec", "score", *VP_COLUMNS)
    optional_columns = (f"vp_{VP_BUILDINGS}",)
    figure_files = "vp"

    streams = True

    def compute(self, frame: pd.DataFrame, report: Report) -> pd.DataFrame:
        return T.vp_breakdown(frame, by="num_players" if len(report.counts) > 1 else None)

    def compute_stream(self, stream: RunStream, report: Report) -> pd.DataFrame:
        by = ["num_players"] if len(report.counts) > 1 else []
        have = stream.column_names()
        # a variant's building points where some run has them (0 in the others, as loaded)
        values = ["score", *VP_COLUMNS, *[c for c in self.optional_columns if c in have]]
        return T.vp_breakdown_of_sums(stream.grouped([*by, "spec"], values, missing=0.0), by,
                                      stream.spec_order)

    def tables(self, result: pd.DataFrame) -> dict[str, pd.DataFrame]:
        return {"vp": result}

    def findings(self, report: Report, result: pd.DataFrame) -> list[str]:
        flat = result.reset_index()
        top = flat.loc[flat["total"].idxmax()]
        main = max(_COMPONENTS, key=lambda c: top[c])
        where = f" in {int(top['num_players'])}-player games" if "num_players" in flat.columns else ""
        return [f"{top['spec']} scores the most VP{where}: {num(top['total'])} a game, "
                f"{top[main] / top['total']:.0%} of it from {_LABELS[main]}."]

    def figures(self, report: Report, result: pd.DataFrame) -> dict[str, FigureMaker]:
        return {"vp": lambda narrow: F.plot_vp_breakdown(result, narrow=narrow)}

    def html(self, page: Page, report: Report, result: pd.DataFrame) -> None:
        page.add('<h2 id="scoring">How players score</h2>')
        page.add('<p class="caption">Mean VP per seat-game by component: influence (from buildings and '
                 "the start), vault, Merchant bonuses, Statue and Wall.</p>")
        keys = list(result.index.names)
        extra = [VP_BUILDINGS] if VP_BUILDINGS in result.columns else []
        rows = []
        for idx, r in result.iterrows():
            idx = idx if isinstance(idx, tuple) else (idx,)
            cells = [spec_cell(v, report.colors) if name == "spec" else esc(v)
                     for name, v in zip(keys, idx, strict=True)]
            cells += [count(r["games"])] + [num(r[c]) for c in (*_COMPONENTS, *extra, "total")]
            rows.append(cells)
        page.add(html_table(rows, [{"num_players": "players"}.get(k, k) for k in keys]
                            + ["games", "influence", "vault", "Merchant", "Statue", "Wall",
                               *(["building points"] if extra else []), "total"],
                            left=len(keys)))
        page.figure("vp", "VP breakdown")
