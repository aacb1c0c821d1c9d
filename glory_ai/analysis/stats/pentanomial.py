"""A head-to-head match in pairs of games: every deal is played in both seatings, so the
two games of a deal are one unit (docs/statistics.md).

=====================================  ==========================================================
:func:`head_to_head_games`             A's score in each game of A against B, with its pair id
:func:`pentanomial`                    counts of the five pair scores of A (LL ... WW)
:func:`trinomial`                      counts of losses, draws, wins (the independent-games view)
:func:`paired_estimate`                A's score, logistic and normalized Elo, 95% intervals from
                                       the pentanomial variance
:func:`head_to_head`                   the paired and the independent estimate and the test of
                                       "evenly matched" for two specs' 2-player games (compare's
                                       head-to-head row)
=====================================  ==========================================================
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .. import AnalysisError
from .frames import by_game, need_columns, texts, unit_keys
from .intervals import (
    CONFIDENCE,
    INTERVAL_DEAL_T,
    INTERVAL_PENTANOMIAL,
    MODEL_DEAL_T,
    MODEL_PENTANOMIAL,
    Estimate,
    estimate_from_counts,
    independent_estimate,
    mean_test,
)

__all__ = [
    "HeadToHead", "PAIR_SCORES", "PENTANOMIAL_CELLS", "Pentanomial", "head_to_head",
    "head_to_head_games", "head_to_head_of_games", "paired_estimate", "pentanomial", "trinomial",
]

#: A's score per game in each pentanomial cell (the pair's score divided by 2)
PAIR_SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
#: the pentanomial cells, by A's score over the two games of a deal
PENTANOMIAL_CELLS = ("LL", "LD+DL", "DD+WL+LW", "WD+DW", "WW")


def head_to_head_games(frame: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """A's result in every 2-player game between specs ``a`` and ``b``, one row per game
    (index ``game``): ``pair`` (an id shared by the games of one deal of one pairing of one
    run: the unit of :func:`pentanomial`), ``deal``, ``rotation``, ``seat`` (A's seat) and
    ``score`` (1 for a win, ½ for a shared win, 0 for a loss)."""
    need_columns(frame, ["game", "seat", "spec", "win_share", "num_players", "deal"], "head_to_head_games")
    if a == b:
        raise AnalysisError(f"head_to_head_games: a and b are the same spec ({a!r})")
    two = by_game(frame[frame["num_players"] == 2])
    spec = texts(two["spec"])
    if len(spec) % 2 or (two["game"].to_numpy()[::2] != two["game"].to_numpy()[1::2]).any():
        raise AnalysisError("head_to_head_games: every seat of every game must be in the frame "
                            "(rows of a game were filtered out?)")
    first, second = spec[::2], spec[1::2]
    in_seat0 = (first == a) & (second == b)
    in_seat1 = (first == b) & (second == a)
    keep = np.repeat(in_seat0 | in_seat1, 2)
    if not keep.any():
        raise AnalysisError(f"head_to_head_games: no 2-player game between {a!r} and {b!r} "
                            f"(specs here: {', '.join(sorted(map(str, frame['spec'].unique())))})")
    rows = two[keep]
    mine_first = np.repeat(in_seat0[in_seat0 | in_seat1], 2)
    mine = rows[mine_first == (rows["seat"].to_numpy() == 0)]
    theirs = rows[mine_first != (rows["seat"].to_numpy() == 0)]
    share = mine["win_share"].to_numpy(float)
    total = share + theirs["win_share"].to_numpy(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        score = np.where(total > 0, share / total, 0.5)        # no winner recorded: a draw
    return pd.DataFrame({"pair": unit_keys(mine, ["run", "pairing", "deal"]),
                         "deal": mine["deal"].to_numpy(np.int64),
                         "rotation": mine["rotation"].to_numpy(np.int64) if "rotation" in mine
                         else np.zeros(len(mine), np.int64),
                         "seat": mine["seat"].to_numpy(np.int64), "score": score},
                        index=pd.Index(mine["game"].to_numpy(), name="game"))


@dataclass(frozen=True)
class Pentanomial:
    """Counts of A's score over the two games of a deal, in the order of
    :data:`PENTANOMIAL_CELLS` (LL, LD+DL, DD+WL+LW, WD+DW, WW), and the games left out
    because their deal's pair is incomplete."""

    counts: tuple[int, int, int, int, int]
    unpaired_games: int = 0

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    @property
    def score(self) -> float:
        """A's mean score per game over the complete pairs (NaN without pairs)."""
        n = self.pairs
        return float(np.dot(self.counts, PAIR_SCORES) / n) if n else math.nan


def _scores(scores: Any, what: str) -> np.ndarray:
    s = np.asarray(scores, dtype=float).ravel()
    if not np.isin(s, (0.0, 0.5, 1.0)).all():
        bad = s[~np.isin(s, (0.0, 0.5, 1.0))][:3].tolist()
        raise AnalysisError(f"{what}: a game's score must be 0, 0.5 or 1, got {bad}")
    return s


def pentanomial(pairs: Any, scores: Any) -> Pentanomial:
    """The pentanomial counts of A's results: ``pairs`` holds for every game the id of its
    pair (the deal; :func:`head_to_head_games` gives one per deal, pairing and run) and
    ``scores`` A's score in it (0, ½ or 1).

    A pair must have two games (one per seat). A deal with a single game — a run
    interrupted between the two games of a deal — is left out of the counts and counted in
    ``unpaired_games``: keeping its one game would weigh one seat of that deal without the
    other, the imbalance pairing exists to remove. A pair with more than two games is an
    error (two runs or pairings given the same pair ids).

    >>> p = pentanomial([0, 0, 1, 1, 2, 2, 3], [1, 0, 1, 1, 0.5, 1, 0])
    >>> p.counts, p.unpaired_games, p.score
    ((0, 0, 1, 1, 1), 1, 0.75)
    """
    s = _scores(scores, "pentanomial")
    ids = np.asarray(pairs).ravel()
    if ids.shape != s.shape:
        raise AnalysisError(f"pentanomial: {len(ids)} pair ids for {len(s)} scores")
    _, inverse = np.unique(ids, return_inverse=True)
    games = np.bincount(inverse)
    if (games > 2).any():
        bad = np.unique(ids)[games > 2][:3].tolist()
        raise AnalysisError(f"pentanomial: pairs {bad} have more than two games (give the "
                            "games of one pairing of one run, or ids that tell them apart)")
    doubled = np.rint(np.bincount(inverse, weights=2.0 * s)).astype(np.int64)
    cells = np.bincount(doubled[games == 2], minlength=5)
    counts = tuple(int(c) for c in cells)
    return Pentanomial(counts=(counts[0], counts[1], counts[2], counts[3], counts[4]),
                       unpaired_games=int(games[games == 1].sum()))


def trinomial(scores: Any) -> tuple[int, int, int]:
    """Losses, draws (shared wins) and wins of A: the games taken one by one.

    >>> trinomial([1, 0, 0.5, 1])
    (1, 1, 2)
    """
    s = _scores(scores, "trinomial")
    return int((s == 0).sum()), int((s == 0.5).sum()), int((s == 1).sum())


def paired_estimate(counts: Pentanomial | Sequence[float], confidence: float = CONFIDENCE
                    ) -> Estimate:
    """A's score per game with the interval of the pentanomial model: the mean of the pair
    scores ± t · sqrt(per-pair variance / pairs), the pairs being independent where games
    are not (variance with n - 1, t the Student quantile on n - 1 degrees of freedom),
    clipped to [0, 1]; when every pair fell in one cell, the exact bound of
    :func:`~.intervals.interval_arrays`. Logistic Elo maps the score
    and its bounds; normalized Elo divides the distance from ½ by the per-game standard
    deviation sqrt(2 · per-pair variance), with that deviation taken as known.

    >>> e = paired_estimate([10, 20, 40, 20, 10])
    >>> round(e.score, 3), round(e.low, 3), round(e.high, 3), e.games
    (0.5, 0.445, 0.555, 200)
    >>> paired_estimate([0, 0, 0, 0, 10]).elo, round(paired_estimate([0, 0, 0, 0, 10]).elo_low)
    (inf, 140)
    """
    c = np.asarray(counts.counts if isinstance(counts, Pentanomial) else counts, dtype=float)
    if c.shape != (5,) or (c < 0).any():
        raise AnalysisError(f"paired_estimate needs five non-negative counts, got {counts!r}")
    return estimate_from_counts(PAIR_SCORES, c, 2.0, int(round(2 * c.sum())), confidence, MODEL_PENTANOMIAL)


# ---- head to head ------------------------------------------------------------------------------

def _flip(e: Estimate) -> Estimate:
    """The same estimate from the other player's side."""
    return Estimate(1.0 - e.score, 1.0 - e.high, 1.0 - e.low, -e.elo, -e.elo_high, -e.elo_low,
                    -e.nelo, -e.nelo_high, -e.nelo_low, e.games, e.model)


@dataclass(frozen=True)
class HeadToHead:
    """A's result against B in their 2-player games: the pentanomial counts, A's score with
    the interval of the paired model (``estimate``; ``interval`` names it), the same from the
    games taken as independent (``independent``, Wilson), the p-value of "evenly matched"
    (the t-test that agrees with the interval) and A's wins, draws and losses."""

    a: str
    b: str
    pentanomial: Pentanomial
    estimate: Estimate
    independent: Estimate
    p_value: float
    interval: str
    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def deals(self) -> int:
        """The deals behind the interval: complete pairs, or games when no deal was played
        in both seatings."""
        return self.pentanomial.pairs if self.interval == INTERVAL_PENTANOMIAL else self.games

    def flipped(self) -> HeadToHead:
        """B's view of the same games."""
        c = self.pentanomial.counts
        return HeadToHead(self.b, self.a, Pentanomial((c[4], c[3], c[2], c[1], c[0]),
                                                      self.pentanomial.unpaired_games),
                          _flip(self.estimate), _flip(self.independent), self.p_value,
                          self.interval, self.losses, self.draws, self.wins)


def head_to_head(frame: pd.DataFrame, a: str, b: str, confidence: float = CONFIDENCE) -> HeadToHead:
    """A against B over their 2-player games (:func:`head_to_head_games`): the pentanomial
    estimate of :func:`paired_estimate` and its t-test against ½ (:func:`mean_test` on the
    pair scores), with the Wilson interval of the games beside it. A run without seat
    rotation (one game per deal) has no pairs: its deals are single games, and the interval
    is the t interval of those games (:func:`mean_interval`, ``interval`` = "t over deals")."""
    games = head_to_head_games(frame, a, b)
    return head_to_head_of_games(a, b, games["pair"].to_numpy(), games["score"].to_numpy(), confidence)


def head_to_head_of_games(a: str, b: str, pairs: np.ndarray, scores: np.ndarray,
                          confidence: float = CONFIDENCE) -> HeadToHead:
    """:func:`head_to_head` from A's score in each game and the id of its pair (the
    columns ``pair`` and ``score`` of :func:`head_to_head_games`, in any order)."""
    counts = pentanomial(pairs, scores)
    losses, draws, wins = trinomial(scores)
    independent = independent_estimate(losses, draws, wins, confidence)
    if counts.pairs:
        estimate = paired_estimate(counts, confidence)
        p = mean_test(np.repeat(PAIR_SCORES, counts.counts))
        interval = INTERVAL_PENTANOMIAL
    else:
        estimate = estimate_from_counts(np.array([0.0, 0.5, 1.0]), [losses, draws, wins], 1.0,
                             losses + draws + wins, confidence, MODEL_DEAL_T)
        p = mean_test(scores)
        interval = INTERVAL_DEAL_T
    return HeadToHead(a, b, counts, estimate, independent, p, interval, wins, draws, losses)
