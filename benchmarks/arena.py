"""Arena benchmark: python3 benchmarks/arena.py [--random-games N] [--ismcts-games N] [--overhead-games N]

Prints, for two-player runs written to a run folder:
  * the arena's overhead per game (timing each move, building, encoding and writing the
    record, seeds, batches, reading the records back) relative to the same games played in
    a bare loop, in CPU time (target: < 5%), for `random` self-play and `greedy` vs
    `random`, and beside it the cost of the summary statistics compare prints;
  * for `random` self-play, a game through compare (bare game, arena, columns, summary
    table) against the bare C playout of a random game (the search's rollout:
    ``new_initial_state`` and ``random_playout``, nothing recorded), as a ratio (issue 33's
    "18 times");
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
from glory_ai.analysis.columns import ColumnsWriter, columns_path
from glory_ai.analysis.load import load_runs
from glory_ai.analysis.stats.summary import RUN_COLUMNS, summarize_run
from glory_ai.arena import RunConfig, play, run
from glory_ai.arena._loop import play_loop
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


def bare_game(game: glory_ai.Game, task) -> None:
    """One game with the same bots, nothing timed or recorded (the seeds given); ``game``
    the run's rules, built once as a plain loop over games would."""
    state = game.new_initial_state(task.seed)
    bots = [make_bot(spec, seed) for spec, seed in zip(task.seats, task.bot_seeds, strict=True)]
    while not state.is_terminal():
        state.apply_action(bots[state.current_player()].step(state))


def bare_loop(game: glory_ai.Game, task) -> None:
    """The same game through the arena's loop alone (the built-in cheap bots' choices made
    in C, as play_game makes them), nothing recorded."""
    state = game.new_initial_state(task.seed)
    bots = [make_bot(spec, seed) for spec, seed in zip(task.seats, task.bot_seeds, strict=True)]
    play_loop(state, [play._step_of(bot) for bot in bots], play.MAX_DECISIONS)


