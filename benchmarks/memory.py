"""Memory benchmark: peak memory of a run and of its resume, as the number of games grows.

    python3 benchmarks/memory.py [--games N ...] [--jobs J] [--keep DIR] [--scan DIR] [--synthetic N]

Runs `random` self-play of N games (default 10^4 and 10^5; add 10^6 with ``--games 10000
100000 1000000``: the time grows with the games, 10^5 took 4 minutes on 2 loaded cores)
into a run folder, then resumes the finished folder, each in a fresh Python process, and
prints the peak resident memory of the main process (its ``VmHWM``, the peak since it
started) and of the whole process tree (the main process and its loky workers, sampled every
0.2 s with psutil). Target: the peak of a run and of its resume does not grow with the
number of games (at most 300 MB for 10^6 games). ``--scan DIR`` measures only the reading
of an existing folder of `random` self-play made by this benchmark (a resume that plays
nothing, the records handed to a stopping rule without their actions), however many games
it holds. ``--synthetic N`` writes a finished folder of N games without playing them (the
first 200 deals played, the later records copies of theirs under the later deals' ids and
seeds: a resume checks the plan, not the actions), then measures its resume and its scan:
the memory of reading 10^6 records back where playing them takes too long.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

CHILD = """
import resource, sys, time
from glory_ai.arena import RunConfig, run

class Never:                       # a stopping rule that stops before any game is played
    def add(self, records):
        return True
    def to_dict(self):
        return {}

config = RunConfig(specs=("random",), players=2, deals=int(sys.argv[1]), seed=1)
scan = sys.argv[4] == "scan"
start = time.perf_counter()
result = run(config, sys.argv[2], n_jobs=int(sys.argv[3]), progress=False,
             stop=Never() if scan else None)
assert scan or result.games == config.total_games, result
# the peak of this process since its exec (VmHWM): ru_maxrss would also count the parent's
# resident memory at the fork, which carries over the exec on Linux
try:
    with open("/proc/self/status") as status:
        peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
except OSError:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024    # macOS: bytes -> KB
print(result.resumed if scan else result.played, round(time.perf_counter() - start, 1), peak // 1024)
"""


def _tree_rss(process: psutil.Process) -> int:
    total = 0
    for p in [process, *process.children(recursive=True)]:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total


def measure(games: int, folder: Path, jobs: int, mode: str = "run") -> tuple[int, float, int, int]:
    """(games played, or read for a scan; seconds; peak MB of the main process; peak MB of
    the process tree)."""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(games), str(folder), str(jobs), mode],
                             stdout=subprocess.PIPE, text=True, env=env)
    process = psutil.Process(child.pid)
    peak = 0
    while child.poll() is None:
        peak = max(peak, _tree_rss(process))
        time.sleep(0.2)
    out = child.stdout.read() if child.stdout else ""
    if child.returncode != 0:
        raise SystemExit(f"the run of {games} games failed (status {child.returncode})")
    played, seconds, main_mb = out.split()
    return int(played), float(seconds), int(main_mb), peak // (1 << 20)


def synthesize(games: int, folder: Path, jobs: int) -> None:
    """A finished run folder of ``games`` `random` self-play games (the benchmark's config),
    written through the arena's RunFolder: real records for the first 200 deals, copies of
    them under every later deal's id and seeds."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from glory_ai.arena import RunConfig, run
    from glory_ai.arena.plan import bot_seed, deal_seed, game_id
    from glory_ai.arena.play import encode_record
    from glory_ai.arena.storage import RunFolder

    config = RunConfig(specs=("random",), players=2, deals=games, seed=1)
    played = run(RunConfig(specs=("random",), players=2, deals=min(games, 200), seed=1),
                 n_jobs=jobs, progress=False).records
    writer = RunFolder(folder, config)
    writer.open()
    lines: list[str] = []
    for deal in range(games):
        record = dict(played[deal % len(played)], game_id=game_id(deal, 0, 0), deal=deal,
                      seed=deal_seed(1, deal), bot_seeds=[bot_seed(1, deal, 0, s) for s in range(2)])
        lines.append(encode_record(record) + "\n")
        if len(lines) == 10_000:
            writer.append((), "".join(lines))
            lines.clear()
    if lines:
        writer.append((), "".join(lines))
    writer.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--keep", type=Path, default=None, help="write the run folders here")
    parser.add_argument("--scan", type=Path, default=None,
                        help="only read this folder (random-N of --keep) back, playing nothing")
    parser.add_argument("--synthetic", type=int, default=None, metavar="N",
                        help="write a finished folder of N games without playing them, then "
                             "measure its resume and its scan")
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'games':>9}  {'what':<6}  {'played':>9}  {'seconds':>8}  {'main MB':>8}  {'tree MB':>8}")
    if args.scan is not None:
        games = int(args.scan.name.rsplit("-", 1)[1])
        read, seconds, main_mb, tree_mb = measure(games, args.scan, args.jobs, "scan")
        print(f"{games:>9,}  {'scan':<6}  {read:>9,}  {seconds:>8.1f}  {main_mb:>8}  {tree_mb:>8}  "
              "(games read back)")
        return
    with tempfile.TemporaryDirectory(prefix="glory-memory-") as tmp:
        base = args.keep or Path(tmp)
        if args.synthetic is not None:
            folder = base / f"random-{args.synthetic}"
            started = time.perf_counter()
            synthesize(args.synthetic, folder, args.jobs)
            size = (folder / "games.jsonl").stat().st_size
            print(f"{args.synthetic:>9,}  {'write':<6}  {0:>9,}  {time.perf_counter() - started:>8.1f}  "
                  f"{'':>8}  {'':>8}  ({size / 1e9:.2f} GB of records, not played)", flush=True)
            for what in ("resume", "scan"):
                read, seconds, main_mb, tree_mb = measure(args.synthetic, folder, args.jobs,
                                                          "scan" if what == "scan" else "run")
                print(f"{args.synthetic:>9,}  {what:<6}  {read:>9,}  {seconds:>8.1f}  {main_mb:>8}  "
                      f"{tree_mb:>8}", flush=True)
            return
        for games in args.games:
            folder = base / f"random-{games}"
            for what in ("run", "resume"):
                played, seconds, main_mb, tree_mb = measure(games, folder, args.jobs)
                print(f"{games:>9,}  {what:<6}  {played:>9,}  {seconds:>8.1f}  {main_mb:>8}  {tree_mb:>8}",
                      flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
