"""results/learned_evaluation is what its config makes: a few games of every run replay
identically, a shard is what its games give, and the first generation's linear model
retrains to the same bytes."""
from __future__ import annotations

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


@pytest.mark.parametrize("folder", _runs(), ids=lambda p: str(p.relative_to(RESULTS)))
def test_stored_games_replay_identically(folder, monkeypatch):
    monkeypatch.chdir(ROOT)             # the specs name the model files from the repository root
    config = load_config(folder)
    stored = sorted(load_records(folder), key=lambda r: (r["decisions"], r["game_id"]))[:1]
    for record in stored:
        deal, pairing, rotation = (int(x) for x in record["game_id"].split("-"))
        task = config.task(deal, pairing, rotation)
        fresh = strip_timing(play_game(task))
        fresh["seats"] = record["seats"]
        assert fresh == strip_timing(record)


def test_every_learned_generation_was_guarded_and_the_readme_says_which_was_kept():
    summary = json.loads((RESULTS / "summary.json").read_text())
    readme = (RESULTS / "README.md").read_text()
    kept = 0
    for entry in summary["generations"][1:]:
        guard = entry["guard"]
        assert guard["incumbent"] == kept and guard["why"] in readme
        assert guard["kept"] == (guard["log_loss"]["new"] <= guard["log_loss"]["incumbent"])
        if guard["kept"]:
            kept = entry["generation"]
        if "selfplay" in entry:
            assert entry["selfplay"]["model_of"] == kept
    assert summary["kept"] == kept and f"the generation kept: **{kept}**" in readme


def test_a_shard_is_what_its_games_give():
    folder = RESULTS / "gen-0" / "selfplay-2p"
    config = SelfPlayConfig.from_dict(json.loads((folder / "selfplay.json").read_text()))
    records = [r for r in load_records(folder / "games") if config.shard_of(r["deal"]) == 0]
    with np.load(folder / "shards" / "shard-00000.npz") as stored:
        fresh = shard_arrays(records, config, 0)
        assert sorted(stored.files) == sorted(fresh)
        for key in stored.files:
            assert np.array_equal(stored[key], fresh[key]), key


def test_the_first_generation_s_linear_model_retrains_to_the_same_model(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    report = json.loads((RESULTS / "gen-1" / "model" / "report.json").read_text())
    settings = {k: v for k, v in report["config"].items() if k not in ("models", "choose", "mlp")}
    config = parse_train_config({**settings, "models": ["linear"], "choose": "linear"}, Path("."), "gen-1")
    train(config, tmp_path)
    # the same fields and the same weights; the last bits of a fit depend on the CPU kernels
    # numpy's BLAS picks at run time (OpenBLAS DYNAMIC_ARCH: 1.8e-9 apart on one machine,
    # 0 on another), so the bytes are compared on the integers and texts only
    with np.load(tmp_path / "linear.npz") as fresh, \
            np.load(RESULTS / "gen-1" / "model" / "linear.npz") as stored:
        assert sorted(fresh.files) == sorted(stored.files)
        for key in stored.files:
            if stored[key].dtype.kind == "f":
                assert np.allclose(fresh[key], stored[key], rtol=1e-7, atol=1e-9), key
            else:
                assert np.array_equal(fresh[key], stored[key]), key
