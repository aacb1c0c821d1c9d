"""Playing one rule set and measuring it: the arena runs of a variant, rung by rung, and the
statistics of their games (docs/tuning.md, "The search").

Every rule set of a study is played on the same deals (the study's root seed), so two
variants are compared on the same cards; a variant's games live in a folder named by the
variant itself (``trials/v-<hash>/<k>p/``, one arena run per player count), so a trial
interrupted by kill -9, or the same variant asked for again, resumes from the games on disk.
A trial plays its deals in rungs (``[search].deals``): the arena stops once every game of
the rung's deals is finished (:class:`RungStop`) and the statistics are taken over exactly
those deals, whatever the workers finished beyond them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..analysis.load import load_runs
from ..analysis.stats import balance
from ..arena import storage
from ..arena.expand import expand_run
from ..arena.plan import RunConfig
from ..arena.session import Session
from .config import TuneConfig
from .errors import TuneError
from .objectives import evaluate

__all__ = ["Measured", "RungStop", "measure", "play_rule_set", "with_dealt_columns"]

#: bootstrap draws behind a trial's intervals (the search's; the validation takes more)
SEARCH_DRAWS = 200


class RungStop:
    """A stopping rule for the arena: true once every game of the first ``deals`` deals is
    finished (records come in any order; those beyond the rung count for nothing)."""

    def __init__(self, deals: int, games_per_deal: int) -> None:
        self.deals = deals
        self.games_per_deal = games_per_deal
        self._per_deal = np.zeros(deals, dtype=np.int64)
        self._complete = 0

    def add(self, records: Sequence[Mapping[str, Any]]) -> bool:
        for record in records:
            deal = record["deal"]
            if deal < self.deals:
                self._per_deal[deal] += 1
                if self._per_deal[deal] == self.games_per_deal:
                    self._complete += 1
        return self._complete >= self.deals

    def to_dict(self) -> dict[str, Any]:
        return {"rule": "rung", "deals": self.deals, "complete": int(self._complete)}


def play_rule_set(
    config: TuneConfig,
    variant: Mapping[str, Any],
    folder: Path,
    deals: int,
    *,
    seed: int,
    planned: int,
    session: Session,
) -> list[Path]:
    """Play ``variant`` at every player count of the study until the first ``deals`` deals
    are finished, into ``folder/<k>p`` (planned for ``planned`` deals, so later rungs resume
    the same runs) within the study's arena session; returns the run folders."""
    folders = []
    for players in config.players:
        run_config: RunConfig = config.run_config(variant, players, planned, seed)
        out = folder / f"{players}p"
        stop = RungStop(deals, run_config.games_per_deal) if deals < planned else None
        # the deals a run already holds are read as they are (a study resumed or extended,
        # maybe by later code: nothing is played again, nothing is mixed)
        if _has_records(out) and _deals_finished(out, run_config.games_per_deal) >= deals:
            folders.append(out)
            continue
        if storage.is_compressed(out):
            expand_run(out)         # a study extended: play on
        session.play(run_config, out, stop=stop)
        folders.append(out)
    return folders


def _has_records(folder: Path) -> bool:
    return storage.is_compressed(folder) or (folder / storage.GAMES_FILE).is_file()


def _deals_finished(folder: Path, games_per_deal: int) -> int:
    """How many of a run's first deals have every game recorded."""
    records = storage.read_records(folder, skip=("actions",))
    per_deal = np.bincount([int(r["deal"]) for r in records]) if records else np.zeros(0, int)
    short = np.flatnonzero(per_deal < games_per_deal)
    return int(short[0]) if len(short) else len(per_deal)


def compress_finished(folders: Sequence[Path]) -> None:
    """Keep a study's runs compressed as experiments keep theirs (storage.compress_run):
    a study's records are results. A run played on later is expanded again first."""
    for folder in folders:
        if not storage.is_compressed(folder) and (folder / storage.GAMES_FILE).exists():
            storage.compress_run(folder)


