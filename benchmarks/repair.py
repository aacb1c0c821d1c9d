"""Verify and repair benchmark: python3 benchmarks/repair.py [--games N] [--keep DIR]

Writes one finished run folder of N records (default 100,000; benchmarks/reader.py's folder:
the plan's ids, seeds and seats on lines of a short real run), then times, each on a fresh
copy of it:

* ``verify`` without replays (``--sample 0``): every record against the schema and the plan,
  its entry in ``games.sums``, the records' checksum, in one stream;
* ``verify --repair`` of one renamed key (``roles_led`` -> ``roles_lex``): the record set
  aside in ``quarantine.jsonl``, the rest written to a new file, read back and checked,
  then put in place (the games set aside are not played again here: the copied lines do not
  replay, and replaying is the arena's cost, benchmarks/arena.py);
* the folder compressed (``games.jsonl.gz``) and cut at half its bytes: what ``verify`` reads
  of it, and what ``verify --repair`` keeps (the records of the readable part).

Replays are left out (their cost is the engine's); the figures are the reading and mending.
Each step prints its wall-clock and CPU seconds; the load average is printed too: wall-clock
figures taken while other processes run are not comparable.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

from glory_ai.arena import storage
from glory_ai.arena.quarantine import read_quarantine
from glory_ai.arena.verify import verify_run

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reader import write_folder  # noqa: E402  (benchmarks/reader.py: the same folder)


def _timed(label: str, fn):
    """``fn()`` timed: wall-clock seconds, and this process's CPU seconds (the figure to
    compare on a shared machine, where the wall clock counts the other processes too)."""
    start, cpu = time.perf_counter(), time.process_time()
    result = fn()
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(f"  {label:<52} {seconds:7.2f} s ({cpu:.2f} s CPU)", flush=True)
    return result, cpu


def _rename_a_key(folder: Path, line: int) -> None:
    """``roles_led`` renamed in record ``line`` (1-based), in place: a bit flip's kind of damage."""
    path = folder / storage.GAMES_FILE
    with open(path, "r+b") as fh:
        for _ in range(line - 1):
            fh.readline()
        at = fh.tell()
        text = fh.readline()
        fh.seek(at)
        fh.write(text.replace(b'"roles_led":', b'"roles_lex":', 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--keep", metavar="DIR", help="write the run here (reused when it exists)")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(args.keep) if args.keep else Path(tmp) / "run"
        if not (source / storage.GAMES_FILE).exists():
            start = time.perf_counter()
            write_folder(source, args.games)
            print(f"wrote {args.games} records ({(source / storage.GAMES_FILE).stat().st_size / 1e6:.0f} MB) "
                  f"in {time.perf_counter() - start:.1f} s")
        games = storage.count_lines(source / storage.GAMES_FILE)

        def copy(name: str) -> Path:
            target = Path(tmp) / name
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(source, target)
            return target

        print(f"a sound folder of {games} games:")
        sound = copy("sound")
        check, seconds = _timed("verify, no replay", lambda: verify_run(sound, sample=0))
        assert check.ok and check.games == games, check.problems[:3]
        print(f"  {'':<52} {games / seconds:7.0f} records per CPU second")

        print("one key renamed in the middle record:")
        damaged = copy("damaged")
        _rename_a_key(damaged, games // 2)
        check, _ = _timed("verify, no replay (names the line)", lambda: verify_run(damaged, sample=0))
        assert len(check.drop) == 1, check.problems[:3]
        check, _ = _timed("verify --repair (set aside, rewrite, read back)",
                          lambda: verify_run(damaged, sample=0, repair=True, replay_games=False))
        kept = storage.count_lines(damaged / storage.GAMES_FILE)
        print(f"  kept {kept} of {games} records, {len(list(read_quarantine(damaged)))} set aside")

        print("compressed, then cut at half its bytes:")
        packed = copy("packed")
        _timed("compress_run", lambda: storage.compress_run(packed))
        archive = packed / storage.COMPRESSED_GAMES_FILE
        size = archive.stat().st_size
        with open(archive, "r+b") as fh:
            fh.truncate(size // 2)
        check, _ = _timed("verify, no replay (reads up to the damage)", lambda: verify_run(packed, sample=0))
        print(f"  {check.games} of {games} games readable ({check.damage})")
        check, _ = _timed("verify --repair (keeps the readable part)",
                          lambda: verify_run(packed, sample=0, repair=True, replay_games=False))
        kept = storage.count_lines(packed / storage.GAMES_FILE)
        print(f"  kept {kept} of {games} records ({kept / games:.1%}); the rest is replayed by the "
              "repair (not timed here)")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory of this process: {peak:.0f} MB")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
