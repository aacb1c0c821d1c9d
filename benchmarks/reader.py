"""Record reader benchmark: python3 benchmarks/reader.py [--games N] [--keep DIR] [--repeat R]

Writes one run folder of N records (default 100,000; a 3-player field of greedy and
heuristic bots) the way the arena writes one: the plan's game ids, deal seeds, bot seeds and
seats, lines copied from a short real run (their actions, results and timing kept), the
config's checksums and the records' checksum stored as a finished run stores them. Then
times every reader of run folders on it: ``read_records`` without the lists the analysis
skips (the analysis's path), ``read_records`` whole (``load_records`` sorts on top), the
stream a resume reads (``scan_folder``) and ``load_runs`` (the analysis frame). Each
figure is the best of R runs (default 3). The load average is printed: figures taken while
other processes run are not comparable.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from glory_ai.arena import RunConfig, run, storage
from glory_ai.arena.plan import bot_seed, deal_seed
from glory_ai.arena.play import encode_record

SPECS = ("greedy", "heuristic:style=builder", "heuristic:style=merchant")


def write_folder(folder: Path, games: int) -> RunConfig:
    """A finished run folder of ``games`` records of a 3-player field (see the module's doc)."""
    config = RunConfig.for_games(SPECS, games, players=3, seed=7)
    templates = run(RunConfig(specs=SPECS, players=3, deals=8, seed=3), n_jobs=1,
                    progress=False).records
    # the folder as a run writes it (config.json, code.json, the records' checksum) by the
    # run's own writer, so that the same script times the reader of any version
    with _opened(folder, config) as open_folder:
        records: list[dict] = []
        for index, task in enumerate(config.tasks()):
            if index >= games:
                break
            rec = dict(templates[index % len(templates)])
            rec.update(game_id=task.game_id, deal=task.deal, pairing=task.pairing,
                       rotation=task.rotation, seed=deal_seed(config.seed, task.deal),
                       bot_seeds=[bot_seed(config.seed, task.deal, task.rotation, s) for s in range(3)],
                       seats=list(task.seats))
            records.append(rec)
            if len(records) == 5000:
                open_folder.append(records, "".join(encode_record(r) + "\n" for r in records))
                records = []
        if records:
            open_folder.append(records, "".join(encode_record(r) + "\n" for r in records))
    return config


class _opened:
    """RunFolder.open ... close as a context manager (for versions without one)."""

    def __init__(self, folder: Path, config: RunConfig) -> None:
        self.folder = storage.RunFolder(folder, config)

    def __enter__(self) -> storage.RunFolder:
        self.folder.open()
        return self.folder

    def __exit__(self, *exc: object) -> None:
        self.folder.close()


def best(label: str, fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    print(f"  {label:<44} {min(times):7.3f} s (best of {repeat})", flush=True)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", metavar="DIR", help="write the run here (reused when it exists)")
    args = parser.parse_args()
    from glory_ai.analysis.load import load_runs

    print(f"load average before: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep) if args.keep else Path(tmp) / "run"
        start = time.perf_counter()
        if (folder / storage.GAMES_FILE).exists():
            config = storage.load_config(folder)
            print(f"reused {folder}")
        else:
            config = write_folder(folder, args.games)
            print(f"wrote {args.games} records ({(folder / storage.GAMES_FILE).stat().st_size / 1e6:.0f} MB) "
                  f"in {time.perf_counter() - start:.1f} s")
        n = len(storage.read_records(folder, skip=storage.SKIPPABLE))
        assert n == args.games, n
        best("read_records, skipping actions (analysis)",
             lambda: storage.read_records(folder, skip=storage.SKIPPABLE), args.repeat)
        best("read_records, whole records", lambda: storage.read_records(folder), args.repeat)
        best("scan_folder (a resume's stream)",
             lambda: storage.scan_folder(folder / storage.GAMES_FILE, storage.Plan(config)), args.repeat)
        best("load_runs (the analysis frame)", lambda: load_runs(folder), args.repeat)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
