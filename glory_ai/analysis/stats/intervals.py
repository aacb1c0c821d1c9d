"""Intervals of win rates and the logistic Elo scale.

* A *score* is a game's outcome from one side's point of view: 1 for a win, 0 for a loss and
  0.5 for a shared win (a draw). In multiplayer games a win shared by k players is worth 1/k
  to each of them.
* Elo numbers use the logistic model: a rating difference ``d`` predicts the score
  ``1 / (1 + 10 ** (-d / 400))``, so a 75% score is ``400 * log10(3) ~= 190.85`` Elo.

:func:`wilson_interval` (and :func:`wilson` for many rates at once), :func:`elo_from_score`
and :func:`score_from_elo`, and :func:`elo_interval` (an Elo difference from win/draw/loss
counts).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special

from ._checks import checked_count, checked_real, z_quantile

__all__ = ["ELO_PER_NAT", "elo_from_score", "elo_interval", "score_from_elo", "wilson",
           "wilson_interval"]

#: Elo points per natural-log unit of Bradley-Terry strength (400 / ln 10).
ELO_PER_NAT = 400.0 / math.log(10.0)


def wilson_interval(wins: float, games: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a win rate.

    ``wins`` may be fractional: a win shared between k players counts 1/k.
    With no games there is no information and the interval is ``(0.0, 1.0)``.

    Raises ValueError for negative counts, ``wins > games``, a non-integral
    number of games or a confidence outside (0, 1).

    >>> low, high = wilson_interval(50, 100)
    >>> round(low, 4), round(high, 4)
    (0.4038, 0.5962)
    >>> wilson_interval(0, 0)
    (0.0, 1.0)
    """
    w = checked_count(wins, "wins")
    n = checked_count(games, "games")
    if not n.is_integer():
        raise ValueError(f"games must be a whole number, got {games!r}")
    if w > n:
        raise ValueError(f"wins ({wins!r}) cannot exceed games ({games!r})")
    z = z_quantile(confidence)
    if n == 0:
        return (0.0, 1.0)
    p = w / n
    z2n = z * z / n
    centre = (p + z2n / 2.0) / (1.0 + z2n)
    half = z / (1.0 + z2n) * math.sqrt(p * (1.0 - p) / n + z2n / (4.0 * n))
    return (max(0.0, centre - half), min(1.0, centre + half))


def wilson(wins: Any, games: Any) -> tuple[np.ndarray, np.ndarray]:
    """Wilson 95% intervals (:func:`wilson_interval`) of many rates: arrays of the lower and
    upper bounds. Wins are clipped to [0, games] (a sum of shares may stray by a rounding
    error) and games rounded to whole numbers."""
    w = np.asarray(wins, dtype=float)
    g = np.asarray(games, dtype=float)
    low = np.empty(len(w))
    high = np.empty(len(w))
    for i, (wi, gi) in enumerate(zip(w.tolist(), g.tolist(), strict=True)):
        low[i], high[i] = wilson_interval(min(max(wi, 0.0), gi), int(round(gi)))
    return low, high


def elo_from_score(score: float) -> float:
    """Logistic Elo difference that predicts an expected ``score`` in [0, 1].

    A score of 0 or 1 maps to ``-math.inf`` or ``math.inf``.

    >>> round(elo_from_score(0.75), 2)
    190.85
    >>> elo_from_score(0.5), elo_from_score(1.0)
    (0.0, inf)
    """
    s = checked_real(score, "score")
    if not 0.0 <= s <= 1.0:
        raise ValueError(f"score must be in [0, 1], got {score!r}")
    if s == 0.0:
        return -math.inf
    if s == 1.0:
        return math.inf
    return float(special.logit(s)) * ELO_PER_NAT


def score_from_elo(diff: float) -> float:
    """Expected score for a logistic Elo difference (inverse of :func:`elo_from_score`).

    ``diff`` may be infinite.

    >>> round(score_from_elo(400 * math.log10(3)), 6)
    0.75
    >>> score_from_elo(0.0), score_from_elo(-math.inf)
    (0.5, 0.0)
    """
    if isinstance(diff, bool):
        raise ValueError("diff must be a number, not a bool")
    try:
        d = float(diff)
    except (TypeError, ValueError):
        raise ValueError(f"diff must be a number, got {diff!r}") from None
    if math.isnan(d):
        raise ValueError("diff must not be NaN")
    return float(special.expit(d / ELO_PER_NAT))


def elo_interval(
    wins: float, draws: float, losses: float, confidence: float = 0.95
) -> tuple[float, float, float]:
    """Elo difference and confidence interval from win/draw/loss counts.

    The per-game score (1, 0.5, 0) is treated as a trinomial variable; its mean
    ``x`` has standard error ``sqrt(var / n)`` with ``var`` the sample variance
    of the per-game scores.  The interval ``x +- z * se`` is clipped to [0, 1]
    and mapped through :func:`elo_from_score`, the normal approximation used
    by chess-engine testers.  Returns ``(elo, low, high)``; bounds are infinite
    when the interval reaches a score of 0 or 1 (e.g. all wins).

    Raises ValueError for negative counts or when there are no games.

    >>> elo, low, high = elo_interval(75, 0, 25)
    >>> round(elo, 1), round(low, 1), round(high, 1)
    (190.8, 119.2, 281.5)
    """
    w = checked_count(wins, "wins")
    d = checked_count(draws, "draws")
    l_ = checked_count(losses, "losses")
    z = z_quantile(confidence)
    n = w + d + l_
    if n == 0:
        raise ValueError("elo_interval needs at least one game")
    x = (w + 0.5 * d) / n
    var = (w * (1.0 - x) ** 2 + d * (0.5 - x) ** 2 + l_ * x**2) / n
    se = math.sqrt(var / n)
    low = min(1.0, max(0.0, x - z * se))
    high = min(1.0, max(0.0, x + z * se))
    return (elo_from_score(x), elo_from_score(low), elo_from_score(high))

