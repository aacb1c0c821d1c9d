"""Arena benchmark: python3 benchmarks/arena.py [--random-games N] [--ismcts-games N] [--overhead-games N]

Prints, for two-player runs written to a run folder:
  * the arena's overhead per game (timing each move, building, encoding and writing the
    record, seeds, batches, the summary statistics) relative to the same `random` games
    played in a bare loop, in CPU time (target: < 5%);
  * games/s with n_jobs=1 and n_jobs=2 for `random` self-play and for
    `ismcts:iters=200` vs `greedy`, and their ratio (target: >= 1.7x on 2 cores).
The loky workers are started before the parallel timings (their start-up, about a second,
is printed separately): a long run pays it once. The load average is printed before and
after: figures taken while other processes run are not comparable.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import glory_ai
from glory_ai.analysis.stats import summarize
from glory_ai.arena import RunConfig, play, run
from glory_ai.bench import provenance
from glory_ai.bots import make_bot


def _timed_run(config: RunConfig, n_jobs: int, folder: Path) -> float:
    start = time.perf_counter()
    result = run(config, folder, n_jobs=n_jobs, progress=False)
    elapsed = time.perf_counter() - start
    assert len(result.records) == config.total_games
    return elapsed


def speedup(specs: list[str], games: int, tmp: Path, label: str) -> float:
    """games/s with 1 and 2 workers for one config; returns the ratio."""
    config = RunConfig.for_games(specs, games, seed=1)
    t1 = _timed_run(config, 1, tmp / f"{label}-1")
    t2 = _timed_run(config, 2, tmp / f"{label}-2")
    n = config.total_games
    who = " vs ".join(specs if len(specs) == 2 else specs * 2)
    print(f"{who}, {n} games: n_jobs=1 {n / t1:7.1f} games/s ({t1:6.1f} s)   "
          f"n_jobs=2 {n / t2:7.1f} games/s ({t2:6.1f} s)   speed-up {t1 / t2:.2f}x", flush=True)
    return t1 / t2


def bare_game(task) -> None:
    """One game with the same bots, nothing timed or recorded (the seeds given)."""
    state = glory_ai.Game(task.num_players, task.mode, **task.variant).new_initial_state(task.seed)
    bots = [make_bot(spec, seed) for spec, seed in zip(task.seats, task.bot_seeds, strict=True)]
    while not state.is_terminal():
        state.apply_action(bots[state.current_player()].step(state))


def overhead(games: int, tmp: Path, repeats: int = 3) -> float:
    """The arena's CPU time per game beyond a bare game, in two parts measured so that
    load from other processes hits both sides alike:

    * in the game: play_game() against the bare game, interleaved game by game (per-move
      timing, reading the result and structures, building the record);
    * around the games: run() into a folder plus summarize(), less the time spent inside
      play_game() (seeds, batches, JSON lines, writing and fsync, statistics).
    """
    config = RunConfig.for_games(["random"], games, seed=2)
    tasks = list(config.tasks())
    clock = time.process_time
    bare = inside = 0.0
    for _ in range(repeats):
        for task in tasks:
            t0 = clock()
            bare_game(task)
            t1 = clock()
            play.play_game(task)
            t2 = clock()
            bare += t1 - t0
            inside += t2 - t1
    n = repeats * len(tasks)
    bare, inside = bare / n, inside / n

    original = play.play_game
    spent = [0.0]

    def timed_play_game(task):
        t = clock()
        try:
            return original(task)
        finally:
            spent[0] += clock() - t

    around = []
    play.play_game = timed_play_game          # play_batch looks play_game up at each call
    try:
        for k in range(repeats):
            spent[0] = 0.0
            t = clock()
            result = run(config, tmp / f"overhead-{k}", n_jobs=1, progress=False)
            summarize(result.records, config)
            around.append((clock() - t - spent[0]) / len(tasks))
    finally:
        play.play_game = original
    outside = min(around)                     # as timeit: the least disturbed repeat
    share = (inside - bare + outside) / bare
    print(f"overhead, {len(tasks)} random games x {repeats} (CPU time of this process): bare game "
          f"{1e3 * bare:.3f} ms; in the game (timing, result, record) {1e6 * (inside - bare):+.0f} us; "
          f"around it (seeds, JSON, file, statistics) {1e6 * outside:+.0f} us; "
          f"total {100 * share:+.1f}% (target < 5%)", flush=True)
    return share


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--random-games", type=int, default=2000,
                        help="random vs random games per setting (default 2000)")
    parser.add_argument("--ismcts-games", type=int, default=120,
                        help="ismcts:iters=200 vs greedy games per setting (default 120: about "
                             "2-3 minutes with one worker)")
    parser.add_argument("--overhead-games", type=int, default=1000,
                        help="random games per overhead measurement (default 1000)")
    args = parser.parse_args()
    print(provenance(), flush=True)
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        start = time.perf_counter()
        run(RunConfig(specs=("random", "greedy"), deals=1), n_jobs=2, progress=False)
        print(f"loky start-up (2 workers, first run): {time.perf_counter() - start:.2f} s", flush=True)
        overhead(args.overhead_games, tmp)
        random_ratio = speedup(["random"], args.random_games, tmp, "random")
        ismcts_ratio = speedup(["ismcts:iters=200", "greedy"], args.ismcts_games, tmp, "ismcts")
        print(f"parallel speed-up with 2 workers: random {random_ratio:.2f}x, "
              f"ismcts:iters=200 {ismcts_ratio:.2f}x (target >= 1.7x)")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
