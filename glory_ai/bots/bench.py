"""Search speed figures (`glory-ai bench --search`, benchmarks/search.py).

Iterations per second of ISMCTS and PIMC from 2- and 4-player mid-game states, with random
rollouts to the end and with a rollout cutoff (evaluation); root-parallel scaling with two
threads; and how closely a time_ms budget is kept. Figures are medians over several
states; compare ratios measured in one run, never absolute numbers across machines.
"""
from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence

from ..game import Game, State
from . import make_bot


def mid_game_states(num_players: int, count: int, seed: int = 0, depth: int = 120) -> list[State]:
    """Live states about `depth` decisions into seeded games played by the greedy bot."""
    game = Game(num_players)
    states: list[State] = []
    deal = seed
    while len(states) < count:
        state = game.new_initial_state(deal)
        bot = make_bot("greedy", seed=deal)
        for _ in range(depth):
            if state.is_terminal():
                break
            state.apply_action(bot.step(state))
        deal += 1
        if not state.is_terminal() and len(state.legal_actions()) > 1:
            states.append(state)
    return states


def states_along_games(num_players: int, games: int, *, spec: str = "greedy", first_deal: int = 0,
                       every: int = 1, mode: str = "republic") -> list[State]:
    """Copies of the states at every `every`-th decision with a choice along `games` games
    (deals first_deal, first_deal + 1, ...) played by `spec` (seeded by the game's index):
    positions of every phase of a game, not only its middle."""
    game = Game(num_players, mode=mode)
    out: list[State] = []
    for index in range(games):
        state = game.new_initial_state(first_deal + index)
        bot = make_bot(spec, seed=index)
        step = 0
        while not state.is_terminal():
            if step % every == 0 and len(state.legal_actions()) > 1:
                out.append(state.clone())
            state.apply_action(bot.step(state))
            step += 1
    return out


def iterations_per_second(spec: str, states: Sequence[State]) -> float:
    """Median over the states of iterations / second of one search of `spec`."""
    rates = []
    for i, state in enumerate(states):
        bot = make_bot(spec, seed=i)
        bot.step(state)
        info = bot.last_search()
        if info and info["seconds"] > 0:
            rates.append(info["iterations"] / info["seconds"])
    return statistics.median(rates)


def time_budget_error(spec: str, states: Sequence[State], budget_ms: float) -> float:
    """Median relative error of the wall time of bot.step under a time_ms budget."""
    errors = []
    for i, state in enumerate(states):
        bot = make_bot(f"{spec},time_ms={budget_ms}", seed=i)
        start = time.perf_counter()
        bot.step(state)
        elapsed = (time.perf_counter() - start) * 1000
        errors.append(abs(elapsed - budget_ms) / budget_ms)
    return statistics.median(errors)


def run(states_per_count: int = 6, iters: int = 4000,
        progress: Callable[[str], object] = print) -> dict[int, dict[str, float]]:
    results: dict[int, dict[str, float]] = {}
    for num_players in (2, 4):
        states = mid_game_states(num_players, states_per_count, seed=num_players * 100)
        row: dict[str, float] = {}
        for label, spec in (("ismcts", f"ismcts:iters={iters},cutoff=0"),
                            ("ismcts_cutoff40", f"ismcts:iters={iters},cutoff=40"),
                            ("ismcts_heuristic_cutoff40",
                             f"ismcts:iters={iters // 4},rollout=heuristic,cutoff=40"),
                            ("pimc", f"pimc:iters={iters},worlds=20,cutoff=0"),
                            ("ismcts_2_threads", f"ismcts:iters={iters},threads=2,cutoff=0")):
            row[label] = iterations_per_second(spec, states)
        row["thread_scaling"] = row["ismcts_2_threads"] / row["ismcts"]
        row["time_budget_error_200ms"] = time_budget_error("ismcts:iters=0", states[:3], 200.0)
        results[num_players] = row
        progress(f"{num_players} players: ISMCTS {row['ismcts']:,.0f} it/s (random rollouts to the end), "
                 f"{row['ismcts_cutoff40']:,.0f} it/s (cutoff 40), "
                 f"{row['ismcts_heuristic_cutoff40']:,.0f} it/s (heuristic rollouts, cutoff 40); "
                 f"PIMC {row['pimc']:,.0f} it/s; 2 threads {row['ismcts_2_threads']:,.0f} it/s "
                 f"(x{row['thread_scaling']:.2f}); time_ms=200 kept within "
                 f"{100 * row['time_budget_error_200ms']:.1f}%")
    return results
