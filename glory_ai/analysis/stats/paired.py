"""Statistics that respect the design of a run: every deal is played in every seat rotation,
so the games of one deal belong together (docs/statistics.md).

Pure functions over numpy arrays and the frame of :func:`glory_ai.analysis.load_runs` (one
row per game per seat); no I/O.

=====================================  ==========================================================
:func:`head_to_head_games`             A's score in each game of A against B, with its pair id
:func:`pentanomial`                    counts of the five pair scores of A (LL ... WW)
:func:`trinomial`                      counts of losses, draws, wins (the independent-games view)
:func:`paired_estimate`                A's score, logistic and normalized Elo, 95% intervals from
                                       the pentanomial variance
:func:`independent_estimate`           the same from games taken as independent (Wilson)
:func:`head_to_head`                   both estimates and the test of "evenly matched" for two
                                       specs' 2-player games (compare's head-to-head row)
:func:`format_elo`, :func:`elo_text`   an Elo with its interval as text, a bound at 0% or 100%
:func:`wilson`                         Wilson intervals of many rates (games as independent)
:func:`mean_interval`,                 the t interval and t-test of independent units' values
:func:`mean_test`, :func:`welch_test`  (deals), and Welch's two-sample test
:func:`llr`                            the generalized log-likelihood ratio of fishtest's
                                       pentanomial (or trinomial) SPRT, normalized or logistic Elo
:func:`sprt`, :func:`sequential_sprt`  the SPRT decision from counts / from pairs in deal order
:func:`win_shares`                     win share per spec (or seat) with a deal-bootstrap
                                       interval and the independent-games (Wilson) interval beside
:func:`finishing_matrix`               fraction of games in which the row spec finished ahead of
                                       the column spec (:data:`FINISHING_CAPTION`)
:func:`pairwise`                       every two specs that met: score, interval, Elo and the
                                       Holm-adjusted test of "evenly matched", deals as the unit
:func:`ratings`                        Bradley-Terry on pairwise finishing order with a Gaussian
                                       prior: finite for any record; deal-bootstrap intervals
:func:`deal_means`, :func:`deal_scores` per-deal means of a column / of a spec's win share
:func:`rerun_test`, :func:`rerun_tests` the two-sample test of "same win probability" for a
                                       re-run, one spec / every spec with Holm's correction
:func:`holm`                           Holm-adjusted p-values (statsmodels) and their label
=====================================  ==========================================================

Every interval says which model it comes from (the ``MODEL_*`` strings, kept in the
``model`` fields and the tables' ``attrs``).
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy import optimize, special, stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from .. import AnalysisError

__all__ = [
    "BOOTSTRAP_RESAMPLES", "CONFIDENCE", "ELO_PER_NAT", "FINISHING_CAPTION", "HOLM_LABEL",
    "INTERVAL_BOOTSTRAP", "INTERVAL_DEAL_T", "INTERVAL_PENTANOMIAL", "INTERVAL_WILSON",
    "MODEL_DEAL_BOOTSTRAP", "MODEL_DEAL_T", "MODEL_INDEPENDENT", "MODEL_PENTANOMIAL",
    "MODEL_RERUN", "MODEL_TEXT", "NELO_PER_T", "PAIR_SCORES", "PENTANOMIAL_CELLS",
    "RATING_BOOTSTRAP", "RATING_PRIOR_SD", "RATING_PROFILE", "RERUN_ALPHA", "EloModel",
    "Estimate", "HeadToHead", "Pentanomial", "RerunTest", "SPRTResult", "bootstrap_rates",
    "deal_means", "deal_resamples", "deal_scores", "elo_from_score", "elo_text",
    "expanded_percentile", "finishing_matrix", "format_elo", "head_to_head",
    "head_to_head_games", "holm", "independent_estimate", "llr", "mean_interval", "mean_test",
    "paired_estimate", "pairwise", "pentanomial", "ratings", "rerun_test",
    "rerun_test_pentanomial", "rerun_tests", "sequential_sprt", "sprt", "sprt_bounds",
    "trinomial", "welch_test", "wilson", "win_shares",
]

#: the confidence level of every interval here
CONFIDENCE = 0.95
#: deal-bootstrap resamples of :func:`win_shares` and :func:`ratings`
BOOTSTRAP_RESAMPLES = 2000
#: logistic Elo per natural-log unit of odds (400 / ln 10)
ELO_PER_NAT = 400.0 / math.log(10.0)
#: normalized Elo per unit of per-game t-value (800 / ln 10, as fishtest)
NELO_PER_T = 800.0 / math.log(10.0)
#: A's score per game in each pentanomial cell (the pair's score divided by 2)
PAIR_SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
#: the pentanomial cells, by A's score over the two games of a deal
PENTANOMIAL_CELLS = ("LL", "LD+DL", "DD+WL+LW", "WD+DW", "WW")
#: standard deviation (Elo) of the Gaussian prior on every rating of :func:`ratings`
RATING_PRIOR_SD = 400.0
#: false-alarm rate of :func:`rerun_test` (a correct re-run is flagged this often)
RERUN_ALPHA = 0.01
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


def _bootstrap_model(resamples: int) -> str:
    return f"deal bootstrap: {resamples} resamples of whole deals, expanded percentile"


MODEL_DEAL_BOOTSTRAP = _bootstrap_model(BOOTSTRAP_RESAMPLES)
#: the long text of each short interval name
MODEL_TEXT = {INTERVAL_PENTANOMIAL: MODEL_PENTANOMIAL, INTERVAL_BOOTSTRAP: MODEL_DEAL_BOOTSTRAP,
              INTERVAL_DEAL_T: MODEL_DEAL_T, INTERVAL_WILSON: MODEL_INDEPENDENT}
#: the ``interval`` of a row of :func:`ratings`: the deal bootstrap, or for a perfect record
#: (which every resample repeats) the profile likelihood of the prior model
RATING_BOOTSTRAP = INTERVAL_BOOTSTRAP
RATING_PROFILE = "profile likelihood (perfect record)"
MODEL_RERUN = "Welch t-test on per-deal scores"

#: what :func:`finishing_matrix` computes, for the caption of its figure
FINISHING_CAPTION = (
    "Fraction of games in which the row spec finished ahead of the column spec: 1 for ahead, "
    "½ for an equal place (a shared win, or equal VP among those who did not win), 0 for "
    "behind; places are winners first, then by VP. Over every pair of seats holding the "
    "two specs.")

_EMPTY_CELL = 1e-3     # fishtest's pseudo-count for a cell not yet seen


def _z(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise AnalysisError(f"confidence must be strictly between 0 and 1, got {confidence!r}")
    return float(stats.norm.ppf(0.5 + confidence / 2.0))


def elo_from_score(score: Any) -> Any:
    """Logistic Elo of an expected score (±inf at 0 and 1); works on arrays."""
    with np.errstate(divide="ignore"):
        return special.logit(np.asarray(score, dtype=float)) * ELO_PER_NAT


# ---- game pairs --------------------------------------------------------------------------------

def _need(frame: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    if not isinstance(frame, pd.DataFrame):
        raise AnalysisError(f"{what} takes the DataFrame of load_runs, got {type(frame).__name__}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise AnalysisError(f"{what}: the frame has no column {', '.join(map(repr, missing))} "
                            "(load it with load_runs)")
    if frame.empty:
        raise AnalysisError(f"{what}: no games (the frame is empty)")


def _unit_keys(frame: pd.DataFrame, by: Sequence[str]) -> np.ndarray:
    """An integer id per row for the groups of ``by`` (``run`` is optional in the frame)."""
    keys = [c for c in by if c in frame.columns]
    return frame.groupby(keys, sort=True, observed=True).ngroup().to_numpy(np.int64)


def head_to_head_games(frame: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """A's result in every 2-player game between specs ``a`` and ``b``, one row per game
    (index ``game``): ``pair`` (an id shared by the games of one deal of one pairing of one
    run: the unit of :func:`pentanomial`), ``deal``, ``rotation``, ``seat`` (A's seat) and
    ``score`` (1 for a win, ½ for a shared win, 0 for a loss)."""
    _need(frame, ["game", "seat", "spec", "win_share", "num_players", "deal"], "head_to_head_games")
    if a == b:
        raise AnalysisError(f"head_to_head_games: a and b are the same spec ({a!r})")
    two = frame[frame["num_players"] == 2].sort_values(["game", "seat"], kind="stable")
    spec = two["spec"].astype(str).to_numpy()
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
    return pd.DataFrame({"pair": _unit_keys(mine, ["run", "pairing", "deal"]),
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


def _interval_arrays(values: np.ndarray, counts: np.ndarray, z: float, per_game: float
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


def _estimate(values: np.ndarray, counts: Any, per_game: float, games: int,
              confidence: float, model: str) -> Estimate:
    c = np.asarray(counts, dtype=float)
    if c.sum() <= 0:
        raise AnalysisError("no complete pairs or games to estimate from")
    mean, low, high, sd = (float(x) for x in _interval_arrays(values, c, _z(confidence), per_game))
    with np.errstate(invalid="ignore", divide="ignore"):
        nelo = [(x - 0.5) / sd * NELO_PER_T if sd > 0 else math.nan for x in (mean, low, high)]
    return Estimate(mean, low, high, float(elo_from_score(mean)), float(elo_from_score(low)),
                    float(elo_from_score(high)), nelo[0], nelo[1], nelo[2], games, model)


def paired_estimate(counts: Pentanomial | Sequence[float], confidence: float = CONFIDENCE
                    ) -> Estimate:
    """A's score per game with the interval of the pentanomial model: the mean of the pair
    scores ± t · sqrt(per-pair variance / pairs), the pairs being independent where games
    are not (variance with n - 1, t the Student quantile on n - 1 degrees of freedom),
    clipped to [0, 1]; when every pair fell in one cell, the exact bound of
    :func:`_interval_arrays`. Logistic Elo maps the score
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
    return _estimate(PAIR_SCORES, c, 2.0, int(round(2 * c.sum())), confidence, MODEL_PENTANOMIAL)


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

    >>> format_elo(paired_estimate([0, 0, 0, 0, 10]))
    '> +140'
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
    """
    g = np.atleast_1d(np.asarray(games, dtype=float))
    w = np.clip(np.atleast_1d(np.asarray(wins, dtype=float)), 0.0, g)
    some = g > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        low, high = proportion_confint(w, np.where(some, g, 1.0), alpha=1.0 - confidence,
                                       method="wilson")
    return (np.where(some, np.asarray(low, dtype=float), 0.0),
            np.where(some, np.asarray(high, dtype=float), 1.0))


def mean_interval(values: Any, confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """The mean of independent units' values in [0, 1] (deals) with its interval: Student's
    t on n - 1 degrees of freedom, clipped to [0, 1]; when every unit has the same value,
    the exact bound of the pentanomial model (see :func:`paired_estimate`). Returns
    (mean, low, high).

    >>> [round(x, 3) for x in mean_interval([0.5, 0.75, 1.0, 0.25])]
    [0.625, 0.111, 1.0]
    """
    v = np.asarray(values, dtype=float).ravel()
    if not len(v):
        raise AnalysisError("mean_interval needs at least one value")
    outcomes, counts = np.unique(v, return_counts=True)
    mean, low, high, _ = _interval_arrays(outcomes, counts, _z(confidence), 1.0)
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
    counts = pentanomial(games["pair"].to_numpy(), games["score"].to_numpy())
    losses, draws, wins = trinomial(games["score"].to_numpy())
    independent = independent_estimate(losses, draws, wins, confidence)
    if counts.pairs:
        estimate = paired_estimate(counts, confidence)
        p = mean_test(np.repeat(PAIR_SCORES, counts.counts))
        interval = INTERVAL_PENTANOMIAL
    else:
        estimate = _estimate(np.array([0.0, 0.5, 1.0]), [losses, draws, wins], 1.0,
                             losses + draws + wins, confidence, MODEL_DEAL_T)
        p = mean_test(games["score"].to_numpy())
        interval = INTERVAL_DEAL_T
    return HeadToHead(a, b, counts, estimate, independent, p, interval, wins, draws, losses)


# ---- the generalized SPRT (fishtest's LLRcalc, from M. Van den Bergh's notes) -----------------

def _secular(f: np.ndarray, u: np.ndarray) -> np.ndarray:
    """theta solving sum_i f_i u_i / (1 + theta u_i) = 0 over the last axis, in the interval
    where every 1 + theta u_i > 0; there the sum decreases from +inf to -inf. Bisection
    narrows the bracket a millionfold (the root may sit next to a pole, where Newton's
    method alone is slow), then Newton's method, kept inside the bracket, finishes.
    NaN where the u_i do not take both signs (no solution)."""
    u = np.ascontiguousarray(np.broadcast_to(u, f.shape))
    valid = (u.min(axis=-1) < 0) & (u.max(axis=-1) > 0)
    with np.errstate(divide="ignore"):
        lo = np.where(valid, -1.0 / u.max(axis=-1), 0.0)
        hi = np.where(valid, -1.0 / u.min(axis=-1), 0.0)
    fu = f * u
    for _ in range(20):
        mid = 0.5 * (lo + hi)
        positive = (fu / (1.0 + mid[..., None] * u)).sum(axis=-1) > 0
        lo = np.where(positive, mid, lo)
        hi = np.where(positive, hi, mid)
    theta = 0.5 * (lo + hi)
    for _ in range(6):          # quadratic convergence: the bracket's 1e-6 becomes 1e-24
        d = 1.0 + theta[..., None] * u
        g = (fu / d).sum(axis=-1)
        slope = (fu * u / (d * d)).sum(axis=-1)              # minus the derivative
        lo = np.where(g > 0, theta, lo)
        hi = np.where(g > 0, hi, theta)
        with np.errstate(invalid="ignore", divide="ignore"):
            newton = theta + g / slope
        theta = np.where((newton >= lo) & (newton <= hi), newton, 0.5 * (lo + hi))
    return np.where(valid, theta, np.nan)


def _mle_mean(f: np.ndarray, a: np.ndarray, s: float) -> np.ndarray:
    """The distribution on the outcomes ``a`` with mean ``s`` closest to the empirical ``f``
    in likelihood: p_i = f_i / (1 + theta (a_i - s)) (Van den Bergh, "support_MLE_multinomial",
    Proposition 1.1)."""
    u = np.broadcast_to(a - s, f.shape)
    theta = _secular(f, u)
    if np.isnan(theta).any():
        raise AnalysisError(f"the hypothesised score {s} is outside the range of the outcomes")
    return f / (1.0 + theta[..., None] * u)


def _t_step(f: np.ndarray, a: np.ndarray, ref: float, t: float, x: np.ndarray) -> np.ndarray:
    """One step of the fixed point of :func:`_mle_t`: the candidate distribution for a
    current mean and sd ``x`` (..., 2)."""
    mean, sd = x[..., :1], x[..., 1:]
    u = a - ref - t * sd * (1.0 + ((a - mean) / sd) ** 2) / 2.0
    return f / (1.0 + _secular(f, u)[..., None] * u)


def _moments(p: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Mean and sd of distributions (..., K) over the outcomes ``a``: (..., 2)."""
    mean = (p * a).sum(axis=-1, keepdims=True)
    return np.concatenate([mean, np.sqrt((p * (a - mean) ** 2).sum(axis=-1, keepdims=True))],
                          axis=-1)


def _mle_t(f: np.ndarray, a: np.ndarray, ref: float, t: float) -> np.ndarray:
    """The maximum-likelihood distribution with t-value (mean - ref) / sd = t: the
    stationarity condition gives p_i = f_i / (1 + theta u_i) with
    u_i = a_i - ref - t sd (1 + ((a_i - mean) / sd)^2) / 2, mean and sd those of p itself
    (Van den Bergh, "normalized_elo_practical", section 4.1). That fixed point in (mean, sd)
    is solved from the uniform distribution by Newton's method (a finite-difference
    Jacobian), falling back to the plain iteration where a Newton step does not help."""
    shape = f.shape
    f = f.reshape(-1, shape[-1])
    x = _moments(np.full(f.shape, 1.0 / f.shape[-1]), a)
    active = np.arange(len(f))
    h = 1e-7
    for _ in range(60):
        fa, xa = f[active], x[active]
        g = _moments(_t_step(fa, a, ref, t, xa), a) - xa
        size = np.abs(g).max(axis=-1)
        done = ~(size >= 1e-11)              # NaN (no solution) is done too: reported below
        if done.all():
            break
        active, fa, xa, g, size = active[~done], fa[~done], xa[~done], g[~done], size[~done]
        jac = np.empty(xa.shape + (2,))
        for k in range(2):
            shifted = xa.copy()
            shifted[:, k] += h
            jac[..., k] = (_moments(_t_step(fa, a, ref, t, shifted), a) - shifted - g) / h
        with np.errstate(invalid="ignore"):
            step = np.linalg.solve(np.nan_to_num(jac) + 1e-300, g[..., None])[..., 0]
        trial = xa - step
        plain = xa + np.nan_to_num(g)
        ok = np.isfinite(trial).all(axis=-1) & (trial[:, 1] > 0)
        trial = np.where(ok[:, None], trial, plain)
        better = np.abs(_moments(_t_step(fa, a, ref, t, trial), a) - trial).max(axis=-1) < size
        x[active] = np.where(better[:, None], trial, plain)
    f = f.reshape(shape)
    x = x.reshape(shape[:-1] + (2,))
    p = _t_step(f, a, ref, t, x)
    mean, sd = _moments(p, a)[..., 0], _moments(p, a)[..., 1]
    if not (np.abs((mean - ref) / sd - t).max() < 1e-6):
        raise AnalysisError(f"the constrained fit of a normalized Elo of t-value {t:.4g} did "
                            "not converge (bounds too far from the data?)")
    return p


EloModel = Literal["normalized", "logistic"]


def llr(counts: Any, elo0: float, elo1: float, model: EloModel = "normalized") -> Any:
    """The generalized log-likelihood ratio of H1 (Elo = ``elo1``) against H0 (``elo0``),
    as fishtest's SPRT computes it.

    ``counts`` has 5 entries (the pentanomial: pairs, :data:`PENTANOMIAL_CELLS`) or 3
    (losses, draws, wins: games taken as independent), or a leading batch shape (..., 5).
    An empty cell counts as 0.001 (fishtest's regularization), so the ratio is defined from
    the first pair. With the empirical distribution f over the per-game scores a_i and N
    samples, LLR = N · sum_i f_i log(p1_i / p0_i), p_h the maximum-likelihood distribution
    under hypothesis h:

    * ``model="normalized"``: bounds in normalized Elo; p_h has t-value
      (mean - ½) / sd = nElo_h / (800 / ln 10), times sqrt(2) for pairs (the sd of a pair's
      mean is that of a game over sqrt(2));
    * ``model="logistic"``: bounds in logistic Elo; p_h has mean 1 / (1 + 10^(-Elo_h / 400)).

    >>> round(float(llr([13, 37, 50, 25, 3], 0.0, 4.0)), 4)      # a published fishtest-style test
    -0.5491
    """
    c = np.asarray(counts, dtype=float)
    if c.shape[-1] not in (3, 5) or (c < 0).any():
        raise AnalysisError(f"llr needs counts of 3 (L, D, W) or 5 (pentanomial) non-negative "
                            f"cells, got shape {c.shape}")
    if not elo0 < elo1:
        raise AnalysisError(f"the SPRT needs elo0 < elo1, got {elo0} and {elo1}")
    k = c.shape[-1]
    a = np.linspace(0.0, 1.0, k)
    reg = np.where(c > 0, c, _EMPTY_CELL)
    n = reg.sum(axis=-1)
    f = reg / n[..., None]
    if model == "normalized":
        scale = math.sqrt(2.0) if k == 5 else 1.0
        p0, p1 = (_mle_t(f, a, 0.5, e / NELO_PER_T * scale) for e in (elo0, elo1))
    elif model == "logistic":
        s0, s1 = (1.0 / (1.0 + 10.0 ** (-e / 400.0)) for e in (elo0, elo1))
        p0, p1 = _mle_mean(f, a, s0), _mle_mean(f, a, s1)
    else:
        raise AnalysisError(f"model must be 'normalized' or 'logistic', got {model!r}")
    out = n * (f * (np.log(p1) - np.log(p0))).sum(axis=-1)
    out = np.where(c.sum(axis=-1) > 0, out, 0.0)
    return float(out) if out.ndim == 0 else out


def sprt_bounds(alpha: float = 0.05, beta: float = 0.05) -> tuple[float, float]:
    """Wald's bounds (log(beta / (1 - alpha)), log((1 - beta) / alpha)) on the LLR.

    >>> [round(x, 4) for x in sprt_bounds(0.05, 0.05)]
    [-2.9444, 2.9444]
    """
    if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0 and alpha + beta < 1.0):
        raise AnalysisError(f"alpha and beta must be in (0, 1) with alpha + beta < 1, got "
                            f"{alpha}, {beta}")
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


