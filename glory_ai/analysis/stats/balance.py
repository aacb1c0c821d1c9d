"""Balance statistics with deal-bootstrap draws, for comparing rule sets (docs/tuning.md).

Each statistic here is computed for many weightings of the deals at once: row 0 of the
weights is the data as played (every deal once), the other rows are bootstrap resamples of
the deals (multinomial counts). The deal is the unit, as everywhere in this package
(docs/statistics.md): a deal's games share their cards, so they are resampled together.
Two rule sets played on the same deals (the same root seed) take the same draws, which is
what makes their difference paired (:func:`paired_draws`).

A statistic is a function ``f(frame, weights, unit) -> array`` of one value per weighting:
``frame`` the analysis frame (glory_ai.analysis.load, one row per game per seat),
``weights`` a (draws x units) array and ``unit`` the unit of each row. Every one is a ratio
of weighted sums, so each draw costs a matrix product, not a pass over the games:

* :func:`seat_shares` / :func:`seat_parity`: each seat's win share, and the largest
  distance of a seat's share from the fair share 1/k;
* :func:`building_effects`: for each building, the difference in win share between the
  seat-games that completed it and those that did not, pooled over strata of spec x player
  count x seat with Mantel-Haenszel weights (the ``mh_diff`` of
  :func:`glory_ai.analysis.stats.building_strength`, whose logistic effect is too slow to
  refit for every draw); the same for any other indicator columns (``dealt:NAME``);
* :func:`mean_per_game` (game length), :func:`end_share` (how games end);
* :func:`spec_win_rates` / :func:`spec_spread`: each spec's win share and their spread;
* :func:`matchup_matrix` and :func:`skill_error`: win rates of graded bots against each
  other and their distance from a target matrix (and a target first-player share).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from .. import AnalysisError

__all__ = [
    "DRAWS",
    "MIN_COMPLETIONS",
    "building_effects",
    "deal_units",
    "draw_weights",
    "end_share",
    "matchup_matrix",
    "mean_per_game",
    "paired_draws",
    "seat_parity",
    "seat_shares",
    "skill_error",
    "spec_spread",
    "spec_win_rates",
]

#: bootstrap draws of a validation (row 0, the data itself, comes on top)
DRAWS = 2000
#: seat-games on each side (completed, not) before a building's effect counts in a maximum
MIN_COMPLETIONS = 30


def deal_units(frame: pd.DataFrame, keys: Sequence[str] = ("num_players", "deal")) -> tuple[np.ndarray, int]:
    """(the unit of each row, the number of units): a unit is a deal (of a player count: the
    deals of two runs with the same seed are the same cards only at the same count)."""
    if frame.empty:
        raise AnalysisError("no games to compute a statistic of")
    codes, uniques = pd.MultiIndex.from_frame(frame[list(keys)]).factorize()
    return codes.astype(np.int64), len(uniques)


def draw_weights(n_units: int, draws: int = DRAWS, seed: int = 0) -> np.ndarray:
    """(1 + draws) x n_units weights: row 0 all ones (the estimate), then multinomial
    resamples of the units (each unit drawn with replacement, as many draws as units)."""
    rng = np.random.default_rng(seed)
    out = np.ones((1 + draws, n_units))
    if draws:
        out[1:] = rng.multinomial(n_units, np.full(n_units, 1.0 / n_units), size=draws)
    return out


def paired_draws(
    frames: Sequence[pd.DataFrame],
    draws: int = DRAWS,
    seed: int = 0,
    keys: Sequence[str] = ("num_players", "deal"),
) -> tuple[np.ndarray, list[np.ndarray]]:
    """The weights and each frame's row units for frames played on the same deals (one rule
    set each): the units are the deals they share, so a draw weighs a deal alike in every
    frame. A deal missing from one frame is an AnalysisError (the comparison would not be
    paired)."""
    sets = [set(map(tuple, f[list(keys)].drop_duplicates().to_numpy().tolist())) for f in frames]
    if any(s != sets[0] for s in sets[1:]):
        raise AnalysisError("the rule sets compared were not played on the same deals")
    order = {key: i for i, key in enumerate(sorted(sets[0]))}
    units = [
        np.fromiter(
            (order[tuple(k)] for k in f[list(keys)].to_numpy().tolist()), dtype=np.int64, count=len(f)
        )
        for f in frames
    ]
    return draw_weights(len(order), draws, seed), units


def _unit_sums(unit: np.ndarray, n_units: int, values: np.ndarray) -> np.ndarray:
    """Per-unit sums of ``values`` (rows x columns) -> units x columns."""
    values = values.reshape(len(unit), -1)
    out = np.zeros((n_units, values.shape[1]))
    np.add.at(out, unit, values)
    return out


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def seat_shares(frame: pd.DataFrame, weights: np.ndarray, unit: np.ndarray, players: int) -> np.ndarray:
    """draws x seats: each seat's mean win share in the ``players``-player games."""
    rows = (frame["num_players"] == players).to_numpy()
    if not rows.any():
        raise AnalysisError(f"no {players}-player games")
    seat = frame["seat"].to_numpy()[rows]
    onehot = np.eye(players)[seat]
    share = frame["win_share"].to_numpy(dtype=float)[rows, None] * onehot
    n_units = weights.shape[1]
    return _ratio(
        weights @ _unit_sums(unit[rows], n_units, share), weights @ _unit_sums(unit[rows], n_units, onehot)
    )


