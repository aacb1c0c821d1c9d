"""glory_ai against OpenSpiel, side by side (``glory-ai bench --compare``, docs/integrations.md).

The measurements behind the comparison, each on the same machine and the same states:

* engine: random playouts of glory_ai (the C loop, and a Python loop over the public API),
  of the same deals through the OpenSpiel adapter, and of OpenSpiel's C++ ``hearts`` (its C++
  game loop, ``pyspiel.evaluate_bots`` with uniform random C++ bots, and a Python loop);
* search: ISMCTS iterations per CPU second, glory_ai's against OpenSpiel's Python
  ``ISMCTSBot`` on this game, through the adapter and through a minimal wrapper (a plain
  Python object answering the bot's calls from the engine: the floor of any adapter's
  cost), like for like (:func:`like_for_like_spec`: random rollouts to the end, UCB
  constant 0.7, the most visited root action played, every other option of glory_ai's
  search pinned off), and matches between the two at equal iterations and at equal time
  per move;
* clone, determinize and the information-state string per operation, glory_ai's State
  against the adapter's state.

CPU figures are CPU time of the measuring thread (``time.thread_time``), or of the process
for searches (``time.process_time``: a search may run on threads of its own); time budgets
in matches are wall-clock for both bots (glory_ai's ``time_ms`` is). Rounds interleave the
contenders, so a load that comes and goes weighs on all of them alike.
"""
from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..bots import make_bot
from ..game import Game, State
from . import openspiel as gs
from .openspiel import pyspiel

#: the UCB exploration constant of both searches (glory_ai's default)
UCT_C = 0.7

#: glory_ai's ISMCTS as OpenSpiel's ISMCTSBot searches, every option written out so that a
#: change of ISMCTS's defaults cannot change the comparison: random rollouts to the end,
#: the win-share reward alone, no solver, no belief weighting, one tree on one thread, a
#: new tree every move, no root win search, no learned prior, the most visited action played
LIKE_FOR_LIKE: dict[str, object] = {
    "c": UCT_C, "cutoff": 0, "rollout": "random", "reward": "win", "solver": "false", "speed": 0,
    "vp": 0, "final": "visits", "belief": 1, "threads": 1, "trees": 1, "reuse": "false",
    "node_cap": 200000, "turnwin": 0, "keep": 0, "rollout_others": "same", "prior": "off",
    "forum_threat": "false", "paired": "false",
    "ahead": 0}
#: ISMCTS's options that play no part under LIKE_FOR_LIKE (evaluations at a cutoff and
#: guided rollouts, belief weighting, the worlds of the root win search, the weight of a
#: prior that is off) or are off unless written (the cheating controls):
#: left out of the spec
UNUSED_LIKE_FOR_LIKE = ("style", "eval", "epsilon", "temperature", "rollout_temperature",
                        "belief_strength", "omniscient", "cheat", "turnwin_worlds", "prior_c",
                        "widen")


def like_for_like_spec(budget: str) -> str:
    """glory_ai's side of the comparison at a budget (``iters=100``, ``time_ms=50``)."""
    return f"ismcts:{budget}," + ",".join(f"{k}={v}" for k, v in LIKE_FOR_LIKE.items())


# ---- engine ------------------------------------------------------------------------------

def _glory_c_playouts(game: Game, deals: Sequence[int]) -> int:
    decisions = 0
    for deal in deals:
        decisions += game.new_initial_state(deal).random_playout(deal)
    return decisions


def _glory_python_loop(game: Game, deals: Sequence[int]) -> int:
    decisions = 0
    for deal in deals:
        state = game.new_initial_state(deal)
        choice = random.Random(deal).choice
        while not state.is_terminal():
            state.apply_action(choice(state.legal_actions()))
            decisions += 1
    return decisions