@dataclass(frozen=True)
class SPRTResult:
    """An SPRT's state: the LLR, Wald's bounds, the decision (``"H1"``: A is at least
    ``elo1`` stronger; ``"H0"``: at most ``elo0``; None: keep playing) and the samples
    used (pairs for the pentanomial model, games for the trinomial)."""

    llr: float
    lower: float
    upper: float
    decision: Literal["H0", "H1"] | None
    samples: int
    elo0: float
    elo1: float
    alpha: float
    beta: float
    model: str

    def describe(self) -> str:
        unit = "Elo" if "logistic" in self.model else "normalized Elo"
        verdict = {"H1": f"H1 accepted (at least {self.elo1:g} {unit})",
                   "H0": f"H0 accepted (at most {self.elo0:g} {unit})"}.get(
                       self.decision or "", "undecided")
        return (f"SPRT [{self.elo0:g}, {self.elo1:g}] {unit}, alpha={self.alpha:g} "
                f"beta={self.beta:g} ({self.model}): {verdict}; LLR {self.llr:.2f} in "
                f"[{self.lower:.2f}, {self.upper:.2f}] after {self.samples} "
                f"{'pairs' if 'pentanomial' in self.model else 'games'}")


def _model_name(k: int, model: EloModel) -> str:
    return f"{'pentanomial' if k == 5 else 'trinomial'} GSPRT, {model} Elo"


