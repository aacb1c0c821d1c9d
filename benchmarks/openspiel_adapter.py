"""What the OpenSpiel adapter costs OpenSpiel's own Python ISMCTS:
python benchmarks/openspiel_adapter.py [--sims N] [--states K] [--players 2 4] [--rounds R] [--revs REV ...]

OpenSpiel's Python ``ISMCTSBot`` (glory_ai.integrations.compare.openspiel_ismcts: one random
rollout to the end per simulation, UCB constant 0.7, seeded resampling) searches the same
mid-game states (glory_ai.bots.bench.mid_game_states, as ``glory-ai bench --compare`` does)
through the adapter (glory_ai.integrations.openspiel), through the adapter as it was at each
git revision of ``--revs`` (its openspiel.py read with ``git show`` and registered under
another name, beside this one, on this build's engine), and through the minimal wrapper
(compare.MinimalState: a plain Python object answering the bot's calls from the engine, the
least an adapter could cost the bot). The contenders take turns, state by state, for
``rounds`` rounds; per state the best round of each (CPU time of this process), then the
median over the states, in simulations (= iterations) per CPU second, and the minimal
wrapper's rate over each adapter's. Then the per-call costs the searches pay (a decision
applied from Python, a clone, a resample), the best of five runs of 20,000 calls each.

Compare the ratios measured in one run, never absolute figures across machines or runs:
the machine is shared.
"""
from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from glory_ai.bench import provenance
from glory_ai.bots.bench import mid_game_states
from glory_ai.integrations import compare
from glory_ai.integrations import openspiel as gs

ROOT = Path(__file__).resolve().parents[1]
ADAPTER = "glory_ai/integrations/openspiel.py"
CALLS = 20_000


class Contender:
    """One way for OpenSpiel's bot to reach the engine: a game, a state wrapper, a resampler."""

    def __init__(self, label: str, game: Any, wrap: Callable[[Any], Any],
                 resampler: Callable[[int], Callable]):
        self.label, self.game, self.wrap, self.resampler = label, game, wrap, resampler

    def searcher(self, simulations: int, seed: int) -> Any:
        bot = compare.openspiel_ismcts(self.game, simulations, seed)
        bot.set_resampler(self.resampler(seed))
        return bot


def adapter_at(rev: str) -> types.ModuleType:
    """The adapter module as it was at git revision ``rev``, registered as another game."""
    source = subprocess.run(["git", "show", f"{rev}:{ADAPTER}"], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout
    tag = re.sub(r"\W", "_", rev)
    named = 'SHORT_NAME = "glory_to_rome"'
    if named not in source:
        raise SystemExit(f"{rev}: {ADAPTER} does not name its game as this benchmark expects")
    source = source.replace(named, f'SHORT_NAME = "glory_to_rome_at_{tag}"', 1)
    module = types.ModuleType(f"glory_ai.integrations._openspiel_at_{tag}")
    module.__package__ = "glory_ai.integrations"
    sys.modules[module.__name__] = module
    exec(compile(source, f"{rev}:{ADAPTER}", "exec"), module.__dict__)
    return module


def contenders(num_players: int, revs: list[tuple[str, types.ModuleType]]) -> list[Contender]:
    found = []
    for label, module in [("adapter", gs)] + [(f"adapter at {rev}", module) for rev, module in revs]:
        game = module.load_game(players=num_players)
        found.append(Contender(label, game, lambda state, m=module, g=game: m.from_glory_state(g, state),
                               module.make_resampler))
    minimal = compare.MinimalGame(num_players)
    found.append(Contender("minimal wrapper", minimal,
                           lambda state: compare.MinimalState(minimal, state.clone()),
                           compare.MinimalState.resampler))
    return found


def search_rates(entrants: list[Contender], states: list, sims: int, rounds: int) -> dict[str, float]:
    best = {entrant.label: [0.0] * len(states) for entrant in entrants}
    for _ in range(rounds):
        for i, state in enumerate(states):
            for entrant in entrants:
                searcher, wrapped = entrant.searcher(sims, seed=i), entrant.wrap(state)
                start = time.process_time()
                searcher.step(wrapped)
                best[entrant.label][i] = max(best[entrant.label][i], sims / (time.process_time() - start))
    return {label: statistics.median(rates) for label, rates in best.items()}


def _best_ns(run: Callable[[Any], None], setup: Callable[[], Any]) -> float:
    times = []
    for _ in range(5):
        items = setup()
        start = time.process_time()
        run(items)
        times.append(time.process_time() - start)
    return min(times) / CALLS * 1e9


def call_costs(entrant: Contender, state: Any) -> dict[str, float]:
    """ns per call on one mid-game state: a decision applied from Python, a clone, a resample."""
    wrapped = entrant.wrap(state)
    action, player = state.legal_actions()[0], state.current_player()
    resample = entrant.resampler(1)

    def apply(copies: list) -> None:
        for copy in copies:
            copy.apply_action(action)

    def clones(_: Any) -> None:
        for _ in range(CALLS):
            wrapped.clone()

    def resamples(_: Any) -> None:
        for _ in range(CALLS):
            resample(wrapped, player)

    return {"apply_action from Python": _best_ns(apply, lambda: [wrapped.clone() for _ in range(CALLS)]),
            "clone": _best_ns(clones, lambda: None), "resample": _best_ns(resamples, lambda: None)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=200, help="simulations per search (default 200)")
    parser.add_argument("--states", type=int, default=6, help="mid-game states per player count (default 6)")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4], help="player counts (default 2 4)")
    parser.add_argument("--rounds", type=int, default=3, help="searches per state and contender (default 3)")
    parser.add_argument("--revs", nargs="*", default=[],
                        help="git revisions of the adapter to time beside it")
    args = parser.parse_args()
    print(provenance(), flush=True)
    revs = [(rev, adapter_at(rev)) for rev in args.revs]
    for players in args.players:
        states = mid_game_states(players, args.states, seed=players * 100)
        entrants = contenders(players, revs)
        rates = search_rates(entrants, states, args.sims, args.rounds)
        head = f"{players} players  OpenSpiel ISMCTSBot"
        for label, rate in rates.items():
            print(f"{head}, {label:<28} {rate:>8,.1f} it/s", flush=True)
        floor = rates["minimal wrapper"]
        for label, rate in rates.items():
            if label != "minimal wrapper":
                print(f"{head}, minimal wrapper / {label:<22} x{floor / rate:.2f}", flush=True)
        for entrant in entrants:
            costs = call_costs(entrant, states[0])
            print(f"{players} players  per call, {entrant.label:<28} "
                  + ", ".join(f"{call} {ns:,.0f} ns" for call, ns in costs.items()), flush=True)


if __name__ == "__main__":
    main()
