"""Sequential testing of an Elo hypothesis: :class:`SPRT` on win/draw/loss counts,
:func:`sprt_decide` over a stream of scores, and :class:`DealSPRT`, the test over the
whole deals of a head-to-head run that stops it once decided (``run(..., stop=...)``)."""
# Every bad input raises ValueError, wrong types included.
# ruff: noqa: TRY004
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from scipy import optimize

from ...arena.plan import RunConfig
from .. import AnalysisError
from ._checks import checked_count, checked_real
from .intervals import score_from_elo

__all__ = ["SPRT", "DealSPRT", "sprt_decide"]

Decision = Literal["H0", "H1"]

# ---------------------------------------------------------------------------
# SPRT
# ---------------------------------------------------------------------------

_OUTCOMES = (0.0, 0.5, 1.0)  # loss, draw, win
_EMPTY_CELL = 1e-3  # pseudo-count replacing an outcome that has not occurred


def _log_constrained_mle(freq: tuple[float, float, float], s: float) -> float:
    """``sum_k f_k * log(1 + theta * (a_k - s))`` at the constrained MLE.

    The maximum-likelihood trinomial with mean score ``s`` has probabilities
    ``p_k = f_k / (1 + theta * (a_k - s))`` (a Lagrange multiplier); ``theta``
    solves ``sum_k f_k (a_k - s) / (1 + theta (a_k - s)) = 0`` on the interval
    where every denominator is positive, on which that sum is decreasing.
    The returned value is ``sum f log f - sum f log p``.
    """
    u = [a - s for a in _OUTCOMES]

    def g(t: float) -> float:
        return sum(f * uk / (1.0 + t * uk) for f, uk in zip(freq, u, strict=True))

    g0 = g(0.0)
    if g0 == 0.0:
        return 0.0
    edge = 1.0 / s if g0 > 0 else -1.0 / (1.0 - s)  # where a denominator reaches 0
    eps = 0.1
    while eps > 1e-16 and (g(edge * (1.0 - eps)) > 0) == (g0 > 0):
        eps /= 10.0
    a, b = sorted((0.0, edge * (1.0 - eps)))
    theta = optimize.brentq(g, a, b, xtol=1e-14, rtol=1e-14)
    return sum(f * math.log1p(theta * uk) for f, uk in zip(freq, u, strict=True))


