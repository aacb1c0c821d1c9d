"""Synthetic matches with known strengths and deal effects, to measure how often the
intervals of :mod:`glory_ai.analysis.stats.paired` cover the truth and how often its SPRT errs
(the calibration tests, ``benchmarks/calibration.py``, docs/statistics.md).

A deal favours one seat, as real deals do: in the models below every deal draws a seat
effect (a logit advantage of one seat, normal with standard deviation ``seat_sd``) and
optionally a spec effect (a deal that suits one strategy, ``spec_sd``), and each of its
rotations is played with the same effects. The truth (expected score, win share,
pentanomial probabilities) is computed from the model, not simulated.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from scipy import optimize, special, stats
from statsmodels.stats.proportion import proportion_confint

from . import paired
from .intervals import interval_arrays, z_value

__all__ = ["Field", "Match", "field_coverage", "match_coverage", "rerun_false_alarms", "sprt_errors"]

_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(48)      # for E[g(Z)], Z ~ N(0, 1)
_WEIGHTS = _WEIGHTS / _WEIGHTS.sum()


@dataclass(frozen=True)
class Match:
    """A 2-player match of A against B, each deal played twice with the seats swapped.
    In a game, a shared win (½ each) has probability ``draw``; otherwise A wins with
    probability expit(strength + e + s) in seat 0 and expit(strength + e - s) in seat 1,
    where the deal's seat effect s ~ N(0, seat_sd²) and spec effect e ~ N(0, spec_sd²)."""

    strength: float = 0.0
    seat_sd: float = 0.0
    spec_sd: float = 0.0
    draw: float = 0.05

    def _win_probabilities(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A's win probability in seat 0 and seat 1 on a grid of (seat, spec) effects, and
        the grid's weights."""
        seat = self.seat_sd * _NODES[:, None]
        spec = self.spec_sd * _NODES[None, :]
        weights = _WEIGHTS[:, None] * _WEIGHTS[None, :]
        return (special.expit(self.strength + spec + seat),
                special.expit(self.strength + spec - seat), weights)

    def pair_probabilities(self) -> np.ndarray:
        """The true pentanomial distribution (LL ... WW) of a deal."""
        first, second, weights = self._win_probabilities()
        out = np.zeros(5)
        d = self.draw
        games = [np.stack([(1 - d) * (1 - p), np.full_like(p, d), (1 - d) * p]) for p in
                 (first, second)]                              # (3 outcomes, grid)
        for x in range(3):
            for y in range(3):
                out[x + y] += float((games[0][x] * games[1][y] * weights).sum())
        return out

    def score(self) -> float:
        """A's expected score per game."""
        return float(np.dot(self.pair_probabilities(), paired.PAIR_SCORES))

    def nelo(self) -> float:
        """The true normalized Elo of the pentanomial model."""
        p = self.pair_probabilities()
        mean = float(np.dot(p, paired.PAIR_SCORES))
        var = float(np.dot(p, (paired.PAIR_SCORES - mean) ** 2))
        return (mean - 0.5) / np.sqrt(2.0 * var) * paired.NELO_PER_T

    def with_score(self, score: float) -> Match:
        """The same match with A's strength set so that its expected score is ``score``."""
        return replace(self, strength=optimize.brentq(
            lambda x: replace(self, strength=x).score() - score, -20.0, 20.0, xtol=1e-13))

    def with_nelo(self, nelo: float) -> Match:
        """The same match with A's strength set so that the true normalized Elo is ``nelo``."""
        return replace(self, strength=optimize.brentq(
            lambda x: replace(self, strength=x).nelo() - nelo, -20.0, 20.0, xtol=1e-13))

    def play(self, deals: int, runs: int, rng: np.random.Generator) -> np.ndarray:
        """A's scores, shape (runs, deals, 2): per deal the game with A in seat 0, then in
        seat 1."""
        seat = rng.normal(0.0, 1.0, (runs, deals, 1)) * self.seat_sd * np.array([1.0, -1.0])
        spec = rng.normal(0.0, 1.0, (runs, deals, 1)) * self.spec_sd
        win = rng.random((runs, deals, 2)) < special.expit(self.strength + spec + seat)
        shared = rng.random((runs, deals, 2)) < self.draw
        return np.where(shared, 0.5, win.astype(float))


@dataclass(frozen=True)
class Field:
    """A k-player field of k specs, each deal played in k rotations (spec i in seat
    (i + r) mod k). The winner of a game is drawn with probability proportional to
    exp(strength of the spec + the deal's effect of the seat + the deal's effect of the
    spec), seat effects ~ N(0, seat_sd²) and spec effects ~ N(0, spec_sd²) per deal."""

    strengths: tuple[float, ...] = (0.5, 0.0, -0.5)
    seat_sd: float = 0.0
    spec_sd: float = 0.0

    def _probabilities(self, seat: np.ndarray, spec: np.ndarray) -> np.ndarray:
        """P(spec i wins) in every rotation: (..., rotations, specs)."""
        k = len(self.strengths)
        rotation = (np.arange(k)[None, :] + np.arange(k)[:, None]) % k      # [r, i] -> seat
        logits = np.asarray(self.strengths) + spec[..., None, :] + seat[..., rotation]
        return special.softmax(logits, axis=-1)

    def win_shares(self, samples: int = 400_000, seed: int = 12345) -> np.ndarray:
        """The true expected win share of every spec (the mean over deal effects of the
        conditional win probabilities; sampling error below 1e-3)."""
        rng = np.random.default_rng(seed)
        k = len(self.strengths)
        seat = rng.normal(0.0, self.seat_sd, (samples, k))
        spec = rng.normal(0.0, self.spec_sd, (samples, k))
        return self._probabilities(seat, spec).mean(axis=(0, 1))

    def play(self, deals: int, runs: int, rng: np.random.Generator) -> np.ndarray:
        """Wins of every spec in every deal over its k rotations: (runs, deals, specs)."""
        k = len(self.strengths)
        seat = rng.normal(0.0, self.seat_sd, (runs, deals, k))
        spec = rng.normal(0.0, self.spec_sd, (runs, deals, k))
        prob = self._probabilities(seat, spec)                          # (runs, deals, k, k)
        gumbel = -np.log(-np.log(rng.random(prob.shape)))
        winner = np.argmax(np.log(prob) + gumbel, axis=-1)               # (runs, deals, rot)
        return (winner[..., None] == np.arange(k)).sum(axis=-2).astype(float)


def match_coverage(model: Match, deals: int, runs: int, seed: int = 0,
                   confidence: float = paired.CONFIDENCE) -> dict[str, float]:
    """Share of ``runs`` simulated matches of ``deals`` deals whose interval for A's score
    covers the truth: ``paired`` (:func:`paired.paired_estimate`'s pentanomial interval)
    and ``independent`` (Wilson on games), with their mean widths."""
    rng = np.random.default_rng(seed)
    scores = model.play(deals, runs, rng)
    cells = np.rint(2.0 * scores.sum(axis=-1)).astype(np.int64)                # (runs, deals)
    counts = (cells[..., None] == np.arange(5)).sum(axis=1)
    z = z_value(confidence)
    _, low, high, _ = interval_arrays(paired.PAIR_SCORES, counts, z, 2.0)
    truth = model.score()
    total = scores.sum(axis=(1, 2))
    ind_low, ind_high = proportion_confint(total, 2 * deals, alpha=1.0 - confidence,
                                           method="wilson")
    return {"paired": float(np.mean((low <= truth) & (truth <= high))),
            "independent": float(np.mean((ind_low <= truth) & (truth <= ind_high))),
            "paired_width": float(np.mean(high - low)),
            "independent_width": float(np.mean(ind_high - ind_low)), "truth": truth}


def field_coverage(model: Field, deals: int, runs: int, seed: int = 0,
                   resamples: int = paired.BOOTSTRAP_RESAMPLES,
                   confidence: float = paired.CONFIDENCE) -> dict[str, float]:
    """Share of (run, spec) win-share intervals covering the true win share, over ``runs``
    simulated fields of ``deals`` deals: ``bootstrap`` (:func:`paired.bootstrap_rates`, the
    deal bootstrap) and ``independent`` (Wilson on seat-games), with their mean widths."""
    rng = np.random.default_rng(seed)
    wins = model.play(deals, runs, rng)
    k = len(model.strengths)
    games = np.full(wins.shape[1:], float(k))
    truth = model.win_shares()
    boot = np.empty((runs, k, 2))
    for run in range(runs):
        boot[run] = np.stack(paired.bootstrap_rates(wins[run], games, resamples, seed=run,
                                                    confidence=confidence), axis=-1)
    ind_low, ind_high = proportion_confint(wins.sum(axis=1), k * deals, alpha=1.0 - confidence,
                                           method="wilson")
    covered = (boot[..., 0] <= truth) & (truth <= boot[..., 1])
    return {"bootstrap": float(covered.mean()),
            "independent": float(np.mean((ind_low <= truth) & (truth <= ind_high))),
            "bootstrap_width": float(np.mean(boot[..., 1] - boot[..., 0])),
            "independent_width": float(np.mean(ind_high - ind_low))}


#: the SPRT harness computes the exact LLR at every step of the first deals, and later only
#: where a closed-form approximation comes within this much of a bound
SCREEN_DEALS = 20
SCREEN_MARGIN = 1.0


def _approximate_llr(counts: np.ndarray, elo0: float, elo1: float,
                     elo_model: paired.EloModel) -> np.ndarray:
    """Van den Bergh's closed-form approximations of the LLR (fishtest's ``LLR_normalized_alt``
    and ``LLR_alt2`` formulas): within a few tenths of the exact value on these matches."""
    k = counts.shape[-1]
    a = np.linspace(0.0, 1.0, k)
    c = np.where(counts > 0, counts, 1e-3).astype(float)
    n = c.sum(axis=-1)
    f = c / n[..., None]
    mean = (f * a).sum(axis=-1)
    var = (f * (a - mean[..., None]) ** 2).sum(axis=-1)
    if elo_model == "normalized":
        per_game = 2.0 if k == 5 else 1.0
        nt = (mean - 0.5) / np.sqrt(per_game * var)
        t0, t1 = elo0 / paired.NELO_PER_T, elo1 / paired.NELO_PER_T
        return per_game * n / 2.0 * np.log((1 + (nt - t0) ** 2) / (1 + (nt - t1) ** 2))
    s0, s1 = (1.0 / (1.0 + 10.0 ** (-e / 400.0)) for e in (elo0, elo1))
    return n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)


