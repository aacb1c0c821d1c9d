"""glory-ai learn: the guard that keeps a generation only when it is at least as good, and
--fresh."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from glory_ai.arena import RunConfig, Session
from glory_ai.bots.models import linear_model, style_weights
from glory_ai.learn import LearnError, SelfPlayConfig, load_learn_config, load_train_config, selfplay, train
from glory_ai.learn.commands import main
from glory_ai.learn.fitting import TrainConfig
from glory_ai.learn.iterate import _guard, learn

CONFIG = """
name = "learn_tiny"
seed = 7
generations = 2
[selfplay]
search = "flatmc:iters=6"
players = [2]
deals = 6
positions = 3
shard_deals = 3
[train]
models = ["linear"]
holdout = 0.34
[evaluate]
search = "flatmc:iters=6"
deals = 1
"""


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("selfplay") / "sp"
    selfplay(SelfPlayConfig(RunConfig(specs=("heuristic:epsilon=0.3",), deals=6, seed=5), positions=3,
                            shard_deals=2), out, progress=False)
    return out


def _judge(config, gen, folder, *rest):
    """The guard as learn() calls it, its match played in the session of the learn folder."""
    with Session(folder.parent, progress=False) as session:
        return _guard(config, gen, folder, *rest, session)


def _tiny(tmp_path: Path, extra: str = "") -> Path:
    path = tmp_path / "learn_tiny.toml"
    path.write_text(CONFIG + extra)
    return path


def test_a_worse_model_does_not_replace_the_incumbent(played, tmp_path):
    config = load_learn_config(_tiny(tmp_path))
    tc = TrainConfig(shards=(played,), seed=3, holdout=0.34, models=("linear",), per_count=False)
    good = train(tc, tmp_path / "good").models["model"]
    bad = tmp_path / "bad.npz"
    linear_model(-style_weights("balanced") / 4, 0.0, "win_logit").save(bad)   # prefers the loser
    rejected = _judge(config, 2, tmp_path / "gen-2", [played], tc, bad, good, 1)
    assert rejected["kept"] is False and rejected["incumbent"] == 1
    assert rejected["log_loss"]["new"] > rejected["log_loss"]["incumbent"]
    assert "generation 2 not kept: generation 1 plays on" in rejected["why"]
    # as good as the incumbent (the same file) is good enough
    same = _judge(config, 2, tmp_path / "gen-2", [played], tc, good, good, 1)
    assert same["kept"] is True and same["log_loss"]["new"] == same["log_loss"]["incumbent"]
    # against the hand-set style (calibrated on the training positions) the bad model loses too
    first = _judge(config, 1, tmp_path / "gen-1", [played], tc, bad, None, 0)
    assert first["kept"] is False and "the balanced style (generation 0) plays on" in first["why"]


def test_a_gating_match_decides_between_models_that_pass_the_log_loss(played, tmp_path):
    config = load_learn_config(_tiny(tmp_path, "[guard]\nlog_loss = false\nmatch_deals = 1\n"))
    tc = TrainConfig(shards=(played,), seed=3, holdout=0.34, models=("linear",), per_count=False)
    good = train(tc, tmp_path / "good").models["model"]
    guard = _judge(config, 1, tmp_path / "gen-1", [played], tc, good, None, 0)
    assert "log_loss" not in guard and guard["match"]["games"] == 2
    assert guard["kept"] is (guard["match"]["win_rate"] >= 0.5)
    assert (tmp_path / "gen-1" / "gate" / "games.jsonl").exists()
    assert "over 2 games" in guard["why"]


def test_the_next_self_play_uses_the_model_kept(tmp_path):
    out = tmp_path / "out"
    summary = learn(load_learn_config(_tiny(tmp_path)), out, log=lambda m: None, progress=False)
    gens = summary["generations"]
    assert [g["generation"] for g in gens] == [0, 1, 2]
    kept = 0
    for entry in gens:
        if "guard" in entry:
            assert entry["guard"]["incumbent"] == kept
            if entry["guard"]["kept"]:
                kept = entry["generation"]
        if "selfplay" in entry:
            # the self-play of each generation is the search with the incumbent's model
            assert entry["selfplay"]["model_of"] == kept
            assert (f"gen-{kept}/model/model.npz" in entry["selfplay"]["spec"]) == (kept > 0)
            # the hand-set style is always named: left out, ISMCTS would play the shipped model
            assert entry["selfplay"]["spec"].endswith(",style=balanced") == (kept == 0)
        if "evaluation" in entry:
            assert entry["evaluation"]["opponent"] == "flatmc:iters=6,style=balanced"
    assert summary["kept"] == kept
    readme = (out / "README.md").read_text()
    assert "**The guard.**" in readme and f"the generation kept: **{kept}**" in readme
    assert json.loads((out / "summary.json").read_text())["kept"] == kept


def test_fresh_starts_over_and_keeps_hand_written_files(tmp_path):
    path = _tiny(tmp_path)
    out = tmp_path / "out"
    learn(load_learn_config(path), out, log=lambda m: None, progress=False)
    (out / "NOTES.md").write_text("by hand\n")
    path.write_text(CONFIG.replace("generations = 2", "generations = 1"))
    with pytest.raises(LearnError, match="--fresh"):
        learn(load_learn_config(path), out, log=lambda m: None, progress=False)
    before = np.load(out / "gen-1" / "model" / "model.npz")["weights"]
    assert main(["learn", str(path), "--out", str(out), "--fresh", "--no-progress"]) == 0
    assert sorted(p.name for p in out.glob("gen-*")) == ["gen-0", "gen-1"]
    assert (out / "NOTES.md").read_text() == "by hand\n"
    assert len(json.loads((out / "summary.json").read_text())["generations"]) == 2
    # the same seeds: generation 1 is trained on the same games as before
    assert np.array_equal(np.load(out / "gen-1" / "model" / "model.npz")["weights"], before)


@pytest.mark.parametrize("text, message", [
    ("[guard]\nmatch = 3\n", "[guard]: unknown key 'match'"),
    ("[guard]\nlog_loss = 1\n", "log_loss must be true or false"),
    ("[guard]\nmatch_deals = -1\n", "match_deals must be an integer"),
])
def test_a_bad_guard_is_one_clear_error(tmp_path, text, message):
    with pytest.raises(LearnError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_learn_config(_tiny(tmp_path, text))


def test_sharpen_multiplies_the_file_s_logits_and_the_guard_judges_them_calibrated(played, tmp_path):
    config = load_learn_config(_tiny(tmp_path))
    plain = TrainConfig(shards=(played,), seed=3, holdout=0.34, models=("linear",), per_count=False)
    first = train(plain, tmp_path / "plain")
    sharp = train(dataclasses.replace(plain, sharpen=3.0), tmp_path / "sharp")
    styled = train(dataclasses.replace(plain, sharpen="style"), tmp_path / "styled")
    weights = {name: np.load(r.models["model"])["weights"] for name, r in
               (("plain", first), ("sharp", sharp), ("styled", styled))}
    assert np.allclose(weights["sharp"], 3.0 * weights["plain"], rtol=1e-12, atol=0)
    # "style": spread as the style's rewards in the search (VP / 4) are spread
    factor = styled.report["balanced_style"]["temperature_vp"] / 4.0
    assert styled.report["sharpen"] == pytest.approx(factor)
    assert np.allclose(weights["styled"], factor * weights["plain"], rtol=1e-12, atol=0)
    assert "sharpen" in sharp.report["config"] and "x3" in str(np.load(sharp.models["model"])["description"])
    # the held-out log loss is the calibrated model's, in the report and in the guard
    assert sharp.report["models"]["linear"]["held_out_log_loss"] == \
        first.report["models"]["linear"]["held_out_log_loss"]
    guard = _judge(config, 2, tmp_path / "gen-2", [played], plain, sharp.models["model"],
                   first.models["model"], 1)
    assert guard["log_loss"]["new"] == pytest.approx(guard["log_loss"]["incumbent"], rel=1e-9)


def test_a_bad_sharpen_is_one_clear_error(tmp_path):
    path = tmp_path / "train.toml"
    for value, message in (('"sharp"', 'a number or "style"'), ("0", "sharpen must be a number from")):
        path.write_text(f'shards = ["sp"]\nsharpen = {value}\n')
        with pytest.raises(LearnError, match=message):
            load_train_config(path)
