"""Finishing order: how often each spec finished ahead of each other, every two specs that
met with an interval and a test that take the deal as the unit, and Bradley-Terry ratings
with a prior (docs/statistics.md).

=====================================  ==========================================================
:func:`finishing_matrix`               fraction of games in which the row spec finished ahead of
                                       the column spec (:data:`FINISHING_CAPTION`)
:func:`pairwise`                       every two specs that met: score, interval, Elo and the
                                       Holm-adjusted test of "evenly matched", deals as the unit
:func:`ratings`                        Bradley-Terry on pairwise finishing order with a Gaussian
                                       prior: finite for any record; deal-bootstrap intervals
=====================================  ==========================================================
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import optimize, special

from .. import AnalysisError
from .bootstrap import deal_resamples, expanded_percentile, grouped_units
from .frames import by_game, need_columns, spec_codes, unit_keys
from .intervals import (
    BOOTSTRAP_RESAMPLES,
    CONFIDENCE,
    ELO_PER_NAT,
    INTERVAL_BOOTSTRAP,
    INTERVAL_DEAL_T,
    MODEL_TEXT,
    elo_from_score,
    holm,
    mean_interval,
    mean_test,
    wilson,
    z_value,
)
from .pentanomial import HeadToHead, head_to_head

__all__ = [
    "FINISHING_CAPTION", "RATING_BOOTSTRAP", "RATING_FIXED", "RATING_PRIOR_SD", "RATING_PROFILE",
    "PairSums", "finishing_matrix", "pair_sums", "pairwise", "pairwise_of_sums", "ratings",
    "seat_pair_cells", "specs_met",
]

#: standard deviation (Elo) of the Gaussian prior on every rating of :func:`ratings`
RATING_PRIOR_SD = 400.0
#: the ``interval`` of a row of :func:`ratings`: the deal bootstrap, or for a perfect record
#: (which every resample repeats) the profile likelihood of the prior model
RATING_BOOTSTRAP = INTERVAL_BOOTSTRAP
RATING_PROFILE = "profile likelihood (perfect record)"
#: ... or for a rating no resampling of deals varies (one deal, or deals that all went alike)
RATING_FIXED = "profile likelihood (the same in every resample)"
#: what :func:`finishing_matrix` computes, for the caption of its figure
FINISHING_CAPTION = (
    "Fraction of games in which the row spec finished ahead of the column spec: 1 for ahead, "
    "½ for an equal place (a shared win, or equal VP among those who did not win), 0 for "
    "behind; places are winners first, then by VP. Over every pair of seats holding the "
    "two specs.")


@dataclass(frozen=True)
class PairSums:
    """Every ordered pair of seats of a game holding two different specs (i's seat and j's:
    1 if i's finished ahead, ½ for an equal place, 0 behind), summed per deal: ``halves`` and
    ``count`` (units (run and deal) x n x n, int32: twice i's points against j, their
    comparisons), ``games`` (n x n: the games in which i and j met) and ``spec_games`` (n: the
    games in which i met another spec), ``specs`` the n specs (codes 0..n-1). What
    :func:`finishing_matrix`, :func:`pairwise` and :func:`ratings` read: made once
    (:func:`pair_sums`) and given to each, in memory of the deals rather than of the seat
    pairs of every game. Integers (half of float64's memory): every sum of
    them is exact, and the points (``halves / 2``, taken after summing) are the float sums'
    to the last bit."""

    specs: list[str]
    halves: np.ndarray
    count: np.ndarray
    games: np.ndarray
    spec_games: np.ndarray


def seat_pair_cells(spec: np.ndarray, rank: np.ndarray, base: np.ndarray,
                    n: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """For games of one player count (``spec`` and ``rank``: a row per game, a column per
    seat; ``base``: each game's unit times ``n * n``), every ordered pair of seats holding two
    different specs, one seat pair (s, t) at a time: the :class:`PairSums` cell of each game's
    pair, and 2, 1 or 0 (twice the points) as s finished ahead of, level with or behind t."""
    k = spec.shape[1]
    for s in range(k):
        for t in range(k):
            keep = spec[:, s] != spec[:, t]
            if s == t or not keep.any():
                continue
            halves = 2 * (rank[keep, s] < rank[keep, t]).astype(np.int64) + (rank[keep, s] == rank[keep, t])
            yield base[keep] + spec[keep, s] * n + spec[keep, t], halves


def specs_met(spec: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The specs at each game's table (``spec``: a row per game): the games in which each two
    met (an n x n count, its diagonal the games a spec played), and the games in which each
    met another."""
    present = np.zeros((len(spec), n), dtype=np.int64)
    present[np.arange(len(spec))[:, None], spec] = 1
    return present.T @ present, present[present.sum(axis=1) > 1].sum(axis=0)


def pair_sums(frame: pd.DataFrame, what: str = "pair_sums") -> PairSums:
    """The :class:`PairSums` of the frame's games (every seat of each)."""
    need_columns(frame, ["game", "seat", "spec", "rank", "num_players", "deal"], what)
    specs, code = spec_codes(frame["spec"])
    n = len(specs)
    data = pd.DataFrame({"unit": unit_keys(frame, ["run", "deal"]),
                         "game": frame["game"].to_numpy(), "seat": frame["seat"].to_numpy(),
                         "code": code, "rank": frame["rank"].to_numpy(float),
                         "k": frame["num_players"].to_numpy()}, copy=False)
    size = (int(data["unit"].max()) + 1) * n * n
    halves, count = np.zeros(size, np.int32), np.zeros(size, np.int32)
    games, spec_games = np.zeros((n, n), np.int64), np.zeros(n, np.int64)
    counts = np.unique(data["k"].to_numpy())
    # one player count (as every caller gives): the rows themselves, not a copy per count
    groups = [(counts[0], data)] if len(counts) == 1 else data.groupby("k", sort=True)
    for k, sub in groups:
        sub = by_game(sub)
        k = int(k)
        if len(sub) % k or not (sub["game"].to_numpy()[::k].repeat(k) == sub["game"].to_numpy()).all():
            raise AnalysisError(f"{what}: every seat of every game must be in the frame (rows "
                                "of a game were filtered out?)")
        spec = sub["code"].to_numpy().reshape(-1, k)
        rank = sub["rank"].to_numpy().reshape(-1, k)
        base = sub["unit"].to_numpy()[::k] * (n * n)
        for key, twice in seat_pair_cells(spec, rank, base, n):
            halves += np.bincount(key, weights=twice, minlength=size).astype(np.int64)
            count += np.bincount(key, minlength=size)
        met, met_another = specs_met(spec, n)
        games += met
        spec_games += met_another
    np.fill_diagonal(games, 0)
    if not count.any():
        raise AnalysisError(f"{what}: no game seats two different specs")
    return PairSums(list(specs), halves.reshape(-1, n, n), count.reshape(-1, n, n), games, spec_games)


def finishing_matrix(frame: pd.DataFrame, sums: PairSums | None = None) -> pd.DataFrame:
    """:data:`FINISHING_CAPTION`: ``[row, column]`` is the mean of 1 (row's seat finished
    ahead of column's), ½ (equal place) and 0 over every pair of seats holding the two
    specs in a game (NaN where they never met and on the diagonal). Places come from the
    frame's ``rank`` (winners first, then by VP). ``attrs``: ``caption``, ``comparisons``
    (seat pairs per cell, a nested list) and ``games`` (games in which the two met).
    ``sums``: the frame's :func:`pair_sums`, when made already."""
    sums = sums or pair_sums(frame, "finishing_matrix")
    specs = sums.specs
    score, count, games = sums.halves.sum(axis=0) / 2, sums.count.sum(axis=0).astype(np.int64), sums.games
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(count > 0, score / np.maximum(count, 1), np.nan)
    out = pd.DataFrame(mean, index=pd.Index(specs, name="spec"),
                       columns=pd.Index(specs, name="opponent"))
    out.attrs.update({"caption": FINISHING_CAPTION, "comparisons": count.tolist(),
                      "games": games.tolist()})
    return out


def pairwise(frame: pd.DataFrame, confidence: float = CONFIDENCE, sums: PairSums | None = None
             ) -> pd.DataFrame:
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
    name -> text of the intervals used), ``holm`` (:data:`HOLM_LABEL`), ``pairs``.
    ``sums``: the frame's :func:`pair_sums`, when made already."""
    sums = sums or pair_sums(frame, "pairwise")
    counts = sorted(int(k) for k in frame["num_players"].unique())
    if len(counts) > 1:
        raise AnalysisError(f"pairwise needs games of one player count, got "
                            f"{', '.join(map(str, counts))}-player games")
    return pairwise_of_sums(sums, counts[0], lambda a, b: head_to_head(frame, a, b, confidence),
                            confidence)


def pairwise_of_sums(sums: PairSums, k: int, matches: Callable[[str, str], HeadToHead],
                     confidence: float = CONFIDENCE) -> pd.DataFrame:
    """:func:`pairwise` of the ``k``-player games summed in ``sums``; ``matches(a, b)``
    gives the :class:`~.pentanomial.HeadToHead` of two specs (2 players)."""
    specs = sums.specs
    compared_ij = sums.count.sum(axis=0)
    rows = []
    for i, j in zip(*np.nonzero(np.triu(compared_ij > 0, 1)), strict=True):
        a, b = specs[int(i)], specs[int(j)]
        if k == 2:
            h = matches(a, b)
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
        met = sums.count[:, i, j] > 0
        per_deal = sums.halves[met, i, j] / 2 / sums.count[met, i, j]
        score, low, high = mean_interval(per_deal, confidence)
        ahead, compared = float(sums.halves[:, i, j].sum()) / 2, float(compared_ij[i, j])
        if score < 0.5:
            a, b, score, low, high = b, a, 1.0 - score, 1.0 - high, 1.0 - low
            ahead = compared - ahead
        w_low, w_high = wilson(ahead, compared, confidence)
        rows.append({"spec": a, "opponent": b, "games": int(sums.games[i, j]),
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
            confidence: float = CONFIDENCE, sums: PairSums | None = None) -> pd.DataFrame:
    """Bradley-Terry ratings (logistic Elo, mean 0) from pairwise finishing order, for
    2-player matches, round robins and fields alike: in every game every pair of seats with
    different specs is one comparison (1 to the one that finished ahead, ½ each for an
    equal place). A Gaussian prior N(0, ``prior_sd``²) on every rating keeps them finite
    for any record (20-0 included); ``rating`` is the posterior mode.

    ``low``, ``high``: the percentile interval of the deal bootstrap (deals resampled, the
    model refitted each time). A spec with a perfect record (ahead of, or behind, every
    opponent in every comparison) is the same in every resample, so its interval is the
    profile-likelihood interval of the prior model instead, as is a rating the resamples
    cannot vary otherwise (a single deal); column ``interval`` names the model of each row.
    Also ``comparisons`` (the spec's pairwise comparisons) and ``games``. ``attrs``:
    ``model``, ``prior_sd``, ``resamples``, ``seed``. ``sums``: the frame's
    :func:`pair_sums`, when made already."""
    if not prior_sd > 0:
        raise AnalysisError(f"ratings: prior_sd must be positive, got {prior_sd!r}")
    sums = sums or pair_sums(frame, "ratings")
    specs = sums.specs
    n = len(specs)
    # the deals up to the last in which two specs met
    per_deal_count = sums.count.reshape(-1, n * n)
    n_units = int(np.flatnonzero(per_deal_count.any(axis=1))[-1]) + 1
    per_deal_halves, per_deal_count = sums.halves.reshape(-1, n * n)[:n_units], per_deal_count[:n_units]
    score = per_deal_halves.sum(axis=0).reshape(n, n) / 2
    count = per_deal_count.sum(axis=0).reshape(n, n).astype(float)
    precision = (ELO_PER_NAT / prior_sd) ** 2
    r_hat = _fit_bt(score, count, precision)

    samples = []
    # as floats once grouped (a few thousand rows at most): the points exact, as summed
    per_deal_halves, per_deal_count = grouped_units(per_deal_halves, per_deal_count)
    per_deal_score, per_deal_count = per_deal_halves / 2, per_deal_count.astype(float)
    n_units = per_deal_score.shape[0]
    for weights in deal_resamples(n_units, resamples, seed):
        s_b = (weights @ per_deal_score).reshape(-1, n, n)
        c_b = (weights @ per_deal_count).reshape(-1, n, n)
        samples.append(_fit_bt(s_b, c_b, precision))
    drawn = np.concatenate(samples)
    low, high = expanded_percentile(drawn, r_hat, n_units, confidence)
    points = score.sum(axis=1)
    compared = count.sum(axis=1)
    perfect = (compared > 0) & ((points == compared) | (points == 0))
    # one deal (or deals that all went alike): every resample is the sample, and the
    # percentile interval would be the point
    fixed = (compared > 0) & ~perfect & (np.ptp(drawn, axis=0) <= 1e-9)
    model = np.full(n, RATING_BOOTSTRAP, dtype=object)
    z = z_value(confidence)
    for i in np.flatnonzero(perfect | fixed):
        low[i], high[i] = _profile_interval(int(i), r_hat, score, count, precision, z)
        model[i] = RATING_PROFILE if perfect[i] else RATING_FIXED
    games = sums.spec_games
    out = pd.DataFrame({"rating": r_hat * ELO_PER_NAT, "low": low * ELO_PER_NAT,
                        "high": high * ELO_PER_NAT, "interval": model,
                        "comparisons": compared.astype(np.int64),
                        "games": games.astype(np.int64)},
                       index=pd.Index(specs, name="spec"))
    out = out.sort_values("rating", ascending=False, kind="stable")
    out.attrs.update({"model": f"Bradley-Terry on pairwise finishing order, Gaussian prior "
                               f"N(0, {prior_sd:g}²) on each rating (posterior mode)",
                      "prior_sd": prior_sd, "resamples": resamples, "seed": seed})
    return out