def sprt(counts: Pentanomial | Sequence[float], elo0: float, elo1: float, alpha: float = 0.05,
         beta: float = 0.05, model: EloModel = "normalized") -> SPRTResult:
    """The SPRT's state for cumulative counts (see :func:`llr`).

    >>> r = sprt([13, 37, 50, 25, 3], 0.0, 4.0)
    >>> r.decision, round(r.llr, 2), r.samples
    (None, -0.55, 128)
    """
    c = counts.counts if isinstance(counts, Pentanomial) else counts
    lower, upper = sprt_bounds(alpha, beta)
    value = float(llr(c, elo0, elo1, model))
    decision: Literal["H0", "H1"] | None = "H1" if value >= upper else "H0" if value <= lower else None
    return SPRTResult(value, lower, upper, decision, int(round(sum(c))), float(elo0), float(elo1),
                      float(alpha), float(beta), _model_name(len(c), model))


def sequential_sprt(cells: Any, elo0: float, elo1: float, alpha: float = 0.05,
                    beta: float = 0.05, model: EloModel = "normalized") -> SPRTResult:
    """Run the pentanomial SPRT over pairs in deal order: ``cells`` holds each pair's
    cell (0 = LL ... 4 = WW); the test stops at the first pair where the LLR leaves
    Wald's bounds. The result counts the pairs up to and including that one.

    >>> sequential_sprt([4, 3, 4, 4, 2, 4, 3, 4, 4, 4] * 3, 0.0, 100.0).decision
    'H1'
    """
    x = np.asarray(cells).ravel()
    if x.size and (not np.isin(x, np.arange(5)).all()):
        raise AnalysisError("sequential_sprt: a pair's cell must be 0, 1, 2, 3 or 4")
    lower, upper = sprt_bounds(alpha, beta)
    if x.size == 0:
        return SPRTResult(0.0, lower, upper, None, 0, elo0, elo1, alpha, beta,
                          _model_name(5, model))
    cumulative = np.cumsum(np.eye(5, dtype=np.int64)[x], axis=0)
    values = np.asarray(llr(cumulative, elo0, elo1, model))
    crossed = np.flatnonzero((values >= upper) | (values <= lower))
    stop = int(crossed[0]) if crossed.size else len(x) - 1
    value = float(values[stop])
    decision: Literal["H0", "H1"] | None = "H1" if value >= upper else "H0" if value <= lower else None
    return SPRTResult(value, lower, upper, decision, stop + 1, float(elo0), float(elo1),
                      float(alpha), float(beta), _model_name(5, model))


