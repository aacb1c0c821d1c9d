"""Self-play: games between chosen bots, played by the arena, cut into training shards.

The games are an ordinary arena run (``OUT/games/``: seeded, resumable, locked). The
arena keeps records, not states, so the positions are recovered by replaying each record's
actions (exact, and cheap next to the search that chose them). From each game a few
positions are sampled, one in each of ``positions`` equal stretches of its length, and
every player's feature vector at that position becomes one row, with the game's outcome
for that player.

A shard holds the games of ``shard_deals`` consecutive deals (every seat rotation of a
deal lands in the same shard, so a split by deal never leaks a deal into both sides). A
shard is written as soon as all its games are finished, from the records alone: an
interrupted run, resumed, writes the same shards as a run that was never interrupted.
"""
from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .._jsonio import read_json
from .._reading import open_regular
from ..arena import ArenaError, RunConfig, Session
from ..arena.storage import load_records, read_config
from ..core.engine import FEATURE_COUNT, FEATURE_SET_VERSION
from ..game import Game, State
from .npz import write_npz

__all__ = ["SHARD_FORMAT", "SHARD_VERSION", "LearnError", "SelfPlayConfig", "SelfPlayResult",
           "positions_of", "selfplay", "shard_arrays", "shard_paths"]

SHARD_FORMAT = "glory_ai/selfplay-shard"
SHARD_VERSION = 1
CONFIG_FILE = "selfplay.json"
CONFIG_FORMAT = "glory_ai/selfplay"
MAX_POSITIONS = 64


class LearnError(ValueError):
    """A self-play or training request that cannot go ahead: one line for the user."""


