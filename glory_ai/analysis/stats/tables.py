"""The tables: each a function from the frame of :func:`~glory_ai.analysis.load.load_runs`
(or :func:`~glory_ai.analysis.load.frame_of_records`) to a pandas DataFrame; the report
and compare's summary are made of them (docs/analysis.md describes every column and model).

=============================  =================================================================
:func:`win_rates`              win rate (shared wins split) per spec, Wilson 95% intervals;
                               ``by="num_players"``, ``"seat"``, ``"rules"``, ... to split it
:func:`win_matrix`             mean pairwise score of each spec against each other (one
                               player count)
:func:`ratings`                Bradley-Terry (2 players, bootstrap intervals) or
                               Plackett-Luce (3-5 players) ratings (one player count)
:func:`elo_difference`         the Elo difference of one spec over another, from their
                               wins, draws and losses (a head-to-head match)
:func:`score_test`,            p-values of "no difference" between two specs: a pairwise
:func:`rates_test`             score (binomial) or two win rates (chi-square)
:func:`seat_advantage`         win rate by seat for each player count, with intervals
:func:`seat_tests`             per player count, the test of "no seat advantage" (exact
                               binomial for 2 seats, chi-square for 3-5) and its p-value
:func:`building_strength`      for each building, win rate of players who completed it against
                               those who did not: raw, stratified (Mantel-Haenszel) and from a
                               logistic regression controlling for spec, seat and player count
:func:`vp_breakdown`           mean VP by component (influence, vault, merchant bonus, statue,
                               wall) per spec
:func:`end_conditions`         how games end, with shares and intervals
:func:`game_length`            turns and decisions per game
:func:`roles_led`              turns leading each role, per spec (records with ``roles_led``)
:func:`compare_variants`       the core measures side by side for two or more rule variants
                               or modes, with tests of "no difference"
=============================  =================================================================

The statistics come from the modules beside this one: :mod:`.intervals` (Wilson intervals,
Elo), :mod:`.ladder` (Bradley-Terry, Plackett-Luce, pairwise scores), :mod:`.models`
(logistic regression, Mantel-Haenszel, Holm), and scipy (tests).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import special
from scipy import stats as sps

from .. import AnalysisError
from ..load import END_REASONS, VP_COLUMNS, VP_COMPONENTS, completed_columns, led_columns
from .intervals import elo_interval, wilson
from .ladder import BOOTSTRAP, bradley_terry, pairwise_scores, plackett_luce_ratings
from .models import fit_logistic, holm, profile_interval, stratified_difference

__all__ = [
    "PRIOR_SD", "building_strength", "compare_variants", "elo_difference", "end_conditions",
    "game_length", "ratings", "rates_test", "roles_led", "score_test", "seat_advantage",
    "seat_tests", "vp_breakdown", "win_matrix", "win_rates",
]

#: standard deviation of the Gaussian prior on the logistic coefficients (log-odds)
PRIOR_SD = 10.0


# ---- helpers ----------------------------------------------------------------------------------

def _need(frame: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    if not isinstance(frame, pd.DataFrame):
        raise AnalysisError(f"{what} takes the DataFrame of load_runs, got {type(frame).__name__}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise AnalysisError(f"{what}: the frame has no column {', '.join(map(repr, missing))} "
                            "(load it with load_runs)")
    if frame.empty:
        raise AnalysisError(f"{what}: no games (the frame is empty)")


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
    return frame[frame["num_players"] == num_players], int(num_players)


def _seat_matrix(frame: pd.DataFrame, k: int, columns: Sequence[str], what: str) -> list[np.ndarray]:
    """(games x k) arrays of ``columns``, rows in game order and columns in seat order;
    every seat of every game must be present."""
    if not (frame["game"].is_monotonic_increasing):
        frame = frame.sort_values(["game", "seat"], kind="stable")
    seats = frame["seat"].to_numpy()
    if len(seats) % k or not np.array_equal(seats, np.tile(np.arange(k), len(seats) // k)) \
            or not (frame["game"].to_numpy()[::k].repeat(k) == frame["game"].to_numpy()).all():
        raise AnalysisError(f"{what}: every seat of every game must be in the frame (rows of "
                            "a game were filtered out?)")
    out = []
    for c in columns:
        col = frame[c]
        values = col.astype(str).to_numpy() if isinstance(col.dtype, pd.CategoricalDtype) \
            else col.to_numpy()
        out.append(values.reshape(-1, k))
    return out


def _sort_within(out: pd.DataFrame, by: list[str], column: str) -> pd.DataFrame:
    keys = list(out.index.names)
    flat = out.reset_index()
    flat = flat.sort_values([*by, column, keys[-1]], ascending=[True] * len(by) + [False, True],
                            kind="stable")
    return flat.set_index(keys)


# ---- win rates --------------------------------------------------------------------------------

def win_rates(frame: pd.DataFrame, by: str | Sequence[str] | None = None) -> pd.DataFrame:
    """Win rate per spec, with its Wilson 95% interval; one row per spec (index ``spec``),
    or per (``by`` ..., spec) with ``by`` columns such as ``"num_players"``, ``"seat"``,
    ``"rules"`` or ``"run"``. Sorted by win rate within each group.

    Columns: ``games`` (seat-games: a spec in two seats of a game counts twice), ``wins``
    (a win shared by k players counts 1/k), ``win_rate``, ``win_low``, ``win_high``,
    ``expected`` (the equal share, mean of 1/players), ``mean_score``, ``mean_rank``."""
    by = _by(by)
    _need(frame, ["spec", "win_share", "score", "rank", "num_players", *by], "win_rates")
    data = frame.assign(_expected=1.0 / frame["num_players"])
    out = data.groupby([*by, "spec"], observed=True, sort=True).agg(
        games=("win_share", "size"), wins=("win_share", "sum"), expected=("_expected", "mean"),
        mean_score=("score", "mean"), mean_rank=("rank", "mean"))
    out["win_rate"] = out["wins"] / out["games"]
    out["win_low"], out["win_high"] = wilson(out["wins"], out["games"])
    out = out[["games", "wins", "win_rate", "win_low", "win_high", "expected", "mean_score",
               "mean_rank"]]
    return _sort_within(out, by, "win_rate")


# ---- pairwise matrix and ratings ------------------------------------------------------------

def win_matrix(frame: pd.DataFrame, num_players: int | None = None) -> pd.DataFrame:
    """Mean pairwise score of the row spec against the column spec (NaN where they never
    met and on the diagonal), from :func:`~glory_ai.analysis.stats.ladder.pairwise_scores`: in every game,
    every pair of specs scores 1 for the one with the larger share of the win, 0.5 each if
    equal (seats of the same spec in a game are added up). One player count only.
    ``attrs["games"]`` holds the number of games each pair shared (a nested list)."""
    _need(frame, ["game", "spec", "win_share", "num_players"], "win_matrix")
    sub, k = _one_count(frame, num_players, "win_matrix")
    shares = sub.groupby(["game", "spec"], observed=True)["win_share"].sum().unstack("spec")
    names = [str(c) for c in shares.columns]
    index = {n: i for i, n in enumerate(names)}
    size = len(names)
    score = np.zeros((size, size))
    count = np.zeros((size, size))
    # identical outcomes are scored once by pairwise_scores and counted with their multiplicity
    patterns = shares.value_counts(dropna=False, sort=False)
    for values, times in patterns.items():
        values = values if isinstance(values, tuple) else (values,)
        game = {names[i]: float(v) for i, v in enumerate(values) if not math.isnan(v)}
        if len(game) < 2:
            continue
        total = sum(game.values())
        if total == 0:              # no winner recorded: every pair shared 0 -> a draw
            game = {name: 1.0 / len(game) for name in game}
        elif not math.isclose(total, 1.0):
            game = {name: v / total for name, v in game.items()}
        pnames, mean, played = pairwise_scores([game])
        ids = np.array([index[p] for p in pnames])
        block = np.nan_to_num(mean) * played
        score[np.ix_(ids, ids)] += times * block
        count[np.ix_(ids, ids)] += times * played
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(count > 0, score / np.maximum(count, 1), np.nan)
    out = pd.DataFrame(mean, index=pd.Index(names, name="spec"),
                       columns=pd.Index(names, name="opponent"))
    out.attrs.update({"games": count.astype(int).tolist(), "num_players": k})
    return out


def ratings(frame: pd.DataFrame, num_players: int | None = None, *,
            bootstrap: int = BOOTSTRAP, seed: int = 0, names: Sequence[str] | None = None,
            method: str | None = None) -> pd.DataFrame:
    """Ratings of the specs in games of one player count (index ``spec``, best first).

    2 players: Bradley-Terry on the Elo scale (:func:`.ladder.bradley_terry`, virtual-draw
    prior, ``bootstrap`` resamples seeded with ``seed`` for the 95% intervals), from the
    games between two different specs; a shared win is a draw. ``names``: the specs to rate,
    in the order of the fit (default: those that played, sorted; the ratings agree to a
    millionth of a point whatever the order).
    3-5 players (or any count with ``method="plackett_luce"``): Weng-Lin Plackett-Luce
    through openskill (:func:`.ladder.plackett_luce_ratings`), places from the ``rank`` column
    (winners first, then by VP), from the games whose seats hold distinct specs; ``rating``
    is mu and the interval mu -+ 1.96 sigma.

    Columns ``rating``, ``low``, ``high``, ``games`` (and ``sigma``, ``ordinal`` for
    Plackett-Luce); ``attrs``: ``method`` (``bradley_terry``, ``plackett_luce`` or None when
    no game pits two specs against each other), ``num_players``, ``games`` (games used)."""
    _need(frame, ["game", "seat", "spec", "win_share", "rank", "num_players"], "ratings")
    sub, k = _one_count(frame, num_players, "ratings")
    method = method or ("bradley_terry" if k == 2 else "plackett_luce")
    if method not in ("bradley_terry", "plackett_luce"):
        raise AnalysisError(f"ratings: method is bradley_terry or plackett_luce, not {method!r}")
    if method == "bradley_terry" and k != 2:
        raise AnalysisError(f"ratings: Bradley-Terry rates 2-player games, not {k}-player ones")
    columns = ["rating", "low", "high", "games"]
    if method == "bradley_terry":
        spec, share = _seat_matrix(sub, 2, ["spec", "win_share"], "ratings")
        distinct = spec[:, 0] != spec[:, 1]
        results = list(zip(spec[distinct, 0].tolist(), spec[distinct, 1].tolist(),
                           share[distinct, 0].tolist(), strict=True))
        used = len(results)
        if used:
            rated = bradley_terry(results, names=names, bootstrap=bootstrap, seed=seed)
            rows = {r.name: [r.rating, r.low, r.high, r.games] for r in rated}
    else:
        spec, rank = _seat_matrix(sub, k, ["spec", "rank"], "ratings")
        ordered = np.sort(spec, axis=1)
        distinct = (ordered[:, 1:] != ordered[:, :-1]).all(axis=1)
        order = np.argsort(rank[distinct], axis=1, kind="stable")
        ranks_sorted = np.take_along_axis(rank[distinct], order, axis=1)
        specs_sorted = np.take_along_axis(spec[distinct], order, axis=1).tolist()
        tied = (ranks_sorted[:, 1:] == ranks_sorted[:, :-1]).any(axis=1)
        # a ranking is a list of names, first place first; games with ties group them
        rankings: list[list[Any]] = specs_sorted
        for i in np.flatnonzero(tied).tolist():
            groups: list[list[str]] = []
            last = None
            for name, place in zip(specs_sorted[i], ranks_sorted[i].tolist(), strict=True):
                if place == last:
                    groups[-1].append(name)
                else:
                    groups.append([name])
                    last = place
            rankings[i] = groups
        used = len(rankings)
        if used:
            names_all = list(names) if names is not None else \
                sorted({str(n) for n in np.unique(spec[distinct])})
            skill = plackett_luce_ratings(rankings, names_all)
            rows = {r.name: [r.rating, r.low, r.high, r.games, r.sigma, r.ordinal] for r in skill}
            columns = [*columns, "sigma", "ordinal"]
    if not used:
        out = pd.DataFrame(columns=columns, index=pd.Index([], name="spec"), dtype=float)
        out.attrs.update({"method": None, "num_players": k, "games": 0})
        return out
    out = pd.DataFrame.from_dict(rows, orient="index", columns=columns)
    out.index.name = "spec"
    out["games"] = out["games"].astype(int)
    out.attrs.update({"method": method, "num_players": k, "games": used})
    return out


def elo_difference(frame: pd.DataFrame, spec: str, opponent: str) -> dict[str, float]:
    """The Elo difference of ``spec`` over ``opponent`` from their games against each other
    (a head-to-head match), by :func:`.intervals.elo_interval`: each game is a win, a draw
    (a shared win) or a loss for ``spec``, and the interval is the normal one on the mean
    score, mapped to Elo. Returns ``wins``, ``draws``, ``losses``, ``elo``, ``low`` and
    ``high`` (infinite when the interval reaches a score of 0 or 1)."""
    _need(frame, ["game", "spec", "win_share"], "elo_difference")
    pair = frame[frame["spec"].isin([spec, opponent])]
    shares = pair.groupby(["game", "spec"], observed=True)["win_share"].sum().unstack("spec")
    if spec not in shares.columns or opponent not in shares.columns:
        raise AnalysisError(f"elo_difference: {spec} and {opponent} never played each other")
    score = shares.loc[shares[opponent].notna(), spec].dropna().to_numpy()
    if not len(score):
        raise AnalysisError(f"elo_difference: {spec} and {opponent} never played each other")
    wins, draws, losses = (int((score == x).sum()) for x in (1.0, 0.5, 0.0))
    elo, low, high = elo_interval(wins, draws, losses)
    return {"wins": wins, "draws": draws, "losses": losses, "elo": elo, "low": low, "high": high}


def score_test(score: float, games: int) -> float:
    """The p-value of "evenly matched" for a mean pairwise score over ``games`` games (of
    :func:`win_matrix`): the exact binomial test of round(score x games) wins against 1/2."""
    return float(sps.binomtest(int(round(score * games)), int(games), 0.5).pvalue)


def rates_test(wins: float, games: float, other_wins: float, other_games: float) -> float:
    """The p-value of "the same win rate" for two specs that did not meet: Pearson's
    chi-square test (no continuity correction) on their wins and losses."""
    table = np.array([[wins, games - wins], [other_wins, other_games - other_wins]])
    return float(sps.chi2_contingency(table, correction=False).pvalue)


# ---- seats ------------------------------------------------------------------------------------

def seat_advantage(frame: pd.DataFrame) -> pd.DataFrame:
    """Win rate by seat for each player count (index ``num_players``, ``seat``; seat 0 is P1,
    who leads the first turn): ``games``, ``wins`` (shared wins split), ``win_rate`` with
    its Wilson 95% interval, ``expected`` (1/players) and ``diff`` (win rate - expected)."""
    _need(frame, ["num_players", "seat", "win_share"], "seat_advantage")
    out = frame.groupby(["num_players", "seat"], sort=True).agg(
        games=("win_share", "size"), wins=("win_share", "sum"))
    out["win_rate"] = out["wins"] / out["games"]
    out["win_low"], out["win_high"] = wilson(out["wins"], out["games"])
    out["expected"] = 1.0 / out.index.get_level_values("num_players")
    out["diff"] = out["win_rate"] - out["expected"]
    return out


def seat_tests(frame: pd.DataFrame) -> pd.DataFrame:
    """The test of "no seat advantage" for each player count (index ``num_players``).

    Only games with one winner count (``decisive``; shared wins are left out). 2 players:
    the exact binomial test of P1's wins against 1/2; 3-5 players: Pearson's chi-square
    goodness-of-fit test of the wins per seat against equal shares (k - 1 degrees of
    freedom). Columns: ``games``, ``decisive``, ``test``, ``statistic`` (P1's wins or the
    chi-square), ``dof``, ``p_value``, ``best_seat`` and ``best_rate`` (the seat with the
    highest win rate), ``balanced`` (every spec sat equally often in every seat: otherwise
    a seat effect is mixed up with the strength of the specs that sat there)."""
    _need(frame, ["num_players", "seat", "won", "win_share", "game", "spec"], "seat_tests")
    rows = {}
    for k, sub in frame.groupby("num_players", sort=True):
        k = int(k)
        winners = sub.groupby("game", sort=False)["won"].transform("sum")
        sole = sub[(winners == 1) & sub["won"]]
        counts = np.bincount(sole["seat"].to_numpy(), minlength=k)[:k]
        decisive = int(counts.sum())
        n_games = int(sub["game"].nunique())
        if k == 2:
            test = "binomial"
            statistic = float(counts[0])
            dof = 1
            p = float(sps.binomtest(int(counts[0]), decisive, 0.5).pvalue) if decisive else math.nan
        else:
            test = "chi-square"
            dof = k - 1
            if decisive:
                res = sps.chisquare(counts)
                statistic, p = float(res.statistic), float(res.pvalue)
            else:
                statistic, p = math.nan, math.nan
        rates = sub.groupby("seat")["win_share"].mean()
        table = sub.groupby(["spec", "seat"], observed=True).size().unstack("seat", fill_value=0)
        balanced = bool(table.shape[1] == k and (table.nunique(axis=1) == 1).all())
        rows[k] = {"games": n_games, "decisive": decisive, "test": test, "statistic": statistic,
                   "dof": dof, "p_value": p, "best_seat": int(rates.idxmax()),
                   "best_rate": float(rates.max()), "balanced": balanced}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "num_players"
    return out


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


def building_strength(frame: pd.DataFrame, *, prior_sd: float = PRIOR_SD) -> pd.DataFrame:
    """For each building (index ``building``: the 44 and any other name in the records),
    the win rate of seat-games that completed it against those that did not, ranked by the
    adjusted effect (largest first; buildings never or always completed last, with NaN).

    * raw: ``win_rate_completed``, ``win_rate_not`` and ``raw_diff``;
    * stratified: ``mh_diff`` with ``mh_low``/``mh_high``, the difference within strata of
      spec x player count (x rules when several), pooled with Mantel-Haenszel weights;
    * logistic: ``win ~ completed + spec + players:seat (+ rules)`` fitted on the win share
      (:func:`.models.fit_logistic`, a weak N(0, ``prior_sd``^2) prior on the
      coefficients): ``log_odds`` (the coefficient of ``completed``) with its profile-likelihood
      interval (which excludes 0 exactly when the likelihood-ratio test below rejects at 5%),
      ``odds_ratio``, and ``effect``: the average marginal effect, in win-rate points
      (0.12 = +12 points), of completing the building, with ``effect_low``/``effect_high`` the
      effects at the ends of the log-odds interval (the other coefficients as estimated);
      ``p_value`` is the likelihood-ratio test of ``log_odds = 0`` and ``p_holm`` its Holm
      adjustment over the buildings tested; ``significant`` is ``p_holm < 0.05``.

    Also ``n_completed`` (seat-games that completed it), ``completion_rate`` and ``rank``.
    These are associations, not causes: completing buildings scores influence, and strong
    positions complete more of them (docs/analysis.md)."""
    cols = completed_columns(frame)
    _need(frame, ["spec", "num_players", "seat", "win_share", *cols[:1]], "building_strength")
    if not cols:
        raise AnalysisError("building_strength: the frame has no completed:NAME columns "
                            "(load it with load_runs)")
    names = [c[len("completed:"):] for c in cols]
    many_rules = "rules" in frame.columns and frame["rules"].nunique() > 1
    controls = ["spec", "num_players", "seat"] + (["rules"] if many_rules else [])
    cell, keys = _cells(frame, controls)
    m = len(keys)
    nb = len(cols)
    y = frame["win_share"].to_numpy(dtype=float)
    n_cell = np.bincount(cell, minlength=m).astype(float)
    y_cell = np.bincount(cell, weights=y, minlength=m)
    q_cell = np.bincount(cell, weights=y * y, minlength=m)
    rows_idx, b_idx = np.nonzero(frame[cols].to_numpy(dtype=bool))
    flat = cell[rows_idx] * nb + b_idx
    n1 = np.bincount(flat, minlength=m * nb).reshape(m, nb).astype(float)
    s1 = np.bincount(flat, weights=y[rows_idx], minlength=m * nb).reshape(m, nb)
    q1 = np.bincount(flat, weights=y[rows_idx] ** 2, minlength=m * nb).reshape(m, nb)
    n0 = n_cell[:, None] - n1
    s0 = y_cell[:, None] - s1
    q0 = q_cell[:, None] - q1

    # strata of the stratified difference: spec x players (x rules)
    strata_cols = ["spec", "num_players"] + (["rules"] if many_rules else [])
    stratum = keys.groupby(strata_cols, observed=True, sort=True).ngroup().to_numpy()
    n_strata = int(stratum.max()) + 1

    def to_strata(a: np.ndarray) -> np.ndarray:
        out = np.zeros((n_strata, a.shape[1]))
        np.add.at(out, stratum, a)
        return out

    sn1, ss1, sq1, sn0, ss0, sq0 = (to_strata(a) for a in (n1, s1, q1, n0, s0, q0))

    # logistic design per cell: intercept, [completed], spec, players:seat, rules
    factors = [["spec"], ["num_players", "seat"]] + ([["rules"]] if many_rules else [])
    dummies = _dummies(keys, factors)
    base = np.hstack([np.ones((m, 1)), dummies])            # without the completed column
    lam_base = np.r_[0.0, np.full(dummies.shape[1], 1.0 / prior_sd ** 2)]
    null = fit_logistic(base, y_cell, n_cell, penalty=lam_base)
    lam = np.r_[0.0, 1.0 / prior_sd ** 2, lam_base[1:]]
    total = n_cell.sum()

    out = {}
    for j, name in enumerate(names):
        k1, k0 = n1[:, j].sum(), n0[:, j].sum()
        row: dict[str, float] = {
            "n_completed": int(k1), "completion_rate": k1 / total,
            "win_rate_completed": s1[:, j].sum() / k1 if k1 else math.nan,
            "win_rate_not": s0[:, j].sum() / k0 if k0 else math.nan,
        }
        row["raw_diff"] = row["win_rate_completed"] - row["win_rate_not"]
        row["mh_diff"], row["mh_low"], row["mh_high"] = stratified_difference(
            sn1[:, j], ss1[:, j], sq1[:, j], sn0[:, j], ss0[:, j], sq0[:, j])
        keys_nan = ("log_odds", "log_odds_low", "log_odds_high", "odds_ratio", "effect",
                    "effect_low", "effect_high", "p_value")
        if k1 == 0 or k0 == 0:
            row.update(dict.fromkeys(keys_nan, math.nan))
            out[name] = row
            continue
        has1, has0 = n1[:, j] > 0, n0[:, j] > 0
        x = np.vstack([np.hstack([base[has0][:, :1], np.zeros((has0.sum(), 1)), base[has0][:, 1:]]),
                       np.hstack([base[has1][:, :1], np.ones((has1.sum(), 1)), base[has1][:, 1:]])])
        fit = fit_logistic(x, np.r_[s0[has0, j], s1[has1, j]], np.r_[n0[has0, j], n1[has1, j]],
                           penalty=lam)
        beta = float(fit.coef[1])
        # average marginal effect over every seat-game: completed vs not, all else as is
        x0 = np.hstack([base[:, :1], np.zeros((m, 1)), base[:, 1:]])
        eta0 = x0 @ fit.coef                                 # without the building's term
        base_p = special.expit(eta0)

        def ame(b: float, eta0: np.ndarray = eta0, base_p: np.ndarray = base_p) -> float:
            return float(np.sum(n_cell * (special.expit(eta0 + b) - base_p)) / total)

        # the profile-likelihood interval: it agrees with the likelihood-ratio p-value below
        low, high = profile_interval(x, np.r_[s0[has0, j], s1[has1, j]], np.r_[n0[has0, j], n1[has1, j]],
                                     fit, 1, penalty=lam)
        lr = max(2.0 * (fit.loglik - null.loglik), 0.0)
        row.update({
            "log_odds": beta, "log_odds_low": low, "log_odds_high": high,
            "odds_ratio": math.exp(beta), "effect": ame(beta), "effect_low": ame(low),
            "effect_high": ame(high), "p_value": float(sps.chi2.sf(lr, 1)),
        })
        out[name] = row
    table = pd.DataFrame.from_dict(out, orient="index")
    table.index.name = "building"
    table["p_holm"] = holm(table["p_value"].to_numpy())
    table["significant"] = table["p_holm"] < 0.05
    table = table.sort_values(["effect", "n_completed"], ascending=[False, False],
                              na_position="last", kind="stable")
    table["rank"] = np.where(table["effect"].notna(), np.arange(1, len(table) + 1), 0)
    table["rank"] = table["rank"].astype(int)
    table.attrs.update({"controls": controls, "strata": strata_cols, "prior_sd": prior_sd,
                        "tested": int(table["p_value"].notna().sum())})
    return table


# ---- scoring, endings, length -----------------------------------------------------------------

def vp_breakdown(frame: pd.DataFrame, by: str | Sequence[str] | None = None) -> pd.DataFrame:
    """Mean VP per seat-game by component (``influence``, ``vault``, ``merchant_bonus``,
    ``statue``, ``wall``) and in all (``total``), per spec (index ``spec``, or (``by``...,
    spec)), with ``games``."""
    by = _by(by)
    _need(frame, ["spec", "score", *VP_COLUMNS, *by], "vp_breakdown")
    grouped = frame.groupby([*by, "spec"], observed=True, sort=True)
    out = grouped[list(VP_COLUMNS)].mean()
    out.columns = list(VP_COMPONENTS)
    out["total"] = grouped["score"].mean()
    out.insert(0, "games", grouped.size())
    return _sort_within(out, by, "total")


def _reason_order(values: Sequence[str]) -> list[str]:
    known = [r for r in END_REASONS if r in values]
    return known + sorted(set(values) - set(END_REASONS))


def end_conditions(frame: pd.DataFrame, by: str | Sequence[str] | None = None) -> pd.DataFrame:
    """How games end: per end reason (index ``end_reason``, or (``by``..., end_reason) with
    per-game columns such as ``num_players`` or ``rules``), ``games``, ``share`` and its
    Wilson 95% interval (``low``, ``high``). Reasons seen anywhere appear in every group."""
    by = _by(by)
    _need(frame, ["game", "seat", "end_reason", *by], "end_conditions")
    per_game = frame[frame["seat"] == 0]
    reasons = _reason_order([str(r) for r in per_game["end_reason"].unique()])
    reason = per_game["end_reason"].astype(str)
    if by:
        counts = per_game.groupby([*(per_game[b] for b in by), reason], observed=True).size()
        counts = counts.unstack("end_reason", fill_value=0).reindex(columns=reasons, fill_value=0)
        counts = counts.stack()
    else:
        counts = reason.value_counts().reindex(reasons, fill_value=0)
    counts.index.names = [*by, "end_reason"]
    out = counts.rename("games").to_frame()
    totals = out.groupby(level=list(range(len(by))))["games"].transform("sum") if by \
        else out["games"].sum()
    out["share"] = out["games"] / totals
    out["low"], out["high"] = wilson(out["games"], np.broadcast_to(totals, len(out)))
    return out


def game_length(frame: pd.DataFrame, by: str | Sequence[str] | None = "num_players") -> pd.DataFrame:
    """Turns and decisions per game: ``games`` and, for ``turns`` and ``decisions``, the mean,
    standard deviation, minimum, quartiles and maximum (``turns_mean``, ``turns_sd``,
    ``turns_min``, ``turns_q25``, ``turns_median``, ``turns_q75``, ``turns_max``, ...), per
    group of ``by`` (default: per player count; None: all games, index ``all``)."""
    by = _by(by)
    _need(frame, ["game", "seat", "turns", "decisions", *by], "game_length")
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
    _need(frame, ["spec", *by, *cols], "roles_led")
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
    ``p_value``, the test of "the same in every condition":

    ========================  ======================================  =======================
    rows (measure, item)      value                                   test
    ========================  ======================================  =======================
    games, all                games                                   -
    win rate, SPEC            win rate of SPEC                        chi-square (wins/losses)
    mean VP, SPEC             mean final VP of SPEC                   Kruskal-Wallis
    P1 win rate, K players    win rate of seat 0 in K-player games    chi-square
    turns, mean               mean turns per game                     Kruskal-Wallis
    decisions, mean           mean decisions per game                 Kruskal-Wallis
    end, REASON               share of games ending so                chi-square (all reasons)
    ========================  ======================================  =======================

    Needs two or more conditions with the same player counts (otherwise a difference
    between conditions would be one between player counts: AnalysisError)."""
    _need(frame, ["game", "seat", "spec", "win_share", "score", "num_players", "turns",
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
    rows: dict[tuple[str, str], dict[str, float]] = {}
    per_game = frame[frame["seat"] == 0]
    game_key = per_game[by].astype(str)

    def add(measure: str, item: str, vals: dict[str, float], p: float) -> None:
        rows[(measure, item)] = {**{c: vals.get(c, math.nan) for c in conditions}, "p_value": p}

    add("games", "all", {c: float((game_key == c).sum()) for c in conditions}, math.nan)

    def rate_rows(measure: str, item: str, mask: pd.Series) -> None:
        sub = frame[mask]
        g = sub.groupby(key[mask], observed=True)["win_share"].agg(["sum", "size"])
        vals = {c: g.loc[c, "sum"] / g.loc[c, "size"] for c in g.index}
        p = math.nan
        if len(g) >= 2:
            table = np.c_[g["sum"].to_numpy(), (g["size"] - g["sum"]).to_numpy()]
            if (table.sum(axis=0) > 0).all():
                p = float(sps.chi2_contingency(table, correction=False).pvalue)
        add(measure, item, vals, p)

    def kruskal(values_by: dict[str, np.ndarray]) -> float:
        groups = [v for v in values_by.values() if len(v)]
        if len(groups) < 2 or all(np.all(g == groups[0][0]) for g in groups):
            return math.nan
        return float(sps.kruskal(*groups).pvalue)

    specs = sorted(str(s) for s in frame["spec"].unique())
    spec_text = frame["spec"].astype(str)
    for spec in specs:
        rate_rows("win rate", spec, spec_text == spec)
    for spec in specs:
        mask = spec_text == spec
        by_cond = {c: frame.loc[mask & (key == c), "score"].to_numpy(float) for c in conditions}
        add("mean VP", spec, {c: float(v.mean()) for c, v in by_cond.items() if len(v)},
            kruskal(by_cond))
    for k in sorted(int(x) for x in frame["num_players"].unique()):
        rate_rows("P1 win rate", f"{k} players", (frame["seat"] == 0) & (frame["num_players"] == k))
    for col in ("turns", "decisions"):
        by_cond = {c: per_game.loc[game_key == c, col].to_numpy(float) for c in conditions}
        add(col, "mean", {c: float(v.mean()) for c, v in by_cond.items() if len(v)},
            kruskal(by_cond))
    reason = per_game["end_reason"].astype(str)
    table = pd.crosstab(reason, game_key).reindex(columns=conditions, fill_value=0)
    table = table.reindex(_reason_order(list(table.index)))
    p = math.nan
    nonzero = table[(table.sum(axis=1) > 0)]
    if len(nonzero) >= 2:
        p = float(sps.chi2_contingency(nonzero.to_numpy(), correction=False).pvalue)
    shares = table / table.sum(axis=0)
    for r in table.index:
        add("end", r, {c: float(shares.loc[r, c]) for c in conditions}, p)
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index = pd.MultiIndex.from_tuples(out.index, names=["measure", "item"])
    out.columns.name = by
    out.attrs.update({"by": by, "conditions": conditions})
    return out