# ---- fields and round robins: resampling deals -------------------------------------------------

def deal_resamples(n_units: int, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0,
                   chunk: int = 250) -> Iterator[np.ndarray]:
    """Bootstrap weights: blocks of rows, each row how often every one of ``n_units`` deals
    is drawn (``n_units`` draws with replacement), ``resamples`` rows in all, from
    ``numpy.random.default_rng(seed)``."""
    rng = np.random.default_rng(seed)
    done = 0
    while done < resamples:
        size = min(chunk, resamples - done)
        drawn = rng.integers(0, n_units, (size, n_units)) + n_units * np.arange(size)[:, None]
        yield np.bincount(drawn.ravel(), minlength=size * n_units).reshape(size, n_units) \
            .astype(float)
        done += size


def expanded_percentile(samples: np.ndarray, estimate: np.ndarray, n_units: int,
                        confidence: float = CONFIDENCE) -> tuple[np.ndarray, np.ndarray]:
    """The percentile interval of bootstrap ``samples`` (resamples first), widened about the
    ``estimate`` by sqrt(n / (n - 1)) * t(n - 1) / z for ``n_units`` resampled units
    (Hesterberg's expanded percentile interval: the plain one is too narrow with few
    units, as a z interval with the plug-in variance is)."""
    tail = (1.0 - confidence) / 2.0
    low, high = np.nanquantile(samples, [tail, 1.0 - tail], axis=0)
    n = max(n_units, 2)
    scale = math.sqrt(n / (n - 1.0)) * float(stats.t.ppf(1.0 - tail, n - 1) / stats.norm.ppf(1.0 - tail))
    return estimate - scale * (estimate - low), estimate + scale * (high - estimate)