def _adapter_loop(os_game: Any, deals: Sequence[int]) -> int:
    decisions = 0
    for deal in deals:
        state = gs.from_glory_state(os_game, os_game.glory.new_initial_state(deal))
        choice = random.Random(deal).choice
        while not state.is_terminal():
            state.apply_action(choice(state.legal_actions()))
            decisions += 1
    return decisions


def _hearts_cpp_loop(hearts: Any, deals: Sequence[int]) -> int:
    decisions = 0
    for deal in deals:
        state = hearts.new_initial_state()
        bots = [pyspiel.make_uniform_random_bot(p, deal * 4 + p) for p in range(4)]
        pyspiel.evaluate_bots(state, bots, deal)
        decisions += sum(1 for step in state.full_history() if step.player >= 0)
    return decisions


def _hearts_python_loop(hearts: Any, deals: Sequence[int]) -> int:
    decisions = 0
    for deal in deals:
        state = hearts.new_initial_state()
        rng = random.Random(deal)
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, weights = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, weights)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                decisions += 1
    return decisions


def playout_rates(num_players: int, seconds: float, rounds: int = 5,
                  progress: Callable[[str], object] = print) -> list[dict[str, Any]]:
    """Random playouts per CPU second of every contender, in interleaved rounds of the same
    deals (hearts: the same number of games); the median over rounds of each rate."""
    game = Game(num_players)
    os_game = gs.load_game(players=num_players)
    hearts = pyspiel.load_game("hearts")
    # one batch per contender per round, sized so that a round of glory_ai's C loop takes
    # about seconds / rounds / 8 (the slow contenders take longer on the same deals)
    contenders: dict[str, tuple[str, Callable[[Sequence[int]], int]]] = {
        "glory_ai random_playout (C loop)": ("Glory to Rome", lambda d: _glory_c_playouts(game, d)),
        "glory_ai Python loop (legal_actions + apply_action)":
            ("Glory to Rome", lambda d: _glory_python_loop(game, d)),
        "OpenSpiel adapter, Python loop": ("Glory to Rome", lambda d: _adapter_loop(os_game, d)),
        "OpenSpiel hearts (C++ game), C++ loop (evaluate_bots)":
            ("hearts (4 players)", lambda d: _hearts_cpp_loop(hearts, d)),
        "OpenSpiel hearts (C++ game), Python loop":
            ("hearts (4 players)", lambda d: _hearts_python_loop(hearts, d)),
    }
    # every round plays the same deals with every contender (hearts: as many games), each
    # contender repeating them often enough to take about the same time as the slowest
    share = seconds / rounds / len(contenders)
    per_game: dict[str, float] = {}
    for name, (_, run) in contenders.items():      # calibrate: CPU seconds per game
        start, games = time.thread_time(), 0
        while time.thread_time() - start < 0.05:
            run(range(games, games + 1))
            games += 1
        per_game[name] = (time.thread_time() - start) / games
    deals_per_round = max(1, int(share / max(per_game.values())))
    repeats = {name: max(1, int(share / (cost * deals_per_round))) for name, cost in per_game.items()}
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in contenders}
    for round_index in range(rounds):
        deals = range(1000 + round_index * deals_per_round, 1000 + (round_index + 1) * deals_per_round)
        for name, (_, run) in contenders.items():
            start = time.thread_time()
            decisions = sum(run(deals) for _ in range(repeats[name]))
            elapsed = time.thread_time() - start
            samples[name].append((decisions / elapsed, repeats[name] * len(deals) / elapsed))
    rows = []
    for name, (played, _) in contenders.items():
        decision_rates = [d for d, _ in samples[name]]
        game_rates = [g for _, g in samples[name]]
        rows.append({"run": f"{num_players} players", "contender": name, "game": played,
                     "players": 4 if played.startswith("hearts") else num_players,
                     "decisions_per_s": statistics.median(decision_rates),
                     "decisions_per_s_low": min(decision_rates), "decisions_per_s_high": max(decision_rates),
                     "games_per_s": statistics.median(game_rates)})
        progress(f"  {num_players}p {name}: {rows[-1]['decisions_per_s']:,.0f} decisions/CPU-s, "
                 f"{rows[-1]['games_per_s']:,.1f} games/CPU-s")
    return rows


