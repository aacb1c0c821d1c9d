"""Roles led: mean turns per seat-game leading each role, per spec (records that carry
``roles_led``)."""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ... import AnalysisError
from ... import stats as T
from ...stream import RunStream
from ..base import Page, Report, Section
from ..formats import count, esc, html_table, num, spec_cell

__all__ = ["RoleTable", "RolesLed"]


@dataclass
class RoleTable:
    """:func:`~glory_ai.analysis.stats.roles_led`, or why there is none (``note``)."""

    table: pd.DataFrame | None
    note: str | None = None


class RolesLed(Section[RoleTable]):
    name = "roles"
    title = "Roles led"
    columns = ("num_players", "spec", "led:")

    streams = True

    def compute_stream(self, stream: RunStream, report: Report) -> RoleTable | None:
        cols = [c for c in stream.column_names() if c.startswith("led:")]
        if not cols:
            return None
        by = ["num_players"] if len(report.counts) > 1 else []
        sums = stream.grouped([*by, "spec"], cols, known=cols[0])
        try:
            return RoleTable(T.roles_led_of_sums(sums, by, stream.spec_order, cols))
        except AnalysisError as exc:
            return RoleTable(None, str(exc))

    def compute(self, frame: pd.DataFrame, report: Report) -> RoleTable | None:
        if not any(c.startswith("led:") for c in frame.columns):
            return None
        try:
            return RoleTable(T.roles_led(frame, by="num_players" if len(report.counts) > 1 else None))
        except AnalysisError as exc:
            return RoleTable(None, str(exc))

    def tables(self, result: RoleTable) -> dict[str, pd.DataFrame]:
        return {} if result.table is None else {"roles": result.table}

    def notes(self, result: RoleTable) -> dict[str, str]:
        return {} if result.note is None else {"roles": result.note}

    def nav(self, report: Report, result: RoleTable) -> list[tuple[str, str]]:
        return [] if result.table is None else super().nav(report, result)

    def html(self, page: Page, report: Report, result: RoleTable) -> None:
        roles = result.table
        if roles is None:
            return
        page.add('<h2 id="roles">Roles led</h2>')
        page.add('<p class="caption">Mean turns per seat-game leading each role.</p>')
        keys = list(roles.index.names)
        rows = []
        for idx, r in roles.iterrows():
            idx = idx if isinstance(idx, tuple) else (idx,)
            rows.append([spec_cell(v, report.colors) if n == "spec" else esc(v)
                         for n, v in zip(keys, idx, strict=True)]
                        + [count(r["games"])] + [num(r[c], 2) for c in roles.columns[1:]])
        page.add(html_table(rows, [{"num_players": "players"}.get(k, k) for k in keys] + ["games"]
                            + list(roles.columns[1:]), left=len(keys)))
