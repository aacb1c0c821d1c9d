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
from .pentanomial import head_to_head

__all__ = [
    "FINISHING_CAPTION", "RATING_BOOTSTRAP", "RATING_PRIOR_SD", "RATING_PROFILE",
    "finishing_matrix", "pairwise", "ratings",
]

#: standard deviation (Elo) of the Gaussian prior on every rating of :func:`ratings`
RATING_PRIOR_SD = 400.0
#: the ``interval`` of a row of :func:`ratings`: the deal bootstrap, or for a perfect record
#: (which every resample repeats) the profile likelihood of the prior model
RATING_BOOTSTRAP = INTERVAL_BOOTSTRAP
RATING_PROFILE = "profile likelihood (perfect record)"
#: what :func:`finishing_matrix` computes, for the caption of its figure
FINISHING_CAPTION = (
    "Fraction of games in which the row spec finished ahead of the column spec: 1 for ahead, "
    "½ for an equal place (a shared win, or equal VP among those who did not win), 0 for "
    "behind; places are winners first, then by VP. Over every pair of seats holding the "
    "two specs.")


def _pairwise(frame: pd.DataFrame, what: str) -> tuple[pd.DataFrame, list[str]]:
    """Every ordered pair of seats of a game holding two different specs: columns ``unit``
    (run and deal), ``game``, ``i``, ``j`` (spec codes) and ``ahead`` (1 if i's seat
    finished ahead of j's, ½ for an equal place, 0 behind)."""
    need_columns(frame, ["game", "seat", "spec", "rank", "num_players", "deal"], what)
    specs, code = spec_codes(frame["spec"])
    data = pd.DataFrame({"unit": unit_keys(frame, ["run", "deal"]),
                         "game": frame["game"].to_numpy(), "seat": frame["seat"].to_numpy(),
                         "code": code, "rank": frame["rank"].to_numpy(float),
                         "k": frame["num_players"].to_numpy()}, copy=False)
    narrow = {name: np.min_scalar_type(max(int(data[name].max()), 0)) for name in ("unit", "game", "code")}
    parts = []
    counts = np.unique(data["k"].to_numpy())
    # one player count (as every caller gives): the rows themselves, not a copy per count
    groups = [(counts[0], data)] if len(counts) == 1 else data.groupby("k", sort=True)
    for k, sub in groups:
        sub = by_game(sub)
        k = int(k)
        if len(sub) % k or not (sub["game"].to_numpy()[::k].repeat(k) == sub["game"].to_numpy()).all():
            raise AnalysisError(f"{what}: every seat of every game must be in the frame (rows "
                                "of a game were filtered out?)")
        # in the narrowest integers that hold them: millions of seat pairs
        spec = sub["code"].to_numpy().astype(narrow["code"]).reshape(-1, k)
        rank = sub["rank"].to_numpy().reshape(-1, k)
        unit = sub["unit"].to_numpy()[::k].astype(narrow["unit"])
        game = sub["game"].to_numpy()[::k].astype(narrow["game"])
        for s in range(k):
            for t in range(k):
                keep = spec[:, s] != spec[:, t]
                if s == t or not keep.any():
                    continue
                ahead = (rank[:, s] < rank[:, t]) + 0.5 * (rank[:, s] == rank[:, t])
                parts.append((unit[keep], game[keep], spec[keep, s], spec[keep, t], ahead[keep]))
    if not parts:
        raise AnalysisError(f"{what}: no game seats two different specs")
    columns = {}
    for place, name in enumerate(("unit", "game", "i", "j", "ahead")):
        columns[name] = np.concatenate([part[place] for part in parts])
        parts = [(*part[:place], None, *part[place + 1:]) for part in parts]     # freed
    return pd.DataFrame(columns, copy=False), list(specs)


def finishing_matrix(frame: pd.DataFrame) -> pd.DataFrame:
    """:data:`FINISHING_CAPTION`: ``[row, column]`` is the mean of 1 (row's seat finished
    ahead of column's), ½ (equal place) and 0 over every pair of seats holding the two
    specs in a game (NaN where they never met and on the diagonal). Places come from the
    frame's ``rank`` (winners first, then by VP). ``attrs``: ``caption``, ``comparisons``
    (seat pairs per cell, a nested list) and ``games`` (games in which the two met)."""
    pairs, specs = _pairwise(frame, "finishing_matrix")
    n = len(specs)
    flat = pairs["i"].to_numpy(np.int64) * n + pairs["j"].to_numpy(np.int64)
    score = np.bincount(flat, weights=pairs["ahead"].to_numpy(), minlength=n * n).reshape(n, n)
    count = np.bincount(flat, minlength=n * n).reshape(n, n)
    # the distinct (game, i, j): hashed, not sorted
    met = pd.unique(pairs["game"].to_numpy(np.int64) * (n * n) + flat)
    games = np.bincount(met % (n * n), minlength=n * n)
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
    unit = pairs["unit"].to_numpy(np.int64)
    n_units = int(unit.max()) + 1
    flat = (unit * n + pairs["i"].to_numpy(np.int64)) * n + pairs["j"].to_numpy(np.int64)
    per_deal_score = np.bincount(flat, weights=pairs["ahead"].to_numpy(),
                                 minlength=n_units * n * n).reshape(n_units, n * n)
    per_deal_count = np.bincount(flat, minlength=n_units * n * n).reshape(n_units, n * n)
    per_deal_count = per_deal_count.astype(float)
    score = per_deal_score.sum(axis=0).reshape(n, n)
    count = per_deal_count.sum(axis=0).reshape(n, n)
    precision = (ELO_PER_NAT / prior_sd) ** 2
    r_hat = _fit_bt(score, count, precision)

    samples = []
    per_deal_score, per_deal_count = grouped_units(per_deal_score, per_deal_count)
    n_units = per_deal_score.shape[0]
    for weights in deal_resamples(n_units, resamples, seed):
        s_b = (weights @ per_deal_score).reshape(-1, n, n)
        c_b = (weights @ per_deal_count).reshape(-1, n, n)
        samples.append(_fit_bt(s_b, c_b, precision))
    low, high = expanded_percentile(np.concatenate(samples), r_hat, n_units, confidence)
    points = score.sum(axis=1)
    compared = count.sum(axis=1)
    perfect = (compared > 0) & ((points == compared) | (points == 0))
    model = np.full(n, RATING_BOOTSTRAP, dtype=object)
    z = z_value(confidence)
    for i in np.flatnonzero(perfect):
        low[i], high[i] = _profile_interval(int(i), r_hat, score, count, precision, z)
        model[i] = RATING_PROFILE
    # the games of each spec (the distinct (game, i), hashed)
    games = pd.Series(np.bincount(pd.unique(pairs["game"].to_numpy(np.int64) * n
                                            + pairs["i"].to_numpy(np.int64)) % n, minlength=n))
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