# ---- search ------------------------------------------------------------------------------

class TimedISMCTSBot:
    """OpenSpiel's Python ISMCTSBot searching until a wall-clock budget is spent (it takes
    a number of simulations only): the same tree, selection and final policy, driven by
    its own methods."""

    def __init__(self, game: Any, seconds: float, seed: int):
        from open_spiel.python.algorithms import ismcts, mcts

        rng = np.random.RandomState(seed)
        self.bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), UCT_C, 1, random_state=rng)
        self.bot.set_resampler(gs.make_resampler(seed))
        self.seconds = seconds
        self.simulations = 0

    def step(self, state: Any) -> int:
        bot = self.bot
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        bot.reset()
        bot._root_node = bot.create_new_node(state)
        deadline = time.perf_counter() + self.seconds
        simulations = 0
        while simulations < 2 or time.perf_counter() < deadline:     # 2: the root is expanded
            bot.run_simulation(bot.sample_root_state(state))
            simulations += 1
        self.simulations += simulations
        policy = bot.get_final_policy(state, bot._root_node)
        actions, probabilities = zip(*policy, strict=True)
        return int(bot._random_state.choice(actions, p=probabilities))


def openspiel_ismcts(game: Any, simulations: int, seed: int) -> Any:
    """OpenSpiel's Python ISMCTSBot, like glory_ai's :func:`like_for_like_spec`: one random
    rollout to the end per simulation, UCB constant 0.7, the most visited action; seeded
    (its resampling too). ``game``: the adapter's game or a :class:`MinimalGame`."""
    from open_spiel.python.algorithms import ismcts, mcts

    rng = np.random.RandomState(seed)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), UCT_C, simulations, random_state=rng)
    bot.set_resampler(gs.make_resampler(seed) if isinstance(game, gs.GloryToRomeGame)
                      else MinimalState.resampler(seed))
    return bot


class MinimalGame:
    """What OpenSpiel's Python ISMCTSBot asks of a game: its type."""

    def __init__(self, num_players: int):
        self._num_players = num_players

    def get_type(self) -> Any:
        return gs.GAME_TYPE

    def num_players(self) -> int:
        return self._num_players


class MinimalState:
    """The minimal wrapper: a plain Python object (no ``pyspiel.State``, no history, no
    chance nodes) answering the calls OpenSpiel's Python ISMCTSBot and its random-rollout
    evaluator make, each straight from the engine. The floor of what an adapter costs
    OpenSpiel's bot; the adapter's rate is measured against it."""

    __slots__ = ("game", "glory")

    def __init__(self, game: MinimalGame, glory: State):
        self.game = game
        self.glory = glory

    def get_game(self) -> MinimalGame:
        return self.game

    def current_player(self) -> int:
        return self.glory.current_player()

    def is_terminal(self) -> bool:
        return self.glory.is_terminal()

    def is_chance_node(self) -> bool:
        return False

    def legal_actions(self, player: int | None = None) -> list[int]:
        return self.glory.legal_actions()

    def apply_action(self, action: int) -> None:
        self.glory.apply_action(int(action))

    def clone(self) -> MinimalState:
        return MinimalState(self.game, self.glory.clone())

    def returns(self) -> list[float]:
        if not self.glory.is_terminal():
            return [0.0] * self.glory.num_players()
        winners = self.glory.winners()
        return [1.0 / len(winners) if p in winners else 0.0 for p in range(self.glory.num_players())]

    def information_state_string(self, player: int | None = None) -> str:
        return self.glory.information_state_string(self.glory.current_player() if player is None else player)

    @staticmethod
    def resampler(seed: int) -> Callable[[MinimalState, int], MinimalState]:
        """The seeded resampler of :func:`glory_ai.integrations.openspiel.make_resampler`."""
        rng = random.Random(seed)

        def resample(state: MinimalState, player: int) -> MinimalState:
            return MinimalState(state.game, state.glory.determinize(player, int(rng.random() * 2.0 ** 53)))

        return resample