def seat_parity(frame: pd.DataFrame, weights: np.ndarray, unit: np.ndarray) -> np.ndarray:
    """The largest distance of a seat's win share from the fair share 1/k, over seats and
    player counts (0: every seat wins its share)."""
    worst = np.zeros(weights.shape[0])
    for players in sorted(frame["num_players"].unique()):
        shares = seat_shares(frame, weights, unit, int(players))
        worst = np.maximum(worst, np.nanmax(np.abs(shares - 1.0 / players), axis=1))
    return worst


def _strata(frame: pd.DataFrame) -> np.ndarray:
    codes, _ = pd.MultiIndex.from_frame(frame[["spec", "num_players", "seat"]]).factorize()
    return codes.astype(np.int64)


def building_effects(
    frame: pd.DataFrame, weights: np.ndarray, unit: np.ndarray, columns: Sequence[str]
) -> np.ndarray:
    """draws x columns: for each boolean column (``completed:NAME``, ``dealt:NAME``), the
    Mantel-Haenszel pooled difference in win share between the seat-games where it holds and
    those where it does not, within strata of spec x player count x seat (win-rate points as
    fractions: 0.12 = +12 points); NaN where no stratum holds both kinds."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise AnalysisError(f"the games have no column {missing[0]!r}")
    stratum = _strata(frame)
    n_strata = int(stratum.max()) + 1
    n_units = weights.shape[1]
    y = frame["win_share"].to_numpy(dtype=float)
    c = frame[list(columns)].to_numpy(dtype=float)  # rows x buildings
    cell = unit * n_strata + stratum  # (unit, stratum) cells
    size = n_units * n_strata

    def sums(values: np.ndarray) -> np.ndarray:
        out = np.zeros((size, values.shape[1]))
        np.add.at(out, cell, values)
        # draws x strata x buildings
        return np.einsum("bu,uhx->bhx", weights, out.reshape(n_units, n_strata, -1))

    a = sums(y[:, None] * c)  # wins where it holds
    n1 = sums(c)
    b = sums(y[:, None] * (1.0 - c))  # wins where it does not
    n0 = sums(1.0 - c)
    total = n1 + n0
    with np.errstate(invalid="ignore", divide="ignore"):
        num = np.where(total > 0, (a * n0 - b * n1) / np.where(total > 0, total, 1.0), 0.0).sum(axis=1)
        den = np.where(total > 0, n1 * n0 / np.where(total > 0, total, 1.0), 0.0).sum(axis=1)
    return _ratio(num, den)


def eligible(frame: pd.DataFrame, columns: Sequence[str], minimum: int = MIN_COMPLETIONS) -> list[str]:
    """The columns with at least ``minimum`` seat-games on each side (where it holds and where
    it does not) in the games as played: the effects a maximum may be taken over."""
    values = frame[list(columns)].to_numpy(dtype=bool)
    held = values.sum(axis=0)
    return [c for c, n in zip(columns, held, strict=True) if n >= minimum and len(frame) - n >= minimum]


def mean_per_game(frame: pd.DataFrame, weights: np.ndarray, unit: np.ndarray, column: str) -> np.ndarray:
    """The mean of a per-game column (``turns``, ``decisions``) over games."""
    rows = (frame["seat"] == 0).to_numpy()
    n_units = weights.shape[1]
    values = frame[column].to_numpy(dtype=float)[rows, None]
    num = weights @ _unit_sums(unit[rows], n_units, values)
    den = weights @ _unit_sums(unit[rows], n_units, np.ones_like(values))
    return _ratio(num, den)[:, 0]


def end_share(frame: pd.DataFrame, weights: np.ndarray, unit: np.ndarray, reason: str) -> np.ndarray:
    """The share of games that end by ``reason`` (an end reason: catacomb, deck, sites, forum, ...)."""
    rows = (frame["seat"] == 0).to_numpy()
    n_units = weights.shape[1]
    hit = (frame["end_reason"].astype(str).to_numpy()[rows] == reason).astype(float)[:, None]
    num = weights @ _unit_sums(unit[rows], n_units, hit)
    den = weights @ _unit_sums(unit[rows], n_units, np.ones_like(hit))
    return _ratio(num, den)[:, 0]


def spec_win_rates(
    frame: pd.DataFrame, weights: np.ndarray, unit: np.ndarray, specs: Sequence[str]
) -> np.ndarray:
    """draws x specs: each spec's mean win share over the seats it held, relative to the
    fair share (1.0: it wins as often as a seat of its games on average)."""
    n_units = weights.shape[1]
    spec = frame["spec"].astype(str).to_numpy()
    fair = 1.0 / frame["num_players"].to_numpy(dtype=float)
    onehot = np.stack([spec == s for s in specs], axis=1).astype(float)
    share = frame["win_share"].to_numpy(dtype=float)[:, None] * onehot
    return _ratio(
        weights @ _unit_sums(unit, n_units, share),
        weights @ _unit_sums(unit, n_units, fair[:, None] * onehot),
    )


def spec_spread(
    frame: pd.DataFrame, weights: np.ndarray, unit: np.ndarray, specs: Sequence[str] | None = None
) -> np.ndarray:
    """The spread (largest minus smallest) of the specs' win rates relative to the fair share:
    0 when every strategy wins its share."""
    specs = list(specs) if specs else sorted(frame["spec"].astype(str).unique())
    if len(specs) < 2:
        raise AnalysisError("a spread of strategies needs games of at least two specs")
    rates = spec_win_rates(frame, weights, unit, specs)
    return np.nanmax(rates, axis=1) - np.nanmin(rates, axis=1)


def matchup_matrix(
    frame: pd.DataFrame, weights: np.ndarray, unit: np.ndarray, specs: Sequence[str]
) -> np.ndarray:
    """draws x specs x specs: [i, j] the mean win share of spec i in the two-player games
    between i and j (NaN on the diagonal and where they never met)."""
    two = (frame["num_players"] == 2).to_numpy()
    sub = frame.loc[two, ["game", "seat", "spec", "win_share"]].sort_values(["game", "seat"], kind="stable")
    index = {s: i for i, s in enumerate(specs)}
    k, n_units = len(specs), weights.shape[1]
    codes = sub["spec"].astype(str).map(index)
    if codes.isna().any():
        raise AnalysisError(f"the games hold specs outside {list(specs)}")
    pairs = codes.to_numpy(dtype=np.int64).reshape(-1, 2)
    shares = sub["win_share"].to_numpy(dtype=float).reshape(-1, 2)
    game_units = _game_units(frame, unit, two)
    cells = np.zeros((n_units, k * k))
    count = np.zeros((n_units, k * k))
    for side in (0, 1):
        i, j = pairs[:, side], pairs[:, 1 - side]
        np.add.at(cells, (game_units, i * k + j), shares[:, side])
        np.add.at(count, (game_units, i * k + j), 1.0)
    out = _ratio(weights @ cells, weights @ count).reshape(-1, k, k)
    out[:, np.arange(k), np.arange(k)] = np.nan
    return out


def _game_units(frame: pd.DataFrame, unit: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The unit of each game among ``rows``, in the order of (game, seat) sorted."""
    sub = pd.DataFrame(
        {"game": frame["game"].to_numpy()[rows], "seat": frame["seat"].to_numpy()[rows], "unit": unit[rows]}
    ).sort_values(["game", "seat"], kind="stable")
    return sub["unit"].to_numpy()[::2]


