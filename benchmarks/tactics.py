"""Tactical suite benchmark: python benchmarks/tactics.py [--budgets 500,2000,10000] [--bots ...]

Every position of benchmarks/data/tactics.jsonl.gz (made by benchmarks/make_tactics.py)
offers the player to move a win within the turn whatever the others hold and do; a bot
solves it when its move is one of the winning first moves. Prints, for each bot and
budget, the share solved with its 95% Wilson interval, and the share by player count and
for the positions the first move wins by itself, and by mode. The target: the default ISMCTS solves at
least 95% at 2,000 iterations.

Bots (`--bots`, comma-separated names): ismcts (today's default, the root win search on),
ismcts-turnwin (turnwin=100000 written out: the default), ismcts-off (the defaults with
turnwin=0, as they were before the root win search), ismcts-plain (the search without solver, reward
mix, robust final choice or root win search: the defaults before them), pimc
(`worlds=10`), pimc-turnwin (`worlds=10,turnwin=100000`), flatmc; or any spec with `{n}` for
the budget after `--spec`.
"""
from __future__ import annotations

import argparse
import gzip
import json
import math
import time
from collections import Counter, defaultdict
from pathlib import Path

import glory_ai
from glory_ai.bots import make_bot

DATA = Path(__file__).parent / "data" / "tactics.jsonl.gz"
PLAIN = "c=0.7,cutoff=40,solver=false,speed=0,vp=0,final=visits,eval=style,turnwin=0"
BOTS = {
    "ismcts": "ismcts:iters={n}",
    "ismcts-turnwin": "ismcts:iters={n},turnwin=100000",
    "ismcts-off": "ismcts:iters={n},turnwin=0",
    "ismcts-plain": "ismcts:iters={n}," + PLAIN,
    "pimc": "pimc:iters={n},worlds=10",
    "pimc-turnwin": "pimc:iters={n},worlds=10,turnwin=100000",
    "flatmc": "flatmc:iters={n}",
}


def load(path: Path = DATA) -> list[dict]:
    with gzip.open(path, "rt") as f:
        return [json.loads(line) for line in f if line.strip()]


def wilson(hits: int, total: int, z: float = 1.96) -> tuple[float, float]:
    if total == 0:
        return (0.0, 1.0)
    p = hits / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return (max(0.0, centre - half), min(1.0, centre + half))


def per_cell(positions: list[dict]) -> str:
    """How many positions each player count and mode holds ("2p imperium: 25, ...")."""
    cells = Counter((r["num_players"], r["mode"]) for r in positions)
    return ", ".join(f"{n}p {m}: {cells[n, m]}" for n, m in sorted(cells))


def solved(spec: str, positions: list[dict], seed: int = 0) -> list[bool]:
    """Whether the bot's move is a winning one, position by position (seed: the
    position's index plus `seed`)."""
    out = []
    for i, row in enumerate(positions):
        state = glory_ai.State.from_dict(row["position"])
        out.append(make_bot(spec, seed=seed + i).step(state) in row["wins"])
    return out


def describe(hits: list[bool]) -> str:
    low, high = wilson(sum(hits), len(hits))
    return f"{100 * sum(hits) / max(1, len(hits)):5.1f}% [{100 * low:.1f}, {100 * high:.1f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budgets", default="500,2000,10000", help="iterations per move (500,2000,10000)")
    parser.add_argument("--bots", default="ismcts,ismcts-plain,pimc,flatmc",
                        help=f"bots to run: {', '.join(BOTS)} (all)")
    parser.add_argument("--spec", action="append", default=[],
                        help="another bot: a spec with {n} for the budget (repeatable)")
    parser.add_argument("--limit", type=int, default=0, help="the first N positions only")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    from glory_ai.bench import provenance

    print(provenance(), flush=True)
    positions = load(args.data)
    if args.limit:
        positions = positions[:args.limit]
    specs = {name: BOTS[name] for name in args.bots.split(",") if name}
    specs.update({spec: spec for spec in args.spec})
    budgets = [int(b) for b in args.budgets.split(",")]
    immediate = sum(r["immediate"] for r in positions)
    print(f"{len(positions)} positions ({immediate} won by the first move itself); {per_cell(positions)}")
    print(f"{'bot':<14} {'iters':>6}  {'solved [95% CI]':<24} {'by players (2/3/4/5)':<28}"
          f" multi-move  seconds  {'republic':<22} {'imperium':<22}")
    for name, spec in specs.items():
        for n in budgets:
            start = time.time()
            hits = solved(spec.format(n=n), positions, args.seed)
            by_players, by_mode = defaultdict(list), defaultdict(list)
            for row, hit in zip(positions, hits, strict=True):
                by_players[row["num_players"]].append(hit)
                by_mode[row["mode"]].append(hit)
            shares = "/".join(f"{100 * sum(v) / len(v):.0f}" for _, v in sorted(by_players.items()))
            multi = [hit for row, hit in zip(positions, hits, strict=True) if not row["immediate"]]
            print(f"{name:<14} {n:>6}  {describe(hits):<24} {shares:<28}"
                  f" {100 * sum(multi) / max(1, len(multi)):5.1f}%"
                  f"  {time.time() - start:7.0f}  {describe(by_mode['republic']):<22}"
                  f" {describe(by_mode['imperium']):<22}", flush=True)


if __name__ == "__main__":
    main()