def search_rates(states: Sequence[State], iters: int, openspiel_simulations: int,
                 progress: Callable[[str], object] = print) -> dict[str, Any]:
    """ISMCTS iterations per CPU second on each state: glory_ai's, then OpenSpiel's through
    the adapter and through the minimal wrapper, in turn; medians over the states and the
    ratios of the medians."""
    rates: dict[str, list[float]] = {"glory_ai": [], "openspiel": [], "openspiel_minimal": []}
    num_players = states[0].num_players()
    os_game = gs.load_game(players=num_players)
    minimal = MinimalGame(num_players)
    for i, state in enumerate(states):
        bot = make_bot(like_for_like_spec(f"iters={iters}"), seed=i)
        start = time.process_time()
        bot.step(state)
        rates["glory_ai"].append(iters / (time.process_time() - start))
        for who, game, wrapped in (("openspiel", os_game, gs.from_glory_state(os_game, state)),
                                   ("openspiel_minimal", minimal, MinimalState(minimal, state.clone()))):
            searcher = openspiel_ismcts(game, openspiel_simulations, seed=i)
            start = time.process_time()
            searcher.step(wrapped)
            rates[who].append(openspiel_simulations / (time.process_time() - start))
    row: dict[str, Any] = {"players": num_players, "states": len(states)}
    for who, values in rates.items():
        row[f"{who}_iters_per_s"] = statistics.median(values)
        row[f"{who}_range"] = (min(values), max(values))
    row["ratio"] = row["glory_ai_iters_per_s"] / row["openspiel_iters_per_s"]
    row["ratio_minimal"] = row["glory_ai_iters_per_s"] / row["openspiel_minimal_iters_per_s"]
    progress(f"  {num_players}p ISMCTS (random rollouts to the end): glory_ai "
             f"{row['glory_ai_iters_per_s']:,.0f} it/CPU-s; OpenSpiel Python ISMCTSBot through the "
             f"adapter {row['openspiel_iters_per_s']:,.1f} it/CPU-s (x{row['ratio']:.1f}), through a "
             f"minimal wrapper {row['openspiel_minimal_iters_per_s']:,.1f} (x{row['ratio_minimal']:.1f})")
    return row


def play_match_game(index: int, ours_spec: str, theirs: dict[str, Any]) -> dict[str, Any]:
    """One two-player game, glory_ai's bot against OpenSpiel's ISMCTSBot: deal ``index // 2``,
    glory_ai in seat ``index % 2`` (so each deal is played from both seats). ``theirs``:
    ``{"simulations": N}`` or ``{"seconds": T}``. Returns glory_ai's win share and more."""
    deal, ours_seat = index // 2, index % 2
    os_game = gs.load_game(players=2)
    state = gs.from_glory_state(os_game, os_game.glory.new_initial_state(deal))
    ours = make_bot(ours_spec, seed=index)
    if "seconds" in theirs:
        opponent: Any = TimedISMCTSBot(os_game, theirs["seconds"], seed=index)
    else:
        opponent = openspiel_ismcts(os_game, theirs["simulations"], seed=index)
    spent = [0.0, 0.0]
    searched = [0, 0]
    while not state.is_terminal():
        player = state.current_player()
        start = time.perf_counter()
        if player == ours_seat:
            assert state.glory_state is not None
            action = ours.step(state.glory_state)
        else:
            action = int(opponent.step(state))
        if len(state.legal_actions()) > 1:
            spent[player == ours_seat] += time.perf_counter() - start
            searched[player == ours_seat] += 1
        state.apply_action(action)
    share = state.returns()[ours_seat]
    assert state.glory_state is not None
    return {"index": index, "deal": deal, "glory_ai_seat": ours_seat, "glory_ai_share": share,
            "decisions": len(state.glory_state.history()),
            "glory_ai_ms_per_move": 1000 * spent[1] / max(1, searched[1]),
            "openspiel_ms_per_move": 1000 * spent[0] / max(1, searched[0])}


