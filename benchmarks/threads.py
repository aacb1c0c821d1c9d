"""ISMCTS root parallelism on two threads: python benchmarks/threads.py [--iters N] [--states K]

For each mid-game state (2 and 4 players), one search with each of

* ``threads=1`` (one tree),
* ``trees=2,threads=1`` (the two trees of ``threads=2``, searched one after the other: the
  same work without threads), and
* ``threads=2`` (the two trees on two threads),

interleaved state by state, timed with the wall clock (``time.perf_counter``) and the CPU
clock of the process (``time.process_time``, both threads). Prints the medians of iterations
per wall second and per CPU second, and the ratios to ``threads=1``. Run it on a quiet
machine: the load average is printed before and after; with other work on the cores, the
second thread waits and the wall-clock gain shrinks while the CPU per iteration does not.
"""
import argparse
import os
import statistics
import time

from glory_ai.bench import provenance
from glory_ai.bots import make_bot
from glory_ai.bots.bench import mid_game_states

SPECS = {"threads=1": "threads=1", "trees=2,threads=1": "trees=2,threads=1", "threads=2": "threads=2"}


def measure(num_players: int, states_per_count: int, iters: int) -> None:
    states = mid_game_states(num_players, states_per_count, seed=num_players * 100)
    wall: dict[str, list[float]] = {name: [] for name in SPECS}
    cpu: dict[str, list[float]] = {name: [] for name in SPECS}
    for i, state in enumerate(states):
        for name, option in SPECS.items():
            bot = make_bot(f"ismcts:iters={iters},cutoff=0,{option}", seed=i)
            wall_start, cpu_start = time.perf_counter(), time.process_time()
            bot.step(state)
            wall_seconds = time.perf_counter() - wall_start
            cpu_seconds = time.process_time() - cpu_start
            done = bot.last_search()["iterations"]
            wall[name].append(done / wall_seconds)
            cpu[name].append(done / cpu_seconds)
    base_wall, base_cpu = statistics.median(wall["threads=1"]), statistics.median(cpu["threads=1"])
    print(f"{num_players} players, {len(states)} states, {iters} iterations per search:")
    for name in SPECS:
        w, c = statistics.median(wall[name]), statistics.median(cpu[name])
        print(f"  {name:18} {w:9,.0f} it/wall-s (x{w / base_wall:.2f})   "
              f"{c:9,.0f} it/CPU-s (x{c / base_cpu:.2f})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iters", type=int, default=20000, help="iterations per search (default 20000)")
    parser.add_argument("--states", type=int, default=8, help="mid-game states per player count (default 8)")
    args = parser.parse_args()
    print(provenance(), flush=True)
    for players in (2, 4):
        measure(players, args.states, args.iters)
    print(f"load average after: {os.getloadavg()[0]:.2f}")
