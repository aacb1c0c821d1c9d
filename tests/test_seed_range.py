"""One seed range for every entry point that takes a seed (glory_ai.core.seeds): each accepts
MAX_SEED, refuses MAX_SEED + 1 and -1, and says so in the same words."""
import argparse

import pytest

import glory_ai
from glory_ai import _argparse as argtypes
from glory_ai.arena.plan import ArenaError, RunConfig
from glory_ai.bots import make_bot
from glory_ai.bots._fairplay import Referee, fair_view
from glory_ai.core import config, seeds
from glory_ai.experiments import ExperimentError, parse_experiment

MAX_SEED = config.MAX_SEED
WORDS = "must be an integer from 0 to 2**64 - 1, got"


def _mid_state(seed=3):
    state = glory_ai.Game(2).new_initial_state(seed)
    for _ in range(12):
        state.apply_action(state.legal_actions()[0])
    return state


def _experiment(seed):
    return parse_experiment({"seed": seed, "matchup": [{"specs": ["random", "greedy"], "deals": 1}]},
                            "seeds")


def _position(seed):
    position = glory_ai.Game(2).new_initial_state(5).to_dict()
    position["seed"] = seed
    return glory_ai.State.from_dict(position)


# every entry point: a call taking the seed, and the error a refusal raises there
ENTRY_POINTS = {
    "new_initial_state": (lambda seed: glory_ai.Game(3).new_initial_state(seed), ValueError),
    "determinize": (lambda seed: _mid_state().determinize(1, seed), ValueError),
    "random_playout": (lambda seed: _mid_state().random_playout(seed), ValueError),
    "State.from_dict": (_position, ValueError),
    "make_bot": (lambda seed: make_bot("greedy", seed=seed), ValueError),
    "fair_view": (lambda seed: fair_view(_mid_state(), 0, seed), ValueError),
    "Referee": (lambda seed: Referee(lambda state: 0, seed), ValueError),
    "RunConfig": (lambda seed: RunConfig(("random", "greedy"), seed=seed), ArenaError),
    "experiment config": (_experiment, ExperimentError),
    "--seed": (lambda seed: argtypes.seed(str(seed)), argparse.ArgumentTypeError),
}


def test_there_is_one_constant():
    assert MAX_SEED == seeds.MAX_SEED == 2**64 - 1
    assert config.check_seed is seeds.check_seed


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_every_entry_point_takes_the_largest_seed(name):
    call, _ = ENTRY_POINTS[name]
    assert call(MAX_SEED) is not None


@pytest.mark.parametrize("bad", [MAX_SEED + 1, -1])
@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_every_entry_point_refuses_a_seed_out_of_range_in_the_same_words(name, bad):
    call, error = ENTRY_POINTS[name]
    with pytest.raises(error) as info:
        call(bad)
    assert f"{WORDS} " in str(info.value) and str(bad) in str(info.value)


def test_the_largest_seed_deals_its_own_game():
    # accepted as itself, not wrapped to 0 or cut to 63 bits
    game = glory_ai.Game(2)
    largest = game.new_initial_state(MAX_SEED).to_dict()
    assert largest != game.new_initial_state(0).to_dict()
    assert largest != game.new_initial_state(MAX_SEED >> 1).to_dict()
    assert RunConfig(("random", "greedy"), seed=MAX_SEED).seed == MAX_SEED
    assert _experiment(MAX_SEED).seed == MAX_SEED


@pytest.mark.parametrize("value", [True, 1.0, "7", None])
def test_a_seed_that_is_not_an_integer_is_a_type_error(value):
    with pytest.raises(TypeError, match=r"seed must be an integer from 0 to 2\*\*64 - 1"):
        seeds.check_seed(value)
    with pytest.raises(TypeError, match="seed must be"):
        fair_view(_mid_state(), 0, value)


def test_numpy_integers_are_seeds():
    np = pytest.importorskip("numpy")
    assert seeds.check_seed(np.uint64(MAX_SEED)) == MAX_SEED
    assert type(seeds.check_seed(np.int64(7))) is int
