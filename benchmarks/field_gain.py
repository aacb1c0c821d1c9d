"""Paired gain of one seat between two runs of a field: python benchmarks/field_gain.py NEW OLD

NEW and OLD are run folders of `glory-ai compare` with the same field, seed, deals and
player count, differing in one spec (the first of each run's specs, or --new-spec and
--old-spec). Both runs play the same deals with the same bot seeds in the same seat
rotations, so each deal is a pair: the seat's mean win share in the deal under NEW less
under OLD. Prints both win shares and the mean paired difference with its 95% t interval
over deals (and the two-sided p-value of "no difference"), e.g.

    glory-ai compare ismcts:iters=300 pimc:iters=300,worlds=10 heuristic:style=builder \\
        heuristic:style=merchant --players 4 --games 200 --seed 23 --out /tmp/field-new
    glory-ai compare ismcts:iters=300,c=0.7,cutoff=40,solver=false,speed=0,vp=0,final=visits,eval=style \\
        pimc:iters=300,worlds=10 heuristic:style=builder heuristic:style=merchant \\
        --players 4 --games 200 --seed 23 --out /tmp/field-old
    python benchmarks/field_gain.py /tmp/field-new /tmp/field-old
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from glory_ai.analysis.load import load_runs
from glory_ai.analysis.stats.paired import mean_interval, mean_test


def first_spec(folder: Path) -> str:
    from glory_ai.arena.storage import load_config

    return str(load_config(folder).specs[0])


def by_deal(folder: Path, spec: str) -> dict[int, float]:
    """The spec's mean win share in each deal of the run whose every game is recorded."""
    frame = load_runs(folder)
    games_per_deal = frame.groupby("deal")["game_id"].nunique()
    mine = frame[frame["spec"].astype(str) == spec]
    shares = mine.groupby("deal")["win_share"].mean()
    return {int(deal): float(share) for deal, share in shares.items()
            if games_per_deal[deal] == games_per_deal.max()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("new", type=Path)
    parser.add_argument("old", type=Path)
    parser.add_argument("--new-spec", help="the seat's spec in NEW (its first spec)")
    parser.add_argument("--old-spec", help="the seat's spec in OLD (its first spec)")
    args = parser.parse_args()
    new_spec = args.new_spec or first_spec(args.new)
    old_spec = args.old_spec or first_spec(args.old)
    new_shares, old_shares = by_deal(args.new, new_spec), by_deal(args.old, old_spec)
    deals = sorted(new_shares.keys() & old_shares.keys())    # the deals both runs finished
    new = np.array([new_shares[d] for d in deals])
    old = np.array([old_shares[d] for d in deals])
    difference = new - old
    # mean_interval wants values in 0..1: the difference in -1..1, shifted and halved
    mean, low, high = (2 * x - 1 for x in mean_interval((difference + 1) / 2))
    p = mean_test((difference + 1) / 2, 0.5)
    print(f"{len(deals)} deals paired")
    print(f"{new_spec}: win share {100 * np.mean(new):.1f}%")
    print(f"{old_spec}: win share {100 * np.mean(old):.1f}%")
    print(f"gain: {100 * mean:+.1f} points [{100 * low:+.1f}, {100 * high:+.1f}] (95% t interval over "
          f"deals), p = {p:.3g}")


if __name__ == "__main__":
    main()