def sprt_errors(model: Match, elo0: float, elo1: float, runs: int, seed: int = 0,
                alpha: float = 0.05, beta: float = 0.05, elo_model: paired.EloModel = "normalized",
                cells: int = 5, max_deals: int = 20_000, block: int = 32,
                screen: bool = True) -> dict[str, float]:
    """Run ``runs`` SPRTs (:func:`paired.llr`) on simulated matches, the LLR updated after
    every deal (both its games), and return the shares of runs that accepted H1 and H0,
    the undecided share (still running after ``max_deals``) and the mean number of deals.
    ``cells`` = 5: the pentanomial model over pairs; 3: the trinomial model over games
    taken as independent. With ``screen``, steps where the closed-form approximation is
    more than :data:`SCREEN_MARGIN` inside both bounds (after :data:`SCREEN_DEALS` deals)
    are taken as not crossing without computing the exact LLR (a test checks that this
    changes no decision)."""
    rng = np.random.default_rng(seed)
    lower, upper = paired.sprt_bounds(alpha, beta)
    active = np.arange(runs)
    counts = np.zeros((runs, cells), dtype=np.int64)
    decision = np.zeros(runs, dtype=np.int64)            # +1 H1, -1 H0, 0 undecided
    length = np.full(runs, max_deals)
    played = 0
    while active.size and played < max_deals:
        step = min(block, max_deals - played)
        scores = model.play(step, active.size, rng)                       # (active, step, 2)
        if cells == 5:
            new = np.eye(5, dtype=np.int64)[np.rint(2 * scores.sum(axis=-1)).astype(np.int64)]
        else:
            new = np.eye(3, dtype=np.int64)[np.rint(2 * scores).astype(np.int64)].sum(axis=2)
        path = counts[active, None, :] + np.cumsum(new, axis=1)           # (active, step, cells)
        values = np.zeros(path.shape[:2])
        exact = np.ones(path.shape[:2], dtype=bool)
        if screen:
            rough = _approximate_llr(path, elo0, elo1, elo_model)
            deal = played + 1 + np.arange(step)
            exact = (deal <= SCREEN_DEALS) | (rough >= upper - SCREEN_MARGIN) \
                | (rough <= lower + SCREEN_MARGIN)
        if exact.any():
            unique, inverse = np.unique(path[exact], axis=0, return_inverse=True)
            values[exact] = np.asarray(paired.llr(unique, elo0, elo1, elo_model))[inverse.ravel()]
        crossed = exact & ((values >= upper) | (values <= lower))
        first = np.where(crossed.any(axis=1), crossed.argmax(axis=1), -1)
        stopped = first >= 0
        rows = active[stopped]
        at = first[stopped]
        decision[rows] = np.where(values[stopped, at] >= upper, 1, -1)
        length[rows] = played + at + 1
        counts[active] = path[:, -1, :]
        active = active[~stopped]
        played += step
    return {"H1": float(np.mean(decision == 1)), "H0": float(np.mean(decision == -1)),
            "undecided": float(np.mean(decision == 0)), "deals": float(length.mean())}


def rerun_false_alarms(model: Match, deals: int, runs: int, seed: int = 0,
                       alpha: float = paired.RERUN_ALPHA,
                       confidence: float = paired.CONFIDENCE) -> dict[str, float]:
    """Play ``runs`` pairs of matches of the same model (a stored run and a correct re-run
    of ``deals`` deals each) and return how often each rule calls them different:
    ``test`` (:func:`paired.rerun_test` at ``alpha``) and ``outside_interval`` (the re-run's
    win rate outside the stored run's Wilson interval)."""
    rng = np.random.default_rng(seed)
    old = model.play(deals, runs, rng).mean(axis=-1)                 # per-deal scores
    new = model.play(deals, runs, rng).mean(axis=-1)
    # paired.rerun_test on every run at once: the same scipy test, vectorised over runs
    flagged = stats.ttest_ind(new, old, axis=1, equal_var=False).pvalue < alpha
    low, high = proportion_confint(old.sum(axis=1) * 2, 2 * deals, alpha=1.0 - confidence,
                                   method="wilson")
    rate = new.mean(axis=1)
    return {"test": float(flagged.mean()),
            "outside_interval": float(np.mean((rate < low) | (rate > high)))}
