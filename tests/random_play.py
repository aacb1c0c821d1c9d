"""Seeded random play through the validated Python API (shared by the property tests)."""
import random

import glory_ai


def play_random(state, seed, decisions):
    """Apply up to `decisions` uniformly random legal actions (fewer if the game ends)."""
    rng = random.Random(seed)
    for _ in range(decisions):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def mid_game(num_players, seed, decisions, mode="republic"):
    return play_random(glory_ai.Game(num_players, mode=mode).new_initial_state(seed), seed, decisions)
