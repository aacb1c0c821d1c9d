"""The root win search's cost on ordinary positions: python benchmarks/turnwin_cost.py [--games N] [--every N]

The positions: every decision with a choice of games played by noisy one-ply players (2 to 5
players, both modes: `--games` per setting). Prints a provenance line, then

* the win search alone (`ismcts:iters=1` with turnwin=N less the same with turnwin=0): CPU
  ms per decision, the positions it searched (mean, and the share of decisions where its
  budget ran out) and the share of decisions where it found a win and played it;
* whole decisions of the default ISMCTS at `--iters` (2,000) on every `--every`-th position:
  decisions per CPU second with the win search (the default) and without (turnwin=0).

CPU time is this process's (time.process_time), so that other work on a busy machine slows
the figures less than it would wall-clock ones; compare ratios measured in one run.
"""
from __future__ import annotations

import argparse
import statistics
import time

import glory_ai
from glory_ai.bench import provenance
from glory_ai.bots import make_bot
from glory_ai.bots.builtin_params import TURNWIN_BUDGET

SETTINGS = ((2, "republic"), (2, "imperium"), (3, "imperium"), (4, "republic"), (5, "imperium"))


def ordinary_positions(games: int) -> list[glory_ai.State]:
    states = []
    for num_players, mode in SETTINGS:
        for game in range(games):
            state = glory_ai.Game(num_players, mode=mode).new_initial_state(991 + game)
            players = [make_bot("heuristic:style=builder,epsilon=0.15", seed=game * 7 + p)
                       for p in range(num_players)]
            while not state.is_terminal():
                if len(state.legal_actions()) > 1:
                    states.append(state.clone())
                state.apply_action(players[state.current_player()].step(state))
    return states


def cpu_per_decision(spec: str, states: list[glory_ai.State]) -> tuple[float, list[dict]]:
    """Mean CPU seconds of one decision of `spec` (seeded by the position's index), and
    what each search found."""
    spent, infos = 0.0, []
    for i, state in enumerate(states):
        bot = make_bot(spec, seed=i)
        start = time.process_time()
        bot.step(state)
        spent += time.process_time() - start
        infos.append(bot.last_search())
    return spent / len(states), infos


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2, help="games per setting (2)")
    parser.add_argument("--every", type=int, default=20, help="whole decisions on every N-th position (20)")
    parser.add_argument("--iters", type=int, default=2000, help="iterations of the whole decisions (2000)")
    args = parser.parse_args()
    print(provenance(), flush=True)
    states = ordinary_positions(args.games)
    print(f"{len(states)} positions (decisions with a choice) of {args.games} games for each of "
          + ", ".join(f"{n}p {m}" for n, m in SETTINGS), flush=True)
    base, _ = cpu_per_decision("ismcts:iters=1,turnwin=0", states)
    for budget in (TURNWIN_BUDGET // 10, TURNWIN_BUDGET, TURNWIN_BUDGET * 4):
        spent, infos = cpu_per_decision(f"ismcts:iters=1,turnwin={budget}", states)
        nodes = [info["turn_win_nodes"] for info in infos]
        found = sum(info["turn_win"] is not None for info in infos)
        print(f"win search turnwin={budget:<7} {1000 * (spent - base):6.3f} ms a decision, "
              f"{statistics.mean(nodes):8.0f} positions searched on average, budget spent in "
              f"{100 * sum(n >= budget for n in nodes) / len(nodes):4.1f}% of decisions, "
              f"a win played in {100 * found / len(nodes):4.1f}%", flush=True)
    sample = states[::args.every]
    rates = {}
    for label, spec in (("default (turnwin on)", f"ismcts:iters={args.iters}"),
                        ("turnwin=0", f"ismcts:iters={args.iters},turnwin=0")):
        spent, _ = cpu_per_decision(spec, sample)
        rates[label] = 1 / spent
        print(f"ismcts iters={args.iters} {label:<22} {rates[label]:7.2f} decisions per CPU second "
              f"({len(sample)} positions)", flush=True)
    on, off = rates.values()
    print(f"ratio with / without: {on / off:.3f}")


if __name__ == "__main__":
    main()
