"""The rule-variant tables (:class:`.variants.Variants`) from sums read a row group at a time
(:mod:`glory_ai.analysis.stream`): a first pass finds each rule variant's line-ups (player
count and specs) and its games, end reasons and lengths; a second sums, per variant, deal
unit and label, the measures of the games whose line-up is played under every variant."""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import stats as T
from ...stats.variants import variant_table
from ...stream import Batch, Fold, NotStreamed, Out, RunStream, UnitSums

__all__ = ["variant_tables"]

#: the columns both passes read
COLUMNS = ["num_players", "rules", "spec", "win_share", "score", "end_reason", "turns", "decisions"]


def _lineups(batch: Batch) -> tuple[np.ndarray, list[tuple[int, ...]]]:
    """Each game's row of the batch at seat 0 and its line-up (player count, then its spec
    codes sorted), one per game in the batch's order."""
    cols = batch.columns
    start = batch.game_start
    k = cols["num_players"][start].astype(np.int64)
    out: list[tuple[int, ...]] = [()] * len(start)
    spec = cols["spec"]
    for size in np.unique(k):
        games = np.flatnonzero(k == size)
        rows = start[games][:, None] + np.arange(size)
        if (cols["seat"][rows] != np.arange(size)).any():
            raise NotStreamed           # a game's seats not together and in order: the frame's
        codes = np.sort(spec[rows], axis=1)
        for g, row in zip(games.tolist(), codes.tolist(), strict=True):
            out[g] = (int(size), *row)
    return start[cols["seat"][start] == 0], out


class _Seen(Fold):
    """The first pass: each rules code's line-ups (``lineups``), runs (``runs``) and, per
    (rules, end reason) code, its games, turns and decisions (``ends``)."""

    SUMS = ("lineups", "runs", "ends")

    def __init__(self) -> None:
        self.lineups: dict[int, set[tuple[int, ...]]] = {}
        self.runs: dict[int, set[int]] = {}
        self.ends: dict[tuple[int, int], np.ndarray] = {}

    def apply(self, field: str, at: Any, value: Any) -> None:
        if field == "lineups":
            self.lineups.setdefault(at, set()).update(value)
        elif field == "runs":
            self.runs.setdefault(at, set()).add(value)
        else:
            self.ends[at] = self.ends[at] + value if at in self.ends else value

    def add(self, batch: Batch, out: Out) -> None:
        first, lineups = _lineups(batch)
        if len(first) != len(lineups):
            raise NotStreamed
        cols = batch.columns
        rules = cols["rules"][first]
        for code in np.unique(rules).tolist():
            mine = np.flatnonzero(rules == code)
            out("lineups", code, {lineups[i] for i in mine.tolist()})
            out("runs", code, batch.run)
            reason = cols["end_reason"][first[mine]]
            for r in np.unique(reason).tolist():
                rows = first[mine[reason == r]]
                out("ends", (code, r), np.array([len(rows), float(cols["turns"][rows].sum()),
                                                  float(cols["decisions"][rows].sum())]))


class _Measures(Fold):
    """The second pass: per rules code, :class:`UnitSums` of the compared games' seat-games
    by spec (``spec``: win share and VP), at seat 0 by player count (``p1``) and per game
    (``game``: turns, decisions, each end reason)."""

    SUMS = ("stream", "sums")

    def __init__(self, stream: RunStream, runs: dict[int, list[int]], common: set[tuple[int, ...]],
                 local: np.ndarray, specs: int, counts: list[int]) -> None:
        self.stream, self.runs, self.common, self.local, self.counts = stream, runs, common, local, counts
        self.labels = {"spec": specs, "p1": len(counts), "game": 1}
        self.shapes = {(c, part): stream.sums(rs, n).light() for c, rs in runs.items()
                       for part, n in self.labels.items()}
        self.sums: dict[tuple[int, str], UnitSums] = {}

    def apply(self, field: str, at: Any, value: Any) -> None:
        code, part, name, where = at
        if (code, part) not in self.sums:
            self.sums[(code, part)] = self.stream.sums(self.runs[code], self.labels[part])
        self.sums[(code, part)].apply(name, where, value)

    def add(self, batch: Batch, out: Out) -> None:
        first, lineups = _lineups(batch)
        kept = np.array([lineup in self.common for lineup in lineups], dtype=bool)
        if not kept.any():
            return
        cols = batch.columns
        # every row of the compared games (a game's rows follow its seat 0)
        size = cols["num_players"][first].astype(np.int64)
        rows = np.repeat(first[kept], size[kept]) + _within(size[kept])
        for code in np.unique(cols["rules"][rows]).tolist():
            mine = rows[cols["rules"][rows] == code]
            seat0 = mine[cols["seat"][mine] == 0]
            reason = cols["end_reason"][seat0]
            ended = {f"end:{r}": (reason == r).astype(float) for r in np.unique(reason).tolist()}
            shapes, share = self.shapes, cols["win_share"]
            shapes[(code, "spec")].add(batch, mine, self.local[cols["spec"][mine]], _said(out, code, "spec"),
                                       win_share=share[mine].astype(float),
                                       score=cols["score"][mine].astype(float))
            count = np.searchsorted(self.counts, cols["num_players"][seat0])
            shapes[(code, "p1")].add(batch, seat0, count, _said(out, code, "p1"),
                                     win_share=share[seat0].astype(float))
            shapes[(code, "game")].add(batch, seat0, np.zeros(len(seat0), dtype=np.int64),
                                       _said(out, code, "game"),
                                       turns=cols["turns"][seat0].astype(float),
                                       decisions=cols["decisions"][seat0].astype(float), **ended)


