"""Engine speed figures (`glory-ai bench`, benchmarks/engine.py).

Everything runs on one core in this process. Times are CPU time of this thread
(`time.thread_time_ns`), so other processes on a shared machine do not inflate them. A cost
that is a difference (an operation less the loop around it, apply less the clone before it)
is measured in interleaved rounds: each round times both sides back to back and takes the
difference there, and the figure is the median of those differences with its interquartile
range. Compare ratios measured in one run, never absolute numbers across machines.
"""
from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .game import Game, State

ROUNDS = 9


@dataclass(frozen=True)
class Timing:
    """ns per operation: the median over interleaved rounds and the quartiles around it."""

    median: float
    low: float          # first quartile
    high: float         # third quartile

    def __str__(self) -> str:
        return f"{self.median:.0f} ns [{self.low:.0f}, {self.high:.0f}]"

    @classmethod
    def of(cls, samples: Sequence[float]) -> Timing:
        if len(samples) < 4:
            value = statistics.median(samples)
            return cls(value, min(samples), max(samples))
        low, median, high = statistics.quantiles(samples, n=4)
        return cls(median, low, high)


def _cpu_ns_per_item(items: Sequence[Any], op: Callable[[Any], object], number: int) -> float:
    """CPU ns per op(item), cycling through items `number` times."""
    count = len(items)
    start = time.thread_time_ns()
    for k in range(number):
        op(items[k % count])
    return (time.thread_time_ns() - start) / number


def interleaved(items: Sequence[Any], op: Callable[[Any], object],
                base: Callable[[Any], object] = lambda item: None,
                number: int = 20000, rounds: int = ROUNDS) -> Timing:
    """ns per op(item) less ns per base(item), each round timing both back to back."""
    differences = []
    for _ in range(rounds):
        differences.append(_cpu_ns_per_item(items, op, number) - _cpu_ns_per_item(items, base, number))
    return Timing.of(differences)


def sample_states(num_players: int, count: int, seed: int = 0) -> list[tuple[State, int]]:
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


def playout_rate(num_players: int, seconds: float = 2.0, mode: str = "republic") -> dict[str, float]:
    """Random full games per CPU second and decisions per CPU second through random_playout."""
    game = Game(num_players, mode=mode)
    games = decisions = 0
    start = time.thread_time()
    while time.thread_time() - start < seconds:
        for _ in range(100):
            state = game.new_initial_state(games)
            decisions += state.random_playout(games)
            games += 1
    elapsed = time.thread_time() - start
    return {"players": num_players, "games_per_s": games / elapsed,
            "decisions_per_s": decisions / elapsed, "decisions_per_game": decisions / games,
            "games": games}


def _clone(state: State) -> State:
    return state.clone()


def run(seconds: float = 2.0, progress: Callable[[str], object] = print) -> dict[int, dict[str, Any]]:
    results: dict[int, dict[str, Any]] = {}
    for num_players in (2, 4):
        samples = sample_states(num_players, 400, seed=num_players)
        states = [s for s, _ in samples]
        hot = [states[len(states) // 2]]
        clone = interleaved(hot, _clone, number=100000)                        # one hot state
        clone_many = interleaved(states, _clone)                               # 400 states, cache-cold
        legal = interleaved(states, State.legal_actions)
        # apply costs: a clone then an apply, less a clone alone, in the same round
        apply_checked = interleaved(samples, lambda sa: sa[0].clone().apply_action(sa[1]),
                                    base=lambda sa: sa[0].clone())
        apply_unchecked = interleaved(samples, lambda sa: sa[0].clone()._apply_unchecked(sa[1]),
                                      base=lambda sa: sa[0].clone())
        mid = next(s for s in states if s.deck_size() < 100 and not s.is_terminal())
        det_c = Timing.of([mid._bench_determinize(1, 50000) for _ in range(ROUNDS)])
        det_py = interleaved([mid], lambda s: s.determinize(1, 7))
        rate = playout_rate(num_players, seconds)
        timings = {"clone": clone, "clone_many": clone_many, "legal_actions": legal,
                   "apply_action": apply_checked, "apply_unchecked": apply_unchecked,
                   "determinize_c": det_c, "determinize_py": det_py}
        row: dict[str, Any] = {f"{name}_ns": t.median for name, t in timings.items()}
        row["spread_ns"] = {name: (t.low, t.high) for name, t in timings.items()}
        row.update(rate)
        results[num_players] = row
        progress(f"{num_players} players (CPU ns per operation, median [quartiles] of {ROUNDS} rounds): "
                 f"clone {clone} (over 400 states {clone_many}), legal_actions {legal}, "
                 f"apply_action {apply_checked} (unchecked {apply_unchecked}), "
                 f"determinize {det_c} in C / {det_py} from Python; "
                 f"{rate['games_per_s']:,.0f} random games per CPU second, "
                 f"{rate['decisions_per_s'] / 1e6:.2f} M decisions/s, "
                 f"{rate['decisions_per_game']:.1f} decisions/game")
    return results
