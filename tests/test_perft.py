"""Perft-style regression (as in python-chess): exact counts of legal action sequences.

The numbers were measured from this engine and frozen: any change to move generation or to
the turn flow at the start of a game shows up here. If a rules fix changes them on purpose,
re-measure with `perft()` below and say why in the commit message.
"""
import pytest

import glory_ai


def perft(state, depth):
    if depth == 0 or state.is_terminal():
        return 1
    total = 0
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        total += perft(child, depth - 1)
    return total


@pytest.mark.parametrize("num_players, mode, seed, expected", [
    (2, "republic", 1, [19, 91, 596, 4609, 24983]),
    (3, "republic", 2, [7, 58, 228, 831, 5247]),
    (4, "republic", 3, [13, 54, 226, 1170, 5464]),
    (3, "imperium", 5, [12, 61, 259, 1422]),
])
def test_perft_from_seeded_deals(num_players, mode, seed, expected):
    state = glory_ai.Game(num_players, mode=mode).new_initial_state(seed)
    assert [perft(state, d) for d in range(1, len(expected) + 1)] == expected
