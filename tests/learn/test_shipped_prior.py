"""The shipped prior (prior=learned) is results/learned_prior's last generation, its fit
reproduces from the stored decisions, and a stored self-play game replays to its records."""
from pathlib import Path

import numpy as np
import pytest

from glory_ai.bots.models import load_model
from glory_ai.bots.prior import PRIOR_COUNTS, load_prior, prior_paths
from glory_ai.learn.prior import _load, _seed, fit_prior, load_prior_config, record_game

ROOT = Path(__file__).resolve().parents[2]
RESULT = ROOT / "results" / "learned_prior"
CONFIG = ROOT / "experiments" / "learning" / "learned_prior.toml"


def test_prior_learned_is_the_last_generation_of_the_shipped_result():
    config = load_prior_config(CONFIG)
    last = RESULT / f"gen-{config.generations}"
    for n, path in prior_paths("learned").items():
        assert path.read_bytes() == (last / f"prior-{n}.npz").read_bytes()
    models = load_prior("learned")
    assert models is not None and sorted(models) == list(PRIOR_COUNTS)


def test_a_generation_s_fit_reproduces_from_the_stored_decisions():
    config = load_prior_config(CONFIG)
    n = 5
    train, _ = _load([RESULT / "gen-0" / f"selfplay-{n}p.npz"], config.holdout)
    w, mean, scale = fit_prior(train, config.l2)
    stored = load_model(RESULT / "gen-1" / f"prior-{n}.npz")
    assert stored.mean == pytest.approx(mean) and stored.scale == pytest.approx(scale)
    assert stored.layers[0][0][:, 0] == pytest.approx(w, rel=1e-4, abs=1e-6)


def test_a_stored_self_play_game_replays_to_its_records():
    config = load_prior_config(CONFIG)
    with np.load(RESULT / "gen-0" / "selfplay-2p.npz") as data:
        spec, deal, offsets = str(data["spec"]), data["deal"], data["offsets"]
        first = np.flatnonzero(deal == 0)
        features = data["features"][offsets[first[0]]:offsets[first[-1] + 1]]
        visits = data["visits"][offsets[first[0]]:offsets[first[-1] + 1]]
    got_features, got_visits, _ = record_game(spec, 2, _seed(config.seed, 0, 2, 0), config.rate)
    assert np.array_equal(np.concatenate(got_visits), visits)
    assert np.array_equal(np.concatenate(got_features).astype(np.float16), features)
