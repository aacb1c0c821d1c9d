"""The numbers every statistic of paired deals shares (docs/statistics.md): the confidence
level, the Elo scales, the names and texts of the interval models, and the estimates and
tests of independent units (deals, or pairs of games).

=====================================  ==========================================================
:class:`Estimate`                      a score with its interval, as logistic and normalized Elo
:func:`independent_estimate`           the estimate from games taken as independent (Wilson)
:func:`format_elo`, :func:`elo_text`   an Elo with its interval as text, a bound at 0% or 100%
:func:`wilson`                         Wilson intervals of many rates (games as independent)
:func:`mean_interval`,                 the t interval and t-test of independent units' values
:func:`mean_test`, :func:`welch_test`  (deals), and Welch's two-sample test
:func:`holm`                           Holm-adjusted p-values (statsmodels) and their label
=====================================  ==========================================================
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special, stats
from statsmodels.stats.proportion import proportion_confint

from .. import AnalysisError

__all__ = [
    "BOOTSTRAP_RESAMPLES", "CONFIDENCE", "ELO_PER_NAT", "Estimate", "HOLM_LABEL",
    "INTERVAL_BOOTSTRAP", "INTERVAL_DEAL_T", "INTERVAL_PENTANOMIAL", "INTERVAL_WILSON",
    "MODEL_DEAL_BOOTSTRAP", "MODEL_DEAL_T", "MODEL_INDEPENDENT", "MODEL_PENTANOMIAL", "MODEL_TEXT",
    "NELO_PER_T", "bootstrap_model", "elo_from_score", "elo_text", "estimate_from_counts",
    "format_elo", "holm", "independent_estimate", "interval_arrays", "mean_interval", "mean_test",
    "welch_test", "wilson", "z_value",
]

#: the confidence level of every interval here
CONFIDENCE = 0.95
#: deal-bootstrap resamples of :func:`~.bootstrap.win_shares` and :func:`~.ladder.ratings`
BOOTSTRAP_RESAMPLES = 2000
#: logistic Elo per natural-log unit of odds (400 / ln 10)
ELO_PER_NAT = 400.0 / math.log(10.0)
#: normalized Elo per unit of per-game t-value (800 / ln 10, as fishtest)
NELO_PER_T = 800.0 / math.log(10.0)
#: what :func:`holm` adjusts, for the tables to print beside every p-value
HOLM_LABEL = "Holm-adjusted"

#: short names of the interval models, kept in the ``interval`` column of a table; the
#: ``MODEL_*`` texts (:data:`MODEL_TEXT`) describe them in captions
INTERVAL_PENTANOMIAL = "pentanomial"
INTERVAL_BOOTSTRAP = "deal bootstrap"
INTERVAL_DEAL_T = "t over deals"
INTERVAL_WILSON = "Wilson (games as independent)"

MODEL_PENTANOMIAL = "pentanomial: the two games of a deal as one pair, t interval of the pair scores"
MODEL_INDEPENDENT = "independent games: Wilson score interval"
MODEL_DEAL_T = "deals as units: t interval of the per-deal means"


def bootstrap_model(resamples: int) -> str:
    """The text of the deal bootstrap's model with ``resamples`` resamples."""
    return f"deal bootstrap: {resamples} resamples of whole deals, expanded percentile"


MODEL_DEAL_BOOTSTRAP = bootstrap_model(BOOTSTRAP_RESAMPLES)
#: the long text of each short interval name
MODEL_TEXT = {INTERVAL_PENTANOMIAL: MODEL_PENTANOMIAL, INTERVAL_BOOTSTRAP: MODEL_DEAL_BOOTSTRAP,
              INTERVAL_DEAL_T: MODEL_DEAL_T, INTERVAL_WILSON: MODEL_INDEPENDENT}

