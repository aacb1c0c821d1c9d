"""How much of the gap between honest and all-seeing play a search closes:
python benchmarks/information_ceiling.py NEW_DIR OLD_DIR [--draws N]

NEW_DIR and OLD_DIR are two compare runs on the same deals (the same --seed and --games):
an honest search (the new one, then the old one) against the same all-seeing control
(``ismcts:...,omniscient=true``, docs/bots.md, "The information ceiling"). Per deal, the
honest side's score (a shared win split); the share of the gap closed is
(new - old) / (0.5 - old): 0 when the new search does no better than the old against the
all-seeing one, 1 when it plays it even. Its 95% interval is a bootstrap over deals, the
same deals drawn for both runs.
"""
import argparse
import gzip
import json
from pathlib import Path

import numpy as np

CONTROL = "omniscient=true"


def _records(folder: Path):
    plain, packed = folder / "games.jsonl", folder / "games.jsonl.gz"
    handle = open(plain) if plain.exists() else gzip.open(packed, "rt")
    with handle:
        for line in handle:
            yield json.loads(line)


def honest_score_per_deal(folder: Path) -> dict[int, float]:
    """The honest seat's mean score per deal (its games of every seat rotation)."""
    scores: dict[int, list[float]] = {}
    for record in _records(folder):
        honest = [seat for seat, spec in enumerate(record["seats"]) if CONTROL not in spec]
        if len(honest) != 1 or len(record["seats"]) != 2:
            raise SystemExit(f"{folder}: expected two-player games of one honest spec against the control")
        won = honest[0] in record["winners"]
        scores.setdefault(record["deal"], []).append(1.0 / len(record["winners"]) if won else 0.0)
    return {deal: float(np.mean(s)) for deal, s in scores.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("new", type=Path)
    parser.add_argument("old", type=Path)
    parser.add_argument("--draws", type=int, default=10_000)
    args = parser.parse_args()
    new, old = honest_score_per_deal(args.new), honest_score_per_deal(args.old)
    deals = sorted(set(new) & set(old))
    if len(deals) != len(new) or len(deals) != len(old):
        raise SystemExit("the two runs must be played on the same deals (the same --seed and --games)")
    a = np.array([new[d] for d in deals])
    b = np.array([old[d] for d in deals])

    def closed(rows: np.ndarray) -> float:
        return float((a[rows].mean() - b[rows].mean()) / (0.5 - b[rows].mean()))

    rng = np.random.default_rng(1)
    draws = [closed(rng.integers(0, len(deals), len(deals))) for _ in range(args.draws)]
    low, high = np.percentile(draws, [2.5, 97.5])
    print(f"deals {len(deals)}: new {a.mean():.3f}, old {b.mean():.3f}, share closed "
          f"{closed(np.arange(len(deals))):.3f} [{low:.3f}, {high:.3f}]")


if __name__ == "__main__":
    main()