def overhead(specs: list[str], games: int, tmp: Path, repeats: int = 3) -> float:
    """The arena's CPU time per game beyond a bare game, in parts measured so that load
    from other processes hits both sides alike:

    * the bare game twice: the bots asked through their Python ``step`` in a plain loop, and
      the arena's C loop alone (play_loop: the built-in random, greedy and heuristic bots'
      choices made in C, as play_game makes them), the baseline of the parts below;
    * in the game: play_game() against the bare loop, interleaved game by game (per-move
      timing, reading the result and structures, building the record);
    * around it: run() into a folder less the time spent inside play_game() (seeds, tasks,
      batches, JSON lines, checksums, writing and fsync);
    * after it, as compare does: the run's columns made as the run writes (ColumnsWriter:
      each batch tabled, games.parquet written at the end; beside it, the columns derived
      from the records instead: read back, checked against the schema, written) and the
      summary table from them (summarize_run: win rates with their bootstrap intervals,
      ratings).

    Returns the share of the in-game and around-it parts (the arena's per-game work); the
    two parts after the run are printed beside it."""
    config = RunConfig.for_games(specs, games, seed=2)
    tasks = list(config.tasks())
    game = glory_ai.Game(config.players, config.mode, **config.variant)
    clock = time.process_time
    python = bare = inside = playout = 0.0
    for _ in range(repeats):
        for task in tasks:
            t0 = clock()
            bare_game(game, task)
            t1 = clock()
            bare_loop(game, task)
            t2 = clock()
            play.play_game(task)
            t3 = clock()
            game.new_initial_state(task.seed).random_playout(task.bot_seeds[0])
            t4 = clock()
            python += t1 - t0
            bare += t2 - t1
            inside += t3 - t2
            playout += t4 - t3
    n = repeats * len(tasks)
    python, bare, inside, playout = python / n, bare / n, inside / n, playout / n

    original = play.play_game
    spent = [0.0]

    def timed_play_game(task):
        t = clock()
        try:
            return original(task)
        finally:
            spent[0] += clock() - t

    class TimedWriter(ColumnsWriter):
        spent = 0.0

        def add(self, records):
            t = clock()
            try:
                return super().add(records)
            finally:
                self.spent += clock() - t

    around, columns, tables, derived = [], [], [], []
    play.play_game = timed_play_game          # play_batch looks play_game up at each call
    try:
        for k in range(repeats):
            spent[0] = 0.0
            folder = tmp / f"overhead-{'-'.join(specs)}-{k}"
            writer = TimedWriter()
            t0 = clock()
            result = run(config, folder, n_jobs=1, progress=False, stop=writer)   # as compare runs it
            t1 = clock()
            writer.finish(result)                         # the columns file (games.parquet)
            t2 = clock()
            summarize_run(folder, config)                 # reads them back, makes the table
            t3 = clock()
            columns_path(folder).unlink()
            t4 = clock()
            load_runs([folder], columns=RUN_COLUMNS)      # the columns derived from the records instead
            t5 = clock()
            around.append((t1 - t0 - spent[0] - writer.spent) / len(tasks))
            columns.append((t2 - t1 + writer.spent) / len(tasks))
            tables.append((t3 - t2) / len(tasks))
            derived.append((t5 - t4) / len(tasks))
    finally:
        play.play_game = original
    # as timeit: the least disturbed repeat of each part
    outside, derive, table, read_back = min(around), min(columns), min(tables), min(derived)
    arena = inside - bare + outside
    after = derive + table
    who = " vs ".join(specs if len(specs) == 2 else specs * 2)
    print(f"overhead, {who}, {len(tasks)} games x {repeats} (CPU time of this process): bare game "
          f"{1e3 * python:.3f} ms with the bots' step in Python, {1e3 * bare:.3f} ms through the arena's "
          f"loop alone (the built-in bots' choices in C); beyond the latter: in the game (timing, "
          f"result, record) {1e6 * (inside - bare):+.1f} us; "
          f"around it (seeds, tasks, JSON, checksums, file) {1e6 * outside:+.1f} us; arena "
          f"{100 * arena / bare:+.1f}% (target < 5%); after the run as compare: columns as the run "
          f"writes {1e6 * derive:+.1f} us (read back from the records instead: {1e6 * read_back:+.1f} "
          f"us), summary table {1e6 * table:+.1f} us, {100 * after / bare:+.1f}%; "
          f"total {100 * (arena + after) / bare:+.1f}%", flush=True)
    if specs == ["random"]:
        through = bare + arena + after
        print(f"a random game through compare {1e3 * through:.3f} ms against the bare C playout of a "
              f"random game {1e3 * playout:.3f} ms: {through / playout:.1f} times", flush=True)
    return arena / bare


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--random-games", type=int, default=2000,
                        help="random vs random games per setting (default 2000)")
    parser.add_argument("--ismcts-games", type=int, default=120,
                        help="ismcts:iters=200 vs greedy games per setting (default 120: about "
                             "2-3 minutes with one worker)")
    parser.add_argument("--overhead-games", type=int, default=1000,
                        help="games per overhead measurement (default 1000)")
    args = parser.parse_args()
    print(provenance(), flush=True)
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        start = time.perf_counter()
        run(RunConfig(specs=("random", "greedy"), deals=1), n_jobs=2, progress=False)
        print(f"loky start-up (2 workers, first run): {time.perf_counter() - start:.2f} s", flush=True)
        overhead(["random"], args.overhead_games, tmp)
        overhead(["greedy", "random"], args.overhead_games, tmp)
        random_ratio = speedup(["random"], args.random_games, tmp, "random")
        ismcts_ratio = speedup(["ismcts:iters=200", "greedy"], args.ismcts_games, tmp, "ismcts")
        print(f"parallel speed-up with 2 workers: random {random_ratio:.2f}x, "
              f"ismcts:iters=200 {ismcts_ratio:.2f}x (target >= 1.7x)")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