def z_value(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise AnalysisError(f"confidence must be strictly between 0 and 1, got {confidence!r}")
    return float(stats.norm.ppf(0.5 + confidence / 2.0))


def elo_from_score(score: Any) -> Any:
    """Logistic Elo of an expected score (±inf at 0 and 1); works on arrays."""
    with np.errstate(divide="ignore"):
        return special.logit(np.asarray(score, dtype=float)) * ELO_PER_NAT


# ---- estimates -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Estimate:
    """A's expected score per game with its interval, and the same as logistic Elo and as
    normalized Elo (the score's distance from ½ in per-game standard deviations, times
    800 / ln 10, as fishtest). ``model`` names where the interval comes from."""

    score: float
    low: float
    high: float
    elo: float
    elo_low: float
    elo_high: float
    nelo: float
    nelo_low: float
    nelo_high: float
    games: int
    model: str


def interval_arrays(values: np.ndarray, counts: np.ndarray, z: float, per_game: float
                     ) -> tuple[np.ndarray, ...]:
    """Mean, low, high and per-game standard deviation from counts (..., K) of the outcome
    ``values`` (K,), each outcome an average of ``per_game`` games. A sample whose outcomes
    all fell in one cell c has no variance to estimate; its interval is then exact and
    conservative: the probability q of cell c is at least ((1 - confidence) / 2) ** (1 / n)
    (one-sided), so the mean lies between q * a_c and q * a_c + (1 - q)."""
    c = np.asarray(counts, dtype=float)
    n = c.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (c * values).sum(axis=-1) / n
        var = (c * (values - mean[..., None]) ** 2).sum(axis=-1) / n
        se = np.sqrt(var / np.maximum(n - 1.0, 1.0))
        # Student's t on n - 1 degrees of freedom: the variance is estimated from n samples
        t = stats.t.ppf(stats.norm.cdf(z), np.maximum(n - 1.0, 1.0))
        low = np.clip(mean - t * se, 0.0, 1.0)
        high = np.clip(mean + t * se, 0.0, 1.0)
        single = (c > 0).sum(axis=-1) == 1
        q = np.power(stats.norm.sf(z), 1.0 / n)
        low = np.where(single, q * mean, low)
        high = np.where(single, q * mean + (1.0 - q), high)
        sd_game = np.sqrt(per_game * var)
    return mean, low, high, sd_game


def estimate_from_counts(values: np.ndarray, counts: Any, per_game: float, games: int,
              confidence: float, model: str) -> Estimate:
    c = np.asarray(counts, dtype=float)
    if c.sum() <= 0:
        raise AnalysisError("no complete pairs or games to estimate from")
    mean, low, high, sd = (float(x) for x in interval_arrays(values, c, z_value(confidence), per_game))
    with np.errstate(invalid="ignore", divide="ignore"):
        nelo = [(x - 0.5) / sd * NELO_PER_T if sd > 0 else math.nan for x in (mean, low, high)]
    return Estimate(mean, low, high, float(elo_from_score(mean)), float(elo_from_score(low)),
                    float(elo_from_score(high)), nelo[0], nelo[1], nelo[2], games, model)


def independent_estimate(losses: float, draws: float, wins: float,
                         confidence: float = CONFIDENCE) -> Estimate:
    """A's score per game from games taken as independent: the Wilson score interval
    (statsmodels) of (wins + draws / 2) / games; the Elo values map its bounds, the
    normalized Elo uses the trinomial per-game deviation.

    >>> e = independent_estimate(25, 0, 75)
    >>> round(e.score, 2), round(e.low, 3), round(e.high, 3), round(e.elo, 1)
    (0.75, 0.657, 0.825, 190.8)
    """
    c = np.array([losses, draws, wins], dtype=float)
    if (c < 0).any() or c.sum() <= 0:
        raise AnalysisError(f"independent_estimate needs non-negative counts and some games, "
                            f"got {losses!r}, {draws!r}, {wins!r}")
    n = float(c.sum())
    mean = float(c[1] * 0.5 + c[2]) / n
    low, high = proportion_confint(mean * n, n, alpha=1.0 - confidence, method="wilson")
    var = float(np.dot(c, (np.array([0.0, 0.5, 1.0]) - mean) ** 2) / n)
    sd = math.sqrt(var)
    nelo = [(x - 0.5) / sd * NELO_PER_T if sd > 0 else math.nan for x in (mean, low, high)]
    return Estimate(mean, float(low), float(high), float(elo_from_score(mean)),
                    float(elo_from_score(low)), float(elo_from_score(high)),
                    nelo[0], nelo[1], nelo[2], int(round(n)), MODEL_INDEPENDENT)


def format_elo(estimate: Estimate, digits: int = 0) -> str:
    """The Elo with its interval, ``+64 [+35, +94]``; at a score of 100% (0%) the Elo is
    unbounded and the text is the interval's finite end as a bound, ``> +140`` (``< -140``).

    >>> format_elo(independent_estimate(0, 0, 10))
    '> +166'
    """
    return elo_text(estimate.elo, estimate.elo_low, estimate.elo_high, digits)


def elo_text(elo: float, low: float, high: float, digits: int = 0) -> str:
    """:func:`format_elo` from the three numbers: an infinite estimate (a score of 0% or
    100%) is shown as the bound its interval gives.

    >>> elo_text(64.2, 35.0, 94.4), elo_text(-math.inf, -math.inf, -140.3)
    ('+64 [+35, +94]', '< -140')
    """
    def num(x: float) -> str:
        if math.isinf(x):
            return "+inf" if x > 0 else "-inf"
        return f"{x:+.{digits}f}"
    if math.isinf(elo):
        bound = low if elo > 0 else high
        return f"{'>' if elo > 0 else '<'} {num(bound)}"
    return f"{num(elo)} [{num(low)}, {num(high)}]"


def wilson(wins: Any, games: Any, confidence: float = CONFIDENCE) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score intervals (statsmodels) of many rates, the games taken as independent:
    arrays of the lower and upper bounds. ``wins`` may be fractional (a win shared by k
    counts 1/k) and are clipped to [0, games]; no games gives (0, 1).

    >>> low, high = wilson([50, 0], [100, 0])
    >>> [round(float(x), 4) for x in (low[0], high[0], low[1], high[1])]
    [0.4038, 0.5962, 0.0, 1.0]
    >>> [float(x) for x in wilson([0, 250], [250, 250])[0]][0], float(wilson(250, 250)[1][0])
    (0.0, 1.0)
    """
    g = np.atleast_1d(np.asarray(games, dtype=float))
    w = np.clip(np.atleast_1d(np.asarray(wins, dtype=float)), 0.0, g)
    some = g > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        low, high = proportion_confint(w, np.where(some, g, 1.0), alpha=1.0 - confidence,
                                       method="wilson")
    # statsmodels leaves float noise (1e-19) at the bounds no interval can pass: no win
    # has a lower bound of exactly 0, all wins an upper bound of exactly 1
    low = np.where(w > 0, np.asarray(low, dtype=float), 0.0)
    high = np.where(w < g, np.asarray(high, dtype=float), 1.0)
    return np.where(some, low, 0.0), np.where(some, high, 1.0)


def mean_interval(values: Any, confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """The mean of independent units' values in [0, 1] (deals) with its interval: Student's
    t on n - 1 degrees of freedom, clipped to [0, 1]; when every unit has the same value,
    the exact bound of the pentanomial model (see :func:`~.pentanomial.paired_estimate`). Returns
    (mean, low, high).

    >>> [round(x, 3) for x in mean_interval([0.5, 0.75, 1.0, 0.25])]
    [0.625, 0.111, 1.0]
    """
    v = np.asarray(values, dtype=float).ravel()
    if not len(v):
        raise AnalysisError("mean_interval needs at least one value")
    outcomes, counts = np.unique(v, return_counts=True)
    mean, low, high, _ = interval_arrays(outcomes, counts, z_value(confidence), 1.0)
    return float(mean), float(low), float(high)


def mean_test(values: Any, null: float = 0.5) -> float:
    """The two-sided p-value of "the mean of these independent units' values is ``null``":
    Student's one-sample t-test (scipy), which rejects at 1 - confidence exactly when the
    interval of :func:`mean_interval` excludes ``null``. When every unit has the same value
    there is no variance to test with; the exact sign test (scipy) of the units above
    ``null`` against those below is used instead. NaN with fewer than two units.

    >>> round(mean_test([0.5, 0.75, 1.0, 0.75, 1.0, 0.5]), 4), round(mean_test([1.0] * 6), 4)
    (0.0409, 0.0312)
    """
    v = np.asarray(values, dtype=float).ravel()
    if len(v) < 2:
        return math.nan
    if np.ptp(v) == 0:
        above, below = int((v > null).sum()), int((v < null).sum())
        return 1.0 if above + below == 0 else float(stats.binomtest(above, above + below).pvalue)
    return float(stats.ttest_1samp(v, null).pvalue)


def welch_test(x: Any, y: Any) -> tuple[float, float]:
    """Welch's two-sample t-test (scipy) of "same mean" for two sets of independent units
    (deals): (statistic of y - x, two-sided p-value). Without any spread on either side the
    statistic is 0/0: the means are then equal (p = 1) or not (p = 0)."""
    a = np.asarray(x, dtype=float).ravel()
    b = np.asarray(y, dtype=float).ravel()
    if len(a) < 2 or len(b) < 2:
        raise AnalysisError(f"a two-sample test needs at least two deals on each side, got "
                            f"{len(a)} and {len(b)}")
    if a.var() == 0 and b.var() == 0:
        return (0.0, 1.0) if a[0] == b[0] else (math.copysign(math.inf, b[0] - a[0]), 0.0)
    with warnings.catch_warnings():
        # a side whose values are all equal is fine for Welch's test (its variance is 0)
        warnings.filterwarnings("ignore", "Precision loss occurred", RuntimeWarning)
        result = stats.ttest_ind(b, a, equal_var=False)
    return float(result.statistic), float(result.pvalue)


# ---- multiple comparisons ---------------------------------------------------------------------------

def holm(p_values: Any) -> tuple[np.ndarray, str]:
    """Holm's step-down adjustment of a family of p-values (statsmodels ``multipletests``'
    arithmetic, without the full garbage collection it runs on every call: a fifth of a
    second with a million-game study in memory),
    NaN left out of the family and kept as NaN; returns the adjusted values and
    :data:`HOLM_LABEL`, to print beside them.

    >>> adjusted, label = holm([0.01, 0.04, 0.03, float("nan")])
    >>> adjusted.round(2).tolist(), label
    ([0.03, 0.06, 0.06, nan], 'Holm-adjusted')
    """
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if ((p[ok] < 0) | (p[ok] > 1)).any():
        raise AnalysisError("holm: p-values must be in [0, 1]")
    if ok.any():
        order = np.argsort(p[ok])
        ranked = p[ok][order]
        corrected = np.maximum.accumulate(ranked * np.arange(len(ranked), 0, -1))
        corrected[corrected > 1] = 1
        adjusted = np.empty_like(corrected)
        adjusted[order] = corrected
        out[ok] = adjusted
    return out, HOLM_LABEL