class SPRT:
    """Sequential probability ratio test of ``elo0`` (H0) against ``elo1`` (H1).

    Feed cumulative win/draw/loss counts of player A against player B to
    :meth:`update`; it returns ``"H1"`` (A is at least ``elo1`` stronger),
    ``"H0"`` (A is at most ``elo0`` stronger) or None (keep playing), with error
    rates about ``alpha`` (false H1) and ``beta`` (false H0).

    Log-likelihood ratio (the generalized SPRT on the trinomial model, the idea
    of M. Van den Bergh used by the Fishtest chess-engine framework): with n
    games and empirical frequencies f = (f_loss, f_draw, f_win) of the scores
    a = (0, 0.5, 1), let s_i = score_from_elo(elo_i) and let p^(i) be the
    maximum-likelihood trinomial distribution whose mean score is s_i.  Then

        LLR = n * sum_k f_k * log(p^(1)_k / p^(0)_k),

    where p^(i)_k = f_k / (1 + theta_i * (a_k - s_i)) and theta_i solves
    sum_k f_k (a_k - s_i) / (1 + theta_i (a_k - s_i)) = 0.  An outcome that has
    not occurred gets a pseudo-count of 0.001 so the test is defined from the
    first game; with no games LLR = 0.  For large n this agrees with the
    normal approximation LLR ~= n (s1 - s0)(2 x - s0 - s1) / (2 var).

    The test stops at ``llr >= upper = log((1 - beta) / alpha)`` (H1) or
    ``llr <= lower = log(beta / (1 - alpha))`` (H0).

    >>> sprt = SPRT(elo0=0, elo1=50)
    >>> round(sprt.lower, 3), round(sprt.upper, 3)
    (-2.944, 2.944)
    >>> sprt.update(60, 0, 40), round(sprt.llr, 2)
    (None, 1.85)
    >>> sprt.update(120, 0, 80), round(sprt.llr, 2)
    ('H1', 3.69)
    """

    def __init__(self, elo0: float = 0.0, elo1: float = 10.0,
                 alpha: float = 0.05, beta: float = 0.05) -> None:
        self.elo0 = checked_real(elo0, "elo0")
        self.elo1 = checked_real(elo1, "elo1")
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 ({elo0}) must be less than elo1 ({elo1})")
        self.alpha = checked_real(alpha, "alpha")
        self.beta = checked_real(beta, "beta")
        if not (0 < self.alpha < 1 and 0 < self.beta < 1):
            raise ValueError("alpha and beta must be strictly between 0 and 1")
        if self.alpha + self.beta >= 1:
            raise ValueError("alpha + beta must be less than 1")
        self._s0 = score_from_elo(self.elo0)
        self._s1 = score_from_elo(self.elo1)
        if not (0.0 < self._s0 and self._s1 < 1.0):
            raise ValueError("elo0 and elo1 are too extreme: their expected scores round to 0 or 1")
        self._counts = (0.0, 0.0, 0.0)
        self._llr = 0.0

    @property
    def lower(self) -> float:
        """H0 bound ``log(beta / (1 - alpha))``."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """H1 bound ``log((1 - beta) / alpha)``."""
        return math.log((1.0 - self.beta) / self.alpha)

    @property
    def llr(self) -> float:
        """Log-likelihood ratio of H1 to H0 at the last update."""
        return self._llr

    @staticmethod
    def llr_of(wins: float, draws: float, losses: float, s0: float, s1: float) -> float:
        """The LLR (see the class docstring) for counts and expected scores s0 < s1."""
        n = wins + draws + losses
        if n == 0:
            return 0.0
        cells = [c if c > 0 else _EMPTY_CELL for c in (losses, draws, wins)]
        total = sum(cells)
        freq = (cells[0] / total, cells[1] / total, cells[2] / total)
        return n * (_log_constrained_mle(freq, s0) - _log_constrained_mle(freq, s1))

    def update(self, wins: float, draws: float, losses: float) -> Decision | None:
        """Set the cumulative counts; return ``"H0"``, ``"H1"`` or None (continue).

        Counts must be non-negative and may not decrease between updates.
        """
        counts = (checked_count(wins, "wins"), checked_count(draws, "draws"), checked_count(losses, "losses"))
        if any(new < old for new, old in zip(counts, self._counts, strict=True)):
            raise ValueError(
                f"counts are cumulative and cannot decrease: {self._counts} -> {counts}"
            )
        self._counts = counts
        self._llr = self.llr_of(*counts, self._s0, self._s1)
        if self._llr >= self.upper:
            return "H1"
        if self._llr <= self.lower:
            return "H0"
        return None


def sprt_decide(
    results: Iterable[float],
    elo0: float = 0.0,
    elo1: float = 10.0,
    alpha: float = 0.05,
    beta: float = 0.05,
) -> tuple[Decision | None, int]:
    """Run an :class:`SPRT` over a stream of per-game scores (1, 0.5 or 0).

    Stops at the first decision and returns ``(decision, games_used)``; if the
    stream ends first, returns ``(None, games_seen)``.

    >>> sprt_decide([1, 1, 0, 1] * 50, elo0=0, elo1=50)
    ('H1', 46)
    """
    test = SPRT(elo0, elo1, alpha, beta)
    w = d = l_ = 0
    used = 0
    for k, s in enumerate(results):
        score = checked_real(s, f"results[{k}]")
        if score == 1.0:
            w += 1
        elif score == 0.5:
            d += 1
        elif score == 0.0:
            l_ += 1
        else:
            raise ValueError(f"results[{k}] must be 1, 0.5 or 0, got {s!r}")
        used += 1
        decision = test.update(w, d, l_)
        if decision is not None:
            return decision, used
    return None, used


def _share_of(record: Mapping[str, Any], spec: str) -> float:
    """The share of the win of ``spec``'s seats in one game (a win shared by k is 1/k)."""
    winners = record["winners"]
    if not winners:
        return 0.0
    seats = record["seats"]
    return sum(1.0 for s in winners if seats[s] == spec) / len(winners)