def with_dealt_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with a ``dealt:NAME`` column per building: the building was in the seat's
    opening hand (the deal is re-made from the game's seed and rules; no game is replayed)."""
    from ..game import Game

    hands: dict[tuple[int, int, str, str], list[list[str]]] = {}
    games = frame.loc[frame["seat"] == 0, ["seed", "num_players", "mode", "variant"]]
    variants = dict(zip(frame["variant"], frame["variant_dict"], strict=False))
    for seed, players, mode, key in games.itertuples(index=False):
        state = Game(int(players), str(mode), **dict(variants[key])).new_initial_state(int(seed))
        hands[(int(seed), int(players), str(mode), str(key))] = [
            p["hand"] for p in state.to_dict()["players"]
        ]
    names = [c[len("completed:") :] for c in frame.columns if c.startswith("completed:")]
    held = np.zeros((len(frame), len(names)), dtype=bool)
    index = {name: i for i, name in enumerate(names)}
    rows = zip(
        frame["seed"], frame["num_players"], frame["mode"], frame["variant"], frame["seat"], strict=True
    )
    for row, (seed, players, mode, key, seat) in enumerate(rows):
        for card in hands[(int(seed), int(players), str(mode), str(key))][int(seat)]:
            if card in index:
                held[row, index[card]] = True
    dealt = pd.DataFrame(held, columns=[f"dealt:{n}" for n in names], index=frame.index)
    return pd.concat([frame, dealt], axis=1)


@dataclass
class Measured:
    """The statistics of one rule set's games: for each statistic its draws (row 0 the
    estimate), the deals they cover, and the frame (for reports)."""

    draws: dict[str, np.ndarray]
    deals: int
    games: int

    def estimate(self, name: str) -> tuple[float, float, float]:
        return balance.summary_of_draws(self.draws[name])


def load_games(folders: Sequence[Path], deals: int, needs_dealt: bool) -> pd.DataFrame:
    """The games of the first ``deals`` deals of a rule set's runs."""
    frame = load_runs([str(f) for f in folders])
    frame = frame.loc[frame["deal"] < deals].reset_index(drop=True)
    if frame.empty:
        raise TuneError(f"no games of the first {deals} deals in {', '.join(map(str, folders))}")
    return with_dealt_columns(frame) if needs_dealt else frame


def measure(
    config: TuneConfig, folders: Sequence[Path], deals: int, draws: int = SEARCH_DRAWS, seed: int = 0
) -> Measured:
    """Every statistic of the study over the first ``deals`` deals of a rule set's runs."""
    statistics = config.statistics()
    needs_dealt = any(s.kind == "dealt_effect" for s in statistics)
    frame = load_games(folders, deals, needs_dealt)
    unit, n_units = balance.deal_units(frame)
    weights = balance.draw_weights(n_units, draws, seed)
    return Measured(evaluate(statistics, frame, weights, unit), deals, int((frame["seat"] == 0).sum()))


def losses(config: TuneConfig, draws: Mapping[str, np.ndarray]) -> list[np.ndarray]:
    """Each objective's loss draws (lower is better)."""
    return [objective.loss(draws[objective.statistic.name]) for objective in config.objectives]


def combined(config: TuneConfig, draws: Mapping[str, np.ndarray]) -> np.ndarray:
    """The weighted sum of the objectives' losses (one value per draw)."""
    total = np.zeros_like(next(iter(draws.values())))
    for objective, loss in zip(config.objectives, losses(config, draws), strict=True):
        total = total + objective.weight * loss
    return total


def violations(config: TuneConfig, draws: Mapping[str, np.ndarray]) -> list[float]:
    """How far each constraint is broken by the estimate (<= 0: held)."""
    return [float(c.violation(draws[c.statistic.name])[0]) for c in config.constraints]


Progress = Callable[[str], object]
