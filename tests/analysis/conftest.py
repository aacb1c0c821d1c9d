"""Fixtures of the analysis tests: synthetic game records with known answers, run folders
written from them, and two small real runs played by the arena (once per session)."""
from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

RUBBLE = ["Academy", "Bar", "Insula", "Palisade", "Road", "Latrine"]


def synth_record(i: int, seats: Sequence[str], winners: Sequence[int], *,
                 scores: Sequence[int] | None = None,
                 completed: Sequence[Sequence[str]] | None = None,
                 end_reason: str = "deck", turns: int = 50, decisions: int = 150,
                 mode: str = "republic", variant: dict[str, Any] | None = None,
                 roles_led: list[dict[str, int]] | None = None) -> dict[str, Any]:
    """A well-formed game record (docs/arena.md) with the given outcome: deal ``i``,
    rotation 0; winners score 30 unless ``scores`` says otherwise, others 20."""
    n = len(seats)
    if scores is None:
        scores = [30 if s in winners else 20 for s in range(n)]
    if completed is None:
        completed = [[] for _ in range(n)]
    vp = []
    for s in range(n):
        influence = 2 + 2 * len(completed[s])
        vp.append({"influence": influence, "vault": scores[s] - influence, "merchant_bonus": 0,
                   "statue": 0, "wall": 0, "total": scores[s]})
    record = {
        "record_version": 1, "version": "0.1.0", "game_id": f"{i}-0-0", "deal": i,
        "pairing": 0, "rotation": 0, "seed": 1000 + i, "bot_seeds": list(range(n)),
        "seats": list(seats), "num_players": n, "mode": mode,
        "variant": dict(variant if variant is not None else
                        ({"petition_size": 2, "refill_size": 5} if mode == "republic"
                         else {"refill_size": 5})),
        "scores": list(scores), "winners": sorted(winners),
        "returns": [1 / len(winners) if s in winners else 0.0 for s in range(n)],
        "vp": vp,
        "structures": [{"complete": list(c), "incomplete": []} for c in completed],
        "functions_used": [], "end_reason": end_reason, "turns": turns, "decisions": decisions,
        "seat_decisions": [decisions // n] * n, "seconds": [0.01] * n,
        "seconds_per_decision": [0.01 / max(1, decisions // n)] * n,
        "actions": [1, 2, 3],
    }
    if roles_led is not None:
        record["roles_led"] = roles_led
    return record


def write_run(folder: Path, records: Sequence[dict[str, Any]],
              config: dict[str, Any] | None = None) -> Path:
    """A run folder: config.json (a plausible one unless given) and games.jsonl."""
    folder.mkdir(parents=True, exist_ok=True)
    first = records[0] if records else {}
    if config is None:
        config = {"format": "glory_ai/arena-run", "format_version": 1, "version": "0.1.0",
                  "description": f"synthetic run of {len(records)} games",
                  "games_per_deal": 1, "total_games": len(records),
                  "config": {"format": "field", "specs": sorted({s for r in records for s in r["seats"]}),
                             "players": first.get("num_players", 2), "deals": len(records),
                             "mode": first.get("mode", "republic"),
                             "variant": first.get("variant", {}), "seed": 0, "rotate": False,
                             "sprt": None}}
    (folder / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    (folder / "games.jsonl").write_text(
        "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))
    return folder


@pytest.fixture
def synth() -> Callable[..., dict[str, Any]]:
    return synth_record


@pytest.fixture
def run_folder(tmp_path: Path) -> Callable[..., Path]:
    counter = iter(range(10_000))

    def make(records: Sequence[dict[str, Any]], name: str | None = None,
             config: dict[str, Any] | None = None) -> Path:
        return write_run(tmp_path / (name or f"run{next(counter)}"), records, config)
    return make


@pytest.fixture(scope="session")
def real_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two real runs from the arena's Python API: a 2-player round robin of random, greedy
    and the builder heuristic (36 games) and a 3-player field of the same (12 games)."""
    from glory_ai.arena import RunConfig, run

    root = tmp_path_factory.mktemp("real")
    specs = ["random", "greedy", "heuristic:style=builder"]
    two = run(RunConfig.for_games(specs, 36, seed=11), root / "two", n_jobs=1, progress=False)
    three = run(RunConfig.for_games(specs, 12, players=3, seed=12), root / "three", n_jobs=1,
                progress=False)
    assert len(two.records) == 36 and len(three.records) == 12
    return root / "two", root / "three"
