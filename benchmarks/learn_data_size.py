"""How the learned evaluation's held-out log loss depends on the amount of self-play data:
positions sampled per game (free: the games are replayed, not played again) and games.

    python3 benchmarks/learn_data_size.py results/learned_evaluation/gen-1/selfplay-2p \\
        results/learned_evaluation/gen-2/selfplay-2p --positions 4 8 16 32 --fractions 0.25 0.5 1

Every fit is scored on the same held-out positions: those of the held-out deals (a fifth,
drawn with --seed) at the largest --positions, so the figures compare directly. Prints one
line per (positions, share of the training deals): training positions, the C that the
cross-validation picked, the held-out log loss of the linear model (with the balanced
prior) and of the balanced style calibrated on the same training positions. With
``--mlp`` an MLP of that shape is fitted too.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from glory_ai.arena import load_records
from glory_ai.bots.models import style_weights
from glory_ai.learn.fitting import (
    Dataset,
    TrainConfig,
    choose_c,
    fit_linear,
    fit_mlp,
    fit_temperature,
    position_log_loss,
    split,
    style_logits,
)
from glory_ai.learn.fitting import _forward as forward
from glory_ai.learn.shards import positions_of


def dataset(folders: list[Path], positions: int) -> Dataset:
    feats, shares, counts, deals, starts = [], [], [], [], []
    offset = 0
    for s, folder in enumerate(folders):
        root = json.loads((folder / "selfplay.json").read_text())["run"]["seed"]
        records = sorted(load_records(folder / "games"),
                         key=lambda r: (r["deal"], r["pairing"], r["rotation"]))
        for record in records:
            part = positions_of(record, root, positions)
            if part is None:
                continue
            feats.append(part["features"].astype(np.float64))
            shares.append(part["win_share"].astype(np.float64))
            counts.append(part["num_players"].astype(np.int64))
            deals.append(part["deal"].astype(np.int64) + s * 10**9)
            starts.append(np.flatnonzero(part["player"] == 0) + offset)
            offset += len(part["features"])
    return Dataset(np.concatenate(feats), np.concatenate(shares), np.concatenate(counts),
                   np.concatenate(deals), np.concatenate(starts).astype(np.int64))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, help="self-play folders")
    parser.add_argument("--positions", nargs="+", type=int, default=[4, 8, 16, 32])
    parser.add_argument("--fractions", nargs="+", type=float, default=[0.25, 0.5, 1.0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--mlp", nargs="*", type=int, default=None, metavar="UNITS")
    args = parser.parse_args()
    densest = dataset(args.folders, max(args.positions))
    _, held = split(densest, 0.2, args.seed)
    held_deals = set(np.unique(held.deal).tolist())
    prior = style_weights("balanced")
    print(f"held out: {held.positions} positions of {len(held_deals)} deals")
    print("positions/game  train-share  train-positions  C       linear   style(cal)" +
          ("   mlp" if args.mlp is not None else ""))
    with threadpool_limits(limits=1):
        for positions in sorted(args.positions):
            data = dataset(args.folders, positions)
            train_all = data.take_positions(~np.isin(data.position_deals(), list(held_deals)))
            deals = np.random.default_rng(args.seed + 7).permutation(np.unique(train_all.deal))
            for fraction in args.fractions:
                kept = deals[:max(2, round(fraction * len(deals)))]
                train = train_all.take_positions(np.isin(train_all.position_deals(), kept))
                c = choose_c(train, prior, args.seed)
                weights, _ = fit_linear(train, c, prior)
                t = fit_temperature(style_logits(train), train)
                line = (f"{positions:14d}  {fraction:11.2f}  {train.positions:15d}  {c:<6g}  "
                        f"{position_log_loss(held.features @ weights, held):.4f}   "
                        f"{position_log_loss(style_logits(held) * t, held):.4f}")
                if args.mlp is not None:
                    config = TrainConfig(shards=(), seed=args.seed, hidden=tuple(args.mlp or [32]),
                                         epochs=15, alpha=0.1)
                    fit = fit_mlp(train, config)
                    logits = forward(fit.layers, (held.features - fit.mean) / fit.scale)
                    line += f"   {position_log_loss(logits, held):.4f}"
                print(line, flush=True)


if __name__ == "__main__":
    main()