@dataclass(frozen=True)
class SelfPlayConfig:
    """What a self-play run plays and samples: the arena run, ``positions`` sampled per game
    and ``shard_deals`` deals per shard (its identity: a folder of another one is refused)."""

    run: RunConfig
    positions: int = 4
    shard_deals: int = 25

    def __post_init__(self) -> None:
        if not isinstance(self.run, RunConfig):
            raise LearnError(f"run must be a RunConfig, got {type(self.run).__name__}")
        for key, high in (("positions", MAX_POSITIONS), ("shard_deals", 10**6)):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= high:
                raise LearnError(f"{key} must be an integer from 1 to {high}, got {value!r}")

    @property
    def shards(self) -> int:
        return -(-self.run.deals // self.shard_deals)

    def shard_of(self, deal: int) -> int:
        return deal // self.shard_deals

    def games_in_shard(self, shard: int) -> int:
        first = shard * self.shard_deals
        last = min(self.run.deals, first + self.shard_deals)
        return (last - first) * self.run.games_per_deal

    def to_dict(self) -> dict[str, Any]:
        return {"format": CONFIG_FORMAT, "format_version": SHARD_VERSION,
                "run": self.run.to_dict(), "positions": self.positions,
                "shard_deals": self.shard_deals}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> SelfPlayConfig:
        if not isinstance(d, Mapping) or d.get("format") != CONFIG_FORMAT:
            raise LearnError("not a self-play config (format glory_ai/selfplay)")
        return cls(RunConfig.from_dict(d["run"]), d["positions"], d["shard_deals"])


@dataclass
class SelfPlayResult:
    config: SelfPlayConfig
    out: Path
    games: int                  # finished games in the folder
    played: int                 # of which played by this call
    shards: list[Path]          # every shard of the folder, in order
    positions: int              # positions (groups of rows) in those shards
    rows: int


def shard_paths(folder: str | os.PathLike[str]) -> list[Path]:
    """The shards of a self-play folder (or the shard files under it), in order."""
    folder = Path(folder)
    if folder.is_file():
        return [folder]
    shards = folder / "shards"
    return sorted(shards.glob("shard-*.npz")) if shards.is_dir() else sorted(folder.glob("shard-*.npz"))


def _sample_decisions(record: Mapping[str, Any], root: int, positions: int) -> list[int]:
    """One decision index per equal stretch of the game's length (the position before that
    action), drawn from a generator seeded by the run's seed and the game's place."""
    n = len(record["actions"])
    if n == 0:
        return []
    k = min(positions, n)
    key = (int(record["deal"]), int(record["pairing"]), int(record["rotation"]), 0x5E1F)
    rng = np.random.default_rng(np.random.SeedSequence(entropy=root, spawn_key=key))
    bounds = [(i * n) // k for i in range(k + 1)]
    return [int(rng.integers(bounds[i], bounds[i + 1])) for i in range(k)]


def _ranks(state: State) -> list[float]:
    """Per player, the share of the others beaten (winners beat the rest, then VP, then
    cards in hand; a tie is half): the search's ``rank`` reward at the end of the game."""
    n = state.num_players()
    winners = set(state.winners())
    scores = state.scores()
    key = [(p in winners, scores[p], len(state.zone("hand", p))) for p in range(n)]
    out = []
    for p in range(n):
        beaten = sum(1.0 if key[p] > key[q] else 0.5 if key[p] == key[q] else 0.0
                     for q in range(n) if q != p)
        out.append(beaten / (n - 1))
    return out


def positions_of(record: Mapping[str, Any], root: int, positions: int) -> dict[str, Any] | None:
    """The sampled rows of one game (columns as in a shard), or None for a game that gives no
    outcome to learn from (a forfeit, or one stopped at the decision limit)."""
    if record.get("forfeits") or record.get("end_reason") == "decision_limit":
        return None
    chosen = set(_sample_decisions(record, root, positions))
    state = Game(record["num_players"], record["mode"], **record["variant"]).new_initial_state(record["seed"])
    n = state.num_players()
    snapshots: list[tuple[int, np.ndarray]] = []
    for i, action in enumerate(record["actions"]):
        if i in chosen:
            snapshots.append((i, np.stack([state.features(p) for p in range(n)])))
        state.apply_action(action)
    if not state.is_terminal():
        raise ArenaError(f"game {record['game_id']}: not over after its recorded actions")
    shares = np.asarray(state.returns(), dtype=np.float32)
    scores = np.asarray(state.scores(), dtype=np.float32)
    margin = np.array([scores[p] - max(scores[q] for q in range(n) if q != p) for p in range(n)],
                      dtype=np.float32)
    rank = np.asarray(_ranks(state), dtype=np.float32)
    rows = len(snapshots) * n
    return {
        "features": np.concatenate([f for _, f in snapshots]).astype(np.float32).reshape(rows, FEATURE_COUNT),
        "win_share": np.tile(shares, len(snapshots)),
        "rank": np.tile(rank, len(snapshots)),
        "margin": np.tile(margin, len(snapshots)),
        "player": np.tile(np.arange(n, dtype=np.int8), len(snapshots)),
        "num_players": np.full(rows, n, dtype=np.int8),
        "imperium": np.full(rows, record["mode"] == "imperium", dtype=np.int8),
        "game_id": np.repeat(np.array([record["game_id"]] * len(snapshots)), n),
        "deal": np.full(rows, record["deal"], dtype=np.int32),
        "decision": np.repeat(np.array([i for i, _ in snapshots], dtype=np.int32), n),
        "decisions": np.full(rows, len(record["actions"]), dtype=np.int32),
    }


def shard_arrays(records: Sequence[Mapping[str, Any]], config: SelfPlayConfig, shard: int) -> dict[str, Any]:
    """The arrays of a shard: the rows of its games in game order, a position's players in
    consecutive rows (``position`` numbers the positions from 0), and its header."""
    ordered = sorted(records, key=lambda r: (r["deal"], r["pairing"], r["rotation"]))
    sampled = (positions_of(r, config.run.seed, config.positions) for r in ordered)
    parts = [p for p in sampled if p is not None]
    columns = ("features", "win_share", "rank", "margin", "player", "num_players", "imperium",
               "game_id", "deal", "decision", "decisions")
    if parts:
        data = {c: np.concatenate([p[c] for p in parts]) for c in columns}
    else:
        data = {"features": np.zeros((0, FEATURE_COUNT), np.float32), "game_id": np.array([], "<U1")}
        data.update({c: np.zeros(0, np.float32 if c in ("win_share", "rank", "margin") else np.int32)
                     for c in columns if c not in data})
    starts = np.flatnonzero(data["player"] == 0) if len(data["player"]) else np.zeros(0, np.int64)
    position = np.zeros(len(data["player"]), dtype=np.int32)
    position[starts[1:]] = 1
    data["position"] = np.cumsum(position, dtype=np.int32)
    header = {"format": np.array(SHARD_FORMAT), "format_version": np.array(SHARD_VERSION),
              "feature_set": np.array(FEATURE_SET_VERSION), "shard": np.array(shard),
              "config": np.array(json.dumps(config.to_dict(), sort_keys=True))}
    return {**header, **data}


class _ShardWriter:
    """Takes the finished games as the arena hands them back (as a stopping rule that never
    stops) and writes each shard once all its games are in. The games found in the folder
    come without their actions: a shard that holds any of them is written by :meth:`finish`,
    from the records read back whole."""

    def __init__(self, config: SelfPlayConfig, folder: Path) -> None:
        self.config, self.folder = config, folder
        self.pending: dict[int, dict[str, Mapping[str, Any]]] = {}
        self.written = {int(p.stem.split("-")[1]) for p in folder.glob("shard-*.npz")}

    def path(self, shard: int) -> Path:
        return self.folder / f"shard-{shard:05d}.npz"

    def write(self, shard: int, records: Sequence[Mapping[str, Any]]) -> None:
        write_npz(self.path(shard), shard_arrays(records, self.config, shard), compress=True)
        self.written.add(shard)
        self.pending.pop(shard, None)

    def add(self, records: Sequence[Mapping[str, Any]]) -> bool:
        for record in records:
            shard = self.config.shard_of(record["deal"])
            if shard in self.written:
                continue
            games = self.pending.setdefault(shard, {})
            games[record["game_id"]] = record
            if (len(games) == self.config.games_in_shard(shard)
                    and all("actions" in r for r in games.values())):
                self.write(shard, list(games.values()))
        return False

    def finish(self, records: Sequence[Mapping[str, Any]]) -> None:
        """Write every shard still missing whose games are all in ``records`` (whole)."""
        by_shard: dict[int, list[Mapping[str, Any]]] = {}
        for record in records:
            by_shard.setdefault(self.config.shard_of(record["deal"]), []).append(record)
        for shard in range(self.config.shards):
            games = by_shard.get(shard, [])
            if shard not in self.written and len(games) == self.config.games_in_shard(shard):
                self.write(shard, games)

    def to_dict(self) -> dict[str, Any]:
        return {"shards_written": len(self.written)}


def _check_folder(out: Path, config: SelfPlayConfig) -> None:
    path = out / CONFIG_FILE
    if path.exists():
        try:
            found = read_json(path)
        except (OSError, ValueError) as exc:
            raise LearnError(f"{path}: not a readable self-play config ({exc})") from None
        if found != config.to_dict():
            mine = config.to_dict()
            keys = sorted(k for k in set(found) | set(mine) if found.get(k) != mine.get(k))
            if keys == ["run"]:
                keys = sorted(k for k in set(found["run"]) | set(mine["run"])
                              if found["run"].get(k) != mine["run"].get(k))
            raise LearnError(f"{out} holds self-play of another config ({', '.join(keys)} differ); "
                             "use another output folder or the same options")
    else:
        path.write_text(json.dumps(config.to_dict(), indent=1, sort_keys=True) + "\n")


def finished_records(folder: Path, config: RunConfig) -> list[dict[str, Any]] | None:
    """The records of a finished arena run of ``config`` in ``folder``, or None when games
    are missing. A finished run is read, not resumed: it needs no check of the code that
    would play its missing games."""
    try:
        if not (folder / "config.json").exists() or config.differences(read_config(folder)["config"]):
            return None
        records = load_records(folder)
    except ArenaError:
        return None
    return records if len(records) == config.total_games else None


def selfplay(config: SelfPlayConfig, out: str | os.PathLike[str], *, n_jobs: int | None = None,
             batch_size: int | None = None, progress: bool | None = None, isolation: str = "users",
             bot_memory: int | None = None) -> SelfPlayResult:
    """Play the games of ``config`` into ``out/games/`` (an arena run folder) and write their
    shards into ``out/shards/``; a folder of the same config is resumed (the missing games
    played, the missing shards written), one of another config refused (LearnError).
    ``isolation``, ``bot_memory``: where the bots play (glory_ai.arena.hosted)."""
    out = Path(out)
    with Session(out, n_jobs=n_jobs, batch_size=batch_size, progress=progress, isolation=isolation,
                 bot_memory=bot_memory) as session:
        _check_folder(out, config)
        shards = out / "shards"
        shards.mkdir(exist_ok=True)
        writer = _ShardWriter(config, shards)
        records = finished_records(out / "games", config.run)
        played = 0
        if records is None or len(writer.written) < config.shards:
            result = session.play(config.run, out / "games", stop=writer)
            records, played = result.records, result.played
        writer.finish(records)
        if len(writer.written) < config.shards:          # every game finished, so no shard may still wait
            missing = min(set(range(config.shards)) - writer.written)
            raise LearnError(f"{out}: shard {missing} lacks games; remove {out} and play again")
    paths = shard_paths(out)
    positions = rows = 0
    for path in paths:
        with open_regular(path, "a shard") as fh, np.load(fh, allow_pickle=False) as shard:
            rows += len(shard["player"])
            positions += int(np.count_nonzero(shard["player"] == 0))
    return SelfPlayResult(config, out, len(records), played, paths, positions, rows)

