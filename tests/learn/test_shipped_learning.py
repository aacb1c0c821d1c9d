"""results/learned_evaluation is what its config makes: a few games of every run replay
identically, a shard is what its games give, and the first generation's linear model
retrains to the same bytes."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from glory_ai.arena import load_records, play_game, strip_timing
from glory_ai.arena.storage import load_config
from glory_ai.learn import SelfPlayConfig, load_learn_config, train
from glory_ai.learn.fitting import parse_train_config
from glory_ai.learn.shards import shard_arrays

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "experiments" / "learning" / "learned_evaluation.toml"
RESULTS = ROOT / "results" / "learned_evaluation"


def test_the_results_were_made_from_the_shipped_config():
    config = load_learn_config(CONFIG)
    assert (RESULTS / "experiment.toml").read_text() == CONFIG.read_text()
    summary = json.loads((RESULTS / "summary.json").read_text())
    assert len(summary["generations"]) == config.generations + 1 >= 4
    for gen in range(1, config.generations + 1):
        assert (RESULTS / f"gen-{gen}" / "model" / "model.npz").exists()
        assert len(load_records(RESULTS / f"gen-{gen}" / "evaluate")) == 2 * config.evaluate_deals


def _runs() -> list[Path]:
    return sorted(p.parent for p in RESULTS.glob("gen-*/*/config.json")) + \
        sorted(p.parent for p in RESULTS.glob("gen-*/*/games/config.json"))


#: the ISMCTS defaults as they were when the shipped results were played, for the specs that
#: leave them out (docs/bots.md, "Search options"; as tests/experiments/test_shipped_results.py)
ISMCTS_DEFAULTS_PLAYED = {"c": "0.7", "solver": "false", "speed": "0", "vp": "0", "final": "visits"}


def _as_played(spec: str) -> str:
    name, _, rest = spec.partition(":")
    if name.strip() != "ismcts":
        return spec
    given = {part.partition("=")[0].strip() for part in rest.split(",") if part.strip()}
    return ",".join([spec, *(f"{k}={v}" for k, v in ISMCTS_DEFAULTS_PLAYED.items() if k not in given)])


@pytest.mark.parametrize("folder", _runs(), ids=lambda p: str(p.relative_to(RESULTS)))
def test_stored_games_replay_identically(folder, monkeypatch):
    monkeypatch.chdir(ROOT)             # the specs name the model files from the repository root
    config = load_config(folder)
    stored = sorted(load_records(folder), key=lambda r: (r["decisions"], r["game_id"]))[:1]
    for record in stored:
        deal, pairing, rotation = (int(x) for x in record["game_id"].split("-"))
        task = config.task(deal, pairing, rotation)
        task = dataclasses.replace(task, seats=tuple(_as_played(spec) for spec in task.seats))
        fresh = strip_timing(play_game(task))
        fresh["seats"] = record["seats"]
        assert fresh == strip_timing(record)


def test_a_shard_is_what_its_games_give():
    folder = RESULTS / "gen-0" / "selfplay-2p"
    config = SelfPlayConfig.from_dict(json.loads((folder / "selfplay.json").read_text()))
    records = [r for r in load_records(folder / "games") if config.shard_of(r["deal"]) == 0]
    with np.load(folder / "shards" / "shard-00000.npz") as stored:
        fresh = shard_arrays(records, config, 0)
        assert sorted(stored.files) == sorted(fresh)
        for key in stored.files:
            assert np.array_equal(stored[key], fresh[key]), key


def test_the_first_generation_s_linear_model_retrains_to_the_same_bytes(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    report = json.loads((RESULTS / "gen-1" / "model" / "report.json").read_text())
    settings = {k: v for k, v in report["config"].items() if k not in ("models", "choose", "mlp")}
    config = parse_train_config({**settings, "models": ["linear"], "choose": "linear"}, Path("."), "gen-1")
    train(config, tmp_path)
    assert (tmp_path / "linear.npz").read_bytes() == (RESULTS / "gen-1" / "model" / "linear.npz").read_bytes()
