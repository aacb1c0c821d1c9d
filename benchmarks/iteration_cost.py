"""Cost of one ISMCTS iteration under the defaults and the options that make it dearer:
python benchmarks/iteration_cost.py [--iters N] [--states K] [--players 2 4] [--repeat R]

Prints iterations per CPU second (this process's CPU time, so that other work on a busy
machine slows the figures less than it would wall-clock ones) of the default ISMCTS, the
default with the balanced style instead of the learned evaluation, the default with
cutoff=40 (what a time_ms budget uses), without the solver, and the plain search of
before the solver (OLD), from mid-game states played by the greedy bot. The
best of `repeat` runs per state, then the median over the states. Compare ratios measured
in one run, never absolute numbers across machines.
"""
import argparse
import statistics
import time

from glory_ai.bench import provenance
from glory_ai.bots import make_bot
from glory_ai.bots.bench import mid_game_states

OLD = "c=0.7,cutoff=40,solver=false,speed=0,vp=0,final=visits,eval=style,turnwin=0"
SPECS = {
    "default": "ismcts",
    "default, style=balanced": "ismcts:style=balanced",
    "default, cutoff=40": "ismcts:cutoff=40",
    "default, solver=false": "ismcts:solver=false",
    "OLD": f"ismcts:{OLD}",
    "OLD, cutoff=80": f"ismcts:{OLD.replace('cutoff=40', 'cutoff=80')}",
    "pimc, worlds=10": "pimc:worlds=10",
}


def rate(spec: str, states, iters: int, repeat: int) -> float:
    rates = []
    for i, state in enumerate(states):
        best = 0.0
        for _ in range(repeat):
            bot = make_bot(f"{spec}{':' if ':' not in spec else ','}iters={iters}", seed=i)
            start = time.process_time()
            bot.step(state)
            spent = time.process_time() - start
            done = bot.last_search()["iterations"]
            if spent > 0:
                best = max(best, done / spent)
        rates.append(best)
    return statistics.median(rates)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iters", type=int, default=2000, help="iterations per search (default 2000)")
    parser.add_argument("--states", type=int, default=6, help="mid-game states per player count (default 6)")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4], help="player counts (default 2 4)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per state, the best kept (default 3)")
    args = parser.parse_args()
    print(provenance(), flush=True)
    for players in args.players:
        states = mid_game_states(players, args.states, seed=players * 100)
        for label, spec in SPECS.items():
            figure = rate(spec, states, args.iters, args.repeat)
            print(f"{players} players  {label:<24} {figure:>10,.0f} it/s", flush=True)
