"""The tables: each a function from the frame of :func:`~glory_ai.analysis.load.load_runs`
(or :func:`~glory_ai.analysis.load.frame_of_records`) to a pandas DataFrame; the report
and compare's summary are made of them (docs/analysis.md describes every column and model).
Every interval and test takes the deal as the unit (:mod:`.paired`, docs/statistics.md;
the building model through deal-clustered standard errors), except the stratified building
difference, a check that takes seat-games as independent.

=============================  =================================================================
:func:`win_rates`              win rate (shared wins split) per spec with its 95% interval
                               (pentanomial for a head-to-head match, deal bootstrap otherwise)
                               and the Wilson interval beside it; ``by="num_players"``,
                               ``"seat"``, ``"rules"``, ... to split it
:func:`finishing_matrix`       how often each spec finished ahead of each other (one player
                               count)
:func:`pairwise`               every two specs that met: score, interval, Elo and the
                               Holm-adjusted test of "evenly matched" (one player count)
:func:`ratings`                Bradley-Terry ratings on pairwise finishing order with a
                               Gaussian prior, deal-bootstrap intervals (one player count)
:func:`rates_test`             the test of "same win rate" for two specs that never met
:func:`grid_scores`            a spec's score as one of its numbers varies against the same
                               opponents (an experiment's grid), the Elo per doubling and the
                               last step
:func:`seat_advantage`         win rate by seat for each player count, with intervals
:func:`seat_tests`             per player count, the test of "no seat advantage" on per-deal
                               seat shares (t for 2 seats, Hotelling's T² for 3-5), Holm over
                               the counts
:func:`building_strength`      for each building, win rate of players who completed it against
                               those who did not: raw, stratified (Mantel-Haenszel) and from a
                               logistic regression controlling for spec, seat and player count
                               (statsmodels, deal-clustered intervals)
:func:`vp_breakdown`           mean VP by component (influence, vault, merchant bonus, statue,
                               wall) per spec
:func:`end_conditions`         how games end, with shares and intervals
:func:`game_length`            turns and decisions per game
:func:`roles_led`              turns leading each role, per spec (records with ``roles_led``)
:func:`compare_variants`       the core measures side by side for two or more rule variants
                               or modes, with tests of "no difference" on per-deal means
=============================  =================================================================

The statistics come from the modules beside this one: :mod:`.paired` (the statistics of
paired deals: intervals, tests, ratings, Holm's correction) and :mod:`.models` (the
deal-clustered logistic regression, Mantel-Haenszel), and scipy and statsmodels (tests).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse, special
from scipy import stats as sps

from .. import AnalysisError
from ..load import END_REASONS, VP_BUILDINGS, VP_COLUMNS, VP_COMPONENTS, completed_columns, led_columns
from . import ladder, models, paired
from .bootstrap import deal_sums, grouped_units
from .frames import by_game, need_columns, spec_codes, texts, unit_keys
from .frames import groups as row_groups
from .grids import GRID_STEP, GRID_TREND, grid_row, grid_table
from .intervals import bootstrap_model
from .models import stratified_difference
from .sums import (
    SEAT_TEST_2,
    SEAT_TEST_K,
    SeatSums,
    _seat_rates,
    _seat_table,
    game_length_of_counts,
    seat_advantage_of_sums,
    seat_tests_of_sums,
)
from .variants import VARIANT_TEST, conditions_test, variant_table

__all__ = [
    "BUILDING_MODEL", "GRID_STEP", "GRID_TREND", "PSEUDO_GAMES", "SEAT_TEST_2", "SEAT_TEST_K",
    "VARIANT_TEST", "building_strength", "building_table", "win_rate_table", "compare_variants",
    "conditions_test", "end_conditions",
    "end_conditions_of_counts", "finishing_matrix", "game_length", "game_length_of_counts", "grid_scores",
    "pairwise", "rates_test", "ratings", "roles_led", "roles_led_of_sums", "SeatSums", "seat_advantage",
    "seat_advantage_of_sums", "seat_tests", "seat_tests_of_sums", "specs_met", "vp_breakdown",
    "vp_breakdown_of_sums", "win_rates",
]

#: pseudo seat-games added on each side (completed, not completed) of a building's model
PSEUDO_GAMES = 2.0
#: the model of the building table's intervals, for captions
BUILDING_MODEL = ("logistic regression (statsmodels GLM); standard error: the larger of the "
                  "deal-clustered and the model-based one, t on deals - 1 degrees of freedom")


# ---- helpers ----------------------------------------------------------------------------------

def _by(by: str | Sequence[str] | None) -> list[str]:
    if by is None:
        return []
    if isinstance(by, str):
        return [by]
    return list(by)


def _runs_by_count(frame: pd.DataFrame) -> str:
    pairs = frame.groupby("num_players", observed=True)["run"].unique() if "run" in frame else None
    if pairs is None:
        return ", ".join(f"{k}-player" for k in sorted(frame["num_players"].unique()))
    return "; ".join(f"{k}-player games in {', '.join(map(str, runs))}" for k, runs in pairs.items())


def _one_count(frame: pd.DataFrame, num_players: int | None, what: str) -> tuple[pd.DataFrame, int]:
    """The rows of one player count (``num_players``, or the only one in the frame)."""
    counts = sorted(int(k) for k in frame["num_players"].unique())
    if num_players is None:
        if len(counts) > 1:
            raise AnalysisError(f"{what} needs games of one player count, and these runs mix "
                                f"them ({_runs_by_count(frame)}); pass num_players= one of "
                                f"{counts}")
        return frame, counts[0]
    if num_players not in counts:
        raise AnalysisError(f"{what}: no {num_players}-player games (the runs hold "
                            f"{', '.join(map(str, counts))}-player games)")
    mine = frame["num_players"] == num_players
    # the frame itself when it holds that count only (compare's run): not a copy
    return (frame if mine.all() else frame[mine]), int(num_players)


def _sort_within(out: pd.DataFrame, by: list[str], column: str) -> pd.DataFrame:
    keys = list(out.index.names)
    flat = out.reset_index()
    flat = flat.sort_values([*by, column, keys[-1]], ascending=[True] * len(by) + [False, True],
                            kind="stable")
    return flat.set_index(keys)


# ---- win rates --------------------------------------------------------------------------------

def _head_to_head_specs(sub: pd.DataFrame) -> tuple[str, str] | None:
    """The two specs when the rows are whole 2-player games each between the same two
    specs (a head-to-head match), else None."""
    if sub.empty or not (sub["num_players"] == 2).all():
        return None
    names = sorted(str(x) for x in sub["spec"].unique())
    if len(names) != 2 or len(sub) % 2:
        return None
    ordered = by_game(sub)
    game = ordered["game"].to_numpy()
    spec = texts(ordered["spec"])
    if (game[::2] != game[1::2]).any() or (spec[::2] == spec[1::2]).any():
        return None
    return names[0], names[1]


def _interval_rows(sub: pd.DataFrame, resamples: int, seed: int
                   ) -> dict[str, tuple[float, float, str]]:
    """The 95% interval of each spec's win rate in a group of rows: the pentanomial model
    for a head-to-head match, the deal bootstrap otherwise."""
    head = _head_to_head_specs(sub)
    if head is not None:
        a, b = head
        h = paired.head_to_head(sub, a, b)
        other = h.flipped()
        return {a: (h.estimate.low, h.estimate.high, h.interval),
                b: (other.estimate.low, other.estimate.high, other.interval)}
    shares = paired.win_shares(sub, resamples, seed)
    # a rate no resampling of deals can vary: win_shares gives the Wilson interval
    return {str(spec): (r["low"], r["high"], paired.INTERVAL_WILSON if r["fixed"]
                        else paired.INTERVAL_BOOTSTRAP)
            for spec, r in shares.iterrows()}


def win_rates(frame: pd.DataFrame, by: str | Sequence[str] | None = None, *,
              resamples: int = paired.BOOTSTRAP_RESAMPLES, seed: int = 0) -> pd.DataFrame:
    """Win rate per spec, with its 95% interval; one row per spec (index ``spec``), or per
    (``by`` ..., spec) with ``by`` columns such as ``"num_players"``, ``"seat"``,
    ``"rules"`` or ``"run"``. Sorted by win rate within each group.

    The interval takes the deal as the unit (docs/statistics.md): in a group that is a
    head-to-head match (whole 2-player games, all between the same two specs) the
    pentanomial model (:func:`.paired.head_to_head`), otherwise the deal bootstrap
    (:func:`.paired.win_shares`, ``resamples`` seeded with ``seed``; for a spec that won
    every game or none, or the same share of every deal, which resampling cannot vary, the
    Wilson interval); column ``interval``
    names it per row, ``attrs["models"]`` maps the names to their descriptions. The Wilson
    interval of the seat-games taken as independent is beside it.

    Columns: ``games`` (seat-games: a spec in two seats of a game counts twice), ``wins``
    (a win shared by k players counts 1/k), ``win_rate``, ``win_low``, ``win_high``,
    ``interval``, ``wilson_low``, ``wilson_high``, ``expected`` (the equal share, mean of
    1/players), ``mean_score``, ``mean_rank``."""
    by = _by(by)
    need_columns(frame, ["game", "seat", "spec", "deal", "win_share", "score", "rank", "num_players",
                         *by], "win_rates")
    data = frame.assign(_expected=1.0 / frame["num_players"])
    out = data.groupby([*by, "spec"], observed=True, sort=True).agg(
        games=("win_share", "size"), wins=("win_share", "sum"), expected=("_expected", "mean"),
        mean_score=("score", "mean"), mean_rank=("rank", "mean"))
    intervals: dict[tuple[Any, ...], tuple[float, float, str]] = {}
    for key, sub in (row_groups(frame, by) if by else [((), frame)]):
        for spec, value in _interval_rows(sub, resamples, seed).items():
            intervals[(*key, spec)] = value
    return win_rate_table(out, intervals, by, resamples=resamples, seed=seed)


def win_rate_table(out: pd.DataFrame, intervals: dict[tuple[Any, ...], tuple[float, float, str]],
                   by: Sequence[str], *, resamples: int = paired.BOOTSTRAP_RESAMPLES, seed: int = 0
                   ) -> pd.DataFrame:
    """:func:`win_rates` from its sums per ([by...,] spec) (``out``: ``games``, ``wins``,
    ``expected``, ``mean_score``, ``mean_rank``, indexed as the frame's groupby) and the
    interval of each ((by values..., spec): (low, high, model name))."""
    by = list(by)
    out["win_rate"] = out["wins"] / out["games"]
    flat = out.reset_index()
    keys = list(zip(*(flat[c] for c in by), flat["spec"].astype(str), strict=True))
    out["win_low"] = [intervals[k][0] for k in keys]
    out["win_high"] = [intervals[k][1] for k in keys]
    out["interval"] = [intervals[k][2] for k in keys]
    out["wilson_low"], out["wilson_high"] = paired.wilson(out["wins"], out["games"])
    out = out[["games", "wins", "win_rate", "win_low", "win_high", "interval", "wilson_low",
               "wilson_high", "expected", "mean_score", "mean_rank"]]
    out = _sort_within(out, by, "win_rate")
    used = list(dict.fromkeys(out["interval"]))
    texts = {**paired.MODEL_TEXT, paired.INTERVAL_BOOTSTRAP: bootstrap_model(resamples),
             paired.INTERVAL_WILSON: f"{paired.MODEL_INDEPENDENT} for a spec whose rate resampling "
                                     "deals cannot vary (it won every game or none, or the same "
                                     "share of every deal)"}
    out.attrs.update({"models": {m: texts[m] for m in used},
                      "resamples": resamples, "seed": seed})
    return out


# ---- pairwise results and ratings -------------------------------------------------------------

def specs_met(frame: pd.DataFrame) -> bool:
    """Whether some game of the frame seats two different specs (otherwise every game is
    self-play, and the specs' win rates are equal shares by construction)."""
    need_columns(frame, ["game", "spec"], "specs_met")
    game = frame["game"].to_numpy()
    if len(game) > 1 and (game[1:] >= game[:-1]).all():
        # the rows of each game together (as load_runs gives them): the smallest and largest
        # spec of each game, without a group-by
        code = spec_codes(frame["spec"])[1]
        starts = np.flatnonzero(np.r_[True, game[1:] != game[:-1]])
        return bool((np.minimum.reduceat(code, starts) != np.maximum.reduceat(code, starts)).any())
    return bool((frame.groupby("game", observed=True)["spec"].nunique() > 1).any())


def pair_sums(frame: pd.DataFrame, num_players: int | None = None) -> ladder.PairSums | None:
    """The seat pairs of the games of one player count summed per deal
    (:func:`.ladder.pair_sums`), to give :func:`finishing_matrix`, :func:`pairwise` and
    :func:`ratings` of that count; None when no game seats two different specs."""
    sub, _ = _one_count(frame, num_players, "pair_sums")
    return ladder.pair_sums(sub) if specs_met(sub) else None


def finishing_matrix(frame: pd.DataFrame, num_players: int | None = None,
                     sums: ladder.PairSums | None = None) -> pd.DataFrame:
    """The fraction of games in which the row spec finished ahead of the column spec
    (:func:`.paired.finishing_matrix`, caption in ``attrs["caption"]``), for one player
    count; ``attrs["num_players"]`` says which. ``sums``: that count's :func:`pair_sums`."""
    sub, k = _one_count(frame, num_players, "finishing_matrix")
    out = paired.finishing_matrix(sub, sums)
    out.attrs["num_players"] = k
    return out


def pairwise(frame: pd.DataFrame, num_players: int | None = None,
             sums: ladder.PairSums | None = None) -> pd.DataFrame:
    """Every two specs that met in games of one player count, with the score of one against
    the other, its interval and the Holm-adjusted test of "evenly matched"
    (:func:`.paired.pairwise`: the pentanomial model for 2 players, per-deal finishing-ahead
    scores for 3-5). ``sums``: that count's :func:`pair_sums`."""
    sub, _ = _one_count(frame, num_players, "pairwise")
    return paired.pairwise(sub, sums=sums)


def ratings(frame: pd.DataFrame, num_players: int | None = None, *,
            resamples: int = paired.BOOTSTRAP_RESAMPLES, seed: int = 0,
            sums: ladder.PairSums | None = None) -> pd.DataFrame:
    """Ratings of the specs in games of one player count (index ``spec``, best first):
    :func:`.paired.ratings`, Bradley-Terry on pairwise finishing order with a Gaussian
    prior, finite for any record, on the logistic Elo scale (mean 0), with deal-bootstrap
    intervals (``resamples`` seeded with ``seed``; a perfect record: the profile likelihood).
    Columns ``rating``, ``low``, ``high``, ``interval``, ``comparisons``, ``games``;
    ``attrs``: ``model`` (None, and no rows, when no game pits two different specs against
    each other), ``num_players`` and those of :func:`.paired.ratings`. ``sums``: that
    count's :func:`pair_sums`."""
    need_columns(frame, ["game", "seat", "spec", "rank", "num_players", "deal"], "ratings")
    sub, k = _one_count(frame, num_players, "ratings")
    if not specs_met(sub):
        out = pd.DataFrame(columns=["rating", "low", "high", "interval", "comparisons", "games"],
                           index=pd.Index([], name="spec"))
        out.attrs.update({"model": None, "num_players": k})
        return out
    out = paired.ratings(sub, resamples=resamples, seed=seed, sums=sums)
    out.attrs["num_players"] = k
    return out


def rates_test(frame: pd.DataFrame, spec: str, other: str) -> float:
    """The p-value of "the same win rate" for two specs that did not meet: Welch's t-test
    (:func:`.paired.welch_test`) on their per-deal win shares (:func:`.paired.deal_scores`),
    the deals being the independent units."""
    return paired.welch_test(paired.deal_scores(frame, spec), paired.deal_scores(frame, other))[1]


# ---- a grid: one spec's score against the same opponents as one number varies ------------------

def grid_scores(frame: pd.DataFrame, points: Sequence[tuple[float, str, str]]) -> pd.DataFrame:
    """A spec's score as one of its numbers varies against the same opponents (an
    experiment's grid, e.g. ``ismcts:iters={iters}`` against ``ismcts:iters=500``):
    ``points`` gives (value, run, spec) for each grid point, ``run`` being the frame's
    ``run`` label of the games at that value. One row per value (index ``value``, sorted):
    ``spec``, ``run``, ``games``, ``deals``, ``score`` (the spec's win share) with its 95%
    interval ``low``, ``high`` and its model ``interval`` (:func:`win_rates`: pentanomial for
    a head-to-head match), ``expected`` (the equal share) and, in 2-player games, ``elo``,
    ``elo_low``, ``elo_high`` (the logistic Elo of the score and its bounds).

    ``attrs``: ``trend`` (2 players, values > 0 spanning at least a factor of 4, three or
    more points): the Elo gained per doubling of the value, from the logistic regression
    of every game's score on log2 of the value, with a deal-clustered interval (the grid's
    runs share their deals: a deal is one cluster across them) and its p-value
    (:data:`GRID_TREND`), None with ``separated`` True when the scores are perfectly
    separated by the value (the slope has no finite estimate); ``step``: the change in
    score from the second-largest to the largest value, paired by deal (the two runs' games
    of the same deal number against the same opponents; :data:`GRID_STEP`), with its
    interval and the t-test of no change. :func:`.grids.grid_table` makes the table from
    what is gathered here (the report's streamed twin gathers it from sums)."""
    need_columns(frame, ["run", "spec", "deal", "win_share", "num_players", "game", "seat", "score",
                         "rank"], "grid_scores")
    if len(points) < 2:
        raise AnalysisError("grid_scores: a grid needs two points or more")
    rows = {}
    per_deal: dict[float, pd.DataFrame] = {}
    for value, run, spec in points:
        sub = frame[frame["run"].astype(str) == str(run)]
        mine = sub[sub["spec"].astype(str) == str(spec)]
        if mine.empty:
            raise AnalysisError(f"grid_scores: run {run!r} has no games of {spec!r}")
        rows[float(value)] = grid_row(win_rates(sub).loc[str(spec)], str(spec), str(run),
                                      int(mine["deal"].nunique()), bool((sub["num_players"] == 2).all()))
        per_deal[float(value)] = mine.groupby("deal")["win_share"].agg(["sum", "size", "mean"])
    return grid_table(rows, per_deal)


# ---- seats ------------------------------------------------------------------------------------

def seat_advantage(frame: pd.DataFrame, *, resamples: int = paired.BOOTSTRAP_RESAMPLES,
                   seed: int = 0) -> pd.DataFrame:
    """Win rate by seat for each player count (index ``num_players``, ``seat``; seat 0 is P1,
    who leads the first turn): ``games``, ``wins`` (shared wins split), ``win_rate`` with its
    95% deal-bootstrap interval (``win_low``, ``win_high``: whole deals resampled,
    :func:`.paired.win_shares`), the Wilson interval of the games taken as independent
    (``wilson_low``, ``wilson_high``), ``expected`` (1/players) and ``diff`` (win rate -
    expected)."""
    need_columns(frame, ["num_players", "seat", "deal", "win_share"], "seat_advantage")
    parts = []
    for k, sub in frame.groupby("num_players", sort=True):
        wins, games, labels = deal_sums(sub, "win_share", "seat")
        parts.append(_seat_rates(int(k), wins, games, labels, resamples, seed))
    return _seat_table(parts, resamples, seed)


def seat_tests(frame: pd.DataFrame) -> pd.DataFrame:
    """The test of "no seat advantage" for each player count (index ``num_players``), on the
    deals as independent units: each deal's games (its rotations and pairings) give every
    seat its mean win share in the deal (a shared win split).

    2 players: Student's t-test of P1's per-deal win share against 1/2
    (:func:`.paired.mean_test`); 3-5 players: Hotelling's T² test (statsmodels
    ``test_mvmean``, F distribution) of the per-deal shares of seats P1 .. P(k-1) against
    1/k each (the last seat's share is the rest). Columns: ``games``, ``deals``, ``test``,
    ``statistic`` (t or T²), ``p_value``, ``p_holm`` (Holm-adjusted over the player counts
    tested, :func:`.paired.holm`), ``best_seat`` and ``best_rate`` (the seat with the
    highest win rate), ``balanced`` (every spec sat equally often in every seat: otherwise
    a seat effect is mixed up with the strength of the specs that sat there)."""
    need_columns(frame, ["num_players", "seat", "win_share", "game", "spec", "deal"], "seat_tests")
    per_count = {}
    for k, sub in frame.groupby("num_players", sort=True):
        wins, games, seats = deal_sums(sub, "win_share", "seat")
        table = sub.groupby(["spec", "seat"], observed=True).size().unstack("seat", fill_value=0)
        per_count[int(k)] = SeatSums(wins, games, seats, table.to_numpy(), int(sub["game"].nunique()))
    return seat_tests_of_sums(per_count)


# ---- buildings --------------------------------------------------------------------------------

def _cells(frame: pd.DataFrame, controls: list[str]) -> tuple[np.ndarray, pd.DataFrame]:
    grouped = frame.groupby(controls, observed=True, sort=True)
    codes = grouped.ngroup().to_numpy()
    keys = grouped.size().index.to_frame(index=False)
    return codes, keys


def _dummies(keys: pd.DataFrame, factors: list[list[str]]) -> np.ndarray:
    """Treatment-coded indicator columns (first level dropped) of each factor (a factor can
    combine several columns, as players x seat)."""
    blocks = []
    for cols in factors:
        level = keys[cols].astype(str).agg("|".join, axis=1) if len(cols) > 1 else keys[cols[0]].astype(str)
        codes, uniques = pd.factorize(level, sort=True)
        if len(uniques) > 1:
            blocks.append(np.eye(len(uniques))[codes][:, 1:])
    return np.hstack(blocks) if blocks else np.zeros((len(keys), 0))


def _independent_columns(x: np.ndarray) -> list[int]:
    """The columns of ``x``, in order, that are not linear combinations of those before."""
    keep: list[int] = []
    for j in range(x.shape[1]):
        if np.linalg.matrix_rank(x[:, [*keep, j]]) == len(keep) + 1:
            keep.append(j)
    return keep


#: the columns of a building's row that the logistic model fills (NaN when it cannot be fitted)
_LOGIT_COLUMNS = ("log_odds", "log_odds_low", "log_odds_high", "odds_ratio", "effect",
                  "effect_low", "effect_high", "p_value")


@dataclass(frozen=True)
class _Cells:
    """The seat-games of the building model summed per cell of the controls (``keys``,
    ``m`` cells; ``cell`` each row's) and, per cell and building, over the seat-games that
    completed it (``n1`` seat-games, ``s1`` wins, ``q1`` squared wins) and those that did
    not (``n0``, ``s0``, ``q0``); ``y`` the win shares, ``completed`` each building's
    indicator column."""

    keys: pd.DataFrame
    cell: np.ndarray
    m: int
    y: np.ndarray
    completed: list[np.ndarray]
    n_cell: np.ndarray
    n1: np.ndarray
    s1: np.ndarray
    q1: np.ndarray
    n0: np.ndarray
    s0: np.ndarray
    q0: np.ndarray


def _building_cells(frame: pd.DataFrame, cols: list[str], controls: list[str]) -> _Cells:
    cell, keys = _cells(frame, controls)
    m = len(keys)
    nb = len(cols)
    y = frame["win_share"].to_numpy(dtype=float)
    n_cell = np.bincount(cell, minlength=m).astype(float)
    y_cell = np.bincount(cell, weights=y, minlength=m)
    q_cell = np.bincount(cell, weights=y * y, minlength=m)
    # a building at a time (its column as the frame holds it): the seat-games that completed
    # it, never a matrix of every seat-game and building, nor a list of every completion
    completed = [frame[col].to_numpy(dtype=bool) for col in cols]
    n1, s1, q1 = (np.zeros((m, nb)) for _ in range(3))
    for j, column in enumerate(completed):
        rows = np.flatnonzero(column)
        at, wins = cell[rows], y[rows]
        n1[:, j] = np.bincount(at, minlength=m)
        s1[:, j] = np.bincount(at, weights=wins, minlength=m)
        q1[:, j] = np.bincount(at, weights=wins ** 2, minlength=m)
    return _Cells(keys, cell, m, y, completed, n_cell, n1, s1, q1,
                  n_cell[:, None] - n1, y_cell[:, None] - s1, q_cell[:, None] - q1)


def _strata_sums(c: _Cells, strata_cols: list[str]) -> tuple[np.ndarray, ...]:
    """(n1, s1, q1, n0, s0, q0) summed over the strata of ``strata_cols`` (spec x players
    (x rules)): the inputs of the stratified difference."""
    stratum = c.keys.groupby(strata_cols, observed=True, sort=True).ngroup().to_numpy()
    n_strata = int(stratum.max()) + 1

    def to_strata(a: np.ndarray) -> np.ndarray:
        out = np.zeros((n_strata, a.shape[1]))
        np.add.at(out, stratum, a)
        return out

    return tuple(to_strata(a) for a in (c.n1, c.s1, c.q1, c.n0, c.s0, c.q0))


@dataclass(frozen=True)
class _Units:
    """The seat-games of the building model pooled by deal and cell, in order of ``deal * m
    + cell``: ``of_row`` each row's unit, ``deal`` and ``cell`` each unit's, ``starts``
    where each deal's begin (and the end: a sparse matrix's row pointer); ``games`` and
    ``wins``, each one's seat-games and their win shares summed; ``overall``, the mean win
    share. Integers in 4 bytes where they fit: arrays of every seat-game."""

    of_row: np.ndarray
    deal: np.ndarray
    cell: np.ndarray
    starts: np.ndarray
    games: np.ndarray
    wins: np.ndarray
    overall: float


def _units(c: _Cells, deal: np.ndarray) -> _Units:
    values, _, of_row = models.codes(deal.astype(np.int64) * c.m + c.cell)
    small = np.int32 if len(of_row) < 2**31 else np.int64
    unit_deal, cell = (values // c.m).astype(small), (values % c.m).astype(small)
    del values
    games = np.bincount(of_row, minlength=len(cell))
    wins = np.bincount(of_row, weights=c.y, minlength=len(cell))
    starts = np.r_[0, np.cumsum(np.bincount(unit_deal, minlength=int(deal.max()) + 1))].astype(small)
    return _Units(of_row.astype(small), unit_deal, cell, starts, games.astype(small), wins,
                  float(c.y.mean()))


def _cluster_meat(c: _Cells, j: int, units: _Units, x: np.ndarray, at: int,
                  p: tuple[np.ndarray, np.ndarray], clusters: int) -> np.ndarray:
    """The sum over deals of the products of each deal's score (its seat-games' residuals
    times their covariates) for building ``j``'s model: ``x`` each cell's covariates not
    completing it, column ``at`` the completed one; ``p`` each cell's probability on either
    side (not completed, completed). Every unit's residual on either side times the cell's
    covariates (one sparse product over the units, whose structure every building
    shares), plus the completed side's residuals summed per deal in column ``at``."""
    p0, p1 = p
    n_units = len(units.cell)
    rows = np.flatnonzero(c.completed[j])
    done = np.bincount(units.of_row[rows], minlength=n_units)
    done_wins = np.bincount(units.of_row[rows], weights=c.y[rows], minlength=n_units)
    touched = np.flatnonzero(done)
    done, done_wins, cell = done[touched], done_wins[touched], units.cell[touched]
    # side 0: each unit's residual, less that of its seat-games that completed it; side 1:
    # those seat-games' residuals
    completed = done_wins - done * p1[cell]
    residual = units.wins - units.games * p0[units.cell]
    residual[touched] += done * p0[cell] - done_wins + completed
    scores = sparse.csr_matrix((residual, units.cell, units.starts), shape=(clusters, c.m)) @ x
    scores[:, at] += np.bincount(units.deal[touched], weights=completed, minlength=clusters)
    return np.asarray(scores.T @ scores)


#: a building's deal-clustered meat given (j, x0, column of completed, p0, p1): see _cluster_meat
MeatOf = Any


def _building_logit(c: _Cells, j: int, base: np.ndarray, meat_of: MeatOf, overall: float,
                    clusters: int, pseudo_games: float) -> dict[str, float]:
    """The logistic model of building ``j`` (:func:`building_strength`): the columns of
    :data:`_LOGIT_COLUMNS`, NaN when completing it is confounded with the controls.
    ``base``: each cell's design without the completed column; ``units``: the seat-games
    summed per deal and cell; ``clusters``: the number of deals."""
    k1, k0 = c.n1[:, j].sum(), c.n0[:, j].sum()
    total = c.n_cell.sum()
    # the model's rows: the seat-games of each deal with the same covariates and completion
    # pooled into one binomial row (the same likelihood and deal-clustered covariance);
    # their sums over deals are the cells' sums on either side
    counts = np.column_stack([c.n0[:, j], c.n1[:, j]])
    sums = np.column_stack([c.s0[:, j], c.s1[:, j]])
    # pseudo seat-games: ``pseudo_games`` on each side, spread over its cells as its
    # seat-games are, winning the overall win rate, each its own cluster; no cell of
    # either side is then all wins or all losses (Clogg et al. 1991)
    cell, side = np.nonzero(counts)
    pseudo_n = pseudo_games * counts[cell, side] / np.array([k0, k1])[side]
    design = np.column_stack([base[cell, :1], side, base[cell, 1:]])
    # columns that add nothing (a strategy always in one seat, a building only one
    # strategy completes) are left out: the effect is that of the columns kept
    keep = _independent_columns(design)
    if 1 not in keep:
        return dict.fromkeys(_LOGIT_COLUMNS, math.nan)
    fitted, p, bread = models.fit_cells(design[:, keep], sums[cell, side] + pseudo_n * overall,
                                        counts[cell, side] + pseudo_n)
    # every cell's covariates and probability on either side (one without seat-games too)
    x0, x1 = (np.column_stack([base[:, :1], np.full(c.m, s), base[:, 1:]])[:, keep] for s in (0.0, 1.0))
    p0, p1 = (1.0 / (1.0 + np.exp(-(xs @ fitted))) for xs in (x0, x1))
    pseudo_scores = (pseudo_n * (overall - p))[:, None] * design[:, keep]
    meat = meat_of(j, x0, keep.index(1), p0, p1) + pseudo_scores.T @ pseudo_scores
    g = clusters + len(pseudo_n)
    cov = bread @ meat @ bread * (g / (g - 1) if g > 1 else 1.0)
    fit = models.LogitFit(fitted, np.sqrt(np.diag(cov)), bread, float(g - 1))
    params = np.zeros(design.shape[1])
    params[keep] = np.asarray(fit.params)
    at = keep.index(1)
    beta = float(params[1])
    # the larger of the deal-clustered and the model-based standard error: the sandwich
    # is too small when few seat-games completed the building, the model-based one when
    # the games of a deal are correlated
    se = max(float(np.asarray(fit.bse)[at]), math.sqrt(float(fit.normalized_cov_params[at, at])))
    df = float(fit.df_resid_inference)
    half = float(sps.t.ppf(0.975, df)) * se
    low, high = beta - half, beta + half
    # average marginal effect over every seat-game: completed vs not, all else as is
    eta0 = base @ np.r_[params[:1], params[2:]]
    base_p = special.expit(eta0)

    def ame(b: float) -> float:
        return float(np.sum(c.n_cell * (special.expit(eta0 + b) - base_p)) / total)

    return {"log_odds": beta, "log_odds_low": low, "log_odds_high": high,
            "odds_ratio": math.exp(beta), "effect": ame(beta), "effect_low": ame(low),
            "effect_high": ame(high), "p_value": float(2 * sps.t.sf(abs(beta) / se, df))}


def building_strength(frame: pd.DataFrame, *, pseudo_games: float = PSEUDO_GAMES) -> pd.DataFrame:
    """For each building (index ``building``: the 44 and any other name in the records),
    the win rate of seat-games that completed it against those that did not, ranked by the
    adjusted effect (largest first; buildings never or always completed last, with NaN).

    * raw: ``win_rate_completed``, ``win_rate_not`` and ``raw_diff``;
    * stratified: ``mh_diff`` with ``mh_low``/``mh_high``, the difference within strata of
      spec x player count (x rules when several), pooled with Mantel-Haenszel weights
      (seat-games taken as independent: a check on the model, not deal-aware);
    * logistic: ``win ~ completed + spec + players:seat (+ rules)`` on the win share,
      fitted by statsmodels (:func:`.models.clustered_logit`) with ``pseudo_games``
      pseudo seat-games on each side (completed, not completed), spread over its cells and
      winning the overall win rate, which keeps the estimates finite when a building (or a
      strategy) only wins;
      ``log_odds`` (the coefficient of ``completed``) with its 95% t interval (deals - 1
      degrees of freedom) on the larger of two standard errors, the deal-clustered
      (cluster-robust) one and the model-based one;
      ``odds_ratio``; ``effect``: the average marginal effect, in win-rate points (0.12 =
      +12 points), of completing the building, with ``effect_low``/``effect_high`` the
      effects at the ends of the log-odds interval (the other coefficients as estimated);
      ``p_value``, the t-test of ``log_odds = 0`` with the same standard error (it rejects
      at 5% exactly when the interval excludes 0), and ``p_holm`` its Holm adjustment over
      the buildings tested; ``significant`` is ``p_holm < 0.05``.

    Also ``n_completed`` (seat-games that completed it), ``completion_rate`` and ``rank``.
    These are associations, not causes: completing buildings scores influence, and strong
    positions complete more of them (docs/analysis.md)."""
    cols = completed_columns(frame)
    need_columns(frame, ["spec", "num_players", "seat", "win_share", "deal", *cols[:1]], "building_strength")
    if not cols:
        raise AnalysisError("building_strength: the frame has no completed:NAME columns "
                            "(load it with load_runs)")
    names = [c[len("completed:"):] for c in cols]
    many_rules = "rules" in frame.columns and frame["rules"].nunique() > 1
    controls = ["spec", "num_players", "seat"] + (["rules"] if many_rules else [])
    c = _building_cells(frame, cols, controls)
    deal = unit_keys(frame, ["run", "deal"])
    clusters = int(deal.max()) + 1
    units = _units(c, deal)

    def meat_of(j: int, x0: np.ndarray, at: int, p0: np.ndarray, p1: np.ndarray) -> np.ndarray:
        return _cluster_meat(c, j, units, x0, at, (p0, p1), clusters)

    return building_table(c, names, many_rules, meat_of, units.overall, clusters, pseudo_games)


def building_table(c: _Cells, names: list[str], many_rules: bool, meat_of: MeatOf, overall: float,
                   clusters: int, pseudo_games: float = PSEUDO_GAMES) -> pd.DataFrame:
    """:func:`building_strength` from the seat-games summed per cell of the controls
    (``c``; its per-row fields unused), each building's deal-clustered meat (``meat_of``),
    the overall win share and the number of deals."""
    controls = ["spec", "num_players", "seat"] + (["rules"] if many_rules else [])
    # strata of the stratified difference: spec x players (x rules)
    strata_cols = ["spec", "num_players"] + (["rules"] if many_rules else [])
    sn1, ss1, sq1, sn0, ss0, sq0 = _strata_sums(c, strata_cols)
    # the logistic design of each cell: intercept, spec, players:seat, rules (the
    # completed column goes in second place, per building)
    factors = [["spec"], ["num_players", "seat"]] + ([["rules"]] if many_rules else [])
    base = np.hstack([np.ones((c.m, 1)), _dummies(c.keys, factors)])
    total = c.n_cell.sum()

    out = {}
    for j, name in enumerate(names):
        k1, k0 = c.n1[:, j].sum(), c.n0[:, j].sum()
        row: dict[str, float] = {
            "n_completed": int(k1), "completion_rate": k1 / total,
            "win_rate_completed": c.s1[:, j].sum() / k1 if k1 else math.nan,
            "win_rate_not": c.s0[:, j].sum() / k0 if k0 else math.nan,
        }
        row["raw_diff"] = row["win_rate_completed"] - row["win_rate_not"]
        row["mh_diff"], row["mh_low"], row["mh_high"] = stratified_difference(
            sn1[:, j], ss1[:, j], sq1[:, j], sn0[:, j], ss0[:, j], sq0[:, j])
        row.update(_building_logit(c, j, base, meat_of, overall, clusters, pseudo_games) if k1 and k0
                   else dict.fromkeys(_LOGIT_COLUMNS, math.nan))
        out[name] = row
    table = pd.DataFrame.from_dict(out, orient="index")
    table.index.name = "building"
    table["p_holm"], label = paired.holm(table["p_value"].to_numpy(float))
    table["significant"] = table["p_holm"] < 0.05
    table = table.sort_values(["effect", "n_completed"], ascending=[False, False],
                              na_position="last", kind="stable")
    table["rank"] = np.where(table["effect"].notna(), np.arange(1, len(table) + 1), 0)
    table["rank"] = table["rank"].astype(int)
    table.attrs.update({"controls": controls, "strata": strata_cols, "pseudo_games": pseudo_games,
                        "deals": clusters, "model": BUILDING_MODEL,
                        "tested": int(table["p_value"].notna().sum()), "holm": label})
    return table


# ---- scoring, endings, length -----------------------------------------------------------------

def vp_breakdown(frame: pd.DataFrame, by: str | Sequence[str] | None = None) -> pd.DataFrame:
    """Mean VP per seat-game by component (``influence``, ``vault``, ``merchant_bonus``,
    ``statue``, ``wall``; ``buildings`` where a variant gives building points) and in all
    (``total``), per spec (index ``spec``, or (``by``..., spec)), with ``games``."""
    by = _by(by)
    need_columns(frame, ["spec", "score", *VP_COLUMNS, *by], "vp_breakdown")
    # a variant's building points (R-V.2), where the games hold them
    extra = [VP_BUILDINGS] if f"vp_{VP_BUILDINGS}" in frame.columns else []
    grouped = frame.groupby([*by, "spec"], observed=True, sort=True)
    out = grouped[[*VP_COLUMNS, *(f"vp_{c}" for c in extra)]].mean()
    out.columns = [*VP_COMPONENTS, *extra]
    out["total"] = grouped["score"].mean()
    out.insert(0, "games", grouped.size())
    return _sort_within(out, by, "total")


def _by_spec(sums: pd.DataFrame, by: list[str], specs: Sequence[str]) -> pd.DataFrame:
    """Group sums (:meth:`glory_ai.analysis.stream.RunStream.grouped` over ``[*by,
    "spec"]``) indexed as the frame's groupby indexes them: the spec categorical (``specs``,
    the frame's order of its categories), sorted."""
    flat = sums.reset_index()
    spec = pd.Categorical(flat["spec"], categories=list(dict.fromkeys(specs)))
    if by:
        index = pd.MultiIndex.from_arrays([*(flat[c].to_numpy() for c in by), spec], names=[*by, "spec"])
    else:
        index = pd.CategoricalIndex(spec, name="spec")
    return sums.set_axis(index).sort_index()


def vp_breakdown_of_sums(sums: pd.DataFrame, by: str | Sequence[str] | None, specs: Sequence[str]
                         ) -> pd.DataFrame:
    """:func:`vp_breakdown` from the sums of ``score`` and the VP columns per ([by...,]
    spec) (:meth:`glory_ai.analysis.stream.RunStream.grouped`); ``specs`` the frame's order
    of the specs."""
    by = _by(by)
    sums = _by_spec(sums, by, specs)
    extra = [VP_BUILDINGS] if f"sum:vp_{VP_BUILDINGS}" in sums.columns else []
    out = pd.DataFrame({name: sums[f"sum:{column}"] / sums[f"n:{column}"]
                        for name, column in zip([*VP_COMPONENTS, *extra],
                                                [*VP_COLUMNS, *(f"vp_{c}" for c in extra)], strict=True)},
                       index=sums.index)
    out["total"] = sums["sum:score"] / sums["n:score"]
    out.insert(0, "games", sums["rows"].astype(np.int64))
    return _sort_within(out, by, "total")


def roles_led_of_sums(sums: pd.DataFrame, by: str | Sequence[str] | None, specs: Sequence[str],
                      cols: Sequence[str]) -> pd.DataFrame:
    """:func:`roles_led` from the sums of the ``led:ROLE`` columns ``cols`` per ([by...,]
    spec) over the seat-games that carry them."""
    by = _by(by)
    if sums.empty:
        raise AnalysisError("roles_led: no record carries roles_led")
    sums = _by_spec(sums, by, specs)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = pd.DataFrame({c[len("led:"):]: sums[f"sum:{c}"] / sums[f"n:{c}"] for c in cols},
                           index=sums.index)
    out.insert(0, "games", sums["rows"].astype(np.int64))
    return out


def _reason_order(values: Sequence[str]) -> list[str]:
    known = [r for r in END_REASONS if r in values]
    return known + sorted(set(values) - set(END_REASONS))


def end_conditions(frame: pd.DataFrame, by: str | Sequence[str] | None = None, *,
                   resamples: int = paired.BOOTSTRAP_RESAMPLES, seed: int = 0) -> pd.DataFrame:
    """How games end: per end reason (index ``end_reason``, or (``by``..., end_reason) with
    per-game columns such as ``num_players`` or ``rules``), ``games``, ``share`` and its 95%
    deal-bootstrap interval (``low``, ``high``: whole deals resampled,
    :func:`.paired.bootstrap_rates`), with the Wilson interval of the games taken as
    independent beside it (``wilson_low``, ``wilson_high``). Reasons seen anywhere appear
    in every group."""
    by = _by(by)
    need_columns(frame, ["game", "seat", "deal", "end_reason", *by], "end_conditions")
    per_game = frame[frame["seat"] == 0]
    reasons = _reason_order([str(r) for r in per_game["end_reason"].unique()])
    code = pd.Categorical(texts(per_game["end_reason"]), categories=reasons).codes
    per_game = per_game.assign(_reason=code)
    groups = per_game.groupby(by, observed=True, sort=True) if by else [((), per_game)]
    parts = []
    for key, sub in groups:
        unit = unit_keys(sub, ["run", "deal"])
        n_units, n_reasons = int(unit.max()) + 1, len(reasons)
        ended = np.bincount(unit * n_reasons + sub["_reason"].to_numpy(),
                            minlength=n_units * n_reasons).reshape(n_units, n_reasons)
        parts.append((key, ended))
    return end_conditions_of_counts(parts, by, reasons, resamples=resamples, seed=seed)


def end_conditions_of_counts(parts: Sequence[tuple[Any, np.ndarray]], by: Sequence[str],
                             reasons: Sequence[str], *, resamples: int = paired.BOOTSTRAP_RESAMPLES,
                             seed: int = 0) -> pd.DataFrame:
    """:func:`end_conditions` from each group's games per deal and end reason: ``parts``
    (group key, deals x ``reasons`` counts, the deals holding its games in (run, deal)
    order), the groups in order."""
    by = list(by)
    out_parts = []
    for key, ended in parts:
        key = key if isinstance(key, tuple) else (key,)
        n_reasons = len(reasons)
        # the deals grouped before the games per deal are spread over the reasons (the sums
        # the bootstrap would group, the same integers): one deal-sized copy, not four
        (counts,) = grouped_units(ended.astype(float))
        played = np.repeat(counts.sum(axis=1)[:, None], n_reasons, axis=1)
        low, high = paired.bootstrap_rates(counts, played, resamples, seed)
        games, total = ended.sum(axis=0), ended.sum()
        w_low, w_high = paired.wilson(games, np.full(n_reasons, total))
        index = pd.MultiIndex.from_tuples([(*key, r) for r in reasons], names=[*by, "end_reason"]) \
            if by else pd.Index(list(reasons), name="end_reason")
        out_parts.append(pd.DataFrame({"games": games, "share": games / total, "low": low,
                                       "high": high, "wilson_low": w_low, "wilson_high": w_high},
                                      index=index))
    out = pd.concat(out_parts)
    out.attrs.update({"model": bootstrap_model(resamples), "resamples": resamples,
                      "seed": seed})
    return out


def game_length(frame: pd.DataFrame, by: str | Sequence[str] | None = "num_players") -> pd.DataFrame:
    """Turns and decisions per game: ``games`` and, for ``turns`` and ``decisions``, the mean,
    standard deviation, minimum, quartiles and maximum (``turns_mean``, ``turns_sd``,
    ``turns_min``, ``turns_q25``, ``turns_median``, ``turns_q75``, ``turns_max``, ...), per
    group of ``by`` (default: per player count; None: all games, index ``all``)."""
    by = _by(by)
    need_columns(frame, ["game", "seat", "turns", "decisions", *by], "game_length")
    per_game = frame[frame["seat"] == 0]
    if by:
        grouped = per_game.groupby(by, observed=True, sort=True)
    else:
        grouped = per_game.assign(_all="all").groupby("_all")
    parts = {"games": grouped.size()}
    for col in ("turns", "decisions"):
        g = grouped[col]
        parts.update({f"{col}_mean": g.mean(), f"{col}_sd": g.std(), f"{col}_min": g.min(),
                      f"{col}_q25": g.quantile(0.25), f"{col}_median": g.median(),
                      f"{col}_q75": g.quantile(0.75), f"{col}_max": g.max()})
    out = pd.DataFrame(parts)
    if not by:
        out.index.name = None
    return out


def roles_led(frame: pd.DataFrame, by: str | Sequence[str] | None = None) -> pd.DataFrame:
    """Mean turns per seat-game leading each role, per spec (index ``spec``, or (``by``...,
    spec)), from the ``led:ROLE`` columns (records carrying ``roles_led``), and ``games``
    (seat-games with the information)."""
    by = _by(by)
    cols = led_columns(frame)
    if not cols:
        raise AnalysisError("roles_led: these records carry no roles_led (older records)")
    need_columns(frame, ["spec", *by, *cols], "roles_led")
    known = frame[frame[cols[0]].notna()]
    if known.empty:
        raise AnalysisError("roles_led: no record carries roles_led")
    grouped = known.groupby([*by, "spec"], observed=True, sort=True)
    out = grouped[cols].mean()
    out.columns = [c[len("led:"):] for c in cols]
    out.insert(0, "games", grouped.size())
    return out


# ---- rule variants ------------------------------------------------------------------------------

def compare_variants(frame: pd.DataFrame, by: str = "rules") -> pd.DataFrame:
    """The core measures side by side for each value of ``by`` (``"rules"``: mode and
    variant, default; or ``"mode"``, ``"variant"``, ``"run"``): one column per condition, and
    ``p_value``, the test that the measure is the same in every condition, and ``p_holm``,
    its Holm adjustment over every test of the table (:func:`.paired.holm`):

    ========================  ==========================================================
    rows (measure, item)      value
    ========================  ==========================================================
    games, all                games (no test)
    win rate, SPEC            win rate of SPEC
    mean VP, SPEC             mean final VP of SPEC
    P1 win rate, K players    win rate of seat 0 in K-player games
    turns, mean               mean turns per game
    decisions, mean           mean decisions per game
    end, REASON               share of games ending so
    ========================  ==========================================================

    Every test takes the deal as the unit: each deal (run and deal) of a condition gives
    the measure's mean over its games, and :func:`conditions_test` compares those per-deal
    means between the conditions (:data:`VARIANT_TEST`).

    Needs two or more conditions with the same player counts (otherwise a difference
    between conditions would be one between player counts: AnalysisError)."""
    need_columns(frame, ["game", "seat", "spec", "deal", "win_share", "score", "num_players", "turns",
                         "decisions", "end_reason", by], "compare_variants")
    values = [str(v) for v in frame[by].astype(str).unique()]
    conditions = sorted(values)
    if len(conditions) < 2:
        raise AnalysisError(f"compare_variants needs games of two or more {by} values; all "
                            f"these games have {by} = {conditions[0]!r}")
    key = frame[by].astype(str)
    counts = frame.groupby(key, observed=True)["num_players"].unique()
    sets = {c: sorted(int(x) for x in counts[c]) for c in conditions}
    if len({tuple(s) for s in sets.values()}) > 1:
        detail = "; ".join(f"{c}: {', '.join(map(str, s))}-player" for c, s in sets.items())
        raise AnalysisError(f"compare_variants: the {by} values have different player counts "
                            f"({detail}); compare runs with the same player counts")
    measures: dict[tuple[str, str], dict[str, tuple[float, np.ndarray]]] = {}
    per_game = frame[frame["seat"] == 0]
    game_key = per_game[by].astype(str)

    def add(measure: str, item: str, rows_of: pd.DataFrame, keys: pd.Series, column: str) -> None:
        """The measure's mean of ``column`` per condition and its per-deal means."""
        found = {}
        for c in conditions:
            part = rows_of[(keys == c).to_numpy()]
            if len(part):
                found[c] = (float(part[column].mean()), paired.deal_means(part, column))
        measures[(measure, item)] = found

    specs = sorted(str(s) for s in frame["spec"].unique())
    spec_text = frame["spec"].astype(str)
    for spec in specs:
        mask = (spec_text == spec).to_numpy()
        add("win rate", spec, frame[mask], key[mask], "win_share")
    for spec in specs:
        mask = (spec_text == spec).to_numpy()
        add("mean VP", spec, frame[mask], key[mask], "score")
    for k in sorted(int(x) for x in frame["num_players"].unique()):
        mask = ((frame["seat"] == 0) & (frame["num_players"] == k)).to_numpy()
        add("P1 win rate", f"{k} players", frame[mask], key[mask], "win_share")
    for col in ("turns", "decisions"):
        add(col, "mean", per_game, game_key, col)
    reason = per_game["end_reason"].astype(str)
    for r in _reason_order(sorted(set(reason))):
        add("end", r, per_game.assign(_ended=(reason == r).to_numpy(float)), game_key, "_ended")
    return variant_table(by, conditions, {c: int((game_key == c).sum()) for c in conditions}, measures)
