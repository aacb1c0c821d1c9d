"""How the learned evaluation's held-out log loss depends on the amount of self-play data:
positions per game and games (deals).

    python3 benchmarks/learn_data_size.py SELFPLAY_DIR [SELFPLAY_DIR ...] \\
        --positions 2 4 8 16 --fractions 0.125 0.25 0.5 1

The self-play folders must have been sampled at the largest --positions (glory-ai selfplay
--positions P); fewer positions per game keep every k-th sampled position of each game, so
the smaller sets are subsets of the larger. Every fit is scored on the same held-out
positions: every position of a fifth of the deals (drawn with --seed). Prints one line per
(positions per game, share of the training deals): the training positions and the held-out
log loss of the linear model (balanced prior, C fixed by --C) and of the balanced style
calibrated on the same training positions; with --mlp, of an MLP too.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from glory_ai.bots.models import style_weights
from glory_ai.learn.fitting import (
    Dataset,
    TrainConfig,
    fit_linear,
    fit_mlp,
    fit_temperature,
    position_log_loss,
    split,
    style_logits,
)
from glory_ai.learn.fitting import _forward as forward
from glory_ai.learn.shards import shard_paths


def load(folders: list[Path]) -> tuple[Dataset, np.ndarray]:
    """The rows of the folders' shards, and per position its index within its game."""
    feats, shares, counts, deals, starts, index = [], [], [], [], [], []
    offset = 0
    for s, folder in enumerate(folders):
        for path in shard_paths(folder):
            with np.load(path) as shard:
                first = np.flatnonzero(shard["player"] == 0)
                games = shard["game_id"][first]
                new_game = np.r_[True, games[1:] != games[:-1]]
                game_start = np.maximum.accumulate(np.where(new_game, np.arange(len(first)), 0))
                index.append(np.arange(len(first)) - game_start)
                feats.append(shard["features"].astype(np.float64))
                shares.append(shard["win_share"].astype(np.float64))
                counts.append(shard["num_players"].astype(np.int64))
                deals.append(shard["deal"].astype(np.int64) + s * 10**9)
                starts.append(first + offset)
                offset += len(shard["player"])
    data = Dataset(np.concatenate(feats), np.concatenate(shares), np.concatenate(counts),
                   np.concatenate(deals), np.concatenate(starts).astype(np.int64))
    return data, np.concatenate(index)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, help="self-play folders")
    parser.add_argument("--positions", nargs="+", type=int, default=[2, 4, 8, 16])
    parser.add_argument("--fractions", nargs="+", type=float, default=[0.125, 0.25, 0.5, 1.0])
    parser.add_argument("--C", type=float, default=0.01, help="inverse L2 strength of the linear model")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--mlp", nargs="*", type=int, default=None, metavar="UNITS")
    args = parser.parse_args()
    data, index = load(args.folders)
    most = int(index.max()) + 1
    train_all, held = split(data, 0.2, args.seed)
    train_index = index[~np.isin(data.position_deals(), np.unique(held.deal))]
    prior = style_weights("balanced")
    print(f"held out: {held.positions} positions of {len(np.unique(held.deal))} deals; "
          f"sampled {most} positions a game")
    print("positions/game  train-share  train-positions  linear   style(cal)" +
          ("   mlp" if args.mlp is not None else ""))
    deals = np.random.default_rng(args.seed + 7).permutation(np.unique(train_all.deal))
    with threadpool_limits(limits=1):
        for positions in sorted(args.positions):
            step = max(1, most // positions)
            for fraction in sorted(args.fractions):
                kept = deals[:max(2, round(fraction * len(deals)))]
                mask = np.isin(train_all.position_deals(), kept) & (train_index % step == 0)
                train = train_all.take_positions(mask)
                weights, _ = fit_linear(train, args.C, prior)
                t = fit_temperature(style_logits(train), train)
                line = (f"{most // step:14d}  {fraction:11.3f}  {train.positions:15d}  "
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
