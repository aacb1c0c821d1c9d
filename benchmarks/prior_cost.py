"""The learned prior's cost a decision: python benchmarks/prior_cost.py [--games N] [--iters N] [--cpu-ms MS]
[--with P]

The positions: every fifth decision with a choice of `--games` games of noisy one-ply players
at 2 to 5 players. Prints a provenance line, then for each player count the CPU ms a decision
of `ismcts:iters=N` with `prior=learned` and without (time.process_time, this process's CPU
time, so that other work on a busy machine slows the figures less than wall time would), and
their ratio. With `--cpu-ms`, the iterations a decision of `ismcts:cpu_ms=MS` (a budget of the
thread's CPU time) reaches with the prior and without, instead: what the prior costs at equal
CPU time. `--with` gives the parameters of the prior's side (default `prior=learned`; e.g.
`prior=learned,widen=1`). With `--logits`, the logits the prior's side computes an iteration
at `iters=N` (those cached in its tree at the end of the search) and its nodes' mean depth.
"""
from __future__ import annotations

import argparse
import statistics
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


def iterations(spec: str, states: list[glory_ai.State]) -> float:
    # the mean iterations of a decision (a move won by the root win search has none: skipped)
    done = []
    for i, state in enumerate(states):
        bot = make_bot(spec, seed=i)
        bot.step(state)
        if bot.last_search()["iterations"]:
            done.append(bot.last_search()["iterations"])
    return statistics.fmean(done)


def logits(spec: str, states: list[glory_ai.State]) -> tuple[float, float]:
    # the logits cached per iteration and the mean depth of a node, over the decisions searched
    per_iteration, depths = [], []
    for i, state in enumerate(states):
        bot = make_bot(spec, seed=i)
        bot.step(state)
        if not bot.last_search()["iterations"]:
            continue
        count, stack = 0, [(bot._searcher._tree(0)[0], 0)]
        while stack:
            node, depth = stack.pop()
            count += len(node["logits"])
            depths.append(depth)
            stack.extend((child, depth + 1) for child in node["children"])
        per_iteration.append(count / bot.last_search()["iterations"])
    return statistics.fmean(per_iteration), statistics.fmean(depths)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--iters", type=int, default=500)
    parser.add_argument("--cpu-ms", type=int, default=0)
    parser.add_argument("--with", dest="extra", default="prior=learned", help="the prior side's parameters")
    parser.add_argument("--logits", action="store_true")
    args = parser.parse_args()
    print(provenance())
    if args.logits:
        print(f"players  decisions  {args.extra} at iters={args.iters}: logits an iteration, mean node depth")
        for n in (2, 3, 4, 5):
            states = positions(n, args.games)
            per_iteration, depth = logits(f"ismcts:iters={args.iters},{args.extra}", states)
            print(f"{n:7d}  {len(states):9d}  {per_iteration:.2f}  {depth:.2f}")
        return
    if args.cpu_ms:
        print(f"players  decisions  iterations a decision at cpu_ms={args.cpu_ms}: "
              f"{args.extra} / off  ratio")
    else:
        print(f"players  decisions  CPU ms a decision: {args.extra} / off  ratio")
    for n in (2, 3, 4, 5):
        states = positions(n, args.games)
        if args.cpu_ms:
            base = f"ismcts:cpu_ms={args.cpu_ms}"
            with_prior, without = iterations(f"{base},{args.extra}", states), iterations(base, states)
            print(f"{n:7d}  {len(states):9d}  {with_prior:.0f} / {without:.0f}  x{with_prior / without:.2f}")
            continue
        base = f"ismcts:iters={args.iters}"
        with_prior, without = cpu_ms(f"{base},{args.extra}", states), cpu_ms(base, states)
        print(f"{n:7d}  {len(states):9d}  {with_prior:.2f} / {without:.2f}  x{with_prior / without:.2f}")


if __name__ == "__main__":
    main()
