"""Search speed benchmark: python benchmarks/search.py [--iters N] [--states K]

Prints ISMCTS and PIMC iterations per second from 2- and 4-player mid-game states (random
rollouts to the end, and with a rollout cutoff of 40 decisions), the root-parallel scaling
with threads=2, and how closely a time_ms budget is kept. The target: at least 10,000
ISMCTS iterations per second per core in a 2-player mid-game with random rollouts.
"""
import argparse

from glory_ai.bench import provenance
from glory_ai.bots.bench import run

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iters", type=int, default=4000, help="iterations per search (default 4000)")
    parser.add_argument("--states", type=int, default=6, help="mid-game states per player count (default 6)")
    args = parser.parse_args()
    print(provenance(), flush=True)
    run(args.states, args.iters)
