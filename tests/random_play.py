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


def every_decision(seeds, builder=lambda seed: True):
    """Each decision state of seeded games, both modes, 2-5 players, played one C-level
    step at a time by the checked playout (builder-biased where `builder(seed)`): yields
    ((mode, players, seed, step), state) before each decision, and asserts that every
    step keeps the engine's invariants."""
    for mode in ("republic", "imperium"):
        for num_players in (2, 3, 4, 5):
            game = glory_ai.Game(num_players, mode=mode)
            for seed in range(seeds):
                state = game.new_initial_state(seed)
                step = 0
                while not state.is_terminal():
                    yield (mode, num_players, seed, step), state
                    code, _ = state._stress(seed * 100003 + step, builder=builder(seed), stop_after=1)
                    assert code == 0, (mode, num_players, seed, step, code)
                    step += 1
