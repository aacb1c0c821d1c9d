"""Endings and game length: how games end (shares with deal-bootstrap intervals) and how
long they last in turns and decisions, per player count (and rule variant)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ... import figures as F
from ... import stats as T
from ...stats.sums import count_stats
from ...stream import Batch, Fold, Out, RunStream, UnitSums
from ..base import FigureMaker, Page, Report, Section
from ..formats import ci, count, esc, html_table, num, pct, reason_text

__all__ = ["EndingTables", "Endings"]


def _summed(counts: np.ndarray | None, more: np.ndarray) -> np.ndarray:
    """Two arrays of counts added (the shorter padded with zeros)."""
    if counts is None:
        return more
    size = max(len(counts), len(more))
    return np.pad(counts, (0, size - len(counts))) + np.pad(more, (0, size - len(more)))


def _ending_tables(stream: RunStream, by: list[str], ended: dict[tuple[Any, ...], dict[int, UnitSums]],
                   lengths: dict[tuple[Any, ...], dict[str, np.ndarray]]
                   ) -> tuple[pd.DataFrame, pd.DataFrame, dict[int, dict[str, np.ndarray]]]:
    """The tables of :class:`Endings` from each group's games per deal unit and end reason
    (by its code) and per length."""
    names = stream.names.get("end_reason", [])
    reasons = T.tables._reason_order(sorted({names[c] for per_reason in ended.values() for c in per_reason}))
    parts = []
    for key in sorted(ended):
        per_reason = ended.pop(key)         # each group's sums freed once its table is made
        size = next(iter(per_reason.values())).size
        table = np.zeros((size, len(reasons)), dtype=np.int64)
        for code, sums in per_reason.items():
            table[:, reasons.index(names[code])] = sums.table()[:, 0].astype(np.int64)
        # the deals that hold the group's games, in (run, deal) order
        parts.append((key, table[table.sum(axis=1) > 0]))
    end = T.end_conditions_of_counts(parts, by, reasons)
    length = T.game_length_of_counts(lengths, by)
    per_count: dict[int, dict[str, np.ndarray]] = {}
    for key, counts in lengths.items():
        mine = per_count.setdefault(int(key[0]), {})
        for col in ("turns", "decisions"):
            mine[col] = _summed(mine.get(col), counts[col])
    return end, length, per_count


class _EndFold(Fold):
    """The endings' sums per group (player count, rules): its games per deal unit and end
    reason (``ended``) and per length (``lengths``)."""

    SUMS = ("stream", "ended", "lengths")

    def __init__(self, stream: RunStream, by: list[str]) -> None:
        self.stream, self.by, self.names = stream, by, stream.names
        self.runs = {k: [r for r, counts in enumerate(stream.counts) if k in counts]
                     for k in {k for counts in stream.counts for k in counts}}
        self.shapes = {k: stream.sums(runs, 1).light() for k, runs in self.runs.items()}
        self.ended: dict[tuple[Any, ...], dict[int, UnitSums]] = {}
        self.lengths: dict[tuple[Any, ...], dict[str, np.ndarray]] = {}

    def apply(self, field: str, at: Any, value: Any) -> None:
        if field == "lengths":
            counts = self.lengths.setdefault(at[0], {})
            counts[at[1]] = _summed(counts.get(at[1]), value)
            return
        key, code, name, where = at
        per_reason = self.ended.setdefault(key, {})
        if code not in per_reason:
            per_reason[code] = self.stream.sums(self.runs[key[0]], 1)
        per_reason[code].apply(name, where, value)

    def add(self, batch: Batch, out: Out) -> None:
        by = self.by
        first = batch.columns["seat"] == 0
        cols = {name: values[first] for name, values in batch.columns.items()}
        keys = np.column_stack([cols[c] for c in by])
        for values in np.unique(keys, axis=0):
            mine = (keys == values).all(axis=1)
            key = tuple(self.names[c][v] if c == "rules" else int(v) for c, v in zip(by, values, strict=True))
            for code in np.unique(cols["end_reason"][mine]):
                these = np.flatnonzero(first)[mine & (cols["end_reason"] == code)]

                def said(name: str, at: Any, value: Any, key: tuple[Any, ...] = key,
                         code: int = int(code)) -> None:
                    out("ended", (key, code, name, at), value)

                self.shapes[key[0]].add(batch, these, np.zeros(len(these), dtype=np.int64), said)
            for col in ("turns", "decisions"):
                out("lengths", (key, col), np.bincount(cols[col][mine].astype(np.int64)))


@dataclass
class EndingTables:
    """:func:`~glory_ai.analysis.stats.end_conditions` (``end``),
    :func:`~glory_ai.analysis.stats.game_length` (``length``) and each player count's games
    per number of turns and of decisions (``lengths``,
    :func:`~glory_ai.analysis.figures.length_counts`: for the histograms and the sentences)."""

    end: pd.DataFrame
    length: pd.DataFrame
    lengths: dict[int, dict[str, np.ndarray]]


class Endings(Section[EndingTables]):
    name = "endings"
    title = "Endings and length"
    topic = "endings"
    columns = ("run", "game", "deal", "num_players", "rules", "seat", "end_reason", "turns",
               "decisions")
    figure_files = "end|length"

    streams = True

    def compute(self, frame: pd.DataFrame, report: Report) -> EndingTables:
        by = ["num_players"] + (["rules"] if frame["rules"].nunique() > 1 else [])
        return EndingTables(T.end_conditions(frame, by=by), T.game_length(frame, by=by),
                            F.length_counts(frame))

    def compute_stream(self, stream: RunStream, report: Report) -> EndingTables:
        by = ["num_players"] + (["rules"] if report.facts["rules"] > 1 else [])
        fold = _EndFold(stream, by)
        stream.fold([*by, "end_reason", "turns", "decisions"], fold)
        ended, lengths = fold.ended, fold.lengths
        return EndingTables(*_ending_tables(stream, by, ended, lengths))

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
            turns = count_stats(result.lengths[k]["turns"])
            decisions = count_stats(result.lengths[k]["decisions"])
            lens.append(f"a {k}-player game lasts {turns['mean']:.0f} turns on average "
                        f"(median {turns['median']:.0f}) and {decisions['mean']:.0f} decisions")
        sentence = "; ".join(lens) + "."
        return out + [sentence[0].upper() + sentence[1:]]

    def figures(self, report: Report, result: EndingTables) -> dict[str, FigureMaker]:
        return {"end": lambda narrow: F.plot_end_conditions(result.end, narrow=narrow),
                "length": lambda narrow: F.plot_game_length_counts(result.lengths, narrow=narrow)}

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