def bootstrap_rates(wins: np.ndarray, games: np.ndarray, resamples: int = BOOTSTRAP_RESAMPLES,
                    seed: int = 0, confidence: float = CONFIDENCE) -> tuple[np.ndarray, np.ndarray]:
    """Deal-bootstrap interval (:func:`expanded_percentile`, clipped to [0, 1]) of the rates
    sum(wins) / sum(games) per column: ``wins`` and ``games`` are (deals, specs) sums per
    deal."""
    w = np.asarray(wins, dtype=float)
    g = np.asarray(games, dtype=float)
    rates = []
    for weights in deal_resamples(w.shape[0], resamples, seed):
        with np.errstate(invalid="ignore", divide="ignore"):
            rates.append((weights @ w) / (weights @ g))
    with np.errstate(invalid="ignore", divide="ignore"):
        estimate = w.sum(axis=0) / g.sum(axis=0)
    low, high = expanded_percentile(np.concatenate(rates), estimate, w.shape[0], confidence)
    return np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)


def _deal_sums(frame: pd.DataFrame, value: str, label: str = "spec"
               ) -> tuple[np.ndarray, np.ndarray, list[Any]]:
    """Per deal (run and deal) and value of the ``label`` column: the sum of ``value`` and
    the rows (seat-games)."""
    unit = _unit_keys(frame, ["run", "deal"])
    column = frame[label]
    keys = column.astype(str).to_numpy() if label == "spec" else column.to_numpy()
    labels, code = np.unique(keys, return_inverse=True)
    n_units, n_labels = int(unit.max()) + 1, len(labels)
    index = unit * n_labels + code
    size = n_units * n_labels
    sums = np.bincount(index, weights=frame[value].to_numpy(float), minlength=size)
    games = np.bincount(index, minlength=size).astype(float)
    return sums.reshape(n_units, n_labels), games.reshape(n_units, n_labels), labels.tolist()


def win_shares(frame: pd.DataFrame, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0,
               confidence: float = CONFIDENCE, label: str = "spec") -> pd.DataFrame:
    """Win share per spec (index ``spec``, best first; or per value of another ``label``
    column, such as ``"seat"``) with two intervals: ``low``, ``high`` from the deal
    bootstrap (whole deals — all their rotations and pairings — resampled with replacement,
    ``resamples`` times, seeded with ``seed``; the model the tables show) and
    ``independent_low``, ``independent_high``, the Wilson interval of the seat-games taken
    as independent, for comparison. Columns also ``games`` (seat-games), ``deals`` and
    ``wins`` (a win shared by k counts 1/k).
    ``attrs``: ``model`` and ``independent_model`` (the ``MODEL_*`` texts), ``resamples``,
    ``seed``."""
    _need(frame, [label, "deal", "win_share"], "win_shares")
    wins, games, labels = _deal_sums(frame, "win_share", label)
    low, high = bootstrap_rates(wins, games, resamples, seed, confidence)
    total_w, total_g = wins.sum(axis=0), games.sum(axis=0)
    ind_low, ind_high = wilson(total_w, total_g, confidence)
    out = pd.DataFrame({"games": total_g.astype(np.int64), "deals": (games > 0).sum(axis=0),
                        "wins": total_w, "win_share": total_w / total_g, "low": low,
                        "high": high, "independent_low": ind_low,
                        "independent_high": ind_high},
                       index=pd.Index(labels, name=label))
    out = out.sort_values(["win_share"], ascending=False, kind="stable")
    out.attrs.update({"model": _bootstrap_model(resamples),
                      "independent_model": MODEL_INDEPENDENT, "resamples": resamples,
                      "seed": seed})
    return out


# ---- finishing order -----------------------------------------------------------------------------

def _pairwise(frame: pd.DataFrame, what: str) -> tuple[pd.DataFrame, list[str]]:
    """Every ordered pair of seats of a game holding two different specs: columns ``unit``
    (run and deal), ``game``, ``i``, ``j`` (spec codes) and ``ahead`` (1 if i's seat
    finished ahead of j's, ½ for an equal place, 0 behind)."""
    _need(frame, ["game", "seat", "spec", "rank", "num_players", "deal"], what)
    specs, code = np.unique(frame["spec"].astype(str).to_numpy(), return_inverse=True)
    data = pd.DataFrame({"unit": _unit_keys(frame, ["run", "deal"]),
                         "game": frame["game"].to_numpy(), "seat": frame["seat"].to_numpy(),
                         "code": code, "rank": frame["rank"].to_numpy(float),
                         "k": frame["num_players"].to_numpy()})
    parts = []
    for k, sub in data.groupby("k", sort=True):
        sub = sub.sort_values(["game", "seat"], kind="stable")
        k = int(k)
        if len(sub) % k or not (sub["game"].to_numpy()[::k].repeat(k) == sub["game"].to_numpy()).all():
            raise AnalysisError(f"{what}: every seat of every game must be in the frame (rows "
                                "of a game were filtered out?)")
        spec = sub["code"].to_numpy().reshape(-1, k)
        rank = sub["rank"].to_numpy().reshape(-1, k)
        unit = sub["unit"].to_numpy()[::k]
        game = sub["game"].to_numpy()[::k]
        for s in range(k):
            for t in range(k):
                keep = spec[:, s] != spec[:, t]
                if s == t or not keep.any():
                    continue
                ahead = (rank[:, s] < rank[:, t]) + 0.5 * (rank[:, s] == rank[:, t])
                parts.append(pd.DataFrame({"unit": unit[keep], "game": game[keep],
                                           "i": spec[keep, s], "j": spec[keep, t],
                                           "ahead": ahead[keep]}))
    if not parts:
        raise AnalysisError(f"{what}: no game seats two different specs")
    return pd.concat(parts, ignore_index=True), list(specs)


