"""The learned prior's cost a decision: python benchmarks/prior_cost.py [--games N] [--iters N]

The positions: every fifth decision with a choice of `--games` games of noisy one-ply players
at 2 to 5 players. Prints a provenance line, then for each player count the CPU ms a decision
of `ismcts:iters=N` with `prior=learned` and without (time.process_time, this process's CPU
time, so that other work on a busy machine slows the figures less than wall time would), and
their ratio.
"""
from __future__ import annotations

import argparse
import time

import glory_ai
from glory_ai.bench import provenance
from glory_ai.bots import make_bot
from glory_ai.bots.bench import states_along_games


def positions(num_players: int, games: int) -> list[glory_ai.State]:
    return states_along_games(num_players, games, spec="heuristic:epsilon=0.2", first_deal=500, every=5)


def cpu_ms(spec: str, states: list[glory_ai.State]) -> float:
    start = time.process_time()
    for i, state in enumerate(states):
        make_bot(spec, seed=i).step(state)
    return (time.process_time() - start) * 1000 / len(states)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--iters", type=int, default=500)
    args = parser.parse_args()
    print(provenance())
    print("players  decisions  CPU ms a decision: prior=learned / off  ratio")
    for n in (2, 3, 4, 5):
        states = positions(n, args.games)
        base = f"ismcts:iters={args.iters}"
        with_prior, without = cpu_ms(base + ",prior=learned", states), cpu_ms(base, states)
        print(f"{n:7d}  {len(states):9d}  {with_prior:.2f} / {without:.2f}  x{with_prior / without:.2f}")


if __name__ == "__main__":
    main()