# ---- clone and determinize ---------------------------------------------------------------

def _sampler() -> Callable[[], float]:
    return random.Random(1).random


def clone_and_determinize(states: Sequence[State], rounds: int) -> list[dict[str, Any]]:
    """CPU ns per operation on the same states: glory_ai's clone and determinize (from
    Python, and the C-level loop), the adapter's clone and resample_from_infostate."""
    from ..bench.timing import Timing, interleaved

    num_players = states[0].num_players()
    os_game = gs.load_game(players=num_players)
    adapted = [gs.from_glory_state(os_game, s) for s in states]
    sampler = _sampler()
    determinize_c = []
    for _ in range(rounds):                        # the C loop on each state, on the CPU clock
        start = time.thread_time()
        for state in states:
            state._bench_determinize(state.current_player(), 200)
        determinize_c.append((time.thread_time() - start) / (200 * len(states)) * 1e9)
    timings = {
        ("clone", "glory_ai State.clone()"): interleaved(states, State.clone, number=20000, rounds=rounds),
        ("clone", "OpenSpiel adapter state.clone()"): interleaved(adapted, lambda s: s.clone(), number=2000,
                                                                  rounds=rounds),
        ("determinize", "glory_ai State.determinize() from Python"):
            interleaved(states, lambda s: s.determinize(s.current_player(), 7), number=5000, rounds=rounds),
        ("determinize", "OpenSpiel adapter resample_from_infostate()"):
            interleaved(adapted, lambda s: s.resample_from_infostate(s.current_player(), sampler),
                        number=2000, rounds=rounds),
    }
    rows = [{"operation": op, "contender": who, "players": num_players, "ns": t.median, "low": t.low,
             "high": t.high} for (op, who), t in timings.items()]
    c_loop = Timing.of(determinize_c)
    rows.append({"operation": "determinize", "contender": "glory_ai determinize_c (C loop, copy included)",
                 "players": num_players, "ns": c_loop.median, "low": c_loop.low, "high": c_loop.high})
    return rows


def information_states(states: Sequence[State], rounds: int) -> list[dict[str, Any]]:
    """CPU ns per information-state string of the player to move, on the same states:
    glory_ai's string and 16-byte key, and the adapter's string (through OpenSpiel's
    observer machinery), without and with perfect recall."""
    from ..bench.timing import interleaved

    num_players = states[0].num_players()
    plain = [gs.from_glory_state(gs.load_game(players=num_players), s) for s in states]
    recall = [gs.from_glory_state(gs.load_game(players=num_players, perfect_recall=True), s) for s in states]
    timings = {
        "glory_ai State.information_state_string()":
            interleaved(states, lambda s: s.information_state_string(s.current_player()), number=5000,
                        rounds=rounds),
        "glory_ai State.information_state_key() (16 bytes)":
            interleaved(states, lambda s: s.information_state_key(s.current_player()), number=5000,
                        rounds=rounds),
        "OpenSpiel adapter information_state_string()":
            interleaved(plain, lambda s: s.information_state_string(s.current_player()), number=2000,
                        rounds=rounds),
        "OpenSpiel adapter information_state_string(), perfect_recall=True":
            interleaved(recall, lambda s: s.information_state_string(s.current_player()), number=2000,
                        rounds=rounds),
    }
    return [{"operation": "information state", "contender": who, "players": num_players, "ns": t.median,
             "low": t.low, "high": t.high} for who, t in timings.items()]
