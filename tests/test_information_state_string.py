"""The information-state string is written in C; it must be, byte for byte, the compact
sorted-key JSON of the observation dict (docs/notation.md), which tests and users key on."""
import json

import pytest

import glory_ai
from glory_ai import Phase
from support.positions import done, play, state_of
from support.random_play import every_decision, play_random


def from_the_dict(state, player):
    return json.dumps(state.observation(player), sort_keys=True, separators=(",", ":"))


def test_equals_the_json_of_the_observation_at_every_decision():
    phases = set()
    checked = 0
    for (_mode, num_players, _seed, step), state in every_decision(8, builder=lambda seed: seed != 0):
        phases.add(state.phase())
        # the decider and, in turn, each other seat
        for player in {state.current_player(), step % num_players}:
            assert state.information_state_string(player) == from_the_dict(state, player)
            checked += 1
    # the builder-biased games reach the rarer decisions too (Fountain, Prison, Sewer, ...)
    assert phases >= set(Phase) - {Phase.OVER, Phase.PAY_MORE}, set(Phase) - phases
    assert checked > 25000


def test_equals_the_json_of_the_observation_while_palace_units_are_paid():
    state = state_of(2, [
        {"hand": ["Insula"]},
        {"hand": ["Bar", "Road", "Jack", "Dock"], "structures": [done("Palace")]},
    ], pool=["Academy", "Basilica", "Garden", "Temple"])
    play(state, "lead Laborer with Insula", "follow Laborer with Bar")
    assert state.phase() == Phase.PAY_MORE
    for player in range(2):
        assert state.information_state_string(player) == from_the_dict(state, player)


@pytest.mark.parametrize("variant", [
    {},
    {"refill_size": 6, "in_town_sites": 3},
    {"copies": {"temple": 5, "Bar": 1}, "removed": ["Wall", "Atrium"]},
])
@pytest.mark.parametrize("mode", ["republic", "imperium"])
def test_equals_the_json_in_variants_and_at_the_end(mode, variant):
    game = glory_ai.Game(3, mode=mode, **variant)
    for seed in range(4):
        state = play_random(game.new_initial_state(seed), seed, 10_000)
        assert state.is_terminal()
        for player in range(3):
            assert state.information_state_string(player) == from_the_dict(state, player)


def test_a_fountain_card_shows_only_to_its_drawer():
    for (_mode, num_players, _seed, _step), state in every_decision(6):
        if state.phase() == Phase.FOUNTAIN:
            drawer = state.current_player()
            strings = [state.information_state_string(p) for p in range(num_players)]
            for p in range(num_players):
                fountain = json.loads(strings[p])["turn"]["fountain_card"]
                assert (fountain is not None) == (p == drawer)
                assert strings[p] == from_the_dict(state, p)
            return
    pytest.fail("no Fountain decision in the sampled games")
