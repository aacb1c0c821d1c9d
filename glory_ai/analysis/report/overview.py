"""What the report takes from every seat-game before its sections, from the runs read a row
group at a time (:mod:`glory_ai.analysis.stream`): the player counts, those at which two
specs met at a table, the specs in the frame's order and the summary's counts."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..stream import RunStream

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
    seen = Overview()
    first: dict[int, tuple[int, ...]] = {}
    for batch in stream.batches(["num_players", "spec", "rules"]):
        cols = batch.columns
        spec, players = cols["spec"], cols["num_players"]
        while len(seen.run_specs) <= batch.run:
            seen.run_specs.append(set())
        seen.run_specs[batch.run].update(stream.names["spec"][int(c)] for c in np.unique(spec))
        seen.seat_games += len(batch)
        seen.games += int((cols["seat"] == 0).sum())
        seen.counts.update(int(k) for k in np.unique(players))
        seen.rules.update(stream.names["rules"][int(c)] for c in np.unique(cols["rules"]))
        if len(batch):
            low = np.minimum.reduceat(spec, batch.game_start)
            high = np.maximum.reduceat(spec, batch.game_start)
            seen.compared.update(int(k) for k in np.unique(players[batch.game_start[low != high]]))
            # the first row of each spec in the frame's order (the games sorted by deal,
            # pairing, rotation; the seats in order)
            keys = (cols["seat"], cols["rotation"], cols["pairing"], cols["deal"])
            order = np.lexsort(keys)
            codes, at = np.unique(spec[order], return_index=True)
            for code, row in zip(codes, order[at], strict=True):
                place = (batch.run, *(int(k[row]) for k in reversed(keys)))
                if int(code) not in first or place < first[int(code)]:
                    first[int(code)] = place
    names = stream.names.get("spec", [])
    seen.first = {names[c]: place for c, place in sorted(first.items(), key=lambda item: item[1])}
    return seen
