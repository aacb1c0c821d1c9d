"""Fair-play benchmark: python3 benchmarks/fairplay.py [--states N] [--calls N]

Prints, per player count (2 to 5, mid-game states of random play), the cost per decision
of what the referee adds around a user bot's ``step`` (glory_ai/bots/_fairplay.pyx), with
a bot that answers at once (so that only the referee is measured):

  * bare: the bot's step called directly;
  * copy: the referee with ``fair_play=False`` (a copy of the state, the mutation check,
    the type and legality checks of the answer);
  * fair: the referee as users' bots get it (the same, plus the fair view);
  * re-deal: fair - copy, what the fair view adds per decision (target: <= 2 us);
  * view alone: ``fair_view`` (canonical re-deal, a hash of what the player knows, the
    determinization), called from Python.

Each figure is the best of 5 repeats (CPU time, so that other processes on the machine
count less); the load average is printed before and after.
"""
from __future__ import annotations

import argparse
import os
import time

import glory_ai
from glory_ai.bench import provenance
from glory_ai.bots import make_bot
from glory_ai.bots._fairplay import Referee, fair_view


def _states(players: int, count: int) -> list[glory_ai.State]:
    out = []
    for seed in range(count):
        state = glory_ai.Game(players).new_initial_state(seed)
        bot = make_bot("random", seed)
        for _ in range(40 + 7 * seed):
            if state.is_terminal():
                break
            state.apply_action(bot.step(state))
        if not state.is_terminal():
            out.append(state)
    return out


def _per_call(fn, states: list[glory_ai.State], calls: int, repeats: int = 5) -> float:
    """Best CPU time per call, in microseconds, cycling through the states."""
    best = float("inf")
    rounds = max(1, calls // len(states))
    for _ in range(repeats):
        start = time.process_time()
        for _ in range(rounds):
            for state in states:
                fn(state)
        best = min(best, (time.process_time() - start) / (rounds * len(states)))
    return best * 1e6


def answer(view: glory_ai.State) -> int:
    """A bot that answers at once (a view has the real state's legal actions)."""
    return view.legal_actions()[0]


def _view(state: glory_ai.State) -> glory_ai.State:
    return fair_view(state, state.current_player(), 7)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=20, help="mid-game states per player count")
    parser.add_argument("--calls", type=int, default=100_000, help="calls measured per figure")
    args = parser.parse_args()
    print(provenance(), flush=True)
    print(f"{'players':>7}  {'bare':>7}  {'copy':>7}  {'fair':>7}  {'re-deal':>8}  {'view alone':>10}"
          "  (us per decision)")
    for players in (2, 3, 4, 5):
        states = _states(players, args.states)
        bare = _per_call(answer, states, args.calls)
        copy = _per_call(Referee(answer, 7, fair_play=False).step, states, args.calls)
        fair = _per_call(Referee(answer, 7).step, states, args.calls)
        alone = _per_call(_view, states, args.calls)
        print(f"{players:>7}  {bare:7.2f}  {copy:7.2f}  {fair:7.2f}  {fair - copy:8.2f}  {alone:10.2f}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
