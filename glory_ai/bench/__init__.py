"""Engine speed figures (`glory-ai bench`, benchmarks/engine.py).

Everything runs on one core in this process. Times are CPU time of this thread
(`time.thread_time_ns`), so other processes on a shared machine do not inflate them. A cost
that is a difference (an operation less the loop around it, apply less the clone before it)
is measured in interleaved rounds (:mod:`glory_ai.bench.timing`): each round times both
sides back to back and takes the difference there, and the figure is the median of those
differences with its interquartile range. Compare ratios measured in one run, never
absolute numbers across machines.

:func:`compare` (``glory-ai bench --compare``) sets glory_ai beside OpenSpiel in one run:
playouts, ISMCTS iterations, clone and determinize, and matches (docs/integrations.md).
"""
from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from ..game import Game, State
from .timing import ROUNDS, Timing, interleaved


def sample_states(num_players: int, count: int, seed: int = 0) -> list[tuple[State, int]]:
    """Mid-game states (with a legal action each) taken from seeded random games."""
    import random

    rng = random.Random(seed)
    game = Game(num_players)
    out: list[tuple[State, int]] = []
    game_seed = 0
    while len(out) < count:
        state = game.new_initial_state(game_seed)
        game_seed += 1
        while not state.is_terminal() and len(out) < count:
            legal = state.legal_actions()
            action = rng.choice(legal)
            if rng.random() < 0.05:
                out.append((state.clone(), action))
            state._apply_unchecked(action)
    return out


def playout_rate(num_players: int, seconds: float = 2.0, mode: str = "republic") -> dict[str, float]:
    """Random full games per CPU second and decisions per CPU second through random_playout."""
    game = Game(num_players, mode=mode)
    games = decisions = 0
    start = time.thread_time()
    while time.thread_time() - start < seconds:
        for _ in range(100):
            state = game.new_initial_state(games)
            decisions += state.random_playout(games)
            games += 1
    elapsed = time.thread_time() - start
    return {"players": num_players, "games_per_s": games / elapsed,
            "decisions_per_s": decisions / elapsed, "decisions_per_game": decisions / games,
            "games": games}


def provenance(command: str | None = None) -> str:
    """The first line of a measurement kept under results/bench/: the command that made it
    (default: ``python`` and this process's arguments), the build it measured (the first 12
    digits of the compiled sources' hash, :func:`glory_ai.build_info`; a page quoting the
    file names it, tests/test_figures_hold.py), Python, the machine and its load."""
    import os
    import platform
    import sys

    from .. import __version__, build_info

    command = command or "python " + " ".join(sys.argv)
    return (f"# {command} (glory_ai {__version__}, build {str(build_info().get('source_hash'))[:12]}; "
            f"Python {platform.python_version()}, {platform.platform()}; {os.cpu_count()} CPUs, "
            f"load average {os.getloadavg()[0]:.2f} at the start)")


def _clone(state: State) -> State:
    return state.clone()


