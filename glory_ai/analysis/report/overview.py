"""What the report takes from every seat-game before its sections, from the runs read a row
group at a time (:mod:`glory_ai.analysis.stream`): the player counts, those at which two
specs met at a table, the specs in the frame's order and the summary's counts."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..stream import Batch, Fold, Out, RunStream

__all__ = ["Overview", "overview"]


@dataclass
class Overview:
    """``first``: each spec (as played, before labels) and where it first sits in the
    frame's order (run, deal, pairing, rotation, seat), in that order; ``counts`` the player
    counts, ``compared`` those with a game of two specs or more; ``rules`` the rules seen."""

    first: dict[str, tuple[int, ...]] = field(default_factory=dict)
    counts: set[int] = field(default_factory=set)
    compared: set[int] = field(default_factory=set)
    rules: set[str] = field(default_factory=set)
    games: int = 0
    seat_games: int = 0
    run_specs: list[set[str]] = field(default_factory=list)


def overview(stream: RunStream) -> Overview:
    """The :class:`Overview` of the runs, a row group at a time."""
    fold = _Seen(stream.names)
    fold.seen.run_specs = [set() for _ in stream.runs]
    stream.fold(["num_players", "spec", "rules"], fold)
    seen = fold.seen
    names = stream.names.get("spec", [])
    seen.first = {names[c]: place for c, place in sorted(fold.first.items(), key=lambda item: item[1])}
    return seen


class _Seen(Fold):
    """The overview's sums: ``seen`` and each spec code's first place."""

    SUMS = ("seen", "first")

    def __init__(self, names: dict[str, list[str]]) -> None:
        self.names = names
        self.seen = Overview()
        self.first: dict[int, tuple[int, ...]] = {}

    def apply(self, field: str, at: Any, value: Any) -> None:
        run, specs, seat_games, games, counts, rules, compared, first = value
        seen = self.seen
        seen.run_specs[run].update(specs)
        seen.seat_games += seat_games
        seen.games += games
        seen.counts.update(counts)
        seen.rules.update(rules)
        seen.compared.update(compared)
        for code, place in first.items():
            if code not in self.first or place < self.first[code]:
                self.first[code] = place

    def add(self, batch: Batch, out: Out) -> None:
        cols = batch.columns
        spec, players = cols["spec"], cols["num_players"]
        specs = {self.names["spec"][int(c)] for c in np.unique(spec)}
        counts = {int(k) for k in np.unique(players)}
        rules = {self.names["rules"][int(c)] for c in np.unique(cols["rules"])}
        compared: set[int] = set()
        first: dict[int, tuple[int, ...]] = {}
        if len(batch):
            low = np.minimum.reduceat(spec, batch.game_start)
            high = np.maximum.reduceat(spec, batch.game_start)
            compared = {int(k) for k in np.unique(players[batch.game_start[low != high]])}
            # the first row of each spec in the frame's order (the games sorted by deal,
            # pairing, rotation; the seats in order)
            keys = (cols["seat"], cols["rotation"], cols["pairing"], cols["deal"])
            order = np.lexsort(keys)
            codes, at = np.unique(spec[order], return_index=True)
            for code, row in zip(codes, order[at], strict=True):
                first[int(code)] = (batch.run, *(int(k[row]) for k in reversed(keys)))
        out("seen", None, (batch.run, specs, len(batch), int((cols["seat"] == 0).sum()), counts, rules,
                           compared, first))
