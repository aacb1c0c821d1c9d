"""The SPRT that stops a head-to-head run: :class:`DealSPRT`, fishtest's generalized SPRT
(:func:`.paired.sprt`) over whole deals in deal order, the stopping rule that
``glory_ai.arena.run(config, stop=...)`` takes.

A deal played in both seatings is one pentanomial sample (the two games as one pair); a
run without seat rotation (one game per deal) feeds the trinomial model, its deals being
single games. The bounds ``elo0`` and ``elo1`` of ``RunConfig.sprt`` are normalized Elo
(docs/statistics.md)."""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...arena.plan import RunConfig
from .. import AnalysisError
from .gsprt import SPRTResult, model_name, sprt, sprt_bounds

__all__ = ["DealSPRT"]


def _score_of(record: Mapping[str, Any], spec: str) -> float:
    """``spec``'s score in a 2-player game: 1 for a win, ½ for a shared win (or a game
    without a winner), 0 for a loss."""
    winners = record["winners"]
    if not winners:
        return 0.5
    seats = record["seats"]
    return sum(1.0 for s in winners if seats[s] == spec) / len(winners)


class DealSPRT:
    """The SPRT of a head-to-head run, over whole deals in deal order.

    Games are fed in any order (:meth:`add`); the test advances deal by deal (0, 1, 2, ...)
    as each deal has all its games, so the decision and the games it used do not depend on
    scheduling. ``params`` are (elo0, elo1, alpha, beta): H0 "the first spec is at most
    ``elo0`` normalized Elo stronger" against H1 "at least ``elo1``", with error rates about
    ``alpha`` (false H1) and ``beta`` (false H0). :meth:`add` returns the decision (``"H0"``,
    ``"H1"``) once made, else None.

    >>> test = DealSPRT(["a", "b"], 2, (0, 50, 0.05, 0.05))
    >>> games = [{"deal": d, "seats": ["a", "b"] if r == 0 else ["b", "a"], "winners": [r]}
    ...          for d in range(40) for r in range(2)]           # a wins every game
    >>> test.add(games), test.deals(), test.to_dict()["counts"]
    ('H1', 17, [0, 0, 0, 0, 17])
    """

    def __init__(self, specs: Sequence[str], games_per_deal: int,
                 params: Sequence[float]) -> None:
        self.a, self.b = specs
        if games_per_deal not in (1, 2):
            raise AnalysisError(f"a head-to-head SPRT takes deals of one game or of two (both "
                                f"seatings), not {games_per_deal}")
        self.games_per_deal = games_per_deal
        self.params = tuple(float(x) for x in params)
        elo0, elo1, alpha, beta = self.params
        if not elo0 < elo1:
            raise AnalysisError(f"the SPRT needs elo0 < elo1, got {elo0:g} and {elo1:g}")
        lower, upper = sprt_bounds(alpha, beta)
        self.pending: dict[int, list[Mapping[str, Any]]] = {}
        self.next_deal = 0
        self.counts = [0] * (5 if games_per_deal == 2 else 3)   # pentanomial or L, D, W
        self.results = [0, 0, 0]                                 # A's losses, draws, wins
        self.state = SPRTResult(0.0, lower, upper, None, 0, elo0, elo1, alpha, beta,
                                model_name(len(self.counts), "normalized"))
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
            scores = [_score_of(rec, self.a) for rec in self.pending.pop(self.next_deal)]
            for score in scores:
                self.results[int(round(2 * score))] += 1
            self.games += len(scores)
            self.counts[int(round(2 * sum(scores)))] += 1
            self.next_deal += 1
            elo0, elo1, alpha, beta = self.params
            self.state = sprt(self.counts, elo0, elo1, alpha, beta)
            self.decision = self.state.decision
        return self.decision

    def deals(self) -> int:
        """Whole deals counted so far."""
        return self.next_deal

    def to_dict(self) -> dict[str, Any]:
        elo0, elo1, alpha, beta = self.params
        losses, draws, wins = self.results
        return {
            "elo0": elo0, "elo1": elo1, "alpha": alpha, "beta": beta, "model": self.state.model,
            "decision": self.decision, "games": self.games, "deals": self.next_deal,
            "llr": self.state.llr, "lower": self.state.lower, "upper": self.state.upper,
            "counts": list(self.counts), "wins": wins, "draws": draws, "losses": losses,
            "a": self.a, "b": self.b,
        }

    def describe(self) -> str:
        d = self.to_dict()
        head = (f"SPRT [{d['elo0']:g}, {d['elo1']:g}] normalized Elo, alpha={d['alpha']:g} "
                f"beta={d['beta']:g} ({d['model']} over whole deals): ")
        if self.decision == "H1":
            verdict = (f"H1 accepted ({self.a} is at least {d['elo1']:g} normalized Elo "
                       f"stronger than {self.b})")
        elif self.decision == "H0":
            verdict = (f"H0 accepted ({self.a} is at most {d['elo0']:g} normalized Elo "
                       f"stronger than {self.b})")
        else:
            verdict = "undecided"
        return (f"{head}{verdict} after {self.games} games ({self.next_deal} deals), "
                f"LLR {d['llr']:.2f} in [{d['lower']:.2f}, {d['upper']:.2f}]")