def _said(out: Out, code: int, part: str) -> Out:
    """What a rules code's part of :class:`_Measures` adds, said to ``out``."""
    return lambda name, at, value: out("sums", (code, part, name, at), value)


def _within(size: np.ndarray) -> np.ndarray:
    """0 .. size - 1 for each size, one after the other."""
    ends = np.cumsum(size)
    return np.arange(int(ends[-1]) if len(ends) else 0) - np.repeat(ends - size, size)


def variant_tables(stream: RunStream) -> tuple[Any, str, list[tuple[str, str, float, float, float]]]:
    """The variant table (or None), the note (why none, or its scope) and per rules its most
    common end, that end's share, mean turns and decisions: as :class:`.variants.Variants`
    computes them from the frame. NotStreamed where the frame's table would raise an
    error (the frame then says it)."""
    seen = _Seen()
    stream.fold(COLUMNS, seen)
    names = stream.names
    rules_of = {code: names["rules"][code] for code in seen.lineups}
    per_rules = []
    for code in sorted(rules_of, key=lambda c: rules_of[c]):
        ends = {r: v for (c, r), v in seen.ends.items() if c == code}
        games = sum(float(v[0]) for v in ends.values())
        # the most common end (the first met of those as common)
        reason = max(sorted(ends), key=lambda r: ends[r][0])
        per_rules.append((rules_of[code], names["end_reason"][reason], float(ends[reason][0] / games),
                          sum(float(v[1]) for v in ends.values()) / games,
                          sum(float(v[2]) for v in ends.values()) / games))
    every = list(seen.lineups.values())
    common = set.intersection(*every) if every else set()
    if not common:
        return (None, "no line-up of strategies and player count is played under every rule "
                      "variant, so the variants are not compared", per_rules)
    conditions = sorted(rules_of.values())
    if len(conditions) < 2:
        raise NotStreamed
    table, scope = _table(stream, seen, common, rules_of, conditions)
    return table, scope, per_rules


def _table(stream: RunStream, seen: _Seen, common: set[tuple[int, ...]], rules_of: dict[int, str],
           conditions: list[str]) -> tuple[Any, str]:
    """The variant table of the games of the ``common`` line-ups, and its scope (empty when
    they are every game)."""
    specs = sorted(set(stream.spec_order))
    codes = stream.code("spec", specs)
    local = np.full(len(stream.names["spec"]), -1, dtype=np.int64)
    local[codes] = np.arange(len(specs))
    counts = sorted({lineup[0] for lineup in common})
    runs = {code: sorted(seen.runs[code]) for code in rules_of}
    fold = _Measures(stream, runs, common, local, len(specs), counts)
    stream.fold(COLUMNS, fold)
    by_name = {name: code for code, name in rules_of.items()}
    games = {}
    for c in conditions:
        part = fold.sums.get((by_name[c], "game"))
        games[c] = int(part.table()[:, 0].sum()) if part is not None else 0
    measures: dict[tuple[str, str], dict[str, tuple[float, np.ndarray]]] = {}

    def add(measure: str, item: str, part: str, label: int, value: str) -> None:
        found = {}
        for c in conditions:
            sums = fold.sums.get((by_name[c], part))
            if sums is None:
                continue
            rows, total = sums.table()[:, label], sums.table(value)[:, label]
            present = rows > 0
            if present.any():
                found[c] = (float(total.sum() / rows.sum()), total[present] / rows[present])
        measures[(measure, item)] = found

    used = [i for i in range(len(specs))
            if any(s.table()[:, i].any() for (_, part), s in fold.sums.items() if part == "spec")]
    for i in used:
        add("win rate", specs[i], "spec", i, "win_share")
    for i in used:
        add("mean VP", specs[i], "spec", i, "score")
    for i, k in enumerate(counts):
        add("P1 win rate", f"{k} players", "p1", i, "win_share")
    for col in ("turns", "decisions"):
        add(col, "mean", "game", 0, col)
    met = {name[len("end:"):] for (_, part), s in fold.sums.items() if part == "game" for name in s.values
           if name.startswith("end:")}
    reasons = {stream.names["end_reason"][int(r)]: r for r in met}
    for reason in T.tables._reason_order(sorted(reasons)):
        add("end", reason, "game", 0, f"end:{reasons[reason]}")
    total = sum(int(v[0]) for v in seen.ends.values())
    compared = sum(games.values())
    scope = "" if compared == total else (
        f"compared on the {compared:,} games whose line-up (strategies and player count) is "
        f"played under every variant, out of {total:,}")
    return variant_table("rules", conditions, games, measures), scope
