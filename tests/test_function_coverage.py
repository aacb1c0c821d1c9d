"""In a seeded property run, every one of the 44 building functions fires.

A "builder" random policy (prefers laying foundations, adding materials and hiring) plays
games of every player count in both modes; the functions each game used
(State.functions_used(), recorded by the engine whenever a function changes what happens)
must cover every function of the mode, and the C-level invariant checker must pass at
every step.
"""
import random

import pytest

import glory_ai
from glory_ai.actions import block_range
from glory_ai.cards import CARD_MODE, CARD_NAMES

GAMES_PER_COUNT = 500
# actions the builder prefers: hires, foundations and materials, building-function choices
HIRE = range(block_range("hire_pool").start, block_range("hire_hand").stop)
BUILD = range(block_range("lay").start, block_range("add_pool").stop)
FUNCTIONS = range(block_range("fountain_draw").start, block_range("use_extra").stop)


def builder_action(state, rng):
    legal = state.legal_actions()
    preferred = [a for a in legal if a in BUILD or a in HIRE or a in FUNCTIONS]
    if preferred and rng.random() < 0.9:
        return rng.choice(preferred)
    return rng.choice(legal)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["republic", "imperium"])
def test_every_building_function_fires_in_a_builder_property_run(mode):
    used = set()
    for num_players in (2, 3, 4, 5):
        game = glory_ai.Game(num_players, mode=mode)
        for seed in range(GAMES_PER_COUNT):
            state = game.new_initial_state(seed)
            rng = random.Random(seed)
            while not state.is_terminal():
                state._apply_unchecked(builder_action(state, rng))
                assert state._invariant_code() == 0, (num_players, seed)
            assert state.winners()
            used.update(state.functions_used())
    excluded = 2 if mode == "imperium" else 1          # the other mode's four buildings
    expected = [CARD_NAMES[b] for b in range(1, 45) if CARD_MODE[b] != excluded]
    assert len(expected) == 40
    silent = [name for name in expected if name not in used]
    assert silent == []
    other_mode = [CARD_NAMES[b] for b in range(1, 45) if CARD_MODE[b] == excluded]
    assert not used & set(other_mode)
