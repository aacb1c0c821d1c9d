"""Budgets of time on a busy machine: python benchmarks/cpu_budget.py [--budget-ms B] [--states K]

ISMCTS searches the same mid-game states (2 players) with a budget of wall time
(``time_ms=B``) and one of CPU time (``cpu_ms=B``), first as the machine is, then with busy
processes added (``--hogs``, default: one per core, each spinning on the CPU), interleaved
state by state. Prints the median iterations per move of each budget in both conditions and
the ratio busy / as is. A wall-clock budget shrinks when the search waits for a core; a CPU
budget should not (its ratio near 1): that is what makes equal-CPU-time comparisons hold on
a shared machine. The load average is printed before and after.
"""
import argparse
import multiprocessing
import os
import statistics

from glory_ai.bench import provenance
from glory_ai.bots import make_bot
from glory_ai.bots.bench import mid_game_states


def _spin(stop: "multiprocessing.synchronize.Event") -> None:
    while not stop.is_set():
        sum(range(10_000))


def _iterations(states: list, budget: str) -> list[int]:
    done = []
    for i, state in enumerate(states):
        bot = make_bot(f"ismcts:iters=0,{budget}", seed=i)
        bot.step(state)
        done.append(bot.last_search()["iterations"])
    return done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget-ms", type=float, default=20.0, help="ms per move (default 20)")
    parser.add_argument("--states", type=int, default=40, help="mid-game states (default 40)")
    parser.add_argument("--hogs", type=int, default=os.cpu_count() or 1,
                        help="busy processes added in the second condition (default: one per core)")
    args = parser.parse_args()
    print(provenance(), flush=True)
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    states = mid_game_states(2, args.states, seed=200)
    budgets = {"time_ms": f"time_ms={args.budget_ms:g}", "cpu_ms": f"cpu_ms={args.budget_ms:g}"}
    medians: dict[tuple[str, str], float] = {}
    for condition in ("as is", "busy"):
        stop = multiprocessing.Event()
        hogs = [multiprocessing.Process(target=_spin, args=(stop,), daemon=True)
                for _ in range(args.hogs if condition == "busy" else 0)]
        for hog in hogs:
            hog.start()
        try:
            for name, budget in budgets.items():
                medians[name, condition] = statistics.median(_iterations(states, budget))
        finally:
            stop.set()
            for hog in hogs:
                hog.join()
    print(f"ISMCTS, 2 players, {len(states)} states, {args.budget_ms:g} ms a move; busy = "
          f"{args.hogs} spinning processes added")
    print("| budget | iterations a move, as is | busy | busy / as is |")
    print("|---|---|---|---|")
    for name in budgets:
        calm, busy = medians[name, "as is"], medians[name, "busy"]
        print(f"| `{budgets[name]}` | {calm:,.0f} | {busy:,.0f} | x{busy / calm:.2f} |")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