def run(seconds: float = 2.0, progress: Callable[[str], object] = print) -> dict[int, dict[str, Any]]:
    results: dict[int, dict[str, Any]] = {}
    for num_players in (2, 4):
        samples = sample_states(num_players, 400, seed=num_players)
        states = [s for s, _ in samples]
        hot = [states[len(states) // 2]]
        clone = interleaved(hot, _clone, number=100000)                        # one hot state
        clone_many = interleaved(states, _clone)                               # 400 states, cache-cold
        legal = interleaved(states, State.legal_actions)
        # apply costs: a clone then an apply, less a clone alone, in the same round
        apply_checked = interleaved(samples, lambda sa: sa[0].clone().apply_action(sa[1]),
                                    base=lambda sa: sa[0].clone())
        apply_unchecked = interleaved(samples, lambda sa: sa[0].clone()._apply_unchecked(sa[1]),
                                      base=lambda sa: sa[0].clone())
        mid = next(s for s in states if s.deck_size() < 100 and not s.is_terminal())
        det_c = Timing.of([mid._bench_determinize(1, 50000) for _ in range(ROUNDS)])
        det_py = interleaved([mid], lambda s: s.determinize(1, 7))
        rate = playout_rate(num_players, seconds)
        timings = {"clone": clone, "clone_many": clone_many, "legal_actions": legal,
                   "apply_action": apply_checked, "apply_unchecked": apply_unchecked,
                   "determinize_c": det_c, "determinize_py": det_py}
        row: dict[str, Any] = {f"{name}_ns": t.median for name, t in timings.items()}
        row["spread_ns"] = {name: (t.low, t.high) for name, t in timings.items()}
        row.update(rate)
        results[num_players] = row
        progress(f"{num_players} players (CPU ns per operation, median [quartiles] of {ROUNDS} rounds): "
                 f"clone {clone} (over 400 states {clone_many}), legal_actions {legal}, "
                 f"apply_action {apply_checked} (unchecked {apply_unchecked}), "
                 f"determinize {det_c} in C / {det_py} from Python; "
                 f"{rate['games_per_s']:,.0f} random games per CPU second, "
                 f"{rate['decisions_per_s'] / 1e6:.2f} M decisions/s, "
                 f"{rate['decisions_per_game']:.1f} decisions/game")
    return results


# ---- glory_ai against OpenSpiel (glory-ai bench --compare) --------------------------------

def compare(out: str | None = None, seconds: float = 4.0, search_states: int = 6, iters: int = 4000,
            openspiel_simulations: int = 100, match_iters: int = 100, match_games: int = 40,
            move_ms: float = 100.0, timed_games: int = 200, jobs: int = 1,
            progress: Callable[[str], object] = print) -> dict[str, Any]:
    """Every side-by-side figure of docs/integrations.md in one run (needs OpenSpiel:
    ``pip install 'glory_ai[openspiel]'``); with ``out``, writes ``compare.md`` and
    ``compare.csv`` there. The matches are two-player games, seats swapped on every deal."""
    import os
    import platform

    from joblib import Parallel, delayed

    from ..analysis.stats.paired import mean_interval
    from ..bots.bench import mid_game_states
    from ..integrations import compare as side

    started, load_before = time.time(), os.getloadavg()[0]
    results: dict[str, Any] = {"engine": [], "search": [], "operations": [], "matches": []}
    # the command line that gives this run (match_iters and openspiel_simulations have no flag)
    results["command"] = (f"glory-ai bench --compare --seconds {seconds:g} --states {search_states} "
                          f"--iters {iters} --match-games {match_games} --games {timed_games} "
                          f"--move-ms {move_ms:g} --jobs {jobs}" + (f" --out {out}" if out else ""))
    progress("engine: random playouts (same deals, interleaved rounds, CPU clock)")
    for num_players in (2, 4):
        results["engine"] += side.playout_rates(num_players, seconds, progress=progress)
    progress(f"search: ISMCTS, random rollouts to the end, c={side.UCT_C} (CPU clock)")
    for num_players in (2, 4):
        states = mid_game_states(num_players, search_states, seed=num_players * 100)
        results["search"].append(side.search_rates(states, iters, openspiel_simulations, progress=progress))
    progress("clone, determinize, information-state string (same states, interleaved rounds, CPU clock)")
    for num_players in (2, 4):
        states = [s for s, _ in sample_states(num_players, 100, seed=num_players)]
        results["operations"] += side.clone_and_determinize(states, rounds=ROUNDS)
        results["operations"] += side.information_states(states, rounds=ROUNDS)
    for label, games, ours, theirs in (
            ("equal iterations", match_games, side.like_for_like_spec(f"iters={match_iters}"),
             {"simulations": match_iters}),
            ("equal time per move", timed_games, side.like_for_like_spec(f"time_ms={move_ms:g}"),
             {"seconds": move_ms / 1000.0})):
        described = (f"{theirs['simulations']} simulations" if "simulations" in theirs
                     else f"{move_ms:g} ms per move")
        if games <= 0:
            continue
        progress(f"match at {label}: {games} two-player games, glory_ai {ours} against OpenSpiel's "
                 f"ISMCTSBot, {described} ({jobs} job(s))")
        played = []
        for game in Parallel(n_jobs=jobs, return_as="generator_unordered")(
                delayed(side.play_match_game)(i, ours, theirs) for i in range(games)):
            played.append(game)
            if len(played) % 10 == 0 and len(played) < games:
                progress(f"  {len(played)} of {games} games")
        # the two games of a deal (seats swapped) are one unit: the paired-deal interval
        by_deal: dict[int, list[float]] = {}
        for g in played:
            by_deal.setdefault(g["deal"], []).append(g["glory_ai_share"])
        score, low, high = mean_interval([statistics.mean(shares) for shares in by_deal.values()])
        row = {"match": label, "glory_ai": ours, "openspiel": described, "games": len(played),
               "deals": len(by_deal), "glory_ai_score": score, "low": low, "high": high,
               "glory_ai_ms_per_move": statistics.mean(g["glory_ai_ms_per_move"] for g in played),
               "openspiel_ms_per_move": statistics.mean(g["openspiel_ms_per_move"] for g in played),
               "decisions_per_game": statistics.mean(g["decisions"] for g in played)}
        results["matches"].append(row)
        progress(f"  glory_ai scores {row['glory_ai_score']:.3f} [{low:.3f}, {high:.3f}] (95%, paired deals) "
                 f"in {len(played)} games")
    results["machine"] = {"python": platform.python_version(), "platform": platform.platform(),
                          "processor": platform.processor() or platform.machine(),
                          "minutes": (time.time() - started) / 60, "cpus": os.cpu_count(),
                          "load": (load_before, os.getloadavg()[0])}
    if out is not None:
        _write_comparison(results, out)
        progress(f"wrote {out}/compare.md and {out}/compare.csv")
    return results


def like_for_like_text() -> str:
    """glory_ai's like-for-like ISMCTS spec at a budget of N iterations (for the page)."""
    from ..integrations import compare as side

    return side.like_for_like_spec("iters=N")


def _load_text(machine: dict[str, Any]) -> str:
    if "load" not in machine:
        return ""
    before, after = machine["load"]
    return f"; {machine['cpus']} CPUs, load average {before:.1f} at the start and {after:.1f} at the end"


def _write_comparison(results: dict[str, Any], out: str) -> None:
    import csv
    import os

    from .. import __version__, build_info

    os.makedirs(out, exist_ok=True)
    rows: list[dict[str, Any]] = []
    md = ["# glory_ai against OpenSpiel, side by side", "",
          f"Written by `{results.get('command', 'glory-ai bench --compare')}` (glory_ai "
          f"{__version__}, build {str(build_info().get('source_hash'))[:12]}; Python "
          f"{results['machine']['python']}, {results['machine']['platform']}, "
          f"{results['machine']['minutes']:.0f} minutes{_load_text(results['machine'])}). "
          "One run, one machine, the same deals and states for every contender; CPU time unless "
          "said otherwise. Compare the ratios, not the absolute figures across machines. How each "
          "figure is measured: docs/integrations.md.", ""]
    md += ["## Engine: random playouts", "",
           "Each run interleaves its contenders on the same deals (hearts: as many games); the "
           "ratio is glory_ai's C loop's decisions per second over the contender's.", "",
           "| run | contender | game | decisions / CPU s | games / CPU s | glory_ai C loop is |",
           "|---|---|---|---:|---:|---:|"]
    for r in results["engine"]:
        base = next(b for b in results["engine"] if b["run"] == r["run"]
                    and b["contender"].startswith("glory_ai random_playout"))
        ratio = "1" if r is base else f"x{base['decisions_per_s'] / r['decisions_per_s']:,.1f}"
        md.append(f"| {r['run']} | {r['contender']} | {r['game']} | {r['decisions_per_s']:,.0f} | "
                  f"{r['games_per_s']:,.1f} | {ratio} |")
    for r in results["engine"]:
        for measure in ("decisions_per_s", "games_per_s"):
            rows.append({"section": f"engine ({r['run']})", "measure": measure.replace("_s", "_cpu_s"),
                         "contender": r["contender"], "players": r["players"], "value": r[measure]})
    md += ["", "## Search: ISMCTS iterations per CPU second, like for like", "",
           "Random rollouts to the end, UCB constant 0.7, the most visited action, no solver, the "
           f"win-share reward alone (glory_ai: `{like_for_like_text()}`); medians over the same "
           "mid-game states. OpenSpiel's Python ISMCTSBot searches the adapter's states, and the "
           "states of a minimal wrapper (a plain Python object answering the bot's calls from the "
           "engine: the least any adapter could cost it).", "",
           "| players | glory_ai ISMCTS | OpenSpiel ISMCTSBot, adapter | ratio | "
           "OpenSpiel ISMCTSBot, minimal wrapper | ratio |",
           "|---:|---:|---:|---:|---:|---:|"]
    for r in results["search"]:
        minimal = r.get("openspiel_minimal_iters_per_s")
        md.append(f"| {r['players']} | {r['glory_ai_iters_per_s']:,.0f} | "
                  f"{r['openspiel_iters_per_s']:,.1f} | x{r['ratio']:.1f} | "
                  + (f"{minimal:,.1f} | x{r['ratio_minimal']:.1f} |" if minimal else "- | - |"))
        for who in ("glory_ai", "openspiel", "openspiel_minimal"):
            if f"{who}_iters_per_s" in r:
                rows.append({"section": "search", "measure": "ismcts_iters_per_cpu_s", "contender": who,
                             "players": r["players"], "value": r[f"{who}_iters_per_s"]})
    md += ["", "## Clone, determinize, information state: CPU ns per operation", "",
           "| players | operation | contender | ns (median [quartiles]) |", "|---:|---|---|---:|"]
    for r in results["operations"]:
        md.append(f"| {r['players']} | {r['operation']} | {r['contender']} | "
                  f"{r['ns']:,.0f} [{r['low']:,.0f}, {r['high']:,.0f}] |")
        rows.append({"section": "operations", "measure": f"{r['operation']}_ns", "contender": r["contender"],
                     "players": r["players"], "value": r["ns"]})
    if results["matches"]:
        md += ["", "## Strength: two-player matches, seats swapped on every deal", "",
               "glory_ai's score is its mean win share (a shared win counts 1/2) with a 95% "
               "interval that takes the two games of a deal as one unit (Student's t over the "
               "deals' mean shares, the paired-deal model of docs/analysis.md); time per move is "
               "the mean wall time of searched moves.", "",
               "| match | glory_ai | OpenSpiel ISMCTSBot | games | glory_ai score [95%] | "
               "ms/move glory_ai | ms/move OpenSpiel |", "|---|---|---|---:|---:|---:|---:|"]
        for r in results["matches"]:
            md.append(f"| {r['match']} | `{r['glory_ai']}` | {r['openspiel']} | {r['games']} | "
                      f"{r['glory_ai_score']:.3f} [{r['low']:.3f}, {r['high']:.3f}] | "
                      f"{r['glory_ai_ms_per_move']:.0f} | {r['openspiel_ms_per_move']:.0f} |")
            rows.append({"section": "matches", "measure": "glory_ai_score", "contender": r["match"],
                         "players": 2, "value": r["glory_ai_score"]})
    with open(os.path.join(out, "compare.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    with open(os.path.join(out, "compare.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["section", "measure", "contender", "players", "value"])
        writer.writeheader()
        writer.writerows(rows)