def skill_error(
    frame: pd.DataFrame,
    weights: np.ndarray,
    unit: np.ndarray,
    specs: Sequence[str],
    target: np.ndarray | Sequence[Sequence[float]],
    first_player: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(the mean absolute distance of the matchup matrix from ``target`` over the pairs that
    met, the distance of the first player's win share from ``first_player``; NaN when no
    target is given): the two terms of the balancing competition's score (docs/tuning.md)."""
    target = np.asarray(target, dtype=float)
    k = len(specs)
    if target.shape != (k, k):
        raise AnalysisError(f"the target matrix must be {k} x {k} (one row and column per spec)")
    matrix = matchup_matrix(frame, weights, unit, specs)
    off = ~np.eye(k, dtype=bool)
    matrix_error = np.nanmean(np.abs(matrix - target)[:, off], axis=1)
    if first_player is None:
        return matrix_error, np.full(weights.shape[0], np.nan)
    shares = seat_shares(frame, weights, unit, 2)
    return matrix_error, np.abs(shares[:, 0] - first_player)


def summary_of_draws(values: np.ndarray, confidence: float = 0.95) -> tuple[float, float, float]:
    """(estimate, low, high): row 0 and the percentile interval of the other rows."""
    rest = values[1:][np.isfinite(values[1:])]
    if not len(rest):
        return float(values[0]), float("nan"), float("nan")
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(rest, [tail, 1.0 - tail])
    return float(values[0]), float(low), float(high)


def as_mapping(names: Sequence[str], values: np.ndarray) -> Mapping[str, float]:
    """Row 0 of draws x names values as {name: value}."""
    return {name: float(v) for name, v in zip(names, values[0], strict=True)}