def finishing_matrix(frame: pd.DataFrame) -> pd.DataFrame:
    """:data:`FINISHING_CAPTION`: ``[row, column]`` is the mean of 1 (row's seat finished
    ahead of column's), ½ (equal place) and 0 over every pair of seats holding the two
    specs in a game (NaN where they never met and on the diagonal). Places come from the
    frame's ``rank`` (winners first, then by VP). ``attrs``: ``caption``, ``comparisons``
    (seat pairs per cell, a nested list) and ``games`` (games in which the two met)."""
    pairs, specs = _pairwise(frame, "finishing_matrix")
    n = len(specs)
    flat = pairs["i"].to_numpy() * n + pairs["j"].to_numpy()
    score = np.bincount(flat, weights=pairs["ahead"].to_numpy(), minlength=n * n).reshape(n, n)
    count = np.bincount(flat, minlength=n * n).reshape(n, n)
    met = pairs.drop_duplicates(["game", "i", "j"])
    games = np.bincount(met["i"].to_numpy() * n + met["j"].to_numpy(), minlength=n * n)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(count > 0, score / np.maximum(count, 1), np.nan)
    out = pd.DataFrame(mean, index=pd.Index(specs, name="spec"),
                       columns=pd.Index(specs, name="opponent"))
    out.attrs.update({"caption": FINISHING_CAPTION, "comparisons": count.tolist(),
                      "games": games.reshape(n, n).tolist()})
    return out


def pairwise(frame: pd.DataFrame, confidence: float = CONFIDENCE) -> pd.DataFrame:
    """Every two specs that met, in games of one player count: how often one finished ahead
    of the other, with an interval and a test of "evenly matched" that take the deal as the
    unit. One row per pair, ``spec`` being the one that scored at least ½ against
    ``opponent``, best score first.

    * 2 players: :func:`head_to_head` — the pentanomial model over the two seatings of each
      deal (``interval`` = "pentanomial"; "t over deals" without seat rotation), with
      logistic and normalized Elo;
    * 3-5 players: the finishing-ahead score of :func:`finishing_matrix` averaged within
      each deal (every rotation and seat pair of the deal), and the t interval and t-test of
      those per-deal scores (``interval`` = "t over deals"); ``elo`` is the logistic Elo of
      that score, ``nelo`` NaN.

    Columns: ``spec``, ``opponent``, ``games`` (games in which the two met), ``deals``,
    ``score``, ``low``, ``high``, ``elo``, ``elo_low``, ``elo_high``, ``nelo``,
    ``nelo_low``, ``nelo_high``, ``wilson_low``, ``wilson_high`` (the games, or seat pairs,
    taken as independent), ``p_value``, ``p_holm`` (Holm-adjusted over the pairs of the
    table: :func:`holm`) and ``interval``. ``attrs``: ``num_players``, ``models`` (short
    name -> text of the intervals used), ``holm`` (:data:`HOLM_LABEL`), ``pairs``."""
    pairs, specs = _pairwise(frame, "pairwise")
    counts = sorted(int(k) for k in frame["num_players"].unique())
    if len(counts) > 1:
        raise AnalysisError(f"pairwise needs games of one player count, got "
                            f"{', '.join(map(str, counts))}-player games")
    k = counts[0]
    met = pairs.loc[pairs["i"] < pairs["j"], ["i", "j"]].drop_duplicates().sort_values(["i", "j"])
    rows = []
    for i, j in met.itertuples(index=False):
        a, b = specs[int(i)], specs[int(j)]
        if k == 2:
            h = head_to_head(frame, a, b, confidence)
            if h.estimate.score < 0.5:
                h = h.flipped()
            e = h.estimate
            rows.append({"spec": h.a, "opponent": h.b, "games": h.games, "deals": h.deals,
                         "score": e.score, "low": e.low, "high": e.high, "elo": e.elo,
                         "elo_low": e.elo_low, "elo_high": e.elo_high, "nelo": e.nelo,
                         "nelo_low": e.nelo_low, "nelo_high": e.nelo_high,
                         "wilson_low": h.independent.low, "wilson_high": h.independent.high,
                         "p_value": h.p_value, "interval": h.interval})
            continue
        mine = pairs[(pairs["i"] == i) & (pairs["j"] == j)]
        per_deal = mine.groupby("unit", sort=True)["ahead"].mean().to_numpy()
        score, low, high = mean_interval(per_deal, confidence)
        ahead, compared = float(mine["ahead"].sum()), float(len(mine))
        if score < 0.5:
            a, b, score, low, high = b, a, 1.0 - score, 1.0 - high, 1.0 - low
            ahead = compared - ahead
        w_low, w_high = wilson(ahead, compared, confidence)
        rows.append({"spec": a, "opponent": b, "games": int(mine["game"].nunique()),
                     "deals": len(per_deal), "score": score, "low": low, "high": high,
                     "elo": float(elo_from_score(score)), "elo_low": float(elo_from_score(low)),
                     "elo_high": float(elo_from_score(high)), "nelo": math.nan,
                     "nelo_low": math.nan, "nelo_high": math.nan,
                     "wilson_low": float(w_low[0]), "wilson_high": float(w_high[0]),
                     "p_value": mean_test(per_deal), "interval": INTERVAL_DEAL_T})
    out = pd.DataFrame(rows)
    out["p_holm"], label = holm(out["p_value"].to_numpy())
    out = out.sort_values(["score", "spec", "opponent"], ascending=[False, True, True],
                          kind="stable").reset_index(drop=True)
    used = list(dict.fromkeys(out["interval"]))
    out.attrs.update({"num_players": k, "models": {m: MODEL_TEXT[m] for m in used},
                      "holm": label, "pairs": len(out)})
    return out


