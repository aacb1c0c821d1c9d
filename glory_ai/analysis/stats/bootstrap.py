"""Fields and round robins: resampling whole deals (every rotation and pairing of a deal
together) for the intervals of rates (docs/statistics.md).

=====================================  ==========================================================
:func:`deal_resamples`                 bootstrap weights of the deals, in blocks
:func:`expanded_percentile`            the percentile interval widened for few deals
:func:`bootstrap_rates`                the deal-bootstrap interval of rates from per-deal sums
:func:`win_shares`                     win share per spec (or seat) with a deal-bootstrap
                                       interval and the independent-games (Wilson) interval beside
=====================================  ==========================================================
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from .frames import need_columns, unit_keys
from .intervals import BOOTSTRAP_RESAMPLES, CONFIDENCE, MODEL_INDEPENDENT, bootstrap_model, wilson

__all__ = [
    "GROUPS", "MAX_UNITS", "bootstrap_rates", "deal_resamples", "deal_sums", "expanded_percentile",
    "grouped_units", "win_shares", "win_shares_of_sums",
]

#: the most units a bootstrap resamples: past it, deals are taken in GROUPS groups
#: (:func:`grouped_units`)
MAX_UNITS = 10_000
GROUPS = 2_000


def grouped_units(*per_unit: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per-unit sums (units first) as they are for at most :data:`MAX_UNITS` units; past
    that, summed into :data:`GROUPS` groups (unit i in group i mod GROUPS: the groups differ
    by at most one deal), which the bootstrap then resamples instead of the deals. The deals
    are independent, so the groups are too: the interval is the deals' in the large-sample
    limit (docs/statistics.md), and its cost stops growing with the deals of a study."""
    n_units = per_unit[0].shape[0]
    if n_units <= MAX_UNITS:
        return per_unit
    out = []
    for sums in per_unit:
        # the blocks of GROUPS units added one after the other (the order a sum over the
        # blocks takes), without a padded copy of every unit's sums
        grouped = np.zeros((GROUPS, *sums.shape[1:]), dtype=sums.dtype)
        for start in range(0, n_units, GROUPS):
            block = sums[start:start + GROUPS]
            grouped[:len(block)] += block
        out.append(grouped)
    return tuple(out)


#: the most draws in one block of :func:`deal_resamples` (a block's arrays are 8 bytes a draw)
BLOCK_DRAWS = 100_000


def deal_resamples(n_units: int, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0,
                   chunk: int = 250) -> Iterator[np.ndarray]:
    """Bootstrap weights: blocks of rows (at most ``chunk``, and at most
    :data:`BLOCK_DRAWS` draws a block), each row how often every one of ``n_units`` deals is
    drawn (``n_units`` draws with replacement), ``resamples`` rows in all, from
    ``numpy.random.default_rng(seed)``. The draws come from the generator in order whatever
    the blocks' size, so the weights are the same for any ``chunk``; the cap bounds the
    memory (a few blocks of 4 MB) whatever the deals."""
    chunk = max(1, min(chunk, BLOCK_DRAWS // max(n_units, 1)))
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
    deal (taken in :data:`GROUPS` groups past :data:`MAX_UNITS` deals)."""
    w, g = grouped_units(np.asarray(wins, dtype=float), np.asarray(games, dtype=float))
    rates = []
    for weights in deal_resamples(w.shape[0], resamples, seed):
        with np.errstate(invalid="ignore", divide="ignore"):
            rates.append((weights @ w) / (weights @ g))
    with np.errstate(invalid="ignore", divide="ignore"):
        estimate = w.sum(axis=0) / g.sum(axis=0)
    low, high = expanded_percentile(np.concatenate(rates), estimate, w.shape[0], confidence)
    return np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)


def deal_sums(frame: pd.DataFrame, value: str, label: str = "spec"
               ) -> tuple[np.ndarray, np.ndarray, list[Any]]:
    """Per deal (run and deal) and value of the ``label`` column: the sum of ``value`` and
    the rows (seat-games)."""
    unit = unit_keys(frame, ["run", "deal"])
    column = frame[label]
    if label == "spec" and isinstance(column.dtype, pd.CategoricalDtype) and column.notna().all():
        # np.unique of the spec texts, from the categories (a few) rather than every row
        names = column.cat.categories.astype(str).to_numpy()
        category = column.cat.codes.to_numpy()
        labels = np.unique(names[np.bincount(category, minlength=len(names)) > 0])
        code = np.searchsorted(labels, names)[category]
    else:
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
    as independent, for comparison. A spec that won every game it played, or none, or the
    same share of every deal it played (half of each deal's two games, say), has no
    variation for the bootstrap to resample (its interval would be the point): its ``low``,
    ``high`` are the Wilson interval, and its ``fixed`` is true; unless it held every seat
    of those deals (self-play), whose equal share is exact. Columns also ``games``
    (seat-games), ``deals`` and ``wins`` (a win shared by k counts 1/k).
    ``attrs``: ``model`` and ``independent_model`` (the ``MODEL_*`` texts), ``resamples``,
    ``seed``."""
    need_columns(frame, [label, "deal", "win_share"], "win_shares")
    wins, games, labels = deal_sums(frame, "win_share", label)
    return win_shares_of_sums(wins, games, labels, resamples, seed, confidence, label)


def win_shares_of_sums(wins: np.ndarray, games: np.ndarray, labels: list[Any],
                       resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0,
                       confidence: float = CONFIDENCE, label: str = "spec") -> pd.DataFrame:
    """:func:`win_shares` from its per-deal sums (:func:`deal_sums`: ``wins`` and
    ``games``, deals x labels, the deals that hold the rows in (run, deal) order)."""
    low, high = bootstrap_rates(wins, games, resamples, seed, confidence)
    total_w, total_g = wins.sum(axis=0), games.sum(axis=0)
    ind_low, ind_high = wilson(total_w, total_g, confidence)
    fixed = (total_w == 0) | (total_w == total_g) | _same_every_deal(wins, games)
    # a spec that held every seat of every deal it played (self-play) has the equal share by
    # construction: its point interval is exact, not a resampling that cannot vary
    fixed &= ~((games == 0) | (games == games.sum(axis=1, keepdims=True))).all(axis=0)
    low, high = np.where(fixed, ind_low, low), np.where(fixed, ind_high, high)
    out = pd.DataFrame({"games": total_g.astype(np.int64), "deals": (games > 0).sum(axis=0),
                        "wins": total_w, "win_share": total_w / total_g, "low": low,
                        "high": high, "independent_low": ind_low,
                        "independent_high": ind_high, "fixed": fixed},
                       index=pd.Index(labels, name=label))
    out = out.sort_values(["win_share"], ascending=False, kind="stable")
    out.attrs.update({"model": bootstrap_model(resamples),
                      "independent_model": MODEL_INDEPENDENT, "resamples": resamples,
                      "seed": seed})
    return out


def _same_every_deal(wins: np.ndarray, games: np.ndarray) -> np.ndarray:
    """Per column: did every deal that played it give it the same win share (to 1e-12)?"""
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(games > 0, wins / np.where(games > 0, games, 1.0), np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)          # a column no deal played
        spread = np.nanmax(rate, axis=0) - np.nanmin(rate, axis=0)
    return np.asarray(spread <= 1e-12)
