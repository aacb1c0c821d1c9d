"""glory_ai.learn: self-play shards, training, and the trained models in the search."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from glory_ai.arena import RunConfig, load_records, run
from glory_ai.bots import make_bot
from glory_ai.bots._search import _evaluate, _rewards
from glory_ai.bots.models import FEATURE_COUNT, FEATURE_NAMES, load_model
from glory_ai.game import Game
from glory_ai.learn import LearnError, SelfPlayConfig, load_train_config, selfplay, train
from glory_ai.learn import shards as selfplay_module
from glory_ai.learn.commands import main
from glory_ai.learn.fitting import Dataset, TrainConfig, fit_linear, load_dataset, softmax_shares

SPEC = "heuristic:epsilon=0.3"          # cheap and varied: a one-ply bot with random moves


def _config(deals: int = 6, players: int = 2, seed: int = 5) -> SelfPlayConfig:
    return SelfPlayConfig(RunConfig(specs=(SPEC,), players=players, deals=deals, seed=seed),
                          positions=3, shard_deals=2)


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("selfplay") / "sp"
    selfplay(_config(), out, progress=False)
    return out


@pytest.fixture(scope="module")
def trained(played, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("model")
    config = TrainConfig(shards=(played,), seed=11, holdout=0.34, hidden=(6,), epochs=4, per_count=False)
    train(config, out)
    return out


def _shard_bytes(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((folder / "shards").glob("*.npz"))}


# ---- self-play ------------------------------------------------------------------------------

def test_shards_hold_every_player_s_features_and_outcome_at_sampled_positions(played):
    records = {r["game_id"]: r for r in load_records(played / "games")}
    shards = sorted((played / "shards").glob("shard-*.npz"))
    assert [p.name for p in shards] == ["shard-00000.npz", "shard-00001.npz", "shard-00002.npz"]
    seen_games = set()
    for path in shards:
        with np.load(path) as shard:
            assert shard["features"].shape[1] == FEATURE_COUNT
            for i in np.flatnonzero(shard["player"] == 0):
                record = records[str(shard["game_id"][i])]
                seen_games.add(record["game_id"])
                decision = int(shard["decision"][i])
                state = Game(2).new_initial_state(record["seed"])
                for action in record["actions"][:decision]:
                    state.apply_action(action)
                for p in range(2):
                    row = i + p
                    assert shard["player"][row] == p and shard["num_players"][row] == 2
                    assert np.array_equal(shard["features"][row], state.features(p).astype(np.float32))
                    assert shard["win_share"][row] == record["returns"][p]
                    other = record["scores"][1 - p]
                    assert shard["margin"][row] == record["scores"][p] - other
    assert seen_games == set(records)


def test_positions_are_spread_over_the_game(played):
    with np.load(played / "shards" / "shard-00000.npz") as shard:
        for game in set(shard["game_id"].tolist()):
            rows = (shard["game_id"] == game) & (shard["player"] == 0)
            decisions = np.sort(shard["decision"][rows])
            length = int(shard["decisions"][rows][0])
            assert len(decisions) == 3
            for k, d in enumerate(decisions):        # one in each third of the game
                assert k * length // 3 <= d < (k + 1) * length // 3


def test_an_interrupted_selfplay_resumes_to_the_same_shards(played, tmp_path, monkeypatch):
    out = tmp_path / "sp"
    real = selfplay_module.write_npz
    calls = []

    def interrupt_after_one(path, arrays, **kw):
        if calls:
            raise KeyboardInterrupt
        calls.append(path)
        real(path, arrays, **kw)

    monkeypatch.setattr(selfplay_module, "write_npz", interrupt_after_one)
    with pytest.raises(KeyboardInterrupt):
        selfplay(_config(), out, progress=False)
    monkeypatch.setattr(selfplay_module, "write_npz", real)
    assert len(list((out / "shards").glob("*.npz"))) == 1
    result = selfplay(_config(), out, progress=False)
    assert result.games == 6 and result.played < 6
    assert _shard_bytes(out) == _shard_bytes(played)
    # once more: nothing to play, nothing rewritten
    assert selfplay(_config(), out, progress=False).played == 0
    assert _shard_bytes(out) == _shard_bytes(played)


def test_a_folder_of_another_selfplay_config_is_refused(played):
    with pytest.raises(LearnError, match="another config"):
        selfplay(_config(seed=6), played, progress=False)


# ---- training -------------------------------------------------------------------------------

def test_end_to_end_the_trained_model_plays_in_the_search(trained, tmp_path):
    report = json.loads((trained / "report.json").read_text())
    assert set(report["models"]) == {"linear", "mlp"} and report["chosen"] in ("linear", "mlp")
    for name in ("linear.npz", "mlp.npz", "model.npz", "report.md", "loss.png", "calibration.png"):
        assert (trained / name).stat().st_size > 0
    spec = f"ismcts:iters=30,eval={trained / 'model.npz'}"
    result = run(RunConfig(specs=(spec, "ismcts:iters=30"), deals=1, seed=3))
    assert len(result.records) == 2 and all(r["end_reason"] != "decision_limit" for r in result.records)


@pytest.mark.parametrize("kind", ["linear", "mlp"])
def test_the_trained_file_evaluates_in_c_as_the_python_reference_and_as_trained(trained, played, kind):
    model = load_model(trained / f"{kind}.npz")
    assert model.output == "win_logit"
    data = load_dataset([played])
    state = Game(2).new_initial_state(9)
    bot = make_bot("greedy", seed=1)
    for _ in range(40):
        state.apply_action(bot.step(state))
    logits = []
    for p in range(2):
        reference = model.evaluate(state.features(p))
        assert _evaluate(state, p, model=model) == pytest.approx(reference, rel=1e-12, abs=1e-12)
        logits.append(reference)
    # at a cutoff the search's win rewards are the softmax of the logits: the training's target
    shares = softmax_shares(np.array(logits), np.array([0]))
    assert _rewards(state, "win", 4.0, model=model) == pytest.approx(shares)
    assert np.all(np.isfinite(model.evaluate(data.features)))


def test_a_fixed_seed_gives_byte_identical_model_files(played, trained, tmp_path):
    config = TrainConfig(shards=(played,), seed=11, holdout=0.34, hidden=(6,), epochs=4, per_count=False)
    train(config, tmp_path)
    for name in ("linear.npz", "mlp.npz", "model.npz"):
        assert (tmp_path / name).read_bytes() == (trained / name).read_bytes(), name


def _synthetic(rng: np.random.Generator, weights: np.ndarray, positions: int) -> Dataset:
    rows, shares, counts = [], [], []
    for _ in range(positions):
        n = int(rng.integers(2, 5))
        x = rng.normal(0.0, 1.0, (n, FEATURE_COUNT)) * (rng.random((n, FEATURE_COUNT)) < 0.5)
        logits = x @ weights
        chance = np.exp(logits - logits.max())
        winner = rng.choice(n, p=chance / chance.sum())
        rows.append(x)
        shares.append(np.eye(n)[winner])
        counts.append(np.full(n, n))
    sizes = np.array([len(s) for s in shares])
    return Dataset(np.concatenate(rows), np.concatenate(shares), np.concatenate(counts),
                   np.repeat(np.arange(positions), sizes), np.concatenate([[0], np.cumsum(sizes)[:-1]]))


def test_the_linear_model_recovers_a_known_linear_rule():
    rng = np.random.default_rng(4)
    truth = np.zeros(FEATURE_COUNT)
    for name, value in (("score", 0.8), ("hand_cards", -0.5), ("jacks", 0.6), ("vault_cards", 0.3)):
        truth[FEATURE_NAMES.index(name)] = value
    weights, _ = fit_linear(_synthetic(rng, truth, 2500), C=100.0)
    assert np.max(np.abs(weights - truth)) < 0.12, np.round(weights - truth, 2)


# ---- configs --------------------------------------------------------------------------------

@pytest.mark.parametrize("text, message", [
    ('shards = ["sp"]\nlearning_rate = 0.1\n', "unknown key 'learning_rate'"),
    ('shards = ["sp"]\n[mlp]\nlayers = [3]\n', "[mlp]: unknown key 'layers'"),
    ('shards = ["sp"]\nchoose = "forest"\n', "choose must be"),
    ('shards = ["sp"]\nholdout = 2\n', "holdout must be"),
    ('seed = 1\n', "missing key 'shards'"),
    ('shards = ["sp"\n', "not valid TOML"),
])
def test_a_bad_training_config_is_one_clear_error(tmp_path, text, message):
    path = tmp_path / "train.toml"
    path.write_text(text)
    with pytest.raises(LearnError) as caught:
        load_train_config(path)
    assert message in str(caught.value) and str(path) in str(caught.value)


def test_missing_shards_are_one_line_on_the_command_line(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    for shards, message in (('"nowhere"', "no such file"), ('"empty"', "holds no shards")):
        path = tmp_path / "train.toml"
        path.write_text(f"shards = [{shards}]\nout = \"model\"\n")
        assert main(["train", str(path)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err
    path.write_text('shards = ["sp"]\nlayers = 2\n')
    assert main(["train", str(path)]) == 2
    assert "unknown key 'layers'" in capsys.readouterr().err