# ---- ratings ---------------------------------------------------------------------------------------

def _fit_bt(score: np.ndarray, count: np.ndarray, precision: float) -> np.ndarray:
    """Maximum a posteriori Bradley-Terry strengths (natural-log scale) for a batch of
    pairwise tables (..., n, n): ``score[i, j]`` i's points against j, ``count[i, j]`` their
    comparisons; Gaussian prior of precision ``precision`` on every strength. The
    objective is strictly concave, so Newton's method (steps capped at 2 nats) converges."""
    n = score.shape[-1]
    r = np.zeros(score.shape[:-1])
    eye = np.eye(n)
    for _ in range(200):
        p = special.expit(r[..., :, None] - r[..., None, :])
        grad = (score - count * p).sum(axis=-1) - precision * r
        w = count * p * (1.0 - p)
        hess = w - eye * (w.sum(axis=-1)[..., None] + precision)
        step = -np.linalg.solve(hess, grad[..., None])[..., 0]
        big = np.abs(step).max(axis=-1, keepdims=True)
        step = np.where(big > 2.0, step * 2.0 / np.maximum(big, 1e-300), step)
        r = r + step
        if np.abs(step).max() < 1e-10:
            break
    return r


def _log_posterior(r: np.ndarray, score: np.ndarray, count: np.ndarray, precision: float) -> float:
    d = r[:, None] - r[None, :]
    return float((score * special.log_expit(d)).sum() - 0.5 * precision * (r * r).sum())


def _profile_interval(i: int, r_hat: np.ndarray, score: np.ndarray, count: np.ndarray,
                      precision: float, z: float) -> tuple[float, float]:
    """The profile-likelihood interval of spec i's rating relative to the mean rating (what
    the table prints): where the log posterior, maximised under r_i - mean(r) = x, is within
    z^2 / 2 of its maximum. Each constrained maximum is found by Newton's method on the
    Lagrange conditions."""
    n = len(r_hat)
    contrast = np.eye(n)[i] - 1.0 / n
    best = _log_posterior(r_hat, score, count, precision)
    centre = float(contrast @ r_hat)

    def drop(x: float) -> float:
        r = r_hat + (x - centre) * contrast / float(contrast @ contrast)
        for _ in range(100):
            p = special.expit(r[:, None] - r[None, :])
            grad = (score - count * p).sum(axis=1) - precision * r
            w = count * p * (1.0 - p)
            hess = w - np.diag(w.sum(axis=1) + precision)
            kkt = np.block([[hess, contrast[:, None]], [contrast[None, :], np.zeros((1, 1))]])
            step = np.linalg.solve(kkt, np.concatenate([-grad, [0.0]]))[:n]
            step = np.clip(step, -2.0, 2.0)
            r = r + step
            if np.abs(step).max() < 1e-11:
                break
        return _log_posterior(r, score, count, precision) - best + z * z / 2.0

    bounds = []
    for sign in (-1.0, 1.0):
        edge = centre + sign
        while drop(edge) > 0 and abs(edge - centre) < 200:
            edge = centre + 2.0 * (edge - centre)
        bounds.append(optimize.brentq(drop, *sorted((centre, edge)), xtol=1e-10))
    return bounds[0], bounds[1]


def ratings(frame: pd.DataFrame, prior_sd: float = RATING_PRIOR_SD,
            resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0,
            confidence: float = CONFIDENCE) -> pd.DataFrame:
    """Bradley-Terry ratings (logistic Elo, mean 0) from pairwise finishing order, for
    2-player matches, round robins and fields alike: in every game every pair of seats with
    different specs is one comparison (1 to the one that finished ahead, ½ each for an
    equal place). A Gaussian prior N(0, ``prior_sd``²) on every rating keeps them finite
    for any record (20-0 included); ``rating`` is the posterior mode.

    ``low``, ``high``: the percentile interval of the deal bootstrap (deals resampled, the
    model refitted each time). A spec with a perfect record (ahead of, or behind, every
    opponent in every comparison) is the same in every resample, so its interval is the
    profile-likelihood interval of the prior model instead; column ``interval`` names the
    model of each row. Also ``comparisons`` (the spec's pairwise comparisons) and
    ``games``. ``attrs``: ``model``, ``prior_sd``, ``resamples``, ``seed``."""
    if not prior_sd > 0:
        raise AnalysisError(f"ratings: prior_sd must be positive, got {prior_sd!r}")
    pairs, specs = _pairwise(frame, "ratings")
    n = len(specs)
    unit = pairs["unit"].to_numpy()
    n_units = int(unit.max()) + 1
    flat = (unit * n + pairs["i"].to_numpy()) * n + pairs["j"].to_numpy()
    per_deal_score = np.bincount(flat, weights=pairs["ahead"].to_numpy(),
                                 minlength=n_units * n * n).reshape(n_units, n * n)
    per_deal_count = np.bincount(flat, minlength=n_units * n * n).reshape(n_units, n * n)
    per_deal_count = per_deal_count.astype(float)
    score = per_deal_score.sum(axis=0).reshape(n, n)
    count = per_deal_count.sum(axis=0).reshape(n, n)
    precision = (ELO_PER_NAT / prior_sd) ** 2
    r_hat = _fit_bt(score, count, precision)

    samples = []
    for weights in deal_resamples(n_units, resamples, seed):
        s_b = (weights @ per_deal_score).reshape(-1, n, n)
        c_b = (weights @ per_deal_count).reshape(-1, n, n)
        samples.append(_fit_bt(s_b, c_b, precision))
    low, high = expanded_percentile(np.concatenate(samples), r_hat, n_units, confidence)
    points = score.sum(axis=1)
    compared = count.sum(axis=1)
    perfect = (compared > 0) & ((points == compared) | (points == 0))
    model = np.full(n, RATING_BOOTSTRAP, dtype=object)
    z = _z(confidence)
    for i in np.flatnonzero(perfect):
        low[i], high[i] = _profile_interval(int(i), r_hat, score, count, precision, z)
        model[i] = RATING_PROFILE
    games = pairs.drop_duplicates(["game", "i"]).groupby("i").size().reindex(range(n), fill_value=0)
    out = pd.DataFrame({"rating": r_hat * ELO_PER_NAT, "low": low * ELO_PER_NAT,
                        "high": high * ELO_PER_NAT, "interval": model,
                        "comparisons": compared.astype(np.int64),
                        "games": games.to_numpy(np.int64)},
                       index=pd.Index(specs, name="spec"))
    out = out.sort_values("rating", ascending=False, kind="stable")
    out.attrs.update({"model": f"Bradley-Terry on pairwise finishing order, Gaussian prior "
                               f"N(0, {prior_sd:g}²) on each rating (posterior mode)",
                      "prior_sd": prior_sd, "resamples": resamples, "seed": seed})
    return out


