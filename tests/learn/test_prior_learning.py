"""Expert iteration of the prior (glory-ai learn-prior; glory_ai/learn/prior.py): the
config checked, the cross-entropy against visit distributions, a fit that recovers a planted
preference, and a small run end to end whose prior the search reads."""
import json

import numpy as np
import pytest

from glory_ai.bots import make_bot
from glory_ai.bots.prior import load_prior
from glory_ai.core.engine import FEATURE_COUNT
from glory_ai.learn.prior import _cross_entropy, fit_prior, learn_prior, prior_config_from
from glory_ai.learn.shards import LearnError

GOOD = {"name": "t", "search": "ismcts:iters=20", "players": [2], "deals": [2], "rate": 0.5, "generations": 1}


@pytest.mark.parametrize("change, text", [
    ({"colour": 1}, "unknown key 'colour'"),
    ({"players": [6]}, "players (2..5)"),
    ({"deals": [2, 3]}, "same length"),
    ({"search": "ismcts:prior=learned"}, "must not set prior="),
    ({"rate": 0}, "rate in (0, 1]"),
    # a config never runs a user's code (nor asks for --trust to)
    ({"search": "./mybot.py:Bot"}, "search must be an ISMCTS or PIMC spec"),
    ({"search": "greedy"}, "search must be an ismcts or pimc spec"),
    ({"search": "ismcts:bogus=1"}, "has no parameter 'bogus'"),
    ({"players": 2}, "must be lists"),
    ({"deals": ["a"]}, "must be lists"),
    ({"seed": "x"}, "seed must be an integer"),
    ({"generations": 2.5}, "generations must be an integer"),
    ({"rate": True}, "rate must be a number"),
])
def test_a_bad_config_is_a_one_line_error(change, text):
    with pytest.raises(LearnError) as caught:
        prior_config_from({**GOOD, **change})
    assert text in str(caught.value) and "\n" not in str(caught.value)


def test_the_cross_entropy_is_per_decision_against_the_visit_shares():
    data = {"visits": np.array([3.0, 1.0, 0.0, 5.0, 5.0]), "sizes": np.array([3, 2]),
            "starts": np.array([0, 3])}
    logits = np.array([1.0, 0.0, -1.0, 2.0, 2.0])
    loss, factor = _cross_entropy(logits, data)
    p1 = np.exp(logits[:3]) / np.exp(logits[:3]).sum()
    expected = (-(0.75 * np.log(p1[0]) + 0.25 * np.log(p1[1])) + np.log(2)) / 2
    assert loss == pytest.approx(expected)
    assert factor[:3] == pytest.approx((p1 - [0.75, 0.25, 0.0]) / 2)


def test_the_fit_recovers_a_planted_preference():
    rng = np.random.default_rng(4)
    sizes = rng.integers(2, 8, size=300)
    x = rng.normal(size=(sizes.sum(), FEATURE_COUNT))
    true = np.zeros(FEATURE_COUNT)
    true[5] = 2.0
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    logits = x @ true
    visits = np.concatenate([np.exp(logits[s:s + k]) / np.exp(logits[s:s + k]).sum() * 100
                             for s, k in zip(starts, sizes, strict=True)])
    train = {"x": x, "visits": visits, "sizes": sizes, "starts": starts}
    w, mean, scale = fit_prior(train, 1e-4)
    assert np.argmax(np.abs(w)) == 5 and w[5] / scale[5] == pytest.approx(2.0, rel=0.15)


def test_a_small_run_writes_generations_the_search_reads(tmp_path):
    config = prior_config_from({**GOOD, "players": [2, 3], "deals": [2, 2]})
    summary = learn_prior(config, tmp_path, log=lambda text: None)
    assert (tmp_path / "gen-0" / "selfplay-2p.npz").exists() and (tmp_path / "gen-1" / "prior-3.npz").exists()
    fit = summary["generations"][1]["fit"][2]
    assert fit["train_decisions"] > 0 and fit["heldout_decisions"] > 0
    assert fit["heldout_loss"] > 0 and fit["uniform_loss"] >= fit["target_entropy"] > 0
    assert 0 <= fit["top1"] <= 1 and 0 < fit["top1_uniform"] <= 0.5
    assert json.loads((tmp_path / "summary.json").read_text())["config"]["players"] == [2, 3]
    # one file per count given; the search takes a folder of the counts learnt (2 and 3) and
    # refuses a game of another count by name
    models = load_prior(str(tmp_path / "gen-1" / "prior-2.npz"))
    assert models is not None and models[2].kind == "linear"
    assert sorted(load_prior(str(tmp_path / "gen-1")) or {}) == [2, 3]
    bot = make_bot(f"ismcts:iters=30,prior={tmp_path / 'gen-1'}", seed=1)
    import glory_ai
    state = glory_ai.Game(3).new_initial_state(2)
    assert bot.step(state) in state.legal_actions()
    with pytest.raises(ValueError, match="the prior has no model for 4 players \\(it has 2, 3\\)"):
        bot.step(glory_ai.Game(4).new_initial_state(2))
    # a second run resumes: nothing is played again, the files stay
    before = (tmp_path / "gen-0" / "selfplay-2p.npz").read_bytes()
    learn_prior(config, tmp_path, log=lambda text: None)
    assert (tmp_path / "gen-0" / "selfplay-2p.npz").read_bytes() == before
    # another config's run into the folder is refused, its generations never mixed in
    other = prior_config_from({**GOOD, "players": [2, 3], "deals": [2, 2], "l2": 0.5})
    with pytest.raises(LearnError, match="holds the generations of another version"):
        learn_prior(other, tmp_path, log=lambda text: None)
    assert (tmp_path / "gen-0" / "selfplay-2p.npz").read_bytes() == before
    # and a second process on the folder while one writes it
    from glory_ai.arena.lock import FolderLock, FolderLocked
    with FolderLock(tmp_path), pytest.raises(FolderLocked, match="is being written by"):
        learn_prior(config, tmp_path, log=lambda text: None)