class DealSPRT:
    """The :class:`SPRT` of a head-to-head run, over whole deals in deal order.

    Games are fed in any order (:meth:`add`); the test advances deal by deal (0, 1, 2, ...)
    as each deal has all its games, so the decision and the games it used do not depend on
    scheduling. It is the stopping rule that ``glory_ai.arena.run(config, stop=...)`` takes:
    :meth:`add` returns the decision (``"H0"``, ``"H1"``) once made, else None.
    """

    def __init__(self, specs: Sequence[str], games_per_deal: int,
                 params: Sequence[float]) -> None:
        self.a, self.b = specs
        self.games_per_deal = games_per_deal
        self.params = tuple(float(x) for x in params)
        self.test = SPRT(*self.params)
        self.pending: dict[int, list[Mapping[str, Any]]] = {}
        self.next_deal = 0
        self.counts = [0.0, 0.0, 0.0]      # wins, draws, losses of a against b
        self.decision: str | None = None
        self.games = 0

    @classmethod
    def for_config(cls, config: RunConfig) -> DealSPRT:
        """The test a run config asks for (``config.sprt``: elo0, elo1, alpha, beta)."""
        if config.sprt is None:
            raise AnalysisError(f"the config has no SPRT: {config.describe()}")
        return cls(config.specs, config.games_per_deal, config.sprt)

    def add(self, records: Iterable[Mapping[str, Any]]) -> str | None:
        """Take finished games (in any order); return the decision once made, else None."""
        for rec in records:
            self.pending.setdefault(rec["deal"], []).append(rec)
        while self.decision is None and len(self.pending.get(self.next_deal, ())) >= self.games_per_deal:
            for rec in self.pending.pop(self.next_deal):
                share = _share_of(rec, self.a)
                self.counts[0 if share == 1.0 else 1 if share == 0.5 else 2] += 1
                self.games += 1
            self.next_deal += 1
            self.decision = self.test.update(*self.counts)
        return self.decision

    def deals(self) -> int:
        """Whole deals counted so far."""
        return self.next_deal

    def to_dict(self) -> dict[str, Any]:
        elo0, elo1, alpha, beta = self.params
        return {
            "elo0": elo0, "elo1": elo1, "alpha": alpha, "beta": beta,
            "decision": self.decision, "games": self.games, "deals": self.next_deal,
            "llr": self.test.llr, "lower": self.test.lower, "upper": self.test.upper,
            "wins": self.counts[0], "draws": self.counts[1], "losses": self.counts[2],
            "a": self.a, "b": self.b,
        }

    def describe(self) -> str:
        d = self.to_dict()
        head = (f"SPRT elo0={d['elo0']:g} elo1={d['elo1']:g} alpha={d['alpha']:g} "
                f"beta={d['beta']:g}: ")
        if self.decision == "H1":
            verdict = f"H1 accepted ({self.a} is at least {d['elo1']:g} Elo stronger than {self.b})"
        elif self.decision == "H0":
            verdict = f"H0 accepted ({self.a} is at most {d['elo0']:g} Elo stronger than {self.b})"
        else:
            verdict = "undecided"
        return (f"{head}{verdict} after {self.games} games ({self.next_deal} deals), "
                f"LLR {d['llr']:.2f} in [{d['lower']:.2f}, {d['upper']:.2f}]")
