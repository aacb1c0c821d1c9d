"""What the OpenSpiel adapter costs OpenSpiel's own Python ISMCTS:
python benchmarks/openspiel_adapter.py [--sims N] [--states K] [--players 2 4] [--rounds R] [--label TEXT]

OpenSpiel's Python ``ISMCTSBot`` (glory_ai.integrations.compare.openspiel_ismcts: one random
rollout to the end per simulation, UCB constant 0.7, seeded resampling) searches the same
mid-game states (glory_ai.bots.bench.mid_game_states, as ``glory-ai bench --compare`` does)
through the adapter (glory_ai.integrations.openspiel) and through the minimal wrapper
(compare.MinimalState: a plain Python object answering the bot's calls from the engine, the
least an adapter could cost the bot). The two take turns, state by state, for ``rounds``
rounds; per state the best round of each (CPU time of this process), then the median over
the states, in simulations (= iterations) per CPU second, and the adapter's rate over the
minimal wrapper's. Then the per-call costs the searches pay (a decision applied from
Python, a clone, a resample), the best of five runs of 20,000 calls each.

Compare the ratios measured in one run, never absolute figures across machines or runs:
the machine is shared. ``--label`` names the adapter's version in the output.
"""
from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

from glory_ai.bench import provenance
from glory_ai.bots.bench import mid_game_states
from glory_ai.integrations import compare
from glory_ai.integrations import openspiel as gs

CALLS = 20_000


def search_rates(num_players: int, states: list, sims: int, rounds: int) -> dict[str, float]:
    os_game = gs.load_game(players=num_players)
    minimal = compare.MinimalGame(num_players)
    best: dict[str, list[float]] = {"adapter": [0.0] * len(states), "minimal": [0.0] * len(states)}
    for _ in range(rounds):
        for i, state in enumerate(states):
            for who, game, wrapped in (("adapter", os_game, gs.from_glory_state(os_game, state)),
                                       ("minimal", minimal, compare.MinimalState(minimal, state.clone()))):
                searcher = compare.openspiel_ismcts(game, sims, seed=i)
                start = time.process_time()
                searcher.step(wrapped)
                best[who][i] = max(best[who][i], sims / (time.process_time() - start))
    return {who: statistics.median(rates) for who, rates in best.items()}


def _best_ns(run: Callable[[], Any], setup: Callable[[], Any] | None = None) -> float:
    times = []
    for _ in range(5):
        items = setup() if setup is not None else None
        start = time.process_time()
        run() if items is None else run(items)          # type: ignore[call-arg]
        times.append(time.process_time() - start)
    return min(times) / CALLS * 1e9


def call_costs(num_players: int, state: Any) -> list[tuple[str, float, float]]:
    """(call, adapter ns, minimal wrapper ns) on one mid-game state."""
    os_game = gs.load_game(players=num_players)
    minimal = compare.MinimalGame(num_players)
    adapter, plain = gs.from_glory_state(os_game, state), compare.MinimalState(minimal, state.clone())
    action = state.legal_actions()[0]
    rows = []

    def apply(copies: list) -> None:
        for copy in copies:
            copy.apply_action(action)

    def clones(wrapped: Any) -> Callable[[], None]:
        def run() -> None:
            for _ in range(CALLS):
                wrapped.clone()
        return run

    costs = [_best_ns(apply, lambda w=w: [w.clone() for _ in range(CALLS)]) for w in (adapter, plain)]
    rows.append(("apply_action from Python", *costs))
    rows.append(("clone", _best_ns(clones(adapter)), _best_ns(clones(plain))))
    player = state.current_player()
    samplers = (gs.make_resampler(1), compare.MinimalState.resampler(1))

    def resamples(sampler: Callable, wrapped: Any) -> Callable[[], None]:
        def run() -> None:
            for _ in range(CALLS):
                sampler(wrapped, player)
        return run

    rows.append(("resample", _best_ns(resamples(samplers[0], adapter)),
                 _best_ns(resamples(samplers[1], plain))))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=200, help="simulations per search (default 200)")
    parser.add_argument("--states", type=int, default=6, help="mid-game states per player count (default 6)")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4], help="player counts (default 2 4)")
    parser.add_argument("--rounds", type=int, default=3, help="searches per state and contender (default 3)")
    parser.add_argument("--label", default="", help="names the adapter's version in the output")
    args = parser.parse_args()
    print(provenance(), flush=True)
    label = f" ({args.label})" if args.label else ""
    for players in args.players:
        states = mid_game_states(players, args.states, seed=players * 100)
        rates = search_rates(players, states, args.sims, args.rounds)
        head = f"{players} players  OpenSpiel ISMCTSBot"
        print(f"{head}, adapter{label}  {rates['adapter']:>8,.1f} it/s", flush=True)
        print(f"{head}, minimal wrapper  {rates['minimal']:>8,.1f} it/s", flush=True)
        ratio = rates["minimal"] / rates["adapter"]
        print(f"{head}, minimal wrapper / adapter{label}  x{ratio:.2f}", flush=True)
        for call, adapter_ns, minimal_ns in call_costs(players, states[0]):
            print(f"{players} players  {call:<26} adapter{label} {adapter_ns:>7,.0f} ns, "
                  f"minimal wrapper {minimal_ns:>6,.0f} ns", flush=True)


if __name__ == "__main__":
    main()