# ---- re-runs -----------------------------------------------------------------------------------------

def deal_means(frame: pd.DataFrame, value: str) -> np.ndarray:
    """The mean of the column ``value`` over the rows of each deal (run and deal) in the
    frame, in deal order: the independent units that the tests between conditions compare."""
    _need(frame, ["deal", value], "deal_means")
    unit = _unit_keys(frame, ["run", "deal"])
    return np.bincount(unit, weights=frame[value].to_numpy(float)) / np.bincount(unit)


def deal_scores(frame: pd.DataFrame, spec: str) -> np.ndarray:
    """``spec``'s mean win share in each deal (run and deal) it played: the per-deal values
    :func:`rerun_test` compares (in a 2-player match, A's pair score / 2)."""
    _need(frame, ["spec", "deal", "win_share"], "deal_scores")
    mine = frame[frame["spec"].astype(str) == spec]
    if mine.empty:
        raise AnalysisError(f"deal_scores: no games of {spec!r}")
    return deal_means(mine, "win_share")


@dataclass(frozen=True)
class RerunTest:
    """The test of "the re-run has the same win probability as the stored run": the
    p-value, whether it is below ``alpha`` (the rate at which a correct re-run is flagged),
    both means and the deals behind them."""

    p_value: float
    statistic: float
    differs: bool
    alpha: float
    old_mean: float
    new_mean: float
    old_deals: int
    new_deals: int
    model: str = MODEL_RERUN


def rerun_test(old: Any, new: Any, alpha: float = RERUN_ALPHA) -> RerunTest:
    """Welch's two-sample t-test (:func:`welch_test`) on per-deal scores
    (:func:`deal_scores`), deals being independent where games are not. Flags a difference
    at p < ``alpha``.

    >>> t = rerun_test([1, 0.5, 0.5, 1, 0] * 20, [0.5, 1, 0, 0.5, 1] * 20)
    >>> round(t.p_value, 3), t.differs
    (1.0, False)
    """
    if not 0.0 < alpha < 1.0:
        raise AnalysisError(f"alpha must be in (0, 1), got {alpha!r}")
    x = np.asarray(old, dtype=float).ravel()
    y = np.asarray(new, dtype=float).ravel()
    if len(x) < 2 or len(y) < 2:
        raise AnalysisError(f"rerun_test needs at least two deals on each side, got {len(x)} "
                            f"and {len(y)}")
    statistic, p = welch_test(x, y)
    return RerunTest(p, statistic, p < alpha, alpha, float(x.mean()), float(y.mean()),
                     len(x), len(y))


def rerun_test_pentanomial(old: Pentanomial | Sequence[int], new: Pentanomial | Sequence[int],
                           alpha: float = RERUN_ALPHA) -> RerunTest:
    """:func:`rerun_test` of two head-to-head runs given by their pentanomial counts.

    >>> rerun_test_pentanomial([5, 20, 50, 20, 5], [1, 10, 40, 30, 19]).differs
    True
    """
    def values(c: Pentanomial | Sequence[int]) -> np.ndarray:
        counts = np.asarray(c.counts if isinstance(c, Pentanomial) else c, dtype=np.int64)
        if counts.shape != (5,) or (counts < 0).any():
            raise AnalysisError(f"rerun_test_pentanomial needs five non-negative counts, got {c!r}")
        return np.repeat(PAIR_SCORES, counts)
    return rerun_test(values(old), values(new), alpha)


def rerun_tests(old: Mapping[str, Any], new: Mapping[str, Any], alpha: float = RERUN_ALPHA
                ) -> pd.DataFrame:
    """:func:`rerun_test` of every spec given (``old`` and ``new`` map a spec to its
    per-deal scores in the stored run and in the re-run), Holm-adjusted across the specs
    (:func:`holm`): a spec ``differs`` when its adjusted p-value is below ``alpha``, so a
    correct re-run is flagged with probability at most ``alpha`` whatever the number of
    specs. One row per spec (index ``spec``): ``old_mean``, ``new_mean``, ``old_deals``,
    ``new_deals``, ``statistic``, ``p_value``, ``p_holm``, ``differs``; ``attrs``: ``alpha``,
    ``model``, ``holm``.

    >>> t = rerun_tests({"a": [1, 0, 1, 1], "b": [0, 1, 0, 0]}, {"a": [1, 1, 0, 1], "b": [0, 0, 1, 0]})
    >>> t["p_holm"].round(3).tolist(), bool(t["differs"].any())
    ([1.0, 1.0], False)
    """
    missing = sorted(set(old) ^ set(new))
    if missing:
        raise AnalysisError(f"rerun_tests: {', '.join(map(repr, missing))} is not in both runs")
    if not old:
        raise AnalysisError("rerun_tests needs at least one spec")
    tests = {spec: rerun_test(old[spec], new[spec], alpha) for spec in old}
    out = pd.DataFrame({"old_mean": [t.old_mean for t in tests.values()],
                        "new_mean": [t.new_mean for t in tests.values()],
                        "old_deals": [t.old_deals for t in tests.values()],
                        "new_deals": [t.new_deals for t in tests.values()],
                        "statistic": [t.statistic for t in tests.values()],
                        "p_value": [t.p_value for t in tests.values()]},
                       index=pd.Index(list(tests), name="spec"))
    out["p_holm"], label = holm(out["p_value"].to_numpy())
    out["differs"] = out["p_holm"] < alpha
    out.attrs.update({"alpha": alpha, "model": MODEL_RERUN, "holm": label})
    return out


# ---- multiple comparisons ---------------------------------------------------------------------------

def holm(p_values: Any) -> tuple[np.ndarray, str]:
    """Holm's step-down adjustment (statsmodels ``multipletests``) of a family of p-values,
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
        out[ok] = multipletests(p[ok], method="holm")[1]
    return out, HOLM_LABEL
