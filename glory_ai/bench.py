"""Engine speed figures (`glory-ai bench`, benchmarks/engine.py).

Everything runs on one core in this process. Figures are medians of several repeats;
compare ratios measured in one run, never absolute numbers across machines.
"""
from __future__ import annotations

import functools
import statistics
import time
import timeit

from .game import Game, State


def _median_ns(fn, number: int, repeat: int = 5) -> float:
    return statistics.median(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e9


def sample_states(num_players: int, count: int, seed: int = 0):
    """Mid-game states (with a legal action each) taken from seeded random games."""
    import random

    rng = random.Random(seed)
    game = Game(num_players)
    out: list[tuple[State, int]] = []
    game_seed = 0
    while len(out) < count:
        state = game.new_initial_state(game_seed)
        game_seed += 1
        while not state.is_terminal() and len(out) < count:
            legal = state.legal_actions()
            action = rng.choice(legal)
            if rng.random() < 0.05:
                out.append((state.clone(), action))
            state._apply_unchecked(action)
    return out


def playout_rate(num_players: int, seconds: float = 2.0, mode: str = "republic"):
    """Random full games per second and decisions per second through random_playout."""
    game = Game(num_players, mode=mode)
    games = decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(100):
            state = game.new_initial_state(games)
            decisions += state.random_playout(games)
            games += 1
    elapsed = time.perf_counter() - start
    return {"players": num_players, "games_per_s": games / elapsed,
            "decisions_per_s": decisions / elapsed, "decisions_per_game": decisions / games,
            "games": games}


def _cycling_ns(items, op, number: int = 20000) -> float:
    """ns per op(item), cycling through items, less the cost of the cycling itself."""
    def timed(fn):
        def loop():
            for k in range(number):
                fn(items[k % len(items)])
        return statistics.median(timeit.repeat(loop, number=1, repeat=5)) / number * 1e9
    return timed(op) - timed(lambda item: None)


def run(seconds: float = 2.0, progress=print) -> dict:
    results: dict = {}
    for num_players in (2, 4):
        samples = sample_states(num_players, 400, seed=num_players)
        states = [s for s, _ in samples]
        clone_ns = _median_ns(states[len(states) // 2].clone, 200000)      # one hot state
        clone_many_ns = _cycling_ns(states, State.clone)                   # 400 states, cache-cold
        legal_ns = _cycling_ns(states, State.legal_actions)
        apply_ns = _cycling_ns(samples, lambda sa: sa[0].clone().apply_action(sa[1])) - clone_many_ns
        apply_fast_ns = (_cycling_ns(samples, lambda sa: sa[0].clone()._apply_unchecked(sa[1]))
                         - clone_many_ns)
        mid = next(s for s in states if s.deck_size() < 100 and not s.is_terminal())
        det_c = statistics.median(mid._bench_determinize(1, 50000) for _ in range(5))
        det_py = _median_ns(functools.partial(mid.determinize, 1, 7), 20000)
        rate = playout_rate(num_players, seconds)
        row = {"clone_ns": clone_ns, "clone_many_ns": clone_many_ns, "legal_actions_ns": legal_ns,
               "apply_action_ns": apply_ns, "apply_unchecked_ns": apply_fast_ns,
               "determinize_c_ns": det_c, "determinize_py_ns": det_py, **rate}
        results[num_players] = row
        progress(f"{num_players} players: clone {clone_ns:.0f} ns ({clone_many_ns:.0f} ns over 400 states), "
                 f"legal_actions {legal_ns:.0f} ns, apply_action {apply_ns:.0f} ns "
                 f"(unchecked {apply_fast_ns:.0f} ns), {rate['games_per_s']:.0f} random games/s, "
                 f"{rate['decisions_per_s'] / 1e6:.2f} M decisions/s, "
                 f"{rate['decisions_per_game']:.1f} decisions/game, "
                 f"determinize {det_c:.0f} ns in C / {det_py:.0f} ns from Python")
    return results
