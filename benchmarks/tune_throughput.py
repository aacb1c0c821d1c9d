"""The tuner's arena throughput beside a plain run of the same bots:
python benchmarks/tune_throughput.py STUDY.toml [--deals N] [--repeats R]

For the study's published rules (its [play] bots and player counts, its seed), plays the
same N deals three ways, alternating, R times, all in this process (``--jobs 1``, so that
the CPU time counted is every game's): as a trial's rung does (``play_rule_set`` in an arena
session, then the statistics of the study's objectives and constraints, ``measure``), and as
``glory-ai compare`` plays them (``glory_ai.arena.run`` of the same run config). Prints the
median games per CPU-second of each: what a study costs beyond the games themselves.
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from glory_ai.arena import run
from glory_ai.arena.session import Session
from glory_ai.bench import provenance
from glory_ai.tune import load_tune_config
from glory_ai.tune.trials import measure, play_rule_set


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", help="a study config (glory-ai tune)")
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(provenance(), flush=True)
    config = load_tune_config(args.config)
    scratch = Path(tempfile.mkdtemp(prefix="tune-throughput-"))
    rates: dict[str, list[float]] = {"trial: play": [], "trial: play + statistics": [], "compare: play": []}
    games = 0
    for repeat in range(args.repeats):
        with Session(scratch / f"trial-{repeat}", n_jobs=1, progress=False) as session:
            start = time.process_time()
            folders = play_rule_set(config, {}, scratch / f"trial-{repeat}" / "runs", args.deals,
                                    seed=config.seed, planned=args.deals, session=session)
            played = time.process_time() - start
            measure(config, folders, args.deals, seed=config.seed)
            measured = time.process_time() - start
        start = time.process_time()
        games = 0
        for players in config.players:
            result = run(config.run_config({}, players, args.deals, config.seed),
                         scratch / f"compare-{repeat}" / f"{players}p", n_jobs=1, progress=False)
            games += result.games
        compared = time.process_time() - start
        rates["trial: play"].append(games / played)
        rates["trial: play + statistics"].append(games / measured)
        rates["compare: play"].append(games / compared)
        print(f"repeat {repeat + 1}: {games} games; trial {played:.2f} CPU-s (+{measured - played:.2f} "
              f"statistics), compare {compared:.2f} CPU-s", flush=True)
    print(f"\n{config.name}: {', '.join(config.specs)} at {config.players} players, {args.deals} deals "
          f"({games} games), median of {args.repeats}")
    print("| how | games per CPU-second | against compare |")
    print("|---|---:|---:|")
    base = statistics.median(rates["compare: play"])
    for how, values in rates.items():
        rate = statistics.median(values)
        print(f"| {how} | {rate:,.1f} | x{rate / base:.2f} |")


if __name__ == "__main__":
    main()
